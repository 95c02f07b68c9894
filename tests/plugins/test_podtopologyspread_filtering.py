"""PodTopologySpread PreFilter / AddPod / RemovePod / Filter / SignPod / queueing hints.

Restates the cases of the pinned release's
``pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go`` (TestPreFilterState,
TestPreFilterStateAddPod, TestPreFilterStateRemovePod, TestSingleConstraint,
TestMultipleConstraints, TestPreFilterDisabled, TestPodTopoSignatures) and ``plugin_test.go``
(the queueing hints), with the same inputs and expectations. Like upstream's tests, the plugin is
built with every feature flag off and each case turns on NodeInclusionPolicy / MatchLabelKeys
as the upstream case does.

The default constraints' selector is ``helper.DefaultSelector`` over the Services /
ReplicaSets a case lists (``Owners``), served by the handle's listers as upstream's informers
serve them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from reference_impl.api.labels import Selector, compile_selector
from reference_impl.config.args import LIST_DEFAULTING, SYSTEM_DEFAULTING, PodTopologySpreadArgs
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo, PodInfo
from reference_impl.model.controllers import NO_CONTROLLERS, Controllers
from reference_impl.model.objects import (
    DO_NOT_SCHEDULE,
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
    Toleration,
    TopologySpreadConstraint,
)
from reference_impl.model.objects import ReplicaSet as RS
from reference_impl.plugins.podtopologyspread import PodTopologySpread
from reference_impl.plugins.podtopologyspread.common import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    Constraint,
)
from reference_impl.plugins.podtopologyspread.filtering import (
    MAX_INT32,
    PRE_FILTER_STATE_KEY,
    CriticalPaths,
    PreFilterState,
)
from reference_impl.plugins.podtopologyspread.plugin import QUEUE, QUEUE_SKIP

SRC = "pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go"
PLUGIN_SRC = "pkg/scheduler/framework/plugins/podtopologyspread/plugin_test.go"

HONOR = "Honor"
IGNORE = "Ignore"
DNS = DO_NOT_SCHEDULE
SA = SCHEDULE_ANYWAY


# ----------------------------------------------------------------------------------------------
# Builders (the st.MakePod / st.MakeNode / st.MakeLabelSelector subset these tests use)
# ----------------------------------------------------------------------------------------------

def exists(*keys: str) -> LabelSelector:
    return LabelSelector(match_expressions=tuple(
        LabelSelectorRequirement(k, "Exists") for k in keys))


def labels_sel(**kv: str) -> LabelSelector:
    return LabelSelector(match_labels=tuple(kv.items()))


FOO = exists("foo")  # fooSelector
BAR = exists("bar")  # barSelector
TAINTS = (Taint(TAINT_NODE_UNSCHEDULABLE, "", "NoSchedule"),)


def spread(max_skew: int, key: str, mode: str, selector: LabelSelector | None,
           min_domains: int | None = None, affinity_policy: str | None = None,
           taints_policy: str | None = None,
           match_label_keys: tuple[str, ...] = ()) -> TopologySpreadConstraint:
    """``PodWrapper.SpreadConstraint``."""
    return TopologySpreadConstraint(max_skew=max_skew, topology_key=key, when_unsatisfiable=mode,
                                    label_selector=selector, min_domains=min_domains,
                                    node_affinity_policy=affinity_policy,
                                    node_taints_policy=taints_policy,
                                    match_label_keys=match_label_keys)


def node_affinity_in(key: str, values: list[str]) -> Affinity:
    """``NodeAffinityIn(key, vals, NodeSelectorTypeMatchExpressions)``."""
    term = NodeSelectorTerm(match_expressions=(NodeSelectorRequirement(key, "In", tuple(values)),))
    return Affinity(node_affinity=NodeAffinity(required=NodeSelector((term,))))


def node_affinity_not_in(key: str, values: list[str]) -> Affinity:
    """``NodeAffinityNotIn(key, vals)``."""
    term = NodeSelectorTerm(
        match_expressions=(NodeSelectorRequirement(key, "NotIn", tuple(values)),))
    return Affinity(node_affinity=NodeAffinity(required=NodeSelector((term,))))


def make_pod(name: str, node: str = "", labels: dict[str, str] | None = None, *,
             ns: str = "", spreads: tuple[TopologySpreadConstraint, ...] = (),
             node_selector: dict[str, str] | None = None, affinity: Affinity | None = None,
             tolerations: tuple[Toleration, ...] = (), terminating: bool = False,
             owner: tuple[str, str] | None = None, nominated: str = "") -> Pod:
    owners = ()
    if owner is not None:
        owners = (OwnerReference(api_version="apps/v1", kind=owner[0], name=owner[1], uid="",
                                 controller=True),)
    return Pod(namespace=ns, name=name, uid=f"{ns}/{name}", labels=dict(labels or {}),
               node_name=node, topology_spread_constraints=spreads,
               node_selector=dict(node_selector or {}), affinity=affinity,
               tolerations=tolerations, deletion_timestamp=1.0 if terminating else None,
               owner_references=owners, nominated_node_name=nominated,
               resources=PodResources(Resource(), 0, 0))


def P(name: str, node: str, labels: dict[str, str] | None = None, **kw) -> Pod:  # noqa: N802
    """An existing (bound) pod."""
    return make_pod(name, node, labels, **kw)


def N(name: str, labels: dict[str, str], taints: tuple[Taint, ...] = ()) -> Node:  # noqa: N802
    return Node(name=name, labels=dict(labels), taints=taints)


def nodes_zone_node(*specs: tuple[str, str]) -> list[Node]:
    """Nodes labelled zone=<zone>, node=<name>."""
    return [N(name, {"zone": zone, "node": name}) for name, zone in specs]


FOUR_NODES = (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"),
              ("node-y", "zone2"))
FOO_L = {"foo": ""}
BAR_L = {"bar": ""}
FOOBAR_L = {"foo": "", "bar": ""}


# ----------------------------------------------------------------------------------------------
# Plugin construction (plugintesting.SetupPlugin with feature.Features{} and per-case overrides)
# ----------------------------------------------------------------------------------------------

@dataclass
class ReplicaSet:
    namespace: str
    name: str
    selector: LabelSelector


@dataclass
class Owners:
    """The Service selectors and ReplicaSets a case's informers hold."""

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


def features(node_inclusion: bool = False, match_label_keys: bool = False) -> dict[str, bool]:
    return {
        "NodeInclusionPolicyInPodTopologySpread": node_inclusion,
        "MatchLabelKeysInPodTopologySpread": match_label_keys,
        "TaintTolerationComparisonOperators": False,
        "InPlacePodVerticalScalingSchedulerPreemption": False,
    }


def setup(nodes: list[Node], pods: list[Pod], *, node_inclusion: bool = False,
          match_label_keys: bool = False, default_constraints: tuple = (),
          defaulting_type: str = LIST_DEFAULTING, owners: Owners | None = None
          ) -> tuple[PodTopologySpread, FakeHandle]:
    handle = FakeHandle(nodes, pods, features=features(node_inclusion, match_label_keys),
                        controllers=_controllers(owners))
    args = PodTopologySpreadArgs(default_constraints=tuple(default_constraints),
                                 defaulting_type=defaulting_type)
    return PodTopologySpread(args, handle), handle


def C(max_skew: int, key: str, selector: LabelSelector | Selector | None,  # noqa: N802
      affinity_policy: str = HONOR, taints_policy: str = IGNORE,
      min_domains: int = 1) -> Constraint:
    """An expected parsed constraint."""
    sel = selector if isinstance(selector, Selector) else compile_selector(selector)
    return Constraint(max_skew, key, sel, min_domains, affinity_policy, taints_policy)


def sorted_paths(p: CriticalPaths) -> tuple[tuple[str, int], tuple[str, int]]:
    """The comparer of upstream's stateCmpOpts: equal MatchNums have their values sorted."""
    (v0, n0), (v1, n1) = p.as_tuple()
    if n0 == n1 and v0 > v1:
        v0, v1 = v1, v0
    return ((v0, n0), (v1, n1))


def norm_paths(paths: list) -> list:
    out = []
    for (v0, n0), (v1, n1) in paths:
        if n0 == n1 and v0 > v1:
            v0, v1 = v1, v0
        out.append(((v0, n0), (v1, n1)))
    return out


NEW_PATHS = (("", MAX_INT32), ("", MAX_INT32))  # newCriticalPaths()


@dataclass
class Want:
    constraints: list[Constraint]
    paths: list
    maps: list[dict[str, int]]


def assert_state(got: PreFilterState, want: Want) -> None:
    assert got.constraints == want.constraints
    assert [sorted_paths(p) for p in got.critical_paths] == norm_paths(want.paths)
    assert got.tp_value_to_match_num == want.maps


# ----------------------------------------------------------------------------------------------
# TestPreFilterState
# ----------------------------------------------------------------------------------------------

@dataclass
class PFCase:
    name: str
    pod: Pod
    nodes: list[Node] = field(default_factory=list)
    existing: list[Pod] = field(default_factory=list)
    want: Want | None = None
    want_status: Status | None = None
    default_constraints: tuple = ()
    owners: Owners | None = None
    node_inclusion: bool = False
    match_label_keys: bool = False


def _pods_a2_b1_y2() -> list[Pod]:
    return [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
            P("p-y1", "node-y", FOO_L), P("p-y2", "node-y", FOO_L)]


def _pods_a2_b1_y4() -> list[Pod]:
    return [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
            P("p-y1", "node-y", FOO_L), P("p-y2", "node-y", FOO_L), P("p-y3", "node-y", FOO_L),
            P("p-y4", "node-y", FOO_L)]


def _pods_abc_bar() -> list[Pod]:
    return [P("p-a", "node-a", BAR_L), P("p-b", "node-b", BAR_L), P("p-c", "node-b", BAR_L),
            P("p-d", "node-c")]


def _abc_nodes_foo_foo_bar() -> list[Node]:
    return [N("node-a", {"node": "node-a", "foo": ""}), N("node-b", {"node": "node-b", "foo": ""}),
            N("node-c", {"node": "node-c", "bar": ""})]


