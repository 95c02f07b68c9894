"""Timeline events that write DRA objects (``applyObject``, ``deleteObject``:
reference_impl/model/timeline_objects.py, docs/dra.md#dra-objects-on-the-timeline): parsing and
its errors, the reference's cluster events (scheduler/object_writes.py), the upstream subject
(upstream/timeline_objects.go), the oracles' replay and the backends' plan.

tests/regressions/dra_slice_published_later.yaml: a driver publishes node-0's slice at 30 s
(pod-a pending until then), replaces it at 60 s with a second device (pod-b), deletes it at
90 s. tests/regressions/dra_class_and_taint_rule_timeline.yaml: a DeviceClass created at 20 s
and a DeviceTaintRule deleted at 40 s. dra_claim_allocated_elsewhere_timeline.yaml (there too):
a claim allocated by someone else at 5 s, deallocated at 20 s, deleted at 40 s.
oracles/deviations/dra-allocated-devices-drops-a-shared-device.yaml: a claim allocated at 1 s
to the device pod-a holds, deallocated at 5 s: upstream's allocatedDevices (a set) frees it,
pod-b gets it."""

from __future__ import annotations

import contextlib
import copy
from pathlib import Path
from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.search import hypothesis_test
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available, default_binary
from oracles import run_oracles
from oracles.base import OracleContext, Violation
from oracles.dra_allocations import DROPPED_SHARED_DEVICE
from oracles.upstream_deviations import catalogue
from reference_impl.model.dra import DRAObjects, ResourceClaim, ResourceSlice
from reference_impl.model.errors import InputError
from reference_impl.model.scenario import parse_scenario
from reference_impl.scheduler.object_writes import write_object
from reference_impl.scheduler.queue import events as ev
from reference_impl.testing.resources import make_resource_claim
from tests.backend_scenarios import plan_on_backends

REGRESSIONS = Path(__file__).parent.parent / "regressions"
SLICE_LATER = REGRESSIONS / "dra_slice_published_later.yaml"
CLASS_AND_RULE = REGRESSIONS / "dra_class_and_taint_rule_timeline.yaml"
CLAIM_ELSEWHERE = REGRESSIONS / "dra_claim_allocated_elsewhere_timeline.yaml"
#: the deviation reached through the resourceclaim controller: a pod that went
HOLDER_RELEASED = REGRESSIONS / "dra_holder_released_under_external_claim.yaml"
SHARED_DEVICE = catalogue()[DROPPED_SHARED_DEVICE].scenario  # the upstream deviation's

SLICE: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "metadata": {"name": "s1"},
    "spec": {"driver": "gpu.example.com", "nodeName": "n1",
             "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
             "devices": [{"name": "gpu-0"}]}}


def timeline(*events: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "kschedconf/v1", "kind": "Scenario", "metadata": {"name": "s"},
            "spec": {"events": list(events)}}


def error_of(*events: dict[str, Any]) -> InputError:
    with pytest.raises(InputError) as e:
        parse_scenario(timeline(*events), source="scn.yaml", document=1)
    return e.value


def attempts(result: dict[str, Any]) -> list[tuple[str, str, float, str | None]]:
    return [(a["pod"], a["outcome"], float(a["time"]), a["queue"])
            for a in result["attempts"]]


def devices_of(result: dict[str, Any]) -> dict[str, list[str]]:
    """The devices allocated to each pod's claims."""
    return {k: [d["device"] for c in v for d in c["allocation"]["devices"]]
            for k, v in result["resourceClaims"].items()}


# ----- parsing -----

def test_parse_apply_and_delete() -> None:
    s = parse_scenario(timeline(
        {"at": "30s", "action": "applyObject", "object": SLICE},
        {"at": "40s", "action": "deleteObject", "kind": "DeviceClass", "name": "gpu"}))
    apply, delete = s.events
    assert (apply.kind, apply.name, apply.target) == ("ResourceSlice", "s1", "ResourceSlice/s1")
    assert isinstance(apply.obj, ResourceSlice) and apply.obj.node_name == "n1"
    assert [d.name for d in apply.obj.devices] == ["gpu-0"]
    assert (delete.kind, delete.name, delete.target, delete.obj) == (
        "DeviceClass", "gpu", "DeviceClass/gpu", None)


