"""The preemption package: evaluator, executor, victims, PDB classification and status, sorting.

Cases restate upstream v1.37.2 ``pkg/scheduler/framework/preemption``:
``preemption_test.go`` (TestDryRunPreemption, TestSelectCandidate), ``util_test.go``
(TestFilterVictimsWithPDBViolation, TestMoreImportantVictim, TestPodTerminatingByPreemption),
``types_test.go`` (TestNewVictim), ``executor_test.go`` (TestIsPodRunningPreemption,
TestPrepareCandidate, TestPrepareCandidateAsyncSetsPreemptingSets, TestAsyncPreemptionFailure),
each citing its test. Pod-group cases (no PodGroups in the model), extender cases (no extenders)
and API-call details (patch errors, NotFound, async API calls, metrics) are left out. The
remaining tests check the reference's own modelling of nondeterministic or external parts
(NodesForStatusCode order, FitError text, the disruption controller's count, Go's sort).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from reference_impl.api.labels import compile_selector
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.preemption.disruption import (
    PDBStatus,
    get_scaled_value_from_int_or_percent,
    resolve_pdbs,
)
from reference_impl.framework.preemption.executor import Executor
from reference_impl.framework.preemption.gosort import sort_slice
from reference_impl.framework.preemption.preemption import (
    Evaluator,
    aggregate_error_message,
    fit_error_message,
    nodes_for_status_code,
    pick_one_node_for_preemption,
)
from reference_impl.framework.preemption.schedutil import (
    get_earliest_pod_start_time,
    get_pod_start_time,
    more_important_pod,
    time_before,
)
from reference_impl.framework.preemption.types import (
    COMPOSITE_POD_GROUP_KEY_TYPE,
    POD_GROUP_KEY_TYPE,
    POD_KEY_TYPE,
    Candidate,
    CandidateList,
    Victim,
    Victims,
    new_victim,
)
from reference_impl.framework.preemption.util import (
    filter_victims_with_pdb_violation,
    more_important_victim,
    pod_terminating_by_preemption,
)
from reference_impl.framework.runtime import Diagnosis, Framework, FrameworkHandle
from reference_impl.framework.snapshot import Snapshot
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo, PodInfo
from reference_impl.model.objects import (
    Container,
    LabelSelector,
    Node,
    OwnerReference,
    Pod,
    PodDisruptionBudget,
    Resource,
)
from reference_impl.model.requests import compute_pod_resources
from reference_impl.releases import current

LOW, MID, HIGH = 10, 100, 1000  # preemption_test.go lowPriority, midPriority, highPriority


def make_pod(name: str, *, uid: str | None = None, ns: str = "", priority: int = 0,
             node: str = "", labels: dict[str, str] | None = None, start: float | None = None,
             terminating: bool = False, containers: int = 0) -> Pod:
    pod = Pod(ns, name, uid if uid is not None else name, labels=dict(labels or {}),
              node_name=node, priority=priority, start_time=start,
              deletion_timestamp=1.0 if terminating else None,
              containers=tuple(Container(f"container{i + 1}") for i in range(containers)))
    pod.resources = compute_pod_resources(pod)
    return pod


def make_node(name: str) -> Node:
    return Node(name, allocatable=Resource(500, 500, 0, 32))


class Env:
    """A framework without PostFilter plugins, as the upstream evaluator tests build."""

    def __init__(self, nodes: list[Node], pods: list[Pod], *, fail_delete: tuple[str, ...] = (),
                 nominated: dict[str, list[Pod]] | None = None) -> None:
        self.snapshot = Snapshot(nodes, pods)
        self.attempted: list[str] = []
        self.deleted: list[str] = []
        self.cleared: list[str] = []
        nominated = nominated or {}

        def delete_pod(victim: Pod, preemptor: Pod) -> Status | None:
            self.attempted.append(victim.name)
            if victim.name.startswith(fail_delete) if fail_delete else False:
                return Status.as_error("delete pod failed")
            self.deleted.append(victim.name)
            return None

        self.handle = FrameworkHandle(
            self.snapshot, current.feature_enabled, 16,
            nominated_pods_for_node=lambda n: [PodInfo(p) for p in nominated.get(n, [])],
            rng=random.Random(0), delete_pod=delete_pod,
            clear_nominated_node_name=lambda p: self.cleared.append(p.name))
        self.fw = Framework("default-scheduler", {}, {}, {}, self.handle)


def pdb(match: dict[str, str] | None, allowed: int, ns: str = "default",
        disrupted: tuple[str, ...] = (), empty_selector: bool = False) -> PDBStatus:
    sel = LabelSelector() if empty_selector else LabelSelector(
        match_labels=tuple(sorted((match or {}).items())))
    return PDBStatus(ns, "pdb", compile_selector(sel), allowed, frozenset(disrupted))


# ----- preemption_test.go TestDryRunPreemption / TestSelectCandidate ---------------------------

class FakePostFilterPlugin:
    """preemption_test.go FakePostFilterPlugin: the node's first pod is the victim."""

    lower_priority_victims_only = False

    def __init__(self, num_violating_victim: int = 0) -> None:
        self.num_violating_victim = num_violating_victim

    def select_victims_on_node(self, state: CycleState, preemptor: Pod, node_info: NodeInfo,
                               victims: list, pdbs: Sequence[PDBStatus]
                               ) -> tuple[list[Pod], int, Status | None]:
        return [node_info.pods[0].pod], self.num_violating_victim, None

    def get_offset_and_num_candidates(self, n: int) -> tuple[int, int]:
        return 0, n

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        return {}

    def pod_eligible_to_preempt_others(self, pod: Pod, status: Status | None
                                       ) -> tuple[bool, str]:
        return True, ""

    def ordered_score_funcs(self, m: dict[str, Victims]) -> None:
        return None


