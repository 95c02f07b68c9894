"""The resource.k8s.io/v1 objects of a scenario on the API server: DeviceClasses,
ResourceSlices, DeviceTaintRules, ResourceClaimTemplates and ResourceClaims are planned (names
mapped like the run's nodes and namespaces, labelled with the run), created before the pods,
and deleted after the scenario. A DeviceTaintRule names drivers, pools and devices, which keep
their scenario names on the API server, so its spec is created as it is. After the run, the
allocations of the bound pods' claims are read back (the SimulationResult's
``resourceClaims``, docs/dra.md#results).

A claim that a Pod owns (one made for a template) can only point at the pod's UID once the
pod exists: it is created right after its pod. A claim keeps DynamicResources' finalizer, and
its ``status.reservedFor`` entries of the run's live pods are written with the pods' API UIDs
(``reserve``): the resourceclaim controller releases it when they go."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Set
from dataclasses import dataclass, field
from typing import Any

from conformance.backends.api import ApiError, ClusterApi
from reference_impl.model.generated_names import ALPHANUMS, RANDOM_LENGTH, generate_name
from reference_impl.model.loader.resourceclaims import (
    claim_generate_name,
    template_claim_name,
)
from reference_impl.model.quantity import parse_quantity_string

#: the kinds, in creation order (claims name classes and templates; nothing names a claim;
#: the rules are in the scheduler's ResourceSlice tracker before any pod is)
DRA_KINDS = ("DeviceClass", "ResourceSlice", "DeviceTaintRule", "ResourceClaimTemplate",
             "ResourceClaim")
#: the feature gate under which kube-scheduler applies DeviceTaintRules (and the API server
#: serves them at resource.k8s.io/v1)
TAINT_RULES_GATE = "DRADeviceTaintRules"
RESOURCE_V1 = "resource.k8s.io/v1"
#: the finalizer DynamicResources puts on a claim it allocates (resourceapi.Finalizer); the
#: resourceclaim controller deallocates a claim without consumers only when it has it
CLAIM_FINALIZER = "resource.kubernetes.io/delete-protection"
#: the ``resourceClaims`` entry of the claim of a pod's extended resources backed by DRA (the
#: reference's SPECIAL_CLAIM_IN_MEM_NAME, upstream/dra.go's extendedResourcesEntry)
EXTENDED_ENTRY = "<extended-resources>"
#: resourceapi.ExtendedResourceClaimAnnotation: set on the claim DynamicResources' PreBind
#: creates for a pod's extended resources backed by DRA
EXTENDED_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"

Doc = dict[str, Any]


@dataclass(slots=True)
class PlannedDRA:
    """One DRA object to create: its manifest, the status to patch after (a claim's
    allocation), for a claim owned by a Pod, the pod's key (its UID is set at creation), and
    the keys of the pods a claim is reserved for (``reserve``)."""

    kind: str
    manifest: Doc
    status: Doc | None = None
    owner_pod: str | None = None
    reserved_for: list[str] = field(default_factory=list)


def is_dra(doc: Mapping[str, Any]) -> bool:
    return doc.get("apiVersion") == RESOURCE_V1 and doc.get("kind") in DRA_KINDS


def _map_node_selector(sel: Any, node: Any) -> None:
    """Node names in ``matchFields`` on ``metadata.name`` follow the API names."""
    for term in (sel or {}).get("nodeSelectorTerms") or []:
        for f in term.get("matchFields") or []:
            if f.get("key") == "metadata.name":
                f["values"] = [node(v) for v in f.get("values") or []]


def plan_object(d: Mapping[str, Any], meta: Doc, *, ns: Any, node: Any, pod: Any
                ) -> PlannedDRA:
    """The API object of the raw DRA document ``d`` (``meta``: its cleaned, labelled
    metadata; ``ns``/``node``: scenario name -> API name; ``pod``: pod key -> API name)."""
    kind = str(d["kind"])
    spec = copy.deepcopy(d.get("spec") or {})
    obj: Doc = {"apiVersion": RESOURCE_V1, "kind": kind, "metadata": meta, "spec": spec}
    if kind in ("ResourceClaim", "ResourceClaimTemplate"):
        meta["namespace"] = ns(str((d.get("metadata") or {}).get("namespace") or "default"))
    if kind == "ResourceSlice":
        if spec.get("nodeName"):
            spec["nodeName"] = node(spec["nodeName"])
        _map_node_selector(spec.get("nodeSelector"), node)
        for dev in spec.get("devices") or []:
            if dev.get("nodeName"):
                dev["nodeName"] = node(dev["nodeName"])
            _map_node_selector(dev.get("nodeSelector"), node)
    planned = PlannedDRA(kind, obj)
    if kind != "ResourceClaim":
        return planned
    if CLAIM_FINALIZER in ((d.get("metadata") or {}).get("finalizers") or []):
        meta["finalizers"] = [CLAIM_FINALIZER]
    claim_ns = str((d.get("metadata") or {}).get("namespace") or "default")
    planned.reserved_for = [
        f"{claim_ns}/{r['name']}" for r in (d.get("status") or {}).get("reservedFor") or []
        if isinstance(r, Mapping) and r.get("resource") == "pods" and not r.get("apiGroup")
        and r.get("name")]
    allocation = (d.get("status") or {}).get("allocation")
    if allocation:
        allocation = copy.deepcopy(allocation)
        _map_node_selector(allocation.get("nodeSelector"), node)
        planned.status = {"allocation": allocation}
    owners = (d.get("metadata") or {}).get("ownerReferences") or []
    for ref in owners:
        if ref.get("kind") == "Pod" and ref.get("controller"):
            pod_ns = str((d.get("metadata") or {}).get("namespace") or "default")
            planned.owner_pod = f"{pod_ns}/{ref.get('name')}"
            owner = {k: v for k, v in ref.items() if k != "uid"}  # uid: the created pod's
            owner["name"] = pod(planned.owner_pod)
            meta["ownerReferences"] = [owner]
    return planned


def create(api: ClusterApi, planned: PlannedDRA, owner_uid: str | None = None) -> Doc:
    """Create the object (a Pod-owned claim with the pod's ``owner_uid``; without its pod
    among the created ones, without an owner), then its status. An ``ApiError`` is raised as
    it is (the caller names the object)."""
    obj = planned.manifest
    if planned.owner_pod is not None:
        obj = copy.deepcopy(obj)
        if owner_uid:
            for ref in obj["metadata"].get("ownerReferences") or []:
                ref["uid"] = owner_uid
        else:
            obj["metadata"].pop("ownerReferences", None)
    created = api.create(planned.kind, obj)
    if planned.status:
        meta = obj["metadata"]
        created = api.patch(planned.kind, meta["name"], {"status": planned.status},
                            meta.get("namespace"), status=True)
    return created


def reserve(api: ClusterApi, planned: PlannedDRA, pods: Mapping[str, tuple[str, str]]) -> None:
    """Write ``status.reservedFor`` of a created claim: its entries whose pod the run created
    and is alive (``pods``: pod key -> (API name, UID)), in the input's order."""
    entries = [{"resource": "pods", "name": pods[k][0], "uid": pods[k][1]}
               for k in planned.reserved_for if k in pods]
    if entries:
        meta = planned.manifest["metadata"]
        api.patch(planned.kind, meta["name"], {"status": {"reservedFor": entries}},
                  meta.get("namespace"), status=True)


