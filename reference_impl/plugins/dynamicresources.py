"""DynamicResources: allocates a pod's ResourceClaims (DRA) and extended resources backed by DRA.

Upstream: ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go`` and
``extendeddynamicresources.go``. ResourceClaims, DeviceClasses and ResourceSlices are not
modelled: pods without claims follow upstream exactly, pods with claims get an Error status.
See docs/reference.md#dynamicresources."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl.framework.interfaces import (
    MAX_NODE_SCORE,
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
from reference_impl.model.objects import Pod
from reference_impl.plugins import names
from reference_impl.plugins.helper.normalize_score import default_normalize_score

if TYPE_CHECKING:
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.types import NodeInfo

STATE_KEY = names.DynamicResources
ERR_NOT_FOUND = "not found"  # fwk.ErrNotFound, returned by CycleState.Read
# resourceapi.ResourceDeviceClassPrefix (k8s.io/api/resource/v1/types.go).
RESOURCE_DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"

QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"


def _not_supported(what: str) -> Status:
    return Status.as_error(f"{names.DynamicResources}: not supported yet: {what}")


def device_class_extended_resource(pod: Pod) -> str | None:
    """The first ``deviceclass.resource.kubernetes.io/<class>`` resource the pod requests with
    a non-zero quantity (containers, init containers, overhead; limits count too, as they
    default the requests of extended resources), or None."""
    for group in (pod.containers, pod.init_containers):
        for c in group:
            for name, q in (*c.requests, *c.limits):
                if q and name.startswith(RESOURCE_DEVICE_CLASS_PREFIX):
                    return name
    for name, q in pod.overhead:
        if q and name.startswith(RESOURCE_DEVICE_CLASS_PREFIX):
            return name
    return None


class _StateData:
    """``stateData``: ``claims`` is empty for a pod with no work for the plugin. Clone shares
    the pointer."""

    __slots__ = ("claims", "node_allocations", "unavailable_claims")

    def __init__(self) -> None:
        self.claims: tuple = ()
        self.node_allocations: dict[str, Any] = {}
        self.unavailable_claims: set[int] = set()

    def clone(self) -> _StateData:
        return self


class DynamicResources(PreEnqueuePlugin, PreFilterPlugin, FilterPlugin, PostFilterPlugin,
                       ScorePlugin, ReservePlugin, EnqueueExtensions, PreBindPlugin, SignPlugin):
    """``DynamicResources`` (dynamicresources.go)."""

    name = names.DynamicResources
    has_normalize_score = True

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        feature = handle.feature_enabled if handle is not None else (lambda gate: False)
        # New: "Disabled, won't do anything." without the gate.
        self.enabled = bool(feature("DynamicResourceAllocation"))
        self.enable_dra_prioritized_list = bool(feature("DRAPrioritizedList"))
        self.enable_dra_extended_resource = bool(feature("DRAExtendedResource"))

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

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """``PreEnqueue``: every claim of the pod must exist (``foreachPodResourceClaim``)."""
        if not self.enabled:
            return None
        if pod.resource_claims:
            return _not_supported(f"ResourceClaims {list(pod.resource_claims)!r} (DRA objects "
                                  "are not modelled)")
        return None

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: an empty state is written first; no claims (user or extended
        resource) means Skip."""
        if not self.enabled:
            return None, Status(Code.SKIP)
        s = _StateData()
        state.write(STATE_KEY, s)
        if pod.resource_claims:
            return None, _not_supported(
                f"ResourceClaims {list(pod.resource_claims)!r} (DRA objects are not modelled)")
        if self.enable_dra_extended_resource:
            res = device_class_extended_resource(pod)
            if res is not None:
                return None, _not_supported(
                    f"extended resource {res!r} backed by DRA (DeviceClasses are not modelled)")
        return None, Status(Code.SKIP)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: nothing to check without claims."""
        if not self.enabled:
            return None
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if not s.claims:
            return None
        return _not_supported("allocating ResourceClaims")

    def post_filter(self, state: CycleState, pod: Pod, node_to_status: Any
                    ) -> tuple[PostFilterResult | None, Status | None]:
        """``PostFilter``: Unschedulable with no reason when there is no claim to deallocate."""
        if not self.enabled:
            return None, Status(Code.UNSCHEDULABLE)
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return None, Status.as_error(ERR_NOT_FOUND)
        if not s.claims:
            return None, Status(Code.UNSCHEDULABLE)
        return None, _not_supported("deallocating ResourceClaims")

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """``Score``: 0 without claims (and without DRAPrioritizedList)."""
        if not self.enabled or not self.enable_dra_prioritized_list:
            return 0
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            raise PluginError(ERR_NOT_FOUND)
        if not s.claims or node_info.node.name not in s.node_allocations:
            return 0
        raise PluginError(f"{self.name}: not supported yet: scoring ResourceClaim allocations")

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[list]) -> Status | None:
        """``NormalizeScore``: ``DefaultNormalizeScore(MaxNodeScore, false)`` when enabled."""
        if not self.enabled:
            return None
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``Reserve``: nothing to reserve without claims."""
        if not self.enabled:
            return None
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if not s.claims:
            return None
        return _not_supported("reserving ResourceClaims")

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """``Unreserve``: nothing to undo without claims."""
        return None

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``PreBindPreFlight``: Skip without claims."""
        if not self.enabled:
            return Status(Code.SKIP)
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if not s.claims:
            return Status(Code.SKIP)
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``PreBind``: nothing to bind without claims."""
        if not self.enabled:
            return None
        s: _StateData | None = state.get(STATE_KEY)
        if s is None:
            return Status.as_error(ERR_NOT_FOUND)
        if not s.claims:
            return None
        return _not_supported("binding ResourceClaims")

    def is_schedulable_after_target_pod_update(self, pod: Pod, old_obj: Any, new_obj: Any
                                               ) -> tuple[str, str | None]:
        """``isSchedulableAfterTargetPodUpdate``: Queue once every claim of the updated pod
        exists (``foreachPodResourceClaim``); trivially so for a pod without claims."""
        if not isinstance(new_obj, Pod):
            return QUEUE, ("unexpected object in isSchedulableAfterTargetPodUpdate: expected "
                           f"*v1.Pod, but got {type(new_obj).__name__}")
        if new_obj.resource_claims:
            return QUEUE, "DynamicResources: not supported yet: ResourceClaims of an updated pod"
        return QUEUE, None

    def is_schedulable_after_claim_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                          ) -> tuple[str, str | None]:
        return QUEUE, "DynamicResources: not supported yet: ResourceClaim events"
