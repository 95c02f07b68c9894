"""Storage manifests for scenarios: PersistentVolume, PersistentVolumeClaim (v1) and
StorageClass, CSINode, CSIDriver, CSIStorageCapacity, VolumeAttachment (storage.k8s.io/v1), in
the style of upstream's ``st.MakePersistentVolume`` and ``st.MakePersistentVolumeClaim``
(pkg/scheduler/testing/wrappers.go of k8s.io/kubernetes v1.37.2).

``manifest()`` gives the document; ``obj()`` the model object (``model/storage.py``) through
the real loader (``loader/storage.py``), so the API server's defaults apply: a claim's
``volumeMode`` Filesystem, a class's ``volumeBindingMode`` Immediate, a CSIDriver's
``attachRequired`` true. Nothing else is defaulted: ``make_pv("pv")`` has no capacity, access
modes or source until they are set, as upstream's unit-test objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Self

from reference_impl.model.loader import load_documents
from reference_impl.model.storage import (
    ANN_IS_DEFAULT_STORAGE_CLASS,
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
    VolumeAttachment,
)
from reference_impl.testing._base import Doc, ObjectWrapper, Quantity, plain, timestamp
from reference_impl.testing.pods import node_selector_term

STORAGE_V1 = "storage.k8s.io/v1"


def _load(doc: Doc) -> StorageObjects:
    return load_documents([doc], source="<builder>").cluster.storage


def _key(doc: Doc) -> str:
    meta = doc["metadata"]
    return f"{meta.get('namespace') or 'default'}/{meta['name']}"


class PersistentVolumeWrapper(ObjectWrapper):
    """A PersistentVolume (``st.MakePersistentVolume``)."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__("v1", "PersistentVolume", name)
        self.spec()

    def capacity(self, size: Quantity) -> Self:
        """``spec.capacity.storage``."""
        self._at("spec", "capacity")["storage"] = size
        return self

    def access_modes(self, *modes: str) -> Self:
        return self.spec(accessModes=list(modes))

    def storage_class(self, name: str) -> Self:
        """``spec.storageClassName``."""
        return self.spec(storageClassName=name)

    def volume_mode(self, mode: str) -> Self:
        return self.spec(volumeMode=mode)

    def claim_ref(self, namespace: str, name: str, uid: str = "") -> Self:
        """``spec.claimRef``: the claim this volume is bound (or reserved) to."""
        ref: Doc = {"kind": "PersistentVolumeClaim", "namespace": namespace, "name": name}
        if uid:
            ref["uid"] = uid
        return self.spec(claimRef=ref)

    def node_affinity(self, *terms: Mapping[str, Any]) -> Self:
        """``spec.nodeAffinity.required`` with these NodeSelectorTerms (ORed; e.g. from
        ``node_selector_term``), added to those already set."""
        required = self._at("spec", "nodeAffinity", "required")
        required.setdefault("nodeSelectorTerms", []).extend(plain(list(terms)))
        return self

    def node_affinity_in(self, key: str, *values: str) -> Self:
        """One more required term ``key In values``."""
        return self.node_affinity(node_selector_term((key, "In", list(values))))

    def source(self, kind: str, source: Mapping[str, Any]) -> Self:
        """The volume source: ``kind`` is its field name (``hostPath``, ``gcePersistentDisk``,
        ``csi``...; model.storage.PV_SOURCE_KEYS)."""
        return self.spec(**{kind: dict(source)})

    def csi(self, driver: str, handle: str) -> Self:
        """A CSI source: ``spec.csi.driver`` and ``volumeHandle``."""
        return self.source("csi", {"driver": driver, "volumeHandle": handle})

    def host_path(self, path: str) -> Self:
        return self.source("hostPath", {"path": path})

    def phase(self, phase: str) -> Self:
        """``status.phase`` (Pending unless set, the API's default)."""
        return self.status(phase=phase)

    def deleting(self) -> Self:
        """A deletionTimestamp (one second after the epoch)."""
        return self.meta(deletionTimestamp=timestamp(1))

    def obj(self) -> PersistentVolume:
        return _load(self.manifest()).volumes[self._doc["metadata"]["name"]]


def make_pv(name: str) -> PersistentVolumeWrapper:
    """``st.MakePersistentVolume().Name(name)``::

        make_pv("pv-1").capacity("1Gi").access_modes("ReadWriteOnce").storage_class("fast")
    """
    return PersistentVolumeWrapper(name)


