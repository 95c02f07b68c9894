"""The scheduler's cache and its snapshot: every node with its pods, in upstream's node order.

Upstream: ``pkg/scheduler/backend/cache/cache.go`` (assume/forget/add/remove, image states),
``backend/cache/node_tree.go`` (zone round-robin node order) and ``backend/cache/snapshot.go``
(the lists plugins read). The reference runs one scheduling loop, so the cache and the snapshot
are one object, changed in place, except for what upstream's incremental ``UpdateSnapshot``
leaves stale until the next scheduling cycle, or longer: a node's image counts (refreshed only for
nodes that changed) and the node list order (rebuilt only when nodes are added or removed).
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable

from reference_impl.framework.columns import NodeColumns
from reference_impl.framework.types import ImageStateSummary, NodeInfo, PodInfo
from reference_impl.model.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Namespace,
    Node,
    Pod,
)


def zone_key(node: Node) -> str:
    """``utilnode.GetZoneKey`` (component-helpers/node/topology/helpers.go): region and zone
    joined by a NUL, beta labels first; "" when the node has neither."""
    labels = node.labels
    zone = labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE)
    if zone is None:
        zone = labels.get(LABEL_TOPOLOGY_ZONE, "")
    region = labels.get(LABEL_FAILURE_DOMAIN_BETA_REGION)
    if region is None:
        region = labels.get(LABEL_TOPOLOGY_REGION, "")
    if region == "" and zone == "":
        return ""
    return region + ":\x00:" + zone


class NodeTree:
    """``nodeTree``: nodes grouped by zone, zones and nodes in insertion order."""

    def __init__(self) -> None:
        self.tree: dict[str, list[str]] = {}
        self.zones: list[str] = []
        self.num_nodes = 0
        #: the names in each zone's list, for membership in constant time (upstream scans
        #: the zone's slice; the answer is the same)
        self._members: dict[str, set[str]] = {}

    def add(self, node: Node) -> None:
        zone = zone_key(node)
        names = self.tree.get(zone)
        if names is None:
            self.zones.append(zone)
            self.tree[zone] = [node.name]
            self._members[zone] = {node.name}
        elif node.name in self._members[zone]:
            return
        else:
            names.append(node.name)
            self._members[zone].add(node.name)
        self.num_nodes += 1

    def remove(self, node: Node) -> None:
        zone = zone_key(node)
        names = self.tree.get(zone)
        if names is None or node.name not in self._members[zone]:
            return
        names.remove(node.name)
        self._members[zone].discard(node.name)
        if not names:
            del self.tree[zone]
            del self._members[zone]
            self.zones.remove(zone)
        self.num_nodes -= 1

    def update(self, old: Node, new: Node) -> None:
        if zone_key(old) == zone_key(new):
            return
        self.remove(old)
        self.add(new)

    def list(self) -> list[str]:
        """``nodeTree.list``: one node from each zone in turn."""
        out: list[str] = []
        index = 0
        while len(out) < self.num_nodes:
            for zone in self.zones:
                names = self.tree[zone]
                if index < len(names):
                    out.append(names[index])
            index += 1
        return out


class Snapshot:
    """Nodes, the pods bound or assumed on them, and the derived lists plugins read."""

    def __init__(self, nodes: Iterable[Node] = (), pods: Iterable[Pod] = (),
                 namespaces: dict[str, Namespace] | None = None) -> None:
        self.node_info_map: dict[str, NodeInfo] = {}
        self.node_tree = NodeTree()
        self.image_states: dict[str, ImageStateSummary] = {}  # the cache's, live
        # node name -> the cache NodeInfo's image states (live), and the nodes changed since the
        # last update_snapshot: their snapshot NodeInfos are re-cloned by the next one.
        self._live_image_states: dict[str, dict[str, ImageStateSummary]] = {}
        self._changed_nodes: set[str] = set()
        self.namespaces: dict[str, Namespace] = dict(namespaces or {})
        self.pod_locations: dict[str, str] = {}  # pod uid -> node name
        # Names of nodes whose pods changed, in order, and a counter of node-set changes: plugins
        # that keep cluster-wide aggregates update them from the log instead of re-walking nodes.
        self.change_log: list[str] = []
        self.structure_version = 0
        self._list: list[NodeInfo] | None = None
        self._affinity_list: list[NodeInfo] | None = None
        self._scoring_affinity: list[tuple[NodeInfo, PodInfo]] | None = None
        self._anti_affinity_list: list[NodeInfo] | None = None
        self._columns: NodeColumns | None = None
        for node in nodes:
            self.add_node(node)
        for pod in pods:
            if pod.node_name:
                self.add_pod(pod)
        self.update_snapshot()

    # ----- nodes -----
    def add_node(self, node: Node) -> NodeInfo:
        ni = self.node_info_map.get(node.name)
        if ni is None:
            ni = NodeInfo(node)
            self.node_info_map[node.name] = ni
            self.node_tree.add(node)
            self._add_image_states(node, ni)
            self._invalidate()
            return ni
        self.node_tree.update(ni.node, node)
        self._remove_image_states(ni.node)
        ni.node = node
        self._add_image_states(node, ni)
        # UpdateSnapshot rebuilds nodeInfoList only when a node was added or removed
        # (updateAllLists): a node whose zone changed keeps its place in the list until then.
        self.structure_version += 1
        self._affinity_list = None
        self._scoring_affinity = None
        self._anti_affinity_list = None
        return ni

    def update_node(self, node: Node) -> NodeInfo:
        return self.add_node(node)

    def remove_node(self, name: str) -> None:
        ni = self.node_info_map.pop(name, None)
        if ni is None:
            return
        self.node_tree.remove(ni.node)
        self._remove_image_states(ni.node)
        self._live_image_states.pop(name, None)
        self._changed_nodes.discard(name)
        for pi in ni.pods:
            self.pod_locations.pop(pi.pod.uid, None)
        self._invalidate()

    def _add_image_states(self, node: Node, ni: NodeInfo) -> None:
        summary: dict[str, ImageStateSummary] = {}
        for image in node.images:
            for name in image.names:
                state = self.image_states.get(name)
                if state is None:
                    state = ImageStateSummary(image.size_bytes)
                    self.image_states[name] = state
                state.nodes.add(node.name)
                summary.setdefault(name, state)
        self._live_image_states[node.name] = summary
        ni.image_states = summary  # live until the next update_snapshot clones it
        self._changed_nodes.add(node.name)

    def _remove_image_states(self, node: Node) -> None:
        for image in node.images:
            for name in image.names:
                state = self.image_states.get(name)
                if state is not None:
                    state.nodes.discard(node.name)
                    if not state.nodes:
                        del self.image_states[name]

    # ----- pods -----
    def add_pod(self, pod: Pod) -> None:
        """Add a bound or assumed pod (``cache.AssumePod`` / ``cache.AddPod``)."""
        ni = self.node_info_map.get(pod.node_name)
        if ni is None:
            raise KeyError(f"pod {pod.key} is bound to unknown node {pod.node_name!r}")
        ni.add_pod_info(PodInfo(pod))
        self.pod_locations[pod.uid] = pod.node_name
        self.change_log.append(pod.node_name)
        self._changed_nodes.add(pod.node_name)
        if pod.affinity is not None:
            self._affinity_list = None
            self._scoring_affinity = None
            self._anti_affinity_list = None

    def remove_pod(self, pod: Pod) -> None:
        """``cache.ForgetPod`` / ``cache.RemovePod``."""
        node_name = self.pod_locations.pop(pod.uid, None)
        if node_name is None:
            return
        ni = self.node_info_map.get(node_name)
        if ni is not None:
            ni.remove_pod(pod)
            self.change_log.append(node_name)
            self._changed_nodes.add(node_name)
        if pod.affinity is not None:
            self._affinity_list = None
            self._scoring_affinity = None
            self._anti_affinity_list = None

    def is_assumed_or_bound(self, pod: Pod) -> bool:
        return pod.uid in self.pod_locations

    def update_snapshot(self) -> None:
        """``cacheImpl.UpdateSnapshot`` (backend/cache/cache.go), run at the start of every
        scheduling cycle: only the NodeInfos whose generation changed since the last one are
        cloned again (``NodeInfo.SnapshotConcrete``), and the clone freezes each image's
        ``NumNodes``. A node that did not change keeps the counts of its last clone, even after
        other nodes holding the same image were added or removed (docs/upstream-deviations.md)."""
        for name in self._changed_nodes:
            live = self._live_image_states.get(name)
            ni = self.node_info_map.get(name)
            if ni is not None and live is not None:
                ni.image_states = {image: state.snapshot() for image, state in live.items()}
        self._changed_nodes.clear()

    # ----- lister views (fwk.SharedLister) -----
    def _invalidate(self) -> None:
        self.structure_version += 1
        self._list = None
        self._affinity_list = None
        self._scoring_affinity = None
        self._anti_affinity_list = None

    def list(self) -> list[NodeInfo]:
        """All nodes, in the node tree's zone-interleaved order."""
        if self._list is None:
            self._list = [self.node_info_map[n] for n in self.node_tree.list()]
        return self._list

    def columns(self) -> NodeColumns:
        """The per-node numbers of ``list()`` as NumPy columns, up to date
        (reference_impl/framework/columns.py)."""
        if self._columns is None:
            self._columns = NodeColumns(self)
        return self._columns.refresh()

    def have_pods_with_affinity_list(self) -> builtins.list[NodeInfo]:
        if self._affinity_list is None:
            self._affinity_list = [ni for ni in self.list() if ni.pods_with_affinity]
        return self._affinity_list

    def pods_with_scoring_affinity(self) -> builtins.list[tuple[NodeInfo, PodInfo]]:
        """The pods of :meth:`have_pods_with_affinity_list`'s nodes (node order, then each
        node's ``pods_with_affinity`` order) that have required affinity or preferred
        (anti-)affinity terms: the only ones InterPodAffinity's PreScore can count for a pod
        without preferred terms (a pod with only required anti-affinity adds nothing)."""
        if self._scoring_affinity is None:
            self._scoring_affinity = [
                (ni, pi) for ni in self.have_pods_with_affinity_list()
                for pi in ni.pods_with_affinity
                if (t := pi.terms)[0] or t[2] or t[3]]
        return self._scoring_affinity

    def have_pods_with_required_anti_affinity_list(self) -> builtins.list[NodeInfo]:
        if self._anti_affinity_list is None:
            self._anti_affinity_list = [
                ni for ni in self.list() if ni.pods_with_required_anti_affinity]
        return self._anti_affinity_list

    def get(self, node_name: str) -> NodeInfo | None:
        return self.node_info_map.get(node_name)

    def num_nodes(self) -> int:
        return len(self.node_info_map)

    def namespace_labels(self, namespace: str) -> dict[str, str] | None:
        ns = self.namespaces.get(namespace)
        return None if ns is None else ns.labels


class ChangeCursor:
    """Where an index derived from a snapshot stands in its change log (the indexes of
    InterPodAffinity): ``changes`` says whether to rebuild or which nodes to update."""

    __slots__ = ("_snapshot", "_version", "_position")

    def __init__(self) -> None:
        self._snapshot: Snapshot | None = None
        self._version = -1
        self._position = 0

    def changes(self, snapshot: Snapshot) -> list[str] | None:
        """None when the index must be rebuilt (another snapshot, or its node set or a node
        changed: ``structure_version``); else the nodes whose pods changed since the last call,
        in the log's order, each once (none: an empty list)."""
        log = snapshot.change_log
        if snapshot is not self._snapshot or snapshot.structure_version != self._version:
            self._snapshot = snapshot
            self._version = snapshot.structure_version
            self._position = len(log)
            return None
        if self._position == len(log):
            return []
        names = list(dict.fromkeys(log[self._position:]))
        self._position = len(log)
        return names
