"""``SelectVictimsOnNode`` without copying the node or the cycle state, for the dry run of a
resource-only preemptor (``plugins/resource_only.py``), on running sums of requested resources
and pod count, with each node's answer kept across dry runs while its inputs are the same.

Upstream: ``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``
SelectVictimsOnNode, called by ``pkg/scheduler/framework/preemption/preemption.go``
DryRunPreemption; :meth:`DefaultPreemption.select_victims_on_node` stays the specification.
Why the results are the same: docs/reference.md#fast-paths-for-resource-only-pods.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import is_
from typing import Any, Final, cast

import numpy as np

import reference_impl.plugins.noderesources.fit as fit_module
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.preemption.disruption import PDBStatus
from reference_impl.framework.preemption.types import DomainVictim, Victim, ViolatingVictim
from reference_impl.framework.runtime import Framework
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo, add_requests
from reference_impl.model.objects import Node, Pod, Resource
from reference_impl.plugins.resource_only import requests_of, resource_only


class _Undecided:
    """The type of :data:`UNDECIDED`."""

    def __repr__(self) -> str:
        return "UNDECIDED"


#: not a candidate; its status is left to the specification (the Filter status after removing
#: every victim)
UNDECIDED: Final = _Undecided()


class FastSelect:
    """The fast ``select_victims_on_node`` of one preemptor: called on a node (its NodeInfo,
    its victims' builder and the PDBs), its answer: the victims, the number of PDB violations
    and the status; UNDECIDED; or None (run the specification); a LookupError raises.
    ``scan(nodes, victims_of, pdbs)``: the answers for the nodes in turn, lazily (the dry run
    stops when it has its candidates), a LookupError as :class:`Failed`."""

    __slots__ = ("scan",)

    def __init__(self, scan: Callable[[Iterable[NodeInfo], Callable[[NodeInfo],
                                       list[DomainVictim]], Sequence[PDBStatus]],
                                      Iterator[Any]]) -> None:
        self.scan = scan

    def __call__(self, ni: NodeInfo, victims_of: Callable[[NodeInfo], list[DomainVictim]],
                 pdbs: Sequence[PDBStatus]) -> SelectResult | _Undecided | None:
        r = next(self.scan((ni,), victims_of, pdbs))
        if r.__class__ is Failed:
            raise r.err
        return cast("SelectResult | _Undecided | None", r)

ERR_NO_VICTIMS = "No preemption victims found for incoming pod"

SelectResult = tuple[list[Pod], int, Status | None]


class Failed:
    """A node whose victims could not be listed (the LookupError, ``err``)."""

    __slots__ = ("err",)

    def __init__(self, err: LookupError) -> None:
        self.err = err


ScanResult = SelectResult | _Undecided | Failed | None
Selector = Callable[[NodeInfo, Callable[[NodeInfo], list[DomainVictim]], Sequence[PDBStatus]],
                    "SelectResult | _Undecided | None"]


class _NodeView:
    """What ``fits_request`` reads of a NodeInfo (in-place resize checks excluded by
    ``resource_only``): the node, its requested resources and its number of pods
    (``len(pods)``)."""

    __slots__ = ("node", "requested", "pods")

    def __init__(self, node: Node, requested: Resource, num_pods: int) -> None:
        self.node = node
        self.requested = requested
        self.pods = range(num_pods)


#: no nominated pod (kept in the cache: not a list the nominator could change)
NONE: Final[list[Any]] = []


def node_only_masks(fw: Framework, state: CycleState, pod: Pod, plugins: list[Any]
                    ) -> tuple[dict[str, int], list[NodeInfo], list[bool]] | None:
    """Where the node-only Filter ``plugins`` certainly pass ``pod``, from their
    ``filter_batch`` masks over the snapshot's node columns: the columns' rows by node name,
    their NodeInfos and the mask as a list (a node of row ``row`` passes when its NodeInfo is
    ``infos[row]`` and ``ok[row]``; otherwise run them); None when a plugin has no mask or
    there are no columns."""
    columns = getattr(fw.handle.snapshot(), "columns", None)
    if columns is None:
        return None
    cols = columns()
    ok = np.ones(len(cols), dtype=np.bool_)
    for pl in plugins:
        batch = getattr(pl, "filter_batch", None)
        m = batch(state, pod, cols) if batch is not None else None
        if m is None:
            return None
        ok &= m
    return cols.row_of, cols.infos, ok.tolist()


def victim_selector(plugin: Any, fw: Framework, state: CycleState, preemptor: Pod,
                    sort_slice: Callable[[list[Any], Callable[[Any, Any], bool]], None],
                    filter_pdb: Callable[[Sequence[Victim], Sequence[PDBStatus]],
                                         tuple[list[ViolatingVictim], list[Victim]]],
                    cache: dict[str, Any] | None = None,
                    ) -> Selector | None:
    """The fast ``select_victims_on_node`` of DefaultPreemption ``plugin`` for ``preemptor``
    in the cycle ``state`` of framework ``fw``, or None when the preemptor is not
    resource-only. ``sort_slice`` and ``filter_pdb`` are the plugin module's (the functions
    its own code calls). ``cache`` (the plugin's, kept across dry runs; None: no cache): a
    node's answer is reused while everything it is computed from is the same: the snapshot's
    NodeInfo object, its node object and its generation (every pod added or removed changes
    it), the preemptor's priority and NodeResourcesFit request, and the nominated pods the
    filters add (the same PodInfo objects); never with PDBs (their allowed disruptions change
    as pods go) or DRA-delegated resources. The caller passes a cache only when victims are
    eligible by priority alone (the default ``IsEligiblePod``)."""
    ro = resource_only(fw, state, preemptor)
    if ro is None:
        return None
    node_only, fit_state = ro.node_only, ro.fit_state
    run_filters = fw.run_filter_plugins
    allowed = plugin.is_preemption_allowed_across_all_victim_nodes
    more_important = plugin.more_important_victim
    prio, uid = preemptor.priority, preemptor.uid
    req_key: Any = None
    if fit_state is not None:
        if fit_state.dra is not None and fit_state.scalars:
            cache = None  # DRA-delegated scalars: DeviceClasses decide, not the node
        r = fit_state.request
        req_key = (r.milli_cpu, r.memory, r.ephemeral_storage, tuple(sorted(r.scalar.items())),
                   fit_state.scalars)

    def fits(node: Node, requested: Resource, num_pods: int) -> bool:
        if fit_state is None:
            return True
        view = cast(NodeInfo, _NodeView(node, requested, num_pods))
        return not fit_module.fits_request(fit_state, view)

    # the node-only filters certainly pass on a node of row ``row`` when ``infos[row] is ni
    # and ok_rows[row]`` (row_of None: no masks, run the filters)
    masks = node_only_masks(fw, state, preemptor, ro.node_only_plugins) if node_only else None
    row_of, infos, ok_rows = masks if masks is not None else (None, [], [])
    nominated_for = fw.handle.nominated_pods_reader()
    cache_get = cache.get if cache is not None else None

    def scan(nodes: Iterable[NodeInfo], victims_of: Callable[[NodeInfo], list[DomainVictim]],
             pdbs: Sequence[PDBStatus]) -> Iterator[ScanResult]:
        """The answer for each node of ``nodes`` in turn (a LookupError as :class:`Failed`)."""
        caching = cache_get is not None and not pdbs
        for ni in nodes:
            try:
                main = ni.node.name
                if node_only:
                    row = row_of.get(main) if row_of is not None else None
                    if row is None or infos[row] is not ni or not ok_rows[row]:
                        s = run_filters(state, preemptor, ni, node_only)
                        if s is not None and s.code != Code.SUCCESS:
                            yield UNDECIDED  # whatever the victims: the filters fail without them
                            continue
                noms = nominated_for(main)
                nominated = [pi for pi in noms  # addGENominatedPods
                             if pi.pod.priority >= prio and pi.pod.uid != uid] if noms else NONE
                if caching:
                    e = cache_get(main)  # type: ignore[misc]
                    if (e is not None and e[0] is ni and e[1] is ni.node
                            and e[2] == ni.generation and e[3] == req_key and e[4] == prio
                            and len(e[5]) == len(nominated)
                            and (not nominated or all(map(is_, e[5], nominated)))):
                        yield e[6]  # a result tuple is never changed: the caller copies its pods
                        continue
                r = _select(ni, victims_of(ni), pdbs, nominated)
                if caching and r is not None:
                    assert cache is not None
                    cache[main] = (ni, ni.node, ni.generation, req_key, prio, nominated, r)
            except LookupError as err:
                yield Failed(err)
                continue
            yield r

    def _select(ni: NodeInfo, all_possible_victims: list[DomainVictim],
                pdbs: Sequence[PDBStatus], nominated: list[Any]
                ) -> SelectResult | _Undecided | None:
        potential = [v for v in all_possible_victims if allowed(v, preemptor)]
        if not potential:
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NO_VICTIMS)
        node = ni.node
        main = node.name
        requested = ni.requested.copy()
        num_pods = len(ni.pods)
        for v in potential:
            for pi in v.pods:
                if pi.pod.node_name != main:
                    return None
                add_requests(requested, requests_of(pi), -1)
                num_pods -= 1
        for pi in nominated:
            add_requests(requested, requests_of(pi), 1)
            num_pods += 1
        if not fits(node, requested, num_pods):
            return UNDECIDED

        sort_slice(potential, more_important)
        violating, non_violating = filter_pdb(potential, pdbs)
        victims: list[Victim] = []

        def reprieve(v: Victim) -> bool:
            nonlocal num_pods
            for pi in v.pods:
                add_requests(requested, requests_of(pi), 1)
            num_pods += len(v.pods)
            if fits(node, requested, num_pods):
                return True
            for pi in v.pods:
                add_requests(requested, requests_of(pi), -1)
            num_pods -= len(v.pods)
            victims.append(v)
            return False

        num_violating = 0
        for vv in violating:
            if not reprieve(vv.victim):
                num_violating += vv.violate_count
        for nv in non_violating:
            reprieve(nv)
        if violating and non_violating:
            sort_slice(victims, more_important)
        return [pi.pod for v in victims for pi in v.pods], num_violating, None

    return FastSelect(scan)
