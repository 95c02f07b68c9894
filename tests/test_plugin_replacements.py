"""Issue 18, part A: a user plugin declares the in-tree plugin it replaces (``Plugin.replaces``
or ``--replaces``) and the rules it changes on purpose (``Plugin.changes``); the oracles judge
it as the in-tree plugin under both spellings of the configuration (``--config CFG --plugins``
and ``--subject reference:CFG --plugins``), report what breaks only a changed rule as an
intended change, and ``explain`` shows it beside the in-tree plugin (docs/plugins.md)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from conformance.cli.main import main
from conformance.core.documents import schema
from conformance.core.errors import UsageError
from conformance.core.replacements import (
    RULES,
    Replacement,
    as_replaced,
    declared_replacements,
    parse_replaces,
)
from conformance.core.results import PASSED, CaseResult, RunSummary
from conformance.core.scenario import ScenarioInput, read_config_doc
from conformance.engines.baseline import baseline_for
from conformance.reporters.junit import junit_string
from conformance.subjects.reference import ReferenceSubject
from oracles.judge import evaluate, failures, intended_changes, select_oracles
from oracles.profiles import read_scheduler_config
from reference_impl.plugins.registry import build_registry, in_tree_registry

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "plugins" / "local_disk_fit.py")
EXAMPLE_CFG = str(ROOT / "examples" / "plugins" / "local-disk-fit-config.yaml")
COPY = str(ROOT / "tests" / "data" / "plugin_copies" / "fit_copy.py")
COPY_CFG = str(ROOT / "tests" / "data" / "plugin_copies" / "fit-copy-config.yaml")
ORACLES = ["no_overcommit", "filters_honoured"]

# a node with 1Gi of ephemeral storage and a pod requesting 2Gi: NodeResourcesFit rejects it
SCENARIO = """\
apiVersion: v1
kind: Node
metadata: {name: node-a}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110", ephemeral-storage: 1Gi}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110", ephemeral-storage: 4Gi}
---
apiVersion: v1
kind: Pod
metadata: {name: filler, namespace: default}
spec:
  nodeName: node-b
  containers:
  - name: c
    image: busybox
    resources:
      requests: {cpu: 100m, ephemeral-storage: 3Gi}
---
apiVersion: v1
kind: Pod
metadata: {name: big-disk, namespace: default}
spec:
  containers:
  - name: c
    image: busybox
    resources:
      requests: {cpu: 100m, ephemeral-storage: 2Gi}
