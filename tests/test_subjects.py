"""Subjects: the reference (with and without a user's configuration), the external command
file protocol (docs/subjects.md) and its error paths, and the ``make_subject`` factory."""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from conformance.core.errors import UsageError
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectError
from conformance.subjects.external import ExternalSubject, stderr_tail
from conformance.subjects.factory import make_subject
from conformance.subjects.reference import ReferenceSubject
from reference_impl.testing.wrappers import make_container, make_node, make_pod


def node(name: str, cpu: str) -> dict:
    return make_node(name).hostname().allocatable(cpu=cpu, memory="8Gi", pods="110").manifest()


def pod(name: str, cpu: str, node_name: str | None = None, ts: int = 0) -> dict:
    p = make_pod(name).namespace("default").creation_timestamp(f"2026-01-01T00:00:{ts:02d}Z") \
        .container(make_container("c").image("nginx").requests(cpu=cpu))
    return (p.node(node_name) if node_name else p).manifest()


def scenario(seed: int = 3) -> ScenarioInput:
    # a: 4 cpu with 3 used; b: 4 cpu empty. "small" (500m) fits both: LeastAllocated picks b.
    # "huge" (5 cpu) fits nowhere.
    return ScenarioInput([node("a", "4"), node("b", "4"), pod("running", "3", "a"),
                          pod("small", "500m", ts=1), pod("huge", "5", ts=2)], seed=seed,
                         name="two-nodes")


MOST_ALLOCATED = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [{
        "name": "NodeResourcesFit",
        "args": {"scoringStrategy": {"type": "MostAllocated",
                                     "resources": [{"name": "cpu", "weight": 1}]}}}]}],
}


# --- the reference -----------------------------------------------------------------------------

def test_reference_schedules_the_scenario() -> None:
    out = ReferenceSubject().run(scenario())
    res = out.result
    assert out.trace and {"time", "op"} <= set(out.trace[0])  # the queue trace, for the oracles
    assert res["stoppedBy"] == "quiescence"
    assert res["kind"] == "SimulationResult" and res["seed"] == 3
    assert res["bindings"] == {"default/running": "a", "default/small": "b"}
    assert res["pending"] == ["default/huge"]
    huge = next(a for a in res["attempts"] if a["pod"] == "default/huge")
    assert huge["outcome"] == "Unschedulable"
    assert huge["reasons"] == {"a": ["Insufficient cpu"], "b": ["Insufficient cpu"]}


def test_reference_uses_the_scenario_config_then_its_own(tmp_path: Path) -> None:
    s = scenario()
    s.config = MOST_ALLOCATED  # MostAllocated prefers the fuller node a
    assert ReferenceSubject().run(s).result["bindings"]["default/small"] == "a"
    # the subject's own configuration wins over the scenario's
    cfg = tmp_path / "least.yaml"
    cfg.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1",
                                   "kind": "KubeSchedulerConfiguration"}))
    subject = ReferenceSubject(cfg)
    assert subject.run(s).result["bindings"]["default/small"] == "b"
    assert subject.describe()["config"] == str(cfg)


def test_reference_errors_are_subject_errors(tmp_path: Path) -> None:
    with pytest.raises(SubjectError, match="no such file"):
        ReferenceSubject(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                   "kind: KubeSchedulerConfiguration\nnoSuchField: 1\n")
    with pytest.raises(SubjectError):
        ReferenceSubject(bad)
    broken = ScenarioInput([{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                             "spec": {"containers": "not-a-list"}}])
    with pytest.raises(SubjectError, match="rejected scenario"):
        ReferenceSubject().run(broken)
    with pytest.raises(SubjectError, match="plugins"):
        ReferenceSubject(plugin_modules=[str(tmp_path / "nope.py")])


def test_reference_runs_a_timeline_over_virtual_time() -> None:
    s = scenario()
    # "huge" fits once a big node joins at t=10s (the queue retries it on NodeAdd)
    s.documents.append({"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {
        "events": [{"at": "10s", "action": "createNode", "node": node("c", "8")}]}})
    out = ReferenceSubject().run(s)
    assert out.result["bindings"]["default/huge"] == "c"
    assert out.result["pending"] == []
    assert isinstance(out.trace, list) and out.trace
    assert "trace" not in out.result


# --- the external command ----------------------------------------------------------------------

ECHO_REFERENCE = """\
import json, os, sys
sys.path.insert(0, {root!r})
from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
scenario_path, flag, out, seed_flag, seed = sys.argv[1:]
with open(os.environ["KS_LOG"], "w") as f:
    json.dump({{"argv": sys.argv[1:], "cwd": os.getcwd(),
               "env": {{k: v for k, v in os.environ.items() if k.startswith("KSCHEDCONF_")}}}}, f)
s = ScenarioInput.read(scenario_path)
assert s.seed == int(seed)
json.dump(ReferenceSubject().run(s).result, open(out, "w"))
"""


def script(tmp_path: Path, name: str, body: str) -> str:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return f"{sys.executable} {p}"


