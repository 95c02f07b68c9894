"""The cpu/memory resource-allocation scores over node columns (NodeResourcesFit's LeastAllocated,
NodeResourcesBalancedAllocation) for ``score_batch``.

The per-node operations elementwise, in the same order: ``resource_allocation.py``
``_cpu_memory_vectors`` (resource_allocation.go calculateNodeAllocatableRequest),
``least_allocated.py`` (least_allocated.go: int64, non-negative operands, so ``//`` is Go's
truncation) and ``balanced_allocation.py`` (balanced_allocation.go balancedResourceScore: the
same float64 operations; ``astype(int64)`` truncates as Go's conversion). Rows where the
per-node code takes another branch (zero or negative numbers, unsafe rows) are exceptions the
caller scores per node.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from reference_impl.framework.columns import I64, SAFE_BOUND, Mask, NodeColumns
from reference_impl.framework.interfaces import MAX_NODE_SCORE

F64 = npt.NDArray[np.float64]


def cpu_memory_vectors(cols: NodeColumns, rows: npt.NDArray[np.intp], pod_cpu: int,
                       pod_mem: int, use_requested: bool
                       ) -> tuple[I64, I64, I64, I64, I64, I64, Mask] | None:
    """``_cpu_memory_vectors`` for every row: (requested cpu, requested memory, allocated cpu,
    allocated memory, allocatable cpu, allocatable memory, exceptions). Exceptions: rows not
    ``safe`` or with a negative number. None when the pod's requests are out of bounds."""
    if not (0 <= pod_cpu <= SAFE_BOUND and 0 <= pod_mem <= SAFE_BOUND):
        return None
    cap_cpu = cols.alloc_cpu[rows]
    cap_mem = cols.alloc_mem[rows]
    used_cpu = (cols.req_cpu if use_requested else cols.nz_cpu)[rows]
    used_mem = (cols.req_mem if use_requested else cols.nz_mem)[rows]
    has_cpu = cap_cpu != 0
    has_mem = cap_mem != 0
    used_cpu = np.where(has_cpu, used_cpu, 0)
    used_mem = np.where(has_mem, used_mem, 0)
    req_cpu = np.where(has_cpu, used_cpu + pod_cpu, 0)
    req_mem = np.where(has_mem, used_mem + pod_mem, 0)
    exceptions = ~cols.safe[rows] | (cap_cpu < 0) | (cap_mem < 0) | (used_cpu < 0) | (used_mem < 0)
    return req_cpu, req_mem, used_cpu, used_mem, cap_cpu, cap_mem, exceptions


def least_requested_score(requested: I64, capacity: I64) -> I64:
    """``leastRequestedScore`` for non-negative operands: 0 when capacity is 0 or exceeded."""
    ok = (capacity != 0) & (requested <= capacity)
    safe_cap = np.where(capacity == 0, 1, capacity)
    return np.where(ok, (capacity - requested) * MAX_NODE_SCORE // safe_cap, 0)


def least_allocated_scores(req_cpu: I64, req_mem: I64, cap_cpu: I64, cap_mem: I64,
                           w_cpu: int, w_mem: int) -> I64:
    """``leastResourceScorer`` over (cpu, memory) with positive weights: the weighted mean
    (int64 division) over the resources with non-zero allocatable; 0 when there is none."""
    has_cpu = cap_cpu != 0
    has_mem = cap_mem != 0
    node_score = (np.where(has_cpu, least_requested_score(req_cpu, cap_cpu) * w_cpu, 0)
                  + np.where(has_mem, least_requested_score(req_mem, cap_mem) * w_mem, 0))
    weight_sum = np.where(has_cpu, w_cpu, 0) + np.where(has_mem, w_mem, 0)
    return np.where(weight_sum == 0, 0, node_score // np.where(weight_sum == 0, 1, weight_sum))


def balanced_resource_score(req_cpu: I64, req_mem: I64, cap_cpu: I64, cap_mem: I64) -> I64:
    """``balancedResourceScore`` for two resources with non-zero allocatable (the caller
    excepts the other rows)."""
    f0: F64 = req_cpu.astype(np.float64) / cap_cpu.astype(np.float64)
    f0 = np.where(f0 > 1, 1.0, f0)
    f1: F64 = req_mem.astype(np.float64) / cap_mem.astype(np.float64)
    f1 = np.where(f1 > 1, 1.0, f1)
    return ((1 - np.abs((f0 - f1) / 2)) * float(MAX_NODE_SCORE)).astype(np.int64)


def balanced_scores(req_cpu: I64, req_mem: I64, used_cpu: I64, used_mem: I64, cap_cpu: I64,
                    cap_mem: I64, delta: bool) -> I64:
    """``balancedResourceScorer``: with ``delta`` (v1.36 on) ``50 + (50 + withPod -
    withoutPod) / 2`` in int64 (truncating), else the score with the pod."""
    safe_cpu = np.where(cap_cpu == 0, 1, cap_cpu)
    safe_mem = np.where(cap_mem == 0, 1, cap_mem)
    with_pod = balanced_resource_score(req_cpu, req_mem, safe_cpu, safe_mem)
    if not delta:
        return with_pod
    without_pod = balanced_resource_score(used_cpu, used_mem, safe_cpu, safe_mem)
    half = MAX_NODE_SCORE // 2
    x = half + with_pod - without_pod
    return half + np.where(x < 0, -((-x) // 2), x // 2)
