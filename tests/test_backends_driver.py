"""The control-plane driver (conformance/backends/driver.py and the modules it ties together)
against an in-memory API server.

``FakeApi`` implements the driver's ``ClusterApi`` (create / get / patch / delete / list / watch
/ finalize) over dicts, with resourceVersions, label and field selectors, watch streams, the
``SchedulingGated`` condition the API server adds to gated pods, and a log of every call. A
``FakeScheduler`` plays kube-scheduler through the same API (binds pods, writes
``PodScheduled=False`` conditions, preempts: DisruptionTarget condition, delete, ``Preempted``
event), so the driver's plan, object creation, watch-based reconstruction of attempts, timeline,
quiescence and cleanup are checked without a network.
"""

from __future__ import annotations

import copy
import itertools
import json
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.backends.api import ApiError
from conformance.backends.control_plane import (
    SchedulerState,
    parse_metrics,
    parse_scheduler_state,
    scheduler_config,
)
from conformance.backends.driver import MAX_WATCH_FAILURES, Driver, DriverOptions
from conformance.backends.kubeconfig import CLUSTER_DEFAULT_CONFIG, KubeconfigSubject
from conformance.backends.plan import (
    HOLD_GATE,
    RUN_LABEL,
    TERMINATING_FINALIZER,
    Naming,
    profile_scheduler_names,
)
from conformance.backends.recorder import Recorder
from conformance.backends.timeline import Timeline, VirtualClock
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioTimedOut, ScenarioUnsupported, SubjectError
from reference_impl.testing.wrappers import (
    make_container,
    make_node,
    make_pod,
    make_priority_class,
    make_replica_set,
    make_replication_controller,
    make_service,
    make_stateful_set,
    make_timeline,
)

# --- the fake API server -------------------------------------------------------------------------

NAMESPACED = {"Pod", "PodDisruptionBudget", "Event", "Service", "ReplicationController",
              "ReplicaSet", "StatefulSet"}


def _merge(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = _merge(out.get(k), v)
    return out


def _selector_match(sel: str | None, labels: dict[str, str]) -> bool:
    if not sel:
        return True
    for part in sel.split(","):
        k, _, v = part.partition("=")
        if labels.get(k) != v:
            return False
    return True


def _field_match(sel: str | None, obj: dict[str, Any]) -> bool:
    if not sel:
        return True
    for part in sel.split(","):
        k, _, v = part.partition("=")
        if str(obj.get(k)) != v:
            return False
    return True


class FakeApi:
    def __init__(self) -> None:
        self.objects: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.rv = itertools.count(100)
        self.uids = itertools.count(1)
        self.calls: list[tuple[str, ...]] = []
        self.watchers: list[tuple[str, str | None, str | None, queue.Queue[Any]]] = []
        self.history: list[tuple[int, str, str, dict[str, Any]]] = []  # (rv, kind, type, obj)
        self.lock = threading.RLock()
        self.refuse: Callable[[str, dict[str, Any]], str | None] = lambda kind, obj: None
        for ns in ("default", "kube-system"):
            self.objects[("Namespace", "", ns)] = {
                "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns},
                             "uid": f"ns-{ns}", "resourceVersion": "1"}}

    # helpers
    def _key(self, kind: str, name: str, ns: str | None) -> tuple[str, str, str]:
        return (kind, (ns or "default") if kind in NAMESPACED else "", name)

    def _emit(self, kind: str, typ: str, obj: dict[str, Any]) -> None:
        self.history.append((int(obj["metadata"]["resourceVersion"]), kind, typ,
                             copy.deepcopy(obj)))
        for wkind, lsel, fsel, q in list(self.watchers):
            if wkind == kind and _selector_match(lsel, obj["metadata"].get("labels") or {}) \
                    and _field_match(fsel, obj):
                q.put((typ, copy.deepcopy(obj)))

    def _store(self, kind: str, obj: dict[str, Any], typ: str) -> dict[str, Any]:
        obj["metadata"]["resourceVersion"] = str(next(self.rv))
        m = obj["metadata"]
        self.objects[self._key(kind, m["name"], m.get("namespace"))] = obj
        self._emit(kind, typ, obj)
        return copy.deepcopy(obj)

    # ClusterApi
    def create(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            obj = copy.deepcopy(obj)
            m = obj.setdefault("metadata", {})
            self.calls.append(("create", kind, m.get("namespace", ""), m.get("name", "")))
            why = self.refuse(kind, obj)
            if why:
                raise ApiError(422, why)
            if kind in NAMESPACED:
                m.setdefault("namespace", "default")
                if ("Namespace", "", m["namespace"]) not in self.objects:
                    raise ApiError(404, f'namespaces "{m["namespace"]}" not found')
            key = self._key(kind, m["name"], m.get("namespace"))
            if key in self.objects:
                raise ApiError(409, f'{kind} "{m["name"]}" already exists')
            m["uid"] = f"uid-{next(self.uids)}"
            if kind == "Namespace":
                m.setdefault("labels", {})["kubernetes.io/metadata.name"] = m["name"]
            if kind == "Pod":
                st = obj.setdefault("status", {})
                st["phase"] = "Pending"
                if obj.get("spec", {}).get("schedulingGates"):
                    st["conditions"] = [{"type": "PodScheduled", "status": "False",
                                         "reason": "SchedulingGated",
                                         "message": "Scheduling is blocked due to non-empty "
                                                    "scheduling gates"}]
            return self._store(kind, obj, "ADDED")

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        with self.lock:
            o = self.objects.get(self._key(kind, name, namespace))
            return copy.deepcopy(o) if o is not None else None

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, *,
              status: bool = False, patch_type: str = "merge") -> dict[str, Any]:
        with self.lock:
            self.calls.append(("patch", kind, namespace or "", name,
                               "status" if status else "", json.dumps(patch, sort_keys=True)))
            key = self._key(kind, name, namespace)
            obj = self.objects.get(key)
            if obj is None:
                raise ApiError(404, f'{kind} "{name}" not found')
            if patch_type == "json":
                obj = copy.deepcopy(obj)
                for op in patch:
                    assert op["op"] == "replace"
                    parts = op["path"].strip("/").split("/")
                    cur = obj
                    for p in parts[:-1]:
                        cur = cur.setdefault(p, {})
                    cur[parts[-1]] = copy.deepcopy(op["value"])
            else:
                obj = _merge(obj, patch)
            return self._store(kind, obj, "MODIFIED")

    def delete(self, kind: str, name: str, namespace: str | None = None,
               grace_period_seconds: int | None = 0) -> bool:
        with self.lock:
            self.calls.append(("delete", kind, namespace or "", name))
            key = self._key(kind, name, namespace)
            obj = self.objects.pop(key, None)
            if obj is None:
                return False
            obj["metadata"]["resourceVersion"] = str(next(self.rv))
            self._emit(kind, "DELETED", obj)
            return True

    def list(self, kind: str, *, label_selector: str | None = None,
             field_selector: str | None = None) -> tuple[list[dict[str, Any]], str]:
        with self.lock:
            items = [copy.deepcopy(o) for (k, _, _), o in sorted(self.objects.items())
                     if k == kind and _selector_match(label_selector,
                                                      o["metadata"].get("labels") or {})
                     and _field_match(field_selector, o)]
            return items, str(next(self.rv))

    def watch(self, kind: str, sink: Any, stop: threading.Event, *, resource_version: str,
              label_selector: str | None = None, field_selector: str | None = None) -> None:
        q: queue.Queue[Any] = queue.Queue()
        entry = (kind, label_selector, field_selector, q)
        with self.lock:  # changes after resource_version first, as the API server does
            for rv, k, typ, obj in self.history:
                if rv > int(resource_version) and k == kind and _selector_match(
                        label_selector, obj["metadata"].get("labels") or {}) and \
                        _field_match(field_selector, obj):
                    q.put((typ, copy.deepcopy(obj)))
            self.watchers.append(entry)
        try:
            while not stop.is_set():
                try:
                    typ, obj = q.get(timeout=0.02)
                except queue.Empty:
                    continue
                sink(typ, obj)
        finally:
            with self.lock:
                self.watchers.remove(entry)

    def finalize_namespace(self, name: str) -> None:
        self.calls.append(("finalize", "Namespace", "", name))

    # inspection
    def names(self, kind: str) -> list[str]:
        return sorted(n for (k, _, n) in self.objects if k == kind)

    def pods(self) -> dict[str, dict[str, Any]]:
        return {f"{ns}/{n}": o for (k, ns, n), o in self.objects.items() if k == "Pod"}


