"""The PV matching helpers the volume plugins and the PV controller share, named as upstream's.

Upstream: ``k8s.io/component-helpers/storage/volume/pv_helpers.go`` and ``helpers.go`` of
v0.37.2 (``CheckNodeAffinity``, which ``pkg/volume/util`` re-exports), and
``pkg/apis/core/v1/helper/helpers.go`` (``MatchTopologySelectorTerms``). The model has no
``volumeAttributesClassName``, so the VolumeAttributesClass checks of ``FindMatchingVolume``
always pass (both sides are ""). Errors are returned as strings (None: no error).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Container, Iterable, Mapping

from reference_impl.api.labels import compile_selector
from reference_impl.api.node_selectors import match_node_selector_terms
from reference_impl.model.objects import LabelSelector, Node
from reference_impl.model.storage import (
    ANN_BETA_STORAGE_CLASS,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    PV_AVAILABLE,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    TopologySelectorTerm,
)

#: ``NotSupportedProvisioner``: a class of statically provisioned volumes (local volumes).
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"


def persistent_volume_claim_has_class(claim: PersistentVolumeClaim) -> bool:
    """``PersistentVolumeClaimHasClass`` (helpers.go): the beta annotation or
    ``spec.storageClassName`` is set (even to "")."""
    return ANN_BETA_STORAGE_CLASS in claim.annotations or claim.storage_class_name is not None


def get_persistent_volume_claim_class(claim: PersistentVolumeClaim) -> str:
    """``GetPersistentVolumeClaimClass`` (helpers.go): the beta annotation, then
    ``spec.storageClassName``, else ""."""
    if ANN_BETA_STORAGE_CLASS in claim.annotations:
        return claim.annotations[ANN_BETA_STORAGE_CLASS]
    return claim.storage_class_name if claim.storage_class_name is not None else ""


def get_persistent_volume_class(volume: PersistentVolume) -> str:
    """``GetPersistentVolumeClass`` (helpers.go): the beta annotation, then
    ``spec.storageClassName``."""
    if ANN_BETA_STORAGE_CLASS in volume.annotations:
        return volume.annotations[ANN_BETA_STORAGE_CLASS]
    return volume.storage_class_name


def check_node_affinity(volume: PersistentVolume, node_labels: Mapping[str, str]) -> str | None:
    """``CheckNodeAffinity`` (helpers.go): the PV's required node affinity against a node that
    has only these labels (upstream builds ``&v1.Node{ObjectMeta{Labels}}``: without a name the
    node has no fields, so ``metadata.name`` field terms are ignored). The error, or None."""
    if volume.node_affinity is None:
        return None
    matches, err = match_node_selector_terms(Node("", labels=dict(node_labels)),
                                             volume.node_affinity)
    if err is not None:
        return err
    if not matches:
        return "no matching NodeSelectorTerms"
    return None


def is_delay_binding_provisioning(claim: PersistentVolumeClaim) -> bool:
    """``IsDelayBindingProvisioning`` (pv_helpers.go): the claim has the selected-node
    annotation."""
    return ANN_SELECTED_NODE in claim.annotations


def is_delay_binding_mode(claim: PersistentVolumeClaim,
                          classes: Mapping[str, StorageClass]) -> bool:
    """``IsDelayBindingMode`` (pv_helpers.go): the claim's class exists and binds
    WaitForFirstConsumer; no class or a missing class is immediate. (The error for a class
    without ``volumeBindingMode`` cannot arise: the API server defaults it.)"""
    class_name = get_persistent_volume_claim_class(claim)
    if not class_name:
        return False
    sc = classes.get(class_name)
    if sc is None:
        return False
    return sc.volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER


def is_volume_bound_to_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    """``IsVolumeBoundToClaim`` (pv_helpers.go): the claimRef names the claim and its UID,
    when set, is the claim's."""
    ref = volume.claim_ref
    if ref is None:
        return False
    if claim.name != ref.name or claim.namespace != ref.namespace:
        return False
    return not (ref.uid and claim.uid != ref.uid)


