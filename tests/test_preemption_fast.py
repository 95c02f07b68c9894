"""Preemption's fast paths give exactly what the specification gives.

The fast paths: the dry run's ``select_victims_on_node`` without copies
(``reference_impl/plugins/defaultpreemption/fast_victims.py``, through
``Evaluator.fast_dry_run``) and RunFilterPluginsWithNominatedPods without copies
(``reference_impl/plugins/resource_only.py``, used by the Filter search). The specification:
``DefaultPreemption.select_victims_on_node``, ``Evaluator.dry_run_preemption`` and
``Framework.run_filter_plugins_with_nominated_pods``. Checked node by node inside whole
simulations (every call of a fast path is compared with the specification on the same node,
state and nominations) and simulation by simulation (fast paths on and off), on generated
preemption-heavy clusters and on the harness's generated clusters; a planted bug in the fast
path must be caught.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference_impl.framework import vectorised
from reference_impl.framework.preemption.preemption import Evaluator
from reference_impl.framework.preemption.types import DomainVictim
from reference_impl.framework.status import Status
from reference_impl.framework.types import NodeInfo
from reference_impl.model.loader import load_documents
from reference_impl.plugins import resource_only
from reference_impl.plugins.defaultpreemption import fast_victims
from reference_impl.plugins.defaultpreemption.default_preemption import DefaultPreemption
from reference_impl.releases import load
from reference_impl.scheduler import schedule_one
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import run_simulation
from reference_impl.testing.wrappers import (
    make_node,
    make_pdb,
    make_pod,
    make_priority_class,
)
from strategies import clusters, pending_pods
from strategies.sizes import Sizes

RELEASES = ("v1.34.4", "v1.37.2")
SIZES = Sizes(max_nodes=8, max_running_pods=14, max_pending_pods=8)
PRIORITIES = (("low", 10), ("mid", 100), ("high", 1000))
NEVER = 10**9


@st.composite
def preemption_docs(draw: st.DrawFn) -> list[dict]:
    """Small nodes filled with pods of three priorities, PDBs over some of them, then pending
    pods of higher priorities (some with a host port, a node selector or a toleration, so that
    both the fast paths and their fallbacks run)."""
    docs: list[dict] = [make_priority_class(n, v).manifest() for n, v in PRIORITIES]
    n = draw(st.integers(1, 6))
    for i in range(n):
        node = make_node(f"n{i}").label("pool", f"p{i % 2}").capacity(
            cpu=str(draw(st.integers(1, 4))), memory=f"{draw(st.integers(1, 4))}Gi",
            pods=str(draw(st.integers(2, 5))))
        if draw(st.integers(0, 5)) == 0:
            node.taint("dedicated")
        if draw(st.integers(0, 7)) == 0:
            node.unschedulable()
        docs.append(node.manifest())
    for j in range(draw(st.integers(0, 14))):
        pod = make_pod(f"r{j}").node(f"n{draw(st.integers(0, n - 1))}").label(
            "app", draw(st.sampled_from(("a", "b")))).priority_class(
            draw(st.sampled_from(PRIORITIES))[0]).start_time(draw(st.integers(0, 5)))
        pod.req(cpu=f"{draw(st.integers(0, 12)) * 100}m",
                memory=f"{draw(st.integers(0, 8)) * 256}Mi")
        docs.append(pod.manifest())
    for k in range(draw(st.integers(0, 2))):
        docs.append(make_pdb(f"pdb{k}").match_label("app", "ab"[k]).disruptions_allowed(
            draw(st.integers(0, 1))).manifest())
    for j in range(draw(st.integers(1, 6))):
        # few shapes, so that dry runs repeat on unchanged nodes (the fast path's cache)
        pod = make_pod(f"p{j}").priority_class(draw(st.sampled_from(("mid", "high")))).req(
            cpu=f"{draw(st.sampled_from((1, 5, 10, 30))) * 100}m",
            memory=f"{draw(st.sampled_from((0, 2, 8))) * 256}Mi")
        extra = draw(st.integers(0, 6))
        if extra == 0:
            pod.host_port(8080)
        elif extra == 1:
            pod.node_selector({"pool": "p0"})
        elif extra == 2:
            pod.toleration("dedicated")
        docs.append(pod.manifest())
    return docs


@st.composite
def generated_docs(draw: st.DrawFn) -> list[dict]:
    """The harness's generated clusters (every feature) and pending pods."""
    cluster = draw(clusters(SIZES))
    return cluster.documents(draw(pending_pods(cluster, SIZES)))


def _status_view(s: Status | None) -> tuple[Any, ...] | None:
    if s is None or s.is_success():
        return None
    return s.code, tuple(s.all_reasons()), s.plugin


