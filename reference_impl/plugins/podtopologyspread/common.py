"""Shared pieces of PodTopologySpread: the parsed constraint, constraint building, pod counting.

Upstream: ``pkg/scheduler/framework/plugins/podtopologyspread/common.go`` (and the math of
``scoring.go``'s weights, which must match Go's ``math.Log`` bit for bit, see :func:`go_log`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from reference_impl.api.labels import (
    EXISTS,
    IN,
    Selector,
    compile_selector,
    selector_from_set,
)
from reference_impl.api.node_selectors import RequiredNodeAffinity, get_required_node_affinity
from reference_impl.api.tolerations import do_not_schedule_taint, find_matching_untolerated_taint
from reference_impl.model.objects import (
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    POLICY_HONOR,
    POLICY_IGNORE,
    SCHEDULE_ANYWAY,
    Node,
    Pod,
    TopologySpreadConstraint,
)

if TYPE_CHECKING:
    from reference_impl.framework.types import PodInfo

# plugin.go
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

# plugin.go systemDefaultConstraints: used when defaultingType is System.
SYSTEM_DEFAULT_CONSTRAINTS: tuple[TopologySpreadConstraint, ...] = (
    TopologySpreadConstraint(max_skew=3, topology_key=LABEL_HOSTNAME,
                             when_unsatisfiable=SCHEDULE_ANYWAY),
    TopologySpreadConstraint(max_skew=5, topology_key=LABEL_TOPOLOGY_ZONE,
                             when_unsatisfiable=SCHEDULE_ANYWAY),
)


PodCounter = Callable[[Sequence["PodInfo"], str], int]


class Constraint:
    """``topologySpreadConstraint``: a v1 constraint with its selector compiled and defaults
    applied (minDomains nil → 1, nodeAffinityPolicy nil → Honor, nodeTaintsPolicy nil → Ignore).

    Precomputed for the per-node loops: ``honor_affinity`` / ``honor_taints`` (the two policies
    as booleans), ``selector_key`` (equal for equal selectors) and ``count_pods``
    (:func:`count_pods_match_selector` specialized to this selector).
    """

    __slots__ = ("max_skew", "topology_key", "selector", "min_domains", "node_affinity_policy",
                 "node_taints_policy", "honor_affinity", "honor_taints", "selector_key",
                 "count_pods")

    def __init__(self, max_skew: int, topology_key: str, selector: Selector, min_domains: int = 1,
                 node_affinity_policy: str = POLICY_HONOR,
                 node_taints_policy: str = POLICY_IGNORE) -> None:
        self.max_skew = max_skew
        self.topology_key = topology_key
        self.selector = selector
        self.min_domains = min_domains
        self.node_affinity_policy = node_affinity_policy
        self.node_taints_policy = node_taints_policy
        self.honor_affinity = node_affinity_policy == POLICY_HONOR
        self.honor_taints = node_taints_policy == POLICY_HONOR
        self.selector_key = selector_key(selector)
        self.count_pods: PodCounter = make_pod_counter(selector)

    def with_selector(self, selector: Selector) -> Constraint:
        """A copy with another selector (``buildDefaultConstraints`` sets the default one)."""
        return Constraint(self.max_skew, self.topology_key, selector, self.min_domains,
                          self.node_affinity_policy, self.node_taints_policy)

    def key(self) -> tuple:
        """A comparable form, for tests and debugging."""
        return (self.max_skew, self.topology_key, self.selector_key, self.min_domains,
                self.node_affinity_policy, self.node_taints_policy)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Constraint):
            return NotImplemented
        return self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return (f"Constraint(maxSkew={self.max_skew}, key={self.topology_key!r}, "
                f"selector={self.selector!r}, minDomains={self.min_domains}, "
                f"nodeAffinityPolicy={self.node_affinity_policy}, "
                f"nodeTaintsPolicy={self.node_taints_policy})")


def selector_key(selector: Selector) -> tuple:
    """A hashable form of a compiled selector; equal for selectors that select the same way
    (requirements sorted)."""
    return (selector.nothing,
            tuple(sorted((k, op, tuple(sorted(v))) for k, op, v in selector.requirements)))


def merge_label_set_with_selector(match_labels: Mapping[str, str], selector: Selector) -> Selector:
    """``mergeLabelSetWithSelector``: AND the pod's matchLabelKeys values into the selector.

    A nil (match-nothing) selector has no requirements to merge into and is returned unchanged
    (``labels.Nothing().Requirements()`` reports ``ok == false``).
    """
    if selector.nothing:
        return selector
    merged = selector_from_set(match_labels).requirements + selector.requirements
    # labels.Selector.Add keeps the requirements sorted by key; matching ignores the order.
    return Selector(tuple(sorted(merged, key=lambda r: r[0])))


def filter_topology_spread_constraints(
    constraints: Iterable[TopologySpreadConstraint], pod_labels: Mapping[str, str], action: str,
    enable_match_label_keys: bool, enable_node_inclusion_policy: bool,
) -> list[Constraint]:
    """``filterTopologySpreadConstraints``: the constraints whose whenUnsatisfiable is ``action``,
    parsed.

    matchLabelKeys: with MatchLabelKeysInPodTopologySpread on (v1.37.2 default), the values of
    those keys that the pod has are ANDed into the selector here, in the scheduler. (With
    MatchLabelKeysInPodTopologySpreadSelectorMerge on, the API server also merged them into
    ``labelSelector`` at pod creation, ``pkg/registry/core/pod/strategy.go``; merging the same
    ``key In (value)`` requirement twice selects the same pods, so doing it here is right either
    way.) Keys the pod lacks are ignored.

    nodeAffinityPolicy / nodeTaintsPolicy are read only with NodeInclusionPolicyInPodTopologySpread
    on (GA, locked on in v1.37.2); otherwise they stay Honor / Ignore.
    """
    result: list[Constraint] = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        selector = compile_selector(c.label_selector)
        if enable_match_label_keys and c.match_label_keys:
            match_labels = {k: pod_labels[k] for k in c.match_label_keys if k in pod_labels}
            if match_labels:
                selector = merge_label_set_with_selector(match_labels, selector)
        affinity_policy = POLICY_HONOR
        taints_policy = POLICY_IGNORE
        if enable_node_inclusion_policy:
            if c.node_affinity_policy is not None:
                affinity_policy = c.node_affinity_policy
            if c.node_taints_policy is not None:
                taints_policy = c.node_taints_policy
        result.append(Constraint(
            max_skew=c.max_skew,
            topology_key=c.topology_key,
            selector=selector,
            min_domains=1 if c.min_domains is None else c.min_domains,
            node_affinity_policy=affinity_policy,
            node_taints_policy=taints_policy,
        ))
    return result


def node_labels_match_spread_constraints(node_labels: Mapping[str, str],
                                         constraints: Sequence[Constraint]) -> bool:
    """``nodeLabelsMatchSpreadConstraints``: the node has every constraint's topology key."""
    for c in constraints:
        if c.topology_key not in node_labels:
            return False
    return True


