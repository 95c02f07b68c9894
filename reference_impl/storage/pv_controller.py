"""The simulated PV controller and external provisioner around the scheduler (docs/storage.md).

Upstream: pkg/controller/volume/persistentvolume/pv_controller.go and pv_controller_base.go,
component-helpers storage/volume/pv_helpers.go, and sig-storage-lib-external-provisioner's
provisionClaimOperation with the CSI external-provisioner's topology. VolumeBinding's PreBind
writes its decisions, then calls :func:`complete_pod_volumes`; every write replaces the object
in StorageObjects and is reported through ``changed(kind, old, new)`` (old None for a create),
in the order the controllers write to the API.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from reference_impl.model.node_selector import (
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from reference_impl.model.objects import Node
from reference_impl.model.storage import (
    ANN_BETA_STORAGE_CLASS,
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    PV_BOUND,
    PVC_BOUND,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
)

#: The kinds reported to ``changed`` (the framework handle's ``storage_changed``).
KIND_PV = "PersistentVolume"
KIND_PVC = "PersistentVolumeClaim"

#: ``NotSupportedProvisioner`` (pkg/controller/volume/persistentvolume/util/util.go): a class
#: of statically provisioned volumes (local volumes); nobody provisions for it.
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"

#: ``Changed``: the callback every write goes through.
Changed = Callable[[str, Any, Any], None]


def complete_pod_volumes(storage: StorageObjects, node: Node,
                         claims: Iterable[PersistentVolumeClaim], changed: Changed) -> None:
    """Complete what the scheduler started for a pod's ``claims`` on ``node``: each claim a PV
    is (pre)bound to is bound to it; each claim annotated for provisioning on ``node`` gets a
    provisioned PV and is bound to it. A claim already bound, or one the scheduler started
    nothing for, is left as it is (docs/storage.md: neither controller acts on anything the
    scheduler did not start). Claims are looked up by key in ``storage`` (the current object
    wins over the one given)."""
    for given in claims:
        claim = storage.claims.get(given.key)
        if claim is None or _bind_completed(claim):
            continue
        volume = _volume_for_claim(storage, claim)
        if volume is None and claim.annotations.get(ANN_SELECTED_NODE) == node.name:
            claim, volume = _provision(storage, node, claim, changed)
        if volume is not None:
            bind(storage, volume, claim, changed)


def _bind_completed(claim: PersistentVolumeClaim) -> bool:
    """``syncClaim``: a claim with ``pv.kubernetes.io/bind-completed`` goes to
    ``syncBoundClaim``, which has nothing to do for a claim bound to its volume."""
    return ANN_BIND_COMPLETED in claim.annotations and bool(claim.volume_name)


def is_volume_bound_to_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    """``IsVolumeBoundToClaim`` (pv_helpers.go): the claimRef names the claim, and its UID,
    when set, is the claim's."""
    ref = volume.claim_ref
    if ref is None or ref.name != claim.name or ref.namespace != claim.namespace:
        return False
    return not ref.uid or ref.uid == claim.uid


def _volume_for_claim(storage: StorageObjects,
                      claim: PersistentVolumeClaim) -> PersistentVolume | None:
    """The volume ``syncUnboundClaim`` binds: the one the claim names (``spec.volumeName``,
    when its claimRef is free or this claim), else ``findBestMatchForClaim``'s first choice for
    a claim the scheduler chose a volume for, a volume pre-bound to it (``findByClaim``:
    a claimRef naming the claim). Free volumes are not matched here: the scheduler pre-binds
    every volume it chooses, and the controller acts on nothing else."""
    if claim.volume_name:
        named = storage.volumes.get(claim.volume_name)
        if named is None or (named.claim_ref is not None
                             and not is_volume_bound_to_claim(named, claim)):
            return None
        return named
    for volume in storage.volumes.values():
        if is_volume_bound_to_claim(volume, claim) and not volume.deleting:
            return volume
    return None


def claim_class(claim: PersistentVolumeClaim) -> str:
    """``GetPersistentVolumeClaimClass`` (pv_helpers.go): the beta annotation, then
    ``spec.storageClassName``, else ""."""
    if ANN_BETA_STORAGE_CLASS in claim.annotations:
        return claim.annotations[ANN_BETA_STORAGE_CLASS]
    return claim.storage_class_name or ""


