"""Events a run emits as it goes, and the reporters that consume them.

Engines (properties, golden, diff, mutants) only emit; reporters (console, JUnit, JSON report)
only consume, so every command reports the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from conformance.core.results import CaseResult, RunSummary


@dataclass(frozen=True, slots=True)
class RunStarted:
    command: str
    header: str  # one line: what runs against what, with the seed
    planned: int | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """A line of information between cases (a section heading, a warning)."""

    text: str


@dataclass(frozen=True, slots=True)
class CaseStarted:
    label: str


@dataclass(frozen=True, slots=True)
class CaseProgress:
    """A live counter of the running case (shown on a terminal only)."""

    label: str
    text: str


@dataclass(frozen=True, slots=True)
class Violation:
    """An oracle found an invariant broken in a case."""

    case: str
    oracle: str
    text: str


@dataclass(frozen=True, slots=True)
class Divergence:
    """Two subjects decided differently in a case."""

    case: str
    text: str
    known: bool = False  # listed as a known (explained) divergence


@dataclass(frozen=True, slots=True)
class CaseFinished:
    case: CaseResult
    detail: str = ""  # the rest of the console line: examples, seconds, first message


@dataclass(frozen=True, slots=True)
class Interrupted:
    reason: str  # "Ctrl-C", "SIGTERM"


@dataclass(frozen=True, slots=True)
class RunFinished:
    summary: RunSummary


Event = (RunStarted | Notice | CaseStarted | CaseProgress | Violation | Divergence
         | CaseFinished | Interrupted | RunFinished)


class Reporter(Protocol):
    def handle(self, event: Event) -> None: ...


class EventBus:
    """Hands every event to every reporter, in order."""

    def __init__(self, reporters: Iterable[Reporter] = ()) -> None:
        self.reporters: list[Reporter] = list(reporters)

    def emit(self, event: Event) -> None:
        for r in self.reporters:
            r.handle(event)
