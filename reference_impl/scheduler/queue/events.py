"""Cluster events: what changed in the cluster, and which events a plugin cares about.

Upstream: ``staging/src/k8s.io/kube-scheduler/framework/types.go`` (``ActionType``,
``EventResource``, ``ClusterEvent``, ``QueueingHint``) and ``pkg/scheduler/framework/events.go``
(the special event labels, ``EventAssignedPodAdd`` & co., ``PodSchedulingPropertiesChange``,
``NodeSchedulingPropertiesChange``), ``pkg/scheduler/framework/types.go`` (``MatchClusterEvents``,
``ClusterEventIsWildCard``, ``UnrollWildCardResource``, ``UnrollPodEvent``).

Plugins declare their events as ``(resource, action type names, hint method name or None)``
tuples; :func:`parse_action_type` turns the names (``"Add"``, ``"UpdateNodeTaint"``, ...) into the
ActionType bit mask.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from reference_impl.model.objects import Node, Pod
from reference_impl.model.requests import MAX_OF_SUMS, pod_requests
from reference_impl.releases import ReleaseData

# --- ActionType (kube-scheduler/framework/types.go), `1 << iota` in declaration order ---
ADD = 1 << 0
DELETE = 1 << 1
UPDATE_NODE_ALLOCATABLE = 1 << 2
UPDATE_NODE_LABEL = 1 << 3
UPDATE_NODE_TAINT = 1 << 4  # taints or spec.unschedulable
UPDATE_NODE_CONDITION = 1 << 5
UPDATE_NODE_ANNOTATION = 1 << 6
UPDATE_NODE_DECLARED_FEATURE = 1 << 7
UPDATE_NODE_PREEMPTION_POLICY = 1 << 8
UPDATE_POD_LABEL = 1 << 9
UPDATE_POD_SCALE_DOWN = 1 << 10
UPDATE_POD_SCALE_UP = 1 << 11
UPDATE_POD_TOLERATION = 1 << 12
UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 13
UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 14
ALL = (1 << 15) - 1
UPDATE = (UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT | UPDATE_NODE_CONDITION
          | UPDATE_NODE_ANNOTATION | UPDATE_NODE_DECLARED_FEATURE | UPDATE_NODE_PREEMPTION_POLICY
          | UPDATE_POD_LABEL | UPDATE_POD_SCALE_DOWN | UPDATE_POD_SCALE_UP | UPDATE_POD_TOLERATION
          | UPDATE_POD_SCHEDULING_GATES_ELIMINATED | UPDATE_POD_GENERATED_RESOURCE_CLAIM)
NONE = 0

ACTION_TYPE_NAMES: dict[str, int] = {
    "Add": ADD,
    "Delete": DELETE,
    "UpdateNodeAllocatable": UPDATE_NODE_ALLOCATABLE,
    "UpdateNodeLabel": UPDATE_NODE_LABEL,
    "UpdateNodeTaint": UPDATE_NODE_TAINT,
    "UpdateNodeCondition": UPDATE_NODE_CONDITION,
    "UpdateNodeAnnotation": UPDATE_NODE_ANNOTATION,
    "UpdateNodeDeclaredFeature": UPDATE_NODE_DECLARED_FEATURE,
    "UpdateNodePreemptionPolicy": UPDATE_NODE_PREEMPTION_POLICY,
    "UpdatePodLabel": UPDATE_POD_LABEL,
    "UpdatePodScaleDown": UPDATE_POD_SCALE_DOWN,
    "UpdatePodScaleUp": UPDATE_POD_SCALE_UP,
    "UpdatePodToleration": UPDATE_POD_TOLERATION,
    "UpdatePodSchedulingGatesEliminated": UPDATE_POD_SCHEDULING_GATES_ELIMINATED,
    "UpdatePodGeneratedResourceClaim": UPDATE_POD_GENERATED_RESOURCE_CLAIM,
    "All": ALL,
    "Update": UPDATE,
}
_ACTION_TYPE_STRINGS = {v: k for k, v in ACTION_TYPE_NAMES.items()}

# --- EventResource ---
POD = "Pod"
ASSIGNED_POD = "AssignedPod"
UNSCHEDULED_POD = "UnscheduledPod"
TARGET_POD = "TargetPod"
NODE = "Node"
PERSISTENT_VOLUME = "PersistentVolume"
PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
CSI_NODE = "storage.k8s.io/CSINode"
CSI_DRIVER = "storage.k8s.io/CSIDriver"
VOLUME_ATTACHMENT = "storage.k8s.io/VolumeAttachment"
CSI_STORAGE_CAPACITY = "storage.k8s.io/CSIStorageCapacity"
STORAGE_CLASS = "storage.k8s.io/StorageClass"
RESOURCE_CLAIM = "resource.k8s.io/ResourceClaim"
RESOURCE_SLICE = "resource.k8s.io/ResourceSlice"
DEVICE_CLASS = "resource.k8s.io/DeviceClass"
POD_GROUP = "scheduling.k8s.io/PodGroup"
COMPOSITE_POD_GROUP = "scheduling.k8s.io/CompositePodGroup"
WILDCARD = "*"

#: ``unschedulablePod`` (``pkg/scheduler/framework/types.go`` of v1.34.4-v1.36.3): those
#: releases' one resource for an unscheduled pod, the queued pod's own update included.
UNSCHEDULABLE_POD = "UnschedulablePod"
#: Switch ``pod-event-resource``: v1.34.4-v1.36.3's variant, and v1.37.2's.
EVENT_RESOURCE_UNSCHEDULABLE_POD = "unschedulable-pod"
EVENT_RESOURCE_UNSCHEDULED_TARGET = "unscheduled-target"

# --- QueueingHint ---
QUEUE_SKIP = "QueueSkip"
QUEUE = "Queue"

# --- special event labels (framework/events.go) ---
SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
BACKOFF_COMPLETE = "BackoffComplete"
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"
FORCE_ACTIVATE = "ForceActivate"
UNSCHEDULABLE_TIMEOUT = "UnschedulableTimeout"


def action_type_string(a: int) -> str:
    """``ActionType.String``: the name of a single type, ``All`` or ``Update``; "" otherwise."""
    return _ACTION_TYPE_STRINGS.get(a, "")


def parse_action_type(spec: int | str | Iterable[str]) -> int:
    """The ActionType bits of a plugin's declaration: an int, one name, or several names
    (OR-ed, as ``fwk.Add | fwk.UpdateNodeTaint``)."""
    if isinstance(spec, bool):
        raise ValueError(f"invalid action type {spec!r}")
    if isinstance(spec, int):
        return spec
    names = [spec] if isinstance(spec, str) else list(spec)
    bits = 0
    for name in names:
        try:
            bits |= ACTION_TYPE_NAMES[name]
        except KeyError:
            raise ValueError(f"unknown action type {name!r} (expected one of "
                             + ", ".join(ACTION_TYPE_NAMES) + ")") from None
    return bits


@dataclass(slots=True, frozen=True)
class ClusterEvent:
    """``fwk.ClusterEvent``: a resource, the ActionType bits, and an optional custom label."""

    resource: str
    action_type: int
    custom_label: str = ""

    def label(self) -> str:
        """``ClusterEvent.Label``: the custom label, else resource + action type name."""
        if self.custom_label:
            return self.custom_label
        return f"{self.resource}{action_type_string(self.action_type)}"

    def __repr__(self) -> str:
        return f"ClusterEvent({self.label()})"


EVENT_ASSIGNED_POD_ADD = ClusterEvent(ASSIGNED_POD, ADD)
EVENT_ASSIGNED_POD_UPDATE = ClusterEvent(ASSIGNED_POD, UPDATE)
EVENT_ASSIGNED_POD_DELETE = ClusterEvent(ASSIGNED_POD, DELETE)
EVENT_UNSCHEDULED_POD_ADD = ClusterEvent(UNSCHEDULED_POD, ADD)
EVENT_UNSCHEDULED_POD_UPDATE = ClusterEvent(UNSCHEDULED_POD, UPDATE)
EVENT_UNSCHEDULED_POD_DELETE = ClusterEvent(UNSCHEDULED_POD, DELETE)
EVENT_TARGET_POD_UPDATE = ClusterEvent(TARGET_POD, UPDATE)
EVENT_UNSCHEDULABLE_TIMEOUT = ClusterEvent(WILDCARD, ALL, UNSCHEDULABLE_TIMEOUT)
EVENT_FORCE_ACTIVATE = ClusterEvent(WILDCARD, ALL, FORCE_ACTIVATE)
EVENT_NODE_ADD = ClusterEvent(NODE, ADD)
EVENT_NODE_DELETE = ClusterEvent(NODE, DELETE)


#: The storage kinds reported through the framework handle's ``storage_changed`` (a plugin's
#: API write, the simulated PV controller's), by the EventResource of their informer; also
#: the ResourceClaim DynamicResources' PostFilter deallocates.
STORAGE_KIND_RESOURCES: dict[str, str] = {
    "PersistentVolume": PERSISTENT_VOLUME,
    "PersistentVolumeClaim": PERSISTENT_VOLUME_CLAIM,
    "StorageClass": STORAGE_CLASS,
    "CSINode": CSI_NODE,
    "CSIDriver": CSI_DRIVER,
    "CSIStorageCapacity": CSI_STORAGE_CAPACITY,
    "VolumeAttachment": VOLUME_ATTACHMENT,
    "ResourceClaim": RESOURCE_CLAIM,
}


def storage_object_event(resource: str, old_obj: object, new_obj: object) -> ClusterEvent:
    """``buildEvtResHandler`` of ``addAllEventHandlers`` (pkg/scheduler/eventhandlers.go) for a
    storage informer: ``resource``'s Add (no old object), Delete (no new object), or the
    general Update. ``resource`` is the kind (``PersistentVolume``) or its EventResource
    (``storage.k8s.io/CSINode``)."""
    r = STORAGE_KIND_RESOURCES.get(resource, resource)
    if r not in STORAGE_KIND_RESOURCES.values():
        raise ValueError(f"not a storage resource: {resource!r} (expected one of "
                         + ", ".join(STORAGE_KIND_RESOURCES) + ")")
    if old_obj is None:
        return ClusterEvent(r, ADD)
    if new_obj is None:
        return ClusterEvent(r, DELETE)
    return ClusterEvent(r, UPDATE)


def cluster_event_is_wildcard(ce: ClusterEvent) -> bool:
    """``ClusterEventIsWildCard``: resource "*" and ActionType All."""
    return ce.resource == WILDCARD and ce.action_type == ALL


def _match_event_resources(r: str, resource: str) -> bool:
    """``matchEventResources``: "*" matches all; Pod matches AssignedPod, UnscheduledPod and
    TargetPod."""
    return (r == WILDCARD or r == resource
            or (r == POD and resource in (ASSIGNED_POD, UNSCHEDULED_POD, TARGET_POD)))


def match_cluster_events(ce: ClusterEvent, incoming: ClusterEvent) -> bool:
    """``MatchClusterEvents``: ``incoming`` is the same as or more specific than ``ce``."""
    return cluster_event_is_wildcard(ce) or (
        _match_event_resources(ce.resource, incoming.resource)
        and ce.action_type & incoming.action_type != 0
        and incoming.action_type <= ce.action_type)


def match_any_cluster_event(ce: ClusterEvent, incoming_events: Iterable[ClusterEvent]) -> bool:
    """``MatchAnyClusterEvent``: ``ce`` matches one of the (registered) events."""
    return any(match_cluster_events(e, ce) for e in incoming_events)


def unroll_wildcard_resource(generic_workload: bool = False) -> list[ClusterEvent]:
    """``UnrollWildCardResource``: what ``defaultEnqueueExtension`` registers for a plugin
    without EnqueueExtensions (every resource with ActionType All)."""
    events = [ClusterEvent(r, ALL) for r in (
        ASSIGNED_POD, UNSCHEDULED_POD, TARGET_POD, NODE, PERSISTENT_VOLUME,
        PERSISTENT_VOLUME_CLAIM, CSI_NODE, CSI_DRIVER, CSI_STORAGE_CAPACITY, STORAGE_CLASS,
        RESOURCE_CLAIM, DEVICE_CLASS)]
    if generic_workload:
        events.append(ClusterEvent(POD_GROUP, ALL))
    return events


def unroll_pod_event(event: ClusterEvent) -> list[ClusterEvent]:
    """``UnrollPodEvent``: a Pod event as AssignedPod, UnscheduledPod and TargetPod events."""
    return [ClusterEvent(ASSIGNED_POD, event.action_type),
            ClusterEvent(UNSCHEDULED_POD, event.action_type),
            ClusterEvent(TARGET_POD, event.action_type)]


def release_event_label(label: str, variant: str) -> str:
    """The label ``label`` (v1.37.2's names) has in a release of the ``pod-event-resource``
    ``variant``: v1.34.4-v1.36.3 (``unschedulable-pod``) name the UnscheduledPod and TargetPod
    resources ``UnschedulablePod`` (``pkg/scheduler/framework/types.go`` and ``events.go``:
    ``EventUnscheduledPodAdd`` is ``UnschedulablePodAdd``, a pending pod's own label update
    ``UnschedulablePodUpdatePodLabel``), v1.37.2 (``unscheduled-target``) keeps them
    (k8s.io/kube-scheduler ``framework/types.go``: ``UnscheduledPod``, ``TargetPod``). The
    reference's events and registrations keep v1.37.2's resources, which match the older
    releases' the same way (docs/release-differences.md#pod-event-resource); only what it
    shows is renamed. Idempotent."""
    if variant == EVENT_RESOURCE_UNSCHEDULABLE_POD:
        for r in (UNSCHEDULED_POD, TARGET_POD):
            if label.startswith(r):
                return UNSCHEDULABLE_POD + label[len(r):]
    return label


# --- pod updates ---------------------------------------------------------------------------

def _milli(q: Fraction) -> int:
    """``Quantity.MilliValue``: the value times 1000, rounded up."""
    return math.ceil(q * 1000)


@dataclass(frozen=True, slots=True)
class PodUpdateRule:
    """How a release classifies a pod update (``PodSchedulingPropertiesChange``,
    ``pkg/scheduler/framework/events.go``).

    ``scale_up``: whether ``extractPodScaleUp`` is among the extractors (switch
    ``pod-update-scale-up``: v1.37.2 only; v1.34.4-v1.36.3 have no ``UpdatePodScaleUp`` action
    type, so a pod that only asks for more is the general Update). The other fields are the
    ``resource.PodResourcesOptions`` ``extractPodScaleDown`` / ``extractPodScaleUp`` pass to
    ``PodRequests``: ``use_status_resources`` (InPlacePodVerticalScaling),
    ``pod_level_status`` (InPlacePodLevelResourcesVerticalScaling; v1.34.4 passes no such
    option) and the release's component-helpers aggregation (switch
    ``resize-requests-aggregation``). The defaults are v1.37.2's."""

    scale_up: bool = True
    use_status_resources: bool = True
    pod_level_status: bool = True
    resize_rule: str = MAX_OF_SUMS

    @classmethod
    def for_release(cls, release: ReleaseData,
                    features: Callable[[str], bool] | None = None) -> PodUpdateRule:
        """The rule of ``release`` with its gate defaults, or with ``features`` (the
        scheduler's gate answers, overrides included)."""
        enabled = features if features is not None else release.feature_enabled
        return cls(scale_up=release.behaviour("pod-update-scale-up") == "scale-up",
                   use_status_resources=enabled("InPlacePodVerticalScaling"),
                   pod_level_status=enabled("InPlacePodLevelResourcesVerticalScaling"),
                   resize_rule=release.behaviour("resize-requests-aggregation"))

    def requests(self, pod: Pod) -> dict[str, Fraction]:
        """``resource.PodRequests(pod, opt)`` with this rule's options."""
        return pod_requests(pod, use_status_resources=self.use_status_resources,
                            pod_level_status=self.pod_level_status, resize_rule=self.resize_rule)


