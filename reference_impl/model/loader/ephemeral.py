"""The ephemeral volume controller's part the scheduler waits for: a PersistentVolumeClaim
``<pod>-<volume>`` for each generic ephemeral volume of a pod, owned by the pod.

Upstream: ``handleVolume`` of pkg/controller/volume/ephemeral/controller.go and
``VolumeClaimName`` of k8s.io/component-helpers/storage/ephemeral (v1.37.2). As for the claims
of ResourceClaimTemplates (``resourceclaims.py``), ``add_ephemeral_claims`` is a pre-pass on
the raw documents (after the admission) so that every subject sees the same claims, and the
loader runs ``create_ephemeral_claims`` on loaded objects for documents loaded directly. A
claim of that name that exists already is kept as it is (upstream then checks its owner:
``ephemeral.VolumeIsForPod``, which the VolumeBinding plugin checks again).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from reference_impl.model.decoding import InputLocation
from reference_impl.model.loader.defaults import _deterministic_uid
from reference_impl.model.loader.fields import _Raw
from reference_impl.model.loader.resourceclaims import (
    N,
    _map,
    _meta,
    _namespace,
    _objects,
    add_template_claims,
)
from reference_impl.model.loader.storage import _persistent_volume_claim
from reference_impl.model.objects import Pod
from reference_impl.model.storage import StorageObjects


def volume_claim_name(pod_name: str, volume_name: str) -> str:
    """``ephemeral.VolumeClaimName``: ``<pod name>-<volume name>``."""
    return f"{pod_name}-{volume_name}"


def ephemeral_volumes(volumes: Iterable[Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(volume name, ``ephemeral.volumeClaimTemplate``) of each generic ephemeral volume of a
    pod's ``spec.volumes``; malformed entries are left to the pod loader."""
    out = []
    for v in volumes:
        if not isinstance(v, Mapping) or not isinstance(v.get("name"), str):
            continue
        eph = v.get("ephemeral")
        if isinstance(eph, Mapping):
            out.append((v["name"], _map(eph.get("volumeClaimTemplate"))))
    return out


def claim_document(template: Mapping[str, Any], namespace: str, name: str, pod_name: str,
                   pod_uid: str) -> dict[str, Any]:
    """The claim ``handleVolume`` creates: ``ObjectMeta{Name, OwnerReferences: the pod as
    controller (blockOwnerDeletion), Annotations and Labels: the template's}``, ``Spec: the
    template's spec``; in the pod's namespace."""
    tmeta = _map(template.get("metadata"))
    meta: dict[str, Any] = {
        "name": name, "namespace": namespace,
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod_name,
                             "uid": pod_uid, "controller": True,
                             "blockOwnerDeletion": True}]}
    for key in ("annotations", "labels"):
        if value := _map(tmeta.get(key)):
            meta[key] = copy.deepcopy(dict(value))
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
            "spec": copy.deepcopy(dict(_map(template.get("spec"))))}


def create_ephemeral_claims(pods: Iterable[Pod], storage: StorageObjects,
                            source: str = "<ephemeral volume controller>") -> None:
    """``handleVolume`` for every loaded pod's ephemeral volume whose claim does not exist:
    the claim is read from ``claim_document`` by the storage loader and added to
    ``storage``."""
    for pod in pods:
        if pod.deletion_timestamp is not None:
            continue  # syncHandler: "nothing to do for pod, it is marked for deletion"
        for volume, template in ephemeral_volumes(pod.volumes):
            name = volume_claim_name(pod.name, volume)
            key = f"{pod.namespace}/{name}"
            if key in storage.claims:
                if storage.claims[key].owner_pod_uid != pod.uid:
                    break  # VolumeIsForPod fails: handleVolume's error ends the pod's sync
                continue
            doc = claim_document(template, pod.namespace, name, pod.name, pod.uid)
            ctx = InputLocation(source, None, obj=f"PersistentVolumeClaim {key} (ephemeral "
                                                  f"volume {volume!r} of pod {pod.key})")
            raw = _Raw("PersistentVolumeClaim", "v1", doc, ctx, pod.namespace, name)
            storage.claims[key] = _persistent_volume_claim(raw)


def _controller_uid(obj: Mapping[str, Any]) -> str:
    """The uid of the object's controller owner ("" without one)."""
    refs = _meta(obj).get("ownerReferences")
    for ref in refs if isinstance(refs, list) else ():
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return str(ref.get("uid") or "")
    return ""


def add_ephemeral_claims(documents: Iterable[tuple[str, N, Any]]
                         ) -> list[tuple[str, N, Any]]:
    """``handleVolume`` as a pre-pass over the raw documents: for every named pod's ephemeral
    volume whose claim ``<pod>-<volume>`` is not among the documents, the claim document is
    added after the pod's document, and the pod document (copied) gets its uid made explicit
    (the loader's deterministic uid when it has none), as the claim's owner names it. Pods of
    a scenario's timeline are left to the loader."""
    out = list(documents)
    taken = {f"{_namespace(obj)}/{_meta(obj).get('name')}": _controller_uid(obj)
             for _, _, obj in _objects(out)
             if obj.get("kind") == "PersistentVolumeClaim"
             and obj.get("apiVersion") in (None, "", "v1")}
    added: dict[int, list[tuple[str, N, Any]]] = {}
    for index, item, obj in list(_objects(out)):
        if obj.get("kind") != "Pod" or obj.get("apiVersion") not in (None, "", "v1"):
            continue
        meta = _meta(obj)
        name = meta.get("name")
        volumes = _map(obj.get("spec")).get("volumes")
        if (not isinstance(name, str) or not name or not isinstance(volumes, list)
                or meta.get("deletionTimestamp")):
            continue
        namespace = _namespace(obj)
        given = meta.get("uid")
        uid = given if isinstance(given, str) and given else _deterministic_uid(
            "Pod", namespace, name)
        claims = []
        for volume, template in ephemeral_volumes(volumes):
            claim_name = volume_claim_name(name, volume)
            key = f"{namespace}/{claim_name}"
            if key in taken:
                if taken[key] != uid:
                    break  # not the pod's claim: handleVolume's error ends the pod's sync
                continue
            taken[key] = uid
            claims.append(claim_document(template, namespace, claim_name, name, uid))
        if not claims:
            continue
        pod = copy.deepcopy(dict(obj))
        pod["metadata"] = {**pod.get("metadata", {}), "uid": uid}
        source, number, doc = out[index]
        if item is None:
            out[index] = (source, number, pod)
        else:
            items = list(doc["items"])
            items[item] = pod
            out[index] = (source, number, {**doc, "items": items})
        added.setdefault(index, []).extend((source, number, c) for c in claims)
    result: list[tuple[str, N, Any]] = []
    for i, d in enumerate(out):
        result.append(d)
        result += added.get(i, [])
    return result


def add_controller_claims(documents: Iterable[tuple[str, N, Any]]
                          ) -> list[tuple[str, N, Any]]:
    """The claims the controllers around the scheduler create, as documents: a ResourceClaim
    of each pod's ResourceClaimTemplate (``add_template_claims``), then a
    PersistentVolumeClaim of each generic ephemeral volume (``add_ephemeral_claims``)."""
    return add_ephemeral_claims(add_template_claims(documents))


def with_controller_claims(documents: Iterable[Any]) -> list[Any]:
    """``add_controller_claims`` on a scenario's plain documents, for the subjects that
    run no resourceclaim or ephemeral-volume controller (the upstream subject, the control
    planes of conformance/backends): claims already among the documents are kept."""
    return [d for _, _, d in add_controller_claims(("", i, d) for i, d in enumerate(documents))]
