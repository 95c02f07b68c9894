"""The golden scenarios of area ``busy`` (``golden/busy/``): what a dump of a busy cluster holds,
as upstream treats it: pods nominated by an earlier preemption (status.nominatedNodeName),
pods being deleted (metadata.deletionTimestamp, the DisruptionTarget condition of a preemption
victim), start times, in-place resize status (status.containerStatuses[].allocatedResources and
resources, the PodResizePending condition) and pods of schedulers no profile serves."""

from __future__ import annotations

from reference_impl.testing.wrappers import PodWrapper, make_container, make_pod

from .common import Area, Docs, node, pod, priority_classes, t

AREA = Area("busy")
golden = AREA.golden

OTHER = "other-scheduler"


def resized(name: str, spec_cpu: str, status_cpu: str, node_name: str, *,
            infeasible: bool = False, **kw: object) -> PodWrapper:
    """A running pod whose container "app" asks ``spec_cpu`` in its spec while the kubelet
    reports ``status_cpu`` allocated and actuated (an in-place resize, done or refused)."""
    p = pod(name, spec_cpu, node=node_name, **kw)  # type: ignore[arg-type]
    p.container_status("app", allocated={"cpu": status_cpu, "memory": "128Mi"},
                       requests={"cpu": status_cpu, "memory": "128Mi"})
    if infeasible:
        p.resize_pending("Infeasible", f"Node didn't have enough capacity: cpu, requested: "
                                       f"{spec_cpu}")
    return p


@golden("cluster-dump",
        "a restated dump of a busy cluster: a pod resized in place, a terminating pod, pods of "
        "another scheduler (one nominated), a pending terminating pod; then preemption")
def _() -> Docs:
    return [*priority_classes(),
            node("n1"), node("n2"), node("n3"),
            # n1: 1 cpu in the spec, 3 allocated: it holds 3
            resized("web-0", "1", "3", "n1", priority_class="low", start=t(10)),
            # n2: being deleted, still holds its 2 cpu
            pod("batch-0", "2", node="n2", priority_class="low", start=t(5))
            .deletion_timestamp(t(500)),
            # n3: a pod another scheduler placed
            pod("other-0", "3", node="n3", priority_class="high", start=t(30),
                schedulerName=OTHER),
            # pending, another scheduler's, nominated to n2: reserves nothing here
            pod("other-1", "4", priority_class="high", created=t(40), schedulerName=OTHER)
            .nominated_node_name("n2"),
            # pending and being deleted: never scheduled
            pod("leaving", "100m", created=t(50)).deletion_timestamp(t(400)),
            # fits n2 only (2 free there; 1 on n1 and n3)
            pod("api", "2", priority_class="mid", created=t(60)),
            # fits nowhere: preempts web-0 (low) on n1 rather than api (mid) on n2
            pod("boss", "3", priority_class="high", created=t(70))]


@golden("resized-in-place",
        "in-place resize: a running pod counts at the max of its spec and status requests; an "
        "Infeasible resize counts what runs; pod-level status resources")
def _() -> Docs:
    return [node("n1"), node("n2"), node("n3"),
            resized("grown", "1", "3", "n1", start=t(1)),
            resized("refused", "3", "1", "n2", infeasible=True, start=t(2)),
            make_pod("pod-level").node("n3").start_time(t(3))
            .container(make_container("app").image("registry.k8s.io/pause:3.10")
                       .requests(cpu="500m", memory="128Mi"))
            .spec(resources={"requests": {"cpu": "1", "memory": "256Mi"}})
            .container_status("app", allocated={"cpu": "500m", "memory": "128Mi"},
                              requests={"cpu": "500m", "memory": "128Mi"})
            .status_resources(allocated={"cpu": "3", "memory": "256Mi"},
                              requests={"cpu": "3", "memory": "256Mi"}),
            pod("first", "2", created=t(10)),
            pod("second", "2", created=t(11))]


@golden("foreign-pods",
        "pods of another scheduler: an assigned one counts on its node, a pending one is never "
        "attempted and its nomination reserves nothing")
def _() -> Docs:
    return [node("n1"),
            pod("other-running", "2", node="n1", start=t(1), schedulerName=OTHER),
            pod("other-pending", "2", created=t(2), schedulerName=OTHER)
            .nominated_node_name("n1"),
            pod("mine", "2", created=t(3)),
            pod("mine-too", "1", created=t(4))]


@golden("terminating",
        "terminating pods: an assigned one still holds its node, a pending one is skipped")
def _() -> Docs:
    return [node("n1", "2"), node("n2", "2"),
            pod("going", "2", node="n1", start=t(1)).deletion_timestamp(t(100)),
            pod("leaving", "1", created=t(2)).deletion_timestamp(t(100)),
            pod("new", "2", created=t(3)),
            pod("new-too", "1", created=t(4))]


@golden("victim-terminating",
        "a nominated preemptor whose victim is still being deleted (DisruptionTarget "
        "PreemptionByScheduler) waits: it preempts nobody else")
def _() -> Docs:
    return [*priority_classes(), node("n1", "2"), node("n2", "2"),
            pod("victim", "2", node="n1", priority_class="low", start=t(1))
            .deletion_timestamp(t(100)).preempted_by_scheduler(),
            pod("low-2", "2", node="n2", priority_class="low", start=t(2)),
            pod("boss", "2", priority_class="high", created=t(3)).nominated_node_name("n1")]


@golden("terminating-not-by-preemption",
        "a nominated preemptor whose nominated node holds a pod deleted for another reason "
        "preempts again")
def _() -> Docs:
    return [*priority_classes(), node("n1", "2"), node("n2", "2"),
            pod("going", "2", node="n1", priority_class="low", start=t(1))
            .deletion_timestamp(t(100)),
            pod("low-2", "2", node="n2", priority_class="low", start=t(2)),
            pod("boss", "2", priority_class="high", created=t(3)).nominated_node_name("n1")]
