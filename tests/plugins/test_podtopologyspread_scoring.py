"""PodTopologySpread PreScore / Score / NormalizeScore.

Restates the cases of the pinned release's
``pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go`` (TestPreScoreSkip,
TestPreScoreStateEmptyNodes, TestPodTopologySpreadScore) with the same inputs and expected
states / scores. As upstream: PreScore gets the filtered nodes as NodeInfos without pods
(``tf.BuildNodeInfos``) and Score the snapshot's NodeInfos; feature flags are off unless the case
turns them on.

The default constraints' selector is ``helper.DefaultSelector`` over the Services /
ReplicaSets a case lists (``Owners``), served by the handle's listers as upstream's informers
serve them.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

import pytest

from reference_impl.api.labels import compile_selector
from reference_impl.config.args import LIST_DEFAULTING, SYSTEM_DEFAULTING, PodTopologySpreadArgs
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, PluginError
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.controllers import NO_CONTROLLERS, Controllers
from reference_impl.model.objects import (
    DO_NOT_SCHEDULE,
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    SCHEDULE_ANYWAY,
    TAINT_NODE_UNSCHEDULABLE,
    Affinity,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    Pod,
    PodResources,
    Resource,
    Service,
    Taint,
    TopologySpreadConstraint,
)
from reference_impl.model.objects import ReplicaSet as RS
from reference_impl.plugins.podtopologyspread import PodTopologySpread
from reference_impl.plugins.podtopologyspread.common import Constraint, go_log, go_round
from reference_impl.plugins.podtopologyspread.scoring import (
    PRE_SCORE_STATE_KEY,
    PreScoreState,
    score_for_count,
    topology_normalizing_weight,
)

SRC = "pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go"

HONOR = "Honor"
IGNORE = "Ignore"
DNS = DO_NOT_SCHEDULE
SA = SCHEDULE_ANYWAY
HOST = LABEL_HOSTNAME


# ----------------------------------------------------------------------------------------------
# Builders
# ----------------------------------------------------------------------------------------------

def exists(*keys: str) -> LabelSelector:
    return LabelSelector(match_expressions=tuple(
        LabelSelectorRequirement(k, "Exists") for k in keys))


def labels_sel(**kv: str) -> LabelSelector:
    return LabelSelector(match_labels=tuple(kv.items()))


FOO = exists("foo")
BAR = exists("bar")
TAINTS = (Taint(TAINT_NODE_UNSCHEDULABLE, "", "NoSchedule"),)
FOO_L = {"foo": ""}
BAR_L = {"bar": ""}
FOOBAR_L = {"foo": "", "bar": ""}


def spread(max_skew: int, key: str, mode: str, selector: LabelSelector | None,
           min_domains: int | None = None, affinity_policy: str | None = None,
           taints_policy: str | None = None,
           match_label_keys: tuple[str, ...] = ()) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(max_skew=max_skew, topology_key=key, when_unsatisfiable=mode,
                                    label_selector=selector, min_domains=min_domains,
                                    node_affinity_policy=affinity_policy,
                                    node_taints_policy=taints_policy,
                                    match_label_keys=match_label_keys)


def node_affinity_in(key: str, values: list[str]) -> Affinity:
    term = NodeSelectorTerm(match_expressions=(NodeSelectorRequirement(key, "In", tuple(values)),))
    return Affinity(node_affinity=NodeAffinity(required=NodeSelector((term,))))


def make_pod(name: str, node: str = "", labels: dict[str, str] | None = None, *,
             ns: str = "", spreads: tuple[TopologySpreadConstraint, ...] = (),
             node_selector: dict[str, str] | None = None, affinity: Affinity | None = None,
             terminating: bool = False, owner_rs: str | None = None) -> Pod:
    owners = ()
    if owner_rs is not None:
        owners = (OwnerReference("apps/v1", "ReplicaSet", owner_rs, "", controller=True),)
    return Pod(namespace=ns, name=name, uid=f"{ns}/{name}", labels=dict(labels or {}),
               node_name=node, topology_spread_constraints=spreads,
               node_selector=dict(node_selector or {}), affinity=affinity,
               deletion_timestamp=1.0 if terminating else None, owner_references=owners,
               resources=PodResources(Resource(), 0, 0))


def P(name: str, node: str, labels: dict[str, str] | None = None, **kw) -> Pod:  # noqa: N802
    return make_pod(name, node, labels, **kw)


def N(name: str, labels: dict[str, str], taints: tuple[Taint, ...] = ()) -> Node:  # noqa: N802
    return Node(name=name, labels=dict(labels), taints=taints)


def host_nodes(*names: str) -> list[Node]:
    return [N(n, {HOST: n}) for n in names]


def zone_host_nodes(*specs: tuple[str, str]) -> list[Node]:
    return [N(n, {"zone": z, HOST: n}) for n, z in specs]


@dataclass
class ReplicaSet:
    namespace: str
    name: str
    selector: LabelSelector


@dataclass
class Owners:
    services: list[dict[str, str]] = field(default_factory=list)
    replica_sets: list[ReplicaSet] = field(default_factory=list)


def _controllers(owners: Owners | None) -> Controllers:
    """The informers' Services (namespace "", as upstream's test objects) and ReplicaSets."""
    if owners is None:
        return NO_CONTROLLERS
    return Controllers(
        services=[Service("", f"svc{i}", selector=sel) for i, sel in enumerate(owners.services)],
        replica_sets=[RS(rs.namespace, rs.name, selector=rs.selector)
                      for rs in owners.replica_sets])


def setup(nodes: list[Node], pods: list[Pod], *, defaulting_type: str = LIST_DEFAULTING,
          default_constraints: tuple = (), node_inclusion: bool = False,
          match_label_keys: bool = False, owners: Owners | None = None
          ) -> tuple[PodTopologySpread, FakeHandle]:
    handle = FakeHandle(nodes, pods, features={
        "NodeInclusionPolicyInPodTopologySpread": node_inclusion,
        "MatchLabelKeysInPodTopologySpread": match_label_keys,
        "TaintTolerationComparisonOperators": False,
        "InPlacePodVerticalScalingSchedulerPreemption": False,
    }, controllers=_controllers(owners))
    args = PodTopologySpreadArgs(default_constraints=tuple(default_constraints),
                                 defaulting_type=defaulting_type)
    return PodTopologySpread(args, handle), handle


def build_node_infos(nodes: list[Node]) -> list[NodeInfo]:
    """``tf.BuildNodeInfos``: NodeInfos holding only the node."""
    return [NodeInfo(n) for n in nodes]


def C(max_skew: int, key: str, selector: LabelSelector | None,  # noqa: N802
      affinity_policy: str = HONOR, taints_policy: str = IGNORE) -> Constraint:
    return Constraint(max_skew, key, compile_selector(selector), 1, affinity_policy,
                      taints_policy)


W = topology_normalizing_weight


# ----------------------------------------------------------------------------------------------
# TestPreScoreSkip
# ----------------------------------------------------------------------------------------------

def test_pre_score_skip_no_soft_constraints() -> None:
    """scoring_test.go TestPreScoreSkip "the pod doesn't have soft topology spread
    Constraints"."""
    nodes = host_nodes("node-a", "node-b")
    pl, _ = setup(nodes, [])
    st = pl.pre_score(CycleState(), make_pod("p", ns="default"), build_node_infos(nodes))
    assert st is not None and st.code == Code.SKIP


