"""The resource.k8s.io/v1 objects of Dynamic Resource Allocation, as the structured allocator
reads them: DeviceClass, ResourceClaim (and its template), ResourceSlice, DeviceTaintRule.

Upstream: ``k8s.io/api/resource/v1/types.go`` of v1.37.2. Field names follow the API
(snake_cased). Quantities are exact ``Fraction``s; attribute values keep their CEL type
(``int``, ``bool``, ``str``, or :class:`Version` for a semver string). The loader
(``loader/resource.py``) builds them into ``Cluster.dra``; the DynamicResources plugin
allocates and reserves claims there (docs/dra.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from reference_impl.model.node_selector import NodeSelector

# resourceapi.DeviceAllocationMode (types.go).
ALLOCATION_MODE_EXACT_COUNT = "ExactCount"
ALLOCATION_MODE_ALL = "All"
# resourceapi.DeviceTaintEffect.
DEVICE_TAINT_NO_SCHEDULE = "NoSchedule"
DEVICE_TAINT_NO_EXECUTE = "NoExecute"
DEVICE_TAINT_NONE = "None"


@dataclass(slots=True, frozen=True)
class Version:
    """A ``version`` attribute: a semantic version string (DeviceAttribute.VersionValue)."""

    text: str


AttributeValue = int | bool | str | Version


@dataclass(slots=True, frozen=True)
class DeviceCapacity:
    """resourceapi.DeviceCapacity: ``value`` and, for consumable capacity, the raw
    ``requestPolicy`` (kept as given; not interpreted yet)."""

    value: Fraction
    request_policy: dict | None = None


@dataclass(slots=True, frozen=True)
class DeviceTaint:
    key: str
    value: str = ""
    effect: str = DEVICE_TAINT_NO_SCHEDULE


@dataclass(slots=True, frozen=True)
class DeviceCounterConsumption:
    """resourceapi.DeviceCounterConsumption: counters taken from the shared counter set
    ``counter_set``."""

    counter_set: str
    counters: tuple[tuple[str, Fraction], ...]


@dataclass(slots=True, frozen=True)
class CounterSet:
    """resourceapi.CounterSet of a slice's ``sharedCounters``."""

    name: str
    counters: tuple[tuple[str, Fraction], ...]


@dataclass(slots=True, frozen=True)
class Device:
    """resourceapi.Device. ``attributes``/``capacity`` keys are qualified names as written
    (``model`` or ``gpu.example.com/model``); a name without a domain belongs to the driver's
    domain. The node fields are set only with the slice's ``perDeviceNodeSelection``."""

    name: str
    attributes: tuple[tuple[str, AttributeValue], ...] = ()
    capacity: tuple[tuple[str, DeviceCapacity], ...] = ()
    consumes_counters: tuple[DeviceCounterConsumption, ...] = ()
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: tuple[DeviceTaint, ...] = ()
    binds_to_node: bool | None = None
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()
    allow_multiple_allocations: bool | None = None


@dataclass(slots=True, frozen=True)
class ResourceSlice:
    """resourceapi.ResourceSlice: one slice of a pool (``pool``, ``generation``,
    ``resource_slice_count``) of ``driver``, with exactly one of the node fields set."""

    name: str
    driver: str
    pool: str
    generation: int
    resource_slice_count: int
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    per_device_node_selection: bool | None = None
    devices: tuple[Device, ...] = ()
    shared_counters: tuple[CounterSet, ...] = ()
    order: int = 0


@dataclass(slots=True, frozen=True)
class DeviceSelector:
    """resourceapi.DeviceSelector: a CEL expression (the only kind in v1)."""

    cel: str


@dataclass(slots=True, frozen=True)
class DeviceToleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None


@dataclass(slots=True, frozen=True)
class CapacityRequirements:
    requests: tuple[tuple[str, Fraction], ...] = ()


@dataclass(slots=True, frozen=True)
class ExactDeviceRequest:
    """resourceapi.ExactDeviceRequest (also the shape of a DeviceSubRequest, without
    ``admin_access``); ``count`` is 1 by default in ExactCount mode."""

    device_class_name: str
    selectors: tuple[DeviceSelector, ...] = ()
    allocation_mode: str = ALLOCATION_MODE_EXACT_COUNT
    count: int = 1
    admin_access: bool | None = None
    tolerations: tuple[DeviceToleration, ...] = ()
    capacity: CapacityRequirements | None = None


@dataclass(slots=True, frozen=True)
class DeviceSubRequest:
    name: str
    exactly: ExactDeviceRequest


