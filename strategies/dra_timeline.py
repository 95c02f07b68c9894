"""Timeline events that write DRA objects (``applyObject``, ``deleteObject``:
reference_impl/model/timeline_objects.py, docs/dra.md#dra-objects-on-the-timeline) for the
``dra`` family: what drivers and admins do while pods wait.

* a ResourceSlice published late (taken out of the documents: pods needing it pend until then);
* a ResourceSlice updated (a new pool generation, a device added or removed), or deleted;
* a DeviceClass created late (one without ``extendedResourceName``: the oracles read the
  extended resources of the cluster's classes);
* a DeviceTaintRule added (``NoSchedule``, selecting a drawn slice's driver, pool or device;
  only the releases with DRADeviceTaintRules on, v1.37, apply it to the slices);
* a ResourceClaim allocated by someone else (a whole device of a drawn slice), one in two
  deallocated later.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

from strategies._cache import composite, integers, sampled
from strategies.dra import RESOURCE_V1, UNHEALTHY

Doc = dict[str, Any]

#: the kinds of DRA writes drawn, one per scenario that gets one
WRITES = ("publishSlice", "updateSlice", "deleteSlice", "createClass", "addTaintRule",
          "allocateElsewhere")
#: the times (seconds) of the events: after the first attempts, within the first backoffs
WRITE_TIMES = (1, 2, 5, 30)
#: the DeviceTaintRule the timeline adds (the input's is "unhealthy", strategies/dra.py)
TIMELINE_TAINT_RULE = "tl-unhealthy"
#: the claim someone else allocates (default namespace)
EXTERNAL_CLAIM = "tl-external"


def _event(at: int, action: str, **fields: Any) -> Doc:
    return {"at": f"{at}s", "action": action, **fields}


def _slices(documents: list[Doc]) -> list[Doc]:
    return [d for d in documents if d.get("kind") == "ResourceSlice"
            and d.get("apiVersion") == RESOURCE_V1 and d["spec"].get("devices")]


def _external_claim(spec: Doc, device: str, allocated: bool) -> Doc:
    """``EXTERNAL_CLAIM`` for one device of the slice ``spec``: allocated to it (no
    ``reservedFor``: a claim some other scheduler or controller allocated), or not."""
    claim: Doc = {"apiVersion": RESOURCE_V1, "kind": "ResourceClaim",
                  "metadata": {"name": EXTERNAL_CLAIM, "namespace": "default"},
                  "spec": {"devices": {"requests": [{"name": "dev", "exactly": {
                      "deviceClassName": spec["driver"]}}]}}}
    if allocated:
        claim["status"] = {"allocation": {"devices": {"results": [{
            "request": "dev", "driver": spec["driver"], "pool": spec["pool"]["name"],
            "device": device}]}}}
    return claim


def _updated(slice_doc: Doc, grow: bool) -> Doc:
    """The slice in the next generation of its pool, with a device added (a copy of the last,
    renamed) or the last one removed (never the only one)."""
    new = copy.deepcopy(slice_doc)
    spec = new["spec"]
    spec["pool"]["generation"] = int(spec["pool"].get("generation", 0)) + 1
    devices = spec["devices"]
    if grow or len(devices) == 1:
        extra = copy.deepcopy(devices[-1])
        extra["name"] = f"{extra['name']}-v2"
        devices.append(extra)
    else:
        devices.pop()
    return new


@composite
def dra_object_writes(draw: st.DrawFn, documents: list[Doc], timeline: Doc | None
                      ) -> tuple[list[Doc], Doc | None]:
    """In one DRA scenario in two: one drawn DRA write (``WRITES``) at a drawn time
    (``WRITE_TIMES``). Returns the documents (without the object a late create takes out) and
    the timeline (a new one when there was none) with the event appended. Drawn after the rest
    of the scenario, so that the rest is what it was without it."""
    if draw(integers(0, 1)) == 0:
        return documents, timeline
    what = draw(sampled(WRITES))
    at = draw(sampled(WRITE_TIMES))
    slices = _slices(documents)
    classes = [d for d in documents if d.get("kind") == "DeviceClass"
               and d.get("apiVersion") == RESOURCE_V1
               and not (d.get("spec") or {}).get("extendedResourceName")]
    event: Doc | None = None
    events: list[Doc] = []
    whole = [s for s in slices if any(not d.get("allowMultipleAllocations")
                                      for d in s["spec"]["devices"])]
    if what == "allocateElsewhere" and whole:
        spec = whole[draw(integers(0, len(whole) - 1))]["spec"]
        device = draw(sampled(tuple(d["name"] for d in spec["devices"]
                                    if not d.get("allowMultipleAllocations"))))
        events.append(_event(at, "applyObject", object=_external_claim(spec, device, True)))
        later = [t for t in WRITE_TIMES if t > at]
        if later and draw(integers(0, 1)) == 1:
            event = _event(draw(sampled(tuple(later))), "applyObject",
                           object=_external_claim(spec, device, False))
    elif what == "createClass" and classes:
        cls = classes[draw(integers(0, len(classes) - 1))]
        documents = [d for d in documents if d is not cls]
        event = _event(at, "applyObject", object=cls)
    elif what == "addTaintRule" and slices:
        spec = slices[draw(integers(0, len(slices) - 1))]["spec"]
        selector: Doc = {"driver": spec["driver"], "pool": spec["pool"]["name"]}
        if draw(integers(0, 1)):
            selector["device"] = draw(sampled(tuple(d["name"] for d in spec["devices"])))
        event = _event(at, "applyObject", object={
            "apiVersion": RESOURCE_V1, "kind": "DeviceTaintRule",
            "metadata": {"name": TIMELINE_TAINT_RULE},
            "spec": {"deviceSelector": selector,
                     "taint": {"key": UNHEALTHY, "value": "true", "effect": "NoSchedule"}}})
    elif slices:
        s = slices[draw(integers(0, len(slices) - 1))]
        name = s["metadata"]["name"]
        if what == "publishSlice":
            documents = [d for d in documents if d is not s]
            event = _event(at, "applyObject", object=s)
        elif what == "updateSlice":
            event = _event(at, "applyObject", object=_updated(s, draw(integers(0, 1)) == 1))
        else:
            event = _event(at, "deleteObject", kind="ResourceSlice", name=name)
    if event is not None:
        events.append(event)
    if not events:
        return documents, timeline
    if timeline is None:
        timeline = {"apiVersion": "kschedconf/v1", "kind": "Scenario",
                    "metadata": {"name": "dra-writes"}, "spec": {"events": []}}
    spec = timeline.setdefault("spec", {})
    spec["events"] = [*(spec.get("events") or []), *events]
    return documents, timeline


__all__ = ["EXTERNAL_CLAIM", "TIMELINE_TAINT_RULE", "WRITES", "WRITE_TIMES", "dra_object_writes"]
