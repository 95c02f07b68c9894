"""VolumeBinding: binds a pod's PVCs to PVs (or provisions them) on the chosen node.

Upstream: ``pkg/scheduler/framework/plugins/volumebinding/volume_binding.go``. PVCs, PVs,
StorageClasses, CSINodes and CSIStorageCapacities are not modelled: pods without PVC-backed
volumes follow upstream exactly, the others get an Error status at PreFilter.
See docs/reference.md#volumebinding."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl.config.args import VolumeBindingArgs
from reference_impl.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    PreBindPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, PluginError, PreFilterResult, Status
from reference_impl.model.objects import Pod
from reference_impl.plugins import names
from reference_impl.plugins.volumerestrictions import (
    QUEUE,
    QUEUE_SKIP,
    VOLUMES_SIGNER_NAME,
    as_pvc,
    ephemeral_claim_names,
    not_supported,
    pvc_claim_names,
    volumes_signer,
)

if TYPE_CHECKING:
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.types import NodeInfo

STATE_KEY = names.VolumeBinding
ERR_NOT_FOUND = "not found"  # fwk.ErrNotFound, returned by CycleState.Read


class _StateData:
    """``stateData``. ``pod_volumes_by_node`` is nil (None) for pods without PVCs, as upstream's
    ``&stateData{}``. Clone returns the same object (upstream shares the pointer)."""

    __slots__ = ("all_bound", "pod_volumes_by_node", "pod_volume_claims", "has_static_bindings")

    def __init__(self) -> None:
        self.all_bound = False
        self.pod_volumes_by_node: dict[str, Any] | None = None
        self.pod_volume_claims: Any = None
        self.has_static_bindings = False

    def clone(self) -> _StateData:
        return self


def _pvc_volume(pod: Pod) -> str | None:
    """``podHasPVCs`` without the lister: the first claim the pod needs, described, or None."""
    claims = pvc_claim_names(pod)
    if claims:
        return f"PersistentVolumeClaim {claims[0]!r}"
    eph = ephemeral_claim_names(pod)
    if eph:
        return f"generic ephemeral volume claim {eph[0]!r}"
    return None


class VolumeBinding(PreFilterPlugin, FilterPlugin, ReservePlugin, PreBindPlugin, PreScorePlugin,
                    ScorePlugin, EnqueueExtensions, SignPlugin):
    """``VolumeBinding`` (volume_binding.go)."""

    name = names.VolumeBinding

    def __init__(self, args: VolumeBindingArgs | None = None, handle: Any = None) -> None:
        super().__init__(args if args is not None else VolumeBindingArgs(), handle)
        # New: the capacity scorer exists only with StorageCapacityScoring (on in v1.37.2).
        self.enable_storage_capacity_scoring = bool(
            handle is not None and handle.feature_enabled("StorageCapacityScoring"))
        self.has_scorer = self.enable_storage_capacity_scoring

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: the non-synthetic volume sources."""
        return [(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: a pod that references no PVC gets an empty state and Skip."""
        what = _pvc_volume(pod)
        if what is not None:
            return None, not_supported(
                self.name, f"{what} (PVCs, PVs and StorageClasses are not modelled)")
        state.write(STATE_KEY, _StateData())
        return None, Status(Code.SKIP)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: only reached for pods with PVCs (PreFilter Skip otherwise)."""
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        what = _pvc_volume(pod)
        if what is None:
            return None
        return not_supported(self.name, what)

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """``PreScore``: Skip without a scorer; with one, Success when capacity scoring is on or
        the pod has static bindings."""
        if not self.has_scorer:
            return Status(Code.SKIP)
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if s.has_static_bindings or self.enable_storage_capacity_scoring:
            return None
        return Status(Code.SKIP)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """``Score``: 0 for a node without pod volumes (always so without PVCs)."""
        if not self.has_scorer:
            return 0
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            raise PluginError(ERR_NOT_FOUND)
        if s.pod_volumes_by_node is None or node_info.node.name not in s.pod_volumes_by_node:
            return 0
        raise PluginError(f"{self.name}: not supported yet: scoring bound/provisioned volumes")

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``Reserve``: no pod volumes for the node means everything is bound."""
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if s.pod_volumes_by_node is not None and node_name in s.pod_volumes_by_node:
            return not_supported(self.name, "assuming pod volumes")
        s.all_bound = True
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """``Unreserve``: nothing to revert without pod volumes for the node."""
        return None

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``PreBindPreFlight``: Skip when all volumes are bound."""
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if s.all_bound:
            return Status(Code.SKIP)
        if s.pod_volumes_by_node is None or node_name not in s.pod_volumes_by_node:
            return Status.as_error(f'no pod volume found for node "{node_name}"')
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``PreBind``: nothing to do when all volumes are bound."""
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if s.all_bound:
            return None
        if s.pod_volumes_by_node is None or node_name not in s.pod_volumes_by_node:
            return Status.as_error(f'no pod volume found for node "{node_name}"')
        return not_supported(self.name, "binding pod volumes")

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

    def is_schedulable_after_persistent_volume_claim_change(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> tuple[str, str | None]:
        """``isSchedulableAfterPersistentVolumeClaimChange``: the PVC (any object with
        ``namespace`` and ``name``; PVCs are not modelled) is one of the pod's claims, direct or
        ephemeral."""
        err = as_pvc(old_obj, new_obj)
        if err is not None:
            return QUEUE, err
        if pod.namespace != new_obj.namespace:
            return QUEUE_SKIP, None
        if new_obj.name in pvc_claim_names(pod) or new_obj.name in ephemeral_claim_names(pod):
            return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_storage_class_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                                  ) -> tuple[str, str | None]:
        return QUEUE, "VolumeBinding: not supported yet: StorageClass events"

    def is_schedulable_after_csi_node_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                             ) -> tuple[str, str | None]:
        return QUEUE, "VolumeBinding: not supported yet: CSINode events"

    def is_schedulable_after_csi_driver_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                               ) -> tuple[str, str | None]:
        return QUEUE, "VolumeBinding: not supported yet: CSIDriver events"

    def is_schedulable_after_csi_storage_capacity_change(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> tuple[str, str | None]:
        return QUEUE, "VolumeBinding: not supported yet: CSIStorageCapacity events"
