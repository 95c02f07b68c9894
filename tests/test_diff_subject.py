"""``kschedconf diff --subject SPEC``: any subject compared with the reference under the
configuration the subject runs (conformance/engines/baseline.py, docs/diff.md): a plugin
author's copy of an in-tree plugin, an external simulator."""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from conformance.cli.main import main
from conformance.core.errors import UsageError
from conformance.core.results import FAILED, PASSED, SKIPPED
from conformance.engines.baseline import (
    baseline_for,
    rename_plugins,
    same_config,
    scenario_config,
)
from conformance.engines.diff.confirm import (
    AS_BOTH,
    AS_NEITHER,
    AS_REFERENCE,
    AS_SUBJECT,
    side_taken,
)
from conformance.engines.golden import read_scenario_file, verify_case
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import binary_available
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases.current import default_plugins

ROOT = Path(__file__).resolve().parent.parent
COPIES = ROOT / "tests" / "data" / "plugin_copies"
CFG = str(COPIES / "taint-toleration-copy-config.yaml")
COPY = str(COPIES / "taint_toleration_copy.py")
BUG = str(COPIES / "taint_toleration_bug.py")


def config(*points: tuple[str, list[str], list[str]]) -> dict:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler", "plugins": {
                point: {"enabled": [{"name": n, "weight": 2} for n in on],
                        "disabled": [{"name": n} for n in off]}
                for point, on, off in points},
                "pluginConfig": [{"name": n, "args": {}} for _, on, _ in points for n in on]}]}


def test_the_baseline_puts_the_in_tree_plugin_in_place_of_its_copy() -> None:
    doc = config(("multiPoint", ["MyTaintToleration"], ["TaintToleration"]))
    base = baseline_for(doc)
    assert base.renames == {"MyTaintToleration": "TaintToleration"}
    assert base.config is not None
    profile = base.config["profiles"][0]
    # the in-tree plugin takes the copy's place, weight and args; its disabled entry stays,
    # so it runs where the copy ran (after the defaults), as upstream merges plugin sets
    assert profile["plugins"]["multiPoint"]["enabled"] == [{"name": "TaintToleration",
                                                             "weight": 2}]
    assert profile["plugins"]["multiPoint"]["disabled"] == [{"name": "TaintToleration"}]
    assert profile["pluginConfig"] == [{"name": "TaintToleration", "args": {}}]
    assert doc["profiles"][0]["plugins"]["multiPoint"]["enabled"][0]["name"] == \
        "MyTaintToleration"  # the subject's own document is untouched
    # several in-tree plugins disabled where the copy is enabled: the one its name contains
    two = config(("filter", ["FastNodeAffinity"], ["NodeAffinity", "NodePorts"]))
    assert baseline_for(two).renames == {"FastNodeAffinity": "NodeAffinity"}
    # in-tree plugins only: the configuration as it is; none: each scenario's own
    assert baseline_for(config(("score", [], ["ImageLocality"]))).renames == {}
    assert baseline_for(None).config is None


def test_a_plugin_that_replaces_no_in_tree_plugin_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="PreferLabel .* replaces no in-tree plugin"):
        baseline_for(config(("multiPoint", ["PreferLabel"], [])))
    with pytest.raises(UsageError, match="replaces no in-tree plugin"):
        baseline_for(config(("filter", ["Mine"], ["NodeAffinity", "NodePorts"])))


def test_reports_name_the_in_tree_plugin() -> None:
    doc = {"nodes": [{"filters": [{"plugin": "MyTaintToleration", "reasons": ["x"]}],
                      "scores": {"MyTaintToleration": {"raw": 1}}}]}
    assert rename_plugins(doc, {"MyTaintToleration": "TaintToleration"}) == {
        "nodes": [{"filters": [{"plugin": "TaintToleration", "reasons": ["x"]}],
                   "scores": {"TaintToleration": {"raw": 1}}}]}


def test_side_taken_by_upstream() -> None:
    a = {"bindings": {"default/p": "n1"}, "pending": [], "deleted": []}
    b = {"bindings": {"default/p": "n2"}, "pending": [], "deleted": []}
    c = {"bindings": {}, "pending": ["default/p"], "deleted": []}
    assert side_taken(a, b, a) == AS_REFERENCE
    assert side_taken(a, b, b) == AS_SUBJECT
    assert side_taken(a, a, a) == AS_BOTH
    assert side_taken(a, b, c) == AS_NEITHER


