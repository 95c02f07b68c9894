"""Runs the suites against a subject: ``kschedconf run`` and ``kschedconf reproduce``.

``make_subject(spec)`` builds a subject from its command-line spelling; ``run(options)`` runs
the chosen suites, prints progress and a summary, writes every failure's minimal counterexample
under ``options.out`` and, with ``options.junit``, a JUnit XML report; ``reproduce(path)``
replays one scenario file. Exit codes: 0 all passed, 1 some property / golden scenario failed,
2 usage or subject error.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from conformance.core.errors import UsageError
from conformance.core.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from conformance.core.results import ERROR, FAILED, PASSED, SKIPPED, CaseResult
from conformance.core.scenario import ScenarioInput, read_config_doc
from conformance.core.subject import Subject, SubjectError, describe_subject
from conformance.reporters.junit import write_junit
from reference_impl.releases.pinned import UPSTREAM_RELEASE

DEFAULT_OUT = "kschedconf-out"
SHRINK_MIN_SECONDS = 2.0
KSCHEDCONF_VERSION = "0.1.0"

#: Subjects named in the design that are not implemented yet.
PLANNED_SUBJECTS: dict[str, str] = {}
#: Control-plane backends (conformance/backends, docs/backends.md): a real kube-scheduler
#: against a real kube-apiserver.
BACKEND_SUBJECTS = ("process", "docker", "kubeconfig")
SUBJECT_SPECS = ("reference", "reference:CONFIG.yaml", "external:COMMAND...", "upstream",
                 "upstream:BINARY", "process", "process:CONFIG.yaml", "docker", "docker:IMAGE",
                 "kubeconfig:CONTEXT", *PLANNED_SUBJECTS)


class SubjectUnavailable(SubjectError):
    """A subject kind that is planned but not available yet."""


def make_subject(spec: str, *, config: str | None = None, plugins: Sequence[str] = (),
                 timeout: float | None = None,
                 i_own_this_cluster: str | None = None) -> Subject:
    """A subject from its spec: ``reference``, ``reference:CONFIG.yaml``,
    ``external:COMMAND...``, ``upstream`` (the real kube-scheduler, ``upstream/bin/
    kschedconf-upstream``; ``upstream:BINARY`` names another build), the control-plane
    backends ``process[:CONFIG.yaml]``, ``docker[:SCHEDULER_IMAGE]`` and ``kubeconfig:CONTEXT``
    (with ``i_own_this_cluster=CONTEXT``; docs/backends.md). ``config``/``plugins`` apply to
    the reference (``--config``, ``--plugins``), ``config`` to the backends too; ``timeout``
    to external commands and upstream, and per scenario to the backends."""
    from conformance.subjects.external import DEFAULT_TIMEOUT, ExternalSubject
    from conformance.subjects.reference import ReferenceSubject

    kind, sep, arg = spec.partition(":")
    kind = kind.strip()
    if kind == "reference":
        if sep and arg and config and arg != config:
            raise UsageError(f"--subject {spec} and --config {config}: give the "
                             "configuration once")
        return ReferenceSubject(arg or config or None, plugins)
    if kind == "external":
        if not arg.strip():
            raise UsageError("--subject external:COMMAND needs a command, e.g. "
                             "external:'./my-scheduler --flag'")
        return ExternalSubject(arg, timeout=timeout if timeout is not None else DEFAULT_TIMEOUT)
    if kind == "upstream":
        from conformance.subjects.upstream import DEFAULT_TIMEOUT as UP_TIMEOUT
        from conformance.subjects.upstream import UpstreamSubject

        return UpstreamSubject(arg.strip() or None,
                               timeout=timeout if timeout is not None else UP_TIMEOUT)
    if kind in BACKEND_SUBJECTS:
        # process[:CFG.yaml], docker[:IMAGE], kubeconfig:CONTEXT (--i-own-this-cluster CONTEXT)
        from conformance.backends import make_backend_subject

        try:
            return make_backend_subject(kind, arg.strip(), config=config, timeout=timeout,
                                        i_own_this_cluster=i_own_this_cluster)
        except ValueError as e:
            raise UsageError(str(e)) from e
    if kind in PLANNED_SUBJECTS:
        raise SubjectUnavailable(f"subject {kind!r} ({PLANNED_SUBJECTS[kind]}) is not "
                                 "available yet; use reference, reference:CONFIG.yaml, "
                                 "external:COMMAND or upstream")
    raise UsageError(f"unknown subject {spec!r}; expected one of: {', '.join(SUBJECT_SPECS)}")


@dataclass(slots=True)
class RunOptions:
    suite: str = "properties"
    subject: str = "reference"
    config: str | None = None
    plugins: Sequence[str] = ()
    oracles: Sequence[str] = ()
    families: Sequence[str] = ()  # default: the profile's
    max_examples: int | None = None  # default: the profile's
    budget: float | None = None  # seconds for all properties of this shard
    seed: int | None = None
    profile: str = "dev"
    database: bool = True
    database_dir: str = ".hypothesis"
    shard: tuple[int, int] | None = None
    out: str = DEFAULT_OUT
    junit: str | None = None
    golden_dir: str | None = None
    subject_timeout: float | None = None
    shrink: bool = True
    i_own_this_cluster: str | None = None  # kubeconfig:CONTEXT needs the same context here


@dataclass(slots=True)
class RunReport:
    cases: list[CaseResult] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    error: str = ""  # a subject / usage error that stopped the run
    seconds: float = 0.0

    @property
    def exit_code(self) -> int:
        if self.error or any(c.status == ERROR for c in self.cases):
            return EXIT_USAGE
        if any(c.status == FAILED for c in self.cases):
            return EXIT_FAILED
        return EXIT_OK


def _q(s: str) -> str:
    return shlex.quote(s)


def reproduce_command(path: str, opts: RunOptions, oracle: str | None) -> str:
    parts = ["kschedconf", "reproduce", _q(path), "--subject", _q(opts.subject)]
    if opts.config and not opts.subject.startswith("external"):
        parts += ["--config", _q(opts.config)]
    for m in opts.plugins:
        parts += ["--plugins", _q(m)]
    if opts.i_own_this_cluster:
        parts += ["--i-own-this-cluster", _q(opts.i_own_this_cluster)]
    if oracle:
        parts += ["--oracle", _q(oracle)]
    return " ".join(parts)


def rerun_command(opts: RunOptions, families: Sequence[str], seed: int | None,
                  oracle: str | None = None, family: str | None = None) -> str:
    """The ``kschedconf run`` command that reruns this run (or one property of it)."""
    parts = ["kschedconf", "run", "--suite", "properties" if oracle else opts.suite,
             "--subject", _q(opts.subject), "--profile", opts.profile]
    if seed is not None:
        parts += ["--seed", str(seed)]
    if opts.config:
        parts += ["--config", _q(opts.config)]
    for m in opts.plugins:
        parts += ["--plugins", _q(m)]
    if opts.i_own_this_cluster:
        parts += ["--i-own-this-cluster", _q(opts.i_own_this_cluster)]
    if opts.max_examples is not None:
        parts += ["--max-examples", str(opts.max_examples)]
    if family or families:
        parts += ["--sizes", family or ",".join(families)]
    if oracle:
        parts += ["--oracle", _q(oracle)]
    elif opts.oracles:
        parts += ["--oracle", *map(_q, opts.oracles)]
    if opts.shard and not oracle:
        parts += ["--shard", f"{opts.shard[0]}/{opts.shard[1]}"]
    return " ".join(parts)


class Progress:
    """One line per property: a live counter on a terminal, the final line otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self._last = 0.0
        self._label = ""

    def start(self, label: str) -> None:
        self._label = label
        self._last = 0.0
        if self.tty:
            self.stream.write(f"  ....  {label}")
            self.stream.flush()

    def update(self, examples: int, shrinks: int, seconds: float) -> None:
        if not self.tty:
            return
        now = time.monotonic()
        if now - self._last < 0.1:
            return
        self._last = now
        extra = f", shrinking ({shrinks})" if shrinks else ""
        self.stream.write(f"\r\x1b[K  ....  {self._label}  {examples} examples{extra}  "
                          f"{seconds:.1f}s")
        self.stream.flush()

    def done(self, status: str, detail: str) -> None:
        word = {PASSED: "ok", FAILED: "FAIL", ERROR: "ERROR", SKIPPED: "skip"}[status]
        line = f"  {word:<5} {self._label}  {detail}"
        if self.tty:
            self.stream.write("\r\x1b[K" + line + "\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _counterexample_notes(prop_id: str, oracle: str, findings: Sequence[Any], subject: Subject,
                          reproduce: str, seed: str) -> list[str]:
    notes = [f"property: {prop_id}", f"oracle: {oracle}",
             f"subject: {describe_subject(subject)}",
             f"upstream: {UPSTREAM_RELEASE}",
             f"run-seed: {seed}",
             f"reproduce: {reproduce}"]
    for f in findings[:20]:
        first, *rest = str(f).splitlines() or [""]
        notes.append(f"violation: {first}")
        notes += [f"  {line}" for line in rest[:10]]
    if len(findings) > 20:
        notes.append(f"... {len(findings) - 20} more violations")
    return notes


