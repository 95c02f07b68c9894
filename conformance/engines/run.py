"""``kschedconf run`` and ``kschedconf reproduce``: the conformance suites (properties, golden)
against one subject, with counterexamples written for every failure."""

from __future__ import annotations

import dataclasses
import os
import random
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import hypothesis
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

from conformance.core.dropped import describe_counts, dropped_counts, not_judged, note_dropped
from conformance.core.errors import SubjectError, Terminated, UsageError
from conformance.core.events import EventBus
from conformance.core.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from conformance.core.results import ERROR, FAILED, SKIPPED, CaseResult, RunSummary
from conformance.core.scenario import ScenarioInput, read_config_doc
from conformance.core.subject import Subject, describe_subject
from conformance.engines import golden, properties
from conformance.engines.diff.suite import DifferentialOptions, differential
from conformance.engines.session import Session, interruption
from conformance.engines.workers import (
    Opened,
    OpenSubject,
    SubjectSpec,
    Workers,
    check_shareable,
    resolve_workers,
)
from conformance.subjects.factory import make_subject
from oracles import ORACLE_FEATURES, Oracle
from oracles.judge import (
    Finding,
    all_oracles,
    evaluate,
    failures,
    intended_changes,
    matching_upstream,
    select_oracles,
)
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from strategies.families import FAMILIES, FEATURE_FAMILIES

SUITES = ("properties", "golden", "differential", "all")
DEFAULT_OUT = "kschedconf-out"
SHRINK_MIN_SECONDS = 2.0
KSCHEDCONF_VERSION = "0.1.0"


@dataclass(slots=True)
class RunOptions:
    suite: str = "properties"
    subject: str = "reference"
    config: str | None = None
    plugins: Sequence[str] = ()
    replaces: Sequence[str] = ()  # --replaces PLUGIN=IN_TREE[:rule,...]
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
    strict_intent: bool = False  # findings matching a known upstream deviation fail too
    judge_all: bool = False  # every example judged by every selected oracle, not only its own
    release: str = UPSTREAM_RELEASE  # --release: every scenario is scheduled as this release
    #: processes judging the cases (AUTO: one per CPU); the output is the same whatever it is
    workers: int = 1


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
    seed: int  # the seed of every property: --seed, the ci profile's CI_SEED, or drawn
    seed_source: str  # "given", "profile" (ci) or "drawn"
    #: the configuration every generated case runs and is judged with (None: each
    #: scenario's own); set by :meth:`resolve_config` once the subject exists
    effective_config: dict[str, Any] | None = None
    config_origin: str = "each scenario's own"
    workers: int = 1  # processes judging the cases (--workers, at most one per case)

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
        """A generated scenario as the subject runs it: the run's release, the effective
        configuration (:meth:`resolve_config`)."""
        return scenario.with_config(self.effective_config).derived(release=self.opts.release)


def plan(opts: RunOptions) -> RunPlan:
    """Validate and resolve ``opts``; a :class:`UsageError` names the bad option."""
    if opts.suite not in SUITES:
        raise UsageError(f"unknown suite {opts.suite!r} (known: {', '.join(SUITES)})")
    base = properties.profile_settings(opts.profile)
    for f in opts.families:
        if f not in FAMILIES and f not in FEATURE_FAMILIES:
            raise UsageError(f"unknown size {f!r} (known: "
                             f"{', '.join((*FAMILIES, *FEATURE_FAMILIES))})")
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
        idle = properties.unplanned_oracles(families, list(checks)) if opts.oracles else []
        if idle:  # named by the user, and nothing to judge in the families asked for
            wanted = sorted({f for o in idle for f in ORACLE_FEATURES[o]})
            raise UsageError(f"oracle(s) {', '.join(idle)} judge only scenarios with "
                             f"{' or '.join(wanted)} objects, which --sizes "
                             f"{','.join(families)} does not generate (add --sizes "
                             f"{','.join(wanted)})")
        props = properties.property_list(families, list(checks))
        total = len(props)
        if opts.shard:
            props = properties.select_shard(props, *opts.shard)
    max_examples = opts.max_examples if opts.max_examples is not None else base.max_examples
    seed, source = resolve_seed(opts.seed, opts.profile)
    base = base_settings(opts, source)
    config_doc = read_config_doc(opts.config) if opts.config else None
    directory = Path(opts.golden_dir) if opts.golden_dir else golden.default_golden_dir()
    files: list[Path] = []
    if opts.suite in ("golden", "all"):
        files = golden.golden_files(directory)
        if opts.shard:
            files = properties.select_shard(files, *opts.shard)
    workers = resolve_workers(opts.workers, max(len(props), len(files),
                                                max_examples if opts.suite in
                                                ("differential", "all") else 1))
    check_shareable(opts.subject, workers)
    return RunPlan(opts, base, families, checks, props, total, max_examples, config_doc,
                   directory, files, seed, source, workers=workers)


