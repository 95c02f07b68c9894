"""The InterPodAffinity plugin: construction, SignPod, EventsToRegister and queueing hints.

Upstream: ``pkg/scheduler/framework/plugins/interpodaffinity/plugin.go`` (v1.37.2). PreFilter/
Filter live in ``filtering.py`` and PreScore/Score/NormalizeScore in ``scoring.py``, as upstream.
The feature gates it does not model: docs/reference.md#interpodaffinity. The pod-event hints of
older releases are behind the switch ``queue-hints`` (docs/release-differences.md#queue-hints)."""

from __future__ import annotations

from typing import Any

from reference_impl.config.args import InterPodAffinityArgs
from reference_impl.framework.affinity_terms import (
    AffinityTermError,
    get_affinity_terms,
    pod_affinity_terms,
    pod_anti_affinity_terms,
)
from reference_impl.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, Status
from reference_impl.model.objects import Node, Pod
from reference_impl.plugins import names
from reference_impl.plugins.interpodaffinity.filtering import (
    FilteringMixin,
    pod_matches_all_affinity_terms,
    pod_matches_any_affinity_terms,
)
from reference_impl.plugins.interpodaffinity.scoring import ScoringMixin

# fwk.LabelsSignerName (staging/src/k8s.io/kube-scheduler/framework/signers.go).
LABELS_SIGNER_NAME = "v1.Pod.Labels"

# Queueing hints (fwk.QueueingHint).
QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"

FAST_PATH_GATE = "InterPodAffinityHostnameFastPath"

MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100


def validate_inter_pod_affinity_args(args: InterPodAffinityArgs) -> None:
    """``ValidateInterPodAffinityArgs`` (pkg/scheduler/apis/config/validation/
    validation_pluginargs.go): hardPodAffinityWeight in [0, 100]."""
    w = args.hard_pod_affinity_weight
    if w < MIN_HARD_POD_AFFINITY_WEIGHT or w > MAX_HARD_POD_AFFINITY_WEIGHT:
        raise ValueError(f"hardPodAffinityWeight: Invalid value: {w}: not in valid range "
                         f"[{MIN_HARD_POD_AFFINITY_WEIGHT}, {MAX_HARD_POD_AFFINITY_WEIGHT}]")


