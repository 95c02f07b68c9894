"""One scenario compared in every mode asked for (whole, lockstep, decisions), its divergences
classified; and the PodDisruptionBudget status both subjects get (``--pdb-status fill``)."""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioRejected, Subject
from conformance.engines.diff.calls import Ran, is_rejection, note_inputs, run_subject, unsupported
from conformance.engines.diff.decisions import compare_scenario as compare_decisions_mode
from conformance.engines.diff.known import KnownDivergence, classify
from conformance.engines.diff.lockstep import lockstep, state_before
from conformance.engines.diff.model import (
    DECISIONS,
    LOCKSTEP,
    WHOLE,
    Divergence,
    ScenarioDiff,
    name_replacements,
)
from conformance.engines.diff.normalize import (
    flatten,
    has_timeline,
    initial_documents,
    without_timeline,
)
from conformance.engines.diff.ties import explained_preemption_ties, model_pods
from conformance.engines.diff.whole import compare_whole
from reference_impl.framework.preemption.disruption import resolve_pdbs
from reference_impl.model.loader import load_documents


def diff_scenario(scenario: ScenarioInput, ref: Subject, up: Subject, modes: Sequence[str],
                  known: Sequence[KnownDivergence] = (), family: str = "",
                  max_steps: int | None = None, executor: Executor | None = None,
                  window: int = 8) -> ScenarioDiff:
    """Compare the two subjects on one scenario in the given modes. ``SubjectError`` (a crash
    or timeout of upstream) propagates. With an ``executor``, upstream's requests run on it
    while the reference works in this thread (lockstep: ``window`` explanations ahead)."""
    t0 = time.monotonic()
    out = ScenarioDiff(scenario.name, family, modes=list(modes))
    up_base_run: dict[str, Any] | None = None
    can_explain = ref.can_explain and up.can_explain
    lock = LOCKSTEP in modes and can_explain
    base_future = None
    if lock and has_timeline(scenario) and executor is not None:
        base_future = executor.submit(run_subject, up, without_timeline(scenario))
    if WHOLE in modes:
        u_future = executor.submit(run_subject, up, scenario) if executor is not None else None
        r = run_subject(ref, scenario, reference=True)
        u = u_future.result() if u_future is not None else run_subject(up, scenario)
        out.unsupported = unsupported(r, u, ref, up)
        if out.unsupported:
            return _finish(out, known, scenario, t0, up)
        _whole(scenario, up, r, u, out)
        out.not_judged = note_inputs(out.dropped, ref, r, up, u)
        if u.doc is not None and not r.error and not has_timeline(scenario):
            up_base_run = u.doc
    if DECISIONS in modes:
        compare_decisions_mode(scenario, ref, up, out, executor)
        if out.unsupported:
            return _finish(out, known, scenario, t0, up)
    if LOCKSTEP in modes and not can_explain:
        who = up if not up.can_explain else ref
        out.notes.append(f"lockstep: skipped ({who.name} cannot explain)")
    elif lock:
        err = ""
        if base_future is not None:
            base: Ran = base_future.result()
            up_base_run, err = base.doc, base.error
        elif up_base_run is None:
            base = run_subject(up, without_timeline(scenario))
            up_base_run, err = base.doc, base.error
        if err or up_base_run is None:
            out.notes.append(f"lockstep: skipped (upstream did not run the scenario: {err})")
        else:
            ls = lockstep(scenario, ref, up, up_base_run, max_steps, executor, window)
            out.divergences += ls.divergences
            out.tie_breaks += ls.tie_breaks
            out.steps = ls.steps
            out.notes += ls.notes
    return _finish(out, known, scenario, t0, up)


def _finish(out: ScenarioDiff, known: Sequence[KnownDivergence], scenario: ScenarioInput,
            t0: float, up: Subject | None = None) -> ScenarioDiff:
    classify(out.divergences, known, scenario)
    # a subject whose user plugins replace in-tree ones (baseline.ComparedSubject): name them
    name_replacements(out.divergences, dict(getattr(up, "renames", None) or {}))
    out.seconds = time.monotonic() - t0
    return out


