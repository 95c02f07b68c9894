"""The golden scenarios (golden/AREA/NAME.yaml): decisions recorded from the real upstream
scheduler.

The reference must make exactly the recorded decisions on every file. Nothing here needs Go:
the decisions are read from the files (``kschedconf golden record`` wrote them from the upstream
subject; ``golden/definitions/`` holds the readable definitions the files are built from).
"""

from __future__ import annotations

import io
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.main import main as diff_main
from conformance.core.events import EventBus
from conformance.core.scenario import INFO_KIND
from conformance.engines.golden import (
    GOLDEN_KIND,
    compare_golden,
    flat_name,
    golden_files,
    golden_name,
    read_golden_file,
    read_scenario_file,
)
from conformance.engines.golden_record import load_definitions
from conformance.engines.run import RunOptions, run
from conformance.reporters.console import ConsoleReporter
from conformance.subjects.reference import ReferenceSubject
from reference_impl.releases.pinned import UPSTREAM_RELEASE

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
FILES = golden_files(GOLDEN)
NAMES = [golden_name(p, GOLDEN) for p in FILES]
AREAS = {"fit", "scoring", "taints", "affinity", "node", "spread", "preemption", "queue",
         "config", "large", "mixed", "admission", "busy", "storage", "dra"}


@pytest.fixture(scope="module")
def reference() -> ReferenceSubject:
    return ReferenceSubject()


@pytest.mark.parametrize("path", FILES, ids=NAMES)
def test_reference_makes_the_recorded_decisions(path: Path, reference: ReferenceSubject) -> None:
    """For every release a file holds decisions for, the reference scheduling the scenario as
    that release makes them."""
    scenario, all_decisions, _ = read_golden_file(path)
    assert all_decisions, f"{path} has no GoldenDecisions document"
    for decisions in all_decisions:
        for release in decisions.releases:
            result = reference.run(scenario.derived(release=release)).result
            assert compare_golden(decisions, result) == [], release


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def test_one_folder_per_area_with_the_metadata_first_and_the_decisions_last() -> None:
    """Every file is AREA/NAME.yaml; its first document is the ScenarioInfo (name AREA/NAME,
    seed, covers), its last the GoldenDecisions with the provenance of the recording."""
    assert len(FILES) >= 50
    assert {n.split("/")[0] for n in NAMES} == AREAS
    assert all(n.count("/") == 1 for n in NAMES), NAMES
    # counterexample files of `run --suite golden` flatten the names: still one per scenario
    assert len({flat_name(n) for n in NAMES}) == len(NAMES)
    for path, name in zip(FILES, NAMES, strict=True):
        text = path.read_text()
        assert not any(line.startswith("#") for line in text.splitlines()), path  # no comments
        docs = _docs(path)
        info, doc = docs[0], docs[-1]
        assert (info["apiVersion"], info["kind"]) == ("kschedconf/v1", INFO_KIND), path
        assert info["name"] == name and isinstance(info["seed"], int) and info["covers"], path
        assert doc["kind"] == GOLDEN_KIND, "GoldenDecisions must be the last document"
        assert doc["upstreamRelease"] == UPSTREAM_RELEASE, path
        assert "kube-scheduler" in doc["source"] and "kschedconf-upstream" in doc["source"]
        assert doc["recordedWith"].startswith("kschedconf golden record"), path
        assert len(doc["recordedAt"]) == 10, path  # YYYY-MM-DD
        scenario, decisions, _ = read_scenario_file(path)
        assert (scenario.name, scenario.covers) == (name, info["covers"])
        assert decisions is not None and decisions.recorded_at == doc["recordedAt"]


def test_files_are_the_definitions() -> None:
    """Every file is exactly what golden/definitions/ defines (so re-recording reproduces the
    inputs and the metadata) and every definition has its file."""
    defs = load_definitions(GOLDEN)
    assert sorted(defs) == sorted(NAMES)
    for path, name in zip(FILES, NAMES, strict=True):
        scenario, _, _ = read_scenario_file(path)
        want = defs[name].scenario()
        assert (scenario.documents, scenario.config, scenario.seed) == (
            want.documents, want.config, want.seed), name
        assert scenario.info == want.info, name


def _kinds(path: Path) -> set[str]:
    scenario, _, _ = read_scenario_file(path)
    return {d.get("kind", "") for d in scenario.documents} | (
        {"KubeSchedulerConfiguration"} if scenario.config else set())


def test_the_corpus_covers_what_it_should() -> None:
    """A cheap check of the corpus' breadth: preemption with PDBs, timelines, configurations,
    more than 100 nodes, and the scenarios named for each default plugin."""
    for prefix in ("fit/", "scoring/balanced", "scoring/image", "taints/",
                   "affinity/node-affinity", "affinity/node-selector", "node/ports",
                   "spread/", "affinity/pod-affinity", "affinity/pod-anti-affinity",
                   "affinity/existing-pods-", "node/name", "node/unschedulable",
                   "queue/scheduling-gates", "preemption/", "queue/", "config/most",
                   "config/requested", "config/score", "large/", "dra/"):
        assert any(n.startswith(prefix) for n in NAMES), prefix
    kinds = [_kinds(p) for p in FILES]
    assert any("PodDisruptionBudget" in k for k in kinds)
    dra = {"DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"}
    assert dra <= set().union(*kinds)  # DynamicResources with every kind it reads
    assert sum("Scenario" in k for k in kinds) >= 5
    assert sum("KubeSchedulerConfiguration" in k for k in kinds) >= 6
    big = []
    for p in FILES:
        scenario, _, _ = read_scenario_file(p)
        big.append(sum(d.get("kind") == "Node" for d in scenario.documents))
    assert sum(n > 100 for n in big) >= 4 and max(big) >= 300
    deleted = [_docs(p)[-1].get("deleted") for p in FILES]
    assert sum(bool(d) for d in deleted) >= 5  # preemption happened in several


