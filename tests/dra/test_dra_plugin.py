"""DynamicResources on the scheduling path: the template-claim pre-pass, the plugin's
extension points (restating table cases of upstream's dynamicresources_test.go, v1.37.2, each
named in its docstring), and whole runs over Cluster.dra."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import yaml

from conformance.core.documents import explanation_doc
from conformance.engines.diff.normalize import normalize_explanation
from conformance.reporters.tables import explanation_table
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, PluginError, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.dra import (
    AllocationResult,
    DeviceRequestAllocationResult,
    DeviceTaint,
    DRAObjects,
    ResourceClaim,
    ResourceClaimConsumerReference,
)
from reference_impl.model.loader import load_documents, load_pod_file
from reference_impl.model.loader.resourceclaims import (
    POD_RESOURCE_CLAIM_ANNOTATION,
    add_template_claims,
    claim_generate_name,
)
from reference_impl.model.objects import Pod
from reference_impl.plugins.dynamicresources import DynamicResources
from reference_impl.plugins.dynamicresources.claims import ClaimStore
from reference_impl.plugins.dynamicresources.dynamicresources import NodeAllocation, compute_score
from reference_impl.scheduler.explain import explain
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.testing.dra import (
    claim,
    device,
    device_class,
    local_node_selector,
    request_with_prioritized_list,
    slice_with_devices,
    sub_request,
)
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod
from tests.dra.plugin_table import (
    CLASS,
    DRIVER,
    POD_UID,
    WORKER,
    admin_access,
    allocated_claim,
    allocation,
    other_allocated_claim,
    pending_claim,
    plugin,
    pod_with_claim_name,
    pod_with_claim_template,
    unresolvable,
    worker,
    worker_node_slice,
)

DRA_TEST = "dynamicresources/dynamicresources_test.go"
V1 = "resource.k8s.io/v1"


def run_to_filter(pl: DynamicResources, pod: Pod) -> tuple[CycleState, Status | None]:
    state = CycleState()
    assert pl.pre_enqueue(pod) is None
    _, st = pl.pre_filter(state, pod, [worker()])
    assert st is None, st
    return state, pl.filter(state, pod, worker())


# --- PreEnqueue ------------------------------------------------------------------------------

def test_missing_claim() -> None:
    """dynamicresources_test.go "missing-claim": a template claim without status entry."""
    pl = plugin(allocated_claim())
    assert pl.pre_enqueue(pod_with_claim_template(False)) == unresolvable(
        'pod "default/my-pod": ResourceClaim not created yet')


def test_deleted_claim() -> None:
    """dynamicresources_test.go "deleted-claim"."""
    pl = plugin(dataclasses.replace(allocated_claim(), deleting=True))
    assert pl.pre_enqueue(pod_with_claim_template(True)) == unresolvable(
        'resourceclaim "my-pod-my-resource" is being deleted')


def test_wrong_claim() -> None:
    """dynamicresources_test.go "wrong-claim": the claim's owner is another pod."""
    pl = plugin(dataclasses.replace(allocated_claim(), owner_pod_uid=POD_UID + "123"))
    assert pl.pre_enqueue(pod_with_claim_template(True)) == unresolvable(
        "ResourceClaim default/my-pod-my-resource was not created for Pod default/my-pod "
        "(Pod is not owner)")


def test_claim_not_found() -> None:
    """A claim by name that does not exist: the assume cache's NotFoundError."""
    assert plugin().pre_enqueue(pod_with_claim_name()) == unresolvable(
        'could not find ResourceClaim "default/my-pod-my-resource"')


# --- PreFilter -------------------------------------------------------------------------------

def test_missing_class() -> None:
    """dynamicresources_test.go "missing-class"; PostFilter Unschedulable without reason."""
    pl = plugin(pending_claim(), classes=False)
    state = CycleState()
    assert pl.pre_filter(state, pod_with_claim_name(), []) == (None, unresolvable(
        f"request req-1: device class {CLASS} does not exist"))
    assert pl.post_filter(state, pod_with_claim_name(), None) == (
        None, Status(Code.UNSCHEDULABLE))


def test_prioritized_list_unknown_device_class() -> None:
    """dynamicresources_test.go "claim-with-prioritized-list-unknown-device-class" (the
    status code is statusUnschedulable's, UnschedulableAndUnresolvable)."""
    c = dataclasses.replace(pending_claim(), spec=dataclasses.replace(
        pending_claim().spec, requests=(request_with_prioritized_list(
            "req-1", sub_request("subreq-1", "does-not-exist")),)))
    _, st = plugin(c).pre_filter(CycleState(), pod_with_claim_name(), [])
    assert st == unresolvable("request req-1/subreq-1: device class does-not-exist does not "
                              "exist")


def test_allocation_in_flight() -> None:
    """PreFilter waits for a claim whose allocation is in flight (inFlightAllocations)."""
    pl = plugin(pending_claim())
    pl.dra_manager.signal_claim_pending_allocation("claim-uid", allocated_claim())
    _, st = pl.pre_filter(CycleState(), pod_with_claim_name(), [])
    assert st == unresolvable(
        "resource claim default/my-pod-my-resource is in the process of being allocated")


# --- Filter, PostFilter ----------------------------------------------------------------------

