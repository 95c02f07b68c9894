"""How each release classifies a pod update (``PodSchedulingPropertiesChange``,
pkg/scheduler/framework/events.go): switch ``pod-update-scale-up`` and the ``PodRequests``
options of ``extractPodScaleDown``.

Read in each release's events.go: v1.34.4, v1.35.4 and v1.36.3 run the extractors labels,
scale-down, scheduling gates, tolerations (kube-scheduler v0.34.4-v0.36.3 types.go has no
``UpdatePodScaleUp`` action type); v1.37.2 adds ``extractPodScaleUp`` after the scale-down.
``extractPodScaleDown`` passes ``UseStatusResources`` in all four and
``InPlacePodLevelResourcesVerticalScalingEnabled`` from v1.35.4 (the gate is off in 1.35, on
from 1.36). The expected values below are written per release, not read from the switch.
"""

from __future__ import annotations

import pytest

from reference_impl.model.objects import DEFAULT_SCHEDULER_NAME, Pod
from reference_impl.plugins.queuesort import PrioritySort
from reference_impl.releases import load, supported_releases
from reference_impl.scheduler.clock import SECOND, VirtualClock
from reference_impl.scheduler.queue import events as ev
from reference_impl.scheduler.queue.events import ClusterEvent, PodUpdateRule
from reference_impl.scheduler.queue.scheduling_queue import PriorityQueue, QueueingHintFunction
from reference_impl.testing.pods import make_container, make_pod
from tests.releases.variants import assert_two_variants

#: the releases whose events.go has extractPodScaleUp
SCALE_UP = frozenset({"v1.37.2"})
#: the releases whose extractPodScaleDown reads the pod-level status by default
#: (InPlacePodLevelResourcesVerticalScaling passed and on)
POD_LEVEL_STATUS = frozenset({"v1.36.3", "v1.37.2"})


def _pod(cpu: str, memory: str = "1Gi") -> Pod:
    """A pending pod with one container."""
    return (make_pod("p").uid("p-uid")
            .container(make_container("c").requests(cpu=cpu, memory=memory)).obj())


def _events(release: str, new: Pod, old: Pod) -> list[str]:
    rule = PodUpdateRule.for_release(load(release))
    return [e.label() for e in ev.pod_scheduling_properties_change(new, old, True, rule)]


def test_every_release_has_a_known_variant() -> None:
    assert_two_variants("pod-update-scale-up", SCALE_UP, "scale-up", "absent")


@pytest.mark.parametrize("release", supported_releases())
def test_a_pure_scale_up_is_the_general_update_before_v1_37(release: str) -> None:
    labels = _events(release, _pod("2"), _pod("1"))
    if release in SCALE_UP:
        assert labels == ["TargetPodUpdatePodScaleUp"]
    else:
        assert labels == ["TargetPodUpdate"]


@pytest.mark.parametrize("release", supported_releases())
def test_a_mixed_resize_adds_the_scale_up_event_only_on_v1_37(release: str) -> None:
    """cpu down, memory up: ScaleDown everywhere, then ScaleUp on v1.37.2 (upstream order)."""
    labels = _events(release, _pod("1", "2Gi"), _pod("2", "1Gi"))
    want = ["TargetPodUpdatePodScaleDown"]
    if release in SCALE_UP:
        want.append("TargetPodUpdatePodScaleUp")
    assert labels == want


def _pod_level(status_cpu: str) -> Pod:
    """A pod with pod-level requests (cpu 2) whose pod-level status reports ``status_cpu``."""
    return (make_pod("p").uid("p-uid").pod_level_req(cpu="2")
            .container(make_container("c").requests(cpu="1"))
            .status_resources(allocated={"cpu": status_cpu}, requests={"cpu": status_cpu})
            .obj())


@pytest.mark.parametrize("release", supported_releases())
def test_scale_down_reads_the_pod_level_status_where_the_release_does(release: str) -> None:
    """The pod-level status goes from 4 to 3 cpu over a 2 cpu spec: a scale-down where
    PodRequests reads that status (max of spec and status: 4 -> 3), the general Update where
    it counts the spec alone (v1.34.4 has no option, v1.35.4 has the gate off)."""
    labels = _events(release, _pod_level("3"), _pod_level("4"))
    if release in POD_LEVEL_STATUS:
        assert labels == ["TargetPodUpdatePodScaleDown"]
    else:
        assert labels == ["TargetPodUpdate"]


def test_the_schedulers_gates_decide_the_pod_level_status() -> None:
    """``for_release`` with the scheduler's gate answers (a --feature-gates override)."""
    data = load("v1.35.4")
    on = data.with_gates({"InPlacePodLevelResourcesVerticalScaling": True})
    assert not PodUpdateRule.for_release(data).pod_level_status
    assert PodUpdateRule.for_release(data, on.feature_enabled).pod_level_status


