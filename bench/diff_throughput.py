"""Throughput of ``kschedconf diff`` against the in-process upstream subject: scenarios
compared per second, and where the time goes.

Runs the engine the way ``kschedconf diff`` does (``conformance.engines.diff.run_diff`` with the
``upstream`` subject: ``kschedconf-upstream serve`` processes built by ``upstream/build.sh``) on
generated scenarios with a fixed seed, no shrinking, under ``cProfile``; prints scenarios per
second (the wall time of the whole run, the subjects' start included) and the profile's own time
grouped into phases (``--notes``: the phases, and what was measured and changed). Run:

    python3 bench/diff_throughput.py [--scenarios 100] [--sizes small] [--seed 0]
        [--upstream-workers 4] [--no-profile] [--notes]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import conformance.engines.diff.run as diff_run  # noqa: E402
from conformance.core.events import EventBus  # noqa: E402
from conformance.engines.diff import DiffOptions, run_diff  # noqa: E402
from conformance.engines.workers import SubjectSpec  # noqa: E402
from reference_impl.releases.pinned import UPSTREAM_RELEASE  # noqa: E402

REPO = str(Path(__file__).resolve().parent.parent)
#: what the phases are, and what was measured and changed (printed by ``--notes``)
NOTES = """The phases: the profile's own time (``tottime``) by the module it was spent in:

* generation: ``strategies/``, ``conformance/generation``, hypothesis;
* reference: ``reference_impl/`` (the reference scheduler and its loader);
* upstream subject: ``conformance/subjects/`` (starting the serve processes, the JSON-lines
  protocol) plus the waits on their pipes and on the worker threads (built-in ``read``,
  ``poll``/``select``, lock ``acquire``): the Go side's own work shows up there;
* comparison: ``conformance/engines/diff/`` (normalizing and comparing the results);
* serialization: yaml / json; other: the rest (the session, reporters).

The time of a function of no phase (the standard library, built-ins such as ``isinstance``)
goes to the phase of its dominant caller (the caller through which most of its cumulative time
came), recursively.

The profile slows Python down (the Go side is not), so the phases' shares, not their seconds,
are what to read; ``--no-profile`` gives the unprofiled rate.

Notes (issue 17, 2 cores shared with other work). The serve processes are started once per
subject (a pool of ``--upstream-workers``), not per scenario; a small scenario costs one
simulate per side and, in lockstep, one explanation per side per attempt (60 scenarios: 60
whole runs, 267 lockstep steps). Before: the upstream subject's waits were 35 % of the
profile: each request built a world whose start waited a whole 100 ms poll period of
WaitForHandlersSync (and, before client-go v0.37, of WaitForCacheSync) though it syncs within a
millisecond: simulate 138 ms for 35 ms of Go CPU, explain 89 ms for 26 ms. Half of
the Go CPU (pprof) was the garbage collector and memclr over the fake watchers' buffers:
watch.DefaultChanSize 1 << 15 for every world, about 1 MB per watch. After
(upstream/cluster.go ``waitSynced`` and ``watchChanSize``): simulate 50 ms for 18 ms of Go CPU,
explain 21 ms for 11 ms; ``diff --seed 1 --sizes small=60`` compares in 11.6 s instead of
30.8 s (5.17 against 1.95 scenarios/s, load average 9 to 14 on both runs), the same RunReport,
10.4 s of CPU instead of 16.4 (Python and the Go children). What is left is mostly Python:
generation about 30 % (Hypothesis), the reference about 40 % (every lockstep state loaded
again: ``load_documents``, pod resources), then the Go side's world built per request (a
scheduler and its informers for every simulate and explain). 20 scenarios per second needs
both sides to keep their world between the states of a lockstep run.

