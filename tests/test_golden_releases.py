"""Golden scenarios across releases: a scenario is stored once, with a decisions document per
distinct outcome and the releases each holds for (``holdsFor``); record and verify take
``--release`` (issue 16, docs/golden.md#releases)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.main import main
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject, SubjectResult
from conformance.engines.golden import (
    GOLDEN_KIND,
    GoldenDecisions,
    decisions_for,
    read_golden_file,
    read_scenario_file,
    split_golden,
    write_scenario_file,
)
from conformance.engines.golden_record import merge_decisions, record, write

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"


def _dec(release: str, node: str, holds: tuple[str, ...] = ()) -> GoldenDecisions:
    return GoldenDecisions({"default/p": node}, [], upstream_release=release, holds_for=holds)


def test_a_release_with_the_same_decisions_joins_their_document() -> None:
    merged = merge_decisions([_dec("v1.37.2", "a")], _dec("v1.34.4", "a"))
    assert len(merged) == 1 and merged[0].releases == ("v1.34.4", "v1.37.2")
    assert merged[0].upstream_release == "v1.37.2"  # the provenance of the first recording
    assert merged[0].to_doc()["holdsFor"] == ["v1.34.4", "v1.37.2"]


def test_a_release_with_other_decisions_gets_a_document_of_its_own() -> None:
    merged = merge_decisions([_dec("v1.37.2", "a", ("v1.36.3", "v1.37.2"))],
                             _dec("v1.34.4", "b"))
    assert [d.releases for d in merged] == [("v1.36.3", "v1.37.2"), ("v1.34.4",)]
    assert "holdsFor" not in merged[1].to_doc()  # only its recording release
    # re-recorded differently, a release leaves the document that held it
    again = merge_decisions(merged, _dec("v1.36.3", "b"))
    assert [d.releases for d in again] == [("v1.37.2",), ("v1.34.4", "v1.36.3")]


def test_a_file_holds_several_documents_and_each_release_reads_its_own(tmp_path: Path) -> None:
    scenario, _, _ = read_scenario_file(GOLDEN / "fit" / "cpu-memory.yaml")
    docs = [_dec("v1.37.2", "a", ("v1.35.4", "v1.37.2")), _dec("v1.34.4", "b")]
    path = write_scenario_file(tmp_path / "s.yaml", scenario, docs)
    kinds = [d["kind"] for d in yaml.safe_load_all(path.read_text()) if d]
    assert kinds.count(GOLDEN_KIND) == 2
    _, read, _ = read_golden_file(path)
    assert [d.releases for d in read] == [("v1.34.4",), ("v1.35.4", "v1.37.2")]  # oldest first
    assert read_scenario_file(path, "v1.34.4")[1].bindings == {"default/p": "b"}
    assert read_scenario_file(path)[1].bindings == {"default/p": "a"}  # the file's release
    assert read_scenario_file(path, "v1.36.3")[1] is None
    assert decisions_for(read, "v1.35.4") is read[1]


def test_two_documents_may_not_hold_one_release(tmp_path: Path) -> None:
    scenario, _, _ = read_scenario_file(GOLDEN / "fit" / "cpu-memory.yaml")
    both: list[Any] = [_dec("v1.37.2", "a").to_doc(), _dec("v1.37.2", "b").to_doc()]
    with pytest.raises(ValueError, match="two GoldenDecisions documents hold for v1.37.2"):
        split_golden(scenario.derived(documents=[*scenario.documents, *both]))


def test_record_and_verify_another_release(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Recording v1.34.4 (here from the reference, which schedules as any release) adds the
    release to the document with the same decisions; verify then compares v1.34.4 with them
    and skips a release nobody recorded, saying how to record it."""
    gdir = tmp_path / "golden"
    shutil.copytree(GOLDEN / "definitions", gdir / "definitions",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (gdir / "fit").mkdir()
    scenario, decisions, _ = read_golden_file(GOLDEN / "fit" / "cpu-memory.yaml")
    only_pinned = [dataclasses.replace(d, holds_for=()) for d in decisions
                   if "v1.37.2" in d.releases]  # as recorded before the other releases
    write_scenario_file(gdir / "fit" / "cpu-memory.yaml", scenario, only_pinned)
    argv = ["golden", "record", "--upstream", "reference", "--golden-dir", str(gdir),
            "--only", "fit/cpu-memory", "--release", "v1.34"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "first recording for v1.34.4: the same decisions as v1.37.2" in out
    assert main([*argv, "--yes"]) == 0
    capsys.readouterr()
    _, decisions, _ = read_golden_file(gdir / "fit" / "cpu-memory.yaml")
    assert [d.releases for d in decisions] == [("v1.34.4", "v1.37.2")]
    assert main(argv) == 0 and "  same  fit/cpu-memory" in capsys.readouterr().out
    verify = ["golden", "verify", "--golden-dir", str(gdir), "-o", "json"]
    assert main([*verify, "--release", "v1.34"]) == 0
    assert '"status": "passed"' in capsys.readouterr().out
    assert main([*verify, "--release", "v1.35"]) == 0
    out = capsys.readouterr().out
    assert '"status": "skipped"' in out and "recorded for v1.34.4, v1.37.2, not v1.35.4" in out
    assert main(["golden", "list", "--golden-dir", str(gdir)]) == 0
    assert "v1.34.4,v1.37.2" in capsys.readouterr().out


class _Alternating(Subject):
    """A v1.34.4 subject whose tie goes to another node on every run (selectHost's reservoir
    sampling with Go's unseeded rand)."""

    name = "upstream"

    def __init__(self) -> None:
        self.runs = 0

    @property
    def release(self) -> str:
        return "v1.34.4"

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        self.runs += 1
        node = "n1" if self.runs % 2 else "n2"
        return SubjectResult({"bindings": {"default/p": node}, "pending": []})


class _Definition:
    name, covers = "fit/cpu-memory", ""

    def scenario(self) -> ScenarioInput:
        return read_scenario_file(GOLDEN / "fit" / "cpu-memory.yaml")[0]


def test_a_random_choice_of_a_reservoir_release_is_not_recorded(tmp_path: Path) -> None:
    """Runs of a reservoir release that disagree make the scenario random there: skipped, and
    decisions recorded for that release before are taken out of the file."""
    path = tmp_path / "fit" / "cpu-memory.yaml"
    scenario = _Definition().scenario()
    write_scenario_file(path, scenario, [_dec("v1.37.2", "a", ("v1.34.4", "v1.37.2"))])
    lines: list[str] = []
    subject = _Alternating()
    found = record(subject, tmp_path, ["fit/cpu-memory"], {"fit/cpu-memory": _Definition()},
                   "cmd", force=False, say=lines.append)
    assert found.random == 1 and subject.runs == 2  # the second run already disagreed
    assert any("selectHost picks among tied nodes at random" in line for line in lines)
    write(found, lines.append)
    assert [d.releases for d in read_golden_file(path)[1]] == [("v1.37.2",)]
