"""NodeResourcesBalancedAllocation
(``pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go``): scores the change
in balance the pod brings (v1.36 on; the balance with the pod before), from raw requests; no
EventsToRegister, as upstream
(``runtime/framework.go`` shouldHaveEnqueueExtensions).
See docs/reference.md#noderesourcesbalancedallocation."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from reference_impl.config.args import NodeResourcesBalancedAllocationArgs
from reference_impl.framework.columns import I64, NodeColumns
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import (
    MAX_NODE_SCORE,
    PreScorePlugin,
    ScorePlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.framework.vectorised import fill_per_node
from reference_impl.model.objects import Pod
from reference_impl.plugins import names
from reference_impl.plugins.helper.behaviour import behaviour
from reference_impl.plugins.noderesources.dra_scoring import DRAPreScoreState, NilCacheMatcher
from reference_impl.plugins.noderesources.fit import (
    RESOURCES_SIGNER_NAME,
    compute_pod_resource_request,
    dra_pre_score_state,
    extended_resource_cache,
    feature_enabled,
    resource_signature,
    should_delegate_resource_to_dra,
)
from reference_impl.plugins.noderesources.resource_allocation import (
    MIN_INT64,
    ResourceAllocationScorer,
    go_div,
    wrap_int64,
)
from reference_impl.plugins.noderesources.vectorised import balanced_scores, cpu_memory_vectors

PRE_SCORE_STATE_KEY = "PreScore" + names.NodeResourcesBalancedAllocation

_TWO_63 = float(1 << 63)


def _float_to_int64(x: float) -> int:
    """Go's ``int64(x)``: truncation toward zero; a NaN or out-of-range value gives MinInt64
    (amd64 CVTTSD2SQ). Only reachable here when node requests overflowed int64."""
    if -_TWO_63 <= x < _TWO_63:
        return int(x)
    return MIN_INT64


def balanced_resource_score(requested: list[int], allocatable: list[int]) -> int:
    """``balancedResourceScore``: ``int64((1 - std) * MaxNodeScore)`` where std is the standard
    deviation of ``min(1, requested/allocatable)`` (float64) over the resources with non-zero
    allocatable: ``|f0 - f1| / 2`` for two, the population formula for more, 0 for fewer."""
    if len(allocatable) == 2 and allocatable[0] != 0 and allocatable[1] != 0:
        # the common case (cpu, memory): the same float64 operations as below
        f0 = float(requested[0]) / float(allocatable[0])
        if f0 > 1:
            f0 = 1.0
        f1 = float(requested[1]) / float(allocatable[1])
        if f1 > 1:
            f1 = 1.0
        return _float_to_int64((1 - abs((f0 - f1) / 2)) * float(MAX_NODE_SCORE))
    fractions: list[float] = []
    total = 0.0
    for i, cap in enumerate(allocatable):
        if cap == 0:
            continue
        fraction = float(requested[i]) / float(cap)
        if fraction > 1:
            fraction = 1.0
        total += fraction
        fractions.append(fraction)
    std = 0.0
    n = len(fractions)
    if n == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif n > 2:
        mean = total / float(n)
        acc = 0.0
        for f in fractions:
            acc = acc + (f - mean) * (f - mean)
        std = math.sqrt(acc / float(n))
    return _float_to_int64((1 - std) * float(MAX_NODE_SCORE))


def balanced_resource_scorer(requested: list[int], allocated: list[int],
                             allocatable: list[int]) -> int:
    """``balancedResourceScorer`` of v1.36/v1.37 (switch balanced-allocation-delta "delta",
    kubernetes#135573): ``MaxNodeScore/2 + (MaxNodeScore/2 + withPod - withoutPod)/2`` (int64
    arithmetic), where withPod scores (node + pod) requests and withoutPod the node's."""
    with_pod = balanced_resource_score(requested, allocatable)
    without_pod = balanced_resource_score(allocated, allocatable)
    half = MAX_NODE_SCORE // 2
    return wrap_int64(half + go_div(wrap_int64(half + with_pod - without_pod), 2))


def balanced_resource_scorer_with_pod(requested: list[int], allocated: list[int],
                                      allocatable: list[int]) -> int:
    """``balancedResourceScorer(requested, allocable)`` of v1.34/v1.35 (balanced_allocation.go;
    switch balanced-allocation-delta "with-pod"): the balance of (node + pod) requests only."""
    return balanced_resource_score(requested, allocatable)


#: the scorer of each balanced-allocation-delta variant
SCORERS = {"with-pod": balanced_resource_scorer_with_pod, "delta": balanced_resource_scorer}


