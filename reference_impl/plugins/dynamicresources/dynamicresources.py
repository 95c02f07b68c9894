"""DynamicResources: allocates a pod's ResourceClaims (DRA) with the structured allocator and
records the allocation and the reservation in the claims.

Upstream: ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go`` of v1.37.2.
Claims come from ``Cluster.dra`` through the DRA manager (``dra_manager.py``); the allocator is
``reference_impl/dra/allocator.py``; device binding conditions: ``bindingconditions.py``. Not
modelled: pod groups (DRAWorkloadResourceClaims), node-allocatable resources, the filter
timeout, events. Extended resources backed by DRA: ``extendeddynamicresources.py``.
docs/dra.md.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from reference_impl.api.node_selectors import (
    CompiledNodeSelector,
    NodeSelectorParseError,
    new_node_selector,
)
from reference_impl.dra.allocator import Allocator, AllocatorError
from reference_impl.dra.cel import release_options
from reference_impl.dra.pools import COUNTER_SLICE_RULES
from reference_impl.dra.variants import binding_pools_last, capacity_gate_check
from reference_impl.framework.interfaces import (
    MAX_NODE_SCORE,
    DeletedFinalStateUnknown,
    EnqueueExtensions,
    FilterPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    ReservePlugin,
    ScorePlugin,
    SignPlugin,
)
from reference_impl.framework.status import (
    Code,
    PluginError,
    PostFilterResult,
    PreFilterResult,
    Status,
)
from reference_impl.framework.vectorised import default_normalize_score_batch
from reference_impl.model.dra import (
    CLAIM_FINALIZER,
    AllocationResult,
    DRAObjects,
    ResourceClaim,
)
from reference_impl.model.objects import Pod
from reference_impl.plugins import names
from reference_impl.plugins.dynamicresources.bindingconditions import (
    BindingClock,
    BindingError,
    has_binding_conditions,
    is_claim_ready_for_binding,
    is_claim_timeout,
    wait_for_binding,
)
from reference_impl.plugins.dynamicresources.claims import (
    ClaimNameError,
    ClaimStore,
    check_is_for_pod,
    claim_name,
    is_reserved_for_pod,
    pod_binding,
)
from reference_impl.plugins.dynamicresources.diagnostics import why_no_device_fits
from reference_impl.plugins.dynamicresources.dra_manager import (
    IN_FLIGHT_RULES,
    ClaimNotFound,
    DRAManager,
)
from reference_impl.plugins.dynamicresources.explanation import (
    extended_resource_claim_status,
    selected_node_claims,
)
from reference_impl.plugins.dynamicresources.extendeddynamicresources import (
    ContainerExtendedResourceRequest,
    ExtendedResourceCache,
    create_requests_and_mappings,
    find_extended_resource_claim,
    generate_name_base,
    has_device_class_mapped_extended_resource,
    in_memory_claim,
    is_special_claim_name,
    node_claim,
    pod_scalar_resources,
    served_by_dra,
)
from reference_impl.plugins.helper.behaviour import behaviour
from reference_impl.plugins.helper.normalize_score import default_normalize_score

if TYPE_CHECKING:
    import numpy.typing as npt

    from reference_impl.framework.columns import I64, NodeColumns
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.types import NodeInfo

STATE_KEY = names.DynamicResources
ERR_NOT_FOUND = "not found"  # fwk.ErrNotFound, returned by CycleState.Read

#: PostFilter's reasons when disabled, without claims, and with nothing to deallocate, in the
#: releases whose switch dra-postfilter-messages is "messages".
_POSTFILTER_MESSAGES = ("plugin disabled", "no new claims to deallocate", "still not schedulable")
#: resourceapi.FirstAvailableDeviceRequestMaxSize
FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE = 8

QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"


def status_unschedulable(reason: str) -> Status:
    """``statusUnschedulable``: UnschedulableAndUnresolvable."""
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason)


def _key(claim: ResourceClaim) -> str:
    """``klog.KObj(claim)``."""
    return f"{claim.namespace}/{claim.name}"


@dataclass(slots=True)
class InformationForClaim:
    """``informationForClaim``: the node selector of an allocated claim, and the allocation
    made in Reserve."""

    available_on_nodes: CompiledNodeSelector | None = None
    allocation: AllocationResult | None = None


@dataclass(slots=True)
class NodeAllocation:
    """``nodeAllocation``: Filter's allocation results for a node, one per claim to
    allocate; the node's variant of the special claim and its container mappings."""

    allocation_results: list[AllocationResult] = field(default_factory=list)
    extended_resource_claim: ResourceClaim | None = None
    container_resource_request_mappings: list[ContainerExtendedResourceRequest] = field(
        default_factory=list)


