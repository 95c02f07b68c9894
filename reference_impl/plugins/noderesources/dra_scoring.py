"""How the resource-allocation scorers count extended resources backed by DRA.

Upstream: ``pkg/scheduler/framework/plugins/noderesources/resource_allocation.go`` of v1.37.2
(identical in v1.36.3; v1.35.4 adds the pod's request at the same place, same numbers; v1.34.4
has none of it): ``getDRAPreScoredParams`` (PreScore: the allocated devices and all slices,
only when a configured resource is a DRA extended resource name that a DeviceClass maps),
``calculateDRAExtendedResourceAllocatableRequest`` and ``calculateDRAResourceTotals`` (Score: on
a node whose allocatable lacks the resource, allocatable = the devices on the node that match
the class, allocated = those of them allocated), ``deviceMatchesClass`` (the class's CEL
selectors). Behind the ``DRAExtendedResource`` gate. docs/reference.md#resource-allocation-scorer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reference_impl.config.args import ResourceSpec
from reference_impl.dra.allocator import DeviceID
from reference_impl.dra.cel import (
    DEFAULT_OPTIONS,
    CELCompileError,
    CELMatchError,
    CELOptions,
    CompiledSelector,
    DeviceView,
)
from reference_impl.dra.cel_runtime_cost import compile_selector
from reference_impl.dra.extendedresourcecache import ExtendedResourceCache
from reference_impl.dra.pools import node_matches
from reference_impl.framework.status import PluginError
from reference_impl.model.dra import Device, DeviceClass, DRAObjects, ResourceSlice
from reference_impl.model.objects import Node
from reference_impl.plugins.dynamicresources.dra_manager import DRAManager
from reference_impl.plugins.dynamicresources.extendeddynamicresources import (
    is_dra_extended_resource_name,
)


class DRAScoringError(Exception):
    """An error ``calculateDRAResourceTotals`` returns (a selector that does not compile or
    fails at runtime): upstream logs it and scores the resource as absent on that node."""


@dataclass(frozen=True, slots=True)
class DRAPreScoreState:
    """``draPreScoreState`` (balanced_allocation.go) with the DRA manager's resolver:
    ``allocated`` is ``GatherAllocatedState`` (the devices of every allocated claim and of the
    allocations in flight, admin access excluded), ``slices`` ``ListWithDeviceTaintRules``."""

    resolver: ExtendedResourceCache
    allocated: frozenset[DeviceID]
    slices: tuple[ResourceSlice, ...]


def get_dra_pre_scored_params(
    objects: DRAObjects, resources: Sequence[ResourceSpec]
) -> DRAPreScoreState | None:
    """``getDRAPreScoredParams``: None unless some configured resource is a DRA extended
    resource name that a DeviceClass maps (``DeviceClassResolver().GetDeviceClass``)."""
    resolver = ExtendedResourceCache(objects.device_classes.values())
    if not any(
        is_dra_extended_resource_name(r.name) and resolver.get_device_class(r.name)
        for r in resources
    ):
        return None
    manager = DRAManager(objects)
    return DRAPreScoreState(
        resolver, frozenset(manager.list_all_allocated_devices()), tuple(manager.list_slices())
    )


class DeviceClassMatcher:
    """``deviceMatchesClass`` with the scorer's CEL cache (compiled expressions, kept for the
    plugin's lifetime like upstream's ``celCache``; ``consumable_capacity`` is the
    DRAConsumableCapacity feature of that cache; ``options``: the release's CEL, switches
    dra-cel-includes and dra-cel-go)."""

    __slots__ = ("consumable_capacity", "options", "_compiled")

    def __init__(self, consumable_capacity: bool, options: CELOptions = DEFAULT_OPTIONS) -> None:
        self.consumable_capacity = consumable_capacity
        self.options = options
        self._compiled: dict[str, CompiledSelector | CELCompileError] = {}

    def _compile(self, expression: str) -> CompiledSelector | CELCompileError:
        got = self._compiled.get(expression)
        if got is None:
            try:
                got = compile_selector(expression, self.consumable_capacity, self.options)
            except CELCompileError as e:
                got = e
            self._compiled[expression] = got
        return got

    def matches(self, device: Device, cls: DeviceClass, driver: str) -> bool:
        """Every CEL selector of the class matches the device; the first that does not
        ends the check (later selectors are not evaluated). Raises :class:`DRAScoringError`
        for a compile or runtime error. The CEL device carries the driver, attributes and
        capacity only (no allowMultipleAllocations: it reads as false)."""
        for sel in cls.selectors:
            compiled = self._compile(sel.cel)
            if isinstance(compiled, CELCompileError):
                raise DRAScoringError(str(compiled))
            try:
                ok = compiled.device_matches(
                    DeviceView(driver, device.attributes, device.capacity, None)
                )
            except CELMatchError as e:
                raise DRAScoringError(str(e)) from None
            if not ok:
                return False
        return True


class NilCacheMatcher(DeviceClassMatcher):
    """BalancedAllocation's ``deviceMatchesClass`` in v1.36/v1.37: ``NewBalancedAllocation``
    sets ``draManager`` but never the CEL cache (only ``NewFit`` does), so the first selector
    evaluated calls ``GetOrCompile`` on a nil ``*cel.Cache``: a nil pointer dereference, a
    panic that ends the scheduler. Here an Error of the plugin (PluginError)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(False)

    def _compile(self, expression: str) -> CompiledSelector | CELCompileError:
        raise PluginError(
            "NodeResourcesBalancedAllocation: not supported: a DeviceClass "
            "selector for a DRA-backed extended resource (upstream evaluates "
            "it with a nil CEL cache: a panic)"
        )


