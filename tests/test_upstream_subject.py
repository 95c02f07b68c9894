"""The upstream subject: the real kube-scheduler (upstream/, built by upstream/build.sh) run on
small scenarios, checked against outcomes derived by hand from upstream's rules and against the
reference scheduler.

The tests are skipped when the binary is not built (``upstream/build.sh`` needs Go and the Go
module proxy).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from dra import gpu_scenarios

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioRejected
from conformance.subjects.upstream import UpstreamSubject
from reference_impl.testing.wrappers import (
    make_container,
    make_node,
    make_pod,
    make_priority_class,
)

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "upstream" / "bin" / "kschedconf-upstream"

pytestmark = pytest.mark.skipif(
    not os.access(BINARY, os.X_OK),
    reason="upstream subject not built: run upstream/build.sh (needs Go and the module proxy)")


def node(name: str, cpu: str, labels: dict[str, str] | None = None,
         taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    n = make_node(name).labels(labels or {}).allocatable(cpu=cpu, memory="8Gi", pods="110")
    return (n.taints(taints) if taints else n).manifest()


def pod(name: str, cpu: str = "0", **spec: Any) -> dict[str, Any]:
    """A pod with one container "c" requesting ``cpu``; ``spec`` fields as given (``status``
    and ``creationTimestamp`` go to their places)."""
    status = spec.pop("status", None)
    p = make_pod(name).namespace("default")
    if "creationTimestamp" in spec:
        p.creation_timestamp(spec.pop("creationTimestamp"))
    p.container(make_container("c").image("registry.k8s.io/pause").requests(cpu=cpu))
    p.spec(**spec)
    return (p.status(**status) if status else p).manifest()


def priority_class(name: str, value: int) -> dict[str, Any]:
    return make_priority_class(name, value).manifest()


TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}

# 3 nodes with different free cpu (n3 tainted), 4 pending pods.
RESOURCES = [
    node("n1", "2"), node("n2", "4"), node("n3", "8", taints=[TAINT]),
    pod("p1", "1500m"), pod("p2", "2"), pod("p3", "3"), pod("p4", "1"),
]

# A toleration, a required node affinity, and a pod no node accepts.
TAINT_AND_AFFINITY = [
    node("a", "4", {"zone": "a"}), node("b", "4", {"zone": "b"}),
    node("gpu", "16", {"zone": "a"}, taints=[TAINT]),
    pod("tolerant", "1", tolerations=[{"key": "dedicated", "operator": "Equal",
                                       "value": "gpu", "effect": "NoSchedule"}]),
    pod("zoneb", "1", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["b"]}]}]}}}),
    pod("any", "1"),
    pod("picky", "1", nodeSelector={"zone": "c"}),
]

# Two full nodes; a high-priority pod preempts the victim that started last
# (DefaultPreemption's last criterion: the latest start time), then binds there.
PREEMPTION = [
    priority_class("high", 1000), priority_class("low", 10),
    node("x", "1"), node("y", "1"),
    pod("old", "1", nodeName="x", priorityClassName="low",
        status={"startTime": "2024-01-01T00:00:00Z"}),
    pod("young", "1", nodeName="y", priorityClassName="low",
        status={"startTime": "2024-01-01T01:00:00Z"}),
    pod("boss", "1", priorityClassName="high"),
]

GATED = [node("n1", "2"), pod("waits", "1", schedulingGates=[{"name": "example.com/wait"}]),
         pod("free", "1")]


def write(tmp_path: Path, docs: list[dict[str, Any]], name: str = "cluster.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def upstream(*args: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BINARY), *map(str, args)], input=stdin, capture_output=True,
                          text=True, timeout=300)


def simulate(tmp_path: Path, docs: list[dict[str, Any]], *args: str) -> dict[str, Any]:
    path = write(tmp_path, docs)
    out = tmp_path / "result.json"
    r = upstream("simulate", path, "--output", out, "--seed", "0", *args)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, schema("SimulationResult"))
    return doc


def schema(kind: str) -> dict[str, Any]:
    path = ROOT / "conformance" / "core" / "schemas" / f"{kind}.schema.json"
    return json.loads(path.read_text())


def outcomes(doc: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(a["pod"], a["outcome"], a["node"]) for a in doc["attempts"]]


# ----- upstream's own outcomes, derived from the rules -----

def test_resources_least_allocated_and_taint(tmp_path: Path) -> None:
    doc = simulate(tmp_path, RESOURCES)
    # p1 (1.5 cpu): n2 is less allocated than n1 (NodeResourcesFit LeastAllocated); p2 (2):
    # n2 (2.5 free) fits better than n1 (2 free, 100 % used); p3 (3) fits nowhere untainted;
    # p4 (1): n1 (2 free) over n2 (0.5 free).
    assert doc["bindings"] == {"default/p1": "n2", "default/p2": "n2", "default/p4": "n1"}
    assert doc["pending"] == ["default/p3"]
    assert doc["deleted"] == []
    p3 = [a for a in doc["attempts"] if a["pod"] == "default/p3"]
    assert p3[0]["outcome"] == "Unschedulable"
    assert p3[0]["reasons"] == {"n1": ["Insufficient cpu"], "n2": ["Insufficient cpu"],
                                "n3": ["node(s) had untolerated taint(s)"]}
    assert p3[0]["message"].startswith(
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.")
    # p4 bound after p3's attempt: the cluster changed, so p3 is retried when the unschedulable
    # pods are flushed (podMaxInUnschedulablePodsDuration 5m, flushed every 30 s: at 330 s).
    assert outcomes(doc) == [("default/p1", "Bound", "n2"), ("default/p2", "Bound", "n2"),
                             ("default/p3", "Unschedulable", None),
                             ("default/p4", "Bound", "n1"),
                             ("default/p3", "Unschedulable", None)]
    assert [a["time"] for a in doc["attempts"]] == [0, 0, 0, 0, 330]
    assert [a["attempt"] for a in doc["attempts"]] == [1, 1, 1, 1, 2]
    assert doc["stoppedBy"] == "quiescence"


def test_taint_toleration_and_node_affinity(tmp_path: Path) -> None:
    doc = simulate(tmp_path, TAINT_AND_AFFINITY)
    assert doc["bindings"] == {"default/tolerant": "gpu", "default/zoneb": "b",
                               "default/any": "a"}
    assert doc["pending"] == ["default/picky"]
    picky = next(a for a in doc["attempts"] if a["pod"] == "default/picky")
    assert picky["reasons"] == {
        "a": ["node(s) didn't match Pod's node affinity/selector"],
        "b": ["node(s) didn't match Pod's node affinity/selector"],
        "gpu": ["node(s) had untolerated taint(s)"]}


def test_preemption_victim_nomination_and_rebinding(tmp_path: Path) -> None:
    doc = simulate(tmp_path, PREEMPTION)
    first, second = doc["attempts"]
    assert (first["pod"], first["outcome"], first["nominatedNode"]) == (
        "default/boss", "Nominated", "y")
    assert first["victims"] == ["default/young"]
    assert first["message"].endswith(
        "preemption: found a potential placement for pod on node y, preempting 1 victims")
    assert (second["pod"], second["outcome"], second["node"]) == ("default/boss", "Bound", "y")
    assert second["queue"] == "backoffQ" and second["attempt"] == 2
    assert doc["bindings"] == {"default/old": "x", "default/boss": "y"}
    assert doc["deleted"] == ["default/young"]
    assert doc["pending"] == []


@pytest.mark.parametrize("status", [{"startTime": "2024-01-01T00:00:00Z"}, {}],
                         ids=["same-start-time", "no-start-time"])
def test_random_preemption_choice_is_noted(tmp_path: Path, status: dict[str, Any]) -> None:
    # Two identical victims: DefaultPreemption's choice between x and y is Go map order. A
    # victim without status.startTime starts "now" (GetPodStartTime reads time.Now() each
    # time), which ties the same way.
    docs = [priority_class("high", 1000), node("x", "1"), node("y", "1"),
            pod("vx", "1", nodeName="x", status=status),
            pod("vy", "1", nodeName="y", status=status),
            pod("boss", "1", priorityClassName="high")]
    path = write(tmp_path, docs)
    out = tmp_path / "r.json"
    r = upstream("simulate", path, "--output", out, "--notes")
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    nominated = doc["attempts"][0]["nominatedNode"]
    assert nominated in ("x", "y")
    note = ("preemption for default/boss: candidate nodes [x y] tie on every DefaultPreemption "
            f"criterion; upstream picks by Go map iteration order (random); it nominated "
            f"{nominated}")
    assert doc["notes"] == [note]
    assert f"note: {note}" in r.stderr


def test_gated_pod(tmp_path: Path) -> None:
    doc = simulate(tmp_path, GATED)
    assert outcomes(doc) == [("default/waits", "Gated", None), ("default/free", "Bound", "n1")]
    assert doc["attempts"][0]["message"] == "waiting for scheduling gates: [example.com/wait]"
    assert doc["pending"] == ["default/waits"]


def test_single_pass_attempts_each_pod_once(tmp_path: Path) -> None:
    doc = simulate(tmp_path, RESOURCES, "--single-pass")
    assert [a["pod"] for a in doc["attempts"]] == ["default/p1", "default/p2", "default/p3",
                                                  "default/p4"]


def timeline(*events: dict[str, Any], until: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"events": list(events)}
    if until is not None:
        spec["until"] = until
    return {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": spec}


NODE_AT_10S = timeline({"at": "10s", "action": "createNode",
                        "node": {"metadata": {"name": "n4"},
                                 "status": {"allocatable": {"cpu": "4", "memory": "8Gi",
                                                            "pods": "110"}}}})


def test_timeline_node_added_later(tmp_path: Path) -> None:
    doc = simulate(tmp_path, [*RESOURCES, NODE_AT_10S])
    # The new node (NodeAdd) moves p3 out of the unschedulable pods at 10 s; it fits there.
    assert doc["bindings"]["default/p3"] == "n4"
    assert doc["pending"] == []
    assert doc["timeline"] == [{"time": 10, "index": 0, "action": "createNode", "target": "n4",
                                "result": "applied"}]
    last = doc["attempts"][-1]
    assert (last["pod"], last["outcome"], last["time"]) == ("default/p3", "Bound", 10)


def test_timeline_until(tmp_path: Path) -> None:
    doc = simulate(tmp_path, [*RESOURCES, {**NODE_AT_10S, "spec": {**NODE_AT_10S["spec"],
                                                                    "until": "5s"}}])
    assert doc["stoppedBy"] == "until" and doc["endTime"] == 5
    assert doc["pending"] == ["default/p3"] and doc["timeline"] == []


def test_timeline_delete_and_finish(tmp_path: Path) -> None:
    docs = [node("n1", "2"), pod("running", "2", nodeName="n1"), pod("waiting", "2"),
            pod("other", "1", nodeName="n1"),
            timeline({"at": 5, "action": "finishPod", "pod": "running"},
                     {"at": 5, "action": "deletePod", "pod": "default/other"})]
    doc = simulate(tmp_path, docs)
    assert doc["finished"] == ["default/running"] and doc["removed"] == ["default/other"]
    assert doc["bindings"] == {"default/waiting": "n1"}
    assert doc["deleted"] == []


def test_explain_every_filter_and_score(tmp_path: Path) -> None:
    path = write(tmp_path, RESOURCES)
    r = upstream("explain", path, "--pod-name", "default/p3")
    assert r.returncode == 0, r.stderr  # nothing is bound yet: p3 fits on n2
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, schema("Explanation"))
    nodes = {n["name"]: n for n in doc["nodes"]}
    assert [n["name"] for n in doc["nodes"]] == ["n1", "n2", "n3"]
    filters = {name: {f["plugin"]: (f["code"], f["reasons"]) for f in n["filters"]}
               for name, n in nodes.items()}
    assert filters["n1"]["NodeResourcesFit"] == ("UnschedulableAndUnresolvable",
                                                 ["Insufficient cpu"])
    assert filters["n3"]["TaintToleration"] == ("UnschedulableAndUnresolvable",
                                                ["node(s) had untolerated taint(s)"])
    assert filters["n3"]["NodeResourcesFit"] == ("Success", [])  # every plugin, not the first
    assert filters["n2"]["NodeAffinity"] == ("Skip", [])
    assert [n["feasible"] for n in doc["nodes"]] == [False, True, False]
    assert doc["selected"] == "n2" and doc["shortcut"] is True
    assert nodes["n2"]["total"] == sum(s["weighted"] for s in nodes["n2"]["scores"])
    for s in nodes["n2"]["scores"]:
        assert s["weighted"] == s["normalized"] * s["weight"]
    assert doc["preemption"] is None


def test_explain_preemption(tmp_path: Path) -> None:
    path = write(tmp_path, PREEMPTION)
    r = upstream("explain", path, "--pod-name", "default/boss")
    assert r.returncode == 1  # the pod does not fit now
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, schema("Explanation"))
    assert doc["selected"] is None
    assert doc["message"].startswith("0/2 nodes are available: 2 Insufficient cpu.")
    pre = doc["preemption"]
    assert pre["eligible"] is True
    assert sorted(c["node"] for c in pre["candidates"]) == ["x", "y"]
    assert (pre["selected"], pre["victims"]) == ("y", ["default/young"])


def test_serve_answers_each_line(tmp_path: Path) -> None:
    requests = [
        {"mode": "simulate", "documents": RESOURCES, "config": None, "seed": 1},
        {"mode": "explain", "documents": RESOURCES, "pod": "default/p4"},
        {"mode": "explain", "documents": RESOURCES, "pod": "default/nope"},
        {"mode": "simulate", "documents": GATED},
    ]
    r = upstream("serve", stdin="".join(json.dumps(q) + "\n" for q in requests))
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(lines) == 4
    assert lines[0]["kind"] == "SimulationResult" and lines[0]["seed"] == 1
    assert lines[0]["bindings"] == {"default/p1": "n2", "default/p2": "n2", "default/p4": "n1"}
    assert lines[1]["kind"] == "Explanation" and lines[1]["pod"] == "default/p4"
    assert "no pod" in lines[2]["error"]
    assert lines[3]["pending"] == ["default/waits"]


# b is the only node in NodeAffinity's PreFilterResult for "onlyb": upstream's
# findNodesThatFitPod then processes one node of three, and the scheduler's next start index
# moves off 0 (a world explain may not reuse as it is).
ONLY_B = pod("onlyb", "1", affinity={"nodeAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["b"]}]}]}}})
OTHER_SCHEDULER = pod("other", "1", schedulerName="no-such-scheduler")


def test_serve_explains_several_pods_as_one_by_one(tmp_path: Path) -> None:
    docs = [*TAINT_AND_AFFINITY, ONLY_B, OTHER_SCHEDULER]
    pods = ["default/zoneb", "default/onlyb", "default/any", "default/nope", "default/other",
            "default/picky", "default/tolerant", "default/any"]
    requests = [{"mode": "explain", "documents": docs, "pods": pods},
                *({"mode": "explain", "documents": docs, "pod": p} for p in pods),
                {"mode": "explain", "documents": docs, "pod": "default/any", "pods": []}]
    r = upstream("serve", stdin="".join(json.dumps(q) + "\n" for q in requests))
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(lines) == len(pods) + 2
    assert lines[0]["kind"] == "ExplanationList"
    assert lines[0]["items"] == lines[1:-1]  # the same answers, errors included
    assert "no pod" in lines[0]["items"][3]["error"]
    assert "no profile" in lines[0]["items"][4]["error"]
    assert lines[0]["items"][1]["selected"] == "b"
    assert "not both" in lines[-1]["error"]


MOST_ALLOCATED = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [{
        "name": "NodeResourcesFit", "args": {"scoringStrategy": {
            "type": "MostAllocated",
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}}]}]}
# PREEMPTION with "high" below "low": the same boss document, admitted with priority 5, cannot
# preempt (serve memoizes decoded objects and configurations: admission must not leak).
PREEMPTION_LOW_HIGH = [priority_class("high", 5), *PREEMPTION[1:]]
ISOLATION_REQUESTS = [
    {"mode": "simulate", "documents": PREEMPTION, "seed": 3},
    {"mode": "simulate", "documents": PREEMPTION_LOW_HIGH, "seed": 3},
    {"mode": "explain", "documents": PREEMPTION, "pod": "default/boss"},
    {"mode": "explain", "documents": PREEMPTION_LOW_HIGH, "pods": ["default/boss"]},
    {"mode": "simulate", "documents": RESOURCES, "config": MOST_ALLOCATED},
    {"mode": "simulate", "documents": RESOURCES, "config": None, "notes": True},
    {"mode": "simulate", "documents": [*RESOURCES, NODE_AT_10S], "config": MOST_ALLOCATED},
    {"mode": "explain", "documents": [*TAINT_AND_AFFINITY, ONLY_B], "config": MOST_ALLOCATED,
     "pods": ["default/onlyb", "default/zoneb", "default/any"]},
    {"mode": "simulate", "documents": GATED, "singlePass": True},
    {"mode": "simulate", "documents": gpu_scenarios.allocated()},
    {"mode": "explain", "documents": gpu_scenarios.allocated(),
     "pods": ["default/p-share-b", "default/p-h100"]},
    {"mode": "simulate", "documents": gpu_scenarios.from_template()},
]


def unordered_candidates(doc: Any) -> Any:
    """``doc`` with every list of preemption ``candidates`` sorted: upstream lists them in Go
    map order (random from run to run of the same request)."""
    if isinstance(doc, list):
        return [unordered_candidates(x) for x in doc]
    if not isinstance(doc, dict):
        return doc
    out = {k: unordered_candidates(v) for k, v in doc.items()}
    if isinstance(out.get("candidates"), list):
        out["candidates"] = sorted(out["candidates"], key=lambda c: json.dumps(c, sort_keys=True))
    return out


def serve_lines(requests: list[dict[str, Any]]) -> list[str]:
    """serve's answers to ``requests`` in one process, as JSON (candidates sorted)."""
    r = upstream("serve", stdin="".join(json.dumps(q) + "\n" for q in requests))
    assert r.returncode == 0, r.stderr
    return [json.dumps(unordered_candidates(json.loads(line))) for line in r.stdout.splitlines()]


