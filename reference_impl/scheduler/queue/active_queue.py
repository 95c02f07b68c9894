"""The active queue: pods ready to be scheduled, plus the in-flight pods and events.

Upstream: ``pkg/scheduler/backend/queue/active_queue.go`` (activeQueue: pop, unlockedPop,
unlockedMoveEntityToInFlight, done, clusterEventsForPod, addEventsIfPodInFlight,
addEventIfAnyInFlight).

``inFlightEvents`` is upstream's linked list holding, in arrival order, the pods popped for
scheduling and the cluster events received while any pod is in flight; a pod that comes back
(``AddUnschedulablePodIfNotPresent``) looks at the events recorded after its own entry. The
reference keeps that list as a deque with tombstones for pods whose attempt is done.
"""

from __future__ import annotations

import builtins
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from reference_impl.model.objects import Pod
from reference_impl.scheduler.queue.events import ClusterEvent
from reference_impl.scheduler.queue.heap import Heap

ACTIVE_Q = "Active"
BACKOFF_Q = "Backoff"
UNSCHEDULABLE_Q = "Unschedulable"


def entity_key(entity: Any) -> str:
    """``queuedEntityKeyFunc`` for pods: namespace/name."""
    return entity.pod.key


class InFlightEvent:
    """``clusterEvent``: an event and the objects involved, recorded while pods are in
    flight."""

    __slots__ = ("event", "old_obj", "new_obj")

    def __init__(self, event: ClusterEvent, old_obj: Any, new_obj: Any) -> None:
        self.event = event
        self.old_obj = old_obj
        self.new_obj = new_obj

    def __repr__(self) -> str:
        return f"InFlightEvent({self.event.label()})"


class _InFlightPod:
    __slots__ = ("pod", "alive")

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        self.alive = True


class ActiveQueue:
    """``activeQueue``: the heap ordered by the profile's QueueSort ``less``, the in-flight
    bookkeeping and the scheduling cycle counter."""

    def __init__(self, less: Callable[[Any, Any], bool],
                 backoff_q_popper: Any = None, inc_attempts_on_pop: bool = True) -> None:
        self.queue = Heap(entity_key, less)
        # uid -> its marker in in_flight_events; markers and events in arrival order.
        self.in_flight_pods: dict[str, _InFlightPod] = {}
        self.in_flight_events: deque[_InFlightPod | InFlightEvent] = deque()
        self.sched_cycle = 0
        # backoffQPopper: set only when SchedulerPopFromBackoffQ is enabled.
        self.backoff_q_popper = backoff_q_popper
        self.inc_attempts_on_pop = inc_attempts_on_pop

    # ----- queue -----
    def add(self, entity: Any) -> None:
        """``add``: AddOrUpdate into the heap."""
        self.queue.add_or_update(entity)

    def delete(self, lookup: Any) -> Any | None:
        return self.queue.delete(lookup)

    def get(self, lookup: Any) -> Any | None:
        return self.queue.get(lookup)

    def has(self, lookup: Any) -> bool:
        return self.queue.has(lookup)

    def update(self, new_pod: Pod, lookup: Any) -> Any | None:
        """``unlockedActiveQueue.update``: replace the pod of a queued entity."""
        entity = self.queue.get(lookup)
        if entity is None:
            return None
        entity.update(new_pod)
        self.queue.add_or_update(entity)
        return entity

    def list(self) -> list[Pod]:
        return [e.pod for e in self.queue.list()]

    def __len__(self) -> int:
        return len(self.queue)

    def pop(self) -> tuple[Any | None, str]:
        """``unlockedPop`` without blocking: the head of activeQ, else (PopFromBackoffQ) the
        head of the backoffQ; (None, "") when there is nothing to pop. The entity is moved to
        the in-flight state; the second value names the queue it came from."""
        while True:
            source = ACTIVE_Q
            entity = self.queue.pop()
            if entity is None:
                if self.backoff_q_popper is None or self.backoff_q_popper.len_backoff() == 0:
                    return None, ""
                entity = self.backoff_q_popper.pop_backoff()
                if entity is None:
                    return None, ""
                source = BACKOFF_Q
            if self._move_entity_to_in_flight(entity):
                return entity, source
            # "Discarding the popped entity": the same pod is already in flight.

    def _move_entity_to_in_flight(self, entity: Any) -> bool:
        """``unlockedMoveEntityToInFlight``: count the attempt, record the pod in
        inFlightPods / inFlightEvents and increment the scheduling cycle."""
        if self.inc_attempts_on_pop:
            entity.attempts += 1
        uid = entity.pod.uid
        if uid in self.in_flight_pods:
            return False
        marker = _InFlightPod(entity.pod)
        self.in_flight_pods[uid] = marker
        self.in_flight_events.append(marker)
        self.sched_cycle += 1
        return True

    # ----- in-flight pods and events -----
    def done(self, uid: str) -> None:
        """``unlockedDone``: forget the pod, then drop the events only it still needed."""
        marker = self.in_flight_pods.pop(uid, None)
        if marker is None:
            return
        marker.alive = False
        evs = self.in_flight_events
        while evs:
            head = evs[0]
            if isinstance(head, _InFlightPod) and head.alive:
                break
            evs.popleft()

    def cluster_events_for_pod(self, pod: Pod) -> builtins.list[InFlightEvent] | None:
        """``clusterEventsForPod``: the events received since the pod was popped (None if the
        pod is not in flight: "likely a bug in the scheduler")."""
        marker = self.in_flight_pods.get(pod.uid)
        if marker is None:
            return None
        out: list[InFlightEvent] = []
        found = False
        for item in self.in_flight_events:
            if not found:
                found = item is marker
                continue
            if isinstance(item, InFlightEvent):
                out.append(item)
        return out

    def add_events_if_pod_in_flight(self, old_pod: Pod | None, new_pod: Pod,
                                    events: Iterable[ClusterEvent]) -> bool:
        """``addEventsIfPodInFlight``: record the pod's own update events while it is being
        scheduled."""
        if new_pod.uid not in self.in_flight_pods:
            return False
        for e in events:
            self.in_flight_events.append(InFlightEvent(e, old_pod, new_pod))
        return True

    def add_event_if_any_in_flight(self, old_obj: Any, new_obj: Any, event: ClusterEvent
                                   ) -> bool:
        """``addEventIfAnyInFlight``."""
        if self.in_flight_pods:
            self.in_flight_events.append(InFlightEvent(event, old_obj, new_obj))
            return True
        return False

    def list_in_flight_pods(self) -> builtins.list[Pod]:
        return [m.pod for m in self.in_flight_pods.values()]

    def list_in_flight_events(self) -> builtins.list[Any]:
        """The inFlightEvents list: in-flight pods (as Pod) and events, in arrival order."""
        return [item.pod if isinstance(item, _InFlightPod) else item
                for item in self.in_flight_events
                if not isinstance(item, _InFlightPod) or item.alive]

    def scheduling_cycle(self) -> int:
        return self.sched_cycle
