"""``kschedconf diff`` in decisions mode (conformance/engines/diff/decisions.py): the reference
against a real control plane, which shows only what the API shows and decides some things by
timing.

The runs use fake control-plane subjects (the reference, stripped of what the API cannot show,
with planted bugs) so they need no binaries; tests/test_process_backend.py and `.ci/run` drive
the real one.
"""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

import pytest

from conformance.core.errors import UsageError
from conformance.core.events import EventBus
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject, SubjectResult
from conformance.engines import diff
from conformance.engines.diff import decisions
from conformance.engines.golden import read_scenario_file
from conformance.reporters.console import ConsoleReporter
from conformance.subjects.reference import ReferenceSubject

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"


def node(name: str, cpu: str = "4") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def pod(name: str, cpu: str = "1", namespace: str = "default", **spec: Any) -> dict[str, Any]:
    status = spec.pop("status", None)
    p: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": name, "namespace": namespace},
                         "spec": {"containers": [{"name": "c", "image": "x", "resources": {
                             "requests": {"cpu": cpu}}}], **spec}}
    if status:
        p["status"] = status
    return p


def golden(name: str) -> ScenarioInput:
    sc, _, _ = read_scenario_file(GOLDEN / f"{name}.yaml")
    return sc


def reference_doc(sc: ScenarioInput) -> dict[str, Any]:
    return ReferenceSubject().run(sc).result


class FakeControlPlane(Subject):
    """The reference seen through an API: no reasons, node counts, queue or attempt numbers.
    ``plant`` changes the result (a planted bug)."""

    name = "fake-control-plane"
    real_control_plane = True

    def __init__(self, plant: Any = None, warnings: list[str] | None = None) -> None:
        self.ref = ReferenceSubject()
        self.plant = plant
        self.warnings = list(warnings or [])

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        doc = copy.deepcopy(self.ref.run(scenario).result)
        for a in doc["attempts"]:
            a.update(reasons={}, evaluatedNodes=None, feasibleNodes=None, queue=None,
                     attempt=None, candidates=[])
        if self.plant is not None:
            self.plant(scenario, doc)
        return SubjectResult(doc, warnings=list(self.warnings))


def compare(scenario: ScenarioInput, subject: Subject, **opts: Any) -> diff.ScenarioDiff:
    """One scenario compared as a run compares it (the plan's modes, preparation and known
    divergences)."""
    plan = diff.resolve_plan(diff.DiffOptions(**opts), subject, replay=True)
    return diff.diff_scenario(plan.prepare(scenario), ReferenceSubject(), subject, plan.modes,
                              plan.known, "test")


# --- what is compared --------------------------------------------------------------------------

def test_decisions_are_what_the_api_shows() -> None:
    doc = reference_doc(golden("preemption/by-priority-order"))
    d = decisions.decisions_of(doc)
    assert d["bindings"] == {"default/high": "n2", "default/mid": "n1"}
    assert set(d["nominations"]) == {"default/high", "default/mid"}
    assert d["nominations"]["default/high"][0]["node"] == "n2"
    assert d["deleted"] == sorted(doc["deleted"]) and d["deleted"]
    # attempt details the API does not show are not part of the decisions
    stripped = copy.deepcopy(doc)
    for a in stripped["attempts"]:
        a.update(reasons={}, evaluatedNodes=None, queue=None, attempt=None, time=99.0)
    assert decisions.decisions_of(stripped) == d


def test_pending_pods_keep_their_last_failure_message() -> None:
    doc = reference_doc(golden("fit/cpu-memory"))
    msgs = decisions.decisions_of(doc)["pendingMessages"]
    assert msgs["default/too-much-memory"].startswith(
        "0/3 nodes are available: 3 Insufficient memory.")
    assert set(msgs) == set(doc["pending"])


def test_a_different_binding_is_a_root_and_what_follows_is_a_consequence() -> None:
    ref = reference_doc(golden("fit/cpu-memory"))
    real = copy.deepcopy(ref)
    real["bindings"]["default/a"] = "medium"
    real["pending"] = sorted([*real["pending"], "default/b"])
    del real["bindings"]["default/b"]
    found = decisions.compare_decisions(ref, real)
    roots = [d for d in found if not d.consequence]
    assert [(d.field, d.pod) for d in roots][:1] == [("bindings.*", "default/a")]
    assert any(d.field == "pending" and d.consequence for d in found)
    assert all(d.mode == decisions.DECISIONS for d in found)


