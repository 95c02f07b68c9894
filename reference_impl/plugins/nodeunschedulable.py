"""NodeUnschedulable: filter out nodes with ``spec.unschedulable`` unless the pod tolerates the
``node.kubernetes.io/unschedulable:NoSchedule`` taint.

Upstream: ``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go``.
The InPlacePodVerticalScalingSchedulerPreemption gate (alpha, off) is not modelled.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from reference_impl.api.tolerations import tolerations_signer, tolerations_tolerate_taint
from reference_impl.framework.columns import Mask, NodeColumns
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, PreFilterResult, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import (
    TAINT_NO_SCHEDULE,
    TAINT_NODE_UNSCHEDULABLE,
    Node,
    Pod,
    Taint,
)
from reference_impl.plugins import names

ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"

# The taint a pod must tolerate to land on an unschedulable node.
UNSCHEDULABLE_TAINT = Taint(key=TAINT_NODE_UNSCHEDULABLE, value="", effect=TAINT_NO_SCHEDULE)

QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"


class NodeUnschedulable(PreFilterPlugin, FilterPlugin, SignPlugin, EnqueueExtensions):
    name = names.NodeUnschedulable
    # v1.34-v1.36 node_unschedulable.go has no PreFilter (v1.37's does nothing at the defaults).
    release_points = {"preFilter": ("nodeunschedulable-prefilter", "filter")}

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        self.enable_comparison_operators = (
            handle is not None and handle.feature_enabled("TaintTolerationComparisonOperators"))

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: the verdict depends on the pod's tolerations."""
        return [("v1.Pod.Spec.Tolerations", tolerations_signer(pod.tolerations))], None

    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, hint method name)."""
        return [
            ("Node", ("Add", "UpdateNodeTaint"), "is_schedulable_after_node_change"),
            ("TargetPod", ("UpdatePodToleration",),
             "is_schedulable_after_target_pod_toleration_change"),
        ]

    def is_schedulable_after_target_pod_toleration_change(self, pod: Pod, old_obj: Any,
                                                          new_obj: Any) -> tuple[str, str | None]:
        """``isSchedulableAfterTargetPodTolerationChange``: Queue if the updated pod now
        tolerates the unschedulable taint."""
        if new_obj is not None and not isinstance(new_obj, Pod):
            return QUEUE, f"expected *v1.Pod, but got {type(new_obj).__name__}"
        if old_obj is not None and not isinstance(old_obj, Pod):
            return QUEUE, f"expected *v1.Pod, but got {type(old_obj).__name__}"
        assert new_obj is not None  # UpdatePodToleration events carry the updated pod
        if tolerations_tolerate_taint(new_obj.tolerations, UNSCHEDULABLE_TAINT,
                                      self.enable_comparison_operators):
            return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                         ) -> tuple[str, str | None]:
        """``isSchedulableAfterNodeChange``: Queue when a node turns schedulable or a
        schedulable node is added."""
        if new_obj is not None and not isinstance(new_obj, Node):
            return QUEUE, f"expected *v1.Node, but got {type(new_obj).__name__}"
        if old_obj is not None and not isinstance(old_obj, Node):
            return QUEUE, f"expected *v1.Node, but got {type(old_obj).__name__}"
        assert new_obj is not None  # Node Add/Update events carry the node
        if (old_obj is not None and old_obj.unschedulable and not new_obj.unschedulable) or \
                (old_obj is None and not new_obj.unschedulable):
            return QUEUE, None
        return QUEUE_SKIP, None

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: nothing to compute (Skip only for deferred resizes, not modelled)."""
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: an unschedulable node is rejected unless the pod tolerates the
        unschedulable taint."""
        if not node_info.node.unschedulable:
            return None
        if tolerations_tolerate_taint(pod.tolerations, UNSCHEDULABLE_TAINT,
                                      self.enable_comparison_operators):
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)

    def filter_batch(self, state: CycleState, pod: Pod, cols: NodeColumns) -> Mask:
        """``filter`` over node columns (reference_impl/framework/vectorised.py)."""
        if tolerations_tolerate_taint(pod.tolerations, UNSCHEDULABLE_TAINT,
                                      self.enable_comparison_operators):
            return np.ones(len(cols), dtype=np.bool_)
        return ~cols.unschedulable
