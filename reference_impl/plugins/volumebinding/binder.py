"""The volume binder of VolumeBinding: a pod's claims sorted out, matched to PVs or provisioning
on a node, assumed in the caches at Reserve and written to the API at PreBind.

Upstream: ``pkg/scheduler/framework/plugins/volumebinding/binder.go`` (``volumeBinder``).
Errors are raised as :class:`BinderError` (upstream's ``err``). In-tree PVs migrated on the
node are checked as their CSI translation (``migration.py``). The wait for the PV
controller is one check after the simulated controllers ran (docs/storage.md).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from reference_impl.api.labels import compile_selector
from reference_impl.model.objects import LabelSelector, Node, Pod
from reference_impl.model.storage import (
    ANN_BIND_COMPLETED,
    ANN_SELECTED_NODE,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
)
from reference_impl.plugins.volumebinding.assume_cache import (
    BinderError,
    NotFoundError,
    PVAssumeCache,
    PVCAssumeCache,
)
from reference_impl.plugins.volumebinding.migration import try_translate_pv_to_csi
from reference_impl.plugins.volumerestrictions import pod_volumes
from reference_impl.storage import pv_helpers as vh
from reference_impl.storage.pv_controller import KIND_PV, KIND_PVC, complete_pod_volumes

# ConflictReason values (binder.go).
ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = (
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)")


@dataclass(slots=True)
class StorageResource:
    """``StorageResource``: bytes requested and bytes of capacity."""

    requested: int
    capacity: int


@dataclass(slots=True)
class BindingInfo:
    """``BindingInfo``: a claim and the PV proposed for it."""

    pvc: PersistentVolumeClaim
    pv: PersistentVolume

    def storage_class_name(self) -> str:
        """``StorageClassName``: the PV's ``spec.storageClassName``."""
        return self.pv.storage_class_name

    def storage_resource(self) -> StorageResource:
        """``StorageResource``: the claim's request and the PV's capacity."""
        return StorageResource(self.pvc.request, self.pv.capacity)


@dataclass(slots=True)
class DynamicProvision:
    """``DynamicProvision``: a claim to provision and the CSIStorageCapacity that fits it."""

    pvc: PersistentVolumeClaim
    node_capacity: CSIStorageCapacity | None = None


@dataclass(slots=True)
class PodVolumes:
    """``PodVolumes``: None stands for a nil slice (FindPodVolumes normalizes empty to nil)."""

    static_bindings: list[BindingInfo] | None = None
    dynamic_provisions: list[DynamicProvision] | None = None


@dataclass(slots=True)
class PodVolumeClaims:
    """``PodVolumeClaims``."""

    bound_claims: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_delay_binding: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_immediate: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_volumes_delay_binding: dict[str, list[PersistentVolume]] = field(
        default_factory=dict)


def volume_claim_name(pod: Pod, vol: dict) -> tuple[str, bool] | None:
    """The claim of a pod volume and whether it is ephemeral (``ephemeral.VolumeClaimName``:
    ``<pod>-<volume>``), or None for a volume without a claim."""
    if isinstance(vol.get("persistentVolumeClaim"), dict):
        return str(vol["persistentVolumeClaim"].get("claimName", "")), False
    if isinstance(vol.get("ephemeral"), dict):
        return f"{pod.name}-{vol.get('name', '')}", True
    return None


def volume_is_for_pod(pod: Pod, pvc: PersistentVolumeClaim) -> str | None:
    """``ephemeral.VolumeIsForPod`` (component-helpers/storage/ephemeral): the error when the
    claim is not controlled by the pod."""
    if pvc.namespace != pod.namespace or not pvc.owner_pod_uid or pvc.owner_pod_uid != pod.uid:
        return (f"PVC {pvc.namespace}/{pvc.name} was not created for pod "
                f"{pod.namespace}/{pod.name} (pod is not owner)")
    return None


