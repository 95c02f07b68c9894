"""Storage scenarios (feature ``storage``, opt-in: not in ``ALL_FEATURES``): StorageClasses,
CSIDrivers, CSINodes, CSIStorageCapacities, static PersistentVolumes, PersistentVolumeClaims,
VolumeAttachments and pods that use them (``persistentVolumeClaim`` and ``ephemeral`` volumes,
inline in-tree disks: ``storage_sources.py``), what the four volume plugins read. Valid by
construction for the API server's rules of core/v1 and storage.k8s.io/v1
(pkg/apis/core/validation ValidatePersistentVolume, ValidatePersistentVolumeClaim;
pkg/apis/storage/validation of k8s.io/kubernetes v1.37.2); what is drawn, for which rule, and
what shrinking gives: docs/strategies.md#storage."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

import strategies.vocabulary as v
from strategies._cache import booleans, composite, integers, sampled
from strategies.clusters import GeneratedCluster
from strategies.objects import sometimes, stable_uid
from strategies.sizes import SMALL, Sizes
from strategies.storage_sources import (
    AWS_EBS_DRIVER,
    AWS_VOLUMES,
    GCE_PD_DRIVER,
    PD_NAMES,
    inline_disk,
    nodes_in,
    pv_topology_labels,
    required_affinity,
    volume_attachment,
    zonal_affinity,
)

__all__ = [
    "CSI_DRIVERS",
    "NO_PROVISIONER",
    "STORAGE_FEATURE",
    "StorageClasses",
    "claim_template_spec",
    "has_storage",
    "storage_classes",
    "storage_documents",
]

Doc = dict[str, Any]

STORAGE_FEATURE = "storage"
STORAGE_V1 = "storage.k8s.io/v1"
#: the CSI drivers of generated clusters (the first shrinks in)
CSI_DRIVERS = ("disk.csi.example.com", "fs.csi.example.com")
NO_PROVISIONER = "kubernetes.io/no-provisioner"
#: a class claims name that is not drawn, and the PV a lost claim names
MISSING_CLASS = "gone"
LOST_VOLUME = "pv-gone"
#: class names, in shrinking order
CLASS_NAMES = ("standard", "fast", "local")
SIZES_GI = (1, 2, 5, 10)
#: the PV label claims' selectors match
TIER = "example.com/tier"
TIERS = ("gold", "silver")
RWO, ROX, RWX, RWOP = "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"
#: access modes of claims and volumes: ReadWriteOncePod never with another mode
#: (ValidatePersistentVolumeSpec / ValidatePersistentVolumeClaimSpec)
ACCESS_MODES: tuple[tuple[str, ...], ...] = ((RWO,), (RWOP,), (RWO, ROX), (RWX,), (ROX,))
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"
#: ``spec.volumeMode`` of PVs and claims: absent (the API server's default, Filesystem) first
VOLUME_MODES = (None, "Block", "Filesystem")


#: the kinds of the storage objects (docs/storage.md#objects)
STORAGE_KINDS = frozenset({"StorageClass", "CSIDriver", "CSINode", "CSIStorageCapacity",
                           "PersistentVolume", "PersistentVolumeClaim", "VolumeAttachment"})


def has_storage(documents: Sequence[Doc]) -> bool:
    """A storage scenario: it holds a storage object or a pod with a volume (what the four
    volume plugins read)."""
    return any(d.get("kind") in STORAGE_KINDS
               or (d.get("kind") == "Pod" and d.get("spec", {}).get("volumes"))
               for d in documents)


def _gi(n: int) -> str:
    return f"{n}Gi"


@dataclass
class StorageClasses:
    """The classes and CSI drivers drawn (before the workloads, whose StatefulSets' claim
    templates name the classes), as documents and by name."""

    documents: list[Doc] = field(default_factory=list)
    provisioner: dict[str, str] = field(default_factory=dict)  # class -> provisioner
    binding_mode: dict[str, str] = field(default_factory=dict)  # class -> volumeBindingMode
    drivers: tuple[str, ...] = ()  # the CSI drivers with a CSIDriver object
    capacity_drivers: frozenset[str] = frozenset()  # CSIDrivers with storageCapacity: true

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.provisioner)


def _topology_term(draw: st.DrawFn, cluster: GeneratedCluster) -> Doc:
    """A ``TopologySelectorTerm``: one expression on the zone or the hostname label, 1-2
    values (ValidateAllowedTopologies: non-empty values, unique keys)."""
    if sometimes(draw, 2):
        key, values = v.HOSTNAME, list(cluster.node_names)
    else:
        key, values = v.ZONE, list(v.ZONES)
    chosen = draw(st.lists(sampled(values), min_size=1, max_size=2, unique=True))
    return {"matchLabelExpressions": [{"key": key, "values": sorted(chosen)}]}


@composite
def storage_classes(draw: st.DrawFn, cluster: GeneratedCluster) -> StorageClasses:
    """1-3 StorageClasses (``standard`` always): a provisioner (a CSI driver, or
    ``kubernetes.io/no-provisioner``), Immediate or WaitForFirstConsumer binding, sometimes
    ``allowedTopologies`` on the zone or hostname label, the default-class annotation on one
    sometimes; and a CSIDriver per CSI driver (``attachRequired``, ``storageCapacity``,
    sometimes ``preventPodSchedulingIfMissing``: the VolumeLimitScaling gate is on in
    v1.37.2, pkg/features/kube_features.go)."""
    out = StorageClasses()
    count = draw(integers(1, len(CLASS_NAMES)))
    default = draw(integers(-1, count - 1)) if sometimes(draw, 3) else -1
    for i, name in enumerate(CLASS_NAMES[:count]):
        provisioner = draw(sampled((*CSI_DRIVERS, NO_PROVISIONER)))
        mode = draw(sampled(("WaitForFirstConsumer", "Immediate")))
        doc: Doc = {"apiVersion": STORAGE_V1, "kind": "StorageClass",
                    "metadata": {"name": name}, "provisioner": provisioner,
                    "volumeBindingMode": mode}
        if i == default:
            doc["metadata"]["annotations"] = {ANN_DEFAULT_CLASS: "true"}
        if sometimes(draw, 3):
            doc["allowedTopologies"] = [_topology_term(draw, cluster)]
        out.documents.append(doc)
        out.provisioner[name] = provisioner
        out.binding_mode[name] = mode
    drivers = tuple(d for d in CSI_DRIVERS if d in out.provisioner.values() or sometimes(draw, 3))
    capacity = set()
    for d in drivers:
        attach = not sometimes(draw, 4)
        with_capacity = sometimes(draw, 2)
        if with_capacity:
            capacity.add(d)
        spec: Doc = {"attachRequired": attach, "storageCapacity": with_capacity}
        if sometimes(draw, 3):
            spec["preventPodSchedulingIfMissing"] = draw(booleans())
        out.documents.append({"apiVersion": STORAGE_V1, "kind": "CSIDriver",
                              "metadata": {"name": d}, "spec": spec})
    out.drivers, out.capacity_drivers = drivers, frozenset(capacity)
    return out


@composite
def csi_nodes(draw: st.DrawFn, cluster: GeneratedCluster, drivers: Sequence[str]) -> list[Doc]:
    """CSINodes for about three nodes in four: per driver (the CSI drivers and, sometimes,
    the GCE PD and AWS EBS drivers CSI migration counts in-tree disks under) a ``nodeID``,
    ``allocatable.count`` 0-4 (absent sometimes: no limit) and topology keys among zone and
    hostname (ValidateCSINode: unique qualified keys, count >= 0)."""
    out = []
    names = (*drivers, GCE_PD_DRIVER, AWS_EBS_DRIVER)
    for node in cluster.node_names:
        if sometimes(draw, 4):
            continue
        entries = []
        for d in draw(st.lists(sampled(names), unique=True, max_size=len(names))):
            entry: Doc = {"name": d, "nodeID": node,
                          "topologyKeys": draw(st.lists(sampled((v.ZONE, v.HOSTNAME)),
                                                        unique=True, max_size=2))}
            if not sometimes(draw, 4):
                entry["allocatable"] = {"count": draw(integers(0, 4))}
            entries.append(entry)
        out.append({"apiVersion": STORAGE_V1, "kind": "CSINode", "metadata": {"name": node},
                    "spec": {"drivers": entries}})
    return out


@composite
def capacities(draw: st.DrawFn, cluster: GeneratedCluster, classes: StorageClasses) -> list[Doc]:
    """CSIStorageCapacities (namespace ``default``) for the classes whose CSI driver has
    ``storageCapacity``: per class 0-2 objects for a zone or a node, a capacity, sometimes a
    ``maximumVolumeSize`` (ValidateCSIStorageCapacity: the class name, quantities >= 0)."""
    out = []
    for name, provisioner in classes.provisioner.items():
        if provisioner not in classes.capacity_drivers:
            continue
        for _ in range(draw(integers(0, 2))):
            if sometimes(draw, 2):
                topology = {v.HOSTNAME: draw(sampled(cluster.node_names))}
            else:
                topology = {v.ZONE: draw(sampled(v.ZONES))}
            doc: Doc = {"apiVersion": STORAGE_V1, "kind": "CSIStorageCapacity",
                        "metadata": {"name": f"cap-{len(out)}", "namespace": "default"},
                        "storageClassName": name,
                        "nodeTopology": {"matchLabels": topology},
                        "capacity": _gi(draw(sampled(SIZES_GI)))}
            if sometimes(draw, 3):
                doc["maximumVolumeSize"] = _gi(draw(sampled(SIZES_GI)))
            out.append(doc)
    return out


def claim_template_spec(draw: st.DrawFn, classes: StorageClasses) -> Doc:
    """A ``PersistentVolumeClaimSpec`` for a new volume: access modes, a class (or none: the
    default class, if any, applies), a requested size, sometimes a volume mode."""
    spec: Doc = {"accessModes": list(draw(sampled(ACCESS_MODES))),
                 "resources": {"requests": {"storage": _gi(draw(sampled(SIZES_GI)))}}}
    mode = draw(sampled(VOLUME_MODES))
    if mode is not None:
        spec["volumeMode"] = mode
    if classes.names and not sometimes(draw, 5):
        spec["storageClassName"] = draw(sampled(classes.names))
    return spec


@dataclass
class _Volumes:
    """The PVs and claims drawn so far."""

    classes: StorageClasses
    cluster: GeneratedCluster
    volumes: list[Doc] = field(default_factory=list)
    claims: list[Doc] = field(default_factory=list)
    #: the standalone claims (not an ephemeral volume's) by namespace
    by_namespace: dict[str, list[str]] = field(default_factory=dict)
    attachments: list[Doc] = field(default_factory=list)
    #: the claims of running pods by namespace, and their inline disks (``{kind: source}``)
    in_use: dict[str, list[str]] = field(default_factory=dict)
    disks: list[Doc] = field(default_factory=list)
    #: the ReadWriteOncePod claims some pod (running or pending) names, by namespace
    rwop_used: dict[str, list[str]] = field(default_factory=dict)

    def node(self, name: str | None) -> Doc | None:
        """The Node document of that name (None for None)."""
        return next((n for n in self.cluster.nodes if n["metadata"]["name"] == name), None)

    def used(self, namespace: str, name: str) -> None:
        """A pod names the claim ``namespace/name``: remember it when it is ReadWriteOncePod
        (another pod naming it is VolumeRestrictions' conflict)."""
        spec = next((c["spec"] for c in self.claims if c["metadata"]["name"] == name
                     and c["metadata"]["namespace"] == namespace), {})
        known = self.rwop_used.setdefault(namespace, [])
        if RWOP in spec.get("accessModes", ()) and name not in known:
            known.append(name)

    def claim(self, namespace: str, spec: Doc, volume: Doc | None, owner: Doc | None = None,
              name: str | None = None) -> str:
        name = name or f"claim-{len(self.claims)}"
        meta: Doc = {"name": name, "namespace": namespace}
        status: Doc = {"phase": "Pending"}
        if volume is not None:
            spec["volumeName"] = volume["metadata"]["name"]
            meta["annotations"] = {ANN_BIND_COMPLETED: "yes"}
            volume["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim",
                                          "namespace": namespace, "name": name}
            volume["status"] = {"phase": "Bound"}
            status = {"phase": "Bound", "accessModes": list(spec["accessModes"]),
                      "capacity": {"storage": volume["spec"]["capacity"]["storage"]}}
        if owner is not None:
            meta["ownerReferences"] = [owner]
        self.claims.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                            "metadata": meta, "spec": spec, "status": status})
        if owner is None:
            self.by_namespace.setdefault(namespace, []).append(name)
        return name


