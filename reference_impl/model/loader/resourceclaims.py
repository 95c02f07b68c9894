"""The resourceclaim controller's part the scheduler waits for: a ResourceClaim for each pod
claim that names a ResourceClaimTemplate, and the pod's ``status.resourceClaimStatuses``.

Upstream: ``pkg/controller/resourceclaim/controller.go`` (``handleClaim``) of v1.37.2. The
harness runs no controller manager: ``add_template_claims`` is a pre-pass over the raw
documents, so every subject sees the same claims; ``create_template_claims`` does it on loaded
objects; ``create_pod_template_claims`` for a pod a timeline ``createPod`` event creates (the
upstream subject's ``createTemplateClaims``, upstream/dra.go, names them by the same rule:
``template_claim_name``). docs/dra.md, "Claims from templates", has the details.
"""

from __future__ import annotations

import copy
from collections.abc import Container, Iterable, Mapping
from typing import Any, TypeVar

from reference_impl.model.dra import DRAObjects, ResourceClaim, ResourceClaimSpec
from reference_impl.model.generated_names import generate_name
from reference_impl.model.loader.defaults import _deterministic_uid
from reference_impl.model.objects import Pod

#: resourceapi.PodResourceClaimAnnotation
POD_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
#: handleClaim's ``maxBaseLen``: room for the 5 random characters in 63
MAX_BASE_LEN = 57


