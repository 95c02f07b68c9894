"""Loading a KubeSchedulerConfiguration (``kubescheduler.config.k8s.io/v1``) the way
kube-scheduler does: decode strictly, apply defaults, validate, then build each profile's
framework. Upstream: ``cmd/kube-scheduler/app/options/configfile.go``,
``pkg/scheduler/apis/config/v1/defaults.go``, ``pkg/scheduler/apis/config/validation/
validation.go``, ``pkg/scheduler/profile/profile.go``. See docs/reference.md#the-configuration.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

import yaml

import reference_impl.config.plugin_args as plugin_args
import reference_impl.config.schema as schema
from reference_impl.config.errors import ConfigError, child, index
from reference_impl.config.hints import config_hints
from reference_impl.config.plugins import (
    FrameworkError,
    PluginRef,
    Plugins,
    default_plugins,
    expand_plugins,
    merge_plugins,
    needed_plugins,
    new_plugins,
    plugin_names,
)
from reference_impl.config.types import (
    InternalConfiguration,
    InternalProfile,
    PluginConfigEntry,
    Profile,
    SchedulerConfiguration,
    defaulted,
)
from reference_impl.config.validation import API_VERSION, validate_configuration
from reference_impl.releases import ReleaseData
from reference_impl.releases.current import RELEASE

GROUP, VERSION = API_VERSION.split("/")
KIND = "KubeSchedulerConfiguration"

FeatureGate = Callable[[str], bool]
Registry = Mapping[str, type]


def load_config(source: str | os.PathLike[str] | Mapping[str, Any], registry: Registry,
                release: ReleaseData = RELEASE) -> SchedulerConfiguration:
    """Loads a configuration file (YAML or JSON) or an already parsed mapping as ``release``
    (default: the pinned release) loads it.

    ``registry`` maps plugin names to plugin classes; the extension points a plugin implements
    are the interface classes of ``framework/interfaces.py`` it inherits. The release's gates
    answer the gate queries of args defaulting and validation (``ReleaseData.with_gates`` sets
    others); the default plugin list is the release's data, computed for its default gates.
    The loaded configuration carries the release: the scheduler runs it.
    """
    if isinstance(source, Mapping):
        name, raw = "<dict>", source
    else:
        name = os.fspath(source)
        try:
            with open(name, encoding="utf-8") as f:
                raw = yaml.load(f, Loader=_StrictLoader)  # a SafeLoader
        except OSError as e:
            raise ConfigError(name, [f"cannot read: {e.strerror}"]) from None
        except yaml.YAMLError as e:
            raise ConfigError(name, [f"cannot parse: {e}"]) from None
    try:
        return _load(raw, name, registry, release)
    except ConfigError as e:
        e.add_hints(config_hints(raw, registry))
        raise


def default_config(registry: Registry, release: ReleaseData = RELEASE) -> SchedulerConfiguration:
    """The configuration kube-scheduler runs with when no file is given: the release's
    defaults (default: the pinned release), one profile "default-scheduler" with the default
    plugins."""
    return _load({"apiVersion": API_VERSION, "kind": KIND}, "<default>", registry, release)


def _load(raw: Any, name: str, registry: Registry,
          release: ReleaseData) -> SchedulerConfiguration:
    internal = decode_configuration(raw, name, release)
    set_defaults(internal, release)
    field_errors = validate_configuration(internal, release)
    if field_errors:
        raise ConfigError(name, field_errors)
    profiles = [_build_profile(prof, index("profiles", i), registry, release, name)
                for i, prof in enumerate(internal.profiles)]
    _check_common_queue_sort(profiles, name)
    return SchedulerConfiguration(
        parallelism=defaulted(internal.parallelism),
        percentage_of_nodes_to_score=defaulted(internal.percentage_of_nodes_to_score),
        pod_initial_backoff_seconds=defaulted(internal.pod_initial_backoff_seconds),
        pod_max_backoff_seconds=defaulted(internal.pod_max_backoff_seconds),
        profiles=profiles,
        pod_max_in_unschedulable_pods_duration_seconds=(
            release.pod_max_in_unschedulable_pods_duration_seconds),
        release=release,
    )


class _StrictLoader(yaml.SafeLoader):
    """YAML with the strict decoder's duplicate-key check (``key "x" already set in map``)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f'key "{key}" already set in map', key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def decode_configuration(raw: Any, name: str = "<dict>",
                         release: ReleaseData = RELEASE) -> InternalConfiguration:
    """Strict decoding of a parsed KubeSchedulerConfiguration into the internal form (before
    defaulting); all decoding errors are raised together."""
    _check_type_meta(raw, name)
    errors: list[str] = []
    decoded = schema.decode(raw, schema.KUBE_SCHEDULER_CONFIGURATION, "", errors)
    internal = _to_internal(decoded or {}, errors, plugin_args.known_kinds(release),
                            plugin_args.args_schemas(release))
    if errors:
        raise ConfigError(name, errors)
    return internal


