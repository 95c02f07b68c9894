"""The scheduling queue: activeQ, backoffQ and the unschedulable pods pool.

Upstream: ``pkg/scheduler/backend/queue/scheduling_queue.go`` (PriorityQueue: Add, Activate,
AddUnschedulablePodIfNotPresent, Pop, Done, Update, Delete, MoveAllToActiveOrBackoffQueue,
flushBackoffQCompleted, flushUnschedulableEntitiesLeftover, isPodWorthRequeuing,
determineSchedulingHintForInFlightPod, requeueEntityWithQueueingStrategy, moveToActiveQ,
moveToBackoffQ, runPreEnqueuePlugins), ``pkg/scheduler/scheduler.go`` (buildQueueingHintMap,
defaultQueueingHintFn) and ``pkg/scheduler/framework/runtime/framework.go``
(fillEnqueueExtensions, defaultEnqueueExtension). See docs/reference.md#the-scheduling-queue."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import reference_impl.scheduler.queue.events as ev
from reference_impl.framework import interfaces as itf
from reference_impl.framework.status import MODE_OVERRIDE, NominatingInfo, Status
from reference_impl.framework.types import PodInfo
from reference_impl.model.objects import Pod
from reference_impl.releases import ReleaseData, current
from reference_impl.scheduler.clock import MINUTE, SECOND, VirtualClock, to_seconds
from reference_impl.scheduler.nominator import Nominator
from reference_impl.scheduler.queue.active_queue import (
    ACTIVE_Q,
    BACKOFF_Q,
    UNSCHEDULABLE_Q,
    ActiveQueue,
)
from reference_impl.scheduler.queue.backoff_queue import BackoffQueue
from reference_impl.scheduler.queue.events import ClusterEvent
from reference_impl.scheduler.queue.unschedulable_pods import UnschedulablePods
from reference_impl.scheduler.scheduler import QueuedPodInfo as _BaseQueuedPodInfo

DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 5 * MINUTE
DEFAULT_POD_INITIAL_BACKOFF_DURATION = 1 * SECOND
DEFAULT_POD_MAX_BACKOFF_DURATION = 10 * SECOND
# Run: flushBackoffQCompleted every backoffQOrderingWindowDuration (1 s, aligned to whole
# seconds); flushUnschedulableEntitiesLeftover every 30 s, starting at once.
BACKOFF_FLUSH_INTERVAL = SECOND
UNSCHEDULABLE_FLUSH_INTERVAL = 30 * SECOND

# queueingStrategy
QUEUE_SKIP = 0
QUEUE_AFTER_BACKOFF = 1
QUEUE_IMMEDIATELY = 2

_stamps = itertools.count(1)


def next_stamp() -> int:
    """A global, increasing number given each time a queue timestamp is set: the order of
    timestamps that are equal on the virtual clock (upstream's have nanosecond resolution)."""
    return next(_stamps)


@dataclass(slots=True, eq=False)
class QueuedPodInfo(_BaseQueuedPodInfo):
    """``framework.QueuedPodInfo`` with the whole of ``QueueingParams``.

    ``timestamp``, ``backoff_expiration``, ``flush_timestamp`` and
    ``initial_attempt_timestamp`` are virtual-clock nanoseconds (None: Go's zero time).
    ``moved_by`` (the label of the event that last moved the pod towards activeQ) and
    ``popped_from`` are simulation bookkeeping.
    """

    stamp: int = 0
    unschedulable_count: int = 0
    consecutive_errors_count: int = 0
    backoff_expiration: int | None = None
    initial_attempt_timestamp: int | None = None
    gating_plugin: str = ""
    gating_plugin_events: tuple[ClusterEvent, ...] = ()
    was_flushed_from_unschedulable: bool = False
    flush_timestamp: int | None = None
    moved_by: str = ""
    popped_from: str = ""

    @property
    def key(self) -> str:
        return self.pod.key

    def is_gated(self) -> bool:
        """``Gated``: a PreEnqueue plugin holds the pod back."""
        return self.gating_plugin != ""

    def size(self) -> int:
        return 1

    def update(self, pod: Pod) -> None:
        """``QueuedPodInfo.Update``: the new pod object; the signature is recomputed."""
        self.pod = pod
        self.signature = None

    def clear_rejector_plugins(self) -> None:
        """``ClearRejectorPlugins``."""
        self.unschedulable_plugins = set()
        self.pending_plugins = set()
        self.gating_plugin = ""
        self.gating_plugin_events = ()
        self.gated = None

    def set_timestamp(self, t: int) -> None:
        self.timestamp = t
        self.stamp = next_stamp()


# --- queueing hints -----------------------------------------------------------------------

HintFn = Callable[[Pod, Any, Any], Any]


def _default_queueing_hint_fn(pod: Pod, old_obj: Any, new_obj: Any) -> tuple[str, None]:
    """``defaultQueueingHintFn``: always Queue."""
    return ev.QUEUE, None


@dataclass(slots=True)
class QueueingHintFunction:
    """``QueueingHintFunction``: a plugin's hint for one registered event. ``fn(pod, old, new)``
    returns a hint ("Queue"/"QueueSkip") or (hint, error)."""

    plugin_name: str
    fn: HintFn = _default_queueing_hint_fn

    def __call__(self, pod: Pod, old_obj: Any, new_obj: Any) -> tuple[Any, Any]:
        r = self.fn(pod, old_obj, new_obj)
        if isinstance(r, tuple):
            return r[0], r[1]
        return r, None


QueueingHintMap = dict[ClusterEvent, list[QueueingHintFunction]]

# Extension points whose plugins can have EnqueueExtensions (shouldHaveEnqueueExtensions).
_ENQUEUE_EXTENSION_BASES = (itf.PreEnqueuePlugin, itf.PreFilterPlugin, itf.FilterPlugin,
                            itf.ReservePlugin, itf.PermitPlugin)


def _registered_events(plugin: Any, generic_workload: bool
                       ) -> list[tuple[ClusterEvent, HintFn | None]]:
    """The plugin's ``EventsToRegister`` as (event, hint function or None); a plugin without
    ``events_to_register`` gets ``defaultEnqueueExtension`` (every resource, All)."""
    name = getattr(plugin, "name", type(plugin).__name__)
    register = getattr(plugin, "events_to_register", None)
    if register is None:
        return [(e, None) for e in ev.unroll_wildcard_resource(generic_workload)]
    out: list[tuple[ClusterEvent, HintFn | None]] = []
    for item in register() or ():
        hint: Any = None
        if isinstance(item, ClusterEvent):
            event = item
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], ClusterEvent):
            event, hint = item
        elif isinstance(item, tuple) and len(item) == 3:
            resource, actions, hint = item
            try:
                event = ClusterEvent(resource, ev.parse_action_type(actions))
            except ValueError as e:
                raise ValueError(f"plugin {name}: events_to_register: {e}") from None
        else:
            raise ValueError(f"plugin {name}: events_to_register: expected (resource, action "
                             f"types, hint method name or None), got {item!r}")
        if isinstance(hint, str):
            fn = getattr(plugin, hint, None)
            if fn is None:
                raise ValueError(f"plugin {name}: events_to_register names hint method "
                                 f"{hint!r}, which the plugin does not have")
            hint = fn
        out.append((event, hint))
    return out


