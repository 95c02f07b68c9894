"""Host selection: ``SortedScoredNodes`` (Go ``container/heap`` emulation) and ``select_host``.

Cases restate upstream v1.37.2:
- ``pkg/scheduler/framework/sorted_nodes_test.go`` (TestSortedScoredNodes_Pop,
  TestSortedScoredNodes_Len, TestSortedScoredNodes_List);
- ``pkg/scheduler/schedule_one_test.go`` (Test_SelectHost).

``GO_HEAP_VECTORS`` were produced by a throw-away Go program (not part of this repository) that
builds random ``[]item{total, randomizer}`` slices (rand.NewSource(1372), 40 cases, 1-14
items, scores 0-4, Randomizer 0-2 in every fourth case), runs ``heap.Init`` with the ``Less`` of
``nodeScoreHeap`` in ``pkg/scheduler/framework/sorted_nodes.go`` (higher TotalScore, then higher
Randomizer) and prints the heap layout after ``Init`` and the ``heap.Pop`` order. Each vector is
``(totals, randomizers, layout after Init, pop order)``; nodes are named by their input index.
Ties are where the layout matters: Go's heap is not stable, and upstream picks the first popped.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.framework.runtime import ScoredNode
from reference_impl.scheduler.select_host import (
    SortedScoredNodes,
    heap_top,
    highest_scored,
    select_host,
)


def sn(name: str, total: int, randomizer: int = 0) -> ScoredNode:
    s = ScoredNode(name)
    s.total = total
    s.randomizer = randomizer
    return s


def triples(nodes: list) -> list[tuple[str, int, int]]:
    return [(n.name, n.total, n.randomizer) for n in nodes]


def pop_all(h: SortedScoredNodes) -> list:
    out = []
    while len(h) > 0:
        out.append(h.pop())
    return out


GO_HEAP_VECTORS = [
    ([2, 1, 0, 2, 0, 0],
     [0, 0, 0, 0, 0, 0],
     [0, 3, 2, 1, 4, 5],
     [0, 3, 1, 5, 2, 4]),
    ([0, 0, 3, 0, 1, 0, 0, 3],
     [0, 0, 0, 0, 0, 0, 0, 0],
     [7, 4, 2, 1, 0, 5, 6, 3],
     [7, 2, 4, 5, 0, 1, 3, 6]),
    ([0, 2, 0, 2, 1, 1, 2, 1, 0],
     [0, 0, 0, 0, 0, 0, 0, 0, 0],
     [1, 3, 6, 7, 4, 5, 2, 0, 8],
     [1, 3, 6, 7, 4, 5, 8, 2, 0]),
    ([1, 2, 1, 1, 2, 0, 1, 0, 0, 1, 0, 0],
     [2, 1, 1, 2, 0, 2, 0, 0, 1, 2, 0, 1],
     [1, 4, 2, 3, 0, 5, 6, 7, 8, 9, 10, 11],
     [1, 4, 3, 0, 9, 2, 6, 5, 8, 11, 7, 10]),
    ([1, 1, 0],
     [0, 0, 0],
     [0, 1, 2],
     [0, 1, 2]),
    ([2, 1, 0, 0, 0, 0, 0, 2, 0],
     [0, 0, 0, 0, 0, 0, 0, 0, 0],
     [0, 7, 2, 1, 4, 5, 6, 3, 8],
     [0, 7, 1, 6, 5, 4, 8, 2, 3]),
    ([0, 0, 1],
     [0, 0, 0],
     [2, 1, 0],
     [2, 0, 1]),
    ([3, 2, 0, 2, 0, 0, 2, 1],
     [2, 1, 1, 0, 1, 2, 0, 2],
     [0, 1, 6, 3, 4, 5, 2, 7],
     [0, 1, 3, 6, 7, 5, 2, 4]),
    ([0, 1, 1, 0, 0],
     [0, 0, 0, 0, 0],
     [1, 0, 2, 3, 4],
     [1, 2, 3, 4, 0]),
    ([2, 2, 1, 0, 2, 2, 0, 2, 0, 1, 0, 2],
     [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
     [0, 1, 5, 7, 4, 11, 6, 3, 8, 9, 10, 2],
     [0, 1, 7, 4, 5, 11, 2, 9, 6, 10, 3, 8]),
    ([0, 0, 1, 1, 0],
     [0, 0, 0, 0, 0],
     [3, 0, 2, 1, 4],
     [3, 2, 1, 4, 0]),
    ([2, 4, 2, 4, 1, 1, 3],
     [1, 2, 1, 0, 2, 2, 2],
     [1, 3, 6, 0, 4, 5, 2],
     [1, 3, 6, 2, 0, 5, 4]),
    ([3, 2],
     [0, 0],
     [0, 1],
     [0, 1]),
    ([0],
     [0],
     [0],
     [0]),
    ([0],
     [0],
     [0],
     [0]),
    ([2, 4, 4, 4, 4, 3, 0],
     [2, 0, 0, 2, 2, 1, 2],
     [3, 4, 2, 1, 0, 5, 6],
     [3, 4, 1, 2, 5, 0, 6]),
    ([1, 1, 2, 0, 2],
     [0, 0, 0, 0, 0],
     [4, 0, 2, 3, 1],
     [4, 2, 0, 1, 3]),
    ([1, 0, 1, 3],
     [0, 0, 0, 0],
     [3, 0, 2, 1],
     [3, 0, 2, 1]),
    ([0, 0, 2, 1, 2, 1, 0, 0, 0, 0],
     [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
     [4, 3, 2, 0, 1, 5, 6, 7, 8, 9],
     [4, 2, 3, 5, 6, 9, 1, 0, 7, 8]),
    ([0, 1, 2, 0, 0, 0],
     [0, 0, 0, 1, 0, 0],
     [2, 1, 0, 3, 4, 5],
     [2, 1, 3, 5, 0, 4]),
    ([3, 0, 2, 0, 0, 1, 2, 3],
     [0, 0, 0, 0, 0, 0, 0, 0],
     [0, 7, 2, 1, 4, 5, 6, 3],
     [0, 7, 6, 2, 5, 1, 4, 3]),
    ([4, 0, 0, 3, 0, 1, 2, 1, 2, 4],
     [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
     [0, 9, 6, 3, 1, 5, 2, 7, 8, 4],
     [0, 9, 3, 8, 6, 7, 5, 4, 1, 2]),
    ([0, 0, 4, 4, 3, 4],
     [0, 0, 0, 0, 0, 0],
     [3, 4, 2, 1, 0, 5],
     [3, 5, 2, 4, 0, 1]),
    ([1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0],
     [2, 0, 0, 2, 1, 1, 0, 1, 0, 1, 0, 2, 0, 0],
     [0, 3, 2, 7, 4, 11, 6, 1, 8, 9, 10, 5, 12, 13],
     [0, 3, 7, 4, 9, 8, 10, 2, 6, 11, 5, 13, 1, 12]),
    ([0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 0],
     [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
     [1, 3, 11, 7, 4, 2, 6, 0, 8, 9, 10, 5, 12],
     [1, 3, 7, 4, 11, 8, 0, 6, 2, 5, 12, 9, 10]),
    ([2, 2, 4, 4, 1, 2, 0, 3, 3, 4],
     [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
     [3, 9, 2, 7, 0, 5, 6, 1, 8, 4],
     [3, 9, 2, 7, 8, 1, 0, 5, 4, 6]),
    ([3, 2, 2, 0, 1, 0, 1, 3, 1],
     [0, 0, 0, 0, 0, 0, 0, 0, 0],
     [0, 7, 2, 1, 4, 5, 6, 3, 8],
     [0, 7, 1, 2, 8, 4, 6, 3, 5]),
    ([0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1],
     [1, 2, 1, 2, 2, 1, 0, 2, 0, 2, 2],
     [1, 3, 2, 8, 10, 5, 6, 7, 0, 9, 4],
     [1, 3, 10, 8, 9, 7, 4, 5, 0, 2, 6]),
    ([2, 1, 2],
     [0, 0, 0],
     [0, 1, 2],
     [0, 2, 1]),
    ([3, 2, 3, 1, 2, 3, 3, 3, 0, 3, 0, 2, 3, 1],
     [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
     [0, 7, 2, 1, 9, 5, 6, 3, 8, 4, 10, 11, 12, 13],
     [0, 7, 12, 9, 2, 5, 6, 11, 1, 4, 3, 13, 10, 8]),
    ([0, 0, 1, 1, 1, 1],
     [0, 0, 0, 0, 0, 0],
     [3, 4, 2, 1, 0, 5],
     [3, 5, 4, 2, 1, 0]),
    ([2, 0, 1, 2, 3],
     [2, 1, 0, 1, 2],
     [4, 0, 2, 3, 1],
     [4, 0, 3, 2, 1]),
    ([3, 3, 1],
     [0, 0, 0],
     [0, 1, 2],
     [0, 1, 2]),
    ([1, 1],
     [0, 0],
     [0, 1],
     [0, 1]),
    ([0, 1, 4, 1, 1, 3, 1, 3, 2, 0, 4],
     [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
     [10, 7, 2, 8, 1, 5, 6, 3, 0, 9, 4],
     [10, 2, 7, 5, 8, 6, 3, 1, 4, 9, 0]),
    ([1, 1, 2, 0, 0, 0],
     [1, 2, 0, 0, 1, 0],
     [2, 1, 0, 3, 4, 5],
     [2, 1, 0, 4, 5, 3]),
    ([0, 1, 3, 0, 1, 1],
     [0, 0, 0, 0, 0, 0],
     [2, 1, 5, 3, 4, 0],
     [2, 1, 4, 5, 3, 0]),
    ([0, 0, 1],
     [0, 0, 0],
     [2, 1, 0],
     [2, 0, 1]),
    ([1, 1, 1, 1, 1],
     [0, 0, 0, 0, 0],
     [0, 1, 2, 3, 4],
     [0, 4, 3, 2, 1]),
    ([1, 0, 0, 1, 3, 1, 0],
     [0, 0, 1, 2, 2, 1, 0],
     [4, 3, 5, 0, 1, 2, 6],
     [4, 3, 5, 0, 2, 6, 1]),
]


# ----- sorted_nodes_test.go: TestSortedScoredNodes_Pop ---------------------------------------

@pytest.mark.parametrize("name,given,want", [
    ("empty", [], []),
    ("single node", [("node1", 5, 0)], [("node1", 5, 0)]),
    ("descending by TotalScore",
     [("node1", 1, 0), ("node3", 3, 0), ("node2", 2, 0)],
     [("node3", 3, 0), ("node2", 2, 0), ("node1", 1, 0)]),
    ("tie-break by Randomizer",
     [("nodeA", 5, 1), ("nodeB", 5, 3), ("nodeC", 5, 2)],
     [("nodeB", 5, 3), ("nodeC", 5, 2), ("nodeA", 5, 1)]),
    ("mixed scores and tie-breaks",
     [("node3.1", 3, 1), ("node2", 2, 0), ("node1", 1, 0), ("node3.2", 3, 2)],
     [("node3.2", 3, 2), ("node3.1", 3, 1), ("node2", 2, 0), ("node1", 1, 0)]),
])
def test_sorted_scored_nodes_pop(name, given, want):
    """sorted_nodes_test.go TestSortedScoredNodes_Pop."""
    h = SortedScoredNodes([sn(*t) for t in given])
    assert triples(pop_all(h)) == want


def test_sorted_scored_nodes_len():
    """sorted_nodes_test.go TestSortedScoredNodes_Len."""
    h = SortedScoredNodes([sn("node1", 10), sn("node2", 20), sn("node3", 30)])
    for want in (3, 2, 1):
        assert len(h) == want
        h.pop()
    assert len(h) == 0


@pytest.mark.parametrize("name,given,pops,want", [
    ("empty", [], 0, []),
    ("all nodes before any pops", [("node1", 1), ("node2", 2), ("node3", 3)], 0,
     [("node1", 1, 0), ("node2", 2, 0), ("node3", 3, 0)]),
    ("remaining nodes after a pop", [("node1", 1), ("node2", 2), ("node3", 3)], 1,
     [("node1", 1, 0), ("node2", 2, 0)]),
    ("empty after all pops", [("node1", 1), ("node2", 2)], 2, []),
])
def test_sorted_scored_nodes_unordered_list(name, given, pops, want):
    """sorted_nodes_test.go TestSortedScoredNodes_List (compared sorted by name, as upstream)."""
    h = SortedScoredNodes([sn(*t) for t in given])
    for _ in range(pops):
        h.pop()
    got = h.unordered()
    assert sorted(triples(got)) == want
    got.clear()  # UnorderedList is a copy of the outer slice
    assert len(h) == len(want)


# ----- schedule_one_test.go: Test_SelectHost -------------------------------------------------

@pytest.mark.parametrize("name,given,want", [
    ("unique properly ordered scores",
     [("node1", 1, 0), ("node2", 2, 0)],
     [("node2", 2, 0), ("node1", 1, 0)]),
    ("equal scores",
     [("node2.2", 2, 2), ("node2.1", 2, 1), ("node2.3", 2, 3)],
     [("node2.3", 2, 3), ("node2.2", 2, 2), ("node2.1", 2, 1)]),
    ("out of order scores",
     [("node3.1", 3, 1), ("node2.1", 2, 0), ("node1.1", 1, 0), ("node3.2", 3, 2)],
     [("node3.2", 3, 2), ("node3.1", 3, 1), ("node2.1", 2, 0), ("node1.1", 1, 0)]),
])
def test_select_host(name, given, want):
    """schedule_one_test.go Test_SelectHost: popping the sorted scored nodes."""
    nodes = [sn(*t) for t in given]
    assert triples(pop_all(SortedScoredNodes(nodes))) == want
    assert select_host(nodes).name == want[0][0]


# ----- Go container/heap vectors -----------------------------------------------------------

@pytest.mark.parametrize("totals,randomizers,layout,order", GO_HEAP_VECTORS)
def test_go_heap_layout_and_pop_order(totals, randomizers, layout, order):
    """heap.Init layout and heap.Pop order equal Go's for the same input order."""
    nodes = [sn(str(i), t, r) for i, (t, r) in enumerate(zip(totals, randomizers, strict=True))]
    h = SortedScoredNodes(nodes)
    assert [int(n.name) for n in h.unordered()] == layout
    assert [int(n.name) for n in pop_all(h)] == order
    assert select_host(nodes).name == str(order[0])