def validate_balanced_allocation_args(args: NodeResourcesBalancedAllocationArgs) -> None:
    """``ValidateNodeResourcesBalancedAllocationArgs``: no duplicate resource names, every
    weight 1. Raises ``ValueError``."""
    errs: list[str] = []
    seen: set[str] = set()
    for i, r in enumerate(args.resources):
        if r.name in seen:
            errs.append(f"resources[{i}].name: Duplicate value: {r.name!r}")
        else:
            seen.add(r.name)
        if r.weight != 1:
            errs.append(f"resources[{i}].weight: Invalid value: {r.weight}: must be 1")
    if errs:
        raise ValueError("; ".join(errs))


class BalancedAllocation(PreScorePlugin, ScorePlugin, SignPlugin):
    """``BalancedAllocation``: favours nodes whose resource usage stays balanced."""

    name = names.NodeResourcesBalancedAllocation

    def __init__(self, args: NodeResourcesBalancedAllocationArgs | None = None,
                 handle: Any = None) -> None:
        args = args if args is not None else NodeResourcesBalancedAllocationArgs()
        validate_balanced_allocation_args(args)
        super().__init__(args, handle)
        self.enable_pod_level_resources = feature_enabled(handle, "PodLevelResources")
        self.enable_dra_extended_resource = feature_enabled(handle, "DRAExtendedResource")
        self.scorer = ResourceAllocationScorer(
            names.NodeResourcesBalancedAllocation,
            SCORERS[behaviour(handle, "balanced-allocation-delta")], args.resources,
            use_requested=True, enable_pod_level_resources=self.enable_pod_level_resources,
            resize_rule=behaviour(handle, "resize-requests-aggregation"),
            # NewBalancedAllocation sets draManager but not the CEL cache (v1.36/v1.37)
            dra_matcher=NilCacheMatcher() if self.enable_dra_extended_resource else None)

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """``PreScore``: Skip for a pod that requests none of the listed resources (best
        effort; kubernetes#129138), else store its request of each and, with
        DRAExtendedResource, the DRA state of ``getDRAPreScoredParams``."""
        reqs = self.scorer.pod_request_list(pod)
        if ResourceAllocationScorer.is_best_effort_pod(reqs):
            return Status(Code.SKIP)
        state.write(PRE_SCORE_STATE_KEY, (reqs, self._dra_pre_score_state()))
        return None

    def _dra_pre_score_state(self) -> DRAPreScoreState | None:
        return dra_pre_score_state(self.handle, self.enable_dra_extended_resource,
                                   self.scorer.resources)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """``Score``: PreScore's vector (recomputed if PreScore did not run; then 0 for a
        best-effort pod) through ``balanced_resource_scorer``."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            reqs = self.scorer.pod_request_list(pod)
            if ResourceAllocationScorer.is_best_effort_pod(reqs):
                return 0
            s = (reqs, self._dra_pre_score_state())
        return self.scorer.score(node_info, s[0], s[1])

    def score_batch(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                    cols: NodeColumns, rows: npt.NDArray[np.intp]) -> I64 | None:
        """``score`` over node columns for the resources (cpu, memory), by the release's
        balanced-allocation-delta variant; a node with a zero allocatable goes through
        ``score``. None for other resource lists."""
        sc = self.scorer
        if not sc._cpu_memory_only or sc.scorer not in SCORERS.values():
            return None
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            reqs = sc.pod_request_list(pod)
            if ResourceAllocationScorer.is_best_effort_pod(reqs):
                return np.zeros(len(nodes), dtype=np.int64)
        else:
            reqs = s[0]
        v = cpu_memory_vectors(cols, rows, reqs[0], reqs[1], use_requested=True)
        if v is None:
            return None
        req_cpu, req_mem, used_cpu, used_mem, cap_cpu, cap_mem, exceptions = v
        exceptions |= (cap_cpu == 0) | (cap_mem == 0)
        scores = balanced_scores(req_cpu, req_mem, used_cpu, used_mem, cap_cpu, cap_mem,
                                 delta=sc.scorer is balanced_resource_scorer)
        return fill_per_node(scores, exceptions, partial(self.score, state, pod), nodes)

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: the same fragment as NodeResourcesFit's (computePodResourceRequest),
        refused as Fit's is when a DeviceClass maps a resource the pod requests
        (DRAExtendedResource)."""
        request = compute_pod_resource_request(pod, self.enable_pod_level_resources)
        dra = extended_resource_cache(self.handle, self.enable_dra_extended_resource)
        if any(q and should_delegate_resource_to_dra(name, None, dra)
               for name, q in request.scalar.items()):
            return None, Status(Code.UNSCHEDULABLE, "signature disabled when dra extended "
                                "resources are used in the cluster")
        return [(RESOURCES_SIGNER_NAME, resource_signature(request))], None