def _abc_nodes_taint_c() -> list[Node]:
    return [N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"}),
            N("node-c", {"node": "node-c", "bar": ""}, TAINTS)]


def _foo_a_pods() -> list[Pod]:
    return [P("p-a1", "node-a", {"foo": "a"}), P("p-a2", "node-a", {"foo": "a"}),
            P("p-b1", "node-b", {"foo": "a"}), P("p-y1", "node-y", {"foo": "a"}),
            P("p-y2", "node-y", {"foo": "a"})]


PRE_FILTER_STATE_CASES = [
    PFCase(
        "clean cluster with one spreadConstraint",
        make_pod("p", labels=FOO_L, spreads=(spread(5, "zone", DNS, labels_sel(foo="bar")),)),
        nodes_zone_node(*FOUR_NODES),
        want=Want([C(5, "zone", labels_sel(foo="bar"))], [(("zone1", 0), ("zone2", 0))],
                  [{"zone1": 0, "zone2": 0}]),
    ),
    PFCase(
        "normal case with one spreadConstraint",
        make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),)),
        nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y2(),
        want=Want([C(1, "zone", FOO)], [(("zone2", 2), ("zone1", 3))],
                  [{"zone1": 3, "zone2": 2}]),
    ),
    PFCase(
        "normal case with null label selector",
        make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, None),)),
        nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y2(),
        want=Want([C(1, "zone", None)], [(("zone2", 0), ("zone1", 0))],
                  [{"zone1": 0, "zone2": 0}]),
    ),
    PFCase(
        "normal case with one spreadConstraint, on a 3-zone cluster",
        make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),)),
        nodes_zone_node(*FOUR_NODES, ("node-o", "zone3"), ("node-p", "zone3")),
        _pods_a2_b1_y2(),
        want=Want([C(1, "zone", FOO)], [(("zone3", 0), ("zone2", 2))],
                  [{"zone1": 3, "zone2": 2, "zone3": 0}]),
    ),
    PFCase(
        "namespace mismatch doesn't count",
        make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),)),
        nodes_zone_node(*FOUR_NODES),
        [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", FOO_L, ns="ns1"),
         P("p-b1", "node-b", FOO_L), P("p-y1", "node-y", FOO_L, ns="ns2"),
         P("p-y2", "node-y", FOO_L)],
        want=Want([C(1, "zone", FOO)], [(("zone2", 1), ("zone1", 2))],
                  [{"zone1": 2, "zone2": 1}]),
    ),
    PFCase(
        "normal case with two spreadConstraints",
        make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),
                                             spread(1, "node", DNS, FOO))),
        nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y4(),
        want=Want([C(1, "zone", FOO), C(1, "node", FOO)],
                  [(("zone1", 3), ("zone2", 4)), (("node-x", 0), ("node-b", 1))],
                  [{"zone1": 3, "zone2": 4},
                   {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}]),
    ),
    PFCase(
        "soft spreadConstraints should be bypassed",
        make_pod("p", labels=FOO_L, spreads=(
            spread(1, "zone", SA, FOO), spread(1, "zone", DNS, FOO),
            spread(1, "node", SA, FOO), spread(1, "node", DNS, FOO))),
        nodes_zone_node(("node-a", "zone1"), ("node-b", "zone1"), ("node-y", "zone2")),
        _pods_a2_b1_y4(),
        want=Want([C(1, "zone", FOO), C(1, "node", FOO)],
                  [(("zone1", 3), ("zone2", 4)), (("node-b", 1), ("node-a", 2))],
                  [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}]),
    ),
    PFCase(
        "different labelSelectors - simple version",
        make_pod("p", labels=FOOBAR_L, spreads=(spread(1, "zone", DNS, FOO),
                                                spread(1, "node", DNS, BAR))),
        nodes_zone_node(("node-a", "zone1"), ("node-b", "zone1"), ("node-y", "zone2")),
        [P("p-a", "node-a", FOO_L), P("p-b", "node-b", BAR_L)],
        want=Want([C(1, "zone", FOO), C(1, "node", BAR)],
                  [(("zone2", 0), ("zone1", 1)), (("node-a", 0), ("node-y", 0))],
                  [{"zone1": 1, "zone2": 0}, {"node-a": 0, "node-b": 1, "node-y": 0}]),
    ),
    PFCase(
        "different labelSelectors - complex pods",
        make_pod("p", labels=FOOBAR_L, spreads=(spread(1, "zone", DNS, FOO),
                                                spread(1, "node", DNS, BAR))),
        nodes_zone_node(("node-a", "zone1"), ("node-b", "zone1"), ("node-y", "zone2")),
        [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", FOOBAR_L), P("p-b1", "node-b", FOO_L),
         P("p-y1", "node-y", FOO_L), P("p-y2", "node-y", FOOBAR_L), P("p-y3", "node-y", FOO_L),
         P("p-y4", "node-y", FOOBAR_L)],
        want=Want([C(1, "zone", FOO), C(1, "node", BAR)],
                  [(("zone1", 3), ("zone2", 4)), (("node-b", 0), ("node-a", 1))],
                  [{"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}]),
    ),
    PFCase(
        "two spreadConstraints, and with podAffinity",
        make_pod("p", labels=FOO_L, affinity=node_affinity_not_in("node", ["node-x"]),
                 spreads=(spread(1, "zone", DNS, FOO), spread(1, "node", DNS, FOO))),
        nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y4(),
        want=Want([C(1, "zone", FOO), C(1, "node", FOO)],
                  [(("zone1", 3), ("zone2", 4)), (("node-b", 1), ("node-a", 2))],
                  [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}]),
    ),
    PFCase(
        "default constraints and a service",
        make_pod("p", labels={"foo": "bar", "baz": "kar"}),
        default_constraints=(TopologySpreadConstraint(3, "node", DNS),
                             TopologySpreadConstraint(2, "node", SA),
                             TopologySpreadConstraint(5, "rack", DNS)),
        owners=Owners(services=[{"foo": "bar"}]),
        want=Want([C(3, "node", labels_sel(foo="bar")), C(5, "rack", labels_sel(foo="bar"))],
                  [NEW_PATHS, NEW_PATHS], [{}, {}]),
    ),
    PFCase(
        "default constraints and a service that doesn't match",
        make_pod("p", labels={"foo": "bar"}),
        default_constraints=(TopologySpreadConstraint(3, "node", DNS),),
        owners=Owners(services=[{"baz": "kep"}]),
        want_status=Status(Code.SKIP),
    ),
    PFCase(
        "default constraints and a service, but pod has constraints",
        make_pod("p", labels={"foo": "bar", "baz": "tar"},
                 spreads=(spread(1, "zone", DNS, labels_sel(baz="tar")),
                          spread(2, "planet", SA, labels_sel(fot="rok")))),
        default_constraints=(TopologySpreadConstraint(2, "node", DNS),),
        owners=Owners(services=[{"foo": "bar"}]),
        want=Want([C(1, "zone", labels_sel(baz="tar"))], [NEW_PATHS], [{}]),
    ),
    PFCase(
        "default soft constraints and a service",
        make_pod("p", labels={"foo": "bar"}),
        default_constraints=(TopologySpreadConstraint(2, "node", SA),),
        owners=Owners(services=[{"foo": "bar"}]),
        want_status=Status(Code.SKIP),
    ),
    PFCase(
        "TpKeyToDomainsNum is calculated when MinDomains is enabled",
        make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),
                                             spread(1, "node", DNS, FOO))),
        nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y4(),
        want=Want([C(1, "zone", FOO), C(1, "node", FOO)],
                  [(("zone1", 3), ("zone2", 4)), (("node-x", 0), ("node-b", 1))],
                  [{"zone1": 3, "zone2": 4},
                   {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}]),
    ),
    PFCase(
        "feature gate disabled with NodeAffinityPolicy",
        make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                 spreads=(spread(1, "node", DNS, BAR),)),
        _abc_nodes_foo_foo_bar(), _pods_abc_bar(),
        want=Want([C(1, "node", BAR)], [(("node-a", 1), ("node-b", 2))],
                  [{"node-a": 1, "node-b": 2}]),
        node_inclusion=False,
    ),
    PFCase(
        "NodeAffinityPolicy honored with labelSelectors",
        make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                 spreads=(spread(1, "node", DNS, BAR),)),
        _abc_nodes_foo_foo_bar(), _pods_abc_bar(),
        want=Want([C(1, "node", BAR)], [(("node-a", 1), ("node-b", 2))],
                  [{"node-a": 1, "node-b": 2}]),
        node_inclusion=True,
    ),
    PFCase(
        "NodeAffinityPolicy ignored with labelSelectors",
        make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                 spreads=(spread(1, "node", DNS, BAR, affinity_policy=IGNORE),)),
        _abc_nodes_foo_foo_bar(), _pods_abc_bar(),
        want=Want([C(1, "node", BAR, affinity_policy=IGNORE)],
                  [(("node-c", 0), ("node-a", 1))], [{"node-a": 1, "node-b": 2, "node-c": 0}]),
        node_inclusion=True,
    ),
    PFCase(
        "NodeAffinityPolicy honored with nodeAffinity",
        make_pod("p", labels=FOO_L, affinity=node_affinity_in("foo", [""]),
                 spreads=(spread(1, "node", DNS, BAR),)),
        _abc_nodes_foo_foo_bar(),
        [P("p-a", "node-a", BAR_L), P("p-c", "node-b", BAR_L), P("p-d", "node-b", BAR_L),
         P("p-e", "node-c")],
        want=Want([C(1, "node", BAR)], [(("node-a", 1), ("node-b", 2))],
                  [{"node-a": 1, "node-b": 2}]),
        node_inclusion=True,
    ),
    PFCase(
        "NodeAffinityPolicy ignored with nodeAffinity",
        make_pod("p", labels=FOO_L, affinity=node_affinity_in("foo", [""]),
                 spreads=(spread(1, "node", DNS, BAR, affinity_policy=IGNORE),)),
        _abc_nodes_foo_foo_bar(), _pods_abc_bar(),
        want=Want([C(1, "node", BAR, affinity_policy=IGNORE)],
                  [(("node-c", 0), ("node-a", 1))], [{"node-a": 1, "node-b": 2, "node-c": 0}]),
        node_inclusion=True,
    ),
    PFCase(
        "feature gate disabled with NodeTaintsPolicy",
        make_pod("p", labels=FOO_L, spreads=(spread(1, "node", DNS, BAR),)),
        _abc_nodes_taint_c(), _pods_abc_bar(),
        want=Want([C(1, "node", BAR)], [(("node-c", 0), ("node-a", 1))],
                  [{"node-a": 1, "node-b": 2, "node-c": 0}]),
        node_inclusion=False,
    ),
    PFCase(
        "NodeTaintsPolicy ignored",
        make_pod("p", labels=FOO_L, spreads=(spread(1, "node", DNS, BAR),)),
        _abc_nodes_taint_c(), _pods_abc_bar(),
        want=Want([C(1, "node", BAR)], [(("node-c", 0), ("node-a", 1))],
                  [{"node-a": 1, "node-b": 2, "node-c": 0}]),
        node_inclusion=True,
    ),
    PFCase(
        "NodeTaintsPolicy honored",
        make_pod("p", labels=FOO_L, spreads=(spread(1, "node", DNS, BAR, taints_policy=HONOR),)),
        _abc_nodes_taint_c(), _pods_abc_bar(),
        want=Want([C(1, "node", BAR, taints_policy=HONOR)], [(("node-a", 1), ("node-b", 2))],
                  [{"node-a": 1, "node-b": 2}]),
        node_inclusion=True,
    ),
    PFCase(
        "NodeTaintsPolicy honored with tolerated taints",
        make_pod("p", labels=FOO_L,
                 tolerations=(Toleration(key=TAINT_NODE_UNSCHEDULABLE, operator="Exists"),),
                 spreads=(spread(1, "node", DNS, BAR, taints_policy=HONOR),)),
        _abc_nodes_taint_c(), _pods_abc_bar(),
        want=Want([C(1, "node", BAR, taints_policy=HONOR)], [(("node-c", 0), ("node-a", 1))],
                  [{"node-a": 1, "node-b": 2, "node-c": 0}]),
        node_inclusion=True,
    ),
    PFCase(
        "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                 spreads=(spread(1, "zone", DNS, FOO),
                          spread(1, "node", DNS, FOO, affinity_policy=IGNORE))),
        [N("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
         N("node-b", {"zone": "zone1", "node": "node-b"}),
         N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""})],
        [P("p-b1", "node-b", FOO_L), P("p-b2", "node-b", FOO_L), P("p-x1", "node-x", FOO_L)],
        want=Want([C(1, "zone", FOO), C(1, "node", FOO, affinity_policy=IGNORE)],
                  [(("zone1", 0), ("zone2", 1)), (("node-a", 0), ("node-x", 1))],
                  [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}]),
        node_inclusion=True,
    ),
    PFCase(
        "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO, taints_policy=HONOR),
                                             spread(1, "node", DNS, FOO))),
        [N("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
         N("node-b", {"zone": "zone1", "node": "node-b"}, TAINTS),
         N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""})],
        [P("p-b1", "node-b", FOO_L), P("p-b2", "node-b", FOO_L), P("p-x1", "node-x", FOO_L)],
        want=Want([C(1, "zone", FOO, taints_policy=HONOR), C(1, "node", FOO)],
                  [(("zone1", 0), ("zone2", 1)), (("node-a", 0), ("node-x", 1))],
                  [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}]),
        node_inclusion=True,
    ),
    PFCase(
        "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                 spreads=(spread(1, "zone", DNS, FOO), spread(1, "node", DNS, FOO))),
        [N("node-a", {"zone": "zone1", "node": "node-a"}),
         N("node-b", {"zone": "zone1", "node": "node-b", "foo": ""}, TAINTS),
         N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
         N("node-y", {"zone": "zone2", "node": "node-y"})],
        [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", FOO_L), P("p-x1", "node-x", FOO_L),
         P("p-y1", "node-y", FOO_L)],
        want=Want([C(1, "zone", FOO), C(1, "node", FOO)],
                  [(("zone1", 0), ("zone2", 1)), (("node-b", 0), ("node-x", 1))],
                  [{"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}]),
        node_inclusion=True,
    ),
    PFCase(
        "two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
        make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                 spreads=(spread(1, "zone", DNS, FOO, affinity_policy=IGNORE),
                          spread(1, "node", DNS, FOO, taints_policy=HONOR))),
        [N("node-a", {"zone": "zone1", "node": "node-a"}),
         N("node-b", {"zone": "zone1", "node": "node-b", "foo": ""}, TAINTS),
         N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
         N("node-y", {"zone": "zone2", "node": "node-y", "foo": ""})],
        [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", FOO_L), P("p-x1", "node-x", FOO_L),
         P("p-x2", "node-x", FOO_L), P("p-y1", "node-y", FOO_L)],
        want=Want([C(1, "zone", FOO, affinity_policy=IGNORE),
                   C(1, "node", FOO, taints_policy=HONOR)],
                  [(("zone1", 2), ("zone2", 3)), (("node-y", 1), ("node-x", 2))],
                  [{"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}]),
        node_inclusion=True,
    ),
    PFCase(
        "matchLabelKeys ignored when feature gate disabled",
        make_pod("p", labels=FOOBAR_L,
                 spreads=(spread(1, "zone", DNS, FOO, match_label_keys=("bar",)),)),
        nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y2(),
        want=Want([C(1, "zone", FOO)], [(("zone2", 2), ("zone1", 3))],
                  [{"zone1": 3, "zone2": 2}]),
        match_label_keys=False,
    ),
    PFCase(
        "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        make_pod("p", labels={"foo": "", "bar": "a"},
                 spreads=(spread(1, "zone", DNS, FOO, match_label_keys=("bar",)),)),
        nodes_zone_node(*FOUR_NODES),
        [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", {"foo": "", "bar": "a"}),
         P("p-b1", "node-b", FOO_L), P("p-y1", "node-y", {"foo": "", "bar": "a"}),
         P("p-y2", "node-y", BAR_L)],
        want=Want([C(1, "zone", LabelSelector(
            match_labels=(("bar", "a"),),
            match_expressions=(LabelSelectorRequirement("foo", "Exists"),)))],
            [(("zone2", 1), ("zone1", 1))], [{"zone1": 1, "zone2": 1}]),
        match_label_keys=True,
    ),
    PFCase(
        "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        make_pod("p", labels={"foo": "a"},
                 spreads=(spread(1, "zone", DNS, LabelSelector(), match_label_keys=("foo",)),)),
        nodes_zone_node(*FOUR_NODES), _foo_a_pods(),
        want=Want([C(1, "zone", labels_sel(foo="a"))], [(("zone2", 2), ("zone1", 3))],
                  [{"zone1": 3, "zone2": 2}]),
        match_label_keys=True,
    ),
    PFCase(
        "key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled",
        make_pod("p", labels=FOO_L,
                 spreads=(spread(1, "zone", DNS, None, match_label_keys=("bar",)),)),
        nodes_zone_node(*FOUR_NODES), _foo_a_pods(),
        want=Want([C(1, "zone", None)], [(("zone2", 0), ("zone1", 0))],
                  [{"zone1": 0, "zone2": 0}]),
        match_label_keys=True,
    ),
    PFCase(
        "no pod is matched when LabelSelector is nil when feature gate disabled",
        make_pod("p", labels=FOO_L,
                 spreads=(spread(1, "zone", DNS, None, match_label_keys=("bar",)),)),
        nodes_zone_node(*FOUR_NODES), _foo_a_pods(),
        want=Want([C(1, "zone", None)], [(("zone2", 0), ("zone1", 0))],
                  [{"zone1": 0, "zone2": 0}]),
    ),
    PFCase(
        "key in matchLabelKeys is ignored when it isn't exist in pod.labels",
        make_pod("p", labels=FOO_L,
                 spreads=(spread(1, "zone", DNS, FOO, match_label_keys=("bar",)),)),
        nodes_zone_node(*FOUR_NODES), _foo_a_pods(),
        want=Want([C(1, "zone", FOO)], [(("zone2", 2), ("zone1", 3))],
                  [{"zone1": 3, "zone2": 2}]),
        match_label_keys=True,
    ),
    PFCase(
        "two spreadConstraints with the same topologyKey",
        make_pod("p", labels=FOOBAR_L, spreads=(spread(1, "zone", DNS, FOO),
                                                spread(1, "zone", DNS, BAR))),
        nodes_zone_node(*FOUR_NODES),
        [P("p-a1", "node-a", FOOBAR_L), P("p-b1", "node-b", FOO_L), P("p-x1", "node-x", BAR_L),
         P("p-y1", "node-y", FOOBAR_L), P("p-y2", "node-y", BAR_L)],
        want=Want([C(1, "zone", FOO), C(1, "zone", BAR)],
                  [(("zone2", 1), ("zone1", 2)), (("zone1", 1), ("zone2", 3))],
                  [{"zone1": 2, "zone2": 1}, {"zone1": 1, "zone2": 3}]),
    ),
    PFCase(
        "skip if not specified",
        make_pod("p", labels=FOO_L),
        nodes_zone_node(("node-a", "zone1")),
        want_status=Status(Code.SKIP),
    ),
]


@pytest.mark.parametrize("tc", PRE_FILTER_STATE_CASES, ids=lambda tc: tc.name)
def test_pre_filter_state(tc: PFCase) -> None:
    """filtering_test.go TestPreFilterState."""
    pl, handle = setup(tc.nodes, tc.existing, node_inclusion=tc.node_inclusion,
                       match_label_keys=tc.match_label_keys,
                       default_constraints=tc.default_constraints, owners=tc.owners)
    cs = CycleState()
    result, status = pl.pre_filter(cs, tc.pod, handle.snapshot().list())
    assert result is None
    assert status == tc.want_status
    if status is not None:
        assert cs.get(PRE_FILTER_STATE_KEY) is None
        return
    assert tc.want is not None
    assert_state(cs.read(PRE_FILTER_STATE_KEY), tc.want)


# ----------------------------------------------------------------------------------------------
# TestPreFilterStateAddPod / TestPreFilterStateRemovePod
# ----------------------------------------------------------------------------------------------

NODE_C = C(1, "node", FOO)
ZONE_C = C(1, "zone", FOO)


@dataclass
class AddCase:
    name: str
    preemptor: Pod
    added: Pod
    existing: list[Pod]
    node_idx: int
    nodes: list[Node]
    want: Want
    node_inclusion: bool = False


def _two_nodes_ab() -> list[Node]:
    return nodes_zone_node(("node-a", "zone1"), ("node-b", "zone1"))


def _ab_affinity_nodes() -> list[Node]:
    return [N("node-a", {"zone": "zone1", "node": "node-a", "foo": "bar"}),
            N("node-b", {"zone": "zone2", "node": "node-b", "foo": ""})]


def _ab_taint_nodes() -> list[Node]:
    return [N("node-a", {"zone": "zone1", "node": "node-a"}, TAINTS),
            N("node-b", {"zone": "zone2", "node": "node-b"})]


_NODE_PREEMPTOR = make_pod("p", labels=FOO_L, spreads=(spread(1, "node", DNS, FOO),))
_ZONE_NODE_PREEMPTOR = make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),
                                                            spread(1, "node", DNS, FOO)))
