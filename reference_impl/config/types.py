"""The loaded configuration, and the internal form it goes through.

Upstream: ``pkg/scheduler/apis/config/types.go`` (the internal ``KubeSchedulerConfiguration``
that defaulting and conversion produce and validation checks) and the framework each profile
becomes (``pkg/scheduler/framework/runtime/framework.go``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from reference_impl.config.plugins import PluginEntry, Plugins
from reference_impl.releases import ReleaseData
from reference_impl.releases.current import RELEASE


@dataclass(slots=True)
class Profile:
    """One scheduling profile, as the framework runtime runs it.

    ``plugins``: extension point (``preEnqueue``, ``queueSort``, ``preFilter``, ``filter``,
    ``postFilter``, ``preScore``, ``score``, ``reserve``, ``permit``, ``preBind``, ``bind``,
    ``postBind``) → the final ordered ``(name, weight)`` list after merging with the defaults and
    expanding MultiPoint; the weight is the Score weight at ``score`` and 0 elsewhere.
    ``plugin_args``: plugin name → its args: the typed, defaulted, validated args of
    ``config/args.py`` for in-tree args kinds, the decoded value (a dict, or ``None``) for others.
    """

    scheduler_name: str
    percentage_of_nodes_to_score: int | None
    plugins: dict[str, list[PluginEntry]]
    plugin_args: dict[str, Any]


@dataclass(slots=True)
class SchedulerConfiguration:
    """A loaded KubeSchedulerConfiguration (``kubescheduler.config.k8s.io/v1``)."""

    parallelism: int
    percentage_of_nodes_to_score: int
    pod_initial_backoff_seconds: int
    pod_max_backoff_seconds: int
    profiles: list[Profile]
    pod_max_in_unschedulable_pods_duration_seconds: int
    """Not in the file (a deprecated flag upstream): the release's default."""
    release: ReleaseData = RELEASE
    """The upstream release whose defaults this configuration holds and whose rules (feature
    gates, behaviour switches) the scheduler running it follows."""

    def profile(self, scheduler_name: str) -> Profile | None:
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        return None


# ----------------------------------------------------------------------- the internal form

_T = TypeVar("_T")


def defaulted(value: _T | None) -> _T:
    """A field of the internal form that decodes as None and that defaulting has set."""
    assert value is not None, "read before defaulting"
    return value


@dataclass(slots=True)
class PluginConfigEntry:
    """``PluginConfig`` after decoding and defaulting. ``kind`` is the registered args kind
    (``<name>Args``) or ``None``; ``args`` the decoded v1 dict of that kind (defaults applied),
    else the value as given. ``path`` is its field path (``profiles[0].pluginConfig[1]``)."""

    name: str
    kind: str | None
    args: Any
    path: str


@dataclass(slots=True)
class InternalProfile:
    """A profile; the fields that are ``None`` when decoded are set by defaulting."""

    scheduler_name: str | None = None
    percentage_of_nodes_to_score: int | None = None
    plugins: Plugins | None = None
    """After defaulting: merged with the defaults (``mergePlugins``), before MultiPoint
    expansion."""
    plugin_config: list[PluginConfigEntry] = field(default_factory=list)


@dataclass(slots=True)
class InternalConfiguration:
    """The configuration; the fields that are ``None`` when decoded are set by defaulting
    (``percentage_of_nodes_to_score`` of a profile stays ``None``: the global one applies)."""

    parallelism: int | None = None
    percentage_of_nodes_to_score: int | None = None
    pod_initial_backoff_seconds: int | None = None
    pod_max_backoff_seconds: int | None = None
    profiles: list[InternalProfile] = field(default_factory=list)
    extenders: list[Any] = field(default_factory=list)
