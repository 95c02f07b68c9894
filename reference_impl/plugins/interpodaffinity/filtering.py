"""InterPodAffinity PreFilter, PreFilterExtensions (AddPod/RemovePod) and Filter.

Upstream: ``pkg/scheduler/framework/plugins/interpodaffinity/filtering.go`` (v1.37.2).

Only the path taken with the InterPodAffinityHostnameFastPath gate off (its v1.37.2 default) is
modelled: every required term, hostname-scoped or not, is counted in the cluster-wide topology maps
built at PreFilter, and Filter only looks those maps up.

``topologyToMatchedTermCount`` (a map from (topology key, topology value) to a count) is kept as
a nested dict ``{topology key: {topology value: count}}``: Filter then looks a key up once instead
of building a pair per node label. A pair whose count drops to zero is deleted, and so is a key
whose last pair is deleted, so "the map is empty" reads the same as upstream's ``len(m) == 0``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from reference_impl.api.labels import NOTHING
from reference_impl.framework.affinity_terms import (
    AffinityTerm,
    TermsMatcher,
    parse_pod_info_terms,
)
from reference_impl.framework.status import Code, PreFilterResult, Status
from reference_impl.framework.vectorised import RowVerdicts
from reference_impl.plugins import names
from reference_impl.plugins.interpodaffinity.existing_index import ExistingAntiAffinityIndex
from reference_impl.plugins.interpodaffinity.pod_groups import PodGroupIndex

if TYPE_CHECKING:
    from reference_impl.framework.columns import Mask, NodeColumns
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.interfaces import Handle
    from reference_impl.framework.snapshot import Snapshot
    from reference_impl.framework.types import NodeInfo, PodInfo
    from reference_impl.model.objects import Node, Pod

PRE_FILTER_STATE_KEY = "PreFilter" + names.InterPodAffinity

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = (
    "node(s) didn't satisfy existing pods anti-affinity rules")
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"
#: ``filter_rows``' reasons, by bit (1, 2, 4)
ROW_REASONS = (ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
               ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)

#: The variants of the switch ``interpodaffinity-namespace-merge``.
SELECTOR_CLEARED = "selector-cleared"
SELECTOR_KEPT = "selector-kept"

# {topology key: {topology value: number of matched terms}}
TopologyCounts = dict[str, dict[str, int]]


def _record(counts: TopologyCounts, node_labels: Mapping[str, str], key: str) -> None:
    """``topologyToMatchedTermCountList.recordMatch`` with value 1, summed as ``mergeWithList``
    does: count one match in the node's domain of ``key`` (nothing if the node lacks the key)."""
    value = node_labels.get(key)
    if value is None:
        return
    by_value = counts.get(key)
    if by_value is None:
        counts[key] = {value: 1}
    else:
        by_value[value] = by_value.get(value, 0) + 1


def _update(counts: TopologyCounts, node_labels: Mapping[str, str], key: str, delta: int) -> None:
    """``topologyToMatchedTermCount.update``: add ``delta`` in the node's domain of ``key``
    (nothing if the node lacks the key) and delete the pair when it reaches zero."""
    value = node_labels.get(key)
    if value is None:
        return
    by_value = counts.get(key)
    if by_value is None:
        by_value = counts[key] = {}
    n = by_value.get(value, 0) + delta
    if n == 0:
        by_value.pop(value, None)
        if not by_value:
            del counts[key]
    else:
        by_value[value] = n


def _clone_counts(counts: TopologyCounts) -> TopologyCounts:
    return {k: dict(v) for k, v in counts.items()}


def pod_matches_all_affinity_terms(terms: list[AffinityTerm], pod: Pod) -> bool:
    """``podMatchesAllAffinityTerms``: the term list is not empty and the pod matches every
    term (namespace selectors of the incoming pod's terms are already merged, so no namespace
    labels are passed)."""
    if not terms:
        return False
    for t in terms:
        if not t.matches(pod, None):
            return False
    return True


def pod_matches_any_affinity_terms(terms: list[AffinityTerm], pod: Pod) -> bool:
    """``podMatchesAnyAffinityTerms``."""
    for t in terms:
        if t.matches(pod, None):
            return True
    return False