class FakePreemptionScorePostFilterPlugin(FakePostFilterPlugin):
    """preemption_test.go FakePreemptionScorePostFilterPlugin: one PDB violation per node;
    candidates scored by the fewest containers of their victims."""

    def __init__(self) -> None:
        super().__init__(1)

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        return {c.name: c.victims for c in candidates}

    def ordered_score_funcs(self, m: dict[str, Victims]) -> list:
        def fewest_containers(node: str) -> int:
            return -sum(len(p.containers) + len(p.init_containers) for p in m[node].pods)
        return [fewest_containers]


@pytest.mark.parametrize("name,num_violating", [
    ("no pdb violation", 0), ("pdb violation on each node", 1)])
def test_dry_run_preemption_fake_plugin(name: str, num_violating: int) -> None:
    """preemption_test.go TestDryRunPreemption."""
    nodes = [make_node("node1"), make_node("node2")]
    init = [make_pod("p1", node="node1", priority=MID), make_pod("p2", node="node2", priority=MID)]
    env = Env(nodes, init)
    ev = Evaluator("FakePostFilter", env.handle, FakePostFilterPlugin(num_violating),
                   Executor(env.handle, False))
    infos = sorted(env.snapshot.list(), key=lambda ni: ni.node.name)
    got, _, err = ev.dry_run_preemption(CycleState(), make_pod("p", priority=HIGH), infos, [],
                                        0, len(infos))
    assert err is None
    assert sorted((c.name, [p.name for p in c.victims.pods], c.victims.num_pdb_violations)
                  for c in got) == [("node1", ["p1"], num_violating),
                                    ("node2", ["p2"], num_violating)]


def test_select_candidate_with_plugin_score_funcs() -> None:
    """preemption_test.go TestSelectCandidate "pod has different number of containers on each
    node": OrderedScoreFuncs replace the default criteria."""
    nodes = [make_node(n) for n in ("node1", "node2", "node3")]
    pods = [make_pod("p1.1", node="node1", priority=MID, containers=2),
            make_pod("p2.1", node="node2", priority=MID, containers=1),
            make_pod("p3.1", node="node3", priority=MID, containers=3)]
    env = Env(nodes, pods)
    ev = Evaluator("FakePreemptionScorePostFilter", env.handle,
                   FakePreemptionScorePostFilterPlugin(), Executor(env.handle, False))
    infos = env.snapshot.list()
    for pod in pods:
        cands, _, _ = ev.dry_run_preemption(CycleState(), pod, infos, [], 0, len(infos))
        best = ev.select_candidate(cands)
        assert best is not None and best.name == "node2"


# ----- util_test.go TestFilterVictimsWithPDBViolation ------------------------------------------

def _victim(*pods: Pod) -> Victim:
    return Victim([PodInfo(p) for p in pods], 0, None, POD_KEY_TYPE)


V_NO_MATCH = _victim(make_pod("p1", labels={"app": "foo"}))
V_MATCH = _victim(make_pod("p1", ns="default", labels={"app": "foo"}))
V_MATCH2 = _victim(make_pod("p2", ns="default", labels={"app": "foo"}))
V_GROUP = _victim(make_pod("p1", ns="default", labels={"app": "foo"}),
                  make_pod("p2", ns="default", labels={"app": "foo"}))
V_MULTI = _victim(make_pod("p1", ns="default", labels={"app": "foo", "tier": "backend"}))

PDB_CASES = [
    ("no victims, no PDBs", [], [], [], []),
    ("victim with no matching PDBs", [V_NO_MATCH], [pdb({"app": "bar"}, 0)], [], [V_NO_MATCH]),
    ("victim matching PDB, adequate DisruptionsAllowed", [V_MATCH], [pdb({"app": "foo"}, 1)],
     [], [V_MATCH]),
    ("victim matching PDB, no DisruptionsAllowed", [V_MATCH], [pdb({"app": "foo"}, 0)],
     [(V_MATCH, 1)], []),
    ("podgroup victim with multiple pods, all violating", [V_GROUP], [pdb({"app": "foo"}, 0)],
     [(V_GROUP, 2)], []),
    ("podgroup victim with multiple pods, none violating", [V_GROUP], [pdb({"app": "foo"}, 2)],
     [], [V_GROUP]),
    ("multiple victims matching the same PDB", [V_MATCH, V_MATCH2], [pdb({"app": "foo"}, 1)],
     [(V_MATCH2, 1)], [V_MATCH]),
    ("pod in DisruptedPods is ignored", [V_MATCH], [pdb({"app": "foo"}, 0, disrupted=("p1",))],
     [], [V_MATCH]),
    ("PDB with empty selector", [V_MATCH], [pdb(None, 0, empty_selector=True)], [], [V_MATCH]),
    ("Multiple PDBs", [V_MULTI], [pdb({"app": "foo"}, 1), pdb({"tier": "backend"}, 0)],
     [(V_MULTI, 1)], []),
]


