"""Consumable capacity in the structured allocator (reference_impl/dra/allocator.py,
reference_impl/dra/capacity.py): the cases of upstream's allocator test table that cover it
(k8s.io/dynamic-resource-allocation v0.37.2,
structured/internal/allocatortesting/allocator_testing.go, ``TestAllocator``), each under its
upstream name. As upstream's runner does, every share ID is replaced by a fixed value before
comparing, so a result says only whether it has one; the consumed capacity is compared
exactly."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pytest

from reference_impl.dra.allocator import Allocator, AllocatorError
from reference_impl.dra.variants import capacity_gate_check
from reference_impl.model.dra import (
    ALLOCATION_MODE_ALL,
    CapacityRequirements,
    Device,
    DeviceCapacity,
    DeviceClass,
    DeviceConstraint,
    DeviceRequest,
    DeviceSelector,
    DeviceSubRequest,
    ResourceClaim,
    ResourceSlice,
)
from reference_impl.model.objects import Node, NodeSelector
from reference_impl.model.quantity import parse_quantity_string
from reference_impl.releases import load
from reference_impl.testing.dra import (
    claim,
    device,
    device_class,
    local_node_selector,
    node,
    request,
    request_with_prioritized_list,
    slice_with_devices,
    sub_request,
)

DRIVER_A, CLASS_A, NODE_1, POOL_1 = "driver-a", "class-a", "node-1", "pool-1"
CAP0, CAP1 = "capacity-0", "capacity-1"
STRING_ATTR = f"{DRIVER_A}/stringAttribute"
SHARE = "<share>"  # upstream's fixedShareID


def class_multi(multi: bool) -> dict[str, DeviceClass]:
    """``classWithAllowMultipleAllocations``."""
    return {CLASS_A: DeviceClass(CLASS_A, (DeviceSelector(
        f'device.driver == "{DRIVER_A}" && device.allowMultipleAllocations == '
        f'{str(multi).lower()}'),))}


PLAIN = {CLASS_A: device_class(CLASS_A, DRIVER_A)}


def q(s: str) -> Fraction:
    return parse_quantity_string(s)


def cap(value: str, policy: dict[str, Any] | None = None) -> DeviceCapacity:
    return DeviceCapacity(q(value), policy)


def range_policy(value: str) -> DeviceCapacity:
    """``withCapacityRequestPolicyRange``: default 2, min 2, step 2, max 4."""
    return cap(value, {"default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}})


def fractional_policy(value: str) -> DeviceCapacity:
    """``withFractionalCapacityRequestPolicyRange``: default 200m, min 200m, step 100m,
    max 1."""
    return cap(value, {"default": "200m",
                       "validRange": {"min": "200m", "step": "100m", "max": "1"}})


def values_policy(default: str, value: str, *more: str) -> DeviceCapacity:
    """``withCapacityRequestPolicyValidValues``: the default first, then ``more``."""
    return cap(value, {"default": default, "validValues": [default, *more]})


def dev(name: str, capacity: dict[str, DeviceCapacity] | None = None, *, multi: bool = True,
        attrs: dict[str, Any] | None = None, consumes: dict[str, dict[str, str]] | None = None
        ) -> Device:
    """``device(...)`` with ``withAllowMultipleAllocations`` (``multi``)."""
    base = device(name, None, attrs, consumes=consumes)
    return dataclasses.replace(base, capacity=tuple((capacity or {}).items()),
                               allow_multiple_allocations=True if multi else None)


def with_capacity(r: DeviceRequest, amount: str | None) -> DeviceRequest:
    """``withCapacityRequest``: ``requests[capacity-0]`` (none for None)."""
    assert r.exactly is not None
    reqs = CapacityRequirements(() if amount is None else ((CAP0, q(amount)),))
    return dataclasses.replace(r, exactly=dataclasses.replace(r.exactly, capacity=reqs))


def sub_with_capacity(s: DeviceSubRequest, amount: str) -> DeviceSubRequest:
    return dataclasses.replace(s, exactly=dataclasses.replace(
        s.exactly, capacity=CapacityRequirements(((CAP0, q(amount)),))))


def creq(name: str, amount: str | None = "1", *selectors: str, all_: bool = False
         ) -> DeviceRequest:
    """``deviceRequest(name, classA, 1).withCapacityRequest(amount)`` (``allDeviceRequest``
    with ``all_``)."""
    r = request(name, CLASS_A, 1, *selectors, mode=ALLOCATION_MODE_ALL if all_ else
                "ExactCount")
    return with_capacity(r, amount)


def slice1(*devices: Device, count: int = 1, name: str = "slice-1", **kw: Any
           ) -> ResourceSlice:
    return slice_with_devices(name, NODE_1, POOL_1, DRIVER_A, *devices, slice_count=count,
                              **kw)


Dev = tuple[str, str, str | None, tuple[tuple[str, Fraction], ...]]
Result = tuple[NodeSelector | None, tuple[Dev, ...]]


def d(req: str, device_name: str, share: bool = True, **consumed: str) -> Dev:
    """``deviceRequestAllocationResult(...).withConsumedCapacity(&fixedShareID, consumed)``
    (``deviceAllocationResult`` with ``share=False``); consumed names use ``_`` for ``-``."""
    return (req, device_name, SHARE if share else None,
            tuple(sorted((k.replace("_", "-"), q(v)) for k, v in consumed.items())))


def result(*devices: Dev) -> Result:
    return local_node_selector(NODE_1), tuple(sorted(devices, key=repr))


@dataclass
class Case:
    claims: list[ResourceClaim]
    slices: list[ResourceSlice]
    classes: dict[str, DeviceClass] = field(default_factory=lambda: class_multi(True))
    expect: list[Result] | None = None
    error: str = ""
    allocated: set[tuple[str, str, str]] = field(default_factory=set)
    #: ``allocatedSharedDeviceIDs`` (share IDs dropped: the allocator reads only the devices)
    shared: set[tuple[str, str, str]] = field(default_factory=set)
    allocated_capacity: dict[tuple[str, str, str], dict[str, Fraction]] = field(
        default_factory=dict)
    features: dict[str, bool] = field(default_factory=dict)
    node: Node = field(default_factory=lambda: node(NODE_1, "region-1"))


def c(name: str, *requests: DeviceRequest, constraints: tuple[DeviceConstraint, ...] = ()
      ) -> ResourceClaim:
    return claim(name, *requests, constraints=constraints)


def sel(kind: str, attr: str = "kind") -> str:
    return f'device.attributes["{DRIVER_A}"].{attr} == "{kind}"'


D1 = (DRIVER_A, POOL_1, "device-1")
MATCH = (DeviceConstraint(match_attribute=STRING_ATTR),)
DISTINCT = (DeviceConstraint(distinct_attribute=STRING_ATTR),)

CASES: dict[str, Case] = {
    "consumable-capacity-disabled-feature": Case(
        [c("claim-0", creq("req-0"))], [slice1(device("device-1"))], PLAIN,
        features={"consumable_capacity": False},
        error="claim claim-0, request req-0: has capacity requests, but the "
              "DRAConsumableCapacity feature is disabled"),
    "consumable-capacity-disabled-feature-with-prioritized-list": Case(
        [c("claim-0", request_with_prioritized_list(
            "req-0", sub_with_capacity(sub_request("subReq-0", CLASS_A), "1"),
            sub_with_capacity(sub_request("subReq-1", CLASS_A), "1")))],
        [slice1(device("device-1"))], PLAIN, features={"consumable_capacity": False},
        error="claim claim-0, subrequest subReq-0: has capacity requests, but the "
              "DRAConsumableCapacity feature is disabled"),
    "consumable-capacity-multi-allocatable-device-with-missing-capacity-request": Case(
        [c("claim-0", creq("req-0"))], [slice1(dev("device-1", {CAP1: cap("1")}))], PLAIN),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-"
    "request": Case(
        [c("claim-0", creq("req-0", all_=True))], [slice1(dev("device-1", {CAP1: cap("1")}))]),
    "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request":
        Case([c("claim-0", request("req-0", CLASS_A)), c("claim-1", request("req-0", CLASS_A))],
             [slice1(dev("device-1"))],
             expect=[result(d("req-0", "device-1")), result(d("req-0", "device-1"))]),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request":
        Case([c("claim-0", request("req-0", CLASS_A)), c("claim-1", request("req-0", CLASS_A))],
             [slice1(dev("device-1", {CAP0: cap("1")}), dev("device-2", {CAP0: cap("1")}))],
             expect=[result(d("req-0", "device-1", capacity_0="1")),
                     result(d("req-0", "device-2", capacity_0="1"))]),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block":
        Case([c("claim-0", request("req-0", CLASS_A)), c("claim-1", request("req-0", CLASS_A))],
             [slice1(dev("device-1", {CAP0: cap("2")}))]),
    "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request": Case(
        [c("claim-0", creq("req-0")), c("claim-1", creq("req-0"))],
        [slice1(dev("device-1", {CAP0: cap("2")}))],
        expect=[result(d("req-0", "device-1", capacity_0="1")),
                result(d("req-0", "device-1", capacity_0="1"))]),
    "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request": Case(
        [c("claim-0", request("req-0", CLASS_A)), c("claim-1", request("req-0", CLASS_A))],
        [slice1(dev("device-1", {CAP0: range_policy("4")}))],
        expect=[result(d("req-0", "device-1", capacity_0="2")),
                result(d("req-0", "device-1", capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-zero-request-policy": Case(
        [c("claim-0", request("req-0", CLASS_A)), c("claim-1", request("req-0", CLASS_A))],
        [slice1(dev("device-1", {CAP0: values_policy("0", "1")}))],
        expect=[result(d("req-0", "device-1", capacity_0="0")),
                result(d("req-0", "device-1", capacity_0="0"))]),
    "consumable-capacity-multi-allocatable-device-violates-zero-request-policy": Case(
        [c("claim-0", creq("req-0"))], [slice1(dev("device-1", {CAP0: values_policy("0", "1")}))]),
    "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request": Case(
        [c("claim-0", creq("req-0")), c("claim-1", creq("req-0"))],
        [slice1(dev("device-1", {CAP0: range_policy("4")}))],
        expect=[result(d("req-0", "device-1", capacity_0="2")),
                result(d("req-0", "device-1", capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-range-policy-step": Case(
        [c("claim-0", creq("req-0", "3"))], [slice1(dev("device-1", {CAP0: range_policy("4")}))],
        expect=[result(d("req-0", "device-1", capacity_0="4"))]),
    "consumable-capacity-range-policy-request-above-int64-rejected": Case(
        [c("claim-0", creq("req-0", "18446744073709551616"))],
        [slice1(dev("device-1", {CAP0: range_policy("4")}))], error="cannot be represented"),
    "consumable-capacity-range-policy-rounded-value-overflow-rejected": Case(
        [c("claim-0", creq("req-0", "9223372036854775807"))],
        [slice1(dev("device-1", {CAP0: range_policy("4")}))], error="cannot be represented"),
    "consumable-capacity-range-policy-overflow-aborts-not-skip": Case(
        [c("claim-0", creq("req-0", "18446744073709551616"))],
        [slice1(dev("device-1", {CAP0: range_policy("4")}),
                dev("device-2", {CAP0: cap("36893488147419103232")}))],
        error="cannot be represented"),
    "consumable-capacity-range-policy-allocation-mode-all-overflow-aborts": Case(
        [c("claim-0", creq("req-0", "18446744073709551616", all_=True))],
        [slice1(dev("device-1", {CAP0: range_policy("4")}))], error="cannot be represented"),
    "consumable-capacity-negative-request-aborts": Case(
        [c("claim-0", creq("req-0", "-5"))], [slice1(dev("device-1", {CAP0: cap("10")}))],
        error="negative"),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy": Case(
        [c("claim-0", creq("req-0", "2"))],
        [slice1(dev("device-1", {CAP0: values_policy("1", "4", "2")}))],
        expect=[result(d("req-0", "device-1", capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up": Case(
        [c("claim-0", creq("req-0", "2"))],
        [slice1(dev("device-1", {CAP0: values_policy("1", "3", "3")}))],
        expect=[result(d("req-0", "device-1", capacity_0="3"))]),
    "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request":
        Case([c("claim-0", creq("req-0", "1")), c("claim-1", creq("req-0", "2"))],
             [slice1(dev("device-1", {CAP0: range_policy("2")}))]),
    "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy": Case(
        [c("claim-0", creq("req-0", "6"))], [slice1(dev("device-1", {CAP0: range_policy("10")}))]),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining": Case(
        [c("claim-0", creq("req-0", "2"))], [slice1(dev("device-1", {CAP0: range_policy("4")}))],
        allocated_capacity={D1: {CAP0: Fraction(2)}},
        expect=[result(d("req-0", "device-1", capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device": Case(
        [c("claim-0", creq("req-0", "2"))],
        [slice1(dev("device-1", {CAP0: range_policy("2")}),
                dev("device-2", {CAP0: range_policy("2")}))],
        allocated_capacity={D1: {CAP0: Fraction(2)}},
        expect=[result(d("req-0", "device-2", capacity_0="2"))]),
    "consumable-capacity-with-multi-allocatable-device-backtrack": Case(
        [c("claim-0", creq("req-0", "2"), creq("req-1", "2"), constraints=MATCH),
         c("claim-1", creq("req-0", "2"))],
        [slice1(dev("device-2", {CAP0: range_policy("2")},
                    attrs={"stringAttribute": "stringAttributeValue1"}),
                dev("device-1", {CAP0: range_policy("4")},
                    attrs={"stringAttribute": "stringAttributeValue2"}))], PLAIN,
        expect=[result(d("req-0", "device-1", capacity_0="2"),
                       d("req-1", "device-1", capacity_0="2")),
                result(d("req-0", "device-2", capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-subrequest": Case(
        [c("claim-0", request_with_prioritized_list(
            "req-0", sub_with_capacity(sub_request("subReq-0", CLASS_A), "4"),
            sub_with_capacity(sub_request("subReq-1", CLASS_A), "2"),
            sub_request("subReq-1", CLASS_A)))],
        [slice1(dev("device-1", {CAP0: range_policy("2")}))],
        expect=[result(d("req-0/subReq-1", "device-1", capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity": Case(
        [c("claim-0", creq("req-0", "2"))], [slice1(dev("device-1", {CAP0: range_policy("2")}))],
        allocated_capacity={D1: {CAP0: Fraction(2)}}),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity":
        Case([c("claim-0", creq("req-0", "2", all_=True))],
             [slice1(dev("device-1", {CAP0: cap("2")}), dev("device-2"))],
             expect=[result(d("req-0", "device-1", capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-"
    "capacity": Case(
        [c("claim-0", creq("req-0", "2", all_=True))],
        [slice1(dev("device-1", {CAP0: cap("2")}), dev("device-2", {CAP0: cap("1")}))],
        expect=[result(d("req-0", "device-1", capacity_0="2"))]),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient":
        Case([c("claim-0", creq("req-0"), creq("req-1", all_=True))],
             [slice1(dev("device-1", {CAP0: cap("2")}), dev("device-2", {CAP0: cap("1")}))],
             PLAIN,
             expect=[result(d("req-0", "device-1", capacity_0="1"),
                            d("req-1", "device-1", capacity_0="1"),
                            d("req-1", "device-2", capacity_0="1"))]),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient": Case(
        [c("claim-0", creq("req-0", all_=True))],
        [slice1(dev("device-1", {CAP0: cap("2")}), dev("device-2", {CAP0: cap("1")}))], PLAIN,
        allocated_capacity={D1: {CAP0: Fraction(1)}},
        expect=[result(d("req-0", "device-1", capacity_0="1"),
                       d("req-0", "device-2", capacity_0="1"))]),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient":
        Case([c("claim-0", creq("req-0"), creq("req-1", all_=True))],
             [slice1(dev("device-1", {CAP0: cap("1")}), dev("device-2", {CAP0: cap("1")}))],
             PLAIN),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient":
        Case([c("claim-0", creq("req-0", all_=True))],
             [slice1(dev("device-1", {CAP0: cap("1")}), dev("device-2", {CAP0: cap("1")}))],
             PLAIN, allocated_capacity={D1: {CAP0: Fraction(1)}}),
    "consumable-capacity-dedicated-device-with-consumable-capacity-request": Case(
        [c("claim-0", creq("req-0"))], [slice1(dev("device-1", {CAP0: cap("1")}, multi=False))],
        class_multi(False), expect=[result(d("req-0", "device-1", share=False))]),
    "consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request": Case(
        [c("claim-0", creq("req-0")), c("claim-1", creq("req-0"))],
        [slice1(dev("device-1", {CAP0: range_policy("2")}, multi=False))], class_multi(False)),
    "consumable-capacity-requests-are-not-modified": Case(
        [c("claim-0", creq("req-0", "2"), creq("req-1", "1000000000000000000000"))],
        [slice1(dev("device-1", {CAP0: cap("1000000000000000000002", {
            "default": "1000000000000000000000", "validRange": {"min": "2"}})}))], PLAIN,
        expect=[result(d("req-0", "device-1", capacity_0="2"),
                       d("req-1", "device-1", capacity_0="1000000000000000000000"))]),
    "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector": Case(
        [c("claim-0", creq("req-0"))], [slice1(dev("device-1", {CAP0: cap("1")}))],
        class_multi(False)),
    "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated":
        Case([c("claim-0", creq("req-0"))], [slice1(dev("device-1", {CAP0: range_policy("2")}))],
             allocated={D1}),
    "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-"
    "allocatable": Case(
        [c("claim-0", creq("req-0"))],
        [slice1(dev("device-1", {CAP0: range_policy("2")}, multi=False))],
        allocated_capacity={D1: {CAP0: Fraction(1)}}),
    "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint": Case(
        [c("claim-0", creq("req-0"), creq("req-1"), constraints=DISTINCT)],
        [slice1(dev("device-1", {CAP0: range_policy("2")},
                    attrs={"stringAttribute": "stringAttributeValue"}))]),
    "consumable-capacity-fractional-range-gate-disabled": Case(
        [c("claim-0", creq("req-0", "200m"))],
        [slice1(dev("device-1", {CAP0: fractional_policy("1")}))],
        features={"fractional_capacity_range": False},
        expect=[result(d("req-0", "device-1", capacity_0="1"))]),
    "consumable-capacity-fractional-range-gate-enabled-round-up": Case(
        [c("claim-0", creq("req-0", "250m"))],
        [slice1(dev("device-1", {CAP0: fractional_policy("1")}))],
        expect=[result(d("req-0", "device-1", capacity_0="300m"))]),
    "partitionable-consumable-capacity-backtrack-releases-counter": Case(
        [c("claim-0", request("req-0", CLASS_A, 1, sel("shared")),
           request("req-1", CLASS_A, 1, sel("counteronly")))],
        [slice1(dev("device-1", attrs={"kind": "shared"}, consumes={"counter-set-1": {"c": "1"}}),
                dev("device-2", attrs={"kind": "shared"}, multi=False),
                dev("device-3", attrs={"kind": "counteronly"}, multi=False,
                    consumes={"counter-set-1": {"c": "1"}}), count=2),
         slice1(count=2, name="slice-2", counter_sets={"counter-set-1": {"c": "1"}})], PLAIN,
        expect=[result(d("req-0", "device-2", share=False),
                       d("req-1", "device-3", share=False))]),
    "consumable-capacity-rejection-rolls-back-constraints": Case(
        [c("claim-0", creq("req-0", "2", sel("cap", "stringAttribute"))),
         c("claim-1", request_with_prioritized_list(
             "req-0", sub_with_capacity(sub_request("subReq-0", CLASS_A, 1,
                                                    sel("cap", "stringAttribute"),
                                                    mode=ALLOCATION_MODE_ALL), "2"),
             sub_request("subReq-1", CLASS_A, 1, sel("fb", "stringAttribute"))),
           constraints=MATCH)],
        [slice1(dev("device-1", {CAP0: cap("2")}, attrs={"stringAttribute": "cap"}),
                dev("device-2", attrs={"stringAttribute": "fb"}, multi=False))], PLAIN,
        expect=[result(d("req-0", "device-1", capacity_0="2")),
                result(d("req-0/subReq-1", "device-2", share=False))]),
    # the partitionable-device cases with counter sets (shared counters charged once per
    # shared device, across cycles too; capacity "fromCounters": each counter's value)
    "allow-multiple-allocations-with-partitionable-device": Case(
        [c("claim-0", request("req-0", CLASS_A), request_with_prioritized_list(
            "req-1",
            sub_request("subReq-0", CLASS_A, 1, f'device.capacity["{DRIVER_A}"].memory'
                                                '.compareTo(quantity("6Gi")) >= 0'),
            sub_request("subReq-1", CLASS_A, 1, f'device.capacity["{DRIVER_A}"].memory'
                                                '.compareTo(quantity("4Gi")) >= 0')))],
        [slice1(*(dev(n, {"memory": cap(m)}, consumes={"counter-set-1": {"memory": m}})
                  for n, m in (("device-1", "4Gi"), ("device-2", "6Gi"), ("device-3", "4Gi"))),
                count=2),
         slice1(count=2, name="slice-2", counter_sets={"counter-set-1": {"memory": "8Gi"}})],
        expect=[result(d("req-0", "device-1", memory="4Gi"),
                       d("req-1/subReq-1", "device-3", memory="4Gi"))]),
    "allow-multiple-allocations-with-shared-device-counter-cross-cycle": Case(
        [c("claim-0", creq("req-0", "1", sel("b", "mode")))],
        [slice1(*(dev(n, {CAP0: cap("1")}, attrs={"mode": mode},
                      consumes={"counter-set-1": {CAP0: "1"}})
                  for n, mode in (("device-1", "a"), ("device-2", "b"))), count=2),
         slice1(count=2, name="slice-2", counter_sets={"counter-set-1": {CAP0: "1"}})],
        features={"prioritized_list": False}, shared={D1},
        allocated_capacity={D1: {CAP0: q("1")}}),
    "partitionable-consumable-capacity-shared-device-counter-not-recharged": Case(
        [c("claim-0", request("req-0", CLASS_A))],
        [slice1(dev("device-1", consumes={"counter-set-1": {"c": "1"}}), count=2),
         slice1(count=2, name="slice-2", counter_sets={"counter-set-1": {"c": "1"}})], PLAIN,
        shared={D1}, expect=[result(d("req-0", "device-1"))]),
    "consumable-capacity-with-partitionable-device-multiple-capacity-pools": Case(
        [c("claim-0", creq("req-0", "1"), creq("req-2", "2"), request_with_prioritized_list(
            "req-1",
            sub_with_capacity(sub_request("subReq-0", CLASS_A, 1, f'device.capacity["{DRIVER_A}"]'
                                          f'["{CAP0}"].compareTo(quantity("4")) >= 0'), "1"),
            sub_with_capacity(sub_request("subReq-1", CLASS_A, 1, f'device.capacity["{DRIVER_A}"]'
                                          f'["{CAP0}"].compareTo(quantity("2")) >= 0'), "1")))],
        [slice1(*(dev(n, {CAP0: cap(c0), CAP1: range_policy("4")},
                      consumes={"counter-set-1": {CAP0: c0}, "counter-set-2": {CAP1: "4"}})
                  for n, c0 in (("device-1", "2"), ("device-2", "4"), ("device-3", "2"))),
                count=2),
         slice1(count=2, name="slice-2", counter_sets={"counter-set-1": {CAP0: "4"},
                                                       "counter-set-2": {CAP1: "8"}})], PLAIN,
        expect=[result(d("req-0", "device-1", capacity_0="1", capacity_1="2"),
                       d("req-2", "device-3", capacity_0="2", capacity_1="2"),
                       d("req-1/subReq-1", "device-1", capacity_0="1", capacity_1="2"))]),
    "partitionable-empty-capacity-multiple-share-backtrack-keeps-counter-ownership": Case(
        [c("claim-0", request("req-0", CLASS_A, 1, sel("shared"))),
         c("claim-1", request("req-1", CLASS_A, 1,
                              f'{sel("shared")} || {sel("fallback")}'),
           request("req-2", CLASS_A, 1, sel("gate")),
           request("req-3", CLASS_A, 1, sel("shared")),
           constraints=(DeviceConstraint(("req-1", "req-2"), match_attribute=STRING_ATTR),))],
        [slice1(dev("device-1", attrs={"kind": "shared", "stringAttribute": "red"},
                    consumes={"counter-set-1": {"c": "1"}}),
                dev("device-2", attrs={"kind": "fallback", "stringAttribute": "blue"},
                    multi=False),
                dev("device-3", attrs={"kind": "gate", "stringAttribute": "blue"}, multi=False),
                count=2),
         slice1(count=2, name="slice-2", counter_sets={"counter-set-1": {"c": "1"}})], PLAIN,
        expect=[result(d("req-0", "device-1")),
                result(d("req-1", "device-2", share=False), d("req-2", "device-3", share=False),
                       d("req-3", "device-1"))]),
}


def _run(case: Case) -> list[Result] | None:
    alloc = Allocator(set(case.allocated), case.classes, case.slices, shared=case.shared,
                      aggregated_capacity=case.allocated_capacity, **case.features)
    got = alloc.allocate(case.node, case.claims)
    if got is None:
        return None
    return [(r.node_selector, tuple(sorted(((x.request, x.device,
                                              SHARE if x.share_id is not None else None,
                                              x.consumed_capacity) for x in r.results),
                                            key=repr)))
            for r in got]


def _outcome(case: Case) -> list[Result] | None | AllocatorError:
    try:
        return _run(case)
    except AllocatorError as e:
        return e


@pytest.mark.parametrize("name", sorted(CASES))
def test_allocator_testing_go_consumable_capacity(name: str) -> None:
    case = CASES[name]
    got = _outcome(case)
    if not case.error:
        assert got == case.expect
    else:
        assert isinstance(got, AllocatorError) and case.error in str(got), got


def _prioritized_with_capacity() -> ResourceClaim:
    return c("claim-0", request_with_prioritized_list(
        "req-0", sub_with_capacity(sub_request("subReq-0", CLASS_A), "1")))


@pytest.mark.parametrize(("check", "error"), [
    # allocator_experimental.go v0.34.4: the request's check covers its subrequests
    ("request", "claim claim-0, request req-0: has capacity requests, but the "
                "DRAConsumableCapacity feature is disabled"),
    # from v0.35.4 (and allocator_incubating.go v0.37.2): the subrequest is named
    ("subrequest", "claim claim-0, subrequest subReq-0: has capacity requests, but the "
                   "DRAConsumableCapacity feature is disabled"),
    # "stable", and "incubating" of v0.35.4, do not read capacity: a plain allocation
    ("none", None),
])
def test_capacity_gate_check_per_variant(check: str, error: str | None) -> None:
    alloc = Allocator(set(), PLAIN, [slice1(device("device-1"))], consumable_capacity=False,
                      capacity_gate_check=check)
    if error is None:
        got = alloc.allocate(node(NODE_1, "region-1"), [_prioritized_with_capacity()])
        assert got is not None and [r.device for r in got[0].results] == ["device-1"]
        assert got[0].results[0].share_id is None
    else:
        with pytest.raises(AllocatorError) as e:
            alloc.allocate(node(NODE_1, "region-1"), [_prioritized_with_capacity()])
        assert str(e.value) == error


def test_prioritized_list_gate_checked_before_capacity_gate() -> None:
    """``Allocate`` refuses subrequests without DRAPrioritizedList before it looks at their
    capacity requests (allocator_incubating.go v0.37.2)."""
    alloc = Allocator(set(), PLAIN, [slice1(device("device-1"))], consumable_capacity=False,
                      prioritized_list=False)
    with pytest.raises(AllocatorError, match="has subrequests, but the DRAPrioritizedList"):
        alloc.allocate(node(NODE_1, "region-1"), [_prioritized_with_capacity()])


@pytest.mark.parametrize(("release", "gates", "check"), [
    ("v1.34.4", {}, "request"),  # DRAResourceClaimDeviceStatus on: "experimental"
    ("v1.34.4", {"DRAResourceClaimDeviceStatus": False}, "none"),  # "incubating"
    ("v1.35.4", {}, "none"),  # DRADeviceBindingConditions off: "incubating" of v0.35.4
    ("v1.35.4", {"DRADeviceBindingConditions": True}, "subrequest"),
    ("v1.36.3", {"DRAConsumableCapacity": False}, "subrequest"),  # binding gates on
    ("v1.36.3", {"DRAConsumableCapacity": False, "DRADeviceBindingConditions": False},
     "none"),  # "stable"
    ("v1.37.2", {"DRAConsumableCapacity": False}, "subrequest"),
])
def test_which_variant_checks_the_capacity_gate(release: str, gates: dict[str, bool],
                                                check: str) -> None:
    data = load(release).with_gates(gates)
    assert capacity_gate_check(data.behaviour("dra-binding-pools-last"),
                               data.behaviour("dra-capacity-gate-message"),
                               data.feature_enabled) == check
