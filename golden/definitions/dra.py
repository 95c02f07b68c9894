"""The golden scenarios of area ``dra`` (``golden/dra/``): the DynamicResources plugin of the
default profile (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go) and the
structured allocator it runs (k8s.io/dynamic-resource-allocation/structured, v0.37.2), on the
GPUs of the DRA example driver (docs/dra.md). The decisions are where pods go and which stay
pending: a pod goes only to a node where all its claims can be allocated."""

from __future__ import annotations

from reference_impl.testing.wrappers import (
    PAUSE,
    PodWrapper,
    device_toleration,
    make_container,
    make_device,
    make_device_class,
    make_gpu_slice,
    make_network_slice,
    make_pod,
    make_resource_claim,
    make_resource_claim_template,
    node_selector_term,
    sub_request,
)

from .common import Area, Docs, node, pod, t

AREA = Area("dra")
golden = AREA.golden

GPU = "gpu.example.com"
MODEL = f"{GPU}/model"
RACK = "example.com/rack"


def model_is(model: str) -> str:
    return f'device.attributes["{GPU}"].model == "{model}"'


def gpu_class() -> Docs:
    return [make_device_class(GPU).driver(GPU)]


def claiming(name: str, created: int, entry: str = "gpu", **claim: str) -> PodWrapper:
    """A pod created ``created`` seconds in, with one spec.resourceClaims entry (``claim`` or
    ``template``)."""
    return pod(name, created=t(created)).resource_claim(entry, **claim)


@golden("example-driver-demo",
        "DynamicResources: the DRA example driver's demo specs on a node of 8 GPUs: a claim "
        "per pod, two pods sharing one claim, two containers sharing a claim, a CEL selector "
        "on the model; a node without devices takes none of them")
def _() -> Docs:
    two = (make_pod("two-containers").namespace("default").creation_timestamp(t(3))
           .container(make_container("ctr0").image(PAUSE).claims("shared-gpu"))
           .container(make_container("ctr1").image(PAUSE).claims("shared-gpu"))
           .resource_claim("shared-gpu", template="single-gpu"))
    return [node("cpu-only"), node("gpu-node"), *gpu_class(),
            make_gpu_slice("gpu-node", GPU, ["a100"] * 4 + ["h100"] * 4),
            make_resource_claim_template("single-gpu").request_with_name("gpu", GPU),
            make_resource_claim("shared").request_with_name("gpu", GPU),
            make_resource_claim("h100").request_with_name("gpu", GPU, 1, model_is("h100")),
            claiming("one-gpu", 0, template="single-gpu"),
            claiming("share-a", 1, claim="shared"), claiming("share-b", 2, claim="shared"),
            two, claiming("selector", 4, claim="h100"),
            pod("no-claim", created=t(5), nodeSelector={"kubernetes.io/hostname": "cpu-only"})]


@golden("template-claim-per-pod",
        "DynamicResources: a ResourceClaimTemplate gives each pod its own claim (3 GPUs of "
        "8): two pods fit, the third stays pending ('cannot allocate all claims')")
def _() -> Docs:
    return [node("n1"), *gpu_class(), make_gpu_slice("n1", GPU, ["a100"] * 8),
            make_resource_claim_template("three-gpus").request_with_name("gpus", GPU, 3),
            *(claiming(f"trainer-{i}", i, template="three-gpus") for i in range(3))]


@golden("first-available-fallback",
        "DynamicResources: a prioritized list (firstAvailable) falls back to its second "
        "choice when the first is taken: one h100 and two a100s serve three pods, the fourth "
        "stays pending")
def _() -> Docs:
    return [node("h100-node"), node("a100-node"), *gpu_class(),
            make_gpu_slice("h100-node", GPU, ["h100"]),
            make_gpu_slice("a100-node", GPU, ["a100", "a100"]),
            make_resource_claim_template("fast-or-slow").request_first_available(
                "gpu", sub_request("h100", GPU, 1, model_is("h100")),
                sub_request("a100", GPU, 1, model_is("a100"))),
            *(claiming(f"job-{i}", i, template="fast-or-slow") for i in range(4))]


@golden("match-attribute",
        "DynamicResources: a matchAttribute constraint (two GPUs of one model) rules out the "
        "node whose two GPUs differ; the same request without it fits there")
