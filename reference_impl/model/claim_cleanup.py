"""The resourceclaim controller's cleanup when a pod goes (``syncClaim``,
pkg/controller/resourceclaim/controller.go of k8s.io/kubernetes v1.37.2, the same logic in
v1.34.4, v1.35.4 and v1.36.3): the pod's reservations dropped, a claim left without consumers
deallocated when it carries the ``resource.kubernetes.io/delete-protection`` finalizer (which
is then removed), the claims it owns deleted. Both subjects apply it when a timeline event
takes a pod and when the scheduler's preemption deletes a victim (docs/dra.md, "The
resourceclaim controller's cleanup"); PodGroups are not modelled.

The API server's delete semantics are part of it: deleting a claim that still has finalizers
only sets its ``deletionTimestamp`` (``deleting``); removing the last finalizer of a claim
being deleted removes it (k8s.io/apiserver/pkg/registry/generic/registry/store.go, ``Delete``
and ``Update``'s ``shouldDeleteDuringUpdate``)."""

from __future__ import annotations

import dataclasses

from reference_impl.model.dra import CLAIM_FINALIZER, DRAObjects, ResourceClaim
from reference_impl.model.objects import Pod

#: one write to a claim: (old, new), new None when the claim is gone
ClaimChange = tuple[ResourceClaim, ResourceClaim | None]

#: syncClaim runs again on every update of the claim (``enqueueResourceClaim``); three passes
#: reach the fixpoint (drop the reservation; delete; deallocate the claim marked deleted)
_MAX_PASSES = 4


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


def api_delete(claim: ResourceClaim) -> ResourceClaim | None:
    """``ResourceClaims(ns).Delete`` as the API server does it: a claim with finalizers is
    marked (``deletionTimestamp``; one already marked is left as it is), one without is
    removed (None)."""
    if not claim.finalizers:
        return None
    return claim if claim.deleting else dataclasses.replace(claim, deleting=True)


def _without_finalizer(claim: ResourceClaim) -> ResourceClaim | None:
    """The controller's ``Update`` removing ``CLAIM_FINALIZER``: a claim being deleted that is
    left without finalizers is removed by the API server (None)."""
    rest = tuple(f for f in claim.finalizers if f != CLAIM_FINALIZER)
    if claim.deleting and not rest:
        return None
    return dataclasses.replace(claim, finalizers=rest)


def _deallocated(claim: ResourceClaim) -> ResourceClaim:
    """``status.allocation`` cleared; the API server's status strategy drops the devices'
    ``status.devices`` with it (``dropDeallocatedStatusDevices``,
    pkg/registry/resource/resourceclaim/strategy.go)."""
    return dataclasses.replace(claim, allocation=None, devices=())


def sync_claim(claim: ResourceClaim, gone_uid: str, owner_done: bool) -> list[ClaimChange]:
    """One ``syncClaim`` of ``claim`` after the pod with uid ``gone_uid`` went: the writes, in
    order (controller.go 1450-1690, v1.37.2).

    - The pod's ``reservedFor`` entries are dropped (the pod is recorded as deleted, or done:
      ``isPodDone``); when some were dropped, one ``UpdateStatus`` writes the rest and, when none
      remain and the claim has the finalizer, clears the allocation (a claim without it keeps
      its allocation: "There shouldn't be any claims without this finalizer"). Then a claim
      with the finalizer and no allocation loses the finalizer (an ``Update``).
    - Otherwise, a claim with the finalizer, being deleted and without consumers, is
      deallocated (if allocated) and loses the finalizer.
    - Then, without consumers, a claim whose controller owner is the pod is deleted when the
      pod still exists and is done (``owner_done``: a finished pod); a deleted pod is not found
      in the lister and its claims are left to the garbage collector (``release_pod_claims``).

    The other pods' entries are kept: the harness runs the controller for a pod that goes, not
    for the stale entries of its input (the controller's start-up sync of every claim)."""
    changes: list[ClaimChange] = []
    remaining = tuple(r for r in claim.reserved_for
                      if not (r.api_group == "" and r.resource == "pods" and r.uid == gone_uid))
    protected = CLAIM_FINALIZER in claim.finalizers
    current: ResourceClaim | None = claim
    if len(remaining) < len(claim.reserved_for):
        updated = dataclasses.replace(claim, reserved_for=remaining)
        if not remaining and protected:
            updated = _deallocated(updated)
        changes.append((claim, updated))
        current = updated
        if protected and updated.allocation is None:
            current = _without_finalizer(updated)
            changes.append((updated, current))
    elif protected and claim.deleting and not remaining:
        if claim.allocation is not None:
            updated = _deallocated(claim)
            changes.append((claim, updated))
            claim = updated
        current = _without_finalizer(claim)
        changes.append((claim, current))
    if current is not None and not remaining and owner_done \
            and current.owner_pod_uid == gone_uid:
        deleted = api_delete(current)
        if deleted is not current:
            changes.append((current, deleted))
    return changes


def release_pod_claims(pod: Pod, dra: DRAObjects, done: bool = False) -> list[ClaimChange]:
    """The cleanup for each claim of ``pod`` (``enqueuePod`` queues ``PodClaims``), which is
    gone: deleted (``done`` False: the garbage collector then deletes the claims it owns, after
    the controller's sync) or still there and done (``done`` True: a terminal phase). The
    changes are applied to ``dra.claims`` and returned in order. Each claim is synced until
    nothing changes, as each write queues it again; a claim the pod does not hold, does not
    own, and that is not being deleted is not touched (no write)."""
    changes: list[ClaimChange] = []
    seen: set[str] = set()
    for name in pod_claim_names(pod, dra):
        key = f"{pod.namespace}/{name}"
        if key in seen:
            continue
        seen.add(key)
        _sync(key, pod.uid, done, dra, changes)
        claim = dra.claims.get(key)
        if not done and claim is not None and claim.owner_pod_uid == pod.uid:
            # the garbage collector: the owner is gone (background deletion)
            deleted = api_delete(claim)
            if deleted is not claim:
                _apply(key, claim, deleted, dra, changes)
                _sync(key, pod.uid, done, dra, changes)
    return changes


def _sync(key: str, gone_uid: str, done: bool, dra: DRAObjects,
          changes: list[ClaimChange]) -> None:
    for _ in range(_MAX_PASSES):
        claim = dra.claims.get(key)
        if claim is None:
            return
        written = sync_claim(claim, gone_uid, done)
        if not written:
            return
        for old, new in written:
            _apply(key, old, new, dra, changes)


def _apply(key: str, old: ResourceClaim, new: ResourceClaim | None, dra: DRAObjects,
           changes: list[ClaimChange]) -> None:
    dra.write_claim(key, new)
    changes.append((old, new))
