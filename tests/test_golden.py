"""The golden scenarios (golden/*.yaml): decisions recorded from the real upstream scheduler.

The reference must make exactly the recorded decisions on every file. Nothing here needs Go:
the decisions are read from the files (``kschedconf golden record`` wrote them from the upstream
subject; ``golden/generate.py`` holds the readable definitions the files are built from).
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.main import main as diff_main
from conformance.core.events import EventBus
from conformance.engines.golden import (
    GOLDEN_KIND,
    compare_golden,
    golden_files,
    load_definitions,
    read_scenario_file,
)
from conformance.engines.run import RunOptions, run
from conformance.reporters.console import ConsoleReporter
from conformance.subjects.reference import ReferenceSubject
from reference_impl.releases.pinned import UPSTREAM_RELEASE

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
FILES = golden_files(GOLDEN)


@pytest.fixture(scope="module")
def reference() -> ReferenceSubject:
    return ReferenceSubject()


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_reference_makes_the_recorded_decisions(path: Path, reference: ReferenceSubject) -> None:
    scenario, decisions, _ = read_scenario_file(path)
    assert decisions is not None, f"{path} has no GoldenDecisions document"
    result = reference.run(scenario).result
    assert compare_golden(decisions, result) == []


def _decisions_doc(path: Path) -> dict[str, Any]:
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    assert docs[-1]["kind"] == GOLDEN_KIND, "GoldenDecisions must be the last document"
    return docs[-1]


def test_enough_golden_scenarios_with_provenance() -> None:
    assert len(FILES) >= 50
    for path in FILES:
        doc = _decisions_doc(path)
        assert doc["upstreamRelease"] == UPSTREAM_RELEASE, path
        assert "kube-scheduler" in doc["source"] and "kschedconf-upstream" in doc["source"]
        assert doc["recordedWith"].startswith("kschedconf golden record"), path
        assert len(doc["recordedAt"]) == 10, path  # YYYY-MM-DD
        _, _, notes = read_scenario_file(path)
        assert notes.get("covers"), f"{path}: no `# covers:` header line"


def test_files_are_the_generator_definitions() -> None:
    """Every file is exactly what golden/generate.py defines (so re-recording reproduces the
    inputs) and every definition has its file."""
    defs = load_definitions(GOLDEN)
    assert sorted(defs) == sorted(p.stem for p in FILES)
    for path in FILES:
        scenario, _, _ = read_scenario_file(path)
        want = defs[path.stem].scenario()
        assert (scenario.documents, scenario.config, scenario.seed) == (
            want.documents, want.config, want.seed), path.stem


def _kinds(path: Path) -> set[str]:
    scenario, _, _ = read_scenario_file(path)
    return {d.get("kind", "") for d in scenario.documents} | (
        {"KubeSchedulerConfiguration"} if scenario.config else set())


def test_the_corpus_covers_what_it_should() -> None:
    """A cheap check of the corpus' breadth: preemption with PDBs, timelines, configurations,
    more than 100 nodes, and the scenarios named for each default plugin."""
    names = {p.stem for p in FILES}
    for prefix in ("fit-", "score-balanced", "score-image", "taints-", "node-affinity",
                   "node-selector", "node-ports", "spread-", "pod-affinity", "pod-anti-affinity",
                   "existing-pods-", "node-name", "node-unschedulable", "scheduling-gates",
                   "preemption-", "queue-", "config-most", "config-requested", "config-score",
                   "large-"):
        assert any(n.startswith(prefix) for n in names), prefix
    kinds = [_kinds(p) for p in FILES]
    assert any("PodDisruptionBudget" in k for k in kinds)
    assert sum("Scenario" in k for k in kinds) >= 5
    assert sum("KubeSchedulerConfiguration" in k for k in kinds) >= 6
    big = []
    for p in FILES:
        scenario, _, _ = read_scenario_file(p)
        big.append(sum(d.get("kind") == "Node" for d in scenario.documents))
    assert sum(n > 100 for n in big) >= 4 and max(big) >= 300
    deleted = [_decisions_doc(p).get("deleted") for p in FILES]
    assert sum(bool(d) for d in deleted) >= 5  # preemption happened in several


def test_run_suite_golden_reads_the_same_files(tmp_path: Path) -> None:
    """``kschedconf run --suite golden`` (the golden suite) agrees with `golden verify`."""

    out = io.StringIO()
    report = run(RunOptions(suite="golden", golden_dir=str(GOLDEN), out=str(tmp_path)),
                 EventBus([ConsoleReporter(out)]))
    assert report.exit_code == 0, out.getvalue()
    assert len([c for c in report.cases if c.suite == "golden"]) == len(FILES)


def test_golden_verify_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert diff_main(["golden", "verify", "--golden-dir", str(GOLDEN)]) == 0
    out = capsys.readouterr().out
    assert f"{len(FILES)} golden scenarios: {len(FILES)} passed in " in out


def test_golden_verify_fails_on_a_changed_decision(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    src = GOLDEN / "fit-cpu-memory.yaml"
    dst = tmp_path / "fit-cpu-memory.yaml"
    shutil.copy(src, dst)
    text = dst.read_text()
    assert "default/a: big" in text
    dst.write_text(text.replace("default/a: big", "default/a: small"))
    junit = tmp_path / "golden.xml"
    assert diff_main(["golden", "verify", "--golden-dir", str(tmp_path), "--junit",
                      str(junit)]) == 1
    out = capsys.readouterr().out
    assert "pod default/a: upstream bound to small, subject bound to big" in out
    assert 'failures="1"' in junit.read_text()
    assert diff_main(["golden", "verify", "--golden-dir", str(tmp_path), "--only",
                      "nope"]) == 2