def merge_affinity_term_namespaces_if_not_empty(snapshot: Snapshot, term: AffinityTerm,
                                                rule: str = SELECTOR_CLEARED) -> None:
    """``mergeAffinityTermNamespacesIfNotEmpty`` (plugin.go): add every namespace the term's
    namespace selector selects to its namespaces and set the selector to Nothing, so that the
    incoming pod's terms are matched without namespace labels. An empty (select-all) selector is
    left as is. A nil selector (Nothing) selects no namespace: upstream lists namespaces with it
    and finds none, which is the same as not listing.

    Switch ``interpodaffinity-namespace-merge`` (``rule``): v1.37.2 takes the term by pointer
    (``SELECTOR_CLEARED``). v1.34.4, v1.35.4 and v1.36.3 (``interpodaffinity/plugin.go``) take
    it by value (``SELECTOR_KEPT``): the namespaces reach the caller (a shared set) but the
    selector is not cleared, so a selector that matches an empty label set (``NotIn``,
    ``DoesNotExist``) still matches pods of every namespace, the terms being matched with no
    namespace labels (docs/upstream-deviations.md)."""
    sel = term.namespace_selector
    if sel.empty():
        return
    if not sel.nothing:
        for ns in snapshot.namespaces.values():
            if sel.matches(ns.labels):
                term.namespaces.add(ns.name)
    if rule == SELECTOR_CLEARED:
        term.namespace_selector = NOTHING


class PreFilterState:
    """``preFilterState`` (fast-path fields omitted, see the module docstring).

    ``affinity_terms`` / ``anti_affinity_terms`` are the incoming pod's required terms with their
    namespace selectors merged into their namespaces. ``self_affinity`` caches
    ``podMatchesAllAffinityTerms(affinity_terms, pod)`` (it depends on the pod only).
    """

    __slots__ = ("existing_anti_affinity_counts", "affinity_counts", "anti_affinity_counts",
                 "pod", "affinity_terms", "anti_affinity_terms", "namespace_labels",
                 "self_affinity")

    def __init__(self, pod: Pod, affinity_terms: list[AffinityTerm],
                 anti_affinity_terms: list[AffinityTerm], namespace_labels: Mapping[str, str],
                 existing_anti_affinity_counts: TopologyCounts, affinity_counts: TopologyCounts,
                 anti_affinity_counts: TopologyCounts) -> None:
        self.pod = pod
        self.affinity_terms = affinity_terms
        self.anti_affinity_terms = anti_affinity_terms
        self.namespace_labels = namespace_labels
        self.existing_anti_affinity_counts = existing_anti_affinity_counts
        self.affinity_counts = affinity_counts
        self.anti_affinity_counts = anti_affinity_counts
        self.self_affinity = pod_matches_all_affinity_terms(affinity_terms, pod)

    def clone(self) -> PreFilterState:
        """``preFilterState.Clone``: the three maps are copied, the rest shared."""
        c = PreFilterState.__new__(PreFilterState)
        c.pod = self.pod
        c.affinity_terms = self.affinity_terms
        c.anti_affinity_terms = self.anti_affinity_terms
        c.namespace_labels = self.namespace_labels
        c.self_affinity = self.self_affinity
        c.existing_anti_affinity_counts = _clone_counts(self.existing_anti_affinity_counts)
        c.affinity_counts = _clone_counts(self.affinity_counts)
        c.anti_affinity_counts = _clone_counts(self.anti_affinity_counts)
        return c

    def update_with_pod(self, pod_info: PodInfo, node: Node, multiplier: int) -> None:
        """``preFilterState.updateWithPod`` (gate off): count ``pod_info``'s pod on ``node``
        in (multiplier 1) or out (multiplier -1) of the three maps."""
        labels = node.labels
        # The existing pod's anti-affinity terms that the incoming pod violates.
        for t in pod_info.required_anti_affinity_terms:
            if t.matches(self.pod, self.namespace_labels):
                _update(self.existing_anti_affinity_counts, labels, t.topology_key, multiplier)
        other = pod_info.pod
        # updateWithAffinityTerms: only when the pod matches all of the incoming pod's terms.
        if pod_matches_all_affinity_terms(self.affinity_terms, other):
            for t in self.affinity_terms:
                _update(self.affinity_counts, labels, t.topology_key, multiplier)
        # updateWithAntiAffinityTerms with nil namespace labels (selectors already merged).
        for t in self.anti_affinity_terms:
            if t.matches(other, None):
                _update(self.anti_affinity_counts, labels, t.topology_key, multiplier)


