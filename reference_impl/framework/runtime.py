"""The framework runtime: runs a profile's plugins at each extension point.

Upstream: ``pkg/scheduler/framework/runtime/framework.go`` (frameworkImpl and its Run* methods).
Parallel loops of upstream (Score per node, Normalize per plugin) run sequentially here; their
results do not depend on the order. Error messages follow upstream's wording.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from reference_impl.framework import interfaces as itf
from reference_impl.framework import vectorised
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.node_to_status import NodeToStatus
from reference_impl.framework.snapshot import Snapshot
from reference_impl.framework.status import (
    Code,
    PluginError,
    PostFilterResult,
    PreFilterResult,
    Status,
)
from reference_impl.framework.types import NodeInfo, PodInfo
from reference_impl.model.controllers import NO_CONTROLLERS, Controllers
from reference_impl.model.dra import DRAObjects
from reference_impl.model.objects import Pod
from reference_impl.model.storage import StorageObjects
from reference_impl.releases import ReleaseData
from reference_impl.releases.current import RELEASE

MAX_PERMIT_TIMEOUT_SECONDS = 15 * 60  # framework.go maxTimeout


class Diagnosis:
    """``framework.Diagnosis``: per-node statuses of a failed attempt and the plugins involved."""

    __slots__ = ("_node_to_status", "absent_nodes_status", "unschedulable_plugins",
                 "pending_plugins", "pre_filter_msg", "post_filter_msg")

    def __init__(self) -> None:
        self._node_to_status = NodeToStatus()
        # NewDefaultNodeToStatus: nodes absent from the map are UnschedulableAndUnresolvable.
        self.absent_nodes_status: Status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        self.unschedulable_plugins: set[str] = set()
        self.pending_plugins: set[str] = set()
        self.pre_filter_msg = ""
        self.post_filter_msg = ""

    @property
    def node_to_status(self) -> NodeToStatus:
        """The explicit statuses (``NodeToStatus``); a dict set here becomes its first part."""
        return self._node_to_status

    @node_to_status.setter
    def node_to_status(self, value: dict[str, Status] | NodeToStatus) -> None:
        self._node_to_status = value if isinstance(value, NodeToStatus) else NodeToStatus(value)

    def add_plugin_status(self, status: Status) -> None:
        """``Diagnosis.AddPluginStatus``."""
        if not status.plugin:
            return
        if status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)
        if status.code == Code.PENDING:
            self.pending_plugins.add(status.plugin)

    def status_of(self, node_name: str) -> Status:
        s = self.node_to_status.get(node_name)
        return s if s is not None else self.absent_nodes_status


class FrameworkHandle:
    """The services a Framework gets from the scheduler that runs it (``fwk.Handle`` parts)."""

    def __init__(self, snapshot: Snapshot, features: Callable[[str], bool], parallelism: int,
                 nominated_pods_for_node: Callable[[str], list[PodInfo]] | None = None,
                 bind_pod: Callable[[Pod, str], Status | None] | None = None,
                 rng: Any = None, pdbs: list | None = None,
                 delete_pod: Callable[[Pod, Pod], Status | None] | None = None,
                 clear_nominated_node_name: Callable[[Pod], None] | None = None,
                 controllers: Controllers = NO_CONTROLLERS,
                 dra: DRAObjects | None = None,
                 storage: StorageObjects | None = None,
                 storage_changed: Callable[[str, Any, Any], None] | None = None,
                 release: ReleaseData = RELEASE,
                 nominated_pods_map: Mapping[str, list[PodInfo]] | None = None) -> None:
        self._snapshot = snapshot
        self._nominated_map = nominated_pods_map
        self.release = release
        self._storage_changed = storage_changed
        self._dra = dra if dra is not None else DRAObjects()
        self._storage = storage if storage is not None else StorageObjects()
        self._controllers = controllers
        self._features = features
        self._parallelism = parallelism
        self._nominated = nominated_pods_for_node or (lambda name: [])
        self._bind = bind_pod
        self.rng = rng  # the seeded random.Random of the scheduler
        self._pdbs = pdbs if pdbs is not None else []
        self._delete_pod = delete_pod
        self._clear_nnn = clear_nominated_node_name
        self.framework: Framework | None = None  # set by Framework.__init__
        self.extras: dict[str, Any] = {}  # services later subsystems add (preemption, queue)

    def snapshot(self) -> Snapshot:
        return self._snapshot

    def feature_enabled(self, gate: str) -> bool:
        return self._features(gate)

    def behaviour(self, name: str) -> str:
        """The variant of a behaviour switch the release runs (``releases/behaviours.py``)."""
        return self.release.behaviour(name)

    def dra_objects(self) -> DRAObjects:
        """The cluster's DRA objects (``Cluster.dra``), which DynamicResources reads and
        updates (its DRA manager, ``fwk.SharedDRAManager``)."""
        return self._dra

    def storage_objects(self) -> StorageObjects:
        """The cluster's storage objects (``Cluster.storage``): the PV, PVC, StorageClass,
        CSINode, CSIDriver, CSIStorageCapacity and VolumeAttachment listers of the informer
        factory, which the volume plugins read and VolumeBinding's binder updates."""
        return self._storage

    def storage_changed(self, resource: str, old_obj: Any, new_obj: Any) -> None:
        """Tell the scheduler that a storage object changed in the API: ``resource`` is the
        kind (``PersistentVolume``, ``PersistentVolumeClaim``, ...), ``old_obj`` None for an
        add. The scheduler's event handlers (eventhandlers.go) turn it into a cluster event
        for the queue. The objects in ``storage_objects()`` are already updated."""
        if self._storage_changed is not None:
            self._storage_changed(resource, old_obj, new_obj)

    @property
    def parallelism(self) -> int:
        return self._parallelism

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return self._nominated(node_name)

    def nominated_pods_reader(self) -> Callable[[str], Sequence[PodInfo] | None]:
        """Node name -> its nominated pods, as ``nominated_pods_for_node`` but without a copy
        when the scheduler gave the nominator's map (``nominated_pods_map``): the caller
        reads them and changes nothing; None or empty when there are none."""
        if self._nominated_map is not None:
            return self._nominated_map.get
        return self._nominated

    def controllers(self) -> Controllers:
        """The Service / ReplicationController / ReplicaSet / StatefulSet listers of the
        informer factory (``helper.DefaultSelector``'s inputs)."""
        return self._controllers

    def pdbs(self) -> list:
        """The PodDisruptionBudgets of the cluster (``PodDisruptionBudgetLister``)."""
        return self._pdbs

    def delete_pod(self, victim: Pod, preemptor: Pod) -> Status | None:
        """Evict a preemption victim (the API DELETE of ``prepareCandidate``)."""
        if self._delete_pod is None:
            return Status.as_error("no pod deleter configured")
        return self._delete_pod(victim, preemptor)

    def clear_nominated_node_name(self, pod: Pod) -> None:
        """``util.ClearNominatedNodeName`` for a lower-priority pod nominated to a node."""
        if self._clear_nnn is not None:
            self._clear_nnn(pod)

    def bind_pod(self, pod: Pod, node_name: str) -> Status | None:
        if self._bind is None:
            return Status.as_error("no binder configured")
        return self._bind(pod, node_name)