@pytest.mark.parametrize("name,victims,pdbs,want_violating,want_non", PDB_CASES,
                         ids=[c[0] for c in PDB_CASES])
def test_filter_victims_with_pdb_violation(name: str, victims: list, pdbs: list,
                                           want_violating: list, want_non: list) -> None:
    """util_test.go TestFilterVictimsWithPDBViolation."""
    violating, non = filter_victims_with_pdb_violation(victims, pdbs)
    assert [(v.victim, v.violate_count) for v in violating] == want_violating
    assert non == want_non


def test_filter_victims_nil_selector_and_no_labels() -> None:
    """FilterVictimsWithPDBViolation: a nil selector (LabelSelectorAsSelector(nil) = Nothing)
    and a pod without labels never match."""
    nil_sel = PDBStatus("default", "pdb", compile_selector(None), 0)
    bare = _victim(make_pod("p", ns="default"))
    everything = pdb(None, 0, empty_selector=True)
    assert filter_victims_with_pdb_violation([V_MATCH], [nil_sel]) == ([], [V_MATCH])
    assert filter_victims_with_pdb_violation([bare], [everything]) == ([], [bare])


# ----- util_test.go TestMoreImportantVictim ----------------------------------------------------

NOW = (0, 1000.0)
BEFORE = (0, 500.0)
ONE = [PodInfo(make_pod("a"))]
TWO = [PodInfo(make_pod("a")), PodInfo(make_pod("b"))]
PK, PG, CPG = POD_KEY_TYPE, POD_GROUP_KEY_TYPE, COMPOSITE_POD_GROUP_KEY_TYPE

MORE_IMPORTANT_CASES = [
    ("vi1 has higher priority", (20, [], None, PK), (10, [], None, PK), True),
    ("vi2 has higher priority", (10, [], None, PK), (20, [], None, PK), False),
    ("vi1 is PG, vi2 is Pod, same priority", (10, ONE, None, PG), (10, ONE, None, PK), True),
    ("vi1 is Pod, vi2 is PG, same priority", (10, ONE, None, PK), (10, ONE, None, PG), False),
    ("both Pods, vi1 older", (10, ONE, BEFORE, PK), (10, ONE, NOW, PK), True),
    ("both Pods, vi2 older", (10, ONE, NOW, PK), (10, ONE, BEFORE, PK), False),
    ("both PGs, vi1 larger", (10, TWO, None, PG), (10, ONE, None, PG), True),
    ("both PGs, vi2 larger", (10, ONE, None, PG), (10, TWO, None, PG), False),
    ("both PGs, same size, vi1 older", (10, TWO, BEFORE, PG), (10, TWO, NOW, PG), True),
    ("both PGs, same size, vi2 older", (10, TWO, NOW, PG), (10, TWO, BEFORE, PG), False),
    ("CPG vs Pod, same priority (CPG wins)", (10, ONE, None, CPG), (10, ONE, None, PK), True),
    ("Pod vs CPG, same priority (CPG wins)", (10, ONE, None, PK), (10, ONE, None, CPG), False),
    ("CPG vs PG, same priority (CPG wins)", (10, ONE, None, CPG), (10, ONE, None, PG), True),
    ("PG vs CPG, same priority (CPG wins)", (10, ONE, None, PG), (10, ONE, None, CPG), False),
    ("CPG vs PG, PG higher priority (higher priority wins)", (10, ONE, None, CPG),
     (20, ONE, None, PG), False),
    ("PG vs CPG, PG higher priority (higher priority wins)", (20, ONE, None, PG),
     (10, ONE, None, CPG), True),
    ("CPG vs PG, CPG smaller size, same priority (CPG rank wins over size)",
     (10, ONE, None, CPG), (10, TWO, None, PG), True),
    ("CPG vs PG, CPG newer start time, same priority (CPG rank wins over start time)",
     (10, ONE, NOW, CPG), (10, ONE, BEFORE, PG), True),
    ("both CPGs, vi1 larger (larger size wins)", (10, TWO, None, CPG), (10, ONE, None, CPG),
     True),
    ("both CPGs, vi2 larger (larger size wins)", (10, ONE, None, CPG), (10, TWO, None, CPG),
     False),
    ("both CPGs, same size, vi1 older (earlier start time wins)", (10, ONE, BEFORE, CPG),
     (10, ONE, NOW, CPG), True),
    ("both CPGs, same size, vi2 older (earlier start time wins)", (10, ONE, NOW, CPG),
     (10, ONE, BEFORE, CPG), False),
]


