"""The mutated subject (the reference with a mutant applied only while it schedules, so that the
oracles judge with the genuine code; for a plugin-form mutant, the reference running the buggy
user plugin in the in-tree plugin's place) and the witness check: does the mutant change the
decisions on its witness, and which oracles (and, for a plugin-form mutant, the differential)
see it there."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.core.replacements import Replacement
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject, SubjectResult
from conformance.engines.diff.replacement import DIFFERENTIAL, differential_check
from conformance.engines.mutants.copies import PluginForm, copy_of, in_default_profile
from conformance.engines.mutants.mutant import Mutant
from conformance.subjects.reference import ReferenceSubject
from oracles.judge import check_result, failures, select_oracles
from reference_impl.releases.pinned import UPSTREAM_RELEASE


class PluginFormSubject(ReferenceSubject):
    """The reference running a user plugin (``form.cls`` of the module ``form.module``) in place
    of the in-tree plugin it replaces: ``--subject reference:CFG --plugins MODULE``, with
    ``CFG`` (``release``'s default profile) written to a temporary directory removed on
    :meth:`close`."""

    def __init__(self, form: PluginForm, release: str = UPSTREAM_RELEASE) -> None:
        self._dir = tempfile.mkdtemp(prefix="kschedconf-plugin-form-")
        super().__init__(form.write_config(self._dir, release), [form.module], release=release)
        self.form = form

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)


class MutantSubject(Subject):
    """The reference scheduler with one mutant applied while it schedules (only then: the
    oracles judge with the genuine code). ``release``: the upstream release the reference
    follows (``--release``; each scenario is scheduled as the release it names, which the
    runner sets to this one)."""

    reports_scores = True

    def __init__(self, mutant: Mutant, inner: Subject | None = None,
                 release: str = UPSTREAM_RELEASE) -> None:
        self.mutant = mutant
        if inner is None:
            inner = (PluginFormSubject(mutant.plugin, release) if mutant.plugin is not None
                     else ReferenceSubject(release=release))
        self.inner = inner
        self.name = f"reference+{mutant.name}"
        self.can_explain = inner.can_explain

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        with self.mutant.applied():
            return self.inner.run(scenario)

    @property
    def fixed_config(self) -> dict[str, Any] | None:
        return self.inner.fixed_config

    @property
    def replacements(self) -> Mapping[str, Replacement]:
        """The inner subject's declared replacements (a plugin-form mutant's buggy copy): the
        oracles judge it as the in-tree plugin it replaces."""
        return self.inner.replacements

    def explain(self, scenario: ScenarioInput, pod: str) -> dict[str, Any]:
        with self.mutant.applied():
            return self.inner.explain(scenario, pod)

    def describe(self) -> dict[str, str]:
        d = dict(self.inner.describe())
        d["subject"] = self.name
        d["mutant"] = self.mutant.summary
        return d

    def close(self) -> None:
        self.inner.close()


def mutant_checks(mutant: Mutant, subject: Subject, oracle_names: Sequence[str] = ()
                  ) -> dict[str, Callable[[Any], list[Any]]]:
    """The checks a mutant is judged by: the oracles, and for a plugin-form mutant the
    differential too (the subject compared with the reference running the in-tree plugin,
    decision by decision and in lockstep: ``differential``)."""
    checks: dict[str, Callable[[Any], list[Any]]] = dict(select_oracles(oracle_names))
    if mutant.plugin is not None:
        checks[DIFFERENTIAL] = differential_check(subject)
    return checks


def decisions(result: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a SimulationResult that show a behaviour change."""
    return {k: result.get(k) for k in ("attempts", "bindings", "pending", "deleted")}


def witness_scenario(mutant: Mutant, release: str = UPSTREAM_RELEASE) -> ScenarioInput:
    """The mutant's witness scheduled as ``release`` (written for the pinned release)."""
    return mutant.witness().derived(release=release)


