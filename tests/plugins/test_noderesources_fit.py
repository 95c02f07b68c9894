"""NodeResourcesFit: PreFilter/Filter, PreScore/Score and SignPod.

Cases restate upstream v1.37.2
``pkg/scheduler/framework/plugins/noderesources/fit_test.go`` (TestEnoughRequests,
TestPreFilterDisabled, TestNotEnoughRequests, TestStorageRequests, TestRestartableInitContainers,
TestFitScore, TestFitSignPod) and ``resource_allocation_test.go``
(TestResourceAllocationScorerCalculateRequests); each case names its source.

Upstream cases that need a DeviceClass mapping an extended resource to DRA ("extended resource
backed by DRA", "extended resource was backed by Device Plugin (Allocatable: 0)", the
"with Extended resources" scoring cases, "DRA extended resource enabled - returns
unschedulable") are not restated: our model has no DeviceClasses, so nothing is delegated to DRA.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from reference_impl.config.args import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
)
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, PluginError, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Container, Node, Pod
from reference_impl.model.quantity import parse_quantity_string
from reference_impl.model.requests import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    compute_pod_resources,
)
from reference_impl.plugins.noderesources.fit import (
    PRE_FILTER_STATE_KEY,
    RESOURCES_SIGNER_NAME,
    Fit,
    InsufficientResource,
    compute_pod_resource_request,
    fits_request,
    resource_signature,
)
from reference_impl.plugins.noderesources.resource_allocation import ResourceAllocationScorer
from reference_impl.testing.wrappers import ContainerWrapper, make_container, make_node, make_pod

SRC = "fit_test.go"
EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"
DRA_EXT = "extended.resource.dra.io/something"

_uids = itertools.count()


def features(pod_level: bool = True) -> dict[str, bool]:
    return {"PodLevelResources": pod_level, "DRAExtendedResource": True,
            "InPlacePodVerticalScalingSchedulerPreemption": False}


def qty(s: str) -> Fraction:
    return parse_quantity_string(s)


def finish(pod: Pod) -> Pod:
    pod.resources = compute_pod_resources(pod)
    return pod


# ----- fit_test.go builders (newResourcePod & co) -----------------------------------------------

def u(cpu: int = 0, mem: int = 0, eph: int = 0, scalar: dict[str, int] | None = None) -> dict:
    """A ``framework.Resource`` literal of fit_test.go."""
    return {"cpu": cpu, "mem": mem, "eph": eph, "scalar": scalar or {}}


def _container_of(i: int, r: dict) -> ContainerWrapper:
    """newResourcePod's container: cpu (milli), memory, pods 0, ephemeral-storage and the
    scalars, all set explicitly (zeros included)."""
    return make_container(f"c{i}").requests({
        "cpu": f"{r['cpu']}m", "memory": r["mem"], "pods": 0, "ephemeral-storage": r["eph"],
        **r["scalar"]})


def resource_pod(*usages: dict, init: tuple[dict, ...] = (),
                 overhead: dict[str, str] | None = None,
                 pod_level: dict[str, str] | None = None) -> Pod:
    """newResourcePod / newResourceInitPod / newResourceOverheadPod / newPodLevelResourcesPod."""
    w = make_pod(f"p{next(_uids)}")
    for i, r in enumerate(usages):
        w.container(_container_of(i, r))
    for i, r in enumerate(init):
        w.init_container(_container_of(i, r))
    if overhead:
        w.overhead(overhead)
    return w.pod_level_req(pod_level).obj()


def alloc_node(cpu: int, mem: int, pods: int, ext_a: int, eph: int, huge_a: int,
               name: str = "node") -> Node:
    """makeAllocatableResources(milliCPU, memory, pods, extendedA, storage, hugePageA)."""
    return make_node(name).allocatable({"cpu": f"{cpu}m", "memory": mem, "pods": pods,
                                        EXT_A: ext_a, "ephemeral-storage": eph,
                                        HUGE_A: huge_a}).obj()


def node_info(node: Node, *pods: Pod) -> NodeInfo:
    """framework.NewNodeInfo(pods...) + SetNode(node)."""
    ni = NodeInfo(node)
    for p in pods:
        ni.add_pod(p)
    return ni


def run_filter(pl: Fit, pod: Pod, ni: NodeInfo) -> Status | None:
    state = CycleState()
    result, status = pl.pre_filter(state, pod, [ni])
    assert result is None and status is None
    return pl.filter(state, pod, ni)


def IR(name: str, requested: int, used: int, capacity: int, unresolvable: bool = False,
       reason: str | None = None) -> InsufficientResource:
    return InsufficientResource(name, reason or f"Insufficient {name}", requested, used,
                                capacity, unresolvable)


def unsched(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, *reasons)


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)


# ----- TestEnoughRequests ----------------------------------------------------------------------

# (name, pod factory, existing pod usage, args, podLevelResourcesEnabled, want status,
#  want insufficient resources)
ENOUGH = [
    ("no resources requested always fits",
     lambda: finish(Pod("default", "empty", "uid-empty")), u(10, 20), None, False, None, []),
    ("too many resources fails",
     lambda: resource_pod(u(1, 1)), u(10, 20), None, False,
     unsched("Insufficient cpu", "Insufficient memory"),
     [IR("cpu", 1, 10, 10), IR("memory", 1, 20, 20)]),
    ("too many resources fails due to init container cpu",
     lambda: resource_pod(u(1, 1), init=(u(3, 1),)), u(8, 19), None, False,
     unsched("Insufficient cpu"), [IR("cpu", 3, 8, 10)]),
    ("too many resources fails due to highest init container cpu",
     lambda: resource_pod(u(1, 1), init=(u(3, 1), u(2, 1))), u(8, 19), None, False,
     unsched("Insufficient cpu"), [IR("cpu", 3, 8, 10)]),
    ("too many resources fails due to init container memory",
     lambda: resource_pod(u(1, 1), init=(u(1, 3),)), u(9, 19), None, False,
     unsched("Insufficient memory"), [IR("memory", 3, 19, 20)]),
    ("too many resources fails due to highest init container memory",
     lambda: resource_pod(u(1, 1), init=(u(1, 3), u(1, 2))), u(9, 19), None, False,
     unsched("Insufficient memory"), [IR("memory", 3, 19, 20)]),
    ("init container fits because it's the max, not sum, of containers and init containers",
     lambda: resource_pod(u(1, 1), init=(u(1, 1),)), u(9, 19), None, False, None, []),
    ("multiple init containers fit because it's the max, not sum, of containers and init "
     "containers",
     lambda: resource_pod(u(1, 1), init=(u(1, 1), u(1, 1))), u(9, 19), None, False, None, []),
    ("both resources fit", lambda: resource_pod(u(1, 1)), u(5, 5), None, False, None, []),
    ("one resource memory fits", lambda: resource_pod(u(2, 1)), u(9, 5), None, False,
     unsched("Insufficient cpu"), [IR("cpu", 2, 9, 10)]),
    ("one resource cpu fits", lambda: resource_pod(u(1, 2)), u(5, 19), None, False,
     unsched("Insufficient memory"), [IR("memory", 2, 19, 20)]),
    ("equal edge case", lambda: resource_pod(u(5, 1)), u(5, 19), None, False, None, []),
    ("equal edge case for init container",
     lambda: resource_pod(u(4, 1), init=(u(5, 1),)), u(5, 19), None, False, None, []),
    ("extended resource fits", lambda: resource_pod(u(scalar={EXT_A: 1})), u(), None, False,
     None, []),
    ("extended resource fits for init container",
     lambda: resource_pod(u(), init=(u(scalar={EXT_A: 1}),)), u(), None, False, None, []),
    ("extended resource capacity enforced",
     lambda: resource_pod(u(1, 1, scalar={EXT_A: 10})), u(scalar={EXT_A: 0}), None, False,
     unresolvable(f"Insufficient {EXT_A}"), [IR(EXT_A, 10, 0, 5, True)]),
    ("extended resource capacity enforced for init container",
     lambda: resource_pod(u(), init=(u(1, 1, scalar={EXT_A: 10}),)), u(scalar={EXT_A: 0}),
     None, False, unresolvable(f"Insufficient {EXT_A}"), [IR(EXT_A, 10, 0, 5, True)]),
    ("extended resource allocatable enforced",
     lambda: resource_pod(u(1, 1, scalar={EXT_A: 1})), u(scalar={EXT_A: 5}), None, False,
     unsched(f"Insufficient {EXT_A}"), [IR(EXT_A, 1, 5, 5)]),
    ("extended resource allocatable enforced for init container",
     lambda: resource_pod(u(), init=(u(1, 1, scalar={EXT_A: 1}),)), u(scalar={EXT_A: 5}),
     None, False, unsched(f"Insufficient {EXT_A}"), [IR(EXT_A, 1, 5, 5)]),
    ("extended resource allocatable enforced for multiple containers",
     lambda: resource_pod(u(1, 1, scalar={EXT_A: 3}), u(1, 1, scalar={EXT_A: 3})),
     u(scalar={EXT_A: 2}), None, False,
     unresolvable(f"Insufficient {EXT_A}"), [IR(EXT_A, 6, 2, 5, True)]),
    ("extended resource allocatable admits multiple init containers",
     lambda: resource_pod(u(), init=(u(1, 1, scalar={EXT_A: 3}), u(1, 1, scalar={EXT_A: 3}))),
     u(scalar={EXT_A: 2}), None, False, None, []),
    ("extended resource allocatable enforced for multiple init containers",
     lambda: resource_pod(u(), init=(u(1, 1, scalar={EXT_A: 6}), u(1, 1, scalar={EXT_A: 3}))),
     u(scalar={EXT_A: 2}), None, False,
     unresolvable(f"Insufficient {EXT_A}"), [IR(EXT_A, 6, 2, 5, True)]),
    ("extended resource allocatable enforced for unknown resource",
     lambda: resource_pod(u(1, 1, scalar={EXT_B: 1})), u(), None, False,
     unresolvable(f"Insufficient {EXT_B}"), [IR(EXT_B, 1, 0, 0, True)]),
    ("extended resource allocatable enforced for unknown resource for init container",
     lambda: resource_pod(u(), init=(u(1, 1, scalar={EXT_B: 1}),)), u(), None, False,
     unresolvable(f"Insufficient {EXT_B}"), [IR(EXT_B, 1, 0, 0, True)]),
    ("kubernetes.io resource capacity enforced",
     lambda: resource_pod(u(1, 1, scalar={K8S_IO_A: 10})), u(), None, False,
     unresolvable(f"Insufficient {K8S_IO_A}"), [IR(K8S_IO_A, 10, 0, 0, True)]),
    ("kubernetes.io resource capacity enforced for init container",
     lambda: resource_pod(u(), init=(u(1, 1, scalar={K8S_IO_B: 10}),)), u(), None, False,
     unresolvable(f"Insufficient {K8S_IO_B}"), [IR(K8S_IO_B, 10, 0, 0, True)]),
    ("hugepages resource capacity enforced",
     lambda: resource_pod(u(1, 1, scalar={HUGE_A: 10})), u(scalar={HUGE_A: 0}), None, False,
     unresolvable(f"Insufficient {HUGE_A}"), [IR(HUGE_A, 10, 0, 5, True)]),
    ("hugepages resource capacity enforced for init container",
     lambda: resource_pod(u(), init=(u(1, 1, scalar={HUGE_A: 10}),)), u(scalar={HUGE_A: 0}),
     None, False, unresolvable(f"Insufficient {HUGE_A}"), [IR(HUGE_A, 10, 0, 5, True)]),
    ("hugepages resource allocatable enforced for multiple containers",
     lambda: resource_pod(u(1, 1, scalar={HUGE_A: 3}), u(1, 1, scalar={HUGE_A: 3})),
     u(scalar={HUGE_A: 2}), None, False,
     unresolvable(f"Insufficient {HUGE_A}"), [IR(HUGE_A, 6, 2, 5, True)]),
    ("skip checking ignored extended resource",
     lambda: resource_pod(u(1, 1, scalar={EXT_B: 1})), u(),
     NodeResourcesFitArgs(ignored_resources=("example.com/bbb",)), False, None, []),
    ("resources + pod overhead fits",
     lambda: resource_pod(u(1, 1), overhead={"cpu": "3m", "memory": "13"}), u(5, 5), None,
     False, None, []),
    ("requests + overhead does not fit for memory",
     lambda: resource_pod(u(1, 1), overhead={"cpu": "1m", "memory": "15"}), u(5, 5), None,
     False, unsched("Insufficient memory"), [IR("memory", 16, 5, 20)]),
    ("skip checking ignored extended resource via resource groups",
     lambda: resource_pod(u(1, 1, scalar={EXT_B: 1, K8S_IO_A: 1})), u(),
     NodeResourcesFitArgs(ignored_resource_groups=("example.com",)), False,
     unresolvable(f"Insufficient {K8S_IO_A}"), [IR(K8S_IO_A, 1, 0, 0, True)]),
    ("skip checking extended resource request with quantity zero via resource groups",
     lambda: resource_pod(u(1, 1, scalar={EXT_A: 0})), u(scalar={EXT_A: 6}), None, False,
     None, []),
    ("skip checking resource request with quantity zero",
     lambda: resource_pod(u(scalar={EXT_A: 1})), u(20, 30, scalar={EXT_A: 1}), None, True,
     None, []),
    ("both pod-level and container-level resources fit",
     lambda: resource_pod(u(1, 1), pod_level={"cpu": "1m", "memory": "2"}), u(5, 5), None,
     True, None, []),
    ("pod-level cpu resource not fit",
     lambda: resource_pod(u(1, 1), pod_level={"cpu": "7m", "memory": "2"}), u(5, 5), None,
     True, unsched("Insufficient cpu"), [IR("cpu", 7, 5, 10)]),
    ("pod-level memory resource not fit",
     lambda: resource_pod(u(1, 1), pod_level={"cpu": "3m", "memory": "2"}), u(5, 19), None,
     True, unsched("Insufficient memory"), [IR("memory", 2, 19, 20)]),
    ("pod-level hugepages resource fit",
     lambda: resource_pod(pod_level={"cpu": "3m", "memory": "2", HUGE_A: "5"}), None, None,
     True, None, []),
    ("both pod-level and container-level hugepages resource fit",
     lambda: resource_pod(u(1, 1, scalar={HUGE_A: 3}),
                          pod_level={"cpu": "3m", "memory": "2", HUGE_A: "5"}),
     None, None, True, None, []),
    ("pod-level hugepages resource not fit",
     lambda: resource_pod(pod_level={"cpu": "3m", "memory": "2", HUGE_A: "10"}), None, None,
     True, unresolvable(f"Insufficient {HUGE_A}"), [IR(HUGE_A, 10, 0, 5, True)]),
    ("one pod-level cpu resource fits and all init and non-init containers resources fit",
     lambda: resource_pod(u(1, 1), init=(u(1, 1),), pod_level={"cpu": "3m", "memory": "2"}),
     u(5, 19), None, True, unsched("Insufficient memory"), [IR("memory", 2, 19, 20)]),
    # draExtendedResourceEnabled cases that do not depend on a DeviceClass mapping:
    ("extended resource backed by device plugin",
     lambda: resource_pod(u(scalar={EXT_A: 1})), u(), None, False, None, []),
    ("extended resource backed by DRA, nil draManager",
     lambda: resource_pod(u(1, 1, scalar={EXT_A: 1})), u(), None, False, None, []),
    ("extended resource backed by DRA not enabled",
     lambda: resource_pod(u(1, 1, scalar={DRA_EXT: 1})), u(), None, False,
     unresolvable(f"Insufficient {DRA_EXT}"), [IR(DRA_EXT, 1, 0, 0, True)]),
    ("extended resource NOT backed by DRA",
     lambda: resource_pod(u(1, 1, scalar={EXT_B: 1})), u(), None, False,
     unresolvable(f"Insufficient {EXT_B}"), [IR(EXT_B, 1, 0, 0, True)]),
    ("extended resource was backed by Device Plugin (Allocatable: 0), global cache",
     lambda: resource_pod(u(scalar={EXT_A: 1})), u(scalar={EXT_A: 0}), None, False, None, []),
]


@pytest.mark.parametrize(
    "pod_factory,existing,args,pod_level,want_status,want_insufficient",
    [pytest.param(*c[1:], id=c[0]) for c in ENOUGH])
def test_enough_requests(pod_factory, existing, args, pod_level, want_status,
                         want_insufficient):
    """fit_test.go TestEnoughRequests: node allocatable (10m, 20, 32 pods, 5 example.com/aaa,
    20 ephemeral, 5 hugepages-2Mi)."""
    pod = pod_factory()
    existing_pods = [resource_pod(existing)] if existing is not None else []
    ni = node_info(alloc_node(10, 20, 32, 5, 20, 5), *existing_pods)
    pl = Fit(args, FakeHandle(features=features(pod_level)))
    assert run_filter(pl, pod, ni) == want_status

    state = CycleState()
    pl.pre_filter(state, pod, [ni])
    assert fits_request(state.read(PRE_FILTER_STATE_KEY), ni, pod) == want_insufficient


def test_pre_filter_disabled():
    """fit_test.go TestPreFilterDisabled: Filter without PreFilter is an Error."""
    pl = Fit(None, FakeHandle(features=features()))
    ni = node_info(Node("n"))
    status = pl.filter(CycleState(), finish(Pod("default", "p", "u")), ni)
    assert status is not None and status.code == Code.ERROR
    assert status.message() == (
        'error reading "PreFilterNodeResourcesFit" from cycleState: not found')


@pytest.mark.parametrize("pod_factory,existing", [
    pytest.param(lambda: finish(Pod("default", "e", "uid-e")), u(10, 20), id=(
        "even without specified resources, predicate fails when there's no space for "
        "additional pod")),
    pytest.param(lambda: resource_pod(u(1, 1)), u(5, 5), id=(
        "even if both resources fit, predicate fails when there's no space for additional pod")),
    pytest.param(lambda: resource_pod(u(5, 1)), u(5, 19), id=(
        "even for equal edge case, predicate fails when there's no space for additional pod")),
    pytest.param(lambda: resource_pod(u(5, 1), init=(u(5, 1),)), u(5, 19), id=(
        "even for equal edge case, predicate fails when there's no space for additional pod "
        "due to init container")),
])
def test_not_enough_requests(pod_factory, existing):
    """fit_test.go TestNotEnoughRequests: allocatable (10m, 20, 1 pod), one pod already there."""
    ni = node_info(alloc_node(10, 20, 1, 0, 0, 0), resource_pod(existing))
    pl = Fit(None, FakeHandle(features=features()))
    pod = pod_factory()
    assert run_filter(pl, pod, ni) == unsched("Too many pods")
    state = CycleState()
    pl.pre_filter(state, pod, [ni])
    [ir] = fits_request(state.read(PRE_FILTER_STATE_KEY), ni, pod)
    assert ir == InsufficientResource("pods", "Too many pods", 1, 1, 1, False)


@pytest.mark.parametrize("pod_factory,existing,want", [
    pytest.param(lambda: resource_pod(u(1, 1)), u(2, 10), None,
                 id="empty storage requested, and pod fits"),
    pytest.param(lambda: resource_pod(u(eph=25)), u(2, 2),
                 unresolvable("Insufficient ephemeral-storage"),
                 id="storage ephemeral local storage request exceeds allocatable"),
    pytest.param(lambda: resource_pod(u(eph=5)), u(2, 2, eph=10), None,
                 id="ephemeral local storage is sufficient"),
    pytest.param(lambda: resource_pod(u(eph=10)), u(2, 2), None, id="pod fits"),
])
def test_storage_requests(pod_factory, existing, want):
    """fit_test.go TestStorageRequests (node allocatable 10m, 20, 32 pods, 20 ephemeral).
    Upstream's "ephemeral local storage is sufficient" pod is
    ``newResourceInitPod(newResourcePod(Resource{EphemeralStorage: 5}))`` with no init usage,
    i.e. one container requesting 5."""
    ni = node_info(alloc_node(10, 20, 32, 5, 20, 5), resource_pod(existing))
    pl = Fit(None, FakeHandle(features=features()))
    assert run_filter(pl, pod_factory(), ni) == want


def _sidecar_pod(request_m: int | None, sidecar_m: int | None) -> Pod:
    regular = Container("regular", requests=(() if request_m is None
                                             else (("cpu", Fraction(request_m, 1000)),)))
    sidecar = Container("restartable-init", restart_policy="Always",
                        requests=(() if sidecar_m is None
                                  else (("cpu", Fraction(sidecar_m, 1000)),)))
    return finish(Pod("default", "p", f"uid-{next(_uids)}", containers=(regular,),
                      init_containers=(sidecar,)))


@pytest.mark.parametrize("pod_factory,want", [
    pytest.param(lambda: finish(Pod("default", "p", "u1", containers=(Container("regular"),))),
                 None, id="allow pod without restartable init containers"),
    pytest.param(lambda: _sidecar_pod(None, None), None,
                 id="allow pod with restartable init containers"),
    pytest.param(lambda: _sidecar_pod(1, 1), None, id=(
        "allow pod if the total requested resources do not exceed the node's allocatable "
        "resources")),
    pytest.param(lambda: _sidecar_pod(1, 2), unresolvable("Insufficient cpu"), id=(
        "not allow pod if the total requested resources do exceed the node's allocatable "
        "resources")),
])
def test_restartable_init_containers(pod_factory, want):
    """fit_test.go TestRestartableInitContainers: allocatable cpu 2m, 1 pod, empty node."""
    ni = node_info(alloc_node(2, 0, 1, 0, 0, 0))
    pl = Fit(None, FakeHandle(features=features()))
    assert run_filter(pl, pod_factory(), ni) == want


def test_unschedulable_vs_unresolvable_mix():
    """fit.go Filter: one unresolvable resource makes the whole status
    UnschedulableAndUnresolvable, all reasons kept in order (pods, cpu, memory, ...)."""
    ni = node_info(alloc_node(10, 20, 1, 5, 20, 5), resource_pod(u(5, 5)))
    pl = Fit(None, FakeHandle(features=features()))
    status = run_filter(pl, resource_pod(u(6, 100)), ni)
    assert status == unresolvable("Too many pods", "Insufficient cpu", "Insufficient memory")


def test_ignored_resource_groups_apply_only_to_extended_resources():
    """fit.go fitsRequest: ignoredResourceGroups only skip *extended* resources; a
    kubernetes.io-prefixed name in that group is still checked."""
    args = NodeResourcesFitArgs(ignored_resource_groups=("kubernetes.io",))
    pl = Fit(args, FakeHandle(features=features()))
    ni = node_info(alloc_node(10, 20, 32, 5, 20, 5))
    assert run_filter(pl, resource_pod(u(scalar={K8S_IO_A: 1})), ni) == unresolvable(
        f"Insufficient {K8S_IO_A}")


def test_pod_level_resources_gate_off_uses_containers():
    """fit.go computePodResourceRequest: with PodLevelResources off the pod-level requests
    are ignored (TestEnoughRequests' pod-level pods with podLevelResourcesEnabled=false)."""
    pod = resource_pod(u(1, 1), pod_level={"cpu": "7m", "memory": "2"})
    ni = node_info(alloc_node(10, 20, 32, 5, 20, 5), resource_pod(u(5, 5)))
    assert run_filter(Fit(None, FakeHandle(features=features(False))), pod, ni) is None
    assert run_filter(Fit(None, FakeHandle(features=features(True))), pod, ni) == unsched(
        "Insufficient cpu")


# ----- scoring: TestFitScore --------------------------------------------------------------------

def score_nodes(pl, pod: Pod, handle: FakeHandle, nodes: list[Node],
                run_pre_score: bool = True) -> list[tuple[str, int]]:
    state = CycleState()
    if run_pre_score:
        assert pl.pre_score(state, pod, handle.snapshot().list()) is None
    snap = handle.snapshot()
    return [(n.name, pl.score(state, pod, snap.get(n.name))) for n in nodes]


DEFAULT_RESOURCES = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


def fit_args(type_: str, resources=DEFAULT_RESOURCES, shape=None) -> NodeResourcesFitArgs:
    rtcr = None
    if shape is not None:
        rtcr = RequestedToCapacityRatioParam(tuple(UtilizationShapePoint(u_, s) for u_, s in shape))
    return NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(type_, tuple(resources), rtcr))


