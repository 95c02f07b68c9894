"""The Scenario document (``apiVersion: kschedconf/v1``, ``kind: Scenario``): a timeline of
cluster changes for the simulation, checked as a whole before anything runs. See
docs/reference.md#the-scenario-timeline for the format.

An event happens at a virtual time (``at``) or, for ``createPod``, when a pod is bound
(``when: {podBound: NAMESPACE/NAME}``): the StatefulSet controller's ``OrderedReady``
(pkg/controller/statefulset/stateful_set_control.go, ``monotonic``: pod N+1 is created once
pod N is Running and Ready; without a kubelet, "bound").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from reference_impl.model.decoding import (
    TIMELINE,
    InputLocation,
    read_duration,
    read_list,
    read_map,
    read_str,
)
from reference_impl.model.errors import InputError
from reference_impl.model.loader import SCENARIO_API_VERSION, load_documents, read_documents
from reference_impl.model.objects import (
    TAINT_NO_EXECUTE,
    TAINT_NO_SCHEDULE,
    TAINT_PREFER_NO_SCHEDULE,
    Cluster,
    Node,
    Pod,
    Taint,
)
from reference_impl.model.timeline_objects import (
    APPLY_OBJECT,
    DELETE_OBJECT,
    TimelineObject,
    object_key,
    read_delete,
    read_object,
)
from reference_impl.scheduler.clock import parse_duration

SCENARIO_KIND = "Scenario"

CREATE_POD = "createPod"
DELETE_POD = "deletePod"
CREATE_NODE = "createNode"
DELETE_NODE = "deleteNode"
CORDON = "cordon"
UNCORDON = "uncordon"
LABEL_NODE = "labelNode"
TAINT_NODE = "taintNode"
UNTAINT_NODE = "untaintNode"
REMOVE_SCHEDULING_GATES = "removeSchedulingGates"
FINISH_POD = "finishPod"

#: the trigger of an event that has no time: ``when: {podBound: NAMESPACE/NAME}``
WHEN = "when"
POD_BOUND = "podBound"
#: the actions that may have a ``when`` trigger instead of ``at``
TRIGGERABLE = ("createPod",)

# action -> (required fields, optional fields) besides "at" and "action"
ACTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    CREATE_POD: (("pod",), ()),
    DELETE_POD: (("pod",), ()),
    CREATE_NODE: (("node",), ()),
    DELETE_NODE: (("node",), ()),
    CORDON: (("node",), ()),
    UNCORDON: (("node",), ()),
    LABEL_NODE: (("node", "labels"), ()),
    TAINT_NODE: (("node", "taints"), ()),
    UNTAINT_NODE: (("node", "taints"), ()),
    REMOVE_SCHEDULING_GATES: (("pod",), ("gates",)),
    FINISH_POD: (("pod",), ()),
    APPLY_OBJECT: (("object",), ()),
    DELETE_OBJECT: (("kind", "name"), ("namespace",)),
}
_NODE_TARGET = {DELETE_NODE, CORDON, UNCORDON, LABEL_NODE, TAINT_NODE, UNTAINT_NODE}
_POD_TARGET = {DELETE_POD, REMOVE_SCHEDULING_GATES, FINISH_POD}
_EFFECTS = (TAINT_NO_SCHEDULE, TAINT_PREFER_NO_SCHEDULE, TAINT_NO_EXECUTE)


@dataclass(slots=True)
class TimelineEvent:
    """One change of the timeline, parsed. ``at`` is virtual-clock nanoseconds; ``index`` the
    position in ``spec.events``; ``target`` the node name or pod key (namespace/name);
    ``after`` the pod key whose binding triggers the event ("" for a timed event, whose time
    is ``at``; a triggered event has ``at`` 0)."""

    at: int
    action: str
    index: int
    target: str = ""
    pod: Pod | None = None
    node: Node | None = None
    labels: dict[str, str | None] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    untaints: tuple[tuple[str, str], ...] = ()  # (key, effect or "" for every effect)
    gates: tuple[str, ...] | None = None  # removeSchedulingGates: None = all of them
    after: str = ""
    #: applyObject and deleteObject (timeline_objects.py): the object's kind and name
    #: (``NAMESPACE/NAME`` for a ResourceClaim); for applyObject the object as the loader
    #: reads it; ``target`` is ``KIND/NAME``
    kind: str = ""
    name: str = ""
    obj: TimelineObject | None = None


@dataclass(slots=True)
class Scenario:
    """A parsed Scenario: ``events``, the timed events sorted by time (document order within
    a time); ``triggered``, the events a binding triggers, in document order."""

    name: str = ""
    until: int | None = None
    events: list[TimelineEvent] = field(default_factory=list)
    source: str = "<memory>"
    document: int | None = None
    triggered: list[TimelineEvent] = field(default_factory=list)

    def triggered_by(self, pod_key: str) -> list[TimelineEvent]:
        """The events the binding of ``pod_key`` triggers, in document order."""
        return [e for e in self.triggered if e.after == pod_key]


def _name(w: InputLocation, v: object, path: str, what: str) -> str:
    if not isinstance(v, str) or not v:
        raise w.error(path, w.expected(f"the {what} name (a non-empty string)", v, shown=True))
    return v


def _pod_key(w: InputLocation, v: object, path: str) -> str:
    text = _name(w, v, path, "pod")
    ns, sep, name = text.partition("/")
    if not sep:
        return f"default/{text}"
    if not ns or not name or "/" in name:
        raise w.error(path, f"expected NAMESPACE/NAME or NAME, got {text!r}")
    return text


def _priority_class_docs(cluster: Cluster | None) -> list[dict]:
    """The cluster's PriorityClasses as manifests, so inline pods resolve against them."""
    if cluster is None:
        return []
    return [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": pc.name}, "value": pc.value,
             "globalDefault": pc.global_default, "preemptionPolicy": pc.preemption_policy}
            for pc in cluster.priority_classes.values()]


