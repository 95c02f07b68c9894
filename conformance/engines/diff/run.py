"""A ``kschedconf diff`` run: generated and golden scenarios compared, one case each, through a
:class:`Session`; then the kinds of unexplained divergence shrunk to minimal scenarios."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from conformance.core.errors import Terminated, UsageError, raise_requested_stop
from conformance.core.events import EventBus
from conformance.core.results import ERROR, SKIPPED, CaseResult, RunSummary
from conformance.core.scenario import ScenarioInput, read_config_doc
from conformance.core.subject import ScenarioTimedOut, Subject, SubjectError, describe_subject
from conformance.engines.baseline import BaselineReference, against_reference
from conformance.engines.diff.cases import (
    SUITE,
    artifacts,
    attach_minimal,
    case_result,
    classname,
    detail,
    totals,
)
from conformance.engines.diff.compare import diff_scenario
from conformance.engines.diff.confirm import confirm
from conformance.engines.diff.minimal import Minimal, minimal_path, save
from conformance.engines.diff.model import ScenarioDiff, Sig
from conformance.engines.diff.plan import DiffOptions, DiffPlan, check_options, resolve_plan
from conformance.engines.diff.search import (
    OutOfBudget,
    ShrinkJob,
    SubjectAbort,
    fingerprint,
    hypothesis_test,
    shrink,
)
from conformance.engines.golden import flat_name, golden_name, read_scenario_file
from conformance.engines.session import Session
from conformance.engines.workers import (
    Pending,
    SubjectSpec,
    Workers,
    check_shareable,
    resolve_workers,
)
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available

#: The other subject, or what builds it (called once the options are checked).
OtherSubject = Subject | Callable[[], Subject]

#: Generated scenarios compared at once without ``--workers`` (the comparer threads of
#: :meth:`DiffRun.generated`): a scenario's comparison is mostly waiting for the other
#: subject's answers, one after another (its run, then the explanations of its attempts), so
#: others compared meanwhile keep the reference and upstream's serve processes busy
#: (bench/diff_throughput.py: 1, 2, 3 and 4 tried; 3 and 4 alike). Only where both subjects
#: take runs from several threads (``Subject.concurrent_runs``); else one.
COMPARERS = 3


@dataclass(slots=True)
class DiffReport:
    """A run's :class:`RunSummary` with the comparisons behind its cases."""

    summary: RunSummary
    results: list[ScenarioDiff] = field(default_factory=list)
    minimal: list[Minimal] = field(default_factory=list)
    seed: int | None = None

    @property
    def exit_code(self) -> int:
        return self.summary.exit_code

    @property
    def error(self) -> str:
        return self.summary.error

    @property
    def unexplained(self) -> int:
        return sum(len(r.unexplained) for r in self.results)


