"""conformance/engines/diff/run.py ``generated``: without ``--workers``, the comparer threads
compare generated scenarios (several at once) while Hypothesis draws the next one in the run's
thread, and the cases are reported in the order drawn, each once."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

from conformance.core.events import EventBus
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectResult
from conformance.engines import diff
from conformance.reporters.console import ConsoleReporter
from conformance.subjects.reference import ReferenceSubject


class SlowReference(ReferenceSubject):
    """The reference, taking 200 ms more per run, noting which thread ran each scenario and
    when."""

    def __init__(self) -> None:
        super().__init__()
        self.ran: list[tuple[str, str, float, float]] = []

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        t0 = time.monotonic()
        time.sleep(0.2)
        res = super().run(scenario)
        self.ran.append((scenario.name, threading.current_thread().name, t0, time.monotonic()))
        return res


def test_generated_scenarios_are_compared_beside_generation_and_reported_in_order(
        tmp_path: Path) -> None:
    ref, out = SlowReference(), io.StringIO()
    report = diff.run_diff(diff.DiffOptions(scenarios=6, seed=3, mode="whole", shrink=False,
                                            out=str(tmp_path)),
                           EventBus([ConsoleReporter(out, tty=False)]), ReferenceSubject(),
                           reference=ref)
    names = [f"small-{i:04d}" for i in range(1, 7)]
    assert report.exit_code == 0, out.getvalue()
    assert [r.name for r in report.results] == names
    lines = [line.split()[1] for line in out.getvalue().splitlines()
             if line.startswith("  ok ")]
    assert lines == names
    assert sorted(name for name, *_ in ref.ran) == names
    threads = {f"kschedconf-diff-compare_{i}" for i in range(diff.run.COMPARERS)}
    assert {thread for _, thread, *_ in ref.ran} <= threads
    # some scenarios were compared at once (the runs' sleeps overlap)
    spans = sorted((t0, t1) for *_, t0, t1 in ref.ran)
    assert any(later[0] < earlier[1] for earlier, later in zip(spans, spans[1:], strict=False))


class OneAtATime(ReferenceSubject):
    """A subject that takes one run at a time (as a control plane does): a second run while
    one is going on is recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.concurrent_runs = False
        self._busy = threading.Lock()
        self.overlapped = 0

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        if not self._busy.acquire(blocking=False):
            self.overlapped += 1
            self._busy.acquire()
        try:
            time.sleep(0.1)
            return super().run(scenario)
        finally:
            self._busy.release()


def test_a_subject_taking_one_run_at_a_time_gets_one_comparer(tmp_path: Path) -> None:
    """`diff --upstream process` ran three scenarios at once on one control plane (the second
    kube-apiserver exited at its start): the comparer threads are for subjects that take runs
    from several threads (``Subject.concurrent_runs``)."""
    up, out = OneAtATime(), io.StringIO()
    report = diff.run_diff(diff.DiffOptions(scenarios=4, seed=3, mode="whole", shrink=False,
                                            out=str(tmp_path)),
                           EventBus([ConsoleReporter(out, tty=False)]), up)
    assert report.exit_code == 0, out.getvalue()
    assert len(report.results) == 4
    assert up.overlapped == 0
