"""resource.k8s.io/v1 manifests for scenarios: DeviceClass, ResourceSlice, ResourceClaim and
ResourceClaimTemplate, in the style of upstream's ``MakeResourceClaim`` and
``MakeResourceSlice`` (pkg/scheduler/testing/wrappers.go of k8s.io/kubernetes v1.37.2).

``manifest()`` gives the document; ``obj()`` the model object through the real loader (its
``LoadResult.dra``). The model objects of the allocator tests are built by
``reference_impl/testing/dra.py``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Self

from reference_impl.model.dra import (
    DeviceClass,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from reference_impl.model.loader import load_documents
from reference_impl.testing._base import Doc, ObjectWrapper, Wrapper, plain

RESOURCE_V1 = "resource.k8s.io/v1"

#: a device attribute value: ``int``, ``bool`` or ``string`` by its Python type; a ``version``
#: as ``{"version": "1.2.3"}``
AttributeValue = int | bool | str | Mapping[str, str]


def attribute(value: AttributeValue) -> Doc:
    """The v1 ``DeviceAttribute`` of a value (bool before int: a bool is an int in Python)."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    return {"string": value}


def cel_selectors(expressions: Iterable[str]) -> list[Doc]:
    return [{"cel": {"expression": e}} for e in expressions]


def device_toleration(key: str, operator: str = "Exists", value: str | None = None,
                      effect: str | None = None) -> Doc:
    """A v1 ``DeviceToleration``."""
    tol: Doc = {"key": key, "operator": operator}
    if value is not None:
        tol["value"] = value
    if effect is not None:
        tol["effect"] = effect
    return tol


def exact_request(name: str, device_class: str, count: int = 1, *selectors: str,
                  all_devices: bool = False, tolerations: Iterable[Doc] = ()) -> Doc:
    """A ``DeviceRequest`` with ``exactly``: ``count`` devices (``ExactCount``), or all of
    them (``All``), of ``device_class`` that match the CEL ``selectors``, tolerating the
    device taints of ``tolerations`` (``device_toleration(...)``)."""
    exactly: Doc = {"deviceClassName": device_class}
    if all_devices:
        exactly["allocationMode"] = "All"
    else:
        exactly.update(allocationMode="ExactCount", count=count)
    if selectors:
        exactly["selectors"] = cel_selectors(selectors)
    if tolerations:
        exactly["tolerations"] = plain(list(tolerations))
    return {"name": name, "exactly": exactly}


def sub_request(name: str, device_class: str, count: int = 1, *selectors: str) -> Doc:
    """A ``DeviceSubRequest`` of ``firstAvailable`` (``SubRequest`` of wrappers.go)."""
    sub: Doc = {"name": name, "deviceClassName": device_class, "allocationMode": "ExactCount",
                "count": count}
    if selectors:
        sub["selectors"] = cel_selectors(selectors)
    return sub


def _load(doc: Doc) -> Any:
    return load_documents([doc], source="<builder>").dra


class DeviceClassWrapper(ObjectWrapper):
    """A DeviceClass: ``make_device_class(name).selector('device.driver == "d"')``."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__(RESOURCE_V1, "DeviceClass", name)
        self.spec()

    def selector(self, expression: str) -> Self:
        self._append(("spec",), "selectors", *cel_selectors([expression]))
        return self

    def driver(self, driver: str) -> Self:
        """The selector of the devices of ``driver``."""
        return self.selector(f'device.driver == "{driver}"')

    def extended_resource_name(self, name: str) -> Self:
        return self.spec(extendedResourceName=name)

    def obj(self) -> DeviceClass:
        dc: DeviceClass = _load(self.manifest()).device_classes[self._doc["metadata"]["name"]]
        return dc


def make_device_class(name: str) -> DeviceClassWrapper:
    return DeviceClassWrapper(name)


class DeviceWrapper(Wrapper):
    """One ``Device`` of a slice."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__({"name": name})

    def attributes(self, attributes: Mapping[str, AttributeValue]) -> Self:
        self._at("attributes").update({k: attribute(v) for k, v in attributes.items()})
        return self

    def capacity(self, capacity: Mapping[str, str]) -> Self:
        self._at("capacity").update({k: {"value": v} for k, v in capacity.items()})
        return self

    def consumes(self, counter_set: str, counters: Mapping[str, str]) -> Self:
        """``consumesCounters``: ``counters`` of the slice's shared ``counter_set``."""
        self._append((), "consumesCounters", {
            "counterSet": counter_set,
            "counters": {k: {"value": v} for k, v in counters.items()}})
        return self

    def node_name(self, node: str) -> Self:
        self._doc["nodeName"] = node
        return self

    def all_nodes(self) -> Self:
        self._doc["allNodes"] = True
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> Self:
        self._append((), "taints", {"key": key, "value": value, "effect": effect})
        return self


