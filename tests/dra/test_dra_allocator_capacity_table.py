"""Distinct-attribute constraints and multi-allocatable devices in the structured allocator
(reference_impl/dra/allocator.py): the cases of upstream's allocator test table on them
(k8s.io/dynamic-resource-allocation v0.37.2,
structured/internal/allocatortesting/allocator_testing.go, ``TestAllocator``), each under its
upstream name and with exactly the features its ``features`` field sets. A result with a share
has upstream's ``fixedShareID`` (``RunTestAllocator`` replaces every share ID by it).

Restated in test_dra_consumable_capacity.py already (not repeated here):
"consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request",
"consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-
capacity", "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-
allocatable".

Not restated:

- "with-distinct-constraints-unknown-type-attribute": its device has an attribute with no
  value (``{}``), which the reference's model cannot hold (an attribute is an int, bool,
  string or version; the loader, as API validation, requires exactly one).
- "list-attributes-disabled-match-constraint-with-lists",
  "list-attributes-disabled-distinct-constraint-with-lists": their devices have list-typed
  attributes (``stringValues``), a field of the alpha DRAListTypeAttributes (off in v1.37.2)
  that the reference's model does not have.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from reference_impl.model.dra import Device, DeviceCapacity, DeviceConstraint, Version
from reference_impl.model.quantity import parse_quantity_string
from reference_impl.testing.dra import (
    claim,
    class_with_allow_multiple_allocations,
    device,
    device_result,
    local_node_selector,
    request,
    request_with_prioritized_list,
    slice_with_devices,
    sub_request,
    with_capacity_request,
)
from tests.dra.allocator_table import (
    BOOL_ATTR,
    CLASS_A,
    DRIVER_A,
    FIXED_SHARE_ID,
    INT_ATTR,
    NODE_1,
    STRING_ATTR,
    VERSION_ATTR,
    Case,
    check_case,
    full_result,
    result,
    upstream_features,
)

POOL_1 = "pool-1"
CAPACITY = upstream_features("ConsumableCapacity")
LOCAL_1 = local_node_selector(NODE_1)
MULTI_CLASS = {CLASS_A: class_with_allow_multiple_allocations(CLASS_A, DRIVER_A, True)}


def multi(d: Device) -> Device:
    """``withAllowMultipleAllocations``."""
    return dataclasses.replace(d, allow_multiple_allocations=True)


def range_policy(d: Device, value: str) -> Device:
    """``withCapacityRequestPolicyRange({capacity-0: value})``: default 2, min 2, step 2,
    max 4."""
    return dataclasses.replace(d, capacity=(("capacity-0", DeviceCapacity(
        parse_quantity_string(value),
        {"default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}})),))


def slice1(*devs: Device, count: int = 1) -> Any:
    return slice_with_devices("slice-1", NODE_1, POOL_1, DRIVER_A, *devs, slice_count=count)


def a(req: str, dev: str) -> tuple[str, str, str, str]:
    return req, DRIVER_A, POOL_1, dev


def shared(req: str, dev: str, **consumed: str) -> Any:
    """``deviceRequestAllocationResult(...).withConsumedCapacity(&fixedShareID, consumed)``
    (names with ``_`` for ``-``)."""
    return device_result(req, DRIVER_A, POOL_1, dev, share_id=FIXED_SHARE_ID,
                         consumed={k.replace("_", "-"): v for k, v in consumed.items()})


def strings(*values: str) -> list[Device]:
    """Devices device-1... with ``stringAttribute`` ``values``."""
    return [device(f"device-{i}", None, {"stringAttribute": v})
            for i, v in enumerate(values, 1)]


def numas(*values: int) -> list[Device]:
    """Devices device-1... with ``numa`` ``values``."""
    return [device(f"device-{i}", None, {"numa": v}) for i, v in enumerate(values, 1)]


def distinct(attr: str, *requests: str) -> DeviceConstraint:
    return DeviceConstraint(requests=requests, distinct_attribute=attr)


def bool_first(name: str) -> Any:
    """``requestWithPrioritizedList(name, subReq-0 (boolAttribute), subReq-1)``."""
    return request_with_prioritized_list(
        name, sub_request("subReq-0", CLASS_A, 1, f'device.attributes["{DRIVER_A}"].boolAttribute'),
        sub_request("subReq-1", CLASS_A, 1))


CASES: dict[str, Case] = {
    "with-distinct-constraints": Case(
        [claim("claim-0", *(request(f"req-{i}", CLASS_A) for i in range(4)), constraints=(
            distinct(BOOL_ATTR, "req-0", "req-1"),
            distinct(VERSION_ATTR, "req-0", "req-1", "req-2"),
            distinct(INT_ATTR, "req-0", "req-1", "req-2", "req-3")))],
        [slice1(*(multi(device(f"device-{i}", None, {
            "driverVersion": Version(v), "numa": i - 1, "boolAttribute": b}))
            for i, v, b in ((1, "1.0.0", True), (2, "1.0.1", False), (3, "1.0.2", True),
                            (4, "1.0.0", True))))],
        features=CAPACITY,
        full=[full_result(LOCAL_1, *(shared(f"req-{i}", f"device-{i + 1}") for i in range(4)))]),
    "distinct-constraint-single-request-count-3-not-distinct": Case(
        [claim("claim-0", request("req-0", CLASS_A, 3), constraints=(distinct(STRING_ATTR),))],
        [slice1(*strings("value1", "value2", "value1"))], features=CAPACITY, expect=None),
    "distinct-constraint-single-request-count-3-all-distinct": Case(
        [claim("claim-0", request("req-0", CLASS_A, 3), constraints=(distinct(STRING_ATTR),))],
        [slice1(*strings("value1", "value2", "value3"))], features=CAPACITY,
        expect=[result(LOCAL_1, a("req-0", "device-1"), a("req-0", "device-2"),
                       a("req-0", "device-3"))]),
    "distinct-constraint-two-requests-with-count-not-distinct": Case(
        [claim("claim-0", request("req-0", CLASS_A, 2), request("req-1", CLASS_A),
               constraints=(distinct(STRING_ATTR, "req-0", "req-1"),))],
        [slice1(*strings("value1", "value2", "value1"))], features=CAPACITY, expect=None),
    "with-distinct-constraints-attribute-not-set": Case(
        [claim("claim-0", request("req-0", CLASS_A), constraints=(distinct(BOOL_ATTR, "req-0"),))],
        [slice1(multi(device("device-1")))], features=CAPACITY, expect=None),
    "with-distinct-constraints-with-subrequests": Case(
        [claim("claim-0", bool_first("req-0"), bool_first("req-1"), bool_first("req-2"),
               constraints=(distinct(BOOL_ATTR, "req-0", "req-1"),))],
        [slice1(multi(device("device-1", None, {"boolAttribute": True})),
                multi(device("device-2", None, {"boolAttribute": False})))],
        features=upstream_features("ConsumableCapacity", "PrioritizedList"),
        full=[full_result(LOCAL_1, shared("req-0/subReq-0", "device-1"),
                          shared("req-1/subReq-1", "device-2"),
                          shared("req-2/subReq-0", "device-1"))]),
    "distinct-constraint-single-request-multiple-devices-attribute-not-set": Case(
        [claim("claim-0", request("req-0", CLASS_A, 3), constraints=(distinct(INT_ATTR),))],
        [slice1(device("device-1"), device("device-2"), device("device-3"))],
        features=CAPACITY, expect=None),
    "distinct-constraint-single-request-not-enough-distinct-values": Case(
        [claim("claim-0", request("req-0", CLASS_A, 3), constraints=(distinct(INT_ATTR),))],
        [slice1(*numas(1, 2, 2, 2))], features=CAPACITY, expect=None),
    "distinct-constraint-single-request-multiple-devices-attribute-set": Case(
        [claim("claim-0", request("req-0", CLASS_A, 3), constraints=(distinct(INT_ATTR),))],
        [slice1(*numas(1, 2, 1, 3))], features=CAPACITY,
        expect=[result(LOCAL_1, a("req-0", "device-1"), a("req-0", "device-2"),
                       a("req-0", "device-4"))]),
    # two slices named slice-1 in pool-1 (upstream's case names both so)
    "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint": Case(
        [claim("claim-0", with_capacity_request(request("req-0", CLASS_A), "2"),
               with_capacity_request(request("req-1", CLASS_A), "2"),
               constraints=(distinct(STRING_ATTR),))],
        [slice1(range_policy(multi(device("device-1", None, {
            "stringAttribute": "stringAttributeValue1"})), "4"), count=2),
         slice1(range_policy(multi(device("device-2", None, {
             "stringAttribute": "stringAttributeValue2"})), "4"), count=2)],
        features=CAPACITY,
        full=[full_result(LOCAL_1, shared("req-0", "device-1", capacity_0="2"),
                          shared("req-1", "device-2", capacity_0="2"))]),
}
#: the cases upstream runs with ``classWithAllowMultipleAllocations(classA, driverA, true)``
MULTI_CLASS_CASES = {"distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_allocator_table_capacity(name: str) -> None:
    """One case of allocator_testing.go's ``TestAllocator`` table (see the module docstring)."""
    check_case(CASES[name], MULTI_CLASS if name in MULTI_CLASS_CASES else None)
