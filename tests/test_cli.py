"""The command line: simulate, explain, output documents, exit codes, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from conformance.cli.main import main
from conformance.core.documents import schema

ROOT = Path(__file__).resolve().parent.parent
CLUSTER = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}},
   status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {example.com/preferred: "yes"}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3},
   spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]},
   status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: running, namespace: default},
   spec: {nodeName: n2, containers: [{name: c, resources: {requests: {cpu: "3"}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: small, namespace: default,
   creationTimestamp: "2026-01-01T00:00:00Z"},
   spec: {containers: [{name: c, resources: {requests: {cpu: 500m, memory: 1Gi}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: big, namespace: default,
   creationTimestamp: "2026-01-01T00:00:01Z"},
   spec: {containers: [{name: c, resources: {requests: {cpu: "7"}}}]}}
"""


@pytest.fixture()
def cluster(tmp_path: Path) -> Path:
    p = tmp_path / "cluster.yaml"
    p.write_text(CLUSTER)
    return p


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json_is_valid_and_upstream_correct(cluster: Path, capsys) -> None:
    code, out, _ = run(capsys, "simulate", str(cluster), "-o", "json")
    assert code == 1  # default/big did not fit
    doc = json.loads(out)
    jsonschema.validate(doc, schema("SimulationResult"))
    # small: n1 (2 cpu free) beats n2 (1 cpu free) on LeastAllocated; n3 is tainted.
    assert doc["bindings"] == {"default/running": "n2", "default/small": "n1"}
    assert doc["pending"] == ["default/big"]
    big = next(a for a in doc["attempts"] if a["pod"] == "default/big")
    assert big["outcome"] == "Unschedulable"
    assert big["reasons"]["n3"] == ["node(s) had untolerated taint(s)"]
    assert big["message"].startswith("0/3 nodes are available: 1 node(s) had untolerated taint(s)"
                                     ", 2 Insufficient cpu.")


def test_simulate_exits_1_when_a_pod_did_not_fit(cluster: Path, capsys) -> None:
    """The README's contract: 1 when a pod did not fit; --allow-pending for 0;
    --fail-on-pending (the old opt-in) still gives 1 and says it is the default now."""
    assert run(capsys, "simulate", str(cluster), "-o", "json")[0] == 1
    assert run(capsys, "simulate", str(cluster), "-o", "json", "--allow-pending")[0] == 0
    code, _, err = run(capsys, "simulate", str(cluster), "-o", "json", "--fail-on-pending")
    assert code == 1 and "deprecated" in err
    assert run(capsys, "simulate", str(cluster), "--fail-on-pending", "--allow-pending")[0] == 2


def test_simulate_is_byte_identical_for_same_seed(cluster: Path, capsys) -> None:
    outs = {run(capsys, "simulate", str(cluster), "--seed", "3", "-o", "json")[1]
            for _ in range(3)}
    assert len(outs) == 1


def test_explain_all_filters_scores_and_schema(cluster: Path, capsys) -> None:
    code, out, _ = run(capsys, "explain", str(cluster), "--pod-name", "default/small",
                       "-o", "json")
    assert code == 0
    doc = json.loads(out)
    jsonschema.validate(doc, schema("Explanation"))
    nodes = {n["name"]: n for n in doc["nodes"]}
    assert [n["name"] for n in doc["nodes"]] == ["n1", "n2", "n3"]
    assert nodes["n3"]["feasible"] is False
    taint = next(f for f in nodes["n3"]["filters"] if f["plugin"] == "TaintToleration")
    assert taint["code"] == "UnschedulableAndUnresolvable"
    # every Filter plugin is reported on every node, not only up to the first failure
    assert len(nodes["n1"]["filters"]) == len(nodes["n3"]["filters"]) > 5
    fit = {s["plugin"]: s for s in nodes["n1"]["scores"]}["NodeResourcesFit"]
    # LeastAllocated: cpu (2000-500)*100/2000=75, memory (4Gi-1Gi)*100/4Gi=75
    assert (fit["raw"], fit["normalized"], fit["weight"], fit["weighted"]) == (75, 75, 1, 75)
    assert doc["selected"] == "n1" and doc["candidates"] == ["n1"]
    assert doc["shortcut"] is False


def test_explain_unschedulable_pod_exits_1(cluster: Path, capsys) -> None:
    code, out, _ = run(capsys, "explain", str(cluster), "--pod-name", "default/big", "-o",
                       "json")
    assert code == 1
    assert json.loads(out)["selected"] is None


def test_explain_pod_file_and_table(cluster: Path, tmp_path: Path, capsys) -> None:
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: probe, namespace: default}\n"
                   "spec:\n  containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n")
    code, out, _ = run(capsys, "explain", str(cluster), "--pod", str(pod), "-o", "table")
    assert code == 0
    assert "selected: n1" in out and "TaintToleration" in out


def test_bad_input_exit_2_names_file_and_field(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
                   "status: {allocatable: {cpu: lots}}\n")
    code, _, err = run(capsys, "simulate", str(bad))
    assert code == 2
    assert "bad.yaml" in err and "cpu" in err


def test_missing_file_and_no_input_exit_2(capsys) -> None:
    assert run(capsys, "simulate", "/nonexistent.yaml")[0] == 2
    assert run(capsys, "simulate")[0] == 2
    assert run(capsys, "explain", "--example")[0] == 2  # neither --pod nor --pod-name


def test_example_cluster_runs(capsys) -> None:
    code, out, _ = run(capsys, "simulate", "--example", "-o", "json")
    doc = json.loads(out)
    assert len(doc["bindings"]) >= 10
    assert doc["pending"] == ["batch/huge"] and code == 1  # the example's pod that never fits


