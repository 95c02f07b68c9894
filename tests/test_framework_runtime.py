"""The framework runtime: every ``Run*`` method of ``Framework``, and ``Diagnosis``.

Cases restate upstream v1.37.2 ``pkg/scheduler/framework/runtime/framework_test.go``
(TestRunPreScorePlugins, TestRunScorePlugins, TestPreFilterPlugins, TestRunPreFilterPlugins,
TestRunPreFilterExtensionRemovePod, TestRunPreFilterExtensionAddPod, TestFilterPlugins,
TestPostFilterPlugins, TestFilterPluginsWithNominatedPods, TestPreBindPlugins,
TestPreBindPreFlightPlugins, TestReservePlugins, TestPermitPlugins, TestRunBindPlugins,
TestPreEnqueuePlugins) with upstream's ``TestPlugin`` (every extension point returns the status
code injected for it, with reason "injected status"). Statuses are compared as upstream's
``statusCmpOpts`` does: nil equals any Success; Error statuses by their error text only; others
by code, plugin and message.

Left out, with the reason: metrics tests (no metrics), TestNewFramework* / MultiPoint expansion
(the config loader builds the final plugin lists; ``Framework`` receives them expanded),
placement / pod-group tests (GenericWorkload, off by default), TestWaitOnPermit (no waiting
pods), TestRunRawScorePlugins / TestNormalizeScores (no such ``Framework`` methods here: the
batch rescoring inlines them, see ``tests/test_batch.py``), and the TestPostFilterPlugins case
"skips all post filters if state has SkipPostFilterPlugins" (``SetSkipAllPostFilterPlugins`` is
only called by tests in v1.37.2).
"""

from __future__ import annotations

import pytest

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
from reference_impl.framework.types import NodeInfo, PodInfo
from reference_impl.model.objects import Node, Pod
from reference_impl.model.requests import compute_pod_resources
from reference_impl.releases import current
from reference_impl.scheduler.nominator import Nominator

S = Code.SUCCESS
E = Code.ERROR
U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
W = Code.WAIT
SK = Code.SKIP

INJECT_REASON = "injected status"
INJECT_FILTER_REASON = "injected filter status"

SCORE_WITH_NORMALIZE_1 = "score-with-normalize-plugin-1"
SCORE_WITH_NORMALIZE_2 = "score-with-normalize-plugin-2"
SCORE_PLUGIN_1 = "score-plugin-1"
DEFAULT_WEIGHTS = {SCORE_WITH_NORMALIZE_1: 1, SCORE_WITH_NORMALIZE_2: 2, SCORE_PLUGIN_1: 1}


# ----- upstream's test plugins ----------------------------------------------------------------

class TPlugin(itf.PreFilterPlugin, itf.FilterPlugin, itf.PostFilterPlugin, itf.PreScorePlugin,
              itf.ScorePlugin, itf.ReservePlugin, itf.PermitPlugin, itf.PreBindPlugin,
              itf.BindPlugin, itf.PostBindPlugin):
    """framework_test.go ``TestPlugin``: implements every extension point and returns
    ``fwk.NewStatus(injected code, reason)`` (a non-nil status even for Success)."""

    def __init__(self, name: str, *, pre_filter: Code = S,
                 pre_filter_result: PreFilterResult | None = None, add_pod: Code = S,
                 remove_pod: Code = S, filter: Code = S, post_filter: Code = S,
                 pre_score: Code = S, score: Code = S, reserve: Code = S,
                 pre_bind_pre_flight: Code = S, pre_bind: Code = S, bind: Code = S,
                 permit: Code = S, permit_timeout: float = 0) -> None:
        super().__init__(None, None)
        self.name = name  # type: ignore[misc]
        self.inj = dict(pre_filter=pre_filter, add_pod=add_pod, remove_pod=remove_pod,
                        filter=filter, post_filter=post_filter, pre_score=pre_score,
                        score=score, reserve=reserve, pre_bind_pre_flight=pre_bind_pre_flight,
                        pre_bind=pre_bind, bind=bind, permit=permit)
        self.pre_filter_result = pre_filter_result
        self.permit_timeout = permit_timeout
        self.calls: list[str] = []

    def _st(self, point: str, reason: str = INJECT_REASON) -> Status:
        self.calls.append(point)
        return Status(self.inj[point], reason)

    def pre_filter(self, state, pod, nodes):
        return self.pre_filter_result, self._st("pre_filter")

    def pre_filter_extensions(self):
        return self

    def add_pod(self, state, pod, pi, node_info):
        return self._st("add_pod")

    def remove_pod(self, state, pod, pi, node_info):
        return self._st("remove_pod")

    def filter(self, state, pod, node_info):
        return self._st("filter", INJECT_FILTER_REASON)

    def post_filter(self, state, pod, diagnosis):
        return None, self._st("post_filter")

    def pre_score(self, state, pod, nodes):
        return self._st("pre_score")

    def score(self, state, pod, node_info):
        if self._st("score").code != S:
            raise PluginError(INJECT_REASON)
        return 0

    def reserve(self, state, pod, node_name):
        return self._st("reserve")

    def unreserve(self, state, pod, node_name):
        self.calls.append("unreserve")

    def pre_bind_pre_flight(self, state, pod, node_name):
        return self._st("pre_bind_pre_flight")

    def pre_bind(self, state, pod, node_name):
        return self._st("pre_bind")

    def bind(self, state, pod, node_name):
        return self._st("bind")

    def post_bind(self, state, pod, node_name):
        self.calls.append("post_bind")

    def permit(self, state, pod, node_name):
        return self._st("permit"), self.permit_timeout