def test_parse_claim_events_name_the_namespace() -> None:
    """A ResourceClaim is namespaced: its events' name is NAMESPACE/NAME, "default" when the
    manifest or the delete gives none (as for the input's claims and deletePod)."""
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "team-a"},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                 "deviceClassName": "gpu"}}]}}}
    s = parse_scenario(timeline(
        {"at": 1, "action": "applyObject", "object": claim},
        {"at": 2, "action": "deleteObject", "kind": "ResourceClaim", "name": "c"},
        {"at": 3, "action": "deleteObject", "kind": "ResourceClaim", "name": "c",
         "namespace": "team-a"}))
    assert [(e.kind, e.name, e.target) for e in s.events] == [
        ("ResourceClaim", "team-a/c", "ResourceClaim/team-a/c"),
        ("ResourceClaim", "default/c", "ResourceClaim/default/c"),
        ("ResourceClaim", "team-a/c", "ResourceClaim/team-a/c")]
    assert isinstance(s.events[0].obj, ResourceClaim) and s.events[0].obj.namespace == "team-a"


@pytest.mark.parametrize("event, field, message", [
    ({"action": "applyObject", "object": {**SLICE, "kind": "PersistentVolume"}},
     "spec.events[0].object.kind", "expected one of ResourceSlice, DeviceClass, "
                                   "DeviceTaintRule, ResourceClaim"),
    ({"action": "applyObject", "object": {**SLICE, "apiVersion": "resource.k8s.io/v1beta1"}},
     "spec.events[0].object.apiVersion", "expected 'resource.k8s.io/v1' for a ResourceSlice"),
    ({"action": "applyObject", "object": {**SLICE, "metadata": {}}},
     "spec.events[0].object.metadata.name", "required: the object's name"),
    ({"action": "applyObject", "object": {**SLICE, "metadata": {"name": "s1",
                                                                "namespace": "x"}}},
     "spec.events[0].object.metadata.namespace", "a ResourceSlice is cluster-scoped"),
    ({"action": "applyObject", "object": {**SLICE, "spec": {**SLICE["spec"],
                                                            "driver": ""}}},
     "spec.events[0].object.spec.driver", ""),
    ({"action": "applyObject", "object": "not a mapping"},
     "spec.events[0].object", "an object manifest"),
    ({"action": "deleteObject", "kind": "ResourceClaimTemplate", "name": "c"},
     "spec.events[0].kind", "expected one of ResourceSlice, DeviceClass, DeviceTaintRule, "
                            "ResourceClaim"),
    ({"action": "deleteObject", "kind": "ResourceClaim", "name": "c", "namespace": ""},
     "spec.events[0].namespace", "a namespace"),
    ({"action": "deleteObject", "kind": "ResourceSlice", "name": ""},
     "spec.events[0].name", "the object's name"),
    ({"action": "deleteObject", "kind": "ResourceSlice", "name": "s1", "namespace": "d"},
     "spec.events[0].namespace", "a ResourceSlice is cluster-scoped"),
    ({"action": "deleteObject", "name": "s1"}, "spec.events[0].kind", "required"),
    ({"action": "applyObject", "object": SLICE, "kind": "ResourceSlice"},
     "spec.events[0].kind", "unknown field for action applyObject"),
])
def test_parse_errors_name_the_field(event: dict[str, Any], field: str, message: str) -> None:
    e = error_of({"at": "1s", **event})
    assert e.field == field, str(e)
    assert message in str(e)
    assert str(e).startswith("scn.yaml, document 1: Scenario s: ")


# ----- the reference: state and cluster events -----

def test_write_object_events() -> None:
    dra = DRAObjects()
    obj = parse_scenario(timeline({"at": 1, "action": "applyObject", "object": SLICE})
                         ).events[0].obj
    added = write_object(dra, "ResourceSlice", "s1", obj, taint_rules=True)
    assert added is not None and [(e.resource, e.action_type) for e, _, _ in added] == [
        (ev.RESOURCE_SLICE, ev.ADD)]
    replaced = write_object(dra, "ResourceSlice", "s1", obj, taint_rules=True)
    assert replaced is not None and replaced[0][0].action_type == ev.UPDATE
    assert len(dra.slices) == 1
    deleted = write_object(dra, "ResourceSlice", "s1", None, taint_rules=True)
    assert deleted is not None and deleted[0][0].action_type == ev.DELETE and not dra.slices
    assert write_object(dra, "ResourceSlice", "s1", None, taint_rules=True) is None