def _manifest(w: InputLocation, v: object, path: str, kind: str, extra: list[dict]) -> Any:
    """Load one inline Pod/Node manifest with the loader; its errors are re-anchored at
    ``path``."""
    doc = dict(read_map(w, v, path, what=f"a {kind} manifest (a mapping)", nullable=False))
    got_kind = doc.setdefault("kind", kind)
    if got_kind != kind:
        raise w.error(f"{path}.kind", f"expected kind {kind}, got {got_kind!r}")
    doc.setdefault("apiVersion", "v1")
    try:
        result = load_documents([doc, *extra], source=w.source, require_known_nodes=False)
    except InputError as e:
        sub = f"{path}.{e.field}" if e.field else path
        msg = f"{e.obj}: {e.message}" if e.obj else e.message
        raise w.error(sub, msg) from None
    objs = result.cluster.pods if kind == "Pod" else result.cluster.nodes
    if len(objs) != 1:
        why = "; ".join(result.warnings) or "nothing was read"
        raise w.error(path, f"expected exactly one {kind}: {why}")
    return objs[0]


def _labels(w: InputLocation, v: object, path: str) -> dict[str, str | None]:
    if not isinstance(v, Mapping) or not v:
        raise w.error(path, "expected a non-empty mapping of label keys to values "
                            "(null removes the label)")
    out: dict[str, str | None] = {}
    for k, val in v.items():
        if not isinstance(k, str) or not k:
            raise w.error(path, f"expected label keys to be non-empty strings, got {k!r}")
        if val is not None and not isinstance(val, str):
            raise w.error(f"{path}[{k}]", w.expected("a string or null", val, shown=True)
                          + " (quote it in YAML)")
        out[k] = val
    return out


def _taint_list(w: InputLocation, v: object, path: str, *,
                removing: bool) -> list[tuple[int, dict]]:
    if isinstance(v, Mapping):
        v = [v]
    if not isinstance(v, list) or not v:
        raise w.error(path, "expected a non-empty list of taints ({key, value, effect})")
    out = []
    allowed = {"key", "value", "effect"}
    for i, t in enumerate(v):
        tpath = f"{path}[{i}]"
        t = read_map(w, t, tpath, what="a taint mapping", nullable=False)
        unknown = sorted(set(t) - allowed)
        if unknown:
            raise w.error(f"{tpath}.{unknown[0]}", "unknown field; a taint has key, value, "
                                                   "effect")
        key = t.get("key")
        if not isinstance(key, str) or not key:
            raise w.error(f"{tpath}.key", "required: a non-empty string")
        value = read_str(w, t.get("value"), f"{tpath}.value")
        effect = t.get("effect")
        if effect is None and removing:
            effect = ""
        elif effect not in _EFFECTS:
            raise w.error(f"{tpath}.effect", f"expected one of {', '.join(_EFFECTS)}, got "
                                             f"{effect!r}")
        out.append((i, {"key": key, "value": value, "effect": effect}))
    return out


