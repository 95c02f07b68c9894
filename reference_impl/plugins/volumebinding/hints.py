"""VolumeBinding's EventsToRegister and queueing hints.

Upstream: ``pkg/scheduler/framework/plugins/volumebinding/volume_binding.go``
(``EventsToRegister``, ``isSchedulableAfter*Change``). A hint returns (QueueingHint, error).
"""

from __future__ import annotations

from typing import Any

from reference_impl.model.objects import Pod
from reference_impl.model.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolumeClaim,
    StorageClass,
)
from reference_impl.plugins.volumebinding.binder import volume_claim_name, volume_limit
from reference_impl.plugins.volumebinding.migration import MIGRATED_PLUGINS_ANNOTATION
from reference_impl.plugins.volumerestrictions import QUEUE, QUEUE_SKIP, as_type, pod_volumes

Hint = tuple[str, str | None]


class VolumeBindingHints:
    """The events and hints, mixed into the plugin."""

    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, queueing hint method or None)."""
        return [
            ("storage.k8s.io/StorageClass", ("Add", "Update"),
             "is_schedulable_after_storage_class_change"),
            ("PersistentVolumeClaim", ("Add", "Update"),
             "is_schedulable_after_persistent_volume_claim_change"),
            ("PersistentVolume", ("Add", "Update"), None),
            ("Node", ("Add", "UpdateNodeLabel"), None),
            ("storage.k8s.io/CSINode", ("Add", "Update"), "is_schedulable_after_csi_node_change"),
            ("storage.k8s.io/CSIDriver", ("Update",), "is_schedulable_after_csi_driver_change"),
            ("storage.k8s.io/CSIStorageCapacity", ("Add", "Update"),
             "is_schedulable_after_csi_storage_capacity_change"),
        ]

    def is_schedulable_after_csi_node_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                             ) -> Hint:
        """``isSchedulableAfterCSINodeChange``: a new CSINode, or a change of its
        migrated-plugins annotation."""
        if old_obj is None:
            return QUEUE, None
        if (err := as_type(old_obj, new_obj, CSINode, "*v1.CSINode")) is not None:
            return QUEUE, err
        old = dict(old_obj.annotations).get(MIGRATED_PLUGINS_ANNOTATION, "")
        new = dict(new_obj.annotations).get(MIGRATED_PLUGINS_ANNOTATION, "")
        return (QUEUE if old != new else QUEUE_SKIP), None

    def is_schedulable_after_persistent_volume_claim_change(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> Hint:
        """``isSchedulableAfterPersistentVolumeClaimChange``: the claim is one of the pod's,
        direct or ephemeral."""
        err = as_type(old_obj, new_obj, PersistentVolumeClaim, "*v1.PersistentVolumeClaim")
        if err is not None:
            return QUEUE, err
        if pod.namespace != new_obj.namespace:
            return QUEUE_SKIP, None
        for vol in pod_volumes(pod):
            claim = volume_claim_name(pod, vol)
            if claim is not None and claim[0] == new_obj.name:
                return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_storage_class_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                                  ) -> Hint:
        """``isSchedulableAfterStorageClassChange``: a new class, or a change of its
        allowedTopologies."""
        if (err := as_type(old_obj, new_obj, StorageClass, "*v1.StorageClass")) is not None:
            return QUEUE, err
        if old_obj is None:
            return QUEUE, None
        if new_obj.allowed_topologies != old_obj.allowed_topologies:
            return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_csi_storage_capacity_change(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> Hint:
        """``isSchedulableAfterCSIStorageCapacityChange``: a new capacity, or a volume limit
        that appeared or grew."""
        err = as_type(old_obj, new_obj, CSIStorageCapacity, "*v1.CSIStorageCapacity")
        if err is not None:
            return QUEUE, err
        if old_obj is None:
            return QUEUE, None
        old_limit, new_limit = volume_limit(old_obj), volume_limit(new_obj)
        if new_limit is not None and (old_limit is None or new_limit > old_limit):
            return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_csi_driver_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                               ) -> Hint:
        """``isSchedulableAfterCSIDriverChange``: the driver of one of the pod's inline CSI
        volumes stopped reporting storage capacity."""
        if (err := as_type(old_obj, new_obj, CSIDriver, "*v1.CSIDriver")) is not None:
            return QUEUE, err
        for vol in pod_volumes(pod):
            csi = vol.get("csi")
            if not isinstance(csi, dict) or csi.get("driver") != new_obj.name:
                continue
            if old_obj.storage_capacity and not new_obj.storage_capacity:
                return QUEUE, None
        return QUEUE_SKIP, None