class PersistentVolumeClaimWrapper(ObjectWrapper):
    """A PersistentVolumeClaim (``st.MakePersistentVolumeClaim``)."""

    __slots__ = ()

    def __init__(self, name: str, namespace: str) -> None:
        super().__init__("v1", "PersistentVolumeClaim", name)
        self.namespace(namespace)
        self.spec()

    def storage_class(self, name: str) -> Self:
        """``spec.storageClassName``."""
        return self.spec(storageClassName=name)

    def no_class(self) -> Self:
        """``spec.storageClassName: ""``: explicitly no class (only class-less volumes match,
        and the DefaultStorageClass admission leaves the claim alone)."""
        return self.storage_class("")

    def request(self, size: Quantity) -> Self:
        """``spec.resources.requests.storage``."""
        self._at("spec", "resources", "requests")["storage"] = size
        return self

    def access_modes(self, *modes: str) -> Self:
        return self.spec(accessModes=list(modes))

    def volume_mode(self, mode: str) -> Self:
        return self.spec(volumeMode=mode)

    def selector(self, selector: Mapping[str, Any]) -> Self:
        """``spec.selector``: a label selector (e.g. from ``label_selector``)."""
        return self.spec(selector=plain(selector))

    def volume_name(self, name: str) -> Self:
        """``spec.volumeName``: the volume the claim is bound (or pre-bound) to."""
        return self.spec(volumeName=name)

    def phase(self, phase: str) -> Self:
        """``status.phase`` (Pending unless set)."""
        return self.status(phase=phase)

    def bound_to(self, volume: str) -> Self:
        """A claim the PV controller bound: ``volumeName`` and phase Bound."""
        return self.volume_name(volume).phase("Bound")

    def deleting(self) -> Self:
        return self.meta(deletionTimestamp=timestamp(1))

    def owner_pod(self, name: str, uid: str) -> Self:
        """Owned by the pod ``name`` (as controller): the claim of a generic ephemeral
        volume."""
        self._append(("metadata",), "ownerReferences", {
            "apiVersion": "v1", "kind": "Pod", "name": name, "uid": uid,
            "controller": True, "blockOwnerDeletion": True})
        return self

    def obj(self) -> PersistentVolumeClaim:
        return _load(self.manifest()).claims[_key(self._doc)]


def make_pvc(name: str, namespace: str = "default") -> PersistentVolumeClaimWrapper:
    """``st.MakePersistentVolumeClaim().Name(name).Namespace(namespace)``::

        make_pvc("data").storage_class("fast").request("1Gi").access_modes("ReadWriteOnce")
    """
    return PersistentVolumeClaimWrapper(name, namespace)


class StorageClassWrapper(ObjectWrapper):
    """A StorageClass (storage.k8s.io/v1)."""

    __slots__ = ()

    def __init__(self, name: str, provisioner: str) -> None:
        super().__init__(STORAGE_V1, "StorageClass", name)
        self._doc["provisioner"] = provisioner

    def binding_mode(self, mode: str) -> Self:
        """``volumeBindingMode``: Immediate or WaitForFirstConsumer."""
        self._doc["volumeBindingMode"] = mode
        return self

    def wait_for_first_consumer(self) -> Self:
        return self.binding_mode("WaitForFirstConsumer")

    def allowed_topology(self, key: str, *values: str) -> Self:
        """One more ``allowedTopologies`` term of one expression ``key`` in ``values``."""
        self._doc.setdefault("allowedTopologies", []).append(
            {"matchLabelExpressions": [{"key": key, "values": list(values)}]})
        return self

    def default(self) -> Self:
        """The ``storageclass.kubernetes.io/is-default-class: "true"`` annotation."""
        return self.annotation(ANN_IS_DEFAULT_STORAGE_CLASS, "true")

    def creation_timestamp(self, t: str | float) -> Self:
        """metadata.creationTimestamp (the newest default class is the default)."""
        return self.meta(creationTimestamp=timestamp(t))

    def parameters(self, parameters: Mapping[str, str]) -> Self:
        """``parameters`` (not read: they take no part in scheduling)."""
        self._doc["parameters"] = dict(parameters)
        return self

    def obj(self) -> StorageClass:
        return _load(self.manifest()).classes[self._doc["metadata"]["name"]]


def make_storage_class(name: str, provisioner: str) -> StorageClassWrapper:
    return StorageClassWrapper(name, provisioner)


