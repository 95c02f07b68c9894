"""Scoring of extended resources backed by DRA (DRAExtendedResource): the resource-allocation
scorers count, on a node that does not advertise the resource, the node's devices that match
the DeviceClass mapping it (allocatable) and those of them allocated (allocated).

Cases restate upstream v1.37.2 ``pkg/scheduler/framework/plugins/noderesources/``:
``fit_test.go`` (TestFitScore, the two "with Extended resources" cases),
``balanced_allocation_test.go`` (TestNodeResourcesBalancedAllocation, the two "include DRA
resource" cases) and ``resource_allocation_test.go``
(TestCalculateResourceAllocatableRequest); each keeps its upstream name. The rest covers what
those tests do not: class selectors, node selection of slices, the gate per release, and
BalancedAllocation's nil CEL cache.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from conformance.core.errors import SubjectError
from conformance.engines.golden import read_scenario_file
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available
from oracles.upstream_deviations import catalogue
from reference_impl.config.args import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
)
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, PluginError
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.dra import DeviceClass, DRAObjects, ResourceClaim, ResourceSlice
from reference_impl.model.objects import Node, Pod
from reference_impl.plugins.noderesources.balanced_allocation import BalancedAllocation
from reference_impl.plugins.noderesources.dra_scoring import (
    DeviceClassMatcher,
    get_dra_pre_scored_params,
)
from reference_impl.plugins.noderesources.fit import RESOURCES_SIGNER_NAME, Fit
from reference_impl.plugins.noderesources.resource_allocation import ResourceAllocationScorer
from reference_impl.releases import load
from reference_impl.testing.resources import (
    make_device,
    make_device_class,
    make_network_slice,
    make_resource_claim,
    make_resource_slice,
)
from reference_impl.testing.wrappers import make_node, make_pod
from strategies.configs import without_dra_resources

EXTENDED = "extended.resource.dra.io/something"
CLASS = "device-class-name"
IMPLICIT = "deviceclass.resource.kubernetes.io/" + CLASS
DRIVER = "test-driver"
ON = {"DRAExtendedResource": True, "DRAConsumableCapacity": True}
OFF = {"DRAExtendedResource": False}


def device_class(extended: str | None = EXTENDED, *selectors: str) -> DeviceClass:
    """``deviceClassWithExtendResourceName`` (fit_test.go): no selectors."""
    c = make_device_class(CLASS)
    for s in selectors:
        c.selector(s)
    return (c.extended_resource_name(extended) if extended else c).obj()


def slice_(node: str, *devices: str) -> ResourceSlice:
    """``st.MakeResourceSlice(node, "test-driver").Devices(...)``."""
    return make_resource_slice(node, DRIVER).devices(*devices).obj()


def claim(name: str, *devices: str, share: bool = False) -> ResourceClaim:
    """A claim with an allocation of ``devices`` from pool ``resource-node``."""
    c = make_resource_claim(name).allocation(
        [("req-1", DRIVER, "resource-node", d) for d in devices]).obj()
    if share:
        assert c.allocation is not None
        results = tuple(r.__class__(r.request, r.driver, r.pool, r.device, share_id="share-123")
                        for r in c.allocation.results)
        c = c.__class__(c.namespace, c.name, c.uid, c.spec,
                        c.allocation.__class__(results), c.reserved_for)
    return c


def dra(classes: Sequence[DeviceClass] = (), slices: Sequence[ResourceSlice] = (),
        claims: Sequence[ResourceClaim] = ()) -> DRAObjects:
    return DRAObjects(device_classes={c.name: c for c in classes},
                      claims={f"{c.namespace}/{c.name}": c for c in claims},
                      slices=list(slices))


def bare(name: str) -> Node:
    """``st.MakeNode().Name(name).Obj()``: no allocatable at all."""
    return make_node(name).obj()


def fit_scores(resources: Sequence[ResourceSpec], pod: Pod, nodes: Sequence[Node],
               objects: DRAObjects, *, pre_score: bool = True, features: dict | None = None,
               kind: str = LEAST_ALLOCATED, existing: Sequence[Pod] = ()) -> list[int]:
    handle = FakeHandle(nodes, existing, features=ON if features is None else features,
                        dra=objects)
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(kind, tuple(resources))),
             handle)
    state = CycleState()
    if pre_score:
        assert pl.pre_score(state, pod, handle.snapshot().list()) is None
    return [pl.score(state, pod, handle.snapshot().get(n.name)) for n in nodes]


# ----- fit_test.go TestFitScore ------------------------------------------------------------

@pytest.mark.parametrize("pre_score", [True, False], ids=["", "if PreScore is not called"])
def test_least_allocated_with_extended_resources(pre_score: bool) -> None:
    """"test case for ScoringStrategy LeastAllocated with Extended resources" (and "... if
    PreScore is not called"): 3 devices on node1, 2 on node2, the pod asks for one."""
    objects = dra([device_class()], [slice_("node1", "device-1", "device-2", "device-3"),
                                     slice_("node2", "device-1", "device-2")])
    pod = make_pod("p").req({EXTENDED: "1"}).obj()
    assert fit_scores([ResourceSpec(EXTENDED, 1)], pod, [bare("node1"), bare("node2")],
                      objects, pre_score=pre_score) == [66, 50]


# ----- balanced_allocation_test.go ---------------------------------------------------------

@pytest.mark.parametrize("pre_score", [True, False], ids=["", "if PreScore not called"])
def test_include_dra_resource_on_a_node_for_balanced_resource_allocation(pre_score: bool
                                                                         ) -> None:
    """Node1: cpu 3000/3500, memory 0/40000, DRA 0 -> 1/8: 76; node2 has no devices (the DRA
    resource drops out): 75."""
    nodes = [make_node(n).allocatable(cpu="3500m", memory="40000").obj()
             for n in ("node1", "node2")]
    existing = [make_pod("e1").node("node1").req(cpu="1000m").req(cpu="2000m").obj(),
                make_pod("e2").node("node2").req(cpu="1000m", memory="2000")
                .req(cpu="2000m", memory="3000").obj()]
    objects = dra([device_class()], [slice_("node1", *(f"device-{i}" for i in range(1, 9)))])
    handle = FakeHandle(nodes, existing, features=ON, dra=objects)
    pl = BalancedAllocation(NodeResourcesBalancedAllocationArgs(resources=(
        ResourceSpec("cpu"), ResourceSpec("memory"), ResourceSpec(EXTENDED))), handle)
    pod = make_pod("p").req({EXTENDED: "1"}).obj()
    state = CycleState()
    if pre_score:
        assert pl.pre_score(state, pod, handle.snapshot().list()) is None
    assert [pl.score(state, pod, handle.snapshot().get(n.name)) for n in nodes] == [76, 75]


# ----- resource_allocation_test.go TestCalculateResourceAllocatableRequest ------------------

NODE = "resource-node"


def allocatable_request(node: Node, resource: str, objects: DRAObjects, enabled: bool
                        ) -> tuple[int, int]:
    """(allocatable, allocated) of ``calculateResourceAllocatableRequest`` for a pod asking
    one of ``resource`` (the ``[0]`` of the vectors)."""
    scorer = ResourceAllocationScorer(
        "test", lambda r, a, c: 0, [ResourceSpec(resource)], use_requested=False,
        enable_pod_level_resources=False,
        dra_matcher=DeviceClassMatcher(True) if enabled else None)
    state = get_dra_pre_scored_params(objects, scorer.resources) if enabled else None
    _, allocated, allocatable = scorer.calculate_node_allocatable_request(
        NodeInfo(node), [1], state)
    return allocatable[0], allocated[0]


ALLOCATABLE_CASES = {
    "device-plugin-resource-feature-disabled": (False, {EXTENDED: "4"}, EXTENDED, dra(), (4, 0)),
    "device-plugin-resource-feature-enabled": (True, {EXTENDED: "4"}, EXTENDED, dra(), (4, 0)),
    "DRA-backed-resource-explicit": (
        True, None, EXTENDED, dra([device_class()], [slice_(NODE, "device-1")]), (1, 0)),
    "DRA-backed-resource-implicit": (
        True, None, IMPLICIT, dra([device_class(None)], [slice_(NODE, "device-1")]), (1, 0)),
    "DRA-backed-resource-no-slices": (True, None, EXTENDED, dra([device_class()]), (0, 0)),
    "DRA-backed-resource-with-allocated-device": (
        True, None, EXTENDED, dra([device_class()], [slice_(NODE, "device-1", "device-2")],
                                  [claim("test-claim", "device-1")]), (2, 1)),
    "DRA-backed-resource-with-shared-device-allocation": (
        True, None, EXTENDED, dra([device_class()], [slice_(NODE, "device-1", "device-2")],
                                  [claim("test-claim", "device-1", share=True)]), (2, 1)),
    "DRA-backed-resource-multiple-devices-mixed-allocation": (
        True, None, EXTENDED,
        dra([device_class()], [slice_(NODE, "device-1", "device-2", "device-3")],
            [claim("test-claim-1", "device-1"), claim("test-claim-2", "device-2", share=True)]),
        (3, 2)),
}


@pytest.mark.parametrize("name", list(ALLOCATABLE_CASES))
def test_calculate_resource_allocatable_request(name: str) -> None:
    enabled, capacity, resource, objects, want = ALLOCATABLE_CASES[name]
    n = make_node(NODE)
    if capacity:
        n.allocatable(capacity)
    assert allocatable_request(n.obj(), resource, objects, enabled) == want


# ----- beyond the upstream tests -------------------------------------------------------------

def test_class_selectors_count_only_matching_devices() -> None:
    """calculateDRAResourceTotals' slow path: only devices every selector of the class
    matches; a selector that fails at runtime (an attribute the device lacks) makes the
    resource absent on that node (the error is logged upstream, (0, 0))."""
    gpu = make_resource_slice(NODE, DRIVER)
    for i, model in enumerate(("a100", "h100", "h100")):
        gpu.device(make_device(f"gpu-{i}").attributes({"model": model}))
    cls = device_class(EXTENDED, f'device.driver == "{DRIVER}"',
                       f'device.attributes["{DRIVER}"].model == "h100"')
    assert allocatable_request(make_node(NODE).obj(), EXTENDED,
                               dra([cls], [gpu.obj()]), True) == (2, 0)
    other = make_resource_slice(NODE, "other.example.com").device("x").obj()
    # the first selector rejects the other driver's device before the second is evaluated
    assert allocatable_request(make_node(NODE).obj(), EXTENDED,
                               dra([cls], [gpu.obj(), other]), True) == (2, 0)
    missing = make_resource_slice(NODE, DRIVER).device("bare").obj()
    assert allocatable_request(make_node(NODE).obj(), EXTENDED,
                               dra([cls], [gpu.obj(), missing]), True) == (0, 0)


def test_slices_of_other_nodes_and_node_selectors() -> None:
    """A slice of another node is skipped; allNodes and a matching node selector count; with
    per-device node selection each device is placed on its own."""
    labelled = make_node(NODE).label("rack", "a").obj()
    term = [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["a"]}]}]
    other_term = [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["b"]}]}]
    slices = [slice_("elsewhere", "d0"),
              make_network_slice("all", DRIVER).all_nodes().devices("d1", "d2").obj(),
              make_network_slice("sel", DRIVER).node_selector(term).devices("d3").obj(),
              make_network_slice("nosel", DRIVER).node_selector(other_term).devices("d4").obj(),
              make_network_slice("per", DRIVER).per_device_node_selection()
              .device(make_device("d5").node_name(NODE))
              .device(make_device("d6").node_name("elsewhere"))
              .device(make_device("d7").all_nodes()).obj()]
    assert allocatable_request(labelled, EXTENDED, dra([device_class()], slices),
                               True) == (5, 0)


