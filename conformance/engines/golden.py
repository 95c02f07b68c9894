"""The golden engine: the golden scenario file format (a scenario followed by the
``GoldenDecisions`` upstream made; docs/golden.md), the golden directory (one folder per area,
scenario ``AREA/NAME`` in ``AREA/NAME.yaml``) and verifying a subject against it. Recording is
in :mod:`conformance.engines.golden_record`."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from conformance.core.dropped import dropped_counts, not_judged, note_dropped
from conformance.core.errors import SubjectError, UsageError, raise_requested_stop
from conformance.core.results import ERROR, FAILED, SKIPPED, CaseResult
from conformance.core.scenario import ScenarioInput, note_values
from conformance.core.subject import ScenarioRejected, Subject, describe_subject
from conformance.engines.baseline import (
    BaselineReference,
    baseline_for,
    same_config,
    scenario_config,
)
from conformance.engines.session import Session
from oracles import Oracle
from oracles.judge import check_result, failures, intended_changes, matching_upstream

GOLDEN_KIND = "GoldenDecisions"
GOLDEN_API_VERSION = "kschedconf/v1"
SUFFIXES = (".yaml", ".yml")


@dataclass(slots=True)
class GoldenDecisions:
    """The decisions recorded from upstream for a golden scenario, with their provenance
    (docs/golden.md)."""

    bindings: dict[str, str]
    pending: list[str]
    deleted: list[str] | None = None  # preemption victims; None = not compared
    upstream_release: str = ""  # the release the decisions were recorded with
    source: str = ""  # what made them (subject, how, seed)
    recorded_at: str = ""  # YYYY-MM-DD
    recorded_with: str = ""  # the command that wrote them
    #: the releases whose upstream made these same decisions (``holdsFor``; empty: only
    #: ``upstream_release``). A scenario is stored once, with a decisions document per
    #: distinct outcome (docs/golden.md#releases).
    holds_for: tuple[str, ...] = ()

    @property
    def releases(self) -> tuple[str, ...]:
        """The releases these decisions hold for."""
        return self.holds_for or ((self.upstream_release,) if self.upstream_release else ())

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any], where: str = "") -> GoldenDecisions:
        bindings = doc.get("bindings") or {}
        pending = doc.get("pending") or []
        deleted = doc.get("deleted")
        if not isinstance(bindings, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in bindings.items()):
            raise ValueError(f"{where}: GoldenDecisions.bindings must map NS/POD to a node name")
        if not isinstance(pending, list) or not all(isinstance(p, str) for p in pending):
            raise ValueError(f"{where}: GoldenDecisions.pending must be a list of NS/POD")
        if deleted is not None and (not isinstance(deleted, list)
                                    or not all(isinstance(p, str) for p in deleted)):
            raise ValueError(f"{where}: GoldenDecisions.deleted must be a list of NS/POD")
        holds = doc.get("holdsFor") or []
        if not isinstance(holds, list) or not all(isinstance(r, str) for r in holds):
            raise ValueError(f"{where}: GoldenDecisions.holdsFor must be a list of releases")
        return cls(dict(bindings), list(pending), None if deleted is None else list(deleted),
                   str(doc.get("upstreamRelease", "")), str(doc.get("source", "")),
                   str(doc.get("recordedAt", "")), str(doc.get("recordedWith", "")),
                   tuple(holds))

    def to_doc(self) -> dict[str, Any]:
        d: dict[str, Any] = {"apiVersion": GOLDEN_API_VERSION, "kind": GOLDEN_KIND}
        for key, value in (("upstreamRelease", self.upstream_release), ("source", self.source),
                           ("recordedAt", self.recorded_at),
                           ("recordedWith", self.recorded_with)):
            if value:
                d[key] = value
        if self.holds_for and list(self.holds_for) != [self.upstream_release]:
            d["holdsFor"] = sorted(self.holds_for, key=release_key)
        d["bindings"] = dict(sorted(self.bindings.items()))
        d["pending"] = sorted(self.pending)
        if self.deleted is not None:
            d["deleted"] = sorted(self.deleted)
        return d

    @classmethod
    def from_result(cls, result: Mapping[str, Any], source: str = "") -> GoldenDecisions:
        """Record a SimulationResult's decisions (how golden files are made)."""
        return cls(dict(result.get("bindings", {})), list(result.get("pending", [])),
                   list(result.get("deleted", [])), str(result.get("upstreamRelease", "")),
                   source)


