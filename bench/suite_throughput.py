"""Example throughput of the default conformance suite: scenarios generated, scheduled by the
reference and judged by the oracles, per second.

Runs ``kschedconf run``'s default property suite (every oracle, the dev profile's sizes) against
the reference subject with a fixed seed and a time budget, and prints, per property and in total,
examples and examples per second, and the examples per second of this process's CPU time (what
to compare on a shared machine). Run:

    python3 bench/suite_throughput.py [--budget 60] [--seed 0]

Notes (issue 17, 2 cores shared with other work, load average 4 to 14: compare CPU figures).
Same work, ``kschedconf run --seed 1 --max-examples 30`` (210 examples, byte-identical
RunReport before and after): 16.5 s of CPU before, 11.0 s after (2.1 s of imports left out),
about 1.5 times the examples per CPU second. Where the time went before (cProfile, own time,
``--budget 30``): Hypothesis' own drawing machinery about 60 % (``ConjectureData.draw``,
``_draw``, spans, the data tree, ``generate_mutations_from``: what the same seed must draw, left
as is), building and validating strategies again at every draw about 20 % (``validate``,
``recursive_property``, ``cached_strategy``'s LRU cache; now built once per distinct arguments:
``strategies/_cache.py``), the reference and the oracles about 15 % (the loader twice per
example, the subject's and the oracles'; ``aggregate_container_requests`` summed Fractions three
times per pod where one aggregate is the answer when no container status exists). What is left
is mostly Hypothesis' per-choice cost (about 150 choices per scenario, half of the examples
tried overrun or fail a filter): 200 scenarios per second needs a generator drawing fewer
choices, which changes the scenarios of every seed.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
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
    cpu = time.process_time()
    with tempfile.TemporaryDirectory() as out:
        report = run(RunOptions(budget=args.budget, seed=args.seed, database=False,
                                max_examples=args.max_examples, out=out), EventBus())
    cpu = time.process_time() - cpu
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
    print(f"CPU time of this process: {cpu:.1f}s, {total_ex / cpu if cpu else 0.0:.1f} "
          "examples per CPU second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
