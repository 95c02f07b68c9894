"""Pre-parsed inter-pod affinity terms of a pod (``fwk.AffinityTerm``, ``framework.PodInfo``).

Upstream: ``staging/src/k8s.io/kube-scheduler/framework/types.go`` (AffinityTerm, Matches,
GetAffinityTerms, newAffinityTerm, getNamespacesFromPodAffinityTerm, GetWeightedAffinityTerms,
GetPodAffinityTerms, GetPodAntiAffinityTerms) and ``pkg/scheduler/framework/types.go``
(NewPodInfo). matchLabelKeys / mismatchLabelKeys are merged into the selectors at load time
(``pkg/registry/core/pod/strategy.go``): docs/reference.md#inter-pod-affinity-terms."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from reference_impl.api.labels import Selector, compile_selector
from reference_impl.model.objects import (
    Affinity,
    LabelSelector,
    Pod,
    PodAffinityTerm,
    WeightedPodAffinityTerm,
)

_EMPTY_LABELS: Mapping[str, str] = {}


class AffinityTerm:
    """A processed ``v1.PodAffinityTerm`` (``fwk.AffinityTerm``).

    ``namespaces`` is a set; ``selector`` and ``namespace_selector`` are compiled selectors (a nil
    selector selects nothing, an empty one everything).
    """

    __slots__ = ("namespaces", "selector", "topology_key", "namespace_selector")

    def __init__(self, namespaces: set[str], selector: Selector, topology_key: str,
                 namespace_selector: Selector) -> None:
        self.namespaces = namespaces
        self.selector = selector
        self.topology_key = topology_key
        self.namespace_selector = namespace_selector

    def matches(self, pod: Pod, ns_labels: Mapping[str, str] | None) -> bool:
        """``AffinityTerm.Matches``: the pod's namespace is listed or its namespace's labels
        (``ns_labels``; ``None`` is an empty set) match the namespace selector, and the pod's
        labels match the label selector."""
        if self.namespace_matches(pod.namespace, ns_labels):
            return self.selector.matches(pod.labels)
        return False

    def namespace_matches(self, namespace: str, ns_labels: Mapping[str, str] | None) -> bool:
        """The namespace half of ``Matches``: ``namespace`` is listed or its labels
        (``ns_labels``; ``None`` is an empty set) match the namespace selector."""
        return namespace in self.namespaces or self.namespace_selector.matches(
            _EMPTY_LABELS if ns_labels is None else ns_labels)

    def __repr__(self) -> str:
        return (f"AffinityTerm(namespaces={sorted(self.namespaces)!r}, selector={self.selector!r}, "
                f"topology_key={self.topology_key!r}, "
                f"namespace_selector={self.namespace_selector!r})")


class TermsMatcher:
    """``AffinityTerm.Matches`` of many terms against one pod, as PreFilter and PreScore call it
    for every term of every existing pod with (anti-)affinity (``getExistingAntiAffinityCounts``
    in interpodaffinity/filtering.go, ``processExistingPod`` in scoring.go).

    Same results as ``term.matches(pod, ns_labels)``; the label selector results are memoised per
    compiled selector object (``_compile`` shares one Selector between identical selectors, and
    a Selector is never changed in place), so the pods of one workload, whose terms carry the
    same selectors, cost one selector match each instead of one per term. Built for one call:
    the memo is keyed by ``id``, valid while the terms it saw are alive.
    """

    __slots__ = ("namespace", "labels", "ns_labels", "_selector")

    def __init__(self, pod: Pod, ns_labels: Mapping[str, str] | None) -> None:
        self.namespace = pod.namespace
        self.labels = pod.labels
        self.ns_labels = ns_labels
        self._selector: dict[int, bool] = {}

    def matches(self, term: AffinityTerm) -> bool:
        """``term.matches(pod, ns_labels)`` for the matcher's pod."""
        if not term.namespace_matches(self.namespace, self.ns_labels):
            return False
        sel = term.selector
        m = self._selector.get(id(sel))
        if m is None:
            m = self._selector[id(sel)] = sel.matches(self.labels)
        return m


class WeightedAffinityTerm(AffinityTerm):
    """``fwk.WeightedAffinityTerm``: an AffinityTerm with the weight of its preferred term."""

    __slots__ = ("weight",)

    def __init__(self, namespaces: set[str], selector: Selector, topology_key: str,
                 namespace_selector: Selector, weight: int) -> None:
        super().__init__(namespaces, selector, topology_key, namespace_selector)
        self.weight = weight

    def __repr__(self) -> str:
        return f"Weighted({self.weight}, {super().__repr__()})"


# A pod's four term lists: required affinity, required anti-affinity, preferred affinity,
# preferred anti-affinity.
PodInfoTerms = tuple[list[AffinityTerm], list[AffinityTerm],
                     list[WeightedAffinityTerm], list[WeightedAffinityTerm]]


class AffinityTermError(ValueError):
    """A term whose selector cannot be compiled (``LabelSelectorAsSelector`` failed)."""


