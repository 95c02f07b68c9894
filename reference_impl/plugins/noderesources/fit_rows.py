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
import numpy.typing as npt

from reference_impl.framework.columns import I64, SAFE_BOUND, Mask, NodeColumns
from reference_impl.framework.node_to_status import RowStatuses
from reference_impl.framework.status import Code, Status

REASONS = ("Too many pods", "Insufficient cpu", "Insufficient memory",
           "Insufficient ephemeral-storage")


class FitRows:
    """Per row: whether the columns decide it (``decided``), and for a decided row the Filter
    status (:meth:`status`: None when the pod fits; ``rejected``: the rows where it is not),
    or the statuses of many rejected rows at once (:meth:`statuses`)."""

    __slots__ = ("decided", "rejected", "_bits_np", "_unresolvable_np", "_bits",
                 "_unresolvable")

    def __init__(self, decided: Mask, bits: I64, unresolvable: Mask) -> None:
        self.decided = decided
        self.rejected: Mask = bits != 0
        self._bits_np = bits
        self._unresolvable_np = unresolvable
        self._bits: list[int] | None = None
        self._unresolvable: list[bool] | None = None

    def status(self, row: int) -> Status | None:
        """``Fit.filter``'s status for a decided row."""
        if self._bits is None or self._unresolvable is None:
            self._bits = self._bits_np.tolist()
            self._unresolvable = self._unresolvable_np.tolist()
        bits = self._bits[row]
        if not bits:
            return None
        code = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE if self._unresolvable[row]
                else Code.UNSCHEDULABLE)
        return Status(code, *(r for k, r in enumerate(REASONS) if bits >> k & 1))

    def statuses(self, rows: npt.NDArray[np.intp], names: list[str], plugin: str
                 ) -> RowStatuses:
        """The statuses (:meth:`status`, by ``plugin``) of the decided, rejected ``rows``,
        named ``names``, built when read."""
        codes = np.where(self._unresolvable_np[rows], int(Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
                         int(Code.UNSCHEDULABLE)).astype(np.int64)
        return RowStatuses(names, codes, self._bits_np[rows], REASONS, plugin)


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
