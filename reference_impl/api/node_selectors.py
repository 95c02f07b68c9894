"""Node selectors and required/preferred node affinity, compiled once per pod.

Upstream: ``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go``
(NodeSelector, LazyErrorNodeSelector, PreferredSchedulingTerms, RequiredNodeAffinity), with the
requirement rules of ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go`` (NewRequirement,
Requirement.Matches) and ``staging/src/k8s.io/apimachinery/pkg/fields/selector.go`` (one-term
field selectors), and ``staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go``
(MatchNodeSelectorTerms). The semantics carried over: docs/reference.md#node-selectors."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from reference_impl.model.objects import (
    Affinity,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
)
from reference_impl.model.validation import is_qualified_name, is_valid_label_value

OBJECT_NAME_FIELD = "metadata.name"  # metav1.ObjectNameField

OP_IN = "In"
OP_NOT_IN = "NotIn"
OP_EXISTS = "Exists"
OP_DOES_NOT_EXIST = "DoesNotExist"
OP_GT = "Gt"
OP_LT = "Lt"

VALID_SELECTOR_OPERATORS = (OP_IN, OP_NOT_IN, OP_EXISTS, OP_DOES_NOT_EXIST, OP_GT, OP_LT)
VALID_FIELD_SELECTOR_OPERATORS = (OP_IN, OP_NOT_IN)

# Compiled operator codes (hot path compares small ints).
_IN, _NOT_IN, _EXISTS, _DOES_NOT_EXIST, _GT, _LT = range(6)
_OP_CODES = {OP_IN: _IN, OP_NOT_IN: _NOT_IN, OP_EXISTS: _EXISTS,
             OP_DOES_NOT_EXIST: _DOES_NOT_EXIST, OP_GT: _GT, OP_LT: _LT}

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_PARSE_INT_RE = re.compile(r"[+-]?[0-9]+")


def parse_int64(s: str) -> int | None:
    """``strconv.ParseInt(s, 10, 64)``: optional sign and ASCII digits, in int64 range;
    ``None`` on error."""
    if _PARSE_INT_RE.fullmatch(s) is None:
        return None
    n = int(s)
    if n < _INT64_MIN or n > _INT64_MAX:
        return None
    return n


# --------------------------------------------------------------------------------------------
# Field errors (staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go) and the
# aggregate message (staging/src/k8s.io/apimachinery/pkg/util/errors/errors.go).
# --------------------------------------------------------------------------------------------

def _go_json(value: Any) -> str:
    """``json.Marshal`` of strings / string lists (Go escapes <, >, & and U+2028/9)."""
    s = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return (s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _go_quote(s: str) -> str:
    """``strconv.Quote`` (close approximation: JSON quoting of printable text)."""
    return json.dumps(s, ensure_ascii=False)


class FieldError:
    """``field.Error``: ``<path>: <Type>: <bad value>: <detail>``."""

    __slots__ = ("path", "type", "bad_value", "detail")

    INVALID = "Invalid value"
    NOT_SUPPORTED = "Unsupported value"

    def __init__(self, path: str, type_: str, bad_value: str, detail: str) -> None:
        self.path = path
        self.type = type_
        self.bad_value = bad_value  # already rendered as upstream renders it
        self.detail = detail

    def __str__(self) -> str:
        body = f"{self.type}: {self.bad_value}"
        if self.detail:
            body += f": {self.detail}"
        return f"{self.path}: {body}"

    __repr__ = __str__


def aggregate_message(errors: Iterable[object]) -> str:
    """``utilerrors.Aggregate.Error`` of a flattened list: one error → its message; more →
    ``[m1, m2]`` with duplicate messages dropped (and no brackets if only one remains)."""
    msgs = [str(e) for e in errors]
    if len(msgs) == 1:
        return msgs[0]
    seen: list[str] = []
    for m in msgs:
        if m not in seen:
            seen.append(m)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


class NodeSelectorParseError(ValueError):
    """Parse errors of a node selector / preferred terms; ``str()`` is upstream's message."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__(aggregate_message(errors))
        self.errors = errors


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _index(path: str, i: int | str) -> str:
    return f"{path}[{i}]"


