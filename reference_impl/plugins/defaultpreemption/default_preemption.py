"""DefaultPreemption (``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``).

A PostFilter plugin: when no node fits a pod, find a node where evicting lower-priority pods
makes it fit, evict them and nominate the pod to that node. It is the
:class:`~reference_impl.framework.preemption.Interface` of its own
:class:`~reference_impl.framework.preemption.Evaluator` (the generic algorithm) and owns the
:class:`~reference_impl.framework.preemption.Executor` (the evictions). Feature gates, hooks
and the scheduling queue: docs/reference.md#defaultpreemption."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from reference_impl.config.args import DefaultPreemptionArgs
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import (
    EnqueueExtensions,
    PostFilterPlugin,
    PreEnqueuePlugin,
)
from reference_impl.framework.preemption.disruption import PDBStatus
from reference_impl.framework.preemption.executor import Executor
from reference_impl.framework.preemption.gosort import sort_slice
from reference_impl.framework.preemption.preemption import Evaluator
from reference_impl.framework.preemption.schedutil import more_important_pod
from reference_impl.framework.preemption.types import (
    Candidate,
    DomainVictim,
    Victim,
    Victims,
    new_pod_victim,
)
from reference_impl.framework.preemption.util import (
    filter_victims_with_pdb_violation,
    more_important_victim,
    pod_terminating_by_preemption,
)
from reference_impl.framework.runtime import FrameworkHandle
from reference_impl.framework.status import Code, PostFilterResult, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Pod
from reference_impl.plugins import names
from reference_impl.plugins.defaultpreemption import fast_victims
from reference_impl.plugins.defaultpreemption.fast_victims import ERR_NO_VICTIMS

PREEMPT_NEVER = "Never"

# Queueing hint (fwk.QueueingHint) and cluster event names (kube-scheduler/framework/types.go).
QUEUE_SKIP = "QueueSkip"
ASSIGNED_POD = "AssignedPod"
DELETE = "Delete"

ERR_WAITING_POD = "waiting for the preemption for this pod to be finished"

IsEligiblePodFunc = Callable[[NodeInfo, Victim, Pod], bool]
MoreImportantVictimFunc = Callable[[Victim, Victim], bool]


def _always_eligible(node_info: NodeInfo, victim: Victim, preemptor: Pod) -> bool:
    """The default ``IsEligiblePod``: no filtering beyond the lower priority."""
    return True


def more_important_pod_victim(vi1: Victim, vi2: Victim) -> bool:
    """The v1.34.4–v1.36.3 order (``pl.MoreImportantPod = util.MoreImportantPod`` in
    ``default_preemption.go``, ``pkg/scheduler/util/utils.go``): ``MoreImportantPod`` of the
    victims' pods (every victim is one pod there), reading ``time.Now()`` for a pod without
    status.startTime at each comparison, so between two such pods of one priority the first
    argument is the more important one."""
    return more_important_pod(vi1.pods[0].pod, vi2.pods[0].pod)


class DefaultPreemption(PostFilterPlugin, PreEnqueuePlugin, EnqueueExtensions):
    """Preempts lower-priority pods to make room for an unschedulable pod."""

    name = names.DefaultPreemption
    # Interface contract (see preemption.Interface): victims of a priority not below the
    # preemptor's are dropped first thing, and select_victims_on_node copies its inputs.
    lower_priority_victims_only = True
    # Required: preemption runs the framework's plugins and uses the scheduler's services.
    handle: FrameworkHandle

    def __init__(self, args: DefaultPreemptionArgs | None = None, handle: Any = None) -> None:
        """``New``."""
        if args is None:
            args = DefaultPreemptionArgs()
        super().__init__(args, handle)
        self.enable_async_preemption = bool(handle.feature_enabled("SchedulerAsyncPreemption"))
        self.enable_generic_workload = bool(handle.feature_enabled("GenericWorkload"))
        self.executor = Executor(handle, self.enable_async_preemption)
        self.evaluator = Evaluator(self.name, handle, self, self.executor)
        self.is_eligible_pod: IsEligiblePodFunc = _always_eligible
        self.more_important_victim: MoreImportantVictimFunc = more_important_victim
        if handle.behaviour("preempt-victim-order") == "pod-start-now":
            self.more_important_victim = more_important_pod_victim
        self._fallback_rng = random.Random(0)
        #: the fast dry run's answers by node (fast_victims.victim_selector)
        self._victim_cache: dict[str, Any] = {}

    # ----- PostFilter -----
    def post_filter(self, state: CycleState, pod: Pod, node_to_status: Any
                    ) -> tuple[PostFilterResult | None, Status | None]:
        """``PostFilter``: ``Evaluator.Preempt``; a non-empty message gets the prefix
        "preemption: " (same code)."""
        result, status = self.evaluator.preempt(state, pod, node_to_status)
        msg = status.message()
        if msg:
            return result, Status(status.code, "preemption: " + msg)
        return result, status

    # ----- PreEnqueue -----
    def pre_enqueue(self, pod: Pod) -> Status | None:
        """``PreEnqueue``: with async preemption, a pod whose preemption is still running waits
        (UnschedulableAndUnresolvable)."""
        if not self.enable_async_preemption:
            return None
        if self.executor.is_pod_running_preemption(pod.uid):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_WAITING_POD)
        return None

    # ----- EnqueueExtensions -----
    def events_to_register(self) -> list:
        """``EventsToRegister``: assigned-pod deletions with async preemption (the pod can be
        un-gated then), nothing otherwise."""
        if self.enable_async_preemption:
            return [(ASSIGNED_POD, (DELETE,), "is_pod_schedulable_after_assigned_pod_deletion")]
        return []

    def is_pod_schedulable_after_assigned_pod_deletion(self, pod: Pod, old_obj: Any,
                                                       new_obj: Any) -> tuple[str, str | None]:
        """``isPodSchedulableAfterAssignedPodDeletion``: always (QueueSkip, no error); the
        plugins whose failure the preemption resolves decide the requeueing."""
        return QUEUE_SKIP, None

    # ----- preemption.Interface -----
    def calculate_num_candidates(self, num_nodes: int) -> int:
        """``calculateNumCandidates``: percentage of the nodes (integer division), at least
        the absolute minimum, at most all nodes."""
        n = num_nodes * self.args.min_candidate_nodes_percentage // 100
        if n < self.args.min_candidate_nodes_absolute:
            n = self.args.min_candidate_nodes_absolute
        if n > num_nodes:
            n = num_nodes
        return n

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """``GetOffsetAndNumCandidates``: a random offset in [0, n) and the number of
        candidates."""
        rng = getattr(self.handle, "rng", None)
        if rng is None:
            rng = self._fallback_rng
        return rng.randrange(num_nodes), self.calculate_num_candidates(num_nodes)

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        """``CandidatesToVictimsMap``: node name -> victims, in candidate order."""
        return {c.name: c.victims for c in candidates}

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Victims]) -> None:
        """``OrderedScoreFuncs``: none, so ``pickOneNodeForPreemption`` uses its defaults."""
        return None

    def is_preemption_allowed(self, node_info: NodeInfo, victim: Victim,
                              preemptor: Pod) -> bool:
        """``isPreemptionAllowed``: a lower priority and ``IsEligiblePod``."""
        return victim.priority < preemptor.priority and self.is_eligible_pod(
            node_info, victim, preemptor)

    def is_preemption_allowed_across_all_victim_nodes(self, victim: DomainVictim,
                                                      preemptor: Pod) -> bool:
        """``isPreemptionAllowedAcrossAllVictimNodes``: a lower priority, and eligible on
        every node the victim has pods on."""
        if victim.priority >= preemptor.priority:
            return False
        for ni in victim.affected_nodes.values():
            if not self.is_eligible_pod(ni, victim, preemptor):
                return False
        return True

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None
                                       ) -> tuple[bool, str]:
        """``PodEligibleToPreemptOthers``: not with preemptionPolicy Never; not while a
        lower-priority pod on the pod's nominated node is terminating because of a preemption,
        unless the filters found that node UnschedulableAndUnresolvable."""
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, "not eligible due to preemptionPolicy=Never."
        nom = pod.nominated_node_name
        if nom:
            if nominated_node_status is not None and \
                    nominated_node_status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            ni = self.handle.snapshot().get(nom)
            if ni is not None:
                targets = self.executor.disruption_targets
                for pi in ni.pods:
                    victim = new_pod_victim(pi)
                    if self.is_preemption_allowed(ni, victim, pod) and \
                            pod_terminating_by_preemption(pi.pod, targets):
                        return False, "not eligible due to a terminating pod on the nominated node."
        return True, ""

    def victim_selector(self, state: CycleState, preemptor: Pod) -> fast_victims.Selector | None:
        """The dry run's fast ``select_victims_on_node`` for ``preemptor`` (no copy of the node
        or the state; ``fast_victims``), or None when it could differ from
        :meth:`select_victims_on_node` (which stays the specification): the preemptor runs a
        Filter or PreFilter extension that reads the node's pods other than NodeResourcesFit,
        or ``select_victims_on_node`` is not this class's."""
        if type(self).select_victims_on_node is not _SPEC_SELECT_VICTIMS:
            return None
        fw = self.handle.framework
        if fw is None:
            return None
        cacheable = (self.is_eligible_pod is _always_eligible
                     and type(self).is_preemption_allowed_across_all_victim_nodes
                     is _SPEC_ALLOWED)
        return fast_victims.victim_selector(self, fw, state, preemptor, sort_slice,
                                            filter_victims_with_pdb_violation,
                                            self._victim_cache if cacheable else None)

    def select_victims_on_node(self, state: CycleState, preemptor: Pod, node_info: NodeInfo,
                               all_possible_victims: list[DomainVictim],
                               pdbs: Sequence[PDBStatus]
                               ) -> tuple[list[Pod], int, Status | None]:
        """``SelectVictimsOnNode``: the fewest, least important pods to evict from the node.

        Remove every lower-priority (eligible) victim from a copy of the node, updating the
        PreFilter state through the RemovePod extensions; if the pod still does not fit, the
        node's filter status is the answer. Otherwise sort the victims by importance and add
        them back one by one, PDB-violating ones first, keeping each one that still lets the
        pod fit. Returns the victims' pods (ordered by importance when both kinds were
        evicted), the number of PDB-violating pods among them, and the status.
        """
        potential = [v for v in all_possible_victims
                     if self.is_preemption_allowed_across_all_victim_nodes(v, preemptor)]
        if not potential:
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NO_VICTIMS)

        # Upstream's caller hands over a clone of the state and a copy of the node.
        state = state.clone()
        node_info = node_info.snapshot_copy()
        fw = self.handle.framework
        assert fw is not None  # set when the framework that owns this plugin was built
        main = node_info.node.name
        name_to_node: dict[str, NodeInfo] = {main: node_info}

        def remove_victim(v: Victim) -> Status | None:
            for pi in v.pods:
                ni = name_to_node[pi.pod.node_name]
                if pi.pod.node_name == main and not ni.remove_pod(pi.pod):
                    return Status.as_error(
                        f"no corresponding pod {pi.pod.name} in pods of node {main}")
                s = fw.run_pre_filter_extension_remove_pod(state, preemptor, pi, ni)
                if s is not None and not s.is_success():
                    return Status.as_error(s.message())
            return None

        def add_victim(v: Victim) -> Status | None:
            for pi in v.pods:
                ni = name_to_node[pi.pod.node_name]
                if pi.pod.node_name == main:
                    ni.add_pod_info(pi)
                s = fw.run_pre_filter_extension_add_pod(state, preemptor, pi, ni)
                if s is not None and not s.is_success():
                    return Status.as_error(s.message())
            return None

        for v in potential:
            for name, ni in v.affected_nodes.items():
                name_to_node.setdefault(name, ni)
            err = remove_victim(v)
            if err is not None:
                return [], 0, err

        status = fw.run_filter_plugins_with_nominated_pods(state, preemptor, node_info)
        if status is not None and not status.is_success():
            return [], 0, status

        sort_slice(potential, self.more_important_victim)
        violating, non_violating = filter_victims_with_pdb_violation(potential, pdbs)
        victims: list[Victim] = []

        def reprieve(v: Victim) -> tuple[bool, Status | None]:
            err = add_victim(v)
            if err is not None:
                return False, err
            s = fw.run_filter_plugins_with_nominated_pods(state, preemptor, node_info)
            fits = s is None or s.is_success()
            if not fits:
                err = remove_victim(v)
                if err is not None:
                    return False, err
                victims.append(v)
            return fits, None

        num_violating = 0
        for vv in violating:
            fits, err = reprieve(vv.victim)
            if err is not None:
                return [], 0, err
            if not fits:
                num_violating += vv.violate_count
        for nv in non_violating:
            _, err = reprieve(nv)
            if err is not None:
                return [], 0, err

        if violating and non_violating:
            sort_slice(victims, self.more_important_victim)
        return [pi.pod for v in victims for pi in v.pods], num_violating, None


#: the specification :meth:`DefaultPreemption.victim_selector` stands in for; a subclass or a
#: replacement that changes it runs as written
_SPEC_SELECT_VICTIMS = DefaultPreemption.select_victims_on_node
_SPEC_ALLOWED = DefaultPreemption.is_preemption_allowed_across_all_victim_nodes
