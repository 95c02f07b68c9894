"""The objects a timeline writes: ``applyObject`` (create, or replace the object of that kind
and name, with a full ``object:`` manifest) and ``deleteObject`` (``kind``, ``name``, and
``namespace`` for a namespaced kind). See docs/reference.md#the-scenario-timeline.

The events are general (any API object has a kind, a name and maybe a namespace); the kinds
they may write today are the DRA objects a driver or an admin changes while pods wait:
ResourceSlice (a driver publishing, updating or removing its node's devices), DeviceClass,
DeviceTaintRule and ResourceClaim (an allocation made or dropped by someone else), all
resource.k8s.io/v1. Others are refused with the field path; a kind is added by giving it an
entry in :data:`TIMELINE_OBJECT_KINDS` and an applier in scheduler/object_writes.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_impl.model.decoding import InputLocation, read_map
from reference_impl.model.dra import DeviceClass, DeviceTaintRule, ResourceClaim, ResourceSlice
from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_documents

APPLY_OBJECT = "applyObject"
DELETE_OBJECT = "deleteObject"

#: kind -> apiVersion of the kinds the object events write
TIMELINE_OBJECT_KINDS: dict[str, str] = {
    "ResourceSlice": "resource.k8s.io/v1",
    "DeviceClass": "resource.k8s.io/v1",
    "DeviceTaintRule": "resource.k8s.io/v1",
    "ResourceClaim": "resource.k8s.io/v1",
}
#: the namespaced ones among them: their events' ``name`` is ``NAMESPACE/NAME`` (the namespace
#: "default" when not given, as for the input's claims and ``deletePod``)
NAMESPACED_TIMELINE_KINDS: frozenset[str] = frozenset({"ResourceClaim"})

TimelineObject = ResourceSlice | DeviceClass | DeviceTaintRule | ResourceClaim


def _kind(w: InputLocation, v: object, path: str) -> str:
    if v not in TIMELINE_OBJECT_KINDS:
        raise w.error(path, f"expected one of {', '.join(TIMELINE_OBJECT_KINDS)} (the kinds "
                            f"a timeline event can write), got {v!r}")
    assert isinstance(v, str)
    return v


def object_key(kind: str, name: str) -> str:
    """The event's target: ``KIND/NAME`` (``KIND/NAMESPACE/NAME`` for a namespaced kind, whose
    ``name`` is ``NAMESPACE/NAME``)."""
    return f"{kind}/{name}"


def read_object(w: InputLocation, v: object, path: str) -> tuple[str, str, TimelineObject]:
    """The kind, the name (``NAMESPACE/NAME`` for a namespaced kind) and the object of an
    ``applyObject`` event's ``object`` manifest, read by the loader as an input document is
    (its errors re-anchored at ``path``)."""
    doc = dict(read_map(w, v, path, what="an object manifest (a mapping)", nullable=False))
    kind = _kind(w, doc.get("kind"), f"{path}.kind")
    api_version = TIMELINE_OBJECT_KINDS[kind]
    if doc.get("apiVersion") != api_version:
        raise w.error(f"{path}.apiVersion", f"expected {api_version!r} for a {kind}, got "
                                            f"{doc.get('apiVersion')!r}")
    meta = read_map(w, doc.get("metadata"), f"{path}.metadata")
    if not isinstance(meta.get("name"), str) or not meta.get("name"):
        raise w.error(f"{path}.metadata.name", "required: the object's name (a non-empty "
                                               "string)")
    if meta.get("namespace") and kind not in NAMESPACED_TIMELINE_KINDS:
        raise w.error(f"{path}.metadata.namespace", f"a {kind} is cluster-scoped: no "
                                                    "namespace")
    try:
        result = load_documents([doc], source=w.source, require_known_nodes=False)
    except InputError as e:
        sub = f"{path}.{e.field}" if e.field else path
        msg = f"{e.obj}: {e.message}" if e.obj else e.message
        raise w.error(sub, msg) from None
    dra = result.cluster.dra
    objs: list[Any] = (dra.slices if kind == "ResourceSlice" else
                       list(dra.device_classes.values()) if kind == "DeviceClass" else
                       list(dra.claims.values()) if kind == "ResourceClaim" else
                       dra.taint_rules)
    if len(objs) != 1:
        why = "; ".join(result.warnings) or "nothing was read"
        raise w.error(path, f"expected exactly one {kind}: {why}")
    obj = objs[0]
    name = f"{obj.namespace}/{obj.name}" if kind in NAMESPACED_TIMELINE_KINDS else obj.name
    return kind, name, obj


def read_delete(w: InputLocation, e: Mapping[str, Any], path: str) -> tuple[str, str]:
    """The kind and name (``NAMESPACE/NAME`` for a namespaced kind) of a ``deleteObject``
    event."""
    kind = _kind(w, e.get("kind"), f"{path}.kind")
    name = e.get("name")
    if not isinstance(name, str) or not name:
        raise w.error(f"{path}.name", w.expected("the object's name (a non-empty string)",
                                                 name, shown=True))
    namespace = e.get("namespace")
    if kind in NAMESPACED_TIMELINE_KINDS:
        if namespace is None:
            namespace = "default"
        if not isinstance(namespace, str) or not namespace:
            raise w.error(f"{path}.namespace", w.expected("a namespace (a non-empty string)",
                                                          namespace, shown=True))
        return kind, f"{namespace}/{name}"
    if namespace is not None:
        raise w.error(f"{path}.namespace", f"a {kind} is cluster-scoped: no namespace")
    return kind, name


__all__ = ["APPLY_OBJECT", "DELETE_OBJECT", "NAMESPACED_TIMELINE_KINDS",
           "TIMELINE_OBJECT_KINDS", "TimelineObject", "object_key", "read_delete",
           "read_object"]
