"""Oracle ``filters_honoured``: the node a pod was bound to passed every Filter rule at bind time,
also with the nominated pods of priority >= the pod's counted; a gated pod is never bound.

Upstream rules: the Filter functions of NodeName, NodeUnschedulable, TaintToleration,
NodeAffinity, NodePorts, NodeResourcesFit, PodTopologySpread and InterPodAffinity under
``pkg/scheduler/framework/plugins/`` and ``pkg/scheduler/framework/runtime/framework.go``
(RunFilterPluginsWithNominatedPods); the restatements are in ``oracles/rules.py``.
The invariant, rule by rule: docs/oracles.md#filters_honoured."""

from __future__ import annotations

from oracles.base import OracleContext, Violation
from oracles.replay import BOUND, Replay
from oracles.rules import fit_reasons, nominated_for

NAME = "filters_honoured"


def check(ctx: OracleContext) -> list[Violation]:
    """Every bind went to a node that passed every Filter rule of the pod's profile at that time,
    also with the nominated pods of higher or equal priority counted (the plugins' Filter
    functions, RunFilterPluginsWithNominatedPods; docs/oracles.md#filters_honoured)."""
    out: list[Violation] = []
    for step in Replay.of(ctx):
        if step.outcome != BOUND:
            continue
        node = step.node
        pod = step.pod
        state = step.state
        if pod is None:
            where = state.location.get(step.key)
            what = (f"was already bound to {where}" if where else
                    "is not a pending pod of the scenario at that time")
            out.append(Violation(NAME, step.key, node,
                                 f"attempt {step.index} binds {step.key}, which {what}"))
            continue
        if node not in state.nodes:
            out.append(Violation(NAME, pod.key, node,
                                 f"attempt {step.index} binds {pod.key} to {node!r}, which is "
                                 "not a node of the cluster at that time"))
            continue
        prof = ctx.profile_for(pod)
        cfg = ctx.filters_for(pod)
        if prof is None or cfg is None:
            out.append(Violation(NAME, pod.key, node, (
                f"{pod.key} has schedulerName {pod.scheduler_name!r}, which no profile of the "
                f"configuration serves ({', '.join(sorted(ctx.scheduler.profiles))}), yet "
                f"attempt {step.index} bound it")))
            continue
        if pod.scheduling_gates and prof.enabled("SchedulingGates", "preEnqueue"):
            out.append(Violation(NAME, pod.key, node, (
                f"{pod.key} still has scheduling gates {list(pod.scheduling_gates)}, so "
                "SchedulingGates keeps it out of the active queue, yet it was bound")))
            continue
        nominated = nominated_for(pod, node, state.nominated, state.pending)
        broken = fit_reasons(pod, node, state.world(), cfg, nominated)
        if broken:
            out.append(Violation(NAME, pod.key, node, (
                f"attempt {step.index} bound {pod.key} to {node}, but at that time the node "
                f"breaks {len(broken)} Filter rule(s): " + "; ".join(broken))))
    return out