@pytest.mark.parametrize("name,v1,v2,want", MORE_IMPORTANT_CASES,
                         ids=[c[0] for c in MORE_IMPORTANT_CASES])
def test_more_important_victim(name: str, v1: tuple, v2: tuple, want: bool) -> None:
    """util_test.go TestMoreImportantVictim."""
    vi1 = Victim(list(v1[1]), v1[0], v1[2], v1[3])
    vi2 = Victim(list(v2[1]), v2[0], v2[2], v2[3])
    assert more_important_victim(vi1, vi2) is want


# ----- util_test.go TestPodTerminatingByPreemption ---------------------------------------------

@pytest.mark.parametrize("name,terminating,marked,want", [
    ("pod without DeletionTimestamp", False, True, False),
    ("pod with DeletionTimestamp but no DisruptionTarget condition", True, False, False),
    ("pod with DeletionTimestamp, DisruptionTarget condition status True and reason "
     "PreemptionByScheduler", True, True, True),
])
def test_pod_terminating_by_preemption(name: str, terminating: bool, marked: bool,
                                       want: bool) -> None:
    """util_test.go TestPodTerminatingByPreemption. The condition is modelled as the executor's
    record of the pods it preempted; the cases with a False condition or another reason cannot
    arise in the model (only the scheduler's preemption adds the condition)."""
    pod = make_pod("p1", terminating=terminating)
    assert pod_terminating_by_preemption(pod, {"p1"} if marked else set()) is want


# ----- types_test.go TestNewVictim -------------------------------------------------------------

def test_new_victim() -> None:
    """types_test.go TestNewVictim: errors for no pods or no key type; the earliest start time
    of the pods (a pod without a start time reads "now")."""
    now = 10_000.0
    p1 = PodInfo(make_pod("p1", start=now))
    p2 = PodInfo(make_pod("p2", start=now + 600))
    p3 = PodInfo(make_pod("p3", start=now - 600))
    p4 = PodInfo(make_pod("p4"))
    with pytest.raises(ValueError, match="no pods provided"):
        new_victim([], 10, POD_KEY_TYPE)
    with pytest.raises(ValueError, match="keyType cannot be empty"):
        new_victim([p1], 20, "")
    v = new_victim([p1], 20, POD_KEY_TYPE)
    assert (v.priority, v.earliest_start_time, v.key_type) == (20, (0, now), POD_KEY_TYPE)
    v = new_victim([p4, p2, p3], 30, POD_KEY_TYPE)
    assert v.earliest_start_time == (0, now - 600)
    assert [pi.pod.name for pi in v.pods] == ["p4", "p2", "p3"]
    v = new_victim([p1], 40, POD_GROUP_KEY_TYPE)
    assert v.is_group() and v.earliest_start_time == (0, now)


def test_start_times() -> None:
    """util/utils.go GetPodStartTime (nil → now, later than any start time and than earlier
    readings), metav1.Time.Before (false with nil), GetEarliestPodStartTime (among the
    highest-priority victims), MoreImportantPod."""
    a, b = make_pod("a", start=5.0), make_pod("b")
    assert get_pod_start_time(a) == (0, 5.0)
    t1, t2 = get_pod_start_time(b), get_pod_start_time(b)
    assert time_before((0, 1e12), t1) and time_before(t1, t2)
    assert not time_before(None, t1) and not time_before(t1, None)
    pods = [make_pod("x", priority=1, start=1.0), make_pod("y", priority=5, start=9.0),
            make_pod("z", priority=5, start=7.0), make_pod("w", priority=5)]
    assert get_earliest_pod_start_time(pods) == (0, 7.0)
    assert get_earliest_pod_start_time([]) is None
    assert more_important_pod(make_pod("h", priority=2), make_pod("l", priority=1, start=0.0))
    assert more_important_pod(make_pod("o", start=1.0), make_pod("n", start=2.0))
    assert not more_important_pod(make_pod("n", start=2.0), make_pod("o", start=1.0))


# ----- executor_test.go ------------------------------------------------------------------------

@pytest.mark.parametrize("name,in_preempting,last_victim,in_lister,want", [
    ("preemptor not in preemptingSet", False, None, (), False),
    ("preemptor not in preemptingSet, lastVictimSet not empty", False, "victim1", (), False),
    ("preemptor in preemptingSet, no lastVictim for preemptor", True, None, (), True),
    ("preemptor in preemptingSet, victim in lastVictimSet, not in PodLister", True, "victim1",
     (), False),
    ("preemptor in preemptingSet, victim in lastVictimSet and in PodLister", True, "victim1",
     ("victim1", "victim2"), True),
    ("preemptor in preemptingSet, victim in lastVictimSet and in PodLister with deletion "
     "timestamp", True, "victim-deleted", ("victim1", "victim-deleted"), False),
])
def test_is_pod_running_preemption(name: str, in_preempting: bool, last_victim: str | None,
                                   in_lister: tuple[str, ...], want: bool) -> None:
    """executor_test.go TestIsPodRunningPreemption (the pod lister is the snapshot)."""
    pods = {n: make_pod(n, ns="ns", node="node", priority=MID,
                        terminating=(n == "victim-deleted"))
            for n in ("victim1", "victim2", "victim-deleted")}
    env = Env([make_node("node")], [pods[n] for n in in_lister])
    ex = Executor(env.handle, True)
    if in_preempting:
        ex.preempting.add("preemptor")
    if last_victim is not None:
        ex.last_victims_pending_preemption["preemptor"] = pods[last_victim]
    if name.endswith("no lastVictim for preemptor"):
        ex.last_victims_pending_preemption["otherPod"] = pods["victim1"]
    assert ex.is_pod_running_preemption("preemptor") is want


