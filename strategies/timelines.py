"""Timelines: ``kschedconf/v1`` Scenario documents (see ``reference_impl/model/scenario.py``).

A timeline is drawn for a given cluster and pending pods, event after event, with times that
never go back. A model of what exists (nodes, pods, their scheduling gates) is kept while
drawing, so every event names a target that exists at its time, as ``parse_scenario`` requires:
nodes are created, deleted (with the pods bound to them), cordoned, uncordoned, labelled,
tainted and untainted; pods are created (pending), deleted, finished, and have their
scheduling gates removed; then up to two pods are created by a binding (``when: {podBound:
...}``, chains included; docs/strategies.md).

Shrinking removes events from the end and pulls times towards zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hypothesis import strategies as st

import strategies.vocabulary as v
from strategies._cache import booleans, composite, integers, sampled
from strategies.clusters import GeneratedCluster
from strategies.objects import (
    PodContext,
    node_from_template,
    node_templates,
    pod_from_template,
    pod_templates,
    taints,
)
from strategies.sizes import SMALL, Sizes, resolve_features

__all__ = ["timelines", "ACTIONS", "format_duration"]

Doc = dict[str, Any]

ACTIONS = ("createPod", "deletePod", "finishPod", "removeSchedulingGates", "createNode",
           "deleteNode", "cordon", "uncordon", "labelNode", "taintNode", "untaintNode")


def format_duration(seconds: int, form: int) -> str | int:
    """``seconds`` as a plain number (form 0), "<n>s" (1) or a Go duration like "1m30s" (2)."""
    if form == 0:
        return seconds
    if form == 1 or seconds < 60:
        return f"{seconds}s"
    m, s = divmod(seconds, 60)
    return f"{m}m{s}s" if s else f"{m}m"


def _key(pod: Doc) -> str:
    return f"{pod['metadata'].get('namespace', 'default')}/{pod['metadata']['name']}"


def _pod_ref(pod: Doc, full: bool) -> str:
    ns = pod["metadata"].get("namespace", "default")
    if ns == "default" and not full:
        return pod["metadata"]["name"]
    return _key(pod)


class _World:
    """What exists at the current time of the timeline being drawn."""

    def __init__(self, cluster: GeneratedCluster, pending: Iterable[Doc]) -> None:
        self.nodes: list[str] = list(cluster.node_names)
        self.pods: dict[str, Doc] = {}
        self.gates: dict[str, list[str]] = {}
        for p in [*cluster.running_pods, *pending]:
            self.pods[_key(p)] = p
            self.gates[_key(p)] = [g["name"] for g in p["spec"].get("schedulingGates") or []]
        self.next_node = len(self.nodes)
        self.next_pod = cluster.next_pod_index + len(self.pods)
        self.all_node_names = set(self.nodes)

    def delete_node(self, name: str) -> None:
        self.nodes.remove(name)
        for key in [k for k, p in self.pods.items() if p["spec"].get("nodeName") == name]:
            self.delete_pod(key)

    def delete_pod(self, key: str) -> None:
        del self.pods[key]
        del self.gates[key]


def _possible(world: _World, action: str) -> bool:
    if action in ("deleteNode", "cordon", "uncordon", "labelNode", "taintNode", "untaintNode"):
        return bool(world.nodes)
    if action in ("deletePod", "finishPod"):
        return bool(world.pods)
    if action == "removeSchedulingGates":
        return any(world.gates.values())
    return True


@composite
def _event(draw: st.DrawFn, world: _World, ctx: PodContext, sizes: Sizes,
           f: frozenset[str]) -> Doc | None:
    actions = [a for a in ACTIONS if _possible(world, a)]
    if "scheduling_gates" not in f:
        actions = [a for a in actions if a != "removeSchedulingGates"]
    action = draw(sampled(actions))
    e: Doc = {"action": action}
    if action == "createPod":
        ctx = PodContext(ctx.namespaces, ctx.priority_classes, tuple(world.nodes) or
                         ctx.node_names, ctx.scheduler_names)
        template = draw(pod_templates(sizes, f, ctx))
        base = (template["metadata"].get("labels") or {}).get("app", "pod")
        pod = pod_from_template(template, f"{base}-{world.next_pod}")
        world.next_pod += 1
        e["pod"] = pod
        world.pods[_key(pod)] = pod
        world.gates[_key(pod)] = [g["name"] for g in pod["spec"].get("schedulingGates") or []]
    elif action in ("deletePod", "finishPod"):
        keys = sorted(world.pods)
        if action == "finishPod":  # mostly pods that are running from the start
            running = [k for k in keys if world.pods[k]["spec"].get("nodeName")]
            keys = running or keys
        key = draw(sampled(keys))
        e["pod"] = _pod_ref(world.pods[key], draw(booleans()))
        world.delete_pod(key)
    elif action == "removeSchedulingGates":
        key = draw(sampled(sorted(k for k, g in world.gates.items() if g)))
        e["pod"] = _pod_ref(world.pods[key], draw(booleans()))
        gates = world.gates[key]
        removed = draw(st.lists(sampled(gates), unique=True, max_size=len(gates)))
        if removed:
            e["gates"] = removed
            world.gates[key] = [g for g in gates if g not in removed]
        else:
            world.gates[key] = []
    elif action == "createNode":
        name = f"node-{world.next_node}"
        world.next_node += 1
        template = draw(node_templates(sizes, f))
        node = node_from_template(template, name, draw(sampled(v.ZONES)))
        if draw(booleans()):  # kind and apiVersion may be omitted inline
            node = {k: x for k, x in node.items() if k not in ("kind", "apiVersion")}
        e["node"] = node
        world.nodes.append(name)
    else:
        name = draw(sampled(world.nodes))
        e["node"] = name
        if action == "deleteNode":
            world.delete_node(name)
        elif action == "labelNode":
            key = draw(sampled((v.ZONE, *v.NODE_LABELS)))
            values = v.ZONES if key == v.ZONE else v.NODE_LABELS[key]
            value = draw(sampled((*values, None)))
            e["labels"] = {key: value}
        elif action == "taintNode":
            e["taints"] = [draw(taints())]
        elif action == "untaintNode":
            t: Doc = {"key": draw(sampled(v.TAINT_KEYS))}
            effect = draw(sampled(("",) + v.TAINT_EFFECTS))
            if effect:
                t["effect"] = effect
            e["taints"] = [t]
    return e


@composite
def _triggered(draw: st.DrawFn, world: _World, ctx: PodContext, sizes: Sizes,
               f: frozenset[str], pending: list[Doc], room: int) -> list[Doc]:
    """Up to ``room`` ``createPod`` events triggered by the binding of a pod that starts
    pending or that the timeline creates pending (never one bound from the start: it triggers
    nothing)."""
    triggers = [p for p in pending if not p["spec"].get("nodeName")]
    out: list[Doc] = []
    if not triggers or room <= 0:
        return out
    for _ in range(draw(integers(0, room))):
        after = triggers[draw(integers(0, len(triggers) - 1))]
        pctx = PodContext(ctx.namespaces, ctx.priority_classes, tuple(world.nodes) or
                          ctx.node_names, ctx.scheduler_names)
        template = draw(pod_templates(sizes, f, pctx))
        base = (template["metadata"].get("labels") or {}).get("app", "pod")
        pod = pod_from_template(template, f"{base}-{world.next_pod}")
        world.next_pod += 1
        out.append({"when": {"podBound": _pod_ref(after, draw(booleans()))},
                    "action": "createPod", "pod": pod})
        triggers.append(pod)
    return out


@composite
def timelines(draw: st.DrawFn, cluster: GeneratedCluster, pending: Iterable[Doc] = (),
              sizes: Sizes = SMALL, features: Iterable[str] | None = None,
              scheduler_names: tuple[str, ...] = (v.DEFAULT_SCHEDULER,)) -> Doc:
    """A Scenario document whose events all refer to things that exist when they happen.
    ``pending`` are the cluster's pending pods (targets of deletePod and
    removeSchedulingGates besides the running pods)."""
    f = resolve_features(features)
    world = _World(cluster, pending)
    ctx = cluster.pod_context(scheduler_names)
    events: list[Doc] = []
    t = 0
    for _ in range(draw(integers(0, sizes.max_events))):
        t += draw(sampled((10, 0, 1, 30, 60, 300)))
        e = draw(_event(world, ctx, sizes, f))
        if e is None:
            continue
        events.append({"at": format_duration(t, draw(integers(0, 2))), **e})
    room = min(2, sizes.max_events - len(events))
    events += draw(_triggered(world, ctx, sizes, f, [*pending, *(
        e["pod"] for e in events if e["action"] == "createPod")], room))
    doc: Doc = {"apiVersion": "kschedconf/v1", "kind": "Scenario"}
    if draw(booleans()):
        doc["metadata"] = {"name": "generated"}
    spec: Doc = {"events": events}
    if draw(integers(0, 3)) == 3:
        spec["until"] = format_duration(t + draw(sampled((60, 0, 600))), 2)
    doc["spec"] = spec
    return doc