#: v1.37.2's rule (``PodUpdateRule()``): what the functions below use when given none.
LATEST_POD_UPDATE_RULE = PodUpdateRule()


def extract_pod_scale_down(new: Pod, old: Pod,
                           rule: PodUpdateRule = LATEST_POD_UPDATE_RULE) -> int:
    """``extractPodScaleDown``: a request was removed or lowered (compared as MilliValue)."""
    new_reqs = rule.requests(new)
    for name, old_q in rule.requests(old).items():
        new_q = new_reqs.get(name)
        if new_q is None or _milli(old_q) > _milli(new_q):
            return UPDATE_POD_SCALE_DOWN
    return NONE


def extract_pod_scale_up(new: Pod, old: Pod,
                         rule: PodUpdateRule = LATEST_POD_UPDATE_RULE) -> int:
    """``extractPodScaleUp`` (v1.37.2): a request was added or raised."""
    old_reqs = rule.requests(old)
    for name, new_q in rule.requests(new).items():
        old_q = old_reqs.get(name)
        if old_q is None or _milli(new_q) > _milli(old_q):
            return UPDATE_POD_SCALE_UP
    return NONE


def extract_pod_labels_change(new: Pod, old: Pod) -> int:
    """``extractPodLabelsChange``."""
    return UPDATE_POD_LABEL if new.labels != old.labels else NONE