def drop_claim_finalizers(api: ClusterApi, claim: Mapping[str, Any]) -> None:
    """Let a claim go: remove its finalizers (DynamicResources' delete protection)."""
    m = claim.get("metadata") or {}
    if m.get("finalizers"):
        api.patch("ResourceClaim", str(m.get("name", "")), {"metadata": {"finalizers": None}},
                  m.get("namespace"))


# ----- results -----

def claim_name(pod: Mapping[str, Any], entry: Mapping[str, Any]) -> str | None:
    """The claim of a ``spec.resourceClaims`` entry (resourceclaim.Name in
    k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go): ``resourceClaimName``,
    or the one ``status.resourceClaimStatuses`` names for the entry."""
    if entry.get("resourceClaimName"):
        return str(entry["resourceClaimName"])
    for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []:
        if s.get("name") == entry.get("name"):
            return str(s["resourceClaimName"]) if s.get("resourceClaimName") else None
    return None


def allocation_of(claim: Mapping[str, Any] | None) -> Doc | None:
    """A claim's ``status.allocation`` as the ``resourceClaims`` entries hold it (the
    reference's ``allocation_doc``, reference_impl/plugins/dynamicresources/claims.py, and the
    upstream subject's ``allocationOf``, upstream/dra.go): ``config`` when there is any; per
    result, ``shared`` when it has a ``shareID`` (random UUIDs upstream, so only their
    presence) and ``consumedCapacity`` with each quantity as an exact rational."""
    alloc = ((claim or {}).get("status") or {}).get("allocation")
    if not alloc:
        return None
    devices = alloc.get("devices") or {}
    doc: Doc = {"devices": [_device_of(r) for r in devices.get("results") or []]}
    configs = [_config_of(c) for c in devices.get("config") or [] if c.get("opaque")]
    if configs:
        doc["config"] = configs
    return doc


