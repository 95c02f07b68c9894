"""Queue, preemption, batching and nominated-node rules that differ between the supported
releases (docs/release-differences.md: preempt-terminating-victims, async-preemption-pending,
nnn-clear-on-failure, nnn-for-expectation, preenqueue-skip-on-activate, queue-hints,
node-taint-hint-fallback, batching-rescore-last-chosen, batching-skip-nominated). Each switch
has a case whose outcome differs between its variants, run for every supported release."""

from __future__ import annotations

import random

import pytest

from reference_impl.config import default_config, load_config
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import FilterPlugin, PreBindPlugin, ScorePlugin, SignPlugin
from reference_impl.framework.preemption.executor import Executor
from reference_impl.framework.preemption.types import Candidate, Victims
from reference_impl.framework.runtime import Framework, FrameworkHandle
from reference_impl.framework.snapshot import Snapshot
from reference_impl.framework.status import Code, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo, PodInfo
from reference_impl.model.objects import Cluster, Pod
from reference_impl.plugins.interpodaffinity import InterPodAffinity
from reference_impl.plugins.podtopologyspread import PodTopologySpread
from reference_impl.plugins.queuesort import PrioritySort
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases import load, supported_releases
from reference_impl.scheduler.batch import sign_pod
from reference_impl.scheduler.clock import SECOND, VirtualClock
from reference_impl.scheduler.nominator import Nominator
from reference_impl.scheduler.queue.scheduling_queue import PriorityQueue
from reference_impl.scheduler.schedule_one import BOUND, ERROR, ScheduleResult, SchedulingCore
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import run_simulation
from reference_impl.testing.wrappers import label_selector, make_node, make_pod, make_timeline

RELEASES = supported_releases()


def variant(tag: str, switch: str) -> str:
    return load(tag).behaviour(switch)


# ----- preemption: the executor ----------------------------------------------------------------

class ExecutorEnv:
    """An executor of ``tag`` over one node: records the DELETE calls (those of victims named
    ``fail*`` fail) and the cleared nominations."""

    def __init__(self, tag: str, victims: list[Pod], *, async_: bool = True,
                 nominated: tuple[Pod, ...] = ()) -> None:
        self.deleted: list[str] = []
        self.cleared: list[str] = []

        def delete_pod(victim: Pod, preemptor: Pod) -> Status | None:
            if victim.name.startswith("fail"):
                return Status.as_error("delete pod failed")
            self.deleted.append(victim.name)
            return None

        release = load(tag)
        node = make_node("n1").capacity(cpu="4", pods="10").obj()
        handle = FrameworkHandle(
            Snapshot([node], victims), release.feature_enabled, 16,
            nominated_pods_for_node=lambda n: [PodInfo(p) for p in nominated],
            rng=random.Random(0), delete_pod=delete_pod,
            clear_nominated_node_name=lambda p: self.cleared.append(p.name), release=release)
        self.executor = Executor(handle, async_)
        self.activated: list[str] = []
        self.executor.activate = lambda pods: self.activated.extend(pods)
        self.candidate = Candidate(Victims(victims), "n1")
        self.preemptor = make_pod("preemptor").priority(1000).obj()

    def actuate(self) -> Status | None:
        return self.executor.actuate_pod_preemption(self.candidate, self.preemptor, "pl")


def victim(name: str, *, terminating: bool = False) -> Pod:
    w = make_pod(name).node("n1").priority(10).req(cpu="1")
    return (w.terminating() if terminating else w).obj()


@pytest.mark.parametrize("async_", [True, False])
@pytest.mark.parametrize("tag", RELEASES)
def test_a_terminating_victim_is_deleted_again_only_in_v1_34_4(tag: str, async_: bool) -> None:
    """preempt-terminating-victims: v1.34.4 (preemption.go prepareCandidate(Async)) sends a
    DELETE to a victim already terminating; 1.35+ skips it."""
    env = ExecutorEnv(tag, [victim("gone", terminating=True), victim("v2")], async_=async_)
    assert env.actuate() is None
    again = tag == "v1.34.4"
    assert variant(tag, "preempt-terminating-victims") == ("delete-again" if again else "skip")
    assert env.deleted == (["gone", "v2"] if again else ["v2"])


