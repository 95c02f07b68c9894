"""Sharing the time among the mutants: the triage that runs blind mutants first with a smaller
weight, the :class:`Budget` of worker-seconds, a round of runs (in a pool of forked worker
processes with ``jobs`` > 1) and the second round that gives the time left over to the
survivors the oracles can see."""

from __future__ import annotations

import dataclasses
import multiprocessing
import queue
import signal
from collections.abc import Callable, Mapping, Sequence

from conformance.engines.mutants.catalogue import get
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.outcomes import (
    CAUGHT,
    ERROR,
    INEFFECTIVE,
    SURVIVED,
    MutantOutcome,
)
from conformance.engines.mutants.plan import MutantsOptions
from conformance.engines.mutants.runner import run_mutant
from conformance.engines.mutants.subject import check_witness
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: Share of a *blind* mutant (no oracle rejects even its witness) relative to the others: it
#: still runs, but the time mostly goes to mutants the oracles can see.
BLIND_WEIGHT = 0.25
#: A second round is worth it only with at least this many seconds per survivor (Hypothesis
#: spends its first examples on deliberately small scenarios).
SECOND_ROUND_MIN_SECONDS = 5.0

Task = tuple[Mutant, MutantsOptions]


class Budget:
    """Shares ``budget`` seconds of wall clock × ``jobs`` workers among the mutants: each one,
    when it starts, gets its weight's part of what the finished ones did not use and the
    running ones have not reserved, so the time of mutants caught early goes to the next."""

    def __init__(self, budget: float | None, jobs: int, weights: Mapping[str, float]) -> None:
        self.total = None if budget is None else budget * jobs
        self.pending = dict(weights)  # not started yet: name -> weight
        self.spent = 0.0
        self.reserved: dict[str, float] = {}

    def start(self, name: str) -> float | None:
        weight_sum = sum(self.pending.values())
        weight = self.pending.pop(name)
        if self.total is None:
            return None
        free = self.total - self.spent - sum(self.reserved.values())
        share = max(free, 0.0) * weight / weight_sum if weight_sum > 0 else 0.0
        self.reserved[name] = share
        return share

    def finish(self, name: str, seconds: float) -> None:
        self.reserved.pop(name, None)
        self.spent += seconds


def triage(mutants: Sequence[Mutant], oracle_names: Sequence[str],
           checked: Callable[[int], None] | None = None, release: str = UPSTREAM_RELEASE
           ) -> tuple[list[Mutant], dict[str, float]]:
    """The run order and weights: blind mutants (no oracle rejects their witness) first and
    with a smaller share, so that the time left over by early catches goes to the mutants the
    oracles can see. A witness that cannot be checked here gets weight 1 (the worker reports
    the error). ``checked(i)`` after the i-th witness. The witnesses are scheduled as
    ``release``."""
    weights: dict[str, float] = {}
    for i, mu in enumerate(mutants, 1):
        try:
            seen = bool(check_witness(mu, oracle_names, release).caught_by)
        except Exception:
            seen = True
        weights[mu.name] = 1.0 if seen else BLIND_WEIGHT
        if checked is not None:
            checked(i)
    order = sorted(mutants, key=lambda mu: weights[mu.name] == 1.0)  # stable: blind first
    return order, weights


def wants_second_round(o: MutantOutcome, opts: MutantsOptions) -> bool:
    """A survivor the oracles see on its witness that has not used ``max_examples`` yet (only
    with a budget: without one every run went to ``max_examples``)."""
    return (opts.budget is not None and o.status == SURVIVED and bool(o.witness_caught_by)
            and o.examples_run < opts.max_examples)


def second_round(opts: MutantsOptions, elapsed: float, jobs: int,
                 survivors: Sequence[MutantOutcome], mutants: Sequence[Mutant]
                 ) -> tuple[list[Task], Budget] | None:
    """The second round's tasks (a fresh Hypothesis run with seed + 1 for each survivor's
    remaining examples) and its budget, the time the first round left; None when that is
    less than SECOND_ROUND_MIN_SECONDS per survivor."""
    if opts.budget is None or not survivors:
        return None
    budget = Budget(max(opts.budget - elapsed, 0.0), jobs, {o.name: 1.0 for o in survivors})
    if not budget.total or budget.total / len(survivors) < SECOND_ROUND_MIN_SECONDS:
        return None
    by_name = {mu.name: mu for mu in mutants}
    tasks = [(by_name[o.name], dataclasses.replace(
        opts, seed=opts.seed + 1, max_examples=opts.max_examples - o.examples_run))
        for o in survivors]
    return tasks, budget


def merge(first: MutantOutcome, second: MutantOutcome) -> MutantOutcome:
    """A mutant's second round appended to its first: counts and times are cumulative."""
    if second.status in (ERROR, INEFFECTIVE):
        first.message = f"second round: {second.message}"
        first.total_seconds += second.total_seconds
        return first
    ran_before = sum(p.seconds for p in first.properties)
    second.properties = first.properties + second.properties
    if second.status == CAUGHT:
        second.examples = (second.examples or 0) + first.examples_run
        second.seconds = (second.seconds or 0.0) + ran_before
    second.examples_run += first.examples_run
    second.total_seconds += first.total_seconds
    return second


def _init_worker() -> None:
    """Workers leave Ctrl-C to the parent, which terminates them; SIGTERM ends them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def _worker(args: tuple[str, MutantsOptions, float | None]) -> MutantOutcome:
    name, opts, share = args
    return run_mutant(get(name), opts, share)


def run_round(tasks: Sequence[Task], jobs: int, budget: Budget,
              finished: Callable[[MutantOutcome], None],
              started: Callable[[Mutant, Sequence[str]], None] | None = None) -> None:
    """Run ``(mutant, options)`` tasks, ``jobs`` at a time, each with its budget share as it
    starts; ``started(mutant, running)`` when a task starts, ``finished(outcome)`` when it
    ends. On an exception (Ctrl-C, a signal) the workers are terminated."""
    if jobs == 1 or len(tasks) == 1:
        for mu, o in tasks:
            if started is not None:
                started(mu, [mu.name])
            finished(run_mutant(mu, o, budget.start(mu.name)))
        return
    results: queue.Queue[MutantOutcome] = queue.Queue()
    todo = list(tasks)
    running: dict[str, Mutant] = {}

    def failed(mu: Mutant) -> Callable[[BaseException], None]:
        def put(e: BaseException) -> None:
            results.put(MutantOutcome(mu.name, mu.area, mu.summary, status=ERROR,
                                      message=f"the worker failed: {type(e).__name__}: {e}"))
        return put

    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(min(jobs, len(tasks)), initializer=_init_worker) as pool:  # exit: terminate
        while todo or running:
            while todo and len(running) < jobs:
                mu, o = todo.pop(0)
                running[mu.name] = mu
                pool.apply_async(_worker, ((mu.name, o, budget.start(mu.name)),),
                                 callback=results.put, error_callback=failed(mu))
                if started is not None:
                    started(mu, list(running))
            try:
                outcome = results.get(timeout=1.0)
            except queue.Empty:
                continue
            running.pop(outcome.name, None)
            finished(outcome)
