"""Why no device fits: the detail ``explain`` adds to DynamicResources' Filter verdict.

Upstream has no counterpart: its Filter says only ``cannot allocate all claims``, and the
simulation keeps that reason. For ``kschedconf explain`` this module counts, for each request
(or subrequest) of each claim to allocate, the devices of the node's usable pools
(``GatherPools``), those the device class selects, those the request's selectors also select,
and those of them not allocated already (to claims, or in flight). Device taints, per-device
node selection, counters and constraints are not counted: when every request has enough free
devices on its own, the message says the requests did not fit together.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference_impl.dra.allocator import Allocator
from reference_impl.dra.cel import CELCompileError, CELMatchError, DeviceView
from reference_impl.dra.pools import gather_pools
from reference_impl.model.dra import (
    ALLOCATION_MODE_ALL,
    Device,
    DeviceSelector,
    ExactDeviceRequest,
    ResourceClaim,
)
from reference_impl.model.objects import Node


def _matches(a: Allocator, driver: str, d: Device, selectors: Sequence[DeviceSelector]
             ) -> bool | str:
    """True/False, or the text of a CEL error."""
    for sel in selectors:
        compiled = a.compiled(sel.cel)
        if isinstance(compiled, CELCompileError):
            return f"CEL compile error in {sel.cel!r}: {compiled}"
        try:
            if not compiled.device_matches(DeviceView(driver, d.attributes, d.capacity,
                                                      d.allow_multiple_allocations)):
                return False
        except CELMatchError as e:
            return f"CEL runtime error in {sel.cel!r}: {e}"
    return True


def _request_detail(a: Allocator, node: Node, claim: ResourceClaim, name: str,
                    r: ExactDeviceRequest) -> tuple[str, bool]:
    """The line for one (sub)request, and whether it has enough free devices alone."""
    where = f"claim {claim.namespace}/{claim.name}, request {name}"
    cls = a.classes.get(r.device_class_name)
    if cls is None:
        return f"{where}: device class {r.device_class_name} does not exist", False
    pools = gather_pools(a.slices_for(node), node, a.all_slices, partitionable=a.partitionable,
                         binding_last=a.binding_pools_last,
                         counter_slices=a.counter_slices)
    total = in_class = selected = free = 0
    errors: list[str] = []
    unusable = [f"{p.driver}/{p.pool}" for p in pools if p.is_incomplete or p.is_invalid]
    for pool in pools:
        if pool.is_incomplete or pool.is_invalid:
            continue
        for s in pool.device_slices_targeting_node:
            for d in s.devices:
                total += 1
                ok = _matches(a, s.driver, d, cls.selectors)
                if isinstance(ok, str):
                    errors.append(ok)
                if ok is not True:
                    continue
                in_class += 1
                ok = _matches(a, s.driver, d, r.selectors)
                if isinstance(ok, str):
                    errors.append(ok)
                if ok is not True:
                    continue
                selected += 1
                if r.admin_access or (s.driver, s.pool, d.name) not in a.allocated:
                    free += 1
    need = (f"all {selected} device(s)" if r.allocation_mode == ALLOCATION_MODE_ALL
            else f"{r.count} device(s)")
    enough = free >= (selected if r.allocation_mode == ALLOCATION_MODE_ALL else r.count)
    text = (f"{where}: needs {need} of class {r.device_class_name}; of {total} device(s) on "
            f"the node, {in_class} match the class's selectors, {selected} also match the "
            f"request's selectors, {free} of those are free")
    if unusable:
        text += f"; pools skipped (incomplete or invalid): {', '.join(unusable)}"
    if errors:
        text += f"; {errors[0]}"
    return text, enough and not errors


def why_no_device_fits(a: Allocator, node: Node, claims: Sequence[ResourceClaim]
                       ) -> list[str]:
    """One line per request of the claims to allocate, then a line when each request alone
    has enough free devices (so taints, constraints, counters or the requests together are
    what failed)."""
    lines: list[str] = []
    all_enough = True
    for claim in claims:
        for req in claim.spec.requests:
            if req.exactly is not None:
                text, enough = _request_detail(a, node, claim, req.name, req.exactly)
                lines.append(text)
                all_enough &= enough
                continue
            any_enough = False
            for sub in req.first_available:
                text, enough = _request_detail(a, node, claim, f"{req.name}/{sub.name}",
                                               sub.exactly)
                lines.append(text)
                any_enough |= enough
            all_enough &= any_enough
    if all_enough:
        lines.append("each request has enough free devices on its own: device taints, the "
                     "claims' constraints, shared counters or the requests together do not "
                     "fit")
    return lines