def extract_pod_toleration_change(new: Pod, old: Pod) -> int:
    """``extractPodTolerationChange``: tolerations can only be added, so the length tells."""
    return UPDATE_POD_TOLERATION if len(new.tolerations) != len(old.tolerations) else NONE


def extract_pod_scheduling_gate_eliminated_change(new: Pod, old: Pod) -> int:
    """``extractPodSchedulingGateEliminatedChange``: the last gate was removed."""
    if not new.scheduling_gates and old.scheduling_gates:
        return UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    return NONE


def _pod_change_extractors(rule: PodUpdateRule) -> list[Callable[[Pod, Pod], int]]:
    """``podChangeExtractors`` in upstream order; ``extractPodScaleUp`` only with the rule's
    ``scale_up``. ``extractPodGeneratedResourceClaimChange`` (DynamicResourceAllocation on)
    compares status.resourceClaimStatuses, which the model does not carry: never an event
    here."""
    extractors: list[Callable[[Pod, Pod], int]] = [
        extract_pod_labels_change,
        lambda new, old: extract_pod_scale_down(new, old, rule),
    ]
    if rule.scale_up:
        extractors.append(lambda new, old: extract_pod_scale_up(new, old, rule))
    extractors += [extract_pod_scheduling_gate_eliminated_change, extract_pod_toleration_change]
    return extractors


