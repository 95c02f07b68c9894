"""The baseline a subject is compared with: the reference under the configuration the subject
runs, with every user plugin that replaces an in-tree plugin swapped back for it, and the
subject's plugin names mapped to the in-tree ones in what it reports (docs/diff.md, "Any
scheduler against the reference")."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.core.errors import UsageError
from conformance.core.replacements import rename_enabled
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import (
    Document,
    ScenarioRejected,
    Subject,
    SubjectError,
    SubjectResult,
)
from conformance.subjects.reference import ReferenceSubject
from reference_impl.config import load_config
from reference_impl.config.errors import ConfigError
from reference_impl.config.types import SchedulerConfiguration
from reference_impl.plugins.registry import in_tree_registry

CONFIG_KIND = "KubeSchedulerConfiguration"


def scenario_config(scenario: ScenarioInput) -> Document | None:
    """The configuration a scenario holds: its ``config`` (``--config``), else its
    KubeSchedulerConfiguration document; None for the release's default profile."""
    if scenario.config is not None:
        return dict(scenario.config)
    for d in scenario.documents:
        if isinstance(d, dict) and d.get("kind") == CONFIG_KIND:
            return d
    return None


def resolved(doc: Mapping[str, Any] | None) -> SchedulerConfiguration | None:
    """The configuration as the reference runs it (defaults merged, MultiPoint expanded);
    None when it names plugins the reference does not have or is invalid."""
    try:
        return load_config(doc or {"apiVersion": "kubescheduler.config.k8s.io/v1",
                                   "kind": CONFIG_KIND}, in_tree_registry())
    except ConfigError:
        return None