def _affinity(draw: st.DrawFn, cluster: GeneratedCluster, node: str | None) -> Doc:
    """A PV's ``nodeAffinity.required``: the node ``node``'s hostname, or a zone."""
    if node is not None or sometimes(draw, 2):
        return required_affinity((v.HOSTNAME, [node or draw(sampled(cluster.node_names))]))
    return required_affinity((v.ZONE, [draw(sampled(v.ZONES))]))


@composite
def _pv_affinity(draw: st.DrawFn, cluster: GeneratedCluster, topology: dict[str, str],
                 local: bool = False, node: str | None = None, host: str | None = None
                 ) -> Doc | None:
    """A PV's ``nodeAffinity`` (None: none), given its zone / region labels ``topology``.
    With labels, two times in three the affinity a provisioner of a zonal disk gives them
    (``zonal_affinity``; for a local volume or with ``node``, a node's hostname too: ``node``,
    else ``host``, else a node of the labelled zones); else (and for the third left, so that
    VolumeZone, which reads the labels, and VolumeBinding, which reads the affinity, are also
    tested apart: mostly labels alone) independent of the labels: for a local volume or with
    ``node`` always, else one time in two (in three with labels), ``node``'s or ``host``'s
    hostname (a running pod's PV: its node must fit), else a random node's hostname or zone
    (``_affinity``)."""
    if topology and not sometimes(draw, 3):
        pin = node
        if pin is None and local:
            pin = host or draw(sampled(nodes_in(topology, cluster.nodes) or cluster.node_names))
        return zonal_affinity(topology, pin)
    if local or node is not None or sometimes(draw, 3 if topology else 2):
        return _affinity(draw, cluster, node or host)
    return None


