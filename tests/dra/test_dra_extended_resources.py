"""Extended resources backed by DRA (DRAExtendedResource, GA in v1.37): a pod requests
``example.com/gpu`` (a DeviceClass's ``extendedResourceName``) or
``deviceclass.resource.kubernetes.io/<class>`` in ``resources.requests``; NodeResourcesFit
leaves it to DynamicResources on nodes that do not advertise it (fit.go
shouldDelegateResourceToDRA), and DynamicResources allocates devices for it through a claim it
creates in PreBind (extendeddynamicresources.go). The reference's results; the same scenarios
on the upstream subject when it is built."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conformance.core.documents import explanation_doc, schema
from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.normalize import normalize_explanation
from conformance.engines.golden import read_scenario_file
from conformance.reporters.tables import explanation_table
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject
from reference_impl.dra.extendedresourcecache import ExtendedResourceCache
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.dra import DeviceClass, DRAObjects
from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_documents
from reference_impl.model.objects import Container
from reference_impl.plugins.dynamicresources import (
    SPECIAL_CLAIM_IN_MEM_NAME,
    STATE_KEY,
    DynamicResources,
)
from reference_impl.plugins.dynamicresources.extendeddynamicresources import (
    ContainerExtendedResourceRequest,
    create_requests_and_mappings,
)
from reference_impl.plugins.noderesources.fit import Fit
from reference_impl.scheduler.explain import explain
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.testing.wrappers import (
    make_device_class,
    make_gpu_slice,
    make_node,
    make_pod,
    make_resource_claim,
)

GPU = "gpu.example.com"
EXT = "example.com/gpu"
IMPLICIT = "deviceclass.resource.kubernetes.io/gpu"
FEATURES = {"DynamicResourceAllocation": True, "DRAExtendedResource": True}

Doc = dict[str, Any]


def node(name: str, **allocatable: str) -> Doc:
    return make_node(name).allocatable(cpu="8", memory="32Gi", pods="110",
                                       **allocatable).manifest()


def gpu_class(extended: str | None = EXT) -> Doc:
    c = make_device_class("gpu").driver(GPU)
    return (c.extended_resource_name(extended) if extended else c).manifest()


def pod(name: str, resource: str = EXT, count: int = 1, priority: int | None = None) -> Doc:
    p = make_pod(name).namespace("default").req({resource: count})
    return (p.priority(priority) if priority is not None else p).manifest()


def cluster(gpus: int = 2) -> list[Doc]:
    """node-1 with a slice of ``gpus`` GPUs, node-2 without; the class maps example.com/gpu."""
    return [node("node-1"), node("node-2"), gpu_class(),
            make_gpu_slice("node-1", GPU, ["a100"] * gpus).manifest()]


def device(request: str, dev: str) -> dict[str, str]:
    return {"request": request, "driver": GPU, "pool": "node-1", "device": dev}


def claims_of(result: dict[str, Any]) -> dict[str, list[tuple[str, list[str]]]]:
    """Per pod: (entry name, devices) of its claims."""
    return {p: [(c["name"], [d["device"] for d in (c["allocation"] or {}).get("devices", [])])
                for c in v] for p, v in (result.get("resourceClaims") or {}).items()}


def run_reference(docs: list[Doc]) -> dict[str, Any]:
    return ReferenceSubject().run(ScenarioInput(docs, name="dra-extended")).result


def last_attempts(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["pod"]: a for a in result["attempts"]}


# ----- the reference -------------------------------------------------------------------------

def test_pod_gets_devices_on_the_node_with_a_slice_only() -> None:
    res = run_reference([*cluster(), pod("p0")])
    assert res["bindings"] == {"default/p0": "node-1"}
    [entry] = res["resourceClaims"]["default/p0"]
    assert entry["name"] == SPECIAL_CLAIM_IN_MEM_NAME
    assert entry["claim"].startswith("p0-extended-resources-") and len(entry["claim"]) == 27
    assert entry["allocation"] == {"devices": [device("container-0-request-0", "gpu-0")]}


def test_extended_resource_claim_status() -> None:
    """PreBind patches the pod's status.extendedResourceClaimStatus: the created claim's name
    and, per container and extended resource, the claim's device request serving it
    (patchPodExtendedResourceClaimStatus); a pod served by a device plugin has none."""
    two = make_pod("p-two").namespace("default").req({EXT: 1}).req({EXT: 1}).manifest()
    res = run_reference([node("node-dp", **{EXT: "1"}), *cluster(), two, pod("p-dp")])
    status = res["extendedResourceClaimStatus"]
    claim = res["resourceClaims"]["default/p-two"][0]["claim"]
    assert status["default/p-two"] == {"resourceClaimName": claim, "requestMappings": [
        {"containerName": "con0", "resourceName": EXT, "requestName": "container-0-request-0"},
        {"containerName": "con1", "resourceName": EXT,
         "requestName": "container-1-request-0"}]}
    assert res["bindings"]["default/p-dp"] == "node-dp"
    assert set(status) == {"default/p-two"}


def test_node_without_devices_is_filtered_by_dynamic_resources() -> None:
    """node-2 has no slice: Fit lets the pod through (the node does not advertise the
    resource), DynamicResources cannot allocate the special claim there."""
    handle = FakeHandle(features=FEATURES, dra=_objects(classes=[
        DeviceClass("gpu", extended_resource_name=EXT)]))
    pl = DynamicResources(None, handle)
    fit = Fit(None, handle)
    p = make_pod("p0").namespace("default").req({EXT: 1}).obj()
    state = CycleState()
    n2 = NodeInfo(make_node("node-2").allocatable(cpu="8", memory="32Gi", pods="110").obj())
    assert fit.pre_filter(state, p, [n2]) == (None, None)
    assert fit.filter(state, p, n2) is None
    assert pl.pre_filter(state, p, [n2]) == (None, None)
    s = state.get(STATE_KEY)
    assert s.claims.extended_resource_claim().name == SPECIAL_CLAIM_IN_MEM_NAME
    assert s.pod_scalar_resources == {EXT: 1}
    st = pl.filter(state, p, n2)
    assert st is not None and st.reasons == ["cannot allocate all claims"]


def test_implicit_class_name() -> None:
    """``deviceclass.resource.kubernetes.io/<class>`` works without extendedResourceName."""
    docs = [node("node-1"), node("node-2"), gpu_class(None),
            make_gpu_slice("node-1", GPU, ["a100"]).manifest(), pod("p0", IMPLICIT)]
    res = run_reference(docs)
    assert res["bindings"] == {"default/p0": "node-1"}
    assert claims_of(res) == {"default/p0": [(SPECIAL_CLAIM_IN_MEM_NAME, ["gpu-0"])]}


def test_unmapped_extended_resource_stays_with_fit() -> None:
    """Without a class mapping it, example.com/gpu is a plain extended resource: no node
    advertises it, so Fit rejects every node."""
    docs = [node("node-1"), gpu_class(None), make_gpu_slice("node-1", GPU, ["a100"]).manifest(),
            pod("p0")]
    res = run_reference(docs)
    assert res["bindings"] == {}
    assert last_attempts(res)["default/p0"]["reasons"] == {"node-1": [f"Insufficient {EXT}"]}


def test_node_advertising_the_resource_uses_the_device_plugin() -> None:
    """node-dp advertises example.com/gpu: 1 in allocatable, so its device plugin serves the
    resource (Fit counts it, no claim); node-1 serves it by DRA. Three pods: one on
    node-dp without a claim, two on node-1 with devices; the fourth finds neither."""
    docs = [node("node-dp", **{EXT: "1"}), node("node-1"), gpu_class(),
            make_gpu_slice("node-1", GPU, ["a100"] * 2).manifest(),
            *(pod(f"p{i}") for i in range(4))]
    res = run_reference(docs)
    bound = res["bindings"]
    assert sorted(bound.values()) == ["node-1", "node-1", "node-dp"]
    on_dp = next(p for p, n in bound.items() if n == "node-dp")
    assert on_dp not in (res.get("resourceClaims") or {})
    assert sorted(d for p, v in claims_of(res).items() for _, ds in v for d in ds) == \
        ["gpu-0", "gpu-1"]
    [pending] = res["pending"]
    assert last_attempts(res)[pending]["reasons"] == {
        "node-dp": [f"Insufficient {EXT}"], "node-1": ["cannot allocate all claims"]}


def test_devices_of_earlier_pods_are_not_reused() -> None:
    """Two GPUs: a pod asking for two takes both; the next pods find none."""
    res = run_reference([*cluster(), pod("p-two", count=2), pod("p-one"), pod("p-other")])
    assert res["bindings"] == {"default/p-two": "node-1"}
    assert claims_of(res) == {"default/p-two": [(SPECIAL_CLAIM_IN_MEM_NAME,
                                                 ["gpu-0", "gpu-1"])]}
    assert res["pending"] == ["default/p-one", "default/p-other"]
    for p in res["pending"]:
        a = last_attempts(res)[p]
        assert a["outcome"] == "Unschedulable"
        assert a["reasons"] == {"node-1": ["cannot allocate all claims"],
                                "node-2": ["cannot allocate all claims"]}
        assert a["message"] == (
            "0/2 nodes are available: 2 cannot allocate all claims. preemption: 0/2 nodes are "
            "available: 2 Preemption is not helpful for scheduling.")


LOW_UID = "0b0b0b0b-0000-4000-8000-00000000000a"


def preemption() -> list[Doc]:
    """node-1's only GPU is held by the bound pod ``low`` (priority 1) through its
    extended-resource claim; ``high`` (priority 100) asks for a GPU."""
    low = make_pod("low").namespace("default").uid(LOW_UID).priority(1).req({EXT: 1}) \
        .node("node-1").manifest()
    held = make_resource_claim("low-extended-resources-abcde") \
        .extended_resources_of("low", LOW_UID) \
        .request_with_name("container-0-request-0", "gpu") \
        .allocation([("container-0-request-0", GPU, "node-1", "gpu-0")], node="node-1") \
        .reserved_for_pod("low", LOW_UID).manifest()
    return [*cluster(1), low, held, pod("high", priority=100)]


def test_preemption_does_not_free_devices() -> None:
    """DynamicResources has no PreFilterExtensions: removing the victim in the dry run does
    not free its devices, so ``high`` finds node-1 unresolvable and preempts nobody."""
    res = run_reference(preemption())
    assert res["bindings"] == {"default/low": "node-1"}
    assert res["pending"] == ["default/high"]
    a = last_attempts(res)["default/high"]
    assert a["reasons"] == {"node-1": ["cannot allocate all claims"],
                            "node-2": ["cannot allocate all claims"]}
    assert a["message"].endswith("preemption: 0/2 nodes are available: 2 Preemption is not "
                                 "helpful for scheduling.")


STALE_UID = "0b0b0b0b-0000-4000-8000-00000000000b"


def stale_claim() -> list[Doc]:
    """A pending pod whose extended-resource claim from an earlier cycle exists already
    (with requests, not allocated)."""
    p = make_pod("p0").namespace("default").uid(STALE_UID).req({EXT: 1}).manifest()
    old = make_resource_claim("p0-extended-resources-zzzzz") \
        .extended_resources_of("p0", STALE_UID) \
        .request_with_name("container-0-request-0", "gpu").manifest()
    return [*cluster(), p, old]


def test_claim_of_an_earlier_cycle_is_deleted() -> None:
    """Filter rejects every node for a claim from an earlier cycle ("cannot schedule extended
    resource claim") and PostFilter deletes it. The deletion of an unallocated claim does not
    requeue the pod (isSchedulableAfterClaimChange), so it stays pending, as upstream."""
    res = run_reference(stale_claim())
    assert res["bindings"] == {}
    assert res["pending"] == ["default/p0"]
    [a] = res["attempts"]
    assert a["reasons"] == {"node-1": ["cannot schedule extended resource claim"],
                            "node-2": ["cannot schedule extended resource claim"]}
    assert a["message"] == (
        "0/2 nodes are available: 2 cannot schedule extended resource claim. deletion of "
        "ResourceClaim completed, preemption: 0/2 nodes are available: 2 Preemption is not "
        "helpful for scheduling.")


def test_user_claim_and_extended_resource_together() -> None:
    """A pod with a ResourceClaim and an extended resource: both are allocated, the user claim
    first, the special claim listed after the pod's claims."""
    docs = [*cluster(3),
            make_resource_claim("one").request_with_name("gpu", "gpu").manifest(),
            make_pod("p0").namespace("default").req({EXT: 2}).resource_claim(
                "mine", claim="one").manifest()]
    res = run_reference(docs)
    assert res["bindings"] == {"default/p0": "node-1"}
    assert claims_of(res) == {"default/p0": [("mine", ["gpu-0"]),
                                             (SPECIAL_CLAIM_IN_MEM_NAME, ["gpu-1", "gpu-2"])]}


def test_explain_shows_the_claims_and_the_extended_resource_claim_status() -> None:
    """explain (reference only): the devices each claim would get on the selected node, the
    special claim last (not created yet: no name), and the extendedResourceClaimStatus
    PreBind would patch, in the Explanation document (valid for its schema, not compared by
    the lockstep normalization) and its table; the same devices the simulation gives."""
    docs = [*cluster(3),
            make_resource_claim("one").request_with_name("gpu", "gpu").manifest(),
            make_pod("p0").namespace("default").req({EXT: 2}).resource_claim(
                "mine", claim="one").manifest()]
    loaded = load_documents(docs)
    got = explain(Scheduler(loaded.cluster), loaded.cluster.pods[0])
    assert got.selected == "node-1"
    assert [(c["name"], c["claim"], [d["device"] for d in c["allocation"]["devices"]])
            for c in got.resource_claims] == [
        ("mine", "one", ["gpu-0"]), (SPECIAL_CLAIM_IN_MEM_NAME, None, ["gpu-1", "gpu-2"])]
    assert got.extended_resource_claim_status == {"requestMappings": [
        {"containerName": "con0", "resourceName": EXT,
         "requestName": "container-0-request-0"}]}
    doc = explanation_doc(got)
    jsonschema.validate(doc, schema("Explanation"))
    assert doc["resourceClaims"] == got.resource_claims
    assert "resourceClaims" not in normalize_explanation(doc)
    table = explanation_table(doc)
    assert "gpu.example.com/node-1/gpu-1, gpu.example.com/node-1/gpu-2" in table
    assert "con0/example.com/gpu -> container-0-request-0" in table
    assert claims_of(run_reference(docs))["default/p0"] == [
        ("mine", ["gpu-0"]), (SPECIAL_CLAIM_IN_MEM_NAME, ["gpu-1", "gpu-2"])]


def test_explain_of_an_unschedulable_pod_shows_no_claims() -> None:
    loaded = load_documents([node("node-2"), gpu_class(), pod("p0")])
    got = explain(Scheduler(loaded.cluster), loaded.cluster.pods[0])
    assert got.selected is None
    assert got.resource_claims == [] and got.extended_resource_claim_status is None
    assert "resourceClaims" not in explanation_doc(got)


#: oracles/deviations: a device-plugin node, a DeviceClass mapping its resource, a user claim.
EMPTY_MAPPINGS_FILE = str(Path(__file__).parents[2] / "oracles" / "deviations"
                          / "dra-extended-resource-device-plugin-with-claim.yaml")
EMPTY_MAPPINGS_ERROR = ('running PreBind plugin "DynamicResources": nil or empty request '
                        "mappings, no update of pod default/cache-0 ExtendedResourceClaimStatus")


def attempts_of(result: dict[str, Any], pod_key: str) -> list[tuple[float, str, str]]:
    return [(a["time"], a["outcome"], a["message"]) for a in result["attempts"]
            if a["pod"] == pod_key]


def test_device_plugin_node_with_a_user_claim_fails_prebind_on_every_attempt() -> None:
    """The node advertises example.com/gpu, so Filter leaves it to the device plugin, but the
    pod's own claim keeps the extended-resource claim in play with no requests and no request
    mappings: PreBind creates it, then fails (patchPodExtendedResourceClaimStatus); Unreserve
    deletes it and the pod retries after each backoff (1s, 2s, 4s, 8s, 10s), never bound
    (upstream-dra-extended-resource-empty-mappings)."""
    scenario, _, _ = read_scenario_file(EMPTY_MAPPINGS_FILE)
    res = ReferenceSubject().run(scenario).result
    assert res["bindings"] == {} and res["pending"] == ["default/cache-0"]
    assert attempts_of(res, "default/cache-0") == [
        (t, "Error", EMPTY_MAPPINGS_ERROR) for t in (0, 2, 5, 10, 19, 30)]
    assert not res.get("resourceClaims"), "Unreserve left an allocation or the created claim"


def test_device_plugin_node_without_a_user_claim_binds() -> None:
    """Without the user claim the same pod binds at once with the device plugin's resource:
    only the user claim brings the empty extended-resource claim to PreBind."""
    scenario, _, _ = read_scenario_file(EMPTY_MAPPINGS_FILE)
    docs = [d for d in scenario.documents if d["kind"] != "ResourceClaim"]
    for d in docs:
        if d["kind"] == "Pod":
            d["spec"].pop("resourceClaims")
    res = run_reference(docs)
    assert res["bindings"] == {"default/cache-0": "node-0"}
    assert attempts_of(res, "default/cache-0") == [(0, "Bound", "")]


def test_sign_pod_refuses_pods_with_dra_backed_resources() -> None:
    handle = FakeHandle(features=FEATURES, dra=_objects(classes=[
        DeviceClass("gpu", extended_resource_name=EXT)]))
    fit = Fit(None, handle)
    _, st = fit.sign_pod(make_pod("p").req({EXT: 1}).obj())
    assert st is not None and st.reasons == [
        "signature disabled when dra extended resources are used in the cluster"]
    frags, st = fit.sign_pod(make_pod("p").req({"example.com/fpga": 1}).obj())
    assert st is None and frags


def test_requests_and_mappings_for_init_containers_and_sidecars() -> None:
    """createRequestsAndMappings: regular containers and sidecars get their own requests; a
    plain init container reuses the requests of later long-lived containers and asks only for
    the rest, the largest of those extra requests serving every init container."""
    cache = ExtendedResourceCache([DeviceClass("gpu", extended_resource_name=EXT)])
    p = make_pod("p").obj()
    p.init_containers = (Container("init-a", requests=((EXT, Fraction(3)),)),
                         Container("side", requests=((EXT, Fraction(1)),),
                                   restart_policy="Always"),
                         Container("init-b", requests=((EXT, Fraction(2)),)))
    p.containers = (Container("main", requests=(("cpu", Fraction(1)), (EXT, Fraction(1)))),)
    requests, mappings = create_requests_and_mappings(p, {EXT: 4}, cache)
    got = [(r.name, r.exactly.count if r.exactly else None) for r in requests]
    # init-a (index 0) reuses side (1) and main (1): 3 - 2 = 1 extra; init-b reuses main: 1.
    assert got == [("container-0-request-0", 1), ("container-1-request-0", 1),
                   ("container-3-request-1", 1)]
    assert mappings == [
        ContainerExtendedResourceRequest("side", EXT, "container-1-request-0"),
        ContainerExtendedResourceRequest("main", EXT, "container-3-request-1"),
        ContainerExtendedResourceRequest("init-a", EXT, "container-1-request-0"),
        ContainerExtendedResourceRequest("init-a", EXT, "container-3-request-1"),
        ContainerExtendedResourceRequest("init-a", EXT, "container-0-request-0"),
        ContainerExtendedResourceRequest("init-b", EXT, "container-3-request-1"),
        ContainerExtendedResourceRequest("init-b", EXT, "container-0-request-0")]


def test_extended_resource_cache_conflicts() -> None:
    """Two classes naming one extended resource: the smaller name wins (equal creation
    timestamps) and the other maps nothing, not even its implicit name."""
    cache = ExtendedResourceCache([DeviceClass("b", extended_resource_name=EXT),
                                   DeviceClass("a", extended_resource_name=EXT)])
    assert cache.get_device_class(EXT) == DeviceClass("a", extended_resource_name=EXT)
    assert cache.get_device_class("deviceclass.resource.kubernetes.io/a") is not None
    assert cache.get_device_class("deviceclass.resource.kubernetes.io/b") is None


def test_without_the_gate_the_resource_is_fits_alone() -> None:
    handle = FakeHandle(features={"DynamicResourceAllocation": True,
                                  "DRAExtendedResource": False},
                        dra=_objects(classes=[DeviceClass("gpu", extended_resource_name=EXT)]))
    pl = DynamicResources(None, handle)
    fit = Fit(None, handle)
    p = make_pod("p0").req({EXT: 1}).obj()
    state = CycleState()
    n = NodeInfo(make_node("n").allocatable(cpu="8", memory="32Gi", pods="110").obj())
    assert pl.pre_filter(state, p, [n])[1].code.name == "SKIP"
    fit.pre_filter(state, p, [n])
    st = fit.filter(state, p, n)
    assert st is not None and st.reasons == [f"Insufficient {EXT}"]


def _objects(classes: list[DeviceClass]) -> DRAObjects:
    return DRAObjects(device_classes={c.name: c for c in classes})


HOLDER_UID = "0b0b0b0b-0000-4000-8000-00000000000c"
HOLDER_CLAIM = "holder-extended-resources-x7k2q"


def holder_goes(action: str) -> list[Doc]:
    """A cluster dump's state: ``holder`` runs on node-1 with its only GPU through the claim
    PreBind made for its extended resource, named by its ``status.extendedResourceClaimStatus``;
    ``waiter`` asks for a GPU; at 2s the timeline deletes (or finishes) ``holder``."""
    holder = make_pod("holder").namespace("default").uid(HOLDER_UID).req({EXT: 1}) \
        .node("node-1").phase("Running") \
        .extended_resource_claim_status(HOLDER_CLAIM, ("con0", EXT, "container-0-request-0")) \
        .manifest()
    held = make_resource_claim(HOLDER_CLAIM).extended_resources_of("holder", HOLDER_UID) \
        .request_with_name("container-0-request-0", "gpu") \
        .allocation([("container-0-request-0", GPU, "node-1", "gpu-0")], node="node-1") \
        .reserved_for_pod("holder", HOLDER_UID).manifest()
    timeline = {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": [
        {"at": "2s", "action": action, "pod": "default/holder"}]}}
    return [*cluster(1), holder, held, pod("waiter"), timeline]