def test_no_resources() -> None:
    """dynamicresources_test.go "no-resources": no slice, the allocator finds nothing."""
    pl = plugin(pending_claim())
    state, st = run_to_filter(pl, pod_with_claim_name())
    assert st == unresolvable("cannot allocate all claims")
    assert pl.post_filter(state, pod_with_claim_name(), None) == (
        None, Status(Code.UNSCHEDULABLE))


def test_exhausted_resources_in_informer_cache() -> None:
    """dynamicresources_test.go "exhausted-resources-in-informer-cache": the only device is
    allocated to another claim."""
    pl = plugin(pending_claim(), other_allocated_claim(), slices=(worker_node_slice(),))
    _, st = run_to_filter(pl, pod_with_claim_name())
    assert st == unresolvable("cannot allocate all claims")


def test_exhausted_resources_in_flight_claim() -> None:
    """dynamicresources_test.go "exhausted-resources-in-flight-claim": the device is taken by
    an allocation in flight."""
    other = dataclasses.replace(other_allocated_claim(), allocation=None)
    pl = plugin(pending_claim(), other, slices=(worker_node_slice(),))
    pl.dra_manager.signal_claim_pending_allocation("other-uid", other_allocated_claim())
    _, st = run_to_filter(pl, pod_with_claim_name())
    assert st == unresolvable("cannot allocate all claims")


