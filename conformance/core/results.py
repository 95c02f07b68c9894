"""Result documents of a run: one :class:`CaseResult` per judged case (a property, a golden
scenario, a generated differential scenario, a mutant) and the :class:`RunSummary` every
reporter renders."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conformance.core.exits import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE

PASSED = "passed"
FAILED = "failed"
ERROR = "error"
SKIPPED = "skipped"
STATUSES = (PASSED, FAILED, ERROR, SKIPPED)


@dataclass(slots=True)
class CaseResult:
    """The outcome of one case."""

    suite: str  # "properties", "golden", "diff", "mutants"
    classname: str  # e.g. "kschedconf.properties.small"
    name: str  # e.g. the oracle name, or the golden file's stem
    status: str = PASSED
    seconds: float = 0.0
    examples: int = 0  # generated examples run before the first failure (or in all)
    shrinks: int = 0  # examples run while shrinking a failure
    #: "max_examples", "exhausted", "budget", "failure", "error", "interrupted"
    stopped_by: str = ""
    message: str = ""  # one line: the violated invariant / the error
    details: str = ""  # every violation, the reproduce command
    counterexample: str | None = None  # path of the counterexample scenario file
    reproduce: str = ""  # the command that replays the counterexample
    properties: dict[str, str] = field(default_factory=dict)
    #: upstream deviation id -> examples that broke only upstream's intent, the way upstream
    #: does (oracles/upstream_deviations.yaml): shown apart, never a failure
    matches_upstream: dict[str, int] = field(default_factory=dict)
    #: changed rule id (``NodeResourcesFit/ephemeral-storage``) -> examples whose findings
    #: break only rules a declared replacement changes on purpose (docs/plugins.md): shown
    #: apart, never a failure
    intended_changes: dict[str, int] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.name if self.suite == "properties" else f"{self.suite}/{self.name}"

    def to_doc(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"id": self.id, "suite": self.suite, "classname": self.classname,
                               "name": self.name, "status": self.status,
                               "seconds": round(self.seconds, 3)}
        if self.suite == "properties":
            doc.update(examples=self.examples, shrinks=self.shrinks,
                       stoppedBy=self.stopped_by or "max_examples")
        for key, value in (("message", self.message), ("details", self.details),
                           ("counterexample", self.counterexample),
                           ("reproduce", self.reproduce)):
            if value:
                doc[key] = value
        if self.properties:
            doc["properties"] = dict(self.properties)
        if self.matches_upstream:
            doc["matchesUpstream"] = dict(self.matches_upstream)
        if self.intended_changes:
            doc["intendedChanges"] = dict(self.intended_changes)
        return doc


@dataclass(slots=True)
class RunSummary:
    """A whole run (or what was done of it when it was interrupted)."""

    command: str  # "run", "diff", "golden verify", "mutants"
    properties: dict[str, str] = field(default_factory=dict)  # seed, versions, rerun command
    cases: list[CaseResult] = field(default_factory=list)
    seconds: float = 0.0
    planned: int | None = None  # cases the run meant to judge, when known up front
    #: what was judged, for the summary line ("14 properties (3000 examples)")
    totals: list[str] = field(default_factory=list)
    #: lines after the summary line: where reports and counterexamples are
    artifacts: list[str] = field(default_factory=list)
    error: str = ""  # a subject or usage error that stopped the run
    interrupted: str = ""  # "Ctrl-C", "SIGTERM": the run stopped early
    interrupt_code: int = EXIT_INTERRUPTED
    #: the engine's own verdict when failing cases do not fail the run by themselves
    #: (mutants: the caught percentage against the threshold); None: any failed case fails
    failed: bool | None = None

    def count(self, status: str) -> int:
        return sum(1 for c in self.cases if c.status == status)

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return self.interrupt_code
        if self.error or self.count(ERROR):
            return EXIT_USAGE
        failed = self.count(FAILED) > 0 if self.failed is None else self.failed
        return EXIT_FAILED if failed else EXIT_OK

    def verdict(self) -> str:
        """``3 passed, 1 failed``, or ``nothing run``; then the cases that matched upstream
        (``1 matching upstream``: passed, with findings only the intent forbids) and those
        with intended changes (``1 with intended changes``: findings only a rule a declared
        replacement changes on purpose forbids)."""
        text = ", ".join(f"{n} {s}" for s in STATUSES if (n := self.count(s))) or "nothing run"
        matched = sum(1 for c in self.cases if c.matches_upstream)
        if matched:
            text += f", {matched} matching upstream"
        intended = sum(1 for c in self.cases if c.intended_changes)
        if intended:
            text += f", {intended} with intended changes"
        return text

    def to_doc(self) -> dict[str, Any]:
        """The RunReport document (``kschedconf/v1``) of ``--report FILE``."""
        doc: dict[str, Any] = {
            "apiVersion": "kschedconf/v1", "kind": "RunReport", "command": self.command,
            "properties": dict(self.properties),
            "summary": {s: self.count(s) for s in STATUSES},
            "exitCode": self.exit_code, "seconds": round(self.seconds, 3),
            "totals": list(self.totals),
        }
        if self.planned is not None:
            doc["planned"] = self.planned
        if self.error:
            doc["error"] = self.error
        if self.interrupted:
            doc["interrupted"] = self.interrupted
        doc["cases"] = [c.to_doc() for c in self.cases]
        return doc
