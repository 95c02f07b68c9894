"""The node affinity of an in-tree PV translated to CSI: ``translateTopologyFromInTreeToCSI``
and its helpers (``getTopologyLabel``, ``TopologyKeyExist``, ``getTopologyValues``,
``replaceTopology``, ``addTopology``) of ``plugins/in_tree_volume.go``,
k8s.io/csi-translation-lib v0.37.2.
"""

from __future__ import annotations

from reference_impl.model.node_selector import (
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from reference_impl.model.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
)
from reference_impl.model.storage import PersistentVolume

#: plugins/const.go labelMultiZoneDelimiter
LABEL_MULTI_ZONE_DELIMITER = "__"


def _expressions(affinity: NodeSelector | None) -> list[NodeSelectorRequirement]:
    if affinity is None:
        return []
    return [r for t in affinity.node_selector_terms for r in t.match_expressions]


def topology_key_exist(key: str, affinity: NodeSelector | None) -> bool:
    """``TopologyKeyExist``: a match expression of some term has the key."""
    return any(r.key == key for r in _expressions(affinity))


def get_topology_label(pv: PersistentVolume) -> tuple[str, str]:
    """``getTopologyLabel``: (zone, region) label keys, GA or beta, from the node affinity
    first, then the PV's labels; GA when neither names a zone."""
    ga = (LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION)
    beta = (LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION)
    if topology_key_exist(LABEL_TOPOLOGY_ZONE, pv.node_affinity):
        return ga
    if topology_key_exist(LABEL_FAILURE_DOMAIN_BETA_ZONE, pv.node_affinity):
        return beta
    if LABEL_TOPOLOGY_ZONE in pv.labels:
        return ga
    if LABEL_FAILURE_DOMAIN_BETA_ZONE in pv.labels:
        return beta
    return ga


def get_topology_values(affinity: NodeSelector | None, key: str) -> list[str]:
    """``getTopologyValues``: the sorted unique values of the key's expressions."""
    return sorted({v for r in _expressions(affinity) if r.key == key for v in r.values})


def replace_topology(affinity: NodeSelector | None, old_key: str, new_key: str
                     ) -> NodeSelector | None:
    """``replaceTopology``: every match expression on ``old_key`` now on ``new_key``."""
    if affinity is None or not affinity.node_selector_terms:
        return affinity
    return NodeSelector(tuple(
        NodeSelectorTerm(
            tuple(NodeSelectorRequirement(new_key, r.operator, r.values) if r.key == old_key
                  else r for r in t.match_expressions),
            t.match_fields)
        for t in affinity.node_selector_terms))


def add_topology(affinity: NodeSelector | None, key: str, zones: list[str]
                 ) -> NodeSelector | None:
    """``addTopology``: ``key In zones`` (trimmed, non-empty, sorted, unique) appended to every
    term (one empty term created when there is none); unchanged when no zone is left (upstream's
    error, which ``translateTopologyFromInTreeToCSI`` ignores)."""
    kept = sorted({z.strip() for z in zones if z.strip()})
    if not kept:
        return affinity
    terms = affinity.node_selector_terms if affinity is not None else ()
    if not terms:
        terms = (NodeSelectorTerm(),)
    req = NodeSelectorRequirement(key, "In", tuple(kept))
    return NodeSelector(tuple(NodeSelectorTerm((*t.match_expressions, req), t.match_fields)
                              for t in terms))


def translate_topology_from_in_tree_to_csi(pv: PersistentVolume, csi_topology_key: str
                                           ) -> NodeSelector | None:
    """``translateTopologyFromInTreeToCSI``: the translated PV's node affinity. The zone key of
    the node affinity becomes ``csi_topology_key``; without one, the zones of the PV's zone
    label (``z1__z2``) are added under it; a beta region key of the node affinity becomes the
    GA one."""
    zone_label, region_label = get_topology_label(pv)
    affinity = pv.node_affinity
    if get_topology_values(affinity, zone_label):
        affinity = replace_topology(affinity, zone_label, csi_topology_key)
    elif zone_label in pv.labels:
        affinity = add_topology(affinity, csi_topology_key,
                                pv.labels[zone_label].split(LABEL_MULTI_ZONE_DELIMITER))
    if (region_label == LABEL_FAILURE_DOMAIN_BETA_REGION
            and get_topology_values(affinity, region_label)):
        affinity = replace_topology(affinity, region_label, LABEL_TOPOLOGY_REGION)
    return affinity