def is_pvc_fully_bound(pvc: PersistentVolumeClaim) -> bool:
    """``isPVCFullyBound``: a volume name and ``pv.kubernetes.io/bind-completed``."""
    return bool(pvc.volume_name) and ANN_BIND_COMPLETED in pvc.annotations


def _by_pvc_size(claims: list[PersistentVolumeClaim]) -> list[PersistentVolumeClaim]:
    """``sort.Sort(byPVCSize(...))``: increasing request. Go's sort is an insertion sort (stable)
    below 13 elements; Python's stable sort agrees with it there."""
    return sorted(claims, key=lambda c: c.request)


_NO_STORAGE = StorageObjects()


class VolumeBinder:
    """``volumeBinder``: reads the handle's storage objects through the two assume caches."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.pv_cache = PVAssumeCache(lambda: self.storage.volumes)
        self.pvc_cache = PVCAssumeCache(lambda: self.storage.claims)

    @property
    def storage(self) -> StorageObjects:
        """The handle's storage objects (none without a handle)."""
        if self.handle is None:
            return _NO_STORAGE
        storage: StorageObjects = self.handle.storage_objects()
        return storage

    # --- PreFilter --------------------------------------------------------------------------

    def is_volume_bound(self, pod: Pod, vol: dict) -> tuple[bool, PersistentVolumeClaim | None]:
        """``isVolumeBound``: a volume without a claim counts as bound."""
        claim = volume_claim_name(pod, vol)
        if claim is None:
            return True, None
        name, is_ephemeral = claim
        bound, pvc = self.is_pvc_bound(pod.namespace, name)
        if is_ephemeral and (err := volume_is_for_pod(pod, pvc)) is not None:
            raise BinderError(err)
        return bound, pvc

    def is_pvc_bound(self, namespace: str, name: str) -> tuple[bool, PersistentVolumeClaim]:
        """``isPVCBound``: the claim as assumed, and whether it is fully bound."""
        key = f"{namespace}/{name}"
        try:
            pvc = self.pvc_cache.get(key)
        except BinderError as e:
            raise BinderError(f'error getting PVC "{key}": {e}') from None
        return is_pvc_fully_bound(pvc), pvc

    def are_pod_volumes_bound(self, pod: Pod) -> bool:
        """``arePodVolumesBound``: errors count as not bound."""
        for vol in pod_volumes(pod):
            try:
                bound, _ = self.is_volume_bound(pod, vol)
            except BinderError:
                bound = False
            if not bound:
                return False
        return True

    def get_pod_volume_claims(self, pod: Pod) -> PodVolumeClaims:
        """``GetPodVolumeClaims``: bound claims, unbound ones of a WaitForFirstConsumer class
        (without ``spec.volumeName``), the other unbound ones (immediate, or pre-bound), and
        the PVs of each delay-binding claim's class."""
        out = PodVolumeClaims()
        classes = self.storage.classes
        for vol in pod_volumes(pod):
            bound, pvc = self.is_volume_bound(pod, vol)
            if pvc is None:
                continue
            if bound:
                out.bound_claims.append(pvc)
            elif vh.is_delay_binding_mode(pvc, classes) and not pvc.volume_name:
                out.unbound_claims_delay_binding.append(pvc)
            else:
                out.unbound_claims_immediate.append(pvc)
        for pvc in out.unbound_claims_delay_binding:
            class_name = vh.get_persistent_volume_claim_class(pvc)
            out.unbound_volumes_delay_binding[class_name] = self.pv_cache.list_pvs(class_name)
        return out

    # --- Filter -----------------------------------------------------------------------------

    def find_pod_volumes(self, pod: Pod, claims: PodVolumeClaims, node: Node
                         ) -> tuple[PodVolumes, list[str]]:
        """``FindPodVolumes``: the pod's volumes on ``node`` and the reasons it does not fit, in
        upstream's order (node affinity, binding, storage, missing PV)."""
        s = _FindState()
        pod_volumes_ = PodVolumes()
        self._find(pod, claims, node, s)
        pod_volumes_.static_bindings = s.static_bindings or None
        pod_volumes_.dynamic_provisions = s.dynamic_provisions or None
        reasons = []
        if not s.bound_volumes_satisfied:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not s.unbound_volumes_satisfied:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not s.sufficient_storage:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not s.bound_pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        return pod_volumes_, reasons

    def _find(self, pod: Pod, claims: PodVolumeClaims, node: Node, s: _FindState) -> None:
        if claims.bound_claims:
            s.bound_volumes_satisfied, s.bound_pvs_found = self.check_bound_claims(
                claims.bound_claims, node)
        if not claims.unbound_claims_delay_binding:
            return
        to_match: list[PersistentVolumeClaim] = []
        to_provision: list[PersistentVolumeClaim] = []
        for claim in claims.unbound_claims_delay_binding:
            if ANN_SELECTED_NODE in claim.annotations:
                if claim.annotations[ANN_SELECTED_NODE] != node.name:
                    s.unbound_volumes_satisfied = False  # fast path: another node's claim
                    return
                to_provision.append(claim)
            else:
                to_match.append(claim)
        if to_match:
            s.unbound_volumes_satisfied, s.static_bindings, unbound = self.find_matching_volumes(
                to_match, claims.unbound_volumes_delay_binding, node)
            to_provision.extend(unbound)
        if to_provision:
            (s.unbound_volumes_satisfied, s.sufficient_storage,
             s.dynamic_provisions) = self.check_volume_provisions(to_provision, node)

    def check_bound_claims(self, claims: list[PersistentVolumeClaim], node: Node
                           ) -> tuple[bool, bool]:
        """``checkBoundClaims``: (every bound PV's node affinity matches, every PV exists);
        stops at the first PV that is missing or does not match."""
        csi_node = self.storage.csi_nodes.get(node.name)
        for pvc in claims:
            try:
                pv = self.pv_cache.get(pvc.volume_name)
            except NotFoundError:
                return True, False
            pv = try_translate_pv_to_csi(pv, csi_node)
            if vh.check_node_affinity(pv, node.labels) is not None:
                return False, True
        return True, True

    def find_matching_volumes(self, claims: list[PersistentVolumeClaim],
                              volumes_by_class: dict[str, list[PersistentVolume]], node: Node
                              ) -> tuple[bool, list[BindingInfo], list[PersistentVolumeClaim]]:
        """``findMatchingVolumes``: claims by increasing request, each matched by
        ``FindMatchingVolume`` among its class's PVs not chosen yet; the unmatched claims go on
        to provisioning."""
        chosen: dict[str, PersistentVolume] = {}
        bindings: list[BindingInfo] = []
        unbound: list[PersistentVolumeClaim] = []
        found = True
        for pvc in _by_pvc_size(claims):
            pvs = volumes_by_class.get(vh.get_persistent_volume_claim_class(pvc), [])
            pv = vh.find_matching_volume(pvc, pvs, node, chosen, True)
            if pv is None:
                unbound.append(pvc)
                found = False
                continue
            chosen[pv.name] = pv
            bindings.append(BindingInfo(pvc, pv))
        return found, bindings, unbound

    def check_volume_provisions(self, claims: list[PersistentVolumeClaim], node: Node
                                ) -> tuple[bool, bool, list[DynamicProvision] | None]:
        """``checkVolumeProvisions``: (provisioning possible, storage sufficient, the
        provisions). A class without a provisioner (or ``kubernetes.io/no-provisioner``), or
        whose allowedTopologies the node does not match, cannot provision."""
        provisions: list[DynamicProvision] = []
        for claim in claims:
            class_name = vh.get_persistent_volume_claim_class(claim)
            if not class_name:
                raise BinderError(f'no class for claim "{claim.key}"')
            sc = self.storage.classes.get(class_name)
            if sc is None:
                raise BinderError(f'failed to find storage class "{class_name}"')
            if not sc.provisioner or sc.provisioner == vh.NOT_SUPPORTED_PROVISIONER:
                return False, True, None
            if not vh.match_topology_selector_terms(sc.allowed_topologies, node.labels):
                return False, True, None
            sufficient, capacity = self.has_enough_capacity(sc.provisioner, claim, sc, node)
            if not sufficient:
                return True, False, None
            provisions.append(DynamicProvision(claim, capacity))
        return True, True, provisions

    def has_enough_capacity(self, provisioner: str, claim: PersistentVolumeClaim,
                            sc: StorageClass, node: Node
                            ) -> tuple[bool, CSIStorageCapacity | None]:
        """``hasEnoughCapacity``: only for a CSIDriver with ``storageCapacity: true``; then the
        first CSIStorageCapacity of the class whose limit fits the request and whose
        nodeTopology selects the node. A request of 0 is taken as no request (the model keeps
        none apart; the API requires a storage request)."""
        if claim.request == 0:
            return True, None
        driver = self.storage.csi_drivers.get(provisioner)
        if driver is None or not driver.storage_capacity:
            return True, None
        for capacity in self.storage.capacities.values():
            if (capacity.storage_class_name == sc.name
                    and capacity_sufficient(capacity, claim.request)
                    and node_has_access(node, capacity)):
                return True, capacity
        return False, None

    # --- Reserve / Unreserve ----------------------------------------------------------------

    def assume_pod_volumes(self, pod: Pod, node_name: str, pv: PodVolumes) -> bool:
        """``AssumePodVolumes``: True when every claim is bound already; otherwise each
        chosen PV assumed pre-bound to its claim and each claim to provision assumed with the
        selected-node annotation, and ``pv`` updated with the assumed objects."""
        if self.are_pod_volumes_bound(pod):
            return True
        new_bindings: list[BindingInfo] = []
        for binding in pv.static_bindings or []:
            new_pv, dirty = vh.get_bind_volume_to_claim(binding.pv, binding.pvc)
            if dirty:
                try:
                    self.pv_cache.assume(new_pv)
                except BinderError:
                    self.revert_assumed_pvs(new_bindings)
                    raise
            new_bindings.append(BindingInfo(binding.pvc, new_pv))
        new_provisions: list[DynamicProvision] = []
        for provision in pv.dynamic_provisions or []:
            clone = dataclasses.replace(provision.pvc, annotations={
                **provision.pvc.annotations, ANN_SELECTED_NODE: node_name})
            try:
                self.pvc_cache.assume(clone)
            except BinderError:
                self.revert_assumed_pvs(new_bindings)
                self.revert_assumed_pvcs([p.pvc for p in new_provisions])
                raise
            new_provisions.append(DynamicProvision(clone))
        pv.static_bindings = new_bindings
        pv.dynamic_provisions = new_provisions
        return False

    def revert_assumed_pod_volumes(self, pv: PodVolumes) -> None:
        """``RevertAssumedPodVolumes``."""
        self.revert_assumed_pvs(pv.static_bindings or [])
        self.revert_assumed_pvcs([p.pvc for p in pv.dynamic_provisions or []])

    def revert_assumed_pvs(self, bindings: list[BindingInfo]) -> None:
        for binding in bindings:
            self.pv_cache.restore(binding.pv)

    def revert_assumed_pvcs(self, claims: list[PersistentVolumeClaim]) -> None:
        for claim in claims:
            self.pvc_cache.restore(claim)

    # --- PreBind ----------------------------------------------------------------------------

    def bind_pod_volumes(self, pod: Pod, node_name: str, pv: PodVolumes) -> None:
        """``BindPodVolumes``: the API writes, the simulated PV controller and provisioner, then
        ``checkBindings`` (upstream polls it until ``bindTimeoutSeconds``; here the controllers
        have done all they will, so a claim not bound yet is the timeout).

        The controllers act once the writes made cover as many claims as the pod has distinct
        claims to bind, even when a later write fails: a pod naming one claim in two volumes
        has it twice in ``GetPodVolumeClaims`` (binder.go of v1.37.2, lines 797-823: one entry
        per volume of ``pod.Spec.Volumes``), so ``bindAPIUpdate`` (lines 515-577) updates it
        twice (line 565); the first update annotates it and the controllers provision and bind
        it, and the second update, with the old resourceVersion, conflicts
        (docs/storage.md#when-the-controllers-act)."""
        bindings = pv.static_bindings
        claims = [p.pvc for p in pv.dynamic_provisions or []]
        written: list[PersistentVolumeClaim] = []
        try:
            self.bind_api_update(pod, bindings, claims, written)
        except BinderError:
            if written and len(written) >= len({c.key for c in self._pod_claims(pv)}):
                self._complete(node_name, written)
            raise
        assert bindings is not None  # bind_api_update refused nil
        self._complete(node_name, [b.pvc for b in bindings] + claims)
        try:
            done = self.check_bindings(node_name, bindings, claims)
        except BinderError as e:
            raise BinderError(f"binding volumes: {e}") from None
        if not done:
            raise BinderError("binding volumes: context deadline exceeded")

    @staticmethod
    def _pod_claims(pv: PodVolumes) -> list[PersistentVolumeClaim]:
        return [b.pvc for b in pv.static_bindings or []] + [
            p.pvc for p in pv.dynamic_provisions or []]

    def _complete(self, node_name: str, claims: list[PersistentVolumeClaim]) -> None:
        node_info = self.handle.snapshot().get(node_name)
        if node_info is not None:
            complete_claims(self.storage, node_info.node, claims, self.handle.storage_changed)

    def bind_api_update(self, pod: Pod, bindings: list[BindingInfo] | None,
                        claims: list[PersistentVolumeClaim],
                        written: list[PersistentVolumeClaim] | None = None) -> None:
        """``bindAPIUpdate``: each PV updated with its claimRef, then each claim with the
        selected-node annotation; on an error the assumed objects not written yet are
        restored. ``written`` gets the claim of each write made."""
        if bindings is None:
            raise BinderError(f'failed to get cached bindings for pod "{pod.key}"')
        if written is None:
            written = []
        done_bindings = done_claims = 0
        try:
            for binding in bindings:
                binding.pv = self._update(self.storage.volumes, binding.pv.name, binding.pv,
                                          "persistentvolumes", KIND_PV)
                written.append(binding.pvc)
                done_bindings += 1
            for i, claim in enumerate(claims):
                claims[i] = self._update(self.storage.claims, claim.key, claim,
                                         "persistentvolumeclaims", KIND_PVC)
                written.append(claims[i])
                done_claims += 1
        finally:
            if done_bindings < len(bindings):
                self.revert_assumed_pvs(bindings[done_bindings:])
            if done_claims < len(claims):
                self.revert_assumed_pvcs(claims[done_claims:])

    def _update(self, store: dict, key: str, obj: Any, resource: str, kind: str) -> Any:
        """An API Update: NotFound, or Conflict when ``obj``'s resourceVersion is not the
        stored one; an update that changes nothing is a no-op (no new version, no event); else
        the object with the next resourceVersion, reported to the handle."""
        old = store.get(key)
        if old is None:
            raise NotFoundError(resource, key.rsplit("/", 1)[-1])
        if old.resource_version != obj.resource_version:
            raise BinderError(
                f'Operation cannot be fulfilled on {resource} "{key.rsplit("/", 1)[-1]}": the '
                "object has been modified; please apply your changes to the latest version "
                "and try again")
        if obj == old:
            return old
        new = dataclasses.replace(obj, resource_version=old.resource_version + 1)
        store[key] = new
        self.handle.storage_changed(kind, old, new)
        return new

    def check_bindings(self, node_name: str, bindings: list[BindingInfo],
                       claims: list[PersistentVolumeClaim]) -> bool:
        """``checkBindings`` on the API objects: True when every claim is fully bound; False to
        wait; BinderError when binding must be retried (node affinity, a claimRef reset, a
        selected-node annotation removed). The pod-deleted check is not modelled (the pod
        being bound exists)."""
        node_info = self.handle.snapshot().get(node_name)
        if node_info is None:
            raise BinderError(f'failed to get node "{node_name}": node "{node_name}" not found')
        node = node_info.node
        csi_node = self.storage.csi_nodes.get(node.name)
        for binding in bindings:
            try:
                pv = self.pv_cache.get_api_obj(binding.pv.name)
                pvc = self.pvc_cache.get_api_obj(binding.pvc.key)
            except BinderError as e:
                raise BinderError(f"failed to check binding: {e}") from None
            if binding.pv.resource_version > pv.resource_version:
                return False
            try:
                translated = try_translate_pv_to_csi(pv, csi_node)
            except BinderError as e:
                raise BinderError(f"failed to translate pv to csi: {e}") from None
            self._check_affinity(translated, node)
            if pv.claim_ref is None or not pv.claim_ref.uid:
                raise BinderError(f'ClaimRef got reset for pv "{pv.name}"')
            if not is_pvc_fully_bound(pvc):
                return False
        for claim in claims:
            try:
                pvc = self.pvc_cache.get_api_obj(claim.key)
            except BinderError as e:
                raise BinderError(f"failed to check provisioning pvc: {e}") from None
            if claim.resource_version > pvc.resource_version:
                return False
            if not pvc.annotations:
                raise BinderError(f'selectedNode annotation reset for PVC "{pvc.name}"')
            if pvc.annotations.get(ANN_SELECTED_NODE, "") != node_name:
                raise BinderError(f'provisioning failed for PVC "{pvc.name}"')
            if pvc.volume_name:
                try:
                    pv = self.pv_cache.get_api_obj(pvc.volume_name)
                except NotFoundError:
                    return False
                self._check_affinity(try_translate_pv_to_csi(pv, csi_node), node)
            if not is_pvc_fully_bound(pvc):
                return False
        return True

    @staticmethod
    def _check_affinity(pv: PersistentVolume, node: Node) -> None:
        err = vh.check_node_affinity(pv, node.labels)
        if err is not None:
            raise BinderError(f'pv "{pv.name}" node affinity doesn\'t match node '
                              f'"{node.name}": {err}')