def base_settings(opts: RunOptions, seed_source: str) -> settings:
    """The Hypothesis settings of every property: the profile's, with the example database
    only for a drawn seed (a given seed replays what it drew before, whatever .hypothesis/
    remembers) and without shrinking for ``--no-shrink``."""
    base = properties.profile_settings(opts.profile)
    if not opts.database or seed_source != "drawn":
        base = settings(base, database=None)
    else:
        base = settings(base, database=DirectoryBasedExampleDatabase(
            str(Path(opts.database_dir) / "examples")))
    return properties.no_shrink(base) if not opts.shrink else base


#: the seed of a ``ci`` profile run without ``--seed``: CI runs are the same every time
CI_SEED = 0


def resolve_seed(seed: int | None, profile: str) -> tuple[int, str]:
    """The seed of a run and where it comes from: ``--seed``; without it, :data:`CI_SEED`
    for the ``ci`` profile, else a fresh one (printed, so that ``--seed`` replays the run)."""
    if seed is not None:
        return seed, "given"
    if profile == "ci":
        return CI_SEED, "profile"
    return random.SystemRandom().randrange(1 << 31), "drawn"


# --- commands that replay ----------------------------------------------------------------------

def _q(s: str) -> str:
    return shlex.quote(s)


def _subject_args(opts: RunOptions) -> list[str]:
    parts = ["--subject", _q(opts.subject)]
    if opts.config and not opts.subject.startswith("external"):
        parts += ["--config", _q(opts.config)]
    parts += _plugin_args(opts)
    if opts.i_own_this_cluster:
        parts += ["--i-own-this-cluster", _q(opts.i_own_this_cluster)]
    return parts


def _plugin_args(opts: RunOptions) -> list[str]:
    """``--plugins`` and ``--replaces`` as given."""
    parts: list[str] = []
    for m in opts.plugins:
        parts += ["--plugins", _q(m)]
    for r in opts.replaces:
        parts += ["--replaces", _q(r)]
    return parts


def reproduce_command(path: str, opts: RunOptions, oracle: str | None) -> str:
    parts = ["kschedconf", "reproduce", _q(path), *_subject_args(opts)]
    if opts.judge_all:  # the file names its property's oracle; the run judged with them all
        parts += ["--oracle", *map(_q, opts.oracles or all_oracles())]
    elif oracle:
        parts += ["--oracle", _q(oracle)]
    if opts.strict_intent:
        parts += ["--strict-intent"]
    return " ".join(parts)


def rerun_command(opts: RunOptions, families: Sequence[str], seed: int | None,
                  oracle: str | None = None, family: str | None = None) -> str:
    """The ``kschedconf run`` command that reruns this run (or one property of it)."""
    parts = ["kschedconf", "run", "--suite", "properties" if oracle else opts.suite,
             "--subject", _q(opts.subject), "--profile", opts.profile]
    if opts.release != UPSTREAM_RELEASE:
        parts += ["--release", opts.release]
    if seed is not None:
        parts += ["--seed", str(seed)]
    if opts.config:
        parts += ["--config", _q(opts.config)]
    parts += _plugin_args(opts)
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
    parts += ["--judge-all"] * opts.judge_all + ["--strict-intent"] * opts.strict_intent
    return " ".join(parts)


