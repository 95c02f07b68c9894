"""Typed plugin args, as upstream's internal config types.

Upstream: ``pkg/scheduler/apis/config/types_pluginargs.go``. Field names are the snake_case of
upstream's; defaults are applied by ``reference_impl.config`` from the pinned release's data, so a
plugin always receives a complete, validated args object. The dataclass defaults equal what the
pinned release's defaulting gives for empty args (``tests/test_config.py`` checks this), so a
plugin given ``args=None`` can use ``XArgs()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reference_impl.model.objects import NodeAffinity, TopologySpreadConstraint

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"


@dataclass(slots=True, frozen=True)
class ResourceSpec:
    name: str
    weight: int = 1


@dataclass(slots=True, frozen=True)
class UtilizationShapePoint:
    utilization: int
    score: int


@dataclass(slots=True, frozen=True)
class RequestedToCapacityRatioParam:
    shape: tuple[UtilizationShapePoint, ...] = ()


@dataclass(slots=True, frozen=True)
class ScoringStrategy:
    type: str = LEAST_ALLOCATED
    resources: tuple[ResourceSpec, ...] = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None


@dataclass(slots=True, frozen=True)
class DefaultPreemptionArgs:
    min_candidate_nodes_percentage: int = 10
    min_candidate_nodes_absolute: int = 100


@dataclass(slots=True, frozen=True)
class InterPodAffinityArgs:
    hard_pod_affinity_weight: int = 1
    ignore_preferred_terms_of_existing_pods: bool = False


@dataclass(slots=True, frozen=True)
class NodeResourcesFitArgs:
    ignored_resources: tuple[str, ...] = ()
    ignored_resource_groups: tuple[str, ...] = ()
    scoring_strategy: ScoringStrategy = field(default_factory=ScoringStrategy)


@dataclass(slots=True, frozen=True)
class PodTopologySpreadArgs:
    default_constraints: tuple[TopologySpreadConstraint, ...] = ()
    defaulting_type: str = SYSTEM_DEFAULTING


@dataclass(slots=True, frozen=True)
class NodeResourcesBalancedAllocationArgs:
    resources: tuple[ResourceSpec, ...] = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


@dataclass(slots=True, frozen=True)
class VolumeBindingArgs:
    bind_timeout_seconds: int = 600
    # The default shape under StorageCapacityScoring (on in v1.37).
    shape: tuple[UtilizationShapePoint, ...] = (UtilizationShapePoint(0, 10),
                                                UtilizationShapePoint(100, 0))


@dataclass(slots=True, frozen=True)
class NodeAffinityArgs:
    added_affinity: NodeAffinity | None = None


@dataclass(slots=True, frozen=True)
class DynamicResourcesArgs:
    filter_timeout_seconds: float = 10.0
    binding_timeout_seconds: float = 600.0
