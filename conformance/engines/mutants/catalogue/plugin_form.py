"""Catalogue: plugin-form mutants (issue 18). Each is a user plugin: a copy of a default Filter or
Score plugin (``copies.copy_class``: a subclass declaring ``replaces``) with one planted bug,
that the reference runs in the in-tree plugin's place (``--subject reference:CFG --plugins
conformance.engines.mutants.catalogue.plugin_form``). No patch of the reference: the oracles
judge the result, and the differential compares it with the reference running the in-tree
plugin. Witnesses are those of the catalogue's mutants of the same rule where there is one.

This module is a plugin module: its classes (``Buggy<Plugin>``) register with ``--plugins``.
NodeName has no plugin-form mutant: kube-scheduler only schedules pods without
``spec.nodeName``, so its Filter never rejects (its copy is tested all the same)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import conformance.engines.mutants.witnesses as w
from conformance.core.scenario import ScenarioInput
from conformance.engines.mutants.catalogue import (
    dra,
    node_filters,
    resources,
    scoring,
    storage,
    topology,
)
from conformance.engines.mutants.copies import PluginForm, copy_class
from conformance.engines.mutants.mutant import Mutant
from reference_impl.api.tolerations import find_matching_untolerated_taint
from reference_impl.framework.interfaces import MAX_NODE_SCORE, Plugin
from reference_impl.framework.status import Code, Status
from reference_impl.plugins.imagelocality import calculate_priority, pod_image_names
from reference_impl.plugins.interpodaffinity.filtering import (
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
)
from reference_impl.plugins.nodeaffinity import PRE_SCORE_STATE_KEY as AFFINITY_PRE_SCORE
from reference_impl.plugins.nodedeclaredfeatures import ERR_REASON_UNSATISFIED_REQUIREMENTS
from reference_impl.plugins.nodeports import ERR_REASON as ERR_PORTS
from reference_impl.plugins.nodeunschedulable import ERR_REASON_UNSCHEDULABLE
from reference_impl.plugins.nodevolumelimits import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED
from reference_impl.plugins.podtopologyspread.common import ERR_REASON_CONSTRAINTS_NOT_MATCH
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.plugins.tainttoleration import ERR_REASON_UNTOLERATED
from reference_impl.plugins.volumebinding.binder import ERR_REASON_NODE_CONFLICT
from reference_impl.plugins.volumerestrictions import ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT
from reference_impl.plugins.volumezone import ERR_REASON_CONFLICT as ERR_VOLUME_ZONE

MODULE = __name__
PREFIX = "Buggy"
_REJECTED = (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

Overrides = dict[str, Any]


def _witness_of(name: str) -> Callable[[], ScenarioInput]:
    """The witness of the catalogue's patch mutant ``name`` (the same rule broken)."""
    for area in (resources, node_filters, topology, scoring, dra, storage):
        for m in area.MUTANTS:
            if m.name == name:
                return m.witness
    raise KeyError(name)


# ----- the planted bugs: overrides of the in-tree plugin's methods ------------------------------

def _filter_ignoring(plugin: str, *reasons: str) -> Overrides:
    """Filter as the in-tree plugin's, except that the rejection ``reasons`` are dropped (a
    status left without reasons passes the node): the copy forgot that rule."""
    inherited = in_tree_registry()[plugin].filter  # type: ignore[attr-defined]

    def filter(self: Plugin, state: Any, pod: Any, node_info: Any) -> Status | None:
        s: Status | None = inherited(self, state, pod, node_info)
        if s is None or s.code not in _REJECTED:
            return s
        kept = [r for r in s.reasons if r not in reasons]
        return Status(s.code, *kept) if kept else None

    return {"filter": filter}


def _filter_rejecting_drops(plugin: str) -> Overrides:
    """Filter as the in-tree plugin's, except that it never rejects a node."""
    inherited = in_tree_registry()[plugin].filter  # type: ignore[attr-defined]

    def filter(self: Plugin, state: Any, pod: Any, node_info: Any) -> Status | None:
        s: Status | None = inherited(self, state, pod, node_info)
        return None if s is not None and s.code in _REJECTED else s

    return {"filter": filter}


