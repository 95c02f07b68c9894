"""Pre-parsed affinity terms (reference_impl/framework/affinity_terms.py).

Cases restate upstream v1.37.2 tests where they exist:
``staging/src/k8s.io/kube-scheduler/framework/types_test.go`` TestGetNamespacesFromPodAffinityTerm,
``pkg/scheduler/framework/types_test.go`` TestNewPodInfo and
``pkg/registry/core/pod/strategy_test.go`` Test_mutatePodAffinity (the admission step that merges
matchLabelKeys/mismatchLabelKeys, done by the reference's loader).
"""

from __future__ import annotations

from reference_impl.api.labels import NOTHING, compile_selector
from reference_impl.framework.affinity_terms import (
    AffinityTerm,
    WeightedAffinityTerm,
    build_pod_info_terms,
    namespaces_of_term,
    new_affinity_term,
    parse_pod_info_terms,
)
from reference_impl.framework.types import PodInfo
from reference_impl.model.objects import (
    LABEL_HOSTNAME,
    Affinity,
    LabelSelector,
    LabelSelectorRequirement,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    WeightedPodAffinityTerm,
)


def pod(namespace: str = "default", labels: dict | None = None,
        affinity: Affinity | None = None) -> Pod:
    return Pod(namespace=namespace, name="p", uid="u", labels=dict(labels or {}),
               affinity=affinity)


def req(key: str, op: str, *values: str) -> LabelSelectorRequirement:
    return LabelSelectorRequirement(key, op, tuple(values))


# --- TestGetNamespacesFromPodAffinityTerm (kube-scheduler framework/types_test.go) ---

def test_namespaces_empty_term_defaults_to_pod_namespace() -> None:
    """podAffinityTerm_namespace_empty."""
    assert namespaces_of_term(pod("default"), PodAffinityTerm(None, "")) == {"default"}


def test_namespaces_listed() -> None:
    """podAffinityTerm_namespace_not_empty."""
    t = PodAffinityTerm(None, "", namespaces=("kube-public", "kube-system"))
    assert namespaces_of_term(pod("default"), t) == {"kube-public", "kube-system"}


def test_namespaces_with_non_nil_selector_is_empty() -> None:
    """podAffinityTerm_namespace_selector_not_nil: an empty, non-nil namespaceSelector."""
    t = PodAffinityTerm(None, "", namespace_selector=LabelSelector())
    assert namespaces_of_term(pod("default"), t) == set()


# --- TestNewPodInfo (pkg/scheduler/framework/types_test.go) ---

def test_new_pod_info_without_affinity() -> None:
    """pod without affinity."""
    terms, err = parse_pod_info_terms(pod())
    assert err is None
    assert terms == ([], [], [], [])


def test_new_pod_info_with_affinity() -> None:
    """pod with affinity: one required affinity term."""
    a = Affinity(pod_affinity=PodAffinity(required=(
        PodAffinityTerm(LabelSelector(match_labels=(("foo", "bar"),)), LABEL_HOSTNAME),)))
    pi = PodInfo(pod(affinity=a))
    assert len(pi.required_affinity_terms) == 1
    t = pi.required_affinity_terms[0]
    assert t.topology_key == LABEL_HOSTNAME
    assert t.namespaces == {"default"}
    assert t.namespace_selector is NOTHING
    assert t.matches(pod(labels={"foo": "bar"}), None)
    assert not t.matches(pod(labels={"foo": "baz"}), None)
    assert not t.matches(pod("other", labels={"foo": "bar"}), None)
    assert pi.required_anti_affinity_terms == []
    # Built once and cached.
    assert pi.required_affinity_terms is pi.required_affinity_terms


