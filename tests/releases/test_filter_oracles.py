"""The restated InterPodAffinity rules judge each release by its own rule
(``interpodaffinity-namespace-merge``; oracles/rules.py, upstream deviation
``interpodaffinity-namespace-selector-kept``).

The deviation's scenario is run by the reference with the release's default configuration, and
judged by the oracles told that release: no violation for the release's own behaviour, a
violation when the oracles state the intent or are told the wrong release (the planted bug).
"""

from __future__ import annotations

import pytest

from conformance.core.documents import simulation_doc
from conformance.core.subject import SubjectResult
from conformance.engines.golden import read_scenario_file
from oracles import ALL_ORACLES
from oracles.base import OracleContext
from oracles.rules import IPA_NS_KEPT, FilterConfig, PodFit, World
from oracles.upstream_deviations import catalogue
from reference_impl.config import default_config
from reference_impl.model.loader import load_documents
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases import load, supported_releases
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import merge_simulation_doc, run_simulation
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod

SCENARIO = str(catalogue()[IPA_NS_KEPT].scenario)
KEPT = ("v1.34.4", "v1.35.4", "v1.36.3")
CHECKS = ("filters_honoured", "no_false_unschedulable")


def _run(release: str) -> tuple[OracleContext, dict]:
    scenario, _, _ = read_scenario_file(SCENARIO)
    cluster = load_documents(scenario.documents).cluster
    registry = in_tree_registry()
    scheduler = Scheduler(cluster, default_config(registry, load(release)), registry, seed=0)
    result = run_simulation(scheduler, None, trace=True)
    doc = merge_simulation_doc(simulation_doc(result), result)
    doc.pop("trace", None)
    return OracleContext.build(scenario, SubjectResult(doc), release=load(release)), doc


def _violations(ctx: OracleContext) -> list[str]:
    return [str(v) for name in CHECKS for v in ALL_ORACLES[name](ctx)]


def _bound(doc: dict) -> dict[str, str]:
    return dict(doc.get("bindings") or {})


@pytest.mark.parametrize("release", supported_releases())
def test_each_release_is_judged_by_its_own_rule(release: str) -> None:
    ctx, doc = _run(release)
    spread_bound = "web/spread" in _bound(doc)
    assert spread_bound == (release not in KEPT)
    assert _violations(ctx) == []
    assert (IPA_NS_KEPT in ctx.met) == (release in KEPT)


@pytest.mark.parametrize("release", KEPT)
def test_the_intent_and_the_wrong_release_fail_the_old_behaviour(release: str) -> None:
    ctx, _ = _run(release)
    assert _violations(ctx.following(frozenset())) != []
    told_pinned = OracleContext.build(ctx.scenario, SubjectResult(ctx.result),
                                      release=load("v1.37.2"))
    assert _violations(told_pinned) != []


def test_v1_37_2_behaviour_fails_an_oracle_told_an_old_release() -> None:
    ctx, _ = _run("v1.37.2")
    told_old = OracleContext.build(ctx.scenario, SubjectResult(ctx.result),
                                   release=load("v1.36.3"))
    assert _violations(told_old) != []


def test_restated_rule_counts_the_kept_selector_only_for_terms_of_the_pod() -> None:
    """PodFit directly: the pod's own term selects the pod of another namespace through a
    selector matching the empty label set only when the release keeps it."""
    db = (make_pod("db").namespace("warehouse").label("app", "db").node("node-0").obj())
    term = {"labelSelector": {"matchLabels": {"app": "db"}},
            "topologyKey": "kubernetes.io/hostname",
            "namespaceSelector": {"matchExpressions": [
                {"key": "team", "operator": "DoesNotExist"}]}}
    pod = make_pod("p").namespace("web").pod_affinity_term(term, anti=True).obj()
    world = World({"node-0": make_node("node-0").hostname().obj()}, {"node-0": [db]},
                  {"warehouse": {"team": "data"}, "web": {}})
    only_ipa = frozenset({"InterPodAffinity"})
    kept = FilterConfig(enabled=only_ipa, namespace_selector_kept=True, met=set())
    [reason] = PodFit(pod, world, kept).reasons("node-0")
    assert "anti-affinity" in reason and kept.met == {IPA_NS_KEPT}
    assert PodFit(pod, world, FilterConfig(enabled=only_ipa, met=set())).reasons("node-0") == []
    intent = FilterConfig(enabled=only_ipa, namespace_selector_kept=True, follow=frozenset(),
                          met=set())
    assert PodFit(pod, world, intent).reasons("node-0") == []
