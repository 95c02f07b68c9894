"""Decisions mode: the reference against a real control plane, which shows only what the API
shows. Its result is judged by every oracle; its decisions must equal the reference's unless
the scenario has a timing hazard (docs/backends.md, "decisions mode")."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioRejected, Subject, SubjectResult
from conformance.engines.diff.calls import is_rejection, note_inputs, run_subject, unsupported
from conformance.engines.diff.lockstep import state_before
from conformance.engines.diff.model import DECISIONS, Divergence, ScenarioDiff
from conformance.engines.diff.normalize import has_timeline, without_timeline
from conformance.engines.diff.ties import explained_preemption_ties, model_pods
from oracles.judge import Finding, check_result, select_oracles
from reference_impl.config import load_config
from reference_impl.model.loader import load_documents
from reference_impl.model.scenario import parse_scenario
from reference_impl.plugins.registry import build_registry
from reference_impl.releases.behaviours import behaviour
from reference_impl.scheduler.batch import sign_pod
from reference_impl.scheduler.queue.events import UNSCHEDULABLE_TIMEOUT
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.select_host import RESERVOIR

#: Decision fields compared (each a dict keyed by pod, or a sorted list of pods).
DECISION_FIELDS = ("bindings", "pending", "deleted", "removed", "finished", "nominations",
                   "pendingMessages", "timeline")
FAILED_OUTCOMES = ("Unschedulable", "Error", "Nominated")
BOUND = "Bound"
#: ``podMaxInUnschedulablePodsDuration``: pods waiting longer are flushed back (5 minutes).
UNSCHEDULABLE_FLUSH_SECONDS = 300.0
#: How close (virtual seconds) a retry and a timeline event must be to race on a wall clock:
#: the backoff flush ticker runs every second from the scheduler's start.
TIMER_WINDOW_SECONDS = 1.0
#: ``DefaultPodMaxBackoffDuration`` (``pkg/scheduler/apis/config/v1/defaults.go``): 10 s.
DEFAULT_MAX_BACKOFF_SECONDS = 10.0


def decisions_of(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What a real control plane's API shows of a SimulationResult, normalized for comparison:
    bindings, pending, deleted, removed and finished pods, each pod's nominations (node and
    victims; a nomination again of the node the pod's previous attempt nominated, with no
    victim, is not visible and left out), each pending pod's last failure message, the
    timeline events applied."""
    attempts = [a for a in doc.get("attempts") or [] if a.get("outcome") != "Gated"]
    nominations: dict[str, list[dict[str, Any]]] = {}
    last: dict[str, Mapping[str, Any]] = {}
    for a in attempts:
        pod = str(a.get("pod"))
        before = last.get(pod)
        last[pod] = a
        if a.get("outcome") == "Nominated":
            victims = sorted(a.get("victims") or [])
            if not victims and before is not None and before.get("outcome") == "Nominated" \
                    and before.get("nominatedNode") == a.get("nominatedNode"):
                # the pod's previous attempt nominated the same node: with no victim to
                # delete, the API shows no change (the same status is written again), so a
                # real control plane's nomination again is not seen (recorder.py)
                continue
            nominations.setdefault(pod, []).append(
                {"node": a.get("nominatedNode"), "victims": victims})
    pending = sorted(doc.get("pending") or [])
    messages = {p: str(last[p].get("message") or "") for p in pending
                if p in last and last[p].get("outcome") in FAILED_OUTCOMES}
    timeline = [{"action": e.get("action"), "target": e.get("target"),
                 "result": e.get("result")} for e in doc.get("timeline") or []]
    return {
        "bindings": dict(sorted((doc.get("bindings") or {}).items())),
        "pending": pending,
        "deleted": sorted(doc.get("deleted") or []),
        "removed": sorted(doc.get("removed") or []),
        "finished": sorted(doc.get("finished") or []),
        "nominations": dict(sorted(nominations.items())),
        "pendingMessages": dict(sorted(messages.items())),
        "timeline": timeline,
    }


