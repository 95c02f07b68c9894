"""KubeSchedulerConfiguration loading (reference_impl/config), restating upstream's tests.

Sources (v1.37.2): pkg/scheduler/apis/config/v1/default_plugins_test.go, defaults_test.go,
pkg/scheduler/apis/config/scheme/scheme_test.go, pkg/scheduler/apis/config/validation/
validation_test.go and validation_pluginargs_test.go, pkg/scheduler/framework/runtime/
framework_test.go, cmd/kube-scheduler/app/server_test.go and options/options_test.go.
Upstream compares validation errors by type and field only (ignoreBadValueDetail); so do the
restated cases here, while the error-message tests at the end pin the full text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from reference_impl.config import ConfigError, default_config, load_config
from reference_impl.config import args as a
from reference_impl.config import plugin_args as pa
from reference_impl.config.errors import FieldError
from reference_impl.config.loader import decode_configuration, set_defaults
from reference_impl.config.plugins import (
    FrameworkError,
    PluginRef,
    Plugins,
    PluginSet,
    expand_plugins,
    merge_plugins,
    new_plugins,
)
from reference_impl.config.schema import format_go_duration, parse_go_duration
from reference_impl.config.types import (
    InternalConfiguration,
    InternalProfile,
    PluginConfigEntry,
)
from reference_impl.config.validation import validate_configuration
from reference_impl.framework import interfaces as itf
from reference_impl.model.objects import (
    LabelSelector,
    LabelSelectorRequirement,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
    TopologySpreadConstraint,
)
from reference_impl.releases import ReleaseData
from reference_impl.releases.current import RELEASE

API = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}

# ------------------------------------------------------------------------------ helpers


def plugin_set(enabled: Sequence[Any] = (), disabled: Sequence[Any] = ()) -> PluginSet:
    def ref(p: Any) -> PluginRef:
        return PluginRef(p) if isinstance(p, str) else PluginRef(*p)
    return PluginSet([ref(p) for p in enabled], [ref(p) for p in disabled])


def plugins(**points: dict[str, list[Any]]) -> Plugins:
    """``plugins(filter={"enabled": ["A", ("B", 2)], "disabled": ["C"]})``."""
    out = new_plugins()
    for point, s in points.items():
        out[point] = plugin_set(s.get("enabled", []), s.get("disabled", []))
    return out


def summary(p: Plugins) -> dict[str, dict[str, list[tuple[str, int]]]]:
    """The non-empty sets as ``{point: {"enabled": [(name, weight)], "disabled": [...]}}``."""
    out: dict[str, dict[str, list[tuple[str, int]]]] = {}
    for point, s in p.items():
        d = {k: [(r.name, r.weight) for r in getattr(s, k)] for k in ("enabled", "disabled")}
        d = {k: v for k, v in d.items() if v}
        if d:
            out[point] = d
    return out


def fake(name: str, *bases: type) -> type:
    return type(name.title().replace("-", ""), bases or (itf.Plugin,), {"name": name})


def lists(result: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Final lists without the empty points; Score entries as (name, weight), others names."""
    return {point: [tuple(e) if point == "score" else e.name for e in entries]
            for point, entries in result.items() if entries}


def kinds(errors: list[FieldError]) -> list[tuple[str, str]]:
    return [(e.type, e.field) for e in errors]


def off(*gates: str) -> ReleaseData:
    """The pinned release with ``gates`` off."""
    return RELEASE.with_gates(dict.fromkeys(gates, False))


def on(*gates: str) -> ReleaseData:
    """The pinned release with ``gates`` on."""
    return RELEASE.with_gates(dict.fromkeys(gates, True))


INVALID, REQUIRED, DUPLICATE = "Invalid value", "Required value", "Duplicate value"
NOT_SUPPORTED, FORBIDDEN = "Unsupported value", "Forbidden"

P = itf
# The extension points each in-tree plugin implements at v1.37.2, as the expanded default
# profile shows them (pkg/scheduler/apis/config/testing/defaults/defaults.go ExpandedPluginsV1).
_IN_TREE = {
    "SchedulingGates": (P.PreEnqueuePlugin,),
    "PrioritySort": (P.QueueSortPlugin,),
    "NodeName": (P.PreFilterPlugin, P.FilterPlugin),
    "NodeUnschedulable": (P.PreFilterPlugin, P.FilterPlugin),
    "TaintToleration": (P.PreFilterPlugin, P.FilterPlugin, P.PreScorePlugin, P.ScorePlugin),
    "NodeAffinity": (P.PreFilterPlugin, P.FilterPlugin, P.PreScorePlugin, P.ScorePlugin),
    "NodePorts": (P.PreFilterPlugin, P.FilterPlugin),
    "NodeResourcesFit": (P.PreFilterPlugin, P.FilterPlugin, P.PreScorePlugin, P.ScorePlugin),
    "VolumeRestrictions": (P.PreFilterPlugin, P.FilterPlugin),
    "NodeVolumeLimits": (P.PreFilterPlugin, P.FilterPlugin),
    "VolumeBinding": (P.PreFilterPlugin, P.FilterPlugin, P.PreScorePlugin, P.ScorePlugin,
                      P.ReservePlugin, P.PreBindPlugin),
    "VolumeZone": (P.PreFilterPlugin, P.FilterPlugin),
    "PodTopologySpread": (P.PreFilterPlugin, P.FilterPlugin, P.PreScorePlugin, P.ScorePlugin),
    "InterPodAffinity": (P.PreFilterPlugin, P.FilterPlugin, P.PreScorePlugin, P.ScorePlugin),
    "DynamicResources": (P.PreEnqueuePlugin, P.PreFilterPlugin, P.FilterPlugin,
                         P.PostFilterPlugin, P.ScorePlugin, P.ReservePlugin, P.PreBindPlugin),
    "DefaultPreemption": (P.PreEnqueuePlugin, P.PostFilterPlugin),
    "NodeResourcesBalancedAllocation": (P.PreScorePlugin, P.ScorePlugin),
    "ImageLocality": (P.ScorePlugin,),
    "DefaultBinder": (P.BindPlugin,),
    "NodeDeclaredFeatures": (P.PreFilterPlugin, P.FilterPlugin),
}
REGISTRY = {name: fake(name, *bases) for name, bases in _IN_TREE.items()}

_FILTERS = ["NodeName", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodePorts",
            "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
            "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources",
            "NodeDeclaredFeatures"]
# ExpandedPluginsV1 (PlacementScore / PodGroupPostFilter have no Python counterpart).
EXPANDED_V1: dict[str, list[Any]] = {
    "preEnqueue": ["SchedulingGates", "DynamicResources", "DefaultPreemption"],
    "queueSort": ["PrioritySort"],
    "preFilter": _FILTERS,
    "filter": _FILTERS,
    "postFilter": ["DynamicResources", "DefaultPreemption"],
    "preScore": ["TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding",
                 "PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation"],
    "score": [("TaintToleration", 3), ("NodeAffinity", 2), ("NodeResourcesFit", 1),
              ("VolumeBinding", 1), ("PodTopologySpread", 2), ("InterPodAffinity", 2),
              ("DynamicResources", 2), ("NodeResourcesBalancedAllocation", 1),
              ("ImageLocality", 1)],
    "reserve": ["VolumeBinding", "DynamicResources"],
    "preBind": ["VolumeBinding", "DynamicResources"],
    "bind": ["DefaultBinder"],
}

# Typed args of PluginConfigsV1 (testing/defaults/defaults.go).
CPU_MEM = (a.ResourceSpec("cpu", 1), a.ResourceSpec("memory", 1))
PLUGIN_CONFIGS_V1 = {
    "DefaultPreemption": a.DefaultPreemptionArgs(10, 100),
    "DynamicResources": a.DynamicResourcesArgs(10.0, 600.0),
    "InterPodAffinity": a.InterPodAffinityArgs(1, False),
    "NodeAffinity": a.NodeAffinityArgs(None),
    "NodeResourcesBalancedAllocation": a.NodeResourcesBalancedAllocationArgs(CPU_MEM),
    "NodeResourcesFit": a.NodeResourcesFitArgs((), (), a.ScoringStrategy("LeastAllocated",
                                                                         CPU_MEM, None)),
    "PodTopologySpread": a.PodTopologySpreadArgs((), "System"),
    "VolumeBinding": a.VolumeBindingArgs(600, (a.UtilizationShapePoint(0, 10),
                                               a.UtilizationShapePoint(100, 0))),
}


def defaulted(cfg: dict[str, Any], release: ReleaseData = RELEASE) -> InternalConfiguration:
    internal = decode_configuration({**API, **cfg})
    set_defaults(internal, release)
    return internal


def typed_args(profile: InternalProfile) -> dict[str, Any]:
    return {c.name: pa.to_typed(c.kind, c.args) if c.kind else c.args
            for c in profile.plugin_config}


# ============================================= default_plugins_test.go TestMergePlugins

