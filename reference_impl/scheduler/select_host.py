"""Choosing the host among scored nodes, as each supported release does (switch
``select-host``; the rules per release: docs/reference.md#host-selection).

``heap`` (v1.35.4 to v1.37.2): the max-heap of ``schedulePod`` (``pkg/scheduler/
schedule_one.go``; v1.37 ``framework/sorted_nodes.go``), reproducing ``container/heap`` exactly.
``reservoir`` (v1.34.4): ``selectHost``'s reservoir sampling over the same heap's pops.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Generic, Protocol, TypeVar

import numpy as np


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


def heap_top(totals: Sequence[int]) -> int:
    """The index of the node ``SortedScoredNodes(...).pop()`` returns when every Randomizer is
    equal (the reference has no extenders): the root after ``heap.Init``, computed level by
    level with NumPy. ``down(i)`` leaves at ``i`` its own node unless the larger child root
    (the left one on a tie) has a strictly higher total, and children are heapified before
    their parent, so the root of each subtree follows from its children's roots."""
    n = len(totals)
    val = np.asarray(totals, dtype=np.int64)
    best_val = val.copy()
    best_idx = np.arange(n, dtype=np.intp)
    last = n // 2 - 1  # the last node with a child
    level_start = (1 << max(last + 1, 1).bit_length() - 1) - 1 if last >= 0 else 0
    while last >= 0:
        i = np.arange(level_start, last + 1, dtype=np.intp)
        left = 2 * i + 1
        right = np.minimum(left + 1, n - 1)
        take_right = (left + 1 < n) & (best_val[right] > best_val[left])
        child_val = np.where(take_right, best_val[right], best_val[left])
        child_idx = np.where(take_right, best_idx[right], best_idx[left])
        down = child_val > val[i]
        best_val[i] = np.where(down, child_val, val[i])
        best_idx[i] = np.where(down, child_idx, i)
        last = level_start - 1
        level_start = (level_start - 1) // 2
    return int(best_idx[0])


def select_host(scored: Iterable[_S]) -> _S:
    """The node upstream binds to: the top of the sorted scored nodes."""
    return SortedScoredNodes(scored).pop()


NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT = 3
"""``numberOfHighestScoredNodesToReport`` (v1.34.4 ``pkg/scheduler/schedule_one.go``)."""

HEAP = "heap"
RESERVOIR = "reservoir"
"""The variants of the ``select-host`` behaviour switch."""


def select_host_reservoir(scored: Iterable[_S], count: int, intn: Callable[[int], int]
                          ) -> tuple[str, list[_S]]:
    """v1.34.4 ``selectHost`` (``pkg/scheduler/schedule_one.go``): pop the heap until every node
    with the top score has been seen and ``count`` nodes are listed; the k-th top-scored node
    popped replaces the candidate when ``intn(k) == 0`` (``rand.Intn(cntOfMaxScore)``). Returns
    the chosen node's name and the popped list with the chosen node swapped to its head,
    truncated to ``count``. Upstream calls it with two nodes or more (one feasible node never
    reaches it; with one node its second ``heap.Pop`` panics)."""
    h = SortedScoredNodes(scored)
    if len(h) == 0:
        raise ValueError("empty priorityList")  # errEmptyPriorityList
    if len(h) == 1:
        raise ValueError("selectHost needs two nodes or more (upstream's heap.Pop panics)")
    cnt_of_max_score = 1
    selected_index = 0
    top = [h.pop()]
    while True:
        ns = h.pop()
        if ns.total != top[0].total and len(top) == count:
            break
        if ns.total == top[0].total:
            cnt_of_max_score += 1
            if intn(cnt_of_max_score) == 0:
                selected_index = cnt_of_max_score - 1
        top.append(ns)
        if len(h) == 0:
            break
    if selected_index != 0:
        top[0], top[selected_index] = top[selected_index], top[0]
    return top[0].name, top[:count]


def highest_scored(scored: Sequence[_Scored]) -> list[str]:
    """Names of every node sharing the highest total (the tie set), in the given order."""
    if not scored:
        return []
    best = max(s.total for s in scored)
    return [s.name for s in scored if s.total == best]