def parse_scenario(doc: Mapping[str, Any], cluster: Cluster | None = None, *,
                   source: str = "<memory>", document: int | None = None) -> Scenario:
    """Parse and check a Scenario document against the starting ``cluster`` (without a
    cluster, the targets are not checked and inline pods see no PriorityClasses)."""
    w = InputLocation(source, document, obj="Scenario", phrasing=TIMELINE)
    doc = read_map(w, doc, "", nullable=False)
    if doc.get("apiVersion") != SCENARIO_API_VERSION:
        raise w.error("apiVersion", f"expected {SCENARIO_API_VERSION!r}, got "
                                    f"{doc.get('apiVersion')!r}")
    if doc.get("kind") != SCENARIO_KIND:
        raise w.error("kind", f"expected {SCENARIO_KIND!r}, got {doc.get('kind')!r}")
    # a false value (0, "", [], false) reads as absent
    meta = read_map(w, doc.get("metadata") or None, "metadata")
    name = read_str(w, meta.get("name") or None, "metadata.name")
    if name:
        w.obj = f"Scenario {name}"
    unknown_top = sorted(set(doc) - {"apiVersion", "kind", "metadata", "spec"})
    if unknown_top:
        raise w.error(unknown_top[0], "unknown field (expected apiVersion, kind, metadata, "
                                      "spec)")
    spec = read_map(w, doc.get("spec"), "spec")
    unknown_spec = sorted(set(spec) - {"until", "events"})
    if unknown_spec:
        raise w.error(f"spec.{unknown_spec[0]}", "unknown field (expected until, events)")
    until = None
    if spec.get("until") is not None:
        until = read_duration(w, spec["until"], "spec.until", parse_duration, negative=False)
    raw_events = read_list(w, spec.get("events"), "spec.events", what="a list of events")
    pcs = _priority_class_docs(cluster)
    parsed = [_event(w, e, i, pcs) for i, e in enumerate(raw_events)]
    events = sorted((e for e in parsed if not e.after), key=lambda e: (e.at, e.index))
    triggered = [e for e in parsed if e.after]
    _check_trigger_cycles(w, triggered)
    if cluster is not None:
        _check_triggers(w, parsed, cluster)
        _check_targets(w, events, cluster, {e.target for e in triggered})
    return Scenario(name, until, events, source, document, triggered)


def _event(w: InputLocation, e: object, i: int, pcs: list[dict]) -> TimelineEvent:
    path = f"spec.events[{i}]"
    e = read_map(w, e, path, what="an event mapping", nullable=False)
    action = e.get("action")
    if action not in ACTIONS:
        raise w.error(f"{path}.action", f"expected one of {', '.join(ACTIONS)}, got {action!r}")
    after = ""
    if WHEN in e:
        after = _trigger(w, e, path, action)
    elif "at" not in e:
        raise w.error(f"{path}.at", "required: when the event happens (e.g. 30s, 1m30s, or a "
                                    "number of seconds; or, for createPod, when: {podBound: "
                                    "NAMESPACE/NAME})")
    at = 0 if after else read_duration(w, e["at"], f"{path}.at", parse_duration,
                                       negative=False)
    required, optional = ACTIONS[action]
    allowed = {WHEN if after else "at", "action", *required, *optional}
    for k in e:
        if k not in allowed:
            raise w.error(f"{path}.{k}", f"unknown field for action {action} (expected "
                                         f"{', '.join(sorted(allowed))})")
    for k in required:
        if e.get(k) is None:
            raise w.error(f"{path}.{k}", f"required for action {action}")
    ev = TimelineEvent(at, action, i, after=after)
    if action == CREATE_POD:
        ev.pod = _manifest(w, e["pod"], f"{path}.pod", "Pod", pcs)
        ev.target = ev.pod.key
    elif action == CREATE_NODE:
        ev.node = _manifest(w, e["node"], f"{path}.node", "Node", [])
        ev.target = ev.node.name
    elif action == APPLY_OBJECT:
        ev.kind, ev.name, ev.obj = read_object(w, e["object"], f"{path}.object")
        ev.target = object_key(ev.kind, ev.name)
    elif action == DELETE_OBJECT:
        ev.kind, ev.name = read_delete(w, e, path)
        ev.target = object_key(ev.kind, ev.name)
    elif action in _NODE_TARGET:
        ev.target = _name(w, e["node"], f"{path}.node", "node")
    else:
        ev.target = _pod_key(w, e["pod"], f"{path}.pod")
    if action == LABEL_NODE:
        ev.labels = _labels(w, e["labels"], f"{path}.labels")
    elif action == TAINT_NODE:
        ev.taints = tuple(Taint(t["key"], t["value"], t["effect"])
                          for _, t in _taint_list(w, e["taints"], f"{path}.taints",
                                                  removing=False))
    elif action == UNTAINT_NODE:
        ev.untaints = tuple((t["key"], t["effect"])
                            for _, t in _taint_list(w, e["taints"], f"{path}.taints",
                                                    removing=True))
    elif action == REMOVE_SCHEDULING_GATES and e.get("gates") is not None:
        gates = e["gates"]
        if (not isinstance(gates, list) or not gates
                or not all(isinstance(g, str) and g for g in gates)):
            raise w.error(f"{path}.gates", "expected a non-empty list of gate names (omit it "
                                           "to remove every gate)")
        ev.gates = tuple(gates)
    return ev


