"""A pod that lists one ResourceClaim under two entries (upstream-dra-claim-listed-twice,
docs/upstream-deviations.md): the claim is allocated once per listing, the binding cycle fails
at PreBind, and the failure is handled as upstream's handleBindingCycleError does (the forgotten
assumed pod is an AssignedPod/Delete event; the pod's own nomination for binding is a cluster
change). Each case runs on the reference and, when it is built, on the upstream subject."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available
from oracles.upstream_deviations import catalogue

ENTRY = catalogue()["upstream-dra-claim-listed-twice"]
ALREADY = ("running PreBind plugin \"DynamicResources\": claim default/shared got allocated "
           "elsewhere in the meantime")


def _subjects() -> list[Any]:
    up = pytest.param("upstream", marks=pytest.mark.skipif(
        not binary_available(), reason="the upstream subject is not built"))
    return ["reference", up]


@pytest.fixture(params=_subjects())
def subject(request: pytest.FixtureRequest) -> Iterator[ReferenceSubject | UpstreamSubject]:
    s: ReferenceSubject | UpstreamSubject = (ReferenceSubject() if request.param == "reference"
                                             else UpstreamSubject())
    yield s
    s.close()


def _scenario() -> ScenarioInput:
    return ScenarioInput.read(ENTRY.scenario)


def _attempts(subject: ReferenceSubject | UpstreamSubject,
              scenario: ScenarioInput) -> list[tuple[str, str, float, str]]:
    doc = subject.run(scenario).result
    return [(a["pod"], a["outcome"], a["time"], a.get("message", ""))
            for a in doc["attempts"]]


def _slice(scenario: ScenarioInput) -> dict[str, Any]:
    return next(d for d in scenario.documents if d.get("kind") == "ResourceSlice")


def test_the_binding_cycle_fails_once_then_the_retry_binds(
        subject: ReferenceSubject | UpstreamSubject) -> None:
    scenario = _scenario()
    assert [a[:3] for a in _attempts(subject, scenario)] == [
        ("default/twice", "Error", 0.0), ("default/twice", "Bound", 2.0)]
    assert _attempts(subject, scenario)[0][3] == ALREADY
    doc = subject.run(scenario).result
    entries = doc["resourceClaims"]["default/twice"]
    assert [e["name"] for e in entries] == ["first", "second"]
    # the claim got one device, the same for both entries
    devices = {d["device"] for e in entries for d in e["allocation"]["devices"]}
    assert len(devices) == 1


def test_with_only_the_devices_the_claim_needs_the_pod_never_fits(
        subject: ReferenceSubject | UpstreamSubject) -> None:
    scenario = _scenario()
    _slice(scenario)["spec"]["devices"] = _slice(scenario)["spec"]["devices"][:1]
    attempts = _attempts(subject, scenario)
    assert [a[:2] for a in attempts] == [("default/twice", "Unschedulable")]
    assert "cannot allocate all claims" in attempts[0][3]


def test_a_failed_binding_cycle_requeues_pods_that_forgetting_the_pod_may_help(
        subject: ReferenceSubject | UpstreamSubject) -> None:
    """``big`` (more CPU than is left beside ``twice``) is rejected by NodeResourcesFit first;
    forgetting the assumed ``twice`` moves it to the backoff queue (AssignedPod/Delete), so it
    is tried again at once, before ``twice``'s error backoff ends."""
    scenario = _scenario()
    twice = next(d for d in scenario.documents if d.get("kind") == "Pod")
    twice["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "3"}
    twice["metadata"]["creationTimestamp"] = "2024-01-01T00:00:01Z"
    big = copy.deepcopy(twice)
    big["metadata"] = {"name": "big", "namespace": "default",
                       "creationTimestamp": "2024-01-01T00:00:00Z"}
    big["spec"] = {"containers": [{"name": "c", "image": "nginx",
                                   "resources": {"requests": {"cpu": "5"}}}]}
    scenario.documents.append(big)
    assert [a[:3] for a in _attempts(subject, scenario)] == [
        ("default/big", "Unschedulable", 0.0),
        ("default/twice", "Error", 0.0),
        ("default/big", "Unschedulable", 0.0),  # moved by AssignedPod/Delete
        ("default/twice", "Bound", 2.0),
        ("default/big", "Unschedulable", 330.0),  # the unschedulable pods' leftover flush
    ]