class DiffRun:
    """The scenarios of one run compared on two subjects (see :func:`run_diff`)."""

    def __init__(self, plan: DiffPlan, ref: Subject, up: Subject, session: Session) -> None:
        self.plan, self.ref, self.up, self.session = plan, ref, up, session
        self.results: list[ScenarioDiff] = []
        self.minimal: list[Minimal] = []
        self.cases: list[tuple[CaseResult, ScenarioDiff]] = []
        self.deadline: float | None = None
        self.compare_seconds = 0.0
        self.started = time.monotonic()
        # fingerprint -> kinds of unexplained divergence, per family (shrinking)
        self.seen: dict[str, dict[str, list[Sig]]] = {}
        # the first scenario showing each kind, with the kinds it showed first
        self.jobs: list[ShrinkJob] = []
        self.grouped: set[Sig] = set()
        self.workers = max(1, plan.options.upstream_workers)
        self.executor = ThreadPoolExecutor(max_workers=self.workers,
                                           thread_name_prefix="kschedconf-diff")
        #: the threads comparing the generated scenarios (without ``--workers``) while this
        #: one generates the next (:meth:`generated`)
        self.comparers = COMPARERS if ref.concurrent_runs and up.concurrent_runs else 1
        self.comparer = ThreadPoolExecutor(max_workers=self.comparers,
                                           thread_name_prefix="kschedconf-diff-compare")
        #: the worker processes comparing the scenarios (``--workers`` > 1), else None
        self.pool: Workers | None = None

    def compare(self, scenario: ScenarioInput, family: str,
                modes: Sequence[str] | None = None) -> ScenarioDiff:
        """One scenario compared (from any thread: the comparer threads call it at once;
        its seconds are counted by the caller, :meth:`timed_compare`)."""
        res = diff_scenario(self.plan.prepare(scenario), self.ref, self.up,
                            modes or self.plan.modes, self.plan.known, family,
                            self.plan.options.max_steps, self.executor, 2 * self.workers)
        for d in res.divergences:
            d.other = self.plan.other_label
        for t in res.tie_breaks:
            t.other = self.plan.other_label
        return res

    def timed_compare(self, scenario: ScenarioInput, family: str,
                      modes: Sequence[str] | None = None) -> ScenarioDiff:
        """:meth:`compare` in this thread, its seconds counted in ``compare_seconds``."""
        t0 = time.monotonic()
        try:
            return self.compare(scenario, family, modes)
        finally:
            self.compare_seconds += time.monotonic() - t0

    def judge(self, scenario: ScenarioInput, family: str) -> ScenarioDiff | None:
        """Compare one scenario as a case of the run; a subject error is the case's error
        (None: a scenario the subject gave up, :class:`ScenarioTimedOut`)."""
        s = self.session
        s.case_started(scenario.name)
        s.progress(scenario.name, self._counters())
        try:
            res = self.timed_compare(scenario, family)
        except SubjectError as e:
            return self.record(scenario, family, e)
        return self.record(scenario, family, res)

    def record(self, scenario: ScenarioInput, family: str,
               outcome: ScenarioDiff | SubjectError) -> ScenarioDiff | None:
        """Report one compared scenario (its case was started); a subject error is raised
        after its error case, except a scenario the subject gave up (:class:`ScenarioTimedOut`:
        None, and the run goes on with the next)."""
        s = self.session
        if isinstance(outcome, SubjectError):
            s.case_finished(CaseResult(SUITE, classname(family), scenario.name, status=ERROR,
                                       message=str(outcome).splitlines()[0],
                                       details=str(outcome)))
            if isinstance(outcome, ScenarioTimedOut):
                return None
            raise outcome
        res = outcome
        self.results.append(res)
        for d in res.divergences:
            if not d.consequence:
                s.divergence(res.name, str(d), known=bool(d.known))
        case = case_result(res)
        self.cases.append((case, res))
        s.case_finished(case, detail(res))
        return res

    @property
    def sides(self) -> str:
        """The sides compared, for scenario files: ``reference vs upstream``."""
        if self.plan.options.subject:
            return f"subject {self.up.name} ({self.plan.options.subject}) vs the reference"
        return f"reference vs {self.up.name}"

    def _counters(self) -> str:
        done = len(self.results)
        rate = done / max(time.monotonic() - self.started, 1e-9)
        return (f"{done}/{self.plan.planned} scenarios  {rate:.2f}/s  divergences: "
                f"{sum(len(r.unexplained) for r in self.results)} unexplained, "
                f"{sum(len(r.known) for r in self.results)} known; tie-breaks "
                f"{sum(len(r.tie_breaks) for r in self.results)}")

    def _family_line(self, family: str, before: int, t0: float, stopped: str = "") -> None:
        count = len(self.results) - before
        secs = time.monotonic() - t0
        bad = sum(1 for r in self.results[before:] if r.unexplained)
        skipped = sum(1 for r in self.results[before:] if r.unsupported)
        self.session.notice(f"  {family}: {count} scenarios in {secs:.1f}s "
                            f"({count / max(secs, 1e-9):.2f}/s), {bad} with unexplained "
                            f"divergences"
                            + (f", {skipped} skipped (not supported by a subject)"
                               if skipped else "") + stopped)

    # ----- generated scenarios -----
    def generated(self, family: str, n: int) -> None:
        """Compare ``n`` scenarios of a family. Hypothesis draws them in this thread; each is
        compared by the worker processes (``--workers``) or else by the comparer threads
        (:data:`COMPARERS` scenarios at once), so that drawing the next scenario overlaps the
        comparison of the previous ones (whose time is mostly waiting for upstream's
        answers); the outcomes are reported in the order drawn, as one at a time would."""
        if n <= 0:
            return
        index = [0]
        seen = self.seen.setdefault(family, {})
        # the scenarios being compared, taken back in their order
        window: deque[tuple[str, ScenarioInput, Pending[Compared] | Future[Compared]]] = deque()
        ahead = 2 * self.pool.n if self.pool is not None else self.comparers

        def found(fp: str, scenario: ScenarioInput, res: ScenarioDiff | None) -> None:
            if res is None:  # given up by the subject: an error case, nothing to shrink
                return
            seen[fp] = res.signatures()
            new = [sig for sig in res.signatures() if sig not in self.grouped]
            if new:
                self.grouped.update(new)
                self.jobs.append(ShrinkJob(family, res, scenario, new))

        def ready(pending: Pending[Compared] | Future[Compared]) -> bool:
            return pending.done() if isinstance(pending, Future) else pending.ready()

        def take(until: int) -> None:
            """Report the compared scenarios in order while more than ``until`` are out, or
            the first is done."""
            while window and (len(window) > until or ready(window[0][2])):
                fp, scenario, pending = window[0]
                if isinstance(pending, Future):
                    # interrupted while waiting: still in the window (see the stop below)
                    outcome, seconds = pending.result()
                    self.compare_seconds += seconds / self.comparers  # the wall clock, about
                    window.popleft()
                    self.session.case_started(scenario.name)
                else:
                    assert self.pool is not None
                    window.popleft()
                    self.session.case_started(scenario.name)
                    outcome, seconds = pending.get()
                    self.compare_seconds += seconds / self.pool.n  # the wall clock, about
                found(fp, scenario, self.record(scenario, family, outcome))

        def body(scenario: ScenarioInput) -> None:
            raise_requested_stop()
            if self.deadline is not None and index[0] > 0 and time.monotonic() >= self.deadline:
                raise OutOfBudget
            index[0] += 1
            fp = fingerprint(scenario)
            scenario = scenario.derived(name=f"{family}-{index[0]:04d}", notes=[], covers="",
                                        release=self.plan.options.release)
            try:
                if self.pool is None:
                    window.append((fp, scenario, self.comparer.submit(
                        compare_task, self, (scenario, family))))
                else:
                    window.append((fp, scenario,
                                   self.pool.submit(compare_task, (scenario, family))))
                take(ahead)
            except SubjectError as e:
                raise SubjectAbort(e) from e

        test = hypothesis_test(family, n, self.plan.seed or 0, body, shrink=False)
        t0, before, stopped = time.monotonic(), len(self.results), ""
        try:
            test()
        except OutOfBudget:
            stopped = " (budget)"
        except SubjectAbort as a:
            raise a.error from None
        except (KeyboardInterrupt, Terminated):
            if self.pool is None:
                # the comparer threads finish their scenarios all the same (close() waits for
                # them): reported, as when this thread compared and the stop came after them
                with contextlib.suppress(SubjectError):
                    take(0)
            raise
        take(0)
        self._family_line(family, before, t0, stopped)

    # ----- golden scenarios -----
    def golden(self) -> None:
        t0, before = time.monotonic(), len(self.results)
        items: list[tuple[ScenarioInput, str]] = []
        for path in self.plan.golden_files:
            scenario, _, _ = read_scenario_file(path)
            name = golden_name(path, self.plan.golden_dir)
            # the golden scenarios as inputs: both sides schedule them as the run's release
            items.append((scenario.derived(name=f"golden-{flat_name(name)}", notes=[],
                                           covers="", release=self.plan.options.release),
                          "golden"))
        outcomes = (self.pool.map(compare_task, items) if self.pool is not None
                    else iter(()))
        for scenario, _ in items:
            raise_requested_stop()
            if self.deadline is not None and time.monotonic() >= self.deadline and \
                    len(self.results) > before:
                self.session.notice("  golden: stopped by the budget")
                break
            if self.pool is None:
                res = self.judge(scenario, "golden")
            else:
                self.session.case_started(scenario.name)
                outcome, seconds = next(outcomes)
                self.compare_seconds += seconds / self.pool.n  # the wall clock, about
                res = self.record(scenario, "golden", outcome)
            if res is not None and res.unexplained:
                out = self.plan.out / f"diff-{res.name}.yaml"
                reproduce = self.plan.reproduce(out)
                save(out, scenario, res, subject=self.sides, seed=self.plan.seed,
                     reproduce=reproduce, shrunk=False, kinds=res.signatures())
                self.minimal.append(Minimal(
                    res.signatures(), str(out), False, res.name,
                    [d for d in res.unexplained if not d.consequence], reproduce,
                    note="a golden scenario (not shrunk)"))
        self._family_line("golden", before, t0)

    # ----- shrinking -----
    def shrink_all(self) -> None:
        if not self.jobs:
            return
        kinds = sum(len(j.sigs) for j in self.jobs)
        self.session.notice(f"shrinking {len(self.jobs)} scenario(s) showing {kinds} kind(s) "
                            f"of divergence (at most {self.plan.options.shrink_time:g}s "
                            f"each)...")
        for job in self.jobs:
            raise_requested_stop()
            m = shrink(job, self.plan, self.timed_compare, self.seen.get(job.family, {}),
                       self.sides)
            self.minimal.append(m)
            self.session.notice(f"  {m.kinds()}: {m.path}"
                                + (f" (shrunk, {m.shrink_steps} steps)" if m.shrunk
                                   else f" ({m.note})"))

    def check_upstream(self) -> None:
        """``--subject``: whose decisions upstream makes on each minimal scenario
        (:mod:`.confirm`), when the upstream subject is built."""
        if not (self.plan.options.subject and self.plan.options.upstream_check
                and isinstance(self.ref, BaselineReference) and binary_available()):
            return
        for line in confirm(self.minimal, self.ref, self.up, UpstreamSubject,
                            self.plan.prepare):
            self.session.notice(line)

    def save_unshrunk(self, note: str) -> None:
        """Write the scenarios of the kinds not shrunk yet as they were found (a run stopped
        midway)."""
        done = {sig for m in self.minimal for sig in m.signatures}
        for job in self.jobs:
            if done.isdisjoint(job.sigs):
                path = minimal_path(self.plan.out, job.sigs)
                reproduce = self.plan.reproduce(path)
                save(path, job.scenario, job.result, subject=self.sides,
                     seed=self.plan.seed, reproduce=reproduce, shrunk=False, kinds=job.sigs)
                self.minimal.append(Minimal(
                    job.sigs, str(path), False, job.result.name,
                    [d for d in job.result.unexplained if d.signature in job.sigs],
                    reproduce, note=note))

    def summary_lines(self) -> tuple[list[str], list[str]]:
        """The minimal scenarios named in the failed cases; the totals and artifacts."""
        by_sig = {sig: m for m in self.minimal for sig in m.signatures}
        own = {m.first_scenario: m for m in self.minimal}
        for case, res in self.cases:
            attach_minimal(case, res, by_sig, own.get(res.name))
        return (totals(self.results, self.compare_seconds),
                artifacts(self.results, self.minimal, self.plan.seed))

    def close(self, terminate: bool = False) -> None:
        """Stop the worker processes (at once with ``terminate``) and the comparison threads,
        and release both subjects."""
        try:
            if self.pool is not None:
                self.pool.close(terminate)
            self.comparer.shutdown(wait=True, cancel_futures=True)
            self.executor.shutdown(wait=True, cancel_futures=True)
        finally:
            try:
                self.ref.close()
            finally:
                self.up.close()


