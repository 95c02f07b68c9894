"""The scheduler over virtual time (``reference_impl/scheduler/simulation.py``).

Each test builds a small cluster and a timeline and checks when, from which queue and after
which event each attempt happened, against the timing rules of upstream's scheduling queue
(``pkg/scheduler/backend/queue/scheduling_queue.go``): backoff of 1s doubling to 10s, flushed
at whole seconds; unschedulable pods flushed every 30s after 5 minutes; pops from backoffQ when
activeQ is empty (SchedulerPopFromBackoffQ).
"""

from __future__ import annotations

import pytest

from conformance.core.documents import simulation_doc
from reference_impl.config import load_config
from reference_impl.framework import interfaces as itf
from reference_impl.framework.status import Code, Status
from reference_impl.model.objects import Cluster
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases import current
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import (
    TimelineResult,
    merge_simulation_doc,
    run_simulation,
    simulation_doc_extra,
)
from reference_impl.testing.wrappers import make_node, make_pod, make_timeline

NODE = {"cpu": "4", "memory": "32Gi", "pods": 110}  # the nodes of these tests, unless told


def scenario(cluster: Cluster, *events: dict, until: str | None = None):
    t = make_timeline(*events)
    return (t.until(until) if until else t).obj(cluster)


def timeline(res: TimelineResult, pod: str | None = None) -> list[tuple]:
    """(time, attempt, queue, event, outcome, node) of each record (of one pod)."""
    return [(i.time, i.attempt, i.queue, i.event, a.outcome, a.node)
            for a, i in zip(res.attempts, res.attempt_info, strict=True)
            if pod is None or a.pod == pod]


def features(**overrides: bool):
    return lambda gate: overrides.get(gate, current.feature_enabled(gate))


class AlwaysReject(itf.PreFilterPlugin, itf.FilterPlugin):
    """Rejects every node; only a node label update may help (so its hint says Queue)."""

    name = "AlwaysReject"

    def pre_filter(self, state, pod, nodes):
        return None, None

    def filter(self, state, pod, node_info):
        return Status(Code.UNSCHEDULABLE, "always rejected")

    def events_to_register(self):
        return [("Node", ("UpdateNodeLabel",), None)]


def reject_scheduler(cluster: Cluster, **gates: bool) -> Scheduler:
    registry = in_tree_registry()
    registry[AlwaysReject.name] = AlwaysReject
    config = load_config({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler",
                      "plugins": {"multiPoint": {"enabled": [{"name": AlwaysReject.name}]}}}],
    }, registry)
    return Scheduler(cluster, config, registry, features=features(**gates))


def test_unschedulable_until_a_node_is_added():
    """A pod too big for every node is tried at 0s, then right after the node add at 30s
    (NodeResourcesFit's Node/Add event), from activeQ: its 1-2s backoff is long over."""
    c = Cluster(nodes=[make_node("small").capacity(NODE, cpu="1").obj()],
                pods=[make_pod("big").req(cpu="2").obj()])
    res = run_simulation(Scheduler(c), scenario(c, {"at": "30s", "action": "createNode",
                                                    "node": make_node("large").capacity(
                                                        NODE, cpu="4")}))
    rows = timeline(res, "default/big")
    assert rows[-1] == (30.0, len(rows), "activeQ", "NodeAdd", "Bound", "large")
    assert all(r[0] == 0.0 and r[4] == "Unschedulable" for r in rows[:-1])
    assert res.bindings == {"default/big": "large"} and res.pending == []
    assert res.end_time == 30.0 and res.stopped_by == "quiescence"
    assert res.timeline == [{"time": 30.0, "index": 0, "action": "createNode",
                             "target": "large", "result": "applied"}]


def test_gated_pod_scheduled_after_gate_removal():
    """SchedulingGates keeps the pod in the unschedulable pool (a Gated record at 0s); removing
    one of two gates is a plain TargetPod/Update, which SchedulingGates did not register: the
    pod is not even re-checked; removing the last moves it (TargetPod/
    UpdatePodSchedulingGatesEliminated) and it is scheduled at once."""
    c = Cluster(nodes=[make_node("n1").capacity(NODE).obj()],
                pods=[make_pod("job").req(cpu="1").scheduling_gates("a", "b").obj()])
    res = run_simulation(Scheduler(c), scenario(
        c, {"at": "10s", "action": "removeSchedulingGates", "pod": "job", "gates": ["a"]},
        {"at": "45s", "action": "removeSchedulingGates", "pod": "job"}))
    assert timeline(res) == [
        (0.0, 0, None, "UnscheduledPodAdd", "Gated", None),
        (45.0, 1, "activeQ", "TargetPodUpdatePodSchedulingGatesEliminated", "Bound", "n1"),
    ]
    assert res.attempts[0].message == "waiting for scheduling gates: [a b]"
    assert [t["result"] for t in res.timeline] == ["applied", "applied"]
    assert res.bindings == {"default/job": "n1"}


