"""NodeVolumeLimits (CSILimits): the per-driver attachable volume limit of CSINode objects.

Upstream: ``pkg/scheduler/framework/plugins/nodevolumelimits/csi.go``.

Counting a pod's attachable volumes needs PVCs, PVs, StorageClasses, CSINodes, CSIDrivers and
VolumeAttachments, none of which is modelled. So: pods without PVC, generic ephemeral or
CSI-migratable inline volumes get upstream's Skip at PreFilter (and Success from Filter); pods
with any of them get an Error status ``NodeVolumeLimits: not supported yet: ...`` at PreFilter
(upstream's PreFilter returns Success for them and Filter does the counting).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, PreFilterResult, Status
from reference_impl.model.objects import Pod
from reference_impl.plugins import names
from reference_impl.plugins.volumerestrictions import (
    QUEUE,
    QUEUE_SKIP,
    VOLUMES_SIGNER_NAME,
    _source,
    as_pvc,
    as_type,
    ephemeral_claim_names,
    is_inline_migratable,
    not_supported,
    pod_volumes,
    pvc_claim_names,
    volumes_signer,
)

if TYPE_CHECKING:
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.types import NodeInfo

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"


def _counted_volume(pod: Pod) -> str | None:
    """A description of the first volume CSILimits would have to count (a PVC, a generic
    ephemeral volume or a CSI-migratable inline volume), or None."""
    for vol in pod_volumes(pod):
        pvc = _source(vol, "persistentVolumeClaim")
        if pvc is not None:
            return f"PersistentVolumeClaim {pvc.get('claimName', '')!r}"
        if _source(vol, "ephemeral") is not None:
            return f"generic ephemeral volume {vol.get('name', '')!r}"
        if is_inline_migratable(vol):
            return f"CSI-migratable inline volume {vol.get('name', '')!r}"
    return None


class NodeVolumeLimits(PreFilterPlugin, FilterPlugin, EnqueueExtensions, SignPlugin):
    """``CSILimits`` (csi.go)."""

    name = names.NodeVolumeLimits

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: Skip unless the pod has a PVC, ephemeral or inline-migratable volume
        (then upstream returns Success and Filter counts; refused here)."""
        what = _counted_volume(pod)
        if what is None:
            return None, Status(Code.SKIP)
        return None, not_supported(
            self.name, f"{what} (volume limits need PVCs, PVs, StorageClasses and CSINodes)")

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: with no volume to count, ``newVolumes`` stays empty and the pod fits."""
        what = _counted_volume(pod)
        if what is None:
            return None
        return not_supported(self.name, what)

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: the non-synthetic volume sources."""
        return [(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, queueing hint method or None)."""
        return [
            ("storage.k8s.io/CSINode", ("Add",), None),
            ("storage.k8s.io/CSINode", ("Update",), "is_schedulable_after_csi_node_updated"),
            ("AssignedPod", ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
            ("PersistentVolumeClaim", ("Add",), "is_schedulable_after_pvc_added"),
            ("storage.k8s.io/VolumeAttachment", ("Delete",),
             "is_schedulable_after_volume_attachment_deleted"),
        ]

    def is_schedulable_after_assigned_pod_deleted(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> tuple[str, str | None]:
        """``isSchedulableAfterAssignedPodDeleted``: the deleted pod was placed (bound or
        nominated) and had a PVC, ephemeral or inline-migratable volume."""
        err = as_type(old_obj, new_obj, Pod, "*v1.Pod")
        if err is not None:
            return QUEUE, f"unexpected objects in isSchedulableAfterAssignedPodDeleted: {err}"
        deleted = old_obj
        vols = pod_volumes(deleted)
        if not vols:
            return QUEUE_SKIP, None
        if deleted.node_name == "" and deleted.nominated_node_name == "":
            return QUEUE_SKIP, None
        for vol in vols:
            if (_source(vol, "persistentVolumeClaim") is not None
                    or _source(vol, "ephemeral") is not None or is_inline_migratable(vol)):
                return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_pvc_added(self, pod: Pod, old_obj: Any, new_obj: Any
                                       ) -> tuple[str, str | None]:
        """``isSchedulableAfterPVCAdded``: the added PVC (any object with ``namespace`` and
        ``name``; PVCs are not modelled) is a claim of the pod, directly or as a generic
        ephemeral volume's claim."""
        err = as_pvc(old_obj, new_obj)
        if err is not None:
            return QUEUE, f"unexpected objects in isSchedulableAfterPVCAdded: {err}"
        if new_obj.namespace != pod.namespace:
            return QUEUE_SKIP, None
        if new_obj.name in pvc_claim_names(pod) or new_obj.name in ephemeral_claim_names(pod):
            return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_volume_attachment_deleted(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> tuple[str, str | None]:
        """``isSchedulableAfterVolumeAttachmentDeleted``: Queue for a pod with a PVC; an
        inline-migratable volume needs its CSI translation and the attacher (not modelled)."""
        for vol in pod_volumes(pod):
            if _source(vol, "persistentVolumeClaim") is not None:
                return QUEUE, None
            if is_inline_migratable(vol):
                return QUEUE, ("NodeVolumeLimits: not supported yet: VolumeAttachment events "
                               "for CSI-migratable inline volumes")
        return QUEUE_SKIP, None

    def is_schedulable_after_csi_node_updated(self, pod: Pod, old_obj: Any, new_obj: Any
                                              ) -> tuple[str, str | None]:
        """``isSchedulableAfterCSINodeUpdated``: CSINodes are not modelled."""
        return QUEUE, "NodeVolumeLimits: not supported yet: CSINode events"
