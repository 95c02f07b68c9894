"""NodeDeclaredFeatures: the node must declare every feature the pod requires.

Upstream: ``pkg/scheduler/framework/plugins/nodedeclaredfeatures/nodedeclaredfeatures.go`` (v1.35.4
to v1.37.2, switch ``node-declared-features``: docs/release-differences.md) and
the node-declared-features framework it uses,
``staging/src/k8s.io/component-helpers/nodedeclaredfeatures/`` (``framework.go``,
``featureset.go``, ``bitmap.go``, ``features/registry.go`` and one package per feature).
The three features that infer a requirement, and the pod fields they read:
docs/reference.md#nodedeclaredfeatures."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from reference_impl.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, PreFilterResult, Status
from reference_impl.model.objects import Node, Pod
from reference_impl.plugins import names
from reference_impl.plugins.helper.behaviour import behaviour

if TYPE_CHECKING:
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.types import NodeInfo

PRE_FILTER_STATE_KEY = "PreFilter" + names.NodeDeclaredFeatures
ERR_REASON_UNSATISFIED_REQUIREMENTS = "node(s) didn't match Pod's required features"
# fwk.FeaturesSignerName (staging/src/k8s.io/kube-scheduler/framework/signers.go).
FEATURES_SIGNER_NAME = "v1.Pod.Spec.RequiredFeatures()"

QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"

# The scheduler's own version (component-base version.Get()), the target of inference.
SCHEDULER_VERSION = (1, 37, 2)

Version = tuple[int, int, int]


# ----- the node-declared-features framework ---------------------------------------------------

class FeatureSet:
    """``FeatureSet`` (a ``bitmap`` of ``size`` bits; bitmap.go) over the sorted registry."""

    __slots__ = ("bits", "size")

    def __init__(self, size: int, bits: int = 0) -> None:
        self.size = size
        self.bits = bits

    def set(self, i: int) -> None:
        if i < 0 or i >= self.size:
            raise IndexError(f"bitmap index out of range: {i}")
        self.bits |= 1 << i

    def get(self, i: int) -> bool:
        if i < 0 or i >= self.size:
            raise IndexError(f"bitmap index out of range: {i}")
        return bool(self.bits >> i & 1)

    def is_empty(self) -> bool:
        return self.bits == 0

    def is_subset(self, other: FeatureSet) -> tuple[bool, str | None]:
        """``IsSubset``: (result, error message on a size mismatch)."""
        if self.size != other.size:
            return False, f"bitmap size mismatch; {self.size} != {other.size}"
        return self.bits & ~other.bits == 0, None

    def equal(self, other: FeatureSet) -> bool:
        return self.size == other.size and self.bits == other.bits

    def __str__(self) -> str:
        """``String``: one '0'/'1' per bit, bit 0 leftmost."""
        return "".join("1" if self.bits >> i & 1 else "0" for i in range(self.size))

    def __repr__(self) -> str:
        return f"FeatureSet({self})"


class DeclaredFeature:
    """A registered feature (``types.Feature``): its name, whether a pod's scheduling requires
    it, and the last version it matters for (None: no bound)."""

    __slots__ = ("name", "infer_for_scheduling", "max_version")

    def __init__(self, name: str, infer_for_scheduling: Callable[[Any], bool],
                 max_version: Version | None = None) -> None:
        self.name = name
        self.infer_for_scheduling = infer_for_scheduling
        self.max_version = max_version


class NdfFramework:
    """``nodedeclaredfeatures.Framework`` with its ``FeatureMapper`` (framework.go,
    featureset.go): the registry sorted by name; bit i is the i-th name."""

    def __init__(self, registry: Iterable[DeclaredFeature]) -> None:
        self.registry = sorted(registry, key=lambda f: f.name)
        self.registered_features = [f.name for f in self.registry]

    def new_feature_set(self) -> FeatureSet:
        return FeatureSet(len(self.registered_features))

    def infer_for_pod_scheduling(self, pod: Any, target_version: Version) -> FeatureSet:
        """``InferForPodScheduling``: the features the pod requires, skipping those whose
        MaxVersion is below the target version."""
        reqs = self.new_feature_set()
        for i, f in enumerate(self.registry):
            if f.max_version is not None and target_version > f.max_version:
                continue
            if f.infer_for_scheduling(pod):
                reqs.set(i)
        return reqs

    def _map_sorted(self, sorted_features: Sequence[str], ignore_unknown: bool
                    ) -> tuple[FeatureSet, str | None]:
        """``mapSorted``: a merge walk over two sorted lists (the input is assumed sorted)."""
        s = self.new_feature_set()
        reg = self.registered_features
        i = j = 0
        while i < len(sorted_features) and j < len(reg):
            if sorted_features[i] == reg[j]:
                s.set(j)
                i += 1
                j += 1
            elif sorted_features[i] < reg[j]:
                if not ignore_unknown:
                    return s, f"unknown feature {sorted_features[i]}"
                i += 1
            else:
                j += 1
        if not ignore_unknown and i < len(sorted_features):
            return s, f"unknown feature {sorted_features[i]}"
        return s, None

    def map_sorted(self, sorted_features: Sequence[str]) -> FeatureSet:
        """``MustMapSorted``: raises on an unknown feature."""
        s, err = self._map_sorted(sorted_features, False)
        if err is not None:
            raise ValueError(err)
        return s

    def try_map(self, sorted_features: Sequence[str]) -> FeatureSet:
        """``TryMap``: unknown features are ignored."""
        return self._map_sorted(sorted_features, True)[0]

    def unmap(self, s: FeatureSet) -> list[str]:
        """``Unmap``: the names of the set bits, in registry (sorted) order."""
        if s.size != len(self.registered_features):
            raise ValueError(f"feature size mismatch! s.size={s.size}; "
                             f"len(m.registeredFeatures)={len(self.registered_features)}")
        return [n for i, n in enumerate(self.registered_features) if s.bits >> i & 1]


def _containers(pod: Any, with_ephemeral: bool) -> list:
    out = list(getattr(pod, "containers", ()) or ()) + list(
        getattr(pod, "init_containers", ()) or ())
    if with_ephemeral:
        out += list(getattr(pod, "ephemeral_containers", ()) or ())
    return out


def infer_restart_all_containers(pod: Any) -> bool:
    """``restartallcontainers`` InferForScheduling (features/restartallcontainers/)."""
    for c in _containers(pod, False):
        for rule in getattr(c, "restart_policy_rules", ()) or ():
            if rule.get("action") == "RestartAllContainers":
                return True
    return False


def infer_user_namespaces_host_network(pod: Any) -> bool:
    """``usernamespaceshostnetwork`` InferForScheduling: hostNetwork with hostUsers=false."""
    return bool(getattr(pod, "host_network", False)) and getattr(pod, "host_users", None) is False


def infer_volume_bind_mount_options(pod: Any) -> bool:
    """``volumebindmountoptions`` InferForScheduling: a volume mount with bindMountOptions."""
    for c in _containers(pod, True):
        for mount in getattr(c, "volume_mounts", ()) or ():
            if mount.get("bindMountOptions"):
                return True
    return False


def _never(pod: Any) -> bool:
    return False


_RESTART_ALL = DeclaredFeature("RestartAllContainersOnContainerExits",
                               infer_restart_all_containers)
_POD_LEVEL_RESIZE = DeclaredFeature("InPlacePodLevelResourcesVerticalScaling", _never)
_USER_NS_HOST_NETWORK = DeclaredFeature("UserNamespacesHostNetworkSupport",
                                        infer_user_namespaces_host_network)

# features.AllFeatures of v1.37.2 (features/registry.go).
ALL_FEATURES = (
    _RESTART_ALL,
    _POD_LEVEL_RESIZE,
    DeclaredFeature("ExtendWebSocketsToKubelet", _never),
    DeclaredFeature("InPlacePodVerticalScalingInitContainers", _never),
    DeclaredFeature("InPlacePodVerticalScalingMemoryBackedVolumes", _never),
    _USER_NS_HOST_NETWORK,
    DeclaredFeature("DRANodeAllocatableResources", _never),
    DeclaredFeature("VolumeBindMountOptions", infer_volume_bind_mount_options),
    DeclaredFeature("DRAOptionalNodeOperations", _never),
)

DEFAULT_FRAMEWORK = NdfFramework(ALL_FEATURES)

#: ``features.AllFeatures`` of the ``k8s.io/component-helpers`` module of each release, by the
#: variant of switch ``node-declared-features`` (``nodedeclaredfeatures/features/registry.go``):
#: v0.35.4 registers three features (only RestartAllContainersOnContainerExits infers a
#: requirement), v0.36.3 five (UserNamespacesHostNetworkSupport infers one too), v0.37.2 the
#: nine above. v1.34.4 has no plugin. Every feature's ``MaxVersion`` is nil in all of them.
FRAMEWORKS: dict[str, NdfFramework] = {
    "absent": NdfFramework(()),
    "unsatisfied-list": NdfFramework((
        _RESTART_ALL, DeclaredFeature("GuaranteedQoSPodCPUResize", _never), _POD_LEVEL_RESIZE)),
    "subset": NdfFramework((
        _RESTART_ALL, _POD_LEVEL_RESIZE, DeclaredFeature("ExtendWebSocketsToKubelet", _never),
        DeclaredFeature("InPlacePodVerticalScalingInitContainers", _never),
        _USER_NS_HOST_NETWORK)),
    "subset-extended": DEFAULT_FRAMEWORK,
}

#: v1.35.4's Filter message (nodedeclaredfeatures.go), followed by the unsatisfied features.
ERR_REASON_UNSATISFIED_LIST = "node declared features check failed - unsatisfied requirements: "


# ----- the plugin -------------------------------------------------------------------------------

class _PreFilterState:
    """``preFilterState``: the pod's required features. Clone shares the pointer."""

    __slots__ = ("reqs",)

    def __init__(self, reqs: FeatureSet) -> None:
        self.reqs = reqs

    def clone(self) -> _PreFilterState:
        return self


