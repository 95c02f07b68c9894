"""The mutated subject (the reference with a mutant applied only while it schedules, so that the
oracles judge with the genuine code) and the witness check: does the mutant change the decisions
on its witness, and which oracles see it there."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject, SubjectResult
from conformance.engines.mutants.mutant import Mutant
from conformance.subjects.reference import ReferenceSubject
from oracles.judge import check_result, failures, select_oracles


class MutantSubject(Subject):
    """The reference scheduler with one mutant applied while it schedules (only then: the
    oracles judge with the genuine code)."""

    reports_scores = True

    def __init__(self, mutant: Mutant, inner: Subject | None = None) -> None:
        self.mutant = mutant
        self.inner = inner if inner is not None else ReferenceSubject()
        self.name = f"reference+{mutant.name}"

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        with self.mutant.applied():
            return self.inner.run(scenario)

    @property
    def fixed_config(self) -> dict[str, Any] | None:
        return self.inner.fixed_config

    def describe(self) -> dict[str, str]:
        d = dict(self.inner.describe())
        d["subject"] = self.name
        d["mutant"] = self.mutant.summary
        return d


def decisions(result: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a SimulationResult that show a behaviour change."""
    return {k: result.get(k) for k in ("attempts", "bindings", "pending", "deleted")}


def witness_runs(mutant: Mutant) -> tuple[SubjectResult, SubjectResult]:
    """The reference's results on the mutant's witness, genuine then mutated."""
    ref = ReferenceSubject()
    genuine = ref.run(mutant.witness())
    mutated = MutantSubject(mutant, ref).run(mutant.witness())
    return genuine, mutated


def witness_results(mutant: Mutant) -> tuple[dict[str, Any], dict[str, Any]]:
    """The reference's SimulationResult on the mutant's witness, genuine then mutated."""
    genuine, mutated = witness_runs(mutant)
    return genuine.result, mutated.result


def witness_differs(mutant: Mutant) -> bool:
    """True when the mutant changes the reference's decisions on its witness."""
    genuine, mutated = witness_results(mutant)
    return decisions(genuine) != decisions(mutated)


@dataclass(slots=True)
class WitnessCheck:
    """The witness scheduled with and without the mutant, and judged by the oracles."""

    differs: bool
    caught_by: list[str]  # oracles that reject the mutated reference's result
    genuine_violations: list[str]  # violations of the genuine result (an oracle false alarm)


def check_witness(mutant: Mutant, oracle_names: Sequence[str] = ()) -> WitnessCheck:
    """Schedule the witness with the genuine and the mutated reference and apply the oracles to
    both results: the mutant must change the decisions; ``caught_by`` tells whether the oracles
    can see the bug at all (on an input that exposes it)."""
    checks = select_oracles(oracle_names)
    genuine, mutated = witness_runs(mutant)
    scenario = mutant.witness()
    subject = MutantSubject(mutant)
    bad = failures(check_result(scenario, mutated, subject, checks))
    good = failures(check_result(scenario, genuine, subject, checks))
    return WitnessCheck(decisions(genuine.result) != decisions(mutated.result),
                        sorted({f.oracle for f in bad}), [str(f) for f in good])
