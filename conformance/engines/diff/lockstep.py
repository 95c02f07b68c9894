"""Lockstep comparison: for every attempt of upstream's run, both subjects explain the pod on
the same cluster state, upstream's outcome applied before the next step (docs/diff.md)."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioRejected, Subject
from conformance.engines.diff.calls import error_text, explain_pods
from conformance.engines.diff.model import (
    LOCKSTEP,
    Divergence,
    TieBreak,
    mark_consequences,
)
from conformance.engines.diff.normalize import (
    deep_differences,
    field_pattern,
    has_timeline,
    initial_documents,
    join,
    normalize_explanation,
    pod_key,
    without_timeline,
)
from conformance.engines.diff.ties import model_pods, random_preemption_choice

NOT_EXAMINED = "not examined: enough candidates were found first"
_TIE_MESSAGE = re.compile(r" ?\(nodes (?P<nodes>[^)]*) tie on every criterion[^)]*\)")


@dataclass(slots=True)
class LockstepComparison:
    divergences: list[Divergence] = field(default_factory=list)
    tie_breaks: list[TieBreak] = field(default_factory=list)
    steps: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Step:
    index: int  # the attempt of upstream's run
    pod: str
    attempt: Mapping[str, Any]
    scenario: ScenarioInput  # the cluster state the pod is explained in
    state: int = 0  # the version of that state (``_states``): equal versions, equal clusters


# --- cluster states ----------------------------------------------------------------------------

def _states(scenario: ScenarioInput, attempts: Sequence[Mapping[str, Any]]
            ) -> Iterable[tuple[int, Mapping[str, Any], list[dict[str, Any]], int]]:
    """The cluster before each attempt of a run of ``scenario`` (its timeline left out):
    (attempt index, attempt, documents, version), the earlier outcomes applied (a bound pod
    gets ``spec.nodeName``; a preemption deletes the victims and sets the preemptor's
    ``status.nominatedNodeName``); the version counts the changes. Documents are copied on
    write: every yielded list stays as it was. Stops at a pod that is not in the documents."""
    # the documents are shared with ``scenario`` (and between the states): copied on write
    docs = initial_documents(scenario)
    where = {pod_key(d): i for i, d in enumerate(docs) if d.get("kind") == "Pod"}
    version = 0
    for i, a in enumerate(attempts):
        pod = a["pod"]
        if pod not in where:
            return
        yield i, a, docs, version
        if a["outcome"] == "Bound" and a.get("node"):
            pdoc = copy.deepcopy(docs[where[pod]])
            pdoc.setdefault("spec", {})["nodeName"] = a["node"]
            if isinstance(pdoc.get("status"), dict):
                pdoc["status"].pop("nominatedNodeName", None)
            docs = list(docs)
            docs[where[pod]] = pdoc
            version += 1
        elif a["outcome"] == "Nominated" and a.get("nominatedNode"):
            pdoc = copy.deepcopy(docs[where[pod]])
            if not isinstance(pdoc.get("status"), dict):
                pdoc["status"] = {}
            pdoc["status"]["nominatedNodeName"] = a["nominatedNode"]
            docs = list(docs)
            docs[where[pod]] = pdoc
            victims = set(a.get("victims") or [])
            docs = [d for d in docs if not (d.get("kind") == "Pod" and pod_key(d) in victims)]
            where = {pod_key(d): j for j, d in enumerate(docs) if d.get("kind") == "Pod"}
            version += 1


def state_before(scenario: ScenarioInput, attempts: Sequence[Mapping[str, Any]],
                 index: int) -> ScenarioInput | None:
    """The cluster (without timeline) just before attempt ``index`` of a run."""
    for i, _, docs, _ in _states(scenario, attempts):
        if i == index:
            return scenario.derived(documents=docs, config=copy.deepcopy(scenario.config),
                                    notes=[], covers="")
    return None


def lockstep_states(scenario: ScenarioInput, up_run: Mapping[str, Any],
                    max_steps: int | None = None) -> tuple[list[Step], list[str]]:
    """The lockstep steps: for every attempt of upstream's run (of ``scenario`` without
    timeline) the cluster state before it (see ``_states``). A pod is explained again only
    when the cluster changed since its last step."""
    steps: list[Step] = []
    notes: list[str] = []
    last: dict[str, int] = {}
    attempts = up_run.get("attempts", [])
    done = -1
    for i, a, docs, version in _states(scenario, attempts):
        done = i
        pod = a["pod"]
        if last.get(pod) == version:
            continue
        if max_steps is not None and len(steps) >= max_steps:
            notes.append(f"lockstep: stopped after {max_steps} steps "
                         f"({len(attempts) - i} attempts not explained)")
            return steps, notes
        last[pod] = version
        steps.append(Step(i, pod, a, scenario.derived(documents=docs, notes=[], covers=""),
                          version))
    if done + 1 < len(attempts):
        notes.append(f"lockstep: attempt {done + 1}: pod {attempts[done + 1]['pod']} is not "
                     f"in the scenario documents (not compared from there on)")
    return steps, notes


# --- the comparison ----------------------------------------------------------------------------

def lockstep(scenario: ScenarioInput, ref: Subject, up: Subject,
             up_run: Mapping[str, Any] | None = None, max_steps: int | None = None,
             executor: Executor | None = None, window: int = 8) -> LockstepComparison:
    """Explain every attempt of upstream's run on both subjects, applying upstream's outcomes.
    ``up_run``: upstream's SimulationResult of the scenario without timeline, if already
    known. Upstream's explanations are asked on the ``executor``, the pods of one cluster
    state together, ``window`` states at a time, while the reference explains in this
    thread."""
    out = LockstepComparison()
    if has_timeline(scenario):
        out.notes.append("lockstep: the initial cluster only (the timeline is not applied)")
    if up_run is None:
        up_run = up.run(without_timeline(scenario)).result
    steps, out.notes[len(out.notes):] = lockstep_states(scenario, up_run, max_steps)
    out.steps = len(steps)
    groups = _same_state(steps)
    for w in range(0, len(groups), max(window, 1)):
        chunk = groups[w:w + window]
        futures = [executor.submit(explain_pods, up, g[0].scenario, [st.pod for st in g])
                   if executor else None for g in chunk]
        for g, fut in zip(chunk, futures, strict=True):
            rs = explain_pods(ref, g[0].scenario, [st.pod for st in g], reference=True)
            us = fut.result() if fut is not None else \
                explain_pods(up, g[0].scenario, [st.pod for st in g])
            for st, r, u in zip(g, rs, us, strict=True):
                _compare_step(r, u, st, out)
    return out


def _same_state(steps: Sequence[Step]) -> list[list[Step]]:
    """The steps in runs of the same cluster state: upstream explains each run's pods in one
    request (``Subject.explain_many``)."""
    groups: list[list[Step]] = []
    for st in steps:
        if groups and groups[-1][0].state == st.state:
            groups[-1].append(st)
        else:
            groups.append([st])
    return groups


def _compare_step(r: dict[str, Any] | Exception, u: dict[str, Any] | Exception,
                  st: Step, out: LockstepComparison) -> None:
    pod, i, attempt = st.pod, st.index, st.attempt
    if isinstance(r, Exception) or isinstance(u, Exception):
        if isinstance(r, ScenarioRejected) and isinstance(u, ScenarioRejected):
            return
        out.divergences.append(Divergence(
            LOCKSTEP, f"explain[{pod}]", "explain",
            error_text(r) if isinstance(r, Exception) else "an explanation",
            error_text(u) if isinstance(u, Exception) else "an explanation",
            pod=pod, step=i))
        return
    divs, ties = compare_explanations(r, u, pod, i, lambda: model_pods(st.scenario),
                                      out.notes)
    out.divergences += divs
    out.tie_breaks += ties
    # upstream's explain against upstream's own attempt (a check of the lockstep set-up)
    if attempt["outcome"] == "Bound" and u.get("selected") != attempt.get("node") \
            and attempt.get("node") not in (u.get("candidates") or []):
        out.notes.append(f"lockstep: step {i}: upstream's explain selects {u.get('selected')} "
                         f"for {pod}, its run bound it to {attempt.get('node')}")


def compare_explanations(ref: Mapping[str, Any], up: Mapping[str, Any], pod: str,
                         step: int, pods: Callable[[], Mapping[str, Any]] | None = None,
                         notes: list[str] | None = None
                         ) -> tuple[list[Divergence], list[TieBreak]]:
    """Compare two Explanations of the same pod on the same cluster. ``pods()``: the model's
    pods of that cluster by key (priorities and start times, to tell a preemption tie
    upstream breaks at random), asked only when the preemption choices differ."""
    r, u = normalize_explanation(ref), normalize_explanation(up)
    ties: list[TieBreak] = []
    if (r["selected"] != u["selected"] and r["selected"] in u["candidates"]
            and u["selected"] in r["candidates"]):
        ties.append(TieBreak(LOCKSTEP, pod, step, r["selected"], u["selected"],
                             u["candidates"]))
        r["selected"] = u["selected"]
    rp, upr = r["preemption"], u["preemption"]
    m = _TIE_MESSAGE.search(upr["message"] or "") if upr else None
    if m:
        # the note is upstream's explain's own (the reference breaks the tie deterministically
        # and says nothing): the choice is judged below, the note is not compared (and not
        # copied to the reference's side with the message when the candidates are not compared)
        upr["message"] = _TIE_MESSAGE.sub("", upr["message"])
    if rp and upr and any(NOT_EXAMINED in v for side in (rp, upr)
                          for v in side["notCandidates"].values()):
        # More potential nodes than DefaultPreemption dry-runs: which ones it examines depends
        # on the dry run's offset (upstream's explain: 0; the reference: its seeded random
        # offset; upstream's scheduling: rand.Int31n), so only eligibility is compared.
        for k in ("candidates", "notCandidates", "selected", "victims", "message"):
            rp[k] = upr[k]
        if notes is not None:
            notes.append(f"lockstep: step {step}: {pod}: preemption candidates depend on the "
                         f"dry run's random offset; not compared")
    if rp and upr and rp["selected"] != upr["selected"]:
        tied = set(m.group("nodes").split(", ")) if m else set()
        if not (rp["selected"] in tied and upr["selected"] in tied) and pods is not None \
                and rp["candidates"] == upr["candidates"]:
            cands = (up.get("preemption") or {}).get("candidates") or []
            tied = random_preemption_choice(
                {c["node"]: list(c.get("victims") or []) for c in cands},
                {c["node"]: int(c.get("pdbViolations") or 0) for c in cands}, pods())
        if rp["selected"] in tied and upr["selected"] in tied:
            ties.append(TieBreak(LOCKSTEP, pod, step, rp["selected"], upr["selected"],
                                 sorted(tied), "preemption (a tie upstream breaks at random)"))
            for k in ("selected", "victims", "message"):
                rp[k] = upr[k]
    out = [_divergence(path, rv, uv, pod, step) for path, rv, uv in deep_differences(r, u)]
    mark_consequences(out, _explain_layer)
    return out, ties


def _divergence(path: list[Any], rv: Any, uv: Any, pod: str, step: int) -> Divergence:
    node = plugin = None
    if path[0] == "nodes" and len(path) > 1:
        node = path[1]
        if len(path) > 3 and path[2] in ("filters", "scores"):
            plugin = path[3]
    elif path[0] == "preFilter" and len(path) > 1:
        plugin = path[1]
    elif path[0] == "preemption" and len(path) > 2 and path[1] in ("candidates",
                                                                   "notCandidates"):
        node = path[2]
    if path[0] == "preemption":
        plugin = "DefaultPreemption"
    return Divergence(LOCKSTEP, f"explain[{pod}]." + join(path), field_pattern(path), rv, uv,
                      pod=pod, node=node, plugin=plugin, step=step)


def _explain_layer(d: Divergence) -> int:
    """Where an Explanation field sits in the chain of causes: filters, then the verdicts
    they make, scores, the choice, preemption's candidates, preemption's choice."""
    f = d.field
    if f.startswith("preemption"):
        if f.startswith(("preemption.selected", "preemption.victims", "preemption.message")):
            return 5
        return 4
    if f in ("candidates", "selected"):
        return 3
    if f.startswith("nodes.*.scores") or f == "nodes.*.total":
        return 2
    if f.startswith(("nodes.*.feasible", "nodes.*.examined")) or f in (
            "evaluatedNodes", "feasibleNodes", "shortcut", "message"):
        return 1
    return 0