_ZONE_FOO_NODE_BAR_PREEMPTOR = make_pod("p", labels=FOOBAR_L, spreads=(
    spread(1, "zone", DNS, FOO), spread(1, "node", DNS, BAR)))
_ZONE_PREEMPTOR = make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),))
_ZONE_PREEMPTOR_NOT_BAR = make_pod("p", labels=FOO_L, affinity=node_affinity_not_in("foo", ["bar"]),
                                   spreads=(spread(1, "zone", DNS, FOO),))
ZONE1_FOO = {"foo": "", "zone": "zone1"}
ZONE2_FOO = {"foo": "", "zone": "zone2"}

ADD_POD_CASES = [
    AddCase("node a and b both impact current min match", _NODE_PREEMPTOR,
            P("p-a1", "node-a", FOO_L), [], 0, _two_nodes_ab(),
            Want([NODE_C], [(("node-b", 0), ("node-a", 1))], [{"node-a": 1, "node-b": 0}])),
    AddCase("only node a impacts current min match", _NODE_PREEMPTOR,
            P("p-a1", "node-a", FOO_L), [P("p-b1", "node-b", FOO_L)], 0, _two_nodes_ab(),
            Want([NODE_C], [(("node-a", 1), ("node-b", 1))], [{"node-a": 1, "node-b": 1}])),
    AddCase("add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
            _NODE_PREEMPTOR, P("p-a1", "node-a", FOO_L, ns="ns1"),
            [P("p-b1", "node-b", FOO_L)], 0, _two_nodes_ab(),
            Want([NODE_C], [(("node-a", 0), ("node-b", 1))], [{"node-a": 0, "node-b": 1}])),
    AddCase("add pod on non-critical node won't trigger re-calculation", _NODE_PREEMPTOR,
            P("p-b2", "node-b", FOO_L), [P("p-b1", "node-b", FOO_L)], 1, _two_nodes_ab(),
            Want([NODE_C], [(("node-a", 0), ("node-b", 2))], [{"node-a": 0, "node-b": 2}])),
    AddCase("node a and x both impact topologyKeyToMinPodsMap on zone and node",
            _ZONE_NODE_PREEMPTOR, P("p-a1", "node-a", FOO_L), [], 0,
            nodes_zone_node(("node-a", "zone1"), ("node-x", "zone2")),
            Want([ZONE_C, NODE_C], [(("zone2", 0), ("zone1", 1)), (("node-x", 0), ("node-a", 1))],
                 [{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}])),
    AddCase("only node a impacts topologyKeyToMinPodsMap on zone and node",
            _ZONE_NODE_PREEMPTOR, P("p-a1", "node-a", FOO_L), [P("p-x1", "node-x", FOO_L)], 0,
            nodes_zone_node(("node-a", "zone1"), ("node-x", "zone2")),
            Want([ZONE_C, NODE_C], [(("zone1", 1), ("zone2", 1)), (("node-a", 1), ("node-x", 1))],
                 [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}])),
    AddCase("node a impacts topologyKeyToMinPodsMap on node, node x impacts "
            "topologyKeyToMinPodsMap on zone",
            _ZONE_NODE_PREEMPTOR, P("p-a1", "node-a", FOO_L),
            [P("p-b1", "node-b", FOO_L), P("p-b2", "node-b", FOO_L), P("p-x1", "node-x", FOO_L)],
            0, nodes_zone_node(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")),
            Want([ZONE_C, NODE_C], [(("zone2", 1), ("zone1", 3)), (("node-a", 1), ("node-x", 1))],
                 [{"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}])),
    AddCase("Constraints hold different labelSelectors, node a impacts "
            "topologyKeyToMinPodsMap on zone",
            _ZONE_FOO_NODE_BAR_PREEMPTOR, P("p-a1", "node-a", FOO_L),
            [P("p-b1", "node-b", FOOBAR_L), P("p-x1", "node-x", FOOBAR_L),
             P("p-x2", "node-x", BAR_L)],
            0, nodes_zone_node(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")),
            Want([ZONE_C, C(1, "node", BAR)],
                 [(("zone2", 1), ("zone1", 2)), (("node-a", 0), ("node-b", 1))],
                 [{"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}])),
    AddCase("Constraints hold different labelSelectors, node a impacts "
            "topologyKeyToMinPodsMap on both zone and node",
            _ZONE_FOO_NODE_BAR_PREEMPTOR, P("p-a1", "node-a", FOOBAR_L),
            [P("p-b1", "node-b", BAR_L), P("p-x1", "node-x", FOOBAR_L),
             P("p-x2", "node-x", BAR_L)],
            0, nodes_zone_node(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")),
            Want([ZONE_C, C(1, "node", BAR)],
                 [(("zone1", 1), ("zone2", 1)), (("node-a", 1), ("node-b", 1))],
                 [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}])),
    AddCase("add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy "
            "disabled",
            _ZONE_PREEMPTOR_NOT_BAR, P("p-a1", "node-a", ZONE1_FOO),
            [P("p-a2", "node-a", ZONE1_FOO), P("p-b1", "node-b", ZONE2_FOO)], 0,
            _ab_affinity_nodes(),
            Want([ZONE_C], [(("zone2", 1), ("", MAX_INT32))], [{"zone2": 1}]),
            node_inclusion=False),
    AddCase("add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy "
            "enabled",
            _ZONE_PREEMPTOR_NOT_BAR, P("p-a1", "node-a", ZONE1_FOO),
            [P("p-a2", "node-a", ZONE1_FOO), P("p-b1", "node-b", ZONE2_FOO)], 0,
            _ab_affinity_nodes(),
            Want([ZONE_C], [(("zone2", 1), ("", MAX_INT32))], [{"zone2": 1}]),
            node_inclusion=True),
    AddCase("add a pod when scheduling node affinity matched pod with NodeInclusionPolicy "
            "disabled",
            _ZONE_PREEMPTOR, P("p-b1", "node-b", ZONE2_FOO),
            [P("p-a1", "node-a", ZONE1_FOO), P("p-b2", "node-b", ZONE2_FOO)], 1,
            _ab_affinity_nodes(),
            Want([ZONE_C], [(("zone1", 1), ("zone2", 2))], [{"zone1": 1, "zone2": 2}]),
            node_inclusion=False),
    AddCase("add a pod when scheduling node affinity matched pod with NodeInclusionPolicy "
            "enabled",
            _ZONE_PREEMPTOR, P("p-b1", "node-b", ZONE2_FOO),
            [P("p-a1", "node-a", ZONE1_FOO), P("p-b2", "node-b", ZONE2_FOO)], 1,
            _ab_affinity_nodes(),
            Want([ZONE_C], [(("zone1", 1), ("zone2", 2))], [{"zone1": 1, "zone2": 2}]),
            node_inclusion=True),
    AddCase("add a label selector not matched pod when with NodeInclusionPolicy enabled",
            _ZONE_PREEMPTOR, P("p-b1", "node-b", {"zone": "zone2"}),
            [P("p-a1", "node-a", ZONE1_FOO), P("p-b2", "node-b", ZONE2_FOO)], 1,
            _ab_affinity_nodes(),
            Want([ZONE_C], [(("zone1", 1), ("zone2", 1))], [{"zone1": 1, "zone2": 1}]),
            node_inclusion=True),
    AddCase("add a pod when scheduling taint untolerated pod with NodeInclusionPolicy disabled",
            _ZONE_PREEMPTOR, P("p-b1", "node-b", ZONE2_FOO),
            [P("p-a1", "node-a", ZONE1_FOO), P("p-b2", "node-b", ZONE2_FOO)], 1,
            _ab_taint_nodes(),
            Want([ZONE_C], [(("zone1", 1), ("zone2", 2))], [{"zone2": 2, "zone1": 1}]),
            node_inclusion=False),
    AddCase("add a pod when scheduling taint tolerated pod with NodeInclusionPolicy enabled",
            make_pod("p", labels=FOO_L,
                     tolerations=(Toleration(key=TAINT_NODE_UNSCHEDULABLE, operator="Exists"),),
                     spreads=(spread(1, "zone", DNS, FOO),)),
            P("p-b1", "node-b", ZONE2_FOO),
            [P("p-a1", "node-a", ZONE1_FOO), P("p-b2", "node-b", ZONE2_FOO)], 1,
            _ab_taint_nodes(),
            Want([ZONE_C], [(("zone1", 1), ("zone2", 2))], [{"zone2": 2, "zone1": 1}]),
            node_inclusion=True),
]


@pytest.mark.parametrize("tc", ADD_POD_CASES, ids=lambda tc: tc.name)
def test_pre_filter_state_add_pod(tc: AddCase) -> None:
    """filtering_test.go TestPreFilterStateAddPod."""
    pl, handle = setup(tc.nodes, tc.existing, node_inclusion=tc.node_inclusion)
    snapshot = handle.snapshot()
    cs = CycleState()
    _, status = pl.pre_filter(cs, tc.preemptor, snapshot.list())
    assert status is None
    node_info = snapshot.get(tc.nodes[tc.node_idx].name)
    assert pl.pre_filter_extensions().add_pod(cs, tc.preemptor, PodInfo(tc.added),
                                              node_info) is None
    assert_state(cs.read(PRE_FILTER_STATE_KEY), tc.want)


@dataclass
class RemoveCase:
    name: str
    preemptor: Pod
    nodes: list[Node]
    existing: list[Pod]
    deleted_idx: int  # reuse existing[i]; -1 means use `deleted`
    deleted: Pod | None
    node_idx: int
    want: Want
    node_inclusion: bool = False


# Note: the last four upstream cases set ``deletedPod`` but leave ``deletedPodIdx`` at its zero
# value, so the pod actually removed is existingPods[0]; restated as upstream runs them.
REMOVE_POD_CASES = [
    RemoveCase("one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
               _ZONE_PREEMPTOR,
               nodes_zone_node(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")),
               [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
                P("p-x1", "node-x", FOO_L)], 0, None, 0,
               Want([ZONE_C], [(("zone1", 1), ("zone2", 1))], [{"zone1": 1, "zone2": 1}])),
    RemoveCase("one spreadConstraint on node, topologyKeyToMinPodsMap changed",
               _ZONE_PREEMPTOR, nodes_zone_node(*FOUR_NODES),
               [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
                P("p-x1", "node-x", FOO_L), P("p-y1", "node-y", FOO_L)], 0, None, 0,
               Want([ZONE_C], [(("zone1", 1), ("zone2", 2))], [{"zone1": 1, "zone2": 2}])),
    RemoveCase("delete an irrelevant pod won't help",
               _ZONE_PREEMPTOR, nodes_zone_node(*FOUR_NODES),
               [P("p-a0", "node-a", BAR_L), P("p-a1", "node-a", FOO_L),
                P("p-b1", "node-b", FOO_L), P("p-x1", "node-x", FOO_L),
                P("p-y1", "node-y", FOO_L)], 0, None, 0,
               Want([ZONE_C], [(("zone1", 2), ("zone2", 2))], [{"zone1": 2, "zone2": 2}])),
    RemoveCase("delete a non-existing pod won't help",
               _ZONE_PREEMPTOR, nodes_zone_node(*FOUR_NODES),
               [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
                P("p-x1", "node-x", FOO_L), P("p-y1", "node-y", FOO_L)],
               -1, P("p-a0", "node-a", BAR_L), 0,
               Want([ZONE_C], [(("zone1", 2), ("zone2", 2))], [{"zone1": 2, "zone2": 2}])),
    RemoveCase("two spreadConstraints",
               _ZONE_NODE_PREEMPTOR,
               nodes_zone_node(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")),
               [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", FOO_L),
                P("p-b1", "node-b", FOO_L), P("p-x1", "node-x", FOO_L),
                P("p-x2", "node-x", FOO_L)], 3, None, 2,
               Want([ZONE_C, NODE_C],
                    [(("zone2", 1), ("zone1", 3)), (("node-b", 1), ("node-x", 1))],
                    [{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}])),
    RemoveCase("remove a pod when scheduling node affinity unmatched pod with "
               "NodeInclusionPolicy disabled",
               _ZONE_PREEMPTOR_NOT_BAR, _ab_affinity_nodes(),
               [P("p-a2", "node-a", ZONE1_FOO), P("p-b1", "node-b", ZONE2_FOO)],
               0, P("p-a1", "node-a", ZONE1_FOO), 0,
               Want([ZONE_C], [(("zone2", 1), ("", MAX_INT32))], [{"zone2": 1}]),
               node_inclusion=False),
    RemoveCase("remove a pod when scheduling node affinity unmatched pod with "
               "NodeInclusionPolicy enabled",
               _ZONE_PREEMPTOR_NOT_BAR, _ab_affinity_nodes(),
               [P("p-a2", "node-a", ZONE1_FOO), P("p-b1", "node-b", ZONE2_FOO)],
               0, P("p-a1", "node-a", ZONE1_FOO), 0,
               Want([ZONE_C], [(("zone2", 1), ("", MAX_INT32))], [{"zone2": 1}]),
               node_inclusion=True),
    RemoveCase("remove a pod when scheduling node affinity matched pod with "
               "NodeInclusionPolicy disabled",
               _ZONE_PREEMPTOR, _ab_affinity_nodes(),
               [P("p-a1", "node-a", ZONE1_FOO), P("p-b2", "node-b", ZONE2_FOO)],
               0, P("p-b1", "node-b", ZONE2_FOO), 1,
               Want([ZONE_C], [(("zone2", 0), ("zone1", 1))], [{"zone2": 0, "zone1": 1}]),
               node_inclusion=False),
    RemoveCase("remove a pod when scheduling node affinity matched pod with "
               "NodeInclusionPolicy enabled",
               _ZONE_PREEMPTOR, _ab_affinity_nodes(),
               [P("p-a1", "node-a", ZONE1_FOO), P("p-b2", "node-b", ZONE2_FOO)],
               0, P("p-b1", "node-b", ZONE2_FOO), 1,
               Want([ZONE_C], [(("zone2", 0), ("zone1", 1))], [{"zone2": 0, "zone1": 1}]),
               node_inclusion=True),
]


@pytest.mark.parametrize("tc", REMOVE_POD_CASES, ids=lambda tc: tc.name)
def test_pre_filter_state_remove_pod(tc: RemoveCase) -> None:
    """filtering_test.go TestPreFilterStateRemovePod."""
    pl, handle = setup(tc.nodes, tc.existing, node_inclusion=tc.node_inclusion)
    snapshot = handle.snapshot()
    cs = CycleState()
    _, status = pl.pre_filter(cs, tc.preemptor, snapshot.list())
    assert status is None
    deleted = tc.deleted
    if 0 <= tc.deleted_idx < len(tc.existing):
        deleted = tc.existing[tc.deleted_idx]
    assert deleted is not None
    node_info = snapshot.get(tc.nodes[tc.node_idx].name)
    assert pl.pre_filter_extensions().remove_pod(cs, tc.preemptor, PodInfo(deleted),
                                                 node_info) is None
    assert_state(cs.read(PRE_FILTER_STATE_KEY), tc.want)


def test_add_pod_then_filter_on_cloned_state() -> None:
    """The preemption/nominated-pods use of the extensions: AddPod on a clone of the cycle state
    changes Filter's verdict there and leaves the original state untouched (Clone copies the
    paths and counts)."""
    pod = make_pod("p", labels=FOO_L, spreads=(spread(1, "node", DNS, FOO),))
    nodes = nodes_zone_node(("node-a", "zone1"), ("node-b", "zone1"))
    pl, handle = setup(nodes, [P("p-b1", "node-b", FOO_L)], node_inclusion=True)
    snapshot = handle.snapshot()
    cs = CycleState()
    pl.pre_filter(cs, pod, snapshot.list())
    node_a, node_b = snapshot.get("node-a"), snapshot.get("node-b")
    assert pl.filter(cs, pod, node_b).code == Code.UNSCHEDULABLE
    clone = cs.clone()
    pl.add_pod(clone, pod, PodInfo(P("nominated", "node-a", FOO_L)), node_a)
    # With a (nominated) pod on node-a, node-a now has 1+1-1 = 1 <= 1 and node-b 1+1-1 = 1.
    assert pl.filter(clone, pod, node_b) is None
    assert pl.filter(clone, pod, node_a) is None
    assert pl.filter(cs, pod, node_b).code == Code.UNSCHEDULABLE
    pl.remove_pod(clone, pod, PodInfo(P("nominated", "node-a", FOO_L)), node_a)
    assert pl.filter(clone, pod, node_b).code == Code.UNSCHEDULABLE


def test_add_pod_without_pre_filter_state_is_error() -> None:
    """AddPod/RemovePod read the PreFilter state (getPreFilterState) and fail without it."""
    nodes = nodes_zone_node(("node-a", "zone1"))
    pl, handle = setup(nodes, [])
    ni = handle.snapshot().get("node-a")
    pod = make_pod("p", labels=FOO_L, spreads=(spread(1, "node", DNS, FOO),))
    for fn in (pl.add_pod, pl.remove_pod):
        st = fn(CycleState(), pod, PodInfo(P("x", "node-a", FOO_L)), ni)
        assert st is not None and st.code == Code.ERROR


# ----------------------------------------------------------------------------------------------
# TestSingleConstraint / TestMultipleConstraints
# ----------------------------------------------------------------------------------------------

S, U, UU = Code.SUCCESS, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE


@dataclass
class FilterCase:
    name: str
    pod: Pod
    nodes: list[Node]
    existing: list[Pod]
    want: dict[str, Code]
    node_inclusion: bool = False


def _pods_a2_b1_y3() -> list[Pod]:
    return [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
            P("p-y1", "node-y", FOO_L), P("p-y2", "node-y", FOO_L), P("p-y3", "node-y", FOO_L)]


def _abc_node_only() -> list[Node]:
    return [N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"}),
            N("node-c", {"node": "node-c"})]


def _pods_2_2_1() -> list[Pod]:
    return [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
            P("p-b2", "node-b", FOO_L), P("p-c1", "node-c", FOO_L)]


def _pods_zone_2_1() -> list[Pod]:
    return [P("p-b1", "node-a", FOO_L), P("p-b2", "node-b", FOO_L), P("p-y1", "node-y", FOO_L)]


def _abxy_foo_nodes(y_taints: tuple[Taint, ...] = ()) -> list[Node]:
    return [N("node-a", {"node": "node-a", "foo": ""}), N("node-b", {"node": "node-b", "foo": ""}),
            N("node-x", {"node": "node-x", "foo": ""}), N("node-y", {"node": "node-y"}, y_taints)]


def _pods_1_1_0_1() -> list[Pod]:
    return [P("p-b1", "node-a", FOO_L), P("p-b2", "node-b", FOO_L), P("p-y1", "node-y", FOO_L)]


ALL4 = ("node-a", "node-b", "node-x", "node-y")


def codes(*cs: Code, names: tuple[str, ...] = ALL4) -> dict[str, Code]:
    return dict(zip(names, cs, strict=True))


SINGLE_CONSTRAINT_CASES = [
    FilterCase("no existing pods",
               make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),)),
               nodes_zone_node(*FOUR_NODES), [], codes(S, S, S, S)),
    FilterCase("no existing pods, incoming pod doesn't match itself",
               make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, BAR),)),
               nodes_zone_node(*FOUR_NODES), [], codes(S, S, S, S)),
    FilterCase("existing pods in a different namespace do not count",
               make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),)),
               nodes_zone_node(*FOUR_NODES),
               [P("p-a1", "node-a", FOO_L, ns="ns1"), P("p-b1", "node-a", FOO_L, ns="ns2"),
                P("p-x1", "node-x", FOO_L), P("p-y1", "node-y", FOO_L)],
               codes(S, S, U, U)),
    FilterCase("existing pods do not match null selector",
               make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, None),)),
               nodes_zone_node(*FOUR_NODES),
               [P("p-x1", "node-x", FOO_L), P("p-y1", "node-y", FOO_L)], codes(S, S, S, S)),
    FilterCase("pods spread across zones as 3/3, all nodes fit",
               make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),)),
               nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y3(), codes(S, S, S, S)),
    FilterCase("pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
               make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),)),
               [N("node-a", {"zone": "zone1", "node": "node-a"}),
                N("node-b", {"zon": "zone1", "node": "node-b"}),
                N("node-x", {"zone": "zone2", "node": "node-x"}),
                N("node-y", {"zone": "zone2", "node": "node-y"})],
               [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
                P("p-x1", "node-x", FOO_L), P("p-y1", "node-y", FOO_L)],
               codes(S, UU, U, U)),
    FilterCase("pod cannot be scheduled as all nodes don't have label 'rack'",
               make_pod("p", labels=FOO_L, spreads=(spread(1, "rack", DNS, FOO),)),
               nodes_zone_node(("node-a", "zone1"), ("node-x", "zone2")), [],
               codes(UU, UU, names=("node-a", "node-x"))),
    FilterCase("pods spread across nodes as 2/1/0/3, only node-x fits",
               make_pod("p", labels=FOO_L, spreads=(spread(1, "node", DNS, FOO),)),
               nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y3(), codes(U, U, S, U)),
    FilterCase("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
               make_pod("p", labels=FOO_L, spreads=(spread(2, "node", DNS, FOO),)),
               nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y3(), codes(U, S, S, U)),
    FilterCase("pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
               make_pod("p", labels=BAR_L, spreads=(spread(1, "node", DNS, FOO),)),
               nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y3(), codes(U, S, S, U)),
    FilterCase("incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
               make_pod("p", labels=FOO_L, affinity=node_affinity_in("node", ["node-a", "node-y"]),
                        spreads=(spread(1, "node", DNS, FOO),)),
               nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y3(),
               # node-b / node-x fit here because NodeAffinity is not run in this unit test.
               codes(S, S, S, U)),
    FilterCase("terminating Pods should be excluded",
               make_pod("p", labels=FOO_L, spreads=(spread(1, "node", DNS, FOO),)),
               [N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"})],
               [P("p-a", "node-a", FOO_L, terminating=True), P("p-b", "node-b", FOO_L)],
               codes(S, U, names=("node-a", "node-b"))),
    FilterCase("incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
               make_pod("p", labels=FOO_L, affinity=node_affinity_not_in("node", ["node-b"]),
                        spreads=(spread(1, "zone", DNS, FOO),)),
               nodes_zone_node(*FOUR_NODES),
               [P("p-b1", "node-b", FOO_L), P("p-b2", "node-b", FOO_L),
                P("p-y1", "node-y", FOO_L)],
               codes(S, S, U, U)),
    FilterCase("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < "
               "minDomains, then the third node fits",
               make_pod("p", labels=FOO_L, spreads=(spread(2, "node", DNS, FOO, min_domains=4),)),
               _abc_node_only(), _pods_2_2_1(),
               codes(U, U, S, names=("node-a", "node-b", "node-c"))),
    FilterCase("pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > "
               "minDomains, then the all nodes fit",
               make_pod("p", labels=FOO_L, spreads=(spread(2, "node", DNS, FOO, min_domains=2),)),
               _abc_node_only(), _pods_2_2_1(),
               codes(S, S, S, names=("node-a", "node-b", "node-c"))),
    FilterCase("pods spread across zone as 2/1, maxSkew is 2 and the number of domains < "
               "minDomains, then the third and fourth nodes fit",
               make_pod("p", labels=FOO_L, spreads=(spread(2, "zone", DNS, FOO, min_domains=3),)),
               nodes_zone_node(*FOUR_NODES), _pods_zone_2_1(), codes(U, U, S, S)),
    FilterCase("pods spread across zone as 2/1, maxSkew is 2 and the number of domains > "
               "minDomains, then the all nodes fit",
               make_pod("p", labels=FOO_L, spreads=(spread(2, "zone", DNS, FOO, min_domains=1),)),
               nodes_zone_node(*FOUR_NODES), _pods_zone_2_1(), codes(S, S, S, S)),
    FilterCase("NodeAffinityPolicy honored with labelSelectors",
               make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                        spreads=(spread(1, "node", DNS, FOO),)),
               _abxy_foo_nodes(), _pods_1_1_0_1(), codes(U, U, S, S), node_inclusion=True),
    FilterCase("NodeAffinityPolicy ignored with labelSelectors",
               make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                        spreads=(spread(1, "node", DNS, FOO, affinity_policy=IGNORE),)),
               _abxy_foo_nodes(), _pods_1_1_0_1(), codes(U, U, S, U), node_inclusion=True),
    FilterCase("NodeAffinityPolicy honored with nodeAffinity",
               make_pod("p", labels=FOO_L, affinity=node_affinity_in("foo", [""]),
                        spreads=(spread(1, "node", DNS, FOO),)),
               _abxy_foo_nodes(), _pods_1_1_0_1(), codes(U, U, S, S), node_inclusion=True),
    FilterCase("NodeAffinityPolicy ignored with labelSelectors (nodeAffinity)",
               make_pod("p", labels=FOO_L, affinity=node_affinity_in("foo", [""]),
                        spreads=(spread(1, "node", DNS, FOO, affinity_policy=IGNORE),)),
               _abxy_foo_nodes(), _pods_1_1_0_1(), codes(U, U, S, U), node_inclusion=True),
    FilterCase("NodeTaintsPolicy honored",
               make_pod("p", labels=FOO_L,
                        spreads=(spread(1, "node", DNS, FOO, taints_policy=HONOR),)),
               _abxy_foo_nodes(TAINTS), _pods_1_1_0_1(), codes(U, U, S, S), node_inclusion=True),
    FilterCase("NodeTaintsPolicy ignored",
               make_pod("p", labels=FOO_L, spreads=(spread(1, "node", DNS, FOO),)),
               _abxy_foo_nodes(TAINTS), _pods_1_1_0_1(), codes(U, U, S, U), node_inclusion=True),
]