class FakeScheduler:
    """Plays kube-scheduler through the fake API: ``script(api, sched)`` runs in a thread
    when the driver starts the scheduler."""

    def __init__(self, api: FakeApi, script: Callable[[FakeApi, FakeScheduler], None]) -> None:
        self.api = api
        self.script = script
        self.configs: list[Any] = []
        self.done = threading.Event()
        self.stopped = 0
        self.started_with: list[str] = []
        self.bound = 0  # bindings made (scheduler_schedule_attempts_total{result="scheduled"})

    def start_scheduler(self, config: dict[str, Any] | None) -> None:
        self.configs.append(config)
        self.started_with = sorted(self.api.pods())

        def go() -> None:
            try:
                self.script(self.api, self)
            finally:
                self.done.set()
        threading.Thread(target=go, daemon=True).start()

    def stop_scheduler(self) -> None:
        self.stopped += 1

    def scheduler_state(self) -> SchedulerState | None:
        return SchedulerState(queues={"active": 0.0 if self.done.is_set() else 1.0,
                                      "backoff": 0.0}, scheduled=float(self.bound))

    # what a scheduler does
    def bind(self, ns: str, name: str, node: str) -> None:
        self.bound += 1
        self.api.patch("Pod", name, {"spec": {"nodeName": node}, "status": {"conditions": [
            {"type": "PodScheduled", "status": "True"}]}}, ns)

    def fail(self, ns: str, name: str, message: str, nominated: str | None = None,
             reason: str = "Unschedulable") -> None:
        st: dict[str, Any] = {"conditions": [{"type": "PodScheduled", "status": "False",
                                              "reason": reason, "message": message}]}
        if nominated is not None:
            st["nominatedNodeName"] = nominated
        self.api.patch("Pod", name, {"status": st}, ns, status=True)

    def preempt(self, victim_ns: str, victim: str, preemptor_ns: str, preemptor: str,
                node: str, event: bool = True) -> None:
        self.api.patch("Pod", victim, {"status": {"conditions": [
            {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
             "message": "default-scheduler: preempting to accommodate a higher priority pod"}]}},
            victim_ns, status=True)
        pre = self.api.get("Pod", preemptor, preemptor_ns)
        assert pre is not None
        if event:
            self.api.create("Event", {"metadata": {"name": f"{victim}.1", "namespace": victim_ns},
                                      "reason": "Preempted",
                                      "involvedObject": {"kind": "Pod", "namespace": victim_ns,
                                                         "name": victim},
                                      "related": {"kind": "Pod", "namespace": preemptor_ns,
                                                  "name": preemptor,
                                                  "uid": pre["metadata"]["uid"]},
                                      "message": f"Preempted by pod {pre['metadata']['uid']} "
                                                 f"on node {node}"})
        self.api.delete("Pod", victim, victim_ns)


# --- scenario builders ---------------------------------------------------------------------------

def node(name: str, cpu: str = "4", **labels: str) -> dict[str, Any]:
    """A node with only status.capacity (allocatable defaults to it)."""
    return make_node(name).hostname().labels(labels).status(
        capacity={"cpu": cpu, "memory": "8Gi", "pods": "110"}).manifest()


def pod(name: str, cpu: str = "1", ns: str = "default", **spec: Any) -> dict[str, Any]:
    """A pod labelled app=<name> with one container "c" requesting ``cpu``; ``spec`` fields as
    given (``status`` and ``ownerReferences`` go to their places)."""
    status = spec.pop("status", None)
    p = make_pod(name).namespace(ns).label("app", name)
    if "ownerReferences" in spec:
        p.meta(ownerReferences=spec.pop("ownerReferences"))
    p.container(make_container("c").requests(cpu=cpu)).spec(**spec)
    return (p.status(**status) if status else p).manifest()


def pclass(name: str, value: int, *, never: bool = False,
           global_default: bool = False) -> dict[str, Any]:
    pc = make_priority_class(name, value)
    if never:
        pc.preemption_policy("Never")
    return (pc.global_default() if global_default else pc).manifest()


def timeline(*events: dict[str, Any], until: str | None = None) -> dict[str, Any]:
    t = make_timeline(*events)
    return (t.until(until) if until else t).manifest()


def scenario(*docs: dict[str, Any], config: dict[str, Any] | None = None,
             seed: int = 7) -> ScenarioInput:
    return ScenarioInput(list(docs), config, seed, "t")


def opts(**kw: Any) -> DriverOptions:
    base: dict[str, Any] = {"run_id": "ks-test", "settle": 0.05, "timeout": 10.0, "grace": 1.0,
                            "time_scale": 0.01}
    base.update(kw)
    return DriverOptions(**base)


def run(docs: list[dict[str, Any]], script: Callable[[FakeApi, FakeScheduler], None], *,
        api: FakeApi | None = None, **kw: Any) -> tuple[dict[str, Any], FakeApi, Driver,
                                                       FakeScheduler]:
    api = api or FakeApi()
    sched = FakeScheduler(api, script)
    d = Driver(api, opts(**kw))
    doc = d.run(scenario(*docs), hooks=sched)
    return doc, api, d, sched


# --- the plan ------------------------------------------------------------------------------------

def test_plan_owned_mode_manifests() -> None:
    api = FakeApi()
    d = Driver(api, opts())
    plan = d.plan(scenario(
        pclass("high", 1000, never=True),
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team",
                                                               "labels": {"env": "prod"}}},
        node("b"), node("a"),
        pod("run", nodeName="b", status={"phase": "Running",
                                         "startTime": "2024-01-01T00:00:00Z"}),
        pod("p", priorityClassName="high", ns="team"),
        pod("explicit", priority=5,
            ownerReferences=[{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
                              "uid": "u1", "controller": True}]),
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
         "metadata": {"name": "pdb", "namespace": "team"},
         "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "p"}}},
         "status": {"disruptionsAllowed": 2}}))
    # nodes not in name order: renamed so that the API's name order is the input order
    assert [o["metadata"]["name"] for o, _ in plan.nodes] == ["n000-b", "n001-a"]
    assert d.naming.node_back("n000-b") == "b"
    assert any("node names" in w for w in d.warnings)
    # every object labelled with the run
    for obj in [*plan.namespaces, *plan.priority_classes, *(o for o, _ in plan.nodes),
                *(pp.manifest for pp in plan.running + plan.pending)]:
        assert obj["metadata"]["labels"][RUN_LABEL] == "ks-test"
    # allocatable defaults to capacity (SetDefaults_NodeStatus)
    assert plan.nodes[0][0]["status"]["allocatable"]["cpu"] == "4"
    running = plan.running[0]
    assert running.manifest["spec"]["nodeName"] == "n000-b"
    assert running.status == {"phase": "Running", "startTime": "2024-01-01T00:00:00Z"}
    pend = {pp.key: pp for pp in plan.pending}
    p = pend["team/p"].manifest
    assert p["spec"]["priority"] == 1000 and p["spec"]["preemptionPolicy"] == "Never"
    assert p["spec"]["terminationGracePeriodSeconds"] == 0
    assert p["spec"]["containers"][0]["image"] == "registry.k8s.io/pause:3.10"
    e = pend["default/explicit"].manifest
    assert e["spec"]["priority"] == 5 and e["spec"]["preemptionPolicy"] == "PreemptLowerPriority"
    assert e["metadata"]["ownerReferences"][0]["name"] == "rs"  # kept: no garbage collector
    (pdb, pdb_status), = plan.pdbs
    assert pdb["metadata"]["namespace"] == "team"
    assert pdb_status == {"disruptionsAllowed": 2, "currentHealthy": 0, "desiredHealthy": 0,
                          "expectedPods": 0}
    ns = {n["metadata"]["name"]: n for n in plan.namespaces}
    assert ns["team"]["metadata"]["labels"] == {"env": "prod", RUN_LABEL: "ks-test"}


def test_plan_creates_services_and_controllers_before_the_pods() -> None:
    """PodTopologySpread's default selector (helper.DefaultSelector) lists Services and the
    RC/RS/StatefulSet owning a pod: they are created before the nodes and pods, controllers
    with 0 replicas and a pause template matching their selector (nothing may create pods)."""
    docs = [node("n1"),
            make_service("web").namespace("team").selector({"app": "web"}).manifest(),
            make_service("external").selector(None).manifest(),
            make_replica_set("web-rs").namespace("team").selector(
                {"app": "web"}, ("track", "In", ["stable"]), ("canary", "DoesNotExist")
            ).manifest(),
            make_replication_controller("rc").selector({"app": "old"}).manifest(),
            make_stateful_set("db").selector({"app": "db"})
            .template(make_pod("").label("app", "db").label("tier", "data")).manifest(),
            pod("p", ns="team")]
    plan = Driver(FakeApi(), opts()).plan(scenario(*docs))
    got = {(k, o["metadata"]["namespace"], o["metadata"]["name"]): o for k, o in plan.selecting}
    assert list(got) == [("Service", "team", "web"), ("Service", "default", "external"),
                         ("ReplicationController", "default", "rc"),
                         ("ReplicaSet", "team", "web-rs"), ("StatefulSet", "default", "db")]
    for obj in got.values():
        assert obj["metadata"]["labels"][RUN_LABEL] == "ks-test"
    assert got["Service", "team", "web"]["spec"]["selector"] == {"app": "web"}
    assert "selector" not in got["Service", "default", "external"]["spec"]
    rs = got["ReplicaSet", "team", "web-rs"]["spec"]
    assert rs["replicas"] == 0
    assert rs["template"]["metadata"]["labels"] == {"app": "web", "track": "stable"}
    assert got["ReplicationController", "default", "rc"]["spec"]["selector"] == {"app": "old"}
    ss = got["StatefulSet", "default", "db"]["spec"]
    assert ss["template"]["metadata"]["labels"] == {"app": "db", "tier": "data"}

    _, api, _, _ = run(docs, lambda api, s: s.bind("team", "p", "n1"))
    created = [c[1] for c in api.calls if c[0] == "create"]
    assert created.index("StatefulSet") < created.index("Node") < created.index("Pod")


def test_plan_on_a_shared_cluster_creates_services_but_not_controllers() -> None:
    d = Driver(FakeApi(), opts(mode="shared", namespace_prefix="ks-test-",
                               node_prefix="ks-test-", rename_for_order=False))
    plan = d.plan(scenario(node("n1"), make_service("web").selector({"app": "w"}).manifest(),
                           make_replica_set("rs").selector({"app": "w"}).manifest(), pod("p")))
    assert [(k, o["metadata"]["namespace"]) for k, o in plan.selecting] == [
        ("Service", "ks-test-default")]
    assert any("1 ReplicationController/ReplicaSet/StatefulSet object(s) not created" in w
               for w in d.warnings)


