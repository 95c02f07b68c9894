"""``kschedconf mutants --release`` (issue 16): the reference, genuine and mutated, follows the
release asked for (generated scenarios, witnesses, golden suite), the report names it, and a
mutant whose bug concerns a behaviour absent from that release is ``not applicable`` (not
counted) instead of surviving."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import reference_impl.scheduler.schedule_one as schedule_one
from conformance.cli.main import main as mutants_main
from conformance.core.errors import UsageError
from conformance.core.scenario import ScenarioInput
from conformance.engines import mutants as m
from conformance.engines.golden import default_golden_dir, golden_files, read_scenario_file
from conformance.engines.mutants import runner
from conformance.subjects.reference import ReferenceSubject
from reference_impl.releases.pinned import UPSTREAM_RELEASE

OLD = "v1.34.4"  # selectHost by reservoir sampling (reference_impl/releases/behaviours.py)
TIMING = {"seconds", "totalSeconds", "detectedAfter"}


def _untimed(doc: Any) -> Any:
    """``doc`` without its wall-clock fields."""
    if isinstance(doc, dict):
        return {k: _untimed(v) for k, v in doc.items() if k not in TIMING}
    if isinstance(doc, list):
        return [_untimed(v) for v in doc]
    return doc


def test_cli_release_runs_a_caught_mutant_on_that_release(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scenario the reference schedules during the run names the release, and the
    reference follows that release's rules: v1.34.4 picks the host by reservoir sampling
    (``pkg/scheduler/schedule_one.go`` selectHost of v1.34), which no later release does."""
    assert OLD != UPSTREAM_RELEASE
    seen: list[str] = []
    reservoir: list[int] = []
    run, pick = ReferenceSubject.run, schedule_one.select_host_reservoir

    def spy_run(self: ReferenceSubject, scenario: ScenarioInput) -> Any:
        seen.append(scenario.release)
        return run(self, scenario)

    def spy_pick(*args: Any, **kwargs: Any) -> Any:
        reservoir.append(1)
        return pick(*args, **kwargs)

    monkeypatch.setattr(ReferenceSubject, "run", spy_run)
    monkeypatch.setattr(schedule_one, "select_host_reservoir", spy_pick)
    argv = ["mutants", "--release", "v1.34", "--only", "score-weights-dropped",
            "--max-examples", "5", "--budget", "120", "-j", "1", "-o", "json"]
    assert mutants_main(argv) == 0
    first = capsys.readouterr()
    doc = json.loads(first.out)
    assert doc["upstreamRelease"] == OLD
    assert [x["status"] for x in doc["mutants"]] == [m.CAUGHT]
    assert f"upstream {OLD}" in first.err.splitlines()[0]
    assert seen and set(seen) == {OLD}
    assert reservoir, "the reference did not follow v1.34.4's selectHost"
    # the same seed: the same document (but for the wall-clock times)
    assert mutants_main(argv) == 0
    assert _untimed(json.loads(capsys.readouterr().out)) == _untimed(doc)


def test_plan_header_properties_and_rerun_name_the_release() -> None:
    plan = m.resolve_plan(m.MutantsOptions(only=["queue-fifo"], release=OLD))
    assert plan.header.endswith(f"upstream {OLD}")
    assert plan.properties()["upstream.release"] == OLD
    assert plan.rerun_command().endswith(f"--release {OLD}")
    pinned = m.resolve_plan(m.MutantsOptions(only=["queue-fifo"]))
    assert "--release" not in pinned.rerun_command()
    assert pinned.properties()["upstream.release"] == UPSTREAM_RELEASE
    with pytest.raises(UsageError, match="unsupported release"):
        m.resolve_plan(m.MutantsOptions(release="v1.2.3"))


def test_plugin_of_a_later_release_is_not_applicable_and_not_counted() -> None:
    """NodeDeclaredFeatures is in the default profile since v1.36: its plugin-form mutant does
    not apply to v1.34.4 (reported, not counted), and does on the pinned release."""
    mu = m.get("plugin-declared-features-ignored")
    opts = m.MutantsOptions(max_examples=1, budget=None, golden=False, release=OLD)
    out = m.run_mutant(mu, opts)
    assert out.status == m.NOT_APPLICABLE and not out.counted
    assert "NodeDeclaredFeatures" in out.message and OLD in out.case().message
    assert out.case().status == "skipped"
    report = m.MutantsReport([out], opts)
    assert report.exit_code == 0 and report.to_dict()["counted"] == 0
    assert "1 not applicable to v1.34.4 not counted" in report.totals()[0]
    assert m.check_witness(mu).differs  # on the pinned release it applies


def test_a_witness_that_differs_only_on_the_pinned_release_is_not_applicable() -> None:
    """select-first-tied-node breaks the pinned release's heap tie-break; v1.34.4 samples the
    top nodes by reservoir, where the witness is scheduled the same with it: not applicable
    rather than ineffective (an error)."""
    mu = m.get("select-first-tied-node")
    assert m.witness_differs(mu) and not m.witness_differs(mu, OLD)
    out = m.run_mutant(mu, m.MutantsOptions(max_examples=1, budget=None, golden=False,
                                            release=OLD))
    assert out.status == m.NOT_APPLICABLE, out.message
    assert UPSTREAM_RELEASE in out.message


def test_golden_part_keeps_the_scenarios_recorded_for_the_release(tmp_path: Path) -> None:
    """The golden part compares only the scenarios with decisions for the release (as
    ``golden verify --release``), each scheduled as that release."""
    files = golden_files(default_golden_dir())
    held = next(f for f in files if read_scenario_file(f, OLD)[1] is not None)
    absent = next(f for f in files if read_scenario_file(f, OLD)[1] is None)
    for f in (held, absent):
        (tmp_path / f.name).write_text(f.read_text())
    seen: list[str] = []

    class Spy(ReferenceSubject):
        def run(self, scenario: ScenarioInput) -> Any:
            seen.append(scenario.release)
            return super().run(scenario)

    out = runner._run_golden(Spy(release=OLD), str(tmp_path), OLD)
    assert out is not None and not out.failed and out.examples == 1
    assert seen == [OLD]
    pinned = runner._run_golden(Spy(), str(tmp_path), UPSTREAM_RELEASE)
    assert pinned is not None and pinned.examples == sum(
        read_scenario_file(f, UPSTREAM_RELEASE)[1] is not None for f in (held, absent))


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
