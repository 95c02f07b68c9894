"""``ValidateKubeSchedulerConfiguration`` on the defaulted configuration.

Upstream: ``pkg/scheduler/apis/config/validation/validation.go``. Every error is collected, in
upstream's order. Not modelled: the clientConnection / leaderElection checks (those sections are
decoded and ignored) and the extenders checks (any extender is refused: the reference has no
extenders).
"""

from __future__ import annotations

from typing import Any

import reference_impl.config.plugin_args as plugin_args
from reference_impl.config.errors import (
    FieldError,
    child,
    duplicate,
    forbidden,
    index,
    invalid,
    required,
)
from reference_impl.config.plugins import PluginSet
from reference_impl.config.types import InternalConfiguration, InternalProfile, defaulted
from reference_impl.releases import ReleaseData
from reference_impl.releases.current import RELEASE

API_VERSION = "kubescheduler.config.k8s.io/v1"

# validatePluginConfig's stagesToPluginSet (a Go map; a fixed order here). MultiPoint, like
# upstream, is not checked for removed plugins.
_STAGES = ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
           "reserve", "permit", "preBind", "bind", "postBind", "podGroupPostFilter")


def _removed_plugin_message() -> str:
    """isPluginInvalid's version is ``v1.SchemeGroupVersion`` of k8s.io/api/core/v1, i.e. "v1"."""
    return f'was invalid in version "v1" (KubeSchedulerConfiguration is version "{API_VERSION}")'


def _validate_percentage(path: str, value: int | None) -> list[FieldError]:
    """``validatePercentageOfNodesToScore``."""
    if value is not None and (value < 0 or value > 100):
        return [invalid(path, value, "not in valid range [0-100]")]
    return []


def _validate_plugin_config(path: str, profile: InternalProfile,
                            release: ReleaseData) -> list[FieldError]:
    """``validatePluginConfig``: removed plugins in the plugin sets; per pluginConfig entry,
    no duplicate name, not a removed plugin, args valid for the plugins of ``CONFIG_VALIDATED``."""
    errs: list[FieldError] = []
    removed = release.removed_plugins
    if profile.plugins is not None:
        for stage in _STAGES:
            for i, ref in enumerate(profile.plugins[stage].enabled):
                if ref.name in removed:
                    errs.append(invalid(index(child(path, "plugins", stage, "enabled"), i),
                                        ref.name, _removed_plugin_message()))
    seen: set[str] = set()
    for i, cfg in enumerate(profile.plugin_config):
        p = index(child(path, "pluginConfig"), i)
        if cfg.name in seen:
            errs.append(duplicate(p, cfg.name))
        else:
            seen.add(cfg.name)
        if cfg.name in removed:
            errs.append(invalid(p, cfg.name, _removed_plugin_message()))
        elif cfg.name in plugin_args.CONFIG_VALIDATED:
            kind = plugin_args.CONFIG_VALIDATED[cfg.name]
            if cfg.kind != kind:
                errs.append(invalid(child(p, "args"), cfg.args, "has to match plugin args"))
            else:
                errs.extend(plugin_args.validate(kind, cfg.args, child(p, "args"), release))
    return errs


def _plugin_set_value(s: PluginSet) -> dict[str, Any]:
    return {"enabled": [{"name": p.name, "weight": p.weight} for p in s.enabled],
            "disabled": [{"name": p.name, "weight": p.weight} for p in s.disabled]}


def _same_plugin_set(x: PluginSet, y: PluginSet) -> bool:
    """``apiequality.Semantic.DeepEqual`` of two plugin sets (where they came from aside)."""
    return ([p[:2] for p in x.enabled] == [p[:2] for p in y.enabled]
            and [p[:2] for p in x.disabled] == [p[:2] for p in y.disabled])


def _queue_sort(profile: InternalProfile) -> PluginSet:
    return profile.plugins["queueSort"] if profile.plugins is not None else PluginSet()


def _validate_common_queue_sort(profiles: list[InternalProfile]) -> list[FieldError]:
    """``validateCommonQueueSort``: every profile has profile 0's queueSort set, and the same
    args for profile 0's queue sort plugin."""
    errs: list[FieldError] = []
    canon = _queue_sort(profiles[0])
    name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        errs.append(invalid("profiles[0].plugins.queueSort.Enabled", len(canon.enabled),
                            "only one queue sort plugin can be enabled"))
    canon_args = None
    for cfg in profiles[0].plugin_config:
        if name and cfg.name == name:
            canon_args = cfg.args
    for i in range(1, len(profiles)):
        curr = _queue_sort(profiles[i])
        if not _same_plugin_set(canon, curr):
            errs.append(invalid(f"profiles[{i}].plugins.queueSort", _plugin_set_value(curr),
                                "must be the same for all profiles"))
        for cfg in profiles[i].plugin_config:
            if cfg.name == name and cfg.args != canon_args:
                errs.append(invalid(f"profiles[{i}].pluginConfig.args", cfg.args,
                                    "queueSort must be the same for all profiles"))
    return errs


def validate_configuration(cfg: InternalConfiguration,
                           release: ReleaseData = RELEASE) -> list[FieldError]:
    """``ValidateKubeSchedulerConfiguration`` of ``release``."""
    errs: list[FieldError] = []
    if defaulted(cfg.parallelism) <= 0:
        errs.append(invalid("parallelism", cfg.parallelism,
                            "should be an integer value greater than zero"))
    if not cfg.profiles:
        errs.append(required("profiles"))
    else:
        existing: dict[str | None, int] = {}
        for i, profile in enumerate(cfg.profiles):
            path = index("profiles", i)
            if not profile.scheduler_name:
                errs.append(required(child(path, "schedulerName")))
            errs.extend(_validate_percentage(child(path, "percentageOfNodesToScore"),
                                             profile.percentage_of_nodes_to_score))
            errs.extend(_validate_plugin_config(path, profile, release))
            if profile.scheduler_name in existing:
                errs.append(duplicate(child(path, "schedulerName"),
                                      f"profiles[{existing[profile.scheduler_name]}]"
                                      ".schedulerName"))
            existing[profile.scheduler_name] = i
        errs.extend(_validate_common_queue_sort(cfg.profiles))
    errs.extend(_validate_percentage("percentageOfNodesToScore", cfg.percentage_of_nodes_to_score))
    initial_backoff = defaulted(cfg.pod_initial_backoff_seconds)
    if initial_backoff <= 0:
        errs.append(invalid("podInitialBackoffSeconds", cfg.pod_initial_backoff_seconds,
                            "must be greater than 0"))
    if defaulted(cfg.pod_max_backoff_seconds) < initial_backoff:
        errs.append(invalid("podMaxBackoffSeconds", cfg.pod_max_backoff_seconds,
                            "must be greater than or equal to PodInitialBackoffSeconds"))
    if cfg.extenders:
        errs.append(forbidden("extenders", "extenders are not supported by the reference "
                                           "implementation"))
    return errs
