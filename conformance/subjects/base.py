"""The subject interface.

A subject schedules a :class:`~conformance.scenario.ScenarioInput` and returns the
``SimulationResult`` document (``apiVersion: kschedconf/v1``; schema in
``conformance/schemas/SimulationResult.schema.json``) and, when it has one, a trace of queue
operations. The reference scheduler, the reference with a user's config and plugins, an external
command (any language, file protocol), the real upstream scheduler and control-plane backends
all implement this one interface, so the same oracles judge them all.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from conformance.scenario import ScenarioInput


class SubjectError(Exception):
    """The subject could not produce a result (crash, timeout, invalid output); never a
    verdict about scheduling."""


@dataclass(slots=True)
class SubjectResult:
    result: dict[str, Any]  # the SimulationResult document
    trace: list[dict[str, Any]] | None = None
    explanations: dict[str, dict[str, Any]] = field(default_factory=dict)  # pod -> Explanation


class Subject(ABC):
    """Something that schedules scenarios."""

    name: str = "subject"
    #: True when the subject reports every attempt's examined/feasible nodes faithfully enough
    #: for score-optimality checks (the reference and the upstream subject do).
    reports_scores: bool = False
    #: True for a real kube-apiserver + kube-scheduler (conformance/backends): only what the
    #: API shows is reported, and some choices hang on wall-clock timing.
    real_control_plane: bool = False

    @abstractmethod
    def run(self, scenario: ScenarioInput) -> SubjectResult:
        """Schedule the scenario from scratch (the scenario's seed applies)."""

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release processes, containers or files the subject holds."""

    def describe(self) -> dict[str, str]:
        """Name and versions, for reports."""
        return {"subject": self.name}

    def __enter__(self) -> Subject:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