def _victim_view(v: DomainVictim) -> tuple[Any, ...]:
    """A victim's pods, priority, key type, nodes and start time (a status.startTime; a
    reading of now is compared by kind only: each build reads it anew)."""
    t = v.earliest_start_time
    return ([pi.pod.key for pi in v.pods], v.priority, v.key_type,
            {k: id(n) for k, n in v.affected_nodes.items()}, t if t and t[0] == 0 else "now")


class Checked:
    """Wraps the fast paths so that each call is compared with the specification on the same
    inputs; ``mismatches`` lists the differences, ``fast_calls`` counts the calls compared."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.mismatches: list[str] = []
        self.fast_calls = 0
        real_selector = DefaultPreemption.victim_selector
        real_runner = resource_only.nominated_runner

        def victim_selector(plugin: DefaultPreemption, state: Any, pod: Any) -> Any:
            select = real_selector(plugin, state, pod)
            if select is None:
                return None

            def scan(nodes: Any, victims_of: Callable[[NodeInfo], list], pdbs: Any) -> Any:
                nodes = list(nodes)  # the dry run's scan over its nodes, each answer checked
                for ni, got in zip(nodes, select.scan(nodes, victims_of, pdbs), strict=True):
                    if isinstance(got, fast_victims.Failed):
                        yield got
                    else:
                        yield checked(ni, victims_of, pdbs, got)

            def checked(ni: NodeInfo, victims_of: Callable[[NodeInfo], list], pdbs: Any,
                        got: Any) -> Any:
                if got is None:
                    return None
                self.fast_calls += 1
                pods, num, status = plugin.select_victims_on_node(state, pod, ni, victims_of(ni),
                                                                  pdbs)
                if got is fast_victims.UNDECIDED:
                    if status is None or status.is_success():
                        self.mismatches.append(f"{pod.key} on {ni.node.name}: undecided, spec "
                                               f"{[p.key for p in pods]}")
                    return got
                assert isinstance(got, tuple)
                fast = ([p.key for p in got[0]], got[1], _status_view(got[2]))
                spec = ([p.key for p in pods], num, _status_view(status))
                if fast != spec:
                    self.mismatches.append(f"{pod.key} on {ni.node.name}: {fast} != {spec}")
                return got
            return fast_victims.FastSelect(scan)

        def nominated_runner(fw: Any, state: Any, pod: Any
                             ) -> Callable[[NodeInfo], Status | None] | None:
            return self.filters_checked("filters", fw, state, pod, real_runner(fw, state, pod))

        real_victims = Evaluator.pod_victims_on_node

        def pod_victims_on_node(ev: Evaluator, ni: NodeInfo, below: int) -> list:
            got = real_victims(ev, ni, below)
            spec = ev.get_victims_on_node(ni, below)
            if [_victim_view(v) for v in got] != [_victim_view(v) for v in spec]:
                self.mismatches.append(f"victims on {ni.node.name} below {below}")
            return got

        real_columns = resource_only.column_runner

        def column_runner(fw: Any, state: Any, pod: Any, cols: Any, nominated: Any,
                          fallback: Any, sums: Any = None) -> Any:
            runner = real_columns(fw, state, pod, cols, nominated, fallback, sums)
            if runner is None:
                return None
            return CheckedColumns(self, runner, fw, state, pod, cols.infos)

        monkeypatch.setattr(schedule_one, "column_runner", column_runner)
        monkeypatch.setattr(Evaluator, "pod_victims_on_node", pod_victims_on_node)
        monkeypatch.setattr(DefaultPreemption, "victim_selector", victim_selector)
        monkeypatch.setattr(schedule_one, "nominated_runner", nominated_runner)


    def filters_checked(self, label: str, fw: Any, state: Any, pod: Any,
                        run: Callable[[NodeInfo], Status | None] | None
                        ) -> Callable[[NodeInfo], Status | None] | None:
        """``run`` (a fast RunFilterPluginsWithNominatedPods), each call compared with the
        framework's."""
        if run is None:
            return None
        fast_run = run

        def checked(ni: NodeInfo) -> Status | None:
            got = fast_run(ni)
            self.fast_calls += 1
            spec = fw.run_filter_plugins_with_nominated_pods(state, pod, ni)
            if _status_view(got) != _status_view(spec):
                self.mismatches.append(f"{pod.key} {label} on {ni.node.name}: "
                                       f"{_status_view(got)} != {_status_view(spec)}")
            return got
        return checked