def test_pre_score_skip_replicaset_doesnt_match() -> None:
    """scoring_test.go TestPreScoreSkip "default constraints and a replicaset that doesn't
    match" (owner rs2 is not a known ReplicaSet: empty default selector)."""
    nodes = [N("node-a", {"planet": "mars"})]
    pl, _ = setup(nodes, [], default_constraints=(TopologySpreadConstraint(2, "planet", SA),),
                  owners=Owners(replica_sets=[ReplicaSet("default", "rs1", exists("tar"))]))
    pod = make_pod("p", ns="default", labels={"foo": "bar", "baz": "sup"}, owner_rs="rs2")
    st = pl.pre_score(CycleState(), pod, build_node_infos(nodes))
    assert st is not None and st.code == Code.SKIP


def test_pre_score_skip_no_nodes() -> None:
    """scoring.go PreScore: no nodes in the snapshot → Skip."""
    pl, _ = setup([], [])
    pod = make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", SA, FOO),))
    st = pl.pre_score(CycleState(), pod, [])
    assert st is not None and st.code == Code.SKIP


def test_default_constraints_without_owner_objects_are_not_applied() -> None:
    """No Service selects the pod and its owner ReplicaSet rs1 is missing from the listers: the
    default selector is empty, so the system default constraints do not apply (PreScore and
    PreFilter Skip: buildDefaultConstraints returns none, common.go)."""
    nodes = host_nodes("node-a", "node-b")
    pl, _ = setup(nodes, [], defaulting_type=SYSTEM_DEFAULTING)
    pod = make_pod("p", labels=FOO_L, owner_rs="rs1")
    st = pl.pre_score(CycleState(), pod, build_node_infos(nodes))
    assert st is not None and st.code == Code.SKIP
    _, st = pl.pre_filter(CycleState(), pod, [])
    assert st is not None and st.code == Code.SKIP


