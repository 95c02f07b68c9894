"""InterPodAffinity PreFilter/Filter/AddPod/RemovePod, SignPod and queueing hints.

Cases restate upstream v1.37.2
``pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go`` and ``plugin_test.go``;
each case names its source test. Upstream runs every filtering case with
InterPodAffinityHostnameFastPath on and off; the reference models the gate's default (off), so
only the "=false" runs are restated (the expected results are the same for both).
"""

from __future__ import annotations

import itertools

import pytest

from reference_impl.config.args import InterPodAffinityArgs
from reference_impl.framework.affinity_terms import build_pod_info_terms
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo, PodInfo
from reference_impl.model.objects import (
    LABEL_HOSTNAME,
    Affinity,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodResources,
    Resource,
)
from reference_impl.plugins.interpodaffinity import InterPodAffinity
from reference_impl.plugins.interpodaffinity.filtering import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    PRE_FILTER_STATE_KEY,
    FilteringMixin,
    PreFilterState,
)
from reference_impl.plugins.interpodaffinity.plugin import QUEUE, QUEUE_SKIP

FILTERING_TEST = "filtering_test.go"
PLUGIN_TEST = "plugin_test.go"
FEATURES = {"InterPodAffinityHostnameFastPath": False}

# ---------------------------------------------------------------------------------------------
# Builders (the upstream st.MakePod wrappers, restated)
# ---------------------------------------------------------------------------------------------

_uids = itertools.count()


def sel(*reqs: tuple) -> LabelSelector:
    """A LabelSelector from (key, operator, values...) tuples."""
    return LabelSelector(match_expressions=tuple(
        LabelSelectorRequirement(r[0], r[1], tuple(r[2:])) for r in reqs))


def term(selector: LabelSelector | None, topology_key: str = "", namespaces: tuple = (),
         namespace_selector: LabelSelector | None = None) -> PodAffinityTerm:
    return PodAffinityTerm(selector, topology_key, tuple(namespaces), namespace_selector)


def aff_in(key: str, tk: str, vals: list[str]) -> PodAffinityTerm:
    return term(sel((key, "In", *vals)), tk)


def aff_not_in(key: str, tk: str, vals: list[str]) -> PodAffinityTerm:
    return term(sel((key, "NotIn", *vals)), tk)


def aff_exists(key: str, tk: str) -> PodAffinityTerm:
    return term(sel((key, "Exists")), tk)


def make_pod(name: str = "", namespace: str = "", labels: dict | None = None, node: str = "",
             affinity: list[PodAffinityTerm] | None = None,
             anti: list[PodAffinityTerm] | None = None, both: bool = False,
             nominated: str = "") -> Pod:
    """``st.MakePod()``: PodAffinity/PodAntiAffinity are set only when terms are given (as the
    PodAffinityIn/... wrappers do); ``both`` sets both, as ``createPodWithAffinityTerms``."""
    a = None
    if affinity is not None or anti is not None or both:
        a = Affinity(
            pod_affinity=PodAffinity(required=tuple(affinity or ()))
            if affinity is not None or both else None,
            pod_anti_affinity=PodAffinity(required=tuple(anti or ()))
            if anti is not None or both else None)
    n = next(_uids)
    return Pod(namespace=namespace, name=name or f"pod-{n}", uid=f"uid-{n}",
               labels=dict(labels or {}), node_name=node, affinity=a,
               nominated_node_name=nominated, resources=PodResources(Resource(), 0, 0))


def make_node(name: str, labels: dict | None = None) -> Node:
    return Node(name=name, labels=dict(labels or {}))


def namespaces(*items: tuple[str, dict]) -> dict[str, Namespace]:
    return {name: Namespace(name, dict(labels)) for name, labels in items}


# scoring_test.go's package-level `namespaces`, used by TestRequiredAffinitySingleNode too.
NS_T1 = {"team": "team1"}
NS_T2 = {"team": "team2"}
TEAM_NAMESPACES = namespaces(("subteam1.team1", NS_T1), ("subteam2.team1", NS_T1),
                             ("subteam1.team2", NS_T2), ("subteam2.team2", NS_T2))


def setup(nodes: list[Node], pods: list[Pod], ns: dict[str, Namespace] | None = None,
          args: InterPodAffinityArgs | None = None) -> tuple[InterPodAffinity, FakeHandle]:
    handle = FakeHandle(nodes, pods, namespaces=ns, features=FEATURES)
    return InterPodAffinity(args or InterPodAffinityArgs(), handle), handle


def st(status: Status | None) -> tuple | None:
    return None if status is None else (status.code, status.reasons)


def flat(counts: dict[str, dict[str, int]]) -> dict[tuple[str, str], int]:
    """The nested counts as upstream's topologyToMatchedTermCount {(key, value): count}."""
    return {(k, v): c for k, by_value in counts.items() for v, c in by_value.items()}


SKIP = (Code.SKIP, [])
UNRESOLVABLE_AFFINITY = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [ERR_REASON_AFFINITY_RULES_NOT_MATCH])
ANTI = (Code.UNSCHEDULABLE, [ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH])
EXISTING = (Code.UNSCHEDULABLE, [ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH])


def test_reason_strings() -> None:
    # filtering.go constants.
    assert ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH == \
        "node(s) didn't satisfy existing pods anti-affinity rules"
    assert ERR_REASON_AFFINITY_RULES_NOT_MATCH == "node(s) didn't match pod affinity rules"
    assert ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH == \
        "node(s) didn't match pod anti-affinity rules"
    assert PRE_FILTER_STATE_KEY == "PreFilterInterPodAffinity"


# ---------------------------------------------------------------------------------------------
# TestRequiredAffinitySingleNode
# ---------------------------------------------------------------------------------------------

POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
LABELS1 = {"region": "r1", "zone": "z11"}


