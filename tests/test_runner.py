"""``kschedconf run`` and ``kschedconf reproduce`` end to end: JUnit reports, counterexamples,
a deliberately wrong external subject, subject errors, budgets, shards, golden scenarios and
determinism under a seed.

The runs use small oracles defined here (injected in place of ``oracles.ALL_ORACLES``), so the
tests are fast and judge the runner, not the oracles: ``differential`` (the subject's bindings
equal the reference's), ``ok`` (never fails), ``nothing-pending`` (deliberately too strict:
fails when a pod stays pending, which the reference does whenever a pod fits nowhere) and
``record`` (never fails, remembers every scenario it saw).
"""

from __future__ import annotations

import io
import itertools
import json
import re
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conformance.cli.main import main
from conformance.core.documents import schema
from conformance.core.events import CaseFinished, CaseProgress, CaseStarted
from conformance.core.results import CaseResult
from conformance.core.scenario import ScenarioInput
from conformance.engines import properties
from conformance.engines import run as run_engine
from conformance.engines.golden import (
    GoldenDecisions,
    compare_golden,
    read_scenario_file,
    write_scenario_file,
)
from conformance.engines.properties import (
    Property,
    no_shrink,
    parse_shard,
    profile_settings,
    property_list,
    run_property,
    select_shard,
)
from conformance.reporters.console import ConsoleReporter
from conformance.subjects.reference import ReferenceSubject
from oracles import judge
from oracles.judge import CRASH

WRONG_SUBJECT = """\
import json, sys
import yaml

path = sys.argv[1]
out = sys.argv[sys.argv.index("--output") + 1]
seed = int(sys.argv[sys.argv.index("--seed") + 1])
docs = [d for d in yaml.safe_load_all(open(path)) if isinstance(d, dict)]
nodes = [d["metadata"]["name"] for d in docs if d.get("kind") == "Node"]
bindings, attempts = {}, []
for d in docs:
    if d.get("kind") != "Pod":
        continue
    key = d["metadata"].get("namespace", "default") + "/" + d["metadata"]["name"]
    node = d.get("spec", {}).get("nodeName")
    if not node:  # bind every pending pod to the first node, regardless
        node = nodes[0]
        attempts.append({"pod": key, "outcome": "Bound", "node": node, "reasons": {}})
    bindings[key] = node
json.dump({"apiVersion": "kschedconf/v1", "kind": "SimulationResult", "seed": seed,
           "attempts": attempts, "bindings": dict(sorted(bindings.items())), "pending": []},
          open(out, "w"))
"""

_REF = ReferenceSubject()
SEEN: list[str] = []


def differential(ctx: Any) -> list[str]:
    scenario, result, _ = ctx
    want = _REF.run(scenario).result["bindings"]
    got = result.result["bindings"]
    return [f"pod {p}: the reference binds it to {want.get(p)}, the subject to {got.get(p)}"
            for p in sorted(set(want) | set(got)) if want.get(p) != got.get(p)]


def nothing_pending(ctx: Any) -> list[str]:
    return [f"pod {p} is pending" for p in ctx[1].result["pending"]]


def record(ctx: Any) -> list[str]:
    SEEN.append(ctx[0].to_yaml())
    return []


TEST_ORACLES = {"differential": differential, "ok": lambda ctx: [],
                "nothing-pending": nothing_pending, "record": record}


