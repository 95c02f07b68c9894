"""Oracle ``no_false_unschedulable``: a pod reported Unschedulable really had no node, and a pod
that could preempt did.

Upstream: ``schedulePod`` / ``findNodesThatFitPod`` in ``pkg/scheduler/schedule_one.go``,
``DefaultPreemption.SelectVictimsOnNode`` and ``PodEligibleToPreemptOthers``
(``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``),
``Evaluator.Preempt`` (``pkg/scheduler/framework/preemption/preemption.go``).
The invariants, upstream's exceptions and what is not judged:
docs/oracles.md#no_false_unschedulable."""

from __future__ import annotations

from oracles.base import OracleContext, Violation
from oracles.profiles import ProfileView
from oracles.replay import GATED, KNOWN_PRE_ENQUEUE, UNSCHEDULABLE, ClusterState, Replay
from oracles.rules import (
    FilterConfig,
    PodFit,
    fit_reasons,
    nominated_for,
    port_conflict,
    requests_of,
    resource_shortfalls,
    sum_requests,
    unmodelled_pod_features,
)
from reference_impl.model.objects import Pod

NAME = "no_false_unschedulable"
PREEMPT_NEVER = "Never"
MAX_LISTED = 3


def feasible_nodes(pod: Pod, state: ClusterState, cfg: FilterConfig) -> list[str]:
    """The nodes that pass every restated rule (with nominated pods), in node order."""
    world = state.world()
    base = PodFit(pod, world, cfg)
    out = []
    for name in state.nodes:
        nominated = nominated_for(pod, name, state.nominated, state.pending)
        if not fit_reasons(pod, name, world, cfg, nominated, base):
            out.append(name)
    return out


def preemption_nodes(pod: Pod, state: ClusterState, cfg: FilterConfig) -> list[str]:
    """Nodes where the pod passes every restated rule once every lower-priority pod on that
    node is removed (``SelectVictimsOnNode``'s first check), which have such a pod. Nodes that
    fail a rule no removal can change (static rules, resources or ports still short with only
    the higher-priority and nominated pods) are ruled out before the full check."""
    world = state.world()
    base = PodFit(pod, world, cfg)
    out = []
    for name, node in state.nodes.items():
        lower = [p.key for p in state.pods_on.get(name, ()) if p.priority < pod.priority]
        if not lower or base.static_reasons(name):
            continue
        nominated = nominated_for(pod, name, state.nominated, state.pending)
        keep = [p for p in state.pods_on.get(name, ()) if p.priority >= pod.priority]
        keep += nominated
        if "NodeResourcesFit" in cfg.enabled and resource_shortfalls(
                base.req, node, keep, cfg.ignored_resources, cfg.ignored_groups,
                cfg.dra_extended, cfg.fit_skipped):
            continue
        if "NodePorts" in cfg.enabled and pod.host_ports and port_conflict(pod.host_ports, keep):
            continue
        if not fit_reasons(pod, name, world.without(name, lower), cfg, nominated,
                           prefilter=world):
            out.append(name)
    return out


def free_summary(pod: Pod, node: str, state: ClusterState) -> str:
    """A short account of the node's free resources, for the messages."""
    n = state.nodes[node]
    used = sum_requests(state.pods_on.get(node, ()))
    req = requests_of(pod)
    a = n.allocatable
    return (f"{node}: cpu {req.milli_cpu}m requested of {a.milli_cpu - used.milli_cpu}m free, "
            f"memory {req.memory} of {a.memory - used.memory} free, "
            f"{len(state.pods_on.get(node, ()))}/{a.allowed_pod_number} pods")


def _wrongly_gated(pod: Pod, prof: ProfileView | None, state: ClusterState) -> bool:
    """A plain pod without scheduling gates can only be held at PreEnqueue by DefaultPreemption
    while its own preemption is in flight (SchedulerAsyncPreemption), or by a plugin the
    oracles do not know."""
    if prof is None or pod.scheduling_gates or unmodelled_pod_features(pod):
        return False
    if any(p not in KNOWN_PRE_ENQUEUE for p in prof.points.get("preEnqueue", ())):
        return False
    return not state.victims_of.get(pod.key)