# --- the PV controller: bind (pv_controller.go) -------------------------------------------------

def bind(storage: StorageObjects, volume: PersistentVolume, claim: PersistentVolumeClaim,
         changed: Changed) -> None:
    """``bind``: the volume first (``bindVolumeToClaim``, ``updateVolumePhase`` Bound), then
    the claim (``bindClaimToVolume``, ``updateClaimStatus`` Bound); each step writes only
    when something changes."""
    volume = _bind_volume_to_claim(storage, volume, claim, changed)
    volume = _update_volume_phase(storage, volume, PV_BOUND, changed)
    claim = _bind_claim_to_volume(storage, claim, volume, changed)
    _update_claim_phase(storage, claim, PVC_BOUND, changed)


def _bind_volume_to_claim(storage: StorageObjects, volume: PersistentVolume,
                          claim: PersistentVolumeClaim, changed: Changed) -> PersistentVolume:
    """``bindVolumeToClaim`` with ``GetBindVolumeToClaim``: the claimRef set to the claim
    (name, namespace and UID), and ``pv.kubernetes.io/bound-by-controller: "yes"`` when the
    volume was not bound to the claim before."""
    should_set_bound_by_controller = not is_volume_bound_to_claim(volume, claim)
    annotations = dict(volume.annotations)
    claim_ref = volume.claim_ref
    dirty = False
    if claim_ref is None or (claim_ref.name, claim_ref.namespace, claim_ref.uid) != (
            claim.name, claim.namespace, claim.uid):
        claim_ref = ObjectReference(claim.namespace, claim.name, claim.uid)
        dirty = True
    if should_set_bound_by_controller and ANN_BOUND_BY_CONTROLLER not in annotations:
        annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
        dirty = True
    if not dirty:
        return volume
    return _write_volume(storage, volume, changed, claim_ref=claim_ref, annotations=annotations)


def _update_volume_phase(storage: StorageObjects, volume: PersistentVolume, phase: str,
                         changed: Changed) -> PersistentVolume:
    """``updateVolumePhase``: status.phase, written only when it differs."""
    if volume.phase == phase:
        return volume
    return _write_volume(storage, volume, changed, phase=phase)


def _bind_claim_to_volume(storage: StorageObjects, claim: PersistentVolumeClaim,
                          volume: PersistentVolume, changed: Changed) -> PersistentVolumeClaim:
    """``bindClaimToVolume``: ``spec.volumeName`` and ``pv.kubernetes.io/bound-by-controller``
    when the claim did not name the volume yet; ``pv.kubernetes.io/bind-completed`` when
    absent."""
    annotations = dict(claim.annotations)
    volume_name = claim.volume_name
    dirty = False
    if volume.name != claim.volume_name:
        volume_name = volume.name
        annotations.setdefault(ANN_BOUND_BY_CONTROLLER, "yes")
        dirty = True
    if ANN_BIND_COMPLETED not in annotations:
        annotations[ANN_BIND_COMPLETED] = "yes"
        dirty = True
    if not dirty:
        return claim
    return _write_claim(storage, claim, changed, volume_name=volume_name,
                        annotations=annotations)


def _update_claim_phase(storage: StorageObjects, claim: PersistentVolumeClaim, phase: str,
                        changed: Changed) -> PersistentVolumeClaim:
    """``updateClaimStatus``: status.phase (the model keeps no status.capacity or
    status.accessModes), written only when it differs."""
    if claim.phase == phase:
        return claim
    return _write_claim(storage, claim, changed, phase=phase)


# --- the external provisioner --------------------------------------------------------------------

