"""The finalizer condition of the resourceclaim controller's cleanup (reference_impl/model/
claim_cleanup.py ``sync_claim``, ``release_pod_claims``): the cases of TestSyncHandler
(pkg/controller/resourceclaim/controller_test.go of k8s.io/kubernetes v1.37.2) that sync a
claim whose consumer went, restated. Their claims: ``testClaim`` (owned by ``test-pod``,
uid ``uidpod1``), ``allocateClaim`` (an allocation), ``reserveClaim`` (a pod in
``reservedFor``), ``structuredParameters`` (the finalizer
``resource.kubernetes.io/delete-protection``, as DynamicResources' bindClaim adds it).

Upstream's fake clientset keeps an object whose last finalizer goes while it is being deleted
(``clear-reserved-structured-deleted``, ``structured-deleted`` expect it with no finalizers);
the API server removes it (store.go ``shouldDeleteDuringUpdate``), and so does the model.
The simulation's side (PreBind adds the finalizer, an input claim without it keeps its
allocation) is at the end, on both subjects."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject
from dra.gpu_scenarios import GPU, gpu_cluster, pod
from dra.plugin_table import Run
from dra.test_dra_plugin_table import with_resources
from reference_impl.model.claim_cleanup import release_pod_claims, sync_claim
from reference_impl.model.dra import (
    CLAIM_FINALIZER,
    AllocationResult,
    DRAObjects,
    ResourceClaim,
    ResourceClaimConsumerReference,
)
from reference_impl.model.objects import Pod, PodResourceClaim
from reference_impl.testing.wrappers import make_resource_claim

POD_UID, OTHER_UID = "uidpod1", "uidpod1-II"
ME = ResourceClaimConsumerReference("pods", "test-pod", POD_UID)
OTHER = ResourceClaimConsumerReference("pods", "test-pod-II", OTHER_UID)
ALLOCATION = AllocationResult()

#: testClaim, testClaimAllocated, testClaimReserved, testClaimReservedTwice
CLAIM = ResourceClaim("my-namespace", "test-pod-acme-resource", "c1", owner_pod_uid=POD_UID)
ALLOCATED = dataclasses.replace(CLAIM, allocation=ALLOCATION)
RESERVED = dataclasses.replace(ALLOCATED, reserved_for=(ME,))
RESERVED_TWICE = dataclasses.replace(RESERVED, reserved_for=(ME, OTHER))


def structured(claim: ResourceClaim) -> ResourceClaim:
    """``structuredParameters``: the finalizer added."""
    return dataclasses.replace(claim, finalizers=(*claim.finalizers, CLAIM_FINALIZER))


def final(claim: ResourceClaim, gone: str, owner_done: bool) -> ResourceClaim | None:
    """The claim after one syncClaim (as TestSyncHandler runs it), None if removed."""
    changes = sync_claim(claim, gone, owner_done)
    return changes[-1][1] if changes else claim


def test_clear_reserved_structured() -> None:
    """``clear-reserved-structured``: the reserving pod is gone; the claim has the finalizer:
    reservedFor, allocation and finalizer cleared; not deleted (the pod is not found: left to
    the garbage collector)."""
    changes = sync_claim(structured(RESERVED), POD_UID, owner_done=False)
    assert [n for _, n in changes] == [
        structured(CLAIM), dataclasses.replace(CLAIM, finalizers=())]


def test_dont_clear_reserved_structured() -> None:
    """``dont-clear-reserved-structured``: the other pod went, the pod still holds it: only
    the other's entry is dropped, the allocation and finalizer stay."""
    claim = structured(RESERVED_TWICE)
    assert final(claim, OTHER_UID, owner_done=False) == structured(RESERVED)


def test_remove_reserved() -> None:
    """``remove-reserved``: the same without the finalizer."""
    assert final(RESERVED_TWICE, OTHER_UID, owner_done=False) == RESERVED


def test_clear_reserved_structured_deleted() -> None:
    """``clear-reserved-structured-deleted``: a claim being deleted loses its reservation,
    allocation and finalizer; the API server then removes it."""
    claim = dataclasses.replace(structured(RESERVED), deleting=True)
    changes = sync_claim(claim, POD_UID, owner_done=False)
    assert [n for _, n in changes] == [
        dataclasses.replace(structured(CLAIM), deleting=True), None]


def test_structured_deleted() -> None:
    """``structured-deleted``: allocated, not reserved, being deleted: deallocated (a status
    update), the finalizer removed, and the claim gone."""
    claim = dataclasses.replace(structured(ALLOCATED), deleting=True)
    changes = sync_claim(claim, POD_UID, owner_done=False)
    assert [n for _, n in changes] == [
        dataclasses.replace(structured(CLAIM), deleting=True), None]


def test_clear_reserved_when_done() -> None:
    """``clear-reserved-when-done``: no finalizer, no owner, the pod done: the reservation is
    dropped, the allocation kept (only a claim with the finalizer is deallocated)."""
    claim = dataclasses.replace(RESERVED, owner_pod_uid=None)
    assert final(claim, POD_UID, owner_done=True) == dataclasses.replace(
        ALLOCATED, owner_pod_uid=None)


def test_delete_claim_when_done() -> None:
    """``delete-claim-when-done``: the owning pod is done: reservation dropped, then the claim
    (without finalizers) deleted."""
    changes = sync_claim(RESERVED, POD_UID, owner_done=True)
    assert [n for _, n in changes] == [ALLOCATED, None]


