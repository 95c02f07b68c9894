"""Scoring by release: the behaviour switches balanced-allocation-delta,
image-locality-image-volumes and dynamicresources-score. Each test's numbers are computed by
hand from the Go code of the release named in its comment."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from reference_impl.config import default_config, load_config
from reference_impl.framework.status import PluginError
from reference_impl.model.dra import AllocationResult, DeviceRequestAllocationResult, DRAObjects
from reference_impl.model.objects import Cluster, Pod
from reference_impl.plugins.dynamicresources.claims import ClaimStore
from reference_impl.plugins.dynamicresources.dynamicresources import NodeAllocation, compute_score
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases import load, supported_releases
from reference_impl.scheduler.explain import explain
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.testing.dra import (
    claim,
    device,
    device_class,
    request_with_prioritized_list,
    slice_with_devices,
    sub_request,
)
from reference_impl.testing.wrappers import make_container, make_node, make_pod


def explained_scores(cluster: Cluster, tag: str, pod: Pod, plugin: str) -> dict[str, int]:
    """``plugin``'s raw score per node in the explanation of ``pod`` under ``tag``'s default
    configuration."""
    sched = Scheduler(cluster, default_config(in_tree_registry(), load(tag)), seed=1)
    return {n.name: s.raw for n in explain(sched, pod).nodes for s in n.scores
            if s.plugin == plugin}


# ----- balanced-allocation-delta (kubernetes#135573) -----------------------------------------


def _balance_cluster() -> Cluster:
    """``a``: 4 CPU, 4Gi, empty. ``b``: 2 CPU, 4Gi, a pod requesting 2Gi of memory on it."""
    nodes = [make_node("a").capacity(cpu="4", memory="4Gi", pods="10").obj(),
             make_node("b").capacity(cpu="2", memory="4Gi", pods="10").obj()]
    busy = make_pod("busy").node("b").req(memory="2Gi").obj()
    return Cluster(nodes=nodes, pods=[busy])


BALANCE_POD = make_pod("p").req(cpu="1", memory="1Gi").obj()

# balancedResourceScore: int64((1 - std) * 100), std = |cpu fraction - memory fraction| / 2.
#   a, with the pod: (1/4, 1Gi/4Gi) = (.25, .25): std 0 -> 100; without it: (0, 0) -> 100.
#   b, with the pod: (1/2, 3Gi/4Gi) = (.5, .75): std .125 -> 87 (87.5 truncated);
#      without it: (0, 2Gi/4Gi) = (0, .5): std .25 -> 75.
# v1.34.4/v1.35.4 balancedResourceScorer(requested, allocable): the score with the pod:
#   a 100, b 87.
# v1.36.3/v1.37.2 balancedResourceScorer(requested, allocated, allocatable):
#   50 + (50 + withPod - withoutPod) / 2 (int64): a 50 + 50/2 = 75, b 50 + 62/2 = 81.
BALANCE_SCORES = {"with-pod": {"a": 100, "b": 87}, "delta": {"a": 75, "b": 81}}
BALANCE_WINNER = {"with-pod": "a", "delta": "b"}


@pytest.mark.parametrize("tag", supported_releases())
def test_balanced_allocation_scores_of_each_release_in_explain(tag: str) -> None:
    got = explained_scores(_balance_cluster(), tag, BALANCE_POD,
                           "NodeResourcesBalancedAllocation")
    assert got == BALANCE_SCORES[load(tag).behaviour("balanced-allocation-delta")]


@pytest.mark.parametrize("tag", supported_releases())
def test_balanced_allocation_alone_picks_the_release_s_node(tag: str) -> None:
    """A profile that scores with NodeResourcesBalancedAllocation only: up to v1.35 the node
    most balanced with the pod (a), from v1.36 the node the pod balances most (b)."""
    release = load(tag)
    cfg = load_config({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": {"score": {
            "disabled": [{"name": "*"}],
            "enabled": [{"name": "NodeResourcesBalancedAllocation"}]}}}]},
        in_tree_registry(), release)
    cluster = _balance_cluster()
    cluster.pods.append(BALANCE_POD)
    result = Scheduler(cluster, cfg, seed=1).run()
    assert result.bindings["default/p"] == BALANCE_WINNER[
        release.behaviour("balanced-allocation-delta")]


# ----- image-locality-image-volumes (kubernetes#130231, #138951) ------------------------------

MB = 1024 * 1024


def _image_cluster() -> Cluster:
    """Two nodes; ``a`` holds the 500 MiB image ``data:1``, nobody holds ``app:1``."""
    return Cluster(nodes=[
        make_node("a").capacity(cpu="4", memory="4Gi", pods="10").image("data:1", 500 * MB).obj(),
        make_node("b").capacity(cpu="4", memory="4Gi", pods="10").obj()])


IMAGE_POD = (make_pod("p").container(make_container("c").image("app:1"))
             .volume({"name": "data", "image": {"reference": "data:1"}}).obj())

# scaledImageScore of data:1 on a: 500 MiB * 1 node / 2 nodes = 250 MiB; app:1 is nowhere.
# calculatePriority(sum, n) = 100 * (clamp(sum, 23 MiB, 1000 MiB * n) - 23 MiB)
#                             / (1000 MiB * n - 23 MiB), int64 (the MiB cancel):
# v1.34.4/v1.35.4 sumImageScores: containers only: a 0 -> 23 MiB -> 0; b 0.
# v1.36.3: the image volume is summed, n = 1 container: a 100 * 227 / 977 = 23; b 0.
# v1.37.2: n = 1 container + 1 image volume = 2: a 100 * 227 / 1977 = 11; b 0.
IMAGE_SCORES = {"none": {"a": 0, "b": 0}, "scored": {"a": 23, "b": 0},
                "counted": {"a": 11, "b": 0}}


@pytest.mark.parametrize("tag", supported_releases())
def test_image_locality_scores_image_volumes_by_release(tag: str) -> None:
    got = explained_scores(_image_cluster(), tag, IMAGE_POD, "ImageLocality")
    assert got == IMAGE_SCORES[load(tag).behaviour("image-locality-image-volumes")]


# ----- dynamicresources-score (kubernetes#134711) ---------------------------------------------

def _first_available(name: str, n: int) -> Any:
    """A request of ``n`` alternatives ``sub-1``..``sub-n``, one device each."""
    return request_with_prioritized_list(name, *(sub_request(f"sub-{i + 1}", "gpu", 1)
                                                 for i in range(n)))


def _allocation(*requests: str) -> AllocationResult:
    return AllocationResult(tuple(DeviceRequestAllocationResult(r, "drv", "n1", "d")
                                  for r in requests))


def _mixed_claims() -> ClaimStore:
    """Claim ``shared`` already allocated (its request got ``sub-2``), claim ``own`` pending."""
    shared = dataclasses.replace(claim("shared", _first_available("a", 2)),
                                 allocation=_allocation("a/sub-2"))
    return ClaimStore([shared, claim("own", _first_available("b", 2))], ["shared", "own"])


@pytest.mark.parametrize("tag", ["v1.36.3", "v1.37.2"])
def test_dynamicresources_score_reads_an_allocated_claim_s_own_allocation(tag: str) -> None:
    """v1.36/v1.37 computeScore: ``shared`` scores its own allocation (8 - 1 = 7), ``own`` the
    node's first allocation result (b/sub-1: 8 - 0 = 8): 15."""
    variant = load(tag).behaviour("dynamicresources-score")
    assert compute_score(_mixed_claims(), NodeAllocation([_allocation("b/sub-1")]),
                         variant) == 15


