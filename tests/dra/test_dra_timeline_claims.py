"""Template claims for pods a timeline ``createPod`` event creates: the resourceclaim
controller's ``handleClaim`` (pkg/controller/resourceclaim/controller.go of v1.37.2) creates
the claim when the pod appears, named as the loader's pass names it
(``resourceclaims.template_claim_name``), and the pod gets its
``status.resourceClaimStatuses``; without it the pod waits at PreEnqueue (``ResourceClaim not
created yet``). Both the reference simulation (``Simulation._apply_createPod``) and the
upstream subject (upstream/dra.go ``createTemplateClaims``) do it; the upstream test is skipped
when the binary is not built. The control-plane backends run kube-controller-manager's
resourceclaim controller, which creates it (tests/dra/test_process_backend_claim_controller.py).
The ``dra_allocations`` oracle judges such a claim by its template."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject
from dra.gpu_scenarios import GPU, device, pod, template_only
from oracles import dra_allocations
from oracles.base import OracleContext
from reference_impl.model.loader.defaults import _deterministic_uid
from reference_impl.model.loader.resourceclaims import add_template_claims, template_claim_name
from tests.backend_scenarios import plan_on_backends


def timeline_docs() -> list[dict[str, Any]]:
    """Two loaded pods with template claims (pre-passed, as ``read_inputs`` does), and a third
    created at 2s by the timeline with the same template, whose claim nobody wrote."""
    raw = [*template_only(), {
        "apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": [
            {"at": "2s", "action": "createPod",
             "pod": pod("p-late", template="one-gpu-template")}]}}]
    return [d for _, _, d in add_template_claims([("t", i, d) for i, d in enumerate(raw)])]


def late_claim_name(docs: list[dict[str, Any]]) -> str:
    taken = {f"default/{d['metadata']['name']}" for d in docs if d["kind"] == "ResourceClaim"}
    return template_claim_name("default", "p-late", _deterministic_uid("Pod", "default", "p-late"),
                               "gpu", taken)


def check(result: dict[str, Any], docs: list[dict[str, Any]]) -> None:
    assert result["bindings"] == {"default/p-tmpl-a": "node-1", "default/p-tmpl-b": "node-1",
                                  "default/p-late": "node-1"}
    assert result["pending"] == []
    assert result["resourceClaims"]["default/p-late"] == [
        {"name": "gpu", "claim": late_claim_name(docs),
         "allocation": {"devices": [device("gpu", "gpu-2")]}}]
    late = [a for a in result["attempts"] if a["pod"] == "default/p-late"]
    assert [a["outcome"] for a in late] == ["Bound"]  # it passed PreEnqueue at once


def test_reference_creates_the_claim_of_a_timeline_pod() -> None:
    docs = timeline_docs()
    assert [d["kind"] for d in docs].count("ResourceClaim") == 2  # none for p-late yet
    result = ReferenceSubject().run(ScenarioInput(docs, name="dra-timeline")).result
    check(result, docs)


def recreated_docs() -> list[dict[str, Any]]:
    """``timeline_docs`` with p-late deleted at 3s and created again at 4s (uid ``-2``)."""
    docs = timeline_docs()
    docs[-1]["spec"]["events"] += [
        {"at": "3s", "action": "deletePod", "pod": "default/p-late"},
        {"at": "4s", "action": "createPod", "pod": pod("p-late", template="one-gpu-template")}]
    return docs


def test_a_pod_created_again_gets_a_claim_named_after_its_new_uid() -> None:
    """The claim of a pod created again under a used uid (``-2``) is named after that uid; the
    first claim was deleted with its pod (the controller's cleanup, test_dra_claim_cleanup.py),
    so the new one gets the device it had."""
    docs = recreated_docs()
    result = ReferenceSubject().run(ScenarioInput(docs, name="dra-timeline")).result
    first = late_claim_name(docs)
    taken = {f"default/{d['metadata']['name']}" for d in docs if d["kind"] == "ResourceClaim"}
    second = template_claim_name(
        "default", "p-late", _deterministic_uid("Pod", "default", "p-late") + "-2", "gpu",
        taken)
    assert second != first
    assert result["resourceClaims"]["default/p-late"] == [
        {"name": "gpu", "claim": second,
         "allocation": {"devices": [device("gpu", "gpu-2")]}}]


def test_upstream_subject_creates_the_claim_of_a_timeline_pod(upstream: UpstreamSubject) -> None:
    docs = timeline_docs()
    up = upstream.run(ScenarioInput(docs, name="dra-timeline"))
    assert not any("resource.k8s.io" in w for w in up.warnings), up.warnings
    check(up.result, docs)
    ref = ReferenceSubject().run(ScenarioInput(docs, name="dra-timeline")).result
    assert up.result["resourceClaims"] == ref["resourceClaims"]


def out_of_order_docs() -> list[dict[str, Any]]:
    """``recreated_docs`` with the events written out of time order: the pod created at 4s
    comes first in the document."""
    docs = recreated_docs()
    events = docs[-1]["spec"]["events"]
    docs[-1]["spec"]["events"] = [events[2], events[0], events[1]]
    return docs


def test_uids_follow_the_order_of_creation_not_of_the_document() -> None:
    ref = ReferenceSubject().run(ScenarioInput(out_of_order_docs(), name="dra-timeline")).result
    docs = recreated_docs()
    assert ref["resourceClaims"] == ReferenceSubject().run(
        ScenarioInput(docs, name="dra-timeline")).result["resourceClaims"]


@pytest.mark.parametrize("make", [recreated_docs, out_of_order_docs],
                         ids=["recreated", "out-of-order"])
def test_upstream_subject_names_a_recreated_pods_claim_as_the_reference(
        upstream: UpstreamSubject, make: Callable[[], list[dict[str, Any]]]) -> None:
    docs = make()
    up = upstream.run(ScenarioInput(docs, name="dra-timeline")).result
    ref = ReferenceSubject().run(ScenarioInput(docs, name="dra-timeline")).result
    assert up["bindings"] == ref["bindings"]
    assert up["resourceClaims"] == ref["resourceClaims"]
    assert up["resourceClaims"]["default/p-late"][0]["allocation"]["devices"] == [
        device("gpu", "gpu-2")]


def test_backends_plan_a_timeline_pod_with_a_template_claim() -> None:
    """The control-plane backends run the resourceclaim controller, which creates the claim
    (the run: tests/dra/test_process_backend_claim_controller.py)."""
    plan_on_backends(timeline_docs(), "dra-timeline")


def test_the_oracle_judges_a_timeline_pods_claim_by_its_template() -> None:
    """dra_allocations finds the claim of a timeline pod (not in the initial cluster) through
    its template: the reference's allocation passes; the device of another pod's claim given
    to it is a device used by two claims at once."""
    docs = timeline_docs()
    sc = ScenarioInput(docs, name="dra-timeline")
    ctx = OracleContext.build(sc, ReferenceSubject().run(sc))
    assert dra_allocations.check(ctx) == []
    late = ctx.result["resourceClaims"]["default/p-late"][0]["allocation"]["devices"][0]
    late["device"] = "gpu-0"  # p-tmpl-a's
    found = dra_allocations.check(ctx)
    first = next(c["claim"] for c in ctx.result["resourceClaims"]["default/p-tmpl-a"])
    assert [v.message for v in found] == [
        f"device {GPU}/node-1/gpu-0 is allocated to 2 claims at once: "
        f"default/{late_claim_name(docs)}, default/{first}"]