@dataclass(slots=True, frozen=True)
class DeviceRequest:
    """resourceapi.DeviceRequest: exactly one of ``exactly`` and ``first_available``."""

    name: str
    exactly: ExactDeviceRequest | None = None
    first_available: tuple[DeviceSubRequest, ...] = ()


@dataclass(slots=True, frozen=True)
class DeviceConstraint:
    """resourceapi.DeviceConstraint: ``requests`` empty means every request of the claim."""

    requests: tuple[str, ...] = ()
    match_attribute: str | None = None
    distinct_attribute: str | None = None


#: resourceapi.AllocationConfigSource
ALLOCATION_CONFIG_SOURCE_CLASS = "FromClass"
ALLOCATION_CONFIG_SOURCE_CLAIM = "FromClaim"


@dataclass(slots=True, frozen=True)
class OpaqueDeviceConfiguration:
    """resourceapi.OpaqueDeviceConfiguration (the only kind of DeviceConfiguration in v1):
    ``parameters`` is the compact JSON text of the given object (its RawExtension), kept as
    given: nothing in the scheduler reads it."""

    driver: str
    parameters: str


@dataclass(slots=True, frozen=True)
class DeviceClaimConfiguration:
    """resourceapi.DeviceClaimConfiguration (a claim's ``spec.devices.config[]``):
    ``requests`` names requests or ``request/subrequest``s; empty means all of them."""

    opaque: OpaqueDeviceConfiguration
    requests: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class DeviceAllocationConfiguration:
    """resourceapi.DeviceAllocationConfiguration (``status.allocation.devices.config[]``):
    ``source`` is :data:`ALLOCATION_CONFIG_SOURCE_CLASS` or ``..._CLAIM``; ``requests``
    empty means every request of the claim."""

    source: str
    opaque: OpaqueDeviceConfiguration
    requests: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class DeviceRequestAllocationResult:
    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool | None = None
    share_id: str | None = None
    consumed_capacity: tuple[tuple[str, Fraction], ...] = ()
    #: the (sub)request's tolerations, copied by the allocator (allocator_incubating.go,
    #: Allocate: ``Tolerations: internal.lookupRequest(claim).tolerations()``)
    tolerations: tuple[DeviceToleration, ...] = ()
    #: the device's ``bindingConditions`` / ``bindingFailureConditions``, copied by the
    #: allocator with DeviceBindingAndStatus (allocator_incubating.go)
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class AllocationResult:
    results: tuple[DeviceRequestAllocationResult, ...] = ()
    node_selector: NodeSelector | None = None
    #: ``allocationTimestamp`` in seconds since the epoch; PreBind (bindClaim) sets it with
    #: DRADeviceBindingConditions and DRAResourceClaimDeviceStatus
    allocation_timestamp: float | None = None
    #: ``devices.config``: the class and claim configurations of the allocated requests
    config: tuple[DeviceAllocationConfiguration, ...] = ()


@dataclass(slots=True, frozen=True)
class DeviceCondition:
    """metav1.Condition of an allocated device's status (``status`` True/False/Unknown)."""

    type: str
    status: str
    reason: str = ""
    message: str = ""


@dataclass(slots=True, frozen=True)
class AllocatedDeviceStatus:
    """resourceapi.AllocatedDeviceStatus (a claim's ``status.devices[]``): the conditions a
    driver reported for one allocated device. Only the fields the scheduler reads."""

    driver: str
    pool: str
    device: str
    conditions: tuple[DeviceCondition, ...] = ()


@dataclass(slots=True, frozen=True)
class ResourceClaimConsumerReference:
    resource: str
    name: str
    uid: str
    api_group: str = ""


@dataclass(slots=True, frozen=True)
class ResourceClaimSpec:
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    #: ``devices.config``
    config: tuple[DeviceClaimConfiguration, ...] = ()


#: ``resourceapi.Finalizer``: DynamicResources adds it to a claim it allocates (bindClaim,
#: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go); the resourceclaim
#: controller deallocates only a claim that has it (syncClaim, pkg/controller/resourceclaim/
#: controller.go)
CLAIM_FINALIZER = "resource.kubernetes.io/delete-protection"