MULTIPLE_CONSTRAINTS_CASES = [
    FilterCase("two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
               _ZONE_NODE_PREEMPTOR, nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y3(),
               codes(U, U, S, U)),
    FilterCase("two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
               _ZONE_NODE_PREEMPTOR, nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y4(),
               codes(U, U, U, U)),
    FilterCase("Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
               _ZONE_FOO_NODE_BAR_PREEMPTOR, nodes_zone_node(*FOUR_NODES),
               [P("p-a1", "node-a", FOO_L), P("p-y1", "node-y", BAR_L)], codes(U, U, S, U)),
    FilterCase("Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
               _ZONE_FOO_NODE_BAR_PREEMPTOR, nodes_zone_node(*FOUR_NODES),
               [P("p-a1", "node-a", FOO_L), P("p-x1", "node-x", BAR_L),
                P("p-y1", "node-y", BAR_L)], codes(U, U, U, U)),
    FilterCase("Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
               _ZONE_FOO_NODE_BAR_PREEMPTOR, nodes_zone_node(*FOUR_NODES),
               [P("p-a1", "node-a", FOO_L), P("p-a2", "node-a", FOOBAR_L),
                P("p-y1", "node-y", FOO_L), P("p-y2", "node-y", FOOBAR_L),
                P("p-y3", "node-y", FOO_L)], codes(U, S, U, U)),
    FilterCase("Constraints hold different labelSelectors but pod doesn't match itself on "
               "'zone' constraint",
               make_pod("p", labels=BAR_L, spreads=(spread(1, "zone", DNS, FOO),
                                                    spread(1, "node", DNS, BAR))),
               nodes_zone_node(*FOUR_NODES),
               [P("p-a1", "node-a", FOO_L), P("p-x1", "node-x", BAR_L),
                P("p-y1", "node-y", BAR_L)], codes(S, S, U, U)),
    FilterCase("two Constraints on zone and node, absence of label 'node' on node-x, "
               "spreads = [1/1, 1/0/0/1]",
               _ZONE_NODE_PREEMPTOR,
               [N("node-a", {"zone": "zone1", "node": "node-a"}),
                N("node-b", {"zone": "zone1", "node": "node-b"}),
                N("node-x", {"zone": "zone2"}),
                N("node-y", {"zone": "zone2", "node": "node-y"})],
               [P("p-a1", "node-a", FOO_L), P("p-y3", "node-y", FOO_L)], codes(U, S, UU, U)),
    FilterCase("two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
               make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                        spreads=(spread(1, "zone", DNS, FOO),
                                 spread(1, "node", DNS, FOO, affinity_policy=IGNORE))),
               [N("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
                N("node-b", {"zone": "zone1", "node": "node-b", "foo": ""}),
                N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
                N("node-y", {"zone": "zone2", "node": "node-y"})],
               [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
                P("p-y1", "node-y", FOO_L)], codes(U, U, S, U), node_inclusion=True),
    FilterCase("two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
               make_pod("p", labels=FOO_L,
                        spreads=(spread(1, "zone", DNS, FOO, taints_policy=HONOR),
                                 spread(1, "node", DNS, FOO))),
               [N("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
                N("node-b", {"zone": "zone1", "node": "node-b", "foo": ""}),
                N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
                N("node-y", {"zone": "zone2", "node": "node-y"}, TAINTS)],
               [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
                P("p-y1", "node-y", FOO_L)], codes(U, U, S, U), node_inclusion=True),
    FilterCase("two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
               make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                        spreads=(spread(1, "zone", DNS, FOO), spread(1, "node", DNS, FOO))),
               [N("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
                N("node-b", {"zone": "zone1", "node": "node-b"}),
                N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
                N("node-y", {"zone": "zone2", "node": "node-y", "foo": ""}, TAINTS)],
               [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
                P("p-y1", "node-y", FOO_L)], codes(U, S, S, U), node_inclusion=True),
    FilterCase("two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
               make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                        spreads=(spread(1, "zone", DNS, FOO, taints_policy=HONOR),
                                 spread(1, "node", DNS, FOO, affinity_policy=IGNORE))),
               [N("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
                N("node-b", {"zone": "zone1", "node": "node-b"}),
                N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
                N("node-y", {"zone": "zone2", "node": "node-y", "foo": ""}, TAINTS)],
               [P("p-a1", "node-a", FOO_L), P("p-b1", "node-b", FOO_L),
                P("p-y1", "node-y", FOO_L)], codes(U, U, S, U), node_inclusion=True),
    FilterCase("two Constraints on zone, spreads = [3/3, 2/1]",
               make_pod("p", labels=FOOBAR_L, spreads=(spread(1, "zone", DNS, BAR),
                                                       spread(1, "zone", DNS, FOO))),
               nodes_zone_node(*FOUR_NODES),
               [P("p-a1", "node-a", FOOBAR_L), P("p-a2", "node-a", FOO_L),
                P("p-b1", "node-b", FOOBAR_L), P("p-y1", "node-y", FOO_L),
                P("p-y2", "node-y", FOOBAR_L), P("p-y3", "node-y", FOO_L)],
               codes(U, U, S, S)),
    FilterCase("two Constraints on zone, spreads = [3/4, 2/1]",
               make_pod("p", labels=FOOBAR_L, spreads=(spread(1, "zone", DNS, BAR),
                                                       spread(1, "zone", DNS, FOO))),
               nodes_zone_node(*FOUR_NODES),
               [P("p-a1", "node-a", FOOBAR_L), P("p-a2", "node-a", FOO_L),
                P("p-b1", "node-b", FOOBAR_L), P("p-y1", "node-y", FOO_L),
                P("p-y2", "node-y", FOOBAR_L), P("p-y3", "node-y", FOO_L),
                P("p-y4", "node-y", FOO_L)],
               codes(U, U, U, U)),
]

_REASONS = {
    Code.UNSCHEDULABLE: [ERR_REASON_CONSTRAINTS_NOT_MATCH],
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: [ERR_REASON_NODE_LABEL_NOT_MATCH],
}


def _run_filter_case(tc: FilterCase) -> None:
    pl, handle = setup(tc.nodes, tc.existing, node_inclusion=tc.node_inclusion)
    snapshot = handle.snapshot()
    state = CycleState()
    _, status = pl.pre_filter(state, tc.pod, snapshot.list())
    assert status is None
    got = {}
    for node in tc.nodes:
        st = pl.filter(state, tc.pod, snapshot.get(node.name))
        got[node.name] = Code.SUCCESS if st is None else st.code
        if st is not None:
            assert st.reasons == _REASONS[st.code]
    assert got == tc.want


@pytest.mark.parametrize("tc", SINGLE_CONSTRAINT_CASES, ids=lambda tc: tc.name)
def test_single_constraint(tc: FilterCase) -> None:
    """filtering_test.go TestSingleConstraint (codes; reasons are the two ErrReason* strings)."""
    _run_filter_case(tc)


@pytest.mark.parametrize("tc", MULTIPLE_CONSTRAINTS_CASES, ids=lambda tc: tc.name)
def test_multiple_constraints(tc: FilterCase) -> None:
    """filtering_test.go TestMultipleConstraints."""
    _run_filter_case(tc)


def test_filter_reason_strings() -> None:
    """plugin.go ErrReasonConstraintsNotMatch / ErrReasonNodeLabelNotMatch, verbatim."""
    assert ERR_REASON_CONSTRAINTS_NOT_MATCH == \
        "node(s) didn't match pod topology spread constraints"
    assert ERR_REASON_NODE_LABEL_NOT_MATCH == \
        "node(s) didn't match pod topology spread constraints (missing required label)"


def test_pre_filter_disabled() -> None:
    """filtering_test.go TestPreFilterDisabled: Filter without PreFilter state is an Error."""
    pl, _ = setup([], [])
    st = pl.filter(CycleState(), make_pod("p"), NodeInfo(Node(name="")))
    assert st is not None
    assert st.code == Code.ERROR
    assert st.error == 'reading "PreFilterPodTopologySpread" from cycleState: not found'


def test_node_inclusion_policy_gate_on_is_the_default() -> None:
    """v1.37.2: NodeInclusionPolicyInPodTopologySpread is GA (locked on) and nil policies mean
    Honor/Ignore: the "feature gate disabled with NodeAffinityPolicy" state is reproduced with the
    gate on (nodeSelector honored through the default Honor policy)."""
    pod = make_pod("p", labels=FOO_L, node_selector={"foo": ""},
                   spreads=(spread(1, "node", DNS, BAR),))
    pl, handle = setup(_abc_nodes_foo_foo_bar(), _pods_abc_bar(), node_inclusion=True)
    cs = CycleState()
    pl.pre_filter(cs, pod, handle.snapshot().list())
    s = cs.read(PRE_FILTER_STATE_KEY)
    assert s.tp_value_to_match_num == [{"node-a": 1, "node-b": 2}]


# ----------------------------------------------------------------------------------------------
# TestPodTopoSignatures
# ----------------------------------------------------------------------------------------------

def test_pod_topo_signatures() -> None:
    """filtering_test.go TestPodTopoSignatures (plus the exact statuses of plugin.go SignPod)."""
    # "pod w constraints" (System defaulting)
    pl, handle = setup([], [], defaulting_type=SYSTEM_DEFAULTING)
    pod = make_pod("", spreads=(TopologySpreadConstraint(0, "test", ""),))
    _, status = pl.pre_filter(CycleState(), pod, [])
    assert status is None or status.code != Code.ERROR
    sig, st = pl.sign_pod(pod)
    assert sig is None
    assert st == Status(Code.UNSCHEDULABLE, "pods with topology constraints are not signable")
    # "pod no constraints but default"
    pod = make_pod("")
    _, status = pl.pre_filter(CycleState(), pod, [])
    assert status is None or status.code != Code.ERROR
    sig, st = pl.sign_pod(pod)
    assert sig is None
    assert st == Status(Code.UNSCHEDULABLE,
                        "pods with default topology constraints are not signable")
    # "pod no constraints no default" (List defaulting, empty list): signable, no fragments.
    pl, _ = setup([], [], defaulting_type=LIST_DEFAULTING)
    _, status = pl.pre_filter(CycleState(), pod, [])
    assert status is None or status.code != Code.ERROR
    assert pl.sign_pod(pod) == (None, None)


def test_system_defaulting_constraints() -> None:
    """plugin.go New / systemDefaultConstraints: System defaulting replaces the list with
    hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway."""
    pl, _ = setup([], [], defaulting_type=SYSTEM_DEFAULTING)
    assert pl.system_defaulted
    assert [(c.max_skew, c.topology_key, c.when_unsatisfiable)
            for c in pl.default_constraints] == [
        (3, "kubernetes.io/hostname", SA), (5, "topology.kubernetes.io/zone", SA)]
    pl, _ = setup([], [], default_constraints=(TopologySpreadConstraint(1, "zone", DNS),))
    assert not pl.system_defaulted
    assert len(pl.default_constraints) == 1


def test_events_to_register() -> None:
    """plugin.go EventsToRegister."""
    pl, _ = setup([], [])
    assert pl.events_to_register() == [
        ("AssignedPod", ("Add", "UpdatePodLabel", "Delete"),
         "is_schedulable_after_assigned_pod_change"),
        ("TargetPod", ("UpdatePodToleration", "UpdatePodLabel"),
         "is_schedulable_after_target_pod_change"),
        ("Node", ("Add", "Delete", "UpdateNodeLabel", "UpdateNodeTaint"),
         "is_schedulable_after_node_change"),
    ]
    for _, _, method in pl.events_to_register():
        assert callable(getattr(pl, method))


# ----------------------------------------------------------------------------------------------
# plugin_test.go: queueing hints
# ----------------------------------------------------------------------------------------------

_POD_Z = make_pod("p", spreads=(spread(1, "zone", DNS, FOO),))
_POD_ZN = make_pod("p", spreads=(spread(1, "zone", DNS, FOO), spread(1, "node", DNS, FOO)))
_ZN1 = {"zone": "zone1", "node": "node1"}
_T_AAA = (Taint("aaa", "bbb", "NoSchedule"),)
_T_CCC = (Taint("ccc", "bbb", "NoSchedule"),)


@pytest.mark.parametrize("name,pod,old,new,want", [
    ("node updates label which matches topologyKey", _POD_Z,
     N("node-a", {"zone": "zone1"}), N("node-a", {"zone": "zone2"}), QUEUE),
    ("node that doesn't match topologySpreadConstraints updates non-related label", _POD_Z,
     N("node-a", {"foo": "bar1"}), N("node-a", {"foo": "bar2"}), QUEUE_SKIP),
    ("node that match topologySpreadConstraints adds non-related label", _POD_ZN,
     N("node-a", {"zone": "zone1", "node": "node1", "foo": "bar"}), N("node-a", _ZN1),
     QUEUE_SKIP),
    ("create node with non-related labels", _POD_Z, None, N("node-a", {"foo": "bar"}),
     QUEUE_SKIP),
    ("create node with related labels", _POD_Z, None, N("node-a", {"zone": "zone1"}), QUEUE),
    ("delete node with non-related labels", _POD_Z, N("node-a", {"foo": "bar"}), None,
     QUEUE_SKIP),
    ("delete node with related labels", _POD_Z, N("node-a", {"zone": "zone1"}), None, QUEUE),
    ("add node with related labels that only match one of topologySpreadConstraints", _POD_ZN,
     None, N("node-a", {"zone": "zone1"}), QUEUE_SKIP),
    ("add node with related labels that match all topologySpreadConstraints", _POD_ZN,
     None, N("node-a", _ZN1), QUEUE),
    ("update node with related labels that only match one of topologySpreadConstraints",
     _POD_ZN, N("node-a", {"zone": "zone1"}), N("node-a", {"zone": "zone1"}), QUEUE_SKIP),
    ("update node with related labels that match all topologySpreadConstraints", _POD_ZN,
     N("node-a", _ZN1), N("node-a", {"zone": "zone1", "node": "node2"}), QUEUE),
    ("update node with different taints that match all topologySpreadConstraints", _POD_ZN,
     N("node-a", _ZN1, _T_AAA), N("node-a", _ZN1, _T_CCC), QUEUE),
    ("update node with different taints that only match one of topologySpreadConstraints",
     _POD_ZN, N("node-a", {"node": "node1"}, _T_AAA), N("node-a", {"node": "node1"}, _T_CCC),
     QUEUE_SKIP),
])
def test_is_schedulable_after_node_change(name: str, pod: Pod, old: Node | None,
                                          new: Node | None, want: str) -> None:
    """plugin_test.go Test_isSchedulableAfterNodeChange."""
    pl, _ = setup([], [])
    assert pl.is_schedulable_after_node_change(pod, old, new) == (want, None)


def _ap(labels: dict[str, str] | None = None, node: str = "fake-node", ns: str = "",
        nominated: str = "") -> Pod:
    return make_pod("p2", node, labels, ns=ns, nominated=nominated)


_POD_FOO = make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),))
_POD_FOO_BAR = make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, FOO),
                                                    spread(1, "node", DNS, BAR)))


