"""Switch dra-counter-slices-relevant (reference_impl/dra/pools.py ``gather_pools``): in v1.35.4
and v1.36.3 a ResourceSlice with sharedCounters is relevant to every node ("Always include
slices with SharedCounters", pools_incubating.go of k8s.io/dynamic-resource-allocation
v0.35.4/v0.36.3); in v1.37.2 (and v1.34.4) only where its node selection matches. A pool of
node-2 that has only its counter slice (its device slice is not published yet) is then
incomplete for node-1 too, and a request for all devices there fails. Found by
``kschedconf diff --release v1.36.3 --sizes dra=40 --seed 1`` (the reference followed
v1.37.2 for every release)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.subjects.factory import make_subject
from conformance.subjects.upstream import binary_available, build_hint, default_binary
from reference_impl.releases import supported_releases
from reference_impl.testing.wrappers import make_gpu_slice, make_node, make_pod
from tests.dra.gpu_scenarios import GPU

Doc = dict[str, Any]
#: where the rule shows: v1.35.4 has it too, but DRAPartitionableDevices is off there by default,
#: so no slice with shared counters is used at all
ALWAYS = {"v1.36.3"}


def _docs(node: str = "node-1") -> list[Doc]:
    counters = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                "metadata": {"name": "node-2-counters"},
                "spec": {"driver": GPU, "nodeName": "node-2",
                         "pool": {"name": "node-2-part", "generation": 1,
                                  "resourceSliceCount": 2},
                         "sharedCounters": [{"name": "gpu-0", "counters": {
                             "memory": {"value": "40Gi"}}}]}}
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "all", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
                 "deviceClassName": GPU, "allocationMode": "All"}}]}}}
    pod = (make_pod("p").namespace("default").container("registry.k8s.io/pause")
           .node_selector({"kubernetes.io/hostname": node})
           .resource_claim("gpus", claim="all").manifest())
    return [*(make_node(n).label("kubernetes.io/hostname", n)
              .allocatable(cpu="8", memory="32Gi", pods="110").manifest()
              for n in ("node-1", "node-2")),
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
             "metadata": {"name": GPU},
             "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{GPU}"'}}]}},
            make_gpu_slice("node-1", GPU, ["a100"]).manifest(), counters, claim, pod]


def _first_attempt(subject: str, release: str, node: str = "node-1") -> tuple[str, str]:
    with make_subject(subject, release=release) as s:
        res = s.run(ScenarioInput(_docs(node), release=release)).result
    a = res["attempts"][0]
    return a["outcome"], a.get("message") or ""


@pytest.mark.parametrize("release", supported_releases())
def test_a_counter_slice_of_another_node_counts_where_the_release_says(release: str) -> None:
    outcome, message = _first_attempt("reference", release)
    if release in ALWAYS:
        assert outcome == "Error"
        assert message.endswith("asks for all devices, but resource pool "
                                f"{GPU}/node-2-part is currently being updated")
    else:
        assert (outcome, message) == ("Bound", "")
    binary = default_binary(release)
    if not binary_available(binary):
        pytest.skip(f"no upstream subject binary of {release}: {build_hint(release)}")
    assert _first_attempt(f"upstream@{release}", release) == (outcome, message)


@pytest.mark.parametrize("release", supported_releases())
def test_on_the_counter_slices_own_node(release: str) -> None:
    """On node-2 the pool is incomplete wherever its counter slice is used: every release
    but v1.35.4, where DRAPartitionableDevices is off and the slice is skipped. v1.34.4, with
    the gate off too, keeps it (GatherPools of v0.34.4 skips only per-device node
    selection then): its pool has one of its two slices (kschedconf diff --release v1.34.4
    --sizes dra=40 --seed 1)."""
    outcome, message = _first_attempt("reference", release, "node-2")
    if release == "v1.35.4":
        assert outcome == "Unschedulable"
    else:
        assert outcome == "Error"
        assert message.endswith(f"resource pool {GPU}/node-2-part is currently being updated")
    binary = default_binary(release)
    if not binary_available(binary):
        pytest.skip(f"no upstream subject binary of {release}: {build_hint(release)}")
    assert _first_attempt(f"upstream@{release}", release, "node-2") == (outcome, message)