def compare_decisions(ref_doc: Mapping[str, Any],
                      real_doc: Mapping[str, Any]) -> list[Divergence]:
    """The differences of the decisions (:func:`decisions_of`) of the reference's and the
    real scheduler's results, as divergences of mode ``decisions``: one per differing pod of
    a per-pod field, one per differing list."""
    r, u = decisions_of(ref_doc), decisions_of(real_doc)
    out: list[Divergence] = []
    for f in DECISION_FIELDS:
        rv, uv = r[f], u[f]
        if rv == uv:
            continue
        if isinstance(rv, dict):
            for pod in sorted(set(rv) | set(uv)):
                a, b = rv.get(pod, _ABSENT), uv.get(pod, _ABSENT)
                if a != b:
                    node = b if f == "bindings" and isinstance(b, str) else None
                    out.append(Divergence(DECISIONS, f"{f}.{pod}", f"{f}.*",
                                          _value(a), _value(b), pod=pod, node=node))
        elif f in ("pending", "deleted", "removed", "finished"):
            changed = sorted(set(rv) ^ set(uv))
            out.append(Divergence(DECISIONS, f, f, rv, uv,
                                  pod=changed[0] if len(changed) == 1 else None))
        else:
            out.append(Divergence(DECISIONS, f, f, rv, uv))
    # a different binding explains the differences of the end state that follow from it
    if any(d.field in ("bindings.*", "nominations.*") for d in out):
        first = out[0].field
        for d in out:
            d.consequence = d.field != first and d.field in (
                "pending", "deleted", "pendingMessages.*")
    return out


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


_ABSENT = _Absent()


def _value(v: Any) -> Any:
    return None if v is _ABSENT else v


# --- timing hazards ----------------------------------------------------------------------------

def timing_hazards(scenario: ScenarioInput, ref_doc: Mapping[str, Any],
                   driver_warnings: Sequence[str] = (),
                   preemption_ties: Sequence[str] = ()) -> list[str]:
    """Why the real scheduler's decisions on this scenario may differ from the reference's by
    timing alone (the hazards of docs/backends.md); empty: compare them exactly. Judged from the
    scenario, the reference's run (``ref_doc``), the driver's warnings about the scenario
    (from its plan, before anything runs) and the preemptions the reference found tied
    (``preemption_ties``: pods, see :func:`tied_preemptions`)."""
    out: list[str] = []
    for w in driver_warnings:
        if "same priority" in w:
            out.append(f"namespace-order: {w}")
            break
    attempts = [a for a in ref_doc.get("attempts") or [] if a.get("outcome") != "Gated"]
    race = _retry_race(attempts, [float(e.get("time") or 0.0)
                                  for e in ref_doc.get("timeline") or []])
    if race:
        out.append(f"retry-race: {race}")
    signed = _batching_pods(scenario)
    if signed:
        out.append(f"batching: pending pods {', '.join(signed[:2])} have the same scheduling "
                   f"signature in a profile whose plugins all sign")
    order = _binding_order(scenario, attempts)
    if order:
        out.append(f"binding-order: {order}")
    shared = _shared_claim(scenario)
    if shared:
        out.append(f"claim-in-flight: {shared}")
    timer = _timer_hazard(ref_doc, attempts, _max_backoff(scenario))
    if timer:
        out.append(f"wall-clock-timers: {timer}")
    if preemption_ties:
        out.append(f"preemption-tie: the preemption of {', '.join(preemption_ties)} is "
                   f"decided at random upstream")
    tie = _random_host_tie(scenario, attempts)
    if tie:
        out.append(f"host-tie: {tie}")
    return out


def _random_host_tie(scenario: ScenarioInput, attempts: Sequence[Mapping[str, Any]]) -> str:
    """The first binding of the reference's run among nodes tied on the top score, in a
    release whose ``selectHost`` picks among them at random (the ``reservoir`` variant of the
    ``select-host`` switch, reference_impl/releases/behaviours.py: v1.34's
    pkg/scheduler/schedule_one.go, reservoir sampling with an unseeded source); "" if none.
    The reference's seeded choice cannot be the real scheduler's, nor the next ones, which
    build on it."""
    if behaviour(scenario.release, "select-host") != RESERVOIR:
        return ""
    for a in attempts:
        tied = a.get("candidates") or []
        if a.get("outcome") == BOUND and len(tied) > 1:
            return (f"{a.get('pod')} is bound among {len(tied)} nodes tied on the top score "
                    f"({', '.join(sorted(map(str, tied))[:3])}{', ...' if len(tied) > 3 else ''}"
                    f"): selectHost of {scenario.release} picks one at random")
    return ""


