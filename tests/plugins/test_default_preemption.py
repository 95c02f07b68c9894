"""DefaultPreemption: PostFilter, dry run, candidate selection, eligibility, victims, PreEnqueue.

Cases restate upstream v1.37.2
``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go``: TestPostFilter,
TestDryRunPreemption, TestSelectBestCandidate, TestCustomSelection, TestCustomOrdering,
TestPodEligibleToPreemptOthers, TestPreempt, TestSelectVictimsOnNode, TestPreEnqueue. Each
case names its upstream test and case. Left out: cases that need scheduler extenders (the
reference has none), PodGroups / CompositePodGroups (not in the model; GenericWorkload is off by
default), in-place resize conditions (InPlacePodVerticalScalingSchedulerPreemption, alpha, off)
and DRA node-allocatable claim statuses (DRANodeAllocatableResources, alpha, off).

Upstream builds a real framework with NodeResourcesFit, PodTopologySpread, InterPodAffinity and
test plugins; so do these tests, with the reference's plugins.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

from reference_impl.api.labels import compile_selector
from reference_impl.config.args import DefaultPreemptionArgs
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import FilterPlugin, PreFilterPlugin
from reference_impl.framework.preemption.disruption import PDBStatus
from reference_impl.framework.preemption.preemption import Evaluator
from reference_impl.framework.preemption.types import Candidate
from reference_impl.framework.preemption.util import more_important_victim
from reference_impl.framework.runtime import Diagnosis, Framework, FrameworkHandle
from reference_impl.framework.snapshot import Snapshot
from reference_impl.framework.status import MODE_OVERRIDE, Code, Status
from reference_impl.framework.types import PodInfo
from reference_impl.model.objects import (
    Affinity,
    Container,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodDisruptionBudget,
    TopologySpreadConstraint,
)
from reference_impl.model.quantity import parse_quantity_string
from reference_impl.model.requests import compute_pod_resources, to_resource
from reference_impl.plugins import names
from reference_impl.plugins.defaultpreemption import DefaultPreemption
from reference_impl.plugins.defaultpreemption.default_preemption import (
    ASSIGNED_POD,
    QUEUE_SKIP,
)
from reference_impl.plugins.interpodaffinity.plugin import InterPodAffinity
from reference_impl.plugins.noderesources.fit import Fit
from reference_impl.plugins.podtopologyspread.plugin import PodTopologySpread
from reference_impl.releases import current

SRC = "default_preemption_test.go"

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
ONE_POD = {"pods": "1"}
NODE_RES = {"cpu": "200m", "memory": "400"}
# epochTime, epochTime1.. = time.Unix(0, n): n nanoseconds after the epoch.
EPOCH = [n * 1e-9 for n in range(7)]

VIOLATING_KEY = "test.kubernetes.io/is-violating-pdb"


# ----- builders (pkg/scheduler/testing/wrappers.go) -----------------------------------------------

def qty(s: str) -> Fraction:
    return parse_quantity_string(s)


def make_pod(name: str, *, uid: str | None = None, ns: str = "", priority: int = LOW,
             node: str = "", req: dict[str, str] | None = None,
             labels: dict[str, str] | None = None,
             start: float | None = None, policy: str = "PreemptLowerPriority",
             nominated: str = "", terminating: bool = False, n_containers: int = 0,
             spread: tuple[TopologySpreadConstraint, ...] = (),
             affinity: Affinity | None = None) -> Pod:
    """st.MakePod(): ``req`` adds one container with those requests."""
    containers = [Container(f"container{i + 1}") for i in range(n_containers)]
    if req:
        containers.append(Container(f"con{len(containers)}",
                                    requests=tuple((k, qty(v)) for k, v in req.items())))
    pod = Pod(ns, name, uid if uid is not None else name, labels=dict(labels or {}),
              node_name=node, priority=priority, preemption_policy=policy,
              nominated_node_name=nominated, start_time=start,
              deletion_timestamp=1.0 if terminating else None, containers=tuple(containers),
              topology_spread_constraints=spread, affinity=affinity)
    pod.resources = compute_pod_resources(pod)
    return pod


def make_node(spec: str, capacity: dict[str, str] | None = None,
              labels: dict[str, str] | None = None, split_labels: bool = False) -> Node:
    """st.MakeNode().Name(..).Capacity(..): capacity with 32 pods unless given; no capacity at
    all without ``capacity``. With ``split_labels``, ``spec`` "name/zone/region" also labels
    the node hostname, zone, region (as the tests that split node names on "/" do)."""
    parts = spec.split("/")
    lbl = dict(zip(("hostname", "zone", "region"), parts, strict=False)) if split_labels else {}
    lbl.update(labels or {})
    alloc = {}
    if capacity is not None:
        alloc = {"pods": qty("32")}
        alloc.update((k, qty(v)) for k, v in capacity.items())
    return Node(parts[0], labels=lbl, allocatable=to_resource(alloc))


def exists(key: str) -> LabelSelector:
    return LabelSelector(match_expressions=(LabelSelectorRequirement(key, "Exists"),))


def anti_affinity_exists(key: str, topology_key: str) -> Affinity:
    """PodAntiAffinityExists(key, topologyKey, PodAntiAffinityWithRequiredReq)."""
    return Affinity(pod_anti_affinity=PodAffinity(
        required=(PodAffinityTerm(exists(key), topology_key),)))


def spread(max_skew: int, key: str) -> TopologySpreadConstraint:
    """SpreadConstraint(maxSkew, key, DoNotSchedule, Exists(foo), nil...)."""
    return TopologySpreadConstraint(max_skew, key, "DoNotSchedule", exists("foo"))


def pdb_status(match: dict[str, str] | None, allowed: int, ns: str = "",
               disrupted: tuple[str, ...] = ()) -> PDBStatus:
    """A PDB with ``status.disruptionsAllowed`` (and ``status.disruptedPods``) as given."""
    sel = LabelSelector(match_labels=tuple(sorted(match.items()))) if match else LabelSelector()
    return PDBStatus(ns, "pdb", compile_selector(sel), allowed, frozenset(disrupted))


# ----- test plugins (pkg/scheduler/testing/framework/fake_plugins.go, this test file) ----------

class FakeFilter(FilterPlugin):
    """tf.FakeFilterPlugin: counts calls; a node in the map fails with its code."""

    name = "FakeFilter"

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        self.failed: dict[str, Code] = dict(args or {})
        self.num_filter_called = 0

    def filter(self, state: CycleState, pod: Pod, node_info: Any) -> Status | None:
        self.num_filter_called += 1
        code = self.failed.get(node_info.node.name)
        if code is not None:
            return Status(code, f"injecting failure for pod {pod.name}")
        return None


class FalseFilter(FilterPlugin):
    name = "FalseFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: Any) -> Status | None:
        return Status(Code.UNSCHEDULABLE, "Nodes failed the fake plugin")


class TrueFilter(FilterPlugin):
    name = "TrueFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: Any) -> Status | None:
        return None


class MatchFilter(FilterPlugin):
    name = "MatchFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: Any) -> Status | None:
        if pod.name == node_info.node.name:
            return None
        return Status(Code.UNSCHEDULABLE, "Nodes failed the fake plugin")


class _TestPluginExtensions:
    """TestPlugin's AddPod/RemovePod: an error on nodes labelled error=true."""

    def add_pod(self, state: CycleState, pod: Pod, pi: PodInfo, node_info: Any) -> Status | None:
        if node_info.node.labels.get("error") == "true":
            return Status.as_error(f"failed to add pod: {pod.name}")
        return None

    def remove_pod(self, state: CycleState, pod: Pod, pi: PodInfo,
                   node_info: Any) -> Status | None:
        if node_info.node.labels.get("error") == "true":
            return Status.as_error(f"failed to remove pod: {pod.name}")
        return None


class TestPlugin(PreFilterPlugin, FilterPlugin):
    __test__ = False
    name = "test-plugin"

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list) -> tuple[None, None]:
        return None, None

    def pre_filter_extensions(self) -> _TestPluginExtensions:
        return _TestPluginExtensions()

    def filter(self, state: CycleState, pod: Pod, node_info: Any) -> Status | None:
        return None


REGISTRY: dict[str, type] = {
    names.DefaultPreemption: DefaultPreemption,
    names.NodeResourcesFit: Fit,
    names.PodTopologySpread: PodTopologySpread,
    names.InterPodAffinity: InterPodAffinity,
    "FakeFilter": FakeFilter,
    "FalseFilter": FalseFilter,
    "TrueFilter": TrueFilter,
    "MatchFilter": MatchFilter,
    "test-plugin": TestPlugin,
}


