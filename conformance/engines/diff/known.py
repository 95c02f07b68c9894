"""Known divergences: the ``KnownDivergences`` file (default
``conformance/known_divergences.yaml``; format in docs/diff.md), its loading, and the
classification of a scenario's divergences as known."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance.core.errors import UsageError
from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.model import ALL_MODES, LOCKSTEP, MISSING, Divergence, show
from conformance.engines.diff.normalize import flatten, get

KNOWN_KIND = "KnownDivergences"
MATCH_KEYS = {"mode", "field", "plugin", "pod", "node", "reference", "upstream", "scenario",
              "referenceOutcome", "upstreamOutcome"}


@dataclass(slots=True)
class KnownDivergence:
    """An entry of the file: an ``id``, a ``reason`` and a matcher; every matcher given must
    match (the ``match`` keys of docs/diff.md)."""

    id: str
    reason: str
    mode: str | None = None
    fields: tuple[str, ...] = ()
    plugin: str | None = None
    pod: str | None = None
    node: str | None = None
    reference: re.Pattern[str] | None = None
    upstream: re.Pattern[str] | None = None
    scenario: Any = None  # a condition or a list of conditions (scenario_matches)
    reference_outcome: str | None = None
    upstream_outcome: str | None = None

    def matches(self, d: Divergence, scenario: ScenarioInput | None = None) -> bool:
        if self.mode and self.mode != d.mode:
            return False
        for glob, i in ((self.reference_outcome, 0), (self.upstream_outcome, 1)):
            if glob is not None and (d.outcomes is None
                                     or not glob_match(glob, str(d.outcomes[i]))):
                return False
        if self.scenario is not None and (scenario is None
                                          or not scenario_matches(self.scenario, scenario)):
            return False
        if self.fields and not any(glob_match(g, d.field) for g in self.fields):
            return False
        for glob, value in ((self.plugin, d.plugin), (self.pod, d.pod), (self.node, d.node)):
            if glob is not None and (value is None or not glob_match(glob, value)):
                return False
        if self.reference is not None and not self.reference.search(show(d.reference, 10**6)):
            return False
        return self.upstream is None or bool(self.upstream.search(show(d.upstream, 10**6)))


def glob_match(pattern: str, text: str) -> bool:
    """``*`` matches anything (``/`` and ``.`` included); every other character, ``[`` and
    ``]`` too, only itself; a leading ``!`` negates the pattern."""
    if pattern.startswith("!"):
        return not glob_match(pattern[1:], text)
    rx = "".join(".*" if c == "*" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, text) is not None


def scenario_matches(cond: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                     scenario: ScenarioInput) -> bool:
    """Whether the scenario has an object of kind ``cond["kind"]`` that has every dotted
    field of ``has``, none of ``lacks``, whose ``values`` fields match those regular
    expressions and whose JSON matches ``text``. A list of conditions matches when one does."""
    if not isinstance(cond, Mapping):
        return any(scenario_matches(c, scenario) for c in cond)
    kind = cond.get("kind")
    for d in flatten(scenario.documents):
        if kind and d.get("kind") != kind:
            continue
        has, lacks = _names(cond.get("has")), _names(cond.get("lacks"))
        if not all(get(d, f.split(".")) is not MISSING for f in has) or \
                not all(get(d, f.split(".")) is MISSING for f in lacks):
            continue
        values = cond.get("values") or {}
        if not all((v := get(d, str(f).split("."))) is not MISSING
                   and re.search(str(rx), str(v)) for f, rx in values.items()):
            continue
        if cond.get("text") and not re.search(str(cond["text"]),
                                               json.dumps(d, sort_keys=True, default=str)):
            continue
        return True
    return False


def _names(v: Any) -> list[str]:
    if v is None:
        return []
    return [str(v)] if isinstance(v, str) else [str(x) for x in v]


def default_known_path() -> Path:
    return Path(__file__).resolve().parent.parent.parent / "known_divergences.yaml"


def load_known(path: str | Path | None = None) -> list[KnownDivergence]:
    """The known divergences of a file (default :func:`default_known_path`; a missing default
    file means none). A bad file is a :class:`UsageError`."""
    p = Path(path) if path is not None else default_known_path()
    if not p.exists():
        if path is not None:
            raise UsageError(f"--known {p}: no such file")
        return []
    try:
        doc = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise UsageError(f"{p}: invalid YAML: {e}") from e
    if isinstance(doc, dict) and doc.get("kind", KNOWN_KIND) != KNOWN_KIND:
        raise UsageError(f"{p}: expected kind {KNOWN_KIND}, found {doc.get('kind')!r}")
    items = doc.get("divergences") if isinstance(doc, dict) else None
    if items is None:
        items = []
    if not isinstance(items, list):
        raise UsageError(f"{p}: `divergences` must be a list")
    return [_entry(f"{p}: divergences[{i}]", it) for i, it in enumerate(items)]


def _entry(where: str, it: Any) -> KnownDivergence:
    if not isinstance(it, dict) or not it.get("id") or not it.get("reason"):
        raise UsageError(f"{where}: needs an `id` and a `reason`")
    m = it.get("match") or {}
    if not isinstance(m, dict) or not m:
        raise UsageError(f"{where}: needs a non-empty `match`")
    unknown = set(m) - MATCH_KEYS
    if unknown:
        raise UsageError(f"{where}: unknown match keys {sorted(unknown)}")
    fields = m.get("field") or ()
    fields = (fields,) if isinstance(fields, str) else tuple(str(f) for f in fields)
    if m.get("mode") not in (None, *ALL_MODES):
        raise UsageError(f"{where}: match.mode must be one of {', '.join(ALL_MODES)}")
    try:
        ref_re = re.compile(m["reference"]) if m.get("reference") else None
        up_re = re.compile(m["upstream"]) if m.get("upstream") else None
    except re.error as e:
        raise UsageError(f"{where}: bad regular expression: {e}") from e
    cond = m.get("scenario")
    conds = [cond] if isinstance(cond, dict) else cond
    if cond is not None and (not isinstance(conds, list) or not conds or any(
            not isinstance(c, dict) or not c.get("kind")
            or not (set(c) - {"kind"}) <= {"has", "lacks", "values", "text"} for c in conds)):
        raise UsageError(f"{where}: match.scenario must be {{kind: K, has: FIELDS, lacks: "
                         f"FIELDS, values: {{FIELD: REGEX}}, text: REGEX}} or a list")
    return KnownDivergence(str(it["id"]), str(it["reason"]).strip(), m.get("mode"), fields,
                           m.get("plugin"), m.get("pod"), m.get("node"), ref_re, up_re, cond,
                           m.get("referenceOutcome"), m.get("upstreamOutcome"))


def classify(divergences: list[Divergence], known: Sequence[KnownDivergence],
             scenario: ScenarioInput | None = None) -> None:
    """Mark the divergences that match a known one. Consequences are grouped with their
    roots (a whole run; a lockstep step): when every root of the group is known, so are its
    consequences; a group without roots (end-state differences alone) is matched one by
    one."""
    groups: dict[tuple[str, int | None], list[Divergence]] = {}
    for d in divergences:
        groups.setdefault((d.mode, d.step if d.mode == LOCKSTEP else None), []).append(d)
    for group in groups.values():
        roots = [d for d in group if not d.consequence]
        for d in roots or group:
            for k in known:
                if k.matches(d, scenario):
                    d.known = k.id
                    break
        if roots and all(d.known for d in roots):
            label = ",".join(sorted({d.known for d in roots if d.known}))
            for d in group:
                if d.consequence:
                    d.known = d.known or label
