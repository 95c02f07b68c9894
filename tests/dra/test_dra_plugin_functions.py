"""DynamicResources: the test functions of upstream's dynamicresources_test.go (v1.37.2,
``pkg/scheduler/framework/plugins/dynamicresources/``) other than TestPlugin,
TestIsSchedulableAfterTargetPodUpdate and Test_computesScore (tests/dra/test_dra_plugin.py).
Each case runs under its upstream name (the pytest id) and cites its Go test function.

Restated: TestPostFilterNoOpStatusHasNoUserVisibleReason, TestNormalizeScore,
TestGatherAllocatedState, the three ``DeletedFinalStateUnknown`` cases of
TestIsSchedulableAfterClaimChange (the other ten: test_dra_plugin.py) and
TestAllocatorSelection.

Not restated, and why (gates: ``reference_impl/releases/v1_37_2.py``):

- TestPreFilterReusesPendingAllocationWithNilNodeSelector: a pod group's pending allocation
  (``podGroupStateData.pendingAllocations``) needs DRAWorkloadResourceClaims and
  GenericWorkload (both Beta, off in v1.37.2); pod groups are not modelled (docs/dra.md).
- TestFilterReusesPendingAllocationRequiresDRAOptionalNodeOperations: the same pod groups, and
  DRAOptionalNodeOperations (Alpha, off).
- Test_allocationResultRequiresDRAOptionalNodeOperations: a result's ``SkipNodeOperations``,
  a field of DRAOptionalNodeOperations (Alpha, off: the API server drops it), not modelled.
- TestPodGroupPostFilter: ``PodGroupPostFilter`` needs GenericWorkload (Beta, off) and, for
  most cases, DRAWorkloadResourceClaims (Beta, off).
- TestPreQueueingHint, TestPreQueueingHint_WithPodInIndexer,
  TestPreQueueingHint_SharedClaimMultiplePods: the queue runs a ``PreQueueingHintFn`` only
  with SchedulerPreQueueingHints (Alpha, off; backend/queue/scheduling_queue.go
  ``runPreQueueingHintPlugins``); the reference's queue has no pre-queueing narrowing
  (docs/reference.md), so the plugin has no ``preQueueingHint``.
- TestDynamicResources_DeferredResizeSkipped: a pod whose PodResizePending condition is
  Deferred, with InPlacePodVerticalScalingSchedulerPreemption (Alpha, off): the scheduler's
  handling of deferred resizes (the queue's and schedule_one's) is not modelled, so the
  plugins' skips of such pods are not restated (the other plugins'
  ``*_DeferredResizeSkipped`` neither).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import DeletedFinalStateUnknown
from reference_impl.framework.status import Code
from reference_impl.framework.testing import FakeHandle
from reference_impl.model.dra import (
    AllocationResult,
    DeviceRequestAllocationResult,
    DRAObjects,
    ResourceClaim,
)
from reference_impl.model.objects import Pod
from reference_impl.plugins.dynamicresources import STATE_KEY, DynamicResources, _StateData
from reference_impl.plugins.dynamicresources.dra_manager import DRAManager
from reference_impl.releases import ReleaseData, load
from reference_impl.testing.dra import claim, local_node_selector, request
from reference_impl.testing.pods import make_pod

DRA_TEST = "pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go"
MAX_INT32 = 2**31 - 1

# the constants of dynamicresources_test.go
DRIVER = "some-driver"
NODE_NAME = "worker"
SHARED_DEVICE_NAME = "shared-instance"
CAPACITY_NAME = "my-cap"
CLASS_NAME = "my-resource-class"
POD_UID = "1234"


def _plugin(**gates: bool) -> DynamicResources:
    return DynamicResources(None, FakeHandle(features=gates))


# --- TestPostFilterNoOpStatusHasNoUserVisibleReason ------------------------------------------

@pytest.mark.parametrize("case", ["plugin disabled", "no claims"])
def test_post_filter_no_op_status_has_no_user_visible_reason(case: str) -> None:
    """dynamicresources_test.go TestPostFilterNoOpStatusHasNoUserVisibleReason: a disabled
    plugin (``&DynamicResources{}``), and an enabled one whose state has no claims, return
    Unschedulable without reasons."""
    pod = make_pod("pod").namespace("default").obj()
    state = CycleState()
    if case == "plugin disabled":
        pl = _plugin(DynamicResourceAllocation=False)
    else:
        state.write(STATE_KEY, _StateData())
        pl = _plugin(DynamicResourceAllocation=True)
    result, status = pl.post_filter(state, pod, None)
    assert result is None
    assert status is not None and status.code == Code.UNSCHEDULABLE
    assert status.all_reasons() == []


# --- TestNormalizeScore ----------------------------------------------------------------------

@pytest.mark.parametrize("scores,want", [
    pytest.param([], [], id="empty"),
    pytest.param([42], [100], id="single-score"),
    pytest.param([8, 8], [100, 100], id="all-same"),
    pytest.param([MAX_INT32, MAX_INT32], [100, 100], id="all-same-very-large"),
    pytest.param([MAX_INT32, 0], [100, 0], id="max-and-min-values"),
    pytest.param([99, 98, 97], [100, 98, 97], id="mid-value"),
    pytest.param([MAX_INT32, MAX_INT32 - 1, 1, 0], [100, 99, 0, 0],
                 id="large-spread-lost-precision"),
])
def test_normalize_score(scores: list[int], want: list[int]) -> None:
    """dynamicresources_test.go TestNormalizeScore: ``NormalizeScore`` of an enabled plugin on
    node-1, node-2...; also the vectorised ``normalize_score_batch``, which the scheduler uses
    instead when it can (reference_impl/framework/vectorised.py)."""
    pl = _plugin(DynamicResourceAllocation=True)
    pairs = [[f"node-{i + 1}", s] for i, s in enumerate(scores)]
    assert pl.normalize_score(CycleState(), None, pairs) is None  # type: ignore[arg-type]
    assert pairs == [[f"node-{i + 1}", s] for i, s in enumerate(want)]
    batch = pl.normalize_score_batch(CycleState(), None,  # type: ignore[arg-type]
                                     np.array(scores, dtype=np.int64))
    assert batch is not None and batch.tolist() == want


# --- TestGatherAllocatedState ----------------------------------------------------------------

def _allocated(share_id: str | None = None, consumed: bool = False,
               uid: str = "claim-uid") -> ResourceClaim:
    """``allocatedClaim`` (``instance-1``), ``allocatedClaimWithSharedDevice`` (share ID,
    ``shared-instance``), ``allocatedClaimWithConsumedCapacity`` (share-123, my-cap 1) and
    ``...ConsumedCapacity2`` (share-456, my-cap 1): ``pendingClaim`` with an allocation on
    the worker. Upstream's four share the claim's name; the reference's tracker keys the
    claims by name (upstream's ``allocatedDevices`` by device), so each gets its own name."""
    device = "instance-1" if share_id is None else SHARED_DEVICE_NAME
    result = DeviceRequestAllocationResult(
        "req-1", DRIVER, NODE_NAME, device, share_id=share_id,
        consumed_capacity=((CAPACITY_NAME, Fraction(1)),) if consumed else ())
    c = claim(f"my-pod-my-resource-{uid}", request("req-1", CLASS_NAME))
    return dataclasses.replace(
        c, namespace="default", uid=uid, owner_pod_uid=POD_UID,
        allocation=AllocationResult((result,), local_node_selector(NODE_NAME)))


_CLAIMS = {
    "allocatedClaim": lambda: _allocated(),
    "allocatedClaimWithSharedDevice": lambda: _allocated("share-123", uid="shared-uid"),
    "allocatedClaimWithConsumedCapacity": lambda: _allocated("share-123", True, "cap-uid"),
    "allocatedClaimWithConsumedCapacity2": lambda: _allocated("share-456", True, "cap2-uid"),
}
_INSTANCE = (DRIVER, NODE_NAME, "instance-1")
_SHARED = (DRIVER, NODE_NAME, SHARED_DEVICE_NAME)


@pytest.mark.parametrize("allocated,inflight,capacity,want_ids,want_share_ids,want_consumed", [
    pytest.param((), (), False, 0, (), "", id="no-claims"),
    pytest.param(("allocatedClaim",), (), False, 1, (), "", id="single-allocated-claim"),
    pytest.param(("allocatedClaimWithSharedDevice",), (), True, 0, ("share-123",), "",
                 id="single-allocated-claim-with-shared-device"),
    pytest.param(("allocatedClaimWithConsumedCapacity",), (), True, 0, ("share-123",), "1",
                 id="single-allocated-claim-with-capacity"),
    pytest.param(("allocatedClaimWithConsumedCapacity",), (), False, 1, (), "",
                 id="disabled-single-allocated-claim-with-capacity"),
    pytest.param(("allocatedClaim", "allocatedClaimWithConsumedCapacity"), (), True, 1,
                 ("share-123",), "1", id="mixed-allocated-claim"),
    pytest.param(("allocatedClaim", "allocatedClaimWithConsumedCapacity"),
                 ("allocatedClaimWithConsumedCapacity2",), True, 1, ("share-123", "share-456"),
                 "2", id="add-inflight-allocated-claim-with-capacity"),
    pytest.param(("allocatedClaim", "allocatedClaimWithConsumedCapacity"),
                 ("allocatedClaimWithConsumedCapacity2",), False, 2, (), "",
                 id="disabled-inflight-allocated-claim-with-capacity"),
])
def test_gather_allocated_state(allocated: tuple[str, ...], inflight: tuple[str, ...],
                                capacity: bool, want_ids: int, want_share_ids: tuple[str, ...],
                                want_consumed: str) -> None:
    """dynamicresources_test.go TestGatherAllocatedState: ``GatherAllocatedState`` of a
    tracker whose allocated devices come from the allocated claims and whose in-flight
    allocations (``SignalClaimPendingAllocation``, key ``claim-2-uid``) from the others, with
    DRAConsumableCapacity as the case sets it.

    Compared: the number of dedicated devices (``AllocatedDevices``); the shared ones
    (``AllocatedSharedDeviceIDs``): upstream counts the share IDs (``wantShareIDs``, all on
    ``shared-instance``), the reference keeps their devices only (dra_manager.AllocatedState:
    structured/internal/allocatedstate.go reads nothing but ``GetDeviceID()`` of them), so the
    devices of the expected share IDs are compared; and the aggregated capacity of
    ``shared-instance``'s my-cap, none when the case expects none."""
    objs = DRAObjects(claims={f"{c.namespace}/{c.name}": c
                              for c in (_CLAIMS[n]() for n in allocated)})
    manager = DRAManager(objs)
    for name in inflight:
        manager.signal_claim_pending_allocation("claim-2-uid", _CLAIMS[name]())
    state = manager.gather_allocated_state(capacity)
    assert len(state.allocated) == want_ids
    assert state.shared == {_SHARED for _ in want_share_ids}
    if want_consumed:
        assert state.aggregated_capacity[_SHARED][CAPACITY_NAME] == Fraction(want_consumed)
    else:
        assert state.aggregated_capacity == {}
    if want_ids == 1 and allocated[:1] == ("allocatedClaim",):
        assert state.allocated == {_INSTANCE}


# --- TestIsSchedulableAfterClaimChange: the DeletedFinalStateUnknown cases -------------------

def _pod_with_claim_template() -> Pod:
    """``podWithClaimTemplate``."""
    return (make_pod("my-pod").namespace("default").uid(POD_UID)
            .resource_claim("my-resource", template="my-resource-template").obj())


@pytest.mark.parametrize("with_object", [
    pytest.param(True, id="queue-on-delete-final-state-unknown"),
    pytest.param(True, id="queue-on-delete-final-state-unknown-with-object"),
    pytest.param(False, id="queue-on-delete-final-state-unknown-without-object"),
])
def test_is_schedulable_after_claim_change_final_state_unknown(with_object: bool) -> None:
    """dynamicresources_test.go TestIsSchedulableAfterClaimChange: a delete whose final state
    is unknown (``cache.DeletedFinalStateUnknown`` with ``allocatedClaim`` or no object) is
    Queue without an error, whatever it holds (dynamicresources.go
    ``isSchedulableAfterClaimChange``: "play it safe and check pending pods")."""
    c = _allocated()
    tombstone = DeletedFinalStateUnknown(f"{c.namespace}/{c.name}", c if with_object else None)
    pl = _plugin(DynamicResourceAllocation=True)
    assert pl.is_schedulable_after_claim_change(_pod_with_claim_template(), tombstone,
                                                None) == ("Queue", None)


# --- TestAllocatorSelection ------------------------------------------------------------------

#: ``SupportedFeatures`` of each variant, most stable first (structured/allocator.go
#: ``availableAllocators``; internal/stable/allocator_stable.go,
#: internal/incubating/allocator_incubating.go, internal/experimental/allocator_experimental.go
#: of k8s.io/dynamic-resource-allocation v0.37.2)
_STABLE = {"AdminAccess", "PrioritizedList", "PartitionableDevices", "DeviceTaints"}
_INCUBATING = _STABLE | {"DeviceBindingAndStatus", "ConsumableCapacity",
                         "FractionalCapacityRange"}
_EXPERIMENTAL = _INCUBATING | {"ListTypeAttributes", "OptionalNodeOperations",
                               "DerivedAttributes", "CompatibilityGroups"}
_VARIANTS = (("stable", _STABLE), ("incubating", _INCUBATING),
             ("experimental", _EXPERIMENTAL))
#: what the experimental variant adds to the incubating one (the diff of
#: allocator_experimental.go and pools_experimental.go against the incubating files): only
#: the behaviour of its four alpha features, none of which the reference models
#: (docs/dra.md "Not modelled"); with those gates on, the reference runs the incubating
#: variant's rules
_REFERENCE_VARIANT = {"stable": "stable", "incubating": "incubating",
                      "experimental": "incubating"}


def _set_gates(spec: str, release: ReleaseData) -> dict[str, bool]:
    """``featureGate.Set(spec)`` (k8s.io/component-base featuregate/feature_gate.go): each named
    gate; AllAlpha / AllBeta set the Alpha / Beta gates not named (``setUnsetAlphaGates``,
    ``setUnsetBetaGates``); the others keep their defaults."""
    values = {k: v == "true" for k, v in (kv.split("=") for kv in spec.split(",") if kv)}
    stages = {"Alpha": values.pop("AllAlpha", None), "Beta": values.pop("AllBeta", None)}
    out = {}
    for gate, stage in release.feature_gate_stages.items():
        value = values.pop(gate, stages.get(stage))
        if value is not None:
            out[gate] = value
    assert not values, f"gates unknown to {release.release}: {values}"
    return out


def _allocator_features(pl: DynamicResources, handle: FakeHandle) -> set[str]:
    """``AllocatorFeatures(fts)`` (dynamicresources.go): the fields of ``structured.Features``
    that are true, read from the plugin's flags; the four alpha features the plugin does not
    read (not modelled) from their gates, as reference_impl/dra/variants.py does."""
    flags = {
        "AdminAccess": pl.enable_admin_access,
        "PrioritizedList": pl.enable_dra_prioritized_list,
        "PartitionableDevices": pl.enable_partitionable_devices,
        "DeviceTaints": pl.enable_device_taints,
        "DeviceBindingAndStatus": pl.enable_binding_conditions,
        "ConsumableCapacity": pl.enable_consumable_capacity,
        "FractionalCapacityRange": pl.enable_fractional_capacity_range,
        "ListTypeAttributes": handle.feature_enabled("DRAListTypeAttributes"),
        "OptionalNodeOperations": handle.feature_enabled("DRAOptionalNodeOperations"),
        "DerivedAttributes": handle.feature_enabled("DRADerivedAttributes"),
        "CompatibilityGroups": handle.feature_enabled("DRADeviceCompatibilityGroups"),
    }
    return {name for name, on in flags.items() if on}


_SELECTION_CASES = [
    # name, features, usingFeatureGroup, expectImplementation
    ("only-GA", "AllAlpha=false,AllBeta=false", True, "stable"),
    ("default", "", True, "incubating"),
    ("alpha", "AllAlpha=true,AllBeta=true", True, "experimental"),
    ("AdminAccess", "AllAlpha=false,AllBeta=false,DRAAdminAccess=true", False, "stable"),
    ("CompatibilityGroups", "AllAlpha=false,AllBeta=false,DRADeviceCompatibilityGroups=true,"
     "DRAPartitionableDevices=true", False, "experimental"),
    ("ConsumableCapacity", "AllAlpha=false,AllBeta=false,DRAConsumableCapacity=true", False,
     "incubating"),
    ("DeviceBindingAndStatus", "AllAlpha=false,AllBeta=false,DRAResourceClaimDeviceStatus=true,"
     "DRADeviceBindingConditions=true", False, "incubating"),
    ("DeviceTaints", "AllAlpha=false,AllBeta=false,DRADeviceTaints=true", False, "stable"),
    ("ListTypeAttributes", "AllAlpha=false,AllBeta=false,DRAListTypeAttributes=true", False,
     "experimental"),
    ("OptionalNodeOperations", "AllAlpha=false,AllBeta=false,DRAOptionalNodeOperations=true",
     False, "experimental"),
    ("PartitionableDevices", "AllAlpha=false,AllBeta=false,DRAPartitionableDevices=true", False,
     "stable"),
    ("FractionalCapacityRange", "AllAlpha=false,AllBeta=false,DRAConsumableCapacity=true,"
     "DRAFractionalCapacityRange=true", False, "incubating"),
    ("PrioritizedList", "AllAlpha=false,AllBeta=false,DRAPrioritizedList=true", False,
     "stable"),
    ("DerivedAttributes", "AllAlpha=false,AllBeta=false,DRADerivedAttributes=true", False,
     "experimental"),
]


def _plugin_for(spec: str) -> tuple[DynamicResources, FakeHandle]:
    release = load("v1.37.2")
    handle = FakeHandle(release=release.with_gates(_set_gates(spec, release)))
    return DynamicResources(None, handle), handle


@pytest.mark.parametrize("features,expect", [
    pytest.param(spec, expect, id=name) for name, spec, _, expect in _SELECTION_CASES])
def test_allocator_selection(features: str, expect: str) -> None:
    """dynamicresources_test.go TestAllocatorSelection. Upstream asserts which variant
    ``structured.NewAllocator`` picks for ``AllocatorFeatures`` of the gates: the first, most
    stable first, whose ``SupportedFeatures`` cover them. The reference has one allocator
    with switches (reference_impl/dra/variants.py); restated: the features the plugin derives
    select ``expect`` by upstream's rule, and the plugin's switches are the selected
    variant's: the stable variant neither tries the pools with binding conditions last
    (``binding_pools_last``; GatherPools of pools_stable.go does not sort) nor refuses
    capacity requests while DRAConsumableCapacity is off (``capacity_gate_check`` "none";
    allocator_stable.go does not know them); incubating and experimental do both.

    Marked: the experimental variant (cases "alpha", "CompatibilityGroups",
    "ListTypeAttributes", "OptionalNodeOperations", "DerivedAttributes") differs from the
    incubating one only in those four alpha features' behaviour, which the reference cannot
    express (not modelled): it runs the incubating variant's rules there
    (``_REFERENCE_VARIANT``)."""
    pl, handle = _plugin_for(features)
    enabled = _allocator_features(pl, handle)
    selected = next(name for name, supported in _VARIANTS if enabled <= supported)
    assert selected == expect, enabled
    beyond_stable = _REFERENCE_VARIANT[expect] != "stable"
    assert pl.binding_pools_last is beyond_stable
    assert (pl.capacity_gate_check != "none") is beyond_stable
    if beyond_stable:
        assert pl.capacity_gate_check == handle.behaviour("dra-capacity-gate-message")


def test_allocator_selection_covers_every_feature() -> None:
    """dynamicresources_test.go TestAllocatorSelection, its final check: every field of
    ``structured.Features`` is set by at least one dedicated case (not a feature group)."""
    covered: set[str] = set()
    for _, spec, group, _ in _SELECTION_CASES:
        if not group:
            covered |= _allocator_features(*_plugin_for(spec))
    assert covered == _EXPERIMENTAL
