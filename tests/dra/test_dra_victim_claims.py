"""Preemption victims that hold devices: the scheduler's preemption deletes the victim, and the
resourceclaim controller releases its claims as for a pod a timeline deletes
(pkg/controller/resourceclaim/controller.go of v1.37.2, ``syncClaim``; the reference's
``Simulation._victim_evicted`` then ``_release_claims``, the upstream subject's
``releaseVictimClaims`` in upstream/simulate.go).

Upstream's preemption does not free a victim's devices in its dry run: DynamicResources has
no ``PreFilterExtensions`` (``AddPod``/``RemovePod``: dynamicresources.go returns nil in
v1.34.4, v1.35.4, v1.36.3 and v1.37.2), and its Filter's "cannot allocate all claims" is
UnschedulableAndUnresolvable, so a node where only the devices are missing is no candidate.
A pod that needs the devices of a lower-priority pod therefore never preempts it; a pod that
needs its CPU does, and the devices then go to whichever pod waits for them. The upstream
tests are skipped when the binary is not built."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject
from dra.gpu_scenarios import GPU, device, gpu_cluster
from reference_impl.model.loader.resourceclaims import add_template_claims
from reference_impl.testing.wrappers import (
    make_device_class,
    make_pod,
    make_resource_claim_template,
)
from tests.backend_scenarios import plan_on_backends

TEMPLATE = "one-gpu-template"


def _pod(name: str, priority: int, cpu: str | None, gpu: bool) -> dict[str, Any]:
    p = make_pod(name).namespace("default").priority(priority)
    p = p.container("registry.k8s.io/pause") if cpu is None else p.req(cpu=cpu)
    if gpu:
        p = p.resource_claim("gpu", template=TEMPLATE)
    return p.manifest()


def victim_docs(preemptor_wants_gpu: bool = False) -> list[dict[str, Any]]:
    """node-1 (8 CPUs, one GPU); ``holder`` (priority 0, 6 CPUs, the GPU by a template claim)
    is bound at 0s, ``waiter`` (priority 0, no CPU, a GPU) waits; at 2s the timeline creates
    ``preemptor`` (priority 1000, 6 CPUs; with ``preemptor_wants_gpu`` a GPU too)."""
    template = make_resource_claim_template(TEMPLATE).request_with_name("gpu", GPU).manifest()
    preemptor = _pod("preemptor", 1000, "6", preemptor_wants_gpu)
    raw = [*gpu_cluster(["a100"]), template, _pod("holder", 0, "6", True),
           _pod("waiter", 0, None, True)]
    docs = [d for _, _, d in add_template_claims([("t", i, d) for i, d in enumerate(raw)])]
    if preemptor_wants_gpu:
        # the claim the resourceclaim controller would make for the pod the timeline creates
        made = add_template_claims([("t", 0, template), ("t", 1, preemptor)])
        docs += [d for _, _, d in made if d["kind"] == "ResourceClaim"]
        preemptor = next(d for _, _, d in made if d["kind"] == "Pod")
    docs.append({"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": [
        {"at": "2s", "action": "createPod", "pod": preemptor}]}})
    return docs


def run(docs: list[dict[str, Any]]) -> dict[str, Any]:
    return ReferenceSubject().run(ScenarioInput(docs, name="dra-victims")).result


def outcomes(result: dict[str, Any], key: str) -> list[tuple[float, str]]:
    return [(a["time"], a["outcome"]) for a in result["attempts"] if a["pod"] == key]


def assert_holder_preempted_and_waiter_bound(result: dict[str, Any]) -> None:
    """The holder was the preemptor's victim, and the waiter, rejected until its claim was
    released, got its GPU."""
    assert result["deleted"] == ["default/holder"]
    assert result["bindings"] == {"default/preemptor": "node-1", "default/waiter": "node-1"}
    assert [d["device"] for c in result["resourceClaims"]["default/waiter"]
            for d in c["allocation"]["devices"]] == ["gpu-0"]
    w = outcomes(result, "default/waiter")
    assert w[0][1] == "Unschedulable" and w[-1] == (2, "Bound"), w


def test_reference_releases_the_claim_of_a_preemption_victim() -> None:
    """The preemptor needs the holder's CPU: the holder is preempted, its claim deallocated
    and deleted, and the waiter (rejected for the GPU until then) gets it."""
    result = run(victim_docs())
    assert_holder_preempted_and_waiter_bound(result)


def test_reference_does_not_preempt_for_devices() -> None:
    """The preemptor needs the GPU as well: DynamicResources rejects node-1 as unresolvable
    (no PreFilterExtensions: the dry run does not free the holder's devices), so nothing is
    preempted and the preemptor waits."""
    result = run(victim_docs(preemptor_wants_gpu=True))
    assert result["deleted"] == []
    assert result["bindings"] == {"default/holder": "node-1"}
    assert sorted(result["pending"]) == ["default/preemptor", "default/waiter"]
    tries = outcomes(result, "default/preemptor")
    assert tries and all(o == "Unschedulable" for _, o in tries), tries  # never Nominated


@pytest.mark.parametrize("wants_gpu", [False, True], ids=["cpu", "cpu-and-gpu"])
def test_upstream_subject_releases_victim_claims_as_the_reference(
        upstream: UpstreamSubject, wants_gpu: bool) -> None:
    docs = victim_docs(wants_gpu)
    up = upstream.run(ScenarioInput(docs, name="dra-victims"))
    assert not any("resource.k8s.io" in w for w in up.warnings), up.warnings
    ref = run(docs)
    for field in ("bindings", "deleted", "pending", "resourceClaims"):
        assert up.result[field] == ref[field], field
    assert [(a["pod"], a["time"], a["outcome"]) for a in up.result["attempts"]] == \
        [(a["pod"], a["time"], a["outcome"]) for a in ref["attempts"]]
    if not wants_gpu:
        assert up.result["resourceClaims"]["default/waiter"][0]["allocation"] == {
            "devices": [device("gpu", "gpu-0")]}


def test_backends_plan_a_pod_using_dra_that_may_be_preempted() -> None:
    """The control-plane backends run the resourceclaim controller, which releases a victim's
    claims: a scenario where a higher-priority pod may preempt a pod using DRA is planned (the
    run: tests/dra/test_process_backend_claim_controller.py)."""
    plan_on_backends(victim_docs(), "dra-victims")


EXT = "example.com/gpu"


def extended_docs() -> list[dict[str, Any]]:
    """The same with DRA-backed extended resources: the class ``gpu`` maps ``example.com/gpu``;
    ``holder`` (6 CPUs, one ``example.com/gpu``) gets the GPU through the special claim
    PreBind creates (owned by the pod, named in its ``extendedResourceClaimStatus``),
    ``waiter`` asks for one ``example.com/gpu``; the preemptor at 2s needs the CPU."""
    cls = make_device_class("gpu").driver(GPU).extended_resource_name(EXT).manifest()
    node, _, gpus = gpu_cluster(["a100"])
    holder = make_pod("holder").namespace("default").priority(0).req({"cpu": "6", EXT: 1})
    waiter = make_pod("waiter").namespace("default").priority(0).req({EXT: 1})
    return [node, cls, gpus, holder.manifest(), waiter.manifest(),
            {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": [
                {"at": "2s", "action": "createPod", "pod": _pod("preemptor", 1000, "6", False)}
            ]}}]


def test_reference_releases_the_extended_resource_claim_of_a_victim() -> None:
    """The victim's special claim (``PodClaims`` lists it from
    ``status.extendedResourceClaimStatus``) is deallocated and deleted, and the waiter's own
    special claim gets the GPU."""
    result = run(extended_docs())
    assert_holder_preempted_and_waiter_bound(result)


def test_upstream_subject_releases_the_extended_resource_claim_of_a_victim(
        upstream: UpstreamSubject) -> None:
    docs = extended_docs()
    up = upstream.run(ScenarioInput(docs, name="dra-victims"))
    ref = run(docs)
    for field in ("bindings", "deleted", "pending", "resourceClaims"):
        assert up.result[field] == ref[field], field
    assert [(a["pod"], a["time"], a["outcome"]) for a in up.result["attempts"]] == \
        [(a["pod"], a["time"], a["outcome"]) for a in ref["attempts"]]
