"""What each scheduler profile enables, read from the scenario's raw KubeSchedulerConfiguration
(without the reference's configuration code): Filter rules, PostFilter, QueueSort, plugin args,
backoff settings.

Upstream: ``pkg/scheduler/apis/config/v1/default_plugins.go`` (getDefaultPlugins,
mergePlugins / mergePluginSet), ``pkg/scheduler/apis/config/v1/defaults.go`` and
``pkg/scheduler/framework/runtime/framework.go`` (expandMultiPointPlugins).
See docs/oracles.md#what-a-profile-enables."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reference_impl.model.objects import (
    DEFAULT_SCHEDULER_NAME,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    TopologySpreadConstraint,
)
from reference_impl.releases import ReleaseData, load
from reference_impl.releases.pinned import UPSTREAM_RELEASE

# The defaults of each release (getDefaultPlugins after applyFeatureGates with the default
# gates, the backoff defaults, the plugins per extension point) are the release data read from
# upstream (reference_impl/releases, docs/releases.md), not the reference's configuration code.

# The Filter rules the oracles restate (oracles/rules.py).
RESTATED_FILTERS = frozenset({
    "NodeName", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodePorts",
    "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity",
})

# In-tree plugins that can reject a pod (PreFilter/Filter/Reserve/Permit/PreBind) but never
# reject a pod without volumes, resource claims or node-declared-feature requirements
# (``rules.unmodelled_pod_features`` names those pods).
INERT_FOR_PLAIN_PODS = frozenset({
    "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone",
    "DynamicResources", "NodeDeclaredFeatures",
})

# In-tree plugins that never reject a pod at PreFilter/Filter/Reserve/Permit/PreBind.
NEVER_REJECT = frozenset({
    "SchedulingGates", "PrioritySort", "DefaultPreemption", "NodeResourcesBalancedAllocation",
    "ImageLocality", "DefaultBinder",
})

# The extension points of the in-tree plugins that matter here (the v1.37.2 sources of each
# plugin under pkg/scheduler/framework/plugins/).
_IMPLEMENTS: dict[str, frozenset[str]] = {
    "SchedulingGates": frozenset({"preEnqueue"}),
    "PrioritySort": frozenset({"queueSort"}),
    "NodeName": frozenset({"filter"}),
    "NodeUnschedulable": frozenset({"filter"}),
    "TaintToleration": frozenset({"filter", "preScore", "score"}),
    "NodeAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "NodePorts": frozenset({"preFilter", "filter"}),
    "NodeResourcesFit": frozenset({"preFilter", "filter", "preScore", "score"}),
    "VolumeRestrictions": frozenset({"preFilter", "filter"}),
    "NodeVolumeLimits": frozenset({"preFilter", "filter"}),
    "VolumeBinding": frozenset({"preFilter", "filter", "preScore", "score", "reserve",
                                "preBind"}),
    "VolumeZone": frozenset({"preFilter", "filter"}),
    "PodTopologySpread": frozenset({"preFilter", "filter", "preScore", "score"}),
    "InterPodAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "DynamicResources": frozenset({"preEnqueue", "preFilter", "filter", "postFilter",
                                   "preScore", "score", "reserve", "preBind"}),
    "DefaultPreemption": frozenset({"preEnqueue", "postFilter"}),
    "NodeResourcesBalancedAllocation": frozenset({"preScore", "score"}),
    "ImageLocality": frozenset({"score"}),
    "DefaultBinder": frozenset({"bind"}),
    "NodeDeclaredFeatures": frozenset({"preFilter", "filter"}),
}

# The points at which a plugin can turn a pod away (the rest only rank or bind).
REJECTING_POINTS = ("preFilter", "filter", "reserve", "permit", "preBind")
_POINTS = ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore",
           "score", "reserve", "permit", "preBind", "bind")


@dataclass(slots=True)
class ProfileView:
    """One profile as the oracles need it."""

    scheduler_name: str
    points: dict[str, list[str]] = field(default_factory=dict)  # point -> plugin names
    args: dict[str, dict[str, Any]] = field(default_factory=dict)  # plugin -> v1 args
    percentage_of_nodes_to_score: int | None = None

    def enabled(self, plugin: str, point: str = "filter") -> bool:
        return plugin in self.points.get(point, ())

    @property
    def preemption(self) -> bool:
        """DefaultPreemption runs at PostFilter."""
        return self.enabled("DefaultPreemption", "postFilter")

    def preemption_num_candidates(self, num_nodes: int) -> int:
        """``DefaultPreemption.calculateNumCandidates``: numNodes·percentage/100, at least the
        absolute minimum, at most numNodes (args defaults 10 % and 100)."""
        args = self.args.get("DefaultPreemption", {}) or {}
        pct = args.get("minCandidateNodesPercentage")
        absolute = args.get("minCandidateNodesAbsolute")
        n = num_nodes * (10 if pct is None else int(pct)) // 100
        n = max(n, 100 if absolute is None else int(absolute))
        return min(n, num_nodes)

    @property
    def queue_sort(self) -> str:
        qs = self.points.get("queueSort", [])
        return qs[0] if qs else ""

    @property
    def fit_ignored_resources(self) -> frozenset[str]:
        return frozenset(self.args.get("NodeResourcesFit", {}).get("ignoredResources") or ())

    @property
    def fit_ignored_groups(self) -> frozenset[str]:
        return frozenset(
            self.args.get("NodeResourcesFit", {}).get("ignoredResourceGroups") or ())

    @property
    def added_affinity(self) -> NodeSelector | None:
        """``NodeAffinityArgs.addedAffinity`` required terms (enforced on every pod)."""
        raw = (self.args.get("NodeAffinity", {}).get("addedAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution")
        if raw is None:
            return None
        return NodeSelector(tuple(
            NodeSelectorTerm(_requirements(t.get("matchExpressions")),
                             _requirements(t.get("matchFields")))
            for t in raw.get("nodeSelectorTerms") or ()))

    @property
    def spread_default_constraints(self) -> tuple[TopologySpreadConstraint, ...]:
        """PodTopologySpreadArgs.defaultConstraints with ``defaultingType: List`` (the v1
        default is System, whose constraints are all ScheduleAnyway: no Filter constraint)."""
        args = self.args.get("PodTopologySpread", {}) or {}
        if args.get("defaultingType", "System") != "List":
            return ()
        return tuple(
            TopologySpreadConstraint(
                max_skew=int(c["maxSkew"]), topology_key=c["topologyKey"],
                when_unsatisfiable=c["whenUnsatisfiable"], min_domains=c.get("minDomains"),
                node_affinity_policy=c.get("nodeAffinityPolicy"),
                node_taints_policy=c.get("nodeTaintsPolicy"),
                match_label_keys=tuple(c.get("matchLabelKeys") or ()))
            for c in args.get("defaultConstraints") or ())

    def unrestated_rejecters(self) -> list[str]:
        """Plugins enabled at a rejecting point whose rules the oracles do not restate and
        that are not known to be inert for plain pods (out-of-tree plugins, mostly)."""
        out: list[str] = []
        for point in REJECTING_POINTS:
            for name in self.points.get(point, ()):
                if (name not in RESTATED_FILTERS and name not in INERT_FOR_PLAIN_PODS
                        and name not in NEVER_REJECT and name not in out):
                    out.append(name)
        return out


@dataclass(slots=True)
class SchedulerView:
    """The configuration's profiles and queue settings."""

    profiles: dict[str, ProfileView]
    pod_initial_backoff_seconds: float = 1.0
    pod_max_backoff_seconds: float = 10.0
    percentage_of_nodes_to_score: int = 0

    def profile_of(self, scheduler_name: str) -> ProfileView | None:
        return self.profiles.get(scheduler_name)


