"""Oracle ``preemption``: victims are justified, minimal, and PDB-aware.

Upstream: ``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``
(SelectVictimsOnNode, PodEligibleToPreemptOthers), ``pkg/scheduler/framework/preemption/
preemption.go`` (DryRunPreemption, pickOneNodeForPreemption) and ``.../preemption/util.go``
(FilterVictimsWithPDBViolation, MoreImportantVictim).
The five invariants and what is not judged: docs/oracles.md#preemption."""

from __future__ import annotations

from collections.abc import Sequence

from oracles.base import OracleContext, Violation
from oracles.replay import BOUND, Replay, Step
from oracles.rules import (
    FilterConfig,
    World,
    fit_reasons,
    nominated_for,
    selector_of,
    spread_constraints,
    unmodelled_pod_features,
)
from reference_impl.model.objects import Pod, PodDisruptionBudget

NAME = "preemption"


def _pdb_covers(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """``podIsViolating``'s match: same namespace, the pod has labels, and the PDB's selector
    is neither nil nor empty and selects the pod."""
    if pdb.namespace != pod.namespace or not pod.labels:
        return False
    sel = selector_of(pdb.selector)
    return not sel.empty() and sel.matches(pod.labels)


def pdb_overdrafts(pdbs: Sequence[PodDisruptionBudget], victims: Sequence[Pod]
                   ) -> list[tuple[PodDisruptionBudget, int]]:
    """PDBs with an explicit ``status.disruptionsAllowed`` from which evicting ``victims``
    takes more pods than allowed, with the number of pods taken."""
    out = []
    for pdb in pdbs:
        if pdb.disruptions_allowed is None:
            continue
        taken = sum(1 for v in victims if _pdb_covers(pdb, v))
        if taken > pdb.disruptions_allowed:
            out.append((pdb, taken))
    return out


def _spread_quirk(pod: Pod, node_pods: Sequence[Pod], cfg: FilterConfig) -> bool:
    """Upstream updates topology-spread counts incrementally during preemption
    (``updateWithPod``: Selector.Matches, no terminating check), which differs from a recount
    for an empty selector or for terminating pods (own or default constraints)."""
    cs = spread_constraints(pod, cfg)
    if not cs:
        return False
    return any(c.selector.empty() for c in cs) or any(
        p.deletion_timestamp is not None for p in node_pods)


def _world_before(step: Step) -> World:
    world = step.state.world()
    by_node: dict[str, list[Pod]] = {}
    for node, p in step.removed:
        by_node.setdefault(node, []).append(p)
    for node, pods in by_node.items():
        world = world.with_bound(node, pods)
    return world


def check(ctx: OracleContext) -> list[Violation]:
    """Victims are lower-priority pods of the nominated node, necessary one by one under the
    reprieve rule, and break no PDB when a choice without violations existed
    (SelectVictimsOnNode, pickOneNodeForPreemption; docs/oracles.md#preemption)."""
    out: list[Violation] = []
    for step in Replay.of(ctx):
        if not step.victims or step.pod is None:
            continue
        out += _check_step(ctx, step)
    return out


def _check_step(ctx: OracleContext, step: Step) -> list[Violation]:
    pod, out = step.pod, []
    assert pod is not None
    target = step.nominated_node or (step.node if step.outcome == BOUND else None)
    if pod.preemption_policy == "Never":
        out.append(Violation(NAME, pod.key, target, (
            f"attempt {step.index}: {pod.key} has preemptionPolicy Never, yet it preempted "
            f"{', '.join(step.victims)}")))
    if not target:
        out.append(Violation(NAME, pod.key, None, (
            f"attempt {step.index}: {pod.key} preempted {', '.join(step.victims)} but was "
            "neither nominated to nor bound on a node")))
        return out
    world = _world_before(step)
    where = {p.key: n for n, pods in world.pods_on.items() for p in pods}
    objs = {p.key: p for pods in world.pods_on.values() for p in pods}
    victims: list[Pod] = []
    for v in step.victims:
        if v == pod.key:
            out.append(Violation(NAME, pod.key, target, f"attempt {step.index}: the preemptor "
                                                        "is listed among its own victims"))
            continue
        if v not in objs:
            out.append(Violation(NAME, pod.key, target, (
                f"attempt {step.index}: victim {v} was not running anywhere at that time")))
            continue
        vp = objs[v]
        if where[v] != target:
            out.append(Violation(NAME, pod.key, target, (
                f"attempt {step.index}: victim {v} ran on {where[v]}, not on {target}, the node "
                f"{pod.key} was nominated to")))
        if vp.priority >= pod.priority:
            out.append(Violation(NAME, pod.key, target, (
                f"attempt {step.index}: victim {v} has priority {vp.priority}, not lower than "
                f"the preemptor's {pod.priority}")))
        victims.append(vp)
    if out or target not in world.nodes:
        return out
    prof = ctx.profile_for(pod)
    cfg = ctx.filters_for(pod)
    if (prof is None or cfg is None or prof.unrestated_rejecters()
            or unmodelled_pod_features(pod, cfg.dra_extended)
            or _spread_quirk(pod, world.pods_on[target], cfg)):
        return out
    out += _minimality(step, pod, target, victims, world, cfg)
    if not out:
        out += _pdbs(ctx, step, pod, target, victims, world, cfg)
    return out


def _minimality(step: Step, pod: Pod, target: str, victims: list[Pod], world: World,
                cfg: FilterConfig) -> list[Violation]:
    state = step.state
    nominated = nominated_for(pod, target, state.nominated, state.pending)
    # A terminating pod of lower priority that upstream picks as a victim is not deleted again
    # ("Graceful pod deletion has already started", preemption/executor.go prepareCandidate),
    # so it is not among the attempt's victims, though counted in "preempting N victims": which
    # of them upstream took is not known. The preemptor must fit with all of them gone; a
    # listed victim was not needed only if the preemptor fits with it kept and all of them
    # still there (the least room any choice leaves).
    listed = [v.key for v in victims]
    going = [p.key for p in world.pods_on.get(target, ())
             if p.is_terminating and p.priority < pod.priority and p.key not in listed]
    after = world.without(target, listed)
    emptiest = world.without(target, [*listed, *going]) if going else after
    still = fit_reasons(pod, target, emptiest, cfg, nominated, prefilter=world)
    if still:
        return [Violation(NAME, pod.key, target, (
            f"attempt {step.index}: after evicting {len(victims)} victim(s) "
            f"({', '.join(v.key for v in victims)}) {pod.key} still does not fit {target}: "
            + "; ".join(still)))]
    out = []
    for v in victims:
        if not fit_reasons(pod, target, after.with_bound(target, [v]), cfg, nominated,
                           prefilter=world):
            out.append(Violation(NAME, pod.key, target, (
                f"attempt {step.index}: victim {v.key} (priority {v.priority}) was not needed: "
                f"{pod.key} (priority {pod.priority}) fits {target} with {v.key} kept and the "
                f"other {len(victims) - 1} victim(s) evicted, so upstream's reprieve step keeps "
                "it")))
    return out


def _pdbs(ctx: OracleContext, step: Step, pod: Pod, target: str, victims: list[Pod],
          world: World, cfg: FilterConfig) -> list[Violation]:
    pdbs = ctx.cluster.pdbs
    over = pdb_overdrafts(pdbs, victims)
    if not over:
        return []
    state = step.state
    for name in world.nodes:
        if name == target:
            continue
        lower = [p for p in world.pods_on.get(name, ()) if p.priority < pod.priority]
        if not lower or _spread_quirk(pod, world.pods_on.get(name, ()), cfg):
            continue
        nominated = nominated_for(pod, name, state.nominated, state.pending)
        if not fit_reasons(pod, name, world, cfg, nominated):
            continue  # fits without preemption: not a preemption candidate
        if fit_reasons(pod, name, world.without(name, [p.key for p in lower]), cfg, nominated,
                       prefilter=world):
            continue  # removing every lower-priority pod does not help
        free = [p.key for p in lower if not any(_pdb_covers(b, p) for b in pdbs)]
        if not free or fit_reasons(pod, name, world.without(name, free), cfg, nominated,
                                   prefilter=world):
            continue
        pdb, taken = over[0]
        return [Violation(NAME, pod.key, target, (
            f"attempt {step.index}: evicting {', '.join(v.key for v in victims)} from {target} "
            f"takes {taken} pod(s) covered by PodDisruptionBudget {pdb.namespace}/{pdb.name} "
            f"which allows {pdb.disruptions_allowed} disruption(s), although {name} makes room "
            f"by evicting only pods no PDB covers ({', '.join(free)}), a candidate with zero "
            "PDB violations that upstream prefers"))]
    return []