class ScorePl(itf.PreScorePlugin, itf.ScorePlugin):
    """``TestScorePlugin`` / ``TestScoreWithNormalizePlugin`` with ``injectedResult``:
    Score returns ``score_res`` (or fails with "injecting failure."); with ``normalize`` the
    NormalizeScore sets every score to ``normalize_res`` (or fails)."""

    def __init__(self, name: str, *, normalize: bool, score_res: int = 0, normalize_res: int = 0,
                 score_status: Code = S, normalize_status: Code = S, pre_score: Code = S) -> None:
        super().__init__(None, None)
        self.name = name  # type: ignore[misc]
        self.has_normalize_score = normalize  # type: ignore[misc]
        self.score_res = score_res
        self.normalize_res = normalize_res
        self.score_status = score_status
        self.normalize_status = normalize_status
        self.pre_score_status = pre_score

    def pre_score(self, state, pod, nodes):
        return Status(self.pre_score_status, INJECT_REASON)

    def score(self, state, pod, node_info):
        if self.score_status != S:
            raise PluginError("injecting failure.")
        return self.score_res

    def normalize_score(self, state, pod, scores):
        if self.normalize_status != S:
            return Status(self.normalize_status, "injecting failure.")
        for s in scores:
            s[1] = self.normalize_res
        return None


class TestBindPlugin(itf.BindPlugin):
    """``TestBindPlugin``: the no-op binder ``newFrameworkWithQueueSortAndBind`` adds."""

    __test__ = False
    name = "bind-plugin"

    def bind(self, state, pod, node_name):
        return None


def new_framework(points: dict[str, list], *, nominator: Nominator | None = None,
                  snapshot: Snapshot | None = None, default_bind: bool = False) -> Framework:
    """A Framework whose registry returns the given plugin instances (entries are an instance
    or ``(instance, weight)``); with ``default_bind`` and no bind plugins, the no-op binder is
    added as ``newFrameworkWithQueueSortAndBind`` does."""
    points = dict(points)
    if default_bind and not points.get("bind"):
        points["bind"] = [TestBindPlugin()]
    registry: dict = {}
    plugins: dict[str, list[tuple[str, int]]] = {}
    for point, entries in points.items():
        lst = []
        for entry in entries:
            inst, weight = entry if isinstance(entry, tuple) else (entry, 0)
            registry[inst.name] = (lambda i: (lambda args, handle: i))(inst)
            lst.append((inst.name, weight))
        plugins[point] = lst
    nominated = nominator.nominated_pods_for_node if nominator is not None else None
    handle = FrameworkHandle(snapshot or Snapshot(), current.feature_enabled, 1,
                             nominated_pods_for_node=nominated)
    return Framework("test-profile", plugins, registry, {}, handle)


def status_equal(got: Status | None, want: Status | None) -> bool:
    """framework_test.go ``statusCmpOpts``."""
    if got is None or want is None:
        return (got is None or got.is_success()) and (want is None or want.is_success())
    if want.code == E:
        return got.code == E and got.message() == want.message()
    return (got.code, got.plugin, got.message()) == (want.code, want.plugin, want.message())


def err(msg: str) -> Status:
    return Status.as_error(msg)


def st(code: Code, *reasons: str, plugin: str = "") -> Status:
    return Status(code, *reasons, plugin=plugin)


POD = Pod("", "", "")
NODES = [NodeInfo(Node("node1")), NodeInfo(Node("node2"))]


# ----- TestRunPreScorePlugins -----------------------------------------------------------------

@pytest.mark.parametrize("name,codes,want_skipped,want_code", [
    ("all PreScorePlugins returned success", [("success1", S), ("success2", S)], set(), S),
    ("one PreScore plugin returned success, but another PreScore plugin returned non-success",
     [("success", S), ("error", E)], set(), E),
    ("one PreScore plugin returned skip, but another PreScore plugin returned non-success",
     [("skip", SK), ("error", E)], {"skip"}, E),
    ("all PreScore plugins returned skip",
     [("skip1", SK), ("skip2", SK), ("skip3", SK)], {"skip1", "skip2", "skip3"}, S),
    ("some PreScore plugins returned skip",
     [("skip1", SK), ("success1", S), ("skip2", SK), ("success2", S)], {"skip1", "skip2"}, S),
])
def test_run_pre_score_plugins(name, codes, want_skipped, want_code):
    """framework_test.go TestRunPreScorePlugins."""
    f = new_framework({"preScore": [TPlugin(n, pre_score=c) for n, c in codes]})
    state = CycleState()
    status = f.run_pre_score_plugins(state, POD, [])
    assert (S if status is None else status.code) == want_code
    assert state.skip_score_plugins == want_skipped


def test_run_pre_score_plugins_error_message():
    """framework.go RunPreScorePlugins: ``running PreScore plugin %q: %w``."""
    f = new_framework({"preScore": [TPlugin("ok"), TPlugin("bad", pre_score=E)]})
    status = f.run_pre_score_plugins(CycleState(), POD, [])
    assert status_equal(status, err('running PreScore plugin "bad": injected status'))


# ----- TestRunScorePlugins --------------------------------------------------------------------

def score_pl(name: str, **inj) -> tuple[ScorePl, int]:
    return (ScorePl(name, normalize=name != SCORE_PLUGIN_1, **inj), DEFAULT_WEIGHTS[name])


def run_score(entries: list, skipped: set[str] = frozenset(), detail: bool = True):
    f = new_framework({"score": entries})
    state = CycleState()
    state.skip_score_plugins = set(skipped)
    return f.run_score_plugins(state, POD, NODES, detail)