MERGE_CASES = [
    ("AppendCustomPlugin",
     plugins(filter={"enabled": ["CustomPlugin"]}),
     plugins(filter={"enabled": ["DefaultPlugin1", "DefaultPlugin2"]}),
     {"filter": {"enabled": [("DefaultPlugin1", 0), ("DefaultPlugin2", 0),
                             ("CustomPlugin", 0)]}}),
    ("InsertAfterDefaultPlugins2",
     plugins(filter={"enabled": ["CustomPlugin", "DefaultPlugin2"],
                     "disabled": ["DefaultPlugin2"]}),
     plugins(filter={"enabled": ["DefaultPlugin1", "DefaultPlugin2"]}),
     {"filter": {"enabled": [("DefaultPlugin1", 0), ("CustomPlugin", 0),
                             ("DefaultPlugin2", 0)],
                 "disabled": [("DefaultPlugin2", 0)]}}),
    ("InsertBeforeAllPlugins",
     plugins(filter={"enabled": ["CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"],
                     "disabled": ["*"]}),
     plugins(filter={"enabled": ["DefaultPlugin1", "DefaultPlugin2"]}),
     {"filter": {"enabled": [("CustomPlugin", 0), ("DefaultPlugin1", 0),
                             ("DefaultPlugin2", 0)],
                 "disabled": [("*", 0)]}}),
    ("ReorderDefaultPlugins",
     plugins(filter={"enabled": ["DefaultPlugin2", "DefaultPlugin1"], "disabled": ["*"]}),
     plugins(filter={"enabled": ["DefaultPlugin1", "DefaultPlugin2"]}),
     {"filter": {"enabled": [("DefaultPlugin2", 0), ("DefaultPlugin1", 0)],
                 "disabled": [("*", 0)]}}),
    ("ApplyNilCustomPlugin",
     None,
     plugins(filter={"enabled": ["DefaultPlugin1", "DefaultPlugin2"]}),
     {"filter": {"enabled": [("DefaultPlugin1", 0), ("DefaultPlugin2", 0)]}}),
    ("CustomPluginOverrideDefaultPlugin",
     plugins(filter={"enabled": [("Plugin1", 2), ("Plugin3", 3)]}),
     plugins(filter={"enabled": ["Plugin1", "Plugin2", "Plugin3"]}),
     {"filter": {"enabled": [("Plugin1", 2), ("Plugin2", 0), ("Plugin3", 3)]}}),
    ("OrderPreserveAfterOverride",
     plugins(filter={"enabled": [("Plugin2", 2), ("Plugin1", 1)]}),
     plugins(filter={"enabled": ["Plugin1", "Plugin2", "Plugin3"]}),
     {"filter": {"enabled": [("Plugin1", 1), ("Plugin2", 2), ("Plugin3", 0)]}}),
    ("RepeatedCustomPlugin",
     plugins(filter={"enabled": ["Plugin1", ("Plugin2", 2), "Plugin3", ("Plugin2", 4)]}),
     plugins(filter={"enabled": ["Plugin1", "Plugin2", "Plugin3"]}),
     {"filter": {"enabled": [("Plugin1", 0), ("Plugin2", 4), ("Plugin3", 0), ("Plugin2", 2)]}}),
    ("Append custom MultiPoint plugin",
     plugins(multiPoint={"enabled": ["CustomPlugin"]}),
     plugins(multiPoint={"enabled": ["DefaultPlugin1", "DefaultPlugin2"]}),
     {"multiPoint": {"enabled": [("DefaultPlugin1", 0), ("DefaultPlugin2", 0),
                                 ("CustomPlugin", 0)]}}),
    ("Append disabled Multipoint plugins",
     plugins(multiPoint={"enabled": ["CustomPlugin", "CustomPlugin2"],
                         "disabled": ["DefaultPlugin2"]},
             score={"disabled": ["CustomPlugin2"]}),
     plugins(multiPoint={"enabled": ["DefaultPlugin1", "DefaultPlugin2"]}),
     {"multiPoint": {"enabled": [("DefaultPlugin1", 0), ("CustomPlugin", 0),
                                 ("CustomPlugin2", 0)],
                     "disabled": [("DefaultPlugin2", 0)]},
      "score": {"disabled": [("CustomPlugin2", 0)]}}),
    ("override default MultiPoint plugins with custom value",
     plugins(multiPoint={"enabled": [("DefaultPlugin", 5)]}),
     plugins(multiPoint={"enabled": ["DefaultPlugin"]}),
     {"multiPoint": {"enabled": [("DefaultPlugin", 5)]}}),
    ("disabled MultiPoint plugin in default set",
     plugins(multiPoint={"enabled": ["CustomPlugin"]}),
     plugins(multiPoint={"enabled": ["DefaultPlugin"], "disabled": ["DefaultPlugin2"]}),
     {"multiPoint": {"enabled": [("DefaultPlugin", 0), ("CustomPlugin", 0)],
                     "disabled": [("DefaultPlugin2", 0)]}}),
    ("disabled MultiPoint plugin in default set for specific extension point",
     plugins(multiPoint={"enabled": ["CustomPlugin"]}),
     plugins(multiPoint={"enabled": ["DefaultPlugin"]}, score={"disabled": ["DefaultPlugin2"]}),
     {"multiPoint": {"enabled": [("DefaultPlugin", 0), ("CustomPlugin", 0)]},
      "score": {"disabled": [("DefaultPlugin2", 0)]}}),
    ("multipoint with only disabled gets merged",
     plugins(multiPoint={"disabled": ["DefaultPlugin"]}),
     plugins(multiPoint={"enabled": ["DefaultPlugin"]}),
     {"multiPoint": {"disabled": [("DefaultPlugin", 0)]}}),
]


@pytest.mark.parametrize(("custom", "default", "want"), [c[1:] for c in MERGE_CASES],
                         ids=[c[0] for c in MERGE_CASES])
def test_merge_plugins(custom: Plugins | None, default: Plugins, want: dict) -> None:
    """default_plugins_test.go TestMergePlugins."""
    assert summary(merge_plugins(default, custom)) == want


# ============================== framework_test.go TestNewFrameworkMultiPointExpansion etc.

TEST_PLUGIN = "test-plugin"
SCORE_PLUGIN_1, SCORE_PLUGIN_2 = "score-plugin-1", "score-plugin-2"
SCORE_WITH_NORMALIZE_1 = "score-with-normalize-plugin-1"
PLACEMENT_SCORE_1 = "placement-score-plugin-1"
QUEUE_SORT, BIND = "no-op-queue-sort-plugin", "bind-plugin"
NOT_SCORE, DUPLICATE_PLUGIN = "plugin-not-implementing-score", "duplicate-plugin"
FW_REGISTRY = {
    # TestPlugin implements every extension point but PreEnqueue.
    TEST_PLUGIN: fake(TEST_PLUGIN, P.QueueSortPlugin, P.PreFilterPlugin, P.FilterPlugin,
                      P.PostFilterPlugin, P.PreScorePlugin, P.ScorePlugin, P.ReservePlugin,
                      P.PermitPlugin, P.PreBindPlugin, P.BindPlugin, P.PostBindPlugin),
    SCORE_PLUGIN_1: fake(SCORE_PLUGIN_1, P.PreScorePlugin, P.ScorePlugin),  # TestScorePlugin
    SCORE_PLUGIN_2: fake(SCORE_PLUGIN_2, P.PreScorePlugin, P.ScorePlugin),
    SCORE_WITH_NORMALIZE_1: fake(SCORE_WITH_NORMALIZE_1, P.ScorePlugin),
    PLACEMENT_SCORE_1: fake(PLACEMENT_SCORE_1),  # PlacementScore only: nothing in Python
    QUEUE_SORT: fake(QUEUE_SORT, P.QueueSortPlugin),
    BIND: fake(BIND, P.BindPlugin),
    NOT_SCORE: fake(NOT_SCORE, P.FilterPlugin),
    DUPLICATE_PLUGIN: fake(DUPLICATE_PLUGIN, P.PreFilterPlugin),
}
_ALL_TEST = {p: [TEST_PLUGIN] for p in ("queueSort", "preFilter", "filter", "postFilter",
                                         "preScore", "reserve", "permit", "preBind", "bind",
                                         "postBind")}

EXPANSION_CASES = [
    ("plugin expansion",
     plugins(multiPoint={"enabled": [(TEST_PLUGIN, 5)]}),
     {**_ALL_TEST, "score": [(TEST_PLUGIN, 5)]}),
    ("disable MultiPoint plugin at some extension points",
     plugins(multiPoint={"enabled": [TEST_PLUGIN]}, preScore={"disabled": [TEST_PLUGIN]},
             score={"disabled": [TEST_PLUGIN]}),
     {k: v for k, v in _ALL_TEST.items() if k != "preScore"}),
    ("Multiple MultiPoint plugins",
     plugins(multiPoint={"enabled": [TEST_PLUGIN, SCORE_PLUGIN_1, PLACEMENT_SCORE_1]}),
     {**_ALL_TEST, "preScore": [TEST_PLUGIN, SCORE_PLUGIN_1],
      "score": [(TEST_PLUGIN, 1), (SCORE_PLUGIN_1, 1)]}),
    ("disable MultiPoint extension",
     plugins(multiPoint={"enabled": [TEST_PLUGIN, SCORE_PLUGIN_1]},
             preScore={"disabled": ["*"]}),
     {**{k: v for k, v in _ALL_TEST.items() if k != "preScore"},
      "score": [(TEST_PLUGIN, 1), (SCORE_PLUGIN_1, 1)]}),
    ("Reorder MultiPoint plugins (specified extension takes precedence)",
     plugins(multiPoint={"enabled": [SCORE_WITH_NORMALIZE_1, TEST_PLUGIN, SCORE_PLUGIN_1]},
             score={"enabled": [SCORE_PLUGIN_1, TEST_PLUGIN]}),
     {**_ALL_TEST, "preScore": [TEST_PLUGIN, SCORE_PLUGIN_1],
      "score": [(SCORE_PLUGIN_1, 1), (TEST_PLUGIN, 1), (SCORE_WITH_NORMALIZE_1, 1)]}),
    ("Reorder MultiPoint plugins (specified extension only takes precedence when it exists in "
     "MultiPoint)",
     plugins(multiPoint={"enabled": [TEST_PLUGIN, SCORE_PLUGIN_1]},
             score={"enabled": [SCORE_WITH_NORMALIZE_1, SCORE_PLUGIN_1, TEST_PLUGIN]}),
     {**_ALL_TEST, "preScore": [TEST_PLUGIN, SCORE_PLUGIN_1],
      "score": [(SCORE_PLUGIN_1, 1), (TEST_PLUGIN, 1), (SCORE_WITH_NORMALIZE_1, 1)]}),
    ("Override MultiPoint plugins weights",
     plugins(multiPoint={"enabled": [TEST_PLUGIN, SCORE_PLUGIN_1]},
             score={"enabled": [(SCORE_PLUGIN_1, 5), (TEST_PLUGIN, 3)]},
             placementScore={"enabled": [(TEST_PLUGIN, 2)]}),
     None),  # placementScore has no Python interface: see test_placement_points_are_refused
    ("disable and enable MultiPoint plugins with '*'",
     plugins(multiPoint={"enabled": [QUEUE_SORT, BIND, SCORE_PLUGIN_1, PLACEMENT_SCORE_1],
                         "disabled": ["*"]}),
     {"queueSort": [QUEUE_SORT], "preScore": [SCORE_PLUGIN_1], "score": [(SCORE_PLUGIN_1, 1)],
      "bind": [BIND]}),
    ("disable and enable MultiPoint plugin by name",
     plugins(multiPoint={"enabled": [BIND, QUEUE_SORT, SCORE_PLUGIN_1],
                         "disabled": [SCORE_PLUGIN_1]}),
     {"queueSort": [QUEUE_SORT], "preScore": [SCORE_PLUGIN_1], "score": [(SCORE_PLUGIN_1, 1)],
      "bind": [BIND]}),
    ("Override MultiPoint plugins weights and avoid a plugin being loaded multiple times",
     plugins(multiPoint={"enabled": [TEST_PLUGIN, SCORE_PLUGIN_1, PLACEMENT_SCORE_1]},
             score={"enabled": [(SCORE_PLUGIN_1, 5), (SCORE_PLUGIN_2, 5), (TEST_PLUGIN, 3)]}),
     {**_ALL_TEST, "preScore": [TEST_PLUGIN, SCORE_PLUGIN_1],
      "score": [(SCORE_PLUGIN_1, 5), (TEST_PLUGIN, 3), (SCORE_PLUGIN_2, 5)]}),
]


