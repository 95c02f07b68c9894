"""The scheduling queue, restating upstream's own cases.

Sources (v1.37.2): ``pkg/scheduler/backend/queue/scheduling_queue_test.go``,
``pkg/scheduler/backend/queue/backoff_queue_test.go``, ``pkg/scheduler/framework/events_test.go``
and ``pkg/scheduler/framework/types_test.go``. Upstream's test profile is "" (pods without a
schedulerName); the model defaults schedulerName, so the maps here are keyed by
"default-scheduler". Times are virtual-clock nanoseconds; the fake clock starts at an instant
that is not a whole second, as upstream's ``time.Now()``.
"""

from __future__ import annotations

import dataclasses

import pytest

from reference_impl.framework.status import Code, Status
from reference_impl.model.objects import DEFAULT_SCHEDULER_NAME, Taint
from reference_impl.plugins.queuesort import PrioritySort
from reference_impl.scheduler.clock import MINUTE, SECOND, VirtualClock
from reference_impl.scheduler.queue import events as ev
from reference_impl.scheduler.queue.backoff_queue import ZERO_TIME, BackoffQueue
from reference_impl.scheduler.queue.events import ClusterEvent
from reference_impl.scheduler.queue.scheduling_queue import (
    DEFAULT_POD_MAX_BACKOFF_DURATION,
    DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    QUEUE_AFTER_BACKOFF,
    QUEUE_IMMEDIATELY,
    QUEUE_SKIP,
    PriorityQueue,
    QueuedPodInfo,
    QueueingHintFunction,
    build_queueing_hint_map,
    next_stamp,
)
from reference_impl.testing.wrappers import make_node, make_pod

NODE = {"cpu": "4", "memory": "32Gi", "pods": 110}
PROFILE = DEFAULT_SCHEDULER_NAME
LESS = PrioritySort().less
T0 = 1_700_000_000 * SECOND + 123_456_789  # not aligned to a second, like time.Now()
T_ALIGNED = 1_696_118_400 * SECOND  # time.Date(2023, 10, 1, 0, 0, 0, 0, time.UTC)

NODE_ADD = ClusterEvent(ev.NODE, ev.ADD)
PV_ADD = ClusterEvent(ev.PERSISTENT_VOLUME, ev.ADD)

LOW, MID, HIGH = 0, 100, 1000
MEDIUM = (LOW + HIGH) // 2


def mk(name: str, ns: str = "default", priority: int = 0, uid: str | None = None,
       nominated: str = "", labels: dict[str, str] | None = None,
       annotations: dict[str, str] | None = None, gates: tuple[str, ...] = ()):
    p = make_pod(name).namespace(ns).uid(uid or name + ns).labels(labels or {}) \
        .annotations(annotations or {}).priority(priority)
    if nominated:
        p.nominated_node_name(nominated)
    if gates:
        p.scheduling_gates(*gates)
    return p.obj()


# The shared pods of scheduling_queue_test.go.
HPP = mk("hpp", "ns1", HIGH, uid="hppns1")
MPP = mk("mpp", "ns2", MEDIUM, uid="mppns2", nominated="node1", annotations={"annot2": "val2"})
UP = mk("up", "ns1", LOW, uid="upns1", nominated="node1", annotations={"annot2": "val2"})


def clone(pod, name: str):
    """``clonePod``."""
    return dataclasses.replace(pod, name=name, uid=name + pod.namespace)


def queue(**kw) -> PriorityQueue:
    kw.setdefault("clock", VirtualClock(T0))
    return PriorityQueue(LESS, **kw)


def hint_map(entries: dict[ClusterEvent, list[tuple[str, object]]]) -> dict:
    return {PROFILE: {e: [QueueingHintFunction(name, fn) for name, fn in fns]
                      for e, fns in entries.items()}}


def queue_hint_return_queue(pod, old, new):
    return ev.QUEUE, None


def queue_hint_return_skip(pod, old, new):
    return ev.QUEUE_SKIP, None


def pop(q: PriorityQueue, want=None) -> QueuedPodInfo:
    qpi = q.pop()
    assert qpi is not None, "nothing to pop"
    if want is not None:
        assert qpi.pod.key == want.key
    return qpi


def in_flight_uids(q: PriorityQueue) -> list[str]:
    return sorted(p.uid for p in q.in_flight_pods())


def qpi_of(q: PriorityQueue, pod, *plugins: str) -> QueuedPodInfo:
    """``q.newQueuedPodInfo(ctx, pod, plugins...)``."""
    return q.new_queued_pod_info(pod, *plugins)


def qpi_with(pod, timestamp: int, **params) -> QueuedPodInfo:
    qpi = QueuedPodInfo(pod, timestamp, **params)
    qpi.stamp = next_stamp()
    return qpi


# --- backoff_queue_test.go -----------------------------------------------------------------

@pytest.mark.parametrize("initial,maximum,params,want", [
    # TestBackoffQueue_getBackoffTime
    (SECOND, 32 * SECOND, {"unschedulable_count": 0}, ZERO_TIME),  # no backoff
    (SECOND, 32 * SECOND, {"unschedulable_count": 1, "backoff_expiration": T_ALIGNED + 1},
     T_ALIGNED + 1),  # backoff is returned from the cache
    (SECOND, 32 * SECOND, {"unschedulable_count": 16}, T_ALIGNED + 32 * SECOND),
    (SECOND, 32 * SECOND, {"unschedulable_count": 5, "consecutive_errors_count": 16},
     T_ALIGNED + 32 * SECOND),  # backoff is calculated with ConsecutiveErrorsCount
    (0, 0, {"unschedulable_count": 16}, ZERO_TIME),  # zero maxBackoffDuration: no backoff
])
def test_backoff_queue_get_backoff_time(initial, maximum, params, want):
    bq = BackoffQueue(VirtualClock(T_ALIGNED), initial, maximum, LESS, True)
    qpi = qpi_with(mk("p"), T_ALIGNED, **params)
    assert bq.get_backoff_time(qpi) == want


