"""VolumeRestrictions: conflicts between inline disks of pods on a node, and ReadWriteOncePod
claims already in use; also the volume helpers shared by the storage plugins (NodeVolumeLimits,
VolumeBinding, VolumeZone).

Upstream: ``pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go``.
The claims come from ``handle.storage_objects()`` (the PVC lister), the claims in use from the
snapshot (``IsPVCUsedByPods``). docs/reference.md#volumerestrictions."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from reference_impl.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, PreFilterResult, Status
from reference_impl.model.objects import Pod
from reference_impl.model.storage import (
    READ_WRITE_ONCE_POD,
    PersistentVolumeClaim,
    StorageObjects,
)
from reference_impl.plugins import names
from reference_impl.plugins.helper.storage_listers import get_pvc, storage_of

if TYPE_CHECKING:
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.types import NodeInfo, PodInfo

# ----- shared storage helpers ---------------------------------------------------------------

# fwk.VolumesSignerName (staging/src/k8s.io/kube-scheduler/framework/signers.go).
VOLUMES_SIGNER_NAME = "v1.Pod.Spec.Volumes.NonSyntheticSources()"

# fwk.QueueingHint values (staging/src/k8s.io/kube-scheduler/framework/types.go), by their String().
QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"

# Volume sources CSI migration can translate (csi-translation-lib translate.go inTreePlugins, each
# plugin's CanSupportInline): GCE PD, AWS EBS, Cinder, Azure Disk, Azure File, vSphere, Portworx.
INLINE_MIGRATABLE_SOURCES = (
    "gcePersistentDisk", "awsElasticBlockStore", "cinder", "azureDisk", "azureFile",
    "vsphereVolume", "portworxVolume",
)


def as_type(old_obj: Any, new_obj: Any, cls: type, go_type: str) -> str | None:
    """``util.As`` (pkg/scheduler/util/utils.go): the error message when a non-nil object is
    not of the expected type, else None."""
    for obj in (new_obj, old_obj):
        if obj is not None and not isinstance(obj, cls):
            return f"expected {go_type}, but got {type(obj).__name__}"
    return None


def as_pvc(old_obj: Any, new_obj: Any) -> str | None:
    """``util.As[*v1.PersistentVolumeClaim]``: PVCs are not modelled, so any object with a
    ``namespace`` and a ``name`` stands for one; the error message for anything else."""
    for obj in (new_obj, old_obj):
        if obj is not None and not (hasattr(obj, "namespace") and hasattr(obj, "name")):
            return f"expected *v1.PersistentVolumeClaim, but got {type(obj).__name__}"
    return None


def not_supported(plugin: str, what: str) -> Status:
    """The Error status every plugin of this group returns for inputs it cannot model."""
    return Status.as_error(f"{plugin}: not supported yet: {what}")


def _source(vol: dict, key: str) -> dict | None:
    """The volume source under ``key`` (a nil pointer when absent or null)."""
    src = vol.get(key)
    return src if isinstance(src, dict) else None


def pod_volumes(pod: Any) -> list[dict]:
    """The pod's ``spec.volumes``: ``pod.volumes`` plus a synthesized ``persistentVolumeClaim``
    volume for each name of ``pod.pvc_names`` that no raw volume already references."""
    vols = list(getattr(pod, "volumes", ()) or ())
    pvc_names = getattr(pod, "pvc_names", ()) or ()
    if pvc_names:
        seen = {src.get("claimName", "") for v in vols
                if (src := _source(v, "persistentVolumeClaim")) is not None}
        for claim in pvc_names:
            if claim not in seen:
                vols.append({"name": claim, "persistentVolumeClaim": {"claimName": claim}})
                seen.add(claim)
    return vols


def pvc_claim_names(pod: Any) -> list[str]:
    """Claim names of the pod's ``persistentVolumeClaim`` volumes, in volume order."""
    out = []
    for v in pod_volumes(pod):
        src = _source(v, "persistentVolumeClaim")
        if src is not None:
            out.append(src.get("claimName", ""))
    return out