class NodeDeclaredFeatures(PreFilterPlugin, FilterPlugin, EnqueueExtensions, SignPlugin):
    """``NodeDeclaredFeatures`` (nodedeclaredfeatures.go)."""

    name = names.NodeDeclaredFeatures

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        self.enabled = bool(handle is not None and handle.feature_enabled("NodeDeclaredFeatures"))
        #: switch node-declared-features: the release's feature registry and Filter message
        self.rule = behaviour(handle, "node-declared-features")
        self.ndf_framework = FRAMEWORKS[self.rule]
        # No feature of any supported release has a MaxVersion, so the target version of
        # inference never matters: the pinned one.
        self.version: Version = SCHEDULER_VERSION
        # NodeInfo.SetNode maps node.status.declaredFeatures once; cached by the tuple here.
        self._node_sets: dict[tuple[str, ...], FeatureSet] = {}

    def _node_feature_set(self, declared: tuple[str, ...]) -> FeatureSet:
        fs = self._node_sets.get(declared)
        if fs is None:
            fs = self._node_sets[declared] = self.ndf_framework.try_map(declared)
        return fs

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: Skip when disabled or the pod requires no feature."""
        if not self.enabled:
            return None, Status(Code.SKIP)
        reqs = self.ndf_framework.infer_for_pod_scheduling(pod, self.version)
        if reqs.is_empty():
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(reqs))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: the pod's requirements must be a subset of the node's declared
        features."""
        if not self.enabled:
            return None
        s: _PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.as_error(
                f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: not found')
        declared = tuple(node_info.node.declared_features)
        ok, err = s.reqs.is_subset(self._node_feature_set(declared))
        if err is not None:
            return Status.as_error(err)
        if not ok:
            if self.rule == "unsatisfied-list":
                # v1.35.4: MatchNodeFeatureSet's unsatisfied names (Go map order; here sorted).
                node_bits = self._node_feature_set(declared).bits
                missing = self.ndf_framework.unmap(
                    FeatureSet(s.reqs.size, s.reqs.bits & ~node_bits))
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                              ERR_REASON_UNSATISFIED_LIST + ", ".join(missing))
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSATISFIED_REQUIREMENTS)
        return None

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: the required feature set, as its bit string."""
        fs = self.ndf_framework.infer_for_pod_scheduling(pod, self.version)
        return [(FEATURES_SIGNER_NAME, str(fs))], None

    def events_to_register(self) -> list:
        """``EventsToRegister``: none when disabled."""
        if not self.enabled:
            return []
        return [
            ("Node", ("Add", "UpdateNodeDeclaredFeature"), "is_schedulable_after_node_change"),
            ("TargetPod", ("Update",), "is_schedulable_after_target_pod_update"),
        ]

    def is_schedulable_after_target_pod_update(self, pod: Pod, old_obj: Any, new_obj: Any
                                               ) -> tuple[str, str | None]:
        """``isSchedulableAfterTargetPodUpdate``: the pod's requirements changed."""
        for obj in (new_obj, old_obj):
            if obj is not None and not isinstance(obj, Pod):
                return QUEUE, f"expected *v1.Pod, but got {type(obj).__name__}"
        old_reqs = self.ndf_framework.infer_for_pod_scheduling(old_obj, self.version)
        new_reqs = self.ndf_framework.infer_for_pod_scheduling(new_obj, self.version)
        return (QUEUE_SKIP if new_reqs.equal(old_reqs) else QUEUE), None

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any
                                         ) -> tuple[str, str | None]:
        """``isSchedulableAfterNodeChange``: a new node, or changed declared features (compared
        as ordered lists)."""
        for obj in (new_obj, old_obj):
            if obj is not None and not isinstance(obj, Node):
                return QUEUE, f"expected *v1.Node, but got {type(obj).__name__}"
        if old_obj is not None and tuple(old_obj.declared_features) == tuple(
                new_obj.declared_features):
            return QUEUE_SKIP, None
        return QUEUE, None
