"""RequestedToCapacityRatio scoring
(``pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio.go``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from reference_impl.config.args import ResourceSpec, UtilizationShapePoint
from reference_impl.framework.interfaces import MAX_NODE_SCORE
from reference_impl.plugins.helper.shape_score import (
    FunctionShapePoint,
    build_broken_linear_function,
)
from reference_impl.plugins.noderesources.resource_allocation import ScorerFunc, go_div, wrap_int64

MAX_UTILIZATION = 100
# pkg/scheduler/apis/config/types.go: the shape's scores are on 0..MaxCustomPriorityScore.
MAX_CUSTOM_PRIORITY_SCORE = 10


def go_round(x: float) -> int:
    """``int64(math.Round(x))``: nearest integer, halves away from zero (Python's ``round``
    rounds halves to even)."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return int(t)


def build_requested_to_capacity_ratio_scorer_function(
    shape: Sequence[FunctionShapePoint], resources: Sequence[ResourceSpec]
) -> ScorerFunc:
    """``buildRequestedToCapacityRatioScorerFunction``.

    Per resource with non-zero allocatable: the shape function at the utilization
    ``requested * 100 / capacity`` (int64; 100 when capacity is 0 or exceeded). Only positive
    resource scores count, weighted; the node score is ``math.Round(sum / weightSum)`` in
    float64, or 0 if no resource scored.
    """
    raw = build_broken_linear_function(shape)
    weights = tuple(r.weight for r in resources)
    at_max = raw(MAX_UTILIZATION)

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return at_max
        return raw(go_div(wrap_int64(requested * MAX_UTILIZATION), capacity))

    def scorer(requested: list[int], _allocated: list[int], allocatable: list[int]) -> int:
        node_score = 0
        weight_sum = 0
        for i, cap in enumerate(allocatable):
            if cap == 0:
                continue
            w = weights[i]
            s = resource_score(requested[i], cap)
            if s > 0:
                node_score += s * w
                weight_sum += w
        if weight_sum == 0:
            return 0
        return go_round(float(node_score) / float(weight_sum))

    return scorer


def requested_to_capacity_ratio_scorer(
    resources: Sequence[ResourceSpec], shape: Sequence[UtilizationShapePoint]
) -> ScorerFunc:
    """``requestedToCapacityRatioScorer``: the configured shape with scores scaled from
    0..MaxCustomPriorityScore (10) to 0..MaxNodeScore, i.e. multiplied by 100 / 10 = 10."""
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    points = [FunctionShapePoint(p.utilization, p.score * scale) for p in shape]
    return build_requested_to_capacity_ratio_scorer_function(points, resources)
