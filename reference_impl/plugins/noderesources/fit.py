"""NodeResourcesFit (``pkg/scheduler/framework/plugins/noderesources/fit.go``).

PreFilter computes the pod's request vector (``computePodResourceRequest``); Filter checks it
against each node's free allocatable (``fitsRequest``); PreScore/Score rate nodes with the
configured scoring strategy through ``ResourceAllocationScorer``; SignPod contributes the
request vector to the pod's scheduling signature. Feature gates, DRA extended resources, pod
status: docs/reference.md#noderesourcesfit."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from reference_impl.config.args import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
)
from reference_impl.dra.cel import release_options
from reference_impl.dra.extendedresourcecache import (
    RESOURCE_DEVICE_CLASS_PREFIX,
    ExtendedResourceCache,
)
from reference_impl.framework.columns import I64, SAFE_BOUND, Mask, NodeColumns
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, PreFilterResult, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.framework.vectorised import fill_per_node
from reference_impl.model.objects import CPU, EPHEMERAL_STORAGE, MEMORY, Node, Pod, Resource
from reference_impl.model.requests import (
    MAX_OF_SUMS,
    POD_REASON_DEFERRED,
    is_extended_resource_name,
    is_scalar_resource_name,
    max_resource,
    pod_requests,
)
from reference_impl.model.validation import is_qualified_name
from reference_impl.plugins import names
from reference_impl.plugins.helper.behaviour import behaviour
from reference_impl.plugins.noderesources.dra_scoring import (
    DeviceClassMatcher,
    DRAPreScoreState,
    get_dra_pre_scored_params,
)
from reference_impl.plugins.noderesources.least_allocated import least_resource_scorer
from reference_impl.plugins.noderesources.most_allocated import most_resource_scorer
from reference_impl.plugins.noderesources.requested_to_capacity_ratio import (
    MAX_CUSTOM_PRIORITY_SCORE,
    requested_to_capacity_ratio_scorer,
)
from reference_impl.plugins.noderesources.resource_allocation import ResourceAllocationScorer
from reference_impl.plugins.noderesources.vectorised import (
    cpu_memory_vectors,
    least_allocated_scores,
)

PRE_FILTER_STATE_KEY = "PreFilter" + names.NodeResourcesFit
PRE_SCORE_STATE_KEY = "PreScore" + names.NodeResourcesFit

# staging/src/k8s.io/kube-scheduler/framework/signers.go
RESOURCES_SIGNER_NAME = "v1.Pod.Spec.ContainerRequestsAndOverheads()"

# v1.37.2 defaults of the gates NewFit reads (pkg/features/kube_features.go).
_GATE_DEFAULTS = {
    "PodLevelResources": True,
    "DRAExtendedResource": True,
    "DRAConsumableCapacity": True,
    "InPlacePodVerticalScaling": True,
    "InPlacePodVerticalScalingSchedulerPreemption": False,
}

# Queueing hints (fwk.QueueingHint) and the event resources Fit registers
# (staging/src/k8s.io/kube-scheduler/framework/types.go).
QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"
ASSIGNED_POD = "AssignedPod"
TARGET_POD = "TargetPod"
NODE = "Node"
DEVICE_CLASS = "resource.k8s.io/DeviceClass"

SUPPORTED_SCORING_STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)


def feature_enabled(handle: Any, gate: str) -> bool:
    """A gate as the plugin's handle reports it; the v1.37.2 default without a handle."""
    if handle is None:
        return _GATE_DEFAULTS[gate]
    return bool(handle.feature_enabled(gate))


# ----- the request vector ---------------------------------------------------------------------

def compute_pod_resource_request(pod: Pod, enable_pod_level_resources: bool) -> Resource:
    """``computePodResourceRequest``: ``PodRequests`` (containers, sidecars, the max of the
    init-container peaks, pod-level requests when the gate is on, overhead) folded into a
    ``framework.Resource`` with ``SetMaxResource`` (cpu MilliValue, others Value, scalar
    resources by name, ``pods`` dropped). The pod is not scheduled yet: its status resources
    are not read (no ``UseStatusResources``)."""
    return max_resource(pod_requests(pod, pod_level_resources=enable_pod_level_resources,
                                     use_status_resources=False))


