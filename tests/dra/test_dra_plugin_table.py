"""The cases of upstream's DynamicResources ``TestPlugin`` table not restated in
test_dra_plugin.py (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go,
v1.37.2, ``testPlugin``), each under its upstream name, run by :func:`run_case` (plugin_table.py)
as ``testPlugin`` runs them, with the features its ``feature.Features`` sets.

Differences in what is observed, throughout: finalizers are not compared (``normalized``; the
``with-resources-finalizer-*`` cases check the same as ``with-resources``, PreBind's finalizer is
checked in test_dra_claim_finalizer.py); pod groups are
not modelled (with DRAWorkloadResourceClaims off upstream ignores the pod's group, so a grouped
pod is ``podWithClaimName`` and a claim owned by the PodGroup has no pod owner); the claim the
API server creates for extended resources is named ``my-pod-extended-resources-0`` as the fake
client names it (``normalized``); upstream's ``verify`` compares any non-success status by its
error string only, the statuses here are the ones the Go code returns, code and message.

Not restated:

- DRAWorkloadResourceClaims (alpha, with GenericWorkload): ``podgroup-claim-reference``,
  ``podgroup-claim-template``, ``podgroup-with-resources``, ``bind-podgroup-failure``,
  ``postfilter-deallocate-reserved-podgroup``, ``postfilter-deallocate-unreserved-podgroup``,
  ``postfilter-skip-deallocate-reserved-podgroup-when-pods-active``, ``reserved-okay-podgroup``.
- DRAOptionalNodeOperations (alpha; the reference has no ``skipNodeOperations`` in allocation
  results nor ``node.status.declaredFeatures``): ``allocated-skip-node-operations-missing-feature``,
  ``allocated-skip-node-operations-with-feature``.
- DRANodeAllocatableResources (alpha): ``node-allocatable-resource-multiplier``,
  ``node-allocatable-mapping-and-overhead-in-same-device``,
  ``node-allocatable-resource-capacitykey``,
  ``node-allocatable-resource-capacitykey-and-multiplier``,
  ``node-allocatable-resource-insufficient-resources-with-multiplier``,
  ``node-allocatable-resource-insufficient-with-capacityKey``,
  ``node-allocatable-direct-mapped-sharing-rejected``,
  ``node-allocatable-mapping-and-overhead-sharing-rejected``,
  ``node-allocatable-overhead-only-sharing-allowed``,
  ``node-allocatable-unreferenced-claim-direct-mapped``,
  ``node-allocatable-unreferenced-claim-overhead``.
- The Filter's deadline and a canceled context (``FilterTimeout``, dynamicresources.go 1064-1079)
  are not modelled: the reference's Filter is synchronous and never times out: ``canceled``,
  ``timeout``.
- Failing API calls (the fake client's ``failPatch`` and reactors) are not modelled: the
  reference's PreBind writes into the cluster's store, which cannot fail:
  ``extended-resource-name-with-resources-fail-patch``,
  ``extended-resource-name-claim-creation-failure``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from reference_impl.config.args import DynamicResourcesArgs
from reference_impl.framework.status import Code, Status
from reference_impl.model.dra import (
    AllocationResult,
    DeviceClass,
    DeviceRequestAllocationResult,
    DeviceSelector,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceSlice,
)
from reference_impl.model.objects import Node
from reference_impl.plugins.dynamicresources.extendeddynamicresources import (
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    SPECIAL_CLAIM_IN_MEM_NAME,
)
from reference_impl.testing.dra import (
    device,
    local_node_selector,
    node_label_selector,
    request,
    slice_with_devices,
)
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod
from tests.dra.plugin_table import (
    CLASS,
    DRIVER,
    POD_UID,
    WORKER,
    Case,
    Result,
    Run,
    admin_access,
    allocated_claim,
    other_allocated_claim,
    pending_claim,
    pod_with_claim_name,
    run_case,
    stamped,
    unresolvable,
    worker_node_slice,
)

HOSTNAME = "kubernetes.io/hostname"
EXT = "example.com/gpu"
EXT2 = "example.com/gpu2"
IMPLICIT = "deviceclass.resource.kubernetes.io/my-resource-class"
CLAIM_KEY = "default/my-pod-my-resource"
BROKEN = f'device.attributes["{DRIVER}"].healthy'
#: cel.EnhanceRuntimeError's hint (k8s.io/dynamic-resource-allocation v0.37.2 cel/errors.go)
HINT = (". consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
        "with has() for optional fields")
CEL_ERROR = (f"selector #0 on device {DRIVER}/worker/instance-1: CEL runtime error: no such key: "
             f"healthy{HINT}")
SKIP = Status(Code.SKIP)


# --- more fixtures of dynamicresources_test.go -------------------------------------------------

def node(name: str = WORKER, capacity: dict[str, str] | None = None) -> Node:
    """``workerNode`` (``workerNode2``, ...): the hostname label; ``workerNodeWithExtendedResource``
    and ``...ZeroAllocatable`` with capacity."""
    w = make_node(name).hostname()
    if capacity:
        w = w.capacity(capacity)
    return w.obj()


def device_class_plain(name: str = CLASS, extended: str | None = None) -> DeviceClass:
    """``deviceClass``: no selectors; ``deviceClassWithExtendResourceName`` (2)."""
    return DeviceClass(name, extended_resource_name=extended)


def healthy_slice(node_name: str) -> ResourceSlice:
    """``workerNode2Slice`` / ``workerNode3Slice``: ``instance-1`` with ``healthy: true``."""
    return slice_with_devices(f"{node_name}-slice", node_name, node_name, DRIVER,
                              device("instance-1", attributes={"healthy": True}))


def large_worker_node_slice() -> ResourceSlice:
    """``largeWorkerNodeSlice``: four devices."""
    return slice_with_devices("worker-slice", WORKER, WORKER, DRIVER,
                              *(device(f"instance-{i}") for i in range(1, 5)))


def reserve(c: ResourceClaim) -> ResourceClaim:
    """``reserve(claim, pod)``: reserved for my-pod."""
    return dataclasses.replace(c, reserved_for=(
        ResourceClaimConsumerReference("pods", "my-pod", POD_UID),))


def in_use(c: ResourceClaim) -> Callable[[ResourceClaim], ResourceClaim]:
    """PreBind's change of the pod's claim: ``c`` with the allocation timestamp, reserved."""
    return lambda x: stamped(reserve(c)) if x.name == c.name else x


def break_cel_in_claim(c: ResourceClaim) -> ResourceClaim:
    """``breakCELInClaim``."""
    reqs = tuple(dataclasses.replace(r, exactly=dataclasses.replace(
        r.exactly, selectors=(DeviceSelector(BROKEN),))) for r in c.spec.requests
        if r.exactly is not None)
    return dataclasses.replace(c, spec=dataclasses.replace(c.spec, requests=reqs))


def pod_group_claim(c: ResourceClaim) -> ResourceClaim:
    """``pendingPodGroupClaim`` / ``allocatedPodGroupClaim``: owned by the PodGroup, not by a
    pod."""
    return dataclasses.replace(c, owner_pod_uid=None)


def ext_pod(*containers: dict[str, int]) -> object:
    """``podWithExtendedResourceName`` and the like: one container per mapping."""
    w = make_pod("my-pod").namespace("default").uid(POD_UID)
    for c in containers:
        w = w.req(c)
    return w.obj()


def ext_claim(requests: tuple[tuple[str, str, int], ...], results: tuple[tuple[str, str], ...],
              name: str = "my-pod-extended-resources-0",
              node_name: str = WORKER) -> ResourceClaim:
    """``extendedResourceClaim`` and its variants: (request, class, count) and the results
    (request, device); ``name`` SPECIAL_CLAIM_IN_MEM_NAME for the ``...NoName`` variants."""
    return ResourceClaim(
        "default", name, "",
        spec=dataclasses.replace(pending_claim().spec, requests=tuple(
            request(r, cls, n) for r, cls, n in requests)),
        allocation=AllocationResult(tuple(DeviceRequestAllocationResult(r, DRIVER, WORKER, d)
                                          for r, d in results),
                                    local_node_selector(node_name)),
        annotations=((EXTENDED_RESOURCE_CLAIM_ANNOTATION, "true"),), owner_pod_uid=POD_UID)


def extended_claim(name: str = "my-pod-extended-resources-0") -> ResourceClaim:
    """``extendedResourceClaim`` / ``extendedResourceClaimNoName``."""
    return ext_claim((("container-0-request-0", CLASS, 1),),
                     (("container-0-request-0", "instance-1"),), name)


def with_resources(**extra: object) -> Case:
    """``with-resources``' objects and wants: Reserve puts the allocation in flight, PreBind
    writes it with the reservation and the allocation timestamp."""
    return Case(pod=pod_with_claim_name(), claims=(pending_claim(),),
                classes=(device_class_plain(),), slices=(worker_node_slice(),),
                want={"reserve": Result(in_flight=(allocated_claim(),)),
                      "prebind": Result(changes=in_use(allocated_claim()))},
                **extra)  # type: ignore[arg-type]


def ext_with_resources(pod: object, in_flight: ResourceClaim, created: ResourceClaim,
                       slices: tuple[ResourceSlice, ...] = (), **extra: object) -> Case:
    """The extended resource cases that allocate: Reserve puts the node's variant of the
    in-memory claim in flight, PreBind creates it allocated and reserved."""
    want = {"reserve": Result(in_flight=(in_flight,)),
            "prebind": Result(added=(stamped(reserve(created)),))}
    return Case(pod=pod, classes=(device_class_plain(extended=EXT),),  # type: ignore[arg-type]
                slices=slices or (worker_node_slice(),),
                features={"DRAExtendedResource": True},
                want={**want, **extra.pop("want", {})},  # type: ignore[dict-item]
                **extra)  # type: ignore[arg-type]


def _implicit(two_containers: bool) -> Case:
    """``implicit-extended-resource-name-with-resources`` / ``...-two-containers-...``."""
    second = "container-1-request-0" if two_containers else "container-0-request-1"
    pod = (ext_pod({IMPLICIT: 1}, {EXT: 2}) if two_containers
           else ext_pod({IMPLICIT: 1, EXT: 2}))

    def claim_(name: str) -> ResourceClaim:
        return ext_claim((("container-0-request-0", CLASS, 1), (second, CLASS, 2)),
                         (("container-0-request-0", "instance-1"), (second, "instance-2"),
                          (second, "instance-3")), name)

    return ext_with_resources(pod, claim_(SPECIAL_CLAIM_IN_MEM_NAME),
                              claim_("my-pod-extended-resources-0"),
                              slices=(large_worker_node_slice(),))


def _ext_stale(node_name: str) -> Case:
    """``extended-resource-name-with-resources-has-claim`` / ``...-delete-claim``: the pod's
    extended resource claim of an earlier cycle; PostFilter deletes it."""
    stale = ext_claim((("container-0-request-0", CLASS, 1),),
                      (("container-0-request-0", "instance-1"),), node_name=node_name)
    return Case(pod=ext_pod({EXT: 1}), claims=(stale,),
                classes=(device_class_plain(extended=EXT),), slices=(worker_node_slice(),),
                features={"DRAExtendedResource": True},
                want={f"filter/{WORKER}": Result(status=unresolvable(
                    "cannot schedule extended resource claim")),
                      "postfilter": Result(status=Status(
                          Code.UNSCHEDULABLE, "deletion of ResourceClaim completed"),
                          removed=("default/my-pod-extended-resources-0",))})


def _cel(claim_broken: bool, nodes: int) -> Case:
    """The ``*-CEL-runtime-error*`` cases: Filter on the worker ends in an Error (statusError,
    dynamicresources.go 1079-1090), which aborts scheduling; upstream's wants for one of
    three nodes say UnschedulableAndUnresolvable, but verify compares error strings only."""
    names = [WORKER, "worker-2", "worker-3"][:nodes]
    slices = (worker_node_slice(), *(healthy_slice(n) for n in names[1:]))
    cls = device_class_plain()
    if not claim_broken:
        cls = dataclasses.replace(cls, selectors=(DeviceSelector(BROKEN),))
    c = break_cel_in_claim(pending_claim()) if claim_broken else pending_claim()
    prefix = f"claim {CLAIM_KEY}" if claim_broken else f"class {CLASS}"
    return Case(pod=pod_with_claim_name(), claims=(c,), classes=(cls,), slices=slices,
                nodes=tuple(node(n) for n in names),
                want={f"filter/{WORKER}": Result(status=Status.as_error(
                    f"{prefix}: {CEL_ERROR}"))})


def _bind_conditions_slice() -> ResourceSlice:
    """``fabricSlice``: instance-1 binds to the node, with binding (failure) conditions; the
    slice's node selector names the worker."""
    d = dataclasses.replace(device("instance-1", binding_conditions=("condition",)),
                            binds_to_node=True, binding_failure_conditions=("failed",))
    return slice_with_devices("worker-slice", local_node_selector(WORKER), WORKER, DRIVER, d)


