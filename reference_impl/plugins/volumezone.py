"""VolumeZone: the zone/region labels of a pod's bound PersistentVolumes must match the node's.

Upstream: ``pkg/scheduler/framework/plugins/volumezone/volume_zone.go``.

Only ``persistentVolumeClaim`` volumes matter upstream (generic ephemeral and inline volumes are
ignored). PVCs, PVs and StorageClasses are not modelled: a pod without PVC volumes gets
upstream's Skip at PreFilter and Success from Filter; a pod with one gets an Error status
``VolumeZone: not supported yet: ...`` (upstream looks the claim, its PV or StorageClass up).
The node-label matching of Filter is implemented as upstream over the PV topologies held in the
PreFilter state (which the model never fills).
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
from reference_impl.model.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Pod,
)
from reference_impl.plugins import names
from reference_impl.plugins.volumerestrictions import (
    QUEUE,
    QUEUE_SKIP,
    VOLUMES_SIGNER_NAME,
    as_pvc,
    not_supported,
    pod_volumes,
    pvc_claim_names,
    volumes_signer,
)

if TYPE_CHECKING:
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.types import NodeInfo

PRE_FILTER_STATE_KEY = "PreFilter" + names.VolumeZone
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

# topologyLabels, in upstream's order.
TOPOLOGY_LABELS = (
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_TOPOLOGY_ZONE,
    LABEL_TOPOLOGY_REGION,
)


def translate_to_ga_label(label: str) -> str:
    """``translateToGALabel``: beta zone/region label to its GA name."""
    if label == LABEL_FAILURE_DOMAIN_BETA_REGION:
        return LABEL_TOPOLOGY_REGION
    if label == LABEL_FAILURE_DOMAIN_BETA_ZONE:
        return LABEL_TOPOLOGY_ZONE
    return label


class PVTopology:
    """``pvTopology``: a PV's topology label key and its set of values."""

    __slots__ = ("pv_name", "key", "values")

    def __init__(self, pv_name: str, key: str, values: frozenset[str]) -> None:
        self.pv_name = pv_name
        self.key = key
        self.values = values


class _StateData:
    """``stateData``; Clone shares the pointer."""

    __slots__ = ("pod_pv_topologies",)

    def __init__(self, pod_pv_topologies: list[PVTopology]) -> None:
        self.pod_pv_topologies = pod_pv_topologies

    def clone(self) -> _StateData:
        return self


class VolumeZone(FilterPlugin, PreFilterPlugin, EnqueueExtensions, SignPlugin):
    """``VolumeZone`` (volume_zone.go)."""

    name = names.VolumeZone

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: the non-synthetic volume sources."""
        return [(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    def _get_pv_by_pod(self, pod: Pod) -> tuple[list[PVTopology] | None, Status | None]:
        """``getPVbyPod``: the topologies of the PVs bound to the pod's claims. An empty claim
        name is UnschedulableAndUnresolvable; any other claim needs the PVC lister."""
        topologies: list[PVTopology] = []
        for claim in pvc_claim_names(pod):
            if claim == "":
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                    "PersistentVolumeClaim had no name")
            return None, not_supported(
                self.name, f"PersistentVolumeClaim {claim!r} (PVCs, PVs and StorageClasses are "
                           "not modelled)")
        return topologies, None

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: Skip when the pod has no bound PV with topology labels."""
        topologies, status = self._get_pv_by_pod(pod)
        if status is not None:
            return None, status
        if not topologies:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _StateData(topologies))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: every PV topology label must be on the node with one of its values (the
        GA label is tried for a beta one); a node without any topology label fits."""
        if not pod_volumes(pod):
            return None
        s: _StateData | None = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            topologies, status = self._get_pv_by_pod(pod)
            if status is not None:
                return status
            assert topologies is not None
        else:
            topologies = s.pod_pv_topologies
        labels = node_info.node.labels
        if not any(key in labels for key in TOPOLOGY_LABELS):
            return None
        for t in topologies:
            v = labels.get(t.key)
            if v is None:
                v = labels.get(translate_to_ga_label(t.key))
            if v is None or v not in t.values:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        return None

    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, queueing hint method or None)."""
        return [
            ("storage.k8s.io/StorageClass", ("Add",), "is_schedulable_after_storage_class_added"),
            ("Node", ("Add", "UpdateNodeLabel"), None),
            ("PersistentVolumeClaim", ("Add", "Update"),
             "is_schedulable_after_persistent_volume_claim_change"),
            ("PersistentVolume", ("Add", "Update"),
             "is_schedulable_after_persistent_volume_change"),
        ]

    def is_schedulable_after_persistent_volume_claim_change(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> tuple[str, str | None]:
        """``isSchedulableAfterPersistentVolumeClaimChange`` / ``isPVCRequestedFromPod``: the
        PVC (any object with ``namespace`` and ``name``; PVCs are not modelled) is one the pod
        references."""
        err = as_pvc(old_obj, new_obj)
        if err is not None:
            return QUEUE, ("unexpected objects in isSchedulableAfterPersistentVolumeClaimChange: "
                           f"{err}")
        if new_obj is None or new_obj.namespace != pod.namespace:
            return QUEUE_SKIP, None
        if new_obj.name in pvc_claim_names(pod):
            return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_storage_class_added(self, pod: Pod, old_obj: Any, new_obj: Any
                                                 ) -> tuple[str, str | None]:
        return QUEUE, "VolumeZone: not supported yet: StorageClass events"

    def is_schedulable_after_persistent_volume_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                                      ) -> tuple[str, str | None]:
        return QUEUE, "VolumeZone: not supported yet: PersistentVolume events"
