"""A user plugin: a copy of the in-tree TaintToleration with a re-implementation bug planted:
its Filter rejects only untolerated ``NoSchedule`` taints and lets ``NoExecute`` ones pass
(upstream's ``DoNotScheduleTaintsFilterFunc`` keeps both)."""

from __future__ import annotations

from reference_impl.api.tolerations import find_matching_untolerated_taint
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Pod
from reference_impl.plugins.tainttoleration import ERR_REASON_UNTOLERATED, TaintToleration


class MyTaintToleration(TaintToleration):
    """TaintToleration whose Filter forgets NoExecute taints."""

    name = "MyTaintToleration"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        taints = node_info.node.taints
        if not taints:
            return None
        if find_matching_untolerated_taint(taints, pod.tolerations,
                                           lambda t: t.effect == "NoSchedule",
                                           self.enable_comparison_operators) is None:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNTOLERATED)
