"""What the structured allocator's variant selection changes in the reference: whether pools
with binding conditions are tried last (switch ``dra-binding-pools-last``), and whether
capacity requests are refused while DRAConsumableCapacity is off (the variants that know
consumable capacity; wording: switch ``dra-capacity-gate-message``).

Upstream: ``structured.NewAllocator`` (k8s.io/dynamic-resource-allocation/structured/
allocator.go) with ``AllocatorFeatures`` (pkg/scheduler/framework/plugins/dynamicresources/
dynamicresources.go). Which variant each release selects: docs/dra.md#module-notes."""

from __future__ import annotations

from collections.abc import Callable, Mapping

_BINDING = "DRADeviceBindingConditions"
_STATUS = "DRAResourceClaimDeviceStatus"
_CAPACITY = "DRAConsumableCapacity"

#: per variant of the switch: the gate combinations (all of a tuple on) that select a variant
#: ordering binding-condition pools last
_SELECTING: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "binding-or-status-or-capacity": ((_BINDING,), (_STATUS,), (_CAPACITY,)),
    "binding-and-status-or-capacity": ((_BINDING, _STATUS), (_CAPACITY,)),
    "binding-and-status-or-beyond-stable": (
        (_BINDING, _STATUS), (_CAPACITY,), ("DRAFractionalCapacityRange",),
        ("DRAListTypeAttributes",), ("DRAOptionalNodeOperations",), ("DRADerivedAttributes",),
        ("DRADeviceCompatibilityGroups",)),
}


def binding_pools_last(rule: str, feature: Callable[[str], bool]) -> bool:
    """Whether the allocator variant the enabled gates select tries the pools with binding
    conditions last (``rule``: the release's variant of ``dra-binding-pools-last``)."""
    try:
        selecting = _SELECTING[rule]
    except KeyError:
        raise ValueError(f"unknown dra-binding-pools-last variant {rule!r}") from None
    return any(all(feature(g) for g in gates) for gates in selecting)


#: switch ``dra-capacity-gate-message``: how the variants that check the gate name a
#: firstAvailable subrequest with capacity requests (the check the plugin passes on)
CAPACITY_GATE_CHECKS = ("request", "subrequest")


def capacity_gate_check(rule: str, message: str, feature: Callable[[str], bool]) -> str:
    """How the allocator variant the enabled gates select treats capacity requests while
    DRAConsumableCapacity is off: ``"none"`` when it does not know them (they are ignored),
    else ``message``, the release's variant of ``dra-capacity-gate-message``: ``"request"``
    (allocator_experimental.go v0.34.4 folds the subrequests into the request's check and
    names the request) or ``"subrequest"`` (from v0.35.4: each subrequest is named).
    ``rule`` is the release's variant of ``dra-binding-pools-last``."""
    if message not in CAPACITY_GATE_CHECKS:
        raise ValueError(f"unknown dra-capacity-gate-message variant {message!r}")
    return message if binding_pools_last(rule, feature) else "none"
