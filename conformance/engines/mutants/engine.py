"""``kschedconf mutants`` as an engine: runs a :class:`MutantsPlan` (triage, first round,
second round) and reports through a :class:`Session`: one case per mutant (caught passes,
survived fails, equivalent and not reached are skipped, ineffective and error are errors)
and the caught percentage against the threshold as the run's verdict. Ctrl-C or a signal
ends the run with the summary of the mutants judged so far."""

from __future__ import annotations

import time
from collections.abc import Sequence

from conformance.core.errors import Terminated
from conformance.core.events import EventBus
from conformance.core.results import SKIPPED, CaseResult
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.outcomes import (
    NOT_REACHED,
    SURVIVED,
    MutantOutcome,
    MutantsReport,
    in_order,
)
from conformance.engines.mutants.plan import MutantsPlan
from conformance.engines.mutants.rounds import (
    Budget,
    merge,
    run_round,
    second_round,
    triage,
    wants_second_round,
)
from conformance.engines.session import Session, interruption


def new_session(plan: MutantsPlan, bus: EventBus | None = None) -> Session:
    """The session of a mutants run: its properties and the number of mutants planned."""
    return Session("mutants", bus if bus is not None else EventBus(),
                   properties=plan.properties(), planned=len(plan.mutants))


class _Run:
    """The state of one run: outcomes so far, survivors held for a second round, the cases
    reported."""

    def __init__(self, plan: MutantsPlan, session: Session) -> None:
        self.plan = plan
        self.session = session
        self.names = [m.name for m in plan.mutants]
        self.t0 = time.monotonic()
        self.budget = Budget(None, 1, {})
        self.done: dict[str, MutantOutcome] = {}
        self.held: list[str] = []  # first-round survivors that may get a second round
        self.reported: set[str] = set()
        self.running: list[str] = []  # started and not finished
        #: the mutants of the round, in the order they are reported whatever the workers:
        #: each outcome waits for those before it (None: held for the second round)
        self.expected: list[str] = []
        self.decided: dict[str, MutantOutcome | None] = {}

    def started(self, mutant: Mutant, running: Sequence[str]) -> None:
        self.running = [*running, mutant.name] if mutant.name not in running else list(running)
        if self.plan.jobs == 1:
            self.session.case_started(mutant.name)
        else:
            self.session.progress("mutants", f"{len(self.reported)}/{len(self.names)} done; "
                                             f"running {', '.join(running)}")

    def finished(self, outcome: MutantOutcome) -> None:
        self.budget.finish(outcome.name, outcome.total_seconds)
        first = self.done.get(outcome.name)
        final = outcome if first is None else merge(first, outcome)
        self.done[outcome.name] = final
        if first is None and wants_second_round(final, self.plan.opts):
            self.held.append(final.name)
            self.decided[final.name] = None
        else:
            self.decided[final.name] = final
        while self.expected and self.expected[0] in self.decided:
            decided = self.decided.pop(self.expected.pop(0))
            if decided is not None:
                self.report(decided)

    def expect(self, names: Sequence[str]) -> None:
        """The next round runs ``names``; their outcomes are reported in this order."""
        self.expected, self.decided = list(names), {}

    def report(self, outcome: MutantOutcome) -> None:
        outcome.settle()
        self.session.case_started(outcome.name)
        self.session.case_finished(outcome.case(), outcome.detail())
        self.reported.add(outcome.name)

    def rounds(self) -> None:
        plan, opts, s = self.plan, self.plan.opts, self.session
        n = len(self.names)
        order, weights = triage(plan.mutants, opts.oracles,
                                lambda i: s.progress("witnesses", f"{i}/{n} checked"),
                                opts.release)
        self.budget = Budget(opts.budget, plan.jobs, weights)
        self.expect([mu.name for mu in order])
        run_round([(mu, opts) for mu in order], plan.jobs, self.budget, self.finished,
                  self.started)
        rank = {mu.name: i for i, mu in enumerate(order)}
        survivors = sorted((self.done[name] for name in self.held), key=lambda o: rank[o.name])
        nxt = second_round(opts, time.monotonic() - self.t0, plan.jobs, survivors,
                           plan.mutants)
        if nxt is None:
            for o in survivors:
                self.report(o)
            return
        tasks, self.budget = nxt
        left = (self.budget.total or 0.0) / plan.jobs
        s.notice(f"second round: {len(tasks)} survivor(s) the oracles see on their witness "
                 f"share the {left:.0f}s left, on new scenarios (seed {opts.seed + 1})")
        self.expect([mu.name for mu, _ in tasks])
        run_round(tasks, plan.jobs, self.budget, self.finished, self.started)

    def report_rest(self, stop: BaseException) -> None:
        """Report the first-round outcomes of survivors whose second round did not end, and
        the mutants the interrupt stopped midway (skipped, marked interrupted)."""
        for name in self.names:
            if name in self.done and name not in self.reported:
                self.report(self.done[name])
        by_name = {mu.name: mu for mu in self.plan.mutants}
        for name in self.running:
            if name in self.reported or name not in by_name:
                continue
            mu = by_name[name]
            self.session.case_started(name)
            self.session.case_finished(CaseResult(
                "mutants", f"kschedconf.mutants.{mu.area.replace(' ', '_')}", name,
                status=SKIPPED, message=f"interrupted by {interruption(stop)[0]} while running",
                properties={"verdict": "interrupted", "area": mu.area}), "interrupted")
            self.reported.add(name)

    def outcome_report(self) -> MutantsReport:
        return MutantsReport(in_order(list(self.done.values()), self.names), self.plan.opts,
                             time.monotonic() - self.t0, self.plan.jobs)

    def close(self, report: MutantsReport, exc: BaseException | None = None) -> None:
        """Finish the session: cases in catalogue order, the tally, what to rerun."""
        s = self.session
        rank = {name: i for i, name in enumerate(self.names)}
        s.cases.sort(key=lambda c: rank.get(c.name, len(rank)))
        s.summary.properties.update(caught=str(report.caught), counted=str(len(report.counted)),
                                    percent=f"{report.percent:.1f}")
        artifacts = []
        survivors = [o.name for o in report.outcomes if o.status in (SURVIVED, NOT_REACHED)]
        if survivors:
            artifacts.append(f"rerun the survivors: {self.plan.rerun_command(survivors)}")
        not_run = [name for name in self.names if name not in self.done]
        if not_run:
            artifacts.append(f"run the {len(not_run)} mutant(s) not judged: "
                             f"{self.plan.rerun_command(not_run)}")
        totals = report.totals(planned=len(self.names))
        s.finish(totals=totals, artifacts=artifacts, failed=report.failed, stop=exc)


def run_mutants(plan: MutantsPlan, session: Session | None = None) -> MutantsReport:
    """Run the plan's mutants (in ``plan.jobs`` worker processes when more than one) and
    report through ``session`` (default: one without reporters).

    Round 1 runs every mutant within its budget share, blind mutants first. Round 2 gives the
    time left over to the survivors the oracles can see on their witness and that have not
    used ``max_examples`` yet: a fresh Hypothesis run (seed + 1, new scenarios) for the
    remaining examples; counts and times add up. Ctrl-C or a signal (``Terminated``) ends the
    run through ``session.interrupt``: the returned report then holds the mutants judged so
    far and ``session.summary.interrupted`` says why."""
    session = session if session is not None else new_session(plan)
    run = _Run(plan, session)
    session.start(plan.header)
    try:
        run.rounds()
    except (KeyboardInterrupt, Terminated) as e:
        run.report_rest(e)
        report = run.outcome_report()
        run.close(report, e)
        return report
    report = run.outcome_report()
    run.close(report)
    return report
