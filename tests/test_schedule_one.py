"""One scheduling attempt: ``SchedulingCore`` (schedulePod, findNodesThatFitPod,
evaluateNominatedNode, findNodesThatPassFilters, prioritizeNodes), ``num_feasible_nodes_to_find``
and ``FitError.message``.

Cases restate upstream v1.37.2 ``pkg/scheduler/schedule_one_test.go`` (TestSchedulerSchedulePod,
TestFindFitAllError, TestFindFitSomeError, TestFindFitPredicateCallCounts,
TestNumFeasibleNodesToFind, TestFairEvaluationForNodes, TestPreferNominatedNodeFilterCallCounts,
TestEvaluateNominatedNode) and ``pkg/scheduler/framework/types_test.go`` (TestFitError_Error),
with local copies of upstream's fake plugins (``pkg/scheduler/testing/framework/
fake_plugins.go`` and the ones in schedule_one_test.go). Cases marked "derived" follow the code
of ``pkg/scheduler/schedule_one.go`` where upstream has no unit test.

Upstream's ``internalcache.NewSnapshot`` lists nodes in Go map order, so its tests accept any of
a set of nodes (``wantNodes``); the same sets are asserted here. Left out: the extender cases
(no extenders), the VolumeBinding cases (PVCs are not modelled), placements (GenericWorkload off
by default). TestZeroRequest does not exist in v1.37.2's schedule_one_test.go.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from reference_impl.config.args import PodTopologySpreadArgs
from reference_impl.config.plugins import PluginEntry
from reference_impl.config.types import Profile, SchedulerConfiguration
from reference_impl.framework import interfaces as itf
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.runtime import Diagnosis, Framework, FrameworkHandle
from reference_impl.framework.snapshot import Snapshot
from reference_impl.framework.status import (
    MODE_OVERRIDE,
    Code,
    NominatingInfo,
    PluginError,
    PreFilterResult,
    Status,
)
from reference_impl.framework.types import PodInfo
from reference_impl.model.objects import (
    Cluster,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    TopologySpreadConstraint,
)
from reference_impl.model.requests import compute_pod_resources
from reference_impl.plugins import names
from reference_impl.plugins.defaultbinder import DefaultBinder
from reference_impl.plugins.podtopologyspread.plugin import PodTopologySpread
from reference_impl.plugins.queuesort import PrioritySort
from reference_impl.releases import current
from reference_impl.scheduler.nominator import Nominator
from reference_impl.scheduler.schedule_one import (
    FitError,
    NoNodesAvailable,
    SchedulingCore,
    SchedulingError,
    assumed_copy,
    num_feasible_nodes_to_find,
)
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.testing.wrappers import make_node

S = Code.SUCCESS
E = Code.ERROR
U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
SK = Code.SKIP

ERR_REASON_FAKE = "Nodes failed the fake plugin"  # tf.ErrReasonFake
ERR_PRIORITIZE = "priority map encounters an error"  # errPrioritize
LOW_PRIORITY, MID_PRIORITY, HIGH_PRIORITY = 0, 100, 1000


# ----- builders (st.MakePod / makeNodeList) ---------------------------------------------------

def mkpod(name: str, uid: str | None = None, *, node: str = "", priority: int = 0,
          nnn: str = "", labels: dict[str, str] | None = None,
          spread: tuple[TopologySpreadConstraint, ...] = ()) -> Pod:
    pod = Pod("", name, name if uid is None else uid, node_name=node, priority=priority,
              nominated_node_name=nnn, labels=dict(labels or {}),
              topology_spread_constraints=spread)
    pod.resources = compute_pod_resources(pod)
    return pod


def hostname_nodes(*node_names: str) -> list[Node]:
    """Nodes with the kubernetes.io/hostname label, as TestSchedulerSchedulePod's."""
    return [make_node(n).hostname().obj() for n in node_names]


def plain_nodes(*node_names: str) -> list[Node]:
    """makeNodeList."""
    return [make_node(n).obj() for n in node_names]


# ----- fake plugins ---------------------------------------------------------------------------

class Named:
    def __init__(self, name: str) -> None:
        self.args = None
        self.handle = None
        self.name = name


class TrueFilter(itf.FilterPlugin):
    name = "TrueFilter"

    def filter(self, state, pod, node_info):
        return None


class FalseFilter(itf.FilterPlugin):
    name = "FalseFilter"

    def filter(self, state, pod, node_info):
        return Status(U, ERR_REASON_FAKE)


class MatchFilter(itf.FilterPlugin):
    """Success when the pod's name equals the node's."""

    name = "MatchFilter"

    def filter(self, state, pod, node_info):
        return None if pod.name == node_info.node.name else Status(U, ERR_REASON_FAKE)


class NoPodsFilter(itf.FilterPlugin):
    name = "NoPodsFilter"

    def filter(self, state, pod, node_info):
        return None if not node_info.pods else Status(U, ERR_REASON_FAKE)


class FakeFilter(itf.FilterPlugin):
    """``FakeFilterPlugin``: counts calls; nodes in the map get that code with
    "injecting failure for pod <name>"."""

    name = "FakeFilter"

    def __init__(self, codes: dict[str, Code] | None = None) -> None:
        super().__init__(None, None)
        self.codes = codes or {}
        self.num_filter_called = 0

    def filter(self, state, pod, node_info):
        self.num_filter_called += 1
        code = self.codes.get(node_info.node.name)
        if code is not None:
            return Status(code, f"injecting failure for pod {pod.name}")
        return None


class FakePreFilter(Named, itf.PreFilterPlugin):
    def __init__(self, name: str, result: PreFilterResult | None, status: Status | None):
        super().__init__(name)
        self.result = result
        self.status = status

    def pre_filter(self, state, pod, nodes):
        return self.result, self.status


class FakePreFilterAndFilter(itf.PreFilterPlugin, itf.FilterPlugin):
    """``FakePreFilterAndFilterPlugin``: PreFilter returns the given status; Filter behaves as
    FakeFilter."""

    name = "FakePreFilterAndFilterPlugin"

    def __init__(self, pre_filter_status: Status | None, codes: dict[str, Code]) -> None:
        super().__init__(None, None)
        self.pre_filter_status = pre_filter_status
        self.inner = FakeFilter(codes)

    def pre_filter(self, state, pod, nodes):
        return None, self.pre_filter_status

    def filter(self, state, pod, node_info):
        return self.inner.filter(state, pod, node_info)


class NumericMap(itf.ScorePlugin):
    """Score = the node name as an integer."""

    name = "NumericMap"

    def score(self, state, pod, node_info):
        try:
            return int(node_info.node.name)
        except ValueError:
            raise PluginError(f"Error converting nodename to int: {node_info.node.name}") from None


