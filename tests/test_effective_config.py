"""Which configuration the oracles judge with: the one the subject ran (``reference:CFG``,
``--config``, the pytest plugin's options), with real public scheduler configurations kept in
tests/data/scheduler-configs/; and nominations only of the pods a profile of that
configuration serves (docs/oracles.md#which-configuration-the-oracles-judge-with)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.core.events import EventBus
from conformance.core.results import FAILED
from conformance.core.scenario import ScenarioInput, read_config_doc
from conformance.engines import run as run_engine
from conformance.subjects.reference import ReferenceSubject
from oracles import ALL_ORACLES, Violation, judge
from oracles.base import OracleContext
from oracles.replay import ClusterState
from reference_impl.model.loader import load_documents
from reference_impl.testing.wrappers import make_container, make_node, make_pod

pytest_plugins = ["pytester"]

CONFIGS = Path(__file__).resolve().parent / "data" / "scheduler-configs"
#: KWOK's kwokctl test configuration (one default-scheduler profile) and the Kubernetes
#: documentation's two-profile example (default-scheduler, no-scoring-scheduler)
KWOK = CONFIGS / "kwok-kwokctl.yaml"
MULTI = CONFIGS / "k8s-docs-multiple-profiles.yaml"
#: drawn once at random (SystemRandom), then fixed
SEEDS = [376013314, 760806319, 1907013359, 280415073, 377960186, 484548649, 89165082,
         353234364, 2090470051, 2082357739]
#: examples per property and seed: 10 seeds x 7 oracles x this many small scenarios
EXAMPLES = 4


def node(name: str, cpu: str = "4", labels: dict[str, str] | None = None) -> dict[str, Any]:
    return make_node(name).hostname().labels(labels or {}).allocatable(
        {"cpu": cpu, "memory": "8Gi", "pods": "110"}).manifest()


def pod(name: str, cpu: str, scheduler: str = "default-scheduler", priority: int = 0,
        node_name: str = "", nominated: str = "") -> dict[str, Any]:
    p = make_pod(name).container(make_container("c").requests({"cpu": cpu})) \
        .scheduler_name(scheduler).priority(priority)
    if node_name:
        p.node(node_name)
    if nominated:
        p.nominated_node_name(nominated)
    return p.manifest()


def config(*profiles: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration", "profiles": list(profiles)}


ZONE_A_ONLY = config({"schedulerName": "default-scheduler", "pluginConfig": [
    {"name": "NodeAffinity", "args": {"addedAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}}]})


def findings(subject: ReferenceSubject, scenario: ScenarioInput) -> list[str]:
    _, found = judge.evaluate(subject, scenario, judge.select_oracles([]))
    return [str(f) for f in found]


# --- the subject's configuration, not the scenario's ------------------------------------------

def test_oracles_judge_with_the_subjects_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scenario generated with a profile that has an addedAffinity, run by the reference
    under KWOK's configuration (no addedAffinity): binding to the unlabelled node is right."""
    scenario = ScenarioInput([node("n1"), pod("p", "1")], ZONE_A_ONLY, seed=3, name="added")
    subject = ReferenceSubject(KWOK)
    assert subject.run(scenario).result["bindings"] == {"default/p": "n1"}
    assert findings(subject, scenario) == []
    # the planted oracle bug: judging with the scenario's configuration is a false alarm
    monkeypatch.setattr(judge, "judged_scenario", lambda scenario, subject: scenario)
    assert any("addedAffinity" in f for f in findings(subject, scenario))


