"""PersistentVolume, PersistentVolumeClaim (v1) and StorageClass, CSINode, CSIDriver,
CSIStorageCapacity, VolumeAttachment (storage.k8s.io/v1) manifests -> ``model/storage.py``.

Defaults as the API server applies them (v1.37.2): ``SetDefaults_PersistentVolume`` and
``SetDefaults_PersistentVolumeClaim`` (pkg/apis/core/v1/defaults.go: volumeMode Filesystem,
phase Pending), ``SetDefaults_StorageClass`` and ``SetDefaults_CSIDriver``
(pkg/apis/storage/v1/defaults.go: volumeBindingMode Immediate, attachRequired true,
storageCapacity false). Sizes are ``Quantity.Value()`` bytes (rounded up). Checks: those of
pkg/apis/core/validation and pkg/apis/storage/validation on what the volume plugins read;
required fields the scheduler does not need (a PV's capacity, access modes and source) are
not enforced, so upstream's unit-test objects can be stated (docs/storage.md#objects).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reference_impl.model.decoding import (
    INT32,
    InputLocation,
    plain,
    read_bool,
    read_enum,
    read_int,
    read_list,
    read_map,
    read_quantity,
    read_required_str,
    read_str,
    read_str_list,
    read_time,
    show,
)
from reference_impl.model.loader.defaults import _deterministic_uid
from reference_impl.model.loader.fields import _metadata_common, _Raw
from reference_impl.model.loader.resource import _node_selector
from reference_impl.model.loader.selectors import _label_selector
from reference_impl.model.quantity import QuantityError, value
from reference_impl.model.storage import (
    BINDING_IMMEDIATE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    PV_AVAILABLE,
    PV_BOUND,
    PV_FAILED,
    PV_PENDING,
    PV_RELEASED,
    PV_SOURCE_KEYS,
    PVC_BOUND,
    PVC_LOST,
    PVC_PENDING,
    READ_ONLY_MANY,
    READ_WRITE_MANY,
    READ_WRITE_ONCE,
    READ_WRITE_ONCE_POD,
    VOLUME_MODE_BLOCK,
    VOLUME_MODE_FILESYSTEM,
    CSIDriver,
    CSINode,
    CSINodeDriver,
    CSIStorageCapacity,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
    TopologySelectorTerm,
    VolumeAttachment,
)

STORAGE_GROUP = "storage.k8s.io"
#: the kinds of v1 (the core group) the storage loader reads
CORE_STORAGE_KINDS = ("PersistentVolume", "PersistentVolumeClaim")
#: the kinds of storage.k8s.io/v1 it reads
STORAGE_KINDS = ("StorageClass", "CSINode", "CSIDriver", "CSIStorageCapacity",
                 "VolumeAttachment")
#: of all those, the namespaced ones
NAMESPACED_STORAGE_KINDS = ("PersistentVolumeClaim", "CSIStorageCapacity")

_ACCESS_MODES = (READ_WRITE_ONCE, READ_ONLY_MANY, READ_WRITE_MANY, READ_WRITE_ONCE_POD)
_VOLUME_MODES = (VOLUME_MODE_FILESYSTEM, VOLUME_MODE_BLOCK)
_BINDING_MODES = (BINDING_IMMEDIATE, BINDING_WAIT_FOR_FIRST_CONSUMER)
_PV_PHASES = (PV_PENDING, PV_AVAILABLE, PV_BOUND, PV_RELEASED, PV_FAILED)
_PVC_PHASES = (PVC_PENDING, PVC_BOUND, PVC_LOST)


def storage_kind(api_version: str, kind: str) -> str | None:
    """The model kind of a storage (apiVersion, kind), or None if it is not one."""
    if kind in CORE_STORAGE_KINDS and (not api_version or api_version == "v1"):
        return kind
    if kind in STORAGE_KINDS and api_version == f"{STORAGE_GROUP}/v1":
        return kind
    return None


# --- fields ---------------------------------------------------------------------------------------

def _bytes(ctx: InputLocation, v: object, path: str) -> int | None:
    """A quantity as ``Quantity.Value()`` bytes (None when absent); negative sizes are refused
    as validation refuses them (``ValidateNonnegativeQuantity``)."""
    if v is None:
        return None
    q = read_quantity(ctx, v, path)
    if q < 0:
        raise ctx.error(path, f"must be greater than or equal to 0, got {show(v)}")
    try:
        return value(q)
    except QuantityError as e:
        raise ctx.error(path, str(e)) from None


def _storage(ctx: InputLocation, v: object, path: str) -> int:
    """The ``storage`` entry of a v1.ResourceList (``capacity``, ``resources.requests``) in
    bytes, 0 when absent; other resources are not read."""
    return _bytes(ctx, read_map(ctx, v, path).get("storage"), f"{path}.storage") or 0


def _access_modes(ctx: InputLocation, v: object, path: str) -> tuple[str, ...]:
    modes = read_str_list(ctx, v, path)
    for i, m in enumerate(modes):
        read_enum(ctx, m, f"{path}[{i}]", _ACCESS_MODES)
    return modes


def _deleting(ctx: InputLocation, meta: Mapping[str, Any]) -> bool:
    """``metadata.deletionTimestamp`` is set."""
    return read_time(ctx, meta.get("deletionTimestamp"), "metadata.deletionTimestamp") is not None


def _resource_version(ctx: InputLocation, meta: Mapping[str, Any]) -> int:
    """``metadata.resourceVersion`` (a string of digits in a dump) as an int, 0 when absent.
    Only its order matters (the assume cache compares versions)."""
    rv = read_str(ctx, meta.get("resourceVersion"), "metadata.resourceVersion")
    return int(rv) if rv.isdigit() else 0


def _uid(ctx: InputLocation, meta: Mapping[str, Any], kind: str, namespace: str,
         name: str) -> str:
    """``metadata.uid``, or the loader's deterministic one (defaults.py)."""
    return (read_str(ctx, meta.get("uid"), "metadata.uid")
            or _deterministic_uid(kind, namespace, name))