def test_gated_pod_stays_pending():
    c = Cluster(nodes=[make_node("n1").capacity(NODE).obj()],
                pods=[make_pod("job").scheduling_gates("a").obj()])
    res = run_simulation(Scheduler(c))
    assert res.pending == ["default/job"] and res.end_time == 0.0
    assert timeline(res) == [(0.0, 0, None, "UnscheduledPodAdd", "Gated", None)]


def test_backoff_timing_of_a_failing_pod_without_pop_from_backoff_q():
    """Each label update makes the hint say Queue while the pod is backing off: backoffQ,
    released by the first whole-second flush after the backoff (1s, 2s, 4s, 8s, then the
    10s cap) counted from the last failure."""
    c = Cluster(nodes=[make_node("n1").capacity(NODE).obj()], pods=[make_pod("p").obj()])
    events = [{"at": t, "action": "labelNode", "node": "n1", "labels": {"step": str(i)}}
              for i, t in enumerate([0.5, 2.5, 5.5, 10.5, 19.5])]
    res = run_simulation(reject_scheduler(c, SchedulerPopFromBackoffQ=False),
                         scenario(c, *events))
    assert timeline(res) == [
        (0.0, 1, "activeQ", "UnscheduledPodAdd", "Unschedulable", None),
        (2.0, 2, "activeQ", "NodeUpdateNodeLabel", "Unschedulable", None),  # backoff 1s
        (5.0, 3, "activeQ", "NodeUpdateNodeLabel", "Unschedulable", None),  # 2s
        (10.0, 4, "activeQ", "NodeUpdateNodeLabel", "Unschedulable", None),  # 4s
        (19.0, 5, "activeQ", "NodeUpdateNodeLabel", "Unschedulable", None),  # 8s
        (30.0, 6, "activeQ", "NodeUpdateNodeLabel", "Unschedulable", None),  # 10s (max)
    ]
    assert res.pending == ["default/p"] and res.stopped_by == "quiescence"


def test_pop_from_backoff_q_when_active_q_is_empty():
    """SchedulerPopFromBackoffQ (on): with activeQ empty the pod is popped from backoffQ right
    away, its backoff notwithstanding."""
    c = Cluster(nodes=[make_node("n1").capacity(NODE).obj()], pods=[make_pod("p").obj()])
    events = [{"at": t, "action": "labelNode", "node": "n1", "labels": {"step": str(i)}}
              for i, t in enumerate([0.5, 2.5])]
    res = run_simulation(reject_scheduler(c), scenario(c, *events))
    assert timeline(res) == [
        (0.0, 1, "activeQ", "UnscheduledPodAdd", "Unschedulable", None),
        (0.5, 2, "backoffQ", "NodeUpdateNodeLabel", "Unschedulable", None),
        (2.5, 3, "backoffQ", "NodeUpdateNodeLabel", "Unschedulable", None),
    ]


def test_event_the_hint_skips_waits_for_the_leftover_flush():
    """A node add is not an event AlwaysReject registered: the pod stays in the pool until the
    30s flush that finds it there for more than 5 minutes (330s), and is tried once more."""
    c = Cluster(nodes=[make_node("n1").capacity(NODE).obj()], pods=[make_pod("p").obj()])
    res = run_simulation(reject_scheduler(c), scenario(
        c, {"at": "20s", "action": "createNode", "node": make_node("n2").capacity(NODE)}))
    assert timeline(res) == [
        (0.0, 1, "activeQ", "UnscheduledPodAdd", "Unschedulable", None),
        (330.0, 2, "activeQ", "UnschedulableTimeout", "Unschedulable", None),
    ]
    assert res.end_time == 330.0


def test_until_stops_the_clock():
    c = Cluster(nodes=[make_node("n1").capacity(NODE).obj()], pods=[make_pod("p").obj()])
    scn = scenario(c, {"at": "20s", "action": "createNode", "node": make_node("n2").capacity(NODE)},
                   until="100s")
    res = run_simulation(reject_scheduler(c), scn)
    assert res.stopped_by == "until" and res.end_time == 100.0
    assert len(res.attempts) == 1
    res = run_simulation(reject_scheduler(c), scn, until="10s")
    assert res.end_time == 10.0 and res.timeline == []