def test_most_allocated_prefers_the_node_with_fewer_free_devices() -> None:
    """The decision the DRA branch changes: MostAllocated over the extended resource picks the
    node whose devices are more used (an allocated device counts on its node only)."""
    objects = dra([device_class()], [slice_("node1", "a", "b"), slice_("node2", "a", "b")],
                  [make_resource_claim("c").allocation([("r", DRIVER, "node2", "a")]).obj()])
    pod = make_pod("p").req({EXTENDED: "1"}).obj()
    nodes = [bare("node1"), bare("node2")]
    assert fit_scores([ResourceSpec(EXTENDED, 1)], pod, nodes, objects,
                      kind=MOST_ALLOCATED) == [50, 100]
    # without the gate the resource is absent everywhere: nothing to score
    assert fit_scores([ResourceSpec(EXTENDED, 1)], pod, nodes, objects, kind=MOST_ALLOCATED,
                      features=OFF) == [0, 0]


def test_device_plugin_allocatable_wins_over_dra() -> None:
    """A node that advertises the resource is scored from its allocatable, not from DRA."""
    objects = dra([device_class()], [slice_("node1", "a", "b", "c", "d")])
    pod = make_pod("p").req({EXTENDED: "1"}).obj()
    nodes = [make_node("node1").allocatable({EXTENDED: "2"}).obj(), bare("node2")]
    assert fit_scores([ResourceSpec(EXTENDED, 1)], pod, nodes, objects) == [50, 0]


