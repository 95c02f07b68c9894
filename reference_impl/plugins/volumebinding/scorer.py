"""The storage capacity scorer of VolumeBinding.

Upstream: ``pkg/scheduler/framework/plugins/volumebinding/scorer.go`` (``buildScorerFunction``)
over ``helper.BuildBrokenLinearFunction``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from reference_impl.plugins.helper.shape_score import (
    FunctionShapePoint,
    build_broken_linear_function,
)
from reference_impl.plugins.volumebinding.binder import StorageResource

MAX_UTILIZATION = 100  # maxUtilization (volume_binding.go)

#: ``volumeCapacityScorer``: a node's score from its storage resources by class.
VolumeCapacityScorer = Callable[[Mapping[str, StorageResource]], int]


def build_scorer_function(shape: Sequence[FunctionShapePoint]) -> VolumeCapacityScorer:
    """``buildScorerFunction``: each class scores the shape at its utilization
    (``requested * 100 / capacity``, integer division; 100 when the capacity is 0 or
    exceeded); the node's score is the mean over its classes, rounded half away from zero
    (``math.Round``; scores are never negative), 0 without classes."""
    raw = build_broken_linear_function(shape)

    def f(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def score(class_resources: Mapping[str, StorageResource]) -> int:
        weight_sum = len(class_resources)
        if weight_sum == 0:
            return 0
        node_score = sum(f(r.requested, r.capacity) for r in class_resources.values())
        return (2 * node_score + weight_sum) // (2 * weight_sum)

    return score