def test_preemption_victim_delete_is_seen_in_flight():
    """The victim's AssignedPod/Delete arrives while the preemptor is in flight, so the
    preemptor goes to backoffQ (not the pool) and, activeQ being empty, is popped from there
    and bound to its nominated node."""
    c = Cluster(nodes=[make_node("n1").capacity(NODE, cpu="2").obj()],
                pods=[make_pod("low").req(cpu="2").node("n1").priority(0).obj(),
                      make_pod("high").req(cpu="2").priority(100).obj()])
    res = run_simulation(Scheduler(c), trace=True)
    assert timeline(res) == [
        (0.0, 1, "activeQ", "UnscheduledPodAdd", "Nominated", None),
        (0.0, 2, "backoffQ", "AssignedPodDelete", "Bound", "n1"),
    ]
    assert res.attempts[0].victims == ["default/low"]
    assert res.attempts[0].nominated_node == "n1"
    assert res.deleted == ["default/low"] and res.bindings == {"default/high": "n1"}
    ops = [(t["op"], t.get("to")) for t in res.trace if t.get("pod") == "default/high"]
    assert ("requeue", "backoffQ") in ops


def test_finished_pod_frees_its_node():
    c = Cluster(nodes=[make_node("n1").capacity(NODE, cpu="2").obj()],
                pods=[make_pod("a").req(cpu="2").node("n1").obj(),
                      make_pod("b").req(cpu="2").obj()])
    res = run_simulation(Scheduler(c), scenario(c, {"at": "30s", "action": "finishPod",
                                                    "pod": "a"}))
    assert timeline(res, "default/b")[-1] == (30.0, len(timeline(res, "default/b")), "activeQ",
                                              "AssignedPodDelete", "Bound", "n1")
    assert res.finished == ["default/a"] and res.bindings == {"default/b": "n1"}


def test_deleted_pending_pod_leaves_the_queue():
    c = Cluster(nodes=[make_node("n1").capacity(NODE, cpu="1").obj()],
                pods=[make_pod("b").req(cpu="2").obj()])
    res = run_simulation(Scheduler(c), scenario(
        c, {"at": "5s", "action": "deletePod", "pod": "b"},
        {"at": "6s", "action": "createNode", "node": make_node("n2").capacity(NODE, cpu="4")}))
    assert res.removed == ["default/b"] and res.pending == [] and res.bindings == {}
    assert all(i.time == 0.0 for i in res.attempt_info)


@pytest.mark.parametrize("node,event,want_event", [
    (make_node("n1").capacity(NODE).unschedulable().obj(), {"action": "uncordon", "node": "n1"},
     "NodeUpdateNodeTaint"),
    (make_node("n1").capacity(NODE).taint("k", value="v").obj(),
     {"action": "untaintNode", "node": "n1", "taints": [{"key": "k"}]}, "NodeUpdateNodeTaint"),
])
def test_node_updates_wake_the_pod(node, event, want_event):
    c = Cluster(nodes=[node], pods=[make_pod("p").req(cpu="1").obj()])
    res = run_simulation(Scheduler(c), scenario(c, {"at": "15s", **event}))
    assert timeline(res) == [
        (0.0, 1, "activeQ", "UnscheduledPodAdd", "Unschedulable", None),
        (15.0, 2, "activeQ", want_event, "Bound", "n1"),
    ]


def test_label_delete_node_and_create_pod():
    c = Cluster(nodes=[make_node("n1").capacity(NODE).obj()],
                pods=[make_pod("b").node_selector({"zone": "a"}).obj()])
    res = run_simulation(Scheduler(c), scenario(
        c, {"at": "5s", "action": "labelNode", "node": "n1", "labels": {"zone": "a"}},
        {"at": "7s", "action": "deleteNode", "node": "n1"},
        {"at": "8s", "action": "createPod", "pod": make_pod("c")}))
    assert timeline(res) == [
        (0.0, 1, "activeQ", "UnscheduledPodAdd", "Unschedulable", None),
        (5.0, 2, "activeQ", "NodeUpdateNodeLabel", "Bound", "n1"),
        (8.0, 1, "activeQ", "UnscheduledPodAdd", "Unschedulable", None),
    ]
    assert res.attempts[-1].message == "no nodes available to schedule pods"
    assert res.removed == ["default/b"] and res.pending == ["default/c"]


def test_cordon_is_not_an_event_and_taint_blocks():
    """Cordoning produces no queue event (only becoming schedulable does); a NoSchedule taint
    added before the pod is created keeps it pending."""
    c = Cluster(nodes=[make_node("n1").capacity(NODE).obj()], pods=[])
    res = run_simulation(Scheduler(c), scenario(
        c, {"at": "1s", "action": "taintNode", "node": "n1",
            "taints": [{"key": "k", "effect": "NoSchedule"}]},
        {"at": "2s", "action": "createPod", "pod": make_pod("p")},
        {"at": "3s", "action": "cordon", "node": "n1"}), trace=True)
    assert res.pending == ["default/p"]
    moves = [t for t in res.trace if t["op"] == "move"]
    assert moves == []