def make_device(name: str) -> DeviceWrapper:
    return DeviceWrapper(name)


class ResourceSliceWrapper(ObjectWrapper):
    """A ResourceSlice. ``make_resource_slice(node, driver)`` is ``MakeResourceSlice``: named
    ``<node>-<driver>``, pool ``<node>`` of one slice, generation 1, devices on ``node``."""

    __slots__ = ()

    def __init__(self, name: str, driver: str, pool: str) -> None:
        super().__init__(RESOURCE_V1, "ResourceSlice", name)
        self.spec(driver=driver, pool={"name": pool, "generation": 1, "resourceSliceCount": 1})

    def pool(self, name: str, generation: int = 1, slice_count: int = 1) -> Self:
        return self.spec(pool={"name": name, "generation": generation,
                               "resourceSliceCount": slice_count})

    def node_name(self, node: str) -> Self:
        return self.spec(nodeName=node)

    def all_nodes(self) -> Self:
        return self.spec(allNodes=True)

    def node_selector(self, terms: Iterable[Mapping[str, Any]]) -> Self:
        """``nodeSelector`` with these ``nodeSelectorTerms`` (``node_selector_term(...)``)."""
        return self.spec(nodeSelector={"nodeSelectorTerms": plain(list(terms))})

    def per_device_node_selection(self) -> Self:
        return self.spec(perDeviceNodeSelection=True)

    def device(self, device: DeviceWrapper | str) -> Self:
        """One more device (a name: a device without attributes, as ``Devices(names...)``)."""
        self._append(("spec",), "devices",
                     make_device(device) if isinstance(device, str) else device)
        return self

    def devices(self, *names: str) -> Self:
        for n in names:
            self.device(n)
        return self

    def shared_counters(self, name: str, counters: Mapping[str, str]) -> Self:
        """One more counter set of ``sharedCounters`` (a slice with counters has no devices:
        the devices that consume them are in another slice of the pool)."""
        self._append(("spec",), "sharedCounters", {
            "name": name, "counters": {k: {"value": v} for k, v in counters.items()}})
        return self

    def obj(self) -> ResourceSlice:
        slices: list[ResourceSlice] = _load(self.manifest()).slices
        return slices[0]


def make_resource_slice(node: str, driver: str) -> ResourceSliceWrapper:
    """``MakeResourceSlice(nodeName, driverName)``."""
    return ResourceSliceWrapper(f"{node}-{driver}", driver, node).node_name(node)


def make_gpu_slice(node: str, driver: str, models: Iterable[str]) -> ResourceSliceWrapper:
    """``make_resource_slice(node, driver)`` with one device ``gpu-<i>`` per model: attributes
    ``model`` and ``index`` (``i``), capacity ``memory`` 80Gi (the GPUs of the DRA example
    driver, kubernetes-sigs/dra-example-driver)."""
    s = make_resource_slice(node, driver)
    for i, model in enumerate(models):
        s.device(make_device(f"gpu-{i}").attributes({"model": model, "index": i})
                 .capacity({"memory": "80Gi"}))
    return s


def make_network_slice(name: str, driver: str) -> ResourceSliceWrapper:
    """A slice without a node (``nodeSelector``, ``allNodes`` or per-device selection is
    set next), pool ``name``."""
    return ResourceSliceWrapper(name, driver, name)