def test_out_of_tree_plugin_changes_placement(tmp_path: Path, capsys) -> None:
    """The documented example plugin, loaded with --plugins and enabled by --config."""
    c = tmp_path / "c.yaml"
    c.write_text(
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: v1, kind: Node, metadata: {name: a}, status: {allocatable: "
        "{cpu: '4', memory: 8Gi, pods: '110'}}}\n"
        "- {apiVersion: v1, kind: Node, metadata: {name: b, labels: "
        "{example.com/preferred: 'yes'}}, status: {allocatable: {cpu: '4', memory: 8Gi, "
        "pods: '110'}}}\n"
        "- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default}, spec: "
        "{containers: [{name: c}]}}\n")
    plugin = str(ROOT / "examples/plugins/prefer_label.py")
    config = str(ROOT / "examples/plugins/prefer-label-config.yaml")
    code, out, _ = run(capsys, "simulate", str(c), "-o", "json")
    assert json.loads(out)["bindings"] == {"default/p": "a"}  # tie: Go heap keeps the first
    code, out, _ = run(capsys, "simulate", str(c), "--plugins", plugin, "--config", config,
                       "-o", "json")
    assert code == 0
    assert json.loads(out)["bindings"] == {"default/p": "b"}


def test_unknown_plugin_in_config_is_a_usage_error(tmp_path: Path, cluster: Path,
                                                   capsys) -> None:
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                   "kind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n"
                   "    score:\n      enabled: [{name: NoSuchPlugin}]\n")
    code, _, err = run(capsys, "simulate", str(cluster), "--config", str(cfg))
    assert code == 2
    assert "NoSuchPlugin" in err


TIMELINE = """\
---
apiVersion: kschedconf/v1
kind: Scenario
metadata: {name: scale-up}
spec:
  events:
  - at: 30s
    action: createNode
    node:
      apiVersion: v1
      kind: Node
      metadata: {name: n4}
      status: {allocatable: {cpu: "16", memory: 32Gi, pods: "110"}}
"""


def test_simulate_timeline_binds_after_node_added(cluster: Path, tmp_path: Path,
                                                  capsys) -> None:
    scn = tmp_path / "timeline.yaml"
    scn.write_text(TIMELINE)
    code, out, _ = run(capsys, "simulate", str(cluster), str(scn), "--trace", "-o", "json")
    assert code == 0
    doc = json.loads(out)
    jsonschema.validate(doc, schema("SimulationResult"))
    last = [a for a in doc["attempts"] if a["pod"] == "default/big"][-1]
    assert (last["time"], last["outcome"], last["node"], last["event"]) == (
        30.0, "Bound", "n4", "NodeAdd")
    assert doc["pending"] == [] and doc["endTime"] == 30.0
    assert any(t["op"] == "pop" for t in doc["trace"])


def test_simulate_until_stops_before_the_event(cluster: Path, tmp_path: Path, capsys) -> None:
    scn = tmp_path / "timeline.yaml"
    scn.write_text(TIMELINE)
    code, out, _ = run(capsys, "simulate", str(cluster), str(scn), "--until", "10s", "-o",
                       "json")
    doc = json.loads(out)
    assert doc["pending"] == ["default/big"] and doc["stoppedBy"] == "until"


def test_bad_timeline_is_an_input_error(cluster: Path, tmp_path: Path, capsys) -> None:
    scn = tmp_path / "timeline.yaml"
    scn.write_text(TIMELINE.replace("createNode", "explodeNode"))
    code, _, err = run(capsys, "simulate", str(cluster), str(scn))
    assert code == 2 and "spec.events[0].action" in err


PREEMPTION = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1},
   status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2},
   status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3},
   spec: {taints: [{key: x, effect: NoSchedule}]},
   status: {allocatable: {cpu: "8", memory: 4Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: low1, namespace: default},
   spec: {nodeName: n1, priority: 1, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: low2, namespace: default},
   spec: {nodeName: n2, priority: 5, containers: [{name: c, resources: {requests: {cpu: 1500m}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: high, namespace: default},
   spec: {priority: 100, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
"""


def test_explain_shows_what_preemption_would_do(tmp_path: Path, capsys) -> None:
    c = tmp_path / "c.yaml"
    c.write_text(PREEMPTION)
    code, out, _ = run(capsys, "explain", str(c), "--pod-name", "default/high", "-o", "json")
    assert code == 1
    doc = json.loads(out)
    jsonschema.validate(doc, schema("Explanation"))
    pre = doc["preemption"]
    # SelectCandidate: the lowest highest-victim priority (1 on n1 beats 5 on n2)
    assert pre["selected"] == "n1" and pre["victims"] == ["default/low1"]
    assert {c["node"] for c in pre["candidates"]} == {"n1", "n2"}
    assert pre["notCandidates"]["n3"] == [
        "preemption cannot help: node(s) had untolerated taint(s)"]
    # explaining evicts nothing
    code, out, _ = run(capsys, "explain", str(c), "--pod-name", "default/high", "-o", "json")
    assert json.loads(out)["preemption"]["selected"] == "n1"


def test_simulate_preempts_then_binds(tmp_path: Path, capsys) -> None:
    c = tmp_path / "c.yaml"
    c.write_text(PREEMPTION)
    code, out, _ = run(capsys, "simulate", str(c), "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, schema("SimulationResult"))
    high = [a for a in doc["attempts"] if a["pod"] == "default/high"]
    assert high[0]["outcome"] == "Nominated"
    assert high[0]["nominatedNode"] == "n1" and high[0]["victims"] == ["default/low1"]
    assert high[-1]["outcome"] == "Bound" and high[-1]["node"] == "n1"
    assert doc["deleted"] == ["default/low1"]
    assert doc["bindings"]["default/high"] == "n1"
