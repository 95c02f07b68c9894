"""The console reporter: a line per case (a live counter on a terminal), then the summary.

Every command prints the same form: the header line, section notices, ``ok``/``FAIL``/``ERROR``/
``skip`` lines, then each failure's details, the tally of what was judged and where the reports
and counterexamples are. An interrupted run ends with the same summary of the cases so far.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TextIO

from conformance.core.dropped import DROPPED, NOT_JUDGED, add_counts, describe_counts, parse_counts
from conformance.core.events import (
    CaseFinished,
    CaseProgress,
    CaseStarted,
    Event,
    Interrupted,
    Notice,
    RunFinished,
    RunStarted,
)
from conformance.core.results import ERROR, FAILED, PASSED, SKIPPED, CaseResult, RunSummary

WORDS = {PASSED: "ok", FAILED: "FAIL", ERROR: "ERROR", SKIPPED: "skip"}


class ConsoleReporter:
    """Renders a run's events on ``stream``. ``report_files`` are the ``(what, path)`` of the
    files other reporters write, named after the summary."""

    def __init__(self, stream: TextIO, *, report_files: Sequence[tuple[str, str]] = (),
                 tty: bool | None = None) -> None:
        self.stream = stream
        self.tty = bool(stream.isatty()) if tty is None else tty
        self.report_files = list(report_files)
        self._label = ""
        self._open = False  # a live line is on the terminal
        self._last = 0.0

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def _close_live(self) -> None:
        if self._open:
            self._write("\r\x1b[K")
            self._open = False

    def handle(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self._write(event.header + "\n")
        elif isinstance(event, Notice):
            self._close_live()
            self._write(event.text + "\n")
        elif isinstance(event, CaseStarted):
            self._label, self._last = event.label, 0.0
            if self.tty:
                self._close_live()
                self._write(f"  ....  {event.label}")
                self._open = True
        elif isinstance(event, CaseProgress):
            now = time.monotonic()
            if self.tty and now - self._last >= 0.1:
                self._last = now
                self._write(f"\r\x1b[K  ....  {event.label}  {event.text}")
                self._open = True
        elif isinstance(event, CaseFinished):
            self._close_live()
            c = event.case
            label = self._label or c.properties.get("property") or c.id
            self._label = ""
            extra = f"  (dropped: {c.properties[DROPPED]})" if DROPPED in c.properties else ""
            self._write(f"  {WORDS[c.status]:<5} {label}  {event.detail}".rstrip() + extra
                        + "\n")
        elif isinstance(event, Interrupted):
            self._close_live()
        elif isinstance(event, RunFinished):
            self._close_live()
            self._summary(event.summary)

    def _summary(self, s: RunSummary) -> None:
        out: list[str] = [""]
        if s.interrupted:
            of = f" of {s.planned}" if s.planned is not None else ""
            out.append(f"interrupted by {s.interrupted} after {len(s.cases)}{of} case(s); "
                       "summary so far:")
        for c in s.cases:
            if c.status not in (FAILED, ERROR):
                continue
            out.append(f"{'FAILED' if c.status == FAILED else 'ERROR'}: {c.id}")
            out += [f"    {line}" for line in (c.details or c.message).splitlines()]
        what = "; ".join(s.totals) or f"{len(s.cases)} cases"
        out.append(f"{what}: {s.verdict()} in {s.seconds:.1f}s")
        if s.error and not s.count(ERROR):
            out.append(f"subject error: {s.error}")
        out += dropped_lines(s.cases)
        out += [f"{what} report: {path}" for what, path in self.report_files]
        out += s.artifacts
        self._write("\n".join(out) + "\n")


def dropped_lines(cases: Sequence[CaseResult]) -> list[str]:
    """The summary's lines about input the subject dropped and cases (partly) not judged:
    never silent (conformance/core/dropped.py)."""
    out: list[str] = []
    counts: dict[str, int] = {}
    with_drops = [c for c in cases if DROPPED in c.properties]
    for c in with_drops:
        add_counts(counts, parse_counts(c.properties[DROPPED]))
    if with_drops:
        out.append(f"dropped input: the subject ignored objects it does not model in "
                   f"{len(with_drops)} case(s): {describe_counts(counts)}")
    unjudged = [c for c in cases if NOT_JUDGED in c.properties]
    if unjudged:
        out.append(f"not judged: {len(unjudged)} case(s) had runs no oracle could judge "
                   f"(first: {unjudged[0].id}: {unjudged[0].properties[NOT_JUDGED]})")
    return out
