"""Example throughput of the default conformance suite: scenarios generated, scheduled by the
reference and judged by the oracles, per second.

Runs ``kschedconf run``'s default property suite (every oracle, the dev profile's sizes) against
the reference subject with a fixed seed and a time budget, and prints, per property and in total,
examples, the CPU seconds of each property and examples per CPU second (what to compare on a
shared machine), then the CPU time of the whole process (imports done by the run included).
``--stats``: Hypothesis' test cases per property, valid, invalid (a filter or assume gave up)
and overrun (over the choice limit). Run:

    python3 bench/suite_throughput.py [--budget 60] [--seed 0] [--stats]

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
times per pod where one aggregate is the answer when no container status exists).

Second pass (``--budget 30 --seed 0``, alternate runs, load average 5 to 10). Of 1029 test
cases Hypothesis ran, 141 (14 %) were invalid, every one from the odd-count filter of the
"1.5Gi" quantity form (now drawn as ``2k+1``: 0 invalid), 303 (29 %) overran. The filter also
biased the scenarios towards small ones (500 small scenarios of seed 0: 2409 pods before, 3091
after). Composites given new arguments at every draw (about 16 per scenario) are built without
Hypothesis' lazy wrapper (``strategies/_cache.py``, ``composite``: same draws): generating 200
scenarios took 24-25 ms of CPU per scenario instead of 28-35. Whole suite: 31.1-33.2 examples
per CPU second before, 34.9 after (imports included). What is left: at 40 examples per
property (``--max-examples 40``) a small scenario makes about 500 choices, at about 30 us each
in Hypothesis (``ConjectureData.draw``/``_draw``, spans, the data tree: 80 % of drawing), and
about 38 % of the test cases of a budgeted run overrun: Hypothesis caps its first 50 test cases
at 5 times the choices of the simplest scenario. 200 scenarios per second needs scenarios of
far fewer choices, and the reference and the oracles at about 5 ms per example need halving.

Third pass (alternate runs, load average 5 to 6). Inside ``strategies._cache.composite`` (now
every generator's), a draw from ``sampled``/``booleans``/``integers`` is its one choice without
``ConjectureData.draw``'s span; label dicts are one choice (docs/strategies.md). 300 small
scenarios of seed 0: 612 -> 510 choices per valid test case, 28.1 -> 19.4 ms of CPU each
(quiet machine). ``--max-examples 40 --budget 1000`` (280 examples, the same work): 12.0 and
11.4 s of CPU before, 7.9 and 8.2 after, 23.3-24.5 -> 34.2-35.2 examples per CPU second (1.45
times; a second alternation: 22.8-26.6 -> 34.2-34.5). ``--budget 30``: 47.4-49.6 ->
50.3-52.5, then 40.4-43.4 -> 48.2-51.5, only: a budgeted run stays in Hypothesis' first phase
(50 valid test cases per property, each capped at 5 times the choices of the
simplest scenario), whose examples are small and 30-40 % of whose test cases overrun, so what
is left there is per test case (the data tree, novel prefixes, mutations), not per choice.
``read_scheduler_config``: 0.77 -> 0.27 ms per call (``_implements`` cached per release).
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

from collections import Counter  # noqa: E402
from typing import Any  # noqa: E402

from hypothesis.internal.conjecture import engine  # noqa: E402

from conformance.core.events import CaseFinished, CaseStarted, Event, EventBus  # noqa: E402
from conformance.engines.run import RunOptions, run  # noqa: E402
from reference_impl.releases.pinned import UPSTREAM_RELEASE  # noqa: E402


class _CaseCpu:
    """The CPU seconds of each case (property), from its CaseStarted to its CaseFinished."""

    def __init__(self) -> None:
        self.started = 0.0
        self.cpu: list[float] = []

    def handle(self, event: Event) -> None:
        if isinstance(event, CaseStarted):
            self.started = time.process_time()
        elif isinstance(event, CaseFinished):
            self.cpu.append(time.process_time() - self.started)


def _count_test_cases() -> list[Counter[str]]:
    """Hypothesis' test cases of each property by status (one ConjectureRunner per property;
    private names of Hypothesis, for this measurement only)."""
    counts: list[Counter[str]] = []
    init, test_function = engine.ConjectureRunner.__init__, engine.ConjectureRunner.test_function

    def counting_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        counts.append(Counter())
        self._bench_counts = counts[-1]

    def counting_test_function(self: Any, data: Any) -> None:
        try:
            test_function(self, data)
        finally:
            self._bench_counts[data.status.name.lower()] += 1

    engine.ConjectureRunner.__init__ = counting_init  # type: ignore[method-assign]
    engine.ConjectureRunner.test_function = counting_test_function  # type: ignore[method-assign]
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=60.0, help="seconds for the whole suite")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-examples", type=int, default=100_000,
                    help="per property (default: effectively unlimited, the budget decides)")
    ap.add_argument("--stats", action="store_true",
                    help="Hypothesis' test cases per property: valid, invalid, overrun")
    args = ap.parse_args()
    counts = _count_test_cases() if args.stats else []
    per_case = _CaseCpu()
    cpu = time.process_time()
    with tempfile.TemporaryDirectory() as out:
        report = run(RunOptions(budget=args.budget, seed=args.seed, database=False,
                                max_examples=args.max_examples, out=out), EventBus([per_case]))
    cpu = time.process_time() - cpu
    print(f"kschedconf default suite on the reference scheduler (upstream {UPSTREAM_RELEASE}); "
          f"{platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}; "
          f"budget {args.budget:g}s, seed {args.seed}")
    stats_head = f" {'tried':>6} {'invalid':>8} {'overrun':>8}" if counts else ""
    print(f"{'property':36} {'examples':>9} {'seconds':>8} {'cpu s':>7} {'ex/cpu s':>9} "
          f"{'status':>8}{stats_head}")
    total_ex = 0
    total_s = total_cpu = 0.0
    total_counts: Counter[str] = Counter()
    for i, c in enumerate(report.cases):
        case_cpu = per_case.cpu[i] if i < len(per_case.cpu) else 0.0
        total_ex += c.examples
        total_s += c.seconds
        total_cpu += case_cpu
        line = (f"{c.classname.split('.')[-1] + '/' + c.name:36} {c.examples:9d} "
                f"{c.seconds:8.1f} {case_cpu:7.1f} {c.examples / case_cpu if case_cpu else 0:9.1f} "
                f"{c.status:>8}")
        if i < len(counts):
            total_counts.update(counts[i])
            line += _stats(counts[i])
        print(line)
    print(f"{'total':36} {total_ex:9d} {total_s:8.1f} {total_cpu:7.1f} "
          f"{total_ex / total_cpu if total_cpu else 0:9.1f} {'':>8}"
          + (_stats(total_counts) if counts else ""))
    print(f"CPU time of this process: {cpu:.1f}s, {total_ex / cpu if cpu else 0.0:.1f} "
          "examples per CPU second")
    return 0


def _stats(c: Counter[str]) -> str:
    tried = sum(c.values())
    return (f" {tried:6d} {c['invalid']:8d} {c['overrun']:8d}"
            f"  ({(c['invalid'] + c['overrun']) / tried if tried else 0:.0%} wasted)")


if __name__ == "__main__":
    sys.exit(main())
