"""Driving a real kube-apiserver through a scenario, watching a real kube-scheduler decide.

The driver is what every control-plane launcher shares (``process``, ``docker``,
``kubeconfig``): it turns a :class:`~conformance.scenario.ScenarioInput` into API objects,
creates them, lets the scheduler work, applies the scenario's timeline, watches what happens and
returns the ``SimulationResult`` document. It talks to the API server through a small
:class:`ClusterApi` interface; :class:`KubeApi` implements it with the official ``kubernetes``
client (``DynamicClient``, plain dict manifests), the tests implement it in memory.

**Objects.** Namespaces, PriorityClasses, PodDisruptionBudgets (then their status:
``disruptionsAllowed`` is what preemption reads and no disruption controller runs), Nodes
(created with their status; patched when the server dropped it), running pods created bound
(``spec.nodeName``; then status: phase, ``startTime`` — DefaultPreemption's last tie-break),
then the pending pods in the scheduler's queue order, then the timeline. Every object carries
the label ``kschedconf.io/run=<id>`` so cleanup deletes exactly what this run made. Pods get
``terminationGracePeriodSeconds: 0`` (no kubelet will ever confirm a graceful deletion: a
preemption victim must go at once, as in the reference) and an image when they have none; the
driver also force-deletes any of its pods left terminating. Priorities: with the ``Priority``
admission plugin off (process and docker backends) the driver writes ``spec.priority`` and
``spec.preemptionPolicy`` exactly as the reference loader resolved them; on someone else's
cluster (admission on) each pod names a PriorityClass of the run for its resolved priority and
preemption policy (the scenario's classes are not created there: the cluster may have its own
of those names, and a ``globalDefault`` would change its default).

**Queue order.** Upstream's PrioritySort pops equal-priority pods by the time they entered
the queue. When the scheduler starts after the objects exist (process, docker), it receives
them in the API server's LIST order — by name, namespace first — before it schedules anything,
so the driver names objects so that the name order is the scenario order: nodes (the node tree
keeps the order nodes arrive in, and equal scores are resolved in that order) and the pending
pods of a namespace are renamed ``n<k>-NAME`` / ``q<k>-NAME`` only when their names are not
already in that order (everything is mapped back in the result). Equal-priority pending pods
interleaved across namespaces cannot be ordered this way: the driver says so in
:attr:`Driver.warnings`. When the scheduler already runs (kubeconfig), pending pods are created
held by an extra scheduling gate ``kschedconf.io/hold`` and released one at a time in queue
order, each after the previous one's first attempt was seen.

**Watching.** One watch on the run's pods and one on ``Preempted`` events, each in a thread
feeding a queue; no polling of objects. Attempts are reconstructed from what the API shows:
``spec.nodeName`` set → ``Bound``; a new ``PodScheduled=False`` condition (reason
``Unschedulable`` / ``SchedulerError``, the FitError message) → ``Unschedulable`` / ``Error``,
or ``Nominated`` when ``status.nominatedNodeName`` was set with it; victims are the pods deleted
after the scheduler marked them ``DisruptionTarget`` (reason ``PreemptionByScheduler``),
attributed to their preemptor by the ``Preempted`` event (``related`` object) or, failing that,
to the last pod nominated to their node. What the API does not show is not invented: a retry
that fails with the same message leaves no trace (upstream patches the condition only when it
changes), per-node reasons are empty, and ``evaluatedNodes``/``feasibleNodes``/``attempt``/
``queue`` are not reported.

**Time.** The timeline's virtual times map to the wall clock through ``time_scale`` (wall
seconds per virtual second), starting when the scheduler is ready; an event is applied at its
time, or earlier as soon as the cluster is quiet (nothing happens in between: the virtual clock
jumps, as the reference's does). Attempts get the virtual time at which they were seen.

**Quiescence.** The run ends when every timeline event (up to ``spec.until``) is applied,
nothing changed for ``settle`` seconds and the scheduler's ``scheduler_pending_pods`` gauge
shows no pod in the active or backoff queue (without a reachable metrics endpoint: four times
the settle time), at ``spec.until``, or with a :class:`SubjectError` after ``timeout`` seconds.
"""

from __future__ import annotations

import contextlib
import copy
import json
import queue
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from conformance.backends.scheduler_log import order_attempts, parse_cycles
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectError
from reference_impl.releases.pinned import UPSTREAM_RELEASE

RUN_LABEL = "kschedconf.io/run"
#: seconds one API request may take (the client's ``_request_timeout``)
REQUEST_TIMEOUT = 30.0
#: seconds the API server keeps one watch open before the driver resumes it
WATCH_SECONDS = 60
#: broken watch streams in one scenario after which the API server counts as unreachable
MAX_WATCH_FAILURES = 20
#: seconds between liveness checks of the launcher's components during a scenario
ALIVE_CHECK_INTERVAL = 0.25
#: Evaluator.Preempt's message when it nominates a node (pkg/scheduler/framework/preemption/
#: preemption.go), part of the pod's PodScheduled condition message.
PREEMPTION_FOUND = "preemption: found a potential placement for pod on node"
HOLD_GATE = "kschedconf.io/hold"
DEFAULT_IMAGE = "registry.k8s.io/pause:3.10"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
SCHED_CONFIG_API = "kubescheduler.config.k8s.io/v1"
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
SYSTEM_PRIORITY_CLASSES = ("system-node-critical", "system-cluster-critical")
NS_NAME_LABEL = "kubernetes.io/metadata.name"
PREEMPTED_REASON = "Preempted"
DISRUPTION_TARGET = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"

BOUND = "Bound"
UNSCHEDULABLE = "Unschedulable"
ERROR = "Error"
GATED = "Gated"
NOMINATED = "Nominated"

# metadata fields the API server sets itself (or that would stop our cleanup)
_SERVER_META = ("uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
                "deletionGracePeriodSeconds", "generation", "managedFields", "selfLink",
                "finalizers", "generateName")