def test_plan_renames_pending_pods_only_when_their_names_are_out_of_queue_order() -> None:
    d = Driver(FakeApi(), opts())
    plan = d.plan(scenario(node("n1"), *[pod(f"p-{i}") for i in (0, 1, 2)]))
    assert [pp.manifest["metadata"]["name"] for pp in plan.pending] == ["p-0", "p-1", "p-2"]
    d = Driver(FakeApi(), opts())
    plan = d.plan(scenario(node("n1"), *[pod(f"p-{i}") for i in (9, 10, 11)]))
    assert not d.warnings
    # "p-10" < "p-9" by name: the namespace's pending pods get rank prefixes
    assert [pp.manifest["metadata"]["name"] for pp in plan.pending] == [
        "q000-p-9", "q001-p-10", "q002-p-11"]
    assert d.naming.pod_back("default", "q001-p-10") == "default/p-10"
    # creationTimestamp decides the queue order before input order
    d = Driver(FakeApi(), opts())
    b = pod("b")
    b["metadata"]["creationTimestamp"] = "2024-01-01T00:00:00Z"
    a = pod("a")
    a["metadata"]["creationTimestamp"] = "2024-01-02T00:00:00Z"
    plan = d.plan(scenario(node("n1"), a, b))
    assert [pp.key for pp in plan.pending] == ["default/b", "default/a"]
    assert [pp.manifest["metadata"]["name"] for pp in plan.pending] == ["q000-b", "q001-a"]


def test_plan_orders_namespaces_and_warns_about_interleaved_pods() -> None:
    # zz's pod comes first: namespaces renamed in the order of their first pending pod
    d = Driver(FakeApi(), opts())
    plan = d.plan(scenario(node("n1"), pod("x", ns="zz"), pod("y", ns="aa"),
                           pod("z", ns="zz")))
    assert d.naming.namespaces == {"zz": "s0-zz", "aa": "s1-aa"}
    assert {n["metadata"]["name"] for n in plan.namespaces} >= {"s0-zz", "s1-aa"}
    # ... but zz/z after aa/y cannot be: a warning
    assert [w for w in d.warnings if "same priority" in w] == [
        "pending pods default/y and default/z have the same priority but the scheduler "
        "queues default/z first (it receives pods namespace by namespace); their order may "
        "differ from the reference's".replace("default/y", "aa/y").replace("default/z",
                                                                         "zz/z")]
    d = Driver(FakeApi(), opts())
    d.plan(scenario(node("n1"), pod("x", ns="aa"), pod("y", ns="zz")))
    assert not d.warnings and d.naming.namespaces["aa"] == "aa"
    # different priorities: their order is the priorities', names stay
    d = Driver(FakeApi(), opts())
    d.plan(scenario(pclass("hi", 5), node("n1"), pod("x", ns="zz", priorityClassName="hi"),
                    pod("y", ns="aa")))
    assert not d.warnings and d.naming.namespaces["zz"] == "zz"


def test_plan_shared_mode_maps_names_and_leaves_priority_to_admission() -> None:
    d = Driver(FakeApi(), opts(mode="shared", namespace_prefix="ks-test-",
                               node_prefix="ks-test-", rename_for_order=False))
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["b"]}]}]}},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "h",
            "namespaces": ["team"],
            "namespaceSelector": {"matchExpressions": [
                {"key": "kubernetes.io/metadata.name", "operator": "In",
                 "values": ["default"]}]}}]}}
    plan = d.plan(scenario(
        pclass("high", 1000), pclass("usual", 50, global_default=True), node("b"), node("a"),
        pod("classed", priorityClassName="high"), pod("plain"),
        pod("same", priorityClassName="high", priority=1000),
        pod("odd", priority=7, affinity=affinity,
            ownerReferences=[{"apiVersion": "v1", "kind": "ReplicationController",
                              "name": "rc", "uid": "u"}])))
    assert [o["metadata"]["name"] for o, _ in plan.nodes] == ["ks-test-b", "ks-test-a"]
    pend = {pp.key: pp.manifest for pp in plan.pending}
    assert pend["default/classed"]["metadata"]["namespace"] == "ks-test-default"
    # the cluster's own classes (a "high" may exist there) and its global default never
    # decide: every pod names a class of this run with the priority the reference resolved
    assert "priority" not in pend["default/classed"]["spec"]
    assert pend["default/classed"]["spec"]["priorityClassName"] == \
        pend["default/same"]["spec"]["priorityClassName"] == "ks-test-p1000-preemptlowerpriority"
    assert pend["default/plain"]["spec"]["priorityClassName"] == "ks-test-p50-preemptlowerpriority"
    assert sorted(pc["metadata"]["name"] for pc in plan.priority_classes) == [
        "ks-test-p1000-preemptlowerpriority", "ks-test-p50-preemptlowerpriority",
        "ks-test-p7-preemptlowerpriority"]
    assert not any(pc["globalDefault"] for pc in plan.priority_classes)
    odd = pend["default/odd"]
    assert odd["spec"]["priorityClassName"] == "ks-test-p7-preemptlowerpriority"
    assert "priority" not in odd["spec"] and "ownerReferences" not in odd["metadata"]
    assert any(pc["metadata"]["name"] == "ks-test-p7-preemptlowerpriority"
               and pc["value"] == 7 for pc in plan.priority_classes)
    terms = odd["spec"]["affinity"]
    assert terms["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"][0]["matchFields"][0]["values"] == ["ks-test-b"]
    anti = terms["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert anti["namespaces"] == ["ks-test-team"]
    assert anti["namespaceSelector"]["matchExpressions"][0]["values"] == ["ks-test-default"]


def test_plan_rejects_invalid_scenarios_as_subject_errors() -> None:
    d = Driver(FakeApi(), opts())
    with pytest.raises(SubjectError, match="not valid input"):
        d.plan(scenario(node("n1"), pod("p", priorityClassName="nope")))


def test_plan_refuses_a_cluster_left_without_a_node_while_pods_wait() -> None:
    """small-0045 of the process diff (seed 1): the timeline deletes the only node, then a pod
    is created; kube-scheduler retries it after every backoff ("no nodes available to
    schedule pods") and the run never settles. A node created again, a deletion beyond
    ``until``, or nothing to schedule is run."""
    late = {"at": "20s", "action": "createPod", "pod": {
        "metadata": {"name": "late"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}
    gone = {"at": "10s", "action": "deleteNode", "node": "n1"}
    d = Driver(FakeApi(), opts())
    with pytest.raises(ScenarioUnsupported, match="without a node while pod default/late"):
        d.plan(scenario(node("n1"), timeline(gone, late)))
    with pytest.raises(ScenarioUnsupported, match="pod default/p is to be scheduled"):
        d.plan(scenario(pod("p")))
    back = {"at": "30s", "action": "createNode", "node": {"metadata": {"name": "n2"}}}
    d.plan(scenario(node("n1"), timeline(gone, late, back)))
    d.plan(scenario(node("n1"), timeline(gone, late, until="5s")))
    d.plan(scenario(node("n1"), pod("r", nodeName="n1"), timeline(gone)))


# --- runs ----------------------------------------------------------------------------------------

def test_run_creates_objects_before_the_scheduler_and_reconstructs_attempts() -> None:
    docs = [pclass("high", 100), pclass("low", 1), node("n1", "2"), node("n2", "2"),
            pod("victim", "2", nodeName="n2", priorityClassName="low"),
            pod("a", "1"), pod("big", "3"), pod("boss", "2", priorityClassName="high")]

    def script(api: FakeApi, s: FakeScheduler) -> None:
        s.bind("default", "a", "n1")
        s.fail("default", "big", "0/2 nodes are available: 2 Insufficient cpu.")
        s.fail("default", "big", "0/2 nodes are available: 2 Insufficient cpu.")  # no change
        s.fail("default", "boss", "0/2 nodes are available: 2 Insufficient cpu. preemption: "
                                  "...", nominated="n2")
        s.preempt("default", "victim", "default", "boss", "n2")
        s.bind("default", "boss", "n2")

    doc, api, d, sched = run(docs, script)
    # everything existed when the scheduler started (it lists them before scheduling)
    assert sched.started_with == ["default/a", "default/big", "default/boss",
                                  "default/victim"]
    assert sched.configs == [None] and sched.stopped == 1
    assert doc["kind"] == "SimulationResult" and doc["seed"] == 7
    outcomes = [(a["pod"], a["outcome"], a["node"], a["nominatedNode"], a["victims"])
                for a in doc["attempts"]]
    assert outcomes == [
        ("default/a", "Bound", "n1", None, []),
        ("default/big", "Unschedulable", None, None, []),
        ("default/boss", "Nominated", None, "n2", ["default/victim"]),
        ("default/boss", "Bound", "n2", None, []),
    ]
    assert doc["bindings"] == {"default/a": "n1", "default/boss": "n2"}
    assert doc["pending"] == ["default/big"]
    assert doc["deleted"] == ["default/victim"]
    assert doc["stoppedBy"] == "quiescence"
    big = [a for a in doc["attempts"] if a["pod"] == "default/big"][0]
    assert big["message"] == "0/2 nodes are available: 2 Insufficient cpu." and \
        big["reasons"] == {}
    import jsonschema

    from conformance.core.documents import schema

    jsonschema.validate(doc, schema("SimulationResult"))
    # running pod: created bound, then its status
    assert ("patch", "Pod", "default", "victim", "status",
            json.dumps({"status": {"phase": "Running"}}, sort_keys=True)) in api.calls
    creates = [c for c in api.calls if c[0] == "create" and c[1] in ("Node", "Pod")]
    assert [c[3] for c in creates] == ["n1", "n2", "victim", "a", "big", "boss"]


class LoggingScheduler(FakeScheduler):
    """A fake scheduler with a kube-scheduler log (``--v=3`` lines) the driver can read."""

    def __init__(self, api: FakeApi, script: Callable[[FakeApi, FakeScheduler], None]) -> None:
        super().__init__(api, script)
        self.lines: list[str] = []

    def log(self, msg: str, **kv: str) -> None:
        rest = " ".join(f"{k}={json.dumps(v)}" for k, v in kv.items())
        self.lines.append(f'I1202 10:00:00.000000   1 schedule_one.go:1] "{msg}" {rest}')

    def scheduler_log(self) -> str:
        return "\n".join(self.lines)


def test_attempts_follow_the_scheduling_cycles_of_the_scheduler_log() -> None:
    """kube-scheduler binds in a goroutine: the API can show the next pod's failure before
    the binding that caused it. With the scheduler's log the attempts come in cycle order."""
    docs = [node("n1", "1"), pod("a", "1"), pod("b", "1")]
    msg = "0/1 nodes are available: 1 Insufficient cpu."

    def script(api: FakeApi, s: FakeScheduler) -> None:
        assert isinstance(s, LoggingScheduler)
        s.log("Attempting to schedule pod", pod="default/a")
        s.log("Attempting to schedule pod", pod="default/b")
        s.log("Unable to schedule pod; no fit; waiting", pod="default/b", err=msg)
        s.fail("default", "b", msg)  # the API sees b's failure first
        s.bind("default", "a", "n1")
        s.log("Successfully bound pod to node", pod="default/a", node="n1")

    for with_log in (False, True):
        api = FakeApi()
        sched = LoggingScheduler(api, script)
        if not with_log:
            sched.scheduler_log = lambda: ""  # type: ignore[method-assign]
        doc = Driver(api, opts()).run(scenario(*docs), hooks=sched)
        order = [(a["pod"], a["outcome"]) for a in doc["attempts"]]
        if with_log:
            assert order == [("default/a", "Bound"), ("default/b", "Unschedulable")]
        else:
            assert order == [("default/b", "Unschedulable"), ("default/a", "Bound")]


def test_a_scheduler_log_that_reaches_the_engine_late_is_read_again() -> None:
    """Seen in the docker differential on a loaded machine: ``docker logs`` right after
    quiescence held none of the scheduling cycles yet, and the attempts stayed in API order
    (a failure before the binding that caused it). The driver reads the log again until it
    shows a result for every attempt the API showed, and says so when it never does."""
    docs = [node("n1", "1"), pod("a", "1"), pod("b", "1")]
    msg = "0/1 nodes are available: 1 Insufficient cpu."

    def script(api: FakeApi, s: FakeScheduler) -> None:
        assert isinstance(s, LoggingScheduler)
        s.log("Attempting to schedule pod", pod="default/a")
        s.log("Attempting to schedule pod", pod="default/b")
        s.log("Unable to schedule pod; no fit; waiting", pod="default/b", err=msg)
        s.fail("default", "b", msg)
        s.bind("default", "a", "n1")
        s.log("Successfully bound pod to node", pod="default/a", node="n1")

    class Late(LoggingScheduler):
        reads = 0
        complete_after = 3  # reads

        def scheduler_log(self) -> str:
            self.reads += 1
            if self.reads < self.complete_after:
                return 'I1202 10:00:00.000000   1 server.go:1] "Starting Kubernetes Scheduler"'
            return super().scheduler_log()

    api = FakeApi()
    sched = Late(api, script)
    d = Driver(api, opts())
    doc = d.run(scenario(*docs), hooks=sched)
    assert [(a["pod"], a["outcome"]) for a in doc["attempts"]] == [
        ("default/a", "Bound"), ("default/b", "Unschedulable")]
    assert sched.reads == 3 and d.warnings == []

    never = Late(FakeApi(), script)
    never.complete_after = 10**6
    d = Driver(never.api, opts(log_wait=0.3))
    doc = d.run(scenario(*docs), hooks=never)
    assert [(a["pod"], a["outcome"]) for a in doc["attempts"]] == [
        ("default/b", "Unschedulable"), ("default/a", "Bound")]
    assert any("fewer results than the API for 2 pod(s) after 0.3 s (default/a, default/b)"
               in w for w in d.warnings)


def test_no_warning_about_the_log_when_nothing_was_attempted() -> None:
    sched = LoggingScheduler(FakeApi(), lambda a, s: None)
    sched.log("Starting Kubernetes Scheduler")  # the log exists, with no cycle
    d = Driver(sched.api, opts())
    doc = d.run(scenario(node("n1"), pod("a", schedulerName="other")), hooks=sched)
    assert doc["attempts"] == [] and d.warnings == []


def test_victims_without_a_preempted_event_go_to_the_pod_nominated_to_their_node() -> None:
    docs = [pclass("high", 100), node("n1", "1"),
            pod("low", "1", nodeName="n1"), pod("hi", "1", priorityClassName="high")]

    def script(api: FakeApi, s: FakeScheduler) -> None:
        s.fail("default", "hi", "0/1 nodes are available: 1 Insufficient cpu.", nominated="n1")
        s.preempt("default", "low", "default", "hi", "n1", event=False)
        s.bind("default", "hi", "n1")

    doc, *_ = run(docs, script)
    nominated = [a for a in doc["attempts"] if a["outcome"] == "Nominated"]
    assert nominated[0]["victims"] == ["default/low"] and doc["deleted"] == ["default/low"]


def test_renamed_nodes_and_pods_are_mapped_back() -> None:
    docs = [node("zeta"), node("alpha"), pod("p-9"), pod("p-10")]

    def script(api: FakeApi, s: FakeScheduler) -> None:
        assert api.names("Node") == ["n000-zeta", "n001-alpha"]
        s.bind("default", "q000-p-9", "n000-zeta")
        s.bind("default", "q001-p-10", "n001-alpha")

    doc, *_ = run(docs, script)
    assert doc["bindings"] == {"default/p-10": "alpha", "default/p-9": "zeta"}
    assert [a["pod"] for a in doc["attempts"]] == ["default/p-9", "default/p-10"]


def test_renamed_namespaces_are_mapped_back_and_followed_by_affinity_terms() -> None:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "h",
        "namespaces": ["zz"]}]}}
    docs = [node("n1"), pod("x", ns="zz"), pod("y", ns="aa", affinity=anti)]

    def script(api: FakeApi, s: FakeScheduler) -> None:
        assert sorted(api.pods()) == ["s0-zz/x", "s1-aa/y"]
        y = api.get("Pod", "y", "s1-aa")
        assert y["spec"]["affinity"]["podAntiAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"][0]["namespaces"] == ["s0-zz"]
        s.bind("s0-zz", "x", "n1")
        s.fail("s1-aa", "y", "0/1 nodes are available: 1 node(s) didn't match pod "
                             "anti-affinity rules.")

    doc, api, d, _ = run(docs, script)
    assert doc["bindings"] == {"zz/x": "n1"} and doc["pending"] == ["aa/y"]
    d.delete_owned(timeout=1.0)
    assert not {"s0-zz", "s1-aa"} & set(api.names("Namespace"))


