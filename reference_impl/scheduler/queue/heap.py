"""A keyed heap: items ordered by a less function, found and removed by key.

Upstream: ``pkg/scheduler/backend/heap/heap.go`` (``Heap``: AddOrUpdate, Delete, Peek, Pop, Get,
Has, List, Len).

Upstream's ``container/heap`` leaves the order of two items with ``!less(a, b) && !less(b, a)``
to the heap's internal layout. The reference breaks such ties deterministically by the item's
``stamp`` (the order in which queue timestamps were assigned: an earlier stamp is an earlier
wall-clock instant upstream, where timestamps have nanosecond resolution) and then by insertion
order. Removed or replaced entries are dropped lazily.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from typing import Any

LessFunc = Callable[[Any, Any], bool]
KeyFunc = Callable[[Any], str]


class _Entry:
    __slots__ = ("obj", "key", "seq", "alive", "heap")

    def __init__(self, obj: Any, key: str, seq: int, heap: Heap) -> None:
        self.obj = obj
        self.key = key
        self.seq = seq
        self.alive = True
        self.heap = heap

    def __lt__(self, other: _Entry) -> bool:
        less = self.heap.less
        a, b = self.obj, other.obj
        if less(a, b):
            return True
        if less(b, a):
            return False
        sa = getattr(a, "stamp", 0)
        sb = getattr(b, "stamp", 0)
        if sa != sb:
            return sa < sb
        return self.seq < other.seq


class Heap:
    """``heap.Heap``: a producer/consumer queue ordered by ``less``, items identified by
    ``key_func``."""

    def __init__(self, key_func: KeyFunc, less: LessFunc) -> None:
        self.key_func = key_func
        self.less = less
        self._heap: list[_Entry] = []
        self._index: dict[str, _Entry] = {}
        self._seq = itertools.count()

    def add_or_update(self, obj: Any) -> None:
        """``AddOrUpdate``: insert, or replace the item with the same key (re-ordered)."""
        key = self.key_func(obj)
        old = self._index.get(key)
        if old is not None:
            old.alive = False
        e = _Entry(obj, key, next(self._seq), self)
        self._index[key] = e
        heapq.heappush(self._heap, e)
        self._compact()

    def delete(self, obj_or_key: Any) -> Any | None:
        """``Delete``: remove the item with the key of ``obj_or_key``; the removed item or
        None."""
        key = obj_or_key if isinstance(obj_or_key, str) else self.key_func(obj_or_key)
        e = self._index.pop(key, None)
        if e is None:
            return None
        e.alive = False
        self._compact()
        return e.obj

    def _clean_top(self) -> None:
        h = self._heap
        while h and not h[0].alive:
            heapq.heappop(h)

    def _compact(self) -> None:
        # Keep the lazily deleted entries from piling up.
        if len(self._heap) > 64 and len(self._heap) > 2 * len(self._index):
            self._heap = [e for e in self._heap if e.alive]
            heapq.heapify(self._heap)

    def peek(self) -> Any | None:
        """``Peek``: the head without removing it (None when empty)."""
        self._clean_top()
        return self._heap[0].obj if self._heap else None

    def pop(self) -> Any | None:
        """``Pop``: remove and return the head (None when empty: upstream's "heap is empty")."""
        self._clean_top()
        if not self._heap:
            return None
        e = heapq.heappop(self._heap)
        del self._index[e.key]
        e.alive = False
        return e.obj

    def get(self, obj_or_key: Any) -> Any | None:
        """``Get`` / ``GetByKey``."""
        key = obj_or_key if isinstance(obj_or_key, str) else self.key_func(obj_or_key)
        e = self._index.get(key)
        return None if e is None else e.obj

    def has(self, obj_or_key: Any) -> bool:
        key = obj_or_key if isinstance(obj_or_key, str) else self.key_func(obj_or_key)
        return key in self._index

    def list(self) -> list[Any]:
        """``List``: every item, in pop order (upstream: heap layout order)."""
        return [e.obj for e in sorted(self._index.values())]

    def __len__(self) -> int:
        return len(self._index)