#: A scenario compared in a worker: its comparison (or the subject error), and the seconds
Compared = tuple[ScenarioDiff | SubjectError, float]


@dataclass(frozen=True, slots=True)
class DiffSetup:
    """What a worker process builds: the run's subjects from their specs, its plan (with the
    run's seed), in a :class:`DiffRun` that reports nowhere (:func:`compare_task`)."""

    options: DiffOptions
    other: SubjectSpec
    seed: int | None

    def __call__(self) -> DiffRun:
        opts = dataclasses.replace(self.options, seed=self.seed, workers=1)
        ref, up = open_subjects(self.other, None, opts)
        return DiffRun(resolve_plan(opts, up), ref, up, Session("diff", EventBus([])))


def compare_task(run: DiffRun, item: tuple[ScenarioInput, str]) -> Compared:
    """Compare one scenario of a family in a worker."""
    t0 = time.monotonic()
    try:
        outcome: ScenarioDiff | SubjectError = run.compare(*item)
    except SubjectError as e:
        outcome = e
    return outcome, time.monotonic() - t0


def start_workers(run: DiffRun, other: OtherSubject, reference: Subject | None) -> None:
    """``--workers N`` > 1: the processes that compare the run's scenarios, each with
    subjects built from ``other``'s spec."""
    opts = run.plan.options
    n = resolve_workers(opts.workers, run.plan.planned)
    if n <= 1:
        return
    if not isinstance(other, SubjectSpec) or reference is not None:
        raise UsageError("--workers: the other subject must be given by its spec")
    check_shareable(other.spec, n)
    run.pool = Workers(n, DiffSetup(opts, other, run.plan.seed))


