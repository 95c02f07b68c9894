"""PodTopologySpread PreScore, Score and NormalizeScore (soft constraints).

Upstream: ``pkg/scheduler/framework/plugins/podtopologyspread/scoring.go``.

A node's raw score is, summed over the ``ScheduleAnyway`` constraints whose topology key the node
has, ``count * ln(size + 2) + (maxSkew - 1)`` (float64), rounded half away from zero; ``count`` is
the number of matching pods in the node's domain (counted on the node itself for
``kubernetes.io/hostname``) and ``size`` the number of domains among the filtered nodes.
NormalizeScore then maps lower raw scores to higher final scores:
``100 * (max + min - score) // max`` (100 for all when max is 0; 0 for ignored nodes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from reference_impl.framework.interfaces import MAX_NODE_SCORE, Handle
from reference_impl.framework.status import Code, PluginError, Status
from reference_impl.model.objects import LABEL_HOSTNAME
from reference_impl.plugins.podtopologyspread.common import (
    Constraint,
    go_log,
    go_round,
    has_untolerated_do_not_schedule_taint,
    node_labels_match_spread_constraints,
    required_node_affinity,
)

if TYPE_CHECKING:
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.types import NodeInfo
    from reference_impl.model.objects import Pod

PRE_SCORE_STATE_KEY = "PreScorePodTopologySpread"
INVALID_SCORE = -1
MAX_INT64 = 2**63 - 1


class PreScoreState:
    """``preScoreState``: the soft constraints, the filtered nodes that miss a topology key
    (``ignored_nodes``), the matching-pod count per topology value per constraint (only values of
    filtered nodes; hostname constraints are counted in Score) and each constraint's normalizing
    weight."""

    __slots__ = ("constraints", "ignored_nodes", "topology_value_to_pod_counts",
                 "topology_normalizing_weight", "is_hostname")

    def __init__(self) -> None:
        self.constraints: list[Constraint] = []
        self.ignored_nodes: set[str] = set()
        self.topology_value_to_pod_counts: list[dict[str, int]] = []
        self.topology_normalizing_weight: list[float] = []
        self.is_hostname: list[bool] = []

    def clone(self) -> PreScoreState:
        """``preScoreState.Clone`` returns the state itself (it is not changed after PreScore)."""
        return self


def topology_normalizing_weight(size: int) -> float:
    """``topologyNormalizingWeight``: ``ln(size + 2)`` (Go's ``math.Log``), in <1.09, 8.52> for
    1..5000 domains."""
    return go_log(float(size + 2))


def score_for_count(cnt: int, max_skew: int, tp_weight: float) -> float:
    """``scoreForCount``: ``cnt * weight + (maxSkew - 1)``; the ``maxSkew - 1`` waters down the
    differences between domains."""
    return float(cnt) * tp_weight + float(max_skew - 1)


def _get_pre_score_state(cycle_state: CycleState) -> PreScoreState:
    """``getPreScoreState``; raises :class:`PluginError` when PreScore did not run."""
    try:
        s = cycle_state.read(PRE_SCORE_STATE_KEY)
    except KeyError:
        raise PluginError(
            f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found') from None
    if not isinstance(s, PreScoreState):
        raise PluginError(f"{s!r}  convert to podtopologyspread.preScoreState error")
    return s


class ScoringMixin:
    """PreScore / Score / NormalizeScore of :class:`PodTopologySpread`."""

    has_normalize_score: ClassVar[bool] = True

    # Set by PodTopologySpread.__init__.
    handle: Handle
    system_defaulted: bool
    enable_node_inclusion_policy: bool
    enable_taint_toleration_comparison_operators: bool

    def soft_constraints(self, pod: Pod) -> list[Constraint]:  # provided by the plugin
        raise NotImplementedError

    def init_pre_score_state(self, s: PreScoreState, pod: Pod, filtered_nodes: list[NodeInfo],
                             require_all_topologies: bool) -> None:
        """``initPreScoreState``: the soft constraints; the filtered nodes missing a topology key
        (ignored, when all topologies are required); one zero counter per topology value of the
        remaining filtered nodes (a node without the key counts under ""); the weights, where
        a hostname constraint's size is the number of non-ignored filtered nodes."""
        s.constraints = self.soft_constraints(pod)
        if not s.constraints:
            return
        constraints = s.constraints
        n = len(constraints)
        counts: list[dict[str, int]] = [{} for _ in range(n)]
        topo_size = [0] * n
        is_hostname = [c.topology_key == LABEL_HOSTNAME for c in constraints]
        for node_info in filtered_nodes:
            node = node_info.node
            labels = node.labels
            if require_all_topologies and not node_labels_match_spread_constraints(
                    labels, constraints):
                # Nodes missing a required topology key are ignored when scoring.
                s.ignored_nodes.add(node.name)
                continue
            for i, c in enumerate(constraints):
                # per-node counts are calculated during Score.
                if is_hostname[i]:
                    continue
                value = labels.get(c.topology_key, "")
                m = counts[i]
                if value not in m:
                    m[value] = 0
                    topo_size[i] += 1
        s.topology_value_to_pod_counts = counts
        s.is_hostname = is_hostname
        weights: list[float] = []
        for i in range(n):
            size = topo_size[i]
            if is_hostname[i]:
                size = len(filtered_nodes) - len(s.ignored_nodes)
            weights.append(topology_normalizing_weight(size))
        s.topology_normalizing_weight = weights

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """``PreScore``: Skip when the cluster has no nodes or the pod has no soft constraints.

        Only with a pod's own constraints, or non-system default constraints, must nodes have
        every topology key (so that with the system defaults, nodes without a zone label still get
        hostname spreading). Counts matching pods over all nodes of the snapshot whose domain
        belongs to a filtered node, honoring the inclusion policies like PreFilter.
        """
        all_nodes = self.handle.snapshot().list()
        if not all_nodes:
            return Status(Code.SKIP)
        s = PreScoreState()
        require_all_topologies = bool(pod.topology_spread_constraints) or not self.system_defaulted
        self.init_pre_score_state(s, pod, nodes, require_all_topologies)
        # Skip if the incoming pod doesn't have soft topology spread constraints.
        if not s.constraints:
            return Status(Code.SKIP)

        constraints = s.constraints
        counts = s.topology_value_to_pod_counts
        ns = pod.namespace
        enable_nip = self.enable_node_inclusion_policy
        cmp_ops = self.enable_taint_toleration_comparison_operators
        required = required_node_affinity(pod)
        indexed = list(enumerate(constraints))
        keys = [c.topology_key for c in constraints]
        for node_info in all_nodes:
            node = node_info.node
            labels = node.labels
            # Without inclusion policies, the node must satisfy the pod's required affinity.
            if not enable_nip and not required.match(node):
                continue
            # All topology keys need to be present in the node.
            if require_all_topologies and not all(k in labels for k in keys):
                continue
            pods = node_info.pods
            affinity_ok: bool | None = None
            taints_ok: bool | None = None
            for i, c in indexed:
                if enable_nip:
                    if c.honor_affinity:
                        if affinity_ok is None:
                            affinity_ok = required.match(node)
                        if not affinity_ok:
                            continue
                    if c.honor_taints:
                        if taints_ok is None:
                            taints_ok = not has_untolerated_do_not_schedule_taint(
                                node, pod, cmp_ops)
                        if not taints_ok:
                            continue
                value = labels.get(c.topology_key, "")
                # Only topology values of candidate nodes are counted; hostname counts are
                # done in Score (their maps stay empty).
                m = counts[i]
                if value not in m:
                    continue
                if pods:
                    m[value] += c.count_pods(pods, ns)
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """``Score``: the raw (to be normalized) score, see the module docstring; 0 for ignored
        nodes."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if not isinstance(s, PreScoreState):
            s = _get_pre_score_state(state)
        node = node_info.node
        if node.name in s.ignored_nodes:
            return 0
        labels = node.labels
        counts = s.topology_value_to_pod_counts
        weights = s.topology_normalizing_weight
        is_hostname = s.is_hostname
        score = 0.0
        for i, c in enumerate(s.constraints):
            tp_val = labels.get(c.topology_key)
            if tp_val is None:
                continue
            if is_hostname[i]:
                cnt = c.count_pods(node_info.pods, pod.namespace)
            else:
                cnt = counts[i][tp_val]
            score += float(cnt) * weights[i] + float(c.max_skew - 1)
        return go_round(score)

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[list]) -> Status | None:
        """``NormalizeScore``: ignored nodes → 0; all-zero max → 100 for the rest; otherwise
        ``100 * (max + min - score) // max`` (integer division; min/max over non-ignored nodes)."""
        try:
            s = _get_pre_score_state(state)
        except PluginError as e:
            return e.status
        ignored = s.ignored_nodes
        min_score = MAX_INT64
        max_score = 0
        for entry in scores:
            # it's mandatory to check if the node is ignored
            if entry[0] in ignored:
                entry[1] = INVALID_SCORE
                continue
            sc = entry[1]
            if sc < min_score:
                min_score = sc
            if sc > max_score:
                max_score = sc
        for entry in scores:
            sc = entry[1]
            if sc == INVALID_SCORE:
                entry[1] = 0
                continue
            if max_score == 0:
                entry[1] = MAX_NODE_SCORE
                continue
            # Non-negative operands: Go's truncating int64 division equals floor division.
            entry[1] = MAX_NODE_SCORE * (max_score + min_score - sc) // max_score
        return None