def _bind_claim() -> ResourceClaim:
    """``bindClaim``: allocated with the device's binding conditions (no timestamp yet)."""
    c = allocated_claim()
    assert c.allocation is not None
    return dataclasses.replace(c, allocation=dataclasses.replace(c.allocation, results=tuple(
        dataclasses.replace(r, binding_conditions=("condition",),
                            binding_failure_conditions=("failed",))
        for r in c.allocation.results)))


def _good_topology() -> ResourceClaim:
    """``allocatedClaimWithGoodTopology``: only a node selector, hostname In worker."""
    return dataclasses.replace(pending_claim(), allocation=AllocationResult(
        (), node_label_selector(HOSTNAME, WORKER)))


def _pod_group_wrong_topology() -> ResourceClaim:
    """``allocatedPodGroupClaimWithWrongTopology``: reserved for the PodGroup."""
    return dataclasses.replace(pod_group_claim(pending_claim()), allocation=AllocationResult(
        (), node_label_selector("no-such-label", "no-such-value")),
        reserved_for=(ResourceClaimConsumerReference(
            "podgroups", "my-podgroup", "5678", api_group="scheduling.k8s.io"),))


def _empty(features: dict[str, bool]) -> Case:
    """``empty``: PreFilter Skip; the runner goes on (Skip is no rejection) and PostFilter is
    never reached, as upstream's loop does."""
    return Case(pod=make_pod("foo").namespace("default").obj(), features=features,
                want={"prefilter": Result(status=SKIP)}, prebind_pre_flight=SKIP)


