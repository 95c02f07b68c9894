"""Concise builders of model objects for tests.

Each builder writes the v1 manifest (a dict) and runs it through the real loader
(``load_documents``), so what tests get is exactly what the loader produces from a manifest:
defaulting applied, ``pod.resources`` and ``pod.host_ports`` computed.

    make_node("n1", cpu="8", labels={"zone": "a"}, taints=["dedicated=gpu:NoSchedule"])
    make_pod("p", cpu="500m", memory="1Gi", tolerations=[{"key": "dedicated",
             "operator": "Exists"}], node_selector={"zone": "a"})
"""

from __future__ import annotations

import copy
import datetime as _dt
from collections.abc import Iterable, Mapping
from dataclasses import is_dataclass
from typing import Any

from reference_impl.model.loader import load_documents
from reference_impl.model.objects import ContainerImage, Node, Pod, Taint, Toleration

__all__ = ["make_node", "make_pod", "node_from_dict", "pod_from_dict", "node_dict", "pod_dict"]

# make_pod keyword arguments that go to metadata / status instead of spec.
_METADATA_FIELDS = {"uid", "annotations", "creation_timestamp", "deletion_timestamp",
                    "owner_references"}
_STATUS_FIELDS = {"nominated_node_name", "start_time", "phase"}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _merge(into: dict, extra: Mapping[str, Any]) -> None:
    """Deep-merge ``extra`` into ``into`` (mappings merged, anything else replaced)."""
    for k, v in extra.items():
        if isinstance(v, Mapping) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = copy.deepcopy(v)