def test_a_nomination_again_of_the_same_node_without_victims_is_not_visible() -> None:
    """The API shows a pod's nomination by the status the scheduler writes: nominated again to
    the node its previous attempt nominated, with no victim to delete, the status does not
    change, and a real control plane's result has one nomination where the reference's has two
    (the docker backend's diff, seed 1, small-0010). Another node, or victims, are seen."""
    def attempt(node: str, victims: list[str] | None = None,
                outcome: str = "Nominated") -> dict[str, Any]:
        return {"pod": "default/web", "outcome": outcome, "nominatedNode": node,
                "victims": victims or []}

    ref = {"attempts": [attempt("node-0"), attempt("node-0")], "pending": ["default/web"]}
    real = {"attempts": [attempt("node-0")], "pending": ["default/web"]}
    assert decisions.compare_decisions(ref, real) == []
    seen = {"attempts": [attempt("node-0"), attempt("node-1"), attempt("node-1", ["default/v"]),
                         attempt("node-1", outcome="Unschedulable"), attempt("node-1")]}
    assert decisions.decisions_of(seen)["nominations"]["default/web"] == [
        {"node": "node-0", "victims": []}, {"node": "node-1", "victims": []},
        {"node": "node-1", "victims": ["default/v"]}, {"node": "node-1", "victims": []}]


# --- timing hazards ----------------------------------------------------------------------------

def test_no_hazard_when_a_failed_pod_is_never_retried() -> None:
    sc = golden("fit/cpu-memory")
    assert decisions.timing_hazards(sc, reference_doc(sc)) == []


def test_retries_separated_by_a_timeline_event_are_no_race() -> None:
    sc = golden("queue/backoff-after-taint-removed")
    assert decisions.timing_hazards(sc, reference_doc(sc)) == []


def test_a_retry_interleaved_with_other_pods_is_a_race() -> None:
    sc = golden("preemption/by-priority-order")
    (h,) = decisions.timing_hazards(sc, reference_doc(sc))
    assert h.startswith("retry-race: default/high failed (Nominated)")


def test_driver_queue_order_warning_is_a_hazard() -> None:
    sc = golden("fit/cpu-memory")
    w = ("pending pods s1-b/x and s0-a/y have the same priority but the scheduler queues "
         "s0-a/y first (it receives pods namespace by namespace)")
    (h,) = decisions.timing_hazards(sc, reference_doc(sc), [w])
    assert h.startswith("namespace-order:")
    assert decisions.timing_hazards(sc, reference_doc(sc), ["node names are not in input "
                                                            "order"]) == []


def test_a_binding_among_tied_nodes_is_a_hazard_where_select_host_is_random() -> None:
    """v1.34.4's selectHost samples tied top-scored nodes at random: the real scheduler's
    choice cannot be the reference's. From v1.35 it is deterministic; no tie, no hazard."""
    docs = [node("a"), node("b"), pod("p")]
    old = ScenarioInput(docs, name="tie", release="v1.34.4")
    (h,) = decisions.timing_hazards(old, ReferenceSubject(release="v1.34.4").run(old).result)
    assert h == ("host-tie: default/p is bound among 2 nodes tied on the top score (a, b): "
                 "selectHost of v1.34.4 picks one at random")
    new = ScenarioInput(docs, name="tie")
    assert decisions.timing_hazards(new, reference_doc(new)) == []
    untied = ScenarioInput([node("a"), node("b", "1"), pod("p")], name="x", release="v1.34.4")
    assert decisions.timing_hazards(
        untied, ReferenceSubject(release="v1.34.4").run(untied).result) == []


def test_a_claim_two_pending_pods_share_is_a_hazard() -> None:
    """dra/example-driver-demo: share-a and share-b name the claim "shared"; the real
    scheduler may attempt share-b while share-a's binding allocates it. Claims of one pod
    each (dra/match-attribute) are no hazard."""
    sc = golden("dra/example-driver-demo")
    (h,) = decisions.timing_hazards(sc, reference_doc(sc))
    assert h == ("claim-in-flight: pending pods default/share-a and default/share-b share the "
                 "claim default/shared")
    sc = golden("dra/match-attribute")
    assert [h for h in decisions.timing_hazards(sc, reference_doc(sc))
            if h.startswith("claim-in-flight")] == []