def open_subjects(other: OtherSubject, reference: Subject | None,
                  opts: DiffOptions | None = None) -> tuple[Subject, Subject]:
    """The reference (default: the in-process reference scheduler) and the other subject.
    With ``--subject`` (``opts.subject``), the reference runs the subject's configuration,
    its user plugins swapped for the in-tree ones they replace (:mod:`..baseline`)."""
    if opts is not None and opts.subject and reference is None:
        up = other if isinstance(other, Subject) else other()
        try:
            config = read_config_doc(opts.config) if opts.config else None
            ref, up, _ = against_reference(up, config)
        except BaseException:
            up.close()
            raise
        return ref, up
    ref = reference if reference is not None else ReferenceSubject()
    try:
        up = other if isinstance(other, Subject) else other()
    except BaseException:
        ref.close()
        raise
    return ref, up


def failed_to_start(session: Session, error: SubjectError) -> DiffReport:
    """The report of a run whose subjects could not be built: one error case."""
    session.start("kschedconf diff: the subjects could not start")  # the error: in the case
    session.case_finished(CaseResult(SUITE, "kschedconf.diff", "subject", status=ERROR,
                                     message=str(error).splitlines()[0], details=str(error)))
    return DiffReport(session.finish(error=str(error)))


def header(plan: DiffPlan, up: Subject, ref: Subject | None = None) -> str:
    d = {k: v for k, v in up.describe().items() if k not in ("subject", "binary")}
    described = f" ({', '.join(f'{k}={v}' for k, v in d.items())})" if d else ""
    counts = ", ".join(f"{n} {k}" for k, n in plan.counts.items() if n) or "0 generated"
    if plan.options.subject and ref is not None:
        return (f"kschedconf diff: subject {up.name}{described} vs {describe_subject(ref)}; "
                f"modes {', '.join(plan.modes)}; seed {plan.seed}; {counts}"
                + (" + golden" if plan.golden_files else ""))
    return (f"kschedconf diff: reference vs {up.name}{described}; upstream "
            f"{plan.options.release}; modes {', '.join(plan.modes)}; seed {plan.seed}; {counts}"
            + (" + golden" if plan.golden_files else ""))


