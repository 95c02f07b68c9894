"""The PodTopologySpread plugin: construction, constraint building, signing, queueing hints.

Upstream: ``pkg/scheduler/framework/plugins/podtopologyspread/plugin.go`` (and
``common.go``'s ``buildDefaultConstraints``). PreFilter/Filter live in ``filtering.py``,
PreScore/Score/NormalizeScore in ``scoring.py``. The default constraints' selector is
``helper.DefaultSelector`` over the handle's Service / controller listers
(``plugins/helper/spread.py``)."""

from __future__ import annotations

from typing import Any

from reference_impl.api.labels import Selector
from reference_impl.config.args import SYSTEM_DEFAULTING, PodTopologySpreadArgs
from reference_impl.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, Status
from reference_impl.model.controllers import NO_CONTROLLERS
from reference_impl.model.objects import (
    DO_NOT_SCHEDULE,
    POLICY_HONOR,
    SCHEDULE_ANYWAY,
    Node,
    Pod,
    TopologySpreadConstraint,
)
from reference_impl.plugins import names
from reference_impl.plugins.helper.spread import default_selector
from reference_impl.plugins.podtopologyspread.common import (
    SYSTEM_DEFAULT_CONSTRAINTS,
    Constraint,
    filter_topology_spread_constraints,
    node_labels_match_spread_constraints,
    pod_labels_match_spread_constraints,
)
from reference_impl.plugins.podtopologyspread.filtering import FilteringMixin
from reference_impl.plugins.podtopologyspread.scoring import ScoringMixin

# Queueing hints (fwk.QueueingHint).
QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"

# Cluster event resources and action types (staging kube-scheduler/framework/types.go).
ASSIGNED_POD = "AssignedPod"
TARGET_POD = "TargetPod"
NODE = "Node"


