"""The golden scenarios of area ``scoring`` (``golden/scoring/``): the default score plugins on
resources and images: LeastAllocated, NodeResourcesBalancedAllocation, ImageLocality."""

from __future__ import annotations

from typing import Any

from reference_impl.testing.wrappers import Doc, PodWrapper, make_timeline

from .common import Area, Docs, node, pod, replicas

AREA = Area("scoring")
golden = AREA.golden


@golden("least-allocated-spreads", "NodeResourcesFit score LeastAllocated (default)")
def _() -> Docs:
    return [node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), node("n3", "8", "16Gi"),
            pod("running", "2", "4Gi", node="n1"),
            *replicas("web", 6, cpu="500m", memory="1Gi")]


@golden("balanced-allocation", "NodeResourcesBalancedAllocation: cpu/memory balance")
def _() -> Docs:
    return [node("cpu-heavy", "8", "8Gi"), node("mem-heavy", "8", "8Gi"),
            pod("hog-cpu", "6", "1Gi", node="cpu-heavy"),
            pod("hog-mem", "1", "6Gi", node="mem-heavy"),
            pod("wants-cpu", "1500m", "128Mi"), pod("wants-mem", "100m", "1500Mi")]


@golden("image-locality", "ImageLocality: image sizes and spread over nodes")
def _() -> Docs:
    big = "example.com/ml/trainer:1.0"
    small = "example.com/tools/sh:1.0"
    return [node("n1", images=[(big, 900 * 1024 * 1024)]),
            node("n2", images=[(small, 30 * 1024 * 1024), (big, 900 * 1024 * 1024)]),
            node("n3"), node("n4", images=[(small, 30 * 1024 * 1024)]),
            pod("trainer", image=big), pod("shell", image=small),
            pod("both", image=big, initContainers=[{"name": "i", "image": small}]),
            pod("none", image="example.com/new:1")]


@golden("image-locality-stale-counts",
        "ImageLocality: a node unchanged since the last snapshot keeps its stale image counts",
        notes=["upstream deviation upstream-image-locality-stale-num-nodes: n3 is deleted at "
               "20s; n1, relabelled at 10s, is cloned again into the snapshot and counts 2 "
               "nodes with the image, n2 (unchanged) still counts 3, so it scores higher and "
               "the pod goes to n2 where fresh counts would tie n1 and n2"])
def _() -> Docs:
    big = "example.com/ml/trainer:1.0"
    size = 900 * 1024 * 1024
    return [node("n1", images=[(big, size)]), node("n2", images=[(big, size)]),
            node("n3", images=[(big, size)]),
            pod("first", nodeSelector={"kubernetes.io/hostname": "n3"}),
            make_timeline({"at": "10s", "action": "labelNode", "node": "n1",
                           "labels": {"example.com/touched": "yes"}},
                          {"at": "20s", "action": "deleteNode", "node": "n3"},
                          {"at": "30s", "action": "createPod",
                           "pod": pod("trainer", image=big).manifest()})]


@golden("pod-level-resources-and-overhead",
        "BalancedAllocation and LeastAllocated with pod-level requests (defaulted from the "
        "containers) plus spec.overhead",
        notes=["quantities are integers on purpose: with a fraction and a binary suffix "
               "(2.5Gi) upstream v1.37.2 adds the overhead into the pod object on every "
               "PodRequests call (known divergence upstream-pod-level-requests-aliasing)"])
def _() -> Docs:
    def plr(name: str, cpu: str, memory: str, overhead: Doc, **kw: Any) -> PodWrapper:
        return pod(name, None, memory, resources={"requests": {"cpu": cpu}},
                   overhead=overhead, **kw)
    return [node("cpu-rich", "8", "4Gi"), node("mem-rich", "2", "16Gi"),
            node("even", "4", "8Gi"),
            plr("mem-heavy", "100m", "2560Mi", {"cpu": "250m", "memory": "120Mi"}),
            plr("cpu-heavy", "1500m", "256Mi", {"cpu": "250m", "memory": "64Mi"}),
            plr("balanced", "1", "2Gi", {"memory": "128Mi"}),
            plr("mem-heavy-2", "100m", "3Gi", {"cpu": "100m", "memory": "256Mi"})]