@pytest.mark.parametrize("initial,maximum,count,size,want", [
    # TestBackoffQueue_calculateBackoffDuration (durations in nanoseconds)
    (1, 32, 0, 1, 0),  # no backoff
    (3, 1000, 5, 1, 48),  # normal: 3 * 2^4
    (1, 32, 16, 1, 32),  # hitting max backoff duration
    (1, (1 << 31) - 1, 32, 1, (1 << 31) - 1),  # overflow_32bit
    (1, (1 << 63) - 1, 64, 1, (1 << 63) - 1),  # overflow_64bit
    (1, 32, 7, 10, 64),  # larger entity size
    (1, 32, 16, 10, 101),  # hitting max backoff duration with larger entity size
])
def test_backoff_queue_calculate_backoff_duration(initial, maximum, count, size, want):
    bq = BackoffQueue(VirtualClock(), initial, maximum, LESS, True)
    assert bq.calculate_backoff_duration(count, size) == want


def _pop_all_pod_infos() -> dict[str, QueuedPodInfo]:
    return {
        "pod0": qpi_with(mk("pod0"), T0 - 2 * SECOND, unschedulable_count=1,
                         unschedulable_plugins={"plugin"}),
        "pod1": qpi_with(mk("pod1"), T0 + SECOND, unschedulable_count=1,
                         unschedulable_plugins={"plugin"}),
        "pod2": qpi_with(mk("pod2"), T0 - 2 * SECOND, consecutive_errors_count=1),
        "pod3": qpi_with(mk("pod3"), T0 + SECOND, consecutive_errors_count=1),
    }


@pytest.mark.parametrize("pop_from_backoff_q", [True, False])
@pytest.mark.parametrize("in_backoff,want", [
    # TestBackoffQueue_popAllBackoffCompleted
    ([], []),  # Both queues empty, no pods moved to activeQ
    (["pod0", "pod1"], ["pod0"]),  # Pods only in backoffQ, some pods moved to activeQ
    (["pod2", "pod3"], ["pod2"]),  # Pods only in errorBackoffQ, some pods moved to activeQ
    (["pod0", "pod1", "pod2", "pod3"], ["pod0", "pod2"]),  # both queues, some moved
    (["pod0", "pod2"], ["pod0", "pod2"]),  # both queues, all moved
    (["pod1", "pod3"], []),  # both queues, none moved
])
def test_backoff_queue_pop_all_backoff_completed(pop_from_backoff_q, in_backoff, want):
    infos = _pop_all_pod_infos()
    bq = BackoffQueue(VirtualClock(T0), SECOND, 10 * SECOND, LESS, pop_from_backoff_q)
    for name in in_backoff:
        bq.add(infos[name])
    got = [qpi.pod.name for qpi in bq.pop_all_backoff_completed()]
    assert got == want
    assert len(bq) == len(in_backoff) - len(want)


@pytest.mark.parametrize("pop_from_backoff_q,want", [
    # TestBackoffQueueOrdering
    (True, ["pod5", "pod4", "pod2", "pod3"]),  # same window ordered by priority
    (False, ["pod5", "pod3", "pod4", "pod2"]),  # priority doesn't matter
])
def test_backoff_queue_ordering(pop_from_backoff_q, want):
    now = T0 - T0 % SECOND  # aligned with the ordering window
    specs = [("pod0", 1, now), ("pod1", 1, now - SECOND),
             ("pod2", 2, now - 2 * SECOND + 1_000_000), ("pod3", 1, now - 2 * SECOND),
             ("pod4", 2, now - 2 * SECOND), ("pod5", 1, now - 3 * SECOND)]
    bq = BackoffQueue(VirtualClock(now), SECOND, 10 * SECOND, LESS, pop_from_backoff_q)
    for name, prio, ts in specs:
        bq.add(qpi_with(mk(name, priority=prio), ts, attempts=1, unschedulable_count=1,
                        unschedulable_plugins={"plugin"}))
    assert [qpi.pod.name for qpi in bq.pop_all_backoff_completed()] == want


# --- scheduling_queue_test.go: backoff, pop, requeue -------------------------------------

