"""NodeResourcesBalancedAllocation: PreScore skip, Score, SignPod, args.

Cases restate upstream v1.37.2
``pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go``
(TestNodeResourcesBalancedAllocation, TestBalancedAllocationSignPod). The two
"include DRA resource on a node for balanced resource allocation" cases need a DeviceClass that
maps the extended resource to DRA devices; our model has none, so they are not restated.
"""

from __future__ import annotations

import pytest
from noderesources_common import FEATURES

from reference_impl.config.args import NodeResourcesBalancedAllocationArgs, ResourceSpec
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code
from reference_impl.framework.testing import FakeHandle
from reference_impl.model.objects import Node, Pod
from reference_impl.plugins.noderesources.balanced_allocation import (
    BalancedAllocation,
    balanced_resource_score,
    balanced_resource_scorer,
)
from reference_impl.plugins.noderesources.fit import (
    RESOURCES_SIGNER_NAME,
    compute_pod_resource_request,
    resource_signature,
)
from reference_impl.testing.wrappers import make_container, make_node, make_pod

DEFAULT_SET = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
GPU_SET = DEFAULT_SET + (ResourceSpec("nvidia.com/gpu", 1),)


def util_make_node(name: str, milli_cpu: int, memory: int,
                   extended: dict[str, int] | None = None) -> Node:
    """util_test.go makeNode: cpu in milli, memory and extended resources as integers."""
    return make_node(name).allocatable({"cpu": f"{milli_cpu}m", "memory": memory,
                                        **(extended or {})}).obj()


def cpu_only(c: str) -> dict[str, str]:
    return {"cpu": c}


def cpu_mem(c: str, m: str) -> dict[str, str]:
    return {"cpu": c, "memory": m}


def cpu_mem_gpu(c: str, m: str, g: str) -> dict[str, str]:
    return {"cpu": c, "memory": m, "nvidia.com/gpu": g}


def gpu(n: int) -> dict[str, int]:
    return {"nvidia.com/gpu": n}


def scheduled(name: str, node: str, *reqs: dict[str, str]) -> Pod:
    w = make_pod(name).node(node)
    for r in reqs:
        w.req(r)
    return w.obj()


def requested(*reqs: dict[str, str]) -> Pod:
    w = make_pod("p")
    for r in reqs:
        w.req(r)
    return w.obj()


def two_container_pod() -> Pod:
    return requested(cpu_mem("1000m", "2000"), cpu_mem("2000m", "3000"))


CASES = [
    # Node1 cpu 0 -> 75%, memory 0 -> 50%: 100 -> 87, score 68;
    # Node2 cpu 0 -> 50%, memory 0 -> 50%: 100 -> 100, score 75
    ("nothing scheduled, resources requested, differently sized nodes", two_container_pod,
     [("node1", 4000, 10000, None), ("node2", 6000, 10000, None)], [], [68, 75], DEFAULT_SET),
    # Node1 cpu 30% -> 60%, memory 0 -> 25%: 85 -> 82, score 73;
    # Node2 cpu 30% -> 60%, memory 25% -> 50%: 97 -> 95, score 74
    ("resources requested, pods scheduled with resources", two_container_pod,
     [("node1", 10000, 20000, None), ("node2", 10000, 20000, None)],
     [("node1", cpu_only("1000m"), cpu_only("2000m")),
      ("node2", cpu_mem("1000m", "2000"), cpu_mem("2000m", "3000"))], [73, 74], DEFAULT_SET),
    # Node2 cpu 30% -> 60%, memory 10% -> 20%: 90 -> 80, score 70
    ("resources requested, pods scheduled with resources, differently sized nodes",
     two_container_pod,
     [("node1", 10000, 20000, None), ("node2", 10000, 50000, None)],
     [("node1", cpu_only("1000m"), cpu_only("2000m")),
      ("node2", cpu_mem("1000m", "2000"), cpu_mem("2000m", "3000"))], [73, 70], DEFAULT_SET),
    # Node1 cpu 100%, memory 0 -> 100%: 50 -> 100, score 100;
    # Node2 cpu 0%, memory 0 -> 100%: 100 -> 50, score 50
    ("resources requested, pods scheduled with resources, nodes to reach min/max score",
     lambda: requested({"memory": "2000"}, {"memory": "3000"}),
     [("node1", 3000, 5000, None), ("node2", 3000, 5000, None)],
     [("node1", cpu_only("1000m"), cpu_only("2000m"))], [100, 50], DEFAULT_SET),
    # Node1 cpu 50% -> 100%, memory 0%: 75 -> 50, score 62;
    # Node2 cpu 50% -> 100%, memory 50%: 100 -> 75, score 62
    ("requested resources at node capacity",
     lambda: requested(cpu_only("1000m"), cpu_only("2000m")),
     [("node1", 6000, 10000, None), ("node2", 6000, 10000, None)],
     [("node1", cpu_only("1000m"), cpu_only("2000m")),
      ("node2", cpu_mem("1000m", "2000"), cpu_mem("2000m", "3000"))], [62, 62], DEFAULT_SET),
    # three resources: Node1 GPU 3 -> 4 of 8: 69 -> 70, score 75;
    # Node2 GPU 0 -> 1 of 8: 62 -> 65, score 76
    ("scalar resource is included in the score computation if pod requests the scalar "
     "resource", lambda: requested(cpu_mem_gpu("0", "0", "1")),
     [("node1", 3500, 40000, gpu(8)), ("node2", 3500, 40000, gpu(8))],
     [("node1", cpu_mem("1000m", "2000"), cpu_mem_gpu("2000m", "3000", "3")),
      ("node2", cpu_mem("1000m", "2000"), cpu_mem("2000m", "3000"))], [75, 76], GPU_SET),
    # GPU not requested: ignored; cpu 0 -> 85.7%, memory 0 -> 12.5%: 100 -> 63, score 56
    ("scalar resource is not included in the score computation if pod doesn't request the "
     "scalar resource", two_container_pod,
     [("node1", 3500, 40000, gpu(8)), ("node2", 3500, 40000, None)], [], [56, 56], GPU_SET),
]


