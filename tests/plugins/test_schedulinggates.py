"""SchedulingGates, restating pkg/scheduler/framework/plugins/schedulinggates/
scheduling_gates_test.go of v1.37.2 (TestPreEnqueue,
TestIsSchedulableAfterUpdateTargetPodSchedulingGatesEliminated)."""

from __future__ import annotations

from reference_impl.framework.status import Code, Status
from reference_impl.model.objects import Pod
from reference_impl.plugins.schedulinggates import SchedulingGates
from reference_impl.testing.wrappers import make_pod


def pod(*gates: str) -> Pod:
    return make_pod("p").scheduling_gates(*gates).obj()


def test_pre_enqueue_without_gates():
    assert SchedulingGates(None, None).pre_enqueue(pod()) is None


def test_pre_enqueue_with_gates():
    assert SchedulingGates(None, None).pre_enqueue(pod("foo", "bar")) == Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for scheduling gates: [foo bar]")


def test_is_schedulable_after_gates_eliminated():
    pl = SchedulingGates(None, None)
    assert pl.is_schedulable_after_update_target_pod_scheduling_gates_eliminated(
        pod("foo"), pod("foo"), pod()) == ("Queue", None)
    assert pl.events_to_register() == [
        ("TargetPod", ("UpdatePodSchedulingGatesEliminated",),
         "is_schedulable_after_update_target_pod_scheduling_gates_eliminated")]
