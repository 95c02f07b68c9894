"""Catalogue: constraints over topology domains, PodTopologySpread and InterPodAffinity
(filtering)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import conformance.engines.mutants.witnesses as w
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.patching import Patch
from reference_impl.framework.status import Code, Status
from reference_impl.plugins.podtopologyspread import filtering as spread_filtering

# ----- PodTopologySpread --------------------------------------------------------------------

_PTS = "reference_impl.plugins.podtopologyspread"


def _pts_filter(*, strict: bool = False, min_domains: bool = True) -> Callable[[Any], Any]:
    """The PodTopologySpread Filter with one deviation: ``strict`` rejects skew == maxSkew;
    ``min_domains=False`` takes the global minimum whatever the number of domains."""
    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        def filter(self: Any, state: Any, pod: Any, node_info: Any) -> Any:  # noqa: A001
            s = state.get(spread_filtering.PRE_FILTER_STATE_KEY)
            if not isinstance(s, spread_filtering.PreFilterState) or not s.constraints:
                return orig(self, state, pod, node_info)
            labels = node_info.node.labels
            for i, c in enumerate(s.constraints):
                tp_val = labels.get(c.topology_key)
                if tp_val is None:
                    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                  spread_filtering.ERR_REASON_NODE_LABEL_NOT_MATCH)
                m = s.tp_value_to_match_num[i]
                if min_domains:
                    min_match = 0 if len(m) < c.min_domains else s.critical_paths[i].num0
                else:
                    min_match = s.critical_paths[i].num0 if m else 0
                skew = m.get(tp_val, 0) + s.self_match[i] - min_match
                if skew >= c.max_skew if strict else skew > c.max_skew:
                    return Status(Code.UNSCHEDULABLE,
                                  spread_filtering.ERR_REASON_CONSTRAINTS_NOT_MATCH)
            return None
        return filter
    return make


def _no_self_match(orig: Callable[..., Any]) -> Callable[..., Any]:
    def _finish(self: Any, pod: Any, constraints: list, tp_maps: list) -> Any:
        s = orig(self, pod, constraints, tp_maps)
        s.self_match = [0] * len(s.self_match)
        return s
    return _finish


_PTS_FILTER = f"{_PTS}.filtering:FilteringMixin.filter"


POD_TOPOLOGY_SPREAD = (
    Mutant(
        name="spread-skew-off-by-one", area="PodTopologySpread",
        summary="Filter rejects a node when the skew equals maxSkew (>= instead of >)",
        upstream="Filter: matchNum + selfMatch - minMatch > maxSkew fails "
                 "(pkg/scheduler/framework/plugins/podtopologyspread/filtering.go)",
        patches=(Patch(_PTS_FILTER, _pts_filter(strict=True)),),
        witness=lambda: w.scenario(
            "skew", w.node("n1", labels={w.ZONE: "z1"}), w.node("n2", labels={w.ZONE: "z2"}),
            w.pod("p", labels=w.WEB, topologySpreadConstraints=[w.spread()])),
        shows="genuine: skew 1 <= maxSkew 1, bound; mutant: every node rejected, pending",
        oracles=("no_false_unschedulable",)),
    Mutant(
        name="spread-min-domains-ignored", area="PodTopologySpread",
        summary="minDomains is ignored: the global minimum is taken over the existing domains",
        upstream="minMatchNum is 0 while fewer than minDomains domains exist "
                 "(pkg/scheduler/framework/plugins/podtopologyspread/filtering.go "
                 "preFilterState.minMatchNum)",
        patches=(Patch(_PTS_FILTER, _pts_filter(min_domains=False)),),
        witness=lambda: w.scenario(
            "min-domains", w.node("n1", labels={w.ZONE: "z1"}), w.node("n2", labels={w.ZONE: "z2"}),
            w.pod("w1", node="n1", labels=w.WEB), w.pod("w2", node="n2", labels=w.WEB),
            w.pod("p", labels=w.WEB, topologySpreadConstraints=[w.spread(minDomains=3)])),
        shows="genuine: 2 domains < minDomains 3, minimum 0, skew 2 everywhere, pending; mutant: "
              "minimum 1, bound",
        oracles=("filters_honoured",)),
    Mutant(
        name="spread-self-match-not-counted", area="PodTopologySpread",
        summary="the incoming pod is not counted in its own domain (selfMatchNum always 0)",
        upstream="Filter adds selfMatchNum when the pod matches the constraint's selector "
                 "(pkg/scheduler/framework/plugins/podtopologyspread/filtering.go)",
        patches=(Patch(f"{_PTS}.filtering:FilteringMixin._finish", _no_self_match),),
        witness=lambda: w.scenario(
            "self-match", w.node("n1", labels={w.ZONE: "z1"}),
            w.node("n2", labels={w.ZONE: "z2"}, taints=[w.taint("dedicated", "NoSchedule")]),
            w.pod("w1", node="n1", labels=w.WEB),
            w.pod("p", labels=w.WEB, topologySpreadConstraints=[w.spread()])),
        shows="genuine: z1 holds 1 pod, z2 (tainted node) 0: skew 2 on n1, pending; mutant: skew "
              "1, bound on n1",
        oracles=("filters_honoured",)),
    Mutant(
        name="spread-node-taints-policy-ignored", area="PodTopologySpread",
        summary="nodeTaintsPolicy: Honor is treated as Ignore (nodes with untolerated taints "
                "count)",
        upstream="matchNodeInclusionPolicies skips nodes with untolerated taints under Honor "
                 "(pkg/scheduler/framework/plugins/podtopologyspread/common.go)",
        patches=(Patch(f"{_PTS}.common:has_untolerated_do_not_schedule_taint",
                       lambda orig: lambda node, pod, enable_comparison_operators=False: False,
                       everywhere=True),),
        witness=lambda: w.scenario(
            "taints-policy", w.node("n1", labels={w.ZONE: "z1"}),
            w.node("n2", labels={w.ZONE: "z2"}, taints=[w.taint("dedicated", "NoSchedule")]),
            w.pod("w1", node="n1", labels=w.WEB),
            w.pod("p", labels=w.WEB,
                  topologySpreadConstraints=[w.spread(nodeTaintsPolicy="Honor")])),
        shows="genuine: the tainted z2 is not a domain, skew 1 on n1, bound; mutant: z2 counts "
              "with 0 pods, skew 2, pending",
        oracles=("no_false_unschedulable", "filters_honoured")),
)


# ----- InterPodAffinity ---------------------------------------------------------------------

_IPA = "reference_impl.plugins.interpodaffinity.filtering"


def _no_first_pod_exception(orig: Callable[..., Any]) -> Callable[..., Any]:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        orig(self, *args, **kwargs)
        self.self_affinity = False
    return __init__


def _term_matches_any_namespace(orig: Callable[..., Any]) -> Callable[..., Any]:
    def namespace_matches(self: Any, namespace: Any, ns_labels: Any) -> bool:
        return True
    return namespace_matches


def _empty_namespace_selector_as_nil(orig: Callable[..., Any]) -> Callable[..., Any]:
    def new_affinity_term(pod: Any, term: Any) -> Any:
        sel = term.namespace_selector
        if sel is not None and not sel.match_labels and not sel.match_expressions:
            term = dataclasses.replace(term, namespace_selector=None)
        return orig(pod, term)
    return new_affinity_term


def _namespace_selector_replaces_namespaces(orig: Callable[..., Any]) -> Callable[..., Any]:
    def new_affinity_term(pod: Any, term: Any) -> Any:
        if term.namespace_selector is not None and term.namespaces:
            term = dataclasses.replace(term, namespaces=())
        return orig(pod, term)
    return new_affinity_term


def _anti_affinity_to_db(**term: Any) -> w.Doc:
    """A required anti-affinity against app=db pods on the same node, with ``term``'s
    namespace fields."""
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": w.HOSTNAME, **term}]}}


_NEW_TERM = "reference_impl.framework.affinity_terms:new_affinity_term"


INTER_POD_AFFINITY = (
    Mutant(
        name="interpod-existing-anti-affinity-ignored", area="InterPodAffinity",
        summary="the required anti-affinity of pods already running is not checked (no symmetry)",
        upstream="satisfyExistingPodsAntiAffinity "
                 "(pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)",
        patches=(Patch(f"{_IPA}:FilteringMixin.existing_anti_affinity_counts",
                       lambda orig: lambda self, pod, ns_labels, snapshot: {}),),
        witness=lambda: w.scenario(
            "symmetry", w.node("n1"),
            w.pod("db", node="n1", labels={"app": "db"}, affinity={"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": w.WEB}, "topologyKey": w.HOSTNAME}]}}),
            w.pod("p", labels=w.WEB)),
        shows="genuine: db's anti-affinity keeps app=web off n1, pending; mutant: bound",
        oracles=("filters_honoured",)),
    Mutant(
        name="interpod-namespaces-ignored", area="InterPodAffinity",
        summary="affinity terms match pods of every namespace (namespaces and namespaceSelector "
                "ignored)",
        upstream="AffinityTerm.Matches: the pod's namespace must be in the term's namespaces or "
                 "selected by its namespaceSelector "
                 "(staging/src/k8s.io/kube-scheduler/framework/types.go)",
        patches=(Patch("reference_impl.framework.affinity_terms:AffinityTerm.namespace_matches",
                       _term_matches_any_namespace),),
        witness=lambda: w.scenario(
            "namespaces", w.namespace("team-a"), w.node("n1"),
            w.pod("db", node="n1", namespace="team-a", labels={"app": "db"}),
            w.pod("p", affinity={"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "db"}},
                     "topologyKey": w.HOSTNAME}]}})),
        shows="genuine: the anti-affinity term only looks at namespace default, bound; mutant: "
              "team-a/db counts, pending",
        oracles=("no_false_unschedulable", "filters_honoured")),
    Mutant(
        name="interpod-first-pod-exception-missing", area="InterPodAffinity",
        summary="a pod whose required affinity matches itself is not allowed when no matching pod "
                "exists yet (the first pod of a group is stuck)",
        upstream="nodeTopologyMatchesAffinity passes when no pod matches anywhere and the pod "
                 "matches its own terms "
                 "(pkg/scheduler/framework/plugins/interpodaffinity/filtering.go)",
        patches=(Patch(f"{_IPA}:PreFilterState.__init__", _no_first_pod_exception),),
        witness=lambda: w.scenario(
            "first-pod", w.node("n1"),
            w.pod("p", labels=w.WEB, affinity={"podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": w.WEB}, "topologyKey": w.HOSTNAME}]}})),
        shows="genuine: p is the first app=web pod and matches its own term, bound; mutant: "
              "pending",
        oracles=("no_false_unschedulable",)),
    Mutant(
        name="interpod-empty-namespace-selector-own-namespace", area="InterPodAffinity",
        summary="an empty namespaceSelector ({}) is read like a nil one: the term looks at the "
                "pod's own namespace instead of every namespace",
        upstream="getNamespacesFromPodAffinityTerm falls back to the pod's namespace only for a "
                 "nil namespaceSelector; an empty selector selects every namespace "
                 "(staging/src/k8s.io/kube-scheduler/framework/types.go newAffinityTerm, "
                 "AffinityTerm.Matches)",
        patches=(Patch(_NEW_TERM, _empty_namespace_selector_as_nil, everywhere=True),),
        witness=lambda: w.scenario(
            "empty-namespace-selector", w.namespace("team-a"), w.node("n1"),
            w.pod("db", node="n1", namespace="team-a", labels={"app": "db"}),
            w.pod("p", affinity=_anti_affinity_to_db(namespaceSelector={}))),
        shows="genuine: namespaceSelector {} takes in team-a/db, pending; mutant: only namespace "
              "default is looked at, bound",
        oracles=("filters_honoured",)),
    Mutant(
        name="interpod-namespace-selector-replaces-namespaces", area="InterPodAffinity",
        summary="a term with both namespaces and a namespaceSelector uses the selector alone "
                "(instead of the union of both)",
        upstream="AffinityTerm.Matches: the pod's namespace is listed OR selected by the "
                 "namespaceSelector (staging/src/k8s.io/kube-scheduler/framework/types.go)",
        patches=(Patch(_NEW_TERM, _namespace_selector_replaces_namespaces, everywhere=True),),
        witness=lambda: w.scenario(
            "namespaces-or-selector", w.namespace("team-a"), w.node("n1"),
            w.pod("db", node="n1", namespace="team-a", labels={"app": "db"}),
            w.pod("p", affinity=_anti_affinity_to_db(
                namespaces=["team-a"], namespaceSelector={"matchLabels": {"env": "prod"}}))),
        shows="genuine: team-a is listed, team-a/db counts, pending; mutant: the selector "
              "(env=prod) selects no namespace, bound",
        oracles=("filters_honoured",)),
)


MUTANTS: tuple[Mutant, ...] = (*POD_TOPOLOGY_SPREAD, *INTER_POD_AFFINITY)