def _property_cases(opts: RunOptions, subject: Subject, config_doc: dict[str, Any] | None,
                    progress: Progress, report: RunReport) -> None:
    from hypothesis import settings
    from hypothesis.database import DirectoryBasedExampleDatabase

    from conformance import suites

    base = suites.profile_settings(opts.profile)
    families = list(opts.families) or list(suites.PROFILE_FAMILIES[opts.profile])
    checks = suites.select_oracles(opts.oracles)
    props = suites.property_list(families, list(checks))
    total = len(props)
    if opts.shard:
        props = suites.select_shard(props, *opts.shard)
    max_examples = opts.max_examples if opts.max_examples is not None else base.max_examples
    if not opts.database:
        base = settings(base, database=None)
    elif opts.seed is None and not base.derandomize:
        base = settings(base, database=DirectoryBasedExampleDatabase(
            str(Path(opts.database_dir) / "examples")))
    if not opts.shrink:
        base = suites.no_shrink(base)
    shard = f" (shard {opts.shard[0]}/{opts.shard[1]} of {total})" if opts.shard else ""
    progress.stream.write(f"properties: {len(props)}{shard}, up to {max_examples} examples "
                          f"each" + (f", budget {opts.budget:g}s" if opts.budget else "")
                          + "\n")
    prepare = (lambda s: suites.with_config(s, config_doc)) if config_doc else None
    started = time.monotonic()
    out_dir = Path(opts.out)
    for i, prop in enumerate(props):
        deadline = shrink_time = None
        if opts.budget is not None:
            remaining = opts.budget - (time.monotonic() - started)
            share = max(remaining, 0.0) / (len(props) - i)
            deadline = time.monotonic() + share
            # after a failure, shrinking may go on for half a share past the deadline (then
            # the smallest failure so far is kept); the next shares shrink accordingly
            shrink_time = max(share / 2, SHRINK_MIN_SECONDS)
        progress.start(prop.id)

        def on_example(st: suites.PropertyState) -> None:
            progress.update(st.examples, st.shrinks, st.seconds)

        st = suites.run_property(prop, subject, checks[prop.oracle], base=base,
                                 max_examples=max_examples, seed=opts.seed, deadline=deadline,
                                 shrink_time=shrink_time, prepare=prepare,
                                 on_example=on_example)
        case = CaseResult("properties", f"kschedconf.properties.{prop.family}", prop.oracle,
                          seconds=st.seconds, examples=st.examples, shrinks=st.shrinks,
                          stopped_by=st.stopped_by,
                          properties={"property": prop.id, "oracle": prop.oracle,
                                      "family": prop.family,
                                      "seed": seed_label(opts),
                                      "rerun": rerun_command(opts, families, opts.seed,
                                                             prop.oracle, prop.family)})
        if st.subject_error is not None:
            case.status = ERROR
            case.message = str(st.subject_error).splitlines()[0]
            case.details = str(st.subject_error)
            report.error = str(st.subject_error)
        elif st.failure is not None:
            scenario, findings = st.failure
            path = out_dir / f"{prop.file_stem}.yaml"
            case.reproduce = reproduce_command(str(path), opts, prop.oracle)
            scenario = ScenarioInput(scenario.documents, scenario.config, scenario.seed,
                                     f"{prop.file_stem}",
                                     _counterexample_notes(prop.id, prop.oracle, findings,
                                                           subject, case.reproduce,
                                                           seed_label(opts)))
            scenario.write(path)
            case.counterexample = str(path)
            case.status = FAILED
            first = str(findings[0]).splitlines()[0]
            case.message = first
            extra = (" (shrinking stopped by the budget: the smallest failure found so far)"
                     if st.shrink_cut else "")
            if st.flaky:
                extra += (" (it did not fail again when replayed: the subject or oracle may be "
                          "nondeterministic)")
            case.details = "\n".join([f"{len(findings)} violation(s) on the minimal "
                                      f"counterexample{extra}:",
                                      *[str(f) for f in findings],
                                      f"counterexample: {path}",
                                      f"reproduce: {case.reproduce}"])
        elif st.error:
            case.status = ERROR
            case.message = st.error.splitlines()[0]
            case.details = st.error
        report.cases.append(case)
        detail = f"{st.examples} examples  {st.seconds:.1f}s"
        if st.stopped_by == "budget":
            detail += "  (budget)"
        elif st.shrink_cut:
            detail += f"  ({st.shrinks} shrink steps, cut by the budget)"
        if case.status == FAILED:
            detail += f"  {case.message[:120]}"
        elif case.status == ERROR:
            detail += f"  {case.message[:200]}"
        progress.done(case.status, detail)
        if st.subject_error is not None:
            for rest in props[i + 1:]:
                report.cases.append(CaseResult(
                    "properties", f"kschedconf.properties.{rest.family}", rest.oracle,
                    status=SKIPPED, message="not run: the subject failed",
                    properties={"property": rest.id, "oracle": rest.oracle,
                                "family": rest.family}))
            return