def _two_nodes():
    return [make_node("node1").capacity(cpu="4000", memory="10000").obj(),
            make_node("node2").capacity(cpu="6000", memory="10000").obj()]


def _two_existing():
    return [make_pod("e0").node("node1").req(cpu="2000", memory="4000").obj(),
            make_pod("e1").node("node2").req(cpu="1000", memory="2000").obj()]


FIT_SCORE = [
    ("test case for ScoringStrategy RequestedToCapacityRatio case1", {"cpu": "3000",
     "memory": "5000"}, fit_args(REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 10), (100, 0)]),
     [("node1", 10), ("node2", 32)]),
    ("test case for ScoringStrategy RequestedToCapacityRatio case2", {"cpu": "3000",
     "memory": "5000"}, fit_args(REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 0), (100, 10)]),
     [("node1", 95), ("node2", 68)]),
    ("test case for ScoringStrategy MostAllocated", {"cpu": "1000", "memory": "2000"},
     fit_args(MOST_ALLOCATED), [("node1", 67), ("node2", 36)]),
    ("test case for ScoringStrategy LeastAllocated", {"cpu": "1000", "memory": "2000"},
     fit_args(LEAST_ALLOCATED), [("node1", 32), ("node2", 63)]),
]


@pytest.mark.parametrize("run_pre_score", [True, False], ids=["", "if PreScore is not called"])
@pytest.mark.parametrize("req,args,want", [pytest.param(*c[1:], id=c[0]) for c in FIT_SCORE])
def test_fit_score(req, args, want, run_pre_score):
    """fit_test.go TestFitScore (each case also exists "if PreScore is not called")."""
    nodes = _two_nodes()
    handle = FakeHandle(nodes, _two_existing(), features=features())
    pl = Fit(args, handle)
    pod = make_pod("p").req(req).obj()
    assert score_nodes(pl, pod, handle, nodes, run_pre_score) == want