def _volume_source(ctx: InputLocation, spec: Mapping[str, Any]) -> tuple[str, dict]:
    """The one volume source of a PV spec (``validatePersistentVolumeSource``: "may not
    specify more than 1 volume type"); ("", {}) when none is given. A CSI source needs its
    driver (``validateCSIPersistentVolumeSource``)."""
    given = [k for k in PV_SOURCE_KEYS if spec.get(k) is not None]
    if len(given) > 1:
        raise ctx.error(f"spec.{given[1]}", "may not specify more than 1 volume type, got "
                        + ", ".join(f"`{k}`" for k in given))
    if not given:
        return "", {}
    kind = given[0]
    source = dict(plain(read_map(ctx, spec[kind], f"spec.{kind}")))
    if kind == "csi":
        read_required_str(ctx, source.get("driver"), "spec.csi.driver")
        read_str(ctx, source.get("volumeHandle"), "spec.csi.volumeHandle")
    return kind, source


def _controller_pod_uid(ctx: InputLocation, meta: Mapping[str, Any]) -> str:
    """The uid of the Pod that controls the object (``metav1.GetControllerOf``), "" when none
    does: the owner ``ephemeral.VolumeIsForPod`` checks."""
    for i, o in enumerate(read_list(ctx, meta.get("ownerReferences"),
                                    "metadata.ownerReferences")):
        opath = f"metadata.ownerReferences[{i}]"
        o = read_map(ctx, o, opath)
        if read_bool(ctx, o.get("controller"), f"{opath}.controller"):
            if read_str(ctx, o.get("kind"), f"{opath}.kind") != "Pod":
                return ""
            return read_required_str(ctx, o.get("uid"), f"{opath}.uid")
    return ""


# --- objects --------------------------------------------------------------------------------------

def _persistent_volume(r: _Raw) -> PersistentVolume:
    ctx = r.ctx
    meta, labels, annotations = _metadata_common(r)
    spec = read_map(ctx, r.doc.get("spec"), "spec")
    status = read_map(ctx, r.doc.get("status"), "status")
    claim_ref = None
    if spec.get("claimRef") is not None:
        ref = read_map(ctx, spec["claimRef"], "spec.claimRef")
        claim_ref = ObjectReference(
            namespace=read_str(ctx, ref.get("namespace"), "spec.claimRef.namespace"),
            name=read_str(ctx, ref.get("name"), "spec.claimRef.name"),
            uid=read_str(ctx, ref.get("uid"), "spec.claimRef.uid"))
    affinity = read_map(ctx, spec.get("nodeAffinity"), "spec.nodeAffinity")
    source_kind, source = _volume_source(ctx, spec)
    return PersistentVolume(
        name=r.name,
        uid=_uid(ctx, meta, "PersistentVolume", "", r.name),
        labels=labels,
        annotations=annotations,
        capacity=_storage(ctx, spec.get("capacity"), "spec.capacity"),
        access_modes=_access_modes(ctx, spec.get("accessModes"), "spec.accessModes"),
        storage_class_name=read_str(ctx, spec.get("storageClassName"), "spec.storageClassName"),
        volume_mode=read_enum(ctx, spec.get("volumeMode"), "spec.volumeMode", _VOLUME_MODES,
                              default=VOLUME_MODE_FILESYSTEM) or VOLUME_MODE_FILESYSTEM,
        claim_ref=claim_ref,
        node_affinity=_node_selector(ctx, affinity.get("required"),
                                     "spec.nodeAffinity.required"),
        source_kind=source_kind,
        source=source,
        phase=read_enum(ctx, status.get("phase"), "status.phase", _PV_PHASES,
                        default=PV_PENDING) or PV_PENDING,
        deleting=_deleting(ctx, meta),
        resource_version=_resource_version(ctx, meta),
    )


