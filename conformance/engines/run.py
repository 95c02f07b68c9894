"""``kschedconf run`` and ``kschedconf reproduce``: the conformance suites (properties, golden)
against one subject, with counterexamples written for every failure."""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import hypothesis
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

from conformance.core.errors import SubjectError, Terminated, UsageError
from conformance.core.events import EventBus
from conformance.core.exits import EXIT_FAILED, EXIT_OK
from conformance.core.results import ERROR, FAILED, SKIPPED, CaseResult, RunSummary
from conformance.core.scenario import ScenarioInput, read_config_doc
from conformance.core.subject import Subject, describe_subject
from conformance.engines import golden, properties
from conformance.engines.session import Session
from conformance.subjects.factory import make_subject
from oracles import Oracle
from oracles.judge import Finding, all_oracles, evaluate, select_oracles
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from strategies.families import FAMILIES

SUITES = ("properties", "golden", "all")
DEFAULT_OUT = "kschedconf-out"
SHRINK_MIN_SECONDS = 2.0
KSCHEDCONF_VERSION = "0.1.0"


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
class RunPlan:
    """The options of a run resolved and validated once."""

    opts: RunOptions
    base: settings  # Hypothesis settings of the profile, database and shrink choices applied
    families: list[str]
    checks: dict[str, Oracle]
    props: list[properties.Property]
    total_props: int  # before sharding
    max_examples: int
    config_doc: dict[str, Any] | None  # --config
    golden_dir: Path
    golden_files: list[Path]
    #: the configuration every generated case runs and is judged with (None: each
    #: scenario's own); set by :meth:`resolve_config` once the subject exists
    effective_config: dict[str, Any] | None = None
    config_origin: str = "each scenario's own"

    @property
    def planned(self) -> int:
        return len(self.props) + len(self.golden_files)

    def resolve_config(self, subject: Subject) -> None:
        """The effective configuration of the cases: the one the subject runs whatever the
        scenario holds (``reference:CFG``, a backend's scheduler configuration), else
        ``--config``, else each generated scenario's own. Every case's scenario carries it,
        so the oracles judge with it and the counterexample files record it
        (docs/oracles.md#which-configuration-the-oracles-judge-with)."""
        fixed = subject.fixed_config
        if fixed is not None:
            self.effective_config = fixed
            self.config_origin = f"the subject's ({self.opts.subject})"
        elif self.config_doc is not None:
            self.effective_config = self.config_doc
            self.config_origin = f"--config {self.opts.config}"

    def prepare(self, scenario: ScenarioInput) -> ScenarioInput:
        """A generated scenario as the subject runs it (:meth:`resolve_config`)."""
        return scenario.with_config(self.effective_config)


def plan(opts: RunOptions) -> RunPlan:
    """Validate and resolve ``opts``; a :class:`UsageError` names the bad option."""
    if opts.suite not in SUITES:
        raise UsageError(f"unknown suite {opts.suite!r} (known: {', '.join(SUITES)})")
    base = properties.profile_settings(opts.profile)
    for f in opts.families:
        if f not in FAMILIES:
            raise UsageError(f"unknown size {f!r} (known: {', '.join(FAMILIES)})")
    if opts.max_examples is not None and opts.max_examples < 1:
        raise UsageError("--max-examples must be at least 1")
    if opts.budget is not None and opts.budget <= 0:
        raise UsageError("--budget must be positive")
    families = list(opts.families) or list(properties.PROFILE_FAMILIES[opts.profile])
    checks: dict[str, Oracle] = {}
    props: list[properties.Property] = []
    total = 0
    if opts.suite in ("properties", "all"):
        checks = select_oracles(opts.oracles)
        props = properties.property_list(families, list(checks))
        total = len(props)
        if opts.shard:
            props = properties.select_shard(props, *opts.shard)
    max_examples = opts.max_examples if opts.max_examples is not None else base.max_examples
    if not opts.database:
        base = settings(base, database=None)
    elif opts.seed is None and not base.derandomize:
        base = settings(base, database=DirectoryBasedExampleDatabase(
            str(Path(opts.database_dir) / "examples")))
    if not opts.shrink:
        base = properties.no_shrink(base)
    config_doc = read_config_doc(opts.config) if opts.config else None
    directory = Path(opts.golden_dir) if opts.golden_dir else golden.default_golden_dir()
    files: list[Path] = []
    if opts.suite in ("golden", "all"):
        files = golden.golden_files(directory)
        if opts.shard:
            files = properties.select_shard(files, *opts.shard)
    return RunPlan(opts, base, families, checks, props, total, max_examples, config_doc,
                   directory, files)


