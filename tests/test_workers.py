"""``--workers N``: the same seed gives the same console lines, JSON and JUnit reports and
counterexample files with one worker and with two (times aside), for ``run``, ``diff``,
``golden verify`` and ``mutants``; and the worker pool's own rules."""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from conformance.cli.main import build_parser, main
from conformance.core.errors import UsageError
from conformance.engines.workers import AUTO, Workers, check_shareable, resolve_workers
from tests.test_runner import WRONG_SUBJECT

ROOT = Path(__file__).resolve().parent.parent
COPIES = ROOT / "tests" / "data" / "plugin_copies"
GOLDEN = ROOT / "golden"
#: a few golden files (AREA/NAME.yaml), one with a toleration the buggy plugin gets wrong
SOME_GOLDEN = ("fit/cpu-memory.yaml", "taints/toleration-operators.yaml",
               "taints/noschedule-and-tolerations.yaml")

#: what differs from run to run whatever the workers: times, rates, the output directory
TIMES = [(re.compile(r'"seconds": [0-9.e-]+'), '"seconds": 0'),
         (re.compile(r'time="[0-9.e-]+"'), 'time="0"'),
         (re.compile(r'timestamp="[^"]*"'), 'timestamp=""'),
         (re.compile(r"[0-9]+(\.[0-9]+)?(/s| ?s\b| scenarios/s)"), "T"),
         (re.compile(r"\(shrunk, [0-9]+ steps\)"), "(shrunk)"),
         (re.compile(r"(?m) [0-9]+\.[0-9]+$"), " T")]  # the seconds column of a table


def _same(text: str, out: Path) -> str:
    text = text.replace(str(out), "OUT")
    for pattern, repl in TIMES:
        text = pattern.sub(repl, text)
    return text


def _outputs(out: Path, console: str) -> dict[str, str]:
    """Every file a run wrote, and its console, with the times masked."""
    files = {p.relative_to(out).as_posix(): _same(p.read_text(), out)
             for p in sorted(out.rglob("*")) if p.is_file()}
    return {"console": _same(console, out), **files}


def _run_twice(capsys: pytest.CaptureFixture[str], tmp_path: Path,
               *argv: str) -> tuple[dict[str, str], dict[str, str], int]:
    """The outputs of ``kschedconf ARGV`` with --workers 1 and with --workers 2."""
    got = []
    codes = set()
    for n in (1, 2):
        out = tmp_path / f"w{n}"
        out.mkdir()
        args = [a.replace("{out}", str(out)) for a in argv]
        codes.add(main([*args, "--workers", str(n), "--report", str(out / "report.json"),
                        "--junit", str(out / "junit.xml")]))
        got.append(_outputs(out, capsys.readouterr().out))
    assert len(codes) == 1, codes
    return got[0], got[1], codes.pop()


def test_golden_verify_is_the_same_with_two_workers(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    one, two, code = _run_twice(capsys, tmp_path, "golden", "verify")
    assert code == 0
    assert one == two
    assert one["console"].count("  ok  ") >= 90  # every golden file, one line each


def test_run_counterexamples_are_the_same_with_two_workers(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "first_node.py"
    script.write_text(WRONG_SUBJECT)
    one, two, code = _run_twice(
        capsys, tmp_path, "run", "--subject", f"external:{sys.executable} {script}",
        "--oracle", "no_overcommit", "consistency", "--max-examples", "4", "--seed", "7",
        "--no-database", "--no-shrink", "--out", "{out}")
    assert code == 1
    assert one == two
    counterexamples = [name for name in one if name.endswith(".yaml")]
    assert counterexamples, one["console"]  # the wrong subject overcommits: a file each


def test_diff_is_the_same_with_two_workers(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    golden = tmp_path / "golden"
    for name in SOME_GOLDEN:
        (golden / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(GOLDEN / name, golden / name)
    one, two, code = _run_twice(
        capsys, tmp_path, "diff", "--subject",
        f"reference:{COPIES / 'taint-toleration-copy-config.yaml'}",
        "--plugins", str(COPIES / "taint_toleration_bug.py"), "--scenarios", "8",
        "--golden", "--golden-dir", str(golden), "--seed", "1", "--no-shrink",
        "--out", "{out}")
    assert code == 1  # the buggy copy of TaintToleration diverges
    assert one == two
    assert "diff-golden-taints-toleration-operators.yaml" in one
    assert one["console"].index("small-0008") < one["console"].index("golden-fit-cpu")


def test_mutants_are_reported_in_the_same_order_with_two_workers(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    one, two, code = _run_twice(
        capsys, tmp_path, "mutants", "--only", "queue-fifo,fit-ignores-pod-count",
        "--max-examples", "3", "--budget", "600", "--no-golden", "--seed", "3")
    assert one == two
    assert code in (0, 1)
    lines = one["console"]
    assert lines.index("fit-ignores-pod-count") < lines.index("queue-fifo")


def test_workers_resolve_to_the_cpus_and_never_more_than_the_cases() -> None:
    assert resolve_workers(4, 2) == 2
    assert resolve_workers(3, 0) == 1
    assert resolve_workers(AUTO, 10_000) >= 1
    assert resolve_workers(None, 1) == 1


def test_a_shared_cluster_takes_one_worker() -> None:
    check_shareable("kubeconfig:kind-kind", 1)
    check_shareable("upstream@v1.37.2", 2)
    with pytest.raises(UsageError, match="share one cluster"):
        check_shareable("kubeconfig:kind-kind", 2)
    code = main(["golden", "verify", "--subject", "kubeconfig:kind-kind",
                 "--i-own-this-cluster", "kind-kind", "--workers", "2"])
    assert code == 2


def _square(context: int, item: int) -> int:
    return context * item * item


def _offset() -> int:
    return 1


def test_the_pool_returns_outcomes_in_order_and_announces_each() -> None:
    for n in (1, 2):
        started: list[int] = []
        with Workers(n, _offset) as pool:
            assert list(pool.map(_square, range(7), started.append)) == \
                [i * i for i in range(7)]
        assert started == list(range(7))


def _shard_command(script: str, env: dict[str, str]) -> list[str]:
    """The ``kschedconf run`` line of a template's script, its variables set."""
    joined = " ".join(re.sub(r"\\\n", " ", script).split())
    line = joined[joined.index("kschedconf run"):]
    for name, value in env.items():
        line = line.replace(f"${{{name}}}", value)
    line = re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", line)
    return shlex.split(line)[1:]


def test_the_shard_templates_run_every_shard_with_every_core() -> None:
    github = yaml.safe_load((ROOT / "ci" / "github-actions-shards.yml").read_text())
    job = github["jobs"]["shard"]
    shards = job["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, len(shards) + 1)) and not job["strategy"]["fail-fast"]
    (step,) = [s for s in job["steps"] if "kschedconf run" in s.get("run", "")]
    assert step["env"]["KSCHEDCONF_SHARDS"] == "${{ strategy.job-total }}"
    gitlab = yaml.safe_load((ROOT / "ci" / "gitlab-ci-shards.yml").read_text())
    glab = gitlab["kschedconf:shards"]
    assert glab["parallel"] >= 2 and glab["artifacts"]["reports"]["junit"]
    for script, env in (
            (step["run"], {"KSCHEDCONF_SHARD": "2", "KSCHEDCONF_SHARDS": str(len(shards))}),
            ("\n".join(glab["script"]), {"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "4"})):
        args = build_parser().parse_args(_shard_command(script, env))
        assert args.workers == AUTO and args.shard[0] == 2 and args.profile == "ci"
        assert args.junit == "kschedconf-shard-2.xml"
