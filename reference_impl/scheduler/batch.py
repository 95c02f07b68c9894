"""OpportunisticBatching: reuse the previous pod's ranking for the next pod with the same
signature.

Upstream: ``pkg/scheduler/framework/runtime/batch.go`` (OpportunisticBatch) and
``framework/runtime/framework.go`` (computeBatchablePlugins, SignPod). On by default since 1.35.

A pod is signable only when every PreFilter, Filter, PreScore and Score plugin of its profile
implements SignPod and accepts it. In the default profile PodTopologySpread refuses every pod
while it has system default constraints, so batching is active only in profiles that change that.

The batch state expires ``maxBatchAge`` (500 ms) after it was stored, on the virtual clock (exact
nanoseconds), where a scheduling attempt takes no time (older releases: two switches).
"""

from __future__ import annotations

import json
import weakref
from typing import TYPE_CHECKING

from reference_impl.framework import interfaces as itf
from reference_impl.framework.runtime import ScoredNode
from reference_impl.framework.status import Code
from reference_impl.scheduler.clock import MILLISECOND
from reference_impl.scheduler.select_host import SortedScoredNodes

if TYPE_CHECKING:
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.runtime import Framework
    from reference_impl.framework.types import NodeInfo
    from reference_impl.model.objects import Pod

MAX_BATCH_AGE = 500 * MILLISECOND  # maxBatchAge, in nanoseconds of the virtual clock
SCHEDULER_NAME_SIGNER = "v1.Pod.Spec.SchedulerName"  # fwk.SchedulerNameSignerName

#: ``batchable_plugins`` of each framework, computed on its first SignPod.
_SIGNERS: weakref.WeakKeyDictionary[Framework, list[itf.SignPlugin] | None] = (
    weakref.WeakKeyDictionary())


def batchable_plugins(fwk: Framework) -> list[itf.SignPlugin] | None:
    """``computeBatchablePlugins``: the signers, or None when some plugin cannot sign."""
    seen: dict[str, itf.Plugin] = {}
    for pl in (*fwk.pre_filter_plugins, *fwk.filter_plugins, *fwk.pre_score_plugins,
               *fwk.score_plugins):
        seen.setdefault(pl.name, pl)
    signers = []
    for pl in seen.values():
        if not isinstance(pl, itf.SignPlugin):
            return None
        signers.append(pl)
    return signers


def sign_pod(fwk: Framework, pod: Pod) -> str | None:
    """``Framework.SignPod``: a JSON object of every plugin's fragments, keys sorted; None when
    signatures are off for the profile or a plugin refuses the pod."""
    if fwk in _SIGNERS:
        signers = _SIGNERS[fwk]
    else:
        signers = _SIGNERS[fwk] = batchable_plugins(fwk)
    if signers is None:
        return None
    sig: dict[str, object] = {SCHEDULER_NAME_SIGNER: pod.scheduler_name}
    for pl in signers:
        fragments, status = pl.sign_pod(pod)
        if status is not None and status.code != Code.SUCCESS:
            return None
        for key, value in fragments or ():
            sig[key] = value
    return json.dumps(sig, sort_keys=True, separators=(",", ":"), default=repr)


