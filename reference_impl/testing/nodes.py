"""Node manifests: ``make_node`` (upstream ``st.MakeNode()``, pkg/scheduler/testing/wrappers.go
of k8s.io/kubernetes v1.37.2) and ``taint``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Self

from reference_impl.model.loader import load_documents
from reference_impl.model.objects import Node
from reference_impl.testing._base import (
    HOSTNAME,
    ZONE,
    Doc,
    ObjectWrapper,
    Quantity,
    plain,
    resource_list,
)


def taint(key: str, effect: str = "NoSchedule", value: str | None = None) -> Doc:
    """A v1.Taint: ``key``, ``effect`` and ``value`` when given."""
    t: Doc = {"key": key, "effect": effect}
    if value is not None:
        t["value"] = value
    return t


class NodeWrapper(ObjectWrapper):
    """A v1 Node (``NodeWrapper`` of wrappers.go)."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__("v1", "Node", name)

    def hostname(self) -> Self:
        """The ``kubernetes.io/hostname`` label set to the node's name (as kubelet does)."""
        return self.label(HOSTNAME, self._doc["metadata"]["name"])

    def zone(self, zone: str) -> Self:
        """The ``topology.kubernetes.io/zone`` label."""
        return self.label(ZONE, zone)

    def capacity(self, resources: Mapping[str, Quantity] | None = None, /,
                 **kw: Quantity) -> Self:
        """``Capacity``: status.allocatable and status.capacity both these resources, with
        ``pods: "32"`` unless given (keyword names: ``_`` for ``-``)."""
        res = resource_list(resources, kw)
        res.setdefault("pods", "32")
        status = self._at("status")
        status["allocatable"] = dict(res)
        status["capacity"] = dict(res)
        return self

    def allocatable(self, resources: Mapping[str, Quantity] | None = None, /,
                    **kw: Quantity) -> Self:
        """status.allocatable exactly these resources (no capacity, no default pods)."""
        self._at("status")["allocatable"] = resource_list(resources, kw)
        return self

    def taints(self, taints: Iterable[Mapping[str, object]]) -> Self:
        """spec.taints set to these (v1 dicts, e.g. from ``taint``)."""
        self._at("spec")["taints"] = plain(list(taints))
        return self

    def taint(self, key: str, effect: str = "NoSchedule", value: str | None = None) -> Self:
        """One more taint (see ``taint``)."""
        self._append(("spec",), "taints", taint(key, effect, value))
        return self

    def unschedulable(self, unschedulable: bool = True) -> Self:
        self._at("spec")["unschedulable"] = unschedulable
        return self

    def images(self, images: Mapping[str, int]) -> Self:
        """``Images``: status.images set to one image per name, with its size in bytes."""
        self._at("status")["images"] = [{"names": [n], "sizeBytes": s} for n, s in images.items()]
        return self

    def image(self, names: str | Iterable[str], size_bytes: int) -> Self:
        """One more image, known by one name or several."""
        self._append(("status",), "images", {
            "names": [names] if isinstance(names, str) else list(names), "sizeBytes": size_bytes})
        return self

    def declared_features(self, features: Iterable[str]) -> Self:
        self._at("status")["declaredFeatures"] = list(features)
        return self

    def obj(self) -> Node:
        """The Node the loader makes of this manifest."""
        return load_documents([self.manifest()], source="<builder>").cluster.nodes[0]


def make_node(name: str) -> NodeWrapper:
    """``st.MakeNode().Name(name)``: a Node with only its name; add what a test needs::

        make_node("n1").hostname().zone("a").capacity(cpu="4", memory="8Gi").taint("gpu")
    """
    return NodeWrapper(name)
