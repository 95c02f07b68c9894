"""SchedulingGates: keep pods with ``spec.schedulingGates`` out of the active queue.

Upstream: ``pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go``.
"""

from __future__ import annotations

from typing import Any

from reference_impl.framework.interfaces import EnqueueExtensions, PreEnqueuePlugin
from reference_impl.framework.status import Code, Status
from reference_impl.model.objects import Pod
from reference_impl.plugins import names

QUEUE = "Queue"


class SchedulingGates(PreEnqueuePlugin, EnqueueExtensions):
    name = names.SchedulingGates
    pre_enqueue_reads_only_the_pod = True

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """``PreEnqueue``: UnschedulableAndUnresolvable listing the gates as Go's ``%v`` of a
        string slice, e.g. ``waiting for scheduling gates: [foo bar]``."""
        gates = pod.scheduling_gates
        if not gates:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                      f"waiting for scheduling gates: [{' '.join(gates)}]")

    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, hint method name)."""
        return [("TargetPod", ("UpdatePodSchedulingGatesEliminated",),
                 "is_schedulable_after_update_target_pod_scheduling_gates_eliminated")]

    def is_schedulable_after_update_target_pod_scheduling_gates_eliminated(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> tuple[str, str | None]:
        """Always Queue."""
        return QUEUE, None