def _config_of(c: Mapping[str, Any]) -> Doc:
    """A ``config`` entry: ``source``, ``requests`` unless empty, the opaque ``driver`` and
    ``parameters`` (the reference's ``config_doc``)."""
    doc: Doc = {"source": c.get("source", "")}
    if c.get("requests"):
        doc["requests"] = list(c["requests"])
    opaque = c["opaque"]
    doc["driver"] = opaque.get("driver", "")
    doc["parameters"] = opaque.get("parameters")
    return doc


def _device_of(r: Mapping[str, Any]) -> Doc:
    doc: Doc = {"request": r.get("request", ""), "driver": r.get("driver", ""),
                "pool": r.get("pool", ""), "device": r.get("device", "")}
    if r.get("shareID"):
        doc["shared"] = True
    consumed = r.get("consumedCapacity") or {}
    if consumed:
        doc["consumedCapacity"] = {str(n): str(parse_quantity_string(str(q)))
                                   for n, q in sorted(consumed.items())}
    return doc


def extended_claim_name(api_name: str, api_pod: str, key: str) -> str:
    """The scenario's name of the claim PreBind created for the pod ``key`` (``ns/name``;
    ``api_pod``: its name on the API server) with ``generateName: <pod>-extended-resources-``
    (extendeddynamicresources.go). The API server appends five random characters; the
    reference and the upstream subject derive them from the pod and a count of the claims
    made with that base (``generate_name``, reference_impl/model/generated_names.py). The name
    read back is reported as the first such claim of the scenario's pod is named there: a
    second claim (a binding that failed and was retried) shows as a difference. A name that is
    not of that form is reported as it is."""
    ns, name = key.split("/", 1)
    base = (api_pod + "-extended-resources-")[:63 - RANDOM_LENGTH]
    suffix = api_name[len(base):]
    if not api_name.startswith(base) or len(suffix) != RANDOM_LENGTH or \
            any(c not in ALPHANUMS for c in suffix):
        return api_name
    return generate_name(name + "-extended-resources-", f"ResourceClaim/{ns}/0")


