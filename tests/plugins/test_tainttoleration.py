"""TaintToleration, restating pkg/scheduler/framework/plugins/tainttoleration/
taint_toleration_test.go of v1.37.2 (TestTaintTolerationScore, TestTaintTolerationFilter,
TestTaintTolerationFilterWithFeatureGate, TestIsSchedulableAfterNodeChange,
Test_isSchedulableAfterTargetPodTolerationChange)."""

from __future__ import annotations

import pytest

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import MAX_NODE_SCORE
from reference_impl.framework.status import Code, PluginError, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Node, Pod, Taint, Toleration
from reference_impl.plugins.tainttoleration import TaintToleration

NS, PNS = "NoSchedule", "PreferNoSchedule"
GATE = "TaintTolerationComparisonOperators"
UNTOLERATED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)")


def node_with_taints(name: str, taints: list[Taint]) -> Node:
    return Node(name=name, taints=tuple(taints))


def pod_with_tolerations(name: str, tolerations: list[Toleration]) -> Pod:
    return Pod(namespace="", name=name, uid=name, tolerations=tuple(tolerations))


def plugin(gate: bool = False) -> TaintToleration:
    return TaintToleration(None, FakeHandle(features={GATE: gate}))


def T(key: str, value: str, effect: str) -> Taint:  # noqa: N802
    return Taint(key=key, value=value, effect=effect)


def tol(key: str = "", op: str = "", value: str = "", effect: str = "") -> Toleration:
    return Toleration(key=key, operator=op, value=value, effect=effect)


SLA = "node.kubernetes.io/sla"

# TestTaintTolerationScore: (name, pod, nodes, expected normalized scores, gate)
SCORE_CASES = [
    ("tolerated taints score higher than intolerable ones",
     pod_with_tolerations("pod1", [tol("foo", "Equal", "bar", PNS)]),
     [node_with_taints("nodeA", [T("foo", "bar", PNS)]),
      node_with_taints("nodeB", [T("foo", "blah", PNS)])],
     [("nodeA", MAX_NODE_SCORE), ("nodeB", 0)], False),
    ("all-tolerated nodes get the same score regardless of taint count",
     pod_with_tolerations("pod1", [tol("cpu-type", "Equal", "arm64", PNS),
                                   tol("disk-type", "Equal", "ssd", PNS)]),
     [node_with_taints("nodeA", []),
      node_with_taints("nodeB", [T("cpu-type", "arm64", PNS)]),
      node_with_taints("nodeC", [T("cpu-type", "arm64", PNS), T("disk-type", "ssd", PNS)])],
     [("nodeA", MAX_NODE_SCORE), ("nodeB", MAX_NODE_SCORE), ("nodeC", MAX_NODE_SCORE)], False),
    ("the more intolerable taints, the lower the score",
     pod_with_tolerations("pod1", [tol("foo", "Equal", "bar", PNS)]),
     [node_with_taints("nodeA", []),
      node_with_taints("nodeB", [T("cpu-type", "arm64", PNS)]),
      node_with_taints("nodeC", [T("cpu-type", "arm64", PNS), T("disk-type", "ssd", PNS)])],
     [("nodeA", MAX_NODE_SCORE), ("nodeB", 50), ("nodeC", 0)], False),
    ("only PreferNoSchedule taints and tolerations are checked",
     pod_with_tolerations("pod1", [tol("cpu-type", "Equal", "arm64", NS),
                                   tol("disk-type", "Equal", "ssd", NS)]),
     [node_with_taints("nodeA", []),
      node_with_taints("nodeB", [T("cpu-type", "arm64", NS)]),
      node_with_taints("nodeC", [T("cpu-type", "arm64", PNS), T("disk-type", "ssd", PNS)])],
     [("nodeA", MAX_NODE_SCORE), ("nodeB", MAX_NODE_SCORE), ("nodeC", 0)], False),
    ("no taints and tolerations lands on the node without taints",
     pod_with_tolerations("pod1", []),
     [node_with_taints("nodeA", []), node_with_taints("nodeB", [T("cpu-type", "arm64", PNS)])],
     [("nodeA", MAX_NODE_SCORE), ("nodeB", 0)], False),
    ("numeric Gt operator prefers nodes with matching SLA taint",
     pod_with_tolerations("pod1", [tol(SLA, "Gt", "950", PNS)]),
     [node_with_taints("nodeA", [T(SLA, "800", PNS)]),
      node_with_taints("nodeB", [T(SLA, "999", PNS)])],
     [("nodeA", 0), ("nodeB", MAX_NODE_SCORE)], True),
    ("numeric Lt operator prefers nodes with matching SLA taint",
     pod_with_tolerations("pod1", [tol(SLA, "Lt", "800", PNS)]),
     [node_with_taints("nodeA", [T(SLA, "950", PNS)]),
      node_with_taints("nodeB", [T(SLA, "700", PNS)])],
     [("nodeA", 0), ("nodeB", MAX_NODE_SCORE)], True),
]


