"""One run of an engine: emits its events, collects its cases and ends with the summary, also
when Ctrl-C or a signal stops it midway."""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence

from conformance.core.errors import Terminated
from conformance.core.events import (
    CaseFinished,
    CaseProgress,
    CaseStarted,
    Divergence,
    EventBus,
    Interrupted,
    Notice,
    RunFinished,
    RunStarted,
    Violation,
)
from conformance.core.exits import EXIT_INTERRUPTED
from conformance.core.results import CaseResult, RunSummary


def interruption(exc: BaseException) -> tuple[str, int]:
    """The reason and exit code of a stop by Ctrl-C or a signal."""
    if isinstance(exc, Terminated):
        return signal.Signals(exc.signum).name, exc.exit_code
    return "Ctrl-C", EXIT_INTERRUPTED


class Session:
    """The events of one run and the cases judged so far (see the module docstring)."""

    def __init__(self, command: str, bus: EventBus, *,
                 properties: dict[str, str] | None = None, planned: int | None = None) -> None:
        self.bus = bus
        self.summary = RunSummary(command, dict(properties or {}), planned=planned)
        self._t0 = time.monotonic()

    @property
    def cases(self) -> list[CaseResult]:
        return self.summary.cases

    def start(self, header: str) -> None:
        self.bus.emit(RunStarted(self.summary.command, header, self.summary.planned))

    def notice(self, text: str) -> None:
        self.bus.emit(Notice(text))

    def case_started(self, label: str) -> None:
        self.bus.emit(CaseStarted(label))

    def progress(self, label: str, text: str) -> None:
        self.bus.emit(CaseProgress(label, text))

    def violation(self, case: str, oracle: str, text: str) -> None:
        self.bus.emit(Violation(case, oracle, text))

    def divergence(self, case: str, text: str, known: bool = False) -> None:
        self.bus.emit(Divergence(case, text, known))

    def case_finished(self, case: CaseResult, detail: str = "") -> None:
        self.summary.cases.append(case)
        self.bus.emit(CaseFinished(case, detail))

    def finish(self, *, totals: Sequence[str] = (), artifacts: Sequence[str] = (),
               error: str = "", failed: bool | None = None,
               stop: BaseException | None = None) -> RunSummary:
        """Close the run: the summary every reporter renders. ``stop``: the KeyboardInterrupt or
        Terminated that ended it early; the summary is then the same, of the cases judged so
        far, marked interrupted."""
        s = self.summary
        if stop is not None:
            s.interrupted, s.interrupt_code = interruption(stop)
            self.bus.emit(Interrupted(s.interrupted))
        s.seconds = time.monotonic() - self._t0
        s.totals, s.artifacts = list(totals), list(artifacts)
        s.error = error or s.error
        s.failed = failed
        self.bus.emit(RunFinished(s))
        return s