def test_error_and_gated_records() -> None:
    docs = [node("n1"), pod("e"), pod("g", schedulingGates=[{"name": "x"}, {"name": "y"}])]

    def script(api: FakeApi, s: FakeScheduler) -> None:
        s.fail("default", "e", "boom", reason="SchedulerError")

    doc, *_ = run(docs, script)
    recs = [(a["pod"], a["outcome"], a["message"]) for a in doc["attempts"]]
    assert ("default/g", "Gated", "waiting for scheduling gates: [x y]") in recs
    assert ("default/e", "Error", "boom") in recs
    assert doc["pending"] == ["default/e", "default/g"]


def test_pods_of_another_scheduler_are_not_gated_records() -> None:
    docs = [node("n1"), pod("other", schedulerName="not-mine",
                            schedulingGates=[{"name": "x"}])]
    doc, *_ = run(docs, lambda api, s: None)
    assert doc["attempts"] == [] and doc["pending"] == ["default/other"]


def test_terminating_pods_are_force_deleted() -> None:
    docs = [node("n1"), pod("p", nodeName="n1")]

    def script(api: FakeApi, s: FakeScheduler) -> None:
        api.patch("Pod", "p", {"metadata": {"deletionTimestamp": "2024-01-01T00:00:00Z"}},
                  "default")

    doc, api, *_ = run(docs, script)
    assert ("delete", "Pod", "default", "p") in api.calls


def test_busy_cluster_pods_keep_their_status_and_their_deletion() -> None:
    """A dump's terminating pods get a finalizer (they are deleted after creation and stay,
    as no kubelet finishes them); the status the scheduler reads (in-place resize, the
    PodResizePending and DisruptionTarget conditions) is patched; PodScheduled is not."""
    d = Driver(FakeApi(), opts())
    resized = make_pod("resized").namespace("default").node("n1").terminating() \
        .container(make_container("c").requests(cpu="1")) \
        .container_status("c", allocated={"cpu": "2"}, requests={"cpu": "2"}) \
        .resize_pending("Infeasible").preempted_by_scheduler() \
        .condition("PodScheduled", "True").manifest()
    plan = d.plan(scenario(node("n1"), resized, pod("p")))
    (run_,) = plan.running
    assert run_.terminating
    assert run_.manifest["metadata"]["finalizers"] == [TERMINATING_FINALIZER]
    assert "deletionTimestamp" not in run_.manifest["metadata"]
    assert run_.status is not None
    assert run_.status["containerStatuses"] == [
        {"name": "c", "allocatedResources": {"cpu": "2"}, "resources": {"requests": {"cpu": "2"}}}]
    assert [c["type"] for c in run_.status["conditions"]] == ["PodResizePending",
                                                              "DisruptionTarget"]
    (pend,) = plan.pending
    assert not pend.terminating and "finalizers" not in pend.manifest["metadata"]