class Env:
    """A framework with DefaultPreemption (PostFilter, PreEnqueue) and the given plugins."""

    def __init__(self, nodes: list[Node], pods: list[Pod], *, filters: tuple[str, ...] = (),
                 pre_filters: tuple[str, ...] = (), plugin_args: dict[str, Any] | None = None,
                 features: dict[str, bool] | None = None, pdbs: list | None = None,
                 dp_args: DefaultPreemptionArgs | None = None,
                 nominated: dict[str, list[Pod]] | None = None,
                 fail_delete: tuple[str, ...] = ()) -> None:
        self.snapshot = Snapshot(nodes, pods)
        self.deleted: list[str] = []
        self.cleared: list[str] = []
        feats = dict(features or {})
        nominated = nominated or {}

        def delete_pod(victim: Pod, preemptor: Pod) -> Status | None:
            if victim.name in fail_delete:
                return Status.as_error("delete pod failed")
            self.deleted.append(victim.name)
            return None

        self.handle = FrameworkHandle(
            self.snapshot, lambda g: feats[g] if g in feats else current.feature_enabled(g), 1,
            nominated_pods_for_node=lambda n: [PodInfo(p) for p in nominated.get(n, [])],
            rng=random.Random(4), pdbs=pdbs or [], delete_pod=delete_pod,
            clear_nominated_node_name=lambda p: self.cleared.append(p.name))
        points = {
            "preEnqueue": [(names.DefaultPreemption, 0)],
            "preFilter": [(n, 0) for n in pre_filters],
            "filter": [(n, 0) for n in filters],
            "postFilter": [(names.DefaultPreemption, 0)],
        }
        args = dict(plugin_args or {})
        args[names.DefaultPreemption] = dp_args
        self.fw = Framework("default-scheduler", points, REGISTRY, args, self.handle)
        self.pl: DefaultPreemption = self.fw.instances[names.DefaultPreemption]  # type: ignore

    def state_for(self, pod: Pod) -> CycleState:
        """A cycle state after PreFilter (upstream tests run PreFilter first)."""
        state = CycleState()
        _, s, _ = self.fw.run_pre_filter_plugins(state, pod)
        assert s is None or s.is_success(), s
        return state

    def sorted_node_infos(self) -> list:
        return sorted(self.snapshot.list(), key=lambda ni: ni.node.name)

    @property
    def fake(self) -> FakeFilter:
        return self.fw.instances["FakeFilter"]  # type: ignore[return-value]


def diagnosis(statuses: dict[str, Code], absent: Code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
              ) -> Diagnosis:
    d = Diagnosis()
    d.node_to_status = {n: Status(c) for n, c in statuses.items()}
    d.absent_nodes_status = Status(absent)
    return d


def candidates_view(cands: list[Candidate]) -> list[tuple[str, list[str], int]]:
    """Candidates sorted by node, victims sorted by name (as upstream's test sorts them)."""
    return sorted((c.name, sorted(p.name for p in c.victims.pods), c.victims.num_pdb_violations)
                  for c in cands)


# ----- TestPostFilter --------------------------------------------------------------------------

U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
FOUND = "preemption: found a potential placement for pod on node {}, preempting 1 victims"

POST_FILTER_CASES = [
    dict(
        name="pod with higher priority can be made schedulable",
        pod=make_pod("p", ns="default", priority=HIGH),
        pods=[make_pod("p1", ns="default", node="node1")],
        nodes=[make_node("node1", ONE_POD)],
        statuses={"node1": U},
        want_node="node1",
        want=(Code.SUCCESS, FOUND.format("node1")),
    ),
    dict(
        name="pod with tied priority is still unschedulable",
        pod=make_pod("p", ns="default"),
        pods=[make_pod("p1", ns="default", node="node1")],
        nodes=[make_node("node1", ONE_POD)],
        statuses={"node1": U},
        want_node="",
        want=(U, "preemption: 0/1 nodes are available: 1 No preemption victims found for "
                 "incoming pod."),
    ),
    dict(
        name="preemption should respect filteredNodesStatuses",
        pod=make_pod("p", ns="default", priority=HIGH),
        pods=[make_pod("p1", ns="default", node="node1")],
        nodes=[make_node("node1", ONE_POD)],
        statuses={"node1": UU},
        want_node="",
        want=(U, "preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
                 "scheduling."),
    ),
    dict(
        name="preemption should respect absent NodeToStatusReader entry meaning "
             "UnschedulableAndUnresolvable",
        pod=make_pod("p", ns="default", priority=HIGH),
        pods=[make_pod("p1", ns="default", node="node1")],
        nodes=[make_node("node1", ONE_POD)],
        statuses={},
        want_node="",
        want=(U, "preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
                 "scheduling."),
    ),
    dict(
        name="pod can be made schedulable on one node",
        pod=make_pod("p", ns="default", priority=MID),
        pods=[make_pod("p1", ns="default", priority=HIGH, node="node1"),
              make_pod("p2", ns="default", priority=LOW, node="node2")],
        nodes=[make_node("node1", ONE_POD), make_node("node2", ONE_POD)],
        statuses={"node1": U, "node2": U},
        want_node="node2",
        want=(Code.SUCCESS, FOUND.format("node2")),
    ),
    dict(
        name="pod can be made schedulable on minHighestPriority node",
        pod=make_pod("p", ns="default", priority=VERY_HIGH),
        pods=[make_pod("p1", ns="default", priority=HIGH, node="node1",
                       labels={VIOLATING_KEY: "non-violating"}),
              make_pod("p2", ns="default", priority=LOW, node="node1",
                       labels={VIOLATING_KEY: "violating"}),
              make_pod("p3", ns="default", priority=MID, node="node2",
                       labels={VIOLATING_KEY: "violating"})],
        # violating-pdb: MinAvailable 100%, status zero (DisruptionsAllowed 0);
        # non-violating-pdb: MinAvailable "0", DisruptionsAllowed MaxInt32.
        pdbs=[PodDisruptionBudget("default", "violating-pdb",
                                  LabelSelector(((VIOLATING_KEY, "violating"),)),
                                  min_available="100%", disruptions_allowed=0),
              PodDisruptionBudget("default", "non-violating-pdb",
                                  LabelSelector(((VIOLATING_KEY, "non-violating"),)),
                                  min_available="0", disruptions_allowed=2**31 - 1)],
        nodes=[make_node("node1", ONE_POD), make_node("node2", ONE_POD)],
        statuses={"node1": U, "node2": U},
        want_node="node2",
        want=(Code.SUCCESS, FOUND.format("node2")),
    ),
    dict(
        name="no candidate nodes found, no enough resource after removing low priority pods",
        pod=make_pod("p", ns="default", priority=HIGH, req=LARGE),
        pods=[make_pod("p1", ns="default", node="node1"),
              make_pod("p2", ns="default", node="node2")],
        nodes=[make_node("node1", NODE_RES), make_node("node2", NODE_RES)],
        statuses={"node1": U, "node2": U},
        want_node="",
        want=(U, "preemption: 0/2 nodes are available: 2 Insufficient cpu."),
    ),
    dict(
        name="no candidate nodes found with mixed reasons, no lower priority pod and no enough "
             "CPU resource",
        pod=make_pod("p", ns="default", priority=HIGH, req=LARGE),
        pods=[make_pod("p1", ns="default", node="node1", priority=HIGH),
              make_pod("p2", ns="default", node="node2"),
              make_pod("p3", ns="default", node="node3", priority=HIGH)],
        nodes=[make_node("node1", ONE_POD), make_node("node2", NODE_RES),
               make_node("node3", ONE_POD)],
        statuses={"node1": U, "node2": U, "node3": U},
        want_node="",
        want=(U, "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption "
                 "victims found for incoming pod."),
    ),
    dict(
        name="no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes "
             "and 2 nodes don't have enough CPU resource",
        pod=make_pod("p", ns="default", priority=HIGH, req=LARGE),
        pods=[make_pod("p1", ns="default", node="node1"),
              make_pod("p2", ns="default", node="node2")],
        nodes=[make_node(f"node{i}", NODE_RES) for i in range(1, 5)],
        statuses={"node1": U, "node2": U, "node4": UU},
        want_node="",
        want=(U, "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not "
                 "helpful for scheduling."),
    ),
    dict(
        name="only one node but failed with TestPlugin",
        pod=make_pod("p", ns="default", priority=HIGH, req=LARGE),
        pods=[make_pod("p1", ns="default", node="node1")],
        nodes=[make_node("node1", LARGE, labels={"error": "true"})],
        statuses={"node1": U},
        want_node=None,
        want=(Code.ERROR, 'preemption: running RemovePod on PreFilter plugin "test-plugin": '
                          "failed to remove pod: p"),
    ),
    dict(
        name="one failed with TestPlugin and the other pass",
        pod=make_pod("p", ns="default", priority=HIGH, req=LARGE),
        pods=[make_pod("p1", ns="default", node="node1"),
              make_pod("p2", ns="default", node="node2", req=MEDIUM)],
        nodes=[make_node("node1", LARGE, labels={"error": "true"}), make_node("node2", LARGE)],
        statuses={"node1": U, "node2": U},
        want_node="node2",
        want=(Code.SUCCESS, FOUND.format("node2")),
    ),
]


