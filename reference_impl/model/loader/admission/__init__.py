"""Admission for pods created from manifests, a pre-pass on raw documents before the loader:
what the API server's default admission plugins do to a new pod, in their order
(pkg/kubeapiserver/options/plugins.go): LimitRanger, Priority (in the loader), then
DefaultTolerationSeconds, RuntimeClass, and the validating phase; and DefaultStorageClass to
a new PersistentVolumeClaim (``admit_claims``). ``auto`` takes the objects of a dump (uid,
resourceVersion or a status) as they are; ``always`` admits every one, ``never`` none.
Modules: ``limitranger``, ``runtimeclass``, ``tolerationseconds``, ``storageclass``,
``common``; the order of the defaulting around admission is in docs/admission.md.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reference_impl.model.decoding import InputLocation, read_map, read_str
from reference_impl.model.loader.admission import (
    limitranger,
    runtimeclass,
    storageclass,
    tolerationseconds,
)
from reference_impl.model.loader.admission.common import AdmittedPod, AppliedDefault, containers
from reference_impl.model.loader.admission.limitranger import LimitRange, read_limit_range
from reference_impl.model.loader.admission.runtimeclass import RuntimeClass, read_runtime_class

ADMISSION_MODES = ("auto", "always", "never")
#: the Scenario document (reference_impl/model/scenario.py): its createPod events' pods are
#: created through the API server too, so they are admitted as well
SCENARIO_API_VERSION = "kschedconf/v1"
SCENARIO_KIND = "Scenario"
#: the (apiVersion group, kind) the admission pre-pass reads
ADMISSION_KINDS = {("", "LimitRange"), (runtimeclass.API_GROUP, "RuntimeClass")}

Document = tuple[str, int, Any]


@dataclass(slots=True)
class AdmissionPolicies:
    """The LimitRanges (by namespace, in name order) and RuntimeClasses (by name) of the
    inputs."""

    limit_ranges: dict[str, list[LimitRange]] = field(default_factory=dict)
    runtime_classes: dict[str, RuntimeClass] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.limit_ranges or self.runtime_classes)


@dataclass(slots=True)
class Admission:
    """What the pre-pass did: the documents with the admitted pods replaced, every default
    applied, the pods it admitted and the dump pods it took as they are."""

    mode: str
    documents: list[Document]
    policies: AdmissionPolicies
    applied: list[AppliedDefault] = field(default_factory=list)
    admitted: int = 0
    taken_as_they_are: int = 0
    #: the PersistentVolumeClaims the DefaultStorageClass plugin gave the default class
    #: (``admit_claims``; ``pod`` is the claim's ``namespace/name``)
    claim_defaults: list[AppliedDefault] = field(default_factory=list)

    def applied_to(self, pod_key: str) -> list[AppliedDefault]:
        return [a for a in self.applied if a.pod == pod_key]

    def summary(self) -> str | None:
        """One line for stderr, or None when admission changed nothing."""
        if not self.applied and not self.claim_defaults:
            return None
        pods = len({a.pod for a in self.applied})
        plugins = sorted({a.plugin for a in self.applied})
        dump = (f"; {self.taken_as_they_are} pod(s) of a dump taken as they are"
                if self.taken_as_they_are else "")
        claims = ""
        if self.claim_defaults:
            classes = sorted({str(a.value) for a in self.claim_defaults})
            claims = (f"{len(self.claim_defaults)} PersistentVolumeClaim(s) given the default "
                      f"StorageClass {', '.join(classes)} by {storageclass.PLUGIN}")
        if not self.applied:
            return (f"admission ({self.mode}): {claims} (--admission never to turn it off)")
        claims = f"; {claims}" if claims else ""
        return (f"admission ({self.mode}): {len(self.applied)} default(s) applied to {pods} "
                f"pod(s) by {', '.join(plugins)}{dump}{claims} (--admission never to turn it "
                "off; simulate --trace and explain list them)")


def is_dump_pod(doc: Mapping[str, Any]) -> bool:
    """A pod read back from a cluster: it has a uid or a resourceVersion, or a status."""
    meta = doc.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    status = doc.get("status")
    return bool(meta.get("uid") or meta.get("resourceVersion")
                or (isinstance(status, Mapping) and status))


def _group(api_version: object) -> str:
    return api_version.rpartition("/")[0] if isinstance(api_version, str) else ""


def _objects(docs: list[Document]) -> Iterable[tuple[int, str, Mapping[str, Any], InputLocation]]:
    """(document index, item path, object, location) of every object: a document, or each
    item of a ``kind: List`` (or typed list) document. Anything malformed is left to the
    loader."""
    for index, (source, number, doc) in enumerate(docs):
        if not isinstance(doc, Mapping):
            continue
        kind = doc.get("kind")
        if (isinstance(kind, str) and isinstance(doc.get("items"), list)
                and (kind == "List" or kind.endswith("List"))):
            item_kind = kind[:-4] if kind != "List" else ""
            for i, item in enumerate(doc["items"]):
                if isinstance(item, Mapping):
                    if item_kind and "kind" not in item:
                        item = {**item, "kind": item_kind}
                    yield index, f"items[{i}]", item, InputLocation(source, number,
                                                                     f"items[{i}]")
        else:
            yield index, "", doc, InputLocation(source, number)


def _name_ns(doc: Mapping[str, Any], ctx: InputLocation, kind: str,
             namespaced: bool) -> tuple[str, str]:
    meta = read_map(ctx, doc.get("metadata"), "metadata")
    name = read_str(ctx, meta.get("name"), "metadata.name")
    if not name:
        raise ctx.error("metadata.name", f"required: every {kind} needs a name")
    ns = read_str(ctx, meta.get("namespace"), "metadata.namespace") or "default"
    return name, ns if namespaced else ""


def read_policies(docs: list[Document]) -> AdmissionPolicies:
    """The v1 LimitRanges and node.k8s.io/v1 RuntimeClasses of the documents."""
    out = AdmissionPolicies()
    seen: dict[tuple[str, str, str], InputLocation] = {}
    for _index, _item, doc, ctx in _objects(docs):
        kind = doc.get("kind")
        if (_group(doc.get("apiVersion")), kind) not in ADMISSION_KINDS:
            continue
        assert isinstance(kind, str)
        name, ns = _name_ns(doc, ctx, kind, kind == "LimitRange")
        ctx.obj = f"{kind} {ns}/{name}" if ns else f"{kind} {name}"
        if (kind, ns, name) in seen:
            raise ctx.error("", f"duplicate object: {ctx.obj} was already defined in "
                                f"{seen[(kind, ns, name)].where()}")
        seen[(kind, ns, name)] = ctx
        if kind == "LimitRange":
            out.limit_ranges.setdefault(ns, []).append(read_limit_range(doc, ctx, ns, name))
        else:
            out.runtime_classes[name] = read_runtime_class(doc, ctx, name)
    for items in out.limit_ranges.values():
        items.sort(key=lambda lr: lr.name)
    return out


def _default_requests_from_limits(pod: AdmittedPod) -> None:
    """``SetDefaults_Pod`` (pkg/apis/core/v1/defaults.go): a container's requests default to
    its limits; the API server does it when it decodes the pod, before admission."""
    for init in (False, True):
        for _path, c in containers(pod, init):
            res = c.get("resources")
            if isinstance(res, dict) and isinstance(res.get("limits"), dict):
                requests = res.get("requests")
                if not isinstance(requests, dict):
                    requests = res["requests"] = {}
                for k, v in res["limits"].items():
                    requests.setdefault(k, v)





def admit_pod(doc: Mapping[str, Any], ctx: InputLocation,
              policies: AdmissionPolicies) -> AdmittedPod:
    """A copy of the pod document as the default admission plugins leave it; raises
    ``InputError`` with upstream's text when they reject it."""
    meta = read_map(ctx, doc.get("metadata"), "metadata")
    # a pod named by generateName is admitted under that prefix (the loader names it)
    name = (read_str(ctx, meta.get("name"), "metadata.name")
            or read_str(ctx, meta.get("generateName"), "metadata.generateName"))
    ns = read_str(ctx, meta.get("namespace"), "metadata.namespace") or "default"
    ctx.obj = f"Pod {ns}/{name}"
    pod = AdmittedPod(copy.deepcopy(dict(doc)), ctx, ns, name, [])
    _default_requests_from_limits(pod)
    ranges = policies.limit_ranges.get(ns, [])
    for lr in ranges:
        limitranger.mutate(pod, lr)
    tolerationseconds.mutate(pod)
    runtimeclass.mutate(pod, policies.runtime_classes)
    for lr in ranges:
        errs = limitranger.validate(pod, lr)
        if errs:
            raise pod.forbidden(limitranger.aggregate(errs), limitranger.PLUGIN, lr.source)
    runtimeclass.validate(pod, policies.runtime_classes)
    return pod