@pytest.mark.parametrize("type_,want", [
    pytest.param(MOST_ALLOCATED, [("node1", 67), ("node2", 45)],
                 id="test case for ScoringStrategy MostAllocated with sidecar container"),
    pytest.param(LEAST_ALLOCATED, [("node1", 32), ("node2", 55)],
                 id="test case for ScoringStrategy LeastAllocated with sidecar container"),
])
def test_fit_score_with_sidecar(type_, want):
    """fit_test.go TestFitScore: the existing pod's sidecar counts in the node's requests."""
    nodes = [make_node("node1").capacity(cpu="4000", memory="10000").obj(),
             make_node("node2").capacity(cpu="4000", memory="10000").obj()]
    existing = [make_pod("e0").node("node1").req(cpu="1000", memory="2000")
                .sidecar_req(cpu="1000", memory="2000").obj(),
                make_pod("e1").node("node2").req(cpu="1000", memory="2000").obj()]
    handle = FakeHandle(nodes, existing, features=features())
    pl = Fit(fit_args(type_), handle)
    pod = make_pod("p").req(cpu="1000", memory="2000").obj()
    assert score_nodes(pl, pod, handle, nodes) == want


def test_fit_pre_score_never_skips_best_effort():
    """fit.go PreScore has no Skip: a pod without requests is scored with the 100m/200Mi
    defaults per container (least_allocated_test.go "nothing scheduled, nothing requested"
    has no containers and scores MaxNodeScore)."""
    nodes = [make_node("node1").capacity(cpu="1", memory="1000Mi").obj()]
    handle = FakeHandle(nodes, [], features=features())
    pl = Fit(None, handle)
    pod = make_pod("p").container("container").obj()
    state = CycleState()
    assert pl.pre_score(state, pod, handle.snapshot().list()) is None
    # cpu (1000-100)*100/1000 = 90, memory (1000Mi-200Mi)*100/1000Mi = 80 -> 85
    assert pl.score(state, pod, handle.snapshot().get("node1")) == 85