@pytest.mark.parametrize(("given", "want"),
                         [c[1:] for c in EXPANSION_CASES if c[2] is not None],
                         ids=[c[0] for c in EXPANSION_CASES if c[2] is not None])
def test_multi_point_expansion(given: Plugins, want: dict) -> None:
    """framework_test.go TestNewFrameworkMultiPointExpansion (PlacementGenerate,
    PlacementScore and PodGroupPostFilter left out: no Python plugin implements them)."""
    assert lists(expand_plugins(given, FW_REGISTRY, "profiles[0]", "")) == want


def test_override_multi_point_weights() -> None:
    """TestNewFrameworkMultiPointExpansion "Override MultiPoint plugins weights", without the
    placementScore set."""
    given = plugins(multiPoint={"enabled": [TEST_PLUGIN, SCORE_PLUGIN_1]},
                    score={"enabled": [(SCORE_PLUGIN_1, 5), (TEST_PLUGIN, 3)]})
    assert lists(expand_plugins(given, FW_REGISTRY, "profiles[0]", "")) == {
        **_ALL_TEST, "preScore": [TEST_PLUGIN, SCORE_PLUGIN_1],
        "score": [(SCORE_PLUGIN_1, 5), (TEST_PLUGIN, 3)]}


def test_placement_points_are_refused() -> None:
    given = plugins(multiPoint={"enabled": [TEST_PLUGIN]},
                    placementScore={"enabled": [(TEST_PLUGIN, 2)]})
    with pytest.raises(FrameworkError,
                       match='plugin "test-plugin" does not extend PlacementScorePlugin plugin'):
        expand_plugins(given, FW_REGISTRY, "profiles[0]", "")


def test_multi_point_twice_is_already_registered() -> None:
    """TestNewFrameworkMultiPointExpansion "Expect 'already registered' error"."""
    given = plugins(multiPoint={"enabled": [TEST_PLUGIN, TEST_PLUGIN]})
    with pytest.raises(FrameworkError, match="already registered"):
        expand_plugins(given, FW_REGISTRY, "profiles[0]", "")


def test_duplicate_plugin_name() -> None:
    """framework_test.go TestNewFrameworkErrors "duplicate plugin name"."""
    given = plugins(preFilter={"enabled": [(DUPLICATE_PLUGIN, 1), (DUPLICATE_PLUGIN, 1)]})
    with pytest.raises(FrameworkError, match="already registered"):
        expand_plugins(given, FW_REGISTRY, "profiles[0]", "")


@pytest.mark.parametrize(("score", "init_err"), [
    (["notExist"], True),
    ([NOT_SCORE], True),
    (None, False),  # "Score plugins are nil"
    ([], False),
    ([SCORE_PLUGIN_1], False),
    ([SCORE_WITH_NORMALIZE_1], False),
])
def test_init_framework_with_score_plugins(score: list[str] | None, init_err: bool) -> None:
    """framework_test.go TestInitFrameworkWithScorePlugins (buildScoreConfigDefaultWeights:
    weight 1 each; newFrameworkWithQueueSortAndBind adds a queue sort and a bind plugin)."""
    given = plugins(queueSort={"enabled": [QUEUE_SORT]}, bind={"enabled": [BIND]},
                    score={"enabled": [(n, 1) for n in score or []]})
    if init_err:
        with pytest.raises(FrameworkError):
            expand_plugins(given, FW_REGISTRY, "profiles[0]", "")
    else:
        got = expand_plugins(given, FW_REGISTRY, "profiles[0]", "")
        assert [e.name for e in got["score"]] == (score or [])


def test_score_weights() -> None:
    """getValidScoreWeights: weight 0 → 1, the Score entry wins over MultiPoint, negative
    weights are not refused, and the sum of weight × MaxScore must fit int64."""
    given = plugins(multiPoint={"enabled": [(SCORE_PLUGIN_1, 7), (SCORE_PLUGIN_2, 0),
                                            QUEUE_SORT, BIND]},
                    score={"enabled": [(SCORE_PLUGIN_1, 0), (SCORE_WITH_NORMALIZE_1, -2)]})
    got = expand_plugins(given, FW_REGISTRY, "profiles[0]", "")
    assert lists(got)["score"] == [(SCORE_PLUGIN_1, 1), (SCORE_PLUGIN_2, 1),
                                   (SCORE_WITH_NORMALIZE_1, -2)]
    overflow = plugins(multiPoint={"enabled": [(SCORE_PLUGIN_1, 2**62), (SCORE_PLUGIN_2, 2**62),
                                               QUEUE_SORT, BIND]})
    with pytest.raises(FrameworkError, match="total score of Score plugins could overflow"):
        expand_plugins(overflow, FW_REGISTRY, "profiles[0]", "")


def test_queue_sort_and_bind_required() -> None:
    with pytest.raises(FrameworkError, match='only one queue sort plugin required for profile '
                                             'with scheduler name "p", but got 0'):
        expand_plugins(plugins(bind={"enabled": [BIND]}), FW_REGISTRY, "profiles[0]", "p")
    with pytest.raises(FrameworkError, match='at least one bind plugin is needed for profile '
                                             'with scheduler name "p"'):
        expand_plugins(plugins(queueSort={"enabled": [QUEUE_SORT]}), FW_REGISTRY,
                       "profiles[0]", "p")


# ======================================================== the default profile, end to end

def test_default_config_expands_to_expanded_plugins_v1() -> None:
    """server_test.go "default config": ListPlugins == defaults.ExpandedPluginsV1."""
    cfg = default_config(REGISTRY)
    assert (cfg.parallelism, cfg.percentage_of_nodes_to_score, cfg.pod_initial_backoff_seconds,
            cfg.pod_max_backoff_seconds) == (16, 0, 1, 10)
    [prof] = cfg.profiles
    assert prof.scheduler_name == "default-scheduler"
    assert prof.percentage_of_nodes_to_score is None
    assert lists(prof.plugins) == EXPANDED_V1
    assert list(prof.plugins) == [p for p, _ in itf.EXTENSION_POINTS]
    assert prof.plugin_args == PLUGIN_CONFIGS_V1


def test_default_config_with_the_in_tree_registry() -> None:
    """The project's real plugin classes implement the extension points upstream's do."""
    from reference_impl.plugins.registry import in_tree_registry

    assert lists(default_config(in_tree_registry()).profiles[0].plugins) == EXPANDED_V1


def test_only_scheduler_name_configured() -> None:
    """server_test.go "component configuration v1 with only scheduler name configured"."""
    cfg = load_config({**API, "profiles": [{"schedulerName": "simplified-scheduler"}]},
                      REGISTRY)
    assert cfg.profiles[0].scheduler_name == "simplified-scheduler"
    assert lists(cfg.profiles[0].plugins) == EXPANDED_V1


@pytest.mark.parametrize("storage_capacity_scoring", [True, False])
def test_default_config_with_storage_capacity_scoring(storage_capacity_scoring: bool) -> None:
    """server_test.go "default config with beta feature explicitly enabled/disabled": same
    plugins; the VolumeBinding shape is only defaulted with the gate (defaults.go)."""
    fe = on("StorageCapacityScoring") if storage_capacity_scoring else off(
        "StorageCapacityScoring")
    prof = default_config(REGISTRY, fe).profiles[0]
    assert lists(prof.plugins) == EXPANDED_V1
    shape = prof.plugin_args["VolumeBinding"].shape
    assert shape == (PLUGIN_CONFIGS_V1["VolumeBinding"].shape if storage_capacity_scoring
                     else ())


def test_component_configuration_v1() -> None:
    """server_test.go "component configuration v1" (pluginv1.yaml)."""
    cfg = load_config({**API, "profiles": [{"plugins": {
        "multiPoint": {"enabled": [{"name": n} for n in (
            "SchedulingGates", "DefaultBinder", "PrioritySort", "DefaultPreemption",
            "VolumeBinding", "NodeResourcesFit", "NodePorts", "InterPodAffinity",
            "TaintToleration", "DynamicResources")], "disabled": [{"name": "*"}]},
        "preFilter": {"disabled": [{"name": "VolumeBinding"}, {"name": "InterPodAffinity"}]},
        "filter": {"disabled": [{"name": "VolumeBinding"}, {"name": "InterPodAffinity"},
                                {"name": "TaintToleration"}]},
        "score": {"disabled": [{"name": "VolumeBinding"}, {"name": "NodeResourcesFit"}]},
    }}]}, REGISTRY)
    assert lists(cfg.profiles[0].plugins) == {
        **EXPANDED_V1,
        "preEnqueue": ["SchedulingGates", "DefaultPreemption", "DynamicResources"],
        "postFilter": ["DefaultPreemption", "DynamicResources"],
        "filter": ["NodeResourcesFit", "NodePorts", "DynamicResources"],
        "preFilter": ["NodeResourcesFit", "NodePorts", "TaintToleration", "DynamicResources"],
        "preScore": ["VolumeBinding", "NodeResourcesFit", "InterPodAffinity", "TaintToleration"],
        "score": [("InterPodAffinity", 1), ("TaintToleration", 1), ("DynamicResources", 1)],
    }


def test_out_of_tree_component_configuration_v1() -> None:
    """server_test.go "out-of-tree component configuration v1"."""
    registry = {**REGISTRY, "Foo": fake("Foo", P.PreFilterPlugin, P.FilterPlugin)}
    cfg = load_config({**API, "profiles": [{"plugins": {
        "preFilter": {"enabled": [{"name": "Foo"}]},
        "filter": {"enabled": [{"name": "Foo"}]}}}]}, registry)
    assert lists(cfg.profiles[0].plugins) == {
        **EXPANDED_V1, "preFilter": [*_FILTERS, "Foo"], "filter": [*_FILTERS, "Foo"]}


# ======================================================= defaults_test.go TestSchedulerDefaults

def test_scheduler_defaults_empty_config() -> None:
    """TestSchedulerDefaults "empty config" and "no scheduler name"."""
    for given in ({}, {"profiles": [{}]}):
        cfg = defaulted(given)
        assert (cfg.parallelism, cfg.percentage_of_nodes_to_score,
                cfg.pod_initial_backoff_seconds, cfg.pod_max_backoff_seconds) == (16, 0, 1, 10)
        [prof] = cfg.profiles
        assert prof.scheduler_name == "default-scheduler"
        assert summary(prof.plugins) == {"multiPoint": {"enabled": [
            ("SchedulingGates", 0), ("PrioritySort", 0), ("NodeName", 0),
            ("NodeUnschedulable", 0), ("TaintToleration", 3), ("NodeAffinity", 2),
            ("NodePorts", 0), ("NodeResourcesFit", 1), ("VolumeRestrictions", 0),
            ("NodeVolumeLimits", 0), ("VolumeBinding", 0), ("VolumeZone", 0),
            ("PodTopologySpread", 2), ("InterPodAffinity", 2), ("DynamicResources", 2),
            ("DefaultPreemption", 0), ("NodeResourcesBalancedAllocation", 1),
            ("ImageLocality", 1), ("DefaultBinder", 0), ("NodeDeclaredFeatures", 0)]}}
        assert [c.name for c in prof.plugin_config] == list(PLUGIN_CONFIGS_V1)
        assert typed_args(prof) == PLUGIN_CONFIGS_V1