def test_taint_rule_updates_the_slices_it_taints_only_with_the_gate() -> None:
    rule_doc = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
                "metadata": {"name": "r"},
                "spec": {"deviceSelector": {"device": "gpu-0"},
                         "taint": {"key": "k", "effect": "NoSchedule"}}}
    s = parse_scenario(timeline({"at": 1, "action": "applyObject", "object": SLICE},
                                {"at": 1, "action": "applyObject", "object": rule_doc}))
    for gate, expected in ((True, [(ev.RESOURCE_SLICE, ev.UPDATE)]), (False, [])):
        dra = DRAObjects()
        write_object(dra, "ResourceSlice", "s1", s.events[0].obj, gate)
        got = write_object(dra, "DeviceTaintRule", "r", s.events[1].obj, gate)
        assert got is not None
        assert [(e.resource, e.action_type) for e, _, _ in got] == expected
        assert len(dra.taint_rules) == 1


def test_reference_pod_pends_until_the_slice_is_published() -> None:
    res = ReferenceSubject().run(ScenarioInput.read(SLICE_LATER)).result
    assert attempts(res) == [
        ("default/pod-a", "Unschedulable", 0.0, "activeQ"),
        ("default/pod-b", "Unschedulable", 0.0, "activeQ"),
        ("default/pod-a", "Bound", 30.0, "activeQ"),
        ("default/pod-b", "Unschedulable", 30.0, "activeQ"),
        ("default/pod-b", "Bound", 60.0, "activeQ")]
    assert [a["event"] for a in res["attempts"]][2:] == [
        "resource.k8s.io/ResourceSliceAdd", "resource.k8s.io/ResourceSliceAdd",
        "resource.k8s.io/ResourceSliceUpdate"]
    assert devices_of(res) == {"default/pod-a": ["gpu-0"], "default/pod-b": ["gpu-1"]}
    assert [t["result"] for t in res["timeline"]] == ["applied"] * 3
    assert res["stoppedBy"] == "quiescence" and res["endTime"] == 90.0


def test_reference_class_created_late_and_taint_rule_deleted() -> None:
    res = ReferenceSubject().run(ScenarioInput.read(CLASS_AND_RULE)).result
    assert attempts(res) == [
        ("default/pod-a", "Unschedulable", 0.0, "activeQ"),
        ("default/pod-b", "Bound", 0.0, "activeQ"),
        ("default/pod-a", "Unschedulable", 20.0, "activeQ"),
        ("default/pod-a", "Bound", 40.0, "activeQ")]
    assert [a["event"] for a in res["attempts"]][2:] == [
        "resource.k8s.io/DeviceClassAdd", "resource.k8s.io/ResourceSliceUpdate"]


def test_reference_claim_allocated_and_deallocated_elsewhere() -> None:
    res = ReferenceSubject().run(ScenarioInput.read(CLAIM_ELSEWHERE)).result
    assert attempts(res) == [
        ("default/pod-b", "Gated", 0.0, None),
        ("default/pod-a", "Bound", 0.0, "activeQ"),
        ("default/pod-b", "Unschedulable", 10.0, "activeQ"),
        ("default/pod-b", "Bound", 20.0, "activeQ")]
    assert res["attempts"][3]["event"] == "resource.k8s.io/ResourceClaimUpdate"
    assert devices_of(res) == {"default/pod-a": ["gpu-0"], "default/pod-b": ["gpu-1"]}
    assert [(t["target"], t["result"]) for t in res["timeline"]] == [
        ("ResourceClaim/default/claim-ext", "applied"), ("default/pod-b", "applied"),
        ("ResourceClaim/default/claim-ext", "applied"),
        ("ResourceClaim/default/claim-ext", "applied")]


