"""The bench scripts that no other test imports still run end to end on a small input (their
figures are measured by hand; this only keeps them from breaking silently)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def test_scale_bench_runs_on_a_small_cluster() -> None:
    out = subprocess.run([sys.executable, str(BENCH / "scale.py"), "--nodes", "20",
                          "--pending", "4"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.split() for line in out.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert [r[0] for r in rows] == ["5", "10", "20"]
    assert rows[-1][7] == "4/4"  # every pending pod bound
