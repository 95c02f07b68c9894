"""Ordering the attempts a real control plane shows by kube-scheduler's scheduling cycles
(conformance/backends/scheduler_log.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.backends.scheduler_log import Cycle, order_attempts, parse_cycles, parse_line

LOG = (Path(__file__).parent / "data" / "kube-scheduler-v3.log").read_text()
FAILED = ('0/2 nodes are available: 2 node(s) didn\'t have free ports for the requested pod '
          'ports. preemption: "quoted".')


def attempt(pod: str, outcome: str, message: str = "", node: str | None = None) -> dict[str, Any]:
    return {"pod": pod, "outcome": outcome, "message": message, "node": node}


def key(api: str) -> str | None:
    ns, _, name = api.partition("/")
    return f"{ns}/{name[5:]}" if name.startswith("q") else None


def test_parse_line_reads_quoted_values() -> None:
    msg, kv = parse_line(LOG.splitlines()[5])  # type: ignore[misc]
    assert msg == "Unable to schedule pod; no fit; waiting"
    assert kv["pod"] == "default/q001-again" and kv["err"] == FAILED
    assert parse_line("not a klog line") is None


def test_cycles_in_order_with_their_results() -> None:
    cycles = parse_cycles(LOG.splitlines())
    assert [(c.pod, c.result) for c in cycles] == [
        ("default/q000-web", ("bound", "n2")),
        ("default/q001-again", ("failed", FAILED)),
        ("default/q001-again", ("bound", "n1"))]


def test_a_binding_the_api_showed_late_moves_before_the_failure_it_caused() -> None:
    observed = [attempt("default/again", "Unschedulable", FAILED),
                attempt("default/web", "Bound", node="n2"),
                attempt("default/again", "Bound", node="n1")]
    ordered = order_attempts(observed, parse_cycles(LOG.splitlines()), key)
    assert [(a["pod"], a["outcome"]) for a in ordered] == [
        ("default/web", "Bound"), ("default/again", "Unschedulable"),
        ("default/again", "Bound")]


def test_records_without_a_cycle_stay_after_what_was_observed_before_them() -> None:
    cycles = [Cycle("default/qa", ("failed", "m1")), Cycle("default/qb", ("bound", "n1")),
              Cycle("default/qa", ("failed", "m1")), Cycle("default/qa", ("bound", "n2"))]
    observed = [attempt("default/x", "Gated", "waiting for scheduling gates: [g]"),
                attempt("default/b", "Bound", node="n1"),
                attempt("default/a", "Unschedulable", "m1"),
                attempt("default/a", "Bound", node="n2"),
                attempt("default/c", "Bound", node="n3")]  # not in the log
    ordered = order_attempts(observed, cycles, lambda api: api.replace("/q", "/"))
    assert [a["pod"] for a in ordered] == ["default/x", "default/a", "default/b",
                                           "default/a", "default/c"]


def test_a_record_without_a_cycle_stays_after_every_record_observed_before_it() -> None:
    """Bindings observed in another order than their cycles: a Gated record observed after all
    of them stays last (it once moved ahead of the later cycles, and the consistency oracle
    then replayed a node deletion before those bindings)."""
    cycles = [Cycle("default/qa", ("bound", "n1")), Cycle("default/qb", ("bound", "n1")),
              Cycle("default/qc", ("bound", "n2"))]
    observed = [attempt("default/b", "Bound", node="n1"),
                attempt("default/c", "Bound", node="n2"),
                attempt("default/a", "Bound", node="n1"),
                attempt("default/x", "Gated", "waiting for scheduling gates: [g]")]
    ordered = order_attempts(observed, cycles, lambda api: api.replace("/q", "/"))
    assert [a["pod"] for a in ordered] == ["default/a", "default/b", "default/c", "default/x"]


def test_a_retry_failing_with_the_same_message_is_skipped_not_misplaced() -> None:
    """The API shows one failure for two failed cycles (the condition does not change); the
    binding goes to the cycle that bound."""
    cycles = [Cycle("default/qa", ("failed", "m1")), Cycle("default/qb", ("bound", "n1")),
              Cycle("default/qa", ("failed", "m1")), Cycle("default/qc", ("bound", "n1")),
              Cycle("default/qa", ("bound", "n2"))]
    observed = [attempt("default/a", "Unschedulable", "m1"),
                attempt("default/c", "Bound", node="n1"),
                attempt("default/b", "Bound", node="n1"),
                attempt("default/a", "Bound", node="n2")]
    ordered = order_attempts(observed, cycles, lambda api: api.replace("/q", "/"))
    assert [a["pod"] for a in ordered] == ["default/a", "default/b", "default/c", "default/a"]