# ----------------------------------------------------------------------------------------------
# TestPreScoreStateEmptyNodes
# ----------------------------------------------------------------------------------------------

@dataclass
class StateCase:
    name: str
    pod: Pod
    nodes: list[Node]
    constraints: list[Constraint]
    ignored: set[str]
    counts: list[dict[str, int]]
    weights: list[float]
    defaulting_type: str = LIST_DEFAULTING
    default_constraints: tuple = ()
    owners: Owners | None = None
    node_inclusion: bool = False


_ABX = zone_host_nodes(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"))
_ABX_FOO = [N("node-a", {"zone": "zone1", "foo": "", HOST: "node-a"}),
            N("node-b", {"zone": "zone1", "foo": "", HOST: "node-b"}),
            N("node-x", {"zone": "zone2", HOST: "node-x"})]
_ABX_FOO_TAINT = [N("node-a", {"zone": "zone1", "foo": "", HOST: "node-a"}),
                  N("node-b", {"zone": "zone1", "foo": "", HOST: "node-b"}),
                  N("node-x", {"zone": "zone2", HOST: "node-x"}, TAINTS)]
_RS1_FOO = Owners(replica_sets=[ReplicaSet("default", "rs1", FOO)])

PRE_SCORE_STATE_CASES = [
    StateCase("normal case",
              make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", SA, FOO),
                                                   spread(1, HOST, SA, FOO))),
              _ABX, [C(1, "zone", FOO), C(1, HOST, FOO)], set(),
              [{"zone1": 0, "zone2": 0}, {}], [W(2), W(3)]),
    StateCase("null selector",
              make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", SA, None),)),
              _ABX, [C(1, "zone", None)], set(), [{"zone1": 0, "zone2": 0}], [W(2)]),
    StateCase("node-x doesn't have label zone",
              make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", SA, FOO),
                                                   spread(1, HOST, SA, BAR))),
              [N("node-a", {"zone": "zone1", HOST: "node-a"}),
               N("node-b", {"zone": "zone1", HOST: "node-b"}), N("node-x", {HOST: "node-x"})],
              [C(1, "zone", FOO), C(1, HOST, BAR)], {"node-x"}, [{"zone1": 0}, {}],
              [W(1), W(2)]),
    StateCase("system default constraints and a replicaset",
              make_pod("p", ns="default", labels={"foo": "tar", "baz": "sup"}, owner_rs="rs1"),
              [N("node-a", {HOST: "node-a", LABEL_TOPOLOGY_ZONE: "mars"}),
               N("node-b", {HOST: "node-b", LABEL_TOPOLOGY_ZONE: "mars"}),
               # Nodes with no zone are not excluded. They are considered a separate zone.
               N("node-c", {HOST: "node-c"}), N("node-d", {HOST: "node-d"})],
              [C(3, HOST, FOO), C(5, LABEL_TOPOLOGY_ZONE, FOO)], set(),
              [{}, {"mars": 0, "": 0}], [W(4), W(2)],
              defaulting_type=SYSTEM_DEFAULTING, owners=_RS1_FOO),
    StateCase("default constraints and a replicaset",
              make_pod("p", ns="default", labels={"foo": "tar", "baz": "sup"}, owner_rs="rs1"),
              [N("node-a", {"rack": "rack1", HOST: "node-a", "planet": "mars"})],
              [C(1, HOST, FOO), C(2, "planet", FOO)], set(), [{}, {"mars": 0}], [W(1), W(1)],
              default_constraints=(TopologySpreadConstraint(1, HOST, SA),
                                   TopologySpreadConstraint(2, "rack", DNS),
                                   TopologySpreadConstraint(2, "planet", SA)),
              owners=_RS1_FOO),
    StateCase("default constraints and a replicaset, but pod has constraints",
              make_pod("p", ns="default", labels={"foo": "bar", "baz": "sup"}, owner_rs="rs1",
                       spreads=(spread(1, "zone", DNS, BAR),
                                spread(2, "planet", SA, labels_sel(baz="sup")))),
              [N("node-a", {"planet": "mars", "galaxy": "andromeda"})],
              [C(2, "planet", labels_sel(baz="sup"))], set(), [{"mars": 0}], [W(1)],
              default_constraints=(TopologySpreadConstraint(2, "galaxy", SA),),
              owners=_RS1_FOO),
    StateCase("NodeAffinityPolicy honored with labelSelectors",
              make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                       spreads=(spread(1, "zone", SA, BAR),)),
              _ABX_FOO, [C(1, "zone", BAR)], set(), [{"zone1": 0, "zone2": 0}], [W(2)],
              node_inclusion=True),
    StateCase("NodeAffinityPolicy ignored with labelSelectors",
              make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                       spreads=(spread(1, "zone", SA, BAR, affinity_policy=IGNORE),)),
              _ABX_FOO, [C(1, "zone", BAR, affinity_policy=IGNORE)], set(),
              [{"zone1": 0, "zone2": 0}], [W(2)], node_inclusion=True),
    StateCase("NodeAffinityPolicy honored with nodeAffinity",
              make_pod("p", labels=FOO_L, affinity=node_affinity_in("foo", [""]),
                       spreads=(spread(1, "zone", SA, BAR),)),
              _ABX_FOO, [C(1, "zone", BAR)], set(), [{"zone1": 0, "zone2": 0}], [W(2)],
              node_inclusion=True),
    StateCase("NodeAffinityPolicy ignored with nodeAffinity",
              make_pod("p", labels=FOO_L, affinity=node_affinity_in("foo", [""]),
                       spreads=(spread(1, "zone", SA, BAR, affinity_policy=IGNORE),)),
              _ABX_FOO, [C(1, "zone", BAR, affinity_policy=IGNORE)], set(),
              [{"zone1": 0, "zone2": 0}], [W(2)], node_inclusion=True),
    StateCase("NodeTaintsPolicy honored",
              make_pod("p", labels=FOO_L,
                       spreads=(spread(1, "zone", SA, BAR, taints_policy=HONOR),)),
              _ABX_FOO_TAINT, [C(1, "zone", BAR, taints_policy=HONOR)], set(),
              [{"zone1": 0, "zone2": 0}], [W(2)], node_inclusion=True),
    StateCase("NodeTaintsPolicy ignored",
              make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", SA, BAR),)),
              _ABX_FOO_TAINT, [C(1, "zone", BAR)], set(), [{"zone1": 0, "zone2": 0}], [W(2)],
              node_inclusion=True),
]


