"""What a dump of a busy cluster holds, as upstream treats it: preemption victims still being
deleted (the DisruptionTarget condition), terminating pods, pods of other schedulers and their
nominations, a nominated pod that fails again. The golden scenarios golden/busy/ hold upstream's
decisions on the same situations; these tests pin the rules one by one."""

from __future__ import annotations

from reference_impl.framework.preemption.util import pod_terminating_by_preemption
from reference_impl.model.loader import load_documents
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import run_simulation
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import PodWrapper, make_pod
from reference_impl.testing.policy import make_priority_class


def scheduler(*pods: PodWrapper, nodes: int = 2, cpu: str = "2") -> Scheduler:
    docs = [make_priority_class("low", 100).manifest(),
            make_priority_class("high", 1000).manifest()]
    docs += [make_node(f"n{i + 1}").capacity(cpu=cpu, pods="10").manifest() for i in range(nodes)]
    docs += [p.manifest() for p in pods]
    return Scheduler(load_documents(docs, source="<test>").cluster)


LOW = make_priority_class("low", 100)


def victim(name: str = "victim") -> PodWrapper:
    return make_pod(name).node("n1").priority_class("low").req(cpu="2").terminating()


# --- PodTerminatingByPreemption from the input ------------------------------------------------

def test_a_victim_of_an_earlier_preemption_is_read_from_its_condition() -> None:
    assert pod_terminating_by_preemption(victim().preempted_by_scheduler().obj(LOW), ())
    assert not pod_terminating_by_preemption(victim().obj(LOW), ())


def test_the_condition_without_deletion_is_not_terminating() -> None:
    p = make_pod("p").node("n1").preempted_by_scheduler().obj()
    assert p.preempted_by_scheduler and not pod_terminating_by_preemption(p, ())


def test_only_the_first_disruption_target_condition_counts() -> None:
    """PodTerminatingByPreemption returns on the first DisruptionTarget condition."""
    first_other = (victim().condition("DisruptionTarget", "True", "DeletionByTaintManager")
                   .preempted_by_scheduler().obj(LOW))
    assert not pod_terminating_by_preemption(first_other, ())
    false_status = victim().condition("DisruptionTarget", "False",
                                      "PreemptionByScheduler").obj(LOW)
    assert not pod_terminating_by_preemption(false_status, ())


def test_a_nominated_preemptor_waits_for_its_victim() -> None:
    """PodEligibleToPreemptOthers: the nominated node holds a lower-priority pod terminating by
    preemption, so the preemptor preempts nobody else and keeps its nomination."""
    s = scheduler(victim().preempted_by_scheduler(),
                  make_pod("low-2").node("n2").priority_class("low").req(cpu="2"),
                  make_pod("boss").priority_class("high").req(cpu="2").nominated_node_name("n1"))
    result = run_simulation(s)
    assert result.deleted == [] and "default/boss" in result.pending
    assert s.nominator.nominated_node_of(s.pods_by_uid[_uid(s, "boss")]) == "n1"
    assert "not eligible due to a terminating pod on the nominated node" in \
        result.attempts[-1].message


def test_a_merely_terminating_pod_does_not_stop_preemption() -> None:
    """The preemptor is eligible again; pickOneNode's last criterion (the latest start time of
    the victims) picks n2, whose victim started later than the terminating pod on n1."""
    s = scheduler(victim("going").start_time(1),
                  make_pod("low-2").node("n2").priority_class("low").req(cpu="2").start_time(2),
                  make_pod("boss").priority_class("high").req(cpu="2").nominated_node_name("n1"))
    result = run_simulation(s)
    assert result.deleted == ["default/low-2"] and result.bindings["default/boss"] == "n2"


# --- terminating pods and pods of other schedulers --------------------------------------------

def test_terminating_pods_hold_their_node_and_pending_ones_are_skipped() -> None:
    s = scheduler(make_pod("going").node("n1").req(cpu="2").terminating(),
                  make_pod("leaving").req(cpu="1").terminating(),
                  make_pod("new").req(cpu="1"))
    result = run_simulation(s)
    assert result.bindings == {"default/going": "n1", "default/new": "n2"}
    assert "default/leaving" not in {a.pod for a in result.attempts}


