"""The supported upstream releases and what differs between two of them: the ``ReleaseList``
and ``ReleaseDiff`` documents of ``kschedconf releases`` (the data is
``reference_impl/releases``, read from each release by ``upstream/releasedata``; docs/releases.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance.core.documents import API_VERSION
from reference_impl.releases import ReleaseData, load, supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: the single-valued fields, (document name, ReleaseData attribute)
SETTINGS = (
    ("parallelism", "parallelism"),
    ("percentageOfNodesToScore", "percentage_of_nodes_to_score"),
    ("podInitialBackoffSeconds", "pod_initial_backoff_seconds"),
    ("podMaxBackoffSeconds", "pod_max_backoff_seconds"),
    ("defaultSchedulerName", "default_scheduler_name"),
    ("podMaxInUnschedulablePodsDurationSeconds", "pod_max_in_unschedulable_pods_duration_seconds"),
    ("maxCustomPriorityScore", "max_custom_priority_score"),
    ("removedPlugins", "removed_plugins"),
)

Plugins = Sequence[tuple[str, int]]


def resolve_release(text: str) -> str:
    """A supported release from ``vX.Y.Z``, ``X.Y.Z`` or ``vX.Y`` / ``X.Y`` (the newest patch of
    that minor); an unknown one is a ``KeyError`` naming the supported ones."""
    tag = text if text.startswith("v") else "v" + text
    known = supported_releases()
    if tag in known:
        return tag
    same_minor = [r for r in known if r.rsplit(".", 1)[0] == tag]
    if same_minor:
        return same_minor[-1]
    raise KeyError(f"no release data for {text!r} (supported: {', '.join(known)})")


def release_list_doc() -> dict[str, Any]:
    """The ``ReleaseList``: every release with a data module, oldest first."""
    items = []
    for tag in supported_releases():
        r = load(tag)
        items.append({
            "release": r.release,
            "pinned": r.release == UPSTREAM_RELEASE,
            "moduleSum": r.module_sum,
            "moduleTime": r.module_time,
            "featureGates": len(r.feature_gates),
            "featureGatesOn": sum(r.feature_gates.values()),
            "defaultPlugins": [name for name, _ in r.default_plugins],
            "argsKinds": sorted(r.plugin_args_defaults),
        })
    return {"apiVersion": API_VERSION, "kind": "ReleaseList", "pinned": UPSTREAM_RELEASE,
            "releases": items}


def _gate(r: ReleaseData, name: str) -> dict[str, Any] | None:
    if name not in r.feature_gates:
        return None
    return {"default": r.feature_gates[name], "stage": r.feature_gate_stages[name],
            "locked": name in r.locked_feature_gates}


def _plugins_change(point: str, a: Plugins, b: Plugins) -> dict[str, Any] | None:
    """How the plugin list ``b`` differs from ``a``: added, removed, weights, and the plugins
    both have that moved (with the plugin now before them); None when equal."""
    if list(a) == list(b):
        return None
    wa, wb = dict(a), dict(b)
    common_a = [n for n, _ in a if n in wb]
    common_b = [n for n, _ in b if n in wa]
    kept = set(_longest_common_subsequence(common_a, common_b))
    return {
        "extensionPoint": point,
        "added": [{"plugin": n, "weight": w, "after": _before(b, i)}
                  for i, (n, w) in enumerate(b) if n not in wa],
        "removed": [n for n, _ in a if n not in wb],
        "weights": [{"plugin": n, "a": wa[n], "b": wb[n]} for n in common_b if wa[n] != wb[n]],
        "moved": [{"plugin": n, "after": _before(b, i)}
                  for i, (n, _) in enumerate(b) if n in wa and n not in kept],
    }


def _before(plugins: Plugins, i: int) -> str | None:
    """The plugin listed before position ``i`` (None: first)."""
    return plugins[i - 1][0] if i else None


def _longest_common_subsequence(a: list[str], b: list[str]) -> list[str]:
    """The longest list of names in the same order in ``a`` and ``b``: the plugins that did not
    move (the others are ``moved``)."""
    best = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            best[i][j] = (best[i + 1][j + 1] + 1 if a[i] == b[j]
                          else max(best[i + 1][j], best[i][j + 1]))
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            out.append(a[i])
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _args_changes(a: Mapping[str, Mapping[str, Any]], b: Mapping[str, Mapping[str, Any]]
                  ) -> list[dict[str, Any]]:
    """Per args kind and field, the defaults that differ (None: not defaulted / no such kind;
    a kind only one side registers is one entry with ``field`` None)."""
    out: list[dict[str, Any]] = []
    for kind in sorted(set(a) | set(b)):
        if kind not in a or kind not in b:
            out.append({"args": kind, "field": None, "a": _plain(a.get(kind)),
                        "b": _plain(b.get(kind))})
            continue
        for field in sorted(set(a[kind]) | set(b[kind])):
            va, vb = _plain(a[kind].get(field)), _plain(b[kind].get(field))
            if va != vb:
                out.append({"args": kind, "field": field, "a": va, "b": vb})
    return out


def _plain(value: Any) -> Any:
    """A data module value as JSON-able plain data (tuples → lists)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def release_diff_doc(a: ReleaseData, b: ReleaseData) -> dict[str, Any]:
    """The ``ReleaseDiff``: what changes from release ``a`` to release ``b``."""
    gates = []
    for name in sorted(set(a.feature_gates) | set(b.feature_gates)):
        ga, gb = _gate(a, name), _gate(b, name)
        if ga != gb:
            gates.append({"gate": name, "a": ga, "b": gb})
    plugins = [_plugins_change("multiPoint", a.default_plugins, b.default_plugins)]
    for point in list(a.extension_points) + [p for p in b.extension_points
                                             if p not in a.extension_points]:
        plugins.append(_plugins_change(point, a.extension_points.get(point, ()),
                                       b.extension_points.get(point, ())))
    points_only = sorted(set(a.extension_points) ^ set(b.extension_points))
    settings = [{"field": doc_name, "a": _plain(getattr(a, attr)), "b": _plain(getattr(b, attr))}
                for doc_name, attr in SETTINGS if getattr(a, attr) != getattr(b, attr)]
    return {
        "apiVersion": API_VERSION,
        "kind": "ReleaseDiff",
        "a": a.release,
        "b": b.release,
        "featureGates": gates,
        "plugins": [p for p in plugins if p is not None],
        "extensionPointsOnlyIn": {"a": [p for p in points_only if p in a.extension_points],
                                  "b": [p for p in points_only if p in b.extension_points]},
        "pluginArgs": _args_changes(a.plugin_args_defaults, b.plugin_args_defaults),
        "settings": settings,
    }