def ephemeral_claim_names(pod: Any) -> list[str]:
    """``ephemeral.VolumeClaimName`` of each generic ephemeral volume: ``<pod>-<volume>``
    (staging/src/k8s.io/component-helpers/storage/ephemeral/ephemeral.go)."""
    return [f"{pod.name}-{v.get('name', '')}" for v in pod_volumes(pod)
            if _source(v, "ephemeral") is not None]


def is_inline_migratable(vol: dict) -> bool:
    """``CSITranslator.IsInlineMigratable`` (csi-translation-lib translate.go)."""
    return any(_source(vol, key) is not None for key in INLINE_MIGRATABLE_SOURCES)


def volumes_signer(pod: Any) -> tuple[str, ...]:
    """``fwk.VolumesSigner`` (staging/src/k8s.io/kube-scheduler/framework/signers.go): the JSON
    of each volume source except configMap and secret ones, sorted.

    Upstream marshals the (API-defaulted) Go ``VolumeSource``; here the raw source dict is
    serialized canonically (sorted keys, null fields dropped), which gives equal strings for
    equal sources. Only equality between pods matters for signatures.
    """
    out = []
    for vol in pod_volumes(pod):
        if _source(vol, "configMap") is None and _source(vol, "secret") is None:
            src = {k: v for k, v in vol.items() if k != "name" and v is not None}
            out.append(json.dumps(src, sort_keys=True, separators=(",", ":")))
    out.sort()
    return tuple(out)


# ----- VolumeRestrictions ---------------------------------------------------------------------

PRE_FILTER_STATE_KEY = "PreFilter" + names.VolumeRestrictions
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already "
    "in-use by another pod")

_RESTRICTED_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")


def needs_restrictions_check(vol: dict) -> bool:
    """``needsRestrictionsCheck``: GCE PD, AWS EBS, RBD or iSCSI."""
    return any(_source(vol, key) is not None for key in _RESTRICTED_SOURCES)


def _have_overlap(a1: list, a2: list) -> bool:
    """``haveOverlap``: the two lists share an element."""
    return not set(a1).isdisjoint(a2)


def _rbd_pool(src: dict) -> str:
    """``RBDVolumeSource.pool``; API defaulting sets "rbd" when empty
    (pkg/apis/core/v1/defaults.go SetDefaults_RBDVolumeSource)."""
    return src.get("pool") or "rbd"


def is_volume_conflict(vol: dict, existing_pod: Any) -> bool:
    """``isVolumeConflict``: does ``vol`` conflict with a volume of ``existing_pod``.

    - GCE PD: same pdName, unless both are read-only;
    - AWS EBS: same volumeID;
    - iSCSI: same iqn, unless both are read-only;
    - RBD: a common monitor, same pool and image, unless both are read-only.
    """
    gce = _source(vol, "gcePersistentDisk")
    aws = _source(vol, "awsElasticBlockStore")
    iscsi = _source(vol, "iscsi")
    rbd = _source(vol, "rbd")
    for ev in getattr(existing_pod, "volumes", ()) or ():
        if gce is not None:
            egce = _source(ev, "gcePersistentDisk")
            if egce is not None and gce.get("pdName", "") == egce.get("pdName", "") and not (
                    gce.get("readOnly", False) and egce.get("readOnly", False)):
                return True
        if aws is not None:
            eaws = _source(ev, "awsElasticBlockStore")
            if eaws is not None and aws.get("volumeID", "") == eaws.get("volumeID", ""):
                return True
        if iscsi is not None:
            eiscsi = _source(ev, "iscsi")
            if eiscsi is not None and iscsi.get("iqn", "") == eiscsi.get("iqn", "") and not (
                    iscsi.get("readOnly", False) and eiscsi.get("readOnly", False)):
                return True
        if rbd is not None:
            erbd = _source(ev, "rbd")
            if (erbd is not None
                    and _have_overlap(rbd.get("monitors") or [], erbd.get("monitors") or [])
                    and _rbd_pool(rbd) == _rbd_pool(erbd)
                    and rbd.get("image", "") == erbd.get("image", "")
                    and not (rbd.get("readOnly", False) and erbd.get("readOnly", False))):
                return True
    return False