def test_serve_answers_do_not_depend_on_the_requests_before() -> None:
    """Each answer of one serve process is the one a fresh process gives, whatever was asked
    before it: in order, reversed, each twice; nothing a request leaves behind (serve's memos
    of decoded objects and configurations, upstream's global state) changes another's."""
    fresh = [serve_lines([q])[0] for q in ISOLATION_REQUESTS]
    boss = [json.loads(line) for line in fresh[:2]]
    assert boss[0]["bindings"]["default/boss"] == "y" and boss[1]["pending"] == ["default/boss"]
    n = len(ISOLATION_REQUESTS)
    assert serve_lines(ISOLATION_REQUESTS) == fresh
    assert serve_lines(ISOLATION_REQUESTS[::-1]) == fresh[::-1]
    twice = [i for i in range(n) for _ in range(2)]
    assert serve_lines([ISOLATION_REQUESTS[i] for i in twice]) == [fresh[i] for i in twice]


def test_subject_explains_several_pods_in_one_request() -> None:

    sc = ScenarioInput([*TAINT_AND_AFFINITY, ONLY_B], None, 0, "several")
    pods = ["default/onlyb", "default/zoneb", "default/nope"]
    with UpstreamSubject(BINARY) as up:
        many = up.explain_many(sc, pods)
        assert up.requests == 1
        one = [up.explain(sc, p) for p in pods[:2]]
        with pytest.raises(ScenarioRejected) as rejected:
            up.explain(sc, pods[2])
    assert many[:2] == one
    assert isinstance(many[2], ScenarioRejected) and str(many[2]) == str(rejected.value)


