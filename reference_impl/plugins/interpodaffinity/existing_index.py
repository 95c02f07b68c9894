"""The existing pods' required anti-affinity terms, grouped by what decides a match
(namespaces, selectors, topology key), for ``getExistingAntiAffinityCounts``: the same counts
as the walk of every pod, in time proportional to the groups.

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (v1.37.2). How the
groups are kept: docs/reference.md#interpodaffinity-indexes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reference_impl.framework.affinity_terms import AffinityTerm, TermsMatcher
from reference_impl.framework.snapshot import ChangeCursor

if TYPE_CHECKING:
    from reference_impl.framework.snapshot import Snapshot
    from reference_impl.framework.types import NodeInfo

# (topology key, namespaces, id(label selector), id(namespace selector)). The ids name compiled
# Selectors, which are never changed in place; a group keeps one term, so its selectors stay
# alive (and their ids unique) as long as the group exists.
GroupKey = tuple[str, frozenset[str], int, int]
# A node's contribution: (group, topology value) per term whose key the node has.
Contribution = list[tuple[GroupKey, str]]


def group_key(term: AffinityTerm) -> GroupKey:
    return (term.topology_key, frozenset(term.namespaces), id(term.selector),
            id(term.namespace_selector))


class ExistingAntiAffinityIndex:
    """The grouped terms of one snapshot (see the module docstring)."""

    __slots__ = ("_cursor", "_per_node", "_groups")

    def __init__(self) -> None:
        self._cursor = ChangeCursor()
        self._per_node: dict[str, Contribution] = {}
        # group -> [a term of the group, {topology value: count > 0}]
        self._groups: dict[GroupKey, tuple[AffinityTerm, dict[str, int]]] = {}

    def _contribute(self, ni: NodeInfo) -> Contribution:
        """Add the node's terms to the groups and return its contribution."""
        labels = ni.node.labels
        out: Contribution = []
        for pi in ni.pods_with_required_anti_affinity:
            for term in pi.terms[1]:
                value = labels.get(term.topology_key)
                if value is None:
                    continue
                key = group_key(term)
                group = self._groups.get(key)
                if group is None:
                    group = self._groups[key] = (term, {})
                by_value = group[1]
                by_value[value] = by_value.get(value, 0) + 1
                out.append((key, value))
        return out

    def _withdraw(self, contribution: Contribution) -> None:
        """Take a contribution recorded before away; a group left empty is dropped."""
        groups = self._groups
        for key, value in contribution:
            by_value = groups[key][1]
            n = by_value[value] - 1
            if n:
                by_value[value] = n
            else:
                del by_value[value]
                if not by_value:
                    del groups[key]

    def refresh(self, snapshot: Snapshot) -> None:
        """Bring the groups up to date with ``snapshot``."""
        changed = self._cursor.changes(snapshot)
        if changed is None:
            self._groups = {}
            self._per_node = {
                ni.node.name: self._contribute(ni)
                for ni in snapshot.have_pods_with_required_anti_affinity_list()}
            return
        for name in changed:
            old = self._per_node.pop(name, None)
            if old:
                self._withdraw(old)
            ni = snapshot.get(name)
            if ni is not None and ni.pods_with_required_anti_affinity:
                self._per_node[name] = self._contribute(ni)

    def counts(self, matcher: TermsMatcher) -> dict[str, dict[str, int]]:
        """``getExistingAntiAffinityCounts``: ``{topology key: {topology value: count}}`` of the
        groups whose terms the matcher's pod matches."""
        counts: dict[str, dict[str, int]] = {}
        for key, (term, by_value) in self._groups.items():
            if not matcher.matches(term):
                continue
            topology_key = key[0]
            have = counts.get(topology_key)
            if have is None:
                counts[topology_key] = dict(by_value)
            else:
                for value, n in by_value.items():
                    have[value] = have.get(value, 0) + n
        return counts
