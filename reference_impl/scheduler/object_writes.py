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
from reference_impl.model.dra import DeviceClass, DeviceTaintRule, DRAObjects, ResourceSlice
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
        idx = next((i for i, s in enumerate(dra.slices) if s.name == name), None)
        if obj is None:
            if idx is None:
                return None
            del dra.slices[idx]
            return [_event(ev.RESOURCE_SLICE, before[name], None)]
        assert isinstance(obj, ResourceSlice)
        if idx is None:
            order = max((s.order for s in dra.slices), default=-1) + 1
            dra.slices.append(dataclasses.replace(obj, order=order))
        else:
            dra.slices[idx] = dataclasses.replace(obj, order=dra.slices[idx].order)
        return [_event(ev.RESOURCE_SLICE, before.get(name), _patched(dra, taint_rules)[name])]
    if kind == "DeviceClass":
        old = dra.device_classes.get(name)
        if obj is None:
            if old is None:
                return None
            del dra.device_classes[name]
        else:
            assert isinstance(obj, DeviceClass)
            dra.device_classes[name] = obj
        return [_event(ev.DEVICE_CLASS, old, obj)]
    if kind == "DeviceTaintRule":
        idx = next((i for i, r in enumerate(dra.taint_rules) if r.name == name), None)
        if obj is None:
            if idx is None:
                return None
            del dra.taint_rules[idx]
        else:
            assert isinstance(obj, DeviceTaintRule)
            if idx is None:
                order = max((r.order for r in dra.taint_rules), default=-1) + 1
                dra.taint_rules.append(dataclasses.replace(obj, order=order))
            else:
                dra.taint_rules[idx] = dataclasses.replace(obj, order=dra.taint_rules[idx].order)
        if not taint_rules:
            return []
        after = _patched(dra, taint_rules)
        return [_event(ev.RESOURCE_SLICE, before[n], after[n]) for n in sorted(after)
                if _taints_changed(before[n], after[n])]
    raise ValueError(f"not a kind the timeline writes: {kind!r}")


__all__ = ["ObjectEvent", "write_object"]