def witness_runs(mutant: Mutant, release: str = UPSTREAM_RELEASE
                 ) -> tuple[SubjectResult, SubjectResult]:
    """The reference's results on the mutant's witness as ``release``, genuine then mutated (a
    plugin-form mutant: the unmodified copy of its plugin, then the buggy one)."""
    witness = witness_scenario(mutant, release)
    if mutant.plugin is None:
        ref: Subject = ReferenceSubject(release=release)
        genuine = ref.run(witness)
        mutated = MutantSubject(mutant, ref).run(witness)
        return genuine, mutated
    copy = PluginFormSubject(copy_of(mutant.plugin.plugin), release)
    buggy = MutantSubject(mutant, release=release)
    try:
        return copy.run(witness), buggy.run(witness)
    finally:
        copy.close()
        buggy.close()


def witness_results(mutant: Mutant, release: str = UPSTREAM_RELEASE
                    ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The reference's SimulationResult on the mutant's witness, genuine then mutated."""
    genuine, mutated = witness_runs(mutant, release)
    return genuine.result, mutated.result


def witness_differs(mutant: Mutant, release: str = UPSTREAM_RELEASE) -> bool:
    """True when the mutant changes the reference's decisions on its witness (as
    ``release``)."""
    genuine, mutated = witness_results(mutant, release)
    return decisions(genuine) != decisions(mutated)


@dataclass(slots=True)
class WitnessCheck:
    """The witness scheduled with and without the mutant, and judged by the oracles."""

    differs: bool
    caught_by: list[str]  # oracles that reject the mutated reference's result
    genuine_violations: list[str]  # violations of the genuine result (an oracle false alarm)


def check_witness(mutant: Mutant, oracle_names: Sequence[str] = (),
                  release: str = UPSTREAM_RELEASE) -> WitnessCheck:
    """Schedule the witness (as ``release``) with the genuine and the mutated reference and
    apply the oracles to both results: the mutant must change the decisions; ``caught_by``
    tells whether the oracles can see the bug at all (on an input that exposes it)."""
    genuine, mutated = witness_runs(mutant, release)
    scenario = witness_scenario(mutant, release)
    subject = MutantSubject(mutant, release=release)
    # the genuine side of a plugin-form mutant is the unmodified copy: the differential must
    # find nothing there either
    copy = (PluginFormSubject(copy_of(mutant.plugin.plugin), release) if mutant.plugin
            else subject)
    try:
        bad = failures(check_result(scenario, mutated, subject,
                                    mutant_checks(mutant, subject, oracle_names)))
        good = failures(check_result(scenario, genuine, subject,
                                     mutant_checks(mutant, copy, oracle_names)))
    finally:
        subject.close()
        copy.close()
    return WitnessCheck(decisions(genuine.result) != decisions(mutated.result),
                        sorted({f.oracle for f in bad}), [str(f) for f in good])


def not_applicable(mutant: Mutant, release: str) -> str:
    """Why the mutant's planted bug concerns a behaviour ``release`` does not have, known
    before anything runs (then it is reported ``not applicable``, not counted), or "" when it
    may apply: a plugin-form mutant of a plugin absent from that release's default profile.
    A mutant whose witness the pinned release schedules differently with it but ``release``
    does not is not applicable either
    (:func:`differs_only_on_pinned`, once the witness was found not to differ there)."""
    if release == UPSTREAM_RELEASE:
        return ""
    if mutant.plugin is not None and not in_default_profile(mutant.plugin.plugin, release):
        return (f"{mutant.plugin.plugin} is not in the default profile of {release} "
                "(pkg/scheduler/apis/config/v1/default_plugins.go)")
    return ""


def differs_only_on_pinned(mutant: Mutant, release: str) -> str:
    """The reason to report a mutant ``not applicable`` to ``release`` when its witness is
    scheduled the same there with and without it but differently on the pinned release (the
    witness was written for that one); "" otherwise."""
    if release == UPSTREAM_RELEASE or not witness_differs(mutant, UPSTREAM_RELEASE):
        return ""
    return (f"its witness changes the decisions on {UPSTREAM_RELEASE} but not on {release}: "
            f"the behaviour it plants a bug in is absent from or different in {release}, or "
            "the witness, written for the pinned release, does not reach it there")
