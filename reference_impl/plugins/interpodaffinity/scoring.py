"""InterPodAffinity PreScore, Score and NormalizeScore.

Upstream: ``pkg/scheduler/framework/plugins/interpodaffinity/scoring.go`` (v1.37.2).

PreScore sums, per topology domain ``{topology key: {topology value: score}}``, the weights of
the preferred terms of the incoming pod matched by existing pods, and of the terms of existing
pods (preferred ones, and required affinity ones with ``hardPodAffinityWeight``) matched by the
incoming pod, in the domain of the existing pod's node. Score adds up the domains of the node.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from reference_impl.framework.affinity_terms import (
    AffinityTerm,
    TermsMatcher,
    WeightedAffinityTerm,
    parse_pod_info_terms,
)
from reference_impl.framework.interfaces import MAX_NODE_SCORE, Handle
from reference_impl.framework.status import Code, PluginError, Status
from reference_impl.plugins import names
from reference_impl.plugins.interpodaffinity.filtering import (
    merge_affinity_term_namespaces_if_not_empty,
)

if TYPE_CHECKING:
    from reference_impl.config.args import InterPodAffinityArgs
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.types import NodeInfo, PodInfo
    from reference_impl.model.objects import Node, Pod

PRE_SCORE_STATE_KEY = "PreScore" + names.InterPodAffinity

# {topology key: {topology value: score}}
ScoreMap = dict[str, dict[str, int]]


def process_term(m: ScoreMap, term: AffinityTerm, weight: int, pod: Pod,
                 ns_labels: Mapping[str, str] | None, node: Node, multiplier: int,
                 matcher: TermsMatcher | None = None) -> None:
    """``scoreMap.processTerm``: if the pod matches the term, add weight*multiplier in the
    node's domain of the term's topology key (nothing if the node lacks the key). ``matcher``,
    when given, is a TermsMatcher of ``pod`` and ``ns_labels`` (the same answers, memoised)."""
    if (term.matches(pod, ns_labels) if matcher is None else matcher.matches(term)):
        value = node.labels.get(term.topology_key)
        if value is not None:
            by_value = m.get(term.topology_key)
            if by_value is None:
                by_value = m[term.topology_key] = {}
            by_value[value] = by_value.get(value, 0) + weight * multiplier


def process_terms(m: ScoreMap, terms: list[WeightedAffinityTerm], pod: Pod,
                  ns_labels: Mapping[str, str] | None, node: Node, multiplier: int,
                  matcher: TermsMatcher | None = None) -> None:
    """``scoreMap.processTerms``."""
    for t in terms:
        process_term(m, t, t.weight, pod, ns_labels, node, multiplier, matcher)


class PreScoreState:
    """``preScoreState``; Clone returns the same object, as upstream."""

    __slots__ = ("topology_score", "pod", "preferred_affinity_terms",
                 "preferred_anti_affinity_terms", "namespace_labels")

    def __init__(self, topology_score: ScoreMap, pod: Pod,
                 preferred_affinity_terms: list[WeightedAffinityTerm],
                 preferred_anti_affinity_terms: list[WeightedAffinityTerm],
                 namespace_labels: Mapping[str, str]) -> None:
        self.topology_score = topology_score
        self.pod = pod
        self.preferred_affinity_terms = preferred_affinity_terms
        self.preferred_anti_affinity_terms = preferred_anti_affinity_terms
        self.namespace_labels = namespace_labels

    def clone(self) -> PreScoreState:
        return self


class ScoringMixin:
    """PreScore, Score and NormalizeScore of the InterPodAffinity plugin."""

    handle: Handle
    args: InterPodAffinityArgs

    def process_existing_pod(self, state: PreScoreState, existing: PodInfo,
                             existing_node: Node, incoming: Pod, topo_score: ScoreMap,
                             matcher: TermsMatcher | None = None) -> None:
        """``processExistingPod``: nothing when the existing pod's node has no labels.
        ``matcher``: a TermsMatcher of the incoming pod and its namespace labels, for the
        existing pod's terms (the same answers, memoised over the pods of one PreScore)."""
        if not existing_node.labels:
            return
        existing_pod = existing.pod
        # (Empty term lists are skipped before the calls: the hot loop of PreScore.)
        # The incoming pod's preferred terms (namespace selectors merged: nil labels).
        if state.preferred_affinity_terms:
            process_terms(topo_score, state.preferred_affinity_terms, existing_pod, None,
                          existing_node, 1)
        if state.preferred_anti_affinity_terms:
            process_terms(topo_score, state.preferred_anti_affinity_terms, existing_pod, None,
                          existing_node, -1)
        # The existing pod's required affinity terms, weighted by hardPodAffinityWeight.
        hard_weight = self.args.hard_pod_affinity_weight
        if hard_weight > 0:
            for t in existing.required_affinity_terms:
                process_term(topo_score, t, hard_weight, incoming, state.namespace_labels,
                             existing_node, 1, matcher)
        # The existing pod's preferred terms, matched against the incoming pod.
        terms = existing.preferred_affinity_terms
        if terms:
            process_terms(topo_score, terms, incoming, state.namespace_labels, existing_node, 1,
                          matcher)
        terms = existing.preferred_anti_affinity_terms
        if terms:
            process_terms(topo_score, terms, incoming, state.namespace_labels, existing_node, -1,
                          matcher)

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """``PreScore``. The nodes processed are all nodes of the snapshot when the pod has
        preferred (anti-)affinity terms (every pod on them), else only the nodes hosting pods
        with affinity (only those pods); the ``nodes`` argument is not used, as upstream.
        Skip when ignorePreferredTermsOfExistingPods is set and the pod has no preferred terms,
        or when nothing was counted."""
        affinity = pod.affinity
        has_preferred_affinity = (affinity is not None and affinity.pod_affinity is not None
                                  and len(affinity.pod_affinity.preferred) > 0)
        has_preferred_anti_affinity = (affinity is not None
                                       and affinity.pod_anti_affinity is not None
                                       and len(affinity.pod_anti_affinity.preferred) > 0)
        has_constraints = has_preferred_affinity or has_preferred_anti_affinity

        if self.args.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status(Code.SKIP)

        snapshot = self.handle.snapshot()

        terms, err = parse_pod_info_terms(pod)
        if err is not None:
            return Status.as_error(f"failed to parse pod: {err}")
        preferred_affinity, preferred_anti_affinity = terms[2], terms[3]
        rule = self.handle.behaviour("interpodaffinity-namespace-merge")
        for t in preferred_affinity:
            merge_affinity_term_namespaces_if_not_empty(snapshot, t, rule)
        for t in preferred_anti_affinity:
            merge_affinity_term_namespaces_if_not_empty(snapshot, t, rule)
        ns_labels = snapshot.namespace_labels(pod.namespace)
        ns_labels = {} if ns_labels is None else dict(ns_labels)

        s = PreScoreState({}, pod, preferred_affinity, preferred_anti_affinity, ns_labels)
        # Upstream builds one map per node and appends them; summing into one map is the same.
        topology_score = s.topology_score
        matcher = TermsMatcher(pod, ns_labels)
        hard = self.args.hard_pod_affinity_weight > 0
        if has_constraints:
            for node_info in snapshot.list():
                node = node_info.node
                if not node.labels:
                    continue  # processExistingPod does nothing on such a node
                for existing in node_info.pods:
                    self.process_existing_pod(s, existing, node, pod, topology_score, matcher)
        else:
            # Upstream walks every pod of the nodes with pods with affinity; without preferred
            # terms of the incoming pod only the existing pod's terms can count, so a pod with
            # none of them (only required anti-affinity) adds nothing and is not visited.
            for node_info, existing in snapshot.pods_with_scoring_affinity():
                node = node_info.node
                terms = existing.terms
                if node.labels and ((hard and terms[0]) or terms[2] or terms[3]):
                    self.process_existing_pod(s, existing, node, pod, topology_score, matcher)

        if not topology_score:
            return Status(Code.SKIP)
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """``Score``: the sum of the node's domains in the topology score (may be negative)."""
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            raise PluginError(
                f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        labels = node_info.node.labels
        score = 0
        for key, by_value in s.topology_score.items():
            value = labels.get(key)
            if value is not None:
                score += by_value.get(value, 0)
        return score

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[list]) -> Status | None:
        """``NormalizeScore``: min-max scaling to [0, MaxNodeScore] in float64, truncated; all
        zero when every score is equal. Nothing is done when the topology score is empty."""
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return Status.as_error(
                f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        if not s.topology_score or not scores:
            return None
        # minCount starts at MaxInt64 and maxCount at MinInt64: the list's min and max.
        min_count = min(entry[1] for entry in scores)
        max_count = max(entry[1] for entry in scores)
        max_min_diff = max_count - min_count
        for entry in scores:
            f_score = 0.0
            if max_min_diff > 0:
                f_score = float(MAX_NODE_SCORE) * (float(entry[1] - min_count)
                                                   / float(max_min_diff))
            entry[1] = int(f_score)
        return None