@composite
def persistent_volume(draw: st.DrawFn, vols: _Volumes, node: str | None = None,
                      host: str | None = None) -> Doc:
    """A static PV: a size, access modes, sometimes a volume mode, a class (or none),
    sometimes a tier label and zone / region labels (``pv_topology_labels``); a CSI source
    (the class's driver when it has one), or an in-tree ``gcePersistentDisk`` /
    ``awsElasticBlockStore`` (translated by CSI migration), or a ``local`` path (which needs
    node affinity); node affinity sometimes, mostly the one matching its zone labels
    (``_pv_affinity``; ``node``: that node's hostname, for the volumes of running pods;
    ``host``: the node a running pod uses it on, whose zone or region its labels name and
    which its affinity admits). Phase Available until a claim binds it."""
    name = f"pv-{len(vols.volumes)}"
    classes = vols.classes.names
    class_name = draw(sampled(classes)) if classes and not sometimes(draw, 4) else ""
    provisioner = vols.classes.provisioner.get(class_name, NO_PROVISIONER)
    kind = draw(sampled(("csi", "gcePersistentDisk", "awsElasticBlockStore", "local")))
    spec: Doc = {"capacity": {"storage": _gi(draw(sampled(SIZES_GI)))},
                 "accessModes": list(draw(sampled(ACCESS_MODES)))}
    mode = draw(sampled(VOLUME_MODES))
    if mode is not None:
        spec["volumeMode"] = mode
    if kind == "csi":
        driver = provisioner if provisioner in CSI_DRIVERS else draw(sampled(CSI_DRIVERS))
        spec["csi"] = {"driver": driver, "volumeHandle": name}
    elif kind == "gcePersistentDisk":
        spec["gcePersistentDisk"] = {"pdName": draw(sampled(PD_NAMES))}
    elif kind == "awsElasticBlockStore":
        spec["awsElasticBlockStore"] = {"volumeID": draw(sampled(AWS_VOLUMES))}
    else:
        spec["local"] = {"path": f"/mnt/disks/{name}"}
    if class_name:
        spec["storageClassName"] = class_name
    meta: Doc = {"name": name}
    labels = {TIER: draw(sampled(TIERS))} if sometimes(draw, 3) else {}
    topology = draw(pv_topology_labels(vols.node(host), (1, 3), vols.cluster.nodes))
    affinity = draw(_pv_affinity(vols.cluster, topology, kind == "local", node, host))
    if affinity is not None:
        spec["nodeAffinity"] = affinity
    labels.update(topology)
    if labels:
        meta["labels"] = labels
    doc = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta, "spec": spec,
           "status": {"phase": "Available"}}
    vols.volumes.append(doc)
    return doc


