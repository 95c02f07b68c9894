"""Scale of the reference scheduler: a large cluster's load time, memory and throughput.

A cluster of 15000 nodes (scheduler_perf's templates/node-default.yaml: 4 cpu, 32Gi, 110
pods) with 30000 running pods (templates/pod-default.yaml, 2 per node, bound through
``spec.nodeName``) and 1000 pending pods (the same template) is loaded (the objects built from
the manifests and the scheduler's snapshot) and the pending pods are scheduled one after
another (``Scheduler.schedule_one`` in queue order). That is three times the largest cluster
of upstream's test/integration/scheduler_perf (5000 nodes, also the limit Kubernetes documents
in "Considerations for large clusters"): room above what real clusters reach.

The same cluster is also loaded at 1/4 and 1/2 of its size (nodes and running pods), each in
its own child process: load time per object staying flat shows that loading grows linearly.
Each size's peak RSS (``ru_maxrss`` of its child, from ``os.wait4``) is printed; the target is
under 2 GiB at full size. Run:

    python3 bench/scale.py                       # 15000 nodes, 30000 running, 1000 pending
    python3 bench/scale.py --nodes 2000 --pending 200   # smaller (running pods: 2 per node)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scheduler_perf import node, pod_default, run_child  # noqa: E402

from reference_impl.model.loader import load_documents  # noqa: E402
from reference_impl.releases.pinned import UPSTREAM_RELEASE  # noqa: E402
from reference_impl.scheduler.scheduler import Scheduler  # noqa: E402

RUNNING_PER_NODE = 2
TARGET_RSS = 2 * 2**30


def documents(nodes: int, pending: int) -> list[dict]:
    """``nodes`` nodes, ``RUNNING_PER_NODE`` running pods on each, ``pending`` pending pods."""
    docs = [node(i) for i in range(nodes)]
    for i in range(nodes * RUNNING_PER_NODE):
        d = pod_default(f"running-{i}", "default", 0)
        d["spec"]["nodeName"] = f"scheduler-perf-{i % nodes}"
        docs.append(d)
    docs += [pod_default(f"pending-{i}", "default", 1) for i in range(pending)]
    return docs


def measure(nodes: int, pending: int) -> dict:
    """Load the cluster (timed) and schedule its pending pods (timed)."""
    docs = documents(nodes, pending)
    objects = len(docs)
    t0 = time.perf_counter()
    cluster = load_documents(docs, source=f"scale-{nodes}").cluster
    scheduler = Scheduler(cluster, seed=0)
    queue = scheduler.queue_order([p for p in cluster.pods if not p.node_name])
    load_s = time.perf_counter() - t0
    del docs
    t1 = time.perf_counter()
    bound = sum(1 for q in queue if scheduler.schedule_one(q).outcome == "Bound")
    sched_s = time.perf_counter() - t1
    return {"nodes": nodes, "objects": objects, "load_s": load_s, "sched_s": sched_s,
            "pending": len(queue), "bound": bound}


def in_child(nodes: int, pending: int) -> tuple[dict, int]:
    """:func:`measure` in a child process: its figures and its peak RSS in bytes."""
    doc, rss, _, _ = run_child([sys.executable, __file__, "--child", str(nodes), str(pending)])
    return doc, rss


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(measure(int(sys.argv[2]), int(sys.argv[3]))))
        return 0
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=15000)
    ap.add_argument("--pending", type=int, default=1000)
    args = ap.parse_args()
    print(f"kschedconf reference scheduler (upstream {UPSTREAM_RELEASE}) at scale; "
          f"{platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}")
    print(f"{'nodes':>6} {'running':>8} {'pending':>8} {'objects':>8} {'load s':>8} "
          f"{'us/object':>10} {'pods/s':>8} {'bound':>11} {'peak RSS':>9}")
    worst = 0
    for n, pending in ((args.nodes // 4, 0), (args.nodes // 2, 0), (args.nodes, args.pending)):
        r, rss = in_child(n, pending)
        rate = f"{r['pending'] / r['sched_s']:8.1f}" if r["pending"] else f"{'-':>8}"
        print(f"{n:6d} {n * RUNNING_PER_NODE:8d} {pending:8d} {r['objects']:8d} "
              f"{r['load_s']:8.2f} {1e6 * r['load_s'] / r['objects']:10.1f} {rate} "
              f"{r['bound']:>5}/{r['pending']:<5} {rss / 2**30:8.2f}G", flush=True)
        worst = max(worst, rss)
    print(f"peak RSS at full size {'under' if worst < TARGET_RSS else 'OVER'} the 2 GiB target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