@pytest.mark.parametrize("name,pod,old,new,want", [
    ("add pod with labels match topologySpreadConstraints selector",
     _POD_FOO, None, _ap(FOO_L), QUEUE),
    ("add un-scheduled pod", _POD_FOO, None, _ap(FOO_L, node=""), QUEUE_SKIP),
    ("update un-scheduled pod", _POD_FOO, _ap(BAR_L, node=""), _ap(FOO_L, node=""), QUEUE_SKIP),
    ("delete un-scheduled pod", _POD_FOO, _ap(FOO_L, node=""), None, QUEUE_SKIP),
    ("add pod with different namespace", _POD_FOO, None, _ap(FOO_L, ns="fake-namespace"),
     QUEUE_SKIP),
    ("add pod with labels don't match topologySpreadConstraints selector",
     _POD_FOO, None, _ap(BAR_L), QUEUE_SKIP),
    ("delete pod with labels that match topologySpreadConstraints selector",
     _POD_FOO, _ap(FOO_L), None, QUEUE),
    ("delete nominated pod with labels that don't match topologySpreadConstraints selector",
     _POD_FOO, _ap(BAR_L, node="", nominated="fake-node"), None, QUEUE_SKIP),
    ("delete nominated pod with labels that match topologySpreadConstraints selector",
     _POD_FOO, _ap(FOO_L, node="", nominated="fake-node"), None, QUEUE),
    ("delete pod with labels that don't match topologySpreadConstraints selector",
     _POD_FOO, _ap(BAR_L), None, QUEUE_SKIP),
    ("update pod's non-related label", _POD_FOO, _ap({"foo": "", "bar": "bar1"}),
     _ap({"foo": "", "bar": "bar2"}), QUEUE_SKIP),
    ("add pod's label that matches topologySpreadConstraints selector",
     _POD_FOO, _ap(), _ap(FOO_L), QUEUE),
    ("delete pod label that matches topologySpreadConstraints selector",
     _POD_FOO, _ap(FOO_L), _ap(), QUEUE),
    ("change pod's label that matches topologySpreadConstraints selector",
     _POD_FOO, _ap({"foo": "foo1"}), _ap({"foo": "foo2"}), QUEUE_SKIP),
    ("change pod's label that doesn't match topologySpreadConstraints selector",
     _POD_FOO, _ap({"foo": "", "bar": "bar1"}), _ap({"foo": "", "bar": "bar2"}), QUEUE_SKIP),
    ("add pod's label that matches topologySpreadConstraints selector with multi "
     "topologySpreadConstraints",
     _POD_FOO_BAR, _ap(FOO_L), _ap({"foo": "", "bar": "bar2"}), QUEUE),
    ("change pod's label that doesn't match topologySpreadConstraints selector with multi "
     "topologySpreadConstraints",
     _POD_FOO_BAR, _ap(FOO_L), _ap({"foo": "", "baz": ""}), QUEUE_SKIP),
    ("change pod's label that match topologySpreadConstraints selector with multi "
     "topologySpreadConstraints",
     _POD_FOO_BAR, _ap({"foo": "", "bar": ""}), _ap({"foo": "", "bar": "bar2"}), QUEUE_SKIP),
])
def test_is_schedulable_after_assigned_pod_change(name: str, pod: Pod, old: Pod | None,
                                                  new: Pod | None, want: str) -> None:
    """plugin_test.go Test_isSchedulableAfterAssignedPodChange."""
    pl, _ = setup([], [])
    assert pl.is_schedulable_after_assigned_pod_change(pod, old, new) == (want, None)


