"""DRA model objects for tests, named like the generators of upstream's allocator tests
(k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/allocator_testing.go,
v0.37.2): ``node``, ``device_class``, ``request``, ``sub_request``, ``claim``, ``device``,
``slice_with_devices``, ``local_node_selector``, ``node_label_selector``."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping

from reference_impl.model.dra import (
    ALLOCATION_MODE_EXACT_COUNT,
    AttributeValue,
    CounterSet,
    Device,
    DeviceCapacity,
    DeviceClaimConfiguration,
    DeviceClass,
    DeviceConstraint,
    DeviceCounterConsumption,
    DeviceRequest,
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