def _whole(scenario: ScenarioInput, up: Subject, r: Ran, u: Ran, out: ScenarioDiff) -> None:
    """Whole mode, once both subjects ran the scenario (or refused it, or crashed)."""
    if r.error or u.error:
        if not (r.error and u.error):
            out.divergences.append(Divergence(
                WHOLE, "simulate", "simulate", r.error or "a SimulationResult",
                u.error or "a SimulationResult"))
        elif not is_rejection(r.error) or not is_rejection(u.error):
            out.divergences.append(Divergence(WHOLE, "simulate", "simulate", r.error, u.error))
        return
    assert r.doc is not None and u.doc is not None
    u_doc = u.doc
    cmp = compare_whole(r.doc, u_doc, u.notes,
                        lambda i: _whole_preemption_ties(scenario, up, u_doc, i))
    out.divergences += cmp.divergences
    out.tie_breaks += cmp.tie_breaks
    out.attempts = cmp.attempts
    out.later_attempts_differing = cmp.later_attempts_differing
    if cmp.later_attempts_differing:
        out.notes.append(f"whole: {cmp.later_attempts_differing} later attempt(s) "
                         f"differ too (consequences, not listed)")
    if cmp.stopped_at is not None:
        out.notes.append(f"whole: not compared after the tie-break at attempt "
                         f"{cmp.stopped_at} (its consequences)")
    for n in u.notes:
        out.notes.append(f"upstream note: {n}")


def _whole_preemption_ties(scenario: ScenarioInput, up: Subject, u_doc: Mapping[str, Any],
                           i: int) -> set[str] | None:
    """Upstream's random preemption choices at attempt ``i`` of its whole run: its
    explanation of the pod on the cluster of that moment (known when no timeline event came
    before), judged by ``random_preemption_choice``."""
    attempts = u_doc.get("attempts", [])
    when = attempts[i].get("time") or 0
    if any((e.get("time") or 0) <= when for e in u_doc.get("timeline") or []) \
            or not up.can_explain:
        return None
    state = state_before(scenario, attempts, i)
    if state is None:
        return None
    try:
        e = up.explain(state, attempts[i]["pod"])
    except ScenarioRejected:
        return None
    return explained_preemption_ties(e, model_pods(state))


def fill_pdb_status(scenario: ScenarioInput) -> ScenarioInput:
    """The scenario with ``status.disruptionsAllowed`` on every PodDisruptionBudget that has
    none, as the disruption controller would compute it for the initial cluster (the
    reference's restatement, ``reference_impl/framework/preemption/disruption.py``), so both
    subjects see the same explicit status (docs/diff.md, "PodDisruptionBudget status")."""
    docs = flatten(scenario.documents)
    missing = [i for i, d in enumerate(docs) if d.get("kind") == "PodDisruptionBudget"
               and not isinstance((d.get("status") or {}).get("disruptionsAllowed"), int)]
    if not missing:
        return scenario
    try:
        # read only (the loader copies what it changes): the documents are not copied
        cluster = load_documents(initial_documents(scenario), source=scenario.name).cluster
    except Exception:  # noqa: BLE001 - an invalid scenario: let the subjects reject it
        return scenario
    allowed = {(p.namespace, p.name): p.disruptions_allowed
               for p in resolve_pdbs(cluster.pdbs, cluster.pods)}
    out = list(docs)
    for i in missing:
        d = copy.deepcopy(docs[i])
        meta = d.get("metadata") or {}
        key = (meta.get("namespace") or "default", meta.get("name"))
        if key not in allowed:
            continue
        status = d.get("status") if isinstance(d.get("status"), dict) else {}
        d["status"] = {**status, "disruptionsAllowed": allowed[key]}
        out[i] = d
    return scenario.derived(documents=out, covers="")
