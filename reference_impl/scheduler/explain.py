"""Explaining one scheduling decision: every plugin's verdict and score for one pending pod.

The explanation runs upstream's scheduling algorithm for the pod (``schedulePod``: the verdict,
the examined and feasible nodes, the selected node) and, beside it, evaluates every Filter plugin
on every node (upstream stops at the first failing plugin; the explanation shows them all) and
the Score plugins on the nodes upstream scores. Where upstream takes the one-feasible-node
shortcut and scores nothing, the explanation scores that node anyway and flags the shortcut.
Nothing is bound: the cluster is left as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.preemption.preemption import Evaluator
from reference_impl.framework.runtime import Framework
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Pod
from reference_impl.scheduler.schedule_one import FitError, NoNodesAvailable, SchedulingError
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.storage.results import VOLUME_PLUGINS, ClaimExplanation, explain_pod_claims


@dataclass(slots=True)
class PluginVerdict:
    plugin: str
    code: str
    reasons: list[str]
    #: lines the plugin adds for the explanation only (``explain_filter``): not upstream's
    #: reasons, so kept apart from them (the differential compares ``reasons`` only)
    detail: list[str] = field(default_factory=list)


@dataclass(slots=True)
class PluginScore:
    plugin: str
    raw: int
    normalized: int
    weight: int
    weighted: int


@dataclass(slots=True)
class NodeExplanation:
    name: str
    feasible: bool
    examined: bool
    filters: list[PluginVerdict] = field(default_factory=list)
    scores: list[PluginScore] = field(default_factory=list)
    total: int | None = None


@dataclass(slots=True)
class PreemptionCandidate:
    node: str
    victims: list[str]
    pdb_violations: int


@dataclass(slots=True)
class PreemptionExplanation:
    """What DefaultPreemption would do for an unschedulable pod (nothing is evicted)."""

    eligible: bool
    message: str
    candidates: list[PreemptionCandidate] = field(default_factory=list)
    selected: str | None = None
    victims: list[str] = field(default_factory=list)
    not_candidates: dict[str, list[str]] = field(default_factory=dict)  # node -> why not


@dataclass(slots=True)
class Explanation:
    pod: str
    pre_filter: list[PluginVerdict]
    nodes: list[NodeExplanation]
    candidates: list[str]
    selected: str | None
    shortcut: bool
    message: str = ""
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    preemption: PreemptionExplanation | None = None
    #: the pod's PersistentVolumeClaims and what became of them (reference only)
    claims: list[ClaimExplanation] = field(default_factory=list)
    #: the pod's ResourceClaims on the selected node, with the devices each would get, and
    #: the extendedResourceClaimStatus PreBind would patch (DynamicResources, reference only)
    resource_claims: list[dict[str, Any]] = field(default_factory=list)
    extended_resource_claim_status: dict[str, Any] | None = None


def _verdict(plugin: str, status: Status | None) -> PluginVerdict:
    if status is None:
        return PluginVerdict(plugin, Code.SUCCESS.upstream_name, [])
    return PluginVerdict(plugin, status.code.upstream_name, status.all_reasons())


_REJECTED = (Code.UNSCHEDULABLE.upstream_name, Code.UNSCHEDULABLE_AND_UNRESOLVABLE.upstream_name)


def _add_details(fwk: Framework, state: CycleState, pod: Pod, ni: NodeInfo,
                 filters: list[PluginVerdict]) -> None:
    """Lines a plugin adds for the explanation only (``explain_filter``, e.g.
    DynamicResources: why no device fits), in the verdict's ``detail``; its ``reasons`` stay
    exactly upstream's."""
    plugins = {pl.name: pl for pl in fwk.filter_plugins}
    for v in filters:
        explain_filter = getattr(plugins.get(v.plugin), "explain_filter", None)
        if v.code in _REJECTED and explain_filter is not None:
            v.detail = list(explain_filter(state, pod, ni))