@pytest.mark.parametrize("release", supported_releases())
def test_a_scale_up_registration_requeues_only_on_v1_37(release: str) -> None:
    """The queueing outcome: a pod rejected by a plugin that registers TargetPod/
    UpdatePodScaleUp (NodeResourcesFit does with InPlacePodVerticalScalingSchedulerPreemption)
    leaves the unschedulable pool when its requests go up on v1.37.2; the older releases
    classify the update as the general Update, which that registration does not match, so
    the pod stays."""
    calls: list[str] = []

    def hint(pod: Pod, old: object, new: object) -> tuple[str, str | None]:
        calls.append(pod.name)
        return ev.QUEUE, None

    hint_map = {DEFAULT_SCHEDULER_NAME: {
        ClusterEvent(ev.TARGET_POD, ev.UPDATE_POD_SCALE_UP): [QueueingHintFunction("X", hint)]}}
    q = PriorityQueue(PrioritySort().less, clock=VirtualClock(1_700_000_000 * SECOND),
                      queueing_hint_map=hint_map, release=load(release))
    old, new = _pod("1"), _pod("2")
    q.add(old)
    qpi = q.pop()
    assert qpi is not None
    qpi.unschedulable_plugins.add("X")
    assert q.add_unschedulable_if_not_present(qpi, q.scheduling_cycle()) is None
    q.update(old, new)
    in_pool = q.unschedulable_pods.get(qpi) is not None
    if release in SCALE_UP:
        assert calls == ["p"]
        assert not in_pool
        assert qpi.moved_by == "TargetPodUpdatePodScaleUp"
    else:
        assert calls == []
        assert in_pool


#: the releases whose pending-pod events are UnscheduledPod/TargetPod (k8s.io/kube-scheduler
#: framework/types.go); v1.34.4-v1.36.3 name both ``UnschedulablePod`` (types.go line 59/60)
UNSCHEDULED_TARGET = frozenset({"v1.37.2"})


def test_every_release_has_a_known_event_resource() -> None:
    assert_two_variants("pod-event-resource", UNSCHEDULED_TARGET, "unscheduled-target",
                        "unschedulable-pod")


@pytest.mark.parametrize("release", supported_releases())
def test_the_queue_shows_the_releases_event_labels(release: str) -> None:
    """A pod added, then its own label update while unschedulable (a plugin that registers
    TargetPod/UpdatePodLabel, as InterPodAffinity does, says Queue): the trace and
    ``moved_by`` name the events UnscheduledPodAdd and TargetPodUpdatePodLabel on v1.37.2,
    UnschedulablePodAdd and UnschedulablePodUpdatePodLabel before."""
    hint_map = {DEFAULT_SCHEDULER_NAME: {
        ClusterEvent(ev.TARGET_POD, ev.UPDATE_POD_LABEL): [
            QueueingHintFunction("X", lambda pod, old, new: (ev.QUEUE, None))]}}
    trace: list[dict[str, object]] = []
    q = PriorityQueue(PrioritySort().less, clock=VirtualClock(1_700_000_000 * SECOND),
                      queueing_hint_map=hint_map, release=load(release), trace=trace)
    old = _pod("1")
    new = make_pod("p").uid("p-uid").label("app", "x").container(
        make_container("c").requests(cpu="1", memory="1Gi")).obj()
    q.add(old)
    qpi = q.pop()
    assert qpi is not None
    qpi.unschedulable_plugins.add("X")
    q.add_unschedulable_if_not_present(qpi, q.scheduling_cycle())
    q.update(old, new)
    events = [r["event"] for r in trace if "event" in r]
    pending = "UnscheduledPod" if release in UNSCHEDULED_TARGET else "UnschedulablePod"
    target = "TargetPod" if release in UNSCHEDULED_TARGET else "UnschedulablePod"
    assert events == [pending + "Add", "ScheduleAttemptFailure", target + "UpdatePodLabel"]
    assert qpi.moved_by == target + "UpdatePodLabel"


@pytest.mark.parametrize("release", supported_releases())
def test_an_update_of_a_pod_in_no_queue_enters_as_the_release_does(release: str) -> None:
    """``Update`` of a pod no queue holds: v1.37.2 calls ``addPod`` (UnscheduledPodAdd),
    v1.34.4-v1.36.3 move it to activeQ with ``EventUnscheduledPodUpdate``
    (backend/queue/scheduling_queue.go)."""
    trace: list[dict[str, object]] = []
    q = PriorityQueue(PrioritySort().less, clock=VirtualClock(1_700_000_000 * SECOND),
                      release=load(release), trace=trace)
    q.update(_pod("1"), _pod("2"))
    qpi = q.pop()
    assert qpi is not None
    want = ("UnscheduledPodAdd" if release in UNSCHEDULED_TARGET
            else "UnschedulablePodUpdate")
    assert qpi.moved_by == want
    assert [r["event"] for r in trace if "event" in r] == [want]


def test_release_event_label_renames_only_the_pending_pod_resources() -> None:
    old = ev.EVENT_RESOURCE_UNSCHEDULABLE_POD
    assert ev.release_event_label("UnscheduledPodDelete", old) == "UnschedulablePodDelete"
    assert ev.release_event_label("TargetPodUpdate", old) == "UnschedulablePodUpdate"
    assert ev.release_event_label("UnschedulablePodAdd", old) == "UnschedulablePodAdd"
    for label in ("AssignedPodAdd", "NodeAdd", "UnschedulableTimeout", "ForceActivate"):
        assert ev.release_event_label(label, old) == label
    new = ev.EVENT_RESOURCE_UNSCHEDULED_TARGET
    assert ev.release_event_label("TargetPodUpdatePodLabel", new) == "TargetPodUpdatePodLabel"
