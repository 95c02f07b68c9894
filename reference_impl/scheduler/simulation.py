"""The scheduler over (virtual) time: the scheduling queue, cluster events and a timeline.

Upstream: ``pkg/scheduler/scheduler.go`` (Run: the queue's flush loops, then ScheduleOne in a
loop), ``pkg/scheduler/schedule_one.go`` (ScheduleOne, handleSchedulingFailure, updatePod) and
``pkg/scheduler/eventhandlers.go`` (how cluster changes become queue calls: addNodeToCache,
updateNodeInCache, deleteNodeFromCache, addPodToSchedulingQueue, updatePodInSchedulingQueue,
deletePodFromSchedulingQueue, addAssignedPodToCache, deleteAssignedPodFromCache).
The loop, when it stops, what counts as a cluster change:
docs/reference.md#the-scheduler-over-virtual-time."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reference_impl.framework.status import Status
from reference_impl.framework.types import next_generation
from reference_impl.model import scenario as sc
from reference_impl.model.claim_cleanup import release_pod_claims
from reference_impl.model.loader.resourceclaims import create_pod_template_claims
from reference_impl.model.objects import Namespace, Node, Pod
from reference_impl.plugins.dynamicresources.claims import claim_results, extended_claim_status
from reference_impl.scheduler.clock import SECOND, VirtualClock, parse_duration, to_seconds
from reference_impl.scheduler.object_writes import write_object
from reference_impl.scheduler.queue import events as ev
from reference_impl.scheduler.queue.scheduling_queue import (
    DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    UNSCHEDULABLE_FLUSH_INTERVAL,
    PriorityQueue,
    QueuedPodInfo,
    profile_pre_enqueue_plugins,
    profile_queueing_hint_map,
)
from reference_impl.scheduler.schedule_one import (
    BOUND,
    ERROR,
    GATED,
    NOMINATED,
    UNSCHEDULABLE,
    Attempt,
)
from reference_impl.scheduler.scheduler import Scheduler, SimulationResult
from reference_impl.storage.results import persistent_volume_claim_results

LABEL_METADATA_NAME = "kubernetes.io/metadata.name"
BACKOFF_FLUSH_INTERVAL = SECOND
DEFAULT_MAX_ATTEMPTS = 1_000_000
POD_REASON_UNSCHEDULABLE = "Unschedulable"
POD_REASON_SCHEDULER_ERROR = "SchedulerError"


@dataclass(slots=True)
class AttemptInfo:
    """When and how an attempt happened: virtual time (seconds), the pod's attempt number, the
    queue it was popped from ("activeQ"/"backoffQ"; None for a Gated record) and the label of
    the event that last moved the pod towards that queue (e.g. "UnscheduledPodAdd",
    "NodeAdd", "UnschedulableTimeout", "AssignedPodDelete"), named as the release names it
    ("UnschedulablePodAdd" before v1.37; switch pod-event-resource)."""

    time: float
    attempt: int
    queue: str | None
    event: str


@dataclass(slots=True)
class TimelineResult(SimulationResult):
    """``SimulationResult`` plus the timing of each attempt (``attempt_info[i]`` belongs to
    ``attempts[i]``), the pods the timeline removed, the end of the run and the queue trace."""

    attempt_info: list[AttemptInfo] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    timeline: list[dict[str, Any]] = field(default_factory=list)
    end_time: float = 0.0
    stopped_by: str = ""
    trace: list[dict[str, Any]] | None = None


def _le_priority_pre_check(priority: int) -> Callable[[Pod], bool]:
    """``getLEPriorityPreCheck``."""
    return lambda pod: pod.priority <= priority


class Simulation:
    """One run of the scheduler over a timeline (use :func:`run_simulation`)."""

    def __init__(self, scheduler: Scheduler, scenario: sc.Scenario | None = None,
                 until: int | None = None, trace: bool = False,
                 max_attempts: int = DEFAULT_MAX_ATTEMPTS,
                 pod_max_in_unschedulable_pods_duration: int =
                 DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION) -> None:
        if not scheduler.profiles:
            raise ValueError("the scheduler has no profiles")
        self.s = scheduler
        self._pod_only_gates = {pl.name for fwk in scheduler.profiles.values()
                                for pl in fwk.pre_enqueue_plugins
                                if pl.pre_enqueue_reads_only_the_pod}
        self.scenario = scenario or sc.Scenario()
        self.until = until if until is not None else self.scenario.until
        self.max_attempts = max_attempts
        self.clock = VirtualClock(0)
        self.trace: list[dict[str, Any]] | None = [] if trace else None
        features = scheduler.features
        generic_workload = features("GenericWorkload")
        cfg = scheduler.config
        first = next(iter(scheduler.profiles.values()))
        self.queue = PriorityQueue(
            first.queue_sort_less(), clock=self.clock,
            pod_initial_backoff=cfg.pod_initial_backoff_seconds * SECOND,
            pod_max_backoff=cfg.pod_max_backoff_seconds * SECOND,
            pod_max_in_unschedulable_pods_duration=pod_max_in_unschedulable_pods_duration,
            pre_enqueue_plugins={name: profile_pre_enqueue_plugins(fwk)
                                 for name, fwk in scheduler.profiles.items()},
            queueing_hint_map={name: profile_queueing_hint_map(fwk, generic_workload)
                               for name, fwk in scheduler.profiles.items()},
            nominator=scheduler.nominator,
            pop_from_backoff_q=features("SchedulerPopFromBackoffQ"),
            inc_attempts_on_pop=False,  # Scheduler.schedule_one counts the attempt
            trace=self.trace, on_gated=self._on_gated, release=scheduler.release,
            pod_update_rule=ev.PodUpdateRule.for_release(scheduler.release, features))
        self.node_declared_features = features("NodeDeclaredFeatures")
        for fwk in scheduler.profiles.values():
            scheduler.core.batch_of(fwk)  # create the batch states now, to set their clock
            for pl in fwk.instances.values():
                executor = getattr(pl, "executor", None)
                if executor is not None and getattr(executor, "activate", False) is None:
                    executor.activate = self.queue.activate
                # DynamicResources' time.Now (binding conditions) runs on the virtual clock
                binding_clock = getattr(pl, "binding_clock", None)
                if binding_clock is not None:
                    binding_clock.virtual = self._now_s
        # The API server's view: current pod and node objects.
        self.pods: dict[str, Pod] = {p.key: p for p in scheduler.cluster.pods}
        self.nodes: dict[str, Node] = {n.name: n for n in scheduler.cluster.nodes}
        self.uids: set[str] = {p.uid for p in scheduler.cluster.pods}
        self.next_pod_order = max((p.order for p in scheduler.cluster.pods), default=-1) + 1
        self.next_node_order = max((n.order for n in scheduler.cluster.nodes), default=-1) + 1
        self.conditions: dict[str, tuple[str, str]] = {}  # uid -> PodScheduled (reason, msg)
        self.version = 0  # bumped on every cluster change
        self.seen: dict[str, int] = {}  # uid -> version when last tried / checked
        self.gate_msgs: dict[str, str] = {}
        self.cause = ev.EVENT_UNSCHEDULED_POD_ADD.label()
        self.attempts: list[Attempt] = []
        self.infos: list[AttemptInfo] = []
        self.removed: list[str] = []
        self.finished: list[str] = []
        self.timeline: list[dict[str, Any]] = []
        self.fired: set[int] = set()  # the indexes of the triggered events applied
        scheduler.storage_listener = self._storage_changed

    # ----- bookkeeping -----
    def _now_s(self) -> float:
        return to_seconds(self.clock.now())

    def _record(self, op: str, **fields: Any) -> None:
        if self.trace is not None:
            self.trace.append({"time": self._now_s(), "op": op, **fields})

    def _changed(self) -> None:
        self.version += 1

    def _on_gated(self, qpi: QueuedPodInfo, status: Status) -> None:
        """A PreEnqueue plugin held the pod back: a Gated record when the verdict is new."""
        self.seen[qpi.pod.uid] = self.version
        msg = status.message()
        if self.gate_msgs.get(qpi.pod.uid) == msg:
            return
        self.gate_msgs[qpi.pod.uid] = msg
        self.attempts.append(Attempt(qpi.pod.key, GATED, message=msg))
        self.infos.append(AttemptInfo(self._now_s(), qpi.attempts, None,
                                      ev.release_event_label(self.cause,
                                                             self.queue.event_resource)))

    def _set_pod(self, old: Pod | None, new: Pod) -> None:
        """Replace (or add) a pod object in the API's view and the scheduler's uid map."""
        self.pods[new.key] = new
        self.s.pods_by_uid[new.uid] = new

    def _drop_pod(self, pod: Pod) -> None:
        self.pods.pop(pod.key, None)

    def _set_node(self, new: Node) -> None:
        self.nodes[new.name] = new

    def _sync_cluster(self) -> None:
        """Leave ``scheduler.cluster`` as the API's final view (its pods and nodes in input
        order, then creation order)."""
        self.s.cluster.pods[:] = list(self.pods.values())
        self.s.cluster.nodes[:] = list(self.nodes.values())

    # ----- the run -----
    def run(self) -> TimelineResult:
        s = self.s
        pending = [p for p in s.cluster.pods if not p.node_name and s.responsible_for(p)]
        pending.sort(key=lambda p: (p.creation_timestamp, p.order))
        self.cause = ev.EVENT_UNSCHEDULED_POD_ADD.label()
        for p in pending:
            self.queue.add(p)
        events = self.scenario.events
        ei = 0
        stopped_by = "quiescence"
        while True:
            now = self.clock.now()
            while ei < len(events) and events[ei].at <= now:
                self._apply(events[ei])
                ei += 1
            if now > 0 and now % BACKOFF_FLUSH_INTERVAL == 0:
                self.cause = ev.BACKOFF_COMPLETE
                self.queue.flush_backoff_q_completed()
            if now % UNSCHEDULABLE_FLUSH_INTERVAL == 0:
                self.cause = ev.UNSCHEDULABLE_TIMEOUT
                self.queue.flush_unschedulable_pods_leftover()
            self._schedule_all()
            nxt = self._next_time(events[ei].at if ei < len(events) else None)
            if nxt is None:
                break
            if self.until is not None and nxt > self.until:
                if self.until > now:
                    self.clock.set(self.until)
                stopped_by = "until"
                break
            self.clock.set(nxt)
        return self._result(stopped_by)

    def _schedule_all(self) -> None:
        while True:
            qpi = self.queue.pop()
            if qpi is None:
                return
            if len(self.attempts) >= self.max_attempts:
                raise RuntimeError(f"the simulation did not settle after {self.max_attempts} "
                                   f"attempts (virtual time {self._now_s()}s)")
            self._attempt(qpi)

    def _stale(self, qpi: QueuedPodInfo) -> bool:
        """Tried (or checked) before the last cluster change: a retry may turn out differently.
        A pod held by SchedulingGates (or any PreEnqueue plugin whose verdict reads only the pod)
        never is: the pod's own updates re-check it at once."""
        if qpi.gating_plugin in self._pod_only_gates:
            return False
        return self.seen.get(qpi.pod.uid, -1) != self.version

    def _next_time(self, next_event: int | None) -> int | None:
        """The next moment something can happen, or None at quiescence."""
        q = self.queue
        now = self.clock.now()
        queued = [*q.backoff_q.entities(), *q.unschedulable_pods]
        if next_event is None and not any(self._stale(qpi) for qpi in queued):
            return None
        candidates = [] if next_event is None else [next_event]
        bo = q.backoff_q.next_completion()
        if bo is not None:
            # completed at the first flush (whole second) strictly after its backoff time
            tick = max(bo // BACKOFF_FLUSH_INTERVAL + 1, now // BACKOFF_FLUSH_INTERVAL + 1)
            candidates.append(tick * BACKOFF_FLUSH_INTERVAL)
        due = q.next_leftover_flush_due()
        if due is not None:
            iv = UNSCHEDULABLE_FLUSH_INTERVAL
            candidates.append(max(due // iv + 1, now // iv + 1) * iv)
        return min(candidates) if candidates else None

    # ----- one attempt (ScheduleOne + handleSchedulingFailure) -----
    def _attempt(self, qpi: QueuedPodInfo) -> None:
        s = self.s
        pod = qpi.pod
        uid = pod.uid
        self.seen[uid] = self.version
        if pod.is_terminating or s.snapshot.is_assumed_or_bound(pod):
            # skipPodSchedule: not requeued. The pop used up a scheduling cycle, which the
            # batch's cycleCount (the queue's SchedulingCycle, schedule_one.go) sees: the next
            # pod's batch state is "pod_skipped" (framework/runtime/batch.go)
            s.core.scheduling_cycle += 1
            self.queue.done(uid)
            s.nominator.left_the_queue(pod)
            self._record("skip", pod=pod.key)
            return
        qpi.clear_rejector_plugins()
        self.gate_msgs.pop(uid, None)
        nominations = dict(s.nominator.nominated_pod_to_node)
        now_s = self._now_s()
        for b in s.core.batches.values():
            b.now = self.clock.now()  # nanoseconds: seconds as floats misjudge 500 ms apart
        cycle = self.queue.scheduling_cycle()
        attempt = s.schedule_one(qpi)
        s.attempts.append(attempt)
        self.attempts.append(attempt)
        self.infos.append(AttemptInfo(now_s, qpi.attempts, qpi.popped_from, ev.release_event_label(
            qpi.moved_by or ev.EVENT_UNSCHEDULED_POD_ADD.label(), self.queue.event_resource)))
        self._record("attempt", pod=pod.key, outcome=attempt.outcome, node=attempt.node,
                     attempt=qpi.attempts)
        evicted = [v for v in (self._victim_evicted(k) for k in attempt.victims)
                   if v is not None]
        if attempt.outcome == BOUND:
            self.queue.done(uid)
            bound = s.pods_by_uid[uid]
            unscheduled = self.pods.get(pod.key, pod)  # the informers' last unscheduled view
            self._set_pod(pod, bound)
            self.conditions.pop(uid, None)
            self._changed()
            self.cause = ev.EVENT_ASSIGNED_POD_ADD.label()
            self.queue.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_ADD, None,
                                                           bound)
            self._bound_pod_left_unscheduled(unscheduled)
        else:
            forgotten = attempt.forgotten
            if attempt.nominated_for_binding:
                # two pod updates (nominated, then cleared): a cluster change, as the
                # informers see it
                self._changed()
            if forgotten is not None and attempt.outcome == ERROR:
                self._forgotten_in_binding_cycle(forgotten)
            self.cause = ev.SCHEDULE_ATTEMPT_FAILURE
            self.queue.add_unschedulable_if_not_present(qpi, cycle)
            self._patch_status(qpi, attempt)
            if forgotten is not None and attempt.outcome != ERROR:
                self._forgotten_in_binding_cycle(forgotten, but_itself=True)
        after = s.nominator.nominated_pod_to_node
        if after != nominations:
            self._changed()
            self._clear_lost_nominations(uid, nominations, after)
        for victim in evicted:
            self._release_claims(victim)
        if attempt.outcome == BOUND:
            self._fire_triggers(pod.key)

    def _forgotten_in_binding_cycle(self, assumed: Pod, but_itself: bool = False) -> None:
        """``handleBindingCycleError``: forgetting the assumed pod is an AssignedPod/Delete
        event (it held resources in the cache). After an Error every pod is offered the event
        at once; after a rejection (a Permit wait timed out) it comes after the failure
        handler, and the pod itself is left out (pkg/scheduler/schedule_one.go)."""
        self.cause = ev.EVENT_ASSIGNED_POD_DELETE.label()
        uid = assumed.uid
        self.queue.move_all_to_active_or_backoff_queue(
            ev.EVENT_ASSIGNED_POD_DELETE, assumed, None,
            (lambda p: p.uid != uid) if but_itself else None)

    def _fire_triggers(self, key: str) -> None:
        """The events the binding of pod ``key`` triggers (``when: {podBound: key}``): once,
        right after the attempt that bound it (its AssignedPod/Add already delivered), before
        the next pod is popped, at the same virtual time, in document order. The StatefulSet
        controller creates the next ordinal once this one is Running and Ready
        (pkg/controller/statefulset/stateful_set_control.go, ``monotonic``); without a
        kubelet, bound is Running and Ready."""
        for te in self.scenario.triggered_by(key):
            if te.index not in self.fired:
                self.fired.add(te.index)
                self._apply(te)

    def _clear_lost_nominations(self, attempted: str, before: dict[str, str],
                                after: dict[str, str]) -> None:
        """``util.ClearNominatedNodeName`` by the preemption: the lower-priority pods whose
        nomination the attempt removed get their status.nominatedNodeName patched away, which
        comes back as a pod update."""
        for uid in before:
            if uid == attempted or uid in after:
                continue
            known = self.s.pods_by_uid.get(uid)
            pod = self.pods.get(known.key) if known is not None else None
            if pod is None or pod.uid != uid or not pod.nominated_node_name or self._is_bound(pod):
                continue
            new = dataclasses.replace(pod, nominated_node_name="")
            self._set_pod(pod, new)
            self._update_pending_pod(pod, new)

    def _victim_evicted(self, key: str) -> Pod | None:
        """A preemption victim was deleted: AssignedPod/Delete (seen by the pod in flight).
        Returns the victim, whose claims the resourceclaim controller then releases
        (``_release_claims`` once the attempt is over: the upstream subject runs the cleanup
        after the preemption's deletes have settled, upstream/simulate.go)."""
        victim = self.pods.get(key)
        if victim is None:
            return None
        self._drop_pod(victim)
        self._changed()
        self.cause = ev.EVENT_ASSIGNED_POD_DELETE.label()
        self.queue.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_DELETE, victim, None)
        return self.s.pods_by_uid.get(victim.uid, victim)

    def _patch_status(self, qpi: QueuedPodInfo, attempt: Attempt) -> None:
        """``updatePod`` after a failure: the PodScheduled condition and (ModeOverride) the
        nominatedNodeName, patched only when they change; the patch comes back as a pod
        update."""
        pod = self.pods.get(qpi.pod.key)
        if pod is None or pod.uid != qpi.pod.uid:
            return
        reason = (POD_REASON_UNSCHEDULABLE if attempt.outcome in (UNSCHEDULABLE, NOMINATED)
                  else POD_REASON_SCHEDULER_ERROR)
        condition = (reason, attempt.message)
        nnn = self.s.nominator.nominated_node_of(pod)
        condition_changed = self.conditions.get(pod.uid) != condition
        nnn_changed = nnn != pod.nominated_node_name
        if not condition_changed and not nnn_changed:
            return
        self.conditions[pod.uid] = condition
        new = dataclasses.replace(pod, nominated_node_name=nnn)
        self._set_pod(pod, new)
        self._update_pending_pod(pod, new)

    def _bound_pod_left_unscheduled(self, old: Pod) -> None:
        """The unscheduled-pod handler's ``deletePodFromSchedulingQueue`` for a binding
        (switch ``binding-frees-nomination``): v1.34.4 (``eventhandlers.go``) moves the
        lower-or-equal-priority pods with AssignedPodDelete when the pod had a
        nominatedNodeName; 1.35+ skip it (``inBinding``)."""
        if (old.nominated_node_name
                and self.s.release.behaviour("binding-frees-nomination")
                == "assigned-pod-delete"):
            self.cause = ev.EVENT_ASSIGNED_POD_DELETE.label()
            self.queue.move_all_to_active_or_backoff_queue(
                ev.EVENT_ASSIGNED_POD_DELETE, old, None, _le_priority_pre_check(old.priority))

    def _update_pending_pod(self, old: Pod, new: Pod) -> None:
        """``updatePodInSchedulingQueue``: ``Update``, and a changed nominatedNodeName frees
        the old nominated node for lower-or-equal-priority pods."""
        self.cause = ev.EVENT_TARGET_POD_UPDATE.label()
        self.queue.update(old, new)
        if old.nominated_node_name and old.nominated_node_name != new.nominated_node_name:
            self._changed()
            self.cause = ev.EVENT_ASSIGNED_POD_DELETE.label()
            self.queue.move_all_to_active_or_backoff_queue(
                ev.EVENT_ASSIGNED_POD_DELETE, old, None, _le_priority_pre_check(old.priority))

    # ----- storage objects -----
    def _storage_changed(self, resource: str, old_obj: Any, new_obj: Any) -> None:
        """The storage informers' handlers (``buildEvtResHandler``, eventhandlers.go): a PV,
        PVC, StorageClass or CSI object added, updated or deleted moves the unschedulable pods
        its event may help, and is recorded for the pods in flight (the pod whose PreBind
        wrote it among them)."""
        event = ev.storage_object_event(resource, old_obj, new_obj)
        if resource != "ResourceClaim":
            # the quiescence rule counts the storage informers' events as cluster changes,
            # not the claims DynamicResources writes itself (its PreBind, Unreserve and
            # PostFilter): the upstream subject counts the PV and PVC informers' events
            # (upstream/storage.go watchStorage); a timeline event writing claims is a change
            # of its own (_apply)
            self._changed()
        self.cause = event.label()
        self.queue.move_all_to_active_or_backoff_queue(event, old_obj, new_obj)

    # ----- timeline events -----
    def _apply(self, te: sc.TimelineEvent) -> None:
        handler = getattr(self, "_apply_" + te.action)
        entry = {"time": self._now_s(), "index": te.index, "action": te.action,
                 "target": te.target, "result": "applied"}
        rec = {"time": entry["time"], "op": "timeline", "index": te.index,
               "action": te.action, "target": te.target, "result": "applied"}
        if self.trace is not None:
            self.trace.append(rec)  # before the queue moves the event causes
        outcome = handler(te)
        if outcome:
            entry["result"] = rec["result"] = outcome
        else:
            self._changed()
        self.timeline.append(entry)

    def _node_changed(self, old: Node, new: Node) -> None:
        """``updateNodeInCache``: update the cache, then one move per UpdateNodeXYZ event."""
        self._set_node(new)
        ni = self.s.snapshot.update_node(new)
        ni.generation = next_generation()
        for e in ev.node_scheduling_properties_change(
                new, old, node_declared_features=self.node_declared_features):
            self.cause = e.label()
            self.queue.move_all_to_active_or_backoff_queue(e, old, new)

    def _apply_createNode(self, te: sc.TimelineEvent) -> str | None:
        node = te.node
        assert node is not None
        if node.name in self.nodes:
            return "skipped: node already exists"
        node = dataclasses.replace(node, order=self.next_node_order)
        self.next_node_order += 1
        self._set_node(node)
        self.s.snapshot.add_node(node)
        self.cause = ev.EVENT_NODE_ADD.label()
        self.queue.move_all_to_active_or_backoff_queue(ev.EVENT_NODE_ADD, None, node)
        return None

    def _apply_deleteNode(self, te: sc.TimelineEvent) -> str | None:
        node = self.nodes.get(te.target)
        if node is None:
            return "skipped: node not found"
        ni = self.s.snapshot.get(node.name)
        on_node = [pi.pod for pi in ni.pods] if ni is not None else []
        self.cause = ev.EVENT_NODE_DELETE.label()
        self.queue.move_all_to_active_or_backoff_queue(ev.EVENT_NODE_DELETE, node, None)
        self.s.snapshot.remove_node(node.name)
        del self.nodes[node.name]
        for p in on_node:  # the pod garbage collector deletes the node's pods
            current = self.pods.get(p.key)
            if current is not None and current.uid == p.uid:
                self._delete_bound_pod(current, self.removed)
        return None

    def _node_update(self, te: sc.TimelineEvent, fn: Callable[[Node], Node]) -> str | None:
        old = self.nodes.get(te.target)
        if old is None:
            return "skipped: node not found"
        new = fn(old)
        self._node_changed(old, new)
        return None

    def _apply_cordon(self, te: sc.TimelineEvent) -> str | None:
        return self._node_update(te, lambda n: dataclasses.replace(n, unschedulable=True))

    def _apply_uncordon(self, te: sc.TimelineEvent) -> str | None:
        return self._node_update(te, lambda n: dataclasses.replace(n, unschedulable=False))

    def _apply_labelNode(self, te: sc.TimelineEvent) -> str | None:
        def relabel(n: Node) -> Node:
            labels = dict(n.labels)
            for k, v in te.labels.items():
                if v is None:
                    labels.pop(k, None)
                else:
                    labels[k] = v
            return dataclasses.replace(n, labels=labels)
        return self._node_update(te, relabel)

    def _apply_taintNode(self, te: sc.TimelineEvent) -> str | None:
        def taint(n: Node) -> Node:
            taints = list(n.taints)
            for t in te.taints:
                for i, old in enumerate(taints):
                    if old.key == t.key and old.effect == t.effect:
                        taints[i] = t  # kubectl taint --overwrite
                        break
                else:
                    taints.append(t)
            return dataclasses.replace(n, taints=tuple(taints))
        return self._node_update(te, taint)

    def _apply_untaintNode(self, te: sc.TimelineEvent) -> str | None:
        def untaint(n: Node) -> Node:
            taints = tuple(t for t in n.taints
                           if not any(t.key == k and (not e or t.effect == e)
                                      for k, e in te.untaints))
            return dataclasses.replace(n, taints=taints)
        return self._node_update(te, untaint)

    def _apply_createPod(self, te: sc.TimelineEvent) -> str | None:
        pod = te.pod
        assert pod is not None
        if pod.key in self.pods:
            return "skipped: pod already exists"
        uid, n = pod.uid, 1
        while uid in self.uids:
            n += 1
            uid = f"{pod.uid}-{n}"
        pod = dataclasses.replace(pod, uid=uid, order=self.next_pod_order)
        self.next_pod_order += 1
        self.uids.add(uid)
        s = self.s
        if pod.namespace not in s.snapshot.namespaces:
            ns = Namespace(pod.namespace, {LABEL_METADATA_NAME: pod.namespace})
            s.snapshot.namespaces[ns.name] = ns
            s.cluster.namespaces.setdefault(ns.name, ns)
        # The resourceclaim controller's handleClaim (pkg/controller/resourceclaim/
        # controller.go): the claims of the pod's templates, created (and their ResourceClaim
        # Add events delivered) before the pod is added, with its resourceClaimStatuses, so
        # that PreEnqueue finds them; as the loader's pass names them.
        # (Not for a pod bound to a missing node, which is skipped below, as upstream/timeline.go
        # skips it before anything is created.)
        if not pod.node_name or pod.node_name in self.nodes:
            claims, _ = create_pod_template_claims(pod, s.cluster.dra)
            for claim in claims:
                self._storage_changed("ResourceClaim", None, claim)
        pod = s.accounted(pod)
        self._set_pod(None, pod)
        if pod.node_name:  # addAssignedPodToCache
            if pod.node_name not in self.nodes:
                self._drop_pod(pod)
                return f"skipped: node {pod.node_name} not found"
            s.snapshot.add_pod(pod)
            s.bindings[pod.key] = pod.node_name
            self.cause = ev.EVENT_ASSIGNED_POD_ADD.label()
            self.queue.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_ADD, None, pod)
        elif s.responsible_for(pod):  # addPodToSchedulingQueue
            self.cause = ev.EVENT_UNSCHEDULED_POD_ADD.label()
            self.queue.add(pod)
        return None

    def _delete_bound_pod(self, pod: Pod, into: list[str]) -> None:
        """``deleteAssignedPodFromCache``: remove it, then AssignedPod/Delete."""
        bound = self.s.pods_by_uid.get(pod.uid, pod)
        self.s.snapshot.remove_pod(bound)
        self.s.bindings.pop(pod.key, None)
        self._drop_pod(pod)
        into.append(pod.key)
        self.cause = ev.EVENT_ASSIGNED_POD_DELETE.label()
        self.queue.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_DELETE, bound, None)
        self._release_claims(bound)

    def _release_claims(self, pod: Pod) -> None:
        """The resourceclaim controller's cleanup after the pod went (a timeline event, or
        the preemption deleted it; ``syncClaim``, pkg/controller/resourceclaim/controller.go;
        ``release_pod_claims``): its reservations dropped, a claim with the finalizer left
        without consumers deallocated and its finalizer removed, the claims it owns deleted
        (the garbage collector), each write delivered to the queue as its ResourceClaim event
        (after the pod's own delete, as the controller reacts to it)."""
        for old, new in release_pod_claims(pod, self.s.cluster.dra):
            self._storage_changed("ResourceClaim", old, new)

    def _is_bound(self, pod: Pod) -> bool:
        return bool(pod.node_name) or pod.key in self.s.bindings

    def _apply_deletePod(self, te: sc.TimelineEvent) -> str | None:
        pod = self.pods.get(te.target)
        if pod is None:
            return "skipped: pod not found"
        if self._is_bound(pod):
            self._delete_bound_pod(pod, self.removed)
            return None
        # deletePodFromSchedulingQueue
        self._drop_pod(pod)
        self.removed.append(pod.key)
        if self.s.responsible_for(pod):
            nnn = pod.nominated_node_name or self.s.nominator.nominated_node_of(pod)
            self.queue.delete(pod)
            if nnn:
                self.cause = ev.EVENT_ASSIGNED_POD_DELETE.label()
                self.queue.move_all_to_active_or_backoff_queue(
                    ev.EVENT_ASSIGNED_POD_DELETE, pod, None,
                    _le_priority_pre_check(pod.priority))
        self._release_claims(pod)
        return None

    def _apply_finishPod(self, te: sc.TimelineEvent) -> str | None:
        pod = self.pods.get(te.target)
        if pod is None:
            return "skipped: pod not found"
        if not self._is_bound(pod):
            return "skipped: pod is not running"
        self._delete_bound_pod(pod, self.finished)
        return None

    def _apply_removeSchedulingGates(self, te: sc.TimelineEvent) -> str | None:
        pod = self.pods.get(te.target)
        if pod is None:
            return "skipped: pod not found"
        if not pod.scheduling_gates:
            return "skipped: pod has no scheduling gates"
        gates = () if te.gates is None else tuple(
            g for g in pod.scheduling_gates if g not in te.gates)
        new = dataclasses.replace(pod, scheduling_gates=gates)
        self._set_pod(pod, new)
        if not self._is_bound(pod) and self.s.responsible_for(pod):
            self._update_pending_pod(pod, new)
        return None

    def _apply_applyObject(self, te: sc.TimelineEvent) -> str | None:
        """Create or replace a DRA object (``object_writes.write_object``); its informer
        events reach the queue. Not cluster changes of their own for the quiescence rule:
        the event is one (``_apply``), as on the upstream subject, which counts the pod, node
        and storage informers' events only (upstream/timeline_objects.go)."""
        self._write_object(te, te.obj)
        return None

    def _apply_deleteObject(self, te: sc.TimelineEvent) -> str | None:
        if not self._write_object(te, None):
            return f"skipped: {te.kind} {te.name} not found"
        return None

    def _write_object(self, te: sc.TimelineEvent, obj: Any) -> bool:
        events = write_object(self.s.cluster.dra, te.kind, te.name, obj,
                              bool(self.s.features("DRADeviceTaintRules")))
        if events is None:
            return False
        for event, old, new in events:
            self.cause = event.label()
            self.queue.move_all_to_active_or_backoff_queue(event, old, new)
        return True

    # ----- the result -----
    def _result(self, stopped_by: str) -> TimelineResult:
        s = self.s
        self._sync_cluster()
        bindings = dict(sorted(s.bindings.items()))
        pending = sorted(k for k, p in self.pods.items() if k not in s.bindings)
        deleted = sorted(s.pods_by_uid[u].key for u in s.deleted if u in s.pods_by_uid)
        bound_pods = [self.pods[k] for k in bindings if k in self.pods]
        claims = claim_results(s.cluster.dra, bound_pods)
        return TimelineResult(
            s.seed, list(self.attempts), bindings, pending, deleted, claims,
            persistent_volume_claims=persistent_volume_claim_results(s.cluster.storage),
            extended_resource_claim_status=extended_claim_status(s.cluster.dra, bound_pods),
            attempt_info=list(self.infos), removed=sorted(self.removed),
            finished=sorted(self.finished), timeline=list(self.timeline),
            end_time=self._now_s(), stopped_by=stopped_by, trace=self.trace)