def explain(scheduler: Scheduler, pod: Pod) -> Explanation:
    """Explain how ``scheduler`` would schedule ``pod`` now (the pod is not bound)."""
    fwk = scheduler.profiles.get(pod.scheduler_name)
    if fwk is None:
        raise ValueError(f"no profile for schedulerName {pod.scheduler_name!r}; profiles: "
                         f"{', '.join(sorted(scheduler.profiles))}")
    core = scheduler.core
    snapshot = scheduler.snapshot
    gate = fwk.run_pre_enqueue_plugins(pod)

    # 1. PreFilter, plugin by plugin, on a state of its own.
    pre_filter: list[PluginVerdict] = []
    probe = CycleState()
    nodes = snapshot.list()
    skip: set[str] = set()
    pre_res_names: set[str] | None = None
    for pl in fwk.pre_filter_plugins:
        r, s = pl.pre_filter(probe, pod, nodes)
        pre_filter.append(_verdict(pl.name, s))
        if s is not None and s.code == Code.SKIP:
            skip.add(pl.name)
        if r is not None and r.node_names is not None:
            pre_res_names = (set(r.node_names) if pre_res_names is None
                             else pre_res_names & r.node_names)
    probe.skip_filter_plugins = skip

    # 2. Upstream's algorithm for the verdict (on a throw-away copy of the rotation index).
    start_index = core.next_start_node_index
    state = CycleState()
    selected: str | None = None
    shortcut = False
    scored = None
    examined: set[str] = set()
    message = ""
    evaluated = feasible_count = 0
    fit_error: FitError | None = None
    if gate is not None:
        message = f"gated at PreEnqueue: {gate.message()}"
    else:
        core.record_scores = True
        batching = core.batching
        core.batching = False  # explaining must not touch the batch state of real attempts
        # nor their random draws: a reservoir release's selectHost draws from a copy
        rng_state = scheduler.rng.getstate()
        try:
            result = core.schedule_pod(fwk, state, pod, None)
            selected = result.suggested_host
            shortcut = result.scored is None
            scored = result.scored
            examined = set(result.feasible)
            evaluated, feasible_count = result.evaluated_nodes, result.feasible_nodes
        except FitError as fit:
            message = fit.message()
            evaluated = len(fit.diagnosis.node_to_status)
            fit_error = fit
        except (NoNodesAvailable, SchedulingError) as e:
            message = str(e)
        finally:
            core.next_start_node_index = start_index
            core.record_scores = False
            core.batching = batching
            scheduler.rng.setstate(rng_state)

    # 3. Every Filter plugin on every node.
    prefilter_rejected = any(v.code in ("Unschedulable", "UnschedulableAndUnresolvable",
                                        "Error") for v in pre_filter)
    out_nodes: list[NodeExplanation] = []
    for ni in nodes:
        name = ni.node.name
        if prefilter_rejected:
            out_nodes.append(NodeExplanation(name, False, False))
            continue
        if pre_res_names is not None and name not in pre_res_names:
            out_nodes.append(NodeExplanation(name, False, False, [PluginVerdict(
                "PreFilterResult", Code.UNSCHEDULABLE_AND_UNRESOLVABLE.upstream_name,
                ["node is not in the PreFilter plugins' node set"])]))
            continue
        try:
            _, st1, ni1 = fwk.add_ge_nominated_pods(probe, pod, ni)
        except Exception:  # noqa: BLE001 - an AddPod error makes every filter an Error
            st1, ni1 = probe, ni
        filters = [_verdict(n, s) for n, s in fwk.run_all_filter_plugins(st1, pod, ni1)]
        _add_details(fwk, st1, pod, ni1, filters)
        verdict = fwk.run_filter_plugins_with_nominated_pods(probe, pod, ni)
        feasible = verdict is None or verdict.is_success()
        out_nodes.append(NodeExplanation(name, feasible, name in examined, filters))

    # 4. Scores of the nodes upstream scored (or of the single feasible node).
    if shortcut and selected is not None:
        scored = _score(fwk, pod, [snapshot.get(selected)])
    by_name = {sn.name: sn for sn in scored or ()}
    for ne in out_nodes:
        sn = by_name.get(ne.name)
        if sn is None:
            continue
        raw = dict(sn.raw)
        norm = dict(sn.normalized)
        for plugin, weighted in sn.weighted:
            ne.scores.append(PluginScore(plugin, raw.get(plugin, 0), norm.get(plugin, 0),
                                         fwk.score_weights.get(plugin, 0), weighted))
        ne.total = sn.total
    candidates: list[str] = []
    if by_name:
        best = max(sn.total for sn in by_name.values())
        candidates = [n.name for n in out_nodes if n.name in by_name
                      and by_name[n.name].total == best]
    preemption = None
    if fit_error is not None:
        preemption = explain_preemption(scheduler, fwk, state, pod, fit_error)
    claims = explain_pod_claims(scheduler.cluster.storage, pod, selected,
                                _volume_reasons(pre_filter, out_nodes))
    resource_claims, extended_status = _selected_claims(fwk, state, pod, selected)
    return Explanation(pod.key, pre_filter, out_nodes, candidates, selected, shortcut, message,
                       evaluated, feasible_count, preemption, claims, resource_claims,
                       extended_status)