def test_claim_deleted_elsewhere_moves_the_pod_too() -> None:
    """The delete of an allocated claim (instead of its deallocation) frees the device as
    well: ResourceClaim/Delete, which the hint queues the pod on; a second delete is skipped,
    naming the claim by NAMESPACE/NAME."""
    sc = ScenarioInput.read(CLAIM_ELSEWHERE)
    docs = copy.deepcopy(sc.documents)
    tl = next(d for d in docs if d.get("kind") == "Scenario")
    tl["spec"]["events"][2] = {"at": "20s", "action": "deleteObject", "kind": "ResourceClaim",
                               "name": "claim-ext", "namespace": "default"}
    res = ReferenceSubject().run(sc.derived(documents=docs)).result
    assert attempts(res)[-1] == ("default/pod-b", "Bound", 20.0, "activeQ")
    assert res["attempts"][-1]["event"] == "resource.k8s.io/ResourceClaimDelete"
    assert res["timeline"][-1]["result"] == "skipped: ResourceClaim default/claim-ext not found"


def test_reference_frees_a_device_two_claims_held_when_one_drops_it() -> None:
    """allocatedDevices is a set kept by the claims' events (allocateddevices.go): claim-ext's
    deallocation at 5 s takes gpu-0 out although claim-a still holds it; pod-b, queued by the
    ResourceClaim/Update, is bound on gpu-0 as upstream binds it (found by `kschedconf diff`,
    dra-0009: the reference left pod-b unschedulable)."""
    res = ReferenceSubject().run(ScenarioInput.read(SHARED_DEVICE)).result
    assert attempts(res) == [
        ("default/pod-a", "Bound", 0.0, "activeQ"),
        ("default/pod-b", "Unschedulable", 0.0, "activeQ"),
        ("default/pod-b", "Bound", 5.0, "activeQ")]
    assert res["attempts"][2]["event"] == "resource.k8s.io/ResourceClaimUpdate"
    assert devices_of(res) == {"default/pod-a": ["gpu-0"], "default/pod-b": ["gpu-0"]}


def test_allocated_devices_follow_the_claims_events() -> None:
    """``onUpdate`` between two allocations changes nothing ("both non-nil"); ``removeDevices``
    takes the devices out whichever claim else holds them; until a write, the claims'."""
    def claim(name: str, *devices: str) -> ResourceClaim:
        wrapper = make_resource_claim(name).request("c")
        return (wrapper.allocation([("r", "d", "p", d) for d in devices]) if devices
                else wrapper).obj()

    dra = DRAObjects(claims={"default/a": claim("a", "g0")})
    assert dra.allocated_state(False).allocated == {("d", "p", "g0")}
    dra.write_claim("default/x", claim("x", "g0"))
    dra.write_claim("default/x", claim("x", "g1"))
    assert dra.allocated_state(False).allocated == {("d", "p", "g0")}
    dra.write_claim("default/x", claim("x"))
    assert dra.allocated_state(True).allocated == {("d", "p", "g0")}  # g1 was never in
    dra.write_claim("default/y", claim("y", "g0"))
    dra.write_claim("default/y", None)
    assert dra.allocated_state(False).allocated == set()
    assert set(dra.claims) == {"default/a", "default/x"}


def test_delete_of_an_absent_object_is_skipped() -> None:
    sc = ScenarioInput.read(SLICE_LATER)
    docs = copy.deepcopy(sc.documents)
    tl = next(d for d in docs if d.get("kind") == "Scenario")
    tl["spec"]["events"] = [{"at": "5s", "action": "deleteObject", "kind": "ResourceSlice",
                             "name": "nope"}]
    res = ReferenceSubject().run(sc.derived(documents=docs)).result
    assert res["timeline"][0]["result"] == "skipped: ResourceSlice nope not found"


# ----- the upstream subject -----

@pytest.mark.parametrize("path", [SLICE_LATER, CLASS_AND_RULE, CLAIM_ELSEWHERE, SHARED_DEVICE,
                                  HOLDER_RELEASED], ids=lambda p: p.stem)
def test_upstream_applies_the_writes_as_the_reference(upstream: UpstreamSubject,
                                                      path: Path) -> None:
    sc = ScenarioInput.read(path)
    ref = ReferenceSubject().run(sc).result
    up = upstream.run(sc).result
    assert attempts(ref) == attempts(up)
    assert ref["bindings"] == up["bindings"]
    assert ref["resourceClaims"] == up["resourceClaims"]
    assert [(t["index"], t["target"], t["result"]) for t in ref["timeline"]] == [
        (t["index"], t["target"], t["result"]) for t in up["timeline"]]


