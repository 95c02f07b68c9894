"""Set-up time and throughput of the real control-plane backends (etcd, kube-apiserver and
kube-scheduler as local processes, or as Docker containers), beside the reference on the same
scenarios.

Draws generated scenarios (the ``small`` family of ``kschedconf diff``, fixed seed), runs each on
the backend and on the reference, and prints the control plane's start time, the time per
scenario split into its phases (objects created, kube-scheduler ready, scheduling until
quiescence, cleanup), scenarios per second for both, and their ratio. The process backend needs
the binaries (``bash backends/build.sh``), the docker backend an engine and the images
(``bash backends/images.sh`` and ``KSCHEDCONF_IMAGE_REPOSITORY=kschedconf.local`` where
registry.k8s.io is out of reach). Run:

    python3 bench/backends.py [--backend process|docker|both] [--scenarios 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conformance.backends import make_backend_subject  # noqa: E402
from conformance.core.scenario import ScenarioInput  # noqa: E402
from conformance.engines.diff.compare import fill_pdb_status  # noqa: E402
from conformance.engines.diff.search import hypothesis_test  # noqa: E402
from conformance.subjects.reference import ReferenceSubject  # noqa: E402
from reference_impl.releases.pinned import UPSTREAM_RELEASE  # noqa: E402


class _Enough(Exception):
    pass


def draw(n: int, seed: int) -> list[ScenarioInput]:
    got: list[ScenarioInput] = []

    def body(sc: ScenarioInput) -> None:
        got.append(fill_pdb_status(sc))
        if len(got) >= n:
            raise _Enough

    try:
        hypothesis_test("small", n, seed, body, shrink=False)()
    except _Enough:
        pass
    except Exception as e:  # noqa: BLE001 - Hypothesis wraps the stop signal
        if not got:
            raise RuntimeError(f"no scenario drawn: {e}") from e
    return got[:n]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenarios", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--backend", choices=("process", "docker", "both"), default="process")
    args = ap.parse_args()
    scenarios = draw(args.scenarios, args.seed)
    print(f"upstream {UPSTREAM_RELEASE}; {platform.machine()} {os.cpu_count()} cpus, Python "
          f"{platform.python_version()}; {len(scenarios)} generated small scenarios, seed "
          f"{args.seed}")
    ref = ReferenceSubject()
    t = time.perf_counter()
    for sc in scenarios:
        ref.run(sc)
    ref_rate = len(scenarios) / (time.perf_counter() - t)
    print(f"reference: {ref_rate:.1f} scenarios/s")
    for kind in (("process", "docker") if args.backend == "both" else (args.backend,)):
        measure(kind, scenarios, ref_rate)
    return 0


def measure(kind: str, scenarios: list[ScenarioInput], ref_rate: float) -> None:
    subject = make_backend_subject(kind, "")
    phases: dict[str, list[float]] = {}
    per: list[float] = []
    try:
        t_all = time.perf_counter()
        for sc in scenarios:
            t = time.perf_counter()
            subject.run(sc)
            per.append(time.perf_counter() - t)
            timings = getattr(subject, "timings", {})
            for k in ("last_setup", "last_scheduler_start", "last_run", "last_cleanup"):
                if k in timings:
                    phases.setdefault(k.removeprefix("last_"), []).append(timings[k])
        real_secs = time.perf_counter() - t_all
        start = getattr(subject, "timings", {}).get("control_plane_start", 0.0)
    finally:
        subject.close()
    print(f"{kind} backend: control plane start (etcd + kube-apiserver ready): {start:.2f} s")
    print(f"  per scenario: mean {statistics.mean(per):.2f} s, median "
          f"{statistics.median(per):.2f} s, max {max(per):.2f} s")
    names = {"setup": "objects created", "scheduler_start": "kube-scheduler ready",
             "run": "driver total", "cleanup": "objects deleted"}
    for k, v in phases.items():
        print(f"    {names.get(k, k):22s} mean {statistics.mean(v):.3f} s")
    real_rate = len(scenarios) / real_secs
    print(f"  {kind} backend: {real_rate:.2f} scenarios/s (the first scenario includes the "
          f"control plane start); ratio reference/{kind}: {ref_rate / real_rate:.0f}x")


if __name__ == "__main__":
    sys.exit(main())