def _single_node_cases() -> list:
    def existing() -> Pod:
        return make_pod(labels=POD_LABEL, node="node1")

    ns_sel_team1 = sel(("team", "In", "team1"))
    svc_in = sel(("service", "In", "securityscan", "value2"))
    return [
        ("A pod that has no required pod affinity scheduling rules can schedule onto a node with "
         "no existing pods", make_pod(), [], SKIP, None),
        ("satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In "
         "operator that matches the existing pod",
         make_pod(labels=POD_LABEL2,
                  affinity=[aff_in("service", "region", ["securityscan", "value2"])]),
         [existing()], None, None),
        ("satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity "
         "using not in operator in labelSelector that matches the existing pod",
         make_pod(labels=POD_LABEL2,
                  affinity=[aff_not_in("service", "region", ["securityscan3", "value3"])]),
         [existing()], None, None),
        ("Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
         make_pod(labels=POD_LABEL2, both=True,
                  affinity=[term(svc_in, "", namespaces=("DiffNameSpace",))]),
         [make_pod(namespace="ns", labels={"service": "securityscan"}, node="node1")],
         None, UNRESOLVABLE_AFFINITY),
        ("Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing "
         "pod",
         make_pod(labels=POD_LABEL,
                  affinity=[aff_in("service", "", ["antivirusscan", "value2"])]),
         [existing()], None, UNRESOLVABLE_AFFINITY),
        ("satisfies the PodAffinity with different label Operators in multiple "
         "RequiredDuringSchedulingIgnoredDuringExecution ",
         make_pod(labels=POD_LABEL2, both=True, affinity=[
             term(sel(("service", "Exists"), ("wrongkey", "DoesNotExist")), "region"),
             term(sel(("service", "In", "securityscan"), ("service", "NotIn", "WrongValue")),
                  "region")]),
         [existing()], None, None),
        ("The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot "
         "schedule onto the node because one of the matchExpression item don't match.",
         make_pod(labels=POD_LABEL2, both=True, affinity=[
             term(sel(("service", "Exists"), ("wrongkey", "DoesNotExist")), "region"),
             term(sel(("service", "In", "securityscan2"), ("service", "NotIn", "WrongValue")),
                  "region")]),
         [existing()], None, UNRESOLVABLE_AFFINITY),
        ("satisfies the PodAffinity and PodAntiAffinity with the existing pod",
         make_pod(labels=POD_LABEL2,
                  affinity=[aff_in("service", "region", ["securityscan", "value2"])],
                  anti=[aff_in("service", "node", ["antivirusscan", "value2"])]),
         [existing()], None, None),
        ("satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the "
         "existing pod",
         make_pod(labels=POD_LABEL2,
                  affinity=[aff_in("service", "region", ["securityscan", "value2"])],
                  anti=[aff_in("service", "node", ["antivirusscan", "value2"])]),
         [make_pod(node="node1", labels=POD_LABEL,
                   anti=[aff_in("service", "node", ["antivirusscan", "value2"])])],
         None, None),
        ("satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
         make_pod(labels=POD_LABEL2,
                  affinity=[aff_in("service", "region", ["securityscan", "value2"])],
                  anti=[aff_in("service", "zone", ["securityscan", "value2"])]),
         [existing()], None, ANTI),
        ("satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity "
         "symmetry with the existing pod",
         make_pod(labels=POD_LABEL,
                  affinity=[aff_in("service", "region", ["securityscan", "value2"])],
                  anti=[aff_in("service", "node", ["antivirusscan", "value2"])]),
         [make_pod(labels=POD_LABEL, node="node1",
                   anti=[aff_in("service", "zone", ["securityscan", "value2"])])],
         None, EXISTING),
        # Upstream puts the existing pod on "node2", a node absent from the snapshot's node list
        # (cache.NewSnapshot keeps a node-less NodeInfo for it). The reference snapshot needs the
        # node, so node2 is added without labels: the pod matches no term either way.
        ("pod matches its own Label in PodAffinity and that matches the existing pod Labels",
         make_pod(labels=POD_LABEL,
                  affinity=[aff_not_in("service", "region", ["securityscan", "value2"])]),
         [make_pod(labels={"service": "securityscan"}, node="node2")], None,
         UNRESOLVABLE_AFFINITY),
        ("verify that PodAntiAffinity from existing pod is respected when pod has no "
         "AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing "
         "pod",
         make_pod(labels=POD_LABEL),
         [make_pod(node="node1", labels=POD_LABEL,
                   anti=[aff_in("service", "zone", ["securityscan", "value2"])])],
         None, EXISTING),
        ("verify that PodAntiAffinity from existing pod is respected when pod has no "
         "AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
         make_pod(labels=POD_LABEL),
         [make_pod(node="node1", labels=POD_LABEL,
                   anti=[aff_not_in("service", "zone", ["securityscan", "value2"])])],
         SKIP, None),
        ("satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity "
         "symmetry with incoming pod",
         make_pod(labels=POD_LABEL, anti=[aff_exists("service", "region"),
                                          aff_exists("security", "region")]),
         [make_pod(node="node1", labels=POD_LABEL2, anti=[aff_exists("security", "zone")])],
         None, ANTI),
        ("PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each "
         "other on AffinityTerms",
         make_pod(labels=POD_LABEL, anti=[aff_exists("service", "zone"),
                                          aff_exists("security", "zone")]),
         [make_pod(node="node1", labels=POD_LABEL2, anti=[aff_exists("security", "zone")])],
         None, ANTI),
        ("PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each "
         "other on AffinityTerms",
         make_pod(labels=POD_LABEL2, anti=[aff_exists("security", "zone")]),
         [make_pod(node="node1", labels=POD_LABEL,
                   anti=[aff_exists("service", "zone"), aff_exists("security", "zone")])],
         None, EXISTING),
        ("PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each "
         "other on AffinityTerms",
         make_pod(labels={"abc": "", "xyz": ""},
                  anti=[aff_exists("abc", "zone"), aff_exists("def", "zone")]),
         [make_pod(node="node1", labels={"def": "", "xyz": ""},
                   anti=[aff_exists("abc", "zone"), aff_exists("def", "zone")])],
         None, ANTI),
        ("PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each "
         "other on AffinityTerms",
         make_pod(labels={"def": "", "xyz": ""},
                  anti=[aff_exists("abc", "zone"), aff_exists("def", "zone")]),
         [make_pod(node="node1", labels={"abc": "", "xyz": ""},
                   anti=[aff_exists("abc", "zone"), aff_exists("def", "zone")])],
         None, ANTI),
        ("affinity with NamespaceSelector",
         make_pod(labels=POD_LABEL2, both=True,
                  affinity=[term(svc_in, "region", namespace_selector=ns_sel_team1)]),
         [make_pod(namespace="subteam1.team1", labels=POD_LABEL, node="node1")], None, None),
        ("affinity with non-matching NamespaceSelector",
         make_pod(labels=POD_LABEL2, both=True,
                  affinity=[term(svc_in, "region", namespace_selector=ns_sel_team1)]),
         [make_pod(namespace="subteam1.team2", labels=POD_LABEL, node="node1")], None,
         UNRESOLVABLE_AFFINITY),
        ("anti-affinity with matching NamespaceSelector",
         make_pod(namespace="subteam1.team1", labels=POD_LABEL2, both=True,
                  anti=[term(svc_in, "zone", namespace_selector=ns_sel_team1)]),
         [make_pod(namespace="subteam2.team1", labels=POD_LABEL, node="node1")], None, ANTI),
        ("anti-affinity with matching all NamespaceSelector",
         make_pod(namespace="subteam1.team1", labels=POD_LABEL2, both=True,
                  anti=[term(svc_in, "zone", namespace_selector=LabelSelector())]),
         [make_pod(namespace="subteam2.team1", labels=POD_LABEL, node="node1")], None, ANTI),
        ("anti-affinity with non-matching NamespaceSelector",
         make_pod(namespace="subteam1.team1", labels=POD_LABEL2, both=True,
                  anti=[term(svc_in, "zone", namespace_selector=ns_sel_team1)]),
         [make_pod(namespace="subteam1.team2", labels=POD_LABEL, node="node1")], None, None),
    ]


