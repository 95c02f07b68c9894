"""The shared pieces of the restated allocator test table (k8s.io/dynamic-resource-allocation
v0.37.2, structured/internal/allocatortesting/allocator_testing.go, ``TestAllocator``): the
table's constants, a :class:`Case` like its ``testCase`` struct, results compared as upstream
compares them (per claim, the devices as a set, ``ConsistOf``, and the node selector), and
:func:`check_case`, which every test file of the table calls.

Upstream runs a case with exactly the features its ``features`` field sets (every other one
off); :func:`upstream_features` builds the :class:`Allocator` keyword arguments for that.
Without it a :class:`Case` runs with the allocator's defaults (every feature on)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest

from reference_impl.dra.allocator import Allocator, AllocatorError
from reference_impl.model.dra import (
    AllocationResult,
    DeviceAllocationConfiguration,
    DeviceClass,
    DeviceRequestAllocationResult,
    DeviceToleration,
    ResourceClaim,
    ResourceSlice,
)
from reference_impl.model.objects import Node, NodeSelector
from reference_impl.testing.dra import device, device_class, node, slice_with_devices

DRIVER_A, DRIVER_B = "driver-a", "driver-b"
CLASS_A, CLASS_B = "class-a", "class-b"
NODE_1, NODE_2 = "node-1", "node-2"
REGION_1, REGION_2 = "region-1", "region-2"
INT_ATTR, VERSION_ATTR = f"{DRIVER_A}/numa", f"{DRIVER_A}/driverVersion"
STRING_ATTR, BOOL_ATTR = f"{DRIVER_A}/stringAttribute", f"{DRIVER_A}/boolAttribute"
CLASSES = {CLASS_A: device_class(CLASS_A, DRIVER_A), CLASS_B: device_class(CLASS_B, DRIVER_B)}


def memory_at_least(q: str) -> str:
    return f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{q}")) >= 0'


def one(name: str, node_selection: Any, pool: str, driver: str, **kw: Any) -> ResourceSlice:
    """``sliceWithOneDevice``."""
    return slice_with_devices(name, node_selection, pool, driver, device("device-1"), **kw)


#: one device's result: request, driver, pool, device, admin access, tolerations, binding
#: conditions, binding failure conditions
DeviceResult = tuple[str, str, str, str, bool, tuple[DeviceToleration, ...], tuple[str, ...],
                     tuple[str, ...]]
Result = tuple[NodeSelector | None, frozenset[DeviceResult]]
FullResult = tuple[NodeSelector | None, tuple[DeviceRequestAllocationResult, ...]]
#: upstream's ``fixedShareID``: ``RunTestAllocator`` replaces every share ID by it
FIXED_SHARE_ID = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"


def result(selector: NodeSelector | None, *devices: tuple[Any, ...]) -> Result:
    """``allocationResult(selector, deviceAllocationResult(request, driver, pool, device,
    adminAccess, tolerations...)...)``: each device as (request, driver, pool, device) and
    optionally admin access, tolerations, binding conditions and binding failure conditions
    (``deviceRequestAllocationResultWithBindingConditions``)."""
    return selector, frozenset(
        (*d[:4], bool(d[4]) if len(d) > 4 else False, *(tuple(d[i]) if len(d) > i else ()
                                                          for i in (5, 6, 7)))
        for d in devices)


@dataclass
class Case:
    claims: list[ResourceClaim]
    slices: list[ResourceSlice]
    node: Node = field(default_factory=lambda: node(NODE_1, REGION_1))
    expect: list[Result] | None = None
    error: str = ""
    allocated: set[tuple[str, str, str]] = field(default_factory=set)
    features: dict[str, bool] = field(default_factory=dict)
    invocations: int | None = None  # expectNumAllocateOneInvocations
    #: the results compared whole (share IDs, consumed capacity, binding conditions,
    #: tolerations), for the cases whose expected results carry more than ``result`` keeps
    full: list[FullResult] | None = None
    #: per claim, the result's ``Devices.Config`` in order (``allocationResultWithConfigs``);
    #: None: not compared
    configs: list[tuple[DeviceAllocationConfiguration, ...]] | None = None


def full_result(selector: NodeSelector | None, *results: DeviceRequestAllocationResult
                ) -> FullResult:
    """``allocationResult(selector, results...)`` with whole results (built by
    ``reference_impl.testing.dra.device_result``), in no particular order."""
    return selector, tuple(sorted(results, key=repr))


def allocate_case(case: Case, classes: dict[str, DeviceClass] | None = None
                  ) -> list[AllocationResult] | None:
    """The allocator's results for ``case``, checking ``expectNumAllocateOneInvocations``."""
    alloc = Allocator(set(case.allocated), CLASSES if classes is None else classes,
                      case.slices, **case.features)
    got = alloc.allocate(case.node, case.claims)
    if case.invocations is not None:
        assert alloc.num_allocate_one_invocations == case.invocations
    return got


def run_case(case: Case, classes: dict[str, DeviceClass] | None = None
             ) -> list[Result] | list[FullResult] | None:
    got = allocate_case(case, classes)
    if got is None:
        return None
    if case.full is not None:
        return [full_result(r.node_selector, *(dataclasses.replace(
            d, share_id=FIXED_SHARE_ID if d.share_id is not None else None)
            for d in r.results)) for r in got]
    return [(r.node_selector, frozenset((d.request, d.driver, d.pool, d.device,
                                         bool(d.admin_access), d.tolerations,
                                         d.binding_conditions, d.binding_failure_conditions)
                                        for d in r.results))
            for r in got]


#: allocator_testing.go's ``Features`` fields, as :class:`Allocator` keyword arguments
FEATURE_ARGUMENTS = {
    "AdminAccess": "admin_access",
    "ConsumableCapacity": "consumable_capacity",
    "DeviceBindingAndStatus": "device_binding_and_status",
    "DeviceTaints": "device_taints",
    "FractionalCapacityRange": "fractional_capacity_range",
    "PartitionableDevices": "partitionable",
    "PrioritizedList": "prioritized_list",
}


def upstream_features(*enabled: str) -> dict[str, bool]:
    """``features: Features{A: true, ...}``: the named features on, every other one off."""
    unknown = set(enabled) - set(FEATURE_ARGUMENTS)
    assert not unknown, f"features the reference does not switch: {sorted(unknown)}"
    return {arg: name in enabled for name, arg in FEATURE_ARGUMENTS.items()}


def check_case(case: Case, classes: dict[str, DeviceClass] | None = None) -> None:
    """Run ``case`` and compare as ``TestAllocator`` does: the error (a substring of
    upstream's message), or the results."""
    if case.error:
        with pytest.raises(AllocatorError) as e:
            run_case(case, classes)
        assert case.error in str(e.value)
        return
    assert run_case(case, classes) == (case.expect if case.full is None else case.full)
    if case.configs is not None:
        got = allocate_case(case, classes)
        assert [r.config for r in got or ()] == case.configs
