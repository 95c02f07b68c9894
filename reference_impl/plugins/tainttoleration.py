"""TaintToleration: filter out nodes with untolerated NoSchedule/NoExecute taints; prefer nodes
with fewer untolerated PreferNoSchedule taints.

Upstream: ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go``.
The InPlacePodVerticalScalingSchedulerPreemption gate (alpha, off) is not modelled: its only
effect is to skip pods whose resize is deferred, a pod status the model does not carry.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from reference_impl.api.tolerations import (
    do_not_schedule_taint,
    find_matching_untolerated_taint,
    tolerations_signer,
    tolerations_tolerate_taint,
)
from reference_impl.framework import vectorised
from reference_impl.framework.columns import I64, Mask, NodeColumns
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import (
    MAX_NODE_SCORE,
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, PluginError, PreFilterResult, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import TAINT_PREFER_NO_SCHEDULE, Node, Pod, Toleration
from reference_impl.plugins import names
from reference_impl.plugins.helper.normalize_score import default_normalize_score

PRE_SCORE_STATE_KEY = "PreScore" + names.TaintToleration
# ErrReasonNotMatch is declared upstream but Filter returns the literal below.
ERR_REASON_NOT_MATCH = "node(s) had taints that the pod didn't tolerate"
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"

QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"


class _PreScoreState:
    """``preScoreState``: the pod's tolerations with effect PreferNoSchedule or empty."""

    __slots__ = ("tolerations_prefer_no_schedule",)

    def __init__(self, tolerations: tuple[Toleration, ...]) -> None:
        self.tolerations_prefer_no_schedule = tolerations


def get_all_toleration_prefer_no_schedule(tolerations: tuple[Toleration, ...]
                                          ) -> tuple[Toleration, ...]:
    """``getAllTolerationPreferNoSchedule``: an empty effect means all effects, so it counts."""
    return tuple(t for t in tolerations
                 if not t.effect or t.effect == TAINT_PREFER_NO_SCHEDULE)


class TaintToleration(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, SignPlugin,
                      EnqueueExtensions):
    name = names.TaintToleration
    # v1.34-v1.36 taint_toleration.go has no PreFilter (v1.37's does nothing at the defaults).
    release_points = {"preFilter": ("tainttoleration-prefilter", "filter")}
    has_normalize_score = True

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        # fts.EnableTaintTolerationComparisonOperators, read at construction.
        self.enable_comparison_operators = (
            handle is not None and handle.feature_enabled("TaintTolerationComparisonOperators"))

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: feasibility and scoring depend on the pod's tolerations."""
        return [("v1.Pod.Spec.Tolerations", tolerations_signer(pod.tolerations))], None

    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, hint method name)."""
        return [
            ("Node", ("Add", "UpdateNodeTaint"), "is_schedulable_after_node_change"),
            ("TargetPod", ("UpdatePodToleration",),
             "is_schedulable_after_target_pod_toleration_change"),
        ]

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                         ) -> tuple[str, str | None]:
        """``isSchedulableAfterNodeChange``: Queue only if the node went from having an
        untolerated NoSchedule/NoExecute taint (or not existing) to having none."""
        if new_obj is not None and not isinstance(new_obj, Node):
            return QUEUE, f"expected *v1.Node, but got {type(new_obj).__name__}"
        if old_obj is not None and not isinstance(old_obj, Node):
            return QUEUE, f"expected *v1.Node, but got {type(old_obj).__name__}"
        assert new_obj is not None  # Node Add/UpdateNodeTaint events carry the node
        cmp_ops = self.enable_comparison_operators
        was_untolerated = True
        if old_obj is not None:
            was_untolerated = find_matching_untolerated_taint(
                old_obj.taints, pod.tolerations, do_not_schedule_taint, cmp_ops) is not None
        is_untolerated = find_matching_untolerated_taint(
            new_obj.taints, pod.tolerations, do_not_schedule_taint, cmp_ops) is not None
        if was_untolerated and not is_untolerated:
            return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_target_pod_toleration_change(self, pod: Pod, old_obj: Any,
                                                          new_obj: Any) -> tuple[str, str | None]:
        """``isSchedulableAfterTargetPodTolerationChange``: always Queue."""
        return QUEUE, None

    # ----- PreFilter / Filter -----
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: nothing to compute (Skip only for deferred resizes, not modelled)."""
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: UnschedulableAndUnresolvable if a NoSchedule/NoExecute taint is not
        tolerated."""
        taints = node_info.node.taints
        if not taints:
            return None
        if find_matching_untolerated_taint(taints, pod.tolerations, do_not_schedule_taint,
                                           self.enable_comparison_operators) is None:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNTOLERATED)

    # ----- PreScore / Score -----
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """``PreScore``: keep the tolerations that can tolerate PreferNoSchedule taints."""
        state.write(PRE_SCORE_STATE_KEY,
                    _PreScoreState(get_all_toleration_prefer_no_schedule(pod.tolerations)))
        return None

    def count_intolerable_taints_prefer_no_schedule(self, taints: tuple,
                                                    tolerations: tuple[Toleration, ...]) -> int:
        """``countIntolerableTaintsPreferNoSchedule``."""
        n = 0
        cmp_ops = self.enable_comparison_operators
        for taint in taints:
            if taint.effect != TAINT_PREFER_NO_SCHEDULE:
                continue
            if not tolerations_tolerate_taint(tolerations, taint, cmp_ops):
                n += 1
        return n

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """``Score``: the number of untolerated PreferNoSchedule taints (reversed later)."""
        s = state.get(PRE_SCORE_STATE_KEY) if state is not None else None
        if s is None:
            raise PluginError(
                f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        taints = node_info.node.taints
        if not taints:
            return 0
        return self.count_intolerable_taints_prefer_no_schedule(
            taints, s.tolerations_prefer_no_schedule)

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[list]) -> Status | None:
        """``NormalizeScore``: ``DefaultNormalizeScore(MaxNodeScore, reverse=true)``."""
        default_normalize_score(MAX_NODE_SCORE, True, scores)
        return None

    # ----- batch (reference_impl/framework/vectorised.py) -----
    def filter_batch(self, state: CycleState, pod: Pod, cols: NodeColumns) -> Mask:
        """Nodes without taints certainly pass; the others go through ``filter``."""
        return ~cols.has_taints

    def score_batch(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                    cols: NodeColumns, rows: npt.NDArray[np.intp]) -> I64 | None:
        """``score``: 0 for a node without taints, ``score`` for the others; None without the
        PreScore state (``score`` raises its error)."""
        if state.get(PRE_SCORE_STATE_KEY) is None:
            return None
        return vectorised.fill_per_node(np.zeros(len(nodes), dtype=np.int64),
                                        cols.has_taints[rows], partial(self.score, state, pod),
                                        nodes)

    def normalize_score_batch(self, state: CycleState, pod: Pod, scores: I64) -> I64 | None:
        """``normalize_score`` on an array."""
        return vectorised.default_normalize_score_batch(MAX_NODE_SCORE, True, scores)
