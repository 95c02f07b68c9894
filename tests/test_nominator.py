"""The nominator: pods nominated to nodes, as the scheduling cycle and preemption use it.

Cases restate upstream v1.37.2 ``pkg/scheduler/backend/queue/scheduling_queue_test.go``
(TestPriorityQueue_NominatedPodsForNode, TestPriorityQueue_NominatedPodDeleted,
TestPriorityQueue_NominatedNodeNameEmptyNodeKey, TestPriorityQueue_UpdateNominatedPodForNode)
against ``reference_impl/scheduler/nominator.py``, which follows
``pkg/scheduler/backend/queue/nominator.go``. The queue's part (Add puts a pod whose
``status.nominatedNodeName`` is set into the nominator with a nil NominatingInfo) is done here by
calling ``add_nominated_pod(pi, None)``.
"""

from __future__ import annotations

import pytest

from reference_impl.framework.status import MODE_NOOP, MODE_OVERRIDE, NominatingInfo
from reference_impl.framework.types import PodInfo
from reference_impl.model.objects import Pod
from reference_impl.scheduler.nominator import Nominator

LOW, MEDIUM, HIGH = 0, 100, 1000


def mkpod(name: str, ns: str, uid: str, *, priority: int = 0, nnn: str = "",
          node: str = "") -> Pod:
    return Pod(ns, name, uid, priority=priority, nominated_node_name=nnn, node_name=node)


def high_priority() -> Pod:
    return mkpod("hpp", "ns1", "hppns1", priority=HIGH)


def high_pri_nominated() -> Pod:
    return mkpod("hpp", "ns1", "hppns1", priority=HIGH, nnn="node1")


def med_priority() -> Pod:
    return mkpod("mpp", "ns2", "mppns2", priority=MEDIUM, nnn="node1")


def unschedulable() -> Pod:
    return mkpod("up", "ns1", "upns1", priority=LOW, nnn="node1")


