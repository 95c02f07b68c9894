"""Oracle ``queue_fairness``: the scheduling queue's order, backoff and progress, from a queue
trace or from the attempt order, and the rotation of the node search start.

Upstream: ``pkg/scheduler/framework/plugins/queuesort/priority_sort.go`` (PrioritySort.Less),
``pkg/scheduler/backend/queue/scheduling_queue.go`` and ``backoff_queue.go``,
``pkg/scheduler/schedule_one.go`` (findNodesThatPassFilters, nextStartNodeIndex),
``pkg/scheduler/backend/cache/node_tree.go``. The invariants: docs/oracles.md#queue_fairness."""

from __future__ import annotations

import math
from typing import Any

from oracles.base import OracleContext, Violation
from oracles.replay import GATED
from reference_impl.model.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Node,
)
from reference_impl.model.scenario import parse_scenario

NAME = "queue_fairness"
ACTIVE, BACKOFF, UNSCHEDULABLE = "activeQ", "backoffQ", "unschedulablePods"
BACKOFF_COMPLETE = "BackoffComplete"
FLUSH_PERIOD = 1.0  # seconds between flushBackoffQCompleted runs (the ordering window too)
EPS = 1e-9
MAX_REPORTS = 5
# numFeasibleNodesToFind is at least 100: a search over part of the cluster examined >= 100
# nodes; fewer means a nominated node or a batching hint was tried alone.
MIN_PARTIAL_SEARCH = 100


def check(ctx: OracleContext) -> list[Violation]:
    """The queue pops higher priority first and FIFO within a priority, keeps backoffs within
    [initial, max], leaves no pod behind, and rotates the node search start (PrioritySort,
    scheduling_queue.go, nextStartNodeIndex; docs/oracles.md#queue_fairness)."""
    out: list[Violation] = []
    by_priority = all(p.queue_sort == "PrioritySort" for p in ctx.scheduler.profiles.values())
    if ctx.trace:
        out += check_trace(ctx, ctx.trace, by_priority)
    else:
        out += _check_attempt_order(ctx, by_priority)
    out += _check_rotation(ctx)
    return out


# ----------------------------------------------------------------------------- with a trace

def check_trace(ctx: OracleContext, trace: list[dict[str, Any]],
                by_priority: bool = True) -> list[Violation]:
    """The trace invariants 1-4 (docs/oracles.md#queue_fairness)."""
    prio = {p.key: p.priority for p in ctx.cluster.pods}
    for key, spec in _timeline_pods(ctx).items():
        prio.setdefault(key, spec)
    initial = ctx.scheduler.pod_initial_backoff_seconds
    maximum = ctx.scheduler.pod_max_backoff_seconds
    where: dict[str, str | None] = {}
    stamp: dict[str, float] = {}
    failed_at: dict[str, float] = {}
    stuck_reported: set[str] = set()
    out: list[Violation] = []
    for n, rec in enumerate(trace):
        op, pod, t = rec.get("op"), rec.get("pod"), float(rec.get("time", 0.0))
        if maximum > 0:
            for k, q in where.items():
                if (q == BACKOFF and k in failed_at and k not in stuck_reported
                        and t > failed_at[k] + maximum + FLUSH_PERIOD + EPS):
                    stuck_reported.add(k)
                    out.append(Violation(NAME, k, None, (
                        f"trace record {n} at {t:g}s: {k} is still in backoffQ although its "
                        f"last failure was at {failed_at[k]:g}s and podMaxBackoffSeconds is "
                        f"{maximum:g} (plus the {FLUSH_PERIOD:g}s flush period)")))
        if pod is None:
            continue
        if op == "add":
            stamp[pod] = t
            where[pod] = rec.get("to")
        elif op == "requeue":
            stamp[pod] = t
            failed_at[pod] = t
            where[pod] = rec.get("to")
        elif op in ("flush", "activate", "move", "update"):
            if (op == "flush" and rec.get("event") == BACKOFF_COMPLETE
                    and rec.get("to") == ACTIVE and pod in failed_at and maximum > 0):
                earliest = math.floor(failed_at[pod] + initial + EPS)
                if t + EPS < earliest:
                    out.append(Violation(NAME, pod, None, (
                        f"trace record {n}: {pod} completed its backoff at {t:g}s, but its last "
                        f"failure was at {failed_at[pod]:g}s and podInitialBackoffSeconds is "
                        f"{initial:g}: not before {earliest:g}s")))
            where[pod] = rec.get("to", where.get(pod))
        elif op == "pop":
            src = rec.get("from")
            if src == "backoffQ":
                waiting = sorted(k for k, q in where.items() if q == ACTIVE)
                if waiting:
                    out.append(Violation(NAME, pod, None, (
                        f"trace record {n} at {t:g}s pops {pod} from backoffQ while activeQ "
                        f"holds {', '.join(waiting[:MAX_REPORTS])}")))
            elif by_priority and pod in prio:
                out += _check_pop(n, t, pod, where, stamp, prio)
            where[pod] = None
        elif op == "delete":
            where.pop(pod, None)
    stopped = ctx.result.get("stoppedBy")
    if stopped != "until":
        left = sorted(k for k, q in where.items() if q == ACTIVE)
        if left:
            out.append(Violation(NAME, left[0], None, (
                f"the run ended ({stopped or 'without a stated reason'}) with "
                f"{len(left)} pod(s) still in activeQ, never attempted again: "
                f"{', '.join(left[:MAX_REPORTS])}")))
    return out