@pytest.fixture(autouse=True)
def test_oracles(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
                 tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # .hypothesis/ and kschedconf-out/ land in tmp_path
    monkeypatch.delenv("CI", raising=False)  # the default profile is then dev
    SEEN.clear()
    if "real_oracles" in request.node.name:
        return
    monkeypatch.setattr(judge, "all_oracles", lambda: dict(TEST_ORACLES))
    monkeypatch.setattr(run_engine, "all_oracles", lambda: dict(TEST_ORACLES))
    monkeypatch.setattr(judge, "oracle_context", lambda s, r, subj: (s, r, subj))


def kschedconf(*argv: str) -> int:
    """The command line."""
    return main(list(argv))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = kschedconf(*argv)
    out, err = capsys.readouterr()
    return code, out, err


def wrong_subject(tmp_path: Path) -> str:
    p = tmp_path / "first_node.py"
    p.write_text(WRONG_SUBJECT)
    return f"external:{sys.executable} {p}"


def junit(path: Path) -> tuple[dict[str, str], dict[tuple[str, str], ET.Element]]:
    root = ET.parse(path).getroot()
    suite_props = {p.get("name"): p.get("value")
                   for s in root.iter("testsuite") for p in s.find("properties")}
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    return suite_props, cases


def case_props(case: ET.Element) -> dict[str, str]:
    return {p.get("name"): p.get("value") for p in case.find("properties")}


# --- end to end --------------------------------------------------------------------------------

def test_run_writes_a_junit_report(tmp_path: Path, capsys) -> None:
    report = tmp_path / "reports" / "junit.xml"
    code, out, _ = run(capsys, "run", "--max-examples", "5", "--seed", "1", "--oracle", "ok",
                       "differential", "--junit", str(report))
    assert code == 0, out
    props, cases = junit(report)
    assert set(cases) == {("kschedconf.properties.small", "ok"),
                          ("kschedconf.properties.small", "differential")}
    assert props["seed"] == "1"
    assert props["upstream.release"] == "v1.37.2"
    assert props["subject.subject"] == "reference"
    assert props["subject.upstreamRelease"] == "v1.37.2"
    assert props["rerun"].startswith("kschedconf run --suite properties --subject reference")
    assert "--seed 1" in props["rerun"]
    for case in cases.values():
        assert case.find("failure") is None and case.find("error") is None
        cp = case_props(case)
        assert cp["examples"] == "5" and cp["stopped_by"] == "max_examples"
        assert cp["seed"] == "1" and "--oracle" in cp["rerun"]
    assert "ok    small/differential  5 examples" in out
    assert "2 properties (10 examples): 2 passed" in out


def test_wrong_external_subject_fails_writes_a_counterexample_and_reproduces(
        tmp_path: Path, capsys) -> None:
    subject = wrong_subject(tmp_path)
    report = tmp_path / "junit.xml"
    code, out, _ = run(capsys, "run", "--subject", subject, "--oracle", "differential",
                       "--max-examples", "40", "--seed", "1", "--no-shrink",
                       "--out", "ce", "--junit", str(report))
    assert code == 1, out
    ce = tmp_path / "ce" / "differential-small.yaml"
    assert ce.exists()
    info = next(yaml.safe_load_all(ce.read_text()))  # the ScenarioInfo document comes first
    assert (info["kind"], info["name"]) == ("ScenarioInfo", "differential-small")
    assert info["seed"] == ScenarioInput.read(ce).seed
    notes = info["notes"]
    assert "oracle: differential" in notes
    assert any(n.startswith("violation: [differential] pod") for n in notes)
    assert any(n.startswith(f"reproduce: kschedconf reproduce ce/differential-small.yaml "
                            f"--subject '{subject}'") for n in notes)
    assert "FAILED: differential" in out and "counterexample: ce/differential-small.yaml" in out
    _, cases = junit(report)
    case = cases[("kschedconf.properties.small", "differential")]
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message").startswith("[differential] pod ")
    assert case_props(case)["counterexample"] == "ce/differential-small.yaml"
    assert case.get("file") == "ce/differential-small.yaml"  # what CI report tools link to
    assert case_props(case)["reproduce"].startswith("kschedconf reproduce ")
    # the scenario file is a valid scenario the reference loads
    scenario = ScenarioInput.read(ce)
    assert any(d["kind"] == "Node" for d in scenario.documents)

    code, out, _ = run(capsys, "reproduce", str(ce), "--subject", subject)
    assert code == 1
    assert "oracles: differential" in out  # taken from the file's header
    assert "violation(s):" in out and "the reference binds it to" in out
    code, out, _ = run(capsys, "reproduce", str(ce), "--subject", subject, "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, schema("ReproduceResult"))
    assert code == doc["exitCode"] == 1 and doc["oracles"] == ["differential"]
    assert doc["violations"] and all(v["oracle"] == "differential" for v in doc["violations"])
    # the reference agrees with itself on the counterexample
    code, out, _ = run(capsys, "reproduce", str(ce))
    assert code == 0 and "no violations" in out


def test_in_process_failures_are_shrunk_within_the_budget(capsys, tmp_path: Path,
                                                         monkeypatch) -> None:
    # the budget's clock advances 0.1 s at every reading (one per example or shrink step),
    # whatever the machine's speed: one share (5 s) to find the failure and shrink it, and
    # 2.5 s more if found late: under 50 examples and steps in all here, where shrinking
    # these scenarios fully takes far more
    ticks = itertools.count()
    monkeypatch.setattr(properties, "clock", lambda: next(ticks) * 0.1)
    code, out, _ = run(capsys, "run", "--oracle", "nothing-pending", "--max-examples", "100",
                       "--seed", "2", "--budget", "5")
    assert code == 1
    # the run says the budget cut the shrinking short
    steps = re.search(r"\((\d+) shrink steps, cut by the budget\)", out)
    assert steps is not None and int(steps[1]) < 50
    assert "(shrinking stopped by the budget: the smallest failure found so far)" in out
    ce = tmp_path / "kschedconf-out" / "nothing-pending-small.yaml"
    scenario = ScenarioInput.read(ce)
    assert _REF.run(scenario).result["pending"]  # the kept counterexample still fails
    code, out, _ = run(capsys, "reproduce", str(ce))
    assert code == 1 and "is pending" in out


def test_subject_error_exits_2_and_skips_the_rest(tmp_path: Path, capsys) -> None:
    p = tmp_path / "crash.py"
    p.write_text("import sys\nprint('boom: cannot parse', file=sys.stderr)\nsys.exit(4)\n")
    report = tmp_path / "junit.xml"
    code, out, err = run(capsys, "run", "--subject", f"external:{sys.executable} {p}",
                         "--oracle", "ok", "differential", "--max-examples", "3",
                         "--junit", str(report))
    assert code == 2
    assert "exit code 4" in out and "boom: cannot parse" in out
    assert err == ""  # printed once: its case and the summary, not again on stderr
    _, cases = junit(report)
    statuses = {name: ("error" if c.find("error") is not None else
                       "skipped" if c.find("skipped") is not None else "ok")
                for (_, name), c in cases.items()}
    assert sorted(statuses.values()) == ["error", "skipped"]
    # protocol errors on reproduce are exit 2 too
    ce = tmp_path / "s.yaml"
    ScenarioInput([{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}]).write(ce)
    code, _, err = run(capsys, "reproduce", str(ce), "--subject", f"external:{sys.executable} {p}")
    assert code == 2 and "exit code 4" in err


def test_external_timeout_is_a_subject_error(tmp_path: Path, capsys) -> None:
    p = tmp_path / "slow.py"
    p.write_text("import time\ntime.sleep(10)\n")
    t0 = time.monotonic()
    code, out, _ = run(capsys, "run", "--subject", f"external:{sys.executable} {p}",
                       "--subject-timeout", "0.5", "--oracle", "ok", "--max-examples", "3")
    assert code == 2 and "timed out after 0.5 s" in out
    assert time.monotonic() - t0 < 8


def test_usage_errors_exit_2(capsys, tmp_path: Path) -> None:
    code, _, err = run(capsys, "run", "--subject", "no-such-subject", "--max-examples", "1")
    assert code == 2 and "unknown subject" in err
    code, _, err = run(capsys, "run", "--oracle", "no-such-oracle")
    assert code == 2 and "unknown oracle" in err and "differential" in err
    code, _, err = run(capsys, "reproduce", str(tmp_path / "missing.yaml"))
    assert code == 2 and "no such file" in err
    with pytest.raises(SystemExit) as e:
        kschedconf("run", "--shard", "3/2")
    assert e.value.code == 2
    capsys.readouterr()


def test_budget_stops_each_property_and_reports_examples(capsys, tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    t0 = time.monotonic()
    code, out, _ = run(capsys, "run", "--oracle", "ok", "record", "--max-examples", "100000",
                       "--budget", "1.5", "--seed", "4", "--junit", str(report))
    elapsed = time.monotonic() - t0
    assert code == 0
    assert elapsed < 6
    _, cases = junit(report)
    for case in cases.values():
        cp = case_props(case)
        assert cp["stopped_by"] == "budget"
        assert 1 <= int(cp["examples"]) < 100000
    assert "(budget)" in out
    # the reported count is the number of scenarios the subject scheduled and the oracle saw
    assert int(case_props(cases[("kschedconf.properties.small", "record")])["examples"]) \
        == len(SEEN)


def test_config_goes_into_every_scenario(capsys, tmp_path: Path) -> None:
    cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "percentageOfNodesToScore": 50}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    code, out, _ = run(capsys, "run", "--config", "cfg.yaml", "--oracle", "record",
                       "--max-examples", "4", "--seed", "3")
    assert code == 0, out
    assert len(SEEN) == 4
    assert all(ScenarioInput.from_yaml(s).config == cfg for s in SEEN)


def test_real_oracles_pass_on_the_reference_and_catch_the_wrong_subject(
        capsys, tmp_path: Path) -> None:
    from oracles import ALL_ORACLES, ORACLE_FEATURES

    report = tmp_path / "junit.xml"
    code, out, _ = run(capsys, "run", "--max-examples", "3", "--seed", "0",
                       "--junit", str(report))
    assert code == 0, out
    _, cases = junit(report)
    # every oracle of plain scenarios (those of DRA and storage: --sizes dra, storage)
    assert {name for _, name in cases} == set(ALL_ORACLES) - set(ORACLE_FEATURES)
    subject = wrong_subject(tmp_path)
    code, out, _ = run(capsys, "run", "--subject", subject, "--oracle", "filters_honoured",
                       "no_overcommit", "--max-examples", "25", "--seed", "1", "--no-shrink")
    assert code == 1, out
    ce = tmp_path / "kschedconf-out" / "no_overcommit-small.yaml"
    assert "[no_overcommit] pod " in out and ce.exists()
    code, out, _ = run(capsys, "reproduce", str(ce), "--subject", subject)
    # the counterexample replays the same oracle's violation (which resource depends on the
    # draws: "over-commits cpu..." or "makes N pods on ...")
    assert code == 1 and "[no_overcommit] pod " in out


# --- shards and determinism --------------------------------------------------------------------

def test_shard_selection() -> None:
    assert parse_shard("2/3") == (2, 3)
    for bad in ("0/3", "4/3", "x", "1/0", "1-2"):
        with pytest.raises(ValueError):
            parse_shard(bad)
    items = list(range(7))
    shards = [select_shard(items, k, 3) for k in (1, 2, 3)]
    assert shards == [[0, 3, 6], [1, 4], [2, 5]]
    props = property_list(["small", "medium"], ["b", "a"])
    assert [p.id for p in props] == ["small/a", "small/b", "medium/a", "medium/b"]



def test_shards_partition_the_properties(capsys, tmp_path: Path) -> None:
    seen: list[set[tuple[str, str]]] = []
    for k in (1, 2):
        report = tmp_path / f"shard{k}.xml"
        code, out, _ = run(capsys, "run", "--shard", f"{k}/2", "--oracle", "ok", "record",
                           "differential", "--max-examples", "1", "--seed", "0",
                           "--junit", str(report))
        assert code == 0
        assert f"(shard {k}/2 of 3)" in out
        props, cases = junit(report)
        assert props["shard"] == f"{k}/2"
        seen.append(set(cases))
    assert seen[0] | seen[1] == {("kschedconf.properties.small", o)
                                 for o in ("ok", "record", "differential")}
    assert not seen[0] & seen[1]
    assert len(seen[0]) == 2


def test_a_run_without_seed_prints_the_drawn_seed_and_it_replays_the_run(
        capsys, tmp_path: Path) -> None:
    SEEN.clear()
    code, out, _ = run(capsys, "run", "--oracle", "record", "--max-examples", "6",
                       "--no-database", "--junit", "run.xml")
    assert code == 0
    drawn = re.search(r"; seed (\d+) \(drawn: --seed replays this run\)\n", out)
    assert drawn is not None, out
    seed = drawn[1]
    assert f"seed {seed}: rerun with `kschedconf run --suite properties " in out
    assert f"--seed {seed} " in out.split("\n\n")[-1]
    suite_props, cases = junit(tmp_path / "run.xml")
    assert suite_props["seed"] == seed and suite_props["seed.source"] == "drawn"
    assert f"--seed {seed} " in suite_props["rerun"]
    (case,) = cases.values()
    assert case_props(case)["seed"] == seed
    first = list(SEEN)
    SEEN.clear()
    code, _, _ = run(capsys, "run", "--oracle", "record", "--max-examples", "6", "--seed", seed)
    assert code == 0 and SEEN == first
    # the ci profile's runs are the same every time: seed 0 unless given one
    code, out, _ = run(capsys, "run", "--oracle", "ok", "--max-examples", "2", "--profile", "ci",
                       "--sizes", "small")
    assert code == 0 and "; seed 0\n" in out and "--seed 0 " in out


def test_the_summary_says_why_the_properties_stopped(capsys, tmp_path: Path) -> None:
    """A --budget run that ends early because of the profile's example cap says so."""
    code, out, _ = run(capsys, "run", "--oracle", "ok", "--profile", "dev", "--budget", "120",
                       "--seed", "3", "--no-database")
    assert code == 0
    assert "  ok    small/ok  25 examples  " in out and "(example cap)" in out
    assert re.search(r"properties stopped: 1 at the 25-example cap of the dev profile \(a "
                     r"larger --max-examples draws more\) after \d+s of the 120s budget\n", out)
    code, out, _ = run(capsys, "run", "--oracle", "ok", "--max-examples", "100000", "--budget",
                       "1", "--seed", "3", "--junit", "budget.xml", "--report", "budget.json")
    assert code == 0 and "(budget)" in out
    assert "properties stopped: 1 by the --budget\n" in out
    suite_props, cases = junit(tmp_path / "budget.xml")
    assert suite_props["stopped"] == "properties stopped: 1 by the --budget"
    (case,) = cases.values()
    assert case_props(case)["stopped_by"] == "budget"
    doc = json.loads((tmp_path / "budget.json").read_text())
    assert doc["cases"][0]["stoppedBy"] == "budget"


def test_a_seed_makes_the_run_deterministic(capsys, tmp_path: Path) -> None:
    def scenarios_of(seed: str) -> list[str]:
        SEEN.clear()
        code, _, _ = run(capsys, "run", "--oracle", "record", "--max-examples", "6",
                         "--seed", seed)
        assert code == 0
        return list(SEEN)

    first = scenarios_of("7")
    assert len(first) == 6
    assert scenarios_of("7") == first
    assert scenarios_of("8") != first
    # failures too: the same minimal counterexample, byte for byte
    texts = []
    for _ in range(2):
        code, _, _ = run(capsys, "run", "--oracle", "nothing-pending", "--max-examples", "30",
                         "--seed", "5", "--no-shrink")
        assert code == 1
        texts.append((tmp_path / "kschedconf-out" / "nothing-pending-small.yaml").read_text())
    assert texts[0] == texts[1]


# --- golden scenarios --------------------------------------------------------------------------

GOLDEN_SCENARIO = ScenarioInput(list(yaml.safe_load_all(textwrap.dedent("""\
    apiVersion: v1
    kind: Node
    metadata: {name: a, labels: {kubernetes.io/hostname: a}}
    status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
    ---
    apiVersion: v1
    kind: Node
    metadata: {name: b, labels: {kubernetes.io/hostname: b}}
    status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: running, namespace: default}
    spec: {nodeName: a, containers: [{name: c, resources: {requests: {cpu: "3"}}}]}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: web, namespace: default}
    spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: huge, namespace: default}
    spec: {containers: [{name: c, resources: {requests: {cpu: "5"}}}]}
    """))), seed=0, name="golden")


def test_golden_suite(capsys, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = run(capsys, "run", "--suite", "golden", "--golden-dir", str(empty))
    assert code == 2 and "no golden scenarios" in err  # checking nothing is not a pass

    gdir = tmp_path / "golden"
    right = GoldenDecisions({"default/running": "a", "default/web": "b"},
                                   ["default/huge"], [], "v1.37.2", "hand-checked")
    wrong = GoldenDecisions({"default/running": "a", "default/web": "a"},
                                   ["default/huge"], None, "v1.37.2")
    write_scenario_file(gdir / "right.yaml", GOLDEN_SCENARIO, right)
    write_scenario_file(gdir / "wrong.yaml", GOLDEN_SCENARIO, wrong)
    s, d, _ = read_scenario_file(gdir / "right.yaml")
    assert d == right and s.documents == GOLDEN_SCENARIO.documents

    report = tmp_path / "golden.xml"
    code, out, _ = run(capsys, "run", "--suite", "golden", "--golden-dir", str(gdir),
                       "--junit", str(report))
    assert code == 1
    assert "2 golden scenarios" in out
    assert "pod default/web: upstream bound to a, subject bound to b" in out
    _, cases = junit(report)
    assert cases[("kschedconf.golden", "right")].find("failure") is None
    assert cases[("kschedconf.golden", "wrong")].find("failure") is not None
    ce = tmp_path / "kschedconf-out" / "golden-wrong.yaml"
    assert read_scenario_file(ce)[1] == wrong
    code, out, _ = run(capsys, "reproduce", str(ce), "--oracle", "ok")
    assert code == 1 and "1 difference(s) from the recorded upstream decisions" in out
    code, out, _ = run(capsys, "reproduce", str(gdir / "right.yaml"), "--oracle", "ok")
    assert code == 0 and "decisions match" in out


def test_compare_golden_reports_every_difference() -> None:
    exp = GoldenDecisions({"ns/a": "n1", "ns/b": "n2"}, ["ns/c"], ["ns/v"])
    got = {"bindings": {"ns/a": "n1", "ns/c": "n1"}, "pending": ["ns/b"], "deleted": ["ns/w"]}
    assert compare_golden(exp, got) == [
        "pod ns/b: upstream bound to n2, subject pending",
        "pod ns/c: upstream pending, subject bound to n1",
        "pod ns/v: upstream preempted (deleted) it, the subject did not",
        "pod ns/w: the subject preempted (deleted) it, upstream did not",
    ]
    assert compare_golden(exp, {"bindings": {"ns/a": "n1", "ns/b": "n2"},
                                       "pending": ["ns/c"], "deleted": ["ns/v"]}) == []
    with pytest.raises(ValueError, match="bindings"):
        GoldenDecisions.from_doc({"bindings": ["x"]})


# --- pieces ------------------------------------------------------------------------------------

class _Crashing(ReferenceSubject):
    def run(self, scenario: ScenarioInput):  # type: ignore[override]
        raise RuntimeError("reference bug")


def test_a_subject_crash_is_a_failure_with_a_counterexample() -> None:
    base = no_shrink(profile_settings("dev"))
    st = run_property(Property("small", "ok"), _Crashing(), lambda ctx: [],
                             base=base, max_examples=3, seed=0, deadline=None)
    assert st.failure is not None and st.examples == 1 and st.stopped_by == "failure"
    scenario, findings = st.failure
    assert [f.oracle for f in findings] == [CRASH]
    assert "RuntimeError: reference bug" in str(findings[0])
    assert isinstance(scenario, ScenarioInput)


def test_the_example_database_is_used_unless_disabled(capsys, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    for sub, extra in (("with-db", []), ("no-db", ["--no-database"])):
        (tmp_path / sub).mkdir()
        monkeypatch.chdir(tmp_path / sub)
        code, _, _ = run(capsys, "run", "--oracle", "nothing-pending", "--max-examples", "200",
                         "--no-shrink", "--profile", "dev", *extra)
        assert code == 1
    assert any((tmp_path / "with-db" / ".hypothesis" / "examples").rglob("*"))
    assert not (tmp_path / "no-db" / ".hypothesis").exists()


class _Tty:
    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, s: str) -> None:
        self.text += s

    def flush(self) -> None:
        pass


def test_progress_on_a_terminal_and_in_a_log() -> None:
    tty = _Tty()
    console = ConsoleReporter(tty, tty=True)  # type: ignore[arg-type]
    case = CaseResult("properties", "kschedconf.properties.small", "ok")
    console.handle(CaseStarted("small/ok"))
    console.handle(CaseProgress("small/ok", "3 examples  1.2s"))
    console.handle(CaseFinished(case, "5 examples  2.0s"))
    assert tty.text == ("  ....  small/ok\r\x1b[K  ....  small/ok  3 examples  1.2s"
                        "\r\x1b[K  ok    small/ok  5 examples  2.0s\n")
    log = io.StringIO()
    console = ConsoleReporter(log)
    console.handle(CaseStarted("small/ok"))
    console.handle(CaseProgress("small/ok", "3 examples  1.2s"))
    console.handle(CaseFinished(CaseResult("properties", "c", "ok", status="failed"),
                                "1 examples  0.1s  boom"))
    assert log.getvalue() == "  FAIL  small/ok  1 examples  0.1s  boom\n"
