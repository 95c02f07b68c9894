"""Pods whose Filter outcome on a node depends on the node's pods only through NodeResourcesFit's
arithmetic, and RunFilterPluginsWithNominatedPods for them without copying the node or the
cycle state.

Upstream's ``RunFilterPluginsWithNominatedPods`` (``pkg/scheduler/framework/runtime/
framework.go``, with ``addGENominatedPods``) adds the nominated pods of equal or higher
priority to ``nodeInfo.Snapshot()`` and runs their PreFilter extensions (AddPod) on
``state.Clone()``, filters, and when that passed filters again without them.
:meth:`Framework.run_filter_plugins_with_nominated_pods` does that and stays the
specification. When every Filter plugin the pod runs (not skipped by its PreFilter) is
NodeResourcesFit or one whose Filter reads only the node object (:data:`NODE_ONLY_FILTERS`),
and no PreFilter extension runs, the state is never changed and the filters read of the node
only its object, its pod list and its requested resources: :func:`nominated_runner` gives them a
NodeInfo with just those (the nominated pods appended, their requests added). Preemption's dry
run uses the same condition (``defaultpreemption/fast_victims.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import reference_impl.plugins.noderesources.fit as fit_module
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.runtime import Framework
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo, PodInfo, add_requests, next_generation
from reference_impl.model.objects import Pod, Resource
from reference_impl.plugins.nodeaffinity import NodeAffinity
from reference_impl.plugins.nodename import NodeName
from reference_impl.plugins.nodeunschedulable import NodeUnschedulable
from reference_impl.plugins.tainttoleration import TaintToleration

#: Filter plugins whose Filter reads the node object only, never its pods or the state other
#: plugins' PreFilter extensions change (pkg/scheduler/framework/plugins/nodeunschedulable,
#: nodename, tainttoleration, nodeaffinity: node_unschedulable.go, node_name.go,
#: taint_toleration.go, node_affinity.go Filter). Exact classes: a subclass or a copy may read
#: more.
NODE_ONLY_FILTERS: Final = (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity)

#: the RunFilterPluginsWithNominatedPods this module follows; a replaced one runs as written
SPEC_WITH_NOMINATED: Final = Framework.run_filter_plugins_with_nominated_pods


@dataclass(slots=True)
class ResourceOnly:
    """The Filter plugins ``pod`` runs when they are resource-only: the node-only ones as
    (name, filter) pairs in profile order, and NodeResourcesFit's PreFilter state (None when
    Fit does not run)."""

    node_only: list[tuple[str, Any]]
    fit_state: Any


def resource_only(fw: Framework, state: CycleState, pod: Pod) -> ResourceOnly | None:
    """:class:`ResourceOnly` for ``pod`` in the cycle ``state`` of ``fw``, or None when a
    Filter plugin other than NodeResourcesFit and :data:`NODE_ONLY_FILTERS` runs, a PreFilter
    extension runs, NodeResourcesFit has no PreFilter state or checks an in-place resize (it
    then reads the pods), or ``fw``'s RunFilterPluginsWithNominatedPods is not the
    specification."""
    if type(fw).run_filter_plugins_with_nominated_pods is not SPEC_WITH_NOMINATED:
        return None
    skip = state.skip_filter_plugins
    if any(name not in skip for name in fw.pre_filter_extension_names()):
        return None
    node_only: list[tuple[str, Any]] = []
    fit_state = None
    seen_fit = False
    for pl in fw.filter_plugins:
        if pl.name in skip:
            continue
        if type(pl) in NODE_ONLY_FILTERS:
            node_only.append((pl.name, pl.filter))
        elif type(pl) is fit_module.Fit and not seen_fit:
            seen_fit = True
            fit_state = state.get(fit_module.PRE_FILTER_STATE_KEY)
            if fit_state is None or (pl.enable_in_place_preemption and pod.node_name):
                return None
        else:
            return None
    return ResourceOnly(node_only, fit_state)


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