def test_run_suite_golden_reads_the_same_files(tmp_path: Path) -> None:
    """``kschedconf run --suite golden`` (the golden suite) agrees with `golden verify`."""

    out = io.StringIO()
    report = run(RunOptions(suite="golden", golden_dir=str(GOLDEN), out=str(tmp_path)),
                 EventBus([ConsoleReporter(out)]))
    assert report.exit_code == 0, out.getvalue()
    golden = [c for c in report.cases if c.suite == "golden"]
    assert sorted(c.name for c in golden) == sorted(NAMES)
    assert "golden/preemption/pdb" in out.getvalue()


def test_golden_verify_and_list_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert diff_main(["golden", "verify", "--golden-dir", str(GOLDEN)]) == 0
    out = capsys.readouterr().out
    assert f"{len(FILES)} golden scenarios: {len(FILES)} passed in " in out
    assert "  ok    golden/fit/cpu-memory  " in out
    assert diff_main(["golden", "verify", "--only", "fit/cpu-memory", "--only",
                      "preemption/pdb.yaml"]) == 0
    assert "2 golden scenarios: 2 passed" in capsys.readouterr().out
    assert diff_main(["golden", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(FILES)
    assert any(line.startswith("fit/cpu-memory ") and "v1.37.2" in line
               and "NodeResourcesFit filter: cpu and memory" in line for line in lines)


def _copy(name: str, directory: Path) -> Path:
    dst = directory / f"{name}.yaml"
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(GOLDEN / f"{name}.yaml", dst)
    return dst


def test_golden_verify_fails_on_a_changed_decision(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    gdir = tmp_path / "golden"
    dst = _copy("fit/cpu-memory", gdir)
    _copy("preemption/pdb", gdir)
    text = dst.read_text()
    assert "default/a: big" in text
    dst.write_text(text.replace("default/a: big", "default/a: small"))
    junit = tmp_path / "golden.xml"
    assert diff_main(["golden", "verify", "--golden-dir", str(gdir), "--junit",
                      str(junit)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  golden/fit/cpu-memory" in out
    assert "pod default/a: upstream bound to small, subject bound to big" in out
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    assert set(cases) == {"fit/cpu-memory", "preemption/pdb"}
    assert cases["fit/cpu-memory"].find("failure") is not None
    for only in ("nope", "cpu-memory", "fit-cpu-memory"):
        assert diff_main(["golden", "verify", "--golden-dir", str(gdir), "--only", only]) == 2
        assert "names are AREA/NAME" in capsys.readouterr().err
    # the golden suite of `run`: the case is named AREA/NAME, its counterexample file flat
    report = run(RunOptions(suite="golden", golden_dir=str(gdir), out=str(tmp_path / "out")),
                 EventBus([ConsoleReporter(io.StringIO())]))
    (failed,) = [c for c in report.cases if c.status == "failed"]
    assert failed.name == "fit/cpu-memory"
    ce = tmp_path / "out" / "golden-fit-cpu-memory.yaml"
    assert failed.counterexample == str(ce)
    scenario, decisions, notes = read_scenario_file(ce)
    assert decisions is not None and decisions.bindings["default/a"] == "small"
    assert scenario.name == "golden-fit-cpu-memory" and scenario.seed == 0
    assert notes["golden"] == str(dst) and notes["reproduce"].startswith("kschedconf reproduce")
    assert _docs(ce)[0]["kind"] == INFO_KIND


def test_golden_record_writes_area_folders_from_a_copy_of_the_definitions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``golden record`` (here from the reference, which agrees with upstream on these) loads
    the definitions package of the directory it is given, finds the files unchanged, and
    writes a missing one into its area folder exactly as recorded before, but for the date
    and command of the recording."""
    gdir = tmp_path / "golden"
    shutil.copytree(GOLDEN / "definitions", gdir / "definitions",
                    ignore=shutil.ignore_patterns("__pycache__"))
    _copy("fit/cpu-memory", gdir)
    argv = ["golden", "record", "--upstream", "reference", "--golden-dir", str(gdir),
            "--only", "fit/cpu-memory", "--only", "queue/node-added-later"]
    assert diff_main(argv) == 1  # a new file, not written without --yes
    out = capsys.readouterr().out
    assert "  same  fit/cpu-memory" in out and "  new  queue/node-added-later" in out
    assert "nothing written" in out and not (gdir / "queue").exists()
    assert diff_main([*argv, "--yes"]) == 0
    written = gdir / "queue" / "node-added-later.yaml"
    assert f"wrote {written}" in capsys.readouterr().out
    new, old = _docs(written), _docs(GOLDEN / "queue" / "node-added-later.yaml")
    assert new[:-1] == old[:-1]  # the ScenarioInfo and every input document
    old[-1].pop("holdsFor", None)  # the other releases' recordings: not this one's
    for doc in (new[-1], old[-1]):
        doc.pop("recordedAt")
        assert doc.pop("recordedWith").startswith("kschedconf golden record")
    assert new[-1] == old[-1]
    assert diff_main(["golden", "record", "--golden-dir", str(gdir), "--only", "nope"]) == 2
    assert "no golden definition named nope" in capsys.readouterr().err
    old = tmp_path / "old"  # a golden directory of the old form: generate.py, flat files
    old.mkdir()
    (old / "generate.py").write_text("def definitions():\n    return {}\n")
    assert diff_main(["golden", "record", "--golden-dir", str(old)]) == 2
    assert "generate.py is the old form" in capsys.readouterr().err