@pytest.mark.parametrize("tag", RELEASES)
def test_the_preemptor_waits_for_its_last_victim_from_v1_35(tag: str) -> None:
    """async-preemption-pending: while the last victim's DELETE is in flight, v1.34.4 has
    already taken the preemptor out of ``preempting`` (PreEnqueue lets it through); 1.35+
    keeps it there, with the last victim pending, until that victim is gone."""
    env = ExecutorEnv(tag, [victim("v1"), victim("v2")])
    ex = env.executor
    inner = ex.preempt_pod
    seen: dict[str, bool] = {}

    def watching(c: Candidate, preemptor: Pod, v: Pod, plugin: str) -> Status | None:
        seen[v.name] = ex.is_pod_running_preemption(preemptor.uid)
        return inner(c, preemptor, v, plugin)

    ex.preempt_pod = watching
    assert env.actuate() is None
    assert seen == {"v1": True, "v2": tag != "v1.34.4"}
    assert not ex.is_pod_running_preemption(env.preemptor.uid)
    assert env.deleted == ["v1", "v2"]


@pytest.mark.parametrize("tag", RELEASES)
def test_nothing_to_delete_still_clears_nominations_in_v1_34_4(tag: str) -> None:
    """async-preemption-pending: a candidate with no victim to delete (all terminating, v1.35+)
    or none at all: v1.34.4's goroutine still clears the lower-priority nominations on the
    node; 1.35+ returns before starting it."""
    lower = make_pod("lower").priority(1).nominated_node_name("n1").obj()
    env = ExecutorEnv(tag, [], nominated=(lower,))
    assert env.actuate() is None
    assert env.cleared == (["lower"] if tag == "v1.34.4" else [])
    assert not env.executor.preempting


@pytest.mark.parametrize("tag", RELEASES)
def test_the_last_victim_after_a_failure(tag: str) -> None:
    """async-preemption-pending: when deleting an earlier victim fails, 1.36+ skip the last
    one (executor.go ``preemptLastVictim = false``); v1.34.4 and v1.35.4 call PreemptPod for
    it with the context the failure cancelled, whose API calls fail: in no release is it
    deleted, and the preemptor is activated. v1.34.4 has let the preemptor go by then."""
    env = ExecutorEnv(tag, [victim("fail-v1"), victim("v2")])
    ex = env.executor
    running: list[bool] = []
    ex.activate = lambda pods: running.append(ex.is_pod_running_preemption(env.preemptor.uid))
    assert env.actuate() is None
    assert env.deleted == []
    assert running == [False]


# ----- preemption: whole runs ------------------------------------------------------------------

def run(tag: str, nodes: list, pods: list, seed: int = 1) -> Scheduler:
    sched = Scheduler(Cluster(nodes=nodes, pods=pods),
                      default_config(in_tree_registry(), load(tag)), seed=seed)
    sched.run()
    return sched


@pytest.mark.parametrize("tag", RELEASES)
def test_preempting_a_terminating_pod(tag: str) -> None:
    """preempt-terminating-victims in a default-profile run: the only victim is already
    terminating; v1.34.4 deletes it (it shows among the deleted pods), 1.35+ leave it to its
    graceful deletion. The preemptor is nominated in both."""
    nodes = [make_node("n1").capacity(cpu="2", pods="10").obj()]
    pods = [make_pod("old").node("n1").priority(10).req(cpu="2").terminating().obj(),
            make_pod("high").priority(1000).req(cpu="2").obj()]
    sched = run(tag, nodes, pods)
    result = sched.result()
    assert result.pending == ["default/high"]
    assert sched.nominator.nominated_node_of(pods[1]) == "n1"
    assert result.deleted == (["default/old"] if tag == "v1.34.4" else [])