def test_a_dumps_terminating_pod_is_deleted_once_and_never_waited_for() -> None:
    docs = [node("n1"), make_pod("going").namespace("default").node("n1").terminating()
            .container(make_container("c").requests(cpu="1")).manifest(), pod("p")]
    doc, api, d, _ = run(docs, lambda api, s: None)
    assert api.calls.count(("delete", "Pod", "default", "going")) == 1
    assert d.recorder.kept_terminating == {"default/going"}


def test_timeline_events_become_api_calls() -> None:
    docs = [node("n1", "1"), node("n2", "1"),
            pod("r1", nodeName="n1"), pod("r2", nodeName="n2"), pod("b2", "0"),
            pod("g", schedulingGates=[{"name": "a"}, {"name": "b"}]),
            timeline(
                {"at": "1s", "action": "createNode", "node": {"metadata": {"name": "n3"},
                                                              "status": {"allocatable": {
                                                                  "cpu": "2"}}}},
                {"at": "2s", "action": "cordon", "node": "n1"},
                {"at": "2s", "action": "labelNode", "node": "n2",
                 "labels": {"zone": "b", "kubernetes.io/hostname": None}},
                {"at": "3s", "action": "taintNode", "node": "n2",
                 "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
                {"at": "4s", "action": "untaintNode", "node": "n2", "taints": [{"key": "k"}]},
                {"at": "5s", "action": "removeSchedulingGates", "pod": "g", "gates": ["a"]},
                {"at": "6s", "action": "finishPod", "pod": "r1"},
                {"at": "7s", "action": "deleteNode", "node": "n2"},
                {"at": "8s", "action": "createPod", "pod": {
                    "metadata": {"name": "late"},
                    "spec": {"containers": [{"name": "c", "image": "busybox"}]}}},
                {"at": "9s", "action": "deletePod", "pod": "late"})]
    doc, api, d, _ = run(docs, lambda api, s: s.bind("default", "b2", "n2"))
    patches = [c for c in api.calls if c[0] == "patch" and c[1] == "Node"]
    bodies = [json.loads(c[5]) for c in patches]
    assert {"spec": {"unschedulable": True}} in bodies
    assert {"metadata": {"labels": {"zone": "b", "kubernetes.io/hostname": None}}} in bodies
    assert {"spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}} in bodies
    assert {"spec": {"taints": []}} in bodies
    gate_patch = [c for c in api.calls if c[0] == "patch" and c[3] == "g"]
    assert json.loads(gate_patch[-1][5]) == [{"op": "replace", "path": "/spec/schedulingGates",
                                              "value": [{"name": "b"}]}]
    assert ("patch", "Pod", "default", "r1", "status",
            json.dumps({"status": {"phase": "Succeeded"}})) in api.calls
    assert ("delete", "Node", "", "n2") in api.calls
    # the pod garbage collector's part: the pod running there and the one bound there
    assert ("delete", "Pod", "default", "r2") in api.calls
    assert ("delete", "Pod", "default", "b2") in api.calls
    assert ("create", "Node", "", "n3") in api.calls
    assert ("create", "Pod", "default", "late") in api.calls
    assert doc["finished"] == ["default/r1"]
    assert doc["removed"] == ["default/b2", "default/late", "default/r2"]
    assert [e["action"] for e in doc["timeline"]] == [
        "createNode", "cordon", "labelNode", "taintNode", "untaintNode",
        "removeSchedulingGates", "finishPod", "deleteNode", "createPod", "deletePod"]
    assert all(e["result"] == "applied" for e in doc["timeline"])
    assert [e["time"] for e in doc["timeline"]] == [1, 2, 2, 3, 4, 5, 6, 7, 8, 9]
    gated = [a for a in doc["attempts"] if a["outcome"] == "Gated"]
    assert [g["message"] for g in gated] == ["waiting for scheduling gates: [a b]",
                                             "waiting for scheduling gates: [b]"]
    assert gated[1]["time"] == 5.0
    assert doc["bindings"] == {}
    assert doc["pending"] == ["default/g"]


def test_timeline_times_map_to_virtual_time_and_until_stops_the_run() -> None:
    docs = [node("n1"), pod("p"),
            timeline({"at": "10s", "action": "cordon", "node": "n1"},
                     {"at": "1h", "action": "uncordon", "node": "n1"}, until="30s")]

    def script(api: FakeApi, s: FakeScheduler) -> None:
        s.bind("default", "p", "n1")

    doc, api, *_ = run(docs, script)
    assert [e["action"] for e in doc["timeline"]] == ["cordon"]
    assert not any(c[0] == "patch" and "false" in c[-1] for c in api.calls)
    assert doc["stoppedBy"] == "until" and doc["endTime"] == 30.0
    assert doc["attempts"][0]["time"] < 10.0


def test_triggers_fire_in_the_order_of_the_bindings_seen_at_once() -> None:
    """Two bindings observed in one pass fire their ``podBound`` events in the bindings' order
    (the reference's: right after each binding attempt), not in document order: b's event is
    listed first, a was bound first (small-0048..0052 of the process diff, seed 1)."""
    def created(name: str) -> dict[str, Any]:
        return {"metadata": {"name": name},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]}}

    api = FakeApi()
    d = Driver(api, opts())
    plan = d.plan(scenario(node("n1"), pod("a"), pod("b"), timeline(
        {"when": {"podBound": "b"}, "action": "createPod", "pod": created("after-b")},
        {"when": {"podBound": "a"}, "action": "createPod", "pod": created("after-a")})))
    rec = Recorder(d.naming, lambda k: True, lambda w: 0.0)
    rec.pending_keys = {"default/a", "default/b"}
    tl = Timeline(plan, api=api, naming=d.naming, planner=d.planner, objects=d.objects,
                  recorder=rec, clock=d.clock, responsible={})
    d.clock.start(0.0)
    for name in ("a", "b"):
        ns, api_name = d.naming.pod(f"default/{name}")
        rec.on_pod("MODIFIED", {"metadata": {"namespace": ns, "name": api_name, "uid": name},
                                "spec": {"nodeName": "n1"}, "status": {}}, 0.0)
    triggered = tl.triggered()
    applied: list[dict[str, Any]] = []
    assert tl.fire_triggers(triggered, applied, 0.0)
    assert [e["target"] for e in applied] == ["default/after-a", "default/after-b"]
    assert triggered == {}
    assert not tl.fire_triggers(triggered, applied, 0.0)


def test_virtual_clock_is_piecewise_and_never_passes_the_next_event() -> None:
    clock = VirtualClock(time_scale=0.5)
    clock.segments = [(100.0, 0), (101.0, 5_000_000_000)]
    clock.next_event_at = 9_000_000_000
    assert clock.virtual(99.0) == 0.0
    assert clock.virtual(100.5) == 1.0
    assert clock.virtual(100.99) == pytest.approx(1.98)
    assert clock.virtual(104.0) == pytest.approx(9 - 1e-6)  # clamped before the next event
    clock.segments = [(100.0, 0), (100.1, 5_000_000_000)]
    assert clock.virtual(100.09) == pytest.approx(0.18)
    clock.segments = [(100.0, 0), (110.0, 5_000_000_000)]
    assert clock.virtual(109.0) == pytest.approx(5 - 1e-6)  # waited long: still before event 1


class Busy(FakeScheduler):
    """A scheduler that never settles: pods always queued."""

    def scheduler_state(self) -> SchedulerState | None:
        return SchedulerState(queues={"active": 3.0, "backoff": 0.0})


def test_no_quiescence_is_a_scenario_given_up() -> None:
    api = FakeApi()
    sched = Busy(api, lambda a, s: s.fail("default", "p", "0/1 nodes are available"))
    d = Driver(api, opts(timeout=0.5))
    with pytest.raises(ScenarioTimedOut, match=r"did not settle within 0.5 s.*most attempted: "
                                               r"default/p \(1 attempts, the last "
                                               r"Unschedulable: 0/1 nodes are available\)"):
        d.run(scenario(node("n1"), pod("p")), hooks=sched)
    assert sched.stopped == 1


def test_the_bound_counts_from_the_timelines_last_event() -> None:
    """A timeline that plans beyond the timeout (here 100 virtual seconds: 1 s of wall time)
    is played to its end before the scenario is given up."""
    api = FakeApi()
    sched = Busy(api, lambda a, s: None)
    d = Driver(api, opts(timeout=0.3))
    t = time.monotonic()
    with pytest.raises(ScenarioTimedOut, match="did not settle within 0.3 s"):
        d.run(scenario(node("n1"), pod("p"),
                       timeline({"at": "100s", "action": "cordon", "node": "n1"})), hooks=sched)
    assert time.monotonic() - t >= 1.3
    assert any(c[0] == "patch" and "unschedulable" in c[-1] for c in api.calls), api.calls


def test_a_scheduler_that_dies_midway_is_a_subject_error_not_a_result() -> None:
    """A launcher whose component died says so through ``check_alive`` during the scenario:
    the run stops with that error (log tail included by the launcher) instead of waiting for
    quiescence and returning pods as pending (a false divergence)."""
    api = FakeApi()

    class Dies(FakeScheduler):
        checks = 0

        def scheduler_state(self) -> SchedulerState | None:
            return None  # a dead scheduler has no metrics endpoint

        def check_alive(self) -> None:
            self.checks += 1
            if self.done.is_set():
                raise SubjectError("process backend: kube-scheduler exited with code 2\n"
                                   "--- kube-scheduler log (tail) ---\npanic: boom")

    sched = Dies(api, lambda a, s: s.bind("default", "p", "n1"))
    d = Driver(api, opts(timeout=5.0))
    with pytest.raises(SubjectError, match="exited with code 2(.|\n)*panic: boom"):
        d.run(scenario(node("n1"), pod("p"), pod("q")), hooks=sched)
    assert sched.checks >= 1 and sched.stopped == 1