def _bound_spec(volume: Doc) -> Doc:
    """A claim spec that the PV satisfies (its class, an access mode it has, its volume mode,
    at most its size)."""
    spec: Doc = {"accessModes": volume["spec"]["accessModes"][:1],
                 "resources": {"requests": {"storage": volume["spec"]["capacity"]["storage"]}},
                 "storageClassName": volume["spec"].get("storageClassName", "")}
    if "volumeMode" in volume["spec"]:
        spec["volumeMode"] = volume["spec"]["volumeMode"]
    return spec


@composite
def unbound_claim(draw: st.DrawFn, vols: _Volumes, namespace: str) -> str:
    """A claim waiting for a volume: a class (or ``""``: class-less PVs only, or none, or
    rarely a class that does not exist), access modes, a size, a label selector on the PVs'
    tier sometimes. One in six is pre-bound to an Available PV, by the PV's ``claimRef``
    (FindMatchingVolume takes that PV first) or by the claim's ``volumeName`` (a claim
    ``getPodVolumeClaims`` treats as an unbound Immediate one: binder.go). A claim of an
    Immediate class or of the class ``""`` (binding is not delayed: IsDelayBindingMode,
    component-helpers/storage/volume/helpers.go) without a selector is, three times in four,
    bound already (``_controller_volume``): a real cluster's PV controller binds such claims
    before any pod is scheduled; the others stay unbound (the pods using them are
    unschedulable)."""
    spec = claim_template_spec(draw, vols.classes)
    if "storageClassName" not in spec and sometimes(draw, 2):
        spec["storageClassName"] = "" if not sometimes(draw, 4) else MISSING_CLASS
    if sometimes(draw, 4):
        spec["selector"] = {"matchLabels": {TIER: draw(sampled(TIERS))}}
    class_name = spec.get("storageClassName", "")
    immediate = class_name == "" and "storageClassName" in spec or \
        vols.classes.binding_mode.get(class_name) == "Immediate"
    if immediate and "selector" not in spec and not sometimes(draw, 4):
        return vols.claim(namespace, spec, draw(_controller_volume(vols, spec)))
    name = vols.claim(namespace, spec, None)
    free = [pv for pv in vols.volumes if "claimRef" not in pv["spec"]]
    if free and sometimes(draw, 6):
        volume = free[draw(integers(0, len(free) - 1))]
        if draw(booleans()):
            volume["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim",
                                          "namespace": namespace, "name": name}
        else:
            spec["volumeName"] = volume["metadata"]["name"]
    return name