@pytest.mark.parametrize("started", [False, True])
@pytest.mark.parametrize("tag", RELEASES)
def test_which_of_equal_victims_is_evicted(tag: str, started: bool) -> None:
    """preempt-victim-order: three equal-priority pods on n1, room for one more pod needed.
    Without status.startTime, v1.34.4–v1.36.3's MoreImportantPod reads time.Now() at each
    comparison, so the sort reverses the pods and the reprieve keeps v3 and v2: v1 is evicted;
    v1.37.2 reads each victim's start time once, in node order: v3 is evicted. With equal
    start times every release evicts v3. The upstream subjects of the four releases agree."""
    nodes = [make_node("n1").capacity(cpu="3", pods="10").obj()]
    low = []
    for name in ("v1", "v2", "v3"):
        w = make_pod(name).node("n1").priority(10).req(cpu="1")
        low.append((w.start_time(100) if started else w).obj())
    high = make_pod("high").priority(1000).req(cpu="1").obj()
    sched = run(tag, nodes, [*low, high])
    older = tag in ("v1.34.4", "v1.35.4", "v1.36.3") and not started
    assert sched.result().deleted == (["default/v1"] if older else ["default/v3"])
    assert sched.nominator.nominated_node_of(high) == "n1"


@pytest.mark.parametrize("tag", RELEASES)
def test_the_message_of_a_successful_preemption(tag: str) -> None:
    """preempt-success-message (#140180): the nominated attempt's message (FailedScheduling,
    PodScheduled) ends with "preemption: found a potential placement ..." from v1.37.2;
    v1.34.4–v1.36.3 return a bare Success from Preempt, so only the fit error remains. The
    upstream subjects of the four releases agree."""
    nodes = [make_node("n1").capacity(cpu="2", pods="10").obj()]
    pods = [make_pod(v).node("n1").priority(10).req(cpu="1").obj() for v in ("v1", "v2")]
    sched = run(tag, nodes, [*pods, make_pod("high").priority(1000).req(cpu="2").obj()])
    fit = "0/1 nodes are available: 1 Insufficient cpu."
    found = " preemption: found a potential placement for pod on node n1, preempting 2 victims"
    assert sched.attempts[0].message == fit + (found if tag == "v1.37.2" else "")


# ----- nominated node name --------------------------------------------------------------------

NO_POST_FILTER = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler",
                  "plugins": {"postFilter": {"disabled": [{"name": "*"}]}}}]}


@pytest.mark.parametrize("tag", RELEASES)
def test_a_failed_attempt_without_post_filter_keeps_the_nomination_in_v1_34_4(tag: str) -> None:
    """nnn-clear-on-failure: a pod nominated to n1 that fits nowhere, in a profile without
    PostFilter plugins: v1.34.4 returns ``ScheduleResult{}`` (the nomination stays); 1.35+
    return ``clearNominatedNode``."""
    cfg = load_config(NO_POST_FILTER, in_tree_registry(), load(tag))
    nodes = [make_node("n1").capacity(cpu="1", pods="10").obj()]
    pod = make_pod("p").req(cpu="2").nominated_node_name("n1").obj()
    sched = Scheduler(Cluster(nodes=nodes, pods=[pod]), cfg, seed=1)
    assert sched.nominator.nominated_node_of(pod) == "n1"
    result = sched.run()
    assert result.pending == ["default/p"]
    assert sched.nominator.nominated_node_of(pod) == ("n1" if tag == "v1.34.4" else "")


@pytest.mark.parametrize("expectation", [False, True])
@pytest.mark.parametrize("tag", RELEASES)
def test_no_nodes_clears_the_nomination_unless_v1_34_4_expects_it(tag: str,
                                                                  expectation: bool) -> None:
    """nnn-clear-on-failure: ErrNoNodesAvailable for a nominated pod. v1.34.4's
    newFailureNominatingInfo keeps the nomination when NominatedNodeNameForExpectation is on
    (off by default there); 1.35+ clear it whatever the gate."""
    release = load(tag).with_gates({"NominatedNodeNameForExpectation": expectation})
    pod = make_pod("p").req(cpu="1").nominated_node_name("gone").obj()
    sched = Scheduler(Cluster(nodes=[], pods=[pod]),
                      default_config(in_tree_registry(), release), seed=1)
    sched.run()
    kept = tag == "v1.34.4" and expectation
    assert sched.nominator.nominated_node_of(pod) == ("gone" if kept else "")


class FailingPreFlight(PreBindPlugin):
    """A PreBind plugin whose PreBindPreFlight fails (its PreBind would succeed)."""

    name = "FailingPreFlight"

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        return Status.as_error("pre-flight failed")

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None


