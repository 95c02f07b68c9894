"""LeastAllocated scoring (``pkg/scheduler/framework/plugins/noderesources/least_allocated.go``)."""

from __future__ import annotations

from collections.abc import Sequence

from reference_impl.config.args import ResourceSpec
from reference_impl.framework.interfaces import MAX_NODE_SCORE
from reference_impl.plugins.noderesources.resource_allocation import (
    MAX_INT64,
    ScorerFunc,
    go_div,
    wrap_int64,
)


def least_requested_score(requested: int, capacity: int) -> int:
    """``leastRequestedScore``: the unused share of capacity on 0..MaxNodeScore,
    ``(capacity - requested) * 100 / capacity`` in int64; 0 when capacity is 0 or exceeded."""
    if capacity == 0:
        return 0
    if requested > capacity:
        return 0
    x = (capacity - requested) * MAX_NODE_SCORE
    if 0 <= x <= MAX_INT64 and capacity > 0:  # no overflow, no negative operand
        return x // capacity
    return go_div(wrap_int64(wrap_int64(capacity - requested) * MAX_NODE_SCORE), capacity)


def least_resource_scorer(resources: Sequence[ResourceSpec]) -> ScorerFunc:
    """``leastResourceScorer``: the weighted mean (int64 division) of ``least_requested_score``
    over the resources whose allocatable is non-zero; 0 if there is none."""
    weights = tuple(r.weight for r in resources)

    def scorer(requested: list[int], _allocated: list[int], allocatable: list[int]) -> int:
        node_score = 0
        weight_sum = 0
        for i, cap in enumerate(allocatable):
            if cap == 0:
                continue
            w = weights[i]
            node_score += least_requested_score(requested[i], cap) * w
            weight_sum += w
        if weight_sum == 0:
            return 0
        if 0 <= node_score <= MAX_INT64 and weight_sum > 0:
            return node_score // weight_sum
        return go_div(wrap_int64(node_score), weight_sum)  # int64 sums wrap in Go

    return scorer