def _selected_claims(fwk: Framework, state: CycleState, pod: Pod, selected: str | None
                     ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """What a plugin with ``explain_selected`` (DynamicResources) says of the selected node,
    from the scheduling cycle's state."""
    if selected is None:
        return [], None
    for pl in fwk.filter_plugins:
        explain_selected = getattr(pl, "explain_selected", None)
        if explain_selected is not None:
            claims, status = explain_selected(state, pod, selected)
            return list(claims), status
    return [], None


def _volume_reasons(pre_filter: list[PluginVerdict], nodes: list[NodeExplanation]
                    ) -> list[str]:
    """The volume plugins' rejections, ``Plugin: reason``, PreFilter's first, then the
    nodes' (each reason once)."""
    verdicts = [*pre_filter, *(v for n in nodes for v in n.filters)]
    return list(dict.fromkeys(f"{v.plugin}: {r}" for v in verdicts
                              if v.plugin in VOLUME_PLUGINS and v.code in _REJECTED
                              for r in v.reasons or [v.code]))


def explain_preemption(scheduler: Scheduler, fwk: Framework, state: CycleState, pod: Pod,
                       fit: FitError) -> PreemptionExplanation | None:
    """DefaultPreemption's evaluation (``Evaluator``: eligibility, findCandidates,
    SelectCandidate) without actuating it; the random candidate offset is drawn from a copy of
    the scheduler's random state."""
    plugin = next((p for p in fwk.post_filter_plugins if hasattr(p, "evaluator")), None)
    if plugin is None:
        return None
    ev: Evaluator = plugin.evaluator
    diagnosis = fit.diagnosis
    nominated_status = diagnosis.status_of(pod.nominated_node_name)
    ok, msg = ev.interface.pod_eligible_to_preempt_others(pod, nominated_status)
    if not ok:
        return PreemptionExplanation(False, msg or "the pod may not preempt")
    rng_state = scheduler.rng.getstate()
    try:
        all_nodes = scheduler.snapshot.list()
        candidates, statuses, err = ev.find_candidates(state, all_nodes, pod, diagnosis)
        best = ev.select_candidate(candidates) if candidates else None
    finally:
        scheduler.rng.setstate(rng_state)
    out = PreemptionExplanation(True, err or "")
    cand_names = set()
    for c in candidates:
        cand_names.add(c.name)
        out.candidates.append(PreemptionCandidate(c.name, [v.key for v in c.victims.pods],
                                                  c.victims.num_pdb_violations))
    for ni in all_nodes:
        name = ni.node.name
        if name in cand_names:
            continue
        st = diagnosis.status_of(name)
        if st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            out.not_candidates[name] = ["preemption cannot help: " + r
                                        for r in st.all_reasons()] or [
                "preemption cannot help (UnschedulableAndUnresolvable)"]
        elif statuses is not None and name in statuses.node_to_status:
            out.not_candidates[name] = statuses.node_to_status[name].all_reasons()
        else:
            out.not_candidates[name] = ["not examined: enough candidates were found first"]
    if best is not None:
        out.selected = best.name
        out.victims = [v.key for v in best.victims.pods]
        out.message = (f"would nominate {best.name}, preempting {len(out.victims)} pod(s)"
                       if not err else err)
    elif not out.message:
        out.message = "preemption is not helpful: no node can be freed for this pod"
    return out


def _score(fwk: Framework, pod: Pod, nodes: list) -> list:
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    if not fwk.has_score_plugins():
        return []
    s = fwk.run_pre_score_plugins(state, pod, nodes)
    if s is not None and not s.is_success():
        return []
    scored, _ = fwk.run_score_plugins(state, pod, nodes)
    return scored or []