@pytest.mark.parametrize("tag", RELEASES)
def test_pre_bind_pre_flights_run_from_v1_35(tag: str) -> None:
    """nnn-for-expectation (gate NominatedNodeNameForExpectation, off in v1.34.4, on from
    v1.35.4): bindingCycle runs RunPreBindPreFlights only with the gate on; an Error there
    fails the binding cycle. In v1.34.4 the pod is bound."""
    registry = in_tree_registry()
    registry[FailingPreFlight.name] = FailingPreFlight
    cfg = load_config({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": {"preBind": {
            "enabled": [{"name": FailingPreFlight.name}]}}}]}, registry, load(tag))
    nodes = [make_node("n1").capacity(cpu="2", pods="10").obj()]
    sched = Scheduler(Cluster(nodes=nodes, pods=[make_pod("p").req(cpu="1").obj()]), cfg,
                      registry, seed=1)
    result = sched.run()
    gate = load(tag).feature_enabled("NominatedNodeNameForExpectation")
    assert gate is (tag != "v1.34.4")
    assert [a.outcome for a in result.attempts] == [ERROR if gate else BOUND]


def retried_at(tag: str, pods: list[Pod]) -> list[float]:
    """The times of the pending pod's attempts when the bound pod ``g`` is deleted at 10s."""
    nodes = [make_node("n1").capacity(cpu="4", pods="10").label("zone", "a").obj()]
    cluster = Cluster(nodes=nodes, pods=pods)
    sched = Scheduler(cluster, default_config(in_tree_registry(), load(tag)), seed=0)
    events = make_timeline({"at": "10s", "action": "deletePod", "pod": "g"}).obj(cluster)
    result = run_simulation(sched, events)
    return [info.time for a, info in zip(result.attempts, result.attempt_info, strict=True)
            if a.pod != "default/g"]


@pytest.mark.parametrize("tag", RELEASES)
def test_deleting_a_pod_whose_anti_affinity_blocked_the_pending_pod(tag: str) -> None:
    """queue-hints (#135325), a whole run: g's anti-affinity keeps db off the zone; g is
    deleted at 10s. 1.36+ retry db then; v1.34.4/v1.35.4 skip the event and db waits for the
    unschedulable-pods flush (330s). The upstream subjects of the four releases agree."""
    pods = [make_pod("g").node("n1").labels({"app": "guard"}).req(cpu="1")
            .pod_anti_affinity("zone", label_selector({"app": "db"})).obj(),
            make_pod("db").labels({"app": "db"}).req(cpu="1").obj()]
    assert retried_at(tag, pods) == [0.0, 330.0 if tag in ("v1.34.4", "v1.35.4") else 10.0]


@pytest.mark.parametrize("tag", RELEASES)
def test_deleting_a_pod_that_matched_one_of_two_anti_affinity_terms(tag: str) -> None:
    """queue-hints (#139161), a whole run: p repels app=db and tier=x; g (app=db) is deleted
    at 10s. v1.37.2 retries p then; 1.34–1.36 need all terms to match and wait for the flush
    (330s). The upstream subjects of the four releases agree."""
    pods = [make_pod("g").node("n1").labels({"app": "db"}).req(cpu="1").obj(),
            make_pod("p").req(cpu="1")
            .pod_anti_affinity("zone", label_selector({"app": "db"}))
            .pod_anti_affinity("zone", label_selector({"tier": "x"})).obj()]
    assert retried_at(tag, pods) == [0.0, 10.0 if tag == "v1.37.2" else 330.0]


@pytest.mark.parametrize("tag", RELEASES)
def test_a_taint_update_retries_a_pod_rejected_by_a_node_add_plugin(tag: str) -> None:
    """node-taint-hint-fallback, a whole run: big does not fit n1 (NodeResourcesFit, which
    registers Node/Add but not Node/UpdateNodeTaint); a PreferNoSchedule taint is added to n1
    at 10s. 1.34–1.36 give the plugin the always-Queue hint on taint updates and retry big
    then; v1.37.2 skips the event and big waits for the unschedulable-pods flush. The upstream
    subjects of the four releases agree."""
    nodes = [make_node("n1").capacity(cpu="1", pods="10").obj()]
    cluster = Cluster(nodes=nodes, pods=[make_pod("big").req(cpu="2").obj()])
    sched = Scheduler(cluster, default_config(in_tree_registry(), load(tag)), seed=0)
    events = make_timeline({"at": "10s", "action": "taintNode", "node": "n1",
                            "taints": [{"key": "k", "effect": "PreferNoSchedule"}]}
                           ).until("60s").obj(cluster)
    result = run_simulation(sched, events)
    retried = [info.time for info in result.attempt_info]
    fallback = variant(tag, "node-taint-hint-fallback") == "add-implies-taint"
    assert fallback is (tag != "v1.37.2")
    assert retried == ([0.0, 10.0] if fallback else [0.0])