@pytest.mark.parametrize("release", ["v1.34.4", "v1.35.4", "v1.36.3", "v1.37.2"])
def test_per_release_defaults(release: str) -> None:
    """The gate's defaults: off in v1.34/v1.35 (the resource scores as absent: 0), on in
    v1.36/v1.37 (counted from the devices)."""
    objects = dra([device_class()], [slice_("node1", "a", "b")])
    handle = FakeHandle([bare("node1")], features={}, dra=objects, release=load(release))
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(
        LEAST_ALLOCATED, (ResourceSpec(EXTENDED, 1),))), handle)
    pod = make_pod("p").req({EXTENDED: "1"}).obj()
    state = CycleState()
    pl.pre_score(state, pod, handle.snapshot().list())
    want = 50 if release in ("v1.36.3", "v1.37.2") else 0
    assert pl.score(state, pod, handle.snapshot().get("node1")) == want


def test_balanced_allocation_nil_cel_cache() -> None:
    """NewBalancedAllocation never sets the scorer's CEL cache: a class with a selector
    makes upstream dereference a nil pointer; the reference returns an Error. A class
    without selectors never compiles anything and scores."""
    objects = dra([device_class(EXTENDED, f'device.driver == "{DRIVER}"')],
                  [slice_("node1", "a", "b")])
    handle = FakeHandle([bare("node1")], features=ON, dra=objects)
    pl = BalancedAllocation(NodeResourcesBalancedAllocationArgs(resources=(
        ResourceSpec(EXTENDED),)), handle)
    pod = make_pod("p").req({EXTENDED: "1"}).obj()
    state = CycleState()
    assert pl.pre_score(state, pod, handle.snapshot().list()) is None
    with pytest.raises(PluginError, match="nil CEL cache"):
        pl.score(state, pod, handle.snapshot().get("node1"))


