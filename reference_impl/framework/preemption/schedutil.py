"""Pod start times and importance, as the scheduler's util package defines them.

Upstream: ``pkg/scheduler/util/utils.go`` (GetPodStartTime, GetEarliestPodStartTime,
MoreImportantPod) and ``staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/time.go``
(``Time.Before``).

``GetPodStartTime`` returns ``time.Now()`` for a pod without ``status.startTime`` (assumed pods,
bound pods not started yet), so such a pod counts as the newest one, and two such pods compare
by *when* their start time was read. The reference models "now" as a tick of a counter that
only grows, ordered after every real start time: ``(0, seconds)`` is a real start time and
``(1, tick)`` a reading of "now". Within one computation the readings happen in upstream's
order, so the outcomes equal upstream's with a strictly increasing clock.
"""

from __future__ import annotations

import itertools

from reference_impl.model.objects import Pod

StartTime = tuple[int, float]

_now_ticks = itertools.count()


def now() -> StartTime:
    """A reading of ``time.Now()``: later than every real start time and every earlier
    reading."""
    return (1, next(_now_ticks))


def get_pod_start_time(pod: Pod) -> StartTime:
    """``GetPodStartTime``: ``status.startTime``, or now when it is not set."""
    t = pod.start_time
    if t is not None:
        return (0, t)
    return now()


def time_before(t: StartTime | None, u: StartTime | None) -> bool:
    """``(*metav1.Time).Before``: false when either is nil."""
    if t is not None and u is not None:
        return t < u
    return False


def get_earliest_pod_start_time(pods: list[Pod]) -> StartTime | None:
    """``GetEarliestPodStartTime``: the earliest start time among the victims of the highest
    priority; nil for no victims."""
    if not pods:
        return None
    earliest = get_pod_start_time(pods[0])
    max_priority = pods[0].priority
    for pod in pods:
        prio = pod.priority
        if prio == max_priority:
            # upstream reads GetPodStartTime here; a reading of now is never before
            # ``earliest`` (a start time or an earlier reading), so only a start time can
            # replace it, and the readings kept keep their order
            t = pod.start_time
            if t is not None and time_before((0, t), earliest):
                earliest = (0, t)
        elif prio > max_priority:
            max_priority = prio
            earliest = get_pod_start_time(pod)
    return earliest


def more_important_pod(pod1: Pod, pod2: Pod) -> bool:
    """``MoreImportantPod``: higher priority, then the older start time."""
    if pod1.priority != pod2.priority:
        return pod1.priority > pod2.priority
    return time_before(get_pod_start_time(pod1), get_pod_start_time(pod2))