def claim_generate_name(pod_name: str, pod_claim_name: str) -> str:
    """``generateName`` of handleClaim: ``<pod>-<claim>-``, or when longer than 57 characters
    both names cut in proportion to their length (then without the trailing hyphen, as
    upstream)."""
    generate = f"{pod_name}-{pod_claim_name}-"
    if len(generate) > MAX_BASE_LEN:
        n = len(generate)
        generate = (pod_name[:len(pod_name) * MAX_BASE_LEN // n] + "-"
                    + pod_claim_name[:len(pod_claim_name) * MAX_BASE_LEN // n])
    return generate


def create_template_claims(pods: Iterable[Pod], dra: DRAObjects) -> list[str]:
    """``handleClaim`` for every pod claim with a template and no status entry: create the
    claim (owner: the pod, as controller; annotation ``resource.kubernetes.io/pod-claim-name``;
    the template's labels, annotations and spec) and record its name in the pod's status.
    A missing template leaves the pod without the entry (upstream's controller retries; the
    scheduler's PreEnqueue then waits). The templates are looked up in, and the claims added
    to, ``dra``. Returns the warnings."""
    warnings: list[str] = []
    for pod in pods:
        warnings += create_pod_template_claims(pod, dra)[1]
    return warnings


def create_pod_template_claims(pod: Pod, dra: DRAObjects
                               ) -> tuple[list[ResourceClaim], list[str]]:
    """``handleClaim`` for one pod (see ``create_template_claims``): the claims created (and
    added to ``dra``; the pod's ``resource_claim_statuses`` gets their entries) and the
    warnings. The simulation calls it when a timeline ``createPod`` event creates a pod
    (reference_impl/scheduler/simulation.py), as the controller reacts to the pod's add."""
    warnings: list[str] = []
    created: list[ResourceClaim] = []
    known = {name for name, _ in pod.resource_claim_statuses}
    added: list[tuple[str, str | None]] = []
    for pc in pod.resource_claim_sources:
        if pc.resource_claim_template_name is None or pc.name in known:
            continue
        template = dra.claim_templates.get(f"{pod.namespace}/{pc.resource_claim_template_name}")
        if template is None:
            warnings.append(
                f"pod {pod.key}: resource claim template "
                f"{pc.resource_claim_template_name!r} not found: no ResourceClaim is "
                f"created for claim {pc.name!r} (the pod waits for it)")
            continue
        claim = _new_claim(dra, pod, pc.name, template.spec, template.labels,
                           template.annotations)
        dra.write_claim(f"{claim.namespace}/{claim.name}", claim)
        created.append(claim)
        added.append((pc.name, claim.name))
    if added:
        pod.resource_claim_statuses = (*pod.resource_claim_statuses, *added)
    return created, warnings


def template_claim_name(namespace: str, pod_name: str, pod_uid: str, pod_claim_name: str,
                        taken: Container[str]) -> str:
    """The name ``handleClaim`` gives the claim (``generateName``, deterministic from the
    pod's uid): the first of the candidates whose ``namespace/name`` is not ``taken``."""
    base = claim_generate_name(pod_name, pod_claim_name)
    n = 0
    name = generate_name(base, f"ResourceClaim/{namespace}/{pod_uid}/{n}")
    while f"{namespace}/{name}" in taken:
        n += 1
        name = generate_name(base, f"ResourceClaim/{namespace}/{pod_uid}/{n}")
    return name


def _new_claim(dra: DRAObjects, pod: Pod, pod_claim_name: str, spec: ResourceClaimSpec,
               labels: tuple[tuple[str, str], ...],
               annotations: tuple[tuple[str, str], ...]) -> ResourceClaim:
    name = template_claim_name(pod.namespace, pod.name, pod.uid, pod_claim_name, dra.claims)
    notes = {k: v for k, v in annotations if k != POD_RESOURCE_CLAIM_ANNOTATION}
    notes[POD_RESOURCE_CLAIM_ANNOTATION] = pod_claim_name
    return ResourceClaim(
        namespace=pod.namespace, name=name,
        uid=_deterministic_uid("ResourceClaim", pod.namespace, name),
        spec=spec,
        annotations=tuple(notes.items()), labels=labels, owner_pod_uid=pod.uid)


# --- the pre-pass on raw documents --------------------------------------------------------------

#: a raw document's number (``read_documents``: an int; the workload expansion: int or None)
N = TypeVar("N", int, int | None)


def _objects(documents: list[tuple[str, N, Any]]
             ) -> Iterable[tuple[int, int | None, Mapping[str, Any]]]:
    """Every object: (document index, List position or None, object)."""
    for i, (_, _, doc) in enumerate(documents):
        if not isinstance(doc, Mapping):
            continue
        if doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            for j, item in enumerate(doc["items"]):
                if isinstance(item, Mapping):
                    yield i, j, item
        else:
            yield i, None, doc


def _map(v: object) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return _map(obj.get("metadata"))


def _namespace(obj: Mapping[str, Any]) -> str:
    ns = _meta(obj).get("namespace")
    return ns if isinstance(ns, str) and ns else "default"


def _is(obj: Mapping[str, Any], kind: str, api_version: str) -> bool:
    return obj.get("kind") == kind and obj.get("apiVersion") == api_version


def add_template_claims(documents: Iterable[tuple[str, N, Any]]) -> list[tuple[str, N, Any]]:
    """``handleClaim`` as a pre-pass over the raw documents: for every named pod's claim with
    a ``resourceClaimTemplateName`` whose template is among the documents and no entry in
    ``status.resourceClaimStatuses``, a ResourceClaim document (name: ``template_claim_name``;
    the pod as controller owner, by uid; the ``pod-claim-name`` annotation; the template's
    labels, annotations and spec) is added after the pod's document, and the pod document
    (copied) gets its uid made explicit (the loader's deterministic uid when it has none) and
    the status entry. Pods of a scenario's timeline are left to the loader. Anything
    malformed is left as it is for the loader to report."""
    out = list(documents)
    templates: dict[str, Mapping[str, Any]] = {}
    taken: set[str] = set()
    for _, _, obj in _objects(out):
        key = f"{_namespace(obj)}/{_meta(obj).get('name')}"
        if _is(obj, "ResourceClaimTemplate", "resource.k8s.io/v1"):
            templates[key] = obj
        elif _is(obj, "ResourceClaim", "resource.k8s.io/v1"):
            taken.add(key)
    if not templates:
        return out
    added: dict[int, list[tuple[str, N, Any]]] = {}
    for index, item, obj in list(_objects(out)):
        if not _is(obj, "Pod", "v1"):
            continue
        pod, claims = _pod_with_claims(obj, templates, taken)
        if not claims:
            continue
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


def _pod_with_claims(pod: Mapping[str, Any], templates: Mapping[str, Mapping[str, Any]],
                     taken: set[str]) -> tuple[Mapping[str, Any], list[dict[str, Any]]]:
    """The pod (a copy, when claims are created) and the claims created for it."""
    meta = _meta(pod)
    name = meta.get("name")
    spec = pod.get("spec")
    if not isinstance(name, str) or not name or not isinstance(spec, Mapping):
        return pod, []
    namespace = _namespace(pod)
    statuses = _map(pod.get("status")).get("resourceClaimStatuses")
    statuses = list(statuses) if isinstance(statuses, list) else []
    known = {s.get("name") for s in statuses if isinstance(s, Mapping)}
    given = meta.get("uid")
    uid = given if isinstance(given, str) and given else _deterministic_uid("Pod", namespace,
                                                                             name)
    claims: list[dict[str, Any]] = []
    pod_claims = spec.get("resourceClaims")
    for pc in pod_claims if isinstance(pod_claims, list) else ():
        if not isinstance(pc, Mapping) or pc.get("name") in known:
            continue
        template = templates.get(f"{namespace}/{pc.get('resourceClaimTemplateName')}")
        if pc.get("resourceClaimTemplateName") is None or template is None:
            continue  # the loader warns about a missing template
        claim_name = template_claim_name(namespace, name, uid, str(pc["name"]), taken)
        taken.add(f"{namespace}/{claim_name}")
        claims.append(_claim_document(template, namespace, claim_name, name, uid,
                                      str(pc["name"])))
        statuses.append({"name": pc["name"], "resourceClaimName": claim_name})
    if not claims:
        return pod, []
    copied = copy.deepcopy(dict(pod))
    copied["metadata"] = {**copied.get("metadata", {}), "uid": uid}
    copied["status"] = {**_map(copied.get("status")), "resourceClaimStatuses": statuses}
    return copied, claims


def _claim_document(template: Mapping[str, Any], namespace: str, name: str, pod_name: str,
                    pod_uid: str, pod_claim_name: str) -> dict[str, Any]:
    """The claim ``handleClaim`` creates from ``template`` (controller.go: ``claim :=
    &resourceapi.ResourceClaim{ObjectMeta: {GenerateName, OwnerReferences: {controller},
    Annotations: template's + PodResourceClaimAnnotation, Labels: template's}, Spec:
    template.Spec.Spec}``)."""
    tspec = _map(template.get("spec"))
    tmeta = _map(tspec.get("metadata"))
    annotations = {k: v for k, v in _map(tmeta.get("annotations")).items()
                   if k != POD_RESOURCE_CLAIM_ANNOTATION}
    annotations[POD_RESOURCE_CLAIM_ANNOTATION] = pod_claim_name
    meta: dict[str, Any] = {
        "name": name, "namespace": namespace,
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod_name,
                             "uid": pod_uid, "controller": True,
                             "blockOwnerDeletion": True}],
        "annotations": annotations}
    if labels := _map(tmeta.get("labels")):
        meta["labels"] = copy.deepcopy(dict(labels))
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta,
            "spec": copy.deepcopy(tspec.get("spec") or {})}