def resource_signature(r: Resource) -> tuple:
    """A hashable form of a ``framework.Resource`` for signatures (upstream JSON-marshals the
    struct: MilliCPU, Memory, EphemeralStorage, AllowedPodNumber, ScalarResources)."""
    return (r.milli_cpu, r.memory, r.ephemeral_storage, r.allowed_pod_number,
            tuple(sorted(r.scalar.items())))


class InsufficientResource(NamedTuple):
    """``InsufficientResource``: a resource the node lacks for the pod."""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


class PreFilterState:
    """``preFilterState``: the pod's request vector, plus (precomputed here so Filter stays
    lean) the scalar resources Filter checks: non-zero and not ignored, sorted by name, and
    the extended resources DeviceClasses map (the DRA manager's cache, read once a cycle)."""

    __slots__ = ("dra", "request", "scalars")

    def __init__(self, request: Resource, scalars: tuple[tuple[str, int], ...],
                 dra: ExtendedResourceCache | None = None) -> None:
        self.request = request
        self.scalars = scalars
        self.dra = dra

    def clone(self) -> PreFilterState:
        return self


def _is_ignored(name: str, ignored_resources: frozenset[str],
                ignored_groups: frozenset[str]) -> bool:
    """fitsRequest's skip rule: an *extended* resource listed in ignoredResources, or whose
    prefix (the part before the first '/') is in ignoredResourceGroups."""
    if not is_extended_resource_name(name):
        return False
    if name in ignored_resources:
        return True
    return bool(ignored_groups) and name.split("/", 1)[0] in ignored_groups


def new_pre_filter_state(request: Resource, ignored_resources: frozenset[str] = frozenset(),
                         ignored_groups: frozenset[str] = frozenset(),
                         dra: ExtendedResourceCache | None = None) -> PreFilterState:
    scalars = tuple(sorted(
        (name, q) for name, q in request.scalar.items()
        if q != 0 and not _is_ignored(name, ignored_resources, ignored_groups)))
    return PreFilterState(request, scalars, dra)


def should_delegate_resource_to_dra(name: str, node: Node | None,
                                    dra: ExtendedResourceCache | None) -> bool:
    """``shouldDelegateResourceToDRA``: with DRAExtendedResource (``dra`` not None), a
    resource the node does not advertise (allocatable 0 or absent; no node: not checked) and
    a DeviceClass maps is DynamicResources' to count, not Fit's."""
    if dra is None:
        return False
    if node is not None and node.allocatable.scalar.get(name, 0) > 0:
        return False
    return dra.get_device_class(name) is not None


def fits_request(s: PreFilterState, node_info: NodeInfo, pod: Pod | None = None,
                 in_place_preemption: bool = False) -> list[InsufficientResource]:
    """``fitsRequest``: the resources the node cannot give the pod, in upstream's order:
    pods ("Too many pods": the node's pod count + 1 exceeds its allocatable pods), cpu, memory,
    ephemeral-storage, then scalar resources ("Insufficient <name>"), except those
    ``should_delegate_resource_to_dra`` leaves to DynamicResources.

    A resource is insufficient when the pod requests it (> 0) and the request exceeds
    allocatable - requested on the node. It is *unresolvable* (no preemption can help) when
    the request alone exceeds the node's allocatable. A pod requesting nothing only gets the pod
    count check. Extended resources in ignoredResources / ignoredResourceGroups were dropped in
    PreFilter. Upstream iterates the scalar resources in Go map order (random); here they come
    sorted by name.
    """
    insufficient: list[InsufficientResource] = []
    alloc = node_info.node.allocatable
    used = node_info.requested
    num_pods = len(node_info.pods)
    if num_pods + 1 > alloc.allowed_pod_number:
        insufficient.append(InsufficientResource(
            "pods", "Too many pods", 1, num_pods, alloc.allowed_pod_number))

    r = s.request
    if r.milli_cpu == 0 and r.memory == 0 and r.ephemeral_storage == 0 and not r.scalar:
        return insufficient

    d_cpu, d_mem, d_eph = r.milli_cpu, r.memory, r.ephemeral_storage
    scalars = s.scalars
    if in_place_preemption and pod is not None:
        d_cpu, d_mem, d_eph, scalars = _adjust_deltas(s, node_info, pod)

    if r.milli_cpu > 0 and d_cpu > alloc.milli_cpu - used.milli_cpu:
        insufficient.append(InsufficientResource(
            "cpu", "Insufficient cpu", r.milli_cpu, used.milli_cpu, alloc.milli_cpu,
            r.milli_cpu > alloc.milli_cpu))
    if r.memory > 0 and d_mem > alloc.memory - used.memory:
        insufficient.append(InsufficientResource(
            "memory", "Insufficient memory", r.memory, used.memory, alloc.memory,
            r.memory > alloc.memory))
    if r.ephemeral_storage > 0 and d_eph > alloc.ephemeral_storage - used.ephemeral_storage:
        insufficient.append(InsufficientResource(
            EPHEMERAL_STORAGE, "Insufficient ephemeral-storage", r.ephemeral_storage,
            used.ephemeral_storage, alloc.ephemeral_storage,
            r.ephemeral_storage > alloc.ephemeral_storage))

    if scalars:
        alloc_sc = alloc.scalar
        used_sc = used.scalar
        req_sc = r.scalar
        for name, delta in scalars:
            if delta == 0:
                continue
            if should_delegate_resource_to_dra(name, node_info.node, s.dra):
                continue
            cap = alloc_sc.get(name, 0)
            in_use = used_sc.get(name, 0)
            if req_sc[name] > 0 and delta > cap - in_use:
                insufficient.append(InsufficientResource(
                    name, f"Insufficient {name}", req_sc[name], in_use, cap, delta > cap))
    return insufficient