class CheckedColumns:
    """A ``resource_only.ColumnRunner`` whose answers are compared with the framework's: each
    call, every decided row's ``rejected`` bit, and each status :meth:`statuses` builds."""

    def __init__(self, checked: Checked, runner: Any, fw: Any, state: Any, pod: Any,
                 infos: list[NodeInfo]) -> None:
        self._checked, self._runner, self._infos = checked, runner, infos
        self._spec = lambda ni: fw.run_filter_plugins_with_nominated_pods(state, pod, ni)
        self._key = pod.key
        self.decided, self.rejected = runner.decided, runner.rejected
        self._call = checked.filters_checked("columns", fw, state, pod, runner)
        for row in np.flatnonzero(self.decided).tolist():
            spec = _status_view(self._spec(infos[row]))
            if bool(self.rejected[row]) != (spec is not None):
                checked.mismatches.append(f"{self._key} rejected on {infos[row].node.name}: "
                                          f"{bool(self.rejected[row])}, spec {spec}")

    def __call__(self, ni: NodeInfo) -> Status | None:
        assert self._call is not None
        return self._call(ni)

    def statuses(self, rows: Any, names: list[str]) -> Any:
        got = self._runner.statuses(rows, names)  # returned unread: built lazily later
        built = self._runner.statuses(rows, names)
        for i, row in enumerate(rows.tolist()):
            self._checked.fast_calls += 1
            ni = self._infos[row]
            fast, spec = _status_view(built.status(i)), _status_view(self._spec(ni))
            if names[i] != ni.node.name or fast != spec:
                self._checked.mismatches.append(f"{self._key} statuses on {names[i]}: "
                                                f"{fast} != {spec}")
        return got


def _simulate(docs: list[dict], release: str) -> Any:
    return run_simulation(Scheduler(load_documents(docs).cluster, seed=5, release=load(release)))


def _spec_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(DefaultPreemption, "victim_selector", lambda self, state, pod: None)
    monkeypatch.setattr(schedule_one, "nominated_runner", lambda fw, state, pod: None)
    monkeypatch.setattr(vectorised, "MIN_NODES", NEVER)


def _compare(docs: list[dict], release: str, min_nodes: int = 1) -> Checked:
    """The specification (per-node search, no fast path) against the fast paths, with the
    vectorised search (and the column statuses) from ``min_nodes`` nodes on."""
    with pytest.MonkeyPatch.context() as mp:
        _spec_only(mp)
        spec = _simulate(docs, release)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(vectorised, "MIN_NODES", min_nodes)
        mp.setattr(schedule_one, "COLUMN_STATUSES_MIN", 1)
        checked = Checked(mp)
        fast = _simulate(docs, release)
    assert checked.mismatches == []
    assert fast == spec
    for a, b in zip(fast.attempts, spec.attempts, strict=True):
        assert list(a.reasons.items()) == list(b.reasons.items())
    return checked


@pytest.mark.parametrize("min_nodes", [1, NEVER])
@pytest.mark.parametrize("release", RELEASES)
@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(docs=preemption_docs())
def test_preemption_clusters_match_the_spec(release: str, min_nodes: int,
                                            docs: list[dict]) -> None:
    _compare(docs, release, min_nodes)


@pytest.mark.parametrize("release", RELEASES)
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(docs=generated_docs())
def test_generated_clusters_match_the_spec(release: str, docs: list[dict]) -> None:
    _compare(docs, release)


def _memory_bound() -> list[dict]:
    """One node where a preemptor fits by cpu once a pod goes, but needs the memory of two;
    a second, identical preemptor (its dry run meets the first one's nomination)."""
    return [
        make_priority_class("low", 10).manifest(),
        make_priority_class("high", 1000).manifest(),
        make_node("n0").capacity(cpu="4", memory="2Gi", pods="10").manifest(),
        make_pod("a").node("n0").priority_class("low").req(cpu="2", memory="1Gi").manifest(),
        make_pod("b").node("n0").priority_class("low").req(cpu="1", memory="1Gi").manifest(),
        make_pod("p").priority_class("high").req(cpu="1", memory="2Gi").manifest(),
        make_pod("q").priority_class("high").req(cpu="1", memory="2Gi").manifest(),
    ]


def test_the_fast_path_runs_and_matches_on_a_hand_made_case() -> None:
    checked = _compare(_memory_bound(), "v1.37.2")
    assert checked.fast_calls > 0


def test_a_planted_bug_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path's resource arithmetic forgetting memory: the comparison reports it."""
    real = fast_victims.add_requests

    def cpu_only(r: Any, req: Any, sign: int) -> None:
        before = r.memory
        real(r, req, sign)
        r.memory = before

    monkeypatch.setattr(fast_victims, "add_requests", cpu_only)
    with pytest.MonkeyPatch.context() as mp:
        checked = Checked(mp)
        _simulate(_memory_bound(), "v1.37.2")
    assert checked.mismatches
