"""Host selection by release: the ``select-host`` switch (docs/release-differences.md
#select-host-heap) and the ``tie_uniformity`` oracle's expectation per release.

``reservoir`` restates v1.34.4 ``selectHost`` (``pkg/scheduler/schedule_one.go``; its cases in
``Test_SelectHost`` of ``schedule_one_test.go``); ``heap`` is v1.35.4+ (``newSortedNodeScores``
in v1.35/v1.36 ``schedule_one.go``, ``pkg/scheduler/framework/sorted_nodes.go`` in v1.37).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectResult
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import BUILD_HINT, UpstreamSubject, binary_available
from oracles.tie_uniformity import (
    DETERMINISTIC,
    UNIFORM,
    check_choices,
    chi_square_uniform,
    collect_choices,
    expected_mode,
    tie_uniformity,
)
from oracles.upstream_deviations import catalogue
from reference_impl.config import default_config
from reference_impl.framework.runtime import ScoredNode
from reference_impl.model.loader import load_documents
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases import load, supported_releases
from reference_impl.scheduler import schedule_one
from reference_impl.scheduler.explain import explain
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.select_host import select_host_reservoir

HEAP_RELEASES = [t for t in supported_releases() if load(t).behaviour("select-host") == "heap"]
GOLD = ("n3", "n4", "n5")
DEVIATION = "upstream-select-host-heap-not-uniform"


def sn(name: str, total: int) -> ScoredNode:
    s = ScoredNode(name)
    s.total = total
    return s


def scripted(*draws: int) -> tuple[Callable[[int], int], list[int]]:
    """An ``intn`` that returns ``draws`` in turn and records the bounds it was asked for."""
    it: Iterator[int] = iter(draws)
    asked: list[int] = []

    def intn(n: int) -> int:
        asked.append(n)
        d = next(it)
        assert 0 <= d < n
        return d
    return intn, asked


def names(nodes: list[ScoredNode]) -> list[str]:
    return [n.name for n in nodes]


# ----------------------------------------------------------------------------- the rule

def test_reservoir_keeps_the_last_top_node_whose_draw_is_zero() -> None:
    """Three tied nodes pop as a, c, b (Go's heap over equal totals); the k-th popped replaces
    the candidate when ``rand.Intn(k)`` is 0."""
    tied = [sn("a", 2), sn("b", 2), sn("c", 2)]
    for draws, want in [((1, 1), "a"), ((0, 1), "c"), ((1, 0), "b"), ((0, 0), "b")]:
        intn, asked = scripted(*draws)
        host, top = select_host_reservoir(tied, 3, intn)
        assert host == want and top[0].name == want, draws
        assert asked == [2, 3]
        assert sorted(names(top)) == ["a", "b", "c"]


def test_reservoir_samples_past_the_report_count_then_truncates() -> None:
    """Test_SelectHost "equal scores" (count 2, three tied): every tied node takes part in the
    sampling, the list is truncated after the swap."""
    tied = [sn("node2.1", 2), sn("node2.2", 2), sn("node2.3", 2)]
    intn, asked = scripted(1, 0)  # the third popped (node2.2) wins
    host, top = select_host_reservoir(tied, 2, intn)
    assert (host, names(top), asked) == ("node2.2", ["node2.2", "node2.3"], [2, 3])


def test_reservoir_lists_lower_scores_up_to_the_count() -> None:
    """Test_SelectHost "out of order scores" (count 3) and "numberOfNodeScoresToReturn >
    len(list)": lower-scored nodes fill the list to ``count``, draw nothing, never win."""
    nodes = [sn("node3.1", 3), sn("node2.1", 2), sn("node1.1", 1), sn("node3.2", 3)]
    intn, asked = scripted(1)
    host, top = select_host_reservoir(nodes, 3, intn)
    assert (host, names(top), asked) == ("node3.1", ["node3.1", "node3.2", "node2.1"], [2])
    host, top = select_host_reservoir(nodes, 3, scripted(0)[0])
    assert (host, names(top)) == ("node3.2", ["node3.2", "node3.1", "node2.1"])
    host, top = select_host_reservoir([sn("node1", 1), sn("node2", 2)], 100, scripted()[0])
    assert (host, names(top)) == ("node2", ["node2", "node1"])


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_reservoir_is_exactly_uniform_over_all_draws(k: int) -> None:
    """Over every sequence of draws (``Intn(2)``, ..., ``Intn(k)``, each value equally likely)
    each tied node wins (k-1)! times: the reservoir is uniform, whatever the heap order."""
    tied = [sn(f"n{i}", 7) for i in range(k)] + [sn("low", 1)]
    wins: Counter[str] = Counter()
    for draws in itertools.product(*(range(n) for n in range(2, k + 1))):
        wins[select_host_reservoir(tied, 3, scripted(*draws)[0])[0]] += 1
    assert wins == {f"n{i}": wins["n0"] for i in range(k)}
    assert sum(wins.values()) == len(list(itertools.permutations(range(k))))


def test_reservoir_refuses_what_upstream_never_passes_it() -> None:
    with pytest.raises(ValueError, match="empty priorityList"):
        select_host_reservoir([], 3, scripted()[0])
    with pytest.raises(ValueError, match="two nodes or more"):
        select_host_reservoir([sn("only", 1)], 3, scripted()[0])


# ----------------------------------------------------------------------------- scheduler runs

def tie_documents() -> list[dict]:
    """The scenario of the catalogue entry ``upstream-select-host-heap-not-uniform``
    (oracles/deviations/select-host-heap-not-uniform.yaml): n3, n4 and n5 carry the label the
    pod prefers and tie for the top score; n1 and n2 score lower. Go's heap over this order pops
    n4 (neither the first nor the last tied)."""
    text = catalogue()[DEVIATION].scenario.read_text(encoding="utf-8")
    return ScenarioInput.from_yaml(text, name=DEVIATION).documents


def scheduler(tag: str, seed: int, docs: list[dict] | None = None) -> Scheduler:
    cluster = load_documents(docs if docs is not None else tie_documents()).cluster
    return Scheduler(cluster, default_config(in_tree_registry(), load(tag)), seed=seed)


def choices(tag: str, seeds: range) -> list[str]:
    out = []
    for seed in seeds:
        s = scheduler(tag, seed)
        out.append(s.run().bindings["default/p"])
        assert s.attempts[0].candidates == list(GOLD)
    return out


def test_v1_34_4_spreads_tied_nodes_uniformly_over_seeds() -> None:
    picked = choices("v1.34.4", range(200))
    counts = Counter(picked)
    assert set(counts) == set(GOLD)
    _, p = chi_square_uniform([counts[n] for n in GOLD])
    assert p > 0.001, counts
    assert choices("v1.34.4", range(20)) == picked[:20]  # a seed replays its choice


@pytest.mark.parametrize("tag", HEAP_RELEASES)
def test_heap_releases_pick_the_heaps_node_for_every_seed(tag: str) -> None:
    assert Counter(choices(tag, range(200))) == {"n4": 200}


def test_v1_34_4_draws_only_when_nodes_tie() -> None:
    """One top-scored node: ``selectHost`` makes no draw, so the seeded stream is untouched."""
    docs = tie_documents()
    for d in docs[2:4]:  # n3 and n4 lose the label: n5 alone scores highest
        del d["metadata"]["labels"]["tier"]
    s = scheduler("v1.34.4", 5, docs)
    before = s.rng.getstate()
    assert s.run().bindings["default/p"] == "n5"
    assert s.rng.getstate() == before
    s = scheduler("v1.34.4", 5)
    s.run()
    assert s.rng.getstate() != before


def test_explain_does_not_spend_the_draws_of_the_real_attempt() -> None:
    """The node explain selects on a reservoir release is the one the next attempt binds."""
    for seed in range(12):
        s = scheduler("v1.34.4", seed)
        selected = explain(s, s.cluster.pods[0]).selected
        assert s.run().bindings["default/p"] == selected, seed


# ----------------------------------------------------------------------------- the oracle

class ReleaseReference(ReferenceSubject):
    """The reference made for a release, given scenarios of that release (as the engines set
    every scenario's release to the run's)."""

    def __init__(self, tag: str) -> None:
        super().__init__(release=tag)

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        return super().run(scenario.derived(release=self.release))


SCENARIO = ScenarioInput(tie_documents(), None, 0, "ties")


def test_expected_mode_follows_the_select_host_switch() -> None:
    assert expected_mode(load("v1.34.4")) == UNIFORM
    for tag in HEAP_RELEASES:
        assert expected_mode(load(tag)) == DETERMINISTIC
    assert HEAP_RELEASES == ["v1.35.4", "v1.36.3", "v1.37.2"]


def reservoir_keeping_the_first(scored: list, count: int, intn: Callable[[int], int]
                                ) -> tuple[str, list]:
    """A planted bug: the reservoir never replaces its first candidate."""
    del intn
    return select_host_reservoir(scored, count, lambda n: 1)


def test_uniform_oracle_accepts_the_reservoir_and_catches_a_biased_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    subject = ReleaseReference("v1.34.4")
    tc = collect_choices(subject, SCENARIO, "default/p", 200)
    assert tc.candidates == list(GOLD)
    mode = expected_mode(load(subject.release))
    assert check_choices(tc, mode, allow_underpowered=True) == []
    monkeypatch.setattr(schedule_one, "select_host_reservoir", reservoir_keeping_the_first)
    biased = collect_choices(subject, SCENARIO, "default/p", 200)
    assert Counter(biased.choices) == {"n4": 200}
    v = check_choices(biased, mode, allow_underpowered=True)
    assert len(v) == 1 and "not uniform" in v[0].message


def test_oracle_reads_the_subjects_release() -> None:
    """Without ``expect`` the oracle judges a heap release deterministically (20 runs) and the
    reservoir release as uniform, which the reservoir is not deterministic for."""
    for tag in HEAP_RELEASES:
        assert tie_uniformity(ReleaseReference(tag), SCENARIO, "default/p") == [], tag
    v = tie_uniformity(ReleaseReference("v1.34.4"), SCENARIO, "default/p", runs=20,
                       expect=DETERMINISTIC)
    assert len(v) == 1 and "same tie-break" in v[0].message
    with pytest.raises(ValueError, match="need"):  # uniform: 20 runs are too few to judge
        tie_uniformity(ReleaseReference("v1.34.4"), SCENARIO, "default/p", runs=20)
    assert tie_uniformity(ReleaseReference("v1.37.2"), SCENARIO, "default/p",
                          release=load("v1.37.2")) == []


def test_the_upstream_subject_breaks_the_tie_as_the_heap() -> None:
    """The built upstream subject (the pinned release) pops n4 whatever the seed or the node
    names, as the reference's heap does, and the oracle keyed by its release accepts it."""
    if not binary_available():
        pytest.skip("no upstream subject binary: " + BUILD_HINT)
    subject = UpstreamSubject()
    assert load(subject.release).behaviour("select-host") == "heap"
    tc = collect_choices(subject, SCENARIO, "default/p", 12)
    assert (tc.candidates, Counter(tc.choices)) == (list(GOLD), {"n4": 12})
    assert tie_uniformity(subject, SCENARIO, "default/p", vary="names") == []