def split_golden(scenario: ScenarioInput) -> tuple[ScenarioInput, list[GoldenDecisions]]:
    """Remove the ``GoldenDecisions`` documents from a scenario read from a file: one per
    distinct outcome, no release held by two."""
    docs = [d for d in scenario.documents if isinstance(d, dict) and d.get("kind") == GOLDEN_KIND]
    rest = [d for d in scenario.documents if not any(d is g for g in docs)]
    decisions = [GoldenDecisions.from_doc(d, scenario.name) for d in docs]
    seen: set[str] = set()
    for dec in decisions:
        twice = seen & set(dec.releases)
        if twice:
            raise ValueError(f"{scenario.name}: two {GOLDEN_KIND} documents hold for "
                             f"{', '.join(sorted(twice))}")
        seen |= set(dec.releases)
    if len(decisions) > 1 and any(not d.releases for d in decisions):
        raise ValueError(f"{scenario.name}: {GOLDEN_KIND} documents without upstreamRelease "
                         "or holdsFor: which release holds which decisions?")
    return (scenario.derived(documents=rest) if docs else scenario), decisions


def decisions_for(decisions: Sequence[GoldenDecisions],
                  release: str) -> GoldenDecisions | None:
    """The decisions recorded for ``release``; a file without provenance holds for any."""
    for d in decisions:
        if release in d.releases or not d.releases:
            return d
    return None


def release_key(tag: str) -> tuple[int, ...]:
    """``v1.34.4`` → ``(1, 34, 4)``, to sort releases."""
    return tuple(int(x) for x in tag.lstrip("v").split(".") if x.isdigit())


def read_scenario_file(path: str | Path, release: str | None = None
                       ) -> tuple[ScenarioInput, GoldenDecisions | None, dict[str, str]]:
    """A scenario file (counterexample or golden): the scenario, its decisions for ``release``
    (default: the scenario's own release) if it has any, and its ``key: value`` notes
    (``oracle``, ``subject``...: from the ``ScenarioInfo`` document, or the header comments of
    a file in the old form)."""
    scenario, decisions, notes = read_golden_file(path)
    chosen = decisions_for(decisions, release or scenario.release)
    return scenario, chosen, notes


def read_golden_file(path: str | Path) -> tuple[ScenarioInput, list[GoldenDecisions],
                                                dict[str, str]]:
    """A scenario file with every decisions document it holds (one per distinct outcome
    across releases)."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    try:
        scenario = ScenarioInput.from_yaml(text, name=p.stem)
    except yaml.YAMLError as e:
        raise ValueError(f"{p}: invalid YAML: {e}") from e
    except ValueError as e:
        raise ValueError(f"{p}: {e}") from e
    if not all(isinstance(d, dict) for d in scenario.documents):
        raise ValueError(f"{p}: every YAML document must be a mapping")
    scenario, decisions = split_golden(scenario)
    return scenario, decisions, note_values(scenario.notes)


def write_scenario_file(path: str | Path, scenario: ScenarioInput,
                        decisions: GoldenDecisions | Sequence[GoldenDecisions] | None = None
                        ) -> Path:
    """``ScenarioInput.write``, plus the ``GoldenDecisions`` documents when given (oldest
    release first)."""
    p = scenario.write(path)
    docs = [decisions] if isinstance(decisions, GoldenDecisions) else list(decisions or ())
    docs.sort(key=lambda d: min((release_key(r) for r in d.releases), default=()))
    with p.open("a", encoding="utf-8") as f:
        for d in docs:
            yaml.safe_dump(d.to_doc(), f, sort_keys=False, explicit_start=True)
    return p


def compare_golden(expected: GoldenDecisions, result: Mapping[str, Any]) -> list[str]:
    """Every difference between the recorded decisions and a SimulationResult."""
    out: list[str] = []
    got_b: dict[str, str] = dict(result.get("bindings", {}))
    got_pending = set(result.get("pending", []))
    for pod in sorted(set(expected.bindings) | set(got_b)):
        want, got = expected.bindings.get(pod), got_b.get(pod)
        if want == got:
            continue
        want_s = f"bound to {want}" if want else (
            "pending" if pod in expected.pending else "not bound")
        got_s = f"bound to {got}" if got else ("pending" if pod in got_pending else "not bound")
        out.append(f"pod {pod}: upstream {want_s}, subject {got_s}")
    for pod in sorted(set(expected.pending) ^ got_pending):
        if pod in expected.bindings or pod in got_b:
            continue  # reported above
        if pod in got_pending:
            out.append(f"pod {pod}: upstream did not leave it pending, subject did")
        else:
            out.append(f"pod {pod}: upstream left it pending, subject did not")
    if expected.deleted is not None:
        got_d = set(result.get("deleted", []))
        for pod in sorted(set(expected.deleted) - got_d):
            out.append(f"pod {pod}: upstream preempted (deleted) it, the subject did not")
        for pod in sorted(got_d - set(expected.deleted)):
            out.append(f"pod {pod}: the subject preempted (deleted) it, upstream did not")
    return out


# --- the golden directory ----------------------------------------------------------------------

def _listed(rel: Path) -> bool:
    return rel.suffix in SUFFIXES and not any(
        part.startswith(".") or part == "__pycache__" for part in rel.parts)


def golden_files(directory: str | Path) -> list[Path]:
    """The golden scenario files of ``directory`` and its folders (``AREA/NAME.yaml``), in the
    order of their names; a ``UsageError`` when it has none (a golden suite that checks
    nothing must not pass)."""
    d = Path(directory)
    files = sorted((p for p in d.rglob("*") if _listed(p.relative_to(d)) and p.is_file()),
                   key=lambda p: p.relative_to(d).as_posix()) if d.is_dir() else []
    if not files:
        raise UsageError(f"no golden scenarios in {d}: expected AREA/NAME.yaml files (recorded "
                         "by `kschedconf golden record`); --golden-dir names another directory")
    return files


def golden_name(path: Path, directory: str | Path) -> str:
    """A golden scenario's name: its file's path in the golden directory without the suffix
    (``fit/cpu-memory``); the file's stem for a file elsewhere."""
    try:
        rel = Path(path).relative_to(Path(directory))
    except ValueError:
        return Path(path).stem
    return rel.with_suffix("").as_posix()


