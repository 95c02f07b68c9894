"""strategies/dra_holders.py: bound pods holding the special claim of their extended resources
backed by DRA. The holder and its claim are what DynamicResources' PreBind writes for the same
pod (extendeddynamicresources.go createExtendedResourceClaimInAPI, dynamicresources.go
bindClaim), on both subjects; the ``dra`` family draws them and releases them."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.search import hypothesis_test
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject
from reference_impl.testing.wrappers import make_gpu_slice, make_node
from strategies.dra import EXTENDED_RESOURCE, GPU_DRIVER, IMPLICIT_PREFIX, device_class
from strategies.dra_holders import ER_HOLDER, ER_WAITER, _holder, extended_resource_holders

Doc = dict[str, Any]
IMPLICIT = IMPLICIT_PREFIX + GPU_DRIVER
KEYS = ("bindings", "pending", "resourceClaims", "extendedResourceClaimStatus")


def cluster(resource: str = IMPLICIT) -> list[Doc]:
    """node-1 with three GPUs; the GPU class maps ``resource`` when it is not its implicit
    name."""
    cls = device_class(GPU_DRIVER)
    if resource != IMPLICIT:
        cls["spec"]["extendedResourceName"] = resource
    return [make_node("node-1").allocatable(cpu="8", memory="32Gi", pods="110").manifest(),
            cls, make_gpu_slice("node-1", GPU_DRIVER, ["a100"] * 3).manifest()]


def pending_twin(holder: Doc) -> Doc:
    """The holder as it was before it was scheduled: no node, no status."""
    return {**holder, "spec": {k: v for k, v in holder["spec"].items() if k != "nodeName"},
            "status": {}}


def results(subject: ReferenceSubject | UpstreamSubject, docs: list[Doc]) -> dict[str, Any]:
    return subject.run(ScenarioInput(docs, name="er-holder")).result


def check_written(res: dict[str, Any], holder: Doc, claim: Doc) -> None:
    key = f"default/{ER_HOLDER}"
    assert res["bindings"] == {key: "node-1"}
    [entry] = res["resourceClaims"][key]
    assert entry["claim"] == claim["metadata"]["name"]
    assert entry["allocation"]["devices"] == claim["status"]["allocation"]["devices"]["results"]
    assert res["extendedResourceClaimStatus"][key] == holder["status"][
        "extendedResourceClaimStatus"]


@pytest.mark.parametrize("resource", [IMPLICIT, EXTENDED_RESOURCE])
def test_the_holder_is_what_prebind_writes_on_the_reference(resource: str) -> None:
    holder, claim = _holder("node-1", resource, "node-1", ["gpu-0", "gpu-1"])
    check_written(results(ReferenceSubject(), [*cluster(resource), pending_twin(holder)]),
                  holder, claim)


@pytest.mark.parametrize("resource", [IMPLICIT, EXTENDED_RESOURCE])
def test_the_holder_is_what_prebind_writes_upstream(upstream: UpstreamSubject,
                                                    resource: str) -> None:
    holder, claim = _holder("node-1", resource, "node-1", ["gpu-0", "gpu-1"])
    check_written(results(upstream, [*cluster(resource), pending_twin(holder)]), holder, claim)


@pytest.mark.parametrize("subject", ["reference", "upstream"])
def test_a_holder_that_stays_is_reported_with_its_claim_and_status(
        subject: str, request: pytest.FixtureRequest) -> None:
    """The result reports every bound pod's ``status.extendedResourceClaimStatus``, the input's
    holder's too (upstream/dra.go extendedClaimStatuses reads it from the pod; the reference
    reported only what its PreBind wrote, found by ``diff --sizes dra=40 --seed 2``)."""
    s = ReferenceSubject() if subject == "reference" else request.getfixturevalue("upstream")
    holder, claim = _holder("node-1", IMPLICIT, "node-1", ["gpu-0"])
    res = results(s, [*cluster(), holder, claim])
    key = f"default/{ER_HOLDER}"
    assert res["extendedResourceClaimStatus"] == {
        key: holder["status"]["extendedResourceClaimStatus"]}
    [entry] = res["resourceClaims"][key]
    assert (entry["claim"], [d["device"] for d in entry["allocation"]["devices"]]) == \
        (claim["metadata"]["name"], ["gpu-0"])


def released() -> list[Doc]:
    """The holder keeps two of the three GPUs; the waiter asks for all three; at 2s the
    timeline deletes the holder."""
    holder, claim = _holder("node-1", IMPLICIT, "node-1", ["gpu-0", "gpu-1"])
    waiter = {"apiVersion": "v1", "kind": "Pod",
              "metadata": {"name": ER_WAITER, "namespace": "default"},
              "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause",
                                       "resources": {"requests": {IMPLICIT: "3"},
                                                     "limits": {IMPLICIT: "3"}}}]}}
    timeline = {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": [
        {"at": "2s", "action": "deletePod", "pod": f"default/{ER_HOLDER}"}]}}
    return [*cluster(), holder, claim, waiter, timeline]


@pytest.mark.parametrize("subject", ["reference", "upstream"])
def test_the_waiter_gets_the_gpus_when_the_holder_goes(
        subject: str, request: pytest.FixtureRequest) -> None:
    s = ReferenceSubject() if subject == "reference" else request.getfixturevalue("upstream")
    res = results(s, released())
    key = f"default/{ER_WAITER}"
    assert res["bindings"] == {key: "node-1"}
    assert [(a["time"], a["outcome"]) for a in res["attempts"] if a["pod"] == key] == \
        [(0, "Unschedulable"), (2, "Bound")]
    [entry] = res["resourceClaims"][key]
    assert [d["device"] for d in entry["allocation"]["devices"]] == ["gpu-0", "gpu-1", "gpu-2"]


def test_the_dra_family_draws_holders_and_releases_them() -> None:
    """``diff --sizes dra=40`` draws ``er-holder`` in some scenarios; in one the timeline
    releases its GPUs and ``er-waiter``, first rejected, is bound. Searched over a few seeds
    (not one fixed seed: any change to the generators moves what a seed draws)."""
    outcomes: list[list[str]] = []

    def body(scenario: ScenarioInput) -> None:
        names = {d["metadata"]["name"] for d in scenario.documents if d.get("kind") == "Pod"}
        if ER_HOLDER not in names:
            return
        result = ReferenceSubject().run(scenario).result
        assert f"default/{ER_HOLDER}" not in result["pending"]
        outcomes.append([a["outcome"] for a in result["attempts"]
                         if a["pod"] == f"default/{ER_WAITER}"])

    def waiter_bound() -> bool:
        return any(o[:1] == ["Unschedulable"] and o[-1] == "Bound" for o in outcomes)

    for seed in range(1, 7):
        hypothesis_test("dra", 40, seed, body, False)()
        if len(outcomes) >= 3 and waiter_bound():
            break
    assert len(outcomes) >= 3, outcomes
    assert waiter_bound(), outcomes


def _holder_events(timeline: Doc | None) -> list[Doc]:
    return [e for e in ((timeline or {}).get("spec") or {}).get("events") or ()
            if e.get("pod") == f"default/{ER_HOLDER}"]


@pytest.mark.parametrize("deletes_node", [False, True])
def test_no_event_targets_a_holder_whose_node_the_timeline_deletes(deletes_node: bool) -> None:
    """The holder is bound to its node: a timeline that deletes the node takes it, and an
    event on it afterwards is refused by the loader (the reference rejected such a scenario
    and the oracles raised on the upstream subject's run: soundness campaign, dra seed 1).
    Without the node's deletion the holder's release is drawn."""
    nodes = [{"action": "deleteNode", "at": 0, "node": "node-1"}] if deletes_node else []
    timeline = {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": nodes}}
    docs = cluster()
    docs[-1]["metadata"]["name"] = "node-1-gpu"  # the generator's name of a node's GPU slice
    seen: list[int] = []

    @settings(max_examples=60, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def body(data: st.DataObject) -> None:
        out, tl = data.draw(extended_resource_holders(docs, copy.deepcopy(timeline), True))
        if any(d["metadata"]["name"] == ER_HOLDER for d in out if d.get("kind") == "Pod"):
            seen.append(len(_holder_events(tl)))

    body()
    assert seen
    assert (max(seen) == 0) == deletes_node, seen
