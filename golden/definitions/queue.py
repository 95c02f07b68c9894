"""The golden scenarios of area ``queue`` (``golden/queue/``): the scheduling queue over virtual
time (``Scenario`` timelines): priority order, cluster events moving pods, backoff, the
unschedulable flush, SchedulingGates; a StatefulSet's OrderedReady pods created as the previous
one is bound (timeline events triggered by a binding)."""

from __future__ import annotations

from reference_impl.model.workloads import expand_workloads
from reference_impl.testing.wrappers import (
    HOSTNAME,
    TimelineWrapper,
    label_selector,
    make_config,
    make_pod,
    make_stateful_set,
    make_timeline,
    manifests,
    taint,
)

from .common import Area, Docs, bare_node, bare_pod, node, pod, priority_classes, t

AREA = Area("queue")
golden = AREA.golden


@golden("scheduling-gates-removed-later",
        "SchedulingGates: gated pods wait; a timeline removes the gates")
def _() -> Docs:
    return [node("n1", "2", "2Gi"),
            pod("gated", "1", schedulingGates=[{"name": "example.com/quota"}]),
            pod("two-gates", "1", schedulingGates=[{"name": "example.com/a"},
                                                   {"name": "example.com/b"}]),
            pod("free", "500m"),
            make_timeline({"at": "30s", "action": "removeSchedulingGates", "pod": "gated"},
                     {"at": "40s", "action": "removeSchedulingGates", "pod": "two-gates",
                      "gates": ["example.com/a"]},
                     {"at": "50s", "action": "removeSchedulingGates", "pod": "two-gates"})]


@golden("priority-and-creation-order",
        "PrioritySort: priority, then creation time, decides who gets the last space")
def _() -> Docs:
    return [*priority_classes(), node("n1", "2", "4Gi"),
            pod("late-high", "1", priority_class="high", created=t(300)),
            pod("early-low", "1", priority_class="low", created=t(1)),
            pod("mid-second", "1", priority_class="mid", created=t(20)),
            pod("mid-first", "1", priority_class="mid", created=t(10))]


@golden("node-added-later", "the queue: a node created at 45s (NodeAdd moves the pods)")
def _() -> Docs:
    return [node("n1", "1", "1Gi"), pod("fits", "500m"), pod("waits-1", "2"),
            pod("waits-2", "3"),
            make_timeline({"at": "45s", "action": "createNode",
                      "node": node("n2", "4", "8Gi")})]


@golden("pod-deleted-frees-space",
        "the queue: deleting a running pod (AssignedPodDelete) lets a pending pod in")
def _() -> Docs:
    return [node("n1", "2", "2Gi"), pod("old", "2", node="n1"), pod("new", "1500m"),
            make_timeline({"at": "2m", "action": "deletePod", "pod": "old"})]


@golden("unschedulable-flush",
        "the queue: an unschedulable pod retried by the 5-minute flush of unschedulable pods")
def _() -> Docs:
    return [node("n1", "2"), node("n2", "4"), node("n3", "8", taints=[taint("gpu")]),
            pod("p1", "1500m"), pod("p2", "2"), pod("p3", "3"), pod("p4", "1")]


@golden("backoff-after-taint-removed",
        "the queue: a taint removed by the timeline; the pod retried after its backoff")
def _() -> Docs:
    return [node("n1", "2", taints=[taint("maintenance")]), pod("waits", "1"),
            make_timeline({"at": "3s", "action": "untaintNode", "node": "n1",
                      "taints": [{"key": "maintenance"}]})]


@golden("cordon-and-uncordon", "the queue: cordon / uncordon and label changes over time")
def _() -> Docs:
    return [node("n1", "2", labels={"ready": "no"}), node("n2", "1", "1Gi"),
            pod("needs-ready", "1", nodeSelector={"ready": "yes"}),
            pod("a", "800m"), pod("b", "800m"),
            make_timeline({"at": "1s", "action": "cordon", "node": "n2"},
                     {"at": "20s", "action": "labelNode", "node": "n1",
                      "labels": {"ready": "yes"}},
                     {"at": "40s", "action": "uncordon", "node": "n2"},
                     {"at": "41s", "action": "createPod", "pod": pod("late", "500m")})]


@golden("node-deleted",
        "the queue: a node deleted, its pods deleted with it; a pod finishing frees space")
def _() -> Docs:
    return [node("n1", "2"), node("n2", "2"), pod("r1", "2", node="n1"),
            pod("r2", "1500m", node="n2"), pod("waits", "1"),
            make_timeline({"at": "10s", "action": "deleteNode", "node": "n2"},
                     {"at": "20s", "action": "finishPod", "pod": "r1"})]


def _node_later(at: str, until: str) -> TimelineWrapper:
    n = bare_node("n1")
    return make_timeline({"at": at, "action": "createNode", "node": n}).until(until)


@golden("error-backoff-initial",
        "scheduling queue: podInitialBackoffSeconds 2 delays the retries of a pod with no node",
        config=make_config().set(podInitialBackoffSeconds=2))
def _() -> Docs:
    return [bare_pod("p"), _node_later("6.5", "7500ms")]


@golden("error-backoff-capped",
        "scheduling queue: a pod with no node at all waits in the error backoff queue; backoff "
        "capped at podMaxBackoffSeconds (1s)",
        config=make_config().set(podInitialBackoffSeconds=1, podMaxBackoffSeconds=1))
def _() -> Docs:
    return [bare_pod("p"), _node_later("6.5", "9s")]


@golden("statefulset-ordered-ready",
        "StatefulSet OrderedReady as a timeline (kschedconf expand): each replica is created "
        "when the previous one is bound; one per node (required anti-affinity), so db-2 waits "
        "for the node created at 30s, db-3 then fits nowhere and db-4 is never created")
def _() -> Docs:
    nodes = [node("n1"), node("n2", "8", "16Gi")]  # n2 first (LeastAllocated): no tie
    db = make_stateful_set("db").selector({"app": "db"}).replicas(5).service_name("db") \
        .template(make_pod("").label("app", "db").req(cpu="500m", memory="256Mi")
                  .pod_anti_affinity(HOSTNAME, label_selector({"app": "db"})))
    later = make_timeline({"at": "30s", "action": "createNode", "node": node("n3")})
    docs = manifests(nodes, db, later)
    x = expand_workloads([("queue/statefulset-ordered-ready", i, d)
                          for i, d in enumerate(docs, start=1)])
    assert x.scenario is not None
    return [*nodes, *(c.doc for c in x.pods), x.scenario]