@pytest.mark.parametrize("name,entries,skipped,want_raw,want_scores,want_total", [
    ("no Score plugins", [], set(), [], [], 0),
    ("single Score plugin", [score_pl(SCORE_PLUGIN_1, score_res=1)], set(),
     [(SCORE_PLUGIN_1, 1)], [(SCORE_PLUGIN_1, 1)], 1),
    ("single ScoreWithNormalize plugin",
     [score_pl(SCORE_WITH_NORMALIZE_1, score_res=10, normalize_res=5)], set(),
     [(SCORE_WITH_NORMALIZE_1, 10)], [(SCORE_WITH_NORMALIZE_1, 5)], 5),
    ("3 Score plugins, 2 NormalizeScore plugins",
     [score_pl(SCORE_PLUGIN_1, score_res=1),
      score_pl(SCORE_WITH_NORMALIZE_1, score_res=3, normalize_res=4),
      score_pl(SCORE_WITH_NORMALIZE_2, score_res=4, normalize_res=5)], set(),
     [(SCORE_PLUGIN_1, 1), (SCORE_WITH_NORMALIZE_1, 3), (SCORE_WITH_NORMALIZE_2, 4)],
     [(SCORE_PLUGIN_1, 1), (SCORE_WITH_NORMALIZE_1, 4), (SCORE_WITH_NORMALIZE_2, 10)], 15),
    # "single Score plugin with MultiPointExpansion": the expanded list gives weight 3.
    ("single Score plugin with weight 3",
     [(ScorePl(SCORE_PLUGIN_1, normalize=False, score_res=1), 3)], set(),
     [(SCORE_PLUGIN_1, 1)], [(SCORE_PLUGIN_1, 3)], 3),
    ("one success plugin, one skip plugin",
     [score_pl(SCORE_PLUGIN_1, score_res=1), score_pl(SCORE_WITH_NORMALIZE_1, score_status=E)],
     {SCORE_WITH_NORMALIZE_1}, [(SCORE_PLUGIN_1, 1)], [(SCORE_PLUGIN_1, 1)], 1),
    ("all plugins are skipped in prescore", [score_pl(SCORE_PLUGIN_1, score_status=E)],
     {SCORE_PLUGIN_1}, [], [], 0),
    ("skipped prescore plugin number greater than the number of score plugins",
     [score_pl(SCORE_PLUGIN_1)], {SCORE_PLUGIN_1, "score-plugin-unknown"}, [], [], 0),
])
def test_run_score_plugins(name, entries, skipped, want_raw, want_scores, want_total):
    """framework_test.go TestRunScorePlugins (RawScores, Scores = weighted, TotalScore)."""
    res, status = run_score(entries, skipped)
    assert status is None or status.is_success()
    assert [r.name for r in res] == ["node1", "node2"]
    for r in res:
        assert r.raw == want_raw
        assert r.weighted == want_scores
        assert r.total == want_total
    totals_only, status = run_score(entries, skipped, detail=False)
    assert [r.total for r in totals_only] == [want_total, want_total]


@pytest.mark.parametrize("name,entries,want", [
    ("score fails",
     [score_pl(SCORE_PLUGIN_1), score_pl(SCORE_WITH_NORMALIZE_1, score_status=E)],
     'running Score plugins: plugin "score-with-normalize-plugin-1" failed with: '
     "injecting failure."),
    ("normalize fails",
     [score_pl(SCORE_PLUGIN_1), score_pl(SCORE_WITH_NORMALIZE_1, normalize_status=E)],
     'running Normalize on Score plugins: plugin "score-with-normalize-plugin-1" failed with: '
     "injecting failure."),
    ("Score plugin return score greater than MaxNodeScore",
     [score_pl(SCORE_PLUGIN_1, score_res=101)],
     'applying score defaultWeights on Score plugins: plugin "score-plugin-1" returns an '
     "invalid score 101, it should in the range of [0, 100] after normalizing"),
    ("Score plugin return score less than MinNodeScore",
     [score_pl(SCORE_PLUGIN_1, score_res=-1)],
     'applying score defaultWeights on Score plugins: plugin "score-plugin-1" returns an '
     "invalid score -1, it should in the range of [0, 100] after normalizing"),
    ("ScoreWithNormalize plugin return score greater than MaxNodeScore",
     [score_pl(SCORE_WITH_NORMALIZE_1, normalize_res=101)],
     'applying score defaultWeights on Score plugins: plugin "score-with-normalize-plugin-1" '
     "returns an invalid score 101, it should in the range of [0, 100] after normalizing"),
    ("ScoreWithNormalize plugin return score less than MinNodeScore",
     [score_pl(SCORE_WITH_NORMALIZE_1, normalize_res=-1)],
     'applying score defaultWeights on Score plugins: plugin "score-with-normalize-plugin-1" '
     "returns an invalid score -1, it should in the range of [0, 100] after normalizing"),
])
def test_run_score_plugins_errors(name, entries, want):
    """framework_test.go TestRunScorePlugins error cases; messages from framework.go
    RunScorePlugins / normalizeScores."""
    res, status = run_score(entries)
    assert res is None
    assert status_equal(status, err(want))


def test_run_score_plugins_score_error_precedes_range_check():
    """Derived from framework.go RunScorePlugins / normalizeScores (phase order)."""
    res, status = run_score([score_pl(SCORE_PLUGIN_1, score_res=101),
                             score_pl(SCORE_WITH_NORMALIZE_1, score_status=E)])
    assert status_equal(status, err(
        'running Score plugins: plugin "score-with-normalize-plugin-1" failed with: '
        "injecting failure."))


def test_run_score_plugins_normalize_error_precedes_range_check():
    """Derived from framework.go normalizeScores (NormalizeScore loop, then weights loop)."""
    res, status = run_score([score_pl(SCORE_PLUGIN_1, score_res=101),
                             score_pl(SCORE_WITH_NORMALIZE_1, normalize_status=E)])
    assert status_equal(status, err(
        'running Normalize on Score plugins: plugin "score-with-normalize-plugin-1" failed '
        "with: injecting failure."))


