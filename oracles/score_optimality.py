"""Oracle ``score_optimality``: the chosen node is a highest-scored one (among the reported
``candidates``, and with the maximal total of the pod's Explanation).

Upstream: ``pkg/scheduler/schedule_one.go`` (schedulePod, prioritizeNodes) and
``pkg/scheduler/framework/runtime/framework.go`` (RunScorePlugins).
The invariants: docs/oracles.md#score_optimality."""

from __future__ import annotations

from typing import Any

from oracles.base import OracleContext, Violation

NAME = "score_optimality"
MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


def check(ctx: OracleContext) -> list[Violation]:
    """Every bound pod went to a highest-scored node: among the reported candidates, with the
    maximal total of the explanation (prioritizeNodes, RunScorePlugins;
    docs/oracles.md#score_optimality)."""
    out: list[Violation] = []
    bound_at: dict[str, tuple[int, str]] = {}
    for i, a in enumerate(ctx.attempts):
        if a.get("outcome") != "Bound":
            continue
        key, node = a.get("pod", ""), a.get("node")
        bound_at[key] = (i, node)
        cands = a.get("candidates")
        if cands and node not in cands:
            out.append(Violation(NAME, key, node, (
                f"attempt {i} bound {key} to {node}, which is not among the highest-scored "
                f"nodes the subject itself reports: {', '.join(cands)}")))
    for key, expl in sorted(ctx.explanations.items()):
        chosen = bound_at.get(key, (None, expl.get("selected")))[1]
        out += check_explanation(key, expl, chosen)
    return out


def check_explanation(key: str, expl: dict[str, Any], chosen: str | None) -> list[Violation]:
    """The score invariants of one Explanation document, for the node actually chosen."""
    out: list[Violation] = []
    nodes = {n["name"]: n for n in expl.get("nodes", [])}
    for n in nodes.values():
        total = 0
        for s in n.get("scores", []):
            norm, weight, weighted = s.get("normalized"), s.get("weight"), s.get("weighted")
            if norm is not None and not MIN_NODE_SCORE <= norm <= MAX_NODE_SCORE:
                out.append(Violation(NAME, key, n["name"], (
                    f"plugin {s.get('plugin')} scored {n['name']} {norm} after normalization, "
                    f"outside [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}]")))
            if None not in (norm, weight, weighted) and weighted != norm * weight:
                out.append(Violation(NAME, key, n["name"], (
                    f"plugin {s.get('plugin')} on {n['name']}: weighted score {weighted} != "
                    f"normalized {norm} * weight {weight}")))
            total += weighted or 0
        if n.get("scores") and n.get("total") is not None and n["total"] != total:
            out.append(Violation(NAME, key, n["name"], (
                f"{n['name']}: total {n['total']} != sum of weighted plugin scores {total}")))
    if chosen is None:
        return out
    feasible = [n for n in nodes.values() if n.get("feasible") and n.get("examined")]
    scored = [n for n in feasible if n.get("total") is not None]
    if expl.get("shortcut"):
        if len(feasible) > 1:
            out.append(Violation(NAME, key, chosen, (
                f"the explanation claims the one-feasible-node shortcut but lists "
                f"{len(feasible)} examined feasible nodes")))
        return out
    if chosen not in {n["name"] for n in feasible}:
        out.append(Violation(NAME, key, chosen, (
            f"{key} went to {chosen}, which the explanation does not list as an examined "
            f"feasible node ({', '.join(n['name'] for n in feasible) or 'none'})")))
        return out
    if not scored:
        return out
    best = max(n["total"] for n in scored)
    top = sorted(n["name"] for n in scored if n["total"] == best)
    mine = nodes[chosen].get("total")
    if mine is not None and mine != best:
        out.append(Violation(NAME, key, chosen, (
            f"{key} went to {chosen} with total score {mine}, but the maximum over the "
            f"{len(scored)} scored feasible nodes is {best} ({', '.join(top)})")))
    cands = expl.get("candidates")
    if cands is not None and sorted(cands) != top:
        out.append(Violation(NAME, key, chosen, (
            f"the explanation's highest-scored nodes {sorted(cands)} differ from the nodes "
            f"with the maximal total {best}: {top}")))
    return out