@pytest.mark.parametrize("pop_from_backoff_q", [True, False])
def test_backoff_flow(pop_from_backoff_q):
    """TestBackOffFlow: 1s, 2s, 4s, 8s, then the 10s cap."""
    clock = VirtualClock(T0)
    q = queue(clock=clock, pop_from_backoff_q=pop_from_backoff_q)
    p = mk("test-pod", "test-ns", uid="test-uid")
    q.add(p)
    for i, want in enumerate([1, 2, 4, 8, 10, 10, 10]):
        timestamp = clock.now()
        qpi = pop(q)
        assert qpi.attempts == i + 1
        qpi.unschedulable_plugins.add("unsched-plugin")
        assert q.add_unschedulable_if_not_present(qpi, i) is None
        # An event happens.
        q.move_all_to_active_or_backoff_queue(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
        assert q.backoff_q.has(qpi)
        backoff = qpi.backoff_expiration - timestamp
        if pop_from_backoff_q:
            backoff = backoff - backoff % SECOND + SECOND
        assert backoff == want * SECOND
        clock.step(SECOND)
        q.flush_backoff_q_completed()
        assert q.backoff_q.has(qpi), "still in the backoff queue after an early flush"
        clock.step(backoff)
        q.flush_backoff_q_completed()
        assert not q.backoff_q.has(qpi), "moved out of the backoff queue after the timeout"


def test_move_all_to_active_or_backoff_queue():
    """TestPriorityQueue_MoveAllToActiveOrBackoffQueue."""
    clock = VirtualClock(T0)
    q = queue(clock=clock, queueing_hint_map=hint_map(
        {NODE_ADD: [("fooPlugin", queue_hint_return_queue)]}))
    q.add(UP)
    pop(q, UP)
    assert in_flight_uids(q) == ["upns1"]
    q.add(HPP)
    pop(q, HPP)
    assert in_flight_uids(q) == ["hppns1", "upns1"]
    assert q.add_unschedulable_if_not_present(qpi_of(q, UP, "fooPlugin")) is None
    assert q.add_unschedulable_if_not_present(qpi_of(q, HPP, "fooPlugin")) is None
    assert in_flight_uids(q) == []
    # A pod whose failure is not associated with any plugin goes to backoffQ.
    hpp1 = clone(HPP, "hpp1")
    q.add(hpp1)
    pop(q, hpp1)
    info = qpi_of(q, hpp1)
    info.unschedulable_count += 1
    assert q.add_unschedulable_if_not_present(info) is None
    # hpp2 is rejected by barPlugin: it goes to the unschedulable pool.
    hpp2 = clone(HPP, "hpp2")
    q.add(hpp2)
    pop(q, hpp2)
    assert q.add_unschedulable_if_not_present(qpi_of(q, hpp2, "barPlugin")) is None
    # NodeAdd moves up and hpp (fooPlugin's hint) to backoffQ.
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    q.add(MPP)
    assert len(q.active_q) == 1
    pop(q, MPP)
    assert in_flight_uids(q) == ["mppns2"]
    assert len(q.backoff_q) == 3, "hpp2 is not moved"
    # Popping the backoffQ does not make the pods in flight.
    clock.step(DEFAULT_POD_MAX_BACKOFF_DURATION)
    q.backoff_q.pop_all_backoff_completed()
    assert in_flight_uids(q) == ["mppns2"]
    for p in (UP, HPP, hpp1):
        q.add(p)
        pop(q, p)
    assert in_flight_uids(q) == sorted(["mppns2", "upns1", "hppns1", "hpp1ns1"])
    up_info, hpp_info, hpp1_info = (qpi_of(q, UP, "fooPlugin"), qpi_of(q, HPP, "fooPlugin"),
                                    qpi_of(q, hpp1))
    assert q.add_unschedulable_if_not_present(up_info) is None
    assert in_flight_uids(q) == sorted(["mppns2", "hppns1", "hpp1ns1"])
    assert q.add_unschedulable_if_not_present(hpp_info) is None
    assert in_flight_uids(q) == sorted(["mppns2", "hpp1ns1"])
    assert q.add_unschedulable_if_not_present(hpp1_info) is None
    assert in_flight_uids(q) == ["mppns2"]
    q.add(MPP)
    for p in (UP, HPP, hpp2):
        assert q.unschedulable_pods.get(p.key) is not None
    assert q.backoff_q.has(hpp1_info)
    assert len(q.active_q) == 1
    # After podMaxBackoffDuration the pods in the pool are past their backoff: activeQ.
    clock.step(DEFAULT_POD_MAX_BACKOFF_DURATION)
    q.flush_backoff_q_completed()
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert len(q.active_q) == 4
    assert len(q.backoff_q) == 0
    assert in_flight_uids(q) == ["mppns2"]
    assert len(q.unschedulable_pods) == 1, "hpp2 is never moved"


def test_add_unschedulable_if_not_present_backoff():
    """TestPriorityQueue_AddUnschedulablePodIfNotPresent_Backoff: a move request while pods
    are in flight sends them to backoffQ when they come back."""
    q = queue()
    pods = [mk(f"pod{i}", f"ns{i}", i, uid=f"upns{i}") for i in range(10)]
    for p in pods:
        q.add(p)
    for i in range(9, 0, -1):
        pop(q, pods[i])
    q.move_all_to_active_or_backoff_queue(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    cycle = q.scheduling_cycle()
    pop(q, pods[0])
    for i in range(1, 10):
        assert q.add_unschedulable_if_not_present(qpi_of(q, pods[i], "plugin"), cycle) is None
    for i in range(1, 10):
        assert q.backoff_q.has(pods[i].key), pods[i].name


def test_add_unschedulable_if_not_present():
    """TestPriorityQueue_AddUnschedulablePodIfNotPresent: no event in flight: the pool."""
    q = queue()
    hpp_nominated = mk("hpp", "ns1", HIGH, uid="hppns1", nominated="node1")
    q.add(UP)
    pop(q, UP)
    q.add(hpp_nominated)
    assert q.add_unschedulable_if_not_present(qpi_of(q, UP, "plugin")) is None
    pop(q, hpp_nominated)
    assert len(q.nominator.nominated_pods) == 1
    assert q.unschedulable_pods.get(UP.key).pod is UP


def test_add_unschedulable_if_not_present_rejects_queued_pod():
    q = queue()
    q.add(UP)
    msg = q.add_unschedulable_if_not_present(qpi_of(q, UP, "plugin"))
    assert msg == "Pod ns1/up is already present in the active queue"


def test_pop_preserves_pending_plugins():
    """TestPop: a Pending plugin's Queue means queueImmediately."""
    q = queue(queueing_hint_map=hint_map({PV_ADD: [("fooPlugin1", queue_hint_return_queue)]}))
    p = mk("targetpod", uid="pod1")
    q.add(p)
    popped = pop(q, p)
    popped.pending_plugins = {"fooPlugin1"}
    assert q.add_unschedulable_if_not_present(popped) is None
    q.move_all_to_active_or_backoff_queue(PV_ADD)
    assert q.where(p.key) == "activeQ"
    popped = pop(q, p)
    assert popped.pending_plugins == {"fooPlugin1"}


@pytest.mark.parametrize("pop_from_backoff_q,want", [
    # TestPriorityQueue_Pop (individual pods)
    (True, ["mpp", "hpp"]),  # pops from both activeQ and backoffQ
    (False, ["mpp"]),  # pops only from activeQ
])
def test_pop_from_backoff_q(pop_from_backoff_q, want):
    q = queue(pop_from_backoff_q=pop_from_backoff_q)
    hpp2 = mk("hpp2", "ns1", HIGH, uid="hpp2ns1")
    q.active_q.add(qpi_of(q, MPP))
    q.backoff_q.add(qpi_of(q, HPP, "plugin"))
    q.backoff_q.add(qpi_of(q, hpp2))  # no plugin: the error backoffQ, never popped early
    q.unschedulable_pods.add_or_update(qpi_of(q, UP, "plugin"))
    got = []
    while (qpi := q.pop()) is not None:
        got.append(qpi.pod.name)
    assert got == want


def test_high_priority_backoff():
    """TestHighPriorityBackoff: the failed high-priority pod waits in backoffQ."""
    q = queue()
    mid = mk("test-midpod", "ns1", MID, uid="tp-mid", nominated="node1")
    high = mk("test-highpod", "ns1", HIGH, uid="tp-high", nominated="node1")
    q.add(mid)
    q.add(high)
    p = pop(q, high)
    assert q.add_unschedulable_if_not_present(qpi_of(q, p.pod, "fooPlugin")) is None
    q.move_all_to_active_or_backoff_queue(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    pop(q, mid)


def test_high_priority_flush_unschedulable_pods_leftover():
    """TestHighPriorityFlushUnschedulableEntitiesLeftover."""
    clock = VirtualClock(T0)
    q = queue(clock=clock, queueing_hint_map=hint_map(
        {NODE_ADD: [("fakePlugin", queue_hint_return_queue)]}))
    mid = mk("test-midpod", "ns1", MID, uid="tp-mid", nominated="node1")
    high = mk("test-highpod", "ns1", HIGH, uid="tp-high", nominated="node1")
    q.add(high)
    pop(q, high)
    q.add(mid)
    pop(q, mid)
    assert q.add_unschedulable_if_not_present(qpi_of(q, high, "fakePlugin")) is None
    assert q.add_unschedulable_if_not_present(qpi_of(q, mid, "fakePlugin")) is None
    clock.step(DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + SECOND)
    q.flush_unschedulable_pods_leftover()
    pop(q, high)
    pop(q, mid)


@pytest.mark.parametrize("max_in_unschedulable", [None, 30 * SECOND])
def test_init_pod_max_in_unschedulable_pods_duration(max_in_unschedulable):
    """TestPriorityQueue_initPodMaxInUnschedulablePodsDuration: both flushed, oldest first."""
    clock = VirtualClock(T0)
    kw = {} if max_in_unschedulable is None else {
        "pod_max_in_unschedulable_pods_duration": max_in_unschedulable}
    q = queue(clock=clock, **kw)
    p1 = qpi_with(mk("test-pod-1", "ns1", uid="tp-1", nominated="node1"), T0 - SECOND)
    p2 = qpi_with(mk("test-pod-2", "ns2", uid="tp-2", nominated="node2"), T0 - 2 * SECOND)
    for qpi in (p1, p2):  # addPodUnschedulablePods
        qpi.unschedulable_count += 1
        q.unschedulable_pods.add_or_update(qpi)
    clock.step(q.pod_max_in_unschedulable_pods_duration)  # flushUnscheduledQ
    q.flush_unschedulable_pods_leftover()
    assert len(q.active_q) == 2
    assert [pop(q).pod.name for _ in range(2)] == ["test-pod-2", "test-pod-1"]


def test_flush_sets_and_clears_the_flag():
    """TestFlushUnschedulableEntitiesLeftoverSetsFlag (the flag and flush timestamp)."""
    clock = VirtualClock(T0)
    q = queue(clock=clock)
    p = mk("p", uid="p")
    q.add(p)
    qpi = pop(q)
    qpi.unschedulable_plugins.add("plugin")
    q.add_unschedulable_if_not_present(qpi)
    clock.step(DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + SECOND)
    q.flush_unschedulable_pods_leftover()
    assert qpi.was_flushed_from_unschedulable
    assert qpi.flush_timestamp == clock.now()
    popped = pop(q, p)
    popped.unschedulable_plugins.add("plugin")
    q.add_unschedulable_if_not_present(popped)
    assert not popped.was_flushed_from_unschedulable
    assert popped.flush_timestamp is None


@pytest.mark.parametrize("ops,want", [
    # TestPodTimestamp: activeQ orders by the queue timestamp.
    ("active", ["test-pod-1", "test-pod-2"]),
    ("unschedulable", ["test-pod-1", "test-pod-2"]),
    ("backoff", ["test-pod-1", "test-pod-2"]),
])
def test_pod_timestamp(ops, want):
    clock = VirtualClock(T0)
    q = queue(clock=clock)
    p1 = qpi_with(mk("test-pod-1", "ns1", uid="tp-1", nominated="node1"), T0)
    p2 = qpi_with(mk("test-pod-2", "ns2", uid="tp-2", nominated="node2"), T0 + SECOND)
    if ops == "active":
        q.active_q.add(p2)
        q.active_q.add(p1)
    elif ops == "unschedulable":
        for qpi in (p2, p1):
            qpi.unschedulable_count += 1
            q.unschedulable_pods.add_or_update(qpi)
        clock.step(3 * SECOND)
        q.move_all_to_active_or_backoff_queue(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    else:
        q.active_q.add(p2)
        q.backoff_q.add(p1)
        clock.step(3 * SECOND)
        q.flush_backoff_q_completed()
        q.move_all_to_active_or_backoff_queue(ev.EVENT_UNSCHEDULABLE_TIMEOUT)
    assert len(q.active_q) == len(want)
    assert [q.active_q.pop()[0].pod.name for _ in want] == want


# --- isPodWorthRequeuing ---------------------------------------------------------------------

def _counting(hint, err=None):
    calls = []

    def fn(pod, old, new):
        calls.append(1)
        return hint, err
    return fn, calls


@pytest.mark.parametrize("case", [
    # Test_isPodWorthRequeuing: (name, unsched, pending, event, new_obj, map, want, executions)
    ("return Queue when no queueing hint function is registered for the event",
     {"fooPlugin1"}, set(), NODE_ADD, "node",
     {ev.EVENT_ASSIGNED_POD_ADD: [("fooPlugin1", "queue")]}, QUEUE_SKIP, 0),
    ("Treat the event as Queue when QueueHintFn returns error",
     {"fooPlugin1"}, set(), NODE_ADD, "node", {NODE_ADD: [("fooPlugin1", "err")]},
     QUEUE_AFTER_BACKOFF, 1),
    ("return Queue when the event is wildcard", {"fooPlugin1"}, set(),
     ev.EVENT_UNSCHEDULABLE_TIMEOUT, None, {}, QUEUE_AFTER_BACKOFF, 0),
    ("return Queue when the event is wildcard and the wildcard targets the pod to be requeued "
     "right now", {"fooPlugin1"}, set(), ev.EVENT_FORCE_ACTIVATE, "self", {},
     QUEUE_AFTER_BACKOFF, 0),
    ("return Skip when the event is wildcard, but the wildcard targets a different pod",
     {"fooPlugin1"}, set(), ev.EVENT_FORCE_ACTIVATE, "other", {}, QUEUE_SKIP, 0),
    ("interprets Queue from the Pending plugin as queueImmediately",
     {"fooPlugin1", "fooPlugin3"}, {"fooPlugin2"}, NODE_ADD, "node",
     {NODE_ADD: [("fooPlugin1", "queue"), ("fooPlugin2", "queue"), ("fooPlugin3", "queue"),
                 ("fooPlugin4", "err")]}, QUEUE_IMMEDIATELY, 2),
    ("interprets Queue from the Unschedulable plugin as queueAfterBackoff",
     {"fooPlugin1", "fooPlugin2"}, set(), NODE_ADD, "node",
     {NODE_ADD: [("fooPlugin1", "skip"), ("fooPlugin2", "queue")]}, QUEUE_AFTER_BACKOFF, 2),
    ("Queueing hint function that isn't from the plugin in UnschedulablePlugins/PendingPlugins "
     "is ignored", {"fooPlugin1", "fooPlugin2"}, set(), NODE_ADD, "node",
     {NODE_ADD: [("fooPlugin1", "skip"), ("fooPlugin2", "skip"), ("fooPlugin3", "queue")]},
     QUEUE_SKIP, 2),
    ("If event is specific Node update event, queueing hint function for "
     "NodeUpdate/UpdateNodeLabel is also executed", {"fooPlugin1", "fooPlugin2"}, set(),
     ClusterEvent(ev.NODE, ev.UPDATE_NODE_LABEL), "node",
     {ClusterEvent(ev.NODE, ev.UPDATE_NODE_LABEL): [("fooPlugin1", "queue"),
                                                    ("fooPlugin2", "queue")],
      ClusterEvent(ev.NODE, ev.UPDATE): [("fooPlugin1", "queue")],
      NODE_ADD: [("fooPlugin1", "queue")]}, QUEUE_AFTER_BACKOFF, 1),
    ("If event with '*' Resource, queueing hint function for specified Resource is also "
     "executed", {"fooPlugin1"}, set(), NODE_ADD, "node",
     {ClusterEvent(ev.WILDCARD, ev.ADD): [("fooPlugin1", "queue")]}, QUEUE_AFTER_BACKOFF, 1),
    ("If event is a wildcard one, queueing hint function for all kinds of events is executed",
     {"fooPlugin1"}, set(), ClusterEvent(ev.NODE, ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT),
     "node", {ClusterEvent(ev.WILDCARD, ev.ALL): [("fooPlugin1", "queue")]},
     QUEUE_AFTER_BACKOFF, 1),
], ids=lambda c: c[0])
def test_is_pod_worth_requeuing(case):
    _, unsched, pending, event, new_kind, entries, want, executions = case
    calls: list[int] = []

    def make(kind):
        def fn(pod, old, new):
            calls.append(1)
            if kind == "queue":
                return ev.QUEUE, None
            if kind == "skip":
                return ev.QUEUE_SKIP, None
            return ev.QUEUE_SKIP, "unexpected error"
        return fn
    q = queue(queueing_hint_map=hint_map(
        {e: [(name, make(kind)) for name, kind in fns] for e, fns in entries.items()}))
    p = mk("pod1", "ns1", uid="1")
    qpi = qpi_with(p, T0, unschedulable_plugins=set(unsched), pending_plugins=set(pending))
    new_obj = {"node": make_node("n").capacity(NODE).obj(), "self": mk("pod1", "ns1", uid="1"),
               "other": mk("pod-different", "ns2", uid="2"), None: None}[new_kind]
    assert q.is_pod_worth_requeuing(qpi, event, None, new_obj) == want
    assert len(calls) == executions


# --- PreEnqueue ------------------------------------------------------------------------------

class AllowlistPreEnqueue:
    """``preEnqueuePlugin`` of scheduling_queue_test.go: passes pods with an allowed label."""

    def __init__(self, allowlists=(), name="preEnqueuePlugin"):
        self.allowlists = list(allowlists)
        self.name = name

    def pre_enqueue(self, pod):
        if any(label == allowed for allowed in self.allowlists for label in pod.labels):
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "pod label not in allowlists")


@pytest.mark.parametrize("case", [
    # TestPriorityQueue_moveToActiveQ: (name, plugins, pod name, event, moves from backoffQ,
    #   popFromBackoffQ variants, want unschedulable pods, want success)
    ("no plugins registered", [], "p", ev.EVENT_UNSCHEDULED_POD_ADD.label(), False,
     (True, False), 0, True),
    ("preEnqueue plugin registered, pod name not in allowlists", [[], []], "p",
     ev.EVENT_UNSCHEDULED_POD_ADD.label(), False, (True, False), 1, False),
    ("preEnqueue plugin registered, pod failed one preEnqueue plugin", [["foo", "bar"], ["foo"]],
     "bar", ev.EVENT_UNSCHEDULED_POD_ADD.label(), False, (True, False), 1, False),
    ("preEnqueue plugin registered, preEnqueue rejects the pod, even if it is after backoff",
     [["foo", "bar"], ["foo"]], "bar", ev.BACKOFF_COMPLETE, False, (False,), 1, False),
    ("preEnqueue plugin registered, pod would fail one preEnqueue plugin, but it is moved from "
     "backoffQ after completing backoff, so preEnqueue is not executed",
     [["foo", "bar"], ["foo"]], "bar", ev.BACKOFF_COMPLETE, True, (True,), 0, True),
    ("preEnqueue plugin registered, pod failed one preEnqueue plugin when activated from "
     "unschedulableEntities", [["foo", "bar"], ["foo"]], "bar", ev.FORCE_ACTIVATE, False,
     (True,), 1, False),
    ("preEnqueue plugin registered, pod would fail one preEnqueue plugin, but was activated "
     "from backoffQ, so preEnqueue is not executed", [["foo", "bar"], ["foo"]], "bar",
     ev.FORCE_ACTIVATE, True, (True,), 0, True),
    ("preEnqueue plugin registered, pod passed all preEnqueue plugins",
     [["foo", "bar"], ["bar"]], "bar", ev.EVENT_UNSCHEDULED_POD_ADD.label(), False,
     (True, False), 0, True),
], ids=lambda c: c[0])
def test_move_to_active_q_pre_enqueue(case):
    _, allowlists, pod_name, event, from_backoff, variants, want_unsched, want_success = case
    for pop_from_backoff_q in variants:
        plugins: dict = {}
        for allow in allowlists:  # same name: the later plugin replaces the earlier in the map
            pl = AllowlistPreEnqueue(allow)
            plugins[pl.name] = pl
        q = queue(pre_enqueue_plugins={PROFILE: plugins}, pop_from_backoff_q=pop_from_backoff_q,
                  pod_initial_backoff=30 * SECOND, pod_max_backoff=60 * SECOND)
        p = mk(pod_name, labels={pod_name: ""})
        assert q.move_to_active_q(qpi_of(q, p), event, from_backoff) is want_success
        assert len(q.unschedulable_pods) == want_unsched
        # An update that changes nothing the plugins look at leaves a gated pod gated.
        q.update(p, dataclasses.replace(p, annotations={"foo": ""}))
        assert len(q.unschedulable_pods) == want_unsched


def test_gated_pod_is_ungated_by_its_update():
    """A pod held by SchedulingGates moves to activeQ when its gates are removed
    (TargetPod/UpdatePodSchedulingGatesEliminated, the plugin's hint says Queue)."""
    from reference_impl.plugins.schedulinggates import SchedulingGates

    gates = SchedulingGates()
    q = queue(pre_enqueue_plugins={PROFILE: {gates.name: gates}},
              queueing_hint_map={PROFILE: build_queueing_hint_map([gates])})
    q.plugin_to_events_map = {gates.name: [ClusterEvent(
        ev.TARGET_POD, ev.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)]}
    p = mk("gated", gates=("example.com/a",))
    q.add(p)
    qpi = q.unschedulable_pods.get(p.key)
    assert qpi is not None and qpi.gating_plugin == "SchedulingGates"
    assert qpi.unschedulable_plugins == {"SchedulingGates"}
    assert qpi.gated.message() == "waiting for scheduling gates: [example.com/a]"
    assert q.pop() is None
    # Unrelated events are not offered to a gated pod, even a node add.
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, make_node("n").capacity(NODE).obj())
    assert q.where(p.key) == "unschedulablePods"
    # The leftover flush re-runs PreEnqueue: still gated.
    q.clock.step(DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION + SECOND)
    q.flush_unschedulable_pods_leftover()
    assert q.where(p.key) == "unschedulablePods"
    ungated = dataclasses.replace(p, scheduling_gates=())
    q.update(p, ungated)
    assert q.where(p.key) == "activeQ"
    assert pop(q).pod is ungated


def test_pre_enqueue_on_backoff_with_pop_from_backoff_q():
    """TestPriorityQueue_moveToBackoffQ: with PopFromBackoffQ, PreEnqueue runs when entering
    backoffQ; a gated pod stays in the pool."""
    pl = AllowlistPreEnqueue(["foo"])
    for enabled, want in ((True, "unschedulablePods"), (False, "backoffQ")):
        q = queue(pre_enqueue_plugins={PROFILE: {pl.name: pl}}, pop_from_backoff_q=enabled)
        p = mk("bar", labels={"bar": ""})
        qpi = qpi_of(q, p, "plugin")
        qpi.unschedulable_count = 1
        q.move_to_backoff_q(qpi, ev.EVENT_UNSCHEDULED_POD_ADD.label())
        assert q.where(p.key) == want


def test_activate():
    """TestPriorityQueue_Activate: from the pool or backoffQ to activeQ; an unknown pod is
    ignored; an in-flight pod gets ForceActivate for when it comes back."""
    q = queue()
    a, b, c = mk("a", uid="a"), mk("b", uid="b"), mk("c", uid="c")
    q.unschedulable_pods.add_or_update(qpi_of(q, a, "plugin"))
    info_b = qpi_of(q, b, "plugin")
    info_b.unschedulable_count = 1
    q.backoff_q.add(info_b)
    q.activate({"a": a, "b": b, "x": mk("x", uid="x")})
    assert q.where(a.key) == "activeQ" and q.where(b.key) == "activeQ"
    assert q.where("default/x") == ""
    q.add(c)
    while (qpi := q.pop()) is not None:
        if qpi.pod is c:
            break
    q.activate({"c": c})
    events = [e for e in q.active_q.list_in_flight_events() if not hasattr(e, "uid")]
    assert [e.event for e in events] == [ev.EVENT_FORCE_ACTIVATE]
    assert q.add_unschedulable_if_not_present(qpi_of(q, c, "plugin")) is None
    assert q.where(c.key) == "backoffQ"


def test_delete():
    """TestPriorityQueue_Delete: from whichever queue, with the nomination."""
    q = queue()
    q.add(HPP)
    q.add(UP)
    assert q.nominator.nominated_node_of(UP) == "node1"
    q.delete(UP)
    assert q.where(UP.key) == ""
    assert q.nominator.nominated_node_of(UP) == ""
    assert [p.key for p in q.pods_in_active_q()] == [HPP.key]


def test_in_flight_events_are_pruned():
    """Test_InFlightPods (the list keeps only what in-flight pods may still need)."""
    q = queue(queueing_hint_map=hint_map({NODE_ADD: [("fooPlugin", queue_hint_return_queue)]}))
    p1, p2 = mk("p1", uid="p1"), mk("p2", uid="p2")
    q.add(p1)
    q.add(p2)
    pop(q)
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    pop(q)
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    items = q.active_q.list_in_flight_events()
    assert len(items) == 4  # pod, event, pod, event
    q.done(p1.uid)
    assert len(q.active_q.list_in_flight_events()) == 2  # the first event is dropped
    q.done(p2.uid)
    assert q.active_q.list_in_flight_events() == []
    # No pod in flight: events are not recorded.
    q.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert q.active_q.list_in_flight_events() == []


def test_events_in_flight_decide_requeue():
    """An event received while the pod was being scheduled is replayed when it comes back
    (determineSchedulingHintForInFlightPod); one its hint skips is not."""
    for hint, want in ((queue_hint_return_queue, "backoffQ"),
                       (queue_hint_return_skip, "unschedulablePods")):
        q = queue(queueing_hint_map=hint_map({NODE_ADD: [("fooPlugin", hint)]}))
        p = mk("p", uid="p")
        q.add(p)
        qpi = pop(q)
        q.move_all_to_active_or_backoff_queue(NODE_ADD, None, make_node("n").capacity(NODE).obj())
        qpi.unschedulable_plugins = {"fooPlugin"}
        q.add_unschedulable_if_not_present(qpi)
        assert q.where(p.key) == want


def test_pre_check_selects_pods():
    """TestMoveAllToActiveOrBackoffQueue_PreEnqueueChecks: only pods passing preCheck move."""
    clock = VirtualClock(T0)
    q = queue(clock=clock, queueing_hint_map=hint_map(
        {NODE_ADD: [("fooPlugin", queue_hint_return_queue)]}))
    pods = [mk(f"p{i}", priority=i, uid=f"p{i}") for i in range(4)]
    for p in pods:
        q.unschedulable_pods.add_or_update(qpi_with(p, T0 - 20 * SECOND,
                                                    unschedulable_plugins={"fooPlugin"}))
    q.move_all_to_active_or_backoff_queue(NODE_ADD, None, None, lambda pod: pod.priority % 2 == 0)
    assert sorted(p.name for p in q.pods_in_active_q()) == ["p0", "p2"]


# --- hint map building -------------------------------------------------------------------------

def test_build_queueing_hint_map_from_plugins():
    """buildQueueingHintMap / fillEnqueueExtensions: registered events with hints; a Pod event
    unrolled; a PreFilter/Filter plugin without EnqueueExtensions gets every event; a Score-only
    plugin none."""
    from reference_impl.framework import interfaces as itf
    from reference_impl.plugins.tainttoleration import TaintToleration

    class NoExt(itf.FilterPlugin):
        name = "NoExt"

    class ScoreOnly(itf.ScorePlugin):
        name = "ScoreOnly"

    class PodEvents(itf.FilterPlugin, itf.EnqueueExtensions):
        name = "PodEvents"

        def events_to_register(self):
            return [("Pod", ("Delete",), None)]

    tt = TaintToleration()
    m = build_queueing_hint_map([tt, NoExt(), ScoreOnly(), PodEvents()])
    node_taint = ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_TAINT)
    assert [h.plugin_name for h in m[node_taint]] == ["TaintToleration"]
    assert m[node_taint][0].fn == tt.is_schedulable_after_node_change
    for r in (ev.ASSIGNED_POD, ev.UNSCHEDULED_POD, ev.TARGET_POD):
        assert [h.plugin_name for h in m[ClusterEvent(r, ev.DELETE)]] == ["PodEvents"]
        assert "NoExt" in [h.plugin_name for h in m[ClusterEvent(r, ev.ALL)]]
    assert all(h.plugin_name != "ScoreOnly" for fns in m.values() for h in fns)


def test_taint_hint_through_the_queue():
    """TaintToleration's real hint: a taint change that removes the untolerated taint moves
    the pod; a change that keeps it does not."""
    from reference_impl.plugins.tainttoleration import TaintToleration

    tt = TaintToleration()
    q = queue(queueing_hint_map={PROFILE: build_queueing_hint_map([tt])})
    p = mk("p", uid="p")
    old = make_node("n").capacity(NODE).taint("k", value="v").obj()
    q.unschedulable_pods.add_or_update(qpi_with(p, T0 - 20 * SECOND,
                                                unschedulable_plugins={"TaintToleration"}))
    still = dataclasses.replace(old, taints=(Taint("k", "v2", "NoSchedule"),))
    e = ClusterEvent(ev.NODE, ev.UPDATE_NODE_TAINT)
    q.move_all_to_active_or_backoff_queue(e, old, still)
    assert q.where(p.key) == "unschedulablePods"
    q.move_all_to_active_or_backoff_queue(e, old, dataclasses.replace(old, taints=()))
    assert q.where(p.key) == "activeQ"


# --- events.go / types.go ----------------------------------------------------------------

@pytest.mark.parametrize("registered,incoming,want", [
    # TestClusterEventMatching
    ((ev.WILDCARD, ev.ALL), (ev.POD, ev.UPDATE_NODE_LABEL), True),
    ((ev.POD, ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT), (ev.POD, ev.UPDATE_NODE_LABEL), True),
    ((ev.POD, ev.UPDATE_NODE_LABEL | ev.UPDATE_NODE_TAINT),
     (ev.UNSCHEDULED_POD, ev.UPDATE_NODE_LABEL), True),
    ((ev.WILDCARD, ev.UPDATE_NODE_LABEL), (ev.POD, ev.UPDATE_NODE_LABEL), True),
    ((ev.WILDCARD, ev.UPDATE_NODE_LABEL), (ev.POD, ev.UPDATE_NODE_ALLOCATABLE), False),
    ((ev.POD, ev.UPDATE_NODE_LABEL), (ev.WILDCARD, ev.UPDATE_NODE_LABEL), False),
    ((ev.WILDCARD, ev.UPDATE_NODE_LABEL), (ev.POD, ev.UPDATE), False),
    ((ev.WILDCARD, ev.UPDATE), (ev.POD, ev.UPDATE_NODE_LABEL), True),
    ((ev.POD, ev.UPDATE_NODE_LABEL), (ev.ASSIGNED_POD, ev.UPDATE_NODE_LABEL), True),
    ((ev.POD, ev.UPDATE_NODE_TAINT), (ev.TARGET_POD, ev.UPDATE_NODE_TAINT), True),
    ((ev.ASSIGNED_POD, ev.ADD), (ev.UNSCHEDULED_POD, ev.ADD), False),
    ((ev.ASSIGNED_POD, ev.UPDATE), (ev.TARGET_POD, ev.UPDATE), False),
    ((ev.TARGET_POD, ev.UPDATE), (ev.ASSIGNED_POD, ev.UPDATE), False),
    ((ev.ASSIGNED_POD, ev.ADD), (ev.POD, ev.ADD), False),
    ((ev.ASSIGNED_POD, ev.ADD), (ev.WILDCARD, ev.ADD), False),
    ((ev.UNSCHEDULED_POD, ev.ADD), (ev.POD, ev.ADD), False),
    ((ev.UNSCHEDULED_POD, ev.ADD), (ev.WILDCARD, ev.ADD), False),
    ((ev.WILDCARD, ev.ALL), (ev.TARGET_POD, ev.UPDATE), True),
])
def test_cluster_event_matching(registered, incoming, want):
    assert ev.match_cluster_events(ClusterEvent(*registered), ClusterEvent(*incoming)) is want


def test_labels():
    assert ev.EVENT_ASSIGNED_POD_DELETE.label() == "AssignedPodDelete"
    assert ClusterEvent(ev.NODE, ev.UPDATE_NODE_TAINT).label() == "NodeUpdateNodeTaint"
    assert ev.EVENT_UNSCHEDULABLE_TIMEOUT.label() == "UnschedulableTimeout"
    assert ev.ALL == (1 << 15) - 1 and ev.UPDATE == ev.ALL & ~(ev.ADD | ev.DELETE)
    assert ev.parse_action_type(("Add", "UpdateNodeTaint")) == ev.ADD | ev.UPDATE_NODE_TAINT
    with pytest.raises(ValueError, match="unknown action type 'Remove'"):
        ev.parse_action_type("Remove")


def _n():
    return make_node("n").capacity(NODE)


UNSCHED = "node.kubernetes.io/unschedulable"


@pytest.mark.parametrize("new,old,want", [
    # TestNodeSchedulingPropertiesChange (conditions are not modelled)
    (_n(), _n(), []),
    (_n().unschedulable(False), _n().unschedulable(True), [ev.UPDATE_NODE_TAINT]),
    (_n().capacity(NODE, **{"example.com/foo": "1"}),
     _n().capacity(NODE, **{"example.com/foo": "2"}), [ev.UPDATE_NODE_ALLOCATABLE]),
    (_n().label("foo", "bar"), _n().label("foo", "fuz"), [ev.UPDATE_NODE_LABEL]),
    (_n().taint(UNSCHED, value=""), _n().taint(UNSCHED, value="foo"), [ev.UPDATE_NODE_TAINT]),
    (_n().annotation("foo", "bar"), _n().annotation("foo", "fuz"), [ev.UPDATE_NODE_ANNOTATION]),
    (_n().label("foo", "bar").taint(UNSCHED, value=""), _n().taint(UNSCHED, value="foo"),
     [ev.UPDATE_NODE_LABEL, ev.UPDATE_NODE_TAINT]),
    # cordoning is not an event: only becoming schedulable is
    (_n().unschedulable(True), _n().unschedulable(False), []),
])
def test_node_scheduling_properties_change(new, old, want):
    got = ev.node_scheduling_properties_change(new.obj(), old.obj())
    assert got == [ClusterEvent(ev.NODE, a) for a in want]


@pytest.mark.parametrize("new,old,target,want", [
    # Test_podSchedulingPropertiesChange
    (make_pod("p").labels({"foo": "bar"}).node("node").obj(),
     make_pod("p").labels({"foo": "bar2"}).node("node").obj(), False,
     [(ev.ASSIGNED_POD, ev.UPDATE_POD_LABEL)]),
    (make_pod("p").labels({"foo": "bar"}).obj(), make_pod("p").labels({"foo": "bar2"}).obj(),
     False,
     [(ev.UNSCHEDULED_POD, ev.UPDATE_POD_LABEL)]),
    (make_pod("p").req(cpu="100m").obj(), make_pod("p").req(cpu="101m").obj(), False,
     [(ev.UNSCHEDULED_POD, ev.UPDATE_POD_SCALE_DOWN)]),
    (make_pod("p").req(cpu="101m").obj(), make_pod("p").req(cpu="100m").obj(), False,
     [(ev.UNSCHEDULED_POD, ev.UPDATE_POD_SCALE_UP)]),
    (make_pod("p").labels({"foo": "bar"}).req(cpu="100m").obj(),
     make_pod("p").req(cpu="101m").obj(), False,
     [(ev.UNSCHEDULED_POD, ev.UPDATE_POD_LABEL), (ev.UNSCHEDULED_POD, ev.UPDATE_POD_SCALE_DOWN)]),
    (make_pod("p").annotations({"foo": "bar"}).obj(),
     make_pod("p").annotations({"foo": "bar2"}).obj(), False, [(ev.UNSCHEDULED_POD, ev.UPDATE)]),
    (make_pod("p").obj(), make_pod("p").scheduling_gates("foo").obj(), True,
     [(ev.TARGET_POD, ev.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)]),
    (make_pod("p").scheduling_gates("foo").obj(),
     make_pod("p").scheduling_gates("foo", "bar").obj(), True, [(ev.TARGET_POD, ev.UPDATE)]),
    (make_pod("p").tolerations([{"key": "key", "operator": "Exists"},
                                {"key": "key2", "operator": "Exists"}]).obj(),
     make_pod("p").tolerations([{"key": "key", "operator": "Exists"}]).obj(), True,
     [(ev.TARGET_POD, ev.UPDATE_POD_TOLERATION)]),
])
def test_pod_scheduling_properties_change(new, old, target, want):
    got = ev.pod_scheduling_properties_change(new, old, target)
    assert got == [ClusterEvent(r, a) for r, a in want]


def test_unroll_pod_event():
    """TestUnrollPodEvent."""
    for a in (ev.ADD, ev.DELETE, ev.UPDATE):
        got = ev.unroll_pod_event(ClusterEvent(ev.POD, a))
        assert [(e.resource, e.action_type) for e in got] == [
            (ev.ASSIGNED_POD, a), (ev.UNSCHEDULED_POD, a), (ev.TARGET_POD, a)]


def test_minute_constant():
    assert DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION == 5 * MINUTE