@dataclass(slots=True)
class _FindState:
    """The named results of ``FindPodVolumes``."""

    unbound_volumes_satisfied: bool = True
    bound_volumes_satisfied: bool = True
    sufficient_storage: bool = True
    bound_pvs_found: bool = True
    static_bindings: list[BindingInfo] | None = None
    dynamic_provisions: list[DynamicProvision] | None = None


def volume_limit(capacity: CSIStorageCapacity) -> int | None:
    """``volumeLimit``: ``maximumVolumeSize`` when set, else ``capacity``."""
    if capacity.maximum_volume_size is not None:
        return capacity.maximum_volume_size
    return capacity.capacity


def capacity_sufficient(capacity: CSIStorageCapacity, size: int) -> bool:
    """``capacitySufficient``."""
    limit = volume_limit(capacity)
    return limit is not None and limit >= size


def node_has_access(node: Node, capacity: CSIStorageCapacity) -> bool:
    """``nodeHasAccess``: a nil nodeTopology is unavailable; else its label selector."""
    if capacity.node_topology is None:
        return False
    selector = capacity.node_topology
    return isinstance(selector, LabelSelector) and compile_selector(selector).matches(node.labels)


def complete_claims(storage: StorageObjects, node: Node, claims: list[PersistentVolumeClaim],
                    changed: Any) -> None:
    """The simulated PV controller and external provisioner completing what PreBind wrote
    (``reference_impl.storage.pv_controller.complete_pod_volumes``, docs/storage.md)."""
    complete_pod_volumes(storage, node, claims, changed)


__all__ = ["ERR_REASON_BIND_CONFLICT", "ERR_REASON_NODE_CONFLICT", "ERR_REASON_NOT_ENOUGH_SPACE",
           "ERR_REASON_PV_NOT_EXIST", "BinderError", "BindingInfo", "DynamicProvision",
           "PodVolumeClaims", "PodVolumes", "StorageResource", "VolumeBinder"]
