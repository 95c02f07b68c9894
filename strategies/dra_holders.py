"""Bound pods holding the special claim of their extended resources backed by DRA, as a cluster
dump shows them once DynamicResources' PreBind has run (pkg/scheduler/framework/plugins/
dynamicresources/extendeddynamicresources.go and dynamicresources.go bindClaim of
k8s.io/kubernetes v1.37.2): the pod, its claim (allocated on the pod's node, reserved for it,
with the delete-protection finalizer) and its ``status.extendedResourceClaimStatus``; maybe a
pod waiting for the GPUs and a timeline event that deletes or finishes the holder
(docs/strategies.md#dra)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from reference_impl.model.generated_names import generate_name
from strategies._cache import booleans, composite, integers, sampled
from strategies.dra import (
    EXTENDED_RESOURCE,
    GPU_DRIVER,
    IMPLICIT_PREFIX,
    RELEASE_HOLDER,
    RELEASE_TIMES,
    RESOURCE_V1,
    _release_pod,
)
from strategies.objects import stable_uid

__all__ = ["ER_HOLDER", "ER_WAITER", "extended_resource_holders"]

Doc = dict[str, Any]

#: the bound holder and the pending pod that waits for its GPUs (namespace ``default``)
ER_HOLDER, ER_WAITER = "er-holder", "er-waiter"
#: what PreBind writes (resourceapi.ExtendedResourceClaimAnnotation, resourceapi.Finalizer)
EXTENDED_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
DELETE_PROTECTION = "resource.kubernetes.io/delete-protection"
#: createResourceRequestAndMappings: container 0, its only (so first) request name
REQUEST = "container-0-request-0"


def _int(q: Any) -> int | None:
    try:
        return int(str(q))
    except ValueError:
        return None


def _usable_gpus(documents: Sequence[Doc]) -> dict[str, tuple[str, list[str], int]]:
    """Per node without the extended resource in its allocatable and with room for one more
    pod: its pool ``<node>`` and the GPUs of it that a request of the GPU class without
    tolerations gets alone (no device taint, no DeviceTaintRule, no binding conditions, not
    shared, not in an input allocation), and how many GPUs such a request may get there
    (shared ones too)."""
    nodes = {
        d["metadata"]["name"]: d
        for d in documents
        if d.get("kind") == "Node" and d.get("apiVersion") == "v1"
    }
    rules = [d["spec"]["deviceSelector"] for d in documents if d.get("kind") == "DeviceTaintRule"]
    allocated = {
        (r.get("pool"), r.get("device"))
        for d in documents
        if d.get("kind") == "ResourceClaim"
        for r in (((d.get("status") or {}).get("allocation") or {}).get("devices") or {}).get(
            "results"
        )
        or []
    }
    running: dict[str, int] = {}
    for d in documents:
        if d.get("kind") == "Pod" and d.get("spec", {}).get("nodeName"):
            running[d["spec"]["nodeName"]] = running.get(d["spec"]["nodeName"], 0) + 1
    out: dict[str, tuple[str, list[str], int]] = {}
    for d in documents:
        spec = d.get("spec") or {}
        node = str(spec.get("nodeName") or "")
        if (
            d.get("kind") != "ResourceSlice"
            or d.get("apiVersion") != RESOURCE_V1
            or node not in nodes
            or spec.get("driver") != GPU_DRIVER
            or d["metadata"]["name"] != f"{node}-gpu"
        ):
            continue
        alloc = (nodes[node].get("status") or {}).get("allocatable") or {}
        pods = _int(alloc.get("pods", 0))
        if EXTENDED_RESOURCE in alloc or pods is None or running.get(node, 0) >= pods:
            continue
        pool = spec["pool"]["name"]

        def free(dev: Doc, pool: str = pool) -> bool:
            return not (
                kept_away(dev)
                or dev.get("allowMultipleAllocations")
                or (pool, dev["name"]) in allocated
            )

        def kept_away(dev: Doc, pool: str = pool) -> bool:
            return bool(
                dev.get("taints")
                or dev.get("bindingConditions")
                or any(
                    r.get("driver") == GPU_DRIVER
                    and r.get("pool", pool) == pool
                    and r.get("device", dev["name"]) == dev["name"]
                    for r in rules
                )
            )

        gpus = [dev["name"] for dev in spec.get("devices") or [] if free(dev)]
        if gpus:
            out[node] = (pool, gpus, sum(not kept_away(d) for d in spec.get("devices") or []))
    return out


def _holder(node: str, resource: str, pool: str, gpus: Sequence[str]) -> tuple[Doc, Doc]:
    """The running holder and its claim as PreBind left them (createExtendedResourceClaimInAPI:
    generateName, the pod as controller owner, the annotation; bindClaim: the finalizer, the
    allocation, the reservation; patchPodExtendedResourceClaimStatus: the pod's status)."""
    uid = stable_uid("Pod", "default", ER_HOLDER)
    base = f"{ER_HOLDER}-extended-resources-"
    claim_name = generate_name(base, "ResourceClaim/default/0")  # the first of its base
    count = str(len(gpus))
    pod: Doc = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": ER_HOLDER, "namespace": "default", "uid": uid},
        "spec": {
            "nodeName": node,
            "containers": [
                {
                    "name": "c",
                    "image": "registry.k8s.io/pause",
                    "resources": {"requests": {resource: count}, "limits": {resource: count}},
                }
            ],
        },
        "status": {
            "phase": "Running",
            "extendedResourceClaimStatus": {
                "resourceClaimName": claim_name,
                "requestMappings": [
                    {"containerName": "c", "resourceName": resource, "requestName": REQUEST}
                ],
            },
        },
    }
    claim: Doc = {
        "apiVersion": RESOURCE_V1,
        "kind": "ResourceClaim",
        "metadata": {
            "name": claim_name,
            "namespace": "default",
            "generateName": base,
            "annotations": {EXTENDED_CLAIM_ANNOTATION: "true"},
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": ER_HOLDER,
                    "uid": uid,
                    "controller": True,
                }
            ],
            "finalizers": [DELETE_PROTECTION],
        },
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": REQUEST,
                        "exactly": {
                            "deviceClassName": GPU_DRIVER,
                            "allocationMode": "ExactCount",
                            "count": len(gpus),
                        },
                    }
                ]
            }
        },
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": REQUEST, "driver": GPU_DRIVER, "pool": pool, "device": g}
                        for g in gpus
                    ]
                },
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": [node]}
                            ]
                        }
                    ]
                },
            },
            "reservedFor": [{"resource": "pods", "name": ER_HOLDER, "uid": uid}],
        },
    }
    return pod, claim