class ApiError(Exception):
    """A request the API server refused (``status`` is the HTTP status)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


WatchSink = Callable[[str, dict[str, Any]], None]


class ClusterApi(Protocol):
    """What the driver needs from an API server. Kinds: Namespace, Node, Pod, PriorityClass,
    PodDisruptionBudget, Event. Every method raises :class:`ApiError` for a refusal."""

    def create(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]: ...

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        ...

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, *,
              status: bool = False, patch_type: str = "merge") -> dict[str, Any]: ...

    def delete(self, kind: str, name: str, namespace: str | None = None,
               grace_period_seconds: int | None = 0) -> bool: ...

    def list(self, kind: str, *, label_selector: str | None = None,
             field_selector: str | None = None) -> tuple[list[dict[str, Any]], str]: ...

    def watch(self, kind: str, sink: WatchSink, stop: threading.Event, *,
              resource_version: str, label_selector: str | None = None,
              field_selector: str | None = None) -> None:
        """Call ``sink(type, object)`` for every change after ``resource_version`` until
        ``stop`` is set (blocking: the driver runs it in a thread)."""
        ...

    def finalize_namespace(self, name: str) -> None: ...


# --- the kubernetes client -----------------------------------------------------------------------

_KINDS: dict[str, tuple[str, str, bool]] = {  # kind -> (api prefix, resource, namespaced)
    "Namespace": ("/api/v1", "namespaces", False),
    "Node": ("/api/v1", "nodes", False),
    "Pod": ("/api/v1", "pods", True),
    "Event": ("/api/v1", "events", True),
    "PriorityClass": ("/apis/scheduling.k8s.io/v1", "priorityclasses", False),
    "PodDisruptionBudget": ("/apis/policy/v1", "poddisruptionbudgets", True),
}
_API_VERSIONS = {"Namespace": "v1", "Node": "v1", "Pod": "v1", "Event": "v1",
                 "PriorityClass": "scheduling.k8s.io/v1", "PodDisruptionBudget": "policy/v1"}
_PATCH_TYPES = {"merge": "application/merge-patch+json",
                "strategic": "application/strategic-merge-patch+json",
                "json": "application/json-patch+json"}


def api_path(kind: str, namespace: str | None = None, name: str | None = None,
             sub: str | None = None) -> str:
    prefix, resource, namespaced = _KINDS[kind]
    p = prefix
    if namespaced and namespace:
        p += f"/namespaces/{namespace}"
    p += f"/{resource}"
    if name:
        p += f"/{name}"
    if sub:
        p += f"/{sub}"
    return p


class KubeApi:
    """:class:`ClusterApi` over the official ``kubernetes`` client (``DynamicClient``), with
    plain dict manifests in and out."""

    def __init__(self, api_client: Any, discovery_cache: str | None = None) -> None:
        from kubernetes.dynamic import DynamicClient

        self.api_client = api_client
        self.dyn = DynamicClient(api_client, cache_file=discovery_cache)

    @classmethod
    def from_kubeconfig(cls, path: str, context: str | None = None,
                        discovery_cache: str | None = None) -> KubeApi:
        from kubernetes import config

        return cls(config.new_client_from_config(config_file=path, context=context),
                   discovery_cache)

    def _request(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        from kubernetes.client.exceptions import ApiException
        from kubernetes.dynamic.exceptions import DynamicApiError

        try:
            resp = self.dyn.request(method, path, body=body, serialize=False,
                                    _request_timeout=REQUEST_TIMEOUT, **params)
        except DynamicApiError as e:
            raise ApiError(int(e.status or 0), _api_message(e.body, e.summary())) from None
        except ApiException as e:
            raise ApiError(int(e.status or 0), _api_message(e.body, str(e.reason))) from None
        data = resp.data if hasattr(resp, "data") else resp
        if isinstance(data, bytes):
            data = data.decode("utf-8")
        return json.loads(data) if data else {}

    def create(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        ns = obj.get("metadata", {}).get("namespace")
        return self._request("post", api_path(kind, ns), body=obj)

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        try:
            return self._request("get", api_path(kind, namespace, name))
        except ApiError as e:
            if e.status == 404:
                return None
            raise

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, *,
              status: bool = False, patch_type: str = "merge") -> dict[str, Any]:
        return self._request("patch", api_path(kind, namespace, name,
                                               "status" if status else None),
                             body=patch, content_type=_PATCH_TYPES[patch_type])

    def delete(self, kind: str, name: str, namespace: str | None = None,
               grace_period_seconds: int | None = 0) -> bool:
        try:
            self._request("delete", api_path(kind, namespace, name),
                          grace_period_seconds=grace_period_seconds)
        except ApiError as e:
            if e.status == 404:
                return False
            raise
        return True

    def list(self, kind: str, *, label_selector: str | None = None,
             field_selector: str | None = None) -> tuple[list[dict[str, Any]], str]:
        doc = self._request("get", api_path(kind), label_selector=label_selector,
                            field_selector=field_selector)
        return list(doc.get("items") or []), str(doc.get("metadata", {}).get("resourceVersion",
                                                                              ""))

    def watch(self, kind: str, sink: WatchSink, stop: threading.Event, *,
              resource_version: str, label_selector: str | None = None,
              field_selector: str | None = None) -> None:
        """Stream ``kind`` from ``resource_version`` into ``sink`` until ``stop`` is set.

        The server ends a watch after ``WATCH_SECONDS``; it is resumed from the last
        resource version seen, so nothing is missed. Setting ``stop`` shuts the open stream
        down at once (a waiter thread closes its socket). A broken stream is reported to the
        sink as ``ERROR`` and resumed; an expired resource version (HTTP 410: events were
        lost) is reported as ``ERROR`` with ``lost: True`` and ends the watch."""
        from kubernetes import watch
        from kubernetes.client.exceptions import ApiException

        resource = self.dyn.resources.get(api_version=_API_VERSIONS[kind], kind=kind)
        rv = resource_version
        current: list[Any] = []

        def shut_down_on_stop() -> None:
            stop.wait()
            for w in list(current):
                resp = getattr(w, "_resp", None)  # the open stream (kubernetes.watch.Watch)
                with contextlib.suppress(Exception):
                    w.stop()
                    if resp is not None:
                        resp.shutdown()
        threading.Thread(target=shut_down_on_stop, name=f"kschedconf-watch-{kind}-stop",
                         daemon=True).start()
        while not stop.is_set():
            w = watch.Watch()
            current[:] = [w]
            try:
                for ev in self.dyn.watch(resource, label_selector=label_selector,
                                         field_selector=field_selector, resource_version=rv,
                                         timeout=WATCH_SECONDS, watcher=w,
                                         allow_watch_bookmarks=True):
                    raw = ev.get("raw_object") or {}
                    rv = raw.get("metadata", {}).get("resourceVersion", rv) or rv
                    if ev.get("type") in ("ADDED", "MODIFIED", "DELETED"):
                        sink(ev["type"], raw)
                    if stop.is_set():
                        break
            except ApiException as e:
                if stop.is_set():
                    return
                if e.status == 410:
                    sink("ERROR", {"message": f"the watch of {kind}s expired (resource "
                                              f"version {rv}): {e.reason}", "lost": True})
                    return
                sink("ERROR", {"message": f"the watch of {kind}s failed: HTTP {e.status} "
                                          f"{e.reason}", "lost": False})
                stop.wait(0.2)
            except Exception as e:  # a broken stream: report it, resume from rv
                if stop.is_set():
                    return
                sink("ERROR", {"message": f"the watch of {kind}s broke: "
                                          f"{type(e).__name__}: {e}", "lost": False})
                stop.wait(0.2)

    def finalize_namespace(self, name: str) -> None:
        obj = self.get("Namespace", name)
        if obj is None:
            return
        obj.setdefault("spec", {})["finalizers"] = []
        self._request("put", api_path("Namespace", None, name, "finalize"), body=obj)


def _api_message(body: Any, fallback: str) -> str:
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            return str(json.loads(body).get("message") or fallback)
        except (ValueError, AttributeError):
            return body or fallback
    return fallback


# --- the scheduler's configuration ----------------------------------------------------------------

def scheduler_config(config: Mapping[str, Any] | None, kubeconfig: str, *,
                     parallelism: int | None = 1, qps: float = 5000.0,
                     burst: int = 10000) -> dict[str, Any]:
    """The KubeSchedulerConfiguration kube-scheduler runs with: the scenario's (or the
    release's defaults), with the connection to our API server, leader election off,
    ``parallelism`` (1 unless None: the nodes a pod is checked against are then examined in a
    fixed order, as in the reference) and a high client QPS (bindings are API calls)."""
    doc: dict[str, Any] = copy.deepcopy(dict(config)) if config else {
        "apiVersion": SCHED_CONFIG_API, "kind": "KubeSchedulerConfiguration"}
    doc.setdefault("apiVersion", SCHED_CONFIG_API)
    doc.setdefault("kind", "KubeSchedulerConfiguration")
    cc = dict(doc.get("clientConnection") or {})
    cc.update({"kubeconfig": kubeconfig, "qps": qps, "burst": burst})
    doc["clientConnection"] = cc
    doc["leaderElection"] = {"leaderElect": False}
    if parallelism is not None:
        doc["parallelism"] = parallelism
    return doc


def profile_scheduler_names(config: Mapping[str, Any] | None) -> set[str]:
    """The schedulerNames of a configuration's profiles (default-scheduler without one)."""
    profiles = (config or {}).get("profiles") or []
    names = {p.get("schedulerName") or DEFAULT_SCHEDULER_NAME
             for p in profiles if isinstance(p, Mapping)}
    return names or {DEFAULT_SCHEDULER_NAME}


