"""The ``differential`` suite of ``kschedconf run``: the run's subject compared with the
reference under the configuration it runs, generated scenarios of each size, one case each in
the run's session (the same comparison as ``kschedconf diff --subject``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.core.errors import SubjectError, UsageError
from conformance.core.results import SKIPPED, CaseResult
from conformance.core.subject import Subject
from conformance.engines.baseline import against_reference
from conformance.engines.diff.cases import SUITE
from conformance.engines.diff.plan import DiffOptions, resolve_plan
from conformance.engines.diff.run import DiffRun, start_workers
from conformance.engines.session import Session
from conformance.engines.workers import SubjectSpec
from conformance.subjects.reference import ReferenceSubject
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: Time to shrink each kind of divergence in the suite.
SUITE_SHRINK_TIME = 60.0


@dataclass(slots=True)
class DifferentialOptions:
    """What the suite takes from the options of ``kschedconf run``."""

    subject: str  # the spec, for replay commands
    plugins: Sequence[str]
    config: str | None
    config_doc: Mapping[str, Any] | None
    counts: dict[str, int]  # generated scenarios per size
    seed: int | None
    budget: float | None  # seconds for generating and comparing
    out: str
    shrink: bool
    #: the suite was asked for by name (a skipped suite is then a skipped case, else a notice)
    named: bool = True
    release: str = UPSTREAM_RELEASE  # --release of the run
    #: processes comparing the scenarios, each with the subject built from ``spec``
    workers: int = 1
    spec: SubjectSpec | None = None


def _skip(session: Session, reason: str, named: bool) -> None:
    if not named:
        session.notice(f"differential: skipped ({reason})")
        return
    session.case_finished(CaseResult(SUITE, "kschedconf.diff", "differential", status=SKIPPED,
                                     message=reason), reason)


def differential(session: Session, subject: Subject, o: DifferentialOptions) -> list[str]:
    """Compare ``subject`` with the reference on generated scenarios, one case each in
    ``session``; the kinds of unexplained divergence shrunk and written to ``o.out``. The
    subject stays open (the run owns it). Returns the suite's summary lines. Skipped, with the
    reason, for the reference itself and for a configuration the reference cannot stand
    for (a user plugin that replaces no in-tree plugin)."""
    if isinstance(subject, ReferenceSubject) and not subject.plugin_modules and \
            subject.config_path is None:
        _skip(session, "the subject is the reference itself", o.named)
        return []
    try:
        ref, up, _ = against_reference(subject, o.config_doc, owns=False)
    except UsageError as e:
        _skip(session, f"no reference to compare with: {e}", o.named)
        return []
    opts = DiffOptions(scenarios=sum(o.counts.values()), sizes=dict(o.counts), seed=o.seed,
                       budget=o.budget, out=o.out, config=o.config, shrink=o.shrink,
                       shrink_time=SUITE_SHRINK_TIME, subject=o.subject,
                       plugins=tuple(o.plugins), release=o.release, workers=o.workers)
    plan = resolve_plan(opts, up)
    run = DiffRun(plan, ref, up, session)
    if o.spec is not None:
        try:
            start_workers(run, o.spec, None)
        except BaseException:
            run.close()
            raise
    if o.budget is not None:
        run.deadline = run.started + o.budget
    session.notice(f"differential: {up.name} against the reference under the configuration it "
                   f"runs; modes {', '.join(plan.modes)}; seed {plan.seed}; "
                   + ", ".join(f"{n} {k}" for k, n in plan.counts.items()))
    done = False
    try:
        for family, n in plan.counts.items():
            run.generated(family, n)
        run.shrink_all()  # with shrink off, the first diverging scenarios as found
        done = True
        run.check_upstream()
    except SubjectError as e:
        session.summary.error = str(e)
    finally:
        run.close(terminate=not done)
        if not done:
            run.save_unshrunk("the run stopped before shrinking")
    totals, artifacts = run.summary_lines()
    return ["differential: " + "; ".join(totals), *artifacts]