@composite
def _controller_volume(draw: st.DrawFn, vols: _Volumes, spec: Doc) -> Doc:
    """The PV the PV controller bound a claim of an Immediate class (or of no class: ``""``)
    to: of the claim's class, size, access modes and volume mode, a CSI volume of the class's
    driver (or of the first driver, for a class without a provisioner or no class: a static PV
    made for the claim); often zone or region labels and, mostly, the node affinity matching
    them, as a provisioner of a zonal disk sets them (``_pv_affinity``)."""
    name = f"pv-{len(vols.volumes)}"
    class_name = spec["storageClassName"]
    provisioner = vols.classes.provisioner.get(class_name, NO_PROVISIONER)
    driver = provisioner if provisioner in CSI_DRIVERS else CSI_DRIVERS[0]
    pv_spec: Doc = {"capacity": {"storage": spec["resources"]["requests"]["storage"]},
                    "accessModes": list(spec["accessModes"]),
                    "csi": {"driver": driver, "volumeHandle": name}}
    if class_name:
        pv_spec["storageClassName"] = class_name
    if "volumeMode" in spec:
        pv_spec["volumeMode"] = spec["volumeMode"]
    meta: Doc = {"name": name}
    labels = draw(pv_topology_labels(share=(3, 4), nodes=vols.cluster.nodes))
    affinity = draw(_pv_affinity(vols.cluster, labels))
    if affinity is not None:
        pv_spec["nodeAffinity"] = affinity
    if labels:
        meta["labels"] = labels
    doc = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta, "spec": pv_spec,
           "status": {"phase": "Available"}}
    vols.volumes.append(doc)
    return doc