def _persistent_volume_claim(r: _Raw) -> PersistentVolumeClaim:
    ctx = r.ctx
    meta, labels, annotations = _metadata_common(r)
    spec = read_map(ctx, r.doc.get("spec"), "spec")
    status = read_map(ctx, r.doc.get("status"), "status")
    resources = read_map(ctx, spec.get("resources"), "spec.resources")
    cls = spec.get("storageClassName")
    return PersistentVolumeClaim(
        namespace=r.namespace,
        name=r.name,
        uid=_uid(ctx, meta, "PersistentVolumeClaim", r.namespace, r.name),
        labels=labels,
        annotations=annotations,
        storage_class_name=None if cls is None else read_str(ctx, cls, "spec.storageClassName"),
        access_modes=_access_modes(ctx, spec.get("accessModes"), "spec.accessModes"),
        request=_storage(ctx, resources.get("requests"), "spec.resources.requests"),
        volume_mode=read_enum(ctx, spec.get("volumeMode"), "spec.volumeMode", _VOLUME_MODES,
                              default=VOLUME_MODE_FILESYSTEM) or VOLUME_MODE_FILESYSTEM,
        selector=_label_selector(ctx, spec.get("selector"), "spec.selector"),
        volume_name=read_str(ctx, spec.get("volumeName"), "spec.volumeName"),
        phase=read_enum(ctx, status.get("phase"), "status.phase", _PVC_PHASES,
                        default=PVC_PENDING) or PVC_PENDING,
        deleting=_deleting(ctx, meta),
        owner_pod_uid=_controller_pod_uid(ctx, meta),
        resource_version=_resource_version(ctx, meta),
    )


def _topology_terms(ctx: InputLocation, v: object, path: str
                    ) -> tuple[TopologySelectorTerm, ...]:
    """``allowedTopologies``: v1.TopologySelectorTerms (``ValidateTopologySelectorTerm``: a
    key and at least one value per expression)."""
    out = []
    for i, t in enumerate(read_list(ctx, v, path)):
        tpath = f"{path}[{i}]"
        t = read_map(ctx, t, tpath)
        exprs = []
        for j, e in enumerate(read_list(ctx, t.get("matchLabelExpressions"),
                                        f"{tpath}.matchLabelExpressions")):
            epath = f"{tpath}.matchLabelExpressions[{j}]"
            e = read_map(ctx, e, epath)
            key = read_required_str(ctx, e.get("key"), f"{epath}.key")
            values = read_str_list(ctx, e.get("values"), f"{epath}.values")
            if not values:
                raise ctx.error(f"{epath}.values", "required: must specify as least one value")
            exprs.append((key, values))
        out.append(TopologySelectorTerm(tuple(exprs)))
    return tuple(out)


def _storage_class(r: _Raw) -> StorageClass:
    """A StorageClass: its parameters, reclaimPolicy, mountOptions and allowVolumeExpansion
    take no part in scheduling and are not read."""
    ctx = r.ctx
    _meta, _labels, annotations = _metadata_common(r)
    return StorageClass(
        name=r.name,
        provisioner=read_required_str(ctx, r.doc.get("provisioner"), "provisioner"),
        volume_binding_mode=read_enum(ctx, r.doc.get("volumeBindingMode"), "volumeBindingMode",
                                      _BINDING_MODES, default=BINDING_IMMEDIATE)
        or BINDING_IMMEDIATE,
        allowed_topologies=_topology_terms(ctx, r.doc.get("allowedTopologies"),
                                           "allowedTopologies"),
        annotations=tuple(annotations.items()),
    )