def _timestamp(v: object) -> object:
    """Seconds since the epoch -> RFC 3339 text; strings pass through."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        dt = _dt.datetime.fromtimestamp(v, tz=_dt.UTC)
        return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return v


def _taint_dict(t: object) -> dict:
    """A taint given as Taint, dict, or "key=value:Effect" / "key:Effect"."""
    if isinstance(t, Taint):
        return {"key": t.key, "value": t.value, "effect": t.effect}
    if isinstance(t, str):
        kv, _, effect = t.rpartition(":")
        key, _, val = kv.partition("=")
        return {"key": key, "value": val, "effect": effect}
    return dict(t)  # type: ignore[call-overload]


def _toleration_dict(t: object) -> dict:
    if isinstance(t, Toleration):
        d: dict[str, Any] = {"key": t.key, "operator": t.operator, "value": t.value,
                             "effect": t.effect}
        if t.toleration_seconds is not None:
            d["tolerationSeconds"] = t.toleration_seconds
        return {k: v for k, v in d.items() if v != ""}
    return dict(t)  # type: ignore[call-overload]


def _image_dict(im: object) -> dict:
    """An image given as ContainerImage, dict, (names, size) or (name, size)."""
    if isinstance(im, ContainerImage):
        return {"names": list(im.names), "sizeBytes": im.size_bytes}
    if isinstance(im, Mapping):
        return dict(im)
    names, size = im  # type: ignore[misc]
    return {"names": [names] if isinstance(names, str) else list(names), "sizeBytes": size}


def node_dict(name: str, cpu: object = "4", memory: object = "32Gi", pods: object = 110,
              labels: Mapping[str, str] | None = None, taints: Iterable[object] = (),
              unschedulable: bool = False, images: Iterable[object] = (),
              extra: Mapping[str, Any] | None = None) -> dict:
    """The v1 Node manifest ``make_node`` loads. ``cpu``/``memory``/``pods`` set
    status.allocatable (None leaves a resource out); ``extra`` is deep-merged into the
    manifest (e.g. ``{"status": {"allocatable": {"example.com/gpu": "2"}}}``)."""
    allocatable = {k: v for k, v in (("cpu", cpu), ("memory", memory), ("pods", pods))
                   if v is not None}
    doc: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": dict(labels or {})},
        "spec": {"taints": [_taint_dict(t) for t in taints], "unschedulable": unschedulable},
        "status": {"allocatable": allocatable, "capacity": dict(allocatable),
                   "images": [_image_dict(im) for im in images]},
    }
    if extra:
        _merge(doc, extra)
    return doc


def make_node(name: str, cpu: object = "4", memory: object = "32Gi", pods: object = 110,
              labels: Mapping[str, str] | None = None, taints: Iterable[object] = (),
              unschedulable: bool = False, images: Iterable[object] = (),
              extra: Mapping[str, Any] | None = None) -> Node:
    """A Node loaded from ``node_dict(...)``."""
    return node_from_dict(node_dict(name, cpu, memory, pods, labels, taints, unschedulable,
                                    images, extra))


def pod_dict(name: str, namespace: str = "default", cpu: object = None, memory: object = None,
             node_name: str = "", labels: Mapping[str, str] | None = None,
             priority: int | None = 0, **fields: Any) -> dict:
    """The v1 Pod manifest ``make_pod`` loads.

    ``cpu``/``memory`` become the requests of a single container "c" (or are added to the first
    of ``containers`` if given). Other keyword arguments are v1 fields in snake_case, holding
    v1-shaped values (dicts/lists): ``uid``, ``annotations``, ``creation_timestamp`` (seconds or
    RFC 3339), ``deletion_timestamp``, ``owner_references`` go to metadata;
    ``nominated_node_name``, ``start_time``, ``phase`` to status; all others to spec
    (``containers``, ``init_containers``, ``tolerations`` (dicts or Toleration),
    ``affinity``, ``node_selector``, ``topology_spread_constraints``, ``overhead``,
    ``resources``, ``scheduling_gates`` (names or dicts), ``priority_class_name``,
    ``preemption_policy``, ``scheduler_name``, ``volumes``, ``host_network``, ...).
    ``priority=None`` leaves spec.priority unset (so it comes from the priority class).
    ``order`` is not a manifest field; ``make_pod`` sets it after loading.
    """
    fields.pop("order", None)
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": dict(labels or {})}
    spec: dict[str, Any] = {}
    status: dict[str, Any] = {}
    for key, v in fields.items():
        if is_dataclass(v) and not isinstance(v, type):
            raise TypeError(f"make_pod({key}=...): pass v1-shaped dicts, not model objects")
        if key in ("creation_timestamp", "deletion_timestamp", "start_time"):
            v = _timestamp(v)
        if key == "tolerations":
            v = [_toleration_dict(t) for t in v]
        elif key == "scheduling_gates":
            v = [{"name": g} if isinstance(g, str) else dict(g) for g in v]
        if key in _METADATA_FIELDS:
            meta[_camel(key)] = v
        elif key in _STATUS_FIELDS:
            status[_camel(key)] = v
        else:
            spec[_camel(key)] = copy.deepcopy(v)
    requests = {k: q for k, q in (("cpu", cpu), ("memory", memory)) if q is not None}
    containers = spec.setdefault("containers", [{"name": "c"}])
    if requests:
        if not containers:
            containers.append({"name": "c"})
        first = containers[0]
        res = first.setdefault("resources", {})
        res.setdefault("requests", {}).update(requests)
    if node_name:
        spec["nodeName"] = node_name
    if priority is not None:
        spec["priority"] = priority
    doc: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if status:
        doc["status"] = status
    return doc


def make_pod(name: str, namespace: str = "default", cpu: object = None, memory: object = None,
             node_name: str = "", labels: Mapping[str, str] | None = None,
             priority: int | None = 0, **fields: Any) -> Pod:
    """A Pod loaded from ``pod_dict(...)`` (see there for the keyword arguments)."""
    order = fields.get("order")
    pod = pod_from_dict(pod_dict(name, namespace, cpu, memory, node_name, labels, priority,
                                 **fields))
    if order is not None:
        pod.order = order
    return pod


def pod_from_dict(d: Mapping[str, Any]) -> Pod:
    """A Pod from a v1 manifest (its nodeName need not name a known node)."""
    doc = dict(d)
    doc.setdefault("apiVersion", "v1")
    doc.setdefault("kind", "Pod")
    pods = load_documents([doc], source="<builder>", require_known_nodes=False).cluster.pods
    if len(pods) != 1:
        raise ValueError("pod_from_dict: the manifest is a terminal pod (phase Succeeded/Failed)")
    return pods[0]


def node_from_dict(d: Mapping[str, Any]) -> Node:
    """A Node from a v1 manifest."""
    doc = dict(d)
    doc.setdefault("apiVersion", "v1")
    doc.setdefault("kind", "Node")
    return load_documents([doc], source="<builder>").cluster.nodes[0]