def _state_not_found() -> Status:
    return Status.as_error(
        f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')


class FilteringMixin:
    """PreFilter, AddPod/RemovePod and Filter of the InterPodAffinity plugin."""

    handle: Handle
    _existing_index: ExistingAntiAffinityIndex
    _pod_groups: PodGroupIndex

    def _snapshot(self) -> Snapshot:
        return self.handle.snapshot()

    # ----- PreFilter -----
    @staticmethod
    def get_existing_anti_affinity_counts(pod: Pod, ns_labels: Mapping[str, str],
                                          nodes: list[NodeInfo]) -> TopologyCounts:
        """``getExistingAntiAffinityCounts`` (gate off): for each existing pod with required
        anti-affinity, each of its terms the incoming pod matches counts once in the domain of
        the term's topology key on the existing pod's node."""
        counts: TopologyCounts = {}
        # Only the nodes with such pods are walked (HavePodsWithRequiredAntiAffinityList, the
        # caller's ``nodes``), and each selector is matched against the pod once (TermsMatcher).
        matcher = TermsMatcher(pod, ns_labels)
        matches = matcher.matches
        for node_info in nodes:
            labels = node_info.node.labels
            for existing in node_info.pods_with_required_anti_affinity:
                for term in existing.terms[1]:
                    if matches(term):
                        _record(counts, labels, term.topology_key)
        return counts

    def existing_anti_affinity_counts(self, pod: Pod, ns_labels: Mapping[str, str],
                                      snapshot: Snapshot) -> TopologyCounts:
        """``getExistingAntiAffinityCounts`` over the snapshot's
        ``HavePodsWithRequiredAntiAffinityList``: the same counts as
        ``get_existing_anti_affinity_counts``, from the terms grouped by what their match
        depends on and kept up to date across cycles (existing_index.py)."""
        index: ExistingAntiAffinityIndex | None = getattr(self, "_existing_index", None)
        if index is None:
            index = ExistingAntiAffinityIndex()
            self._existing_index = index
        index.refresh(snapshot)
        return index.counts(TermsMatcher(pod, ns_labels))

    def incoming_affinity_anti_affinity_counts(
            self, affinity_terms: list[AffinityTerm], anti_affinity_terms: list[AffinityTerm],
            all_nodes: list[NodeInfo], snapshot: Snapshot) -> tuple[TopologyCounts, TopologyCounts]:
        """``getIncomingAffinityAntiAffinityCounts``: over the snapshot's nodes, the same counts
        as ``get_incoming_affinity_anti_affinity_counts``, from the pods grouped by namespace and
        labels and kept up to date across cycles (pod_groups.py); over another node list, the
        walk."""
        if not affinity_terms and not anti_affinity_terms:
            return {}, {}
        if all_nodes is not snapshot.list():
            return self.get_incoming_affinity_anti_affinity_counts(
                affinity_terms, anti_affinity_terms, all_nodes)
        index: PodGroupIndex | None = getattr(self, "_pod_groups", None)
        if index is None:
            index = PodGroupIndex()
            self._pod_groups = index
        index.refresh(snapshot)
        return index.counts(affinity_terms, anti_affinity_terms)

    @staticmethod
    def get_incoming_affinity_anti_affinity_counts(
            affinity_terms: list[AffinityTerm], anti_affinity_terms: list[AffinityTerm],
            all_nodes: list[NodeInfo]) -> tuple[TopologyCounts, TopologyCounts]:
        """``getIncomingAffinityAntiAffinityCounts``: over every pod of every node, count the
        pods that match all affinity terms (once per term) and, per anti-affinity term, the pods
        that match it, in the domain of the term's topology key on the pod's node."""
        affinity_counts: TopologyCounts = {}
        anti_affinity_counts: TopologyCounts = {}
        if not affinity_terms and not anti_affinity_terms:
            return affinity_counts, anti_affinity_counts
        for node_info in all_nodes:
            pods = node_info.pods
            if not pods:
                continue
            labels = node_info.node.labels
            for existing in pods:
                p = existing.pod
                # pod_matches_all_affinity_terms (False for no terms), then one count per term.
                if affinity_terms:
                    for t in affinity_terms:
                        if not t.matches(p, None):
                            break
                    else:
                        for t in affinity_terms:
                            _record(affinity_counts, labels, t.topology_key)
                for t in anti_affinity_terms:
                    if t.matches(p, None):
                        _record(anti_affinity_counts, labels, t.topology_key)
        return affinity_counts, anti_affinity_counts

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter`` (gate off). Skip when no existing pod's anti-affinity matches the pod and
        the pod has no required (anti-)affinity terms."""
        terms, err = parse_pod_info_terms(pod)
        if err is not None:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"parsing pod: {err}")
        snapshot = self._snapshot()
        affinity_terms, anti_affinity_terms = terms[0], terms[1]
        rule = self.handle.behaviour("interpodaffinity-namespace-merge")
        for t in affinity_terms:
            merge_affinity_term_namespaces_if_not_empty(snapshot, t, rule)
        for t in anti_affinity_terms:
            merge_affinity_term_namespaces_if_not_empty(snapshot, t, rule)

        # GetNamespaceLabelsSnapshot: a missing namespace reads as an empty label set.
        ns_labels = snapshot.namespace_labels(pod.namespace)
        ns_labels = {} if ns_labels is None else dict(ns_labels)

        existing = self.existing_anti_affinity_counts(pod, ns_labels, snapshot)
        affinity_counts, anti_affinity_counts = self.incoming_affinity_anti_affinity_counts(
            affinity_terms, anti_affinity_terms, nodes, snapshot)

        if not existing and not affinity_terms and not anti_affinity_terms:
            return None, Status(Code.SKIP)

        state.write(PRE_FILTER_STATE_KEY, PreFilterState(
            pod, affinity_terms, anti_affinity_terms, ns_labels, existing, affinity_counts,
            anti_affinity_counts))
        return None, None

    # ----- PreFilterExtensions -----
    def pre_filter_extensions(self) -> FilteringMixin:
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        """``AddPod``: count a pod (a nominated pod, or a victim put back) on the node."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _state_not_found()
        s.update_with_pod(pod_info_to_add, node_info.node, 1)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        """``RemovePod``: uncount a pod (a preemption victim) on the node."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _state_not_found()
        s.update_with_pod(pod_info_to_remove, node_info.node, -1)
        return None

    # ----- Filter -----
    def filter_rows(self, state: CycleState, pod: Pod, cols: NodeColumns) -> RowVerdicts | None:
        """``filter``'s verdict on every row of the node columns
        (reference_impl/framework/vectorised.py): each check of ``filter`` as a mask over the
        nodes' values of the topology keys (``NodeColumns.label_hits``), the first failing
        check deciding the code and reason. None without the PreFilter state."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(s, PreFilterState):
            return None
        n = len(cols)
        codes = np.zeros(n, dtype=np.int64)
        bits = np.zeros(n, dtype=np.int64)
        undecided = np.ones(n, dtype=np.bool_)

        def fail(rejected: Mask, code: Code, bit: int) -> None:
            rejected &= undecided
            codes[rejected] = int(code)
            bits[rejected] = bit
            undecided[rejected] = False

        if s.affinity_terms:
            counts = s.affinity_counts
            missing = np.zeros(n, dtype=np.bool_)
            pods_exist = np.ones(n, dtype=np.bool_)
            for t in s.affinity_terms:
                missing |= cols.label_codes(t.topology_key)[0] < 0
                pods_exist &= cols.label_hits(t.topology_key, counts.get(t.topology_key, {}))
            fail(missing, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 1)
            if not (not counts and s.self_affinity):
                fail(~pods_exist, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 1)
        anti_counts = s.anti_affinity_counts
        if anti_counts:
            for t in s.anti_affinity_terms:
                by_value = anti_counts.get(t.topology_key)
                if by_value is not None:
                    fail(cols.label_hits(t.topology_key, by_value), Code.UNSCHEDULABLE, 2)
        for key, by_value in s.existing_anti_affinity_counts.items():
            fail(cols.label_hits(key, by_value), Code.UNSCHEDULABLE, 4)
        return RowVerdicts(codes, bits, ROW_REASONS)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter`` (gate off), checks in upstream's order:

        1. nodeTopologyMatchesAffinity: every affinity term's topology key must be on the node;
           if some term's domain holds no matching pod, pass only when no pod in the cluster
           matches at all and the pod matches its own terms (the first pod of a group)
           -> UnschedulableAndUnresolvable.
        2. satisfyPodAntiAffinity: no anti-affinity term's domain holds a matching pod
           -> Unschedulable.
        3. satisfyExistingPodsAntiAffinity: no domain of the node is counted by an existing pod's
           anti-affinity -> Unschedulable.
        """
        s: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _state_not_found()
        labels = node_info.node.labels

        affinity_terms = s.affinity_terms
        if affinity_terms:
            counts = s.affinity_counts
            pods_exist = True
            for t in affinity_terms:
                key = t.topology_key
                value = labels.get(key)
                if value is None:
                    # All topology labels must exist on the node, also for self-affinity.
                    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                  ERR_REASON_AFFINITY_RULES_NOT_MATCH)
                by_value = counts.get(key)
                if by_value is None or by_value.get(value, 0) <= 0:
                    pods_exist = False
            if not pods_exist and not (not counts and s.self_affinity):
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                              ERR_REASON_AFFINITY_RULES_NOT_MATCH)

        anti_counts = s.anti_affinity_counts
        if anti_counts:
            for t in s.anti_affinity_terms:
                key = t.topology_key
                value = labels.get(key)
                if value is not None:
                    by_value = anti_counts.get(key)
                    if by_value is not None and by_value.get(value, 0) > 0:
                        return Status(Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)

        existing = s.existing_anti_affinity_counts
        if existing:
            # Upstream walks the node's labels and looks each (key, value) pair up; walking the
            # counted keys and looking the node's value up visits the same pairs.
            for key, by_value in existing.items():
                value = labels.get(key)
                if value is not None and by_value.get(value, 0) > 0:
                    return Status(Code.UNSCHEDULABLE,
                                  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
        return None
