"""The preemption evaluator: find nodes where evicting lower-priority pods makes room, pick one,
and actuate it.

Upstream: ``pkg/scheduler/framework/preemption/preemption.go`` (Interface, Evaluator, evaluate,
Preempt, findCandidates, callExtenders, SelectCandidate, pickOneNodeForPreemption,
DryRunPreemption, GetVictimsOnNode), ``pkg/scheduler/framework/interface.go``
(NodeToStatus.NodesForStatusCode, NewPostFilterResultWithNominatedNode) and
``pkg/scheduler/framework/types.go`` (FitError.Error). Where upstream is not deterministic,
the outcome the reference picks: docs/reference.md#preemption."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import attrgetter
from typing import Any, Protocol

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.node_to_status import NodeToStatus
from reference_impl.framework.preemption.disruption import PDBStatus, resolve_pdbs
from reference_impl.framework.preemption.executor import Executor
from reference_impl.framework.preemption.schedutil import (
    get_earliest_pod_start_time,
    get_pod_start_time,
)
from reference_impl.framework.preemption.types import (
    POD_KEY_TYPE,
    Candidate,
    CandidateList,
    DomainVictim,
    Victims,
    create_domain_victims,
    new_pod_victim,
)
from reference_impl.framework.runtime import Diagnosis
from reference_impl.framework.status import (
    MODE_OVERRIDE,
    Code,
    NominatingInfo,
    PostFilterResult,
    Status,
)
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Pod

MAX_INT32 = 2**31 - 1
NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"


class Interface(Protocol):
    """``preemption.Interface``: what a preemption plugin supplies to the Evaluator.

    ``select_victims_on_node`` receives the cycle state and node of the snapshot and the node's
    victims. Upstream's caller passes a clone of the state and a copy of the node; here the
    implementation must copy both before changing them. An implementation that sets
    ``lower_priority_victims_only = True`` declares that it ignores victims whose priority is not
    below the preemptor's (DefaultPreemption does), so the Evaluator does not build those.
    """

    lower_priority_victims_only: bool

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]: ...

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]: ...

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None
                                       ) -> tuple[bool, str]: ...

    def select_victims_on_node(self, state: CycleState, preemptor: Pod, node_info: NodeInfo,
                               all_possible_victims: list[DomainVictim],
                               pdbs: Sequence[PDBStatus]
                               ) -> tuple[list[Pod], int, Status | None]: ...

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Victims]
                            ) -> list[Callable[[str], Any]] | None: ...


def new_post_filter_result_with_nominated_node(name: str,
                                               victims: list[Pod] | None = None
                                               ) -> PostFilterResult:
    """``NewPostFilterResultWithNominatedNode``: nominate ``name`` (ModeOverride); "" clears the
    nomination. The reference also reports the victims."""
    return PostFilterResult(NominatingInfo(name, MODE_OVERRIDE), victims)


def nodes_for_status_code(m: Any, nodes: list[NodeInfo], code: Code) -> list[NodeInfo]:
    """``NodeToStatus.NodesForStatusCode``: the nodes whose status (explicit, else the
    absent-nodes status) has ``code``; ``nodes`` is the snapshot's node list."""
    explicit: NodeToStatus = m.node_to_status
    if m.absent_nodes_status.code == code:
        if not explicit:
            return list(nodes)
        code_of = explicit.codes().get
        return [ni for ni in nodes if code_of(ni.node.name, code) == code]
    names = explicit.names_with_code(code)
    return [ni for ni in nodes if ni.node.name in names] if names else []


def fit_error_message(num_all_nodes: int, node_statuses: Diagnosis) -> str:
    """``FitError.Error`` for preemption's FitError (no PreFilter or PostFilter message):
    "0/N nodes are available: <sorted "count reason" histogram>."."""
    msg = NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + ":"
    hist = node_statuses.node_to_status.reason_counts()
    n_explicit = len(node_statuses.node_to_status)
    if n_explicit < num_all_nodes:
        for r in node_statuses.absent_nodes_status.all_reasons():
            hist[r] = hist.get(r, 0) + num_all_nodes - n_explicit
    parts = sorted(f"{v} {k}" for k, v in hist.items())
    if parts:
        msg += " " + ", ".join(parts) + "."
    return msg


