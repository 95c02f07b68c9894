"""Timeline events triggered by a binding (``when: {podBound: NAMESPACE/NAME}``) and the
StatefulSet ``OrderedReady`` policy built on them (issue 13, point 2): the Scenario document's
checks, the reference simulation, the oracles' replay, the upstream subject (the real
scheduler in process; skipped when upstream/bin is not built) and the workload expansion.

Upstream: pkg/controller/statefulset/stateful_set_control.go (``monotonic``): pod N+1 is
created once pod N is Running and Ready; without a kubelet, once it is bound.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.whole import compare_whole
from conformance.subjects.factory import make_subject
from conformance.subjects.upstream import binary_available
from oracles import run_oracles
from oracles.base import OracleContext
from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_read_documents
from reference_impl.model.objects import Cluster
from reference_impl.model.scenario import parse_scenario
from reference_impl.model.workloads import expand_workloads
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import run_simulation
from reference_impl.testing.wrappers import (
    make_node,
    make_pod,
    make_stateful_set,
    make_timeline,
)

NODE = {"cpu": "4", "memory": "8Gi", "pods": 110}

needs_upstream = pytest.mark.skipif(
    not binary_available(),
    reason="the upstream subject is not built: run `bash upstream/build.sh`")


def cluster() -> Cluster:
    """Node n1 (4 cpu); pending web-0 (1 cpu) and other (1 cpu)."""
    return Cluster(nodes=[make_node("n1").capacity(NODE).obj()],
                   pods=[make_pod("web-0").req(cpu="1").obj(),
                         make_pod("other").req(cpu="1").obj()])


def chain(web1_cpu: str = "1"):
    """web-1 created when web-0 is bound, web-2 when web-1 is."""
    return (make_timeline()
            .when_bound("web-0", "createPod", pod=make_pod("web-1").req(cpu=web1_cpu))
            .when_bound("default/web-1", "createPod", pod=make_pod("web-2").req(cpu="1")))


# ----- the Scenario document -----

def parse_error(timeline: Any, c: Cluster | None = None) -> InputError:
    with pytest.raises(InputError) as e:
        parse_scenario(timeline.manifest(), cluster() if c is None else c)
    return e.value


def test_triggered_events_are_parsed_apart_from_the_timed_ones() -> None:
    sc = chain().event("10s", "deletePod", pod="web-2").obj(cluster())
    assert [(e.index, e.action, e.target) for e in sc.events] == [(2, "deletePod",
                                                                    "default/web-2")]
    assert [(e.index, e.after, e.target) for e in sc.triggered] == [
        (0, "default/web-0", "default/web-1"), (1, "default/web-1", "default/web-2")]
    assert [e.index for e in sc.triggered_by("default/web-1")] == [1]


@pytest.mark.parametrize(("event", "field", "message"), [
    ({"action": "createPod", "at": "1s", "when": {"podBound": "web-0"},
      "pod": make_pod("x").manifest()}, "when", "either at (a time) or when"),
    ({"action": "createPod", "pod": make_pod("x").manifest()}, "at", "or, for createPod, when"),
    ({"action": "deletePod", "when": {"podBound": "web-0"}, "pod": "other"}, "when",
     "only createPod events"),
    ({"action": "createPod", "when": {"podScheduled": "web-0"},
      "pod": make_pod("x").manifest()}, "when.podScheduled", "unknown trigger"),
    ({"action": "createPod", "when": {}, "pod": make_pod("x").manifest()}, "when.podBound",
     "required"),
    ({"action": "createPod", "when": {"podBound": "a/b/c"}, "pod": make_pod("x").manifest()},
     "when.podBound", "expected NAMESPACE/NAME"),
    ({"action": "createPod", "when": {"podBound": "ghost"}, "pod": make_pod("x").manifest()},
     "when.podBound", "'default/ghost' does not exist"),
    ({"action": "createPod", "when": {"podBound": "web-0"}, "pod": make_pod("other").manifest()},
     "pod.metadata.name", "is in the cluster"),
])
def test_trigger_errors_name_the_field(event: dict, field: str, message: str) -> None:
    e = parse_error(make_timeline(event))
    assert e.field == f"spec.events[0].{field}", e
    assert message in e.message, e


def test_a_trigger_pod_bound_from_the_start_is_refused() -> None:
    c = Cluster(nodes=[make_node("n1").capacity(NODE).obj()],
                pods=[make_pod("running").node("n1").obj()])
    e = parse_error(make_timeline().when_bound("running", "createPod", pod=make_pod("x")), c)
    assert e.field == "spec.events[0].when.podBound"
    assert "bound from the start" in e.message


def test_a_cycle_of_triggers_is_refused() -> None:
    e = parse_error(make_timeline()
                    .when_bound("b", "createPod", pod=make_pod("a"))
                    .when_bound("a", "createPod", pod=make_pod("b")))
    assert e.field == "spec.events[0].when.podBound"
    assert "a cycle of triggers: default/a -> default/b -> default/a" in e.message
    e = parse_error(make_timeline().when_bound("self", "createPod", pod=make_pod("self")))
    assert "default/self -> default/self" in e.message


def test_a_pod_created_by_two_events_is_refused() -> None:
    e = parse_error(make_timeline()
                    .event("5s", "createPod", pod=make_pod("x"))
                    .when_bound("web-0", "createPod", pod=make_pod("x")))
    assert e.field == "spec.events[1].pod.metadata.name"
    assert "is created by spec.events[0] too" in e.message


def test_timed_events_may_target_a_triggered_pod() -> None:
    sc = chain().event("1m", "deletePod", pod="web-2").obj(cluster())
    assert sc.events[0].target == "default/web-2"


# ----- the reference simulation -----

def test_the_chain_is_created_pod_by_pod_as_each_is_bound() -> None:
    c = cluster()
    res = run_simulation(Scheduler(c), chain().obj(c))
    assert [(a.pod, a.outcome) for a in res.attempts] == [
        ("default/web-0", "Bound"), ("default/other", "Bound"),
        ("default/web-1", "Bound"), ("default/web-2", "Bound")]
    assert res.timeline == [
        {"time": 0.0, "index": 0, "action": "createPod", "target": "default/web-1",
         "result": "applied"},
        {"time": 0.0, "index": 1, "action": "createPod", "target": "default/web-2",
         "result": "applied"}]
    assert res.pending == []


def test_an_unschedulable_pod_stops_the_chain() -> None:
    c = cluster()
    res = run_simulation(Scheduler(c), chain(web1_cpu="8").obj(c))
    assert res.pending == ["default/web-1"]  # web-2 never exists: not pending
    assert "default/web-2" not in {a.pod for a in res.attempts}
    assert [e["target"] for e in res.timeline] == ["default/web-1"]
    assert res.stopped_by == "quiescence"


def test_the_chain_resumes_when_the_blocking_pod_binds_later() -> None:
    c = cluster()
    big = make_node("big").capacity(NODE, cpu="16")
    res = run_simulation(Scheduler(c), chain(web1_cpu="8").event("20s", "createNode",
                                                                  node=big).obj(c))
    assert res.bindings["default/web-1"] == "big"
    assert res.bindings["default/web-2"] in ("n1", "big")
    assert [(e["time"], e["index"]) for e in res.timeline] == [(0.0, 0), (20.0, 2), (20.0, 1)]
    web2 = [i.time for a, i in zip(res.attempts, res.attempt_info, strict=True)
            if a.pod == "default/web-2"]
    assert web2 == [20.0]


def test_the_oracles_replay_the_triggered_pods() -> None:
    docs = [make_node("n1").capacity(NODE).manifest(),
            make_pod("web-0").req(cpu="1").manifest(),
            chain(web1_cpu="8").manifest()]
    sc = ScenarioInput(docs, None, 0, "ordered")
    ctx = OracleContext.build(sc, make_subject("reference").run(sc))
    assert run_oracles(ctx) == []


# ----- the upstream subject: the same semantics with the real scheduler -----

def scenario(web1_cpu: str, *more: dict[str, Any]) -> ScenarioInput:
    timeline = chain(web1_cpu).events(*more)
    return ScenarioInput([make_node("n1").capacity(NODE).manifest(),
                          make_node("n2").capacity(NODE, cpu="2").manifest(),
                          make_pod("web-0").req(cpu="1").manifest(),
                          make_pod("other").req(cpu="1").manifest(),
                          timeline.manifest()], None, 0, "ordered")


@needs_upstream
@pytest.mark.parametrize("sc", [
    scenario("1"),
    scenario("8"),
    scenario("8", {"at": "20s", "action": "createNode",
                   "node": make_node("big").capacity(NODE, cpu="16").manifest()}),
], ids=["all-bound", "blocked", "blocked-then-resumed"])
def test_upstream_fires_the_triggers_as_the_reference(sc: ScenarioInput) -> None:
    ref = make_subject("reference").run(sc).result
    up = make_subject("upstream", timeout=120).run(sc)
    assert compare_whole(ref, up.result, up.notes).divergences == []
    assert up.result["pending"] == ref["pending"]
    assert [(e["index"], e["target"]) for e in up.result["timeline"]] == [
        (e["index"], e["target"]) for e in ref["timeline"]]
    if "default/web-2" not in ref["bindings"]:  # never created: pending on neither side
        assert "default/web-2" not in up.result["pending"]
        assert "default/web-2" not in {a["pod"] for a in up.result["attempts"]}


# ----- the workload expansion -----

def stateful_set(policy: str | None, replicas: int = 3) -> dict[str, Any]:
    s = make_stateful_set("db").selector({"app": "db"}).replicas(replicas) \
        .template(make_pod("t").label("app", "db").req(cpu="1"))
    if policy:
        s = s.spec(podManagementPolicy=policy)
    return s.manifest()


def expand(*docs: dict[str, Any]):
    return expand_workloads([("in.yaml", i, d) for i, d in enumerate(docs, start=1)])


def scenario_doc(x: Any) -> dict[str, Any]:
    found = [d for _, _, d in x.documents if isinstance(d, dict) and d.get("kind") == "Scenario"]
    assert len(found) == 1
    return found[0]


def test_ordered_ready_creates_pod_0_and_triggers_the_others() -> None:
    x = expand(stateful_set(None))
    assert [c.name for c in x.pods] == ["db-0"]
    events = scenario_doc(x)["spec"]["events"]
    assert [(e["when"]["podBound"], e["pod"]["metadata"]["name"]) for e in events] == [
        ("default/db-0", "db-1"), ("default/db-1", "db-2")]
    assert not [w for w in x.warnings if "OrderedReady" in w]
    loaded = load_read_documents(x.documents)
    sc = parse_scenario(loaded.scenario, loaded.cluster)
    assert [e.target for e in sc.triggered] == ["default/db-1", "default/db-2"]


def test_parallel_creates_every_pod_at_once() -> None:
    x = expand(stateful_set("Parallel"))
    assert [c.name for c in x.pods] == ["db-0", "db-1", "db-2"]
    assert not [d for _, _, d in x.documents if isinstance(d, dict)
                and d.get("kind") == "Scenario"]


def test_ordered_ready_merges_with_the_scenario_of_the_inputs() -> None:
    timeline = make_timeline().event("30s", "cordon", node="n1").manifest()
    x = expand(make_node("n1").capacity(NODE).manifest(), stateful_set(None, replicas=2),
               timeline)
    doc = scenario_doc(x)
    assert [e.get("action") for e in doc["spec"]["events"]] == ["cordon", "createPod"]
    assert timeline["spec"]["events"] == [{"at": "30s", "action": "cordon", "node": "n1"}]
    loaded = load_read_documents(x.documents)
    sc = parse_scenario(loaded.scenario, loaded.cluster)
    assert [e.action for e in sc.events] == ["cordon"]
    assert [e.target for e in sc.triggered] == ["default/db-1"]


def test_expanded_ordered_ready_stops_at_an_unschedulable_pod() -> None:
    """db-1 asks for more than any node has: db-2 is never created."""
    x = expand(make_node("n1").capacity(NODE).manifest(), stateful_set(None))
    events = scenario_doc(x)["spec"]["events"]
    events[0]["pod"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "64"
    loaded = load_read_documents(x.documents)
    res = run_simulation(Scheduler(loaded.cluster),
                         parse_scenario(loaded.scenario, loaded.cluster))
    assert res.bindings == {"default/db-0": "n1"}
    assert res.pending == ["default/db-1"]


def test_the_triggered_pods_are_admitted_as_pod_0() -> None:
    """A createPod event's pod goes through the API server's admission too: the same
    DefaultTolerationSeconds tolerations as the pod created at once."""
    x = expand(make_node("n1").capacity(NODE).manifest(), stateful_set(None, replicas=2))
    loaded = load_read_documents(x.documents, admission="auto")
    assert loaded.admission is not None and loaded.admission.admitted == 2
    assert loaded.scenario is not None
    sc = parse_scenario(loaded.scenario, loaded.cluster)
    [db0] = loaded.cluster.pods
    [event] = sc.triggered
    assert event.pod is not None and event.pod.tolerations == db0.tolerations
    assert len(db0.tolerations) == 2
    assert {a.pod for a in loaded.admission.applied} == {"default/db-0", "default/db-1"}


def test_a_cycle_is_refused_without_a_cluster_too() -> None:
    timeline = (make_timeline().when_bound("b", "createPod", pod=make_pod("a"))
                .when_bound("a", "createPod", pod=make_pod("b")))
    with pytest.raises(InputError, match="a cycle of triggers"):
        parse_scenario(timeline.manifest())