def test_wrong_topology() -> None:
    """dynamicresources_test.go "wrong-topology": the allocation's node selector names another
    node; PostFilter deallocates the claim."""
    pl = plugin(allocated_claim("other-node"))
    state, st = run_to_filter(pl, pod_with_claim_name())
    assert st == unresolvable("resourceclaim not available on the node")
    assert pl.post_filter(state, pod_with_claim_name(), None) == (
        None, Status(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed"))
    assert pl.dra_manager.objects.claims["default/my-pod-my-resource"].allocation is None


def test_good_topology() -> None:
    """dynamicresources_test.go "good-topology": PreBind adds the pod to reservedFor and the
    allocation timestamp."""
    pl = plugin(allocated_claim())
    pod = pod_with_claim_name()
    state, st = run_to_filter(pl, pod)
    assert st is None
    assert pl.reserve(state, pod, WORKER) is None
    assert pl.pre_bind(state, pod, WORKER) is None
    got = pl.dra_manager.objects.claims["default/my-pod-my-resource"]
    # addAllocationTimestamp: non-nil, the value not checked
    assert got.allocation is not None and got.allocation.allocation_timestamp is not None
    assert dataclasses.replace(got.allocation, allocation_timestamp=None) == \
        allocated_claim().allocation
    assert got.reserved_for == (ResourceClaimConsumerReference("pods", "my-pod", POD_UID),)


# --- Reserve, PreBind, Unreserve -------------------------------------------------------------

def test_with_resources() -> None:
    """dynamicresources_test.go "with-resources": Reserve puts the allocation in flight,
    PreBind writes it with the reservation and ends the in-flight allocation."""
    pl = plugin(pending_claim(), slices=(worker_node_slice(),))
    pod = pod_with_claim_name()
    state, st = run_to_filter(pl, pod)
    assert st is None
    assert pl.reserve(state, pod, WORKER) is None
    assert pl.dra_manager.get_pending_allocation("claim-uid") == allocation(
        local_node_selector(WORKER))
    assert pl.pre_bind(state, pod, WORKER) is None
    got = pl.dra_manager.objects.claims["default/my-pod-my-resource"]
    assert _stamped(got.allocation) == allocation(local_node_selector(WORKER))
    assert got.reserved_for == (ResourceClaimConsumerReference("pods", "my-pod", POD_UID),)
    assert pl.dra_manager.in_flight == {}
    assert pl.dra_manager.list_all_allocated_devices() == {(DRIVER, WORKER, "instance-1")}


def test_unreserve_drops_in_flight_allocation() -> None:
    """Unreserve after Reserve: the in-flight allocation goes, the claim stays pending
    ("bind-failure-preserves-inflight-until-unreserve", without the API failure)."""
    pl = plugin(pending_claim(), slices=(worker_node_slice(),))
    pod = pod_with_claim_name()
    state, _ = run_to_filter(pl, pod)
    assert pl.reserve(state, pod, WORKER) is None
    pl.unreserve(state, pod, WORKER)
    assert pl.dra_manager.in_flight == {}
    assert pl.dra_manager.objects.claims["default/my-pod-my-resource"].allocation is None


def test_single_claim_prioritized_list_scoring() -> None:
    """dynamicresources_test.go "single-claim-prioritized-list-scoring": subreq-1 selects
    ``device.attributes["some-driver"].healthy``, true only on the worker; worker-2's device
    says false, so subreq-2 takes it: Score 8 and 7, normalized 100 and 87."""
    c = dataclasses.replace(pending_claim(), spec=dataclasses.replace(
        pending_claim().spec, requests=(request_with_prioritized_list(
            "req-1",
            sub_request("subreq-1", CLASS, 1, f'device.attributes["{DRIVER}"].healthy'),
            sub_request("subreq-2", CLASS, 1)),)))
    slices = [slice_with_devices(f"{n}-slice", n, n, DRIVER,
                                 device("instance-1", attributes={"healthy": healthy}))
              for n, healthy in ((WORKER, True), ("worker-2", False))]
    objs = DRAObjects(device_classes={CLASS: device_class(CLASS, DRIVER)},
                      claims={"default/my-pod-my-resource": c}, slices=slices)
    nodes = [make_node(WORKER).obj(), make_node("worker-2").obj()]
    pl = DynamicResources(None, FakeHandle(nodes=nodes, dra=objs))
    pod = pod_with_claim_name()
    state = CycleState()
    assert pl.pre_filter(state, pod, [NodeInfo(n) for n in nodes]) == (None, None)
    scores = []
    for n in nodes:
        assert pl.filter(state, pod, NodeInfo(n)) is None
        scores.append([n.name, pl.score(state, pod, NodeInfo(n))])
    assert scores == [[WORKER, 8], ["worker-2", 7]]
    assert pl.normalize_score(state, pod, scores) is None
    assert scores == [[WORKER, 100], ["worker-2", 87]]
    assert pl.reserve(state, pod, WORKER) is None and pl.pre_bind(state, pod, WORKER) is None
    assert [r.request for r in _reserved(pl).allocation.results] == ["req-1/subreq-1"]


# --- the template pre-pass (resourceclaim controller) -----------------------------------------

def _template(ns: str = "default", name: str = "gpu-template") -> dict[str, Any]:
    return {"apiVersion": V1, "kind": "ResourceClaimTemplate",
            "metadata": {"namespace": ns, "name": name},
            "spec": {"metadata": {"labels": {"team": "a"}, "annotations": {"note": "x"}},
                     "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                         "deviceClassName": "gpu.example.com"}}]}}}}


def test_template_claims_are_created() -> None:
    """controller.go handleClaim: generateName <pod>-<claim>-, the pod as controller owner,
    the pod-claim-name annotation, the template's labels/annotations/spec, and the pod's
    status.resourceClaimStatuses; deterministic."""
    docs = [_template(), make_pod("my-pod").uid(POD_UID)
            .resource_claim("gpu", template="gpu-template").manifest()]
    r = load_documents(docs)
    (pod,) = r.cluster.pods
    ((name, claim_name_),) = pod.resource_claim_statuses
    assert name == "gpu" and claim_name_ is not None
    assert claim_name_.startswith("my-pod-gpu-") and len(claim_name_) == len("my-pod-gpu-") + 5
    c = r.cluster.dra.claims[f"default/{claim_name_}"]
    assert c.owner_pod_uid == POD_UID
    assert dict(c.annotations) == {"note": "x", POD_RESOURCE_CLAIM_ANNOTATION: "gpu"}
    assert dict(c.labels) == {"team": "a"}
    assert c.spec == r.cluster.dra.claim_templates["default/gpu-template"].spec
    again = load_documents(docs).cluster.pods[0]
    assert again.resource_claim_statuses == pod.resource_claim_statuses


def test_template_claims_pre_pass_matches_the_loader() -> None:
    """add_template_claims, on raw documents (a pod with no uid, one in a List), writes the
    claims the loader's own pass creates: same names, owner (the pod's deterministic uid, now
    explicit), annotation, labels and spec; the loader then creates no more; a second pre-pass
    changes nothing."""
    pods = [make_pod("my-pod").resource_claim("gpu", template="gpu-template").manifest(),
            make_pod("other").resource_claim("a", template="gpu-template").manifest()]
    raw = [("in", 1, _template()), ("in", 2, pods[0]),
           ("in", 3, {"apiVersion": "v1", "kind": "List", "items": [pods[1]]})]
    passed = add_template_claims(raw)
    assert [d.get("kind") for _, _, d in passed] == [
        "ResourceClaimTemplate", "Pod", "ResourceClaim", "List", "ResourceClaim"]
    assert "uid" not in pods[0]["metadata"]  # the input is not changed
    by_loader = load_documents([d for _, _, d in raw])
    by_pre_pass = load_documents([d for _, _, d in passed])
    assert by_pre_pass.cluster.dra.claims == by_loader.cluster.dra.claims
    assert len(by_loader.cluster.dra.claims) == 2
    assert ([p.resource_claim_statuses for p in by_pre_pass.cluster.pods]
            == [p.resource_claim_statuses for p in by_loader.cluster.pods])
    assert [p.uid for p in by_pre_pass.cluster.pods] == [p.uid for p in by_loader.cluster.pods]
    assert add_template_claims(passed) == passed


def test_template_claims_of_a_dump_are_kept() -> None:
    """A pod whose status already names its claim gets no new one."""
    docs = [_template(), make_pod("my-pod").uid(POD_UID)
            .resource_claim("gpu", template="gpu-template")
            .resource_claim_status("gpu", "existing").manifest()]
    r = load_documents(docs)
    assert r.cluster.pods[0].resource_claim_statuses == (("gpu", "existing"),)
    assert r.cluster.dra.claims == {}


def test_template_missing_warns_and_pod_waits() -> None:
    r = load_documents([make_pod("my-pod").resource_claim("gpu", template="nope").manifest()])
    assert r.cluster.pods[0].resource_claim_statuses == ()
    assert any("'nope' not found" in w for w in r.warnings)


@pytest.mark.parametrize("pod,claim_,want", [
    ("my-pod", "gpu", "my-pod-gpu-"),
    ("p" * 50, "c" * 20, "p" * 39 + "-" + "c" * 15),  # 72 > 57: 50*57//72, 20*57//72
])
def test_claim_generate_name(pod: str, claim_: str, want: str) -> None:
    """handleClaim's generateName and its proportional truncation (no trailing hyphen)."""
    assert claim_generate_name(pod, claim_) == want


# --- whole runs ------------------------------------------------------------------------------

def _gpu_docs(n_gpus: int, n_pods: int) -> list[dict[str, Any]]:
    slice_ = {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": "n1-gpus"},
              "spec": {"driver": "gpu.example.com", "nodeName": "n1",
                       "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                       "devices": [{"name": f"gpu-{i}"} for i in range(n_gpus)]}}
    cls = {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
           "spec": {"selectors": [{"cel": {"expression":
                                           "device.driver == 'gpu.example.com'"}}]}}
    pods = [make_pod(f"p{i}").creation_timestamp(i).resource_claim("gpu", template="gpu-template")
            .manifest() for i in range(n_pods)]
    return [make_node("n1").capacity(cpu="8", memory="8Gi", pods="110").manifest(),
            slice_, cls, _template(), *pods]


def test_later_pods_do_not_get_allocated_devices() -> None:
    """Allocations are cluster state: two GPUs, three pods; the third finds no device."""
    cluster = load_documents(_gpu_docs(2, 3)).cluster
    result = Scheduler(cluster).run()
    outcome = {a.pod: a for a in result.attempts}
    got = [result.resource_claims[f"default/p{i}"][0]["allocation"]["devices"][0]["device"]
           for i in range(2)]
    assert got == ["gpu-0", "gpu-1"]
    third = outcome["default/p2"]
    assert third.outcome == "Unschedulable" and "default/p2" not in result.resource_claims
    assert third.reasons == {"n1": ["cannot allocate all claims"]}
    reserved = sorted(r.name for c in cluster.dra.claims.values() for r in c.reserved_for)
    assert reserved == ["p0", "p1"]


# --- isSchedulableAfterClaimChange ------------------------------------------------------------

def _hint(pod: Pod, stored: tuple[ResourceClaim, ...], old: Any, new: Any) -> tuple[str, Any]:
    """The new claim is in the cluster first, as upstream's test waits for the assume cache."""
    pl = plugin(*stored, *((new,) if isinstance(new, ResourceClaim) else ()))
    return pl.is_schedulable_after_claim_change(pod, old, new)


def _template_claim(**changes: Any) -> ResourceClaim:
    return dataclasses.replace(allocated_claim(), **changes)


@pytest.mark.parametrize("case,pod,stored,old,new,want", [
    ("skip-deletes", "template", (), "pending", None, "QueueSkip"),
    ("queue-on-delete-with-allocation", "template", (), "allocated", None, "Queue"),
    ("skip-wrong-claim", "template", (), None, "wrong-owner", "QueueSkip"),
    ("skip-unrelated-claim", "template", ("allocated",), None, "unrelated", "QueueSkip"),
    ("queue-on-add", "name", (), None, "pending", "Queue"),
    ("skip-adding-finalizer", "name", ("pending",), "pending", "pending-labelled", "QueueSkip"),
    ("queue-on-status-change", "name", ("pending",), "pending", "pending-allocated", "Queue"),
    ("claim-deallocate", "name", ("pending", "other"), "other", "other-deallocated", "Queue"),
])
def test_is_schedulable_after_claim_change(case: str, pod: str, stored: tuple[str, ...],
                                           old: str | None, new: str | None,
                                           want: str) -> None:
    """dynamicresources_test.go TestIsSchedulableAfterClaimChange (a finalizer is not
    modelled: "skip-adding-finalizer" changes a label, also outside the status)."""
    claims = {
        "pending": pending_claim(), "allocated": allocated_claim(),
        "wrong-owner": _template_claim(owner_pod_uid=POD_UID + "123"),
        "unrelated": _template_claim(name="my-pod-my-resource-foo", uid="claim-uid123"),
        "pending-labelled": dataclasses.replace(pending_claim(), labels=(("foo", ""),)),
        "pending-allocated": dataclasses.replace(pending_claim(),
                                                 allocation=AllocationResult()),
        "other": other_allocated_claim(),
        "other-deallocated": dataclasses.replace(other_allocated_claim(), allocation=None),
    }
    p = pod_with_claim_template(False) if pod == "template" else pod_with_claim_name()
    got = _hint(p, tuple(claims[s] for s in stored), claims.get(old or ""),
                claims.get(new or ""))
    assert got == (want, None), case


@pytest.mark.parametrize("case,old,new", [
    ("backoff-wrong-new-object", None, "not-a-claim"),
    ("backoff-wrong-old-object", "not-a-claim", "pending"),
])
def test_is_schedulable_after_claim_change_wrong_object(case: str, old: Any, new: Any) -> None:
    """dynamicresources_test.go TestIsSchedulableAfterClaimChange: an error (Queue)."""
    new_obj = pending_claim() if new == "pending" else new
    hint, err = _hint(pod_with_claim_name(), (pending_claim(),), old, new_obj)
    assert hint == "Queue" and err is not None and "isSchedulableAfterClaimChange" in err, case


# --- explain: why no device fits --------------------------------------------------------------

def test_explain_says_which_request_lacks_devices() -> None:
    """explain keeps upstream's reasons (``cannot allocate all claims``) and puts the device
    counts per request (class, selectors, free) in the verdict's ``detail``, which the
    Explanation document carries apart and the lockstep normalization drops."""
    docs = _gpu_docs(2, 0)
    taken = {"apiVersion": V1, "kind": "ResourceClaim",
             "metadata": {"namespace": "default", "name": "taken"},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                 "deviceClassName": "gpu.example.com"}}]}},
             "status": {"allocation": {"devices": {"results": [{
                 "request": "gpu", "driver": "gpu.example.com", "pool": "n1",
                 "device": "gpu-0"}]}}}}
    pod = make_pod("p").resource_claim("gpu", template="gpu-template").manifest()
    pod["spec"]["resourceClaims"][0]["resourceClaimTemplateName"] = "two"
    two = _template(name="two")
    two["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = 2
    cluster = load_documents([*docs, taken, two, pod]).cluster
    sched = Scheduler(cluster)
    got = explain(sched, cluster.pods[0])
    (node,) = got.nodes
    (verdict,) = [v for v in node.filters if v.plugin == "DynamicResources"]
    claim_key = f"default/{cluster.pods[0].resource_claim_statuses[0][1]}"
    assert verdict.reasons == ["cannot allocate all claims"]
    assert verdict.detail == [
        f"claim {claim_key}, request gpu: needs 2 device(s) of class gpu.example.com; "
        "of 2 device(s) on the node, 2 match the class's selectors, 2 also match the "
        "request's selectors, 1 of those are free"]
    assert got.message == "0/1 nodes are available: 1 cannot allocate all claims."
    doc = explanation_doc(got)
    (fdoc,) = [f for f in doc["nodes"][0]["filters"] if f["plugin"] == "DynamicResources"]
    assert fdoc["reasons"] == ["cannot allocate all claims"] and fdoc["detail"] == verdict.detail
    assert "detail: claim" in explanation_table(doc)
    normalized = normalize_explanation(doc)["nodes"][node.name]["filters"]["DynamicResources"]
    assert "detail" not in normalized


# --- more TestPlugin cases ---------------------------------------------------------------------

def _bind_cycle(pl: DynamicResources, pod: Pod) -> None:
    state, st = run_to_filter(pl, pod)
    assert st is None, st
    assert pl.reserve(state, pod, WORKER) is None
    assert pl.pre_bind_pre_flight(state, pod, WORKER) is None
    assert pl.pre_bind(state, pod, WORKER) is None


def _stamped(a: AllocationResult | None) -> AllocationResult:
    """The allocation PreBind wrote, its allocationTimestamp checked non-nil and dropped
    (dynamicresources_test.go addAllocationTimestamp: the value is not checked)."""
    assert a is not None and a.allocation_timestamp is not None
    return dataclasses.replace(a, allocation_timestamp=None)


def _reserved(pl: DynamicResources, key: str = "default/my-pod-my-resource") -> ResourceClaim:
    return pl.dra_manager.objects.claims[key]


def test_claim_reference() -> None:
    """dynamicresources_test.go "claim-reference": an allocated claim by name is only
    reserved for the pod in PreBind; the other claim is untouched."""
    other = dataclasses.replace(pending_claim(), name="not-my-claim", uid="other-uid")
    pl = plugin(allocated_claim(), other)
    _bind_cycle(pl, pod_with_claim_name())
    assert _reserved(pl).reserved_for == (
        ResourceClaimConsumerReference("pods", "my-pod", POD_UID),)
    assert _reserved(pl, "default/not-my-claim") == other


def test_claim_template() -> None:
    """dynamicresources_test.go "claim-template": the same through the pod's status."""
    pl = plugin(allocated_claim())
    _bind_cycle(pl, pod_with_claim_template(True))
    assert _reserved(pl).reserved_for == (
        ResourceClaimConsumerReference("pods", "my-pod", POD_UID),)


def test_reserved_okay() -> None:
    """dynamicresources_test.go "reserved-okay": a claim already reserved for the pod is left
    as it is."""
    in_use = dataclasses.replace(allocated_claim(), reserved_for=(
        ResourceClaimConsumerReference("pods", "my-pod", POD_UID),))
    pl = plugin(in_use)
    _bind_cycle(pl, pod_with_claim_name())
    assert _reserved(pl) == in_use


def test_skip_bind() -> None:
    """dynamicresources_test.go "skip-bind": Reserve then Unreserve before PreBind: nothing
    is written, nothing stays in flight."""
    pl = plugin(pending_claim(), slices=(worker_node_slice(),))
    pod = pod_with_claim_name()
    state, _ = run_to_filter(pl, pod)
    assert pl.reserve(state, pod, WORKER) is None
    assert set(pl.dra_manager.in_flight) == {"claim-uid"}
    pl.unreserve(state, pod, WORKER)
    assert pl.dra_manager.in_flight == {} and _reserved(pl) == pending_claim()


def test_other_resources_in_flight_claim() -> None:
    """dynamicresources_test.go "other-resources-in-flight-claim": another claim's in-flight
    allocation of another device does not block this one, and stays in flight."""
    other = dataclasses.replace(other_allocated_claim(), allocation=None)
    other_elsewhere = dataclasses.replace(other_allocated_claim(), allocation=allocation(
        local_node_selector(WORKER), dev="instance-1-other"))
    pl = plugin(pending_claim(), other, slices=(worker_node_slice(),))
    pl.dra_manager.signal_claim_pending_allocation("other-uid", other_elsewhere)
    _bind_cycle(pl, pod_with_claim_name())
    assert _stamped(_reserved(pl).allocation) == allocation(local_node_selector(WORKER))
    assert set(pl.dra_manager.in_flight) == {"other-uid"}


def _tainted_slice() -> Any:
    return slice_with_devices("worker-slice", WORKER, WORKER, DRIVER, device(
        "instance-1", taints=(DeviceTaint("taint-key", "taint-value"),)))


@pytest.mark.parametrize("enabled", [False, True])
def test_tainted_device(enabled: bool) -> None:
    """dynamicresources_test.go "tainted-device-disabled" / "tainted-device-enabled": with
    DRADeviceTaints a NoSchedule taint keeps the device from the claim."""
    objs = DRAObjects(device_classes={CLASS: device_class(CLASS, DRIVER)},
                      claims={"default/my-pod-my-resource": pending_claim()},
                      slices=[_tainted_slice()])
    pl = DynamicResources(None, FakeHandle(nodes=[make_node(WORKER).obj()], dra=objs,
                                           features={"DRADeviceTaints": enabled}))
    _, st = run_to_filter(pl, pod_with_claim_name())
    assert st == (unresolvable("cannot allocate all claims") if enabled else None)


@pytest.mark.parametrize("gate", [True, False])
def test_request_admin_access(gate: bool) -> None:
    """dynamicresources_test.go "request-admin-access-with-DRAAdminAccess-featuregate" and
    "...-without-...": admin access may take a device in use; without the gate the
    allocator's error (an Error status; upstream's test compares messages only)."""
    objs = DRAObjects(device_classes={CLASS: device_class(CLASS, DRIVER)},
                      claims={"default/my-pod-my-resource": admin_access(pending_claim()),
                              "default/not-my-claim": other_allocated_claim()},
                      slices=[worker_node_slice()])
    pl = DynamicResources(None, FakeHandle(nodes=[make_node(WORKER).obj()], dra=objs,
                                           features={"DRAAdminAccess": gate}))
    pod = pod_with_claim_name()
    state, st = run_to_filter(pl, pod)
    if not gate:
        assert st == Status.as_error("claim default/my-pod-my-resource, request req-1: admin "
                                     "access is requested, but the feature is disabled")
        return
    assert st is None
    assert pl.reserve(state, pod, WORKER) is None and pl.pre_bind(state, pod, WORKER) is None
    assert _stamped(_reserved(pl).allocation) == admin_access(allocated_claim()).allocation


def test_structured_ignore_allocated_admin_access() -> None:
    """dynamicresources_test.go "structured-ignore-allocated-admin-access": a device allocated
    with admin access does not count as allocated (allocateddevices.go)."""
    pl = plugin(pending_claim(), admin_access(other_allocated_claim()),
                slices=(worker_node_slice(),))
    _bind_cycle(pl, pod_with_claim_name())
    assert _stamped(_reserved(pl).allocation) == allocation(local_node_selector(WORKER))


# --- isSchedulableAfterTargetPodUpdate ---------------------------------------------------------

@pytest.mark.parametrize("case,stored,pod,new,want", [
    ("complete", True, "template", "template-in-status", "Queue"),
    ("missing-claim", False, "template", "template-in-status", "QueueSkip"),
    ("incomplete", True, "two-templates", "two-templates-one-status", "QueueSkip"),
])
def test_is_schedulable_after_target_pod_update(case: str, stored: bool, pod: str, new: str,
                                                want: str) -> None:
    """dynamicresources_test.go TestIsSchedulableAfterTargetPodUpdate."""
    two = (make_pod("my-pod").namespace("default").uid(POD_UID)
           .resource_claim("my-resource", template="my-resource-template")
           .resource_claim("my-resource-2", template="my-resource-template"))
    pods = {"template": pod_with_claim_template(False),
            "template-in-status": pod_with_claim_template(True),
            "two-templates": two.obj(),
            "two-templates-one-status": two.resource_claim_status(
                "my-resource", "my-pod-my-resource").obj()}
    pl = plugin(*((pending_claim(),) if stored else ()))
    assert pl.is_schedulable_after_target_pod_update(pods[pod], pods[pod], pods[new]) == (
        want, None), case
    hint, err = pl.is_schedulable_after_target_pod_update(pods[pod], None, "not-a-claim")
    assert hint == "Queue" and err is not None  # "backoff-wrong-new-object"


def _score_nodes(claims: tuple[ResourceClaim, ...], pod: Pod, devices_per_node: list[int]
                 ) -> tuple[list[list], list[list], dict[str, Status | None]]:
    """Filter, score and normalize ``pod`` on worker, worker-2, ... with that many devices
    each: (raw scores, normalized scores, Filter statuses)."""
    names = [WORKER] + [f"worker-{i + 2}" for i in range(len(devices_per_node) - 1)]
    slices = [slice_with_devices(f"{n}-slice", n, n, DRIVER,
                                 *(device(f"instance-{j + 1}") for j in range(k)))
              for n, k in zip(names, devices_per_node, strict=True)]
    objs = DRAObjects(device_classes={CLASS: device_class(CLASS, DRIVER)},
                      claims={f"{c.namespace}/{c.name}": c for c in claims}, slices=slices)
    nodes = [make_node(n).obj() for n in names]
    pl = DynamicResources(None, FakeHandle(nodes=nodes, dra=objs))
    state = CycleState()
    assert pl.pre_filter(state, pod, [NodeInfo(n) for n in nodes]) == (None, None)
    filtered = {n.name: pl.filter(state, pod, NodeInfo(n)) for n in nodes}
    raw = [[n.name, pl.score(state, pod, NodeInfo(n))] for n in nodes
           if filtered[n.name] is None]
    scores = [list(x) for x in raw]
    assert pl.normalize_score(state, pod, scores) is None
    return raw, scores, filtered


def _with_requests(c: ResourceClaim, *requests: Any) -> ResourceClaim:
    return dataclasses.replace(c, spec=dataclasses.replace(c.spec, requests=requests))


def test_multiple_claims_prioritized_list_scoring() -> None:
    """dynamicresources_test.go "multiple-claims-prioritized-list-scoring": 8 + 7 on four
    devices, 8 + 5 on two, one device cannot hold both claims; normalized 100 and 86."""
    c1 = _with_requests(pending_claim(), request_with_prioritized_list(
        "req-1", sub_request("subreq-1", CLASS, 1)))
    c2 = _with_requests(dataclasses.replace(pending_claim(), name="my-pod-my-resource-2",
                                            uid="claim-2-uid"),
                        request_with_prioritized_list(
                            "req-1", *(sub_request(f"subreq-{i + 1}", CLASS, 4 - i)
                                       for i in range(4))))
    pod = (make_pod("my-pod").namespace("default").uid(POD_UID)
           .resource_claim("my-resource", claim="my-pod-my-resource")
           .resource_claim("my-resource-2", claim="my-pod-my-resource-2").obj())
    raw, scores, filtered = _score_nodes((c1, c2), pod, [4, 2, 1])
    assert filtered["worker-3"] == unresolvable("cannot allocate all claims")
    assert raw == [[WORKER, 15], ["worker-2", 13]]
    assert scores == [[WORKER, 100], ["worker-2", 86]]


def test_multiple_requests_prioritized_list_scoring() -> None:
    """dynamicresources_test.go "multiple-requests-prioritized-list-scoring": two requests of
    (2 devices, else 1): 16, 15, 14 on four, three and two devices; normalized 100, 93, 87."""
    req = [request_with_prioritized_list(f"req-{i}", sub_request("subreq-1", CLASS, 2),
                                         sub_request("subreq-2", CLASS, 1)) for i in (1, 2)]
    c = _with_requests(pending_claim(), *req)
    raw, scores, _ = _score_nodes((c,), pod_with_claim_name(), [4, 3, 2])
    assert raw == [[WORKER, 16], ["worker-2", 15], ["worker-3", 14]]
    assert scores == [[WORKER, 100], ["worker-2", 93], ["worker-3", 87]]


def test_template_claim_of_a_pod_file_goes_to_the_base_cluster(tmp_path: Any) -> None:
    """``explain --pod POD.yaml``: the pod's template claim is created in the cluster it is
    loaded against, so the scheduler built on that cluster finds it."""
    cluster = load_documents(_gpu_docs(1, 0)).cluster
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(make_pod("q").resource_claim(
        "gpu", template="gpu-template").manifest()))
    pod = load_pod_file(path, cluster)
    ((_, name),) = pod.resource_claim_statuses
    assert f"default/{name}" in cluster.dra.claims
    assert explain(Scheduler(cluster), pod).selected == "n1"


# --- computeScore ------------------------------------------------------------------------------

def _plist(req: str, n: int) -> Any:
    """``NamedRequestWithPrioritizedList(req, subreq-1..n)``, one device each."""
    return request_with_prioritized_list(req, *(sub_request(f"subreq-{i + 1}", CLASS, 1)
                                                for i in range(n)))


def _results(*requests: str) -> AllocationResult:
    return AllocationResult(tuple(DeviceRequestAllocationResult(r, DRIVER, WORKER, "d")
                                  for r in requests))


@pytest.mark.parametrize("case,claims,results,want", [
    ("single-request-only-subrequest-allocated", [[("req-1", 1)]], [["req-1/subreq-1"]], 8),
    ("single-request-last-subrequest-allocated", [[("req-1", 8)]], [["req-1/subreq-8"]], 1),
    ("multiple-requests-with-middle-subrequests-allocated", [[("req-1", 4), ("req-2", 5)]],
     [["req-1/subreq-4", "req-2/subreq-5"]], 9),
    ("multiple-requests-with-top-subrequests-allocated", [[("req-1", 8), ("req-2", 1)]],
     [["req-1/subreq-8", "req-2/subreq-1"]], 9),
    ("multiple-claims-with-last-subrequests-allocated", [[("req-1", 8)], [("req-2", 8)]],
     [["req-1/subreq-8"], ["req-2/subreq-8"]], 2),
    ("multiple-claims-with-top-subrequests-allocated", [[("req-1", 1)], [("req-2", 1)]],
     [["req-1/subreq-1"], ["req-2/subreq-1"]], 16),
    ("more-claims-than-allocations", [[("req-1", 1)], [("req-2", 1)]], [], None),
])
def test_compute_score(case: str, claims: list, results: list, want: int | None) -> None:
    """dynamicresources_test.go Test_computesScore (``more-claims-than-allocations``: an
    error)."""
    store = ClaimStore([claim(f"c{i}", *(_plist(r, n) for r, n in reqs))
                        for i, reqs in enumerate(claims)], [f"c{i}" for i in range(len(claims))])
    allocations = NodeAllocation([_results(*rs) for rs in results])
    if want is None:
        with pytest.raises(PluginError, match="number of allocations 0 is smaller"):
            compute_score(store, allocations)
        return
    assert compute_score(store, allocations) == want, case


def test_compute_score_mix_of_allocated_and_unallocated_claims() -> None:
    """dynamicresources_test.go Test_computesScore "mix-of-allocated-and-unallocated-claims":
    an allocated claim uses its own allocation; no prioritized list, score 0."""
    store = ClaimStore([allocated_claim(), dataclasses.replace(
        pending_claim(), name="my-pod-my-resource-2", uid="claim-2-uid")], ["a", "b"])
    assert compute_score(store, NodeAllocation([allocation()])) == 0


def test_explain_filter_says_nothing_when_the_claims_fit() -> None:
    """The detail is only for ``cannot allocate all claims``: an allocated claim on another
    node makes the node fail, while the pending claim would fit."""
    other_node = dataclasses.replace(pending_claim(), name="pinned", uid="pinned-uid",
                                     allocation=allocation(local_node_selector("other-node"),
                                                           dev="elsewhere"))
    pl = plugin(pending_claim(), other_node, slices=(worker_node_slice(),))
    pod = (make_pod("my-pod").namespace("default").uid(POD_UID)
           .resource_claim("my-resource", claim="my-pod-my-resource")
           .resource_claim("pinned", claim="pinned").obj())
    state, st = run_to_filter(pl, pod)
    assert st == unresolvable("resourceclaim not available on the node")
    assert pl.explain_filter(state, pod, worker()) == []


def _prioritized(c: ResourceClaim, class_name: str = CLASS) -> ResourceClaim:
    """``claimWithPrioritzedList``: request req-1 with one subrequest subreq-1."""
    return _with_requests(c, request_with_prioritized_list(
        "req-1", sub_request("subreq-1", class_name, 1)))


def test_claim_with_prioritized_list_feature_disabled() -> None:
    """dynamicresources_test.go "claim-with-prioritized-list-feature-disabled" (upstream's
    test matches the message as a substring: PreFilter says ``resource claim ...``)."""
    pl = plugin(_prioritized(pending_claim()), prioritized_list=False)
    _, st = pl.pre_filter(CycleState(), pod_with_claim_name(), [])
    assert st == unresolvable("resource claim default/my-pod-my-resource, request req-1: has "
                              "subrequests, but the DRAPrioritizedList feature is disabled")


def test_claim_with_request_with_unknown_device_class() -> None:
    """dynamicresources_test.go "claim-with-request-with-unknown-device-class"."""
    pl = plugin(pending_claim("does-not-exist"))
    state = CycleState()
    assert pl.pre_filter(state, pod_with_claim_name(), []) == (None, unresolvable(
        "request req-1: device class does-not-exist does not exist"))
    assert pl.post_filter(state, pod_with_claim_name(), None) == (
        None, Status(Code.UNSCHEDULABLE))


def test_claim_with_prioritized_list() -> None:
    """dynamicresources_test.go "claim-with-prioritized-list": the result names the
    subrequest, ``req-1/subreq-1``."""
    pl = plugin(_prioritized(pending_claim()), slices=(worker_node_slice(),))
    _bind_cycle(pl, pod_with_claim_name())
    assert _stamped(_reserved(pl).allocation) == allocation(local_node_selector(WORKER),
                                                  req="req-1/subreq-1")
    assert _reserved(pl).reserved_for == (
        ResourceClaimConsumerReference("pods", "my-pod", POD_UID),)


def test_a_shared_claim_pins_its_second_pod_to_the_first_pods_node() -> None:
    """Two nodes, GPUs only on n1; a claim shared by name: the first pod's PreBind writes the
    allocation with n1's node selector (createNodeSelector: node-local slice), so the second
    pod, which needs no allocation, can only go to n1 (Filter: ``resourceclaim not available
    on the node`` on n2)."""
    docs = _gpu_docs(1, 0)
    docs.insert(1, make_node("n2").capacity(cpu="8", memory="8Gi", pods="110").manifest())
    docs.append({"apiVersion": V1, "kind": "ResourceClaim",
                 "metadata": {"namespace": "default", "name": "shared"},
                 "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                     "deviceClassName": "gpu.example.com"}}]}}})
    docs += [make_pod(f"s{i}").creation_timestamp(i).resource_claim("gpu", claim="shared")
             .manifest() for i in range(2)]
    cluster = load_documents(docs).cluster
    sched = Scheduler(cluster)
    result = sched.run()
    assert result.bindings == {"default/s0": "n1", "default/s1": "n1"}
    shared = cluster.dra.claims["default/shared"]
    assert [r.name for r in shared.reserved_for] == ["s0", "s1"]
    assert shared.allocation is not None and shared.allocation.node_selector == \
        local_node_selector("n1")
    s1 = cluster.pods[1]
    verdicts = {n.name: [v for v in n.filters if v.plugin == "DynamicResources"][0]
                for n in explain(sched, s1).nodes}
    assert verdicts["n2"].reasons == ["resourceclaim not available on the node"]
    assert verdicts["n1"].code == "Success"