def _golden_cases(opts: RunOptions, subject: Subject, config_doc: dict[str, Any] | None,
                  progress: Progress, report: RunReport) -> None:
    from conformance import suites

    directory = Path(opts.golden_dir) if opts.golden_dir else suites.default_golden_dir()
    files = suites.golden_files(directory)
    if opts.shard:
        files = suites.select_shard(files, *opts.shard)
    progress.stream.write(f"golden: {len(files)} golden scenarios in {directory}\n")
    out_dir = Path(opts.out)
    for path in files:
        progress.start(f"golden/{path.stem}")
        t0 = time.monotonic()
        case = CaseResult("golden", "kschedconf.golden", path.stem,
                          properties={"file": str(path)})
        try:
            scenario, decisions, _ = suites.read_scenario_file(path)
        except (OSError, ValueError) as e:
            case.status, case.message = ERROR, f"{path}: {e}"
            report.cases.append(case)
            progress.done(ERROR, case.message)
            continue
        if decisions is None:
            case.status = ERROR
            case.message = f"{path}: no {suites.GOLDEN_KIND} document"
        else:
            if decisions.upstream_release:
                case.properties["recorded_with"] = decisions.upstream_release
            diffs: list[str] = []
            try:
                result = subject.run(suites.with_config(scenario, config_doc))
            except SubjectError as e:
                case.status, case.message, case.details = ERROR, str(e).splitlines()[0], str(e)
                report.error = str(e)
            except Exception as e:  # a crash of an in-process subject
                diffs = [f"{subject.name} raised {type(e).__name__}: {e}"]
            else:
                diffs = suites.compare_golden(decisions, result.result)
            if diffs:
                case.status, case.message = FAILED, diffs[0]
                out = out_dir / f"golden-{path.stem}.yaml"
                case.reproduce = reproduce_command(str(out), opts, None)
                notes = [f"golden: {path}", f"subject: {describe_subject(subject)}",
                         f"reproduce: {case.reproduce}",
                         *[f"difference: {d}" for d in diffs[:40]]]
                s = ScenarioInput(scenario.documents, scenario.config, scenario.seed,
                                  f"golden-{path.stem}", notes)
                suites.write_scenario_file(out, s, decisions)
                case.counterexample = str(out)
                case.details = "\n".join([*diffs, f"counterexample: {out}",
                                          f"reproduce: {case.reproduce}"])
        case.seconds = time.monotonic() - t0
        report.cases.append(case)
        progress.done(case.status, f"{case.seconds:.2f}s  {case.message[:160]}".rstrip())
        if report.error:
            return