class CSINodeWrapper(ObjectWrapper):
    """A CSINode, named as its node."""

    __slots__ = ()

    def __init__(self, node: str) -> None:
        super().__init__(STORAGE_V1, "CSINode", node)
        self.spec(drivers=[])

    def driver(self, name: str, count: int | None = None,
               topology_keys: Iterable[str] = (), node_id: str | None = None) -> Self:
        """One more driver: ``allocatable.count`` when ``count`` is given, its topology keys
        and ``nodeID`` (the node's name unless given)."""
        d: Doc = {"name": name, "nodeID": node_id if node_id is not None
                  else self._doc["metadata"]["name"]}
        if count is not None:
            d["allocatable"] = {"count": count}
        keys = list(topology_keys)
        if keys:
            d["topologyKeys"] = keys
        self._append(("spec",), "drivers", d)
        return self

    def migrated_plugins(self, *plugins: str) -> Self:
        """The ``storage.alpha.kubernetes.io/migrated-plugins`` annotation (in-tree plugin
        names such as ``kubernetes.io/aws-ebs``)."""
        return self.annotation("storage.alpha.kubernetes.io/migrated-plugins",
                               ",".join(plugins))

    def obj(self) -> CSINode:
        return _load(self.manifest()).csi_nodes[self._doc["metadata"]["name"]]


def make_csi_node(node: str) -> CSINodeWrapper:
    return CSINodeWrapper(node)


class CSIDriverWrapper(ObjectWrapper):
    """A CSIDriver."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__(STORAGE_V1, "CSIDriver", name)
        self.spec()

    def attach_required(self, required: bool = True) -> Self:
        return self.spec(attachRequired=required)

    def storage_capacity(self, enabled: bool = True) -> Self:
        return self.spec(storageCapacity=enabled)

    def prevent_pod_scheduling_if_missing(self, enabled: bool = True) -> Self:
        return self.spec(preventPodSchedulingIfMissing=enabled)

    def obj(self) -> CSIDriver:
        return _load(self.manifest()).csi_drivers[self._doc["metadata"]["name"]]


def make_csi_driver(name: str) -> CSIDriverWrapper:
    return CSIDriverWrapper(name)


class CSIStorageCapacityWrapper(ObjectWrapper):
    """A CSIStorageCapacity of a class in a namespace."""

    __slots__ = ()

    def __init__(self, name: str, namespace: str, storage_class: str) -> None:
        super().__init__(STORAGE_V1, "CSIStorageCapacity", name)
        self.namespace(namespace)
        self._doc["storageClassName"] = storage_class

    def capacity(self, size: Quantity) -> Self:
        self._doc["capacity"] = size
        return self

    def maximum_volume_size(self, size: Quantity) -> Self:
        self._doc["maximumVolumeSize"] = size
        return self

    def node_topology(self, match_labels: Mapping[str, str]) -> Self:
        """``nodeTopology``: a selector of these labels (unset: no node has the capacity)."""
        self._doc["nodeTopology"] = {"matchLabels": dict(match_labels)}
        return self

    def obj(self) -> CSIStorageCapacity:
        return _load(self.manifest()).capacities[_key(self._doc)]


def make_csi_storage_capacity(name: str, namespace: str,
                              storage_class: str) -> CSIStorageCapacityWrapper:
    return CSIStorageCapacityWrapper(name, namespace, storage_class)


class VolumeAttachmentWrapper(ObjectWrapper):
    """A VolumeAttachment of a PersistentVolume to a node."""

    __slots__ = ()

    def __init__(self, name: str, attacher: str, node: str, pv: str) -> None:
        super().__init__(STORAGE_V1, "VolumeAttachment", name)
        self.spec(attacher=attacher, nodeName=node, source={"persistentVolumeName": pv})

    def attached(self, attached: bool = True) -> Self:
        return self.status(attached=attached)

    def obj(self) -> VolumeAttachment:
        return _load(self.manifest()).attachments[self._doc["metadata"]["name"]]


def make_volume_attachment(name: str, attacher: str, node: str,
                           pv: str) -> VolumeAttachmentWrapper:
    return VolumeAttachmentWrapper(name, attacher, node, pv)


def load_storage(*wrappers: object) -> StorageObjects:
    """The storage objects of these manifests (wrappers or dicts) loaded together."""
    return load_documents([plain(w) for w in wrappers], source="<builder>").cluster.storage