def test_score_plugins_without_normalize_see_raw_scores_and_weights_multiply():
    """framework.go normalizeScores: weightedScore = score * weight, summed per node."""
    class ByName(itf.ScorePlugin):
        name = "ByName"

        def score(self, state, pod, node_info):
            return {"node1": 7, "node2": 40}[node_info.node.name]

    res, status = new_framework({"score": [(ByName(), 3), score_pl(SCORE_WITH_NORMALIZE_2,
                                                                   normalize_res=9)]}
                                ).run_score_plugins(CycleState(), POD, NODES)
    assert status is None
    assert [(r.name, r.total) for r in res] == [("node1", 7 * 3 + 9 * 2), ("node2", 40 * 3 + 18)]
    assert res[0].normalized == [("ByName", 7), (SCORE_WITH_NORMALIZE_2, 9)]


# ----- TestPreFilterPlugins / TestRunPreFilterPlugins ---------------------------------------

class CountingPreFilter(itf.PreFilterPlugin):
    """``TestPreFilterPlugin`` (no extensions) / ``TestPreFilterWithExtensionsPlugin``."""

    def __init__(self, name: str, extensions: bool) -> None:
        super().__init__(None, None)
        self.name = name  # type: ignore[misc]
        self.extensions = extensions
        self.pre_filter_called = self.add_called = self.remove_called = 0

    def pre_filter(self, state, pod, nodes):
        self.pre_filter_called += 1
        return None, None

    def pre_filter_extensions(self):
        return self if self.extensions else None

    def add_pod(self, state, pod, pi, node_info):
        self.add_called += 1

    def remove_pod(self, state, pod, pi, node_info):
        self.remove_called += 1


def test_pre_filter_plugins_call_counts():
    """framework_test.go TestPreFilterPlugins."""
    pf1 = CountingPreFilter("prefilter-plugin", extensions=False)
    pf2 = CountingPreFilter("prefilter-with-extensions-plugin", extensions=True)
    f = new_framework({"preFilter": [pf2, pf1]})
    state = CycleState()
    f.run_pre_filter_plugins(state, POD)
    f.run_pre_filter_extension_add_pod(state, POD, None, None)
    f.run_pre_filter_extension_remove_pod(state, POD, None, None)
    assert (pf1.pre_filter_called, pf2.pre_filter_called) == (1, 1)
    assert (pf2.add_called, pf2.remove_called) == (1, 1)


EMPTY = PreFilterResult(set())


@pytest.mark.parametrize("name,plugins,want_result,want_skipped,want_code", [
    ("all PreFilter returned success", [TPlugin("success1"), TPlugin("success2")],
     None, set(), S),
    ("one PreFilter plugin returned success, but another PreFilter plugin returned non-success",
     [TPlugin("success"), TPlugin("error", pre_filter=E)], None, set(), E),
    ("one PreFilter plugin returned skip, but another PreFilter plugin returned non-success",
     [TPlugin("skip", pre_filter=SK), TPlugin("error", pre_filter=E)], None, {"skip"}, E),
    ("all PreFilter plugins returned skip",
     [TPlugin("skip1", pre_filter=SK), TPlugin("skip2", pre_filter=SK),
      TPlugin("skip3", pre_filter=SK)], None, {"skip1", "skip2", "skip3"}, S),
    ("some PreFilter plugins returned skip",
     [TPlugin("skip1", pre_filter=SK), TPlugin("success1"), TPlugin("skip2", pre_filter=SK),
      TPlugin("success2")], None, {"skip1", "skip2"}, S),
    ("one PreFilter plugin returned Unschedulable, but another PreFilter plugin should be "
     "executed", [TPlugin("unschedulable", pre_filter=U), TPlugin("skip", pre_filter=SK)],
     None, {"skip"}, U),
    ("one PreFilter plugin returned UnschedulableAndUnresolvable, and all other plugins aren't "
     "executed", [TPlugin("unresolvable", pre_filter=UU), TPlugin("skip", pre_filter=SK)],
     None, set(), UU),
    ("all nodes are filtered out by prefilter result, but other plugins aren't executed because "
     "we consider all nodes are filtered out by UnschedulableAndUnresolvable",
     [TPlugin("reject-all-nodes", pre_filter_result=EMPTY), TPlugin("skip", pre_filter=SK)],
     set(), set(), UU),
])
def test_run_pre_filter_plugins(name, plugins, want_result, want_skipped, want_code):
    """framework_test.go TestRunPreFilterPlugins."""
    f = new_framework({"preFilter": plugins})
    state = CycleState()
    result, status, _ = f.run_pre_filter_plugins(state, POD)
    assert (None if result is None else result.node_names) == want_result
    assert (S if status is None else status.code) == want_code
    assert state.skip_filter_plugins == want_skipped


