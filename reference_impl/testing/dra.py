"""DRA model objects for tests, named like the generators of upstream's allocator tests
(k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/allocator_testing.go,
v0.37.2): ``node``, ``device_class``, ``request``, ``sub_request``, ``claim``, ``device``,
``slice_with_devices``, ``local_node_selector``, ``node_label_selector``."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from reference_impl.model.dra import (
    ALLOCATION_MODE_EXACT_COUNT,
    AttributeValue,
    CapacityRequirements,
    CounterSet,
    Device,
    DeviceCapacity,
    DeviceClaimConfiguration,
    DeviceClass,
    DeviceConstraint,
    DeviceCounterConsumption,
    DeviceRequest,
    DeviceRequestAllocationResult,
    DeviceSelector,
    DeviceSubRequest,
    DeviceTaint,
    DeviceToleration,
    ExactDeviceRequest,
    OpaqueDeviceConfiguration,
    ResourceClaim,
    ResourceClaimSpec,
    ResourceSlice,
)
from reference_impl.model.objects import (
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from reference_impl.model.quantity import parse_quantity_string

REGION_KEY = "region"
PLANET_KEY = "planet"
PLANET_VALUE_EARTH = "earth"
#: the ``nodeSelection`` of a slice for all nodes, and for per-device node selection
NODE_SELECTION_ALL = "<all>"
NODE_SELECTION_PER_DEVICE = "<per-device>"


def node(name: str, region: str) -> Node:
    return Node(name, labels={REGION_KEY: region, PLANET_KEY: PLANET_VALUE_EARTH})


def device_class(name: str, driver: str) -> DeviceClass:
    """``class``: selects the devices of ``driver``."""
    return DeviceClass(name, (DeviceSelector(f'device.driver == "{driver}"'),))


def request(name: str, class_name: str, count: int = 1, *selectors: str,
            mode: str = ALLOCATION_MODE_EXACT_COUNT, admin_access: bool | None = None,
            tolerations: tuple[DeviceToleration, ...] = ()) -> DeviceRequest:
    return DeviceRequest(name, exactly=ExactDeviceRequest(
        class_name, tuple(DeviceSelector(s) for s in selectors), mode,
        count if mode == ALLOCATION_MODE_EXACT_COUNT else 0, admin_access, tolerations))


def sub_request(name: str, class_name: str, count: int = 1, *selectors: str,
                mode: str = ALLOCATION_MODE_EXACT_COUNT) -> DeviceSubRequest:
    return DeviceSubRequest(name, ExactDeviceRequest(
        class_name, tuple(DeviceSelector(s) for s in selectors), mode,
        count if mode == ALLOCATION_MODE_EXACT_COUNT else 0))


def request_with_prioritized_list(name: str, *subs: DeviceSubRequest) -> DeviceRequest:
    return DeviceRequest(name, first_available=subs)


def claim(name: str, *requests: DeviceRequest,
          constraints: tuple[DeviceConstraint, ...] = ()) -> ResourceClaim:
    """A claim without a namespace (as upstream's, so messages say ``claim claim-0``)."""
    return ResourceClaim("", name, f"uid-{name}", ResourceClaimSpec(requests, constraints))


def device(name: str, capacity: Mapping[str, str] | None = None,
           attributes: Mapping[str, AttributeValue] | None = None, *,
           consumes: Mapping[str, Mapping[str, str]] | None = None,
           taints: tuple[DeviceTaint, ...] = (), node_name: str | None = None,
           all_nodes: bool | None = None, binding_conditions: tuple[str, ...] = ()) -> Device:
    return Device(
        name,
        tuple((attributes or {}).items()),
        tuple((k, DeviceCapacity(parse_quantity_string(v))) for k, v in (capacity or {}).items()),
        tuple(DeviceCounterConsumption(cs, tuple((n, parse_quantity_string(q))
                                                 for n, q in counters.items()))
              for cs, counters in (consumes or {}).items()),
        node_name=node_name, all_nodes=all_nodes, taints=taints,
        binding_conditions=binding_conditions)


def slice_with_devices(name: str, node_selection: str | NodeSelector, pool: str, driver: str,
                       *devices: Device, slice_count: int = 1, generation: int = 1,
                       counter_sets: Mapping[str, Mapping[str, str]] | None = None
                       ) -> ResourceSlice:
    """``sliceWithDevices``: ``node_selection`` is a node name, a selector,
    :data:`NODE_SELECTION_ALL` or :data:`NODE_SELECTION_PER_DEVICE`."""
    where: dict = {}
    if isinstance(node_selection, NodeSelector):
        where["node_selector"] = node_selection
    elif node_selection == NODE_SELECTION_ALL:
        where["all_nodes"] = True
    elif node_selection == NODE_SELECTION_PER_DEVICE:
        where["per_device_node_selection"] = True
    else:
        where["node_name"] = node_selection
    shared = tuple(CounterSet(n, tuple((c, parse_quantity_string(q)) for c, q in cs.items()))
                   for n, cs in (counter_sets or {}).items())
    return ResourceSlice(name, driver, pool, generation, slice_count, devices=devices,
                         shared_counters=shared, **where)


def node_label_selector(key: str, *values: str) -> NodeSelector:
    return NodeSelector((NodeSelectorTerm(match_expressions=(
        NodeSelectorRequirement(key, "In", values),)),))


def local_node_selector(node_name: str) -> NodeSelector:
    return NodeSelector((NodeSelectorTerm(match_fields=(
        NodeSelectorRequirement("metadata.name", "In", (node_name,)),)),))


def sub_request_tolerating(sub: DeviceSubRequest, *tolerations: DeviceToleration
                           ) -> DeviceSubRequest:
    """``subRequest(name, class, count, toleration...)``: ``sub`` with these tolerations."""
    return DeviceSubRequest(sub.name, replace(sub.exactly, tolerations=tolerations))


def device_from_counters(name: str, consumes: Mapping[str, Mapping[str, str]],
                         **kw: Any) -> Device:
    """``device(name, fromCounters, nil).withDeviceCounterConsumption(...)``: the capacity is
    each consumed counter's quantity (a later counter set's wins, as the loop over the
    ``ConsumesCounters`` slice does)."""
    capacity = {n: q for counters in consumes.values() for n, q in counters.items()}
    return device(name, capacity, consumes=consumes, **kw)


def device_result(request: str, driver: str, pool: str, device_name: str, *,
                  share_id: str | None = None, consumed: Mapping[str, str] | None = None,
                  binding_conditions: tuple[str, ...] = (),
                  binding_failure_conditions: tuple[str, ...] = (),
                  tolerations: tuple[DeviceToleration, ...] = ()
                  ) -> DeviceRequestAllocationResult:
    """``deviceAllocationResult`` / ``deviceRequestAllocationResult(...).withConsumedCapacity``
    / ``deviceRequestAllocationResultWithBindingConditions``: the whole result."""
    return DeviceRequestAllocationResult(
        request, driver, pool, device_name, share_id=share_id,
        consumed_capacity=tuple(sorted((n, parse_quantity_string(q))
                                       for n, q in (consumed or {}).items())),
        binding_conditions=binding_conditions,
        binding_failure_conditions=binding_failure_conditions, tolerations=tolerations)


def class_with_allow_multiple_allocations(name: str, driver: str, multi: bool) -> DeviceClass:
    """``classWithAllowMultipleAllocations``."""
    return DeviceClass(name, (DeviceSelector(
        f'device.driver == "{driver}" && device.allowMultipleAllocations == '
        f'{str(multi).lower()}'),))


def with_capacity_request(r: DeviceRequest, amount: str) -> DeviceRequest:
    """``withCapacityRequest``: ``capacity.requests["capacity-0"]``."""
    assert r.exactly is not None
    return dataclasses.replace(r, exactly=dataclasses.replace(r.exactly, capacity=(
        CapacityRequirements((("capacity-0", parse_quantity_string(amount)),)))))
def device_configuration(driver: str, attribute: str) -> OpaqueDeviceConfiguration:
    """``deviceConfiguration``: opaque parameters ``{attribute: attribute + "Value"}``."""
    return OpaqueDeviceConfiguration(driver, json.dumps({attribute: attribute + "Value"},
                                                        separators=(",", ":")))


def class_with_config(name: str, driver: str, attribute: str) -> DeviceClass:
    """``classWithConfig``."""
    return dataclasses.replace(device_class(name, driver),
                               config=(device_configuration(driver, attribute),))


def with_configs(c: ResourceClaim, *configs: DeviceClaimConfiguration) -> ResourceClaim:
    """``.withConfigs``: the claim with ``spec.devices.config``."""
    return dataclasses.replace(c, spec=dataclasses.replace(c.spec, config=configs))


def slice_with_multiple_devices(name: str, node_selection: str | NodeSelector, pool: str,
                                driver: str, count: int) -> ResourceSlice:
    """``sliceWithMultipleDevices``: devices ``device-0`` .. ``device-{count-1}``."""
    return slice_with_devices(name, node_selection, pool, driver,
                              *(device(f"device-{i}") for i in range(count)))
