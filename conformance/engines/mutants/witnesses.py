"""Manifest helpers for the witness scenarios of the catalogue: tiny Node, Pod, PriorityClass,
Namespace, KubeSchedulerConfiguration and timeline documents. Every witness is built with these
(imported as ``w``), so that they can be replaced by shared test-object builders in one place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance.core.scenario import ScenarioInput

Doc = dict[str, Any]

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
WEB = {"app": "web"}


def node(name: str, cpu: str = "4", memory: str = "8Gi", pods: int = 110, *,
         labels: Mapping[str, str] | None = None, taints: Sequence[Doc] = (),
         unschedulable: bool = False, extra: Mapping[str, Any] | None = None) -> Doc:
    """A Node with allocatable ``cpu``, ``memory``, ``pods`` (and ``extra`` resources) and the
    hostname label."""
    alloc: Doc = {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}
    spec: Doc = {}
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    meta: Doc = {"name": name, "labels": {HOSTNAME: name, **(labels or {})}}
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec,
            "status": {"allocatable": alloc}}


def container(name: str = "c", requests: Mapping[str, Any] | None = None, *,
              ports: Sequence[Doc] = (), restart_policy: str | None = None) -> Doc:
    c: Doc = {"name": name, "image": "busybox"}
    if requests:
        c["resources"] = {"requests": dict(requests)}
    if ports:
        c["ports"] = [dict(p) for p in ports]
    if restart_policy:
        c["restartPolicy"] = restart_policy
    return c


def pod(name: str, requests: Mapping[str, Any] | None = None, *, node: str | None = None,
        labels: Mapping[str, str] | None = None, namespace: str | None = None,
        priority_class: str | None = None, ports: Sequence[Doc] = (),
        status: Doc | None = None, **spec: Any) -> Doc:
    """A pod with one container ``c`` requesting ``requests``; ``spec`` adds v1 spec fields
    (camelCase names as keyword arguments)."""
    meta: Doc = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = dict(labels)
    body: Doc = {"containers": [container("c", requests, ports=ports)], **spec}
    if node:
        body["nodeName"] = node
    if priority_class:
        body["priorityClassName"] = priority_class
    out: Doc = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}
    if status:
        out["status"] = dict(status)
    return out


def priority_class(name: str, value: int) -> Doc:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value}


def namespace(name: str) -> Doc:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def timeline(*events: Doc) -> Doc:
    """A ``kind: Scenario`` document with these timeline events."""
    return {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": list(events)}}


def config(**fields: Any) -> Doc:
    """A KubeSchedulerConfiguration with these top-level fields."""
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            **fields}


def taint(key: str, effect: str, value: str | None = None) -> Doc:
    t: Doc = {"key": key, "effect": effect}
    if value is not None:
        t["value"] = value
    return t


def spread(max_skew: int = 1, key: str = ZONE, **extra: Any) -> Doc:
    """A DoNotSchedule topology spread constraint over the ``app: web`` pods."""
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": dict(WEB)}, **extra}


def scenario(name: str, *docs: Doc, config: Doc | None = None) -> ScenarioInput:
    """The witness scenario ``witness-NAME`` of these documents (seed 0)."""
    return ScenarioInput(list(docs), config, 0, f"witness-{name}")