@pytest.mark.parametrize("tc", PRE_SCORE_STATE_CASES, ids=lambda tc: tc.name)
def test_pre_score_state_empty_nodes(tc: StateCase) -> None:
    """scoring_test.go TestPreScoreStateEmptyNodes (snapshot with the nodes and no pods)."""
    pl, _ = setup(tc.nodes, [], defaulting_type=tc.defaulting_type,
                  default_constraints=tc.default_constraints, node_inclusion=tc.node_inclusion,
                  owners=tc.owners)
    cs = CycleState()
    assert pl.pre_score(cs, tc.pod, build_node_infos(tc.nodes)) is None
    got = cs.read(PRE_SCORE_STATE_KEY)
    assert isinstance(got, PreScoreState)
    assert got.constraints == tc.constraints
    assert got.ignored_nodes == tc.ignored
    assert got.topology_value_to_pod_counts == tc.counts
    assert got.topology_normalizing_weight == tc.weights


# ----------------------------------------------------------------------------------------------
# TestPodTopologySpreadScore
# ----------------------------------------------------------------------------------------------

@dataclass
class ScoreCase:
    name: str
    pod: Pod
    existing: list[Pod]
    nodes: list[Node]
    want: list[tuple[str, int]]
    failed: list[Node] = field(default_factory=list)
    owners: Owners | None = None
    node_inclusion: bool = False
    match_label_keys: bool = False