def _adjust_deltas(s: PreFilterState, node_info: NodeInfo, pod: Pod
                   ) -> tuple[int, int, int, tuple[tuple[str, int], ...]]:
    """``adjustDeltasToAccomodateCacheDiscrepancy`` (gate InPlacePodVerticalScalingScheduler-
    Preemption): for a pod already bound to this node and present in its pod list, check only
    the growth over what the node already accounts for it: max(0, request - cached)."""
    r = s.request
    if not pod.node_name or pod.node_name != node_info.node.name:
        return r.milli_cpu, r.memory, r.ephemeral_storage, s.scalars
    cached = None
    for pi in node_info.pods:
        if pi.pod.uid == pod.uid:
            cached = pi.pod.resources
            break
    if cached is None:
        return r.milli_cpu, r.memory, r.ephemeral_storage, s.scalars
    c = cached.requests
    scalars = tuple((name, max(0, q - c.scalar.get(name, 0))) for name, q in s.scalars)
    return (max(0, r.milli_cpu - c.milli_cpu), max(0, r.memory - c.memory),
            max(0, r.ephemeral_storage - c.ephemeral_storage), scalars)


# ----- queueing hint helpers ---------------------------------------------------------------------

@runtime_checkable
class DeviceClassLike(Protocol):
    """What the DeviceClass hint reads of a ``resourceapi.DeviceClass``: ``metadata.name`` and
    ``spec.extendedResourceName`` (None when unset)."""

    name: str
    extended_resource_name: str | None


def as_objects(old_obj: Any, new_obj: Any, cls: type, type_name: str) -> str | None:
    """``util.As[T]`` (pkg/scheduler/util/utils.go): an error message when the new object, then
    the old one, is neither None nor a ``cls``; None when both are fine."""
    if new_obj is not None and not isinstance(new_obj, cls):
        return f"expected {type_name}, but got {type(new_obj).__name__}"
    if old_obj is not None and not isinstance(old_obj, cls):
        return f"expected {type_name}, but got {type(old_obj).__name__}"
    return None


def is_pod_resize_deferred(pod: Pod) -> bool:
    """``resource.IsPodResizeDeferred`` (staging/src/k8s.io/component-helpers/resource/
    helpers.go): the pod's first PodResizePending condition has reason Deferred."""
    return pod.resize_pending_reason == POD_REASON_DEFERRED


def is_fit(pod: Pod, node: Node | None, enable_pod_level_resources: bool,
           dra: ExtendedResourceCache | None = None) -> bool:
    """``isFit`` (fit.go): the pod fits an otherwise empty NodeInfo of ``node`` (``Fits``: the
    pod's request vector, no ignored resources); False for no node."""
    if node is None:
        return False
    request = compute_pod_resource_request(pod, enable_pod_level_resources)
    return not fits_request(new_pre_filter_state(request, dra=dra), NodeInfo(node), pod, False)