PREPARE_CASES = [
    # name, victims, fail prefixes, deleted, error, preempting while in flight, activated
    ("no victims", [], (), [], None, set(), False),
    ("one victim without condition", ["victim1"], (), ["victim1"], None, {"preemptor"}, False),
    ("one victim, but victim is already being deleted", ["victim1-with-deletion-timestamp"], (),
     [], None, set(), False),
    ("one victim, but pod deletion failed", ["fail-victim"], ("fail-victim",), [],
     "delete pod failed", {"preemptor"}, True),
    ("two victims without condition, one passes successfully and the second fails",
     ["fail-victim", "victim2"], ("fail-victim",), [], "delete pod failed", {"preemptor"}, True),
]


@pytest.mark.parametrize("async_", [True, False])
@pytest.mark.parametrize("case", PREPARE_CASES, ids=[c[0] for c in PREPARE_CASES])
def test_prepare_candidate(case: tuple, async_: bool) -> None:
    """executor_test.go TestPrepareCandidate (pod preemptor cases): the deleted victim, the
    sync status, the preempting set while the goroutine is pending, activation on failure."""
    name, victims, fail, want_deleted, want_err, want_preempting, want_activated = case
    pods = [make_pod(v, node="node1", priority=(50000 if v == "victim2" else MID),
                     terminating=v.endswith("deletion-timestamp")) for v in victims]
    env = Env([make_node("node1")], pods, fail_delete=fail)
    preemptor = make_pod("preemptor", priority=HIGH)
    ex = Executor(env.handle, async_)
    activated: list[dict] = []
    ex.activate = activated.append
    pending: list = []
    ex.run_async = pending.append
    c = Candidate(Victims(pods), "node1" if victims else "")
    status = ex.actuate_pod_preemption(c, preemptor, "test-plugin")
    if async_:
        assert status is None
        assert ex.preempting == want_preempting
        for fn in pending:
            fn()
        assert activated == ([{"preemptor": preemptor}] if want_activated else [])
    else:
        assert pending == []
        if want_err is None:
            assert status is None
        else:
            assert status == Status.as_error(want_err)
    assert ex.preempting == set()
    assert env.deleted == want_deleted
    assert ex.disruption_targets == {p.uid for p in pods if p.name in env.attempted}


@pytest.mark.parametrize("victims,last", [([], None), (["victim1"], "victim1"),
                                          (["victim1", "victim2"], "victim2")])
def test_prepare_candidate_async_sets_preempting_sets(victims: list[str],
                                                      last: str | None) -> None:
    """executor_test.go TestPrepareCandidateAsyncSetsPreemptingSets (pod preemptor): while each
    victim is preempted the preemptor is in ``preempting``; the last victim is preempted last and
    registered as pending only then; everything is cleared at the end."""
    pods = [make_pod(v, node="node1", priority=MID) for v in victims]
    env = Env([make_node("node1")], pods)
    preemptor = make_pod("preemptor", priority=HIGH)
    ex = Executor(env.handle, True)
    calls: list[str] = []
    inner = ex.preempt_pod

    def checking(c: Candidate, p: Pod, victim: Pod, plugin: str) -> Status | None:
        calls.append(victim.name)
        assert "preemptor" in ex.preempting
        if victim.name == last:
            assert len(calls) == len(victims)
            assert ex.last_victims_pending_preemption["preemptor"].name == last
        else:
            assert len(calls) < len(victims)
            assert "preemptor" not in ex.last_victims_pending_preemption
        return inner(c, p, victim, plugin)

    ex.preempt_pod = checking
    assert not ex.preempting and not ex.last_victims_pending_preemption
    ex.prepare_candidate_async(Candidate(Victims(pods), "node1"), preemptor, "test-plugin")
    assert not ex.preempting and not ex.last_victims_pending_preemption
    assert len(calls) == len(victims)


ASYNC_FAILURE_CASES = [
    ("Failure with a single victim", ["fail-victim"], False, True),
    ("Success with a single victim", ["victim1"], True, True),
    ("Failure in first of three victims", ["fail-victim", "victim2", "victim3"], False, False),
    ("Failure in second of three victims", ["victim1", "fail-victim", "victim3"], False, False),
    ("Failure in first two of three victims", ["fail-victim1", "fail-victim2", "victim3"],
     False, False),
    ("Failure in third of three victims", ["victim1", "victim2", "fail-victim"], False, True),
    ("Success with three victims", ["victim1", "victim2", "victim3"], True, True),
]