def _is_pod(doc: Mapping[str, Any]) -> bool:
    return doc.get("kind") == "Pod" and doc.get("apiVersion") in (None, "", "v1")


def _admits(mode: str, doc: Mapping[str, Any]) -> bool:
    return mode == "always" or (mode == "auto" and not is_dump_pod(doc))


def admit_documents(docs: Iterable[Document], mode: str = "auto", *,
                    policies: AdmissionPolicies | None = None) -> Admission:
    """The pre-pass: every pod document the mode admits replaced by its admitted copy
    (``policies``: the LimitRanges and RuntimeClasses to use, else those of ``docs``)."""
    if mode not in ADMISSION_MODES:
        raise ValueError(f"admission mode {mode!r}: expected one of "
                         + ", ".join(ADMISSION_MODES))
    out = list(docs)
    result = Admission(mode, out, policies if policies is not None else read_policies(out))
    if mode == "never":
        return result
    for index, item, doc, ctx in list(_objects(out)):
        if doc.get("apiVersion") == SCENARIO_API_VERSION and doc.get("kind") == SCENARIO_KIND:
            timeline = _admit_timeline(doc, ctx, result)
            if timeline is not doc:
                _replace(out, index, item, timeline)
            continue
        meta = doc.get("metadata")
        if (not _is_pod(doc) or not isinstance(meta, Mapping)
                or not (meta.get("name") or meta.get("generateName"))):
            continue  # the loader reports what is missing
        if not _admits(mode, doc):
            result.taken_as_they_are += 1
            continue
        pod = admit_pod(doc, ctx, result.policies)
        result.admitted += 1
        result.applied += pod.applied
        _replace(out, index, item, pod.doc)
    return result