def have_any_requested_resources_increased(pod: Pod, original: Node, modified: Node,
                                           enable_pod_level_resources: bool,
                                           dra: ExtendedResourceCache | None = None) -> bool:
    """``haveAnyRequestedResourcesIncreased`` (fit.go): the node's allowed pod number grew, or
    the allocatable of a resource the pod requests (non-zero) grew.

    Also True for a requested scalar resource that ``shouldDelegateResourceToDRA`` hands to
    DRA on the modified node (no device-plugin allocatable and a DeviceClass maps it).
    """
    req = compute_pod_resource_request(pod, enable_pod_level_resources)
    old_alloc = original.allocatable
    new_alloc = modified.allocatable
    if new_alloc.allowed_pod_number > old_alloc.allowed_pod_number:
        return True
    if (req.milli_cpu == 0 and req.memory == 0 and req.ephemeral_storage == 0
            and not req.scalar):
        return False
    if ((req.milli_cpu > 0 and new_alloc.milli_cpu > old_alloc.milli_cpu)
            or (req.memory > 0 and new_alloc.memory > old_alloc.memory)
            or (req.ephemeral_storage > 0
                and new_alloc.ephemeral_storage > old_alloc.ephemeral_storage)):
        return True
    for name, q in req.scalar.items():
        if q == 0:
            continue
        if new_alloc.scalar.get(name, 0) > old_alloc.scalar.get(name, 0):
            return True
        if should_delegate_resource_to_dra(name, modified, dra):
            return True
    return False


# ----- scoring strategies -----------------------------------------------------------------------

def extended_resource_cache(handle: Any, enabled: bool) -> ExtendedResourceCache | None:
    """The DRA manager's ``DeviceClassResolver`` (None without DRAExtendedResource)."""
    if not enabled:
        return None
    dra = getattr(handle, "dra_objects", None)
    return ExtendedResourceCache(dra().device_classes.values() if dra is not None else ())


def dra_pre_score_state(handle: Any, enabled: bool, resources: Sequence[ResourceSpec]
                        ) -> DRAPreScoreState | None:
    """PreScore's ``getDRAPreScoredParams`` of Fit and BalancedAllocation: None without
    DRAExtendedResource, without DRA objects, or when no configured resource is backed by
    DRA."""
    if not enabled:
        return None
    dra = getattr(handle, "dra_objects", None)
    if dra is None:
        return None
    return get_dra_pre_scored_params(dra(), resources)


def get_scorer(strategy: ScoringStrategy | None,
               resize_rule: str = MAX_OF_SUMS) -> ResourceAllocationScorer:
    """``getScorer`` / ``nodeResourceStrategyTypeMap``. The scorer embedded in Fit is built with
    only (Name, scorer, resources): its ``enablePodLevelResources`` stays false, so Fit's
    *scoring* computes pod requests with ``SkipPodLevelResources: true`` (pod-level requests
    are ignored; container requests with the 100m/200Mi defaults are used) even though
    PreFilter/Filter honour them. This is upstream v1.37.2 behaviour, kept as is.
    ``resize_rule``: the release's variant of the switch resize-requests-aggregation."""
    if strategy is None:
        raise ValueError("scoring strategy not specified")
    resources = strategy.resources
    if strategy.type == LEAST_ALLOCATED:
        fn = least_resource_scorer(resources)
    elif strategy.type == MOST_ALLOCATED:
        fn = most_resource_scorer(resources)
    elif strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        rtc = strategy.requested_to_capacity_ratio
        if rtc is None:
            # Only the lenient args validation (switch fit-args-validation) lets it through;
            # upstream's NewFit then dereferences the nil pointer and the scheduler panics.
            raise ValueError("requestedToCapacityRatio not specified for the "
                             "RequestedToCapacityRatio scoring strategy (a nil pointer "
                             "dereference upstream)")
        shape = rtc.shape
        fn = requested_to_capacity_ratio_scorer(resources, shape)
    else:
        raise ValueError(f"scoring strategy {strategy.type} is not supported")
    return ResourceAllocationScorer(strategy.type, fn, resources, use_requested=False,
                                    enable_pod_level_resources=False, resize_rule=resize_rule)