SEED_SOURCES = {"given": "--seed", "profile": "the ci profile's seed", "drawn": "drawn"}


def run_properties_header(opts: RunOptions, subject: Subject, seed: int,
                          seed_source: str = "given") -> dict[str, str]:
    """The run's properties in reports: versions, seed, subject."""
    props = {
        "kschedconf.version": KSCHEDCONF_VERSION,
        "upstream.release": opts.release,
        "suite": opts.suite,
        "profile": opts.profile,
        "seed": str(seed),
        "seed.source": SEED_SOURCES.get(seed_source, seed_source),
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
                          config_origin: str, release: str) -> list[str]:
    notes = [f"property: {prop_id}", f"oracle: {oracle}",
             f"subject: {describe_subject(subject)}",
             f"upstream: {release}",
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
                                  "family": prop.family, "seed": str(p.seed),
                                  "rerun": rerun_command(opts, p.families, p.seed,
                                                         prop.oracle, prop.family)})
    case.matches_upstream = dict(sorted(st.matches_upstream.items()))
    case.intended_changes = dict(sorted(st.intended_changes.items()))
    if st.subject_error is not None:
        case.status = ERROR
        case.message = str(st.subject_error).splitlines()[0]
        case.details = str(st.subject_error)
    elif st.failure is not None:
        scenario, findings = st.failure
        path = Path(opts.out) / f"{prop.file_stem}.yaml"
        case.reproduce = reproduce_command(str(path), opts, prop.oracle)
        scenario.derived(name=prop.file_stem, covers="",
                         notes=_counterexample_notes(prop.id, prop.oracle, findings, subject,
                                                     case.reproduce, str(p.seed),
                                                     p.config_origin,
                                                     scenario.release)).write(path)
        case.counterexample = str(path)
        case.status = FAILED
        case.message = str(findings[0]).splitlines()[0]
        extra = (" (shrinking stopped by the budget: the smallest failure found so far)"
                 if st.shrink_cut else "")
        if st.interrupt is not None:
            extra = (f" (shrinking interrupted by {interruption(st.interrupt)[0]}: the "
                     "smallest failure found so far)")
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
    elif st.interrupt is not None:
        case.status = SKIPPED
        case.message = (f"interrupted by {interruption(st.interrupt)[0]} after "
                        f"{st.examples} examples, none failing")
    elif st.not_judged and not st.judged:
        case.status = ERROR
        case.message = f"not judged: {st.not_judged_reason}"
        case.details = (f"not judged: no example with something to schedule could be "
                        f"judged ({st.not_judged} of {st.examples}); the first: "
                        f"{st.not_judged_reason}")
    note_dropped(case, st.dropped, f"{st.not_judged} of {st.examples} example(s): "
                 f"{st.not_judged_reason}" if st.not_judged else "")
    return case


#: the words of a property's stop reason on its console line
STOP_WORDS = {"max_examples": "example cap", "exhausted": "no new scenario",
              "budget": "budget", "interrupted": "interrupted"}


def _property_detail(case: CaseResult, st: properties.PropertyState) -> str:
    detail = f"{st.examples} examples  {st.seconds:.1f}s"
    if st.stopped_by in STOP_WORDS and case.status != FAILED:
        detail += f"  ({STOP_WORDS[st.stopped_by]})"
    elif st.shrink_cut:
        detail += f"  ({st.shrinks} shrink steps, cut by the budget)"
    if st.matches_upstream:
        detail += "  (matches upstream: " + ", ".join(
            f"{d} in {n} example(s)" for d, n in sorted(st.matches_upstream.items())) + ")"
    if st.intended_changes:
        detail += "  (intended changes: " + ", ".join(
            f"{r} in {n} example(s)" for r, n in sorted(st.intended_changes.items())) + ")"
    if case.status == FAILED:
        detail += f"  {case.message[:120]}"
    elif case.status == ERROR:
        detail += f"  {case.message[:200]}"
    return detail