def pod_scheduling_properties_change(new: Pod, old: Pod, is_target_pod: bool,
                                     rule: PodUpdateRule = LATEST_POD_UPDATE_RULE
                                     ) -> list[ClusterEvent]:
    """``PodSchedulingPropertiesChange``: the UpdatePodXYZ events of a pod update, on
    AssignedPod (bound), TargetPod (the queued pod itself) or UnscheduledPod; the general
    Update when nothing specific changed. ``rule``: the release's (:class:`PodUpdateRule`).

    v1.34.4-v1.36.3 know no TargetPod: the queued pod's own update is their
    ``unschedulablePod`` resource, labelled ``UnschedulablePod...``. The reference keeps
    TargetPod for every release, because its plugins register v1.37.2's TargetPod events and
    those give the older releases' ``Pod`` hints the same answers
    (docs/release-differences.md, queue-hints and pod-update-scale-up); the queue shows the
    release's label (:func:`release_event_label`, switch ``pod-event-resource``)."""
    if new.node_name:
        r = ASSIGNED_POD
    elif is_target_pod:
        r = TARGET_POD
    else:
        r = UNSCHEDULED_POD
    events = [ClusterEvent(r, a) for fn in _pod_change_extractors(rule) if (a := fn(new, old))]
    if not events:
        events.append(ClusterEvent(r, UPDATE))
    return events


