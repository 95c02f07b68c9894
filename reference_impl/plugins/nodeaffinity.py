"""NodeAffinity: the pod's nodeSelector and required node affinity (Filter), its preferred node
affinity (Score), plus the scheduler-enforced ``addedAffinity`` of NodeAffinityArgs.

Upstream: ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go``.

Not modelled: the InPlacePodVerticalScalingSchedulerPreemption gate (alpha, off; it only skips
pods with a deferred resize). The model cannot tell a nil ``nodeSelector`` /
``preferredDuringScheduling...`` list from an empty one; empty is treated as nil, which changes
no verdict or score (an empty nodeSelector matches every node; empty preferred terms score 0).
"""

from __future__ import annotations

from typing import Any

from reference_impl.api.node_selectors import (
    OBJECT_NAME_FIELD,
    OP_IN,
    CompiledNodeSelector,
    NodeSelectorParseError,
    PreferredSchedulingTerms,
    RequiredNodeAffinity,
    aggregate_message,
    get_required_node_affinity,
    new_node_selector,
    new_preferred_scheduling_terms,
    node_affinity_signer,
)
from reference_impl.config.args import NodeAffinityArgs
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
from reference_impl.model.objects import Node, Pod
from reference_impl.plugins import names
from reference_impl.plugins.helper.normalize_score import default_normalize_score

PRE_SCORE_STATE_KEY = "PreScore" + names.NodeAffinity
PRE_FILTER_STATE_KEY = "PreFilter" + names.NodeAffinity

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"

QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"

_ADDED_REQUIRED_PATH = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
_ADDED_PREFERRED_PATH = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"


def validate_node_affinity_args(args: NodeAffinityArgs) -> None:
    """``ValidateNodeAffinityArgs`` (pkg/scheduler/apis/config/validation/validation_pluginargs.go):
    raise ``ValueError`` with the aggregated field errors of the added affinity."""
    affinity = args.added_affinity
    if affinity is None:
        return
    errs: list = []
    if affinity.required is not None:
        try:
            new_node_selector(affinity.required, _ADDED_REQUIRED_PATH)
        except NodeSelectorParseError as e:
            errs.extend(e.errors)
    if affinity.preferred:
        try:
            new_preferred_scheduling_terms(affinity.preferred, _ADDED_PREFERRED_PATH)
        except NodeSelectorParseError as e:
            errs.extend(e.errors)
    if errs:
        raise ValueError(aggregate_message(errs))


def get_pod_preferred_node_affinity(pod: Pod) -> PreferredSchedulingTerms | None:
    """``getPodPreferredNodeAffinity``; raises :class:`NodeSelectorParseError`."""
    affinity = pod.affinity
    if affinity is not None and affinity.node_affinity is not None \
            and affinity.node_affinity.preferred:
        return new_preferred_scheduling_terms(affinity.node_affinity.preferred)
    return None


class _PreScoreState:
    """``preScoreState``: the pod's parsed preferred terms (may be ``None``)."""

    __slots__ = ("preferred_node_affinity",)

    def __init__(self, preferred: PreferredSchedulingTerms | None) -> None:
        self.preferred_node_affinity = preferred