Second pass (issue 17). Go: a time.Sleep under 1 ms takes 1.1 ms on Linux (the netpoller's
epoll timeout is in ms), and a request slept that way a dozen times (settle, waitSynced, the
watches): ``pause`` (upstream/pause_linux.go, nanosleep: about 0.12 ms) and waitSynced asking
with a done context; GOGC 400 in serve (the collector was a third of its CPU). The 335
requests of ``--seed 1 --sizes small=60`` replayed serially: 8.6 s -> 4.5 s wall, 3.5 -> 2.8 s
CPU, the same answers. Python: the reference's LoadMemo (267 lockstep explanations 2.9 ->
1.5 s) and the comparer thread, which compares a scenario while Hypothesis draws the next.
``--seed 1 --sizes small=60``, three alternate runs each, load average about 4: 5.8, 5.0, 6.4
scenarios/s before, 6.5, 7.8, 8.3 after; CPU (Python + Go) about 6.7 s instead of 8 to 11 s.
The profile (both threads): generation 43 %, the reference 26 %, waits 25 %, the comparison
5 %. Left: generation (strategies/, Hypothesis) and the worlds rebuilt per request.

Third pass (issue 17). Where a comparison's time went (``--seed 1`` small 60, per-thread CPU and
waits measured apart): Hypothesis in the run's thread 1.5 s of CPU, the comparer thread 1.1 s of
CPU (the reference 0.8 s) in 5 to 8 s of wall time, the rest waiting for upstream, whose
requests (336: 69 simulate, 267 explain) took 24 ms each in the run against 9 ms replayed alone:
2 CPUs shared by the Go processes, the Python threads and other work. The profile before (top
own time): lock ``acquire`` 4.6 s (the waits), Hypothesis' ``_draw`` 0.57 s and ``draw`` 0.52 s,
``isinstance`` 0.19 s (the reference), ``deepcopy`` 0.19 s (``without_timeline``: every document
copied for the lockstep states and for ``fill_pdb_status``'s load, which only read them),
``normalize.same`` 0.17 s; py-spy (``--gil``) the same, and Python's collector 0.6 s of oldest-
generation collections walking every module and release object. Changed: ``COMPARERS`` (3)
comparer threads, so the waits of one scenario overlap the work of others (1, 2, 3, 4 tried: 3
and 4 alike); the states and ``fill_pdb_status`` read the scenario's documents without copying
them (``initial_documents``; copied on write as before); ``collector_frozen`` (``gc.freeze``
while the run compares: the oldest generation's collections 0.63 s -> 0.16 s). Same decisions,
divergences and tie-breaks (every ``ScenarioDiff`` of ``--seed 1 --sizes
small=60,medium=15,dra=20,storage=10``, with and without four planted bugs: 588 divergences,
byte-identical). The same profile (a profiler per comparer thread: this script's
``profile_comparers``) before and after, run back to back under load average 6: ``acquire`` 5.6
-> 7.7 s, ``draw`` 0.93 -> 1.04 s, ``_draw`` 0.89 -> 0.90 s, ``deepcopy`` 0.29 s -> out of the
top 10; phases: generation 43 -> 41 %, reference 28 -> 30 %, waits 21 -> 23 %, comparison 5 -> 5
% (under the profile the Python threads, not the waits, bound the run: 3.8 and 3.9 scenarios/s).
``--no-profile --scenarios 60 --seed 1``, five alternate runs in one session (load average 3.7
to 4): 9.0, 8.1, 10.8, 11.1, 8.1 scenarios/s before (mean 9.4), 9.9, 10.7, 10.7, 12.2, 9.6 after
(mean 10.6: 1.13 times; run by run 1.10, 1.32, 0.99, 1.10, 1.19); CPU (Python and Go, imports
included) 8 to 11.7 s per run on both sides. The target, 20 per second, is not reached: the run
is bound by the CPU of 2 shared cores, not by waits. What is left is CPU: about 3 s of Go (a
world, a scheduler and informers decoded and built per request: ``newWorld`` 13 %,
``buildCluster`` 10 %, ``scheduler.New`` 10 %, metrics polled for quiescence 5 %, the collector
15 %; perf on a replay of the 336 requests; GOGC 800 or off with GOMEMLIMIT did not help) and
1.5 s of Hypothesis for 60 scenarios; 20 scenarios per second needs upstream to keep its world
between the states of a lockstep run.

Fourth pass (issue 17). A lockstep state is explained for several pods (the pods attempted
while the cluster did not change): ``--seed 1 --sizes small=60,medium=15,dra=20,storage=10``
asked 615 explanations on 171 distinct states, each request building its world (decoding,
the fake API server, ``scheduler.New``, the informers, feeding the objects). Now the lockstep
asks the pods of one state in one request (``Subject.explain_many``, serve's ``"pods"``), and
serve explains them one after another in one world, each with a framework of its own
(upstream/explain_batch.go); the world is kept for the next pod only while the scheduler's
``nextStartNodeIndex`` is 0 again (the one thing an explanation changes) and it has settled,
else rebuilt (8 times in the 615). Small 60: 336 requests -> 171 (69 simulate, 102 explain
for 267 pods); the full set: 758 -> 326. The same answers: every ``ScenarioDiff`` of the full
set byte-identical, and every upstream answer (677 distinct requests, per pod) too; replayed
on the older releases, batch against one request per pod: v1.36.3 identical, v1.35.4 up to
the order of NodeResourcesFit's reasons, v1.34.4 also up to the selected node among tied
candidates (both vary from run to run of the same request before the change as well).
``--no-profile --scenarios 60 --seed 1``, five alternate runs (load average 7 to 8.5, other
work on the 2 cores): before 6.2, 6.8, 6.4, 8.0, 7.0 scenarios/s (mean 6.9), after 4.8, 7.8,
9.6, 10.0, 8.0 (mean 8.0; run by run 0.77, 1.15, 1.50, 1.25, 1.14); the Go processes' CPU
4.1 to 4.9 s -> 2.6 to 3.2 s (a third less), Python's the same (4.6 to 5.7 s). A second set
(load average 5.8 to 8): before 8.4, 8.0, 9.0, 8.1, 6.6 (mean 8.0), after 7.9, 7.5, 9.5, 7.5,
7.4 (mean 8.0), Go CPU 3.7 to 4.3 s -> 2.5 to 2.8 s: under such load the Python process's
share of the CPU sets the rate. Under load average 0.4 to 4, single runs: 7.7 and 9.9 before,
13.2 and 12.8 after. 20 per second is not reached. Python's CPU (``time.thread_time`` per
call, one run after): 4.3 s, of which imports 1.4 s, the run's thread (Hypothesis drawing the
scenarios) about 1.8 s, the comparer threads 1.06 s (the reference's 267 lockstep
explanations 0.57 s, its 60 runs 0.27 s, the upstream protocol's JSON 0.12 s, comparing the
explanations 0.11 s); the Go side replayed serially (171 requests): 2.3 s wall, 1.7 s CPU.
What is left is generation, then the Go simulate and explain worlds (one per request).

Fifth pass (issue 17). Where the CPU goes now (``--seed 1``, small 60, unprofiled: thread CPU
per thread, the Go children's by ``getrusage``, load average 3.5 to 5): the Python run 1.9 to
2.0 s (the run's thread, Hypothesis drawing, about 1.0 s; the comparer threads 0.82 to 0.88 s:
the reference's lockstep explanations 0.41 s, of which loading the states 0.18 s, its 60 runs
0.21 s, comparing 0.1 s; the upstream protocol's JSON 0.1 s), the Go processes 2.0 s (149
requests: 71 simulate, 78 explain; about 10 ms of CPU each, 3.5 ms for an empty cluster's
world), imports 0.8 to 1.1 s. On 2 cores both halves bound the run, so only less CPU raises the
rate: a wait that overlaps other threads' work does not (Hypothesis' ``seed_all`` waited 0.25 s
of the run's thread in numpy's ``get_state``, 7 ms of CPU; leaving numpy's random state out
of it changed nothing: 15.9, 15.2, 15.2, 15.7 scenarios/s with, 16.4, 14.9, 15.2, 17.8
without). Changed: the reference explains the pods of one lockstep state on one load
(``ReferenceSubject.explain_many``; ``calls.explain_pods`` asks each pod alone after a crash of
the reference, so that the crash stays its pod's answer): 310 -> 138 loads, the comparer
threads' CPU 0.82, 0.83, 0.88, 0.84 s -> 0.71, 0.69, 0.73, 0.74 s and the Python run's 1.94,
1.99, 2.01, 2.02 s -> 1.84, 1.86, 1.90, 1.83 s (four alternate runs of main's code and of
this one). The same ScenarioDiffs (``--seed 1 --sizes small=60,medium=15,dra=20,
storage=10``, with and without 7 planted bugs: 840 byte-identical but medium-0006, where
upstream breaks a preemption tie at random and two runs of main's code differ as well), and the
same RunReport and JUnit of ``diff --sizes small=60 --seed 1`` but for the timings. The rate
(``--no-profile``, five alternate runs in one session, load average 3.7 to 4.7): before 16.0,
16.0, 15.1, 18.1, 16.3 scenarios/s (mean 16.3), after 16.6, 18.8, 16.1, 16.2, 16.4 (mean 16.8:
1.03 times; run by run 1.04, 1.18, 1.07, 0.90, 1.01); user + system CPU of the whole process
(imports and Go included) 5.0 to 5.5 s on both sides: the 0.1 s saved is under the noise. The
profile (top own time, both threads) before: lock ``acquire`` 3.07 s, ``_draw`` 0.66 s,
``seed_all`` 0.40 s, ``same`` 0.30 s, ``draw`` 0.28 s; phases generation 39.5 %, reference
30.8 %, waits 20.8 %, comparison 7.9 %; after: ``acquire`` 3.34 s, ``_draw`` 0.50 s, ``draw``
0.39 s, ``seed_all`` 0.39 s, ``same`` 0.22 s; generation 40.5 %, reference 30.4 %, waits
21.4 %, comparison 6.3 % (an earlier pair, load average 4 to 6: the reference 7.31 -> 5.43 s).
Tried and left out, no difference measured: a cache of the objects serve decoded (keyed on
the document's JSON; decodeTyped 0.32 -> 0.20 s in a pprof of the 149 requests replayed
serially, the Go processes' CPU in the run 2.04, 1.99, 2.05, 2.05 s with main's binary, 2.00,
1.99, 2.05, 2.04 s with it), ``sys.setswitchinterval`` 1 and 0.5 ms, higher ``gc`` thresholds,
``--upstream-workers 2``; GOMAXPROCS 1 made the replay 2.5 times slower (serve's nanosleep
pauses holding the only P, likely). 20 scenarios per second is reached on a quiet machine
(20.5 to 24 at load average 0.3 to 2.9, main's code too) and not under load, where the CPU
share sets the rate; what is left is CPU: Hypothesis (1 s per 60), upstream's world per request
and framework per explained pod, the reference's own explanations and runs.

Sixth pass (issue 17): the Go side. pprof (``KSCHEDCONF_UPSTREAM_CPUPROFILE``, the 149 requests
of ``--seed 1`` small 60 captured by a wrapper of the binary and replayed serially three times
over): frameworks (``NewFramework``: scheduler.New's profiles and explain's framework per pod,
``expandMultiPointPlugins`` alone 3 to 5 %) 11 %, the informers (lists, watches, listeners) 15
%, decoding (``decodeTyped``) 6 %, ``loadConfig`` 2 %, settle's metrics (``collect``) 8 %,
goroutine stack growth 6 %, the fake watchers' buffers 2 to 5 %; an empty world (a one-node
simulate) costs 4.0 ms of CPU, of which scheduler.New 19 to 28 %, the informers' start 12 %,
stack growth 10 %, the watch buffers (1024 events of slack each, a score of watches) 6 to 9 %.
Changed (upstream/): the watch buffer's slack 128 (``watchChanSlack``; four per object kept);
settle's ``quiet`` collects the event-handling histogram once per check for the pod/node, DRA
and storage counts (three collections before in DRA and storage worlds) and only after the cheap
checks; decoded objects and scheduler configurations memoized by their JSON (a deep copy per
use). Allocation (``runtime.MemStats``, deterministic) for the 149 requests: 578 -> 473 MB, 4.42
-> 4.18 M objects (the slack -99 MB, the memo -0.2 M objects); for the 323 requests of ``--sizes
small=60,medium=15,dra=20,storage=10``: 2330 -> 1810 MB, 29.5 -> 21.9 M objects (the single
collection -7.5 M objects, the slack -210 MB). CPU of the serial replay (alternate runs, load
average 3 to 6, noisy): 149 requests 1.61 -> 1.47 s (5 runs each), the 323 5.71 -> 5.08 s (3
runs each); an empty world 4.0 -> 3.55 ms. Every upstream answer of the 323 requests
byte-identical but medium-0006's random preemption tie (two runs of main's binary differ there
too), the same RunReport of that diff but medium-0006's tie details. ``--no-profile --scenarios
60 --seed 1``, five alternate runs (load average 3.2 to 4.7): the serve processes' CPU 2.30,
2.17, 2.01, 2.13, 2.19 s before (mean 2.16), 1.96, 2.03, 1.97, 2.04, 2.04 after (mean 2.01: 7 %
less); the rate 14.8, 15.2, 17.7, 14.6, 16.4 scenarios/s before (mean 15.7), 16.0, 14.7, 16.9,
15.4, 15.2 after (mean 15.6); a second set, four each (load average 6.4 to 7.5): CPU 2.31, 2.44,
2.78, 2.82 s (mean 2.59) -> 2.29, 2.48, 2.60, 2.40 (mean 2.44), rate 13.2, 13.5, 11.9, 10.4
(mean 12.3) -> 13.6, 11.5, 11.6, 13.0 (mean 12.4): 0.15 s of CPU in about 5.3 does not show
under that noise. Tried, no difference measured: skipping the preemption counter's collection
when no preemption started; GODEBUG adaptivestackstart (already Go 1.26's default). Not done: a
world kept per serve process. What could be kept without sharing a scheduler's state (the fake
API server and the informers, a new scheduler per request) is at most 0.7 ms of a request's 9 to
10 ms (the informers' start and lists, their goroutines' stacks), less the reset (deleting the
previous request's objects through the informers, removing the handlers of the previous
scheduler's plugins, which only a wrapped factory would see): about 5 % of the Go CPU for a
world that gets its first objects by watch instead of the initial list. Keeping the scheduler
too (scheduler.New about 0.8 ms) needs its state reset to a fresh one's, which upstream's API
does not offer: the queue's cycle counters, unschedulable and backoff pods, nominations, the
cache's assumed pods and node tree, ``nextStartNodeIndex``, plugin state (DynamicResources'
in-flight claims, the assume caches, OpportunisticBatching). Explaining every lockstep state of
a scenario in one world advanced by deltas needs the lockstep engine to send them, and a state
reached so differs from a fresh one in node-tree order and the order of a node's pods. What is
left on the Go side: the world and scheduler per request, a framework per explained pod.
"""
#: (phase, path fragments of the modules whose time is the phase's), first match wins
PHASES = (
    ("generation", ("/strategies/", "/conformance/generation", "/hypothesis/")),
    ("reference", ("/reference_impl/",)),
    (
        "upstream subject",
        ("/conformance/subjects/", "/subprocess.py", "/selectors.py", "/threading.py", "/queue.py"),
    ),
    ("comparison", ("/conformance/engines/diff/",)),
    ("serialization", ("/yaml/", "/json/", "_yaml")),
)
#: built-in functions (no module) whose time is waiting on the upstream subject
WAITS = ("read", "readline", "poll", "select", "acquire", "wait", "recv")


def phase_of(filename: str, funcname: str) -> str:
    """The phase of a profile entry: by module path, built-in waits to the upstream subject."""
    if filename == "~":
        if any(w in funcname for w in WAITS):
            return "upstream subject"
        if "yaml" in funcname or "json" in funcname:
            return "serialization"
        return "other"
    for phase, frags in PHASES:
        if any(f in filename for f in frags):
            return phase
    return "other"


Func = tuple[str, int, str]


def attribute(rows: dict[Func, tuple]) -> dict[Func, str]:
    """Each profiled function's phase: its own (:func:`phase_of`) or, for one of no phase, its
    dominant caller's."""
    memo: dict[Func, str] = {}

    def phase(func: Func, depth: int) -> str:
        if func in memo:
            return memo[func]
        p = phase_of(func[0], func[2])
        memo[func] = p  # also the guard against recursion cycles
        callers = rows[func][4] if func in rows else {}
        if p == "other" and callers and depth < 100:
            top = max(callers.items(), key=lambda kv: kv[1][3])[0]
            p = memo[func] = phase(top, depth + 1)
        return p

    return {func: phase(func, 0) for func in rows}


def profile_comparers(profs: dict[int, cProfile.Profile]) -> None:
    """Profile the comparer threads too (``DiffRun.generated`` compares scenarios there while
    this thread draws the next): ``compare_task`` run under a profiler of each thread's own
    (a profiler follows one thread's calls), kept in ``profs`` by thread."""
    task = diff_run.compare_task
    lock = threading.Lock()

    def profiled(run: diff_run.DiffRun, item: tuple) -> diff_run.Compared:
        with lock:
            prof = profs.setdefault(threading.get_ident(), cProfile.Profile())
        prof.enable()
        try:
            return task(run, item)
        finally:
            prof.disable()

    diff_run.compare_task = profiled  # type: ignore[assignment]


def cpu_seconds(who: int) -> float:
    """User + system CPU of this process (``RUSAGE_SELF``) or of its ended children
    (``RUSAGE_CHILDREN``: the serve processes, stopped when the run ends)."""
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--scenarios", type=int, default=100)
    ap.add_argument("--sizes", default="small", help="comma-separated sizes (diff --sizes)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--upstream-workers", type=int, default=4)
    ap.add_argument("--no-profile", action="store_true", help="time only, no cProfile")
    ap.add_argument("--top", type=int, default=12, help="functions listed by own time")
    ap.add_argument(
        "--notes",
        action="store_true",
        help="print the phases and the notes of the measurements, and exit",
    )
    args = ap.parse_args()
    if args.notes:
        print(NOTES)
        return 0
    prof = None if args.no_profile else cProfile.Profile()
    comparers: dict[int, cProfile.Profile] = {}
    if prof is not None:
        profile_comparers(comparers)
    with tempfile.TemporaryDirectory() as out:
        opts = DiffOptions(
            scenarios=args.scenarios,
            sizes=args.sizes.split(","),
            seed=args.seed,
            out=out,
            shrink=False,
            upstream_workers=args.upstream_workers,
        )
        other = SubjectSpec("upstream", upstream_workers=args.upstream_workers)
        t0 = time.perf_counter()
        if prof is not None:
            prof.enable()
        report = run_diff(opts, EventBus(), other)
        if prof is not None:
            prof.disable()
        wall = time.perf_counter() - t0
    compared = len(report.results)
    print(
        f"kschedconf diff vs the upstream subject ({UPSTREAM_RELEASE}); {platform.machine()} "
        f"{os.cpu_count()} cpus, Python {platform.python_version()}; seed {args.seed}, sizes "
        f"{args.sizes}, --upstream-workers {args.upstream_workers}"
        f"{'' if prof else ', no profile'}"
    )
    if report.error:
        print(f"error: {report.error}")
    print(
        f"scenarios compared: {compared} in {wall:.1f}s: {compared / wall:.1f} scenarios/s "
        f"(divergences unexplained: {report.unexplained})"
    )
    own, children = cpu_seconds(resource.RUSAGE_SELF), cpu_seconds(resource.RUSAGE_CHILDREN)
    print(
        f"CPU (user + system): this process {own:.2f}s (imports included), the upstream "
        f"serve processes {children:.2f}s"
    )
    if prof is None:
        return 0 if not report.error else 1
    stats = pstats.Stats(prof)
    for comparer in comparers.values():
        if comparer.getstats():
            stats.add(comparer)
    phases: dict[str, float] = {}
    rows = stats.stats  # type: ignore[attr-defined]
    phase_by_func = attribute(rows)
    for func, (_cc, _nc, tt, _ct, _callers) in rows.items():
        phase = phase_by_func[func]
        phases[phase] = phases.get(phase, 0.0) + tt
    total = sum(phases.values()) or 1.0
    print(f"\nwhere the (profiled) time goes, own time by phase, {total:.1f}s in all:")
    for phase, t in sorted(phases.items(), key=lambda kv: -kv[1]):
        print(f"  {phase:18} {t:8.2f}s {100 * t / total:5.1f}%")
    print(f"\ntop {args.top} functions by own time:")
    top = sorted(rows.items(), key=lambda kv: -kv[1][2])[: args.top]
    for (filename, line, func), (_cc, nc, tt, _ct, _callers) in top:
        where = filename.replace(REPO + "/", "") if filename != "~" else "built-in"
        print(
            f"  {tt:8.2f}s {nc:9d} calls  {func} ({where}:{line}) "
            f"[{phase_by_func[(filename, line, func)]}]"
        )
    return 0 if not report.error else 1


if __name__ == "__main__":
    sys.exit(main())
