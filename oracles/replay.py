"""Replaying a subject's attempts over the initial cluster, to judge each decision "at that time".

:class:`Replay` yields a :class:`Step` per attempt with the :class:`ClusterState` before the
attempt's effects (upstream ``prepareCandidate`` for the nominations a preemption clears);
:func:`timeline_events` turns a ``kschedconf/v1`` Scenario document into
:class:`TimelineEvent` objects applied in between (:func:`triggered_events`: those a binding
triggers, applied right after the attempt that binds their pod).
See docs/oracles.md#judging-at-that-time-the-replay."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from oracles.profiles import ProfileView
from oracles.rules import World
from reference_impl.model.claim_cleanup import pod_claim_names, release_pod_claims
from reference_impl.model.dra import DRAObjects
from reference_impl.model.objects import Cluster, Node, Pod
from reference_impl.model.scenario import parse_scenario
from reference_impl.releases import ReleaseData

BOUND = "Bound"
UNSCHEDULABLE = "Unschedulable"
ERROR = "Error"
GATED = "Gated"
NOMINATED = "Nominated"


@dataclass
class ClusterState:
    """The cluster at one point of the replay. Oracles read it; only the replay changes it."""

    nodes: dict[str, Node]
    pods_on: dict[str, list[Pod]]
    location: dict[str, str]  # bound pod key -> node
    pending: dict[str, Pod]  # pending pod key -> spec
    nominated: dict[str, str]  # pending pod key -> nominated node
    ns_labels: dict[str, dict[str, str]]
    deleted: list[str] = field(default_factory=list)  # victims / deleted pods, in order
    victims_of: dict[str, list[str]] = field(default_factory=dict)  # preemptor -> victims
    #: victims whose deletion may still be in flight: removed by a preemption whose preemptor
    #: has not been attempted again (victim key -> (node, pod)); see ``with_terminating``
    terminating: dict[str, tuple[str, Pod]] = field(default_factory=dict)
    terminating_of: dict[str, list[str]] = field(default_factory=dict)  # preemptor -> victims
    #: victims whose preemptor is being retried: gone from the next attempt on
    expiring: list[str] = field(default_factory=list)
    anomalies: list[tuple[int, str, str]] = field(default_factory=list)  # (attempt, pod, what)
    time: float | None = None
    #: the schedulerNames the scheduler serves (its profiles); None: every pod's
    served: AbstractSet[str] | None = None
    #: whether PreEnqueue may hold a pod back at its add, in a release whose nominator then
    #: does not learn the pod's ``status.nominatedNodeName`` (:meth:`enqueue`); None: the
    #: release learns it whatever PreEnqueue says
    held_back: Callable[[Pod], bool] | None = None
    #: pending pods whose status nomination the nominator has not learned because PreEnqueue
    #: held them back at their add (pod key -> node): an update of the pod teaches it
    #: (:meth:`pod_updated`)
    withheld: dict[str, str] = field(default_factory=dict)
    #: the DRA objects at this point: the cluster's, then as the timeline's applyObject and
    #: deleteObject events leave them (each write makes a new DRAObjects, so a reference kept
    #: at a step stays as it was then)
    dra: DRAObjects = field(default_factory=DRAObjects)
    #: each pod whose claims the resourceclaim controller released, in order: (time, the pod,
    #: the DRA objects before and after)
    released: list[tuple[float | None, Pod, DRAObjects, DRAObjects]] = field(
        default_factory=list)

    @classmethod
    def initial(cls, cluster: Cluster, served: AbstractSet[str] | None = None,
                held_back: Callable[[Pod], bool] | None = None) -> ClusterState:
        """The cluster before any attempt. ``served``: the schedulerNames of the scheduler's
        profiles; only their pending pods' ``status.nominatedNodeName`` is a nomination
        (:meth:`nominates`). ``held_back``: see the field."""
        nodes = {n.name: n for n in cluster.nodes}
        ns = {name: dict(n.labels) for name, n in cluster.namespaces.items()}
        state = cls(nodes, {n: [] for n in nodes}, {}, {}, {}, ns, served=served,
                    held_back=held_back, dra=cluster.dra)
        for p in cluster.pods:
            if p.node_name:
                state.pods_on.setdefault(p.node_name, []).append(p)
                state.location[p.key] = p.node_name
            else:
                state.pending[p.key] = p
                state.enqueue(p)
        return state

    def nominates(self, pod: Pod) -> bool:
        """Whether the scheduler holds the nomination of pending ``pod``'s
        ``status.nominatedNodeName``. Upstream's nominator learns it when the pod enters the
        scheduling queue (``PriorityQueue.addPod`` calls ``nominator.addNominatedPod``,
        pkg/scheduler/backend/queue/scheduling_queue.go), and only the pods a profile serves
        enter the queue (``addPod`` checks ``responsibleForPod``, i.e.
        ``profiles.HandlesSchedulerName``, pkg/scheduler/eventhandlers.go): another
        scheduler's pod reserves nothing, whatever its status says. Neither does a pod being
        deleted, once the queue popped and skipped it (``skipPodSchedule``): the nominator then
        returns a pod with nothing but its name (``nominatedPodToInfo``); as the replay does not
        know when that was, such a nomination is not counted (no false alarm)."""
        return bool(pod.nominated_node_name) and not pod.is_terminating and (
            self.served is None or pod.scheduler_name in self.served)

    def enqueue(self, pod: Pod) -> None:
        """The nominator at the queue's ``Add`` of pending ``pod``: v1.37's ``addPod`` records
        the status nomination of every pod it adds; v1.34.4-v1.36.3 record it in
        ``moveToActiveQ``, only once the pod passed PreEnqueue and entered activeQ (switch
        nominate-gated-pod, ``pkg/scheduler/backend/queue/scheduling_queue.go`` of each
        release). A pod PreEnqueue may hold back there has its nomination ``withheld``."""
        if not self.nominates(pod):
            return
        if self.held_back is not None and self.held_back(pod):
            self.withheld[pod.key] = pod.nominated_node_name
        else:
            self.nominated[pod.key] = pod.nominated_node_name

    def pod_updated(self, key: str) -> None:
        """An update of pending pod ``key``: ``Update`` of a pod in the unschedulable pool
        calls ``UpdateNominatedPod``, which records the new object's status nomination, gated
        or not (``scheduling_queue.go``, ``nominator.go``): a withheld nomination counts."""
        where = self.withheld.pop(key, None)
        if where is not None and key in self.pending:
            self.nominated[key] = where

    # --- reading ---
    def world(self) -> World:
        """The current state as a filter pass sees it (shares this state's lists: use it
        before the replay moves on)."""
        return World(self.nodes, self.pods_on, self.ns_labels)

    def pod(self, key: str) -> Pod | None:
        """The current object of a pod: its pending spec, or its bound copy."""
        p = self.pending.get(key)
        if p is not None:
            return p
        node = self.location.get(key)
        if node is None:
            return None
        for q in self.pods_on.get(node, ()):
            if q.key == key:
                return q
        return None

    def with_terminating(self) -> ClusterState:
        """This state with the victims whose deletion may still be in flight put back on
        their nodes. Upstream actuates preemption asynchronously (SchedulerAsyncPreemption,
        on by default; ``prepareCandidateAsync`` in ``pkg/scheduler/framework/preemption/
        executor.go``): other pods' cycles can run while the victims are still in the
        scheduler's cache, and the preemptor itself is retried only after its preemption
        finished. A subject that deletes victims at once (the reference) never needs it."""
        if not self.terminating:
            return self
        pods_on = {n: list(ps) for n, ps in self.pods_on.items()}
        for node, pod in self.terminating.values():
            pods_on.setdefault(node, []).append(pod)
        return dataclasses.replace(self, pods_on=pods_on)

    def with_terminating_nominations(self) -> ClusterState:
        """This state with the status nominations of pending pods being deleted counted (see
        :meth:`nominates`): until the queue pops and skips such a pod, upstream's nominator
        holds it whole, and pods of equal or lower priority see it on its node."""
        extra = {k: p.nominated_node_name for k, p in self.pending.items()
                 if p.is_terminating and p.nominated_node_name and k not in self.nominated
                 and (self.served is None or p.scheduler_name in self.served)}
        if not extra:
            return self
        return dataclasses.replace(self, nominated={**self.nominated, **extra})

    def bound_pod(self, key: str) -> tuple[str, Pod] | None:
        node = self.location.get(key)
        if node is None:
            return None
        for q in self.pods_on.get(node, ()):
            if q.key == key:
                return node, q
        return None

    def bindings(self) -> dict[str, str]:
        return dict(self.location)

    # --- changing (the replay and timeline events) ---
    def bind(self, key: str, node: str) -> Pod | None:
        spec = self.pending.pop(key, None)
        if spec is None:
            return None
        bound = dataclasses.replace(spec, node_name=node, nominated_node_name="")
        self.pods_on.setdefault(node, []).append(bound)
        self.location[key] = node
        self.nominated.pop(key, None)
        self.withheld.pop(key, None)
        return bound

    def delete_pod(self, key: str, record: bool = True) -> Pod | None:
        """Remove a pod (bound or pending); returns it, or None if unknown. ``record``: list
        it in ``deleted``."""
        self.nominated.pop(key, None)
        self.withheld.pop(key, None)
        spec = self.pending.pop(key, None)
        if spec is None:
            node = self.location.pop(key, None)
            pods = self.pods_on.get(node, []) if node is not None else []
            for i, q in enumerate(pods):
                if q.key == key:
                    spec = pods.pop(i)
                    break
        if spec is not None and record:
            self.deleted.append(key)
        return spec

    def release_claims(self, pod: Pod) -> None:
        """The resourceclaim controller's cleanup after ``pod`` was deleted (a timeline event,
        its node's deletion, or a preemption): its reservations dropped, a claim left without
        consumers deallocated, the claims it owns deleted (``release_pod_claims``: ``syncClaim``
        of pkg/controller/resourceclaim/controller.go, and the garbage collector). Only the
        claims of ``dra`` change: those the scheduler allocated are in the result."""
        if not self.dra.claims or not pod_claim_names(pod, self.dra):
            return
        before = self.dra
        dra = dataclasses.replace(self.dra, claims=dict(self.dra.claims),
                                  allocated_devices=None)
        if release_pod_claims(pod, dra):
            self.dra = dra
        self.released.append((self.time, pod, before, self.dra))

    def add_pod(self, pod: Pod) -> None:
        if pod.node_name:
            self.pods_on.setdefault(pod.node_name, []).append(pod)
            self.location[pod.key] = pod.node_name
        else:
            self.pending[pod.key] = pod
            self.enqueue(pod)
        self.ns_labels.setdefault(pod.namespace,
                                  {"kubernetes.io/metadata.name": pod.namespace})

    def update_pod(self, pod: Pod) -> None:
        was_pending = pod.key in self.pending
        self.delete_pod(pod.key, record=False)
        self.add_pod(pod)
        if was_pending:
            self.pod_updated(pod.key)

    def add_node(self, node: Node) -> None:
        self.nodes[node.name] = node
        self.pods_on.setdefault(node.name, [])

    def update_node(self, node: Node) -> None:
        self.nodes[node.name] = node

    def remove_node(self, name: str) -> None:
        self.nodes.pop(name, None)


@dataclass(slots=True)
class TimelineEvent:
    """Something that happens to the cluster at a virtual time (seconds)."""

    time: float
    description: str
    apply: Callable[[ClusterState], None]
    creates: str | None = None  # the pod key a createPod event adds


@dataclass(slots=True)
class Step:
    """One attempt and the state it was decided in."""

    index: int
    attempt: dict[str, Any]
    pod: Pod | None  # the pod's object at that time (None: unknown to the replay)
    state: ClusterState
    # Victims of a Bound attempt, removed from ``state`` before the step: (node, pod).
    removed: list[tuple[str, Pod]] = field(default_factory=list)
    # Pods that had scheduling gates at some moment of this attempt's instant: before, between
    # or after the timeline events of exactly that time (a subject may record a Gated verdict
    # at queue-add time, before or while the events of the same instant apply).
    gated_this_instant: AbstractSet[str] = frozenset()

    @property
    def key(self) -> str:
        return self.attempt.get("pod", "")

    @property
    def outcome(self) -> str:
        return self.attempt.get("outcome", "")

    @property
    def node(self) -> str | None:
        return self.attempt.get("node")

    @property
    def victims(self) -> list[str]:
        return list(self.attempt.get("victims") or ())

    @property
    def nominated_node(self) -> str | None:
        return self.attempt.get("nominatedNode")


class Replay:
    """Walks a SimulationResult's attempts over the initial cluster
    (docs/oracles.md#judging-at-that-time-the-replay)."""

    def __init__(self, cluster: Cluster, attempts: Sequence[Mapping[str, Any]],
                 events: Iterable[TimelineEvent] = (),
                 served: AbstractSet[str] | None = None,
                 triggered: Mapping[str, Sequence[TimelineEvent]] | None = None,
                 held_back: Callable[[Pod], bool] | None = None) -> None:
        self.cluster = cluster
        self.attempts = [dict(a) for a in attempts]
        self.events = sorted(events, key=lambda e: e.time)
        #: pod key -> the events its first binding triggers (``when: {podBound: ...}``)
        self.triggered = dict(triggered or {})
        self.served = served  # the schedulerNames of the profiles (ClusterState.nominates)
        self.held_back = held_back  # ClusterState.held_back
        self.final: ClusterState | None = None

    @classmethod
    def of(cls, ctx: Any) -> Replay:
        """The replay of an :class:`~oracles.base.OracleContext`, with the profiles of the
        configuration the subject ran and the nominator of the release it ran."""
        return cls(ctx.cluster, ctx.attempts, timeline_events(ctx.timeline, ctx.cluster),
                   served=frozenset(ctx.scheduler.profiles),
                   triggered=triggered_events(ctx.timeline, ctx.cluster),
                   held_back=held_back_at_add(ctx.release, ctx.scheduler.profile_of))

    def __iter__(self) -> Iterator[Step]:
        state = ClusterState.initial(self.cluster, self.served, self.held_back)
        pending_events = list(self.events)
        gated_time: float | None = None
        gated: set[str] = set()
        initial, seen = set(state.pending), set()
        triggered = dict(self.triggered)
        for i, a in enumerate(self.attempts):
            t = a.get("time")
            key = a.get("pod", "")
            outcome = a.get("outcome")
            # the Gated record of a pod of the initial cluster at time 0 is PreEnqueue at its
            # initial add, which comes before the timeline's events at time 0
            initial_add = outcome == GATED and t == 0 and key in initial and key not in seen
            seen.add(key)
            if t is not None:
                while pending_events and pending_events[0].time < t:
                    ev = pending_events.pop(0)
                    state.time = ev.time
                    ev.apply(state)
                if gated_time != t:
                    gated_time, gated = t, _gated_keys(state)
                while not initial_add and pending_events and pending_events[0].time <= t:
                    ev = pending_events.pop(0)
                    state.time = ev.time
                    ev.apply(state)
                    gated |= _gated_keys(state)
                    if outcome == GATED and ev.creates == key:
                        # PreEnqueue at the pod's add: before the later events of that
                        # instant (a deletePod of it among them)
                        break
                state.time = float(t)
            # The preemptor is retried once its preemption's API calls are done, but the
            # scheduler's cache may still hold the victims at that retry (upstream then says
            # "not eligible due to a terminating pod on the nominated node":
            # PodEligibleToPreemptOthers, pkg/scheduler/framework/plugins/defaultpreemption/
            # default_preemption.go): they stay possibly terminating through that attempt
            # and are gone from the next attempt on.
            for v in state.expiring:
                state.terminating.pop(v, None)
            state.expiring = state.terminating_of.pop(key, [])
            removed: list[tuple[str, Pod]] = []
            if outcome == BOUND and a.get("victims"):
                removed = self._remove_victims(state, i, key, a["victims"])
            pod = state.pending.get(key)
            if pod is None and key in state.location:
                state.anomalies.append((i, key, f"attempt for a pod already bound to "
                                                f"{state.location[key]}"))
            elif pod is None:
                state.anomalies.append((i, key, "attempt for a pod unknown to the scenario "
                                                "(or deleted)"))
            yield Step(i, a, pod, state, removed, gated if t is not None else frozenset())
            self._apply(state, i, key, a)
            if outcome == BOUND:
                for ev in triggered.pop(key, ()):
                    ev.apply(state)
        for ev in pending_events:
            state.time = ev.time
            ev.apply(state)
        self.final = state

    def run(self) -> ClusterState:
        """Replay everything; the final state."""
        for _ in self:
            pass
        assert self.final is not None
        return self.final

    # --- effects ---
    @staticmethod
    def _remove_victims(state: ClusterState, i: int, preemptor: str,
                        victims: Sequence[str]) -> list[tuple[str, Pod]]:
        removed = []
        for v in victims:
            where = state.location.get(v)
            gone = state.delete_pod(v)
            if gone is None:
                state.anomalies.append((i, v, f"victim of {preemptor} is not a pod of the "
                                              "cluster at that time"))
            else:
                state.release_claims(gone)
                if where is not None:
                    removed.append((where, gone))
            state.victims_of.setdefault(preemptor, []).append(v)
        return removed

    @staticmethod
    def _clear_lower_nominations(state: ClusterState, preemptor: str, node: str | None) -> None:
        """``prepareCandidate`` (preemption/executor.go): pods nominated to the preemption's
        node with a lower priority than the preemptor lose their nomination."""
        me = state.pending.get(preemptor)
        if me is None or not node:
            return
        for k, n in list(state.nominated.items()):
            p = state.pending.get(k)
            if n == node and k != preemptor and p is not None and p.priority < me.priority:
                del state.nominated[k]

    def _apply(self, state: ClusterState, i: int, key: str, a: Mapping[str, Any]) -> None:
        outcome = a.get("outcome")
        if outcome == BOUND:
            node = a.get("node")
            if not node or node not in state.nodes:
                state.anomalies.append((i, key, f"bound to {node!r}, which is not a node"))
                return
            if key in state.pending:
                if a.get("victims"):
                    self._clear_lower_nominations(state, key, node)
                state.bind(key, node)
            return
        if outcome in (UNSCHEDULABLE, ERROR, NOMINATED):
            if a.get("victims"):
                for node, pod in self._remove_victims(state, i, key, a["victims"]):
                    state.terminating[pod.key] = (node, pod)
                    state.terminating_of.setdefault(key, []).append(pod.key)
                self._clear_lower_nominations(state, key, a.get("nominatedNode"))
            if key in state.pending:
                state.withheld.pop(key, None)
                nnn = a.get("nominatedNode")
                if nnn:
                    state.nominated[key] = nnn
                else:
                    state.nominated.pop(key, None)


#: the in-tree PreEnqueue plugins whose rules :func:`held_back_at_add` restates
KNOWN_PRE_ENQUEUE = frozenset({"SchedulingGates", "DefaultPreemption", "DynamicResources"})


def held_back_at_add(release: ReleaseData, profile_of: Callable[[str], ProfileView | None]
                     ) -> Callable[[Pod], bool] | None:
    """``ClusterState.held_back`` for ``release`` (switch nominate-gated-pod): None where
    ``Add`` records every pod's status nomination (v1.37's ``addPod``), else whether
    PreEnqueue may hold the pod back at its add (``moveToActiveQ`` of v1.34.4-v1.36.3,
    ``pkg/scheduler/backend/queue/scheduling_queue.go``): SchedulingGates holds a pod with
    scheduling gates (``schedulinggates/scheduling_gates.go``); DynamicResources one whose
    claim is missing (``dynamicresources.go`` PreEnqueue, ``foreachPodResourceClaim``), which
    the replay does not know, so every pod with claims; a PreEnqueue plugin not restated here
    any pod. DefaultPreemption holds only a pod whose own preemption is in flight, never at
    its add. A pod that may be held back reserves nothing: no false alarm, at the cost of
    not counting a nomination upstream may hold."""
    if release.behaviour("nominate-gated-pod") == "always":
        return None

    def held_back(pod: Pod) -> bool:
        prof = profile_of(pod.scheduler_name)
        if prof is None:
            return False
        points = prof.points.get("preEnqueue", ())
        return (any(p not in KNOWN_PRE_ENQUEUE for p in points)
                or (bool(pod.scheduling_gates) and "SchedulingGates" in points)
                or (bool(pod.resource_claim_sources) and "DynamicResources" in points))

    return held_back


def _gated_keys(state: ClusterState) -> set[str]:
    return {k for k, p in state.pending.items() if p.scheduling_gates}


def timeline_events(scenario_doc: Mapping[str, Any] | None, cluster: Cluster
                    ) -> list[TimelineEvent]:
    """The timeline of a ``kschedconf/v1`` Scenario document as replay events.

    The document is parsed by the model layer (``reference_impl/model/scenario.py``:
    ``parse_scenario``); what each action does to the cluster is restated here from the
    Scenario format: ``createPod``/``createNode`` add the object (skipped if it exists),
    ``deletePod`` removes a pending or running pod, ``finishPod`` a running one,
    ``deleteNode`` removes the node and the pods running on it, ``cordon``/``uncordon`` set
    ``spec.unschedulable``, ``labelNode`` sets labels (null removes), ``taintNode`` adds taints
    (replacing one with the same key and effect), ``untaintNode`` removes the taints with that
    key (and effect, when given), ``removeSchedulingGates`` drops the named gates (all when none
    are named), ``applyObject`` creates or replaces the DRA object of that kind and name and
    ``deleteObject`` removes it (``ClusterState.dra``). Events whose target is gone are
    skipped. Events after ``spec.until`` are left
    out: the run stops there and never applies them (``Simulation.run``).
    """
    if not scenario_doc:
        return []
    parsed = parse_scenario(scenario_doc, cluster)
    return [TimelineEvent(te.at / 1e9, f"{te.action} {te.target}", _applier(te),
                          te.target if te.action == "createPod" else None)
            for te in parsed.events if parsed.until is None or te.at <= parsed.until]


def triggered_events(scenario_doc: Mapping[str, Any] | None, cluster: Cluster
                     ) -> dict[str, list[TimelineEvent]]:
    """The events of a Scenario document that a binding triggers (``when: {podBound:
    NAMESPACE/NAME}``), by trigger pod key: each applies once, right after the attempt that
    first binds that pod, as every runner applies them (``Simulation._fire_triggers``). Their
    ``time`` is 0: the attempt's time is theirs."""
    if not scenario_doc:
        return {}
    out: dict[str, list[TimelineEvent]] = {}
    for te in parse_scenario(scenario_doc, cluster).triggered:
        out.setdefault(te.after, []).append(
            TimelineEvent(0.0, f"{te.action} {te.target}", _applier(te)))
    return out


def _applier(te: Any) -> Callable[[ClusterState], None]:
    action, target = te.action, te.target

    def apply(state: ClusterState) -> None:
        if action == "createPod":
            if te.pod.key not in state.pending and te.pod.key not in state.location and (
                    not te.pod.node_name or te.pod.node_name in state.nodes):
                state.add_pod(te.pod)
        elif action == "deletePod":
            gone = state.delete_pod(target, record=False)
            if gone is not None:
                state.release_claims(gone)
        elif action == "finishPod":
            if target in state.location:
                gone = state.delete_pod(target, record=False)
                if gone is not None:  # a finished pod is deleted too (Simulation.finishPod)
                    state.release_claims(gone)
        elif action == "createNode":
            if target not in state.nodes:
                state.add_node(te.node)
        elif action == "deleteNode":
            if target in state.nodes:
                for p in list(state.pods_on.get(target, ())):
                    state.delete_pod(p.key, record=False)
                    state.release_claims(p)
                state.remove_node(target)
        elif action == "removeSchedulingGates":
            pod = state.pending.get(target)
            if pod is not None and pod.scheduling_gates:
                gates = () if te.gates is None else tuple(
                    g for g in pod.scheduling_gates if g not in te.gates)
                state.pending[target] = dataclasses.replace(pod, scheduling_gates=gates)
                state.pod_updated(target)
        elif action in ("applyObject", "deleteObject"):
            state.dra = written_dra(state.dra, te.kind, te.name, te.obj)
        elif target in state.nodes:
            node = state.nodes[target]
            state.update_node(_changed_node(node, te))

    return apply


def written_dra(dra: DRAObjects, kind: str, name: str, obj: Any) -> DRAObjects:
    """A copy of ``dra`` with the ``kind`` object ``name`` replaced by ``obj`` (added at the end
    when there is none; removed when ``obj`` is None). Restated from the Scenario format rather
    than taken from the reference's ``scheduler/object_writes.py``, so that a mutant there
    does not reach the oracles."""
    out = dataclasses.replace(dra, device_classes=dict(dra.device_classes),
                              claims=dict(dra.claims), slices=list(dra.slices),
                              taint_rules=list(dra.taint_rules))
    if kind in ("DeviceClass", "ResourceClaim"):  # a claim's name: NAMESPACE/NAME
        by_name: dict[str, Any] = (out.device_classes if kind == "DeviceClass"
                                   else out.claims)
        by_name.pop(name, None)
        if obj is not None:
            by_name[name] = obj
        return out
    objs: list[Any] = out.slices if kind == "ResourceSlice" else out.taint_rules
    at = next((i for i, o in enumerate(objs) if o.name == name), None)
    if obj is None:
        if at is not None:
            del objs[at]
    elif at is None:
        objs.append(obj)
    else:
        objs[at] = obj
    return out


def _changed_node(node: Node, te: Any) -> Node:
    if te.action in ("cordon", "uncordon"):
        return dataclasses.replace(node, unschedulable=te.action == "cordon")
    if te.action == "labelNode":
        labels = dict(node.labels)
        for k, v in te.labels.items():
            if v is None:
                labels.pop(k, None)
            else:
                labels[k] = v
        return dataclasses.replace(node, labels=labels)
    if te.action == "taintNode":
        taints = list(node.taints)
        for t in te.taints:
            same = [i for i, o in enumerate(taints) if o.key == t.key and o.effect == t.effect]
            if same:
                taints[same[0]] = t
            else:
                taints.append(t)
        return dataclasses.replace(node, taints=tuple(taints))
    if te.action == "untaintNode":
        return dataclasses.replace(node, taints=tuple(
            t for t in node.taints
            if not any(t.key == k and (not e or t.effect == e) for k, e in te.untaints)))
    return node
