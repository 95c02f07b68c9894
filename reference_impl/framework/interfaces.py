"""The plugin API: one base class per extension point, as upstream's plugin interfaces.

Upstream: ``staging/src/k8s.io/kube-scheduler/framework/interface.go``.

A plugin is a class with a ``name`` that inherits from the base classes of the extension points it
implements. The framework calls the methods below; ``None`` stands for a Success status.
Constructors take ``(args, handle)``: ``args`` is the plugin's typed args object (or ``None``) and
``handle`` the :class:`Handle` of the framework that owns it. See ``docs/plugins.md`` and
``reference_impl/plugins/examples/`` for a complete out-of-tree example.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.snapshot import Snapshot
    from reference_impl.framework.status import PostFilterResult, PreFilterResult, Status
    from reference_impl.framework.types import NodeInfo, PodInfo
    from reference_impl.model.objects import Pod

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


class Handle(Protocol):
    """What a plugin can reach of the framework that runs it (``fwk.Handle``)."""

    def snapshot(self) -> Snapshot: ...

    def feature_enabled(self, gate: str) -> bool: ...

    def behaviour(self, name: str) -> str: ...

    @property
    def parallelism(self) -> int: ...


class Plugin:
    """Base of every plugin (``fwk.Plugin``)."""

    name: ClassVar[str] = ""
    release_points: ClassVar[Mapping[str, tuple[str, str]]] = {}
    """Extension points (v1 field names) the plugin's upstream code lacks in some releases:
    point → (behaviour switch, the variant those releases run). The configuration's expansion
    leaves the point out for them (``reference_impl/config/plugins.py``), as a Go plugin type
    without the method does not extend that point."""
    replaces: ClassVar[str] = ""
    """For a user plugin: the in-tree plugin it re-implements (``replaces = "NodeResourcesFit"``).
    The oracles judge it by that plugin's rules and the differential compares it with that
    plugin (docs/plugins.md)."""
    changes: ClassVar[frozenset[str]] = frozenset()
    """With ``replaces``: the rules of the in-tree plugin the user plugin changes on purpose
    (docs/plugins.md lists each plugin's rule names); what breaks only those is reported as an
    intended change, not as a violation or a divergence."""

    def __init__(self, args: Any = None, handle: Handle | None = None) -> None:
        self.args = args
        self.handle = handle


class PreEnqueuePlugin(Plugin):
    #: True when the verdict reads only the pod (SchedulingGates): no cluster change can alter
    #: it, so a gated pod is never worth a retry the simulation waits for (a copy inherits it)
    pre_enqueue_reads_only_the_pod: bool = False

    def pre_enqueue(self, pod: Pod) -> Status | None:
        raise NotImplementedError


class QueueSortPlugin(Plugin):
    def less(self, a: Any, b: Any) -> bool:
        """True if queued entity ``a`` must be popped before ``b``."""
        raise NotImplementedError


class PreFilterExtensions(Protocol):
    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None: ...

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None: ...


class PreFilterPlugin(Plugin):
    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        raise NotImplementedError

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        """The AddPod/RemovePod extensions (used with nominated pods and by preemption)."""
        return None


class FilterPlugin(Plugin):
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        raise NotImplementedError


class PostFilterPlugin(Plugin):
    def post_filter(self, state: CycleState, pod: Pod, node_to_status: Any
                    ) -> tuple[PostFilterResult | None, Status | None]:
        raise NotImplementedError


class PreScorePlugin(Plugin):
    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        raise NotImplementedError


class ScorePlugin(Plugin):
    """``score`` returns an int; raise ``PluginError`` for an Error status.

    A plugin with a NormalizeScore extension overrides ``normalize_score`` and sets
    ``has_normalize_score = True``. ``scores`` is a list of ``[node_name, score]`` pairs, changed in
    place.
    """

    has_normalize_score: ClassVar[bool] = False

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        raise NotImplementedError

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[list]) -> Status | None:
        return None


class ReservePlugin(Plugin):
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        raise NotImplementedError


class PermitPlugin(Plugin):
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """Returns a status and, with Wait, the timeout in seconds."""
        raise NotImplementedError


class PreBindPlugin(Plugin):
    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Skip means the plugin has nothing to do at PreBind for this pod."""
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError


class BindPlugin(Plugin):
    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError


class PostBindPlugin(Plugin):
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        raise NotImplementedError


class SignPlugin(Plugin):
    """Contributes to a pod's scheduling signature (OpportunisticBatching)."""

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        raise NotImplementedError


class EnqueueExtensions(Plugin):
    """Cluster events that may make a pod rejected by this plugin schedulable (queue issue)."""

    def events_to_register(self) -> list:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class DeletedFinalStateUnknown:
    """``cache.DeletedFinalStateUnknown`` (k8s.io/client-go/tools/cache/delta_fifo.go): the old
    object of a delete event whose final state the informer missed (``obj``: its last known
    state, possibly None). A queueing hint can get it as ``old_obj`` with ``new_obj`` None."""

    key: str
    obj: Any = None


EXTENSION_POINTS: tuple[tuple[str, type], ...] = (
    ("preEnqueue", PreEnqueuePlugin),
    ("queueSort", QueueSortPlugin),
    ("preFilter", PreFilterPlugin),
    ("filter", FilterPlugin),
    ("postFilter", PostFilterPlugin),
    ("preScore", PreScorePlugin),
    ("score", ScorePlugin),
    ("reserve", ReservePlugin),
    ("permit", PermitPlugin),
    ("preBind", PreBindPlugin),
    ("bind", BindPlugin),
    ("postBind", PostBindPlugin),
)