"""


@pytest.fixture
def scenario_file(tmp_path: Path) -> str:
    path = tmp_path / "ephemeral.yaml"
    path.write_text(SCENARIO)
    return str(path)


# --- the declaration ---------------------------------------------------------------------------

def test_the_class_declares_the_replacement_and_the_command_line_overrides_it() -> None:
    registry = build_registry([EXAMPLE])
    assert declared_replacements(registry) == {
        "LocalDiskFit": Replacement("LocalDiskFit", "NodeResourcesFit",
                                    frozenset({"ephemeral-storage"}))}
    # --replaces without rules: the same plugin, no change declared
    assert declared_replacements(registry, ["LocalDiskFit=NodeResourcesFit"]) == {
        "LocalDiskFit": Replacement("LocalDiskFit", "NodeResourcesFit", frozenset())}
    assert declared_replacements(registry, ["LocalDiskFit=NodeResourcesFit:cpu, pods"])[
        "LocalDiskFit"].changes == {"cpu", "pods"}
    # in-tree plugins declare nothing
    assert declared_replacements(in_tree_registry()) == {}


@pytest.mark.parametrize(("spec", "words"), [
    ("LocalDiskFit=NodeResourceFit", ["replaces 'NodeResourceFit'", "not an in-tree plugin",
                                      "NodeResourcesFit"]),
    ("LocalDiskFit=NodeResourcesFit:disk", ["plugin LocalDiskFit", "rule 'disk'",
                                            "pods, cpu, memory, ephemeral-storage, extended, "
                                            "score"]),
    ("LocalDiskFit=TaintToleration:cpu", ["rule 'cpu'", "not a rule of TaintToleration",
                                          "filter, score"]),
    ("Nope=NodeResourcesFit", ["no plugin 'Nope'", "LocalDiskFit"]),
    ("NodeResourcesFit=TaintToleration", ["NodeResourcesFit is an in-tree plugin"]),
    ("LocalDiskFit", ["expected PLUGIN=IN_TREE_PLUGIN"]),
    ("=NodeResourcesFit", ["expected PLUGIN=IN_TREE_PLUGIN"]),
])
def test_an_invalid_declaration_names_the_plugin_the_rule_and_the_valid_ones(
        spec: str, words: list[str]) -> None:
    with pytest.raises(UsageError) as e:
        declared_replacements(build_registry([EXAMPLE]), [spec])
    for w in words:
        assert w in str(e.value)


def test_every_rule_vocabulary_names_an_in_tree_plugin() -> None:
    in_tree = in_tree_registry()
    assert set(RULES) <= set(in_tree)
    assert parse_replaces("A=B:x,y") == ("A", "B", ("x", "y"))


def test_the_oracles_read_the_replacement_as_the_in_tree_plugin_with_its_args() -> None:
    doc = read_config_doc(EXAMPLE_CFG)
    doc["profiles"][0]["pluginConfig"] = [
        {"name": "LocalDiskFit", "args": {"ignoredResources": ["example.com/foo"]}}]
    replacements = declared_replacements(build_registry([EXAMPLE]))
    assert not read_scheduler_config(doc).profiles["default-scheduler"].enabled(
        "NodeResourcesFit")
    view = read_scheduler_config(as_replaced(doc, replacements)).profiles["default-scheduler"]
    for point in ("preFilter", "filter", "preScore", "score"):
        assert view.enabled("NodeResourcesFit", point), point
    assert not view.enabled("LocalDiskFit")
    assert view.fit_ignored_resources == {"example.com/foo"}
    assert read_config_doc(EXAMPLE_CFG) != as_replaced(read_config_doc(EXAMPLE_CFG),
                                                       replacements)


def test_the_differential_baseline_honours_the_declaration_first() -> None:
    doc = read_config_doc(COPY_CFG)
    doc["profiles"][0]["plugins"]["multiPoint"]["disabled"].append({"name": "ImageLocality"})
    # two in-tree plugins disabled, neither in the copy's name: nothing to infer from
    with pytest.raises(UsageError, match="replaces no in-tree plugin"):
        baseline_for(doc)
    base = baseline_for(doc, {"FitCopy": "NodeResourcesFit"})
    assert base.renames == {"FitCopy": "NodeResourcesFit"}
    enabled = base.config["profiles"][0]["plugins"]["multiPoint"]["enabled"]
    assert [e["name"] for e in enabled] == ["NodeResourcesFit"]


# --- the oracles, under both spellings ---------------------------------------------------------

def judge(scenario_path: str, spelling: str, plugins: str, cfg: str,
          replaces: tuple[str, ...] = ()) -> list:
    scenario = ScenarioInput.read(scenario_path)
    if spelling == "config":  # kschedconf run --config CFG --plugins FILE
        subject = ReferenceSubject(None, [plugins], replaces=replaces)
        scenario = scenario.with_config(read_config_doc(cfg))
    else:  # kschedconf run --subject reference:CFG --plugins FILE
        subject = ReferenceSubject(cfg, [plugins], replaces=replaces)
    result, findings = evaluate(subject, scenario, select_oracles(ORACLES))
    assert result is not None and result.result["bindings"]["default/big-disk"] == "node-a"
    return findings


@pytest.mark.parametrize("spelling", ["config", "subject"])
def test_a_copy_that_ignores_ephemeral_storage_is_caught(scenario_file: str,
                                                         spelling: str) -> None:
    findings = judge(scenario_file, spelling, EXAMPLE, EXAMPLE_CFG,
                     ("LocalDiskFit=NodeResourcesFit",))
    assert sorted(f.oracle for f in failures(findings)) == sorted(ORACLES)
    assert all("ephemeral-storage" in f.text and "node-a" in f.text for f in findings)
    assert not intended_changes(findings)


def test_both_spellings_give_the_same_verdict(scenario_file: str) -> None:
    for replaces in ((), ("LocalDiskFit=NodeResourcesFit",)):
        a = judge(scenario_file, "config", EXAMPLE, EXAMPLE_CFG, replaces)
        b = judge(scenario_file, "subject", EXAMPLE, EXAMPLE_CFG, replaces)
        assert [str(f) for f in a] == [str(f) for f in b] and a


@pytest.mark.parametrize("spelling", ["config", "subject"])
def test_a_declared_change_is_an_intended_change_not_a_violation(scenario_file: str,
                                                                  spelling: str) -> None:
    findings = judge(scenario_file, spelling, EXAMPLE, EXAMPLE_CFG)
    assert failures(findings) == [] and failures(findings, strict_intent=True) == []
    assert sorted(f.oracle for f in findings) == sorted(ORACLES)
    assert intended_changes(findings) == ["NodeResourcesFit/ephemeral-storage"]
    assert all("(intended change: NodeResourcesFit/ephemeral-storage)" in str(f)
               for f in findings)


def test_a_declared_change_does_not_excuse_another_rule(scenario_file: str) -> None:
    # the copy ignores ephemeral storage but declares it changes cpu: still violations
    findings = judge(scenario_file, "config", EXAMPLE, EXAMPLE_CFG,
                     ("LocalDiskFit=NodeResourcesFit:cpu",))
    assert sorted(f.oracle for f in failures(findings)) == sorted(ORACLES)
    assert not intended_changes(findings)


@pytest.mark.parametrize("spelling", ["config", "subject"])
def test_an_unmodified_copy_passes(scenario_file: str, spelling: str) -> None:
    scenario = ScenarioInput.read(scenario_file)
    if spelling == "config":
        subject = ReferenceSubject(None, [COPY])
        scenario = scenario.with_config(read_config_doc(COPY_CFG))
    else:
        subject = ReferenceSubject(COPY_CFG, [COPY])
    result, findings = evaluate(subject, scenario, select_oracles(ORACLES))
    assert result is not None and result.result["pending"] == ["default/big-disk"]
    assert findings == []


# --- the command line and the reports ----------------------------------------------------------

@pytest.mark.parametrize("spelling", ["config", "subject"])
def test_reproduce_reports_violations_and_intended_changes_apart(
        scenario_file: str, spelling: str, capsys: pytest.CaptureFixture[str]) -> None:
    where = (["--config", EXAMPLE_CFG] if spelling == "config"
             else ["--subject", f"reference:{EXAMPLE_CFG}"])
    base = ["reproduce", scenario_file, *where, "--plugins", EXAMPLE, "--oracle", *ORACLES,
            "-o", "table"]
    assert main([*base, "--replaces", "LocalDiskFit=NodeResourcesFit"]) == 1
    out = capsys.readouterr().out
    assert "2 violation(s)" in out and "intended change" not in out
    assert main(base) == 0
    out = capsys.readouterr().out
    assert "no violations" in out
    assert ("2 intended change(s) (rules NodeResourcesFit/ephemeral-storage changed on purpose"
            in out)


@pytest.mark.parametrize("argv", [
    ["reproduce", "S", "--plugins", EXAMPLE, "--replaces", "LocalDiskFit=NodeResourcesFit:disk"],
    ["reproduce", "S", "--replaces", "LocalDiskFit=NodeResourcesFit"],
    ["reproduce", "S", "--subject", "upstream", "--replaces", "A=NodeResourcesFit"],
    ["explain", "S", "--pod-name", "default/big-disk", "--plugins", EXAMPLE,
     "--replaces", "LocalDiskFit=Fit"],
    ["simulate", "S", "--plugins", EXAMPLE, "--replaces", "oops"],
])
def test_replaces_errors_exit_2(argv: list[str], scenario_file: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    argv = [scenario_file if a == "S" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--replaces" in err


def test_diff_takes_replaces_for_the_reference_subject_only(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "--subject", "upstream", "--replaces", "A=NodeResourcesFit"]) == 2
    assert "--replaces is for --subject reference" in capsys.readouterr().err


def test_intended_changes_are_an_outcome_of_their_own_in_the_reports() -> None:
    case = CaseResult("properties", "kschedconf.properties.small", "no_overcommit",
                      status=PASSED,
                      intended_changes={"NodeResourcesFit/ephemeral-storage": 3})
    other = CaseResult("properties", "kschedconf.properties.small", "filters_honoured")
    summary = RunSummary("run", cases=[case, other])
    assert summary.verdict() == "2 passed, 1 with intended changes"
    assert summary.exit_code == 0
    doc = summary.to_doc()
    assert doc["cases"][0]["intendedChanges"] == {"NodeResourcesFit/ephemeral-storage": 3}
    assert "intendedChanges" not in doc["cases"][1]
    xml = ET.fromstring(junit_string([case, other], {}))
    props = {p.get("name"): p.get("value") for p in xml.iter("property")}
    assert props["intended_changes"] == "NodeResourcesFit/ephemeral-storage (3)"


def test_run_reports_a_declared_change_as_intended(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # seed 3: the small scenarios of no_overcommit bind a pod requesting ephemeral storage
    # on a node without enough of it within 30 examples (the copy ignores ephemeral storage)
    report = tmp_path / "report.json"
    argv = ["run", "--config", EXAMPLE_CFG, "--plugins", EXAMPLE, "--oracle", "no_overcommit",
            "--max-examples", "30", "--seed", "3", "--sizes", "small", "--no-database",
            "--out", str(tmp_path / "out"), "--report", str(report)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "intended changes: NodeResourcesFit/ephemeral-storage in" in out
    assert "1 with intended changes" in out
    doc = json.loads(report.read_text())
    jsonschema.validate(doc, schema("RunReport"))
    case = doc["cases"][0]
    assert case["status"] == "passed" and case["intendedChanges"][
        "NodeResourcesFit/ephemeral-storage"] >= 1
    # undeclared change (--replaces overrides the class): the same run fails
    assert main([*argv, "--replaces", "LocalDiskFit=NodeResourcesFit"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"over-commits ephemeral-storage", out)
    assert "--replaces LocalDiskFit=NodeResourcesFit" in out  # the rerun command keeps it


# --- explain -----------------------------------------------------------------------------------

def test_explain_shows_the_replacement_beside_the_in_tree_plugin(
        scenario_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explain", scenario_file, "--pod-name", "default/big-disk",
            "--config", EXAMPLE_CFG, "--plugins", EXAMPLE]
    assert main([*argv, "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, schema("Explanation"))
    (rep,) = doc["replacements"]
    assert (rep["plugin"], rep["replaces"], rep["changes"]) == (
        "LocalDiskFit", "NodeResourcesFit", ["ephemeral-storage"])
    nodes = {n["name"]: n for n in rep["nodes"]}
    a = nodes["node-a"]
    assert a["verdict"] == {"code": "Success", "reasons": []}
    assert a["upstreamVerdict"]["reasons"] == ["Insufficient ephemeral-storage"]
    assert a["differs"]
    # the copy scores the nodes it lets the pod onto; upstream, rejecting both, scores none
    assert a["score"]["normalized"] >= 0 and a["upstreamScore"] is None
    b = nodes["node-b"]
    assert (b["verdict"]["code"], b["upstreamVerdict"]["code"]) == ("Success", "Unschedulable")
    assert main([*argv, "-o", "table"]) == 0
    table = capsys.readouterr().out
    assert "LocalDiskFit beside NodeResourcesFit (! = they differ; changes ephemeral-storage)" \
        in table
    assert "!node-a" in table


def test_explain_without_a_replacement_has_no_comparison(
        scenario_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", scenario_file, "--pod-name", "default/big-disk", "-o", "json"]) == 1
    assert "replacements" not in json.loads(capsys.readouterr().out)