@pytest.mark.parametrize("tag", RELEASES)
def test_binding_a_nominated_preemptor_retries_lower_priority_pods(tag: str) -> None:
    """binding-frees-nomination, a whole run: boss preempts low on n1 (nominated there), mid
    is rejected behind boss's nomination, boss binds. v1.34.4's unscheduled-pod handler sees
    the binding as a deletion of a nominated pod and retries mid at once (from the backoffQ);
    1.35+ skip it (inBinding) and mid waits for the unschedulable-pods flush (330s). The
    upstream subjects of the four releases agree."""
    nodes = [make_node("n1").capacity(cpu="2", pods="10").obj()]
    pods = [make_pod("low").node("n1").priority(100).req(cpu="2").obj(),
            make_pod("boss").priority(1000).req(cpu="2").obj(),
            make_pod("mid").priority(500).req(cpu="1").obj()]
    sched = Scheduler(Cluster(nodes=nodes, pods=pods),
                      default_config(in_tree_registry(), load(tag)), seed=0)
    result = run_simulation(sched, make_timeline().obj())
    mid = [(info.time, info.queue) for a, info in zip(result.attempts, result.attempt_info,
                                                       strict=True) if a.pod == "default/mid"]
    frees = variant(tag, "binding-frees-nomination") == "assigned-pod-delete"
    assert frees is (tag == "v1.34.4")
    assert mid == [(0.0, "activeQ"), (0.0, "backoffQ") if frees else (330.0, "activeQ")]

# ----- the scheduling queue --------------------------------------------------------------------

class GateAll:
    """A PreEnqueue plugin that holds every pod back."""

    name = "GateAll"

    def pre_enqueue(self, pod: Pod) -> Status:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "held")


@pytest.mark.parametrize("tag", RELEASES)
def test_add_records_a_gated_pods_nomination_from_v1_37(tag: str) -> None:
    """nominate-gated-pod at the queue: ``Add`` of a pod PreEnqueue holds back, nominated to n1:
    v1.37.2's addPod records the nomination; older releases' moveToActiveQ does not (the pod
    does not enter activeQ). A pod that enters activeQ is recorded in every release."""
    gate = GateAll()
    q = PriorityQueue(PrioritySort().less, pre_enqueue_plugins={
        "default-scheduler": {gate.name: gate}}, release=load(tag))
    held = make_pod("held").nominated_node_name("n1").obj()
    q.add(held)
    assert q.where(held.key) == "unschedulablePods"
    assert q.nominator.nominated_node_of(held) == ("n1" if tag == "v1.37.2" else "")
    free = PriorityQueue(PrioritySort().less, release=load(tag))
    free.add(held)
    assert free.where(held.key) == "activeQ"
    assert free.nominator.nominated_node_of(held) == "n1"


@pytest.mark.parametrize("tag", RELEASES)
def test_activating_a_backing_off_pod_runs_pre_enqueue_only_in_v1_34_4(tag: str) -> None:
    """preenqueue-skip-on-activate: ``Activate`` of a pod in the backoffQ, with
    SchedulerPopFromBackoffQ on: v1.34.4's moveToActiveQ runs PreEnqueue (the pod is held in
    the unschedulable pool); 1.35+ pass ``movesFromBackoffQ`` and skip it (activeQ)."""
    gate = GateAll()
    q = PriorityQueue(PrioritySort().less, clock=VirtualClock(1000 * SECOND),
                      pre_enqueue_plugins={"default-scheduler": {gate.name: gate}},
                      release=load(tag))
    pod = make_pod("p").obj()
    qpi = q.new_queued_pod_info(pod, "NodeResourcesFit")
    qpi.unschedulable_count = 1
    q.backoff_q.add(qpi)
    q.activate({pod.name: pod})
    assert q.where(pod.key) == ("unschedulablePods" if tag == "v1.34.4" else "activeQ")


