"""The storage objects the volume plugins read: PersistentVolume, PersistentVolumeClaim,
StorageClass (storage.k8s.io/v1), CSINode, CSIDriver, CSIStorageCapacity, VolumeAttachment.

Upstream: ``k8s.io/api/core/v1/types.go`` and ``k8s.io/api/storage/v1/types.go`` of v1.37.2.
Field names follow the API (snake_cased). Storage sizes are integer bytes
(``Quantity.Value()``). Claims and volumes are mutable: the VolumeBinding plugin binds claims
to volumes and the simulated PV controller and provisioner complete what it started
(docs/storage.md). The loader (``loader/storage.py``) builds them into ``Cluster.storage``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reference_impl.model.node_selector import NodeSelector

# v1.PersistentVolumeAccessMode.
READ_WRITE_ONCE = "ReadWriteOnce"
READ_ONLY_MANY = "ReadOnlyMany"
READ_WRITE_MANY = "ReadWriteMany"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"

# v1.PersistentVolumeMode.
VOLUME_MODE_FILESYSTEM = "Filesystem"
VOLUME_MODE_BLOCK = "Block"

# storagev1.VolumeBindingMode.
BINDING_IMMEDIATE = "Immediate"
BINDING_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"

# v1.PersistentVolumePhase and v1.PersistentVolumeClaimPhase.
PV_PENDING = "Pending"
PV_AVAILABLE = "Available"
PV_BOUND = "Bound"
PV_RELEASED = "Released"
PV_FAILED = "Failed"
PVC_PENDING = "Pending"
PVC_BOUND = "Bound"
PVC_LOST = "Lost"

# Annotations of the PV controller and the scheduler
# (pkg/controller/volume/persistentvolume/util/util.go,
# k8s.io/api/core/v1/annotation_key_constants.go).
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_IS_DEFAULT_STORAGE_CLASS = "storageclass.kubernetes.io/is-default-class"
ANN_BETA_IS_DEFAULT_STORAGE_CLASS = "storageclass.beta.kubernetes.io/is-default-class"

# The in-tree volume sources a PersistentVolume (or a pod's inline volume) may carry, by their
# field name in v1.PersistentVolumeSource; a PV's ``source`` holds exactly one of them.
PV_SOURCE_KEYS = (
    "gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "iscsi",
    "cinder", "cephfs", "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "quobyte",
    "azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO", "local", "storageos", "csi",
)


@dataclass(slots=True, frozen=True)
class ObjectReference:
    """v1.ObjectReference as a PV's ``claimRef`` uses it."""

    namespace: str
    name: str
    uid: str = ""


@dataclass(slots=True)
class PersistentVolume:
    name: str
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    #: ``spec.capacity.storage`` in bytes (0 when absent)
    capacity: int = 0
    access_modes: tuple[str, ...] = ()
    storage_class_name: str = ""
    #: ``spec.volumeMode``; the API defaults it to Filesystem
    volume_mode: str = VOLUME_MODE_FILESYSTEM
    claim_ref: ObjectReference | None = None
    #: ``spec.nodeAffinity.required`` (None: no node affinity)
    node_affinity: NodeSelector | None = None
    #: the one volume source: its field name (one of PV_SOURCE_KEYS) and its value, as given
    source_kind: str = ""
    source: dict = field(default_factory=dict)
    phase: str = PV_PENDING
    deleting: bool = False  # metadata.deletionTimestamp is set
    resource_version: int = 0

    @property
    def csi_driver(self) -> str:
        """``spec.csi.driver`` ("" for an in-tree volume)."""
        return str(self.source.get("driver", "")) if self.source_kind == "csi" else ""


@dataclass(slots=True)
class PersistentVolumeClaim:
    namespace: str
    name: str
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    #: ``spec.storageClassName``: None when unset (the beta annotation or the default class
    #: may then apply), "" when explicitly empty (no class: only class-less PVs match)
    storage_class_name: str | None = None
    access_modes: tuple[str, ...] = ()
    #: ``spec.resources.requests.storage`` in bytes (0 when absent)
    request: int = 0
    volume_mode: str = VOLUME_MODE_FILESYSTEM
    selector: object | None = None  # a model.objects.LabelSelector; None: nil
    volume_name: str = ""
    phase: str = PVC_PENDING
    deleting: bool = False
    #: the pod that owns an ephemeral volume's claim (its UID), "" for a standalone claim
    owner_pod_uid: str = ""
    resource_version: int = 0

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(slots=True, frozen=True)
class TopologySelectorTerm:
    """v1.TopologySelectorTerm: ``matchLabelExpressions`` as (key, values) pairs."""

    match_label_expressions: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(slots=True, frozen=True)
class StorageClass:
    name: str
    provisioner: str
    volume_binding_mode: str = BINDING_IMMEDIATE
    allowed_topologies: tuple[TopologySelectorTerm, ...] = ()
    annotations: tuple[tuple[str, str], ...] = ()
    #: parameters, reclaimPolicy, mountOptions, allowVolumeExpansion do not take part in
    #: scheduling; the loader reads and keeps nothing of them


@dataclass(slots=True, frozen=True)
class CSINodeDriver:
    name: str
    node_id: str = ""
    #: ``allocatable.count``: None when unset (no limit)
    allocatable_count: int | None = None
    topology_keys: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class CSINode:
    name: str  # the node's name
    drivers: tuple[CSINodeDriver, ...] = ()
    annotations: tuple[tuple[str, str], ...] = ()  # storage.alpha.kubernetes.io/migrated-plugins

    def driver(self, name: str) -> CSINodeDriver | None:
        for d in self.drivers:
            if d.name == name:
                return d
        return None


@dataclass(slots=True, frozen=True)
class CSIDriver:
    name: str
    #: ``spec.attachRequired``: the API defaults it to true
    attach_required: bool = True
    #: ``spec.storageCapacity``: the API defaults it to false
    storage_capacity: bool = False
    #: ``spec.preventPodSchedulingIfMissing`` (VolumeLimitScaling): None when unset (false)
    prevent_pod_scheduling_if_missing: bool | None = None


@dataclass(slots=True, frozen=True)
class CSIStorageCapacity:
    namespace: str
    name: str
    storage_class_name: str
    node_topology: object | None = None  # a model.objects.LabelSelector; None: nil (no node)
    capacity: int | None = None  # bytes; None: unset
    maximum_volume_size: int | None = None


@dataclass(slots=True, frozen=True)
class VolumeAttachment:
    name: str
    attacher: str
    node_name: str
    #: ``spec.source.persistentVolumeName`` ("" for an inline volume spec)
    persistent_volume_name: str = ""
    attached: bool = False


@dataclass(slots=True)
class StorageObjects:
    """The storage objects of a cluster, by key: PVs, classes, CSINodes, CSIDrivers and
    VolumeAttachments by name; claims and capacities by ``namespace/name``. Dicts keep input
    order."""

    volumes: dict[str, PersistentVolume] = field(default_factory=dict)
    claims: dict[str, PersistentVolumeClaim] = field(default_factory=dict)
    classes: dict[str, StorageClass] = field(default_factory=dict)
    csi_nodes: dict[str, CSINode] = field(default_factory=dict)
    csi_drivers: dict[str, CSIDriver] = field(default_factory=dict)
    capacities: dict[str, CSIStorageCapacity] = field(default_factory=dict)
    attachments: dict[str, VolumeAttachment] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.volumes or self.claims or self.classes or self.csi_nodes
                    or self.csi_drivers or self.capacities or self.attachments)
