"""NodeResourcesFit's Filter status of every node from the node columns, with the requests of
nominated pods added where a node has them: what ``Fit.filter`` returns for the pod (a pod
without extended-resource requests and not an in-place resize, as ``Fit.filter_batch``).

The per-node code (``fit.py`` ``fits_request`` and ``Fit.filter``; upstream
``pkg/scheduler/framework/plugins/noderesources/fit.go`` fitsRequest and Filter) stays the
specification: the same reasons in the same order ("Too many pods", "Insufficient cpu",
"Insufficient memory", "Insufficient ephemeral-storage") and the same code
(UnschedulableAndUnresolvable when the request alone exceeds the node's allocatable of an
insufficient resource). Rows outside the columns' safe bounds are left to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from reference_impl.framework.columns import I64, SAFE_BOUND, Mask, NodeColumns
from reference_impl.framework.status import Code, Status

REASONS = ("Too many pods", "Insufficient cpu", "Insufficient memory",
           "Insufficient ephemeral-storage")


class FitRows:
    """Per row: whether the columns decide it (``decided``), and for a decided row the Filter
    status (:meth:`status`: None when the pod fits)."""

    __slots__ = ("decided", "_bits", "_unresolvable")

    def __init__(self, decided: Mask, bits: I64, unresolvable: Mask) -> None:
        self.decided = decided
        self._bits = bits.tolist()
        self._unresolvable = unresolvable.tolist()

    def status(self, row: int) -> Status | None:
        """``Fit.filter``'s status for a decided row."""
        bits = self._bits[row]
        if not bits:
            return None
        code = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE if self._unresolvable[row]
                else Code.UNSCHEDULABLE)
        return Status(code, *(r for k, r in enumerate(REASONS) if bits >> k & 1))


def fit_rows(pre_filter_state: Any, cols: NodeColumns,
             extra: tuple[I64, I64, I64, I64] | None = None) -> FitRows | None:
    """The Filter outcome of every row for the pod of ``pre_filter_state`` (Fit's
    ``PreFilterState``); ``extra``: cpu, memory, ephemeral storage and pod count added per
    row (the nominated pods). None when the pod has scalar requests or out-of-bounds ones."""
    s = pre_filter_state
    if s.scalars:
        return None
    r = s.request
    if not all(0 <= v <= SAFE_BOUND for v in (r.milli_cpu, r.memory, r.ephemeral_storage)):
        return None
    req_cpu, req_mem, req_eph, num_pods = cols.req_cpu, cols.req_mem, cols.req_eph, cols.num_pods
    decided = cols.safe.copy()
    if extra is not None:
        for a in extra:
            decided &= (0 <= a) & (a <= SAFE_BOUND)
        req_cpu = req_cpu + extra[0]
        req_mem = req_mem + extra[1]
        req_eph = req_eph + extra[2]
        num_pods = num_pods + extra[3]
    bits = (num_pods + 1 > cols.alloc_pods).astype(np.int64)
    unresolvable = np.zeros(len(cols), dtype=np.bool_)
    if r.milli_cpu or r.memory or r.ephemeral_storage:
        for k, (want, alloc, used) in enumerate(
                ((r.milli_cpu, cols.alloc_cpu, req_cpu), (r.memory, cols.alloc_mem, req_mem),
                 (r.ephemeral_storage, cols.alloc_eph, req_eph)), start=1):
            if want > 0:
                short = want > alloc - used
                bits |= short.astype(np.int64) << k
                unresolvable |= short & (want > alloc)
    return FitRows(decided, bits, unresolvable)