def _provision(storage: StorageObjects, node: Node, claim: PersistentVolumeClaim,
               changed: Changed) -> tuple[PersistentVolumeClaim, PersistentVolume | None]:
    """``provisionClaimOperationExternal`` (the PV controller hands the claim to the class's
    provisioner: the ``volume.kubernetes.io/storage-provisioner`` annotations), then the
    external provisioner's ``provisionClaimOperation``: the PV ``pvc-<claim uid>``, created
    pre-bound to the claim. Nothing happens for a claim without a class, of a class that does
    not exist or that nobody provisions for (``kubernetes.io/no-provisioner``)."""
    class_name = claim_class(claim)
    sc = storage.classes.get(class_name) if class_name else None
    if sc is None or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
        return claim, None
    claim = _set_claim_provisioner(storage, claim, sc.provisioner, changed)
    name = provisioned_volume_name(claim)
    existing = storage.volumes.get(name)
    if existing is not None:
        # the provisioner finds the PV it created already (saveVolume's AlreadyExists)
        return claim, existing
    volume = PersistentVolume(
        name=name,
        uid=name,
        annotations={ANN_DYNAMICALLY_PROVISIONED: sc.provisioner},
        capacity=claim.request,
        access_modes=claim.access_modes,
        storage_class_name=class_name,
        volume_mode=claim.volume_mode,
        claim_ref=ObjectReference(claim.namespace, claim.name, claim.uid),
        node_affinity=provisioned_node_affinity(storage, node, sc),
        source_kind="csi",
        source={"driver": sc.provisioner, "volumeHandle": name},
        resource_version=1,
    )
    storage.volumes[name] = volume
    changed(KIND_PV, None, volume)
    return claim, volume


def provisioned_volume_name(claim: PersistentVolumeClaim) -> str:
    """``getProvisionedVolumeNameForClaim``: ``pvc-`` and the claim's UID."""
    return f"pvc-{claim.uid}"


def provisioned_node_affinity(storage: StorageObjects, node: Node,
                              sc: StorageClass) -> NodeSelector | None:
    """The CSI external-provisioner's accessible topology for a volume provisioned for
    ``node``: one term with ``KEY In [node's value]`` for each topology key of the class's
    driver in the node's CSINode, in the CSINode's order. None when the node has no CSINode,
    the driver is not in it, or it has no topology keys. A key the node has no label for is
    left out (docs/storage.md)."""
    csi_node = storage.csi_nodes.get(node.name)
    driver = csi_node.driver(sc.provisioner) if csi_node is not None else None
    if driver is None or not driver.topology_keys:
        return None
    requirements = tuple(NodeSelectorRequirement(key, "In", (node.labels[key],))
                         for key in driver.topology_keys if key in node.labels)
    if not requirements:
        return None
    return NodeSelector((NodeSelectorTerm(match_expressions=requirements),))


def _set_claim_provisioner(storage: StorageObjects, claim: PersistentVolumeClaim,
                           provisioner: str, changed: Changed) -> PersistentVolumeClaim:
    """``setClaimProvisioner`` (pv_controller_base.go): ``volume.kubernetes.io/storage-provisioner``
    and its beta twin set to the provisioner's name, unless the first is set to it already."""
    if claim.annotations.get(ANN_STORAGE_PROVISIONER) == provisioner:
        return claim
    annotations = dict(claim.annotations)
    annotations[ANN_BETA_STORAGE_PROVISIONER] = provisioner
    annotations[ANN_STORAGE_PROVISIONER] = provisioner
    return _write_claim(storage, claim, changed, annotations=annotations)


# --- writes ---------------------------------------------------------------------------------------

def _write_volume(storage: StorageObjects, old: PersistentVolume, changed: Changed,
                  **fields: Any) -> PersistentVolume:
    """An update of a PV: a new object with a new resourceVersion replaces the old one."""
    new = dataclasses.replace(old, resource_version=old.resource_version + 1, **fields)
    storage.volumes[new.name] = new
    changed(KIND_PV, old, new)
    return new


def _write_claim(storage: StorageObjects, old: PersistentVolumeClaim, changed: Changed,
                 **fields: Any) -> PersistentVolumeClaim:
    """An update of a PVC: a new object with a new resourceVersion replaces the old one."""
    new = dataclasses.replace(old, resource_version=old.resource_version + 1, **fields)
    storage.claims[new.key] = new
    changed(KIND_PVC, old, new)
    return new


__all__ = ["KIND_PV", "KIND_PVC", "NOT_SUPPORTED_PROVISIONER", "bind", "claim_class",
           "complete_pod_volumes", "is_volume_bound_to_claim", "provisioned_node_affinity",
           "provisioned_volume_name"]