@contextlib.contextmanager
def collector_frozen() -> Iterator[None]:
    """The objects alive when the comparisons start (the modules, Hypothesis, the subjects,
    the release data) left out of Python's cyclic garbage collections while they last
    (``gc.freeze``): the oldest generation's collections walked them all, most of the
    collector's time in a run (bench/diff_throughput.py's notes). The run's own garbage is collected
    as before; what was frozen goes back to the oldest generation at the end."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def run_diff(opts: DiffOptions, bus: EventBus, other: OtherSubject,
             reference: Subject | None = None) -> DiffReport:
    """Run ``kschedconf diff``: events on ``bus``, the report at the end (also after Ctrl-C or
    a signal: the summary so far). Divergences and subject errors are in the report;
    :class:`UsageError` for bad options. The run closes both subjects."""
    check_options(opts)
    try:
        ref, up = open_subjects(other, reference, opts)
    except SubjectError as e:
        return failed_to_start(Session("diff", bus), e)
    try:
        plan = resolve_plan(opts, up)
    except BaseException:
        ref.close()
        up.close()
        raise
    session = Session("diff", bus, properties=plan.properties(up), planned=plan.planned)
    run = DiffRun(plan, ref, up, session)
    try:
        start_workers(run, other, reference)
    except BaseException:
        run.close()
        raise
    if opts.budget is not None:
        run.deadline = run.started + opts.budget
    session.start(header(plan, up, ref))
    error, stop = "", None
    try:
        with collector_frozen():
            for family, n in plan.counts.items():
                run.generated(family, n)
            if plan.golden_files:
                run.golden()
            run.shrink_all()
            run.check_upstream()
    except SubjectError as e:
        error = str(e)
    except (KeyboardInterrupt, Terminated) as e:
        stop = e
    finally:
        run.close(terminate=stop is not None or bool(error))
    if stop is not None or error:
        run.save_unshrunk("the run stopped before shrinking")
    session.summary.properties["scenarios"] = str(len(run.results))
    if not run.results and not error and stop is None:
        session.case_finished(CaseResult(SUITE, "kschedconf.diff", "nothing-compared",
                                         status=SKIPPED, message="no scenario was compared"))
    total, arts = run.summary_lines()
    summary = session.finish(totals=total, artifacts=arts, error=error, stop=stop)
    return DiffReport(summary, run.results, run.minimal, plan.seed)
