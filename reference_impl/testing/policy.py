"""The other documents of a scenario: PriorityClass, Namespace, PodDisruptionBudget (upstream
``st.MakePDB()``, pkg/scheduler/testing/wrappers.go of k8s.io/kubernetes v1.37.2), a
KubeSchedulerConfiguration with its profiles, and the kschedconf ``Scenario`` timeline."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from reference_impl.config.loader import load_config
from reference_impl.config.types import SchedulerConfiguration
from reference_impl.model.loader import load_documents
from reference_impl.model.objects import Cluster, Namespace, PodDisruptionBudget, PriorityClass
from reference_impl.model.scenario import Scenario, parse_scenario
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.testing._base import Doc, ObjectWrapper, Wrapper, plain


def _cluster(doc: Doc) -> Cluster:
    return load_documents([doc], source="<builder>").cluster


class PriorityClassWrapper(ObjectWrapper):
    """A scheduling.k8s.io/v1 PriorityClass."""

    __slots__ = ()

    def __init__(self, name: str, value: int) -> None:
        super().__init__("scheduling.k8s.io/v1", "PriorityClass", name)
        self._doc["value"] = value

    def global_default(self, on: bool = True) -> Self:
        self._doc["globalDefault"] = on
        return self

    def preemption_policy(self, policy: str) -> Self:
        self._doc["preemptionPolicy"] = policy
        return self

    def obj(self) -> PriorityClass:
        return _cluster(self.manifest()).priority_classes[self._doc["metadata"]["name"]]


def make_priority_class(name: str, value: int) -> PriorityClassWrapper:
    return PriorityClassWrapper(name, value)


class NamespaceWrapper(ObjectWrapper):
    """A v1 Namespace (labels through ``label``/``labels``)."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__("v1", "Namespace", name)

    def obj(self) -> Namespace:
        return _cluster(self.manifest()).namespaces[self._doc["metadata"]["name"]]


def make_namespace(name: str) -> NamespaceWrapper:
    return NamespaceWrapper(name)


class PodDisruptionBudgetWrapper(ObjectWrapper):
    """A policy/v1 PodDisruptionBudget (``PodDisruptionBudgetWrapper`` of wrappers.go)."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__("policy/v1", "PodDisruptionBudget", name)

    def selector(self, selector: Mapping[str, Any]) -> Self:
        """spec.selector set as given (e.g. from ``label_selector``)."""
        return self.spec(selector=selector)

    def match_label(self, key: str, value: str) -> Self:
        """``MatchLabel``: one more spec.selector.matchLabels entry."""
        self._at("spec", "selector", "matchLabels")[key] = value
        return self

    def min_available(self, n: int | str) -> Self:
        return self.spec(minAvailable=n)

    def max_unavailable(self, n: int | str) -> Self:
        return self.spec(maxUnavailable=n)

    def disruptions_allowed(self, n: int) -> Self:
        """``DisruptionsAllowed``: the status the disruption controller writes (the scheduler
        reads only disruptionsAllowed; the other counts are 0, as a Go zero value is written)."""
        return self.status(disruptionsAllowed=n, currentHealthy=0, desiredHealthy=0,
                           expectedPods=0)

    def obj(self) -> PodDisruptionBudget:
        return _cluster(self.manifest()).pdbs[0]


def make_pdb(name: str) -> PodDisruptionBudgetWrapper:
    """``st.MakePDB().Name(name)``."""
    return PodDisruptionBudgetWrapper(name)


class ProfileWrapper(Wrapper):
    """One KubeSchedulerProfile."""

    __slots__ = ()

    def __init__(self, scheduler_name: str) -> None:
        super().__init__({"schedulerName": scheduler_name})

    def enable(self, point: str, plugin: str, weight: int | None = None) -> Self:
        """One more plugin enabled at an extension point (``score`` with a weight)."""
        entry: Doc = {"name": plugin}
        if weight is not None:
            entry["weight"] = weight
        self._append(("plugins", point), "enabled", entry)
        return self

    def score_weight(self, plugin: str, weight: int) -> Self:
        """A Score plugin enabled with this weight."""
        return self.enable("score", plugin, weight)

    def disable(self, point: str, *plugins: str) -> Self:
        """Plugins disabled at an extension point (``"*"``: all the defaults)."""
        self._append(("plugins", point), "disabled", *({"name": p} for p in plugins))
        return self

    def plugin_args(self, plugin: str, args: Mapping[str, Any]) -> Self:
        """One more pluginConfig entry."""
        self._doc.setdefault("pluginConfig", []).append({"name": plugin, "args": plain(args)})
        return self

    def percentage_of_nodes_to_score(self, pct: int) -> Self:
        self._doc["percentageOfNodesToScore"] = pct
        return self


def make_profile(scheduler_name: str = "default-scheduler") -> ProfileWrapper:
    return ProfileWrapper(scheduler_name)


class ConfigWrapper(Wrapper):
    """A kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__({"apiVersion": "kubescheduler.config.k8s.io/v1",
                          "kind": "KubeSchedulerConfiguration"})

    def profile(self, profile: ProfileWrapper | Mapping[str, Any]) -> Self:
        """One more profile."""
        self._doc.setdefault("profiles", []).append(plain(profile))
        return self

    def percentage_of_nodes_to_score(self, pct: int) -> Self:
        self._doc["percentageOfNodesToScore"] = pct
        return self

    def set(self, **fields: Any) -> Self:
        """Top-level fields as given (``podInitialBackoffSeconds=2``, ``parallelism=4``...)."""
        self._doc.update(plain(fields))
        return self

    def obj(self) -> SchedulerConfiguration:
        """The configuration the reference's loader makes of it (in-tree plugins)."""
        return load_config(self.manifest(), in_tree_registry())


