"""The resourceclaim controller's cleanup when a pod goes (``syncClaim``,
pkg/controller/resourceclaim/controller.go of k8s.io/kubernetes v1.37.2): the pod's
reservations dropped, a claim left without consumers deallocated, the claims it owns deleted.
Both subjects apply it when a timeline event takes a pod (docs/dra.md, "The resourceclaim
controller's cleanup"); finalizers and PodGroups are not modelled.
"""

from __future__ import annotations

import dataclasses

from reference_impl.model.dra import DRAObjects, ResourceClaim
from reference_impl.model.objects import Pod


def pod_claim_names(pod: Pod, dra: DRAObjects) -> list[str]:
    """``resourceclaim.PodClaims`` (k8s.io/dynamic-resource-allocation/resourceclaim/pod.go):
    the names of the pod's claims that exist by name, in spec order, then its extended
    resources' claim (``status.extendedResourceClaimStatus.resourceClaimName``: as PreBind
    patched it in this run, else as the input gives it)."""
    statuses = dict(pod.resource_claim_statuses)
    names: list[str] = []
    for pc in pod.resource_claim_sources:
        name = pc.resource_claim_name
        if name is None and pc.resource_claim_template_name is not None:
            name = statuses.get(pc.name)
        if name:
            names.append(name)
    ext = dra.extended_resource_claim_status.get(pod.uid, pod.extended_resource_claim_status)
    if ext is not None and ext.get("resourceClaimName"):
        names.append(str(ext["resourceClaimName"]))
    return names


def release_pod_claims(pod: Pod, dra: DRAObjects
                       ) -> list[tuple[ResourceClaim, ResourceClaim | None]]:
    """``syncClaim`` for each claim of ``pod``, which is gone (deleted or finished): the
    changes made to ``dra.claims``, in order, as (old, new) pairs, new None for a delete:

    - its ``reservedFor`` entries (by uid) are dropped; if none remain, the allocation and the
      drivers' ``status.devices`` are cleared too (``UpdateStatus``);
    - then, with no consumer left, a claim whose controller owner is the pod is deleted.

    A claim the pod does not hold and does not own is not touched (``len(remaining) ==
    len(claim.Status.ReservedFor)``: no write)."""
    changes: list[tuple[ResourceClaim, ResourceClaim | None]] = []
    seen: set[str] = set()
    for name in pod_claim_names(pod, dra):
        key = f"{pod.namespace}/{name}"
        if key in seen:
            continue
        seen.add(key)
        claim = dra.claims.get(key)
        if claim is None:
            continue
        remaining = tuple(r for r in claim.reserved_for
                          if not (r.api_group == "" and r.resource == "pods"
                                  and r.uid == pod.uid))
        if len(remaining) < len(claim.reserved_for):
            updated = dataclasses.replace(claim, reserved_for=remaining)
            if not remaining:
                updated = dataclasses.replace(updated, allocation=None, devices=())
            dra.claims[key] = updated
            changes.append((claim, updated))
            claim = updated
        if not claim.reserved_for and claim.owner_pod_uid == pod.uid:
            del dra.claims[key]
            changes.append((claim, None))
    return changes