_EVENT_NODE_TAINT = ClusterEvent(ev.NODE, ev.UPDATE_NODE_TAINT)


def build_queueing_hint_map(plugins: Iterable[Any], generic_workload: bool = False,
                            taint_fallback: bool = False) -> QueueingHintMap:
    """``buildQueueingHintMap`` over a profile's enqueue extensions (``fillEnqueueExtensions``:
    PreEnqueue, PreFilter, Filter, Reserve and Permit plugins). A plugin registering nothing
    is left out; a Pod event is unrolled into AssignedPod, UnscheduledPod and TargetPod.

    ``taint_fallback`` (switch ``node-taint-hint-fallback``, v1.34.4-v1.36.3
    ``pkg/scheduler/scheduler.go``): a plugin registering Node/Add but not
    Node/UpdateNodeTaint also gets ``defaultQueueingHintFn`` on Node/UpdateNodeTaint (the
    kubernetes/kubernetes#109437 mitigation, removed in v1.37.0)."""
    hint_map: QueueingHintMap = {}
    for pl in plugins:
        if not isinstance(pl, _ENQUEUE_EXTENSION_BASES):
            continue
        node_add = node_taint = False
        for event, fn in _registered_events(pl, generic_workload):
            qh = QueueingHintFunction(pl.name, fn or _default_queueing_hint_fn)
            targets = ev.unroll_pod_event(event) if event.resource == ev.POD else [event]
            for e in targets:
                hint_map.setdefault(e, []).append(qh)
            if event.resource == ev.NODE:
                node_add = node_add or bool(event.action_type & ev.ADD)
                node_taint = node_taint or bool(event.action_type & ev.UPDATE_NODE_TAINT)
        if taint_fallback and node_add and not node_taint:
            hint_map.setdefault(_EVENT_NODE_TAINT, []).append(QueueingHintFunction(pl.name))
    return hint_map


def build_event_map(hint_map_per_profile: Mapping[str, QueueingHintMap]
                    ) -> dict[str, list[ClusterEvent]]:
    """``buildEventMap``: plugin name -> the events it registered (all profiles)."""
    out: dict[str, list[ClusterEvent]] = {}
    for hint_map in hint_map_per_profile.values():
        for event, fns in hint_map.items():
            for qh in fns:
                out.setdefault(qh.plugin_name, []).append(event)
    return out


