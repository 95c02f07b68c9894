"""v1.NodeSelector and its terms (k8s.io/api/core/v1/types.go): the node selection of node
affinity and of the DRA objects (ResourceSlices, allocation results), in a module of their own
so that ``dra.py`` and ``objects.py`` (whose Cluster holds the DRA objects) both use them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True, frozen=True)
class NodeSelectorRequirement:
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist, Gt, Lt
    values: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class NodeSelectorTerm:
    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()


@dataclass(slots=True, frozen=True)
class NodeSelector:
    node_selector_terms: tuple[NodeSelectorTerm, ...] = ()