@pytest.mark.parametrize("async_preemption", [False, True])
@pytest.mark.parametrize("tc", POST_FILTER_CASES, ids=lambda tc: tc["name"])
def test_post_filter(tc: dict, async_preemption: bool) -> None:
    """default_preemption_test.go TestPostFilter (NodeResourcesFit as PreFilter+Filter,
    test-plugin as PreFilter)."""
    env = Env(tc["nodes"], tc["pods"], pre_filters=(names.NodeResourcesFit, "test-plugin"),
              filters=(names.NodeResourcesFit,), pdbs=tc.get("pdbs"),
              features={"SchedulerAsyncPreemption": async_preemption})
    pod = tc["pod"]
    state = env.state_for(pod)
    result, status = env.pl.post_filter(state, pod, diagnosis(tc["statuses"]))
    code, msg = tc["want"]
    assert status is not None
    assert status.code == code
    assert status.all_reasons() == [msg]
    if tc["want_node"] is None:
        assert result is None
    else:
        assert result is not None and result.nominating_info is not None
        assert result.nominating_info.nominated_node_name == tc["want_node"]
        assert result.nominating_info.mode == MODE_OVERRIDE
    if code == Code.SUCCESS:
        assert len(env.deleted) == 1
        assert [p.name for p in result.victims] == env.deleted


def test_post_filter_pdb_status_computed_from_pods() -> None:
    """TestPostFilter "pod can be made schedulable on minHighestPriority node" with the
    violating PDB's status left out: the disruption controller's count (minAvailable 100% over
    pods without a controller: expected 0) gives DisruptionsAllowed 0, the same outcome."""
    tc = POST_FILTER_CASES[5]
    pdbs = [PodDisruptionBudget("default", "violating-pdb",
                                LabelSelector(((VIOLATING_KEY, "violating"),)),
                                min_available="100%"),
            tc["pdbs"][1]]
    env = Env(tc["nodes"], tc["pods"], pre_filters=(names.NodeResourcesFit,),
              filters=(names.NodeResourcesFit,), pdbs=pdbs)
    result, status = env.pl.post_filter(env.state_for(tc["pod"]), tc["pod"],
                                        diagnosis(tc["statuses"]))
    assert status is not None and status.code == Code.SUCCESS
    assert result.nominating_info.nominated_node_name == "node2"
    assert env.deleted == ["p3"]


# ----- TestDryRunPreemption --------------------------------------------------------------------

def _five_nodes_pods(prios: list[int], labels: list[dict[str, str] | None] | None = None
                     ) -> list[Pod]:
    labels = labels or [None] * 5
    return [make_pod(f"p{i + 1}", node=f"node{i + 1}", priority=prios[i], req=LARGE,
                     labels=labels[i]) for i in range(5)]


DRY_RUN_CASES = [
    dict(name="a pod that does not fit on any node", plugins=("FalseFilter",),
         nodes=["node1", "node2"], test_pods=[make_pod("p", priority=HIGH)],
         init=[make_pod("p1", node="node1", priority=MID),
               make_pod("p2", node="node2", priority=MID)],
         expected=[[]], calls=[2]),
    dict(name="a pod that fits with no preemption", plugins=("TrueFilter",),
         nodes=["node1", "node2"], test_pods=[make_pod("p", priority=HIGH)],
         init=[make_pod("p1", node="node1", priority=MID),
               make_pod("p2", node="node2", priority=MID)],
         fake_rc=U, expected=[[]], calls=[2]),
    dict(name="a pod that fits on one node with no preemption", plugins=("MatchFilter",),
         nodes=["node1", "node2"], test_pods=[make_pod("node1", priority=HIGH)],
         init=[make_pod("p1", node="node1", priority=MID),
               make_pod("p2", node="node2", priority=MID)],
         fake_rc=U, expected=[[]], calls=[2]),
    dict(name="a pod that fits on both nodes when lower priority pods are preempted",
         plugins=("fit",), nodes=["node1", "node2"],
         test_pods=[make_pod("p", priority=HIGH, req=LARGE)],
         init=[make_pod("p1", node="node1", priority=MID, req=LARGE),
               make_pod("p2", node="node2", priority=MID, req=LARGE)],
         expected=[[("node1", ["p1"], 0), ("node2", ["p2"], 0)]], calls=[4]),
    dict(name="a pod that would fit on the nodes, but other pods running are higher priority, "
              "no preemption would happen",
         plugins=("fit",), nodes=["node1", "node2"],
         test_pods=[make_pod("p", priority=LOW, req=LARGE)],
         init=[make_pod("p1", node="node1", priority=MID, req=LARGE),
               make_pod("p2", node="node2", priority=MID, req=LARGE)],
         expected=[[]], calls=[0]),
    dict(name="medium priority pod is preempted, but lower priority one stays as it is small",
         plugins=("fit",), nodes=["node1", "node2"],
         test_pods=[make_pod("p", priority=HIGH, req=LARGE)],
         init=[make_pod("p1.1", node="node1", priority=LOW, req=SMALL),
               make_pod("p1.2", node="node1", priority=MID, req=LARGE),
               make_pod("p2", node="node2", priority=MID, req=LARGE)],
         expected=[[("node1", ["p1.2"], 0), ("node2", ["p2"], 0)]], calls=[5]),
    dict(name="mixed priority pods are preempted", plugins=("fit",), nodes=["node1", "node2"],
         test_pods=[make_pod("p", priority=HIGH, req=LARGE)],
         init=[make_pod("p1.1", node="node1", priority=MID, req=SMALL),
               make_pod("p1.2", node="node1", priority=LOW, req=SMALL),
               make_pod("p1.3", node="node1", priority=MID, req=MEDIUM),
               make_pod("p1.4", node="node1", priority=HIGH, req=SMALL),
               make_pod("p2", node="node2", priority=HIGH, req=LARGE)],
         expected=[[("node1", ["p1.2", "p1.3"], 0)]], calls=[4]),
    dict(name="mixed priority pods are preempted, pick later StartTime one when priorities are "
              "equal",
         plugins=("fit",), nodes=["node1", "node2"],
         test_pods=[make_pod("p", priority=HIGH, req=LARGE)],
         init=[make_pod("p1.1", node="node1", priority=LOW, req=SMALL, start=EPOCH[5]),
               make_pod("p1.2", node="node1", priority=LOW, req=SMALL, start=EPOCH[4]),
               make_pod("p1.3", node="node1", priority=MID, req=MEDIUM, start=EPOCH[3]),
               make_pod("p1.4", node="node1", priority=HIGH, req=SMALL, start=EPOCH[2]),
               make_pod("p2", node="node2", priority=HIGH, req=LARGE, start=EPOCH[1])],
         expected=[[("node1", ["p1.1", "p1.3"], 0)]], calls=[4]),
    dict(name="pod with anti-affinity is preempted", plugins=("fit", "ipa"),
         nodes=["node1", "node2"],
         test_pods=[make_pod("p", labels={"foo": ""}, priority=HIGH, req=SMALL)],
         init=[make_pod("p1.1", node="node1", labels={"foo": ""}, priority=LOW, req=SMALL,
                        affinity=anti_affinity_exists("foo", "hostname")),
               make_pod("p1.2", node="node1", priority=MID, req=SMALL),
               make_pod("p1.3", node="node1", priority=HIGH, req=SMALL),
               make_pod("p2", node="node2", priority=HIGH, req=SMALL)],
         expected=[[("node1", ["p1.1"], 0)]], calls=[3]),
    dict(name="preemption to resolve pod topology spread filter failure", plugins=("pts",),
         nodes=["node-a/zone1", "node-b/zone1", "node-x/zone2"],
         test_pods=[make_pod("p", labels={"foo": ""}, priority=HIGH,
                             spread=(spread(1, "zone"), spread(1, "hostname")))],
         init=[make_pod("pod-a1", node="node-a", labels={"foo": ""}, priority=MID),
               make_pod("pod-a2", node="node-a", labels={"foo": ""}, priority=LOW),
               make_pod("pod-b1", node="node-b", labels={"foo": ""}, priority=LOW),
               make_pod("pod-x1", node="node-x", labels={"foo": ""}, priority=HIGH),
               make_pod("pod-x2", node="node-x", labels={"foo": ""}, priority=HIGH)],
         expected=[[("node-a", ["pod-a2"], 0), ("node-b", ["pod-b1"], 0)]], calls=[5]),
    dict(name="get Unschedulable in the preemption phase when the filter plugins filtering the "
              "nodes",
         plugins=("fit",), nodes=["node1", "node2"],
         test_pods=[make_pod("p", priority=HIGH, req=LARGE)],
         init=[make_pod("p1", node="node1", priority=MID, req=LARGE),
               make_pod("p2", node="node2", priority=MID, req=LARGE)],
         fake_rc=U, expected=[[]], calls=[2]),
    dict(name="preemption with violation of same pdb", plugins=("fit",), nodes=["node1"],
         test_pods=[make_pod("p", priority=HIGH, req=VERY_LARGE)],
         init=[make_pod("p1.1", node="node1", labels={"app": "foo"}, priority=MID, req=MEDIUM),
               make_pod("p1.2", node="node1", labels={"app": "foo"}, priority=MID, req=MEDIUM)],
         pdbs=[pdb_status({"app": "foo"}, 1)],
         expected=[[("node1", ["p1.1", "p1.2"], 1)]], calls=[3]),
    dict(name="preemption with violation of the pdb with pod whose eviction was processed, the "
              "victim doesn't belong to DisruptedPods",
         plugins=("fit",), nodes=["node1"],
         test_pods=[make_pod("p", priority=HIGH, req=VERY_LARGE)],
         init=[make_pod("p1.1", node="node1", labels={"app": "foo"}, priority=MID, req=MEDIUM),
               make_pod("p1.2", node="node1", labels={"app": "foo"}, priority=MID, req=MEDIUM)],
         pdbs=[pdb_status({"app": "foo"}, 1, disrupted=("p2",))],
         expected=[[("node1", ["p1.1", "p1.2"], 1)]], calls=[3]),
    dict(name="preemption with violation of the pdb with pod whose eviction was processed, the "
              "victim belongs to DisruptedPods",
         plugins=("fit",), nodes=["node1"],
         test_pods=[make_pod("p", priority=HIGH, req=VERY_LARGE)],
         init=[make_pod("p1.1", node="node1", labels={"app": "foo"}, priority=MID, req=MEDIUM),
               make_pod("p1.2", node="node1", labels={"app": "foo"}, priority=MID, req=MEDIUM)],
         pdbs=[pdb_status({"app": "foo"}, 1, disrupted=("p1.2",))],
         expected=[[("node1", ["p1.1", "p1.2"], 0)]], calls=[3]),
    dict(name="preemption with violation of the pdb with pod whose eviction was processed, the "
              "victim which belongs to DisruptedPods is treated as 'nonViolating'",
         plugins=("fit",), nodes=["node1"],
         test_pods=[make_pod("p", priority=HIGH, req=VERY_LARGE)],
         init=[make_pod(f"p1.{i}", node="node1", labels={"app": "foo"}, priority=MID,
                        req=MEDIUM) for i in (1, 2, 3)],
         pdbs=[pdb_status({"app": "foo"}, 1, disrupted=("p1.3",))],
         expected=[[("node1", ["p1.1", "p1.2", "p1.3"], 1)]], calls=[4]),
    dict(name="all nodes are possible candidates, but DefaultPreemptionArgs limits to 2",
         args=DefaultPreemptionArgs(40, 1), plugins=("fit",),
         nodes=[f"node{i}" for i in range(1, 6)],
         test_pods=[make_pod("p", priority=HIGH, req=LARGE)],
         init=_five_nodes_pods([MID] * 5), offsets=[4],
         # cycle=0 => offset=4 => node5 (yes), node1 (yes)
         expected=[[("node1", ["p1"], 0), ("node5", ["p5"], 0)]], calls=[4]),
    dict(name="some nodes are not possible candidates, DefaultPreemptionArgs limits to 2",
         args=DefaultPreemptionArgs(40, 1), plugins=("fit",),
         nodes=[f"node{i}" for i in range(1, 6)],
         test_pods=[make_pod("p", priority=HIGH, req=LARGE)],
         init=_five_nodes_pods([MID, VERY_HIGH, MID, MID, VERY_HIGH]), offsets=[4],
         # cycle=0 => offset=4 => node5 (no), node1 (yes), node2 (no), node3 (yes)
         expected=[[("node1", ["p1"], 0), ("node3", ["p3"], 0)]], calls=[4]),
    dict(name="preemption offset across multiple scheduling cycles and wrap around",
         args=DefaultPreemptionArgs(40, 1), plugins=("fit",),
         nodes=[f"node{i}" for i in range(1, 6)],
         test_pods=[make_pod(f"tp{i}", priority=HIGH, req=LARGE) for i in (1, 2, 3)],
         init=_five_nodes_pods([MID] * 5), offsets=[4, 1, 3],
         expected=[[("node1", ["p1"], 0), ("node5", ["p5"], 0)],
                   [("node2", ["p2"], 0), ("node3", ["p3"], 0)],
                   [("node4", ["p4"], 0), ("node5", ["p5"], 0)]],
         calls=[4, 4, 4]),
    dict(name="preemption looks past numCandidates until a non-PDB violating node is found",
         args=DefaultPreemptionArgs(40, 2), plugins=("fit",),
         nodes=[f"node{i}" for i in range(1, 6)],
         test_pods=[make_pod("p", priority=HIGH, req=LARGE)],
         init=_five_nodes_pods([MID] * 5, [{"app": "foo"}, {"app": "foo"}, None, None,
                                           {"app": "foo"}]),
         pdbs=[pdb_status({"app": "foo"}, 0)], offsets=[4],
         # cycle=0 => offset=4 => node5 (yes, pdb), node1 (yes, pdb), node2 (no, pdb),
         # node3 (yes)
         expected=[[("node1", ["p1"], 1), ("node3", ["p3"], 0), ("node5", ["p5"], 1)]],
         calls=[8]),
]