@pytest.mark.parametrize("name,victims,success,attempt_last", ASYNC_FAILURE_CASES,
                         ids=[c[0] for c in ASYNC_FAILURE_CASES])
def test_async_preemption_failure(name: str, victims: list[str], success: bool,
                                  attempt_last: bool) -> None:
    """executor_test.go TestAsyncPreemptionFailure (pod preemptor): the last victim is
    attempted only if all earlier ones were deleted; the preemptor is activated iff the
    preemption failed."""
    pods = [make_pod(v, node="node1", priority=MID) for v in victims]
    env = Env([make_node("node1")], pods, fail_delete=("fail-victim",))
    preemptor = make_pod("preemptor", priority=HIGH)
    ex = Executor(env.handle, True)
    activated: list[dict] = []
    ex.activate = activated.append
    ex.prepare_candidate_async(Candidate(Victims(pods), "node1"), preemptor, "test-plugin")
    assert not ex.preempting
    last = victims[-1]
    assert (last in env.attempted) is attempt_last
    preceding_ok = all(v in env.deleted for v in victims[:-1])
    assert preceding_ok is (last in env.attempted)
    assert bool(activated) is (not success)
    assert (last in env.deleted) is success


def test_clear_lower_priority_nominations() -> None:
    """executor.go getLowerPriorityNominatedPods / clearNominatedNodeName: only pods of a lower
    priority than the preemptor, nominated to the chosen node, lose their nomination."""
    nominated = {"node1": [make_pod("lower", priority=LOW), make_pod("equal", priority=HIGH),
                           make_pod("higher", priority=HIGH + 1)],
                 "node2": [make_pod("elsewhere", priority=LOW)]}
    v = make_pod("v", node="node1", priority=LOW)
    env = Env([make_node("node1"), make_node("node2")], [v], nominated=nominated)
    ex = Executor(env.handle, False)
    assert ex.prepare_candidate(Candidate(Victims([v]), "node1"),
                                make_pod("p", priority=HIGH), "pl") is None
    assert env.cleared == ["lower"]
    assert env.deleted == ["v"]


# ----- evaluator pieces ------------------------------------------------------------------------

def test_candidate_list_capacity() -> None:
    """types.go candidateList: adds beyond the capacity are dropped; size is capped."""
    cl = CandidateList(2)
    for n in ("a", "b", "c"):
        cl.add(Candidate(Victims(), n))
    assert cl.size() == 2 and [c.name for c in cl.get()] == ["a", "b"]
    assert CandidateList(0).get() == []


def _diag(explicit: dict[str, Code], absent: Code) -> Diagnosis:
    d = Diagnosis()
    d.node_to_status = {n: Status(c) for n, c in explicit.items()}
    d.absent_nodes_status = Status(absent)
    return d


def test_nodes_for_status_code() -> None:
    """interface.go NodesForStatusCode: all nodes when the absent status matches and no node is
    explicit; else the matching nodes, in the snapshot's node order."""
    env = Env([make_node(n) for n in ("n1", "n2", "n3", "n4")], [])
    nodes = env.snapshot.list()
    U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE

    def names(d: Diagnosis) -> list[str]:
        return [ni.node.name for ni in nodes_for_status_code(d, nodes, U)]

    assert names(_diag({}, U)) == ["n1", "n2", "n3", "n4"]
    assert names(_diag({"n2": UU}, U)) == ["n1", "n3", "n4"]
    assert names(_diag({"n4": U, "n2": U, "n3": UU, "gone": U}, UU)) == ["n2", "n4"]
    assert names(_diag({}, UU)) == []


def test_fit_error_message_and_aggregate() -> None:
    """types.go FitError.Error (sorted "count reason" histogram; absent nodes counted with the
    absent status' reasons) and utilerrors aggregate messages."""
    d = _diag({}, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    d.node_to_status = {"a": Status(Code.UNSCHEDULABLE, "Insufficient cpu", "Too many pods"),
                        "b": Status(Code.UNSCHEDULABLE, "Insufficient cpu")}
    d.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                   "Preemption is not helpful for scheduling")
    assert fit_error_message(5, d) == (
        "0/5 nodes are available: 1 Too many pods, 2 Insufficient cpu, 3 Preemption is not "
        "helpful for scheduling.")
    assert fit_error_message(0, Diagnosis()) == "0/0 nodes are available:"
    assert aggregate_error_message([]) is None
    assert aggregate_error_message(["x"]) == "x"
    assert aggregate_error_message(["x", "x"]) == "x"
    assert aggregate_error_message(["x", "y", "x"]) == "[x, y]"


def _victims(*prio_start: tuple[int, float | None], pdb: int = 0) -> Victims:
    return Victims([make_pod(f"v{i}", priority=p, start=s) for i, (p, s) in enumerate(prio_start)],
                   pdb)