def satisfy_volume_conflicts(check_volumes: list[dict], existing_pods: Any) -> bool:
    """``satisfyVolumeConflicts``: no restricted volume of the pod conflicts with a pod of the
    node. ``check_volumes`` are the pod's volumes that need the check, ``existing_pods`` the
    node's pods (``Pod`` objects)."""
    for vol in check_volumes:
        for ep in existing_pods:
            if is_volume_conflict(vol, ep):
                return False
    return True


class _PreFilterState:
    """``preFilterState``: the pod's ReadWriteOncePod claims, how many of them are in use, and
    (here) the pod's volumes that need the inline-disk conflict check."""

    __slots__ = ("read_write_once_pod_pvcs", "conflicting_pvc_ref_count", "check_volumes")

    def __init__(self, read_write_once_pod_pvcs: frozenset[str], conflicting_pvc_ref_count: int,
                 check_volumes: list[dict]) -> None:
        self.read_write_once_pod_pvcs = read_write_once_pod_pvcs
        self.conflicting_pvc_ref_count = conflicting_pvc_ref_count
        self.check_volumes = check_volumes

    def conflicting_pvc_ref_count_for_pod(self, pod: Pod) -> int:
        """``conflictingPVCRefCountForPod``."""
        if not self.read_write_once_pod_pvcs:
            return 0
        return sum(1 for claim in pvc_claim_names(pod) if claim in self.read_write_once_pod_pvcs)

    def update_with_pod(self, pod: Pod, multiplier: int) -> None:
        """``updateWithPod``."""
        self.conflicting_pvc_ref_count += multiplier * self.conflicting_pvc_ref_count_for_pod(pod)

    def clone(self) -> _PreFilterState:
        return _PreFilterState(self.read_write_once_pod_pvcs, self.conflicting_pvc_ref_count,
                               self.check_volumes)


def _get_pre_filter_state(state: CycleState) -> tuple[_PreFilterState | None, str | None]:
    """``getPreFilterState``: the state or upstream's error message."""
    s = state.get(PRE_FILTER_STATE_KEY)
    if s is None:
        return None, f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState'
    return s, None


def is_pvc_used_by_pods(snapshot: Any, key: str) -> bool:
    """``Snapshot.IsPVCUsedByPods`` (pkg/scheduler/backend/cache/snapshot.go): a pod bound or
    assumed on a node of the snapshot uses the claim ``namespace/name`` (``usedPVCRefCounts``,
    the sum of the NodeInfos' ``PVCRefCounts``)."""
    return any(ni.pvc_ref_counts.get(key, 0) > 0 for ni in snapshot.node_info_map.values())