_PLUGIN_SETS = {
    "fit": ((names.NodeResourcesFit,), (names.NodeResourcesFit,)),
    "ipa": ((names.InterPodAffinity,), (names.InterPodAffinity,)),
    "pts": ((names.PodTopologySpread,), (names.PodTopologySpread,)),
}


def _env_for_dry_run(tc: dict) -> Env:
    pre: list[str] = []
    filters = ["FakeFilter"]
    for p in tc["plugins"]:
        if p in _PLUGIN_SETS:
            pre += _PLUGIN_SETS[p][0]
            filters += _PLUGIN_SETS[p][1]
        else:
            filters.append(p)
    nodes = [make_node(n, VERY_LARGE, split_labels=True) for n in tc["nodes"]]
    fake_rc = tc.get("fake_rc")
    fake_map = {n.name: fake_rc for n in nodes} if fake_rc is not None else {}
    return Env(nodes, tc["init"], pre_filters=tuple(pre), filters=tuple(filters),
               plugin_args={"FakeFilter": fake_map}, dp_args=tc.get("args"))


@pytest.mark.parametrize("tc", DRY_RUN_CASES, ids=lambda tc: tc["name"])
def test_dry_run_preemption(tc: dict) -> None:
    """default_preemption_test.go TestDryRunPreemption: candidates (sorted) and the number of
    FakeFilter calls per cycle. Offsets are upstream's rand.NewSource(4) draws where the case
    depends on them (4, 1, 3); with the default args every node is a candidate anyway."""
    env = _env_for_dry_run(tc)
    node_infos = env.sorted_node_infos()
    pdbs = tc.get("pdbs", [])
    prev = 0
    for cycle, pod in enumerate(tc["test_pods"]):
        state = env.state_for(pod)
        n = len(node_infos)
        offset = tc.get("offsets", [0] * len(tc["test_pods"]))[cycle]
        num = env.pl.calculate_num_candidates(n)
        got, _, _ = env.pl.evaluator.dry_run_preemption(state, pod, node_infos, pdbs, offset, num)
        assert candidates_view(got) == tc["expected"][cycle]
        assert env.fake.num_filter_called - prev == tc["calls"][cycle]
        prev = env.fake.num_filter_called


def test_dry_run_preemption_order_and_statuses() -> None:
    """DryRunPreemption returns non-violating candidates before violating ones, each in the
    order the nodes were checked from the offset (with one worker); nodes that are not
    candidates get their status ("preemption looks past numCandidates..." case)."""
    tc = DRY_RUN_CASES[-1]
    env = _env_for_dry_run(tc)
    node_infos = env.sorted_node_infos()
    pod = tc["test_pods"][0]
    got, statuses, err = env.pl.evaluator.dry_run_preemption(
        env.state_for(pod), pod, node_infos, tc["pdbs"], 4, 2)
    assert [c.name for c in got] == ["node3", "node5", "node1"]
    assert err is None
    assert statuses.node_to_status == {}  # node2 was a (dropped) candidate: no status


# ----- TestSelectBestCandidate -----------------------------------------------------------------

def _nodes_pods(spec: list[tuple[str, str, int, dict[str, str], float]]) -> list[Pod]:
    return [make_pod(name, node=node, priority=prio, req=req, start=start)
            for name, node, prio, req, start in spec]


