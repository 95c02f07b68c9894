"""Core v1 objects embedded in plugin args, converted to the internal model.

The inputs are decoded (``schema.decode``) v1 dicts: ``TopologySpreadConstraint``
(``PodTopologySpreadArgs.defaultConstraints``), ``metav1.LabelSelector`` and ``NodeAffinity``
(``NodeAffinityArgs.addedAffinity``); field meanings as in
``staging/src/k8s.io/api/core/v1/types.go``.
"""

from __future__ import annotations

from typing import Any

from reference_impl.model.objects import (
    LabelSelector,
    LabelSelectorRequirement,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
    TopologySpreadConstraint,
)


def label_selector(d: dict[str, Any] | None) -> LabelSelector | None:
    """``metav1.LabelSelector``; ``None`` stays a nil selector."""
    if d is None:
        return None
    return LabelSelector(
        match_labels=tuple(sorted(d.get("matchLabels", {}).items())),
        match_expressions=tuple(
            LabelSelectorRequirement(e.get("key", ""), e.get("operator", ""),
                                     tuple(e.get("values", ())))
            for e in d.get("matchExpressions", ())),
    )


def topology_spread_constraint(d: dict[str, Any]) -> TopologySpreadConstraint:
    """``v1.TopologySpreadConstraint`` (unset optional fields stay ``None``)."""
    return TopologySpreadConstraint(
        max_skew=d.get("maxSkew", 0),
        topology_key=d.get("topologyKey", ""),
        when_unsatisfiable=d.get("whenUnsatisfiable", ""),
        label_selector=label_selector(d.get("labelSelector")),
        min_domains=d.get("minDomains"),
        node_affinity_policy=d.get("nodeAffinityPolicy"),
        node_taints_policy=d.get("nodeTaintsPolicy"),
        match_label_keys=tuple(d.get("matchLabelKeys", ())),
    )


def _requirements(items: list[dict[str, Any]]) -> tuple[NodeSelectorRequirement, ...]:
    return tuple(NodeSelectorRequirement(r.get("key", ""), r.get("operator", ""),
                                         tuple(r.get("values", ())))
                 for r in items)


def node_selector_term(d: dict[str, Any]) -> NodeSelectorTerm:
    return NodeSelectorTerm(
        match_expressions=_requirements(d.get("matchExpressions", [])),
        match_fields=_requirements(d.get("matchFields", [])),
    )


def node_affinity(d: dict[str, Any] | None) -> NodeAffinity | None:
    """``v1.NodeAffinity`` (required = RequiredDuringSchedulingIgnoredDuringExecution)."""
    if d is None:
        return None
    req = d.get("requiredDuringSchedulingIgnoredDuringExecution")
    required = None
    if req is not None:
        required = NodeSelector(tuple(node_selector_term(t)
                                      for t in req.get("nodeSelectorTerms", [])))
    preferred = tuple(
        PreferredSchedulingTerm(p.get("weight", 0), node_selector_term(p.get("preference", {})))
        for p in d.get("preferredDuringSchedulingIgnoredDuringExecution", []))
    return NodeAffinity(required=required, preferred=preferred)
