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


def heap_top(totals: Sequence[int] | np.ndarray) -> int:
    """The index of the node ``SortedScoredNodes(...).pop()`` returns when every Randomizer is
    equal (the reference has no extenders): the root after ``heap.Init``, without the heap.
    ``down(i)`` leaves at ``i`` its own node unless the larger child root (the left one on a
    tie) has a strictly higher total, and children are heapified before their parent, so each
    subtree's root holds its maximum: the root of the whole heap is reached by a walk from
    index 0 that stops at the first node holding the maximum total M and otherwise enters the
    left subtree when it holds an M, else the right one. Numbering the nodes from 1 (children
    of k: 2k, 2k+1), that walk prefers, of two nodes holding M, the ancestor, else the one in
    the left subtree of their lowest common ancestor: the least ``(k << (D - len(k)), len(k))``
    (``len``: bit length, D: that of the node count), k padded with 0 bits (left) to one depth.
    One node holding M is the root at once."""
    depth = len(totals).bit_length()
    if isinstance(totals, np.ndarray):
        k = np.flatnonzero(totals == totals.max()) + 1
        if len(k) == 1:
            return int(k[0]) - 1
        bits = np.frexp(k.astype(np.float64))[1].astype(np.int64)  # exact: k < 2**53
        # (padded, bits) as one int64: bits < 64, padded < 2**depth
        return int(k[np.argmin(((k << (depth - bits)) << 6) | bits)]) - 1
    best = max(totals)
    positions = [i for i, t in enumerate(totals) if t == best]
    if len(positions) == 1:
        return positions[0]

    def walk_order(i: int) -> tuple[int, int]:
        k = i + 1
        bits = k.bit_length()
        return k << (depth - bits), bits

    return min(positions, key=walk_order)


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
