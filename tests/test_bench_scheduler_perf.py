"""bench/scheduler_perf.py: the PreemptionAsync restatement (the churn of preemptors on the
virtual clock) and the per-child peak memory."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from reference_impl.scheduler.simulation import run_simulation

BENCH = Path(__file__).resolve().parent.parent / "bench" / "scheduler_perf.py"


@pytest.fixture(scope="module")
def perf() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_scheduler_perf", BENCH)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def _workload(perf: ModuleType, name: str):  # noqa: ANN202
    return next(w for w in perf.WORKLOADS if w.name == name)


def test_preemption_async_churn_span(perf: ModuleType) -> None:
    """5000 measured pods at the 570 pods/s floor: 8.8s of churn, a preemptor every 200ms."""
    w = _workload(perf, "PreemptionAsync/5000Nodes")
    assert perf.churn_ticks(w) == 44
    assert perf.scheduled_pods(w) == 5000 + 44
    assert perf.churn_ticks(_workload(perf, "SchedulingBasic/500Nodes")) == 0


def test_preemption_async_timeline_preempts_and_binds(perf: ModuleType) -> None:
    """A small PreemptionAsync: 4 low-priority pods on each node, preemptors at 0, 200ms, ...
    with the measured pods spread over the same ticks; each preemptor binds after evicting the
    pods of its node (the measured ones too: priority 0 as well), every other measured pod
    binds."""
    w = dataclasses.replace(_workload(perf, "PreemptionAsync/500Nodes"), name="tiny", nodes=20,
                            init_pods=80, measure_pods=10, churn_rate=10)
    docs = perf.workload_documents(w)
    events = docs[-1]["spec"]["events"]
    preemptors = [e for e in events if e["pod"]["metadata"]["name"].startswith("pod-high")]
    assert [e["at"] for e in preemptors] == ["0ms", "200ms", "400ms", "600ms", "800ms"]
    assert len(events) - len(preemptors) == 10
    scheduler, scenario = perf._load(w, docs)
    assert scenario is not None and len(scenario.events) == 15
    result = run_simulation(scheduler, scenario)
    measured = {k: n for k, n in result.bindings.items() if "/measure-" in k}
    high = {k: n for k, n in result.bindings.items() if "/pod-high-priority-" in k}
    assert len(high) == 5 and len(measured) >= 5  # at most one node per preemptor evicted
    for node in high.values():  # no init pod is left on a preemptor's node
        assert not any(k.startswith("default/init-") and n == node
                       for k, n in result.bindings.items())


def test_run_child_reports_the_childs_peak_rss_and_cpu(perf: ModuleType) -> None:
    code = ("x = bytearray(200 * 2**20); sum(range(3 * 10**6)); "
            "import json; print(json.dumps({\"ok\": 1}))")
    doc, rss, seconds, cpu = perf.run_child([sys.executable, "-c", code])
    assert doc == {"ok": 1}
    assert 200 * 2**20 <= rss < 1 * 2**30 and seconds > 0 and cpu > 0
    with pytest.raises(RuntimeError, match="failed"):
        perf.run_child([sys.executable, "-c", "raise SystemExit(1)"])


def test_run_child_leaves_out_the_parents_peak_rss(perf: ModuleType) -> None:
    """A child's ``ru_maxrss`` starts from its parent's peak at the spawn (Linux exec_mmap);
    the bench's own peak (results it read) must not show in the next child's."""
    big = bytearray(256 * 2**20)
    big[::4096] = b"\1" * len(range(0, len(big), 4096))  # touched: resident
    _, rss, _, _ = perf.run_child([sys.executable, "-c", "pass"])
    del big
    assert rss < 128 * 2**20