def _check_type_meta(raw: Any, name: str) -> None:
    """The universal decoder's checks of apiVersion and kind."""
    if not isinstance(raw, Mapping):
        raise ConfigError(name, ["expected a KubeSchedulerConfiguration object"])
    api_version, kind = raw.get("apiVersion"), raw.get("kind")
    if not api_version:
        raise ConfigError(name, ["Object 'apiVersion' is missing"])
    if not kind:
        raise ConfigError(name, ["Object 'Kind' is missing"])
    if api_version != API_VERSION or kind != KIND:
        raise ConfigError(name, [f'no kind "{kind}" is registered for version "{api_version}"'])


# ------------------------------------------------------------------------------ decoding

def _plugins(d: dict[str, Any] | None, path: str) -> Plugins | None:
    if d is None:
        return None
    plugins = new_plugins()
    for point, s in d.items():
        for which in ("enabled", "disabled"):
            refs = [PluginRef(p.get("name", ""), p.get("weight", 0),
                              index(child(path, point, which), i))
                    for i, p in enumerate(s.get(which, []))]
            setattr(plugins[point], which, refs)
    return plugins


def _decode_args(name: str, raw: Any, path: str, errors: list[str],
                 kinds: frozenset[str], schemas: Mapping[str, Any]) -> tuple[str | None, Any]:
    """``PluginConfig.decodeNestedObjects``: args of a registered kind (``<name>Args``) are
    decoded strictly into that kind; a given apiVersion/kind must name it. Other args stay as
    given (``runtime.Unknown``)."""
    kind = name + "Args"
    if kind not in kinds:
        return None, schema.copy_value(raw)
    given = raw if raw is not None else {}
    if not isinstance(given, Mapping):
        errors.append(f"{path}: decoding args for plugin {name}: expected an object")
        return kind, {}
    api_version = given.get("apiVersion") or API_VERSION
    group, _, version = api_version.rpartition("/")
    given_kind = given.get("kind") or kind
    if (group, given_kind) != (GROUP, kind):
        errors.append(f"{path}: args for plugin {name} were not of type {kind}.{GROUP}, "
                      f"got {given_kind}.{group}")
        return kind, {}
    if version != VERSION:
        errors.append(f'{path}: no kind "{kind}" is registered for version "{api_version}"')
        return kind, {}
    args = schema.decode(given, schemas[kind], path, errors) or {}
    args.pop("apiVersion", None)
    args.pop("kind", None)
    return kind, args


def _to_internal(d: dict[str, Any], errors: list[str], kinds: frozenset[str],
                 schemas: Mapping[str, Any]) -> InternalConfiguration:
    profiles = []
    for i, p in enumerate(d.get("profiles", [])):
        path = index("profiles", i)
        configs = []
        for j, pc in enumerate(p.get("pluginConfig", [])):
            pc_path = index(child(path, "pluginConfig"), j)
            pc_name = pc.get("name", "")
            kind, args = _decode_args(pc_name, pc.get("args"), child(pc_path, "args"), errors,
                                      kinds, schemas)
            configs.append(PluginConfigEntry(pc_name, kind, args, pc_path))
        profiles.append(InternalProfile(
            scheduler_name=p.get("schedulerName"),
            percentage_of_nodes_to_score=p.get("percentageOfNodesToScore"),
            plugins=_plugins(p.get("plugins"), child(path, "plugins")),
            plugin_config=configs,
        ))
    return InternalConfiguration(
        parallelism=d.get("parallelism"),
        percentage_of_nodes_to_score=d.get("percentageOfNodesToScore"),
        pod_initial_backoff_seconds=d.get("podInitialBackoffSeconds"),
        pod_max_backoff_seconds=d.get("podMaxBackoffSeconds"),
        profiles=profiles,
        extenders=d.get("extenders", []),
    )


# ----------------------------------------------------------------------------- defaulting

