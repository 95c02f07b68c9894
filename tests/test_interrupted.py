"""Ctrl-C and SIGTERM midway through ``kschedconf run`` and ``kschedconf golden verify`` end with
the same summary of the cases judged so far as a finished run, the JUnit report of those cases,
and exit code 128 + the signal (``diff`` and ``mutants`` have their own tests of the same form in
test_diff.py and test_mutants.py); the ``test_sigint_*`` tests send a real SIGINT to each command
run as a process."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conformance.cli import golden as golden_cli
from conformance.cli.main import main
from conformance.core.documents import schema
from conformance.core.errors import Terminated, request_stop
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectResult
from conformance.engines import run as run_engine
from conformance.engines.diff import run as diff_run
from conformance.engines.golden import default_golden_dir, golden_files, golden_name
from conformance.subjects.reference import ReferenceSubject


class StopsAfter(ReferenceSubject):
    """The reference, until its ``n``-th scenario: then the stop of ``exc``."""

    def __init__(self, n: int, exc: BaseException) -> None:
        super().__init__()
        self.n, self.exc, self.runs = n, exc, 0

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        self.runs += 1
        if self.runs >= self.n:
            raise self.exc
        return super().run(scenario)


def _cases(junit: Path) -> list[str]:
    return [c.get("name", "") for c in ET.parse(junit).getroot().iter("testcase")]


@pytest.mark.parametrize(("exc", "code", "reason"), [
    (KeyboardInterrupt(), 130, "Ctrl-C"), (Terminated(signal.SIGTERM), 143, "SIGTERM")])
def test_golden_verify_interrupted_midway(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          exc: BaseException, code: int, reason: str) -> None:
    monkeypatch.setattr(golden_cli, "make_subject", lambda *a, **k: StopsAfter(4, exc))
    junit = tmp_path / "golden.xml"
    assert main(["golden", "verify", "--junit", str(junit)]) == code
    out = capsys.readouterr().out
    assert f"interrupted by {reason} after 3 of " in out
    assert "3 golden scenarios: 3 passed in " in out
    assert f"JUnit report: {junit}" in out
    assert len(_cases(junit)) == 3


def test_run_interrupted_midway(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run_engine, "make_subject",
                        lambda *a, **k: StopsAfter(40, KeyboardInterrupt()))
    junit, report = tmp_path / "run.xml", tmp_path / "run.json"
    assert main(["run", "--suite", "all", "--profile", "dev", "--seed", "1", "--max-examples",
                 "5", "--no-shrink", "--junit", str(junit), "--report", str(report)]) == 130
    out = capsys.readouterr().out
    # 7 properties of 5 examples each (35 runs), then golden scenarios until the 40th run
    assert "interrupted by Ctrl-C after 11 of " in out
    assert "7 properties (35 examples); 4 golden scenarios: 11 passed in " in out
    assert len(_cases(junit)) == 11
    doc = json.loads(report.read_text())
    jsonschema.validate(doc, schema("RunReport"))
    assert (doc["interrupted"], doc["exitCode"], doc["planned"]) == ("Ctrl-C", 130,
                                                                      7 + len(golden_files(
                                                                          default_golden_dir())))
    assert doc["summary"] == {"passed": 11, "failed": 0, "error": 0, "skipped": 0}


def test_a_finished_golden_verify_reports_every_case(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "golden.yaml"
    assert main(["golden", "verify", "--report", str(report)]) == 0
    doc = yaml.safe_load(report.read_text())
    jsonschema.validate(doc, schema("RunReport"))
    directory = default_golden_dir()
    files = golden_files(directory)
    assert doc["command"] == "golden verify" and doc["exitCode"] == 0
    assert [c["name"] for c in doc["cases"]] == [golden_name(p, directory) for p in files]
    assert f"run report: {report}" in capsys.readouterr().out


ROOT = Path(__file__).resolve().parent.parent


def _sigint_after(tmp_path: Path, ready: str, *argv: str,
                  wait: float = 0.0) -> tuple[int, str, str]:
    """Run ``kschedconf ARGV`` in a process, send it a real SIGINT ``wait`` seconds after its
    output shows ``ready``; its exit code, stdout and stderr."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("CI", None)
    proc = subprocess.Popen([sys.executable, "-m", "conformance.cli", *argv], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        for line in proc.stdout:
            seen.append(line)
            if ready in line:
                break
        time.sleep(wait)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, "".join(seen) + out, err


def _junit_cases(path: Path) -> dict[str, ET.Element]:
    return {c.get("name", ""): c for c in ET.parse(path).getroot().iter("testcase")}


def _skipped(case: ET.Element) -> str:
    el = case.find("skipped")
    return "" if el is None else el.get("message", "")


def test_sigint_in_run_marks_the_interrupted_property(tmp_path: Path) -> None:
    code, out, _ = _sigint_after(
        tmp_path, "properties:", "run", "--oracle", "consistency", "no_overcommit",
        "--max-examples", "400", "--junit", "run.xml", "--report", "run.json",
        wait=2.0)  # into the first property (400 examples take far longer), not before it
    assert code == 130, out
    seed = re.search(r"; seed (\d+) \(drawn: --seed replays this run\)", out)
    assert seed is not None, out
    assert "interrupted by Ctrl-C after 1 of 2 case(s); summary so far:" in out
    assert "  skip  small/consistency  " in out and "(interrupted)" in out
    assert f"--seed {seed[1]} " in out.split("summary so far:")[1]  # the rerun command
    case = _junit_cases(tmp_path / "run.xml")["consistency"]
    assert _skipped(case).startswith("interrupted by Ctrl-C after ")
    doc = json.loads((tmp_path / "run.json").read_text())
    jsonschema.validate(doc, schema("RunReport"))
    assert (doc["interrupted"], doc["exitCode"]) == ("Ctrl-C", 130)
    assert doc["properties"]["seed"] == seed[1]
    assert doc["cases"][0]["stoppedBy"] == "interrupted"


def test_sigint_in_golden_verify(tmp_path: Path) -> None:
    code, out, _ = _sigint_after(tmp_path, "  ok  ", "golden", "verify", "--junit", "g.xml",
                                 "--report", "g.json")
    assert code == 130, out
    assert re.search(r"interrupted by Ctrl-C after \d+ of \d+ case\(s\); summary so far:",
                     out), out
    cases = _junit_cases(tmp_path / "g.xml")
    assert cases and json.loads((tmp_path / "g.json").read_text())["interrupted"] == "Ctrl-C"


def test_sigint_in_diff(tmp_path: Path) -> None:
    code, out, _ = _sigint_after(tmp_path, "  ok  ", "diff", "--scenarios", "400", "--seed",
                                 "1", "--junit", "d.xml", "--report", "d.json")
    assert code == 130, out
    assert re.search(r"interrupted by Ctrl-C after \d+ of \d+ case\(s\); summary so far:",
                     out), out
    assert _junit_cases(tmp_path / "d.xml")
    doc = json.loads((tmp_path / "d.json").read_text())
    assert (doc["interrupted"], doc["exitCode"]) == ("Ctrl-C", 130)


def test_sigint_in_mutants_marks_the_running_mutant(tmp_path: Path) -> None:
    code, out, err = _sigint_after(
        tmp_path, "kschedconf mutants:", "mutants", "--only", "score-weights-dropped",
        "--jobs", "1", "--no-golden", "--max-examples", "5000", "--budget", "3000",
        "--junit", "m.xml",
        wait=3.0)  # the witness triage takes a second; then the mutant runs for about a
    # minute (hundreds of examples) before an oracle catches it
    assert code == 130, out + err
    assert "interrupted by Ctrl-C after 1 of 1 case(s); summary so far:" in out + err
    cases = _junit_cases(tmp_path / "m.xml")
    assert _skipped(cases["score-weights-dropped"]) == "interrupted by Ctrl-C while running"


def test_diff_honours_a_ctrl_c_python_swallowed(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A SIGINT whose KeyboardInterrupt Python loses (raised in a garbage-collector callback)
    leaves only its record (``request_stop``); the diff stops at the next scenario all the
    same, instead of running to its end (seen under load: a 400-scenario diff ran on)."""
    real, calls = diff_run.diff_scenario, [0]

    def swallowed_during_third(*a: Any, **k: Any) -> Any:
        calls[0] += 1
        if calls[0] == 3:
            request_stop(KeyboardInterrupt())  # the handler ran; its exception was lost
        return real(*a, **k)

    monkeypatch.setattr(diff_run, "diff_scenario", swallowed_during_third)
    copies = Path(__file__).resolve().parent / "data" / "plugin_copies"
    code = main(["diff", "--subject", f"reference:{copies / 'taint-toleration-copy-config.yaml'}",
                 "--plugins", str(copies / "taint_toleration_copy.py"), "--scenarios", "20",
                 "--seed", "1", "--out", str(tmp_path / "out"),
                 "--junit", str(tmp_path / "d.xml")])
    out = capsys.readouterr().out
    assert code == 130, out
    assert "interrupted by Ctrl-C after 3 of 20 case(s)" in out
    assert calls[0] == 3