class ReverseNumericMap(NumericMap):
    """Score = the node name as an integer; NormalizeScore = max + min - score."""

    name = "ReverseNumericMap"
    has_normalize_score = True

    def normalize_score(self, state, pod, scores):
        hi = max(s[1] for s in scores)
        lo = min(s[1] for s in scores)
        for s in scores:
            s[1] = hi + lo - s[1]
        return None


class TrueMap(itf.ScorePlugin):
    name = "TrueMap"
    has_normalize_score = True

    def score(self, state, pod, node_info):
        return 1

    def normalize_score(self, state, pod, scores):
        if any(s[0] == "" for s in scores):
            return Status(E, "unexpected empty host name")
        return None


class FalseMap(itf.ScorePlugin):
    name = "FalseMap"

    def score(self, state, pod, node_info):
        raise PluginError(ERR_PRIORITIZE)


class FakePreScoreAndScore(Named, itf.PreScorePlugin, itf.ScorePlugin):
    """``FakePreScoreAndScorePlugin`` (``NewEqualPrioritizerPlugin`` is the one named
    "EqualPrioritizerPlugin" with score 1)."""

    def __init__(self, name: str, score: int, pre_score_status: Status | None = None,
                 score_status: Status | None = None) -> None:
        super().__init__(name)
        self.score_value = score
        self.pre_score_status = pre_score_status
        self.score_status = score_status
        self.pre_score_calls = self.score_calls = 0

    def pre_score(self, state, pod, nodes):
        self.pre_score_calls += 1
        return self.pre_score_status

    def score(self, state, pod, node_info):
        self.score_calls += 1
        if self.score_status is not None and not self.score_status.is_success():
            raise PluginError(self.score_status.message())
        return self.score_value


def equal_prioritizer() -> FakePreScoreAndScore:
    return FakePreScoreAndScore("EqualPrioritizerPlugin", 1)


def spread_plugin() -> Callable:
    """podtopologyspread.New with empty args (no default constraints), as
    ``podTopologySpreadFunc`` with tf.NewFramework's profile."""
    return lambda args, handle: PodTopologySpread(PodTopologySpreadArgs(defaulting_type="List"),
                                                  handle)


# ----- framework / scheduler builders ---------------------------------------------------------

def reg(points: str | tuple[str, ...], plugin, weight: int = 0, name: str | None = None):
    """tf.RegisterFilterPlugin / RegisterScorePlugin / RegisterPluginAsExtensions: a plugin
    instance (or a factory, then ``name`` is its registry name) at the given points."""
    if isinstance(points, str):
        points = (points,)
    return points, plugin, weight, name


def build(regs: list, nodes: list[Node], pods: list[Pod] = (), *, percentage: int = 0,
          profile_percentage: int | None = None, nominator: Nominator | None = None,
          batching: bool = True) -> tuple[SchedulingCore, Framework]:
    """A scheduler with one profile made of ``regs`` over a snapshot of ``nodes``/``pods``
    (tf.NewFramework + the Scheduler struct of the upstream tests;
    DefaultPercentageOfNodesToScore is 0)."""
    snapshot = Snapshot(nodes, list(pods))
    nominator = nominator or Nominator()
    registry: dict = {}
    plugins: dict[str, list[tuple[str, int]]] = {}
    for points, plugin, weight, name in regs:
        if name is None:
            name = plugin.name
            registry[name] = (lambda i: (lambda args, handle: i))(plugin)
        else:
            registry[name] = plugin
        for point in points:
            plugins.setdefault(point, []).append((name, weight if point == "score" else 0))
    handle = FrameworkHandle(snapshot, current.feature_enabled, 1,
                             nominated_pods_for_node=nominator.nominated_pods_for_node)
    fwk = Framework("default-scheduler", plugins, registry, {}, handle, profile_percentage)
    core = SchedulingCore(snapshot, {"default-scheduler": fwk}, percentage, nominator,
                          batching=batching)
    return core, fwk


def schedule(core: SchedulingCore, fwk: Framework, pod: Pod):
    return core.schedule_pod(fwk, CycleState(), pod, None)


def statuses(d: Diagnosis) -> dict[str, tuple[Code, list[str], str]]:
    return {n: (s.code, s.all_reasons(), s.plugin) for n, s in d.node_to_status.items()}


def triple(s: Status) -> tuple[Code, list[str], str]:
    return (s.code, s.all_reasons(), s.plugin)


# ----- TestSchedulerSchedulePod ---------------------------------------------------------------

def fit(num: int, node_to_status: dict, unsched: set[str], *,
        absent: tuple = (UU, [], ""), pre_filter_msg: str = "") -> dict:
    return dict(fit=True, num=num, node_to_status=node_to_status, unsched=unsched,
                absent=absent, pre_filter_msg=pre_filter_msg)


def fake(plugin: str, code: Code = U, reason: str = ERR_REASON_FAKE) -> tuple:
    return (code, [reason], plugin)


SPREAD_SELECTOR = LabelSelector(match_expressions=(LabelSelectorRequirement("foo", "Exists"),))


def spread(max_skew: int) -> tuple[TopologySpreadConstraint, ...]:
    return (TopologySpreadConstraint(max_skew, "kubernetes.io/hostname", "DoNotSchedule",
                                     SPREAD_SELECTOR),)


