"""What a run found: per Hypothesis run (:class:`PropertyOutcome`), per mutant
(:class:`MutantOutcome`, with its :class:`CaseResult` for the shared reporters) and for the whole
run (:class:`MutantsReport`, the ``kind: MutantsReport`` document and its table)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.core import results
from conformance.core.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from conformance.core.results import CaseResult
from conformance.engines.mutants.plan import THRESHOLD, MutantsOptions
from reference_impl.releases.pinned import UPSTREAM_RELEASE

CAUGHT = "caught"
SURVIVED = "survived"
#: not caught, the oracles see it on its witness, and the budget ran out before its runs
#: reached ``--max-examples``: more time may catch it (counted, as not caught)
NOT_REACHED = "not reached"
EQUIVALENT = "equivalent"  # survived, documented as equivalent on generated scenarios
INEFFECTIVE = "ineffective"  # the witness did not change: the patch misses its target
#: the planted bug concerns a behaviour the run's ``--release`` does not have (a plugin absent
#: from its default profile, a rule it does not follow): not counted
NOT_APPLICABLE = "not applicable"
ERROR = "error"

#: a mutant's verdict as a case of the shared reporters: a surviving mutant is a bug the
#: harness failed to catch
CASE_STATUS = {CAUGHT: results.PASSED, SURVIVED: results.FAILED, NOT_REACHED: results.SKIPPED,
               EQUIVALENT: results.SKIPPED, NOT_APPLICABLE: results.SKIPPED,
               INEFFECTIVE: results.ERROR, ERROR: results.ERROR}

#: the pseudo-oracle of the shared property (every oracle on each generated scenario)
ALL_ORACLES_PROPERTY = "all-oracles"
#: the pseudo-oracle of the golden suite (its examples count golden scenarios)
GOLDEN_PROPERTY = "golden"


@dataclass(slots=True)
class PropertyOutcome:
    """One Hypothesis run against a mutant: one family, one oracle (``per_property``) or every
    oracle on each scenario (``all-oracles``); or the golden suite (``golden``)."""

    oracle: str
    family: str
    failed: bool
    examples: int  # examples generated (up to and including the first failing one)
    seconds: float  # time spent on the run
    caught_by: list[str] = field(default_factory=list)  # oracles violated by the first failure
    detected_after: float | None = None  # seconds into the run at the first violation
    stopped_by: str = ""
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"oracle": self.oracle, "family": self.family, "failed": self.failed,
                "caughtBy": list(self.caught_by), "examples": self.examples,
                "seconds": round(self.seconds, 3),
                "detectedAfter": (None if self.detected_after is None
                                  else round(self.detected_after, 3)),
                "stoppedBy": self.stopped_by, "message": self.message}

    def line(self) -> str:
        unit = "scenarios" if self.oracle == GOLDEN_PROPERTY else "examples"
        return (f"{self.family}/{self.oracle}: {'FAILED' if self.failed else 'passed'} after "
                f"{self.examples} {unit}, {self.seconds:.2f}s"
                + (f": {self.message}" if self.message else ""))


def _fmt_s(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


@dataclass(slots=True)
class MutantOutcome:
    name: str
    area: str
    summary: str
    status: str = SURVIVED
    caught_by: list[str] = field(default_factory=list)
    examples: int | None = None  # examples up to the first failure (quickest run)
    seconds: float | None = None  # seconds to the first violation (quickest run)
    message: str = ""  # the first violation (caught), or the error
    properties: list[PropertyOutcome] = field(default_factory=list)
    examples_run: int = 0  # every example generated for this mutant
    total_seconds: float = 0.0  # witness check and every run
    witness_caught_by: list[str] = field(default_factory=list)  # oracles rejecting the witness
    equivalent: str = ""
    missing_oracle: str = ""
    release: str = UPSTREAM_RELEASE  # the release the reference followed

    @property
    def counted(self) -> bool:
        """Counts towards the caught percentage (not a documented-equivalent survivor, nor a
        mutant not applicable to the run's release)."""
        return self.status not in (EQUIVALENT, NOT_APPLICABLE)

    def survivor_note(self) -> str:
        """Why a survivor survived: the oracles are blind to it (even on its witness: the
        catalogue names the missing oracle), or they see it on its witness but no generated
        scenario exposed it (a coverage gap)."""
        if self.status == EQUIVALENT:
            return f"equivalent on generated scenarios: {self.equivalent}"
        if self.status != SURVIVED:
            return ""
        if self.witness_caught_by:
            golden = self.golden_scenarios
            return (f"coverage: {', '.join(self.witness_caught_by)} rejects it on its witness "
                    f"scenario, but none of the {self.examples_run - golden} generated scenarios"
                    + (f" (nor the {golden} golden ones)" if golden else "") + " exposed it"
                    + (f"; {self.missing_oracle}" if self.missing_oracle else ""))
        return ("blind: no oracle rejects it even on its witness scenario; missing oracle: "
                + (self.missing_oracle or "not documented in the catalogue"))

    def settle(self) -> MutantOutcome:
        """A survivor the oracles see on its witness whose last run of some property was
        stopped by the budget becomes :data:`NOT_REACHED`; returns ``self``."""
        last: dict[tuple[str, str], str] = {}
        for p in self.properties:
            last[(p.family, p.oracle)] = p.stopped_by
        if (self.status == SURVIVED and self.witness_caught_by
                and "budget" in last.values()):
            self.status = NOT_REACHED
        return self

    @property
    def golden_scenarios(self) -> int:
        """Golden scenarios run (``examples_run`` counts them too)."""
        return sum(p.examples for p in self.properties if p.oracle == GOLDEN_PROPERTY)

    def detail(self) -> str:
        """The rest of the mutant's console line."""
        if self.status == CAUGHT:
            unit = ("golden scenario(s)" if self.caught_by == [GOLDEN_PROPERTY]
                    else "example(s)")
            return (f"caught by {', '.join(self.caught_by)} after {self.examples} {unit}, "
                    f"{_fmt_s(self.seconds)}s")
        if self.status in (ERROR, INEFFECTIVE, NOT_APPLICABLE):
            return f"{self.status}: {self.message}"
        golden = self.golden_scenarios
        ran = f"{self.examples_run - golden} examples" + (
            f" and {golden} golden scenarios" if golden else "")
        seen = (f"its witness is rejected by {', '.join(self.witness_caught_by)}"
                if self.witness_caught_by else "no oracle rejects its witness")
        what = ("equivalent on generated scenarios" if self.status == EQUIVALENT
                else "not reached (the budget ran out)" if self.status == NOT_REACHED
                else f"survived ({'coverage' if self.witness_caught_by else 'blind'})")
        return f"{what}: {ran}, {_fmt_s(self.total_seconds)}s, {seen}"

    def case(self) -> CaseResult:
        """The mutant as a case of the shared reporters (suite ``mutants``): caught passes,
        survived fails, equivalent is skipped with its documented reason, ineffective and
        error are errors."""
        if self.status == CAUGHT:
            message = f"caught by {', '.join(self.caught_by)}: {self.message}"
        elif self.status == SURVIVED:
            message = f"survived: {self.survivor_note()}"
        elif self.status == NOT_REACHED:
            message = (f"not reached: the budget ran out after {self.examples_run} examples, "
                       f"before --max-examples; {', '.join(self.witness_caught_by)} rejects "
                       "its witness, so a larger --budget may catch it")
        elif self.status == EQUIVALENT:
            message = self.survivor_note()
        elif self.status == NOT_APPLICABLE:
            message = f"not applicable to {self.release}: {self.message}"
        else:
            message = f"{self.status}: {self.message}"
        details = "\n".join([message, *(p.line() for p in self.properties)])
        props = {"verdict": self.status, "area": self.area, "summary": self.summary,
                 "examples_run": str(self.examples_run)}
        if self.caught_by:
            props["caught_by"] = ",".join(self.caught_by)
        if self.witness_caught_by:
            props["witness_caught_by"] = ",".join(self.witness_caught_by)
        if self.examples is not None:
            props["examples"] = str(self.examples)
        if self.missing_oracle:
            props["missing_oracle"] = self.missing_oracle
        return CaseResult("mutants", f"kschedconf.mutants.{self.area.replace(' ', '_')}",
                          self.name, status=CASE_STATUS[self.status],
                          seconds=self.total_seconds,
                          examples=self.examples if self.examples is not None
                          else self.examples_run,
                          stopped_by="failure" if self.status == CAUGHT else "",
                          message=message, details=details, properties=props)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "area": self.area, "summary": self.summary,
                "status": self.status, "caughtBy": list(self.caught_by),
                "examples": self.examples,
                "seconds": None if self.seconds is None else round(self.seconds, 3),
                "message": self.message, "examplesRun": self.examples_run,
                "totalSeconds": round(self.total_seconds, 3),
                "witnessCaughtBy": list(self.witness_caught_by),
                "survivorNote": self.survivor_note() or None,
                "equivalent": self.equivalent or None,
                "missingOracle": self.missing_oracle or None,
                "properties": [p.to_dict() for p in self.properties]}