def test_fit_scoring_ignores_pod_level_requests():
    """fit.go NewFit builds its resourceAllocationScorer without enablePodLevelResources, so
    calculatePodResourceRequest runs with SkipPodLevelResources (resource_allocation.go): the
    container requests (with defaults) are scored, not the pod-level ones. BalancedAllocation
    sets the flag and does use them."""
    nodes = [make_node("node1").capacity(cpu="1", memory="1000Mi").obj()]
    handle = FakeHandle(nodes, [], features=features())
    pl = Fit(None, handle)
    pod = make_pod("plr").container(make_container("c")).pod_level_req(cpu="500m",
                                                                         memory="500Mi").obj()
    assert pl.scorer.pod_request_list(pod) == (DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST)
    assert score_nodes(pl, pod, handle, nodes) == [("node1", 85)]


def test_fit_score_errors_without_resources():
    """least_allocated_test.go "Resources not set, pods scheduled with error": Score is an
    Error "resources not found"."""
    nodes = _two_nodes()
    handle = FakeHandle(nodes, [], features=features())
    pl = Fit(fit_args(LEAST_ALLOCATED, resources=()), handle)
    pod = make_pod("p").req(cpu="1000", memory="2000").obj()
    state = CycleState()
    pl.pre_score(state, pod, handle.snapshot().list())
    with pytest.raises(PluginError, match="resources not found"):
        pl.score(state, pod, handle.snapshot().get("node1"))