def test_go_heap_vectors_exercise_unstable_ties():
    """The vectors must contain cases where a later-input node with an equal score pops first,
    i.e. where a stable sort would choose differently (otherwise they test nothing)."""
    unstable = 0
    for totals, _r, _layout, order in GO_HEAP_VECTORS:
        stable = sorted(range(len(totals)), key=lambda i, t=totals: -t[i])
        if stable != order and _r == [0] * len(totals):
            unstable += 1
    assert unstable >= 10


def test_ties_are_decided_by_heap_layout_not_input_order():
    """Without extenders every Randomizer is 0 (schedule_one.go prioritizeNodes), so among
    equal totals the winner is the heap top: for [1, 0, 1, 1] Go's heap.Init keeps node 0 on
    top, but after one pop the next equal node is 3, not 2."""
    h = SortedScoredNodes([sn("a", 1), sn("b", 0), sn("c", 1), sn("d", 1)])
    assert [n.name for n in pop_all(h)] == ["a", "d", "c", "b"]


def test_highest_scored_lists_the_tie_set_in_given_order():
    nodes = [sn("x", 3), sn("y", 5), sn("z", 5), sn("w", 1)]
    assert highest_scored(nodes) == ["y", "z"]
    assert highest_scored([]) == []


@pytest.mark.parametrize("totals,randomizers,layout,order", GO_HEAP_VECTORS)
def test_heap_top_is_the_first_pop_of_the_go_heap_vectors(totals, randomizers, layout, order):
    if len(set(randomizers)) == 1:
        assert totals and heap_top(totals) == order[0]


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=140)
       | st.lists(st.integers(0, 1), min_size=1, max_size=600))
def test_heap_top_is_what_the_heap_pops(totals: list[int]) -> None:
    """``heap_top`` (the walk-order shortcut of the hot path) against the Go heap, with many
    ties, from a list and from the NumPy totals the vectorised Score gives."""
    nodes = [ScoredNode(f"n{i}") for i in range(len(totals))]
    for sn, t in zip(nodes, totals, strict=True):
        sn.total = t
    top = SortedScoredNodes(nodes).pop().name
    assert nodes[heap_top(totals)].name == top
    assert nodes[heap_top(np.array(totals, dtype=np.int64))].name == top
