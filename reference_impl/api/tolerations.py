"""Taints and tolerations.

Upstream: ``staging/src/k8s.io/api/core/v1/toleration.go`` (Toleration.ToleratesTaint,
compareNumericValues), ``staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go``
(TolerationsTolerateTaint, FindMatchingUntoleratedTaint) and
``pkg/scheduler/framework/plugins/helper/taint.go`` (DoNotScheduleTaintsFilterFunc).

The ``Lt``/``Gt`` toleration operators belong to the TaintTolerationComparisonOperators feature
gate (alpha, off in v1.37.2). With the gate off such a toleration tolerates nothing (it is not an
error); callers pass the gate's value as ``enable_comparison_operators``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from reference_impl.model.objects import (
    TAINT_NO_EXECUTE,
    TAINT_NO_SCHEDULE,
    TOLERATION_OP_EQUAL,
    TOLERATION_OP_EXISTS,
    Taint,
    Toleration,
)

TOLERATION_OP_LT = "Lt"
TOLERATION_OP_GT = "Gt"

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def is_decimal_integer(value: str) -> bool:
    """``content.IsDecimalInteger`` (apimachinery/pkg/api/validate/content/decimal_int.go):
    canonical decimal form only: "0", or an optional '-' then a non-zero digit then digits."""
    n = len(value)
    if n == 0:
        return False
    i = 0
    if value[0] == "-":
        if n == 1:
            return False
        i = 1
    if value[i] == "0":
        return n == 1 and i == 0
    if not ("1" <= value[i] <= "9"):
        return False
    for c in value[i + 1:]:
        if not ("0" <= c <= "9"):
            return False
    return True


def _parse_canonical_int64(value: str) -> int | None:
    if not is_decimal_integer(value):
        return None
    n = int(value)
    if n < _INT64_MIN or n > _INT64_MAX:  # strconv.ParseInt range error
        return None
    return n


def compare_numeric_values(toleration_val: str, taint_val: str, op: str) -> bool:
    """``compareNumericValues``: both values must be canonical int64 decimals;
    Lt tolerates taint < toleration, Gt taint > toleration; anything else is False."""
    t_val = _parse_canonical_int64(toleration_val)
    if t_val is None:
        return False
    taint_num = _parse_canonical_int64(taint_val)
    if taint_num is None:
        return False
    if op == TOLERATION_OP_LT:
        return taint_num < t_val
    if op == TOLERATION_OP_GT:
        return taint_num > t_val
    return False


def toleration_tolerates_taint(toleration: Toleration, taint: Taint,
                               enable_comparison_operators: bool = False) -> bool:
    """``Toleration.ToleratesTaint``.

    An empty toleration effect matches every effect; an empty key matches every key; operator
    "" or Equal compares values, Exists matches any value, Lt/Gt compare numerically only when
    the gate is on; an unknown operator matches nothing.
    """
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    op = toleration.operator
    if op == "" or op == TOLERATION_OP_EQUAL:
        return toleration.value == taint.value
    if op == TOLERATION_OP_EXISTS:
        return True
    if op == TOLERATION_OP_LT or op == TOLERATION_OP_GT:
        if not enable_comparison_operators:
            return False
        return compare_numeric_values(toleration.value, taint.value, op)
    return False


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint,
                               enable_comparison_operators: bool = False) -> bool:
    """``TolerationsTolerateTaint``: True if any toleration tolerates the taint."""
    for t in tolerations:
        if toleration_tolerates_taint(t, taint, enable_comparison_operators):
            return True
    return False


TaintFilter = Callable[[Taint], bool]


def do_not_schedule_taint(taint: Taint) -> bool:
    """The predicate of ``DoNotScheduleTaintsFilterFunc``: NoSchedule and NoExecute taints."""
    effect = taint.effect
    return effect == TAINT_NO_SCHEDULE or effect == TAINT_NO_EXECUTE


def do_not_schedule_taints_filter_func() -> TaintFilter:
    """``DoNotScheduleTaintsFilterFunc`` (pkg/scheduler/framework/plugins/helper/taint.go)."""
    return do_not_schedule_taint


def find_matching_untolerated_taint(taints: Iterable[Taint], tolerations: Iterable[Toleration],
                                    inclusion_filter: TaintFilter | None,
                                    enable_comparison_operators: bool = False) -> Taint | None:
    """``FindMatchingUntoleratedTaint``: the first taint (in node order) that passes the filter
    (``None`` filter: every taint) and that no toleration tolerates; ``None`` if all tolerated."""
    tolerations = tuple(tolerations)
    for taint in taints:
        if inclusion_filter is not None and not inclusion_filter(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint, enable_comparison_operators):
            return taint
    return None


def toleration_json(t: Toleration) -> dict:
    """A toleration as ``json.Marshal`` renders a ``v1.Toleration`` (omitempty fields)."""
    out: dict = {}
    if t.key:
        out["key"] = t.key
    if t.operator:
        out["operator"] = t.operator
    if t.value:
        out["value"] = t.value
    if t.effect:
        out["effect"] = t.effect
    if t.toleration_seconds is not None:
        out["tolerationSeconds"] = t.toleration_seconds
    return out


def tolerations_signer(tolerations: Iterable[Toleration]) -> list[dict]:
    """``fwk.TolerationsSigner`` (staging/src/k8s.io/kube-scheduler/framework/signers.go): the
    tolerations sorted by (key, value), as JSON-ready dicts. Upstream's ``sort.Slice`` is not
    stable in general but is an insertion sort (stable) for up to 12 elements; Python's stable
    sort is used."""
    ordered = sorted(tolerations, key=lambda t: (t.key, t.value))
    return [toleration_json(t) for t in ordered]
