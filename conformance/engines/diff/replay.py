"""``kschedconf diff --replay FILE``: one scenario file compared, every divergence listed."""

from __future__ import annotations

from pathlib import Path

from conformance.core.dropped import describe_counts
from conformance.core.errors import Terminated, UsageError
from conformance.core.events import EventBus
from conformance.core.subject import Subject, SubjectError
from conformance.engines.diff.plan import DiffOptions, check_options, resolve_plan
from conformance.engines.diff.run import (
    DiffReport,
    DiffRun,
    OtherSubject,
    failed_to_start,
    open_subjects,
)
from conformance.engines.golden import read_scenario_file
from conformance.engines.session import Session


def replay(opts: DiffOptions, bus: EventBus, other: OtherSubject,
           reference: Subject | None = None) -> DiffReport:
    """Compare the scenario file ``opts.replay`` (its own seed) and list every divergence,
    tie-break and note as it was found; one case, ``kschedconf.diff.replay``."""
    assert opts.replay is not None
    path = Path(opts.replay)
    if not path.is_file():
        raise UsageError(f"--replay {path}: no such file")
    try:
        scenario, _, _ = read_scenario_file(path)
    except ValueError as e:
        raise UsageError(str(e)) from e
    check_options(opts)
    try:
        ref, up = open_subjects(other, reference, opts)
    except SubjectError as e:
        return failed_to_start(Session("diff", bus), e)
    try:
        plan = resolve_plan(opts, up, replay=True)
    except BaseException:
        ref.close()
        up.close()
        raise
    props = {**plan.properties(up), "replay": str(path)}
    session = Session("diff", bus, properties=props, planned=1)
    run = DiffRun(plan, ref, up, session)
    sides = (f"subject {up.name} vs the reference" if opts.subject else
             f"reference vs {up.name}")
    session.start(f"replaying {path} (seed {scenario.seed}): {sides}; modes "
                  f"{', '.join(plan.modes)}")
    error, stop = "", None
    try:
        res = run.judge(scenario, "replay")
        if res is not None:  # None: the subject gave it up (ScenarioTimedOut), an error case
            for d in res.divergences:
                session.notice(f"  {d}")
            for t in res.tie_breaks:
                session.notice(f"  tie-break: {t}")
            for note in res.notes:
                session.notice(f"  note: {note}")
            for side, counts in res.dropped.items():
                session.notice(f"  {side} dropped input it does not model (not compared): "
                               f"{describe_counts(counts)}")
    except SubjectError as e:
        error = str(e)
    except (KeyboardInterrupt, Terminated) as e:
        stop = e
    finally:
        run.close()
    totals = [f"{path.name} replayed ({r.attempts} attempts, {r.steps} lockstep steps)"
              for r in run.results[:1]]
    totals += [f"{sum(len(r.unexplained) for r in run.results)} unexplained divergence(s)",
               f"{sum(len(r.known) for r in run.results)} known",
               f"{sum(len(r.tie_breaks) for r in run.results)} tie-break difference(s)"]
    summary = session.finish(totals=totals, error=error, stop=stop)
    return DiffReport(summary, run.results, run.minimal, None)
