"""One scheduling attempt for one pod: the scheduling cycle and the binding cycle.

Upstream: ``pkg/scheduler/schedule_one.go`` (scheduleOnePod, schedulingCycle, schedulingAlgorithm,
schedulePod, findNodesThatFitPod, evaluateNominatedNode, findNodesThatPassFilters,
numFeasibleNodesToFind, prioritizeNodes, assume, bindingCycle, handleBindingCycleError,
handleSchedulingFailure) and ``pkg/scheduler/framework/types.go`` (FitError).

Upstream filters nodes in parallel (``parallelism`` workers) and stops at the first feasible node
past ``numFeasibleNodesToFind``, so *which* nodes are examined depends on goroutine timing once a
cluster has 100 nodes or more. The reference models upstream run with parallelism 1: nodes are
examined one by one from ``nextStartNodeIndex``, which is deterministic.
"""

from __future__ import annotations

import dataclasses
import operator
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from reference_impl.framework import vectorised
from reference_impl.framework.columns import Mask, NodeColumns
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.node_to_status import RowStatuses
from reference_impl.framework.runtime import Diagnosis, Framework, ScoredNode, scored_nodes
from reference_impl.framework.snapshot import Snapshot
from reference_impl.framework.status import (
    MODE_OVERRIDE,
    Code,
    NominatingInfo,
    Status,
)
from reference_impl.framework.types import NodeInfo, PodInfo
from reference_impl.model.objects import Pod
from reference_impl.plugins.resource_only import NominatedSums, column_runner, nominated_runner
from reference_impl.scheduler.batch import OpportunisticBatch
from reference_impl.scheduler.nominator import Nominator
from reference_impl.scheduler.select_host import (
    HEAP,
    NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT,
    RESERVOIR,
    SortedScoredNodes,
    heap_top,
    select_host_reservoir,
)

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"

BOUND = "Bound"
UNSCHEDULABLE = "Unschedulable"
ERROR = "Error"
GATED = "Gated"
NOMINATED = "Nominated"  # unschedulable now; preemption nominated a node (and evicted victims)


class FitError(Exception):
    """``framework.FitError``: no node fits; carries the diagnosis."""

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    def message(self) -> str:
        """``FitError.Error``: "0/N nodes are available: <histogram>." plus PostFilter text."""
        d = self.diagnosis
        msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            hist = d.node_to_status.reason_counts()
            absent = self.num_all_nodes - len(d.node_to_status)
            if absent > 0:
                for r in d.absent_nodes_status.all_reasons():
                    hist[r] = hist.get(r, 0) + absent
            parts = sorted(f"{v} {k}" for k, v in hist.items())
            if parts:
                msg += " " + ", ".join(parts) + "."
        if d.post_filter_msg:
            msg += " " + d.post_filter_msg
        return msg

    __str__ = message


@dataclass(slots=True)
class ScheduleResult:
    suggested_host: str
    evaluated_nodes: int
    feasible_nodes: int
    scored: list[ScoredNode] | None = None  # None when the one-feasible-node shortcut was taken
    feasible: list[str] = field(default_factory=list)
    #: the highest-scored nodes, when the totals came as an array (``scored`` is None then)
    tied: list[str] | None = None


@dataclass(slots=True)
class Attempt:
    """What one scheduling attempt did, for the SimulationResult."""

    pod: str
    outcome: str
    node: str | None = None
    message: str = ""
    reasons: Mapping[str, list[str]] = field(default_factory=dict)
    nominated_node: str | None = None
    candidates: list[str] = field(default_factory=list)  # the highest-scored (tied) nodes
    victims: list[str] = field(default_factory=list)  # pods preempted for this pod
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    #: the assumed pod forgotten when the binding cycle failed (``handleBindingCycleError``),
    #: not part of the result
    forgotten: Pod | None = field(default=None, compare=False, repr=False)
    #: the binding cycle set the pod's nominatedNodeName to the node before it failed
    #: (NominatedNodeNameForExpectation; the failure handler clears it again)
    nominated_for_binding: bool = field(default=False, compare=False, repr=False)


