"""Release data: everything that differs between upstream kube-scheduler releases, as data.

Each supported release has a module ``v<major>_<minor>_<patch>.py`` holding only literals under
the names of :class:`ReleaseData`'s fields (upper-cased). ``pinned.py`` names the release the
reference follows and ``current.py`` loads its module, so moving to a new release is adding a
data module and changing the pin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType, ModuleType
from typing import Any


@dataclass(frozen=True, slots=True)
class ReleaseData:
    """The release-specific facts the reference reads (field ↔ module constant in upper case)."""

    release: str
    """The upstream tag, e.g. ``"v1.37.2"``."""
    feature_gates: Mapping[str, bool]
    """Default of every feature gate the scheduler reads (``pkg/features/kube_features.go``)."""
    default_plugins: tuple[tuple[str, int], ...]
    """The default profile's MultiPoint ``(name, weight)`` list after ``applyFeatureGates``
    (``pkg/scheduler/apis/config/v1/default_plugins.go``); weight 0 means "not set"."""
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
        """Builds the data from a release module; a missing constant is an error."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            const = f.name.upper()
            if not hasattr(module, const):
                raise ImportError(f"release module {module.__name__} lacks {const}")
            value = getattr(module, const)
            if isinstance(value, dict):
                value = MappingProxyType(value)
            values[f.name] = value
        return cls(**values)


def module_name(release: str) -> str:
    """``"v1.37.2"`` → ``"v1_37_2"``: the data module of a release tag."""
    return release.replace(".", "_")