class Framework:
    """One profile's plugins, instantiated once and ordered per extension point.

    ``plugins`` maps an extension point name (``preFilter``, ``filter``, ``score``, ...) to the
    ordered list of ``(plugin name, weight)`` of the final, expanded profile.
    """

    def __init__(self, profile_name: str, plugins: Mapping[str, Sequence[tuple[str, int]]],
                 registry: dict[str, type[itf.Plugin]], plugin_args: dict[str, Any],
                 handle: FrameworkHandle, percentage_of_nodes_to_score: int | None = None) -> None:
        self.profile_name = profile_name
        self.handle = handle
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        handle.framework = self
        self.instances: dict[str, itf.Plugin] = {}
        self.score_weights: dict[str, int] = {}

        def get(name: str) -> itf.Plugin:
            inst = self.instances.get(name)
            if inst is None:
                cls = registry.get(name)
                if cls is None:
                    raise ValueError(f"plugin {name!r} is not registered")
                inst = cls(plugin_args.get(name), handle)
                self.instances[name] = inst
            return inst

        def lst(point: str, base: type) -> list:
            out = []
            for name, weight in plugins.get(point, []):
                inst = get(name)
                if not isinstance(inst, base):
                    raise ValueError(f"plugin {name!r} does not extend {point}")
                out.append(inst)
                if point == "score":
                    self.score_weights[name] = weight
            return out

        self.pre_enqueue_plugins: list[itf.PreEnqueuePlugin] = lst(
            "preEnqueue", itf.PreEnqueuePlugin)
        self.queue_sort_plugins: list[itf.QueueSortPlugin] = lst("queueSort", itf.QueueSortPlugin)
        self.pre_filter_plugins: list[itf.PreFilterPlugin] = lst("preFilter", itf.PreFilterPlugin)
        self.filter_plugins: list[itf.FilterPlugin] = lst("filter", itf.FilterPlugin)
        self.post_filter_plugins: list[itf.PostFilterPlugin] = lst(
            "postFilter", itf.PostFilterPlugin)
        self.pre_score_plugins: list[itf.PreScorePlugin] = lst("preScore", itf.PreScorePlugin)
        self.score_plugins: list[itf.ScorePlugin] = lst("score", itf.ScorePlugin)
        self.reserve_plugins: list[itf.ReservePlugin] = lst("reserve", itf.ReservePlugin)
        self.permit_plugins: list[itf.PermitPlugin] = lst("permit", itf.PermitPlugin)
        self.pre_bind_plugins: list[itf.PreBindPlugin] = lst("preBind", itf.PreBindPlugin)
        self.bind_plugins: list[itf.BindPlugin] = lst("bind", itf.BindPlugin)
        self.post_bind_plugins: list[itf.PostBindPlugin] = lst("postBind", itf.PostBindPlugin)
        self._filter_pairs = [(p.name, p.filter) for p in self.filter_plugins]
        # PreFilterExtensions() is fixed per plugin: resolve it once.
        self._pre_filter_exts = [(p.name, ext) for p in self.pre_filter_plugins
                                 if (ext := p.pre_filter_extensions()) is not None]

    # ----- queries -----
    def pre_filter_extension_names(self) -> list[str]:
        """The PreFilter plugins with PreFilterExtensions (AddPod/RemovePod), in order."""
        return [name for name, _ in self._pre_filter_exts]

    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    def queue_sort_less(self) -> Callable[[Any, Any], bool]:
        return self.queue_sort_plugins[0].less

    # ----- PreEnqueue -----
    def run_pre_enqueue_plugins(self, pod: Pod) -> Status | None:
        for pl in self.pre_enqueue_plugins:
            s = pl.pre_enqueue(pod)
            if s is not None and not s.is_success():
                if s.is_rejected():
                    return s.with_plugin(pl.name)
                return Status.as_error(
                    f"running PreEnqueue plugin {pl.name}: {s.message()}").with_plugin(pl.name)
        return None

    # ----- PreFilter -----
    def run_pre_filter_plugins(self, state: CycleState, pod: Pod
                               ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """``RunPreFilterPlugins``: merge PreFilterResults; Skip marks the Filter skipped;
        Unschedulable runs the rest (preemption may help), UnschedulableAndUnresolvable stops."""
        nodes = self.handle.snapshot().list()
        skip: set[str] = set()
        result: PreFilterResult | None = None
        plugins_with_nodes: set[str] = set()
        return_status: Status | None = None
        try:
            for pl in self.pre_filter_plugins:
                r, s = pl.pre_filter(state, pod, nodes)
                if s is not None and s.code == Code.SKIP:
                    skip.add(pl.name)
                    continue
                if s is not None and s.code != Code.SUCCESS:
                    s.plugin = pl.name
                    if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                        return None, s, set()
                    if s.code == Code.UNSCHEDULABLE:
                        return_status = s
                        continue
                    return None, Status.as_error(
                        f'running PreFilter plugin "{pl.name}": {s.message()}'
                    ).with_plugin(pl.name), set()
                if r is not None and r.node_names is not None:
                    plugins_with_nodes.add(pl.name)
                result = PreFilterResult.merge(result, r)
                if result is not None and result.node_names is not None and not result.node_names:
                    names = sorted(plugins_with_nodes)
                    if len(names) == 1:
                        msg = f"node(s) didn't satisfy plugin {names[0]}"
                    else:
                        msg = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
                    status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg)
                    return result, status, plugins_with_nodes
            return result, return_status, plugins_with_nodes
        finally:
            state.skip_filter_plugins = skip

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: Pod, pi: PodInfo,
                                         node_info: NodeInfo) -> Status | None:
        skip = state.skip_filter_plugins
        for name, ext in self._pre_filter_exts:
            if name in skip:
                continue
            s = ext.add_pod(state, pod, pi, node_info)
            if s is not None and s.code != Code.SUCCESS:
                return Status.as_error(
                    f'running AddPod on PreFilter plugin "{name}": {s.message()}')
        return None

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: Pod, pi: PodInfo,
                                            node_info: NodeInfo) -> Status | None:
        skip = state.skip_filter_plugins
        for name, ext in self._pre_filter_exts:
            if name in skip:
                continue
            s = ext.remove_pod(state, pod, pi, node_info)
            if s is not None and s.code != Code.SUCCESS:
                return Status.as_error(
                    f'running RemovePod on PreFilter plugin "{name}": {s.message()}')
        return None

    # ----- Filter -----
    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                           pairs: Sequence[tuple[str, Any]] | None = None) -> Status | None:
        """``RunFilterPlugins``: the first non-success status, with its plugin set. ``pairs``:
        only these (name, filter) pairs, in their order (the vectorised search runs the plugins
        its batch masks did not decide)."""
        skip = state.skip_filter_plugins
        for name, fn in self._filter_pairs if pairs is None else pairs:
            if skip and name in skip:
                continue
            s = fn(state, pod, node_info)
            if s is not None and s.code != Code.SUCCESS:
                if not s.is_rejected():
                    s = Status.as_error(f'running "{name}" filter plugin: {s.message()}')
                s.plugin = name
                return s
        return None

    def run_all_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo
                               ) -> list[tuple[str, Status | None]]:
        """Every Filter plugin's own status on one node (for ``explain``); a plugin whose
        PreFilter returned Skip is reported as Skip."""
        out: list[tuple[str, Status | None]] = []
        for name, fn in self._filter_pairs:
            if name in state.skip_filter_plugins:
                out.append((name, Status(Code.SKIP)))
                continue
            s = fn(state, pod, node_info)
            if s is not None and s.code != Code.SUCCESS:
                s.plugin = name
            out.append((name, s))
        return out

    def add_ge_nominated_pods(self, state: CycleState, pod: Pod, node_info: NodeInfo
                              ) -> tuple[bool, CycleState, NodeInfo]:
        """``addGENominatedPods``: nominated pods of equal or higher priority, added to a copy of
        the node and of the state."""
        nominated = self.handle.nominated_pods_for_node(node_info.node.name)
        if not nominated:
            return False, state, node_info
        node_out = node_info.snapshot_copy()
        state_out = state.clone()
        added = False
        prio = pod.priority
        for pi in nominated:
            if pi.pod.priority >= prio and pi.pod.uid != pod.uid:
                node_out.add_pod_info(pi)
                s = self.run_pre_filter_extension_add_pod(state_out, pod, pi, node_out)
                if s is not None and not s.is_success():
                    raise PluginError(s.message())
                added = True
        return added, state_out, node_out

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status | None:
        """``RunFilterPluginsWithNominatedPods``: with higher-or-equal-priority nominated pods
        added first; if that passes and pods were added, again without them."""
        try:
            added, state1, node1 = self.add_ge_nominated_pods(state, pod, node_info)
        except PluginError as e:
            return e.status
        status = self.run_filter_plugins(state1, pod, node1)
        if status is not None and not status.is_success() and not status.is_rejected():
            return status
        if not added or (status is not None and not status.is_success()):
            return status
        return self.run_filter_plugins(state, pod, node_info)

    # ----- PostFilter -----
    def run_post_filter_plugins(self, state: CycleState, pod: Pod, diagnosis: Diagnosis
                                ) -> tuple[PostFilterResult | None, Status]:
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        for pl in self.post_filter_plugins:
            r, s = pl.post_filter(state, pod, diagnosis)
            if s is None or s.is_success():
                return r, s or Status(Code.SUCCESS)
            if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return r, s.with_plugin(pl.name)
            if not s.is_rejected():
                return None, Status.as_error(s.message()).with_plugin(pl.name)
            if r is not None and r.nominating_info is not None and r.nominating_info.mode != 0:
                result = r
            reasons.extend(s.all_reasons())
            if not rejector:
                rejector = pl.name
        return result, Status(Code.UNSCHEDULABLE, *reasons, plugin=rejector)

    # ----- PreScore / Score -----
    def run_pre_score_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                              ) -> Status | None:
        skip: set[str] = set()
        try:
            for pl in self.pre_score_plugins:
                s = pl.pre_score(state, pod, nodes)
                if s is not None and s.code == Code.SKIP:
                    skip.add(pl.name)
                    continue
                if s is not None and s.code != Code.SUCCESS:
                    return Status.as_error(f'running PreScore plugin "{pl.name}": {s.message()}')
            return None
        finally:
            state.skip_score_plugins = skip

    def non_skipped_score_plugins(self, state: CycleState) -> list[itf.ScorePlugin]:
        skip = state.skip_score_plugins
        return [pl for pl in self.score_plugins if pl.name not in skip]

    def run_score_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                          detail: bool = True) -> tuple[list[ScoredNode] | None, Status | None]:
        """``RunScorePlugins``: raw scores per plugin and node, NormalizeScore, range check
        [0, 100] after normalizing, then weighted sum. Without ``detail`` only the totals are
        kept (the hot path); with it, every plugin's raw, normalized and weighted score."""
        plugins = self.non_skipped_score_plugins(state)
        if not plugins:
            return [ScoredNode(ni.node.name) for ni in nodes], None
        if not detail and len(nodes) >= vectorised.MIN_NODES:
            totals, status = self._run_score_plugins_vectorised(state, pod, nodes, plugins)
            if totals is not None:
                return scored_nodes(nodes, totals), None
            if status is not None:
                return None, status
        return self._score_per_node(state, pod, nodes, plugins, detail)

    def score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo], detail: bool = True
              ) -> tuple[list[ScoredNode] | np.ndarray | None, Status | None]:
        """``run_score_plugins``, whose totals come as one int64 array (node order) when the
        vectorised path applies: no ScoredNode per node. A ``run_score_plugins`` other than
        this class's (a mutant's patch) is called as it is."""
        if (detail or len(nodes) < vectorised.MIN_NODES
                or type(self).run_score_plugins is not _SPEC_RUN_SCORE_PLUGINS):
            return self.run_score_plugins(state, pod, nodes, detail)
        plugins = self.non_skipped_score_plugins(state)
        if not plugins:
            return [ScoredNode(ni.node.name) for ni in nodes], None
        totals, status = self._run_score_plugins_vectorised(state, pod, nodes, plugins)
        if totals is not None or status is not None:
            return totals, status
        return self._score_per_node(state, pod, nodes, plugins, detail)

    def _score_per_node(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                        plugins: list[itf.ScorePlugin], detail: bool
                        ) -> tuple[list[ScoredNode] | None, Status | None]:
        """``run_score_plugins``' per-node loop (the specification of the vectorised path)."""
        results = [ScoredNode(ni.node.name) for ni in nodes]
        raws: list[list[int]] = []
        for pl in plugins:
            score = pl.score
            try:
                raws.append([score(state, pod, ni) for ni in nodes])
            except PluginError as e:
                return None, Status.as_error(
                    f'running Score plugins: plugin "{pl.name}" failed with: {e.status.message()}')
        normalized_all: list[list[int]] = []
        for pl, raw in zip(plugins, raws, strict=True):
            if pl.has_normalize_score:
                pairs: list[list[Any]] = [[r.name, v] for r, v in zip(results, raw, strict=True)]
                s = pl.normalize_score(state, pod, pairs)
                if s is not None and not s.is_success():
                    return None, Status.as_error(
                        f'running Normalize on Score plugins: plugin "{pl.name}" failed with: '
                        f'{s.message()}')
                normalized_all.append([p[1] for p in pairs])
            else:
                normalized_all.append(raw)
        totals = [0] * len(nodes)
        out_of_range = any(max(v) > itf.MAX_NODE_SCORE or min(v) < itf.MIN_NODE_SCORE
                           for v in normalized_all)
        for j in range(len(nodes) if out_of_range else 0):
            for pl, normalized in zip(plugins, normalized_all, strict=True):
                v = normalized[j]
                if v > itf.MAX_NODE_SCORE or v < itf.MIN_NODE_SCORE:
                    return None, Status.as_error(
                        "applying score defaultWeights on Score plugins: "
                        f'plugin "{pl.name}" returns an invalid score {v}, it should in the '
                        f"range of [{itf.MIN_NODE_SCORE}, {itf.MAX_NODE_SCORE}] after normalizing")
        for pl, raw, normalized in zip(plugins, raws, normalized_all, strict=True):
            weight = self.score_weights[pl.name]
            if weight == 1:
                totals = [t + v for t, v in zip(totals, normalized, strict=True)]
            else:
                totals = [t + v * weight for t, v in zip(totals, normalized, strict=True)]
            if detail:
                name = pl.name
                for r, rv, nv in zip(results, raw, normalized, strict=True):
                    r.raw.append((name, rv))
                    r.normalized.append((name, nv))
                    r.weighted.append((name, nv * weight))
        for r, t in zip(results, totals, strict=True):
            r.total = t
        return results, None

    def _run_score_plugins_vectorised(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                                      plugins: list[itf.ScorePlugin]
                                      ) -> tuple[np.ndarray | None, Status | None]:
        """``run_score_plugins``' totals without detail, over node columns
        (reference_impl/framework/vectorised.py); (None, None) when it does not apply and the
        per-node loop must run (nodes that are not the snapshot's, a score outside int64 or a
        normalized score out of [0, 100]: the per-node loop reports it)."""
        cols = self.handle.snapshot().columns()
        rows = cols.rows_of(nodes)
        if rows is None:
            return None, None
        normalized, status = vectorised.score_columns(plugins, state, pod, nodes, cols, rows)
        if normalized is None:
            return None, status
        totals = np.zeros(len(nodes), dtype=np.int64)
        for pl, arr in zip(plugins, normalized, strict=True):
            if int(arr.max()) > itf.MAX_NODE_SCORE or int(arr.min()) < itf.MIN_NODE_SCORE:
                return None, None
            weight = self.score_weights[pl.name]
            totals += arr if weight == 1 else arr * weight
        return totals, None

    # ----- Reserve / Permit / PreBind / Bind / PostBind -----
    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str
                                    ) -> Status | None:
        for pl in self.reserve_plugins:
            s = pl.reserve(state, pod, node_name)
            if s is not None and not s.is_success():
                if s.is_rejected():
                    return s.with_plugin(pl.name)
                return Status.as_error(f'running Reserve plugin "{pl.name}": {s.message()}')
        return None

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        for pl in reversed(self.reserve_plugins):
            pl.unreserve(state, pod, node_name)

    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str
                           ) -> tuple[dict[str, float], Status | None]:
        wait_status: Status | None = None
        wait_times: dict[str, float] = {}
        for pl in self.permit_plugins:
            s, timeout = pl.permit(state, pod, node_name)
            if s is None or s.is_success():
                continue
            if s.is_rejected():
                return {}, s.with_plugin(pl.name)
            if s.code == Code.WAIT:
                wait_times[pl.name] = min(timeout, MAX_PERMIT_TIMEOUT_SECONDS)
                wait_status = s
            else:
                return {}, Status.as_error(
                    f'running Permit plugin "{pl.name}": {s.message()}').with_plugin(pl.name)
        if wait_status is not None:
            wait_status.reasons.append(
                "one or more plugins asked to wait and no plugin rejected pod")
            return wait_times, wait_status
        return {}, None

    def run_pre_bind_pre_flights(self, state: CycleState, pod: Pod, node_name: str
                                 ) -> Status | None:
        """``RunPreBindPreFlights``: Skip when every plugin skips; records skipped plugins."""
        skip: set[str] = set()
        returning: Status | None = Status(Code.SKIP)
        for pl in self.pre_bind_plugins:
            s = pl.pre_bind_pre_flight(state, pod, node_name)
            code = Code.SUCCESS if s is None else s.code
            if s is not None and code == Code.ERROR:
                return Status.as_error(f'running PreBindPreFlight "{pl.name}": {s.message()}')
            if code == Code.SUCCESS:
                returning = None
            elif code == Code.SKIP:
                skip.add(pl.name)
            else:
                return Status.as_error(
                    f'PreBindPreFlight {pl.name} returned "{code.upstream_name}", which is '
                    "unsupported. It is supposed to return Success, Skip, or Error status")
        state.skip_pre_bind_plugins = skip
        return returning

    def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        for pl in self.pre_bind_plugins:
            if pl.name in state.skip_pre_bind_plugins:
                continue
            s = pl.pre_bind(state, pod, node_name)
            if s is not None and not s.is_success():
                if s.is_rejected():
                    return s.with_plugin(pl.name)
                return Status.as_error(f'running PreBind plugin "{pl.name}": {s.message()}')
        return None

    def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.bind_plugins:
            return Status(Code.SKIP, "")
        status: Status | None = None
        for pl in self.bind_plugins:
            status = pl.bind(state, pod, node_name)
            if status is not None and status.code == Code.SKIP:
                continue
            if status is not None and not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(pl.name)
                return Status.as_error(f'running Bind plugin "{pl.name}": {status.message()}')
            return status
        return status

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        for pl in self.post_bind_plugins:
            pl.post_bind(state, pod, node_name)


