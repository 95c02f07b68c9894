"""Node columns: the snapshot's per-node numbers as NumPy arrays, for vectorised Filter and Score.

Not an upstream structure (upstream filters and scores nodes on 16 goroutines,
``pkg/scheduler/schedule_one.go``); every column is read from the ``NodeInfo`` field the per-node
code reads. Row ``i`` is ``snapshot.list()[i]``; the columns are rebuilt when the node list
changes (``structure_version``) and otherwise updated row by row from ``change_log``. A row
with a number beyond ``SAFE_BOUND`` is not ``safe``: batch methods leave it to the per-node
code. See docs/reference.md#vectorised-filter-and-score.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Protocol

import numpy as np
import numpy.typing as npt

from reference_impl.framework.types import NodeInfo

SAFE_BOUND = 1 << 55

I64 = npt.NDArray[np.int64]
Mask = npt.NDArray[np.bool_]

#: the int64 columns, in the order ``_row`` returns them
INT_COLUMNS = ("alloc_cpu", "alloc_mem", "alloc_eph", "alloc_pods", "req_cpu", "req_mem",
               "req_eph", "nz_cpu", "nz_mem", "num_pods")


class NodeSource(Protocol):
    """What the columns read of ``Snapshot`` (reference_impl/framework/snapshot.py)."""

    structure_version: int
    change_log: list[str]

    def list(self) -> list[NodeInfo]: ...


def _row(ni: NodeInfo) -> tuple[tuple[int, ...], bool, bool, bool]:
    """One node's numbers (``INT_COLUMNS`` order), whether it is unschedulable, whether it has
    taints, and whether every number is within ``SAFE_BOUND``."""
    a = ni.node.allocatable
    r = ni.requested
    z = ni.non_zero_requested
    vals: tuple[int, ...] = (a.milli_cpu, a.memory, a.ephemeral_storage, a.allowed_pod_number,
                             r.milli_cpu, r.memory, r.ephemeral_storage, z.milli_cpu, z.memory,
                             len(ni.pods))
    safe = all(-SAFE_BOUND <= v <= SAFE_BOUND for v in vals)
    if not safe:
        vals = (0,) * len(INT_COLUMNS)
    return vals, bool(ni.node.unschedulable), bool(ni.node.taints), safe


class NodeColumns:
    """The columns of one node list; ``refresh`` brings them up to date with the snapshot."""

    alloc_cpu: I64
    alloc_mem: I64
    alloc_eph: I64
    alloc_pods: I64
    req_cpu: I64
    req_mem: I64
    req_eph: I64
    nz_cpu: I64
    nz_mem: I64
    num_pods: I64
    unschedulable: Mask
    has_taints: Mask
    safe: Mask

    def __init__(self, snapshot: NodeSource) -> None:
        self._snapshot = snapshot
        self._version = -1
        self._cursor = 0
        self.infos: list[NodeInfo] = []
        self.row_of: dict[str, int] = {}
        self._remembered: tuple[list[NodeInfo], npt.NDArray[np.intp]] | None = None
        self._labels: dict[str, tuple[npt.NDArray[np.intp], list[str]]] = {}
        self._label_index: dict[str, dict[str, int]] = {}
        self._names: npt.NDArray[np.object_] | None = None
        self._rebuild([])

    def __len__(self) -> int:
        return len(self.infos)

    def refresh(self) -> NodeColumns:
        """Rebuild after a node-set change, else update the rows of the nodes in the change log
        since the last refresh. Returns self."""
        snap = self._snapshot
        infos = snap.list()
        if snap.structure_version != self._version or infos is not self.infos:
            self._rebuild(infos)
            self._version = snap.structure_version
            self._cursor = len(snap.change_log)
            return self
        log = snap.change_log
        if self._cursor < len(log):
            row_of = self.row_of
            for name in set(log[self._cursor:]):
                i = row_of.get(name)
                if i is not None:
                    self._set_row(i, infos[i])
            self._cursor = len(log)
        return self

    def _rebuild(self, infos: list[NodeInfo]) -> None:
        self.infos = infos
        self._remembered = None
        self._labels = {}
        self._label_index = {}
        self._names = None
        self.row_of = {ni.node.name: i for i, ni in enumerate(infos)}
        rows = [_row(ni) for ni in infos]
        n = len(rows)
        ints = np.array([r[0] for r in rows], dtype=np.int64).reshape(n, len(INT_COLUMNS))
        for k, name in enumerate(INT_COLUMNS):
            setattr(self, name, np.ascontiguousarray(ints[:, k]))
        self.unschedulable = np.array([r[1] for r in rows], dtype=np.bool_)
        self.has_taints = np.array([r[2] for r in rows], dtype=np.bool_)
        self.safe = np.array([r[3] for r in rows], dtype=np.bool_)

    def _set_row(self, i: int, ni: NodeInfo) -> None:
        vals, unsched, tainted, safe = _row(ni)
        for name, v in zip(INT_COLUMNS, vals, strict=True):
            getattr(self, name)[i] = v
        self.unschedulable[i] = unsched
        self.has_taints[i] = tainted
        self.safe[i] = safe

    def label_codes(self, key: str) -> tuple[npt.NDArray[np.intp], list[str]]:
        """The nodes' values of label ``key``: per row an index into the returned list of
        distinct values, -1 where the node lacks the label. Kept until the next rebuild (a
        node's labels change only with ``structure_version``)."""
        got = self._labels.get(key)
        if got is None:
            index: dict[str, int] = {}
            codes = np.fromiter(
                (-1 if (v := ni.node.labels.get(key)) is None else index.setdefault(v, len(index))
                 for ni in self.infos), dtype=np.intp, count=len(self.infos))
            got = self._labels[key] = (codes, list(index))
        return got

    def label_hits(self, key: str, counts: Mapping[str, int]) -> Mask:
        """Per row: the node has label ``key`` and ``counts`` holds a positive count for its
        value (one lookup per counted value, not per node)."""
        codes, values = self.label_codes(key)
        index = self._label_index.get(key)
        if index is None:
            index = self._label_index[key] = {v: i for i, v in enumerate(values)}
        hit = np.zeros(len(values) + 1, dtype=np.bool_)  # the last entry: code -1, no label
        for value, n in counts.items():
            if n > 0:
                j = index.get(value)
                if j is not None:
                    hit[j] = True
        return hit[codes]

    def name_array(self) -> npt.NDArray[np.object_]:
        """The nodes' names by row, kept until the next rebuild (a row's node keeps its
        name)."""
        if self._names is None:
            self._names = np.array(list(self.row_of), dtype=object)
        return self._names

    def remember(self, nodes: list[NodeInfo], rows: npt.NDArray[np.intp]) -> None:
        """Keep the rows of a list of nodes (the feasible nodes the search found), for
        ``rows_of`` of that very list."""
        self._remembered = (nodes, rows)

    def rows_of(self, nodes: list[NodeInfo]) -> npt.NDArray[np.intp] | None:
        """The rows of ``nodes``, or None if one of them is not this snapshot's NodeInfo (a
        copy, or a node of another list)."""
        kept = self._remembered
        if kept is not None and kept[0] is nodes and len(nodes) == len(kept[1]):
            # every row's NodeInfo is the very one in the list (is_ pairwise, in C)
            if all(map(operator.is_, map(self.infos.__getitem__, kept[1].tolist()), nodes)):
                return kept[1]
        row_of = self.row_of
        infos = self.infos
        out = np.empty(len(nodes), dtype=np.intp)
        for k, ni in enumerate(nodes):
            i = row_of.get(ni.node.name)
            if i is None or infos[i] is not ni:
                return None
            out[k] = i
        return out
