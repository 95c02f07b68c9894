"""NodeUnschedulable, restating pkg/scheduler/framework/plugins/nodeunschedulable/
node_unschedulable_test.go of v1.37.2 (TestNodeUnschedulable, TestIsSchedulableAfterNodeChange,
TestIsSchedulableAfterPodTolerationChange)."""

from __future__ import annotations

import pytest

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Node, Pod, Taint
from reference_impl.plugins.nodeunschedulable import ERR_REASON_UNSCHEDULABLE, NodeUnschedulable
from reference_impl.testing.wrappers import make_pod

UNSCHED_KEY = "node.kubernetes.io/unschedulable"


def make() -> NodeUnschedulable:
    handle = FakeHandle(features={"TaintTolerationComparisonOperators": False})
    return NodeUnschedulable(None, handle)


def pod(*tolerations: dict[str, str]) -> Pod:
    """A pod with these tolerations (v1 dicts, as upstream's literals)."""
    return make_pod("p").tolerations(tolerations).obj()


# TestNodeUnschedulable: (name, pod, node unschedulable, want)
FILTER_CASES = [
    ("does not schedule pod to unschedulable node", pod(), True,
     Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)),
    ("schedule pod to normal node", pod(), False, None),
    ("schedule pod with toleration to unschedulable node",
     pod({"key": UNSCHED_KEY, "effect": "NoSchedule"}), True, None),
]


@pytest.mark.parametrize("name,p,unschedulable,want", FILTER_CASES,
                         ids=[c[0] for c in FILTER_CASES])
def test_node_unschedulable_filter(name, p, unschedulable, want):
    pl = make()
    assert pl.pre_filter(CycleState(), p, []) == (None, None)
    assert pl.filter(None, p, NodeInfo(Node("", unschedulable=unschedulable))) == want


def test_exists_toleration_without_effect_tolerates_unschedulable():
    p = pod({"key": UNSCHED_KEY, "operator": "Exists"})
    assert make().filter(None, p, NodeInfo(Node("n", unschedulable=True))) is None
    p = pod({"key": UNSCHED_KEY, "operator": "Exists", "effect": "NoExecute"})
    assert make().filter(None, p, NodeInfo(Node("n", unschedulable=True))) == Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)


NOT_READY = Taint("node.kubernetes.io/not-ready", "", "NoExecute")

# TestIsSchedulableAfterNodeChange: (name, old, new, hint, err)
NODE_HINT_CASES = [
    ("error-wrong-new-object", None, "not-a-node", "Queue", True),
    ("error-wrong-old-object", "not-a-node", Node("", unschedulable=True), "Queue", True),
    ("skip-queue-on-unschedulable-node-added", None, Node("", unschedulable=True),
     "QueueSkip", False),
    ("queue-on-schedulable-node-added", None, Node(""), "Queue", False),
    ("skip-unrelated-change-unschedulable-true", Node("", unschedulable=True),
     Node("", unschedulable=True, taints=(NOT_READY,)), "QueueSkip", False),
    ("skip-unrelated-change-unschedulable-false", Node(""), Node("", taints=(NOT_READY,)),
     "QueueSkip", False),
    ("queue-on-unschedulable-field-change", Node("", unschedulable=True), Node(""),
     "Queue", False),
]


@pytest.mark.parametrize("name,old,new,hint,want_err", NODE_HINT_CASES,
                         ids=[c[0] for c in NODE_HINT_CASES])
def test_is_schedulable_after_node_change(name, old, new, hint, want_err):
    got, err = make().is_schedulable_after_node_change(pod(), old, new)
    assert got == hint
    assert (err is not None) is want_err


# TestIsSchedulableAfterPodTolerationChange: (name, old, new, hint, err)
POD_HINT_CASES = [
    ("error-wrong-new-object", None, "not-a-pod", "Queue", True),
    ("error-wrong-old-object", "not-a-pod", pod(), "Queue", True),
    ("queue-when-the-unsched-pod-gets-toleration", pod(),
     pod({"key": UNSCHED_KEY, "operator": "Exists"}), "Queue", False),
    ("skip-when-the-unsched-pod-gets-unrelated-toleration", pod(),
     pod({"key": "unrelated-key", "operator": "Exists"}), "QueueSkip", False),
]


@pytest.mark.parametrize("name,old,new,hint,want_err", POD_HINT_CASES,
                         ids=[c[0] for c in POD_HINT_CASES])
def test_is_schedulable_after_pod_toleration_change(name, old, new, hint, want_err):
    got, err = make().is_schedulable_after_target_pod_toleration_change(pod(), old, new)
    assert got == hint
    assert (err is not None) is want_err


def test_events_and_signature():
    pl = make()
    assert [e[:2] for e in pl.events_to_register()] == [
        ("Node", ("Add", "UpdateNodeTaint")), ("TargetPod", ("UpdatePodToleration",))]
    assert pl.sign_pod(pod({"key": "k", "operator": "Exists"})) == (
        [("v1.Pod.Spec.Tolerations", [{"key": "k", "operator": "Exists"}])], None)