def lost_claim(vols: _Volumes, namespace: str) -> str:
    """A claim bound to a PV that no longer exists (phase Lost, as the PV controller leaves
    it): VolumeBinding's ``ErrReasonPVNotExist``."""
    spec: Doc = {"accessModes": [RWO], "resources": {"requests": {"storage": _gi(1)}},
                 "storageClassName": "", "volumeName": LOST_VOLUME}
    name = vols.claim(namespace, spec, None)
    claim = vols.claims[-1]
    claim["metadata"]["annotations"] = {ANN_BIND_COMPLETED: "yes"}
    claim["status"] = {"phase": "Lost"}
    return name


def _volume_entry(name: str, **source: Any) -> Doc:
    return {"name": name, **source}


@composite
def _pending_claim(draw: st.DrawFn, vols: _Volumes, ns: str) -> str:
    """The claim of a pending pod's ``persistentVolumeClaim`` volume: one time in two a
    ReadWriteOncePod claim another pod of the namespace names already, if there is one
    (VolumeRestrictions rejects the pod while that pod is bound: found in few scenarios
    otherwise, docs/mutants.md#storage-mutants); else one time in three a claim a running pod
    uses, else an existing claim of the namespace or (half the time) a new one."""
    if vols.rwop_used.get(ns) and draw(booleans()):
        return draw(sampled(vols.rwop_used[ns]))
    existing = vols.by_namespace.get(ns, [])
    if vols.in_use.get(ns) and sometimes(draw, 3):
        existing = vols.in_use[ns]
    if existing and draw(booleans()):
        return draw(sampled(existing))
    return draw(unbound_claim(vols, ns))


