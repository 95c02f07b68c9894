"""Choosing the host among scored nodes, as the pinned release does.

Upstream v1.37: ``pkg/scheduler/schedule_one.go`` (schedulePod) builds
``framework.NewSortedScoredNodes(priorityList)`` (``pkg/scheduler/framework/sorted_nodes.go``), a
max-heap by ``TotalScore`` then ``Randomizer``, and pops its top. The older ``selectHost``
reservoir sampling is gone. ``Randomizer`` is drawn (``rand.Int()``) only for nodes that
prioritizing extenders scored, so with plugins only every Randomizer is 0 and ties are broken
by Go's ``container/heap`` layout: deterministic, not uniform. This module reproduces
``container/heap`` (``Init``, ``Pop``, ``down``) exactly, so the same node wins as upstream's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Generic, Protocol, TypeVar


class _Scored(Protocol):
    name: str
    total: int
    randomizer: int


_S = TypeVar("_S", bound=_Scored)


def _less(h: Sequence[_Scored], i: int, j: int) -> bool:
    """``nodeScoreHeap.Less``: higher total first, then higher Randomizer."""
    a, b = h[i], h[j]
    return a.total > b.total or (a.total == b.total and a.randomizer > b.randomizer)


def _down(h: list[_S], i0: int, n: int) -> bool:
    """``container/heap.down``."""
    i = i0
    while True:
        j1 = 2 * i + 1
        if j1 >= n or j1 < 0:
            break
        j = j1
        j2 = j1 + 1
        if j2 < n and _less(h, j2, j1):
            j = j2
        if not _less(h, j, i):
            break
        h[i], h[j] = h[j], h[i]
        i = j
    return i > i0


class SortedScoredNodes(Generic[_S]):
    """``framework.SortedScoredNodes`` backed by a Go-compatible binary heap."""

    def __init__(self, scored: Iterable[_S]) -> None:
        self.heap = list(scored)
        n = len(self.heap)
        for i in range(n // 2 - 1, -1, -1):  # heap.Init
            _down(self.heap, i, n)

    def __len__(self) -> int:
        return len(self.heap)

    def pop(self) -> _S:
        """``heap.Pop``: swap the top with the last element, restore, remove the last."""
        h = self.heap
        n = len(h) - 1
        h[0], h[n] = h[n], h[0]
        _down(h, 0, n)
        return h.pop()

    def unordered(self) -> list[_S]:
        return list(self.heap)


def select_host(scored: Iterable[_S]) -> _S:
    """The node upstream binds to: the top of the sorted scored nodes."""
    return SortedScoredNodes(scored).pop()


def highest_scored(scored: Sequence[_Scored]) -> list[str]:
    """Names of every node sharing the highest total (the tie set), in the given order."""
    if not scored:
        return []
    best = max(s.total for s in scored)
    return [s.name for s in scored if s.total == best]