def seed_label(opts: RunOptions) -> str:
    """The seed as reports show it: the number, ``derandomized`` (ci profile) or ``random``."""
    from conformance import suites

    if opts.seed is not None:
        return str(opts.seed)
    return "derandomized" if suites.PROFILES[opts.profile].get("derandomize") else "random"


def run_properties_header(opts: RunOptions, subject: Subject) -> dict[str, str]:
    props = {
        "kschedconf.version": KSCHEDCONF_VERSION,
        "upstream.release": UPSTREAM_RELEASE,
        "suite": opts.suite,
        "profile": opts.profile,
        "seed": seed_label(opts),
        "subject.spec": opts.subject,
    }
    for k, v in subject.describe().items():
        props[f"subject.{k}"] = v
    if opts.config:
        props["config"] = opts.config
    if opts.shard:
        props["shard"] = f"{opts.shard[0]}/{opts.shard[1]}"
    try:
        import hypothesis

        props["hypothesis.version"] = hypothesis.__version__
    except ImportError:  # pragma: no cover
        pass
    props["python.version"] = sys.version.split()[0]
    return props


def run(opts: RunOptions, stream: TextIO | None = None) -> RunReport:
    """Run the suites (see the module docstring). Never raises for failures or subject
    errors (they are in the report); ``UsageError``/``ValueError`` for bad options."""
    from conformance import suites

    stream = stream or sys.stdout
    if opts.suite not in suites.SUITES:
        raise UsageError(f"unknown suite {opts.suite!r} (known: {', '.join(suites.SUITES)})")
    suites.profile_settings(opts.profile)  # validates
    for f in opts.families:
        if f not in suites.FAMILIES:
            raise UsageError(f"unknown size {f!r} (known: {', '.join(suites.FAMILIES)})")
    if opts.max_examples is not None and opts.max_examples < 1:
        raise UsageError("--max-examples must be at least 1")
    if opts.budget is not None and opts.budget <= 0:
        raise UsageError("--budget must be positive")
    if opts.suite in ("properties", "all"):
        suites.select_oracles(opts.oracles)  # validates names (ValueError)
    config_doc = read_config_doc(opts.config) if opts.config else None
    report = RunReport()
    t0 = time.monotonic()
    try:
        subject = make_subject(opts.subject, config=opts.config, plugins=opts.plugins,
                               timeout=opts.subject_timeout,
                               i_own_this_cluster=opts.i_own_this_cluster)
    except SubjectError as e:
        report.error = str(e)
        stream.write(f"subject error: {e}\n")
        if opts.junit:
            report.cases.append(CaseResult("properties", "kschedconf.subject", opts.subject,
                                           status=ERROR, message=str(e).splitlines()[0],
                                           details=str(e)))
            write_junit(opts.junit, report.cases, {"subject.spec": opts.subject,
                                                   "upstream.release": UPSTREAM_RELEASE})
        return report
    families = list(opts.families) or list(suites.PROFILE_FAMILIES[opts.profile])
    report.properties = run_properties_header(opts, subject)
    report.properties["rerun"] = rerun_command(opts, families, opts.seed)
    stream.write(f"kschedconf run: suite {opts.suite}; subject {describe_subject(subject)}; "
                 f"upstream {UPSTREAM_RELEASE}; profile {opts.profile}; seed "
                 f"{seed_label(opts)}\n")
    progress = Progress(stream)
    try:
        with subject:
            if opts.suite in ("properties", "all"):
                _property_cases(opts, subject, config_doc, progress, report)
            if opts.suite in ("golden", "all") and not report.error:
                _golden_cases(opts, subject, config_doc, progress, report)
    finally:
        report.seconds = time.monotonic() - t0
        if opts.junit:
            write_junit(opts.junit, report.cases, report.properties)
    _summary(report, opts, stream)
    return report


