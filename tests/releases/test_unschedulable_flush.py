"""When the unschedulable-pods flush takes a pod again (switch unschedulable-flush-timestamp).

Read in each release's pkg/scheduler/backend/queue/scheduling_queue.go: v1.34.4, v1.35.4 and
v1.36.3 ``flushUnschedulablePodsLeftover`` compare ``pInfo.Timestamp`` (the last attempt, or
the creation) with podMaxInUnschedulablePodsDuration; v1.37.2
``flushUnschedulableEntitiesLeftover`` counts from the later of that and the entity's
``FlushTimestamp``, set at each flush. A pod that comes back to the pool without an attempt (a
PreEnqueue plugin gates it again) is therefore flushed at every 30 s tick before v1.37.2, and
5 minutes after its last flush on v1.37.2. The expected times are written per release.
"""

from __future__ import annotations

import pytest

from reference_impl.framework.status import Code, Status
from reference_impl.model.objects import DEFAULT_SCHEDULER_NAME, Pod
from reference_impl.plugins.queuesort import PrioritySort
from reference_impl.releases import load, supported_releases
from reference_impl.scheduler.clock import MINUTE, SECOND, VirtualClock
from reference_impl.scheduler.queue.scheduling_queue import PriorityQueue
from reference_impl.testing.wrappers import make_pod
from tests.releases.variants import assert_two_variants

#: the releases that keep the flush time
FLUSH_TIME = frozenset({"v1.37.2"})


class Barrier:
    """A PreEnqueue plugin that gates every pod while ``closed``, whatever the pod (state no
    cluster event reports, as a DRA claim the informer missed)."""

    name = "Barrier"

    def __init__(self) -> None:
        self.closed = True
        self.calls = 0

    def pre_enqueue(self, pod: Pod) -> Status | None:
        self.calls += 1
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "closed") if self.closed else None


def _queue(release: str) -> tuple[PriorityQueue, Barrier, VirtualClock]:
    barrier = Barrier()
    clock = VirtualClock(0)
    q = PriorityQueue(PrioritySort().less, clock=clock,
                      pre_enqueue_plugins={DEFAULT_SCHEDULER_NAME: {barrier.name: barrier}},
                      release=load(release))
    q.add(make_pod("p").uid("p").obj())
    assert len(q.unschedulable_pods) == 1 and barrier.calls == 1
    return q, barrier, clock


def test_every_release_has_a_known_variant() -> None:
    assert_two_variants("unschedulable-flush-timestamp", FLUSH_TIME, "flush-time", "attempt-time")


@pytest.mark.parametrize("release", supported_releases())
def test_a_regated_pod_is_flushed_again_at_the_next_tick_before_v1_37(release: str) -> None:
    q, barrier, clock = _queue(release)
    clock.set(5 * MINUTE + 30 * SECOND)  # the first flush tick past 5 minutes
    q.flush_unschedulable_pods_leftover()
    assert barrier.calls == 2 and len(q.unschedulable_pods) == 1  # gated again
    due = q.next_leftover_flush_due()
    barrier.closed = False  # no event tells the queue
    clock.set(6 * MINUTE)
    q.flush_unschedulable_pods_leftover()
    if release in FLUSH_TIME:
        assert due == 10 * MINUTE + 30 * SECOND
        assert barrier.calls == 2 and len(q.unschedulable_pods) == 1
        clock.set(11 * MINUTE)
        q.flush_unschedulable_pods_leftover()
    else:
        assert due == 5 * MINUTE
    assert barrier.calls == 3
    assert len(q.unschedulable_pods) == 0 and len(q.active_q) == 1
