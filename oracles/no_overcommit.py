"""Oracle ``no_overcommit``: a bind never over-commits the node.

Upstream rule: ``pkg/scheduler/framework/plugins/noderesources/fit.go`` (``fitsRequest``), with
requests from ``staging/src/k8s.io/component-helpers/resource/helpers.go`` (``PodRequests``).
The invariant and its exceptions: docs/oracles.md#no_overcommit."""

from __future__ import annotations

from oracles.base import OracleContext, Violation
from oracles.replay import BOUND, Replay
from oracles.rules import fmt_amount, is_ignored_resource, requests_of, sum_requests

NAME = "no_overcommit"


def check(ctx: OracleContext) -> list[Violation]:
    """After every bind, the chosen node's pods request at most its allocatable for every resource
    the bound pod requests, and their count is at most allocatable pods
    (noderesources/fit.go fitsRequest; docs/oracles.md#no_overcommit)."""
    out: list[Violation] = []
    for step in Replay.of(ctx):
        if step.outcome != BOUND or step.pod is None or step.node not in step.state.nodes:
            continue
        pod, node_name = step.pod, step.node
        cfg = ctx.filters_for(pod)
        if cfg is None or "NodeResourcesFit" not in cfg.enabled:
            continue
        node = step.state.nodes[node_name]
        before = step.state.pods_on.get(node_name, [])
        alloc = node.allocatable
        count = len(before) + 1
        skipped = cfg.fit_skipped  # what a declared replacement changes on purpose
        if count > alloc.allowed_pod_number and "pods" not in skipped:
            out.append(Violation(NAME, pod.key, node_name, (
                f"binding {pod.key} makes {count} pods on {node_name}, but the node's "
                f"allocatable pods is {alloc.allowed_pod_number}")))
        req = requests_of(pod)
        used = sum_requests(before)
        rows = [("cpu", req.milli_cpu, used.milli_cpu, alloc.milli_cpu),
                ("memory", req.memory, used.memory, alloc.memory),
                ("ephemeral-storage", req.ephemeral_storage, used.ephemeral_storage,
                 alloc.ephemeral_storage)]
        for name, want in sorted(req.scalar.items()):
            if "extended" in skipped or is_ignored_resource(name, cfg.ignored_resources,
                                                            cfg.ignored_groups):
                continue
            if name in cfg.dra_extended and alloc.scalar.get(name, 0) <= 0:
                continue  # DynamicResources counts it (shouldDelegateResourceToDRA, fit.go)
            rows.append((name, want, used.scalar.get(name, 0), alloc.scalar.get(name, 0)))
        for name, want, have, cap in rows:
            if want > 0 and have + want > cap and name not in skipped:
                out.append(Violation(NAME, pod.key, node_name, (
                    f"binding {pod.key} over-commits {name} on {node_name}: the {len(before)} "
                    f"pod(s) already there request {fmt_amount(name, have)}, the pod requests "
                    f"{fmt_amount(name, want)}, total {fmt_amount(name, have + want)} > "
                    f"allocatable {fmt_amount(name, cap)}")))
    return out
