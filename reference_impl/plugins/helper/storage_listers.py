"""What the volume plugins read through the PVC, PV and StorageClass listers, with the listers'
NotFound errors worded as upstream's, and the small component-helpers they share.

Upstream: ``k8s.io/client-go/listers`` (``errors.NewNotFound(Resource(...), name)``:
``RESOURCE "NAME" not found``), ``staging/src/k8s.io/component-helpers/storage/volume/helpers.go``
(``GetPersistentVolumeClaimClass``) and ``.../storage/ephemeral/ephemeral.go``
(``VolumeIsForPod``) of v1.37.2. VolumeBinding's ``reference_impl/storage/pv_helpers.py``
holds the same claim-class rule for the binder; these are the plugins' lister reads.
"""

from __future__ import annotations

from typing import Any

from reference_impl.model.objects import Pod
from reference_impl.model.storage import (
    ANN_BETA_STORAGE_CLASS,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
)

# The qualified resources of the listers' NotFound errors (GroupResource.String()).
PVC_RESOURCE = "persistentvolumeclaim"
PV_RESOURCE = "persistentvolume"
STORAGE_CLASS_RESOURCE = "storageclass.storage.k8s.io"


def storage_of(handle: Any) -> StorageObjects:
    """The listers of the informer factory: ``handle.storage_objects()`` (the framework handle
    serves it; a handle without it, or none, has no storage objects)."""
    storage = getattr(handle, "storage_objects", None)
    return storage() if storage is not None else StorageObjects()


def not_found(resource: str, name: str) -> str:
    """``apierrors.NewNotFound(resource, name).Error()``."""
    return f'{resource} "{name}" not found'


def get_pvc(storage: StorageObjects, namespace: str, name: str
            ) -> tuple[PersistentVolumeClaim | None, str | None]:
    """``pvcLister.PersistentVolumeClaims(namespace).Get(name)``: the claim, or the NotFound
    message."""
    pvc = storage.claims.get(f"{namespace}/{name}")
    if pvc is None:
        return None, not_found(PVC_RESOURCE, name)
    return pvc, None


def get_pv(storage: StorageObjects, name: str) -> tuple[PersistentVolume | None, str | None]:
    """``pvLister.Get(name)``: the volume, or the NotFound message."""
    pv = storage.volumes.get(name)
    if pv is None:
        return None, not_found(PV_RESOURCE, name)
    return pv, None


def get_storage_class(storage: StorageObjects, name: str
                      ) -> tuple[StorageClass | None, str | None]:
    """``scLister.Get(name)``: the class, or the NotFound message."""
    sc = storage.classes.get(name)
    if sc is None:
        return None, not_found(STORAGE_CLASS_RESOURCE, name)
    return sc, None


def persistent_volume_claim_class(pvc: PersistentVolumeClaim) -> str:
    """``GetPersistentVolumeClaimClass``: the beta annotation first, then
    ``spec.storageClassName``, else ""."""
    if ANN_BETA_STORAGE_CLASS in pvc.annotations:
        return pvc.annotations[ANN_BETA_STORAGE_CLASS]
    if pvc.storage_class_name is not None:
        return pvc.storage_class_name
    return ""


def volume_is_for_pod(pod: Pod, pvc: PersistentVolumeClaim) -> str | None:
    """``ephemeral.VolumeIsForPod``: None when the claim is in the pod's namespace and
    controlled by the pod (``owner_pod_uid``), else upstream's error message."""
    if pvc.namespace != pod.namespace or pvc.owner_pod_uid == "" \
            or pvc.owner_pod_uid != pod.uid:
        return (f"PVC {pvc.namespace}/{pvc.name} was not created for pod "
                f"{pod.namespace}/{pod.name} (pod is not owner)")
    return None