def _retry_race(attempts: Sequence[Mapping[str, Any]],
                events: Sequence[float] = ()) -> str:
    """A pod failed, was attempted again, and another pod's attempt came in between with no
    timeline event separating it from the retry (timeline events wait for quiescence, so what
    came before one is settled): the failed pod was moved back by an informer event whose
    arrival (after an asynchronous binding or deletion) decides where its retry lands among
    the other pods' attempts. A retry by the unschedulable flush that fails as before is no
    race (it changes nothing; ``_timer_hazard`` judges the others)."""
    for i, a in enumerate(attempts):
        if a.get("outcome") not in FAILED_OUTCOMES:
            continue
        pod = a.get("pod")
        j = next((k for k in range(i + 1, len(attempts)) if attempts[k].get("pod") == pod),
                 None)
        if j is None:
            continue
        r = attempts[j]
        if r.get("event") == UNSCHEDULABLE_TIMEOUT and r.get("outcome") == a.get("outcome") \
                and r.get("message") == a.get("message"):
            continue
        t_retry = float(r.get("time") or 0.0)
        for b in attempts[i + 1:j]:
            t = float(b.get("time") or 0.0)
            if b.get("pod") != pod and not any(t < e <= t_retry for e in events):
                return (f"{pod} failed ({a.get('outcome')}) at attempt {i} and was retried "
                        f"at attempt {j}, after {b.get('pod')}'s attempt")
    return ""


def _max_backoff(scenario: ScenarioInput) -> float:
    """``podMaxBackoffSeconds`` of the scenario's configuration (default 10)."""
    cfg = scenario.config if isinstance(scenario.config, Mapping) else None
    if cfg is None:
        cfg = next((d for d in scenario.documents if isinstance(d, Mapping)
                    and d.get("kind") == "KubeSchedulerConfiguration"), None)
    try:
        return float((cfg or {}).get("podMaxBackoffSeconds") or DEFAULT_MAX_BACKOFF_SECONDS)
    except (TypeError, ValueError):
        return DEFAULT_MAX_BACKOFF_SECONDS


def _timer_hazard(ref_doc: Mapping[str, Any], attempts: Sequence[Mapping[str, Any]],
                  max_backoff: float = 10.0) -> str:
    """A retry whose time the wall clock decides: any retry within a second of a timeline
    event (not at the same instant: that one the event caused); a pending pod whose backoff
    may end on either side of ``spec.until`` (its last failure less than podMaxBackoffSeconds
    + 1 s before the end of a run stopped by ``until``); or a retry by the 5-minute
    unschedulable flush that changed something (a flushed retry failing again as before
    leaves no trace in the API either)."""
    events = [float(e.get("time") or 0.0) for e in ref_doc.get("timeline") or []]
    end = float(ref_doc.get("endTime") or 0.0)
    if ref_doc.get("stoppedBy") == "until":
        last_failure: dict[str, float] = {}
        for a in attempts:
            if a.get("outcome") in FAILED_OUTCOMES:
                last_failure[str(a.get("pod"))] = float(a.get("time") or 0.0)
        for pod in ref_doc.get("pending") or []:
            t = last_failure.get(pod)
            if t is not None and end - t < max_backoff + TIMER_WINDOW_SECONDS:
                return (f"{pod} last failed at {t:g}s, its backoff (up to {max_backoff:g}s) "
                        f"may end on either side of the end of the run at {end:g}s")
    previous: dict[str, Mapping[str, Any]] = {}
    for a in attempts:
        pod = str(a.get("pod"))
        before = previous.get(pod)
        previous[pod] = a
        if a.get("event") == UNSCHEDULABLE_TIMEOUT and (
                before is None or a.get("outcome") != before.get("outcome")
                or a.get("message") != before.get("message")):
            return (f"{pod} was retried by the {UNSCHEDULABLE_FLUSH_SECONDS:g}s unschedulable "
                    f"flush at {a.get('time')}s with another outcome")
        if before is None:  # a first attempt: the pod was created, not retried
            continue
        t = float(a.get("time") or 0.0)
        for e in events:
            if e != t and abs(e - t) <= TIMER_WINDOW_SECONDS:
                return (f"{pod} retried at {t:g}s (after a backoff or an event), within "
                        f"{TIMER_WINDOW_SECONDS:g}s of the timeline event at {e:g}s")
    return ""