def _trigger(w: InputLocation, e: Mapping[str, Any], path: str, action: str) -> str:
    """The pod key of ``when: {podBound: NAMESPACE/NAME}``."""
    wpath = f"{path}.{WHEN}"
    if "at" in e:
        raise w.error(wpath, "give either at (a time) or when (a trigger), not both")
    if action not in TRIGGERABLE:
        raise w.error(wpath, f"only {', '.join(TRIGGERABLE)} events can have a when trigger; "
                             f"give {action} a time (at)")
    when = read_map(w, e[WHEN], wpath, what="a trigger mapping ({podBound: NAMESPACE/NAME})",
                    nullable=False)
    unknown = sorted(set(when) - {POD_BOUND})
    if unknown:
        raise w.error(f"{wpath}.{unknown[0]}", f"unknown trigger (expected {POD_BOUND})")
    if when.get(POD_BOUND) is None:
        raise w.error(f"{wpath}.{POD_BOUND}", "required: the pod (NAMESPACE/NAME or NAME) "
                                              "whose binding creates this one")
    return _pod_key(w, when[POD_BOUND], f"{wpath}.{POD_BOUND}")


def _check_triggers(w: InputLocation, events: list[TimelineEvent], cluster: Cluster) -> None:
    """Each trigger pod is one the scheduler may bind: in the cluster without spec.nodeName,
    or created by a createPod event without one; a triggered pod is created once (it is in
    neither the cluster nor another createPod event)."""
    created: dict[str, list[TimelineEvent]] = {}
    for ev in events:
        if ev.action == CREATE_POD:
            created.setdefault(ev.target, []).append(ev)
    initial = {p.key: p for p in cluster.pods}
    for ev in events:
        if not ev.after:
            continue
        path = f"spec.events[{ev.index}]"
        others = [o for o in created[ev.target] if o is not ev]
        if ev.target in initial or others:
            where = ("is in the cluster" if ev.target in initial else
                     f"is created by spec.events[{others[0].index}] too")
            raise w.error(f"{path}.pod.metadata.name", f"pod {ev.target!r} {where}; a pod a "
                                                       "binding triggers is created once")
        bpath = f"{path}.{WHEN}.{POD_BOUND}"
        trigger = initial.get(ev.after)
        pods = [trigger] if trigger is not None else [
            o.pod for o in created.get(ev.after, ()) if o.pod is not None]
        if not pods:
            raise w.error(bpath, f"pod {ev.after!r} does not exist: it is neither in the "
                                 "cluster nor created by a createPod event")
        if all(p.node_name for p in pods):
            raise w.error(bpath, f"pod {ev.after!r} is bound from the start (spec.nodeName "
                                 f"{pods[0].node_name!r}): the scheduler never binds it, so "
                                 "the trigger would never fire")


def _check_trigger_cycles(w: InputLocation, events: list[TimelineEvent]) -> None:
    """No pod waits, through a chain of triggers, for its own binding."""
    triggered = {ev.target: ev for ev in events}
    for ev in events:
        chain = [ev.target]
        key = ev.after
        while key in triggered:
            if key in chain:
                path = f"spec.events[{ev.index}].{WHEN}.{POD_BOUND}"
                cycle = " -> ".join([*chain[chain.index(key):], key])
                raise w.error(path, f"a cycle of triggers: {cycle} (each pod is created when "
                                    "the next one is bound, so none ever is)")
            chain.append(key)
            key = triggered[key].after