def test_pick_one_node_for_preemption() -> None:
    """preemption.go pickOneNodeForPreemption default criteria, in order; the first node of the
    candidates' order wins a full tie."""
    assert pick_one_node_for_preemption({}, None) == ""
    # 1. fewest PDB violations beats everything else
    m = {"a": _victims((0, 1.0), pdb=1), "b": _victims((500, 1.0), (500, 1.0), pdb=0)}
    assert pick_one_node_for_preemption(m, None) == "b"
    # 2. lowest highest-priority victim
    m = {"a": _victims((100, 1.0)), "b": _victims((50, 1.0), (50, 1.0))}
    assert pick_one_node_for_preemption(m, None) == "b"
    # 3. smallest sum of priorities shifted by MaxInt32+1 (negative priorities)
    m = {"a": _victims((100, 1.0), (-100, 1.0), (-100, 1.0)),
         "b": _victims((100, 1.0), (-100, 1.0))}
    assert pick_one_node_for_preemption(m, None) == "b"
    # 4. fewest victims (equal shifted sums: 10^9 + 2^31 on both nodes)
    m = {"b": _victims((10**9, 1.0), (-(2**31), 1.0)), "a": _victims((10**9, 1.0))}
    assert pick_one_node_for_preemption(m, None) == "a"
    # 5. latest earliest start time among the highest-priority victims
    m = {"a": _victims((100, 3.0), (0, 9.0)), "b": _victims((100, 4.0), (0, 1.0))}
    assert pick_one_node_for_preemption(m, None) == "b"
    # 6. full tie: the first candidate
    m = {"x": _victims((100, 3.0)), "y": _victims((100, 3.0))}
    assert pick_one_node_for_preemption(m, None) == "x"
    # custom score functions replace the defaults
    assert pick_one_node_for_preemption(m, [lambda n: 1 if n == "y" else 0]) == "y"


def test_evaluate_no_nodes_and_no_candidates() -> None:
    """preemption.go evaluate/findCandidates: "no nodes available" is an Error; no potential
    node gives a FitError nominating "" with every node "Preemption is not helpful"."""
    env = Env([], [])
    ev = Evaluator("pl", env.handle, FakePostFilterPlugin(), Executor(env.handle, False))
    res, status = ev.preempt(CycleState(), make_pod("p", priority=HIGH), Diagnosis())
    assert res is None and status == Status.as_error("no nodes available")
    env = Env([make_node("n1"), make_node("n2")], [])
    ev = Evaluator("pl", env.handle, FakePostFilterPlugin(), Executor(env.handle, False))
    res, status = ev.preempt(CycleState(), make_pod("p", priority=HIGH), Diagnosis())
    assert res is not None and res.nominating_info.nominated_node_name == ""
    assert status == Status(Code.UNSCHEDULABLE, "0/2 nodes are available: 2 Preemption is not "
                                                "helpful for scheduling.")


# ----- PDB status computed like the disruption controller --------------------------------------

def _owned(name: str, rs: str | None, *, ns: str = "default", node: str = "n1",
           labels: dict[str, str] | None = None, terminating: bool = False) -> Pod:
    pod = make_pod(name, ns=ns, node=node, labels=labels or {"app": "web"},
                   terminating=terminating)
    if rs is not None:
        pod.owner_references = (OwnerReference("apps/v1", "ReplicaSet", rs, rs, True),)
    return pod


SEL = LabelSelector((("app", "web"),))


@pytest.mark.parametrize("name,pdb_kwargs,pods,want", [
    ("given status is used as is", dict(min_available=1, disruptions_allowed=7),
     [_owned("a", "rs")], 7),
    ("minAvailable int: healthy - min", dict(min_available=1),
     [_owned("a", None), _owned("b", None), _owned("c", None)], 2),
    ("minAvailable int, terminating pods are not healthy", dict(min_available=1),
     [_owned("a", None), _owned("b", None, terminating=True)], 0),
    ("minAvailable int larger than healthy", dict(min_available=5), [_owned("a", None)], 0),
    ("minAvailable int, pending pods count but are not healthy", dict(min_available=0),
     [_owned("a", None), _owned("b", None, node="")], 1),
    ("minAvailable percent rounds up over the controller scale", dict(min_available="50%"),
     [_owned(x, "rs") for x in "abc"], 1),
    ("minAvailable percent with unmanaged pods: expected 0", dict(min_available="50%"),
     [_owned(x, None) for x in "abc"], 0),
    ("maxUnavailable int", dict(max_unavailable=1), [_owned(x, "rs") for x in "abcd"], 1),
    ("maxUnavailable percent rounds up", dict(max_unavailable="30%"),
     [_owned(x, "rs") for x in "abcd"], 2),
    ("maxUnavailable over two controllers", dict(max_unavailable="50%"),
     [_owned("a", "rs1"), _owned("b", "rs1"), _owned("c", "rs2"), _owned("d", "rs2")], 2),
    ("maxUnavailable wins over minAvailable", dict(min_available=4, max_unavailable=2),
     [_owned(x, "rs") for x in "abcd"], 2),
    ("invalid percent: failSafe 0", dict(max_unavailable="x%"),
     [_owned(x, "rs") for x in "abcd"], 0),
    ("string without percent: failSafe 0", dict(min_available="1"),
     [_owned(x, "rs") for x in "abcd"], 0),
    ("neither set: expected 0", dict(), [_owned(x, "rs") for x in "abcd"], 0),
    ("other namespace and other labels do not count", dict(min_available=0),
     [_owned("a", None), _owned("b", None, ns="other"), _owned("c", None, labels={"x": "y"})], 1),
])
def test_resolve_pdbs(name: str, pdb_kwargs: dict[str, Any], pods: list[Pod], want: int) -> None:
    """disruption.go trySync/getExpectedPodCount/updatePdbStatus, as modelled by
    ``disruption.py``: disruptionsAllowed when the input does not give it."""
    p = PodDisruptionBudget("default", "pdb", SEL, **pdb_kwargs)
    (got,) = resolve_pdbs([p], pods)
    assert got.disruptions_allowed == want
    assert got.namespace == "default" and got.selector is not None


