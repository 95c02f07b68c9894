"""DeviceTaintRules applied to ResourceSlices, as the scheduler's slice tracker does.

Upstream (v1.37.2): ``k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker.go``
``applyPatches``, which ``syncSlice`` calls with every rule of the DeviceTaintRule informer and
whose patched slices ``ListPatchedResourceSlices`` returns; the scheduler reads them through
``resourceSliceLister.ListWithDeviceTaintRules``
(``pkg/scheduler/framework/plugins/dynamicresources/dra_manager.go``). The tracker applies rules
only with ``EnableDeviceTaintRules``, which ``pkg/scheduler/scheduler.go`` sets from the
DRADeviceTaintRules feature gate; without it the slices are listed as they are.

For each rule: no selector selects nothing; a set ``driver``/``pool`` must equal the slice's
driver/pool name; a set ``device`` must equal the device's name. The rule's taint is appended
to each selected device's own taints, with no deduplication (a taint already on the device, or
the same taint from two rules, is there twice). The rules come from the informer's indexer in
its (map) order; only whether a taint is there matters to the allocator
(``taintPreventsAllocation``), so the input order is kept here.
"""

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