def test_remove_pod_reservation_with_non_pod_reservation_present() -> None:
    """``remove-pod-reservation-with-non-pod-reservation-present``: a non-pod consumer is
    kept, so nothing is deallocated or deleted."""
    foo = ResourceClaimConsumerReference("foo", "foo", "123", api_group="foo.com")
    claim = dataclasses.replace(RESERVED, reserved_for=(ME, foo))
    assert final(claim, POD_UID, owner_done=True) == dataclasses.replace(
        RESERVED, reserved_for=(foo,))


def test_stay_reserved_seen() -> None:
    """``stay-reserved-seen``: the reserving pod is still there (another pod went): no
    write."""
    assert sync_claim(RESERVED, OTHER_UID, owner_done=False) == []


def test_release_deletes_a_protected_claim_the_pod_owned() -> None:
    """The garbage collector's delete of the claim a deleted pod owned comes after the
    controller removed the finalizer, so the claim is removed at once; a claim still being
    held keeps its finalizer and is only marked deleted."""
    p = Pod(name="test-pod", namespace="my-namespace", uid=POD_UID, resource_claim_sources=(
        PodResourceClaim("acme-resource", resource_claim_template_name="my-template"),),
        resource_claim_statuses=(("acme-resource", CLAIM.name),))
    dra = DRAObjects(claims={f"my-namespace/{CLAIM.name}": structured(RESERVED)})
    assert [n for _, n in release_pod_claims(p, dra)] == [
        structured(CLAIM), dataclasses.replace(CLAIM, finalizers=()), None]
    assert dra.claims == {}
    dra = DRAObjects(claims={f"my-namespace/{CLAIM.name}": structured(RESERVED_TWICE)})
    marked = dataclasses.replace(structured(RESERVED), deleting=True)
    assert [n for _, n in release_pod_claims(p, dra)] == [
        dataclasses.replace(structured(RESERVED_TWICE), reserved_for=(OTHER,)),
        dataclasses.replace(marked, reserved_for=(OTHER,))]


# ----- in the simulation, on both subjects -----


def input_docs(finalizer: bool) -> list[dict[str, Any]]:
    """``holder`` bound with the only GPU by the input (claim ``held``, allocated and reserved,
    with or without the finalizer); ``waiter`` wants a GPU; the timeline deletes ``holder`` at
    2s."""
    held = make_resource_claim("held").request_with_name("gpu", GPU).manifest()
    held["metadata"]["uid"] = "held-uid"
    if finalizer:
        held["metadata"]["finalizers"] = [CLAIM_FINALIZER]
    held["status"] = {
        "allocation": {"devices": {"results": [
            {"request": "gpu", "driver": GPU, "pool": "node-1", "device": "gpu-0"}]}},
        "reservedFor": [{"resource": "pods", "name": "holder", "uid": "holder-uid"}]}
    holder = pod("holder", claim="held")
    holder["metadata"]["uid"] = "holder-uid"
    holder["spec"]["nodeName"] = "node-1"
    return [*gpu_cluster(["a100"]), held,
            make_resource_claim("own").request_with_name("gpu", GPU).manifest(),
            holder, pod("waiter", claim="own"),
            {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": [
                {"at": "2s", "action": "deletePod", "pod": "default/holder"}]}}]


def run(docs: list[dict[str, Any]]) -> dict[str, Any]:
    return ReferenceSubject().run(ScenarioInput(docs, name="dra-finalizer")).result


def test_reference_deallocates_only_a_claim_with_the_finalizer() -> None:
    """The finalizer frees the GPU for the waiter; without it the claim keeps its allocation
    (upstream: "There shouldn't be any claims without this finalizer") and the waiter
    waits."""
    assert run(input_docs(True))["bindings"] == {"default/waiter": "node-1"}
    assert run(input_docs(False))["bindings"] == {}


def test_upstream_subject_honours_the_finalizer_as_the_reference(
        upstream: UpstreamSubject) -> None:
    for finalizer in (True, False):
        docs = input_docs(finalizer)
        up = upstream.run(ScenarioInput(docs, name="dra-finalizer")).result
        ref = run(docs)
        assert up["bindings"] == ref["bindings"], finalizer
        assert up.get("resourceClaims") == ref.get("resourceClaims"), finalizer
        assert [(a["pod"], a["time"], a["outcome"]) for a in up["attempts"]] == \
            [(a["pod"], a["time"], a["outcome"]) for a in ref["attempts"]], finalizer



@pytest.mark.parametrize("initial", [(), (CLAIM_FINALIZER,)], ids=["added", "has-finalizer"])
def test_prebind_adds_the_finalizer_with_the_allocation(initial: tuple[str, ...]) -> None:
    """TestPlugin ``with-resources`` and ``with-resources-has-finalizer``
    (dynamicresources_test.go): after PreBind the claim carries
    ``resource.kubernetes.io/delete-protection`` once (bindClaim adds it before it writes the
    allocation, dynamicresources.go 1919-1928, unless it is there)."""
    case = with_resources()
    case = dataclasses.replace(case, claims=tuple(
        dataclasses.replace(c, finalizers=initial) for c in case.claims))
    run = Run(case).run()
    assert "prebind" in run.phases
    (claim,) = run.objs.claims.values()
    assert claim.allocation is not None and claim.finalizers == (CLAIM_FINALIZER,)