def test_scheduler_defaults_two_profiles() -> None:
    """TestSchedulerDefaults "two profiles": no default name with two profiles; FooPlugin's
    config stays first, the default args follow in name order."""
    cfg = defaulted({"parallelism": 16, "profiles": [
        {"pluginConfig": [{"name": "FooPlugin"}]},
        {"schedulerName": "custom-scheduler", "plugins": {"bind": {
            "enabled": [{"name": "BarPlugin"}], "disabled": [{"name": "DefaultBinder"}]}}},
    ]})
    first, second = cfg.profiles
    assert first.scheduler_name == ""
    assert [c.name for c in first.plugin_config] == ["FooPlugin", *PLUGIN_CONFIGS_V1]
    assert first.plugin_config[0].args is None
    assert second.scheduler_name == "custom-scheduler"
    assert summary(second.plugins)["bind"] == {"enabled": [("BarPlugin", 0)],
                                               "disabled": [("DefaultBinder", 0)]}
    assert "multiPoint" in summary(second.plugins)
    assert typed_args(second) == PLUGIN_CONFIGS_V1


@pytest.mark.parametrize(("given", "want"), [
    ({"parallelism": 8}, (8, 0, None)),  # "set non default parallelism"
    ({"percentageOfNodesToScore": 50}, (16, 50, None)),  # "...global percentageOfNodesToScore"
    ({"profiles": [{"percentageOfNodesToScore": 50}]}, (16, 0, 50)),  # "...profile ..."
    ({"percentageOfNodesToScore": 10, "profiles": [{"percentageOfNodesToScore": 20}]},
     (16, 10, 20)),  # "set non default global and profile percentageOfNodesToScore"
])
def test_scheduler_defaults_values(given: dict, want: tuple) -> None:
    """TestSchedulerDefaults cases that set one value (and scheme_test.go
    "v1 with non-default global (and profile) percentageOfNodesToScore")."""
    cfg = defaulted(given)
    assert (cfg.parallelism, cfg.percentage_of_nodes_to_score,
            cfg.profiles[0].percentage_of_nodes_to_score) == want


_SHAPE_10_0 = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
_CPU_MEM = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
ARGS_DEFAULTS_CASES = [
    ("DefaultPreemptionArgs empty", "DefaultPreemptionArgs", {}, None,
     {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}),
    ("DefaultPreemptionArgs with value", "DefaultPreemptionArgs",
     {"minCandidateNodesPercentage": 50}, None,
     {"minCandidateNodesPercentage": 50, "minCandidateNodesAbsolute": 100}),
    ("InterPodAffinityArgs empty", "InterPodAffinityArgs", {}, None,
     {"hardPodAffinityWeight": 1}),
    ("InterPodAffinityArgs explicit 0", "InterPodAffinityArgs", {"hardPodAffinityWeight": 0},
     None, {"hardPodAffinityWeight": 0}),
    ("InterPodAffinityArgs with value", "InterPodAffinityArgs", {"hardPodAffinityWeight": 5},
     None, {"hardPodAffinityWeight": 5}),
    ("NodeResourcesBalancedAllocationArgs resources empty",
     "NodeResourcesBalancedAllocationArgs", {}, None, {"resources": _CPU_MEM}),
    ("NodeResourcesBalancedAllocationArgs with scalar resource",
     "NodeResourcesBalancedAllocationArgs",
     {"resources": [{"name": "scalar.io/scalar1", "weight": 1}]}, None,
     {"resources": [{"name": "scalar.io/scalar1", "weight": 1}]}),
    ("NodeResourcesBalancedAllocationArgs with mixed resources",
     "NodeResourcesBalancedAllocationArgs",
     {"resources": [{"name": "cpu", "weight": 1}, {"name": "scalar.io/scalar1", "weight": 1}]},
     None,
     {"resources": [{"name": "cpu", "weight": 1}, {"name": "scalar.io/scalar1", "weight": 1}]}),
    ("NodeResourcesBalancedAllocationArgs have resource no weight",
     "NodeResourcesBalancedAllocationArgs",
     {"resources": [{"name": "cpu"}, {"name": "scalar.io/scalar0"},
                    {"name": "scalar.io/scalar1", "weight": 1}]}, None,
     {"resources": [{"name": "cpu", "weight": 1}, {"name": "scalar.io/scalar0", "weight": 1},
                    {"name": "scalar.io/scalar1", "weight": 1}]}),
    ("PodTopologySpreadArgs resources empty", "PodTopologySpreadArgs", {}, None,
     {"defaultingType": "System"}),
    ("PodTopologySpreadArgs resources with value", "PodTopologySpreadArgs",
     {"defaultConstraints": [{"topologyKey": "planet", "whenUnsatisfiable": "DoNotSchedule",
                              "maxSkew": 2}]}, None,
     {"defaultConstraints": [{"topologyKey": "planet", "whenUnsatisfiable": "DoNotSchedule",
                              "maxSkew": 2}], "defaultingType": "System"}),
    ("NodeResourcesFitArgs not set", "NodeResourcesFitArgs", {}, None,
     {"scoringStrategy": {"type": "LeastAllocated", "resources": _CPU_MEM}}),
    ("NodeResourcesFitArgs Resources empty", "NodeResourcesFitArgs",
     {"scoringStrategy": {"type": "MostAllocated"}}, None,
     {"scoringStrategy": {"type": "MostAllocated", "resources": _CPU_MEM}}),
    ("VolumeBindingArgs empty, StorageCapacityScoring disabled", "VolumeBindingArgs", {},
     off("StorageCapacityScoring"), {"bindTimeoutSeconds": 600}),
    ("VolumeBindingArgs empty, StorageCapacityScoring enabled", "VolumeBindingArgs", {},
     on("StorageCapacityScoring"), {"bindTimeoutSeconds": 600, "shape": _SHAPE_10_0}),
    ("DynamicResourcesArgs defaults, DRADeviceBindingConditions enabled",
     "DynamicResourcesArgs", {},
     on("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"),
     {"filterTimeout": 10 * 10**9, "bindingTimeout": 600 * 10**9}),
    # Not upstream cases: the gate conditions of SetDefaults_DynamicResourcesArgs.
    ("DynamicResourcesArgs, DRASchedulerFilterTimeout disabled", "DynamicResourcesArgs", {},
     off("DRASchedulerFilterTimeout"), {"bindingTimeout": 600 * 10**9}),
    ("DynamicResourcesArgs, DRADeviceBindingConditions disabled", "DynamicResourcesArgs", {},
     off("DRADeviceBindingConditions"), {"filterTimeout": 10 * 10**9}),
    ("NodeResourcesFitArgs weight 0 becomes 1", "NodeResourcesFitArgs",
     {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 0},
                                                                 {"name": "gpu", "weight": 3}]}},
     None, {"scoringStrategy": {"type": "MostAllocated", "resources": [
         {"name": "cpu", "weight": 1}, {"name": "gpu", "weight": 3}]}}),
]


@pytest.mark.parametrize(("kind", "given", "fe", "want"), [c[1:] for c in ARGS_DEFAULTS_CASES],
                         ids=[c[0] for c in ARGS_DEFAULTS_CASES])
def test_plugin_args_defaults(kind: str, given: dict, fe: Any, want: dict) -> None:
    """defaults_test.go TestPluginArgsDefaults."""
    assert pa.set_defaults(kind, given, fe or RELEASE) == want


@pytest.mark.parametrize("kind", sorted(pa.known_kinds()))
def test_args_dataclass_defaults_are_the_release_defaults(kind: str) -> None:
    """A plugin given ``args=None`` uses ``XArgs()``: that must equal the defaulted empty args."""
    assert pa.to_typed(kind, pa.set_defaults(kind, {})) == getattr(a, kind)()


# ================================================ scheme_test.go TestCodecsDecodePluginConfig

