"""NodeName: a pod with ``spec.nodeName`` set fits only that node.

Upstream: ``pkg/scheduler/framework/plugins/nodename/node_name.go``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
from reference_impl.model.objects import Pod
from reference_impl.plugins import names

ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """``Fits``: no node name requested, or it is this node's."""
    return not pod.node_name or pod.node_name == node_info.node.name


class NodeName(PreFilterPlugin, FilterPlugin, SignPlugin, EnqueueExtensions):
    name = names.NodeName
    # v1.34-v1.36 node_name.go has no PreFilter; v1.37's restricts the pod to spec.nodeName.
    release_points = {"preFilter": ("nodename-prefilter", "filter")}

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: the verdict depends on ``spec.nodeName``."""
        return [("v1.Pod.Spec.NodeName", pod.node_name)], None

    def events_to_register(self) -> list:
        """``EventsToRegister``: Node/Add without a hint function (always Queue)."""
        return [("Node", ("Add",), None)]

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: a pod with ``spec.nodeName`` is restricted to that node."""
        if pod.node_name:
            return PreFilterResult({pod.node_name}), None
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``."""
        if not pod.node_name or pod.node_name == node_info.node.name:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)

    def filter_batch(self, state: CycleState, pod: Pod, cols: NodeColumns) -> Mask:
        """``filter`` over node columns (reference_impl/framework/vectorised.py): every node,
        or only the named one."""
        if not pod.node_name:
            return np.ones(len(cols), dtype=np.bool_)
        mask: Mask = np.zeros(len(cols), dtype=np.bool_)
        row = cols.row_of.get(pod.node_name)
        if row is not None:
            mask[row] = True
        return mask
