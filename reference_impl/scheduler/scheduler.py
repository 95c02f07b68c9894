"""The reference scheduler: profiles, cache, nominator, and the loop that schedules pods.

Upstream: ``pkg/scheduler/scheduler.go`` (New, profiles), ``pkg/scheduler/schedule_one.go``
(scheduleOnePod, schedulingCycle, bindingCycle, handleSchedulingFailure).

This module runs each pending pod once, in QueueSort order (the scheduling queue with backoff,
cluster events and timelines is ``reference_impl/scheduler/queue``'s job).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from reference_impl.config import SchedulerConfiguration, default_config
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import Plugin
from reference_impl.framework.runtime import Diagnosis, Framework, FrameworkHandle
from reference_impl.framework.snapshot import Snapshot
from reference_impl.framework.status import (
    MODE_OVERRIDE,
    Code,
    NominatingInfo,
    Status,
    is_success,
)
from reference_impl.framework.types import PodInfo
from reference_impl.model.controllers import controllers_of
from reference_impl.model.objects import Cluster, Pod
from reference_impl.model.requests import recounted
from reference_impl.plugins.dynamicresources.claims import claim_results, extended_claim_status
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases import ReleaseData
from reference_impl.scheduler.batch import sign_pod
from reference_impl.scheduler.nominator import Nominator
from reference_impl.scheduler.schedule_one import (
    BOUND,
    ERROR,
    GATED,
    NOMINATED,
    UNSCHEDULABLE,
    Attempt,
    FitError,
    NoNodesAvailable,
    ScheduleResult,
    SchedulingCore,
    SchedulingError,
    assumed_copy,
)
from reference_impl.storage.results import persistent_volume_claim_results


@dataclass(slots=True, eq=False)
class QueuedPodInfo:
    """``framework.QueuedPodInfo``: a pod in the queue and its bookkeeping."""

    pod: Pod
    timestamp: float
    attempts: int = 0
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    signature: str | None = None
    gated: Status | None = None

    @property
    def pod_info(self) -> PodInfo:
        return PodInfo(self.pod)


class Scheduler:
    """Builds the profiles for a cluster and schedules its pending pods."""

    def __init__(self, cluster: Cluster, config: SchedulerConfiguration | None = None,
                 registry: dict[str, type[Plugin]] | None = None, seed: int = 0,
                 features: Callable[[str], bool] | None = None,
                 release: ReleaseData | None = None) -> None:
        self.cluster = cluster
        self.registry = registry if registry is not None else in_tree_registry()
        if config is None:
            config = (default_config(self.registry, release) if release is not None
                      else default_config(self.registry))
        elif release is not None and config.release.release != release.release:
            raise ValueError(f"the configuration was loaded for {config.release.release}, "
                             f"not {release.release}")
        self.config = config
        self.seed = seed
        self.rng = random.Random(seed)
        #: the upstream release the configuration was loaded for: its gates (unless ``features``
        #: answers them) and behaviour switches
        self.release = self.config.release
        self.features = features or self.release.feature_enabled
        #: whether a pod's requests read its pod-level status resources (``PodInfo.
        #: CalculateResource``, pkg/scheduler/framework/types.go: v1.35.4 passes
        #: InPlacePodLevelResourcesVerticalScaling, v1.34.4 has no such option); the loader
        #: computed every pod's with them, so the pods are re-accounted when the gate is off
        self.pod_level_status = self.features("InPlacePodLevelResourcesVerticalScaling")
        #: how a resized pod's containers are counted (switch resize-requests-aggregation);
        #: the loader counted them as the pinned release does
        self.resize_rule = self.release.behaviour("resize-requests-aggregation")
        accounted = [self.accounted(p) for p in cluster.pods]
        if any(a is not p for a, p in zip(accounted, cluster.pods, strict=True)):
            self.cluster = cluster = replace(cluster, pods=accounted)
        self.snapshot = Snapshot(cluster.nodes, cluster.pods, cluster.namespaces)
        self.nominator = Nominator()
        self.bindings: dict[str, str] = {}
        self.pods_by_uid: dict[str, Pod] = {p.uid: p for p in cluster.pods}
        self.deleted: set[str] = set()
        #: who hears of the storage objects' changes (the simulation's event handlers); a run
        #: without a queue has nobody to tell
        self.storage_listener: Callable[[str, Any, Any], None] | None = None
        for p in cluster.pods:
            if p.node_name:
                self.bindings[p.key] = p.node_name
        self.profiles: dict[str, Framework] = {}
        for prof in self.config.profiles:
            handle = FrameworkHandle(
                self.snapshot, self.features, self.config.parallelism,
                nominated_pods_for_node=self.nominator.nominated_pods_for_node,
                bind_pod=self._bind, rng=self.rng, pdbs=cluster.pdbs,
                controllers=controllers_of(cluster),
                delete_pod=self._delete_victim,
                clear_nominated_node_name=self._clear_nnn, dra=cluster.dra,
                storage=cluster.storage, storage_changed=self._storage_changed,
                release=self.release, nominated_pods_map=self.nominator.nominated_pods)
            self.profiles[prof.scheduler_name] = Framework(
                prof.scheduler_name, prof.plugins, self.registry, prof.plugin_args, handle,
                prof.percentage_of_nodes_to_score)
        self.core = SchedulingCore(self.snapshot, self.profiles,
                                   self.config.percentage_of_nodes_to_score, self.nominator,
                                   batching=self.features("OpportunisticBatching"),
                                   select_host=self.release.behaviour("select-host"),
                                   rng=self.rng)
        # the nominator learns a pending pod's status.nominatedNodeName when the pod enters the
        # queue (PriorityQueue.addPod, backend/queue/scheduling_queue.go), which only the pods
        # a profile serves do (addPod's responsibleForPod, pkg/scheduler/eventhandlers.go);
        # v1.34.4-v1.36.3 only when PreEnqueue lets it into activeQ (switch nominate-gated-pod)
        nominate_gated = self.release.behaviour("nominate-gated-pod") == "always"
        for p in cluster.pods:
            if not p.node_name and p.nominated_node_name and self.responsible_for(p) and (
                    nominate_gated
                    or self.pre_enqueue(QueuedPodInfo(p, p.creation_timestamp)) is None):
                self.nominator.add_nominated_pod(PodInfo(p), None)
        self.attempts: list[Attempt] = []
        self.victims_of: dict[str, list[str]] = {}

    # ----- callbacks given to plugins -----
    def accounted(self, pod: Pod) -> Pod:
        """``pod`` with its resources as this release's ``PodInfo.CalculateResource`` counts
        them (see ``pod_level_status`` and ``resize_rule``): the same object when nothing
        changes."""
        return recounted(pod, pod_level_status=self.pod_level_status,
                         resize_rule=self.resize_rule)

    def _bind(self, pod: Pod, node_name: str) -> Status | None:
        """The API Binding call of DefaultBinder."""
        if pod.uid in self.deleted:
            return Status.as_error(f'pods "{pod.name}" not found')
        self.bindings[pod.key] = node_name
        return None

    def _delete_victim(self, victim: Pod, preemptor: Pod) -> Status | None:
        self.deleted.add(victim.uid)
        self.snapshot.remove_pod(victim)
        self.bindings.pop(victim.key, None)
        self.nominator.delete(victim)
        self.victims_of.setdefault(preemptor.key, []).append(victim.key)
        return None

    def _clear_nnn(self, pod: Pod) -> None:
        self.nominator.delete(pod)

    def _storage_changed(self, resource: str, old_obj: Any, new_obj: Any) -> None:
        """A storage object written to the API (``handle.storage_changed``): the informer's
        event goes to the listener (``Simulation``'s event handlers)."""
        if self.storage_listener is not None:
            self.storage_listener(resource, old_obj, new_obj)

    # ----- the queue order -----
    def queue_order(self, pending: list[Pod]) -> list[QueuedPodInfo]:
        """Pending pods in QueueSort order; equal pods keep input order (creation time, then
        file order)."""
        qs = [QueuedPodInfo(p, p.creation_timestamp) for p in pending]
        if not self.profiles:
            return qs
        less = next(iter(self.profiles.values())).queue_sort_less()

        def cmp(a: QueuedPodInfo, b: QueuedPodInfo) -> int:
            if less(a, b):
                return -1
            if less(b, a):
                return 1
            return (a.pod.creation_timestamp, a.pod.order) < (b.pod.creation_timestamp,
                                                             b.pod.order) and -1 or 1

        return sorted(qs, key=functools.cmp_to_key(cmp))

    def responsible_for(self, pod: Pod) -> bool:
        return pod.scheduler_name in self.profiles

    # ----- one attempt -----
    def pre_enqueue(self, qpi: QueuedPodInfo) -> Status | None:
        fwk = self.profiles[qpi.pod.scheduler_name]
        return fwk.run_pre_enqueue_plugins(qpi.pod)

    def schedule_one(self, qpi: QueuedPodInfo) -> Attempt:
        """``scheduleOnePod``: the scheduling cycle, then the binding cycle."""
        pod = qpi.pod
        fwk = self.profiles[pod.scheduler_name]
        qpi.attempts += 1
        self.core.scheduling_cycle += 1
        if self.core.batching and qpi.signature is None:
            qpi.signature = sign_pod(fwk, pod)
        state = CycleState()
        try:
            result = self.core.schedule_pod(fwk, state, pod, qpi.signature)
        except FitError as fit:
            return self._handle_fit_error(fwk, state, qpi, fit)
        except NoNodesAvailable as e:
            self.nominator.add_nominated_pod(PodInfo(pod), self._failure_nominating_info())
            return Attempt(pod.key, UNSCHEDULABLE, message=str(e))
        except SchedulingError as e:
            self.nominator.add_nominated_pod(PodInfo(pod), self._failure_nominating_info())
            return Attempt(pod.key, ERROR, message=str(e))
        return self._assume_reserve_bind(fwk, state, qpi, result)

    def _failure_nominating_info(self) -> NominatingInfo | None:
        """The nominating info of a failed attempt (``handleSchedulingFailure`` applies it to
        the nominator and the pod's status): ``clearNominatedNode`` from v1.35
        (``pkg/scheduler/schedule_one.go``); v1.34.4's ``newFailureNominatingInfo`` gives none
        (the pod keeps its status.nominatedNodeName) when NominatedNodeNameForExpectation is
        on (switch nnn-clear-on-failure)."""
        if (self.release.behaviour("nnn-clear-on-failure") == "unless-expectation"
                and self.features("NominatedNodeNameForExpectation")):
            return None
        return NominatingInfo("", MODE_OVERRIDE)

    def _handle_fit_error(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo,
                          fit: FitError) -> Attempt:
        pod = qpi.pod
        # No PostFilter plugin: clearNominatedNode from v1.35, no nominating info (the pod's
        # own nomination stays) in v1.34.4's ``ScheduleResult{}`` (switch nnn-clear-on-failure).
        nominating: NominatingInfo | None = None
        if self.release.behaviour("nnn-clear-on-failure") == "always":
            nominating = NominatingInfo("", MODE_OVERRIDE)
        victims: list[str] = []
        if fwk.has_post_filter_plugins():
            before = len(self.victims_of.get(pod.key, []))
            result, status = fwk.run_post_filter_plugins(state, pod, fit.diagnosis)
            fit.diagnosis.post_filter_msg = status.message()
            nominating = result.nominating_info if result is not None else None
            victims = self.victims_of.get(pod.key, [])[before:]
        qpi.unschedulable_plugins = set(fit.diagnosis.unschedulable_plugins)
        qpi.pending_plugins = set(fit.diagnosis.pending_plugins)
        # The nominator learns the nomination now; the pod object is left as it is: the API
        # patch of status.nominatedNodeName (updatePod) is the simulation's, which compares the
        # old object with the new one (a nomination lost is a pod update that frees the old
        # nominated node, updatePodInSchedulingQueue / hasNominatedNodeNameChanged).
        self.nominator.add_nominated_pod(PodInfo(pod), nominating)
        reasons: Mapping[str, list[str]] = fit.diagnosis.node_to_status.reasons()
        if fit.diagnosis.pre_filter_msg:
            reasons = dict(reasons)
            for ni in self.snapshot.list():
                reasons.setdefault(ni.node.name, fit.diagnosis.absent_nodes_status.all_reasons())
        nominated = (nominating is not None and nominating.mode == MODE_OVERRIDE
                     and bool(nominating.nominated_node_name))
        attempt = Attempt(pod.key, NOMINATED if nominated else UNSCHEDULABLE,
                          message=fit.message(), reasons=reasons,
                          evaluated_nodes=len(fit.diagnosis.node_to_status))
        nnn = self.nominator.nominated_node_of(pod)
        attempt.nominated_node = nnn or None
        attempt.victims = victims
        return attempt

    def _assume_reserve_bind(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo,
                             result: ScheduleResult) -> Attempt:
        """``prepareForBindingCycle`` and ``bindingCycle``, run to completion at once."""
        pod = qpi.pod
        host = result.suggested_host
        assumed = assumed_copy(pod, host)
        self.snapshot.add_pod(assumed)
        self.nominator.delete(pod)
        s = fwk.run_reserve_plugins_reserve(state, assumed, host)
        if s is not None and not s.is_success():
            return self._fail_after_assume(fwk, state, qpi, assumed, host, s)
        wait_times, s = fwk.run_permit_plugins(state, assumed, host)
        waited = s is not None and s.code == Code.WAIT
        if s is not None and not s.is_success() and not waited:
            return self._fail_after_assume(fwk, state, qpi, assumed, host, s)
        # the binding cycle (bindingCycle): PreBindPreFlight, the nomination of the chosen node
        # when PreBind or a Permit wait will take time, WaitOnPermit, PreBind, Bind
        nominated = False
        if self.features("NominatedNodeNameForExpectation"):
            s = fwk.run_pre_bind_pre_flights(state, assumed, host)
            if s is not None and (s.code == Code.ERROR or s.is_rejected()):
                return self._fail_after_assume(fwk, state, qpi, assumed, host, s,
                                               binding_cycle=True)
            nominated = is_success(s) or waited
        if waited:
            # No Permit plugin can be allowed from outside in the reference yet: the pod waits
            # out its timeout and is rejected, as upstream does when nobody allows it.
            plugin, timeout = min(wait_times.items(), key=lambda kv: kv[1])
            s = Status(Code.UNSCHEDULABLE,
                       f"rejected due to timeout after waiting {go_duration(timeout)} at plugin "
                       f"{plugin}", plugin=plugin)
            return self._fail_after_assume(fwk, state, qpi, assumed, host, s,
                                           binding_cycle=True, nominated=nominated)
        s = fwk.run_pre_bind_plugins(state, assumed, host)
        if s is None or s.is_success():
            s = fwk.run_bind_plugins(state, assumed, host)
        if s is not None and not s.is_success():
            return self._fail_after_assume(fwk, state, qpi, assumed, host, s,
                                           binding_cycle=True, nominated=nominated)
        fwk.run_post_bind_plugins(state, assumed, host)
        self.pods_by_uid[pod.uid] = assumed
        return Attempt(pod.key, BOUND, node=host, evaluated_nodes=result.evaluated_nodes,
                       feasible_nodes=result.feasible_nodes,
                       candidates=_tie_set(result))

    def _fail_after_assume(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo,
                           assumed: Pod, host: str, s: Status, *,
                           binding_cycle: bool = False, nominated: bool = False) -> Attempt:
        """``unreserveAndForget`` then the failure handler (nomination cleared). In the
        binding cycle (``handleBindingCycleError``) the attempt carries the forgotten assumed
        pod: the queue treats its removal as an AssignedPod/Delete event. ``nominated``: the
        binding cycle had nominated the node (NominatedNodeNameForExpectation), a pod update
        the failure handler undoes."""
        fwk.run_reserve_plugins_unreserve(state, assumed, host)
        self.snapshot.remove_pod(assumed)
        self.bindings.pop(assumed.key, None)
        kept = qpi.pod
        if nominated:
            kept = replace(kept, nominated_node_name=host)
        self.nominator.add_nominated_pod(PodInfo(kept), self._failure_nominating_info())
        forgotten = assumed if binding_cycle else None
        if not s.is_rejected():
            return Attempt(qpi.pod.key, ERROR, message=s.message(), forgotten=forgotten,
                           nominated_for_binding=nominated)
        # A rejection after the node was chosen is a FitError for that one node.
        diagnosis = Diagnosis()
        diagnosis.node_to_status[host] = s
        diagnosis.add_plugin_status(s)
        qpi.unschedulable_plugins = set(diagnosis.unschedulable_plugins)
        qpi.pending_plugins = set(diagnosis.pending_plugins)
        fit = FitError(qpi.pod, 1, diagnosis)
        return Attempt(qpi.pod.key, UNSCHEDULABLE, message=fit.message(),
                       reasons={host: s.all_reasons()}, forgotten=forgotten,
                       nominated_for_binding=nominated)

    # ----- the whole run -----
    def run(self) -> SimulationResult:
        pending = [p for p in self.cluster.pods if not p.node_name]
        for qpi in self.queue_order([p for p in pending if self.responsible_for(p)]):
            if qpi.pod.uid in self.deleted or qpi.pod.is_terminating:
                # popped (a scheduling cycle is used up), then skipped (skipPodSchedule)
                self.core.scheduling_cycle += 1
                self.nominator.left_the_queue(qpi.pod)
                continue
            gate = self.pre_enqueue(qpi)
            if gate is not None:
                self.attempts.append(Attempt(qpi.pod.key, GATED, message=gate.message()))
                continue
            self.attempts.append(self.schedule_one(qpi))
        return self.result()

    def result(self) -> SimulationResult:
        bound = dict(sorted(self.bindings.items()))
        pending = sorted(p.key for p in self.cluster.pods
                         if p.key not in self.bindings and p.uid not in self.deleted)
        deleted = sorted(self.pods_by_uid[u].key for u in self.deleted)
        bound_pods = [p for p in self.cluster.pods if p.key in bound]
        claims = claim_results(self.cluster.dra, bound_pods)
        return SimulationResult(
            self.seed, list(self.attempts), bound, pending, deleted, resource_claims=claims,
            persistent_volume_claims=persistent_volume_claim_results(self.cluster.storage),
            extended_resource_claim_status=extended_claim_status(self.cluster.dra, bound_pods))


def go_duration(seconds: float) -> str:
    """Go's ``time.Duration.String`` for a non-negative duration (e.g. 15m0s, 10s, 1.5s,
    1h0m0s, 500ms)."""
    ns = round(seconds * 1_000_000_000)
    if ns == 0:
        return "0s"
    if ns < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if ns >= size:
                return _trim(ns / size) + unit
    h, rem = divmod(ns, 3_600_000_000_000)
    m, rem = divmod(rem, 60_000_000_000)
    sec = _trim(rem / 1_000_000_000) + "s"
    if h:
        return f"{h}h{m}m{sec}"
    if m:
        return f"{m}m{sec}"
    return sec


def _trim(x: float) -> str:
    text = f"{x:.9f}".rstrip("0").rstrip(".")
    return text or "0"


def _tie_set(result: ScheduleResult) -> list[str]:
    if result.tied is not None:
        return result.tied
    if result.scored is None:
        return [result.suggested_host]
    best = max(s.total for s in result.scored)
    return [s.name for s in result.scored if s.total == best]


@dataclass(slots=True)
class SimulationResult:
    seed: int
    attempts: list[Attempt]
    bindings: dict[str, str]
    pending: list[str]
    deleted: list[str] = field(default_factory=list)
    #: per bound pod with claims, its claims' allocations at the end (``claim_results``)
    resource_claims: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: every PersistentVolumeClaim of the cluster at the end, sorted by namespace/name
    #: (``persistent_volume_claim_results``, docs/storage.md#results)
    persistent_volume_claims: list[dict[str, Any]] = field(default_factory=list)
    #: per bound pod whose extended resources got a claim, its
    #: ``status.extendedResourceClaimStatus`` (``extended_claim_status``)
    extended_resource_claim_status: dict[str, dict[str, Any]] = field(default_factory=dict)
