"""VolumeZone: the zone/region labels of a pod's bound PersistentVolumes must match the node's.

Upstream: ``pkg/scheduler/framework/plugins/volumezone/volume_zone.go``.

Only ``persistentVolumeClaim`` volumes matter (generic ephemeral and inline volumes are
ignored). Claims, volumes and classes come from ``handle.storage_objects()`` (the listers):
a bound claim's PV contributes its zone/region labels (beta and GA), an unbound claim of a
WaitForFirstConsumer class is skipped, and a missing claim, volume or class is
UnschedulableAndUnresolvable with the lister's NotFound message. docs/reference.md#volumezone.
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
from reference_impl.model.storage import (
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
)
from reference_impl.plugins import names
from reference_impl.plugins.helper.storage_listers import (
    get_pv,
    get_pvc,
    get_storage_class,
    persistent_volume_claim_class,
    storage_of,
)
from reference_impl.plugins.volumerestrictions import (
    QUEUE,
    QUEUE_SKIP,
    VOLUMES_SIGNER_NAME,
    as_type,
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

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PVTopology) and self.pv_name == other.pv_name
                and self.key == other.key and self.values == other.values)

    def __hash__(self) -> int:
        return hash((self.pv_name, self.key, self.values))

    def __repr__(self) -> str:
        return f"PVTopology({self.pv_name!r}, {self.key!r}, {sorted(self.values)!r})"


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """``volumehelpers.LabelZonesToSet`` (k8s.io/cloud-provider volume/helpers/zones.go): the
    ``__``-separated zones, each trimmed; None (upstream's error) when one is empty."""
    zones = set()
    for zone in value.split("__"):
        trimmed = zone.strip()
        if trimmed == "":
            return None
        zones.add(trimmed)
    return frozenset(zones)


def get_pv_topologies(pv: PersistentVolume) -> list[PVTopology]:
    """``getPVTopologies``: one topology per topology label of the PV, in ``topologyLabels``
    order; a label whose value does not parse is ignored."""
    out = []
    for key in TOPOLOGY_LABELS:
        value = pv.labels.get(key)
        if value is None:
            continue
        zones = label_zones_to_set(value)
        if zones is None:
            continue
        out.append(PVTopology(pv.name, key, zones))
    return out


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

    def _storage(self) -> StorageObjects:
        """The PVC, PV and StorageClass listers (nothing without a handle)."""
        return storage_of(self.handle)

    def _get_pv_by_pod(self, pod: Pod) -> tuple[list[PVTopology] | None, Status | None]:
        """``getPVbyPod``: the topologies of the PVs bound to the pod's claims, in volume order.

        - an empty claim name: UnschedulableAndUnresolvable "PersistentVolumeClaim had no name";
        - a missing claim, PV or StorageClass: UnschedulableAndUnresolvable with the lister's
          NotFound message;
        - an unbound claim without class: "PersistentVolumeClaim had no pv name and
          storageClass name"; of a WaitForFirstConsumer class: skipped; of another class:
          "PersistentVolume had no name".
        """
        storage = self._storage()
        topologies: list[PVTopology] = []
        for claim in pvc_claim_names(pod):
            if claim == "":
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                    "PersistentVolumeClaim had no name")
            pvc, err = get_pvc(storage, pod.namespace, claim)
            if pvc is None:
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err or "")
            pv_name = pvc.volume_name
            if pv_name == "":
                sc_name = persistent_volume_claim_class(pvc)
                if sc_name == "":
                    return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                        "PersistentVolumeClaim had no pv name and storageClass "
                                        "name")
                sc, err = get_storage_class(storage, sc_name)
                if sc is None:
                    return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err or "")
                # The API defaults volumeBindingMode to Immediate, so upstream's
                # "VolumeBindingMode not set for StorageClass" cannot occur.
                if sc.volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER:
                    continue
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                    "PersistentVolume had no name")
            pv, err = get_pv(storage, pv_name)
            if pv is None:
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err or "")
            topologies.extend(get_pv_topologies(pv))
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
        added or updated PVC is one the pod references."""
        err = as_type(old_obj, new_obj, PersistentVolumeClaim, "*v1.PersistentVolumeClaim")
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
        """``isSchedulableAfterStorageClassAdded``: Queue for a WaitForFirstConsumer class."""
        err = as_type(None, new_obj, StorageClass, "*v1.StorageClass")
        if err is not None:
            return QUEUE, f"unexpected objects in isSchedulableAfterStorageClassAdded: {err}"
        if new_obj.volume_binding_mode != BINDING_WAIT_FOR_FIRST_CONSUMER:
            return QUEUE_SKIP, None
        return QUEUE, None

    def is_schedulable_after_persistent_volume_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                                      ) -> tuple[str, str | None]:
        """``isSchedulableAfterPersistentVolumeChange``: Queue for a new PV, or an updated one
        whose topologies changed."""
        err = as_type(old_obj, new_obj, PersistentVolume, "*v1.PersistentVolume")
        if err is not None:
            return QUEUE, f"unexpected objects in isSchedulableAfterPersistentVolumeChange: {err}"
        if old_obj is None:
            return QUEUE, None
        if get_pv_topologies(old_obj) != get_pv_topologies(new_obj):
            return QUEUE, None
        return QUEUE_SKIP, None