@composite
def pod_volumes(draw: st.DrawFn, pod: Doc, vols: _Volumes) -> list[Doc]:
    """1-2 volumes of a pending pod: a claim of its namespace (bound or not; shared with the
    pods naming it too; often a ReadWriteOncePod claim another pod names, for
    VolumeRestrictions' conflicts: ``_pending_claim``), a claim that does not exist or one
    bound to a PV that is gone (one in sixteen each), an ``ephemeral`` volume (its claim
    created, owned by the pod, as the ephemeral volume controller does), or an inline
    in-tree disk (``inline_disk``: GCE, AWS, iSCSI, RBD; read-only sometimes; half the time
    one a running pod mounts, for VolumeRestrictions' disk conflicts)."""
    ns = pod["metadata"].get("namespace", "default")
    out = []
    for i in range(draw(integers(1, 2))):
        name = f"vol-{i}"
        choice = draw(sampled(("claim", "claim", "claim", "ephemeral", "disk")))
        if choice == "claim" and sometimes(draw, 8):
            choice = draw(sampled(("missing", "lost")))
        if choice == "lost":
            out.append(_volume_entry(name, persistentVolumeClaim={
                "claimName": lost_claim(vols, ns)}))
        elif choice == "claim":
            claim = draw(_pending_claim(vols, ns))
            vols.used(ns, claim)
            out.append(_volume_entry(name, persistentVolumeClaim={"claimName": claim}))
        elif choice == "missing":
            out.append(_volume_entry(name, persistentVolumeClaim={"claimName": "missing"}))
        elif choice == "ephemeral":
            spec = claim_template_spec(draw, vols.classes)
            meta = pod["metadata"]
            meta.setdefault("uid", stable_uid("Pod", ns, meta["name"]))
            owner = {"apiVersion": "v1", "kind": "Pod", "name": meta["name"],
                     "uid": meta["uid"], "controller": True, "blockOwnerDeletion": True}
            vols.claim(ns, copy.deepcopy(spec), None, owner, f"{meta['name']}-{name}")
            out.append(_volume_entry(name, ephemeral={"volumeClaimTemplate": {"spec": spec}}))
        elif vols.disks and draw(booleans()):
            disk = copy.deepcopy(vols.disks[draw(integers(0, len(vols.disks) - 1))])
            for src in disk.values():  # read-only or not, this time
                src.pop("readOnly", None)
                if sometimes(draw, 2):
                    src["readOnly"] = True
            out.append(_volume_entry(name, **disk))
        else:
            out.append(_volume_entry(name, **draw(inline_disk())))
    return out


@composite
def running_pod_volumes(draw: st.DrawFn, pod: Doc, vols: _Volumes) -> list[Doc]:
    """1-2 volumes of a running pod: a claim bound to a PV the pod's node may use (no node
    affinity, or the node's hostname or zone; zone labels of the node's zone) and, for a CSI
    PV, its VolumeAttachment to the node two times in three, ReadWriteOncePod one time in four
    (the pending pods naming it too are VolumeRestrictions' conflicts); or
    (half the time) an inline in-tree disk."""
    ns = pod["metadata"].get("namespace", "default")
    out = []
    for i in range(draw(integers(1, 2))):
        name = f"vol-{i}"
        if sometimes(draw, 2):
            disk = draw(inline_disk(read_only_one_in=2))
            vols.disks.append(disk)
            out.append(_volume_entry(name, **disk))
            continue
        node = pod["spec"]["nodeName"]
        volume = draw(persistent_volume(vols, node if draw(booleans()) else None, node))
        if sometimes(draw, 4):  # a claim only this pod may use (VolumeRestrictions)
            volume["spec"]["accessModes"] = [RWOP]
        claim = vols.claim(ns, _bound_spec(volume), volume)
        vols.in_use.setdefault(ns, []).append(claim)
        vols.used(ns, claim)
        out.append(_volume_entry(name, persistentVolumeClaim={"claimName": claim}))
        if "csi" in volume["spec"] and not sometimes(draw, 3):
            vols.attachments.append(draw(volume_attachment(volume, node)))
    return out


