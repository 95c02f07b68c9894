"""The timeline of a ``kschedconf/v1`` Scenario against the API server: the virtual clock
(:class:`VirtualClock`: virtual time from wall-clock time, segment by segment) and
:class:`Timeline`, whose table maps each timeline action to the API calls that perform it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.backends import dra
from conformance.backends.api import ApiError, ClusterApi
from conformance.backends.objects import RunObjects
from conformance.backends.plan import Naming, Plan, Planner, gates_message
from conformance.backends.recorder import Recorder
from conformance.core.subject import SubjectError
from reference_impl.model.scenario import TimelineEvent

NodePatch = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(slots=True)
class PlannedEvent:
    at: int  # virtual nanoseconds
    index: int
    action: str
    target: str
    apply: Callable[[], str | None]  # None when applied, else why it was skipped


class VirtualClock:
    """Virtual seconds from wall-clock (``time.monotonic``) seconds: each applied timeline
    event starts a segment at its virtual time; within a segment virtual time runs at
    1/``time_scale`` but stops just short of the next event's time (it has not happened
    yet)."""

    def __init__(self, time_scale: float) -> None:
        self.time_scale = time_scale
        self.segments: list[tuple[float, int]] = []  # (wall, virtual nanoseconds)
        self.next_event_at: int | None = None  # virtual nanoseconds

    def start(self, wall: float) -> None:
        self.segments = [(wall, 0)]

    def advance(self, wall: float, at: int) -> None:
        """An event at virtual time ``at`` is applied at ``wall``."""
        self.segments.append((wall, at))

    def segment_wall(self) -> float:
        """The wall-clock start of the current segment (now before the start)."""
        return self.segments[-1][0] if self.segments else time.monotonic()

    def due(self, at: int) -> float:
        """The wall-clock time at which virtual time ``at`` comes in the current segment."""
        seg_wall, seg_v = self.segments[-1]
        return seg_wall + (at - seg_v) / 1e9 * self.time_scale

    def virtual(self, wall: float) -> float:
        segs = self.segments
        if not segs or wall < segs[0][0]:
            return 0.0
        i = 0
        while i + 1 < len(segs) and segs[i + 1][0] <= wall:
            i += 1
        seg_wall, seg_v = segs[i]
        v = seg_v / 1e9 + (wall - seg_wall) / self.time_scale
        upper = segs[i + 1][1] if i + 1 < len(segs) else self.next_event_at
        if upper is not None:
            v = min(v, upper / 1e9 - 1e-6)
        return max(v, seg_v / 1e9)


class Timeline:
    """The timeline events of one run as API calls (``reference_impl/model/scenario.py``
    defines the actions), and the state they act on: the nodes as last written, the node of
    each pod created bound, each pod's own scheduling gates, the pods removed and finished."""

    def __init__(self, plan: Plan, *, api: ClusterApi, naming: Naming, planner: Planner,
                 objects: RunObjects, recorder: Recorder, clock: VirtualClock,
                 responsible: dict[str, bool]) -> None:
        self.plan = plan
        self.api = api
        self.naming = naming
        self.planner = planner
        self.objects = objects
        self.recorder = recorder
        self.clock = clock
        self.responsible = responsible
        self.node_state: dict[str, dict[str, Any]] = {
            obj["metadata"]["name"]: obj for obj, _ in plan.nodes}
        self.pod_node: dict[str, str] = {pp.key: pp.manifest["spec"].get("nodeName", "")
                                         for pp in plan.running}
        self.gates: dict[str, tuple[str, ...]] = {pp.key: pp.own_gates for pp in plan.pending}
        self.removed: list[str] = []
        self.finished: list[str] = []
        self.actions: dict[str, Callable[[TimelineEvent], str | None]] = {
            "createNode": self._create_node,
            "deleteNode": self._delete_node,
            "cordon": self._cordon,
            "uncordon": self._cordon,
            "labelNode": self._label_node,
            "taintNode": self._taint_node,
            "untaintNode": self._untaint_node,
            "createPod": self._create_pod,
            "deletePod": self._delete_pod_event,
            "finishPod": self._finish_pod,
            "removeSchedulingGates": self._remove_gates,
            "applyObject": self._apply_object,
            "deleteObject": self._delete_object,
        }
        #: DeviceTaintRules a timeline wrote where the release does not serve them (kept by
        #: name, as the reference and the upstream subject keep them: applied to nothing)
        self.unserved_rules: set[str] = set()

    def events(self) -> list[PlannedEvent]:
        """The plan's timed timeline events, each bound to its handler."""
        timeline = self.plan.timeline
        return [self._planned(ev) for ev in (timeline.events if timeline is not None else [])]

    def triggered(self) -> dict[str, list[PlannedEvent]]:
        """The events a binding triggers (``when: {podBound: ...}``), by the scenario key of
        the pod whose binding triggers them, in document order."""
        out: dict[str, list[PlannedEvent]] = {}
        for ev in self.plan.timeline.triggered if self.plan.timeline is not None else []:
            out.setdefault(ev.after, []).append(self._planned(ev))
        return out

    def _planned(self, ev: TimelineEvent) -> PlannedEvent:
        handler = self.actions.get(ev.action)
        if handler is None:
            raise SubjectError(f"timeline action {ev.action!r} is not supported by this "
                               "backend")
        return PlannedEvent(ev.at, ev.index, ev.action, ev.target,
                            functools.partial(handler, ev))

    def fire_triggers(self, triggered: dict[str, list[PlannedEvent]],
                      applied: list[dict[str, Any]], wall: float) -> bool:
        """Apply the events whose trigger pod the watch has seen bound (once each; removed
        from ``triggered``), at the virtual time of ``wall``: pod by pod in the order the
        watch showed their bindings (the API's order, which a controller sees), each pod's in
        document order. True when some were applied. The reference applies them right after
        the binding attempt (``Simulation._fire_triggers``), so in the order of the bindings;
        here, as soon as the binding is observed (two may be observed at once)."""
        states = self.recorder.states
        bound = sorted((k for k in triggered if (st := states.get(k)) is not None and st.bound),
                       key=lambda k: states[k].bound_seq)
        at = round(self.clock.virtual(wall) * 1e9)
        for key in bound:
            for e in triggered.pop(key):
                applied.append(self.apply(e, at))
        return bool(bound)

    def apply(self, e: PlannedEvent, at: int) -> dict[str, Any]:
        """Apply one event at virtual time ``at``: its entry of the result's timeline."""
        try:
            outcome = e.apply()
        except ApiError as err:
            outcome = f"skipped: the API server refused it: {err.message}"
        self.recorder.changed()
        return {"time": at / 1e9, "index": e.index, "action": e.action, "target": e.target,
                "result": outcome or "applied"}

    def pod_alive(self, key: str) -> bool:
        st = self.recorder.states.get(key)
        if st is not None:
            return not st.gone
        return key in self.responsible

    def delete_pod(self, key: str, into: list[str]) -> None:
        ns, name = self.naming.pod(key)
        self.recorder.expected_deletions.add(key)
        self.api.delete("Pod", name, ns, grace_period_seconds=0)
        self.recorder.state(key).gone = True
        self.pod_node.pop(key, None)
        into.append(key)

    # ----- nodes -----
    def _patch_node(self, target: str, make_patch: NodePatch) -> str | None:
        name = self.naming.node(target)
        cur = self.node_state.get(name)
        if cur is None:
            return "skipped: node not found"
        self.node_state[name] = self.api.patch("Node", name, make_patch(cur))
        return None

    def _create_node(self, ev: TimelineEvent) -> str | None:
        name = self.naming.node(ev.target)
        if name in self.node_state:
            return "skipped: node already exists"
        raw = self.plan.raw_event(ev.index).get("node") or {}
        obj, status = self.planner.node_manifest(raw, ev.target)
        self.objects.create_node(obj, status)
        self.node_state[name] = obj
        return None

    def _delete_node(self, ev: TimelineEvent) -> str | None:
        name = self.naming.node(ev.target)
        if name not in self.node_state:
            return "skipped: node not found"
        self.api.delete("Node", name)
        del self.node_state[name]
        # the pod garbage collector's part: every pod on the node, running from the start or
        # bound since
        on_node = {key for key, node in self.pod_node.items() if node == name}
        on_node |= {key for key, st in self.recorder.states.items() if st.bound == name}
        for key in sorted(on_node):
            if self.pod_alive(key):
                self.delete_pod(key, self.removed)
        return None

    def _cordon(self, ev: TimelineEvent) -> str | None:
        flag = ev.action == "cordon"
        return self._patch_node(ev.target, lambda n: {"spec": {"unschedulable": flag}})

    def _label_node(self, ev: TimelineEvent) -> str | None:
        return self._patch_node(ev.target, lambda n: {"metadata": {"labels": dict(ev.labels)}})

    def _taint_node(self, ev: TimelineEvent) -> str | None:
        def taint(n: dict[str, Any]) -> dict[str, Any]:
            taints = list((n.get("spec") or {}).get("taints") or [])
            for t in ev.taints:
                new = {"key": t.key, "value": t.value, "effect": t.effect}
                if not t.value:
                    new.pop("value")
                for i, old in enumerate(taints):
                    if old.get("key") == t.key and old.get("effect") == t.effect:
                        taints[i] = new
                        break
                else:
                    taints.append(new)
            return {"spec": {"taints": taints}}
        return self._patch_node(ev.target, taint)

    def _untaint_node(self, ev: TimelineEvent) -> str | None:
        def untaint(n: dict[str, Any]) -> dict[str, Any]:
            taints = [t for t in (n.get("spec") or {}).get("taints") or []
                      if not any(t.get("key") == k and (not eff or t.get("effect") == eff)
                                 for k, eff in ev.untaints)]
            return {"spec": {"taints": taints}}
        return self._patch_node(ev.target, untaint)

    # ----- pods -----
    def _create_pod(self, ev: TimelineEvent) -> str | None:
        p = ev.pod
        assert p is not None  # parse_scenario gives every createPod its pod
        st = self.recorder.states.get(p.key)
        if st is not None and not st.gone:
            return "skipped: pod already exists"
        raw = dict(self.plan.raw_event(ev.index).get("pod") or {})
        raw.setdefault("metadata", {})
        pp = self.planner.pod_manifest(raw, p, self.plan)
        if p.node_name and self.naming.node(p.node_name) not in self.node_state:
            return f"skipped: node {p.node_name} not found"
        self.responsible[p.key] = pp.responsible
        if not p.node_name:
            self.recorder.pending_keys.add(p.key)
        self.gates[p.key] = pp.own_gates
        self.objects.create_pod(pp)
        if p.node_name:
            self.pod_node[p.key] = self.naming.node(p.node_name)
        return None

    def _delete_pod_event(self, ev: TimelineEvent) -> str | None:
        if not self.pod_alive(ev.target):
            return "skipped: pod not found"
        self.delete_pod(ev.target, self.removed)
        return None

    def _finish_pod(self, ev: TimelineEvent) -> str | None:
        if not self.pod_alive(ev.target):
            return "skipped: pod not found"
        st = self.recorder.states.get(ev.target)
        if not (st and st.bound) and ev.target not in self.pod_node:
            return "skipped: pod is not running"
        ns, name = self.naming.pod(ev.target)
        self.recorder.expected_deletions.add(ev.target)
        self.api.patch("Pod", name, {"status": {"phase": "Succeeded"}}, ns, status=True)
        self.finished.append(ev.target)
        self.pod_node.pop(ev.target, None)
        self.recorder.state(ev.target).gone = True
        return None

    def _remove_gates(self, ev: TimelineEvent) -> str | None:
        if not self.pod_alive(ev.target):
            return "skipped: pod not found"
        gates = self.gates.get(ev.target, ())
        if not gates:
            return "skipped: pod has no scheduling gates"
        left = () if ev.gates is None else tuple(g for g in gates if g not in ev.gates)
        ns, name = self.naming.pod(ev.target)
        self.api.patch("Pod", name, [{"op": "replace", "path": "/spec/schedulingGates",
                                      "value": [{"name": g} for g in left]}], ns,
                       patch_type="json")
        self.gates[ev.target] = left
        if left and self.responsible.get(ev.target, False):
            # at the event's own virtual time (the start of its segment)
            self.recorder.gated(ev.target, self.clock.segment_wall(), gates_message(left))
        return None

    # ----- objects (reference_impl/model/timeline_objects.py) -----
    def _object_ref(self, kind: str, name: str) -> tuple[str, str | None]:
        """The API name and namespace of the event's ``kind`` object ``name``
        (``NAMESPACE/NAME`` for a ResourceClaim)."""
        if "/" in name:
            ns, _, short = name.partition("/")
            return short, self.naming.ns(ns)
        return name, None

    def _apply_object(self, ev: TimelineEvent) -> str | None:
        """Create the object, or replace the one of that kind and name: its labels,
        annotations and spec (a JSON patch; an immutable field the API server refuses is a
        skipped event), and a claim's status (its allocation)."""
        if ev.kind == "DeviceTaintRule" and not self.planner.taint_rules:
            self.unserved_rules.add(ev.name)
            return None
        raw = dict(self.plan.raw_event(ev.index).get("object") or {})
        planned = self.planner.dra_object(raw)
        meta = planned.manifest["metadata"]
        name, ns = meta["name"], meta.get("namespace")
        if self.api.get(ev.kind, name, ns) is None:
            dra.create(self.api, planned)
            return None
        ops = [{"op": "replace", "path": "/spec", "value": planned.manifest["spec"]}]
        ops += [{"op": "add", "path": f"/metadata/{k}", "value": meta.get(k) or {}}
                for k in ("labels", "annotations")]
        self.api.patch(ev.kind, name, ops, ns, patch_type="json")
        if ev.kind == "ResourceClaim":
            self.api.patch(ev.kind, name, [{"op": "replace", "path": "/status",
                                            "value": planned.status or {}}], ns,
                           patch_type="json", status=True)
        return None

    def _delete_object(self, ev: TimelineEvent) -> str | None:
        if ev.kind == "DeviceTaintRule" and not self.planner.taint_rules:
            if ev.name not in self.unserved_rules:
                return f"skipped: {ev.kind} {ev.name} not found"
            self.unserved_rules.discard(ev.name)
            return None
        name, ns = self._object_ref(ev.kind, ev.name)
        try:
            self.api.delete(ev.kind, name, ns)
        except ApiError as e:
            if e.status == 404:
                return f"skipped: {ev.kind} {ev.name} not found"
            raise
        return None