def _invalid(path: str, bad_value: str, detail: str) -> FieldError:
    return FieldError(path, FieldError.INVALID, bad_value, detail)


def _not_supported(path: str, value: str, valid: tuple[str, ...]) -> FieldError:
    detail = "supported values: " + ", ".join(_go_quote(v) for v in valid)
    # The bad value is a v1.NodeSelectorOperator (a named string type): rendered by json.Marshal.
    return FieldError(path, FieldError.NOT_SUPPORTED, _go_json(value), detail)


def _values_json(values: tuple[str, ...]) -> str:
    # A nil values slice marshals as null; the model cannot tell nil from empty.
    return _go_json(list(values)) if values else "null"


def _new_requirement(key: str, op: str, values: tuple[str, ...], path: str
                     ) -> tuple[tuple[str, int, Any] | None, list[FieldError]]:
    """``labels.NewRequirement`` for a node selector operator: the compiled
    ``(key, op code, arg)`` or the field errors, in upstream's order."""
    errs: list[FieldError] = []
    key_errs = is_qualified_name(key)
    if key_errs:
        errs.append(_invalid(_child(path, "key"), _go_quote(key), "; ".join(key_errs)))
    values_path = _child(path, "values")
    code = _OP_CODES[op]
    if code in (_IN, _NOT_IN):
        if not values:
            errs.append(_invalid(values_path, _values_json(values),
                                 "for 'in', 'notin' operators, values set can't be empty"))
    elif code in (_EXISTS, _DOES_NOT_EXIST):
        if values:
            errs.append(_invalid(values_path, _values_json(values),
                                 "values set must be empty for exists and does not exist"))
    else:
        if len(values) != 1:
            errs.append(_invalid(values_path, _values_json(values),
                                 "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, v in enumerate(values):
            if parse_int64(v) is None:
                errs.append(_invalid(_index(values_path, i), _go_quote(v),
                                     "for 'Gt', 'Lt' operators, the value must be an integer"))
    for i, v in enumerate(values):
        value_errs = is_valid_label_value(v)
        if value_errs:
            errs.append(_invalid(_index(_index(values_path, i), key), _go_quote(v),
                                 "; ".join(value_errs)))
    if errs:
        return None, errs
    arg: Any
    if code in (_GT, _LT):
        arg = parse_int64(values[0])
    elif code in (_IN, _NOT_IN):
        arg = frozenset(values)
    else:
        arg = None
    return (key, code, arg), []


def _requirements_as_selector(reqs: tuple[NodeSelectorRequirement, ...], path: str
                              ) -> tuple[tuple[tuple[str, int, Any], ...], list[FieldError]]:
    """``nodeSelectorRequirementsAsSelector`` (called only with a non-empty list)."""
    errs: list[FieldError] = []
    out: list[tuple[str, int, Any]] = []
    for i, expr in enumerate(reqs):
        p = _index(path, i)
        if expr.operator not in _OP_CODES:
            errs.append(_not_supported(_child(p, "operator"), expr.operator,
                                       VALID_SELECTOR_OPERATORS))
            continue
        r, r_errs = _new_requirement(expr.key, expr.operator, tuple(expr.values), p)
        if r_errs:
            errs.extend(r_errs)
        else:
            assert r is not None  # no errors: the requirement was built
            out.append(r)
    # labels.Selector.Add sorts requirements by key; matching is order-independent.
    out.sort(key=lambda r: r[0])
    return tuple(out), errs


def _requirements_as_field_selector(reqs: tuple[NodeSelectorRequirement, ...], path: str
                                    ) -> tuple[tuple[tuple[str, bool, str], ...], list[FieldError]]:
    """``nodeSelectorRequirementsAsFieldSelector``: In/NotIn with exactly one value each."""
    errs: list[FieldError] = []
    out: list[tuple[str, bool, str]] = []
    for i, expr in enumerate(reqs):
        p = _index(path, i)
        if expr.operator in (OP_IN, OP_NOT_IN):
            if len(expr.values) != 1:
                errs.append(_invalid(_child(p, "values"), _values_json(tuple(expr.values)),
                                     "must have one element"))
            else:
                out.append((expr.key, expr.operator == OP_IN, expr.values[0]))
        else:
            errs.append(_not_supported(_child(p, "operator"), expr.operator,
                                       VALID_FIELD_SELECTOR_OPERATORS))
    return tuple(out), errs


# --------------------------------------------------------------------------------------------
# Compiled terms
# --------------------------------------------------------------------------------------------

def match_label_requirements(reqs: tuple[tuple[str, int, Any], ...],
                             labels: Mapping[str, str]) -> bool:
    """``labels.Selector.Matches`` over compiled requirements (``Requirement.Matches``)."""
    for key, op, arg in reqs:
        if op == _IN:
            v = labels.get(key)
            if v is None or v not in arg:
                return False
        elif op == _NOT_IN:
            v = labels.get(key)
            if v is not None and v in arg:
                return False
        elif op == _EXISTS:
            if key not in labels:
                return False
        elif op == _DOES_NOT_EXIST:
            if key in labels:
                return False
        else:  # Gt / Lt
            v = labels.get(key)
            if v is None:
                return False
            n = parse_int64(v)
            if n is None:
                return False
            if op == _GT:
                if not n > arg:
                    return False
            elif not n < arg:
                return False
    return True


class CompiledTerm:
    """``nodeSelectorTerm``: parsed matchExpressions (``None`` when absent), parsed
    matchFields (``None`` when absent) and the parse errors (a term with errors never matches)."""

    __slots__ = ("labels", "fields", "errors")

    def __init__(self, term: NodeSelectorTerm, path: str) -> None:
        self.labels: tuple[tuple[str, int, Any], ...] | None = None
        self.fields: tuple[tuple[str, bool, str], ...] | None = None
        self.errors: list[FieldError] = []
        if term.match_expressions:
            self.labels, errs = _requirements_as_selector(
                tuple(term.match_expressions), _child(path, "matchExpressions"))
            self.errors.extend(errs)
        if term.match_fields:
            self.fields, errs = _requirements_as_field_selector(
                tuple(term.match_fields), _child(path, "matchFields"))
            self.errors.extend(errs)

    def match(self, node: Node) -> bool:
        """``nodeSelectorTerm.match`` (errors → no match)."""
        if self.errors:
            return False
        reqs = self.labels
        if reqs is not None and not match_label_requirements(reqs, node.labels):
            return False
        fields = self.fields
        if fields is not None:
            name = node.name
            if name:  # extractNodeFields: only a non-empty name yields a field set
                for key, is_in, value in fields:
                    fv = name if key == OBJECT_NAME_FIELD else ""
                    if (fv == value) != is_in:
                        return False
        return True


def _is_empty_term(term: NodeSelectorTerm) -> bool:
    return not term.match_expressions and not term.match_fields


class LazyErrorNodeSelector:
    """``LazyErrorNodeSelector``: terms ORed; parse errors reported only if no term matched."""

    __slots__ = ("terms",)

    def __init__(self, ns: NodeSelector | None, path: str = "") -> None:
        terms_path = _child(path, "nodeSelectorTerms")
        terms = ns.node_selector_terms if ns is not None else ()
        self.terms: tuple[CompiledTerm, ...] = tuple(
            CompiledTerm(t, _index(terms_path, i))
            for i, t in enumerate(terms) if not _is_empty_term(t))

    def match(self, node: Node | None) -> bool:
        """``Match`` ignoring the parse errors."""
        if node is None:
            return False
        for term in self.terms:
            if term.match(node):
                return True
        return False

    def match_with_error(self, node: Node | None) -> tuple[bool, str | None]:
        """``LazyErrorNodeSelector.Match``: (matched, aggregated parse-error message or None)."""
        if node is None:
            return False, None
        errs: list[FieldError] = []
        for term in self.terms:
            if term.errors:
                errs.extend(term.errors)
                continue
            if term.match(node):
                return True, None
        return False, (aggregate_message(errs) if errs else None)

    def parse_errors(self) -> list[FieldError]:
        return [e for t in self.terms for e in t.errors]


class CompiledNodeSelector:
    """``nodeaffinity.NodeSelector`` (no parse errors, see :func:`new_node_selector`)."""

    __slots__ = ("lazy",)

    def __init__(self, lazy: LazyErrorNodeSelector) -> None:
        self.lazy = lazy

    def match(self, node: Node | None) -> bool:
        return self.lazy.match(node)


def new_lazy_error_node_selector(ns: NodeSelector | None, path: str = "") -> LazyErrorNodeSelector:
    """``NewLazyErrorNodeSelector``."""
    return LazyErrorNodeSelector(ns, path)


def new_node_selector(ns: NodeSelector | None, path: str = "") -> CompiledNodeSelector:
    """``NewNodeSelector``: raises :class:`NodeSelectorParseError` if any term has errors."""
    lazy = LazyErrorNodeSelector(ns, path)
    errs = lazy.parse_errors()
    if errs:
        raise NodeSelectorParseError(errs)
    return CompiledNodeSelector(lazy)


def match_node_selector_terms(node: Node | None, node_selector: NodeSelector | None
                              ) -> tuple[bool, str | None]:
    """``MatchNodeSelectorTerms`` (component-helpers/scheduling/corev1/helpers.go)."""
    if node is None:
        return False, None
    return LazyErrorNodeSelector(node_selector).match_with_error(node)


class PreferredSchedulingTerms:
    """``PreferredSchedulingTerms``: ``score(node)`` sums the weights of matching terms."""

    __slots__ = ("terms",)

    def __init__(self, terms: tuple[tuple[CompiledTerm, int], ...]) -> None:
        self.terms = terms

    def score(self, node: Node) -> int:
        total = 0
        for term, weight in self.terms:
            if term.match(node):
                total += weight
        return total


def new_preferred_scheduling_terms(terms: Iterable[PreferredSchedulingTerm], path: str = ""
                                   ) -> PreferredSchedulingTerms:
    """``NewPreferredSchedulingTerms``: terms with weight 0 or no requirements are skipped
    (not even parsed); raises :class:`NodeSelectorParseError` on any parse error."""
    errs: list[FieldError] = []
    parsed: list[tuple[CompiledTerm, int]] = []
    for i, term in enumerate(terms):
        if term.weight == 0 or _is_empty_term(term.preference):
            continue
        ct = CompiledTerm(term.preference, _index(path, i))
        if ct.errors:
            errs.extend(ct.errors)
        else:
            parsed.append((ct, term.weight))
    if errs:
        raise NodeSelectorParseError(errs)
    return PreferredSchedulingTerms(tuple(parsed))


class RequiredNodeAffinity:
    """``RequiredNodeAffinity``: the pod's nodeSelector AND its required node affinity.

    ``label_pairs`` is ``None`` when the pod has no nodeSelector; ``node_selector`` is ``None``
    when the pod has no required node affinity.
    """

    __slots__ = ("label_pairs", "node_selector")

    def __init__(self, node_selector: Mapping[str, str] | None,
                 affinity: Affinity | None) -> None:
        self.label_pairs: tuple[tuple[str, str], ...] | None = (
            tuple(sorted(node_selector.items())) if node_selector else None)
        required = None
        if affinity is not None and affinity.node_affinity is not None:
            required = affinity.node_affinity.required
        self.node_selector: LazyErrorNodeSelector | None = (
            LazyErrorNodeSelector(required) if required is not None else None)

    def match(self, node: Node) -> bool:
        """``Match`` with parse errors ignored (what Filter and PodTopologySpread use)."""
        pairs = self.label_pairs
        if pairs is not None:
            labels = node.labels
            for k, v in pairs:
                if labels.get(k) != v:
                    return False
        ns = self.node_selector
        if ns is None:
            return True
        return ns.match(node)

    def match_with_error(self, node: Node) -> tuple[bool, str | None]:
        """``Match``: (matched, parse-error message when nothing matched and a term is broken)."""
        pairs = self.label_pairs
        if pairs is not None:
            labels = node.labels
            for k, v in pairs:
                if labels.get(k) != v:
                    return False, None
        ns = self.node_selector
        if ns is None:
            return True, None
        return ns.match_with_error(node)


def new_required_node_affinity(node_selector: Mapping[str, str] | None,
                               affinity: Affinity | None) -> RequiredNodeAffinity:
    """``NewRequiredNodeAffinity``."""
    return RequiredNodeAffinity(node_selector, affinity)


def get_required_node_affinity(pod: Pod) -> RequiredNodeAffinity:
    """``GetRequiredNodeAffinity``: parse the pod's nodeSelector and required node affinity."""
    return RequiredNodeAffinity(pod.node_selector, pod.affinity)


def get_pod_node_affinity_match(pod: Pod) -> RequiredNodeAffinity:
    """What PodTopologySpread's ``nodeAffinityPolicy: Honor`` evaluates
    (``pkg/scheduler/framework/plugins/podtopologyspread/common.go``
    matchNodeInclusionPolicies): ``GetRequiredNodeAffinity(pod)``, whose ``match(node)`` ignores
    parse errors."""
    return RequiredNodeAffinity(pod.node_selector, pod.affinity)


# --------------------------------------------------------------------------------------------
# Signatures (staging/src/k8s.io/kube-scheduler/framework/signers.go)
# --------------------------------------------------------------------------------------------

def _requirement_json(r: NodeSelectorRequirement) -> str:
    obj: dict[str, Any] = {"key": r.key, "operator": r.operator}
    if r.values:
        obj["values"] = sorted(r.values)
    return _go_json(obj)


def node_selector_requirements_signer(reqs: Iterable[NodeSelectorRequirement]) -> list[str]:
    """``NodeSelectorRequirementsSigner``: each requirement (values sorted) as JSON, sorted."""
    return sorted(_requirement_json(r) for r in reqs)


def _term_sign(t: NodeSelectorTerm) -> dict[str, list[str]]:
    """``NodeSelectorTermSigner``."""
    return {"MatchExpressions": node_selector_requirements_signer(t.match_expressions),
            "MatchFields": node_selector_requirements_signer(t.match_fields)}


def preferred_scheduling_term_signer(terms: Iterable[PreferredSchedulingTerm]) -> list[str]:
    """``PreferredSchedulingTermSigner``."""
    return sorted(_go_json({"Weight": t.weight, "Preference": _term_sign(t.preference)})
                  for t in terms)


def node_selector_terms_signer(terms: Iterable[NodeSelectorTerm]) -> list[str]:
    """``NodeSelectorTermsSigner``."""
    return sorted(_go_json(_term_sign(t)) for t in terms)


def node_affinity_signer(pod: Pod) -> dict[str, list[str]] | None:
    """``NodeAffinitySigner``: ``None`` without node affinity, else the sorted required and
    preferred term signatures (JSON-ready)."""
    affinity = pod.affinity
    if affinity is None or affinity.node_affinity is None:
        return None
    na = affinity.node_affinity
    pref = preferred_scheduling_term_signer(na.preferred) if na.preferred else []
    req = node_selector_terms_signer(na.required.node_selector_terms) \
        if na.required is not None else []
    return {"Required": req, "Preferred": pref}
