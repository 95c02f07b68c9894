"""Device binding conditions (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus, on
by default in v1.36.3 and v1.37.2): the cases of upstream's tables on them, each under its
upstream name.

- The allocator: k8s.io/dynamic-resource-allocation v0.37.2,
  structured/internal/allocatortesting/allocator_testing.go (``TestAllocator``), cases
  "device-binding-conditions", "binding-conditions-multiple-devices",
  "binding-conditions-with-and-without", "binding-conditions-without-feature-gate" and
  "node-restriction".
- The plugin: k8s.io/kubernetes v1.37.2,
  pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go (``TestPlugin``),
  cases "dont-add-allocation-timestamp", "add-allocation-timestamp",
  "bind-claim-with-binding-conditions", "bound-claim-with-succeeded-binding-conditions",
  "bound-claim-with-failed-binding", "bound-claim-with-timed-out-binding",
  "prebind-fail-with-binding-timeout", "bound-claim-with-mixed-binding-conditions",
  "bound-claim-without-binding-conditions", "multi-claims-binding-conditions-all-success" and
  "multi-claims-binding-conditions-one-fail".

The plugin's clock (``BindingClock``) starts at a fixed time (its ``epoch``) so that timeouts are
decided exactly; upstream's tests use ``time.Now()``.
"""

from __future__ import annotations

import dataclasses

from reference_impl.config.args import DynamicResourcesArgs
from reference_impl.dra.allocator import Allocator
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.dra import (
    AllocatedDeviceStatus,
    AllocationResult,
    DeviceCondition,
    DeviceRequestAllocationResult,
    DRAObjects,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceSlice,
)
from reference_impl.model.objects import Pod
from reference_impl.plugins.dynamicresources import DynamicResources
from reference_impl.plugins.dynamicresources.bindingconditions import (
    PAST_DEADLINE_SECONDS,
    BindingClock,
    wait_for_binding,
)
from reference_impl.testing.dra import (
    claim,
    device,
    device_class,
    local_node_selector,
    node,
    node_label_selector,
    request,
    slice_with_devices,
)
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod

# --- the allocator ---------------------------------------------------------------------------

DRIVER_A, CLASS_A, NODE_1, POOL_1 = "driver-a", "class-a", "node-1", "pool-1"


def _bc(name: str, cond: str = "IsPrepare", failed: str = "BindingFailed") -> object:
    return dataclasses.replace(device(name), binding_conditions=(cond,),
                               binding_failure_conditions=(failed,))


def _allocate(slices: list[ResourceSlice], c: ResourceClaim, binding: bool = True
              ) -> list[AllocationResult] | None:
    a = Allocator(set(), {CLASS_A: device_class(CLASS_A, DRIVER_A)}, slices,
                  device_binding_and_status=binding)
    return a.allocate(node(NODE_1, "region-1"), [c])


def _res(req: str, dev: str, cond: str = "", failed: str = "") -> DeviceRequestAllocationResult:
    """``deviceRequestAllocationResultWithBindingConditions`` (``deviceAllocationResult``
    without conditions)."""
    return DeviceRequestAllocationResult(
        req, DRIVER_A, POOL_1, dev, binding_conditions=(cond,) if cond else (),
        binding_failure_conditions=(failed,) if failed else ())


def test_device_binding_conditions() -> None:
    """"device-binding-conditions": the result carries the device's conditions."""
    got = _allocate([slice_with_devices("slice-1", NODE_1, POOL_1, DRIVER_A, _bc("device-1"))],
                    claim("claim-0", request("req-0", CLASS_A)))
    assert got == [AllocationResult(
        (_res("req-0", "device-1", "IsPrepare", "BindingFailed"),), local_node_selector(NODE_1))]


def test_binding_conditions_multiple_devices() -> None:
    """"binding-conditions-multiple-devices": each result its own device's conditions."""
    s = slice_with_devices("slice-1", NODE_1, POOL_1, DRIVER_A,
                           _bc("device-1"), _bc("device-2", "IsPrepare2", "BindingFailed2"),
                           _bc("device-3", "IsPrepare3", "BindingFailed3"))
    got = _allocate([s], claim("claim-0", request("req-0", CLASS_A, 2),
                               request("req-1", CLASS_A, 1)))
    assert got is not None
    assert set(got[0].results) == {
        _res("req-0", "device-1", "IsPrepare", "BindingFailed"),
        _res("req-0", "device-2", "IsPrepare2", "BindingFailed2"),
        _res("req-1", "device-3", "IsPrepare3", "BindingFailed3")}


