"""DRA scenarios shared by the tests of the upstream subject and of the process backend: one
node with a ResourceSlice of 8 GPUs (driver gpu.example.com) and the DeviceClass of the
driver, and pods whose claims take one GPU, share a claim, select by attribute, cannot be
satisfied, or come from a template (the claim written by hand, as the resourceclaim
controller would)."""

from __future__ import annotations

from typing import Any

from reference_impl.testing.wrappers import (
    make_device_class,
    make_gpu_slice,
    make_node,
    make_pod,
    make_resource_claim,
    make_resource_claim_template,
)

GPU = "gpu.example.com"
TEMPLATE_POD_UID = "0b0b0b0b-0000-4000-8000-000000000001"


def gpu_cluster(models: list[str] | None = None) -> list[dict[str, Any]]:
    """One node; a slice of 8 GPUs (gpu-0..3 model a100, gpu-4..7 model h100, index 0..7), or
    one GPU per entry of ``models``; the DeviceClass of the driver."""
    gpus = make_gpu_slice("node-1", GPU, ["a100"] * 4 + ["h100"] * 4 if models is None
                          else models)
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


def allocated() -> list[dict[str, Any]]:
    """One GPU; two pods sharing a claim of two; one h100 by a CEL selector."""
    return [
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


#: the allocations of :func:`allocated` (devices in slice order, the first free match)
ALLOCATED_CLAIMS = {
    "default/p-one": [{"name": "gpu", "claim": "one-gpu",
                       "allocation": {"devices": [device("gpu", "gpu-0")]}}],
    "default/p-share-a": [{"name": "gpu", "claim": "shared", "allocation": {
        "devices": [device("gpus", "gpu-1"), device("gpus", "gpu-2")]}}],
    "default/p-share-b": [{"name": "gpu", "claim": "shared", "allocation": {
        "devices": [device("gpus", "gpu-1"), device("gpus", "gpu-2")]}}],
    "default/p-h100": [{"name": "gpu", "claim": "h100",
                        "allocation": {"devices": [device("gpu", "gpu-4")]}}],
}


def unsatisfiable() -> list[dict[str, Any]]:
    """Nine GPUs of eight; a model no device has."""
    return [
        *gpu_cluster(),
        make_resource_claim("nine").request_with_name("gpus", GPU, 9).manifest(),
        make_resource_claim("b200").request_with_name(
            "gpu", GPU, 1, f'device.attributes["{GPU}"].model == "b200"').manifest(),
        pod("p-nine", claim="nine"),
        pod("p-b200", claim="b200"),
    ]


#: FitError.Error (pkg/scheduler/framework/types.go) with the DynamicResources Filter's reason
#: (dynamicresources.go: "cannot allocate all claims") and DefaultPreemption's verdict
UNSATISFIABLE_MESSAGE = ("0/1 nodes are available: 1 cannot allocate all claims. preemption: "
                         "0/1 nodes are available: 1 Preemption is not helpful for scheduling.")


def from_template() -> list[dict[str, Any]]:
    """A pod whose entry names a template, with the claim the resourceclaim controller would
    have made: owned by the pod, named in its status.resourceClaimStatuses."""
    claim = (make_resource_claim("p-tmpl-gpu-x1").request_with_name("gpu", GPU)
             .meta(ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": "p-tmpl",
                                     "uid": TEMPLATE_POD_UID, "controller": True,
                                     "blockOwnerDeletion": True}]))
    p = (make_pod("p-tmpl").namespace("default").uid(TEMPLATE_POD_UID)
         .container("registry.k8s.io/pause")
         .resource_claim("gpu", template="one-gpu-template")
         .resource_claim_status("gpu", "p-tmpl-gpu-x1"))
    return [*gpu_cluster(), claim.manifest(), p.manifest()]


FROM_TEMPLATE_CLAIMS = {"default/p-tmpl": [
    {"name": "gpu", "claim": "p-tmpl-gpu-x1",
     "allocation": {"devices": [device("gpu", "gpu-0")]}}]}


def template_only() -> list[dict[str, Any]]:
    """Two pods whose entries name a template, and no claim: the claims are left to the
    template-claims pre-pass (``add_template_claims``), as a user's manifests would be."""
    template = (make_resource_claim_template("one-gpu-template")
                .request_with_name("gpu", GPU).manifest())
    return [*gpu_cluster(), template,
            pod("p-tmpl-a", template="one-gpu-template"),
            pod("p-tmpl-b", "accel", template="one-gpu-template")]
