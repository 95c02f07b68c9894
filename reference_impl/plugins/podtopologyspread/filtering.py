"""PodTopologySpread PreFilter, its AddPod/RemovePod extensions, and Filter (hard constraints).

Upstream: ``pkg/scheduler/framework/plugins/podtopologyspread/filtering.go``.

PreFilter counts, for each ``DoNotSchedule`` constraint, the matching pods per topology value over
the eligible nodes (one pass over the snapshot's nodes) and keeps the two smallest domains
(the "critical paths"). Filter is then a handful of dict lookups per constraint:

    matchNum(node's domain) + selfMatch - globalMin <= maxSkew

where globalMin is 0 while the number of eligible domains is below minDomains.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from reference_impl.framework.status import Code, PreFilterResult, Status
from reference_impl.plugins.podtopologyspread.common import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    Constraint,
    has_untolerated_do_not_schedule_taint,
    match_node_inclusion_policies,
    node_labels_match_spread_constraints,
    required_node_affinity,
)

if TYPE_CHECKING:
    from reference_impl.framework.columns import Mask, NodeColumns
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.interfaces import Handle
    from reference_impl.framework.snapshot import Snapshot
    from reference_impl.framework.types import NodeInfo, PodInfo
    from reference_impl.model.objects import Node, Pod

PRE_FILTER_STATE_KEY = "PreFilterPodTopologySpread"

MAX_INT32 = 2**31 - 1

#: A node's part in the counts: per constraint, (topology value, matching pods), (None, 0) when
#: the node is not eligible for the constraint.
Contribution = tuple[tuple[str | None, int], ...]


class CriticalPaths:
    """``criticalPaths``: two (topologyValue, matchNum) entries per constraint.

    ``num0`` always holds the minimum match number; ``num1 >= num0`` but is not guaranteed to be
    the second minimum (enough because preemption removes pods from one node at a time and each
    node is evaluated on its own copy of the state). Both start at MaxInt32 with value "".
    """

    __slots__ = ("value0", "num0", "value1", "num1")

    def __init__(self, value0: str = "", num0: int = MAX_INT32, value1: str = "",
                 num1: int = MAX_INT32) -> None:
        self.value0 = value0
        self.num0 = num0
        self.value1 = value1
        self.num1 = num1

    def update(self, tp_val: str, num: int) -> None:
        """``criticalPaths.update``."""
        # first verify if tp_val exists or not
        if tp_val == self.value0:
            i = 0
        elif tp_val == self.value1:
            i = 1
        else:
            i = -1
        if i >= 0:
            # tp_val exists
            if i == 0:
                self.num0 = num
            else:
                self.num1 = num
            if self.num0 > self.num1:
                self.value0, self.num0, self.value1, self.num1 = (
                    self.value1, self.num1, self.value0, self.num0)
        elif num < self.num0:
            # tp_val doesn't exist: shift path 0 to path 1, then set path 0
            self.value1, self.num1 = self.value0, self.num0
            self.value0, self.num0 = tp_val, num
        elif num < self.num1:
            self.value1, self.num1 = tp_val, num

    def copy(self) -> CriticalPaths:
        return CriticalPaths(self.value0, self.num0, self.value1, self.num1)

    def as_tuple(self) -> tuple[tuple[str, int], tuple[str, int]]:
        return ((self.value0, self.num0), (self.value1, self.num1))

    def __repr__(self) -> str:
        return f"CriticalPaths({self.as_tuple()!r})"


class PreFilterState:
    """``preFilterState``: the parsed hard constraints, the critical paths per constraint and
    the matching-pod count per topology value per constraint (``TpValueToMatchNum``).

    The number of eligible domains of constraint ``i`` (used with minDomains) is
    ``len(tp_value_to_match_num[i])``, as upstream v1.37.2 computes it.

    ``self_match[i]`` is 1 when the incoming pod's own labels match constraint ``i``'s selector
    (upstream evaluates this in every Filter call; the pod's labels do not change within the cycle,
    so it is computed once here).
    """

    __slots__ = ("constraints", "critical_paths", "tp_value_to_match_num", "self_match")

    def __init__(self, constraints: list[Constraint] | None = None,
                 critical_paths: list[CriticalPaths] | None = None,
                 tp_value_to_match_num: list[dict[str, int]] | None = None,
                 self_match: list[int] | None = None) -> None:
        self.constraints = constraints or []
        self.critical_paths = critical_paths or []
        self.tp_value_to_match_num = tp_value_to_match_num or []
        self.self_match = self_match or []

    def min_match_num(self, constraint_id: int, min_domains: int) -> int:
        """``preFilterState.minMatchNum``: the global minimum, 0 while fewer than minDomains
        domains are eligible."""
        if len(self.tp_value_to_match_num[constraint_id]) < min_domains:
            return 0
        return self.critical_paths[constraint_id].num0

    def clone(self) -> PreFilterState:
        """``preFilterState.Clone``: constraints shared, paths and counts copied."""
        return PreFilterState(
            self.constraints,
            [p.copy() for p in self.critical_paths],
            [dict(m) for m in self.tp_value_to_match_num],
            self.self_match,
        )


def _get_pre_filter_state(cycle_state: CycleState) -> PreFilterState | Status:
    """``getPreFilterState``; returns an Error status when PreFilter did not run."""
    try:
        s = cycle_state.read(PRE_FILTER_STATE_KEY)
    except KeyError:
        return Status.as_error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
    if not isinstance(s, PreFilterState):
        return Status.as_error(f"{s!r} convert to podtopologyspread.preFilterState error")
    return s


class FilteringMixin:
    """PreFilter / PreFilterExtensions / Filter of :class:`PodTopologySpread`."""

    # Set by PodTopologySpread.__init__.
    handle: Handle
    enable_node_inclusion_policy: bool
    enable_taint_toleration_comparison_operators: bool
    _count_cache: dict[tuple, dict[str, tuple[int, int]]]
    _aggregates: dict[tuple, list]

    def get_constraints(self, pod: Pod) -> list[Constraint]:  # provided by the plugin
        raise NotImplementedError

    # ----- PreFilter -----
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: Skip when the pod has no hard constraints (own or defaulted).

        (Upstream also Skips a pod whose resize is Deferred when the alpha gate
        InPlacePodVerticalScalingSchedulerPreemption is on; it is off in v1.37.2 and the model has
        no pod conditions.)
        """
        s = self.cal_pre_filter_state(pod, nodes)
        if not s.constraints:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def cal_pre_filter_state(self, pod: Pod, all_nodes: list[NodeInfo]) -> PreFilterState:
        """``calPreFilterState``: count matching pods per topology value over eligible nodes.

        A node is eligible for a constraint when it has all constraints' topology keys and (with
        NodeInclusionPolicyInPodTopologySpread) passes that constraint's inclusion policies;
        without the gate, nodes failing the pod's required node affinity are skipped entirely.
        Every eligible node's domain gets an entry, also with 0 matching pods.

        The counts only change where pods or nodes changed, so they are kept per (constraints,
        namespace, inclusion inputs) and brought up to date from the snapshot's change log; a
        change of the node set recounts everything. The result is the same as upstream's full
        pass over the nodes.
        """
        constraints = self.get_constraints(pod)
        if not constraints:
            return PreFilterState()
        n = len(constraints)
        contribution = self._contribution_fn(pod, constraints)
        snapshot: Snapshot | None = (self.handle.snapshot() if self.handle is not None
                                     else None)
        if snapshot is not None and all_nodes is not snapshot.list():
            snapshot = None  # counted incrementally only over all the snapshot's nodes
        tp_maps: list[dict[str, int]]
        per_node: dict[str, Contribution | None]
        key: tuple = ()
        if snapshot is not None:
            key = self._aggregate_key(pod, constraints)
            agg = self._aggregates.get(key)
            if agg is not None and agg[0] == snapshot.structure_version:
                _, log_pos, per_node, tp_maps = agg
                log = snapshot.change_log
                if log_pos < len(log):
                    for name in set(log[log_pos:]):
                        old = per_node.get(name)
                        ni = snapshot.get(name)
                        new = contribution(ni) if ni is not None else None
                        if old is not None:
                            for i, (value, count) in enumerate(old):
                                if value is not None:
                                    tp_maps[i][value] -= count
                        if new is not None:
                            for i, (value, count) in enumerate(new):
                                if value is not None:
                                    m = tp_maps[i]
                                    m[value] = m.get(value, 0) + count
                        per_node[name] = new
                    agg[1] = len(log)
                return self._finish(pod, constraints, [dict(m) for m in tp_maps])
        tp_maps = [{} for _ in range(n)]
        per_node = {}
        for node_info in all_nodes:
            contrib = contribution(node_info)
            per_node[node_info.node.name] = contrib
            if contrib is None:
                continue
            for i, (value, count) in enumerate(contrib):
                if value is not None:
                    m = tp_maps[i]
                    m[value] = m.get(value, 0) + count
        if snapshot is not None:
            self._aggregates[key] = [snapshot.structure_version, len(snapshot.change_log),
                                     per_node, tp_maps]
            tp_maps = [dict(m) for m in tp_maps]
        return self._finish(pod, constraints, tp_maps)

    def _aggregate_key(self, pod: Pod, constraints: list[Constraint]) -> tuple:
        """What the per-node counts depend on besides the nodes: the constraints' keys and
        selectors, the namespace, and the pod's node affinity / tolerations where the inclusion
        policies read them."""
        affinity = None
        if not self.enable_node_inclusion_policy or any(c.honor_affinity for c in constraints):
            na = pod.affinity.node_affinity if pod.affinity is not None else None
            affinity = (tuple(sorted(pod.node_selector.items())),
                        na.required if na is not None else None)
        tolerations = pod.tolerations if any(c.honor_taints for c in constraints) else None
        return (tuple((c.topology_key, c.selector_key, c.honor_affinity, c.honor_taints)
                      for c in constraints), pod.namespace, affinity, tolerations)

    def _contribution_fn(self, pod: Pod, constraints: list[Constraint]
                         ) -> Callable[[NodeInfo], Contribution | None]:
        """A function of one node giving, per constraint, (topology value, matching pods) or
        (None, 0) when the node is not eligible for it; None when the node counts for none."""
        n = len(constraints)
        ns = pod.namespace
        enable_nip = self.enable_node_inclusion_policy
        cmp_ops = self.enable_taint_toleration_comparison_operators
        required = required_node_affinity(pod)
        keys = [c.topology_key for c in constraints]
        indexed = list(enumerate(constraints))
        any_policy = enable_nip and any(c.honor_affinity or c.honor_taints for c in constraints)
        # Constraints with equal selectors count the same pods on a node: count once per node.
        first_with_selector: dict[tuple, int] = {}
        same_as = [first_with_selector.setdefault(c.selector_key, i) for i, c in indexed]
        has_dups = any(j != i for i, j in enumerate(same_as))
        cache = self._count_cache
        ineligible: tuple[str | None, int] = (None, 0)

        def contribution(node_info: NodeInfo) -> Contribution | None:
            node = node_info.node
            labels = node.labels
            if not enable_nip and not required.match(node):
                return None
            # The node must carry every topology key of the constraints.
            for k in keys:
                if k not in labels:
                    return None
            pods = node_info.pods
            counted = [-1] * n if has_dups else None
            out: list[tuple[str | None, int]] = []
            # matchNodeInclusionPolicies, with the two node checks done at most once per node.
            affinity_ok: bool | None = None
            taints_ok: bool | None = None
            for i, c in indexed:
                if any_policy:
                    if c.honor_affinity:
                        if affinity_ok is None:
                            affinity_ok = required.match(node)
                        if not affinity_ok:
                            out.append(ineligible)
                            continue
                    if c.honor_taints:
                        if taints_ok is None:
                            taints_ok = not has_untolerated_do_not_schedule_taint(
                                node, pod, cmp_ops)
                        if not taints_ok:
                            out.append(ineligible)
                            continue
                value = labels[c.topology_key]
                if not pods:
                    count = 0
                elif counted is not None and same_as[i] != i and counted[same_as[i]] >= 0:
                    count = counted[same_as[i]]
                else:
                    # Per-node counts only change with the node's generation: reuse them.
                    ck = (c.selector_key, ns)
                    per_node = cache.get(ck)
                    if per_node is None:
                        per_node = cache[ck] = {}
                    hit = per_node.get(node.name)
                    gen = node_info.generation
                    if hit is not None and hit[0] == gen:
                        count = hit[1]
                    else:
                        count = c.count_pods(pods, ns)
                        per_node[node.name] = (gen, count)
                if counted is not None:
                    counted[i] = count
                out.append((value, count))
            return tuple(out)

        return contribution

    def _finish(self, pod: Pod, constraints: list[Constraint],
                tp_maps: list[dict[str, int]]) -> PreFilterState:
        n = len(constraints)
        paths: list[CriticalPaths] = []
        for i in range(n):
            p = CriticalPaths()
            for value, num in tp_maps[i].items():
                p.update(value, num)
            paths.append(p)
        labels = pod.labels
        self_match = [1 if c.selector.matches(labels) else 0 for c in constraints]
        return PreFilterState(constraints, paths, tp_maps, self_match)

    # ----- PreFilterExtensions -----
    def pre_filter_extensions(self) -> FilteringMixin:
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        """``AddPod``: count a pod (nominated, or put back by preemption) on ``node_info``."""
        s = _get_pre_filter_state(state)
        if isinstance(s, Status):
            return s
        self._update_with_pod(s, pod_info_to_add.pod, pod_to_schedule, node_info.node, 1)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        """``RemovePod``: stop counting a pod (a preemption victim) on ``node_info``."""
        s = _get_pre_filter_state(state)
        if isinstance(s, Status):
            return s
        self._update_with_pod(s, pod_info_to_remove.pod, pod_to_schedule, node_info.node, -1)
        return None

    def _update_with_pod(self, s: PreFilterState, updated_pod: Pod, preemptor_pod: Pod,
                         node: Node | None, delta: int) -> None:
        """``updateWithPod``: apply ``delta`` to the counts of every constraint that the pod
        matches and for which the node is eligible, and update the critical paths."""
        if updated_pod.namespace != preemptor_pod.namespace or node is None:
            return
        if not node_labels_match_spread_constraints(node.labels, s.constraints):
            return
        required = required_node_affinity(preemptor_pod)
        enable_nip = self.enable_node_inclusion_policy
        if not enable_nip and not required.match(node):
            return
        pod_labels = updated_pod.labels
        for i, c in enumerate(s.constraints):
            if not c.selector.matches(pod_labels):
                continue
            if enable_nip and not match_node_inclusion_policies(
                    c, preemptor_pod, node, required,
                    self.enable_taint_toleration_comparison_operators):
                continue
            v = node.labels[c.topology_key]
            m = s.tp_value_to_match_num[i]
            m[v] = m.get(v, 0) + delta
            s.critical_paths[i].update(v, m[v])

    # ----- Filter -----
    def filter_batch(self, state: CycleState, pod: Pod, cols: NodeColumns) -> Mask | None:
        """The nodes where ``filter`` certainly succeeds, over the node columns
        (reference_impl/framework/vectorised.py): per hard constraint, the node has the topology
        key and its domain's skew is within maxSkew. The skew is ``filter``'s, computed once
        per domain instead of once per node. No opinion without the PreFilter state."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(s, PreFilterState):
            return None
        mask: Mask = np.ones(len(cols), dtype=np.bool_)
        for i, c in enumerate(s.constraints):
            codes, values = cols.label_codes(c.topology_key)
            m = s.tp_value_to_match_num[i]
            min_match_num = 0 if len(m) < c.min_domains else s.critical_paths[i].num0
            base = s.self_match[i] - min_match_num
            # One entry per domain, then False for the nodes without the key (code -1).
            ok = np.array([m.get(v, 0) + base <= c.max_skew for v in values] + [False],
                          dtype=np.bool_)
            mask &= ok[codes]
        return mask

    # ----- Filter -----
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: per hard constraint, in order:

        * the node lacks the topology key → UnschedulableAndUnresolvable,
          "node(s) didn't match pod topology spread constraints (missing required label)";
        * matchNum + selfMatch - globalMin > maxSkew → Unschedulable,
          "node(s) didn't match pod topology spread constraints".
        """
        s = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(s, PreFilterState):
            s = _get_pre_filter_state(state)
            if isinstance(s, Status):
                return s
        constraints = s.constraints
        # An "empty" state is legit and tolerates every pod.
        if not constraints:
            return None
        labels = node_info.node.labels
        tp_maps = s.tp_value_to_match_num
        paths = s.critical_paths
        self_match = s.self_match
        for i, c in enumerate(constraints):
            tp_val = labels.get(c.topology_key)
            if tp_val is None:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH)
            m = tp_maps[i]
            # minMatchNum: 0 while the eligible domains are fewer than minDomains.
            min_match_num = 0 if len(m) < c.min_domains else paths[i].num0
            skew = m.get(tp_val, 0) + self_match[i] - min_match_num
            if skew > c.max_skew:
                return Status(Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return None