def _check_targets(w: InputLocation, events: list[TimelineEvent], cluster: Cluster,
                   triggered: AbstractSet[str] = frozenset()) -> None:
    """Each target of a timed event exists when its event happens: in the cluster or created
    earlier, and not deleted before (preemption may still delete a pod first; that is skipped
    at run time). A pod a binding creates (``triggered``) may exist at any time: an event on
    it is skipped at run time while it does not."""
    nodes: dict[str, Node] = {n.name: n for n in cluster.nodes}
    pods: dict[str, Pod] = {p.key: p for p in cluster.pods}
    for ev in events:
        path = f"spec.events[{ev.index}]"
        when = f"at {ev.at / 1e9:g}s"
        if ev.action == CREATE_NODE:
            if ev.target in nodes:
                raise w.error(f"{path}.node.metadata.name",
                              f"node {ev.target!r} already exists {when}")
            assert ev.node is not None
            nodes[ev.target] = ev.node
        elif ev.action == CREATE_POD:
            assert ev.pod is not None
            if ev.target in pods:
                raise w.error(f"{path}.pod.metadata.name",
                              f"pod {ev.target!r} already exists {when}")
            if ev.pod.node_name and ev.pod.node_name not in nodes:
                raise w.error(f"{path}.pod.spec.nodeName",
                              f"node {ev.pod.node_name!r} does not exist {when}")
            pods[ev.target] = ev.pod
        elif ev.action in _NODE_TARGET:
            if ev.target not in nodes:
                raise w.error(f"{path}.node", f"node {ev.target!r} does not exist {when} (not "
                                              "in the cluster, or not created by an earlier "
                                              "event, or deleted before)")
            if ev.action == DELETE_NODE:
                del nodes[ev.target]
                for key in [k for k, p in pods.items() if p.node_name == ev.target]:
                    del pods[key]
        elif ev.action in (APPLY_OBJECT, DELETE_OBJECT):
            continue  # a delete of an absent object is skipped at run time
        elif ev.target in triggered and ev.target not in pods:
            continue
        else:
            pod = pods.get(ev.target)
            if pod is None:
                raise w.error(f"{path}.pod", f"pod {ev.target!r} does not exist {when} (not in "
                                             "the cluster, or not created by an earlier "
                                             "event, or deleted before)")
            if ev.action == REMOVE_SCHEDULING_GATES:
                if not pod.scheduling_gates:
                    raise w.error(f"{path}.pod", f"pod {ev.target!r} has no scheduling gates")
                if ev.gates is not None:
                    missing = [g for g in ev.gates if g not in pod.scheduling_gates]
                    if missing:
                        raise w.error(f"{path}.gates", f"pod {ev.target!r} has no gate "
                                                       f"{missing[0]!r} (it has "
                                                       f"{', '.join(pod.scheduling_gates)})")
                remaining = () if ev.gates is None else tuple(
                    g for g in pod.scheduling_gates if g not in ev.gates)
                pods[ev.target] = _with_gates(pod, remaining)
            elif ev.action in (DELETE_POD, FINISH_POD):
                del pods[ev.target]


def _with_gates(pod: Pod, gates: tuple[str, ...]) -> Pod:
    return dataclasses.replace(pod, scheduling_gates=gates)


def find_scenario_documents(paths: Iterable[str]) -> list[tuple[str, int, Any]]:
    """The ``kschedconf/v1`` Scenario documents of the input files (source, number, doc)."""
    return [(src, n, doc) for src, n, doc in read_documents(paths)
            if isinstance(doc, Mapping) and doc.get("apiVersion") == SCENARIO_API_VERSION
            and doc.get("kind") == SCENARIO_KIND]


def load_scenario(paths: Iterable[str], cluster: Cluster | None = None) -> Scenario | None:
    """The one Scenario among the input files (None if there is none)."""
    docs = find_scenario_documents(paths)
    if not docs:
        return None
    if len(docs) > 1:
        src, n, _ = docs[1]
        raise InputError(f"a second Scenario (the first is in {docs[0][0]}, document "
                         f"{docs[0][1]}); expected at most one", source=src, document=n)
    src, n, doc = docs[0]
    return parse_scenario(doc, cluster, source=src, document=n)