def _target(taints_policy: str) -> Pod:
    return make_pod("p", labels=FOO_L, spreads=(
        spread(1, "zone", DNS, FOO, taints_policy=taints_policy), spread(1, "node", DNS, BAR)))


_TOL = (Toleration(key=TAINT_NODE_UNSCHEDULABLE, operator="Exists"),)


@pytest.mark.parametrize("name,pod,old,new,want,node_inclusion", [
    ("the unschedulable Pod has topologySpreadConstraint with NodeTaintsPolicy:Honor and has "
     "got a new toleration",
     _target(HONOR), make_pod("p", labels=FOO_L),
     make_pod("p", labels=FOO_L, tolerations=_TOL), QUEUE, True),
    ("the unschedulable Pod has topologySpreadConstraint without NodeTaintsPolicy:Honor and "
     "has got a new toleration",
     _target(IGNORE), make_pod("p", labels=FOO_L),
     make_pod("p", labels=FOO_L, tolerations=_TOL), QUEUE_SKIP, False),
    ("the unschedulable Pod has topologySpreadConstraint and has got a new label matching the "
     "selector of the constraint",
     _target(IGNORE), make_pod("p"), make_pod("p", labels=FOO_L), QUEUE, False),
    ("the unschedulable Pod has topologySpreadConstraint and has got a new unrelated label",
     _target(IGNORE), make_pod("p"), make_pod("p", labels={"unrelated": ""}), QUEUE_SKIP, False),
])
def test_is_schedulable_after_target_pod_change(name: str, pod: Pod, old: Pod, new: Pod,
                                                want: str, node_inclusion: bool) -> None:
    """plugin_test.go Test_isSchedulableAfterTargetPodChange."""
    pl, _ = setup([], [], node_inclusion=node_inclusion)
    assert pl.is_schedulable_after_target_pod_change(pod, old, new) == (want, None)