SCHEDULE_POD_CASES = [
    dict(name="test 1",
         regs=lambda: [reg("filter", FalseFilter())],
         nodes=hostname_nodes("node1", "node2"), pod=mkpod("2"),
         want=fit(2, {"node1": fake("FalseFilter"), "node2": fake("FalseFilter")},
                  {"FalseFilter"})),
    dict(name="test 2",
         regs=lambda: [reg("filter", TrueFilter()), reg("score", equal_prioritizer(), 1)],
         nodes=hostname_nodes("node1", "node2"), pod=mkpod("ignore"),
         want_nodes={"node1", "node2"}),
    dict(name="test 3",  # Fits on a node where the pod ID matches the node name
         regs=lambda: [reg("filter", MatchFilter())],
         nodes=hostname_nodes("node1", "node2"), pod=mkpod("node2"), want_nodes={"node2"}),
    dict(name="test 4",
         regs=lambda: [reg("filter", TrueFilter()), reg("score", NumericMap(), 1)],
         nodes=hostname_nodes("3", "2", "1"), pod=mkpod("ignore"), want_nodes={"3"}),
    dict(name="test 5",
         regs=lambda: [reg("filter", MatchFilter()), reg("score", NumericMap(), 1)],
         nodes=hostname_nodes("3", "2", "1"), pod=mkpod("2"), want_nodes={"2"}),
    dict(name="test 6",
         regs=lambda: [reg("filter", TrueFilter()), reg("score", NumericMap(), 1),
                       reg("score", ReverseNumericMap(), 2)],
         nodes=hostname_nodes("3", "2", "1"), pod=mkpod("2"), want_nodes={"1"}),
    dict(name="test 7",
         regs=lambda: [reg("filter", TrueFilter()), reg("filter", FalseFilter()),
                       reg("score", NumericMap(), 1)],
         nodes=hostname_nodes("3", "2", "1"), pod=mkpod("2"),
         want=fit(3, {n: fake("FalseFilter") for n in ("3", "2", "1")}, {"FalseFilter"})),
    dict(name="test 8",
         regs=lambda: [reg("filter", NoPodsFilter()), reg("filter", MatchFilter()),
                       reg("score", NumericMap(), 1)],
         nodes=hostname_nodes("1", "2"), pods=[mkpod("2", node="2")], pod=mkpod("2"),
         want=fit(2, {"1": fake("MatchFilter"), "2": fake("NoPodsFilter")},
                  {"MatchFilter", "NoPodsFilter"})),
    dict(name="test error with priority map",
         regs=lambda: [reg("filter", TrueFilter()), reg("score", FalseMap(), 1),
                       reg("score", TrueMap(), 2)],
         nodes=hostname_nodes("2", "1"), pod=mkpod("2"),
         want_error=f'running Score plugins: plugin "FalseMap" failed with: {ERR_PRIORITIZE}'),
    dict(name="test podtopologyspread plugin - 2 nodes with maxskew=1",
         regs=lambda: [reg(("preFilter", "filter"), spread_plugin(),
                           name=names.PodTopologySpread)],
         nodes=hostname_nodes("node1", "node2"),
         pods=[mkpod("pod1", labels={"foo": ""}, node="node1")],
         pod=mkpod("p", labels={"foo": ""}, spread=spread(1)), want_nodes={"node2"}),
    dict(name="test podtopologyspread plugin - 3 nodes with maxskew=2",
         regs=lambda: [reg(("preFilter", "filter"), spread_plugin(),
                           name=names.PodTopologySpread),
                       reg("score", equal_prioritizer(), 1)],
         nodes=hostname_nodes("node1", "node2", "node3"),
         pods=[mkpod("pod1a", labels={"foo": ""}, node="node1"),
               mkpod("pod1b", labels={"foo": ""}, node="node1"),
               mkpod("pod2", labels={"foo": ""}, node="node2")],
         pod=mkpod("p", labels={"foo": ""}, spread=spread(2)), want_nodes={"node2", "node3"}),
    dict(name="test with filter plugin returning Unschedulable status",
         regs=lambda: [reg("filter", FakeFilter({"3": U})), reg("score", NumericMap(), 1)],
         nodes=hostname_nodes("3"), pod=mkpod("test-filter"),
         want=fit(1, {"3": fake("FakeFilter", U, "injecting failure for pod test-filter")},
                  {"FakeFilter"})),
    dict(name="test with filter plugin returning UnschedulableAndUnresolvable status",
         regs=lambda: [reg("filter", FakeFilter({"3": UU})), reg("score", NumericMap(), 1)],
         nodes=hostname_nodes("3"), pod=mkpod("test-filter"),
         want=fit(1, {"3": fake("FakeFilter", UU, "injecting failure for pod test-filter")},
                  {"FakeFilter"})),
    dict(name="test with partial failed filter plugin",
         regs=lambda: [reg("filter", FakeFilter({"1": U})), reg("score", NumericMap(), 1)],
         nodes=hostname_nodes("1", "2"), pod=mkpod("test-filter"), want_nodes=None),
    dict(name="test prefilter plugin returning Unschedulable status",
         regs=lambda: [reg("preFilter", FakePreFilter(
             "FakePreFilter", None, Status(UU, "injected unschedulable status")))],
         nodes=hostname_nodes("1", "2"), pod=mkpod("test-prefilter"),
         want=fit(2, {}, {"FakePreFilter"},
                  absent=(UU, ["injected unschedulable status"], "FakePreFilter"),
                  pre_filter_msg="injected unschedulable status")),
    dict(name="test prefilter plugin returning error status",
         regs=lambda: [reg("preFilter", FakePreFilter(
             "FakePreFilter", None, Status(E, "injected error status")))],
         nodes=hostname_nodes("1", "2"), pod=mkpod("test-prefilter"),
         want_error='running PreFilter plugin "FakePreFilter": injected error status'),
    dict(name="test prefilter plugin returning node",
         regs=lambda: [
             reg("preFilter", FakePreFilter("FakePreFilter1", None, None)),
             reg("preFilter", FakePreFilter("FakePreFilter2", PreFilterResult({"node2"}), None)),
             reg("preFilter", FakePreFilter("FakePreFilter3",
                                            PreFilterResult({"node1", "node2"}), None))],
         nodes=hostname_nodes("node1", "node2", "node3"), pod=mkpod("test-prefilter"),
         want_nodes={"node2"}, want_evaluated=1),
    dict(name="test prefilter plugin returning non-intersecting nodes",
         regs=lambda: [
             reg("preFilter", FakePreFilter("FakePreFilter1", None, None)),
             reg("preFilter", FakePreFilter("FakePreFilter2", PreFilterResult({"node2"}), None)),
             reg("preFilter", FakePreFilter("FakePreFilter3", PreFilterResult({"node1"}), None))],
         nodes=hostname_nodes("node1", "node2", "node3"), pod=mkpod("test-prefilter"),
         want=fit(3, {}, {"FakePreFilter2", "FakePreFilter3"},
                  absent=(UU, ["node(s) didn't satisfy plugin(s) [FakePreFilter2 FakePreFilter3]"
                               " simultaneously"], ""),
                  pre_filter_msg="node(s) didn't satisfy plugin(s) [FakePreFilter2 "
                                 "FakePreFilter3] simultaneously")),
    dict(name="test prefilter plugin returning empty node set",
         regs=lambda: [
             reg("preFilter", FakePreFilter("FakePreFilter1", None, None)),
             reg("preFilter", FakePreFilter("FakePreFilter2", PreFilterResult(set()), None))],
         nodes=hostname_nodes("node1"), pod=mkpod("test-prefilter"),
         want=fit(1, {}, {"FakePreFilter2"},
                  absent=(UU, ["node(s) didn't satisfy plugin FakePreFilter2"], ""),
                  pre_filter_msg="node(s) didn't satisfy plugin FakePreFilter2")),
    dict(name="test some nodes are filtered out by prefilter plugin and other are filtered out "
              "by filter plugin",
         regs=lambda: [
             reg("preFilter", FakePreFilter("FakePreFilter", PreFilterResult({"node2"}), None)),
             reg("filter", FakeFilter({"node2": U}))],
         nodes=hostname_nodes("node1", "node2"), pod=mkpod("test-prefilter"),
         want=fit(2, {"node2": fake("FakeFilter", U, "injecting failure for pod test-prefilter")},
                  {"FakePreFilter", "FakeFilter"},
                  absent=(UU, ["node(s) didn't satisfy plugin(s) [FakePreFilter]"], ""))),
    dict(name="test prefilter plugin returning skip",
         regs=lambda: [
             reg("preFilter", FakePreFilter("FakeFilter1", None, None)),
             reg("filter", FakeFilter({"node1": U})),
             # This Filter must not run (its PreFilter returned Skip): it errors on all nodes.
             reg(("preFilter", "filter"), FakePreFilterAndFilter(
                 Status(SK), {"node1": E, "node2": E, "node3": E})),
             reg("score", equal_prioritizer(), 1)],
         nodes=hostname_nodes("node1", "node2", "node3"), pod=mkpod("test-prefilter"),
         want_nodes={"node2", "node3"}, want_evaluated=3),
    dict(name="test all prescore plugins return skip",
         regs=lambda: [
             reg("filter", TrueFilter()),
             reg(("preScore", "score"), FakePreScoreAndScore(
                 "FakePreScoreAndScorePlugin", 0, Status(SK, "fake skip"),
                 Status(E, "this score function shouldn't be executed because this plugin "
                           "returned Skip in the PreScore")), 1)],
         nodes=hostname_nodes("node1", "node2"), pod=mkpod("ignore"),
         want_nodes={"node1", "node2"}),
    dict(name="test without score plugin no extra nodes are evaluated",
         regs=lambda: [reg("filter", TrueFilter())],
         nodes=hostname_nodes("node1", "node2", "node3"), pod=mkpod("pod1"),
         want_nodes={"node1", "node2", "node3"}, want_evaluated=1),
    dict(name="test no score plugin, prefilter plugin returning 2 nodes",
         regs=lambda: [reg("preFilter", FakePreFilter(
             "FakePreFilter", PreFilterResult({"node1", "node2"}), None))],
         nodes=hostname_nodes("node1", "node2", "node3"), pod=mkpod("test-prefilter"),
         want_nodes={"node1", "node2"}, want_evaluated=1),
    dict(name="test prefilter plugin returned an invalid node",
         regs=lambda: [reg("preFilter", FakePreFilter(
             "FakePreFilter", PreFilterResult({"invalid-node"}), None)),
             reg("filter", TrueFilter())],
         nodes=hostname_nodes("1", "2"), pod=mkpod("test-prefilter"),
         want=fit(2, {}, {"FakePreFilter"},
                  absent=(UU, ["node(s) didn't satisfy plugin(s) [FakePreFilter]"], ""))),
]