class _StateData:
    """``stateData``: ``claims`` empty for a pod with no work for the plugin. Clone shares
    the pointer."""

    __slots__ = ("allocator", "api_objs", "claims", "extended_resources",
                 "informations_for_claim", "node_allocations", "pod_scalar_resources",
                 "unavailable_claims", "written")

    def __init__(self) -> None:
        self.claims: ClaimStore = ClaimStore([], [])
        #: ``draExtendedResource.podScalarResources``
        self.pod_scalar_resources: dict[str, int] = {}
        #: the DeviceClassResolver PreFilter read (DeviceClasses do not change in a cycle)
        self.extended_resources = ExtendedResourceCache()
        self.allocator: Allocator | None = None
        self.informations_for_claim: list[InformationForClaim] = []
        self.node_allocations: dict[str, NodeAllocation] = {}
        self.unavailable_claims: set[int] = set()
        #: claim key -> the assume cache's ``apiObj`` of a claim PreBind wrote (the claim
        #: before), and the API server's claim after this cycle's writes
        self.api_objs: dict[str, ResourceClaim] = {}
        self.written: dict[str, ResourceClaim] = {}

    def clone(self) -> _StateData:
        return self


class DynamicResources(PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin,
                       ScorePlugin, ReservePlugin, EnqueueExtensions, PreBindPlugin, SignPlugin):
    """``DynamicResources`` (dynamicresources.go)."""

    name = names.DynamicResources
    # v1.34 dynamicresources.go has no Score (nor NormalizeScore).
    release_points = {"score": ("dynamicresources-score", "none")}
    has_normalize_score = True

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        feature = handle.feature_enabled if handle is not None else (lambda gate: False)
        # New: "Disabled, won't do anything." without the gate.
        self.enabled = bool(feature("DynamicResourceAllocation"))
        self.enable_dra_prioritized_list = bool(feature("DRAPrioritizedList"))
        self.score_variant = behaviour(handle, "dynamicresources-score")
        self.enable_dra_extended_resource = bool(feature("DRAExtendedResource"))
        self.enable_admin_access = bool(feature("DRAAdminAccess"))
        self.enable_device_taints = bool(feature("DRADeviceTaints"))
        self.enable_partitionable_devices = bool(feature("DRAPartitionableDevices"))
        self.enable_consumable_capacity = bool(feature("DRAConsumableCapacity"))
        self.enable_fractional_capacity_range = bool(feature("DRAFractionalCapacityRange"))
        # fts.EnableDRADeviceBindingConditions && fts.EnableDRAResourceClaimDeviceStatus
        self.enable_binding_conditions = bool(feature("DRADeviceBindingConditions")) and \
            bool(feature("DRAResourceClaimDeviceStatus"))
        #: switch dra-binding-pools-last: the allocator variant's pool order
        self.binding_pools_last = binding_pools_last(
            behaviour(handle, "dra-binding-pools-last"), lambda g: bool(feature(g)))
        #: switch dra-capacity-gate-message, and whether the variant checks the gate at all
        self.capacity_gate_check = capacity_gate_check(
            behaviour(handle, "dra-binding-pools-last"),
            behaviour(handle, "dra-capacity-gate-message"), lambda g: bool(feature(g)))
        #: switch dra-counter-slices-relevant (the allocator's GatherPools)
        self.counter_slices = behaviour(handle, "dra-counter-slices-relevant")
        if self.counter_slices not in COUNTER_SLICE_RULES:
            raise ValueError(f"unknown dra-counter-slices-relevant variant "
                             f"{self.counter_slices!r}")
        #: switch dra-cel-no-such-key-hint (the allocator's CEL runtime errors)
        self.cel_no_such_key_hint = behaviour(handle, "dra-cel-no-such-key-hint") == "hint"
        #: switches dra-cel-includes (the CEL environment's list library) and dra-cel-go
        self.cel_options = release_options(lambda name: behaviour(handle, name))
        #: switch dra-config-result: how the allocation result's claim configs are built
        self.config_result = behaviour(handle, "dra-config-result")
        self.binding_timeout = float(getattr(args, "binding_timeout_seconds", 600.0))
        #: the plugin's time.Now (bindingconditions.py); the simulation sets its virtual time
        self.binding_clock = BindingClock()
        dra = getattr(handle, "dra_objects", None)
        #: switch dra-in-flight-allocations
        self.in_flight_rule = behaviour(handle, "dra-in-flight-allocations")
        if self.in_flight_rule not in IN_FLIGHT_RULES:
            raise ValueError(f"unknown dra-in-flight-allocations variant "
                             f"{self.in_flight_rule!r}")
        self.dra_manager = DRAManager(dra() if dra is not None else DRAObjects(),
                                      device_taint_rules=bool(feature("DRADeviceTaintRules")),
                                      shared_in_flight=self.in_flight_rule.startswith("shared"))
        #: switch dra-postfilter-messages: whether PostFilter words its plain Unschedulable
        self.postfilter_messages = behaviour(handle, "dra-postfilter-messages") == "messages"

    # ----- SignPod, EventsToRegister -----

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: pods with claims are not signable; others add no fragment."""
        if pod.resource_claims:
            return None, Status(Code.UNSCHEDULABLE,
                                "pods with dra resource claims are not signable")
        return None, None

    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, queueing hint method or None); none
        when disabled."""
        if not self.enabled:
            return []
        return [
            ("Node", ("Add", "UpdateNodeLabel", "UpdateNodeAllocatable"), None),
            ("resource.k8s.io/ResourceClaim", ("Add", "Update", "Delete"),
             "is_schedulable_after_claim_change"),
            ("TargetPod", ("UpdatePodGeneratedResourceClaim",),
             "is_schedulable_after_target_pod_update"),
            ("resource.k8s.io/DeviceClass", ("Add", "Update"), None),
            ("resource.k8s.io/ResourceSlice", ("Add", "Update"), None),
        ]

    # ----- the pod's claims -----

    def foreach_pod_resource_claim(self, pod: Pod) -> list[tuple[str, ResourceClaim]]:
        """``foreachPodResourceClaim``: every claim of the pod exists, is not being deleted
        and, when made from a template, is owned by the pod; raises ValueError with
        upstream's message otherwise."""
        out = []
        for pc in pod.resource_claim_sources:
            try:
                name, must_check_owner = claim_name(pod, pc)
                if name is None:
                    continue
                claim = self.dra_manager.get_claim(pod.namespace, name)
                if claim.deleting:
                    raise ValueError(f'resourceclaim "{claim.name}" is being deleted')
                if must_check_owner:
                    check_is_for_pod(pod, claim)
            except (ClaimNameError, ClaimNotFound) as e:
                raise ValueError(str(e)) from None
            out.append((pc.name, claim))
        return out

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """``PreEnqueue``: every claim of the pod must exist (``foreachPodResourceClaim``)."""
        if not self.enabled:
            return None
        try:
            self.foreach_pod_resource_claim(pod)
        except ValueError as e:
            return status_unschedulable(str(e))
        return None

    # ----- PreFilter -----

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: the pod's claims; the node selectors of the allocated ones; the
        device classes of the others, and the allocator over the allocated devices (those of
        every allocated claim and of the allocations in flight)."""
        if not self.enabled:
            return None, Status(Code.SKIP)
        s = _StateData()
        state.write(STATE_KEY, s)
        try:
            found = self.foreach_pod_resource_claim(pod)
        except ValueError as e:
            return None, status_unschedulable(str(e))
        extended = self._pre_filter_extended_resources(pod, s)
        claims = ClaimStore.new([c for _, c in found], [n for n, _ in found], extended)
        if claims.empty():
            return None, Status(Code.SKIP)
        num_claims_to_allocate = 0
        s.informations_for_claim = [InformationForClaim() for _ in range(len(claims))]
        for index, claim in claims.all():
            if claim.allocation is not None:
                # CanBeReserved is always true in v1.37.2: no "resourceclaim in use".
                if claim.allocation.node_selector is not None:
                    try:
                        s.informations_for_claim[index].available_on_nodes = \
                            new_node_selector(claim.allocation.node_selector)
                    except NodeSelectorParseError as e:
                        return None, Status.as_error(str(e))
                continue
            num_claims_to_allocate += 1
            if self.dra_manager.get_pending_allocation(claim.uid) is not None:
                return None, status_unschedulable(
                    f"resource claim {_key(claim)} is in the process of being allocated")
            if claims.is_extended(index):
                continue  # no spec yet, or from an earlier cycle: Filter checks it
            for request in claim.spec.requests:
                if request.exactly is not None:
                    st = self._validate_device_class(request.exactly.device_class_name,
                                                     request.name)
                elif request.first_available:
                    if not self.enable_dra_prioritized_list:
                        return None, status_unschedulable(
                            f"resource claim {_key(claim)}, request {request.name}: has "
                            "subrequests, but the DRAPrioritizedList feature is disabled")
                    st = None
                    for sub in request.first_available:
                        st = self._validate_device_class(sub.exactly.device_class_name,
                                                         f"{request.name}/{sub.name}")
                        if st is not None:
                            break
                else:
                    return None, status_unschedulable(
                        f"resource claim {_key(claim)}, request {request.name}: unknown "
                        "request type")
                if st is not None:
                    return None, st
        if num_claims_to_allocate > 0:
            allocated = self.dra_manager.gather_allocated_state(self.enable_consumable_capacity)
            s.allocator = Allocator(
                allocated.allocated, self.dra_manager.objects.device_classes,
                self.dra_manager.list_slices(),
                partitionable=self.enable_partitionable_devices,
                device_taints=self.enable_device_taints, admin_access=self.enable_admin_access,
                prioritized_list=self.enable_dra_prioritized_list,
                consumable_capacity=self.enable_consumable_capacity,
                fractional_capacity_range=self.enable_fractional_capacity_range,
                device_binding_and_status=self.enable_binding_conditions,
                binding_pools_last=self.binding_pools_last,
                capacity_gate_check=self.capacity_gate_check,
                cel_no_such_key_hint=self.cel_no_such_key_hint,
                cel_options=self.cel_options,
                config_result=self.config_result,
                counter_slices=self.counter_slices,
                shared=allocated.shared,
                aggregated_capacity=allocated.aggregated_capacity)
        s.claims = claims
        return None, None

    def _pre_filter_extended_resources(self, pod: Pod, s: _StateData) -> ResourceClaim | None:
        """``preFilterExtendedResources``: for a pod requesting an extended resource a
        DeviceClass maps, its claim from an earlier cycle, else a new in-memory one."""
        if not self.enable_dra_extended_resource:
            return None
        cache = self.dra_manager.device_class_resolver(True)
        s.extended_resources = cache
        reqs = pod_scalar_resources(pod)
        if not has_device_class_mapped_extended_resource(reqs, cache):
            return None
        s.pod_scalar_resources = reqs
        found = find_extended_resource_claim(pod, self.dra_manager.objects.claims.values())
        return found if found is not None else in_memory_claim(pod)

    def _filter_extended_resources(
            self, s: _StateData, pod: Pod, node_info: NodeInfo
    ) -> tuple[ResourceClaim | None, list[ContainerExtendedResourceRequest], Status | None]:
        """``filterExtendedResources``: the node's variant of the special claim (None when
        the node's device plugins serve everything and the pod has no other claim, or the
        claim is allocated); Unschedulable for a claim from an earlier cycle (PostFilter
        deletes it) or a resource neither the node nor a class provides."""
        claim = s.claims.extended_resource_claim()
        if claim is None:
            return None, [], None
        if claim.spec.requests:
            return None, [], status_unschedulable("cannot schedule extended resource claim")
        extended, missing = served_by_dra(s.pod_scalar_resources, node_info,
                                          s.extended_resources)
        if missing is not None:
            return None, [], status_unschedulable("cannot fit resource")
        if s.claims.no_user_claim() and not extended:
            return None, [], None
        if claim.allocation is not None:
            return None, [], None
        requests, mappings = create_requests_and_mappings(pod, extended, s.extended_resources)
        return node_claim(claim, requests), mappings, None

    def _validate_device_class(self, class_name: str, request_name: str) -> Status | None:
        """``validateDeviceClass``."""
        if not class_name:
            return Status.as_error(f"request {request_name}: unsupported request type")
        if self.dra_manager.get_device_class(class_name) is None:
            return status_unschedulable(
                f"request {request_name}: device class {class_name} does not exist")
        return None

    # ----- Filter -----

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: the node selector of each allocated claim must match the node, and the
        allocator must allocate every other claim on it; the result is kept for Reserve."""
        if not self.enabled:
            return None
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if s.claims.empty():
            return None
        ext_claim, mappings, st = self._filter_extended_resources(s, pod, node_info)
        if st is not None:
            return st
        if ext_claim is None and s.claims.no_user_claim():
            return None  # the node's device plugins serve the extended resources
        node = node_info.node
        unavailable = []
        for index, claim in s.claims.all():
            selector = s.informations_for_claim[index].available_on_nodes
            if selector is not None and not selector.match(node):
                unavailable.append(index)
                continue
            if claim.allocation is not None and self.enable_binding_conditions:
                # not ready and timed out, or failed: PostFilter may deallocate it
                try:
                    ready = is_claim_ready_for_binding(claim)
                except BindingError:
                    unavailable.append(index)
                    continue
                if not ready and is_claim_timeout(claim, self.binding_timeout,
                                                  self.binding_clock.now()):
                    unavailable.append(index)
        allocations: list[AllocationResult] = []
        if s.allocator is not None:
            to_allocate = [ext_claim if ext_claim is not None and s.claims.is_extended(i)
                           else c for i, c in s.claims.to_allocate()]
            try:
                result = s.allocator.allocate(node, to_allocate)
            except AllocatorError as e:
                if str(e) == "invalid resource pools were encountered":
                    # structured.ErrFailedAllocationOnNode: only this node fails
                    return status_unschedulable(str(e))
                return Status.as_error(str(e))
            if result is None or len(result) != len(to_allocate):
                return status_unschedulable("cannot allocate all claims")
            allocations = result
        if unavailable:
            s.unavailable_claims.update(unavailable)
            return status_unschedulable("resourceclaim not available on the node")
        if s.allocator is not None:
            s.node_allocations[node.name] = NodeAllocation(allocations, ext_claim, mappings)
        return None

    def explain_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> list[str]:
        """For ``explain`` (no upstream counterpart): why the allocator found no devices for
        the claims on this node (``diagnostics.py``); empty when there is nothing to say."""
        s: _StateData | None = state.get(STATE_KEY)
        if s is None or s.allocator is None:
            return []
        claims = [c for _, c in s.claims.to_allocate()]
        try:
            if s.allocator.allocate(node_info.node, claims) is not None:
                return []  # the claims fit: the node failed for another reason
        except AllocatorError:
            return []  # the Error status says why
        return why_no_device_fits(s.allocator, node_info.node, claims)

    def explain_selected(self, state: CycleState, pod: Pod, node_name: str
                         ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """For ``explain`` (no upstream counterpart): the devices each claim would get on the
        selected node and the pod's extendedResourceClaimStatus (``explanation.py``)."""
        s: _StateData | None = state.get(STATE_KEY)
        if s is None or s.claims.empty():
            return [], None
        na = s.node_allocations.get(node_name)
        return (selected_node_claims(s.claims, na.allocation_results if na else []),
                extended_resource_claim_status(
                    s.claims, na.container_resource_request_mappings if na else []))

    # ----- PostFilter -----

    def post_filter(self, state: CycleState, pod: Pod, node_to_status: Any
                    ) -> tuple[PostFilterResult | None, Status | None]:
        """``PostFilter`` (``deallocateOrDeletePodClaims``): deallocate one allocated claim
        that was unavailable on some node and is reserved for nobody else, else delete the
        special claim of an earlier cycle. Upstream picks the claim at random (map order);
        the reference takes the lowest index.

        Switch ``dra-postfilter-messages``: v1.37.2 returns a bare Unschedulable when disabled,
        without claims or with nothing to deallocate; v1.34.4 to v1.36.3
        (``dynamicresources.go``, ``PostFilter``) say "plugin disabled", "no new claims to
        deallocate" and "still not schedulable"."""
        worded = _POSTFILTER_MESSAGES if self.postfilter_messages else ()
        if not self.enabled:
            return None, Status(Code.UNSCHEDULABLE, *worded[:1])
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return None, Status.as_error(ERR_NOT_FOUND)
        if s.claims.empty():
            return None, Status(Code.UNSCHEDULABLE, *worded[1:2])
        ext = s.claims.extended_resource_claim()
        for index in sorted(s.unavailable_claims):
            claim = s.claims.get(index)
            if s.claims.is_extended(index):
                if not is_special_claim_name(claim.name):
                    break
                continue
            reserved = claim.reserved_for
            if not reserved or (len(reserved) == 1 and reserved[0].uid == pod.uid):
                deallocated = dataclasses.replace(claim, reserved_for=(), allocation=None,
                                                  devices=())
                self.dra_manager.assume_claim_after_api_call(deallocated)
                self._claim_written(claim, deallocated)
                return None, Status(Code.UNSCHEDULABLE,
                                    "deallocation of ResourceClaim completed")
        if ext is not None and not is_special_claim_name(ext.name):
            # the special claim of an earlier cycle is deleted (deleteClaim)
            self.dra_manager.delete_claim(ext)
            self._claim_written(ext, None)
            return None, Status(Code.UNSCHEDULABLE, "deletion of ResourceClaim completed")
        return None, Status(Code.UNSCHEDULABLE, *worded[2:])

    # ----- Score -----

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """``Score``: ``computeScore``, for each subrequest of a ``firstAvailable`` request
        that got devices, 8 minus its index. v1.36 on, only with DRAPrioritizedList (v1.35
        scores without looking at it; v1.34 has no Score: ``release_points``)."""
        if not self.enabled or (not self.enable_dra_prioritized_list
                                and self.score_variant != "claim-index"):
            return 0
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            raise PluginError(ERR_NOT_FOUND)
        if s.claims.empty():
            return 0
        allocations = s.node_allocations.get(node_info.node.name)
        if allocations is None:
            return 0
        return compute_score(s.claims, allocations, self.score_variant)

    def score_batch(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                    cols: NodeColumns, rows: npt.NDArray[np.intp]) -> I64 | None:
        """``score`` over nodes (reference_impl/framework/vectorised.py): 0 everywhere when
        ``score`` returns 0 before looking at the node (disabled, or a pod without claims);
        None otherwise (per node)."""
        zeros = np.zeros(len(nodes), dtype=np.int64)
        if not self.enabled or (not self.enable_dra_prioritized_list
                                and self.score_variant != "claim-index"):
            return zeros
        s: _StateData | None = state.get(STATE_KEY)
        if s is None or not s.claims.empty():
            return None
        return zeros

    def normalize_score_batch(self, state: CycleState, pod: Pod, scores: I64) -> I64 | None:
        """``normalize_score`` on an array."""
        if not self.enabled:
            return scores
        return default_normalize_score_batch(MAX_NODE_SCORE, False, scores)

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[list]) -> Status | None:
        """``NormalizeScore``: ``DefaultNormalizeScore(MaxNodeScore, false)`` when enabled."""
        if not self.enabled:
            return None
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return None

    # ----- Reserve, Unreserve -----

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``Reserve``: the node's allocations become in-flight allocations of the claims
        (``SignalClaimPendingAllocation``): later pods see their devices as allocated."""
        if not self.enabled:
            return None
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if s.claims.empty():
            return None
        to_allocate = list(s.claims.to_allocate())
        if not to_allocate:
            return None
        need_user_claims = any(not s.claims.is_extended(i) for i, _ in to_allocate)
        if s.allocator is not None:
            allocations = s.node_allocations.get(node_name)
            if allocations is None or not allocations.allocation_results:
                if not need_user_claims:
                    return None  # only the special claim, served by device plugins here
                return Status.as_error("claim allocation not found for node")
            if len(allocations.allocation_results) != len(to_allocate):
                return Status.as_error(
                    f"internal error, have {len(allocations.allocation_results)} allocations, "
                    f"{len(to_allocate)} claims to allocate, want {len(to_allocate)} claims")
            for (index, claim), allocation in zip(to_allocate, allocations.allocation_results,
                                                  strict=True):
                s.informations_for_claim[index].allocation = allocation
                if s.claims.is_extended(index) and allocations.extended_resource_claim:
                    claim = allocations.extended_resource_claim
                self.dra_manager.signal_claim_pending_allocation(
                    claim.uid, dataclasses.replace(claim, allocation=allocation))
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """``Unreserve``: drop the in-flight allocations and the pod's reservations; the
        special claim's in-flight allocation, and the claim itself once PreBind created it
        (``unreserveExtendedResourceClaim``)."""
        if not self.enabled:
            return None
        s: _StateData | None = state.get(STATE_KEY)
        if s is None or s.claims.empty():
            return None
        ext = s.claims.extended_resource_claim()
        if ext is not None:
            self.dra_manager.maybe_remove_claim_pending_allocation(
                s.claims.initial_extended_resource_claim_uid)
            if not is_special_claim_name(ext.name):
                self.dra_manager.delete_claim(ext)
                self._claim_written(ext, None)
        patched: list[ResourceClaim] = []
        for _index, claim in s.claims.all_user_claims():
            key = _key(claim)
            if self.dra_manager.maybe_remove_claim_pending_allocation(claim.uid):
                restored = self.dra_manager.assumed_claim_restore(key, s.api_objs.pop(key, None))
                if restored is not None:
                    self._claim_written(*restored)
            if claim.allocation is not None and is_reserved_for_pod(pod, claim):
                api = s.written.get(key) or self.dra_manager.objects.claims.get(key, claim)
                unreserved = dataclasses.replace(
                    api, reserved_for=tuple(r for r in api.reserved_for if r.uid != pod.uid))
                s.written[key] = unreserved
                patched.append(unreserved)
        # the patches reach the assume cache through the informer, after the restores
        for unreserved in patched:
            current = self.dra_manager.objects.claims.get(_key(unreserved), unreserved)
            self.dra_manager.assume_claim_after_api_call(unreserved)
            self._claim_written(current, unreserved)
        return None

    def _claim_written(self, old: ResourceClaim | None, new: ResourceClaim | None) -> None:
        """A claim this plugin wrote to the API (created: ``old`` None; deleted: ``new``
        None): the claim informer's event reaches the scheduling queue (eventhandlers.go
        ``buildEvtResHandler`` of ResourceClaims; the queueing hints judge it), as the writes
        of VolumeBinding's PreBind do (``handle.storage_changed``)."""
        changed = getattr(self.handle, "storage_changed", None)
        if changed is not None:
            changed("ResourceClaim", old, new)

    # ----- PreBind -----

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``PreBindPreFlight``: Skip without claims."""
        if not self.enabled:
            return Status(Code.SKIP)
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if s.claims.empty():
            return Status(Code.SKIP)
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``PreBind`` (``bindClaim``, :meth:`_bind_claim`, for each claim not reserved for
        the pod yet), then the in-flight allocations are done (switch
        dra-in-flight-allocations: per claim, or after the whole PreBind in v1.37).

        A special claim with an allocation but no container request mappings (the node's
        device plugin serves the extended resources) is created and reserved, then the
        attempt fails (``patchPodExtendedResourceClaimStatus``, extendeddynamicresources.go
        569-575): upstream-dra-extended-resource-empty-mappings, docs/upstream-deviations.md.
        With DRADeviceBindingConditions and DRAResourceClaimDeviceStatus, bindClaim stamps
        ``allocationTimestamp`` (dynamicresources.go 1936-1945) and PreBind waits for binding
        conditions (1714-1779): nobody sets them, so the wait ends in an Error
        (``wait_for_binding``); the next attempt's Filter finds it timed out."""
        if not self.enabled:
            return None
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if s.claims.empty():
            return None
        done: list[str] = []
        for index, claim in s.claims.all():
            if is_reserved_for_pod(pod, claim):
                continue
            allocation = s.informations_for_claim[index].allocation
            is_extended = s.claims.is_extended(index)
            if is_extended and allocation is None and not claim.spec.requests:
                continue  # served by the node's device plugins
            if allocation is not None:
                done.append(claim.uid)
            written = [False]
            try:
                st = self._bind_claim(s, pod, node_name, index, claim, allocation, written)
            finally:
                if allocation is not None and self.in_flight_rule != "shared-after-prebind":
                    # bindClaim's deferred cleanup (before v1.37)
                    self.dra_manager.maybe_remove_claim_pending_allocation(
                        done[-1], force=self.in_flight_rule == "overwrite-per-claim"
                        or written[0])
            if st is not None:
                return st
        if self.enable_binding_conditions:
            claims = [self.dra_manager.objects.claims.get(_key(c), c) for _, c in s.claims.all()]
            if has_binding_conditions(claims):
                # the event BindingConditionsPending is not modelled; nobody sets the
                # conditions, so the wait is decided at once (bindingconditions.py)
                err = wait_for_binding(claims, self.binding_timeout, self.binding_clock)
                if err is not None:
                    return Status.as_error(err)
        if self.in_flight_rule == "shared-after-prebind":
            for uid in done:  # prebindSuccessCleanup
                self.dra_manager.maybe_remove_claim_pending_allocation(uid, force=True)
        return None

    def _bind_claim(self, s: _StateData, pod: Pod, node_name: str, index: int,
                    claim: ResourceClaim, allocation: AllocationResult | None,
                    written: list[bool]) -> Status | None:
        """``bindClaim``: write the allocation made in Reserve and add the pod to
        ``reservedFor`` (the special claim created first); ``written[0]`` once the write
        reached the assume cache. The pod's ``status.extendedResourceClaimStatus`` (the
        special claim's name, the node's container request mappings) is recorded in
        ``DRAObjects.extended_resource_claim_status``."""
        is_extended = s.claims.is_extended(index)
        uid = claim.uid  # in flight: the in-memory special claim's for extended resources
        if is_extended and is_special_claim_name(claim.name):
            st = self._create_extended_resource_claim(s, pod, node_name, index)
            if st is not None:
                return st
            claim = s.claims.get(index)
        current = self.dra_manager.objects.claims.get(_key(claim))
        if current is None or current.deleting:
            return Status.as_error(f"claim {_key(claim)} got deleted in the meantime")
        stored = current
        if allocation is not None:
            if current.allocation is not None:
                return Status.as_error(
                    f"claim {_key(claim)} got allocated elsewhere in the meantime")
            # bindClaim adds the finalizer (its own update) before the allocation
            finalizers = current.finalizers
            if CLAIM_FINALIZER not in finalizers:
                finalizers = (*finalizers, CLAIM_FINALIZER)
            current = dataclasses.replace(current, allocation=allocation,
                                          finalizers=finalizers)
        updated = dataclasses.replace(
            current, reserved_for=(*current.reserved_for, pod_binding(pod)))
        if self.enable_binding_conditions:
            if updated.allocation is None:
                return Status.as_error(
                    f"claim {_key(claim)} got deallocated elsewhere in the meantime")
            if updated.allocation.allocation_timestamp is None:
                stamped = dataclasses.replace(updated.allocation,
                                              allocation_timestamp=self.binding_clock.now())
                updated = dataclasses.replace(updated, allocation=stamped)
                if allocation is not None:
                    self._stamp_pending_allocation(s, index, uid, stamped)
        s.api_objs.setdefault(_key(claim), stored)
        s.written[_key(claim)] = updated
        self.dra_manager.assume_claim_after_api_call(updated)
        written[0] = True
        self._claim_written(stored, updated)
        s.claims.set(index, updated)
        if is_extended:
            na = s.node_allocations.get(node_name)
            if na is None or not na.container_resource_request_mappings:
                # patchPodExtendedResourceClaimStatus
                return Status.as_error(
                    f"nil or empty request mappings, no update of pod {pod.namespace}/"
                    f"{pod.name} ExtendedResourceClaimStatus")
            self.dra_manager.objects.extended_resource_claim_status[pod.uid] = {
                "resourceClaimName": updated.name,
                "requestMappings": [
                    {"containerName": m.container_name, "resourceName": m.resource_name,
                     "requestName": m.request_name}
                    for m in na.container_resource_request_mappings]}
        return None

    def _stamp_pending_allocation(self, s: _StateData, index: int, uid: str,
                                  stamped: AllocationResult) -> None:
        """Upstream's allocation from Reserve is one object, in the state and in the claim
        in flight (dynamicresources.go 1547-1564); bindClaim writes the allocation timestamp
        into it (1929, 1944), so the claim in flight (keyed by the in-memory claim's uid for
        extended resources) carries it too until prebindSuccessCleanup drops it, and still
        after a failed PreBind (TestPlugin "bind-failure-concurrent-deallocation")."""
        s.informations_for_claim[index].allocation = stamped
        pending = self.dra_manager.in_flight.get(uid)
        if pending is not None:
            self.dra_manager.in_flight[uid] = dataclasses.replace(pending, allocation=stamped)

    def _create_extended_resource_claim(self, s: _StateData, pod: Pod, node_name: str,
                                        index: int) -> Status | None:
        """``createExtendedResourceClaimInAPI``: create the node's variant of the special
        claim with ``generateName``; it replaces the in-memory claim in the store (so that
        Unreserve deletes it)."""
        na = s.node_allocations.get(node_name)
        if na is None or na.extended_resource_claim is None:
            return Status.as_error(f"extended resource claim not found for node {node_name}")
        created = self.dra_manager.create_claim(na.extended_resource_claim,
                                                generate_name_base(pod))
        self._claim_written(None, created)
        s.claims.set(index, created)
        return None

    # ----- queueing hints -----

    def is_schedulable_after_target_pod_update(self, pod: Pod, old_obj: Any, new_obj: Any
                                               ) -> tuple[str, str | None]:
        """``isSchedulableAfterTargetPodUpdate``: Queue once every claim of the updated pod
        exists (``foreachPodResourceClaim``), else QueueSkip."""
        if not isinstance(new_obj, Pod):
            return QUEUE, ("unexpected object in isSchedulableAfterTargetPodUpdate: expected "
                           f"*v1.Pod, but got {type(new_obj).__name__}")
        try:
            self.foreach_pod_resource_claim(new_obj)
        except ValueError:
            return QUEUE_SKIP, None
        return QUEUE, None

    def is_schedulable_after_claim_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                          ) -> tuple[str, str | None]:
        """``isSchedulableAfterClaimChange``: Queue when an allocated claim is deleted or
        deallocated, or when a claim of the pod is created or its status changes. A delete
        whose final state is unknown is Queue ("play it safe and check pending pods",
        dynamicresources.go v1.37.2, the ``cache.DeletedFinalStateUnknown`` check first)."""
        if new_obj is None and isinstance(old_obj, DeletedFinalStateUnknown):
            return QUEUE, None
        for obj in (old_obj, new_obj):
            if obj is not None and not isinstance(obj, ResourceClaim):
                return QUEUE, ("unexpected object in isSchedulableAfterClaimChange: expected "
                               f"*v1.ResourceClaim, but got {type(obj).__name__}")
        if new_obj is None:
            return (QUEUE if old_obj.allocation is not None else QUEUE_SKIP), None
        try:
            uses_claim = any(c.uid == new_obj.uid
                             for _, c in self.foreach_pod_resource_claim(pod))
        except ValueError:
            return QUEUE_SKIP, None
        if old_obj is not None and old_obj.allocation is not None and new_obj.allocation is None:
            return QUEUE, None
        if not uses_claim:
            return QUEUE_SKIP, None
        if old_obj is None:
            return QUEUE, None
        if (old_obj.allocation, old_obj.reserved_for, old_obj.devices) == (
                new_obj.allocation, new_obj.reserved_for, new_obj.devices):
            return QUEUE_SKIP, None
        return QUEUE, None