# ----- upstream-balanced-allocation-dra-nil-cel-cache ---------------------------------------

DEVIATION = catalogue()["upstream-balanced-allocation-dra-nil-cel-cache"]


def test_deviation_scenario_is_an_error_on_the_reference() -> None:
    """The catalogued scenario: BalancedAllocation's Score fails for p0 (upstream crashes)."""
    scenario, _, _ = read_scenario_file(str(DEVIATION.scenario))
    result = ReferenceSubject().run(scenario).result
    first = result["attempts"][0]
    assert first["pod"] == "default/p0" and first["outcome"] == "Error"
    assert 'plugin "NodeResourcesBalancedAllocation" failed' in first["message"]
    assert "nil CEL cache" in first["message"]


@pytest.mark.skipif(not binary_available(), reason="the upstream subject is not built")
def test_deviation_scenario_crashes_upstream() -> None:
    scenario, _, _ = read_scenario_file(str(DEVIATION.scenario))
    subject = UpstreamSubject()
    try:
        with pytest.raises(SubjectError, match="exited with code 2"):
            subject.run(scenario)
    finally:
        subject.close()


def test_the_dra_family_keeps_dra_resources_out_of_balanced_allocation() -> None:
    """What keeps the differential off the crash: a BalancedAllocation pluginConfig loses its
    DRA-backed resources (and is dropped when none is left) in the dra family."""
    ba = {"name": "NodeResourcesBalancedAllocation", "args": {"resources": [
        {"name": "cpu"}, {"name": "example.com/gpu"}]}}
    assert without_dra_resources(ba) == {"name": "NodeResourcesBalancedAllocation",
                                         "args": {"resources": [{"name": "cpu"}]}}
    only = {"name": "NodeResourcesBalancedAllocation", "args": {"resources": [
        {"name": "deviceclass.resource.kubernetes.io/gpu.example.com"}]}}
    assert without_dra_resources(only) is None
    fit = {"name": "NodeResourcesFit", "args": {}}
    assert without_dra_resources(fit) is fit


# ----- balanced_allocation_test.go TestBalancedAllocationSignPod ----------------------------

@pytest.mark.parametrize("enabled", [True, False], ids=[
    "DRA extended resource enabled - returns unschedulable", "DRA extended resource disabled"])
def test_balanced_allocation_sign_pod(enabled: bool) -> None:
    """A pod requesting a DRA-backed extended resource has no signature with the gate on
    (the DeviceClass maps it); with the gate off BalancedAllocation signs its requests."""
    handle = FakeHandle(features=ON if enabled else OFF, dra=dra([device_class()]))
    pl = BalancedAllocation(None, handle)
    pod = make_pod("p").req({"cpu": "1000m", "memory": "2000", EXTENDED: "1"}).obj()
    fragments, status = pl.sign_pod(pod)
    if enabled:
        assert fragments is None and status is not None
        assert status.code == Code.UNSCHEDULABLE
        assert status.reasons == ["signature disabled when dra extended resources are used "
                                  "in the cluster"]
    else:
        assert status is None and fragments is not None
        [(key, _)] = fragments
        assert key == RESOURCES_SIGNER_NAME
