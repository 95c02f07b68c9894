"""The raw input documents as the expansion sees them: every object (``kind: List`` items
included) with where it was found, the pods already there and whom they belong to, and
copy-on-write replacement of an object (a workload given its uid, an orphan pod adopted), so
the documents handed on keep their files, numbers and List positions."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reference_impl.model.decoding import InputLocation

#: a raw document: (source, 1-based number, value), as ``loader.read_documents`` returns them
Document = tuple[str, int | None, Any]


@dataclass(slots=True)
class Entry:
    """One object of the inputs: its document index, its List position (or None), a copy of
    it once replaced."""

    doc_index: int
    item: int | None
    obj: Mapping[str, Any]
    ctx: InputLocation

    @property
    def kind(self) -> str:
        k = self.obj.get("kind")
        return k if isinstance(k, str) else ""

    @property
    def api_version(self) -> str:
        v = self.obj.get("apiVersion")
        return v if isinstance(v, str) else ""

    @property
    def meta(self) -> Mapping[str, Any]:
        m = self.obj.get("metadata")
        return m if isinstance(m, Mapping) else {}

    @property
    def name(self) -> str:
        n = self.meta.get("name")
        return n if isinstance(n, str) else ""

    @property
    def namespace(self) -> str:
        n = self.meta.get("namespace")
        return n if isinstance(n, str) and n else "default"


@dataclass(slots=True)
class PodEntry:
    """A pod of the inputs, as far as controllers look at it."""

    entry: Entry
    labels: dict[str, str]
    controller: tuple[str, str, str] | None  # (kind, name, uid) of its controller reference
    deleting: bool
    phase: str
    node: str  # spec.nodeName, or the node a DaemonSet pod is pinned to

    @property
    def active(self) -> bool:
        """``controller.IsPodActive``: not Succeeded/Failed, not being deleted."""
        return not self.deleting and self.phase not in ("Succeeded", "Failed")


def _pinned_node(spec: Mapping[str, Any]) -> str:
    """``util.GetTargetNodeName`` (pkg/controller/daemon/util): spec.nodeName, else the
    ``metadata.name In [node]`` matchFields of the required node affinity."""
    node = spec.get("nodeName")
    if isinstance(node, str) and node:
        return node
    try:
        terms = spec["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        for term in terms:
            for req in term.get("matchFields") or ():
                if req.get("key") == "metadata.name" and req.get("operator") == "In" \
                        and len(req.get("values") or ()) == 1:
                    return str(req["values"][0])
    except (KeyError, TypeError, AttributeError):
        return ""
    return ""


@dataclass(slots=True)
class Inputs:
    """The documents and their objects."""

    documents: list[Document]
    entries: list[Entry] = field(default_factory=list)
    pods: list[PodEntry] = field(default_factory=list)

    @classmethod
    def read(cls, documents: list[Document]) -> Inputs:
        out = cls(list(documents))
        for di, (source, number, doc) in enumerate(out.documents):
            if not isinstance(doc, Mapping):
                continue  # the loader says what is wrong with it
            kind = doc.get("kind")
            if isinstance(kind, str) and (kind == "List" or (kind.endswith("List")
                                                             and "items" in doc)):
                items = doc.get("items")
                if not isinstance(items, list):
                    continue
                item_kind = kind[:-4] if kind != "List" else ""
                for i, item in enumerate(items):
                    if isinstance(item, Mapping):
                        if item_kind and not item.get("kind"):
                            item = {**item, "kind": item_kind}
                        out.entries.append(Entry(di, i, item, InputLocation(
                            source, number, f"items[{i}]")))
            else:
                out.entries.append(Entry(di, None, doc, InputLocation(source, number)))
        for e in out.entries:
            if e.kind == "Pod" and e.api_version in ("", "v1"):
                out.pods.append(_pod_entry(e))
        return out

    def replace(self, entry: Entry, obj: Mapping[str, Any]) -> None:
        """Put ``obj`` where ``entry`` was (copying the List it sits in)."""
        source, number, doc = self.documents[entry.doc_index]
        if entry.item is None:
            new_doc: Any = obj
        else:
            new_doc = dict(doc)
            items = list(new_doc["items"])
            items[entry.item] = obj
            new_doc["items"] = items
        self.documents[entry.doc_index] = (source, number, new_doc)
        entry.obj = obj

    def adopt(self, pod: PodEntry, ref: dict[str, Any]) -> None:
        """``ClaimPods``' adoption: the orphan gets the controller reference."""
        obj = copy.deepcopy(dict(pod.entry.obj))
        meta = dict(obj.get("metadata") or {})
        meta["ownerReferences"] = [*list(meta.get("ownerReferences") or []), ref]
        obj["metadata"] = meta
        self.replace(pod.entry, obj)
        pod.controller = (ref["kind"], ref["name"], ref["uid"])

    def of_kind(self, *kinds: str) -> list[Entry]:
        return [e for e in self.entries if e.kind in kinds]

    def names(self, kind: str, namespace: str) -> set[str]:
        return {e.name for e in self.entries if e.kind == kind and e.namespace == namespace}


def _pod_entry(e: Entry) -> PodEntry:
    meta = e.meta
    labels = meta.get("labels")
    controller = None
    for ref in meta.get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            controller = (str(ref.get("kind") or ""), str(ref.get("name") or ""),
                          str(ref.get("uid") or ""))
            break
    spec = e.obj.get("spec")
    status = e.obj.get("status")
    phase = status.get("phase") if isinstance(status, Mapping) else None
    return PodEntry(
        entry=e,
        labels={str(k): str(v) for k, v in labels.items()} if isinstance(labels, Mapping)
        else {},
        controller=controller,
        deleting=bool(meta.get("deletionTimestamp")),
        phase=phase if isinstance(phase, str) else "",
        node=_pinned_node(spec) if isinstance(spec, Mapping) else "",
    )
