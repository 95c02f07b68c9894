"""Catalogue: the scheduling queue (backoff, activeQ order)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import conformance.engines.mutants.witnesses as w
from conformance.core.scenario import ScenarioInput
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.patching import Patch

# ----- scheduling queue ---------------------------------------------------------------------

_BACKOFF = "reference_impl.scheduler.queue.backoff_queue:BackoffQueue.calculate_backoff_duration"


def _uncapped(orig: Callable[..., Any]) -> Callable[..., Any]:
    def calculate_backoff_duration(self: Any, count: int, entity_size: int = 1) -> int:
        if count == 0:
            return 0
        return self.pod_initial_backoff << (count - 1)
    return calculate_backoff_duration


def _linear(orig: Callable[..., Any]) -> Callable[..., Any]:
    def calculate_backoff_duration(self: Any, count: int, entity_size: int = 1) -> int:
        if count == 0:
            return 0
        return min(self.pod_initial_backoff * count, self.pod_max_backoff)
    return calculate_backoff_duration


def _no_nodes_witness(name: str, config: w.Doc | None) -> ScenarioInput:
    """p finds no node at all ("no nodes available": an attempt that no plugin rejected, so p
    goes to the error backoff queue, which is only flushed when its backoff ends) until a node
    is created at 6.5 s."""
    return w.scenario(name, w.pod("p"), w.timeline(
        {"at": "6.5", "action": "createNode", "node": w.node("n1")}), config=config)


_QUEUE_ORACLE_NAMES = (
    "queue_fairness's trace checks compare the queue names 'Active'/'Backoff' while the "
    "reference's trace says 'activeQ'/'backoffQ'/'unschedulablePods' (the SimulationResult "
    "vocabulary), so its pop-order, backoff and starvation checks never fire on the reference; "
    "with the names fixed in oracles/queue_fairness.py it rejects this mutant's witness")


_BACKOFF_NOTE = (
    "With SchedulerPopFromBackoffQ (on in v1.37.2) the scheduler pops podBackoffQ whenever "
    "activeQ is empty, and attempts take no virtual time, so a pod rejected by a plugin never "
    "waits out its backoff; only pods that failed without a rejecting plugin (podErrorBackoffQ: "
    "no nodes at all, Error statuses) wait for the flush. ")



MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        name="queue-backoff-uncapped", area="scheduling queue",
        summary="the backoff keeps doubling past podMaxBackoffSeconds",
        upstream="calculateBackoffDuration caps at podMaxBackoff "
                 "(pkg/scheduler/backend/queue/backoff_queue.go)",
        patches=(Patch(_BACKOFF, _uncapped),),
        witness=lambda: _no_nodes_witness("backoff-cap", w.config(
            podInitialBackoffSeconds=1, podMaxBackoffSeconds=1)),
        shows=_BACKOFF_NOTE + "genuine: backoffs of 1 s (max 1 s), attempts at 0, 2, 4, 6 s, bound "
              "at 8 s; mutant: 2 s after the second failure, attempts at 0, 2, 5 s, bound at 10 s",
        oracles=("queue_fairness",),
        missing_oracle=_QUEUE_ORACLE_NAMES),
    Mutant(
        name="queue-no-backoff", area="scheduling queue",
        summary="a pod that failed is retried without backoff",
        upstream="a failed pod waits podInitialBackoffSeconds × 2^(attempts-1) in backoffQ "
                 "(pkg/scheduler/backend/queue/backoff_queue.go, "
                 "pkg/scheduler/backend/queue/scheduling_queue.go)",
        patches=(Patch(_BACKOFF, lambda orig: lambda self, count, entity_size=1: 0),),
        witness=lambda: _no_nodes_witness("no-backoff", w.config(podInitialBackoffSeconds=2)),
        shows=_BACKOFF_NOTE + "genuine (podInitialBackoffSeconds 2): attempts at 0 and 3 s "
              "(backoffs of 2 and 4 s end on a flush, every whole second), bound at 8 s; mutant: "
              "an attempt every second, bound at 7 s",
        oracles=("queue_fairness",),
        missing_oracle=_QUEUE_ORACLE_NAMES + " (with its 1 s ordering-window tolerance it needs "
                       "podInitialBackoffSeconds >= 2 to tell)"),
    Mutant(
        name="queue-fifo", area="scheduling queue",
        summary="activeQ pops pods first in, first out, ignoring priority",
        upstream="PrioritySort.Less: higher priority first, then the earlier timestamp "
                 "(pkg/scheduler/framework/plugins/queuesort/priority_sort.go)",
        patches=(Patch("reference_impl.plugins.queuesort:PrioritySort.less",
                       lambda orig: lambda self, a, b: a.timestamp < b.timestamp),),
        witness=lambda: w.scenario(
            "fifo", w.priority_class("high", 1000), w.node("n1", cpu="1"),
            w.pod("low", {"cpu": "1"}), w.pod("high", {"cpu": "1"}, priority_class="high")),
        shows="genuine: high is popped first and takes the node, low stays pending; mutant: low is "
              "popped first and bound, then high preempts it",
        oracles=("queue_fairness",),
        missing_oracle=_QUEUE_ORACLE_NAMES),
    Mutant(
        name="queue-backoff-linear", area="scheduling queue",
        summary="the backoff grows linearly (initial × attempts) instead of doubling",
        upstream="calculateBackoffDuration: podInitialBackoff << (attempts - 1), capped at "
                 "podMaxBackoff (pkg/scheduler/backend/queue/backoff_queue.go)",
        patches=(Patch(_BACKOFF, _linear),),
        witness=lambda: _no_nodes_witness("backoff-linear", w.config(
            podInitialBackoffSeconds=1, podMaxBackoffSeconds=10)),
        shows=_BACKOFF_NOTE + "genuine: backoffs of 1, 2, 4 s, attempts at 0, 1-2, 3-4, 7-8 s; "
              "mutant: 1, 2, 3 s, one attempt more before the node appears at 6.5 s",
        missing_oracle="a backoff-growth check: queue_fairness bounds each backoff by "
                       "[podInitialBackoffSeconds, podMaxBackoffSeconds], which a linear growth "
                       "respects; requiring initial × 2^(count-1) (count: the pod's "
                       "unschedulable or consecutive error count, getBackoffTime in "
                       "backoff_queue.go) from the trace, or a differential run against the "
                       "reference, would catch it"),
)
