"""Named behaviour switches: the rules that changed between supported releases without a
feature gate, each with the variant every supported release runs and the upstream change that
introduced it. The audit behind them is docs/release-differences.md (the switch name is the
entry's id there); the reference asks ``ReleaseData.behaviour(name)`` and never compares
versions.

Adding a release adds its tag to every switch's ``variants`` (the test suite checks that every
supported release has a variant for every switch); a rule that changes adds a switch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class Behaviour:
    """One switch: ``variants`` maps each supported release to the variant it runs."""

    name: str
    variants: Mapping[str, str]
    change: str
    """The upstream pull request (or commit) that introduced the newer variant."""
    summary: str


def _switch(name: str, change: str, summary: str, **variants: str) -> Behaviour:
    releases = {"v" + k[1:].replace("_", "."): v for k, v in variants.items()}
    return Behaviour(name, MappingProxyType(releases), change, summary)


BEHAVIOURS: Mapping[str, Behaviour] = MappingProxyType({b.name: b for b in (
    _switch("select-host", "kubernetes/kubernetes#135231",
            "selectHost: reservoir sampling among the top-scored nodes (uniform ties), or the "
            "max-heap of sorted_nodes.go (the first top-scored node examined wins)",
            v1_34_4="reservoir", v1_35_4="heap", v1_36_3="heap", v1_37_2="heap"),
    # --- extension points and scoring (docs/release-differences.md, Plugins)
    _switch("nodename-prefilter", "kubernetes/kubernetes#140000",
            "NodeName: Filter only, or also a PreFilter that restricts a pod with spec.nodeName "
            "to that node (the other nodes: UnschedulableAndUnresolvable from PreFilter)",
            v1_34_4="filter", v1_35_4="filter", v1_36_3="filter", v1_37_2="prefilter"),
    _switch("nodeunschedulable-prefilter", "kubernetes/kubernetes#140000",
            "NodeUnschedulable: Filter only, or also a PreFilter (Skip for a deferred resize "
            "under InPlacePodVerticalScalingSchedulerPreemption, else nothing)",
            v1_34_4="filter", v1_35_4="filter", v1_36_3="filter", v1_37_2="prefilter"),
    _switch("tainttoleration-prefilter", "kubernetes/kubernetes#140000",
            "TaintToleration: no PreFilter, or a PreFilter (Skip for a deferred resize under "
            "InPlacePodVerticalScalingSchedulerPreemption, else nothing)",
            v1_34_4="filter", v1_35_4="filter", v1_36_3="filter", v1_37_2="prefilter"),
    _switch("dynamicresources-score", "kubernetes/kubernetes#134711",
            "DynamicResources: no Score; a Score that reads the node's allocation results by "
            "the claim's index among all claims (claim-index); or one that reads an allocated "
            "claim's own allocation and counts only the others in the results (allocated-claims)",
            v1_34_4="none", v1_35_4="claim-index", v1_36_3="allocated-claims",
            v1_37_2="allocated-claims"),
    _switch("balanced-allocation-delta", "kubernetes/kubernetes#135573",
            "NodeResourcesBalancedAllocation: the balance with the pod (with-pod), or "
            "MaxNodeScore/2 + (MaxNodeScore/2 + with pod - without pod)/2 (delta)",
            v1_34_4="with-pod", v1_35_4="with-pod", v1_36_3="delta", v1_37_2="delta"),
    _switch("image-locality-image-volumes", "kubernetes/kubernetes#138951",
            "ImageLocality: container images only (none); image volumes scored against the "
            "containers' threshold (scored); image volumes also counted in the threshold "
            "(counted). #130231 introduced 'scored'",
            v1_34_4="none", v1_35_4="none", v1_36_3="scored", v1_37_2="counted"),
    # --- filter-side plugin rules and plugin args validation
    _switch("nodevolumelimits-csi-migration", "unverified (no changelog entry names it)",
            "NodeVolumeLimits isCSIMigrationOn: Portworx counts as migrated only with "
            "CSIMigrationPortworx and the CSINode's migrated-plugins annotation naming it, or "
            "always (with a CSINode) like the other in-tree plugins",
            v1_34_4="portworx-annotation", v1_35_4="portworx-annotation", v1_36_3="always",
            v1_37_2="always"),
    _switch("nodevolumelimits-driver-missing", "unverified (the opt-in field came with 1.36)",
            "NodeVolumeLimits checkCSIDriverOnNode (VolumeLimitScaling): a driver the CSINode "
            "lacks rejects the node when any CSIDriver of that name exists, or only when it "
            "sets preventPodSchedulingIfMissing (v1.34.4 has neither the check nor the gate)",
            v1_34_4="any-csidriver", v1_35_4="any-csidriver", v1_36_3="opt-in",
            v1_37_2="opt-in"),
    _switch("interpodaffinity-namespace-merge", "not found (the 1.37 signature change)",
            "InterPodAffinity mergeAffinityTermNamespacesIfNotEmpty: the incoming pod's terms "
            "keep their namespace selector (by-value copy, matched against no labels) or get "
            "labels.Nothing()",
            v1_34_4="selector-kept", v1_35_4="selector-kept", v1_36_3="selector-kept",
            v1_37_2="selector-cleared"),
    _switch("dra-postfilter-messages", "unverified",
            "DynamicResources PostFilter: Unschedulable with \"plugin disabled\", \"no new "
            "claims to deallocate\" and \"still not schedulable\", or without a message",
            v1_34_4="messages", v1_35_4="messages", v1_36_3="messages", v1_37_2="bare"),
    _switch("fit-args-validation", "kubernetes/kubernetes#132120",
            "ValidateNodeResourcesFitArgs: scoringStrategy optional and the shape checked "
            "whenever requestedToCapacityRatio is set (path scoringStrategy.shape), or "
            "scoringStrategy required and requestedToCapacityRatio required with "
            "RequestedToCapacityRatio and forbidden otherwise",
            v1_34_4="lenient", v1_35_4="lenient", v1_36_3="strict", v1_37_2="strict"),
    _switch("node-declared-features", "unverified (the changelogs name the gate only for "
            "kubelet)",
            "NodeDeclaredFeatures: no plugin (absent); three registered features and the "
            "message listing the unsatisfied ones (unsatisfied-list); five features and "
            "\"node(s) didn't match Pod's required features\" (subset); nine features "
            "(subset-extended)",
            v1_34_4="absent", v1_35_4="unsatisfied-list", v1_36_3="subset",
            v1_37_2="subset-extended"),
    _switch("dra-binding-timeout-default", "unverified (the field came with 1.35)",
            "DynamicResourcesArgs.bindingTimeout: no such field (strict decoding rejects it), "
            "or a field defaulted to 10m and allowed only with DRADeviceBindingConditions and "
            "DRAResourceClaimDeviceStatus (on from 1.36)",
            v1_34_4="no-field", v1_35_4="gated", v1_36_3="gated", v1_37_2="gated"),
)})


def behaviour(release: str, name: str) -> str:
    """The variant of switch ``name`` that ``release`` runs; an unknown switch or a release the
    switch does not list is a ``KeyError`` naming what is known."""
    try:
        switch = BEHAVIOURS[name]
    except KeyError:
        raise KeyError(f"no behaviour switch {name!r} (known: {', '.join(sorted(BEHAVIOURS))})"
                       ) from None
    try:
        return switch.variants[release]
    except KeyError:
        raise KeyError(f"behaviour switch {name!r} lists no variant for {release}") from None
