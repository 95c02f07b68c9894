"""Resource-only pods (every Filter they run is NodeResourcesFit or reads only the node object,
no PreFilter extension runs) and RunFilterPluginsWithNominatedPods for them without copying the
node or the cycle state, per node or from the node columns.

Upstream: ``pkg/scheduler/framework/runtime/framework.go`` RunFilterPluginsWithNominatedPods
and addGENominatedPods; :meth:`Framework.run_filter_plugins_with_nominated_pods` stays the
specification. Why the results are the same: docs/reference.md#fast-paths-for-resource-only-pods.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

import reference_impl.plugins.noderesources.fit as fit_module
from reference_impl.framework.columns import I64, SAFE_BOUND, Mask, NodeColumns
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.node_to_status import RowStatuses
from reference_impl.framework.runtime import Framework
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo, PodInfo, add_requests, next_generation
from reference_impl.model.objects import Pod, Resource
from reference_impl.plugins.nodeaffinity import NodeAffinity
from reference_impl.plugins.nodename import NodeName
from reference_impl.plugins.noderesources.fit_rows import FitRows, fit_rows
from reference_impl.plugins.nodeunschedulable import NodeUnschedulable
from reference_impl.plugins.tainttoleration import TaintToleration

#: Filter plugins whose Filter reads the node object only, never its pods or the state other
#: plugins' PreFilter extensions change (pkg/scheduler/framework/plugins/nodeunschedulable,
#: nodename, tainttoleration, nodeaffinity: node_unschedulable.go, node_name.go,
#: taint_toleration.go, node_affinity.go Filter). Exact classes: a subclass or a copy may read
#: more.
NODE_ONLY_FILTERS: Final = (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity)

#: the RunFilterPluginsWithNominatedPods and addGENominatedPods this module follows; replaced
#: ones (a subclass, a mutant) run as written
SPEC_WITH_NOMINATED: Final = Framework.run_filter_plugins_with_nominated_pods
SPEC_ADD_GE_NOMINATED: Final = Framework.add_ge_nominated_pods


@dataclass(slots=True)
class ResourceOnly:
    """The Filter plugins ``pod`` runs when they are resource-only: the node-only ones as
    (name, filter) pairs in profile order and as plugins, and NodeResourcesFit's name and
    PreFilter state (None when Fit does not run)."""

    node_only: list[tuple[str, Any]]
    node_only_plugins: list[Any]
    fit_name: str
    fit_state: Any


def resource_only(fw: Framework, state: CycleState, pod: Pod) -> ResourceOnly | None:
    """:class:`ResourceOnly` for ``pod`` in the cycle ``state`` of ``fw``, or None when a
    Filter plugin other than NodeResourcesFit and :data:`NODE_ONLY_FILTERS` runs, a PreFilter
    extension runs, NodeResourcesFit has no PreFilter state or checks an in-place resize (it
    then reads the pods), or ``fw``'s RunFilterPluginsWithNominatedPods or addGENominatedPods
    is not the specification."""
    if (type(fw).run_filter_plugins_with_nominated_pods is not SPEC_WITH_NOMINATED
            or type(fw).add_ge_nominated_pods is not SPEC_ADD_GE_NOMINATED):
        return None
    skip = state.skip_filter_plugins
    if any(name not in skip for name in fw.pre_filter_extension_names()):
        return None
    node_only: list[Any] = []
    fit_state = None
    fit_name = ""
    for pl in fw.filter_plugins:
        if pl.name in skip:
            continue
        if type(pl) in NODE_ONLY_FILTERS:
            node_only.append(pl)
        elif type(pl) is fit_module.Fit and not fit_name:
            fit_name = pl.name
            fit_state = state.get(fit_module.PRE_FILTER_STATE_KEY)
            if fit_state is None or (pl.enable_in_place_preemption and pod.node_name):
                return None
        else:
            return None
    return ResourceOnly([(pl.name, pl.filter) for pl in node_only], node_only, fit_name,
                        fit_state)


def requests_of(pi: PodInfo) -> Resource:
    res = pi.pod.resources
    assert res is not None, "pod resources are computed at load time"
    return res.requests


def nominated_runner(fw: Framework, state: CycleState, pod: Pod
                     ) -> Callable[[NodeInfo], Status | None] | None:
    """``fw.run_filter_plugins_with_nominated_pods(state, pod, ·)`` for a resource-only
    ``pod`` (:func:`resource_only`), or None when it is not."""
    if resource_only(fw, state, pod) is None:
        return None
    run = fw.run_filter_plugins
    nominated_for = fw.handle.nominated_pods_for_node
    prio, uid = pod.priority, pod.uid

    def run_with_nominated(ni: NodeInfo) -> Status | None:
        added = [pi for pi in nominated_for(ni.node.name)
                 if pi.pod.priority >= prio and pi.pod.uid != uid]
        if not added:
            return run(state, pod, ni)
        requested = ni.requested.copy()
        for pi in added:
            add_requests(requested, requests_of(pi), 1)
        view = NodeInfo(node=ni.node, pods=ni.pods + added, requested=requested,
                        generation=next_generation())
        s = run(state, pod, view)
        if s is not None and s.code != Code.SUCCESS:
            return s
        return run(state, pod, ni)

    return run_with_nominated


def column_runner(fw: Framework, state: CycleState, pod: Pod, cols: NodeColumns,
                  nominated: Mapping[str, list[PodInfo]],
                  fallback: Callable[[NodeInfo], Status | None],
                  sums: NominatedSums | None = None) -> ColumnRunner | None:
    """``fw.run_filter_plugins_with_nominated_pods(state, pod, ·)`` for a resource-only
    ``pod`` from the node columns (``noderesources/fit_rows.py``): on a node every node-only
    plugin's ``filter_batch`` certainly passes, the status is NodeResourcesFit's, with the
    requests of the node's nominated pods of equal or higher priority added (the filters with
    them reject, or they pass and so do the filters without them); ``fallback`` for the other
    nodes. ``nominated``: the nominator's pods by node (``sums``: their sums kept across
    attempts, :class:`NominatedSums`, else summed here). None when the pod is not
    resource-only, Fit does not run, or a node-only plugin or the columns give no answer."""
    ro = resource_only(fw, state, pod)
    if ro is None or ro.fit_state is None:
        return None
    ok = np.ones(len(cols), dtype=np.bool_)
    for pl in ro.node_only_plugins:
        batch = getattr(pl, "filter_batch", None)
        m = batch(state, pod, cols) if batch is not None else None
        if m is None:
            return None
        ok &= m
    extra = (sums.extra(cols, pod.priority, pod.uid, ok) if sums is not None
             else nominated_extra(cols, nominated, pod.priority, pod.uid, ok))
    rows = fit_rows(ro.fit_state, cols, extra)
    if rows is None:
        return None
    return ColumnRunner(rows, rows.decided & ok, cols.row_of, ro.fit_name, fallback)


class NominatedSums:
    """:func:`nominated_extra` kept up to date across attempts: per preemptor priority, each
    row's sums of the nominated pods of that priority or higher (whatever their uid), a row
    recomputed only when its node is in the nominator's ``change_log`` since the last call
    (``nominated``, ``change_log`` and ``node_of``: the nominator's pods by node, its log and
    its node of a uid); the pod's own nomination is taken out per call. The answer is
    :func:`nominated_extra`'s: only when every row's pods sum exactly in int64 (fewer than
    256, each value within the bound: its first path); otherwise that function runs."""

    def __init__(self, nominated: Mapping[str, list[PodInfo]], change_log: list[str],
                 node_of: Callable[[str], str]) -> None:
        self.nominated, self.change_log, self.node_of = nominated, change_log, node_of
        self._by_prio: dict[int, _PrioRows] = {}
        self._present: tuple[dict[str, int], int, int, Mask] | None = None

    def present(self, cols: NodeColumns) -> Mask:
        """Per row: whether its node has nominated pods (is a key of ``nominated``), kept
        up to date as the sums are. The caller does not change it."""
        kept = self._present
        log = self.change_log
        if kept is None or kept[0] is not cols.row_of or kept[1] != len(cols):
            mask = np.zeros(len(cols), dtype=np.bool_)
            names: Iterable[str] = self.nominated
        else:
            mask = kept[3]
            names = set(log[kept[2]:])
        row_of = cols.row_of
        nominated = self.nominated
        for name in names:
            row = row_of.get(name)
            if row is not None:
                mask[row] = name in nominated
        self._present = (row_of, len(cols), len(log), mask)
        return mask

    def extra(self, cols: NodeColumns, prio: int, uid: str, ok: Mask
              ) -> tuple[I64, I64, I64, I64] | None:
        """:func:`nominated_extra` ``(cols, nominated, prio, uid, ok)``."""
        rows = self._by_prio.get(prio)
        if rows is None or rows.row_of is not cols.row_of or rows.n != len(cols):
            if len(self._by_prio) >= 8:
                self._by_prio.clear()
            rows = self._by_prio[prio] = _PrioRows(cols, prio, self.nominated)
            rows.cursor = len(self.change_log)
        elif rows.cursor < len(self.change_log):
            for name in set(self.change_log[rows.cursor:]):
                rows.update(name, self.nominated)
            rows.cursor = len(self.change_log)
        if rows.inexact:
            return nominated_extra(cols, self.nominated, prio, uid, ok)
        sums = [rows.cpu.copy(), rows.mem.copy(), rows.eph.copy()]
        count = rows.count.copy()
        node = self.node_of(uid)
        row = cols.row_of.get(node) if node else None
        if row is not None:
            for pi in self.nominated.get(node, ()):
                p = pi.pod
                if p.uid == uid and p.priority >= prio and p.resources is not None:
                    r = p.resources.requests
                    sums[0][row] -= r.milli_cpu
                    sums[1][row] -= r.memory
                    sums[2][row] -= r.ephemeral_storage
                    count[row] -= 1
        if not count.any():
            return None
        bad = (sums[0] > SAFE_BOUND) | (sums[1] > SAFE_BOUND) | (sums[2] > SAFE_BOUND)
        return _without_unsafe_rows(sums, count, bad, ok)


class _PrioRows:
    """:class:`NominatedSums` for one priority: the sums by row of one columns' rows."""

    def __init__(self, cols: NodeColumns, prio: int, nominated: Mapping[str, list[PodInfo]]
                 ) -> None:
        self.row_of, self.n, self.prio = cols.row_of, len(cols), prio
        self.cpu, self.mem, self.eph, self.count = (np.zeros(self.n, dtype=np.int64)
                                                    for _ in range(4))
        self.inexact: set[int] = set()  # rows whose sums int64 may not hold exactly
        self.cursor = 0
        for name in nominated:
            self.update(name, nominated)

    def update(self, name: str, nominated: Mapping[str, list[PodInfo]]) -> None:
        row = self.row_of.get(name)
        if row is None:
            return
        cpu = mem = eph = count = 0
        exact = True
        for pi in nominated.get(name, ()):
            p = pi.pod
            if p.priority < self.prio:
                continue
            r = requests_of(pi)
            vals = (r.milli_cpu, r.memory, r.ephemeral_storage)
            if not all(0 <= v <= SAFE_BOUND for v in vals):
                exact = False
            cpu, mem, eph, count = cpu + vals[0], mem + vals[1], eph + vals[2], count + 1
        if not exact or count >= 256:
            self.inexact.add(row)
            cpu = mem = eph = count = 0
        else:
            self.inexact.discard(row)
        self.cpu[row], self.mem[row], self.eph[row], self.count[row] = cpu, mem, eph, count