@pytest.mark.parametrize("release", ["v1.34.4", "v1.35.4", "v1.36.3"])
@pytest.mark.parametrize("path", [SLICE_LATER, CLASS_AND_RULE, CLAIM_ELSEWHERE, SHARED_DEVICE],
                         ids=lambda p: p.stem)
def test_older_releases_apply_the_writes_as_the_reference(release: str, path: Path) -> None:
    """Before v1.37 (DRADeviceTaintRules off, no v1 DeviceTaintRule served) the rule is not
    applied: in dra_class_and_taint_rule_timeline pod-a is bound when its class comes, and
    the rule's delete changes nothing; on both subjects."""
    if not binary_available(default_binary(release)):
        pytest.skip(f"upstream subject {release} not built: run upstream/build.sh --release")
    sc = ScenarioInput.read(path).derived(release=release)
    ref = ReferenceSubject().run(sc).result
    with contextlib.closing(UpstreamSubject(release=release)) as subject:
        up = subject.run(sc).result
    assert attempts(ref) == attempts(up)
    assert (ref["bindings"], ref["resourceClaims"]) == (up["bindings"], up["resourceClaims"])
    assert [(t["index"], t["target"], t["result"]) for t in ref["timeline"]] == [
        (t["index"], t["target"], t["result"]) for t in up["timeline"]]
    if path == CLASS_AND_RULE:
        assert attempts(ref)[-1] == ("default/pod-a", "Bound", 20.0, "activeQ")


@pytest.mark.parametrize("release", ["v1.36.3", "v1.37.2"])
def test_taint_rule_deletes_skip_the_same_rules(release: str) -> None:
    """A DeviceTaintRule written, deleted twice, and a rule that never was: before v1.37 the
    upstream subject has no API to write rules to (upstream/timeline_objects.go keeps their
    names), the reference keeps them; the results match on both releases."""
    if not binary_available(default_binary(release)):
        pytest.skip(f"upstream subject {release} not built: run upstream/build.sh --release")
    sc = ScenarioInput.read(CLASS_AND_RULE)
    docs = copy.deepcopy(sc.documents)
    tl = next(d for d in docs if d.get("kind") == "Scenario")
    rule = next(d for d in docs if d.get("kind") == "DeviceTaintRule")
    delete = {"action": "deleteObject", "kind": "DeviceTaintRule", "name": "maintenance"}
    tl["spec"]["events"] = [{"at": "10s", **delete}, {"at": "11s", **delete},
                            {"at": "12s", "action": "applyObject", "object": rule},
                            {"at": "13s", **delete, "name": "never"}]
    sc = sc.derived(documents=docs, release=release)
    ref = ReferenceSubject().run(sc).result
    with contextlib.closing(UpstreamSubject(release=release)) as subject:
        up = subject.run(sc).result
    expected = ["applied", "skipped: DeviceTaintRule maintenance not found", "applied",
                "skipped: DeviceTaintRule never not found"]
    assert [t["result"] for t in ref["timeline"]] == expected
    assert [t["result"] for t in up["timeline"]] == expected
    assert attempts(ref) == attempts(up)


# ----- the oracles' replay -----

def bound_earlier(path: Path, index: int) -> list[Violation]:
    """dra_allocations on the reference's run of ``path`` (no violation), then on that run
    with attempt ``index`` (pod-b's last rejection) made its binding, the next one dropped."""
    sc = ScenarioInput.read(path)
    run = ReferenceSubject().run(sc)
    assert run_oracles(OracleContext.build(sc, run), ["dra_allocations"]) == []
    doctored = copy.deepcopy(run.result)
    doctored["attempts"][index]["outcome"] = "Bound"
    doctored["attempts"][index]["node"] = "node-0"
    del doctored["attempts"][index + 1]
    return run_oracles(OracleContext.build(sc, doctored), ["dra_allocations"])


def test_oracles_judge_each_allocation_with_the_slices_of_its_time() -> None:
    # pod-b's gpu-1 exists only from 60 s on: bound at 30 s, it would be a device of no slice
    found = bound_earlier(SLICE_LATER, 3)
    assert [v.pod for v in found] == ["default/pod-b"]
    assert "gpu-1 is in no ResourceSlice" in found[0].message


