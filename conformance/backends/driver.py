"""The driver every control-plane launcher shares (``process``, ``docker``, ``kubeconfig``):
runs one scenario against an API server — plan (``plan.py``), create (``objects.py``), let the
scheduler work while the watches feed the recorder (``recorder.py``) and the timeline is
applied (``timeline.py``), until quiescence — and returns the ``SimulationResult`` document.
How and why: ``docs/backends.md``.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from conformance.backends.api import ApiError, ClusterApi
from conformance.backends.control_plane import SchedulerState
from conformance.backends.dra import (
    pod_owned_claims_of,
    read_allocations,
    read_extended_claims,
)
from conformance.backends.objects import RunObjects
from conformance.backends.plan import RUN_LABEL, Naming, Plan, Planner
from conformance.backends.recorder import GATED, PREEMPTED_REASON, Recorder
from conformance.backends.timeline import PlannedEvent, Timeline, VirtualClock
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioTimedOut, SubjectError
from reference_impl.model.timeline_objects import APPLY_OBJECT
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: broken watch streams in one scenario after which the API server counts as unreachable
MAX_WATCH_FAILURES = 20
#: seconds between liveness checks of the launcher's components during a scenario
ALIVE_CHECK_INTERVAL = 0.25

#: a watch notification: (object kind, notification type, object, wall-clock time)
Notification = tuple[str, str, dict[str, Any], float]


@dataclass(slots=True)
class DriverOptions:
    run_id: str
    #: "owned": the launcher starts kube-scheduler after the objects exist (process, docker);
    #: "shared": a scheduler is already running (kubeconfig).
    mode: str = "owned"
    time_scale: float = 1.0  # wall seconds per virtual second
    settle: float = 0.5  # seconds without change that count as quiet
    #: longest wait, once kube-scheduler reports nothing left to do, for the API to show what
    #: it did (or for its metrics to answer at all)
    grace: float = 10.0
    #: longest wait for the scheduler's log to show every attempt the API showed
    log_wait: float = 5.0
    timeout: float = 120.0  # wall seconds for one scenario, from the scheduler's start
    release_timeout: float = 5.0  # shared mode: longest wait for a released pod's attempt
    namespace_prefix: str = ""
    node_prefix: str = ""
    parallelism: int | None = 1
    rename_for_order: bool = True
    release: str = UPSTREAM_RELEASE  # the kube-scheduler release the result names


class SchedulerHooks(Protocol):
    """What a launcher offers the driver (owned mode)."""

    def start_scheduler(self, config: dict[str, Any] | None) -> None:
        """Start kube-scheduler with the scenario's KubeSchedulerConfiguration (None: the
        release's defaults; see ``control_plane.scheduler_config``) and return when it is
        ready."""
        ...

    def stop_scheduler(self) -> None: ...

    def scheduler_state(self) -> SchedulerState | None:
        """The scheduler's metrics (``control_plane.parse_scheduler_state``); None when they
        cannot be read."""
        ...

    # optional: ``start_controllers() -> None``, starting kube-controller-manager's
    # resourceclaim controller for a scenario with DRA objects (before the scheduler; stopped
    # with it: ``needs_claim_controller``);
    # ``scheduler_log() -> str | None``, the running scheduler's log (``--v=3``),
    # whose scheduling cycles order the attempts (``scheduler_log.py``), and
    # ``check_alive() -> None``, raising SubjectError when a component died


def needs_claim_controller(plan: Plan) -> bool:
    """The scenario has DRA objects, at the start or from its timeline (``applyObject``): the
    resourceclaim controller then creates the claims of the pods' templates and releases the
    claims of pods that go (docs/backends.md, "The resourceclaim controller")."""
    timeline = plan.timeline
    return bool(plan.dra) or timeline is not None and any(
        ev.action == APPLY_OBJECT for ev in (*timeline.events, *timeline.triggered))


class Driver:
    """Runs scenarios against one API server (see the module docstring)."""

    def __init__(self, api: ClusterApi, options: DriverOptions) -> None:
        self.api = api
        self.opt = options
        self.selector = f"{RUN_LABEL}={options.run_id}"
        self._metrics_seen = False  # the scheduler's metrics were read this scenario
        #: when the current wait began: for the metrics to answer, or for the API to show
        #: what the idle scheduler did (bounded by ``DriverOptions.grace``)
        self._wait_start: float | None = None
        self.warnings: list[str] = []
        self.naming = Naming(namespace_prefix=options.namespace_prefix,
                             node_prefix=options.node_prefix)
        self.planner = Planner(self.naming, options.run_id, owned=options.mode == "owned",
                               rename_for_order=options.rename_for_order,
                               warnings=self.warnings, release=options.release)
        self.objects = RunObjects(api, self.selector)
        self.seconds: dict[str, float] = {}
        self.responsible: dict[str, bool] = {}  # pod key -> the scheduler serves it
        self.clock = VirtualClock(options.time_scale)
        self.recorder = self._new_recorder()
        self.watch_lost: list[str] = []
        self._events: queue.Queue[Notification] = queue.Queue()
        self._last_alive_check = 0.0
        self._hooks: SchedulerHooks | None = None
        #: delete the claims a deleted pod owns (``_collect_claims``): with the resourceclaim
        #: controller
        self.collect_claims = False
        self._handlers: dict[str, Callable[[str, dict[str, Any], float], None]] = {
            "Pod": self._on_pod, "Event": self._on_event}

    def _new_recorder(self) -> Recorder:
        return Recorder(self.naming, lambda key: self.responsible.get(key, False),
                        self.clock.virtual, release=self.opt.release)

    def plan(self, scenario: ScenarioInput) -> Plan:
        """Check the scenario with the reference loader and turn it into API objects."""
        return self.planner.plan(scenario)

    # ----- the run -----
    def run(self, scenario: ScenarioInput, hooks: SchedulerHooks | None = None) -> dict[str, Any]:
        """Schedule one scenario; the SimulationResult document. In owned mode ``hooks``
        starts and stops the scheduler."""
        t_begin = time.monotonic()
        plan = self.plan(scenario)
        owned = self.opt.mode == "owned"
        self._hooks = hooks
        if owned and hooks is None:
            raise SubjectError("owned mode needs a launcher to start kube-scheduler")
        self.clock = VirtualClock(self.opt.time_scale)
        self.watch_lost = []
        self._last_alive_check = 0.0
        self._metrics_seen = False
        self._wait_start = None
        self.responsible = {pp.key: pp.responsible for pp in plan.running + plan.pending}
        self.recorder = rec = self._new_recorder()
        rec.pending_keys = {pp.key for pp in plan.pending}
        rec.kept_terminating = {pp.key for pp in plan.running + plan.pending if pp.terminating}
        self._events = queue.Queue()
        stop = threading.Event()
        threads: list[threading.Thread] = []
        try:
            threads = self._start_watches(stop)
            self.objects.create_cluster(plan, hold_pending=not owned)
            timeline = Timeline(plan, api=self.api, naming=self.naming, planner=self.planner,
                                objects=self.objects, recorder=rec, clock=self.clock,
                                responsible=self.responsible)
            events = timeline.events()
            applied = [timeline.apply(e, 0) for e in events if e.at == 0]
            self.seconds["setup"] = time.monotonic() - t_begin
            if hooks is not None and owned:
                t = time.monotonic()
                start_controllers = getattr(hooks, "start_controllers", None)
                if start_controllers is not None and needs_claim_controller(plan):
                    start_controllers()
                    self.collect_claims = True
                    self.seconds["controller_start"] = time.monotonic() - t
                    t = time.monotonic()
                hooks.start_scheduler(plan.config)
                self.seconds["scheduler_start"] = time.monotonic() - t
            t0 = time.monotonic()
            self.clock.start(t0)
            self._drain(0.0)
            if not owned:
                self._release_held(plan)
            stopped_by, end_v = self._loop(plan, timeline, [e for e in events if e.at > 0],
                                           applied, hooks, t0, timeline.triggered())
            rec.attribute_remaining()
            self._order_by_scheduler_log()
            result = rec.result(seed=plan.seed, known=self.responsible,
                                running_on=timeline.pod_node, removed=timeline.removed,
                                finished=timeline.finished, timeline=applied,
                                stopped_by=stopped_by, end_v=end_v)
            if plan.dra:
                created = {ev.pod.key: ev.pod.uid
                           for ev in (*plan.timeline.events, *plan.timeline.triggered)
                           if ev.action == "createPod" and ev.pod is not None
                           } if plan.timeline is not None else {}
                claims, extended = self._read_allocations(result["bindings"], created)
                if claims:
                    result["resourceClaims"] = claims
                if extended:
                    result["extendedResourceClaimStatus"] = extended
        finally:
            stop.set()
            if owned and hooks is not None:
                with contextlib.suppress(Exception):
                    hooks.stop_scheduler()
            for th in threads:
                th.join(timeout=2.0)
        self.seconds["run"] = time.monotonic() - t_begin
        return result

    def _start_watches(self, stop: threading.Event) -> list[threading.Thread]:
        """One watch on the run's pods and one on ``Preempted`` events, each a thread feeding
        the notification queue from the current resource version."""
        _, pod_rv = self.api.list("Pod", label_selector=self.selector)
        _, ev_rv = self.api.list("Event", field_selector=f"reason={PREEMPTED_REASON}")
        threads: list[threading.Thread] = []
        for kind, rv, lsel, fsel in (("Pod", pod_rv, self.selector, None),
                                     ("Event", ev_rv, None, f"reason={PREEMPTED_REASON}")):
            def sink(t: str, o: dict[str, Any], kind: str = kind) -> None:
                self._events.put((kind, t, o, time.monotonic()))
            th = threading.Thread(target=self.api.watch, args=(kind, sink, stop),
                                  kwargs={"resource_version": rv, "label_selector": lsel,
                                          "field_selector": fsel},
                                  name=f"kschedconf-watch-{kind}", daemon=True)
            th.start()
            threads.append(th)
        return threads

    # ----- watch notifications -----
    def _drain(self, timeout: float) -> bool:
        """Handle queued watch notifications (waiting up to ``timeout`` for the first).
        True when something was handled."""
        try:
            item = self._events.get(timeout=timeout) if timeout > 0 else \
                self._events.get_nowait()
        except queue.Empty:
            return False
        while True:
            kind, t, obj, wall = item
            if t == "ERROR":
                self._on_watch_error(obj)
            else:
                handler = self._handlers.get(kind)
                if handler is not None:
                    handler(t, obj, wall)
            try:
                item = self._events.get_nowait()
            except queue.Empty:
                return True

    def _on_watch_error(self, obj: Mapping[str, Any]) -> None:
        if obj.get("lost"):
            self.watch_lost.append(str(obj.get("message")))
        else:
            self.recorder.errors.append(str(obj.get("message")))

    def _on_pod(self, t: str, obj: dict[str, Any], wall: float) -> None:
        force = self.recorder.on_pod(t, obj, wall)
        if force is not None:
            ns, name = self.naming.pod(force)
            with contextlib.suppress(ApiError):
                self.api.delete("Pod", name, ns, grace_period_seconds=0)
        if t == "DELETED" and self.collect_claims:
            self._collect_claims(obj)

    def _collect_claims(self, pod: Mapping[str, Any]) -> None:
        """The garbage collector's part for a deleted pod (no garbage collector runs on the
        owned control planes): delete the claims it owns (``dra.pod_owned_claims_of``), as the
        reference's ``release_pod_claims`` does after the resourceclaim controller's sync. A
        claim with the delete-protection finalizer is only marked: the controller deallocates
        it and removes the finalizer; one without goes at once."""
        uid = str((pod.get("metadata") or {}).get("uid") or "")
        try:
            claims = pod_owned_claims_of(self.api, {uid}) if uid else []
            for c in claims:
                m = c.get("metadata") or {}
                self.api.delete("ResourceClaim", str(m.get("name", "")), m.get("namespace"),
                                grace_period_seconds=None)
        except ApiError as e:
            self.warnings.append(f"could not delete the claims of deleted pod "
                                 f"{(pod.get('metadata') or {}).get('name')}: {e.message}")

    def _on_event(self, t: str, obj: dict[str, Any], wall: float) -> None:
        self.recorder.on_event(obj, wall)

    # ----- waiting -----
    def _quiet(self, hooks: SchedulerHooks | None) -> bool:
        """Quiescence (docs/backends.md, step 5): no change for the settle time, and the
        scheduler's own state agrees — nothing queued or being bound, and every binding it
        counted and every pod it serves visible in the API."""
        now = time.monotonic()
        rec = self.recorder
        since = now - rec.last_change
        if rec.terminating or since < self.opt.settle:
            self._wait_start = None
            return False
        if hooks is None:  # shared mode: no scheduler state to read
            return since >= 4 * self.opt.settle
        try:
            state = hooks.scheduler_state()
        except Exception:  # noqa: BLE001 - an unreadable page is judged below
            state = None
        if state is None:
            # A failed read (a busy machine: the request timed out) says nothing: ask again.
            # Only a scheduler whose metrics never answered for the grace period is judged
            # by time alone, and the result says so.
            if self._metrics_seen or not self._waited_grace(now):
                return False
            self._warn_once("kube-scheduler's metrics never answered in this scenario: "
                            f"quiescence judged by {4 * self.opt.settle:g} s without change")
            return since >= 4 * self.opt.settle
        self._metrics_seen = True
        if state.busy():
            self._wait_start = None
            return False
        behind = self._api_behind(state)
        if not behind:
            return True
        # The scheduler is idle but the API does not show all it did yet (a binding or a
        # status patch on its way, a pod its informer has not delivered yet): wait, for the
        # grace period at most, then stop and say so.
        if not self._waited_grace(now):
            return False
        self._warn_once(f"kube-scheduler reported nothing queued or in flight for "
                        f"{self.opt.grace:g} s, yet {behind}")
        return True

    def _waited_grace(self, now: float) -> bool:
        """True once the current wait (for the metrics to answer, or for the API to show what
        the idle scheduler did) has lasted ``DriverOptions.grace``."""
        if self._wait_start is None:
            self._wait_start = now
        return now - self._wait_start >= self.opt.grace

    def _api_behind(self, state: SchedulerState) -> str:
        """What the API does not show yet of what the scheduler did ("" if nothing)."""
        rec = self.recorder
        if rec.bindings < state.scheduled:
            return (f"the scheduler counted {state.scheduled:g} binding(s), the API showed "
                    f"{rec.bindings}")
        missing = rec.unattempted()
        if missing:
            return (f"{len(missing)} pending pod(s) it serves show no attempt: "
                    + ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else ""))
        return ""

    def _warn_once(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def _loop(self, plan: Plan, timeline: Timeline, later: list[PlannedEvent],
              applied: list[dict[str, Any]], hooks: SchedulerHooks | None,
              t0: float, triggered: dict[str, list[PlannedEvent]] | None = None
              ) -> tuple[str, float | None]:
        """Apply the events after time 0 (each at its time, or earlier once the cluster is
        quiet), and each event a binding triggers once the binding is observed
        (``triggered``), until quiescence or ``spec.until``; ``(stoppedBy, endTime or
        None)``."""
        triggered = dict(triggered or {})
        until = plan.until
        within = [e for e in later if until is None or e.at <= until]
        beyond = len(later) - len(within)
        idx = 0
        stopped_by = "quiescence"
        end_v: float | None = None
        clock = self.clock
        while True:
            clock.next_event_at = within[idx].at if idx < len(within) else None
            now = time.monotonic()
            if now > self._deadline(t0, within, until):  # first: no path of the loop skips it
                raise ScenarioTimedOut(self._unsettled())
            if triggered and timeline.fire_triggers(triggered, applied, now):
                continue
            self._check_health(hooks, now)
            if idx < len(within):
                e = within[idx]
                due = clock.due(e.at)
                if now >= due or self._quiet(hooks):
                    self._drain(0.0)
                    clock.next_event_at = None
                    clock.advance(time.monotonic(), e.at)
                    applied.append(timeline.apply(e, e.at))
                    idx += 1
                    continue
                self._drain(min(0.05, max(0.001, due - now)))
                continue
            if until is not None and clock.virtual(now) >= until / 1e9:
                stopped_by, end_v = "until", until / 1e9
                break
            if self._quiet(hooks):
                self._drain(0.0)
                if triggered and timeline.fire_triggers(triggered, applied, time.monotonic()):
                    continue
                if beyond:
                    stopped_by, end_v = "until", until / 1e9 if until is not None else None
                break
            self._drain(0.05)
        self._drain(0.0)
        self._check_health(hooks, time.monotonic(), force=True)
        self._read_back()
        return stopped_by, end_v

    def _deadline(self, t0: float, within: list[PlannedEvent], until: int | None) -> float:
        """When the scenario is given up: ``DriverOptions.timeout`` after the scheduler's start
        ``t0``, or after the wall time of the timeline's last event (or ``spec.until``) when
        that comes later (a timeline may plan minutes; events applied early, once the cluster
        is quiet, bring it closer)."""
        horizon = max([e.at for e in within] + ([until] if until is not None else []),
                      default=None)
        start = t0 if horizon is None else max(t0, self.clock.due(horizon))
        return start + self.opt.timeout

    def _unsettled(self) -> str:
        """Why the scenario is given up (``DriverOptions.timeout``): the pods attempted most
        often, with their last outcome, so that a scheduler that retries a pod forever says
        which pod and why."""
        attempts = self.recorder.attempts
        counts = Counter(str(a["pod"]) for a in attempts)
        last = {str(a["pod"]): a for a in attempts}
        busiest = ", ".join(
            f"{pod} ({n} attempts, the last {last[pod]['outcome']}"
            + (f": {str(last[pod]['message'])[:300]}" if last[pod].get("message") else "")
            + ")" for pod, n in counts.most_common(3))
        return (f"the scheduler did not settle within {self.opt.timeout:g} s (--subject-timeout, "
                f"after its start or the timeline's last event; {len(attempts)} attempts seen; "
                "pods still changing or queued)"
                + (f"; most attempted: {busiest}" if busiest else ""))

    def _check_health(self, hooks: SchedulerHooks | None, now: float, *,
                      force: bool = False) -> None:
        """Raise :class:`SubjectError` when the result could not be trusted: a component of
        the launcher died (its ``check_alive`` says which, with its log), a watch lost events
        (expired resource version) or the API server stopped answering the watches."""
        if self.watch_lost:
            raise SubjectError(f"{self.watch_lost[0]}; the scenario's result would miss "
                               "changes")
        errors = self.recorder.errors
        if len(errors) >= MAX_WATCH_FAILURES:
            raise SubjectError(f"the API server stopped answering: {len(errors)} broken "
                               f"watch streams, the last: {errors[-1]}")
        check = getattr(hooks, "check_alive", None)
        if callable(check) and (force or now - self._last_alive_check >= ALIVE_CHECK_INTERVAL):
            self._last_alive_check = now
            check()

    def _read_back(self) -> None:
        """Read the run's pods back once the scheduler is done: bindings and the
        scheduler-reported ``PodScheduled`` conditions of pending pods, as the API has them
        now. The watch already showed them; anything it missed is recorded (an attempt seen
        at this moment) and said in :attr:`warnings`."""
        rec = self.recorder
        try:
            pods, _ = self.api.list("Pod", label_selector=self.selector)
        except ApiError as e:
            raise SubjectError(f"could not read the pods back: {e.message}") from e
        before = len(rec.attempts)
        now = time.monotonic()
        seen: set[str] = set()
        for obj in pods:
            meta = obj.get("metadata") or {}
            key = self.naming.pod_back(str(meta.get("namespace", "")),
                                       str(meta.get("name", "")))
            if key is None:
                continue
            seen.add(key)
            if not meta.get("deletionTimestamp"):
                rec.on_pod("MODIFIED", obj, now)
        for key, st in rec.states.items():
            if not st.gone and key not in seen and st.uid:
                ns, name = self.naming.pod(key)
                rec.on_pod("DELETED", {"metadata": {"namespace": ns, "name": name}}, now)
                self.warnings.append(f"pod {key}: deleted, but the watch did not show it")
        missed = rec.attempts[before:]
        if missed:
            self.warnings.append(
                "the final read-back found what the watch did not show: "
                + "; ".join(f"{a['pod']} {a['outcome']}" for a in missed))
        if rec.errors:
            self.warnings.append(f"{len(rec.errors)} watch stream(s) broke and were resumed "
                                 f"(the last: {rec.errors[-1]})")

    def _read_allocations(self, bindings: Mapping[str, str], created: Mapping[str, str]
                          ) -> tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, Any]]]:
        """The allocations of the bound pods' claims, with the claims of their extended
        resources backed by DRA, and the pods' ``status.extendedResourceClaimStatus``, read
        from the API after the run (docs/dra.md#results)."""
        try:
            pods, _ = self.api.list("Pod", label_selector=self.selector)
        except ApiError as e:
            raise SubjectError(f"could not read the pods back: {e.message}") from e
        bound: dict[str, dict[str, Any]] = {}
        for obj in pods:
            meta = obj.get("metadata") or {}
            key = self.naming.pod_back(str(meta.get("namespace", "")), str(meta.get("name", "")))
            if key is not None and key in bindings:
                bound[key] = obj
        claims = read_allocations(self.api, bound, created)
        try:
            extended, entries = read_extended_claims(self.api, bound)
        except ApiError as e:
            raise SubjectError(f"could not read the claims of extended resources back: "
                               f"{e.message}") from e
        for key, entry in entries.items():
            claims.setdefault(key, []).append(entry)
        return dict(sorted(claims.items())), extended

    def _release_held(self, plan: Plan) -> None:
        """Shared mode: remove the hold gate pod by pod in queue order, each after the
        previous pod's first attempt was seen (pods the scheduler does not handle, or held by
        their own gates, are released without waiting)."""
        rec = self.recorder
        for pp in sorted(plan.pending, key=lambda pp: -pp.priority):
            ns, name = self.naming.pod(pp.key)
            before = rec.state(pp.key).attempts
            gates = [{"name": g} for g in pp.own_gates]
            self.api.patch("Pod", name, [{"op": "replace", "path": "/spec/schedulingGates",
                                          "value": gates}], ns, patch_type="json")
            if not pp.responsible or pp.own_gates:
                continue
            deadline = time.monotonic() + self.opt.release_timeout
            while rec.state(pp.key).attempts == before and time.monotonic() < deadline:
                self._drain(0.05)

    def _order_by_scheduler_log(self) -> None:
        """Put the observed attempts in the order of the scheduler's cycles when the launcher
        can read its log (see ``scheduler_log.py``: the API shows bindings late). The log is
        read again, for ``DriverOptions.log_wait`` at most, until it has a result for every
        attempt the API showed: a container's log reaches the engine late on a busy
        machine."""
        read = getattr(self._hooks, "scheduler_log", None)
        if not callable(read):
            return
        rec = self.recorder
        deadline = time.monotonic() + self.opt.log_wait
        while True:
            try:
                text = read()
            except Exception as e:  # noqa: BLE001 - a missing log only costs the ordering
                self.warnings.append(f"could not read the scheduler's log to order attempts: "
                                     f"{e}")
                return
            if not text:
                return
            missing = rec.unlogged(text)
            if not missing or time.monotonic() >= deadline:
                break
            time.sleep(0.2)
        if missing:
            self.warnings.append(
                f"the scheduler's log shows fewer results than the API for {len(missing)} "
                f"pod(s) after {self.opt.log_wait:g} s ({', '.join(missing[:5])}"
                f"{' ...' if len(missing) > 5 else ''}): their attempts may keep the order "
                "the API showed them")
        if not rec.order_by_log(text) and any(a["outcome"] != GATED for a in rec.attempts):
            self.warnings.append("the scheduler's log shows no scheduling cycle (is it run "
                                 "with --v=3?): attempts are in the order the API showed them")

    # ----- cleanup -----
    def delete_owned(self, timeout: float = 30.0) -> list[str]:
        """Delete every object labelled with this run; what could not be deleted."""
        return self.objects.delete_owned(timeout)

    def finalize_namespaces(self) -> None:
        """Drop the finalizer of this run's deleted namespaces (no namespace controller)."""
        self.objects.finalize_namespaces()
