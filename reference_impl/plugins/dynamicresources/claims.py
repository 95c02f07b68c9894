"""The claims of the pod being scheduled: ``claimStore`` (``claims.go``) and the helpers of
k8s.io/dynamic-resource-allocation/resourceclaim (``resourceclaim.go``: ``Name``,
``IsForPod``, ``IsReservedForPod``).

Upstream: ``pkg/scheduler/framework/plugins/dynamicresources/claims.go`` of v1.37.2. The
store ends with the special claim of the pod's extended resources backed by DRA, if any
(``extendeddynamicresources.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from reference_impl.model.dra import (
    AllocationResult,
    DeviceAllocationConfiguration,
    DeviceRequestAllocationResult,
    DRAObjects,
    ResourceClaim,
    ResourceClaimConsumerReference,
)
from reference_impl.model.objects import Pod, PodResourceClaim
from reference_impl.plugins.dynamicresources.extendeddynamicresources import (
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    SPECIAL_CLAIM_IN_MEM_NAME,
)

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
    name each came from, then the special claim of its extended resources backed by DRA, if
    any (``num_user_owned`` counts the others)."""

    claims: list[ResourceClaim]
    pod_claim_names: list[str]
    num_user_owned: int = -1
    #: ``initialExtendedResourceClaimUID``: the special claim's uid from PreFilter
    initial_extended_resource_claim_uid: str = ""

    def __post_init__(self) -> None:
        if self.num_user_owned < 0:
            self.num_user_owned = len(self.claims)

    @classmethod
    def new(cls, claims: list[ResourceClaim], pod_claim_names: list[str],
            extended: ResourceClaim | None) -> ClaimStore:
        """``newClaimStore``."""
        if extended is None:
            return cls(claims, pod_claim_names)
        return cls([*claims, extended], pod_claim_names, len(claims), extended.uid)

    def empty(self) -> bool:
        return not self.claims

    def __len__(self) -> int:
        return len(self.claims)

    def all(self) -> Iterator[tuple[int, ResourceClaim]]:
        return iter(enumerate(self.claims))

    def all_user_claims(self) -> Iterator[tuple[int, ResourceClaim]]:
        """``allUserClaims``: without the special claim."""
        return iter(enumerate(self.claims[:self.num_user_owned]))

    def to_allocate(self) -> Iterator[tuple[int, ResourceClaim]]:
        """``toAllocate``: the claims without an allocation."""
        return ((i, c) for i, c in enumerate(self.claims) if c.allocation is None)

    def extended_resource_claim(self) -> ResourceClaim | None:
        """``extendedResourceClaim``: the special claim, or None."""
        if self.num_user_owned == len(self.claims):
            return None
        return self.claims[self.num_user_owned]

    def is_extended(self, i: int) -> bool:
        """Whether index ``i`` holds the special claim (upstream compares pointers)."""
        return i == self.num_user_owned

    def no_user_claim(self) -> bool:
        """``noUserClaim``."""
        return self.num_user_owned == 0

    def get(self, i: int) -> ResourceClaim:
        return self.claims[i]

    def set(self, i: int, claim: ResourceClaim) -> None:
        self.claims[i] = claim


def _allocation_doc(claim: ResourceClaim | None) -> dict[str, Any] | None:
    if claim is None or claim.allocation is None:
        return None
    return allocation_doc(claim.allocation)


def allocation_doc(allocation: AllocationResult) -> dict[str, Any]:
    """An allocation as the ``resourceClaims`` entries hold it: ``{"devices": [...]}``, and
    ``config`` when it has any (``source``, ``requests`` unless empty, the opaque ``driver``
    and ``parameters``; the upstream subject's ``allocationOf``, upstream/dra.go)."""
    doc: dict[str, Any] = {"devices": [_device_doc(r) for r in allocation.results]}
    if allocation.config:
        doc["config"] = [config_doc(c) for c in allocation.config]
    return doc


def config_doc(c: DeviceAllocationConfiguration) -> dict[str, Any]:
    """One ``config`` entry of :func:`allocation_doc`."""
    doc: dict[str, Any] = {"source": c.source}
    if c.requests:
        doc["requests"] = list(c.requests)
    doc["driver"] = c.opaque.driver
    doc["parameters"] = json.loads(c.opaque.parameters)
    return doc


def _device_doc(r: DeviceRequestAllocationResult) -> dict[str, Any]:
    """One result: ``shared`` when it has a ``shareID`` (upstream's are random UUIDs, so
    only their presence is reported) and ``consumedCapacity`` with each quantity as an exact
    rational (``str(Fraction)``, as the upstream subject's ``big.Rat.RatString``)."""
    doc: dict[str, Any] = {"request": r.request, "driver": r.driver, "pool": r.pool,
                           "device": r.device}
    if r.share_id is not None:
        doc["shared"] = True
    if r.consumed_capacity:
        doc["consumedCapacity"] = {n: str(Fraction(q))
                                   for n, q in sorted(r.consumed_capacity)}
    return doc


def extended_claim_status(objects: DRAObjects, bound: Iterable[Pod]
                          ) -> dict[str, dict[str, Any]]:
    """The ``extendedResourceClaimStatus`` of a SimulationResult (docs/dra.md#results): for
    every bound pod whose ``status.extendedResourceClaimStatus`` PreBind patched
    (patchPodExtendedResourceClaimStatus, extendeddynamicresources.go), its
    ``resourceClaimName`` and ``requestMappings`` (containerName, resourceName, requestName,
    in the order of the node's mappings); or, for a pod of the input that had one (a bound
    holder of such a claim), that status: the upstream subject reads every bound pod's
    status from its API server (``extendedClaimStatuses``, upstream/dra.go)."""
    status = objects.extended_resource_claim_status
    out: dict[str, dict[str, Any]] = {}
    for pod in sorted(bound, key=lambda p: p.key):
        s = status.get(pod.uid, pod.extended_resource_claim_status)
        if s is not None:
            out[pod.key] = s
    return out


def claim_results(objects: DRAObjects, bound: Iterable[Pod]) -> dict[str, list[dict[str, Any]]]:
    """The ``resourceClaims`` of a SimulationResult (docs/dra.md#results), as the upstream
    subject reads them back after its run: for every bound pod with ``spec.resourceClaims``,
    one entry per item in spec order, ``name`` (the item), ``claim`` (``resourceclaim.Name``,
    None when there is none or it cannot be named yet) and ``allocation`` (the claim's
    ``status.allocation`` devices at the end of the run, None when not allocated); then, for a
    pod whose extended resources got a claim (``status.extendedResourceClaimStatus``), an
    entry named ``<extended-resources>`` for it."""
    out: dict[str, list[dict[str, Any]]] = {}
    extended = {c.owner_pod_uid: c for c in objects.claims.values()
                if dict(c.annotations).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) == "true"}
    for pod in sorted(bound, key=lambda p: p.key):
        ext = extended.get(pod.uid)
        if not pod.resource_claim_sources and ext is None:
            continue
        entries: list[dict[str, Any]] = []
        for pc in pod.resource_claim_sources:
            try:
                name, _ = claim_name(pod, pc)
            except ClaimNameError:
                name = None
            claim = None if name is None else objects.claims.get(f"{pod.namespace}/{name}")
            entries.append({"name": pc.name, "claim": name, "allocation": _allocation_doc(claim)})
        if ext is not None:
            entries.append({"name": SPECIAL_CLAIM_IN_MEM_NAME, "claim": ext.name,
                            "allocation": _allocation_doc(ext)})
        out[pod.key] = entries
    return out