@pytest.mark.parametrize("action", ["deletePod", "finishPod"])
def test_the_claim_an_input_pod_status_names_is_released_when_the_pod_goes(action: str) -> None:
    """The resourceclaim controller finds the extended resources' claim of a pod through its
    ``status.extendedResourceClaimStatus`` (resourceclaim.PodClaims), so the input's status is
    read: the claim is deleted when ``holder`` goes and ``waiter`` gets the GPU at 2s
    (before, the status was dropped, the GPU stayed allocated and ``waiter`` never bound)."""
    res = run_reference(holder_goes(action))
    assert res["bindings"] == {"default/waiter": "node-1"}
    assert [(a["time"], a["outcome"]) for a in res["attempts"]
            if a["pod"] == "default/waiter"] == [(0, "Unschedulable"), (2, "Bound")]
    assert claims_of(res) == {"default/waiter": [("<extended-resources>", ["gpu-0"])]}


def test_an_extended_resource_claim_status_without_a_claim_name_is_refused() -> None:
    doc = make_pod("p").namespace("default").req({EXT: 1}).manifest()
    doc["status"] = {"extendedResourceClaimStatus": {"requestMappings": []}}
    with pytest.raises(InputError, match=r"status\.extendedResourceClaimStatus\."
                                         r"resourceClaimName"):
        load_documents([*cluster(1), doc])


