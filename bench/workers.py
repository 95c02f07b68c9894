"""Speedup of ``--workers N`` over one worker: the wall clock of ``golden verify``, ``diff
--scenarios 40 --seed 1`` (against the upstream subject; without its binary, the reference
against a copy of one of its plugins, said in the output), ``run`` (the default property suite
with a fixed seed and example cap) and ``mutants --budget 60``, each run with ``--workers 1``
and ``--workers N`` (default: the CPU count, at least 2), and whether their RunReports are the
same (times aside). Run:

    python3 bench/workers.py [--workers 2] [--only golden,diff,run,mutants]

On a shared, loaded machine compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance.subjects.upstream import binary_available  # noqa: E402

COPIES = ROOT / "tests" / "data" / "plugin_copies"


def workloads() -> dict[str, list[str]]:
    """The commands measured, without --workers."""
    if binary_available():
        diff = ["diff", "--scenarios", "40", "--seed", "1", "--no-shrink"]
    else:  # the same comparison work on the reference side, no Go subject needed
        diff = ["diff", "--subject", f"reference:{COPIES / 'taint-toleration-copy-config.yaml'}",
                "--plugins", str(COPIES / "taint_toleration_copy.py"), "--scenarios", "40",
                "--seed", "1", "--no-shrink"]
    return {
        "golden": ["golden", "verify"],
        "diff": diff,
        "run": ["run", "--seed", "1", "--max-examples", "10", "--no-database"],
        "mutants": ["mutants", "--budget", "60", "--no-golden"],
    }


def _same(doc: dict[str, Any]) -> dict[str, Any]:
    """A RunReport without its times."""
    doc = dict(doc)
    doc.pop("seconds", None)
    doc["cases"] = [{k: v for k, v in c.items() if k != "seconds"} for c in doc.get("cases", [])]
    doc["totals"] = [t.split(" in ")[0] for t in doc.get("totals", [])]
    return doc


def differences(one: dict[str, Any], other: dict[str, Any]) -> str:
    """The cases whose reports differ (times aside), in a few words."""
    a, b = _same(one).get("cases", []), _same(other).get("cases", [])
    ids = [x.get("id", "?") for x, y in zip(a, b, strict=False) if x != y]
    if len(a) != len(b):
        return f"{len(a)} against {len(b)} cases"
    return f"{len(ids)} case(s) differ, the first {ids[0]}" if ids else "the totals differ"


def measure(argv: list[str], workers: int, out: Path) -> tuple[float, dict[str, Any], int]:
    """Wall-clock seconds, the RunReport and the exit code of one command."""
    out.mkdir(parents=True, exist_ok=True)
    report = out / "report.json"
    extra = ["--out", str(out)] if argv[0] in ("diff", "run") else []
    cmd = [sys.executable, "-m", "conformance.cli", *argv, *extra, "--workers", str(workers),
           "--report", str(report)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=out, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - t0
    doc = json.loads(report.read_text()) if report.is_file() else {}
    if not doc:
        sys.stderr.write(proc.stderr[-2000:])
    return seconds, doc, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=max(2, os.cpu_count() or 1))
    ap.add_argument("--only", default="golden,diff,run,mutants",
                    help="a comma list of golden, diff, run, mutants")
    args = ap.parse_args()
    wanted = [w.strip() for w in args.only.split(",") if w.strip()]
    commands = workloads()
    load = os.getloadavg()[0]
    print(f"--workers 1 against --workers {args.workers}; {platform.machine()} "
          f"{os.cpu_count()} cpus (load {load:.1f}), Python {platform.python_version()}; "
          f"upstream subject {'built' if binary_available() else 'not built'}")
    print(f"{'workload':10} {'1 worker s':>11} {f'{args.workers} workers s':>12} {'speedup':>8} "
          f"{'same report':>12}  command")
    with tempfile.TemporaryDirectory() as tmp:
        for name in wanted:
            argv = commands[name]
            s1, doc1, code1 = measure(argv, 1, Path(tmp) / f"{name}-1")
            sn, docn, coden = measure(argv, args.workers, Path(tmp) / f"{name}-n")
            same = "yes" if _same(doc1) == _same(docn) and code1 == coden else "NO"
            print(f"{name:10} {s1:11.1f} {sn:12.1f} {s1 / sn:8.2f} {same:>12}  "
                  f"kschedconf {' '.join(argv)}", flush=True)
            if same == "NO":
                print(f"{'':10} {differences(doc1, docn)}", flush=True)
    print("Two runs may differ whatever the workers where time or upstream decides: a --budget "
          "(mutants) cuts examples by the clock, and upstream breaks preemption ties at random "
          "(diff: tie-break lines).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
