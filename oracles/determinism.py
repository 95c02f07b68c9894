"""Determinism and metamorphic relations: helpers that run a subject more than once.

:func:`determinism` (same input and seed twice, identical documents); :func:`rename_relation`,
:func:`permute_relation` and :func:`unfit_node_relation` (renaming, permuting or adding an
unfit node changes no decision beyond tie-breaks, :func:`compare_up_to_ties`); a relation that
does not hold upstream for a scenario raises :class:`NotApplicable`.
When the relations hold upstream (``pkg/scheduler/schedule_one.go`` numFeasibleNodesToFind,
``pkg/scheduler/framework/plugins/imagelocality``): docs/oracles.md#determinism."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from typing import Any

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject
from oracles.base import Violation
from oracles.profiles import read_scheduler_config
from oracles.transforms import (
    UNFIT_NODE_NAME,
    add_unfit_node,
    has_timeline,
    permute_nodes,
    rename_nodes,
    scenario_node_names,
)

DETERMINISM = "determinism"
METAMORPHIC = "metamorphic"
FULL_SEARCH_NODES = 100


class NotApplicable(Exception):
    """The relation does not hold upstream for this scenario (the reason says why)."""


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    if type(a) is not type(b):
        return f"{path or '<root>'}: {json.dumps(a)[:80]} vs {json.dumps(b)[:80]}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: present in only one run"
            d = _first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            d = _first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} items"
        return None
    if a != b:
        return f"{path}: {json.dumps(a)[:80]} vs {json.dumps(b)[:80]}"
    return None


def determinism(subject: Subject, scenario: ScenarioInput) -> list[Violation]:
    """Same input and seed twice: identical result documents (and traces)."""
    r1, r2 = subject.run(scenario), subject.run(scenario)
    out = []
    diff = _first_difference(r1.result, r2.result)
    if diff:
        out.append(Violation(DETERMINISM, None, None, (
            f"two runs of {scenario.name} with seed {scenario.seed} differ at {diff}")))
    if r1.trace is not None or r2.trace is not None:
        diff = _first_difference(r1.trace, r2.trace, "trace")
        if diff:
            out.append(Violation(DETERMINISM, None, None, (
                f"the queue traces of two runs of {scenario.name} differ at {diff}")))
    return out


def compare_up_to_ties(a: Mapping[str, Any], b: Mapping[str, Any],
                       b_to_a: Callable[[str], str] = lambda n: n,
                       relation: str = "the transformed scenario") -> list[Violation]:
    """Compare two result documents up to tie-breaks; ``b_to_a`` maps node names of ``b``
    back to ``a``'s.

    The two runs' attempts are walked side by side; up to the first difference they must name
    the same pods with the same outcomes, bound pods the same (mapped) node. The first
    difference is accepted only if it is a tie-break: a Bound attempt whose two nodes are each
    in the other run's reported ``candidates`` (tied highest scores), or a preemption that
    nominated a different node (upstream picks among equally good candidates by their order).
    After an accepted tie-break the runs may legitimately diverge (later pods see different
    clusters), so the comparison stops there. Without any difference the final bindings and
    pending pods must match as well."""
    def m(n: str | None) -> str | None:
        return None if n is None else b_to_a(n)

    aa, ba = list(a.get("attempts", [])), list(b.get("attempts", []))
    for i, (x, y) in enumerate(zip(aa, ba, strict=False)):
        where = f"attempt {i}"
        if x.get("pod") != y.get("pod"):
            return [Violation(METAMORPHIC, x.get("pod"), None, (
                f"{where}: the original run tries {x.get('pod')}, {relation} tries "
                f"{y.get('pod')}: the queue order must not depend on nodes"))]
        pod = x.get("pod")
        if x.get("outcome") != y.get("outcome"):
            return [Violation(METAMORPHIC, pod, None, (
                f"{where}: {pod} is {x.get('outcome')} in the original run but "
                f"{y.get('outcome')} with {relation} ({x.get('message') or x.get('node')!r} vs "
                f"{y.get('message') or m(y.get('node'))!r})"))]
        if x.get("outcome") == "Bound":
            nx, ny = x.get("node"), m(y.get("node"))
            if nx != ny:
                ca = set(x.get("candidates") or [nx])
                cb = {m(c) for c in y.get("candidates") or [y.get("node")]}
                if ny in ca and nx in cb:
                    return []  # a tie-break: later attempts may legitimately differ
                return [Violation(METAMORPHIC, pod, nx, (
                    f"{where}: {pod} goes to {nx} in the original run (tied best: "
                    f"{sorted(ca)}) but to {ny} with {relation} (tied best: "
                    f"{sorted(c for c in cb if c)}): not a tie-break"))]
        nom_x, nom_y = x.get("nominatedNode"), m(y.get("nominatedNode"))
        if nom_x != nom_y or sorted(x.get("victims") or []) != sorted(y.get("victims") or []):
            if nom_x and nom_y and (x.get("victims") or y.get("victims")):
                return []  # another preemption candidate among equally good ones
            return [Violation(METAMORPHIC, pod, nom_x, (
                f"{where}: {pod} is nominated to {nom_x} with victims {x.get('victims')} in the "
                f"original run but to {nom_y} with victims {y.get('victims')} with "
                f"{relation}"))]
    if len(aa) != len(ba):
        return [Violation(METAMORPHIC, None, None, (
            f"the original run has {len(aa)} attempts, {relation} {len(ba)}, with no "
            "tie-break before"))]
    bx = dict(a.get("bindings") or {})
    by = {k: m(v) for k, v in (b.get("bindings") or {}).items()}
    if bx != by:
        diff = sorted(k for k in set(bx) | set(by) if bx.get(k) != by.get(k))
        return [Violation(METAMORPHIC, diff[0], None, (
            f"same attempts but different final bindings with {relation} for "
            f"{', '.join(diff[:5])}"))]
    if sorted(a.get("pending") or []) != sorted(b.get("pending") or []):
        return [Violation(METAMORPHIC, None, None, (
            f"same attempts but different pending pods with {relation}"))]
    return []


def _full_search(scenario: ScenarioInput, extra_nodes: int = 0) -> None:
    n = len(scenario_node_names(scenario)) + extra_nodes
    if n < FULL_SEARCH_NODES:
        return
    cfg = scenario.config or {}
    pcts = [cfg.get("percentageOfNodesToScore")] + [
        p.get("percentageOfNodesToScore") for p in cfg.get("profiles") or []]
    if not any(p == 100 for p in pcts):
        raise NotApplicable(f"{n} nodes: upstream examines only part of the cluster "
                            "(numFeasibleNodesToFind), so node order decides more than ties")


def rename_relation(subject: Subject, scenario: ScenarioInput, seed: int = 0
                    ) -> list[Violation]:
    """Renaming every node changes no decision beyond tie-breaks."""
    if has_timeline(scenario):
        raise NotApplicable("the scenario has a timeline (its node names are not rewritten)")
    names = scenario_node_names(scenario)
    rng = random.Random(seed)
    fresh = [f"renamed-{rng.getrandbits(40):010x}" for _ in names]
    mapping = dict(zip(names, fresh, strict=True))
    inverse = {v: k for k, v in mapping.items()}
    a = subject.run(scenario).result
    b = subject.run(rename_nodes(scenario, mapping)).result
    return compare_up_to_ties(a, b, lambda n: inverse.get(n, n), "the nodes renamed")


def permute_relation(subject: Subject, scenario: ScenarioInput, seed: int = 0
                     ) -> list[Violation]:
    """Permuting the input order of the nodes changes no decision beyond tie-breaks."""
    _full_search(scenario)
    a = subject.run(scenario).result
    b = subject.run(permute_nodes(scenario, seed)).result
    return compare_up_to_ties(a, b, relation="the nodes permuted")


def unfit_node_relation(subject: Subject, scenario: ScenarioInput) -> list[Violation]:
    """Adding a node that fits no pod changes no decision beyond tie-breaks."""
    _full_search(scenario, extra_nodes=1)
    if has_timeline(scenario):
        raise NotApplicable("the scenario has a timeline")
    for o in scenario.documents:
        if isinstance(o, dict) and o.get("kind") == "Node" and (o.get("status") or {}).get(
                "images"):
            raise NotApplicable("node images: ImageLocality scores depend on the node count")
    sched = read_scheduler_config(scenario.config, scenario.release)
    if not all(p.enabled("NodeResourcesFit") for p in sched.profiles.values()):
        raise NotApplicable("a profile disables NodeResourcesFit: the added node's zero "
                            "allocatable pods would not keep every pod off it")
    changed = add_unfit_node(scenario)
    a = subject.run(scenario).result
    b = subject.run(changed).result
    out = [Violation(METAMORPHIC, x.get("pod"), UNFIT_NODE_NAME, (
        f"{x.get('pod')} was bound to the added node {UNFIT_NODE_NAME}, which is unschedulable, "
        "tainted and has no allocatable pods"))
        for x in b.get("attempts", []) if x.get("node") == UNFIT_NODE_NAME]
    return out or compare_up_to_ties(a, b, relation="an unfit node added")