class InterPodAffinity(FilteringMixin, ScoringMixin, PreFilterPlugin, FilterPlugin,
                       PreScorePlugin, ScorePlugin, EnqueueExtensions, SignPlugin):
    """Required and preferred inter-pod (anti-)affinity (``interpodaffinity.New``)."""

    name = names.InterPodAffinity
    has_normalize_score = True
    handle: Handle  # required (New fails without it)

    def __init__(self, args: InterPodAffinityArgs | None = None,
                 handle: Handle | None = None) -> None:
        if handle is None:
            raise ValueError("SnapshotSharedlister is nil")
        args = InterPodAffinityArgs() if args is None else args
        validate_inter_pod_affinity_args(args)
        super().__init__(args, handle)
        self.args: InterPodAffinityArgs = args
        if handle.feature_enabled(FAST_PATH_GATE):
            raise NotImplementedError(
                f"{FAST_PATH_GATE} is not modelled by the reference (off by default in v1.37.2)")
        self.hint_rule = handle.behaviour("queue-hints")

    # ----- SignPlugin -----
    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: pods with pod (anti)affinity are not signable; otherwise the pod's
        labels (a copy of the map) are part of the signature unless
        ignorePreferredTermsOfExistingPods is set."""
        a = pod.affinity
        if a is not None and (a.pod_affinity is not None or a.pod_anti_affinity is not None):
            return None, Status(Code.UNSCHEDULABLE, "pods with InterPodAffinity are not signable")
        if self.args.ignore_preferred_terms_of_existing_pods:
            return None, None
        return [(LABELS_SIGNER_NAME, dict(pod.labels))], None

    # ----- EnqueueExtensions -----
    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, queueing hint method name). A hint
        returns (QUEUE or QUEUE_SKIP, error message or None).

        Up to v1.36.3 upstream registers ``Pod`` (Add, UpdatePodLabel, Delete) with one hint,
        ``isSchedulableAfterPodChange``. ``Pod`` also matches unscheduled pods' events, but the
        only such events the queue hands to hints are the target pod's own updates (split off
        here as TargetPod, as v1.37.2 does) and the AssignedPod/Delete of a lost nomination;
        so the v1.37.2 registration with the release's hint rules gives the same answers."""
        return [
            ("AssignedPod", ("Add", "UpdatePodLabel", "Delete"),
             "is_schedulable_after_assigned_pod_change"),
            ("TargetPod", ("UpdatePodLabel",), "is_schedulable_after_target_pod_update_label"),
            ("Node", ("Add", "UpdateNodeLabel"), "is_schedulable_after_node_change"),
        ]

    def is_schedulable_after_assigned_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                                 ) -> tuple[str, str | None]:
        """``isSchedulableAfterAssignedPodChange``: an added pod matching all affinity terms, an
        updated pod now matching all affinity terms or no longer matching an anti-affinity term,
        a deleted pod matching an anti-affinity term or whose anti-affinity the pod matches.

        By release (switch ``queue-hints``, ``isSchedulableAfterPodChange`` of ``plugin.go``):
        ``node-name-only`` (v1.34.4, v1.35.4): a pod without a nodeName is skipped even when
        nominated, anti-affinity terms match when all do, and a deleted pod queues only when
        it matches the target's anti-affinity; ``nominated-too`` (v1.36.3): nominated pods
        count, and a deleted pod whose anti-affinity the target matches queues too (all
        terms); ``any-term`` (v1.37.2): anti-affinity terms match when any does."""
        err = _as(old_obj, new_obj, Pod, "*v1.Pod")
        if err is not None:
            return QUEUE, err
        original, modified = old_obj, new_obj
        if _unscheduled(modified, self.hint_rule) or _unscheduled(original, self.hint_rule):
            return QUEUE_SKIP, None
        anti_match = (pod_matches_any_affinity_terms if self.hint_rule == "any-term"
                      else pod_matches_all_affinity_terms)
        try:
            terms = get_affinity_terms(pod, pod_affinity_terms(pod.affinity))
            anti_terms = get_affinity_terms(pod, pod_anti_affinity_terms(pod.affinity))
        except AffinityTermError as e:
            return QUEUE, str(e)

        if modified is not None and original is not None:
            # Updated: now matches all affinity terms, or no longer matches any anti-affinity term.
            if (not pod_matches_all_affinity_terms(terms, original)
                    and pod_matches_all_affinity_terms(terms, modified)):
                return QUEUE, None
            if (anti_match(anti_terms, original)
                    and not anti_match(anti_terms, modified)):
                return QUEUE, None
            return QUEUE_SKIP, None

        if modified is not None:
            # Added.
            if pod_matches_all_affinity_terms(terms, modified):
                return QUEUE, None
            return QUEUE_SKIP, None

        # Deleted: it matched the pod's anti-affinity, or the pod matches its anti-affinity.
        assert original is not None
        if anti_match(anti_terms, original):
            return QUEUE, None
        if self.hint_rule == "node-name-only":
            return QUEUE_SKIP, None
        try:
            original_anti_terms = get_affinity_terms(
                original, pod_anti_affinity_terms(original.affinity))
        except AffinityTermError as e:
            return QUEUE, str(e)
        if anti_match(original_anti_terms, pod):
            return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_target_pod_update_label(self, pod: Pod, old_obj: Any, new_obj: Any
                                                     ) -> tuple[str, str | None]:
        """``isSchedulableAfterTargetPodUpdateLabel``: always Queue (v1.36.3's
        ``isSchedulableAfterPodChange`` answers the same for ``pod.UID == modifiedPod.UID``);
        with ``node-name-only`` (v1.34.4, v1.35.4) the target pod, unscheduled, is skipped."""
        if self.hint_rule == "node-name-only":
            return QUEUE_SKIP, None
        return QUEUE, None

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                         ) -> tuple[str, str | None]:
        """``isSchedulableAfterNodeChange``: an added node, or a node whose affinity topology
        key appeared or changed value, or whose anti-affinity topology key disappeared or changed
        value (any added node for a pod with anti-affinity)."""
        err = _as(old_obj, new_obj, Node, "*v1.Node")
        if err is not None:
            return QUEUE, err
        original, modified = old_obj, new_obj
        assert modified is not None
        try:
            terms = get_affinity_terms(pod, pod_affinity_terms(pod.affinity))
        except AffinityTermError as e:
            return QUEUE, str(e)
        for term in terms:
            key = term.topology_key
            if original is None:
                # A node with the affinity topology key was added.
                if key in modified.labels:
                    return QUEUE, None
                continue
            original_has = key in original.labels
            modified_has = key in modified.labels
            if not original_has and modified_has:
                return QUEUE, None
            if original_has and modified_has and original.labels[key] != modified.labels[key]:
                return QUEUE, None

        try:
            anti_terms = get_affinity_terms(pod, pod_anti_affinity_terms(pod.affinity))
        except AffinityTermError as e:
            return QUEUE, str(e)
        for term in anti_terms:
            if original is None:
                # Any added node may be free of the pods the pod repels.
                return QUEUE, None
            key = term.topology_key
            original_has = key in original.labels
            modified_has = key in modified.labels
            if original_has and not modified_has:
                return QUEUE, None
            if original_has and modified_has and original.labels[key] != modified.labels[key]:
                return QUEUE, None
        return QUEUE_SKIP, None


def _as(old_obj: Any, new_obj: Any, cls: type, type_name: str) -> str | None:
    """``util.As[T]`` (pkg/scheduler/util/utils.go): an error message when the new object, then
    the old one, is neither None nor a ``cls``."""
    if new_obj is not None and not isinstance(new_obj, cls):
        return f"expected {type_name}, but got {type(new_obj).__name__}"
    if old_obj is not None and not isinstance(old_obj, cls):
        return f"expected {type_name}, but got {type(old_obj).__name__}"
    return None


def _unscheduled(p: Pod | None, hint_rule: str) -> bool:
    """The hints' "unscheduled pod" test: no nodeName, and (from v1.36.3) no
    nominatedNodeName either."""
    if p is None or p.node_name:
        return False
    return hint_rule == "node-name-only" or p.nominated_node_name == ""