def flat_name(name: str) -> str:
    """A golden scenario's name as one file name (``fit/cpu-memory`` -> ``fit-cpu-memory``)."""
    return name.replace("/", "-")


def select_golden(files: Sequence[Path], directory: str | Path, names: Sequence[str]
                  ) -> list[Path]:
    """The files of the named scenarios (``AREA/NAME``); a ``UsageError`` names the unknown."""
    by_name = {golden_name(p, directory): p for p in files}
    unknown = [n for n in names if n.removesuffix(".yaml") not in by_name]
    if unknown:
        raise UsageError(f"no golden scenario named {', '.join(unknown)} in {directory} "
                         "(names are AREA/NAME: `kschedconf golden list`)")
    wanted = {n.removesuffix(".yaml") for n in names}
    return [p for p in files if golden_name(p, directory) in wanted]


def default_golden_dir() -> Path:
    """The golden scenarios installed with kschedconf: the ``golden`` package, which the
    distribution installs beside ``conformance`` (the checkout's ``golden/`` in an editable
    install). It is found by that path, not by ``import golden``, so that neither a
    ``golden/`` of the current directory nor another ``golden`` package on ``sys.path`` can
    stand in for it. Another directory is named with ``--golden-dir``."""
    return Path(__file__).resolve().parent.parent.parent / "golden"


# --- verify ------------------------------------------------------------------------------------

def verify_case(subject: Subject, path: Path, config: Mapping[str, Any] | None = None,
                name: str | None = None, checks: Mapping[str, Oracle] | None = None,
                strict_intent: bool = False, release: str | None = None) -> CaseResult:
    """Run one golden file on the subject: a passed case, a failed one listing every
    difference from the recorded decisions (a crash of an in-process subject is one), or an
    error for an unreadable file. The case is named ``name`` (default: the file's stem). A
    :class:`SubjectError` propagates. With ``checks``, the run is judged by those oracles too
    (what matches a known upstream deviation fails only with ``strict_intent``).

    When the configuration the subject runs (its ``fixed_config``, else ``config``) schedules
    otherwise than the file's own, the recorded decisions do not apply: the expected ones are
    the reference's under the subject's configuration (its user plugins swapped for the
    in-tree plugins they replace, :mod:`conformance.engines.baseline`), and the case says so;
    when the reference cannot run that configuration the case is skipped with the reason.
    The scenario is scheduled as ``release`` (the run's ``--release``; default: the file's
    own) and compared with the decisions recorded for that release; a file with none for it
    is skipped, saying how to record them."""
    t0 = time.monotonic()
    case = CaseResult("golden", "kschedconf.golden", name or path.stem,
                      properties={"file": str(path)})
    try:
        scenario, all_decisions, _ = read_golden_file(path)
    except (OSError, ValueError) as e:
        case.status, case.message = ERROR, f"{path}: {e}"
        return case
    if not all_decisions:
        case.status, case.message = ERROR, f"{path}: no {GOLDEN_KIND} document"
        return case
    release = release or scenario.release
    scenario = scenario.derived(release=release)
    decisions = decisions_for(all_decisions, release)
    if decisions is None:
        held = sorted({r for d in all_decisions for r in d.releases}, key=release_key)
        case.status = SKIPPED
        case.message = (f"recorded for {', '.join(held)}, not {release} (record it with "
                        f"`kschedconf golden record --release {release}`)")
        return case
    if decisions.upstream_release:
        case.properties["recorded_with"] = decisions.upstream_release
    why = ""
    dropped: dict[str, int] = {}
    runs = subject.fixed_config if subject.fixed_config is not None else config
    rerecorded = runs is not None and not same_config(runs, scenario_config(scenario))
    if rerecorded:
        try:
            expected = rerecord(scenario.with_config(runs))
        except UsageError as e:
            case.status = SKIPPED
            case.message = ("the subject runs another configuration than the golden file, "
                            f"one the reference cannot run: {e}")
            return case
        decisions = expected
        case.properties["decisions"] = RERECORDED
    try:
        result = subject.run(scenario.with_config(config))
    except SubjectError:
        raise
    except Exception as e:  # noqa: BLE001 - a crash of an in-process subject
        diffs = [f"{subject.name} raised {type(e).__name__}: {e}"]
    else:
        diffs = compare_golden(decisions, result.result)
        dropped = dropped_counts(result.warnings)
        why = not_judged(result.result, result.warnings)
        if rerecorded:
            diffs = [d.replace(": upstream ", ": the reference ", 1) for d in diffs]
        if checks:
            findings = check_result(scenario.with_config(runs), result, subject, checks)
            diffs += [str(f) for f in failures(findings, strict_intent)]
            case.matches_upstream = {d: 1 for d in matching_upstream(
                [f for f in findings if f.deviation and not strict_intent])}
            case.intended_changes = {r: 1 for r in intended_changes(findings)}
    if diffs:
        if rerecorded:
            diffs.append(f"(expected decisions: {RERECORDED})")
        case.status, case.message, case.details = FAILED, diffs[0], "\n".join(diffs)
    elif why:
        case.status, case.message = ERROR, f"not judged: {why}"
    note_dropped(case, dropped, why)
    case.seconds = time.monotonic() - t0
    return case


