"""DeviceTaintRules applied to ResourceSlices, as the scheduler's slice tracker does.

Upstream (v1.37.2): k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker.go
``applyPatches``, read through ``ListWithDeviceTaintRules``
(pkg/scheduler/framework/plugins/dynamicresources/dra_manager.go), only with the
DRADeviceTaintRules gate. Selection, order and duplicates: docs/dra.md#module-notes."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from reference_impl.model.dra import DeviceTaintRule, ResourceSlice


def rule_selects(rule: DeviceTaintRule, s: ResourceSlice, device: str) -> bool:
    """Whether ``rule`` applies to device ``device`` of slice ``s`` (``applyPatches``)."""
    sel = rule.device_selector
    if sel is None:
        return False
    if sel.driver is not None and sel.driver != s.driver:
        return False
    if sel.pool is not None and sel.pool != s.pool:
        return False
    return sel.device is None or sel.device == device


def apply_patches(s: ResourceSlice, rules: Sequence[DeviceTaintRule]) -> ResourceSlice:
    """``applyPatches``: ``s`` with the taints of the matching rules appended to its devices,
    rule by rule; ``s`` itself when no rule matches."""
    patched = list(s.devices)
    changed = False
    for rule in rules:
        for i, d in enumerate(s.devices):
            if rule_selects(rule, s, d.name):
                patched[i] = dataclasses.replace(patched[i],
                                                 taints=(*patched[i].taints, rule.taint))
                changed = True
    return dataclasses.replace(s, devices=tuple(patched)) if changed else s


def list_patched_slices(slices: Iterable[ResourceSlice], rules: Sequence[DeviceTaintRule],
                        enabled: bool) -> list[ResourceSlice]:
    """``ListPatchedResourceSlices``: the slices with the rules applied, or as they are when
    the tracker runs without ``EnableDeviceTaintRules``."""
    if not enabled or not rules:
        return list(slices)
    return [apply_patches(s, rules) for s in slices]