def test_deterministic_and_documented():
    c1 = Cluster(nodes=[make_node(f"n{i}").capacity(NODE, cpu="2").obj() for i in range(3)],
                 pods=[make_pod(f"p{i}").req(cpu="1500m").priority(i % 2).obj()
                       for i in range(6)])
    c2 = Cluster(nodes=[make_node(f"n{i}").capacity(NODE, cpu="2").obj() for i in range(3)],
                 pods=[make_pod(f"p{i}").req(cpu="1500m").priority(i % 2).obj()
                       for i in range(6)])
    events = ({"at": "40s", "action": "createNode",
               "node": make_node("n9").capacity(NODE, cpu="8")},)
    r1 = run_simulation(Scheduler(c1, seed=3), scenario(c1, *events), trace=True)
    r2 = run_simulation(Scheduler(c2, seed=3), scenario(c2, *events), trace=True)
    d1 = merge_simulation_doc(simulation_doc(r1), r1)
    d2 = merge_simulation_doc(simulation_doc(r2), r2)
    assert d1 == d2
    assert set(d1["attempts"][0]) >= {"pod", "outcome", "time", "attempt", "queue", "event"}
    assert d1["endTime"] == r1.end_time and d1["stoppedBy"] == "quiescence"
    assert d1["trace"] == r1.trace and len(d1["trace"]) > len(d1["attempts"])
    assert simulation_doc_extra(r1)["timeline"][0]["action"] == "createNode"
    assert len(r1.bindings) == 6  # three at 0s, three on the new node at 40s


def test_initial_queue_order_is_priority_then_creation():
    pods = [make_pod("late").creation_timestamp(200).obj(),
            make_pod("early").creation_timestamp(100).obj(),
            make_pod("vip").creation_timestamp(300).priority(10).obj()]
    for i, p in enumerate(pods):
        p.order = i
    c = Cluster(nodes=[make_node("n1").capacity(NODE, cpu="8").obj()], pods=pods)
    res = run_simulation(Scheduler(c))
    assert [a.pod for a in res.attempts] == ["default/vip", "default/early", "default/late"]


def test_preemption_clears_lower_priority_nomination():
    """The preemption clears the nomination of a lower-priority pod nominated to the chosen
    node (``util.ClearNominatedNodeName``): its status.nominatedNodeName is patched away, the
    update requeues it, and it is tried without its old nominated node."""
    c = Cluster(nodes=[make_node("n1").capacity(NODE, cpu="2").obj()],
                pods=[make_pod("x").req(cpu="2").node("n1").priority(10).obj(),
                      make_pod("m").req(cpu="1").priority(5).nominated_node_name("n1").obj(),
                      make_pod("h").req(cpu="2").priority(100).obj()])
    s = Scheduler(c)
    res = run_simulation(s, trace=True)
    assert timeline(res, "default/h") == [
        (0.0, 1, "activeQ", "UnscheduledPodAdd", "Nominated", None),
        (0.0, 2, "backoffQ", "AssignedPodDelete", "Bound", "n1"),
    ]
    m = next(p for p in s.cluster.pods if p.name == "m")
    assert m.nominated_node_name == "" and s.nominator.nominated_node_of(m) == ""
    assert {"time": 0.0, "op": "update", "pod": "default/m", "to": "activeQ"} in res.trace
    assert res.pending == ["default/m"] and res.deleted == ["default/x"]


def test_attempt_limit():
    c = Cluster(nodes=[make_node("n1").capacity(NODE).obj()],
                pods=[make_pod(f"p{i}").obj() for i in range(3)])
    with pytest.raises(RuntimeError, match="did not settle after 2 attempts"):
        run_simulation(Scheduler(c), max_attempts=2)


def test_gated_pod_does_not_keep_the_simulation_going():
    """A pod held by SchedulingGates is not retried by the leftover flush to find out whether
    it still waits: the run ends with the last change (a node add at 5s binds the other pod)."""
    c = Cluster(nodes=[make_node("n1").capacity(NODE, cpu="1").obj()],
                pods=[make_pod("job").scheduling_gates("a").obj(),
                      make_pod("big").req(cpu="2").obj()])
    res = run_simulation(Scheduler(c), scenario(
        c, {"at": "5s", "action": "createNode", "node": make_node("n2").capacity(NODE, cpu="4")}))
    assert res.bindings == {"default/big": "n2"} and res.pending == ["default/job"]
    assert res.end_time == 5.0