_SPEC_RUN_SCORE_PLUGINS = Framework.run_score_plugins


def scored_nodes(nodes: list[NodeInfo], totals: np.ndarray) -> list[ScoredNode]:
    """One ScoredNode per node from the totals of :meth:`Framework.score`."""
    return [ScoredNode(ni.node.name, t) for ni, t in zip(nodes, totals.tolist(), strict=True)]


class ScoredNode:
    """``fwk.NodePluginScores`` plus the raw and normalized scores, for explanations.

    The three per-plugin lists (``raw``, ``normalized``, ``weighted``) are made on first use:
    the hot path (Score without detail) builds one ScoredNode per feasible node and never reads
    them, so it allocates no list per node."""

    __slots__ = ("name", "_raw", "_normalized", "_weighted", "total", "randomizer")

    def __init__(self, name: str, total: int = 0) -> None:
        self.name = name
        self._raw: list[tuple[str, int]] | None = None
        self._normalized: list[tuple[str, int]] | None = None
        self._weighted: list[tuple[str, int]] | None = None
        self.total = total
        self.randomizer = 0

    @property
    def raw(self) -> list[tuple[str, int]]:
        """(plugin, raw score) in Score order."""
        if self._raw is None:
            self._raw = []
        return self._raw

    @raw.setter
    def raw(self, value: list[tuple[str, int]]) -> None:
        self._raw = value

    @property
    def normalized(self) -> list[tuple[str, int]]:
        """(plugin, score after NormalizeScore)."""
        if self._normalized is None:
            self._normalized = []
        return self._normalized

    @normalized.setter
    def normalized(self, value: list[tuple[str, int]]) -> None:
        self._normalized = value

    @property
    def weighted(self) -> list[tuple[str, int]]:
        """(plugin, normalized score times the plugin's weight)."""
        if self._weighted is None:
            self._weighted = []
        return self._weighted

    @weighted.setter
    def weighted(self, value: list[tuple[str, int]]) -> None:
        self._weighted = value

    def __repr__(self) -> str:
        return f"ScoredNode({self.name}, total={self.total})"