def test_bindings_that_trigger_events_at_the_same_time_are_a_hazard() -> None:
    """Two pods whose bindings trigger pods (``when: {podBound}``), bound at one virtual
    time: upstream's asynchronous bindings may reach the API in either order, and the pods
    they trigger are created in that order (small-0048..0052 of the process diff, seed 1).
    One trigger pod, two bound at different times, or a pod created by the other's event, is
    no hazard."""
    def created(name: str) -> dict[str, Any]:
        return {"metadata": {"name": name}, "spec": {"containers": [{"name": "c",
                                                                     "image": "x"}]}}

    def scenario(*events: dict[str, Any]) -> ScenarioInput:
        return ScenarioInput([node("n1"), pod("a"), pod("b"), {
            "apiVersion": "kschedconf/v1", "kind": "Scenario", "metadata": {"name": "t"},
            "spec": {"events": list(events)}}], None, 0, "t")

    after_b = {"when": {"podBound": "b"}, "action": "createPod", "pod": created("after-b")}
    after_a = {"when": {"podBound": "a"}, "action": "createPod", "pod": created("after-a")}
    both = scenario(after_b, after_a)
    (h,) = decisions.timing_hazards(both, reference_doc(both))
    assert h == ("binding-order: default/a and default/b, bound at 0s, trigger timeline "
                 "events: their asynchronous bindings may reach the API in either order")
    one = scenario(after_b)
    assert decisions.timing_hazards(one, reference_doc(one)) == []
    doc = reference_doc(both)
    doc["attempts"][1]["time"] = 1.0
    assert decisions.timing_hazards(both, doc) == []
    # a chain (StatefulSet OrderedReady): each pod exists only once the previous is bound
    chain = golden("queue/statefulset-ordered-ready")
    assert [h for h in decisions.timing_hazards(chain, reference_doc(chain))
            if h.startswith("binding-order")] == []


def test_batching_is_a_hazard_only_where_every_plugin_signs() -> None:
    no_pts = {"apiVersion": "kubescheduler.config.k8s.io/v1",
              "kind": "KubeSchedulerConfiguration",
              "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {
                  "disabled": [{"name": "PodTopologySpread"}]}}}]}
    docs = [node("n1"), node("n2"), pod("a"), pod("b")]
    batched = ScenarioInput(copy.deepcopy(docs), no_pts, 0, "batched")
    hazards = decisions.timing_hazards(batched, reference_doc(batched))
    assert [h.split(":")[0] for h in hazards] == ["batching"]
    assert "default/a, default/b" in hazards[0]
    # the default profile: PodTopologySpread's system defaults make pods unsignable
    default = ScenarioInput(copy.deepcopy(docs), None, 0, "default")
    assert decisions.timing_hazards(default, reference_doc(default)) == []
    # different requests: different signatures
    other = ScenarioInput([node("n1"), node("n2"), pod("a"), pod("b", cpu="2")], no_pts, 0,
                          "other")
    assert decisions.timing_hazards(other, reference_doc(other)) == []


def test_wall_clock_timers() -> None:
    sc = ScenarioInput([node("n1")], None, 0, "t")
    base = {"timeline": [{"time": 2.5, "action": "createNode", "target": "n2",
                          "result": "applied"}], "endTime": 3.0}
    fail = {"pod": "default/p", "outcome": "Unschedulable", "message": "no", "time": 0.0,
            "queue": "activeQ", "event": "UnschedulableTimeout"}
    near = dict(base, attempts=[
        {**fail, "event": "UnscheduledPodAdd"},
        {**fail, "time": 2.0, "queue": "backoffQ", "event": "NodeAdd"}])
    (h,) = decisions.timing_hazards(sc, near)
    assert h.startswith("wall-clock-timers: default/p retried at 2s")
    far = dict(base, attempts=[
        {**fail, "event": "UnscheduledPodAdd"},
        {**fail, "time": 1.0, "queue": "backoffQ", "event": "NodeAdd"}])
    assert decisions.timing_hazards(sc, far) == []
    flushed_same = dict(base, timeline=[], endTime=330.0, attempts=[
        {**fail, "event": "UnscheduledPodAdd"}, {**fail, "time": 300.0}])
    assert decisions.timing_hazards(sc, flushed_same) == []
    flushed_bound = dict(base, timeline=[], endTime=330.0, attempts=[
        {**fail, "event": "UnscheduledPodAdd"},
        {**fail, "time": 300.0, "outcome": "Bound", "message": ""}])
    assert [h.split(":")[0] for h in decisions.timing_hazards(sc, flushed_bound)] == [
        "wall-clock-timers"]


def test_tied_preemption_candidates_are_a_hazard() -> None:
    started = {"startTime": "2026-01-01T00:00:00Z", "phase": "Running"}
    docs = [node("n1", cpu="2"), node("n2", cpu="2"),
            pod("v1", cpu="2", nodeName="n1", priority=1, status=started),
            pod("v2", cpu="2", nodeName="n2", priority=1, status=started),
            pod("boss", cpu="2", priority=100)]
    sc = ScenarioInput(docs, None, 0, "tied")
    ref = ReferenceSubject()
    doc = reference_doc(sc)
    assert decisions.tied_preemptions(sc, ref, doc) == ["default/boss"]
    # one victim started later: pickOneNodeForPreemption prefers its node, no tie
    docs[3] = pod("v2", cpu="2", nodeName="n2", priority=1,
                  status={"startTime": "2026-01-02T00:00:00Z", "phase": "Running"})
    sc2 = ScenarioInput(docs, None, 0, "untied")
    assert decisions.tied_preemptions(sc2, ref, reference_doc(sc2)) == []