def aggregate_error_message(errs: list[str]) -> str | None:
    """``utilerrors.NewAggregate(errs).Error()``: nil for none, the message for one, else the
    distinct messages in order, "[a, b]"."""
    if not errs:
        return None
    if len(errs) == 1:
        return errs[0]
    seen: list[str] = []
    for e in errs:
        if e not in seen:
            seen.append(e)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


class Evaluator:
    """``Evaluator``: runs the preemption logic with a given :class:`Interface`."""

    def __init__(self, plugin_name: str, handle: Any, interface: Interface,
                 executor: Executor) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface
        self.executor = executor

    # ----- Preempt -----
    def preempt(self, state: CycleState, pod: Pod, m: Any
                ) -> tuple[PostFilterResult | None, Status]:
        """``Preempt``: <nil, Error> on errors; <nil, Unschedulable> when the pod may not
        preempt; <result nominating "", Unschedulable> when preemption cannot help;
        <result nominating the node, Success> after actuating the preemption. The Success
        carries "found a potential placement ..." from v1.37 (#140180); v1.34.4–v1.36.3
        (``preemption.go``) return a bare Success (switch preempt-success-message)."""
        best, fit_result, status = self.evaluate(state, pod, m)
        if not status.is_success():
            return fit_result, status
        assert best is not None
        s = self.executor.actuate_pod_preemption(best, pod, self.plugin_name)
        if s is not None and not s.is_success():
            return None, s
        result = new_post_filter_result_with_nominated_node(best.name, list(best.victims.pods))
        if self.handle.behaviour("preempt-success-message") == "none":
            return result, Status(Code.SUCCESS)
        n = len(best.victims.pods)
        return result, Status(Code.SUCCESS, f"found a potential placement for pod on node "
                                            f"{best.name}, preempting {n} victims")

    def evaluate(self, state: CycleState, pod: Pod, m: Any
                 ) -> tuple[Candidate | None, PostFilterResult | None, Status]:
        """``evaluate``: eligibility, candidates, extenders, the best candidate."""
        nominated_status = m.status_of(pod.nominated_node_name)
        ok, msg = self.interface.pod_eligible_to_preempt_others(pod, nominated_status)
        if not ok:
            return None, None, Status(Code.UNSCHEDULABLE, msg)
        all_nodes = self.handle.snapshot().list()
        candidates, node_statuses, err = self.find_candidates(state, all_nodes, pod, m,
                                                              statuses=False)
        if err is not None and not candidates:
            return None, None, Status.as_error(err)
        if not candidates:
            assert node_statuses is not None
            node_statuses.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                       PREEMPTION_NOT_HELPFUL)
            return (None, new_post_filter_result_with_nominated_node(""),
                    Status(Code.UNSCHEDULABLE, fit_error_message(len(all_nodes), node_statuses)))
        candidates, status = self.call_extenders(pod, candidates)
        if status is not None and not status.is_success():
            return None, None, status
        best = self.select_candidate(candidates)
        if best is None or not best.name:
            return None, None, Status(Code.UNSCHEDULABLE, "no candidate node for preemption")
        return best, None, Status(Code.SUCCESS)

    def find_candidates(self, state: CycleState, all_nodes: list[NodeInfo], pod: Pod, m: Any,
                        statuses: bool = True
                        ) -> tuple[list[Candidate], Diagnosis | None, str | None]:
        """``findCandidates``: the Unschedulable nodes, the PDBs, a random offset and the
        number of candidates, then the dry run. ``statuses=False``: the caller reads the
        statuses and errors only when there is no candidate (``evaluate``), so the dry run may
        take the interface's fast path (:meth:`dry_run_preemption`)."""
        if not all_nodes:
            return [], None, "no nodes available"
        potential = nodes_for_status_code(m, all_nodes, Code.UNSCHEDULABLE)
        if not potential:
            return [], Diagnosis(), None
        pdbs = self.pdbs()
        offset, num_candidates = self.interface.get_offset_and_num_candidates(len(potential))
        if not statuses:
            fast = self.fast_dry_run(state, pod, potential, pdbs, offset, num_candidates)
            if fast is not None:
                return fast
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, num_candidates)

    def pdbs(self) -> list[PDBStatus]:
        """``getPodDisruptionBudgets``: the cluster's PDBs with their status."""
        raw = self.handle.pdbs() if hasattr(self.handle, "pdbs") else []
        if not raw:
            return []
        list_pods = getattr(self.handle, "list_pods", None)
        if list_pods is not None:
            pods: Iterable[Pod] = list_pods()
        else:  # the bound and assumed pods of the snapshot, read only if a status is missing
            pods = (pi.pod for ni in self.handle.snapshot().list() for pi in ni.pods)
        return resolve_pdbs(raw, pods)

    def call_extenders(self, pod: Pod, candidates: list[Candidate]
                       ) -> tuple[list[Candidate], Status | None]:
        """``callExtenders``: the reference has no extenders, so the candidates stay."""
        return candidates, None

    # ----- SelectCandidate -----
    def select_candidate(self, candidates: list[Candidate]) -> Candidate | None:
        """``SelectCandidate``: the only candidate, or the one ``pickOneNodeForPreemption``
        picks by the plugin's score functions (or the default criteria)."""
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        victims_map = self.interface.candidates_to_victims_map(candidates)
        score_funcs = self.interface.ordered_score_funcs(victims_map)
        node = pick_one_node_for_preemption(victims_map, score_funcs)
        victims = victims_map.get(node)
        if victims is not None:
            return Candidate(victims, node)
        return candidates[0]

    # ----- DryRunPreemption -----
    def dry_run_preemption(self, state: CycleState, pod: Pod, potential_nodes: list[NodeInfo],
                           pdbs: Sequence[PDBStatus], offset: int, num_candidates: int
                           ) -> tuple[list[Candidate], Diagnosis, str | None]:
        """``DryRunPreemption`` with one worker: candidates (non-violating first), the status
        of each node that is not a candidate, and the aggregated errors."""
        non_violating = CandidateList(num_candidates)
        violating = CandidateList(num_candidates)
        statuses = Diagnosis()  # NewDefaultNodeToStatus
        errs: list[str] = []
        iface = self.interface
        lower_only = getattr(iface, "lower_priority_victims_only", False)
        below = pod.priority if lower_only else None
        n = len(potential_nodes)
        for i in range(n):
            ni = potential_nodes[(offset + i) % n]
            name = ni.node.name
            try:
                victims = self.get_victims_on_node(ni, below)
            except LookupError as e:
                errs.append(str(e))
                continue
            if lower_only:
                pods, num_pdb, status = iface.select_victims_on_node(state, pod, ni, victims,
                                                                     pdbs)
            else:
                pods, num_pdb, status = iface.select_victims_on_node(
                    state.clone(), pod, ni.snapshot_copy(), victims, pdbs)
            ok = status is None or status.is_success()
            if ok and pods:
                if _add_candidate(non_violating, violating, num_candidates,
                                  Candidate(Victims(list(pods), num_pdb), name)):
                    break
                continue
            if ok:
                status = Status.as_error(f'expected at least one victim pod on node "{name}"')
            assert status is not None
            if status.code == Code.ERROR:
                errs.append(status.message())
            statuses.node_to_status[name] = status
        return (non_violating.get() + violating.get(), statuses,
                aggregate_error_message(errs))

    def fast_dry_run(self, state: CycleState, pod: Pod, potential_nodes: list[NodeInfo],
                     pdbs: Sequence[PDBStatus], offset: int, num_candidates: int
                     ) -> tuple[list[Candidate], Diagnosis, str | None] | None:
        """:meth:`dry_run_preemption` with the interface's ``victim_selector`` (DefaultPreemption:
        ``plugins/defaultpreemption/fast_victims.py``): the same nodes in the same order, the
        same candidates and early exit. A node the selector leaves undecided is not a candidate
        and gets no status, so this returns None (the caller runs :meth:`dry_run_preemption`)
        when it finds no candidate; with candidates, ``evaluate`` ignores statuses and errors,
        so they are left out (an empty Diagnosis, no error). None too when the interface has no
        fast path for this pod. A selector with a ``scan`` answers the nodes in turn in one
        generator (no call per node), read until the candidates are found."""
        make = getattr(self.interface, "victim_selector", None)
        if make is None or not getattr(self.interface, "lower_priority_victims_only", False):
            return None
        select = make(state, pod)
        if select is None:
            return None
        non_violating = CandidateList(num_candidates)
        violating = CandidateList(num_candidates)
        below = pod.priority
        victims_on = (self.pod_victims_on_node
                      if type(self).get_victims_on_node is _SPEC_GET_VICTIMS
                      else self.get_victims_on_node)

        def victims_of(ni: NodeInfo) -> list[DomainVictim]:
            return victims_on(ni, below)

        n = len(potential_nodes)
        offset %= n or 1
        spec_select = self.interface.select_victims_on_node
        success = Code.SUCCESS
        order = potential_nodes[offset:] + potential_nodes[:offset]
        scan = getattr(select, "scan", None)
        answers = (scan(order, victims_of, pdbs) if scan is not None
                   else _answers(select, order, victims_of, pdbs))
        for ni, r in zip(order, answers, strict=True):
            if r is None:
                try:
                    r = spec_select(state, pod, ni, victims_on(ni, below), pdbs)
                except LookupError:
                    continue  # an error: not a candidate
            if r.__class__ is not tuple:
                continue  # undecided or an error: not a candidate
            pods, num_pdb, status = r
            if pods and (status is None or status.code == success) and _add_candidate(
                    non_violating, violating, num_candidates,
                    Candidate(Victims(list(pods), num_pdb), ni.node.name)):
                break
        candidates = non_violating.get() + violating.get()
        if not candidates:
            return None
        return candidates, Diagnosis(), None

    def get_victims_on_node(self, node_info: NodeInfo,
                            priority_below: int | None = None) -> list[DomainVictim]:
        """``GetVictimsOnNode`` (GenericWorkload off, or pods without a scheduling group): each
        pod of the node is a victim of its own. With ``priority_below`` only the pods of a lower
        priority are built (for interfaces that ignore the others)."""
        pods = node_info.pods
        if priority_below is not None:
            victims = [new_pod_victim(pi) for pi in pods if pi.pod.priority < priority_below]
        else:
            victims = [new_pod_victim(pi) for pi in pods]
        return create_domain_victims(self.handle.snapshot(), victims)

    def pod_victims_on_node(self, node_info: NodeInfo, priority_below: int) -> list[DomainVictim]:
        """:meth:`get_victims_on_node` for the pods of a lower priority, each victim built once
        (``newDomainVictim`` of one pod: its priority, its start time, the node of the
        snapshot) instead of a ``victim`` and then its ``DomainVictim``. A pod whose
        spec.nodeName is not the node's goes through :meth:`get_victims_on_node`."""
        name = node_info.node.name
        pods = [pi for pi in node_info.pods if pi.pod.priority < priority_below]
        if not pods:
            return []
        if any(pi.pod.node_name != name for pi in pods):
            return self.get_victims_on_node(node_info, priority_below)
        ni = self.handle.snapshot().get(name)
        if ni is None:
            raise LookupError(f'failed to get node info for node "{name}" from snapshot: '
                              f'nodeinfo not found for node name "{name}"')
        return [DomainVictim([pi], pi.pod.priority, get_pod_start_time(pi.pod), POD_KEY_TYPE,
                             {name: ni}) for pi in pods]