# ----- the same scenarios on the upstream subject ---------------------------------------------

SCENARIOS = {
    "explicit": lambda: [*cluster(), pod("p0"), pod("p1"), pod("p2")],
    "implicit": lambda: [node("node-1"), node("node-2"), gpu_class(None),
                         make_gpu_slice("node-1", GPU, ["a100"]).manifest(),
                         pod("p0", IMPLICIT), pod("p1", IMPLICIT)],
    "device-plugin": lambda: [node("node-dp", **{EXT: "1"}), node("node-1"), gpu_class(),
                              make_gpu_slice("node-1", GPU, ["a100"] * 2).manifest(),
                              *(pod(f"p{i}") for i in range(4))],
    "counts": lambda: [*cluster(), pod("p-two", count=2), pod("p-one"), pod("p-other")],
    "preemption": preemption,
    "stale-claim": stale_claim,
    "holder-deleted": lambda: holder_goes("deletePod"),
    "holder-finished": lambda: holder_goes("finishPod"),
    "with-user-claim": lambda: [
        *cluster(3), make_resource_claim("one").request_with_name("gpu", "gpu").manifest(),
        make_pod("p0").namespace("default").req({EXT: 2}).resource_claim(
            "mine", claim="one").manifest()],
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_reference_agrees_with_upstream(upstream: UpstreamSubject, name: str) -> None:
    docs = SCENARIOS[name]()
    up = upstream.run(ScenarioInput(docs, name=name)).result
    ref = run_reference(docs)
    for key in ("bindings", "pending", "resourceClaims", "extendedResourceClaimStatus"):
        assert up.get(key) == ref.get(key), key
    assert {p: (a["outcome"], a["reasons"], a["message"])
            for p, a in last_attempts(up).items()} == \
        {p: (a["outcome"], a["reasons"], a["message"]) for p, a in last_attempts(ref).items()}


def test_empty_request_mappings_match_upstream_attempt_by_attempt(
        upstream: UpstreamSubject) -> None:
    scenario, _, _ = read_scenario_file(EMPTY_MAPPINGS_FILE)
    up = upstream.run(scenario).result
    ref = ReferenceSubject().run(scenario).result
    assert up["stoppedBy"] == ref["stoppedBy"] == "until"
    assert attempts_of(up, "default/cache-0") == attempts_of(ref, "default/cache-0")
    for key in ("bindings", "pending", "resourceClaims",
                "extendedResourceClaimStatus"):
        assert up.get(key) == ref.get(key), key