@lru_cache(maxsize=8192)
def _compile(selector: LabelSelector | None) -> Selector:
    """``metav1.LabelSelectorAsSelector``, memoised: many pods carry identical selectors and a
    compiled Selector is never changed in place."""
    return compile_selector(selector)


def namespaces_of_term(pod: Pod, term: PodAffinityTerm) -> set[str]:
    """``getNamespacesFromPodAffinityTerm``: the listed namespaces, or the pod's own namespace
    when the term lists none and its namespaceSelector is nil (an empty, non-nil namespaceSelector
    leaves the set empty: the selector then selects every namespace)."""
    if not term.namespaces and term.namespace_selector is None:
        return {pod.namespace}
    return set(term.namespaces)


def new_affinity_term(pod: Pod, term: PodAffinityTerm) -> AffinityTerm:
    """``newAffinityTerm``. Raises AffinityTermError when a selector is invalid."""
    try:
        selector = _compile(term.label_selector)
        ns_selector = _compile(term.namespace_selector)
    except ValueError as e:
        raise AffinityTermError(str(e)) from e
    return AffinityTerm(namespaces_of_term(pod, term), selector, term.topology_key, ns_selector)


def get_affinity_terms(pod: Pod, terms: tuple[PodAffinityTerm, ...]) -> list[AffinityTerm]:
    """``GetAffinityTerms``: one AffinityTerm per v1 term, in order."""
    return [new_affinity_term(pod, t) for t in terms]


def get_weighted_affinity_terms(pod: Pod, terms: tuple[WeightedPodAffinityTerm, ...]
                                ) -> list[WeightedAffinityTerm]:
    """``GetWeightedAffinityTerms``."""
    out: list[WeightedAffinityTerm] = []
    for wt in terms:
        t = new_affinity_term(pod, wt.term)
        out.append(WeightedAffinityTerm(t.namespaces, t.selector, t.topology_key,
                                        t.namespace_selector, wt.weight))
    return out


def pod_affinity_terms(affinity: Affinity | None) -> tuple[PodAffinityTerm, ...]:
    """``GetPodAffinityTerms``: the required pod affinity terms."""
    if affinity is not None and affinity.pod_affinity is not None:
        return affinity.pod_affinity.required
    return ()


def pod_anti_affinity_terms(affinity: Affinity | None) -> tuple[PodAffinityTerm, ...]:
    """``GetPodAntiAffinityTerms``: the required pod anti-affinity terms."""
    if affinity is not None and affinity.pod_anti_affinity is not None:
        return affinity.pod_anti_affinity.required
    return ()


def _aggregate(errors: list[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message as is, several in brackets."""
    if len(errors) == 1:
        return errors[0]
    seen: list[str] = []
    for msg in errors:
        if msg not in seen:
            seen.append(msg)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


def parse_pod_info_terms(pod: Pod) -> tuple[PodInfoTerms, str | None]:
    """``NewPodInfo``: the four term lists and the aggregated parse error (or None).

    A list whose parsing failed is empty, as upstream (GetAffinityTerms returns nil on error).
    The returned lists are freshly built and may be changed by the caller.
    """
    affinity = pod.affinity
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()
    preferred_anti: tuple[WeightedPodAffinityTerm, ...] = ()
    if affinity is not None:
        if affinity.pod_affinity is not None:
            preferred = affinity.pod_affinity.preferred
        if affinity.pod_anti_affinity is not None:
            preferred_anti = affinity.pod_anti_affinity.preferred

    errors: list[str] = []
    required_affinity: list[AffinityTerm] = []
    required_anti_affinity: list[AffinityTerm] = []
    preferred_affinity: list[WeightedAffinityTerm] = []
    preferred_anti_affinity: list[WeightedAffinityTerm] = []
    try:
        required_affinity = get_affinity_terms(pod, pod_affinity_terms(affinity))
    except AffinityTermError as e:
        errors.append(f"requiredAffinityTerms: {e}")
    try:
        required_anti_affinity = get_affinity_terms(pod, pod_anti_affinity_terms(affinity))
    except AffinityTermError as e:
        errors.append(f"requiredAntiAffinityTerms: {e}")
    try:
        preferred_affinity = get_weighted_affinity_terms(pod, preferred)
    except AffinityTermError as e:
        errors.append(f"preferredAffinityTerms: {e}")
    try:
        preferred_anti_affinity = get_weighted_affinity_terms(pod, preferred_anti)
    except AffinityTermError as e:
        errors.append(f"preferredAntiAffinityTerms: {e}")
    terms = (required_affinity, required_anti_affinity, preferred_affinity,
             preferred_anti_affinity)
    return terms, (_aggregate(errors) if errors else None)


def build_pod_info_terms(pod: Pod) -> PodInfoTerms:
    """The terms ``PodInfo`` caches: (required affinity, required anti-affinity, preferred
    affinity, preferred anti-affinity).

    A parse error is dropped (its list stays empty), as the scheduler cache does when it builds
    the PodInfo of a bound pod. The lists are shared by every reader of the PodInfo: callers must
    not change them or their terms.
    """
    return parse_pod_info_terms(pod)[0]
