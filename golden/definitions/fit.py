"""The golden scenarios of area ``fit`` (``golden/fit/``): NodeResourcesFit's filter (cpu, memory,
extended resources, the pod count, ephemeral storage) and how pod requests are computed (init
containers, sidecars, overhead, pod-level resources)."""

from __future__ import annotations

from reference_impl.testing.wrappers import PAUSE, ContainerWrapper, make_container

from .common import Area, Docs, node, pod, replicas

AREA = Area("fit")
golden = AREA.golden


@golden("cpu-memory", "NodeResourcesFit filter: cpu and memory; Insufficient reasons")
def _() -> Docs:
    return [node("small", "1", "1Gi"), node("medium", "2", "4Gi"), node("big", "4", "2Gi"),
            pod("a", "1500m", "1Gi"), pod("b", "1", "3Gi"), pod("c", "3", "1Gi"),
            pod("too-much-memory", "100m", "16Gi"), pod("too-much-cpu", "8", "1Mi")]


@golden("extended-resources", "NodeResourcesFit: extended resources (example.com/gpu)")
def _() -> Docs:
    gpu = {"example.com/gpu": "2"}
    return [node("cpu-only", "8", "16Gi"), node("gpu-a", "4", "8Gi", extra=gpu),
            node("gpu-b", "4", "8Gi", extra={"example.com/gpu": "1"}),
            pod("train-1", "1", "1Gi", extra={"example.com/gpu": "2"}),
            pod("train-2", "1", "1Gi", extra={"example.com/gpu": "1"}),
            pod("train-3", "1", "1Gi", extra={"example.com/gpu": "1"}),
            pod("web", "1", "1Gi")]


@golden("pod-count", "NodeResourcesFit: the pods allocatable (Too many pods)")
def _() -> Docs:
    return [node("tiny", "8", "8Gi", pods=2), node("roomy", "2", "2Gi", pods=3),
            pod("old-0", node="tiny"), *replicas("p", 4, cpu="10m", memory="10Mi")]


@golden("init-containers-and-sidecars",
        "pod requests: init containers (max) and restartable sidecars (sum)")
def _() -> Docs:
    def init(name: str, cpu: str, sidecar: bool = False) -> ContainerWrapper:
        c = make_container(name).image(PAUSE).requests(cpu=cpu)
        return c.restart_policy("Always") if sidecar else c
    return [node("n2", "2", "4Gi"), node("n3", "3", "4Gi"),
            pod("big-init", "500m", initContainers=[init("setup", "2500m")]),
            pod("sidecar", "1", initContainers=[init("proxy", "1500m", sidecar=True)]),
            pod("plain", "1500m")]


@golden("overhead-and-pod-level-resources",
        "pod requests: spec.overhead and pod-level spec.resources (PodLevelResources)")
def _() -> Docs:
    return [node("a", "2", "2Gi"), node("b", "3", "2Gi"),
            pod("with-overhead", "1500m", overhead={"cpu": "1"}),
            pod("pod-level", "100m", resources={"requests": {"cpu": "1800m",
                                                             "memory": "512Mi"}}),
            pod("small", "400m")]


@golden("ephemeral-storage", "NodeResourcesFit: ephemeral-storage")
def _() -> Docs:
    return [node("disk-small", extra={"ephemeral-storage": "10Gi"}),
            node("disk-big", extra={"ephemeral-storage": "100Gi"}),
            pod("logs", extra={"ephemeral-storage": "20Gi"}),
            pod("scratch", extra={"ephemeral-storage": "90Gi"}),
            pod("tmp", extra={"ephemeral-storage": "5Gi"})]
