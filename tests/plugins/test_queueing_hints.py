"""EventsToRegister and queueing hints of the default plugins (v1.37.2).

NodeResourcesFit's cases restate upstream ``pkg/scheduler/framework/plugins/noderesources/
fit_test.go`` (TestEventsToRegister, Test_isSchedulableAfterAssignedPodDelete,
Test_isSchedulableAfterTargetPodScaleDown, Test_isSchedulableAfterAssignedPodScaleDown,
Test_isSchedulableAfterNodeChange, Test_isSchedulableAfterDeviceClassChange,
Test_isSchedulableAfterTargetPodScaleUp, Test_isSchedulableAfterAssignedPodScaleUp, TestIsFit,
TestHaveAnyRequestedResourcesIncreased); each case keeps its upstream name.

Not restated (inputs the model cannot express):

- every case whose target pod carries the ``PodResizePending=Deferred`` condition (pod status is
  not modelled, so ``IsPodResizeDeferred`` is always false): "skip-queue-on-other-pod-deleted-
  different-node-when-deferred", "queue-on-other-pod-deleted-same-node-when-deferred",
  "skip-queue-on-other-pod-scaled-down-different-node-when-deferred",
  "queue-on-other-pod-scaled-down-same-node-when-deferred", "queue-on-deferred-target-pod-scale-up",
  "skip-queue-on-different-node-scale-up", "queue-on-same-node-scale-up";
- the TestHaveAnyRequestedResourcesIncreased cases that need a DeviceClass mapping the extended
  resource to DRA ("requested-resources-dra-not-in-node", "requested-resources-dra-zero-capacity":
  the model has no DeviceClasses, so nothing is delegated to DRA).

The other plugins' hint tables are restated in their own test files; here the whole default
profile's registrations are checked against upstream's ``EventsToRegister`` of every plugin, and
the hints are exercised through the scheduling queue.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from fractions import Fraction

import pytest

from reference_impl.framework.testing import FakeHandle
from reference_impl.model.objects import Cluster, Container, Node, Pod
from reference_impl.model.quantity import parse_quantity_string
from reference_impl.model.requests import compute_pod_resources, host_ports, to_resource
from reference_impl.plugins.noderesources.fit import (
    QUEUE,
    QUEUE_SKIP,
    Fit,
    have_any_requested_resources_increased,
    is_fit,
)
from reference_impl.plugins.queuesort import PrioritySort
from reference_impl.scheduler.clock import SECOND, VirtualClock
from reference_impl.scheduler.queue import events as ev
from reference_impl.scheduler.queue.events import ClusterEvent
from reference_impl.scheduler.queue.scheduling_queue import (
    PriorityQueue,
    QueuedPodInfo,
    build_queueing_hint_map,
    next_stamp,
    profile_queueing_hint_map,
)
from reference_impl.scheduler.scheduler import Scheduler

SRC = "noderesources/fit_test.go"
EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
HUGE_A = "hugepages-2Mi"
DRA_EXT = "extended.resource.dra.io/something"

_uids = itertools.count()


# ----- builders (the st.MakePod / st.MakeNode / newResourcePod of fit_test.go) ----------------

def _q(v: str | int) -> Fraction:
    return parse_quantity_string(v) if isinstance(v, str) else Fraction(v)


def _finish(pod: Pod) -> Pod:
    pod.resources = compute_pod_resources(pod)
    pod.host_ports = host_ports(pod)
    return pod


def make_pod(name: str = "", *, req: dict[str, str] | None = None,
             pod_level: dict[str, str] | None = None, node: str = "",
             nominated: str = "") -> Pod:
    """``st.MakePod().Name(name).Req(req).PodLevelResourceRequests(pod_level).Node(node)
    .NominatedNodeName(nominated)``: ``Req`` adds one container with those requests."""
    containers = ()
    if req is not None:
        containers = (Container(name=f"con{len(req)}",
                                requests=tuple((k, _q(v)) for k, v in req.items())),)
    return _finish(Pod(namespace="", name=name, uid=f"uid-{next(_uids)}", node_name=node,
                       nominated_node_name=nominated, containers=containers,
                       pod_level_requests=tuple((k, _q(v)) for k, v in (pod_level or {}).items())))


def resource_pod(cpu: int = 0, mem: int = 0, eph: int = 0,
                 scalar: dict[str, int] | None = None) -> Pod:
    """``newResourcePod(framework.Resource{...})``: one container requesting cpu (milli),
    memory, pods 0, ephemeral-storage and the scalar resources, zeros included."""
    reqs = [("cpu", Fraction(cpu, 1000)), ("memory", Fraction(mem)), ("pods", Fraction(0)),
            ("ephemeral-storage", Fraction(eph))]
    reqs += [(n, Fraction(v)) for n, v in (scalar or {}).items()]
    return _finish(Pod(namespace="", name="", uid=f"uid-{next(_uids)}",
                       containers=(Container(name="c0", requests=tuple(reqs)),)))


def capacity_node(capacity: dict[str, str], name: str = "") -> Node:
    """``st.MakeNode().Capacity(capacity)``: capacity and allocatable, with pods 32."""
    rl = {"pods": Fraction(32)}
    rl.update({k: _q(v) for k, v in capacity.items()})
    return Node(name=name, allocatable=to_resource(rl))


def fit(**gates: bool) -> Fit:
    """``NewFit`` with the default scoring strategy and the given gates (others: defaults)."""
    return Fit(None, FakeHandle(features=gates))


def fit_gates_off(**gates: bool) -> Fit:
    """``NewFit`` with ``plfeature.Features{...}``: every gate not named is off."""
    all_off = {"PodLevelResources": False, "DRAExtendedResource": False,
               "InPlacePodVerticalScaling": False,
               "InPlacePodVerticalScalingSchedulerPreemption": False}
    all_off.update(gates)
    return Fit(None, FakeHandle(features=all_off))


def as_events(registered: list) -> list[tuple[ClusterEvent, str | None]]:
    """A plugin's declarations as (ClusterEvent, hint method name)."""
    return [(ClusterEvent(r, ev.parse_action_type(a)), h) for r, a, h in registered]


