"""What a differential comparison finds: divergences, tie-break differences and the result of
one scenario (docs/diff.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

WHOLE = "whole"
LOCKSTEP = "lockstep"
DECISIONS = "decisions"  # a real control plane (decisions.py)
MODES = (WHOLE, LOCKSTEP)
ALL_MODES = (WHOLE, LOCKSTEP, DECISIONS)

class _Missing:
    """The marker of a value one side does not have: one object in every process, also
    after pickling (a comparison made in a ``--workers`` process is compared with ``is``)."""

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"


#: A value one side does not have.
MISSING: Any = _Missing()
#: A kind of divergence: (mode, field pattern, plugin or "").
Sig = tuple[str, str, str]


def show(v: Any, limit: int = 300) -> str:
    """A value as short JSON (``(absent)`` for :data:`MISSING`)."""
    if v is MISSING:
        return "(absent)"
    s = json.dumps(v, sort_keys=True, default=str)
    return s if len(s) <= limit else s[:limit - 3] + "..."


@dataclass(slots=True)
class Divergence:
    """One difference between the reference and the other subject.

    ``path`` is concrete (``attempts[3].node``); ``field`` is its pattern with pod names, node
    names and indexes replaced by ``*`` (``attempts[*].node``); ``step`` is the attempt index
    (whole mode) or the lockstep step; a ``consequence`` follows from an earlier divergence.
    """

    mode: str
    path: str
    field: str
    reference: Any
    upstream: Any
    pod: str | None = None
    node: str | None = None
    plugin: str | None = None
    step: int | None = None
    consequence: bool = False
    known: str | None = None  # the id of the known divergence it matches
    #: whole mode: the outcomes of the two attempts compared (for known-divergence matchers)
    outcomes: tuple[str | None, str | None] | None = None
    #: what the other side is called in reports (``subject`` with ``diff --subject``)
    other: str = "upstream"
    #: the subject's own plugin that replaces ``plugin`` (``diff --subject reference:CFG
    #: --plugins FILE``; see :func:`name_replacements`)
    user_plugin: str | None = None

    @property
    def point(self) -> str | None:
        """The extension point (and, for scores, which score) the field belongs to."""
        return extension_point(self.field)

    @property
    def signature(self) -> Sig:
        """What kind of divergence this is (shrinking keeps it): mode, field, plugin."""
        return (self.mode, self.field, self.plugin or "")

    def where(self) -> str:
        parts = []
        if self.step is not None:
            parts.append(f"{'attempt' if self.mode == WHOLE else 'step'} {self.step}")
        if self.pod:
            parts.append(f"pod {self.pod}")
        if self.node:
            parts.append(f"node {self.node}")
        if self.plugin:
            parts.append(f"plugin {self.plugin}")
        return ", ".join(parts)

    def __str__(self) -> str:
        tag = f"[{self.mode}{', known: ' + self.known if self.known else ''}" \
              f"{', consequence' if self.consequence else ''}]"
        where = self.where()
        text = (f"{tag} {self.path}{' (' + where + ')' if where else ''}: "
                f"reference {show(self.reference)}, {self.other} {show(self.upstream)}")
        if self.user_plugin:
            point = self.point
            text += (f" [the {self.other}'s {self.user_plugin} replacing {self.plugin}"
                     f"{', at ' + point if point else ''}]")
        return text

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"mode": self.mode, "path": self.path, "field": self.field}
        for k in ("pod", "node", "plugin", "step"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        if self.user_plugin:
            d["userPlugin"] = self.user_plugin
        if self.point:
            d["point"] = self.point
        d["reference"] = None if self.reference is MISSING else self.reference
        d["upstream"] = None if self.upstream is MISSING else self.upstream
        if self.consequence:
            d["consequence"] = True
        if self.known:
            d["known"] = self.known
        return d


#: field pattern fragment → the extension point it shows (lockstep: Explanation fields)
_POINTS = (
    ("preFilter", "PreFilter"),
    ("nodes.*.filters.", "Filter"),
    ("nodes.*.filterOrder", "Filter (plugin order)"),
    ("nodes.*.scores.*.raw", "Score (raw score)"),
    ("nodes.*.scores.*.normalized", "NormalizeScore (normalized score)"),
    ("nodes.*.scores.*.weighted", "Score (weighted score)"),
    ("nodes.*.scores.*.weight", "Score (weight)"),
    ("nodes.*.scores.", "Score"),
)


def extension_point(field_pattern: str) -> str | None:
    """The extension point a divergence's field pattern belongs to (None: not one plugin's)."""
    for fragment, point in _POINTS:
        if fragment in field_pattern:
            return point
    return None


def name_replacements(divs: list[Divergence], renames: dict[str, str]) -> None:
    """Name the subject's own plugin beside the in-tree one it replaces (``renames``: the
    subject's plugin → the in-tree plugin) in divergences about that plugin."""
    user = {in_tree: mine for mine, in_tree in renames.items()}
    for d in divs:
        if d.plugin in user:
            d.user_plugin = user[d.plugin]


@dataclass(slots=True)
class TieBreak:
    """Both sides chose among the same tied options, differently (not a divergence)."""

    mode: str
    pod: str
    step: int
    reference: str | None
    upstream: str | None
    ties: list[str]
    what: str = "binding"  # "binding" or "preemption (...)"
    other: str = "upstream"  # what the other side is called in reports

    def __str__(self) -> str:
        return (f"[{self.mode}] {'attempt' if self.mode == WHOLE else 'step'} {self.step}, pod "
                f"{self.pod}: {self.what} tie among {', '.join(self.ties)}: reference chose "
                f"{self.reference}, {self.other} {self.upstream}")


def mark_consequences(divs: list[Divergence], layer: Callable[[Divergence], int]) -> None:
    """Of the divergences of one decision, those of the earliest ``layer`` are the roots; the
    others follow from them (``consequence``)."""
    if not divs:
        return
    first = min(layer(d) for d in divs)
    for d in divs:
        d.consequence = d.consequence or layer(d) > first


@dataclass(slots=True)
class ScenarioDiff:
    """Every comparison of one scenario."""

    name: str
    family: str
    divergences: list[Divergence] = field(default_factory=list)
    tie_breaks: list[TieBreak] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    modes: list[str] = field(default_factory=list)
    attempts: int = 0
    steps: int = 0
    later_attempts_differing: int = 0
    #: decisions mode: why the decisions were not compared exactly (empty: they were)
    hazards: list[str] = field(default_factory=list)
    decisions_compared: bool = False
    #: the input each side dropped (kinds it does not model), by subject name
    dropped: dict[str, dict[str, int]] = field(default_factory=dict)
    not_judged: str = ""  # why neither side's run can be judged (every pod ended in Error)
    #: why the scenario was skipped: a side cannot run it (ScenarioUnsupported); empty: it ran
    unsupported: str = ""

    @property
    def unexplained(self) -> list[Divergence]:
        return [d for d in self.divergences if not d.known]

    @property
    def known(self) -> list[Divergence]:
        return [d for d in self.divergences if d.known]

    def signatures(self) -> list[Sig]:
        """The kinds of unexplained root divergences, in order of appearance."""
        return list(dict.fromkeys(d.signature for d in self.unexplained if not d.consequence))