def test_binding_conditions_with_and_without() -> None:
    """"binding-conditions-with-and-without"."""
    s = slice_with_devices("slice-1", NODE_1, POOL_1, DRIVER_A, device("device-1"),
                           _bc("device-2"))
    got = _allocate([s], claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A)))
    assert got is not None
    assert set(got[0].results) == {_res("req-0", "device-1"),
                                   _res("req-1", "device-2", "IsPrepare", "BindingFailed")}


def test_binding_conditions_without_feature_gate() -> None:
    """"binding-conditions-without-feature-gate": such a device is not selectable."""
    s = slice_with_devices("slice-1", NODE_1, POOL_1, DRIVER_A, _bc("device-1"))
    assert _allocate([s], claim("claim-0", request("req-0", CLASS_A)), binding=False) is None


def test_node_restriction() -> None:
    """"node-restriction": a device with bindsToNode in a slice selecting nodes by label is
    allocated for the node by name."""
    d = dataclasses.replace(device("device-1"), binds_to_node=True)
    s = slice_with_devices("slice-1", node_label_selector("planet", "earth"), POOL_1,
                           DRIVER_A, d)
    n = dataclasses.replace(node(NODE_1, "region-1"))
    n = dataclasses.replace(n, labels={**n.labels, "planet": "earth"})
    a = Allocator(set(), {CLASS_A: device_class(CLASS_A, DRIVER_A)}, [s])
    got = a.allocate(n, [claim("claim-0", request("req-0", CLASS_A))])
    assert got == [AllocationResult((_res("req-0", "device-1"),), local_node_selector(NODE_1))]


# --- the plugin ------------------------------------------------------------------------------

DRIVER, DRIVER_2, CLASS, WORKER, POD_UID = "some-driver", "some-driver-2", "my-resource-class", \
    "worker", "1234"
NOW = 1_800_000_000.0  # the pinned wall clock
TIMEOUT = 600.0


def _pod(two: bool = False) -> Pod:
    """``podWithClaimName`` / ``podWithTwoClaimNames``."""
    w = (make_pod("my-pod").namespace("default").uid(POD_UID)
         .resource_claim("my-resource", claim="my-pod-my-resource"))
    if two:
        w = w.resource_claim("my-resource-2", claim="my-pod-my-resource-2")
    return w.obj()


def _pending(name: str = "my-pod-my-resource", req: str = "req-1") -> ResourceClaim:
    c = claim(name, request(req, CLASS))
    return dataclasses.replace(c, namespace="default", uid=f"{name}-uid", owner_pod_uid=POD_UID)


def _fabric_slice(driver: str = DRIVER, dev: str = "instance-1") -> ResourceSlice:
    """``fabricSlice`` / ``fabricSlice2``: one device with bindsToNode, binding condition
    ``condition`` and failure condition ``failed``, in a slice selecting the worker by
    name."""
    d = dataclasses.replace(device(dev), binds_to_node=True, binding_conditions=("condition",),
                            binding_failure_conditions=("failed",))
    return slice_with_devices(f"{driver}-slice", local_node_selector(WORKER), WORKER, driver, d)


def _worker_slice() -> ResourceSlice:
    """``workerNodeSlice``."""
    return slice_with_devices("worker-slice", WORKER, WORKER, DRIVER, device("instance-1"))


def _bc_allocation(timestamp: float | None, driver: str = DRIVER, dev: str = "instance-1",
                   req: str = "req-1") -> AllocationResult:
    """``allocationResultWithBindingConditions`` (``...2``)."""
    return AllocationResult((DeviceRequestAllocationResult(
        req, driver, WORKER, dev, binding_conditions=("condition",),
        binding_failure_conditions=("failed",)),), local_node_selector(WORKER), timestamp)


def _status(driver: str = DRIVER, dev: str = "instance-1", **conds: str
            ) -> AllocatedDeviceStatus:
    return AllocatedDeviceStatus(driver, WORKER, dev, tuple(
        DeviceCondition(t, s) for t, s in conds.items()))


def _bc_claim(timestamp: float | None, *statuses: AllocatedDeviceStatus,
              second: bool = False) -> ResourceClaim:
    """``boundClaim`` / ``failedBindingClaim`` and their ``2`` variants, by the statuses."""
    if second:
        return dataclasses.replace(
            _pending("my-pod-my-resource-2", "req-2"),
            allocation=_bc_allocation(timestamp, DRIVER_2, "instance-2", "req-2"),
            devices=statuses)
    return dataclasses.replace(_pending(), allocation=_bc_allocation(timestamp),
                               devices=statuses)


SUCCEEDED = {"condition": "True", "failed": "False"}
FAILED = {"condition": "False", "failed": "True"}


