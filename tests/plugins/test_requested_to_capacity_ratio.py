"""RequestedToCapacityRatio scoring of NodeResourcesFit and BuildBrokenLinearFunction.

Cases restate upstream v1.37.2
``pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio_test.go``
(TestRequestedToCapacityRatioScoringStrategy, TestBrokenLinearFunction,
TestResourceBinPackingSingleExtended, TestResourceBinPackingMultipleExtended).
"""

from __future__ import annotations

import pytest
from noderesources_common import FEATURES, cap

from reference_impl.config.args import (
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
)
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.testing import FakeHandle
from reference_impl.model.objects import Node, Pod
from reference_impl.plugins.helper.shape_score import (
    FunctionShapePoint,
    build_broken_linear_function,
)
from reference_impl.plugins.noderesources.fit import Fit
from reference_impl.plugins.noderesources.requested_to_capacity_ratio import (
    build_requested_to_capacity_ratio_scorer_function,
    go_round,
)
from reference_impl.testing.wrappers import make_node, make_pod

DEFAULT_RESOURCES = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


def util_make_node(name: str, milli_cpu: int, memory: int,
                   extended: dict[str, int] | None = None) -> Node:
    """util_test.go makeNode: cpu in milli, memory and extended resources as integers."""
    return make_node(name).allocatable({"cpu": f"{milli_cpu}m", "memory": memory,
                                        **(extended or {})}).obj()


def rtcr_args(resources, shape) -> NodeResourcesFitArgs:
    return NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(
        REQUESTED_TO_CAPACITY_RATIO, tuple(resources), RequestedToCapacityRatioParam(
            tuple(UtilizationShapePoint(u, s) for u, s in shape))))


def run(args: NodeResourcesFitArgs, pod: Pod, nodes: list[Node],
        existing: list[Pod]) -> list[tuple[str, int]]:
    handle = FakeHandle(nodes, [p for p in existing if p.node_name], features=FEATURES)
    pl = Fit(args, handle)
    state = CycleState()
    assert pl.pre_score(state, pod, handle.snapshot().list()) is None
    return [(n.name, pl.score(state, pod, handle.snapshot().get(n.name))) for n in nodes]


SHAPE = [(0, 10), (100, 0)]


@pytest.mark.parametrize("pod_factory,nodes,existing,want", [
    pytest.param(make_pod("p").obj,
                 [("node1", cap("4000", "10000")), ("node2", cap("4000", "10000"))],
                 [("node1", {}), ("node1", {})], [("node1", 100), ("node2", 100)],
                 id="nothing scheduled, nothing requested (default - least requested nodes "
                    "have priority)"),
    pytest.param(lambda: make_pod("p").req(cap("1000", "2000")).req(cap("2000", "3000")).obj(),
                 [("node1", cap("4000", "10000")), ("node2", cap("6000", "10000"))],
                 [("node1", {}), ("node1", {})], [("node1", 38), ("node2", 50)],
                 id="nothing scheduled, resources requested, differently sized nodes (default "
                    "- least requested nodes have priority)"),
    pytest.param(make_pod("p").obj,
                 [("node1", cap("4000", "10000")), ("node2", cap("6000", "10000"))],
                 [("node1", cap("3000", "5000")), ("node2", cap("3000", "5000"))],
                 [("node1", 38), ("node2", 50)],
                 id="no resources requested, pods scheduled with resources (default - least "
                    "requested nodes have priority)"),
])
def test_requested_to_capacity_ratio_scoring_strategy(pod_factory, nodes, existing, want):
    """requested_to_capacity_ratio_test.go TestRequestedToCapacityRatioScoringStrategy: shape
    (0, 10), (100, 0); node1 of case 2: cpu 75% -> 25, memory 50% -> 50, round(75/2) = 38."""
    node_objs = [make_node(n).capacity(c).obj() for n, c in nodes]
    existing_pods = [make_pod(f"e{i}").node(n).req(r).obj() for i, (n, r) in enumerate(existing)]
    assert run(rtcr_args(DEFAULT_RESOURCES, SHAPE), pod_factory(), node_objs,
               existing_pods) == want


@pytest.mark.parametrize("points,assertions", [
    ([(10, 1), (90, 9)],
     [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9),
      (100, 9), (110, 9)]),
    ([(0, 2), (40, 10), (100, 0)],
     [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)]),
    ([(0, 2), (40, 2), (100, 2)],
     [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)]),
], ids=["case_0", "case_1", "case_2"])
def test_broken_linear_function(points, assertions):
    """requested_to_capacity_ratio_test.go TestBrokenLinearFunction."""
    f = build_broken_linear_function([FunctionShapePoint(u, s) for u, s in points])
    assert [(p, f(p)) for p, _ in assertions] == assertions


def test_broken_linear_function_truncates_toward_zero():
    """shape_score.go: a decreasing segment divides a negative numerator; Go truncates toward
    zero (checked with Go: 100 + (0-100)*(10-0)/(30-0) = 67, not 66)."""
    f = build_broken_linear_function([FunctionShapePoint(0, 100), FunctionShapePoint(30, 0)])
    assert f(10) == 67
    assert f(20) == 34


