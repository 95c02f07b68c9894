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
    _switch("resize-requests-aggregation", "kubernetes/kubernetes#140047 (fixes #140046)",
            "PodRequests with UseStatusResources (a pod being resized): each regular and "
            "sidecar container whose status has resources counts at max(spec, actuated, "
            "allocated), the others at their spec, then they are aggregated (sum-of-maxes); or "
            "the spec, allocated and actuated requests of every container are aggregated "
            "apart, the pod-level status standing for the latter two when set, and the max is "
            "taken, a container without status counting nothing under an Infeasible resize "
            "(max-of-sums). component-helpers resource/helpers.go AggregateContainerRequests",
            v1_34_4="sum-of-maxes", v1_35_4="sum-of-maxes", v1_36_3="sum-of-maxes",
            v1_37_2="max-of-sums"),
    _switch("pod-update-scale-up", "kubernetes/kubernetes#140000 (unverified as the PR: the "
            "changelog entry is the deferred-resize preemption that registers the new events)",
            "PodSchedulingPropertiesChange: a pod update that only raises or adds a request is "
            "the general Update (no UpdatePodScaleUp action type, absent), or "
            "UpdatePodScaleUp (extractPodScaleUp, scale-up). framework/events.go",
            v1_34_4="absent", v1_35_4="absent", v1_36_3="absent", v1_37_2="scale-up"),
    _switch("pod-event-resource", "kubernetes/kubernetes#135905",
            "The event resource of a pending pod: UnschedulablePod for every unscheduled pod, "
            "the queued pod's own update included (types.go unschedulablePod; "
            "unschedulable-pod), or UnscheduledPod and, for the queued pod's own update, "
            "TargetPod (k8s.io/kube-scheduler framework/types.go; unscheduled-target). It "
            "names the events' labels (the attempt's event, the trace), and the update of a pod "
            "in no queue enters activeQ as UnschedulablePodUpdate (unschedulable-pod) or "
            "through addPod as UnscheduledPodAdd (unscheduled-target)",
            v1_34_4="unschedulable-pod", v1_35_4="unschedulable-pod",
            v1_36_3="unschedulable-pod", v1_37_2="unscheduled-target"),
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
    _switch("dra-binding-pools-last", "the allocator variants of "
            "k8s.io/dynamic-resource-allocation/structured (pools_experimental.go v0.34.4, "
            "pools_incubating.go from v0.36.3)",
            "GatherPools tries the pools with binding conditions last only in the variants "
            "that know them; the gates that select such a variant: DRADeviceBindingConditions, "
            "DRAResourceClaimDeviceStatus or DRAConsumableCapacity (experimental, v1.34); both "
            "binding gates or DRAConsumableCapacity (experimental in v1.35, incubating in "
            "v1.36); those or a feature stable lacks (v1.37). reference_impl/dra/variants.py",
            v1_34_4="binding-or-status-or-capacity", v1_35_4="binding-and-status-or-capacity",
            v1_36_3="binding-and-status-or-capacity",
            v1_37_2="binding-and-status-or-beyond-stable"),
    _switch("dra-capacity-gate-message", "the allocator variants of "
            "k8s.io/dynamic-resource-allocation/structured (allocator_experimental.go v0.34.4 "
            "and v0.35.4)",
            "Allocate with DRAConsumableCapacity off, in a variant that knows capacity: a "
            "firstAvailable subrequest with capacity requests is refused naming its request "
            "(\"request R: has capacity requests\", v0.34.4) or naming the subrequest "
            "(\"subrequest S: ...\"). reference_impl/dra/variants.py",
            v1_34_4="request", v1_35_4="subrequest", v1_36_3="subrequest",
            v1_37_2="subrequest"),
    _switch("dra-cel-no-such-key-hint", "unverified (k8s.io/dynamic-resource-allocation "
            "cel/errors.go is new in v0.37.2)",
            "the allocator's CEL runtime error: \"selector #i: CEL runtime error: E\" with "
            "cel-go's message alone (plain), or \"selector #i on device D: ...\" and, for a "
            "missing key, cel.EnhanceRuntimeError's hint appended (\". consider using CEL "
            "optional chaining ...\"; hint); reference_impl/dra/allocator.py",
            v1_34_4="plain", v1_35_4="plain", v1_36_3="plain", v1_37_2="hint"),
    _switch("dra-cel-includes", "k8s.io/apiserver pkg/cel/environment/base.go (Lists "
            "ListsVersion(1) from 1.37) and k8s.io/dynamic-resource-allocation cel/compile.go "
            "(v0.36.3: its own includes with DRAListTypeAttributes, alpha)",
            "the CEL selectors' ``includes`` (the list library's, ListsVersion(1)): in the "
            "environment (lists-v1), or not declared, a compile error \"undeclared reference "
            "to 'includes'\" (absent; v1.36 declares it only with DRAListTypeAttributes, off "
            "by default). reference_impl/dra/cel.py",
            v1_34_4="absent", v1_35_4="absent", v1_36_3="absent", v1_37_2="lists-v1"),
    _switch("dra-cel-go", "github.com/google/cel-go v0.26.0 (k8s.io/kubernetes v1.34.4 to "
            "v1.36.3 go.mod) and v0.29.2 (v1.37.2): interpreter/runtimecost.go, "
            "interpreter/attributes.go, ext/lists.go, ext/strings.go",
            "the cel-go generation the selectors are evaluated with: v0.26.0 costs startsWith "
            "and endsWith by the receiver and the global matches(s, re) at 1, unwraps an "
            "optional operand natively (optional.of(device.attributes).?d of a missing domain "
            "is none, not the empty map), lists.range(-1) is [] and indexOf/lastIndexOf of \"\" "
            "give the offset unchecked; v0.29.2 the other way. reference_impl/dra/"
            "cel_generations.py",
            v1_34_4="v0.26.0", v1_35_4="v0.26.0", v1_36_3="v0.26.0", v1_37_2="v0.29.2"),
    _switch("dra-in-flight-allocations", "pkg/scheduler/framework/plugins/dynamicresources "
            "dra_manager.go (SignalClaimPendingAllocation; sharers from v1.36) and "
            "dynamicresources.go bindClaim / PreBind (prebindSuccessCleanup in v1.37.2)",
            "the allocations in flight between Reserve and PreBind: a second signal for a "
            "claim overwrites it (overwrite-*) or adds a sharer (shared-*); PreBind drops each "
            "claim's in flight after writing it, whatever came of the write (*-per-claim; "
            "v1.36.3 forces it only when the write reached the assume cache), or only once the "
            "whole PreBind succeeded (shared-after-prebind), so that a PreBind failing after "
            "a claim's write leaves it in flight and Unreserve's AssumedClaimRestore pushes a "
            "deallocation event. reference_impl/plugins/dynamicresources/",
            v1_34_4="overwrite-per-claim", v1_35_4="overwrite-per-claim",
            v1_36_3="shared-per-claim", v1_37_2="shared-after-prebind"),
    _switch("dra-counter-slices-relevant", "k8s.io/dynamic-resource-allocation "
            "structured/internal/*/pools_*.go GatherPools (v0.35.4, v0.36.3: \"Always include "
            "slices with SharedCounters\"; v0.37.2 and v0.34.4: node selection only; v0.34.4 "
            "skips only per-device node selection while DRAPartitionableDevices is off)",
            "whether a ResourceSlice with sharedCounters is relevant to every node (always: a "
            "pool of another node whose device slices are missing is then incomplete for "
            "this node too, and a request for all devices fails \"currently being "
            "updated\") or, like any slice, by its node selection, and whether it is kept "
            "while partitionable devices are off (kept-when-off), where it still counts "
            "towards its pool's slices. reference_impl/dra/pools.py",
            v1_34_4="kept-when-off", v1_35_4="always", v1_36_3="always",
            v1_37_2="node-selection"),
    _switch("dra-config-result", "unverified (allocator_*.go of v0.37.2, all variants)",
            "Allocate's \"Populate configs\": a claim config naming requests is added once per "
            "request or selected subrequest it names, and keeps its requests "
            "(per-matching-request), or added once and its requests cleared when they cover "
            "every request of the claim (once-cleared). reference_impl/dra/allocator.py "
            "(_config)",
            v1_34_4="per-matching-request", v1_35_4="per-matching-request",
            v1_36_3="per-matching-request", v1_37_2="once-cleared"),
    _switch("dra-binding-timeout-default", "unverified (the field came with 1.35)",
            "DynamicResourcesArgs.bindingTimeout: no such field (strict decoding rejects it), "
            "or a field defaulted to 10m and allowed only with DRADeviceBindingConditions and "
            "DRAResourceClaimDeviceStatus (on from 1.36)",
            v1_34_4="no-field", v1_35_4="gated", v1_36_3="gated", v1_37_2="gated"),
    # --- queue, preemption, batching and nominated node name
    _switch("preempt-terminating-victims", "kubernetes/kubernetes#134245 (unverified as the PR)",
            "prepareCandidate(Async): a victim that already has a deletionTimestamp is deleted "
            "again, or skipped",
            v1_34_4="delete-again", v1_35_4="skip", v1_36_3="skip", v1_37_2="skip"),
    _switch("async-preemption-pending",
            "kubernetes/kubernetes#134245, #134294, #134730 (1.35); #139162 (1.37); the "
            "mapping to the lines is unverified",
            "prepareCandidateAsync / IsPodRunningPreemption: the preemptor leaves `preempting` "
            "before its last victim is deleted; or it stays until that victim is terminating, "
            "and the last victim is deleted even after an earlier failure; or (1.36) it is not "
            "deleted after one; or (1.37), in addition, the preemptor is activated after a "
            "victim preempted in memory",
            v1_34_4="unmark-before-last", v1_35_4="last-victim-pending",
            v1_36_3="skip-last-on-error", v1_37_2="activate-after-in-memory"),
    _switch("nnn-clear-on-failure", "kubernetes/kubernetes#135007",
            "a failed attempt clears the pod's nominated node unless "
            "NominatedNodeNameForExpectation is on (and keeps it when the profile has no "
            "PostFilter plugin); or clears it always",
            v1_34_4="unless-expectation", v1_35_4="always", v1_36_3="always", v1_37_2="always"),
    _switch("preenqueue-skip-on-activate",
            "unverified: not in the changelog; v1.35.0 scheduling_queue.go activate passes "
            "movesFromBackoffQ",
            "moveToActiveQ skips PreEnqueue (SchedulerPopFromBackoffQ) only for the backoff "
            "flush; or for every move straight out of the backoffQ (Activate too)",
            v1_34_4="backoff-complete", v1_35_4="from-backoff-q", v1_36_3="from-backoff-q",
            v1_37_2="from-backoff-q"),
    _switch("unschedulable-flush-timestamp",
            "unverified: not in the changelog; v1.37.0 scheduling_queue.go "
            "flushUnschedulableEntitiesLeftover (FlushTimestamp)",
            "flushUnschedulablePodsLeftover: a pod is flushed when podMaxInUnschedulablePods"
            "Duration has passed since its Timestamp (attempt-time), or since the later of its "
            "Timestamp and its last flush (flush-time)",
            v1_34_4="attempt-time", v1_35_4="attempt-time", v1_36_3="attempt-time",
            v1_37_2="flush-time"),
    _switch("queue-hints",
            "kubernetes/kubernetes#135392, #135394, #135325 (1.36); #139161 (1.37)",
            "InterPodAffinity / PodTopologySpread pod-event hints: only pods with a nodeName "
            "count (the target pod's own label update is skipped); or nominated pods count "
            "too, the target's label update queues and a deleted pod's anti-affinity matching "
            "the target queues; or, in addition, anti-affinity terms match when any term does",
            v1_34_4="node-name-only", v1_35_4="node-name-only", v1_36_3="nominated-too",
            v1_37_2="any-term"),
    _switch("binding-frees-nomination",
            "unverified: v1.35.0 eventhandlers.go deletePodFromSchedulingQueue(inBinding), "
            "likely #134157",
            "a pending pod's unscheduled->bound update, seen by the unscheduled-pod handler as "
            "a deletion, moves lower-or-equal-priority pods with AssignedPodDelete when the "
            "pod had a nominatedNodeName; or is skipped (inBinding)",
            v1_34_4="assigned-pod-delete", v1_35_4="skip-in-binding",
            v1_36_3="skip-in-binding", v1_37_2="skip-in-binding"),
    _switch("node-taint-hint-fallback",
            "kubernetes/kubernetes#109437 mitigation (scheduler.go buildQueueingHintMap), "
            "gone in v1.37.0 with the SchedulerQueueingHints gate",
            "buildQueueingHintMap: a plugin registering Node/Add but not Node/UpdateNodeTaint "
            "also gets defaultQueueingHintFn (always Queue) on Node/UpdateNodeTaint; or only "
            "what the plugin registers",
            v1_34_4="add-implies-taint", v1_35_4="add-implies-taint",
            v1_36_3="add-implies-taint", v1_37_2="registered-only"),
    _switch("batching-rescore-last-chosen", "kubernetes/kubernetes#140289",
            "OpportunisticBatching: when the previous pod's node still fits the next pod, drop "
            "the hint; or rescore that node into the cached ranking (v1.34.4 has no batching: "
            "its variant is never read)",
            v1_34_4="flush", v1_35_4="flush", v1_36_3="flush", v1_37_2="rescore"),
    _switch("batching-skip-nominated",
            "unverified: not in the changelog; v1.37.0 batch.go batchStateCompatible",
            "OpportunisticBatching: a pod with status.nominatedNodeName still takes (and "
            "consumes) a hint; or gets none (v1.34.4 has no batching: its variant is never "
            "read)",
            v1_34_4="hint-anyway", v1_35_4="hint-anyway", v1_36_3="hint-anyway",
            v1_37_2="skip-nominated"),
    _switch("preempt-victim-order", "kubernetes/kubernetes#137981",
            "SelectVictimsOnNode sorts the victims with MoreImportantPod, which reads "
            "time.Now() for a pod without status.startTime at every comparison; or with "
            "MoreImportantVictim over each victim's earliest start time, read once when the "
            "victim is built",
            v1_34_4="pod-start-now", v1_35_4="pod-start-now", v1_36_3="pod-start-now",
            v1_37_2="victim-start-time"),
    _switch("nominate-gated-pod", "kubernetes/kubernetes#139057",
            "PriorityQueue.Add records a new pod's status.nominatedNodeName only when the pod "
            "enters activeQ (moveToActiveQ); or always, gated (PreEnqueue) or not",
            v1_34_4="when-active", v1_35_4="when-active", v1_36_3="when-active",
            v1_37_2="always"),
    _switch("preempt-success-message", "kubernetes/kubernetes#140180",
            "Evaluator.Preempt returns a bare Success; or one saying \"found a potential "
            "placement for pod on node N, preempting K victims\" (the FailedScheduling event "
            "and PodScheduled condition then end with \"preemption: ...\")",
            v1_34_4="none", v1_35_4="none", v1_36_3="none", v1_37_2="found-placement"),
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
