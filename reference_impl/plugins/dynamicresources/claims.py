"""The claims of the pod being scheduled: ``claimStore`` (``claims.go``) and the helpers of
k8s.io/dynamic-resource-allocation/resourceclaim (``resourceclaim.go``: ``Name``,
``IsForPod``, ``IsReservedForPod``).

Upstream: ``pkg/scheduler/framework/plugins/dynamicresources/claims.go`` of v1.37.2. The
special claim of extended resources backed by DRA is not modelled (docs/dra.md), so the store
holds the user claims only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from reference_impl.model.dra import DRAObjects, ResourceClaim, ResourceClaimConsumerReference
from reference_impl.model.objects import Pod, PodResourceClaim

#: resourceclaim.ErrClaimNotFound
ERR_CLAIM_NOT_FOUND = "ResourceClaim not created yet"


class ClaimNameError(Exception):
    """An error of ``resourceclaim.Name`` or ``IsForPod``."""


def claim_name(pod: Pod, pc: PodResourceClaim) -> tuple[str | None, bool]:
    """``resourceclaim.Name``: the claim's name (None: intentionally not created) and whether
    ``is_for_pod`` must be checked; raises :class:`ClaimNameError` when a template's claim
    is not in the pod's status yet."""
    if pc.resource_claim_name is not None:
        return pc.resource_claim_name, False
    for name, claim in pod.resource_claim_statuses:
        if name == pc.name:
            return claim, True
    raise ClaimNameError(f'pod "{pod.namespace}/{pod.name}": {ERR_CLAIM_NOT_FOUND}')


def check_is_for_pod(pod: Pod, claim: ResourceClaim) -> None:
    """``resourceclaim.IsForPod`` (without PodGroup owners: DRAWorkloadResourceClaims)."""
    if claim.namespace != pod.namespace:
        raise ClaimNameError(f"ResourceClaim {claim.namespace}/{claim.name} is not in the same "
                             f"namespace as Pod {pod.namespace}/{pod.name}")
    if claim.owner_pod_uid != pod.uid:
        raise ClaimNameError(f"ResourceClaim {claim.namespace}/{claim.name} was not created for "
                             f"Pod {pod.namespace}/{pod.name} (Pod is not owner)")


def is_reserved_for_pod(pod: Pod, claim: ResourceClaim) -> bool:
    """``resourceclaim.IsReservedForPod``."""
    return any(r.uid == pod.uid for r in claim.reserved_for)


def pod_binding(pod: Pod) -> ResourceClaimConsumerReference:
    """``claimStore.getBinding`` without claim bindings: the pod itself."""
    return ResourceClaimConsumerReference(resource="pods", name=pod.name, uid=pod.uid)


@dataclass(slots=True)
class ClaimStore:
    """``claimStore``: the pod's claims in ``spec.resourceClaims`` order, with the pod claim
    name each came from."""

    claims: list[ResourceClaim]
    pod_claim_names: list[str]

    def empty(self) -> bool:
        return not self.claims

    def __len__(self) -> int:
        return len(self.claims)

    def all(self) -> Iterator[tuple[int, ResourceClaim]]:
        return iter(enumerate(self.claims))

    def to_allocate(self) -> Iterator[tuple[int, ResourceClaim]]:
        """``toAllocate``: the claims without an allocation."""
        return ((i, c) for i, c in enumerate(self.claims) if c.allocation is None)

    def get(self, i: int) -> ResourceClaim:
        return self.claims[i]

    def set(self, i: int, claim: ResourceClaim) -> None:
        self.claims[i] = claim


def claim_results(objects: DRAObjects, bound: Iterable[Pod]) -> dict[str, list[dict[str, Any]]]:
    """The ``resourceClaims`` of a SimulationResult (docs/dra.md#results), as the upstream
    subject reads them back after its run: for every bound pod with ``spec.resourceClaims``,
    one entry per item in spec order, ``name`` (the item), ``claim`` (``resourceclaim.Name``,
    None when there is none or it cannot be named yet) and ``allocation`` (the claim's
    ``status.allocation`` devices at the end of the run, None when not allocated)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for pod in sorted(bound, key=lambda p: p.key):
        if not pod.resource_claim_sources:
            continue
        entries: list[dict[str, Any]] = []
        for pc in pod.resource_claim_sources:
            try:
                name, _ = claim_name(pod, pc)
            except ClaimNameError:
                name = None
            allocation: dict[str, Any] | None = None
            claim = None if name is None else objects.claims.get(f"{pod.namespace}/{name}")
            if claim is not None and claim.allocation is not None:
                allocation = {"devices": [
                    {"request": r.request, "driver": r.driver, "pool": r.pool,
                     "device": r.device} for r in claim.allocation.results]}
            entries.append({"name": pc.name, "claim": name, "allocation": allocation})
        out[pod.key] = entries
    return out