def get_bind_volume_to_claim(volume: PersistentVolume, claim: PersistentVolumeClaim
                             ) -> tuple[PersistentVolume, bool]:
    """``GetBindVolumeToClaim`` (pv_helpers.go): a copy of the volume with its claimRef set to
    the claim (namespace, name, UID) and ``pv.kubernetes.io/bound-by-controller: "yes"`` when
    it was not bound to the claim, and whether anything changed. The copy keeps the volume's
    resourceVersion (it is what the scheduler assumes and then writes)."""
    should_set_bound_by_controller = not is_volume_bound_to_claim(volume, claim)
    claim_ref = volume.claim_ref
    annotations = dict(volume.annotations)
    dirty = False
    if claim_ref is None or (claim_ref.name, claim_ref.namespace, claim_ref.uid) != (
            claim.name, claim.namespace, claim.uid):
        claim_ref = ObjectReference(claim.namespace, claim.name, claim.uid)
        dirty = True
    if should_set_bound_by_controller and ANN_BOUND_BY_CONTROLLER not in annotations:
        annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
        dirty = True
    return dataclasses.replace(volume, claim_ref=claim_ref, annotations=annotations), dirty


def check_volume_mode_mismatches(claim: PersistentVolumeClaim,
                                 volume: PersistentVolume) -> bool:
    """``CheckVolumeModeMismatches`` (pv_helpers.go): the claim's and the volume's volume
    modes differ (both default to Filesystem, as the loader applies)."""
    return claim.volume_mode != volume.volume_mode


def check_access_modes(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """``CheckAccessModes`` (pv_helpers.go): every access mode of the claim is one of the
    volume's."""
    return all(mode in volume.access_modes for mode in claim.access_modes)


def find_matching_volume(claim: PersistentVolumeClaim, volumes: Iterable[PersistentVolume],
                         node: Node | None, excluded_volumes: Container[str],
                         delay_binding: bool) -> PersistentVolume | None:
    """``FindMatchingVolume`` (pv_helpers.go): the volume bound to the claim (None when its node
    affinity does not match ``node``), else the smallest Available volume of the claim's class
    that is big enough, of the claim's volume mode, not being deleted, selected by the claim's
    selector, matching ``node``'s labels and (with a node) the claim's access modes. Ties keep
    the first in ``volumes``' order. With no node and delay binding, only a volume bound to
    the claim is returned."""
    requested_class = get_persistent_volume_claim_class(claim)
    selector = (compile_selector(claim.selector)
                if isinstance(claim.selector, LabelSelector) else None)
    smallest: PersistentVolume | None = None
    for volume in volumes:
        if volume.name in excluded_volumes:
            continue
        if volume.claim_ref is not None and not is_volume_bound_to_claim(volume, claim):
            continue
        if volume.capacity < claim.request:
            continue
        if check_volume_mode_mismatches(claim, volume):
            continue
        if volume.deleting:
            continue
        node_affinity_valid = node is None or check_node_affinity(volume, node.labels) is None
        if is_volume_bound_to_claim(volume, claim):
            return volume if node_affinity_valid else None
        if node is None and delay_binding:
            continue
        if volume.phase != PV_AVAILABLE:
            continue
        if selector is not None and not selector.matches(volume.labels):
            continue
        if get_persistent_volume_class(volume) != requested_class:
            continue
        if not node_affinity_valid:
            continue
        if node is not None and not check_access_modes(claim, volume):
            continue
        if smallest is None or smallest.capacity > volume.capacity:
            smallest = volume
    return smallest


def match_topology_selector_terms(terms: Iterable[TopologySelectorTerm],
                                  labels: Mapping[str, str]) -> bool:
    """``MatchTopologySelectorTerms`` (pkg/apis/core/v1/helper/helpers.go): no terms match
    everything; otherwise some term whose every expression has the label among its values. An
    empty term, or one with an expression ``labels.NewRequirement`` refuses (an ``In`` without
    values), matches nothing."""
    terms = tuple(terms)
    if not terms:
        return True
    for term in terms:
        exprs = term.match_label_expressions
        if not exprs or any(not values for _, values in exprs):
            continue
        if all(key in labels and labels[key] in values for key, values in exprs):
            return True
    return False


__all__ = ["NOT_SUPPORTED_PROVISIONER", "check_access_modes", "check_node_affinity",
           "check_volume_mode_mismatches", "find_matching_volume", "get_bind_volume_to_claim",
           "get_persistent_volume_claim_class", "get_persistent_volume_class",
           "is_delay_binding_mode", "is_delay_binding_provisioning", "is_volume_bound_to_claim",
           "match_topology_selector_terms", "persistent_volume_claim_has_class"]