def _summary(report: RunReport, opts: RunOptions, stream: TextIO) -> None:
    cases = report.cases
    count = {s: sum(1 for c in cases if c.status == s) for s in (PASSED, FAILED, ERROR, SKIPPED)}
    props = [c for c in cases if c.suite == "properties"]
    golden = [c for c in cases if c.suite == "golden"]
    examples = sum(c.examples for c in props)
    stream.write("\n")
    for c in cases:
        if c.status not in (FAILED, ERROR):
            continue
        stream.write(f"{'FAILED' if c.status == FAILED else 'ERROR'}: {c.id}\n")
        for line in (c.details or c.message).splitlines():
            stream.write(f"    {line}\n")
    parts = [f"{len(props)} properties ({examples} examples)"]
    if opts.suite in ("golden", "all"):
        parts.append(f"{len(golden)} golden scenarios")
    verdict = ", ".join(f"{n} {s}" for s, n in count.items() if n) or "nothing run"
    stream.write(f"{'; '.join(parts)}: {verdict} in {report.seconds:.1f}s\n")
    if report.error and not any(c.status == ERROR for c in cases):
        stream.write(f"subject error: {report.error}\n")
    if opts.junit:
        stream.write(f"JUnit report: {opts.junit}\n")
    if count[FAILED]:
        stream.write(f"counterexamples in {opts.out}/ (replay with `kschedconf reproduce`)\n")