class _BrokenWatchApi(FakeApi):
    """A FakeApi whose pod watch reports errors as KubeApi.watch does."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__()
        self.errors = errors

    def watch(self, kind: str, sink: Any, stop: threading.Event, **kw: Any) -> None:
        if kind == "Pod":
            for e in self.errors:
                sink("ERROR", e)
        super().watch(kind, sink, stop, **kw)


def test_a_watch_that_lost_events_is_a_subject_error() -> None:
    api = _BrokenWatchApi([{"message": "the watch of Pods expired (resource version 7): "
                                       "Gone", "lost": True}])
    d = Driver(api, opts())
    with pytest.raises(SubjectError, match="expired(.|\n)*would miss changes"):
        d.run(scenario(node("n1"), pod("p")),
              hooks=FakeScheduler(api, lambda a, s: s.bind("default", "p", "n1")))


def test_broken_watch_streams_are_resumed_then_an_unreachable_api_server_is_an_error() -> None:
    few = _BrokenWatchApi([{"message": "the watch of Pods broke: ProtocolError", "lost": False}])
    doc, _, d, _ = run([node("n1"), pod("p")], lambda a, s: s.bind("default", "p", "n1"),
                       api=few)
    assert doc["bindings"] == {"default/p": "n1"}
    assert any("1 watch stream(s) broke and were resumed" in w for w in d.warnings)
    many = _BrokenWatchApi([{"message": "the watch of Pods broke: ConnectionRefused",
                             "lost": False}] * MAX_WATCH_FAILURES)
    with pytest.raises(SubjectError, match="stopped answering(.|\n)*ConnectionRefused"):
        run([node("n1"), pod("p")], lambda a, s: None, api=many)


def test_pending_pods_are_read_back_with_their_conditions() -> None:
    """What the watch did not deliver is taken from the final read of the run's pods (the
    scheduler-reported PodScheduled condition), and said in the warnings."""
    message = "0/1 nodes are available: 1 Insufficient cpu."

    def script(a: FakeApi, s: FakeScheduler) -> None:
        s.bind("default", "a", "n1")
        with a.lock:  # a change no watcher is told of
            key = a._key("Pod", "big", "default")
            obj = copy.deepcopy(a.objects[key])
            obj["status"]["conditions"] = [{"type": "PodScheduled", "status": "False",
                                            "reason": "Unschedulable", "message": message}]
            obj["metadata"]["resourceVersion"] = str(next(a.rv))
            a.objects[key] = obj

    doc, _, d, _ = run([node("n1", "2"), pod("a"), pod("big", "4")], script)
    assert doc["pending"] == ["default/big"]
    last = [a for a in doc["attempts"] if a["pod"] == "default/big"]
    assert [(a["outcome"], a["message"]) for a in last] == [("Unschedulable", message)]
    assert any("read-back found what the watch did not show: default/big Unschedulable" in w
               for w in d.warnings)
    # with nothing missed the read-back adds nothing
    doc2, _, d2, _ = run([node("n1", "2"), pod("a"), pod("big", "4")],
                         lambda a, s: (s.bind("default", "a", "n1"),
                                       s.fail("default", "big", message)))
    assert [a["outcome"] for a in doc2["attempts"]] == ["Bound", "Unschedulable"]
    assert not any("read-back" in w for w in d2.warnings)


def test_refused_objects_are_subject_errors_naming_the_object() -> None:
    api = FakeApi()
    api.refuse = lambda kind, obj: ("spec.containers[0].image: Required value"
                                    if kind == "Pod" else None)
    d = Driver(api, opts())
    with pytest.raises(SubjectError, match="refused Pod default/p: spec.containers"):
        d.run(scenario(node("n1"), pod("p")), hooks=FakeScheduler(api, lambda a, s: None))


def test_owned_mode_needs_hooks() -> None:
    with pytest.raises(SubjectError, match="launcher"):
        Driver(FakeApi(), opts()).run(scenario(node("n1")))


# --- shared mode ---------------------------------------------------------------------------------

def test_shared_mode_holds_pending_pods_and_releases_them_in_queue_order() -> None:
    api = FakeApi()
    released: list[str] = []
    orig = api.patch

    def patch(kind: str, name: str, body: Any, namespace: str | None = None,
              **kw: Any) -> dict[str, Any]:
        out = orig(kind, name, body, namespace, **kw)
        if kw.get("patch_type") == "json" and kind == "Pod":
            released.append(name)
            # the cluster's scheduler reacts at once
            threading.Thread(target=lambda: orig(
                "Pod", name, {"spec": {"nodeName": "ks-test-n1"}}, namespace),
                daemon=True).start()
        return out

    api.patch = patch  # type: ignore[method-assign]
    d = Driver(api, opts(mode="shared", namespace_prefix="ks-test-", node_prefix="ks-test-",
                         rename_for_order=False))
    created_gates: dict[str, Any] = {}
    orig_create = api.create

    def create(kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        if kind == "Pod":
            created_gates[obj["metadata"]["name"]] = obj["spec"].get("schedulingGates")
        return orig_create(kind, obj)

    api.create = create  # type: ignore[method-assign]
    doc = d.run(scenario(pclass("high", 10), node("n1", "8"), pod("low1"), pod("hi",
                         priorityClassName="high"), pod("low2"),
                         pod("gated", schedulingGates=[{"name": "mine"}])), hooks=None)
    assert created_gates["low1"] == [{"name": HOLD_GATE}]
    assert created_gates["gated"] == [{"name": HOLD_GATE}, {"name": "mine"}]
    assert released == ["hi", "low1", "low2", "gated"]
    assert doc["bindings"] == {"default/gated": "n1", "default/hi": "n1",
                               "default/low1": "n1", "default/low2": "n1"}


# --- cleanup -------------------------------------------------------------------------------------

def test_delete_owned_removes_exactly_the_runs_objects_and_restores_namespaces() -> None:
    api = FakeApi()
    api.create("Node", {"metadata": {"name": "someone-elses"}})
    api.create("Pod", {"metadata": {"name": "theirs", "namespace": "default"}})
    api.patch("Namespace", "default", {"metadata": {"labels": {"keep": "me"}}})
    docs = [{"apiVersion": "v1", "kind": "Namespace",
             "metadata": {"name": "default", "labels": {"team": "a"}}},
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "extra"}},
            pclass("high", 5), node("n1"), pod("p", ns="extra"), pod("q")]
    doc, api, d, _ = run(docs, lambda a, s: None, api=api)
    problems = d.delete_owned(timeout=1.0)
    d.finalize_namespaces()
    assert problems == []
    assert api.names("Node") == ["someone-elses"]
    assert sorted(api.pods()) == ["default/theirs"]
    assert api.names("PriorityClass") == []
    assert "extra" not in api.names("Namespace") and "default" in api.names("Namespace")
    labels = api.get("Namespace", "default")["metadata"]["labels"]
    assert labels == {"kubernetes.io/metadata.name": "default", "keep": "me"}


def test_namespace_labels_are_replaced_while_the_scenario_runs() -> None:
    api = FakeApi()
    api.patch("Namespace", "default", {"metadata": {"labels": {"stale": "x"}}})
    seen: list[dict[str, str]] = []

    def script(a: FakeApi, s: FakeScheduler) -> None:
        seen.append(a.get("Namespace", "default")["metadata"]["labels"])

    run([{"apiVersion": "v1", "kind": "Namespace",
          "metadata": {"name": "default", "labels": {"team": "a"}}}, node("n1")], script,
        api=api)
    assert seen == [{"kubernetes.io/metadata.name": "default", "team": "a",
                     RUN_LABEL: "ks-test"}]


# --- small pieces --------------------------------------------------------------------------------

def test_recorder_signature_rules() -> None:
    naming = Naming()
    naming.set_pod("default/p", ("default", "p"))
    t = [0.0]
    # before v1.37 a preemption's message need not say so: a nomination alone is an attempt
    rec = Recorder(naming, lambda k: True, lambda w: t[0], release="v1.36.3")
    rec.pending_keys = {"default/p"}

    def pod_obj(reason: str = "", message: str = "", nnn: str = "",
                node_name: str = "") -> dict[str, Any]:
        st: dict[str, Any] = {}
        if reason:
            st["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": reason,
                                 "message": message}]
        if nnn:
            st["nominatedNodeName"] = nnn
        return {"metadata": {"namespace": "default", "name": "p", "uid": "u1"},
                "spec": {"nodeName": node_name}, "status": st}

    rec.on_pod("ADDED", pod_obj(), 0)
    rec.on_pod("MODIFIED", pod_obj("Unschedulable", "m1"), 0)
    rec.on_pod("MODIFIED", pod_obj("Unschedulable", "m1"), 0)  # nothing new
    rec.on_pod("MODIFIED", pod_obj("Unschedulable", "m1", "n1"), 0)  # nomination: an attempt
    rec.on_pod("MODIFIED", pod_obj("Unschedulable", "m1"), 0)  # cleared by someone: not one
    rec.on_pod("MODIFIED", pod_obj("Unschedulable", "m2"), 0)  # new verdict
    rec.on_pod("MODIFIED", pod_obj("", "", "", "n1"), 0)
    rec.on_pod("MODIFIED", pod_obj("", "", "", "n1"), 0)
    assert [(a["outcome"], a["message"], a["nominatedNode"], a["node"])
            for a in rec.attempts] == [
        ("Unschedulable", "m1", None, None), ("Nominated", "m1", "n1", None),
        ("Unschedulable", "m2", None, None), ("Bound", "", None, "n1")]
    # since v1.37 a nomination that keeps the failure's message is the binding cycle's
    # (bindingCycle, schedule_one.go: PreBind has work); a preemption's message says so
    rec37 = Recorder(naming, lambda k: True, lambda w: t[0], release="v1.37.2")
    rec37.pending_keys = {"default/p"}
    found = "m1 preemption: found a potential placement for pod on node n2, preempting 1 victims"
    for obj in (pod_obj(), pod_obj("Unschedulable", "m1"), pod_obj("Unschedulable", "m1", "n1"),
                pod_obj("Unschedulable", found, "n2"), pod_obj("Unschedulable", found, "n1"),
                pod_obj("", "", "", "n1")):
        rec37.on_pod("MODIFIED", obj, 0)
    assert [(a["outcome"], a["nominatedNode"], a["node"]) for a in rec37.attempts] == [
        ("Unschedulable", None, None), ("Nominated", "n2", None), ("Nominated", "n1", None),
        ("Bound", None, "n1")]
    # pods of other runs are ignored
    other = pod_obj("Unschedulable", "x")
    other["metadata"]["name"] = "stranger"
    assert rec.on_pod("MODIFIED", other, 0) is None and len(rec.attempts) == 4


def test_scheduler_config_and_profiles() -> None:
    cfg = scheduler_config(None, "/k")
    assert cfg == {"apiVersion": "kubescheduler.config.k8s.io/v1",
                   "kind": "KubeSchedulerConfiguration",
                   "clientConnection": {"kubeconfig": "/k", "qps": 5000.0, "burst": 10000},
                   "leaderElection": {"leaderElect": False}, "parallelism": 1}
    user = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "parallelism": 16, "leaderElection": {"leaderElect": True},
            "profiles": [{"schedulerName": "a"}, {"schedulerName": "b"}]}
    cfg = scheduler_config(user, "/k")
    assert cfg["parallelism"] == 1 and cfg["leaderElection"] == {"leaderElect": False}
    assert cfg["profiles"] == user["profiles"] and user["parallelism"] == 16  # not mutated
    assert scheduler_config(user, "/k", parallelism=None)["parallelism"] == 16
    assert profile_scheduler_names(user) == {"a", "b"}
    assert profile_scheduler_names(None) == {"default-scheduler"}
    assert profile_scheduler_names({"profiles": [{}]}) == {"default-scheduler"}


#: an excerpt of kube-scheduler's metrics page (v1.37.2) in the middle of a run
METRICS_PAGE = """# HELP scheduler_pending_pods [STABLE] Number of pending pods, by the queue type.
# TYPE scheduler_pending_pods gauge
scheduler_pending_pods{queue="active"} 2
scheduler_pending_pods{queue="backoff"} 0
scheduler_pending_pods{queue="gated"} 1
scheduler_pending_pods{queue="unschedulable"} 3
scheduler_pending_pods_other{queue="active"} 9
scheduler_goroutines{operation="Filter"} 0
scheduler_goroutines{operation="binding"} 12
scheduler_pending_async_api_calls{call_type="pod_binding"} 1
scheduler_pending_async_api_calls{call_type="pod_status_patch"} 2
scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"} 33
scheduler_schedule_attempts_total{profile="other",result="scheduled"} 4
scheduler_schedule_attempts_total{profile="default-scheduler",result="unschedulable"} 5
"""


def test_parse_metrics() -> None:
    assert parse_metrics(METRICS_PAGE) == {"active": 2.0, "backoff": 0.0, "gated": 1.0,
                                           "unschedulable": 3.0}
    assert parse_metrics(METRICS_PAGE, "scheduler_schedule_attempts_total", "result",
                         profile="other") == {"scheduled": 4.0}
    assert parse_metrics("") == {}


def test_parse_scheduler_state() -> None:
    st = parse_scheduler_state(METRICS_PAGE)
    assert st is not None
    assert st.queues["active"] == 2 and st.bindings_in_flight == 12
    assert st.api_calls_pending == 3 and st.scheduled == 37  # every profile
    assert st.busy() == ["2 pod(s) in the active queue", "12 binding(s) in flight",
                         "3 API call(s) pending"]
    assert SchedulerState(queues={"active": 0.0, "unschedulable": 4.0}).busy() == []
    assert parse_scheduler_state("") is None  # not the scheduler's page: unknown
    assert parse_scheduler_state("scheduler_goroutines{operation=\"binding\"} 0") is None


def quiet_driver(*pending: str, settle: float = 0.2, grace: float = 0.3) -> Driver:
    """A driver 5 s after the last change, whose recorder expects the ``pending`` pods."""
    d = Driver(FakeApi(), opts(settle=settle, grace=grace))
    naming = Naming()
    for key in pending:
        naming.pod(key)
    d.recorder = Recorder(naming, lambda k: True, lambda w: 0.0)
    d.recorder.pending_keys = set(pending)
    d.recorder.last_change = time.monotonic() - 5.0
    return d


class Answers(FakeScheduler):
    """A scheduler whose metrics give the listed states, then nothing."""

    def __init__(self, *answers: SchedulerState | None) -> None:
        super().__init__(FakeApi(), lambda a, s: None)
        self.answers = list(answers)

    def scheduler_state(self) -> SchedulerState | None:
        return self.answers.pop(0) if self.answers else None


def idle(**kw: Any) -> SchedulerState:
    return SchedulerState(queues={"active": 0.0, "backoff": 0.0}, **kw)


def test_quiet_in_shared_mode_waits_four_settle_periods() -> None:
    d = quiet_driver()
    d.recorder.last_change = time.monotonic() - 0.5
    assert not d._quiet(None)
    d.recorder.last_change = time.monotonic() - 0.9
    assert d._quiet(None)
    d.recorder.terminating.add("default/x")
    assert not d._quiet(None)


def test_a_failed_metrics_read_is_never_quiet_once_the_metrics_answered() -> None:
    """Found by the docker differential on a busy machine: the metrics request timed out
    (2 s), and a fallback judging by time alone declared the run over with pods still in the
    active queue. An unreadable page (or one without the gauge) means: not known yet."""
    d = quiet_driver()
    hooks = Answers(SchedulerState(queues={"active": 12.0}), None, None, idle())
    assert not d._quiet(hooks)  # 12 pods queued
    assert not d._quiet(hooks)  # timed out: unknown, not quiet
    assert not d._quiet(hooks)  # no gauge on the page: unknown
    assert d._quiet(hooks)
    time.sleep(0.35)
    assert not d._quiet(Answers(None))  # however long it lasts
    assert d.warnings == []


def test_metrics_that_never_answer_are_judged_by_time_after_the_grace_period() -> None:
    d = quiet_driver()
    hooks = Answers()
    assert not d._quiet(hooks)
    time.sleep(0.35)
    assert d._quiet(hooks)
    assert d.warnings == ["kube-scheduler's metrics never answered in this scenario: "
                          "quiescence judged by 0.8 s without change"]


def test_quiet_waits_for_bindings_and_status_patches_the_api_does_not_show_yet() -> None:
    """The cause of the docker differential's 200-node scenarios with pods never attempted:
    kube-scheduler had popped every pod (active and backoff queues empty) while their
    bindings, goroutines blocked on a stalled API server, were not visible yet; the driver
    judged the run quiet and read the pods back unbound."""
    d = quiet_driver("default/a", "default/b", grace=5.0)
    rec = d.recorder
    assert not d._quiet(Answers(idle(bindings_in_flight=2.0)))
    assert not d._quiet(Answers(idle(api_calls_pending=1.0)))
    # the scheduler counted a binding the watch has not shown
    rec.on_pod("MODIFIED", {"metadata": {"namespace": "default", "name": "a", "uid": "1"},
                            "spec": {"nodeName": "n1"}}, time.monotonic() - 5.0)
    rec.last_change = time.monotonic() - 5.0
    assert not d._quiet(Answers(idle(scheduled=2.0)))
    # every binding shown, but b (pending, served) shows no attempt: its failure is on its way
    assert not d._quiet(Answers(idle(scheduled=1.0)))
    rec.on_pod("MODIFIED", {"metadata": {"namespace": "default", "name": "b", "uid": "2"},
                            "spec": {}, "status": {"conditions": [
                                {"type": "PodScheduled", "status": "False",
                                 "reason": "Unschedulable", "message": "0/1 nodes"}]}},
               time.monotonic() - 5.0)
    rec.last_change = time.monotonic() - 5.0
    assert d._quiet(Answers(idle(scheduled=1.0)))
    assert d.warnings == []


def test_pods_held_gone_or_served_by_another_scheduler_need_no_attempt() -> None:
    d = quiet_driver("default/gated", "default/gone", "default/other")
    rec = d.recorder
    rec.responsible = lambda key: key != "default/other"
    rec.on_pod("ADDED", {"metadata": {"namespace": "default", "name": "gated"},
                         "spec": {"schedulingGates": [{"name": "g"}]},
                         "status": {"conditions": [{"type": "PodScheduled", "status": "False",
                                                    "reason": "SchedulingGated"}]}}, 0.0)
    rec.on_pod("DELETED", {"metadata": {"namespace": "default", "name": "gone"}}, 0.0)
    rec.last_change = time.monotonic() - 5.0
    assert rec.unattempted() == []
    assert d._quiet(Answers(idle()))


def test_an_idle_scheduler_the_api_never_catches_up_with_stops_after_the_grace_period() -> None:
    d = quiet_driver("default/a")
    hooks = Answers(*[idle()] * 3)
    assert not d._quiet(hooks)
    time.sleep(0.35)
    assert d._quiet(hooks)
    assert d.warnings == ["kube-scheduler reported nothing queued or in flight for 0.3 s, "
                          "yet 1 pending pod(s) it serves show no attempt: default/a"]


def test_a_stalled_api_server_leaves_no_pod_unattempted() -> None:
    """End to end through the driver: the fake scheduler pops every pod at once and binds
    them after a stall longer than the settle time, reporting empty queues meanwhile (what
    kube-scheduler's gauges say while its binding goroutines wait for the API server)."""
    docs = [node("n1", "8")] + [pod(f"p{i}") for i in range(5)]

    class Stalled(FakeScheduler):
        in_flight = 0

        def scheduler_state(self) -> SchedulerState | None:
            return SchedulerState(queues={"active": 0.0, "backoff": 0.0},
                                  bindings_in_flight=float(self.in_flight),
                                  scheduled=float(self.bound))

    def script(api: FakeApi, s: FakeScheduler) -> None:
        assert isinstance(s, Stalled)
        s.in_flight = 5
        time.sleep(0.6)  # twelve settle periods without any change
        for i in range(5):
            s.bind("default", f"p{i}", "n1")
            s.in_flight -= 1

    api = FakeApi()
    sched = Stalled(api, script)
    d = Driver(api, opts(settle=0.05))
    doc = d.run(scenario(*docs), hooks=sched)
    assert sorted(doc["bindings"]) == [f"default/p{i}" for i in range(5)]
    assert doc["pending"] == [] and d.warnings == []


# --- the kubeconfig backend (shared mode on someone's cluster) ---------------------------------

def test_kubeconfig_backend_refuses_without_the_ownership_flag() -> None:
    from conformance.core.errors import UsageError
    from conformance.subjects.factory import make_subject

    with pytest.raises(SubjectError, match="without --i-own-this-cluster kind-ks"):
        KubeconfigSubject("kind-ks")
    with pytest.raises(SubjectError, match="must be the same"):
        KubeconfigSubject("kind-ks", i_own_this_cluster="prod")
    with pytest.raises(SubjectError, match="without --i-own-this-cluster"):
        make_subject("kubeconfig:kind-ks")
    with pytest.raises(UsageError, match="needs the context"):
        make_subject("kubeconfig:", i_own_this_cluster="x")
    s = make_subject("kubeconfig:kind-ks", i_own_this_cluster="kind-ks")
    assert isinstance(s, KubeconfigSubject) and s.describe()["context"] == "kind-ks"


def test_kubeconfig_backend_assumes_the_default_configuration_unless_told(
        tmp_path: Path) -> None:
    """The cluster's scheduler keeps its own configuration: without ``--config`` it is taken
    to be the default one (kubeadm and kind start kube-scheduler without a file), so the
    reference and the oracles use that, not each scenario's own."""
    s = KubeconfigSubject("kind-ks", i_own_this_cluster="kind-ks")
    assert s.fixed_config == CLUSTER_DEFAULT_CONFIG
    assert s.fixed_config["kind"] == "KubeSchedulerConfiguration"
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\n"
                   "kind: KubeSchedulerConfiguration\nparallelism: 4\n")
    told = KubeconfigSubject("kind-ks", i_own_this_cluster="kind-ks", config_path=str(cfg))
    assert told.fixed_config["parallelism"] == 4