def assert_hint(got: tuple[str, str | None], hint: str, want_err: bool) -> None:
    h, err = got
    if want_err:
        assert err is not None
        assert h == QUEUE
    else:
        assert err is None
        assert h == hint


@dataclass
class DeviceClass:
    """The fields of ``resourceapi.DeviceClass`` the hint reads."""

    name: str = ""
    extended_resource_name: str | None = None


# ----- TestEventsToRegister ------------------------------------------------------------------

AP_DELETE = ClusterEvent(ev.ASSIGNED_POD, ev.DELETE)
NODE_ADD_ALLOC = ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_ALLOCATABLE)
DC_ADD_UPDATE = ClusterEvent(ev.DEVICE_CLASS, ev.ADD | ev.UPDATE)
AP_SCALE_DOWN = ClusterEvent(ev.ASSIGNED_POD, ev.UPDATE_POD_SCALE_DOWN)
TP_SCALE_DOWN = ClusterEvent(ev.TARGET_POD, ev.UPDATE_POD_SCALE_DOWN)
AP_SCALE_UP = ClusterEvent(ev.ASSIGNED_POD, ev.UPDATE_POD_SCALE_UP)
TP_SCALE_UP = ClusterEvent(ev.TARGET_POD, ev.UPDATE_POD_SCALE_UP)