# --- reproduce ---------------------------------------------------------------------------------

@dataclass(slots=True)
class ReproduceOutcome:
    findings: list[Any] = field(default_factory=list)
    golden_differences: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    oracles: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_FAILED if (self.findings or self.golden_differences) else EXIT_OK


def reproduce(path: str, subject_spec: str = "reference", oracles: Sequence[str] = (), *,
              config: str | None = None, plugins: Sequence[str] = (),
              timeout: float | None = None, i_own_this_cluster: str | None = None,
              stream: TextIO | None = None) -> ReproduceOutcome:
    """Replay one scenario file on a subject and apply the oracles (the ones given, else the
    one named in the file's ``# oracle:`` note, else all); a golden file's decisions are
    compared too. Raises ``SubjectError`` / ``UsageError``."""
    from conformance import suites

    stream = stream or sys.stdout
    if not Path(path).is_file():
        raise UsageError(f"{path}: no such file")
    try:
        scenario, decisions, notes = suites.read_scenario_file(path)
    except ValueError as e:
        raise UsageError(str(e)) from e
    names = list(oracles)
    if not names and notes.get("oracle") and notes["oracle"] in suites.all_oracles():
        names = [notes["oracle"]]
    try:
        checks = suites.select_oracles(names)
    except ValueError as e:
        raise UsageError(str(e)) from e
    if config:
        scenario = suites.with_config(scenario, read_config_doc(config))
    out = ReproduceOutcome(oracles=list(checks))
    with make_subject(subject_spec, config=config, plugins=plugins, timeout=timeout,
                      i_own_this_cluster=i_own_this_cluster) as subject:
        stream.write(f"scenario {path} (seed {scenario.seed}); subject "
                     f"{describe_subject(subject)}\n")
        if notes.get("subject"):
            stream.write(f"found with: {notes['subject']}\n")
        result, out.findings = suites.evaluate(subject, scenario, checks)
        out.result = result.result if result is not None else None
    if out.result is not None:
        bindings = out.result.get("bindings", {})
        pending = out.result.get("pending", [])
        stream.write(f"{len(bindings)} pods bound, {len(pending)} pending"
                     + (f" ({', '.join(pending)})" if pending else "") + "\n")
        for pod, node in bindings.items():
            stream.write(f"  {pod} -> {node}\n")
        if decisions is not None:
            out.golden_differences = suites.compare_golden(decisions, out.result)
    stream.write(f"oracles: {', '.join(out.oracles)}\n")
    if out.findings:
        stream.write(f"{len(out.findings)} violation(s):\n")
        for f in out.findings:
            lines = str(f).splitlines() or [""]
            stream.write(f"  {lines[0]}\n")
            for line in lines[1:]:
                stream.write(f"    {line}\n")
    else:
        stream.write("no violations\n")
    if decisions is not None:
        if out.golden_differences:
            stream.write(f"{len(out.golden_differences)} difference(s) from the recorded "
                         f"upstream decisions:\n")
            for d in out.golden_differences:
                stream.write(f"  {d}\n")
        else:
            stream.write("decisions match the recorded upstream decisions\n")
    return out


def env_profile() -> str:
    """The default profile: ``ci`` when the ``CI`` environment variable is set, else ``dev``."""
    return "ci" if os.environ.get("CI", "").lower() not in ("", "0", "false") else "dev"

