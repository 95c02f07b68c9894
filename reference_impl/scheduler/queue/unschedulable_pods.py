"""The unschedulable pods pool: pods tried and found unschedulable, and gated pods.

Upstream: ``pkg/scheduler/backend/queue/unschedulable_entities.go`` (``unschedulableEntities``:
addOrUpdate, delete, get, clear; it was ``unschedulable_pods.go`` before pod groups).

Upstream keeps the pool in a Go map, so the order in which a cluster event or a flush visits its
pods is random; the reference visits them in insertion order (a pod re-added after leaving the
pool goes to the end). Only ties in the activeQ order could make that visible.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reference_impl.scheduler.queue.active_queue import entity_key


class UnschedulablePods:
    """``unschedulableEntities``."""

    def __init__(self) -> None:
        self.entity_info_map: dict[str, Any] = {}

    def add_or_update(self, entity: Any) -> None:
        """``addOrUpdate``."""
        self.entity_info_map[entity_key(entity)] = entity

    def delete(self, lookup: Any) -> None:
        """``delete``."""
        key = lookup if isinstance(lookup, str) else entity_key(lookup)
        self.entity_info_map.pop(key, None)

    def get(self, lookup: Any) -> Any | None:
        """``get``."""
        key = lookup if isinstance(lookup, str) else entity_key(lookup)
        return self.entity_info_map.get(key)

    def clear(self) -> None:
        self.entity_info_map = {}

    def __len__(self) -> int:
        return len(self.entity_info_map)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self.entity_info_map.values()))
