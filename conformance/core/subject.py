"""The subject protocol: anything that schedules a scenario and returns a SimulationResult.

The reference scheduler, an external command, the real upstream scheduler and the control-plane
backends all implement :class:`Subject`, so every oracle and engine judges them alike
(docs/subjects.md).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.core.errors import (
    ScenarioRejected,
    ScenarioTimedOut,
    ScenarioUnsupported,
    SubjectError,
)
from conformance.core.replacements import Replacement
from conformance.core.scenario import ScenarioInput

__all__ = ["ScenarioRejected", "ScenarioTimedOut", "ScenarioUnsupported", "Subject",
           "SubjectError", "SubjectResult"]

#: A JSON-able document (a SimulationResult, an Explanation, a trace entry).
Document = dict[str, Any]


@dataclass(slots=True)
class SubjectResult:
    """What a subject made of one scenario."""

    result: Document  # the SimulationResult document
    trace: list[Document] | None = None  # queue operations, when the subject records them
    explanations: dict[str, Document] = field(default_factory=dict)  # pod -> Explanation
    #: the subject's own remarks (e.g. upstream's random preemption tie-breaks)
    notes: list[str] = field(default_factory=list)
    #: what the subject noticed about its own run (e.g. a backend's watch gaps)
    warnings: list[str] = field(default_factory=list)


class Subject(ABC):
    """Something that schedules scenarios."""

    name: str = "subject"
    #: True when the subject reports every attempt's examined/feasible nodes faithfully enough
    #: for score-optimality checks (the reference and the upstream subject do).
    reports_scores: bool = False
    #: True for a real kube-apiserver + kube-scheduler (conformance/backends): only what the
    #: API shows is reported, and some choices hang on wall-clock timing.
    real_control_plane: bool = False
    #: True when :meth:`explain` gives every plugin's verdict for a pending pod.
    can_explain: bool = False
    #: True when :meth:`run` and :meth:`explain` may be called from several threads at once
    #: (the differential then compares several generated scenarios at a time); a control
    #: plane runs one scenario at a time.
    concurrent_runs: bool = False

    @abstractmethod
    def run(self, scenario: ScenarioInput) -> SubjectResult:
        """Schedule the scenario from scratch (the scenario's seed applies). Raises
        :class:`ScenarioRejected` for input the subject refuses (:class:`ScenarioUnsupported`
        for valid input it cannot run), :class:`SubjectError` when it cannot produce a
        result."""

    def explain(self, scenario: ScenarioInput, pod: str) -> Document:
        """The Explanation document of pending pod ``pod`` (``namespace/name``) on the
        scenario's cluster, nothing scheduled first. Only when :attr:`can_explain`."""
        raise SubjectError(f"subject {self.name} cannot explain a pod's placement")

    def explain_many(self, scenario: ScenarioInput, pods: Sequence[str]
                     ) -> list[Document | ScenarioRejected]:
        """:meth:`explain` of each pod of ``pods`` on the same cluster, in order; a refusal
        is that pod's answer (:class:`ScenarioRejected`), any other error is raised. A
        subject may answer them together (the upstream subject: one world for all)."""
        out: list[Document | ScenarioRejected] = []
        for pod in pods:
            try:
                out.append(self.explain(scenario, pod))
            except ScenarioRejected as e:
                out.append(e)
        return out

    @property
    def fixed_config(self) -> Document | None:
        """The KubeSchedulerConfiguration document this subject runs whatever the scenario
        holds (``reference:CFG.yaml``, a backend's scheduler configuration); None when it runs
        each scenario's own. The oracles judge with the configuration the subject ran
        (docs/subjects.md)."""
        return None

    @property
    def release(self) -> str:
        """The upstream release the subject follows or runs; empty when unknown."""
        return ""

    @property
    def replacements(self) -> Mapping[str, Replacement]:
        """The user plugins it runs that stand for in-tree plugins, by name
        (:mod:`conformance.core.replacements`): the oracles judge them as those plugins."""
        return {}

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release processes, containers or files the subject holds."""

    def describe(self) -> dict[str, str]:
        """Name and versions, for reports."""
        return {"subject": self.name}

    def __enter__(self) -> Subject:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def describe_subject(subject: Subject) -> str:
    """``reference (upstreamRelease=v1.37.2, ...)``: the subject's name and details."""
    d = dict(subject.describe())
    name = d.pop("subject", subject.name)
    return f"{name} ({', '.join(f'{k}={v}' for k, v in d.items())})" if d else name