def same_config(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """Whether two configuration documents (None: the default profile) schedule alike: equal
    documents, or equal once resolved (a configuration that spells out the defaults)."""
    if a == b:
        return True
    ra, rb = resolved(a), resolved(b)
    return ra is not None and ra == rb


def _entries(section: Any) -> list[dict[str, Any]]:
    return [e for e in (section or []) if isinstance(e, dict) and isinstance(e.get("name"), str)]


def _replaced(profile: Mapping[str, Any], user: str, in_tree: set[str]) -> str | None:
    """The in-tree plugin a user plugin replaces in a profile: the one disabled at every
    extension point where the user plugin is enabled (by name when several are)."""
    plugins = profile.get("plugins") or {}
    found: set[str] | None = None
    for point in plugins.values():
        if not isinstance(point, dict):
            continue
        if not any(e["name"] == user for e in _entries(point.get("enabled"))):
            continue
        disabled = {e["name"] for e in _entries(point.get("disabled"))} & in_tree
        found = disabled if found is None else found & disabled
    if not found:
        return None
    if len(found) > 1:
        named = [n for n in found if n in user]
        found = {max(named, key=len)} if named else found
    return next(iter(found)) if len(found) == 1 else None


@dataclass(slots=True)
class Baseline:
    """The configuration the reference runs against a subject and the subject's plugin names
    mapped to the in-tree plugins they replace."""

    config: Document | None
    renames: dict[str, str] = field(default_factory=dict)


def baseline_for(config: Mapping[str, Any] | None,
                 declared: Mapping[str, str] | None = None) -> Baseline:
    """The baseline of a subject running ``config`` (None: each scenario's own). Every plugin
    the configuration enables that is not in-tree must replace one: the one ``declared``
    names for it (``Plugin.replaces``, ``--replaces``: user plugin → in-tree plugin), else
    the one disabled where it is enabled, at the same extension points (a copy of
    ``NodeAffinity`` named ``MyNodeAffinity``: ``disabled: [NodeAffinity]``,
    ``enabled: [MyNodeAffinity]``).
    The baseline enables the in-tree plugin in its place, with its weight and args, at the
    same position. A :class:`UsageError` names a plugin that replaces none."""
    if config is None:
        return Baseline(None)
    in_tree = set(in_tree_registry())
    doc = copy.deepcopy(dict(config))
    renames: dict[str, str] = {}
    for profile in doc.get("profiles") or []:
        if not isinstance(profile, dict):
            continue
        local: dict[str, str] = {}
        for point in (profile.get("plugins") or {}).values():
            if not isinstance(point, dict):
                continue
            for e in _entries(point.get("enabled")):
                name = e["name"]
                if name in in_tree or name in local:
                    continue
                target = (declared or {}).get(name) or _replaced(profile, name, in_tree)
                if target is None:
                    raise UsageError(
                        f"plugin {name} (profile {profile.get('schedulerName', '?')}) replaces "
                        "no in-tree plugin: the differential compares a plugin with the in-tree "
                        "one it re-implements, so the configuration must disable that plugin "
                        f"where it enables {name} (docs/diff.md)")
                if renames.get(name, target) != target:
                    raise UsageError(f"plugin {name} replaces {renames[name]} in one profile "
                                     f"and {target} in another")
                local[name] = renames[name] = target
        rename_enabled(profile, local)
    if renames and resolved(doc) is None:
        raise UsageError("the configuration with the in-tree plugins in place of "
                         f"{', '.join(sorted(renames))} is not valid for the reference")
    return Baseline(doc, renames)


def rename_plugins(value: Any, renames: Mapping[str, str]) -> Any:
    """A JSON value with every renamed plugin replaced: strings (and keys) equal to its name,
    and its name as a word inside messages (``didn't satisfy plugin(s) [MyNodeAffinity]``)."""
    if not renames:
        return value
    words = re.compile(r"\b(" + "|".join(map(re.escape, sorted(renames, key=len, reverse=True)))
                       + r")\b")
    return _rename(value, renames, words)


def _rename(value: Any, renames: Mapping[str, str], words: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        if value in renames:
            return renames[value]
        return words.sub(lambda m: renames[m.group(1)], value)
    if isinstance(value, list):
        return [_rename(v, renames, words) for v in value]
    if isinstance(value, dict):
        return {_rename(k, renames, words) if isinstance(k, str) else k:
                _rename(v, renames, words) for k, v in value.items()}
    return value


class BaselineReference(ReferenceSubject):
    """The reference (in-tree plugins only) running the baseline configuration whatever
    configuration the scenario holds."""

    def __init__(self, baseline: Baseline) -> None:
        super().__init__()
        self.baseline = baseline

    def _configured(self, scenario: ScenarioInput) -> ScenarioInput:
        return scenario.with_config(self.baseline.config)

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        return super().run(self._configured(scenario))

    def explain(self, scenario: ScenarioInput, pod: str) -> Document:
        return super().explain(self._configured(scenario), pod)

    def explain_many(self, scenario: ScenarioInput, pods: Sequence[str]
                     ) -> list[Document | ScenarioRejected]:
        return self.explain_loaded(self._configured(scenario), pods)

    @property
    def fixed_config(self) -> Document | None:
        return self.baseline.config

    def describe(self) -> dict[str, str]:
        d = super().describe()
        if self.baseline.renames:
            d["inTreeFor"] = ", ".join(f"{v} for {k}"
                                       for k, v in sorted(self.baseline.renames.items()))
        return d


class ComparedSubject(Subject):
    """The subject as the differential sees it: its reports name its user plugins as the
    in-tree plugins they replace, and a crash of an in-process subject (a user plugin that
    raises) is its answer to the scenario (a :class:`ScenarioRejected` naming the exception,
    which the comparison reports), not the end of the run."""

    def __init__(self, inner: Subject, renames: Mapping[str, str], owns: bool = True) -> None:
        self.inner, self.renames, self.owns = inner, dict(renames), owns
        self.name = inner.name
        self.reports_scores = inner.reports_scores
        self.real_control_plane = inner.real_control_plane
        self.can_explain = inner.can_explain

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        try:
            res = self.inner.run(scenario)
        except (SubjectError, ScenarioRejected):
            raise
        except Exception as e:  # noqa: BLE001 - a crash of an in-process subject
            raise ScenarioRejected(f"{self.name} crashed: {type(e).__name__}: {e}") from e
        res.result = rename_plugins(res.result, self.renames)
        res.explanations = {k: rename_plugins(v, self.renames)
                            for k, v in res.explanations.items()}
        return res

    def explain(self, scenario: ScenarioInput, pod: str) -> Document:
        try:
            doc: Document = rename_plugins(self.inner.explain(scenario, pod), self.renames)
        except (SubjectError, ScenarioRejected):
            raise
        except Exception as e:  # noqa: BLE001 - a crash of an in-process subject
            raise ScenarioRejected(f"{self.name} crashed: {type(e).__name__}: {e}") from e
        return doc

    @property
    def fixed_config(self) -> Document | None:
        return self.inner.fixed_config

    @property
    def release(self) -> str:
        return self.inner.release

    def describe(self) -> dict[str, str]:
        return self.inner.describe()

    def close(self) -> None:
        if self.owns:
            self.inner.close()


def against_reference(subject: Subject, config: Mapping[str, Any] | None, owns: bool = True
                      ) -> tuple[Subject, Subject, Baseline]:
    """The reference side and the subject side of a comparison with the reference: the
    configuration is the subject's fixed one, else ``config`` (``--config``, given to both).
    ``owns``: closing the subject side closes ``subject``."""
    base = baseline_for(subject.fixed_config if subject.fixed_config is not None else config,
                        {k: r.replaces for k, r in subject.replacements.items()})
    return BaselineReference(base), ComparedSubject(subject, base.renames, owns), base