@pytest.mark.parametrize("tag", RELEASES)
def test_the_nomination_of_a_gated_pod(tag: str) -> None:
    """nominate-gated-pod (#139057): a scheduling-gated pod nominated to n1, which it would
    fill, and a lower-priority pod. v1.37.2's Add records the gated pod's nomination, which
    keeps the other pod off n1; v1.34.4–v1.36.3 record it only when the pod enters activeQ,
    so the other pod is bound to n1. The upstream subjects of the four releases agree."""
    nodes = [make_node("n1").capacity(cpu="2", pods="10").obj()]
    gated = make_pod("gated").priority(100).req(cpu="2").scheduling_gates("example.com/wait") \
        .nominated_node_name("n1").obj()
    other = make_pod("q").priority(1).req(cpu="1").obj()
    sched = Scheduler(Cluster(nodes=nodes, pods=[gated, other]),
                      default_config(in_tree_registry(), load(tag)), seed=0)
    result = run_simulation(sched)
    held = tag == "v1.37.2"
    assert result.bindings == ({} if held else {"default/q": "n1"})
    assert [a.outcome for a in result.attempts] == ["Gated", "Unschedulable" if held else BOUND]


# ----- queueing hints --------------------------------------------------------------------------

QUEUE, SKIP = "Queue", "QueueSkip"
SECURITY = label_selector({"service": "securityscan"})
WEB = label_selector({"app": "web"})


def affinity_hint(tag: str, pod: Pod, old: Pod | None, new: Pod | None) -> str:
    pl = InterPodAffinity(None, FakeHandle(release=load(tag)))
    hint, err = pl.is_schedulable_after_assigned_pod_change(pod, old, new)
    assert err is None
    return hint


@pytest.mark.parametrize("tag", RELEASES)
def test_affinity_hint_for_the_target_pods_label_update(tag: str) -> None:
    """queue-hints (#135394): the pending pod's own label update. v1.34.4/v1.35.4's
    isSchedulableAfterPodChange skips it (the pod has no nodeName); 1.36+ queue it."""
    pl = InterPodAffinity(None, FakeHandle(release=load(tag)))
    old = make_pod("p").labels({"foo": "bar"}).obj()
    new = make_pod("p").labels({"foo": "baz"}).obj()
    want = SKIP if tag in ("v1.34.4", "v1.35.4") else QUEUE
    assert pl.is_schedulable_after_target_pod_update_label(new, old, new) == (want, None)


@pytest.mark.parametrize("tag", RELEASES)
def test_affinity_hint_for_a_lost_nomination(tag: str) -> None:
    """queue-hints (#135392): a nominated pod matching the pending pod's anti-affinity loses its
    nomination (the AssignedPod/Delete the queue gets for it): up to v1.35.4 a pod without a
    nodeName is skipped; 1.36+ count the nomination and queue."""
    pod = make_pod("p").pod_anti_affinity("zone", SECURITY).obj()
    nominated = make_pod("n").labels({"service": "securityscan"}).nominated_node_name("n1").obj()
    want = SKIP if tag in ("v1.34.4", "v1.35.4") else QUEUE
    assert affinity_hint(tag, pod, nominated, None) == want


@pytest.mark.parametrize("tag", RELEASES)
def test_affinity_hint_for_a_deleted_pod_whose_anti_affinity_the_pod_matches(tag: str) -> None:
    """queue-hints (#135325): a bound pod whose anti-affinity repels the pending pod is deleted:
    up to v1.35.4 only the pending pod's own anti-affinity is checked (skip); 1.36+ also the
    deleted pod's (queue)."""
    pod = make_pod("p").labels({"service": "securityscan"}).obj()
    gone = make_pod("g").node("n1").pod_anti_affinity("zone", SECURITY).obj()
    want = SKIP if tag in ("v1.34.4", "v1.35.4") else QUEUE
    assert affinity_hint(tag, pod, gone, None) == want