def test_external_subject_follows_the_file_protocol(tmp_path: Path, monkeypatch) -> None:
    root = str(Path(__file__).resolve().parent.parent)
    cmd = script(tmp_path, "echo_ref.py", ECHO_REFERENCE.format(root=root))
    log = tmp_path / "log.json"
    monkeypatch.setenv("KS_LOG", str(log))
    for k in [k for k in os.environ if k.startswith("KSCHEDCONF_")]:
        monkeypatch.delenv(k)  # only what the protocol sets may be seen below
    subject = ExternalSubject(cmd, timeout=30)
    s = scenario(seed=11)
    s.config = MOST_ALLOCATED
    res = subject.run(s).result
    # the scenario file round-trips: same decisions as the in-process reference
    assert res == ReferenceSubject().run(s).result
    assert res["bindings"]["default/small"] == "a"  # the config reached the command
    seen = json.loads(log.read_text())
    argv = seen["argv"]
    assert Path(argv[0]).name == "scenario.yaml" and argv[0].endswith(".yaml")
    assert argv[1:3] == ["--output", argv[2]] and argv[2].endswith("result.json")
    assert argv[3:] == ["--seed", "11"]
    assert seen["cwd"] == str(Path.cwd())
    assert seen["env"] == {"KSCHEDCONF_PROTOCOL": "1", "KSCHEDCONF_UPSTREAM_RELEASE": "v1.37.2",
                           "KSCHEDCONF_SCENARIO_NAME": "two-nodes"}
    assert not Path(argv[0]).exists()  # the temporary directory is removed
    assert subject.describe()["command"] == cmd


def test_external_nonzero_exit_reports_the_stderr_tail(tmp_path: Path) -> None:
    cmd = script(tmp_path, "fail.py", """\
        import sys
        for i in range(30):
            print(f"line {i}", file=sys.stderr)
        sys.exit(3)
        """)
    with pytest.raises(SubjectError) as e:
        ExternalSubject(cmd).run(scenario())
    msg = str(e.value)
    assert "exit code 3" in msg and "line 29" in msg and "line 10" in msg
    assert "line 9\n" not in msg  # only the last 20 lines


def test_external_invalid_json(tmp_path: Path) -> None:
    cmd = script(tmp_path, "badjson.py", """\
        import sys
        open(sys.argv[sys.argv.index("--output") + 1], "w").write("{not json")
        print("wrote garbage", file=sys.stderr)
        """)
    with pytest.raises(SubjectError, match="not valid JSON") as e:
        ExternalSubject(cmd).run(scenario())
    assert "wrote garbage" in str(e.value)


def test_external_result_must_match_the_schema(tmp_path: Path) -> None:
    cmd = script(tmp_path, "schema.py", """\
        import json, sys
        json.dump({"apiVersion": "kschedconf/v1", "kind": "SimulationResult", "seed": 1,
                   "attempts": [], "bindings": {"default/x": 5}, "pending": []},
                  open(sys.argv[sys.argv.index("--output") + 1], "w"))
        """)
    with pytest.raises(SubjectError, match=r"SimulationResult schema: bindings/default/x"):
        ExternalSubject(cmd).run(scenario())


def test_external_no_output(tmp_path: Path) -> None:
    cmd = script(tmp_path, "nothing.py", "pass\n")
    with pytest.raises(SubjectError, match="no result written"):
        ExternalSubject(cmd).run(scenario())


def test_external_timeout_kills_the_command(tmp_path: Path) -> None:
    marker = tmp_path / "survived"
    cmd = script(tmp_path, "slow.py", f"""\
        import sys, time
        print("starting", file=sys.stderr, flush=True)
        time.sleep(5)
        open({str(marker)!r}, "w").write("x")
        """)
    t0 = time.monotonic()
    with pytest.raises(SubjectError, match=r"timed out after 0.5 s") as e:
        ExternalSubject(cmd, timeout=0.5).run(scenario())
    assert time.monotonic() - t0 < 4
    assert "starting" in str(e.value)
    time.sleep(0.2)
    assert not marker.exists()


def test_external_command_not_found(tmp_path: Path) -> None:
    with pytest.raises(SubjectError, match="cannot start"):
        ExternalSubject(str(tmp_path / "no-such-command")).run(scenario())
    with pytest.raises(SubjectError, match="empty command"):
        ExternalSubject("")


def test_stderr_tail() -> None:
    assert stderr_tail(b"") == ""
    assert stderr_tail(b"a\nb\nc\n", lines=2) == "b\nc"
    assert stderr_tail("x" * 10_000).endswith("x") and len(stderr_tail("x" * 10_000)) == 4000


# --- make_subject ------------------------------------------------------------------------------

def test_make_subject_specs(tmp_path: Path) -> None:
    assert isinstance(make_subject("reference"), ReferenceSubject)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(MOST_ALLOCATED))
    ref = make_subject(f"reference:{cfg}")
    assert isinstance(ref, ReferenceSubject) and ref.config_path == str(cfg)
    assert make_subject("reference", config=str(cfg)).config_path == str(cfg)
    ext = make_subject("external:my-scheduler --fast 'two words'", timeout=7)
    assert isinstance(ext, ExternalSubject)
    assert ext.argv == ["my-scheduler", "--fast", "two words"] and ext.timeout == 7
    with pytest.raises(UsageError, match="unknown subject"):
        make_subject("kwok")
    with pytest.raises(UsageError, match="needs a command"):
        make_subject("external:")
    with pytest.raises(UsageError, match="once"):
        make_subject(f"reference:{cfg}", config=str(tmp_path / "other.yaml"))