def nominated_extra(cols: NodeColumns, nominated: Mapping[str, list[PodInfo]], prio: int,
                    uid: str, ok: Mask) -> tuple[I64, I64, I64, I64] | None:
    """Per row: the cpu, memory, ephemeral storage and pod count of the nominated pods that
    addGENominatedPods adds for a pod of priority ``prio`` and uid ``uid`` (equal or higher
    priority, not the pod itself); a row whose sums leave the columns' safe bounds gets
    ``ok[row] = False`` and nothing added. None when no row has any."""
    row_of = cols.row_of
    picked = [(row, p.resources) for node, pods in nominated.items()
              if (row := row_of.get(node)) is not None
              for pi in pods if (p := pi.pod).priority >= prio and p.uid != uid]
    if not picked:
        return None
    rows = [row for row, _ in picked]
    reqs = [r.requests for _, r in picked if r is not None]
    assert len(reqs) == len(picked), "pod resources are computed at load time"
    per_pod = ([r.milli_cpu for r in reqs], [r.memory for r in reqs],
               [r.ephemeral_storage for r in reqs])
    n = len(cols)
    idx = np.array(rows, dtype=np.intp)
    count = np.bincount(idx, minlength=n).astype(np.int64)
    sums: list[I64] = []
    if count.max() < 256 and all(0 <= min(v) and max(v) <= SAFE_BOUND for v in per_pod):
        # fewer than 256 values below 2**55 per row: the int64 sums are exact
        for vals in per_pod:
            acc = np.zeros(n, dtype=np.int64)
            np.add.at(acc, idx, np.array(vals, dtype=np.int64))
            sums.append(acc)
        bad = (sums[0] > SAFE_BOUND) | (sums[1] > SAFE_BOUND) | (sums[2] > SAFE_BOUND)
    else:  # Python's integers
        exact: dict[int, list[int]] = {}
        for k, row in enumerate(rows):
            acc_l = exact.setdefault(row, [0, 0, 0])
            for j in range(3):
                acc_l[j] += per_pod[j][k]
        bad = np.zeros(n, dtype=np.bool_)
        for row, acc_l in exact.items():
            if not all(0 <= v <= SAFE_BOUND for v in acc_l):
                bad[row] = True
                acc_l[:] = [0, 0, 0]
        vals_a = np.array(list(exact.values()), dtype=np.int64)
        at = np.fromiter(exact, dtype=np.intp, count=len(exact))
        for j in range(3):
            acc = np.zeros(n, dtype=np.int64)
            acc[at] = vals_a[:, j]
            sums.append(acc)
    return _without_unsafe_rows(sums, count, bad, ok)


