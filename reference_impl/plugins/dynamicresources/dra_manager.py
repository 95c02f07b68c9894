"""The DRA objects the plugin reads and the claims it assumes: ``DefaultDRAManager`` and its
``claimTracker`` (``dra_manager.go``); the allocated-device sets of ``allocateddevices.go``
are ``DRAObjects.allocated_devices`` (model/dra.py), kept by every write of a claim.

Upstream: ``pkg/scheduler/framework/plugins/dynamicresources/dra_manager.go`` and
``allocateddevices.go`` of v1.37.2. The claims live in the cluster state (``Cluster.dra``), so
an allocation written by PreBind is seen by every later pod; allocations made in Reserve and
not yet written are "in flight" here until PreBind or Unreserve.
"""

from __future__ import annotations

import dataclasses

from reference_impl.dra.allocator import DeviceID
from reference_impl.dra.extendedresourcecache import ExtendedResourceCache
from reference_impl.dra.taintrules import list_patched_slices
from reference_impl.model.dra import (
    AllocatedState,
    AllocationResult,
    DeviceClass,
    DRAObjects,
    ResourceClaim,
    ResourceSlice,
)
from reference_impl.model.generated_names import generate_name, generated_uid


class ClaimNotFound(Exception):
    """``assumecache.NotFoundError``: ``could not find ResourceClaim "<ns>/<name>"``."""


def foreach_allocated_device(claim: ResourceClaim) -> list[DeviceID]:
    """``foreachAllocatedDevice`` (allocateddevices.go): the devices of the claim's allocation,
    except those allocated with admin access ("Is not considered as allocated")."""
    if claim.allocation is None:
        return []
    return [(r.driver, r.pool, r.device) for r in claim.allocation.results
            if not r.admin_access]


#: the variants of switch dra-in-flight-allocations (DynamicResources' PreBind and the
#: in-flight allocations' sharers)
IN_FLIGHT_RULES = ("overwrite-per-claim", "shared-per-claim", "shared-after-prebind")