@pytest.mark.parametrize("case", SCHEDULE_POD_CASES, ids=[c["name"] for c in SCHEDULE_POD_CASES])
def test_scheduler_schedule_pod(case):
    """schedule_one_test.go TestSchedulerSchedulePod."""
    core, fwk = build(case["regs"](), case["nodes"], case.get("pods", []))
    pod = case["pod"]
    want = case.get("want")
    if want is not None:
        with pytest.raises(FitError) as exc:
            schedule(core, fwk, pod)
        d = exc.value.diagnosis
        assert exc.value.pod is pod
        assert exc.value.num_all_nodes == want["num"]
        assert statuses(d) == want["node_to_status"]
        assert triple(d.absent_nodes_status) == want["absent"]
        assert d.unschedulable_plugins == want["unsched"]
        assert d.pending_plugins == set()
        assert d.pre_filter_msg == want["pre_filter_msg"]
        assert d.post_filter_msg == ""
        return
    if "want_error" in case:
        with pytest.raises(SchedulingError) as exc:
            schedule(core, fwk, pod)
        assert str(exc.value) == case["want_error"]
        return
    result = schedule(core, fwk, pod)
    if case.get("want_nodes") is not None:
        assert result.suggested_host in case["want_nodes"]
    assert result.evaluated_nodes == case.get("want_evaluated", len(case["nodes"]))


def test_prescore_skip_means_score_is_not_called():
    """TestSchedulerSchedulePod "test all prescore plugins return skip": the Score of a plugin
    whose PreScore returned Skip is not run."""
    pl = FakePreScoreAndScore("P", 0, Status(SK), Status(E, "must not run"))
    core, fwk = build([reg("filter", TrueFilter()), reg(("preScore", "score"), pl, 1)],
                      hostname_nodes("node1", "node2"))
    schedule(core, fwk, mkpod("p"))
    assert (pl.pre_score_calls, pl.score_calls) == (1, 0)


# ----- TestFindFitAllError / TestFindFitSomeError --------------------------------------------

def test_find_fit_all_error():
    """schedule_one_test.go TestFindFitAllError."""
    core, fwk = build([reg("filter", TrueFilter()), reg("filter", MatchFilter())],
                      plain_nodes("3", "2", "1"))
    feasible, d, _ = core.find_nodes_that_fit_pod(fwk, CycleState(), mkpod(""), None)
    assert feasible == []
    assert statuses(d) == {n: fake("MatchFilter") for n in ("1", "2", "3")}
    assert triple(d.absent_nodes_status) == (UU, [], "")
    assert d.unschedulable_plugins == {"MatchFilter"}


def test_find_fit_some_error():
    """schedule_one_test.go TestFindFitSomeError."""
    nodes = plain_nodes("3", "2", "1")
    core, fwk = build([reg("filter", TrueFilter()), reg("filter", MatchFilter())], nodes)
    pod = mkpod("1")
    _, d, _ = core.find_nodes_that_fit_pod(fwk, CycleState(), pod, None)
    assert len(d.node_to_status) == len(nodes) - 1
    assert d.unschedulable_plugins == {"MatchFilter"}
    for n in nodes:
        if n.name != pod.name:
            assert d.node_to_status[n.name].all_reasons() == [ERR_REASON_FAKE]


# ----- TestFindFitPredicateCallCounts ---------------------------------------------------------

@pytest.mark.parametrize("name,priority,expected", [
    ("nominated pods have lower priority, predicate is called once", HIGH_PRIORITY, 1),
    ("nominated pods have higher priority, predicate is called twice", LOW_PRIORITY, 2),
])
def test_find_fit_predicate_call_counts(name, priority, expected):
    """schedule_one_test.go TestFindFitPredicateCallCounts."""
    nominator = Nominator()
    plugin = FakeFilter()
    core, fwk = build([reg("filter", plugin)], plain_nodes("1"), nominator=nominator)
    nominated = mkpod("", "nominated", priority=MID_PRIORITY)
    nominator.add_nominated_pod(PodInfo(nominated), NominatingInfo("1", MODE_OVERRIDE))
    core.find_nodes_that_fit_pod(fwk, CycleState(), mkpod("1", priority=priority), None)
    assert plugin.num_filter_called == expected


# ----- TestNumFeasibleNodesToFind -------------------------------------------------------------

