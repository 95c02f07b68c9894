"""What the structured allocator's variant selection changes in the reference: whether pools
with binding conditions are tried last, and whether capacity requests are refused while
DRAConsumableCapacity is off.

``structured.NewAllocator`` (k8s.io/dynamic-resource-allocation/structured/allocator.go) takes
the first of "stable", "incubating" and "experimental" whose ``SupportedFeatures`` cover the
enabled features (``AllocatorFeatures`` of pkg/scheduler/framework/plugins/dynamicresources/
dynamicresources.go). The reference restates "incubating" of v0.37.2 (docs/dra.md); the one rule
that differs between the variants a supported release can select with gates it defines is the
order of the pools in ``GatherPools``: the variants that know binding conditions append the
pools with a device that has them after the others (``poolHasBindingConditions`` in
pools_experimental.go from v0.34.4, pools_incubating.go from v0.36.3), the others sort every
pool by ID. Which gates select such a variant is the behaviour switch
``dra-binding-pools-last`` (reference_impl/releases/behaviours.py):

- ``binding-or-status-or-capacity`` (v1.34.4): only "experimental" orders them last; it is
  picked when DRADeviceBindingConditions, DRAResourceClaimDeviceStatus (on by default) or
  DRAConsumableCapacity is on ("incubating" supports neither DeviceBinding, DeviceStatus nor
  ConsumableCapacity in v0.34.4): the default.
- ``binding-and-status-or-capacity`` (v1.35.4, v1.36.3): DeviceBindingAndStatus (both gates)
  or ConsumableCapacity picks "experimental" (v0.35.4) or "incubating" (v0.36.3) instead of a
  variant that does not reorder; in v1.35.4 DRADeviceBindingConditions is off by default, so
  the default runs "incubating", pools in ID order.
- ``binding-and-status-or-beyond-stable`` (v1.37.2): also FractionalCapacityRange,
  ListTypeAttributes, OptionalNodeOperations, DerivedAttributes and CompatibilityGroups, which
  "stable" lacks.

In every supported release the variants that order binding-condition pools last are exactly
those that know consumable capacity (``ConsumableCapacity`` in their ``SupportedFeatures``), and
only these check its gate: with DRAConsumableCapacity off they refuse a claim with capacity
requests (``Allocate`` in allocator_experimental.go v0.34.4, allocator_incubating.go from
v0.36.3), while "stable", and "incubating" before v0.36, do not read ``capacity`` at all and
allocate such a request as a plain one (allocator_incubating.go v0.35.4). The wording of that
refusal is the switch ``dra-capacity-gate-message``.
"""

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