class PodTopologySpread(FilteringMixin, ScoringMixin, PreFilterPlugin, FilterPlugin,
                        PreScorePlugin, ScorePlugin, EnqueueExtensions, SignPlugin):
    """Spreads pods over topology domains: filters by DoNotSchedule constraints and scores by
    ScheduleAnyway constraints.

    Feature gates read at construction, as upstream's ``feature.Features``:
    NodeInclusionPolicyInPodTopologySpread, MatchLabelKeysInPodTopologySpread,
    TaintTolerationComparisonOperators.
    """

    name = names.PodTopologySpread
    has_normalize_score = True
    handle: Handle  # required: New reads the feature gates, PreFilter/PreScore the snapshot

    def __init__(self, args: PodTopologySpreadArgs | None = None, handle: Any = None) -> None:
        """``New``: with ``defaultingType: System`` the default constraints are the system ones
        (the configured list must then be empty, which config validation enforces)."""
        if args is None:
            args = PodTopologySpreadArgs()
        super().__init__(args, handle)
        self.default_constraints: tuple[TopologySpreadConstraint, ...] = tuple(
            args.default_constraints)
        self.system_defaulted = False
        if args.defaulting_type == SYSTEM_DEFAULTING:
            self.default_constraints = SYSTEM_DEFAULT_CONSTRAINTS
            self.system_defaulted = True
        feature = handle.feature_enabled
        self.enable_node_inclusion_policy = feature("NodeInclusionPolicyInPodTopologySpread")
        # (selector key, namespace) -> node name -> (NodeInfo generation, matching pods)
        self._count_cache: dict[tuple, dict[str, tuple[int, int]]] = {}
        # aggregate key -> [structure version, change-log position, per-node contributions,
        #                  matching pods per topology value per constraint]
        self._aggregates: dict[tuple, list] = {}
        self.enable_match_label_keys = feature("MatchLabelKeysInPodTopologySpread")
        self.enable_taint_toleration_comparison_operators = feature(
            "TaintTolerationComparisonOperators")
        # queue-hints: do nominated pods count in the pod-event hints (from v1.36.3)?
        self.hints_count_nominated = handle.behaviour("queue-hints") != "node-name-only"

    # ----- constraints -----
    def _filter_constraints(self, constraints: tuple[TopologySpreadConstraint, ...],
                            pod_labels: dict[str, str], action: str) -> list[Constraint]:
        return filter_topology_spread_constraints(
            constraints, pod_labels, action, self.enable_match_label_keys,
            self.enable_node_inclusion_policy)

    def default_selector(self, pod: Pod) -> Selector:
        """``helper.DefaultSelector`` (``pkg/scheduler/framework/plugins/helper/spread.go``)
        over the listers New takes from the informer factory (plugin.go: Services,
        ReplicationControllers, ReplicaSets, StatefulSets): the merged selectors of the
        Services selecting the pod and of its controlling ReplicationController / ReplicaSet /
        StatefulSet. A handle without listers (a bare test handle) lists none."""
        listers = getattr(self.handle, "controllers", None)
        return default_selector(pod, listers() if listers is not None else NO_CONTROLLERS)

    def build_default_constraints(self, pod: Pod, action: str) -> list[Constraint]:
        """``buildDefaultConstraints``: the default constraints of kind ``action``, all with the
        pod's default selector; none when that selector is empty."""
        constraints = self._filter_constraints(self.default_constraints, pod.labels, action)
        if not constraints:
            return []
        selector = self.default_selector(pod)
        if selector.empty():
            return []
        return [c.with_selector(selector) for c in constraints]

    def get_constraints(self, pod: Pod) -> list[Constraint]:
        """``getConstraints``: the pod's DoNotSchedule constraints, or the default ones when the
        pod has no constraints at all."""
        if pod.topology_spread_constraints:
            return self._filter_constraints(pod.topology_spread_constraints, pod.labels,
                                            DO_NOT_SCHEDULE)
        return self.build_default_constraints(pod, DO_NOT_SCHEDULE)

    def soft_constraints(self, pod: Pod) -> list[Constraint]:
        """The ScheduleAnyway constraints (``initPreScoreState``): own, or default."""
        if pod.topology_spread_constraints:
            return self._filter_constraints(pod.topology_spread_constraints, pod.labels,
                                            SCHEDULE_ANYWAY)
        return self.build_default_constraints(pod, SCHEDULE_ANYWAY)

    # ----- SignPod -----
    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: spreading depends on other pods, so a pod with constraints (own or
        defaulted: any configured default makes every pod unsignable) cannot be signed."""
        if pod.topology_spread_constraints:
            return None, Status(Code.UNSCHEDULABLE,
                                "pods with topology constraints are not signable")
        if self.default_constraints:
            return None, Status(Code.UNSCHEDULABLE,
                                "pods with default topology constraints are not signable")
        return None, None

    # ----- EnqueueExtensions -----
    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, queueing hint method name)."""
        return [
            (ASSIGNED_POD, ("Add", "UpdatePodLabel", "Delete"),
             "is_schedulable_after_assigned_pod_change"),
            (TARGET_POD, ("UpdatePodToleration", "UpdatePodLabel"),
             "is_schedulable_after_target_pod_change"),
            (NODE, ("Add", "Delete", "UpdateNodeLabel", "UpdateNodeTaint"),
             "is_schedulable_after_node_change"),
        ]

    def _hint_constraints(self, pod: Pod) -> tuple[list[Constraint] | None, str | None]:
        """``getConstraints`` for the hints: the constraints, or the wrapped error upstream
        returns when the pod's (or the default) constraints do not parse."""
        try:
            return self.get_constraints(pod), None
        except ValueError as e:
            what = ("obtaining pod's hard topology spread constraints"
                    if pod.topology_spread_constraints
                    else "setting default hard topology spread constraints")
            return None, f"{what}: {e}"

    def is_schedulable_after_target_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                               ) -> tuple[str, str | None]:
        """``isSchedulableAfterTargetPodChange``: a new toleration helps when a hard constraint
        honors taints; otherwise a label change that flips a selector match."""
        err = _as(old_obj, new_obj, Pod, "*v1.Pod")
        if err is not None:
            return QUEUE, err
        old: Pod = old_obj
        new: Pod = new_obj
        constraints, err = self._hint_constraints(pod)
        if constraints is None:
            return QUEUE, err
        if new.tolerations != old.tolerations and any(
                c.node_taints_policy == POLICY_HONOR for c in constraints):
            return QUEUE, None
        return self._is_schedulable_after_pod_label_change(old, new, constraints), None

    def is_schedulable_after_assigned_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                                 ) -> tuple[str, str | None]:
        """``isSchedulableAfterAssignedPodChange``: only bound or nominated pods of the same
        namespace; an added/deleted pod matters when it matches a hard constraint's selector,
        an updated one when a label change flips a match."""
        err = _as(old_obj, new_obj, Pod, "*v1.Pod")
        if err is not None:
            return QUEUE, err
        old: Pod | None = old_obj
        new: Pod | None = new_obj
        nominated = self.hints_count_nominated
        if (new is not None and not _involved_in_topology_spreading(new, pod, nominated)) or (
                old is not None and not _involved_in_topology_spreading(old, pod, nominated)):
            return QUEUE_SKIP, None
        constraints, err = self._hint_constraints(pod)
        if constraints is None:
            return QUEUE, err
        if new is not None and old is not None:
            return self._is_schedulable_after_pod_label_change(old, new, constraints), None
        if new is not None:
            if pod_labels_match_spread_constraints(constraints, new.labels):
                return QUEUE, None
            return QUEUE_SKIP, None
        assert old is not None
        if pod_labels_match_spread_constraints(constraints, old.labels):
            return QUEUE, None
        return QUEUE_SKIP, None

    @staticmethod
    def _is_schedulable_after_pod_label_change(old: Pod, new: Pod,
                                               constraints: list[Constraint]) -> str:
        """``isSchedulableAfterPodLabelChange`` (never fails: the hint alone)."""
        if new.labels == old.labels:
            return QUEUE_SKIP
        for c in constraints:
            if c.selector.matches(old.labels) != c.selector.matches(new.labels):
                return QUEUE
        return QUEUE_SKIP

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                         ) -> tuple[str, str | None]:
        """``isSchedulableAfterNodeChange``: Queue when the node (now or before) has every hard
        constraint's topology key and the change can move a domain: added, deleted, gained or
        lost a key, changed a key's value, or changed taints."""
        err = _as(old_obj, new_obj, Node, "*v1.Node")
        if err is not None:
            return QUEUE, err
        old: Node | None = old_obj
        new: Node | None = new_obj
        constraints, err = self._hint_constraints(pod)
        if constraints is None:
            return QUEUE, err
        old_matching = old is not None and node_labels_match_spread_constraints(
            old.labels, constraints)
        new_matching = new is not None and node_labels_match_spread_constraints(
            new.labels, constraints)
        if old is not None and new is not None:
            if old_matching != new_matching:
                return QUEUE, None
            if new_matching and (
                    _topology_key_labels_changed(old.labels, new.labels, constraints)
                    or old.taints != new.taints):
                return QUEUE, None
            return QUEUE_SKIP, None
        if new is not None:
            return (QUEUE if new_matching else QUEUE_SKIP), None
        return (QUEUE if old_matching else QUEUE_SKIP), None