#: The expected decisions of a golden scenario run under another configuration.
RERECORDED = ("re-recorded with the reference under the subject's configuration (the golden "
             "file's configuration differs)")


def rerecord(scenario: ScenarioInput) -> GoldenDecisions:
    """The reference's decisions for a scenario under its ``config``, user plugins swapped for
    the in-tree ones they replace; a :class:`UsageError` when the reference cannot run it."""
    base = baseline_for(scenario.config)
    try:
        result = BaselineReference(base).run(scenario).result
    except ScenarioRejected as e:
        raise UsageError(str(e)) from e
    return GoldenDecisions.from_result(result, "reference (re-recorded)")


def verify(session: Session, subject: Subject, directory: Path, files: Sequence[Path],
           config: Mapping[str, Any] | None = None,
           on_failure: Callable[[CaseResult, Path], None] | None = None,
           checks: Mapping[str, Oracle] | None = None, strict_intent: bool = False,
           release: str | None = None) -> None:
    """Verify every file of ``directory``, one case each, named ``AREA/NAME`` (judged by
    ``checks`` too, see :func:`verify_case`); ``on_failure(case, path)`` may add a
    counterexample to a failed case before it is reported. Stops at the first subject error
    (the rest is not run; the error is in the summary). A subject running another
    configuration than a file's is judged against the reference's decisions under that
    configuration (:func:`verify_case`)."""
    rerecorded = 0
    for path in files:
        raise_requested_stop()  # a Ctrl-C Python swallowed
        name = golden_name(path, directory)
        session.case_started(f"golden/{name}")
        try:
            case = verify_case(subject, path, config, name, checks, strict_intent, release)
        except SubjectError as e:
            case = CaseResult("golden", "kschedconf.golden", name, status=ERROR,
                              message=str(e).splitlines()[0], details=str(e),
                              properties={"file": str(path)})
            session.summary.error = str(e)
        if case.status == FAILED and on_failure is not None:
            on_failure(case, path)
        rerecorded += "decisions" in case.properties
        note = "  (decisions re-recorded with the reference)" if "decisions" in \
            case.properties else ""
        matched = (f"  (matches upstream: {', '.join(case.matches_upstream)})"
                   if case.matches_upstream else "")
        if case.intended_changes:
            matched += f"  (intended changes: {', '.join(case.intended_changes)})"
        session.case_finished(case, f"{case.seconds:.2f}s{matched}  {case.message[:160]}{note}"
                              .rstrip())
        if session.summary.error:
            return
    if rerecorded:
        session.notice(f"golden: {rerecorded} scenario(s) judged against the reference's "
                       "decisions under the subject's configuration, which differs from "
                       "theirs")


def golden_header(subject: Subject, files: Sequence[Path], directory: Path,
                  release: str | None = None) -> str:
    return (f"verifying {len(files)} golden scenario(s) of {directory}/ on "
            f"{describe_subject(subject)}" + (f"; upstream {release}" if release else ""))


__all__ = ["GOLDEN_KIND", "GoldenDecisions", "compare_golden", "default_golden_dir",
           "decisions_for", "flat_name", "golden_files", "golden_name", "read_golden_file",
           "read_scenario_file", "release_key", "select_golden", "verify", "verify_case",
           "write_scenario_file"]