# --- whole runs against fake control planes ----------------------------------------------------

def test_a_faithful_control_plane_has_no_divergence() -> None:
    out = io.StringIO()
    opts = diff.DiffOptions(scenarios=12, golden=True, seed=5, shrink=False, workers=1)
    report = diff.run_diff(opts, EventBus([ConsoleReporter(out, tty=False)]),
                           FakeControlPlane())
    text = out.getvalue()
    assert report.error == "" and report.unexplained == 0, text
    assert "modes decisions" in text
    compared = sum(r.decisions_compared for r in report.results)
    assert compared >= 60, text  # most golden scenarios have no timing hazard
    assert "scenarios compared exactly with the reference" in text
    # a scenario with a timing hazard passes; its case names the hazards
    hazardous = [c for c in report.summary.cases if c.properties["timing_hazards"]]
    assert hazardous and all(c.status == "passed" for c in hazardous)
    assert all(c.properties["decisions_compared"] == "false" for c in hazardous)
    assert "timing hazard: " in hazardous[0].details


def _move_last_binding(scenario: ScenarioInput, doc: dict[str, Any]) -> None:
    bound = [a for a in doc["attempts"] if a["outcome"] == "Bound"]
    a = bound[-1]
    nodes = [d["metadata"]["name"] for d in scenario.documents if d.get("kind") == "Node"]
    other = next(n for n in nodes if n != a["node"])
    a["node"] = other
    doc["bindings"][a["pod"]] = other


def test_a_planted_binding_bug_is_an_unexplained_decision_divergence() -> None:
    sc = ScenarioInput([node("n1", cpu="8"), node("n2", cpu="8"), pod("a"), pod("b")], None,
                       0, "planted")
    res = compare(sc, FakeControlPlane(plant=_move_last_binding))
    assert res.decisions_compared and not res.hazards
    fields = {d.field for d in res.unexplained}
    assert "bindings.*" in fields


def test_a_planted_overcommit_is_caught_by_the_oracles_even_with_a_hazard() -> None:
    sc = golden("preemption/by-priority-order")

    def overcommit(scenario: ScenarioInput, doc: dict[str, Any]) -> None:
        # keep the victims: both preemptors and their victims share the nodes
        doc["deleted"] = []

    res = compare(sc, FakeControlPlane(plant=overcommit))
    assert res.hazards and not res.decisions_compared
    oracle = [d for d in res.unexplained if d.field.startswith("oracle.")]
    assert oracle, [str(d) for d in res.divergences]
    # the decision difference itself is timing-dependent in this scenario: reported, known
    assert any(d.known and d.known.startswith("timing-hazard:retry-race")
               for d in res.divergences if d.field == "deleted")


def test_a_binding_difference_under_a_hazard_is_reported_as_timing_dependent() -> None:
    sc = golden("preemption/by-priority-order")

    def swap(scenario: ScenarioInput, doc: dict[str, Any]) -> None:
        b = doc["bindings"]
        b["default/high"], b["default/mid"] = b["default/mid"], b["default/high"]
        for a in doc["attempts"]:
            if a["outcome"] == "Bound":
                a["node"] = b[a["pod"]]

    res = compare(sc, FakeControlPlane(plant=swap))
    assert res.divergences and not res.unexplained
    assert {d.known for d in res.divergences} == {"timing-hazard:retry-race"}


# --- options -----------------------------------------------------------------------------------

def test_auto_mode_picks_decisions_for_a_real_control_plane() -> None:
    opts = diff.DiffOptions()
    assert diff.resolve_plan(opts, FakeControlPlane()).modes == ["decisions"]
    assert diff.resolve_plan(opts, ReferenceSubject()).modes == ["whole", "lockstep"]
    assert diff.resolve_modes("decisions", False) == ["decisions"]
    with pytest.raises(UsageError):
        diff.resolve_modes("sometimes", False)


def test_known_divergences_may_name_the_decisions_mode(tmp_path: Path) -> None:
    f = tmp_path / "known.yaml"
    f.write_text("apiVersion: kschedconf/v1\nkind: KnownDivergences\ndivergences:\n"
                 "- id: x\n  reason: r\n  match: {mode: decisions, field: 'bindings.*'}\n")
    (k,) = diff.load_known(f)
    assert k.mode == "decisions"
    f.write_text(f.read_text().replace("mode: decisions", "mode: sideways"))
    with pytest.raises(UsageError, match="match.mode must be one of"):
        diff.load_known(f)
