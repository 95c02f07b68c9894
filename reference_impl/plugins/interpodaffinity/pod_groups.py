"""The scheduled pods grouped by namespace and labels, for the incoming pod's required terms
(``getIncomingAffinityAntiAffinityCounts``): the same counts as the walk of every pod, in
time proportional to the groups.

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (v1.37.2). How the
groups are kept: docs/reference.md#interpodaffinity-indexes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from reference_impl.framework.snapshot import ChangeCursor

if TYPE_CHECKING:
    from reference_impl.framework.affinity_terms import AffinityTerm
    from reference_impl.framework.snapshot import Snapshot
    from reference_impl.framework.types import NodeInfo
    from reference_impl.model.objects import Pod

GroupKey = tuple[str, frozenset[tuple[str, str]]]
TopologyCounts = dict[str, dict[str, int]]


class PodGroup:
    """The pods of one (namespace, labels)."""

    __slots__ = ("pod", "nodes", "domains")

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        self.nodes: dict[str, int] = {}  # node name -> number of the group's pods there
        # topology key -> {topology value: number of the group's pods in that domain}
        self.domains: dict[str, dict[str, int]] = {}


class PodGroupIndex:
    """The pod groups of one snapshot (see the module docstring)."""

    __slots__ = ("_cursor", "_per_node", "_groups")

    def __init__(self) -> None:
        self._cursor = ChangeCursor()
        # node name -> (node labels, the group of each of its pods)
        self._per_node: dict[str, tuple[Mapping[str, str], list[GroupKey]]] = {}
        self._groups: dict[GroupKey, PodGroup] = {}

    def _add_node(self, ni: NodeInfo) -> None:
        labels = ni.node.labels
        name = ni.node.name
        keys: list[GroupKey] = []
        groups = self._groups
        for pi in ni.pods:
            pod = pi.pod
            key = (pod.namespace, frozenset(pod.labels.items()))
            keys.append(key)
            group = groups.get(key)
            if group is None:
                group = groups[key] = PodGroup(pod)
            group.nodes[name] = group.nodes.get(name, 0) + 1
            for topology_key, by_value in group.domains.items():
                value = labels.get(topology_key)
                if value is not None:
                    by_value[value] = by_value.get(value, 0) + 1
        if keys:
            self._per_node[name] = (labels, keys)

    def _remove_node(self, name: str) -> None:
        entry = self._per_node.pop(name, None)
        if entry is None:
            return
        labels, keys = entry
        groups = self._groups
        for key in keys:
            group = groups[key]
            n = group.nodes[name] - 1
            if n:
                group.nodes[name] = n
            else:
                del group.nodes[name]
            if not group.nodes:
                del groups[key]
                continue
            for topology_key, by_value in group.domains.items():
                value = labels.get(topology_key)
                if value is not None:
                    c = by_value[value] - 1
                    if c:
                        by_value[value] = c
                    else:
                        del by_value[value]

    def refresh(self, snapshot: Snapshot) -> None:
        """Bring the groups up to date with ``snapshot``."""
        changed = self._cursor.changes(snapshot)
        if changed is None:
            self._groups = {}
            self._per_node = {}
            for ni in snapshot.list():
                self._add_node(ni)
            return
        for name in changed:
            self._remove_node(name)
            changed_ni = snapshot.get(name)
            if changed_ni is not None:
                self._add_node(changed_ni)

    def _domains(self, group: PodGroup, topology_key: str) -> dict[str, int]:
        """The group's pods per value of ``topology_key`` (counted on first use, then kept)."""
        by_value = group.domains.get(topology_key)
        if by_value is None:
            by_value = group.domains[topology_key] = {}
            per_node = self._per_node
            for name, n in group.nodes.items():
                value = per_node[name][0].get(topology_key)
                if value is not None:
                    by_value[value] = by_value.get(value, 0) + n
        return by_value

    def counts(self, affinity_terms: list[AffinityTerm], anti_affinity_terms: list[AffinityTerm]
               ) -> tuple[TopologyCounts, TopologyCounts]:
        """``getIncomingAffinityAntiAffinityCounts``: the groups whose pod matches all affinity
        terms count once per term, and per anti-affinity term the groups whose pod matches it,
        in their domains of the term's topology key."""
        affinity_counts: TopologyCounts = {}
        anti_affinity_counts: TopologyCounts = {}
        for group in self._groups.values():
            pod = group.pod
            if affinity_terms and all(t.matches(pod, None) for t in affinity_terms):
                for t in affinity_terms:
                    _add(affinity_counts, t.topology_key, self._domains(group, t.topology_key))
            for t in anti_affinity_terms:
                if t.matches(pod, None):
                    _add(anti_affinity_counts, t.topology_key,
                         self._domains(group, t.topology_key))
        return affinity_counts, anti_affinity_counts


def _add(counts: TopologyCounts, topology_key: str, by_value: dict[str, int]) -> None:
    """Add a group's domains of ``topology_key`` to the counts (no entry for no domain, as
    ``_record`` makes none for a node without the key)."""
    if not by_value:
        return
    have = counts.get(topology_key)
    if have is None:
        counts[topology_key] = dict(by_value)
    else:
        for value, n in by_value.items():
            have[value] = have.get(value, 0) + n