def test_oracles_see_the_claims_allocated_elsewhere_at_the_binding() -> None:
    """claim-ext holds gpu-1 from 5 s to 20 s: pod-b bound on it at 20 s is fine, at 10 s the
    device would be allocated twice."""
    assert [v.message for v in bound_earlier(CLAIM_ELSEWHERE, 2)] == [
        "device gpu.example.com/node-0/gpu-1 is allocated to 2 claims at once: "
        "default/claim-b, default/claim-ext"]


def test_oracles_allow_one_claim_on_a_device_the_tracker_dropped() -> None:
    """gpu-0 leaves upstream's allocatedDevices at 5 s (claim-ext deallocated): pod-b bound on
    it then is upstream's decision (no violation: bound_earlier's first run); bound at 0 s,
    while the tracker still had it, it is a device allocated twice."""
    assert [v.message for v in bound_earlier(SHARED_DEVICE, 1)] == [
        "device gpu.example.com/node-0/gpu-0 is allocated to 2 claims at once: "
        "default/claim-a, default/claim-b"]


def test_oracles_allow_one_claim_on_a_device_a_released_claim_dropped(
        upstream: UpstreamSubject) -> None:
    """holder's claim, deallocated by the resourceclaim controller at 2 s when holder finishes,
    drops gpu-0 from upstream's allocatedDevices while claim-ext holds it: waiter bound on it
    then is upstream's decision, on both subjects (matches upstream, no violation; the
    soundness campaign reported it as a device allocated twice); bound at 1.5 s, while the
    tracker still had it, it is a violation."""
    sc = ScenarioInput.read(HOLDER_RELEASED)
    for subject in (ReferenceSubject(), upstream):
        run = subject.run(sc)
        assert run.result["bindings"] == {"default/waiter": "node-0"}
        ctx = OracleContext.build(sc, run)
        assert run_oracles(ctx, ["dra_allocations"]) == []
        assert DROPPED_SHARED_DEVICE in ctx.met
    doctored = copy.deepcopy(ReferenceSubject().run(sc).result)
    assert doctored["attempts"][2]["pod"] == "default/waiter"
    doctored["attempts"][2]["time"] = 1.5
    assert [v.message for v in run_oracles(OracleContext.build(sc, doctored),
                                           ["dra_allocations"])] == [
        "device gpu.example.com/node-0/gpu-0 is allocated to 2 claims at once: "
        "default/claim-ext, default/waiter-gpu-hk47d"]


# ----- the backends -----

def test_backends_plan_object_writes() -> None:
    """The backends' timeline writes the objects through the API server (the runs:
    tests/dra/test_process_backend_claim_controller.py)."""
    for path in (SLICE_LATER, CLASS_AND_RULE, CLAIM_ELSEWHERE, SHARED_DEVICE):
        plan_on_backends(ScenarioInput.read(path).documents, "writes")


# ----- the generator -----

def test_the_dra_family_writes_objects_while_pods_wait() -> None:
    """strategies/dra_timeline.py ``dra_object_writes``: ``diff --sizes dra=40`` with
    ``--seed`` 1 to 6 draws each kind of write, and in some scenarios a pod the write
    helps (first rejected) is attempted again because of the write's event."""
    kinds: set[str] = set()
    moved: list[str] = []

    def body(scenario: ScenarioInput) -> None:
        events = [e for d in scenario.documents if d.get("kind") == "Scenario"
                  for e in d["spec"]["events"]
                  if e.get("action") in ("applyObject", "deleteObject")]
        if not events:
            return
        for e in events:  # one write, or a claim allocated elsewhere and deallocated
            kinds.add(f"{e['action']} {e.get('kind') or e['object']['kind']}")
        assert len(events) == 1 or {e["object"]["kind"] for e in events} == {"ResourceClaim"}
        result = ReferenceSubject().run(scenario).result
        moved.extend(a["event"] for a in result["attempts"]
                     if a["event"] in ("resource.k8s.io/ResourceSliceAdd",
                                       "resource.k8s.io/ResourceSliceUpdate",
                                       "resource.k8s.io/DeviceClassAdd"))

    for seed in range(1, 7):
        hypothesis_test("dra", 40, seed, body, False)()
    assert kinds == {"applyObject ResourceSlice", "deleteObject ResourceSlice",
                     "applyObject DeviceClass", "applyObject DeviceTaintRule",
                     "applyObject ResourceClaim"}, kinds
    assert len(moved) >= 2, moved
