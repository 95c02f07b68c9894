"""InterPodAffinity PreScore/Score/NormalizeScore.

Cases restate upstream v1.37.2
``pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go``; each case names its source
test. As upstream, PreScore is given NodeInfos built from the nodes alone (``tf.BuildNodeInfos``)
and the existing pods are read from the snapshot.
"""

from __future__ import annotations

import itertools

import pytest

from reference_impl.config.args import InterPodAffinityArgs
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import MAX_NODE_SCORE
from reference_impl.framework.status import Code, PluginError
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import (
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
    WeightedPodAffinityTerm,
)
from reference_impl.plugins.interpodaffinity import InterPodAffinity
from reference_impl.plugins.interpodaffinity.scoring import PRE_SCORE_STATE_KEY, PreScoreState

FEATURES = {"InterPodAffinityHostnameFastPath": False}
MAX = MAX_NODE_SCORE

_uids = itertools.count()


def sel(*reqs: tuple) -> LabelSelector:
    return LabelSelector(match_expressions=tuple(
        LabelSelectorRequirement(r[0], r[1], tuple(r[2:])) for r in reqs))


def term(selector: LabelSelector | None, topology_key: str, namespaces: tuple = (),
         namespace_selector: LabelSelector | None = None) -> PodAffinityTerm:
    return PodAffinityTerm(selector, topology_key, tuple(namespaces), namespace_selector)


def weighted(weight: int, t: PodAffinityTerm) -> WeightedPodAffinityTerm:
    return WeightedPodAffinityTerm(weight, t)


def make_pod(namespace: str = "", labels: dict | None = None, node: str = "",
             affinity: Affinity | None = None) -> Pod:
    n = next(_uids)
    return Pod(namespace=namespace, name=f"pod-{n}", uid=f"uid-{n}", labels=dict(labels or {}),
               node_name=node, affinity=affinity, resources=PodResources(Resource(), 0, 0))


def make_node(name: str, labels: dict) -> Node:
    return Node(name=name, labels=dict(labels))


NS_T1 = {"team": "team1"}
NS_T2 = {"team": "team2"}
NAMESPACES = {name: Namespace(name, labels) for name, labels in (
    ("subteam1.team1", NS_T1), ("subteam2.team1", NS_T1),
    ("subteam1.team2", NS_T2), ("subteam2.team2", NS_T2))}

RG_CHINA = {"region": "China"}
RG_INDIA = {"region": "India"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}

# TestPreferredAffinity's affinities.
STAY_WITH_S1_IN_REGION = Affinity(pod_affinity=PodAffinity(preferred=(
    weighted(5, term(sel(("security", "In", "S1")), "region")),)))
STAY_WITH_S2_IN_REGION = Affinity(pod_affinity=PodAffinity(preferred=(
    weighted(6, term(sel(("security", "In", "S2")), "region")),)))
AFFINITY3 = Affinity(pod_affinity=PodAffinity(preferred=(
    weighted(8, term(sel(("security", "NotIn", "S1"), ("security", "In", "S2")), "region")),
    weighted(2, term(sel(("security", "Exists"), ("wrongkey", "DoesNotExist")), "region")))))
HARD_AFFINITY = Affinity(pod_affinity=PodAffinity(required=(
    term(sel(("security", "In", "S1", "value2")), "region"),
    term(sel(("security", "Exists"), ("wrongkey", "DoesNotExist")), "region"))))
AWAY_FROM_S1_IN_AZ = Affinity(pod_anti_affinity=PodAffinity(preferred=(
    weighted(5, term(sel(("security", "In", "S1")), "az")),)))
AWAY_FROM_S2_IN_AZ = Affinity(pod_anti_affinity=PodAffinity(preferred=(
    weighted(5, term(sel(("security", "In", "S2")), "az")),)))
STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ = Affinity(
    pod_affinity=PodAffinity(preferred=(
        weighted(8, term(sel(("security", "In", "S1")), "region")),)),
    pod_anti_affinity=PodAffinity(preferred=(
        weighted(5, term(sel(("security", "In", "S2")), "az")),)))