@dataclass(slots=True)
class PropertyRunner:
    """What runs the properties of a run, here or in a worker (:func:`_property_task`):
    the plan, and the session's progress line (here only)."""

    plan: RunPlan
    progress: Callable[[str, str], None] | None = None

    def __getstate__(self) -> dict[str, Any]:
        # Hypothesis settings do not survive pickling (their "not set" marker is compared by
        # identity): a worker builds them again from the options
        return {"plan": dataclasses.replace(self.plan, base=settings())}

    def __setstate__(self, state: dict[str, Any]) -> None:
        plan: RunPlan = state["plan"]
        plan.base = base_settings(plan.opts, plan.seed_source)
        self.plan, self.progress = plan, None


def _property_task(context: Opened[PropertyRunner],
                   item: tuple[properties.Property, float | None]) -> properties.PropertyState:
    """Run one property with its share of the budget (None: no budget)."""
    prop, share = item
    p, opts = context.extra.plan, context.extra.plan.opts
    deadline = shrink_time = None
    if share is not None:
        deadline = properties.clock() + share
        # after a failure, shrinking may go on for half a share past the deadline (then
        # the smallest failure so far is kept); the next shares shrink accordingly
        shrink_time = max(share / 2, SHRINK_MIN_SECONDS)
    progress = context.extra.progress

    def on_example(st: properties.PropertyState) -> None:
        if progress is not None:
            extra = f", shrinking ({st.shrinks})" if st.shrinks else ""
            progress(prop.id, f"{st.examples} examples{extra}  {st.seconds:.1f}s")

    try:
        return properties.run_property(
            prop, context.subject, p.checks[prop.oracle],
            also=p.checks if opts.judge_all else {}, base=p.base, max_examples=p.max_examples,
            seed=p.seed, deadline=deadline, shrink_time=shrink_time, prepare=p.prepare,
            on_example=on_example, strict_intent=opts.strict_intent)
    except (KeyboardInterrupt, Terminated) as e:  # before Hypothesis started
        return properties.PropertyState(stopped_by="interrupted", interrupt=e,
                                        ended=time.monotonic())


def _run_properties(p: RunPlan, subject: Subject, session: Session, workers: int = 1,
                    spec: SubjectSpec | None = None) -> None:
    opts = p.opts
    shard = f" (shard {opts.shard[0]}/{opts.shard[1]} of {p.total_props})" if opts.shard else ""
    session.notice(f"properties: {len(p.props)}{shard}, up to {p.max_examples} examples each"
                   + (f", budget {opts.budget:g}s" if opts.budget else ""))
    if p.effective_config is not None:
        session.notice(f"configuration: {p.config_origin} in every case, the oracles judge "
                       "with it")
    started = properties.clock()

    def shares() -> Iterator[tuple[properties.Property, float | None]]:
        """Each property with its share of what is left of the budget (taken when it is
        started): the wall clock left × the workers, over the properties not started."""
        for i, prop in enumerate(p.props):
            if opts.budget is None:
                yield prop, None
                continue
            remaining = opts.budget - (properties.clock() - started)
            yield prop, max(remaining, 0.0) * workers / (len(p.props) - i)

    def case_started(item: tuple[properties.Property, float | None]) -> None:
        session.case_started(item[0].id)

    with Workers(workers, OpenSubject(spec or SubjectSpec(opts.subject), PropertyRunner(p)),
                 local=Opened(subject, PropertyRunner(p, session.progress))) as pool:
        outcomes = pool.map(_property_task, shares(), case_started)
        for i, (prop, st) in enumerate(zip(p.props, outcomes, strict=False)):
            case = _property_case(p, prop, st, subject)
            if st.failure is not None:
                for f in st.failure[1]:
                    session.violation(prop.id, f.oracle, f.text)
            if st.subject_error is not None:
                session.summary.error = str(st.subject_error)
            session.case_finished(case, _property_detail(case, st))
            if st.interrupt is not None:
                raise st.interrupt
            if st.subject_error is not None:
                for rest in p.props[i + 1:]:
                    session.case_finished(CaseResult(
                        "properties", f"kschedconf.properties.{rest.family}", rest.oracle,
                        status=SKIPPED, message="not run: the subject failed",
                        properties={"property": rest.id, "oracle": rest.oracle,
                                    "family": rest.family}))
                return