def _binding_order(scenario: ScenarioInput, attempts: Sequence[Mapping[str, Any]]) -> str:
    """Two pods whose bindings trigger timeline events (``when: {podBound: ...}``) bound by
    the reference at the same virtual time, neither created by the other's events (a
    StatefulSet's next ordinal exists only once the previous one's binding is seen): upstream
    binds each in a goroutine of its own (``go sched.runBindingCycle``,
    pkg/scheduler/schedule_one.go), so the second binding may reach the API, and a controller
    that watches it, before the first: the events they trigger come in either order, and with
    them the created pods' queue order. The reference binds in the order of its attempts."""
    try:
        loaded = load_documents(scenario.documents, source=scenario.name)
        triggered = (parse_scenario(loaded.scenario, loaded.cluster).triggered
                     if loaded.scenario else [])
    except Exception:  # noqa: BLE001 - an invalid scenario: both sides reject it
        return ""
    triggers = {te.after for te in triggered}
    created_by = {te.target: te.after for te in triggered if te.action == "createPod"}

    def descends(pod: str, ancestor: str) -> bool:
        seen: set[str] = set()
        while pod in created_by and pod not in seen:
            seen.add(pod)
            pod = created_by[pod]
            if pod == ancestor:
                return True
        return False

    bound_at: dict[float, list[str]] = {}
    for a in attempts:
        pod = str(a.get("pod"))
        if a.get("outcome") != BOUND or pod not in triggers:
            continue
        t = float(a.get("time") or 0.0)
        for other in bound_at.setdefault(t, []):
            if not descends(pod, other):
                return (f"{other} and {pod}, bound at {t:g}s, trigger timeline events: their "
                        f"asynchronous bindings may reach the API in either order")
        bound_at[t].append(pod)
    return ""


def _shared_claim(scenario: ScenarioInput) -> str:
    """Two pending pods naming one ResourceClaim (``resourceClaimName``): the second may be
    attempted while the first's binding cycle, asynchronous on a real control plane, is still
    allocating the claim, and fail with "resource claim ... is in the process of being
    allocated" (DynamicResources PreFilter, pkg/scheduler/framework/plugins/dynamicresources/
    dynamicresources.go) before its retry binds it: a retry, and a nomination set for the
    binding, that the reference's synchronous binding never makes."""
    users: dict[str, str] = {}
    for d in scenario.documents:
        if not isinstance(d, Mapping) or d.get("kind") != "Pod":
            continue
        spec, meta = d.get("spec") or {}, d.get("metadata") or {}
        if spec.get("nodeName"):
            continue
        ns = meta.get("namespace") or "default"
        for entry in spec.get("resourceClaims") or []:
            claim = entry.get("resourceClaimName") if isinstance(entry, Mapping) else None
            if not claim:
                continue
            pod, key = f"{ns}/{meta.get('name')}", f"{ns}/{claim}"
            if key in users and users[key] != pod:
                return f"pending pods {users[key]} and {pod} share the claim {key}"
            users[key] = pod
    return ""


def _batching_pods(scenario: ScenarioInput) -> list[str]:
    """Two pending pods with one signature in a profile where opportunistic batching is on
    (every PreFilter/Filter/PreScore/Score plugin signs: ``batchable_plugins``)."""
    try:
        loaded = load_documents(scenario.documents, source=scenario.name)
        raw = scenario.config if scenario.config is not None else loaded.cluster.config
        registry = build_registry()
        config = load_config(raw, registry) if raw is not None else None
        sched = Scheduler(loaded.cluster, config, registry, seed=scenario.seed)
    except Exception:  # noqa: BLE001 - an invalid scenario: both sides reject it
        return []
    seen: dict[tuple[str, str], str] = {}
    for pod in loaded.cluster.pods:
        fwk = sched.profiles.get(pod.scheduler_name)
        if pod.node_name or fwk is None:
            continue
        sig = sign_pod(fwk, pod)
        if sig is None:
            continue
        key = f"{pod.namespace}/{pod.name}"
        first = seen.setdefault((pod.scheduler_name, sig), key)
        if first != key:
            return [first, key]
    return []