class OpportunisticBatch:
    """``OpportunisticBatch`` for one profile."""

    def __init__(self) -> None:
        self.signature: str | None = None
        self.sorted_nodes: SortedScoredNodes[ScoredNode] | None = None
        self.creation_time = 0
        self.last_cycle = -1
        self.last_chosen = ""
        self.last_succeeded = False
        self.batched_pods = 0
        self.now = 0  # the virtual clock (ns; exact, as Go's time.Time), set by the scheduler loop

    def _state_empty(self) -> bool:
        return self.sorted_nodes is None or len(self.sorted_nodes) == 0

    def get_node_hint(self, fwk: Framework, pod: Pod, signature: str | None,
                      state: CycleState, cycle: int) -> str:
        """``GetNodeHint``: the next node of the stored ranking, after re-checking (and
        re-scoring) the node the previous pod took."""
        skip_nominated = fwk.handle.behaviour("batching-skip-nominated") == "skip-nominated"
        if not self._compatible(pod, signature, cycle, skip_nominated):
            return ""
        if not self._refresh_hint_candidates(fwk, pod, state):
            return ""
        assert self.sorted_nodes is not None
        return self.sorted_nodes.pop().name

    def store_schedule_results(self, signature: str | None, hinted: str, chosen: str,
                               others: SortedScoredNodes[ScoredNode] | None,
                               cycle: int) -> None:
        """``StoreScheduleResults``."""
        self.last_cycle = cycle
        self.last_chosen = chosen
        self.last_succeeded = True
        if hinted == chosen:
            self.batched_pods += 1
            return
        if signature is not None and others is not None and len(others) > 0:
            self.signature = signature
            self.sorted_nodes = others
            self.creation_time = self.now
        else:
            self.signature = None
            self.sorted_nodes = None

    def _compatible(self, pod: Pod, signature: str | None, cycle: int,
                    skip_nominated: bool) -> bool:
        """``batchStateCompatible``. ``skip_nominated``: a nominated pod gets no hint (v1.37.2);
        v1.35.4 and v1.36.3 (``batch.go``) have no such check: the nominated pod pops the hint,
        and ``evaluateNominatedNode`` tries its nominated node instead."""
        if self._state_empty():
            return False
        if cycle != self.last_cycle + 1:
            return False
        if not self.last_succeeded:
            return False
        if skip_nominated and pod.nominated_node_name:
            return False
        if signature is None or signature != self.signature:
            return False
        if self.now > self.creation_time + MAX_BATCH_AGE:
            return False
        return True

    def _refresh_hint_candidates(self, fwk: Framework, pod: Pod, state: CycleState) -> bool:
        """``refreshHintCandidates``: if the last chosen node still fits, re-score it against
        the cached candidates; a rejection keeps the cached list as is. v1.35.4 and v1.36.3
        (``batchStateCompatible`` of ``batch.go``, switch ``batching-rescore-last-chosen``
        "flush") give no hint when the last chosen node still fits."""
        snapshot = fwk.handle.snapshot()
        last = snapshot.get(self.last_chosen)
        if last is None:
            return False
        status = fwk.run_filter_plugins(state, pod, last)
        if status is None or status.is_success():
            if fwk.handle.behaviour("batching-rescore-last-chosen") != "rescore":
                return False
            return self._rescore_hinted_node(fwk, pod, state, last)
        return status.is_rejected()

    def _rescore_hinted_node(self, fwk: Framework, pod: Pod, state: CycleState,
                             last: NodeInfo) -> bool:
        """``rescoreHintedNode``: PreScore over cached candidates plus the node, raw scores for
        the node, re-normalize everything from the cached raw scores, rebuild the heap."""
        assert self.sorted_nodes is not None
        snapshot = fwk.handle.snapshot()
        cached: list[ScoredNode] = self.sorted_nodes.unordered()
        node_infos = []
        for sn in cached:
            ni = snapshot.get(sn.name)
            if ni is None:
                return False
            node_infos.append(ni)
        node_infos.append(last)
        rescore_state = state.clone()
        s = fwk.run_pre_score_plugins(rescore_state, pod, node_infos)
        if s is not None and not s.is_success():
            return False
        plugins = fwk.non_skipped_score_plugins(rescore_state)
        fresh = ScoredNode(last.node.name)
        try:
            for pl in plugins:
                fresh.raw.append((pl.name, pl.score(rescore_state, pod, last)))
        except Exception:  # noqa: BLE001 - a failing Score plugin flushes the batch
            return False
        entries = [*cached, fresh]
        if not _normalize_scores(fwk, rescore_state, pod, plugins, entries):
            return False
        self.sorted_nodes = SortedScoredNodes(entries)
        return True


def _normalize_scores(fwk: Framework, state: CycleState, pod: Pod, plugins: list,
                      entries: list[ScoredNode]) -> bool:
    """``Framework.NormalizeScores``: from each entry's raw scores, normalize per plugin and
    recompute the weighted totals."""
    if not plugins:
        for e in entries:
            e.total = 0
            e.normalized = []
            e.weighted = []
        return True
    per_plugin: list[list[list]] = []
    for pl in plugins:
        lst = []
        for e in entries:
            raw = dict(e.raw)
            lst.append([e.name, raw.get(pl.name, 0)])
        if pl.has_normalize_score:
            s = pl.normalize_score(state, pod, lst)
            if s is not None and not s.is_success():
                return False
        per_plugin.append(lst)
    for j, e in enumerate(entries):
        total = 0
        e.normalized = []
        e.weighted = []
        for i, pl in enumerate(plugins):
            sc = per_plugin[i][j][1]
            if sc > itf.MAX_NODE_SCORE or sc < itf.MIN_NODE_SCORE:
                return False
            w = fwk.score_weights[pl.name]
            e.normalized.append((pl.name, sc))
            e.weighted.append((pl.name, sc * w))
            total += sc * w
        e.total = total
    return True