def _answers(select: Callable[..., Any], nodes: list[NodeInfo],
             victims_of: Callable[[NodeInfo], list[DomainVictim]], pdbs: Sequence[PDBStatus]
             ) -> Iterator[Any]:
    """A victim selector's answers for ``nodes`` in turn, lazily, a LookupError as an
    answer that is not a tuple (the selector's ``scan``, for a selector without one)."""
    for ni in nodes:
        try:
            yield select(ni, victims_of, pdbs)
        except LookupError as err:
            yield err


#: the GetVictimsOnNode :meth:`Evaluator.pod_victims_on_node` stands in for; a replaced one
#: runs as written
_SPEC_GET_VICTIMS = Evaluator.get_victims_on_node


def _add_candidate(non_violating: CandidateList, violating: CandidateList, num_candidates: int,
                   c: Candidate) -> bool:
    """DryRunPreemption's checkNode for a candidate: into the non-violating list (no PDB
    violation) or the violating one; True when the dry run can stop (``cancel()``): a
    non-violating candidate and ``num_candidates`` in all."""
    if c.victims.num_pdb_violations == 0:
        non_violating.add(c)
    else:
        violating.add(c)
    added = non_violating.idx + 1  # a list's size is at most what was added to it
    if added <= 0 or added + violating.idx + 1 < num_candidates:
        return False
    return non_violating.size() + violating.size() >= num_candidates