def test_dynamicresources_score_of_v1_35_indexes_the_results_by_claim() -> None:
    """v1.35 computeScore: claim i reads allocation result i. ``shared`` (i = 0) reads own's
    result (b/sub-1, none of its sub-requests: 0); ``own`` (i = 1) finds no result: the error
    that fails Score."""
    variant = load("v1.35.4").behaviour("dynamicresources-score")
    with pytest.raises(PluginError,
                       match="^number of allocations 1 is smaller than number of claims$"):
        compute_score(_mixed_claims(), NodeAllocation([_allocation("b/sub-1")]), variant)
    one = ClaimStore([claim("own", _first_available("b", 2))], ["own"])
    assert compute_score(one, NodeAllocation([_allocation("b/sub-2")]), variant) == 7


def test_dynamicresources_does_not_score_in_v1_34() -> None:
    """v1.34 dynamicresources.go has no Score: the default profile scores without it (its
    MultiPoint entry has no weight), from v1.35 with weight 2."""
    for tag in supported_releases():
        release = load(tag)
        weights = {e.name: e.weight for e in
                   default_config(in_tree_registry(), release).profiles[0].plugins["score"]}
        variant = release.behaviour("dynamicresources-score")
        assert weights.get("DynamicResources") == (None if variant == "none" else 2), tag