def make_config() -> ConfigWrapper:
    """A KubeSchedulerConfiguration with nothing set (``profile(...)`` adds profiles)."""
    return ConfigWrapper()


class TimelineWrapper(Wrapper):
    """A kschedconf/v1 ``Scenario``: timeline events (docs/timelines) and ``until``."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__({"apiVersion": "kschedconf/v1", "kind": "Scenario"})

    def name(self, name: str) -> Self:
        """metadata.name (errors name the timeline by it)."""
        self._at("metadata")["name"] = name
        return self

    def events(self, *events: Mapping[str, Any]) -> Self:
        """More events, as given (v1 objects in them may be wrappers); spec.events is written
        even for none."""
        self._append(("spec",), "events", *events)
        return self

    def event(self, at: str | int | float, action: str, **fields: Any) -> Self:
        """One more event: ``at``, ``action`` and its fields (``pod=make_pod(...)``...)."""
        return self.events({"at": at, "action": action, **fields})

    def when_bound(self, pod_key: str, action: str, **fields: Any) -> Self:
        """One more event triggered by the binding of ``pod_key`` (``when: {podBound:
        pod_key}``) instead of a time."""
        return self.events({"when": {"podBound": pod_key}, "action": action, **fields})

    def until(self, until: str | int | float) -> Self:
        self._at("spec")["until"] = until
        return self

    def obj(self, cluster: Cluster | None = None) -> Scenario:
        """The parsed timeline (its targets checked against ``cluster`` when given)."""
        return parse_scenario(self.manifest(), cluster)


def make_timeline(*events: Mapping[str, Any]) -> TimelineWrapper:
    """A Scenario timeline with these events (``event(...)`` adds more)."""
    return TimelineWrapper().events(*events)


class LimitRangeWrapper(ObjectWrapper):
    """A v1 LimitRange: ``item(type, max=..., min=..., default=..., default_request=...,
    ratio=...)`` adds one ``spec.limits`` entry (resource lists as mappings)."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__("v1", "LimitRange", name)

    def item(self, limit_type: str = "Container", *, max: Mapping[str, Any] | None = None,
             min: Mapping[str, Any] | None = None, default: Mapping[str, Any] | None = None,
             default_request: Mapping[str, Any] | None = None,
             ratio: Mapping[str, Any] | None = None) -> Self:
        item: Doc = {"type": limit_type}
        for key, v in (("max", max), ("min", min), ("default", default),
                       ("defaultRequest", default_request), ("maxLimitRequestRatio", ratio)):
            if v is not None:
                item[key] = dict(v)
        self._append(("spec",), "limits", item)
        return self


def make_limit_range(name: str) -> LimitRangeWrapper:
    return LimitRangeWrapper(name)


class RuntimeClassWrapper(ObjectWrapper):
    """A node.k8s.io/v1 RuntimeClass: ``overhead`` (podFixed), ``node_selector`` and
    ``toleration`` (its ``scheduling``)."""

    __slots__ = ()

    def __init__(self, name: str, handler: str) -> None:
        super().__init__("node.k8s.io/v1", "RuntimeClass", name)
        self._doc["handler"] = handler

    def overhead(self, pod_fixed: Mapping[str, Any]) -> Self:
        self._doc["overhead"] = {"podFixed": dict(pod_fixed)}
        return self

    def node_selector(self, selector: Mapping[str, str]) -> Self:
        self._at("scheduling")["nodeSelector"] = dict(selector)
        return self

    def toleration(self, toleration: Mapping[str, Any]) -> Self:
        self._append(("scheduling",), "tolerations", toleration)
        return self


def make_runtime_class(name: str, handler: str = "runc") -> RuntimeClassWrapper:
    return RuntimeClassWrapper(name, handler)
