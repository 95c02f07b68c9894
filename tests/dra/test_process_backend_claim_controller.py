"""The process backend with kube-controller-manager's resourceclaim controller (started for the
scenarios with DRA objects, conformance/backends/process.py): the claim of a pod the timeline
creates from a ResourceClaimTemplate, the release of a deleted, finished or preempted pod's
claims (their devices then go to the waiting pod), and the timeline's object writes, each
equal to the reference (bindings, claims and their allocations, the timeline's results).
A ResourceClaim the timeline deletes stays refused. Skipped when the binaries are not built
(``backends/build.sh``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.backends.dra import DRA_KINDS
from conformance.backends.process import ProcessSubject, binaries_missing
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioUnsupported
from conformance.subjects.reference import ReferenceSubject
from dra.test_dra_claim_cleanup import named_docs, template_docs
from dra.test_dra_extended_resources import holder_goes
from dra.test_dra_timeline_claims import check, timeline_docs
from dra.test_dra_timeline_objects import CLAIM_ELSEWHERE, CLASS_AND_RULE, SLICE_LATER
from dra.test_dra_victim_claims import victim_docs
from tests.backend_scenarios import plan_on_backends

MISSING = binaries_missing()
pytestmark = pytest.mark.skipif(
    bool(MISSING),
    reason="process backend binaries not built: run backends/build.sh (needs Go "
    "and the Go module proxy)",
)

Docs = list[dict[str, Any]]


@pytest.fixture(scope="module")
def subject() -> Iterator[ProcessSubject]:
    s = ProcessSubject(timeout=90)
    yield s
    s.close()


def _both(subject: ProcessSubject, docs: Docs, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    sc = ScenarioInput(docs, name=name)
    ref = ReferenceSubject().run(sc).result
    res = subject.run(sc).result
    for field in ("bindings", "pending", "removed", "finished", "resourceClaims"):
        assert res.get(field) == ref.get(field), field
    assert [(t["index"], t["target"], t["result"]) for t in res.get("timeline") or []] == [
        (t["index"], t["target"], t["result"]) for t in ref.get("timeline") or []
    ]
    left = {k: items for k in DRA_KINDS if (items := subject.api().list(k)[0])}
    assert left == {}
    return ref, res


def test_the_controller_creates_the_claim_of_a_timeline_pod(subject: ProcessSubject) -> None:
    """p-late, created at 2s with a claim from a template, gets the claim the controller
    creates, reported under the reference's name, and the third GPU."""
    docs = timeline_docs()
    _, res = _both(subject, docs, "dra-timeline")
    check(res, docs)
    assert subject.timings["last_controller_start"] > 0


@pytest.mark.parametrize(
    "make",
    [lambda: template_docs("deletePod"), lambda: template_docs("finishPod"), named_docs],
    ids=["template-deleted", "template-finished", "named"],
)
def test_a_released_claim_goes_to_the_waiting_pod(
    subject: ProcessSubject, make: Callable[[], Docs]
) -> None:
    """The pod holding the only GPU goes (deleted or finished; with claims by name, the
    shared claim stays reserved for p-c until p-c goes): the controller deallocates its
    claim and p-b, rejected before, gets the GPU, as in the reference."""
    ref, res = _both(subject, make(), "dra-cleanup")
    assert res["bindings"] == {"default/p-b": "node-1"}
    assert [a["outcome"] for a in res["attempts"] if a["pod"] == "default/p-b"] == [
        a["outcome"] for a in ref["attempts"] if a["pod"] == "default/p-b"
    ]


@pytest.mark.parametrize("action", ["deletePod", "finishPod"])
def test_the_claim_of_extended_resources_a_pod_status_names_is_released(
    subject: ProcessSubject, action: str
) -> None:
    """``holder`` runs with its GPU through the claim its ``status.extendedResourceClaimStatus``
    names (created, like the claim, from the input: the controller finds the claim through
    it); the claim has no delete-protection finalizer, so it keeps its allocation until it is
    deleted: by the controller when the pod is done, by the garbage collector's part the driver
    plays (``Driver._collect_claims``) when the pod is deleted; ``waiter`` then gets the GPU,
    as in the reference (``diff --sizes dra=30 --seed 1``, dra-0011, left ``er-waiter``
    pending while the reference bound it)."""
    docs = holder_goes(action)
    for d in docs:  # the API server wants limits for an extended resource
        for c in d.get("spec", {}).get("containers", []) if d.get("kind") == "Pod" else ():
            rr = c.get("resources") or {}
            if rr.get("requests"):
                rr["limits"] = dict(rr["requests"])
    _, res = _both(subject, docs, "dra-holder")
    assert res["bindings"] == {"default/waiter": "node-1"}


def test_a_preemption_victims_claim_is_released(subject: ProcessSubject) -> None:
    """``preemptor`` (created at 2s) preempts ``holder`` for its CPU; the controller releases
    the victim's template claim and ``waiter`` gets the GPU."""
    ref, res = _both(subject, victim_docs(), "dra-victims")
    assert res["deleted"] == ref["deleted"] == ["default/holder"]
    assert res["bindings"]["default/waiter"] == "node-1"


@pytest.mark.parametrize(
    "path", [SLICE_LATER, CLASS_AND_RULE, CLAIM_ELSEWHERE], ids=lambda p: p.stem
)
def test_timeline_object_writes_as_the_reference(subject: ProcessSubject, path: Path) -> None:
    sc = ScenarioInput.read(path)
    _both(subject, sc.documents, sc.name)


def test_a_timeline_delete_of_a_claim_a_pod_uses_is_refused() -> None:
    """A claim a pod names gets the delete-protection finalizer with its allocation: its
    delete would wait for the pod on the API server, not in the reference. A claim nobody
    names (``claim-ext`` of CLAIM_ELSEWHERE, run above) is deleted at once on both."""
    docs = named_docs()
    docs[-1]["spec"]["events"].append(
        {"at": "3s", "action": "deleteObject", "kind": "ResourceClaim", "name": "shared"}
    )
    with pytest.raises(
        ScenarioUnsupported,
        match=r"timeline event 2 \(deleteObject "
        r"ResourceClaim/default/shared\): on the API server a claim with the "
        r"delete-protection finalizer stays",
    ):
        plan_on_backends(docs, "dra-cleanup")
    docs[-1]["spec"]["events"][-1]["name"] = "nobody"
    plan_on_backends(docs, "dra-cleanup")


def test_a_claim_with_opaque_parameters_and_a_finalizer_can_be_cleaned_up(
    subject: ProcessSubject,
) -> None:
    """The API server compares a claim's opaque ``parameters`` by their bytes on update; the
    client sends compact JSON (``api._CompactJson``), so the finalizer-dropping patch of the
    cleanup is not refused as a change of the spec (``diff --sizes dra=30 --seed 1``, dra-0011,
    failed its cleanup with "spec: Invalid value: null: field is immutable")."""
    subject._ensure_started()
    api = subject.api()
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "opaque", "namespace": "default", "finalizers": ["example.com/x"]},
        "spec": {
            "devices": {
                "requests": [{"name": "r", "exactly": {"deviceClassName": "x"}}],
                "config": [
                    {"opaque": {"driver": "d.example.com", "parameters": {"a": {"b": 1, "c": 2}}}}
                ],
            }
        },
    }
    api.create("ResourceClaim", claim)
    api.patch("ResourceClaim", "opaque", {"metadata": {"finalizers": None}}, "default")
    assert api.delete("ResourceClaim", "opaque", "default")