@functools.lru_cache(maxsize=1024)
def _implements_in(plugin: str, point: str, release: str) -> bool:
    """:func:`_implements` in the release named ``release``, answered once per arguments (a
    configuration asks it for every point and MultiPoint plugin of every profile)."""
    return _implements(plugin, point, load(release))


def _implements(plugin: str, point: str, release: ReleaseData) -> bool:
    """Whether a MultiPoint plugin runs at ``point`` in ``release``: the table's points, of
    those the release's framework lists the plugin at (an in-tree plugin without a point in a
    release, e.g. DynamicResources' Score before v1.35); plugins the table does not know (out
    of tree) are assumed to implement every point."""
    known = _IMPLEMENTS.get(plugin)
    if known is None:
        return True
    if point not in known:
        return False
    listed = release.extension_points.get(point)
    in_release = any(plugin == p for pts in release.extension_points.values() for p, _ in pts)
    return listed is None or not in_release or any(plugin == p for p, _ in listed)


def _requirements(items: Any) -> tuple[NodeSelectorRequirement, ...]:
    return tuple(NodeSelectorRequirement(r.get("key", ""), r.get("operator", ""),
                                         tuple(r.get("values") or ()))
                 for r in items or ())


def _names(plugin_set: Mapping[str, Any] | None, field_name: str) -> list[str]:
    return [p.get("name", "") for p in (plugin_set or {}).get(field_name) or ()]