def pick_one_node_for_preemption(nodes_to_victims: dict[str, Victims],
                                 score_funcs: list[Callable[[str], Any]] | None) -> str:
    """``pickOneNodeForPreemption``: apply the score functions in order, keeping the nodes
    with the highest score, until one node is left; else the first remaining node.

    Default functions (victims are ordered by decreasing importance): fewest PDB violations;
    lowest highest-victim priority; smallest sum of victim priorities (each shifted by
    MaxInt32+1); fewest victims; latest earliest start time among the highest-priority victims.
    """
    if not nodes_to_victims:
        return ""
    all_candidates = list(nodes_to_victims)
    if not score_funcs:
        return _pick_by_default_criteria(nodes_to_victims, all_candidates)
    for f in score_funcs:
        all_candidates = _highest(all_candidates, [f(node) for node in all_candidates])
        if len(all_candidates) == 1:
            return all_candidates[0]
    return all_candidates[0]


def _highest(nodes: list[str], scores: list[Any]) -> list[str]:
    """The nodes with the highest score (pickOneNodeForPreemption's loop over one function:
    a strictly higher score restarts the selection, an equal one joins it)."""
    best = max(scores)
    return [n for n, s in zip(nodes, scores, strict=True) if s == best]


def _pick_by_default_criteria(nodes_to_victims: dict[str, Victims], nodes: list[str]) -> str:
    """pickOneNodeForPreemption's default score functions, in order, each computed for the
    nodes still selected in their order (as upstream calls them)."""
    vs = [nodes_to_victims[n] for n in nodes]
    for criterion in range(5):
        if criterion == 0:  # minNumPDBViolatingScoreFunc
            scores: list[Any] = [-v.num_pdb_violations for v in vs]
        elif criterion == 1:  # minHighestPriorityScoreFunc
            scores = [-v.pods[0].priority for v in vs]
        elif criterion == 2:  # minSumPrioritiesScoreFunc: each priority shifted by MaxInt32+1
            scores = [-(sum(map(_priority, v.pods)) + len(v.pods) * (MAX_INT32 + 1))
                      for v in vs]
        elif criterion == 3:  # minNumPodsScoreFunc
            scores = [-len(v.pods) for v in vs]
        else:  # latestStartTimeScoreFunc
            scores = [_latest_start_time(v) for v in vs]
        best = max(scores)
        if min(scores) != best:  # else every node stays
            keep = [i for i, s in enumerate(scores) if s == best]
            nodes = [nodes[i] for i in keep]
            vs = [vs[i] for i in keep]
        if len(nodes) == 1:
            return nodes[0]
    return nodes[0]


_priority = attrgetter("priority")


def _latest_start_time(v: Victims) -> Any:
    t = get_earliest_pod_start_time(v.pods)
    return (-1, 0) if t is None else t  # math.MinInt64: below every start time
