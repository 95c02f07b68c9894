"""MostAllocated scoring of NodeResourcesFit.

Cases restate upstream v1.37.2
``pkg/scheduler/framework/plugins/noderesources/most_allocated_test.go``
(TestMostAllocatedScoringStrategy); each case keeps its upstream name.
"""

from __future__ import annotations

import pytest
from noderesources_common import FEATURES, cap

from reference_impl.config.args import (
    MOST_ALLOCATED,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
)
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import PluginError
from reference_impl.framework.testing import FakeHandle
from reference_impl.model.objects import Node, Pod
from reference_impl.plugins.noderesources.fit import Fit
from reference_impl.plugins.noderesources.most_allocated import most_requested_score
from reference_impl.testing.wrappers import make_node, make_pod

DEFAULT_RESOURCES = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
EXTENDED_RES = "abc.com/xyz"
EXTENDED_RESOURCE_SET = DEFAULT_RESOURCES + (ResourceSpec(EXTENDED_RES, 1),)


def run(resources, pod: Pod, nodes: list[Node], existing: list[Pod]) -> list[tuple[str, int]]:
    """NewFit with MostAllocated over ``resources``, PreScore, then Score on every node."""
    handle = FakeHandle(nodes, existing, features=FEATURES)
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(
        MOST_ALLOCATED, tuple(resources))), handle)
    state = CycleState()
    assert pl.pre_score(state, pod, handle.snapshot().list()) is None
    return [(n.name, pl.score(state, pod, handle.snapshot().get(n.name))) for n in nodes]


def two_containers() -> Pod:
    return make_pod("p").req({"cpu": "1000", "memory": "2000"}).req(
        {"cpu": "2000", "memory": "3000"}).obj()


CASES = [
    ("nothing scheduled, nothing requested", make_pod("p").obj,
     [("node1", cap("4000", "10000")), ("node2", cap("4000", "10000"))], [],
     [("node1", 0), ("node2", 0)], DEFAULT_RESOURCES),
    # node1: cpu 75, memory 50 -> 62; node2: cpu 50, memory 50 -> 50
    ("nothing scheduled, resources requested, differently sized nodes", two_containers,
     [("node1", cap("4000", "10000")), ("node2", cap("6000", "10000"))], [],
     [("node1", 62), ("node2", 50)], DEFAULT_RESOURCES),
    # node1: cpu 60, memory 0 -> 30; node2: cpu 60, memory 25 -> 42
    ("no resources requested, pods scheduled with resources", make_pod("p").obj,
     [("node1", cap("10000", "20000")), ("node2", cap("10000", "20000"))],
     [("node1", cap("3000", "0")), ("node1", cap("3000", "0")),
      ("node2", cap("3000", "0")), ("node2", cap("3000", "5000"))],
     [("node1", 30), ("node2", 42)], DEFAULT_RESOURCES),
    # node1: cpu 60, memory 25 -> 42; node2: cpu 60, memory 50 -> 55
    ("resources requested, pods scheduled with resources", two_containers,
     [("node1", cap("10000", "20000")), ("node2", cap("10000", "20000"))],
     [("node1", cap("3000", "0")), ("node2", cap("3000", "5000"))],
     [("node1", 42), ("node2", 55)], DEFAULT_RESOURCES),
    # node1: cpu 100, memory 90 -> 95; node2: cpu 50, memory 100 -> 75
    ("resources requested equal node capacity",
     lambda: make_pod("p").req(cap("2000", "4000")).req(cap("3000", "5000")).obj(),
     [("node1", cap("5000", "10000")), ("node2", cap("10000", "9000"))], [],
     [("node1", 95), ("node2", 75)], DEFAULT_RESOURCES),
    # node1: (75*1 + 50*2)/3 = 58; node2: (50 + 100)/3 = 50
    ("nothing scheduled, resources requested, differently sized nodes (weights)",
     two_containers,
     [("node1", cap("4000", "10000")), ("node2", cap("6000", "10000"))], [],
     [("node1", 58), ("node2", 50)], (ResourceSpec("memory", 2), ResourceSpec("cpu", 1))),
    # non-zero defaults: node1 cpu 300m/250m -> 100, memory 600Mi/1000Mi -> 60 -> 80;
    # node2 cpu 100m/250m -> 40, memory 200Mi/1000Mi -> 20 -> 30
    ("no resources requested, pods scheduled, nonzero request for resource",
     lambda: make_pod("p").container("container").obj(),
     [("node1", cap("250m", "1000Mi")), ("node2", cap("250m", "1000Mi"))],
     [("node1", None), ("node1", None)],
     [("node1", 80), ("node2", 30)], DEFAULT_RESOURCES),
    ("bypass extended resource if the pod does not request", two_containers,
     [("node1", cap("6000", "10000")), ("node2", cap("6000", "10000", **{EXTENDED_RES: "4"}))],
     [], [("node1", 50), ("node2", 50)], EXTENDED_RESOURCE_SET),
    # extended: node1 2/4 -> 50, node2 2/10 -> 20; (50+50+50)/3 = 50, (50+50+20)/3 = 40
    ("honor extended resource if the pod request",
     lambda: make_pod("p").req(cap("3000", "5000", **{EXTENDED_RES: "2"})).obj(),
     [("node1", cap("6000", "10000", **{EXTENDED_RES: "4"})),
      ("node2", cap("6000", "10000", **{EXTENDED_RES: "10"}))],
     [], [("node1", 50), ("node2", 40)], EXTENDED_RESOURCE_SET),
    # (50 + 40)/2 = 45
    ("if the node doesn't have a resource",
     lambda: make_pod("p").req(cap("3000", "4000")).obj(),
     [("node1", cap("6000", "10000")), ("node2", cap("6000", "10000", **{EXTENDED_RES: "4"}))],
     [], [("node1", 45), ("node2", 45)],
     (ResourceSpec(EXTENDED_RES, 2), ResourceSpec("cpu", 1), ResourceSpec("memory", 1))),
]