def check(ctx: OracleContext) -> list[Violation]:
    """Every Unschedulable pod had no feasible node at that time, and was nominated or preempted
    when removing lower-priority pods would have made room (schedulePod,
    SelectVictimsOnNode; docs/oracles.md#no_false_unschedulable)."""
    out: list[Violation] = []
    for step in Replay.of(ctx):
        pod = step.pod
        if pod is None:
            continue
        prof = ctx.profile_for(pod)
        if step.outcome == GATED:
            if (_wrongly_gated(pod, prof, step.state)
                    and pod.key not in step.gated_this_instant):
                out.append(Violation(NAME, pod.key, None, (
                    f"attempt {step.index} reports {pod.key} Gated, but the pod has no "
                    "scheduling gates and no other PreEnqueue rule of its profile applies")))
            continue
        if step.outcome != UNSCHEDULABLE:
            continue
        cfg = ctx.filters_for(pod)
        if prof is None or cfg is None or prof.unrestated_rejecters() or \
                unmodelled_pod_features(pod, cfg.dra_extended):
            continue
        state = step.state
        fits = feasible_nodes(pod, state, cfg)
        if fits and state.terminating:
            # victims of a preemption still in flight may still occupy their nodes upstream
            fits = [n for n in fits if n in feasible_nodes(pod, state.with_terminating(), cfg)]
        held = state.with_terminating_nominations()
        if fits and held is not state:
            # a pending pod being deleted keeps its nomination until the queue skips it
            fits = [n for n in fits if n in feasible_nodes(pod, held, cfg)]
        if fits:
            listed = "; ".join(free_summary(pod, n, state) for n in fits[:MAX_LISTED])
            more = f" (and {len(fits) - MAX_LISTED} more)" if len(fits) > MAX_LISTED else ""
            out.append(Violation(NAME, pod.key, fits[0], (
                f"attempt {step.index} reports {pod.key} Unschedulable "
                f"({step.attempt.get('message', '')!r}), but {len(fits)} node(s) pass every "
                f"Filter rule of its profile at that time: {listed}{more}")))
            continue
        if not prof.preemption or pod.preemption_policy == PREEMPT_NEVER:
            continue
        if step.nominated_node or step.victims:
            continue
        if state.nominated.get(pod.key) and state.victims_of.get(pod.key):
            continue  # upstream: victims may still be terminating on the nominated node
        nodes = preemption_nodes(pod, state, cfg)
        if nodes and state.terminating:
            # the dry run sees victims still in flight too: a node counts only if removing
            # its lower-priority pods makes room also with them still there
            nodes = [n for n in nodes if n in preemption_nodes(pod, state.with_terminating(),
                                                               cfg)]
        if nodes and held is not state:
            # so does the nomination of a pending pod being deleted
            nodes = [n for n in nodes if n in preemption_nodes(pod, held, cfg)]
        if nodes and prof.preemption_num_candidates(len(nodes)) == 0:
            # Upstream keeps no candidate at all when the profile's candidate count is 0 (e.g.
            # minCandidateNodesAbsolute 0 and few nodes); the potential nodes are at least these.
            continue
        if nodes:
            n = nodes[0]
            lower = [p for p in state.pods_on.get(n, ()) if p.priority < pod.priority]
            out.append(Violation(NAME, pod.key, n, (
                f"attempt {step.index} reports {pod.key} (priority {pod.priority}) "
                f"Unschedulable without nominating a node or preempting, but DefaultPreemption "
                f"is enabled and {len(nodes)} node(s) would fit it after removing their "
                f"lower-priority pods, e.g. {n} after removing "
                f"{', '.join(f'{p.key} (priority {p.priority})' for p in lower)}")))
    return out