_NS_TERM = term(sel(("security", "In", "S1")), "region", namespaces=("subteam2.team2",),
                namespace_selector=sel(("team", "In", "team1")))
AFFINITY_NAMESPACE_SELECTOR = Affinity(pod_affinity=PodAffinity(preferred=(
    weighted(5, _NS_TERM),)))
ANTI_AFFINITY_NAMESPACE_SELECTOR = Affinity(pod_anti_affinity=PodAffinity(preferred=(
    weighted(5, _NS_TERM),)))
_NEG_NS_TERM = term(sel(("security", "In", "S1")), "region",
                    namespace_selector=sel(("team", "NotIn", "team1")))
AFFINITY_NEGATIVE_NAMESPACE_SELECTOR = Affinity(pod_affinity=PodAffinity(preferred=(
    weighted(5, _NEG_NS_TERM),)))
ANTI_AFFINITY_NEGATIVE_NAMESPACE_SELECTOR = Affinity(pod_anti_affinity=PodAffinity(preferred=(
    weighted(5, _NEG_NS_TERM),)))
INVALID_AFFINITY_LABELS = Affinity(pod_affinity=PodAffinity(preferred=(
    weighted(8, term(sel(("security", "In", "{{.bad-value.}}")), "region")),)))
INVALID_ANTI_AFFINITY_LABELS = Affinity(pod_anti_affinity=PodAffinity(preferred=(
    weighted(5, term(sel(("security", "In", "{{.bad-value.}}")), "az")),)))


def run(pod: Pod, pods: list[Pod], nodes: list[Node], args: InterPodAffinityArgs
        ) -> tuple[object, list[list] | None]:
    """PreScore with NodeInfos of the bare nodes, then Score and NormalizeScore each node."""
    handle = FakeHandle(nodes, pods, namespaces=NAMESPACES, features=FEATURES)
    pl = InterPodAffinity(args, handle)
    state = CycleState()
    node_infos = [NodeInfo(n) for n in nodes]
    status = pl.pre_score(state, pod, node_infos)
    if status is not None:
        return status, None
    scores = [[ni.name, pl.score(state, pod, ni)] for ni in node_infos]
    assert pl.normalize_score(state, pod, scores) is None
    return None, scores


def _n(*items: tuple[str, dict]) -> list[Node]:
    return [make_node(name, labels) for name, labels in items]


