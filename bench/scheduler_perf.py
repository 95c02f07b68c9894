"""Throughput of the reference scheduler on upstream scheduler_perf's workloads.

Restates, with their parameters, workloads of upstream's
``test/integration/scheduler_perf`` (misc, affinity, topology_spreading performance-config.yaml
and templates/node-default.yaml, pod-default.yaml, pod-with-pod-anti-affinity.yaml,
pod-with-topology-spreading.yaml): nodes of 4 cpu, 32Gi, 110 pods; pods requesting 100m cpu and
500Mi. As upstream does, the init pods are scheduled first (not measured), then the measured pods.
Nodes carry a ``kubernetes.io/hostname`` label like kubelet-registered nodes.

The manifests are written with ``reference_impl.testing.wrappers`` before any clock starts;
loading (building the objects from the manifests) is timed apart from scheduling. Run:

    python3 bench/scheduler_perf.py            # every workload
    python3 bench/scheduler_perf.py --only SchedulingBasic/500Nodes
"""

from __future__ import annotations

import argparse
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
from reference_impl.releases.pinned import UPSTREAM_RELEASE  # noqa: E402
from reference_impl.scheduler.scheduler import Scheduler  # noqa: E402
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
]


def run_preemption(w: Workload) -> dict:
    """default_preemption/performance-config.yaml PreemptionBasic: nodes filled with
    low-priority pods, then high-priority pods that must each preempt. The init pods are placed
    directly (4 per node, the state upstream's scheduler reaches); the measured pods go through
    the scheduling queue on the virtual clock: a preempting attempt, then the binding one."""
    from reference_impl.scheduler.simulation import run_simulation

    docs = [node(i) for i in range(w.nodes)]
    for i in range(w.init_pods):
        d = w.init_template(f"init-{i}", w.init_ns, 0)
        d["spec"]["nodeName"] = f"scheduler-perf-{i % w.nodes}"
        docs.append(d)
    docs += [w.measure_template(f"measure-{i}", w.measure_ns, 1)
             for i in range(w.measure_pods)]
    t0 = time.perf_counter()
    cluster = load_documents(docs, source=w.name).cluster
    scheduler = Scheduler(cluster, seed=0)
    load_s = time.perf_counter() - t0
    t2 = time.perf_counter()
    result = run_simulation(scheduler)
    measure_s = time.perf_counter() - t2
    bound = sum(1 for k in result.bindings if "/measure-" in k)
    return {"workload": w.name, "load_s": load_s, "init_s": 0.0, "measure_s": measure_s,
            "pods_per_s": w.measure_pods / measure_s, "bound": bound,
            "measured": w.measure_pods, "floor": w.floor}


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
    docs = [node(i, ZONES[i % 3] if w.zones else None) for i in range(w.nodes)]
    docs += [make_namespace(ns).manifest() for ns in sorted({w.init_ns, w.measure_ns})]
    docs += [w.init_template(f"init-{i}", w.init_ns, 0) for i in range(w.init_pods)]
    docs += [w.measure_template(f"measure-{i}", w.measure_ns, 1)
             for i in range(w.measure_pods)]
    return docs


def run_side_by_side(w: Workload, upstream_bin: str) -> dict:
    """The whole workload (init and measured pods, from the same manifests) through the
    reference's simulation and through the upstream subject (the real kube-scheduler in
    process), wall time of each; pods/s counts every pod scheduled."""
    import json
    import tempfile

    import yaml

    from reference_impl.scheduler.simulation import run_simulation

    docs = workload_documents(w)
    pods = w.init_pods + w.measure_pods
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "workload.yaml"
        path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": docs}))
        t0 = time.perf_counter()
        ref = run_simulation(Scheduler(load_documents(docs, source=w.name).cluster, seed=0))
        ref_s = time.perf_counter() - t0
        out = Path(tmp) / "up.json"
        t1 = time.perf_counter()
        proc = subprocess.run([upstream_bin, "simulate", str(path), "--output", str(out),
                               "--timeout", "1800s"], capture_output=True, text=True,
                              check=False)
        up_s = time.perf_counter() - t1
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"upstream subject failed: {proc.stderr[-500:]}")
        up = json.loads(out.read_text())
    same = up["bindings"] == ref.bindings
    return {"workload": w.name, "ref_pods_s": pods / ref_s, "up_pods_s": pods / up_s,
            "ratio": (pods / ref_s) / (pods / up_s), "same_bindings": same}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", help="run only this workload (repeatable)")
    ap.add_argument("--upstream", metavar="BIN", nargs="?",
                    const="upstream/bin/kschedconf-upstream",
                    help="also run each workload through the upstream subject (default binary: "
                         "upstream/bin/kschedconf-upstream, built by upstream/build.sh) and print "
                         "both throughputs and their ratio")
    args = ap.parse_args()
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=Path(__file__).parent, check=False).stdout.strip()
    except OSError:
        commit = "?"
    print(f"kschedconf reference scheduler, upstream {UPSTREAM_RELEASE}, commit {commit or '?'}")
    print(f"machine: {platform.machine()} {os.cpu_count()} cpus, {platform.system()} "
          f"{platform.release()}; Python {platform.python_version()}")
    print(f"{'workload':40} {'load s':>8} {'init s':>8} {'measure s':>10} {'pods/s':>9}"
          f" {'bound':>11} {'upstream CI floor':>18}")
    for w in WORKLOADS:
        if args.only and w.name not in args.only:
            continue
        r = run(w)
        floor = f"{r['floor']}" if r["floor"] else "-"
        print(f"{r['workload']:40} {r['load_s']:8.2f} {r['init_s']:8.2f} {r['measure_s']:10.2f}"
              f" {r['pods_per_s']:9.1f} {r['bound']:>5}/{r['measured']:<5} {floor:>18}",
              flush=True)
    if args.upstream:
        print(f"\nside by side, whole workload (every pod, same manifests, wall time):\n"
              f"{'workload':40} {'reference pods/s':>17} {'upstream pods/s':>16} "
              f"{'ref/upstream':>13} {'same bindings':>14}")
        for w in WORKLOADS:
            if (args.only and w.name not in args.only) or w.preemption:
                continue
            r = run_side_by_side(w, args.upstream)
            print(f"{r['workload']:40} {r['ref_pods_s']:17.1f} {r['up_pods_s']:16.1f} "
                  f"{r['ratio']:13.2f} {str(r['same_bindings']):>14}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
