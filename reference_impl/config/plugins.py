"""Which plugins run where: merging a profile's plugin sets into the defaults, and expanding them
into the final per-extension-point lists the framework runs.

Upstream: ``pkg/scheduler/apis/config/v1/default_plugins.go`` (mergePlugins / mergePluginSet)
and ``pkg/scheduler/framework/runtime/framework.go`` (NewFramework: updatePluginList,
expandMultiPointPlugins, getValidScoreWeights and the queue sort / bind checks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from reference_impl.config.schema import PLUGIN_SET_FIELDS
from reference_impl.framework import interfaces as itf
from reference_impl.releases import ReleaseData
from reference_impl.releases.current import RELEASE

MAX_SCORE = itf.MAX_NODE_SCORE  # fwk.MaxScore
MAX_TOTAL_SCORE = 2**63 - 1  # fwk.MaxTotalScore = math.MaxInt64


class PluginRef(NamedTuple):
    """A ``Plugin`` entry of a plugin set. ``weight`` 0 = not set; ``origin`` is the entry's
    field path in the configuration ("" for the release's default plugins)."""

    name: str
    weight: int = 0
    origin: str = ""


@dataclass(slots=True)
class PluginSet:
    """``PluginSet``: enabled and disabled plugins of one extension point."""

    enabled: list[PluginRef] = field(default_factory=list)
    disabled: list[PluginRef] = field(default_factory=list)


Plugins = dict[str, PluginSet]
"""``Plugins``: v1 field name (``multiPoint``, ``filter``, ...) → its set."""


def new_plugins() -> Plugins:
    return {name: PluginSet() for name in PLUGIN_SET_FIELDS}


def default_plugins(multi_point: list[tuple[str, int]]) -> Plugins:
    """``getDefaultPlugins``: everything in MultiPoint."""
    plugins = new_plugins()
    plugins["multiPoint"].enabled = [PluginRef(name, weight) for name, weight in multi_point]
    return plugins


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """``mergePluginSet``: default plugins stay in order unless disabled (or all are, with
    "*"); a default plugin that is also enabled by the profile is replaced in place by the
    profile's entry (the last one of that name); the profile's other enabled plugins are
    appended, duplicates included. Disabled lists: the profile's, then the default's."""
    disabled = [PluginRef(p.name, 0, p.origin) for p in custom.disabled]
    disabled += [PluginRef(p.name, 0, p.origin) for p in default.disabled]
    disabled_names = {p.name for p in disabled}
    custom_index = {p.name: i for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[PluginRef] = []
    if "*" not in disabled_names:
        for p in default.enabled:
            if p.name in disabled_names:
                continue
            i = custom_index.get(p.name)
            if i is not None:
                p = custom.enabled[i]
                replaced.add(i)
            enabled.append(p)
    enabled += [p for i, p in enumerate(custom.enabled) if i not in replaced]
    return PluginSet(enabled, disabled)


def merge_plugins(default: Plugins, custom: Plugins | None) -> Plugins:
    """``mergePlugins``: ``custom`` nil → the defaults; otherwise merged set by set."""
    if custom is None:
        return default
    return {name: merge_plugin_set(default[name], custom[name]) for name in PLUGIN_SET_FIELDS}


def plugin_names(plugins: Plugins) -> list[str]:
    """``pluginsNames`` of ``defaults.go``: the sorted names enabled anywhere (PodGroupPostFilter
    is not looked at, as upstream)."""
    return sorted({p.name for point, s in plugins.items() if point != "podGroupPostFilter"
                   for p in s.enabled})


# ------------------------------------------------------------------ framework.go expansion

class PluginEntry(NamedTuple):
    """One plugin of a final extension point list; ``weight`` is its Score weight at ``score``
    and 0 elsewhere (as ``ListPlugins``)."""

    name: str
    weight: int


class FrameworkError(Exception):
    """An error ``NewFramework`` returns; ``field`` is the config path it concerns."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


_INTERFACES = dict(itf.EXTENSION_POINTS)
# getExtensionPoints order; the last three have no Python interface: no plugin implements them.
_FRAMEWORK_POINTS: tuple[tuple[str, str], ...] = (
    ("preFilter", "PreFilterPlugin"), ("filter", "FilterPlugin"),
    ("postFilter", "PostFilterPlugin"), ("reserve", "ReservePlugin"),
    ("preScore", "PreScorePlugin"), ("score", "ScorePlugin"), ("preBind", "PreBindPlugin"),
    ("bind", "BindPlugin"), ("postBind", "PostBindPlugin"), ("permit", "PermitPlugin"),
    ("preEnqueue", "PreEnqueuePlugin"), ("queueSort", "QueueSortPlugin"),
    ("placementGenerate", "PlacementGeneratePlugin"), ("placementScore", "PlacementScorePlugin"),
    ("podGroupPostFilter", "PodGroupPostFilterPlugin"),
)


def _implements(cls: type, point: str, release: ReleaseData) -> bool:
    """Whether plugin ``cls`` extends ``point`` in ``release``: it inherits the point's interface
    and, if the point came to it in a later release (``Plugin.release_points``), the release
    does not run the variant without it."""
    iface = _INTERFACES.get(point)
    if iface is None or not issubclass(cls, iface):
        return False
    switch = getattr(cls, "release_points", {}).get(point)
    return switch is None or release.behaviour(switch[0]) != switch[1]


def needed_plugins(plugins: Plugins) -> set[str]:
    """``pluginsNeeded``: every name enabled at any extension point or in MultiPoint."""
    return {p.name for s in plugins.values() for p in s.enabled}


def expand_plugins(plugins: Plugins, registry: Mapping[str, type], profile_path: str,
                   scheduler_name: str, release: ReleaseData = RELEASE
                   ) -> dict[str, list[PluginEntry]]:
    """The per-extension-point lists ``NewFramework`` of ``release`` builds from a merged
    profile (a plugin extends the points its class implements in that release, ``_implements``).

    1. ``updatePluginList``: each specific extension point's enabled plugins, which must exist,
       implement the point and appear once.
    2. ``expandMultiPointPlugins`` (if MultiPoint has plugins), per extension point unless it
       disables "*": MultiPoint plugins implementing the point and not disabled there. One also
       enabled at the point itself is an override: such plugins come first, in the point's
       order, then the MultiPoint-only plugins in MultiPoint order, then the point's others.
       A plugin twice in MultiPoint is an error.
    3. Exactly one QueueSort plugin and at least one Bind plugin.
    4. ``getValidScoreWeights`` over Score then MultiPoint entries: the first entry of a Score
       plugin gives its weight, 0 becomes 1, and the sum of weight × MaxScore must fit int64.
    Raises :class:`FrameworkError`.
    """

    def where(ref: PluginRef, point: str) -> str:
        return ref.origin or f"{profile_path}.plugins.{point}"

    lists: dict[str, list[str]] = {}
    for point, type_name in _FRAMEWORK_POINTS:
        names: list[str] = []
        for ref in plugins[point].enabled:
            cls = registry.get(ref.name)
            if cls is None:
                raise FrameworkError(where(ref, point), f'{type_name} "{ref.name}" does not exist')
            if not _implements(cls, point, release):
                raise FrameworkError(where(ref, point),
                                     f'plugin "{ref.name}" does not extend {type_name} plugin')
            if ref.name in names:
                raise FrameworkError(where(ref, point),
                                     f'plugin "{ref.name}" already registered as "{type_name}"')
            names.append(ref.name)
        lists[point] = names

    multi_point = plugins["multiPoint"].enabled
    if multi_point:
        for point, type_name in _FRAMEWORK_POINTS:
            disabled = {p.name for p in plugins[point].disabled}
            if "*" in disabled:
                continue
            enabled = lists[point]
            overrides: set[str] = set()
            multi: list[str] = []
            for ref in multi_point:
                cls = registry.get(ref.name)
                if cls is None:
                    raise FrameworkError(where(ref, "multiPoint"),
                                         f'{type_name} "{ref.name}" does not exist')
                if not _implements(cls, point, release) or ref.name in disabled:
                    continue
                if ref.name in enabled:
                    overrides.add(ref.name)
                    continue
                if ref.name in multi:
                    raise FrameworkError(where(ref, "multiPoint"),
                                         f'plugin "{ref.name}" already registered as '
                                         f'"{type_name}"')
                multi.append(ref.name)
            lists[point] = ([n for n in enabled if n in overrides] + multi
                            + [n for n in enabled if n not in overrides])

    queue_sort = len(lists["queueSort"])
    if queue_sort != 1:
        raise FrameworkError(f"{profile_path}.plugins.queueSort",
                             "only one queue sort plugin required for profile with scheduler "
                             f'name "{scheduler_name}", but got {queue_sort}')
    if not lists["bind"]:
        raise FrameworkError(f"{profile_path}.plugins.bind",
                             "at least one bind plugin is needed for profile with scheduler name "
                             f'"{scheduler_name}"')

    weights: dict[str, int] = {}
    total = 0
    for ref in plugins["score"].enabled + multi_point:
        cls = registry.get(ref.name)
        if cls is None:  # only when every point disables "*" (upstream then panics)
            raise FrameworkError(where(ref, "multiPoint"),
                                 f'ScorePlugin "{ref.name}" does not exist')
        if ref.name in weights or not _implements(cls, "score", release):
            continue
        weights[ref.name] = ref.weight or 1  # "a weight of zero is not permitted"
        if weights[ref.name] * MAX_SCORE > MAX_TOTAL_SCORE - total:
            raise FrameworkError(f"{profile_path}.plugins.score",
                                 "score plugins: total score of Score plugins could overflow")
        total += weights[ref.name] * MAX_SCORE

    return {point: [PluginEntry(n, weights[n] if point == "score" else 0) for n in lists[point]]
            for point, _ in itf.EXTENSION_POINTS}