@dataclass(slots=True)
class MutantsReport:
    outcomes: list[MutantOutcome]
    opts: MutantsOptions
    seconds: float = 0.0
    jobs: int = 1

    @property
    def counted(self) -> list[MutantOutcome]:
        return [o for o in self.outcomes if o.counted]

    @property
    def caught(self) -> int:
        return sum(1 for o in self.outcomes if o.status == CAUGHT)

    @property
    def percent(self) -> float:
        n = len(self.counted)
        return 100.0 * self.caught / n if n else 100.0

    @property
    def failed(self) -> bool:
        """The run's verdict: fewer than THRESHOLD % of the counted mutants caught."""
        return self.percent < THRESHOLD

    @property
    def exit_code(self) -> int:
        if any(o.status in (ERROR, INEFFECTIVE) for o in self.outcomes):
            return EXIT_USAGE
        return EXIT_FAILED if self.failed else EXIT_OK

    def totals(self, planned: int | None = None) -> list[str]:
        """The summary's tally: ``38 mutants: 24 caught (66.7 % of 36 counted; threshold
        90 %), 2 equivalent not counted`` (``12 of 38 mutants`` when not all ran)."""
        n = len(self.outcomes)
        total = n if planned is None else planned
        of = f"{n} of {total}" if total != n else f"{n}"
        what = f"{of} mutant{'s' if total != 1 else ''}"
        if not n:
            return [f"{what} judged"]
        text = (f"{what}: {self.caught} caught ({self.percent:.1f} % of "
                f"{len(self.counted)} counted; threshold {THRESHOLD:g} %)")
        if equivalent := sum(1 for o in self.outcomes if o.status == EQUIVALENT):
            text += f", {equivalent} equivalent not counted"
        if inapplicable := sum(1 for o in self.outcomes if o.status == NOT_APPLICABLE):
            text += f", {inapplicable} not applicable to {self.opts.release} not counted"
        if unreached := sum(1 for o in self.outcomes if o.status == NOT_REACHED):
            text += (f", {unreached} not reached before the budget ran out (counted as not "
                     "caught)")
        return [text]

    def to_dict(self) -> dict[str, Any]:
        o = self.opts
        return {
            "apiVersion": "kschedconf/v1", "kind": "MutantsReport",
            "upstreamRelease": o.release,
            "seed": o.seed, "maxExamples": o.max_examples, "budget": o.budget,
            "families": list(o.families), "perProperty": o.per_property,
            "caught": self.caught, "counted": len(self.counted), "total": len(self.outcomes),
            "percent": round(self.percent, 1), "threshold": THRESHOLD,
            "passed": self.exit_code == EXIT_OK, "seconds": round(self.seconds, 1),
            "mutants": [m.to_dict() for m in self.outcomes],
        }