def _taints_no_schedule_only() -> Overrides:
    """TaintToleration's Filter keeping untolerated NoSchedule taints only (not NoExecute)."""

    def filter(self: Any, state: Any, pod: Any, node_info: Any) -> Status | None:
        taints = node_info.node.taints
        if taints and find_matching_untolerated_taint(
                taints, pod.tolerations, lambda t: t.effect == "NoSchedule",
                self.enable_comparison_operators) is not None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNTOLERATED)
        return None

    return {"filter": filter}


def _affinity_added_terms_only() -> Overrides:
    """NodeAffinity's Score counting the configured addedAffinity only: the pod's preferred
    terms are not read."""

    def score(self: Any, state: Any, pod: Any, node_info: Any) -> int:
        state.get(AFFINITY_PRE_SCORE)  # read, as the in-tree plugin does, and ignored
        added = self.added_pref_sched_terms
        return int(added.score(node_info.node)) if added is not None else 0

    return {"score": score}


def _range_not_deviation(requested: list[int], allocatable: list[int]) -> float:
    """The spread of the requested fractions as the range (max - min), where upstream takes
    the standard deviation (half the range for two resources)."""
    fractions = [min(1.0, r / a) for r, a in zip(requested, allocatable, strict=True) if a]
    return (max(fractions) - min(fractions)) if len(fractions) > 1 else 0.0


def _balanced_wrong_std() -> Overrides:
    """BalancedAllocation whose balance uses the range of the fractions instead of their
    standard deviation (twice upstream's for cpu and memory)."""
    half = MAX_NODE_SCORE // 2

    def balance(requested: list[int], allocatable: list[int]) -> int:
        return int((1 - _range_not_deviation(requested, allocatable)) * MAX_NODE_SCORE)

    def scorer(requested: list[int], allocated: list[int], allocatable: list[int]) -> int:
        delta = half + balance(requested, allocatable) - balance(allocated, allocatable)
        return half + math.trunc(delta / 2)

    base = in_tree_registry()["NodeResourcesBalancedAllocation"]
    init = base.__init__

    def __init__(self: Any, args: Any = None, handle: Any = None) -> None:
        init(self, args, handle)
        self.scorer.scorer = scorer

    return {"__init__": __init__}


def _image_size_unscaled() -> Overrides:
    """ImageLocality's Score counting each image's size in full, not scaled by the share of
    nodes that hold it."""

    def score(self: Any, state: Any, pod: Any, node_info: Any) -> int:
        images, count = pod_image_names(pod, self.image_volumes)
        states = node_info.image_states
        total = sum(states[i].size for i in images if i in states)
        return calculate_priority(total, count)

    return {"score": score}


# ----- the mutants ------------------------------------------------------------------------------

def _mutant(plugin: str, name: str, summary: str, upstream: str, overrides: Overrides,
            witness: Callable[[], ScenarioInput], shows: str, **extra: Any
            ) -> tuple[Mutant, type[Plugin]]:
    cls = copy_class(plugin, PREFIX + plugin, overrides, MODULE,
                     doc=f"A copy of {plugin} with a planted bug: {summary}.")
    return Mutant(name=name, area=f"{plugin} (plugin form)", summary=summary,
                  upstream=upstream, patches=(), witness=witness, shows=shows,
                  plugin=PluginForm(plugin, cls.name, MODULE), **extra), cls


_PLUGINS = "pkg/scheduler/framework/plugins"