# --- node updates ---------------------------------------------------------------------------

def extract_node_spec_unschedulable_change(new: Node, old: Node) -> int:
    """``extractNodeSpecUnschedulableChange``: only becoming schedulable is an event (as
    UpdateNodeTaint)."""
    if new.unschedulable != old.unschedulable and not new.unschedulable:
        return UPDATE_NODE_TAINT
    return NONE


def extract_node_allocatable_change(new: Node, old: Node) -> int:
    """``extractNodeAllocatableChange``."""
    return UPDATE_NODE_ALLOCATABLE if new.allocatable != old.allocatable else NONE


def extract_node_labels_change(new: Node, old: Node) -> int:
    """``extractNodeLabelsChange``."""
    return UPDATE_NODE_LABEL if new.labels != old.labels else NONE


def extract_node_taints_change(new: Node, old: Node) -> int:
    """``extractNodeTaintsChange``: the taint lists differ (order matters, as DeepEqual)."""
    return UPDATE_NODE_TAINT if tuple(new.taints) != tuple(old.taints) else NONE


def extract_node_conditions_change(new: Node, old: Node) -> int:
    """``extractNodeConditionsChange``: the model carries no node conditions."""
    return NONE


def extract_node_annotations_change(new: Node, old: Node) -> int:
    """``extractNodeAnnotationsChange``."""
    return UPDATE_NODE_ANNOTATION if new.annotations != old.annotations else NONE