class VolumeRestrictions(PreFilterPlugin, FilterPlugin, EnqueueExtensions, SignPlugin):
    """``VolumeRestrictions`` (volume_restrictions.go)."""

    name = names.VolumeRestrictions

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: feasibility depends on the non-synthetic volume sources."""
        return [(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    def _storage(self) -> StorageObjects:
        """The PVC lister of the informer factory (nothing without a handle)."""
        return storage_of(self.handle)

    def _read_write_once_pod_pvcs_for_pod(self, pod: Pod
                                          ) -> tuple[frozenset[str] | None, str | None]:
        """``readWriteOncePodPVCsForPod``: the names of the pod's claims with the
        ReadWriteOncePod access mode; the lister's NotFound message for a missing claim."""
        storage = self._storage()
        pvcs: set[str] = set()
        for claim in pvc_claim_names(pod):
            pvc, err = get_pvc(storage, pod.namespace, claim)
            if pvc is None:
                return None, err
            if READ_WRITE_ONCE_POD in pvc.access_modes:
                pvcs.add(pvc.name)
        return frozenset(pvcs), None

    def _cal_pre_filter_state(self, pod: Pod, pvcs: frozenset[str],
                              check_volumes: list[dict]) -> _PreFilterState:
        """``calPreFilterState``: how many of the pod's ReadWriteOncePod claims a pod of the
        snapshot already uses (``IsPVCUsedByPods``)."""
        count = 0
        if pvcs:
            assert self.handle is not None, "ReadWriteOncePod claims come from the handle"
            snapshot = self.handle.snapshot()
            count = sum(1 for claim in pvcs
                        if is_pvc_used_by_pods(snapshot, f"{pod.namespace}/{claim}"))
        return _PreFilterState(pvcs, count, check_volumes)

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: a missing claim is UnschedulableAndUnresolvable (the lister's
        NotFound); Skip unless the pod has a restricted inline volume or a ReadWriteOncePod
        claim another pod uses."""
        check_volumes = [v for v in pod_volumes(pod) if needs_restrictions_check(v)]
        pvcs, err = self._read_write_once_pod_pvcs_for_pod(pod)
        if pvcs is None:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err or "")
        s = self._cal_pre_filter_state(pod, pvcs, check_volumes)
        if not check_volumes and s.conflicting_pvc_ref_count == 0:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> VolumeRestrictions:
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        """``AddPod``."""
        s, err = _get_pre_filter_state(state)
        if s is None:
            return Status.as_error(err or "")
        s.update_with_pod(pod_info_to_add.pod, 1)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        """``RemovePod``."""
        s, err = _get_pre_filter_state(state)
        if s is None:
            return Status.as_error(err or "")
        s.update_with_pod(pod_info_to_remove.pod, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: inline-disk conflicts first, then the ReadWriteOncePod count."""
        s: _PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        check_volumes = (s.check_volumes if s is not None
                         else [v for v in pod_volumes(pod) if needs_restrictions_check(v)])
        if check_volumes:
            existing = [pi.pod for pi in node_info.pods if pi.pod.volumes]
            if existing and not satisfy_volume_conflicts(check_volumes, existing):
                return Status(Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT)
        if s is None:
            return Status.as_error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        if s.conflicting_pvc_ref_count > 0:  # satisfyReadWriteOncePod
            return Status(Code.UNSCHEDULABLE, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)
        return None

    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, queueing hint method or None)."""
        return [
            ("AssignedPod", ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
            ("Node", ("Add",), None),
            ("PersistentVolumeClaim", ("Add",),
             "is_schedulable_after_persistent_volume_claim_added"),
        ]

    def is_schedulable_after_persistent_volume_claim_added(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> tuple[str, str | None]:
        """``isSchedulableAfterPersistentVolumeClaimAdded``: the new PVC is one the pod
        references."""
        err = as_type(old_obj, new_obj, PersistentVolumeClaim, "*v1.PersistentVolumeClaim")
        if err is not None:
            return QUEUE, ("unexpected objects in isSchedulableAfterPersistentVolumeClaimChange: "
                           f"{err}")
        if new_obj.namespace != pod.namespace:
            return QUEUE_SKIP, None
        if new_obj.name in pvc_claim_names(pod):
            return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_assigned_pod_deleted(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> tuple[str, str | None]:
        """``isSchedulableAfterAssignedPodDeleted``: the deleted pod had a conflicting inline
        disk, or shares a PVC with the pod."""
        err = as_type(old_obj, new_obj, Pod, "*v1.Pod")
        if err is not None:
            return QUEUE, f"unexpected objects in isSchedulableAfterAssignedPodDeleted: {err}"
        deleted = old_obj
        if deleted.namespace != pod.namespace:
            return QUEUE_SKIP, None
        check = [v for v in pod_volumes(pod) if needs_restrictions_check(v)]
        if not satisfy_volume_conflicts(check, [deleted]):
            return QUEUE, None
        claims = set(pvc_claim_names(pod))
        if any(c in claims for c in pvc_claim_names(deleted)):
            return QUEUE, None
        return QUEUE_SKIP, None