def table(report: MutantsReport) -> str:
    """The report as a table, then the equivalent mutants' reasons and the caught line (the
    survivors' and errors' notes are in the console summary)."""
    rows = [("MUTANT", "STATUS", "CAUGHT BY", "EXAMPLES", "SECONDS")]
    for o in report.outcomes:
        rows.append((o.name, o.status, ", ".join(o.caught_by) or "-",
                     "-" if o.examples is None else str(o.examples), _fmt_s(o.seconds)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in rows]
    notes = [f"equivalent {o.name} (not counted): {o.equivalent}"
             for o in report.outcomes if o.status == EQUIVALENT]
    notes += [f"{o.name} not applicable to {o.release} (not counted): {o.message}"
              for o in report.outcomes if o.status == NOT_APPLICABLE]
    n = len(report.counted)
    lines.append("")
    if notes:
        lines += [*notes, ""]
    lines.append(f"caught {report.caught}/{n} ({report.percent:.1f} %)"
                 + "".join(f", {k} {what} not counted" for k, what in (
                     (sum(1 for o in report.outcomes if o.status == EQUIVALENT), "equivalent"),
                     (sum(1 for o in report.outcomes if o.status == NOT_APPLICABLE),
                      "not applicable")) if k)
                 + f"; threshold {THRESHOLD:.0f} %; {report.seconds:.1f}s")
    return "\n".join(lines) + "\n"


def to_json(report: MutantsReport) -> str:
    return json.dumps(report.to_dict(), indent=2) + "\n"


def in_order(outcomes: Sequence[MutantOutcome], names: Sequence[str]) -> list[MutantOutcome]:
    """``outcomes`` in the order of ``names`` (those that have one)."""
    by_name = {o.name: o for o in outcomes}
    return [by_name[n] for n in names if n in by_name]