@pytest.mark.parametrize("tag", RELEASES)
def test_affinity_hint_for_one_of_several_anti_affinity_terms(tag: str) -> None:
    """queue-hints (#139161): the pending pod has two anti-affinity terms and a deleted bound pod
    matches one: up to v1.36.3 the terms must all match (skip); v1.37.2 needs any (queue). The
    same for an update that stops matching that one term."""
    pod = make_pod("p").pod_anti_affinity("zone", SECURITY).pod_anti_affinity("zone", WEB).obj()
    old = make_pod("g").node("n1").labels({"service": "securityscan"}).obj()
    new = make_pod("g").node("n1").labels({"service": "other"}).obj()
    want = QUEUE if tag == "v1.37.2" else SKIP
    assert affinity_hint(tag, pod, old, None) == want
    assert affinity_hint(tag, pod, old, new) == want


@pytest.mark.parametrize("tag", RELEASES)
def test_spread_hint_for_a_lost_nomination(tag: str) -> None:
    """queue-hints (#135392): involvedInTopologySpreading counts nominated pods from v1.36.3;
    a nominated pod matching the constraint's selector that loses its nomination is skipped by
    v1.34.4/v1.35.4 and queues the pending pod in 1.36+."""
    pl = PodTopologySpread(None, FakeHandle(release=load(tag)))
    pod = make_pod("p").labels({"app": "web"}).spread_constraint(1, "zone", selector=WEB).obj()
    nominated = make_pod("n").labels({"app": "web"}).nominated_node_name("n1").obj()
    bound = make_pod("b").labels({"app": "web"}).node("n1").obj()
    want = SKIP if tag in ("v1.34.4", "v1.35.4") else QUEUE
    assert pl.is_schedulable_after_assigned_pod_change(pod, nominated, None) == (want, None)
    assert pl.is_schedulable_after_assigned_pod_change(pod, bound, None) == (QUEUE, None)


# ----- OpportunisticBatching -------------------------------------------------------------------

BATCHING = [tag for tag in RELEASES if load(tag).feature_enabled("OpportunisticBatching")]


class Slots(FilterPlugin, SignPlugin):
    """A node holds ``per_node`` pods; every pod signs alike."""

    name = "Slots"
    per_node = 1

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if len(node_info.pods) >= self.per_node:
            return Status(Code.UNSCHEDULABLE, "full")
        return None

    def sign_pod(self, pod: Pod) -> tuple[list, None]:
        return [], None


class TwoSlots(Slots):
    per_node = 2


class FirstNodesFirst(ScorePlugin, SignPlugin):
    """Node ``n<i>`` scores 100 - i."""

    name = "FirstNodesFirst"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 100 - int(node_info.node.name[1:])

    def sign_pod(self, pod: Pod) -> tuple[list, None]:
        return [], None


class BatchingCore:
    """A scheduling core of ``tag`` with batching, four nodes n0..n3 and a profile of one
    Filter (``slots``) and FirstNodesFirst."""

    def __init__(self, tag: str, slots: type[Slots]) -> None:
        self.snapshot = Snapshot([make_node(f"n{i}").obj() for i in range(4)])
        nominator = Nominator()
        handle = FrameworkHandle(self.snapshot, load(tag).feature_enabled, 1,
                                 nominated_pods_for_node=nominator.nominated_pods_for_node,
                                 release=load(tag))
        self.fwk = Framework("default-scheduler",
                             {"filter": [(slots.name, 0)], "score": [(FirstNodesFirst.name, 1)]},
                             {slots.name: slots, FirstNodesFirst.name: FirstNodesFirst}, {},
                             handle)
        self.core = SchedulingCore(self.snapshot, {"default-scheduler": self.fwk}, 0,
                                   nominator, True)

    def attempt(self, pod: Pod) -> ScheduleResult:
        self.core.scheduling_cycle += 1
        result = self.core.schedule_pod(self.fwk, CycleState(), pod, sign_pod(self.fwk, pod))
        bound = make_pod(pod.name).uid(pod.uid).node(result.suggested_host).obj()
        self.snapshot.add_pod(bound)
        return result


def test_v1_34_4_has_no_batching() -> None:
    assert BATCHING == ["v1.35.4", "v1.36.3", "v1.37.2"]


