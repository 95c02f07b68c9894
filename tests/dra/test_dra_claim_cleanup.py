"""The resourceclaim controller's cleanup when a pod goes (pkg/controller/resourceclaim/
controller.go of v1.37.2, ``syncClaim``): the pod's ``reservedFor`` entries are dropped, a claim
left without consumers is deallocated, and a claim the pod owns (from a template) is deleted.
The reference simulation (``Simulation._release_claims``, reference_impl/model/claim_cleanup.py)
and the upstream subject (upstream/dra.go ``releasePodClaims``) apply it when a timeline
``deletePod``/``finishPod`` event takes the pod; the ResourceClaim update/delete reaches the
queue, and DynamicResources' ``isSchedulableAfterClaimChange`` queues the pod waiting for the
device. The upstream tests are skipped when the binary is not built."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.search import hypothesis_test
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject
from dra.gpu_scenarios import GPU, device, gpu_cluster, pod
from reference_impl.model.claim_cleanup import release_pod_claims
from reference_impl.model.dra import (
    CLAIM_FINALIZER,
    AllocationResult,
    DRAObjects,
    ResourceClaim,
    ResourceClaimConsumerReference,
)
from reference_impl.model.loader.resourceclaims import add_template_claims
from reference_impl.model.objects import Pod, PodResourceClaim
from reference_impl.testing.wrappers import (
    make_node,
    make_resource_claim,
    make_resource_claim_template,
)
from strategies.dra import RELEASE_HOLDER, RELEASE_PREEMPTOR, RELEASE_WAITER
from tests.backend_scenarios import plan_on_backends


def timeline(*events: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": list(events)}}


def template_docs(action: str = "deletePod") -> list[dict[str, Any]]:
    """p-a and p-b each with a claim from a one-GPU template: p-a gets the only GPU, p-b
    waits; at 2s the timeline deletes (or finishes) p-a."""
    template = (make_resource_claim_template("one-gpu-template")
                .request_with_name("gpu", GPU).manifest())
    raw = [*gpu_cluster(["a100"]), template,
           pod("p-a", template="one-gpu-template"), pod("p-b", template="one-gpu-template"),
           timeline({"at": "2s", "action": action, "pod": "default/p-a"})]
    return [d for _, _, d in add_template_claims([("t", i, d) for i, d in enumerate(raw)])]


def named_docs() -> list[dict[str, Any]]:
    """Claims by name: p-a and p-c share ``shared`` (the only GPU), p-b has ``own``; the
    timeline finishes p-a at 2s (``shared`` stays reserved for p-c: nothing moves) and deletes
    p-c at 4s (``shared`` is deallocated, not deleted: no pod owns it; p-b gets the GPU)."""
    return [*gpu_cluster(["a100"]),
            make_resource_claim("shared").request_with_name("gpu", GPU).manifest(),
            make_resource_claim("own").request_with_name("gpu", GPU).manifest(),
            pod("p-a", claim="shared"), pod("p-c", claim="shared"), pod("p-b", claim="own"),
            timeline({"at": "2s", "action": "finishPod", "pod": "default/p-a"},
                     {"at": "4s", "action": "deletePod", "pod": "default/p-c"})]


def run(docs: list[dict[str, Any]]) -> dict[str, Any]:
    return ReferenceSubject().run(ScenarioInput(docs, name="dra-cleanup")).result


def outcomes(result: dict[str, Any], key: str) -> list[tuple[float, str]]:
    return [(a["time"], a["outcome"]) for a in result["attempts"] if a["pod"] == key]


def claim_of(docs: list[dict[str, Any]], pod_name: str) -> str:
    return next(d["metadata"]["name"] for d in docs if d["kind"] == "ResourceClaim"
                and d["metadata"]["ownerReferences"][0]["name"] == pod_name)


@pytest.mark.parametrize("action", ["deletePod", "finishPod"])
def test_reference_gives_the_gpu_of_a_pod_that_goes_to_the_waiting_pod(action: str) -> None:
    docs = template_docs(action)
    result = run(docs)
    assert result["bindings"] == {"default/p-b": "node-1"}
    assert result["pending"] == []
    assert result["resourceClaims"]["default/p-b"] == [
        {"name": "gpu", "claim": claim_of(docs, "p-b"),
         "allocation": {"devices": [device("gpu", "gpu-0")]}}]
    b = outcomes(result, "default/p-b")
    assert b[0][1] == "Unschedulable" and b[-1][1] == "Bound" and b[-1][0] >= 2


def test_reference_keeps_a_claim_another_pod_still_holds() -> None:
    result = run(named_docs())
    assert result["bindings"] == {"default/p-b": "node-1"}
    b = outcomes(result, "default/p-b")
    assert [o for _, o in b][-1] == "Bound"
    assert all(t >= 4 for t, o in b if o == "Bound")  # not after p-a finished, p-c still holds it
    assert result["resourceClaims"]["default/p-b"] == [
        {"name": "gpu", "claim": "own", "allocation": {"devices": [device("gpu", "gpu-0")]}}]


def test_release_pod_claims_writes_as_sync_claim() -> None:
    """The writes, in order: reservation dropped (and, the claim having the finalizer
    DynamicResources adds, deallocated when none remains), the finalizer removed, then the
    pod's own claim deleted; a claim another pod holds keeps its allocation; a claim the pod
    neither holds nor owns is not touched."""
    alloc = AllocationResult()
    me = ResourceClaimConsumerReference("pods", "p", "uid-p")
    other = ResourceClaimConsumerReference("pods", "q", "uid-q")
    dra = DRAObjects(claims={
        "ns/mine": ResourceClaim("ns", "mine", "c1", allocation=alloc, reserved_for=(me,),
                                 owner_pod_uid="uid-p", finalizers=(CLAIM_FINALIZER,)),
        "ns/shared": ResourceClaim("ns", "shared", "c2", allocation=alloc,
                                   reserved_for=(me, other), finalizers=(CLAIM_FINALIZER,)),
        "ns/idle": ResourceClaim("ns", "idle", "c3", allocation=alloc),
    })
    p = Pod(name="p", namespace="ns", uid="uid-p", resource_claim_sources=(
        PodResourceClaim("a", resource_claim_template_name="t"),
        PodResourceClaim("b", resource_claim_name="shared"),
        PodResourceClaim("c", resource_claim_name="idle")),
        resource_claim_statuses=(("a", "mine"),))
    changes = release_pod_claims(p, dra)
    assert [(o.name, None if n is None else (n.allocation is not None, n.reserved_for))
            for o, n in changes] == [
        ("mine", (False, ())), ("mine", (False, ())), ("mine", None),
        ("shared", (True, (other,)))]
    assert [n.finalizers for _, n in changes if n is not None] == [
        (CLAIM_FINALIZER,), (), (CLAIM_FINALIZER,)]
    assert set(dra.claims) == {"ns/shared", "ns/idle"}
    assert dra.claims["ns/idle"].allocation is alloc


@pytest.mark.parametrize("make", [template_docs, named_docs], ids=["template", "named"])
def test_upstream_subject_releases_the_claims_as_the_reference(
        upstream: UpstreamSubject, make: Any) -> None:
    docs = make()
    up = upstream.run(ScenarioInput(docs, name="dra-cleanup"))
    assert not any("resource.k8s.io" in w for w in up.warnings), up.warnings
    ref = run(docs)
    assert up.result["bindings"] == ref["bindings"] == {"default/p-b": "node-1"}
    assert up.result["resourceClaims"] == ref["resourceClaims"]
    assert outcomes(up.result, "default/p-b") == outcomes(ref, "default/p-b")


def test_backends_plan_a_timeline_that_takes_a_pod_using_dra() -> None:
    """The control-plane backends run the resourceclaim controller: a timeline deleting or
    finishing a pod with claims, or deleting a node where such pods are, is planned (the runs:
    tests/dra/test_process_backend_claim_controller.py)."""
    plan_on_backends(template_docs(), "dra-cleanup")
    plan_on_backends(named_docs(), "dra-cleanup")
    docs = template_docs()
    # a node left (node-2, no GPU): a cluster that ends without a node is refused anyway
    # (refusals.py refuse_nodeless_end: such a run never settles)
    docs.insert(1, make_node("node-2").allocatable(cpu="8", memory="32Gi",
                                                  pods="110").manifest())
    docs[-1]["spec"]["events"] = [{"at": "2s", "action": "deleteNode", "node": "node-1"}]
    plan_on_backends(docs, "dra-cleanup")


def test_the_dra_family_deletes_a_claim_holder_while_a_pod_waits() -> None:
    """strategies/dra.py ``claim_releases``: with ``diff --sizes dra=40 --seed 1`` some
    scenarios delete, finish or preempt (``claim-preemptor``) ``claim-holder`` while
    ``claim-waiter`` waits for the GPUs of its node, and the waiter, first rejected, is bound
    after the release; in some the holder is a preemption victim."""
    waited: list[list[str]] = []
    preempted: list[list[str]] = []

    def body(scenario: ScenarioInput) -> None:
        if not any(d.get("kind") == "Pod" and d["metadata"]["name"] == RELEASE_WAITER
                   for d in scenario.documents):
            return
        events = [e for d in scenario.documents if d.get("kind") == "Scenario"
                  for e in d["spec"]["events"]]
        assert any(e.get("pod") == f"default/{RELEASE_HOLDER}" or (
            e["action"] == "createPod" and e["pod"]["metadata"]["name"] == RELEASE_PREEMPTOR)
            for e in events)
        result = ReferenceSubject().run(scenario).result
        outcome = [o for _, o in outcomes(result, f"default/{RELEASE_WAITER}")]
        waited.append(outcome)
        if f"default/{RELEASE_HOLDER}" in result["deleted"]:
            preempted.append(outcome)

    hypothesis_test("dra", 40, 1, body, False)()
    assert sum(o[:1] == ["Unschedulable"] and o[-1] == "Bound" for o in waited) >= 3, waited
    assert any(o[:1] == ["Unschedulable"] and o[-1] == "Bound" for o in preempted), preempted