def read_extended_claims(api: ClusterApi, pods: Mapping[str, Mapping[str, Any]]
                         ) -> tuple[dict[str, Doc], dict[str, Doc]]:
    """For each bound pod (scenario key -> its API object) whose extended resources backed by
    DRA got a claim: the pod's ``status.extendedResourceClaimStatus`` (the SimulationResult's
    ``extendedResourceClaimStatus``) and the ``<extended-resources>`` entry of its
    ``resourceClaims`` (the claim's allocation as the API has it), both with the claim's name
    as :func:`extended_claim_name` reports it."""
    statuses: dict[str, Doc] = {}
    entries: dict[str, Doc] = {}
    for key in sorted(pods):
        pod = pods[key]
        status = (pod.get("status") or {}).get("extendedResourceClaimStatus")
        if not status or not status.get("resourceClaimName"):
            continue
        meta = pod.get("metadata") or {}
        api_name = str(status["resourceClaimName"])
        try:
            claim: Mapping[str, Any] | None = api.get(
                "ResourceClaim", api_name, str(meta.get("namespace") or "default"))
        except ApiError:
            claim = None
        name = extended_claim_name(api_name, str(meta.get("name", "")), key)
        statuses[key] = {"resourceClaimName": name, "requestMappings": [
            {"containerName": m.get("containerName", ""), "resourceName": m.get(
                "resourceName", ""), "requestName": m.get("requestName", "")}
            for m in status.get("requestMappings") or []]}
        entries[key] = {"name": EXTENDED_ENTRY, "claim": name,
                        "allocation": allocation_of(claim)}
    return statuses, entries


def pod_owned_claims_of(api: ClusterApi, pod_uids: Set[str]) -> list[Doc]:
    """The claims others created for the pods ``pod_uids``: PreBind's for their extended
    resources and the resourceclaim controller's from a template. They carry neither the
    run's label (a template's claim has the template's labels) nor a name of the run (the
    API server named them), so they are found by their owner."""
    items, _ = api.list("ResourceClaim")
    return [c for c in items
            if any(r.get("kind") == "Pod" and r.get("uid") in pod_uids
                   for r in (c.get("metadata") or {}).get("ownerReferences") or [])]


def _generated(api_name: str, base: str) -> bool:
    """``api_name`` is ``base`` plus the API server's five random characters."""
    suffix = api_name[len(base):]
    return (api_name.startswith(base) and len(suffix) == RANDOM_LENGTH
            and all(c in ALPHANUMS for c in suffix))


def template_claim_back(api_name: str, api_pod: str, key: str, entry: str, uid: str) -> str:
    """The scenario's name of the claim the resourceclaim controller created from a template
    for the entry ``entry`` of the pod ``key`` (``api_pod``: its API name) that the timeline
    created: ``generateName: <pod>-<entry>-`` (``handleClaim``, pkg/controller/resourceclaim/
    controller.go), five random characters appended by the API server; the reference and the
    upstream subject derive them from the pod's ``uid`` (``template_claim_name``,
    reference_impl/model/loader/resourceclaims.py: the first candidate). Another name is
    reported as it is."""
    if not _generated(api_name, claim_generate_name(api_pod, entry)):
        return api_name
    ns, name = key.split("/", 1)
    return template_claim_name(ns, name, uid, entry, ())


def read_allocations(api: ClusterApi, pods: Mapping[str, Mapping[str, Any]],
                     created: Mapping[str, str] | None = None) -> dict[str, list[Doc]]:
    """``resourceClaims`` of the SimulationResult: for each bound pod (scenario key -> its API
    object) with claims, its entries with the claim's allocation as the API has it now. The
    claims of the pods the timeline created (``created``: key -> the scenario's pod uid) are
    named as the reference names them (:func:`template_claim_back`)."""
    out: dict[str, list[Doc]] = {}
    for key in sorted(pods):
        pod = pods[key]
        entries = (pod.get("spec") or {}).get("resourceClaims") or []
        if not entries:
            continue
        ns = str((pod.get("metadata") or {}).get("namespace") or "default")
        claims: list[Doc] = []
        for e in entries:
            name = claim_name(pod, e)
            claim = None
            if name is not None:
                try:
                    claim = api.get("ResourceClaim", name, ns)
                except ApiError:
                    claim = None
            shown = name
            if name is not None and key in (created or {}) and e.get(
                    "resourceClaimTemplateName"):
                shown = template_claim_back(name, str((pod.get("metadata") or {}).get("name")),
                                            key, str(e.get("name")), (created or {})[key])
            claims.append({"name": str(e.get("name")), "claim": shown,
                           "allocation": allocation_of(claim)})
        out[key] = claims
    return out