# ----- TestResourceAllocationScorerCalculateRequests --------------------------------------------

ONE_MI = 1048576


def _c(cpu: str | None = None, mem: str | None = None) -> Container:
    reqs = []
    if cpu is not None:
        reqs.append(("cpu", qty(cpu)))
    if mem is not None:
        reqs.append(("memory", qty(mem)))
    return Container("c", requests=tuple(reqs))


_OVERHEAD = (("cpu", qty("1")), ("memory", qty("1Mi")))
CALC_REQUESTS = [
    ("overhead only", Pod("d", "p", "u", overhead=_OVERHEAD), 1000, ONE_MI),
    ("1x requestless container", Pod("d", "p", "u", containers=(_c(),)),
     DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST),
    ("2x requestless container", Pod("d", "p", "u", containers=(_c(), _c())),
     2 * DEFAULT_MILLI_CPU_REQUEST, 2 * DEFAULT_MEMORY_REQUEST),
    ("request container + requestless container",
     Pod("d", "p", "u", containers=(_c("1", "1Mi"), _c())),
     1000 + DEFAULT_MILLI_CPU_REQUEST, ONE_MI + DEFAULT_MEMORY_REQUEST),
    ("container + requestless container + overhead",
     Pod("d", "p", "u", overhead=_OVERHEAD, containers=(_c("1", "1Mi"), _c())),
     2000 + DEFAULT_MILLI_CPU_REQUEST, 2 * ONE_MI + DEFAULT_MEMORY_REQUEST),
    ("init container + container + requestless container + overhead",
     Pod("d", "p", "u", overhead=_OVERHEAD, init_containers=(_c("3"),),
         containers=(_c("1", "1Mi"), _c())),
     4000, 2 * ONE_MI + DEFAULT_MEMORY_REQUEST),
    ("requestless init container + small init container + small container ",
     Pod("d", "p", "u", init_containers=(_c(), _c("1m", "1")), containers=(_c("3m", "3"),)),
     DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST),
    ("requestless init container + small init container + small container + requestless "
     "container ",
     Pod("d", "p", "u", init_containers=(_c(), _c("1m", "1")),
         containers=(_c("3m", "3"), _c())),
     3 + DEFAULT_MILLI_CPU_REQUEST, 3 + DEFAULT_MEMORY_REQUEST),
]


