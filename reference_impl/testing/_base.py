"""What every wrapper shares: the manifest being built, metadata setters, small value helpers.

A wrapper holds one manifest (a dict) and each method writes into it, creating the enclosing
mappings on first use, so keys appear in the order the methods were called (what YAML written
with ``sort_keys=False`` shows). Wrappers may be nested inside a manifest (a pod in a timeline
event, a container in a pod); ``manifest()`` turns them into plain dicts.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping
from typing import Any, Self

Doc = dict[str, Any]
#: A quantity as a manifest spells it: ``"500m"``, ``"1Gi"``, ``2``.
Quantity = str | int

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
#: The image of the containers ``req``/``lim``/``res``/... add (upstream: the pause image).
PAUSE = "registry.k8s.io/pause:3.10"


def plain(v: object) -> Any:
    """A deep copy of ``v`` with every wrapper replaced by its manifest and tuples by lists."""
    if isinstance(v, Wrapper):
        return v.manifest()
    if isinstance(v, Mapping):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


def manifests(*items: object) -> list[Doc]:
    """Wrappers (or dicts, or lists of them) as a flat list of manifests, in order."""
    out: list[Doc] = []
    for it in items:
        if isinstance(it, (list, tuple)):
            out.extend(manifests(*it))
        else:
            out.append(plain(it))
    return out


def resource_list(res: Mapping[str, Quantity] | None, kw: Mapping[str, Quantity]) -> Doc:
    """``res`` and keyword quantities as one resource list; in keyword names ``_`` stands for
    ``-`` (``ephemeral_storage``, ``hugepages_2Mi``)."""
    out: Doc = dict(res or {})
    for k, v in kw.items():
        out[k.replace("_", "-")] = v
    return out


def timestamp(t: str | float) -> str:
    """An RFC 3339 timestamp: strings pass through, numbers are seconds since the epoch
    (written with microseconds)."""
    if isinstance(t, str):
        return t
    return _dt.datetime.fromtimestamp(t, tz=_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def label_selector(match_labels: Mapping[str, str] | None = None,
                   *expressions: tuple[str, str] | tuple[str, str, Iterable[str]]) -> Doc:
    """A metav1.LabelSelector (``st.MakeLabelSelector()``): ``matchLabels`` and match
    expressions given as (key, operator[, values])."""
    sel: Doc = {}
    if match_labels is not None:
        sel["matchLabels"] = dict(match_labels)
    if expressions:
        exprs = []
        for e in expressions:
            req: Doc = {"key": e[0], "operator": e[1]}
            if len(e) > 2:
                req["values"] = list(e[2])
            exprs.append(req)
        sel["matchExpressions"] = exprs
    return sel


class Wrapper:
    """A manifest being built (``manifest()`` returns a copy of it)."""

    __slots__ = ("_doc",)

    def __init__(self, doc: Doc) -> None:
        self._doc = doc

    def manifest(self) -> Doc:
        """The manifest built so far, as plain dicts and lists (a copy)."""
        return plain(self._doc)

    def _at(self, *path: str) -> Doc:
        """The mapping at ``path``, created (empty) where missing."""
        d = self._doc
        for key in path:
            nxt = d.get(key)
            if nxt is None:
                nxt = d[key] = {}
            d = nxt
        return d

    def _append(self, path: tuple[str, ...], key: str, *items: object) -> None:
        self._at(*path).setdefault(key, []).extend(plain(it) for it in items)


class ObjectWrapper(Wrapper):
    """An API object: ``apiVersion``, ``kind``, ``metadata`` (``ObjectMeta`` setters of
    wrappers.go) and free-form ``spec``/``status`` fields."""

    __slots__ = ()

    def __init__(self, api_version: str, kind: str, name: str | None = None) -> None:
        doc: Doc = {"apiVersion": api_version, "kind": kind}
        if name is not None:
            doc["metadata"] = {"name": name}
        super().__init__(doc)

    def name(self, name: str) -> Self:
        self._at("metadata")["name"] = name
        return self

    def namespace(self, namespace: str) -> Self:
        self._at("metadata")["namespace"] = namespace
        return self

    def uid(self, uid: str) -> Self:
        self._at("metadata")["uid"] = uid
        return self

    def label(self, key: str, value: str) -> Self:
        self._at("metadata", "labels")[key] = value
        return self

    def labels(self, labels: Mapping[str, str]) -> Self:
        """Every label of ``labels`` (nothing is written for an empty mapping)."""
        for k, v in labels.items():
            self.label(k, v)
        return self

    def annotation(self, key: str, value: str) -> Self:
        self._at("metadata", "annotations")[key] = value
        return self

    def annotations(self, annotations: Mapping[str, str]) -> Self:
        for k, v in annotations.items():
            self.annotation(k, v)
        return self

    def meta(self, **fields: Any) -> Self:
        """metadata fields as given (camelCase names, v1-shaped values)."""
        self._at("metadata").update(plain(fields))
        return self

    def spec(self, **fields: Any) -> Self:
        """spec fields as given (camelCase names, v1-shaped values); with none, an empty
        ``spec`` where there is none yet."""
        self._at("spec").update(plain(fields))
        return self

    def status(self, **fields: Any) -> Self:
        """status fields as given (camelCase names, v1-shaped values)."""
        self._at("status").update(plain(fields))
        return self