def validate_node_resources_fit_args(args: NodeResourcesFitArgs, strict: bool = True) -> None:
    """``ValidateNodeResourcesFitArgs`` (pkg/scheduler/apis/config/validation/
    validation_pluginargs.go); raises ``ValueError`` listing every problem. ``strict`` is the
    v1.36.3+ rule of switch ``fit-args-validation``; without it (v1.34.4, v1.35.4) a missing
    strategy is not an error and a set ``requestedToCapacityRatio`` has its shape checked
    whatever the type, under ``scoringStrategy.shape``."""
    errs: list[str] = []
    for i, res in enumerate(args.ignored_resources):
        if len(is_qualified_name(res)) != 0:
            errs.append(f"ignoredResources[{i}]: Invalid value: {res!r}: not a qualified name")
    for i, group in enumerate(args.ignored_resource_groups):
        if "/" in group:
            errs.append(f"ignoredResourceGroups[{i}]: Invalid value: {group!r}: "
                        "resource group name can't contain '/'")
        if len(is_qualified_name(group)) != 0:
            errs.append(f"ignoredResourceGroups[{i}]: Invalid value: {group!r}: "
                        "not a qualified name")
    st = args.scoring_strategy
    if st is None:
        if strict:
            errs.append("scoringStrategy: Required value: ScoringStrategy field is required")
    else:
        if st.type not in SUPPORTED_SCORING_STRATEGY_TYPES:
            errs.append(f"scoringStrategy.type: Unsupported value: {st.type!r}")
        for i, r in enumerate(st.resources):
            if r.weight <= 0 or r.weight > 100:
                errs.append(f"scoringStrategy.resources[{i}].weight: Invalid value: {r.weight}: "
                            f"resource weight of {r.name} not in valid range (0, 100]")
        if not strict:
            if st.requested_to_capacity_ratio is not None:
                errs.extend(_validate_function_shape(st.requested_to_capacity_ratio.shape,
                                                     "scoringStrategy.shape"))
        elif st.type == REQUESTED_TO_CAPACITY_RATIO:
            if st.requested_to_capacity_ratio is None:
                errs.append("scoringStrategy.requestedToCapacityRatio: Required value: must be "
                            "specified when type is RequestedToCapacityRatio")
            else:
                errs.extend(_validate_function_shape(st.requested_to_capacity_ratio.shape))
        elif st.requested_to_capacity_ratio is not None:
            errs.append("scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when "
                        "type is not RequestedToCapacityRatio")
    if errs:
        raise ValueError("; ".join(errs))


def _validate_function_shape(
        shape: tuple, path: str = "scoringStrategy.requestedToCapacityRatio.shape") -> list[str]:
    """``validateFunctionShape``."""
    if not shape:
        return [f"{path}: Required value: at least one point must be specified"]
    errs: list[str] = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errs.append(f"{path}[{i}].utilization: Invalid value: {shape[i].utilization}: "
                        "values must be sorted in increasing order")
            break
    for i, p in enumerate(shape):
        if p.utilization < 0 or p.utilization > 100:
            errs.append(f"{path}[{i}].utilization: Invalid value: {p.utilization}: "
                        "not in valid range [0, 100]")
        if p.score < 0 or p.score > MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(f"{path}[{i}].score: Invalid value: {p.score}: "
                        f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]")
    return errs


# ----- the plugin ---------------------------------------------------------------------------------