@pytest.mark.parametrize("name,global_pct,profile_pct,num_all,want", [
    ("not set percentageOfNodesToScore and nodes number not more than 50", 0, None, 10, 10),
    ("set profile percentageOfNodesToScore and nodes number not more than 50", 0, 40, 10, 10),
    ("not set percentageOfNodesToScore and nodes number more than 50", 0, None, 1000, 420),
    ("set profile percentageOfNodesToScore and nodes number more than 50", 0, 40, 1000, 400),
    ("set global and profile percentageOfNodesToScore and nodes number more than 50",
     100, 40, 1000, 400),
    ("set global percentageOfNodesToScore and nodes number more than 50", 40, None, 1000, 400),
    ("not set profile percentageOfNodesToScore and nodes number more than 50*125",
     0, None, 6000, 300),
    ("set profile percentageOfNodesToScore and nodes number more than 50*125",
     0, 40, 6000, 2400),
])
def test_num_feasible_nodes_to_find(name, global_pct, profile_pct, num_all, want):
    """schedule_one_test.go TestNumFeasibleNodesToFind (the profile's percentage, when set,
    wins over the global one: SchedulingCore passes it)."""
    pct = global_pct if profile_pct is None else profile_pct
    assert num_feasible_nodes_to_find(pct, num_all) == want


@pytest.mark.parametrize("num_all,pct,want", [
    (99, 0, 99), (100, 0, 100), (100, 1, 100), (150, 0, 100), (250, 0, 120), (300, 0, 144),
    (5000, 0, 500), (12500, 0, 625), (20000, 0, 1000), (1000, 100, 1000), (1000, 5, 100),
])
def test_num_feasible_nodes_to_find_integer_arithmetic(num_all, pct, want):
    """schedule_one.go numFeasibleNodesToFind: int32 arithmetic, adaptive 50 - n/125 (at least
    5), result at least 100 (derived)."""
    assert num_feasible_nodes_to_find(pct, num_all) == want


def test_profile_percentage_wins_over_global():
    """schedule_one.go numFeasibleNodesToFind uses the profile percentage when set (checked
    through findNodesThatPassFilters: 1000 feasible nodes, profile 40 %, global 100 %)."""
    nodes = plain_nodes(*[f"n{i}" for i in range(1000)])
    regs = [reg("filter", TrueFilter()), reg("score", equal_prioritizer(), 1)]
    core, fwk = build(regs, nodes, percentage=100, profile_percentage=40)
    feasible, _, _ = core.find_nodes_that_fit_pod(fwk, CycleState(), mkpod("p"), None)
    assert len(feasible) == 400
    core, fwk = build(regs, nodes, percentage=100)
    feasible, _, _ = core.find_nodes_that_fit_pod(fwk, CycleState(), mkpod("p"), None)
    assert len(feasible) == 1000


# ----- TestFairEvaluationForNodes / nextStartNodeIndex ---------------------------------------