def _host_pod(max_skew: int = 1, selector: LabelSelector | None = FOO, key: str = HOST,
              **kw) -> Pod:
    return make_pod("p", labels=FOO_L, spreads=(spread(max_skew, key, SA, selector, **kw),))


def _pods(spec: dict[str, int], labels: dict[str, str] = FOO_L) -> list[Pod]:
    """``n`` pods named p-<node suffix><i> on each node."""
    out = []
    for node, n in spec.items():
        suffix = node.split("-")[1]
        out += [P(f"p-{suffix}{i}", node, labels) for i in range(1, n + 1)]
    return out


_ABCD = ("node-a", "node-b", "node-c", "node-d")
_SPREAD_2103 = {"node-a": 2, "node-b": 1, "node-d": 3}
_SPREAD_4321 = {"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}
_SPREAD_42_1_3 = {"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}
_ABC_NODE = [N("node-a", {"node": "node-a", "foo": ""}), N("node-b", {"node": "node-b", "foo": ""}),
             N("node-c", {"node": "node-c"})]
_ABC_NODE_TAINT = [N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"}),
                   N("node-c", {"node": "node-c"}, TAINTS)]
_PODS_2_1_1 = [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
               P("p-c1", "node-c", FOO_L)]
_ZH_ABCD = zone_host_nodes(("node-a", "zone1"), ("node-b", "zone1"), ("node-c", "zone2"),
                           ("node-d", "zone2"))

SCORE_CASES = [
    ScoreCase("one constraint on node, no existing pods", _host_pod(), [],
              host_nodes("node-a", "node-b"), [("node-a", 100), ("node-b", 100)]),
    ScoreCase("one constraint on node, only one node is candidate", _host_pod(),
              _pods({"node-a": 2, "node-b": 1}), host_nodes("node-a"), [("node-a", 100)],
              failed=host_nodes("node-b")),
    ScoreCase("one constraint on node, all nodes have the same number of matching pods",
              _host_pod(), _pods({"node-a": 1, "node-b": 1}), host_nodes("node-a", "node-b"),
              [("node-a", 100), ("node-b", 100)]),
    ScoreCase("one constraint on node, all 4 nodes are candidates", _host_pod(),
              _pods(_SPREAD_2103), host_nodes(*_ABCD),
              [("node-a", 20), ("node-b", 60), ("node-c", 100), ("node-d", 0)]),
    ScoreCase("one constraint on node, null selector", _host_pod(selector=None),
              _pods(_SPREAD_2103), host_nodes(*_ABCD),
              [("node-a", 100), ("node-b", 100), ("node-c", 100), ("node-d", 100)]),
    ScoreCase("one constraint on node, all 4 nodes are candidates, maxSkew=2", _host_pod(2),
              _pods(_SPREAD_2103), host_nodes(*_ABCD),
              [("node-a", 33), ("node-b", 66), ("node-c", 100), ("node-d", 16)]),
    ScoreCase("one constraint on node, all 4 nodes are candidates, maxSkew=3", _host_pod(3),
              _pods(_SPREAD_4321), host_nodes(*_ABCD),
              [("node-a", 44), ("node-b", 66), ("node-c", 77), ("node-d", 100)]),
    ScoreCase("system defaulting, nodes don't have zone, pods match service",
              make_pod("p", labels=FOO_L), _pods(_SPREAD_4321), host_nodes(*_ABCD),
              [("node-a", 44), ("node-b", 66), ("node-c", 77), ("node-d", 100)],
              owners=Owners(services=[{"foo": ""}])),
    ScoreCase("one constraint on node, 3 out of 4 nodes are candidates", _host_pod(),
              _pods(_SPREAD_42_1_3), host_nodes("node-a", "node-b", "node-x"),
              [("node-a", 33), ("node-b", 83), ("node-x", 100)],
              failed=host_nodes("node-y")),
    ScoreCase("one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match "
              "topology key", _host_pod(), _pods(_SPREAD_42_1_3),
              [N("node-a", {HOST: "node-a"}), N("node-b", {"n": "node-b"}),
               N("node-x", {HOST: "node-x"})],
              [("node-a", 16), ("node-b", 0), ("node-x", 100)], failed=host_nodes("node-y")),
    ScoreCase("one constraint on zone, 3 out of 4 nodes are candidates",
              _host_pod(key="zone"), _pods(_SPREAD_42_1_3),
              zone_host_nodes(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")),
              [("node-a", 75), ("node-b", 75), ("node-x", 100)],
              failed=zone_host_nodes(("node-y", "zone2"))),
    ScoreCase("two Constraints on zone and node, 2 out of 4 nodes are candidates",
              make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", SA, FOO),
                                                   spread(1, HOST, SA, FOO))),
              _pods({"node-a": 2, "node-b": 1, "node-x": 2, "node-y": 4}),
              zone_host_nodes(("node-a", "zone1"), ("node-x", "zone2")),
              [("node-a", 100), ("node-x", 63)],
              failed=zone_host_nodes(("node-b", "zone1"), ("node-y", "zone2"))),
    ScoreCase("two Constraints on zone, 2 out of 4 nodes are candidates",
              make_pod("p", labels=FOOBAR_L, spreads=(spread(1, "zone", SA, FOO),
                                                      spread(1, "zone", SA, BAR))),
              [P("p-a1", "node-a", FOOBAR_L), P("p-a2", "node-a", FOO_L),
               P("p-b1", "node-b", FOOBAR_L), P("p-y1", "node-y", FOO_L),
               P("p-y2", "node-y", FOOBAR_L), P("p-y3", "node-y", FOO_L)],
              [N("node-a", {"zone": "zone1"}), N("node-x", {"zone": "zone2"})],
              [("node-a", 85), ("node-x", 100)],
              failed=[N("node-b", {"zone": "zone1"}), N("node-y", {"zone": "zone2"})]),
    ScoreCase("two Constraints on zone and node, with different labelSelectors",
              make_pod("p", labels=FOOBAR_L, spreads=(spread(1, "zone", SA, FOO),
                                                      spread(1, HOST, SA, BAR))),
              [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOOBAR_L),
               P("p-y1", "node-y", FOO_L), P("p-y2", "node-y", BAR_L)],
              zone_host_nodes(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"),
                              ("node-y", "zone2")),
              [("node-a", 60), ("node-b", 20), ("node-x", 100), ("node-y", 60)]),
    ScoreCase("two Constraints on zone and node, with different labelSelectors, some nodes "
              "have 0 pods",
              make_pod("p", labels=FOOBAR_L, spreads=(spread(1, "zone", SA, FOO),
                                                      spread(1, HOST, SA, BAR))),
              [P("p-b1", "node-b", BAR_L), P("p-x1", "node-x", FOO_L),
               P("p-y1", "node-y", FOOBAR_L)],
              zone_host_nodes(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"),
                              ("node-y", "zone2")),
              [("node-a", 100), ("node-b", 60), ("node-x", 40), ("node-y", 0)]),
    ScoreCase("two Constraints on zone and node, with different labelSelectors, 3 out of 4 "
              "nodes are candidates",
              make_pod("p", labels=FOOBAR_L, spreads=(spread(1, "zone", SA, FOO),
                                                      spread(1, HOST, SA, BAR))),
              [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOOBAR_L),
               P("p-y1", "node-y", FOO_L), P("p-y2", "node-y", BAR_L)],
              zone_host_nodes(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")),
              [("node-a", 50), ("node-b", 25), ("node-x", 100)],
              failed=zone_host_nodes(("node-y", "zone2"))),
    ScoreCase("existing pods in a different namespace do not count", _host_pod(),
              [P("p-a1", "node-a", FOO_L, ns="ns1"), P("p-a2", "node-a", FOO_L),
               P("p-b1", "node-b", FOO_L), P("p-b2", "node-b", FOO_L)],
              host_nodes("node-a", "node-b"), [("node-a", 100), ("node-b", 33)]),
    ScoreCase("terminating Pods should be excluded", _host_pod(),
              [P("p-a", "node-a", FOO_L, terminating=True), P("p-b", "node-b", FOO_L)],
              host_nodes("node-a", "node-b"), [("node-a", 100), ("node-b", 0)]),
    ScoreCase("minDomains has no effect when ScheduleAnyway",
              _host_pod(2, key="node", min_domains=10),
              _pods({"node-a": 2, "node-b": 2, "node-c": 1}),
              [N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"}),
               N("node-c", {"node": "node-c"})],
              [("node-a", 75), ("node-b", 75), ("node-c", 100)]),
    ScoreCase("NodeAffinityPolicy honoed with labelSelectors",
              make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                       spreads=(spread(1, "node", SA, FOO),)),
              _PODS_2_1_1, _ABC_NODE, [("node-a", 0), ("node-b", 33), ("node-c", 100)],
              node_inclusion=True),
    ScoreCase("NodeAffinityPolicy ignored with labelSelectors",
              make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                       spreads=(spread(1, "node", SA, FOO, affinity_policy=IGNORE),)),
              _PODS_2_1_1, _ABC_NODE, [("node-a", 66), ("node-b", 100), ("node-c", 100)],
              node_inclusion=True),
    ScoreCase("NodeAffinityPolicy honoed with nodeAffinity",
              make_pod("p", labels=FOO_L, affinity=node_affinity_in("foo", [""]),
                       spreads=(spread(1, "node", SA, FOO),)),
              _PODS_2_1_1, _ABC_NODE, [("node-a", 0), ("node-b", 33), ("node-c", 100)],
              node_inclusion=True),
    ScoreCase("NodeAffinityPolicy ignored with nodeAffinity",
              make_pod("p", labels=FOO_L, affinity=node_affinity_in("foo", [""]),
                       spreads=(spread(1, "node", SA, FOO, affinity_policy=IGNORE),)),
              _PODS_2_1_1, _ABC_NODE, [("node-a", 66), ("node-b", 100), ("node-c", 100)],
              node_inclusion=True),
    ScoreCase("NodeTaintsPolicy honored",
              make_pod("p", labels=FOO_L,
                       spreads=(spread(1, "node", SA, FOO, taints_policy=HONOR),)),
              _PODS_2_1_1, _ABC_NODE_TAINT, [("node-a", 0), ("node-b", 33), ("node-c", 100)],
              node_inclusion=True),
    ScoreCase("NodeTaintsPolicy ignored",
              make_pod("p", labels=FOO_L, spreads=(spread(1, "node", SA, FOO),)),
              _PODS_2_1_1, _ABC_NODE_TAINT, [("node-a", 66), ("node-b", 100), ("node-c", 100)],
              node_inclusion=True),
    ScoreCase("matchLabelKeys ignored when feature gate disabled",
              make_pod("p", labels={"foo": "", "bar": "", "baz": ""},
                       spreads=(spread(1, "zone", SA, FOO, match_label_keys=("baz",)),
                                spread(1, HOST, SA, BAR, match_label_keys=("baz",)))),
              [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOOBAR_L),
               P("p-y1", "node-c", FOO_L), P("p-y2", "node-c", BAR_L)],
              _ZH_ABCD, [("node-a", 60), ("node-b", 20), ("node-c", 60), ("node-d", 100)],
              match_label_keys=False),
    ScoreCase("matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
              make_pod("p", labels=FOOBAR_L,
                       spreads=(spread(1, "zone", SA, LabelSelector(), match_label_keys=("foo",)),
                                spread(1, HOST, SA, LabelSelector(),
                                       match_label_keys=("bar",)))),
              [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOOBAR_L),
               P("p-y1", "node-c", FOO_L), P("p-y2", "node-c", BAR_L)],
              _ZH_ABCD, [("node-a", 60), ("node-b", 20), ("node-c", 60), ("node-d", 100)],
              match_label_keys=True),
    ScoreCase("matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
              make_pod("p", labels={"foo": "", "bar": "", "baz": ""},
                       spreads=(spread(1, "zone", SA, FOO),
                                spread(1, HOST, SA, BAR, match_label_keys=("baz",)))),
              [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", {"foo": "", "bar": "", "baz": ""}),
               P("p-c1", "node-c", FOO_L), P("p-c2", "node-c", BAR_L),
               P("p-d3", "node-c", {"bar": "", "baz": ""})],
              _ZH_ABCD, [("node-a", 60), ("node-b", 20), ("node-c", 60), ("node-d", 100)],
              match_label_keys=True),
]