@pytest.mark.parametrize("name,pod,nodes,expected,gate", SCORE_CASES,
                         ids=[c[0] for c in SCORE_CASES])
def test_taint_toleration_score(name, pod, nodes, expected, gate):
    p = plugin(gate)
    state = CycleState()
    infos = [NodeInfo(n) for n in nodes]
    assert p.pre_score(state, pod, infos) is None
    scores = [[ni.name, p.score(state, pod, ni)] for ni in infos]
    assert p.normalize_score(state, pod, scores) is None
    assert [tuple(s) for s in scores] == expected


def test_raw_score_counts_untolerated_prefer_no_schedule_taints():
    p = plugin()
    state = CycleState()
    pod = pod_with_tolerations("pod1", [tol("foo", "Equal", "bar", PNS)])
    ni = NodeInfo(node_with_taints("n", [T("a", "", PNS), T("b", "", PNS), T("foo", "bar", PNS),
                                         T("c", "", NS)]))
    p.pre_score(state, pod, [ni])
    assert p.score(state, pod, ni) == 2


def test_score_without_pre_score_is_an_error():
    with pytest.raises(PluginError) as ei:
        plugin().score(CycleState(), pod_with_tolerations("p", []), NodeInfo(Node("n")))
    assert str(ei.value) == 'failed to read "PreScoreTaintToleration" from cycleState: not found'


# TestTaintTolerationFilter: (name, pod, node, want status, gate)
FILTER_CASES = [
    ("no tolerations can't land on a node with nonempty taints",
     pod_with_tolerations("pod1", []),
     node_with_taints("nodeA", [T("dedicated", "user1", NS)]), UNTOLERATED, False),
    ("tolerates dedicated node user1 NoSchedule",
     pod_with_tolerations("pod1", [tol("dedicated", "", "user1", NS)]),
     node_with_taints("nodeA", [T("dedicated", "user1", NS)]), None, False),
    ("can't land on dedicated node assigned to user2",
     pod_with_tolerations("pod1", [tol("dedicated", "Equal", "user2", NS)]),
     node_with_taints("nodeA", [T("dedicated", "user1", NS)]), UNTOLERATED, False),
    ("Exists toleration tolerates the taint",
     pod_with_tolerations("pod1", [tol("foo", "Exists", effect=NS)]),
     node_with_taints("nodeA", [T("foo", "bar", NS)]), None, False),
    ("multiple tolerations tolerate multiple taints",
     pod_with_tolerations("pod1", [tol("dedicated", "Equal", "user2", NS),
                                   tol("foo", "Exists", effect=NS)]),
     node_with_taints("nodeA", [T("dedicated", "user2", NS), T("foo", "bar", NS)]), None, False),
    ("matching key/value but non-empty different effect",
     pod_with_tolerations("pod1", [tol("foo", "Equal", "bar", PNS)]),
     node_with_taints("nodeA", [T("foo", "bar", NS)]), UNTOLERATED, False),
    ("matching key/value and empty toleration effect",
     pod_with_tolerations("pod1", [tol("foo", "Equal", "bar")]),
     node_with_taints("nodeA", [T("foo", "bar", NS)]), None, False),
    ("untolerated PreferNoSchedule taint doesn't filter",
     pod_with_tolerations("pod1", [tol("dedicated", "Equal", "user2", NS)]),
     node_with_taints("nodeA", [T("dedicated", "user1", PNS)]), None, False),
    ("no toleration and PreferNoSchedule taint",
     pod_with_tolerations("pod1", []),
     node_with_taints("nodeA", [T("dedicated", "user1", PNS)]), None, False),
    ("Gt below threshold",
     pod_with_tolerations("pod1", [tol("node.example.com/priority-level", "Gt", "950", NS)]),
     node_with_taints("nodeA", [T("node.example.com/priority-level", "800", NS)]),
     UNTOLERATED, True),
    ("Gt above threshold",
     pod_with_tolerations("pod1", [tol(SLA, "Gt", "750", NS)]),
     node_with_taints("nodeA", [T(SLA, "950", NS)]), None, True),
    ("Lt above threshold",
     pod_with_tolerations("pod1", [tol("node.example.com/priority-level", "Lt", "800", NS)]),
     node_with_taints("nodeA", [T("node.example.com/priority-level", "950", NS)]),
     UNTOLERATED, True),
    ("Lt below threshold",
     pod_with_tolerations("pod1", [tol(SLA, "Lt", "950", NS)]),
     node_with_taints("nodeA", [T(SLA, "800", NS)]), None, True),
    ("Gt with non-numeric taint value",
     pod_with_tolerations("pod1", [tol(SLA, "Gt", "950", NS)]),
     node_with_taints("nodeA", [T(SLA, "high", NS)]), UNTOLERATED, True),
    # TestTaintTolerationFilterWithFeatureGate
    ("gate on: Gt tolerated when taint higher",
     pod_with_tolerations("pod1", [tol(SLA, "Gt", "750", NS)]),
     node_with_taints("nodeA", [T(SLA, "950", NS)]), None, True),
    ("gate off: Gt toleration never tolerates",
     pod_with_tolerations("pod1", [tol(SLA, "Gt", "750", NS)]),
     node_with_taints("nodeA", [T(SLA, "950", NS)]), UNTOLERATED, False),
    ("gate on: Lt tolerated when taint lower",
     pod_with_tolerations("pod1", [tol(SLA, "Lt", "950", NS)]),
     node_with_taints("nodeA", [T(SLA, "800", NS)]), None, True),
    ("gate off: Lt toleration never tolerates",
     pod_with_tolerations("pod1", [tol(SLA, "Lt", "950", NS)]),
     node_with_taints("nodeA", [T(SLA, "800", NS)]), UNTOLERATED, False),
    ("gate off: mixed Equal and Gt, only Equal needed",
     pod_with_tolerations("pod1", [tol("dedicated", "Equal", "user1", NS),
                                   tol(SLA, "Gt", "750", NS)]),
     node_with_taints("nodeA", [T("dedicated", "user1", NS)]), None, False),
    ("gate off: mixed Equal and Gt, Gt needed",
     pod_with_tolerations("pod1", [tol("dedicated", "Equal", "user1", NS),
                                   tol(SLA, "Gt", "750", NS)]),
     node_with_taints("nodeA", [T("dedicated", "user1", NS), T(SLA, "950", NS)]),
     UNTOLERATED, False),
]