@composite
def extended_resource_holders(
    draw: st.DrawFn, documents: list[Doc], timeline: Doc | None, events: bool
) -> tuple[list[Doc], Doc | None]:
    """In three DRA scenarios in four with a node (not ``claim_releases``' node, not advertising
    ``example.com/gpu``) of free whole GPUs: ``default/er-holder`` runs there holding 1 to
    all of them (up to 3) through its special claim, for ``example.com/gpu`` when the GPU
    class maps it (one in two) or else the class's implicit name. With ``events`` (a
    timeline is allowed and upstream's PreBind never waits in wall-clock time), three in four:
    ``default/er-waiter``, held to the node, asks for all the GPUs it may get there, and
    the timeline deletes (``deletePod``, or one in three ``finishPod``) the holder at 1, 2
    or 5 s, unless it deletes the holder's node; the resourceclaim controller's cleanup then
    frees the GPUs (docs/dra.md).
    Drawn last, so that the rest of the scenario is what it was without it."""
    taken = {
        (d["metadata"].get("namespace", "default"), d["metadata"].get("name"))
        for d in documents
        if d.get("kind") == "Pod"
    }
    if ("default", ER_HOLDER) in taken or ("default", ER_WAITER) in taken:
        return documents, timeline
    release_nodes = {
        d["spec"].get("nodeSelector", {}).get("kubernetes.io/hostname")
        for d in documents
        if d.get("kind") == "Pod" and d["metadata"].get("name") == RELEASE_HOLDER
    }
    usable = {n: g for n, g in _usable_gpus(documents).items() if n not in release_nodes}
    if not usable or draw(integers(0, 3)) == 0:
        return documents, timeline
    node = draw(sampled(tuple(sorted(usable))))
    pool, gpus, eligible = usable[node]
    held = gpus[: draw(integers(1, min(3, len(gpus))))]
    classes = [
        d
        for d in documents
        if d.get("kind") == "DeviceClass" and d["metadata"]["name"] == GPU_DRIVER
    ]
    mapped = any(c["spec"].get("extendedResourceName") == EXTENDED_RESOURCE for c in classes)
    resource = EXTENDED_RESOURCE if mapped and draw(booleans()) else IMPLICIT_PREFIX + GPU_DRIVER
    documents = [*documents, *_holder(node, resource, pool, held)]
    # a timeline that deletes the node takes the holder with it: no event may target it then
    deleted = {e.get("node") for e in ((timeline or {}).get("spec") or {}).get("events") or ()
               if e.get("action") == "deleteNode"}
    if not events or node in deleted or draw(integers(0, 3)) == 0:
        return documents, timeline
    waiter = _release_pod(ER_WAITER, node, claim=False)
    want = str(eligible)
    waiter["spec"]["containers"][0]["resources"] = {
        "requests": {resource: want},
        "limits": {resource: want},
    }
    if timeline is None:
        timeline = {
            "apiVersion": "kschedconf/v1",
            "kind": "Scenario",
            "metadata": {"name": "extended-resource-release"},
            "spec": {"events": []},
        }
    action = ("finishPod", "deletePod", "deletePod")[draw(integers(0, 2))]
    event = {
        "at": f"{draw(sampled(RELEASE_TIMES))}s",
        "action": action,
        "pod": f"default/{ER_HOLDER}",
    }
    spec = timeline.setdefault("spec", {})
    spec["events"] = [*(spec.get("events") or []), event]
    return [*documents, waiter], timeline
