"""Node manifests -> :class:`~reference_impl.model.objects.Node` (taints, allocatable with
``SetDefaults_NodeStatus``, images, declared features).
"""

from __future__ import annotations

from reference_impl.model.loader.defaults import _deterministic_uid
from reference_impl.model.loader.fields import (
    _INT64,
    _bool,
    _Ctx,
    _int,
    _list,
    _map,
    _metadata_common,
    _one_of,
    _Raw,
    _req_str,
    _resource_list,
    _str,
    _str_list,
)
from reference_impl.model.objects import (
    TAINT_NO_EXECUTE,
    TAINT_NO_SCHEDULE,
    TAINT_PREFER_NO_SCHEDULE,
    ContainerImage,
    Node,
    Taint,
)
from reference_impl.model.quantity import QuantityError
from reference_impl.model.requests import to_resource

_TAINT_EFFECTS = (TAINT_NO_SCHEDULE, TAINT_PREFER_NO_SCHEDULE, TAINT_NO_EXECUTE)


def _taints(ctx: _Ctx, v: object, path: str) -> tuple[Taint, ...]:
    out = []
    for i, t in enumerate(_list(ctx, v, path)):
        tpath = f"{path}[{i}]"
        t = _map(ctx, t, tpath)
        key = _req_str(ctx, t.get("key"), f"{tpath}.key")
        if t.get("effect") in (None, ""):
            raise ctx.error(f"{tpath}.effect", "required: expected one of "
                            + ", ".join(f'"{e}"' for e in _TAINT_EFFECTS))
        effect = _one_of(ctx, t.get("effect"), f"{tpath}.effect", _TAINT_EFFECTS)
        assert effect is not None
        out.append(Taint(key, _str(ctx, t.get("value"), f"{tpath}.value"), effect))
    return tuple(out)


def _node(r: _Raw, order: int) -> Node:
    ctx, doc = r.ctx, r.doc
    meta, labels, annotations = _metadata_common(r)
    spec = _map(ctx, doc.get("spec"), "spec")
    status = _map(ctx, doc.get("status"), "status")
    if status.get("allocatable") is not None:
        alloc = _resource_list(ctx, status.get("allocatable"), "status.allocatable")
    else:  # SetDefaults_NodeStatus
        alloc = _resource_list(ctx, status.get("capacity"), "status.capacity")
    try:
        allocatable = to_resource(alloc)
    except QuantityError as e:
        raise ctx.error("status.allocatable", str(e)) from None
    images = []
    for i, im in enumerate(_list(ctx, status.get("images"), "status.images")):
        ipath = f"status.images[{i}]"
        im = _map(ctx, im, ipath)
        images.append(ContainerImage(
            names=_str_list(ctx, im.get("names"), f"{ipath}.names"),
            size_bytes=_int(ctx, im.get("sizeBytes"), f"{ipath}.sizeBytes", bounds=_INT64) or 0,
        ))
    return Node(
        name=r.name,
        uid=_str(ctx, meta.get("uid"), "metadata.uid") or _deterministic_uid("Node", "", r.name),
        labels=labels,
        annotations=annotations,
        taints=_taints(ctx, spec.get("taints"), "spec.taints"),
        unschedulable=_bool(ctx, spec.get("unschedulable"), "spec.unschedulable"),
        allocatable=allocatable,
        images=tuple(images),
        declared_features=_str_list(ctx, status.get("declaredFeatures"),
                                    "status.declaredFeatures"),
        order=order,
    )
