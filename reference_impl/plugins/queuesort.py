"""PrioritySort: the active queue's order.

Upstream: ``pkg/scheduler/framework/plugins/queuesort/priority_sort.go``; an entity's priority is
``corev1helpers.PodPriority`` of its pod (``Pod.priority``, already resolved at load time) and its
timestamp is when it was added to the scheduling queue.
"""

from __future__ import annotations

from typing import Any

from reference_impl.framework.interfaces import QueueSortPlugin
from reference_impl.plugins import names


class PrioritySort(QueueSortPlugin):
    name = names.PrioritySort

    def less(self, a: Any, b: Any) -> bool:
        """``Less``: higher priority first; equal priorities by earlier queue timestamp
        (strictly earlier, ``time.Before``)."""
        p1 = a.pod.priority
        p2 = b.pod.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)