E0 = EPOCH[0]
SELECT_BEST_CASES = [
    dict(name="a pod that fits on both nodes when lower priority pods are preempted",
         nodes=["node1", "node2"], pod=make_pod("p", priority=HIGH, req=LARGE),
         pods=_nodes_pods([("p1", "node1", MID, LARGE, E0), ("p2", "node2", MID, LARGE, E0)]),
         expected=["node1", "node2"]),
    dict(name="node with min highest priority pod is picked", nodes=["node1", "node2", "node3"],
         pod=make_pod("p", priority=HIGH, req=VERY_LARGE),
         pods=_nodes_pods([("p1.1", "node1", MID, MEDIUM, E0), ("p1.2", "node1", MID, LARGE, E0),
                           ("p2.1", "node2", MID, MEDIUM, E0), ("p2.2", "node2", LOW, MEDIUM, E0),
                           ("p3.1", "node3", LOW, MEDIUM, E0), ("p3.2", "node3", LOW, MEDIUM, E0)]),
         expected=["node3"]),
    dict(name="when highest priorities are the same, minimum sum of priorities is picked",
         nodes=["node1", "node2", "node3"], pod=make_pod("p", priority=HIGH, req=VERY_LARGE),
         pods=_nodes_pods([("p1.1", "node1", MID, MEDIUM, E0), ("p1.2", "node1", MID, LARGE, E0),
                           ("p2.1", "node2", MID, LARGE, E0), ("p2.2", "node2", LOW, MEDIUM, E0),
                           ("p3.1", "node3", MID, MEDIUM, E0), ("p3.2", "node3", MID, MEDIUM, E0)]),
         expected=["node2"]),
    dict(name="when highest priority and sum are the same, minimum number of pods is picked",
         nodes=["node1", "node2", "node3"], pod=make_pod("p", priority=HIGH, req=VERY_LARGE),
         pods=_nodes_pods([("p1.1", "node1", MID, SMALL, E0), ("p1.2", "node1", NEG, SMALL, E0),
                           ("p1.3", "node1", MID, SMALL, E0), ("p1.4", "node1", NEG, SMALL, E0),
                           ("p2.1", "node2", MID, LARGE, E0), ("p2.2", "node2", NEG, MEDIUM, E0),
                           ("p3.1", "node3", MID, MEDIUM, E0), ("p3.2", "node3", NEG, SMALL, E0),
                           ("p3.3", "node3", LOW, SMALL, E0)]),
         expected=["node2"]),
    dict(name="sum of adjusted priorities is considered", nodes=["node1", "node2", "node3"],
         pod=make_pod("p", priority=HIGH, req=VERY_LARGE),
         pods=_nodes_pods([("p1.1", "node1", MID, SMALL, E0), ("p1.2", "node1", NEG, SMALL, E0),
                           ("p1.3", "node1", NEG, SMALL, E0), ("p2.1", "node2", MID, LARGE, E0),
                           ("p2.2", "node2", NEG, MEDIUM, E0), ("p3.1", "node3", MID, MEDIUM, E0),
                           ("p3.2", "node3", NEG, SMALL, E0), ("p3.3", "node3", LOW, SMALL, E0)]),
         expected=["node2"]),
    dict(name="non-overlapping lowest high priority, sum priorities, and number of pods",
         nodes=["node1", "node2", "node3", "node4"],
         pod=make_pod("p", priority=VERY_HIGH, req=VERY_LARGE),
         pods=_nodes_pods([("p1.1", "node1", MID, SMALL, E0), ("p1.2", "node1", LOW, SMALL, E0),
                           ("p1.3", "node1", LOW, SMALL, E0), ("p2.1", "node2", HIGH, LARGE, E0),
                           ("p3.1", "node3", MID, MEDIUM, E0), ("p3.2", "node3", LOW, SMALL, E0),
                           ("p3.3", "node3", LOW, SMALL, E0), ("p3.4", "node3", LOW, MEDIUM, E0),
                           ("p4.1", "node4", MID, MEDIUM, E0), ("p4.2", "node4", MID, SMALL, E0),
                           ("p4.3", "node4", MID, SMALL, E0), ("p4.4", "node4", NEG, SMALL, E0)]),
         expected=["node1"]),
    dict(name="same priority, same number of victims, different start time for each node's pod",
         nodes=["node1", "node2", "node3"], pod=make_pod("p", priority=HIGH, req=VERY_LARGE),
         pods=_nodes_pods([("p1.1", "node1", MID, MEDIUM, EPOCH[2]),
                           ("p1.2", "node1", MID, MEDIUM, EPOCH[2]),
                           ("p2.1", "node2", MID, MEDIUM, EPOCH[3]),
                           ("p2.2", "node2", MID, MEDIUM, EPOCH[3]),
                           ("p3.1", "node3", MID, MEDIUM, EPOCH[1]),
                           ("p3.2", "node3", MID, MEDIUM, EPOCH[1])]),
         expected=["node2"]),
    dict(name="same priority, same number of victims, different start time for all pods",
         nodes=["node1", "node2", "node3"], pod=make_pod("p", priority=HIGH, req=VERY_LARGE),
         pods=_nodes_pods([("p1.1", "node1", MID, MEDIUM, EPOCH[4]),
                           ("p1.2", "node1", MID, MEDIUM, EPOCH[2]),
                           ("p2.1", "node2", MID, MEDIUM, EPOCH[5]),
                           ("p2.2", "node2", MID, MEDIUM, EPOCH[1]),
                           ("p3.1", "node3", MID, MEDIUM, EPOCH[3]),
                           ("p3.2", "node3", MID, MEDIUM, EPOCH[6])]),
         expected=["node3"]),
    dict(name="different priority, same number of victims, different start time for all pods",
         nodes=["node1", "node2", "node3"], pod=make_pod("p", priority=HIGH, req=VERY_LARGE),
         pods=_nodes_pods([("p1.1", "node1", LOW, MEDIUM, EPOCH[4]),
                           ("p1.2", "node1", MID, MEDIUM, EPOCH[2]),
                           ("p2.1", "node2", MID, MEDIUM, EPOCH[6]),
                           ("p2.2", "node2", LOW, MEDIUM, EPOCH[1]),
                           ("p3.1", "node3", LOW, MEDIUM, EPOCH[3]),
                           ("p3.2", "node3", MID, MEDIUM, EPOCH[5])]),
         expected=["node2"]),
]


@pytest.mark.parametrize("tc", SELECT_BEST_CASES, ids=lambda tc: tc["name"])
def test_select_best_candidate(tc: dict) -> None:
    """default_preemption_test.go TestSelectBestCandidate."""
    nodes = [make_node(n, VERY_LARGE) for n in tc["nodes"]]
    env = Env(nodes, tc["pods"], pre_filters=(names.NodeResourcesFit,),
              filters=(names.NodeResourcesFit,))
    pod = tc["pod"]
    state = env.state_for(pod)
    node_infos = env.snapshot.list()
    offset, num = env.pl.get_offset_and_num_candidates(len(node_infos))
    cands, _, _ = env.pl.evaluator.dry_run_preemption(state, pod, node_infos, [], offset, num)
    best = env.pl.evaluator.select_candidate(cands)
    assert best is not None and best.name in tc["expected"]


# ----- TestCustomSelection ---------------------------------------------------------------------

def victim_labels_are_eligible(key: str, val: str):
    def f(node_info: Any, victim: Any, preemptor: Pod) -> bool:
        return all(pi.pod.labels.get(key) == val for pi in victim.pods)
    return f


def node_name_is_eligible(name: str):
    return lambda node_info, victim, preemptor: node_info.node.name == name


def priority_below_threshold_cannot_preempt(min_preempting: int):
    return lambda node_info, victim, preemptor: preemptor.priority >= min_preempting


def priority_above_threshold_cannot_be_preempted(max_preemptible: int):
    return lambda node_info, victim, preemptor: victim.priority <= max_preemptible


def _labelled_pods() -> list[Pod]:
    return [make_pod("v1", labels={"preemptible": "no"}, node="node1", priority=MID, req=LARGE,
                     start=E0),
            make_pod("v2", labels={"preemptible": "yes"}, node="node2", priority=MID, req=LARGE,
                     start=E0),
            make_pod("v3", labels={"preemptible": "yes"}, node="node3", priority=LOW, req=LARGE,
                     start=E0),
            make_pod("v4", node="node4", priority=LOW, req=LARGE, start=E0)]


def _node1_pods(v1_req: dict[str, str]) -> list[Pod]:
    return [make_pod("v1", node="node1", priority=HIGH, req=v1_req, start=E0),
            make_pod("v2", node="node1", priority=MID, req=SMALL, start=E0),
            make_pod("v3", node="node1", priority=LOW, req=SMALL, start=E0),
            make_pod("v4", node="node2", priority=MID, req=LARGE, start=E0),
            make_pod("v5", node="node3", priority=LOW, req=LARGE, start=E0)]


def _three_pods() -> list[Pod]:
    return [make_pod("v1", node="node1", priority=HIGH, req=LARGE, start=E0),
            make_pod("v2", node="node2", priority=MID, req=LARGE, start=E0),
            make_pod("v3", node="node3", priority=LOW, req=LARGE, start=E0)]