def test_pods_no_profile_of_the_subject_serves_stay_pending(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A pod of a profile only the scenario's configuration has: upstream under the subject's
    configuration never attempts it, and no oracle may ask for an attempt."""
    scenario = ScenarioInput([node("n1"), pod("p", "1", scheduler="no-scoring-scheduler")],
                             config({"schedulerName": "no-scoring-scheduler"}), seed=5,
                             name="unserved")
    subject = ReferenceSubject(KWOK)
    result = subject.run(scenario).result
    assert result["pending"] == ["default/p"] and result["attempts"] == []
    assert findings(subject, scenario) == []
    monkeypatch.setattr(judge, "judged_scenario", lambda scenario, subject: scenario)
    assert any("never got an attempt" in f for f in findings(subject, scenario))


def test_reproduce_gives_the_runs_verdict_with_or_without_the_subject(tmp_path: Path) -> None:
    """A counterexample file records the configuration the subject ran: reproducing it with
    ``reference:CFG`` and with the plain reference judges the same configuration."""
    violating = {"name": "always", "check": lambda ctx: [Violation(
        "always", None, None, f"profiles {sorted(ctx.scheduler.profiles)}")]}
    opts = run_engine.RunOptions(subject=f"reference:{MULTI}", seed=SEEDS[0], database=False,
                                 max_examples=1, families=["small"], oracles=["always"],
                                 out=str(tmp_path), shrink=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(ALL_ORACLES, "always", violating["check"])
        summary = run_engine.run(opts, EventBus())
        (case,) = [c for c in summary.cases if c.status == FAILED]
        assert "no-scoring-scheduler" in case.message
        written = yaml.safe_load_all(Path(case.counterexample).read_text())
        configs = [d for d in written if d and d.get("kind") == "KubeSchedulerConfiguration"]
        assert configs == [read_config_doc(str(MULTI))]
        for spec in (f"reference:{MULTI}", "reference"):
            out = run_engine.reproduce(case.counterexample, spec, ["always"],
                                       stream=io.StringIO())
            assert [str(f) for f in out.findings] == [case.message]


def test_the_plan_resolves_the_configuration_once() -> None:
    opts = run_engine.RunOptions(subject=f"reference:{KWOK}")
    p = run_engine.plan(opts)
    p.resolve_config(ReferenceSubject(KWOK))
    assert p.effective_config == read_config_doc(str(KWOK))
    generated = ScenarioInput([node("n1")], ZONE_A_ONLY)
    assert p.prepare(generated).config == read_config_doc(str(KWOK))
    q = run_engine.plan(run_engine.RunOptions())
    q.resolve_config(ReferenceSubject())
    assert q.effective_config is None and q.config_origin == "each scenario's own"


# --- nominations of pods no profile serves -----------------------------------------------------

def nomination_scenario(scheduler: str) -> ScenarioInput:
    """``big`` (priority 100, 3 of n1's 4 cpu) is pending with status.nominatedNodeName n1;
    ``p`` (2 cpu) fits n1 only when big's nomination reserves nothing."""
    return ScenarioInput([node("n1"), pod("big", "3", scheduler=scheduler, priority=100,
                                          nominated="n1"),
                          pod("p", "2")], config({"schedulerName": "default-scheduler"}),
                         seed=1, name="nomination")


def test_another_schedulers_nomination_reserves_nothing() -> None:
    subject = ReferenceSubject()
    scenario = nomination_scenario("other-scheduler")
    result = subject.run(scenario).result
    assert result["bindings"] == {"default/p": "n1"}  # as upstream: big never entered the queue
    assert findings(subject, scenario) == []
    ctx = OracleContext.build(scenario, result)
    assert ClusterState.initial(ctx.cluster, frozenset(ctx.scheduler.profiles)).nominated == {}


def test_a_served_pods_nomination_still_reserves() -> None:
    """The same pod served by the profile: its nomination counts, and binding p to n1 before
    big is a filters_honoured violation."""
    scenario = nomination_scenario("default-scheduler")
    cluster = load_documents(scenario.all_documents()).cluster
    assert ClusterState.initial(cluster, {"default-scheduler"}).nominated == {
        "default/big": "n1"}
    planted = {"kind": "SimulationResult", "bindings": {"default/p": "n1"},
               "pending": ["default/big"], "attempts": [
                   {"pod": "default/p", "outcome": "Bound", "node": "n1", "victims": [],
                    "candidates": ["n1"], "reasons": {}, "message": ""}]}
    ctx = OracleContext.build(scenario, planted)
    assert any("nominated" in v.message for v in ALL_ORACLES["filters_honoured"](ctx))


def test_nominations_of_pods_no_profile_serves_planted() -> None:
    """The planted replay bug (every pending pod's status.nominatedNodeName is a nomination)
    is a false alarm on the reference's correct run."""
    scenario = nomination_scenario("other-scheduler")
    result = ReferenceSubject().run(scenario).result
    ctx = OracleContext.build(scenario, result)
    original = ClusterState.nominates
    try:
        ClusterState.nominates = lambda self, pod: bool(pod.nominated_node_name)  # type: ignore
        assert any("nominated" in v.message for v in ALL_ORACLES["filters_honoured"](ctx))
    finally:
        ClusterState.nominates = original  # type: ignore[method-assign]
    assert ALL_ORACLES["filters_honoured"](ctx) == []


# --- the property suite under real configurations ---------------------------------------------

@pytest.mark.parametrize("cfg", [KWOK, MULTI], ids=["kwok", "multiple-profiles"])
@pytest.mark.parametrize("seed", SEEDS)
def test_reference_under_a_real_configuration_passes_the_properties(
        cfg: Path, seed: int, tmp_path: Path) -> None:
    opts = run_engine.RunOptions(subject=f"reference:{cfg}", seed=seed, database=False,
                                 max_examples=EXAMPLES, families=["small"], out=str(tmp_path),
                                 shrink=False)
    summary = run_engine.run(opts, EventBus())
    bad = [f"{c.name}: {c.details}" for c in summary.cases if c.status != "passed"]
    assert not bad, "\n".join(bad)


PLUGIN_TESTS = '''
import pytest
from hypothesis import HealthCheck, given, seed, settings

from strategies import SMALL, scenarios


@pytest.mark.parametrize("s", SEEDS)
def test_all_oracles(kschedconf_check, s):
    @seed(s)
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(scenario=scenarios(SMALL))
    def check(scenario):
        kschedconf_check(scenario)

    check()
'''


@pytest.mark.parametrize("cfg", [KWOK, MULTI], ids=["kwok", "multiple-profiles"])
@pytest.mark.parametrize("option", ["--kschedconf-subject=reference:", "--kschedconf-config="])
def test_pytest_plugin_config_options_judge_with_that_configuration(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, cfg: Path,
        option: str) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_user=PLUGIN_TESTS.replace("SEEDS", repr(SEEDS)).replace(
        "EXAMPLES", str(2 * EXAMPLES)))
    result = pytester.runpytest("-p", "conformance.pytest_plugin", "-p", "no:cacheprovider",
                                f"{option}{cfg}")
    result.assert_outcomes(passed=len(SEEDS))