@pytest.mark.parametrize("name,plugins,want_status,want_result,want_plugins", [
    ("Error is wrapped and attributed",
     [TPlugin("success"), TPlugin("error", pre_filter=E)],
     st(E, plugin="error"), None, set()),
    ("Unschedulable keeps the plugin's status",
     [TPlugin("unschedulable", pre_filter=U), TPlugin("other")],
     st(U, INJECT_REASON, plugin="unschedulable"), None, set()),
    ("UnschedulableAndUnresolvable keeps the plugin's status",
     [TPlugin("unresolvable", pre_filter=UU)],
     st(UU, INJECT_REASON, plugin="unresolvable"), None, set()),
    ("one plugin empties the result",
     [TPlugin("p1", pre_filter_result=PreFilterResult({"a"})),
      TPlugin("p0", pre_filter_result=EMPTY)],
     st(UU, "node(s) didn't satisfy plugin(s) [p0 p1] simultaneously"), set(), {"p0", "p1"}),
    ("a single plugin with an empty result",
     [TPlugin("nil-result"), TPlugin("p2", pre_filter_result=EMPTY)],
     st(UU, "node(s) didn't satisfy plugin p2"), set(), {"p2"}),
    ("results are intersected; plugins with node sets are reported",
     [TPlugin("p1", pre_filter_result=PreFilterResult({"a", "b"})), TPlugin("all"),
      TPlugin("p2", pre_filter_result=PreFilterResult({"b", "c"}))],
     None, {"b"}, {"p1", "p2"}),
    ("Unschedulable is returned after the remaining plugins merged their results",
     [TPlugin("unsched", pre_filter=U),
      TPlugin("p1", pre_filter_result=PreFilterResult({"a"}))],
     st(U, INJECT_REASON, plugin="unsched"), {"a"}, {"p1"}),
])
def test_run_pre_filter_plugins_statuses(name, plugins, want_status, want_result, want_plugins):
    """framework.go RunPreFilterPlugins: statuses, messages and the plugins-with-nodes set
    (messages as in schedule_one_test.go TestSchedulerSchedulePod "test prefilter plugin
    returning non-intersecting nodes" / "... returning empty node set")."""
    f = new_framework({"preFilter": plugins})
    result, status, with_nodes = f.run_pre_filter_plugins(CycleState(), POD)
    if want_status is not None and want_status.code == E:
        assert status is not None and status.code == E and status.plugin == "error"
        assert status.message() == 'running PreFilter plugin "error": injected status'
    else:
        assert status_equal(status, want_status)
    assert (None if result is None else result.node_names) == want_result
    assert with_nodes == want_plugins


@pytest.mark.parametrize("point", ["add_pod", "remove_pod"])
@pytest.mark.parametrize("name,plugins,skipped,want_code", [
    ("no plugins are skipped and all returned success",
     [("success1", S), ("success2", S)], set(), S),
    ("one returned error", [("success1", S), ("error1", E)], set(), E),
    ("one is skipped", [("success1", S), ("skipped", E)], {"skipped"}, S),
])
def test_run_pre_filter_extensions(point, name, plugins, skipped, want_code):
    """framework_test.go TestRunPreFilterExtensionRemovePod / TestRunPreFilterExtensionAddPod."""
    f = new_framework({"preFilter": [TPlugin(n, **{point: c}) for n, c in plugins]})
    state = CycleState()
    state.skip_filter_plugins = set(skipped)
    run = (f.run_pre_filter_extension_add_pod if point == "add_pod"
           else f.run_pre_filter_extension_remove_pod)
    status = run(state, POD, None, NodeInfo(Node("n")))
    assert (S if status is None else status.code) == want_code
    if want_code == E:
        verb = "AddPod" if point == "add_pod" else "RemovePod"
        assert status.message() == (
            f'running {verb} on PreFilter plugin "error1": injected status')


# ----- TestFilterPlugins ----------------------------------------------------------------------

def filter_err(plugin: str) -> Status:
    return Status.as_error(f'running "{plugin}" filter plugin: {INJECT_FILTER_REASON}'
                           ).with_plugin(plugin)


@pytest.mark.parametrize("name,plugins,skipped,want", [
    ("SuccessFilter", [("TestPlugin", S)], set(), None),
    ("ErrorFilter", [("TestPlugin", E)], set(), filter_err("TestPlugin")),
    ("UnschedulableFilter", [("TestPlugin", U)], set(),
     st(U, INJECT_FILTER_REASON, plugin="TestPlugin")),
    ("UnschedulableAndUnresolvableFilter", [("TestPlugin", UU)], set(),
     st(UU, INJECT_FILTER_REASON, plugin="TestPlugin")),
    ("ErrorAndErrorFilters", [("TestPlugin1", E), ("TestPlugin2", E)], set(),
     filter_err("TestPlugin1")),
    ("UnschedulableAndUnschedulableFilters", [("TestPlugin1", U), ("TestPlugin2", U)], set(),
     st(U, INJECT_FILTER_REASON, plugin="TestPlugin1")),
    ("UnschedulableAndUnschedulableAndUnresolvableFilters",
     [("TestPlugin1", UU), ("TestPlugin2", U)], set(),
     st(UU, INJECT_FILTER_REASON, plugin="TestPlugin1")),
    ("SuccessAndSuccessFilters", [("TestPlugin1", S), ("TestPlugin2", S)], set(), None),
    ("SuccessAndSkipFilters", [("TestPlugin1", S), ("TestPlugin2", E)], {"TestPlugin2"}, None),
    ("ErrorAndSuccessFilters", [("TestPlugin1", E), ("TestPlugin2", S)], set(),
     filter_err("TestPlugin1")),
    ("SuccessAndErrorFilters", [("TestPlugin1", S), ("TestPlugin2", E)], set(),
     filter_err("TestPlugin2")),
    ("SuccessAndUnschedulableFilters", [("TestPlugin1", S), ("TestPlugin2", U)], set(),
     st(U, INJECT_FILTER_REASON, plugin="TestPlugin2")),
])
def test_filter_plugins(name, plugins, skipped, want):
    """framework_test.go TestFilterPlugins."""
    f = new_framework({"filter": [TPlugin(n, filter=c) for n, c in plugins]})
    state = CycleState()
    state.skip_filter_plugins = set(skipped)
    got = f.run_filter_plugins(state, POD, NodeInfo(Node("n")))
    assert status_equal(got, want)
    if want is not None:
        assert got.plugin == want.plugin


def test_filter_plugins_pending_is_a_rejection():
    """framework.go RunFilterPlugins: IsRejected covers Pending, returned as is with plugin."""
    f = new_framework({"filter": [TPlugin("P", filter=Code.PENDING)]})
    got = f.run_filter_plugins(CycleState(), POD, NodeInfo(Node("n")))
    assert status_equal(got, st(Code.PENDING, INJECT_FILTER_REASON, plugin="P"))


# ----- TestPostFilterPlugins ------------------------------------------------------------------