def _without_unsafe_rows(sums: list[I64], count: I64, bad: Mask, ok: Mask
                         ) -> tuple[I64, I64, I64, I64]:
    """The sums with the rows outside the columns' safe bounds (``bad``, or a count over
    them) zeroed and marked not ``ok``: the per-node code decides those."""
    bad = bad | (count > SAFE_BOUND)
    if bad.any():
        ok[bad] = False
        for a in sums:
            a[bad] = 0
        count[bad] = 0
    return sums[0], sums[1], sums[2], count


class ColumnRunner:
    """What :func:`column_runner` returns: called on a node, its status (from the columns on a
    ``decided`` row, else ``fallback``'s); on the decided rows, ``rejected`` tells where the
    status is not None and :meth:`statuses` gives those statuses at once, built when read
    (``framework/vectorised.py`` ColumnAnswers)."""

    __slots__ = ("decided", "rejected", "_rows", "_decided", "_row_of", "_plugin", "_fallback")

    def __init__(self, rows: FitRows, decided: Mask, row_of: Mapping[str, int], plugin: str,
                 fallback: Callable[[NodeInfo], Status | None]) -> None:
        self.decided = decided
        self.rejected = rows.rejected
        self._rows = rows
        self._decided = decided.tolist()
        self._row_of = row_of
        self._plugin = plugin
        self._fallback = fallback

    def __call__(self, ni: NodeInfo) -> Status | None:
        row = self._row_of.get(ni.node.name)
        if row is None or not self._decided[row]:
            return self._fallback(ni)
        s = self._rows.status(row)
        if s is not None:
            s.plugin = self._plugin
        return s

    def statuses(self, rows: npt.NDArray[np.intp], names: list[str]) -> RowStatuses:
        """The statuses of the decided, rejected ``rows`` (named ``names``)."""
        return self._rows.statuses(rows, names, self._plugin)