CASES: dict[str, Callable[[], Case]] = {
    "empty": lambda: _empty({}),
    "empty-with-extended-resources-enabled": lambda: _empty({"DRAExtendedResource": True}),
    "podgroup-claim-reference-feature-disabled-reserves-for-pod": lambda: Case(
        pod=pod_with_claim_name(),
        claims=(pod_group_claim(allocated_claim()), dataclasses.replace(
            pending_claim(), name="not-my-claim", uid="other", owner_pod_uid=None)),
        want={"prebind": Result(changes=in_use(pod_group_claim(allocated_claim())))}),
    "podgroup-with-resources-feature-disabled-reserves-for-pod": lambda: Case(
        pod=pod_with_claim_name(), claims=(pod_group_claim(pending_claim()),),
        classes=(device_class_plain(),), slices=(worker_node_slice(),),
        want={"reserve": Result(in_flight=(pod_group_claim(allocated_claim()),)),
              "prebind": Result(changes=in_use(pod_group_claim(allocated_claim())))}),
    # finalizers are not compared (normalized): the same as with-resources
    "with-resources-has-finalizer": with_resources,
    "with-resources-finalizer-gets-removed": with_resources,
    "with-resources-finalizer-gets-added": with_resources,
    # DRAAdminAccess off: the allocator's error, an Error status (statusError)
    "request-admin-access-without-DRAAdminAccess-featuregate": lambda: Case(
        pod=pod_with_claim_name(),
        claims=(admin_access(pending_claim()), dataclasses.replace(
            other_allocated_claim(), owner_pod_uid=None)),
        classes=(device_class_plain(),), slices=(worker_node_slice(),),
        features={"DRAAdminAccess": False},
        want={f"filter/{WORKER}": Result(status=Status.as_error(
            f"claim {CLAIM_KEY}, request req-1: admin access is requested, but the feature is "
            "disabled"))}),
    "claim-parameters-CEL-runtime-error": lambda: _cel(True, 1),
    "class-parameters-CEL-runtime-error": lambda: _cel(False, 1),
    "CEL-runtime-error-for-one-of-two-nodes": lambda: _cel(True, 2),
    "CEL-runtime-error-for-one-of-three-nodes": lambda: _cel(True, 3),
    "bind-failure": lambda: Case(
        pod=pod_with_claim_name(), claims=(_good_topology(),), nodes=(node(),),
        want={"prebind": Result(changes=in_use(_good_topology())),
              "unreserve_after_bind_failure": Result(
                  changes=lambda c: dataclasses.replace(c, reserved_for=()))}),
    # upstream runs PodGroupPostFilter (the case has a PodGroup), Unschedulable without
    # reason with the feature off; the pod's PostFilter is the equivalent: the claim is
    # reserved for another consumer (the PodGroup), so it is not deallocated.
    "postfilter-skip-deallocate-reserved-podgroup-feature-disabled": lambda: Case(
        pod=pod_with_claim_name(), claims=(_pod_group_wrong_topology(),),
        classes=(device_class_plain(),), nodes=(node(),),
        want={f"filter/{WORKER}": Result(status=unresolvable(
            "resourceclaim not available on the node")),
              "postfilter": Result(status=Status(Code.UNSCHEDULABLE))}),
    "DRA-disabled": lambda: Case(
        pod=pod_with_claim_name(), claims=(reserve(allocated_claim()),),
        features={"DynamicResourceAllocation": False},
        want={"prefilter": Result(status=SKIP)}, prebind_pre_flight=SKIP),
    "extended-resource-name-with-node-resource": lambda: Case(
        pod=ext_pod({EXT: 1}), nodes=(node(capacity={EXT: "1"}),),
        classes=(device_class_plain(extended=EXT),), features={"DRAExtendedResource": True}),
    "extended-resource-one-device-plugin-one-dra": lambda: Case(
        pod=ext_pod({EXT: 1, EXT2: 1}), nodes=(node(capacity={EXT: "1"}),),
        classes=(device_class_plain(extended=EXT),
                 device_class_plain(CLASS + "2", extended=EXT2)),
        slices=(worker_node_slice(),), features={"DRAExtendedResource": True},
        want={"reserve": Result(in_flight=(ext_claim(
                  (("container-0-request-1", CLASS + "2", 1),),
                  (("container-0-request-1", "instance-1"),), SPECIAL_CLAIM_IN_MEM_NAME),)),
              "prebind": Result(added=(stamped(reserve(ext_claim(
                  (("container-0-request-1", CLASS + "2", 1),),
                  (("container-0-request-1", "instance-1"),)))),))}),
    "extended-resource-name-with-zero-allocatable": lambda: ext_with_resources(
        ext_pod({EXT: 1}), extended_claim(SPECIAL_CLAIM_IN_MEM_NAME), extended_claim(),
        nodes=(node(capacity={EXT: "0"}),)),
    "non-DRA-extended-resource-name-with-zero-allocatable": lambda: Case(
        pod=ext_pod({EXT: 1}), nodes=(node(capacity={EXT: "0"}),),
        classes=(device_class_plain(),), slices=(worker_node_slice(),),
        features={"DRAExtendedResource": True},
        want={"prefilter": Result(status=SKIP)}, prebind_pre_flight=SKIP),
    "extended-resource-name-no-resource": lambda: Case(
        pod=ext_pod({EXT: 1}), classes=(device_class_plain(extended=EXT),),
        features={"DRAExtendedResource": True},
        want={f"filter/{WORKER}": Result(status=unresolvable("cannot allocate all claims")),
              "postfilter": Result(status=Status(Code.UNSCHEDULABLE))}),
    "extended-resource-name-with-resources": lambda: ext_with_resources(
        ext_pod({EXT: 1}), extended_claim(SPECIAL_CLAIM_IN_MEM_NAME), extended_claim()),
    "implicit-extended-resource-name-with-resources": lambda: _implicit(False),
    "implicit-extended-resource-name-two-containers-with-resources": lambda: _implicit(True),
    "extended-resource-name-with-resources-has-claim": lambda: _ext_stale(WORKER),
    "extended-resource-name-with-resources-delete-claim": lambda: _ext_stale("worker-2"),
    "extended-resource-name-bind-failure": lambda: ext_with_resources(
        ext_pod({EXT: 1}), extended_claim(SPECIAL_CLAIM_IN_MEM_NAME), extended_claim(),
        want={"reserve": Result(in_flight=(extended_claim(SPECIAL_CLAIM_IN_MEM_NAME),)),
              "prebind": Result(added=(stamped(reserve(extended_claim())),)),
              "unreserve_after_bind_failure": Result(
                  removed=("default/my-pod-extended-resources-0",))}),
    "extended-resource-name-skip-bind": lambda: ext_with_resources(
        ext_pod({EXT: 1}), extended_claim(SPECIAL_CLAIM_IN_MEM_NAME), extended_claim(),
        want={"reserve": Result(in_flight=(extended_claim(SPECIAL_CLAIM_IN_MEM_NAME),)),
              "unreserve_before_prebind": Result()}),
    "timeout_disabled": lambda: with_resources(features={"DRASchedulerFilterTimeout": False},
                                               args=DynamicResourcesArgs()),
    # FilterTimeout 0 disables the timeout; the reference has none (its args have no field)
    "timeout_zero": lambda: with_resources(args=DynamicResourcesArgs()),
    "add-allocation-timestamp-failure": lambda: Case(
        pod=pod_with_claim_name(), claims=(allocated_claim(),),
        prepare={"prebind": lambda c: dataclasses.replace(c, allocation=None)},
        want={"prebind": Result(status=Status.as_error(
            f"claim {CLAIM_KEY} got deallocated elsewhere in the meantime"))}),
    "bind-failure-concurrent-deallocation": lambda: Case(
        pod=pod_with_claim_name(), claims=(pending_claim(),),
        classes=(device_class_plain(),), slices=(_bind_conditions_slice(),),
        args=DynamicResourcesArgs(binding_timeout_seconds=1.0),
        want={"reserve": Result(in_flight=(_bind_claim(),)),
              "prebind": Result(in_flight=(stamped(_bind_claim()),),
                                changes=lambda c: stamped(reserve(_bind_claim())),
                                status=Status.as_error("device binding timeout"))}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_plugin(name: str) -> None:
    """dynamicresources_test.go TestPlugin, the case ``name``."""
    run_case(CASES[name]())


def test_the_runner_reaches_the_phases_upstream_checks() -> None:
    """The driver stops where testPlugin's loop stops: after an Error in Filter, after
    PostFilter when no node fits, and runs Unreserve before PreBind when asked."""
    assert run_case(CASES["CEL-runtime-error-for-one-of-three-nodes"]()) == [
        "preenqueue", "prefilter", f"filter/{WORKER}"]
    assert run_case(CASES["extended-resource-name-no-resource"]()) == [
        "preenqueue", "prefilter", f"filter/{WORKER}", "postfilter"]
    assert run_case(CASES["extended-resource-name-skip-bind"]()) == [
        "preenqueue", "prefilter", f"filter/{WORKER}", "reserve", "unreserve_before_prebind"]
    assert run_case(CASES["bind-failure"]()) == [
        "preenqueue", "prefilter", f"filter/{WORKER}", "reserve", "prebind",
        "unreserve_after_bind_failure"]


def test_cel_runtime_error_without_the_hint_before_1_37() -> None:
    """Switch dra-cel-no-such-key-hint: v1.36.3's allocator names no device and has no
    cel.EnhanceRuntimeError, so "claim-parameters-CEL-runtime-error" ends with cel-go's message
    (allocator_*.go of v0.36.3: "selector #%d: CEL runtime error: %w"); v1.37.2 names the device
    and adds the hint (docs/release-differences.md)."""
    old = f"claim {CLAIM_KEY}: selector #0: CEL runtime error: no such key: healthy"
    new = (f"claim {CLAIM_KEY}: selector #0 on device {DRIVER}/worker/instance-1: CEL runtime "
           "error: no such key: healthy" + HINT)
    for release, want in (("v1.36.3", old), ("v1.37.2", new)):
        case = dataclasses.replace(CASES["claim-parameters-CEL-runtime-error"](), release=release)
        case.want[f"filter/{WORKER}"] = Result(status=Status.as_error(want))
        run = Run(case).run()
        assert run.statuses[f"filter/{WORKER}"] == Status.as_error(want), release
