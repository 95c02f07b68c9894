"""ImageLocality: Score, SignPod and image-name normalization.

Cases restate upstream v1.37.2
``pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go``
(TestImageLocalityPriority, TestImageSignature, TestNormalizedImageName).
"""

from __future__ import annotations

import hashlib

import pytest

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.testing import FakeHandle
from reference_impl.model.objects import Node, Pod
from reference_impl.plugins.imagelocality import (
    IMAGE_NAMES_SIGNER_NAME,
    MB,
    ImageLocality,
    calculate_priority,
    normalized_image_name,
)
from reference_impl.testing.wrappers import make_container, make_node, make_pod


def pod(*images: str, init: tuple[str, ...] = (), image_volumes: tuple[str, ...] = ()) -> Pod:
    p = make_pod("p")
    for i, im in enumerate(images):
        p.container(make_container(f"c{i}").image(im))
    for i, im in enumerate(init):
        p.init_container(make_container(f"i{i}").image(im))
    for i, ref in enumerate(image_volumes):
        p.volume({"name": f"v{i}", "image": {"reference": ref}})
    return p.obj()


def node(name: str, images: list[tuple[list[str], int]]) -> Node:
    n = make_node(name)
    for names, size in images:
        n.image(names, size)
    return n.obj()


NODE_40_300_2000 = [(["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40 * MB),
                    (["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB),
                    (["gcr.io/2000:latest"], 2000 * MB)]
NODE_250_10 = [(["gcr.io/250:latest"], 250 * MB), (["gcr.io/10:latest", "gcr.io/10:v1"], 10 * MB)]
NODE_600_40_900 = [(["gcr.io/600:latest"], 600 * MB), (["gcr.io/40:latest"], 40 * MB),
                   (["gcr.io/900:latest"], 900 * MB)]
NODE_300_600_900 = [(["gcr.io/300:latest"], 300 * MB), (["gcr.io/600:latest"], 600 * MB),
                    (["gcr.io/900:latest"], 900 * MB)]
NODE_4000_30 = [(["gcr.io/4000:latest"], 4000 * MB), (["gcr.io/30:latest"], 30 * MB)]
NODE_20_30_40 = [(["gcr.io/20:latest"], 20 * MB), (["gcr.io/30:latest"], 30 * MB),
                 (["gcr.io/40:latest"], 40 * MB)]
NO_IMAGES: list = []

CASES = [
    # node1: 40M/2 < 23M -> 0; node2: 100 * (250M/2 - 23M) / (1000M*2 - 23M) = 5
    ("two images spread on two nodes, prefer the larger image one",
     pod("gcr.io/40", "gcr.io/250"), [NODE_40_300_2000, NODE_250_10], [0, 5]),
    # node1: 100 * ((40M + 300M)/2 - 23M) / (1000M*2 - 23M) = 7
    ("two images on one node, prefer this node",
     pod("gcr.io/40", "gcr.io/300"), [NODE_40_300_2000, NODE_250_10], [7, 0]),
    # node1: 4000M/2 >= 1000M*2 -> max
    ("if exceed limit, use limit",
     pod("gcr.io/10", "gcr.io/4000"), [NODE_4000_30, NODE_250_10], [100, 0]),
    # node1: 100 * (4000M/3 - 23M) / (1000M*2 - 23M) = 66
    ("if exceed limit, use limit (with node which has no images present)",
     pod("gcr.io/10", "gcr.io/4000"), [NODE_4000_30, NODE_250_10, NO_IMAGES], [66, 0, 0]),
    # node1: 100 * (600M*2/3 + 900M*2/3 - 23M) / (1000M*3 - 23M) = 32; node2 adds 300M/3 -> 36
    ("pod with multiple large images, node2 is preferred",
     pod("gcr.io/300", "gcr.io/600", "gcr.io/900"),
     [NODE_600_40_900, NODE_300_600_900, NO_IMAGES], [32, 36, 0]),
    # node1: 100 * (30M + 40M/2 - 23M) / (1000M*2 - 23M) = 1
    ("pod with multiple small images",
     pod("gcr.io/30", "gcr.io/40"), [NODE_20_30_40, NODE_4000_30], [1, 0]),
    # image volumes count: 100 * (300M/2 - 23M) / (1000M*2 - 23M) = 6
    ("pod with ImageVolume",
     pod("gcr.io/30", image_volumes=("gcr.io/300",)), [NODE_300_600_900, NODE_4000_30], [6, 0]),
    ("same images as ImageVolume pod but as regular container images",
     pod("gcr.io/30", "gcr.io/300"), [NODE_300_600_900, NODE_4000_30], [6, 0]),
    ("include InitContainers: two images spread on two nodes, prefer the larger image one",
     pod("gcr.io/30", init=("gcr.io/300",)), [NODE_40_300_2000, NODE_20_30_40], [6, 0]),
]


@pytest.mark.parametrize("p,node_images,want", [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_image_locality_priority(p, node_images, want):
    """image_locality_test.go TestImageLocalityPriority (nodes named node1, node2, ...)."""
    nodes = [node(f"node{i + 1}", imgs) for i, imgs in enumerate(node_images)]
    handle = FakeHandle(nodes)
    pl = ImageLocality(None, handle)
    state = CycleState()
    got = [pl.score(state, p, handle.snapshot().get(n.name)) for n in nodes]
    assert got == want


def test_total_nodes_counts_every_node():
    """image_locality.go Score: totalNumNodes is every node of the snapshot, so adding nodes
    without the image lowers its spread and the score (cf. the two "if exceed limit" cases)."""
    p = pod("gcr.io/4000", "gcr.io/10")
    # 4000M * 1/(1 + extra), clamped to [23M, 2000M]: 4000M, 2000M -> 100;
    # 1333M -> 100 * (1333.3M - 23M) / 1977M = 66; 1000M -> 49
    for extra, want in ((0, 100), (1, 100), (2, 66), (3, 49)):
        nodes = [node("node1", NODE_4000_30)] + [node(f"e{i}", NO_IMAGES) for i in range(extra)]
        handle = FakeHandle(nodes)
        assert ImageLocality(None, handle).score(
            CycleState(), p, handle.snapshot().get("node1")) == want


def test_calculate_priority_without_images():
    """image_locality.go calculatePriority: a pod without images (count 0) scores 0."""
    assert calculate_priority(0, 0) == 0


@pytest.mark.parametrize("p,want", [
    pytest.param(pod(), (), id="no images"),
    pytest.param(pod("myimage"), ("myimage:latest",), id="one image"),
    pytest.param(pod("zmyimage", "myimage"), ("myimage:latest", "zmyimage:latest"),
                 id="two images unsorted"),
])
def test_image_signature(p, want):
    """image_locality_test.go TestImageSignature."""
    fragments, status = ImageLocality(None, FakeHandle()).sign_pod(p)
    assert status is None
    assert fragments == [(IMAGE_NAMES_SIGNER_NAME, want)]


def test_image_signature_dedups_init_containers_and_skips_volumes():
    """image_locality.go SignPod: the set of container and init-container images (image
    volumes are not part of it)."""
    p = pod("b", "a:1", init=("b:latest",), image_volumes=("vol",))
    fragments, _ = ImageLocality(None, FakeHandle()).sign_pod(p)
    assert fragments == [(IMAGE_NAMES_SIGNER_NAME, ("a:1", "b:latest"))]


def _fake_digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


@pytest.mark.parametrize("given,want", [
    pytest.param("root", "root:latest", id="add :latest postfix 1"),
    pytest.param("gcr.io:5000/root", "gcr.io:5000/root:latest", id="add :latest postfix 2"),
    pytest.param("root:tag", "root:tag", id="keep it as is 1"),
    pytest.param("root@" + _fake_digest("root"), "root@" + _fake_digest("root"),
                 id="keep it as is 2"),
])
def test_normalized_image_name(given, want):
    """image_locality_test.go TestNormalizedImageName."""
    assert normalized_image_name(given) == want
