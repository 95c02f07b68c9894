"""Recording golden scenarios (``kschedconf golden record``): the definitions of a golden
directory (its ``definitions`` package) scheduled on upstream, compared with the files on disk,
and written (docs/golden.md)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import importlib.util
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from conformance.core.errors import SubjectError, UsageError
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject
from conformance.engines.golden import (
    GoldenDecisions,
    decisions_for,
    read_golden_file,
    release_key,
    write_scenario_file,
)
from reference_impl.releases import load, supported_releases

#: the package of a golden directory that defines its scenarios (``definitions()``)
DEFINITIONS = "definitions"
#: the name the definitions package is imported under (so that its modules import each other)
MODULE = "kschedconf_golden_definitions"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*")


class GoldenDefinition(Protocol):
    """One scenario of a golden directory's definitions."""

    name: str
    covers: str

    def scenario(self) -> ScenarioInput: ...


def load_definitions(directory: Path) -> dict[str, GoldenDefinition]:
    """The golden scenario definitions of ``DIR/definitions/``: the package's
    ``definitions()``, a mapping ``AREA/NAME`` -> definition (``.scenario()``: the
    ScenarioInput; ``.covers``). The package is imported from ``DIR`` (not as the installed
    ``golden.definitions``), so a copy of the directory records its own definitions."""
    init = directory / DEFINITIONS / "__init__.py"
    if not init.is_file():
        old = (f"; {directory / 'generate.py'} is the old form: move its definitions into "
               "the package") if (directory / "generate.py").is_file() else ""
        raise UsageError(f"{init}: no such file (the golden scenario definitions package, "
                         f"docs/golden.md){old}")
    for loaded in [m for m in sys.modules if m == MODULE or m.startswith(f"{MODULE}.")]:
        del sys.modules[loaded]
    spec = importlib.util.spec_from_file_location(
        MODULE, init, submodule_search_locations=[str(init.parent)])
    if spec is None or spec.loader is None:
        raise UsageError(f"{init}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE] = module
    try:
        spec.loader.exec_module(module)
        defs = module.definitions()
    except (OSError, ImportError, SyntaxError) as e:
        raise UsageError(f"{init.parent}: {e}") from e
    if not isinstance(defs, Mapping):
        raise UsageError(f"{init}: definitions() must return a mapping name -> definition")
    bad = [n for n in defs if not isinstance(n, str) or not _NAME.fullmatch(n)]
    if bad:
        raise UsageError(f"{init}: {bad[0]!r} is not a scenario name (AREA/NAME: letters, "
                         "digits, '.', '_', '-' and '/' between the parts)")
    return dict(defs)


def decision_changes(old: GoldenDecisions | None, new: GoldenDecisions) -> list[str]:
    """What changed between two GoldenDecisions (``old`` None: a new file)."""
    if old is None:
        return ["new golden scenario"]
    out = []
    for pod in sorted(set(old.bindings) | set(new.bindings)):
        a, b = old.bindings.get(pod), new.bindings.get(pod)
        if a != b:
            out.append(f"{pod}: {a or 'not bound'} -> {b or 'not bound'}")
    for pod in sorted(set(old.pending) ^ set(new.pending)):
        out.append(f"{pod}: {'no longer pending' if pod in old.pending else 'now pending'}")
    od, nd = set(old.deleted or []), set(new.deleted or [])
    for pod in sorted(od ^ nd):
        out.append(f"{pod}: {'no longer preempted' if pod in od else 'now preempted'}")
    return out


def _same_decisions(a: GoldenDecisions, b: GoldenDecisions) -> bool:
    return (a.bindings, sorted(a.pending), sorted(a.deleted or [])) == (
        b.bindings, sorted(b.pending), sorted(b.deleted or []))


def merge_decisions(on_disk: Sequence[GoldenDecisions],
                    new: GoldenDecisions) -> list[GoldenDecisions]:
    """The file's decisions documents with ``new`` recorded for its release: the release
    leaves the document that held it; it joins a document with the same decisions (its
    ``holdsFor``), else ``new`` is a document of its own. A scenario is stored once."""
    release = new.upstream_release
    out: list[GoldenDecisions] = []
    for d in on_disk:
        held = tuple(r for r in d.releases if r != release)
        if held:
            out.append(dataclasses.replace(d, holds_for=held))
    for i, d in enumerate(out):
        if _same_decisions(d, new):
            out[i] = dataclasses.replace(
                d, holds_for=tuple(sorted({*d.releases, release}, key=release_key)))
            return out
    return [*out, new]


def _file_changes(path: Path, scenario: ScenarioInput, new: GoldenDecisions) -> list[str]:
    """What changed against the file on disk for the release of ``new``
    (``["new golden scenario"]`` without a file)."""
    if not path.exists():
        return decision_changes(None, new)
    try:
        old_scenario, decisions, _ = read_golden_file(path)
    except ValueError:
        return decision_changes(None, new)
    old = decisions_for(decisions, new.upstream_release)
    if old is None and decisions:
        same = [d for d in decisions if _same_decisions(d, new)]
        return [f"first recording for {new.upstream_release}: "
                + (f"the same decisions as {', '.join(same[0].releases)}" if same else
                   "decisions of its own")]
    changes = decision_changes(old, new)
    if old is None:
        return changes
    if not old.releases:
        changes.append(f"upstream release (none) -> {new.upstream_release}")
    if (old_scenario.documents, old_scenario.config, old_scenario.seed) != (
            scenario.documents, scenario.config, scenario.seed):
        changes.append("scenario inputs changed")
    if old_scenario.info != scenario.info:
        changes.append("scenario metadata changed (name, covers or notes)")
    return changes


@dataclass(slots=True)
class Recording:
    """What ``record`` found: the files to write and how many were skipped as random."""

    writes: list[tuple[Path, ScenarioInput, list[GoldenDecisions]]]
    random: int
    names: int


#: runs of each scenario on a subject whose host selection is random (reservoir sampling): a
#: two-way tie decided the same way in all of them has probability 2**-7
RESERVOIR_RUNS = 8


def _varies(subject: Subject, scenario: ScenarioInput,
            first: Mapping[str, object]) -> list[str]:
    """Why the decisions are random: a later run of the same scenario that differs."""
    want = GoldenDecisions.from_result(first)
    for i in range(1, RESERVOIR_RUNS):
        got = GoldenDecisions.from_result(subject.run(scenario).result)
        if not _same_decisions(want, got):
            return [f"run {i + 1} of {RESERVOIR_RUNS} made other decisions: "
                    + "; ".join(decision_changes(want, got)[:3])
                    + " (selectHost picks among tied nodes at random: reservoir sampling)"]
    return []


def _without_release(path: Path, release: str) -> list[GoldenDecisions] | None:
    """The file's decisions with ``release`` removed; None when it held none for it."""
    if not path.exists():
        return None
    try:
        decisions = read_golden_file(path)[1]
    except ValueError:
        return None
    if not any(release in d.releases for d in decisions):
        return None
    out = []
    for d in decisions:
        held = tuple(r for r in d.releases if r != release)
        if held:
            out.append(dataclasses.replace(d, holds_for=held))
    return out


def record(subject: Subject, directory: Path, names: Sequence[str],
           defs: Mapping[str, GoldenDefinition], command: str, *, force: bool,
           say: Callable[[str], object]) -> Recording:
    """Run each named definition on ``subject`` (upstream) and compare with its file on disk,
    ``DIR/AREA/NAME.yaml``; ``say(line)`` reports each scenario. Nothing is written here
    (:func:`write`). A subject error is reported and propagates. Each scenario is scheduled
    as the subject's release; its decisions join the file's others (:func:`merge_decisions`)."""
    release = subject.release or "unknown"
    # selectHost of a reservoir release breaks ties with Go's unseeded rand, which the
    # subject cannot report: a scenario is random there if repeated runs disagree
    reservoir = release in supported_releases() and \
        load(release).behaviour("select-host") == "reservoir"
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d")
    out = Recording([], 0, len(names))
    for name in names:
        scenario = defs[name].scenario()
        path = directory / f"{name}.yaml"
        run_as = scenario.derived(release=release) if release in supported_releases() \
            else scenario
        try:
            res = subject.run(run_as)
        except SubjectError as e:
            say(f"  ERROR {name}: {e}")
            raise
        rnd = [n for n in res.notes if "random" in n]
        if not rnd and reservoir:
            rnd = _varies(subject, run_as, res.result)
        if rnd:
            out.random += 1
            say(f"  SKIP  {name}: upstream's choice was random, not a golden scenario:")
            for n in rnd:
                say(f"          {n}")
            dropped = _without_release(path, release)
            if dropped is not None:
                out.writes.append((path, scenario, dropped))
                say(f"          its {release} decisions are removed from the file")
            continue
        new = GoldenDecisions.from_result(res.result, source=(
            f"kschedconf-upstream serve: kube-scheduler {release} in process "
            f"(fake API server, virtual clock), seed {scenario.seed}"))
        new.upstream_release = release
        changes = _file_changes(path, scenario, new)
        if not changes and not force:
            say(f"  same  {name}")
            continue
        say(f"  {'new' if changes == ['new golden scenario'] else 'CHANGED'}  {name}")
        for c in changes or ["unchanged (rewritten: --force)"]:
            say(f"          {c}")
        new.recorded_at, new.recorded_with = now, command
        on_disk: list[GoldenDecisions] = []
        if path.exists():
            try:
                on_disk = read_golden_file(path)[1]
            except ValueError:
                on_disk = []
        out.writes.append((path, scenario, merge_decisions(on_disk, new)))
    return out


def write(recording: Recording, say: Callable[[str], object]) -> None:
    """Write the files ``record`` found new or changed."""
    for path, scenario, decisions in recording.writes:
        write_scenario_file(path, scenario, decisions)
        say(f"  wrote {path}")


__all__ = ["DEFINITIONS", "GoldenDefinition", "Recording", "decision_changes",
           "load_definitions", "record", "write"]
