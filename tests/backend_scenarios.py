"""Hand-written scenarios that the real control-plane backends (process, docker) run and
compare with the reference (tests/test_process_backend.py, tests/test_docker_engine.py,
tests/test_backend_releases.py), and the Docker engine those tests need."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.backends.plan import Naming, Planner
from conformance.core.scenario import ScenarioInput
from reference_impl.testing.wrappers import (
    make_container,
    make_node,
    make_pod,
    make_priority_class,
    make_timeline,
)


def plan_on_backends(docs: list[dict[str, Any]], name: str = "t") -> None:
    """Plan the scenario as the control-plane backends do (owned cluster, seed 7): raises
    ``ScenarioUnsupported`` where they refuse it."""
    Planner(Naming(), "ks-test", owned=True, rename_for_order=False,
            warnings=[]).plan(ScenarioInput(docs, None, 7, name))


def node(name: str, cpu: str, labels: dict[str, str] | None = None,
         taints: list[dict[str, str]] | None = None) -> dict[str, Any]:
    n = make_node(name).labels(labels or {}).allocatable(cpu=cpu, memory="8Gi", pods="110")
    return (n.taints(taints) if taints else n).manifest()


def pod(name: str, cpu: str = "0", **spec: Any) -> dict[str, Any]:
    """A pod labelled app=<name> with one container "c" requesting ``cpu``; ``spec`` fields as
    given (``status`` goes to its place)."""
    status = spec.pop("status", None)
    p = make_pod(name).namespace("default").label("app", name).container(
        make_container("c").image("registry.k8s.io/pause").requests(cpu=cpu)).spec(**spec)
    return (p.status(**status) if status else p).manifest()


def pclass(name: str, value: int) -> dict[str, Any]:
    return make_priority_class(name, value).manifest()


TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
SCENARIOS: dict[str, list[dict[str, Any]]] = {
    # least allocated, a taint, a pod that fits nowhere
    "resources": [node("n1", "2"), node("n2", "4"), node("n3", "8", taints=[TAINT]),
                  pod("p1", "1500m"), pod("p2", "2"), pod("p3", "3"), pod("p4", "1")],
    # toleration, required node affinity, a node selector nobody matches
    "affinity": [node("a", "4", {"zone": "a"}), node("b", "4", {"zone": "b"}),
                 node("gpu", "16", {"zone": "a"}, taints=[TAINT]),
                 pod("tolerant", "1", tolerations=[{"key": "dedicated", "operator": "Equal",
                                                    "value": "gpu", "effect": "NoSchedule"}]),
                 pod("zoneb", "1", affinity={"nodeAffinity": {
                     "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                         {"matchExpressions": [{"key": "zone", "operator": "In",
                                                "values": ["b"]}]}]}}}),
                 pod("any", "1"), pod("picky", "1", nodeSelector={"zone": "c"})],
    # the victim that started last is preempted, the preemptor binds there
    "preemption": [pclass("high", 1000), pclass("low", 10), node("x", "1"), node("y", "1"),
                   pod("old", "1", nodeName="x", priorityClassName="low",
                       status={"startTime": "2024-01-01T00:00:00Z"}),
                   pod("young", "1", nodeName="y", priorityClassName="low",
                       status={"startTime": "2024-01-01T01:00:00Z"}),
                   pod("boss", "1", priorityClassName="high")],
    # scheduling gates; names out of order (renamed for the queue, mapped back)
    "gates": [node("zz", "2"), node("aa", "2"),
              pod("w-10", "1", schedulingGates=[{"name": "example.com/wait"}]),
              pod("w-9", "1"), pod("w-11", "1")],
    # a timeline: a node appears, one is cordoned, a gate is lifted, a pod is deleted
    "timeline": [node("n1", "1"), pod("big", "2"), pod("small", "1"),
                 pod("held", "1", schedulingGates=[{"name": "g"}]),
                 make_timeline(
                     {"at": "10s", "action": "createNode", "node": {
                         "metadata": {"name": "n2"},
                         "status": {"allocatable": {"cpu": "4", "memory": "8Gi",
                                                    "pods": "110"}}}},
                     {"at": "20s", "action": "cordon", "node": "n1"},
                     {"at": "30s", "action": "removeSchedulingGates", "pod": "held"},
                     {"at": "40s", "action": "deletePod", "pod": "small"}).manifest()],
    # StatefulSet OrderedReady as a timeline: web-1 is created when web-0 is bound, web-2 when
    # web-1 is; web-1 fits nowhere until n2 appears at 10s
    "ordered-ready": [node("n1", "2"), pod("web-0", "1"),
                      make_timeline()
                      .when_bound("web-0", "createPod", pod=pod("web-1", "4"))
                      .when_bound("web-1", "createPod", pod=pod("web-2", "1"))
                      .event("10s", "createNode", node=node("n2", "8")).manifest()],
    # ... and without n2: web-1 stays pending, web-2 is never created
    "ordered-ready-blocked": [node("n1", "2"), pod("web-0", "1"),
                              make_timeline()
                              .when_bound("web-0", "createPod", pod=pod("web-1", "4"))
                              .when_bound("web-1", "createPod", pod=pod("web-2", "1"))
                              .manifest()],
}


def decisions(doc: dict[str, Any]) -> tuple[Any, ...]:
    return doc["bindings"], doc["pending"], doc["deleted"]


def docker_engine(images: Mapping[str, str]) -> tuple[Any, str]:
    """(a client, "") when a Docker engine answers and has ``images``, else (None, why not)."""
    try:
        import docker

        client = docker.from_env(timeout=10)
        client.ping()
    except Exception as e:  # noqa: BLE001 - any failure means: no engine here
        return None, f"no Docker engine reachable ({type(e).__name__})"
    missing = []
    for image in images.values():
        try:
            client.images.get(image)
        except Exception:  # noqa: BLE001
            missing.append(image)
    if missing:
        return None, (f"images {', '.join(missing)} not present: run backends/images.sh "
                      "(after backends/build.sh; --release for another release)")
    return client, ""
