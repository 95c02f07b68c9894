"""VolumeBinding: binds a pod's PVCs to PVs, or provisions them, on the chosen node.

Upstream: ``pkg/scheduler/framework/plugins/volumebinding/volume_binding.go``; the binder in
``binder.py``, the assume caches in ``assume_cache.py``, the scorer in ``scorer.py``. What is
refused: docs/reference.md#volumebinding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from reference_impl.config.args import VolumeBindingArgs
from reference_impl.framework.interfaces import (
    MAX_NODE_SCORE,
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
from reference_impl.model.storage import PVC_LOST
from reference_impl.plugins import names
from reference_impl.plugins.helper.shape_score import FunctionShapePoint
from reference_impl.plugins.noderesources.fit import is_pod_resize_deferred
from reference_impl.plugins.noderesources.requested_to_capacity_ratio import (
    MAX_CUSTOM_PRIORITY_SCORE,
)
from reference_impl.plugins.volumebinding.assume_cache import BinderError
from reference_impl.plugins.volumebinding.binder import (
    PodVolumeClaims,
    PodVolumes,
    StorageResource,
    VolumeBinder,
    volume_claim_name,
    volume_is_for_pod,
)
from reference_impl.plugins.volumebinding.hints import VolumeBindingHints
from reference_impl.plugins.volumebinding.scorer import VolumeCapacityScorer, build_scorer_function
from reference_impl.plugins.volumerestrictions import (
    VOLUMES_SIGNER_NAME,
    not_supported,
    pod_volumes,
    volumes_signer,
)

if TYPE_CHECKING:
    import numpy.typing as npt

    from reference_impl.framework.columns import I64, NodeColumns
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.types import NodeInfo

STATE_KEY = names.VolumeBinding
ERR_NOT_FOUND = "not found"  # fwk.ErrNotFound, returned by CycleState.Read
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"


class _StateData:
    """``stateData``. ``pod_volumes_by_node`` is nil (None) for pods without PVCs, as upstream's
    ``&stateData{}``. Clone returns the same object (upstream shares the pointer)."""

    __slots__ = ("all_bound", "pod_volumes_by_node", "pod_volume_claims", "has_static_bindings")

    def __init__(self, pod_volumes_by_node: dict[str, PodVolumes] | None = None,
                 pod_volume_claims: PodVolumeClaims | None = None) -> None:
        self.all_bound = False
        self.pod_volumes_by_node = pod_volumes_by_node
        self.pod_volume_claims = pod_volume_claims
        self.has_static_bindings = False

    def clone(self) -> _StateData:
        return self


class VolumeBinding(VolumeBindingHints, PreFilterPlugin, FilterPlugin, ReservePlugin,
                    PreBindPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions, SignPlugin):
    """``VolumeBinding`` (volume_binding.go)."""

    name = names.VolumeBinding

    def __init__(self, args: VolumeBindingArgs | None = None, handle: Any = None) -> None:
        super().__init__(args if args is not None else VolumeBindingArgs(), handle)
        self.binder = VolumeBinder(handle)
        self.enable_storage_capacity_scoring = bool(
            handle is not None and handle.feature_enabled("StorageCapacityScoring"))
        self.resize_preemption = bool(handle is not None and handle.feature_enabled(
            "InPlacePodVerticalScalingSchedulerPreemption"))
        # New: the scorer exists only with StorageCapacityScoring (on in v1.37.2), its shape's
        # scores scaled by MaxNodeScore / MaxCustomPriorityScore.
        self.scorer: VolumeCapacityScorer | None = None
        if self.enable_storage_capacity_scoring:
            scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
            self.scorer = build_scorer_function([
                FunctionShapePoint(p.utilization, p.score * scale) for p in self.args.shape])

    @property
    def has_scorer(self) -> bool:
        return self.scorer is not None

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: the non-synthetic volume sources."""
        return [(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    def pod_has_pvcs(self, pod: Pod) -> tuple[bool, str | None]:
        """``podHasPVCs``: whether the pod has claims, and the first claim (in volume order)
        that is missing, lost, being deleted or, for an ephemeral volume, not the pod's."""
        has_pvc = False
        claims = self.binder.storage.claims
        for vol in pod_volumes(pod):
            claim = volume_claim_name(pod, vol)
            if claim is None:
                continue
            name, is_ephemeral = claim
            has_pvc = True
            pvc = claims.get(f"{pod.namespace}/{name}")
            if pvc is None:
                if is_ephemeral:
                    return True, ("waiting for ephemeral volume controller to create the "
                                  f'persistentvolumeclaim "{name}"')
                return True, f'persistentvolumeclaim "{name}" not found'
            if pvc.phase == PVC_LOST:
                return True, (f'persistentvolumeclaim "{pvc.name}" bound to non-existent '
                              f'persistentvolume "{pvc.volume_name}"')
            if pvc.deleting:
                return True, f'persistentvolumeclaim "{pvc.name}" is being deleted'
            if is_ephemeral and (err := volume_is_for_pod(pod, pvc)) is not None:
                return True, err
        return has_pvc, None

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: Skip without claims; UnschedulableAndUnresolvable for a claim
        ``podHasPVCs`` rejects or an unbound immediate claim; else the claims sorted out."""
        if self.resize_preemption and is_pod_resize_deferred(pod):
            return None, Status(Code.SKIP)
        has_pvc, err = self.pod_has_pvcs(pod)
        if err is not None:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err)
        if not has_pvc:
            state.write(STATE_KEY, _StateData())
            return None, Status(Code.SKIP)
        try:
            claims = self.binder.get_pod_volume_claims(pod)
        except BinderError as e:
            return None, Status.as_error(str(e))
        if claims.unbound_claims_immediate:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_UNBOUND_IMMEDIATE)
        state.write(STATE_KEY, _StateData({}, PodVolumeClaims(
            bound_claims=claims.bound_claims,
            unbound_claims_delay_binding=claims.unbound_claims_delay_binding,
            unbound_volumes_delay_binding=claims.unbound_volumes_delay_binding)))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: ``FindPodVolumes`` on the node; its reasons as
        UnschedulableAndUnresolvable, else the node's pod volumes kept for later points."""
        if self.resize_preemption and is_pod_resize_deferred(pod):
            return None
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        node = node_info.node
        try:
            pod_volumes_, reasons = self.binder.find_pod_volumes(
                pod, s.pod_volume_claims or PodVolumeClaims(), node)
        except BinderError as e:
            return Status.as_error(str(e))
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)
        if s.pod_volumes_by_node is None:  # upstream writes to a nil map: a panic
            return not_supported(self.name, "Filter after a PreFilter Skip")
        s.pod_volumes_by_node[node.name] = pod_volumes_
        s.has_static_bindings = s.has_static_bindings or bool(pod_volumes_.static_bindings)
        return None

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """``PreScore``: Skip without a scorer; with one, Success when capacity scoring is on or
        the pod has static bindings."""
        if self.scorer is None:
            return Status(Code.SKIP)
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if s.has_static_bindings or self.enable_storage_capacity_scoring:
            return None
        return Status(Code.SKIP)

    def score_batch(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                    cols: NodeColumns, rows: npt.NDArray[np.intp]) -> I64 | None:
        """``score`` over nodes (reference_impl/framework/vectorised.py): 0 everywhere without
        a scorer or without pod volumes on any node; None otherwise (per node)."""
        if self.scorer is None:
            return np.zeros(len(nodes), dtype=np.int64)
        s: _StateData | None = state.get(STATE_KEY)
        if s is None or s.pod_volumes_by_node:
            return None
        return np.zeros(len(nodes), dtype=np.int64)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """``Score``: 0 for a node without pod volumes; the static bindings' classes (PV
        class: requested and capacity summed), else the provisions' classes that have a
        CSIStorageCapacity (requests summed, the last capacity), scored by the scorer."""
        if self.scorer is None:
            return 0
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            raise PluginError(ERR_NOT_FOUND)
        pv = (s.pod_volumes_by_node or {}).get(node_info.node.name)
        if pv is None:
            return 0
        resources: dict[str, StorageResource] = {}
        if pv.static_bindings or not self.enable_storage_capacity_scoring:
            for binding in pv.static_bindings or []:
                r = resources.setdefault(binding.storage_class_name(), StorageResource(0, 0))
                got = binding.storage_resource()
                r.requested += got.requested
                r.capacity += got.capacity
        else:
            for provision in pv.dynamic_provisions or []:
                cap = provision.node_capacity
                if cap is None:
                    continue
                if provision.pvc.storage_class_name is None or cap.capacity is None:
                    # upstream dereferences a nil pointer here (a panic)
                    raise PluginError(f"{self.name}: not supported yet: scoring claim "
                                      f"{provision.pvc.key!r} without spec.storageClassName "
                                      "or a capacity without .capacity")
                r = resources.setdefault(provision.pvc.storage_class_name,
                                         StorageResource(0, 0))
                r.capacity = cap.capacity
                r.requested += provision.pvc.request
        return self.scorer(resources)

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``Reserve``: ``AssumePodVolumes`` for the node's pod volumes; none means all
        bound."""
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        pv = (s.pod_volumes_by_node or {}).get(node_name)
        if pv is None:
            s.all_bound = True
            return None
        try:
            s.all_bound = self.binder.assume_pod_volumes(pod, node_name, pv)
        except BinderError as e:
            return Status.as_error(str(e))
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """``Unreserve``: ``RevertAssumedPodVolumes`` for the node's pod volumes."""
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return
        pv = (s.pod_volumes_by_node or {}).get(node_name)
        if pv is not None:
            self.binder.revert_assumed_pod_volumes(pv)

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
        """``PreBind``: ``BindPodVolumes`` unless all volumes are bound."""
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if s.all_bound:
            return None
        pv = (s.pod_volumes_by_node or {}).get(node_name)
        if pv is None:
            return Status.as_error(f'no pod volume found for node "{node_name}"')
        try:
            self.binder.bind_pod_volumes(pod, node_name, pv)
        except BinderError as e:
            return Status.as_error(str(e))
        return None