@pytest.mark.parametrize("name,plugins,want", [
    ("a single plugin makes a Pod schedulable", [("TestPlugin", S)], st(S, INJECT_REASON)),
    ("plugin1 failed to make a Pod schedulable, followed by plugin2 which makes the Pod "
     "schedulable", [("TestPlugin1", U), ("TestPlugin2", S)], st(S, INJECT_REASON)),
    ("plugin1 makes a Pod schedulable, followed by plugin2 which cannot make the Pod "
     "schedulable", [("TestPlugin1", S), ("TestPlugin2", U)], st(S, INJECT_REASON)),
    ("plugin1 errors, followed by plugin2 which makes the Pod schedulable",
     [("TestPlugin1", E), ("TestPlugin2", S)], err(INJECT_REASON).with_plugin("TestPlugin1")),
    ("plugin1 failed to make a Pod schedulable, followed by plugin2 which makes the Pod "
     "unresolvable", [("TestPlugin1", U), ("TestPlugin2", UU)],
     st(UU, INJECT_REASON, plugin="TestPlugin2")),
    ("both plugins failed to make a Pod schedulable", [("TestPlugin1", U), ("TestPlugin2", U)],
     st(U, INJECT_REASON, INJECT_REASON, plugin="TestPlugin1")),
])
def test_post_filter_plugins(name, plugins, want):
    """framework_test.go TestPostFilterPlugins."""
    f = new_framework({"postFilter": [TPlugin(n, post_filter=c) for n, c in plugins]})
    _, got = f.run_post_filter_plugins(CycleState(), POD, Diagnosis())
    assert status_equal(got, want)
    if want.code == E:
        assert got.plugin == "TestPlugin1"


# ----- TestFilterPluginsWithNominatedPods ----------------------------------------------------

def mkpod(name: str, priority: int = 0) -> Pod:
    pod = Pod("", name, name, priority=priority)
    pod.resources = compute_pod_resources(pod)
    return pod


LOW = mkpod("low", 0)
HIGH = mkpod("high", 1000)


@pytest.mark.parametrize("name,pre_filter,filter_pl,pod,nominated,want", [
    ("node has no nominated pod", None, None, LOW, None, None),
    ("node has a high-priority nominated pod and all filters succeed",
     TPlugin("TestPlugin1", add_pod=S), TPlugin("TestPlugin2", filter=S), LOW, HIGH, None),
    ("node has a high-priority nominated pod and pre filters fail",
     TPlugin("TestPlugin1", add_pod=E), None, LOW, HIGH,
     err('running AddPod on PreFilter plugin "TestPlugin1": injected status')),
    ("node has a high-priority nominated pod and filters fail",
     TPlugin("TestPlugin1", add_pod=S), TPlugin("TestPlugin2", filter=E), LOW, HIGH,
     filter_err("TestPlugin2")),
    ("node has a low-priority nominated pod and pre filters return unschedulable",
     TPlugin("TestPlugin1", add_pod=U), TPlugin("TestPlugin2", filter=S), HIGH, LOW, None),
])
def test_filter_plugins_with_nominated_pods(name, pre_filter, filter_pl, pod, nominated, want):
    """framework_test.go TestFilterPluginsWithNominatedPods."""
    nominator = Nominator()
    if nominated is not None:
        nominator.add_nominated_pod(PodInfo(nominated), NominatingInfo("testNode", MODE_OVERRIDE))
    points: dict[str, list] = {}
    if pre_filter is not None:
        points["preFilter"] = [pre_filter]
    if filter_pl is not None:
        points["filter"] = [filter_pl]
    f = new_framework(points, nominator=nominator)
    got = f.run_filter_plugins_with_nominated_pods(CycleState(), pod, NodeInfo(Node("testNode")))
    assert status_equal(got, want)


def test_filter_with_nominated_pods_runs_twice_and_uses_a_copy():
    """framework.go RunFilterPluginsWithNominatedPods / addGENominatedPods: the first pass sees
    the nominated pod on a copy of the node; a success is re-checked without it; the caller's
    NodeInfo and CycleState are left unchanged."""
    seen: list[int] = []

    class CountPods(itf.FilterPlugin):
        name = "CountPods"

        def filter(self, state, pod, node_info):
            seen.append(len(node_info.pods))
            return None

    nominator = Nominator()
    nominated = mkpod("nom", 5)
    nominator.add_nominated_pod(PodInfo(nominated), NominatingInfo("n", MODE_OVERRIDE))
    f = new_framework({"filter": [CountPods()]}, nominator=nominator)
    ni = NodeInfo(Node("n"))
    assert f.run_filter_plugins_with_nominated_pods(CycleState(), mkpod("p", 5), ni) is None
    assert seen == [1, 0]
    assert ni.pods == []
    seen.clear()
    # the nominated pod itself is never added (same UID)
    f.run_filter_plugins_with_nominated_pods(CycleState(), nominated, ni)
    assert seen == [0]


# ----- TestPreBindPlugins / TestPreBindPreFlightPlugins --------------------------------------

def wrapped(point: str, plugin: str) -> Status:
    return err(f'running {point} plugin "{plugin}": {INJECT_REASON}')