def pod_labels_match_spread_constraints(constraints: Sequence[Constraint],
                                        labels: Mapping[str, str]) -> bool:
    """``podLabelsMatchSpreadConstraints``: the labels match any constraint's selector."""
    for c in constraints:
        if c.selector.matches(labels):
            return True
    return False


def count_pods_match_selector(pod_infos: Sequence[PodInfo], selector: Selector, ns: str) -> int:
    """``countPodsMatchSelector``: pods in namespace ``ns``, not terminating (no
    deletionTimestamp, see kubernetes#87621), whose labels match ``selector``.

    An empty selector (one that would match everything) counts nothing, as upstream.
    """
    if selector.empty():
        return 0
    count = 0
    matches = selector.matches
    for pi in pod_infos:
        p = pi.pod
        if p.deletion_timestamp is not None or p.namespace != ns:
            continue
        if matches(p.labels):
            count += 1
    return count


def _count_none(pod_infos: Sequence[PodInfo], ns: str) -> int:
    return 0


def make_pod_counter(selector: Selector) -> PodCounter:
    """:func:`count_pods_match_selector` bound to one selector, with the common one-requirement
    selectors (``key`` Exists, ``key In (v)``) matched inline. Same result, less work per pod.

    An empty selector counts nothing (upstream's ``selector.Empty()`` check) and a nil
    (match-nothing) selector matches nothing, so both count 0.
    """
    if selector.empty() or selector.nothing:
        return _count_none
    reqs = selector.requirements
    if len(reqs) == 1:
        key, op, values = reqs[0]
        if op == EXISTS:
            def count_exists(pod_infos: Sequence[PodInfo], ns: str) -> int:
                n = 0
                for pi in pod_infos:
                    p = pi.pod
                    if p.deletion_timestamp is None and p.namespace == ns and key in p.labels:
                        n += 1
                return n
            return count_exists
        if op == IN and len(values) == 1:
            (value,) = values

            def count_equals(pod_infos: Sequence[PodInfo], ns: str) -> int:
                n = 0
                for pi in pod_infos:
                    p = pi.pod
                    if (p.deletion_timestamp is None and p.namespace == ns
                            and p.labels.get(key) == value):
                        n += 1
                return n
            return count_equals
    matches = selector.matches

    def count_generic(pod_infos: Sequence[PodInfo], ns: str) -> int:
        n = 0
        for pi in pod_infos:
            p = pi.pod
            if p.deletion_timestamp is None and p.namespace == ns and matches(p.labels):
                n += 1
        return n
    return count_generic