_BUILT = (
    _mutant("NodeUnschedulable", "plugin-nodeunschedulable-ignored",
            "a copy of NodeUnschedulable that lets pods onto cordoned nodes",
            f"Filter rejects spec.unschedulable nodes ({_PLUGINS}/nodeunschedulable/"
            "node_unschedulable.go)",
            _filter_ignoring("NodeUnschedulable", ERR_REASON_UNSCHEDULABLE),
            _witness_of("nodeunschedulable-ignored"),
            "genuine copy: the only node is cordoned, pending; buggy copy: bound",
            oracles=("filters_honoured",)),
    _mutant("TaintToleration", "plugin-taints-ignore-noexecute",
            "a copy of TaintToleration whose Filter forgets untolerated NoExecute taints",
            "DoNotScheduleTaintsFilterFunc keeps NoSchedule and NoExecute "
            f"({_PLUGINS}/tainttoleration/taint_toleration.go)",
            _taints_no_schedule_only(), _witness_of("taints-ignore-noexecute"),
            "genuine copy: untolerated NoExecute taint, pending; buggy copy: bound",
            oracles=("filters_honoured",)),
    _mutant("NodeAffinity", "plugin-nodeaffinity-score-ignores-preferred",
            "a copy of NodeAffinity whose Score ignores the pod's preferred terms",
            "Score sums the weights of the matching preferred terms "
            f"({_PLUGINS}/nodeaffinity/node_affinity.go)",
            _affinity_added_terms_only(), lambda: w.scenario(
                "preferred-affinity",
                w.node("n1", "8", "16Gi"), w.node("n2", "4", "8Gi", labels={"disk": "ssd"}),
                w.pod("p", {"cpu": "1", "memory": "1Gi"}, affinity={"nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [{
                        "weight": 100, "preference": {"matchExpressions": [
                            {"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}})),
            "genuine copy: p prefers n2 (disk=ssd), bound there; buggy copy: bound to the "
            "emptier n1"),
    _mutant("NodePorts", "plugin-nodeports-ignored",
            "a copy of NodePorts whose Filter never finds a host port conflict",
            f"Filter rejects a node whose pods use a requested host port ({_PLUGINS}/"
            "nodeports/node_ports.go)",
            _filter_ignoring("NodePorts", ERR_PORTS), lambda: w.scenario(
                "host-port",
                w.node("n1"),
                w.pod("a", node="n1", ports=[{"containerPort": 80, "hostPort": 8080}]),
                w.pod("p", ports=[{"containerPort": 80, "hostPort": 8080}])),
            "genuine copy: host port 8080 is taken on n1, p pending; buggy copy: bound",
            oracles=("filters_honoured",)),
    _mutant("NodeResourcesFit", "plugin-fit-ignores-ephemeral-storage",
            "a copy of NodeResourcesFit whose Filter does not check ephemeral-storage",
            "fitsRequest checks every requested resource "
            f"({_PLUGINS}/noderesources/fit.go)",
            _filter_ignoring("NodeResourcesFit", "Insufficient ephemeral-storage"),
            _witness_of("fit-ignores-ephemeral-storage"),
            "genuine copy: not enough ephemeral-storage, pending; buggy copy: bound",
            oracles=("no_overcommit", "filters_honoured")),
    _mutant("VolumeRestrictions", "plugin-volumerestrictions-ignore-read-write-once-pod",
            "a copy of VolumeRestrictions that lets two pods use a ReadWriteOncePod claim",
            "Filter rejects a ReadWriteOncePod claim in use "
            f"({_PLUGINS}/volumerestrictions/volume_restrictions.go)",
            _filter_ignoring("VolumeRestrictions", ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT),
            _witness_of("volumerestrictions-ignore-read-write-once-pod"),
            "genuine copy: the claim is in use, pending; buggy copy: bound", family="storage"),
    _mutant("NodeVolumeLimits", "plugin-volumelimits-ignored",
            "a copy of NodeVolumeLimits that never finds a node's volume limit exceeded",
            f"Filter compares the CSI volumes with CSINode's allocatable.count ({_PLUGINS}/"
            "nodevolumelimits/csi.go)",
            _filter_ignoring("NodeVolumeLimits", ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED),
            _witness_of("volumelimits-ignore-csinode-count"),
            "genuine copy: the node's volume limit is reached, pending; buggy copy: bound",
            family="storage"),
    _mutant("VolumeBinding", "plugin-volumebinding-ignore-bound-pv-node-affinity",
            "a copy of VolumeBinding that ignores the node affinity of bound PVs",
            "FindPodVolumes checks the bound PVs' node affinity "
            f"({_PLUGINS}/volumebinding/binder.go)",
            _filter_ignoring("VolumeBinding", ERR_REASON_NODE_CONFLICT),
            _witness_of("volumebinding-ignore-bound-pv-node-affinity"),
            "genuine copy: the PV's node affinity excludes the node, pending; buggy copy: "
            "bound", family="storage"),
    _mutant("VolumeZone", "plugin-volumezone-ignored",
            "a copy of VolumeZone that lets pods onto nodes outside their PVs' zones",
            f"Filter matches the PVs' zone labels ({_PLUGINS}/volumezone/volume_zone.go)",
            _filter_ignoring("VolumeZone", ERR_VOLUME_ZONE),
            _witness_of("volumezone-ignore-pv-zone-labels"),
            "genuine copy: the PV's zone is not the node's, pending; buggy copy: bound",
            family="storage"),
    _mutant("PodTopologySpread", "plugin-spread-skew-ignored",
            "a copy of PodTopologySpread whose Filter checks the topology labels only, not "
            "the skew",
            f"Filter rejects a node where the skew would exceed maxSkew ({_PLUGINS}/"
            "podtopologyspread/filtering.go)",
            _filter_ignoring("PodTopologySpread", ERR_REASON_CONSTRAINTS_NOT_MATCH),
            lambda: w.scenario(
                "spread-skew",
                w.node("n1", labels={w.ZONE: "a"}),
                w.node("n2", labels={w.ZONE: "b"}, unschedulable=True),
                w.pod("a", node="n1", labels=w.WEB),
                w.pod("p", labels=w.WEB, topologySpreadConstraints=[w.spread()])),
            "genuine copy: n1 would make the skew 2 (n2 is cordoned), pending; buggy copy: "
            "bound to n1", oracles=("filters_honoured",)),
    _mutant("InterPodAffinity", "plugin-interpod-existing-anti-affinity-ignored",
            "a copy of InterPodAffinity that ignores the anti-affinity of running pods",
            "Filter checks the existing pods' required anti-affinity (symmetry) "
            f"({_PLUGINS}/interpodaffinity/filtering.go)",
            _filter_ignoring("InterPodAffinity",
                             ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH),
            _witness_of("interpod-existing-anti-affinity-ignored"),
            "genuine copy: a running pod's anti-affinity excludes p, pending; buggy copy: "
            "bound", oracles=("filters_honoured",)),
    _mutant("DynamicResources", "plugin-dra-filter-never-rejects",
            "a copy of DynamicResources whose Filter passes nodes where the claims cannot be "
            "allocated",
            "Filter allocates the pod's claims on the node or rejects it "
            f"({_PLUGINS}/dynamicresources/dynamicresources.go)",
            _filter_rejecting_drops("DynamicResources"),
            _witness_of("dra-slices-of-any-node"),
            "genuine copy: no device for the claim on the node, pending; buggy copy: "
            "another outcome", family="dra"),
    _mutant("NodeResourcesBalancedAllocation", "plugin-balanced-allocation-range-not-std",
            "a copy of NodeResourcesBalancedAllocation whose balance is the range of the "
            "requested fractions, not their standard deviation",
            "balancedResourceScorer: 1 - std of the fractions "
            f"({_PLUGINS}/noderesources/balanced_allocation.go)",
            _balanced_wrong_std(), lambda: w.scenario(
                "balance",
                w.node("n1", "4", "8Gi"), w.node("n2", "4", "8Gi"),
                w.pod("a", {"cpu": "1", "memory": "6Gi"}, node="n1"),
                w.pod("b", {"cpu": "2", "memory": "0"}, node="n2"),
                w.pod("p", {"cpu": "2", "memory": "1Gi"})),
            "genuine copy: p bound to n2 (NodeResourcesFit's preference outweighs the "
            "balance); buggy copy: the doubled balance term prefers n1"),
    _mutant("ImageLocality", "plugin-imagelocality-no-spread-scaling",
            "a copy of ImageLocality that counts an image's size in full on every node "
            "holding it",
            f"scaledImageScore scales by the share of nodes ({_PLUGINS}/imagelocality/"
            "image_locality.go)",
            _image_size_unscaled(), _witness_of("imagelocality-no-spread-scaling"),
            "genuine copy and buggy copy prefer different nodes"),
    _mutant("NodeDeclaredFeatures", "plugin-declared-features-ignored",
            "a copy of NodeDeclaredFeatures that lets pods onto nodes lacking the features "
            "they need",
            "Filter: the pod's inferred features must be among the node's declared ones "
            f"({_PLUGINS}/nodedeclaredfeatures/nodedeclaredfeatures.go)",
            _filter_ignoring("NodeDeclaredFeatures", ERR_REASON_UNSATISFIED_REQUIREMENTS),
            lambda: w.scenario(
                "declared-features", w.node("n1"),
                w.pod("p", hostNetwork=True, hostUsers=False)),
            "genuine copy: n1 declares no UserNamespacesHostNetworkSupport, pending; buggy "
            "copy: bound",
            equivalent="no generated scenario has a pod that requires a declared feature "
                       "(hostNetwork with hostUsers false, restart rules, bind mount "
                       "options)"),
)

MUTANTS = tuple(m for m, _ in _BUILT)
globals().update({cls.__name__: cls for _, cls in _BUILT})