def test_decode_all_plugin_args_in_default_profile() -> None:
    """scheme_test.go "v1 all plugin args in default profile"."""
    prof = defaulted({"profiles": [{"pluginConfig": [
        {"name": "DefaultPreemption",
         "args": {"minCandidateNodesPercentage": 50, "minCandidateNodesAbsolute": 500}},
        {"name": "DynamicResources", "args": {"filterTimeout": "10s", "bindingTimeout": "30s"}},
        {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 5}},
        {"name": "NodeResourcesFit", "args": {"ignoredResources": ["foo"]}},
        {"name": "PodTopologySpread", "args": {"defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}]}},
        {"name": "VolumeBinding", "args": {"bindTimeoutSeconds": 300}},
        {"name": "NodeAffinity", "args": {"addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}]}}}},
        {"name": "NodeResourcesBalancedAllocation", "args": {"resources": [
            {"name": "cpu"}, {"name": "memory", "weight": 0}, {"name": "scalar0", "weight": 1},
            {"name": "scalar1"}, {"name": "scalar2", "weight": 0},
            {"name": "scalar3", "weight": 2}]}},
    ]}]}).profiles[0]
    assert prof.scheduler_name == "default-scheduler"
    assert typed_args(prof) == {
        "DefaultPreemption": a.DefaultPreemptionArgs(50, 500),
        "DynamicResources": a.DynamicResourcesArgs(10.0, 30.0),
        "InterPodAffinity": a.InterPodAffinityArgs(5, False),
        "NodeResourcesFit": a.NodeResourcesFitArgs(
            ("foo",), (), a.ScoringStrategy("LeastAllocated", CPU_MEM, None)),
        "PodTopologySpread": a.PodTopologySpreadArgs(
            (TopologySpreadConstraint(1, "zone", "ScheduleAnyway"),), "System"),
        "VolumeBinding": a.VolumeBindingArgs(300, PLUGIN_CONFIGS_V1["VolumeBinding"].shape),
        "NodeAffinity": a.NodeAffinityArgs(NodeAffinity(required=NodeSelector((
            NodeSelectorTerm(match_expressions=(
                NodeSelectorRequirement("foo", "In", ("bar",)),)),)))),
        "NodeResourcesBalancedAllocation": a.NodeResourcesBalancedAllocationArgs((
            *CPU_MEM, a.ResourceSpec("scalar0", 1), a.ResourceSpec("scalar1", 1),
            a.ResourceSpec("scalar2", 1), a.ResourceSpec("scalar3", 2))),
    }


def test_decode_plugins_can_include_version_and_kind() -> None:
    """scheme_test.go "v1 plugins can include version and kind"."""
    prof = defaulted({"profiles": [{"pluginConfig": [{"name": "DefaultPreemption", "args": {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "DefaultPreemptionArgs",
        "minCandidateNodesPercentage": 50}}]}]}).profiles[0]
    assert typed_args(prof) == {**PLUGIN_CONFIGS_V1,
                                "DefaultPreemption": a.DefaultPreemptionArgs(50, 100)}


def test_decode_plugin_group_and_kind_should_match_the_type() -> None:
    """scheme_test.go "plugin group and kind should match the type"."""
    with pytest.raises(ConfigError) as e:
        decode_configuration({**API, "profiles": [{"pluginConfig": [{
            "name": "DefaultPreemption", "args": {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "InterPodAffinityArgs"}}]}]})
    assert e.value.errors == [
        "profiles[0].pluginConfig[0].args: args for plugin DefaultPreemption were not of type "
        "DefaultPreemptionArgs.kubescheduler.config.k8s.io, got "
        "InterPodAffinityArgs.kubescheduler.config.k8s.io"]


@pytest.mark.parametrize(("args", "want"), [
    # "v1 NodResourcesFitArgs shape encoding is strict"
    ({"scoringStrategy": {"requestedToCapacityRatio": {"shape": [{"Score": 2,
                                                                  "Utilization": 1}]}}},
     ['profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0]: '
      'unknown field "Score"',
      'profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0]: '
      'unknown field "Utilization"']),
    # "v1 NodeResourcesFitArgs resources encoding is strict"
    ({"scoringStrategy": {"resources": [{"Name": "cpu", "Weight": 1}]}},
     ['profiles[0].pluginConfig[0].args.scoringStrategy.resources[0]: unknown field "Name"',
      'profiles[0].pluginConfig[0].args.scoringStrategy.resources[0]: unknown field "Weight"']),
])
def test_decode_plugin_args_is_strict(args: dict, want: list[str]) -> None:
    with pytest.raises(ConfigError) as e:
        decode_configuration({**API, "profiles": [{"pluginConfig": [
            {"name": "NodeResourcesFit", "args": args}]}]})
    assert e.value.errors == want


def test_decode_out_of_tree_plugin_args() -> None:
    """scheme_test.go "out-of-tree plugin args" and "empty and no plugin args"."""
    prof = defaulted({"profiles": [{"pluginConfig": [
        {"name": "OutOfTreePlugin", "args": {"foo": "bar"}}]}]}).profiles[0]
    assert typed_args(prof) == {"OutOfTreePlugin": {"foo": "bar"}, **PLUGIN_CONFIGS_V1}
    prof = defaulted({"profiles": [{"pluginConfig": [
        {"name": "DefaultPreemption", "args": None}, {"name": "DynamicResources", "args": None},
        {"name": "InterPodAffinity", "args": None}, {"name": "NodeResourcesFit"},
        {"name": "OutOfTreePlugin", "args": None}, {"name": "VolumeBinding", "args": None},
        {"name": "PodTopologySpread"}, {"name": "NodeAffinity"},
        {"name": "NodeResourcesBalancedAllocation"}]}]}).profiles[0]
    assert [c.name for c in prof.plugin_config] == [
        "DefaultPreemption", "DynamicResources", "InterPodAffinity", "NodeResourcesFit",
        "OutOfTreePlugin", "VolumeBinding", "PodTopologySpread", "NodeAffinity",
        "NodeResourcesBalancedAllocation"]
    assert typed_args(prof) == {"OutOfTreePlugin": None, **PLUGIN_CONFIGS_V1}


def test_decode_ignore_preferred_terms_of_existing_pods() -> None:
    """scheme_test.go "ignorePreferredTermsOfExistingPods is enabled"."""
    prof = defaulted({"profiles": [{"pluginConfig": [{"name": "InterPodAffinity", "args": {
        "ignorePreferredTermsOfExistingPods": True}}]}]}).profiles[0]
    assert [c.name for c in prof.plugin_config][0] == "InterPodAffinity"
    assert typed_args(prof)["InterPodAffinity"] == a.InterPodAffinityArgs(1, True)


# ========================================== options_test.go (config files of kube-scheduler)

def test_options_plugin_config(tmp_path: Any) -> None:
    """options_test.go "plugin config" (plugin.yaml): the merged profile and its plugin
    configs; then the lists framework.go builds from them."""
    path = tmp_path / "plugin.yaml"
    path.write_text("""
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: '/tmp/config.kubeconfig'
profiles:
- plugins:
    preEnqueue:
      enabled:
      - name: foo
    reserve:
      enabled:
      - name: foo
      - name: bar
      disabled:
      - name: VolumeBinding
    preBind:
      enabled:
      - name: foo
      disabled:
      - name: VolumeBinding
  pluginConfig:
  - name: InterPodAffinity
    args:
      hardPodAffinityWeight: 2
  - name: foo
    args:
      bar: baz
""")
    import yaml

    prof = defaulted({k: v for k, v in yaml.safe_load(path.read_text()).items()
                      if k not in API}).profiles[0]
    s = summary(prof.plugins)
    assert {k: v for k, v in s.items() if k != "multiPoint"} == {
        "preEnqueue": {"enabled": [("foo", 0)]},
        "reserve": {"enabled": [("foo", 0), ("bar", 0)], "disabled": [("VolumeBinding", 0)]},
        "preBind": {"enabled": [("foo", 0)], "disabled": [("VolumeBinding", 0)]},
    }
    assert typed_args(prof) == {
        "InterPodAffinity": a.InterPodAffinityArgs(2, False), "foo": {"bar": "baz"},
        **{k: v for k, v in PLUGIN_CONFIGS_V1.items() if k != "InterPodAffinity"}}
    registry = {**REGISTRY,
                "foo": fake("foo", P.PreEnqueuePlugin, P.ReservePlugin, P.PreBindPlugin),
                "bar": fake("bar", P.ReservePlugin)}
    got = lists(load_config(path, registry).profiles[0].plugins)
    assert got["preEnqueue"] == ["SchedulingGates", "DynamicResources", "DefaultPreemption",
                                 "foo"]
    assert got["reserve"] == ["DynamicResources", "foo", "bar"]
    assert got["preBind"] == ["DynamicResources", "foo"]


def test_options_multiple_profiles() -> None:
    """options_test.go "multiple profiles" (multi-profiles.yaml)."""
    cfg = defaulted({"profiles": [
        {"schedulerName": "foo-profile", "plugins": {"reserve": {
            "enabled": [{"name": "foo"}, {"name": "VolumeBinding"}],
            "disabled": [{"name": "VolumeBinding"}]}}},
        {"schedulerName": "bar-profile", "plugins": {"preBind": {
            "disabled": [{"name": "VolumeBinding"}]}}, "pluginConfig": [{"name": "foo"}]},
    ]})
    foo, bar = cfg.profiles
    assert summary(foo.plugins)["reserve"] == {"enabled": [("foo", 0), ("VolumeBinding", 0)],
                                               "disabled": [("VolumeBinding", 0)]}
    assert typed_args(foo) == PLUGIN_CONFIGS_V1
    assert summary(bar.plugins)["preBind"] == {"disabled": [("VolumeBinding", 0)]}
    assert typed_args(bar) == {"foo": None, **PLUGIN_CONFIGS_V1}
    assert [c.name for c in bar.plugin_config][0] == "foo"


def test_options_high_throughput_profile() -> None:
    """options_test.go "high throughput profile"."""
    prof = defaulted({"profiles": [{
        "schedulerName": "high-throughput-profile",
        "plugins": {"preScore": {"enabled": [{"name": "InterPodAffinity"}]}},
        "pluginConfig": [{"name": "InterPodAffinity",
                          "args": {"ignorePreferredTermsOfExistingPods": True}}]}]}).profiles[0]
    assert summary(prof.plugins)["preScore"] == {"enabled": [("InterPodAffinity", 0)]}
    assert typed_args(prof)["InterPodAffinity"] == a.InterPodAffinityArgs(1, True)
    # InterPodAffinity is enabled at PreScore and in MultiPoint: an override, listed first.
    got = lists(load_config({**API, "profiles": [{
        "schedulerName": "high-throughput-profile",
        "plugins": {"preScore": {"enabled": [{"name": "InterPodAffinity"}]}}}]},
        REGISTRY).profiles[0].plugins)
    assert got["preScore"] == ["InterPodAffinity", "TaintToleration", "NodeAffinity",
                               "NodeResourcesFit", "VolumeBinding", "PodTopologySpread",
                               "NodeResourcesBalancedAllocation"]


@pytest.mark.parametrize(("text", "want"), [
    # "unknown field"
    ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nfoo: bar\n",
     '<root>: unknown field "foo"'),
    # "duplicate fields"
    ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
     "leaderElection:\n  leaderElect: false\n  leaderElect: true\n",
     'key "leaderElect" already set in map'),
    # "config file with no version"
    ("kind: KubeSchedulerConfiguration\n", "Object 'apiVersion' is missing"),
    # "unknown version kubescheduler.config.k8s.io/unknown"
    ("apiVersion: kubescheduler.config.k8s.io/unknown\nkind: KubeSchedulerConfiguration\n",
     'no kind "KubeSchedulerConfiguration" is registered for version '
     '"kubescheduler.config.k8s.io/unknown"'),
    # "config file in componentconfig/v1alpha1"
    ("apiVersion: componentconfig/v1alpha1\nkind: KubeSchedulerConfiguration\n",
     'no kind "KubeSchedulerConfiguration" is registered for version "componentconfig/v1alpha1"'),
])
def test_options_config_file_errors(tmp_path: Any, text: str, want: str) -> None:
    """options_test.go TestSchedulerOptions error cases."""
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_config(path, REGISTRY)
    assert want in str(e.value)
    assert str(e.value).startswith(str(path))


# ================================ validation_test.go TestValidateKubeSchedulerConfigurationV1

def _valid_config() -> InternalConfiguration:
    """validConfig (its extender left out: the reference refuses extenders)."""
    return InternalConfiguration(
        parallelism=8, pod_initial_backoff_seconds=1, pod_max_backoff_seconds=1,
        profiles=[
            InternalProfile("me", 35, plugins(queueSort={"enabled": ["CustomSort"]},
                                              score={"disabled": ["*"]}),
                            [PluginConfigEntry("DefaultPreemption", "DefaultPreemptionArgs", {
                                "minCandidateNodesPercentage": 10,
                                "minCandidateNodesAbsolute": 100}, "")]),
            InternalProfile("other", 35, plugins(queueSort={"enabled": ["CustomSort"]},
                                                 bind={"enabled": ["CustomBind"]})),
        ])


def _change(f: Any) -> InternalConfiguration:
    cfg = _valid_config()
    f(cfg)
    return cfg


def _set(obj: Any, **kw: Any) -> None:
    for k, v in kw.items():
        setattr(obj, k, v)


VALIDATION_CASES = [
    ("good", _valid_config(), []),
    ("bad-parallelism-invalid-value", _change(lambda c: _set(c, parallelism=0)),
     [(INVALID, "parallelism")]),
    ("bad-percentage-of-nodes-to-score",
     _change(lambda c: _set(c, percentage_of_nodes_to_score=101)),
     [(INVALID, "percentageOfNodesToScore")]),
    ("negative-percentage-of-nodes-to-score",
     _change(lambda c: _set(c, percentage_of_nodes_to_score=-1)),
     [(INVALID, "percentageOfNodesToScore")]),
    ("scheduler-name-not-set", _change(lambda c: _set(c.profiles[1], scheduler_name="")),
     [(REQUIRED, "profiles[1].schedulerName")]),
    ("repeated-scheduler-name", _change(lambda c: _set(c.profiles[0], scheduler_name="other")),
     [(DUPLICATE, "profiles[1].schedulerName")]),
    ("greater-than-100-profile-percentage-of-nodes-to-score",
     _change(lambda c: _set(c.profiles[1], percentage_of_nodes_to_score=101)),
     [(INVALID, "profiles[1].percentageOfNodesToScore")]),
    ("negative-profile-percentage-of-nodes-to-score",
     _change(lambda c: _set(c.profiles[1], percentage_of_nodes_to_score=-1)),
     [(INVALID, "profiles[1].percentageOfNodesToScore")]),
    ("different-queue-sort",
     _change(lambda c: _set(c.profiles[1].plugins["queueSort"],
                            enabled=[PluginRef("AnotherSort")])),
     [(INVALID, "profiles[1].plugins.queueSort")]),
    ("one-empty-queue-sort", _change(lambda c: _set(c.profiles[0], plugins=None)),
     [(INVALID, "profiles[1].plugins.queueSort")]),
    ("invalid-node-percentage",
     _change(lambda c: _set(c.profiles[0], plugin_config=[PluginConfigEntry(
         "DefaultPreemption", "DefaultPreemptionArgs",
         {"minCandidateNodesPercentage": 200, "minCandidateNodesAbsolute": 100}, "")])),
     [(INVALID, "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage")]),
    ("invalid-plugin-args",
     _change(lambda c: _set(c.profiles[0], plugin_config=[PluginConfigEntry(
         "DefaultPreemption", "InterPodAffinityArgs", {}, "")])),
     [(INVALID, "profiles[0].pluginConfig[0].args")]),
    ("duplicated-plugin-config",
     _change(lambda c: _set(c.profiles[0], plugin_config=[
         PluginConfigEntry("config", None, None, ""),
         PluginConfigEntry("config", None, None, "")])),
     [(DUPLICATE, "profiles[0].pluginConfig[1]")]),
    ("mismatch-queue-sort",
     _change(lambda c: _set(c, profiles=[
         InternalProfile("me", None, plugins(queueSort={"enabled": ["PrioritySort"]}),
                         [PluginConfigEntry("PrioritySort", None, None, "")]),
         InternalProfile("other", None, plugins(queueSort={"enabled": ["CustomSort"]}),
                         [PluginConfigEntry("CustomSort", None, None, "")])])),
     [(INVALID, "profiles[1].plugins.queueSort")]),
    ("invalid-plugins",
     _change(lambda c: _set(c.profiles[0].plugins["score"], enabled=[
         PluginRef("AzureDiskLimits"), PluginRef("CinderLimits"), PluginRef("EBSLimits"),
         PluginRef("GCEPDLimits")])),
     [(INVALID, f"profiles[0].plugins.score.enabled[{i}]") for i in range(4)]),
    ("valid-plugins",
     _change(lambda c: _set(c.profiles[0].plugins["score"],
                            enabled=[PluginRef("PodTopologySpread", 2)])),
     []),
    # Not upstream cases: the other checks of ValidateKubeSchedulerConfiguration.
    ("backoff", _change(lambda c: _set(c, pod_initial_backoff_seconds=0)),
     [(INVALID, "podInitialBackoffSeconds")]),
    ("max backoff below initial", _change(lambda c: _set(c, pod_max_backoff_seconds=0)),
     [(INVALID, "podMaxBackoffSeconds")]),
    ("two queue sort plugins", _change(lambda c: [
        _set(p.plugins["queueSort"], enabled=[PluginRef("CustomSort"), PluginRef("B")])
        for p in c.profiles]),
     [(INVALID, "profiles[0].plugins.queueSort.Enabled")]),
    ("queue sort args differ", _change(lambda c: [
        _set(c.profiles[0], plugin_config=[PluginConfigEntry("CustomSort", None, {"x": 1}, "")]),
        _set(c.profiles[1], plugin_config=[PluginConfigEntry("CustomSort", None, {"x": 2}, "")])]),
     [(INVALID, "profiles[1].pluginConfig.args")]),
    ("removed plugin config", _change(lambda c: _set(c.profiles[1], plugin_config=[
        PluginConfigEntry("EBSLimits", None, None, "")])),
     [(INVALID, "profiles[1].pluginConfig[0]")]),
    ("NodeResourcesFitArgs named plugin config", _change(lambda c: _set(
        c.profiles[1], plugin_config=[PluginConfigEntry("NodeResourcesFitArgs", None, {}, "")])),
     [(INVALID, "profiles[1].pluginConfig[0].args")]),
    ("extenders are refused", _change(lambda c: _set(c, extenders=[{"urlPrefix": "x"}])),
     [(FORBIDDEN, "extenders")]),
]


@pytest.mark.parametrize(("cfg", "want"), [c[1:] for c in VALIDATION_CASES],
                         ids=[c[0] for c in VALIDATION_CASES])
def test_validate_kube_scheduler_configuration(cfg: InternalConfiguration, want: list) -> None:
    """validation_test.go TestValidateKubeSchedulerConfigurationV1 (the leaderElection and
    extender cases are not modelled; extenders are refused instead)."""
    assert kinds(validate_configuration(cfg)) == want


# =========================================== validation_pluginargs_test.go, per args kind

def _check(validate: Any, args: dict, want: list, fe: Any = None) -> None:
    got = validate(args, "", fe) if fe else validate(args, "")
    assert kinds(got) == want


@pytest.mark.parametrize(("args", "want"), [
    ({"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}, []),
    ({"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": 100},
     [(INVALID, "minCandidateNodesPercentage")]),
    ({"minCandidateNodesPercentage": 900, "minCandidateNodesAbsolute": 100},
     [(INVALID, "minCandidateNodesPercentage")]),
    ({"minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": -1},
     [(INVALID, "minCandidateNodesAbsolute")]),
    ({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
     [(INVALID, "minCandidateNodesPercentage"), (INVALID, "minCandidateNodesAbsolute")]),
    ({"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": -1},
     [(INVALID, "minCandidateNodesPercentage"), (INVALID, "minCandidateNodesAbsolute")]),
])
def test_validate_default_preemption_args(args: dict, want: list) -> None:
    """TestValidateDefaultPreemptionArgs."""
    _check(pa.validate_default_preemption, args, want)


@pytest.mark.parametrize(("weight", "want"), [
    (10, []), (-1, [(INVALID, "hardPodAffinityWeight")]),
    (101, [(INVALID, "hardPodAffinityWeight")]),
])
def test_validate_inter_pod_affinity_args(weight: int, want: list) -> None:
    """TestValidateInterPodAffinityArgs."""
    _check(pa.validate_inter_pod_affinity, {"hardPodAffinityWeight": weight}, want)


def _tsc(max_skew: int, key: str, when: str, **extra: Any) -> dict:
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when, **extra}


@pytest.mark.parametrize(("args", "want"), [
    ({"defaultConstraints": [_tsc(1, "node", "DoNotSchedule"),
                             _tsc(2, "zone", "ScheduleAnyway")], "defaultingType": "List"}, []),
    ({"defaultConstraints": [_tsc(-1, "node", "DoNotSchedule")], "defaultingType": "List"},
     [(INVALID, "defaultConstraints[0].maxSkew")]),
    ({"defaultConstraints": [_tsc(1, "", "DoNotSchedule")], "defaultingType": "List"},
     [(REQUIRED, "defaultConstraints[0].topologyKey")]),
    ({"defaultConstraints": [_tsc(1, "node", "")], "defaultingType": "List"},
     [(REQUIRED, "defaultConstraints[0].whenUnsatisfiable")]),
    ({"defaultConstraints": [_tsc(1, "node", "unknown action")], "defaultingType": "List"},
     [(NOT_SUPPORTED, "defaultConstraints[0].whenUnsatisfiable")]),
    ({"defaultConstraints": [_tsc(1, "node", "DoNotSchedule"), _tsc(2, "node", "DoNotSchedule")],
      "defaultingType": "List"},
     [(DUPLICATE, "defaultConstraints[1]")]),
    ({"defaultConstraints": [_tsc(1, "key", "DoNotSchedule",
                                  labelSelector={"matchLabels": {"a": "b"}})],
      "defaultingType": "List"},
     [(FORBIDDEN, "defaultConstraints[0].labelSelector")]),
    ({"defaultingType": "List"}, []),
    ({"defaultingType": "System"}, []),
    ({"defaultingType": "unknown"}, [(NOT_SUPPORTED, "defaultingType")]),
    ({"defaultConstraints": [_tsc(1, "key", "DoNotSchedule")], "defaultingType": "System"},
     [(INVALID, "defaultingType")]),
], ids=["valid config", "maxSkew less than zero", "empty topology key",
        "whenUnsatisfiable is empty", "whenUnsatisfiable contains unsupported action",
        "duplicated constraints", "label selector present",
        "list default constraints, no constraints", "system default constraints",
        "wrong constraints", "system default constraints, but has constraints"])
def test_validate_pod_topology_spread_args(args: dict, want: list) -> None:
    """TestValidatePodTopologySpreadArgs."""
    _check(pa.validate_pod_topology_spread, args, want)


@pytest.mark.parametrize(("resources", "want"), [
    ([{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}], []),
    ([{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
     [(INVALID, "resources[0].weight")]),
    ([{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}],
     [(DUPLICATE, "resources[1].name")]),
], ids=["valid config", "invalid config", "repeated resources"])
def test_validate_balanced_allocation_args(resources: list, want: list) -> None:
    """TestValidateNodeResourcesBalancedAllocationArgs."""
    _check(pa.validate_balanced_allocation, {"resources": resources}, want)


@pytest.mark.parametrize(("args", "want"), [
    ({}, []),
    ({"addedAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "label-1", "operator": "In",
                                   "values": ["label-1-val"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "preference": {"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}}]}}, []),
    ({"addedAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "invalid/label/key", "operator": "In",
                                   "values": ["label-1-val"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "preference": {"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["node-1", "node-2"]}]}}]}},
     [(INVALID, "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                "nodeSelectorTerms[0].matchExpressions[0].key"),
      (INVALID, "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
                "matchFields[0].values")]),
], ids=["empty", "valid added affinity", "invalid added affinity"])
def test_validate_node_affinity_args(args: dict, want: list) -> None:
    """TestValidateNodeAffinityArgs."""
    _check(pa.validate_node_affinity, args, want)


_SHAPE_0_10 = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]


@pytest.mark.parametrize(("scoring", "args", "want"), [
    (False, {"bindTimeoutSeconds": 0}, []),
    (True, {"bindTimeoutSeconds": 0, "shape": _SHAPE_0_10}, []),
    (False, {"bindTimeoutSeconds": 10}, []),
    (True, {"bindTimeoutSeconds": 10, "shape": _SHAPE_0_10}, []),
    (False, {"bindTimeoutSeconds": -10}, [(INVALID, "bindTimeoutSeconds")]),
    (True, {"bindTimeoutSeconds": -10, "shape": _SHAPE_0_10}, [(INVALID, "bindTimeoutSeconds")]),
    (False, {"bindTimeoutSeconds": 10}, []),
    (False, {"bindTimeoutSeconds": 10, "shape": [{"utilization": 1, "score": 1},
                                                 {"utilization": 3, "score": 3}]},
     [(INVALID, "shape")]),
    (True, {"bindTimeoutSeconds": 10, "shape": []}, [(REQUIRED, "shape")]),
    (True, {"bindTimeoutSeconds": 10, "shape": [{"utilization": 3, "score": 3},
                                                {"utilization": 1, "score": 1}]},
     [(INVALID, "shape[1].utilization")]),
    (True, {"bindTimeoutSeconds": 10, "shape": [
        {"utilization": -1, "score": 1}, {"utilization": 10, "score": -1},
        {"utilization": 20, "score": 11}, {"utilization": 101, "score": 1}]},
     [(INVALID, "shape[0].utilization"), (INVALID, "shape[1].score"),
      (INVALID, "shape[2].score"), (INVALID, "shape[3].utilization")]),
], ids=["[off] zero is a valid config", "[on] zero is a valid config",
        "[off] positive value is valid config", "[on] positive value is valid config",
        "[off] negative value is invalid config", "[on] negative value is invalid config",
        "[off] shape should be nil when the feature is off",
        "[off] error if the shape is not nil when the feature is off",
        "[on] shape should not be empty",
        "[on] shape points must be sorted in increasing order",
        "[on] shape point: invalid utilization and score"])
def test_validate_volume_binding_args(scoring: bool, args: dict, want: list) -> None:
    """TestValidateVolumeBindingArgs ([StorageCapacityScoring=on/off])."""
    fe = on("StorageCapacityScoring") if scoring else off("StorageCapacityScoring")
    _check(pa.validate_volume_binding, args, want, fe)


_DEFAULT_STRATEGY = {"type": "LeastAllocated", "resources": _CPU_MEM}


@pytest.mark.parametrize(("args", "expect"), [
    ({"ignoredResources": ["longvalue" + "a" * 64], "scoringStrategy": _DEFAULT_STRATEGY},
     "name part must be no more than 63 bytes"),
    ({"ignoredResources": ["example.com/"], "scoringStrategy": _DEFAULT_STRATEGY},
     "name part must be non-empty"),
    ({"ignoredResources": ["example.com/aaa/bbb"], "scoringStrategy": _DEFAULT_STRATEGY},
     "a valid label key must consist of"),
    ({"ignoredResources": ["example.com"], "scoringStrategy": _DEFAULT_STRATEGY}, ""),
    ({"ignoredResourceGroups": ["example.com"], "scoringStrategy": _DEFAULT_STRATEGY}, ""),
    ({"ignoredResourceGroups": ["example.com/"], "scoringStrategy": _DEFAULT_STRATEGY},
     "name part must be non-empty"),
    ({"ignoredResourceGroups": ["a" * 64], "scoringStrategy": _DEFAULT_STRATEGY},
     "name part must be no more than 63 bytes"),
    ({"ignoredResourceGroups": ["example.com/aa"], "scoringStrategy": _DEFAULT_STRATEGY},
     "resource group name can't contain '/'"),
    ({}, "ScoringStrategy field is required"),
    ({"scoringStrategy": {"type": "Invalid"}}, 'Unsupported value: "Invalid"'),
    ({"scoringStrategy": {"type": "RequestedToCapacityRatio"}},
     "must be specified when type is RequestedToCapacityRatio"),
], ids=["IgnoredResources: too long value", "IgnoredResources: name is empty",
        "IgnoredResources: name has too many slash", "IgnoredResources: valid args",
        "IgnoredResourceGroups: valid args", "IgnoredResourceGroups: illegal args",
        "IgnoredResourceGroups: name is too long",
        "IgnoredResourceGroups: name cannot be contain slash",
        "ScoringStrategy: field is required", "ScoringStrategy: type is unsupported",
        "ScoringStrategy: requestedToCapacityRatio field is missing"])
def test_validate_fit_args(args: dict, expect: str) -> None:
    """TestValidateFitArgs (error text contains ``expect``)."""
    text = "; ".join(str(e) for e in pa.validate_fit(args))
    if expect:
        assert expect in text
    else:
        assert text == ""


_RESOURCE_CASES = [
    ("default config", None, []),
    ("multi valid resources", [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 10}],
     []),
    ("weight less than min", [{"name": "cpu", "weight": 0}],
     [(INVALID, "scoringStrategy.resources[0].weight")]),
    ("weight greater than max", [{"name": "cpu", "weight": 101}],
     [(INVALID, "scoringStrategy.resources[0].weight")]),
    ("multi invalid resources",
     [{"name": "cpu", "weight": 0}, {"name": "memory", "weight": 101}],
     [(INVALID, "scoringStrategy.resources[0].weight"),
      (INVALID, "scoringStrategy.resources[1].weight")]),
]


@pytest.mark.parametrize("strategy", ["LeastAllocated", "MostAllocated"])
@pytest.mark.parametrize(("resources", "want"), [c[1:] for c in _RESOURCE_CASES],
                         ids=[c[0] for c in _RESOURCE_CASES])
def test_validate_allocated_scoring_strategy(strategy: str, resources: list | None,
                                             want: list) -> None:
    """TestValidateLeastAllocatedScoringStrategy / TestValidateMostAllocatedScoringStrategy."""
    s: dict[str, Any] = {"type": strategy}
    if resources is not None:
        s["resources"] = resources
    _check(pa.validate_fit, {"scoringStrategy": s}, want)


_SHAPE_30_3 = [{"utilization": 30, "score": 3}]
_RTCR = "scoringStrategy.requestedToCapacityRatio.shape"


@pytest.mark.parametrize(("resources", "shape", "want"), [
    (None, None, [(REQUIRED, _RTCR)]),
    ([{"name": "cpu", "weight": 101}], _SHAPE_30_3,
     [(INVALID, "scoringStrategy.resources[0].weight")]),
    ([{"name": "cpu", "weight": 0}], _SHAPE_30_3,
     [(INVALID, "scoringStrategy.resources[0].weight")]),
    (None, _SHAPE_30_3, []),
    (None, [{"utilization": -1, "score": 3}], [(INVALID, f"{_RTCR}[0].utilization")]),
    (None, [{"utilization": 101, "score": 3}], [(INVALID, f"{_RTCR}[0].utilization")]),
    (None, [{"utilization": 10, "score": 3}, {"utilization": 10, "score": 3}],
     [(INVALID, f"{_RTCR}[1].utilization")]),
    (None, [{"utilization": 10, "score": 3}, {"utilization": 20, "score": 3},
            {"utilization": 30, "score": 3}], []),
    (None, [{"utilization": 10, "score": 3}, {"utilization": 20, "score": 3},
            {"utilization": 15, "score": 3}], [(INVALID, f"{_RTCR}[2].utilization")]),
    (None, [{"utilization": 10, "score": -1}], [(INVALID, f"{_RTCR}[0].score")]),
    (None, [{"utilization": 10, "score": 11}], [(INVALID, f"{_RTCR}[0].score")]),
], ids=["no shapes", "weight greater than max", "weight less than min", "valid shapes",
        "utilization less than min", "utilization greater than max",
        "duplicated utilization values", "increasing utilization values",
        "non-increasing utilization values", "score less than min", "score greater than max"])
def test_validate_requested_to_capacity_ratio_scoring_strategy(
        resources: list | None, shape: list | None, want: list) -> None:
    """TestValidateRequestedToCapacityRatioScoringStrategy."""
    s: dict[str, Any] = {"type": "RequestedToCapacityRatio",
                         "requestedToCapacityRatio": {} if shape is None else {"shape": shape}}
    if resources is not None:
        s["resources"] = resources
    _check(pa.validate_fit, {"scoringStrategy": s}, want)


_S = 10**9


@pytest.mark.parametrize(("args", "disabled", "want"), [
    ({"filterTimeout": 10 * _S, "bindingTimeout": 600 * _S}, (), []),
    ({}, (), []),
    ({"filterTimeout": -_S}, (), [(INVALID, "filterTimeout")]),
    ({"filterTimeout": -_S}, ("DRASchedulerFilterTimeout",), [(FORBIDDEN, "filterTimeout")]),
    ({"bindingTimeout": 30 * _S}, (), []),
    ({"bindingTimeout": 0}, (), [(INVALID, "bindingTimeout")]),
    ({"bindingTimeout": -_S}, (), [(INVALID, "bindingTimeout")]),
    ({"bindingTimeout": _S}, ("DRADeviceBindingConditions",), [(FORBIDDEN, "bindingTimeout")]),
    ({"bindingTimeout": _S}, ("DRAResourceClaimDeviceStatus",), [(FORBIDDEN, "bindingTimeout")]),
], ids=["valid args (default)", "valid args (disabled)", "negative FilterTimeout",
        "negative FilterTimeout, disabled", "valid BindingTimeout", "BindingTimeout < 1s (0s)",
        "BindingTimeout < 1s (negative)",
        "BindingTimeout set but DRADeviceBindingConditions disabled",
        "BindingTimeout set but DRAResourceClaimDeviceStatus disabled"])
def test_validate_dynamic_resources_args(args: dict, disabled: tuple, want: list) -> None:
    """TestValidateDynamicResourcesArgs."""
    _check(pa.validate_dynamic_resources, args, want, off(*disabled))


# ================================================================ error messages, end to end

def _load_error(cfg: dict, registry: dict | None = None) -> ConfigError:
    with pytest.raises(ConfigError) as e:
        load_config({**API, **cfg}, registry or REGISTRY)
    return e.value


def test_error_names_the_file_and_the_field_path(tmp_path: Any) -> None:
    path = tmp_path / "sched.yaml"
    path.write_text("""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      minCandidateNodesPercentage: 20
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - name: cpu
          weight: 101
""")
    with pytest.raises(ConfigError) as e:
        load_config(str(path), REGISTRY)
    assert str(e.value) == (
        f"{path}: profiles[0].pluginConfig[1].args.scoringStrategy.resources[0].weight: "
        "Invalid value: 101: resource weight of cpu not in valid range (0, 100]")


def test_all_validation_errors_are_reported_together() -> None:
    e = _load_error({"parallelism": 0, "podInitialBackoffSeconds": 5,
                     "podMaxBackoffSeconds": 2, "profiles": [{"pluginConfig": [
                         {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 101}},
                         {"name": "PodTopologySpread", "args": {
                             "defaultingType": "List",
                             "defaultConstraints": [{"maxSkew": 0, "topologyKey": "zone",
                                                     "whenUnsatisfiable": "Maybe"}]}}]}]})
    assert e.errors == [
        "parallelism: Invalid value: 0: should be an integer value greater than zero",
        "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: "
        "not in valid range [0, 100]",
        "profiles[0].pluginConfig[1].args.defaultConstraints[0].maxSkew: Invalid value: 0: "
        "not in valid range (0, inf)",
        "profiles[0].pluginConfig[1].args.defaultConstraints[0].whenUnsatisfiable: "
        'Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
        "podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to "
        "PodInitialBackoffSeconds",
    ]
    assert str(e).startswith("<dict>: 5 errors:\n  - parallelism: ")


@pytest.mark.parametrize(("plugins_cfg", "want"), [
    ({"filter": {"enabled": [{"name": "Foo"}]}},
     'profiles[0].plugins.filter.enabled[0]: FilterPlugin "Foo" does not exist'),
    ({"multiPoint": {"enabled": [{"name": "Foo"}]}},
     'profiles[0].plugins.multiPoint.enabled[0]: PreFilterPlugin "Foo" does not exist'),
    ({"filter": {"enabled": [{"name": "ImageLocality"}]}},
     'profiles[0].plugins.filter.enabled[0]: plugin "ImageLocality" does not extend '
     "FilterPlugin plugin"),
    ({"score": {"enabled": [{"name": "ImageLocality"}, {"name": "ImageLocality"}]}},
     'profiles[0].plugins.score.enabled[1]: plugin "ImageLocality" already registered as '
     '"ScorePlugin"'),
    ({"multiPoint": {"enabled": [{"name": "SchedulingGates"}], "disabled": [{"name": "*"}]}},
     'profiles[0].plugins.queueSort: only one queue sort plugin required for profile with '
     'scheduler name "default-scheduler", but got 0'),
    ({"bind": {"disabled": [{"name": "DefaultBinder"}]}},
     'profiles[0].plugins.bind: at least one bind plugin is needed for profile with scheduler '
     'name "default-scheduler"'),
])
def test_framework_errors(plugins_cfg: dict, want: str) -> None:
    """NewFramework's errors (framework.go), with the entry's path."""
    assert _load_error({"profiles": [{"plugins": plugins_cfg}]}).errors == [want]


def test_a_default_plugin_missing_from_the_registry() -> None:
    registry = {k: v for k, v in REGISTRY.items() if k != "NodeDeclaredFeatures"}
    with pytest.raises(ConfigError, match='profiles\\[0\\].plugins.multiPoint: '
                                          'PreFilterPlugin "NodeDeclaredFeatures" does not exist'):
        default_config(registry)


def test_fit_args_are_checked_only_when_the_plugin_is_built() -> None:
    """validatePluginConfig keys NodeResourcesFit as "NodeResourcesFitArgs": invalid Fit args
    pass config validation and fail when the plugin is constructed, i.e. only if enabled."""
    bad = {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "Nope"}}}
    disabled = {"multiPoint": {"disabled": [{"name": "NodeResourcesFit"}]}}
    cfg = load_config({**API, "profiles": [{"plugins": disabled, "pluginConfig": [bad]}]},
                      REGISTRY)
    assert "NodeResourcesFit" not in [e.name for e in cfg.profiles[0].plugins["filter"]]
    assert _load_error({"profiles": [{"pluginConfig": [bad]}]}).errors == [
        'profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Nope": '
        'supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"']


def test_plugin_config_named_node_resources_fit_args() -> None:
    e = _load_error({"profiles": [{"pluginConfig": [{"name": "NodeResourcesFitArgs"}]}]})
    assert e.errors == ["profiles[0].pluginConfig[0].args: Invalid value: null: has to match "
                        "plugin args"]


def test_removed_plugin() -> None:
    e = _load_error({"profiles": [{"plugins": {"filter": {"enabled": [{"name": "EBSLimits"}]}}}]})
    assert e.errors == ['profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": '
                        'was invalid in version "v1" (KubeSchedulerConfiguration is version '
                        '"kubescheduler.config.k8s.io/v1")']


def test_decoding_errors() -> None:
    e = _load_error({"parallelism": "16", "podMaxBackoffSeconds": 1.5, "profiles": [{
        "plugins": {"filter": {"enabled": [{"name": "NodeName", "wieght": 1}]}},
        "pluginConfig": [{"name": "DynamicResources", "args": {"filterTimeout": "10 s"}},
                         {"name": "VolumeBinding", "args": {"bindTimeoutSeconds": 2**63}}]}]})
    assert e.errors == [
        "parallelism: expected an integer (int32), got string '16'",
        "podMaxBackoffSeconds: expected an integer (int64), got number 1.5",
        'profiles[0].plugins.filter.enabled[0]: unknown field "wieght"',
        'profiles[0].pluginConfig[0].args.filterTimeout: time: unknown unit " s" in duration '
        '"10 s"',
        "profiles[0].pluginConfig[1].args.bindTimeoutSeconds: 9223372036854775808 overflows "
        "int64",
    ]


def test_profiles_must_share_the_queue_sort_plugin() -> None:
    """profile.go cfgValidator: after expansion, all profiles have the first one's queue sort."""
    registry = {**REGISTRY, "CustomSort": fake("CustomSort", P.QueueSortPlugin)}
    e = _load_error({"profiles": [
        {"schedulerName": "a"},
        {"schedulerName": "b", "plugins": {"multiPoint": {
            "enabled": [{"name": "CustomSort"}], "disabled": [{"name": "PrioritySort"}]}}},
    ]}, registry)
    assert e.errors == ['profiles[1].plugins.queueSort: different queue sort plugins for profile '
                        '"b": "CustomSort", first: "PrioritySort"']


def test_unreadable_and_malformed_files(tmp_path: Any) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml", REGISTRY)
    bad = tmp_path / "bad.yaml"
    bad.write_text("profiles: [\n")
    with pytest.raises(ConfigError, match="cannot parse"):
        load_config(bad, REGISTRY)


def test_multiple_profiles_load() -> None:
    cfg = load_config({**API, "parallelism": 4, "profiles": [
        {"schedulerName": "a", "percentageOfNodesToScore": 30},
        {"schedulerName": "b", "plugins": {"score": {"disabled": [{"name": "*"}]}}}]}, REGISTRY)
    assert cfg.parallelism == 4
    assert [p.scheduler_name for p in cfg.profiles] == ["a", "b"]
    assert cfg.profile("a").percentage_of_nodes_to_score == 30  # type: ignore[union-attr]
    assert cfg.profile("b").plugins["score"] == []  # type: ignore[union-attr]
    assert cfg.profile("c") is None


# ================================================================= typed objects and units

def test_default_constraints_become_topology_spread_constraints() -> None:
    cfg = load_config({**API, "profiles": [{"pluginConfig": [{
        "name": "PodTopologySpread", "args": {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 3, "topologyKey": "kubernetes.io/hostname",
             "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 2,
             "nodeTaintsPolicy": "Honor", "matchLabelKeys": ["app"]}]}}]}]}, REGISTRY)
    assert cfg.profiles[0].plugin_args["PodTopologySpread"] == a.PodTopologySpreadArgs(
        (TopologySpreadConstraint(3, "kubernetes.io/hostname", "ScheduleAnyway", None, 2, None,
                                  "Honor", ("app",)),), "List")


def test_label_selector_and_preferred_terms_conversion() -> None:
    from reference_impl.config import core_v1

    assert core_v1.label_selector({"matchLabels": {"b": "2", "a": "1"}, "matchExpressions": [
        {"key": "k", "operator": "Exists"}]}) == LabelSelector(
        (("a", "1"), ("b", "2")), (LabelSelectorRequirement("k", "Exists", ()),))
    assert core_v1.node_affinity({"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 5, "preference": {"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}}]}) == NodeAffinity(
        None, (PreferredSchedulingTerm(5, NodeSelectorTerm(match_fields=(
            NodeSelectorRequirement("metadata.name", "In", ("n1",)),))),))


@pytest.mark.parametrize(("text", "ns"), [
    ("0", 0), ("10s", 10 * _S), ("10m0s", 600 * _S), ("1h2m3.5s", 3723 * _S + _S // 2),
    ("-1s", -_S), ("+1.5ms", 1_500_000), ("300us", 300_000), ("1\u00b5s", 1000), ("7ns", 7),
    (".5s", _S // 2),
])
def test_parse_go_duration(text: str, ns: int) -> None:
    assert parse_go_duration(text) == ns


@pytest.mark.parametrize(("text", "message"), [
    ("", 'time: invalid duration ""'), ("1", 'time: missing unit in duration "1"'),
    ("1d", 'time: unknown unit "d" in duration "1d"'), ("s", 'time: invalid duration "s"'),
])
def test_parse_go_duration_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError) as e:
        parse_go_duration(text)
    assert str(e.value) == message


@pytest.mark.parametrize(("ns", "text"), [
    (0, "0s"), (600 * _S, "10m0s"), (3723 * _S + _S // 2, "1h2m3.5s"), (-_S, "-1s"),
    (1_500_000, "1.5ms"), (7, "7ns"), (1000, "1\u00b5s"),
])
def test_format_go_duration(ns: int, text: str) -> None:
    assert format_go_duration(ns) == text


def test_duration_bad_value_is_printed_as_go_does() -> None:
    [err] = pa.validate_dynamic_resources({"filterTimeout": -90 * _S})
    assert str(err) == 'filterTimeout: Invalid value: "-1m30s": must be zero or positive'