@pytest.mark.parametrize("pod_factory,nodes,existing,want,resources",
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_most_allocated_scoring_strategy(pod_factory, nodes, existing, want, resources):
    """most_allocated_test.go TestMostAllocatedScoringStrategy. An existing pod given as None
    is ``st.MakePod().Node(n).Container("container")`` (one container without requests)."""
    node_objs = [make_node(name).capacity(c).obj() for name, c in nodes]
    existing_pods = [make_pod(f"e{i}").node(n).container("container").obj() if r is None
                     else make_pod(f"e{i}").node(n).req(r).obj()
                     for i, (n, r) in enumerate(existing)]
    assert run(resources, pod_factory(), node_objs, existing_pods) == want


def test_resources_not_set_is_an_error():
    """most_allocated_test.go "Resources not set, pods scheduled with error"."""
    nodes = [make_node("node1").capacity(cap("4000", "10000")).obj(),
             make_node("node2").capacity(cap("6000", "10000")).obj()]
    handle = FakeHandle(nodes, [], features=FEATURES)
    pl = Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(MOST_ALLOCATED, ())), handle)
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
    pytest.param((ResourceSpec("memory", 101),), id="resource weight larger than MaxNodeScore"),
])
def test_invalid_weights(resources):
    """most_allocated_test.go: NewFit fails validation (wantErrs)."""
    with pytest.raises(ValueError, match=r"scoringStrategy\.resources\[\d\]\.weight"):
        Fit(NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(MOST_ALLOCATED, resources)),
            FakeHandle(features=FEATURES))


@pytest.mark.parametrize("requested,capacity,want", [
    (0, 0, 0), (5, 4, 100), (3000, 4000, 75), (1, 3, 33),
    # int64 overflow of requested * 100 wraps as in Go (values checked with Go)
    (1 << 61, 1 << 62, -2), (3 << 60, 1 << 62, -1),
])
def test_most_requested_score(requested, capacity, want):
    """most_allocated.go mostRequestedScore: requested capped at capacity, int64 arithmetic."""
    assert most_requested_score(requested, capacity) == want
