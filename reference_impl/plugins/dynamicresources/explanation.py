"""What ``kschedconf explain`` shows of DynamicResources for the selected node: the devices
each claim would get and the pod's ``status.extendedResourceClaimStatus``.

No upstream counterpart: it reads the plugin's cycle state after Filter
(``stateData.nodeAllocations`` of pkg/scheduler/framework/plugins/dynamicresources/
dynamicresources.go, v1.37.2), what Reserve would put in flight and PreBind (``bindClaim``,
``patchPodExtendedResourceClaimStatus`` of extendeddynamicresources.go) would write. The
entries have the shape of a SimulationResult's ``resourceClaims`` and
``extendedResourceClaimStatus`` (docs/dra.md#results); the special claim's name is known only
if an earlier cycle created it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference_impl.model.dra import AllocationResult
from reference_impl.plugins.dynamicresources.claims import ClaimStore, allocation_doc
from reference_impl.plugins.dynamicresources.extendeddynamicresources import (
    SPECIAL_CLAIM_IN_MEM_NAME,
    ContainerExtendedResourceRequest,
    is_special_claim_name,
)


def selected_node_claims(store: ClaimStore, allocations: Sequence[AllocationResult]
                         ) -> list[dict[str, Any]]:
    """The pod's claims in ``claimStore`` order: ``name`` (the pod's entry, or
    ``<extended-resources>``), ``claim`` (None for a special claim not created yet) and
    ``allocation``: an allocated claim's own, a claim to allocate Filter's allocation for the
    node (``allocations``, in ``toAllocate`` order), None when there is none."""
    fresh = iter(allocations)
    out: list[dict[str, Any]] = []
    for i, c in store.all():
        allocation = c.allocation if c.allocation is not None else next(fresh, None)
        if store.is_extended(i):
            name = SPECIAL_CLAIM_IN_MEM_NAME
            claim = None if is_special_claim_name(c.name) else c.name
        else:
            name, claim = store.pod_claim_names[i], c.name
        out.append({"name": name, "claim": claim,
                    "allocation": None if allocation is None else allocation_doc(allocation)})
    return out


def extended_resource_claim_status(store: ClaimStore,
                                   mappings: Sequence[ContainerExtendedResourceRequest]
                                   ) -> dict[str, Any] | None:
    """The ``status.extendedResourceClaimStatus`` PreBind would patch: the request mappings
    of the node's variant of the special claim, and ``resourceClaimName`` when the claim
    exists already; None without a special claim or mappings (the node's device plugins serve
    the extended resources, or PreBind would fail: docs/upstream-deviations.md,
    upstream-dra-extended-resource-empty-mappings)."""
    ext = store.extended_resource_claim()
    if ext is None or not mappings:
        return None
    doc: dict[str, Any] = {}
    if not is_special_claim_name(ext.name):
        doc["resourceClaimName"] = ext.name
    doc["requestMappings"] = [{"containerName": m.container_name,
                               "resourceName": m.resource_name,
                               "requestName": m.request_name} for m in mappings]
    return doc
