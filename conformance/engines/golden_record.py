"""Recording golden scenarios (``kschedconf golden record``): the definitions of a golden
directory (its ``definitions`` package) scheduled on upstream, compared with the files on disk,
and written (docs/golden.md)."""

from __future__ import annotations

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
from conformance.engines.golden import GoldenDecisions, read_scenario_file, write_scenario_file

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


def _file_changes(path: Path, scenario: ScenarioInput, new: GoldenDecisions) -> list[str]:
    """What changed against the file on disk (``["new golden scenario"]`` without one)."""
    if not path.exists():
        return decision_changes(None, new)
    try:
        old_scenario, old, _ = read_scenario_file(path)
    except ValueError:
        return decision_changes(None, new)
    changes = decision_changes(old, new)
    if old is None:
        return changes
    if old.upstream_release != new.upstream_release:
        changes.append(f"upstream release {old.upstream_release} -> {new.upstream_release}")
    if (old_scenario.documents, old_scenario.config, old_scenario.seed) != (
            scenario.documents, scenario.config, scenario.seed):
        changes.append("scenario inputs changed")
    if old_scenario.info != scenario.info:
        changes.append("scenario metadata changed (name, covers or notes)")
    return changes


@dataclass(slots=True)
class Recording:
    """What ``record`` found: the files to write and how many were skipped as random."""

    writes: list[tuple[Path, ScenarioInput, GoldenDecisions]]
    random: int
    names: int


def record(subject: Subject, directory: Path, names: Sequence[str],
           defs: Mapping[str, GoldenDefinition], command: str, *, force: bool,
           say: Callable[[str], object]) -> Recording:
    """Run each named definition on ``subject`` (upstream) and compare with its file on disk,
    ``DIR/AREA/NAME.yaml``; ``say(line)`` reports each scenario. Nothing is written here
    (:func:`write`). A subject error is reported and propagates."""
    release = subject.release or "unknown"
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d")
    out = Recording([], 0, len(names))
    for name in names:
        scenario = defs[name].scenario()
        path = directory / f"{name}.yaml"
        try:
            res = subject.run(scenario)
        except SubjectError as e:
            say(f"  ERROR {name}: {e}")
            raise
        rnd = [n for n in res.notes if "random" in n]
        if rnd:
            out.random += 1
            say(f"  SKIP  {name}: upstream's choice was random, not a golden scenario:")
            for n in rnd:
                say(f"          {n}")
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
        out.writes.append((path, scenario, new))
    return out


def write(recording: Recording, say: Callable[[str], object]) -> None:
    """Write the files ``record`` found new or changed."""
    for path, scenario, decisions in recording.writes:
        write_scenario_file(path, scenario, decisions)
        say(f"  wrote {path}")


__all__ = ["DEFINITIONS", "GoldenDefinition", "Recording", "decision_changes",
           "load_definitions", "record", "write"]