@composite
def _shared_read_write_once_pod(draw: st.DrawFn, vols: _Volumes, pods: list[Doc],
                                pending: list[Doc]) -> None:
    """Two pods of a namespace name one ReadWriteOncePod claim: a pending pod and another pod
    (running, or pending: the first bound takes the claim), the claim one the other pod names
    already or a new one bound to a static PV (``persistent_volume``, the running pod's node
    admitted). VolumeRestrictions then rejects the later pod while the other is bound
    (``IsPVCUsedByPods``); without this such pairs are rare (docs/mutants.md#storage-mutants).
    Nothing when the pending pod is alone in its namespace."""
    pod = pending[draw(integers(0, len(pending) - 1))]
    ns = pod["metadata"].get("namespace", "default")
    others = [p for p in pods if p is not pod and p["metadata"].get("namespace", "default") == ns]
    if not others:
        return
    other = others[draw(integers(0, len(others) - 1))]
    named = {vol["persistentVolumeClaim"]["claimName"] for vol in other["spec"].get("volumes", [])
             if "persistentVolumeClaim" in vol}
    owned = [c for c in vols.rwop_used.get(ns, []) if c in named]
    if owned:
        claim = draw(sampled(owned))
    else:
        volume = draw(persistent_volume(vols, None, other["spec"].get("nodeName")))
        volume["spec"]["accessModes"] = [RWOP]
        claim = vols.claim(ns, _bound_spec(volume), volume)
        vols.used(ns, claim)
    for p in (other, pod) if not owned else (pod,):
        volumes = p["spec"].setdefault("volumes", [])
        volumes.append(_volume_entry(f"vol-{len(volumes)}",
                                     persistentVolumeClaim={"claimName": claim}))


@composite
def storage_documents(draw: st.DrawFn, cluster: GeneratedCluster, pending: list[Doc],
                      classes: StorageClasses, sizes: Sizes = SMALL) -> list[Doc]:
    """The storage objects of a scenario after ``classes``: CSINodes, capacities, static PVs
    (available, or bound to a claim), claims, volumes
    for up to ``sizes.max_pod_volumes`` running and as many pending pods (set in place; at
    least one pending pod, when there is one, but one time in four), VolumeAttachments (of
    the running pods' CSI PVs, and rarely one of a PV no pod uses: a volume still attached)."""
    vols = _Volumes(classes, cluster)
    docs = draw(csi_nodes(cluster, classes.drivers)) + draw(capacities(cluster, classes))
    for _ in range(draw(integers(0, sizes.max_volumes))):
        volume = draw(persistent_volume(vols))
        if sometimes(draw, 3):
            ns = draw(sampled(cluster.namespace_names))
            vols.claim(ns, _bound_spec(volume), volume)
    for ns in cluster.namespace_names:
        for _ in range(draw(integers(0, 1))):
            draw(unbound_claim(vols, ns))
    for pods, volumes in ((cluster.running_pods, running_pod_volumes),
                          (pending, pod_volumes)):
        most = min(sizes.max_pod_volumes, len(pods))
        # at least one pending pod has volumes, but one time in four
        least = 1 if pods is pending and most and not sometimes(draw, 4) else 0
        users = draw(st.lists(integers(0, max(0, len(pods) - 1)), unique=True,
                              min_size=least, max_size=most))
        for i in sorted(users):
            pods[i]["spec"]["volumes"] = [*pods[i]["spec"].get("volumes", []),
                                          *draw(volumes(pods[i], vols))]
    if pending and sometimes(draw, 3):
        draw(_shared_read_write_once_pod(vols, [*cluster.running_pods, *pending], pending))
    idle = [pv for pv in vols.volumes if "csi" in pv["spec"] and "claimRef" not in pv["spec"]]
    if idle and sometimes(draw, 6):
        volume = idle[draw(integers(0, len(idle) - 1))]
        vols.attachments.append(draw(volume_attachment(volume,
                                                       draw(sampled(cluster.node_names)))))
    return docs + vols.volumes + vols.claims + vols.attachments
