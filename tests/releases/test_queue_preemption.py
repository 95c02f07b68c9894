"""Queue, preemption, batching and nominated-node rules that differ between the supported
releases (docs/release-differences.md: preempt-terminating-victims, async-preemption-pending,
nnn-clear-on-failure, nnn-for-expectation, preenqueue-skip-on-activate, queue-hints,
batching-rescore-last-chosen, batching-skip-nominated). Each switch has a case whose outcome
differs between its variants, run for every supported release."""

from __future__ import annotations

import random

import pytest

from reference_impl.config import default_config
from reference_impl.framework.preemption.executor import Executor
from reference_impl.framework.preemption.types import Candidate, Victims
from reference_impl.framework.runtime import FrameworkHandle
from reference_impl.framework.snapshot import Snapshot
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import PodInfo
from reference_impl.model.objects import Cluster, Pod
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.plugins.queuesort import PrioritySort
from reference_impl.releases import load, supported_releases
from reference_impl.scheduler.clock import SECOND, VirtualClock
from reference_impl.scheduler.queue.scheduling_queue import PriorityQueue
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.testing.wrappers import make_node, make_pod

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
    """async-preemption-pending: when deleting an earlier victim fails, v1.34.4 and v1.35.4
    still delete the last one; 1.36+ (executor.go ``preemptLastVictim = false``) do not. The
    preemptor is activated in every release."""
    env = ExecutorEnv(tag, [victim("fail-v1"), victim("v2")])
    assert env.actuate() is None
    skips = tag in ("v1.36.3", "v1.37.2")
    assert env.deleted == ([] if skips else ["v2"])
    assert env.activated == ["preemptor"]


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


# ----- the scheduling queue --------------------------------------------------------------------

class GateAll:
    """A PreEnqueue plugin that holds every pod back."""

    name = "GateAll"

    def pre_enqueue(self, pod: Pod) -> Status:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "held")


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
