"""NodeName, restating pkg/scheduler/framework/plugins/nodename/node_name_test.go of v1.37.2
(TestNodeName, TestNodeName_PreFilter)."""

from __future__ import annotations

import pytest

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Node, Pod
from reference_impl.plugins.nodename import ERR_REASON, NodeName, fits
from reference_impl.testing.wrappers import make_pod


def pod(node_name: str = "") -> Pod:
    p = make_pod("p")
    return (p.node(node_name) if node_name else p).obj()


@pytest.mark.parametrize("name,p,node_name,want", [
    ("no host specified", pod(), "", None),
    ("host matches", pod("foo"), "foo", None),
    ("host doesn't match", pod("bar"), "foo",
     Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)),
])
def test_node_name_filter(name, p, node_name, want):
    ni = NodeInfo(Node(node_name))
    assert NodeName(None, None).filter(None, p, ni) == want
    assert fits(p, ni) is (want is None)


def test_node_name_pre_filter():
    result, status = NodeName(None, None).pre_filter(CycleState(), pod("foo"), [])
    assert status is None and result is not None and result.node_names == {"foo"}
    assert NodeName(None, None).pre_filter(CycleState(), pod(), []) == (None, None)


def test_events_and_signature():
    pl = NodeName(None, None)
    assert pl.events_to_register() == [("Node", ("Add",), None)]
    assert pl.sign_pod(pod("n1")) == ([("v1.Pod.Spec.NodeName", "n1")], None)