def test_same_config_compares_what_the_reference_runs() -> None:
    explicit_default = {"apiVersion": "kubescheduler.config.k8s.io/v1",
                        "kind": "KubeSchedulerConfiguration",
                        "profiles": [{"schedulerName": "default-scheduler"}]}
    assert same_config(None, explicit_default)
    assert not same_config(None, config(("score", [], ["ImageLocality"])))


def diff(tmp_path: Path, plugins: str, *extra: str) -> tuple[int, str]:
    junit = tmp_path / "diff.xml"
    # seed 2: its 20 small scenarios hold a pod the buggy copy lets onto a tainted node in
    # lockstep (seed 1 did until the generator drew fewer choices per scenario)
    code = main(["diff", "--subject", f"reference:{CFG}", "--plugins", plugins,
                 "--scenarios", "20", "--seed", "2", "--out", str(tmp_path / "out"),
                 "--junit", str(junit), *extra])
    return code, junit.read_text()


def test_an_unmodified_copy_of_an_in_tree_plugin_has_no_divergence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, junit = diff(tmp_path, COPY)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "kschedconf diff: subject reference" in out
    assert "inTreeFor=TaintToleration for MyTaintToleration" in out
    assert "modes whole, lockstep" in out and "lockstep steps" in out
    assert "20 scenarios compared" in out and "0 unexplained divergence(s)" in out
    props = {p.get("name"): p.get("value")
             for p in ET.fromstring(junit).iter("property")}
    assert props["subject.spec"] == f"reference:{CFG}" and props["plugins"] == COPY