def _devices_on_node(s: ResourceSlice, node: Node) -> Sequence[Device] | None:
    """The slice's devices ``calculateDRAResourceTotals`` counts on ``node`` (None: the slice
    is skipped). Per-device node selection: a device with allNodes or the node's name, or
    whose node selector matches. Else the whole slice unless it names another node, or
    (neither allNodes nor the node's name) its node selector does not match; a slice with no
    node field at all counts everywhere."""
    name = node.name
    if s.per_device_node_selection:
        out = []
        for d in s.devices:
            d_name = d.node_name or ""
            if d.all_nodes or (d_name and d_name == name):
                out.append(d)
            elif d.node_selector is not None and node_matches(
                node, d_name, bool(d.all_nodes), d.node_selector
            ):
                out.append(d)
        return out
    s_name = s.node_name or ""
    if not s.all_nodes and s_name != name and s.node_selector is not None:
        if not node_matches(node, s_name, bool(s.all_nodes), s.node_selector):
            return None
    elif not s.all_nodes and s_name and s_name != name:
        return None
    return s.devices


def calculate_dra_resource_totals(
    node: Node, cls: DeviceClass, state: DRAPreScoreState, matcher: DeviceClassMatcher
) -> tuple[int, int]:
    """``calculateDRAResourceTotals``: (devices on the node matching the class, how many of
    them are allocated), over every slice listed (all generations, any driver: a class
    without selectors matches every device). Raises :class:`DRAScoringError`."""
    capacity = allocated = 0
    for s in state.slices:
        devices = _devices_on_node(s, node)
        if not devices:
            continue
        for d in devices:
            if cls.selectors and not matcher.matches(d, cls, s.driver):
                continue
            capacity += 1
            if (s.driver, s.pool, d.name) in state.allocated:
                allocated += 1
    return capacity, allocated


def dra_extended_resource_allocatable_request(
    node: Node, resource: str, state: DRAPreScoreState, matcher: DeviceClassMatcher
) -> tuple[int, int]:
    """``calculateDRAExtendedResourceAllocatableRequest``: (allocatable, allocated) of the
    class that maps ``resource``; (0, 0) when none does or on an error."""
    cls = state.resolver.get_device_class(resource)
    if cls is None:
        return 0, 0
    try:
        return calculate_dra_resource_totals(node, cls, state, matcher)
    except DRAScoringError:
        return 0, 0