def parse_metrics(text: str, name: str = "scheduler_pending_pods") -> dict[str, float]:
    """``name{queue="X"} value`` lines of a Prometheus text page → {X: value}."""
    out: dict[str, float] = {}
    pat = re.compile(rf'^{re.escape(name)}\{{([^}}]*)\}}\s+(\S+)')
    for line in text.splitlines():
        m = pat.match(line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        try:
            out[labels.get("queue", "")] = out.get(labels.get("queue", ""), 0.0) + float(
                m.group(2))
        except ValueError:
            continue
    return out


# --- names ------------------------------------------------------------------------------------

@dataclass(slots=True)
class Naming:
    """Scenario names ↔ API names (identity unless a launcher or the queue order needs
    otherwise)."""

    namespaces: dict[str, str] = field(default_factory=dict)
    nodes: dict[str, str] = field(default_factory=dict)
    pods: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (api ns, api name)
    namespace_prefix: str = ""
    node_prefix: str = ""
    _node_back: dict[str, str] = field(default_factory=dict)
    _pod_back: dict[tuple[str, str], str] = field(default_factory=dict)

    def ns(self, name: str) -> str:
        if name not in self.namespaces:
            self.namespaces[name] = self.namespace_prefix + name
        return self.namespaces[name]

    def ns_back(self, api_name: str) -> str | None:
        for k, v in self.namespaces.items():
            if v == api_name:
                return k
        return None

    def node(self, name: str) -> str:
        api = self.nodes.get(name)
        if api is None:
            api = self.node_prefix + name
            self.set_node(name, api)
        return api

    def set_node(self, name: str, api: str) -> None:
        self.nodes[name] = api
        self._node_back[api] = name

    def node_back(self, api: str | None) -> str | None:
        if not api:
            return None
        return self._node_back.get(api, api)

    def pod(self, key: str) -> tuple[str, str]:
        got = self.pods.get(key)
        if got is None:
            ns, _, name = key.partition("/")
            got = (self.ns(ns), name)
            self.set_pod(key, got)
        return got

    def set_pod(self, key: str, api: tuple[str, str]) -> None:
        self.pods[key] = api
        self._pod_back[api] = key

    def pod_back(self, api_ns: str, api_name: str) -> str | None:
        return self._pod_back.get((api_ns, api_name))


def _sortable_prefix(letter: str, i: int, width: int) -> str:
    return f"{letter}{i:0{width}d}-"


# --- the plan: API objects from a scenario -----------------------------------------------------

@dataclass(slots=True)
class PlannedPod:
    key: str
    manifest: dict[str, Any]
    status: dict[str, Any] | None  # status to patch after create
    priority: int
    responsible: bool
    own_gates: tuple[str, ...]


@dataclass(slots=True)
class PlannedEvent:
    at: int  # virtual nanoseconds
    index: int
    action: str
    target: str
    apply: Callable[[], str | None]


@dataclass(slots=True)
class Plan:
    namespaces: list[dict[str, Any]] = field(default_factory=list)
    priority_classes: list[dict[str, Any]] = field(default_factory=list)
    pdbs: list[tuple[dict[str, Any], dict[str, Any] | None]] = field(default_factory=list)
    nodes: list[tuple[dict[str, Any], dict[str, Any] | None]] = field(default_factory=list)
    running: list[PlannedPod] = field(default_factory=list)
    pending: list[PlannedPod] = field(default_factory=list)  # queue order
    config: dict[str, Any] | None = None
    responsible_names: set[str] = field(default_factory=set)
    until: int | None = None
    timeline: Any = None  # reference_impl.model.scenario.Scenario
    seed: int = 0
    warnings: list[str] = field(default_factory=list)


def expand_documents(docs: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """Objects of a document list: ``kind: List`` and typed lists give their items."""
    for d in docs:
        if not isinstance(d, dict):
            continue
        kind = str(d.get("kind") or "")
        if "items" in d and (kind == "List" or kind.endswith("List")):
            item_kind = kind[:-4] if kind != "List" else ""
            for it in d.get("items") or []:
                if isinstance(it, dict):
                    it = dict(it)
                    if item_kind and not it.get("kind"):
                        it["kind"] = item_kind
                    yield it
        else:
            yield d


def gates_message(gates: Iterable[str]) -> str:
    """What upstream's SchedulingGates PreEnqueue says (``waiting for scheduling gates: %v``,
    pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go): the scheduler reports
    it nowhere, so Gated records are derived from the pod's gates with the same words."""
    return f"waiting for scheduling gates: [{' '.join(gates)}]"


def _clean_meta(meta: Mapping[str, Any] | None, *, keep_owners: bool) -> dict[str, Any]:
    m = {k: copy.deepcopy(v) for k, v in (meta or {}).items() if k not in _SERVER_META}
    if not keep_owners:
        m.pop("ownerReferences", None)
    return m


# --- the recorder: attempts from watch events ----------------------------------------------------

@dataclass(slots=True)
class _PodState:
    bound: str | None = None
    signature: tuple[str, str, str] | None = None  # (reason, message, nominatedNodeName)
    nominated: str = ""
    victim: bool = False
    gone: bool = False
    attempts: int = 0
    last_nominated_attempt: dict[str, Any] | None = None
    uid: str = ""
    node: str = ""  # api node it is bound to
    force_deleted: bool = False


class Recorder:
    """Turns pod and event watch notifications into the SimulationResult's attempts."""

    def __init__(self, naming: Naming, responsible: Callable[[str], bool],
                 clock: Callable[[float], float]) -> None:
        self.naming = naming
        self.responsible = responsible
        self.clock = clock
        self.attempts: list[dict[str, Any]] = []
        self.states: dict[str, _PodState] = {}
        self.victims: list[str] = []
        self.victim_nodes: dict[str, tuple[str, float]] = {}  # victim -> (api node, wall)
        self.attributed: set[str] = set()
        self.uid_key: dict[str, str] = {}
        self.last_change = time.monotonic()
        self.expected_deletions: set[str] = set()  # keys the driver deletes itself
        self.terminating: set[str] = set()  # keys with a deletionTimestamp still present
        self.errors: list[str] = []
        self.pending_keys: set[str] = set()  # pods that were pending when created

    def state(self, key: str) -> _PodState:
        st = self.states.get(key)
        if st is None:
            st = self.states[key] = _PodState()
        return st

    def changed(self, wall: float | None = None) -> None:
        self.last_change = time.monotonic() if wall is None else wall

    def _record(self, key: str, outcome: str, wall: float, *, node: str | None = None,
                message: str = "", nominated: str | None = None) -> dict[str, Any]:
        st = self.state(key)
        st.attempts += 1
        a = {"pod": key, "outcome": outcome, "node": node, "reasons": {}, "message": message,
             "nominatedNode": nominated, "candidates": [node] if node else [], "victims": [],
             "time": round(max(0.0, self.clock(wall)), 6)}
        self.attempts.append(a)
        if outcome == NOMINATED:
            st.last_nominated_attempt = a
        return a

    def gated(self, key: str, wall: float, message: str) -> None:
        """A Gated record (the pod is held by its scheduling gates)."""
        self._record(key, GATED, wall, message=message)

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
        conditions = {c.get("type"): c for c in status.get("conditions") or []
                      if isinstance(c, Mapping)}
        dt = conditions.get(DISRUPTION_TARGET)
        if dt is not None and dt.get("status") == "True" and \
                dt.get("reason") == PREEMPTION_BY_SCHEDULER:
            st.victim = True
        if kind == "DELETED":
            self.terminating.discard(key)
            if not st.gone:
                st.gone = True
                if st.victim and key not in self.expected_deletions:
                    self.victims.append(key)
                    self.victim_nodes[key] = (str(spec.get("nodeName") or st.node), wall)
                self.changed(wall)
            return None
        node = spec.get("nodeName") or ""
        if node and not st.bound:
            st.bound = node
            st.node = node
            if key in self.pending_keys:
                self._record(key, BOUND, wall, node=self.naming.node_back(node))
            self.changed(wall)
        elif not node:
            cond = conditions.get("PodScheduled")
            reason = message = ""
            if cond is not None and cond.get("status") == "False":
                reason, message = str(cond.get("reason") or ""), str(cond.get("message") or "")
            nnn = str(status.get("nominatedNodeName") or "")
            sig = (reason, message, nnn)
            prev = st.signature
            if sig != prev:
                st.signature = sig
                new_verdict = prev is None or prev[:2] != (reason, message)
                new_nomination = bool(nnn) and (prev is None or prev[2] != nnn)
                if reason in (UNSCHEDULABLE, "SchedulerError") and (new_verdict or
                                                                     new_nomination):
                    # a new preemption to the node the pod was already nominated to shows
                    # only in the message (Evaluator.Preempt's status, preemption.go)
                    preempted = bool(nnn) and PREEMPTION_FOUND in message
                    outcome = (ERROR if reason == "SchedulerError"
                               else NOMINATED if new_nomination or preempted
                               else UNSCHEDULABLE)
                    self._record(key, outcome, wall, message=message,
                                 nominated=self.naming.node_back(nnn) if nnn else None)
                elif reason == "SchedulingGated" and new_verdict and self.responsible(key):
                    own = [g.get("name") for g in spec.get("schedulingGates") or []
                           if isinstance(g, Mapping) and g.get("name") != HOLD_GATE]
                    if own:
                        self.gated(key, wall, gates_message(own))
                st.nominated = nnn
                self.changed(wall)
        if meta.get("deletionTimestamp"):
            self.terminating.add(key)
            if not st.force_deleted:
                st.force_deleted = True
                return key
        return None

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


# --- the driver -------------------------------------------------------------------------------

@dataclass(slots=True)
class DriverOptions:
    run_id: str
    #: "owned": the launcher starts kube-scheduler after the objects exist (process, docker);
    #: "shared": a scheduler is already running (kubeconfig).
    mode: str = "owned"
    time_scale: float = 1.0  # wall seconds per virtual second
    settle: float = 0.5  # seconds without change that count as quiet
    timeout: float = 120.0  # wall seconds for one scenario, from the scheduler's start
    release_timeout: float = 5.0  # shared mode: longest wait for a released pod's attempt
    namespace_prefix: str = ""
    node_prefix: str = ""
    parallelism: int | None = 1
    rename_for_order: bool = True


class SchedulerHooks(Protocol):
    """What a launcher offers the driver (owned mode)."""

    def start_scheduler(self, config: dict[str, Any] | None) -> None:
        """Start kube-scheduler with the scenario's KubeSchedulerConfiguration (None: the
        release's defaults; see :func:`scheduler_config`) and return when it is ready."""
        ...

    def stop_scheduler(self) -> None: ...

    def scheduler_metrics(self) -> dict[str, float] | None: ...

    # optional: ``scheduler_log() -> str | None``, the running scheduler's log (``--v=3``),
    # whose scheduling cycles order the attempts (``scheduler_log.py``)


class Driver:
    """Runs scenarios against one API server (see the module docstring)."""

    def __init__(self, api: ClusterApi, options: DriverOptions) -> None:
        self.api = api
        self.opt = options
        self.selector = f"{RUN_LABEL}={options.run_id}"
        self._metrics_seen = False  # the scheduler_pending_pods gauge was read this scenario
        self.warnings: list[str] = []
        self.naming = Naming(namespace_prefix=options.namespace_prefix,
                             node_prefix=options.node_prefix)
        self.created_pcs: list[str] = []
        self.created_namespaces: list[str] = []
        self.touched_namespaces: dict[str, dict[str, str]] = {}  # existing ns -> labels before
        self.seconds: dict[str, float] = {}

    # ----- labels and manifests -----
    def _label(self, meta: dict[str, Any]) -> None:
        labels = dict(meta.get("labels") or {})
        labels[RUN_LABEL] = self.opt.run_id
        meta["labels"] = labels

    def plan(self, scenario: ScenarioInput) -> Plan:
        """Check the scenario with the reference loader and turn it into API objects."""
        from reference_impl.model.errors import InputError
        from reference_impl.model.loader import load_documents
        from reference_impl.model.scenario import parse_scenario

        try:
            loaded = load_documents(scenario.documents, source=scenario.name)
            timeline = (parse_scenario(loaded.scenario, loaded.cluster, source=scenario.name)
                        if loaded.scenario is not None else None)
        except InputError as e:
            raise SubjectError(f"scenario {scenario.name} is not valid input: {e}") from e
        cluster = loaded.cluster
        self._scenario_doc = loaded.scenario
        plan = Plan(timeline=timeline, seed=scenario.seed)
        plan.config = scenario.config if scenario.config is not None else cluster.config
        plan.responsible_names = profile_scheduler_names(plan.config)
        plan.until = timeline.until if timeline is not None else None
        owned = self.opt.mode == "owned"
        raw = list(expand_documents(scenario.documents))

        def raw_of(kind: str, ns: str | None, name: str) -> dict[str, Any]:
            for d in raw:
                if d.get("kind") != kind:
                    continue
                m = d.get("metadata") or {}
                if m.get("name") == name and (ns is None or (m.get("namespace") or "default")
                                              == ns):
                    return d
            return {"metadata": {"name": name}}

        # The queue order of the pods pending when the scheduler starts: the names (and
        # namespaces) they get follow from it
        pending = [p for p in cluster.pods if not p.node_name]
        pending.sort(key=lambda p: (p.creation_timestamp, p.order))
        events = timeline.events if timeline else []
        t0_pods = [ev.pod for ev in events if ev.at == 0 and ev.action == "createPod"
                   and ev.pod is not None and not ev.pod.node_name]
        if owned and self.opt.rename_for_order:
            self._order_pod_names([*pending, *t0_pods])

        # Namespaces (declared, implied by pods, and those of pods the timeline creates)
        namespaces = {name: {k: v for k, v in ns.labels.items() if k != NS_NAME_LABEL}
                      for name, ns in cluster.namespaces.items()}
        for ev in events:
            if ev.action == "createPod" and ev.pod is not None:
                namespaces.setdefault(ev.pod.namespace, {})
        for name, labels in namespaces.items():
            meta: dict[str, Any] = {"name": self.naming.ns(name), "labels": dict(labels)}
            self._label(meta)
            plan.namespaces.append({"apiVersion": "v1", "kind": "Namespace", "metadata": meta})
        for pc in cluster.priority_classes.values():
            if pc.name in SYSTEM_PRIORITY_CLASSES or self.opt.mode == "shared":
                # on someone's cluster the scenario's classes are not created under their
                # names (they may exist, and a globalDefault would change the cluster's
                # default): pods get classes of this run instead (_admission_priority)
                continue
            d = raw_of("PriorityClass", None, pc.name)
            meta = _clean_meta(d.get("metadata"), keep_owners=False)
            self._label(meta)
            obj = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                   "metadata": meta, "value": pc.value, "globalDefault": pc.global_default,
                   "preemptionPolicy": pc.preemption_policy}
            if d.get("description"):
                obj["description"] = d["description"]
            plan.priority_classes.append(obj)
        for pdb in cluster.pdbs:
            d = raw_of("PodDisruptionBudget", pdb.namespace, pdb.name)
            meta = _clean_meta(d.get("metadata"), keep_owners=False)
            meta["namespace"] = self.naming.ns(pdb.namespace)
            self._label(meta)
            obj = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta,
                   "spec": copy.deepcopy(d.get("spec") or {})}
            status = copy.deepcopy(d.get("status")) if d.get("status") else None
            if status is not None:
                status.setdefault("disruptionsAllowed", 0)
                for k in ("currentHealthy", "desiredHealthy", "expectedPods"):
                    status.setdefault(k, 0)
            plan.pdbs.append((obj, status))

        # Nodes: the initial ones and those created at time 0, in that order
        node_docs: list[tuple[str, dict[str, Any]]] = [
            (n.name, raw_of("Node", None, n.name)) for n in cluster.nodes]
        t0_nodes = [ev for ev in (timeline.events if timeline else [])
                    if ev.at == 0 and ev.action == "createNode"]
        ordered_names = [n for n, _ in node_docs] + [ev.target for ev in t0_nodes]
        if owned and self.opt.rename_for_order and ordered_names != sorted(ordered_names):
            width = max(3, len(str(len(ordered_names))))
            for i, n in enumerate(ordered_names):
                self.naming.set_node(n, _sortable_prefix("n", i, width) + self.opt.node_prefix
                                     + n)
            self.warnings.append("node names are not in input order: created as "
                                 "n<index>-NAME so the scheduler's node list keeps that order "
                                 "(names mapped back in the result)")
        for name, d in node_docs:
            plan.nodes.append(self.node_manifest(d, name))

        # Pods
        for p in cluster.pods:
            d = raw_of("Pod", p.namespace, p.name)
            pp = self.pod_manifest(d, p, plan)
            if p.node_name:
                plan.running.append(pp)
        for p in pending:
            plan.pending.append(self.pod_manifest(raw_of("Pod", p.namespace, p.name), p, plan))
        plan.warnings = self.warnings
        return plan

    def _order_pod_names(self, order: list[Any]) -> None:
        """Name the pending pods (``order``: the reference's queue order) so that the API
        server's LIST order — namespace, then name — puts every two pods of equal priority in
        that order: when two equal-priority pods of different namespaces would be listed the
        wrong way round, the namespaces that hold pending pods become ``s<k>-NAME`` (in the
        order of their first pending pod); when two of one namespace would, its pending pods
        become ``q<k>-NAME``. Equal-priority pods interleaved across namespaces cannot be
        ordered so: that is a warning."""
        width = max(3, len(str(len(order))))

        def misordered(same_ns: bool) -> bool:
            for i, p in enumerate(order):
                for q in order[i + 1:]:
                    if q.priority != p.priority or (q.namespace == p.namespace) != same_ns:
                        continue
                    if (q.name if same_ns else q.namespace) < (p.name if same_ns
                                                               else p.namespace):
                        return True
            return False

        first: dict[str, int] = {}
        for i, p in enumerate(order):
            first.setdefault(p.namespace, i)
        ns_order = sorted(first, key=first.__getitem__)
        if misordered(False) and not self.opt.namespace_prefix:
            nw = max(1, len(str(len(ns_order))))
            for k, ns in enumerate(ns_order):
                api = _sortable_prefix("s", k, nw) + ns
                if len(api) <= 63:
                    self.naming.namespaces[ns] = api
        by_ns: dict[str, list[tuple[int, Any]]] = {}
        for i, p in enumerate(order):
            by_ns.setdefault(p.namespace, []).append((i, p))
        rename_pods = misordered(True)
        for ns, items in by_ns.items():
            names = [p.name for _, p in items]
            if rename_pods and names != sorted(names):
                for i, p in items:
                    self.naming.set_pod(p.key, (self.naming.ns(ns),
                                                _sortable_prefix("q", i, width) + p.name))
        listed = sorted(range(len(order)), key=lambda i: self.naming.pod(order[i].key))
        rank = {i: r for r, i in enumerate(listed)}
        for i, p in enumerate(order):
            for j in range(i + 1, len(order)):
                q = order[j]
                if q.priority == p.priority and rank[j] < rank[i]:
                    self.warnings.append(
                        f"pending pods {p.key} and {q.key} have the same priority but the "
                        f"scheduler queues {q.key} first (it receives pods namespace by "
                        f"namespace); their order may differ from the reference's")
                    return

    def node_manifest(self, d: Mapping[str, Any], name: str) -> tuple[dict[str, Any],
                                                                       dict[str, Any] | None]:
        meta = _clean_meta(d.get("metadata"), keep_owners=False)
        meta["name"] = self.naming.node(name)
        self._label(meta)
        spec = copy.deepcopy(d.get("spec") or {})
        status = copy.deepcopy(d.get("status") or {})
        if status and "allocatable" not in status and "capacity" in status:
            status["allocatable"] = copy.deepcopy(status["capacity"])  # SetDefaults_NodeStatus
        obj = {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec,
               "status": status}
        return obj, (status or None)

    def pod_manifest(self, d: Mapping[str, Any], p: Any, plan: Plan) -> PlannedPod:
        """The API manifest of a model pod ``p`` (its raw document ``d``)."""
        owned = self.opt.mode == "owned"
        meta = _clean_meta(d.get("metadata"), keep_owners=owned)
        api_ns, api_name = self.naming.pod(p.key)
        meta["namespace"], meta["name"] = api_ns, api_name
        self._label(meta)
        spec = copy.deepcopy(d.get("spec") or {})
        spec["terminationGracePeriodSeconds"] = 0
        for group in ("initContainers", "containers"):
            for c in spec.get(group) or []:
                if isinstance(c, dict) and not c.get("image"):
                    c["image"] = DEFAULT_IMAGE
        if p.node_name:
            spec["nodeName"] = self.naming.node(p.node_name)
        self._map_affinity(spec)
        if owned:
            spec["priority"] = p.priority
            spec["preemptionPolicy"] = p.preemption_policy
        else:
            self._admission_priority(spec, p, plan)
        raw_status = d.get("status") or {}
        status: dict[str, Any] = {}
        if p.node_name:
            status["phase"] = raw_status.get("phase") or "Running"
            if raw_status.get("startTime"):
                status["startTime"] = raw_status["startTime"]
        elif raw_status.get("nominatedNodeName"):
            status["nominatedNodeName"] = self.naming.node(str(raw_status["nominatedNodeName"]))
        obj = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
        return PlannedPod(p.key, obj, status or None, p.priority,
                          p.scheduler_name in plan.responsible_names, tuple(p.scheduling_gates))

    def _admission_priority(self, spec: dict[str, Any], p: Any, plan: Plan) -> None:
        """Admission computes priorities on a shared cluster, from a class: a system class
        stays; every other pod gets the class of this run for the priority and preemption
        policy the reference loader resolved (``<run>-p<value>-<policy>``), so neither the
        cluster's classes nor its global default decide, and nothing of the cluster's is
        changed."""
        if p.priority_class_name in SYSTEM_PRIORITY_CLASSES:
            spec.pop("priority", None)
            spec.pop("preemptionPolicy", None)
            return
        name = f"{self.opt.run_id}-p{p.priority}-{p.preemption_policy.lower()}"
        if all(pc["metadata"]["name"] != name for pc in plan.priority_classes):
            meta: dict[str, Any] = {"name": name}
            self._label(meta)
            plan.priority_classes.append({
                "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                "metadata": meta, "value": p.priority, "globalDefault": False,
                "preemptionPolicy": p.preemption_policy})
        spec["priorityClassName"] = name
        spec.pop("priority", None)
        spec.pop("preemptionPolicy", None)

    def _map_affinity(self, spec: dict[str, Any]) -> None:
        """Node names in ``matchFields`` and namespace names in pod affinity terms follow the
        API names."""
        if self.naming.nodes:
            na = (spec.get("affinity") or {}).get("nodeAffinity") or {}
            terms = list((na.get("requiredDuringSchedulingIgnoredDuringExecution") or {})
                          .get("nodeSelectorTerms") or [])
            terms += [t.get("preference") or {} for t in
                      na.get("preferredDuringSchedulingIgnoredDuringExecution") or []]
            for t in terms:
                for f in t.get("matchFields") or []:
                    if f.get("key") == "metadata.name":
                        f["values"] = [self.naming.node(v) for v in f.get("values") or []]
        if not any(k != v for k, v in self.naming.namespaces.items()):
            return
        for kind in ("podAffinity", "podAntiAffinity"):
            a = (spec.get("affinity") or {}).get(kind) or {}
            terms = list(a.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
            terms += [w.get("podAffinityTerm") or {} for w in
                      a.get("preferredDuringSchedulingIgnoredDuringExecution") or []]
            for t in terms:
                if t.get("namespaces"):
                    t["namespaces"] = [self.naming.ns(n) for n in t["namespaces"]]
                sel = t.get("namespaceSelector")
                if isinstance(sel, dict):
                    ml = sel.get("matchLabels") or {}
                    if NS_NAME_LABEL in ml:
                        ml[NS_NAME_LABEL] = self.naming.ns(ml[NS_NAME_LABEL])
                    for e in sel.get("matchExpressions") or []:
                        if e.get("key") == NS_NAME_LABEL:
                            e["values"] = [self.naming.ns(v) for v in e.get("values") or []]

    # ----- creating objects -----
    def _create(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        try:
            return self.api.create(kind, obj)
        except ApiError as e:
            name = obj["metadata"].get("name")
            ns = obj["metadata"].get("namespace")
            where = f"{ns}/{name}" if ns else name
            raise SubjectError(f"the API server refused {kind} {where}: {e.message}") from e

    def _ensure_namespace(self, obj: dict[str, Any]) -> None:
        name = obj["metadata"]["name"]
        existing = self.api.get("Namespace", name)
        if existing is None:
            self._create("Namespace", obj)
            self.created_namespaces.append(name)
            return
        if (existing.get("metadata", {}).get("deletionTimestamp")):
            raise SubjectError(f"namespace {name} is being deleted; wait for it to go or use "
                               "another name")
        old = dict(existing.get("metadata", {}).get("labels") or {})
        self.touched_namespaces.setdefault(name, old)
        want = dict(obj["metadata"]["labels"])
        patch = {k: None for k in old if k not in want and k != NS_NAME_LABEL}
        patch.update(want)
        self.api.patch("Namespace", name, {"metadata": {"labels": patch}})

    def _create_pod(self, pp: PlannedPod, hold: bool = False) -> None:
        obj = pp.manifest
        if hold:
            obj = copy.deepcopy(obj)
            gates = list(obj["spec"].get("schedulingGates") or [])
            obj["spec"]["schedulingGates"] = [{"name": HOLD_GATE}, *gates]
        self._create("Pod", obj)
        if pp.status:
            ns, name = obj["metadata"]["namespace"], obj["metadata"]["name"]
            try:
                self.api.patch("Pod", name, {"status": pp.status}, ns, status=True)
            except ApiError as e:
                raise SubjectError(f"the API server refused the status of pod {ns}/{name}: "
                                   f"{e.message}") from e

    def _create_node(self, obj: dict[str, Any], status: dict[str, Any] | None) -> None:
        created = self._create("Node", obj)
        if status and (created.get("status") or {}).get("allocatable") is None:
            self.api.patch("Node", obj["metadata"]["name"], {"status": status}, status=True)

    def create_cluster(self, plan: Plan, *, hold_pending: bool) -> None:
        for ns in plan.namespaces:
            self._ensure_namespace(ns)
        for pc in plan.priority_classes:
            try:
                self.api.create("PriorityClass", pc)
                self.created_pcs.append(pc["metadata"]["name"])
            except ApiError as e:
                raise SubjectError(f"the API server refused PriorityClass "
                                   f"{pc['metadata']['name']}: {e.message}") from e
        for obj, status in plan.pdbs:
            self._create("PodDisruptionBudget", obj)
            if status:
                self.api.patch("PodDisruptionBudget", obj["metadata"]["name"],
                               {"status": status}, obj["metadata"]["namespace"], status=True)
        for obj, status in plan.nodes:
            self._create_node(obj, status)
        for pp in plan.running:
            self._create_pod(pp)
        for pp in plan.pending:
            self._create_pod(pp, hold=hold_pending)

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
        self.segments: list[tuple[float, int]] = []
        self._next_event_at: int | None = None
        self.watch_lost: list[str] = []
        self._last_alive_check = 0.0
        self.recorder = rec = Recorder(self.naming,
                                       lambda key: self._responsible.get(key, False),
                                       self._virtual)
        self._responsible = {pp.key: pp.responsible for pp in plan.running + plan.pending}
        rec.pending_keys = {pp.key for pp in plan.pending}
        events: queue.Queue[tuple[str, str, dict[str, Any], float]] = queue.Queue()
        stop = threading.Event()
        self._events, self._stop = events, stop
        threads: list[threading.Thread] = []
        try:
            _, pod_rv = self.api.list("Pod", label_selector=self.selector)
            _, ev_rv = self.api.list("Event", field_selector=f"reason={PREEMPTED_REASON}")
            for kind, rv, lsel, fsel in (("Pod", pod_rv, self.selector, None),
                                         ("Event", ev_rv, None, f"reason={PREEMPTED_REASON}")):
                def sink(t: str, o: dict[str, Any], kind: str = kind) -> None:
                    events.put((kind, t, o, time.monotonic()))
                th = threading.Thread(target=self.api.watch, args=(kind, sink, stop),
                                      kwargs={"resource_version": rv, "label_selector": lsel,
                                              "field_selector": fsel},
                                      name=f"kschedconf-watch-{kind}", daemon=True)
                th.start()
                threads.append(th)
            self.create_cluster(plan, hold_pending=not owned)
            timeline = self._timeline_events(plan)
            due_now = [e for e in timeline if e.at == 0]
            later = [e for e in timeline if e.at > 0]
            applied: list[dict[str, Any]] = []
            for e in due_now:
                applied.append(self._apply_event(e, 0))
            self.seconds["setup"] = time.monotonic() - t_begin
            if owned:
                assert hooks is not None
                t = time.monotonic()
                hooks.start_scheduler(plan.config)
                self.seconds["scheduler_start"] = time.monotonic() - t
            t0 = time.monotonic()
            self.segments = [(t0, 0)]
            self._drain(0.0)
            if not owned:
                self._release_held(plan)
            result = self._loop(plan, later, applied, hooks, t0)
        finally:
            stop.set()
            if owned and hooks is not None:
                with contextlib.suppress(Exception):
                    hooks.stop_scheduler()
            for th in threads:
                th.join(timeout=2.0)
        self.seconds["run"] = time.monotonic() - t_begin
        return result

    def _virtual(self, wall: float) -> float:
        """Virtual seconds at wall-clock ``wall``: each applied timeline event starts a segment
        at its virtual time; within a segment virtual time runs at 1/``time_scale`` but stops
        just short of the next event's time (it has not happened yet)."""
        segs = self.segments
        if not segs or wall < segs[0][0]:
            return 0.0
        i = 0
        while i + 1 < len(segs) and segs[i + 1][0] <= wall:
            i += 1
        seg_wall, seg_v = segs[i]
        v = seg_v / 1e9 + (wall - seg_wall) / self.opt.time_scale
        upper = segs[i + 1][1] if i + 1 < len(segs) else self._next_event_at
        if upper is not None:
            v = min(v, upper / 1e9 - 1e-6)
        return max(v, seg_v / 1e9)

    def _drain(self, timeout: float) -> bool:
        """Handle queued watch notifications (waiting up to ``timeout`` for the first).
        True when something was handled."""
        handled = False
        try:
            item = self._events.get(timeout=timeout) if timeout > 0 else \
                self._events.get_nowait()
        except queue.Empty:
            return False
        while True:
            kind, t, obj, wall = item
            handled = True
            if t == "ERROR":
                if obj.get("lost"):
                    self.watch_lost.append(str(obj.get("message")))
                else:
                    self.recorder.errors.append(str(obj.get("message")))
            elif kind == "Pod":
                force = self.recorder.on_pod(t, obj, wall)
                if force is not None:
                    ns, name = self.naming.pod(force)
                    with contextlib.suppress(ApiError):
                        self.api.delete("Pod", name, ns, grace_period_seconds=0)
            elif kind == "Event":
                self.recorder.on_event(obj, wall)
            try:
                item = self._events.get_nowait()
            except queue.Empty:
                return handled

    def _quiet(self, hooks: SchedulerHooks | None) -> bool:
        now = time.monotonic()
        rec = self.recorder
        if rec.terminating:
            return False
        since = now - rec.last_change
        if since < self.opt.settle:
            return False
        metrics = None
        if hooks is not None:
            try:
                metrics = hooks.scheduler_metrics()
            except Exception:
                metrics = None
        if not metrics or "active" not in metrics:
            # A failed read (a busy machine: the request timed out) is no sign of quiet once
            # the gauge has been read in this scenario: try again. Only a scheduler whose
            # gauge was never readable is judged by time alone.
            if self._metrics_seen:
                return False
            return since >= 4 * self.opt.settle
        self._metrics_seen = True
        return metrics.get("active", 0) == 0 and metrics.get("backoff", 0) == 0

    def _loop(self, plan: Plan, later: list[PlannedEvent], applied: list[dict[str, Any]],
              hooks: SchedulerHooks | None, t0: float) -> dict[str, Any]:
        until = plan.until
        within = [e for e in later if until is None or e.at <= until]
        beyond = len(later) - len(within)
        idx = 0
        stopped_by = "quiescence"
        end_v: float | None = None
        while True:
            self._next_event_at = within[idx].at if idx < len(within) else None
            now = time.monotonic()
            self._check_health(hooks, now)
            if now - t0 > self.opt.timeout:
                raise SubjectError(
                    f"the scheduler did not settle within {self.opt.timeout:g} s "
                    f"({len(self.recorder.attempts)} attempts seen; pods still changing or "
                    f"queued)")
            if idx < len(within):
                e = within[idx]
                seg_wall, seg_v = self.segments[-1]
                due = seg_wall + (e.at - seg_v) / 1e9 * self.opt.time_scale
                if now >= due or self._quiet(hooks):
                    self._drain(0.0)
                    self._next_event_at = None
                    self.segments.append((time.monotonic(), e.at))
                    applied.append(self._apply_event(e, e.at))
                    idx += 1
                    continue
                self._drain(min(0.05, max(0.001, due - now)))
                continue
            if until is not None and self._virtual(now) >= until / 1e9:
                stopped_by, end_v = "until", until / 1e9
                break
            if self._quiet(hooks):
                if beyond:
                    stopped_by, end_v = "until", until / 1e9 if until is not None else None
                break
            self._drain(0.05)
        self._drain(0.0)
        self._check_health(hooks, time.monotonic(), force=True)
        self._read_back()
        return self._result(plan, applied, stopped_by, end_v)

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

    # ----- held pods (shared mode) -----
    def _release_held(self, plan: Plan) -> None:
        """Remove the hold gate pod by pod in queue order, each after the previous pod's first
        attempt was seen (pods the scheduler does not handle, or held by their own gates, are
        released without waiting)."""
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

    # ----- the timeline -----
    def _timeline_events(self, plan: Plan) -> list[PlannedEvent]:
        out: list[PlannedEvent] = []
        tl = plan.timeline
        self._node_state: dict[str, dict[str, Any]] = {
            obj["metadata"]["name"]: obj for obj, _ in plan.nodes}
        self._pod_node: dict[str, str] = {pp.key: pp.manifest["spec"].get("nodeName", "")
                                          for pp in plan.running}
        self._gates: dict[str, tuple[str, ...]] = {pp.key: pp.own_gates for pp in plan.pending}
        self.removed: list[str] = []
        self.finished: list[str] = []
        if tl is None:
            return out
        for ev in tl.events:
            out.append(PlannedEvent(ev.at, ev.index, ev.action, ev.target,
                                    self._event_action(ev, plan)))
        return out

    def _apply_event(self, e: PlannedEvent, at: int) -> dict[str, Any]:
        try:
            outcome = e.apply()
        except ApiError as err:
            outcome = f"skipped: the API server refused it: {err.message}"
        self.recorder.changed()
        return {"time": at / 1e9, "index": e.index, "action": e.action, "target": e.target,
                "result": outcome or "applied"}

    def _event_action(self, ev: Any, plan: Plan) -> Callable[[], str | None]:
        """The API calls of one timeline event (``reference_impl/model/scenario.py``)."""
        api, naming = self.api, self.naming
        action = ev.action

        def node_patch(fn: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[], str | None]:
            def run() -> str | None:
                name = naming.node(ev.target)
                cur = self._node_state.get(name)
                if cur is None:
                    return "skipped: node not found"
                patch = fn(cur)
                new = api.patch("Node", name, patch)
                self._node_state[name] = new
                return None
            return run

        if action == "createNode":
            def create_node() -> str | None:
                name = naming.node(ev.target)
                if name in self._node_state:
                    return "skipped: node already exists"
                raw = self._raw_event(plan, ev.index).get("node") or {}
                obj, status = self.node_manifest(raw, ev.target)
                self._create_node(obj, status)
                self._node_state[name] = obj
                return None
            return create_node
        if action == "deleteNode":
            def delete_node() -> str | None:
                name = naming.node(ev.target)
                if name not in self._node_state:
                    return "skipped: node not found"
                api.delete("Node", name)
                del self._node_state[name]
                # the pod garbage collector's part: every pod on the node, running from the
                # start or bound since
                on_node = {key for key, node in self._pod_node.items() if node == name}
                on_node |= {key for key, st in self.recorder.states.items() if st.bound == name}
                for key in sorted(on_node):
                    if self._pod_alive(key):
                        self._delete_pod(key, self.removed)
                return None
            return delete_node
        if action in ("cordon", "uncordon"):
            flag = action == "cordon"
            return node_patch(lambda n: {"spec": {"unschedulable": flag}})
        if action == "labelNode":
            return node_patch(lambda n: {"metadata": {"labels": dict(ev.labels)}})
        if action == "taintNode":
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
            return node_patch(taint)
        if action == "untaintNode":
            def untaint(n: dict[str, Any]) -> dict[str, Any]:
                taints = [t for t in (n.get("spec") or {}).get("taints") or []
                          if not any(t.get("key") == k and (not eff or t.get("effect") == eff)
                                     for k, eff in ev.untaints)]
                return {"spec": {"taints": taints}}
            return node_patch(untaint)
        if action == "createPod":
            def create_pod() -> str | None:
                p = ev.pod
                st = self.recorder.states.get(p.key)
                if st is not None and not st.gone:
                    return "skipped: pod already exists"
                raw = dict(self._raw_event(plan, ev.index).get("pod") or {})
                raw.setdefault("metadata", {})
                pp = self.pod_manifest(raw, p, plan)
                if p.node_name and naming.node(p.node_name) not in self._node_state:
                    return f"skipped: node {p.node_name} not found"
                self._responsible[p.key] = pp.responsible
                if not p.node_name:
                    self.recorder.pending_keys.add(p.key)
                self._gates[p.key] = pp.own_gates
                self._create_pod(pp)
                if p.node_name:
                    self._pod_node[p.key] = naming.node(p.node_name)
                return None
            return create_pod
        if action == "deletePod":
            def delete_pod() -> str | None:
                if not self._pod_alive(ev.target):
                    return "skipped: pod not found"
                self._delete_pod(ev.target, self.removed)
                return None
            return delete_pod
        if action == "finishPod":
            def finish_pod() -> str | None:
                if not self._pod_alive(ev.target):
                    return "skipped: pod not found"
                st = self.recorder.states.get(ev.target)
                if not (st and st.bound) and ev.target not in self._pod_node:
                    return "skipped: pod is not running"
                ns, name = naming.pod(ev.target)
                self.recorder.expected_deletions.add(ev.target)
                api.patch("Pod", name, {"status": {"phase": "Succeeded"}}, ns, status=True)
                self.finished.append(ev.target)
                self._pod_node.pop(ev.target, None)
                self.recorder.state(ev.target).gone = True
                return None
            return finish_pod
        if action == "removeSchedulingGates":
            def ungate() -> str | None:
                if not self._pod_alive(ev.target):
                    return "skipped: pod not found"
                gates = self._gates.get(ev.target, ())
                if not gates:
                    return "skipped: pod has no scheduling gates"
                left = () if ev.gates is None else tuple(g for g in gates if g not in ev.gates)
                ns, name = naming.pod(ev.target)
                api.patch("Pod", name, [{"op": "replace", "path": "/spec/schedulingGates",
                                         "value": [{"name": g} for g in left]}], ns,
                          patch_type="json")
                self._gates[ev.target] = left
                if left and self._responsible.get(ev.target, False):
                    # at the event's own virtual time (the start of its segment)
                    wall = self.segments[-1][0] if self.segments else time.monotonic()
                    self.recorder.gated(ev.target, wall, gates_message(left))
                return None
            return ungate
        raise SubjectError(f"timeline action {action!r} is not supported by this backend")

    def _raw_event(self, plan: Plan, index: int) -> dict[str, Any]:
        events = (self._scenario_doc or {}).get("spec", {}).get("events") or []
        return events[index] if index < len(events) else {}

    _scenario_doc: dict[str, Any] | None = None

    def _pod_alive(self, key: str) -> bool:
        st = self.recorder.states.get(key)
        if st is not None:
            return not st.gone
        return key in self._responsible

    def _delete_pod(self, key: str, into: list[str]) -> None:
        ns, name = self.naming.pod(key)
        self.recorder.expected_deletions.add(key)
        self.api.delete("Pod", name, ns, grace_period_seconds=0)
        self.recorder.state(key).gone = True
        self._pod_node.pop(key, None)
        into.append(key)

    # ----- the result -----
    def _result(self, plan: Plan, applied: list[dict[str, Any]], stopped_by: str,
                end_v: float | None) -> dict[str, Any]:
        rec = self.recorder
        rec.attribute_remaining()
        self._order_by_scheduler_log(rec)
        bindings: dict[str, str] = {}
        pending: list[str] = []
        all_keys = set(self._responsible) | set(rec.states)
        for key in sorted(all_keys):
            st = rec.states.get(key)
            if st is not None and st.gone:
                continue
            if key in rec.victims or key in self.removed or key in self.finished:
                continue
            node = st.bound if st is not None else None
            if node is None and key in self._pod_node:
                node = self._pod_node[key]
            if node:
                bindings[key] = self.naming.node_back(node) or node
            else:
                pending.append(key)
        if end_v is None:
            last = [a["time"] for a in rec.attempts] + [e["time"] for e in applied]
            end_v = max(last, default=0.0)
        return {
            "apiVersion": "kschedconf/v1",
            "kind": "SimulationResult",
            "upstreamRelease": UPSTREAM_RELEASE,
            "seed": plan.seed,
            "attempts": rec.attempts,
            "bindings": bindings,
            "pending": pending,
            "deleted": sorted(rec.victims),
            "endTime": round(end_v, 6),
            "stoppedBy": stopped_by,
            "removed": sorted(self.removed),
            "finished": sorted(self.finished),
            "timeline": applied,
        }

    def _order_by_scheduler_log(self, rec: Recorder) -> None:
        """Put the observed attempts in the order of the scheduler's cycles when the launcher
        can read its log (see ``scheduler_log.py``: the API shows bindings late)."""
        read = getattr(getattr(self, "_hooks", None), "scheduler_log", None)
        if not callable(read):
            return
        try:
            text = read()
        except Exception as e:  # noqa: BLE001 - a missing log only costs the ordering
            self.warnings.append(f"could not read the scheduler's log to order attempts: {e}")
            return
        if not text:
            return
        cycles = parse_cycles(text.splitlines())
        if not cycles:
            self.warnings.append("the scheduler's log shows no scheduling cycle (is it run "
                                 "with --v=3?): attempts are in the order the API showed them")
            return

        def key(api: str) -> str | None:
            ns, _, name = api.partition("/")
            return self.naming.pod_back(ns, name)

        rec.attempts[:] = order_attempts(rec.attempts, cycles, key)

    # ----- cleanup -----
    def delete_owned(self, timeout: float = 30.0) -> list[str]:
        """Delete every object labelled with this run (pods at once, namespaces finalized when
        no namespace controller would), restore the labels of namespaces that existed before.
        Returns what could not be deleted."""
        problems: list[str] = []
        refused: set[str] = set()  # kinds whose deletion was refused: not waited for
        sel = self.selector
        for kind in ("Pod", "PodDisruptionBudget", "Node", "PriorityClass"):
            try:
                items, _ = self.api.list(kind, label_selector=sel)
            except ApiError as e:
                problems.append(f"list {kind}: {e.message}")
                continue
            for o in items:
                m = o.get("metadata") or {}
                try:
                    self.api.delete(kind, m.get("name", ""), m.get("namespace"),
                                    grace_period_seconds=0 if kind == "Pod" else None)
                except ApiError as e:
                    problems.append(f"delete {kind} {m.get('name')}: {e.message}")
                    refused.add(kind)
        for name, labels in self.touched_namespaces.items():
            cur = self.api.get("Namespace", name)
            if cur is None:
                continue
            now = dict(cur.get("metadata", {}).get("labels") or {})
            patch: dict[str, Any] = {k: None for k in now if k not in labels}
            patch.update(labels)
            with contextlib.suppress(ApiError):
                self.api.patch("Namespace", name, {"metadata": {"labels": patch}})
        self.touched_namespaces.clear()
        try:
            namespaces, _ = self.api.list("Namespace", label_selector=sel)
        except ApiError as e:
            problems.append(f"list Namespace: {e.message}")
            namespaces = []
        for ns in namespaces:
            name = ns.get("metadata", {}).get("name", "")
            if name in SYSTEM_NAMESPACES:
                continue
            try:
                self.api.delete("Namespace", name, grace_period_seconds=None)
            except ApiError as e:
                problems.append(f"delete Namespace {name}: {e.message}")
        deadline = time.monotonic() + timeout
        for kind in ("Pod", "Node"):
            if kind in refused:
                continue
            while time.monotonic() < deadline:
                items, _ = self.api.list(kind, label_selector=sel)
                if not items:
                    break
                time.sleep(0.1)
            else:
                problems.append(f"{kind}s labelled {sel} still present after {timeout:g}s")
        self.created_namespaces.clear()
        self.created_pcs.clear()
        return problems

    def finalize_namespaces(self) -> None:
        """Finish deleting this run's namespaces where no namespace controller runs (the
        process and docker backends): their content is gone, drop the finalizer."""
        items, _ = self.api.list("Namespace", label_selector=self.selector)
        for ns in items:
            name = ns.get("metadata", {}).get("name", "")
            if name in SYSTEM_NAMESPACES:
                continue
            if ns.get("metadata", {}).get("deletionTimestamp"):
                with contextlib.suppress(ApiError):
                    self.api.finalize_namespace(name)


def new_run_id() -> str:
    """A short random run id (a label value and a name prefix)."""
    import secrets

    return "ks" + secrets.token_hex(4)