def read_scheduler_config(config: Mapping[str, Any] | None,
                          release: str = UPSTREAM_RELEASE) -> SchedulerView:
    """The profiles of ``config`` (a KubeSchedulerConfiguration dict, or ``None`` for the
    defaults: one profile ``default-scheduler`` with the default plugins) as ``release``
    runs them.

    ``mergePluginSet``: the default MultiPoint plugins stay unless MultiPoint disables them (or
    ``*``), the profile's MultiPoint plugins are added; every other extension point has no
    defaults. Then each point runs its own enabled plugins plus the MultiPoint plugins that
    implement it and that the point does not disable (nor ``*``).
    """
    config = config or {}
    data = load(release)
    default_multi_point = [name for name, _ in data.default_plugins]
    raw_profiles = list(config.get("profiles") or [{}])
    profiles: dict[str, ProfileView] = {}
    for raw in raw_profiles:
        name = raw.get("schedulerName") or DEFAULT_SCHEDULER_NAME
        plugins = raw.get("plugins") or {}
        multi_cfg = plugins.get("multiPoint")
        off = set(_names(multi_cfg, "disabled"))
        multi = [] if "*" in off else [p for p in default_multi_point if p not in off]
        multi += [p for p in _names(multi_cfg, "enabled") if p not in multi]
        view = ProfileView(name, percentage_of_nodes_to_score=raw.get(
            "percentageOfNodesToScore"))
        for point in _POINTS:
            names = _names(plugins.get(point), "enabled")
            disabled = set(_names(plugins.get(point), "disabled"))
            if "*" not in disabled:
                names += [p for p in multi if p not in disabled and p not in names
                          and _implements_in(p, point, release)]
            view.points[point] = names
        for entry in raw.get("pluginConfig") or ():
            if isinstance(entry.get("args"), Mapping):
                view.args[entry.get("name", "")] = dict(entry["args"])
        profiles[name] = view
    initial = config.get("podInitialBackoffSeconds")
    maximum = config.get("podMaxBackoffSeconds")
    return SchedulerView(
        profiles,
        pod_initial_backoff_seconds=float(
            data.pod_initial_backoff_seconds if initial is None else initial),
        pod_max_backoff_seconds=float(
            data.pod_max_backoff_seconds if maximum is None else maximum),
        percentage_of_nodes_to_score=config.get("percentageOfNodesToScore") or 0,
    )
