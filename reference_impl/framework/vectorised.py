"""Filter and Score over node columns: the per-node loops' results, computed with NumPy where
plugins offer batch methods (``FilterBatch``, ``ScoreBatch``, ``NormalizeBatch``).

Upstream: ``pkg/scheduler/schedule_one.go`` findNodesThatPassFilters (the search from
nextStartNodeIndex that stops after numNodesToFind feasible nodes) and
``pkg/scheduler/framework/runtime/framework.go`` RunFilterPlugins / RunScorePlugins. The
per-node code (``SchedulingCore._pass_filters``, ``Framework.run_score_plugins``) stays the
specification: same feasible nodes and order, same failed statuses, processed count and
scores. How: docs/reference.md#vectorised-filter-and-score.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from reference_impl.framework.columns import I64, SAFE_BOUND, Mask, NodeColumns
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.node_to_status import RowStatuses
from reference_impl.framework.status import Code, PluginError, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Pod

#: below this many nodes the per-node loops are as fast
MIN_NODES = 64

FilterFn = Callable[[CycleState, Pod, NodeInfo], "Status | None"]


@runtime_checkable
class FilterBatch(Protocol):
    def filter_batch(self, state: CycleState, pod: Pod, cols: NodeColumns) -> Mask | None: ...


@runtime_checkable
class ScoreBatch(Protocol):
    def score_batch(self, state: CycleState, pod: Pod, nodes: list[NodeInfo],
                    cols: NodeColumns, rows: npt.NDArray[np.intp]) -> I64 | None: ...


@runtime_checkable
class NormalizeBatch(Protocol):
    def normalize_score_batch(self, state: CycleState, pod: Pod, scores: I64
                              ) -> I64 | None: ...


def default_normalize_score_batch(max_priority: int, reverse: bool, scores: I64) -> I64 | None:
    """``default_normalize_score`` (helper/normalize_score.go) on an array: the same integer
    operations (Go's division, truncating toward zero, as the per-node helper); None when a
    product could leave int64."""
    if not len(scores):
        return scores
    max_count = int(scores.max())
    if max_count > SAFE_BOUND or int(scores.min()) < -SAFE_BOUND:
        return None
    if max_count <= 0:
        if reverse:
            return np.full(len(scores), max_priority, dtype=np.int64)
        return scores
    p = max_priority * scores
    s = np.where(p >= 0, p // max_count, -(-p // max_count))
    return max_priority - s if reverse else s


def filter_masks(plugins: Sequence[tuple[str, Any]], state: CycleState, pod: Pod,
                 cols: NodeColumns) -> tuple[Mask, list[tuple[str, FilterFn]], int]:
    """The AND of the batch masks of the non-skipped Filter plugins, the (name, filter) pairs of
    the plugins without one, in profile order, and the number of masks."""
    skip = state.skip_filter_plugins
    mask: Mask = np.ones(len(cols), dtype=np.bool_)
    remaining: list[tuple[str, FilterFn]] = []
    masks = 0
    for name, pl in plugins:
        if skip and name in skip:
            continue
        batch = getattr(pl, "filter_batch", None)  # FilterBatch (isinstance is slow)
        m = batch(state, pod, cols) if batch is not None else None
        if m is None:
            remaining.append((name, pl.filter))
        else:
            mask &= m
            masks += 1
    return mask, remaining, masks


def search_feasible(
    nodes: list[NodeInfo], mask: Mask, start: int, to_find: int,
    run_full: Callable[[NodeInfo], Status | None],
    run_remaining: Callable[[NodeInfo], Status | None] | None,
    remember: Callable[[list[NodeInfo], npt.NDArray[np.intp]], None] | None = None,
) -> tuple[list[NodeInfo], list[tuple[str, Status]], Status | None]:
    """findNodesThatPassFilters with one worker, as ``SchedulingCore._pass_filters``: nodes in
    order from ``start``; stop at the first feasible node beyond ``to_find`` (dropped, not
    processed) or at an Error. ``mask[i]``: node i passes every batch-checked plugin and has no
    nominated pod; ``run_remaining`` runs the other plugins (None: there are none);
    ``run_full`` runs every plugin (with nominated pods as the caller decides). Returns the
    feasible nodes, the failed (name, status) in order, and the Error status if any; when no
    plugin remains, ``remember`` gets the feasible nodes and their indexes in ``nodes``."""
    n = len(nodes)
    m_rot = np.concatenate((mask[start:], mask[:start]))
    failed: list[tuple[str, Status]] = []
    if run_remaining is not None:
        feasible: list[NodeInfo] = []
        for p, sure in enumerate(m_rot.tolist()):
            ni = nodes[(start + p) % n]
            s = run_remaining(ni) if sure else run_full(ni)
            if s is None or s.code == Code.SUCCESS:
                if len(feasible) + 1 > to_find:
                    break
                feasible.append(ni)
            elif s.code == Code.ERROR:
                return feasible, failed, s
            else:
                failed.append((ni.node.name, s))
        return feasible, failed, None
    cs = np.cumsum(m_rot)
    extra: list[int] = []
    limit = n
    error: Status | None = None
    for p in np.flatnonzero(~m_rot).tolist():
        if int(cs[p]) + len(extra) > to_find:
            break  # the (to_find+1)-th feasible node comes before p
        ni = nodes[(start + p) % n]
        s = run_full(ni)
        if s is None or s.code == Code.SUCCESS:
            extra.append(p)
        elif s.code == Code.ERROR:
            error = s
            limit = p
            break
        else:
            failed.append((ni.node.name, s))
    feas = m_rot[:limit].copy()
    if extra:
        feas[np.array(extra, dtype=np.intp)] = True
    rows = (np.flatnonzero(feas)[:to_find] + start) % n
    feasible_nodes = [nodes[i] for i in rows.tolist()]
    if remember is not None:
        remember(feasible_nodes, rows)
    return feasible_nodes, failed, error


class ColumnAnswers(Protocol):
    """A ``run_full`` that answers from node columns (``plugins/resource_only.py``
    ColumnRunner): on the ``decided`` rows, its status is not None exactly on the ``rejected``
    ones, and ``statuses`` gives those statuses, built when read."""

    decided: Mask
    rejected: Mask

    def __call__(self, ni: NodeInfo) -> Status | None: ...

    def statuses(self, rows: npt.NDArray[np.intp], names: list[str]) -> RowStatuses: ...


@dataclass(frozen=True)
class RowVerdicts:
    """One Filter plugin's verdict on every row: ``codes[i]`` the code of its status on node i
    (0: success), ``bits[i]`` its reasons as bits into ``reasons`` (as :class:`RowStatuses`)."""

    codes: I64
    bits: I64
    reasons: tuple[str, ...]


@runtime_checkable
class FilterRows(Protocol):
    def filter_rows(self, state: CycleState, pod: Pod, cols: NodeColumns) -> RowVerdicts | None:
        ...


class RowRunner:
    """The :class:`ColumnAnswers` of the one Filter plugin left after the batch masks: on the
    rows of ``sure`` (every other plugin passes, no nominated pod) the status is that plugin's
    verdict; ``fallback`` (every plugin, per node) elsewhere."""

    def __init__(self, verdicts: RowVerdicts, plugin: str, sure: Mask,
                 fallback: Callable[[NodeInfo], Status | None]) -> None:
        self.verdicts, self.plugin, self.fallback = verdicts, plugin, fallback
        self.decided = sure
        self.rejected = sure & (verdicts.codes != 0)

    def __call__(self, ni: NodeInfo) -> Status | None:
        return self.fallback(ni)

    def statuses(self, rows: npt.NDArray[np.intp], names: list[str]) -> RowStatuses:
        v = self.verdicts
        return RowStatuses(names, v.codes[rows], v.bits[rows], v.reasons, self.plugin)


def search_columns(
    nodes: list[NodeInfo], mask: Mask, start: int, to_find: int, run_full: ColumnAnswers,
    remember: Callable[[list[NodeInfo], npt.NDArray[np.intp]], None] | None = None,
    names: npt.NDArray[np.object_] | None = None,
) -> tuple[list[NodeInfo], RowStatuses] | None:
    """:func:`search_feasible` without remaining plugins, when ``run_full`` answers every node
    outside ``mask`` from the columns: the same feasible nodes, and the failed nodes' statuses
    in search order as a :class:`RowStatuses` (no Error can occur). None when a node outside
    ``mask`` is not decided (the per-node search runs). ``names``: the nodes' names by index,
    when the caller has them.

    The loop's rule, whole: a node is feasible when in ``mask`` or not rejected; the search
    processes the positions before the (to_find+1)-th feasible one (that one is dropped), so
    the failed nodes are the rejected ones before it."""
    n = len(nodes)
    order = np.concatenate((np.arange(start, n, dtype=np.intp), np.arange(0, start,
                                                                          dtype=np.intp)))
    m_rot = mask[order]
    if not run_full.decided[order[~m_rot]].all():
        return None
    feas = m_rot | ~run_full.rejected[order]
    pos = np.flatnonzero(feas)
    cut = int(pos[to_find]) if len(pos) > to_find else n
    rows = order[pos[:to_find]]
    failed = order[np.flatnonzero(~feas[:cut])]
    feasible_nodes = [nodes[i] for i in rows.tolist()]
    failed_names = (names[failed].tolist() if names is not None
                    else [nodes[i].node.name for i in failed.tolist()])
    statuses = run_full.statuses(failed, failed_names)
    if remember is not None:
        remember(feasible_nodes, rows)
    return feasible_nodes, statuses


def score_columns(plugins: Sequence[Any], state: CycleState, pod: Pod, nodes: list[NodeInfo],
                  cols: NodeColumns, rows: npt.NDArray[np.intp],
                  ) -> tuple[list[I64] | None, Status | None]:
    """The normalized scores of each plugin as int64 arrays (raw scores by ``score_batch`` or the
    per-node ``score``; NormalizeScore by ``normalize_score_batch`` or the per-node pairs).
    (None, None) when something needs the per-node path (a score outside int64, a normalized
    score out of range: the per-node code gives its exact error); (None, Error) for a plugin
    error, worded as ``run_score_plugins``."""
    raws: list[I64] = []
    for pl in plugins:
        try:
            batch = getattr(pl, "score_batch", None)  # ScoreBatch
            raw = batch(state, pod, nodes, cols, rows) if batch is not None else None
            if raw is None:
                score = pl.score
                vals = [score(state, pod, ni) for ni in nodes]
                try:
                    raw = np.array(vals, dtype=np.int64)
                except OverflowError:
                    return None, None
        except PluginError as e:
            return None, Status.as_error(
                f'running Score plugins: plugin "{pl.name}" failed with: {e.status.message()}')
        raws.append(raw)
    out: list[I64] = []
    for pl, raw in zip(plugins, raws, strict=True):
        if pl.has_normalize_score:
            normalize = getattr(pl, "normalize_score_batch", None)  # NormalizeBatch
            norm = normalize(state, pod, raw.copy()) if normalize is not None else None
            if norm is None:
                pairs: list[list[Any]] = [[ni.node.name, v]
                                          for ni, v in zip(nodes, raw.tolist(), strict=True)]
                s = pl.normalize_score(state, pod, pairs)
                if s is not None and not s.is_success():
                    return None, Status.as_error(
                        f'running Normalize on Score plugins: plugin "{pl.name}" failed with: '
                        f'{s.message()}')
                try:
                    norm = np.array([p[1] for p in pairs], dtype=np.int64)
                except OverflowError:
                    return None, None
            raw = norm
        out.append(raw)
    return out, None


def fill_per_node(scores: I64, exceptions: Mask, score: Callable[[NodeInfo], int],
                  nodes: list[NodeInfo]) -> I64 | None:
    """``scores`` with the positions in ``exceptions`` scored by the per-node ``score``; None if
    one of those scores leaves int64 (the per-node path handles it)."""
    if not exceptions.any():
        return scores
    for k in np.flatnonzero(exceptions).tolist():
        v = score(nodes[k])
        if not -(1 << 63) <= v < (1 << 63):
            return None
        scores[k] = v
    return scores