@pytest.mark.parametrize("name,gates,want", [
    ("Register events with InPlacePodVerticalScaling feature enabled",
     {"InPlacePodVerticalScaling": True},
     [AP_DELETE, NODE_ADD_ALLOC, AP_SCALE_DOWN, TP_SCALE_DOWN]),
    ("Register events with default features", {}, [AP_DELETE, NODE_ADD_ALLOC]),
    ("Register events with DRAExtendedResource feature enabled",
     {"DRAExtendedResource": True}, [AP_DELETE, NODE_ADD_ALLOC, DC_ADD_UPDATE]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_fit_events_to_register(name: str, gates: dict[str, bool],
                                want: list[ClusterEvent]) -> None:
    """fit_test.go TestEventsToRegister (``plfeature.Features``: unnamed gates off)."""
    pl = fit_gates_off(**gates)
    got = as_events(pl.events_to_register())
    assert [e for e, _ in got] == want
    for _, hint in got:
        assert callable(getattr(pl, hint))


def test_fit_events_to_register_v1_37_2_defaults() -> None:
    """fit.go EventsToRegister with the v1.37.2 gate defaults (DRAExtendedResource and
    InPlacePodVerticalScaling on, InPlacePodVerticalScalingSchedulerPreemption off)."""
    assert as_events(fit().events_to_register()) == [
        (AP_DELETE, "is_schedulable_after_assigned_pod_delete"),
        (NODE_ADD_ALLOC, "is_schedulable_after_node_change"),
        (DC_ADD_UPDATE, "is_schedulable_after_device_class_event"),
        (AP_SCALE_DOWN, "is_schedulable_after_assigned_pod_scale_down"),
        (TP_SCALE_DOWN, "is_schedulable_after_target_pod_scale_down"),
    ]


def test_fit_events_to_register_scheduler_preemption_gate() -> None:
    """fit.go EventsToRegister: InPlacePodVerticalScalingSchedulerPreemption adds the
    scale-up events."""
    got = as_events(fit(InPlacePodVerticalScalingSchedulerPreemption=True).events_to_register())
    assert got[-2:] == [(AP_SCALE_UP, "is_schedulable_after_assigned_pod_scale_up"),
                        (TP_SCALE_UP, "is_schedulable_after_target_pod_scale_up")]
    assert len(got) == 7


# ----- Test_isSchedulableAfterAssignedPodDelete -------------------------------------------------

CPU1 = {"cpu": "1"}
CPU2 = {"cpu": "2"}


@pytest.mark.parametrize("name,pod,old,hint,want_err", [
    ("backoff-wrong-old-object", make_pod(), "not-a-pod", QUEUE, True),
    ("queue-on-other-pod-deleted", make_pod("pod1", req=CPU1),
     make_pod("pod2", req=CPU1, node="fake"), QUEUE, False),
    ("skip-queue-on-unscheduled-pod-deleted", make_pod(), make_pod(), QUEUE_SKIP, False),
    ("queue-on-nominated-pod-deleted", make_pod("pod1", req=CPU1),
     make_pod("pod2", req=CPU2, nominated="fake"), QUEUE, False),
], ids=lambda v: v if isinstance(v, str) else "")
def test_is_schedulable_after_assigned_pod_delete(name: str, pod: Pod, old: object, hint: str,
                                                  want_err: bool) -> None:
    """fit_test.go Test_isSchedulableAfterAssignedPodDelete (InPlacePodVerticalScaling-
    SchedulerPreemption on)."""
    pl = fit_gates_off(InPlacePodVerticalScalingSchedulerPreemption=True)
    assert_hint(pl.is_schedulable_after_assigned_pod_delete(pod, old, None), hint, want_err)


# ----- Test_isSchedulableAfterTargetPodScaleDown ------------------------------------------------

@pytest.mark.parametrize("name,pod", [
    ("queue-on-target-pod-some-resource-scale-down", make_pod("pod1", req=CPU1)),
    ("queue-on-target-pod-some-pod-level-resource-scale-down",
     make_pod("pod1", pod_level=CPU1)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_is_schedulable_after_target_pod_scale_down(name: str, pod: Pod) -> None:
    """fit_test.go Test_isSchedulableAfterTargetPodScaleDown."""
    pl = fit_gates_off(InPlacePodVerticalScaling=True)
    assert pl.is_schedulable_after_target_pod_scale_down(pod, None, None) == (QUEUE, None)


# ----- Test_isSchedulableAfterAssignedPodScaleDown ----------------------------------------------

MEM1 = {"memory": "1"}
MEM2 = {"memory": "2"}


@pytest.mark.parametrize("name,pod,old,new,hint,want_err", [
    ("backoff-wrong-old-object", make_pod(), "not-a-pod", None, QUEUE, True),
    ("backoff-wrong-new-object", make_pod(), None, "not-a-pod", QUEUE, True),
    ("skip-queue-on-other-unscheduled-pod", make_pod("pod1", req=CPU1),
     make_pod("pod2", req=CPU2), make_pod("pod2", req=CPU1), QUEUE_SKIP, False),
    ("skip-queue-on-other-pod-unrelated-resource-scaled-down", make_pod("pod1", req=CPU1),
     make_pod("pod2", req=MEM2, node="fake"), make_pod("pod2", req=MEM1, node="fake"),
     QUEUE_SKIP, False),
    ("skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down",
     make_pod("pod1", pod_level=CPU1), make_pod("pod2", pod_level=MEM2, node="fake"),
     make_pod("pod2", pod_level=MEM1, node="fake"), QUEUE_SKIP, False),
    ("queue-on-other-pod-some-resource-scale-down", make_pod("pod1", req=CPU1),
     make_pod("pod2", req=CPU2, node="fake"), make_pod("pod2", req=CPU1, node="fake"),
     QUEUE, False),
    ("queue-on-other-pod-some-pod-level-resource-scale-down", make_pod("pod1", pod_level=CPU1),
     make_pod("pod2", pod_level=CPU2, node="fake"), make_pod("pod2", pod_level=CPU1, node="fake"),
     QUEUE, False),
], ids=lambda v: v if isinstance(v, str) else "")
def test_is_schedulable_after_assigned_pod_scale_down(name: str, pod: Pod, old: object,
                                                      new: object, hint: str,
                                                      want_err: bool) -> None:
    """fit_test.go Test_isSchedulableAfterAssignedPodScaleDown (InPlacePodVerticalScaling and
    InPlacePodVerticalScalingSchedulerPreemption on)."""
    pl = fit_gates_off(InPlacePodVerticalScaling=True,
                       InPlacePodVerticalScalingSchedulerPreemption=True)
    assert_hint(pl.is_schedulable_after_assigned_pod_scale_down(pod, old, new), hint, want_err)


# ----- Test_isSchedulableAfterNodeChange ----------------------------------------------------------

_MEM2_A1 = {"mem": 2, "scalar": {EXT_A: 1}}


@pytest.mark.parametrize("name,pod,old,new,hint,want_err", [
    ("backoff-wrong-new-object", make_pod(), None, "not-a-node", QUEUE, True),
    ("backoff-wrong-old-object", make_pod(), "not-a-node", Node(""), QUEUE, True),
    ("skip-queue-on-node-add-without-sufficient-resources", resource_pod(mem=2), None,
     capacity_node({"memory": "1"}), QUEUE_SKIP, False),
    ("skip-queue-on-node-add-without-required-resource-type", resource_pod(scalar={EXT_A: 1}),
     None, capacity_node({EXT_B: "1"}), QUEUE_SKIP, False),
    ("queue-on-node-add-with-sufficient-resources", resource_pod(**_MEM2_A1), None,
     capacity_node({"memory": "4", EXT_A: "2"}), QUEUE, False),
    ("skip-queue-on-node-unrelated-changes", resource_pod(**_MEM2_A1),
     capacity_node({"memory": "2", EXT_A: "2"}),
     capacity_node({"memory": "2", EXT_A: "1", EXT_B: "2"}), QUEUE_SKIP, False),
    ("queue-on-pod-requested-resources-increase", resource_pod(**_MEM2_A1),
     capacity_node({"memory": "2", EXT_A: "1"}), capacity_node({"memory": "2", EXT_A: "2"}),
     QUEUE, False),
    ("skip-queue-on-node-changes-from-suitable-to-unsuitable", resource_pod(**_MEM2_A1),
     capacity_node({"memory": "4", EXT_A: "2"}), capacity_node({"memory": "1", EXT_A: "2"}),
     QUEUE_SKIP, False),
    ("queue-on-node-changes-from-unsuitable-to-suitable", resource_pod(**_MEM2_A1),
     capacity_node({"memory": "1", EXT_A: "2"}), capacity_node({"memory": "4", EXT_A: "2"}),
     QUEUE, False),
], ids=lambda v: v if isinstance(v, str) else "")
def test_is_schedulable_after_node_change(name: str, pod: Pod, old: object, new: object,
                                          hint: str, want_err: bool) -> None:
    """fit_test.go Test_isSchedulableAfterNodeChange (``plfeature.Features{}``)."""
    pl = fit_gates_off()
    assert_hint(pl.is_schedulable_after_node_change(pod, old, new), hint, want_err)


# ----- Test_isSchedulableAfterDeviceClassChange -----------------------------------------------

GPU = "example.com/gpu"
IMPLICIT_GPUCLASS = "deviceclass.resource.kubernetes.io/gpuclass"


@pytest.mark.parametrize("name,pod,old,new,hint,want_err", [
    ("backoff-wrong-new-object", make_pod(), None, "not-a-class", QUEUE, True),
    ("backoff-wrong-old-object", make_pod(), "not-a-class", DeviceClass(), QUEUE, True),
    ("skip-queue-on-class-nil-extended-resource-name-pointer", resource_pod(mem=2),
     DeviceClass(), DeviceClass(), QUEUE_SKIP, False),
    ("skip-queue-on-class-same-extended-resource-name-pointer", resource_pod(mem=2),
     DeviceClass(extended_resource_name=GPU), DeviceClass(extended_resource_name=GPU),
     QUEUE_SKIP, False),
    ("skip-queue-on-class-same-extended-resource-name", resource_pod(mem=2),
     DeviceClass(extended_resource_name="example.com/gpu"),
     DeviceClass(extended_resource_name="example.com/gpu"), QUEUE_SKIP, False),
    ("queue-on-class-add-with-implicit-extended-resource-name",
     resource_pod(scalar={IMPLICIT_GPUCLASS: 1}), None, DeviceClass("gpuclass", GPU),
     QUEUE, False),
    ("skip-on-class-add-with-implicit-extended-resource-name-not-matching",
     resource_pod(scalar={IMPLICIT_GPUCLASS: 1}), None, DeviceClass("myclass", GPU),
     QUEUE_SKIP, False),
    ("skip-on-class-add-with-explicit-extended-resource-name-not-matching",
     resource_pod(scalar={"example.com/othergpu": 1}), None, DeviceClass("myclass", GPU),
     QUEUE_SKIP, False),
    ("skip-on-class-update-with-implicit-extended-resource-name",
     resource_pod(scalar={IMPLICIT_GPUCLASS: 1}), DeviceClass("gpuclass"),
     DeviceClass("gpuclass", GPU), QUEUE_SKIP, False),
    ("queue-on-class-add-with-extended-resource-name", resource_pod(scalar={GPU: 1}), None,
     DeviceClass(extended_resource_name=GPU), QUEUE, False),
    ("queue-on-class-update-with-extended-resource-name", resource_pod(scalar={GPU: 1}),
     DeviceClass(extended_resource_name="example.com/gpu1"),
     DeviceClass(extended_resource_name=GPU), QUEUE, False),
], ids=lambda v: v if isinstance(v, str) else "")
def test_is_schedulable_after_device_class_change(name: str, pod: Pod, old: object,
                                                  new: object, hint: str,
                                                  want_err: bool) -> None:
    """fit_test.go Test_isSchedulableAfterDeviceClassChange."""
    pl = fit_gates_off()
    assert_hint(pl.is_schedulable_after_device_class_event(pod, old, new), hint, want_err)


# ----- Test_isSchedulableAfterTargetPodScaleUp / Test_isSchedulableAfterAssignedPodScaleUp -----

def deferred(pod: Pod) -> Pod:
    """``.Condition(v1.PodResizePending, v1.ConditionTrue, v1.PodReasonDeferred)``."""
    return dataclasses.replace(pod, resize_pending_reason="Deferred")


@pytest.mark.parametrize("name,pod,hint", [
    ("skip-queue-on-pod-not-deferred", make_pod("pod1", node="node1"), QUEUE_SKIP),
    ("queue-on-deferred-target-pod-scale-up", deferred(make_pod("pod1", node="node1")), QUEUE),
], ids=lambda v: v if isinstance(v, str) else "")
def test_is_schedulable_after_target_pod_scale_up(name: str, pod: Pod, hint: str) -> None:
    """fit_test.go Test_isSchedulableAfterTargetPodScaleUp."""
    pl = fit_gates_off(InPlacePodVerticalScalingSchedulerPreemption=True)
    assert pl.is_schedulable_after_target_pod_scale_up(pod, None, None) == (hint, None)


@pytest.mark.parametrize("name,pod,old,new,hint,want_err", [
    ("backoff-wrong-old-object", make_pod(), "not-a-pod", None, QUEUE, True),
    ("backoff-wrong-new-object", make_pod(), None, "not-a-pod", QUEUE, True),
    ("skip-queue-on-pod-not-deferred", make_pod("pod1", node="node1"),
     make_pod("pod2", node="node1"), make_pod("pod2", node="node1"), QUEUE_SKIP, False),
    ("skip-queue-on-different-node-scale-up", deferred(make_pod("pod1", node="node1")),
     make_pod("pod2", node="node2", req={"cpu": "1"}),
     make_pod("pod2", node="node2", req={"cpu": "2"}), QUEUE_SKIP, False),
    ("queue-on-same-node-scale-up", deferred(make_pod("pod1", node="node1")),
     make_pod("pod2", node="node1", req={"cpu": "1"}),
     make_pod("pod2", node="node1", req={"cpu": "2"}), QUEUE, False),
], ids=lambda v: v if isinstance(v, str) else "")
def test_is_schedulable_after_assigned_pod_scale_up(name: str, pod: Pod, old: object,
                                                    new: object, hint: str,
                                                    want_err: bool) -> None:
    """fit_test.go Test_isSchedulableAfterAssignedPodScaleUp."""
    pl = fit_gates_off(InPlacePodVerticalScalingSchedulerPreemption=True)
    assert_hint(pl.is_schedulable_after_assigned_pod_scale_up(pod, old, new), hint, want_err)


# ----- TestIsFit ------------------------------------------------------------------------------

@pytest.mark.parametrize("name,pod,node,pod_level,want", [
    ("nil node", make_pod(), None, False, False),
    ("insufficient resource", make_pod(req=CPU2), capacity_node(CPU1), False, False),
    ("sufficient resource", make_pod(req=CPU1), capacity_node(CPU2), False, True),
    ("insufficient pod-level resource", make_pod(pod_level=CPU2), capacity_node(CPU1), True,
     False),
    ("sufficient pod-level resource", make_pod(pod_level=CPU2), capacity_node(CPU2), True,
     True),
    ("sufficient pod-level resource hugepages", make_pod(pod_level={HUGE_A: "2Mi"}),
     capacity_node({HUGE_A: "2Mi"}), True, True),
    ("insufficient pod-level resource hugepages", make_pod(pod_level={HUGE_A: "4Mi"}),
     capacity_node({HUGE_A: "2Mi"}), True, False),
], ids=lambda v: v if isinstance(v, str) else "")
def test_is_fit(name: str, pod: Pod, node: Node | None, pod_level: bool, want: bool) -> None:
    """fit_test.go TestIsFit."""
    assert is_fit(pod, node, pod_level) is want


# ----- TestHaveAnyRequestedResourcesIncreased ----------------------------------------------------

def _caps(d: dict[str, str]) -> Node:
    return capacity_node(d)


_ALL1 = {"pods": "1", "cpu": "1", "memory": "1", "ephemeral-storage": "1", EXT_A: "1"}
_REQ222 = {"cpu": 2, "mem": 2, "eph": 2}


@pytest.mark.parametrize("name,pod,old,new,want", [
    ("no-requested-resources", resource_pod(), _caps(_ALL1),
     _caps({"pods": "1", "cpu": "2", "memory": "2", "ephemeral-storage": "2", EXT_A: "2"}),
     False),
    ("no-requested-resources-pods-increased", resource_pod(), _caps(_ALL1),
     _caps({**_ALL1, "pods": "2"}), True),
    ("requested-resources-dra-in-node", resource_pod(**_REQ222, scalar={DRA_EXT: 2}),
     _caps({"cpu": "1", "memory": "2", "ephemeral-storage": "3", DRA_EXT: "4"}),
     _caps({"cpu": "1", "memory": "2", "ephemeral-storage": "1", DRA_EXT: "1"}), False),
    ("scalar-resources-not-in-node", resource_pod(**_REQ222, scalar={EXT_A: 2}),
     _caps({"cpu": "1", "memory": "2", "ephemeral-storage": "3"}),
     _caps({"cpu": "1", "memory": "2", "ephemeral-storage": "1"}), False),
    ("requested-resources-decreased", resource_pod(**_REQ222, scalar={EXT_A: 2}),
     _caps({"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"}),
     _caps({"cpu": "1", "memory": "2", "ephemeral-storage": "1", EXT_A: "1"}), False),
    ("requested-resources-increased", resource_pod(**_REQ222, scalar={EXT_A: 2}),
     _caps({"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"}),
     _caps({"cpu": "3", "memory": "4", "ephemeral-storage": "3", EXT_A: "4"}), True),
    ("non-requested-resources-decreased", resource_pod(cpu=2, mem=2),
     _caps({"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"}),
     _caps({"cpu": "1", "memory": "2", "ephemeral-storage": "1", EXT_A: "1"}), False),
    ("non-requested-resources-increased", resource_pod(cpu=2, mem=2),
     _caps({"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXT_A: "4"}),
     _caps({"cpu": "1", "memory": "2", "ephemeral-storage": "5", EXT_A: "6"}), False),
], ids=lambda v: v if isinstance(v, str) else "")
def test_have_any_requested_resources_increased(name: str, pod: Pod, old: Node, new: Node,
                                                want: bool) -> None:
    """fit_test.go TestHaveAnyRequestedResourcesIncreased."""
    assert have_any_requested_resources_increased(pod, old, new, False) is want


# ----- the default profile's registrations -----------------------------------------------------

# Every default plugin's EventsToRegister at v1.37.2 (gate defaults), from the plugins' Go
# sources: (resource, action type names, hint method or None).
UPSTREAM_DEFAULT_EVENTS: dict[str, list[tuple[str, tuple[str, ...], str | None]]] = {
    # schedulinggates/scheduling_gates.go
    "SchedulingGates": [
        (ev.TARGET_POD, ("UpdatePodSchedulingGatesEliminated",),
         "is_schedulable_after_update_target_pod_scheduling_gates_eliminated")],
    # nodename/node_name.go
    "NodeName": [(ev.NODE, ("Add",), None)],
    # nodeunschedulable/node_unschedulable.go
    "NodeUnschedulable": [
        (ev.NODE, ("Add", "UpdateNodeTaint"), "is_schedulable_after_node_change"),
        (ev.TARGET_POD, ("UpdatePodToleration",),
         "is_schedulable_after_target_pod_toleration_change")],
    # tainttoleration/taint_toleration.go
    "TaintToleration": [
        (ev.NODE, ("Add", "UpdateNodeTaint"), "is_schedulable_after_node_change"),
        (ev.TARGET_POD, ("UpdatePodToleration",),
         "is_schedulable_after_target_pod_toleration_change")],
    # nodeaffinity/node_affinity.go
    "NodeAffinity": [(ev.NODE, ("Add", "UpdateNodeLabel"), "is_schedulable_after_node_change")],
    # nodeports/node_ports.go
    "NodePorts": [(ev.ASSIGNED_POD, ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
                  (ev.NODE, ("Add",), None)],
    # noderesources/fit.go (DRAExtendedResource and InPlacePodVerticalScaling on)
    "NodeResourcesFit": [
        (ev.ASSIGNED_POD, ("Delete",), "is_schedulable_after_assigned_pod_delete"),
        (ev.NODE, ("Add", "UpdateNodeAllocatable"), "is_schedulable_after_node_change"),
        (ev.DEVICE_CLASS, ("Add", "Update"), "is_schedulable_after_device_class_event"),
        (ev.ASSIGNED_POD, ("UpdatePodScaleDown",), "is_schedulable_after_assigned_pod_scale_down"),
        (ev.TARGET_POD, ("UpdatePodScaleDown",), "is_schedulable_after_target_pod_scale_down")],
    # volumerestrictions/volume_restrictions.go
    "VolumeRestrictions": [
        (ev.ASSIGNED_POD, ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
        (ev.NODE, ("Add",), None),
        (ev.PERSISTENT_VOLUME_CLAIM, ("Add",),
         "is_schedulable_after_persistent_volume_claim_added")],
    # nodevolumelimits/csi.go
    "NodeVolumeLimits": [
        (ev.CSI_NODE, ("Add",), None),
        (ev.CSI_NODE, ("Update",), "is_schedulable_after_csi_node_updated"),
        (ev.ASSIGNED_POD, ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
        (ev.PERSISTENT_VOLUME_CLAIM, ("Add",), "is_schedulable_after_pvc_added"),
        (ev.VOLUME_ATTACHMENT, ("Delete",), "is_schedulable_after_volume_attachment_deleted")],
    # volumebinding/volume_binding.go
    "VolumeBinding": [
        (ev.STORAGE_CLASS, ("Add", "Update"), "is_schedulable_after_storage_class_change"),
        (ev.PERSISTENT_VOLUME_CLAIM, ("Add", "Update"),
         "is_schedulable_after_persistent_volume_claim_change"),
        (ev.PERSISTENT_VOLUME, ("Add", "Update"), None),
        (ev.NODE, ("Add", "UpdateNodeLabel"), None),
        (ev.CSI_NODE, ("Add", "Update"), "is_schedulable_after_csi_node_change"),
        (ev.CSI_DRIVER, ("Update",), "is_schedulable_after_csi_driver_change"),
        (ev.CSI_STORAGE_CAPACITY, ("Add", "Update"),
         "is_schedulable_after_csi_storage_capacity_change")],
    # volumezone/volume_zone.go
    "VolumeZone": [
        (ev.STORAGE_CLASS, ("Add",), "is_schedulable_after_storage_class_added"),
        (ev.NODE, ("Add", "UpdateNodeLabel"), None),
        (ev.PERSISTENT_VOLUME_CLAIM, ("Add", "Update"),
         "is_schedulable_after_persistent_volume_claim_change"),
        (ev.PERSISTENT_VOLUME, ("Add", "Update"), "is_schedulable_after_persistent_volume_change")],
    # podtopologyspread/plugin.go
    "PodTopologySpread": [
        (ev.ASSIGNED_POD, ("Add", "UpdatePodLabel", "Delete"),
         "is_schedulable_after_assigned_pod_change"),
        (ev.TARGET_POD, ("UpdatePodToleration", "UpdatePodLabel"),
         "is_schedulable_after_target_pod_change"),
        (ev.NODE, ("Add", "Delete", "UpdateNodeLabel", "UpdateNodeTaint"),
         "is_schedulable_after_node_change")],
    # interpodaffinity/plugin.go
    "InterPodAffinity": [
        (ev.ASSIGNED_POD, ("Add", "UpdatePodLabel", "Delete"),
         "is_schedulable_after_assigned_pod_change"),
        (ev.TARGET_POD, ("UpdatePodLabel",), "is_schedulable_after_target_pod_update_label"),
        (ev.NODE, ("Add", "UpdateNodeLabel"), "is_schedulable_after_node_change")],
    # dynamicresources/dynamicresources.go (DynamicResourceAllocation on)
    "DynamicResources": [
        (ev.NODE, ("Add", "UpdateNodeLabel", "UpdateNodeAllocatable"), None),
        (ev.RESOURCE_CLAIM, ("Add", "Update", "Delete"), "is_schedulable_after_claim_change"),
        (ev.TARGET_POD, ("UpdatePodGeneratedResourceClaim",),
         "is_schedulable_after_target_pod_update"),
        (ev.DEVICE_CLASS, ("Add", "Update"), None),
        (ev.RESOURCE_SLICE, ("Add", "Update"), None)],
    # defaultpreemption/default_preemption.go (SchedulerAsyncPreemption on)
    "DefaultPreemption": [
        (ev.ASSIGNED_POD, ("Delete",), "is_pod_schedulable_after_assigned_pod_deletion")],
    # nodedeclaredfeatures/nodedeclaredfeatures.go (NodeDeclaredFeatures on)
    "NodeDeclaredFeatures": [
        (ev.NODE, ("Add", "UpdateNodeDeclaredFeature"), "is_schedulable_after_node_change"),
        (ev.TARGET_POD, ("Update",), "is_schedulable_after_target_pod_update")],
    # PrioritySort (QueueSort), NodeResourcesBalancedAllocation (PreScore/Score), ImageLocality
    # (Score) and DefaultBinder (Bind) are no enqueue extensions (runtime/framework.go
    # shouldHaveEnqueueExtensions): they register nothing and never see events.
}


def _default_profile_hint_map() -> dict:
    s = Scheduler(Cluster(nodes=[Node("n")]))
    fwk = next(iter(s.profiles.values()))
    return profile_queueing_hint_map(fwk)


def test_default_profile_events_match_upstream() -> None:
    """buildQueueingHintMap over the default profile: each plugin registers exactly upstream's
    events with upstream's hint (or the always-Queue default); no plugin falls back to
    ``defaultEnqueueExtension`` (every resource, All)."""
    hint_map = _default_profile_hint_map()
    got: dict[str, set[tuple[ClusterEvent, str | None]]] = {}
    for event, fns in hint_map.items():
        for qh in fns:
            fn_name = getattr(qh.fn, "__name__", "")
            hint = None if fn_name == "_default_queueing_hint_fn" else fn_name
            got.setdefault(qh.plugin_name, set()).add((event, hint))
    want = {name: set(as_events(evs)) for name, evs in UPSTREAM_DEFAULT_EVENTS.items()}
    assert got == want
    for name in ("NodeResourcesBalancedAllocation", "ImageLocality", "PrioritySort",
                 "DefaultBinder"):
        assert name not in got


# ----- hints through the scheduling queue ----------------------------------------------------

T0 = 1_700_000_000 * SECOND
FIT = "NodeResourcesFit"


def _queue_with_rejected(pod: Pod, plugin_list: list | None = None
                         ) -> tuple[PriorityQueue, Fit]:
    """A queue whose hint map is built from a Fit plugin (v1.37.2 gates), with ``pod`` in the
    unschedulable pool, rejected by NodeResourcesFit 20 s ago (its backoff is over)."""
    pl = fit()
    hint_map = build_queueing_hint_map(plugin_list if plugin_list is not None else [pl])
    q = PriorityQueue(PrioritySort().less, clock=VirtualClock(T0),
                      queueing_hint_map={pod.scheduler_name: hint_map})
    qpi = QueuedPodInfo(pod, T0 - 20 * SECOND, unschedulable_plugins={FIT})
    qpi.stamp = next_stamp()
    q.unschedulable_pods.add_or_update(qpi)
    return q, pl


def _pending(cpu: str = "2") -> Pod:
    pod = make_pod("pending", req={"cpu": cpu})
    return dataclasses.replace(pod, namespace="default")


def test_own_status_update_does_not_requeue_a_pod_rejected_by_fit() -> None:
    """A TargetPod/Update with no scheduling-relevant change (e.g. its nominatedNodeName) is not
    an event Fit registered: the pod stays in the unschedulable pool."""
    pod = _pending()
    q, _ = _queue_with_rejected(pod)
    q.update(pod, dataclasses.replace(pod, nominated_node_name="n1"))
    assert q.where(pod.key) == "unschedulablePods"


def test_node_add_requeues_only_when_the_pod_fits() -> None:
    """Node/Add: a node too small for the pod's request is skipped; one it fits moves it."""
    pod = _pending()
    q, _ = _queue_with_rejected(pod)
    q.move_all_to_active_or_backoff_queue(ev.EVENT_NODE_ADD, None,
                                          capacity_node({"cpu": "1"}, "small"))
    assert q.where(pod.key) == "unschedulablePods"
    q.move_all_to_active_or_backoff_queue(ev.EVENT_NODE_ADD, None,
                                          capacity_node({"cpu": "4"}, "big"))
    assert q.where(pod.key) == "activeQ"


def test_node_label_update_is_not_of_interest_to_fit() -> None:
    """Node/UpdateNodeLabel is not registered by Fit (only Add | UpdateNodeAllocatable)."""
    pod = _pending()
    q, _ = _queue_with_rejected(pod)
    old = capacity_node({"cpu": "4"}, "n")
    new = dataclasses.replace(old, labels={"a": "b"})
    for e in ev.node_scheduling_properties_change(new, old):
        q.move_all_to_active_or_backoff_queue(e, old, new)
    assert q.where(pod.key) == "unschedulablePods"


def test_node_allocatable_increase_requeues() -> None:
    """Node/UpdateNodeAllocatable: more cpu on a node the pod now fits moves it."""
    pod = _pending()
    q, _ = _queue_with_rejected(pod)
    old = capacity_node({"cpu": "1"}, "n")
    new = capacity_node({"cpu": "3"}, "n")
    events = ev.node_scheduling_properties_change(new, old)
    assert events == [ClusterEvent(ev.NODE, ev.UPDATE_NODE_ALLOCATABLE)]
    q.move_all_to_active_or_backoff_queue(events[0], old, new)
    assert q.where(pod.key) == "activeQ"


def test_assigned_pod_delete_requeues_only_for_placed_pods() -> None:
    """AssignedPod/Delete: an unbound, unnominated pod is skipped; a bound one moves the pod."""
    pod = _pending()
    q, _ = _queue_with_rejected(pod)
    q.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_DELETE,
                                          make_pod("gone", req=CPU1), None)
    assert q.where(pod.key) == "unschedulablePods"
    q.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_DELETE,
                                          make_pod("gone", req=CPU1, node="n"), None)
    assert q.where(pod.key) == "activeQ"


def test_assigned_pod_add_is_not_of_interest_to_fit() -> None:
    """AssignedPod/Add cannot free resources: Fit does not register it."""
    pod = _pending()
    q, _ = _queue_with_rejected(pod)
    q.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_ADD, None,
                                          make_pod("new", req=CPU1, node="n"))
    assert q.where(pod.key) == "unschedulablePods"


def test_assigned_pod_scale_down_requeues_when_a_requested_resource_shrinks() -> None:
    """AssignedPod/UpdatePodScaleDown: memory shrinking does not help a cpu-only pod; cpu
    shrinking does."""
    pod = _pending()
    q, _ = _queue_with_rejected(pod)
    old = make_pod("bound", req={"cpu": "2", "memory": "2Gi"}, node="n")
    mem_down = dataclasses.replace(
        old, containers=(Container("c", requests=(("cpu", Fraction(2)),
                                                  ("memory", _q("1Gi")))),))
    events = ev.pod_scheduling_properties_change(mem_down, old, False)
    assert events == [AP_SCALE_DOWN]
    q.move_all_to_active_or_backoff_queue(events[0], old, mem_down)
    assert q.where(pod.key) == "unschedulablePods"
    cpu_down = dataclasses.replace(
        old, containers=(Container("c", requests=(("cpu", Fraction(1)),
                                                  ("memory", _q("2Gi")))),))
    q.move_all_to_active_or_backoff_queue(AP_SCALE_DOWN, old, cpu_down)
    assert q.where(pod.key) == "activeQ"


def test_target_pod_scale_down_requeues() -> None:
    """TargetPod/UpdatePodScaleDown: the pod itself asks for less."""
    pod = _pending("2")
    q, _ = _queue_with_rejected(pod)
    smaller = dataclasses.replace(
        pod, containers=(Container("c", requests=(("cpu", Fraction(1)),)),))
    q.update(pod, smaller)
    assert q.where(pod.key) == "activeQ"