class NodeAffinity(PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, SignPlugin,
                   EnqueueExtensions):
    name = names.NodeAffinity
    has_normalize_score = True

    def __init__(self, args: NodeAffinityArgs | None = None, handle: Any = None) -> None:
        """``New``: validate the args, then parse the added affinity once."""
        args = args if args is not None else NodeAffinityArgs()
        super().__init__(args, handle)
        validate_node_affinity_args(args)
        self.added_node_selector: CompiledNodeSelector | None = None
        self.added_pref_sched_terms: PreferredSchedulingTerms | None = None
        added = args.added_affinity
        if added is not None:
            if added.required is not None:
                self.added_node_selector = new_node_selector(added.required)
            if added.preferred:
                self.added_pref_sched_terms = new_preferred_scheduling_terms(added.preferred)

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: node affinity and nodeSelector (a nil map signs as null)."""
        return [
            ("v1.Pod.Spec.Affinity.NodeAffinity", node_affinity_signer(pod)),
            ("v1.Pod.Spec.Affinity.NodeSelector",
             dict(pod.node_selector) if pod.node_selector else None),
        ], None

    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, hint method name)."""
        return [("Node", ("Add", "UpdateNodeLabel"), "is_schedulable_after_node_change")]

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                         ) -> tuple[str, str | None]:
        """``isSchedulableAfterNodeChange``: Queue when an added node matches, or an updated
        node went from not matching to matching, the pod's required affinity (and the
        scheduler-enforced one)."""
        if new_obj is not None and not isinstance(new_obj, Node):
            return QUEUE, f"expected *v1.Node, but got {type(new_obj).__name__}"
        if old_obj is not None and not isinstance(old_obj, Node):
            return QUEUE, f"expected *v1.Node, but got {type(old_obj).__name__}"
        assert new_obj is not None  # Node Add/Update events carry the node
        if self.added_node_selector is not None and not self.added_node_selector.match(new_obj):
            return QUEUE_SKIP, None
        required = get_required_node_affinity(pod)
        is_matched, err = required.match_with_error(new_obj)
        if err is not None:
            return QUEUE, err
        if not is_matched:
            return QUEUE_SKIP, None
        if old_obj is None:
            return QUEUE, None
        was_matched, err = required.match_with_error(old_obj)
        if err is not None:
            return QUEUE, err
        if was_matched:
            return QUEUE_SKIP, None
        return QUEUE, None

    # ----- PreFilter / Filter -----
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: Skip when there is nothing to check; else store the parsed
        requirement and, when every term pins ``metadata.name`` with In, return those nodes."""
        affinity = pod.affinity
        required = None
        if affinity is not None and affinity.node_affinity is not None:
            required = affinity.node_affinity.required
        if required is None and self.added_node_selector is None and not pod.node_selector:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, get_required_node_affinity(pod))
        if required is None or not required.node_selector_terms:
            return None, None
        node_names: set[str] | None = None
        for term in required.node_selector_terms:
            term_names: set[str] | None = None
            for r in term.match_fields:
                if r.key == OBJECT_NAME_FIELD and r.operator == OP_IN:
                    # ANDed requirements: intersect.
                    s = set(r.values)
                    term_names = s if term_names is None else term_names & s
            if term_names is None:
                # A term without a node-name requirement admits every node (terms are ORed).
                return None, None
            node_names = set(term_names) if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        if node_names:
            return PreFilterResult(node_names), None
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: the added (enforced) selector first, then the pod's own requirement;
        parse errors are ignored (a broken term matches nothing)."""
        node = node_info.node
        added = self.added_node_selector
        if added is not None and not added.match(node):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_ENFORCED)
        s: RequiredNodeAffinity | None = state.get(PRE_FILTER_STATE_KEY) \
            if state is not None else None
        if s is None:
            # Fallback when PreFilter did not run.
            s = get_required_node_affinity(pod)
        if not s.match(node):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
        return None

    # ----- PreScore / Score -----
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """``PreScore``: parse the pod's preferred terms (an Error status on parse errors);
        Skip when neither the pod nor the args have preferred terms."""
        try:
            preferred = get_pod_preferred_node_affinity(pod)
        except NodeSelectorParseError as e:
            return Status.as_error(str(e))
        if preferred is None and self.added_pref_sched_terms is None:
            return Status(Code.SKIP)
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(preferred))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """``Score``: the sum of the weights of the matching added and pod preferred terms."""
        node = node_info.node
        count = 0
        added = self.added_pref_sched_terms
        if added is not None:
            count += added.score(node)
        s: _PreScoreState | None = state.get(PRE_SCORE_STATE_KEY) if state is not None else None
        if s is None:
            # Fallback when PreScore did not run.
            try:
                s = _PreScoreState(get_pod_preferred_node_affinity(pod))
            except NodeSelectorParseError as e:
                raise PluginError(str(e)) from None
        if s.preferred_node_affinity is not None:
            count += s.preferred_node_affinity.score(node)
        return count

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[list]) -> Status | None:
        """``NormalizeScore``: ``DefaultNormalizeScore(MaxNodeScore, reverse=false)``."""
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return None