def extract_node_preemption_policy_change(new: Node, old: Node) -> int:
    """``extractNodePreemptionPolicyChange``: spec.podPreemptionPolicy (when modelled)."""
    if getattr(new, "pod_preemption_policy", None) != getattr(old, "pod_preemption_policy", None):
        return UPDATE_NODE_PREEMPTION_POLICY
    return NONE


def extract_node_features_change(new: Node, old: Node) -> int:
    """``extractNodeFeaturesChange`` (NodeDeclaredFeatures on)."""
    if tuple(new.declared_features) != tuple(old.declared_features):
        return UPDATE_NODE_DECLARED_FEATURE
    return NONE


def node_scheduling_properties_change(new: Node, old: Node, *,
                                      node_declared_features: bool = True
                                      ) -> list[ClusterEvent]:
    """``NodeSchedulingPropertiesChange``: the Node/UpdateNodeXYZ events of a node update, in
    upstream's extractor order; empty when nothing the scheduler looks at changed."""
    extractors: list[Callable[[Node, Node], int]] = [
        extract_node_spec_unschedulable_change,
        extract_node_allocatable_change,
        extract_node_labels_change,
        extract_node_taints_change,
        extract_node_conditions_change,
        extract_node_annotations_change,
        extract_node_preemption_policy_change,
    ]
    if node_declared_features:
        extractors.append(extract_node_features_change)
    return [ClusterEvent(NODE, a) for fn in extractors if (a := fn(new, old))]