def test_kubeconfig_backend_refuses_clusters_with_schedulable_foreign_nodes() -> None:
    api = FakeApi()
    api.create("Node", {"metadata": {"name": "kind-worker"}})
    api.create("Node", {"metadata": {"name": "kind-control-plane"},
                        "spec": {"unschedulable": True}})
    s = KubeconfigSubject("kind-ks", i_own_this_cluster="kind-ks", api=api, settle=0.05)
    with pytest.raises(SubjectError, match=r"schedulable nodes this tool did not create "
                                           r"\(kind-worker\)"):
        s.run(scenario(node("n1"), pod("p")))
    assert not any(c[0] == "create" and c[1] == "Pod" for c in api.calls)


def test_kubeconfig_backend_refuses_foreign_dra_objects_the_pods_would_see() -> None:
    """The run keeps the names of DeviceClasses and ResourceSlices: the cluster's own class of
    the same name, or a slice whose devices can reach any node (a DRA driver installed there),
    would change what the pods get, so the run is refused before anything is created; a slice
    of one of the cluster's own nodes cannot reach the run's nodes and is no obstacle."""
    gpu_class = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                 "metadata": {"name": "gpu.example.com"}, "spec": {}}
    api = FakeApi()
    api.create("ResourceSlice", {"metadata": {"name": "kind-worker-gpu"},
                                 "spec": {"driver": "gpu.example.com", "nodeName": "kind-worker",
                                          "pool": {"name": "p"}}})
    s = KubeconfigSubject("kind-ks", i_own_this_cluster="kind-ks", api=api, settle=0.05)
    api.create("DeviceClass", {"metadata": {"name": "gpu.example.com"}})
    with pytest.raises(SubjectError, match=r"DeviceClass gpu.example.com \(the scenario has") \
            as refused:
        s.run(scenario(node("n1"), dict(gpu_class), pod("p")))
    assert "kind-worker-gpu" not in str(refused.value)
    api.create("ResourceSlice", {"metadata": {"name": "net"},
                                 "spec": {"driver": "net.example.com", "allNodes": True,
                                          "pool": {"name": "p"}}})
    with pytest.raises(SubjectError, match=r"ResourceSlice net \(driver net.example.com"):
        s.run(scenario(node("n1"), dict(gpu_class, metadata={"name": "other"}), pod("p")))
    assert not any(c[0] == "create" and c[1] in ("Pod", "Node") for c in api.calls)