def run_score(pl: PodTopologySpread, handle: FakeHandle, pod: Pod, nodes: list[Node]
              ) -> list[list]:
    state = CycleState()
    assert pl.pre_score(state, pod, build_node_infos(nodes)) is None
    snapshot = handle.snapshot()
    scores = [[n.name, pl.score(state, pod, snapshot.get(n.name))] for n in nodes]
    assert pl.normalize_score(state, pod, scores) is None
    return scores


@pytest.mark.parametrize("tc", SCORE_CASES, ids=lambda tc: tc.name)
def test_pod_topology_spread_score(tc: ScoreCase) -> None:
    """scoring_test.go TestPodTopologySpreadScore (plugin built with System defaulting)."""
    pl, handle = setup(tc.nodes + tc.failed, tc.existing, defaulting_type=SYSTEM_DEFAULTING,
                       node_inclusion=tc.node_inclusion, match_label_keys=tc.match_label_keys,
                       owners=tc.owners)
    got = run_score(pl, handle, tc.pod, tc.nodes)
    assert [tuple(e) for e in got] == tc.want


# ----------------------------------------------------------------------------------------------
# Arithmetic details of scoring.go
# ----------------------------------------------------------------------------------------------

def test_raw_scores_and_rounding() -> None:
    """scoring.go Score: raw score = round(cnt*ln(size+2) + maxSkew-1), half away from zero.

    "one constraint on node, all 4 nodes are candidates": counts 2/1/0/3 over 4 hostname domains,
    weight ln 6: raw scores round(2 ln 6)=4, round(ln 6)=2, 0, round(3 ln 6)=5."""
    nodes = host_nodes(*_ABCD)
    pl, handle = setup(nodes, _pods(_SPREAD_2103))
    state = CycleState()
    pod = _host_pod()
    pl.pre_score(state, pod, build_node_infos(nodes))
    snapshot = handle.snapshot()
    assert [pl.score(state, pod, snapshot.get(n)) for n in _ABCD] == [4, 2, 0, 5]
    assert go_round(2.5) == 3 and go_round(3.5) == 4 and go_round(0.49999999999999994) == 0
    assert go_round(-2.5) == -3
    assert score_for_count(2, 3, 1.5) == 5.0