class DRAManager:
    """``DefaultDRAManager``: claims (the assume cache plus in-flight allocations), slices
    and classes of one cluster."""

    def __init__(self, objects: DRAObjects, device_taint_rules: bool = False,
                 shared_in_flight: bool = True) -> None:
        self.objects = objects
        #: switch dra-in-flight-allocations: sharers (v1.36+), else a signal overwrites
        self.shared_in_flight = shared_in_flight
        #: the tracker's ``EnableDeviceTaintRules`` (the DRADeviceTaintRules gate,
        #: pkg/scheduler/scheduler.go)
        self.device_taint_rules = device_taint_rules
        #: ``inFlightAllocations``: claim uid -> the claim with its pending allocation
        self.in_flight: dict[str, ResourceClaim] = {}
        #: ``inFlightAllocation.sharers``: claim uid -> the Reserves sharing it (a claim a pod
        #: lists twice is signalled twice)
        self.sharers: dict[str, int] = {}

    # ResourceClaims()

    def get_claim(self, namespace: str, name: str) -> ResourceClaim:
        """``claimTracker.Get``."""
        key = f"{namespace}/{name}"
        claim = self.objects.claims.get(key)
        if claim is None:
            raise ClaimNotFound(f'could not find ResourceClaim "{key}"')
        return claim

    def get_pending_allocation(self, uid: str) -> AllocationResult | None:
        """``GetPendingAllocation``."""
        claim = self.in_flight.get(uid)
        return None if claim is None else claim.allocation

    def signal_claim_pending_allocation(self, uid: str, claim: ResourceClaim) -> None:
        """``SignalClaimPendingAllocation`` (dra_manager.go): ``claim`` carries the
        allocation; a claim already in flight gets one more sharer (before v1.36: the
        claim is stored over it, and any remove deletes it)."""
        if uid in self.in_flight and self.shared_in_flight:
            self.sharers[uid] += 1
            return
        self.in_flight[uid] = claim
        self.sharers[uid] = 1

    def maybe_remove_claim_pending_allocation(self, uid: str, force: bool = False) -> bool:
        """``MaybeRemoveClaimPendingAllocation`` (dra_manager.go): the allocation leaves the
        in-flight set with its last sharer, or at once with ``force`` (PreBind's success);
        True when it left."""
        if uid not in self.in_flight:
            return False
        if force or not self.shared_in_flight or self.sharers[uid] == 1:
            del self.in_flight[uid]
            del self.sharers[uid]
            return True
        self.sharers[uid] -= 1
        return False

    def assume_claim_after_api_call(self, claim: ResourceClaim) -> None:
        """``AssumeClaimAfterAPICall``: the status update of PreBind, here the cluster's (the
        assume cache's Update event to ``allocatedDevices``)."""
        self.objects.write_claim(f"{claim.namespace}/{claim.name}", claim)

    def assumed_claim_restore(self, key: str, api_obj: ResourceClaim | None
                              ) -> tuple[ResourceClaim, ResourceClaim] | None:
        """``AssumedClaimRestore`` (Unreserve, once the allocation left the in-flight set):
        the assume cache's latestObj goes back to its apiObj, with an Update event when they
        differ (assume_cache.go ``Restore``), returned as (old, new). ``api_obj``: the claim
        before the write PreBind assumed (the informer's delivery of that version is not
        newer, assume_cache.go 255-260); None when PreBind wrote nothing (no difference).
        From the allocated claim to the one before, it reads as a deallocation to the
        queueing hints and to allocatedDevices."""
        current = self.objects.claims.get(key)
        if api_obj is None or current is None or current is api_obj:
            return None
        self.objects.write_claim(key, api_obj)
        return current, api_obj

    def list_all_allocated_devices(self) -> set[DeviceID]:
        """``ListAllAllocatedDevices``: the devices of ``allocatedDevices`` (the claims'
        events: ``DRAObjects.allocated_devices``) and of the allocations in flight."""
        allocated = self.objects.allocated_state(False).allocated
        for claim in self.in_flight.values():
            allocated.update(foreach_allocated_device(claim))
        return allocated

    def gather_allocated_state(self, consumable_capacity: bool) -> AllocatedState:
        """``GatherAllocatedState`` (with DRAConsumableCapacity; without it PreFilter uses
        ``ListAllAllocatedDevices``, every device dedicated): the allocated claims and those
        in flight."""
        state = self.objects.allocated_state(consumable_capacity)
        for claim in self.in_flight.values():
            state.add_claim(claim, consumable_capacity)
        return state

    # ResourceSlices(), DeviceClasses()

    def list_slices(self) -> list[ResourceSlice]:
        """``ListWithDeviceTaintRules``: the tracker's patched slices (``dra/taintrules.py``)."""
        return list_patched_slices(self.objects.slices, self.objects.taint_rules,
                                   self.device_taint_rules)

    def get_device_class(self, name: str) -> DeviceClass | None:
        return self.objects.device_classes.get(name)

    def device_class_resolver(self, enabled: bool) -> ExtendedResourceCache:
        """``DeviceClassResolver``: the extended resource cache of the classes (empty
        without the DRAExtendedResource gate)."""
        return ExtendedResourceCache(self.objects.device_classes.values() if enabled else ())

    # the API server

    def create_claim(self, claim: ResourceClaim, generate_name_base: str) -> ResourceClaim:
        """``ResourceClaims(ns).Create`` of a claim with only ``generateName``: the API
        server names it (``generate_name`` with the key ``ResourceClaim/<ns>/<n>``, n counting
        the claims created with that base, skipping names taken) and gives it a uid."""
        ns = claim.namespace
        n = self.objects.generated.get((ns, generate_name_base), 0)
        self.objects.generated[(ns, generate_name_base)] = n + 1
        name = generate_name(generate_name_base, f"ResourceClaim/{ns}/{n}")
        while f"{ns}/{name}" in self.objects.claims:
            n += 1
            name = generate_name(generate_name_base, f"ResourceClaim/{ns}/{n}")
        created = dataclasses.replace(claim, name=name, uid=generated_uid(ns, name),
                                      allocation=None)
        self.objects.write_claim(f"{ns}/{name}", created)
        return created

    def delete_claim(self, claim: ResourceClaim) -> None:
        """``deleteClaim`` (extendeddynamicresources.go): drop the finalizer and delete."""
        self.objects.write_claim(f"{claim.namespace}/{claim.name}", None)