N4 = ["node1", "node2", "node3", "node4"]
N3 = ["node1", "node2", "node3"]
CUSTOM_SELECTION_CASES = [
    dict(name="filter for matching pod label: high priority",
         eligible=victim_labels_are_eligible("preemptible", "yes"), nodes=N4,
         pod=make_pod("p1", priority=HIGH, req=LARGE), pods=_labelled_pods(),
         expected={"node2": ["v2"], "node3": ["v3"]}),
    dict(name="filter for matching pod label: mid priority",
         eligible=victim_labels_are_eligible("preemptible", "yes"), nodes=N4,
         pod=make_pod("p2", priority=MID, req=LARGE), pods=_labelled_pods(),
         expected={"node3": ["v3"]}),
    dict(name="filter for matching pod label: low priority",
         eligible=victim_labels_are_eligible("preemptible", "yes"), nodes=N4,
         pod=make_pod("p3", priority=LOW, req=LARGE), pods=_labelled_pods(), expected={}),
    dict(name="filter for matching victim node: high priority",
         eligible=node_name_is_eligible("node1"), nodes=N3,
         pod=make_pod("p3", priority=HIGH, req=LARGE), pods=_node1_pods(MEDIUM),
         expected={"node1": ["v2", "v3"]}),
    dict(name="filter for matching victim node: mid priority",
         eligible=node_name_is_eligible("node1"), nodes=N3,
         pod=make_pod("p3", priority=MID, req=LARGE), pods=_node1_pods(SMALL),
         expected={"node1": ["v3"]}),
    dict(name="filter for matching victim node: low priority",
         eligible=node_name_is_eligible("node1"), nodes=N3,
         pod=make_pod("p3", priority=LOW, req=LARGE), pods=_node1_pods(SMALL), expected={}),
    dict(name="only pods at or above specified priority can preempted: high priority",
         eligible=priority_below_threshold_cannot_preempt(HIGH), nodes=N3,
         pod=make_pod("p1", priority=HIGH, req=LARGE), pods=_three_pods(),
         expected={"node2": ["v2"], "node3": ["v3"]}),
    dict(name="only pods at or above specified priority can preempted: mid priority",
         eligible=priority_below_threshold_cannot_preempt(HIGH), nodes=N3,
         pod=make_pod("p2", priority=MID, req=LARGE), pods=_three_pods(), expected={}),
    dict(name="only pods at or below specified priority can be preempted: high priority",
         eligible=priority_above_threshold_cannot_be_preempted(MID), nodes=N3,
         pod=make_pod("p1", priority=HIGH, req=LARGE), pods=_three_pods(),
         expected={"node2": ["v2"], "node3": ["v3"]}),
]


@pytest.mark.parametrize("tc", CUSTOM_SELECTION_CASES, ids=lambda tc: tc["name"])
def test_custom_selection(tc: dict) -> None:
    """default_preemption_test.go TestCustomSelection (the cases without pod groups): an
    IsEligiblePod hook; every candidate is eventually selected with its victims."""
    nodes = [make_node(n, VERY_LARGE) for n in tc["nodes"]]
    env = Env(nodes, tc["pods"], pre_filters=(names.NodeResourcesFit,),
              filters=(names.NodeResourcesFit,))
    env.pl.is_eligible_pod = tc["eligible"]
    pod = tc["pod"]
    state = env.state_for(pod)
    node_infos = env.snapshot.list()
    offset, num = env.pl.get_offset_and_num_candidates(len(node_infos))
    cands, _, _ = env.pl.evaluator.dry_run_preemption(state, pod, node_infos, [], offset, num)
    assert len(cands) == len(tc["expected"])
    while cands:
        selected = env.pl.evaluator.select_candidate(cands)
        assert selected is not None and selected.name in tc["expected"]
        assert sorted(p.name for p in selected.victims.pods) == sorted(
            tc["expected"][selected.name])
        cands = [c for c in cands if c.name != selected.name]


# ----- TestCustomOrdering ----------------------------------------------------------------------

def order_by_oldest_start_victim(vi1: Any, vi2: Any) -> bool:
    from reference_impl.framework.preemption.gosort import sort_slice
    from reference_impl.framework.preemption.schedutil import get_pod_start_time, time_before

    def oldest(a: PodInfo, b: PodInfo) -> bool:
        return time_before(get_pod_start_time(a.pod), get_pod_start_time(b.pod))
    sort_slice(vi1.pods, oldest)
    sort_slice(vi2.pods, oldest)
    return time_before(get_pod_start_time(vi1.pods[0].pod), get_pod_start_time(vi2.pods[0].pod))


def order_by_pod_name_victim(vi1: Any, vi2: Any) -> bool:
    vi1.pods.sort(key=lambda pi: pi.pod.name)
    vi2.pods.sort(key=lambda pi: pi.pod.name)
    return vi1.pods[0].pod.name < vi2.pods[0].pod.name


CUSTOM_ORDERING_CASES = [
    dict(name="select newest pods", order=order_by_oldest_start_victim,
         preemptor=make_pod("p2", priority=HIGH, req=LARGE),
         pods=[make_pod("v1", node="node1", priority=LOW, req=MEDIUM, start=EPOCH[2]),
               make_pod("v2", node="node1", priority=LOW, req=MEDIUM, start=EPOCH[0]),
               make_pod("v3", node="node1", priority=LOW, req=MEDIUM, start=EPOCH[1])],
         expected=["v3", "v1"]),
    dict(name="select alphabetically-last pods", order=order_by_pod_name_victim,
         preemptor=make_pod("p2", priority=HIGH, req=LARGE),
         pods=[make_pod("foo", uid="v1", node="node1", priority=LOW, req=MEDIUM, start=E0),
               make_pod("bar", uid="v2", node="node1", priority=LOW, req=MEDIUM, start=E0),
               make_pod("baz", uid="v3", node="node1", priority=MID, req=MEDIUM, start=E0)],
         expected=["baz", "foo"]),
]


@pytest.mark.parametrize("tc", CUSTOM_ORDERING_CASES, ids=lambda tc: tc["name"])
def test_custom_ordering(tc: dict) -> None:
    """default_preemption_test.go TestCustomOrdering (the cases without pod groups): a
    MoreImportantVictim hook; the victims' order is kept."""
    env = Env([make_node("node1", VERY_LARGE)], tc["pods"], pre_filters=(names.NodeResourcesFit,),
              filters=(names.NodeResourcesFit,), features={"GenericWorkload": True})
    env.pl.more_important_victim = tc["order"]
    pod = tc["preemptor"]
    state = env.state_for(pod)
    node_infos = env.snapshot.list()
    offset, num = env.pl.get_offset_and_num_candidates(len(node_infos))
    cands, _, _ = env.pl.evaluator.dry_run_preemption(state, pod, node_infos, [], offset, num)
    assert len(cands) == 1
    assert [p.name for p in cands[0].victims.pods] == tc["expected"]


# ----- TestPodEligibleToPreemptOthers ----------------------------------------------------------

ELIGIBLE_CASES = [
    dict(name="Pod with nominated node",
         pod=make_pod("p_with_nominated_node", uid="p", priority=HIGH, nominated="node1"),
         pods=[make_pod("p1", priority=LOW, node="node1", terminating=True)], nodes=["node1"],
         status=Status(UU, "node(s) had untolerated taint(s)"), expected=True),
    dict(name="Pod without nominated node",
         pod=make_pod("p_without_nominated_node", uid="p", priority=HIGH), pods=[], nodes=[],
         status=None, expected=True),
    dict(name="Pod with 'PreemptNever' preemption policy",
         pod=make_pod("p_with_preempt_never_policy", uid="p", priority=HIGH, policy="Never"),
         pods=[], nodes=[], status=None, expected=False),
    dict(name="preemption victim pod terminating, as indicated by the dedicated DisruptionTarget "
              "condition",
         pod=make_pod("p_with_nominated_node", uid="p", priority=HIGH, nominated="node1"),
         pods=[make_pod("p1", priority=LOW, node="node1", terminating=True)], nodes=["node1"],
         disruption_target=("p1",), status=None, expected=False),
    dict(name="non-victim Pods terminating",
         pod=make_pod("p_with_nominated_node", uid="p", priority=HIGH, nominated="node1"),
         pods=[make_pod("p1", priority=LOW, node="node1", terminating=True)], nodes=["node1"],
         status=None, expected=True),
]


@pytest.mark.parametrize("tc", ELIGIBLE_CASES, ids=lambda tc: tc["name"])
def test_pod_eligible_to_preempt_others(tc: dict) -> None:
    """default_preemption_test.go TestPodEligibleToPreemptOthers (cases without pod groups).
    The DisruptionTarget=True/PreemptionByScheduler condition is the executor's record of the
    pods it preempted."""
    env = Env([make_node(n) for n in tc["nodes"]], tc["pods"])
    env.pl.executor.disruption_targets.update(tc.get("disruption_target", ()))
    ok, msg = env.pl.pod_eligible_to_preempt_others(tc["pod"], tc["status"])
    assert ok is tc["expected"]
    if tc["name"] == "Pod with 'PreemptNever' preemption policy":
        assert msg == "not eligible due to preemptionPolicy=Never."
    if tc["name"].startswith("preemption victim pod terminating"):
        assert msg == "not eligible due to a terminating pod on the nominated node."