def test_fair_evaluation_for_nodes():
    """schedule_one_test.go TestFairEvaluationForNodes."""
    num_all = 500
    core, fwk = build([reg("filter", TrueFilter()), reg("score", equal_prioritizer(), 1)],
                      plain_nodes(*[str(i) for i in range(num_all)]), percentage=30)
    to_find = num_feasible_nodes_to_find(30, num_all)
    assert to_find == 150
    for i in range(2 * (num_all // to_find + 1)):
        feasible, _, _ = core.find_nodes_that_fit_pod(fwk, CycleState(), mkpod(""), None)
        assert len(feasible) == to_find
        assert core.next_start_node_index == (i + 1) * to_find % num_all
        assert feasible[0].node.name == str(i * to_find % num_all)


def test_next_start_node_index_counts_failed_nodes_and_skips_the_extra_feasible_one():
    """schedule_one.go findNodesThatFitPod: processedNodes = feasible + NodeToStatus; the node
    found beyond numNodesToFind is neither kept nor counted (derived)."""
    codes = {f"n{i}": U for i in range(0, 10)}
    nodes = plain_nodes(*[f"n{i}" for i in range(150)])
    core, fwk = build([reg("filter", FakeFilter(codes)), reg("score", equal_prioritizer(), 1)],
                      nodes)
    result = schedule(core, fwk, mkpod("p"))
    assert result.feasible_nodes == 100
    assert result.evaluated_nodes == 110
    assert core.next_start_node_index == 110
    assert result.feasible[0] == "n10" and result.feasible[-1] == "n109"


def test_next_start_node_index_wraps_modulo_all_nodes_with_prefilter_subset():
    """schedule_one.go: with a PreFilterResult the search covers only those nodes, but the
    index advances modulo the number of all nodes (derived)."""
    core, fwk = build([reg("preFilter", FakePreFilter("P", PreFilterResult({"b", "c"}), None)),
                       reg("filter", TrueFilter()), reg("score", equal_prioritizer(), 1)],
                      plain_nodes("a", "b", "c", "d"))
    core.next_start_node_index = 3
    feasible, _, _ = core.find_nodes_that_fit_pod(fwk, CycleState(), mkpod("p"), None)
    assert [n.node.name for n in feasible] == ["c", "b"]  # start at 3 % 2 within [b, c]
    assert core.next_start_node_index == (3 + 2) % 4


def test_no_filter_plugins_takes_nodes_from_next_start_index():
    """schedule_one.go findNodesThatPassFilters without Filter plugins: the first
    numNodesToFind nodes from nextStartNodeIndex, all of them feasible."""
    core, fwk = build([reg("score", equal_prioritizer(), 1)], plain_nodes("a", "b", "c"))
    core.next_start_node_index = 1
    feasible, d, _ = core.find_nodes_that_fit_pod(fwk, CycleState(), mkpod("p"), None)
    assert [n.node.name for n in feasible] == ["b", "c", "a"]
    assert d.node_to_status == {}
    assert core.next_start_node_index == 1  # (1 + 3) % 3


def test_filter_error_stops_the_attempt():
    """schedule_one.go findNodesThatPassFilters: an Error status cancels the search and the
    attempt fails with ``running "<plugin>" filter plugin: <err>``."""
    core, fwk = build([reg("filter", FakeFilter({"b": E})), reg("score", NumericMap(), 1)],
                      plain_nodes("a", "b", "c"))
    with pytest.raises(SchedulingError) as exc:
        schedule(core, fwk, mkpod("p"))
    assert str(exc.value) == 'running "FakeFilter" filter plugin: injecting failure for pod p'


def test_next_start_node_index_is_updated_on_filter_error():
    """Derived from schedule_one.go findNodesThatFitPod (``always try to update the
    sched.nextStartNodeIndex regardless of whether an error has occurred``)."""
    core, fwk = build([reg("filter", FakeFilter({"a": U, "c": E})),
                       reg("score", NumericMap(), 1)], plain_nodes("a", "b", "c", "d"))
    with pytest.raises(SchedulingError):
        schedule(core, fwk, mkpod("p"))
    assert core.next_start_node_index == 2  # "a" (rejected) + "b" (feasible)


def test_no_nodes_available():
    """schedule_one.go schedulePod: ErrNoNodesAvailable on an empty snapshot."""
    core, fwk = build([reg("filter", TrueFilter())], [])
    with pytest.raises(NoNodesAvailable) as exc:
        schedule(core, fwk, mkpod("p"))
    assert str(exc.value) == "no nodes available to schedule pods"


def test_one_feasible_node_shortcut():
    """schedule_one.go schedulePod: with one feasible node no PreScore/Score runs and
    EvaluatedNodes = 1 + len(NodeToStatus)."""
    scorer = FakePreScoreAndScore("P", 1)
    core, fwk = build([reg("filter", MatchFilter()), reg(("preScore", "score"), scorer, 1)],
                      plain_nodes("a", "b", "c"))
    result = schedule(core, fwk, mkpod("b"))
    assert (result.suggested_host, result.evaluated_nodes, result.feasible_nodes) == ("b", 3, 1)
    assert result.scored is None
    assert (scorer.pre_score_calls, scorer.score_calls) == (0, 0)


def test_without_score_plugins_every_node_scores_one():
    """schedule_one.go prioritizeNodes: no Score plugins (and no extenders) gives TotalScore 1
    to each node; the heap then picks the top."""
    core, fwk = build([reg("filter", TrueFilter())], plain_nodes("a", "b"))
    scored = core.prioritize_nodes(fwk, CycleState(), mkpod("p"),
                                   core.snapshot.list())
    assert [(s.name, s.total) for s in scored] == [("a", 1), ("b", 1)]


def test_prescore_error_fails_the_attempt():
    """schedule_one.go prioritizeNodes: a PreScore error is returned as the attempt's error."""
    core, fwk = build([reg("filter", TrueFilter()), reg(("preScore", "score"),
                      FakePreScoreAndScore("P", 1, Status(E, "boom")), 1)],
                      plain_nodes("a", "b"))
    with pytest.raises(SchedulingError) as exc:
        schedule(core, fwk, mkpod("p"))
    assert str(exc.value) == 'running PreScore plugin "P": boom'


def test_host_is_the_heap_top_among_ties():
    """schedule_one.go schedulePod: NewSortedScoredNodes(priorityList).Pop(); with equal totals
    and Randomizer 0 the Go heap layout decides (see test_select_host.py): for the feasible
    order [a, b, c, d] with totals [1, 0, 1, 1] node "a" wins."""
    class Score(itf.ScorePlugin):
        name = "S"

        def score(self, state, pod, node_info):
            return {"a": 1, "b": 0, "c": 1, "d": 1}[node_info.node.name]

    core, fwk = build([reg("filter", TrueFilter()), reg("score", Score(), 1)],
                      plain_nodes("a", "b", "c", "d"))
    assert schedule(core, fwk, mkpod("p")).suggested_host == "a"
    core.next_start_node_index = 1  # feasible order [b, c, d, a]: heap top is c
    assert schedule(core, fwk, mkpod("p")).suggested_host == "c"


# ----- TestPreferNominatedNodeFilterCallCounts / TestEvaluateNominatedNode -------------------

@pytest.mark.parametrize("name,pod,codes,expected", [
    ("pod has the nominated node set, filter is called only once",
     mkpod("p_with_nominated_node", "p", priority=HIGH_PRIORITY, nnn="node1"), {}, 1),
    ("pod without the nominated pod, filter is called for each node",
     mkpod("p_without_nominated_node", "p", priority=HIGH_PRIORITY), {}, 3),
    ("nominated pod cannot pass the filter, filter is called for each node",
     mkpod("p_with_nominated_node", "p", priority=HIGH_PRIORITY, nnn="node1"),
     {"node1": U}, 4),
])
def test_prefer_nominated_node_filter_call_counts(name, pod, codes, expected):
    """schedule_one_test.go TestPreferNominatedNodeFilterCallCounts."""
    plugin = FakeFilter(codes)
    core, fwk = build([reg("filter", plugin), reg("score", equal_prioritizer(), 1)],
                      plain_nodes("node1", "node2", "node3"))
    core.find_nodes_that_fit_pod(fwk, CycleState(), pod, None)
    assert plugin.num_filter_called == expected


def test_nominated_node_success_does_not_move_next_start_node_index():
    """schedule_one.go findNodesThatFitPod returns early for a feasible nominated node,
    before the nextStartNodeIndex update (derived)."""
    core, fwk = build([reg("filter", TrueFilter()), reg("score", equal_prioritizer(), 1)],
                      plain_nodes("node1", "node2", "node3"))
    core.next_start_node_index = 2
    result = schedule(core, fwk, mkpod("p", nnn="node1"))
    assert (result.suggested_host, result.evaluated_nodes) == ("node1", 1)
    assert core.next_start_node_index == 2


def test_failed_nominated_node_status_is_kept_in_the_diagnosis():
    """schedule_one.go: evaluateNominatedNode writes into the same NodeToStatus as the full
    search; when the search stops before re-checking the nominated node, that node still counts
    as processed (derived)."""
    core, fwk = build([reg("filter", FakeFilter({"node3": U}))],
                      plain_nodes("node1", "node2", "node3"))
    feasible, d, _ = core.find_nodes_that_fit_pod(fwk, CycleState(), mkpod("p", nnn="node3"),
                                                  None)
    # no Score plugins: numNodesToFind = 1; node1 is feasible, node2 stops the search
    assert [n.node.name for n in feasible] == ["node1"]
    assert set(d.node_to_status) == {"node3"}
    assert core.next_start_node_index == 2


@pytest.mark.parametrize("name,nnn,want", [
    ("When NNN is present in both snapshot and placement, returns node", "n1", ["n1"]),
    ("When NNN is not present in snapshot, returns error", "n3", []),
])
def test_evaluate_nominated_node(name, nnn, want):
    """schedule_one_test.go TestEvaluateNominatedNode (placements are not modelled; a missing
    node gives no feasible node, upstream's error is only logged by its caller)."""
    core, fwk = build([], plain_nodes("n1", "n2"))
    got = core.evaluate_nominated_node(fwk, CycleState(), mkpod("p", nnn=nnn), "", Diagnosis())
    assert [n.node.name for n in got] == want


def test_missing_nominated_node_falls_back_to_all_nodes():
    """schedule_one.go findNodesThatFitPod: a nominated node that is not in the snapshot is
    skipped (error logged) and every node is searched."""
    core, fwk = build([reg("filter", TrueFilter()), reg("score", NumericMap(), 1)],
                      plain_nodes("1", "2"))
    assert schedule(core, fwk, mkpod("p", nnn="gone")).suggested_host == "2"


def test_nominated_node_filter_error_falls_back_to_the_search():
    """Derived from schedule_one.go findNodesThatFitPod / evaluateNominatedNode: the nominated
    node's Filter error is logged; the PreFilterResult nodes are then searched."""
    core, fwk = build([reg("preFilter", FakePreFilter("P", PreFilterResult({"b"}), None)),
                       reg("filter", FakeFilter({"a": E}))], plain_nodes("a", "b"))
    result = schedule(core, fwk, mkpod("p", nnn="a"))
    assert result.suggested_host == "b"


# ----- TestFitError_Error ---------------------------------------------------------------------

def diag(node_reasons: dict[str, str], pre_filter_msg: str = "", post_filter_msg: str = ""
         ) -> Diagnosis:
    d = Diagnosis()
    for n, r in node_reasons.items():
        d.node_to_status[n] = Status(U, r)
    d.pre_filter_msg = pre_filter_msg
    d.post_filter_msg = post_filter_msg
    return d


PF = "Node(s) failed PreFilter plugin FalsePreFilter"
F1 = "Node(s) failed Filter plugin FalseFilter-1"
F2 = "Node(s) failed Filter plugin FalseFilter-2"
PFE = "Error running PostFilter plugin FailedPostFilter"


@pytest.mark.parametrize("name,num,d,want", [
    ("nodes failed Prefilter plugin", 3,
     diag({"node1": PF, "node2": PF, "node3": PF}, PF),
     "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter."),
    ("nodes failed Prefilter plugin and the preemption also failed", 3,
     diag({"node1": PF, "node2": PF, "node3": PF}, PF, PFE),
     "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter. Error running "
     "PostFilter plugin FailedPostFilter"),
    ("nodes failed one Filter plugin with an empty PostFilterMsg", 3,
     diag({"node1": F1, "node2": F1, "node3": F1}),
     "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1."),
    ("nodes failed one Filter plugin with a non-empty PostFilterMsg", 3,
     diag({"node1": F1, "node2": F1, "node3": F1}, "", PFE),
     "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1. Error running "
     "PostFilter plugin FailedPostFilter"),
    ("nodes failed two Filter plugins with an empty PostFilterMsg", 3,
     diag({"node1": F1, "node2": F1, "node3": F2}),
     "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed "
     "Filter plugin FalseFilter-1."),
    ("nodes failed two Filter plugins with a non-empty PostFilterMsg", 3,
     diag({"node1": F1, "node2": F1, "node3": F2}, "", PFE),
     "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed "
     "Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter"),
    ("failed to Permit on node", 1, diag({"node1": "Node failed Permit plugin Permit-1"}),
     "0/1 nodes are available: 1 Node failed Permit plugin Permit-1."),
    ("failed to Reserve on node", 1, diag({"node1": "Node failed Reserve plugin Reserve-1"}),
     "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1."),
])
def test_fit_error_error(name, num, d, want):
    """types_test.go TestFitError_Error."""
    assert FitError(None, num, d).message() == want  # type: ignore[arg-type]
    assert str(FitError(None, num, d)) == want  # type: ignore[arg-type]


def test_fit_error_counts_absent_nodes_with_the_absent_status():
    """types.go FitError.Error: nodes absent from NodeToStatus get AbsentNodesStatus's reasons
    (the PreFilterResult message); the histogram is sorted as strings ("10 x" < "2 y")."""
    d = Diagnosis()
    d.absent_nodes_status = Status(UU, "node(s) didn't satisfy plugin(s) [P]")
    d.node_to_status["a"] = Status(U, "zzz", "aaa")
    d.node_to_status["b"] = Status(U, "zzz")
    assert FitError(None, 12, d).message() == (  # type: ignore[arg-type]
        "0/12 nodes are available: 1 aaa, 10 node(s) didn't satisfy plugin(s) [P], 2 zzz.")


def test_fit_error_message_of_a_schedule_pod_failure():
    """The message kube-scheduler reports for TestSchedulerSchedulePod "test 8"."""
    case = next(c for c in SCHEDULE_POD_CASES if c["name"] == "test 8")
    core, fwk = build(case["regs"](), case["nodes"], case["pods"])
    with pytest.raises(FitError) as exc:
        schedule(core, fwk, case["pod"])
    assert exc.value.message() == (
        "0/2 nodes are available: 2 Nodes failed the fake plugin.")


# ----- Scheduler: failures after the host is chosen (scheduler.py) ---------------------------

class RejectingReserve(itf.ReservePlugin):
    name = "R"

    def reserve(self, state, pod, node_name):
        return Status(U, "reserve rejected")

    def unreserve(self, state, pod, node_name):
        return None


class WaitingPermit(itf.PermitPlugin):
    name = "P"

    def __init__(self, timeout: float) -> None:
        super().__init__(None, None)
        self.timeout = timeout

    def permit(self, state, pod, node_name):
        return Status(Code.WAIT), self.timeout


def run_scheduler(extra: dict[str, list], registry_extra: dict, pod: Pod):
    """A Scheduler with PrioritySort, TrueFilter, DefaultBinder and ``extra`` on one node."""
    registry = {"PrioritySort": PrioritySort, "DefaultBinder": DefaultBinder,
                "TrueFilter": TrueFilter, **registry_extra}
    plugins = {"queueSort": [PluginEntry("PrioritySort", 0)],
               "filter": [PluginEntry("TrueFilter", 0)],
               "bind": [PluginEntry("DefaultBinder", 0)]}
    plugins.update({k: [PluginEntry(n, 0) for n in v] for k, v in extra.items()})
    config = SchedulerConfiguration(16, 0, 1, 10, [Profile("default-scheduler", None, plugins,
                                                           {})], 300)
    return Scheduler(Cluster(nodes=plain_nodes("n1"), pods=[pod]), config, registry).run()


class FakeReserve(itf.ReservePlugin):
    name = "FakeReserve"

    def __init__(self, status: Status | None) -> None:
        super().__init__(None, None)
        self.status = status
        self.unreserved = 0

    def reserve(self, state, pod, node_name):
        return self.status

    def unreserve(self, state, pod, node_name):
        self.unreserved += 1


class FakePermit(itf.PermitPlugin):
    name = "FakePermit"

    def __init__(self, status: Status | None, timeout: float = 60) -> None:
        super().__init__(None, None)
        self.status = status
        self.timeout = timeout

    def permit(self, state, pod, node_name):
        return self.status, self.timeout


class FakePreBind(itf.PreBindPlugin):
    name = "FakePreBind"

    def __init__(self, pre_flight: Status | None, pre_bind: Status | None) -> None:
        super().__init__(None, None)
        self.pre_flight = pre_flight
        self.pre_bind_status = pre_bind

    def pre_bind_pre_flight(self, state, pod, node_name):
        return self.pre_flight

    def pre_bind(self, state, pod, node_name):
        return self.pre_bind_status


class FailingBinder(itf.BindPlugin):
    name = "DefaultBinder"

    def bind(self, state, pod, node_name):
        return Status.as_error("binder")


def one(factory):
    return lambda args, handle: factory()


SCHEDULE_ONE_CASES = [
    ("reserve failed with status code error",
     {"reserve": ["FakeReserve"]},
     {"FakeReserve": one(lambda: FakeReserve(Status.as_error("reserve error")))},
     "Error", 'running Reserve plugin "FakeReserve": reserve error'),
    pytest.param(
        "reserve failed with status code rejected", {"reserve": ["FakeReserve"]},
        {"FakeReserve": one(lambda: FakeReserve(Status(UU, "rejected on reserve")))},
        "Unschedulable", "0/1 nodes are available: 1 rejected on reserve."),
    ("permit failed with status code error", {"permit": ["FakePermit"]},
     {"FakePermit": one(lambda: FakePermit(Status.as_error("permit error")))},
     "Error", 'running Permit plugin "FakePermit": permit error'),
    pytest.param(
        "permit failed with status code rejected", {"permit": ["FakePermit"]},
        {"FakePermit": one(lambda: FakePermit(Status(U, "rejected on permit")))},
        "Unschedulable", "0/1 nodes are available: 1 rejected on permit."),
    ("prebindpreflight failed with status code error", {"preBind": ["FakePreBind"]},
     {"FakePreBind": one(lambda: FakePreBind(Status.as_error("on PreBindPreFlight"), None))},
     "Error", 'running PreBindPreFlight "FakePreBind": on PreBindPreFlight'),
    ("prebindpreflight failed with status code unschedulable", {"preBind": ["FakePreBind"]},
     {"FakePreBind": one(lambda: FakePreBind(Status(U, "rejected on prebindpreflight"), None))},
     "Error", 'PreBindPreFlight FakePreBind returned "Unschedulable", which is unsupported. '
              "It is supposed to return Success, Skip, or Error status"),
    ("prebind isn't called and nominated node name isn't set, if preflight returns skip",
     {"preBind": ["FakePreBind"]},
     {"FakePreBind": one(lambda: FakePreBind(Status(SK), Status(E, "rejected on prebind")))},
     "Bound", ""),
    ("prebind is called and nominated node name is set, if preflight returns success",
     {"preBind": ["FakePreBind"]}, {"FakePreBind": one(lambda: FakePreBind(None, None))},
     "Bound", ""),
    ("prebind failed with status code error", {"preBind": ["FakePreBind"]},
     {"FakePreBind": one(lambda: FakePreBind(None, Status.as_error("on PreBind")))},
     "Error", 'running PreBind plugin "FakePreBind": on PreBind'),
    ("binding failed", {"bind": ["DefaultBinder"]}, {"DefaultBinder": FailingBinder},
     "Error", 'running Bind plugin "DefaultBinder": binder'),
    ("bind assumed pod scheduled", {}, {}, "Bound", ""),
]


@pytest.mark.parametrize("name,extra,registry,outcome,message", SCHEDULE_ONE_CASES)
def test_scheduler_schedule_one(name, extra, registry, outcome, message):
    """schedule_one_test.go TestSchedulerScheduleOne: the outcome (Unschedulable = a rejection
    that goes to the unschedulable pods, Error = backoff) and the reported error text."""
    result = run_scheduler(extra, registry, mkpod("foo"))
    (a,) = result.attempts
    assert (a.outcome, a.message) == (outcome, message)
    assert result.bindings == ({"/foo": "n1"} if outcome == "Bound" else {})


def test_scheduler_schedule_one_deleting_pod():
    """schedule_one_test.go TestSchedulerScheduleOne "deleting pod": not scheduled, not bound."""
    pod = mkpod("foo")
    pod.deletion_timestamp = 1.0
    result = run_scheduler({}, {}, pod)
    assert result.attempts == [] and result.bindings == {}


def test_rejection_after_assume_unreserves_and_forgets():
    """schedule_one.go unreserveAndForget: Unreserve runs and the assumed pod leaves the
    cache (the node is free again)."""
    reserve = FakeReserve(None)
    permit = FakePermit(Status(U, "no"))
    registry = {"FakeReserve": lambda a, h: reserve, "FakePermit": lambda a, h: permit}
    pod = mkpod("foo")
    config_extra = {"reserve": ["FakeReserve"], "permit": ["FakePermit"]}
    plugins = {"queueSort": [PluginEntry("PrioritySort", 0)],
               "filter": [PluginEntry("TrueFilter", 0)],
               "bind": [PluginEntry("DefaultBinder", 0)],
               **{k: [PluginEntry(n, 0) for n in v] for k, v in config_extra.items()}}
    sched = Scheduler(Cluster(nodes=plain_nodes("n1"), pods=[pod]),
                      SchedulerConfiguration(16, 0, 1, 10, [Profile("default-scheduler", None,
                                                                    plugins, {})], 300),
                      {"PrioritySort": PrioritySort, "DefaultBinder": DefaultBinder,
                       "TrueFilter": TrueFilter, **registry})
    sched.run()
    assert reserve.unreserved == 1
    assert sched.snapshot.get("n1").pods == []
    assert not sched.snapshot.is_assumed_or_bound(pod)


def test_permit_timeout_message():
    """Derived from framework/runtime/waiting_pods_map.go newWaitingPod and schedule_one.go
    bindingCycle (maxTimeout 15 minutes caps a 1 h timeout)."""
    result = run_scheduler({"permit": ["P"]}, {"P": lambda a, h: WaitingPermit(3600)},
                           mkpod("p"))
    (a,) = result.attempts
    assert a.outcome == "Unschedulable"
    assert a.message == ("0/1 nodes are available: 1 rejected due to timeout after waiting "
                         "15m0s at plugin P.")


def test_permit_timeout_rejects_the_pod():
    """framework.go WaitOnPermit: a pod nobody allows is rejected (Unschedulable) by the
    plugin with the shortest timeout, and is not bound."""
    result = run_scheduler({"permit": ["P"]}, {"P": lambda a, h: WaitingPermit(10)},
                           mkpod("p"))
    (a,) = result.attempts
    assert a.outcome == "Unschedulable" and a.node is None
    assert "rejected due to timeout after waiting 10s at plugin P" in a.message
    assert result.bindings == {}


def test_assumed_copy_is_dataclasses_replace():
    """``assume`` copies the pod with nodeName set and the nomination cleared: every field as
    ``dataclasses.replace`` gives it (the copy is field by field), the queued object untouched."""
    import dataclasses

    pod = mkpod("p", node="", priority=7, nnn="n1", labels={"a": "b"})
    copy = assumed_copy(pod, "n2")
    want = dataclasses.replace(pod, node_name="n2", nominated_node_name="")
    assert copy is not pod and type(copy) is Pod
    for f in dataclasses.fields(Pod):
        assert getattr(copy, f.name) is getattr(want, f.name) or (
            getattr(copy, f.name) == getattr(want, f.name)), f.name
    assert (pod.node_name, pod.nominated_node_name) == ("", "n1")
    assert (copy.node_name, copy.nominated_node_name) == ("n2", "")
    assert copy.resources is pod.resources and copy.labels is pod.labels
