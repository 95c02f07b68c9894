"""What every command reports: input a subject dropped (kinds and counts), runs no oracle can
judge (never a pass), ``--output json|yaml|table`` validated against the shipped schemas,
JUnit's timestamp/hostname/file, and errors printed once."""

from __future__ import annotations

import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conformance.backends.driver import Driver, DriverOptions
from conformance.cli.main import main
from conformance.core.documents import schema
from conformance.core.dropped import dropped_counts, not_judged
from conformance.core.events import EventBus
from conformance.core.results import FAILED, PASSED, CaseResult
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectResult
from conformance.engines.golden import GoldenDecisions, write_scenario_file
from conformance.engines.session import Session
from conformance.reporters.junit import JUnitReporter
from conformance.reporters.report_file import ReportFileReporter, ReportStreamReporter
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, default_binary
from reference_impl.model.storage import ANN_BIND_COMPLETED
from reference_impl.testing.storage import make_csi_node, make_pv, make_pvc
from reference_impl.testing.wrappers import make_node, make_pod

GCE_PD = "pd.csi.storage.gke.io"


def config_map(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "default"}, "data": {"key": "value"}}


def secret(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": name, "namespace": "default"}, "data": {}}


def node() -> dict[str, Any]:
    return make_node("n1").capacity(cpu="2", memory="4Gi", pods="110").manifest()


#: a pod that fits, beside two ConfigMaps the model lacks (the scheduler never reads them)
WITH_CONFIG_MAPS = [node(), make_pod("web").req(cpu="1").manifest(), config_map("a"),
                    config_map("b")]
#: a pod whose claim is bound to an in-tree GCE disk that CSI migration would translate on the
#: node (its CSINode lists the plugin as migrated), which the reference does not model: it ends
#: in Error at VolumeBinding's Filter (docs/reference.md); beside a Secret the model lacks
EVERY_POD_IN_ERROR = [
    node(), make_csi_node("n1").driver(GCE_PD).migrated_plugins("kubernetes.io/gce-pd").manifest(),
    make_pv("disk").capacity("1Gi").access_modes("ReadWriteOnce")
    .source("gcePersistentDisk", {"pdName": "disk"}).claim_ref("default", "data").phase("Bound")
    .manifest(),
    make_pvc("data").access_modes("ReadWriteOnce").request("1Gi").no_class()
    .annotation(ANN_BIND_COMPLETED, "yes").bound_to("disk").manifest(),
    make_pod("db").req(cpu="1").pvc("data").manifest(), secret("s")]


def write(tmp_path: Path, name: str, docs: list[dict[str, Any]]) -> Path:
    return ScenarioInput(docs, name=name).write(tmp_path / f"{name}.yaml")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- what a subject dropped, what cannot be judged ---------------------------------------------

def test_the_reference_subject_reports_the_kinds_it_dropped() -> None:
    res = ReferenceSubject().run(ScenarioInput(WITH_CONFIG_MAPS, name="s"))
    assert dropped_counts(res.warnings) == {"ConfigMap": 2}
    assert res.result["bindings"] == {"default/web": "n1"}
    assert not_judged(res.result, res.warnings) == ""


def test_the_upstream_subject_reports_what_its_go_loader_dropped() -> None:
    """The Go loader's warnings come back in serve answers (upstream/main.go), worded as the
    reference's; needs the upstream binary built from this source (bash upstream/build.sh)."""
    binary = default_binary()
    if not os.access(binary, os.X_OK):
        pytest.skip(f"the upstream subject is not built ({binary}): bash upstream/build.sh")
    with UpstreamSubject() as up:
        res = up.run(ScenarioInput(WITH_CONFIG_MAPS, name="s"))
    assert dropped_counts(res.warnings) == {"ConfigMap": 2}
    assert "warnings" not in res.result  # not part of the SimulationResult
    jsonschema.validate(res.result, schema("SimulationResult"))


def test_a_real_control_plane_reports_the_kinds_its_driver_does_not_create() -> None:
    """The backends create only the kinds the loader models; the rest is in the driver's
    warnings, which the backend subject returns."""
    driver = Driver(None, DriverOptions(run_id="ks-test"))  # planning uses no API
    plan = driver.plan(ScenarioInput(WITH_CONFIG_MAPS, name="s"))
    assert [p.manifest["metadata"]["name"] for p in plan.pending] == ["web"]
    assert dropped_counts(driver.warnings) == {"ConfigMap": 2}


def test_a_run_whose_every_pod_ended_in_error_is_not_judged() -> None:
    res = ReferenceSubject().run(ScenarioInput(EVERY_POD_IN_ERROR, name="s"))
    assert dropped_counts(res.warnings) == {"Secret": 1}
    why = not_judged(res.result, res.warnings)
    assert why.startswith("every pod ended in Error (1 pod(s)); default/db:")
    # one pod bound among errors is judged
    judged = {"attempts": [{"pod": "a", "outcome": "Error"}, {"pod": "b", "outcome": "Bound"}]}
    assert not_judged(judged) == ""
    # a pod that ended in Error and then bound on a retry is judged
    retried = {"attempts": [{"pod": "a", "outcome": "Error"}, {"pod": "a", "outcome": "Bound"}]}
    assert not_judged(retried) == ""
    # nothing to schedule because every object was dropped
    # terminal pods are not dropped input: kube-scheduler ignores them too
    assert dropped_counts(["ignored 2 pod(s) in phase Succeeded/Failed (the scheduler does "
                           "not see terminal pods)"]) == {}
    assert not_judged({"bindings": {}, "pending": []},
                      ["s: ignored 3 object(s) of kind Deployment (apps/v1)"]) == (
        "nothing to schedule: the subject dropped 3 Deployment")


def test_reproduce_says_not_judged_and_exits_2(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, "errors", EVERY_POD_IN_ERROR)
    code, out, _ = run(capsys, "reproduce", str(path))
    assert code == 2
    assert "no violations" not in out
    assert "not judged: every pod ended in Error" in out
    assert "dropped input it does not model: 1 Secret" in out


def test_reproduce_json_is_a_valid_reproduce_result(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, "unmodelled", WITH_CONFIG_MAPS)
    code, out, err = run(capsys, "reproduce", str(path), "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, schema("ReproduceResult"))
    assert code == doc["exitCode"] == 0
    assert doc["dropped"] == {"ConfigMap": 2} and doc["notJudged"] == ""
    assert doc["bindings"] == {"default/web": "n1"} and doc["goldenDifferences"] is None
    assert "no violations" in err  # the lines go to stderr
    code, out, _ = run(capsys, "reproduce", str(write(tmp_path, "errors", EVERY_POD_IN_ERROR)),
                       "-o", "yaml")
    doc = yaml.safe_load(out)
    jsonschema.validate(doc, schema("ReproduceResult"))
    assert code == doc["exitCode"] == 2 and doc["notJudged"].startswith("every pod ended")


def golden_dir(tmp_path: Path) -> Path:
    d = tmp_path / "golden"
    write_scenario_file(d / "drops" / "unmodelled.yaml",
                        ScenarioInput(WITH_CONFIG_MAPS, name="drops/unmodelled"),
                        GoldenDecisions({"default/web": "n1"}, [], []))
    write_scenario_file(d / "drops" / "errors.yaml",
                        ScenarioInput(EVERY_POD_IN_ERROR, name="drops/errors"),
                        GoldenDecisions({}, ["default/db"], []))
    return d


def test_golden_verify_reports_drops_and_does_not_pass_unjudged_runs(tmp_path: Path,
                                                                    capsys) -> None:
    code, out, err = run(capsys, "golden", "verify", "--golden-dir", str(golden_dir(tmp_path)),
                         "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, schema("RunReport"))
    cases = {c["name"]: c for c in doc["cases"]}
    assert cases["drops/unmodelled"]["status"] == "passed"
    assert cases["drops/unmodelled"]["properties"]["dropped"] == "ConfigMap=2"
    errors = cases["drops/errors"]
    assert errors["status"] == "error" and errors["message"].startswith(
        "not judged: every pod ended in Error")
    assert errors["properties"]["dropped"] == "Secret=1"
    assert code == doc["exitCode"] == 2
    # the console (stderr with -o json) says so per case and in the summary
    assert "(dropped: ConfigMap=2)" in err
    assert ("dropped input: the subject ignored objects it does not model in 2 case(s): "
            "2 ConfigMap, 1 Secret") in err


def test_diff_replay_says_what_both_sides_dropped(tmp_path: Path, capsys) -> None:
    """Not just "0 divergences": the ConfigMaps neither side modelled are named."""
    path = write(tmp_path, "unmodelled", WITH_CONFIG_MAPS)
    code, out, _ = run(capsys, "diff", "--replay", str(path), "--upstream", "reference",
                       "--mode", "whole", "--out", str(tmp_path / "out"))
    assert code == 0
    assert "reference dropped input it does not model (not compared): 2 ConfigMap" in out
    assert "dropped input:" in out and "2 ConfigMap" in out
    code, out, _ = run(capsys, "diff", "--replay", str(path), "--upstream", "reference",
                       "--mode", "whole", "--out", str(tmp_path / "out"), "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, schema("RunReport"))
    assert doc["cases"][0]["properties"]["dropped"] == "ConfigMap=2"


def test_a_property_whose_every_example_is_not_judged_is_an_error(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys) -> None:
    """A subject that ends every pod in Error: no oracle sees a violation, yet the run must
    not pass."""
    genuine = ReferenceSubject.run

    def every_pod_in_error(self: ReferenceSubject, scenario: ScenarioInput) -> SubjectResult:
        res = genuine(self, scenario)
        pending = [p for p in res.result.get("pending", [])]
        res.result["attempts"] = [{"pod": p, "outcome": "Error", "message": "boom"}
                                  for p in pending + list(res.result.get("bindings", {}))]
        return res

    monkeypatch.setattr(ReferenceSubject, "run", every_pod_in_error)
    code, out, err = run(capsys, "run", "--oracle", "no_overcommit", "--max-examples", "3",
                         "--seed", "1", "--no-database", "--out", str(tmp_path / "out"),
                         "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, schema("RunReport"))
    case = doc["cases"][0]
    assert case["status"] == "error" and case["message"].startswith("not judged:")
    assert case["properties"]["not_judged"].startswith("2 of 3 example(s)")
    assert code == doc["exitCode"] == 2
    assert "not judged" in err


# --- the output contract -----------------------------------------------------------------------

def test_run_output_json_is_the_run_report_and_the_lines_go_to_stderr(tmp_path: Path,
                                                                     capsys) -> None:
    argv = ["run", "--oracle", "consistency", "--max-examples", "2", "--seed", "5",
            "--profile", "dev", "--no-database", "--out", str(tmp_path / "out")]
    code, out, err = run(capsys, *argv, "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, schema("RunReport"))
    assert doc["command"] == "run" and code == doc["exitCode"] == 0
    assert [c["name"] for c in doc["cases"]] == ["consistency"]
    assert "ok    small/consistency" in err and "1 passed" in err
    code, out, _ = run(capsys, *argv, "--output", "yaml")
    jsonschema.validate(yaml.safe_load(out), schema("RunReport"))
    code, out, err = run(capsys, *argv)  # table: the lines on stdout
    assert "ok    small/consistency" in out and err == ""


def test_junit_has_timestamp_hostname_and_the_counterexample_file(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    session = Session("run", EventBus([JUnitReporter(path)]), properties={"seed": "1"})
    session.start("header")
    session.case_finished(CaseResult("properties", "kschedconf.properties.small", "ok",
                                     status=PASSED))
    session.case_finished(CaseResult("properties", "kschedconf.properties.small", "bad",
                                     status=FAILED, message="m",
                                     counterexample="kschedconf-out/bad-small.yaml"))
    session.finish()
    root = ET.parse(path).getroot()
    for suite in root.iter("testsuite"):
        assert suite.get("hostname")
        assert suite.get("timestamp", "").startswith("20")
    files = {c.get("name"): c.get("file") for c in root.iter("testcase")}
    assert files == {"ok": None, "bad": "kschedconf-out/bad-small.yaml"}


def test_every_judging_command_has_the_output_option(capsys) -> None:
    for argv in (["run"], ["reproduce", "F"], ["diff"], ["golden", "verify"],
                 ["golden", "list"], ["mutants"], ["simulate"], ["explain"]):
        with pytest.raises(SystemExit):
            main([*argv, "--help"])
        assert "--output" in capsys.readouterr().out, argv


def test_golden_list_json_is_a_valid_golden_list(tmp_path: Path, capsys) -> None:
    d = golden_dir(tmp_path)
    code, out, _ = run(capsys, "golden", "list", "--golden-dir", str(d), "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, schema("GoldenList"))
    assert code == 0
    assert [(s["name"], s["recordedWith"]) for s in doc["scenarios"]] == [
        ("drops/errors", ""), ("drops/unmodelled", "")]
    code, out, _ = run(capsys, "golden", "list", "--golden-dir", str(d))
    assert out.splitlines()[0].split() == ["drops/errors", "-"]


def test_mutants_json_and_yaml_are_valid_mutants_reports(tmp_path: Path, capsys) -> None:
    argv = ["mutants", "--only", "scheduling-gates-ignored", "--max-examples", "3", "--jobs",
            "1", "--no-golden"]
    code, out, err = run(capsys, *argv, "-o", "yaml")
    doc = yaml.safe_load(out)
    jsonschema.validate(doc, schema("MutantsReport"))
    assert [x["name"] for x in doc["mutants"]] == ["scheduling-gates-ignored"]
    assert code == (0 if doc["passed"] else 1) and "1 mutant: " in err


def test_a_subject_that_cannot_start_is_reported_once(tmp_path: Path, capsys) -> None:
    """Not once in the header or on stderr and again in the summary."""
    for argv in (["run", "--subject", "upstream:/nonexistent"],
                 ["diff", "--upstream", "upstream:/nonexistent", "--scenarios", "1",
                  "--out", str(tmp_path / "out")]):
        code, out, err = run(capsys, *argv)
        assert code == 2
        assert (out + err).count("no executable /nonexistent") == 1, out + err
        code, out, err = run(capsys, *argv, "-o", "json")
        doc = json.loads(out)
        jsonschema.validate(doc, schema("RunReport"))
        assert "no executable /nonexistent" in doc["error"] and doc["exitCode"] == code == 2
        assert err.count("no executable /nonexistent") == 1, err


def test_the_run_report_lists_each_case_findings(tmp_path: Path) -> None:
    out = io.StringIO()
    session = Session("diff", EventBus([ReportStreamReporter(out, "json"),
                                        ReportFileReporter(tmp_path / "r.yaml")]))
    session.start("header")
    session.violation("small/no_overcommit", "no_overcommit", "node n1: cpu 3 > 2")
    session.case_finished(CaseResult("properties", "kschedconf.properties.small",
                                     "no_overcommit", status=FAILED, message="m"))
    session.case_finished(CaseResult("diff", "kschedconf.diff.small", "quiet"))
    session.divergence("s3", "whole: attempt 1: node a != b", known=True)
    session.case_finished(CaseResult("diff", "kschedconf.diff.small", "s3"))
    session.finish()
    doc = json.loads(out.getvalue())
    jsonschema.validate(doc, schema("RunReport"))
    assert [c.get("findings") for c in doc["cases"]] == [
        [{"kind": "violation", "oracle": "no_overcommit", "text": "node n1: cpu 3 > 2"}],
        None,
        [{"kind": "divergence", "text": "whole: attempt 1: node a != b", "known": True}]]
    assert yaml.safe_load((tmp_path / "r.yaml").read_text()) == doc  # --report: the same