def _check_pop(n: int, t: float, pod: str, where: dict[str, str | None],
               stamp: dict[str, float], prio: dict[str, int]) -> list[Violation]:
    mine = prio[pod]
    my_stamp = stamp.get(pod, t)
    for k, q in where.items():
        if q != ACTIVE or k == pod or k not in prio:
            continue
        if prio[k] > mine:
            return [Violation(NAME, pod, None, (
                f"trace record {n} at {t:g}s pops {pod} (priority {mine}) from activeQ while "
                f"{k} (priority {prio[k]}) waits there: higher priority must go first"))]
        if prio[k] == mine and k in stamp and stamp[k] + EPS < my_stamp:
            return [Violation(NAME, pod, None, (
                f"trace record {n} at {t:g}s pops {pod} (priority {mine}, queued at "
                f"{my_stamp:g}s) from activeQ before {k} (same priority, queued at "
                f"{stamp[k]:g}s): FIFO within a priority"))]
    return []


def _timeline_pods(ctx: OracleContext) -> dict[str, int]:
    """Priorities of pods created by the timeline (createPod manifests)."""
    out: dict[str, int] = {}
    if not ctx.timeline:
        return out
    scenario = parse_scenario(ctx.timeline, ctx.cluster)
    for te in [*scenario.events, *scenario.triggered]:
        if te.pod is not None:
            out[te.pod.key] = te.pod.priority
    return out


# ----------------------------------------------------------------------------- without a trace

def _check_attempt_order(ctx: OracleContext, by_priority: bool) -> list[Violation]:
    out: list[Violation] = []
    initial = {p.key: p for p in ctx.cluster.pods if not p.node_name}
    served = {k: p for k, p in initial.items()
              if ctx.profile_for(p) is not None and p.deletion_timestamp is None}
    attempted: set[str] = set()
    gated: set[str] = set()
    firsts: list[tuple[int, str]] = []
    for i, a in enumerate(ctx.attempts):
        key = a.get("pod", "")
        if a.get("outcome") == GATED:
            gated.add(key)
        if key in attempted:
            continue
        attempted.add(key)
        if key in served and key not in gated and not served[key].scheduling_gates:
            firsts.append((i, key))
    if by_priority:
        reported = 0
        for (i, a), (j, b) in zip(firsts, firsts[1:], strict=False):
            if served[b].priority > served[a].priority and reported < MAX_REPORTS:
                reported += 1
                out.append(Violation(NAME, b, None, (
                    f"attempt {j} is the first attempt of {b} (priority {served[b].priority}), "
                    f"after attempt {i} of {a} (priority {served[a].priority}), although both "
                    "were in activeQ from the start: higher priority must go first")))
    deleted = set(ctx.result.get("deleted") or ()) | set(ctx.result.get("removed") or ())
    never = sorted(k for k in served if k not in attempted and k not in deleted
                   and k not in (ctx.result.get("bindings") or {}))
    if never:
        out.append(Violation(NAME, never[0], None, (
            f"{len(never)} pending pod(s) served by a profile never got an attempt: "
            f"{', '.join(never[:MAX_REPORTS])}")))
    return out


# ----------------------------------------------------------------------------- rotation

def zone_key(node: Node) -> str:
    """``GetZoneKey`` (component-helpers/node/topology/helpers.go): region and zone, the
    beta labels first."""
    labels = node.labels
    zone = labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE, labels.get(LABEL_TOPOLOGY_ZONE, ""))
    region = labels.get(LABEL_FAILURE_DOMAIN_BETA_REGION, labels.get(LABEL_TOPOLOGY_REGION, ""))
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


def node_tree_order(nodes: list[Node]) -> list[str]:
    """``nodeTree.list``: zones in order of first appearance, nodes taken round-robin, one
    from each zone per round."""
    zones: dict[str, list[str]] = {}
    for n in nodes:
        zones.setdefault(zone_key(n), []).append(n.name)
    out: list[str] = []
    i = 0
    while len(out) < len(nodes):
        for names in zones.values():
            if i < len(names):
                out.append(names[i])
        i += 1
    return out


def _check_rotation(ctx: OracleContext) -> list[Violation]:
    if not ctx.explanations or ctx.timeline:
        return []
    order = node_tree_order(ctx.cluster.nodes)
    n = len(order)
    pos = {name: i for i, name in enumerate(order)}
    counts: dict[str, int] = {}
    for a in ctx.attempts:
        counts[a.get("pod", "")] = counts.get(a.get("pod", ""), 0) + 1
    out: list[Violation] = []
    start: int | None = 0
    for i, a in enumerate(ctx.attempts):
        key = a.get("pod", "")
        if a.get("outcome") == GATED:
            continue
        expl = ctx.explanations.get(key)
        evaluated = expl.get("evaluatedNodes") if expl else None
        narrowed = expl is not None and any(
            f.get("plugin") == "PreFilterResult" for x in expl.get("nodes", [])
            for f in x.get("filters", []))
        if (expl is None or counts[key] != 1 or not isinstance(evaluated, int) or narrowed
                or a.get("nominatedNode") or a.get("victims")
                or (evaluated < MIN_PARTIAL_SEARCH and evaluated < n)):
            start = None  # a shortcut or unknown search: the index is unknown from here on
            continue
        if start is not None and evaluated < n:
            window = {order[(start + j) % n] for j in range(evaluated)}
            examined = [x["name"] for x in expl.get("nodes", []) if x.get("examined")]
            outside = [x for x in examined if x not in window]
            if outside:
                out.append(Violation(NAME, key, outside[0], (
                    f"attempt {i} examined {outside[0]} (position {pos.get(outside[0])} in the "
                    f"node order), outside the window of {evaluated} node(s) starting at "
                    f"position {start} where the previous attempts left nextStartNodeIndex")))
        if start is not None:
            start = (start + evaluated) % n if n else 0
    return out
