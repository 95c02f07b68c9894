"""The golden engine: the golden scenario file format (a scenario followed by the
``GoldenDecisions`` upstream made; docs/golden.md), verifying a subject against it and recording
it from upstream."""

from __future__ import annotations

import datetime as _dt
import importlib.util
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import yaml

from conformance.core.errors import SubjectError, UsageError
from conformance.core.results import ERROR, FAILED, CaseResult
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject, describe_subject
from conformance.engines.session import Session

GOLDEN_KIND = "GoldenDecisions"
GOLDEN_API_VERSION = "kschedconf/v1"
#: the module of a golden directory that defines its scenarios (``definitions()``)
GENERATOR = "generate.py"


@dataclass(slots=True)
class GoldenDecisions:
    """The decisions recorded from upstream for a golden scenario (``docs/subjects.md``)."""

    bindings: dict[str, str]
    pending: list[str]
    deleted: list[str] | None = None  # preemption victims; None = not compared
    upstream_release: str = ""
    source: str = ""

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
        return cls(dict(bindings), list(pending), None if deleted is None else list(deleted),
                   str(doc.get("upstreamRelease", "")), str(doc.get("source", "")))

    def to_doc(self) -> dict[str, Any]:
        d: dict[str, Any] = {"apiVersion": GOLDEN_API_VERSION, "kind": GOLDEN_KIND}
        if self.upstream_release:
            d["upstreamRelease"] = self.upstream_release
        if self.source:
            d["source"] = self.source
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


def split_golden(scenario: ScenarioInput) -> tuple[ScenarioInput, GoldenDecisions | None]:
    """Remove the ``GoldenDecisions`` document from a scenario read from a file."""
    golden = [d for d in scenario.documents
              if isinstance(d, dict) and d.get("kind") == GOLDEN_KIND]
    if len(golden) > 1:
        raise ValueError(f"{scenario.name}: more than one {GOLDEN_KIND} document")
    if not golden:
        return scenario, None
    rest = [d for d in scenario.documents if d is not golden[0]]
    s = ScenarioInput(rest, scenario.config, scenario.seed, scenario.name, list(scenario.notes))
    return s, GoldenDecisions.from_doc(golden[0], scenario.name)


def read_scenario_file(path: str | Path) -> tuple[ScenarioInput, GoldenDecisions | None,
                                                  dict[str, str]]:
    """A scenario file (counterexample or golden): the scenario, its decisions if any, and the
    ``# key: value`` notes of its header (``oracle``, ``subject``...)."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    try:
        scenario = ScenarioInput.from_yaml(text, name=p.stem)
    except yaml.YAMLError as e:
        raise ValueError(f"{p}: invalid YAML: {e}") from e
    if not all(isinstance(d, dict) for d in scenario.documents):
        raise ValueError(f"{p}: every YAML document must be a mapping")
    scenario, decisions = split_golden(scenario)
    return scenario, decisions, header_notes(text)


def header_notes(text: str) -> dict[str, str]:
    """The ``# key: value`` comment lines before the first document."""
    notes: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("---"):
            break
        if line.startswith("# ") and ":" in line:
            k, v = line[2:].split(":", 1)
            k = k.strip()
            if k and " " not in k and k not in notes:
                notes[k] = v.strip()
    return notes


def write_scenario_file(path: str | Path, scenario: ScenarioInput,
                        decisions: GoldenDecisions | None = None) -> Path:
    """``ScenarioInput.write``, plus the ``GoldenDecisions`` document when given."""
    p = scenario.write(path)
    if decisions is not None:
        with p.open("a", encoding="utf-8") as f:
            yaml.safe_dump(decisions.to_doc(), f, sort_keys=False, explicit_start=True)
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


def golden_files(directory: str | Path) -> list[Path]:
    """The golden scenario files of ``directory``; a ``ValueError`` when it has none (a
    golden suite that checks nothing must not pass)."""
    d = Path(directory)
    files = sorted(p for p in d.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file()) \
        if d.is_dir() else []
    if not files:
        raise UsageError(f"no golden scenarios in {d}: expected *.yaml files (recorded by "
                         "`kschedconf golden record`); --golden-dir names another directory")
    return files


def default_golden_dir() -> Path:
    """The golden scenarios installed with kschedconf: the ``golden`` package, which the
    distribution installs beside ``conformance`` (the checkout's ``golden/`` in an editable
    install). It is found by that path, not by ``import golden``, so that neither a
    ``golden/`` of the current directory nor another ``golden`` package on ``sys.path`` can
    stand in for it. Another directory is named with ``--golden-dir``."""
    return Path(__file__).resolve().parent.parent.parent / "golden"


# --- verify ------------------------------------------------------------------------------------

def verify_case(subject: Subject, path: Path, config: Mapping[str, Any] | None = None
                ) -> CaseResult:
    """Run one golden file on the subject: a passed case, a failed one listing every
    difference from the recorded decisions (a crash of an in-process subject is one), or an
    error for an unreadable file. A :class:`SubjectError` propagates."""
    t0 = time.monotonic()
    case = CaseResult("golden", "kschedconf.golden", path.stem, properties={"file": str(path)})
    try:
        scenario, decisions, _ = read_scenario_file(path)
    except (OSError, ValueError) as e:
        case.status, case.message = ERROR, f"{path}: {e}"
        return case
    if decisions is None:
        case.status, case.message = ERROR, f"{path}: no {GOLDEN_KIND} document"
        return case
    if decisions.upstream_release:
        case.properties["recorded_with"] = decisions.upstream_release
    try:
        result = subject.run(scenario.with_config(config))
    except SubjectError:
        raise
    except Exception as e:  # noqa: BLE001 - a crash of an in-process subject
        diffs = [f"{subject.name} raised {type(e).__name__}: {e}"]
    else:
        diffs = compare_golden(decisions, result.result)
    if diffs:
        case.status, case.message, case.details = FAILED, diffs[0], "\n".join(diffs)
    case.seconds = time.monotonic() - t0
    return case