@pytest.mark.parametrize("name,pod,node,want,gate", FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_taint_toleration_filter(name, pod, node, want, gate):
    p = plugin(gate)
    assert p.pre_filter(CycleState(), pod, []) == (None, None)
    assert p.filter(None, pod, NodeInfo(node)) == want


def test_filter_without_handle_uses_gate_default_off():
    p = TaintToleration(None, None)
    pod = pod_with_tolerations("pod1", [tol(SLA, "Gt", "750", NS)])
    assert p.filter(None, pod, NodeInfo(node_with_taints("n", [T(SLA, "950", NS)]))) == UNTOLERATED


# TestIsSchedulableAfterNodeChange
HINT_POD = pod_with_tolerations("pod1", [tol("dedicated", "Equal", "user2", NS)])
HINT_CASES = [
    ("backoff-wrong-new-object", HINT_POD, None, "not-a-node", "Queue", True),
    ("backoff-wrong-old-object", HINT_POD, "not-a-node",
     node_with_taints("nodeA", [T("dedicated", "user1", NS)]), "Queue", True),
    ("skip-queue-on-untoleratedtaint-node-added", HINT_POD, None,
     node_with_taints("nodeA", [T("dedicated", "user1", NS)]), "QueueSkip", False),
    ("queue-on-toleratedtaint-node-added", HINT_POD, None,
     node_with_taints("nodeA", [T("dedicated", "user2", NS)]), "Queue", False),
    ("skip-unrelated-change", HINT_POD,
     node_with_taints("nodeA", [T("dedicated", "user1", NS)]),
     node_with_taints("nodeA", [T("dedicated", "user1", NS), T("dedicated", "user3", NS)]),
     "QueueSkip", False),
    ("queue-on-taint-change", HINT_POD,
     node_with_taints("nodeA", [T("dedicated", "user1", NS)]),
     node_with_taints("nodeA", [T("dedicated", "user2", NS)]), "Queue", False),
]


@pytest.mark.parametrize("name,pod,old,new,hint,want_err", HINT_CASES,
                         ids=[c[0] for c in HINT_CASES])
def test_is_schedulable_after_node_change(name, pod, old, new, hint, want_err):
    got, err = plugin().is_schedulable_after_node_change(pod, old, new)
    assert got == hint
    assert (err is not None) is want_err


def test_is_schedulable_after_target_pod_toleration_change():
    old = Pod(namespace="ns-1", name="pod-1", uid="u")
    new = Pod(namespace="ns-1", name="pod-1", uid="u",
              tolerations=(Toleration(key="foo", effect=NS),))
    assert plugin().is_schedulable_after_target_pod_toleration_change(old, old, new) == (
        "Queue", None)


def test_events_and_signature():
    p = plugin()
    assert p.events_to_register() == [
        ("Node", ("Add", "UpdateNodeTaint"), "is_schedulable_after_node_change"),
        ("TargetPod", ("UpdatePodToleration",),
         "is_schedulable_after_target_pod_toleration_change"),
    ]
    frags, status = p.sign_pod(pod_with_tolerations("p", [tol("b", "Exists"), tol("a", "", "x")]))
    assert status is None
    assert frags == [("v1.Pod.Spec.Tolerations",
                      [{"key": "a", "value": "x"}, {"key": "b", "operator": "Exists"}])]
