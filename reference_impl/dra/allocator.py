"""The structured allocator, "incubating" variant of v0.37.2 (the one ``structured.NewAllocator``
picks for v1.37.2's default features): depth-first search with backtracking over pools,
slices and devices, ``firstAvailable`` subrequests, consumable capacity and binding
conditions. Upstream: k8s.io/dynamic-resource-allocation/structured/internal/incubating/
allocator_incubating.go and constraint.go (v0.37.2). The search order and what is not
modelled: docs/dra.md#module-notes."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from fractions import Fraction

from reference_impl.dra.capacity import (
    CapacityError,
    Consumed,
    consumed_from_request,
    request_fits,
)
from reference_impl.dra.cel import (
    DEFAULT_OPTIONS,
    CELCompileError,
    CELMatchError,
    CELOptions,
    CompiledSelector,
    DeviceView,
)
from reference_impl.dra.cel_runtime_cost import compile_selector
from reference_impl.dra.constraints import Constraint, DeviceID
from reference_impl.dra.pools import Pool, PoolID, gather_pools, node_matches
from reference_impl.model.dra import (
    ALLOCATION_CONFIG_SOURCE_CLAIM,
    ALLOCATION_CONFIG_SOURCE_CLASS,
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    DEVICE_TAINT_NO_EXECUTE,
    DEVICE_TAINT_NO_SCHEDULE,
    AllocationResult,
    Device,
    DeviceAllocationConfiguration,
    DeviceClass,
    DeviceRequest,
    DeviceRequestAllocationResult,
    DeviceSelector,
    DeviceTaint,
    DeviceToleration,
    ExactDeviceRequest,
    OpaqueDeviceConfiguration,
    ResourceClaim,
    ResourceSlice,
    insert,
    remove,
)
from reference_impl.model.objects import (
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)

#: resourceapi.AllocationResultsMaxSize
ALLOCATION_RESULTS_MAX_SIZE = 32

#: the namespace of the reference's deterministic ``shareID``s (docs/dra.md)
SHARE_ID_NAMESPACE = uuid.UUID("6b7e1d2c-5a4f-4c1e-9a39-6f0d2b8c9e11")


#: ``cel.EnhanceRuntimeError`` (k8s.io/dynamic-resource-allocation v0.37.2 cel/errors.go
#: 40-64, called by the allocators' selectorsMatch, e.g. allocator_stable.go 1107-1112): the
#: hint appended to a CEL runtime error whose message contains ``no such key:``
CEL_NO_SUCH_KEY_HINT = (
    ". consider using CEL optional chaining (.? followed by orValue()) or "
    "guarding the check with has() for optional fields"
)


class AllocatorError(Exception):
    """An allocation error (upstream's ``error`` return): the message is upstream's."""


class _MaxSizeExceeded(Exception):
    """``errAllocationResultMaxSizeExceeded``."""


def _claim_key(claim: ResourceClaim) -> str:
    """``klog.KObj(claim)``."""
    return f"{claim.namespace}/{claim.name}" if claim.namespace else claim.name


@dataclass(slots=True)
class _Result:
    """``internalDeviceResult``: ``consumed`` is None without a share."""

    data: _RequestData
    device_id: DeviceID
    device: Device
    slice: ResourceSlice
    shared: bool = False
    consumed: Consumed | None = None


@dataclass(slots=True)
class _RequestData:
    """``requestData``: the (sub)request, its parent, class and how many devices."""

    name: str
    exactly: ExactDeviceRequest
    parent: str | None = None
    class_: DeviceClass | None = None
    num_devices: int = 0
    selected_sub_request_index: int = 0
    all_devices: list[tuple[DeviceID, Device, ResourceSlice, Pool]] = field(default_factory=list)

    @property
    def request_name(self) -> str:
        return f"{self.parent}/{self.name}" if self.parent is not None else self.name


def taint_tolerated(toleration: DeviceToleration, taint: DeviceTaint) -> bool:
    """``resourceclaim.ToleratesTaint``."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    return toleration.operator == "Exists"


def taint_prevents_allocation(device: Device, request: ExactDeviceRequest) -> bool:
    """``taintPreventsAllocation``: a NoSchedule/NoExecute taint no toleration tolerates."""
    return any(
        t.effect in (DEVICE_TAINT_NO_EXECUTE, DEVICE_TAINT_NO_SCHEDULE)
        and not any(taint_tolerated(tol, t) for tol in request.tolerations)
        for t in device.taints
    )


class Allocator:
    """``incubating.Allocator``: ``allocated``: ``AllocatedState.AllocatedDevices``."""

    def __init__(
        self,
        allocated: set[DeviceID],
        classes: Mapping[str, DeviceClass],
        slices: Sequence[ResourceSlice],
        *,
        partitionable: bool = True,
        device_taints: bool = True,
        admin_access: bool = True,
        prioritized_list: bool = True,
        consumable_capacity: bool = True,
        fractional_capacity_range: bool = True,
        device_binding_and_status: bool = True,
        binding_pools_last: bool = True,
        capacity_gate_check: str = "subrequest",
        cel_no_such_key_hint: bool = True,
        cel_options: CELOptions = DEFAULT_OPTIONS,
        config_result: str = "once-cleared",
        counter_slices: str = "node-selection",
        shared: Set[DeviceID] = frozenset(),
        aggregated_capacity: Mapping[DeviceID, Mapping[str, Fraction]] | None = None,
    ) -> None:
        self.allocated = allocated
        #: the devices of ``AllocatedState.AllocatedSharedDeviceIDs`` (share IDs dropped)
        self.shared = shared
        #: ``AllocatedState.AggregatedCapacity``
        self.aggregated_capacity = dict(aggregated_capacity or {})
        self.consumable_capacity = consumable_capacity
        self.fractional_capacity_range = fractional_capacity_range
        #: Features.DeviceBindingAndStatus (DRADeviceBindingConditions and
        #: DRAResourceClaimDeviceStatus)
        self.device_binding_and_status = device_binding_and_status
        #: whether the variant the features select tries pools with binding conditions last
        #: (reference_impl/dra/variants.py)
        self.binding_pools_last = binding_pools_last
        #: with DRAConsumableCapacity off: whether the variant refuses capacity requests and
        #: how it names a subrequest's ("none", "request", "subrequest"; dra/variants.py)
        self.capacity_gate_check = capacity_gate_check
        #: switch dra-cel-no-such-key-hint: whether a CEL runtime error for a missing key gets
        #: ``cel.EnhanceRuntimeError``'s hint
        self.cel_no_such_key_hint = cel_no_such_key_hint
        #: switches dra-cel-includes and dra-cel-go: the selectors' CEL (dra/cel.py)
        self.cel_options = cel_options
        #: switch dra-config-result (releases/behaviours.py): "once-cleared" (v0.37.2) or
        #: "per-matching-request" (v0.34.4 to v0.36.3)
        if config_result not in ("once-cleared", "per-matching-request"):
            raise ValueError(f"unknown dra-config-result variant {config_result!r}")
        self.config_result = config_result
        self.counter_slices = counter_slices  # switch dra-counter-slices-relevant
        self.classes = classes
        self.all_slices = list(slices)
        self.slices_on_node: dict[str, list[ResourceSlice]] = {}
        self.slices_shared: list[ResourceSlice] = []
        for s in slices:
            if s.node_name:
                self.slices_on_node.setdefault(s.node_name, []).append(s)
            else:
                self.slices_shared.append(s)
        self.partitionable = partitionable
        self.device_taints = device_taints
        self.admin_access = admin_access
        self.prioritized_list = prioritized_list
        self._cel: dict[str, CompiledSelector | CELCompileError] = {}
        #: ``Stats.NumAllocateOneInvocations``, over all ``allocate`` calls
        self.num_allocate_one_invocations = 0

    def slices_for(self, node: Node) -> list[ResourceSlice]:
        """``GatherPools``' slices for ``node``: its own, those of no node, and with
        ``counter_slices`` "always" the other nodes' slices with shared counters."""
        out = self.slices_on_node.get(node.name, []) + self.slices_shared
        if self.counter_slices == "always":
            out += [s for n, ss in self.slices_on_node.items() if n != node.name
                    for s in ss if s.shared_counters]
        return out

    def compiled(self, expression: str) -> CompiledSelector | CELCompileError:
        """``cel.Cache.GetOrCompile``."""
        got = self._cel.get(expression)
        if got is None:
            try:
                got = compile_selector(expression, options=self.cel_options)
            except CELCompileError as e:
                got = e
            self._cel[expression] = got
        return got

    def allocate(
        self, node: Node, claims: Sequence[ResourceClaim]
    ) -> list[AllocationResult] | None:
        """``Allocate``: one result per claim, or None when the claims do not fit on the
        node; raises :class:`AllocatorError` where upstream returns an error."""
        return _Allocation(self, node, list(claims)).run()


class _Allocation:
    """``allocator``: the state of one ``Allocate`` call."""

    def __init__(self, a: Allocator, node: Node, claims: list[ResourceClaim]) -> None:
        self.a = a
        self.node = node
        self.claims = claims
        self.pools: list[Pool] = []
        self.request_data: dict[tuple[int, int, int], _RequestData] = {}
        self.constraints: list[list[Constraint]] = []
        self.matches: dict[tuple[DeviceID, int, int, int], bool] = {}
        self.allocating: dict[DeviceID, set[int]] = {}
        self.results: list[list[_Result]] = [[] for _ in claims]
        #: ``allocatingCapacity``: capacity consumed by the shares being allocated
        self.allocating_capacity: dict[DeviceID, Consumed] = {}
        self.available_counters: dict[PoolID, dict[str, dict[str, Fraction]]] = {}
        self.consumed_counters: dict[PoolID, dict[str, dict[str, Fraction]]] = {}

    # setup

    def run(self) -> list[AllocationResult] | None:
        a = self.a
        self.pools = gather_pools(a.slices_for(self.node), self.node, a.all_slices,
                                  partitionable=a.partitionable, binding_last=a.binding_pools_last,
                                  counter_slices=a.counter_slices)
        for ci, claim in enumerate(self.claims):
            min_per_claim = 0
            for ri, request in enumerate(claim.spec.requests):
                if request.first_available and not a.prioritized_list:
                    raise AllocatorError(
                        f"claim {_claim_key(claim)}, request {request.name}: "
                        "has subrequests, but the DRAPrioritizedList feature "
                        "is disabled"
                    )
                self._check_capacity_feature(claim, request)
                min_per_request = self._request_data(claim, ci, ri, request)
                if min_per_request > ALLOCATION_RESULTS_MAX_SIZE - min_per_claim:
                    raise AllocatorError(
                        f"claim {_claim_key(claim)}, request {request.name}: adding "
                        f"{min_per_request} devices exceeds the claim limit of "
                        f"{ALLOCATION_RESULTS_MAX_SIZE}, with {min_per_claim} already "
                        "accounted for"
                    )
                min_per_claim += min_per_request
            # a constraint of neither kind (allocator_incubating.go:305-307)
            for i, c in enumerate(claim.spec.constraints):
                if c.match_attribute is None and c.distinct_attribute is None:
                    raise AllocatorError(
                        f"claim {_claim_key(claim)}, constraint #{i}: empty "
                        "constraint (unsupported constraint type?)"
                    )
            self.constraints.append(
                [
                    Constraint(
                        c.requests,
                        c.match_attribute or c.distinct_attribute or "",
                        distinct=c.match_attribute is None,
                    )
                    for c in claim.spec.constraints
                ]
            )
        self.matches = {}
        try:
            done = self._allocate_one(0, 0, 0, 0, False, (0, 0, 0))
        except _MaxSizeExceeded:
            done = False
        if not done:
            if any(p.is_invalid for p in self.pools):
                raise AllocatorError("invalid resource pools were encountered")
            return None
        return [self._result(ci) for ci in range(len(self.claims))]

    def _check_capacity_feature(self, claim: ResourceClaim, request: DeviceRequest) -> None:
        """Capacity requests need DRAConsumableCapacity (``Allocate``), in the variants that
        know them (``capacity_gate_check``; the others ignore them): a subrequest's are named
        by its request in allocator_experimental.go v0.34.4, by the subrequest from v0.35.4."""
        check = self.a.capacity_gate_check
        if self.a.consumable_capacity or check == "none":
            return
        subs_capacity = any(sub.exactly.capacity is not None for sub in request.first_available)
        if (request.exactly is not None and request.exactly.capacity is not None) or (
            check == "request" and subs_capacity
        ):
            raise AllocatorError(
                f"claim {_claim_key(claim)}, request {request.name}: has "
                "capacity requests, but the DRAConsumableCapacity feature is "
                "disabled"
            )
        for sub in request.first_available:
            if sub.exactly.capacity is not None:
                raise AllocatorError(
                    f"claim {_claim_key(claim)}, subrequest {sub.name}: has "
                    "capacity requests, but the DRAConsumableCapacity feature "
                    "is disabled"
                )

    def _request_data(self, claim: ResourceClaim, ci: int, ri: int, request: DeviceRequest) -> int:
        if request.first_available:
            least = None
            for si, sub in enumerate(request.first_available):
                data = self._validate(
                    claim, ci, ri, si, _RequestData(sub.name, sub.exactly, request.name)
                )
                self.request_data[(ci, ri, si)] = data
                least = data.num_devices if least is None else min(least, data.num_devices)
            return least or 0
        assert request.exactly is not None
        data = self._validate(claim, ci, ri, 0, _RequestData(request.name, request.exactly))
        self.request_data[(ci, ri, 0)] = data
        return data.num_devices

    def _validate(
        self, claim: ResourceClaim, ci: int, ri: int, si: int, data: _RequestData
    ) -> _RequestData:
        """``validateDeviceRequest``."""
        r = data.exactly
        where = f"claim {_claim_key(claim)}, request {data.name}"
        if not self.a.admin_access and r.admin_access is not None:
            raise AllocatorError(f"{where}: admin access is requested, but the feature is disabled")
        # allocator_incubating.go:543-545
        if not r.device_class_name:
            raise AllocatorError(f"{where}: missing device class name (unsupported request type?)")
        cls = self.a.classes.get(r.device_class_name)
        if cls is None:
            raise AllocatorError(
                f"{where}: could not retrieve device class "
                f"{r.device_class_name}: deviceclass.resource.k8s.io "
                f'"{r.device_class_name}" not found'
            )
        data.class_ = cls
        if r.allocation_mode == ALLOCATION_MODE_EXACT_COUNT:
            data.num_devices = r.count
            return data
        if r.allocation_mode != ALLOCATION_MODE_ALL:  # allocator_incubating.go:615-616
            raise AllocatorError(f"{where}: unsupported count mode {r.allocation_mode}")
        for pool in self.pools:
            if pool.is_incomplete:
                raise AllocatorError(
                    f"{where}: asks for all devices, but resource pool "
                    f"{pool.driver}/{pool.pool} is currently being updated"
                )
            if pool.is_invalid:
                raise AllocatorError(
                    f"{where}: asks for all devices, but resource pool "
                    f"{pool.driver}/{pool.pool} is currently invalid"
                )
            for s in pool.device_slices_targeting_node:
                for di, d in enumerate(s.devices):
                    if not self._selectable((ci, ri, si), data, s, di):
                        continue
                    # Static capacity only: remaining capacity is checked in allocateDevice,
                    # so capacity-blocked matching devices stay and All fails.
                    if self.a.consumable_capacity and not self._fits(where, d.name, r, d, {}, None):
                        continue
                    data.all_devices.append(((s.driver, s.pool, d.name), d, s, pool))
        data.num_devices = len(data.all_devices)
        return data

    def _fits(
        self,
        where: str,
        shown: str,
        r: ExactDeviceRequest,
        device: Device,
        current: Mapping[str, Fraction],
        allocating: Mapping[str, Fraction] | None,
        verb: str = "checking",
    ) -> bool:
        """``CmpRequestOverCapacity`` with a fatal error worded as upstream's callers do."""
        try:
            return request_fits(
                current, r.capacity, device.capacity, allocating, self.a.fractional_capacity_range
            )
        except CapacityError as e:
            raise AllocatorError(f"{where}: {verb} capacity for device {shown}: {e}") from None

    def _fits_now(
        self,
        ci: int,
        data: _RequestData,
        device_id: DeviceID,
        device: Device,
        verb: str = "checking",
    ) -> bool:
        """``allocator.CmpRequestOverCapacity``: against the aggregated capacity of the
        allocated shares and the capacity being allocated."""
        where = f"claim {_claim_key(self.claims[ci])}, request {data.name}"
        return self._fits(
            where,
            "/".join(device_id),
            data.exactly,
            device,
            self.a.aggregated_capacity.get(device_id, {}),
            self.allocating_capacity.get(device_id),
            verb,
        )

    def _multi(self, device: Device) -> bool:
        return self.a.consumable_capacity and bool(device.allow_multiple_allocations)

    def _is_allocated(self, device_id: DeviceID) -> bool:
        """``internal.IsDeviceAllocated``: dedicated, shared, or with consumed capacity."""
        return (
            device_id in self.a.allocated
            or device_id in self.a.shared
            or device_id in self.a.aggregated_capacity
        )

    def _capacity_in_use(self, device_id: DeviceID) -> bool:
        """``deviceCapacityInUse``: a share allocated or being allocated."""
        return (
            device_id in self.a.aggregated_capacity
            or device_id in self.a.shared
            or device_id in self.allocating_capacity
        )

    # the search

    def _allocate_one(
        self, ci: int, ri: int, si: int, di: int, sub: bool, start: tuple[int, int, int]
    ) -> bool:
        """``allocateOne``: True when this device and all after it are allocated."""
        self.a.num_allocate_one_invocations += 1
        if ci >= len(self.claims):
            return True
        claim = self.claims[ci]
        if ri >= len(claim.spec.requests):
            try:
                return self._allocate_one(ci + 1, 0, 0, 0, False, (0, 0, 0))
            except _MaxSizeExceeded:
                return False
        data = self.request_data[(ci, ri, si)]
        if not sub and data.parent is not None:
            all_exceeded = True
            index = 0
            while (ci, ri, index) in self.request_data:
                try:
                    ok = self._allocate_one(ci, ri, index, di, True, (0, 0, 0))
                except _MaxSizeExceeded:
                    index += 1
                    continue
                all_exceeded = False
                if ok:
                    self.request_data[(ci, ri, 0)].selected_sub_request_index = index
                    return True
                index += 1
            if all_exceeded:
                raise _MaxSizeExceeded
            return False
        r = data.exactly
        all_devices = r.allocation_mode == ALLOCATION_MODE_ALL
        if all_devices and not data.all_devices:
            return False
        if di >= data.num_devices:
            return self._allocate_one(ci, ri + 1, 0, 0, False, (0, 0, 0))
        if data.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE - len(self.results[ci]):
            raise _MaxSizeExceeded
        if all_devices:
            device_id, device, s, pool = data.all_devices[di]
            undo = self._allocate_device(ci, ri, si, device_id, device, s, pool, must=True)
            if undo is None:
                return False
            done = False
            try:
                done = self._allocate_one(ci, ri, si, di + 1, sub, (0, 0, 0))
            finally:
                if not done:
                    undo()
            return done
        admin = bool(r.admin_access)
        for pi in range(start[0], len(self.pools)):
            pool = self.pools[pi]
            if pool.is_incomplete or pool.is_invalid:
                continue
            slice_start = start[1] if pi == start[0] else 0
            for sli in range(slice_start, len(pool.device_slices_targeting_node)):
                s = pool.device_slices_targeting_node[sli]
                dev_start = start[2] if (pi, sli) == start[:2] else 0
                for dj in range(dev_start, len(s.devices)):
                    device = s.devices[dj]
                    device_id = (pool.driver, pool.pool, device.name)
                    if admin and ci in self.allocating.get(device_id, ()):
                        continue
                    if not admin and self._in_use(device_id):
                        continue
                    if not self._selectable((ci, ri, si), data, s, dj):
                        continue
                    if self.a.consumable_capacity and not self._fits_now(
                        ci, data, device_id, device
                    ):
                        continue
                    undo = self._allocate_device(ci, ri, si, device_id, device, s, pool, must=False)
                    if undo is None:
                        continue
                    done = False
                    try:
                        done = self._allocate_one(ci, ri, si, di + 1, sub, (pi, sli, dj + 1))
                    finally:
                        if not done:
                            undo()
                    if done:
                        return True
        return False

    def _in_use(self, device_id: DeviceID) -> bool:
        """``deviceInUse``."""
        return device_id in self.a.allocated or bool(self.allocating.get(device_id))

    def _selectable(
        self, key: tuple[int, int, int], data: _RequestData, s: ResourceSlice, di: int
    ) -> bool:
        """``isSelectable``: the class's selectors, the request's, the device's node. Without
        DeviceBindingAndStatus a device with binding conditions is never selectable
        (allocator_incubating.go, isSelectable)."""
        device = s.devices[di]
        if not self.a.device_binding_and_status and device.binding_conditions:
            return False
        device_id = (s.driver, s.pool, device.name)
        mkey = (device_id, *key)
        cached = self.matches.get(mkey)
        if cached is not None:
            return cached
        ok = True
        if data.class_ is not None:
            ok = self._selectors_match(
                key[0], device, device_id, data.class_, data.class_.selectors
            )
        if ok:
            ok = self._selectors_match(key[0], device, device_id, None, data.exactly.selectors)
        if ok and s.per_device_node_selection:
            ok = node_matches(
                self.node, device.node_name or "", bool(device.all_nodes), device.node_selector
            )
        self.matches[mkey] = ok
        return ok

    def _selectors_match(
        self,
        ci: int,
        device: Device,
        device_id: DeviceID,
        cls: DeviceClass | None,
        selectors: Sequence[DeviceSelector],
    ) -> bool:
        """``selectorsMatch``: compile and runtime errors are allocation errors."""
        owner = f"class {cls.name}" if cls is not None else f"claim {_claim_key(self.claims[ci])}"
        for i, sel in enumerate(selectors):
            compiled = self.a.compiled(sel.cel)
            if isinstance(compiled, CELCompileError):
                raise AllocatorError(f"{owner}: selector #{i}: CEL compile error: {compiled}")
            try:
                matches = compiled.device_matches(
                    DeviceView(
                        device_id[0],
                        device.attributes,
                        device.capacity,
                        device.allow_multiple_allocations,
                    )
                )
            except CELMatchError as e:
                message = str(e)
                # v0.37.2 names the device and adds the hint; before, neither
                where = f" on device {'/'.join(device_id)}" if self.a.cel_no_such_key_hint else ""
                if self.a.cel_no_such_key_hint and "no such key:" in message:
                    message += CEL_NO_SUCH_KEY_HINT
                raise AllocatorError(
                    f"{owner}: selector #{i}{where}: CEL runtime error: {message}"
                ) from None
            if not matches:
                return False
        return True

    def _allocate_device(
        self,
        ci: int,
        ri: int,
        si: int,
        device_id: DeviceID,
        device: Device,
        s: ResourceSlice,
        pool: Pool,
        *,
        must: bool,
    ) -> Callable[[], None] | None:
        """``allocateDevice``: the undo function, or None when the device cannot be used."""
        data = self.request_data[(ci, ri, si)]
        r = data.exactly
        admin = bool(r.admin_access)
        multi = self._multi(device)
        if not multi and admin and ci in self.allocating.get(device_id, ()):
            return None
        if not admin and self._in_use(device_id):
            return None
        if not self.a.partitionable and device.consumes_counters:
            return None
        # An allow-multiple device in use has its counters accounted for already.
        skip_counters = multi and self._capacity_in_use(device_id)
        counters = False
        if not skip_counters and device.consumes_counters:
            if not self._check_available_counters(device, pool):
                return None
            counters = True
        base = data.parent if data.parent is not None else data.name
        sub = data.name if data.parent is not None else ""
        added = 0

        def rollback() -> None:
            for c in reversed(self.constraints[ci][:added]):
                c.remove(base, sub)
            if counters:
                self._deallocate_counters(device, pool)

        if self.a.device_taints and taint_prevents_allocation(device, r):
            rollback()
            return None
        for c in self.constraints[ci]:
            if not c.add(base, sub, device, device_id):
                rollback()
                if must:
                    raise AllocatorError(
                        f"claim {_claim_key(self.claims[ci])}, request {data.name}: cannot add "
                        f"device {'/'.join(device_id)} because a claim constraint would not "
                        "be satisfied"
                    )
                return None
            added += 1
        if not multi:
            self.allocating.setdefault(device_id, set()).add(ci)

        def unmark() -> None:
            if not multi:
                self.allocating[device_id].discard(ci)
            rollback()

        consumed: Consumed | None = None
        existed = False
        if self.a.consumable_capacity:
            try:
                fits = self._fits_now(ci, data, device_id, device, "rechecking")
            except AllocatorError:
                unmark()
                raise
            if not fits:
                unmark()
                return None
            if multi:
                try:
                    consumed = consumed_from_request(
                        r.capacity, device.capacity, self.a.fractional_capacity_range
                    )
                except CapacityError as e:
                    unmark()
                    raise AllocatorError(
                        f"claim {_claim_key(self.claims[ci])}, request {data.name}: computing "
                        f"consumed capacity for device {'/'.join(device_id)}: {e}"
                    ) from None
                existed = device_id in self.allocating_capacity
                insert(self.allocating_capacity, device_id, consumed)
        previous = len(self.results[ci])
        self.results[ci].append(
            _Result(data, device_id, device, s, shared=consumed is not None, consumed=consumed)
        )

        def undo() -> None:
            del self.results[ci][previous:]
            if consumed is not None:
                remove(self.allocating_capacity, device_id, consumed)
                if existed:
                    self.allocating_capacity.setdefault(device_id, {})
            unmark()

        return undo

    # counters (DRAPartitionableDevices)

    def _check_available_counters(self, device: Device, pool: Pool) -> bool:
        """``checkAvailableCounters``: the pool's counters less those of allocated devices
        and of the devices being allocated must cover the device's consumption."""
        available = self.available_counters.get(pool.pool_id)
        if available is None:
            available = {cs.name: dict(cs.counters) for cs in pool.counter_sets.values()}
            for group in (pool.device_slices_targeting_node, pool.device_slices_not_targeting_node):
                for s in group:
                    for d in s.devices:
                        if not self._is_allocated((s.driver, s.pool, d.name)):
                            continue
                        for c in d.consumes_counters:
                            cset = available.get(c.counter_set, {})
                            for n, q in c.counters:
                                if n in cset:
                                    cset[n] -= q
            self.available_counters[pool.pool_id] = available
        consumed = self.consumed_counters.setdefault(pool.pool_id, {})
        for c in device.consumes_counters:
            cset = consumed.setdefault(c.counter_set, {})
            for n, q in c.counters:
                cset[n] = cset.get(n, Fraction(0)) + q
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            for n, q in counters.items():
                if q < used.get(n, Fraction(0)):
                    self._deallocate_counters(device, pool)
                    return False
        return True

    def _deallocate_counters(self, device: Device, pool: Pool) -> None:
        consumed = self.consumed_counters[pool.pool_id]
        for c in device.consumes_counters:
            for n, q in c.counters:
                consumed[c.counter_set][n] -= q

    # the result

    def _result(self, ci: int) -> AllocationResult:
        results = []
        for i, res in enumerate(self.results[ci]):
            device_id = res.device_id
            results.append(
                DeviceRequestAllocationResult(
                    request=res.data.request_name,
                    driver=device_id[0],
                    pool=device_id[1],
                    device=device_id[2],
                    admin_access=True if res.data.exactly.admin_access else None,
                    share_id=self._share_id(ci, i) if res.shared else None,
                    consumed_capacity=tuple(sorted((res.consumed or {}).items())),
                    tolerations=res.data.exactly.tolerations,
                    # with DeviceBindingAndStatus only (allocator_incubating.go, Allocate)
                    binding_conditions=(
                        res.device.binding_conditions if self.a.device_binding_and_status else ()
                    ),
                    binding_failure_conditions=(
                        res.device.binding_failure_conditions
                        if self.a.device_binding_and_status
                        else ()
                    ),
                )
            )
        return AllocationResult(tuple(results), self._node_selector(ci), config=self._config(ci))

    def _selected(self, ci: int, ri: int) -> _RequestData:
        """The request's data, or its selected subrequest's."""
        data = self.request_data[(ci, ri, 0)]
        if data.parent is not None:
            data = self.request_data[(ci, ri, data.selected_sub_request_index)]
        return data

    def _config(self, ci: int) -> tuple[DeviceAllocationConfiguration, ...]:
        """The ``Config`` of the claim's result (allocator_incubating.go, Allocate, "Populate
        configs"): each class's configs once, in request order, naming the requests of that
        class; then the claim's configs that apply to an allocated request or selected
        subrequest (all if they name none); last, a config naming every request has its
        ``requests`` cleared ("empty means all"). Before v0.37.2 (switch dra-config-result
        "per-matching-request") a claim config is added once per request or selected
        subrequest it names (the loop ``continue``s where v0.37.2 ``break``s) and nothing is
        cleared (allocator_incubating.go v0.36.3)."""
        claim = self.claims[ci]
        requests = claim.spec.requests
        configs: list[tuple[str, OpaqueDeviceConfiguration, list[str]]] = []
        class_ranges: dict[str, tuple[int, int]] = {}
        for ri in range(len(requests)):
            data = self._selected(ci, ri)
            cls = data.class_
            if cls is None:
                continue
            if cls.name in class_ranges:
                start, end = class_ranges[cls.name]
                for i in range(start, end):
                    configs[i][2].append(data.request_name)
                continue
            start = len(configs)
            configs.extend(
                (ALLOCATION_CONFIG_SOURCE_CLASS, c, [data.request_name]) for c in cls.config
            )
            class_ranges[cls.name] = (start, len(configs))
        selected = [self._selected_name(ci, ri) for ri in range(len(requests))]
        for config in claim.spec.config:
            if not config.requests:
                configs.append((ALLOCATION_CONFIG_SOURCE_CLAIM, config.opaque, []))
                continue
            wanted = config.requests
            matching = sum(
                r.name in wanted or (sub is not None and sub in wanted)
                for r, sub in zip(requests, selected, strict=True)
            )
            if self.a.config_result == "once-cleared":
                matching = min(matching, 1)
            configs.extend(
                (ALLOCATION_CONFIG_SOURCE_CLAIM, config.opaque, list(config.requests))
                for _ in range(matching)
            )
        clear = self.a.config_result == "once-cleared"
        out = []
        for source, opaque, names in configs:
            if (
                clear
                and names
                and all(
                    r.name in names or (sub is not None and sub in names)
                    for r, sub in zip(requests, selected, strict=True)
                )
            ):
                names = []
            out.append(DeviceAllocationConfiguration(source, opaque, tuple(names)))
        return tuple(out)

    def _selected_name(self, ci: int, ri: int) -> str | None:
        """``request/subrequest`` of the request's selected subrequest, None without
        subrequests."""
        data = self._selected(ci, ri)
        return data.request_name if data.parent is not None else None

    def _share_id(self, ci: int, i: int) -> str:
        """Upstream's ``shareID`` is a random UUID (``GenerateNewShareID``); the reference
        derives one from the claim and the result's index, so runs are reproducible."""
        claim = self.claims[ci]
        return str(uuid.uuid5(SHARE_ID_NAMESPACE, f"{claim.uid or _claim_key(claim)}/{i}"))

    def _node_selector(self, ci: int) -> NodeSelector | None:
        """``createNodeSelector``: the node by name if any device is node-local, else the
        requirements of the slices' (or devices') node selectors, else None (all nodes)."""
        fields: list[NodeSelectorRequirement] = []
        exprs: list[NodeSelectorRequirement] = []
        for res in self.results[ci]:
            device, s = res.device, res.slice
            if s.per_device_node_selection:
                node_name, selector = device.node_name, device.node_selector
            else:
                node_name, selector = s.node_name, s.node_selector
            if node_name is not None or device.binds_to_node:
                return NodeSelector(
                    (
                        NodeSelectorTerm(
                            match_fields=(
                                NodeSelectorRequirement("metadata.name", "In", (self.node.name,)),
                            )
                        ),
                    )
                )
            if selector is not None:
                if len(selector.node_selector_terms) > 1:
                    raise AllocatorError(
                        f"create NodeSelector for claim {self.claims[ci].name}: unsupported "
                        f"ResourceSlice.NodeSelector with {len(selector.node_selector_terms)} "
                        "terms"
                    )
                if selector.node_selector_terms:
                    term = selector.node_selector_terms[0]
                    _add_new(term.match_fields, fields)
                    _add_new(term.match_expressions, exprs)
        if fields or exprs:
            return NodeSelector((NodeSelectorTerm(tuple(exprs), tuple(fields)),))
        return None


def _add_new(source: Sequence[NodeSelectorRequirement], to: list[NodeSelectorRequirement]) -> None:
    """``addNewNodeSelectorRequirements``: values compared as sets."""
    for r in source:
        if not any(
            e.key == r.key and e.operator == r.operator and set(e.values) == set(r.values)
            for e in to
        ):
            to.append(r)
