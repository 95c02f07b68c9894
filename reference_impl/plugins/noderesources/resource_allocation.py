"""The resource-allocation scorer shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

Upstream: ``pkg/scheduler/framework/plugins/noderesources/resource_allocation.go``
(resourceAllocationScorer: score, calculateNodeAllocatableRequest,
calculateResourceAllocatableRequest, calculatePodResourceRequest(List), isBestEffortPod).
How it works, and why the DRA branch is not implemented:
docs/reference.md#resource-allocation-scorer."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from reference_impl.config.args import ResourceSpec
from reference_impl.framework.status import PluginError
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import CPU, EPHEMERAL_STORAGE, MEMORY, Pod
from reference_impl.model.quantity import milli_value, value
from reference_impl.model.requests import (
    DEFAULT_NON_MISSING,
    MAX_OF_SUMS,
    is_scalar_resource_name,
    pod_requests,
)

MAX_INT64 = (1 << 63) - 1
MIN_INT64 = -(1 << 63)

# (requested, allocated, allocatable) -> score
ScorerFunc = Callable[[list[int], list[int], list[int]], int]

_CPU, _MEMORY, _EPHEMERAL, _OTHER = 0, 1, 2, 3


def wrap_int64(x: int) -> int:
    """The int64 Go computes for an integer expression whose exact value is ``x``
    (two's-complement wrap-around on overflow)."""
    if MIN_INT64 <= x <= MAX_INT64:
        return x
    return ((x + (1 << 63)) & ((1 << 64) - 1)) - (1 << 63)


def go_div(a: int, b: int) -> int:
    """Go's int64 ``a / b``: truncated toward zero (Python's ``//`` floors negatives)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _kind(name: str) -> int:
    if name == CPU:
        return _CPU
    if name == MEMORY:
        return _MEMORY
    if name == EPHEMERAL_STORAGE:
        return _EPHEMERAL
    return _OTHER


class ResourceAllocationScorer:
    """``resourceAllocationScorer``.

    ``use_requested``: True for BalancedAllocation (node ``Requested`` for cpu/memory and the
    pod's raw requests); False for Fit (node ``NonZeroRequested`` for cpu/memory and the pod's
    requests with 100m cpu / 200Mi memory for every container that sets none).
    ``enable_pod_level_resources``: whether pod-level requests replace the container aggregate
    in the pod's requests (see ``pod_request_list``). ``resize_rule``: the release's variant
    of the switch resize-requests-aggregation (how a pod with status resources counts).
    """

    __slots__ = ("name", "scorer", "resources", "use_requested", "enable_pod_level_resources",
                 "resize_rule",
                 "_kinds", "_skip_unrequested", "_cpu_memory_only")

    def __init__(self, name: str, scorer: ScorerFunc, resources: Sequence[ResourceSpec], *,
                 use_requested: bool, enable_pod_level_resources: bool,
                 resize_rule: str = MAX_OF_SUMS) -> None:
        self.name = name
        self.scorer = scorer
        self.resources = tuple(resources)
        self.use_requested = use_requested
        self.enable_pod_level_resources = enable_pod_level_resources
        self.resize_rule = resize_rule
        self._kinds = tuple(_kind(r.name) for r in self.resources)
        # calculateNodeAllocatableRequest: a scalar resource the pod does not request is left
        # out of the vectors (allocatable 0), so it does not weigh in the score.
        self._skip_unrequested = tuple(is_scalar_resource_name(r.name) for r in self.resources)
        # The default resource list (cpu, memory) takes a shortcut in the per-node code.
        self._cpu_memory_only = self._kinds == (_CPU, _MEMORY)

    # ----- per pod -----
    def pod_request_list(self, pod: Pod) -> tuple[int, ...]:
        """``calculatePodResourceRequestList``: the pod's request of each listed resource
        (``calculatePodResourceRequest``): ``PodRequests`` with overhead, pod-level requests
        unless ``SkipPodLevelResources`` (= not ``enable_pod_level_resources``), and, unless
        ``use_requested``, ``NonMissingContainerRequests`` = {cpu: 100m, memory: 200Mi};
        cpu in MilliValue, anything else in Value (both round up)."""
        reqs = pod_requests(
            pod,
            non_missing=None if self.use_requested else DEFAULT_NON_MISSING,
            pod_level_resources=self.enable_pod_level_resources,
            resize_rule=self.resize_rule,
        )
        out = []
        for r in self.resources:
            q = reqs.get(r.name)
            if q is None:
                out.append(0)
            elif r.name == CPU:
                out.append(milli_value(q))
            else:
                out.append(value(q))
        return tuple(out)

    @staticmethod
    def is_best_effort_pod(pod_requests_: Sequence[int]) -> bool:
        """``isBestEffortPod``: every listed request is zero."""
        return not any(pod_requests_)

    # ----- per node -----
    def calculate_node_allocatable_request(
        self, node_info: NodeInfo, pod_requests_: Sequence[int]
    ) -> tuple[list[int], list[int], list[int]]:
        """``calculateNodeAllocatableRequest`` with ``calculateResourceAllocatableRequest``
        inlined: for each listed resource, (node allocated + pod request, node allocated,
        node allocatable), or zeros when the resource is a scalar the pod does not request or
        the node's allocatable is 0.

        Allocated: cpu/memory from ``NonZeroRequested`` (``Requested`` when
        ``use_requested``); ephemeral-storage and scalar resources always from ``Requested``.
        A resource other than cpu/memory/ephemeral-storage counts only if the node lists it
        among its scalar allocatable resources.
        """
        if self._cpu_memory_only:
            return self._cpu_memory_vectors(node_info, pod_requests_)
        n = len(self.resources)
        requested = [0] * n
        allocated = [0] * n
        allocatable = [0] * n
        node_alloc = node_info.node.allocatable
        node_req = node_info.requested
        cpu_mem = node_req if self.use_requested else node_info.non_zero_requested
        kinds = self._kinds
        skip_unrequested = self._skip_unrequested
        resources = self.resources
        for i in range(n):
            pod_req = pod_requests_[i]
            if pod_req == 0 and skip_unrequested[i]:
                continue
            kind = kinds[i]
            if kind == _CPU:
                cap = node_alloc.milli_cpu
                used = cpu_mem.milli_cpu
            elif kind == _MEMORY:
                cap = node_alloc.memory
                used = cpu_mem.memory
            elif kind == _EPHEMERAL:
                cap = node_alloc.ephemeral_storage
                used = node_req.ephemeral_storage
            else:
                name = resources[i].name
                cap = node_alloc.scalar.get(name, 0)
                used = node_req.scalar.get(name, 0) if cap != 0 else 0
            if cap == 0:
                continue
            allocatable[i] = cap
            allocated[i] = used
            requested[i] = wrap_int64(used + pod_req)
        return requested, allocated, allocatable

    def _cpu_memory_vectors(self, node_info: NodeInfo, pod_requests_: Sequence[int]
                            ) -> tuple[list[int], list[int], list[int]]:
        """``calculate_node_allocatable_request`` for resources == (cpu, memory)."""
        alloc = node_info.node.allocatable
        used = node_info.requested if self.use_requested else node_info.non_zero_requested
        cap_cpu = alloc.milli_cpu
        cap_mem = alloc.memory
        used_cpu = used.milli_cpu if cap_cpu != 0 else 0
        used_mem = used.memory if cap_mem != 0 else 0
        req_cpu = used_cpu + pod_requests_[0] if cap_cpu != 0 else 0
        req_mem = used_mem + pod_requests_[1] if cap_mem != 0 else 0
        if not (MIN_INT64 <= req_cpu <= MAX_INT64 and MIN_INT64 <= req_mem <= MAX_INT64):
            req_cpu, req_mem = wrap_int64(req_cpu), wrap_int64(req_mem)
        return [req_cpu, req_mem], [used_cpu, used_mem], [cap_cpu, cap_mem]

    def score(self, node_info: NodeInfo, pod_requests_: Sequence[int]) -> int:
        """``resourceAllocationScorer.score``: Error "resources not found" when no resource
        is configured, else the strategy's score of the node's vectors."""
        if not self.resources:
            raise PluginError("resources not found")
        requested, allocated, allocatable = self.calculate_node_allocatable_request(
            node_info, pod_requests_)
        return self.scorer(requested, allocated, allocatable)