def set_defaults(cfg: InternalConfiguration, release: ReleaseData = RELEASE) -> None:
    """``SetDefaults_KubeSchedulerConfiguration`` of ``release`` (the fields the reference
    models)."""
    if cfg.parallelism is None:
        cfg.parallelism = release.parallelism
    if not cfg.profiles:
        cfg.profiles.append(InternalProfile())
    # Only a single profile gets the default name; validation requires names otherwise.
    if len(cfg.profiles) == 1 and cfg.profiles[0].scheduler_name is None:
        cfg.profiles[0].scheduler_name = release.default_scheduler_name
    for i, prof in enumerate(cfg.profiles):
        if prof.scheduler_name is None:
            prof.scheduler_name = ""
        set_profile_defaults(prof, index("profiles", i), release)
    if cfg.percentage_of_nodes_to_score is None:
        cfg.percentage_of_nodes_to_score = release.percentage_of_nodes_to_score
    if cfg.pod_initial_backoff_seconds is None:
        cfg.pod_initial_backoff_seconds = release.pod_initial_backoff_seconds
    if cfg.pod_max_backoff_seconds is None:
        cfg.pod_max_backoff_seconds = release.pod_max_backoff_seconds


def set_profile_defaults(prof: InternalProfile, path: str,
                         release: ReleaseData = RELEASE) -> None:
    """``setDefaults_KubeSchedulerProfile``: merge the plugins into the release's defaults,
    default the given args, then append default args for every enabled plugin that has an
    args kind and no pluginConfig entry (in name order)."""
    prof.plugins = merge_plugins(default_plugins(list(release.default_plugins)), prof.plugins)
    existing = set()
    for cfg in prof.plugin_config:
        existing.add(cfg.name)
        if cfg.kind is not None:
            plugin_args.set_defaults(cfg.kind, cfg.args, release)
    kinds = plugin_args.known_kinds(release)
    for name in plugin_names(prof.plugins):
        kind = name + "Args"
        if name in existing or kind not in kinds:
            continue
        args = plugin_args.set_defaults(kind, {}, release)
        prof.plugin_config.append(PluginConfigEntry(
            name, kind, args, index(child(path, "pluginConfig"), len(prof.plugin_config))))


# ------------------------------------------------------------------ building the frameworks

def _build_profile(prof: InternalProfile, path: str, registry: Registry,
                   release: ReleaseData, name: str) -> Profile:
    """``NewFramework`` for one profile: construct the plugins the profile needs (only
    NodeResourcesFit's constructor validates anything validation has not: its args), then the
    extension point lists."""
    plugins, scheduler_name = defaulted(prof.plugins), defaulted(prof.scheduler_name)
    configs = {cfg.name: cfg for cfg in prof.plugin_config}
    fit = configs.get("NodeResourcesFit")
    if ("NodeResourcesFit" in needed_plugins(plugins) and "NodeResourcesFit" in registry
            and fit is not None and fit.kind is not None):
        errs = plugin_args.validate(fit.kind, fit.args, child(fit.path, "args"), release)
        if errs:
            raise ConfigError(name, errs)
    try:
        lists = expand_plugins(plugins, registry, path, scheduler_name, release)
    except FrameworkError as e:
        raise ConfigError(name, [str(e)]) from None
    plugin_args_out = {
        cfg.name: plugin_args.to_typed(cfg.kind, cfg.args) if cfg.kind is not None else cfg.args
        for cfg in prof.plugin_config}
    return Profile(scheduler_name, prof.percentage_of_nodes_to_score, lists,
                   plugin_args_out)


def _check_common_queue_sort(profiles: list[Profile], name: str) -> None:
    """``cfgValidator.validate`` of ``profile.go``: every framework's queue sort plugin and its
    args equal the first profile's."""
    first = profiles[0]
    queue_sort = first.plugins["queueSort"][0].name
    args = first.plugin_args.get(queue_sort)
    for i, p in enumerate(profiles[1:], start=1):
        path = f"profiles[{i}].plugins.queueSort"
        other = p.plugins["queueSort"][0].name
        if other != queue_sort:
            raise ConfigError(name, [f'{path}: different queue sort plugins for profile '
                                     f'"{p.scheduler_name}": "{other}", first: "{queue_sort}"'])
        if p.plugin_args.get(queue_sort) != args:
            raise ConfigError(name, [f'{path}: different queue sort plugin args for profile '
                                     f'"{p.scheduler_name}"'])
