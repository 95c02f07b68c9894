"""The backoff queue: pods waiting out their backoff before going back to activeQ.

Upstream: ``pkg/scheduler/backend/queue/backoff_queue.go`` (backoffQueue: two heaps,
``podBackoffQ`` for unschedulable pods and ``podErrorBackoffQ`` for pods that failed with an
error; getBackoffTime, calculateBackoffDuration, isEntityBackingoff, alignToWindow,
popAllBackoffCompleted, popBackoff).

With SchedulerPopFromBackoffQ (on by default at v1.37.2) backoff expirations are truncated to
1-second ordering windows; within a window the podBackoffQ is ordered like activeQ (priority,
then timestamp), and the scheduler pops from it when activeQ is empty. Times are integer
nanoseconds of the virtual clock.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

from reference_impl.model.objects import Pod
from reference_impl.scheduler.clock import SECOND, VirtualClock
from reference_impl.scheduler.queue.active_queue import entity_key
from reference_impl.scheduler.queue.heap import Heap

# backoffQOrderingWindowDuration: also the interval of flushBackoffQCompleted.
BACKOFF_Q_ORDERING_WINDOW = SECOND
# time.Time{}: "no backoff"; before every real time.
ZERO_TIME = -(1 << 62)


class BackoffQueue:
    """``backoffQueue``."""

    def __init__(self, clock: VirtualClock, pod_initial_backoff: int, pod_max_backoff: int,
                 active_q_less: Callable[[Any, Any], bool],
                 pop_from_backoff_q_enabled: bool) -> None:
        self.clock = clock
        self.pod_initial_backoff = pod_initial_backoff
        self.pod_max_backoff = pod_max_backoff
        self.active_q_less = active_q_less
        self.is_pop_from_backoff_q_enabled = pop_from_backoff_q_enabled
        less = (self.less_backoff_completed_with_priority if pop_from_backoff_q_enabled
                else self.less_backoff_completed)
        self.pod_backoff_q = Heap(entity_key, less)
        self.pod_error_backoff_q = Heap(entity_key, self.less_backoff_completed)

    # ----- backoff times -----
    def align_to_window(self, t: int) -> int:
        """``alignToWindow``: truncate to the ordering window (only with PopFromBackoffQ)."""
        if not self.is_pop_from_backoff_q_enabled:
            return t
        return t - t % BACKOFF_Q_ORDERING_WINDOW

    def less_backoff_completed_with_priority(self, a: Any, b: Any) -> bool:
        """``lessBackoffCompletedWithPriority``: earlier backoff window first; within the same
        window, the activeQ order."""
        bo1 = self.get_backoff_time(a)
        bo2 = self.get_backoff_time(b)
        if bo1 != bo2:
            return bo1 < bo2
        return self.active_q_less(a, b)

    def less_backoff_completed(self, a: Any, b: Any) -> bool:
        """``lessBackoffCompleted``: earlier backoff expiration first."""
        return self.get_backoff_time(a) < self.get_backoff_time(b)

    def is_entity_backing_off(self, entity: Any) -> bool:
        """``isEntityBackingoff``: the backoff time is not before the current window."""
        return not self.get_backoff_time(entity) < self.align_to_window(self.clock.now())

    def get_backoff_time(self, entity: Any) -> int:
        """``getBackoffTime``: timestamp + backoff duration for the unschedulable count (or the
        consecutive error count when the last attempt was an error), window-aligned and
        cached on the entity; ZERO_TIME when there is no backoff."""
        if self.pod_max_backoff == 0:
            return ZERO_TIME
        count = entity.unschedulable_count
        if entity.consecutive_errors_count > 0:
            count = entity.consecutive_errors_count
        if count == 0:
            return ZERO_TIME
        if entity.backoff_expiration is None:
            duration = self.calculate_backoff_duration(count, entity.size())
            entity.backoff_expiration = self.align_to_window(entity.timestamp + duration)
        return entity.backoff_expiration

    def calculate_backoff_duration(self, count: int, entity_size: int = 1) -> int:
        """``calculateBackoffDuration``: podInitialBackoff doubled per count after the first,
        capped at podMaxBackoff (times sqrt(size) for groups, truncated to whole ns)."""
        if count == 0:
            return 0
        max_backoff = self.pod_max_backoff
        if entity_size > 1:
            max_backoff = int(float(max_backoff) * math.sqrt(float(entity_size)))
        shift = count - 1
        if self.pod_initial_backoff > max_backoff >> shift:
            return max_backoff
        return self.pod_initial_backoff << shift

    # ----- queue operations -----
    def _pop_all_backoff_completed_with_queue(self, queue: Heap) -> list[Any]:
        popped = []
        while True:
            entity = queue.peek()
            if entity is None or self.is_entity_backing_off(entity):
                break
            queue.pop()
            popped.append(entity)
        return popped

    def pop_all_backoff_completed(self) -> list[Any]:
        """``popAllBackoffCompleted``: from podBackoffQ, then podErrorBackoffQ."""
        return (self._pop_all_backoff_completed_with_queue(self.pod_backoff_q)
                + self._pop_all_backoff_completed_with_queue(self.pod_error_backoff_q))

    def add(self, entity: Any) -> None:
        """``add``: to podErrorBackoffQ when no plugin rejected the pod (an error), else to
        podBackoffQ; never in both."""
        if not entity.unschedulable_plugins and not entity.pending_plugins:
            self.pod_error_backoff_q.add_or_update(entity)
            self.pod_backoff_q.delete(entity)
            return
        self.pod_backoff_q.add_or_update(entity)
        self.pod_error_backoff_q.delete(entity)

    def update(self, new_pod: Pod, lookup: Any) -> Any | None:
        """``update``: replace the pod of a queued entity."""
        for q in (self.pod_backoff_q, self.pod_error_backoff_q):
            entity = q.get(lookup)
            if entity is not None:
                entity.update(new_pod)
                q.add_or_update(entity)
                return entity
        return None

    def delete(self, lookup: Any) -> Any | None:
        entity = self.pod_backoff_q.delete(lookup)
        if entity is not None:
            return entity
        return self.pod_error_backoff_q.delete(lookup)

    def pop_backoff(self) -> Any | None:
        """``popBackoff``: the head of podBackoffQ (never podErrorBackoffQ)."""
        return self.pod_backoff_q.pop()

    def get(self, lookup: Any) -> Any | None:
        entity = self.pod_backoff_q.get(lookup)
        if entity is not None:
            return entity
        return self.pod_error_backoff_q.get(lookup)

    def has(self, lookup: Any) -> bool:
        return self.pod_backoff_q.has(lookup) or self.pod_error_backoff_q.has(lookup)

    def list(self) -> list[Pod]:
        return ([e.pod for e in self.pod_backoff_q.list()]
                + [e.pod for e in self.pod_error_backoff_q.list()])

    def entities(self) -> builtins.list[Any]:
        return self.pod_backoff_q.list() + self.pod_error_backoff_q.list()

    def __len__(self) -> int:
        return len(self.pod_backoff_q) + len(self.pod_error_backoff_q)

    def len_backoff(self) -> int:
        """``lenBackoff``: the length of podBackoffQ only."""
        return len(self.pod_backoff_q)

    def next_completion(self) -> int | None:
        """The earliest backoff time among the heads of both heaps (None when empty): the
        simulation's clue for when the next flush can move something."""
        times = [self.get_backoff_time(e) for e in
                 (self.pod_backoff_q.peek(), self.pod_error_backoff_q.peek()) if e is not None]
        return min(times) if times else None
