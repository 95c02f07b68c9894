"""Node manifests -> :class:`~reference_impl.model.objects.Node` (taints, allocatable with
``SetDefaults_NodeStatus``, images, declared features).
"""

from __future__ import annotations

from reference_impl.model.decoding import (
    INT64,
    InputLocation,
    read_bool,
    read_enum,
    read_int,
    read_list,
    read_map,
    read_required_str,
    read_str,
    read_str_list,
)
from reference_impl.model.loader.defaults import _deterministic_uid
from reference_impl.model.loader.fields import (
    _metadata_common,
    _Raw,
    _resource_list,
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


def _taints(ctx: InputLocation, v: object, path: str) -> tuple[Taint, ...]:
    out = []
    for i, t in enumerate(read_list(ctx, v, path)):
        tpath = f"{path}[{i}]"
        t = read_map(ctx, t, tpath)
        key = read_required_str(ctx, t.get("key"), f"{tpath}.key")
        if t.get("effect") in (None, ""):
            raise ctx.error(f"{tpath}.effect", "required: expected one of "
                            + ", ".join(f'"{e}"' for e in _TAINT_EFFECTS))
        effect = read_enum(ctx, t.get("effect"), f"{tpath}.effect", _TAINT_EFFECTS)
        assert effect is not None
        out.append(Taint(key, read_str(ctx, t.get("value"), f"{tpath}.value"), effect))
    return tuple(out)


def _node(r: _Raw, order: int) -> Node:
    ctx, doc = r.ctx, r.doc
    meta, labels, annotations = _metadata_common(r)
    spec = read_map(ctx, doc.get("spec"), "spec")
    status = read_map(ctx, doc.get("status"), "status")
    if status.get("allocatable") is not None:
        alloc = _resource_list(ctx, status.get("allocatable"), "status.allocatable")
    else:  # SetDefaults_NodeStatus
        alloc = _resource_list(ctx, status.get("capacity"), "status.capacity")
    try:
        allocatable = to_resource(alloc)
    except QuantityError as e:
        raise ctx.error("status.allocatable", str(e)) from None
    images = []
    for i, im in enumerate(read_list(ctx, status.get("images"), "status.images")):
        ipath = f"status.images[{i}]"
        im = read_map(ctx, im, ipath)
        images.append(ContainerImage(
            names=read_str_list(ctx, im.get("names"), f"{ipath}.names"),
            size_bytes=read_int(ctx, im.get("sizeBytes"), f"{ipath}.sizeBytes", bounds=INT64) or 0,
        ))
    return Node(
        name=r.name,
        uid=(read_str(ctx, meta.get("uid"), "metadata.uid")
             or _deterministic_uid("Node", "", r.name)),
        labels=labels,
        annotations=annotations,
        taints=_taints(ctx, spec.get("taints"), "spec.taints"),
        unschedulable=read_bool(ctx, spec.get("unschedulable"), "spec.unschedulable"),
        allocatable=allocatable,
        images=tuple(images),
        declared_features=read_str_list(ctx, status.get("declaredFeatures"),
                                        "status.declaredFeatures"),
        order=order,
    )