def _is_claim(doc: Mapping[str, Any]) -> bool:
    return (doc.get("kind") == "PersistentVolumeClaim"
            and doc.get("apiVersion") in (None, "", "v1"))


def admit_claims(result: Admission) -> None:
    """The DefaultStorageClass plugin on the PersistentVolumeClaims of ``result.documents``
    that the mode admits (``auto``: those without a uid, resourceVersion or status, as for
    pods), each replaced by its admitted copy; the classes are those of the documents
    (``admission/storageclass.py``). Run after the controllers' pre-passes, whose claims are
    created through the API server too."""
    if result.mode == "never":
        return
    out = result.documents
    classes = [(doc, ctx) for _, _, doc, ctx in _objects(out)
               if doc.get("kind") == "StorageClass"
               and _group(doc.get("apiVersion")) == storageclass.API_GROUP]
    default = storageclass.default_class(classes)
    if default is None:
        return
    for index, item, doc, _ctx in list(_objects(out)):
        meta = doc.get("metadata")
        if (not _is_claim(doc) or not isinstance(meta, Mapping) or not meta.get("name")
                or not _admits(result.mode, doc)):
            continue
        claim = copy.deepcopy(dict(doc))
        if storageclass.mutate(claim, default):
            key = f"{meta.get('namespace') or 'default'}/{meta['name']}"
            result.claim_defaults.append(AppliedDefault(
                key, storageclass.PLUGIN, "spec.storageClassName", default,
                f"StorageClass {default}"))
            _replace(out, index, item, claim)


def _replace(out: list[Document], index: int, item: str, obj: Mapping[str, Any]) -> None:
    """Put ``obj`` at document ``index`` (``item``: its ``items[i]`` in a List)."""
    source, number, whole = out[index]
    if item:
        whole = dict(whole)
        whole["items"] = list(whole["items"])
        whole["items"][int(item[6:-1])] = obj
        out[index] = (source, number, whole)
    else:
        out[index] = (source, number, obj)


def _admit_timeline(doc: Mapping[str, Any], ctx: InputLocation,
                    result: Admission) -> Mapping[str, Any]:
    """The Scenario document with the pod of each ``createPod`` event admitted (a copy), or
    ``doc`` itself when none is. Its errors name ``spec.events[i].pod``; anything malformed
    is left to the Scenario's parser."""
    spec = doc.get("spec")
    events = spec.get("events") if isinstance(spec, Mapping) else None
    if not isinstance(events, list):
        return doc
    new_events: list[Any] = list(events)
    changed = False
    for i, e in enumerate(events):
        pod = e.get("pod") if isinstance(e, Mapping) and e.get("action") == "createPod" else None
        if not isinstance(pod, Mapping) or not _admits(result.mode, pod):
            continue
        meta = pod.get("metadata")
        if not isinstance(meta, Mapping) or not (meta.get("name") or meta.get("generateName")):
            continue
        path = f"spec.events[{i}].pod"
        where = InputLocation(ctx.source, ctx.document,
                              f"{ctx.item}.{path}" if ctx.item else path)
        admitted = admit_pod({"apiVersion": "v1", "kind": "Pod", **pod}, where, result.policies)
        result.admitted += 1
        result.applied += admitted.applied
        new_events[i] = {**e, "pod": admitted.doc}
        changed = True
    if not changed:
        return doc
    assert isinstance(spec, Mapping)
    return {**doc, "spec": {**spec, "events": new_events}}


__all__ = [
    "ADMISSION_KINDS",
    "ADMISSION_MODES",
    "SCENARIO_API_VERSION",
    "Admission",
    "AdmissionPolicies",
    "AppliedDefault",
    "admit_claims",
    "admit_documents",
    "admit_pod",
    "is_dump_pod",
    "read_policies",
]