def subject_of(opts: RunOptions) -> SubjectSpec:
    """The run's subject, as each worker builds it (the arguments of :func:`run`'s)."""
    return SubjectSpec(opts.subject, config=opts.config, plugins=tuple(opts.plugins),
                       replaces=tuple(opts.replaces), timeout=opts.subject_timeout,
                       i_own_this_cluster=opts.i_own_this_cluster,
                       release=opts.release)


def _run_golden(p: RunPlan, subject: Subject, session: Session) -> None:
    session.notice(f"golden: {len(p.golden_files)} golden scenarios in {p.golden_dir}")
    out_dir = Path(p.opts.out)

    def counterexample(case: CaseResult, path: Path) -> None:
        scenario, decisions, _ = golden.read_scenario_file(path)
        if "decisions" in case.properties:  # re-recorded under the subject's configuration
            runs = subject.fixed_config if subject.fixed_config is not None else p.config_doc
            scenario = scenario.with_config(runs)
            decisions = golden.rerecord(scenario)
        name = f"golden-{golden.flat_name(case.name)}"
        out = out_dir / f"{name}.yaml"
        case.reproduce = reproduce_command(str(out), p.opts, None)
        diffs = case.details.splitlines()
        notes = [f"golden: {path}", f"subject: {describe_subject(subject)}",
                 f"reproduce: {case.reproduce}", *[f"difference: {d}" for d in diffs[:40]]]
        golden.write_scenario_file(out, scenario.derived(name=name, notes=notes), decisions)
        case.counterexample = str(out)
        case.details = "\n".join([*diffs, f"counterexample: {out}",
                                  f"reproduce: {case.reproduce}"])

    golden.verify(session, subject, p.golden_dir, p.golden_files, p.config_doc,
                  counterexample, p.checks if p.opts.judge_all else None,
                  p.opts.strict_intent, p.opts.release,
                  workers=min(p.workers, len(p.golden_files)), spec=subject_of(p.opts))


def _run_differential(p: RunPlan, subject: Subject, session: Session) -> list[str]:
    """The differential suite: the subject against the reference (docs/diff.md), up to
    --max-examples scenarios of each size, and with --budget as much time of its own; with
    --shard, the sizes are split over the shards."""
    opts = p.opts
    families = properties.select_shard(p.families, *opts.shard) if opts.shard else p.families
    if not families:
        session.notice(f"differential: no scenario size in shard {opts.shard[0]}/"
                       f"{opts.shard[1]} (the sizes are split over the shards)")
        return []
    return differential(session, subject, DifferentialOptions(
        opts.subject, opts.plugins, opts.config, p.config_doc,
        {f: p.max_examples for f in families}, p.seed, opts.budget, opts.out,
        opts.shrink, named=opts.suite == "differential", release=opts.release,
        workers=p.workers, spec=subject_of(opts)))


def _totals(p: RunPlan, summary: RunSummary) -> list[str]:
    props = [c for c in summary.cases if c.suite == "properties"]
    parts = [f"{len(props)} properties ({sum(c.examples for c in props)} examples)"]
    if p.opts.suite in ("golden", "all"):
        parts.append(f"{sum(1 for c in summary.cases if c.suite == 'golden')} golden scenarios")
    compared = sum(1 for c in summary.cases if c.suite == "diff" and c.status != SKIPPED)
    if compared or p.opts.suite == "differential":
        parts.append(f"{compared} differential scenarios")
    return parts