def _as(old_obj: Any, new_obj: Any, cls: type, type_name: str) -> str | None:
    """``util.As[T]`` (pkg/scheduler/util/utils.go): an error message when the new object, then
    the old one, is neither None nor a ``cls``."""
    if new_obj is not None and not isinstance(new_obj, cls):
        return f"expected {type_name}, but got {type(new_obj).__name__}"
    if old_obj is not None and not isinstance(old_obj, cls):
        return f"expected {type_name}, but got {type(old_obj).__name__}"
    return None


def _involved_in_topology_spreading(incoming: Pod, pod_with_spreading: Pod,
                                    count_nominated: bool) -> bool:
    """``involvedInTopologySpreading``: bound or nominated, and in the same namespace. Switch
    ``queue-hints``: v1.34.4 and v1.35.4 count bound pods only (``incomingPod.Spec.NodeName !=
    ""``); their ``incomingPod.UID == podWithSpreading.UID`` case is the TargetPod hint here
    (v1.37.2's registration, with the same answers)."""
    if incoming.node_name == "" and (not count_nominated or incoming.nominated_node_name == ""):
        return False
    return incoming.namespace == pod_with_spreading.namespace


def _topology_key_labels_changed(old: dict[str, str], new: dict[str, str],
                                 constraints: list[Constraint]) -> bool:
    """``checkTopologyKeyLabelsChanged``."""
    for c in constraints:
        if old.get(c.topology_key, "") != new.get(c.topology_key, ""):
            return True
    return False