def _() -> Docs:
    return [node("mixed"), node("uniform"), *gpu_class(),
            make_gpu_slice("mixed", GPU, ["a100", "h100"]),
            make_gpu_slice("uniform", GPU, ["a100", "a100"]),
            make_resource_claim_template("same-model").request_with_name("gpus", GPU, 2)
            .match_attribute(MODEL),
            make_resource_claim_template("any-model").request_with_name("gpus", GPU, 2),
            claiming("constrained", 0, template="same-model"),
            claiming("held-on-mixed", 1, template="same-model").node_selector(
                {"kubernetes.io/hostname": "mixed"}),
            claiming("unconstrained", 2, template="any-model").node_selector(
                {"kubernetes.io/hostname": "mixed"})]


@golden("allocation-mode-all",
        "DynamicResources: allocationMode All takes every matching device of the node (the "
        "four h100s), so a later claim for an h100 stays pending while one for an a100 fits")
def _() -> Docs:
    return [node("n1"), *gpu_class(),
            make_gpu_slice("n1", GPU, ["a100"] * 4 + ["h100"] * 4),
            make_resource_claim("all-h100").request_with_name("gpus", GPU, 1, model_is("h100"),
                                                              all_devices=True),
            make_resource_claim("one-h100").request_with_name("gpu", GPU, 1, model_is("h100")),
            make_resource_claim("one-a100").request_with_name("gpu", GPU, 1, model_is("a100")),
            claiming("takes-all", 0, claim="all-h100"),
            claiming("wants-h100", 1, claim="one-h100"),
            claiming("wants-a100", 2, claim="one-a100")]


@golden("device-taints",
        "DynamicResources: a NoSchedule device taint keeps a claim off the tainted GPUs unless "
        "its request tolerates the taint")
def _() -> Docs:
    tainted = make_gpu_slice("n1", GPU, [])
    for i in range(2):
        tainted.device(make_device(f"gpu-{i}").attributes({"model": "a100", "index": i})
                       .taint("example.com/maintenance", "true"))
    return [node("n1"), node("n2"), *gpu_class(), tainted,
            make_resource_claim("plain").request_with_name("gpu", GPU),
            make_resource_claim("tolerant").request_with_name(
                "gpu", GPU, tolerations=[device_toleration("example.com/maintenance")]),
            claiming("intolerant", 0, claim="plain"),
            claiming("tolerates", 1, claim="tolerant")]


@golden("network-attached-pool",
        "DynamicResources: a slice with a nodeSelector (network-attached devices) serves "
        "only the nodes it selects, two devices for two claims; a pod held to another rack "
        "and a third claim stay pending")
def _() -> Docs:
    fabric = (make_network_slice("rack-r1-fabric", GPU)
              .node_selector([node_selector_term((RACK, "In", ["r1"]))])
              .device(make_device("nic-0").attributes({"model": "fabric"}))
              .device(make_device("nic-1").attributes({"model": "fabric"})))
    return [node("r1-a", labels={RACK: "r1"}), node("r1-b", labels={RACK: "r1"}),
            node("r2-a", labels={RACK: "r2"}), *gpu_class(), fabric,
            make_resource_claim_template("fabric-port").request_with_name(
                "port", GPU, 1, model_is("fabric")),
            claiming("in-r2", 0, template="fabric-port").node_selector({RACK: "r2"}),
            *(claiming(f"worker-{i}", 1 + i, template="fabric-port") for i in range(3))]


@golden("unsatisfiable",
        "DynamicResources filter: a claim no node can satisfy (9 GPUs of 8, a model no "
        "device has, an unknown DeviceClass) leaves its pod pending; the others still fit",
        notes=["upstream's messages (FitError of pkg/scheduler/framework/types.go): "
               "'0/2 nodes are available: 2 cannot allocate all claims. preemption: 0/2 "
               "nodes are available: 2 Preemption is not helpful for scheduling.'; for the "
               "unknown class '0/2 nodes are available: request gpu: device class "
               "tpu.example.com does not exist. preemption: ...' (PreFilter, "
               "dynamicresources.go)"])
def _() -> Docs:
    return [node("cpu-only"), node("gpu-node"), *gpu_class(),
            make_gpu_slice("gpu-node", GPU, ["a100"] * 4 + ["h100"] * 4),
            make_resource_claim("nine").request_with_name("gpus", GPU, 9),
            make_resource_claim("b200").request_with_name("gpu", GPU, 1, model_is("b200")),
            make_resource_claim("no-class").request_with_name("gpu", "tpu.example.com"),
            make_resource_claim("eight").request_with_name("gpus", GPU, 8),
            claiming("nine-gpus", 0, claim="nine"), claiming("b200", 1, claim="b200"),
            claiming("no-class", 2, claim="no-class"), claiming("eight-gpus", 3, claim="eight")]
