"""The golden scenarios of area ``preemption`` (``golden/preemption/``): DefaultPreemption: victims,
PodDisruptionBudgets, candidate criteria, reprieve, nominated nodes, preemptionPolicy Never."""

from __future__ import annotations

from reference_impl.testing.wrappers import (
    PodDisruptionBudgetWrapper,
    make_pdb,
    make_priority_class,
    taint,
)

from .common import Area, Docs, node, pod, priority_classes, t

AREA = Area("preemption")
golden = AREA.golden


def _pdb(name: str, app: str, disruptions_allowed: int) -> PodDisruptionBudgetWrapper:
    """A PodDisruptionBudget over the pods labelled ``app``, with an explicit
    ``status.disruptionsAllowed`` (what the disruption controller would have written: the
    scheduler reads only the status)."""
    return make_pdb(name).namespace("default").match_label("app", app).max_unavailable(0) \
        .disruptions_allowed(disruptions_allowed)


@golden("lowest-priority-victims",
        "DefaultPreemption: the node whose victims have the lowest priority")
def _() -> Docs:
    return [*priority_classes(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("mid-1", "2", node="n1", priority_class="mid", start=t(10)),
            pod("low-2", "2", node="n2", priority_class="low", start=t(20)),
            pod("boss", "2", priority_class="high")]


@golden("pdb", "DefaultPreemption: PodDisruptionBudgets (status.disruptionsAllowed)")
def _() -> Docs:
    return [*priority_classes(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("protected", "2", node="n1", priority_class="low", labels={"app": "db"},
                start=t(30)),
            pod("unprotected", "2", node="n2", priority_class="low", labels={"app": "web"},
                start=t(10)),
            _pdb("db-pdb", "db", 0),
            _pdb("web-pdb", "web", 1),
            pod("boss", "2", priority_class="high")]


@golden("pdb-violation-unavoidable",
        "DefaultPreemption: every candidate violates a PDB; fewest violations win")
def _() -> Docs:
    return [*priority_classes(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("a1", "1", node="n1", priority_class="low", labels={"app": "a"}, start=t(5)),
            pod("a2", "1", node="n1", priority_class="low", labels={"app": "a"}, start=t(6)),
            pod("b1", "2", node="n2", priority_class="low", labels={"app": "b"}, start=t(7)),
            _pdb("a-pdb", "a", 0),
            _pdb("b-pdb", "b", 0),
            pod("boss", "2", priority_class="high")]


@golden("policy-never", "preemptionPolicy Never: the pod waits, nothing is evicted")
def _() -> Docs:
    return [*priority_classes(), make_priority_class("high-never", 1000).preemption_policy("Never"),
            node("n1", "2", "4Gi"),
            pod("low", "2", node="n1", priority_class="low", start=t(0)),
            pod("polite", "2", priority_class="high-never"),
            pod("polite-explicit", "2", priority_class="high",
                preemptionPolicy="Never")]


@golden("candidate-criteria",
        "DefaultPreemption pickOneNode: fewest victims, lowest priority sum, latest start")
def _() -> Docs:
    return [*priority_classes(), node("two-victims", "2", "4Gi"), node("one-mid", "2", "4Gi"),
            node("one-low-old", "2", "4Gi"), node("one-low-new", "2", "4Gi"),
            pod("v1", "1", node="two-victims", priority_class="low", start=t(100)),
            pod("v2", "1", node="two-victims", priority_class="low", start=t(101)),
            pod("m", "2", node="one-mid", priority_class="mid", start=t(50)),
            pod("lo", "2", node="one-low-old", priority_class="low", start=t(10)),
            pod("ln", "2", node="one-low-new", priority_class="low", start=t(90)),
            pod("boss", "2", priority_class="high")]


@golden("reprieve",
        "DefaultPreemption selectVictimsOnNode: victims reprieved when the pod still fits")
def _() -> Docs:
    return [*priority_classes(), node("n1", "4", "8Gi"),
            pod("l1", "1", node="n1", priority_class="low", start=t(1)),
            pod("l2", "1", node="n1", priority_class="low", start=t(2)),
            pod("l3", "1", node="n1", priority_class="low", start=t(3)),
            pod("m1", "1", node="n1", priority_class="mid", start=t(4)),
            pod("boss", "2", priority_class="high")]


@golden("cannot-help",
        "DefaultPreemption: nodes rejected as unresolvable are not candidates")
def _() -> Docs:
    return [*priority_classes(), node("n1", "2", "4Gi", labels={"disk": "hdd"}),
            node("n2", "2", "4Gi", labels={"disk": "ssd"}, taints=[taint("special")]),
            pod("low-1", "2", node="n1", priority_class="low", start=t(1)),
            pod("boss", "1", priority_class="high", nodeSelector={"disk": "ssd"})]


@golden("nominated-node-reserved",
        "nominated pods: a preemptor's nomination keeps lower-priority pods off the node")
def _() -> Docs:
    return [*priority_classes(), node("n1", "2", "4Gi"),
            pod("low", "2", node="n1", priority_class="low", start=t(1)),
            pod("boss", "2", priority_class="high", created=t(100)),
            pod("mid-waits", "1", priority_class="mid", created=t(200))]


@golden("by-priority-order",
        "the queue's priority order: the highest-priority pod preempts first")
def _() -> Docs:
    return [*priority_classes(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("low-a", "2", node="n1", priority_class="low", start=t(1)),
            pod("low-b", "2", node="n2", priority_class="low", start=t(2)),
            pod("mid", "2", priority_class="mid", created=t(5)),
            pod("high", "2", priority_class="high", created=t(10))]
