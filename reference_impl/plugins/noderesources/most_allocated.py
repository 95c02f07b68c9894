"""MostAllocated scoring (``pkg/scheduler/framework/plugins/noderesources/most_allocated.go``)."""

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


def most_requested_score(requested: int, capacity: int) -> int:
    """``mostRequestedScore``: the used share of capacity on 0..MaxNodeScore,
    ``requested * 100 / capacity`` in int64, with requested capped at capacity (pods without
    requests count the 100m/200Mi defaults and can exceed it); 0 when capacity is 0."""
    if capacity == 0:
        return 0
    if requested > capacity:
        requested = capacity
    x = requested * MAX_NODE_SCORE
    if 0 <= x <= MAX_INT64 and capacity > 0:  # no overflow, no negative operand
        return x // capacity
    return go_div(wrap_int64(x), capacity)


def most_resource_scorer(resources: Sequence[ResourceSpec]) -> ScorerFunc:
    """``mostResourceScorer``: the weighted mean (int64 division) of ``most_requested_score``
    over the resources whose allocatable is non-zero; 0 if there is none."""
    weights = tuple(r.weight for r in resources)

    def scorer(requested: list[int], _allocated: list[int], allocatable: list[int]) -> int:
        node_score = 0
        weight_sum = 0
        for i, cap in enumerate(allocatable):
            if cap == 0:
                continue
            w = weights[i]
            node_score += most_requested_score(requested[i], cap) * w
            weight_sum += w
        if weight_sum == 0:
            return 0
        if 0 <= node_score <= MAX_INT64 and weight_sum > 0:
            return node_score // weight_sum
        return go_div(wrap_int64(node_score), weight_sum)  # int64 sums wrap in Go

    return scorer