def stop_reasons(p: RunPlan, summary: RunSummary, seconds: float) -> str:
    """Why the properties stopped, in one line: ``properties stopped: 7 at the 25-example
    cap of the dev profile (--max-examples N to draw more), ...``; empty when none ran."""
    counts: dict[str, int] = {}
    for c in summary.cases:
        if c.suite == "properties" and c.stopped_by:
            counts[c.stopped_by] = counts.get(c.stopped_by, 0) + 1
    if not counts:
        return ""
    cap = (f"the --max-examples {p.max_examples} cap" if p.opts.max_examples is not None
           else f"the {p.max_examples}-example cap of the {p.opts.profile} profile")
    words = {
        "max_examples": f"at {cap} (a larger --max-examples draws more)",
        "exhausted": "when Hypothesis drew no further distinct scenario",
        "budget": "by the --budget",
        "failure": "by a failure",
        "error": "by an error",
        "interrupted": "by the interrupt",
    }
    parts = [f"{n} {words.get(k, k)}" for k, n in counts.items()]
    line = "properties stopped: " + ", ".join(parts)
    if (p.opts.budget is not None and "budget" not in counts
            and seconds < p.opts.budget):
        line += f" after {seconds:.0f}s of the {p.opts.budget:g}s budget"
    return line


def _artifacts(p: RunPlan, summary: RunSummary, seconds: float) -> list[str]:
    out = []
    if stop := stop_reasons(p, summary, seconds):
        out.append(stop)
        summary.properties["stopped"] = stop
    if summary.count(FAILED):
        out.append(f"counterexamples in {p.opts.out}/ (replay with `kschedconf reproduce`)")
    out.append(f"seed {p.seed}: rerun with `{summary.properties.get('rerun', '')}`")
    return out


def run(opts: RunOptions, bus: EventBus) -> RunSummary:
    """Run the suites; failures and subject errors are in the summary. A
    :class:`UsageError` for bad options, before anything runs."""
    p = plan(opts)
    try:
        subject = make_subject(opts.subject, config=opts.config, plugins=opts.plugins,
                               replaces=opts.replaces,
                               timeout=opts.subject_timeout,
                               i_own_this_cluster=opts.i_own_this_cluster,
                               release=opts.release)
    except SubjectError as e:
        session = Session("run", bus, properties={"subject.spec": opts.subject,
                                                  "upstream.release": opts.release})
        session.start(f"kschedconf run: subject {opts.subject}")
        session.case_finished(CaseResult("properties", "kschedconf.subject", opts.subject,
                                         status=ERROR, message=str(e).splitlines()[0],
                                         details=str(e)))
        return session.finish(totals=["subject"], error=str(e))
    p.resolve_config(subject)
    properties_ = run_properties_header(opts, subject, p.seed, p.seed_source)
    properties_["config.judged"] = p.config_origin
    properties_["rerun"] = rerun_command(opts, p.families, p.seed)
    session = Session("run", bus, properties=properties_, planned=p.planned)
    drawn = " (drawn: --seed replays this run)" if p.seed_source == "drawn" else ""
    session.start(f"kschedconf run: suite {opts.suite}; subject {describe_subject(subject)}; "
                  f"upstream {opts.release}; profile {opts.profile}; seed {p.seed}{drawn}")
    stop: BaseException | None = None
    differential_lines: list[str] = []
    started = time.monotonic()
    props_seconds: float | None = None
    try:
        with subject:
            if opts.suite in ("properties", "all"):
                try:
                    _run_properties(p, subject, session, min(p.workers, len(p.props)),
                                    subject_of(opts))
                finally:
                    props_seconds = time.monotonic() - started
            if opts.suite in ("golden", "all") and not session.summary.error:
                _run_golden(p, subject, session)
            if opts.suite in ("differential", "all") and not session.summary.error:
                differential_lines = _run_differential(p, subject, session)
    except (KeyboardInterrupt, Terminated) as e:
        stop = e
    summary = session.finish(totals=_totals(p, session.summary),
                             artifacts=[*_artifacts(p, session.summary,
                                                    props_seconds or 0.0),
                                        *differential_lines], stop=stop)
    if stop is not None:
        raise stop
    return summary


# --- reproduce ---------------------------------------------------------------------------------

