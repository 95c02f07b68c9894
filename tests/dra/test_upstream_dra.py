"""The upstream subject with DRA objects: the real DynamicResources plugin allocates devices
from ResourceSlices for pods' ResourceClaims, and the SimulationResult reports the allocations
(``resourceClaims``, docs/dra.md#results).

The expected devices follow the structured allocator's order (k8s.io/dynamic-resource-allocation
v0.37.2, structured/internal/incubating/allocator_incubating.go): the devices of a pool in slice
order, the first free one that matches. Skipped when the upstream binary is not built."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from conformance.core.documents import schema
from conformance.core.scenario import ScenarioInput
from conformance.subjects.upstream import UpstreamSubject, binary_available
from reference_impl.testing.wrappers import (
    make_device,
    make_device_class,
    make_node,
    make_pod,
    make_resource_claim,
    make_resource_slice,
)

pytestmark = pytest.mark.skipif(
    not binary_available(),
    reason="upstream subject not built: run upstream/build.sh (needs Go and the module proxy)")

GPU = "gpu.example.com"


def gpu_cluster() -> list[dict[str, Any]]:
    """One node; a slice of 8 GPUs (gpu-0..3 model a100, gpu-4..7 model h100, index 0..7);
    the DeviceClass of the driver."""
    gpus = make_resource_slice("node-1", GPU)
    for i in range(8):
        gpus.device(make_device(f"gpu-{i}").attributes(
            {"model": "a100" if i < 4 else "h100", "index": i}).capacity({"memory": "80Gi"}))
    return [
        make_node("node-1").allocatable(cpu="8", memory="32Gi", pods="110").manifest(),
        make_device_class(GPU).driver(GPU).manifest(),
        gpus.manifest(),
    ]


def pod(name: str, claim_entry: str = "gpu", **claim: str) -> dict[str, Any]:
    return (make_pod(name).namespace("default").container("registry.k8s.io/pause")
            .resource_claim(claim_entry, **claim).manifest())


def device(request: str, dev: str) -> dict[str, str]:
    return {"request": request, "driver": GPU, "pool": "node-1", "device": dev}


@pytest.fixture(scope="module")
def upstream() -> Iterator[UpstreamSubject]:
    subject = UpstreamSubject()
    yield subject
    subject.close()


def run(upstream: UpstreamSubject, docs: list[dict[str, Any]]) -> dict[str, Any]:
    result = upstream.run(ScenarioInput(docs, name="dra"))
    jsonschema.validate(result.result, schema("SimulationResult"))
    assert not any("resource.k8s.io" in w for w in result.warnings), result.warnings
    return result.result


def test_claims_are_allocated_and_reported(upstream: UpstreamSubject) -> None:
    docs = [
        *gpu_cluster(),
        make_resource_claim("one-gpu").request_with_name("gpu", GPU).manifest(),
        make_resource_claim("shared").request_with_name("gpus", GPU, 2).manifest(),
        make_resource_claim("h100").request_with_name(
            "gpu", GPU, 1, f'device.attributes["{GPU}"].model == "h100"').manifest(),
        pod("p-one", claim="one-gpu"),
        pod("p-share-a", claim="shared"),
        pod("p-share-b", claim="shared"),
        pod("p-h100", claim="h100"),
    ]
    res = run(upstream, docs)
    assert res["bindings"] == {f"default/{p}": "node-1"
                               for p in ("p-one", "p-share-a", "p-share-b", "p-h100")}
    shared = {"devices": [device("gpus", "gpu-1"), device("gpus", "gpu-2")]}
    assert res["resourceClaims"] == {
        "default/p-one": [{"name": "gpu", "claim": "one-gpu",
                           "allocation": {"devices": [device("gpu", "gpu-0")]}}],
        "default/p-share-a": [{"name": "gpu", "claim": "shared", "allocation": shared}],
        "default/p-share-b": [{"name": "gpu", "claim": "shared", "allocation": shared}],
        "default/p-h100": [{"name": "gpu", "claim": "h100",
                            "allocation": {"devices": [device("gpu", "gpu-4")]}}],
    }


def test_unsatisfiable_claim_leaves_the_pod_unschedulable(upstream: UpstreamSubject) -> None:
    docs = [
        *gpu_cluster(),
        make_resource_claim("nine").request_with_name("gpus", GPU, 9).manifest(),
        make_resource_claim("b200").request_with_name(
            "gpu", GPU, 1, f'device.attributes["{GPU}"].model == "b200"').manifest(),
        pod("p-nine", claim="nine"),
        pod("p-b200", claim="b200"),
    ]
    res = run(upstream, docs)
    assert res["bindings"] == {}
    assert res["pending"] == ["default/p-b200", "default/p-nine"]
    assert "resourceClaims" not in res
    last = {a["pod"]: a for a in res["attempts"]}
    for p in ("default/p-nine", "default/p-b200"):
        assert last[p]["outcome"] == "Unschedulable"
        assert last[p]["reasons"] == {"node-1": ["cannot allocate all claims"]}
        # FitError.Error (pkg/scheduler/framework/types.go) with the DRA Filter's reason
        # (dynamicresources.go: "cannot allocate all claims") and DefaultPreemption's verdict
        assert last[p]["message"] == ("0/1 nodes are available: 1 cannot allocate all claims. "
                                      "preemption: 0/1 nodes are available: 1 Preemption is "
                                      "not helpful for scheduling.")


def test_claim_written_for_a_template(upstream: UpstreamSubject) -> None:
    """The claim the resourceclaim controller would create for a template entry, written by
    hand: owned by the pod, named in its status.resourceClaimStatuses."""
    uid = "0b0b0b0b-0000-4000-8000-000000000001"
    claim = (make_resource_claim("p-tmpl-gpu-x1").request_with_name("gpu", GPU)
             .meta(ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": "p-tmpl",
                                     "uid": uid, "controller": True,
                                     "blockOwnerDeletion": True}]))
    p = (make_pod("p-tmpl").namespace("default").uid(uid).container("registry.k8s.io/pause")
         .resource_claim("gpu", template="one-gpu-template")
         .resource_claim_status("gpu", "p-tmpl-gpu-x1"))
    res = run(upstream, [*gpu_cluster(), claim.manifest(), p.manifest()])
    assert res["bindings"] == {"default/p-tmpl": "node-1"}
    assert res["resourceClaims"] == {"default/p-tmpl": [
        {"name": "gpu", "claim": "p-tmpl-gpu-x1",
         "allocation": {"devices": [device("gpu", "gpu-0")]}}]}
