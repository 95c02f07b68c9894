"""Differential testing: the reference scheduler against the real upstream kube-scheduler.

``kschedconf diff`` schedules the same scenarios on both sides and compares what they decide
(see ``docs/diff.md``):

* **whole** — each side runs the whole scenario (``simulate``: the scheduling queue over
  virtual time, the timeline if any). The scheduling attempts are compared in order (pod,
  outcome, node, per-node reasons, message, nominated node, victims, the tie set
  ``candidates``, the evaluated / feasible node counts, virtual time, attempt number, queue;
  upstream does not report the attempt's ``event``), the ``Gated`` records per pod, then the
  end state (bindings, pending, deleted, removed, finished, the applied timeline, end time).
  The comparison of attempts stops at the first one that differs: what follows is a
  consequence (counted, not listed one by one; end-state differences are listed, marked as
  consequences).
* **lockstep** — for each attempt of upstream's run (of the scenario without its timeline), in
  order, both sides ``explain`` the pod on the same cluster state: every PreFilter and Filter
  plugin's code and reasons on every node, the raw / normalized / weighted scores, totals, the
  highest-scored set, the verdict, and for an unschedulable pod DefaultPreemption's candidates,
  victims and choice. Upstream's actual outcomes are applied to the scenario documents of both
  sides (a bound pod gets ``spec.nodeName``; a preemption deletes the victims and sets the
  pod's ``status.nominatedNodeName``), so one difference cannot cascade into the next steps.

Within one decision, differences are *roots* or *consequences* (a filter verdict, then the
feasible set, the scores, the choice, preemption; see ``mark_consequences``); the roots name
the kinds of divergence.

**Ties.** A binding that differs only within the reported tie set (each side's node is among
the other side's highest-scored nodes) is a *tie-break difference*, reported separately and
never a divergence. With v1.37.2's deterministic host selection (a heap over the scored nodes)
the reference should break ties exactly as upstream, so their count is expected to be 0.
DefaultPreemption's random choices (a complete tie between candidates goes to Go map order;
victims without a start time read ``time.Now()``; more potential nodes than it dry-runs start
at a random offset) are tie-break differences too, recognized from upstream's notes and
explanation (``random_preemption_choice``). In whole mode the rest of that run is not compared.

**Known divergences** (``conformance/known_divergences.yaml``) are differences with a reason
(e.g. something the upstream subject does not model); a divergence that matches one is
reported as known and does not fail the run.

**Shrinking.** Generated scenarios come from the Hypothesis strategies (``strategies``); for
the kinds of unexplained divergence a scenario shows first, the run replays the same
Hypothesis search with a property that fails when one of them shows up and lets Hypothesis
shrink that scenario to a minimal one, written to ``OUT/diff-*.yaml`` with the command that
replays it (``kschedconf diff --replay FILE``).

Exit codes: 0 no unexplained divergence, 1 some, 2 usage or subject error.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import shlex
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import yaml

from conformance.core.errors import UsageError
from conformance.core.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from conformance.core.results import ERROR, FAILED, SKIPPED, CaseResult
from conformance.core.scenario import ScenarioInput, read_config_doc
from conformance.core.subject import ScenarioRejected, Subject, SubjectError
from conformance.engines.golden import default_golden_dir, golden_files, read_scenario_file
from conformance.reporters.junit import write_junit
from reference_impl.releases.pinned import UPSTREAM_RELEASE

WHOLE = "whole"
LOCKSTEP = "lockstep"
DECISIONS = "decisions"  # conformance/decisions.py: a real control plane
MODES = (WHOLE, LOCKSTEP)
ALL_MODES = (WHOLE, LOCKSTEP, DECISIONS)
MODE_CHOICES = ("auto", "lockstep", "whole", "both", "decisions")
FAMILIES = ("small", "medium", "large")
DEFAULT_OUT = "kschedconf-out"
DEFAULT_SHRINK_TIME = 120.0
KNOWN_KIND = "KnownDivergences"
SCENARIO_API_VERSION = "kschedconf/v1"

#: Attempt fields of a SimulationResult compared in whole mode (``event`` is not observable
#: upstream).
ATTEMPT_FIELDS = ("pod", "outcome", "node", "reasons", "message", "nominatedNode",
                  "candidates", "victims", "evaluatedNodes", "feasibleNodes", "time",
                  "attempt", "queue")
#: End-state fields compared in whole mode.
END_FIELDS = ("bindings", "pending", "deleted", "removed", "finished", "timeline", "endTime",
              "stoppedBy")

_MISSING = object()
#: A kind of divergence: (mode, field pattern, plugin or "").
Sig = tuple[str, str, str]


class Rejected(Exception):
    """A side refused the scenario (invalid input or configuration): not a crash; both sides
    refusing is agreement."""


# --- divergences -------------------------------------------------------------------------------

@dataclass(slots=True)
class Divergence:
    """One difference between the reference and upstream.

    ``path`` is concrete (``attempts[3].node``, ``nodes.n1.filters.NodeResourcesFit.reasons``);
    ``field`` is its pattern with pod names, node names and indexes replaced by ``*``
    (``attempts[*].node``, ``nodes.*.filters.*.reasons``); ``plugin``, ``pod`` and ``node``
    say where, when the path names them. ``step`` is the attempt index (whole mode) or the
    lockstep step. A ``consequence`` follows from an earlier divergence of the same run.
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

    @property
    def signature(self) -> tuple[str, str, str]:
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
        return (f"{tag} {self.path}{' (' + where + ')' if where else ''}: "
                f"reference {_show(self.reference)}, upstream {_show(self.upstream)}")

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"mode": self.mode, "path": self.path, "field": self.field}
        for k in ("pod", "node", "plugin", "step"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        d["reference"] = None if self.reference is _MISSING else self.reference
        d["upstream"] = None if self.upstream is _MISSING else self.upstream
        if self.consequence:
            d["consequence"] = True
        if self.known:
            d["known"] = self.known
        return d


@dataclass(slots=True)
class TieBreak:
    """Both sides chose among the same tied options, differently (not a divergence)."""

    mode: str
    pod: str
    step: int
    reference: str | None
    upstream: str | None
    ties: list[str]
    what: str = "binding"  # "binding" or "preemption"

    def __str__(self) -> str:
        return (f"[{self.mode}] {'attempt' if self.mode == WHOLE else 'step'} {self.step}, pod "
                f"{self.pod}: {self.what} tie among {', '.join(self.ties)}: reference chose "
                f"{self.reference}, upstream {self.upstream}")


def _show(v: Any, limit: int = 300) -> str:
    if v is _MISSING:
        return "(absent)"
    s = json.dumps(v, sort_keys=True, default=str)
    return s if len(s) <= limit else s[:limit - 3] + "..."


# --- known divergences -------------------------------------------------------------------------

@dataclass(slots=True)
class KnownDivergence:
    """An entry of ``known_divergences.yaml``: a reason and a matcher. Every given matcher
    key must match: ``mode``; ``field`` (a glob, or a list of globs, on the divergence's field
    pattern, e.g. ``nodes.*.filters.*.reasons``); ``plugin``, ``pod``, ``node`` (globs);
    ``reference`` / ``upstream`` (regular expressions searched in the JSON of each side's
    value); ``scenario`` (``{kind: K, has: FIELDS, lacks: FIELDS, values: {FIELD: REGEX},
    text: REGEX}``, or a list of them: the scenario has such an object, see
    ``scenario_matches``);
    ``referenceOutcome`` / ``upstreamOutcome`` (globs on the outcomes of the two attempts a
    whole-mode divergence is about; ``!`` before a glob negates it)."""

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
        if self.reference is not None and not self.reference.search(_show(d.reference, 10**6)):
            return False
        return self.upstream is None or bool(self.upstream.search(_show(d.upstream, 10**6)))


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
    field of ``has``, none of ``lacks`` (each a field or a list of fields), whose fields
    named in ``values`` match those regular expressions (searched in the value as text) and
    whose JSON matches the regular expression ``text``. A list of conditions matches when one
    does."""
    if not isinstance(cond, Mapping):
        return any(scenario_matches(c, scenario) for c in cond)
    kind = cond.get("kind")
    for d in _flatten(scenario.documents):
        if kind and d.get("kind") != kind:
            continue
        has, lacks = _names(cond.get("has")), _names(cond.get("lacks"))
        if not all(_get(d, f.split(".")) is not _MISSING for f in has) or \
                not all(_get(d, f.split(".")) is _MISSING for f in lacks):
            continue
        values = cond.get("values") or {}
        if not all((v := _get(d, str(f).split("."))) is not _MISSING
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
    return Path(__file__).resolve().parent / "known_divergences.yaml"


def load_known(path: str | Path | None = None) -> list[KnownDivergence]:
    """The known divergences of a file (default ``conformance/known_divergences.yaml``; a
    missing default file means none)."""
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
    out: list[KnownDivergence] = []
    for i, it in enumerate(items):
        where = f"{p}: divergences[{i}]"
        if not isinstance(it, dict) or not it.get("id") or not it.get("reason"):
            raise UsageError(f"{where}: needs an `id` and a `reason`")
        m = it.get("match") or {}
        if not isinstance(m, dict) or not m:
            raise UsageError(f"{where}: needs a non-empty `match`")
        unknown = set(m) - {"mode", "field", "plugin", "pod", "node", "reference", "upstream",
                            "scenario", "referenceOutcome", "upstreamOutcome"}
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
        out.append(KnownDivergence(str(it["id"]), str(it["reason"]).strip(), m.get("mode"),
                                   fields, m.get("plugin"), m.get("pod"), m.get("node"),
                                   ref_re, up_re, cond, m.get("referenceOutcome"),
                                   m.get("upstreamOutcome")))
    return out


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


# --- the two sides -----------------------------------------------------------------------------

class Side:
    """One side of the comparison: schedules a scenario (``simulate``) and explains a pod."""

    name = "side"
    can_explain = True

    def simulate(self, scenario: ScenarioInput) -> tuple[dict[str, Any], list[str]]:
        """The SimulationResult and notes; raises :class:`Rejected` for invalid input."""
        raise NotImplementedError

    def explain(self, scenario: ScenarioInput, pod: str) -> dict[str, Any]:
        """The Explanation document of a pending pod; raises :class:`Rejected`."""
        raise NotImplementedError

    def describe(self) -> dict[str, str]:
        return {"subject": self.name}

    def close(self) -> None:  # noqa: B027 - optional hook
        pass


class SubjectSide(Side):
    """Any :class:`Subject` as the "upstream" side. ``explain`` (lockstep mode) needs a
    subject with an ``explain(scenario, pod)`` method, as the upstream subject has; notes
    come from a ``simulate(scenario, notes=True)`` method when there is one."""

    def __init__(self, subject: Subject) -> None:
        self.subject = subject
        self.name = subject.name
        self.can_explain = subject.can_explain
        self.last_warnings: list[str] = []

    def simulate(self, scenario: ScenarioInput) -> tuple[dict[str, Any], list[str]]:
        try:
            res = self.subject.run(scenario)
        except ScenarioRejected as e:
            raise Rejected(str(e)) from e
        self.last_warnings = list(res.warnings)
        return res.result, list(res.notes)

    def explain(self, scenario: ScenarioInput, pod: str) -> dict[str, Any]:
        try:
            return self.subject.explain(scenario, pod)
        except ScenarioRejected as e:
            raise Rejected(str(e)) from e

    def describe(self) -> dict[str, str]:
        return self.subject.describe()

    def close(self) -> None:
        self.subject.close()


def ReferenceSide(config_path: str | None = None,  # noqa: N802 - stands for the old class
                  plugins: Sequence[str] = ()) -> SubjectSide:
    """The reference scheduler, in process, as a side."""
    from conformance.subjects.reference import ReferenceSubject

    return SubjectSide(ReferenceSubject(config_path, plugins))


# --- deepdiff ----------------------------------------------------------------------------------

def _get(doc: Any, path: Sequence[Any]) -> Any:
    cur = doc
    for k in path:
        if isinstance(cur, dict) and k in cur:
            cur = cur[k]
        elif isinstance(cur, list) and isinstance(k, int) and 0 <= k < len(cur):
            cur = cur[k]
        else:
            return _MISSING
    return cur


def deep_differences(ref: Any, up: Any) -> list[tuple[list[Any], Any, Any]]:
    """Every differing leaf field of two normalized documents, found with deepdiff: (key
    path, reference value, upstream value). A path stops at a list (a list of reasons or
    victims is one value), so each field is reported once, whole. Equal sub-documents are
    skipped before deepdiff sees them (deepdiff is slow on large equal trees)."""
    out: list[tuple[list[Any], Any, Any]] = []
    _differences([], ref, up, out)
    out.sort(key=lambda t: [str(x) for x in t[0]])
    return out


def _differences(prefix: list[Any], ref: Any, up: Any,
                 out: list[tuple[list[Any], Any, Any]]) -> None:
    if _same(ref, up):
        return
    if isinstance(ref, dict) and isinstance(up, dict) and (len(ref) > 8 or len(up) > 8):
        # a big map (nodes, bindings...): descend to the entries that differ
        for k in list(ref) + [k for k in up if k not in ref]:
            rv, uv = ref.get(k, _MISSING), up.get(k, _MISSING)
            if rv is _MISSING or uv is _MISSING:
                out.append((prefix + [k], rv, uv))
            else:
                _differences(prefix + [k], rv, uv, out)
        return
    from deepdiff import DeepDiff

    dd = DeepDiff(ref, up, view="tree", ignore_numeric_type_changes=True)
    seen: set[tuple[Any, ...]] = set()
    for levels in dd.tree.values():
        for level in levels:
            path = list(level.path(output_format="list"))
            for i in range(len(path)):  # cut at the first list: lists are compared whole
                if isinstance(_get(ref, path[:i]), list) or isinstance(_get(up, path[:i]), list):
                    path = path[:i]
                    break
            key = tuple(path)
            if key not in seen:
                seen.add(key)
                out.append((prefix + path, _get(ref, path), _get(up, path)))


def _same(a: Any, b: Any) -> bool:
    """Equal, without 1 == True; 0 and 0.0 are the same number."""
    if a is b:
        return True
    if _num(a) and _num(b):
        return bool(a == b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _join(path: Sequence[Any]) -> str:
    out = ""
    for k in path:
        out += f"[{k}]" if isinstance(k, int) else (("." if out else "") + str(k))
    return out


# --- whole runs --------------------------------------------------------------------------------

def _norm_attempt(a: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in ATTEMPT_FIELDS:
        v = a.get(k)
        if k in ("candidates", "victims"):
            v = sorted(v or [])
        elif k == "reasons":
            v = dict(v or {})
        out[k] = v
    return out


def _norm_end(doc: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in END_FIELDS:
        v = doc.get(k)
        if k in ("pending", "deleted", "removed", "finished"):
            v = sorted(v or [])
        elif k == "bindings":
            v = dict(v or {})
        elif k == "timeline":
            v = list(v or [])
        out[k] = v
    return out


_PREEMPTION_RANDOM = re.compile(r"^preemption for (?P<pod>\S+): .*(random)")


def random_preemptions(notes: Iterable[str]) -> set[str]:
    """The pods whose preemption choice upstream made at random (from its notes)."""
    out = set()
    for n in notes:
        m = _PREEMPTION_RANDOM.match(n)
        if m:
            out.add(m.group("pod"))
    return out


@dataclass(slots=True)
class WholeComparison:
    divergences: list[Divergence] = field(default_factory=list)
    tie_breaks: list[TieBreak] = field(default_factory=list)
    attempts: int = 0
    later_attempts_differing: int = 0
    stopped_at: int | None = None  # the attempt where a tie-break ended the comparison


def compare_whole(ref: Mapping[str, Any], up: Mapping[str, Any],
                  notes: Iterable[str] = (),
                  preemption_ties: Callable[[int], set[str] | None] | None = None
                  ) -> WholeComparison:
    """Compare two SimulationResults (see the module docstring). The scheduling attempts are
    compared in order; the ``Gated`` records (PreEnqueue verdicts, not attempts) per pod, as
    the list of their messages (``gated.<pod>``). ``preemption_ties(i)``: the nodes among
    which upstream's preemption at its attempt ``i`` chose at random (None: not known), asked
    when the two sides nominate different nodes. Paths name upstream's attempt index."""
    out = WholeComparison()
    random_pods = random_preemptions(notes)
    ra = [(i, _norm_attempt(a)) for i, a in enumerate(ref.get("attempts", []))
          if a.get("outcome") != "Gated"]
    ua = [(i, _norm_attempt(a)) for i, a in enumerate(up.get("attempts", []))
          if a.get("outcome") != "Gated"]
    out.attempts = max(len(ra), len(ua))
    root_at: int | None = None
    for k in range(out.attempts):
        ri, r = ra[k] if k < len(ra) else (None, None)
        ui, u = ua[k] if k < len(ua) else (None, None)
        i = ui if ui is not None else ri
        if r is None or u is None or r["pod"] != u["pod"]:
            pod = (u or r or {}).get("pod")
            out.divergences.append(Divergence(
                WHOLE, f"attempts[{i}]", "attempts[*]",
                _attempt_summary(r), _attempt_summary(u), pod=pod, step=i,
                outcomes=((r or {}).get("outcome"), (u or {}).get("outcome"))))
            root_at = k
            break
        assert ui is not None
        pod = r["pod"]
        skip: set[str] = set()
        ties = None
        if (r["outcome"] == u["outcome"] == "Nominated" and pod not in random_pods
                and r["nominatedNode"] != u["nominatedNode"] and preemption_ties is not None):
            ties = preemption_ties(ui)
        tie = _whole_tie(r, u, pod, random_pods, ties)
        if tie is not None:
            tb, skip = tie
            tb.step = ui
            out.tie_breaks.append(tb)
        for path, rv, uv in deep_differences({k: v for k, v in r.items() if k not in skip},
                                             {k: v for k, v in u.items() if k not in skip}):
            node = path[1] if len(path) > 1 and path[0] == "reasons" else (
                u.get("node") or r.get("node") if path[0] == "node" else None)
            out.divergences.append(Divergence(
                WHOLE, f"attempts[{ui}]." + _join(path), "attempts[*]." + _field(path),
                rv, uv, pod=pod, node=node if isinstance(node, str) else None, step=ui,
                outcomes=(r.get("outcome"), u.get("outcome"))))
        mark_consequences(out.divergences, _attempt_layer)
        if tie is not None:
            out.stopped_at = ui
            return out
        if out.divergences:
            root_at = k
            break
    if root_at is not None:
        for j in range(root_at + 1, out.attempts):
            r = ra[j][1] if j < len(ra) else None
            u = ua[j][1] if j < len(ua) else None
            if r != u:
                out.later_attempts_differing += 1
    consequence = bool(out.divergences)
    for path, rv, uv in deep_differences(_gated(ref), _gated(up)):
        out.divergences.append(Divergence(WHOLE, _join(["gated", *path]),
                                          _field(["gated", *path]), rv, uv,
                                          pod=str(path[0]) if path else None,
                                          outcomes=("Gated", "Gated")))
    for path, rv, uv in deep_differences(_norm_end(ref), _norm_end(up)):
        pod = path[1] if len(path) > 1 and path[0] == "bindings" else None
        if path and path[0] in ("pending", "deleted", "removed", "finished"):
            diff = sorted(set(rv if isinstance(rv, list) else []) ^
                          set(uv if isinstance(uv, list) else []))
            pod = diff[0] if len(diff) == 1 else None
        out.divergences.append(Divergence(
            WHOLE, _join(path), _field(path), rv, uv, pod=pod, consequence=consequence,
            node=uv if path[0] == "bindings" and isinstance(uv, str) else None))
    return out


def _gated(doc: Mapping[str, Any]) -> dict[str, list[str]]:
    """The Gated records of a SimulationResult: pod -> the messages, in order."""
    out: dict[str, list[str]] = {}
    for a in doc.get("attempts", []):
        if a.get("outcome") == "Gated":
            out.setdefault(a["pod"], []).append(a.get("message", ""))
    return out


def _attempt_summary(a: Mapping[str, Any] | None) -> Any:
    if a is None:
        return _MISSING
    return {k: a[k] for k in ("pod", "outcome", "node", "nominatedNode") if a.get(k) is not None}


def _whole_tie(r: Mapping[str, Any], u: Mapping[str, Any], pod: str,
               random_pods: set[str], ties: set[str] | None = None
               ) -> tuple[TieBreak, set[str]] | None:
    if (r["outcome"] == u["outcome"] == "Bound" and r["node"] != u["node"]
            and u["node"] in r["candidates"] and r["node"] in u["candidates"]):
        return (TieBreak(WHOLE, pod, 0, r["node"], u["node"], sorted(u["candidates"])),
                {"node"})
    if r["outcome"] == u["outcome"] == "Nominated" and (
            r["nominatedNode"] != u["nominatedNode"] or r["victims"] != u["victims"]):
        if pod in random_pods:
            return (TieBreak(WHOLE, pod, 0, r["nominatedNode"], u["nominatedNode"],
                             sorted({r["nominatedNode"] or "", u["nominatedNode"] or ""}),
                             "preemption (upstream chose at random: its notes say so)"),
                    {"nominatedNode", "victims", "message"})
        if ties and r["nominatedNode"] in ties and u["nominatedNode"] in ties:
            return (TieBreak(WHOLE, pod, 0, r["nominatedNode"], u["nominatedNode"],
                             sorted(ties), "preemption (a tie upstream breaks at random)"),
                    {"nominatedNode", "victims", "message"})
    return None


def random_preemption_choice(candidates: Mapping[str, Sequence[str]],
                             pdb_violations: Mapping[str, int],
                             pods: Mapping[str, Any]) -> set[str]:
    """The candidate nodes among which upstream's ``pickOneNodeForPreemption``
    (``pkg/scheduler/framework/preemption/preemption.go``) picks at random: the nodes still
    tied after fewest PDB violations, lowest highest victim priority, lowest priority sum and
    fewest victims, when the last criterion (the latest earliest start time of the highest
    priority victims, ``util.GetEarliestPodStartTime``) cannot tell them apart for sure.
    ``GetPodStartTime`` reads ``time.Now()`` for a victim without ``status.startTime``, so two
    nodes whose earliest start is "now" are ordered by when the clock was read, i.e. by the
    iteration order of a Go map; a remaining exact tie goes to the first node of that map
    order. ``pods``: victim key -> a pod of the model (``priority``, ``start_time``); victims
    in order of decreasing importance, as candidates list them."""
    nodes = sorted(candidates)
    if len(nodes) < 2 or any(not candidates[n] or any(v not in pods for v in candidates[n])
                             for n in nodes):
        return set()
    max32 = 2**31

    def prio(v: str) -> int:
        return int(pods[v].priority)

    def by_criteria(n: str) -> tuple[int, int, int, int]:
        vs = candidates[n]
        return (-pdb_violations.get(n, 0), -max(prio(v) for v in vs),
                -sum(prio(v) + max32 for v in vs), -len(vs))

    best = max(by_criteria(n) for n in nodes)
    tied = [n for n in nodes if by_criteria(n) == best]
    if len(tied) < 2:
        return set()

    def earliest(n: str) -> float:  # inf: "now"
        vs = candidates[n]
        top = max(prio(v) for v in vs)
        times = [pods[v].start_time for v in vs if prio(v) == top]
        return min(float("inf") if t is None else float(t) for t in times)

    latest = max(earliest(n) for n in tied)
    last = [n for n in tied if earliest(n) == latest]
    return set(last) if len(last) > 1 else set()


def _field(path: Sequence[Any]) -> str:
    """The pattern of a normalized path: names of pods/nodes and list indexes become ``*``
    (plugin names are kept out of the pattern: they are the ``plugin`` of a divergence)."""
    out: list[Any] = []
    prev = None
    for k in path:
        if isinstance(k, int):
            out.append(0)
            prev = k
            continue
        if prev in ("bindings", "reasons", "nodes", "filters", "scores", "preFilter",
                    "notCandidates", "gated") or (prev == "candidates"
                                                  and out[:1] == ["preemption"]):
            out.append("*")
        else:
            out.append(k)
        prev = k
    return _join(out).replace("[0]", "[*]")


# --- lockstep ----------------------------------------------------------------------------------

def _by_name(items: Iterable[Mapping[str, Any]], key: str = "plugin") -> dict[str, Any]:
    return {str(it.get(key)): {k: v for k, v in it.items() if k != key} for it in items}


def normalize_explanation(doc: Mapping[str, Any]) -> dict[str, Any]:
    """An Explanation keyed by node and plugin names (so deepdiff paths name them); the
    highest-scored set, preemption candidates and victims as sets."""
    nodes = {}
    for n in doc.get("nodes", []):
        nodes[n["name"]] = {
            "feasible": n.get("feasible"),
            "examined": n.get("examined", False),
            "filterOrder": [f["plugin"] for f in n.get("filters", [])],
            "filters": _by_name(n.get("filters", [])),
            "scores": _by_name(n.get("scores", [])),
            "total": n.get("total"),
        }
    out: dict[str, Any] = {
        "preFilterOrder": [v["plugin"] for v in doc.get("preFilter", [])],
        "preFilter": _by_name(doc.get("preFilter", [])),
        "nodeOrder": [n["name"] for n in doc.get("nodes", [])],
        "nodes": nodes,
        "candidates": sorted(doc.get("candidates") or []),
        "selected": doc.get("selected"),
        "shortcut": doc.get("shortcut"),
        "evaluatedNodes": doc.get("evaluatedNodes"),
        "feasibleNodes": doc.get("feasibleNodes"),
        "message": doc.get("message", ""),
    }
    pre = doc.get("preemption")
    if pre is None:
        out["preemption"] = None
    else:
        out["preemption"] = {
            "eligible": pre.get("eligible"),
            "message": pre.get("message", ""),
            "candidates": {c["node"]: {"victims": sorted(c.get("victims") or []),
                                       "pdbViolations": c.get("pdbViolations")}
                           for c in pre.get("candidates") or []},
            "selected": pre.get("selected"),
            "victims": sorted(pre.get("victims") or []),
            "notCandidates": dict(pre.get("notCandidates") or {}),
        }
    return out


_TIE_MESSAGE = re.compile(r"\(nodes (?P<nodes>[^)]*) tie on every criterion")


NOT_EXAMINED = "not examined: enough candidates were found first"


def compare_explanations(ref: Mapping[str, Any], up: Mapping[str, Any], pod: str,
                         step: int, pods: Callable[[], Mapping[str, Any]] | None = None,
                         notes: list[str] | None = None
                         ) -> tuple[list[Divergence], list[TieBreak]]:
    """Compare two Explanations of the same pod on the same cluster. ``pods()``: the model's
    pods of that cluster by key (priorities and start times, to tell a preemption tie
    upstream breaks at random), asked only when the preemption choices differ."""
    r, u = normalize_explanation(ref), normalize_explanation(up)
    ties: list[TieBreak] = []
    if (r["selected"] != u["selected"] and r["selected"] in u["candidates"]
            and u["selected"] in r["candidates"]):
        ties.append(TieBreak(LOCKSTEP, pod, step, r["selected"], u["selected"],
                             u["candidates"]))
        r["selected"] = u["selected"]
    rp, upr = r["preemption"], u["preemption"]
    if rp and upr and any(NOT_EXAMINED in v for side in (rp, upr)
                          for v in side["notCandidates"].values()):
        # More potential nodes than DefaultPreemption dry-runs: which ones it examines depends
        # on the dry run's offset (upstream's explain: 0; the reference: its seeded random
        # offset; upstream's scheduling: rand.Int31n), so only eligibility is compared.
        for k in ("candidates", "notCandidates", "selected", "victims", "message"):
            rp[k] = upr[k]
        if notes is not None:
            notes.append(f"lockstep: step {step}: {pod}: preemption candidates depend on the "
                         f"dry run's random offset; not compared")
    if rp and upr and rp["selected"] != upr["selected"]:
        m = _TIE_MESSAGE.search(upr["message"] or "")
        tied = set(m.group("nodes").split(", ")) if m else set()
        if not (rp["selected"] in tied and upr["selected"] in tied) and pods is not None \
                and rp["candidates"] == upr["candidates"]:
            cands = (up.get("preemption") or {}).get("candidates") or []
            tied = random_preemption_choice(
                {c["node"]: list(c.get("victims") or []) for c in cands},
                {c["node"]: int(c.get("pdbViolations") or 0) for c in cands}, pods())
        if rp["selected"] in tied and upr["selected"] in tied:
            ties.append(TieBreak(LOCKSTEP, pod, step, rp["selected"], upr["selected"],
                                 sorted(tied), "preemption (a tie upstream breaks at random)"))
            for k in ("selected", "victims", "message"):
                rp[k] = upr[k]
    out = []
    for path, rv, uv in deep_differences(r, u):
        node = plugin = None
        if path[0] == "nodes" and len(path) > 1:
            node = path[1]
            if len(path) > 3 and path[2] in ("filters", "scores"):
                plugin = path[3]
        elif path[0] == "preFilter" and len(path) > 1:
            plugin = path[1]
        elif path[0] == "preemption" and len(path) > 2 and path[1] in ("candidates",
                                                                       "notCandidates"):
            node = path[2]
        if path[0] == "preemption":
            plugin = "DefaultPreemption"
        out.append(Divergence(LOCKSTEP, f"explain[{pod}]." + _join(path), _field(path), rv, uv,
                              pod=pod, node=node, plugin=plugin, step=step))
    mark_consequences(out, _explain_layer)
    return out, ties


def _explain_layer(d: Divergence) -> int:
    """Where an Explanation field sits in the chain of causes: filters, then the verdicts
    they make, scores, the choice, preemption's candidates, preemption's choice."""
    f = d.field
    if f.startswith("preemption"):
        if f.startswith(("preemption.selected", "preemption.victims", "preemption.message")):
            return 5
        return 4
    if f in ("candidates", "selected"):
        return 3
    if f.startswith("nodes.*.scores") or f == "nodes.*.total":
        return 2
    if f.startswith(("nodes.*.feasible", "nodes.*.examined")) or f in (
            "evaluatedNodes", "feasibleNodes", "shortcut", "message"):
        return 1
    return 0


def _attempt_layer(d: Divergence) -> int:
    """The same for an attempt of a SimulationResult (the message renders everything, so it
    comes last)."""
    last = d.field.rsplit(".", 1)[-1]
    return {"evaluatedNodes": 1, "feasibleNodes": 1, "candidates": 2, "outcome": 3, "node": 3,
            "nominatedNode": 4, "victims": 4, "message": 5}.get(last, 0)


def mark_consequences(divs: list[Divergence], layer: Callable[[Divergence], int]) -> None:
    """Of the divergences of one decision, those of the earliest layer are the roots; the
    others follow from them (``consequence``)."""
    if not divs:
        return
    first = min(layer(d) for d in divs)
    for d in divs:
        d.consequence = d.consequence or layer(d) > first


def _flatten(docs: Iterable[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for d in docs:
        if isinstance(d, dict) and isinstance(d.get("items"), list) and \
                str(d.get("kind", "")).endswith("List"):
            out += _flatten(d["items"])
        elif isinstance(d, dict):
            out.append(d)
    return out


def _pod_key(d: Mapping[str, Any]) -> str:
    meta = d.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def without_timeline(scenario: ScenarioInput) -> ScenarioInput:
    """The scenario without its ``kschedconf/v1`` Scenario document (the initial cluster)."""
    docs = [copy.deepcopy(d) for d in _flatten(scenario.documents)
            if d.get("apiVersion") != SCENARIO_API_VERSION]
    return ScenarioInput(docs, copy.deepcopy(scenario.config), scenario.seed, scenario.name,
                         list(scenario.notes))


def has_timeline(scenario: ScenarioInput) -> bool:
    return any(isinstance(d, dict) and d.get("apiVersion") == SCENARIO_API_VERSION
               for d in scenario.documents)


@dataclass(slots=True)
class LockstepComparison:
    divergences: list[Divergence] = field(default_factory=list)
    tie_breaks: list[TieBreak] = field(default_factory=list)
    steps: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Step:
    index: int  # the attempt of upstream's run
    pod: str
    attempt: Mapping[str, Any]
    scenario: ScenarioInput  # the cluster state the pod is explained in


def _states(scenario: ScenarioInput, attempts: Sequence[Mapping[str, Any]]
            ) -> Iterable[tuple[int, Mapping[str, Any], list[dict[str, Any]], int]]:
    """The cluster before each attempt of a run of ``scenario`` (its timeline left out):
    (attempt index, attempt, documents, version), the earlier outcomes applied (a bound pod
    gets ``spec.nodeName``; a preemption deletes the victims and sets the preemptor's
    ``status.nominatedNodeName``); the version counts the changes. Documents are copied on
    write: every yielded list stays as it was. Stops at a pod that is not in the documents."""
    base = without_timeline(scenario)
    docs = list(base.documents)
    where = {_pod_key(d): i for i, d in enumerate(docs) if d.get("kind") == "Pod"}
    version = 0
    for i, a in enumerate(attempts):
        pod = a["pod"]
        if pod not in where:
            return
        yield i, a, docs, version
        if a["outcome"] == "Bound" and a.get("node"):
            pdoc = copy.deepcopy(docs[where[pod]])
            pdoc.setdefault("spec", {})["nodeName"] = a["node"]
            if isinstance(pdoc.get("status"), dict):
                pdoc["status"].pop("nominatedNodeName", None)
            docs = list(docs)
            docs[where[pod]] = pdoc
            version += 1
        elif a["outcome"] == "Nominated" and a.get("nominatedNode"):
            pdoc = copy.deepcopy(docs[where[pod]])
            if not isinstance(pdoc.get("status"), dict):
                pdoc["status"] = {}
            pdoc["status"]["nominatedNodeName"] = a["nominatedNode"]
            docs = list(docs)
            docs[where[pod]] = pdoc
            victims = set(a.get("victims") or [])
            docs = [d for d in docs if not (d.get("kind") == "Pod" and _pod_key(d) in victims)]
            where = {_pod_key(d): j for j, d in enumerate(docs) if d.get("kind") == "Pod"}
            version += 1


def state_before(scenario: ScenarioInput, attempts: Sequence[Mapping[str, Any]],
                 index: int) -> ScenarioInput | None:
    """The cluster (without timeline) just before attempt ``index`` of a run."""
    for i, _, docs, _ in _states(scenario, attempts):
        if i == index:
            return ScenarioInput(docs, copy.deepcopy(scenario.config), scenario.seed,
                                 scenario.name)
    return None


def lockstep_states(scenario: ScenarioInput, up_run: Mapping[str, Any],
                    max_steps: int | None = None) -> tuple[list[_Step], list[str]]:
    """The lockstep steps: for every attempt of upstream's run (of ``scenario`` without
    timeline) the cluster state before it (see ``_states``). A pod is explained again only
    when the cluster changed since its last step."""
    steps: list[_Step] = []
    notes: list[str] = []
    last: dict[str, int] = {}
    attempts = up_run.get("attempts", [])
    done = -1
    for i, a, docs, version in _states(scenario, attempts):
        done = i
        pod = a["pod"]
        if last.get(pod) == version:
            continue
        if max_steps is not None and len(steps) >= max_steps:
            notes.append(f"lockstep: stopped after {max_steps} steps "
                         f"({len(attempts) - i} attempts not explained)")
            return steps, notes
        last[pod] = version
        steps.append(_Step(i, pod, a, ScenarioInput(docs, scenario.config, scenario.seed,
                                                    scenario.name)))
    if done + 1 < len(attempts):
        notes.append(f"lockstep: attempt {done + 1}: pod {attempts[done + 1]['pod']} is not "
                     f"in the scenario documents (not compared from there on)")
    return steps, notes


def lockstep(scenario: ScenarioInput, ref: Side, up: Side,
             up_run: Mapping[str, Any] | None = None, max_steps: int | None = None,
             executor: Executor | None = None, window: int = 8) -> LockstepComparison:
    """Explain every attempt of upstream's run on both sides, applying upstream's outcomes
    (see the module docstring). ``up_run``: upstream's SimulationResult of the scenario
    without timeline, if already known. Upstream's explanations are asked ``window`` at a
    time on the ``executor`` while the reference explains in this thread."""
    out = LockstepComparison()
    if has_timeline(scenario):
        out.notes.append("lockstep: the initial cluster only (the timeline is not applied)")
    if up_run is None:
        up_run, _ = up.simulate(without_timeline(scenario))
    steps, out.notes[len(out.notes):] = lockstep_states(scenario, up_run, max_steps)
    out.steps = len(steps)
    for w in range(0, len(steps), max(window, 1)):
        chunk = steps[w:w + window]
        futures = [executor.submit(_explain, up, st.scenario, st.pod) if executor else None
                   for st in chunk]
        for st, fut in zip(chunk, futures, strict=True):
            r = _explain(ref, st.scenario, st.pod, reference=True)
            u = fut.result() if fut is not None else _explain(up, st.scenario, st.pod)
            _lockstep_compare(r, u, st, out)
    return out


def _explain(side: Side, scenario: ScenarioInput, pod: str,
             reference: bool = False) -> dict[str, Any] | Exception:
    try:
        return side.explain(scenario, pod)
    except Rejected as e:
        return e
    except SubjectError:
        raise
    except Exception as e:  # noqa: BLE001 - a crash of the in-process reference
        if not reference:
            raise
        return e


def _lockstep_compare(r: dict[str, Any] | Exception, u: dict[str, Any] | Exception,
                      st: _Step, out: LockstepComparison) -> None:
    pod, i, attempt = st.pod, st.index, st.attempt
    if isinstance(r, Exception) or isinstance(u, Exception):
        if isinstance(r, Rejected) and isinstance(u, Rejected):
            return
        out.divergences.append(Divergence(
            LOCKSTEP, f"explain[{pod}]", "explain",
            _err_text(r) if isinstance(r, Exception) else "an explanation",
            _err_text(u) if isinstance(u, Exception) else "an explanation", pod=pod, step=i))
        return
    divs, ties = compare_explanations(r, u, pod, i, lambda: model_pods(st.scenario),
                                      out.notes)
    out.divergences += divs
    out.tie_breaks += ties
    # upstream's explain against upstream's own attempt (a check of the lockstep set-up)
    if attempt["outcome"] == "Bound" and u.get("selected") != attempt.get("node") \
            and attempt.get("node") not in (u.get("candidates") or []):
        out.notes.append(f"lockstep: step {i}: upstream's explain selects {u.get('selected')} "
                         f"for {pod}, its run bound it to {attempt.get('node')}")


def model_pods(scenario: ScenarioInput) -> dict[str, Any]:
    """The scenario's pods as the reference's loader reads them (admission applied), by
    key."""
    from reference_impl.model.loader import load_documents

    try:
        loaded = load_documents(scenario.documents, source=scenario.name)
    except Exception:  # noqa: BLE001 - a scenario the reference refuses: nothing to tell
        return {}
    return {p.key: p for p in loaded.cluster.pods}


def _err_text(e: BaseException) -> str:
    if isinstance(e, Rejected):
        return f"rejected: {e}"
    return f"raised {type(e).__name__}: {e}"


# --- one scenario ------------------------------------------------------------------------------

@dataclass(slots=True)
class ScenarioDiff:
    """Both modes on one scenario."""

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

    @property
    def unexplained(self) -> list[Divergence]:
        return [d for d in self.divergences if not d.known]

    @property
    def known(self) -> list[Divergence]:
        return [d for d in self.divergences if d.known]

    def signatures(self) -> list[tuple[str, str, str]]:
        """The kinds of unexplained root divergences, in order of appearance."""
        return list(dict.fromkeys(d.signature for d in self.unexplained if not d.consequence))


def diff_scenario(scenario: ScenarioInput, ref: Side, up: Side, modes: Sequence[str],
                  known: Sequence[KnownDivergence] = (), family: str = "",
                  max_steps: int | None = None,
                  executor: Executor | None = None) -> ScenarioDiff:
    """Compare the two sides on one scenario in the given modes. ``SubjectError`` (a crash
    or timeout of upstream) propagates. With an ``executor``, upstream's requests run on it
    while the reference works in this thread."""
    t0 = time.monotonic()
    out = ScenarioDiff(scenario.name, family, modes=list(modes))
    up_base_run: dict[str, Any] | None = None
    lock = LOCKSTEP in modes and up.can_explain
    base_future = None
    if lock and has_timeline(scenario) and executor is not None:
        base_future = executor.submit(_simulate, up, without_timeline(scenario))
    if WHOLE in modes:
        u_future = executor.submit(_simulate, up, scenario) if executor is not None else None
        r_doc, r_err = _simulate(ref, scenario, reference=True)
        u_doc, u_err = u_future.result() if u_future is not None else _simulate(up, scenario)
        if r_err or u_err:
            if not (r_err and u_err):
                out.divergences.append(Divergence(
                    WHOLE, "simulate", "simulate", r_err or "a SimulationResult",
                    u_err or "a SimulationResult"))
            elif not _is_rejection(r_err) or not _is_rejection(u_err):
                out.divergences.append(Divergence(WHOLE, "simulate", "simulate", r_err, u_err))
        else:
            assert r_doc is not None and u_doc is not None
            cmp = compare_whole(r_doc, u_doc, u_doc.get("_notes", []),
                                lambda i: _whole_preemption_ties(scenario, up, u_doc, i))
            out.divergences += cmp.divergences
            out.tie_breaks += cmp.tie_breaks
            out.attempts = cmp.attempts
            out.later_attempts_differing = cmp.later_attempts_differing
            if cmp.later_attempts_differing:
                out.notes.append(f"whole: {cmp.later_attempts_differing} later attempt(s) "
                                 f"differ too (consequences, not listed)")
            if cmp.stopped_at is not None:
                out.notes.append(f"whole: not compared after the tie-break at attempt "
                                 f"{cmp.stopped_at} (its consequences)")
            for n in u_doc.get("_notes", []):
                out.notes.append(f"upstream note: {n}")
            if not has_timeline(scenario):
                up_base_run = u_doc
    if DECISIONS in modes:
        from conformance.decisions import compare_scenario

        compare_scenario(scenario, ref, up, out, executor)
    if LOCKSTEP in modes and not up.can_explain:
        out.notes.append(f"lockstep: skipped ({up.name} cannot explain)")
    elif lock:
        err = ""
        if base_future is not None:
            up_base_run, err = base_future.result()
        elif up_base_run is None:
            up_base_run, err = _simulate(up, without_timeline(scenario))
        if err or up_base_run is None:
            out.notes.append(f"lockstep: skipped (upstream did not run the scenario: {err})")
        else:
            ls = lockstep(scenario, ref, up, up_base_run, max_steps, executor,
                          window=2 * getattr(executor, "_max_workers", 1))
            out.divergences += ls.divergences
            out.tie_breaks += ls.tie_breaks
            out.steps = ls.steps
            out.notes += ls.notes
    classify(out.divergences, known, scenario)
    out.seconds = time.monotonic() - t0
    return out


def _whole_preemption_ties(scenario: ScenarioInput, up: Side, u_doc: Mapping[str, Any],
                           i: int) -> set[str] | None:
    """Upstream's random preemption choices at attempt ``i`` of its whole run: its
    explanation of the pod on the cluster of that moment (known when no timeline event came
    before), judged by :func:`random_preemption_choice`."""
    attempts = u_doc.get("attempts", [])
    when = attempts[i].get("time") or 0
    if any((e.get("time") or 0) <= when for e in u_doc.get("timeline") or []) \
            or not up.can_explain:
        return None
    state = state_before(scenario, attempts, i)
    if state is None:
        return None
    try:
        e = up.explain(state, attempts[i]["pod"])
    except Rejected:
        return None
    cands = (e.get("preemption") or {}).get("candidates") or []
    return random_preemption_choice({c["node"]: list(c.get("victims") or []) for c in cands},
                                    {c["node"]: int(c.get("pdbViolations") or 0)
                                     for c in cands}, model_pods(state))


def _is_rejection(text: str) -> bool:
    return text.startswith("rejected:")


def _simulate(side: Side, scenario: ScenarioInput,
              reference: bool = False) -> tuple[dict[str, Any] | None, str]:
    try:
        doc, notes = side.simulate(scenario)
    except Rejected as e:
        return None, f"rejected: {e}"
    except SubjectError:
        raise
    except Exception as e:  # noqa: BLE001 - a crash of the in-process reference
        if not reference:
            raise
        return None, f"raised {type(e).__name__}: {e}"
    doc = dict(doc)
    doc["_notes"] = notes
    return doc, ""


# --- the run -----------------------------------------------------------------------------------

@dataclass(slots=True)
class DiffOptions:
    scenarios: int = 20
    sizes: Mapping[str, int] | Sequence[str] = ("small",)
    golden: bool = False
    golden_dir: str | None = None
    seed: int | None = None
    budget: float | None = None
    junit: str | None = None
    out: str = DEFAULT_OUT
    config: str | None = None
    mode: str = "auto"
    shrink: bool = True
    shrink_time: float = DEFAULT_SHRINK_TIME
    upstream: str = "upstream"
    known: str | None = None
    max_steps: int | None = None
    subject_timeout: float | None = None
    replay: str | None = None
    workers: int = 4
    pdb_status: str = "fill"  # "fill" or "as-is" (see fill_pdb_status)
    i_own_this_cluster: str | None = None  # --upstream kubeconfig:CONTEXT needs it


@dataclass(slots=True)
class Minimal:
    """The minimal scenario of some kinds of divergence (``signatures``: the kinds the first
    diverging scenario showed first)."""

    signatures: list[Sig]
    path: str
    shrunk: bool
    first_scenario: str
    divergences: list[Divergence]
    reproduce: str
    shrink_steps: int = 0
    note: str = ""


@dataclass(slots=True)
class DiffReport:
    results: list[ScenarioDiff] = field(default_factory=list)
    minimal: list[Minimal] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0
    compare_seconds: float = 0.0
    seed: int | None = None
    properties: dict[str, str] = field(default_factory=dict)

    @property
    def unexplained(self) -> int:
        return sum(len(r.unexplained) for r in self.results)

    @property
    def exit_code(self) -> int:
        if self.error:
            return EXIT_USAGE
        return EXIT_FAILED if self.unexplained else EXIT_OK


def resolve_modes(mode: str, up: Side | None = None) -> list[str]:
    """The comparisons of a ``--mode``: ``both`` is whole and lockstep; ``auto`` is
    ``decisions`` against a real control plane (a subject with ``real_control_plane``), else
    both."""
    if mode not in MODE_CHOICES:
        raise UsageError(f"--mode {mode!r}: expected one of {', '.join(MODE_CHOICES)}")
    if mode == "auto":
        subject = getattr(up, "subject", None)
        mode = DECISIONS if getattr(subject, "real_control_plane", False) else "both"
    return list(MODES) if mode == "both" else [mode]


def family_counts(total: int, sizes: Mapping[str, int] | Sequence[str]) -> dict[str, int]:
    """Scenarios per size: ``{"small": 60, ...}`` as given, or ``total`` split evenly over
    the listed sizes (the remainder to the first ones)."""
    if isinstance(sizes, Mapping):
        counts = {k: int(v) for k, v in sizes.items()}
    else:
        names = list(dict.fromkeys(sizes)) or ["small"]
        counts = {n: total // len(names) + (1 if i < total % len(names) else 0)
                  for i, n in enumerate(names)}
    for k, v in counts.items():
        if k not in FAMILIES:
            raise UsageError(f"unknown size {k!r} (known: {', '.join(FAMILIES)})")
        if v < 0:
            raise UsageError(f"--sizes {k}={v}: must not be negative")
    return counts


def parse_sizes(text: str) -> dict[str, int] | list[str]:
    """``small,medium`` (split --scenarios evenly) or ``small=100,medium=40,large=5``."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise UsageError("--sizes: expected a comma list of small, medium, large")
    if any("=" in p for p in parts):
        out: dict[str, int] = {}
        for p in parts:
            name, _, n = p.partition("=")
            try:
                out[name.strip()] = int(n)
            except ValueError:
                raise UsageError(f"--sizes {p!r}: expected NAME=COUNT") from None
        family_counts(0, out)
        return out
    family_counts(len(parts), parts)
    return parts


class _OutOfBudget(BaseException):
    """Time is up (a BaseException, so Hypothesis lets it through)."""


class _Diverged(AssertionError):
    """The shrink property's failure."""


def fingerprint(scenario: ScenarioInput) -> str:
    blob = json.dumps([scenario.documents, scenario.config, scenario.seed], sort_keys=True,
                      default=str)
    return hashlib.sha1(blob.encode()).hexdigest()


def _strategy(family: str) -> Any:
    from strategies.families import scenario_strategy

    return scenario_strategy(family)


def _hypothesis_test(family: str, n: int, seed: int, body: Callable[[ScenarioInput], None],
                     shrink: bool) -> Callable[[], None]:
    """The Hypothesis test that draws ``n`` scenarios of a family; the same arguments give the
    same scenarios in the same order (the shrink pass depends on it)."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hseed

    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]
    s = settings(max_examples=max(n, 1), deadline=None, database=None, derandomize=False,
                 suppress_health_check=list(HealthCheck), phases=phases,
                 report_multiple_bugs=False, print_blob=False, verbosity=Verbosity.quiet)

    def test(scenario: ScenarioInput) -> None:
        body(scenario)

    test._hypothesis_internal_add_digest = f"kschedconf-diff/{family}".encode()  # type: ignore
    t = given(_strategy(family))(test)
    t = s(t)
    return hseed(family_seed(seed, family))(t)


def family_seed(seed: int, family: str) -> int:
    import zlib

    return (seed * 1_000_003 + zlib.crc32(f"diff/{family}".encode())) % (1 << 63)


class Progress:
    """A live line on a terminal; a line per finished size otherwise."""

    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.total = total
        self.done = 0
        self.started = time.monotonic()
        self._last = 0.0

    def update(self, label: str, report: DiffReport, force: bool = False) -> None:
        if not self.tty:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.2:
            return
        self._last = now
        rate = self.done / max(now - self.started, 1e-9)
        unexplained = report.unexplained
        known = sum(len(r.known) for r in report.results)
        ties = sum(len(r.tie_breaks) for r in report.results)
        self.stream.write(f"\r\x1b[K  {label}  {self.done}/{self.total} scenarios  "
                          f"{rate:.2f}/s  divergences: {unexplained} unexplained, {known} known;"
                          f" tie-breaks {ties}")
        self.stream.flush()

    def line(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\x1b[K")
        self.stream.write(text + "\n")
        self.stream.flush()


class Differ:
    """One ``kschedconf diff`` run (use :func:`run_diff`)."""

    def __init__(self, opts: DiffOptions, ref: Side, up: Side, stream: TextIO) -> None:
        self.opts = opts
        self.ref = ref
        self.up = up
        self.stream = stream
        self.modes = resolve_modes(opts.mode, up)
        self.known = load_known(opts.known)
        self.config_doc = read_config_doc(opts.config) if opts.config else None
        self.report = DiffReport()
        self.deadline: float | None = None
        # fingerprint -> signatures of the unexplained divergences, per family (shrinking)
        self.seen: dict[str, dict[str, list[tuple[str, str, str]]]] = {}
        # kinds of divergence to shrink: the first scenario showing each kind, with the kinds
        # it showed first
        self.groups: list[tuple[str, ScenarioDiff, ScenarioInput, list[Sig]]] = []
        self.grouped: set[Sig] = set()
        self.compare_seconds = 0.0
        self.executor = ThreadPoolExecutor(max_workers=max(1, opts.workers),
                                           thread_name_prefix="kschedconf-diff")

    def prepare(self, scenario: ScenarioInput) -> ScenarioInput:
        """The scenario both sides get: with ``--config``, and PDB statuses filled in
        (``--pdb-status fill``)."""
        if self.config_doc is not None:
            scenario = ScenarioInput(list(scenario.documents), copy.deepcopy(self.config_doc),
                                     scenario.seed, scenario.name, list(scenario.notes))
        if self.opts.pdb_status == "fill":
            scenario = fill_pdb_status(scenario)
        return scenario

    def compare(self, scenario: ScenarioInput, family: str,
                modes: Sequence[str] | None = None) -> ScenarioDiff:
        t0 = time.monotonic()
        try:
            return diff_scenario(self.prepare(scenario), self.ref, self.up,
                                 modes or self.modes, self.known, family, self.opts.max_steps,
                                 self.executor)
        finally:
            self.compare_seconds += time.monotonic() - t0

    # ----- generated scenarios -----
    def generated(self, family: str, n: int, progress: Progress) -> None:
        if n <= 0:
            return
        seed = self.report.seed or 0
        index = [0]
        seen = self.seen.setdefault(family, {})

        def body(scenario: ScenarioInput) -> None:
            if self.deadline is not None and index[0] > 0 and time.monotonic() >= self.deadline:
                raise _OutOfBudget
            index[0] += 1
            fp = fingerprint(scenario)
            scenario = ScenarioInput(scenario.documents, scenario.config, scenario.seed,
                                     f"{family}-{index[0]:04d}")
            res = self.compare(scenario, family)
            self.report.results.append(res)
            seen[fp] = res.signatures()
            new = [sig for sig in res.signatures() if sig not in self.grouped]
            if new:
                self.grouped.update(new)
                self.groups.append((family, res, scenario, new))
            progress.done += 1
            progress.update(family, self.report)
            if res.unexplained:
                progress.line(f"  DIVERGED {res.name}: {res.unexplained[0]}"[:400])

        test = _hypothesis_test(family, n, seed, body, shrink=False)
        t0 = time.monotonic()
        before = len(self.report.results)
        stopped = ""
        try:
            test()
        except _OutOfBudget:
            stopped = " (budget)"
        count = len(self.report.results) - before
        secs = time.monotonic() - t0
        bad = sum(1 for r in self.report.results[before:] if r.unexplained)
        progress.line(f"  {family}: {count} scenarios in {secs:.1f}s "
                      f"({count / max(secs, 1e-9):.2f}/s), {bad} with unexplained "
                      f"divergences{stopped}")

    # ----- golden scenarios -----
    def golden(self, progress: Progress) -> None:

        directory = Path(self.opts.golden_dir) if self.opts.golden_dir else \
            default_golden_dir()
        files = golden_files(directory)
        t0 = time.monotonic()
        before = len(self.report.results)
        for path in files:
            if self.deadline is not None and time.monotonic() >= self.deadline and \
                    len(self.report.results) > before:
                progress.line("  golden: stopped by the budget")
                break
            scenario, _, _ = read_scenario_file(path)
            scenario = ScenarioInput(scenario.documents, scenario.config, scenario.seed,
                                     f"golden-{path.stem}")
            res = self.compare(scenario, "golden")
            self.report.results.append(res)
            progress.done += 1
            progress.update("golden", self.report)
            if res.unexplained:
                progress.line(f"  DIVERGED {res.name}: {res.unexplained[0]}"[:400])
                out = Path(self.opts.out) / f"diff-{res.name}.yaml"
                self._save(out, scenario, res, shrunk=False, kinds=res.signatures())
                self.report.minimal.append(Minimal(
                    res.signatures(), str(out), False, res.name,
                    [d for d in res.unexplained if not d.consequence], self.reproduce(out),
                    note="a golden scenario (not shrunk)"))
        count = len(self.report.results) - before
        secs = time.monotonic() - t0
        bad = sum(1 for r in self.report.results[before:] if r.unexplained)
        progress.line(f"  golden: {count} scenarios in {secs:.1f}s "
                      f"({count / max(secs, 1e-9):.2f}/s), {bad} with unexplained divergences")

    # ----- shrinking -----
    def shrink_all(self) -> None:
        for family, res, scenario, sigs in self.groups:
            self.report.minimal.append(self.shrink(sigs, family, res, scenario))

    def shrink(self, sigs: list[Sig], family: str, res: ScenarioDiff,
               scenario: ScenarioInput) -> Minimal:
        """Shrink the first scenario that showed these kinds of divergence: replay the
        Hypothesis search of its family with a property that fails when one of them shows up
        (scenarios the first pass saw pass at once), and let Hypothesis minimize it."""
        slug = _slug("-".join(x for x in sigs[0] if x))
        path = Path(self.opts.out) / f"diff-{slug}.yaml"
        roots = [d for d in res.unexplained if d.signature in sigs]
        if not self.opts.shrink:
            self._save(path, scenario, res, shrunk=False, kinds=sigs)
            return Minimal(sigs, str(path), False, res.name, roots, self.reproduce(path),
                           note="not shrunk (--no-shrink)")
        seen = self.seen.get(family, {})
        target = fingerprint(scenario)
        wanted = set(sigs)
        modes = [m for m in ALL_MODES if any(sig[0] == m for sig in sigs)]
        best: list[tuple[tuple[int, int], ScenarioInput, ScenarioDiff]] = []
        steps = [0]
        reached = [False]
        deadline = time.monotonic() + self.opts.shrink_time
        local: dict[str, bool] = {}

        def body(sc: ScenarioInput) -> None:
            fp = fingerprint(sc)
            if fp == target:  # the scenario of the first pass
                reached[0] = True
                raise _Diverged(res.name)
            if not reached[0] and fp in seen:  # replaying the first pass: it passed
                return
            if fp in local:
                if local[fp]:
                    raise _Diverged(res.name)
                return
            if time.monotonic() >= deadline:
                raise _OutOfBudget
            steps[0] += 1
            sc = ScenarioInput(sc.documents, sc.config, sc.seed, f"{res.name}-shrunk")
            try:
                r = self.compare(sc, family, modes)
            except SubjectError:
                local[fp] = False
                return
            local[fp] = bool(wanted & set(r.signatures()))
            if local[fp]:
                size = (len(sc.all_documents()), len(repr(sc.all_documents())))
                if not best or size <= best[0][0]:
                    best[:] = [(size, sc, r)]
                raise _Diverged(res.name)

        n = self._family_count(family)
        test = _hypothesis_test(family, n, self.report.seed or 0, body, shrink=True)
        note = ""
        try:
            test()
            note = "not shrunk: the replayed search did not reach the scenario"
        except _OutOfBudget:
            note = f"shrinking stopped after {self.opts.shrink_time:g}s (the smallest so far)"
        except _Diverged:
            pass
        except Exception as e:  # noqa: BLE001 - Hypothesis' Flaky and friends
            if not best:
                note = f"not shrunk: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
        if best:
            _, sc, r = best[0]
            sc = ScenarioInput(sc.documents, sc.config, sc.seed, path.stem)
            self._save(path, sc, r, shrunk=True, kinds=sigs, found_in=res.name)
            return Minimal(sigs, str(path), True, res.name,
                           [d for d in r.unexplained if d.signature in wanted],
                           self.reproduce(path), steps[0], note)
        self._save(path, scenario, res, shrunk=False, kinds=sigs)
        return Minimal(sigs, str(path), False, res.name, roots, self.reproduce(path),
                       steps[0], note or "not shrunk: no smaller scenario diverges")

    def _family_count(self, family: str) -> int:
        return family_counts(self.opts.scenarios, self.opts.sizes).get(family, 0)

    def reproduce(self, path: Path) -> str:
        parts = ["kschedconf", "diff", "--replay", shlex.quote(str(path))]
        if self.opts.mode != "auto":
            parts += ["--mode", self.opts.mode]
        if self.opts.config:
            parts += ["--config", shlex.quote(self.opts.config)]
        if self.opts.upstream != "upstream":
            parts += ["--upstream", shlex.quote(self.opts.upstream)]
        if self.opts.pdb_status != "fill":
            parts += ["--pdb-status", self.opts.pdb_status]
        return " ".join(parts)

    def _save(self, path: Path, scenario: ScenarioInput, res: ScenarioDiff, shrunk: bool,
              kinds: Sequence[Sig] = (), found_in: str = "") -> None:
        notes = [f"kschedconf diff: reference vs {self.up.name} ({UPSTREAM_RELEASE})",
                 f"found-in: {found_in or res.name}"
                 + (" (shrunk by Hypothesis)" if shrunk else ""),
                 f"seed-of-run: {self.report.seed}",
                 f"reproduce: {self.reproduce(path)}"]
        for k in kinds:
            notes.append(f"divergence-kind: mode={k[0]} field={k[1]}"
                         + (f" plugin={k[2]}" if k[2] else ""))
        for d in res.unexplained[:30]:
            notes.append(f"divergence: {d}")
        if len(res.unexplained) > 30:
            notes.append(f"... {len(res.unexplained) - 30} more")
        s = ScenarioInput(scenario.documents, scenario.config, scenario.seed, path.stem, notes)
        s.write(path)


def fill_pdb_status(scenario: ScenarioInput) -> ScenarioInput:
    """The scenario with ``status.disruptionsAllowed`` on every PodDisruptionBudget that has
    none, as the disruption controller would compute it for the initial cluster (the
    reference's restatement, ``reference_impl/framework/preemption/disruption.py``).

    kube-scheduler reads the status only; the upstream subject has no disruption controller
    (a PDB without status allows no disruption there), while the reference computes a missing
    status. Filling it in gives both sides the same explicit status, so their preemption
    decisions about PDBs can be compared (``--pdb-status as-is`` leaves the scenario alone:
    the difference is then the known divergence ``pdb-status-not-computed-upstream``)."""
    docs = _flatten(scenario.documents)
    missing = [i for i, d in enumerate(docs) if d.get("kind") == "PodDisruptionBudget"
               and not isinstance((d.get("status") or {}).get("disruptionsAllowed"), int)]
    if not missing:
        return scenario
    from reference_impl.framework.preemption.disruption import resolve_pdbs
    from reference_impl.model.loader import load_documents

    base = without_timeline(scenario)
    try:
        cluster = load_documents(base.documents, source=scenario.name).cluster
    except Exception:  # noqa: BLE001 - an invalid scenario: let the sides reject it
        return scenario
    allowed = {(p.namespace, p.name): p.disruptions_allowed
               for p in resolve_pdbs(cluster.pdbs, cluster.pods)}
    out = list(docs)
    for i in missing:
        d = copy.deepcopy(docs[i])
        meta = d.get("metadata") or {}
        key = (meta.get("namespace") or "default", meta.get("name"))
        if key not in allowed:
            continue
        status = d.get("status") if isinstance(d.get("status"), dict) else {}
        d["status"] = {**status, "disruptionsAllowed": allowed[key]}
        out[i] = d
    return ScenarioInput(out, scenario.config, scenario.seed, scenario.name,
                         list(scenario.notes))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:80] or "divergence"


def make_sides(opts: DiffOptions, upstream: Subject | Side | None = None,
               reference: Side | None = None) -> tuple[Side, Side]:
    """The reference side and the upstream side (``--upstream SPEC``: ``upstream`` by default;
    any subject spec works for whole mode)."""
    from conformance.subjects.factory import make_subject

    ref = reference or ReferenceSide()
    if isinstance(upstream, Side):
        return ref, upstream
    if upstream is None:
        upstream = make_subject(opts.upstream, timeout=opts.subject_timeout,
                                i_own_this_cluster=opts.i_own_this_cluster)
        if hasattr(upstream, "workers"):
            upstream.workers = max(1, opts.workers)  # type: ignore[attr-defined]
    return ref, SubjectSide(upstream)


def run_diff(opts: DiffOptions, stream: TextIO | None = None,
             upstream: Subject | Side | None = None,
             reference: Side | None = None) -> DiffReport:
    """Run ``kschedconf diff`` (see the module docstring). Never raises for divergences or
    subject errors (they are in the report); ``UsageError`` for bad options."""
    stream = stream or sys.stdout
    resolve_modes(opts.mode)
    counts = family_counts(opts.scenarios, opts.sizes)
    if opts.budget is not None and opts.budget <= 0:
        raise UsageError("--budget must be positive")
    report = DiffReport()
    t0 = time.monotonic()
    try:
        ref, up = make_sides(opts, upstream, reference)
    except SubjectError as e:
        report.error = str(e)
        stream.write(f"subject error: {e}\n")
        _write_junit(opts, report)
        return report
    differ = Differ(opts, ref, up, stream)
    differ.report = report
    if opts.seed is None:
        import random

        report.seed = random.SystemRandom().randrange(1 << 31)
    else:
        report.seed = opts.seed
    if opts.budget is not None:
        differ.deadline = t0 + opts.budget
    report.properties = _header(opts, ref, up, report.seed)
    total = sum(counts.values())
    if opts.golden:

        d = Path(opts.golden_dir) if opts.golden_dir else default_golden_dir()
        total += len(golden_files(d))
    stream.write(f"kschedconf diff: reference vs {up.name} ({_describe(up)}); upstream "
                 f"{UPSTREAM_RELEASE}; modes {', '.join(differ.modes)}; seed {report.seed}; "
                 f"{', '.join(f'{n} {k}' for k, n in counts.items() if n)}"
                 + (" + golden" if opts.golden else "") + "\n")
    progress = Progress(stream, total)
    try:
        for family, n in counts.items():
            differ.generated(family, n, progress)
        if opts.golden:
            differ.golden(progress)
        if differ.groups:
            kinds = sum(len(g[3]) for g in differ.groups)
            stream.write(f"shrinking {len(differ.groups)} scenario(s) showing {kinds} kind(s) "
                         f"of divergence (at most {opts.shrink_time:g}s each)...\n")
            differ.shrink_all()
    except SubjectError as e:
        report.error = str(e)
    finally:
        differ.executor.shutdown(wait=True)
        ref.close()
        up.close()
        report.seconds = time.monotonic() - t0
        report.compare_seconds = differ.compare_seconds
        _write_junit(opts, report)
    summary(report, opts, stream)
    return report


def _describe(side: Side) -> str:
    d = dict(side.describe())
    d.pop("subject", None)
    d.pop("binary", None)
    return ", ".join(f"{k}={v}" for k, v in d.items())


def _header(opts: DiffOptions, ref: Side, up: Side, seed: int | None) -> dict[str, str]:
    props = {"kschedconf.command": "diff", "upstream.release": UPSTREAM_RELEASE,
             "seed": str(seed), "mode": opts.mode, "upstream.spec": opts.upstream,
             "pdb_status": opts.pdb_status}
    for k, v in up.describe().items():
        props[f"upstream.{k}"] = v
    if opts.config:
        props["config"] = opts.config
    return props


def _write_junit(opts: DiffOptions, report: DiffReport) -> None:
    if not opts.junit:
        return
    cases = []
    minimal_by_sig = {sig: m for m in report.minimal for sig in m.signatures}
    for r in report.results:
        c = CaseResult("diff", f"kschedconf.diff.{r.family or 'replay'}", r.name,
                       seconds=r.seconds,
                       properties={"modes": ",".join(r.modes), "attempts": str(r.attempts),
                                   **({"decisions_compared": str(r.decisions_compared).lower(),
                                       "timing_hazards": " | ".join(r.hazards)}
                                      if DECISIONS in r.modes else {}),
                                   "lockstep_steps": str(r.steps),
                                   "divergences": str(len(r.unexplained)),
                                   "known_divergences": str(len(r.known)),
                                   "tie_breaks": str(len(r.tie_breaks))})
        if r.unexplained:
            c.status = FAILED
            c.message = str(r.unexplained[0])[:500]
            lines = [str(d) for d in r.divergences]
            lines += [f"tie-break: {t}" for t in r.tie_breaks]
            lines += [f"note: {n}" for n in r.notes]
            for sig in r.signatures():
                m = minimal_by_sig.get(sig)
                if m is not None:
                    c.counterexample = m.path
                    c.reproduce = m.reproduce
                    lines.append(f"minimal scenario: {m.path}"
                                 + ("" if m.shrunk else " (not shrunk)"))
                    lines.append(f"reproduce: {m.reproduce}")
                    break
            c.details = "\n".join(lines)
        elif r.known:
            c.properties["known"] = ", ".join(sorted({d.known or "" for d in r.known}))
        cases.append(c)
    if report.error:
        cases.append(CaseResult("diff", "kschedconf.diff", "subject", status=ERROR,
                                message=report.error.splitlines()[0], details=report.error))
    if not cases:
        cases.append(CaseResult("diff", "kschedconf.diff", "nothing-compared", status=SKIPPED,
                                message="no scenario was compared"))
    props = dict(report.properties)
    props["scenarios"] = str(len(report.results))
    props["seconds"] = f"{report.seconds:.1f}"
    write_junit(opts.junit, cases, props)


def summary(report: DiffReport, opts: DiffOptions, stream: TextIO) -> None:
    res = report.results
    n = len(res)
    known = [d for r in res for d in r.known]
    ties = [t for r in res for t in r.tie_breaks]
    bad = [r for r in res if r.unexplained]
    stream.write("\n")
    for r in bad:
        stream.write(f"DIVERGED: {r.name} ({r.family})\n")
        shown = [d for d in r.unexplained if not d.consequence][:12]
        for d in shown:
            stream.write(f"    {d}\n")
        rest = len(r.unexplained) - len(shown)
        if rest:
            stream.write(f"    ... and {rest} more (consequences or further fields)\n")
    if report.minimal:
        stream.write("\nminimal scenarios (one per kind of divergence):\n")
        for m in report.minimal:
            kinds = "; ".join(f"{mode} {fld}{' ' + plugin if plugin else ''}"
                              for mode, fld, plugin in m.signatures)
            stream.write(f"  {kinds}: {m.path}{'' if m.shrunk else ' (not shrunk)'}"
                         f"{' - ' + m.note if m.note else ''}\n")
            for d in m.divergences[:5]:
                stream.write(f"      {d}\n")
            stream.write(f"      reproduce: {m.reproduce}\n")
    if known:
        by_id: dict[str, int] = {}
        for d in known:
            by_id[d.known or ""] = by_id.get(d.known or "", 0) + 1
        stream.write("known divergences: " + ", ".join(f"{k} ({v})" for k, v in
                                                       sorted(by_id.items())) + "\n")
    if ties:
        stream.write(f"tie-break differences: {len(ties)}\n")
        for t in ties[:10]:
            stream.write(f"    {t}\n")
    dec = [r for r in res if DECISIONS in r.modes]
    if dec:
        exact = sum(1 for r in dec if r.decisions_compared)
        kinds: dict[str, int] = {}
        for r in dec:
            for h in r.hazards:
                kinds[h.split(":", 1)[0]] = kinds.get(h.split(":", 1)[0], 0) + 1
        stream.write(f"decisions: {exact} of {len(dec)} scenarios compared exactly with the "
                     f"reference; all {len(dec)} judged by the oracles; not compared exactly "
                     f"(timing hazards): {len(dec) - exact}"
                     + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) + ")"
                        if kinds else "") + "\n")
    whole = sum(1 for r in res if WHOLE in r.modes)
    steps = sum(r.steps for r in res)
    secs = report.compare_seconds or report.seconds
    rate = n / secs if secs > 0 else 0.0
    stream.write(f"{n} scenarios compared ({whole} whole runs, {steps} lockstep steps) in "
                 f"{secs:.1f}s: {rate:.2f} scenarios/s; "
                 f"{report.unexplained} unexplained divergence(s) in {len(bad)} scenario(s), "
                 f"{len(known)} known, {len(ties)} tie-break difference(s); total "
                 f"{report.seconds:.1f}s; seed {report.seed}\n")
    if report.error:
        stream.write(f"subject error: {report.error}\n")
    if opts.junit:
        stream.write(f"JUnit report: {opts.junit}\n")


# --- replay ------------------------------------------------------------------------------------

def replay(opts: DiffOptions, stream: TextIO | None = None,
           upstream: Subject | Side | None = None,
           reference: Side | None = None) -> DiffReport:
    """``kschedconf diff --replay FILE``: compare one scenario file and print every
    divergence."""

    stream = stream or sys.stdout
    assert opts.replay is not None
    path = Path(opts.replay)
    if not path.is_file():
        raise UsageError(f"--replay {path}: no such file")
    try:
        scenario, _, notes = read_scenario_file(path)
    except ValueError as e:
        raise UsageError(str(e)) from e
    report = DiffReport(seed=opts.seed)
    t0 = time.monotonic()
    try:
        ref, up = make_sides(opts, upstream, reference)
    except SubjectError as e:
        report.error = str(e)
        stream.write(f"subject error: {e}\n")
        return report
    differ = Differ(opts, ref, up, stream)
    differ.report = report
    stream.write(f"replaying {path} (seed {scenario.seed}): reference vs {up.name}; modes "
                 f"{', '.join(differ.modes)}\n")
    try:
        res = differ.compare(scenario, "replay")
        report.results.append(res)
    except SubjectError as e:
        report.error = str(e)
        res = None
    finally:
        differ.executor.shutdown(wait=True)
        ref.close()
        up.close()
        report.seconds = time.monotonic() - t0
        report.compare_seconds = differ.compare_seconds
        _write_junit(opts, report)
    if res is not None:
        for d in res.divergences:
            stream.write(f"  {d}\n")
        for t in res.tie_breaks:
            stream.write(f"  tie-break: {t}\n")
        for note in res.notes:
            stream.write(f"  note: {note}\n")
        stream.write(f"{len(res.unexplained)} unexplained divergence(s), {len(res.known)} "
                     f"known, {len(res.tie_breaks)} tie-break difference(s)"
                     f" ({res.attempts} attempts, {res.steps} lockstep steps)\n")
    if report.error:
        stream.write(f"subject error: {report.error}\n")
    return report