def test_post_filter_not_eligible_message() -> None:
    """PostFilter of a pod with preemptionPolicy Never: <nil, Unschedulable "preemption: not
    eligible due to preemptionPolicy=Never.">."""
    env = Env([make_node("node1", ONE_POD)], [make_pod("p1", node="node1")],
              pre_filters=(names.NodeResourcesFit,), filters=(names.NodeResourcesFit,))
    pod = make_pod("p", priority=HIGH, policy="Never")
    result, status = env.pl.post_filter(env.state_for(pod), pod, diagnosis({"node1": U}))
    assert result is None
    assert status == Status(U, "preemption: not eligible due to preemptionPolicy=Never.")


# ----- TestPreempt -----------------------------------------------------------------------------

PREEMPT_CASES = [
    dict(name="basic preemption logic",
         preemptor=make_pod("p", ns="default", priority=HIGH, req=VERY_LARGE),
         pods=[make_pod("p1.1", node="node1", priority=LOW, req=SMALL),
               make_pod("p1.2", node="node1", priority=LOW, req=SMALL),
               make_pod("p2.1", node="node2", priority=HIGH, req=LARGE),
               make_pod("p3.1", node="node3", priority=MID, req=MEDIUM)],
         nodes=N3, plugin="fit", want="node1", expected=["p1.1", "p1.2"]),
    dict(name="preemption for topology spread constraints",
         preemptor=make_pod("p", ns="default", labels={"foo": ""}, priority=HIGH,
                            spread=(spread(1, "zone"), spread(1, "hostname"))),
         pods=[make_pod("p-a1", ns="default", node="node-a", labels={"foo": ""}, priority=HIGH),
               make_pod("p-a2", ns="default", node="node-a", labels={"foo": ""}, priority=HIGH),
               make_pod("p-b1", ns="default", node="node-b", labels={"foo": ""}, priority=LOW),
               make_pod("p-x1", ns="default", node="node-x", labels={"foo": ""}, priority=HIGH),
               make_pod("p-x2", ns="default", node="node-x", labels={"foo": ""}, priority=HIGH)],
         nodes=["node-a/zone1", "node-b/zone1", "node-x/zone2"], plugin="pts", want="node-b",
         expected=["p-b1"]),
    dict(name="no preempting in pod",
         preemptor=make_pod("p", ns="default", priority=HIGH, req=VERY_LARGE, policy="Never"),
         pods=[make_pod("p1.1", ns="default", node="node1", priority=LOW, req=SMALL),
               make_pod("p1.2", ns="default", node="node1", priority=LOW, req=SMALL),
               make_pod("p2.1", ns="default", node="node2", priority=HIGH, req=LARGE),
               make_pod("p3.1", ns="default", node="node3", priority=MID, req=MEDIUM)],
         nodes=N3, plugin="fit", want=None, expected=[]),
    dict(name="PreemptionPolicy is nil",
         preemptor=make_pod("p", ns="default", priority=HIGH, req=VERY_LARGE),
         pods=[make_pod("p1.1", ns="default", node="node1", priority=LOW, req=SMALL),
               make_pod("p1.2", ns="default", node="node1", priority=LOW, req=SMALL),
               make_pod("p2.1", ns="default", node="node2", priority=HIGH, req=LARGE),
               make_pod("p3.1", ns="default", node="node3", priority=MID, req=MEDIUM)],
         nodes=N3, plugin="fit", want="node1", expected=["p1.1", "p1.2"]),
]


@pytest.mark.parametrize("async_preemption", [True, False])
@pytest.mark.parametrize("tc", PREEMPT_CASES, ids=lambda tc: tc["name"])
def test_preempt(tc: dict, async_preemption: bool) -> None:
    """default_preemption_test.go TestPreempt (cases without extenders): the nominated node,
    the deleted victims (the DisruptionTarget condition is recorded for each), and a second
    Preempt after the victims started terminating preempts nothing more."""
    pre, filt = _PLUGIN_SETS[tc["plugin"]]
    nodes = [make_node(n, VERY_LARGE, split_labels=True) for n in tc["nodes"]]
    pods = tc["pods"]
    env = Env(nodes, pods, pre_filters=pre, filters=filt,
              features={"SchedulerAsyncPreemption": async_preemption})
    preemptor = tc["preemptor"]
    m = diagnosis({n.name: U for n in nodes})
    res, status = env.pl.evaluator.preempt(env.state_for(preemptor), preemptor, m)
    assert status.is_success() or status.is_rejected()
    if tc["want"] is None:
        assert res is None
    else:
        assert res is not None and res.nominating_info.nominated_node_name == tc["want"]
    assert sorted(env.deleted) == sorted(tc["expected"])
    by_name = {p.name: p for p in pods}
    assert env.pl.executor.disruption_targets == {by_name[n].uid for n in env.deleted}
    assert env.pl.pre_enqueue(preemptor) is None  # the goroutine already finished
    # Second round: the victims are terminating, the pod is nominated; nothing more happens.
    for name in env.deleted:
        by_name[name].deletion_timestamp = 1.0
    before = list(env.deleted)
    if res is not None:
        preemptor.nominated_node_name = res.nominating_info.nominated_node_name
    try:
        res2, status2 = env.pl.evaluator.preempt(CycleState(), preemptor, Diagnosis())
        assert status2.is_success() or status2.is_rejected()
        assert env.deleted == before
        if tc["want"] is not None:
            assert res2 is not None and res2.nominating_info.nominated_node_name == ""
    finally:
        preemptor.nominated_node_name = ""
        for name in before:
            by_name[name].deletion_timestamp = None


def test_preempt_terminating_victims_block_new_preemption() -> None:
    """PodEligibleToPreemptOthers after a preemption: while the victims on the nominated node
    terminate (condition set by the executor), a new attempt whose nominated node is merely
    Unschedulable is not eligible (TestPreempt's second Preempt with the node Unschedulable)."""
    tc = PREEMPT_CASES[0]
    env = Env([make_node(n, VERY_LARGE) for n in tc["nodes"]], tc["pods"],
              pre_filters=(names.NodeResourcesFit,), filters=(names.NodeResourcesFit,))
    preemptor = make_pod("p", ns="default", priority=HIGH, req=VERY_LARGE)
    m = diagnosis({n: U for n in ("node1", "node2", "node3")})
    res, _ = env.pl.evaluator.preempt(env.state_for(preemptor), preemptor, m)
    assert res.nominating_info.nominated_node_name == "node1"
    for p in tc["pods"]:
        if p.name in env.deleted:
            p.deletion_timestamp = 1.0
    preemptor.nominated_node_name = "node1"
    try:
        res2, status2 = env.pl.post_filter(CycleState(), preemptor, m)
        assert res2 is None
        assert status2 == Status(U, "preemption: not eligible due to a terminating pod on the "
                                    "nominated node.")
    finally:
        for p in tc["pods"]:
            p.deletion_timestamp = None


# ----- TestSelectVictimsOnNode -----------------------------------------------------------------

SELECT_VICTIMS_CASES = [
    dict(name="Basic: Preempt single lower priority pod",
         init=[make_pod("victim", uid="v1", node="node1", priority=LOW, req=LARGE)],
         preemptor=make_pod("p", priority=HIGH, req=LARGE), expected={"victim"}, violating=0),
    dict(name="Priority: Prefer lower priority victim",
         init=[make_pod("high-prio", uid="v3", node="node1", priority=HIGH, req=SMALL),
               make_pod("mid-prio", uid="v2", node="node1", priority=MID, req=SMALL),
               make_pod("low-prio", uid="v1", node="node1", priority=LOW, req=SMALL)],
         preemptor=make_pod("p", priority=HIGH, req=LARGE), expected={"low-prio"}, violating=0),
    dict(name="PDB: Prefer non-violating victim with higher priority over violating victim with "
              "lower priority",
         init=[make_pod("victim-pdb", uid="v1", node="node1", labels={"app": "foo"},
                        priority=LOW, req=MEDIUM),
               make_pod("victim-no-pdb", uid="v2", node="node1", priority=MID, req=MEDIUM)],
         pdbs=[pdb_status({"app": "foo"}, 0)],
         preemptor=make_pod("p", priority=HIGH, req=LARGE), expected={"victim-no-pdb"},
         violating=0),
    dict(name="PDB: Prefer lower prioirity pod for preemption, when preemption without pdb "
              "violation is not possible",
         init=[make_pod("v1", node="node1", labels={"app": "foo"}, priority=LOW, req=MEDIUM),
               make_pod("v2", node="node1", labels={"app": "foo"}, priority=MID, req=MEDIUM)],
         pdbs=[pdb_status({"app": "foo"}, 0)],
         preemptor=make_pod("p", priority=HIGH, req=LARGE), expected={"v1"}, violating=1),
    dict(name="Failure: Cannot preempt the victim with higher priority",
         init=[make_pod("victim", uid="v1", node="node1", priority=HIGH)],
         preemptor=make_pod("p", priority=MID), status=UU),
    dict(name="Failure: Cannot preempt if node is empty", init=[],
         preemptor=make_pod("p", priority=MID), status=UU),
]


