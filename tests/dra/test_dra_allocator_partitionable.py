"""Partitionable devices (shared counters, per-device node selection) in the structured
allocator (reference_impl/dra/allocator.py, pools.py): the "partitionable-*" cases of
upstream's allocator test table (k8s.io/dynamic-resource-allocation v0.37.2,
structured/internal/allocatortesting/allocator_testing.go, ``TestAllocator``), each under its
upstream name and with exactly the features its ``features`` field sets.

Not restated:

- "compatibility-groups-disabled-skips-grouped-pool",
  "compatibility-groups-disabled-skips-ungrouped-device-in-grouped-pool": their slices have
  devices whose counter consumption declares ``compatibilityGroups``, a field of the alpha
  DRADeviceCompatibilityGroups (off in v1.37.2, where the API server drops it) that the
  reference's model does not have; the allocator's feature-off rule (pools_incubating.go,
  ``GatherPools``: such slices are ignored and their pool is incomplete) has nothing to
  apply to.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from reference_impl.model.dra import (
    ALLOCATION_MODE_ALL,
    Device,
    DeviceConstraint,
    DeviceRequestAllocationResult,
    DeviceTaint,
    DeviceToleration,
    ResourceSlice,
)
from reference_impl.model.objects import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from reference_impl.testing.dra import (
    NODE_SELECTION_PER_DEVICE,
    REGION_KEY,
    claim,
    device,
    device_from_counters,
    device_result,
    local_node_selector,
    node,
    node_label_selector,
    request,
    request_with_prioritized_list,
    slice_with_devices,
    sub_request,
)
from tests.dra.allocator_table import (
    CLASS_A,
    CLASS_B,
    DRIVER_A,
    DRIVER_B,
    INT_ATTR,
    NODE_1,
    NODE_2,
    REGION_1,
    STRING_ATTR,
    Case,
    check_case,
    full_result,
    memory_at_least,
    result,
    upstream_features,
)

POOL_1, POOL_2 = "pool-1", "pool-2"
CS1, CS2 = "counter-set-1", "counter-set-2"
PART = upstream_features("PartitionableDevices")
PART_LIST = upstream_features("PartitionableDevices", "PrioritizedList")
PART_BINDING = upstream_features("PartitionableDevices", "DeviceBindingAndStatus")
PART_BINDING_TAINTS = upstream_features("PartitionableDevices", "DeviceBindingAndStatus",
                                        "DeviceTaints")
INVALID = "invalid resource pools were encountered"
#: ``tolerationNoScheduleKey1``
TOLERATION_KEY1 = DeviceToleration("key1", "Exists", effect="NoSchedule")


def counters(name: str, pool: str, count: int, sets: dict[str, dict[str, str]], *,
             node_selection: Any = NODE_1, driver: str = DRIVER_A) -> ResourceSlice:
    """``sliceWithCounterSets(name, node, resourcePool(pool, count), driver, counterSet...)``."""
    return slice_with_devices(name, node_selection, pool, driver, slice_count=count,
                              counter_sets=sets)


def devices(name: str, pool: str, count: int, *devs: Device, node_selection: Any = NODE_1,
            driver: str = DRIVER_A) -> ResourceSlice:
    """``sliceWithDevices(name, node, resourcePool(pool, count), driver, devices...)``."""
    return slice_with_devices(name, node_selection, pool, driver, *devs, slice_count=count)


def mem(name: str, q: str, cs: str = CS1, **kw: Any) -> Device:
    """``device(name, fromCounters, nil).withDeviceCounterConsumption(
    deviceCounterConsumption(cs, {"memory": q}))``."""
    return device_from_counters(name, {cs: {"memory": q}}, **kw)


def with_binding(d: Device, cond: str, failed: str) -> Device:
    """``withBindingConditions([cond], [failed])``."""
    return dataclasses.replace(d, binding_conditions=(cond,), binding_failure_conditions=(failed,))


def bound(dev: str, cond: str = "", failed: str = "", **kw: Any) -> DeviceRequestAllocationResult:
    """``deviceRequestAllocationResultWithBindingConditions(req-0, driver-a, pool-1, dev,
    [cond], [failed], tolerations...)`` (no conditions for ``""``)."""
    return device_result("req-0", DRIVER_A, POOL_1, dev, binding_conditions=(
        (cond,) if cond else ()), binding_failure_conditions=(failed,) if failed else (), **kw)


def prioritized(name: str, first: str, second: str) -> Any:
    """``requestWithPrioritizedList(name, subReq-0 (memory >= first), subReq-1 (>= second))``."""
    return request_with_prioritized_list(
        name, sub_request("subReq-0", CLASS_A, 1, memory_at_least(first)),
        sub_request("subReq-1", CLASS_A, 1, memory_at_least(second)))


LOCAL_1 = local_node_selector(NODE_1)


def a(req: str, dev: str, pool: str = POOL_1, driver: str = DRIVER_A) -> tuple[str, str, str, str]:
    return req, driver, pool, dev


TWO_CLAIMS = [claim("claim-0", request("req-0", CLASS_A)),
              claim("claim-1", request("req-1", CLASS_B))]


def same_pool_name(b_set: str, b_counter: str, b_consumed: str, b_available: str
                   ) -> list[ResourceSlice]:
    """The slices of the two counter-cache cases: driver-a's pool-1 (counter-set-1 with c: 1,
    device-1 consuming c: 1) and driver-b's pool-1, whose device-2 consumes ``b_consumed`` of
    counter ``b_counter`` in counter set ``b_set``, which has ``b_available``."""
    return [devices("slice-1", POOL_1, 2, device("device-1", consumes={CS1: {"c": "1"}})),
            counters("slice-2", POOL_1, 2, {CS1: {"c": "1"}}),
            devices("slice-3", POOL_1, 2, device("device-2", consumes={
                b_set: {b_counter: b_consumed}}), driver=DRIVER_B),
            counters("slice-4", POOL_1, 2, {b_set: {b_counter: b_available}}, driver=DRIVER_B)]


#: device-1 of the two "...-with-binding-conditions-and-taints*" cases
TAINTED_BOUND = with_binding(mem("device-1", "4Gi", taints=(
    DeviceTaint("key1", "value1", "NoSchedule"),)), "IsPrepare", "BindingFailed")

#: the slices of "partitionable-devices-prioritized-list" and "...-multiple-devices"
FOUR_SIX_FOUR = [devices("slice-1", POOL_1, 2, mem("device-1", "4Gi"), mem("device-2", "6Gi"),
                         mem("device-3", "4Gi")),
                 counters("slice-2", POOL_1, 2, {CS1: {"memory": "8Gi"}})]

CASES: dict[str, Case] = {
    "partitionable-all-mode-constraint-must-error-with-reserved-counter": Case(
        [claim("claim-0", request("req-0", CLASS_A, 0, mode=ALLOCATION_MODE_ALL),
               constraints=(DeviceConstraint(match_attribute=INT_ATTR),))],
        [devices("slice-1", POOL_1, 2, device("device-1", None, {"numa": 1}),
                 device("device-2", None, {"numa": 2}, consumes={CS1: {"c": "1"}})),
         counters("slice-2", POOL_1, 2, {CS1: {"c": "1"}})],
        features=PART,
        error="claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 "
              "because a claim constraint would not be satisfied"),
    "partitionable-devices-counter-quantities-are-not-modified": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 2,
                 device("device-1", consumes={CS1: {"c": "9000000000000000000"}}),
                 device("device-2", consumes={CS1: {"c": "1"}})),
         counters("slice-2", POOL_1, 2, {CS1: {"c": "10000000000000000000"}})],
        allocated={(DRIVER_A, POOL_1, "device-1")}, features=PART,
        expect=[result(LOCAL_1, a("req-0", "device-2"))]),
    "partitionable-devices-counter-cache-scoped-by-pool-ID": Case(
        TWO_CLAIMS, same_pool_name(CS1, "c", "2", "2"), features=PART,
        expect=[result(LOCAL_1, a("req-0", "device-1")),
                result(LOCAL_1, a("req-1", "device-2", driver=DRIVER_B))]),
    "partitionable-devices-counter-cache-not-crossed-between-driver-schemas": Case(
        TWO_CLAIMS, same_pool_name(CS2, "d", "2", "1"), features=PART, expect=None),
    "partitionable-devices-taint-releases-counter": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 2,
                 device("device-1", consumes={CS1: {"c": "1"}},
                        taints=(DeviceTaint("taint-key", "taint-value", "NoSchedule"),)),
                 device("device-2", consumes={CS1: {"c": "1"}})),
         counters("slice-2", POOL_1, 2, {CS1: {"c": "1"}})],
        features=upstream_features("PartitionableDevices", "DeviceTaints"),
        expect=[result(LOCAL_1, a("req-0", "device-2"))]),
    "partitionable-devices-constraint-releases-counter": Case(
        [claim("claim-0", request("req-0", CLASS_A, 2),
               constraints=(DeviceConstraint(match_attribute=STRING_ATTR),))],
        [devices("slice-1", POOL_1, 2,
                 device("device-1", None, {"stringAttribute": "red"}, consumes={CS1: {"c": "1"}}),
                 device("device-2", None, {"stringAttribute": "blue"},
                        consumes={CS1: {"c": "1"}}),
                 device("device-3", None, {"stringAttribute": "blue"},
                        consumes={CS1: {"c": "1"}})),
         counters("slice-2", POOL_1, 2, {CS1: {"c": "2"}})],
        features=PART,
        expect=[result(LOCAL_1, a("req-0", "device-2"), a("req-0", "device-3"))]),
    "partitionable-devices-prioritized-list": Case(
        [claim("claim-0", request("req-0", CLASS_A), prioritized("req-1", "6Gi", "4Gi"))],
        FOUR_SIX_FOUR,
        features=PART_LIST,
        expect=[result(LOCAL_1, a("req-0", "device-1"), a("req-1/subReq-1", "device-3"))]),
    "partitionable-devices-multiple-devices": Case(
        [claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A))],
        FOUR_SIX_FOUR,
        features=PART,
        expect=[result(LOCAL_1, a("req-0", "device-1"), a("req-1", "device-3"))]),
    "partitionable-devices-multiple-capacity-pools": Case(
        [claim("claim-0", request("req-0", CLASS_A), prioritized("req-1", "6Gi", "4Gi"))],
        [devices("slice-1", POOL_1, 2,
                 device_from_counters("device-1", {CS1: {"memory": "4Gi"}, CS2: {"cpus": "4"}}),
                 device_from_counters("device-2", {CS1: {"memory": "6Gi"}, CS2: {"cpus": "6"}}),
                 device_from_counters("device-3", {CS1: {"memory": "4Gi"}, CS2: {"cpus": "4"}})),
         counters("slice-2", POOL_1, 2, {CS1: {"memory": "18Gi"}, CS2: {"cpus": "8"}})],
        features=PART_LIST,
        expect=[result(LOCAL_1, a("req-0", "device-1"), a("req-1/subReq-1", "device-3"))]),
    "partitionable-devices-multiple-counters": Case(
        [claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A))],
        [devices("slice-1", POOL_1, 2,
                 device_from_counters("device-1", {CS1: {"memory": "4Gi", "cpus": "6"},
                                                   CS2: {"cpus": "4", "memory": "2Gi"}}),
                 device_from_counters("device-2", {CS1: {"memory": "6Gi", "cpus": "4"},
                                                   CS2: {"cpus": "6", "memory": "6Gi"}}),
                 device_from_counters("device-3", {CS1: {"memory": "4Gi", "cpus": "4"},
                                                   CS2: {"cpus": "4", "memory": "4Gi"}})),
         counters("slice-2", POOL_1, 2, {CS1: {"cpus": "8", "memory": "18Gi"},
                                         CS2: {"cpus": "12", "memory": "18Gi"}})],
        features=PART,
        expect=[result(LOCAL_1, a("req-0", "device-2"), a("req-1", "device-3"))]),
    "partitionable-devices-multiple-pools": Case(
        [claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A))],
        [devices("slice-1", POOL_1, 2,
                 device_from_counters("device-1", {CS1: {"cpus": "6", "memory": "4Gi"}}),
                 device_from_counters("device-2", {CS1: {"cpus": "4", "memory": "6Gi"}}),
                 device_from_counters("device-3", {CS1: {"cpus": "4", "memory": "4Gi"}})),
         counters("slice-2", POOL_1, 2, {CS1: {"cpus": "8", "memory": "18Gi"}}),
         devices("slice-3", POOL_2, 2,
                 device_from_counters("device-1", {CS1: {"cpus": "6", "memory": "4Gi"}}),
                 device_from_counters("device-2", {CS1: {"cpus": "1", "memory": "7Gi"}}),
                 device_from_counters("device-3", {CS1: {"cpus": "1", "memory": "7Gi"}})),
         counters("slice-4", POOL_2, 2, {CS1: {"cpus": "8", "memory": "18Gi"}})],
        allocated={(DRIVER_A, POOL_1, "device-2"), (DRIVER_A, POOL_1, "device-3"),
                   (DRIVER_A, POOL_2, "device-1")},
        features=PART,
        expect=[result(LOCAL_1, a("req-0", "device-2", POOL_2),
                       a("req-1", "device-3", POOL_2))]),
    "partitionable-devices-unused-counters-in-counter-set": Case(
        [claim("claim-0", request("req-0", CLASS_A, 2))],
        [devices("slice-1", POOL_1, 2, device("device-1", consumes={CS1: {"memory": "5Gi"}}),
                 device("device-2", consumes={CS1: {"memory": "4Gi"}}),
                 device("device-3", consumes={CS1: {"memory": "4Gi"}})),
         counters("slice-2", POOL_1, 2, {CS1: {"memory": "8Gi", "unused": "1Gi"}})],
        features=PART,
        expect=[result(LOCAL_1, a("req-0", "device-2"), a("req-0", "device-3"))]),
    # sliceWithDevices(..., pool1, ...): each slice says its pool has one slice
    "partitionable-devices-no-capacity-available": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 1, mem("device-1", "4Gi"), mem("device-2", "16Gi")),
         counters("slice-2", POOL_1, 1, {CS1: {"memory": "18Gi"}})],
        allocated={(DRIVER_A, POOL_1, "device-2")}, features=PART, expect=None),
    "partitionable-devices-overallocated-capacity-pool": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 1, mem("device-1", "4Gi"), mem("device-2", "20Gi")),
         counters("slice-2", POOL_1, 1, {CS1: {"memory": "18Gi"}})],
        allocated={(DRIVER_A, POOL_1, "device-2")}, features=PART, expect=None),
    "partitionable-devices-disabled-device-consumes-counters": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 1, device("device-1", consumes={CS1: {"memory": "4Gi"}})),
         counters("slice-2", POOL_1, 1, {CS1: {"memory": "18Gi"}})],
        features=upstream_features(), expect=None),
    "partitionable-devices-disabled-other-device-do-not-consume-counters": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 2, device("device-1", consumes={CS1: {"memory": "4Gi"}}),
                 device("device-2")),
         counters("slice-2", POOL_1, 2, {CS1: {"memory": "18Gi"}})],
        features=upstream_features(), expect=[result(LOCAL_1, a("req-0", "device-2"))]),
    "partitionable-devices-disabled-per-device-node-selection": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 1, device("device-2", node_name=NODE_1),
                 node_selection=NODE_SELECTION_PER_DEVICE)],
        features=upstream_features(), expect=None),
    "partitionable-devices-per-device-node-selection-nodename": Case(
        [claim("claim-0", prioritized("req-0", "6Gi", "4Gi"))],
        [devices("slice-1", POOL_1, 2, mem("device-1", "4Gi", node_name=NODE_1),
                 mem("device-2", "6Gi", node_name=NODE_2),
                 node_selection=NODE_SELECTION_PER_DEVICE),
         counters("slice-2", POOL_1, 2, {CS1: {"memory": "18Gi"}},
                  node_selection=NODE_SELECTION_PER_DEVICE)],
        features=PART_LIST, expect=[result(LOCAL_1, a("req-0/subReq-1", "device-1"))]),
    "partitionable-devices-per-device-node-selection-node-selector": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 2, dataclasses.replace(
            mem("device-1", "4Gi"), node_selector=node_label_selector(REGION_KEY, REGION_1)),
            node_selection=NODE_SELECTION_PER_DEVICE),
         counters("slice-2", POOL_1, 2, {CS1: {"memory": "18Gi"}},
                  node_selection=NODE_SELECTION_PER_DEVICE)],
        features=PART_LIST,
        expect=[result(NodeSelector((NodeSelectorTerm(match_expressions=(
            NodeSelectorRequirement(REGION_KEY, "In", (REGION_1,)),)),)),
            a("req-0", "device-1"))]),
    "partitionable-devices-per-device-node-selection-node-selector-multiple-devices": Case(
        [claim("claim-0", request("req-0", CLASS_A, 3), request("req-1", CLASS_B, 3))],
        [devices("slice-1", POOL_1, 2,
                 dataclasses.replace(mem("device-1", "4Gi"),
                                     node_selector=node_label_selector(REGION_KEY, REGION_1)),
                 mem("device-2", "4Gi", node_name=NODE_1),
                 mem("device-3", "4Gi", all_nodes=True),
                 node_selection=NODE_SELECTION_PER_DEVICE),
         counters("slice-2", POOL_1, 2, {CS1: {"memory": "18Gi"}},
                  node_selection=NODE_SELECTION_PER_DEVICE),
         devices("slice-3", POOL_2, 2, mem("device-1", "4Gi", CS2), mem("device-2", "4Gi", CS2),
                 mem("device-3", "4Gi", CS2), driver=DRIVER_B),
         counters("slice-4", POOL_2, 2, {CS2: {"memory": "12Gi"}}, driver=DRIVER_B)],
        features=PART_LIST,
        expect=[result(LOCAL_1, a("req-0", "device-1"), a("req-0", "device-2"),
                       a("req-0", "device-3"), a("req-1", "device-1", POOL_2, DRIVER_B),
                       a("req-1", "device-2", POOL_2, DRIVER_B),
                       a("req-1", "device-3", POOL_2, DRIVER_B))]),
    "partitionable-devices-with-attribute-selector": Case(
        [claim("claim-0", request("req-0", CLASS_A, 2),
               request("req-1", CLASS_A, 1, f'device.attributes["{DRIVER_A}"].special'))],
        [devices("slice-1", POOL_1, 2,
                 device("device-1", None, {"special": True},
                        consumes={CS1: {"cpu1": "1"}, CS2: {"mem": "10Gi"}}),
                 device("device-2", None, {"special": False},
                        consumes={CS1: {"cpu2": "1"}, CS2: {"mem": "10Gi"}}),
                 device("device-3", None, {"special": False},
                        consumes={CS1: {"cpu3": "1"}, CS2: {"mem": "10Gi"}})),
         counters("slice-2", POOL_1, 2, {CS1: {"cpu1": "1", "cpu2": "1", "cpu3": "1"},
                                         CS2: {"mem": "30Gi"}})],
        features=PART,
        expect=[result(LOCAL_1, a("req-0", "device-2"), a("req-0", "device-3"),
                       a("req-1", "device-1"))]),
    "partitionable-devices-with-binding-conditions": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 2,
                 with_binding(mem("device-1", "4Gi"), "IsPrepare", "BindingFailed")),
         counters("slice-2", POOL_1, 2, {CS1: {"memory": "8Gi"}})],
        features=PART_BINDING,
        full=[full_result(LOCAL_1, bound("device-1", "IsPrepare", "BindingFailed"))]),
    "partitionable-devices-with-binding-conditions-multiple": Case(
        [claim("claim-0", request("req-0", CLASS_A, 2))],
        [devices("slice-1", POOL_1, 2,
                 with_binding(mem("device-1", "4Gi"), "IsPrepare", "BindingFailed"),
                 with_binding(mem("device-2", "4Gi"), "IsPrepare2", "BindingFailed2")),
         counters("slice-2", POOL_1, 2, {CS1: {"memory": "8Gi"}})],
        features=PART_BINDING,
        full=[full_result(LOCAL_1, bound("device-1", "IsPrepare", "BindingFailed"),
                          bound("device-2", "IsPrepare2", "BindingFailed2"))]),
    "partitionable-devices-with-binding-conditions-some-devices-no-conditions": Case(
        [claim("claim-0", request("req-0", CLASS_A, 3))],
        [devices("slice-1", POOL_1, 2,
                 with_binding(mem("device-1", "2Gi"), "IsPrepare", "BindingFailed"),
                 mem("device-2", "2Gi"),
                 with_binding(mem("device-3", "4Gi"), "IsReady", "BindingTimeout")),
         counters("slice-2", POOL_1, 2, {CS1: {"memory": "8Gi"}})],
        features=PART_BINDING,
        full=[full_result(LOCAL_1, bound("device-1", "IsPrepare", "BindingFailed"),
                          bound("device-2"), bound("device-3", "IsReady", "BindingTimeout"))]),
    "partitionable-devices-with-binding-conditions-multi-slices": Case(
        [claim("claim-0", request("req-0", CLASS_A, 2))],
        [devices("slice-4", POOL_1, 4,
                 with_binding(mem("device-1", "4Gi"), "IsPrepare", "BindingFailed")),
         counters("slice-3", POOL_1, 4, {CS1: {"memory": "8Gi"}}),
         devices("slice-2", POOL_1, 4, mem("device-2", "4Gi", CS2)),
         counters("slice-1", POOL_1, 4, {CS2: {"memory": "8Gi"}})],
        features=PART_BINDING,
        full=[full_result(LOCAL_1, bound("device-2"),
                          bound("device-1", "IsPrepare", "BindingFailed"))]),
    "partitionable-devices-with-binding-conditions-and-taints": Case(
        [claim("claim-0", request("req-0", CLASS_A, 2))],
        [devices("slice-1", POOL_1, 1,
                 TAINTED_BOUND,
                 mem("device-2", "4Gi")),
         counters("slice-2", POOL_1, 1, {CS1: {"memory": "8Gi"}})],
        features=PART_BINDING_TAINTS, expect=None),
    "partitionable-devices-with-binding-conditions-and-taints-tolerated": Case(
        [claim("claim-0", request("req-0", CLASS_A, 2, tolerations=(TOLERATION_KEY1,)))],
        [devices("slice-1", POOL_1, 2, TAINTED_BOUND, mem("device-2", "4Gi")),
         counters("slice-2", POOL_1, 2, {CS1: {"memory": "8Gi"}})],
        features=PART_BINDING_TAINTS,
        full=[full_result(LOCAL_1, bound("device-1", "IsPrepare", "BindingFailed",
                                         tolerations=(TOLERATION_KEY1,)),
                          bound("device-2", tolerations=(TOLERATION_KEY1,)))]),
    "partitionable-devices-same-counter-set-name-in-different-resource-slices": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 4, device("device-1")),
         counters("slice-2", POOL_1, 4, {CS1: {}}),
         devices("slice-3", POOL_1, 4, device("device-2")),
         counters("slice-4", POOL_1, 4, {CS1: {}})],
        features=PART, error=INVALID),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-set": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 2, device("device-1", consumes={CS2: {}})),
         counters("slice-2", POOL_1, 2, {CS1: {}})],
        features=PART, error=INVALID),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-"
    "set": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [devices("slice-1", POOL_1, 2, device("device-1", consumes={CS1: {"memory": "8Gi"}})),
         counters("slice-2", POOL_1, 2, {CS1: {"other-memory": "8Gi"}})],
        features=PART, error=INVALID),
    "partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool":
        Case([claim("claim-0", request("req-0", CLASS_A))],
             [devices("slice-1", POOL_1, 1,
                      device("device-1", consumes={CS1: {"memory": "8Gi"}})),
              counters("slice-2", POOL_2, 1, {CS1: {"memory": "8Gi"}})],
             features=PART, error=INVALID),
    "partitionable-devices-devices-on-different-nodes-consume-same-counter-set": Case(
        [claim("claim-0", prioritized("req-0", "6Gi", "2Gi"))],
        [counters("slice-1", POOL_1, 3, {CS1: {"memory": "8Gi"}}),
         devices("slice-2", POOL_1, 3, mem("device-1", "6Gi"), mem("device-2", "2Gi")),
         devices("slice-3", POOL_1, 3, device("device-3", consumes={CS1: {"memory": "6Gi"}}),
                 node_selection=NODE_2)],
        allocated={(DRIVER_A, POOL_1, "device-3")}, features=PART_LIST,
        expect=[result(LOCAL_1, a("req-0/subReq-1", "device-2"))]),
    "partitionable-devices-devices-consume-counter-set-in-different-nodes": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [counters("slice-1", POOL_1, 3, {CS1: {"memory": "8Gi"}}),
         devices("slice-2", POOL_1, 3, mem("device-1", "6Gi")),
         devices("slice-3", POOL_1, 3, mem("device-2", "6Gi"), mem("device-3", "2Gi"),
                 node_selection=NODE_2)],
        allocated={(DRIVER_A, POOL_1, "device-1")}, node=node(NODE_2, REGION_1),
        features=PART, expect=[result(local_node_selector(NODE_2), a("req-0", "device-3"))]),
    "partitionable-devices-validation-error-on-non-targeting-slice": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [counters("slice-1", POOL_1, 3, {CS1: {"memory": "8Gi"}}),
         devices("slice-2", POOL_1, 3, mem("device-1", "6Gi")),
         devices("slice-3", POOL_1, 3, device("device-3", consumes={CS2: {"memory": "6Gi"}}),
                 node_selection=NODE_2)],
        features=PART, error=INVALID),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_allocator_table_partitionable(name: str) -> None:
    """One case of allocator_testing.go's ``TestAllocator`` table (see the module docstring)."""
    check_case(CASES[name])