@pytest.mark.parametrize("name,pod,pods,want_pre,want_filter", _single_node_cases(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_required_affinity_single_node(name: str, pod: Pod, pods: list[Pod], want_pre: tuple,
                                       want_filter: tuple) -> None:
    """filtering_test.go TestRequiredAffinitySingleNode."""
    nodes = [make_node("node1", LABELS1)]
    if any(p.node_name == "node2" for p in pods):
        nodes.append(make_node("node2"))
    pl, handle = setup(nodes, pods, TEAM_NAMESPACES)
    state = CycleState()
    _, pre = pl.pre_filter(state, pod, handle.snapshot().list())
    assert st(pre) == want_pre
    if pre is not None:
        return
    assert st(pl.filter(state, pod, handle.snapshot().get("node1"))) == want_filter


@pytest.mark.xfail(strict=True, reason="label value validation (IsValidLabelValue) is not done "
                   "by api/labels.compile_selector yet")
@pytest.mark.parametrize("terms", [
    # PodAffinity fails PreFilter with an invalid affinity label syntax
    [aff_in("service", "region", ["{{.bad-value.}}"]),
     aff_in("service", "node", ["antivirusscan", "value2"])],
    # PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax
    [aff_in("service", "region", ["foo"]), aff_in("service", "node", ["{{.bad-value.}}"])],
])
def test_required_affinity_single_node_invalid_label(terms: list[PodAffinityTerm]) -> None:
    """filtering_test.go TestRequiredAffinitySingleNode, the two "fails PreFilter with an invalid
    ... label syntax" cases."""
    pl, handle = setup([make_node("node1", LABELS1)], [], TEAM_NAMESPACES)
    pod = make_pod(labels=POD_LABEL, affinity=terms)
    _, pre = pl.pre_filter(CycleState(), pod, handle.snapshot().list())
    assert st(pre) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [
        'parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: '
        '"{{.bad-value.}}": a valid label must be an empty string or consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"])


def test_invalid_operator_fails_pre_filter() -> None:
    """A selector LabelSelectorAsSelector rejects makes NewPodInfo fail: PreFilter returns
    UnschedulableAndUnresolvable "parsing pod: ..." (filtering.go PreFilter)."""
    pl, handle = setup([make_node("node1", LABELS1)], [], TEAM_NAMESPACES)
    pod = make_pod(affinity=[term(sel(("service", "Bogus", "x")), "region")])
    _, pre = pl.pre_filter(CycleState(), pod, handle.snapshot().list())
    assert pre is not None and pre.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    # The quoting of the operator is api/labels.py's (upstream: %q, double quotes).
    assert pre.reasons[0].startswith("parsing pod: requiredAffinityTerms: ")
    assert "Bogus" in pre.reasons[0]
    assert pre.reasons[0].endswith(" is not a valid label selector operator")


# ---------------------------------------------------------------------------------------------
# TestRequiredAffinityMultipleNodes
# ---------------------------------------------------------------------------------------------

RG_CHINA = {"region": "China"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
RG_INDIA = {"region": "India"}


def _abc_nodes(zone_b: str = "z1", with_c: bool = False) -> list[Node]:
    nodes = [make_node("nodeA", {"region": "r1", "zone": "z1", "hostname": "nodeA"}),
             make_node("nodeB", {"region": "r1", "zone": zone_b, "hostname": "nodeB"})]
    if with_c:
        nodes.append(make_node("nodeC", {"region": "r1", "zone": "z3", "hostname": "nodeC"}))
    return nodes


def _multiple_nodes_cases() -> list:
    return [
        ("A pod can be scheduled onto all the nodes that have the same topology key & label "
         "value with one of them has an existing pod that matches the affinity rules",
         make_pod(affinity=[aff_in("foo", "region", ["bar"])]),
         [make_pod(name="p1", node="node1", labels={"foo": "bar"})],
         [make_node("node1", RG_CHINA), make_node("node2", RG_CHINA_AZ1),
          make_node("node3", RG_INDIA)],
         None, [None, None, UNRESOLVABLE_AFFINITY]),
        ("The affinity rule is to schedule all of the pods of this collection to the same zone. "
         "The first pod of the collection should not be blocked from being scheduled onto any "
         "node, even there's no existing pod that matches the rule anywhere.",
         make_pod(labels={"foo": "bar", "service": "securityscan"},
                  affinity=[aff_in("foo", "zone", ["bar"]),
                            aff_in("service", "zone", ["securityscan"])]),
         [make_pod(name="p1", node="nodeA", labels={"foo": "bar"})],
         [make_node("nodeA", {"zone": "az1", "hostname": "h1"}),
          make_node("nodeB", {"zone": "az2", "hostname": "h2"})],
         None, [None, None]),
        ("The first pod of the collection can only be scheduled on nodes labelled with the "
         "requested topology keys",
         make_pod(labels={"foo": "bar", "service": "securityscan"},
                  affinity=[aff_in("foo", "zone", ["bar"]),
                            aff_in("service", "zone", ["securityscan"])]),
         [make_pod(name="p1", node="nodeA", labels={"foo": "bar"})],
         [make_node("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
          make_node("nodeB", {"zoneLabel": "az2", "hostname": "h2"})],
         None, [UNRESOLVABLE_AFFINITY, UNRESOLVABLE_AFFINITY]),
        ("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
         "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
         make_pod(anti=[aff_in("foo", "region", ["abc"])]),
         [make_pod(node="nodeA", labels={"foo": "abc"})],
         [make_node("nodeA", {"region": "r1", "hostname": "nodeA"}),
          make_node("nodeB", {"region": "r1", "hostname": "nodeB"})],
         None, [ANTI, ANTI]),
        ("This test ensures that anti-affinity matches a pod when any term of the anti-affinity "
         "rule matches a pod.",
         make_pod(anti=[aff_in("foo", "region", ["abc"]),
                        aff_in("service", "zone", ["securityscan"])]),
         [make_pod(node="nodeA", labels={"foo": "abc", "service": "securityscan"})],
         _abc_nodes(zone_b="z2"), None, [ANTI, ANTI]),
        ("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
         "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB "
         "but can be scheduled onto nodeC",
         make_pod(anti=[aff_in("foo", "region", ["abc"])]),
         [make_pod(node="nodeA", labels={"foo": "abc"})],
         [make_node("nodeA", RG_CHINA), make_node("nodeB", RG_CHINA_AZ1),
          make_node("nodeC", RG_INDIA)],
         None, [ANTI, ANTI, None]),
        ("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
         "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, "
         "but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod "
         "affinity rule but in different namespace)",
         make_pod(namespace="NS1", labels={"foo": "123"},
                  anti=[aff_in("foo", "region", ["bar"])]),
         [make_pod(node="nodeA", namespace="NS1", labels={"foo": "bar"}),
          make_pod(node="nodeC", namespace="NS2", anti=[aff_in("foo", "region", ["123"])])],
         [make_node("nodeA", RG_CHINA), make_node("nodeB", RG_CHINA_AZ1),
          make_node("nodeC", RG_INDIA)],
         None, [ANTI, ANTI, None]),
        ("Test existing pod's anti-affinity: if an existing pod has a term with invalid "
         "topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the "
         "term is also checked",
         make_pod(labels={"foo": ""}),
         [make_pod(node="nodeA", anti=[aff_exists("foo", "invalid-node-label")])],
         _abc_nodes(), SKIP, [None, None]),
        ("Test incoming pod's anti-affinity: even if labelSelector matches, we still check if "
         "topologyKey matches",
         make_pod(node="nodeA", anti=[aff_exists("foo", "invalid-node-label")]),
         [make_pod(node="nodeA", labels={"foo": ""})],
         _abc_nodes(), None, [None, None]),
        ("Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it "
         "violates each existingPod's terms on all nodes",
         make_pod(labels={"foo": "", "bar": ""}),
         [make_pod(node="nodeA", anti=[aff_exists("foo", "zone")]),
          make_pod(node="nodeA", anti=[aff_exists("bar", "region")])],
         _abc_nodes(zone_b="z2"), None, [EXISTING, EXISTING]),
        ("Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at "
         "least violates one anti-affinity rule of existingPod",
         make_pod(anti=[aff_exists("foo", "zone"), aff_exists("bar", "region")]),
         [make_pod(node="nodeA", labels={"foo": ""}), make_pod(node="nodeB", labels={"bar": ""})],
         _abc_nodes(zone_b="z2"), None, [ANTI, ANTI]),
        ("Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
         "it's counted as a single term match - case when one term has invalid topologyKey",
         make_pod(labels={"foo": "", "bar": ""}),
         [make_pod(node="nodeA", anti=[aff_exists("foo", "invalid-node-label"),
                                       aff_exists("bar", "zone")])],
         _abc_nodes(zone_b="z2"), None, [EXISTING, None]),
        ("Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
         "it's counted as a single term match - case when one term has invalid topologyKey",
         make_pod(anti=[aff_exists("foo", "invalid-node-label"), aff_exists("bar", "zone")]),
         [make_pod(name="podA", node="nodeA", labels={"foo": "", "bar": ""})],
         _abc_nodes(zone_b="z2"), None, [ANTI, None]),
        ("Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
         "it's counted as a single term match - case when all terms have valid topologyKey",
         make_pod(labels={"foo": "", "bar": ""}),
         [make_pod(node="nodeA", anti=[aff_exists("foo", "region"), aff_exists("bar", "zone")])],
         _abc_nodes(zone_b="z2"), None, [EXISTING, EXISTING]),
        ("Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
         "it's counted as a single term match - case when all terms have valid topologyKey",
         make_pod(anti=[aff_exists("foo", "region"), aff_exists("bar", "zone")]),
         [make_pod(node="nodeA", labels={"foo": "", "bar": ""})],
         _abc_nodes(zone_b="z2"), None, [ANTI, ANTI]),
        ("Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one "
         "anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
         make_pod(labels={"foo": "", "bar": ""}),
         [make_pod(node="nodeA", anti=[aff_exists("foo", "zone"), aff_exists("labelA", "zone")]),
          make_pod(node="nodeB", anti=[aff_exists("bar", "zone"), aff_exists("labelB", "zone")])],
         _abc_nodes(zone_b="z2", with_c=True), None, [EXISTING, EXISTING, None]),
        ("Test incoming pod's affinity: firstly check if all affinityTerms match, and then check "
         "if all topologyKeys match",
         make_pod(affinity=[aff_exists("foo", "region"), aff_exists("bar", "zone")]),
         [make_pod(name="pod1", labels={"foo": "", "bar": ""}, node="nodeA")],
         _abc_nodes(), None, [None, None]),
        ("Test incoming pod's affinity: firstly check if all affinityTerms match, and then check "
         "if all topologyKeys match, and the match logic should be satisfied on the same pod",
         make_pod(affinity=[aff_exists("foo", "region"), aff_exists("bar", "zone")]),
         [make_pod(name="pod1", node="nodeA", labels={"foo": ""}),
          make_pod(name="pod2", node="nodeB", labels={"bar": ""})],
         _abc_nodes(zone_b="z2"), None, [UNRESOLVABLE_AFFINITY, UNRESOLVABLE_AFFINITY]),
        ("Test incoming pod's host-scoped affinity (fast path)",
         make_pod(affinity=[aff_exists("foo", LABEL_HOSTNAME)]),
         [make_pod(name="pod1", labels={"foo": ""}, node="nodeA")],
         [make_node("nodeA", {LABEL_HOSTNAME: "nodeA"}),
          make_node("nodeB", {LABEL_HOSTNAME: "nodeB"})],
         None, [None, UNRESOLVABLE_AFFINITY]),
        ("Test incoming pod's host-scoped anti-affinity (fast path)",
         make_pod(anti=[aff_exists("foo", LABEL_HOSTNAME)]),
         [make_pod(name="pod1", labels={"foo": ""}, node="nodeA")],
         [make_node("nodeA", {LABEL_HOSTNAME: "nodeA"}),
          make_node("nodeB", {LABEL_HOSTNAME: "nodeB"})],
         None, [ANTI, None]),
    ]


@pytest.mark.parametrize("name,pod,pods,nodes,want_pre,want_filters", _multiple_nodes_cases(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_required_affinity_multiple_nodes(name: str, pod: Pod, pods: list[Pod],
                                          nodes: list[Node], want_pre: tuple,
                                          want_filters: list) -> None:
    """filtering_test.go TestRequiredAffinityMultipleNodes."""
    pl, handle = setup(nodes, pods, namespaces(("NS1", {})))
    state = CycleState()
    _, pre = pl.pre_filter(state, pod, handle.snapshot().list())
    assert st(pre) == want_pre
    if pre is not None:
        return
    got = [st(pl.filter(state, pod, handle.snapshot().get(n.name))) for n in nodes]
    assert got == want_filters


def test_pre_filter_disabled() -> None:
    """filtering_test.go TestPreFilterDisabled: Filter without PreFilter state is an Error."""
    pl, _ = setup([], [])
    status = pl.filter(CycleState(), make_pod(), NodeInfo(make_node("")))
    assert status is not None and status.code == Code.ERROR
    assert "not found" in status.message()


# ---------------------------------------------------------------------------------------------
# TestPreFilterStateAddRemovePod / TestPreFilterStateClone
# ---------------------------------------------------------------------------------------------

SELECTOR1 = {"foo": "bar"}
ANTI_FOO_BAR = [aff_in("foo", "region", ["bar"])]
COMPLEX = [aff_in("foo", "region", ["bar", "buzz"]),
           aff_not_in("service", "zone", ["bar", "security", "test"])]
ADD_REMOVE_NODES = [make_node("nodeA", {"region": "r1", "zone": "z11"}),
                    make_node("nodeB", {"region": "r1", "zone": "z12"}),
                    make_node("nodeC", {"region": "r2", "zone": "z21"})]


def _add_remove_cases() -> list:
    return [
        ("preFilterState anti-affinity terms are updated correctly after adding and removing a "
         "pod",
         make_pod(name="pending", labels=SELECTOR1, anti=ANTI_FOO_BAR),
         [make_pod(name="p1", labels=SELECTOR1, node="nodeA"),
          make_pod(name="p2", node="nodeC", anti=ANTI_FOO_BAR)],
         make_pod(name="addedPod", labels=SELECTOR1, node="nodeB", anti=ANTI_FOO_BAR),
         ADD_REMOVE_NODES, {("region", "r1"): 2}, {}),
        ("preFilterState anti-affinity terms are updated correctly after adding and removing a "
         "pod (complex)",
         make_pod(name="pending", labels=SELECTOR1, anti=COMPLEX),
         [make_pod(name="p1", labels=SELECTOR1, node="nodeA"),
          make_pod(name="p2", node="nodeC", anti=ANTI_FOO_BAR)],
         make_pod(name="addedPod", labels=SELECTOR1, node="nodeA", anti=COMPLEX),
         ADD_REMOVE_NODES,
         {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1}, {}),
        ("preFilterState matching pod affinity and anti-affinity are updated correctly after "
         "adding and removing a pod",
         make_pod(name="pending", labels=SELECTOR1, affinity=COMPLEX),
         [make_pod(name="p1", labels=SELECTOR1, node="nodeA"),
          make_pod(name="p2", node="nodeC", affinity=COMPLEX, anti=ANTI_FOO_BAR)],
         make_pod(name="addedPod", labels=SELECTOR1, node="nodeA", anti=COMPLEX),
         ADD_REMOVE_NODES, {}, {("region", "r1"): 2, ("zone", "z11"): 2}),
        ("preFilterState anti-affinity terms with both hostname and non-hostname are updated "
         "correctly after adding and removing a pod",
         make_pod(name="pending", labels=SELECTOR1, anti=ANTI_FOO_BAR),
         [make_pod(name="p1", labels=SELECTOR1, node="nodeA")],
         make_pod(name="addedPod", labels=SELECTOR1, node="nodeA",
                  anti=[aff_in("foo", "region", ["bar"]), aff_in("foo", LABEL_HOSTNAME, ["bar"])]),
         [make_node("nodeA", {"region": "r1", "zone": "z11", LABEL_HOSTNAME: "nodeA"}),
          make_node("nodeB", {"region": "r1", "zone": "z12", LABEL_HOSTNAME: "nodeB"})],
         {("region", "r1"): 2}, {}),
    ]


def _maps(s: PreFilterState) -> tuple:
    return (flat(s.existing_anti_affinity_counts), flat(s.affinity_counts),
            flat(s.anti_affinity_counts))


@pytest.mark.parametrize("name,pending,existing,added,nodes,want_anti,want_affinity",
                         _add_remove_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_pre_filter_state_add_remove_pod(name: str, pending: Pod, existing: list[Pod],
                                         added: Pod, nodes: list[Node], want_anti: dict,
                                         want_affinity: dict) -> None:
    """filtering_test.go TestPreFilterStateAddRemovePod."""

    def get_state(pods: list[Pod]) -> tuple[InterPodAffinity, CycleState, PreFilterState,
                                            FakeHandle]:
        pl, handle = setup(nodes, pods)
        cs = CycleState()
        _, status = pl.pre_filter(cs, pending, handle.snapshot().list())
        assert status is None
        return pl, cs, cs.read(PRE_FILTER_STATE_KEY), handle

    _, _, all_pods_state, _ = get_state([*existing, added])
    pl, cs, state, handle = get_state(existing)
    original = state.clone()

    node_info = handle.snapshot().get(added.node_name)
    assert pl.add_pod(cs, pending, PodInfo(added), node_info) is None
    new_state = cs.read(PRE_FILTER_STATE_KEY)
    assert flat(new_state.anti_affinity_counts) == want_anti
    assert flat(new_state.affinity_counts) == want_affinity
    assert _maps(state) == _maps(all_pods_state)

    assert pl.remove_pod(cs, pending, PodInfo(added), node_info) is None
    assert _maps(state) == _maps(original)

    # Pure RemovePod: start with every pod, remove the added one.
    pl2, cs2, state2, handle2 = get_state([*existing, added])
    assert pl2.remove_pod(cs2, pending, PodInfo(added),
                          handle2.snapshot().get(added.node_name)) is None
    assert _maps(state2) == _maps(original)


def test_pre_filter_state_clone() -> None:
    """filtering_test.go TestPreFilterStateClone: the maps are copied."""
    source = PreFilterState(make_pod(), [], [], {},
                            {"name": {"node1": 1, "node2": 1}},
                            {"name": {"nodeA": 1, "nodeC": 2}},
                            {"name": {"nodeN": 3, "nodeM": 1}})
    clone = source.clone()
    assert clone is not source
    assert _maps(clone) == _maps(source)
    clone.existing_anti_affinity_counts["name"]["node1"] = 7
    clone.affinity_counts["other"] = {"x": 1}
    assert source.existing_anti_affinity_counts == {"name": {"node1": 1, "node2": 1}}
    assert "other" not in source.affinity_counts
    # CycleState.clone clones the state too.
    cs = CycleState()
    cs.write(PRE_FILTER_STATE_KEY, source)
    assert cs.clone().read(PRE_FILTER_STATE_KEY) is not source


def test_add_pod_without_state_is_error() -> None:
    """filtering.go AddPod/RemovePod: no PreFilter state -> Error status."""
    pl, _ = setup([make_node("n")], [])
    ni = NodeInfo(make_node("n"))
    for fn in (pl.add_pod, pl.remove_pod):
        status = fn(CycleState(), make_pod(), PodInfo(make_pod()), ni)
        assert status is not None and status.code == Code.ERROR
    assert pl.pre_filter_extensions() is pl


# ---------------------------------------------------------------------------------------------
# TestGetTPMapMatchingIncomingAffinityAntiAffinity
# ---------------------------------------------------------------------------------------------

def _normal_pod(*labels: str) -> Pod:
    return make_pod(name="normal", node="nodeA", labels={k: "" for k in labels})


HN = {(LABEL_HOSTNAME, "nodeA"): 1}


def _tp_map_cases() -> list:
    h = LABEL_HOSTNAME
    return [
        ("nil test", [], make_pod(name="aaa-normal"), {}, {}),
        ("incoming pod without affinity/anti-affinity causes a no-op", [_normal_pod("aaa")],
         make_pod(name="aaa-normal"), {}, {}),
        ("no pod has label that violates incoming pod's affinity and anti-affinity",
         [_normal_pod("bbb")],
         make_pod(name="aaa-anti", affinity=[aff_exists("aaa", h)], anti=[aff_exists("aaa", h)]),
         {}, {}),
        ("existing pod matches incoming pod's affinity and anti-affinity - single term case",
         [_normal_pod("aaa")],
         make_pod(affinity=[aff_exists("aaa", h)], anti=[aff_exists("aaa", h)]), HN, HN),
        ("existing pod matches incoming pod's affinity and anti-affinity - multiple terms case",
         [_normal_pod("aaa", "bbb")],
         make_pod(affinity=[aff_exists("aaa", h), aff_exists("bbb", h)],
                  anti=[aff_exists("aaa", h)]),
         {(h, "nodeA"): 2}, HN),
        ("existing pod not match incoming pod's affinity but matches anti-affinity",
         [_normal_pod("aaa")],
         make_pod(affinity=[aff_exists("aaa", h), aff_exists("bbb", h)],
                  anti=[aff_exists("aaa", h), aff_exists("bbb", h)]), {}, HN),
        ("incoming pod's anti-affinity has more than one term - existing pod violates partial "
         "term - case 1",
         [_normal_pod("aaa", "bbb")],
         make_pod(affinity=[aff_exists("aaa", h), aff_exists("ccc", h)],
                  anti=[aff_exists("aaa", h), aff_exists("ccc", h)]), {}, HN),
        ("incoming pod's anti-affinity has more than one term - existing pod violates partial "
         "term - case 2",
         [_normal_pod("bbb")],
         make_pod(affinity=[aff_exists("aaa", h), aff_exists("bbb", h)],
                  anti=[aff_exists("aaa", h), aff_exists("bbb", h)]), {}, HN),
    ]


@pytest.mark.parametrize("name,existing,pod,want_affinity,want_anti", _tp_map_cases(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_get_tp_map_matching_incoming_affinity_anti_affinity(
        name: str, existing: list[Pod], pod: Pod, want_affinity: dict, want_anti: dict) -> None:
    """filtering_test.go TestGetTPMapMatchingIncomingAffinityAntiAffinity."""
    _, handle = setup([make_node("nodeA", {LABEL_HOSTNAME: "nodeA"})], existing)
    terms = build_pod_info_terms(pod)
    aff, anti = FilteringMixin.get_incoming_affinity_anti_affinity_counts(
        terms[0], terms[1], handle.snapshot().list())
    assert flat(aff) == want_affinity
    assert flat(anti) == want_anti


# ---------------------------------------------------------------------------------------------
# TestRemovePodHostScopedAffinityCount, TestMultipleAffinityTermsRequireSingleMatchingPod,
# TestFastTrackInterPodAffinity
# ---------------------------------------------------------------------------------------------

def test_remove_pod_host_scoped_affinity_count() -> None:
    """filtering_test.go TestRemovePodHostScopedAffinityCount."""
    pending = make_pod(name="pending", labels={"foo": "bar"},
                       affinity=[aff_in("foo", LABEL_HOSTNAME, ["bar"])])
    existing = make_pod(name="existing", node="nodeA", labels={"foo": "bar"})
    nodes = [make_node("nodeA", {LABEL_HOSTNAME: "nodeA"}),
             make_node("nodeB", {LABEL_HOSTNAME: "nodeB"})]
    pl, handle = setup(nodes, [existing])
    cs = CycleState()
    _, pre = pl.pre_filter(cs, pending, handle.snapshot().list())
    assert pre is None
    node_a, node_b = handle.snapshot().get("nodeA"), handle.snapshot().get("nodeB")
    assert pl.filter(cs, pending, node_a) is None
    assert pl.filter(cs, pending, node_b) is not None
    # Preemption removes the existing pod: no pod matches any more, self-affinity applies.
    assert pl.remove_pod(cs, pending, PodInfo(existing), node_a) is None
    assert pl.filter(cs, pending, node_a) is None
    assert pl.filter(cs, pending, node_b) is None


def test_multiple_affinity_terms_require_single_matching_pod() -> None:
    """filtering_test.go TestMultipleAffinityTermsRequireSingleMatchingPod."""
    pod = make_pod(name="pod-1", namespace="default",
                   affinity=[aff_in("foo", LABEL_HOSTNAME, ["bar"]),
                             aff_in("baz", LABEL_HOSTNAME, ["qux"])])
    pod_a = make_pod(name="podA", namespace="default", labels={"foo": "bar"}, node="node-1")
    pod_b = make_pod(name="podB", namespace="default", labels={"baz": "qux"}, node="node-1")
    pod_c = make_pod(name="podC", namespace="default", labels={"foo": "bar", "baz": "qux"},
                     node="node-3")
    nodes = [make_node(n, {LABEL_HOSTNAME: n}) for n in ("node-1", "node-2", "node-3")]
    ns = namespaces(("default", {}))

    pl, handle = setup(nodes, [pod_a, pod_b, pod_c], ns)
    cs = CycleState()
    _, pre = pl.pre_filter(cs, pod, handle.snapshot().list())
    assert pre is None
    snap = handle.snapshot()
    assert pl.filter(cs, pod, snap.get("node-1")) is not None
    assert pl.filter(cs, pod, snap.get("node-3")) is None
    assert pl.filter(cs, pod, snap.get("node-2")) is not None

    # Self-affinity: the pod carries both labels and no existing pod matches both terms.
    self_pod = make_pod(name="pod-1", namespace="default", labels={"foo": "bar", "baz": "qux"},
                        affinity=[aff_in("foo", LABEL_HOSTNAME, ["bar"]),
                                  aff_in("baz", LABEL_HOSTNAME, ["qux"])])
    pl2, handle2 = setup(nodes, [pod_a, pod_b], ns)
    cs2 = CycleState()
    _, pre2 = pl2.pre_filter(cs2, self_pod, handle2.snapshot().list())
    assert pre2 is None
    assert pl2.filter(cs2, self_pod, handle2.snapshot().get("node-1")) is None


def test_fast_track_inter_pod_affinity() -> None:
    """filtering_test.go TestFastTrackInterPodAffinity (run with the gate off)."""
    zone = "topology.kubernetes.io/zone"
    with_zone_anti = make_pod(name="pod-1", namespace="default", labels={"app": "foo"},
                              anti=[aff_in("app", zone, ["foo"])])
    with_host_anti = make_pod(name="pod-2", namespace="default", labels={"app": "bar"},
                              anti=[aff_in("app", LABEL_HOSTNAME, ["bar"])])
    with_ns_anti = make_pod(name="pod-3", namespace="other", labels={"app": "baz"}, anti=[
        term(sel(("app", "In", "blocked")), zone,
             namespace_selector=sel(("team", "DoesNotExist")))])
    pods = [make_pod(name="pod-no-rules-foo", namespace="default", labels={"app": "foo"},
                     node="node-1"),
            make_pod(name="pod-no-rules-bar", namespace="default", labels={"app": "bar"},
                     node="node-2"),
            make_pod(name="pod-in-ns-with-team-label", namespace="blue-ns",
                     labels={"app": "blocked", "team": "blue"}, node="node-1")]
    nodes = [make_node("node-1", {LABEL_HOSTNAME: "node-1", zone: "zone-a"}),
             make_node("node-2", {LABEL_HOSTNAME: "node-2", zone: "zone-b"})]
    ns = namespaces(("default", {}), ("other", {}), ("blue-ns", {"team": "blue"}))
    pl, handle = setup(nodes, pods, ns)
    snap = handle.snapshot()
    n1, n2 = snap.get("node-1"), snap.get("node-2")

    s1 = CycleState()
    _, pre = pl.pre_filter(s1, with_zone_anti, snap.list())
    assert pre is None
    assert pl.filter(s1, with_zone_anti, n1) is not None
    assert pl.filter(s1, with_zone_anti, n2) is None

    s2 = CycleState()
    pl.pre_filter(s2, with_host_anti, snap.list())
    assert pl.filter(s2, with_host_anti, n1) is None
    assert pl.filter(s2, with_host_anti, n2) is not None

    s3 = CycleState()
    _, pre = pl.pre_filter(s3, with_ns_anti, snap.list())
    assert pre is None
    assert pl.filter(s3, with_ns_anti, n1) is None


def test_fast_path_gate_is_refused() -> None:
    """InterPodAffinityHostnameFastPath is not modelled: enabling it is refused."""
    handle = FakeHandle([], [], features={"InterPodAffinityHostnameFastPath": True})
    with pytest.raises(NotImplementedError):
        InterPodAffinity(InterPodAffinityArgs(), handle)


def test_args_validation() -> None:
    """validation_pluginargs.go ValidateInterPodAffinityArgs: weight in [0, 100]."""
    handle = FakeHandle([], [], features=FEATURES)
    for w in (-1, 101):
        with pytest.raises(ValueError, match=r"not in valid range \[0, 100\]"):
            InterPodAffinity(InterPodAffinityArgs(hard_pod_affinity_weight=w), handle)
    InterPodAffinity(InterPodAffinityArgs(hard_pod_affinity_weight=100), handle)


# ---------------------------------------------------------------------------------------------
# PreFilter namespace handling and Filter edge cases
# ---------------------------------------------------------------------------------------------

def test_existing_anti_affinity_namespace_selector_uses_incoming_namespace_labels() -> None:
    """An existing pod's anti-affinity term with a namespaceSelector is matched against the
    incoming pod's namespace labels (GetNamespaceLabelsSnapshot); an unknown namespace has no
    labels, so a DoesNotExist selector matches it."""
    existing = make_pod(node="n1", anti=[term(sel(("app", "Exists")), "zone",
                                              namespace_selector=sel(("team", "DoesNotExist")))])
    nodes = [make_node("n1", {"zone": "z1"}), make_node("n2", {"zone": "z2"})]
    ns = namespaces(("blue", {"team": "blue"}))
    pl, handle = setup(nodes, [existing], ns)
    snap = handle.snapshot()
    for namespace, want in (("blue", SKIP), ("unknown", None)):
        cs = CycleState()
        pod = make_pod(namespace=namespace, labels={"app": "x"})
        _, pre = pl.pre_filter(cs, pod, snap.list())
        assert st(pre) == want
        if pre is None:
            assert st(pl.filter(cs, pod, snap.get("n1"))) == EXISTING
            assert pl.filter(cs, pod, snap.get("n2")) is None


def test_incoming_pod_terms_are_not_shared_with_pod_info() -> None:
    """PreFilter merges namespace selectors into fresh copies of the incoming pod's terms (as
    upstream's NewPodInfo in PreFilter); a PodInfo built for the same pod is untouched."""
    pod = make_pod(namespace="a", labels={"x": "1"}, affinity=[
        term(sel(("x", "Exists")), "zone", namespace_selector=sel(("team", "In", "t")))])
    pi = PodInfo(pod)
    before = pi.required_affinity_terms[0]
    pl, handle = setup([make_node("n1", {"zone": "z"})], [], namespaces(("b", {"team": "t"})))
    cs = CycleState()
    pl.pre_filter(cs, pod, handle.snapshot().list())
    s = cs.read(PRE_FILTER_STATE_KEY)
    assert s.affinity_terms[0].namespaces == {"b"}
    assert before.namespaces == set() and not before.namespace_selector.empty()


def test_add_pod_nominated_makes_affinity_satisfiable() -> None:
    """AddPod (nominated pods): a pod matching all affinity terms added on nodeA makes every
    node in its region pass, and self-affinity no longer applies elsewhere."""
    pending = make_pod(labels={"app": "web"}, affinity=[aff_in("app", "region", ["web"])])
    nodes = [make_node("a", {"region": "r1"}), make_node("b", {"region": "r2"})]
    pl, handle = setup(nodes, [])
    snap = handle.snapshot()
    cs = CycleState()
    _, pre = pl.pre_filter(cs, pending, snap.list())
    assert pre is None
    # No matching pod anywhere: the first pod of the group may go anywhere.
    assert pl.filter(cs, pending, snap.get("b")) is None
    nominated = make_pod(labels={"app": "web"}, nominated="a")
    clone = cs.clone()
    assert pl.add_pod(clone, pending, PodInfo(nominated), snap.get("a")) is None
    assert pl.filter(clone, pending, snap.get("a")) is None
    assert st(pl.filter(clone, pending, snap.get("b"))) == UNRESOLVABLE_AFFINITY
    # The original state is untouched by the clone's AddPod.
    assert pl.filter(cs, pending, snap.get("b")) is None


# ---------------------------------------------------------------------------------------------
# plugin_test.go: queueing hints, SignPod, events
# ---------------------------------------------------------------------------------------------

def _p(**kw) -> Pod:
    return make_pod(**kw)


AFF_SVC = [aff_in("service", "region", ["securityscan", "value2"])]


def _assigned_pod_change_cases() -> list:
    multi = [aff_exists("aaa", "hostname"), aff_exists("bbb", "hostname")]
    two_anti = [aff_in("service", "region", ["securityscan"]), aff_in("app", "region", ["web"])]
    return [
        ("add a pod which matches the pod affinity", _p(affinity=AFF_SVC), None,
         _p(node="fake-node", labels={"service": "securityscan"}), QUEUE),
        ("add an un-scheduled pod", _p(affinity=AFF_SVC), None,
         _p(labels={"service": "securityscan"}), QUEUE_SKIP),
        ("add a pod which doesn't match the pod affinity", _p(affinity=AFF_SVC), None,
         _p(node="fake-node", labels={"aaa": "a"}), QUEUE_SKIP),
        ("update a pod from non-match to match pod affinity", _p(affinity=AFF_SVC),
         _p(node="fake-node", labels={"aaa": "a"}),
         _p(node="fake-node", labels={"service": "securityscan"}), QUEUE),
        ("the updating pod matches target pod's affinity both before and after label changes",
         _p(affinity=AFF_SVC), _p(node="fake-node", labels={"service": "value2"}),
         _p(node="fake-node", labels={"service": "securityscan"}), QUEUE_SKIP),
        ("update an un-scheduled pod", _p(affinity=AFF_SVC), _p(labels={"aaa": "a"}),
         _p(labels={"service": "securityscan"}), QUEUE_SKIP),
        ("update a pod from match to non-match the pod affinity", _p(affinity=AFF_SVC),
         _p(node="fake-node", labels={"service": "securityscan"}),
         _p(node="fake-node", labels={"aaa": "a"}), QUEUE_SKIP),
        ("update a pod from match to non-match pod's affinity - multiple terms case",
         _p(affinity=multi), _p(node="fake-node", labels={"aaa": "a"}),
         _p(node="fake-node", labels={"service": "securityscan"}), QUEUE_SKIP),
        ("update a pod from non-match to match pod's affinity - multiple terms case",
         _p(affinity=multi), _p(node="fake-node", labels={"aaa": "a"}),
         _p(node="fake-node", labels={"aaa": "", "bbb": ""}), QUEUE),
        ("modify pod label to change it from satisfying pod anti-affinity to not satisfying "
         "anti-affinity", _p(anti=AFF_SVC),
         _p(node="fake-node", labels={"service": "securityscan"}),
         _p(node="fake-node", labels={"service": "aaaa"}), QUEUE),
        ("modify pod label to change it from not satisfying pod anti-affinity to satisfying "
         "anti-affinity", _p(anti=AFF_SVC), _p(node="fake-node", labels={"service": "bbb"}),
         _p(node="fake-node", labels={"service": "securityscan"}), QUEUE_SKIP),
        ("delete a pod which doesn't match pod's anti-affinity", _p(anti=AFF_SVC),
         _p(node="fake-node", labels={"aaa": "a"}), None, QUEUE_SKIP),
        ("delete a pod which matches pod's anti-affinity", _p(anti=AFF_SVC),
         _p(node="fake-node", labels={"service": "securityscan"}), None, QUEUE),
        ("delete a pod with anti-affinity that matches pending pod",
         _p(labels={"service": "securityscan"}), _p(node="fake-node", anti=AFF_SVC), None,
         QUEUE),
        ("delete a pod with anti-affinity that doesn't match pending pod",
         _p(labels={"service": "foo"}), _p(node="fake-node", anti=AFF_SVC), None, QUEUE_SKIP),
        ("delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity "
         "that doesn't match pending pod", _p(anti=AFF_SVC, labels={"service": "foo"}),
         _p(node="fake-node", anti=AFF_SVC, labels={"service": "foo"}), None, QUEUE_SKIP),
        ("delete a nominated pod which doesn't match pod's anti-affinity", _p(anti=AFF_SVC),
         _p(nominated="fake-node", labels={"aaa": "a"}), None, QUEUE_SKIP),
        ("delete a nominated pod which matches pod's anti-affinity", _p(anti=AFF_SVC),
         _p(nominated="fake-node", labels={"service": "securityscan"}), None, QUEUE),
        ("modify pod label to change it from matching only one of target pod's anti-affinity "
         "terms to matching none", _p(anti=two_anti),
         _p(node="fake-node", labels={"service": "securityscan", "app": "bar"}),
         _p(node="fake-node", labels={"service": "foo", "app": "bar"}), QUEUE),
        ("modify pod label but it still matches one of target pod's anti-affinity terms",
         _p(anti=two_anti),
         _p(node="fake-node", labels={"service": "securityscan", "app": "bar"}),
         _p(node="fake-node", labels={"service": "foo", "app": "web"}), QUEUE_SKIP),
        ("delete a pod which matches only one of target pod's anti-affinity terms",
         _p(anti=two_anti), _p(node="fake-node", labels={"service": "securityscan"}), None,
         QUEUE),
        ("delete a pod with anti-affinity that matches pending pod on only one term",
         _p(labels={"service": "securityscan"}), _p(node="fake-node", anti=two_anti), None,
         QUEUE),
    ]


@pytest.mark.parametrize("name,pod,old,new,want", _assigned_pod_change_cases(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_is_schedulable_after_assigned_pod_change(name: str, pod: Pod, old: Pod | None,
                                                  new: Pod | None, want: str) -> None:
    """plugin_test.go Test_isSchedulableAfterAssignedPodChange."""
    pl, _ = setup([], [], TEAM_NAMESPACES)
    assert pl.is_schedulable_after_assigned_pod_change(pod, old, new) == (want, None)


def test_is_schedulable_after_target_pod_update_label() -> None:
    """plugin_test.go Test_isSchedulableAfterTargetPodUpdateLabel."""
    pl, _ = setup([], [], TEAM_NAMESPACES)
    pod = make_pod(labels={"foo": "baz"})
    assert pl.is_schedulable_after_target_pod_update_label(pod, pod, pod) == (QUEUE, None)


def _node_change_cases() -> list:
    aff = [aff_in("service", "zone", ["securityscan", "value2"])]
    anti = [term(LabelSelector(match_labels=(("another", "label"),)), "zone")]
    return [
        ("add a new node with matched pod affinity topologyKey", _p(affinity=aff), None,
         make_node("node-a", {"zone": "zone1"}), QUEUE),
        ("add a new node without matched topologyKey",
         _p(affinity=[aff_in("service", "region", ["securityscan", "value2"])]), None,
         make_node("node-a", {"zone": "zone1"}), QUEUE_SKIP),
        ("update node label but not topologyKey", _p(affinity=aff),
         make_node("node-a", {"aaa": "a"}), make_node("node-a", {"aaa": "b"}), QUEUE_SKIP),
        ("update node label that isn't related to the pod affinity", _p(affinity=aff),
         make_node("node-a", {"zone": "zone1"}),
         make_node("node-a", {"zone": "zone1", "unrelated-label": "unrelated"}), QUEUE_SKIP),
        ("update node with different affinity topologyKey value", _p(affinity=aff),
         make_node("node-a", {"zone": "zone1"}), make_node("node-a", {"zone": "zone2"}), QUEUE),
        ("update node to have the affinity topology label", _p(affinity=aff),
         make_node("node-a", {"aaa": "a"}), make_node("node-a", {"zone": "zone1"}), QUEUE),
        ("add a new node with matched pod anti-affinity topologyKey", _p(anti=anti), None,
         make_node("node-a", {"zone": "zone1"}), QUEUE),
        ("add a new node without matched pod anti-affinity topologyKey", _p(anti=anti), None,
         make_node("node-a"), QUEUE),
        ("update node label that isn't related to the pod anti-affinity", _p(anti=anti),
         make_node("node-a", {"zone": "zone1"}),
         make_node("node-a", {"zone": "zone1", "unrelated-label": "unrelated"}), QUEUE_SKIP),
        ("update node with different anti-affinity topologyKey value", _p(anti=anti),
         make_node("node-a", {"zone": "zone1"}), make_node("node-a", {"zone": "zone2"}), QUEUE),
        ("update node to have the anti-affinity topology label", _p(anti=anti),
         make_node("node-a", {"aaa": "a"}), make_node("node-a", {"zone": "zone1"}), QUEUE_SKIP),
        ("update node label not to have anti-affinity topology label", _p(anti=anti),
         make_node("node-a", {"zone": "zone1"}), make_node("node-a", {"aaa": "a"}), QUEUE),
    ]


@pytest.mark.parametrize("name,pod,old,new,want", _node_change_cases(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_is_schedulable_after_node_change(name: str, pod: Pod, old: Node | None, new: Node,
                                          want: str) -> None:
    """plugin_test.go Test_isSchedulableAfterNodeChange."""
    pl, _ = setup([], [], TEAM_NAMESPACES)
    assert pl.is_schedulable_after_node_change(pod, old, new) == (want, None)


@pytest.mark.parametrize("name,pod,ignore,want_fragments,signable", [
    ("no affinity, default settings", make_pod(labels={"foo": "bar"}), False,
     [("v1.Pod.Labels", {"foo": "bar"})], True),
    ("no affinity, ignore setting set", make_pod(labels={"foo": "bar"}), True, None, True),
    ("affinity set", make_pod(labels={"foo": "bar"}, affinity=[term(None)]), False, None, False),
], ids=lambda v: v if isinstance(v, str) else "")
def test_pod_affinity_signature(name: str, pod: Pod, ignore: bool, want_fragments: list | None,
                                signable: bool) -> None:
    """plugin_test.go TestPodAffinitySignature."""
    pl, _ = setup([], [], TEAM_NAMESPACES,
                  InterPodAffinityArgs(ignore_preferred_terms_of_existing_pods=ignore))
    fragments, status = pl.sign_pod(pod)
    assert fragments == want_fragments
    if signable:
        assert status is None
    else:
        assert st(status) == (Code.UNSCHEDULABLE, ["pods with InterPodAffinity are not signable"])


def test_events_to_register() -> None:
    """plugin.go EventsToRegister."""
    pl, _ = setup([], [])
    events = pl.events_to_register()
    assert events == [
        ("AssignedPod", ("Add", "UpdatePodLabel", "Delete"),
         "is_schedulable_after_assigned_pod_change"),
        ("TargetPod", ("UpdatePodLabel",), "is_schedulable_after_target_pod_update_label"),
        ("Node", ("Add", "UpdateNodeLabel"), "is_schedulable_after_node_change"),
    ]
    for _, _, hint in events:
        assert callable(getattr(pl, hint))


def test_add_pod_existing_anti_affinity_uses_namespace_labels() -> None:
    """updateWithPod: the added pod's required anti-affinity terms are matched against the
    incoming pod with the incoming pod's namespace labels (its namespaceSelector applies)."""
    nodes = [make_node("a", {"zone": "z1"}), make_node("b", {"zone": "z2"})]
    pl, handle = setup(nodes, [], namespaces(("blue", {"team": "blue"})))
    snap = handle.snapshot()
    pending = make_pod(namespace="blue", labels={"app": "x"},
                       affinity=[aff_exists("app", "zone")])
    cs = CycleState()
    _, pre = pl.pre_filter(cs, pending, snap.list())
    assert pre is None
    added = make_pod(namespace="other", node="a", anti=[
        term(sel(("app", "Exists")), "zone", namespace_selector=sel(("team", "In", "blue")))])
    assert pl.add_pod(cs, pending, PodInfo(added), snap.get("a")) is None
    assert flat(cs.read(PRE_FILTER_STATE_KEY).existing_anti_affinity_counts) == {("zone", "z1"): 1}
    assert st(pl.filter(cs, pending, snap.get("a"))) == EXISTING
    assert pl.filter(cs, pending, snap.get("b")) is None


@pytest.mark.parametrize("seed", range(6))
def test_existing_anti_affinity_index_counts_as_the_walk(seed: int) -> None:
    """existing_index.py gives getExistingAntiAffinityCounts' counts (the walk over
    HavePodsWithRequiredAntiAffinityList, ``get_existing_anti_affinity_counts``) for incoming
    pods of several namespaces and labels, while pods with and without terms come and go and a
    node changes its labels, each change seen through the change log or the structure version."""
    import random

    from reference_impl.framework.affinity_terms import TermsMatcher
    from reference_impl.framework.snapshot import Snapshot
    from reference_impl.plugins.interpodaffinity.existing_index import (
        ExistingAntiAffinityIndex,
    )
    from reference_impl.plugins.interpodaffinity.filtering import FilteringMixin
    from reference_impl.testing.nodes import make_node
    from reference_impl.testing.pods import make_pod, pod_affinity_term

    rng = random.Random(seed)
    keys = [LABEL_HOSTNAME, "topology.kubernetes.io/zone", "rack"]

    def node(i: int) -> Node:
        w = make_node(f"n{i}").hostname().zone(rng.choice(["z1", "z2"]))
        if rng.random() < 0.5:
            w = w.label("rack", rng.choice(["r1", "r2"]))
        return w.obj()

    def pod(i: int, on: str | None) -> Pod:
        w = make_pod(f"p{i}").namespace(rng.choice(["a", "b"])).label(
            "app", rng.choice(["web", "db"]))
        for _ in range(rng.choice([0, 1, 1, 2])):
            w = w.pod_affinity_term(pod_affinity_term(
                rng.choice(keys), {"matchLabels": {"app": rng.choice(["web", "db"])}},
                namespaces=rng.choice([None, ["a"], ["a", "b"]])), anti=True)
        if on is not None:
            w = w.node(on)
        return w.obj()

    nodes = [node(i) for i in range(6)]
    snapshot = Snapshot(nodes, [pod(i, f"n{rng.randrange(6)}") for i in range(10)])
    index = ExistingAntiAffinityIndex()
    incoming = [pod(100 + i, None) for i in range(4)]
    serial = 200
    for step in range(25):
        index.refresh(snapshot)
        for p in incoming:
            want = FilteringMixin.get_existing_anti_affinity_counts(
                p, {}, snapshot.have_pods_with_required_anti_affinity_list())
            assert index.counts(TermsMatcher(p, {})) == want, step
        placed = [pi.pod for ni in snapshot.list() for pi in ni.pods]
        r = rng.random()
        if r < 0.45:
            serial += 1
            snapshot.add_pod(pod(serial, f"n{rng.randrange(6)}"))
        elif r < 0.9 and placed:
            snapshot.remove_pod(rng.choice(placed))
        else:
            snapshot.update_node(node(rng.randrange(6)))


@pytest.mark.parametrize("seed", range(6))
def test_pod_groups_count_as_the_walk(seed: int) -> None:
    """pod_groups.py gives getIncomingAffinityAntiAffinityCounts' counts (the walk over every
    pod of every node, ``get_incoming_affinity_anti_affinity_counts``) for incoming terms of
    several keys, namespaces and selectors, while pods come and go and nodes change labels."""
    import random

    from reference_impl.framework.affinity_terms import new_affinity_term
    from reference_impl.framework.snapshot import Snapshot
    from reference_impl.plugins.interpodaffinity.filtering import FilteringMixin
    from reference_impl.plugins.interpodaffinity.pod_groups import PodGroupIndex
    from reference_impl.testing.nodes import make_node
    from reference_impl.testing.pods import make_pod

    rng = random.Random(seed)
    keys = [LABEL_HOSTNAME, "topology.kubernetes.io/zone", "rack"]

    def node(i: int) -> Node:
        w = make_node(f"n{i}").hostname().zone(rng.choice(["z1", "z2"]))
        if rng.random() < 0.5:
            w = w.label("rack", rng.choice(["r1", "r2"]))
        return w.obj()

    def pod(i: int, on: str) -> Pod:
        w = make_pod(f"p{i}").namespace(rng.choice(["a", "b"]))
        if rng.random() < 0.8:
            w = w.label("app", rng.choice(["web", "db"]))
        return w.node(on).obj()

    def terms() -> list:
        owner = make_pod("incoming").namespace(rng.choice(["a", "b"])).obj()
        return [new_affinity_term(owner, term(
            sel(("app", rng.choice(["In", "NotIn"]), rng.choice(["web", "db"]))),
            rng.choice(keys), rng.choice([(), ("a",), ("a", "b")])))
            for _ in range(rng.choice([0, 1, 1, 2]))]

    snapshot = Snapshot([node(i) for i in range(6)],
                        [pod(i, f"n{rng.randrange(6)}") for i in range(10)])
    index = PodGroupIndex()
    serial = 200
    for step in range(25):
        index.refresh(snapshot)
        for _ in range(4):
            affinity, anti = terms(), terms()
            want = FilteringMixin.get_incoming_affinity_anti_affinity_counts(
                affinity, anti, snapshot.list())
            assert index.counts(affinity, anti) == want, step
        placed = [pi.pod for ni in snapshot.list() for pi in ni.pods]
        r = rng.random()
        if r < 0.45:
            serial += 1
            snapshot.add_pod(pod(serial, f"n{rng.randrange(6)}"))
        elif r < 0.9 and placed:
            snapshot.remove_pod(rng.choice(placed))
        else:
            snapshot.update_node(node(rng.randrange(6)))