@pytest.mark.parametrize("pod,cpu,mem", [pytest.param(*c[1:], id=c[0]) for c in CALC_REQUESTS])
def test_resource_allocation_scorer_calculate_requests(pod, cpu, mem):
    """resource_allocation_test.go TestResourceAllocationScorerCalculateRequests: a zero-value
    resourceAllocationScorer (useRequested false, pod-level resources skipped)."""
    scorer = ResourceAllocationScorer("", lambda *a: 0, DEFAULT_RESOURCES, use_requested=False,
                                      enable_pod_level_resources=False)
    assert scorer.pod_request_list(pod) == (cpu, mem)


# ----- SignPod: TestFitSignPod ------------------------------------------------------------------

@pytest.mark.parametrize("pod_factory", [
    pytest.param(lambda: make_pod("p").req({"cpu": "1000m", "memory": "2000"}).obj(),
                 id="pod with CPU and memory requests"),
    pytest.param(lambda: make_pod("p").obj(), id="best-effort pod with no requests"),
    pytest.param(lambda: make_pod("p").req({"cpu": "500m", "memory": "1000"})
                 .req({"cpu": "1500m", "memory": "3000"}).obj(),
                 id="pod with multiple containers"),
    pytest.param(lambda: make_pod("p").req({"cpu": "1000m", "memory": "2000", DRA_EXT: "1"}).obj(),
                 id="DRA extended resource disabled"),
])
def test_fit_sign_pod(pod_factory):
    """fit_test.go TestFitSignPod: one fragment (ResourcesSignerName,
    computePodResourceRequest(pod)). ("DRA extended resource enabled - returns unschedulable"
    needs a DeviceClass; without one the pod is signed, as here.)"""
    pod = pod_factory()
    pl = Fit(None, FakeHandle(features=features()))
    fragments, status = pl.sign_pod(pod)
    assert status is None
    assert fragments == [(RESOURCES_SIGNER_NAME,
                          resource_signature(compute_pod_resource_request(pod, True)))]