def test_resolve_pdbs_selectors() -> None:
    """getPodsForPdb: a nil selector lists nothing (allowed 0); an empty one lists every pod of
    the namespace; an invalid one fails the sync (allowed 0) and matches no victim."""
    pods = [_owned("a", None), _owned("b", None, labels={"x": "y"})]
    nil_sel = PodDisruptionBudget("default", "n", None, min_available=0)
    empty = PodDisruptionBudget("default", "e", LabelSelector(), min_available=0)
    from reference_impl.model.objects import LabelSelectorRequirement

    bad = PodDisruptionBudget("default", "b", LabelSelector(
        match_expressions=(LabelSelectorRequirement("app", "Bogus"),)), min_available=0)
    got = resolve_pdbs([nil_sel, empty, bad], pods)
    assert [g.disruptions_allowed for g in got] == [0, 2, 0]
    assert got[2].selector is None


@pytest.mark.parametrize("value,total,up,want", [
    (3, 10, True, 3), ("50%", 3, True, 2), ("50%", 3, False, 1), ("10%", 7, True, 1),
    ("0%", 7, True, 0), ("100%", 7, True, 7), ("33%", 100, True, 33),
])
def test_get_scaled_value_from_int_or_percent(value: Any, total: int, up: bool,
                                              want: int) -> None:
    """intstr.GetScaledValueFromIntOrPercent."""
    assert get_scaled_value_from_int_or_percent(value, total, up) == want


# ----- Go's sort.Slice -------------------------------------------------------------------------

GO_SORT_GOLDEN = [
    # input keys, then the order Go 1.26 sort.Slice leaves the indices in (by key only)
    ("2 2 2 2 2 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0",
     "11 19 18 17 16 15 14 13 12 5 10 9 8 7 6 0 4 3 2 1"),
    ("0 1 2 3 4 0 1 2 3 4 0 1 2 3 4 0 1 2 3 4 0 1 2 3 4 0 1 2 3 4 0 1 2 3 4 0 1 2 3 4 0 1 2 3 4 "
     "0 1 2 3 4 0 1 2 3 4 0 1 2 3 4 0 1 2 3",
     "20 5 10 25 30 0 45 60 35 55 40 50 15 46 41 26 16 51 36 56 61 21 11 31 6 1 32 17 47 27 62 "
     "12 22 52 2 7 42 37 57 33 58 38 18 43 23 63 3 28 48 53 13 8 9 49 54 4 44 14 39 59 19 34 24 "
     "29"),
    ("4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 3 3 3 3 3 3 3 2 2 1 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0 0 "
     "0 0 0 0 0 0",
     "39 44 49 48 47 46 45 35 43 42 41 40 50 38 37 36 29 34 33 32 31 30 28 27 26 25 23 18 24 22 "
     "21 20 19 12 9 16 15 14 13 0 11 10 17 8 7 6 5 4 3 2 1"),
]


@pytest.mark.parametrize("keys,want", GO_SORT_GOLDEN)
def test_go_sort_slice_matches_go(keys: str, want: str) -> None:
    """gosort.sort_slice reproduces the order of Go's (unstable) sort.Slice on ties, as
    recorded from the Go toolchain."""
    xs = [(int(k), i) for i, k in enumerate(keys.split())]
    sort_slice(xs, lambda a, b: a[0] < b[0])
    assert " ".join(str(i) for _, i in xs) == want


def test_go_sort_slice_sorts() -> None:
    """sort_slice sorts (random inputs, all sizes through insertion sort, pdqsort, heapsort
    fallback), and is stable up to 12 elements (insertion sort)."""
    r = random.Random(1)
    for n in (0, 1, 2, 12, 13, 50, 51, 200, 1000):
        xs = [r.randrange(7) for _ in range(n)]
        ys = list(xs)
        sort_slice(ys, lambda a, b: a < b)
        assert ys == sorted(xs)
    xs = [(r.randrange(3), i) for i in range(12)]
    ys = list(xs)
    sort_slice(ys, lambda a, b: a[0] < b[0])
    assert ys == sorted(xs, key=lambda t: t[0])
