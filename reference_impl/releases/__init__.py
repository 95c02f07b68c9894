"""Release data: everything that differs between upstream kube-scheduler releases, as data.

Each supported release has a module ``v<major>_<minor>_<patch>.py`` holding only literals under
the names of :class:`ReleaseData`'s fields (upper-cased), generated from the release itself by
``upstream/releasedata/generate.sh`` (docs/releases.md). ``pinned.py`` names the release the
reference follows and ``current.py`` loads its module, so moving to a new release is adding a
data module and changing the pin.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType, ModuleType
from typing import Any

_MODULE_NAME = re.compile(r"v(\d+)_(\d+)_(\d+)")


@dataclass(frozen=True, slots=True)
class ReleaseData:
    """The release-specific facts the reference reads (field ↔ module constant in upper case)."""

    release: str
    """The upstream tag, e.g. ``"v1.37.2"``."""
    module_sum: str
    """The go.sum hash (``h1:``) of the ``k8s.io/kubernetes`` module the data was read from."""
    module_time: str
    """That module version's publication time on the Go module proxy."""
    feature_gates: Mapping[str, bool]
    """Default of every feature gate the scheduler reads (``pkg/features/kube_features.go``)."""
    feature_gate_stages: Mapping[str, str]
    """The stage of each of those gates at the release: Alpha, Beta, GA or Deprecated."""
    locked_feature_gates: tuple[str, ...]
    """Those of the gates locked to their default (``LockToDefault``)."""
    default_plugins: tuple[tuple[str, int], ...]
    """The default profile's MultiPoint ``(name, weight)`` list after ``applyFeatureGates``
    (``pkg/scheduler/apis/config/v1/default_plugins.go``); weight 0 means "not set"."""
    extension_points: Mapping[str, tuple[tuple[str, int], ...]]
    """The framework's expansion of that list per extension point (``Framework.ListPlugins``,
    ``pkg/scheduler/framework/runtime/framework.go``): ``(name, weight)``, Score weights
    effective, every point of ``config.Plugins`` but MultiPoint."""
    parallelism: int
    percentage_of_nodes_to_score: int
    pod_initial_backoff_seconds: int
    pod_max_backoff_seconds: int
    default_scheduler_name: str
    pod_max_in_unschedulable_pods_duration_seconds: int
    """Not a config-file field: ``DefaultPodMaxInUnschedulablePodsDuration`` of the queue."""
    max_custom_priority_score: int
    """``config.MaxCustomPriorityScore``: the top of a utilization shape's score scale."""
    plugin_args_defaults: Mapping[str, Mapping[str, Any]]
    """Per args kind (``<Plugin>Args``), the v1 (camelCase) values the ``SetDefaults_*`` functions
    fill in. The keys are also the set of kinds the config scheme registers; a plugin has typed
    args iff ``name + "Args"`` is a key."""
    removed_plugins: tuple[str, ...]
    """``invalidPluginsByVersion`` of ``pkg/scheduler/apis/config/validation/validation.go``."""

    @classmethod
    def from_module(cls, module: ModuleType) -> ReleaseData:
        """Builds the data from a release module; a missing constant is an error naming all the
        missing ones."""
        missing = [f.name.upper() for f in fields(cls) if not hasattr(module, f.name.upper())]
        if missing:
            raise ImportError(f"release module {module.__name__} lacks {', '.join(missing)}")
        values: dict[str, Any] = {}
        for f in fields(cls):
            value = getattr(module, f.name.upper())
            if isinstance(value, dict):
                value = MappingProxyType(value)
            values[f.name] = value
        return cls(**values)


def module_name(release: str) -> str:
    """``"v1.37.2"`` → ``"v1_37_2"``: the data module of a release tag."""
    return release.replace(".", "_")


def supported_releases() -> list[str]:
    """The tags of the releases that have a data module, oldest first."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        m = _MODULE_NAME.fullmatch(info.name)
        if m:
            found.append(tuple(int(x) for x in m.groups()))
    return [f"v{a}.{b}.{c}" for a, b, c in sorted(found)]


def load(release: str) -> ReleaseData:
    """The data of a supported release; an unknown tag is a ``KeyError`` naming the known ones."""
    if release not in supported_releases():
        raise KeyError(f"no release data for {release!r} (supported: "
                       f"{', '.join(supported_releases())})")
    return ReleaseData.from_module(importlib.import_module(f"{__name__}.{module_name(release)}"))
