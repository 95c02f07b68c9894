"""Declared replacements: a user plugin that stands for an in-tree plugin (``replaces``) and
the rules of that plugin it changes on purpose (``changes``), from the plugin class
(``Plugin.replaces`` / ``Plugin.changes``) or from ``--replaces MyPlugin=InTree[:rule,rule]``.

The oracles judge a declared replacement as they judge the in-tree plugin: they read the
configuration with the replacement's name (and args) as the in-tree plugin's, and what breaks
only a rule in ``changes`` is an intended change, not a violation (docs/plugins.md). The
rule names of each in-tree filter/score plugin are :data:`RULES`: its Filter checks as the
oracles restate them (``oracles/rules.py``) and its Score as one rule."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.core.errors import UsageError
from reference_impl.framework.interfaces import Plugin
from reference_impl.plugins.registry import in_tree_registry

#: the rules of each in-tree plugin a replacement may change (docs/plugins.md): Filter checks
#: (``filter`` when the plugin has one) and ``score``; NodeResourcesFit's Filter is one rule
#: per resource kind (fitsRequest, pkg/scheduler/framework/plugins/noderesources/fit.go)
RULES: dict[str, tuple[str, ...]] = {
    "NodeName": ("filter",),
    "NodeUnschedulable": ("filter",),
    "TaintToleration": ("filter", "score"),
    "NodeAffinity": ("filter", "added-affinity", "score"),
    "NodePorts": ("filter",),
    "NodeResourcesFit": ("pods", "cpu", "memory", "ephemeral-storage", "extended", "score"),
    "NodeResourcesBalancedAllocation": ("score",),
    "PodTopologySpread": ("filter", "score"),
    "InterPodAffinity": ("filter", "score"),
    "ImageLocality": ("score",),
    "VolumeRestrictions": ("filter",),
    "NodeVolumeLimits": ("filter",),
    "VolumeBinding": ("filter", "score"),
    "VolumeZone": ("filter",),
    "DynamicResources": ("filter", "score"),
    "NodeDeclaredFeatures": ("filter",),
}

#: NodeResourcesFit's per-resource Filter rules
FIT_RESOURCE_RULES = ("pods", "cpu", "memory", "ephemeral-storage", "extended")


@dataclass(frozen=True, slots=True)
class Replacement:
    """User plugin ``plugin`` stands for in-tree plugin ``replaces``; ``changes``: the rules of
    ``replaces`` it changes on purpose."""

    plugin: str
    replaces: str
    changes: frozenset[str] = frozenset()

    def rule_ids(self) -> frozenset[str]:
        """``NodeResourcesFit/ephemeral-storage``: the changed rules, named with the plugin."""
        return frozenset(rule_id(self.replaces, r) for r in self.changes)

    def describe(self) -> str:
        changed = f" (changes {', '.join(sorted(self.changes))})" if self.changes else ""
        return f"{self.plugin} replaces {self.replaces}{changed}"


def rule_id(plugin: str, rule: str) -> str:
    return f"{plugin}/{rule}"


def validated(plugin: str, replaces: str, changes: Sequence[str] | frozenset[str],
              where: str) -> Replacement:
    """The replacement, or a :class:`UsageError` naming the plugin and ``where`` it was
    declared when ``replaces`` is not an in-tree plugin or a rule is not one of its rules."""
    in_tree = in_tree_registry()
    if replaces not in in_tree:
        raise UsageError(f"{where}: plugin {plugin} replaces {replaces!r}, which is not an "
                         f"in-tree plugin (in-tree: {', '.join(sorted(in_tree))})")
    if plugin in in_tree:
        raise UsageError(f"{where}: {plugin} is an in-tree plugin; only a user plugin "
                         "replaces one")
    valid = RULES.get(replaces, ())
    for rule in sorted(changes):
        if rule not in valid:
            raise UsageError(
                f"{where}: plugin {plugin} changes rule {rule!r}, which is not a rule of "
                f"{replaces} (its rules: {', '.join(valid) or 'none'}; docs/plugins.md)")
    return Replacement(plugin, replaces, frozenset(changes))


def parse_replaces(spec: str) -> tuple[str, str, tuple[str, ...]]:
    """``MyPlugin=NodeResourcesFit[:rule,rule]`` → (plugin, in-tree plugin, rules)."""
    plugin, eq, rest = spec.partition("=")
    target, _, rules = rest.partition(":")
    if not eq or not plugin.strip() or not target.strip():
        raise UsageError(f"--replaces {spec!r}: expected PLUGIN=IN_TREE_PLUGIN[:rule,rule] "
                         "(e.g. MyFit=NodeResourcesFit:ephemeral-storage)")
    return (plugin.strip(), target.strip(),
            tuple(r.strip() for r in rules.split(",") if r.strip()))


def declared_replacements(registry: Mapping[str, type[Plugin]],
                          specs: Sequence[str] = ()) -> dict[str, Replacement]:
    """The replacements of a registry's user plugins: each class's ``replaces`` /
    ``changes``, then ``--replaces`` specs (which override the class's). A
    :class:`UsageError` for an invalid declaration or a spec naming a plugin the registry
    lacks."""
    out: dict[str, Replacement] = {}
    for name, cls in sorted(registry.items()):
        if cls.replaces:
            out[name] = validated(name, cls.replaces, cls.changes,
                                  f"{cls.__module__}.{cls.__qualname__}.replaces")
    for spec in specs:
        plugin, target, rules = parse_replaces(spec)
        if plugin not in registry:
            loaded = sorted(set(registry) - set(in_tree_registry()))
            raise UsageError(f"--replaces {spec}: no plugin {plugin!r} (loaded with --plugins: "
                             f"{', '.join(loaded) or 'none'})")
        out[plugin] = validated(plugin, target, rules, f"--replaces {spec}")
    return out


def replaces_args(replacements: Mapping[str, Replacement]) -> list[str]:
    """The ``--replaces`` arguments that declare ``replacements`` again (rerun commands)."""
    return [f"{r.plugin}={r.replaces}" + (f":{','.join(sorted(r.changes))}" if r.changes
                                          else "")
            for r in replacements.values()]


def _entries(section: Any) -> list[dict[str, Any]]:
    return [e for e in (section or []) if isinstance(e, dict) and isinstance(e.get("name"), str)]


def as_replaced(config: Mapping[str, Any] | None,
                replacements: Mapping[str, Replacement]) -> dict[str, Any] | None:
    """The configuration with every declared replacement enabled under the in-tree plugin's
    name (its extension points, position, weight and ``pluginConfig`` args): the profile as
    the oracles judge it. ``config`` is left as it is."""
    if config is None or not replacements:
        return None if config is None else dict(config)
    doc = copy.deepcopy(dict(config))
    names = {k: r.replaces for k, r in replacements.items()}
    for profile in doc.get("profiles") or []:
        if isinstance(profile, dict):
            rename_enabled(profile, names)
    return doc


def rename_enabled(profile: dict[str, Any], names: Mapping[str, str]) -> None:
    """Rename, in place, the plugins ``names`` maps where a profile enables them (every
    extension point) and in its ``pluginConfig``."""
    for point in (profile.get("plugins") or {}).values():
        if isinstance(point, dict):
            for e in _entries(point.get("enabled")):
                e["name"] = names.get(e["name"], e["name"])
    for e in _entries(profile.get("pluginConfig")):
        e["name"] = names.get(e["name"], e["name"])


def changed_rules(replacements: Mapping[str, Replacement]) -> dict[str, str]:
    """Rule id (``NodeResourcesFit/ephemeral-storage``) → the user plugin that changes it."""
    return {rid: r.plugin for r in replacements.values() for rid in sorted(r.rule_ids())}


def beside_upstream(doc: Mapping[str, Any], upstream: Mapping[str, Any],
                    replacements: Mapping[str, Replacement]) -> list[dict[str, Any]]:
    """Each replacement's Filter verdict and Score on every node of Explanation ``doc``
    beside the in-tree plugin's in ``upstream`` (the Explanation of the same pod under the
    configuration with the in-tree plugin in the replacement's place): the ``replacements``
    of ``kschedconf explain``. ``differs``: the verdict's code or reasons, or the scores,
    are not the same."""
    theirs = {n["name"]: n for n in upstream.get("nodes") or ()}
    out: list[dict[str, Any]] = []
    for r in replacements.values():
        rows = []
        for n in doc.get("nodes") or ():
            u = theirs.get(n["name"], {})
            row = {"name": n["name"],
                   "verdict": _verdict(n, r.plugin), "upstreamVerdict": _verdict(u, r.replaces),
                   "score": _score(n, r.plugin), "upstreamScore": _score(u, r.replaces)}
            row["differs"] = (row["verdict"] != row["upstreamVerdict"]
                              or row["score"] != row["upstreamScore"])
            rows.append(row)
        out.append({"plugin": r.plugin, "replaces": r.replaces,
                    "changes": sorted(r.changes), "nodes": rows})
    return out


def _verdict(node: Mapping[str, Any], plugin: str) -> dict[str, Any] | None:
    for f in node.get("filters") or ():
        if f.get("plugin") == plugin:
            return {"code": f.get("code"), "reasons": list(f.get("reasons") or ())}
    return None


def _score(node: Mapping[str, Any], plugin: str) -> dict[str, Any] | None:
    for s in node.get("scores") or ():
        if s.get("plugin") == plugin:
            return {"raw": s.get("raw"), "normalized": s.get("normalized")}
    return None