# ----- volumebinding-capacity-scoring: the gate's default, no switch --------------------------

@pytest.mark.parametrize("tag", supported_releases())
def test_volume_binding_scores_capacity_where_the_release_turns_the_gate_on(tag: str) -> None:
    """``volumebinding.New`` builds the capacity scorer only with StorageCapacityScoring (off
    up to v1.36, Beta and on in v1.37)."""
    release = load(tag)
    cfg = default_config(in_tree_registry(), release)
    plugin = Scheduler(Cluster(nodes=[]), cfg, seed=1).profiles[
        "default-scheduler"].instances["VolumeBinding"]
    on = release.feature_enabled("StorageCapacityScoring")
    assert on is (release.feature_gate_stages["StorageCapacityScoring"] == "Beta")
    assert plugin.has_scorer is on


def _gpu_cluster(*, shared: bool) -> tuple[Cluster, Pod]:
    """``h100-node`` has one h100, ``a100-node`` two a100s; the pod's claim ``own`` asks for an
    h100, else an a100 (``firstAvailable``). With ``shared``, the pod also uses (first) the
    claim ``shared``, already allocated a100-node's gpu-1 without a node selector."""
    def choice(model: str) -> Any:
        return sub_request(model, "gpu", 1, f'device.attributes["drv"].model == "{model}"')

    def gpu(name: str, model: str) -> Any:
        return device(name, attributes={"model": model})

    def namespaced(c: Any) -> Any:
        return dataclasses.replace(c, namespace="default")

    req = request_with_prioritized_list("gpu", choice("h100"), choice("a100"))
    claims = [namespaced(claim("own", req))]
    pod = make_pod("p").namespace("default")
    if shared:
        claims.append(namespaced(dataclasses.replace(
            claim("shared", req), allocation=AllocationResult((DeviceRequestAllocationResult(
                "gpu/a100", "drv", "a100-node", "gpu-1"),)))))
        pod = pod.resource_claim("shared", claim="shared")
    dra = DRAObjects(
        device_classes={"gpu": device_class("gpu", "drv")},
        claims={f"default/{c.name}": c for c in claims},
        slices=[slice_with_devices("h", "h100-node", "h100-node", "drv", gpu("gpu-0", "h100")),
                slice_with_devices("a", "a100-node", "a100-node", "drv", gpu("gpu-0", "a100"),
                                   gpu("gpu-1", "a100"))])
    nodes = [make_node(n).capacity(cpu="4", memory="8Gi", pods="10").obj()
             for n in ("h100-node", "a100-node")]
    return Cluster(nodes=nodes, dra=dra), pod.resource_claim("gpu", claim="own").obj()


# Raw DynamicResources scores, checked against each release's upstream subject (explain):
# v1.34.4 has no Score; v1.35+: own gets h100 (sub-request 0: 8) on h100-node and a100 (7) on
# a100-node; with shared, v1.36+ add shared's own a100 (7): 15 and 14, while v1.35's Score
# fails (claim-index: shared reads own's result, own finds none).
DRA_SCORES = {
    (False, "none"): {"h100-node": None, "a100-node": None},
    (False, "claim-index"): {"h100-node": 8, "a100-node": 7},
    (False, "allocated-claims"): {"h100-node": 8, "a100-node": 7},
    (True, "none"): {"h100-node": None, "a100-node": None},
    (True, "allocated-claims"): {"h100-node": 15, "a100-node": 14},
}


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("tag", supported_releases())
def test_dynamicresources_scores_of_each_release(tag: str, shared: bool) -> None:
    release = load(tag)
    variant = release.behaviour("dynamicresources-score")
    cluster, pod = _gpu_cluster(shared=shared)
    sched = Scheduler(cluster, default_config(in_tree_registry(), release), seed=1)
    explanation = explain(sched, pod)
    if (shared, variant) == (True, "claim-index"):
        assert explanation.selected is None
        assert explanation.message == (
            'running Score plugins: plugin "DynamicResources" failed with: number of '
            "allocations 1 is smaller than number of claims")
        return
    got = {n.name: next((s.raw for s in n.scores if s.plugin == "DynamicResources"), None)
           for n in explanation.nodes}
    assert got == DRA_SCORES[shared, variant]
