"""Example throughput of the default conformance suite: scenarios generated, scheduled by the
reference and judged by the oracles, per second.

Runs ``kschedconf run``'s default property suite (every oracle, the dev profile's sizes) against
the reference subject with a fixed seed and a time budget, and prints, per property and in total,
examples and examples per second. Run:

    python3 bench/suite_throughput.py [--budget 60] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance.core.events import EventBus  # noqa: E402
from conformance.engines.run import RunOptions, run  # noqa: E402
from reference_impl.releases.pinned import UPSTREAM_RELEASE  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=60.0, help="seconds for the whole suite")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-examples", type=int, default=100_000,
                    help="per property (default: effectively unlimited, the budget decides)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as out:
        report = run(RunOptions(budget=args.budget, seed=args.seed, database=False,
                                max_examples=args.max_examples, out=out), EventBus())
    print(f"kschedconf default suite on the reference scheduler (upstream {UPSTREAM_RELEASE}); "
          f"{platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}; "
          f"budget {args.budget:g}s, seed {args.seed}")
    print(f"{'property':36} {'examples':>9} {'seconds':>8} {'scenarios/s':>12} {'status':>8}")
    total_ex = 0
    total_s = 0.0
    for c in report.cases:
        rate = c.examples / c.seconds if c.seconds else 0.0
        total_ex += c.examples
        total_s += c.seconds
        print(f"{c.classname.split('.')[-1] + '/' + c.name:36} {c.examples:9d} {c.seconds:8.1f} "
              f"{rate:12.1f} {c.status:>8}")
    rate = total_ex / total_s if total_s else 0.0
    print(f"{'total':36} {total_ex:9d} {total_s:8.1f} {rate:12.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