def test_fit_sign_pod_values():
    """The signature value is the request vector (MilliCPU, Memory, EphemeralStorage,
    AllowedPodNumber, ScalarResources): multiple containers are summed."""
    pod = make_pod("p").req(cpu="500m", memory="1000").req(cpu="1500m", memory="3000") \
        .req({DRA_EXT: "1"}).obj()
    fragments, _ = Fit(None, FakeHandle(features=features())).sign_pod(pod)
    assert fragments == [(RESOURCES_SIGNER_NAME, (2000, 4000, 0, 0, ((DRA_EXT, 1),)))]


# ----- args validation (ValidateNodeResourcesFitArgs, called by NewFit) ------------------------

@pytest.mark.parametrize("args", [
    pytest.param(fit_args(LEAST_ALLOCATED, (ResourceSpec("memory", -1), ResourceSpec("cpu", 1))),
                 id="resource with negative weight"),
    pytest.param(fit_args(MOST_ALLOCATED, (ResourceSpec("memory", 1), ResourceSpec("cpu", 0))),
                 id="resource with zero weight"),
    pytest.param(fit_args(LEAST_ALLOCATED, (ResourceSpec("memory", 1), ResourceSpec("cpu", 101))),
                 id="resource weight larger than MaxNodeScore"),
    pytest.param(NodeResourcesFitArgs(ignored_resource_groups=("example.com/aaa",)),
                 id="resource group with a slash"),
    pytest.param(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy("Unknown")),
                 id="unsupported strategy type"),
    pytest.param(fit_args(REQUESTED_TO_CAPACITY_RATIO), id="RequestedToCapacityRatio w/o shape"),
    pytest.param(fit_args(REQUESTED_TO_CAPACITY_RATIO, shape=[(50, 1), (10, 2)]),
                 id="shape not increasing"),
])
def test_invalid_args(args):
    """least/most_allocated_test.go weight cases (wantErrs) and validation_pluginargs.go."""
    with pytest.raises(ValueError):
        Fit(args, FakeHandle(features=features()))


def test_request_equal_to_allocatable_is_resolvable():
    """fit.go fitsRequest: Unresolvable only when the request alone *exceeds* allocatable; a
    pod requesting exactly the node's allocatable on a busy node may fit after preemption."""
    ni = node_info(alloc_node(10, 20, 32, 5, 20, 5), resource_pod(u(5, 5, eph=1,
                                                                     scalar={EXT_A: 1})))
    pl = Fit(None, FakeHandle(features=features()))
    status = run_filter(pl, resource_pod(u(10, 20, eph=20, scalar={EXT_A: 5})), ni)
    assert status == unsched("Insufficient cpu", "Insufficient memory",
                             "Insufficient ephemeral-storage", f"Insufficient {EXT_A}")
