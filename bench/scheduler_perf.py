"""Throughput and peak memory of the reference scheduler on upstream scheduler_perf's
workloads, side by side with the upstream subject (the real kube-scheduler in process).

Restates, with their parameters, workloads of upstream's
``test/integration/scheduler_perf`` (misc, affinity, topology_spreading and default_preemption
performance-config.yaml and templates/node-default.yaml, pod-default.yaml,
pod-with-pod-anti-affinity.yaml, pod-with-topology-spreading.yaml, pod-low-priority.yaml,
default_preemption/templates/pod-high-priority.yaml; k8s.io/kubernetes@v1.37.2): nodes of 4
cpu, 32Gi, 110 pods; pods requesting 100m cpu and 500Mi. As upstream does, the init pods are
scheduled first (not measured), then the measured pods. Nodes carry a ``kubernetes.io/hostname``
label like kubelet-registered nodes. PreemptionAsync (see :func:`preemption_async_docs`) creates
its measured pods and its high-priority preemptors (5/s) on the virtual clock through a Scenario
timeline.

Each reference workload runs in a child process (this script with ``--child``), so the peak RSS
printed (``ru_maxrss`` from ``os.wait4``, spawned by a small launcher: see ``run_child``) is
that workload's own; the upstream subject's is its process's, likewise. The manifests are
written with ``reference_impl.testing.wrappers`` before any clock starts; loading (building
the objects from the manifests) is timed apart from scheduling. Run:

    python3 bench/scheduler_perf.py            # every workload, the reference alone
    python3 bench/scheduler_perf.py --only SchedulingBasic/500Nodes
    python3 bench/scheduler_perf.py --upstream [--only ...]   # side by side with the upstream
        # subject (upstream/bin/kschedconf-upstream, built by upstream/build.sh) at
        # --parallelism 1 (the harness's) and 16 (kube-scheduler's default), with the ratios

Notes (issue 17, preemption; 2 cores shared with other work, load average 4 to 9: compare CPU
seconds of ``run_simulation`` and ratios). The fast paths for resource-only pods
(docs/reference.md#fast-paths-for-resource-only-pods): the dry run without NodeInfo copies or
state clones, each node's answer kept across dry runs while its inputs are unchanged,
NodeResourcesFit's statuses of the nodes the Filter search rejects from the node columns.
Bindings byte-identical before and after (PreemptionBasic/500Nodes, PreemptionAsync/500Nodes and
5000Nodes).

    workload                     CPU s before -> after    pods/s before -> after
    PreemptionBasic/500Nodes     7.0-7.7 -> 2.3-2.6       65-71 -> 189-214
    PreemptionBasic/5000Nodes    106-119 -> 47-54         8.4-9.4 -> 18.5-21.5
    PreemptionAsync/5000Nodes    10.3 -> 8.6              485 -> 582
    side by side (wall, --upstream): PreemptionBasic/500Nodes 155.8 pods/s, upstream 33.3 at
    parallelism 1 (4.7x), 32.4 at 16; PreemptionAsync/500Nodes 571, 249 (2.3x), 267. Same
    bindings False before and after: upstream draws the dry run's random offset from Go's
    source (see the note the side-by-side table prints).

Where the time went before (cProfile, PreemptionBasic/500Nodes, 61 s under the profiler): the
dry run 31 s (SelectVictimsOnNode 24 s: RunFilterPluginsWithNominatedPods 5 times per candidate
node, NodeInfo.snapshot_copy and CycleState.clone per node and per nominated node, the victims
built twice), the Filter search's per-node filters on the nodes it rejects 18 s; own time:
run_filter_plugins 3.6, Fit.filter 3.3, NodeInfo._update 2.9, fits_request 2.7,
CycleState.clone 1.8, select_victims_on_node 1.7, Status.is_rejected 1.7, NodeInfo.remove_pod
1.6, snapshot_copy 1.5. After (6.6 s under the profiler): the dry run 1.75 s, the search 1.5 s;
own time: FitRows.status 0.53, the fast select 0.53, search_feasible 0.40, column_runner 0.27,
Status.all_reasons 0.26, fast_dry_run 0.25.

Second round (compact statuses: the search's rejected nodes kept as a code and a reason bit set
per node, framework/node_to_status.py; the nominator's lists read without copies; candidates
counted and picked with less per-node work). CPU s of run_simulation in one run, outputs
identical (attempts, messages, reasons, bindings): PreemptionBasic/500Nodes 5.27 (before the
fast paths, f8274d5^) -> 1.86 (first round) -> 0.73 (7.2x); main 1.7-2.3 -> 0.63-0.79 over
several runs. PreemptionBasic/5000Nodes 42.6 -> 5.1 (8.3x on the first round). Left (cProfile):
the dry run's cached per-node answers (numCandidates, 10 % of the nodes and at least 100,
candidates plus the nominated nodes before them: ~260 lookups per dry run at 500 nodes) 37 %,
the nominated pods' sums for the column statuses (every nominated pod per attempt) 9 %.

Third round (the nominated pods' sums and the rows with nominated pods kept across attempts
from the nominator's change log, resource_only.NominatedSums; the dry run's answers from one
generator, fast_victims.FastSelect.scan, no call per node; the default pick's criteria as list
comprehensions). CPU s of run_simulation, best of 5 in one process, main -> this, outputs
identical (attempts, bindings, pending, deleted; the same hash as before the fast paths):
PreemptionBasic/500Nodes 0.80 -> 0.64 (0.75 to 0.84 of main over four sessions; before the
fast paths, f8274d5^, 6.15 in one of them: 8.9x, 7.5x for main), PreemptionBasic/5000Nodes
5.38 -> 4.45 (0.83), PreemptionAsync/500Nodes 0.34 -> 0.34 (few preemptions). Left
(cProfile, 500Nodes): the dry run's per-node cache checks (scan, ~130k nodes in the run: the
node-only mask row, the nominated pods, the cached answer's keys) about 35 %; the default
pick's start times about 4 %.

Whole workloads against the upstream subject (issue 17: at least 3x at parallelism 1). The
heap's top from the positions of the maximum total in one pass (select_host.heap_top's walk
order, no NumPy level by level), the vectorised Score's totals kept as one array (no ScoredNode
per feasible node; the tie set from the array), assume's pod copy field by field (not
dataclasses.replace), Fraction-free milli rounding, quantity signs and non-zero requests in
loading; the plugin modules imported before the clock (PYTHONDONTWRITEBYTECODE made each
child compile them inside it). CPU s of loading + run_simulation, least of three alternated
runs, before (98ad506) -> after, outputs identical (hash of attempts, bindings, pending,
deleted): SchedulingBasic/500Nodes 1.43 -> 1.11, SchedulingPodAntiAffinity/500Nodes 0.71 ->
0.56, TopologySpreading/500Nodes 1.86 -> 1.42, PreemptionAsync/500Nodes 0.81 -> 0.66. One
--upstream run (wall ratio ref/up1, then CPU ratio): SchedulingBasic/500Nodes 5.17 (4.58),
SchedulingPodAntiAffinity/500Nodes 4.52 (4.61), TopologySpreading/500Nodes 5.42 (5.60),
PreemptionBasic/500Nodes 24.2 (22.1), PreemptionAsync/500Nodes 4.17 (4.17); at c7f1ae4
(load 3.5): 5.41 (4.85), 4.65 (4.52), 5.47 (4.85), PreemptionAsync 3.68 (3.48); an earlier run
under heavier load gave 4.56, 4.02, 7.66 and 2.85 (CPU 2.96) for PreemptionAsync: wall ratios
move with the machine's load, the CPU column less. PreemptionAsync stays the closest to 3.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference_impl.model.loader import load_documents  # noqa: E402
from reference_impl.model.scenario import Scenario, parse_scenario  # noqa: E402
from reference_impl.plugins.registry import in_tree_registry  # noqa: E402
from reference_impl.releases.pinned import UPSTREAM_RELEASE  # noqa: E402
from reference_impl.scheduler.scheduler import Scheduler  # noqa: E402
from reference_impl.scheduler.simulation import run_simulation  # noqa: E402
from reference_impl.testing.wrappers import (  # noqa: E402
    HOSTNAME,
    ZONE,
    PodWrapper,
    container_port,
    label_selector,
    make_container,
    make_namespace,
    make_node,
    make_pod,
    pod_affinity_term,
)

ZONES = ("moon-1", "moon-2", "moon-3")


def node(i: int, zone: str | None = None) -> dict:
    """templates/node-default.yaml: 4 cpu, 32Gi, 110 pods (and the hostname label)."""
    n = make_node(f"scheduler-perf-{i}").hostname()
    if zone:
        n.zone(zone)
    return n.spec().capacity(pods="110", cpu="4", memory="32Gi").manifest()


def _pause(name: str, ns: str, t: int, cpu: str = "100m", port: bool = True) -> PodWrapper:
    """templates/pod-default.yaml: one pause container, ``cpu`` and 500Mi as requests and
    limits, container port 80."""
    c = make_container("pause").image("registry.k8s.io/pause:3.10.2")
    if port:
        c.ports([container_port(80)])
    return make_pod(name).namespace(ns).creation_timestamp(_ts(t)).container(
        c.resources(cpu=cpu, memory="500Mi"))


def pod_default(name: str, ns: str, t: int) -> dict:
    return _pause(name, ns, t).manifest()


def pod_anti_affinity(name: str, ns: str, t: int) -> dict:
    green = label_selector({"color": "green"})
    return _pause(name, ns, t).label("color", "green").pod_affinity_term(
        pod_affinity_term(HOSTNAME, green, namespaces=["sched-1", "sched-0"]), anti=True) \
        .manifest()


def pod_spreading(name: str, ns: str, t: int) -> dict:
    return _pause(name, ns, t).label("color", "blue").spread_constraint(
        5, ZONE, "DoNotSchedule", label_selector({"color": "blue"})).manifest()


def pod_low_priority(name: str, ns: str, t: int) -> dict:
    """templates/pod-low-priority.yaml: 900m cpu, 500Mi."""
    return _pause(name, ns, t, cpu="900m").manifest()


def pod_high_priority(name: str, ns: str, t: int) -> dict:
    """default_preemption/templates/pod-high-priority.yaml: priority 9999999, 3970m cpu."""
    return _pause(name, ns, t, cpu="3970m", port=False).priority(9999999).manifest()


def _ts(t: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_700_000_000 + t))


@dataclass
class Workload:
    name: str
    nodes: int
    init_pods: int
    measure_pods: int
    init_template: Callable[[str, str, int], dict]
    measure_template: Callable[[str, str, int], dict]
    zones: bool = False
    preemption: bool = False  # measured through the scheduling queue (preempt, then bind)
    init_ns: str = "default"
    measure_ns: str = "default"
    floor: int | None = None  # upstream's CI threshold (pods/s on its 6-core runners)
    churn_ms: int | None = None  # PreemptionAsync: a preemptor created every churn_ms
    churn_rate: int = 570  # PreemptionAsync: the churn lasts measure_pods / churn_rate seconds


WORKLOADS = [
    Workload("SchedulingBasic/500Nodes", 500, 500, 1000, pod_default, pod_default),
    Workload("SchedulingBasic/5000Nodes", 5000, 1000, 1000, pod_default, pod_default, floor=680),
    Workload("SchedulingPodAntiAffinity/500Nodes", 500, 100, 400, pod_anti_affinity,
             pod_anti_affinity, init_ns="sched-0", measure_ns="sched-1"),
    Workload("SchedulingPodAntiAffinity/5000Nodes", 5000, 1000, 1000, pod_anti_affinity,
             pod_anti_affinity, init_ns="sched-0", measure_ns="sched-1", floor=180),
    Workload("TopologySpreading/500Nodes", 500, 1000, 1000, pod_default, pod_spreading,
             zones=True),
    Workload("TopologySpreading/5000Nodes", 5000, 5000, 2000, pod_default, pod_spreading,
             zones=True, floor=460),
    Workload("PreemptionBasic/500Nodes", 500, 2000, 500, pod_low_priority, pod_high_priority,
             preemption=True),
    Workload("PreemptionBasic/5000Nodes", 5000, 20000, 1000, pod_low_priority,
             pod_high_priority, preemption=True),
    Workload("PreemptionAsync/500Nodes", 500, 2000, 500, pod_low_priority, pod_default,
             preemption=True, churn_ms=200),
    Workload("PreemptionAsync/5000Nodes", 5000, 20000, 5000, pod_low_priority, pod_default,
             preemption=True, floor=570, churn_ms=200),
]
SCENARIO_API_VERSION = "kschedconf/v1"


def preemption_async_docs(w: Workload) -> list[dict]:
    """default_preemption/performance-config.yaml PreemptionAsync: 4 low-priority pods (900m)
    per node (placed directly, the state upstream's init phase reaches), then a ``churn`` op
    (mode create, templates/pod-high-priority.yaml, intervalMilliseconds 200) running while the
    measured pods (../templates/pod-default.yaml, 100m, always schedulable) are created. Each
    preemptor (3970m) must evict all 4 pods of a node.

    The reference has a virtual clock on which scheduling takes no time, so the churn's length
    is upstream's: the time its CI floor (``w.churn_rate``: 570 pods/s, the 5000Nodes variants'
    threshold) takes for the measured pods (5000: 8.8s, 44 preemptors).
    On that span, one preemptor every ``churn_ms`` (at 0, first) and the measured pods spread
    evenly over the same ticks, as a Scenario timeline (createPod events) that the reference's
    simulation and the upstream subject both play."""
    assert w.churn_ms
    docs = _preplaced(w)
    ticks = churn_ticks(w)
    per_tick = math.ceil(w.measure_pods / ticks)
    events: list[dict] = []
    made = 0
    for k in range(ticks):
        at = f"{k * w.churn_ms}ms"
        events.append({"at": at, "action": "createPod",
                       "pod": pod_high_priority(f"pod-high-priority-{k}", w.measure_ns, 1)})
        for _ in range(min(per_tick, w.measure_pods - made)):
            events.append({"at": at, "action": "createPod",
                           "pod": w.measure_template(f"measure-{made}", w.measure_ns, 1)})
            made += 1
    docs.append({"apiVersion": SCENARIO_API_VERSION, "kind": "Scenario",
                 "metadata": {"name": w.name}, "spec": {"events": events}})
    return docs


def _preplaced(w: Workload) -> list[dict]:
    """The nodes and the init pods bound to them directly, ``init_pods / nodes`` per node."""
    docs = [node(i) for i in range(w.nodes)]
    for i in range(w.init_pods):
        d = w.init_template(f"init-{i}", w.init_ns, 0)
        d["spec"]["nodeName"] = f"scheduler-perf-{i % w.nodes}"
        docs.append(d)
    return docs


def run_preemption(w: Workload) -> dict:
    """default_preemption/performance-config.yaml PreemptionBasic (and PreemptionAsync): nodes
    filled with low-priority pods, then high-priority pods that must each preempt. The init
    pods are placed directly (4 per node, the state upstream's scheduler reaches); the measured
    pods go through the scheduling queue on the virtual clock: a preempting attempt, then the
    binding one."""
    t0 = time.perf_counter()
    scheduler, scenario = _load(w, workload_documents(w))
    load_s = time.perf_counter() - t0
    t2 = time.perf_counter()
    result = run_simulation(scheduler, scenario)
    measure_s = time.perf_counter() - t2
    bound = sum(1 for k in result.bindings if "/measure-" in k)
    return {"workload": w.name, "load_s": load_s, "init_s": 0.0, "measure_s": measure_s,
            "pods_per_s": w.measure_pods / measure_s, "bound": bound,
            "measured": w.measure_pods, "floor": w.floor}


def _load(w: Workload, docs: list[dict]) -> tuple[Scheduler, Scenario | None]:
    loaded = load_documents(docs, source=w.name)
    scenario = (parse_scenario(loaded.scenario, loaded.cluster, source=w.name)
                if loaded.scenario else None)
    return Scheduler(loaded.cluster, seed=0), scenario


def run(w: Workload) -> dict:
    if w.preemption:
        return run_preemption(w)
    docs = workload_documents(w)
    t0 = time.perf_counter()
    cluster = load_documents(docs, source=w.name).cluster
    scheduler = Scheduler(cluster, seed=0)
    queue = scheduler.queue_order([p for p in cluster.pods if not p.node_name])
    load_s = time.perf_counter() - t0
    init = [q for q in queue if q.pod.name.startswith("init-")]
    measure = [q for q in queue if q.pod.name.startswith("measure-")]
    t1 = time.perf_counter()
    for q in init:
        scheduler.schedule_one(q)
    init_s = time.perf_counter() - t1
    t2 = time.perf_counter()
    bound = 0
    for q in measure:
        if scheduler.schedule_one(q).outcome == "Bound":
            bound += 1
    measure_s = time.perf_counter() - t2
    return {"workload": w.name, "load_s": load_s, "init_s": init_s, "measure_s": measure_s,
            "pods_per_s": len(measure) / measure_s if measure_s else float("inf"),
            "bound": bound, "measured": len(measure), "floor": w.floor}


def workload_documents(w: Workload) -> list[dict]:
    if w.churn_ms:
        return preemption_async_docs(w)
    if w.preemption:
        return _preplaced(w) + [w.measure_template(f"measure-{i}", w.measure_ns, 1)
                                for i in range(w.measure_pods)]
    docs = [node(i, ZONES[i % 3] if w.zones else None) for i in range(w.nodes)]
    docs += [make_namespace(ns).manifest() for ns in sorted({w.init_ns, w.measure_ns})]
    docs += [w.init_template(f"init-{i}", w.init_ns, 0) for i in range(w.init_pods)]
    docs += [w.measure_template(f"measure-{i}", w.measure_ns, 1)
             for i in range(w.measure_pods)]
    return docs


def scheduled_pods(w: Workload) -> int:
    """The pods the side-by-side run schedules: the init pods unless placed directly, the
    measured pods, PreemptionAsync's preemptors."""
    pods = w.measure_pods + (0 if w.preemption else w.init_pods)
    return pods + churn_ticks(w)


def churn_ticks(w: Workload) -> int:
    """PreemptionAsync's preemptors: one every ``churn_ms`` while the measured pods are
    scheduled at ``churn_rate`` (0 for the other workloads)."""
    if not w.churn_ms:
        return 0
    return math.ceil(w.measure_pods / w.churn_rate * 1000 / w.churn_ms)


def reference_side(w: Workload, manifest: Path, bindings: Path) -> dict:
    """The child's half of the side by side: write the workload's manifests (for the upstream
    subject) and run the whole workload (init and measured pods) through the reference's
    simulation, timing loading plus scheduling (the upstream subject's wall time covers both);
    the bindings go to ``bindings``. The plugin modules, which the scheduler imports on first
    use, are imported before the clock starts, as this script's own imports are (with
    PYTHONDONTWRITEBYTECODE set each child compiles them from source)."""
    docs = workload_documents(w)
    manifest.write_text("\n---\n".join(json.dumps(d) for d in docs) + "\n")
    in_tree_registry()
    t0, c0 = time.perf_counter(), time.process_time()
    scheduler, scenario = _load(w, docs)
    del docs
    ref = run_simulation(scheduler, scenario)
    ref_s, ref_cpu = time.perf_counter() - t0, time.process_time() - c0
    bindings.write_text(json.dumps(ref.bindings))
    return {"seconds": ref_s, "cpu": ref_cpu}


#: Spawns the command in its argv[2:], reaps it with ``os.wait4`` and writes its peak RSS (KiB),
#: CPU and wall seconds to the file argv[1]. A child's ``ru_maxrss`` starts from its parent's
#: high-water RSS at the spawn (Linux ``exec_mmap`` keeps the replaced memory's peak in the
#: process's ``maxrss``), so this small, fresh process spawns it rather than this script, whose
#: peak grows with every result it reads (a 5000-node upstream result is hundreds of MB).
_LAUNCHER = """import os, sys, time
t0 = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - t0
with open(sys.argv[1], "w") as f:
    f.write(f"{usage.ru_maxrss} {usage.ru_utime + usage.ru_stime} {seconds}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_child(args: list[str], ok: tuple[int, ...] = (0,)) -> tuple[dict, int, float, float]:
    """Run ``args`` as a child process: its stdout's last line as JSON (or {}), its own peak
    RSS in bytes (``ru_maxrss``, KiB on Linux; spawned by ``_LAUNCHER`` so that this script's
    peak is not counted in), its wall time and its CPU time (user + system). An exit code not
    in ``ok`` is an error."""
    import tempfile

    with tempfile.TemporaryFile("w+") as out_f, tempfile.TemporaryFile("w+") as err_f, \
            tempfile.NamedTemporaryFile("r") as usage_f:
        proc = subprocess.run([sys.executable, "-S", "-c", _LAUNCHER, usage_f.name, *args],
                              stdout=out_f, stderr=err_f, text=True, check=False)
        code = proc.returncode
        maxrss_kib, cpu, seconds = usage_f.read().split()
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read()
    if code not in ok:
        raise RuntimeError(f"{args[0]} {args[1]} failed ({code}): {err[-800:]}")
    lines = out.strip().splitlines()
    doc = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    return doc, int(maxrss_kib) * 1024, float(seconds), float(cpu)


def run_side_by_side(w: Workload, upstream_bin: str, parallelisms: tuple[int, ...]) -> dict:
    """The whole workload, from the same manifests, through the reference (a child process)
    and through the upstream subject at each parallelism; wall time and peak RSS of each;
    pods/s counts every pod scheduled. Same bindings: the reference's against the upstream's
    at the first parallelism (1: the harness's subject)."""
    import tempfile

    pods = scheduled_pods(w)
    with tempfile.TemporaryDirectory() as tmp:
        manifest, refb = Path(tmp) / "workload.yaml", Path(tmp) / "ref.json"
        ref, ref_rss, _, _ = run_child([sys.executable, __file__, "--child", "side", w.name,
                                     str(manifest), str(refb)])
        r = {"workload": w.name, "ref_pods_s": pods / ref["seconds"], "ref_rss": ref_rss,
             "ref_cpu": ref["cpu"], "up": []}
        for i, par in enumerate(parallelisms):
            out = Path(tmp) / f"up-{par}.json"
            _, rss, up_s, up_cpu = run_child([upstream_bin, "simulate", str(manifest), "--output",
                                      str(out), "--timeout", "3600s", "--parallelism",
                                      str(par)], ok=(0, 1))
            if i == 0:
                up_bindings = json.loads(out.read_text())["bindings"]
                r["same_bindings"] = up_bindings == json.loads(refb.read_text())
            r["up"].append({"parallelism": par, "pods_s": pods / up_s, "rss": rss,
                            "cpu": up_cpu})
    return r


def _gib(b: int) -> str:
    return f"{b / 2**30:.2f}G"


def child(args: list[str]) -> int:
    """``--child table NAME`` / ``--child side NAME MANIFEST BINDINGS``: one workload's
    reference run, its figures as one JSON line."""
    kind, name = args[0], args[1]
    w = next(x for x in WORKLOADS if x.name == name)
    if kind == "table":
        r = run(w)
    else:
        r = reference_side(w, Path(args[2]), Path(args[3]))
    print(json.dumps(r))
    return 0


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", help="run only this workload (repeatable)")
    ap.add_argument("--upstream", metavar="BIN", nargs="?",
                    const="upstream/bin/kschedconf-upstream",
                    help="also run each workload through the upstream subject (default binary: "
                         "upstream/bin/kschedconf-upstream, built by upstream/build.sh) at "
                         "--parallelism 1 and 16 and print the throughputs, their ratios and "
                         "peak memory")
    ap.add_argument("--no-table", action="store_true",
                    help="with --upstream: skip the reference's load/init/measure table")
    args = ap.parse_args()
    selected = [w for w in WORKLOADS if not args.only or w.name in args.only]
    unknown = set(args.only or ()) - {w.name for w in WORKLOADS}
    if unknown:
        ap.error(f"unknown workload(s): {', '.join(sorted(unknown))}")
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=Path(__file__).parent, check=False).stdout.strip()
    except OSError:
        commit = "?"
    print(f"kschedconf reference scheduler, upstream {UPSTREAM_RELEASE}, commit {commit or '?'}")
    print(f"machine: {platform.machine()} {os.cpu_count()} cpus, {platform.system()} "
          f"{platform.release()}; Python {platform.python_version()}")
    if not (args.upstream and args.no_table):
        print(f"{'workload':40} {'load s':>8} {'init s':>8} {'measure s':>10} {'pods/s':>9}"
              f" {'bound':>11} {'upstream CI floor':>18} {'peak RSS':>9}")
        for w in selected:
            r, rss, _, _ = run_child([sys.executable, __file__, "--child", "table", w.name])
            floor = f"{r['floor']}" if r["floor"] else "-"
            print(f"{r['workload']:40} {r['load_s']:8.2f} {r['init_s']:8.2f} "
                  f"{r['measure_s']:10.2f} {r['pods_per_s']:9.1f} "
                  f"{r['bound']:>5}/{r['measured']:<5} {floor:>18} {_gib(rss):>9}", flush=True)
    if args.upstream:
        pars = (1, 16)
        print("\nside by side, whole workload (every pod, same manifests, wall time including "
              "loading; upstream subject at --parallelism 1 and 16; same bindings: reference vs "
              "upstream at 1;\n cpu ref/up1: the upstream subject's CPU seconds at 1 (its "
              "process's user + system) over the reference's (loading + scheduling), steadier "
              "than wall time on a shared machine):")
        print(f"{'workload':40} {'ref pods/s':>10} {'up1 pods/s':>10} {'up16 pods/s':>11} "
              f"{'ref/up1':>8} {'ref/up16':>9} {'same':>6} {'ref RSS':>8} {'up1 RSS':>8} "
              f"{'up16 RSS':>8} {'cpu ref/up1':>11}")
        for w in selected:
            r = run_side_by_side(w, args.upstream, pars)
            u1, u16 = r["up"]
            print(f"{r['workload']:40} {r['ref_pods_s']:10.1f} {u1['pods_s']:10.1f} "
                  f"{u16['pods_s']:11.1f} {r['ref_pods_s'] / u1['pods_s']:8.2f} "
                  f"{r['ref_pods_s'] / u16['pods_s']:9.2f} {str(r['same_bindings']):>6} "
                  f"{_gib(r['ref_rss']):>8} {_gib(u1['rss']):>8} {_gib(u16['rss']):>8} "
                  f"{u1['cpu'] / r['ref_cpu']:11.2f}", flush=True)
        if any(w.preemption for w in selected):
            print("(preemption: upstream's DefaultPreemption dry-runs a window of the nodes from a "
                  "random offset (rand.Int31n,\n pkg/scheduler/framework/plugins/defaultpreemption/"
                  "default_preemption.go, "
                  "GetOffsetAndNumCandidates): its victims, and so the bindings, may differ)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
