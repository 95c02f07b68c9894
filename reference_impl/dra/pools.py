"""The resource pools a node sees: ``GatherPools`` of the structured allocator's "incubating"
variant (k8s.io/dynamic-resource-allocation/structured/internal/incubating/pools_incubating.go,
v0.37.2), the variant the default features of v1.37.2 select (docs/dra.md).

A pool is (driver, pool name). Only the slices of its newest generation count; a pool whose
slices are not all there is incomplete (unless a newer generation exists anywhere: then it is
obsolete and dropped); duplicate device names or unknown counter sets make it invalid. Pools
are sorted by driver then pool name, those with binding conditions last (unless the variant
the features select does not reorder them: ``dra/variants.py``); a pool's slices by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from reference_impl.api.node_selectors import new_node_selector
from reference_impl.model.dra import CounterSet, ResourceSlice
from reference_impl.model.objects import Node, NodeSelector

PoolID = tuple[str, str]  # (driver, pool)


@dataclass(slots=True)
class Pool:
    """``Pool``: its slices that target the node, the others (for counters), counter sets."""

    pool_id: PoolID
    is_incomplete: bool = False
    is_invalid: bool = False
    invalid_reason: str = ""
    device_slices_targeting_node: list[ResourceSlice] = field(default_factory=list)
    device_slices_not_targeting_node: list[ResourceSlice] = field(default_factory=list)
    counter_sets: dict[str, CounterSet] = field(default_factory=dict)

    @property
    def driver(self) -> str:
        return self.pool_id[0]

    @property
    def pool(self) -> str:
        return self.pool_id[1]


def node_matches(node: Node | None, node_name: str, all_nodes: bool,
                 node_selector: NodeSelector | None) -> bool:
    """``NodeMatches``: by name, all nodes, or a node selector (``nodeaffinity``)."""
    if node_name:
        return node is not None and node.name == node_name
    if all_nodes:
        return True
    if node_selector is not None:
        return new_node_selector(node_selector).match(node)
    return False


def _add_slice(pools: dict[PoolID, list[ResourceSlice]], s: ResourceSlice) -> None:
    """``addSlice``: only the newest generation of a pool is kept."""
    key = (s.driver, s.pool)
    current = pools.get(key)
    if current is None or s.generation > current[0].generation:
        pools[key] = [s]
    elif s.generation == current[0].generation:
        current.append(s)


def _check_slices_in_pool(all_slices: Sequence[ResourceSlice], pool_id: PoolID,
                          generation: int) -> tuple[bool, list[ResourceSlice]]:
    """``checkSlicesInPool``: (obsolete, the slices of that generation anywhere)."""
    out = []
    for s in all_slices:
        if (s.driver, s.pool) != pool_id:
            continue
        if s.generation == generation:
            out.append(s)
        elif s.generation > generation:
            return True, []
    return False, out


def _build_pool(pool_id: PoolID, slices: list[ResourceSlice], partitionable: bool,
                all_slices_for_pool: Sequence[ResourceSlice] = ()) -> Pool:
    """``buildPool``."""
    slices = sorted(slices, key=lambda s: s.name)
    device_slices: list[ResourceSlice] = []
    counter_slices: list[ResourceSlice] = []
    not_targeting: list[ResourceSlice] = []
    for s in slices:
        (counter_slices if partitionable and s.shared_counters else device_slices).append(s)
    if len(slices) < len(all_slices_for_pool):
        names = {s.name for s in slices}
        for s in all_slices_for_pool:
            if s.name in names:
                continue
            (counter_slices if partitionable and s.shared_counters else not_targeting).append(s)
    seen: set[str] = set()
    for s in device_slices:
        for d in s.devices:
            if d.name in seen:
                return Pool(pool_id, is_invalid=True,
                            invalid_reason=f"duplicate device name {d.name}")
            seen.add(d.name)
    if not partitionable:
        return Pool(pool_id, device_slices_targeting_node=device_slices)
    counter_sets: dict[str, CounterSet] = {}
    for s in counter_slices:
        for cs in s.shared_counters:
            if cs.name in counter_sets:
                return Pool(pool_id, is_invalid=True,
                            invalid_reason=f"duplicate counter set name {cs.name}")
            counter_sets[cs.name] = cs
    for group in (device_slices, not_targeting):
        for s in group:
            for d in s.devices:
                for c in d.consumes_counters:
                    found = counter_sets.get(c.counter_set)
                    if found is None:
                        return Pool(pool_id, is_invalid=True,
                                    invalid_reason=f"counter set {c.counter_set} not found")
                    names = {n for n, _ in found.counters}
                    for n, _ in c.counters:
                        if n not in names:
                            return Pool(pool_id, is_invalid=True,
                                        invalid_reason=f"counter {n} not found in counter "
                                                       f"set {found.name}")
    return Pool(pool_id, device_slices_targeting_node=device_slices,
                device_slices_not_targeting_node=not_targeting, counter_sets=counter_sets)


def _has_binding_conditions(pool: Pool) -> bool:
    return any(d.binding_conditions for s in pool.device_slices_targeting_node
               for d in s.devices)


#: the variants of switch dra-counter-slices-relevant (``gather_pools``' ``counter_slices``)
COUNTER_SLICE_RULES = ("node-selection", "always", "kept-when-off")


def gather_pools(slices_for_node: Sequence[ResourceSlice], node: Node | None,
                 all_slices: Sequence[ResourceSlice], *, partitionable: bool = True,
                 binding_last: bool = True, counter_slices: str = "node-selection"
                 ) -> list[Pool]:
    """``GatherPools``: the pools of the slices relevant to ``node``. ``binding_last``: the
    pools with binding conditions after the others (poolHasBindingConditions), as the
    variant the enabled features select does or not (reference_impl/dra/variants.py).
    ``counter_slices`` (switch dra-counter-slices-relevant): a slice with shared counters is
    relevant by its node selection (``node-selection``), whatever it (``always``: "Always
    include slices with SharedCounters", pools_incubating.go of v0.35.4 and v0.36.3), or by
    its node selection and kept while partitionable devices are off (``kept-when-off``:
    v0.34.4 skips only per-device node selection then)."""
    pools: dict[PoolID, list[ResourceSlice]] = {}
    for s in slices_for_node:
        if not partitionable and (s.per_device_node_selection is not None or (
                s.shared_counters and counter_slices != "kept-when-off")):
            continue
        if counter_slices == "always" and s.shared_counters:
            relevant = True
        elif s.node_name or s.all_nodes or s.node_selector is not None:
            relevant = node_matches(node, s.node_name or "", bool(s.all_nodes), s.node_selector)
        elif s.per_device_node_selection:
            relevant = any(node_matches(node, d.node_name or "", bool(d.all_nodes),
                                        d.node_selector) for d in s.devices)
        else:
            continue
        if relevant:
            _add_slice(pools, s)
    result: list[Pool] = []
    with_binding: list[Pool] = []
    for pool_id, pool_slices in pools.items():
        count = pool_slices[0].resource_slice_count
        if len(pool_slices) == count:
            pool = _build_pool(pool_id, pool_slices, partitionable)
        else:
            obsolete, all_for_pool = _check_slices_in_pool(all_slices, pool_id,
                                                           pool_slices[0].generation)
            if obsolete:
                continue
            if len(all_for_pool) != count:
                result.append(Pool(pool_id, is_incomplete=True))
                continue
            pool = _build_pool(pool_id, pool_slices, partitionable, all_for_pool)
        (with_binding if binding_last and _has_binding_conditions(pool) else result
         ).append(pool)
    result.sort(key=lambda p: p.pool_id)
    with_binding.sort(key=lambda p: p.pool_id)
    return result + with_binding
