"""Consumable capacity end to end (docs/dra.md "Consumable capacity"): a GPU with
``allowMultipleAllocations`` shares its memory between the claims of several pods. Each
pod's claim consumes what its request rounds up to under the device's ``requestPolicy``
(a valid range of 10Gi steps, default 10Gi); a later pod sees what the earlier ones consumed
(PreBind writes the allocation with its ``consumedCapacity``, GatherAllocatedState sums the
shares), and a request that no longer fits leaves its pod pending. The reference's result is
checked, then compared with the upstream subject's (the real DynamicResources plugin) when
that is built: the same devices, the same share flags, the same consumed capacity."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from conformance.core.documents import schema
from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available

GPU = "gpu.example.com"
V1 = "resource.k8s.io/v1"
GI = 1 << 30


def _claim(name: str, memory: str | None) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": GPU}
    if memory is not None:
        exactly["capacity"] = {"requests": {"memory": memory}}
    return {"apiVersion": V1, "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}}


def _pod(name: str, claim: str, second: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default",
                         "creationTimestamp": f"2025-01-01T00:00:0{second}Z"},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause"}],
                     "resourceClaims": [{"name": "gpu", "resourceClaimName": claim}]}}


def scenario() -> list[dict[str, Any]]:
    """One node, one shared 80Gi GPU; claims of 40Gi, 25Gi (30Gi consumed), 20Gi (no longer
    fits: 90Gi) and none (the default, 10Gi: 80Gi in all), one pod each, in that order."""
    gpu = {"name": "gpu-0", "allowMultipleAllocations": True,
           "attributes": {"model": {"string": "h100"}},
           "capacity": {"memory": {"value": "80Gi", "requestPolicy": {
               "default": "10Gi",
               "validRange": {"min": "10Gi", "step": "10Gi", "max": "80Gi"}}}}}
    docs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
         "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                    "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"}}},
        {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": GPU},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{GPU}"'}}]}},
        {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": "node-1-gpu"},
         "spec": {"driver": GPU, "pool": {"name": "node-1", "generation": 1,
                                          "resourceSliceCount": 1},
                  "nodeName": "node-1", "devices": [gpu]}},
    ]
    for i, memory in enumerate(("40Gi", "25Gi", "20Gi", None)):
        docs.append(_claim(f"c{i}", memory))
        docs.append(_pod(f"p{i}", f"c{i}", i))
    return docs


def _consumed(result: dict[str, Any]) -> dict[str, Any]:
    return {pod: [(d["device"], d.get("shared"), d.get("consumedCapacity"))
                  for c in claims for d in c["allocation"]["devices"]]
            for pod, claims in result.get("resourceClaims", {}).items()}


def test_later_pods_see_the_consumed_capacity() -> None:
    ref = ReferenceSubject().run(ScenarioInput(scenario(), name="dra-shared")).result
    jsonschema.validate(ref, schema("SimulationResult"))
    assert ref["bindings"] == {"default/p0": "node-1", "default/p1": "node-1",
                               "default/p3": "node-1"}
    assert ref["pending"] == ["default/p2"]
    assert _consumed(ref) == {
        "default/p0": [("gpu-0", True, {"memory": str(40 * GI)})],
        "default/p1": [("gpu-0", True, {"memory": str(30 * GI)})],
        "default/p3": [("gpu-0", True, {"memory": str(10 * GI)})],
    }


@pytest.mark.skipif(not binary_available(), reason="upstream subject not built: run "
                    "upstream/build.sh (needs Go and the module proxy)")
def test_the_upstream_subject_consumes_the_same_capacity() -> None:
    upstream = UpstreamSubject()
    try:
        up = upstream.run(ScenarioInput(scenario(), name="dra-shared")).result
    finally:
        upstream.close()
    ref = ReferenceSubject().run(ScenarioInput(scenario(), name="dra-shared")).result
    jsonschema.validate(up, schema("SimulationResult"))
    assert up["bindings"] == ref["bindings"]
    assert up["pending"] == ref["pending"]
    assert up["resourceClaims"] == ref["resourceClaims"]