@dataclass(slots=True, frozen=True)
class ResourceClaim:
    namespace: str
    name: str
    uid: str
    spec: ResourceClaimSpec = field(default_factory=ResourceClaimSpec)
    allocation: AllocationResult | None = None
    reserved_for: tuple[ResourceClaimConsumerReference, ...] = ()
    annotations: tuple[tuple[str, str], ...] = ()
    owner_pod_uid: str | None = None  # the controller ownerReference's uid, if a Pod
    labels: tuple[tuple[str, str], ...] = ()
    deleting: bool = False
    #: ``status.devices``: the drivers' device statuses (binding conditions)
    devices: tuple[AllocatedDeviceStatus, ...] = ()
    #: ``metadata.finalizers`` (DynamicResources' PreBind adds ``CLAIM_FINALIZER`` when it
    #: writes an allocation; the resourceclaim controller removes it: claim_cleanup.py)
    finalizers: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class ResourceClaimTemplate:
    namespace: str
    name: str
    spec: ResourceClaimSpec = field(default_factory=ResourceClaimSpec)
    labels: tuple[tuple[str, str], ...] = ()
    annotations: tuple[tuple[str, str], ...] = ()


@dataclass(slots=True, frozen=True)
class DeviceTaintSelector:
    """resourceapi.DeviceTaintSelector: each set field must equal the slice's ``driver``, the
    slice's pool name, the device's name; unset fields match anything (the tombstoned
    ``deviceClassName`` and ``selectors`` are not served in v1)."""

    driver: str | None = None
    pool: str | None = None
    device: str | None = None


@dataclass(slots=True, frozen=True)
class DeviceTaintRule:
    """resourceapi.DeviceTaintRule (cluster-scoped): ``taint`` goes onto every device the
    ``device_selector`` selects; without a selector no device is selected. ``order`` is the
    position among the input's rules (``dra/taintrules.py``)."""

    name: str
    device_selector: DeviceTaintSelector | None
    taint: DeviceTaint
    order: int = 0


@dataclass(slots=True, frozen=True)
class DeviceClass:
    name: str
    selectors: tuple[DeviceSelector, ...] = ()
    extended_resource_name: str | None = None
    #: ``spec.config`` (DeviceClassConfiguration: no ``requests``)
    config: tuple[OpaqueDeviceConfiguration, ...] = ()


#: ``ConsumedCapacity`` (structured/schedulerapi): capacity name -> quantity
Consumed = dict[str, Fraction]


def insert(collection: dict[tuple[str, str, str], Consumed], device: tuple[str, str, str],
           consumed: Mapping[str, Fraction]) -> None:
    """``ConsumedCapacityCollection.Insert``: add to the device's entry (created, possibly
    empty, if missing)."""
    entry = collection.setdefault(device, {})
    for name, q in consumed.items():
        entry[name] = entry.get(name, Fraction(0)) + q


def remove(collection: dict[tuple[str, str, str], Consumed], device: tuple[str, str, str],
           consumed: Mapping[str, Fraction]) -> None:
    """``ConsumedCapacityCollection.Remove``: subtract the names the entry has; an entry left
    all zero (``Empty``) is dropped."""
    entry = collection.get(device)
    if entry is None:
        return
    for name, q in consumed.items():
        if name in entry:
            entry[name] -= q
    if all(q == 0 for q in entry.values()):
        del collection[device]


@dataclass(slots=True)
class AllocatedState:
    """``structured.AllocatedState``: dedicated devices, the devices of shared allocations
    (``AllocatedSharedDeviceIDs`` without the share IDs, which only the allocator's "in use"
    questions read) and the capacity the shares consume (``AggregatedCapacity``)."""

    allocated: set[tuple[str, str, str]] = field(default_factory=set)
    shared: set[tuple[str, str, str]] = field(default_factory=set)
    aggregated_capacity: dict[tuple[str, str, str], Consumed] = field(default_factory=dict)

    def add_claim(self, claim: ResourceClaim, consumable_capacity: bool) -> None:
        """``foreachAllocatedDevice`` with the three callbacks (``addDevices``): with
        DRAConsumableCapacity a result with a share ID is a share (its consumed capacity
        aggregated), else the device is dedicated; admin access results do not count."""
        self._foreach(claim, consumable_capacity, add=True)

    def remove_claim(self, claim: ResourceClaim, consumable_capacity: bool) -> None:
        """``removeDevices``: the same devices taken out of the sets (whichever claim else
        holds them) and their consumed capacity subtracted."""
        self._foreach(claim, consumable_capacity, add=False)

    def _foreach(self, claim: ResourceClaim, consumable_capacity: bool, add: bool) -> None:
        if claim.allocation is None:
            return
        for r in claim.allocation.results:
            if r.admin_access:
                continue
            device_id = (r.driver, r.pool, r.device)
            if consumable_capacity and r.share_id is not None:
                (self.shared.add if add else self.shared.discard)(device_id)
                if r.consumed_capacity:
                    (insert if add else remove)(self.aggregated_capacity, device_id,
                                                {n: Fraction(q) for n, q in r.consumed_capacity})
                continue
            (self.allocated.add if add else self.allocated.discard)(device_id)

    def copy(self) -> AllocatedState:
        return AllocatedState(set(self.allocated), set(self.shared),
                              {d: dict(c) for d, c in self.aggregated_capacity.items()})


