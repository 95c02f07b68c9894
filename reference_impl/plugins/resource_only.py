"""Resource-only pods (every Filter they run is NodeResourcesFit or reads only the node object,
no PreFilter extension runs) and RunFilterPluginsWithNominatedPods for them without copying the
node or the cycle state, per node or from the node columns.

Upstream: ``pkg/scheduler/framework/runtime/framework.go`` RunFilterPluginsWithNominatedPods
and addGENominatedPods; :meth:`Framework.run_filter_plugins_with_nominated_pods` stays the
specification. Why the results are the same: docs/reference.md#fast-paths-for-resource-only-pods.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

import reference_impl.plugins.noderesources.fit as fit_module
from reference_impl.framework.columns import SAFE_BOUND, NodeColumns
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.runtime import Framework
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo, PodInfo, add_requests, next_generation
from reference_impl.model.objects import Pod, Resource
from reference_impl.plugins.nodeaffinity import NodeAffinity
from reference_impl.plugins.nodename import NodeName
from reference_impl.plugins.noderesources.fit_rows import fit_rows
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
                  fallback: Callable[[NodeInfo], Status | None]
                  ) -> Callable[[NodeInfo], Status | None] | None:
    """``fw.run_filter_plugins_with_nominated_pods(state, pod, ·)`` for a resource-only
    ``pod`` from the node columns (``noderesources/fit_rows.py``): on a node every node-only
    plugin's ``filter_batch`` certainly passes, the status is NodeResourcesFit's, with the
    requests of the node's nominated pods of equal or higher priority added (the filters with
    them reject, or they pass and so do the filters without them); ``fallback`` for the other
    nodes. ``nominated``: the nominator's pods by node. None when the pod is not
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
    prio, uid = pod.priority, pod.uid
    sums: dict[int, list[int]] = {}  # row -> cpu, memory, ephemeral storage, pods
    for node, pods in nominated.items():
        row = cols.row_of.get(node)
        if row is None:
            continue
        for pi in pods:
            if pi.pod.priority >= prio and pi.pod.uid != uid:
                req = requests_of(pi)
                acc = sums.setdefault(row, [0, 0, 0, 0])
                acc[0] += req.milli_cpu
                acc[1] += req.memory
                acc[2] += req.ephemeral_storage
                acc[3] += 1
    extra = None
    if sums:
        idx = np.fromiter(sums, dtype=np.intp, count=len(sums))
        for row, acc in sums.items():
            if not all(0 <= v <= SAFE_BOUND for v in acc):
                ok[row] = False
                acc[:] = [0, 0, 0, 0]
        vals = np.array(list(sums.values()), dtype=np.int64)
        cpu, mem, eph, npods = (np.zeros(len(cols), dtype=np.int64) for _ in range(4))
        cpu[idx], mem[idx], eph[idx], npods[idx] = vals[:, 0], vals[:, 1], vals[:, 2], vals[:, 3]
        extra = (cpu, mem, eph, npods)
    rows = fit_rows(ro.fit_state, cols, extra)
    if rows is None:
        return None
    decided = (rows.decided & ok).tolist()
    row_of = cols.row_of
    fit_name = ro.fit_name

    def run(ni: NodeInfo) -> Status | None:
        row = row_of.get(ni.node.name)
        if row is None or not decided[row]:
            return fallback(ni)
        s = rows.status(row)
        if s is not None:
            s.plugin = fit_name
        return s

    return run