def test_normalize_score_ignored_and_all_zero() -> None:
    """scoring.go NormalizeScore: ignored nodes get 0 whatever their score; when the maximum is 0
    every other node gets 100."""
    nodes = [N("node-a", {HOST: "node-a"}), N("node-b", {"n": "node-b"})]
    pl, handle = setup(nodes, [])
    state = CycleState()
    pod = _host_pod()
    pl.pre_score(state, pod, build_node_infos(nodes))
    scores = [["node-a", 0], ["node-b", 7]]
    pl.normalize_score(state, pod, scores)
    assert scores == [["node-a", 100], ["node-b", 0]]


def test_score_without_pre_score_is_error() -> None:
    """getPreScoreState: Score/NormalizeScore without PreScore state → Error."""
    nodes = host_nodes("node-a")
    pl, handle = setup(nodes, [])
    with pytest.raises(PluginError):
        pl.score(CycleState(), _host_pod(), handle.snapshot().get("node-a"))
    st = pl.normalize_score(CycleState(), _host_pod(), [["node-a", 0]])
    assert st is not None and st.code == Code.ERROR


def test_go_log_matches_go_math_log() -> None:
    """``go_log`` reproduces Go's amd64 ``math.Log`` bit for bit: the bits below were printed by
    ``math.Float64bits(math.Log(n))`` (Go, linux/amd64) for arguments where the C library's
    ``log`` differs from Go in the last bit; elsewhere they agree to 1 ulp."""
    go_bits = {3: 0x3FF193EA7AAD030A, 14: 0x40051CCA16D7BBA8, 48: 0x400EF8383C50BB74,
               74: 0x4011375CD6FCAB1C}
    for n, bits in go_bits.items():
        assert struct.unpack("<Q", struct.pack("<d", go_log(float(n))))[0] == bits
    for n in range(2, 2000):
        assert abs(go_log(float(n)) - math.log(n)) <= math.ulp(math.log(n))
