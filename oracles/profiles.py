"""What each scheduler profile enables, read from the scenario's KubeSchedulerConfiguration.

The oracles need to know, per profile (``schedulerName``): which Filter rules apply (a profile
may disable NodePorts, ...), whether DefaultPreemption runs at PostFilter, which QueueSort plugin
orders the queue, the NodeResourcesFit ignored resources, the NodeAffinity ``addedAffinity``, and
the queue's backoff settings. The file is decoded and defaulted by the configuration layer
(``reference_impl/config``: strict v1 decoding, ``setDefaults_KubeSchedulerProfile`` merging the
profile's plugin sets into the release's default plugins); *which extension points a plugin
implements* is a small table written here for the in-tree plugins, so no plugin code is involved.

Upstream: ``pkg/scheduler/apis/config/v1/default_plugins.go`` (mergePlugins) and
``pkg/scheduler/framework/runtime/framework.go`` (expandMultiPointPlugins: a MultiPoint plugin
runs at every extension point it implements unless that point disables it or ``*``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reference_impl.config.core_v1 import node_affinity as _node_affinity_from_v1
from reference_impl.config.loader import decode_configuration, set_defaults
from reference_impl.model.objects import DEFAULT_SCHEDULER_NAME, NodeSelector

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
        raw = self.args.get("NodeAffinity", {}).get("addedAffinity")
        na = _node_affinity_from_v1(raw) if raw else None
        return na.required if na is not None else None

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


def _implements(plugin: str, point: str) -> bool:
    """Whether a MultiPoint plugin runs at ``point``; plugins the table does not know (out of
    tree) are assumed to implement every point."""
    known = _IMPLEMENTS.get(plugin)
    return True if known is None else point in known


def read_scheduler_config(config: Mapping[str, Any] | None) -> SchedulerView:
    """The profiles of ``config`` (a KubeSchedulerConfiguration dict, or ``None`` for the
    defaults: one profile ``default-scheduler`` with the default plugins)."""
    raw = dict(config) if config else {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
    internal = decode_configuration(raw, "<scenario config>")
    set_defaults(internal)
    profiles: dict[str, ProfileView] = {}
    for prof in internal.profiles:
        plugins = prof.plugins or {}
        multi = plugins.get("multiPoint")
        view = ProfileView(prof.scheduler_name or DEFAULT_SCHEDULER_NAME,
                           percentage_of_nodes_to_score=prof.percentage_of_nodes_to_score)
        for point in _POINTS:
            ps = plugins.get(point)
            names = [p.name for p in ps.enabled] if ps is not None else []
            disabled = {p.name for p in ps.disabled} if ps is not None else set()
            if multi is not None and "*" not in disabled:
                for p in multi.enabled:
                    if (p.name not in disabled and p.name not in names
                            and _implements(p.name, point)):
                        names.append(p.name)
            view.points[point] = names
        for entry in prof.plugin_config:
            if isinstance(entry.args, dict):
                view.args[entry.name] = entry.args
        profiles[view.scheduler_name] = view
    return SchedulerView(
        profiles,
        pod_initial_backoff_seconds=float(internal.pod_initial_backoff_seconds or 0),
        pod_max_backoff_seconds=float(internal.pod_max_backoff_seconds or 0),
        percentage_of_nodes_to_score=internal.percentage_of_nodes_to_score or 0,
    )
