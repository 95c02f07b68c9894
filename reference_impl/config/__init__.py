"""KubeSchedulerConfiguration (``kubescheduler.config.k8s.io/v1``) for the reference scheduler.

``load_config(path_or_dict, registry)`` and ``default_config(registry)`` return a
:class:`SchedulerConfiguration` whose profiles carry the final per-extension-point plugin lists
and typed plugin args; an invalid configuration raises one :class:`ConfigError`.
"""

from reference_impl.config.errors import ConfigError
from reference_impl.config.loader import default_config, load_config
from reference_impl.config.plugins import PluginEntry
from reference_impl.config.types import Profile, SchedulerConfiguration

__all__ = [
    "ConfigError",
    "PluginEntry",
    "Profile",
    "SchedulerConfiguration",
    "default_config",
    "load_config",
]