def test_pods_of_another_scheduler() -> None:
    """Assigned: counted on their node. Pending: never attempted, and a nomination reserves
    nothing (only the pods a profile's queue added are nominated)."""
    s = scheduler(make_pod("other-running").node("n1").req(cpu="1").scheduler_name("other"),
                  make_pod("other-pending").req(cpu="2").scheduler_name("other")
                  .nominated_node_name("n2"),
                  make_pod("mine").req(cpu="2"), nodes=2)
    assert not s.nominator.has_any()
    result = run_simulation(s)
    assert result.bindings["default/mine"] == "n2"
    assert {a.pod for a in result.attempts} == {"default/mine"}


def test_a_nominated_pod_that_fails_again_loses_its_nomination() -> None:
    """handleSchedulingFailure after a PostFilter that found no candidate: the nominating info
    is ModeOverride "" (NewPostFilterResultWithNominatedNode("")), so the nominator forgets the
    dump's nomination, and status.nominatedNodeName is cleared."""
    s = scheduler(make_pod("high-running").node("n1").priority_class("high").req(cpu="2"),
                  make_pod("boss").priority_class("high").req(cpu="2").nominated_node_name("n1"),
                  nodes=1)
    boss = s.pods_by_uid[_uid(s, "boss")]
    assert s.nominator.nominated_node_of(boss) == "n1"
    result = run_simulation(s, until=1)
    assert "default/boss" in result.pending
    assert s.nominator.nominated_node_of(boss) == ""
    assert result.attempts[0].nominated_node is None


def _uid(s: Scheduler, name: str) -> str:
    return next(p.uid for p in s.cluster.pods if p.name == name)


def test_a_lost_nomination_frees_the_node_at_once() -> None:
    """The shrunk divergence of `kschedconf diff --seed 3`: a dump's pod nominated to n1 fails
    again and its nomination is cleared; the status patch is a pod update whose old object
    still names n1 (hasNominatedNodeNameChanged), so updatePodInSchedulingQueue moves the
    lower-or-equal-priority pods with AssignedPodDelete, the pod itself included
    (NodeResourcesFit's hint queues on a deleted pod that had a nominated node). Upstream
    retries it at once from backoffQ, not after the 5 minute unschedulable flush."""
    s = scheduler(make_pod("running").node("n1").req(cpu="1500m"),
                  make_pod("nominated").req(cpu="1").nominated_node_name("n1"),
                  nodes=1)
    result = run_simulation(s)
    assert [a.pod for a in result.attempts] == ["default/nominated", "default/nominated"]
    second = result.attempt_info[1]
    assert (second.time, second.queue) == (0, "backoffQ")
    assert result.end_time == 0


def test_the_absent_nodes_message_names_what_rejected_the_nominated_node() -> None:
    """findNodesThatFitPod: the absent nodes' message lists the set RunPreFilterPlugins
    returned, which is diagnosis.UnschedulablePlugins itself (a shared Go map), so the plugins
    that rejected the nominated node in evaluateNominatedNode appear in it (found by
    `kschedconf diff --seed 4` on a dump with a nominated pod)."""
    s = scheduler(make_pod("big").node("n2").req(cpu="2"),
                  make_pod("p").req(cpu="1").node_affinity_in("metadata.name", ["n2"],
                                                              field=True)
                  .nominated_node_name("n2"), nodes=2)
    result = run_simulation(s, until=1)
    assert "1 node(s) didn't satisfy plugin(s) [NodeAffinity NodeResourcesFit]" in \
        result.attempts[0].message


def test_a_skipped_pods_nomination_reserves_nothing() -> None:
    """A pending pod being deleted keeps its nomination when skipPodSchedule drops it, but
    it is in no queue any more: NominatedPodsForNode gives a pod with only its name
    (nominatedPodToInfo), which requests nothing (found by `kschedconf diff --seed 7`)."""
    s = scheduler(make_pod("gone").req(cpu="2").terminating().nominated_node_name("n1"),
                  make_pod("b").req(cpu="1").creation_timestamp(5), nodes=1)
    assert s.nominator.nominated_node_of(s.pods_by_uid[_uid(s, "gone")]) == "n1"
    result = run_simulation(s)
    assert result.bindings == {"default/b": "n1"}
    assert [a.pod for a in result.attempts] == ["default/b"]
    (ref,) = s.nominator.nominated_pods_for_node("n1")
    assert ref.pod.name == "gone" and ref.pod.resources is not None \
        and ref.pod.resources.requests.milli_cpu == 0
