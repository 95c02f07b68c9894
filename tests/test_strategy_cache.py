"""The cached strategy constructors (strategies/_cache.py): a cached strategy draws exactly what
a newly built one would, so the same seed gives the same scenarios byte for byte."""

from __future__ import annotations

import json
import random

from hypothesis import strategies as st
from hypothesis.internal.conjecture.data import ConjectureData

from conformance.engines.properties import Property, draw_scenarios
from strategies._cache import booleans, cached, clear_caches, composite, integers, sampled
from strategies.objects import PodContext


def _blob(prop: Property, seed: int, n: int) -> str:
    return json.dumps([[s.documents, s.config, s.seed] for s in draw_scenarios(prop, seed, n)],
                      sort_keys=True, default=str)


def test_warm_caches_draw_the_scenarios_of_empty_ones() -> None:
    prop = Property("small", "consistency")
    clear_caches()
    cold = _blob(prop, 7, 12)
    # the caches now hold the strategies of those scenarios (and of more, below)
    _blob(Property("small", "preemption"), 3, 12)
    assert _blob(prop, 7, 12) == cold


def test_cached_builds_once_per_hashable_arguments() -> None:
    built: list[object] = []

    @cached
    def make(*args: object) -> st.SearchStrategy[int]:
        built.append(args)
        return st.just(len(built))

    assert make(1, ("a",)) is make(1, ("a",))
    assert len(built) == 1
    # unhashable arguments: built every time, never an error
    assert make([1]) is not make([1])
    assert len(built) == 3


def test_pod_contexts_hash_by_value() -> None:
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
          "metadata": {"name": "high"}, "value": 1000}
    a = PodContext(priority_classes=(pc,))
    b = PodContext(priority_classes=(json.loads(json.dumps(pc)),))
    assert a == b and hash(a) == hash(b)
    c = PodContext(priority_classes=({**pc, "value": 999},))
    assert a != c


def test_options_equal_as_values_but_of_other_types_get_their_own_strategy() -> None:
    """``(0, 1) == (False, True)``: services draws an index from ``range(2)`` and ``sometimes``
    a bool from ``(False, True)``; whichever was built first was handed to the other, so a
    document could hold ``0`` where ``false`` was drawn."""
    clear_caches()
    ints = sampled(range(2))
    bools = sampled((False, True))
    assert ints is not bools
    assert [type(x) for x in bools.elements] == [bool, bool]  # type: ignore[attr-defined]
    assert [type(x) for x in ints.elements] == [int, int]  # type: ignore[attr-defined]

    @cached
    def make(x: object) -> st.SearchStrategy[object]:
        return st.just(x)

    assert make(1) is not make(True)


def _pairs(draw: st.DrawFn, items: list[int]) -> list[tuple[int, int]]:
    # booleans(): the leaf built at import; st.booleans() is that object only while
    # Hypothesis' cache of strategies keeps it (another test may have evicted it)
    return [(x, draw(integers(0, x))) for x in items if draw(booleans())]


def test_composite_draws_what_st_composite_draws() -> None:
    """``composite`` (a composite given new arguments at every draw, built without the lazy
    wrapper) has ``st.composite``'s label and makes the same choices for the same values;
    its draws from ``sampled``/``booleans``/``integers`` have no span of their own."""
    light = composite(_pairs)([3, 1, 4, 1, 5])
    heavy = st.composite(_pairs)([3, 1, 4, 1, 5])
    assert not isinstance(light, type(st.composite(_pairs)([3])))
    assert light.label == heavy.label
    for seed in range(30):
        data = ConjectureData(random=random.Random(seed))
        value = data.draw(heavy)
        replay = ConjectureData.for_choices(data.choices)
        assert replay.draw(light) == value and replay.choices == data.choices
        replay.freeze()
        data.freeze()
        if data.choices:
            assert len(replay.spans) < len(data.spans)
    assert st.tuples(light).label == st.tuples(st.composite(_pairs)([2])).label
