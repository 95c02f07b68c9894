"""Plugin-form copies of the default profile's Filter and Score plugins (issue 18): for each, a
user plugin with another name (``CopyOfNodeResourcesFit``) that declares ``replaces`` and behaves
exactly as the in-tree plugin (a subclass: the honest "unmodified copy" a plugin author starts
from), and the configuration that disables the in-tree plugin and enables the copy at the same
extension points with the same weight and args.

One builder, :func:`copy_class`, makes every copy from the registry, and the plugin-form
mutants (``catalogue/plugin_form.py``: a copy with methods overridden). This module is itself a
plugin module: ``--plugins conformance.engines.mutants.copies`` registers every copy, and
:func:`copy_config` (or ``python -m conformance.engines.mutants.copies DIR``) writes the
configuration that enables one. See docs/mutants.md, "Plugin-form mutants"."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from reference_impl.config import plugin_args
from reference_impl.framework.interfaces import FilterPlugin, Plugin, ScorePlugin
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases import load
from reference_impl.releases.current import RELEASE, default_plugins
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: the name of the unmodified copy of plugin ``X``
COPY_PREFIX = "CopyOf"
MODULE = __name__


def copied_plugins() -> list[tuple[str, int]]:
    """The default profile's plugins that implement Filter or Score, ``(name, weight)`` in
    the profile's order (weight 0: not set)."""
    registry = in_tree_registry()
    return [(name, weight) for name, weight in default_plugins()
            if issubclass(registry[name], FilterPlugin | ScorePlugin)]


def default_weight(plugin: str, release: str = UPSTREAM_RELEASE) -> int:
    """The weight of ``plugin`` in ``release``'s default profile (0: not set; the weights
    differ across releases, e.g. DynamicResources scores with weight 2 only since v1.35:
    ``pkg/scheduler/apis/config/v1/default_plugins.go`` of each release)."""
    return dict(load(release).default_plugins)[plugin]


def in_default_profile(plugin: str, release: str = UPSTREAM_RELEASE) -> bool:
    """Whether ``release``'s default profile enables ``plugin`` (NodeDeclaredFeatures, say,
    only since v1.36)."""
    return plugin in dict(load(release).default_plugins)


def _decoding_init(init: Callable[..., None], kind: str) -> Callable[..., None]:
    """``New`` of a copy whose in-tree plugin has typed args (``<Plugin>Args``): a user plugin
    receives its ``pluginConfig`` args as a plain dict (or None), which the copy defaults and
    converts as the scheduler's config scheme does for the in-tree plugin
    (``pkg/scheduler/apis/config/v1/defaults.go``), then runs ``init`` (the in-tree
    plugin's, or an override's) with the typed args."""

    def __init__(self: Plugin, args: Any = None, handle: Any = None) -> None:
        if args is None or isinstance(args, dict):
            release = getattr(handle, "release", RELEASE)
            args = plugin_args.to_typed(kind, plugin_args.set_defaults(
                kind, dict(args or {}), release))
        init(self, args, handle)

    return __init__


def copy_class(plugin: str, name: str, overrides: Mapping[str, Any] | None = None,
               module: str = MODULE, doc: str = "") -> type[Plugin]:
    """A user plugin named ``name`` that replaces the in-tree ``plugin``: a subclass of it
    (same extension points, same code) with ``overrides`` (methods, attributes) on top,
    defined in ``module`` (a plugin module registers the classes whose ``__module__`` it is).
    An ``__init__`` override receives the typed args, as the in-tree plugin's does."""
    base = in_tree_registry()[plugin]
    ns: dict[str, Any] = {
        "name": name, "replaces": plugin, "__module__": module, "__qualname__": name,
        "__doc__": doc or f"An unmodified copy of the in-tree {plugin} (a user plugin)."}
    overrides = dict(overrides or {})
    kind = f"{plugin}Args"
    if kind in plugin_args.known_kinds():
        ns["__init__"] = _decoding_init(overrides.pop("__init__", base.__init__), kind)
    ns.update(overrides)
    return type(name, (base,), ns)


def copy_config(plugin: str, name: str, release: str = UPSTREAM_RELEASE) -> dict[str, Any]:
    """The KubeSchedulerConfiguration of ``release``'s default profile with ``name`` in place
    of the in-tree ``plugin``: the in-tree plugin disabled, the user plugin enabled at every
    extension point (MultiPoint, as the default profile enables it) with the in-tree weight of
    that release, and its args (empty: the in-tree defaults) when the in-tree plugin has
    args."""
    entry: dict[str, Any] = {"name": name}
    weight = default_weight(plugin, release)
    if weight:
        entry["weight"] = weight
    profile: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"enabled": [entry], "disabled": [{"name": plugin}]}}}
    if f"{plugin}Args" in plugin_args.known_kinds():
        profile["pluginConfig"] = [{"name": name, "args": {}}]
    return {"apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration", "profiles": [profile]}


@dataclass(frozen=True, slots=True)
class PluginForm:
    """A user plugin standing for an in-tree plugin: the class ``cls`` of the plugin module
    ``module`` (a dotted name, as ``--plugins`` takes it) replacing ``plugin``."""

    plugin: str
    cls: str
    module: str = MODULE

    def config(self, release: str = UPSTREAM_RELEASE) -> dict[str, Any]:
        return copy_config(self.plugin, self.cls, release)

    def write_config(self, directory: str | Path, release: str = UPSTREAM_RELEASE) -> Path:
        """The configuration (of ``release``'s default profile) as ``DIR/<cls>-config.yaml``
        (for ``--subject reference:CFG``)."""
        path = Path(directory) / f"{self.cls}-config.yaml"
        path.write_text(yaml.safe_dump(self.config(release), sort_keys=False))
        return path


def copy_of(plugin: str) -> PluginForm:
    """The unmodified copy of ``plugin`` (a class of this module)."""
    return PluginForm(plugin, COPY_PREFIX + plugin)


COPIES: dict[str, type[Plugin]] = {
    plugin: copy_class(plugin, COPY_PREFIX + plugin) for plugin, _ in copied_plugins()}
globals().update({cls.__name__: cls for cls in COPIES.values()})


def main(argv: list[str]) -> int:
    """``python -m conformance.engines.mutants.copies DIR``: one configuration per copy."""
    if len(argv) != 1:
        print("usage: python -m conformance.engines.mutants.copies DIR", file=sys.stderr)
        return 2
    Path(argv[0]).mkdir(parents=True, exist_ok=True)
    for plugin in COPIES:
        print(copy_of(plugin).write_config(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