def test_config_profile_is_applied(tmp_path: Path) -> None:
    # MostAllocated packs: p1 goes to the fuller-after-placement node n1.
    cfg = tmp_path / "cfg.yaml"
    strategy = {"type": "MostAllocated",
                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
    cfg.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [{
            "name": "NodeResourcesFit", "args": {"scoringStrategy": strategy}}]}]}))
    path = write(tmp_path, [node("n1", "2"), node("n2", "4"), pod("p1", "1")])
    out = tmp_path / "r.json"
    r = upstream("simulate", path, "--config", cfg, "--output", out)
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["bindings"] == {"default/p1": "n1"}


# ----- the same scenarios on the reference -----

def reference_simulation(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    from conformance.cli.main import main

    capsys.readouterr()
    rc = main(["simulate", str(path), "-o", "json", "--allow-pending"])
    out = capsys.readouterr().out
    assert rc == 0, out
    return json.loads(out)


@pytest.mark.parametrize("docs", [RESOURCES, TAINT_AND_AFFINITY, PREEMPTION, GATED,
                                  [*RESOURCES, NODE_AT_10S]],
                         ids=["resources", "taint-affinity", "preemption", "gated", "timeline"])
def test_bindings_equal_the_reference(tmp_path: Path, docs: list[dict[str, Any]],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, docs)
    up = simulate(tmp_path, docs)
    ref = reference_simulation(path, capsys)
    assert up["bindings"] == ref["bindings"]
    assert up["pending"] == ref["pending"]
    assert up["deleted"] == ref["deleted"]
    assert outcomes(up) == outcomes(ref)


def test_generated_scenarios_match_the_reference() -> None:
    """Differential: small generated scenarios (timelines included) give the same document on
    upstream and on the reference, but for the attempt's ``event`` (not observable upstream).
    Where upstream's notes say its preemption chose at random among tied nodes, the documents
    agree up to that choice and the reference's node is one of the tied ones."""
    from hypothesis import HealthCheck, Phase, given, settings

    from conformance.engines.diff.ties import random_preemptions
    from conformance.engines.diff.whole import compare_whole
    from conformance.subjects.factory import make_subject
    from strategies.scenarios import scenarios

    ref = make_subject("reference")
    up = make_subject("upstream", timeout=120)

    def norm(doc: dict[str, Any]) -> dict[str, Any]:
        doc = {k: v for k, v in doc.items() if k not in ("trace", "upstreamRelease", "seed")}
        doc["attempts"] = [{k: v for k, v in a.items() if k != "event"}
                           for a in doc["attempts"]]
        return doc

    @settings(max_examples=20, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(scenarios())
    def check(sc: Any) -> None:
        ran = up.run(sc)
        u, notes = ran.result, ran.notes
        r = ref.run(sc).result
        if not random_preemptions(notes):
            assert norm(u) == norm(r)
            return
        cmp = compare_whole(r, u, notes)
        assert not cmp.divergences, (notes, cmp.divergences)

    check()