@pytest.mark.parametrize("name,plugins,want", [
    ("NoPreBindPlugin", [], None),
    ("SuccessPreBindPlugins", [("TestPlugin", S)], None),
    ("UnschedulablePreBindPlugin", [("TestPlugin", U)],
     st(U, INJECT_REASON, plugin="TestPlugin")),
    ("ErrorPreBindPlugin", [("TestPlugin", E)], wrapped("PreBind", "TestPlugin")),
    ("UnschedulableAndUnresolvablePreBindPlugin", [("TestPlugin", UU)],
     st(UU, INJECT_REASON, plugin="TestPlugin")),
    ("SuccessErrorPreBindPlugins", [("TestPlugin", S), ("TestPlugin 1", E)],
     wrapped("PreBind", "TestPlugin 1")),
    ("ErrorSuccessPreBindPlugin", [("TestPlugin", E), ("TestPlugin 1", S)],
     wrapped("PreBind", "TestPlugin")),
    ("SuccessSuccessPreBindPlugin", [("TestPlugin", S), ("TestPlugin 1", S)], None),
    ("ErrorAndErrorPlugins", [("TestPlugin", E), ("TestPlugin 1", E)],
     wrapped("PreBind", "TestPlugin")),
    ("UnschedulableAndSuccessPreBindPlugin", [("TestPlugin", U), ("TestPlugin 1", S)],
     st(U, INJECT_REASON, plugin="TestPlugin")),
])
def test_pre_bind_plugins(name, plugins, want):
    """framework_test.go TestPreBindPlugins."""
    f = new_framework({"preBind": [TPlugin(n, pre_bind=c) for n, c in plugins]})
    assert status_equal(f.run_pre_bind_plugins(CycleState(), POD, ""), want)


def test_pre_bind_skips_plugins_skipped_at_pre_flight():
    """framework.go RunPreBindPlugins: plugins in the state's skip set are not run."""
    a, b = TPlugin("a", pre_bind_pre_flight=SK, pre_bind=E), TPlugin("b")
    f = new_framework({"preBind": [a, b]})
    state = CycleState()
    assert f.run_pre_bind_pre_flights(state, POD, "n") is None
    assert state.skip_pre_bind_plugins == {"a"}
    assert f.run_pre_bind_plugins(state, POD, "n") is None
    assert "pre_bind" not in a.calls and "pre_bind" in b.calls


@pytest.mark.parametrize("name,plugins,want", [
    ("Skip when there's no PreBind Plugin", [], st(SK)),
    ("Success when PreBindPreFlight returns Success",
     [("TestPlugin1", SK), ("TestPlugin2", S)], None),
    ("Skip when all PreBindPreFlight returns Skip",
     [("TestPlugin1", SK), ("TestPlugin2", SK)], st(SK)),
    ("Error when PreBindPreFlight returns Error", [("TestPlugin1", SK), ("TestPlugin2", E)],
     err('running PreBindPreFlight "TestPlugin2": injected status')),
    ("Error when PreBindPreFlight returns Unschedulable", [("TestPlugin", U)],
     err('PreBindPreFlight TestPlugin returned "Unschedulable", which is unsupported. It is '
         "supposed to return Success, Skip, or Error status")),
])
def test_pre_bind_pre_flight_plugins(name, plugins, want):
    """framework_test.go TestPreBindPreFlightPlugins."""
    f = new_framework({"preBind": [TPlugin(n, pre_bind_pre_flight=c) for n, c in plugins]})
    got = f.run_pre_bind_pre_flights(CycleState(), POD, "")
    assert status_equal(got, want)
    if want is not None:
        assert got is not None and got.code == want.code


# ----- TestReservePlugins ---------------------------------------------------------------------

@pytest.mark.parametrize("name,plugins,want", [
    ("NoReservePlugin", [], None),
    ("SuccessReservePlugins", [("TestPlugin", S)], None),
    ("UnschedulableReservePlugin", [("TestPlugin", U)],
     st(U, INJECT_REASON, plugin="TestPlugin")),
    ("ErrorReservePlugin", [("TestPlugin", E)], wrapped("Reserve", "TestPlugin")),
    ("UnschedulableAndUnresolvableReservePlugin", [("TestPlugin", UU)],
     st(UU, INJECT_REASON, plugin="TestPlugin")),
    ("SuccessSuccessReservePlugins", [("TestPlugin", S), ("TestPlugin 1", S)], None),
    ("ErrorErrorReservePlugins", [("TestPlugin", E), ("TestPlugin 1", E)],
     wrapped("Reserve", "TestPlugin")),
    ("SuccessErrorReservePlugins", [("TestPlugin", S), ("TestPlugin 1", E)],
     wrapped("Reserve", "TestPlugin 1")),
    ("ErrorSuccessReservePlugin", [("TestPlugin", E), ("TestPlugin 1", S)],
     wrapped("Reserve", "TestPlugin")),
    ("UnschedulableAndSuccessReservePlugin", [("TestPlugin", U), ("TestPlugin 1", S)],
     st(U, INJECT_REASON, plugin="TestPlugin")),
])
def test_reserve_plugins(name, plugins, want):
    """framework_test.go TestReservePlugins."""
    f = new_framework({"reserve": [TPlugin(n, reserve=c) for n, c in plugins]})
    assert status_equal(f.run_reserve_plugins_reserve(CycleState(), POD, ""), want)


def test_unreserve_runs_in_reverse_order():
    """framework.go RunReservePluginsUnreserve: the reverse of the Reserve order."""
    order: list[str] = []

    class R(itf.ReservePlugin):
        def __init__(self, name):
            super().__init__(None, None)
            self.name = name  # type: ignore[misc]

        def reserve(self, state, pod, node_name):
            order.append("reserve " + self.name)

        def unreserve(self, state, pod, node_name):
            order.append("unreserve " + self.name)

    f = new_framework({"reserve": [R("a"), R("b"), R("c")]})
    f.run_reserve_plugins_reserve(CycleState(), POD, "n")
    f.run_reserve_plugins_unreserve(CycleState(), POD, "n")
    assert order == ["reserve a", "reserve b", "reserve c",
                     "unreserve c", "unreserve b", "unreserve a"]


# ----- TestPermitPlugins ----------------------------------------------------------------------