def _csi_node(r: _Raw) -> CSINode:
    ctx = r.ctx
    _meta, _labels, annotations = _metadata_common(r)
    spec = read_map(ctx, r.doc.get("spec"), "spec")
    drivers: list[CSINodeDriver] = []
    for i, d in enumerate(read_list(ctx, spec.get("drivers"), "spec.drivers")):
        dpath = f"spec.drivers[{i}]"
        d = read_map(ctx, d, dpath)
        name = read_required_str(ctx, d.get("name"), f"{dpath}.name")
        if any(x.name == name for x in drivers):
            raise ctx.error(f"{dpath}.name", f"Duplicate value: {name!r}")
        allocatable = read_map(ctx, d.get("allocatable"), f"{dpath}.allocatable")
        count = read_int(ctx, allocatable.get("count"), f"{dpath}.allocatable.count",
                         bounds=(0, INT32[1]),
                         out_of_range="must be greater than or equal to 0, got {value}")
        drivers.append(CSINodeDriver(
            name=name,
            node_id=read_str(ctx, d.get("nodeID"), f"{dpath}.nodeID"),
            allocatable_count=count,
            topology_keys=read_str_list(ctx, d.get("topologyKeys"), f"{dpath}.topologyKeys")))
    return CSINode(r.name, tuple(drivers), tuple(annotations.items()))


def _csi_driver(r: _Raw) -> CSIDriver:
    ctx = r.ctx
    spec = read_map(ctx, r.doc.get("spec"), "spec")
    return CSIDriver(
        name=r.name,
        attach_required=read_bool(ctx, spec.get("attachRequired"), "spec.attachRequired",
                                  default=True),
        storage_capacity=read_bool(ctx, spec.get("storageCapacity"), "spec.storageCapacity"),
        # VolumeLimitScaling (beta, on in v1.37.2): SetDefaults_CSIDriver sets false when
        # absent (pkg/apis/storage/v1/defaults.go); NodeVolumeLimits' checkCSIDriverOnNode
        # reads it (pkg/scheduler/framework/plugins/nodevolumelimits/csi.go)
        prevent_pod_scheduling_if_missing=read_bool(
            ctx, spec.get("preventPodSchedulingIfMissing"),
            "spec.preventPodSchedulingIfMissing"),
    )


def _csi_storage_capacity(r: _Raw) -> CSIStorageCapacity:
    ctx = r.ctx
    return CSIStorageCapacity(
        namespace=r.namespace,
        name=r.name,
        storage_class_name=read_required_str(ctx, r.doc.get("storageClassName"),
                                             "storageClassName"),
        node_topology=_label_selector(ctx, r.doc.get("nodeTopology"), "nodeTopology"),
        capacity=_bytes(ctx, r.doc.get("capacity"), "capacity"),
        maximum_volume_size=_bytes(ctx, r.doc.get("maximumVolumeSize"), "maximumVolumeSize"),
    )


def _volume_attachment(r: _Raw) -> VolumeAttachment:
    ctx = r.ctx
    spec = read_map(ctx, r.doc.get("spec"), "spec")
    source = read_map(ctx, spec.get("source"), "spec.source")
    status = read_map(ctx, r.doc.get("status"), "status")
    return VolumeAttachment(
        name=r.name,
        attacher=read_required_str(ctx, spec.get("attacher"), "spec.attacher"),
        node_name=read_required_str(ctx, spec.get("nodeName"), "spec.nodeName"),
        persistent_volume_name=read_str(ctx, source.get("persistentVolumeName"),
                                        "spec.source.persistentVolumeName"),
        attached=read_bool(ctx, status.get("attached"), "status.attached"),
    )


def build_storage(by_kind: Mapping[str, list[_Raw]]) -> StorageObjects:
    """The storage objects of the inputs, each kind in input order."""
    s = StorageObjects()
    for r in by_kind.get("PersistentVolume", ()):
        s.volumes[r.name] = _persistent_volume(r)
    for r in by_kind.get("PersistentVolumeClaim", ()):
        s.claims[f"{r.namespace}/{r.name}"] = _persistent_volume_claim(r)
    for r in by_kind.get("StorageClass", ()):
        s.classes[r.name] = _storage_class(r)
    for r in by_kind.get("CSINode", ()):
        s.csi_nodes[r.name] = _csi_node(r)
    for r in by_kind.get("CSIDriver", ()):
        s.csi_drivers[r.name] = _csi_driver(r)
    for r in by_kind.get("CSIStorageCapacity", ()):
        s.capacities[f"{r.namespace}/{r.name}"] = _csi_storage_capacity(r)
    for r in by_kind.get("VolumeAttachment", ()):
        s.attachments[r.name] = _volume_attachment(r)
    return s