def _plugin(*claims: ResourceClaim, slices: tuple = (), gates: bool = True,
            timeout: float = TIMEOUT) -> DynamicResources:
    objs = DRAObjects(device_classes={CLASS: device_class(CLASS, DRIVER)},
                      claims={f"{c.namespace}/{c.name}": c for c in claims},
                      slices=list(slices))
    handle = FakeHandle(nodes=[make_node(WORKER).obj()], dra=objs,
                        features={"DRADeviceBindingConditions": gates,
                                  "DRAResourceClaimDeviceStatus": gates})
    pl = DynamicResources(DynamicResourcesArgs(binding_timeout_seconds=timeout), handle)
    pl.binding_clock = BindingClock(epoch=NOW)
    return pl


def _to_filter(pl: DynamicResources, pod: Pod) -> tuple[CycleState, Status | None]:
    state = CycleState()
    assert pl.pre_enqueue(pod) is None
    _, st = pl.pre_filter(state, pod, [NodeInfo(make_node(WORKER).obj())])
    assert st is None, st
    return state, pl.filter(state, pod, NodeInfo(make_node(WORKER).obj()))


def _prebind(pl: DynamicResources, pod: Pod) -> Status | None:
    state, st = _to_filter(pl, pod)
    assert st is None, st
    assert pl.reserve(state, pod, WORKER) is None
    return pl.pre_bind(state, pod, WORKER)


def _claim(pl: DynamicResources, name: str = "my-pod-my-resource") -> ResourceClaim:
    return pl.dra_manager.objects.claims[f"default/{name}"]