def _preferred_affinity_cases() -> list:
    p = make_pod
    return [
        ("all nodes are same priority as Affinity is nil", p(labels=S1), [],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)), None, False, Code.SKIP),
        ("Affinity: pod that matches topology key & pods in nodes will get high score comparing "
         "to otherswhich doesn't match either pods in nodes or in topology key",
         p(labels=S1, affinity=STAY_WITH_S1_IN_REGION),
         [p(node="node1", labels=S1), p(node="node2", labels=S2), p(node="node3", labels=S1)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)),
         [MAX, 0, 0], False, None),
        ("All the nodes that have the same topology key & label value with one of them has an "
         "existing pod that match the affinity rules, have the same score",
         p(affinity=STAY_WITH_S1_IN_REGION), [p(node="node1", labels=S1)],
         _n(("node1", RG_CHINA), ("node2", RG_CHINA_AZ1), ("node3", RG_INDIA)),
         [MAX, MAX, 0], False, None),
        ("Affinity: nodes in one region has more matching pods comparing to other region, so the "
         "region which has more matches will get high score",
         p(labels=S1, affinity=STAY_WITH_S2_IN_REGION),
         [p(node="node1", labels=S2), p(node="node1", labels=S2), p(node="node2", labels=S2),
          p(node="node3", labels=S2), p(node="node4", labels=S2), p(node="node5", labels=S2)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", RG_CHINA), ("node4", RG_CHINA),
            ("node5", RG_INDIA)),
         [MAX, 0, MAX, MAX, 0], False, None),
        ("Affinity: different Label operators and values for pod affinity scheduling preference, "
         "including some match failures ",
         p(labels=S1, affinity=AFFINITY3),
         [p(node="node1", labels=S1), p(node="node2", labels=S2), p(node="node3", labels=S1)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)),
         [20, MAX, 0], False, None),
        ("Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution "
         "in pod affinity symmetry", p(labels=S2),
         [p(node="node1", labels=S1, affinity=STAY_WITH_S1_IN_REGION),
          p(node="node2", labels=S2, affinity=STAY_WITH_S2_IN_REGION)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)),
         [0, MAX, 0], False, None),
        ("Affinity symmetry with namespace selector", p(namespace="subteam1.team1", labels=S1),
         [p(node="node1", labels=S1, affinity=AFFINITY_NAMESPACE_SELECTOR),
          p(node="node2", labels=S2, affinity=STAY_WITH_S2_IN_REGION)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)),
         [MAX, 0, 0], False, None),
        ("AntiAffinity symmetry with namespace selector", p(namespace="subteam1.team1", labels=S1),
         [p(node="node1", labels=S1, affinity=ANTI_AFFINITY_NAMESPACE_SELECTOR),
          p(node="node2", labels=S2, affinity=STAY_WITH_S2_IN_REGION)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)),
         [0, MAX, MAX], False, None),
        ("Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod "
         "affinity symmetry", p(labels=S1),
         [p(node="node1", labels=S1, affinity=HARD_AFFINITY),
          p(node="node2", labels=S2, affinity=HARD_AFFINITY)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1)),
         [MAX, MAX, 0], False, None),
        ("Anti Affinity: pod that does not match existing pods in node will get high score ",
         p(labels=S1, affinity=AWAY_FROM_S1_IN_AZ),
         [p(node="node1", labels=S1), p(node="node2", labels=S2)],
         _n(("node1", AZ1), ("node2", RG_CHINA)), [0, MAX], False, None),
        ("Anti Affinity: pod that does not match topology key & match the pods in nodes will get "
         "higher score comparing to others ",
         p(labels=S1, affinity=AWAY_FROM_S1_IN_AZ),
         [p(node="node1", labels=S1), p(node="node2", labels=S1)],
         _n(("node1", AZ1), ("node2", RG_CHINA)), [0, MAX], False, None),
        ("Anti Affinity: one node has more matching pods comparing to other node, so the node "
         "which has more unmatches will get high score",
         p(labels=S1, affinity=AWAY_FROM_S1_IN_AZ),
         [p(node="node1", labels=S1), p(node="node1", labels=S1), p(node="node2", labels=S2)],
         _n(("node1", AZ1), ("node2", RG_INDIA)), [0, MAX], False, None),
        ("Anti Affinity symmetry: the existing pods in node which has anti affinity match will "
         "get high score", p(labels=S2),
         [p(node="node1", labels=S1, affinity=AWAY_FROM_S2_IN_AZ),
          p(node="node2", labels=S2, affinity=AWAY_FROM_S1_IN_AZ)],
         _n(("node1", AZ1), ("node2", AZ2)), [0, MAX], False, None),
        ("Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuring"
         "Execution in both pod affinity & anti affinity",
         p(labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
         [p(node="node1", labels=S1), p(node="node2", labels=S1)],
         _n(("node1", RG_CHINA), ("node2", AZ1)), [MAX, 0], False, None),
        ("Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to "
         "schedule and existing pods have the same labels",
         p(labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
         [p(node="node1", labels=S1), p(node="node1", labels=S1), p(node="node2", labels=S1),
          p(node="node3", labels=S1), p(node="node3", labels=S1), p(node="node4", labels=S1),
          p(node="node5", labels=S1)],
         _n(("node1", RG_CHINA_AZ1), ("node2", RG_INDIA), ("node3", RG_CHINA),
            ("node4", RG_CHINA), ("node5", RG_INDIA)),
         [MAX, 0, MAX, MAX, 0], False, None),
        ("Affinity and Anti Affinity and symmetry: considered only preferredDuringScheduling"
         "IgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
         p(labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
         [p(node="node1", labels=S1), p(node="node2", labels=S2),
          p(node="node3", affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
          p(node="node4", affinity=AWAY_FROM_S1_IN_AZ)],
         _n(("node1", RG_CHINA), ("node2", AZ1), ("node3", RG_INDIA), ("node4", AZ2)),
         [MAX, 0, MAX, 0], False, None),
        ("Avoid panic when partial nodes in a topology don't have pods with affinity",
         p(labels=S1),
         [p(node="node1", labels=S1),
          p(node="node2", affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ)],
         _n(("node1", RG_CHINA), ("node2", RG_CHINA)), [0, 0], False, None),
        ("Affinity with pods matching NamespaceSelector",
         p(namespace="subteam1.team1", labels=S1, affinity=AFFINITY_NAMESPACE_SELECTOR),
         [p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node1", namespace="subteam1.team2", labels=S1),
          p(node="node2", namespace="subteam2.team1", labels=S1)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA)), [MAX, 0], False, None),
        ("Affinity with pods matching both NamespaceSelector and Namespaces fields",
         p(namespace="subteam1.team1", labels=S1, affinity=AFFINITY_NAMESPACE_SELECTOR),
         [p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node1", namespace="subteam2.team2", labels=S1),
          p(node="node2", namespace="subteam2.team1", labels=S1)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA)), [MAX, 0], False, None),
        ("Affinity with pods matching NamespaceSelector (anti-affinity)",
         p(namespace="subteam1.team1", labels=S1, affinity=ANTI_AFFINITY_NAMESPACE_SELECTOR),
         [p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node1", namespace="subteam1.team2", labels=S1),
          p(node="node2", namespace="subteam2.team1", labels=S1)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA)), [0, MAX], False, None),
        ("Affinity with pods matching both NamespaceSelector and Namespaces fields "
         "(anti-affinity)",
         p(namespace="subteam1.team1", labels=S1, affinity=ANTI_AFFINITY_NAMESPACE_SELECTOR),
         [p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node1", namespace="subteam2.team2", labels=S1),
          p(node="node2", namespace="subteam2.team1", labels=S1)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA)), [0, MAX], False, None),
        ("Affinity with pods correctly enforcing negative NamespaceSelector",
         p(namespace="subteam1.team1", labels=S1, affinity=AFFINITY_NEGATIVE_NAMESPACE_SELECTOR),
         [p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node2", namespace="subteam1.team2", labels=S1)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA)), [0, MAX], False, None),
        ("AntiAffinity with pods correctly enforcing negative NamespaceSelector",
         p(namespace="subteam1.team1", labels=S1,
           affinity=ANTI_AFFINITY_NEGATIVE_NAMESPACE_SELECTOR),
         [p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node1", namespace="subteam1.team1", labels=S1),
          p(node="node2", namespace="subteam1.team2", labels=S1)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA)), [MAX, 0], False, None),
        ("Ignore preferred terms of existing pods", p(labels=S2),
         [p(node="node1", labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
          p(node="node2", labels=S2, affinity=STAY_WITH_S2_IN_REGION)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA)), None, True, Code.SKIP),
        ("Do not ignore preferred terms of existing pods", p(labels=S2),
         [p(node="node1", labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
          p(node="node2", labels=S2, affinity=STAY_WITH_S2_IN_REGION)],
         _n(("node1", RG_CHINA), ("node2", RG_INDIA)), [0, MAX], False, None),
        ("No nodes to score", p(labels=S2), [], [], None, False, Code.SKIP),
    ]


@pytest.mark.parametrize("name,pod,pods,nodes,want,ignore,want_code",
                         _preferred_affinity_cases(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_preferred_affinity(name: str, pod: Pod, pods: list[Pod], nodes: list[Node],
                            want: list[int] | None, ignore: bool, want_code: Code | None) -> None:
    """scoring_test.go TestPreferredAffinity (HardPodAffinityWeight 1)."""
    status, scores = run(pod, pods, nodes, InterPodAffinityArgs(
        hard_pod_affinity_weight=1, ignore_preferred_terms_of_existing_pods=ignore))
    if want_code is not None:
        assert status is not None and status.code == want_code
        return
    assert status is None
    assert scores == [[n.name, s] for n, s in zip(nodes, want, strict=True)]


@pytest.mark.xfail(strict=True, reason="label value validation (IsValidLabelValue) is not done "
                   "by api/labels.compile_selector yet")
@pytest.mark.parametrize("affinity", [INVALID_AFFINITY_LABELS, INVALID_ANTI_AFFINITY_LABELS])
def test_preferred_affinity_invalid_labels(affinity: Affinity) -> None:
    """scoring_test.go TestPreferredAffinity, "invalid Affinity fails PreScore" and "invalid
    AntiAffinity fails PreScore": Error containing `Invalid value: "{{.bad-value.}}"`."""
    status, _ = run(make_pod(affinity=affinity), [],
                    _n(("node1", RG_CHINA), ("node2", RG_CHINA)), InterPodAffinityArgs())
    assert status is not None and status.code == Code.ERROR
    assert 'Invalid value: "{{.bad-value.}}"' in status.message()


HARD_POD_AFFINITY = Affinity(pod_affinity=PodAffinity(required=(
    term(sel(("service", "In", "S1")), "region", namespaces=("", "subteam2.team2"),
         namespace_selector=sel(("team", "In", "team1"))),)))


@pytest.mark.parametrize("name,namespace,weight,want", [
    ("with default weight", "", 1, [MAX, MAX, 0]),
    ("with zero weight", "", 0, None),
    ("with no matching namespace", "subteam1.team2", 1, None),
    ("with matching NamespaceSelector", "subteam1.team1", 1, [MAX, MAX, 0]),
    ("with matching Namespaces", "subteam2.team2", 1, [MAX, MAX, 0]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(
        name: str, namespace: str, weight: int, want: list[int] | None) -> None:
    """scoring_test.go TestPreferredAffinityWithHardPodAffinitySymmetricWeight (None: Skip)."""
    nodes = _n(("node1", RG_CHINA), ("node2", RG_INDIA), ("node3", AZ1))
    pods = [make_pod(node="node1", affinity=HARD_POD_AFFINITY),
            make_pod(node="node2", affinity=HARD_POD_AFFINITY)]
    status, scores = run(make_pod(namespace=namespace, labels={"service": "S1"}), pods, nodes,
                         InterPodAffinityArgs(hard_pod_affinity_weight=weight))
    if want is None:
        assert status is not None and status.code == Code.SKIP
        return
    assert status is None
    assert scores == [[n.name, s] for n, s in zip(nodes, want, strict=True)]


# ---------------------------------------------------------------------------------------------
# Raw scores and normalization (scoring.go Score/NormalizeScore)
# ---------------------------------------------------------------------------------------------

def test_raw_scores_are_signed_sums() -> None:
    """Score is the sum over the node's topology domains, negative for anti-affinity
    (the "Affinity and Anti Affinity and symmetry" case before normalization: 8, -5, 8, -5)."""
    nodes = _n(("node1", RG_CHINA), ("node2", AZ1), ("node3", RG_INDIA), ("node4", AZ2))
    pods = [make_pod(node="node1", labels=S1), make_pod(node="node2", labels=S2),
            make_pod(node="node3", affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
            make_pod(node="node4", affinity=AWAY_FROM_S1_IN_AZ)]
    handle = FakeHandle(nodes, pods, namespaces=NAMESPACES, features=FEATURES)
    pl = InterPodAffinity(InterPodAffinityArgs(), handle)
    state = CycleState()
    pod = make_pod(labels=S1, affinity=STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ)
    assert pl.pre_score(state, pod, []) is None
    assert [pl.score(state, pod, NodeInfo(n)) for n in nodes] == [8, -5, 8, -5]


def test_normalize_score_min_max_truncation() -> None:
    """NormalizeScore: float64(100) * ((s - min) / (max - min)), truncated; equal scores -> 0."""
    handle = FakeHandle([], [], features=FEATURES)
    pl = InterPodAffinity(InterPodAffinityArgs(), handle)
    state = CycleState()
    state.write(PRE_SCORE_STATE_KEY, PreScoreState({"k": {"v": 1}}, make_pod(), [], [], {}))
    scores = [["a", -5], ["b", 0], ["c", 1], ["d", 7]]
    assert pl.normalize_score(state, make_pod(), scores) is None
    # 100*(5/12)=41.66, 100*(6/12)=50, 100*(12/12)=100
    assert scores == [["a", 0], ["b", 41], ["c", 50], ["d", 100]]
    same = [["a", 3], ["b", 3]]
    pl.normalize_score(state, make_pod(), same)
    assert same == [["a", 0], ["b", 0]]
    # 100 * (1/3) in float64 is 33.33..., 100 * (2/3) is 66.66... -> 33, 66.
    thirds = [["a", 0], ["b", 1], ["c", 2], ["d", 3]]
    pl.normalize_score(state, make_pod(), thirds)
    assert thirds == [["a", 0], ["b", 33], ["c", 66], ["d", 100]]
    # An empty topology score leaves the scores as they are.
    state.write(PRE_SCORE_STATE_KEY, PreScoreState({}, make_pod(), [], [], {}))
    raw = [["a", 4], ["b", 9]]
    pl.normalize_score(state, make_pod(), raw)
    assert raw == [["a", 4], ["b", 9]]


def test_score_without_pre_score_state_raises() -> None:
    """Score without PreScore state is an Error (raised as PluginError)."""
    pl = InterPodAffinity(InterPodAffinityArgs(), FakeHandle([], [], features=FEATURES))
    with pytest.raises(PluginError):
        pl.score(CycleState(), make_pod(), NodeInfo(make_node("n", {})))
    status = pl.normalize_score(CycleState(), make_pod(), [])
    assert status is not None and status.code == Code.ERROR


def test_pre_score_processes_only_pods_with_affinity_without_constraints() -> None:
    """Without preferred terms of its own, PreScore only visits pods with affinity; a pod
    without affinity whose labels would match the existing pods' terms changes nothing there,
    and only nodes hosting pods with affinity are processed."""
    nodes = _n(("node1", RG_CHINA), ("node2", RG_INDIA))
    pods = [make_pod(node="node1", labels=S1),
            make_pod(node="node2", labels=S2, affinity=STAY_WITH_S1_IN_REGION)]
    status, scores = run(make_pod(labels=S1), pods, nodes, InterPodAffinityArgs())
    # The existing pod on node2 prefers S1 in its region: the incoming S1 pod gets node2.
    assert status is None and scores == [["node1", 0], ["node2", MAX]]


def test_hard_affinity_weight_scales_symmetric_score() -> None:
    """processExistingPod: required affinity terms of existing pods weigh
    hardPodAffinityWeight, preferred ones their own weight."""
    nodes = _n(("node1", RG_CHINA), ("node2", RG_INDIA))
    hard = Affinity(pod_affinity=PodAffinity(required=(term(sel(("app", "Exists")), "region"),)))
    pods = [make_pod(node="node1", affinity=hard),
            make_pod(node="node2", affinity=STAY_WITH_S1_IN_REGION)]
    handle = FakeHandle(nodes, pods, namespaces=NAMESPACES, features=FEATURES)
    pl = InterPodAffinity(InterPodAffinityArgs(hard_pod_affinity_weight=7), handle)
    state = CycleState()
    pod = make_pod(labels={"app": "x", "security": "S1"})
    assert pl.pre_score(state, pod, []) is None
    assert [pl.score(state, pod, NodeInfo(n)) for n in nodes] == [7, 5]