# --- commands that replay ----------------------------------------------------------------------

def _q(s: str) -> str:
    return shlex.quote(s)


def _subject_args(opts: RunOptions) -> list[str]:
    parts = ["--subject", _q(opts.subject)]
    if opts.config and not opts.subject.startswith("external"):
        parts += ["--config", _q(opts.config)]
    for m in opts.plugins:
        parts += ["--plugins", _q(m)]
    if opts.i_own_this_cluster:
        parts += ["--i-own-this-cluster", _q(opts.i_own_this_cluster)]
    return parts


def reproduce_command(path: str, opts: RunOptions, oracle: str | None) -> str:
    parts = ["kschedconf", "reproduce", _q(path), *_subject_args(opts)]
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


def seed_label(opts: RunOptions) -> str:
    """The seed as reports show it: the number, ``derandomized`` (ci profile) or ``random``."""
    if opts.seed is not None:
        return str(opts.seed)
    return "derandomized" if properties.PROFILES[opts.profile].get("derandomize") else "random"


def run_properties_header(opts: RunOptions, subject: Subject) -> dict[str, str]:
    """The run's properties in reports: versions, seed, subject."""
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
    props["hypothesis.version"] = hypothesis.__version__
    props["python.version"] = sys.version.split()[0]
    return props


def _counterexample_notes(prop_id: str, oracle: str, findings: Sequence[Finding],
                          subject: Subject, reproduce: str, seed: str,
                          config_origin: str) -> list[str]:
    notes = [f"property: {prop_id}", f"oracle: {oracle}",
             f"subject: {describe_subject(subject)}",
             f"upstream: {UPSTREAM_RELEASE}",
             f"run-seed: {seed}",
             f"config: {config_origin} (the configuration in this file)",
             f"reproduce: {reproduce}"]
    for f in findings[:20]:
        first, *rest = str(f).splitlines() or [""]
        notes.append(f"violation: {first}")
        notes += [f"  {line}" for line in rest[:10]]
    if len(findings) > 20:
        notes.append(f"... {len(findings) - 20} more violations")
    return notes


# --- the suites --------------------------------------------------------------------------------

def _property_case(p: RunPlan, prop: properties.Property, st: properties.PropertyState,
                   subject: Subject) -> CaseResult:
    opts = p.opts
    case = CaseResult("properties", f"kschedconf.properties.{prop.family}", prop.oracle,
                      seconds=st.seconds, examples=st.examples, shrinks=st.shrinks,
                      stopped_by=st.stopped_by,
                      properties={"property": prop.id, "oracle": prop.oracle,
                                  "family": prop.family, "seed": seed_label(opts),
                                  "rerun": rerun_command(opts, p.families, opts.seed,
                                                         prop.oracle, prop.family)})
    if st.subject_error is not None:
        case.status = ERROR
        case.message = str(st.subject_error).splitlines()[0]
        case.details = str(st.subject_error)
    elif st.failure is not None:
        scenario, findings = st.failure
        path = Path(opts.out) / f"{prop.file_stem}.yaml"
        case.reproduce = reproduce_command(str(path), opts, prop.oracle)
        ScenarioInput(scenario.documents, scenario.config, scenario.seed, prop.file_stem,
                      _counterexample_notes(prop.id, prop.oracle, findings, subject,
                                            case.reproduce, seed_label(opts),
                                            p.config_origin)).write(path)
        case.counterexample = str(path)
        case.status = FAILED
        case.message = str(findings[0]).splitlines()[0]
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
    return case