def run_simulation(scheduler: Scheduler, scenario: sc.Scenario | None = None,
                   until: int | float | str | None = None, *, trace: bool = False,
                   max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> TimelineResult:
    """Run ``scheduler`` over ``scenario``'s timeline on the virtual clock.

    ``until``: a Go duration string, seconds (int/float), or None for the scenario's
    ``spec.until`` (or no limit). ``trace``: record every queue operation in
    ``result.trace``. Same inputs and seed give the same result and trace.
    """
    limit: int | None = None
    if until is not None:
        limit = parse_duration(until)
    return Simulation(scheduler, scenario, limit, trace, max_attempts).run()


def simulation_doc_extra(result: SimulationResult) -> dict[str, Any]:
    """The fields a ``TimelineResult`` adds to the SimulationResult document: per attempt
    (same order as ``attempts``) ``time``, ``attempt``, ``queue``, ``event``; and top-level
    ``endTime``, ``stoppedBy``, ``removed``, ``finished``, ``timeline`` and (with --trace)
    ``trace``."""
    if not isinstance(result, TimelineResult):
        return {}
    out: dict[str, Any] = {
        "attempts": [{"time": i.time, "attempt": i.attempt, "queue": i.queue,
                      "event": i.event} for i in result.attempt_info],
        "endTime": result.end_time,
        "stoppedBy": result.stopped_by,
        "removed": result.removed,
        "finished": result.finished,
        "timeline": result.timeline,
    }
    if result.trace is not None:
        out["trace"] = result.trace
    return out


def merge_simulation_doc(doc: dict[str, Any], result: SimulationResult) -> dict[str, Any]:
    """Add :func:`simulation_doc_extra` to a document made by ``conformance.core.documents``'s
    ``simulation_doc``: the per-attempt fields into each attempt, the rest at top level."""
    extra = simulation_doc_extra(result)
    for a, more in zip(doc.get("attempts", []), extra.pop("attempts", []), strict=False):
        a.update(more)
    doc.update(extra)
    return doc


__all__ = ["AttemptInfo", "ERROR", "Simulation", "TimelineResult", "merge_simulation_doc",
           "run_simulation", "simulation_doc_extra"]
