"""The recorder: turns what the watches show (pod changes, ``Preempted`` events) into the
attempts of a ``SimulationResult`` — bindings, failures, nominations with their victims,
scheduling gates — and assembles the document at the end of the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from conformance.backends.control_plane import release_minor
from conformance.backends.plan import HOLD_GATE, Naming, gates_message
from conformance.backends.scheduler_log import order_attempts, parse_cycles
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: Evaluator.Preempt's message when it nominates a node (pkg/scheduler/framework/preemption/
#: preemption.go), part of the pod's PodScheduled condition message.
PREEMPTION_FOUND = "preemption: found a potential placement for pod on node"
PREEMPTED_REASON = "Preempted"
DISRUPTION_TARGET = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"

BOUND = "Bound"
UNSCHEDULABLE = "Unschedulable"
ERROR = "Error"
GATED = "Gated"
NOMINATED = "Nominated"


@dataclass(slots=True)
class PodState:
    """What the recorder knows of one pod of the run."""

    bound: str | None = None
    signature: tuple[str, str, str] | None = None  # (reason, message, nominatedNodeName)
    nominated: str = ""
    victim: bool = False
    gone: bool = False
    attempts: int = 0
    decided: bool = False  # an outcome of the scheduler was seen (not only Gated records)
    held: bool = False  # PodScheduled says SchedulingGated (the scheduler has not tried it)
    finished: bool = False  # phase Succeeded or Failed
    last_nominated_attempt: dict[str, Any] | None = None
    uid: str = ""
    node: str = ""  # api node it is bound to
    force_deleted: bool = False
    bound_seq: int = 0  # the order the watch showed its binding in (1, 2, ...; 0: not bound)


class Recorder:
    """Turns pod and event watch notifications into the SimulationResult's attempts.
    ``responsible(key)``: the scheduler serves the pod's schedulerName; ``clock(wall)``: the
    virtual time of a wall-clock moment."""

    def __init__(self, naming: Naming, responsible: Callable[[str], bool],
                 clock: Callable[[float], float], *, release: str = UPSTREAM_RELEASE) -> None:
        self.naming = naming
        self.release = release
        #: a preemption's message says so (PREEMPTION_FOUND) since v1.37 only
        #: (pkg/scheduler/framework/preemption/preemption.go ``Preempt``): before, a
        #: nomination alone may be one
        self._preemption_says_so = release_minor(release) >= 37
        self.responsible = responsible
        self.clock = clock
        self.attempts: list[dict[str, Any]] = []
        self.states: dict[str, PodState] = {}
        self.victims: list[str] = []
        self.victim_nodes: dict[str, tuple[str, float]] = {}  # victim -> (api node, wall)
        self.attributed: set[str] = set()
        self.uid_key: dict[str, str] = {}
        self.last_change = time.monotonic()
        self.expected_deletions: set[str] = set()  # keys the driver deletes itself
        self.terminating: set[str] = set()  # keys with a deletionTimestamp still present
        # pods the input shows terminating (kept by a finalizer): never force-deleted, and
        # not waited for
        self.kept_terminating: set[str] = set()
        self.errors: list[str] = []
        self.pending_keys: set[str] = set()  # pods that were pending when created
        self.bindings = 0  # Bound records
        self.bindings_seen = 0  # bindings the watch showed, pods created bound included

    def state(self, key: str) -> PodState:
        st = self.states.get(key)
        if st is None:
            st = self.states[key] = PodState()
        return st

    def changed(self, wall: float | None = None) -> None:
        self.last_change = time.monotonic() if wall is None else wall

    def _record(self, key: str, outcome: str, wall: float, *, node: str | None = None,
                message: str = "", nominated: str | None = None) -> dict[str, Any]:
        st = self.state(key)
        st.attempts += 1
        if outcome != GATED:
            st.decided = True
        if outcome == BOUND:
            self.bindings += 1
        a: dict[str, Any] = {
            "pod": key, "outcome": outcome, "node": node, "reasons": {}, "message": message,
            "nominatedNode": nominated, "candidates": [node] if node else [], "victims": [],
            "time": round(max(0.0, self.clock(wall)), 6)}
        self.attempts.append(a)
        if outcome == NOMINATED:
            st.last_nominated_attempt = a
        return a

    def gated(self, key: str, wall: float, message: str) -> None:
        """A Gated record (the pod is held by its scheduling gates)."""
        self._record(key, GATED, wall, message=message)

    def unattempted(self) -> list[str]:
        """Pending pods the scheduler serves that the API shows no outcome for yet: not
        bound, no failure or nomination, not held by their scheduling gates, not deleted or
        finished (a pod no notification showed yet counts)."""
        out = []
        for key in sorted(self.pending_keys):
            st = self.states.get(key)
            if not self.responsible(key):
                continue
            if st is None or not (st.decided or st.bound or st.held or st.gone
                                  or st.finished):
                out.append(key)
        return out

    # ----- pods -----
    def on_pod(self, kind: str, obj: Mapping[str, Any], wall: float) -> str | None:
        """One pod notification. Returns the key of a pod the driver must force-delete (it is
        terminating and no kubelet will finish it), else None."""
        meta = obj.get("metadata") or {}
        key = self.naming.pod_back(str(meta.get("namespace", "")), str(meta.get("name", "")))
        if key is None:
            return None
        st = self.state(key)
        if meta.get("uid"):
            st.uid = str(meta["uid"])
            self.uid_key[st.uid] = key
        spec = obj.get("spec") or {}
        status = obj.get("status") or {}
        st.finished = status.get("phase") in ("Succeeded", "Failed")
        conditions = {c.get("type"): c for c in status.get("conditions") or []
                      if isinstance(c, Mapping)}
        dt = conditions.get(DISRUPTION_TARGET)
        if dt is not None and dt.get("status") == "True" and \
                dt.get("reason") == PREEMPTION_BY_SCHEDULER:
            st.victim = True
        if kind == "DELETED":
            self._deleted(key, st, spec, wall)
            return None
        node = spec.get("nodeName") or ""
        if node and not st.bound:
            self._bound(key, st, node, wall)
        elif not node:
            self._unbound(key, st, spec, status, conditions.get("PodScheduled"), wall)
        if meta.get("deletionTimestamp") and key not in self.kept_terminating:
            self.terminating.add(key)
            if not st.force_deleted:
                st.force_deleted = True
                return key
        return None

    def _deleted(self, key: str, st: PodState, spec: Mapping[str, Any], wall: float) -> None:
        self.terminating.discard(key)
        if st.gone:
            return
        st.gone = True
        if st.victim and key not in self.expected_deletions:
            self.victims.append(key)
            self.victim_nodes[key] = (str(spec.get("nodeName") or st.node), wall)
        self.changed(wall)

    def _bound(self, key: str, st: PodState, node: str, wall: float) -> None:
        st.bound = node
        st.node = node
        self.bindings_seen += 1
        st.bound_seq = self.bindings_seen
        if key in self.pending_keys:
            self._record(key, BOUND, wall, node=self.naming.node_back(node))
        self.changed(wall)

    def _unbound(self, key: str, st: PodState, spec: Mapping[str, Any],
                 status: Mapping[str, Any], cond: Mapping[str, Any] | None,
                 wall: float) -> None:
        """A pending pod's change: a new ``PodScheduled=False`` condition or nomination is
        an attempt (or a Gated record)."""
        reason = message = ""
        if cond is not None and cond.get("status") == "False":
            reason, message = str(cond.get("reason") or ""), str(cond.get("message") or "")
        nnn = str(status.get("nominatedNodeName") or "")
        sig = (reason, message, nnn)
        prev = st.signature
        if sig == prev:
            return
        st.signature = sig
        st.held = reason == "SchedulingGated"
        new_verdict = prev is None or prev[:2] != (reason, message)
        new_nomination = bool(nnn) and (prev is None or prev[2] != nnn)
        if new_nomination and not new_verdict and self._preemption_says_so \
                and PREEMPTION_FOUND not in message:
            # the binding cycle's nomination of the node it binds to, written alone (no
            # condition) when a PreBind plugin has work, e.g. DynamicResources allocating
            # (``bindingCycle``, pkg/scheduler/schedule_one.go, NominatedNodeNameForExpectation):
            # no attempt; the binding follows
            new_nomination = False
        if reason in (UNSCHEDULABLE, "SchedulerError") and (new_verdict or new_nomination):
            # a new preemption to the node the pod was already nominated to shows only in the
            # message (Evaluator.Preempt's status, preemption.go)
            preempted = bool(nnn) and PREEMPTION_FOUND in message
            outcome = (ERROR if reason == "SchedulerError"
                       else NOMINATED if new_nomination or preempted
                       else UNSCHEDULABLE)
            self._record(key, outcome, wall, message=message,
                         nominated=self.naming.node_back(nnn) if nnn else None)
        elif reason == "SchedulingGated" and new_verdict and self.responsible(key):
            own = [str(g.get("name")) for g in spec.get("schedulingGates") or []
                   if isinstance(g, Mapping) and g.get("name") != HOLD_GATE]
            if own:
                self.gated(key, wall, gates_message(own))
        st.nominated = nnn
        self.changed(wall)

    # ----- preemption -----
    def on_event(self, obj: Mapping[str, Any], wall: float) -> None:
        """A ``Preempted`` event: attribute its victim to the preemptor (``related``)."""
        if obj.get("reason") != PREEMPTED_REASON:
            return
        inv = obj.get("involvedObject") or obj.get("regarding") or {}
        rel = obj.get("related") or {}
        victim = self.naming.pod_back(str(inv.get("namespace", "")), str(inv.get("name", "")))
        preemptor = self.naming.pod_back(str(rel.get("namespace", "")), str(rel.get("name", "")))
        if preemptor is None and rel.get("uid"):
            preemptor = self.uid_key.get(str(rel["uid"]))
        if victim is None or preemptor is None or victim in self.attributed:
            return
        a = self.state(preemptor).last_nominated_attempt
        if a is not None:
            a["victims"].append(victim)
            self.attributed.add(victim)
            self.changed(wall)

    def attribute_remaining(self) -> None:
        """Victims no Preempted event attributed: to the last attempt nominating their node
        before they were deleted."""
        for v in self.victims:
            if v in self.attributed:
                continue
            api_node, _ = self.victim_nodes.get(v, ("", 0.0))
            node = self.naming.node_back(api_node)
            for a in reversed(self.attempts):
                if a["outcome"] == NOMINATED and a["nominatedNode"] == node:
                    a["victims"].append(v)
                    self.attributed.add(v)
                    break

    # ----- the result -----
    def order_by_log(self, text: str) -> bool:
        """Put the attempts in the order of the scheduling cycles of the scheduler's log
        (``scheduler_log.py``: the API shows bindings late). False when the log shows no
        cycle (the attempts keep the order the API showed them)."""
        cycles = parse_cycles(text.splitlines())
        if not cycles:
            return False
        self.attempts[:] = order_attempts(self.attempts, cycles, self._api_key)
        return True

    def unlogged(self, text: str) -> list[str]:
        """Pods with more attempts seen through the API than results in the scheduler's log
        ``text``: a log that has not caught up yet (a container's log reaches the engine
        late)."""
        logged: dict[str, int] = {}
        for c in parse_cycles(text.splitlines()):
            key = self._api_key(c.pod)
            if key is not None and c.result is not None:
                logged[key] = logged.get(key, 0) + 1
        seen: dict[str, int] = {}
        for a in self.attempts:
            if a["outcome"] != GATED:
                seen[a["pod"]] = seen.get(a["pod"], 0) + 1
        return sorted(k for k, n in seen.items() if logged.get(k, 0) < n)

    def _api_key(self, api: str) -> str | None:
        ns, _, name = api.partition("/")
        return self.naming.pod_back(ns, name)

    def result(self, *, seed: int, known: Iterable[str], running_on: Mapping[str, str],
               removed: list[str], finished: list[str], timeline: list[dict[str, Any]],
               stopped_by: str, end_v: float | None) -> dict[str, Any]:
        """The SimulationResult document. ``known``: every pod key of the run;
        ``running_on``: the API node of each pod created bound and still there;
        ``timeline``: the applied timeline events."""
        bindings: dict[str, str] = {}
        pending: list[str] = []
        for key in sorted(set(known) | set(self.states)):
            st = self.states.get(key)
            if st is not None and st.gone:
                continue
            if key in self.victims or key in removed or key in finished:
                continue
            node = st.bound if st is not None else None
            if node is None and key in running_on:
                node = running_on[key]
            if node:
                bindings[key] = self.naming.node_back(node) or node
            else:
                pending.append(key)
        if end_v is None:
            last = [a["time"] for a in self.attempts] + [e["time"] for e in timeline]
            end_v = max(last, default=0.0)
        return {
            "apiVersion": "kschedconf/v1",
            "kind": "SimulationResult",
            "upstreamRelease": self.release,
            "seed": seed,
            "attempts": self.attempts,
            "bindings": bindings,
            "pending": pending,
            "deleted": sorted(self.victims),
            "endTime": round(end_v, 6),
            "stoppedBy": stopped_by,
            "removed": sorted(removed),
            "finished": sorted(finished),
            "timeline": timeline,
        }