class Fit(PreFilterPlugin, FilterPlugin, EnqueueExtensions, PreScorePlugin, ScorePlugin,
          SignPlugin):
    """``Fit``: checks that a node has room for the pod's requests and scores nodes by the
    configured strategy (LeastAllocated by default)."""

    name = names.NodeResourcesFit

    def __init__(self, args: NodeResourcesFitArgs | None = None, handle: Any = None) -> None:
        args = args if args is not None else NodeResourcesFitArgs()
        validate_node_resources_fit_args(
            args, behaviour(handle, "fit-args-validation") == "strict")
        super().__init__(args, handle)
        #: how a pod with status resources counts (switch resize-requests-aggregation)
        self.resize_rule = behaviour(handle, "resize-requests-aggregation")
        self.scorer = get_scorer(args.scoring_strategy, self.resize_rule)
        self.ignored_resources = frozenset(args.ignored_resources)
        self.ignored_resource_groups = frozenset(args.ignored_resource_groups)
        self.enable_pod_level_resources = feature_enabled(handle, "PodLevelResources")
        self.enable_dra_extended_resource = feature_enabled(handle, "DRAExtendedResource")
        self.enable_in_place_pod_vertical_scaling = feature_enabled(
            handle, "InPlacePodVerticalScaling")
        self.enable_in_place_preemption = feature_enabled(
            handle, "InPlacePodVerticalScalingSchedulerPreemption")
        if self.enable_dra_extended_resource:
            # NewFit: the scorer's DRA manager and its CEL cache (cel.Features
            # EnableConsumableCapacity from DRAConsumableCapacity)
            self.scorer.dra_matcher = DeviceClassMatcher(
                feature_enabled(handle, "DRAConsumableCapacity"),
                release_options(lambda name: behaviour(handle, name)))

    def _dra_pre_score_state(self) -> DRAPreScoreState | None:
        """``getDRAPreScoredParams`` when DRAExtendedResource is on, else None."""
        return dra_pre_score_state(self.handle, self.enable_dra_extended_resource,
                                   self.scorer.resources)

    def _extended_resource_cache(self) -> ExtendedResourceCache | None:
        return extended_resource_cache(self.handle, self.enable_dra_extended_resource)

    # EnqueueExtensions
    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, hint method name). Assigned pod
        deletions and node additions / allocatable changes always; DeviceClass additions and
        updates with DRAExtendedResource; scale-downs of assigned pods and of the pod itself with
        InPlacePodVerticalScaling; scale-ups with InPlacePodVerticalScalingSchedulerPreemption."""
        events: list[tuple[str, tuple[str, ...], str]] = [
            (ASSIGNED_POD, ("Delete",), "is_schedulable_after_assigned_pod_delete"),
            (NODE, ("Add", "UpdateNodeAllocatable"), "is_schedulable_after_node_change"),
        ]
        if self.enable_dra_extended_resource:
            events.append((DEVICE_CLASS, ("Add", "Update"),
                           "is_schedulable_after_device_class_event"))
        if self.enable_in_place_pod_vertical_scaling:
            events.append((ASSIGNED_POD, ("UpdatePodScaleDown",),
                           "is_schedulable_after_assigned_pod_scale_down"))
            events.append((TARGET_POD, ("UpdatePodScaleDown",),
                           "is_schedulable_after_target_pod_scale_down"))
        if self.enable_in_place_preemption:
            events.append((ASSIGNED_POD, ("UpdatePodScaleUp",),
                           "is_schedulable_after_assigned_pod_scale_up"))
            events.append((TARGET_POD, ("UpdatePodScaleUp",),
                           "is_schedulable_after_target_pod_scale_up"))
        return events

    def is_schedulable_after_assigned_pod_delete(self, pod: Pod, old_obj: Any, new_obj: Any
                                                 ) -> tuple[str, str | None]:
        """``isSchedulableAfterAssignedPodDelete``: QueueSkip when the deleted pod was neither
        bound nor nominated (or, for a deferred resize, on another node); else Queue."""
        err = as_objects(old_obj, new_obj, Pod, "*v1.Pod")
        if err is not None:
            return QUEUE, err
        deleted: Pod = old_obj
        if deleted.node_name == "" and deleted.nominated_node_name == "":
            return QUEUE_SKIP, None
        if self.enable_in_place_preemption and is_pod_resize_deferred(pod):
            if deleted.node_name != pod.node_name:
                return QUEUE_SKIP, None
        return QUEUE, None

    def is_schedulable_after_target_pod_scale_down(self, pod: Pod, old_obj: Any, new_obj: Any
                                                   ) -> tuple[str, str | None]:
        """``isSchedulableAfterTargetPodScaleDown``: the pod itself asks for less: Queue."""
        return QUEUE, None

    def is_schedulable_after_target_pod_scale_up(self, pod: Pod, old_obj: Any, new_obj: Any
                                                 ) -> tuple[str, str | None]:
        """``isSchedulableAfterTargetPodScaleUp``: Queue only for a deferred resize."""
        if not is_pod_resize_deferred(pod):
            return QUEUE_SKIP, None
        return QUEUE, None

    def is_schedulable_after_assigned_pod_scale_up(self, pod: Pod, old_obj: Any, new_obj: Any
                                                   ) -> tuple[str, str | None]:
        """``isSchedulableAfterAssignedPodScaleUp``: Queue only for a deferred resize and a pod
        scaled up on the same node."""
        err = as_objects(old_obj, new_obj, Pod, "*v1.Pod")
        if err is not None:
            return QUEUE, err
        modified: Pod = new_obj
        if not is_pod_resize_deferred(pod):
            return QUEUE_SKIP, None
        if modified.node_name != pod.node_name:
            return QUEUE_SKIP, None
        return QUEUE, None

    def is_schedulable_after_assigned_pod_scale_down(self, pod: Pod, old_obj: Any, new_obj: Any
                                                     ) -> tuple[str, str | None]:
        """``isSchedulableAfterAssignedPodScaleDown``: Queue when the scale-down lowered a
        resource the pod requests."""
        err = as_objects(old_obj, new_obj, Pod, "*v1.Pod")
        if err is not None:
            return QUEUE, err
        if not self.have_enough_relevant_resources_decreased(pod, old_obj, new_obj):
            return QUEUE_SKIP, None
        return QUEUE, None

    def have_enough_relevant_resources_decreased(self, target: Pod, original: Pod,
                                                 modified: Pod) -> bool:
        """``haveEnoughRelevantResourcesDecreased``: the modified pod is bound (on the target's
        node, for a deferred resize) and its request (``SetMaxResource`` of ``PodRequests``,
        pod-level requests included) of a resource the target requests (non-zero) went down:
        cpu, memory, ephemeral-storage or a scalar resource."""
        if modified.node_name == "":
            return False
        if self.enable_in_place_preemption and is_pod_resize_deferred(target):
            if modified.node_name != target.node_name:
                return False
        # PodResourcesOptions{UseStatusResources: InPlacePodVerticalScaling, ...}
        rule = self.resize_rule
        original_max = max_resource(pod_requests(original, resize_rule=rule))
        modified_max = max_resource(pod_requests(modified, resize_rule=rule))
        for name, q in pod_requests(target, resize_rule=rule).items():
            if q == 0:
                continue
            if name == CPU:
                if original_max.milli_cpu > modified_max.milli_cpu:
                    return True
            elif name == MEMORY:
                if original_max.memory > modified_max.memory:
                    return True
            elif name == EPHEMERAL_STORAGE:
                if original_max.ephemeral_storage > modified_max.ephemeral_storage:
                    return True
            elif is_scalar_resource_name(name) and (
                    original_max.scalar.get(name, 0) > modified_max.scalar.get(name, 0)):
                return True
        return False

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                         ) -> tuple[str, str | None]:
        """``isSchedulableAfterNodeChange``: QueueSkip when the pod would not fit the (empty)
        node; Queue for an added node; for an update, Queue only when the allowed pod number or
        the allocatable of a requested resource grew."""
        err = as_objects(old_obj, new_obj, Node, "*v1.Node")
        if err is not None:
            return QUEUE, err
        original: Node | None = old_obj
        modified: Node | None = new_obj
        if self.enable_in_place_preemption and is_pod_resize_deferred(pod):
            if modified is None or modified.name != pod.node_name:
                return QUEUE_SKIP, None
        plr = self.enable_pod_level_resources
        dra = self._extended_resource_cache()
        if not is_fit(pod, modified, plr, dra):
            return QUEUE_SKIP, None
        if original is None:
            return QUEUE, None
        assert modified is not None
        if not have_any_requested_resources_increased(pod, original, modified, plr, dra):
            return QUEUE_SKIP, None
        return QUEUE, None

    def is_schedulable_after_device_class_event(self, pod: Pod, old_obj: Any, new_obj: Any
                                                ) -> tuple[str, str | None]:
        """``isSchedulableAfterDeviceClassEvent``: an update that keeps the extended resource
        name is skipped; an added class whose implicit name (``deviceclass.resource.kubernetes.io/
        <name>``) the pod requests, or a class whose extendedResourceName the pod requests,
        queues the pod."""
        err = as_objects(old_obj, new_obj, DeviceClassLike, "*v1.DeviceClass")
        if err is not None:
            return QUEUE, err
        original: DeviceClassLike | None = old_obj
        modified: DeviceClassLike = new_obj
        if original is not None:
            if (original.extended_resource_name or "") == (modified.extended_resource_name or ""):
                return QUEUE_SKIP, None
        else:
            # Only an added class is checked for the implicit name: names never change.
            if RESOURCE_DEVICE_CLASS_PREFIX + modified.name in pod_requests(
                    pod, use_status_resources=False):
                return QUEUE, None
        if modified.extended_resource_name is not None:
            if modified.extended_resource_name in pod_requests(pod, use_status_resources=False):
                return QUEUE, None
        return QUEUE_SKIP, None

    # PreFilter / Filter
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: store the pod's request vector; never rejects."""
        request = compute_pod_resource_request(pod, self.enable_pod_level_resources)
        state.write(PRE_FILTER_STATE_KEY, new_pre_filter_state(
            request, self.ignored_resources, self.ignored_resource_groups,
            self._extended_resource_cache()))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: Unschedulable with one reason per insufficient resource, or
        UnschedulableAndUnresolvable if any of them is unresolvable. Error if PreFilter did not
        run."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.as_error(
                f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        insufficient = fits_request(s, node_info, pod, self.enable_in_place_preemption)
        if not insufficient:
            return None
        code = Code.UNSCHEDULABLE
        for ir in insufficient:
            if ir.unresolvable:
                code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        return Status(code, *(ir.reason for ir in insufficient))

    # PreScore / Score
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """``PreScore``: store the pod's request of each scored resource and, with
        DRAExtendedResource, the DRA state of ``getDRAPreScoredParams``. Never skips: a pod
        without requests is scored with the 100m cpu / 200Mi memory defaults per container."""
        state.write(PRE_SCORE_STATE_KEY,
                    (self.scorer.pod_request_list(pod), self._dra_pre_score_state()))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """``Score``: the strategy's score (PreScore's vectors, recomputed if PreScore did not
        run). Error "resources not found" when no resource is configured."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            s = (self.scorer.pod_request_list(pod), self._dra_pre_score_state())
        return self.scorer.score(node_info, s[0], s[1])

    # Batch (reference_impl/framework/vectorised.py)
    def filter_batch(self, state: CycleState, pod: Pod, cols: NodeColumns) -> Mask | None:
        """Nodes where ``filter`` certainly succeeds: room for one more pod and for the pod's
        cpu, memory and ephemeral-storage requests (``fits_request``). No opinion for a pod
        with extended-resource requests, for an in-place resize of a bound pod, or without the
        PreFilter state."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None or s.scalars or (self.enable_in_place_preemption and pod.node_name):
            return None
        r = s.request
        if not all(0 <= v <= SAFE_BOUND for v in (r.milli_cpu, r.memory, r.ephemeral_storage)):
            return None
        mask: Mask = cols.safe & (cols.num_pods + 1 <= cols.alloc_pods)
        if r.milli_cpu > 0:
            mask &= r.milli_cpu <= cols.alloc_cpu - cols.req_cpu
        if r.memory > 0:
            mask &= r.memory <= cols.alloc_mem - cols.req_mem
        if r.ephemeral_storage > 0:
            mask &= r.ephemeral_storage <= cols.alloc_eph - cols.req_eph
        return mask

    def score_batch(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                    cols: NodeColumns, rows: npt.NDArray[np.intp]) -> I64 | None:
        """``score`` for LeastAllocated over (cpu, memory) with positive weights; None for the
        other strategies and resource lists."""
        sc = self.scorer
        if sc.name != LEAST_ALLOCATED or not sc._cpu_memory_only \
                or any(r.weight <= 0 for r in sc.resources):
            return None
        s = state.get(PRE_SCORE_STATE_KEY)
        reqs = s[0] if s is not None else sc.pod_request_list(pod)
        v = cpu_memory_vectors(cols, rows, reqs[0], reqs[1], use_requested=False)
        if v is None:
            return None
        req_cpu, req_mem, _, _, cap_cpu, cap_mem, exceptions = v
        scores = least_allocated_scores(req_cpu, req_mem, cap_cpu, cap_mem,
                                        sc.resources[0].weight, sc.resources[1].weight)
        return fill_per_node(scores, exceptions, partial(self.score, state, pod), nodes)

    # Sign
    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: one fragment, the pod's request vector (computePodResourceRequest);
        Unschedulable "signature disabled when dra extended resources are used in the
        cluster" when a DeviceClass maps a resource the pod requests."""
        request = compute_pod_resource_request(pod, self.enable_pod_level_resources)
        dra = self._extended_resource_cache()
        if any(q and should_delegate_resource_to_dra(name, None, dra)
               for name, q in request.scalar.items()):
            return None, Status(Code.UNSCHEDULABLE, "signature disabled when dra extended "
                                "resources are used in the cluster")
        return [(RESOURCES_SIGNER_NAME, resource_signature(request))], None