def _property_detail(case: CaseResult, st: properties.PropertyState) -> str:
    detail = f"{st.examples} examples  {st.seconds:.1f}s"
    if st.stopped_by == "budget":
        detail += "  (budget)"
    elif st.shrink_cut:
        detail += f"  ({st.shrinks} shrink steps, cut by the budget)"
    if case.status == FAILED:
        detail += f"  {case.message[:120]}"
    elif case.status == ERROR:
        detail += f"  {case.message[:200]}"
    return detail


def _run_properties(p: RunPlan, subject: Subject, session: Session) -> None:
    opts = p.opts
    shard = f" (shard {opts.shard[0]}/{opts.shard[1]} of {p.total_props})" if opts.shard else ""
    session.notice(f"properties: {len(p.props)}{shard}, up to {p.max_examples} examples each"
                   + (f", budget {opts.budget:g}s" if opts.budget else ""))
    if p.effective_config is not None:
        session.notice(f"configuration: {p.config_origin} in every case, the oracles judge "
                       "with it")
    started = time.monotonic()
    for i, prop in enumerate(p.props):
        deadline = shrink_time = None
        if opts.budget is not None:
            remaining = opts.budget - (time.monotonic() - started)
            share = max(remaining, 0.0) / (len(p.props) - i)
            deadline = time.monotonic() + share
            # after a failure, shrinking may go on for half a share past the deadline (then
            # the smallest failure so far is kept); the next shares shrink accordingly
            shrink_time = max(share / 2, SHRINK_MIN_SECONDS)
        session.case_started(prop.id)

        def on_example(st: properties.PropertyState, label: str = prop.id) -> None:
            extra = f", shrinking ({st.shrinks})" if st.shrinks else ""
            session.progress(label, f"{st.examples} examples{extra}  {st.seconds:.1f}s")

        st = properties.run_property(
            prop, subject, p.checks[prop.oracle], base=p.base, max_examples=p.max_examples,
            seed=opts.seed, deadline=deadline, shrink_time=shrink_time,
            prepare=p.prepare if p.effective_config is not None else None,
            on_example=on_example)
        case = _property_case(p, prop, st, subject)
        if st.failure is not None:
            for f in st.failure[1]:
                session.violation(prop.id, f.oracle, f.text)
        if st.subject_error is not None:
            session.summary.error = str(st.subject_error)
        session.case_finished(case, _property_detail(case, st))
        if st.subject_error is not None:
            for rest in p.props[i + 1:]:
                session.case_finished(CaseResult(
                    "properties", f"kschedconf.properties.{rest.family}", rest.oracle,
                    status=SKIPPED, message="not run: the subject failed",
                    properties={"property": rest.id, "oracle": rest.oracle,
                                "family": rest.family}))
            return


def _run_golden(p: RunPlan, subject: Subject, session: Session) -> None:
    session.notice(f"golden: {len(p.golden_files)} golden scenarios in {p.golden_dir}")
    out_dir = Path(p.opts.out)

    def counterexample(case: CaseResult, path: Path) -> None:
        scenario, decisions, _ = golden.read_scenario_file(path)
        name = f"golden-{golden.flat_name(case.name)}"
        out = out_dir / f"{name}.yaml"
        case.reproduce = reproduce_command(str(out), p.opts, None)
        diffs = case.details.splitlines()
        notes = [f"golden: {path}", f"subject: {describe_subject(subject)}",
                 f"reproduce: {case.reproduce}", *[f"difference: {d}" for d in diffs[:40]]]
        golden.write_scenario_file(out, ScenarioInput(scenario.documents, scenario.config,
                                                      scenario.seed, name, notes,
                                                      scenario.covers), decisions)
        case.counterexample = str(out)
        case.details = "\n".join([*diffs, f"counterexample: {out}",
                                  f"reproduce: {case.reproduce}"])

    golden.verify(session, subject, p.golden_dir, p.golden_files, p.config_doc,
                  counterexample)


def _totals(p: RunPlan, summary: RunSummary) -> list[str]:
    props = [c for c in summary.cases if c.suite == "properties"]
    parts = [f"{len(props)} properties ({sum(c.examples for c in props)} examples)"]
    if p.opts.suite in ("golden", "all"):
        parts.append(f"{sum(1 for c in summary.cases if c.suite == 'golden')} golden scenarios")
    return parts