@pytest.mark.parametrize("tag", BATCHING)
def test_a_last_chosen_node_that_still_fits(tag: str) -> None:
    """batching-rescore-last-chosen: two slots per node; the second pod still fits n0, where
    the first went. v1.35.4/v1.36.3 (batchStateCompatible: ``!status.IsRejected()``) give no
    hint: a full cycle over the four nodes; v1.37.2 rescores n0 into the cached ranking and
    hints it: one node evaluated, no scoring. Both choose n0."""
    b = BatchingCore(tag, TwoSlots)
    first = b.attempt(make_pod("p1").obj())
    second = b.attempt(make_pod("p2").obj())
    assert (first.suggested_host, first.evaluated_nodes) == ("n0", 4)
    rescored = tag == "v1.37.2"
    assert (second.suggested_host, second.evaluated_nodes) == ("n0", 1 if rescored else 4)
    assert (second.scored is None) is rescored


@pytest.mark.parametrize("tag", BATCHING)
def test_a_nominated_pod_between_batched_pods(tag: str) -> None:
    """batching-skip-nominated: one slot per node; p1 takes n0 (ranking n1, n2, n3 cached);
    p2 is nominated to n1. v1.35.4/v1.36.3 still pop the hint (n1), which equals where p2
    goes, so the batch goes on and p3 is hinted n2 (one node evaluated); v1.37.2 gives p2 no
    hint, the batch state is dropped and p3 gets a full cycle."""
    b = BatchingCore(tag, Slots)
    b.attempt(make_pod("p1").obj())
    second = b.attempt(make_pod("p2").nominated_node_name("n1").obj())
    third = b.attempt(make_pod("p3").obj())
    assert second.suggested_host == "n1"
    skip = tag == "v1.37.2"
    assert (third.suggested_host, third.evaluated_nodes) == ("n2", 4 if skip else 1)


NO_SPREAD = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler",
                  "plugins": {"multiPoint": {"disabled": [{"name": "PodTopologySpread"}]}}}]}


def batched_run(tag: str, cpu: str, pods: list[Pod]) -> list[tuple[str | None, int]]:
    """(node, evaluated nodes) of each attempt: the default profile without PodTopologySpread
    (so pods are signable), four nodes n0..n3 with ``cpu`` CPUs each."""
    nodes = [make_node(f"n{i}").capacity(cpu=cpu, memory="8Gi", pods="10").obj()
             for i in range(4)]
    sched = Scheduler(Cluster(nodes=nodes, pods=pods),
                      load_config(NO_SPREAD, in_tree_registry(), load(tag)), seed=0)
    return [(a.node, a.evaluated_nodes) for a in run_simulation(sched).attempts]


def one_cpu_pods(nominated: str = "") -> list[Pod]:
    p0 = make_pod("p0").req(cpu="1").creation_timestamp(0).priority(10)
    p1 = make_pod("p1").req(cpu="1").creation_timestamp(1)
    if nominated:
        p1 = p1.nominated_node_name(nominated)
    return [p0.obj(), p1.obj(), make_pod("p2").req(cpu="1").creation_timestamp(2).obj()]


@pytest.mark.parametrize("tag", BATCHING)
def test_batching_when_the_chosen_node_has_room_left(tag: str) -> None:
    """batching-rescore-last-chosen, a whole run: nodes with room for two pods. v1.35.4 and
    v1.36.3 flush the batch while the last chosen node still fits, so every pod is scored
    over all nodes; v1.37.2 rescores it and hints. The upstream subjects agree."""
    if tag == "v1.37.2":
        want = [("n0", 4), ("n3", 1), ("n1", 1)]
    else:
        want = [("n0", 4), ("n1", 4), ("n3", 4)]
    assert batched_run(tag, "2", one_cpu_pods()) == want


@pytest.mark.parametrize("tag", BATCHING)
def test_batching_around_a_pod_nominated_to_the_next_hint(tag: str) -> None:
    """batching-skip-nominated, a whole run: p0 (priority 10) leaves the ranking n3, ...; p1
    is nominated to n3. v1.35.4/v1.36.3 pop n3 as p1's hint, p1 lands there, the batch goes
    on and p2 is hinted n2; v1.37.2 gives p1 no hint, drops the batch, and p2's full cycle
    picks n1. The upstream subjects agree."""
    p2 = ("n1", 4) if tag == "v1.37.2" else ("n2", 1)
    assert batched_run(tag, "1", one_cpu_pods("n3")) == [("n0", 4), ("n3", 1), p2]

