"""Catalogue: Dynamic Resource Allocation, the structured allocator
(``reference_impl/dra/allocator.py``, ``reference_impl/dra/pools.py``) that DynamicResources'
Filter runs. Only DRA scenarios have claims, so these mutants add the ``dra`` family."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import conformance.engines.mutants.witnesses as w
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.patching import Patch

_ALLOC = "reference_impl.dra.allocator"
_STRUCTURED = "k8s.io/dynamic-resource-allocation/structured/internal/incubating"


def _always(value: bool) -> Callable[[Any], Callable[..., bool]]:
    def make(orig: Callable[..., bool]) -> Callable[..., bool]:
        def patched(*args: Any, **kwargs: Any) -> bool:
            return value
        return patched
    return make


MUTANTS = (
    Mutant(
        name="dra-ignore-device-taints", area="dynamic resource allocation",
        summary="devices with a NoSchedule taint are allocated to requests that do not "
                "tolerate it",
        upstream="taintPreventsAllocation: a NoSchedule or NoExecute device taint no toleration "
                 f"of the request tolerates makes the device unusable ({_STRUCTURED}/"
                 "allocator_incubating.go)",
        patches=(Patch(f"{_ALLOC}:taint_prevents_allocation", _always(False)),),
        witness=lambda: w.scenario(
            "tainted-gpu", w.node("n1"), w.gpu_class(),
            w.gpus("n1", {"gpu-0": {}}, taints={"gpu-0": ("broken", "NoSchedule")}),
            w.gpu_claim("one"), w.claim_pod("p", "one")),
        shows="genuine: the only GPU is tainted, p stays pending; mutant: p gets gpu-0",
        oracles=("dra_allocations",), family="dra"),
    Mutant(
        name="dra-ignore-device-taint-rules", area="dynamic resource allocation",
        summary="DeviceTaintRules select no device: their taints never reach the allocator",
        upstream="applyPatches: the taint of each DeviceTaintRule is appended to the devices "
                 "its selector selects, with DRADeviceTaintRules "
                 "(k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker.go)",
        patches=(Patch("reference_impl.dra.taintrules:rule_selects", _always(False)),),
        witness=lambda: w.scenario(
            "taint-rule", w.node("n1"), w.gpu_class(), w.gpus("n1", {"gpu-0": {}}),
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
             "metadata": {"name": "broken"},
             "spec": {"deviceSelector": {"driver": w.GPU, "device": "gpu-0"},
                      "taint": {"key": "broken", "effect": "NoSchedule"}}},
            w.gpu_claim("one"), w.claim_pod("p", "one")),
        shows="genuine: a rule taints the only GPU, p stays pending; mutant: p gets gpu-0",
        oracles=("dra_allocations",), family="dra"),
    Mutant(
        name="dra-ignore-selectors", area="dynamic resource allocation",
        summary="the CEL selectors of device classes and requests are not evaluated: every "
                "device of the pool matches",
        upstream="selectorsMatch: every selector of the class and of the request must evaluate "
                 f"to true on the device ({_STRUCTURED}/allocator_incubating.go)",
        patches=(Patch(f"{_ALLOC}:_Allocation._selectors_match", _always(True)),),
        witness=lambda: w.scenario(
            "gpu-model", w.node("n1"), w.gpu_class(),
            w.gpus("n1", {"gpu-0": {"model": "a100"}}),
            w.gpu_claim("h100", 1, f'device.attributes["{w.GPU}"].model == "h100"'),
            w.claim_pod("p", "h100")),
        shows="genuine: no h100 on n1, p stays pending; mutant: p gets the a100",
        oracles=("dra_allocations",), family="dra"),
    Mutant(
        name="dra-ignore-match-attribute", area="dynamic resource allocation",
        summary="matchAttribute constraints are not checked: a claim's devices may differ in "
                "the attribute",
        upstream="matchAttributeConstraint.add: every device of the constraint's requests must "
                 f"have the same value of the attribute ({_STRUCTURED}/constraint.go)",
        patches=(Patch("reference_impl.dra.constraints:Constraint.add", _always(True)),),
        witness=lambda: w.scenario(
            "numa-pair", w.node("n1"), w.gpu_class(),
            w.gpus("n1", {"gpu-0": {"numa": 0}, "gpu-1": {"numa": 1}}),
            w.gpu_claim("pair", 2, match=f"{w.GPU}/numa"), w.claim_pod("p", "pair")),
        shows="genuine: no two GPUs share a NUMA node, p stays pending; mutant: p gets both",
        oracles=("dra_allocations",), family="dra"),
    Mutant(
        name="dra-devices-reused", area="dynamic resource allocation",
        summary="devices allocated to other claims count as free",
        upstream="deviceInUse: a device allocated to another claim (or being allocated) is "
                 "skipped unless admin access or multiple allocations allow sharing "
                 f"({_STRUCTURED}/allocator_incubating.go)",
        patches=(Patch(f"{_ALLOC}:_Allocation._in_use", _always(False)),),
        witness=lambda: w.scenario(
            "one-gpu-two-claims", w.node("n1"), w.gpu_class(), w.gpus("n1", {"gpu-0": {}}),
            w.gpu_claim("a"), w.gpu_claim("b"), w.claim_pod("p1", "a"), w.claim_pod("p2", "b")),
        shows="genuine: one GPU, p1 gets it and p2 stays pending; mutant: both get gpu-0",
        oracles=("dra_allocations",), family="dra"),
    Mutant(
        name="dra-slices-of-any-node", area="dynamic resource allocation",
        summary="a ResourceSlice's nodeSelector is not evaluated: its devices are offered on "
                "every node",
        upstream="GatherPools keeps the slices whose nodeName, nodeSelector or allNodes match "
                 f"the node ({_STRUCTURED}/pools_incubating.go, NodeMatches)",
        patches=(Patch("reference_impl.dra.pools:node_matches", _always(True),
                       everywhere=True),),
        witness=lambda: w.scenario(
            "gpu-elsewhere", w.node("n1", labels={w.ZONE: "a"}),
            w.node("n2", labels={w.ZONE: "b"}), w.pod("busy", {"cpu": "3"}, node="n2"),
            w.gpu_class(), w.zone_gpus("zone-b", "b", "gpu-0"), w.gpu_claim("one"),
            w.claim_pod("p", "one", {"cpu": "500m"})),
        shows="genuine: the GPUs serve zone b, p binds to busy n2; mutant: the emptier n1 wins",
        oracles=("dra_allocations",), family="dra"),
)