def num_feasible_nodes_to_find(percentage: int, num_all_nodes: int) -> int:
    """``numFeasibleNodesToFind``: all nodes below 100; else the percentage (adaptive
    50 - n/125, at least 5, when 0) of nodes, at least 100."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage == 0:
        percentage = 50 - num_all_nodes // 125
        if percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    num_nodes = num_all_nodes * percentage // 100
    if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return MIN_FEASIBLE_NODES_TO_FIND
    return num_nodes


class SchedulingCore:
    """The parts of upstream's ``Scheduler`` that one attempt uses: snapshot (cache), profiles,
    nextStartNodeIndex, the nominator, the batching state and the global percentage.
    ``select_host`` is the release's variant of the ``select-host`` switch
    (reference_impl/scheduler/select_host.py); ``rng`` is the scheduler's seeded random source,
    which the ``reservoir`` variant draws from."""

    def __init__(self, snapshot: Snapshot, profiles: dict[str, Framework],
                 percentage_of_nodes_to_score: int, nominator: Nominator,
                 batching: bool = True, select_host: str = HEAP,
                 rng: random.Random | None = None) -> None:
        if select_host not in (HEAP, RESERVOIR):
            raise ValueError(f"unknown select-host variant {select_host!r}")
        if select_host == RESERVOIR and rng is None:
            raise ValueError("the reservoir variant of select-host needs a random source")
        self.snapshot = snapshot
        self.profiles = profiles
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.next_start_node_index = 0
        self.nominator = nominator
        self.batching = batching
        self.batches: dict[str, OpportunisticBatch] = {}  # one per profile, as upstream
        self.scheduling_cycle = 0
        self.record_scores = False  # keep raw/normalized per-plugin scores (explain)
        self.select_host = select_host
        self.rng = rng
        self._sums: NominatedSums | None = None

    def _nominated_sums(self) -> NominatedSums:
        """The nominated pods' sums by node row (``resource_only.NominatedSums``) of the
        current nominator, kept across attempts."""
        nom = self.nominator
        sums = self._sums
        if sums is None or sums.nominated is not nom.nominated_pods \
                or sums.change_log is not nom.change_log:
            sums = self._sums = NominatedSums(nom.nominated_pods, nom.change_log,
                                              nom.nominated_node_of_uid)
        return sums

    def batch_of(self, fwk: Framework) -> OpportunisticBatch | None:
        if not self.batching:
            return None
        b = self.batches.get(fwk.profile_name)
        if b is None:
            b = self.batches[fwk.profile_name] = OpportunisticBatch()
        return b

    # ----- schedulePod -----
    def schedule_pod(self, fwk: Framework, state: CycleState, pod: Pod,
                     signature: str | None = None) -> ScheduleResult:
        """``schedulePod``, after the ``UpdateSnapshot`` that ``schedulingCycle`` starts with:
        raises FitError, or RuntimeError for an Error status. The host is the heap's top, or
        (``reservoir``, v1.34.4 ``schedulePod``) ``selectHost``'s pick, whose top-nodes list
        upstream discards; v1.34.4 has no batching (its gate does not exist), so nothing is
        stored for a hint then."""
        self.snapshot.update_snapshot()
        if self.snapshot.num_nodes() == 0:
            raise NoNodesAvailable()
        batch = self.batch_of(fwk)
        feasible, diagnosis, hint = self.find_nodes_that_fit_pod(fwk, state, pod, signature)
        if not feasible:
            raise FitError(pod, self.snapshot.num_nodes(), diagnosis)
        if len(feasible) == 1:
            node = feasible[0].node.name
            if batch is not None:
                batch.store_schedule_results(signature, hint, node, None, self.scheduling_cycle)
            return ScheduleResult(node, 1 + len(diagnosis.node_to_status), 1, None, [node])
        detail = self.record_scores or (batch is not None and signature is not None)
        totals = self.prioritize(fwk, state, pod, feasible, detail)
        evaluated = len(feasible) + len(diagnosis.node_to_status)
        if (isinstance(totals, np.ndarray) and self.select_host != RESERVOIR
                and signature is None):
            # no batch keeps the heap and no detail is asked: the heap's top from the totals
            top = heap_top(totals)
            node = feasible[top].node.name
            if batch is not None:
                batch.store_schedule_results(signature, hint, node, None, self.scheduling_cycle)
            names = [ni.node.name for ni in feasible]
            tied = [names[i] for i in np.flatnonzero(totals == totals[top]).tolist()]
            return ScheduleResult(node, evaluated, len(feasible), None, names, tied)
        scored = (scored_nodes(feasible, totals) if isinstance(totals, np.ndarray) else totals)
        if self.select_host == RESERVOIR:
            assert self.rng is not None
            node, _ = select_host_reservoir(scored, NUMBER_OF_HIGHEST_SCORED_NODES_TO_REPORT,
                                            self.rng.randrange)
        elif signature is None and len(scored) >= vectorised.MIN_NODES:
            # no batch keeps the heap: only its top matters (the same node, without the heap)
            node = scored[heap_top([s.total for s in scored])].name
            if batch is not None:
                batch.store_schedule_results(signature, hint, node, None, self.scheduling_cycle)
        else:
            heap = SortedScoredNodes(scored)
            node = heap.pop().name
            if batch is not None:
                batch.store_schedule_results(signature, hint, node, heap, self.scheduling_cycle)
        return ScheduleResult(node, evaluated, len(feasible), scored,
                              [ni.node.name for ni in feasible])

    def find_nodes_that_fit_pod(self, fwk: Framework, state: CycleState, pod: Pod,
                                signature: str | None) -> tuple[list[NodeInfo], Diagnosis, str]:
        """``findNodesThatFitPod``: PreFilter, the nominated (or hinted) node first, then the
        search from nextStartNodeIndex."""
        diagnosis = Diagnosis()
        all_nodes = self.snapshot.list()
        pre_res, s, unsched_plugins = fwk.run_pre_filter_plugins(state, pod)
        diagnosis.unschedulable_plugins = set(unsched_plugins)
        if s is not None and not s.is_success():
            if not s.is_rejected():
                raise SchedulingError(s.message())
            diagnosis.absent_nodes_status = s
            diagnosis.pre_filter_msg = s.message()
            diagnosis.add_plugin_status(s)
            return [], diagnosis, ""

        hint = ""
        batch = self.batch_of(fwk)
        if batch is not None:
            hint = batch.get_node_hint(fwk, pod, signature, state, self.scheduling_cycle)

        if pod.nominated_node_name or hint:
            feasible = self.evaluate_nominated_node(fwk, state, pod, hint, diagnosis)
            if feasible:
                return feasible, diagnosis, hint

        nodes = all_nodes
        if pre_res is not None and pre_res.node_names is not None:
            # Upstream iterates a Go map here (random order); the reference keeps node order.
            names = pre_res.node_names
            nodes = [ni for ni in all_nodes if ni.node.name in names]
            # Upstream's message lists the set RunPreFilterPlugins returned, which is the very
            # set diagnosis.UnschedulablePlugins holds (a Go map, shared): the plugins that
            # rejected the nominated node in evaluateNominatedNode are in it too.
            diagnosis.absent_nodes_status = Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                "node(s) didn't satisfy plugin(s) "
                f"[{' '.join(sorted(diagnosis.unschedulable_plugins))}]")
        feasible, error = self._pass_filters(fwk, state, pod, diagnosis, nodes)
        # "always try to update the sched.nextStartNodeIndex regardless of whether an error has
        # occurred"
        processed = len(feasible) + len(diagnosis.node_to_status)
        if all_nodes:
            self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        if error is not None:
            raise SchedulingError(error.message())
        return feasible, diagnosis, hint

    def evaluate_nominated_node(self, fwk: Framework, state: CycleState, pod: Pod, hint: str,
                                diagnosis: Diagnosis) -> list[NodeInfo]:
        """``evaluateNominatedNode``: the nominated node (else the batch hint) alone."""
        name = pod.nominated_node_name or hint
        ni = self.snapshot.get(name)
        if ni is None:
            return []
        feasible, error = self._pass_filters(fwk, state, pod, diagnosis, [ni])
        if error is not None:
            return []  # upstream logs the error and goes on with the full search
        return feasible

    def find_nodes_that_pass_filters(self, fwk: Framework, state: CycleState, pod: Pod,
                                     diagnosis: Diagnosis, nodes: list[NodeInfo]
                                     ) -> list[NodeInfo]:
        """The feasible nodes; a Filter Error raises SchedulingError."""
        feasible, error = self._pass_filters(fwk, state, pod, diagnosis, nodes)
        if error is not None:
            raise SchedulingError(error.message())
        return feasible

    def _pass_filters(self, fwk: Framework, state: CycleState, pod: Pod,
                      diagnosis: Diagnosis, nodes: list[NodeInfo]
                      ) -> tuple[list[NodeInfo], Status | None]:
        """``findNodesThatPassFilters`` with one worker: nodes checked in order from
        nextStartNodeIndex; the search stops at the first feasible node beyond
        numNodesToFind (that node is dropped and not counted as processed)."""
        n = len(nodes)
        pct = fwk.percentage_of_nodes_to_score
        to_find = num_feasible_nodes_to_find(
            self.percentage_of_nodes_to_score if pct is None else pct, n)
        if not fwk.has_score_plugins():
            to_find = 1
        start = self.next_start_node_index
        if not fwk.has_filter_plugins():
            return [nodes[(start + i) % n] for i in range(to_find)], None
        nominated_any = self.nominator.has_any()
        if n >= vectorised.MIN_NODES and nodes is self.snapshot.list():
            found = self._pass_filters_vectorised(fwk, state, pod, nodes, start, to_find,
                                                  nominated_any)
            if found is not None:
                feasible, failed, error = found
                if isinstance(failed, RowStatuses):
                    diagnosis.node_to_status.add_rows(failed)
                    if len(failed):  # one plugin, every status rejected
                        diagnosis.add_plugin_status(Status(failed.code(0), plugin=failed.plugin))
                    return feasible, error
                for name, st in failed:
                    diagnosis.node_to_status[name] = st
                    diagnosis.add_plugin_status(st)
                return feasible, error
        feasible = []
        failed = []
        if nominated_any:
            run = nominated_runner(fwk, state, pod) or partial(
                fwk.run_filter_plugins_with_nominated_pods, state, pod)
        else:
            run = partial(fwk.run_filter_plugins, state, pod)
        error = None
        for i in range(n):
            ni = nodes[(start + i) % n]
            s = run(ni)
            if s is None or s.code == Code.SUCCESS:
                if len(feasible) + 1 > to_find:
                    break
                feasible.append(ni)
            elif s.code == Code.ERROR:
                error = s
                break
            else:
                failed.append((ni.node.name, s))
        for name, st in failed:
            diagnosis.node_to_status[name] = st
            diagnosis.add_plugin_status(st)
        return feasible, error

    def _pass_filters_vectorised(
        self, fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo], start: int,
        to_find: int, nominated_any: bool,
    ) -> tuple[list[NodeInfo], list[tuple[str, Status]] | RowStatuses, Status | None] | None:
        """The loop of ``_pass_filters`` over the snapshot's node list with the plugins' batch
        masks (reference_impl/framework/vectorised.py): the same feasible nodes, failed
        statuses (as :class:`RowStatuses` when the node columns answer every node,
        ``vectorised.search_columns``) and Error. None when no plugin has a batch mask."""
        cols = self.snapshot.columns()
        mask, remaining, masks = vectorised.filter_masks(
            [(pl.name, pl) for pl in fwk.filter_plugins], state, pod, cols)
        if not masks:
            return None
        if nominated_any:  # the nodes with nominated pods: the full filters
            mask[self._nominated_sums().present(cols)] = False
            run_full = nominated_runner(fwk, state, pod) or partial(
                fwk.run_filter_plugins_with_nominated_pods, state, pod)
        else:
            run_full = partial(fwk.run_filter_plugins, state, pod)
        runner = None
        if len(mask) - int(np.count_nonzero(mask)) >= COLUMN_STATUSES_MIN:
            runner = column_runner(
                fwk, state, pod, cols, self.nominator.nominated_pods if nominated_any else {},
                run_full, self._nominated_sums() if nominated_any else None)
            if runner is not None:
                if not remaining:
                    found = vectorised.search_columns(nodes, mask, start, to_find, runner,
                                                      cols.remember, cols.name_array())
                    if found is not None:
                        return found[0], found[1], None
                run_full = runner
        if runner is None and len(remaining) == 1:
            found = _search_rows(fwk, remaining[0][0], state, pod, cols, nodes, mask, start,
                                 to_find, run_full)
            if found is not None:
                return found[0], found[1], None
        run_remaining = None
        if remaining:
            run_fn = fwk.run_filter_plugins

            def run_remaining(ni: NodeInfo) -> Status | None:
                return run_fn(state, pod, ni, remaining)
        return vectorised.search_feasible(nodes, mask, start, to_find, run_full, run_remaining,
                                          cols.remember)

    def prioritize_nodes(self, fwk: Framework, state: CycleState, pod: Pod,
                         nodes: list[NodeInfo], detail: bool = True) -> list[ScoredNode]:
        """``prioritizeNodes`` (no extenders): PreScore, Score; without Score plugins every
        node scores 1."""
        scored = self.prioritize(fwk, state, pod, nodes, detail)
        return scored_nodes(nodes, scored) if isinstance(scored, np.ndarray) else scored

    def prioritize(self, fwk: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                   detail: bool = True) -> list[ScoredNode] | np.ndarray:
        """``prioritize_nodes``, whose totals come as one array when Score runs vectorised
        (``Framework.score``)."""
        if not fwk.has_score_plugins():
            return [ScoredNode(ni.node.name, 1) for ni in nodes]
        s = fwk.run_pre_score_plugins(state, pod, nodes)
        if s is not None and not s.is_success():
            raise SchedulingError(s.message())
        scored, s = fwk.score(state, pod, nodes, detail)
        if s is not None and not s.is_success():
            raise SchedulingError(s.message())
        assert scored is not None
        return scored


#: from this many nodes the batch masks reject on, their statuses come from the node columns
#: when the pod is resource-only (plugins/resource_only.py column_runner)
COLUMN_STATUSES_MIN = 32


def _search_rows(
    fwk: Framework, name: str, state: CycleState, pod: Pod, cols: NodeColumns,
    nodes: list[NodeInfo], mask: Mask, start: int, to_find: int,
    run_full: Callable[[NodeInfo], Status | None],
) -> tuple[list[NodeInfo], RowStatuses] | None:
    """The vectorised search when one Filter plugin is left after the batch masks and it gives
    its verdict on every row (``filter_rows``, vectorised.FilterRows): the whole search on
    arrays (``vectorised.search_columns``), that plugin's statuses as :class:`RowStatuses`.
    None when it gives none, or when a node outside ``mask`` would need the per-node filters."""
    plugin = next(pl for pl in fwk.filter_plugins if pl.name == name)
    rows_fn = getattr(plugin, "filter_rows", None)  # FilterRows (isinstance is slow)
    verdicts = rows_fn(state, pod, cols) if rows_fn is not None else None
    if verdicts is None:
        return None
    runner = vectorised.RowRunner(verdicts, name, mask, run_full)
    return vectorised.search_columns(nodes, mask & ~runner.rejected, start, to_find, runner,
                                     cols.remember, cols.name_array())


class NoNodesAvailable(Exception):
    """``ErrNoNodesAvailable``."""

    def __str__(self) -> str:
        return ERR_NO_NODES_AVAILABLE


class SchedulingError(Exception):
    """A plugin returned an Error status; the attempt ends with a SchedulerError."""


_POD_FIELDS = tuple(f.name for f in dataclasses.fields(Pod))
_pod_values = operator.attrgetter(*_POD_FIELDS)


def assumed_copy(pod: Pod, host: str) -> Pod:
    """``assume``: a copy of the pod with spec.nodeName set (the queued object is untouched).
    ``dataclasses.replace(pod, node_name=host, nominated_node_name="")``, field by field
    (Pod has no ``__post_init__`` nor init=False field; a subclass goes through replace)."""
    if type(pod) is not Pod:
        return dataclasses.replace(pod, node_name=host, nominated_node_name="")
    new = object.__new__(Pod)
    for name, v in zip(_POD_FIELDS, _pod_values(pod), strict=True):
        object.__setattr__(new, name, v)
    new.node_name = host
    new.nominated_node_name = ""
    return new


def clear_nomination() -> NominatingInfo:
    return NominatingInfo("", MODE_OVERRIDE)


__all__ = [
    "Attempt", "BOUND", "ERROR", "FitError", "GATED", "NoNodesAvailable", "PodInfo",
    "ScheduleResult", "SchedulingCore", "SchedulingError", "UNSCHEDULABLE", "assumed_copy",
    "clear_nomination", "num_feasible_nodes_to_find",
]