@pytest.mark.parametrize("name,plugins,want,want_wait", [
    ("NilPermitPlugin", [], None, {}),
    ("SuccessPermitPlugin", [("TestPlugin", S, 0)], None, {}),
    ("UnschedulablePermitPlugin", [("TestPlugin", U, 0)],
     st(U, INJECT_REASON, plugin="TestPlugin"), {}),
    ("ErrorPermitPlugin", [("TestPlugin", E, 0)],
     wrapped("Permit", "TestPlugin").with_plugin("TestPlugin"), {}),
    ("UnschedulableAndUnresolvablePermitPlugin", [("TestPlugin", UU, 0)],
     st(UU, INJECT_REASON, plugin="TestPlugin"), {}),
    ("WaitPermitPlugin", [("TestPlugin", W, 0), ("TestPlugin2", W, 1)],
     st(W, "injected status, one or more plugins asked to wait and no plugin rejected pod"),
     {"TestPlugin": 0, "TestPlugin2": 1}),
    ("SuccessSuccessPermitPlugin", [("TestPlugin", S, 0), ("TestPlugin 1", S, 0)], None, {}),
    ("ErrorAndErrorPlugins", [("TestPlugin", E, 0), ("TestPlugin 1", E, 0)],
     wrapped("Permit", "TestPlugin").with_plugin("TestPlugin"), {}),
])
def test_permit_plugins(name, plugins, want, want_wait):
    """framework_test.go TestPermitPlugins (timeouts in seconds)."""
    f = new_framework({"permit": [TPlugin(n, permit=c, permit_timeout=t)
                                  for n, c, t in plugins]})
    wait, got = f.run_permit_plugins(CycleState(), POD, "")
    assert status_equal(got, want)
    if want is not None and want.code == E:
        assert got.plugin == "TestPlugin"
    assert (wait or {}) == want_wait


def test_permit_timeout_is_capped_at_15_minutes():
    """framework.go RunPermitPlugins: ``if timeout > maxTimeout { timeout = maxTimeout }``."""
    f = new_framework({"permit": [TPlugin("p", permit=W, permit_timeout=3600)]})
    wait, status = f.run_permit_plugins(CycleState(), POD, "n")
    assert status is not None and status.code == W
    assert wait == {"p": 15 * 60}


# ----- TestRunBindPlugins ---------------------------------------------------------------------

@pytest.mark.parametrize("name,injects,want", [
    ("simple success", [S], S),
    ("error on second", [SK, E, S], E),
    ("all skip", [SK, SK, SK], SK),
    ("error on third, but not reached", [SK, S, E], S),
    ("no bind plugin, returns default binder", [], S),
    ("invalid status", [U], U),
    ("simple error", [E], E),
    ("success on second, returns success", [SK, S], S),
    ("invalid status, returns error", [SK, UU], UU),
    ("error after success status, returns success", [S, E], S),
    ("success before invalid status, returns success", [S, E], S),
    ("success after error status, returns error", [E, S], E),
])
def test_run_bind_plugins(name, injects, want):
    """framework_test.go TestRunBindPlugins."""
    f = new_framework({"bind": [TPlugin(f"bind-{i}", bind=c) for i, c in enumerate(injects)]},
                      default_bind=True)
    got = f.run_bind_plugins(CycleState(), POD, "")
    assert (S if got is None else got.code) == want


def test_run_bind_plugins_without_binders_is_skip():
    """framework.go RunBindPlugins: no bind plugins gives ``NewStatus(Skip, "")``."""
    got = new_framework({}).run_bind_plugins(CycleState(), POD, "n")
    assert got is not None and got.code == SK


def test_run_bind_plugins_messages():
    """framework.go RunBindPlugins: Error wrapped ``running Bind plugin %q: %w``; a rejection
    is returned with its plugin."""
    got = new_framework({"bind": [TPlugin("b", bind=E)]}).run_bind_plugins(CycleState(), POD, "")
    assert status_equal(got, wrapped("Bind", "b"))
    got = new_framework({"bind": [TPlugin("b", bind=U)]}).run_bind_plugins(CycleState(), POD, "")
    assert status_equal(got, st(U, INJECT_REASON, plugin="b"))


# ----- TestPreEnqueuePlugins ------------------------------------------------------------------

class PreEnqueue(itf.PreEnqueuePlugin):
    name = "preEnqueuePlugin"

    def pre_enqueue(self, pod):
        return None


@pytest.mark.parametrize("name,plugins", [
    ("no PreEnqueuePlugin registered", []),
    ("one PreEnqueuePlugin registered", [PreEnqueue()]),
])
def test_pre_enqueue_plugins(name, plugins):
    """framework_test.go TestPreEnqueuePlugins."""
    f = new_framework({"preEnqueue": plugins})
    assert f.pre_enqueue_plugins == plugins
    assert f.run_pre_enqueue_plugins(POD) is None


# ----- Diagnosis ------------------------------------------------------------------------------

def test_diagnosis_add_plugin_status_ignores_statuses_without_plugin():
    """types.go Diagnosis.AddPluginStatus: ``if sts.Plugin() == "" { return }``."""
    d = Diagnosis()
    d.add_plugin_status(st(U, "r"))
    assert d.unschedulable_plugins == set() and d.pending_plugins == set()
    d.add_plugin_status(st(UU, "r", plugin="A"))
    d.add_plugin_status(st(U, "r", plugin="B"))
    assert d.unschedulable_plugins == {"A", "B"}


def test_diagnosis_pending_plugin_is_also_unschedulable():
    """Derived from pkg/scheduler/framework/types.go Diagnosis.AddPluginStatus."""
    d = Diagnosis()
    d.add_plugin_status(st(Code.PENDING, "wait", plugin="P"))
    assert d.pending_plugins == {"P"}
    assert d.unschedulable_plugins == {"P"}


def test_diagnosis_absent_nodes_default_status():
    """types.go NewDefaultNodeToStatus: absent nodes are UnschedulableAndUnresolvable."""
    d = Diagnosis()
    d.node_to_status["a"] = st(U, "x", plugin="F")
    assert d.status_of("a").code == U
    absent = d.status_of("zzz")
    assert absent.code == UU and absent.all_reasons() == []