# ----------------------------------------------------------------------------------------------
# common.go details not covered by an upstream table case
# ----------------------------------------------------------------------------------------------

def test_empty_selector_counts_no_pods() -> None:
    """common.go countPodsMatchSelector: an empty selector (``labelSelector: {}``) counts no
    existing pod, while the incoming pod still matches itself (Filter's selfMatchNum)."""
    pod = make_pod("p", labels=FOO_L, spreads=(spread(1, "zone", DNS, LabelSelector()),))
    pl, handle = setup(nodes_zone_node(*FOUR_NODES), _pods_a2_b1_y3())
    cs = CycleState()
    pl.pre_filter(cs, pod, handle.snapshot().list())
    s = cs.read(PRE_FILTER_STATE_KEY)
    assert s.tp_value_to_match_num == [{"zone1": 0, "zone2": 0}]
    assert s.self_match == [1]
    assert all(pl.filter(cs, pod, handle.snapshot().get(n)) is None for n in ALL4)


def test_match_label_keys_do_not_turn_a_nil_selector_into_a_selector() -> None:
    """common.go mergeLabelSetWithSelector: ``labels.Nothing()`` has no requirements to merge
    into (``Requirements()`` reports ok=false), so a nil labelSelector stays match-nothing even
    when the pod has the matchLabelKeys key."""
    pod = make_pod("p", labels={"foo": "a"},
                   spreads=(spread(1, "zone", DNS, None, match_label_keys=("foo",)),))
    pl, handle = setup(nodes_zone_node(*FOUR_NODES), _foo_a_pods(), match_label_keys=True)
    cs = CycleState()
    pl.pre_filter(cs, pod, handle.snapshot().list())
    s = cs.read(PRE_FILTER_STATE_KEY)
    assert s.constraints == [C(1, "zone", None)]
    assert s.tp_value_to_match_num == [{"zone1": 0, "zone2": 0}]
    assert s.self_match == [0]
