"""The Scenario timeline document (``reference_impl/model/scenario.py``) and durations."""

from __future__ import annotations

import pytest
import yaml

from reference_impl.model.errors import InputError
from reference_impl.model.objects import Cluster, PriorityClass, Taint
from reference_impl.model.scenario import load_scenario, parse_scenario
from reference_impl.scheduler.clock import (
    MILLISECOND,
    SECOND,
    format_duration,
    parse_duration,
)
from reference_impl.testing.wrappers import make_node, make_pod, make_timeline


def cluster() -> Cluster:
    return Cluster(
        nodes=[make_node("n1").obj(), make_node("n2").obj()],
        pods=[make_pod("running").node("n1").obj(),
              make_pod("gated").scheduling_gates("a", "b").obj(), make_pod("pending").obj()],
        priority_classes={"high": PriorityClass("high", 1000)},
    )


def doc(*events, until: str | None = None) -> dict:
    t = make_timeline(*events).name("s1")
    return (t.until(until) if until is not None else t).manifest()


def error_of(d, **kw) -> InputError:
    with pytest.raises(InputError) as e:
        parse_scenario(d, cluster(), source="scn.yaml", document=2, **kw)
    return e.value


def test_parse_every_action():
    s = parse_scenario(doc(
        {"at": "1m", "action": "deleteNode", "node": "n2"},
        {"at": "30s", "action": "createNode", "node": make_node("n3").capacity(cpu="8")},
        {"at": 45, "action": "createPod",
         "pod": make_pod("web").req(cpu="1").priority_class("high")},
        {"at": "1m", "action": "labelNode", "node": "n1", "labels": {"zone": "b", "old": None}},
        {"at": 61.5, "action": "taintNode", "node": "n1",
         "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
        {"at": "62s", "action": "untaintNode", "node": "n1", "taints": [{"key": "k"}]},
        {"at": "63s", "action": "cordon", "node": "n1"},
        {"at": "64s", "action": "uncordon", "node": "n1"},
        {"at": "65s", "action": "removeSchedulingGates", "pod": "default/gated", "gates": ["a"]},
        {"at": "66s", "action": "removeSchedulingGates", "pod": "gated"},
        {"at": "1m10s", "action": "finishPod", "pod": "running"},
        {"at": "80s", "action": "deletePod", "pod": "default/web"},
        until="10m"), cluster())
    assert s.name == "s1" and s.until == 600 * SECOND
    assert [(e.at, e.action, e.index) for e in s.events[:4]] == [
        (30 * SECOND, "createNode", 1), (45 * SECOND, "createPod", 2),
        (60 * SECOND, "deleteNode", 0), (60 * SECOND, "labelNode", 3)]
    by_action = {e.action: e for e in s.events}
    assert by_action["createNode"].node.name == "n3"
    web = by_action["createPod"].pod
    assert web.key == "default/web" and web.priority == 1000
    assert by_action["labelNode"].labels == {"zone": "b", "old": None}
    assert by_action["taintNode"].taints == (Taint("k", "v", "NoSchedule"),)
    assert by_action["taintNode"].at == 61_500 * MILLISECOND
    assert by_action["untaintNode"].untaints == (("k", ""),)
    gates = [e for e in s.events if e.action == "removeSchedulingGates"]
    assert [(e.target, e.gates) for e in gates] == [("default/gated", ("a",)),
                                                    ("default/gated", None)]
    assert by_action["finishPod"].target == "default/running"


def test_empty_scenario():
    s = parse_scenario({"apiVersion": "kschedconf/v1", "kind": "Scenario"})
    assert s.events == [] and s.until is None


@pytest.mark.parametrize("d,field,message", [
    ({"apiVersion": "kschedconf/v2", "kind": "Scenario"}, "apiVersion", "expected 'kschedconf/v1'"),
    ({"apiVersion": "kschedconf/v1", "kind": "Plan"}, "kind", "expected 'Scenario'"),
    ({"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": []}, "spec",
     "expected a mapping, got list"),
    ({"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": {}}},
     "spec.events", "expected a list of events"),
    ({"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"timeline": []}},
     "spec.timeline", "unknown field"),
    (doc(until="soon"), "spec.until", "invalid duration 'soon'"),
    (doc("x"), "spec.events[0]", "expected an event mapping, got string"),
    (doc({"at": 1, "action": "rebootNode", "node": "n1"}), "spec.events[0].action",
     "expected one of createPod, deletePod"),
    (doc({"action": "cordon", "node": "n1"}), "spec.events[0].at", "required"),
    (doc({"at": -5, "action": "cordon", "node": "n1"}), "spec.events[0].at",
     "must not be negative"),
    (doc({"at": "5 minutes", "action": "cordon", "node": "n1"}), "spec.events[0].at",
     "invalid duration"),
    (doc({"at": True, "action": "cordon", "node": "n1"}), "spec.events[0].at", "boolean"),
    (doc({"at": 1, "action": "cordon", "node": "n1", "labels": {"a": "b"}}),
     "spec.events[0].labels", "unknown field for action cordon"),
    (doc({"at": 1, "action": "labelNode", "node": "n1"}), "spec.events[0].labels",
     "required for action labelNode"),
    (doc({"at": 1, "action": "labelNode", "node": "n1", "labels": {"a": 1}}),
     "spec.events[0].labels[a]", "expected a string or null"),
    (doc({"at": 1, "action": "taintNode", "node": "n1", "taints": [{"key": "k"}]}),
     "spec.events[0].taints[0].effect", "expected one of NoSchedule"),
    (doc({"at": 1, "action": "taintNode", "node": "n1",
          "taints": [{"key": "k", "effect": "NoSchedule", "operator": "Exists"}]}),
     "spec.events[0].taints[0].operator", "unknown field"),
    (doc({"at": 1, "action": "cordon", "node": ""}), "spec.events[0].node",
     "expected the node name"),
    (doc({"at": 1, "action": "cordon", "node": "n9"}), "spec.events[0].node",
     "node 'n9' does not exist at 1s"),
    (doc({"at": 1, "action": "deletePod", "pod": "a/b/c"}), "spec.events[0].pod",
     "expected NAMESPACE/NAME or NAME"),
    (doc({"at": 1, "action": "deletePod", "pod": "ghost"}), "spec.events[0].pod",
     "pod 'default/ghost' does not exist at 1s"),
    (doc({"at": 1, "action": "deletePod", "pod": "pending"},
         {"at": 2, "action": "finishPod", "pod": "pending"}), "spec.events[1].pod",
     "does not exist at 2s"),
    (doc({"at": 1, "action": "deleteNode", "node": "n1"},
         {"at": 2, "action": "finishPod", "pod": "running"}), "spec.events[1].pod",
     "does not exist at 2s"),
    (doc({"at": 1, "action": "removeSchedulingGates", "pod": "pending"}), "spec.events[0].pod",
     "has no scheduling gates"),
    (doc({"at": 1, "action": "removeSchedulingGates", "pod": "gated", "gates": ["c"]}),
     "spec.events[0].gates", "has no gate 'c'"),
    (doc({"at": 1, "action": "removeSchedulingGates", "pod": "gated", "gates": []}),
     "spec.events[0].gates", "non-empty list"),
    (doc({"at": 1, "action": "createNode", "node": make_node("n1")}),
     "spec.events[0].node.metadata.name", "node 'n1' already exists"),
    (doc({"at": 1, "action": "createPod", "pod": make_pod("pending")}),
     "spec.events[0].pod.metadata.name", "pod 'default/pending' already exists"),
    (doc({"at": 1, "action": "createPod", "pod": make_pod("x").node("n7")}),
     "spec.events[0].pod.spec.nodeName", "node 'n7' does not exist"),
    (doc({"at": 1, "action": "createPod", "pod": "web"}), "spec.events[0].pod",
     "expected a Pod manifest (a mapping), got string"),
    (doc({"at": 1, "action": "createPod", "pod": make_node("n5")}), "spec.events[0].pod.kind",
     "expected kind Pod, got 'Node'"),
    (doc({"at": 1, "action": "createPod", "pod": make_pod("x").req(cpu="lots")}),
     "spec.events[0].pod.spec.containers[0].resources.requests.cpu", "Pod default/x"),
    (doc({"at": 1, "action": "createPod",
          "pod": make_pod("x").priority_class("nope")}),
     "spec.events[0].pod.spec.priorityClassName", "no PriorityClass with name 'nope'"),
    (doc({"at": 1, "action": "createPod", "pod": make_pod("x").phase("Succeeded")}),
     "spec.events[0].pod", "expected exactly one Pod"),
])
def test_bad_input(d, field, message):
    e = error_of(d)
    assert e.field == field
    assert message in str(e)
    assert e.source == "scn.yaml" and e.document == 2
    assert str(e).startswith("scn.yaml, document 2: Scenario")


def test_error_names_the_scenario():
    e = error_of(doc({"at": 1, "action": "cordon", "node": "n9"}))
    assert e.obj == "Scenario s1"
    assert str(e) == ("scn.yaml, document 2: Scenario s1: spec.events[0].node: node 'n9' does not "
                      "exist at 1s (not in the cluster, or not created by an earlier event, or "
                      "deleted before)")


def test_targets_created_earlier_are_known():
    s = parse_scenario(doc(
        {"at": 5, "action": "createNode", "node": make_node("n3")},
        {"at": 5, "action": "cordon", "node": "n3"},  # same time, later in the document
        {"at": 6, "action": "createPod", "pod": make_pod("p").node("n3")},
        {"at": 7, "action": "finishPod", "pod": "p"}), cluster())
    assert [e.action for e in s.events] == ["createNode", "cordon", "createPod", "finishPod"]
    e = error_of(doc({"at": 5, "action": "cordon", "node": "n3"},
                     {"at": 5, "action": "createNode", "node": make_node("n3")}))
    assert e.field == "spec.events[0].node"


def test_load_scenario_from_files(tmp_path):
    f = tmp_path / "cluster.yaml"
    f.write_text(yaml.safe_dump_all([make_node("n1").manifest(), doc(
        {"at": "2s", "action": "cordon", "node": "n1"})]))
    s = load_scenario([str(f)], Cluster(nodes=[make_node("n1").obj()]))
    assert s is not None and s.document == 2 and s.source == str(f)
    assert s.events[0].at == 2 * SECOND
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump_all([doc({"at": "2s", "action": "cordon", "node": "zz"})]))
    with pytest.raises(InputError, match=r"bad\.yaml, document 1: Scenario s1: "
                                         r"spec\.events\[0\]\.node"):
        load_scenario([str(bad)], Cluster(nodes=[make_node("n1").obj()]))
    two = tmp_path / "two.yaml"
    two.write_text(yaml.safe_dump_all([doc(), doc()]))
    with pytest.raises(InputError, match="a second Scenario"):
        load_scenario([str(two)])
    assert load_scenario([str(tmp_path / "cluster.yaml")], None) is not None
    plain = tmp_path / "plain.yaml"
    plain.write_text(yaml.safe_dump(make_node("n1").manifest()))
    assert load_scenario([str(plain)]) is None


@pytest.mark.parametrize("text,ns", [
    (30, 30 * SECOND), (1.5, 1500 * MILLISECOND), ("30", 30 * SECOND), ("0", 0),
    ("1m30s", 90 * SECOND), ("250ms", 250 * MILLISECOND), ("1h2m3.5s", 3723_500 * MILLISECOND),
    ("1.5h", 5400 * SECOND), ("2us", 2000), ("7ns", 7), ("-1s", -SECOND),
])
def test_parse_duration(text, ns):
    assert parse_duration(text) == ns


@pytest.mark.parametrize("text", ["", "s", "1x", "1m30", "one", None, True, float("nan")])
def test_parse_duration_errors(text):
    with pytest.raises(ValueError):
        parse_duration(text)


@pytest.mark.parametrize("ns,text", [
    (0, "0s"), (90 * SECOND, "1m30s"), (250 * MILLISECOND, "250ms"), (3723_500 * MILLISECOND,
                                                                    "1h2m3.5s"), (1500, "1.5µs"),
])
def test_format_duration(ns, text):
    """``time.Duration.String``."""
    assert format_duration(ns) == text
