"""Hints added to a configuration error for what configurations of other releases hold: a
removed ``apiVersion`` (which release removed it; v1.37.2 serves only
``kubescheduler.config.k8s.io/v1``), a removed plugin (what replaced it and when), a plugin
name that is not in-tree (``--plugins``, docs/plugins.md). The error text itself stays
upstream's; the hints follow it. Sources: the release notes and pull requests cited in
docs/reference.md#configuration-hints."""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from typing import Any

V1 = "kubescheduler.config.k8s.io/v1"

#: apiVersion -> what happened to it
REMOVED_API_VERSIONS: dict[str, str] = {
    "componentconfig/v1alpha1": "was replaced by kubescheduler.config.k8s.io/v1alpha1 in v1.12 "
                                "and removed in v1.13",
    "kubescheduler.config.k8s.io/v1alpha1": "was removed in v1.19",
    "kubescheduler.config.k8s.io/v1alpha2": "(v1.18) was replaced by v1beta1 in v1.19 and "
                                            "removed since",
    "kubescheduler.config.k8s.io/v1beta1": "was removed in v1.23",
    "kubescheduler.config.k8s.io/v1beta2": "was deprecated in v1.25 and removed in v1.28",
    "kubescheduler.config.k8s.io/v1beta3": "was deprecated in v1.26 and removed in v1.29",
}

_VOLUME_LIMITS = ("was deprecated in v1.31 and removed in v1.32",
                  "NodeVolumeLimits (enabled by default) counts these volumes through their "
                  "CSI drivers' limits (CSINode)")
_FIT_STRATEGY = "was not in v1beta2 (v1.22) and removed in v1.23"

#: plugin -> (when it went, what replaced it)
REMOVED_PLUGINS: dict[str, tuple[str, str]] = {
    "AzureDiskLimits": _VOLUME_LIMITS,
    "CinderLimits": _VOLUME_LIMITS,
    "EBSLimits": _VOLUME_LIMITS,
    "GCEPDLimits": _VOLUME_LIMITS,
    "SelectorSpread": ("was left out of kubescheduler.config.k8s.io/v1 (v1.25) and removed in "
                       "v1.29",
                       "PodTopologySpread's system default constraints (enabled by default) "
                       "spread the pods of the same Services and controllers"),
    "NodeLabel": ("was deprecated in v1beta2 (v1.22) and removed in v1.23",
                  "NodeAffinity (a node selector or node affinity on the labels)"),
    "ServiceAffinity": ("was deprecated in v1beta2 (v1.22) and removed in v1.23",
                        "InterPodAffinity (pod affinity to the Service's pods)"),
    "NodePreferAvoidPods": ("was deprecated in v1beta2 (v1.22) and removed in v1.23",
                            "a PreferNoSchedule taint on the node (TaintToleration)"),
    "NodeResourcesLeastAllocated": (_FIT_STRATEGY, "NodeResourcesFit with scoringStrategy "
                                                   "type LeastAllocated (the default)"),
    "NodeResourcesMostAllocated": (_FIT_STRATEGY, "NodeResourcesFit with scoringStrategy type "
                                                  "MostAllocated"),
    "RequestedToCapacityRatio": (_FIT_STRATEGY, "NodeResourcesFit with scoringStrategy type "
                                                "RequestedToCapacityRatio"),
}

#: plugins of kubernetes-sigs/scheduler-plugins users name in their configurations
OUT_OF_TREE = frozenset({
    "Coscheduling", "CapacityScheduling", "NodeResourcesAllocatable", "TargetLoadPacking",
    "LoadVariationRiskBalancing", "LowRiskOverCommitment", "Peaks", "NodeResourceTopologyMatch",
    "PreemptionToleration", "NetworkOverhead", "TopologicalSort", "SySched", "PodState",
    "QOSSort",
})


def _enabled_names(raw: Mapping[str, Any]) -> list[str]:
    """The plugin names the configuration enables, in document order, once each."""
    names: list[str] = []
    profiles = raw.get("profiles")
    for prof in profiles if isinstance(profiles, list) else ():
        plugins = prof.get("plugins") if isinstance(prof, Mapping) else None
        for point in plugins.values() if isinstance(plugins, Mapping) else ():
            enabled = point.get("enabled") if isinstance(point, Mapping) else None
            for p in enabled if isinstance(enabled, list) else ():
                name = p.get("name") if isinstance(p, Mapping) else None
                if isinstance(name, str) and name not in names:
                    names.append(name)
    return names


def api_version_hint(api_version: object, kind: object) -> str | None:
    if kind == "Policy":
        return ("the scheduler Policy API was removed in v1.23: write a "
                f"KubeSchedulerConfiguration ({V1}) with profiles and plugins instead")
    if isinstance(api_version, str) and api_version in REMOVED_API_VERSIONS:
        return (f"{api_version} {REMOVED_API_VERSIONS[api_version]}; v1.37.2 reads only {V1}: "
                "change the apiVersion (and the plugins the hints below name)")
    return None


def plugin_hints(names: Iterable[str], registry: Container[str]) -> list[str]:
    out = []
    for name in names:
        if name in REMOVED_PLUGINS:
            when, instead = REMOVED_PLUGINS[name]
            out.append(f"plugin {name} {when}: {instead}")
        elif name != "*" and name not in registry:
            where = (" (it is a plugin of kubernetes-sigs/scheduler-plugins)"
                     if name in OUT_OF_TREE else "")
            out.append(f"plugin {name} is not an in-tree plugin of v1.37.2{where}: give "
                       "kschedconf its implementation with --plugins MODULE (docs/plugins.md)")
    return out


def config_hints(raw: object, registry: Container[str]) -> list[str]:
    """The hints for a configuration that failed to load (empty when none applies)."""
    if not isinstance(raw, Mapping):
        return []
    hints = []
    if (h := api_version_hint(raw.get("apiVersion"), raw.get("kind"))) is not None:
        hints.append(h)
    return hints + plugin_hints(_enabled_names(raw), registry)