def test_all_four_lists_and_weights() -> None:
    """NewPodInfo: required and preferred terms of both kinds, weights carried over."""
    t1 = PodAffinityTerm(LabelSelector(match_labels=(("a", "1"),)), "zone")
    t2 = PodAffinityTerm(LabelSelector(match_labels=(("b", "2"),)), "region")
    a = Affinity(
        pod_affinity=PodAffinity(required=(t1,), preferred=(WeightedPodAffinityTerm(7, t2),)),
        pod_anti_affinity=PodAffinity(required=(t2,), preferred=(WeightedPodAffinityTerm(3, t1),)))
    req_aff, req_anti, pref_aff, pref_anti = build_pod_info_terms(pod(affinity=a))
    assert [t.topology_key for t in req_aff] == ["zone"]
    assert [t.topology_key for t in req_anti] == ["region"]
    assert [(t.weight, t.topology_key) for t in pref_aff] == [(7, "region")]
    assert [(t.weight, t.topology_key) for t in pref_anti] == [(3, "zone")]
    assert isinstance(pref_aff[0], WeightedAffinityTerm) and isinstance(req_aff[0], AffinityTerm)


def test_parse_errors_are_prefixed_and_aggregated() -> None:
    """NewPodInfo: each failing list adds "<list>: <err>"; several errors are bracketed; the
    failing list is empty (GetAffinityTerms returns nil)."""
    bad = PodAffinityTerm(LabelSelector(match_expressions=(req("k", "Bogus", "v"),)), "zone")
    good = PodAffinityTerm(LabelSelector(), "zone")
    a = Affinity(pod_affinity=PodAffinity(required=(good, bad)),
                 pod_anti_affinity=PodAffinity(required=(good,),
                                               preferred=(WeightedPodAffinityTerm(1, bad),)))
    terms, err = parse_pod_info_terms(pod(affinity=a))
    assert err is not None
    assert err.startswith("[requiredAffinityTerms: ")
    assert ", preferredAntiAffinityTerms: " in err and err.endswith("]")
    assert terms[0] == [] and len(terms[1]) == 1 and terms[3] == []
    # build_pod_info_terms (the cache's PodInfo) drops the error.
    assert len(build_pod_info_terms(pod(affinity=a))[1]) == 1

    only_one = Affinity(pod_affinity=PodAffinity(required=(bad,)))
    _, err1 = parse_pod_info_terms(pod(affinity=only_one))
    assert err1 is not None and err1.startswith("requiredAffinityTerms: ")
    assert not err1.startswith("[")


# --- AffinityTerm.Matches (kube-scheduler framework/types.go) ---

def test_matches_namespace_selector_with_namespace_labels() -> None:
    """Matches: namespaces contain the pod's namespace OR the namespace selector matches the
    given namespace labels; then the label selector decides."""
    t = new_affinity_term(pod("a"), PodAffinityTerm(
        LabelSelector(match_labels=(("app", "x"),)), "zone", namespaces=("listed",),
        namespace_selector=LabelSelector(match_expressions=(req("team", "In", "t1"),))))
    target = pod("elsewhere", labels={"app": "x"})
    assert not t.matches(target, None)
    assert not t.matches(target, {"team": "t2"})
    assert t.matches(target, {"team": "t1"})
    assert t.matches(pod("listed", labels={"app": "x"}), None)
    assert not t.matches(pod("listed", labels={"app": "y"}), None)


def test_matches_nil_namespace_labels_read_as_empty_set() -> None:
    """A nil labels.Set is empty: DoesNotExist selects it, an empty selector selects all."""
    sel = LabelSelector(match_labels=(("app", "x"),))
    t = new_affinity_term(pod("a"), PodAffinityTerm(
        sel, "zone", namespace_selector=LabelSelector(
            match_expressions=(req("team", "DoesNotExist"),))))
    assert t.namespaces == set()
    assert t.matches(pod("b", labels={"app": "x"}), None)
    assert not t.matches(pod("b", labels={"app": "x"}), {"team": "t"})
    everything = new_affinity_term(pod("a"), PodAffinityTerm(
        sel, "zone", namespace_selector=LabelSelector()))
    assert everything.namespace_selector.empty()
    assert everything.matches(pod("any", labels={"app": "x"}), None)