def _artifacts(p: RunPlan, summary: RunSummary) -> list[str]:
    if summary.count(FAILED):
        return [f"counterexamples in {p.opts.out}/ (replay with `kschedconf reproduce`)"]
    return []


def run(opts: RunOptions, bus: EventBus) -> RunSummary:
    """Run the suites; failures and subject errors are in the summary. A
    :class:`UsageError` for bad options, before anything runs."""
    p = plan(opts)
    try:
        subject = make_subject(opts.subject, config=opts.config, plugins=opts.plugins,
                               timeout=opts.subject_timeout,
                               i_own_this_cluster=opts.i_own_this_cluster)
    except SubjectError as e:
        session = Session("run", bus, properties={"subject.spec": opts.subject,
                                                  "upstream.release": UPSTREAM_RELEASE})
        session.start(f"kschedconf run: subject {opts.subject}")
        session.case_finished(CaseResult("properties", "kschedconf.subject", opts.subject,
                                         status=ERROR, message=str(e).splitlines()[0],
                                         details=str(e)))
        return session.finish(totals=["subject"], error=str(e))
    p.resolve_config(subject)
    properties_ = run_properties_header(opts, subject)
    properties_["config.judged"] = p.config_origin
    properties_["rerun"] = rerun_command(opts, p.families, opts.seed)
    session = Session("run", bus, properties=properties_, planned=p.planned)
    session.start(f"kschedconf run: suite {opts.suite}; subject {describe_subject(subject)}; "
                  f"upstream {UPSTREAM_RELEASE}; profile {opts.profile}; seed "
                  f"{seed_label(opts)}")
    stop: BaseException | None = None
    try:
        with subject:
            if opts.suite in ("properties", "all"):
                _run_properties(p, subject, session)
            if opts.suite in ("golden", "all") and not session.summary.error:
                _run_golden(p, subject, session)
    except (KeyboardInterrupt, Terminated) as e:
        stop = e
    summary = session.finish(totals=_totals(p, session.summary),
                             artifacts=_artifacts(p, session.summary), stop=stop)
    if stop is not None:
        raise stop
    return summary


# --- reproduce ---------------------------------------------------------------------------------

@dataclass(slots=True)
class ReproduceOutcome:
    findings: list[Finding] = field(default_factory=list)
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
    one named in the file's ``oracle:`` note, else all); a golden file's decisions are
    compared too. Raises ``SubjectError`` / ``UsageError``."""
    stream = stream or sys.stdout
    if not Path(path).is_file():
        raise UsageError(f"{path}: no such file")
    try:
        scenario, decisions, notes = golden.read_scenario_file(path)
    except ValueError as e:
        raise UsageError(str(e)) from e
    names = list(oracles)
    if not names and notes.get("oracle") and notes["oracle"] in all_oracles():
        names = [notes["oracle"]]
    checks = select_oracles(names)
    if config:
        scenario = scenario.with_config(read_config_doc(config))
    out = ReproduceOutcome(oracles=list(checks))
    with make_subject(subject_spec, config=config, plugins=plugins, timeout=timeout,
                      i_own_this_cluster=i_own_this_cluster) as subject:
        stream.write(f"scenario {path} (seed {scenario.seed}); subject "
                     f"{describe_subject(subject)}\n")
        if notes.get("subject"):
            stream.write(f"found with: {notes['subject']}\n")
        result, out.findings = evaluate(subject, scenario, checks)
        out.result = result.result if result is not None else None
    if out.result is not None:
        bindings = out.result.get("bindings", {})
        pending = out.result.get("pending", [])
        stream.write(f"{len(bindings)} pods bound, {len(pending)} pending"
                     + (f" ({', '.join(pending)})" if pending else "") + "\n")
        for pod, node in bindings.items():
            stream.write(f"  {pod} -> {node}\n")
        if decisions is not None:
            out.golden_differences = golden.compare_golden(decisions, out.result)
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
