"""The scheduling queue (upstream ``pkg/scheduler/backend/queue``) and cluster events
(``pkg/scheduler/framework/events.go``)."""

from reference_impl.scheduler.queue.events import ClusterEvent
from reference_impl.scheduler.queue.scheduling_queue import (
    PriorityQueue,
    QueuedPodInfo,
    QueueingHintFunction,
    build_queueing_hint_map,
)

__all__ = [
    "ClusterEvent",
    "PriorityQueue",
    "QueuedPodInfo",
    "QueueingHintFunction",
    "build_queueing_hint_map",
]