RESERVED = (ResourceClaimConsumerReference("pods", "my-pod", POD_UID),)
NOT_AVAILABLE = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                       "resourceclaim not available on the node")
DEALLOCATED = (None, Status(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed"))


def test_dont_add_allocation_timestamp() -> None:
    """"dont-add-allocation-timestamp": without the gate, no allocationTimestamp."""
    pl = _plugin(_pending(), slices=(_worker_slice(),), gates=False)
    assert _prebind(pl, _pod()) is None
    got = _claim(pl)
    assert got.allocation is not None and got.allocation.allocation_timestamp is None
    assert got.reserved_for == RESERVED


def test_add_allocation_timestamp() -> None:
    """"add-allocation-timestamp": PreBind stamps the allocation (bindClaim)."""
    pl = _plugin(_pending(), slices=(_worker_slice(),))
    assert _prebind(pl, _pod()) is None
    got = _claim(pl)
    assert got.allocation is not None and got.allocation.allocation_timestamp == NOW
    assert got.reserved_for == RESERVED
    assert pl.dra_manager.get_pending_allocation(got.uid) is None


def test_bind_claim_with_binding_conditions() -> None:
    """"bind-claim-with-binding-conditions" (bindingTimeout 1s): the allocation carries the
    device's conditions; nobody sets them, so PreBind's wait runs into its deadline. The claim
    stays allocated and reserved, the allocation in flight (no success cleanup)."""
    pl = _plugin(_pending(), slices=(_fabric_slice(),), timeout=1.0)
    assert _prebind(pl, _pod()) == Status.as_error(
        "device binding timeout: context deadline exceeded")
    got = _claim(pl)
    assert got.allocation == _bc_allocation(NOW)
    assert got.reserved_for == RESERVED
    assert pl.dra_manager.get_pending_allocation(got.uid) is not None
    assert pl.binding_clock.waited == 1.0 + PAST_DEADLINE_SECONDS


def test_bound_claim_with_succeeded_binding_conditions() -> None:
    """"bound-claim-with-succeeded-binding-conditions": all conditions True, PreBind
    succeeds."""
    pl = _plugin(_bc_claim(0.0, _status(**SUCCEEDED)))
    assert _prebind(pl, _pod()) is None
    assert _claim(pl).reserved_for == RESERVED
    assert pl.binding_clock.waited == 0.0


def test_bound_claim_with_failed_binding() -> None:
    """"bound-claim-with-failed-binding": a failure condition True makes the claim
    unavailable; PostFilter deallocates it and drops its device statuses."""
    pl = _plugin(_bc_claim(0.0, _status(**FAILED)), slices=(_worker_slice(),))
    state, st = _to_filter(pl, _pod())
    assert st == NOT_AVAILABLE
    assert pl.post_filter(state, _pod(), None) == DEALLOCATED
    got = _claim(pl)
    assert got.allocation is None and got.devices == ()


def test_bound_claim_with_timed_out_binding() -> None:
    """"bound-claim-with-timed-out-binding": allocated 10 minutes ago (a bit more: upstream's
    clock moved on), no conditions reported."""
    pl = _plugin(_bc_claim(NOW - TIMEOUT - 1, _status()))
    state, st = _to_filter(pl, _pod())
    assert st == NOT_AVAILABLE
    assert pl.post_filter(state, _pod(), None) == DEALLOCATED
    assert _claim(pl).allocation is None


def test_prebind_fail_with_binding_timeout() -> None:
    """"prebind-fail-with-binding-timeout": not timed out at Filter, timed out 10s later,
    found at the tick after (15s) by isPodReadyForBinding."""
    pl = _plugin(_bc_claim(NOW - TIMEOUT + 10, _status()))
    assert _prebind(pl, _pod()) == Status.as_error(
        "device binding timeout: claim=my-pod-my-resource")
    assert _claim(pl).reserved_for == RESERVED
    assert pl.binding_clock.waited == 15.0


def test_bound_claim_with_mixed_binding_conditions() -> None:
    """"bound-claim-with-mixed-binding-conditions": one condition True, one False, timed
    out."""
    pl = _plugin(_bc_claim(NOW - TIMEOUT - 1, _status(condition1="True", condition2="False")))
    state, st = _to_filter(pl, _pod())
    assert st == NOT_AVAILABLE
    assert pl.post_filter(state, _pod(), None) == DEALLOCATED


def test_bound_claim_without_binding_conditions() -> None:
    """"bound-claim-without-binding-conditions": an allocation without binding conditions
    binds as if they were met, with the timestamp added."""
    c = dataclasses.replace(_pending(), allocation=AllocationResult((
        DeviceRequestAllocationResult("req-1", DRIVER, WORKER, "instance-1"),),
        local_node_selector(WORKER)))
    pl = _plugin(c)
    assert _prebind(pl, _pod()) is None
    got = _claim(pl)
    assert got.allocation is not None and got.allocation.allocation_timestamp == NOW
    assert got.reserved_for == RESERVED


def test_multi_claims_binding_conditions_all_success() -> None:
    """"multi-claims-binding-conditions-all-success"."""
    pl = _plugin(_bc_claim(0.0, _status(**SUCCEEDED)),
                 _bc_claim(0.0, _status(DRIVER_2, "instance-2", **SUCCEEDED), second=True),
                 slices=(_fabric_slice(), _fabric_slice(DRIVER_2, "instance-2")))
    assert _prebind(pl, _pod(two=True)) is None
    assert _claim(pl).reserved_for == RESERVED
    assert _claim(pl, "my-pod-my-resource-2").reserved_for == RESERVED


def test_multi_claims_binding_conditions_one_fail() -> None:
    """"multi-claims-binding-conditions-one-fail": the failed claim is deallocated, the other
    kept."""
    ok = _bc_claim(0.0, _status(**SUCCEEDED))
    pl = _plugin(ok, _bc_claim(0.0, _status(DRIVER_2, "instance-2", **FAILED), second=True),
                 slices=(_fabric_slice(), _fabric_slice(DRIVER_2, "instance-2")))
    state, st = _to_filter(pl, _pod(two=True))
    assert st == NOT_AVAILABLE
    assert pl.post_filter(state, _pod(two=True), None) == DEALLOCATED
    assert _claim(pl, "my-pod-my-resource-2").allocation is None
    assert _claim(pl) == ok


# --- the wait on its own ---------------------------------------------------------------------

def test_the_wait_ends_at_the_deadline_when_a_tick_coincides_with_it() -> None:
    """loopConditionUntilContext checks ctx.Err() after each tick: with a 10s timeout the tick
    at 10s finds the deadline passed, even though the claim timed out by then."""
    c = _bc_claim(NOW, _status())
    clock = BindingClock(epoch=NOW)
    assert wait_for_binding([c], 10.0, clock) == \
        "device binding timeout: context deadline exceeded"
    assert clock.waited == 10.0 + PAST_DEADLINE_SECONDS


def test_a_failure_condition_ends_the_wait_at_once() -> None:
    """isClaimReadyForBinding: a True failure condition is ErrDeviceBindingFailed, with the
    condition's reason and message (%q)."""
    c = dataclasses.replace(_bc_claim(NOW), devices=(AllocatedDeviceStatus(
        DRIVER, WORKER, "instance-1", (DeviceCondition("failed", "True", "Broken", 'no "x"'),)),))
    clock = BindingClock(epoch=NOW)
    assert wait_for_binding([c], TIMEOUT, clock) == \
        'device binding failed: claim=my-pod-my-resource, reason=Broken, message="no \\"x\\""'
    assert clock.waited == 0.0
