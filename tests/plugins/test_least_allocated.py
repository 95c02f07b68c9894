"""LeastAllocated scoring of NodeResourcesFit.

Cases restate upstream v1.37.2
``pkg/scheduler/framework/plugins/noderesources/least_allocated_test.go``
(TestLeastAllocatedScoringStrategy); each case keeps its upstream name.
"""

from __future__ import annotations

import pytest
from noderesources_common import FEATURES, cap

from reference_impl.config.args import (
    LEAST_ALLOCATED,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
)
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import PluginError
from reference_impl.framework.testing import FakeHandle
from reference_impl.model.objects import Node, Pod
from reference_impl.plugins.noderesources.fit import Fit
from reference_impl.plugins.noderesources.least_allocated import least_requested_score
from reference_impl.testing.wrappers import make_node, make_pod

DEFAULT_RESOURCES = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
EXTENDED_RES = "abc.com/xyz"
EXTENDED_RESOURCE_SET = DEFAULT_RESOURCES + (ResourceSpec(EXTENDED_RES, 1),)


def run(resources, pod: Pod, nodes: list[Node], existing: list[Pod]) -> list[tuple[str, int]]:
    """NewFit with LeastAllocated over ``resources``, PreScore, then Score on every node."""
    handle = FakeHandle(nodes, existing, features=FEATURES)
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(
        LEAST_ALLOCATED, tuple(resources))), handle)
    state = CycleState()
    assert pl.pre_score(state, pod, handle.snapshot().list()) is None
    return [(n.name, pl.score(state, pod, handle.snapshot().get(n.name))) for n in nodes]


def two_containers() -> Pod:
    return make_pod("p").req({"cpu": "1000", "memory": "2000"}).req(
        {"cpu": "2000", "memory": "3000"}).obj()


CASES = [
    # CPU ((4000-0)*100)/4000 = 100, memory 100 on both nodes
    ("nothing scheduled, nothing requested", make_pod("p").obj,
     [("node1", cap("4000", "10000")), ("node2", cap("4000", "10000"))], [],
     [("node1", 100), ("node2", 100)], DEFAULT_RESOURCES),
    # node1: cpu 25, memory 50 -> 37; node2: cpu 50, memory 50 -> 50
    ("nothing scheduled, resources requested, differently sized nodes", two_containers,
     [("node1", cap("4000", "10000")), ("node2", cap("6000", "10000"))], [],
     [("node1", 37), ("node2", 50)], DEFAULT_RESOURCES),
    ("no resources requested, pods scheduled", make_pod("p").obj,
     [("node1", cap("4000", "10000")), ("node2", cap("4000", "10000"))],
     [("node1", {}), ("node1", {}), ("node2", {}), ("node2", {})],
     [("node1", 100), ("node2", 100)], DEFAULT_RESOURCES),
    # node1: cpu 40, memory 100 -> 70; node2: cpu 40, memory 75 -> 57
    ("no resources requested, pods scheduled with resources", make_pod("p").obj,
     [("node1", cap("10000", "20000")), ("node2", cap("10000", "20000"))],
     [("node1", cap("3000", "0")), ("node1", cap("3000", "0")),
      ("node2", cap("3000", "0")), ("node2", cap("3000", "5000"))],
     [("node1", 70), ("node2", 57)], DEFAULT_RESOURCES),
    # node1: cpu 40, memory 75 -> 57; node2: cpu 40, memory 50 -> 45
    ("resources requested, pods scheduled with resources", two_containers,
     [("node1", cap("10000", "20000")), ("node2", cap("10000", "20000"))],
     [("node1", cap("3000", "0")), ("node2", cap("3000", "5000"))],
     [("node1", 57), ("node2", 45)], DEFAULT_RESOURCES),
    # node1: cpu 40, memory 75 -> 57; node2: cpu 40, memory 80 -> 60
    ("resources requested, pods scheduled with resources, differently sized nodes",
     two_containers,
     [("node1", cap("10000", "20000")), ("node2", cap("10000", "50000"))],
     [("node1", cap("3000", "0")), ("node2", cap("3000", "5000"))],
     [("node1", 57), ("node2", 60)], DEFAULT_RESOURCES),
    # cpu exceeds capacity -> 0; node1 memory 100 -> 50; node2 memory 50 -> 25
    ("requested resources exceed node capacity",
     lambda: make_pod("p").req(cap("3000", "0")).obj(),
     [("node1", cap("4000", "10000")), ("node2", cap("4000", "10000"))],
     [("node1", cap("3000", "0")), ("node2", cap("3000", "5000"))],
     [("node1", 50), ("node2", 25)], DEFAULT_RESOURCES),
    ("zero node resources, pods scheduled with resources", make_pod("p").obj,
     [("node1", None), ("node2", None)],
     [("node1", cap("3000", "0")), ("node2", cap("3000", "5000"))],
     [("node1", 0), ("node2", 0)], DEFAULT_RESOURCES),
    # node1: (25*1 + 50*2)/3 = 41; node2: (50 + 100)/3 = 50
    ("nothing scheduled, resources requested with different weight on CPU and memory, "
     "differently sized nodes", two_containers,
     [("node1", cap("4000", "10000")), ("node2", cap("6000", "10000"))], [],
     [("node1", 41), ("node2", 50)], (ResourceSpec("memory", 2), ResourceSpec("cpu", 1))),
    # extended resource not requested: bypassed -> (50 + 50)/2 on both nodes
    ("bypass extended resource if the pod does not request", two_containers,
     [("node1", cap("6000", "10000")), ("node2", cap("6000", "10000", **{EXTENDED_RES: "4"}))],
     [], [("node1", 50), ("node2", 50)], EXTENDED_RESOURCE_SET),
    # extended: node1 (4-2)/4 -> 50, node2 (10-2)/10 -> 80; (50+50+50)/3, (50+50+80)/3
    ("honor extended resource if the pod requests",
     lambda: make_pod("p").req(cap("3000", "5000", **{EXTENDED_RES: "2"})).obj(),
     [("node1", cap("6000", "10000", **{EXTENDED_RES: "4"})),
      ("node2", cap("6000", "10000", **{EXTENDED_RES: "10"}))],
     [], [("node1", 50), ("node2", 60)], EXTENDED_RESOURCE_SET),
    # extended resource (weight 2) not requested -> ignored; (50 + 60)/2 = 55
    ("if the node doesn't have a resource",
     lambda: make_pod("p").req(cap("3000", "4000")).obj(),
     [("node1", cap("6000", "10000")), ("node2", cap("6000", "10000", **{EXTENDED_RES: "4"}))],
     [], [("node1", 55), ("node2", 55)],
     (ResourceSpec(EXTENDED_RES, 2), ResourceSpec("cpu", 1), ResourceSpec("memory", 1))),
]