def verify(session: Session, subject: Subject, files: Sequence[Path],
           config: Mapping[str, Any] | None = None,
           on_failure: Any = None) -> None:
    """Verify every file, one case each; ``on_failure(case, path)`` may add a counterexample
    to a failed case before it is reported. Stops at the first subject error (the rest is not
    run; the error is in the summary)."""
    for path in files:
        session.case_started(f"golden/{path.stem}")
        try:
            case = verify_case(subject, path, config)
        except SubjectError as e:
            case = CaseResult("golden", "kschedconf.golden", path.stem, status=ERROR,
                              message=str(e).splitlines()[0], details=str(e),
                              properties={"file": str(path)})
            session.summary.error = str(e)
        if case.status == FAILED and on_failure is not None:
            on_failure(case, path)
        session.case_finished(case, f"{case.seconds:.2f}s  {case.message[:160]}".rstrip())
        if session.summary.error:
            return


# --- record ------------------------------------------------------------------------------------

class GoldenDefinition(Protocol):
    """One scenario of a golden directory's ``generate.py``."""

    def scenario(self) -> ScenarioInput: ...


def load_definitions(directory: Path) -> dict[str, GoldenDefinition]:
    """The golden scenario definitions of ``DIR/generate.py``: its ``definitions()``, a
    mapping name -> definition (``.scenario()``: the ScenarioInput; ``.covers``)."""
    path = directory / GENERATOR
    if not path.is_file():
        raise UsageError(f"{path}: no such file (the golden scenario definitions)")
    spec = importlib.util.spec_from_file_location("kschedconf_golden_generate", path)
    if spec is None or spec.loader is None:
        raise UsageError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        defs = module.definitions()
    except (OSError, ImportError, SyntaxError) as e:
        raise UsageError(f"{path}: {e}") from e
    if not isinstance(defs, Mapping):
        raise UsageError(f"{path}: definitions() must return a mapping name -> definition")
    return dict(defs)


def decisions_doc(decisions: GoldenDecisions, recorded_at: str, command: str
                  ) -> dict[str, Any]:
    """The GoldenDecisions document with its provenance (``recordedAt``, ``recordedWith``)."""
    doc = decisions.to_doc()
    out: dict[str, Any] = {}
    for k, v in doc.items():
        out[k] = v
        if k == "source":
            out["recordedAt"] = recorded_at
            out["recordedWith"] = command
    return out


def write_golden(path: Path, scenario: ScenarioInput, doc: Mapping[str, Any]) -> None:
    scenario.write(path)
    with path.open("a", encoding="utf-8") as f:
        yaml.safe_dump(dict(doc), f, sort_keys=False, explicit_start=True)


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


@dataclass(slots=True)
class Recording:
    """What ``record`` found: the files to write and how many were skipped as random."""

    writes: list[tuple[Path, ScenarioInput, dict[str, Any]]]
    random: int
    names: int


def record(subject: Subject, directory: Path, names: Sequence[str],
           defs: Mapping[str, GoldenDefinition], command: str, *, force: bool,
           say: Any) -> Recording:
    """Run each named definition on ``subject`` (upstream) and compare with the file on disk;
    ``say(line)`` reports each scenario. Nothing is written here. A subject error
    propagates."""
    release = subject.release or "unknown"
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d")
    out = Recording([], 0, len(names))
    for name in names:
        scenario = defs[name].scenario()
        path = directory / f"{name}.yaml"
        res = subject.run(scenario)
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
        old_inputs = old = None
        if path.exists():
            try:
                old_scenario, old, _ = read_scenario_file(path)
                old_inputs = (old_scenario.documents, old_scenario.config, old_scenario.seed)
            except ValueError:
                old = None
        changes = decision_changes(old, new)
        if old is not None and old.upstream_release != new.upstream_release:
            changes.append(f"upstream release {old.upstream_release} -> "
                           f"{new.upstream_release}")
        if old is not None and old_inputs != (scenario.documents, scenario.config,
                                              scenario.seed):
            changes.append("scenario inputs changed")
        if not changes and not force:
            say(f"  same  {name}")
            continue
        say(f"  {'new' if old is None else 'CHANGED'}  {name}")
        for c in changes or ["unchanged (rewritten: --force)"]:
            say(f"          {c}")
        out.writes.append((path, scenario, decisions_doc(new, now, command)))
    return out


def golden_header(subject: Subject, files: Sequence[Path], directory: Path) -> str:
    return (f"verifying {len(files)} golden scenario(s) of {directory}/ on "
            f"{describe_subject(subject)}")


__all__ = ["GOLDEN_KIND", "GoldenDecisions", "compare_golden",
           "default_golden_dir", "golden_files", "read_scenario_file", "record", "verify",
           "verify_case", "write_scenario_file"]
