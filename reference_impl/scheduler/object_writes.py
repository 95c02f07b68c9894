"""The timeline's object writes (``applyObject``, ``deleteObject``: model/timeline_objects.py)
applied to the cluster's DRA objects, and the cluster events the scheduler's informers make
of them (:func:`write_object`).

Upstream (v1.37.2, the same in v1.34.4-v1.36.3): ``addAllEventHandlers``
(pkg/scheduler/eventhandlers.go) gives the ResourceSlice events through the slice tracker
(k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker.go) and the DeviceClass
events through their informer, to ``buildEvtResHandler``: an Add without an old object, a
Delete without a new one, else an Update.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from reference_impl.dra.taintrules import list_patched_slices
from reference_impl.model.dra import (
    DeviceClass,
    DeviceTaintRule,
    DRAObjects,
    ResourceClaim,
    ResourceSlice,
)
from reference_impl.model.timeline_objects import TimelineObject
from reference_impl.scheduler.queue import events as ev

#: one informer event: (EventResource, old object or None, new object or None)
ObjectEvent = tuple[str, Any, Any]


def _event(resource: str, old: Any, new: Any) -> tuple[ev.ClusterEvent, Any, Any]:
    """``buildEvtResHandler``'s event for (old, new)."""
    action = ev.ADD if old is None else ev.DELETE if new is None else ev.UPDATE
    return ev.ClusterEvent(resource, action), old, new


def _patched(dra: DRAObjects, taint_rules: bool) -> dict[str, ResourceSlice]:
    """The tracker's patched slices by name."""
    return {s.name: s for s in list_patched_slices(dra.slices, dra.taint_rules, taint_rules)}


def _taints_changed(old: ResourceSlice, new: ResourceSlice) -> bool:
    """``syncSlice`` without ``sendEvent``: whether a device's taints differ."""
    return any(a.taints != b.taints for a, b in zip(old.devices, new.devices, strict=False))


def _write_listed(objs: list[Any], name: str, obj: Any) -> bool:
    """Replace the object ``name`` of ``objs`` (keeping its input ``order``), append it (the
    next order) or, ``obj`` None, remove it; False: a delete of an absent object."""
    idx = next((i for i, o in enumerate(objs) if o.name == name), None)
    if obj is None:
        if idx is None:
            return False
        del objs[idx]
    elif idx is None:
        objs.append(dataclasses.replace(obj, order=max((o.order for o in objs), default=-1) + 1))
    else:
        objs[idx] = dataclasses.replace(obj, order=objs[idx].order)
    return True


def write_object(dra: DRAObjects, kind: str, name: str, obj: TimelineObject | None,
                 taint_rules: bool) -> list[tuple[ev.ClusterEvent, Any, Any]] | None:
    """Create or replace (``obj``) or delete (``obj`` None) the ``kind`` object ``name`` in
    ``dra``; the cluster events the scheduler receives, in order. None: a delete of an absent
    object (nothing happens). ``taint_rules``: DRADeviceTaintRules (the tracker applies the
    rules and watches them).

    The tracker sends the slices patched with the DeviceTaintRules (``syncSlice``, only with
    DRADeviceTaintRules: without it the tracker watches no rules): a slice event always
    (``sendEvent``), a rule's add, update or delete an Update of each slice whose devices'
    taints changed (``deviceTaintAdd``/``Update``/``Delete``). The queue drops the events no
    plugin registered (``is_event_of_interest``): DynamicResources registers ResourceSlice and
    DeviceClass Add|Update without queueing hints (``EventsToRegister``, dynamicresources.go),
    NodeResourcesFit DeviceClass Add|Update with DRAExtendedResource."""
    before = _patched(dra, taint_rules)
    if kind == "ResourceSlice":
        assert obj is None or isinstance(obj, ResourceSlice)
        if not _write_listed(dra.slices, name, obj):
            return None
        new = None if obj is None else _patched(dra, taint_rules)[name]
        return [_event(ev.RESOURCE_SLICE, before.get(name), new)]
    if kind in ("ResourceClaim", "DeviceClass"):
        # by name (a claim's: NAMESPACE/NAME); a claim's events go to DynamicResources'
        # isSchedulableAfterClaimChange (an allocation dropped, an allocated claim deleted)
        store: dict[str, Any] = dra.claims if kind == "ResourceClaim" else dra.device_classes
        old = store.get(name)
        if obj is None and old is None:
            return None
        if kind == "ResourceClaim":
            # the assume cache's event to allocatedDevices too (allocateddevices.go)
            assert obj is None or isinstance(obj, ResourceClaim)
            dra.write_claim(name, obj)
        elif obj is None:
            del store[name]
        else:
            assert isinstance(obj, DeviceClass)
            store[name] = obj
        resource = ev.RESOURCE_CLAIM if kind == "ResourceClaim" else ev.DEVICE_CLASS
        return [_event(resource, old, obj)]
    if kind == "DeviceTaintRule":
        assert obj is None or isinstance(obj, DeviceTaintRule)
        if not _write_listed(dra.taint_rules, name, obj):
            return None
        if not taint_rules:
            return []
        after = _patched(dra, taint_rules)
        return [_event(ev.RESOURCE_SLICE, before[n], after[n]) for n in sorted(after)
                if _taints_changed(before[n], after[n])]
    raise ValueError(f"not a kind the timeline writes: {kind!r}")


__all__ = ["ObjectEvent", "write_object"]