def _setup(nodes, existing, resources):
    node_objs = [util_make_node(n, c, m, e) for n, c, m, e in nodes]
    pods = [scheduled(f"e{i}", n, *reqs) for i, (n, *reqs) in enumerate(existing)]
    handle = FakeHandle(node_objs, pods, features=FEATURES)
    pl = BalancedAllocation(NodeResourcesBalancedAllocationArgs(resources), handle)
    return pl, handle, node_objs


@pytest.mark.parametrize("run_pre_score", [True, False], ids=["", "if PreScore not called"])
@pytest.mark.parametrize("pod_factory,nodes,existing,want,resources",
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_node_resources_balanced_allocation(pod_factory, nodes, existing, want, resources,
                                            run_pre_score):
    """balanced_allocation_test.go TestNodeResourcesBalancedAllocation (upstream runs
    "resources requested, pods scheduled with resources" also without PreScore: "Whether or
    not prescore was called, the end result should be the same"; here every case is)."""
    pl, handle, node_objs = _setup(nodes, existing, resources)
    pod = pod_factory()
    state = CycleState()
    if run_pre_score:
        assert pl.pre_score(state, pod, handle.snapshot().list()) is None
    got = [pl.score(state, pod, handle.snapshot().get(n.name)) for n in node_objs]
    assert got == want


def test_best_effort_pod_skipped_in_pre_score():
    """balanced_allocation_test.go "nothing scheduled, nothing requested, skip in PreScore"."""
    pl, handle, node_objs = _setup(
        [("node1", 4000, 10000, None), ("node2", 4000, 10000, None)], [], DEFAULT_SET)
    pod = make_pod("p").obj()
    state = CycleState()
    status = pl.pre_score(state, pod, handle.snapshot().list())
    assert status is not None and status.code == Code.SKIP
    # balanced_allocation.go Score without PreScore state: a best-effort pod scores 0.
    assert pl.score(CycleState(), pod, handle.snapshot().get("node1")) == 0


def test_requestless_container_is_best_effort():
    """balanced_allocation.go uses raw requests (useRequested): a container without requests
    does not get the 100m/200Mi defaults, so the pod is still skipped."""
    pl, handle, _ = _setup([("node1", 4000, 10000, None)], [], DEFAULT_SET)
    pod = make_pod("p").container("container").obj()
    status = pl.pre_score(CycleState(), pod, handle.snapshot().list())
    assert status is not None and status.code == Code.SKIP


def test_uses_node_requested_not_non_zero_requested():
    """resource_allocation.go with useRequested: the node's Requested is used, so pods
    without requests on the node count 0 (not 100m/200Mi). Node: cpu 0 -> 50%, memory 0%
    (100 -> 75): 50 + (50 + 75 - 100)/2 = 62."""
    pl, handle, _ = _setup([("node1", 2000, 10000, None)], [("node1", {})], DEFAULT_SET)
    pod = requested(cpu_only("1000m"))
    state = CycleState()
    assert pl.pre_score(state, pod, handle.snapshot().list()) is None
    assert pl.score(state, pod, handle.snapshot().get("node1")) == 62


def test_pod_level_requests_are_used():
    """balanced_allocation.go passes enablePodLevelResources to its scorer, so pod-level
    requests replace the container aggregate (unlike NodeResourcesFit's scoring)."""
    pl, handle, _ = _setup([("node1", 2000, 10000, None)], [], DEFAULT_SET)
    pod = make_pod("plr").container(make_container("c")).pod_level_req(cpu="1",
                                                                         memory="5000").obj()
    assert pl.scorer.pod_request_list(pod) == (1000, 5000)
    state = CycleState()
    assert pl.pre_score(state, pod, handle.snapshot().list()) is None
    # 50% / 50% -> 100; empty node 100 -> 50 + (50 + 100 - 100) / 2 = 75
    assert pl.score(state, pod, handle.snapshot().get("node1")) == 75


@pytest.mark.parametrize("requested_,allocatable,want", [
    ([3000, 5000], [4000, 10000], 87),      # fractions .75 .5 -> std .125
    ([6000, 5000], [10000, 20000], 82),
    ([5, 0], [4, 10], 50),                   # fraction capped at 1 -> std .5
    ([1, 2, 3], [4, 4, 4], 79),              # three resources: population std
    ([7], [10], 100),                        # one resource: std 0
    ([1, 1], [0, 0], 100),                   # no allocatable: no fractions
])
def test_balanced_resource_score(requested_, allocatable, want):
    """balanced_allocation.go balancedResourceScore: int64((1 - std) * 100) (values checked
    with Go)."""
    assert balanced_resource_score(requested_, allocatable) == want


def test_balanced_resource_scorer_formula():
    """balanced_allocation.go balancedResourceScorer: 50 + (50 + with - without) / 2."""
    # with pod: .75/.5 -> 87; without: 0/0 -> 100 => 50 + (50 - 13) / 2 = 68
    assert balanced_resource_scorer([3000, 5000], [0, 0], [4000, 10000]) == 68
    # improvement: without 1.0/0 -> 50; with 1.0/1.0 -> 100 => 100
    assert balanced_resource_scorer([3000, 5000], [3000, 0], [3000, 5000]) == 100


@pytest.mark.parametrize("pod_factory", [
    pytest.param(lambda: requested(cpu_mem("1000m", "2000")),
                 id="pod with CPU and memory requests"),
    pytest.param(make_pod("p").obj, id="best-effort pod with no requests"),
    pytest.param(lambda: requested(cpu_mem("500m", "1000"), cpu_mem("1500m", "3000")),
                 id="pod with multiple containers"),
    pytest.param(lambda: requested({"cpu": "1000m", "memory": "2000",
                                    "extended.resource.dra.io/something": "1"}),
                 id="DRA extended resource disabled"),
])
def test_balanced_allocation_sign_pod(pod_factory):
    """balanced_allocation_test.go TestBalancedAllocationSignPod: the same fragment as
    NodeResourcesFit, (ResourcesSignerName, computePodResourceRequest(pod))."""
    pod = pod_factory()
    pl = BalancedAllocation(NodeResourcesBalancedAllocationArgs(), FakeHandle(features=FEATURES))
    fragments, status = pl.sign_pod(pod)
    assert status is None
    assert fragments == [(RESOURCES_SIGNER_NAME,
                          resource_signature(compute_pod_resource_request(pod, True)))]


@pytest.mark.parametrize("resources", [
    pytest.param((ResourceSpec("cpu", 2),), id="weight not 1"),
    pytest.param((ResourceSpec("cpu", 1), ResourceSpec("cpu", 1)), id="duplicate resource"),
])
def test_invalid_args(resources):
    """validation_pluginargs.go ValidateNodeResourcesBalancedAllocationArgs, run by
    NewBalancedAllocation."""
    with pytest.raises(ValueError):
        BalancedAllocation(NodeResourcesBalancedAllocationArgs(resources),
                           FakeHandle(features=FEATURES))