def test_a_planted_bug_in_a_copied_plugin_is_caught_decision_by_decision(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = diff(tmp_path, BUG, "--shrink-time", "15")
    out = capsys.readouterr().out
    assert code == 1, out
    # lockstep names the plugin and the node: the copy passes a node the in-tree plugin rejects
    assert re.search(r'filters\.TaintToleration\.code \(step \d+, pod \S+, node \S+, plugin '
                     r'TaintToleration\): reference "UnschedulableAndUnresolvable", subject '
                     r'"Success"', out), out
    if binary_available():  # the third side: upstream never sides with the buggy copy
        _, check = out.split("upstream check (each minimal scenario on the upstream subject):\n")
        lines = [line for line in check.split("\n\n")[0].splitlines() if ": " in line]
        # a verdict may hold ": " itself (AS_BOTH, AS_SUBJECT): match the known endings
        known = (AS_REFERENCE, AS_SUBJECT, AS_BOTH, AS_NEITHER)
        verdicts = [next((v for v in known if line.endswith(v)), line) for line in lines]
        assert verdicts and set(verdicts) <= {AS_REFERENCE, AS_BOTH}, check
    # the minimal scenario of the lockstep kind (it may hold whole-run kinds too)
    found = re.search(r"lockstep nodes\.\*\.filters\.\*\.code TaintToleration[^:\n]*: (\S+\.yaml)",
                      out)
    assert found, out
    lock = Path(found.group(1))
    assert lock.is_file() and lock.parent == tmp_path / "out", lock
    scenario, _, notes = read_scenario_file(lock)
    assert notes["reproduce"] == (f"kschedconf diff --replay {lock} --subject reference:{CFG} "
                                  f"--plugins {BUG}")
    assert "found-in" in notes and "shrunk by Hypothesis" in notes["found-in"]
    assert any("subject reference" in n and "vs the reference" in n for n in scenario.notes)
    # the minimal scenario replays the divergence; against the unmodified copy it is gone
    argv = ["diff", "--replay", str(lock), "--subject", f"reference:{CFG}", "--plugins"]
    assert main([*argv, BUG]) == 1
    assert "plugin TaintToleration): reference \"UnschedulableAndUnresolvable\", subject " \
           "\"Success\"" in capsys.readouterr().out
    assert main([*argv, COPY]) == 0


EXTERNAL = """\
import sys
sys.path.insert(0, {root!r})
import json
from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import binary_available
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases.current import default_plugins
scenario_path, _, out, _, seed = sys.argv[1:]
result = ReferenceSubject().run(ScenarioInput.read(scenario_path)).result
{plant}
json.dump(result, open(out, "w"))
"""



def external(tmp_path: Path, plant: str) -> str:
    p = tmp_path / "simulator.py"
    p.write_text(EXTERNAL.format(root=str(ROOT), plant=plant))
    return f"external:{sys.executable} {p}"


def test_an_external_simulator_is_compared_with_the_reference(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    same = external(tmp_path, "")
    code = main(["diff", "--subject", same, "--scenarios", "4", "--seed", "3",
                 "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "modes whole;" in out  # it cannot explain: whole runs only, no lockstep
    assert "4 scenarios compared (4 whole runs, 0 lockstep steps)" in out
    bad = external(tmp_path, "for a in result['attempts']:\n"
                             "    if a['outcome'] == 'Bound':\n"
                             "        result['bindings'][a['pod']] = a['node'] = 'elsewhere'\n"
                             "        a['candidates'] = ['elsewhere']\n"
                             "        break\n")
    code = main(["diff", "--subject", bad, "--scenarios", "4", "--seed", "3",
                 "--out", str(tmp_path / "out2"), "--no-shrink"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert re.search(r'attempts\[\d+\]\.candidates \(attempt \d+, pod \S+\): reference '
                     r'\[[^]]+\], subject \["elsewhere"\]', out), out


def test_subject_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "--subject", "reference", "--upstream", "process",
                 "--scenarios", "1"]) == 2
    assert "give one" in capsys.readouterr().err
    assert main(["diff", "--subject", "upstream", "--plugins", COPY]) == 2
    assert "--plugins is for --subject reference" in capsys.readouterr().err
    bare = tmp_path / "bare.yaml"
    bare.write_text(yaml.safe_dump(config(("multiPoint", ["MyTaintToleration"], []))))
    assert main(["diff", "--subject", f"reference:{bare}", "--plugins", COPY,
                 "--scenarios", "1"]) == 2
    assert "replaces no in-tree plugin" in capsys.readouterr().err


# --- golden scenarios and a subject that runs its own configuration ----------------------------

GOLDEN = ROOT / "golden"


def test_golden_under_another_configuration_is_judged_by_the_reference_under_it(
        tmp_path: Path) -> None:
    noexecute = GOLDEN / "taints" / "noexecute.yaml"
    copy = ReferenceSubject(CFG, [COPY])
    case = verify_case(copy, noexecute)
    assert case.status == PASSED, case.details
    assert case.properties["decisions"].startswith("re-recorded with the reference")
    # the planted bug: the recorded decisions do not apply, the reference's under the
    # subject's configuration do, and they catch it
    case = verify_case(ReferenceSubject(CFG, [BUG]), noexecute)
    assert case.status == FAILED
    assert case.message == "pod default/normal: the reference pending, subject bound to draining"
    # the subject runs the golden file's own configuration: its recorded decisions apply
    most = GOLDEN / "config" / "most-allocated.yaml"
    scenario, _, _ = read_scenario_file(most)
    own = tmp_path / "most-allocated-config.yaml"
    own.write_text(yaml.safe_dump(scenario_config(scenario)))
    case = verify_case(ReferenceSubject(str(own)), most)
    assert case.status == PASSED and "decisions" not in case.properties
    # ... and the same configuration against a default-profile file is judged by the reference
    case = verify_case(ReferenceSubject(str(own)), noexecute)
    assert case.status == PASSED and "decisions" in case.properties


def test_golden_the_reference_cannot_rerecord_is_skipped_with_the_reason() -> None:
    label = ReferenceSubject(str(ROOT / "examples" / "plugins" / "prefer-label-config.yaml"),
                             [str(ROOT / "examples" / "plugins" / "prefer_label.py")])
    case = verify_case(label, GOLDEN / "taints" / "noexecute.yaml")
    assert case.status == SKIPPED
    assert "the reference cannot run" in case.message and "PreferLabel" in case.message


def test_run_golden_suite_with_a_plugin_copy_fails_nothing_and_catches_the_bug(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    area = tmp_path / "golden" / "taints"
    area.mkdir(parents=True)
    for name in ("noexecute.yaml", "noschedule-and-tolerations.yaml"):
        (area / name).write_text((GOLDEN / "taints" / name).read_text())
    (tmp_path / "golden" / "config").mkdir()
    (tmp_path / "golden" / "config" / "multiple-profiles.yaml").write_text(
        (GOLDEN / "config" / "multiple-profiles.yaml").read_text())
    argv = ["run", "--suite", "golden", "--golden-dir", str(tmp_path / "golden"),
            "--subject", f"reference:{CFG}", "--out", str(tmp_path / "out"), "--plugins"]
    assert main([*argv, COPY]) == 0
    out = capsys.readouterr().out
    assert "3 scenario(s) judged against the reference's decisions" in out, out
    assert main([*argv, BUG]) == 1
    out = capsys.readouterr().out
    assert "FAIL  golden/taints/noexecute" in out
    # the counterexample holds the decisions it was judged by: reproduce agrees
    cx = tmp_path / "out" / "golden-taints-noexecute.yaml"
    _, decisions, _ = read_scenario_file(cx)
    assert decisions is not None and "default/normal" in decisions.pending
    assert main(["reproduce", str(cx), "--subject", f"reference:{CFG}", "--plugins", COPY]) == 0


# --- the differential suite of `kschedconf run` ------------------------------------------------

def test_run_differential_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junit = tmp_path / "run.xml"
    # seed 2: its 20 scenarios reveal the buggy copy (seed 1 did until the generator drew
    # fewer choices per scenario)
    argv = ["run", "--suite", "differential", "--profile", "dev", "--subject", f"reference:{CFG}",
            "--max-examples", "20", "--seed", "2", "--no-shrink", "--out", str(tmp_path / "out"),
            "--junit", str(junit), "--plugins"]
    assert main([*argv, COPY]) == 0
    out = capsys.readouterr().out
    assert "20 differential scenarios: 20 passed" in out, out
    assert "differential: reference against the reference" in out
    assert len([c for c in ET.parse(junit).getroot().iter("testcase")
                if c.get("classname") == "kschedconf.diff.small"]) == 20
    assert main([*argv, BUG]) == 1
    out = capsys.readouterr().out
    assert "FAIL  small-" in out and "plugin TaintToleration): reference" in out, out
    assert sorted((tmp_path / "out").glob("diff-*.yaml")), "no minimal scenario written"
    # the reference itself: nothing to compare, said so (a skipped case when asked for by
    # name, a line in --suite all)
    assert main(["run", "--suite", "differential", "--profile", "dev",
                 "--out", str(tmp_path / "o2"),
                 "--junit", str(junit)]) == 0
    assert "the subject is the reference itself" in capsys.readouterr().out
    (case,) = ET.parse(junit).getroot().iter("testcase")
    assert case.find("skipped") is not None
    golden = tmp_path / "golden" / "taints"
    golden.mkdir(parents=True)
    (golden / "noexecute.yaml").write_text((GOLDEN / "taints" / "noexecute.yaml").read_text())
    assert main(["run", "--suite", "all", "--profile", "dev", "--max-examples", "1",
                 "--no-shrink", "--seed", "1",
                 "--golden-dir", str(tmp_path / "golden"), "--out", str(tmp_path / "o3")]) == 0
    out = capsys.readouterr().out
    assert "differential: skipped (the subject is the reference itself)" in out
    assert "7 properties (7 examples); 1 golden scenarios: 8 passed" in out, out


# --- unmodified copies of every default plugin -------------------------------------------------

@pytest.mark.parametrize("plugin,weight", default_plugins())
def test_an_unmodified_copy_of_each_default_plugin_decides_as_the_in_tree_one(
        plugin: str, weight: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cls = in_tree_registry()[plugin]
    module = tmp_path / f"copy_{plugin.lower()}.py"
    module.write_text(f"from {cls.__module__} import {cls.__name__} as _InTree\n\n\n"
                      f"class My{plugin}(_InTree):\n    name = 'My{plugin}'\n")
    entry: dict[str, object] = {"name": f"My{plugin}"}
    if weight:
        entry["weight"] = weight
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {
            "enabled": [entry], "disabled": [{"name": plugin}]}}}]}))
    code = main(["diff", "--subject", f"reference:{cfg}", "--plugins", str(module),
                 "--scenarios", "5", "--seed", "1", "--no-shrink", "--no-upstream-check",
                 "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"inTreeFor={plugin} for My{plugin}" in out
    assert "5 scenarios compared (5 whole runs" in out


def test_golden_verify_takes_the_plugins_of_a_reference_subject(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``golden verify --subject reference:CFG --plugins FILE``: the unmodified copy passes the
    scenarios its configuration re-records; the planted bug fails the NoExecute one."""
    argv = ["golden", "verify", "--subject", f"reference:{CFG}", "--only", "taints/noexecute",
            "--plugins"]
    assert main([*argv, COPY]) == 0, capsys.readouterr().out
    assert "1 passed" in capsys.readouterr().out
    assert main([*argv, BUG]) == 1
    assert "FAIL  golden/taints/noexecute" in capsys.readouterr().out