@pytest.mark.parametrize("pod_factory,nodes,existing,want,resources",
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_least_allocated_scoring_strategy(pod_factory, nodes, existing, want, resources):
    """least_allocated_test.go TestLeastAllocatedScoringStrategy."""
    node_objs = [make_node(name).capacity(c).obj() for name, c in nodes]
    existing_pods = [make_pod(f"e{i}").node(n).req(r).obj() for i, (n, r) in enumerate(existing)]
    assert run(resources, pod_factory(), node_objs, existing_pods) == want


def test_resources_not_set_is_an_error():
    """least_allocated_test.go "Resources not set, pods scheduled with error": each Score is an
    Error (score 0)."""
    nodes = [make_node("node1").capacity(cap("4000", "10000")).obj(),
             make_node("node2").capacity(cap("6000", "10000")).obj()]
    handle = FakeHandle(nodes, [], features=FEATURES)
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(LEAST_ALLOCATED, ())), handle)
    pod = two_containers()
    state = CycleState()
    pl.pre_score(state, pod, handle.snapshot().list())
    for n in nodes:
        with pytest.raises(PluginError, match="^resources not found$"):
            pl.score(state, pod, handle.snapshot().get(n.name))


@pytest.mark.parametrize("resources", [
    pytest.param((ResourceSpec("memory", -1), ResourceSpec("cpu", 1)),
                 id="resource with negative weight"),
    pytest.param((ResourceSpec("memory", 1), ResourceSpec("cpu", 0)),
                 id="resource with zero weight"),
    pytest.param((ResourceSpec("memory", 1), ResourceSpec("cpu", 101)),
                 id="resource weight larger than MaxNodeScore"),
])
def test_invalid_weights(resources):
    """least_allocated_test.go: NewFit fails validation (wantErrs on
    scoringStrategy.resources[i].weight)."""
    with pytest.raises(ValueError, match=r"scoringStrategy\.resources\[\d\]\.weight"):
        Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(LEAST_ALLOCATED, resources)),
            FakeHandle(features=FEATURES))


@pytest.mark.parametrize("requested,capacity,want", [
    (0, 0, 0), (5, 4, 0), (0, 4000, 100), (3000, 4000, 25), (1, 3, 66), (2, 3, 33),
    # int64 overflow of (capacity - requested) * 100 wraps as in Go (values checked with Go)
    (0, 1 << 62, 0), (1 << 61, 1 << 62, -2),
])
def test_least_requested_score(requested, capacity, want):
    """least_allocated.go leastRequestedScore in int64 arithmetic (truncating division,
    wrap-around on overflow)."""
    assert least_requested_score(requested, capacity) == want


def test_ephemeral_storage_uses_requested_and_no_default():
    """resource_allocation.go calculateResourceAllocatableRequest: ephemeral-storage always
    reads the node's Requested (no non-zero default exists for it); a pod not requesting it is
    still scored on it (it is not a scalar resource). Node 1000, used 250 by an existing pod,
    incoming pod 0: (1000 - 250) * 100 / 1000 = 75; incoming 250: 50."""
    nodes = [make_node("node1").capacity(ephemeral_storage="1000").obj()]
    existing = [make_pod("e0").node("node1").req(ephemeral_storage="250").obj()]
    res = (ResourceSpec("ephemeral-storage", 1),)
    assert run(res, make_pod("p").container("container").obj(), nodes, existing) == [("node1", 75)]
    assert run(res, make_pod("p").req(ephemeral_storage="250").obj(), nodes, existing) == [
        ("node1", 50)]
