"""Release data of the pinned upstream release (reference_impl/releases)."""

from __future__ import annotations

import types

import pytest

from reference_impl.releases import ReleaseData, current, module_name, pinned, v1_37_2

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