def has_untolerated_do_not_schedule_taint(node: Node, pod: Pod,
                                          enable_comparison_operators: bool) -> bool:
    """``v1helper.FindMatchingUntoleratedTaint`` with ``helper.DoNotScheduleTaintsFilterFunc``:
    the node has a NoSchedule or NoExecute taint that the pod's tolerations do not tolerate."""
    if not node.taints:
        return False
    return find_matching_untolerated_taint(node.taints, pod.tolerations, do_not_schedule_taint,
                                           enable_comparison_operators) is not None


def required_node_affinity(pod: Pod) -> RequiredNodeAffinity:
    """``nodeaffinity.GetRequiredNodeAffinity(pod)``: the pod's nodeSelector and required node
    affinity terms, compiled once; ``.match(node)`` (parse errors ignored, "for backwards
    compatibility" as upstream says) tells whether the node satisfies both."""
    return get_required_node_affinity(pod)


def match_node_inclusion_policies(c: Constraint, pod: Pod, node: Node,
                                  required_affinity: RequiredNodeAffinity,
                                  enable_comparison_operators: bool) -> bool:
    """``topologySpreadConstraint.matchNodeInclusionPolicies``: with nodeAffinityPolicy Honor the
    node must satisfy the pod's required node affinity; with nodeTaintsPolicy Honor the pod must
    tolerate the node's NoSchedule/NoExecute taints."""
    if c.honor_affinity and not required_affinity.match(node):
        return False
    if c.honor_taints and has_untolerated_do_not_schedule_taint(
            node, pod, enable_comparison_operators):
        return False
    return True


# ----- Go float64 math (scoring.go) -----

_HSQRT2 = 7.07106781186547524401e-01
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_L1 = 6.666666666666735130e-01
_L2 = 3.999999999940941908e-01
_L3 = 2.857142874366239149e-01
_L4 = 2.222219843214978396e-01
_L5 = 1.818357216161805012e-01
_L6 = 1.531383769920937332e-01
_L7 = 1.479819860511658591e-01


def go_log(x: float) -> float:
    """Go's ``math.Log`` as the kube-scheduler binary (linux/amd64) computes it.

    Go's amd64 ``math.Log`` is the FreeBSD ``e_log.c`` algorithm in assembly
    (``src/math/log_amd64.s``); it differs from the C library's ``log`` (which Python uses) in the
    last bit for about 1% of integer arguments. The normalizing weight ``ln(n+2)`` feeds a rounded
    score, so the reference reproduces Go's operation order exactly. Only finite ``x > 0``.
    """
    f1, ki = math.frexp(x)
    k = float(ki)
    if f1 <= _HSQRT2:
        k -= 1.0
        f1 *= 2.0
    f = f1 - 1.0
    s = f / (2.0 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_L1 + s4 * (_L3 + s4 * (_L5 + s4 * _L7)))
    t2 = s4 * (_L2 + s4 * (_L4 + s4 * _L6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


def go_round(x: float) -> int:
    """Go's ``math.Round``: half away from zero (Python's ``round`` rounds half to even)."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return int(t)


__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "Constraint",
    "count_pods_match_selector",
    "filter_topology_spread_constraints",
    "go_log",
    "go_round",
    "has_untolerated_do_not_schedule_taint",
    "match_node_inclusion_policies",
    "make_pod_counter",
    "merge_label_set_with_selector",
    "node_labels_match_spread_constraints",
    "pod_labels_match_spread_constraints",
    "required_node_affinity",
    "selector_key",
]