def state(n: Nominator) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(nominatedPodToNode, nominatedPods as UIDs) — what upstream compares."""
    return (dict(n.nominated_pod_to_node),
            {node: [pi.pod.uid for pi in lst] for node, lst in n.nominated_pods.items()})


def test_nominated_pods_for_node():
    """scheduling_queue_test.go TestPriorityQueue_NominatedPodsForNode: pods added to the queue
    with a nominated node are listed for it in insertion order; the list is a copy."""
    n = Nominator()
    med, unsched, high = med_priority(), unschedulable(), high_priority()
    for p in (med, unsched, high):
        n.add_nominated_pod(PodInfo(p), None)
    got = n.nominated_pods_for_node("node1")
    assert [pi.pod for pi in got] == [med, unsched]
    got.clear()
    assert len(n.nominated_pods_for_node("node1")) == 2
    assert n.nominated_pods_for_node("node2") == []


@pytest.mark.parametrize("name,pod,want_len", [
    ("alive pod gets added into PodNominator", med_priority(), 1),
    ("pod without .status.nominatedPodName specified shouldn't be added into PodNominator",
     high_priority(), 0),
])
def test_nominated_pod_added(name, pod, want_len):
    """scheduling_queue_test.go TestPriorityQueue_NominatedPodDeleted (the "deleted pod" case
    needs a pod lister, see test_nominating_a_pod_that_no_longer_exists_is_ignored)."""
    n = Nominator()
    n.add_nominated_pod(PodInfo(pod), None)
    assert len(n.nominated_pods_for_node(pod.nominated_node_name)) == want_len


@pytest.mark.parametrize("name,initial,pod_nnn,mode,info_nnn,want", [
    ("ModeOverride empty without prior nomination", "", "", MODE_OVERRIDE, "", ""),
    ("nominated then cleared with ModeOverride empty", "node1", "", MODE_OVERRIDE, "", ""),
    ("ModeNoop empty without prior nomination", "", "", MODE_NOOP, "", ""),
    ("nominated then cleared with ModeNoop empty", "node1", "", MODE_NOOP, "", ""),
    ("ModeNoop with non-empty nominatingInfo NNN ignored when pod NNN empty",
     "", "", MODE_NOOP, "node1", ""),
    ("ModeNoop with non-empty nominatingInfo NNN uses pod NNN",
     "", "node2", MODE_NOOP, "node1", "node2"),
    ("ModeNoop empty nominatingInfo NNN with non-empty pod NNN",
     "", "node2", MODE_NOOP, "", "node2"),
])
def test_nominated_node_name_empty_node_key(name, initial, pod_nnn, mode, info_nnn, want):
    """scheduling_queue_test.go TestPriorityQueue_NominatedNodeNameEmptyNodeKey."""
    pod = mkpod("hpp", "ns1", "hppns1", priority=HIGH, nnn=pod_nnn)
    n = Nominator()
    if initial:
        n.add_nominated_pod(PodInfo(pod), NominatingInfo(initial, MODE_OVERRIDE))
        assert len(n.nominated_pods[initial]) == 1
    n.add_nominated_pod(PodInfo(pod), NominatingInfo(info_nnn, mode))
    assert "" not in n.nominated_pods
    if not want:
        assert n.nominated_pods == {} and n.nominated_pod_to_node == {}
        assert not n.has_any()
    else:
        assert len(n.nominated_pods[want]) == 1
        assert n.nominated_pod_to_node[pod.uid] == want
        assert n.nominated_node_of(pod) == want


def test_update_nominated_pod_for_node():
    """scheduling_queue_test.go TestPriorityQueue_UpdateNominatedPodForNode (the parts that
    do not need a pod lister)."""
    n = Nominator()
    med, unsched, high = med_priority(), unschedulable(), high_priority()
    n.add_nominated_pod(PodInfo(med), None)  # q.Add
    # a pod nominated to a different node than the one in its status
    n.add_nominated_pod(PodInfo(unsched), NominatingInfo("node5", MODE_OVERRIDE))
    # a pod whose status has no nominated node
    n.add_nominated_pod(PodInfo(high), NominatingInfo("node2", MODE_OVERRIDE))
    assert state(n) == (
        {med.uid: "node1", high.uid: "node2", unsched.uid: "node5"},
        {"node1": [med.uid], "node2": [high.uid], "node5": [unsched.uid]})
    # re-nominating moves the pod
    n.add_nominated_pod(PodInfo(high), NominatingInfo("node4", MODE_OVERRIDE))
    assert state(n) == (
        {med.uid: "node1", high.uid: "node4", unsched.uid: "node5"},
        {"node1": [med.uid], "node4": [high.uid], "node5": [unsched.uid]})
    # deleting a nominated pod that has no nominatedNodeName in its object
    n.delete(high)
    assert state(n) == (
        {med.uid: "node1", unsched.uid: "node5"},
        {"node1": [med.uid], "node5": [unsched.uid]})
    n.delete(high)  # DeleteNominatedPodIfExists: absent is fine
    assert len(n.nominated_pod_to_node) == 2


def test_nominating_an_already_scheduled_pod_is_ignored():
    """scheduling_queue_test.go TestPriorityQueue_UpdateNominatedPodForNode ("Attempt to
    nominate a pod that was already scheduled in the informer cache. Nothing should change.")."""
    n = Nominator()
    scheduled = mkpod("sp", "ns1", "spns1", node="foo")
    n.add_nominated_pod(PodInfo(scheduled), NominatingInfo("node1", MODE_OVERRIDE))
    assert state(n) == ({}, {})


@pytest.mark.xfail(strict=True, reason=(
    "nominator.go addNominatedPodUnlocked drops the nomination when the pod is no longer in the "
    "pod lister (deleted); nominator.py has no lister and nominates it"))
def test_nominating_a_pod_that_no_longer_exists_is_ignored():
    """scheduling_queue_test.go TestPriorityQueue_NominatedPodDeleted ("deleted pod shouldn't be
    added into PodNominator") — modelled here as a pod the nominator was told is deleted."""
    n = Nominator()
    pod = high_pri_nominated()
    n.delete(pod)  # the informer's delete event
    n.add_nominated_pod(PodInfo(pod), None)
    assert n.nominated_pods_for_node("node1") == []


def test_noop_keeps_the_pods_own_nomination_and_nil_info_is_noop():
    """nominator.go: a nil NominatingInfo is ModeNoop (``NominatingInfo.Mode()``); ModeNoop
    takes ``status.nominatedNodeName``; every call first deletes the old nomination."""
    n = Nominator()
    pod = high_pri_nominated()
    n.add_nominated_pod(PodInfo(pod), NominatingInfo("node9", MODE_OVERRIDE))
    assert n.nominated_node_of(pod) == "node9"
    n.add_nominated_pod(PodInfo(pod), None)
    assert state(n) == ({pod.uid: "node1"}, {"node1": [pod.uid]})


def test_same_pod_is_stored_once_and_order_is_kept_on_delete():
    """nominator.go: never more than one instance of a pod; deleteUnlocked removes it in place
    (order of the others kept) and drops an emptied node."""
    n = Nominator()
    pods = [mkpod(f"p{i}", "ns", f"u{i}", nnn="n") for i in range(4)]
    for p in pods:
        n.add_nominated_pod(PodInfo(p), None)
    n.add_nominated_pod(PodInfo(pods[0]), None)  # re-add goes to the end
    assert [pi.pod.uid for pi in n.nominated_pods_for_node("n")] == ["u1", "u2", "u3", "u0"]
    n.delete(pods[2])
    assert [pi.pod.uid for pi in n.nominated_pods_for_node("n")] == ["u1", "u3", "u0"]
    for p in pods:
        n.delete(p)
    assert n.nominated_pods == {} and not n.has_any()