@dataclass(slots=True)
class AllocatedDevices:
    """``allocatedDevices`` (pkg/scheduler/framework/plugins/dynamicresources/
    allocateddevices.go of v1.37.2): sets kept by the claims' Add, Update and Delete events,
    not a view of the claims. A claim whose allocation is dropped or that is deleted takes its
    devices out even when another claim holds them too (``removeDevices``), and an Update
    from one allocation to another changes nothing (``onUpdate``: "both non-nil"). Kept for
    both settings of DRAConsumableCapacity (read when the tracker is made upstream)."""

    dedicated: AllocatedState = field(default_factory=AllocatedState)
    consumable: AllocatedState = field(default_factory=AllocatedState)

    @classmethod
    def of(cls, claims: Iterable[ResourceClaim]) -> AllocatedDevices:
        """The informer's initial list: an Add of each claim."""
        out = cls()
        for claim in claims:
            out.on_add(claim)
        return out

    def on_add(self, claim: ResourceClaim) -> None:
        self.dedicated.add_claim(claim, False)
        self.consumable.add_claim(claim, True)

    def on_delete(self, claim: ResourceClaim) -> None:
        self.dedicated.remove_claim(claim, False)
        self.consumable.remove_claim(claim, True)

    def on_update(self, old: ResourceClaim, new: ResourceClaim) -> None:
        if old.allocation is None and new.allocation is not None:
            self.on_add(new)
        elif old.allocation is not None and new.allocation is None:
            self.on_delete(old)

    def state(self, consumable_capacity: bool) -> AllocatedState:
        """A copy (``Get``, ``GetSharedDeviceIDs``, ``Capacities``)."""
        return (self.consumable if consumable_capacity else self.dedicated).copy()


@dataclass(slots=True)
class DRAObjects:
    """The DRA objects of a cluster, by key: classes by name, claims and templates by
    ``namespace/name``, slices in input order."""

    device_classes: dict[str, DeviceClass] = field(default_factory=dict)
    claims: dict[str, ResourceClaim] = field(default_factory=dict)
    claim_templates: dict[str, ResourceClaimTemplate] = field(default_factory=dict)
    slices: list[ResourceSlice] = field(default_factory=list)
    #: DeviceTaintRules, in input order; applied to the slices only with DRADeviceTaintRules
    #: (``DRAManager.list_slices``)
    taint_rules: list[DeviceTaintRule] = field(default_factory=list)
    #: ``metadata.generateName`` counters of the claims the scheduler created, by
    #: (namespace, base) (generated_names.py)
    generated: dict[tuple[str, str], int] = field(default_factory=dict)
    #: pods' ``status.extendedResourceClaimStatus`` as DynamicResources' PreBind patched it
    #: (patchPodExtendedResourceClaimStatus), by pod uid: ``resourceClaimName`` and
    #: ``requestMappings`` (``containerName``, ``resourceName``, ``requestName``)
    extended_resource_claim_status: dict[str, dict[str, object]] = field(default_factory=dict)
    #: the DRA manager's ``allocatedDevices``, fed by ``write_claim``; None until the first
    #: claim written after loading (the initial list: the claims then)
    allocated_devices: AllocatedDevices | None = None

    def write_claim(self, key: str, claim: ResourceClaim | None) -> ResourceClaim | None:
        """Create or replace (``claim``) or delete (None) the claim ``key``, with its Add,
        Update or Delete event to ``allocated_devices``; the claim it replaced."""
        if self.allocated_devices is None:
            self.allocated_devices = AllocatedDevices.of(self.claims.values())
        old = self.claims.pop(key, None) if claim is None else self.claims.get(key)
        if claim is not None:
            self.claims[key] = claim
            if old is None:
                self.allocated_devices.on_add(claim)
            else:
                self.allocated_devices.on_update(old, claim)
        elif old is not None:
            self.allocated_devices.on_delete(old)
        return old

    def allocated_state(self, consumable_capacity: bool) -> AllocatedState:
        """What ``allocated_devices`` holds (the claims' devices before any write)."""
        tracker = self.allocated_devices or AllocatedDevices.of(self.claims.values())
        return tracker.state(consumable_capacity)

    def __bool__(self) -> bool:
        return bool(self.device_classes or self.claims or self.claim_templates or self.slices
                    or self.taint_rules)