def update_nominated_pod(nominator: Nominator, old_pod: Pod, new_pod: Pod) -> None:
    """``nominator.UpdateNominatedPod``: re-add the pod under its new object; when neither
    object has a status.nominatedNodeName, keep the node the nominator had reserved."""
    info: NominatingInfo | None = None
    if not old_pod.nominated_node_name and not new_pod.nominated_node_name:
        nnn = nominator.nominated_pod_to_node.get(old_pod.uid)
        if nnn is not None:
            info = NominatingInfo(nnn, MODE_OVERRIDE)
    nominator.delete(old_pod)
    nominator.add_nominated_pod(PodInfo(new_pod), info)


# The names used in traces and attempt records.
QUEUE_NAMES = {ACTIVE_Q: "activeQ", BACKOFF_Q: "backoffQ", UNSCHEDULABLE_Q: "unschedulablePods"}

_TRACE_OPS = {
    ev.EVENT_UNSCHEDULED_POD_ADD.label(): "add",
    ev.SCHEDULE_ATTEMPT_FAILURE: "requeue",
    ev.BACKOFF_COMPLETE: "flush",
    ev.UNSCHEDULABLE_TIMEOUT: "flush",
    ev.FORCE_ACTIVATE: "activate",
}


class PriorityQueue:
    """``PriorityQueue`` for single pods.

    ``less`` is the QueueSort ``less(a, b)``; ``queueing_hint_map`` and ``pre_enqueue_plugins``
    are keyed by profile (scheduler) name. ``pop_from_backoff_q`` is the SchedulerPopFromBackoffQ
    gate. ``inc_attempts_on_pop``: count the attempt at pop time as upstream (off when the
    caller's scheduling attempt counts it). ``trace``: a list that receives one dict per queue
    operation. ``on_gated(qpi, status)`` is called whenever PreEnqueue holds a pod back.
    ``release``: the upstream release whose queue rules apply (its behaviour switches).

    Time comes from ``clock`` (a :class:`~reference_impl.scheduler.clock.VirtualClock`) in
    integer nanoseconds; nothing runs in the background: the caller runs
    :meth:`flush_backoff_q_completed` every second and :meth:`flush_unschedulable_pods_leftover`
    every 30 seconds (upstream's ``Run``). ``pop`` never blocks: it returns None when there is
    nothing to pop.
    """

    def __init__(self, less: Callable[[Any, Any], bool], *, clock: VirtualClock | None = None,
                 pod_initial_backoff: int = DEFAULT_POD_INITIAL_BACKOFF_DURATION,
                 pod_max_backoff: int = DEFAULT_POD_MAX_BACKOFF_DURATION,
                 pod_max_in_unschedulable_pods_duration: int =
                 DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
                 pre_enqueue_plugins: Mapping[str, Mapping[str, Any]] | None = None,
                 queueing_hint_map: Mapping[str, QueueingHintMap] | None = None,
                 nominator: Nominator | None = None, pop_from_backoff_q: bool = True,
                 inc_attempts_on_pop: bool = True, signer: Callable[[Pod], Any] | None = None,
                 trace: list[dict[str, Any]] | None = None,
                 on_gated: Callable[[QueuedPodInfo, Status], None] | None = None,
                 release: ReleaseData = current.RELEASE,
                 pod_update_rule: ev.PodUpdateRule | None = None) -> None:
        self.clock = clock if clock is not None else VirtualClock()
        # preenqueue-skip-on-activate: does Activate of a backoffQ pod skip PreEnqueue?
        self.activate_skips_pre_enqueue = \
            release.behaviour("preenqueue-skip-on-activate") == "from-backoff-q"
        # nominate-gated-pod: does Add record the nomination of a pod PreEnqueue holds back?
        self.nominate_gated_pods = release.behaviour("nominate-gated-pod") == "always"
        # unschedulable-flush-timestamp: does the leftover flush count from the last flush too?
        self.flush_counts_from_flush = \
            release.behaviour("unschedulable-flush-timestamp") == "flush-time"
        # pod-update-scale-up and the PodRequests options: how Update classifies a pod update
        # (``release``'s gate defaults unless the caller gives the scheduler's)
        self.pod_update_rule = (pod_update_rule if pod_update_rule is not None
                                else ev.PodUpdateRule.for_release(release))
        # pod-event-resource: the names the release gives a pending pod's events (the labels
        # the attempts and the trace show), and the event of an update of a pod in no queue
        self.event_resource = release.behaviour("pod-event-resource")
        self.less = less
        self.pod_max_in_unschedulable_pods_duration = pod_max_in_unschedulable_pods_duration
        self.is_pop_from_backoff_q_enabled = pop_from_backoff_q
        self.backoff_q = BackoffQueue(self.clock, pod_initial_backoff, pod_max_backoff, less,
                                      pop_from_backoff_q)
        self.active_q = ActiveQueue(less, self.backoff_q if pop_from_backoff_q else None,
                                    inc_attempts_on_pop)
        self.unschedulable_pods = UnschedulablePods()
        self.pre_enqueue_plugin_map: dict[str, dict[str, Any]] = {
            k: dict(v) for k, v in (pre_enqueue_plugins or {}).items()}
        self.queueing_hint_map: dict[str, QueueingHintMap] = dict(queueing_hint_map or {})
        self.plugin_to_events_map = build_event_map(self.queueing_hint_map)
        self.nominator = nominator if nominator is not None else Nominator()
        self.signer = signer
        self.trace = trace
        self.on_gated = on_gated
        self._interest_cache: dict[ClusterEvent, bool] = {}
        self._hint_cache: dict[tuple[str, ClusterEvent], list[QueueingHintFunction]] = {}

    # ----- bookkeeping -----
    def _record(self, op: str, pod: Pod | None = None, **fields: Any) -> None:
        if self.trace is None:
            return
        rec: dict[str, Any] = {"time": to_seconds(self.clock.now()), "op": op}
        if pod is not None:
            rec["pod"] = pod.key
        rec.update(fields)
        self.trace.append(rec)

    def new_queued_pod_info(self, pod: Pod, *plugins: str) -> QueuedPodInfo:
        """``newQueuedPodInfo``: timestamp now, the given plugins as unschedulable plugins."""
        qpi = QueuedPodInfo(pod, self.clock.now(), unschedulable_plugins=set(plugins))
        qpi.stamp = next_stamp()
        if self.signer is not None:
            qpi.signature = self.signer(pod)
        return qpi

    def scheduling_cycle(self) -> int:
        """``SchedulingCycle``."""
        return self.active_q.scheduling_cycle()

    # ----- PreEnqueue -----
    def _run_pre_enqueue_plugins(self, qpi: QueuedPodInfo) -> None:
        """``runPreEnqueuePlugins`` / ``runPreEnqueuePluginsForPod``: the gating plugin first,
        then the others (in profile order; upstream: map order); the first rejection gates
        the pod and is added to its unschedulable plugins."""
        plugins = self.pre_enqueue_plugin_map.get(qpi.pod.scheduler_name, {})
        gating = qpi.gating_plugin
        if gating and gating in plugins:
            if self._run_pre_enqueue_plugin(plugins[gating], qpi) is not None:
                return
        for name, pl in plugins.items():
            if gating and name == gating:
                continue
            if self._run_pre_enqueue_plugin(pl, qpi) is not None:
                return
        qpi.gating_plugin = ""
        qpi.gating_plugin_events = ()
        qpi.gated = None

    def _run_pre_enqueue_plugin(self, pl: Any, qpi: QueuedPodInfo) -> Status | None:
        """``runPreEnqueuePlugin``: None on success; else the pod is gated by ``pl``."""
        s = pl.pre_enqueue(qpi.pod)
        if s is None or s.is_success():
            return None
        name = pl.name
        qpi.unschedulable_plugins.add(name)
        qpi.gating_plugin = name
        qpi.gating_plugin_events = tuple(self.plugin_to_events_map.get(name, ()))
        qpi.gated = s if s.plugin else s.clone().with_plugin(name)
        if self.on_gated is not None:
            self.on_gated(qpi, qpi.gated)
        return s

    # ----- moving between queues -----
    def _placed(self, qpi: QueuedPodInfo, queue: str, event: str) -> None:
        op = _TRACE_OPS.get(event, "move")
        event = ev.release_event_label(event, self.event_resource)
        if queue != UNSCHEDULABLE_Q and event not in (ev.BACKOFF_COMPLETE,
                                                      ev.SCHEDULE_ATTEMPT_FAILURE):
            qpi.moved_by = event
        self._record(op, qpi.pod, to=QUEUE_NAMES[queue], event=event)

    def move_to_active_q(self, qpi: QueuedPodInfo, event: str, moves_from_backoff_q: bool
                          ) -> bool:
        """``moveToActiveQ``: PreEnqueue (skipped for pods coming straight from backoffQ with
        PopFromBackoffQ), then activeQ, or the unschedulable pool when gated."""
        if not (self.is_pop_from_backoff_q_enabled and moves_from_backoff_q):
            self._run_pre_enqueue_plugins(qpi)
        if qpi.is_gated():
            qpi.was_flushed_from_unschedulable = False
            self.unschedulable_pods.add_or_update(qpi)
            self._placed(qpi, UNSCHEDULABLE_Q, event)
            return False
        if qpi.initial_attempt_timestamp is None:
            qpi.initial_attempt_timestamp = self.clock.now()
        self.unschedulable_pods.delete(qpi)
        self.active_q.add(qpi)
        self._placed(qpi, ACTIVE_Q, event)
        return True

    def move_to_backoff_q(self, qpi: QueuedPodInfo, event: str) -> bool:
        """``moveToBackoffQ``: with PopFromBackoffQ, PreEnqueue runs here (gated pods go to the
        unschedulable pool)."""
        if self.is_pop_from_backoff_q_enabled:
            self._run_pre_enqueue_plugins(qpi)
            if qpi.is_gated():
                qpi.was_flushed_from_unschedulable = False
                self.unschedulable_pods.add_or_update(qpi)
                self._placed(qpi, UNSCHEDULABLE_Q, event)
                return False
        self.unschedulable_pods.delete(qpi)
        self.backoff_q.add(qpi)
        self._placed(qpi, BACKOFF_Q, event)
        return True

    def requeue_entity_with_queueing_strategy(self, qpi: QueuedPodInfo, strategy: int,
                                              event: str) -> str:
        """``requeueEntityWithQueueingStrategy``: the queue the pod went to."""
        if strategy == QUEUE_SKIP:
            already = self.unschedulable_pods.get(qpi) is not None
            self.unschedulable_pods.add_or_update(qpi)
            if not already:
                self._placed(qpi, UNSCHEDULABLE_Q, event)
            return UNSCHEDULABLE_Q
        if strategy == QUEUE_AFTER_BACKOFF and self.backoff_q.is_entity_backing_off(qpi):
            if self.move_to_backoff_q(qpi, event):
                return BACKOFF_Q
            return UNSCHEDULABLE_Q
        if self.move_to_active_q(qpi, event, False):
            return ACTIVE_Q
        return UNSCHEDULABLE_Q

    # ----- the SchedulingQueue interface -----
    def add(self, pod: Pod, event: str = ev.EVENT_UNSCHEDULED_POD_ADD.label()) -> None:
        """``Add``: a new pending pod; its nomination (status.nominatedNodeName) is recorded
        even when it is gated (``addPod``). v1.34.4–v1.36.3 record it only when the pod enters
        activeQ (``moveToActiveQ``, for the UnscheduledPodAdd and UnscheduledPodUpdate
        events; switch nominate-gated-pod). ``event``: the label it enters with."""
        qpi = self.new_queued_pod_info(pod)
        if self.nominate_gated_pods:
            self.nominator.add_nominated_pod(PodInfo(pod), None)
            self.move_to_active_q(qpi, event, False)
        elif self.move_to_active_q(qpi, event, False):
            self.nominator.add_nominated_pod(PodInfo(pod), None)

    def activate(self, pods: Mapping[str, Pod]) -> None:
        """``Activate``: move the pods from the unschedulable pool or backoffQ to activeQ; an
        in-flight pod gets a ForceActivate event for when it comes back."""
        for pod in pods.values():
            if self._activate(pod.key):
                continue
            self.active_q.add_events_if_pod_in_flight(None, pod, [ev.EVENT_FORCE_ACTIVATE])

    def _activate(self, key: str) -> bool:
        """``activate``: a pod taken out of the backoffQ skips PreEnqueue (with
        PopFromBackoffQ) from v1.35 (``movesFromBackoffQ``); v1.34.4's ``moveToActiveQ``
        skips it only for the BackoffComplete event (switch preenqueue-skip-on-activate,
        ``pkg/scheduler/backend/queue/scheduling_queue.go`` of each release)."""
        qpi = self.unschedulable_pods.get(key)
        moves_from_backoff_q = False
        if qpi is None:
            qpi = self.backoff_q.delete(key)
            if qpi is None:
                return False
            moves_from_backoff_q = self.activate_skips_pre_enqueue
        return self.move_to_active_q(qpi, ev.FORCE_ACTIVATE, moves_from_backoff_q)

    def pop(self) -> QueuedPodInfo | None:
        """``Pop`` without blocking: the head of activeQ, or (PopFromBackoffQ) of backoffQ;
        None when neither has a pod. The pod is in flight until :meth:`done`."""
        qpi, source = self.active_q.pop()
        if qpi is None:
            return None
        qpi.popped_from = QUEUE_NAMES[source]
        attempt = qpi.attempts if self.active_q.inc_attempts_on_pop else qpi.attempts + 1
        self._record("pop", qpi.pod, **{"from": qpi.popped_from}, attempt=attempt)
        return qpi

    def done(self, uid: str) -> None:
        """``Done``: the pod's attempt is over."""
        self.active_q.done(uid)

    def determine_scheduling_hint_for_in_flight_pod(self, qpi: QueuedPodInfo
                                                    ) -> tuple[int, str]:
        """``determineSchedulingHintForInFlightPod``: replay the events received while the pod
        was in flight; also returns the label of the deciding event."""
        if not qpi.unschedulable_plugins and not qpi.pending_plugins:
            return QUEUE_AFTER_BACKOFF, ev.SCHEDULE_ATTEMPT_FAILURE
        events = self.active_q.cluster_events_for_pod(qpi.pod)
        if events is None:
            return QUEUE_AFTER_BACKOFF, ev.SCHEDULE_ATTEMPT_FAILURE
        strategy, label = QUEUE_SKIP, ev.SCHEDULE_ATTEMPT_FAILURE
        for e in events:
            s = self.is_pod_worth_requeuing(qpi, e.event, e.old_obj, e.new_obj)
            if s == QUEUE_SKIP:
                continue
            if s == QUEUE_IMMEDIATELY:
                return QUEUE_IMMEDIATELY, e.event.label()
            if strategy == QUEUE_SKIP:
                label = e.event.label()
            strategy = QUEUE_AFTER_BACKOFF
            if not qpi.pending_plugins:
                return QUEUE_AFTER_BACKOFF, label
        return strategy, label

    def add_unschedulable_if_not_present(self, qpi: QueuedPodInfo, scheduling_cycle: int = 0
                                         ) -> str | None:
        """``AddUnschedulablePodIfNotPresent``: count the failure (unschedulable or error),
        refresh the timestamp, and requeue per the events seen in flight. Returns an error
        message when the pod is already queued. Done is called in any case."""
        try:
            pod = qpi.pod
            if self.unschedulable_pods.get(qpi) is not None:
                return f"Pod {pod.key} is already present in unschedulable queue"
            if self.active_q.has(qpi):
                return f"Pod {pod.key} is already present in the active queue"
            if self.backoff_q.has(qpi):
                return f"Pod {pod.key} is already present in the backoff queue"
            if not qpi.unschedulable_plugins and not qpi.pending_plugins:
                qpi.consecutive_errors_count += 1
            else:
                qpi.unschedulable_count += 1
                qpi.consecutive_errors_count = 0
            qpi.set_timestamp(self.clock.now())
            qpi.backoff_expiration = None
            qpi.was_flushed_from_unschedulable = False
            qpi.flush_timestamp = None
            strategy, label = self.determine_scheduling_hint_for_in_flight_pod(qpi)
            queue = self.requeue_entity_with_queueing_strategy(
                qpi, strategy, ev.SCHEDULE_ATTEMPT_FAILURE)
            if queue != UNSCHEDULABLE_Q:
                qpi.moved_by = label
            return None
        finally:
            self.done(qpi.pod.uid)

    def flush_backoff_q_completed(self) -> None:
        """``flushBackoffQCompleted``: pods whose backoff is over go to activeQ (PreEnqueue
        is not run again with PopFromBackoffQ)."""
        for qpi in self.backoff_q.pop_all_backoff_completed():
            self.move_to_active_q(qpi, ev.BACKOFF_COMPLETE, True)

    def _last_queue_time(self, qpi: QueuedPodInfo) -> int:
        """What the unschedulable-pods flush counts from: the pod's timestamp (its last
        attempt, or its creation), or the later of that and its last flush (v1.37.2's
        ``FlushTimestamp``; switch unschedulable-flush-timestamp)."""
        last = int(qpi.timestamp)  # virtual-clock nanoseconds (the base class says float)
        if (self.flush_counts_from_flush and qpi.flush_timestamp is not None
                and qpi.flush_timestamp > last):
            last = qpi.flush_timestamp
        return last

    def flush_unschedulable_pods_leftover(self) -> None:
        """``flushUnschedulableEntitiesLeftover``: pods that stayed in the pool longer than
        podMaxInUnschedulablePodsDuration since their last attempt (or, from v1.37.2, last
        flush) get the UnschedulableTimeout (wildcard) event. v1.34.4-v1.36.3
        (``flushUnschedulablePodsLeftover``) count from ``Timestamp`` alone, so a pod that
        comes back to the pool without an attempt (PreEnqueue gates it again) is flushed at
        every flush tick once it is old enough."""
        now = self.clock.now()
        to_move = []
        for qpi in self.unschedulable_pods:
            if now - self._last_queue_time(qpi) > self.pod_max_in_unschedulable_pods_duration:
                qpi.was_flushed_from_unschedulable = True
                qpi.flush_timestamp = now
                to_move.append(qpi)
        if to_move:
            self.move_entities_to_active_or_backoff_queue(
                to_move, ev.EVENT_UNSCHEDULABLE_TIMEOUT, None, None)

    def update(self, old_pod: Pod, new_pod: Pod) -> None:
        """``Update``: an update of a pending pod. In flight: recorded as its events; in
        activeQ/backoffQ: replaced; in the pool: replaced and requeued when a TargetPod hint
        says so; elsewhere: added (v1.34.4-v1.36.3: as an UnschedulablePodUpdate)."""
        events = ev.pod_scheduling_properties_change(new_pod, old_pod, True,
                                                     self.pod_update_rule)
        key = old_pod.key
        if self.active_q.add_events_if_pod_in_flight(old_pod, new_pod, events):
            return
        for q in (self.active_q, self.backoff_q):
            qpi = q.update(new_pod, key)
            if qpi is not None:
                update_nominated_pod(self.nominator, old_pod, new_pod)
                self._sign(qpi)
                self._record("update", new_pod, to="activeQ" if q is self.active_q
                             else "backoffQ")
                return
        qpi = self.unschedulable_pods.get(key)
        if qpi is not None:
            qpi.update(new_pod)
            update_nominated_pod(self.nominator, old_pod, new_pod)
            self._sign(qpi)
            for e in events:
                hint = self.is_pod_worth_requeuing(qpi, e, old_pod, new_pod)
                queue = self.requeue_entity_with_queueing_strategy(qpi, hint, e.label())
                if queue == ACTIVE_Q or (self.is_pop_from_backoff_q_enabled
                                         and queue == BACKOFF_Q):
                    break
            return
        # in no queue: v1.37.2 calls addPod (UnscheduledPodAdd), v1.34.4-v1.36.3 move a new
        # QueuedPodInfo to activeQ with EventUnscheduledPodUpdate (``Update``,
        # backend/queue/scheduling_queue.go; switch pod-event-resource)
        if self.event_resource == ev.EVENT_RESOURCE_UNSCHEDULABLE_POD:
            self.add(new_pod, ev.EVENT_UNSCHEDULED_POD_UPDATE.label())
        else:
            self.add(new_pod)

    def _sign(self, qpi: QueuedPodInfo) -> None:
        if self.signer is not None:
            qpi.signature = self.signer(qpi.pod)

    def delete(self, pod: Pod) -> None:
        """``Delete``: drop the nomination and the pod from whichever queue holds it."""
        self.nominator.delete(pod)
        key = pod.key
        if (self.active_q.delete(key) is not None or self.backoff_q.delete(key) is not None):
            self._record("delete", pod)
            return
        if self.unschedulable_pods.get(key) is not None:
            self.unschedulable_pods.delete(key)
            self._record("delete", pod)

    # ----- cluster events -----
    def is_event_of_interest(self, event: ClusterEvent) -> bool:
        """``isEventOfInterest``: a wildcard, or an event some profile's plugin registered."""
        cached = self._interest_cache.get(event)
        if cached is not None:
            return cached
        ok = ev.cluster_event_is_wildcard(event) or any(
            ev.match_cluster_events(registered, event)
            for hint_map in self.queueing_hint_map.values() for registered in hint_map)
        self._interest_cache[event] = ok
        return ok

    def _hints_for(self, profile: str, event: ClusterEvent) -> list[QueueingHintFunction]:
        key = (profile, event)
        fns = self._hint_cache.get(key)
        if fns is None:
            hint_map = self.queueing_hint_map.get(profile, {})
            fns = [qh for registered, lst in hint_map.items()
                   if ev.match_cluster_events(registered, event) for qh in lst]
            self._hint_cache[key] = fns
        return fns

    def is_pod_worth_requeuing(self, qpi: QueuedPodInfo, event: ClusterEvent, old_obj: Any,
                               new_obj: Any) -> int:
        """``isPodWorthRequeuing``: ask the hints of the plugins that rejected the pod; Queue
        from a Pending plugin means queueImmediately, from an unschedulable plugin
        queueAfterBackoff; a hint error counts as Queue."""
        rejectors = qpi.unschedulable_plugins | qpi.pending_plugins
        if not rejectors:
            return QUEUE_AFTER_BACKOFF
        if ev.cluster_event_is_wildcard(event):
            if new_obj is not None:
                if not isinstance(new_obj, Pod) or new_obj.uid != qpi.pod.uid:
                    return QUEUE_SKIP
            return QUEUE_AFTER_BACKOFF
        profile = qpi.pod.scheduler_name
        if profile not in self.queueing_hint_map:
            return QUEUE_AFTER_BACKOFF
        strategy = QUEUE_SKIP
        pod = qpi.pod
        for qh in self._hints_for(profile, event):
            if qh.plugin_name not in rejectors:
                continue
            hint, err = qh(pod, old_obj, new_obj)
            if err is not None:
                hint = ev.QUEUE
            if hint == ev.QUEUE_SKIP:
                continue
            if qh.plugin_name in qpi.pending_plugins:
                return QUEUE_IMMEDIATELY
            if not qpi.pending_plugins:
                return QUEUE_AFTER_BACKOFF
            strategy = QUEUE_AFTER_BACKOFF
        return strategy

    def move_all_to_active_or_backoff_queue(self, event: ClusterEvent, old_obj: Any = None,
                                            new_obj: Any = None,
                                            pre_check: Callable[[Pod], bool] | None = None
                                            ) -> None:
        """``MoveAllToActiveOrBackoffQueue``: offer the event to every pod of the unschedulable
        pool that passes ``pre_check``."""
        if not self.is_event_of_interest(event):
            return
        entities = [qpi for qpi in self.unschedulable_pods
                    if pre_check is None or pre_check(qpi.pod)]
        self.move_entities_to_active_or_backoff_queue(entities, event, old_obj, new_obj)

    def move_entities_to_active_or_backoff_queue(self, entities: list[QueuedPodInfo],
                                                 event: ClusterEvent, old_obj: Any,
                                                 new_obj: Any) -> None:
        """``moveEntitiesToActiveOrBackoffQueue``: requeue the pods the event may help (gated
        pods only for their gating plugin's events or a wildcard), then record the event for
        the pods in flight."""
        if not self.is_event_of_interest(event):
            return
        wildcard = ev.cluster_event_is_wildcard(event)
        label = event.label()
        for qpi in entities:
            if (qpi.is_gated() and not wildcard
                    and not ev.match_any_cluster_event(event, qpi.gating_plugin_events)):
                continue
            hint = self.is_pod_worth_requeuing(qpi, event, old_obj, new_obj)
            if hint == QUEUE_SKIP:
                continue
            self.unschedulable_pods.delete(qpi)
            self.requeue_entity_with_queueing_strategy(qpi, hint, label)
        self.active_q.add_event_if_any_in_flight(old_obj, new_obj, event)

    # ----- inspection -----
    def pods_in_active_q(self) -> list[Pod]:
        return self.active_q.list()

    def pods_in_backoff_q(self) -> list[Pod]:
        return self.backoff_q.list()

    def unschedulable_pod_list(self) -> list[Pod]:
        return [qpi.pod for qpi in self.unschedulable_pods]

    def in_flight_pods(self) -> list[Pod]:
        return self.active_q.list_in_flight_pods()

    def pending_pods(self) -> tuple[list[Pod], str]:
        """``PendingPods``: every queued pod and the summary string."""
        active = self.pods_in_active_q()
        backoff = self.pods_in_backoff_q()
        unsched = self.unschedulable_pod_list()
        return (active + backoff + unsched,
                f"activeQ:{len(active)}; backoffQ:{len(backoff)}; "
                f"unschedulableEntities:{len(unsched)}")

    def get_pod(self, name: str, namespace: str) -> QueuedPodInfo | None:
        """``GetPod``: the queued pod info in activeQ, backoffQ or the pool."""
        key = f"{namespace}/{name}"
        return (self.active_q.get(key) or self.backoff_q.get(key)
                or self.unschedulable_pods.get(key))

    def where(self, key: str) -> str:
        """Which queue holds the pod: "activeQ", "backoffQ", "unschedulablePods", "inFlight"
        or ""."""
        if self.active_q.has(key):
            return "activeQ"
        if self.backoff_q.has(key):
            return "backoffQ"
        if self.unschedulable_pods.get(key) is not None:
            return "unschedulablePods"
        if any(p.key == key for p in self.active_q.list_in_flight_pods()):
            return "inFlight"
        return ""

    def next_leftover_flush_due(self) -> int | None:
        """The earliest virtual time after which some pod of the pool would be flushed by
        ``flush_unschedulable_pods_leftover`` (None when the pool is empty)."""
        best: int | None = None
        for qpi in self.unschedulable_pods:
            due = self._last_queue_time(qpi) + self.pod_max_in_unschedulable_pods_duration
            if best is None or due < best:
                best = due
        return best


def profile_pre_enqueue_plugins(fwk: Any) -> dict[str, Any]:
    """The PreEnqueue plugins of a framework by name (``preEnqueuePluginMap`` of a profile)."""
    return {pl.name: pl for pl in fwk.pre_enqueue_plugins}


def profile_queueing_hint_map(fwk: Any, generic_workload: bool = False) -> QueueingHintMap:
    """The queueing hint map of a framework's enqueue extensions (every instantiated plugin)."""
    taint_fallback = fwk.handle.behaviour("node-taint-hint-fallback") == "add-implies-taint"
    return build_queueing_hint_map(fwk.instances.values(), generic_workload, taint_fallback)


__all__ = [
    "DEFAULT_POD_INITIAL_BACKOFF_DURATION", "DEFAULT_POD_MAX_BACKOFF_DURATION",
    "DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION", "PriorityQueue", "QUEUE_AFTER_BACKOFF",
    "QUEUE_IMMEDIATELY", "QUEUE_SKIP", "QueuedPodInfo", "QueueingHintFunction",
    "QueueingHintMap", "build_event_map", "build_queueing_hint_map",
    "profile_pre_enqueue_plugins", "profile_queueing_hint_map", "update_nominated_pod",
]