def test_round_half_away_from_zero():
    """requested_to_capacity_ratio.go uses int64(math.Round(x)) (checked with Go)."""
    assert [go_round(x) for x in (2.5, 3.5, 0.49999999999999994, 37.5, 0.0)] == [3, 4, 0, 38, 0]
    scorer = build_requested_to_capacity_ratio_scorer_function(
        [FunctionShapePoint(0, 0), FunctionShapePoint(100, 100)],
        (ResourceSpec("a", 1), ResourceSpec("b", 1)))
    # 37.5 -> 38; 36.5 -> 37 where Python's round() would give 36
    assert scorer([25, 50], [0, 0], [100, 100]) == 38
    assert scorer([25, 48], [0, 0], [100, 100]) == 37


EXT1 = {"intel.com/foo": 4}
EXT2 = {"intel.com/foo": 8}


@pytest.mark.parametrize("pod_factory,existing,want", [
    pytest.param(make_pod("p").obj, [], [("node1", 0), ("node2", 0)],
                 id="nothing scheduled, nothing requested"),
    # node1 2/8 -> 25 -> 2.5 -> 2 (int), node2 2/4 -> 50 -> 5
    pytest.param(lambda: make_pod("p").req({"intel.com/foo": "2"}).obj(), [make_pod("e0").obj],
                 [("node1", 2), ("node2", 5)],
                 id="resources requested, pods scheduled with less resources"),
    pytest.param(lambda: make_pod("p").req({"intel.com/foo": "2"}).obj(),
                 [lambda: make_pod("e0").req({"intel.com/foo": "2"}).node("node2").obj()],
                 [("node1", 2), ("node2", 10)],
                 id="resources requested, pods scheduled with resources, on node with existing "
                    "pod running "),
    pytest.param(lambda: make_pod("p").req({"intel.com/foo": "4"}).obj(), [make_pod("e0").obj],
                 [("node1", 5), ("node2", 10)],
                 id="resources requested, pods scheduled with more resources"),
])
def test_resource_bin_packing_single_extended(pod_factory, existing, want):
    """requested_to_capacity_ratio_test.go TestResourceBinPackingSingleExtended: one resource
    intel.com/foo (weight 1), shape (0, 0), (100, 1)."""
    nodes = [util_make_node("node1", 4000, 10000 * 1024 * 1024, EXT2),
             util_make_node("node2", 4000, 10000 * 1024 * 1024, EXT1)]
    args = rtcr_args((ResourceSpec("intel.com/foo", 1),), [(0, 0), (100, 1)])
    assert run(args, pod_factory(), nodes, [f() for f in existing]) == want


EXTS1 = {"intel.com/foo": 4, "intel.com/bar": 8}
EXTS2 = {"intel.com/foo": 8, "intel.com/bar": 4}
POD1 = {"intel.com/foo": "2", "intel.com/bar": "2"}
POD2 = {"intel.com/foo": "4", "intel.com/bar": "2"}


@pytest.mark.parametrize("pod_factory,existing,want", [
    pytest.param(make_pod("p").obj, [], [("node1", 0), ("node2", 0)],
                 id="nothing scheduled, nothing requested"),
    # node1: foo 25 -> 2, bar 50 -> 5: round((2*3 + 5*5)/8) = 4; node2: (5*3 + 2*5)/8 -> 3
    pytest.param(lambda: make_pod("p").req(POD1).obj(), [make_pod("e0").obj],
                 [("node1", 4), ("node2", 3)],
                 id="resources requested, pods scheduled with less resources"),
    # node2: foo (2+4)/4 > 1 -> 10, bar (2+2)/8 -> 5: round((30 + 25)/8) = 7
    pytest.param(lambda: make_pod("p").req(POD1).obj(),
                 [lambda: make_pod("e0").req(POD2).node("node2").obj()],
                 [("node1", 4), ("node2", 7)],
                 id="resources requested, pods scheduled with resources, on node with existing "
                    "pod running "),
    pytest.param(lambda: make_pod("p").req(POD2).obj(), [make_pod("e0").obj],
                 [("node1", 5), ("node2", 5)],
                 id="resources requested, pods scheduled with more resources"),
])
def test_resource_bin_packing_multiple_extended(pod_factory, existing, want):
    """requested_to_capacity_ratio_test.go TestResourceBinPackingMultipleExtended:
    intel.com/foo weight 3, intel.com/bar weight 5, shape (0, 0), (100, 1)."""
    nodes = [util_make_node("node1", 4000, 10000 * 1024 * 1024, EXTS2),
             util_make_node("node2", 4000, 10000 * 1024 * 1024, EXTS1)]
    args = rtcr_args((ResourceSpec("intel.com/foo", 3), ResourceSpec("intel.com/bar", 5)),
                     [(0, 0), (100, 1)])
    assert run(args, pod_factory(), nodes, [f() for f in existing]) == want


@pytest.mark.parametrize("shape", [
    pytest.param([], id="no points"),
    pytest.param([(10, 1), (10, 2)], id="utilization not increasing"),
    pytest.param([(0, 1), (101, 2)], id="utilization out of range"),
    pytest.param([(0, 11)], id="score out of range"),
])
def test_invalid_shape(shape):
    """validation_pluginargs.go validateFunctionShape, run by NewFit."""
    with pytest.raises(ValueError, match="requestedToCapacityRatio.shape"):
        Fit(rtcr_args(DEFAULT_RESOURCES, shape), FakeHandle(features=FEATURES))