@pytest.mark.parametrize("tc", SELECT_VICTIMS_CASES, ids=lambda tc: tc["name"])
def test_select_victims_on_node(tc: dict) -> None:
    """default_preemption_test.go TestSelectVictimsOnNode (cases without pod groups):
    FakeFilter and NodeResourcesFit filters, victims of GetVictimsOnNode."""
    env = Env([make_node("node1", VERY_LARGE, split_labels=True)], tc["init"],
              pre_filters=(names.NodeResourcesFit,),
              filters=("FakeFilter", names.NodeResourcesFit))
    pod = tc["preemptor"]
    state = env.state_for(pod)
    ni = env.snapshot.get("node1")
    victims = env.pl.evaluator.get_victims_on_node(ni)
    pods, n_violating, status = env.pl.select_victims_on_node(
        state, pod, ni, victims, tc.get("pdbs", []))
    want = tc.get("status")
    if want is not None:
        assert status is not None and status.code == want
        return
    assert status is None
    assert n_violating == tc["violating"]
    assert {p.name for p in pods} == tc["expected"]
    # The snapshot's node is untouched (the plugin works on a copy).
    assert len(ni.pods) == len(tc["init"])


def test_select_victims_orders_by_importance_when_both_kinds_evicted() -> None:
    """SelectVictimsOnNode re-sorts the victims by importance when violating and
    non-violating victims were both evicted (the violating ones were tried first)."""
    init = [make_pod("pdb-low", node="node1", labels={"app": "foo"}, priority=LOW, req=MEDIUM),
            make_pod("mid", node="node1", priority=MID, req=MEDIUM),
            make_pod("neg", node="node1", priority=NEG, req=MEDIUM)]
    env = Env([make_node("node1", VERY_LARGE)], init, pre_filters=(names.NodeResourcesFit,),
              filters=(names.NodeResourcesFit,))
    pod = make_pod("p", priority=HIGH, req=VERY_LARGE)
    ni = env.snapshot.get("node1")
    pods, n_violating, status = env.pl.select_victims_on_node(
        env.state_for(pod), pod, ni, env.pl.evaluator.get_victims_on_node(ni),
        [pdb_status({"app": "foo"}, 0)])
    assert status is None and n_violating == 1
    assert [p.name for p in pods] == ["mid", "pdb-low", "neg"]


# ----- TestPreEnqueue / EventsToRegister -------------------------------------------------------

PRE_ENQUEUE_CASES = [
    dict(name="AsyncPreemption disabled, returns nil", trigger="p", check="p", async_=False,
         want=None),
    dict(name="AsyncPreemption enabled, same pod, returns UnschedulableAndUnresolvable",
         trigger="p", check="p", async_=True,
         want=Status(UU, "waiting for the preemption for this pod to be finished")),
    dict(name="AsyncPreemption enabled, different pod, returns nil", trigger="p",
         check="p_other", async_=True, want=None),
]


@pytest.mark.parametrize("tc", PRE_ENQUEUE_CASES, ids=lambda tc: tc["name"])
def test_pre_enqueue(tc: dict) -> None:
    """default_preemption_test.go TestPreEnqueue (cases without pod groups): the preemption's
    goroutine is held back (``run_async`` defers it) while PreEnqueue is asked."""
    env = Env([make_node("node1", ONE_POD)], [make_pod("p1", ns="default", node="node1")],
              pre_filters=(names.NodeResourcesFit,), filters=(names.NodeResourcesFit,),
              features={"SchedulerAsyncPreemption": tc["async_"]})
    pending: list = []
    env.pl.executor.run_async = pending.append
    pods = {n: make_pod(n, ns="default", priority=HIGH) for n in ("p", "p_other")}
    trigger = pods[tc["trigger"]]
    result, status = env.pl.post_filter(env.state_for(trigger), trigger, diagnosis({"node1": U}))
    assert status.code == Code.SUCCESS
    assert env.pl.pre_enqueue(pods[tc["check"]]) == tc["want"]
    for fn in pending:
        fn()
    assert env.pl.pre_enqueue(pods[tc["check"]]) is None
    assert env.deleted == ["p1"]


def test_async_preemption_order_and_deferred_deletion() -> None:
    """Async preemption (executor.go prepareCandidateAsync): PostFilter nominates at once;
    the deletions wait for the goroutine, which clears the lower-priority nominations before
    deleting. Sync preemption deletes first, then clears."""
    events: list[str] = []
    for async_ in (True, False):
        events.clear()
        nominated = {"node1": [make_pod("low-nominated", priority=LOW),
                               make_pod("high-nominated", priority=VERY_HIGH)]}
        # Two pod slots: p1 and the higher-priority nominated pod fill them.
        env = Env([make_node("node1", {"pods": "2"})],
                  [make_pod("p1", ns="default", node="node1")],
                  pre_filters=(names.NodeResourcesFit,), filters=(names.NodeResourcesFit,),
                  features={"SchedulerAsyncPreemption": async_}, nominated=nominated)
        env.handle._delete_pod = lambda v, p: events.append(f"delete {v.name}")  # type: ignore
        env.handle._clear_nnn = lambda p: events.append(f"clear {p.name}")  # type: ignore
        pending: list = []
        env.pl.executor.run_async = pending.append
        pod = make_pod("p", ns="default", priority=HIGH)
        result, status = env.pl.post_filter(env.state_for(pod), pod, diagnosis({"node1": U}))
        assert result.nominating_info.nominated_node_name == "node1"
        if async_:
            assert events == [] and len(pending) == 1
            pending[0]()
            assert events == ["clear low-nominated", "delete p1"]
        else:
            assert pending == []
            assert events == ["delete p1", "clear low-nominated"]


def test_sync_preemption_delete_error_fails_post_filter() -> None:
    """executor.go prepareCandidate: a failed DELETE is an Error status (sync mode); async mode
    still succeeds and activates the preemptor."""
    env = Env([make_node("node1", ONE_POD)], [make_pod("p1", ns="default", node="node1")],
              pre_filters=(names.NodeResourcesFit,), filters=(names.NodeResourcesFit,),
              features={"SchedulerAsyncPreemption": False}, fail_delete=("p1",))
    pod = make_pod("p", ns="default", priority=HIGH)
    result, status = env.pl.post_filter(env.state_for(pod), pod, diagnosis({"node1": U}))
    assert result is None
    assert status.code == Code.ERROR and status.all_reasons() == ["preemption: delete pod failed"]

    env = Env([make_node("node1", ONE_POD)], [make_pod("p1", ns="default", node="node1")],
              pre_filters=(names.NodeResourcesFit,), filters=(names.NodeResourcesFit,),
              features={"SchedulerAsyncPreemption": True}, fail_delete=("p1",))
    activated: list[dict] = []
    env.pl.executor.activate = activated.append
    result, status = env.pl.post_filter(env.state_for(pod), pod, diagnosis({"node1": U}))
    assert status.code == Code.SUCCESS
    assert activated == [{"p": pod}]


def test_events_to_register() -> None:
    """DefaultPreemption.EventsToRegister: AssignedPod/Delete (hint QueueSkip) with async
    preemption; none without."""
    env = Env([make_node("node1")], [], features={"SchedulerAsyncPreemption": True})
    events = env.pl.events_to_register()
    assert events == [(ASSIGNED_POD, ("Delete",), "is_pod_schedulable_after_assigned_pod_deletion")]
    hint = getattr(env.pl, events[0][2])(make_pod("p"), make_pod("q", node="node1"), None)
    assert hint == (QUEUE_SKIP, None)
    env = Env([make_node("node1")], [], features={"SchedulerAsyncPreemption": False})
    assert env.pl.events_to_register() == []


# ----- calculateNumCandidates / GetOffsetAndNumCandidates ---------------------------------------

@pytest.mark.parametrize("num_nodes,pct,abs_,want", [
    # (default_preemption.go calculateNumCandidates)
    (10, 5, 0, 0), (10, 10, 0, 1), (100, 10, 0, 10), (5000, 10, 100, 500), (50, 10, 100, 50),
    (200, 10, 100, 100), (999, 10, 1, 99), (3, 0, 1, 1),
])
def test_calculate_num_candidates(num_nodes: int, pct: int, abs_: int, want: int) -> None:
    """calculateNumCandidates: n*pct/100 (integer division), at least the absolute minimum,
    at most the number of nodes."""
    env = Env([make_node("node1")], [], dp_args=DefaultPreemptionArgs(pct, abs_))
    assert env.pl.calculate_num_candidates(num_nodes) == want


def test_get_offset_uses_handle_rng() -> None:
    """GetOffsetAndNumCandidates: the offset is rng.randrange(n) of the scheduler's seeded
    rng (rand.Int31n(n) upstream)."""
    env = Env([make_node("node1")], [])
    env.handle.rng = random.Random(99)
    expected = random.Random(99).randrange(7)
    assert env.pl.get_offset_and_num_candidates(7) == (expected, 7)


def test_default_hooks() -> None:
    """New: IsEligiblePod allows everything, MoreImportantVictim is the default ordering."""
    env = Env([make_node("node1")], [])
    assert env.pl.more_important_victim is more_important_victim
    assert isinstance(env.pl.evaluator, Evaluator)
