"""An out-of-tree scheduler plugin for kschedconf: score nodes carrying a label higher.

Use it with ``kschedconf simulate cluster.yaml --plugins examples/plugins/prefer_label.py
--config examples/plugins/prefer-label-config.yaml``. The config enables the plugin in a profile
and passes its args (``pluginConfig`` args are handed to the plugin as a plain dict).
"""

from __future__ import annotations

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import MAX_NODE_SCORE, FilterPlugin, ScorePlugin
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Pod


class PreferLabel(ScorePlugin, FilterPlugin):
    """Scores ``MAX_NODE_SCORE`` on nodes with ``args["label"]``, 0 elsewhere; with
    ``args["required"]`` true, nodes without the label are filtered out."""

    name = "PreferLabel"

    def __init__(self, args: dict | None = None, handle: object = None) -> None:
        super().__init__(args, handle)
        args = args or {}
        self.label = str(args.get("label", "example.com/preferred"))
        self.required = bool(args.get("required", False))

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if self.required and self.label not in node_info.node.labels:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          f"node(s) didn't have label {self.label}")
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return MAX_NODE_SCORE if self.label in node_info.node.labels else 0
