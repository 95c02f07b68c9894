"""Release data of the pinned upstream release (reference_impl/releases)."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import types
from pathlib import Path

import jsonschema
import pytest
import yaml

from conformance.cli.main import main
from conformance.core.documents import schema
from conformance.core.releases import release_diff_doc, resolve_release
from conformance.subjects.upstream import BUILD_HINT, binary_available, default_binary
from reference_impl.releases import (
    ReleaseData,
    current,
    load,
    module_name,
    pinned,
    supported_releases,
    v1_37_2,
)

ROOT = Path(__file__).resolve().parent.parent
#: releasedata's JSON document for v1.37.2 (upstream/releasedata/generate.sh v1.37.2 --json F)
RELEASEDATA_V1_37_2 = Path(__file__).parent / "data" / "releasedata-v1.37.2.json"

# pkg/scheduler/apis/config/testing/defaults/defaults.go PluginsV1 (= default_plugins_test.go
# TestApplyFeatureGates "Feature gate DynamicResourceAllocation enabled" /
# "Feature gate NodeDeclaredFeatures enabled"): the default MultiPoint list at v1.37 gates.
PLUGINS_V1 = [
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeName", 0),
    ("NodeUnschedulable", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
    ("NodeDeclaredFeatures", 0),
]


def test_current_loads_the_pinned_release() -> None:
    assert module_name("v1.37.2") == "v1_37_2"
    assert current.RELEASE.release == pinned.UPSTREAM_RELEASE == "v1.37.2"
    assert current.RELEASE == ReleaseData.from_module(v1_37_2)


def test_default_plugins_are_plugins_v1() -> None:
    assert current.default_plugins() == PLUGINS_V1


def test_default_plugins_returns_a_copy() -> None:
    current.default_plugins().clear()
    assert current.default_plugins() == PLUGINS_V1


@pytest.mark.parametrize(("gate", "enabled"), [
    # The v1.37.2 defaults named in the project brief, from pkg/features/kube_features.go.
    ("PodLevelResources", True),
    ("DRAExtendedResource", True),
    ("NodeDeclaredFeatures", True),
    ("TaintTolerationComparisonOperators", False),
    ("InterPodAffinityHostnameFastPath", False),
    ("OpportunisticBatching", True),
    ("GenericWorkload", False),
    # and the ones that shape the default profile and its args (defaults.go, default_plugins.go)
    ("DynamicResourceAllocation", True),
    ("InPlacePodVerticalScalingSchedulerPreemption", False),
    ("TopologyAwareWorkloadScheduling", False),
    ("StorageCapacityScoring", True),
    ("DRASchedulerFilterTimeout", True),
    ("DRADeviceBindingConditions", True),
    ("DRAResourceClaimDeviceStatus", True),
    ("SchedulerAsyncAPICalls", False),
    ("SchedulerPopFromBackoffQ", True),
    ("NominatedNodeNameForExpectation", True),
])
def test_feature_gate_defaults(gate: str, enabled: bool) -> None:
    assert current.feature_enabled(gate) is enabled


def test_unknown_feature_gate_is_an_error() -> None:
    with pytest.raises(KeyError, match="NoSuchGate"):
        current.feature_enabled("NoSuchGate")


def test_config_defaults() -> None:
    """defaults.go SetDefaults_KubeSchedulerConfiguration / defaults_test.go "empty config"."""
    r = current.RELEASE
    assert (r.parallelism, r.percentage_of_nodes_to_score, r.pod_initial_backoff_seconds,
            r.pod_max_backoff_seconds, r.default_scheduler_name) == (16, 0, 1, 10,
                                                                     "default-scheduler")
    assert r.pod_max_in_unschedulable_pods_duration_seconds == 300
    assert r.max_custom_priority_score == 10
    assert r.removed_plugins == ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")


def test_plugin_args_defaults() -> None:
    """The values of defaults_test.go's pluginConfigs (v1) for every registered args kind."""
    d = current.RELEASE.plugin_args_defaults
    cpu_mem = ({"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1})
    assert set(d) == {
        "DefaultPreemptionArgs", "DynamicResourcesArgs", "InterPodAffinityArgs",
        "NodeAffinityArgs", "NodeResourcesBalancedAllocationArgs", "NodeResourcesFitArgs",
        "PodTopologySpreadArgs", "VolumeBindingArgs"}
    assert d["DefaultPreemptionArgs"] == {"minCandidateNodesPercentage": 10,
                                          "minCandidateNodesAbsolute": 100}
    assert d["DynamicResourcesArgs"] == {"filterTimeout": "10s", "bindingTimeout": "10m0s"}
    assert d["InterPodAffinityArgs"] == {"hardPodAffinityWeight": 1}
    assert d["NodeAffinityArgs"] == {}
    assert d["NodeResourcesBalancedAllocationArgs"] == {"resources": cpu_mem}
    assert d["NodeResourcesFitArgs"] == {"scoringStrategy": {"type": "LeastAllocated",
                                                             "resources": cpu_mem}}
    assert d["PodTopologySpreadArgs"] == {"defaultingType": "System"}
    assert d["VolumeBindingArgs"] == {
        "bindTimeoutSeconds": 600,
        "shape": ({"utilization": 0, "score": 10}, {"utilization": 100, "score": 0})}


def test_release_module_is_pure_data() -> None:
    """Only literals: a new release is a data module, no code."""
    literal = (str, int, bool, tuple, dict)

    def is_literal(v: object) -> bool:
        if isinstance(v, dict):
            return all(isinstance(k, str) and is_literal(x) for k, x in v.items())
        if isinstance(v, tuple):
            return all(is_literal(x) for x in v)
        return isinstance(v, literal)

    # ("@py_*" names are pytest's assertion rewriting, applied to installed plugin packages)
    public = {k: v for k, v in vars(v1_37_2).items()
              if not k.startswith("__") and not k.startswith("@")}
    assert public
    assert all(is_literal(v) for v in public.values()), [
        k for k, v in public.items() if not is_literal(v)]


def test_a_second_release_is_a_data_change() -> None:
    other = types.ModuleType("v9_99_0")
    for k, v in vars(v1_37_2).items():
        if k.isupper():
            setattr(other, k, v)
    other.RELEASE = "v9.99.0"
    other.PARALLELISM = 8
    data = ReleaseData.from_module(other)
    assert (data.release, data.parallelism) == ("v9.99.0", 8)
    assert data.default_plugins == current.RELEASE.default_plugins


def test_a_release_module_missing_a_constant_is_rejected() -> None:
    incomplete = types.ModuleType("v0_0_0")
    incomplete.RELEASE = "v0.0.0"
    with pytest.raises(ImportError, match="FEATURE_GATES"):
        ReleaseData.from_module(incomplete)


def test_release_data_is_read_only() -> None:
    with pytest.raises(TypeError):
        current.RELEASE.feature_gates["GenericWorkload"] = True  # type: ignore[index]


# ------------------------------------------------------------------ the supported releases

SUPPORTED = ["v1.34.4", "v1.35.4", "v1.36.3", "v1.37.2"]


def test_the_supported_releases_are_the_data_modules_oldest_first() -> None:
    assert supported_releases() == SUPPORTED
    assert pinned.UPSTREAM_RELEASE in SUPPORTED


@pytest.mark.parametrize("release", SUPPORTED)
def test_every_release_module_loads_and_is_consistent(release: str) -> None:
    r = load(release)
    assert r.release == release
    assert r.module_sum.startswith("h1:") and r.module_time.startswith("20")
    assert set(r.feature_gate_stages) == set(r.feature_gates)
    assert set(r.feature_gate_stages.values()) <= {"Alpha", "Beta", "GA", "Deprecated"}
    assert set(r.locked_feature_gates) <= set(r.feature_gates)
    # a locked gate is GA or deprecated, and on iff GA
    for gate in r.locked_feature_gates:
        assert r.feature_gates[gate] is (r.feature_gate_stages[gate] == "GA"), gate
    # every plugin of an extension point comes from the MultiPoint list, in its order
    multi = [name for name, _ in r.default_plugins]
    for point, plugins in r.extension_points.items():
        names = [name for name, _ in plugins]
        assert names == [n for n in multi if n in names], point
    assert r.extension_points["queueSort"] == (("PrioritySort", 0),)
    assert r.extension_points["bind"] == (("DefaultBinder", 0),)
    # Score weights are effective: the MultiPoint weight, 1 when it is not set
    weights = dict(r.default_plugins)
    assert r.extension_points["score"]
    for name, weight in r.extension_points["score"]:
        assert weight == (weights[name] or 1), name
    assert {f"{n}Args" for n in multi} & set(r.plugin_args_defaults)


def test_an_unknown_release_is_a_key_error_naming_the_supported_ones() -> None:
    with pytest.raises(KeyError, match="v1.37.2"):
        load("v1.99.0")


def test_a_release_is_named_by_tag_or_minor() -> None:
    assert resolve_release("v1.36.3") == resolve_release("1.36.3") == "v1.36.3"
    assert resolve_release("v1.35") == resolve_release("1.35") == "v1.35.4"
    with pytest.raises(KeyError, match="supported"):
        resolve_release("v1.33")


# ---------------------------------------------- the generated v1.37.2 module (releasedata)

def _render_module():
    spec = importlib.util.spec_from_file_location(
        "releasedata_render", ROOT / "upstream" / "releasedata" / "render.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_v1_37_2_module_is_the_rendering_of_the_program_output() -> None:
    """The committed module is exactly what render.py makes of releasedata's document."""
    render = _render_module()
    doc = json.loads(RELEASEDATA_V1_37_2.read_text())
    text = render.render(doc, v1_37_2.MODULE_SUM, v1_37_2.MODULE_TIME)
    assert text == (ROOT / "reference_impl" / "releases" / "v1_37_2.py").read_text()


def test_the_program_output_names_the_sources_it_read() -> None:
    doc = json.loads(RELEASEDATA_V1_37_2.read_text())
    assert doc["version"] == "v1.37.2"
    # the gates were found in the source: each with the files that name it
    assert sorted(doc["gatesReadBy"]) == sorted(v1_37_2.FEATURE_GATES)
    assert "pkg/scheduler/apis/config/v1/default_plugins.go" in doc["gatesReadBy"][
        "DynamicResourceAllocation"]
    assert doc["invalidPluginsByVersion"] == {"v1": list(v1_37_2.REMOVED_PLUGINS)}


# The hand-written v1.37.2 gates the generated module replaced (pkg/features/kube_features.go),
# with one correction: DRAFractionalCapacityRange has two 1.37 entries, Beta off and Beta on with
# MinCompatibilityVersion 1.37; the default --min-compatibility-version of a 1.37 binary is 1.36
# (component-base featuregate NewVersionedFeatureGate), so it is off by default.
HAND_GATES_V1_37 = {
    "CompositePodGroup": False, "DRAAdminAccess": True, "DRAConsumableCapacity": True,
    "DRADerivedAttributes": False, "DRADeviceBindingConditions": True,
    "DRADeviceCompatibilityGroups": False, "DRADeviceTaintRules": True, "DRADeviceTaints": True,
    "DRAExtendedResource": True, "DRAFractionalCapacityRange": False,
    "DRAListTypeAttributes": False, "DRANodeAllocatableResources": False,
    "DRAOptionalNodeOperations": False, "DRAPartitionableDevices": True,
    "DRAPrioritizedList": True, "DRAResourceClaimDeviceStatus": True,
    "DRASchedulerFilterTimeout": True, "DRAWorkloadResourceClaims": False,
    "DynamicResourceAllocation": True, "GenericWorkload": False,
    "InPlacePodLevelResourcesVerticalScaling": True, "InPlacePodVerticalScaling": True,
    "InPlacePodVerticalScalingSchedulerPreemption": False,
    "InterPodAffinityHostnameFastPath": False, "MatchLabelKeysInPodTopologySpread": True,
    "NodeDeclaredFeatures": True, "NodeInclusionPolicyInPodTopologySpread": True,
    "NominatedNodeNameForExpectation": True, "OpportunisticBatching": True,
    "PodGroupPreemptionPolicy": False, "PodLevelResources": True, "SchedulerAsyncAPICalls": False,
    "SchedulerAsyncPreemption": True, "SchedulerPopFromBackoffQ": True,
    "SchedulerPreQueueingHints": False, "StorageCapacityScoring": True,
    "TaintTolerationComparisonOperators": False, "TopologyAwareWorkloadScheduling": False,
    "VolumeAttributesClass": True, "VolumeLimitScaling": True,
}


def test_the_generated_v1_37_2_gates_are_the_known_ones() -> None:
    assert dict(current.RELEASE.feature_gates) == HAND_GATES_V1_37
    assert current.RELEASE.feature_gate_stages["DRAFractionalCapacityRange"] == "Beta"


def test_the_v1_37_2_extension_points() -> None:
    """What the framework makes of the default MultiPoint list (framework.go expandMultiPoint:
    a plugin joins every point whose interface it implements)."""
    points = current.RELEASE.extension_points
    assert points["preEnqueue"] == (("SchedulingGates", 0), ("DynamicResources", 0),
                                    ("DefaultPreemption", 0))
    assert points["postFilter"] == (("DynamicResources", 0), ("DefaultPreemption", 0))
    assert points["reserve"] == points["preBind"] == (("VolumeBinding", 0),
                                                      ("DynamicResources", 0))
    assert points["score"] == (
        ("TaintToleration", 3), ("NodeAffinity", 2), ("NodeResourcesFit", 1),
        ("VolumeBinding", 1), ("PodTopologySpread", 2), ("InterPodAffinity", 2),
        ("DynamicResources", 2), ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1))
    assert points["permit"] == points["postBind"] == ()


# ------------------------------------------------------------------ diffing two releases

def test_a_release_does_not_differ_from_itself() -> None:
    doc = release_diff_doc(current.RELEASE, current.RELEASE)
    jsonschema.validate(doc, schema("ReleaseDiff"))
    assert (doc["featureGates"], doc["plugins"], doc["pluginArgs"], doc["settings"]) == (
        [], [], [], [])


def test_the_diff_names_each_kind_of_change() -> None:
    a = current.RELEASE
    plugins = [p for p in a.default_plugins if p[0] != "ImageLocality"]
    plugins[0], plugins[1] = plugins[1], plugins[0]  # SchedulingGates <-> PrioritySort
    plugins = [(n, 5 if n == "TaintToleration" else w) for n, w in plugins] + [("Extra", 0)]
    args = {k: dict(v) for k, v in a.plugin_args_defaults.items()}
    args["InterPodAffinityArgs"]["hardPodAffinityWeight"] = 2
    del args["VolumeBindingArgs"]["shape"]
    del args["NodeAffinityArgs"]
    b = dataclasses.replace(
        a, release="v9.0.0", default_plugins=tuple(plugins), plugin_args_defaults=args,
        feature_gates={**a.feature_gates, "GenericWorkload": True},
        parallelism=8)
    doc = release_diff_doc(a, b)
    jsonschema.validate(doc, schema("ReleaseDiff"))
    assert doc["featureGates"] == [{"gate": "GenericWorkload",
                                    "a": {"default": False, "stage": "Beta", "locked": False},
                                    "b": {"default": True, "stage": "Beta", "locked": False}}]
    assert doc["plugins"] == [{
        "extensionPoint": "multiPoint",
        "added": [{"plugin": "Extra", "weight": 0, "after": "NodeDeclaredFeatures"}],
        "removed": ["ImageLocality"],
        "weights": [{"plugin": "TaintToleration", "a": 3, "b": 5}],
        "moved": [{"plugin": "SchedulingGates", "after": "PrioritySort"}]}]
    assert doc["pluginArgs"] == [
        {"args": "InterPodAffinityArgs", "field": "hardPodAffinityWeight", "a": 1, "b": 2},
        {"args": "NodeAffinityArgs", "field": None, "a": {}, "b": None},
        {"args": "VolumeBindingArgs", "field": "shape",
         "a": [{"score": 10, "utilization": 0}, {"score": 0, "utilization": 100}], "b": None}]
    assert doc["settings"] == [{"field": "parallelism", "a": 16, "b": 8}]


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_releases_lists_the_data_modules(capsys) -> None:
    code, out, _ = _cli(capsys, "releases", "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, schema("ReleaseList"))
    assert code == 0
    assert [r["release"] for r in doc["releases"]] == SUPPORTED
    assert [r["release"] for r in doc["releases"] if r["pinned"]] == [pinned.UPSTREAM_RELEASE]
    assert doc["releases"][-1]["defaultPlugins"] == [n for n, _ in PLUGINS_V1]
    code, out, _ = _cli(capsys, "releases", "list")
    rows = out.splitlines()
    assert code == 0 and rows[0].split()[0] == "release"
    assert [r.split()[0] for r in rows[2:]] == SUPPORTED
    assert "(pinned)" in rows[-1]


def test_releases_diff_of_the_oldest_and_newest(capsys) -> None:
    code, out, _ = _cli(capsys, "releases", "diff", "v1.34", "v1.37", "-o", "yaml")
    doc = yaml.safe_load(out)
    jsonschema.validate(doc, schema("ReleaseDiff"))
    assert code == 0 and (doc["a"], doc["b"]) == ("v1.34.4", "v1.37.2")
    assert doc == json.loads(json.dumps(release_diff_doc(load("v1.34.4"), load("v1.37.2"))))
    code, out, _ = _cli(capsys, "releases", "diff", "v1.34.4", "v1.37.2")
    assert code == 0 and out.splitlines()[0] == "v1.34.4 -> v1.37.2"
    code, out, _ = _cli(capsys, "releases", "diff", "v1.37.2", "v1.37")
    assert code == 0 and "no differences" in out


def test_releases_diff_of_an_unknown_release_is_a_usage_error(capsys) -> None:
    code, _, err = _cli(capsys, "releases", "diff", "v1.30", "v1.37")
    assert code == 2 and "supported: v1.34.4" in err


def test_the_pinned_gates_are_the_upstream_subjects() -> None:
    """The pinned release's gate defaults are those the built upstream subject reports."""
    if not binary_available():
        pytest.skip("no upstream subject binary: " + BUILD_HINT)
    out = subprocess.run([str(default_binary()), "features"], capture_output=True, text=True,
                         check=True).stdout
    reported = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    assert {g: reported[g] == "true" for g in current.RELEASE.feature_gates} == dict(
        current.RELEASE.feature_gates)
