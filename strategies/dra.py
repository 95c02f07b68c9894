"""Dynamic Resource Allocation scenarios (feature ``dra``, opt-in: not in ``ALL_FEATURES``):
DeviceClasses, ResourceSlices (node-local GPUs, partitionable GPUs with shared counters, a
network-attached pool), ResourceClaims and ResourceClaimTemplates, and pending pods that use
them. Valid by construction for resource.k8s.io/v1 (pkg/apis/resource/validation of
k8s.io/kubernetes v1.37.2) and pods' claims (validatePodResourceClaims); the rules followed and
what shrinking gives: docs/strategies.md#dra. Claims for templates are left to the harness's
pre-pass (the resourceclaim controller's job); running pods get no claims."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

import strategies.vocabulary as v
from reference_impl.model.loader.resourceclaims import add_template_claims
from strategies._cache import booleans, composite, integers, sampled
from strategies.clusters import GeneratedCluster
from strategies.dra_costly import costly_scenario, costly_selectors
from strategies.sizes import SMALL, Sizes

__all__ = ["DRA_BINDING_FEATURE", "DRA_FEATURE", "GPU_DRIVER", "NET_DRIVER", "binding_conditions",
           "dra_documents", "with_template_claims", "timeline_claims"]

Doc = dict[str, Any]

DRA_FEATURE = "dra"
#: opt-in with ``dra``: GPUs with binding conditions (``binding_conditions``)
DRA_BINDING_FEATURE = "dra_binding"
#: a GPU's binding conditions (label names, API validation: validateDeviceBindingParameters)
BINDING_CONDITIONS: Doc = {"bindingConditions": ["attached"],
                           "bindingFailureConditions": ["attach-failed"]}
#: with ``dra_binding``: DynamicResources' bindingTimeout, short because the upstream subject
#: waits it out in wall-clock time, but above the one second that PreBind may first spend
#: waiting for a new special claim (of extended resources backed by DRA) to reach its assume
#: cache (``waitForExtendedClaimInAssumeCache``, a 1s real-time poll): with 1s, that race
#: decides whether the claim has already timed out at the wait's first check; and the end of
#: the timeline
BINDING_TIMEOUT = "1500ms"
BINDING_UNTIL = "6s"
RESOURCE_V1 = "resource.k8s.io/v1"
GPU_DRIVER = "gpu.example.com"
NET_DRIVER = "net.example.com"
GPU_MODELS = ("a100", "h100")
GPU_MEMORY_GIB = (40, 80)
#: device taints (DRADeviceTaints, GA in the pinned release): most GPUs are healthy, some are
#: tainted ``unhealthy`` with either effect that keeps the allocator away
UNHEALTHY = f"{GPU_DRIVER}/unhealthy"
GPU_TAINTS: tuple[str | None, ...] = (None, None, None, None, "NoSchedule", "NoExecute")
#: tolerations of a request (one in four has one): of the unhealthy taint, by key and value,
#: by key only, or of one effect only
TOLERATIONS: tuple[Doc, ...] = (
    {"key": UNHEALTHY, "operator": "Equal", "value": "true"},
    {"key": UNHEALTHY, "operator": "Exists"},
    {"key": UNHEALTHY, "operator": "Exists", "effect": "NoSchedule"},
)

#: the device classes that may be drawn: name, driver, the class's CEL selectors
CLASSES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (GPU_DRIVER, GPU_DRIVER, (f'device.driver == "{GPU_DRIVER}"',)),
    ("gpu-h100", GPU_DRIVER, (f'device.driver == "{GPU_DRIVER}"',
                              f'device.attributes["{GPU_DRIVER}"].model == "h100"')),
    ("gpu-large", GPU_DRIVER, (f'device.driver == "{GPU_DRIVER}" && '
                               f'device.attributes["{GPU_DRIVER}"].memory >= 80',)),
    (NET_DRIVER, NET_DRIVER, (f'device.driver == "{NET_DRIVER}"',)),
)

_G = f'device.attributes["{GPU_DRIVER}"]'
_N = f'device.attributes["{NET_DRIVER}"]'
#: request selectors, per driver (attributes the driver's devices have, or may lack), then
#: selectors using the libraries of the CEL environment (reference_impl/dra/cel_library.py,
#: cel_netip.py, cel_url.py, cel_optional.py, cel_macros.py): cel.bind, ext.Strings, the list
#: libraries, sets, regex, two-variable comprehensions, quantity, IP/CIDR, URL, optionals; the
#: ``charAt`` one fails to evaluate on a GPU with an index above 1 (an allocator error, as
#: upstream)
SELECTORS: dict[str, tuple[str, ...]] = {
    GPU_DRIVER: (
        f"{_G}.model == \"a100\"",
        f"{_G}.index < 2",
        f"{_G}.memory == 40",
        f'"partition" in {_G} && {_G}.partition',
        f"{_G}.?partition.orValue(false)",
        f'cel.bind(gpu, {_G}, gpu.model.upperAscii() == "H100" && gpu.memory >= 80)',
        f'sets.contains(["h100"], [{_G}.model])',
        f"lists.range(2).exists(i, {_G}.index == i) && [40, 80].max() == {_G}.memory",
        f'{_G}.model.findAll("[0-9]").size() == 3 && {_G}.model.substring(0, 1) == "a"',
        f'{_G}.model.charAt({_G}.index + 3) == "0"',
        f'{_G}.exists(k, v, k == "model" && v == "a100")',
        f'device.capacity["{GPU_DRIVER}"].memory.isGreaterThan(quantity("40Gi"))',
        f'url("https://" + {_G}.model + ".example.com:8443/").getHostname() == "h100.example.com"',
    ),
    NET_DRIVER: (
        f"{_N}.speed >= 100",
        f'cidr("10.0.0.0/30").containsIP({_N}.ip)',
        f"ip({_N}.ip).isGlobalUnicast() && {_N}.speed >= 100",
        f'{_N}.ip.split(".")[3] == "2" || cidr("10.0.0.0/31").containsCIDR({_N}.ip + "/32")',
        f'url("https://" + {_N}.ip + ":8443/").getHostname() == {_N}.ip',
    ),
}

#: device counts of ExactCount requests (shrinking to 1)
COUNTS = (1, 1, 1, 2, 3)

#: the extended resource the GPU class may map (``spec.extendedResourceName``); pods may also
#: request a class's implicit name (``deviceclass.resource.kubernetes.io/<class>``)
EXTENDED_RESOURCE = "example.com/gpu"
IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"
#: quantities of an extended resource a container requests (shrinking to 1)
EXTENDED_COUNTS = (1, 1, 2)

#: consumable capacity (DRAConsumableCapacity): one whole GPU in four allows multiple
#: allocations, its memory shared by the claims that request some (``capacity.requests``, one
#: GPU request in three); its ``requestPolicy``: none, a valid range of 10Gi steps, or valid
#: values
SHARED_GPU_POLICIES: tuple[str | None, ...] = (None, "range", "values")
#: the memory a request asks for, GiB (shrinking to 10)
CAPACITY_REQUESTS_GIB = (10, 10, 15, 20, 40, 80)

#: fully qualified attribute names for matchAttribute constraints
MATCH_ATTRIBUTES = (f"{GPU_DRIVER}/model", f"{GPU_DRIVER}/memory")


def _class_names_of(classes: Sequence[Doc]) -> tuple[str, ...]:
    return tuple(c["metadata"]["name"] for c in classes)


def _driver_of(class_name: str) -> str:
    return next(d for n, d, _ in CLASSES if n == class_name)


def device_class(name: str) -> Doc:
    _, _, selectors = next(c for c in CLASSES if c[0] == name)
    return {"apiVersion": RESOURCE_V1, "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in selectors]}}


def _slice(name: str, driver: str, pool: str, count: int, **spec: Any) -> Doc:
    return {"apiVersion": RESOURCE_V1, "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": driver,
                     "pool": {"name": pool, "generation": 1, "resourceSliceCount": count},
                     **spec}}


def _gpu(name: str, model: str, memory: int, index: int, taint: str | None = None) -> Doc:
    d: Doc = {"name": name,
              "attributes": {"model": {"string": model}, "memory": {"int": memory},
                             "index": {"int": index}},
              "capacity": {"memory": {"value": f"{memory}Gi"}}}
    if taint is not None:
        d["taints"] = [{"key": UNHEALTHY, "value": "true", "effect": taint}]
    return d


def _shared(gpu: Doc, policy: str | None) -> Doc:
    """The GPU with ``allowMultipleAllocations`` and, maybe, a ``requestPolicy`` for its
    memory that API validation accepts (validateRequestPolicy: a default within the policy,
    min and max and valid values within the value, valid values sorted and unique)."""
    gpu["allowMultipleAllocations"] = True
    memory = gpu["attributes"]["memory"]["int"]
    if policy == "range":
        gpu["capacity"]["memory"]["requestPolicy"] = {
            "default": "10Gi", "validRange": {"min": "10Gi", "step": "10Gi",
                                              "max": f"{memory}Gi"}}
    elif policy == "values":
        values = sorted({10, 20, memory})
        gpu["capacity"]["memory"]["requestPolicy"] = {
            "default": "10Gi", "validValues": [f"{g}Gi" for g in values]}
    return gpu


@composite
def gpu_slices(draw: st.DrawFn, node: str, sizes: Sizes, binding: bool = False) -> list[Doc]:
    """The GPUs of ``node``: a pool ``<node>`` of one slice with up to
    ``sizes.max_devices`` whole GPUs (model, memory in GiB, index), or a partitionable GPU:
    pool ``<node>-part`` of two slices, the shared counters (80 GiB of memory) and the devices
    that consume them (the whole GPU, and two halves with ``partition: true``). With
    ``binding`` one whole GPU in two has binding conditions (nobody ever sets them)."""
    if not draw(booleans()):
        n = draw(integers(0, sizes.max_devices))
        devices = [_gpu(f"gpu-{i}", draw(sampled(GPU_MODELS)), draw(sampled(GPU_MEMORY_GIB)), i,
                        draw(sampled(GPU_TAINTS)))
                   for i in range(n)]
        devices = [_shared(d, draw(sampled(SHARED_GPU_POLICIES)))
                   if draw(integers(0, 3)) == 3 else d for d in devices]
        if binding:
            devices = [{**d, **BINDING_CONDITIONS} if draw(booleans()) else d
                       for d in devices]
        return [_slice(f"{node}-gpu", GPU_DRIVER, node, 1, nodeName=node, devices=devices)]
    pool = f"{node}-part"
    counters = _slice(f"{pool}-counters", GPU_DRIVER, pool, 2, nodeName=node, sharedCounters=[
        {"name": "gpu-0-counters", "counters": {"memory": {"value": "80Gi"}}}])

    def part(name: str, memory: int, partition: bool) -> Doc:
        d = _gpu(name, "h100", memory, 0)
        d["attributes"]["partition"] = {"bool": partition}
        d["consumesCounters"] = [{"counterSet": "gpu-0-counters",
                                  "counters": {"memory": {"value": f"{memory}Gi"}}}]
        return d

    devices = [part("gpu-0", 80, False), part("gpu-0-half-0", 40, True),
               part("gpu-0-half-1", 40, True)]
    return [counters, _slice(f"{pool}-devices", GPU_DRIVER, pool, 2, nodeName=node,
                             devices=devices)]


@composite
def network_slices(draw: st.DrawFn, sizes: Sizes) -> list[Doc]:
    """A network-attached pool ``net``: NICs (a speed, an IPv4 address ``10.0.0.<i + 1>``)
    reachable from the nodes of one zone (``nodeSelector``) or from all nodes (``allNodes``)."""
    n = draw(integers(1, sizes.max_devices))
    devices = [{"name": f"nic-{i}", "attributes": {"speed": {"int": draw(sampled((10, 100)))},
                                                   "ip": {"string": f"10.0.0.{i + 1}"}}}
               for i in range(n)]
    if draw(booleans()):
        where: Doc = {"allNodes": True}
    else:
        where = {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": v.ZONE, "operator": "In", "values": [draw(sampled(v.ZONES))]}]}]}}
    return [_slice("net", NET_DRIVER, "net", 1, devices=devices, **where)]


@composite
def exact_requests(draw: st.DrawFn, class_names: Sequence[str], sub: bool = False) -> Doc:
    """An ``ExactDeviceRequest`` (the fields of a subrequest when ``sub``): a class, maybe a
    selector for its driver (one in three), ``ExactCount`` with a count of 1-3 (mostly 1) or
    (not in a subrequest, one in six) ``All``."""
    cls = draw(sampled(class_names))
    r: Doc = {"deviceClassName": cls}
    if not sub and draw(integers(0, 5)) == 5:
        r["allocationMode"] = "All"
    else:
        r["allocationMode"] = "ExactCount"
        r["count"] = draw(sampled(COUNTS))
    if draw(integers(0, 2)) == 2:
        r["selectors"] = [{"cel": {"expression": draw(sampled(SELECTORS[_driver_of(cls)]))}}]
    if draw(integers(0, 3)) == 3:
        r["tolerations"] = [dict(TOLERATIONS[draw(integers(0, len(TOLERATIONS) - 1))])]
    if _driver_of(cls) == GPU_DRIVER and draw(integers(0, 2)) == 2:
        r["capacity"] = {"requests": {"memory": f"{draw(sampled(CAPACITY_REQUESTS_GIB))}Gi"}}
    return r


@composite
def device_requests(draw: st.DrawFn, name: str, class_names: Sequence[str]) -> Doc:
    """A ``DeviceRequest``: ``exactly``, or (one in four) ``firstAvailable`` with 1-2
    subrequests tried in order."""
    if draw(integers(0, 3)) < 3:
        return {"name": name, "exactly": draw(exact_requests(class_names))}
    n = draw(integers(1, 2))
    subs = [{"name": f"sub-{i}", **draw(exact_requests(class_names, sub=True))}
            for i in range(n)]
    return {"name": name, "firstAvailable": subs}


@composite
def claim_specs(draw: st.DrawFn, class_names: Sequence[str]) -> Doc:
    """A ``ResourceClaimSpec``: 1-2 requests (mostly 1), maybe (one in four) a
    ``matchAttribute`` constraint (on all requests, or on the first)."""
    n = draw(sampled((1, 1, 2)))
    requests = [draw(device_requests(f"req-{i}", class_names)) for i in range(n)]
    devices: Doc = {"requests": requests}
    if draw(integers(0, 3)) == 3:
        c: Doc = {"matchAttribute": draw(sampled(MATCH_ATTRIBUTES))}
        if n > 1 and draw(booleans()):
            c["requests"] = ["req-0"]
        devices["constraints"] = [c]
    return {"devices": devices}


@dataclass
class _Claims:
    """The claims and templates drawn so far, by namespace."""

    class_names: tuple[str, ...]
    claims: dict[str, list[str]] = field(default_factory=dict)
    templates: dict[str, list[str]] = field(default_factory=dict)
    documents: list[Doc] = field(default_factory=list)

    def new(self, kind: str, namespace: str, spec: Doc) -> str:
        names = (self.claims if kind == "ResourceClaim" else self.templates).setdefault(
            namespace, [])
        name = f"{'claim' if kind == 'ResourceClaim' else 'template'}-{len(self.documents)}"
        names.append(name)
        body = spec if kind == "ResourceClaim" else {"spec": spec}
        self.documents.append({"apiVersion": RESOURCE_V1, "kind": kind,
                               "metadata": {"name": name, "namespace": namespace},
                               "spec": body})
        return name


@composite
def pod_claim(draw: st.DrawFn, entry: str, namespace: str, claims: _Claims) -> Doc:
    """One ``spec.resourceClaims`` entry: a claim of the pod's namespace (shared with the pods
    that name it too) or a new one, or a template (new, or one another pod uses)."""
    shared = claims.claims.get(namespace, [])
    templates = claims.templates.get(namespace, [])
    choices = ["new claim", "new template"]
    if shared:
        choices.append("shared claim")
    if templates:
        choices.append("shared template")
    choice = draw(sampled(choices))
    if choice == "shared claim":
        return {"name": entry, "resourceClaimName": draw(sampled(shared))}
    if choice == "shared template":
        return {"name": entry, "resourceClaimTemplateName": draw(sampled(templates))}
    spec = draw(claim_specs(claims.class_names))
    if choice == "new claim":
        return {"name": entry, "resourceClaimName": claims.new("ResourceClaim", namespace, spec)}
    return {"name": entry,
            "resourceClaimTemplateName": claims.new("ResourceClaimTemplate", namespace, spec)}


@composite
def dra_documents(draw: st.DrawFn, cluster: GeneratedCluster, pending: list[Doc],
                  sizes: Sizes = SMALL, binding: bool = False) -> list[Doc]:
    """The DRA objects of a scenario: classes, slices of most nodes, maybe a network pool,
    and claims and templates that pending pods name. The pods given in ``pending`` get their
    ``spec.resourceClaims`` (at least one and at most ``sizes.max_pod_claims`` pods, 1-2
    entries each)."""
    costly = draw(costly_scenario())  # strategies/dra_costly.py
    extra = draw(st.lists(sampled([c[0] for c in CLASSES[1:]]), unique=True))
    names = [GPU_DRIVER, *[c[0] for c in CLASSES[1:] if c[0] in extra]]
    classes = [device_class(n) for n in names]
    docs = list(classes)
    for node in cluster.node_names:
        if draw(integers(0, 3)) > 0:
            docs += draw(gpu_slices(node, sizes, binding))
    if NET_DRIVER in extra:
        docs += draw(network_slices(sizes))
    claims = _Claims(_class_names_of(classes))
    most = min(sizes.max_pod_claims, len(pending))
    users = draw(st.lists(integers(0, max(0, len(pending) - 1)), unique=True,
                          min_size=min(1, most), max_size=most))
    for i in users:
        pod = pending[i]
        ns = pod["metadata"].get("namespace", "default")
        n = draw(integers(1, 2))
        pod["spec"]["resourceClaims"] = [draw(pod_claim(f"dev-{j}", ns, claims))
                                         for j in range(n)]
    if draw(integers(0, 3)) > 0:  # three scenarios in four
        draw(extended_resources(cluster, pending, classes))
    docs += draw(taint_rules(docs))
    draw(device_configs(classes, claims.documents))
    if costly:
        draw(costly_selectors(docs, claims.documents))
    return docs + claims.documents


#: the opaque parameters a drawn device configuration carries
CONFIG_PARAMETERS: tuple[Doc, ...] = ({"mode": "shared"}, {"sharing": {"strategy": "TimeSlicing",
                                                                       "replicas": 2}})


@composite
def _parameters(draw: st.DrawFn) -> Doc:
    return copy.deepcopy(CONFIG_PARAMETERS[draw(integers(0, len(CONFIG_PARAMETERS) - 1))])


@composite
def device_configs(draw: st.DrawFn, classes: Sequence[Doc], claims: Sequence[Doc]) -> None:
    """Opaque device configuration on about one class and one claim (or template) in five
    (``spec.config``, ``spec.devices.config``): for the class's driver; a claim's applies
    to all its requests or names one request or ``request/subrequest``. Drawn last, so the
    rest of the scenario is as without it; the allocation results report the configs
    (docs/dra.md "Results")."""
    for cls in classes:
        if draw(integers(0, 4)) == 4:
            cls["spec"]["config"] = [{"opaque": {
                "driver": _driver_of(cls["metadata"]["name"]),
                "parameters": draw(_parameters())}}]
    for doc in claims:
        if draw(integers(0, 4)) < 4:
            continue
        spec = doc["spec"] if doc["kind"] == "ResourceClaim" else doc["spec"]["spec"]
        devices = spec["devices"]
        names = [r["name"] for r in devices["requests"]]
        names += [f"{r['name']}/{sub['name']}" for r in devices["requests"]
                  for sub in r.get("firstAvailable", ())]
        config: Doc = {"opaque": {"driver": GPU_DRIVER,
                                  "parameters": draw(_parameters())}}
        if draw(booleans()):
            config["requests"] = [draw(sampled(names))]
        devices["config"] = [config]


@composite
def taint_rules(draw: st.DrawFn, docs: Sequence[Doc]) -> list[Doc]:
    """One scenario in four: a DeviceTaintRule (DRADeviceTaintRules, GA in the pinned release)
    with the ``unhealthy`` taint (which the drawn tolerations tolerate) and either effect that
    keeps the allocator away, selecting a drawn slice's driver, its pool, or one device of it
    (k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker.go applyPatches)."""
    slices = [d for d in docs if d["kind"] == "ResourceSlice" and d["spec"].get("devices")]
    if not slices or draw(st.integers(0, 3)) > 0:
        return []
    spec = slices[draw(st.integers(0, len(slices) - 1))]["spec"]
    selector: Doc = {"driver": spec["driver"]}
    how = draw(st.integers(0, 2))
    if how > 0:
        selector["pool"] = spec["pool"]["name"]
    if how > 1:
        selector["device"] = draw(sampled(tuple(d["name"] for d in spec["devices"])))
    return [{"apiVersion": RESOURCE_V1, "kind": "DeviceTaintRule",
             "metadata": {"name": "unhealthy"},
             "spec": {"deviceSelector": selector, "taint": {
                 "key": UNHEALTHY, "value": "true",
                 "effect": draw(sampled(("NoSchedule", "NoExecute")))}}}]


@composite
def extended_resources(draw: st.DrawFn, cluster: GeneratedCluster, pending: list[Doc],
                       classes: list[Doc]) -> None:
    """Extended resources backed by DRA (extendeddynamicresources.go): the GPU class may map
    ``example.com/gpu``; 1-3 pending pods request it or a class's implicit name in their first
    container (requests equal to limits: extended resources cannot be overcommitted); one
    node in four advertises ``example.com/gpu: 1`` (its device plugin then serves the
    resource, not DRA). No node advertises it when a pod that requests it also has a
    ResourceClaim: upstream's PreBind then fails on that node at every retry, so the scenario
    would never settle (upstream-dra-extended-resource-empty-mappings, docs/upstream-deviations.md,
    has its own scenario with a horizon)."""
    names = [IMPLICIT_PREFIX + c["metadata"]["name"] for c in classes]
    if draw(booleans()):
        classes[0]["spec"]["extendedResourceName"] = EXTENDED_RESOURCE
        names.insert(0, EXTENDED_RESOURCE)
    if not pending:
        return
    users = draw(st.lists(integers(0, len(pending) - 1), unique=True, min_size=1,
                          max_size=min(3, len(pending))))
    for i in users:
        name = draw(sampled(names))
        q = str(draw(sampled(EXTENDED_COUNTS)))
        res = pending[i]["spec"]["containers"][0].setdefault("resources", {})
        res.setdefault("requests", {})[name] = q
        res.setdefault("limits", {})[name] = q
    if EXTENDED_RESOURCE in names and any(_claims_and_requests(p, EXTENDED_RESOURCE)
                                          for p in pending):
        for node in cluster.nodes:  # also what the extended_resources feature advertised
            for key in ("capacity", "allocatable"):
                node.get("status", {}).get(key, {}).pop(EXTENDED_RESOURCE, None)
        return
    for node in cluster.nodes:
        if EXTENDED_RESOURCE in names and draw(integers(0, 3)) == 0:
            status = node.setdefault("status", {})
            for key in ("capacity", "allocatable"):
                if key in status:
                    status[key][EXTENDED_RESOURCE] = "1"


def _claims_and_requests(pod: Doc, resource: str) -> bool:
    """The pod has a ResourceClaim and a container (init or not) requests ``resource``."""
    spec = pod["spec"]
    return bool(spec.get("resourceClaims")) and any(
        resource in (c.get("resources") or {}).get("requests", {})
        for c in [*spec.get("initContainers", []), *spec["containers"]])


def with_template_claims(documents: list[Doc]) -> list[Doc]:
    """The scenario's documents with the claims of their ResourceClaimTemplates, as the
    resourceclaim controller creates them (``add_template_claims``, the pre-pass ``kschedconf``
    runs on user inputs): the scenario file holds them, so every subject replays the same
    claims (upstream's scheduler creates none; docs/dra.md)."""
    return [doc for _, _, doc in add_template_claims(
        [("generated", i + 1, d) for i, d in enumerate(documents)])]


#: the name of the ``spec.resourceClaims`` entry a timeline pod gets (``timeline_claims``)
TIMELINE_CLAIM_ENTRY = "dev-tl"
#: the claim spec of half the templates ``timeline_claims`` adds: one GPU, no selector (a
#: drawn spec rarely fits what the pending pods left)
ONE_GPU: Doc = {"devices": {"requests": [{"name": "gpu", "exactly": {
    "deviceClassName": GPU_DRIVER, "allocationMode": "ExactCount", "count": 1}}]}}


@composite
def timeline_claims(draw: st.DrawFn, documents: list[Doc], timeline: Doc | None) -> list[Doc]:
    """Template claims for pods the timeline creates: in three DRA scenarios in four, each
    ``createPod`` pod without ``spec.nodeName`` (timed or triggered) gets, three in four, a
    ``spec.resourceClaims`` entry naming a ResourceClaimTemplate of its namespace (one the
    scenario has, or a new one: a drawn spec or, one in two, ``ONE_GPU``). Their claims are
    made when the event creates the pod, by each subject, as the resourceclaim controller
    would (docs/dra.md, "Claims from templates"); no claim is written into the documents.
    Returns the new templates (for ``documents``; the timeline's pods are changed in place).
    Drawn after the rest of the scenario, so that the rest is what it was without it."""
    events = [e for e in ((timeline or {}).get("spec") or {}).get("events") or []
              if e.get("action") == "createPod" and not e["pod"]["spec"].get("nodeName")]
    if not events or draw(integers(0, 3)) == 0:
        return []
    classes = _class_names_of([d for d in documents if d.get("kind") == "DeviceClass"])
    templates: dict[str, list[str]] = {}
    for d in documents:
        if d.get("kind") == "ResourceClaimTemplate" and d.get("apiVersion") == RESOURCE_V1:
            templates.setdefault(d["metadata"].get("namespace", "default"), []).append(
                d["metadata"]["name"])
    new: list[Doc] = []
    for e in events:
        if not classes or draw(integers(0, 3)) == 0:
            continue
        pod = e["pod"]
        ns = pod["metadata"].get("namespace", "default")
        known = templates.get(ns, [])
        if known and draw(booleans()):
            name = draw(sampled(known))
        else:
            name = f"template-tl-{len(new)}"
            spec = draw(claim_specs(classes)) if draw(booleans()) else ONE_GPU
            new.append({"apiVersion": RESOURCE_V1, "kind": "ResourceClaimTemplate",
                        "metadata": {"name": name, "namespace": ns},
                        "spec": {"spec": copy.deepcopy(spec)}})
            templates.setdefault(ns, []).append(name)
        pod["spec"]["resourceClaims"] = [
            *(pod["spec"].get("resourceClaims") or []),
            {"name": TIMELINE_CLAIM_ENTRY, "resourceClaimTemplateName": name}]
    return new


#: the times (seconds) of the events ``claim_releases`` adds: after the first attempts, before
#: the 6 s end of a ``dra_binding`` timeline
RELEASE_TIMES = (1, 2, 5)
#: the pods and the template ``claim_releases`` adds
RELEASE_HOLDER, RELEASE_WAITER, RELEASE_TEMPLATE = "claim-holder", "claim-waiter", "release-gpus"
#: the pod a ``claim_releases`` timeline creates to preempt the holder, and the host port they
#: both ask for (not one of ``HOST_PORTS``: no other pod of the scenario uses it)
RELEASE_PREEMPTOR, RELEASE_PORT = "claim-preemptor", 7070
#: its priority class: above every user value (at most 1e9), so the holder is always lower
RELEASE_PRIORITY_CLASS = "system-cluster-critical"
#: the claim spec of ``RELEASE_TEMPLATE``: every GPU of the node (allocation mode All),
#: whatever their taints
ALL_GPUS: Doc = {"devices": {"requests": [{"name": "gpus", "exactly": {
    "deviceClassName": GPU_DRIVER, "allocationMode": "All",
    "tolerations": [{"operator": "Exists"}]}}]}}


def _release_pod(name: str, node: str, port: bool = False, claim: bool = True) -> Doc:
    """A pod held to ``node``, tolerating every taint; with ``port`` its container asks for
    ``RELEASE_PORT`` on the host, with ``claim`` it has a claim from ``RELEASE_TEMPLATE``."""
    container: Doc = {"name": "c", "image": "registry.k8s.io/pause"}
    if port:
        container["ports"] = [{"containerPort": RELEASE_PORT, "hostPort": RELEASE_PORT}]
    spec: Doc = {"containers": [container], "nodeSelector": {v.HOSTNAME: node},
                 "tolerations": [{"operator": "Exists"}]}
    if claim:
        spec["resourceClaims"] = [{"name": "gpus",
                                   "resourceClaimTemplateName": RELEASE_TEMPLATE}]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


@composite
def claim_releases(draw: st.DrawFn, documents: list[Doc], timeline: Doc | None
                   ) -> tuple[list[Doc], Doc | None]:
    """In two DRA scenarios in three with a timeline and a node of whole GPUs: two pending
    pods held to that node (``nodeSelector`` on its hostname), ``claim-holder`` then
    ``claim-waiter``, each with a claim (made by the pre-pass) from the template
    ``release-gpus`` asking for all the GPUs of the node; the holder, tried first, usually
    gets them and the waiter waits (``cannot allocate all claims``). At 1, 2 or 5 s the
    timeline deletes the holder (``deletePod``; one in four ``finishPod``), or (one in four)
    creates ``claim-preemptor`` (``system-cluster-critical``, held to the node, asking for the
    host port the holder has), which preempts the holder: the resourceclaim controller's
    cleanup (docs/dra.md, "The resourceclaim controller's cleanup") deallocates and deletes its
    claim, and the waiter is retried and gets the GPUs. Returns the documents and the timeline
    (a new one when there was none) with the event appended. Drawn after the rest of the
    scenario, so that the rest is what it was without it."""
    nodes = sorted(d["spec"]["nodeName"] for d in documents
                   if d.get("kind") == "ResourceSlice" and d.get("apiVersion") == RESOURCE_V1
                   and d["metadata"]["name"].endswith("-gpu") and d["spec"].get("devices")
                   and d["spec"].get("nodeName"))
    taken = {(d["metadata"].get("namespace", "default"), d["metadata"].get("name"))
             for d in documents if d.get("kind") in ("Pod", "ResourceClaimTemplate")}
    if (not nodes or ("default", RELEASE_HOLDER) in taken or ("default", RELEASE_TEMPLATE)
            in taken or draw(integers(0, 2)) == 0):
        return documents, timeline
    node = draw(sampled(tuple(nodes)))
    action = ("finishPod", "createPod", "deletePod", "deletePod")[draw(integers(0, 3))]
    preempt = action == "createPod"
    at = f"{draw(sampled(RELEASE_TIMES))}s"
    template = {"apiVersion": RESOURCE_V1, "kind": "ResourceClaimTemplate",
                "metadata": {"name": RELEASE_TEMPLATE, "namespace": "default"},
                "spec": {"spec": copy.deepcopy(ALL_GPUS)}}
    documents = with_template_claims([
        *documents, template, _release_pod(RELEASE_HOLDER, node, port=preempt),
        _release_pod(RELEASE_WAITER, node)])
    if timeline is None:
        timeline = {"apiVersion": "kschedconf/v1", "kind": "Scenario",
                    "metadata": {"name": "claim-release"}, "spec": {"events": []}}
    event: Doc = {"at": at, "action": action, "pod": f"default/{RELEASE_HOLDER}"}
    if preempt:
        preemptor = _release_pod(RELEASE_PREEMPTOR, node, port=True, claim=False)
        preemptor["spec"]["priorityClassName"] = RELEASE_PRIORITY_CLASS
        event = {"at": at, "action": action, "pod": preemptor}
    spec = timeline.setdefault("spec", {})
    spec["events"] = [*(spec.get("events") or []), event]
    return documents, timeline


#: the pod every ``dra_binding`` scenario has beside the drawn ones (:func:`binding_witness`)
BINDING_WITNESS = "binding-witness"


def binding_witness() -> Doc:
    """A pod without claims or requests, so that a ``dra_binding`` scenario where every drawn
    pod gets a device with binding conditions (and so ends in Error when the binding times out)
    still has a decision the oracles and the differential can judge: bound or unschedulable,
    never an Error of PreBind."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": BINDING_WITNESS, "namespace": "default"},
            "spec": {"containers": [{"name": "c0", "image": "nginx:1.25"}]}}


def binding_conditions(config: Doc | None, timeline: Doc | None) -> tuple[Doc, Doc]:
    """With ``dra_binding``: every profile's DynamicResources gets ``bindingTimeout: 1500ms``
    (the default 10m would keep the upstream subject waiting that long in wall-clock time),
    and the timeline ends at 6s: a pod that gets a device with binding conditions never
    binds (nobody sets them), so the run would not settle (docs/dra.md#binding-conditions)."""
    cfg: Doc = dict(config) if config is not None else {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
    profiles = [dict(p) for p in cfg.get("profiles") or [{}]]
    for p in profiles:
        others = [c for c in p.get("pluginConfig", []) if c["name"] != "DynamicResources"]
        p["pluginConfig"] = [*others, {"name": "DynamicResources",
                                       "args": {"bindingTimeout": BINDING_TIMEOUT}}]
    cfg["profiles"] = profiles
    tl: Doc = dict(timeline) if timeline is not None else {
        "apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": []}}
    tl["spec"] = {**tl["spec"], "until": BINDING_UNTIL}
    return cfg, tl
