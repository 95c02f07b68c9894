"""ImageLocality (``pkg/scheduler/framework/plugins/imagelocality/image_locality.go``).

Favours nodes that already hold the pod's images. Each image of the pod (init containers,
containers, image volumes) present on the node contributes its size scaled by the share of
nodes holding it (``size * numNodes / totalNumNodes``, float64 then int64); the sum, clamped to
[23 MiB, 1000 MiB * number of images], is mapped linearly onto 0..100. Image volumes count by
release (switch image-locality-image-volumes): not at all up to v1.35, in the sum only in
v1.36 (kubernetes#130231), in the sum and the number of images from v1.37 (#138951).

No EventsToRegister, as upstream: a Score-only plugin is no enqueue extension
(``runtime/framework.go`` shouldHaveEnqueueExtensions: PreEnqueue, PreFilter, Filter, Reserve,
Permit), so it is not in the queueing hint map and never decides a requeue.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from reference_impl.framework.columns import I64, NodeColumns
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import MAX_NODE_SCORE, Handle, ScorePlugin, SignPlugin
from reference_impl.framework.status import Status
from reference_impl.framework.types import ImageStateSummary, NodeInfo
from reference_impl.model.objects import Pod
from reference_impl.plugins import names
from reference_impl.plugins.helper.behaviour import behaviour

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB

# staging/src/k8s.io/kube-scheduler/framework/signers.go
IMAGE_NAMES_SIGNER_NAME = "v1.Pod.Spec.CanonicalImageNames()"

_MIN_INT64 = -(1 << 63)
_MAX_INT64 = (1 << 63) - 1
_TWO_63 = float(1 << 63)


def normalized_image_name(name: str) -> str:
    """``normalizedImageName``: append ":latest" when the name has no tag, i.e. its last ':'
    is not after its last '/' (so "host:5000/img" gets a tag, and a digest "img@sha256:..."
    counts as tagged and is kept as is)."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def image_volume_references(pod: Pod) -> list[str]:
    """The ``image.reference`` of each image volume of the pod (``volume.Image != nil``).
    Volumes are kept as their manifest dicts: ``{"name": ..., "image": {"reference": ...}}``."""
    refs: list[str] = []
    for volume in pod.volumes:
        image = volume.get("image") if isinstance(volume, dict) else None
        if isinstance(image, dict):
            refs.append(str(image.get("reference") or ""))
    return refs


def pod_image_names(pod: Pod, image_volumes: str = "counted") -> tuple[tuple[str, ...], int]:
    """The normalized images ``sumImageScores`` looks up, in its order (init containers,
    containers, then image volumes), and the image count ``calculatePriority`` takes, by the
    variant of image-locality-image-volumes:

    - "none" (v1.34/v1.35 image_locality.go): containers and init containers only; the count
      is ``len(InitContainers) + len(Containers)``.
    - "scored" (v1.36): image volumes are looked up too, the count is still the containers'.
    - "counted" (v1.37): ``sumImageScores`` also returns the count, one per image volume
      more."""
    imgs = [normalized_image_name(c.image) for c in pod.init_containers]
    imgs.extend(normalized_image_name(c.image) for c in pod.containers)
    containers = len(imgs)
    if image_volumes != "none":
        imgs.extend(normalized_image_name(ref) for ref in image_volume_references(pod))
    return tuple(imgs), containers if image_volumes != "counted" else len(imgs)


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    """``scaledImageScore``: ``int64(float64(size) * (float64(numNodes) / float64(total)))``."""
    spread = float(state.num_nodes) / float(total_num_nodes)
    x = float(state.size) * spread
    if x >= _TWO_63:  # Go's out-of-range float->int64 conversion yields MinInt64 on amd64
        return _MIN_INT64
    return int(x)


def calculate_priority(sum_scores: int, image_count: int) -> int:
    """``calculatePriority``: clamp the sum to [minThreshold, maxContainerThreshold * count] and
    map it linearly onto 0..MaxScore (int64 division)."""
    max_threshold = MAX_CONTAINER_THRESHOLD * image_count
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    num = MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD)
    den = max_threshold - MIN_THRESHOLD
    # den < 0 only for a pod without images, where num is 0
    return num // den if den > 0 else 0


def sum_image_scores(node_info: NodeInfo, images: tuple[str, ...], total_num_nodes: int) -> int:
    """``sumImageScores``: the scaled scores of the pod's images present on the node."""
    states = node_info.image_states
    total = 0
    for name in images:
        state = states.get(name)
        if state is not None:
            total += scaled_image_score(state, total_num_nodes)
    if not _MIN_INT64 <= total <= _MAX_INT64:  # Go's int64 sum wraps around
        total = ((total - _MIN_INT64) & ((1 << 64) - 1)) + _MIN_INT64
    return total


class ImageLocality(ScorePlugin, SignPlugin):
    """``ImageLocality``: a Score plugin without PreScore or NormalizeScore."""

    name = names.ImageLocality
    handle: Handle  # required: Score reads the number of nodes in the snapshot

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        self.image_volumes = behaviour(handle, "image-locality-image-volumes")
        # The pod's normalized image names, kept for the pod being scored (upstream
        # recomputes them for every node).
        self._pod: Pod | None = None
        self._images: tuple[str, ...] = ()
        self._count = 0

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        """``Score``: totalNumNodes is the number of nodes in the snapshot."""
        if pod is not self._pod:
            self._images, self._count = pod_image_names(pod, self.image_volumes)
            self._pod = pod
        total_num_nodes = self.handle.snapshot().num_nodes()
        return calculate_priority(
            sum_image_scores(node_info, self._images, total_num_nodes), self._count)

    def score_batch(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                    cols: NodeColumns, rows: npt.NDArray[np.intp]) -> I64:
        """``score`` over nodes (reference_impl/framework/vectorised.py): a node holding none
        of the pod's images scores ``calculate_priority(0, count)``; the others per node."""
        if pod is not self._pod:
            self._images, self._count = pod_image_names(pod, self.image_volumes)
            self._pod = pod
        images = self._images
        out = np.full(len(nodes), calculate_priority(0, self._count), dtype=np.int64)
        for k, ni in enumerate(nodes):
            states = ni.image_states
            if states and any(name in states for name in images):
                out[k] = self.score(state, pod, ni)
        return out

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: the sorted set of normalized image names of the containers and init
        containers (image volumes are not included)."""
        names_ = {normalized_image_name(c.image) for c in pod.containers}
        names_.update(normalized_image_name(c.image) for c in pod.init_containers)
        return [(IMAGE_NAMES_SIGNER_NAME, tuple(sorted(names_)))], None