def test_nil_label_selector_matches_nothing() -> None:
    """LabelSelectorAsSelector(nil) is Nothing."""
    t = new_affinity_term(pod("a"), PodAffinityTerm(None, "zone"))
    assert not t.matches(pod("a"), None)
    assert not t.matches(pod("a", labels={"x": "y"}), None)
    empty = new_affinity_term(pod("a"), PodAffinityTerm(LabelSelector(), "zone"))
    assert empty.matches(pod("a", labels={"x": "y"}), None)


# --- matchLabelKeys / mismatchLabelKeys ---
# Upstream merges them at admission (pkg/registry/core/pod/strategy.go mutatePodAffinity); the
# reference does so in the loader. The cases of strategy_test.go Test_mutatePodAffinity are
# restated through the loader (reference_impl.testing.wrappers), and the terms code is checked
# to compile the stored selector as is (newAffinityTerm never reads the two fields).

LABELS = {"country": "Japan", "city": "Kyoto"}
ASIA_V1 = {"matchLabels": {"region": "Asia"}}


def _loaded_terms(term_v1: dict) -> tuple:
    from reference_impl.testing.wrappers import make_pod

    weighted_v1 = {"weight": 1, "podAffinityTerm": term_v1}
    side = {"requiredDuringSchedulingIgnoredDuringExecution": [term_v1],
            "preferredDuringSchedulingIgnoredDuringExecution": [weighted_v1]}
    p = make_pod("p").labels(LABELS).affinity({"podAffinity": side,
                                               "podAntiAffinity": side}).obj()
    return p, build_pod_info_terms(p)


def test_match_label_keys_merged_with_in_and_mismatch_with_not_in() -> None:
    """Test_mutatePodAffinity: matchLabelKeys are merged into labelSelector with In and
    mismatchLabelKeys are merged with NotIn (all four term kinds)."""
    p, all_terms = _loaded_terms({"labelSelector": ASIA_V1, "topologyKey": "zone",
                                  "matchLabelKeys": ["country"], "mismatchLabelKeys": ["city"]})
    want = LabelSelector(match_labels=(("region", "Asia"),), match_expressions=(
        req("country", "In", "Japan"), req("city", "NotIn", "Kyoto")))
    assert p.affinity is not None and p.affinity.pod_affinity is not None
    assert p.affinity.pod_affinity.required[0].label_selector == want
    for terms in all_terms:
        assert len(terms) == 1
        sel = terms[0].selector
        assert sel.matches({"region": "Asia", "country": "Japan", "city": "Osaka"})
        assert not sel.matches({"region": "Asia", "country": "Japan", "city": "Kyoto"})
        assert not sel.matches({"region": "Asia", "country": "France", "city": "Osaka"})


def test_match_label_keys_not_in_pod_labels_are_ignored() -> None:
    """Test_mutatePodAffinity: keys, which are not found in Pod labels, are ignored."""
    p, _ = _loaded_terms({"labelSelector": ASIA_V1, "topologyKey": "zone",
                          "matchLabelKeys": ["city", "not-found"]})
    assert p.affinity is not None and p.affinity.pod_affinity is not None
    assert p.affinity.pod_affinity.required[0].label_selector == LabelSelector(
        match_labels=(("region", "Asia"),), match_expressions=(req("city", "In", "Kyoto"),))


def test_match_label_keys_ignored_with_nil_label_selector() -> None:
    """Test_mutatePodAffinity: matchLabelKeys is ignored if the labelSelector is nil."""
    _, all_terms = _loaded_terms({"topologyKey": "zone", "matchLabelKeys": ["country"],
                                  "mismatchLabelKeys": ["city"]})
    for terms in all_terms:
        assert not terms[0].selector.matches(LABELS)


def test_terms_compile_the_stored_selector() -> None:
    """newAffinityTerm uses labelSelector only: match_label_keys on a model term (already
    admitted) are not merged again, so a later label change does not alter the selector."""
    t = PodAffinityTerm(LabelSelector(match_labels=(("region", "Asia"),)), "zone",
                        match_label_keys=("country",))
    term = new_affinity_term(pod(labels=LABELS), t)
    assert term.selector.matches({"region": "Asia", "country": "France"})
    assert repr(term.selector) == repr(compile_selector(t.label_selector))