def test_kubeconfig_backend_runs_in_its_own_namespaces_and_cleans_up() -> None:
    api = FakeApi()
    api.create("Node", {"metadata": {"name": "kind-control-plane"},
                        "spec": {"unschedulable": True}})
    api.create("Pod", {"metadata": {"name": "coredns", "namespace": "kube-system"}})
    orig = api.patch

    def patch(kind: str, name: str, body: Any, namespace: str | None = None,
              **kw: Any) -> dict[str, Any]:
        out = orig(kind, name, body, namespace, **kw)
        if kw.get("patch_type") == "json" and kind == "Pod":  # released: the cluster binds it
            node_name = sorted(n for n in api.names("Node") if n.endswith("-n1"))[0]
            threading.Thread(target=lambda: orig("Pod", name, {"spec": {
                "nodeName": node_name}}, namespace), daemon=True).start()
        return out

    api.patch = patch  # type: ignore[method-assign]
    s = KubeconfigSubject("kind-ks", i_own_this_cluster="kind-ks", api=api, settle=0.05,
                          timeout=10)
    with s:
        doc = s.run(scenario(node("n1"), pod("p", ns="apps"))).result
        created_ns = [c[3] for c in api.calls if c[0] == "create" and c[1] == "Namespace"]
        created_nodes = [c[3] for c in api.calls if c[0] == "create" and c[1] == "Node"
                         and c[3] != "kind-control-plane"]
    run_id = created_nodes[0][: -len("-n1")]
    assert created_ns == [f"{run_id}-apps"] and run_id.startswith(s.prefix)
    assert doc["bindings"] == {"apps/p": "n1"}
    # only the cluster's own objects are left
    assert api.names("Node") == ["kind-control-plane"]
    assert sorted(api.pods()) == ["kube-system/coredns"]
    assert f"{run_id}-apps" not in api.names("Namespace")


def test_kubeconfig_backend_reports_what_it_could_not_delete() -> None:
    api = FakeApi()
    orig = api.delete

    def delete(kind: str, name: str, namespace: str | None = None, **kw: Any) -> bool:
        if kind == "Node":
            raise ApiError(403, "nodes is forbidden: User cannot delete resource")
        return orig(kind, name, namespace, **kw)

    api.delete = delete  # type: ignore[method-assign]
    s = KubeconfigSubject("kind-ks", i_own_this_cluster="kind-ks", api=api, settle=0.05,
                          timeout=5)
    with s, pytest.raises(SubjectError, match="could not delete everything(.|\n)*forbidden"):
        s.run(scenario(node("n1")))


def test_ownership_flag_reaches_the_subject_from_every_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``--i-own-this-cluster`` on run, reproduce, diff and golden verify: without it the
    kubeconfig subject is refused with a message naming the flag; with it the subject is made
    and goes on to read the kubeconfig (here a missing file: a subject error naming it)."""
    from conformance.cli.main import main

    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing-kubeconfig"))
    case = tmp_path / "case.yaml"
    ScenarioInput([node("n1"), pod("p")], None, 0, "case").write(case)
    commands = [
        ["run", "--suite", "golden", "--out", str(tmp_path / "out")],
        ["reproduce", str(case)],
        ["diff", "--replay", str(case)],
        ["golden", "verify", "--only", "fit/cpu-memory"],
    ]
    for argv in commands:
        spec = ["--upstream" if argv[0] == "diff" else "--subject", "kubeconfig:kind-ks"]
        assert main([*argv, *spec]) == 2, argv
        err = capsys.readouterr()
        assert "--i-own-this-cluster kind-ks" in err.out + err.err, argv
        assert main([*argv, *spec, "--i-own-this-cluster", "kind-ks"]) == 2, argv
        err = capsys.readouterr()
        text = err.out + err.err
        assert "missing-kubeconfig" in text and "refusing" not in text, (argv, text)


def test_rerun_and_reproduce_commands_keep_the_ownership_flag() -> None:
    from conformance.engines.run import RunOptions, reproduce_command, rerun_command

    opts = RunOptions(subject="kubeconfig:kind-ks", i_own_this_cluster="kind-ks")
    assert "--i-own-this-cluster kind-ks" in rerun_command(opts, ["small"], 1)
    assert "--i-own-this-cluster kind-ks" in reproduce_command("c.yaml", opts, None)
    assert "--i-own-this-cluster" not in rerun_command(RunOptions(), ["small"], 1)
