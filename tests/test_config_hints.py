"""Configuration hints (reference_impl/config/hints.py): a configuration of another release or
with out-of-tree plugins fails with upstream's error text, followed by hints saying which
release removed what, what replaced it, and how to bring your own plugins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.cli.main import main
from reference_impl.config import ConfigError, load_config
from reference_impl.config.hints import REMOVED_API_VERSIONS, REMOVED_PLUGINS, config_hints
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases.current import RELEASE
from reference_impl.testing.wrappers import make_config, make_profile

V1 = "kubescheduler.config.k8s.io/v1"


def config(api_version: str = V1, **plugins: list[str]) -> dict[str, Any]:
    profile = make_profile()
    doc = make_config().profile(profile).manifest()
    doc["apiVersion"] = api_version
    doc["profiles"][0]["plugins"] = {point: {"enabled": [{"name": n} for n in names]}
                                     for point, names in plugins.items()}
    return doc


def error_of(doc: dict[str, Any]) -> ConfigError:
    with pytest.raises(ConfigError) as e:
        load_config(doc, in_tree_registry())
    return e.value


@pytest.mark.parametrize(("version", "removed_in"), [
    ("kubescheduler.config.k8s.io/v1beta1", "v1.23"),
    ("kubescheduler.config.k8s.io/v1beta2", "v1.28"),
    ("kubescheduler.config.k8s.io/v1beta3", "v1.29"),
    ("kubescheduler.config.k8s.io/v1alpha1", "v1.19"),
])
def test_a_removed_api_version_says_which_release_removed_it(version: str,
                                                             removed_in: str) -> None:
    e = error_of(config(version))
    assert e.errors == [f'no kind "KubeSchedulerConfiguration" is registered for version '
                        f'"{version}"']  # upstream's text, unchanged
    assert f"hint: {version} " in str(e) and f"removed in {removed_in}" in str(e)
    assert f"reads only {V1}" in str(e)


def test_the_old_policy_api_gets_a_hint() -> None:
    e = error_of({"apiVersion": "v1", "kind": "Policy", "predicates": []})
    assert "the scheduler Policy API was removed in v1.23" in str(e)


@pytest.mark.parametrize("plugin", ["EBSLimits", "GCEPDLimits", "AzureDiskLimits",
                                    "CinderLimits"])
def test_a_removed_volume_limits_plugin_points_at_node_volume_limits(plugin: str) -> None:
    e = error_of(config(filter=[plugin]))
    assert e.errors == [f'profiles[0].plugins.filter.enabled[0]: Invalid value: "{plugin}": '
                        f'was invalid in version "v1" (KubeSchedulerConfiguration is version '
                        f'"{V1}")']
    assert f"hint: plugin {plugin} was deprecated in v1.31 and removed in v1.32: " \
           "NodeVolumeLimits" in str(e)


@pytest.mark.parametrize(("plugin", "replacement"), [
    ("SelectorSpread", "PodTopologySpread's system default constraints"),
    ("NodeLabel", "NodeAffinity"),
    ("ServiceAffinity", "InterPodAffinity"),
    ("NodePreferAvoidPods", "a PreferNoSchedule taint"),
    ("NodeResourcesLeastAllocated", "NodeResourcesFit with scoringStrategy type LeastAllocated"),
    ("NodeResourcesMostAllocated", "NodeResourcesFit with scoringStrategy type MostAllocated"),
    ("RequestedToCapacityRatio", "scoringStrategy type RequestedToCapacityRatio"),
])
def test_a_removed_plugin_says_what_replaced_it(plugin: str, replacement: str) -> None:
    e = error_of(config(score=[plugin]))
    assert e.errors == [f'profiles[0].plugins.score.enabled[0]: ScorePlugin "{plugin}" does '
                        "not exist"]  # upstream's NewFramework error, unchanged
    hint = next(h for h in e.hints if h.startswith(f"plugin {plugin} "))
    assert replacement in hint and "removed in v1." in hint


def test_an_unknown_plugin_points_at_the_plugins_option() -> None:
    e = error_of(config(preFilter=["Coscheduling"], filter=["MyFilter"]))
    assert e.hints == [
        "plugin Coscheduling is not an in-tree plugin of v1.37.2 (it is a plugin of "
        "kubernetes-sigs/scheduler-plugins): give kschedconf its implementation with "
        "--plugins MODULE (docs/plugins.md)",
        "plugin MyFilter is not an in-tree plugin of v1.37.2: give kschedconf its "
        "implementation with --plugins MODULE (docs/plugins.md)"]


def test_every_hint_of_an_old_configuration_comes_together() -> None:
    e = error_of(config("kubescheduler.config.k8s.io/v1beta3", filter=["EBSLimits"],
                        score=["SelectorSpread"]))
    assert [h.split(" ")[0:2] for h in e.hints] == [
        ["kubescheduler.config.k8s.io/v1beta3", "was"], ["plugin", "EBSLimits"],
        ["plugin", "SelectorSpread"]]


def test_a_valid_configuration_and_in_tree_plugins_get_no_hint() -> None:
    load_config(config(score=["ImageLocality"]), in_tree_registry())
    assert config_hints(config(score=["ImageLocality"], filter=["*"]), in_tree_registry()) == []


def test_the_tables_agree_with_the_release_data() -> None:
    """Upstream's own list of removed plugins (invalidPluginsByVersion) is in the hints."""
    assert set(RELEASE.removed_plugins) <= set(REMOVED_PLUGINS)
    assert V1 not in REMOVED_API_VERSIONS
    assert not set(REMOVED_PLUGINS) & set(in_tree_registry())


def test_the_command_line_prints_the_hints(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "old.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1beta2\n"
                   "kind: KubeSchedulerConfiguration\n")
    assert main(["simulate", "--example", "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert 'no kind "KubeSchedulerConfiguration" is registered for version ' \
           '"kubescheduler.config.k8s.io/v1beta2"' in err
    assert "hint: kubescheduler.config.k8s.io/v1beta2 was deprecated in v1.25 and removed " \
           "in v1.28" in err