def compute_score(claims: ClaimStore, allocations: NodeAllocation,
                  variant: str = "allocated-claims") -> int:
    """``computeScore``, by the variant of dynamicresources-score. "allocated-claims" (v1.36,
    v1.37 dynamicresources.go): allocated claims use their allocation, the others the node's
    allocation results in order. "claim-index" (v1.35): the claim at index i among all claims
    uses the node's i-th allocation result (which lists only the claims Filter allocated), an
    error when there are fewer results than claims."""
    score = 0
    unallocated = 0
    for index, claim in claims.all():
        if variant == "claim-index":
            if index >= len(allocations.allocation_results):
                raise PluginError(
                    f"number of allocations {len(allocations.allocation_results)} is smaller "
                    "than number of claims")
            allocation = allocations.allocation_results[index]
        elif claim.allocation is not None:
            allocation = claim.allocation
        else:
            if unallocated >= len(allocations.allocation_results):
                raise PluginError(
                    f"number of allocations {len(allocations.allocation_results)} is smaller "
                    "than number of claims needing allocation")
            allocation = allocations.allocation_results[unallocated]
            unallocated += 1
        sub_requests = {r.request for r in allocation.results if "/" in r.request}
        for req in claim.spec.requests:
            if req.exactly is not None:
                continue
            for i, sub in enumerate(req.first_available):
                if f"{req.name}/{sub.name}" in sub_requests:
                    score += FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE - i
    return score