# --- one scenario ------------------------------------------------------------------------------

def compare_scenario(scenario: ScenarioInput, ref: Subject, up: Subject, out: ScenarioDiff,
                     executor: Executor | None = None) -> None:
    """Decisions mode on one scenario: both subjects run it; the real result is judged by
    every oracle; its decisions are compared with the reference's unless the scenario has a
    timing hazard. Adds to ``out`` (divergences, hazards, notes)."""
    u_future = executor.submit(run_subject, up, scenario) if executor is not None else None
    r = run_subject(ref, scenario, reference=True)
    u = u_future.result() if u_future is not None else run_subject(up, scenario)
    out.unsupported = unsupported(r, u, ref, up)
    if out.unsupported:
        return
    out.not_judged = note_inputs(out.dropped, ref, r, up, u) or out.not_judged
    if r.error or u.error:
        if not (r.error and u.error):
            out.divergences.append(Divergence(DECISIONS, "simulate", "simulate",
                                              r.error or "a SimulationResult",
                                              u.error or "a SimulationResult"))
        elif not is_rejection(r.error) or not is_rejection(u.error):
            out.divergences.append(Divergence(DECISIONS, "simulate", "simulate", r.error,
                                              u.error))
        return
    assert r.doc is not None and u.doc is not None
    out.attempts = len(u.doc.get("attempts") or [])
    for f in oracle_findings(scenario, u.doc, up):
        d = Divergence(DECISIONS, f"oracle.{f.oracle}", f"oracle.{f.oracle}", "no violation",
                       f.text)
        d.known = f.deviation  # a known upstream deviation: upstream breaks only its intent
        out.divergences.append(d)
    out.hazards = timing_hazards(scenario, r.doc, u.warnings,
                                 tied_preemptions(scenario, ref, r.doc))
    found = compare_decisions(r.doc, u.doc)
    if out.hazards:
        # compared all the same, for the record: a difference is timing-dependent, not
        # unexplained
        label = "timing-hazard:" + ",".join(sorted({h.split(":", 1)[0] for h in out.hazards}))
        for d in found:
            d.known = label
        out.notes.append("decisions: the exact comparison with the reference does not count "
                         "(timing hazards: " + "; ".join(out.hazards) + ")"
                         + (f"; {len(found)} timing-dependent difference(s)" if found else
                            "; they agree"))
    else:
        out.decisions_compared = True
    out.divergences += found


def oracle_findings(scenario: ScenarioInput, doc: Mapping[str, Any],
                    subject: Subject) -> list[Finding]:
    """Every invariant oracle on a subject's result (``check_result``)."""
    return check_result(scenario, SubjectResult(dict(doc)), subject,
                               select_oracles(None))


def tied_preemptions(scenario: ScenarioInput, ref: Subject, ref_doc: Mapping[str, Any]
                     ) -> list[str]:
    """The pods whose preemption (a ``Nominated`` attempt of the reference's run) upstream
    would decide at random: candidate nodes tied on every criterion it can tell apart
    (``random_preemption_choice``), or more potential nodes than the dry run tries (it starts
    at a random offset). Attempts after a timeline event are not judged (their cluster is
    not reconstructed): they count as tied."""
    attempts = list(ref_doc.get("attempts") or [])
    events = [float(e.get("time") or 0.0) for e in ref_doc.get("timeline") or []]
    base = without_timeline(scenario) if has_timeline(scenario) else scenario
    out: list[str] = []
    for i, a in enumerate(attempts):
        if a.get("outcome") != "Nominated":
            continue
        pod = str(a.get("pod"))
        if any(e <= float(a.get("time") or 0.0) for e in events):
            out.append(pod)
            continue
        state = state_before(base, attempts, i)
        if state is None:
            out.append(pod)
            continue
        try:
            e = ref.explain(state, pod)
        except ScenarioRejected:
            out.append(pod)
            continue
        pre = e.get("preemption") or {}
        sampled = any("not examined" in " ".join(map(str, why))
                      for why in (pre.get("notCandidates") or {}).values())
        if sampled or explained_preemption_ties(e, model_pods(state)):
            out.append(pod)
    return out


def canonical(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, default=str)