@dataclass(slots=True)
class ReproduceOutcome:
    findings: list[Finding] = field(default_factory=list)  # the failing ones
    golden_differences: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    oracles: list[str] = field(default_factory=list)
    golden: bool = False  # the file held recorded decisions, compared
    seed: int = 0
    subject: str = ""  # describe_subject
    found_with: str = ""  # the file's ``subject:`` note
    warnings: list[str] = field(default_factory=list)  # the subject's (dropped input...)
    not_judged: str = ""  # why the oracles could judge nothing (conformance/core/dropped.py)
    #: findings that break only upstream's intent, as upstream does (not failures)
    matching_upstream: list[Finding] = field(default_factory=list)
    #: findings that break only rules a declared replacement changes on purpose (not failures)
    intended: list[Finding] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if self.findings or self.golden_differences:
            return EXIT_FAILED
        return EXIT_USAGE if self.not_judged else EXIT_OK


def _write_apart(stream: TextIO, findings: Sequence[Finding], title: str) -> None:
    """Findings reported apart from the violations (not failures): a title, one line each."""
    if findings:
        stream.write(f"{title}:\n")
        for f in findings:
            stream.write(f"  {str(f).splitlines()[0]}\n")


def reproduce(path: str, subject_spec: str = "reference", oracles: Sequence[str] = (), *,
              config: str | None = None, plugins: Sequence[str] = (),
              replaces: Sequence[str] = (),
              timeout: float | None = None, i_own_this_cluster: str | None = None,
              stream: TextIO | None = None, strict_intent: bool = False,
              release: str | None = None) -> ReproduceOutcome:
    """Replay one scenario file on a subject and apply the oracles (the ones given, else the
    one named in the file's ``oracle:`` note, else all); a golden file's decisions are
    compared too. A finding that matches a known upstream deviation is listed apart and does
    not fail unless ``strict_intent``. The scenario is scheduled as ``release``, else as the
    release the file names. Raises ``SubjectError`` / ``UsageError``."""
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
    if release is not None and release != scenario.release:
        if decisions is not None:
            raise UsageError(f"{path} holds the decisions of {scenario.release}; --release "
                             f"{release} would compare another release's decisions with them")
        scenario = scenario.derived(release=release)
    out = ReproduceOutcome(oracles=list(checks), golden=decisions is not None,
                           seed=scenario.seed, found_with=notes.get("subject", ""))
    with make_subject(subject_spec, config=config, plugins=plugins, replaces=replaces,
                      timeout=timeout,
                      i_own_this_cluster=i_own_this_cluster,
                      release=scenario.release) as subject:
        out.subject = describe_subject(subject)
        stream.write(f"scenario {path} (seed {scenario.seed}, upstream {scenario.release}); "
                     f"subject {out.subject}\n")
        if out.found_with:
            stream.write(f"found with: {out.found_with}\n")
        result, findings = evaluate(subject, scenario, checks)
        out.findings = failures(findings, strict_intent)
        out.intended = [f for f in findings if f.intended]
        out.matching_upstream = [f for f in findings
                                 if f not in out.findings and not f.intended]
        out.result = result.result if result is not None else None
    if result is not None:
        out.warnings = list(result.warnings)
        out.not_judged = not_judged(result.result, result.warnings)
        for w in out.warnings:
            stream.write(f"warning: {w}\n")
        dropped = dropped_counts(out.warnings)
        if dropped:
            stream.write(f"the subject dropped input it does not model: "
                         f"{describe_counts(dropped)}\n")
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
    elif out.not_judged:
        stream.write(f"not judged: {out.not_judged}\n")
    else:
        stream.write("no violations\n")
    _write_apart(stream, out.matching_upstream, (
        f"{len(out.matching_upstream)} finding(s) match upstream (known upstream deviations "
        f"{', '.join(matching_upstream(out.matching_upstream))}; --strict-intent fails them)"))
    _write_apart(stream, out.intended, (
        f"{len(out.intended)} intended change(s) (rules "
        f"{', '.join(intended_changes(out.intended))} changed on purpose by a declared "
        "replacement; not failures)"))
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