class _ClaimSpec(ObjectWrapper):
    """The ``ResourceClaimSpec`` setters shared by claims and templates; ``_spec`` is where
    the spec is."""

    __slots__ = ()
    _spec: tuple[str, ...] = ("spec",)

    def _requests(self) -> list[Doc]:
        devices = self._at(*self._spec, "devices")
        reqs: list[Doc] = devices.setdefault("requests", [])
        return reqs

    def request(self, device_class: str) -> Self:
        """``Request``: one device of ``device_class``, named ``req-<N>``."""
        return self.request_with_name(f"req-{len(self._requests()) + 1}", device_class)

    def request_with_name(self, name: str, device_class: str, count: int = 1,
                          *selectors: str, all_devices: bool = False,
                          tolerations: Iterable[Doc] = ()) -> Self:
        """``RequestWithName`` / ``RequestWithNameCount``, with CEL ``selectors`` and device
        ``tolerations``."""
        self._requests().append(exact_request(name, device_class, count, *selectors,
                                              all_devices=all_devices,
                                              tolerations=tolerations))
        return self

    def request_first_available(self, name: str, *subs: Doc) -> Self:
        """``NamedRequestWithPrioritizedList``: ``sub_request(...)`` alternatives."""
        self._requests().append({"name": name, "firstAvailable": plain(list(subs))})
        return self

    def match_attribute(self, attribute_name: str, *requests: str) -> Self:
        """A ``matchAttribute`` constraint (on all requests when none is named)."""
        c: Doc = {"matchAttribute": attribute_name}
        if requests:
            c["requests"] = list(requests)
        self._append((*self._spec, "devices"), "constraints", c)
        return self


class ResourceClaimWrapper(_ClaimSpec):
    """A ResourceClaim (``MakeResourceClaim``), in namespace ``default`` unless set."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__(RESOURCE_V1, "ResourceClaim", name)
        self.namespace("default")

    def allocation(self, devices: Iterable[tuple[str, str, str, str]],
                   node: str | None = None) -> Self:
        """``status.allocation``: ``(request, driver, pool, device)`` results, and a node
        selector on ``metadata.name`` of ``node`` when given (createNodeSelector)."""
        alloc: Doc = {"devices": {"results": [
            {"request": r, "driver": d, "pool": p, "device": dev} for r, d, p, dev in devices]}}
        if node is not None:
            alloc["nodeSelector"] = {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node]}]}]}
        return self.status(allocation=alloc)

    def reserved_for_pod(self, pod: str, uid: str) -> Self:
        """``ReservedForPod``: one more consumer, the pod ``pod`` with ``uid``."""
        self._append(("status",), "reservedFor",
                     {"resource": "pods", "name": pod, "uid": uid})
        return self

    def extended_resources_of(self, pod: str, uid: str) -> Self:
        """The claim the scheduler creates for the extended resources backed by DRA of
        ``pod`` (extendeddynamicresources.go): the extended-resource-claim annotation and the
        pod as controller owner."""
        self.annotation("resource.kubernetes.io/extended-resource-claim", "true")
        return self.meta(ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": pod,
                                           "uid": uid, "controller": True}])

    def obj(self) -> ResourceClaim:
        meta = self._doc["metadata"]
        rc: ResourceClaim = _load(self.manifest()).claims[f"{meta['namespace']}/{meta['name']}"]
        return rc


def make_resource_claim(name: str) -> ResourceClaimWrapper:
    return ResourceClaimWrapper(name)


class ResourceClaimTemplateWrapper(_ClaimSpec):
    """A ResourceClaimTemplate (its ``spec.spec`` is a claim's spec), in ``default``."""

    __slots__ = ()
    _spec = ("spec", "spec")

    def __init__(self, name: str) -> None:
        super().__init__(RESOURCE_V1, "ResourceClaimTemplate", name)
        self.namespace("default")

    def obj(self) -> ResourceClaimTemplate:
        meta = self._doc["metadata"]
        t: ResourceClaimTemplate = _load(self.manifest()).claim_templates[
            f"{meta['namespace']}/{meta['name']}"]
        return t


def make_resource_claim_template(name: str) -> ResourceClaimTemplateWrapper:
    return ResourceClaimTemplateWrapper(name)
