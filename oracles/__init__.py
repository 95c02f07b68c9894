"""Invariant oracles: independent judges of any scheduler's decisions.

Per-scenario oracles are functions ``check(ctx: OracleContext) -> list[Violation]``, registered
in :data:`ALL_ORACLES` by name. Helpers that need more than one run of a subject (statistics
over seeds, metamorphic relations) live in :mod:`oracles.tie_uniformity` and
:mod:`oracles.determinism`. See ``docs/oracles.md``.
"""

from __future__ import annotations

from collections.abc import Callable

from oracles import (
    attach_limits,
    consistency,
    dra_allocations,
    filters_honoured,
    no_false_unschedulable,
    no_overcommit,
    preemption,
    provisioning,
    queue_fairness,
    read_write_once_pod,
    score_optimality,
    volume_node_affinity,
    volume_zone,
)
from oracles.base import OracleContext, Violation

Oracle = Callable[[OracleContext], list[Violation]]

ALL_ORACLES: dict[str, Oracle] = {
    consistency.NAME: consistency.check,
    no_overcommit.NAME: no_overcommit.check,
    filters_honoured.NAME: filters_honoured.check,
    no_false_unschedulable.NAME: no_false_unschedulable.check,
    score_optimality.NAME: score_optimality.check,
    preemption.NAME: preemption.check,
    queue_fairness.NAME: queue_fairness.check,
    dra_allocations.NAME: dra_allocations.check,
    attach_limits.NAME: attach_limits.check,
    volume_node_affinity.NAME: volume_node_affinity.check,
    volume_zone.NAME: volume_zone.check,
    read_write_once_pod.NAME: read_write_once_pod.check,
    provisioning.NAME: provisioning.check,
}

#: the opt-in scenario features (strategies/sizes.py OPT_IN_FEATURES) an oracle's invariant is
#: about: a property of such an oracle is planned only for the scenario families that generate
#: one of them (``dra_allocations`` has nothing to judge in a scenario without claims).
#: Oracles not listed judge every scenario.
ORACLE_FEATURES: dict[str, frozenset[str]] = {
    dra_allocations.NAME: frozenset({"dra"}),
    attach_limits.NAME: frozenset({"storage"}),
    volume_node_affinity.NAME: frozenset({"storage"}),
    volume_zone.NAME: frozenset({"storage"}),
    read_write_once_pod.NAME: frozenset({"storage"}),
    provisioning.NAME: frozenset({"storage"}),
}


def run_oracles(ctx: OracleContext, names: list[str] | None = None) -> list[Violation]:
    """Run the named oracles (all by default) on one context."""
    out: list[Violation] = []
    for name in names or list(ALL_ORACLES):
        out += ALL_ORACLES[name](ctx)
    return out


__all__ = ["ALL_ORACLES", "ORACLE_FEATURES", "Oracle", "OracleContext", "Violation", "run_oracles"]
