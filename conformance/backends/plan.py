"""The plan: which API objects a scenario becomes (namespaces, PriorityClasses, PDBs, Services
and controllers, nodes, running and pending pods), under which names (:class:`Naming`: renamed
so that the API server's LIST order is the scenario's queue order, or prefixed on a shared
cluster), each labelled with the run id (:data:`RUN_LABEL`, :func:`new_run_id`).
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.backends.dra import (
    DRA_KINDS,
    TAINT_RULES_GATE,
    PlannedDRA,
    is_dra,
    plan_object,
)
from conformance.backends.refusals import (
    refuse_claim_listed_twice,
    refuse_nodeless_end,
    refuse_timeline_claim_deletes,
)
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioUnsupported, SubjectError
from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_documents
from reference_impl.model.loader.ephemeral import with_controller_claims
from reference_impl.model.objects import Cluster, LabelSelector, Pod
from reference_impl.model.scenario import Scenario, parse_scenario
from reference_impl.releases import load as load_release
from reference_impl.releases.pinned import UPSTREAM_RELEASE

RUN_LABEL = "kschedconf.io/run"
#: the scheduling gate that holds pending pods on a shared cluster until they are released
HOLD_GATE = "kschedconf.io/hold"
DEFAULT_IMAGE = "registry.k8s.io/pause:3.10"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
SYSTEM_PRIORITY_CLASSES = ("system-node-critical", "system-cluster-critical")
NS_NAME_LABEL = "kubernetes.io/metadata.name"
# Keeps a pod the input shows as terminating (metadata.deletionTimestamp) in the API after the
# driver deletes it: no kubelet finishes it, as in the dump it came from; the cleanup drops it.
TERMINATING_FINALIZER = "kschedconf.io/terminating"
# What a pod's status may hold beyond phase, startTime and nominatedNodeName that the scheduler
# reads: in-place resize (component-helpers/resource) and the conditions it looks at
# (PodResizePending, DisruptionTarget; PodScheduled is the scheduler's own).
_STATUS_RESOURCES = ("containerStatuses", "initContainerStatuses", "allocatedResources",
                     "resources", "resourceClaimStatuses", "extendedResourceClaimStatus")
_STATUS_CONDITIONS = ("PodResizePending", "DisruptionTarget")

# metadata fields the API server sets itself (or that would stop our cleanup)
_SERVER_META = ("uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
                "deletionGracePeriodSeconds", "generation", "managedFields", "selfLink",
                "finalizers", "generateName")


def new_run_id() -> str:
    """A short random run id (a label value and a name prefix)."""
    return "ks" + secrets.token_hex(4)


def profile_scheduler_names(config: Mapping[str, Any] | None) -> set[str]:
    """The schedulerNames of a configuration's profiles (default-scheduler without one)."""
    profiles = (config or {}).get("profiles") or []
    names = {p.get("schedulerName") or DEFAULT_SCHEDULER_NAME
             for p in profiles if isinstance(p, Mapping)}
    return names or {DEFAULT_SCHEDULER_NAME}


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


def _sortable_prefix(letter: str, i: int, width: int) -> str:
    return f"{letter}{i:0{width}d}-"


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


# --- the plan ---------------------------------------------------------------------------------

@dataclass(slots=True)
class PlannedPod:
    key: str
    manifest: dict[str, Any]
    status: dict[str, Any] | None  # status to patch after create
    priority: int
    responsible: bool
    own_gates: tuple[str, ...]
    terminating: bool = False  # created with TERMINATING_FINALIZER, then deleted


@dataclass(slots=True)
class Plan:
    namespaces: list[dict[str, Any]] = field(default_factory=list)
    priority_classes: list[dict[str, Any]] = field(default_factory=list)
    pdbs: list[tuple[dict[str, Any], dict[str, Any] | None]] = field(default_factory=list)
    #: Services, ReplicationControllers, ReplicaSets, StatefulSets (kind, manifest)
    selecting: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: resource.k8s.io/v1 objects, in creation order (backends/dra.py)
    dra: list[PlannedDRA] = field(default_factory=list)
    nodes: list[tuple[dict[str, Any], dict[str, Any] | None]] = field(default_factory=list)
    running: list[PlannedPod] = field(default_factory=list)
    pending: list[PlannedPod] = field(default_factory=list)  # queue order
    config: dict[str, Any] | None = None
    responsible_names: set[str] = field(default_factory=set)
    until: int | None = None
    timeline: Scenario | None = None
    scenario_doc: dict[str, Any] | None = None  # the raw kschedconf/v1 Scenario document
    seed: int = 0
    warnings: list[str] = field(default_factory=list)

    def raw_event(self, index: int) -> dict[str, Any]:
        """The raw document of timeline event ``index`` (its node or pod manifest)."""
        events = (self.scenario_doc or {}).get("spec", {}).get("events") or []
        return events[index] if index < len(events) else {}


class Planner:
    """Turns scenarios into :class:`Plan` objects named through ``naming``. ``owned``: the
    launcher starts kube-scheduler after the objects exist (process, docker); else a scheduler
    already runs on a shared cluster (kubeconfig), where admission computes priorities.
    Problems of order go to ``warnings``. ``release``: the kube-scheduler release of the
    subject (which of its feature gates decide what is created)."""

    def __init__(self, naming: Naming, run_id: str, *, owned: bool, rename_for_order: bool,
                 warnings: list[str], release: str = UPSTREAM_RELEASE) -> None:
        self.naming = naming
        self.release = release
        self.taint_rules = load_release(release).feature_enabled(TAINT_RULES_GATE)
        self.run_id = run_id
        self.owned = owned
        self.rename_for_order = owned and rename_for_order
        self.warnings = warnings

    def label(self, meta: dict[str, Any]) -> None:
        labels = dict(meta.get("labels") or {})
        labels[RUN_LABEL] = self.run_id
        meta["labels"] = labels

    def plan(self, scenario: ScenarioInput) -> Plan:
        """Check the scenario with the reference loader and turn it into API objects, with
        the claims the controllers (which do not run here) would create for the pods'
        templates and ephemeral volumes as documents (``with_controller_claims``, as for the
        upstream subject)."""
        documents = with_controller_claims(scenario.documents)
        try:
            loaded = load_documents(documents, source=scenario.name)
            timeline = (parse_scenario(loaded.scenario, loaded.cluster, source=scenario.name)
                        if loaded.scenario is not None else None)
        except InputError as e:
            raise SubjectError(f"scenario {scenario.name} is not valid input: {e}") from e
        cluster = loaded.cluster
        # only the kinds the loader models are created: what it ignored is dropped here too
        # (reported with the subject's warnings, conformance/core/dropped.py)
        self.warnings += loaded.warnings
        plan = Plan(timeline=timeline, seed=scenario.seed, scenario_doc=loaded.scenario)
        plan.config = scenario.config if scenario.config is not None else cluster.config
        plan.responsible_names = profile_scheduler_names(plan.config)
        plan.until = timeline.until if timeline is not None else None
        refuse_storage(cluster, scenario.name)
        refuse_claim_listed_twice(cluster, timeline, scenario.name, plan.responsible_names)
        refuse_timeline_claim_deletes(cluster, timeline, scenario.name)
        refuse_nodeless_end(cluster, timeline, scenario.name, plan.responsible_names)
        if cluster.dra.taint_rules and not self.taint_rules:
            names = ", ".join(r.name for r in cluster.dra.taint_rules[:3])
            self.warnings.append(
                f"scenario {scenario.name}: DeviceTaintRules ({names}) not created: "
                f"{TAINT_RULES_GATE} is off in {self.release}, whose kube-scheduler ignores "
                "them (as the reference does) and whose API server does not serve them at "
                "resource.k8s.io/v1")
        raw = _RawDocs(documents)

        # The queue order of the pods pending when the scheduler starts: the names (and
        # namespaces) they get follow from it
        pending = [p for p in cluster.pods if not p.node_name]
        pending.sort(key=lambda p: (p.creation_timestamp, p.order))
        events = timeline.events if timeline else []
        t0_pods = [ev.pod for ev in events if ev.at == 0 and ev.action == "createPod"
                   and ev.pod is not None and not ev.pod.node_name]
        if self.rename_for_order:
            self._order_pod_names([*pending, *t0_pods])

        self._plan_namespaces(plan, cluster)
        self._plan_priority_classes(plan, cluster, raw)
        self._plan_pdbs(plan, cluster, raw)
        self._plan_selecting(plan, cluster, raw)
        self._plan_nodes(plan, cluster, raw)  # names the nodes, which DRA objects name
        self._plan_dra(plan, raw)
        for p in cluster.pods:
            pp = self.pod_manifest(raw.find("Pod", p.namespace, p.name), p, plan)
            if p.node_name:
                plan.running.append(pp)
        for p in pending:
            plan.pending.append(self.pod_manifest(raw.find("Pod", p.namespace, p.name), p, plan))
        plan.warnings = self.warnings
        return plan

    def _plan_namespaces(self, plan: Plan, cluster: Cluster) -> None:
        """Namespaces: declared, implied by pods, and those of pods the timeline creates."""
        namespaces = {name: {k: v for k, v in ns.labels.items() if k != NS_NAME_LABEL}
                      for name, ns in cluster.namespaces.items()}
        for ev in ([*plan.timeline.events, *plan.timeline.triggered] if plan.timeline
                   else []):
            if ev.action == "createPod" and ev.pod is not None:
                namespaces.setdefault(ev.pod.namespace, {})
        for name, labels in namespaces.items():
            meta: dict[str, Any] = {"name": self.naming.ns(name), "labels": dict(labels)}
            self.label(meta)
            plan.namespaces.append({"apiVersion": "v1", "kind": "Namespace", "metadata": meta})

    def _plan_priority_classes(self, plan: Plan, cluster: Cluster, raw: _RawDocs) -> None:
        for pc in cluster.priority_classes.values():
            if pc.name in SYSTEM_PRIORITY_CLASSES or not self.owned:
                # on someone's cluster the scenario's classes are not created under their
                # names (they may exist, and a globalDefault would change the cluster's
                # default): pods get classes of this run instead (_admission_priority)
                continue
            d = raw.find("PriorityClass", None, pc.name)
            meta = _clean_meta(d.get("metadata"), keep_owners=False)
            self.label(meta)
            obj = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                   "metadata": meta, "value": pc.value, "globalDefault": pc.global_default,
                   "preemptionPolicy": pc.preemption_policy}
            if d.get("description"):
                obj["description"] = d["description"]
            plan.priority_classes.append(obj)

    def _plan_pdbs(self, plan: Plan, cluster: Cluster, raw: _RawDocs) -> None:
        for pdb in cluster.pdbs:
            d = raw.find("PodDisruptionBudget", pdb.namespace, pdb.name)
            meta = _clean_meta(d.get("metadata"), keep_owners=False)
            meta["namespace"] = self.naming.ns(pdb.namespace)
            self.label(meta)
            obj = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta,
                   "spec": copy.deepcopy(d.get("spec") or {})}
            status = copy.deepcopy(d.get("status")) if d.get("status") else None
            if status is not None:
                status.setdefault("disruptionsAllowed", 0)
                for k in ("currentHealthy", "desiredHealthy", "expectedPods"):
                    status.setdefault(k, 0)
            plan.pdbs.append((obj, status))

    def _plan_selecting(self, plan: Plan, cluster: Cluster, raw: _RawDocs) -> None:
        """Services and the controllers helper.DefaultSelector reads. A controller is created
        with 0 replicas and a pause template labelled to match its selector: the scheduler
        reads only its selector, and no controller may create or adopt pods. On a cluster this
        run does not own, pods lose their ownerReferences, so controllers are not created
        (said in the warnings)."""
        for svc in cluster.services:
            d = raw.find("Service", svc.namespace, svc.name)
            spec: dict[str, Any] = {"ports": [{"port": 80, "protocol": "TCP"}]}
            if svc.selector is not None:
                spec["selector"] = dict(svc.selector)
            plan.selecting.append(("Service", self._namespaced(d, svc.namespace, "v1",
                                                               "Service", spec)))
        ctrls = [("ReplicationController", c, dict(c.selector))
                 for c in cluster.replication_controllers]
        ctrls += [("ReplicaSet", c, _api_label_selector(c.selector)) for c in cluster.replica_sets]
        ctrls += [("StatefulSet", c, _api_label_selector(c.selector))
                  for c in cluster.stateful_sets]
        if ctrls and not self.owned:
            self.warnings.append(f"{len(ctrls)} ReplicationController/ReplicaSet/StatefulSet "
                                 "object(s) not created on a cluster this run does not own "
                                 "(their pods lose their ownerReferences there)")
            return
        for kind, c, selector in ctrls:
            d = raw.find(kind, c.namespace, c.name)
            labels = _template_labels(d, selector)
            template = {"metadata": {"labels": labels},
                        "spec": {"containers": [{"name": "pause", "image": DEFAULT_IMAGE}]}}
            spec = {"replicas": 0, "selector": selector, "template": template}
            api_version = "v1" if kind == "ReplicationController" else "apps/v1"
            plan.selecting.append((kind, self._namespaced(d, c.namespace, api_version, kind,
                                                          spec)))

    def _namespaced(self, d: Mapping[str, Any], namespace: str, api_version: str, kind: str,
                    spec: dict[str, Any]) -> dict[str, Any]:
        meta = _clean_meta(d.get("metadata"), keep_owners=False)
        meta["namespace"] = self.naming.ns(namespace)
        self.label(meta)
        return {"apiVersion": api_version, "kind": kind, "metadata": meta, "spec": spec}

    def dra_object(self, d: Mapping[str, Any]) -> PlannedDRA:
        """The API object of one DRA document (``dra.plan_object``), labelled with the run:
        one of the input's, or of a timeline ``applyObject``."""
        meta = _clean_meta(d.get("metadata"), keep_owners=False)
        self.label(meta)
        return plan_object(d, meta, ns=self.naming.ns, node=self.naming.node,
                           pod=lambda key: self.naming.pod(key)[1])

    def _plan_dra(self, plan: Plan, raw: _RawDocs) -> None:
        """DeviceClasses, ResourceSlices, ResourceClaimTemplates, ResourceClaims (in that
        order, each kind in input order), with node and namespace names mapped; the
        namespaces of claims and templates are created like those of pods."""
        docs = [d for d in raw.docs if is_dra(d)
                and (self.taint_rules or d["kind"] != "DeviceTaintRule")]
        docs.sort(key=lambda d: DRA_KINDS.index(d["kind"]))
        known = {ns["metadata"]["name"] for ns in plan.namespaces}
        dropped = 0  # claims with reservedFor entries that are not pods
        for d in docs:
            planned = self.dra_object(d)
            plan.dra.append(planned)
            api_ns = planned.manifest["metadata"].get("namespace")
            if api_ns and api_ns not in known:
                known.add(api_ns)
                ns_meta: dict[str, Any] = {"name": api_ns, "labels": {}}
                self.label(ns_meta)
                plan.namespaces.append({"apiVersion": "v1", "kind": "Namespace",
                                        "metadata": ns_meta})
            reserved = (d.get("status") or {}).get("reservedFor") or []
            if len(planned.reserved_for) < len(reserved):
                dropped += 1
        if dropped:
            self.warnings.append(f"{dropped} ResourceClaim(s): status.reservedFor entries "
                                 "other than pods not created")

    def _plan_nodes(self, plan: Plan, cluster: Cluster, raw: _RawDocs) -> None:
        """Nodes: the initial ones and those created at time 0, in that order."""
        node_docs = [(n.name, raw.find("Node", None, n.name)) for n in cluster.nodes]
        t0_nodes = [ev for ev in (plan.timeline.events if plan.timeline else [])
                    if ev.at == 0 and ev.action == "createNode"]
        ordered_names = [n for n, _ in node_docs] + [ev.target for ev in t0_nodes]
        if self.rename_for_order and ordered_names != sorted(ordered_names):
            width = max(3, len(str(len(ordered_names))))
            for i, n in enumerate(ordered_names):
                self.naming.set_node(n, _sortable_prefix("n", i, width) + self.naming.node_prefix
                                     + n)
            self.warnings.append("node names are not in input order: created as "
                                 "n<index>-NAME so the scheduler's node list keeps that order "
                                 "(names mapped back in the result)")
        for name, d in node_docs:
            plan.nodes.append(self.node_manifest(d, name))

    def _order_pod_names(self, order: Sequence[Pod]) -> None:
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
        if misordered(False) and not self.naming.namespace_prefix:
            nw = max(1, len(str(len(ns_order))))
            for k, ns in enumerate(ns_order):
                api = _sortable_prefix("s", k, nw) + ns
                if len(api) <= 63:
                    self.naming.namespaces[ns] = api
        by_ns: dict[str, list[tuple[int, Pod]]] = {}
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

    # ----- manifests (also of objects the timeline creates) -----
    def node_manifest(self, d: Mapping[str, Any], name: str) -> tuple[dict[str, Any],
                                                                       dict[str, Any] | None]:
        """The API manifest of node ``name`` (its raw document ``d``) and the status to patch
        if the server drops it."""
        meta = _clean_meta(d.get("metadata"), keep_owners=False)
        meta["name"] = self.naming.node(name)
        self.label(meta)
        spec = copy.deepcopy(d.get("spec") or {})
        status = copy.deepcopy(d.get("status") or {})
        if status and "allocatable" not in status and "capacity" in status:
            status["allocatable"] = copy.deepcopy(status["capacity"])  # SetDefaults_NodeStatus
        obj = {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec,
               "status": status}
        return obj, (status or None)

    def pod_manifest(self, d: Mapping[str, Any], p: Pod, plan: Plan) -> PlannedPod:
        """The API manifest of a model pod ``p`` (its raw document ``d``)."""
        meta = _clean_meta(d.get("metadata"), keep_owners=self.owned)
        api_ns, api_name = self.naming.pod(p.key)
        meta["namespace"], meta["name"] = api_ns, api_name
        self.label(meta)
        spec = copy.deepcopy(d.get("spec") or {})
        spec["terminationGracePeriodSeconds"] = 0
        for group in ("initContainers", "containers"):
            for c in spec.get(group) or []:
                if isinstance(c, dict) and not c.get("image"):
                    c["image"] = DEFAULT_IMAGE
        if p.node_name:
            spec["nodeName"] = self.naming.node(p.node_name)
        self._map_affinity(spec)
        if self.owned:
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
        for name in _STATUS_RESOURCES:
            if raw_status.get(name) is not None:
                status[name] = copy.deepcopy(raw_status[name])
        conditions = [copy.deepcopy(c) for c in raw_status.get("conditions") or []
                      if isinstance(c, Mapping) and c.get("type") in _STATUS_CONDITIONS]
        if conditions:
            status["conditions"] = conditions
        if p.is_terminating:
            meta["finalizers"] = [TERMINATING_FINALIZER]
        obj = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
        return PlannedPod(p.key, obj, status or None, p.priority,
                          p.scheduler_name in plan.responsible_names, tuple(p.scheduling_gates),
                          p.is_terminating)

    def _admission_priority(self, spec: dict[str, Any], p: Pod, plan: Plan) -> None:
        """Admission computes priorities on a shared cluster, from a class: a system class
        stays; every other pod gets the class of this run for the priority and preemption
        policy the reference loader resolved (``<run>-p<value>-<policy>``), so neither the
        cluster's classes nor its global default decide, and nothing of the cluster's is
        changed."""
        if p.priority_class_name in SYSTEM_PRIORITY_CLASSES:
            spec.pop("priority", None)
            spec.pop("preemptionPolicy", None)
            return
        name = f"{self.run_id}-p{p.priority}-{p.preemption_policy.lower()}"
        if all(pc["metadata"]["name"] != name for pc in plan.priority_classes):
            meta: dict[str, Any] = {"name": name}
            self.label(meta)
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


def _api_label_selector(sel: LabelSelector | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if sel is None:
        return out
    if sel.match_labels:
        out["matchLabels"] = dict(sel.match_labels)
    if sel.match_expressions:
        out["matchExpressions"] = [
            {"key": e.key, "operator": e.operator, **({"values": list(e.values)}
                                                      if e.values else {})}
            for e in sel.match_expressions]
    return out


def _template_labels(d: Mapping[str, Any], selector: dict[str, Any]) -> dict[str, str]:
    """The controller's template labels (the loader checked they match its selector), else
    labels made to match it: a label map as it is, matchLabels, each In's first value, each
    Exists key set to "x" (NotIn / DoesNotExist hold without the key)."""
    tmpl_meta = ((d.get("spec") or {}).get("template") or {}).get("metadata") or {}
    if tmpl_meta.get("labels"):
        return dict(tmpl_meta["labels"])
    if "matchLabels" not in selector and "matchExpressions" not in selector:
        return dict(selector)
    labels = dict(selector.get("matchLabels") or {})
    for e in selector.get("matchExpressions") or []:
        if e["operator"] == "In":
            labels.setdefault(e["key"], e["values"][0])
        elif e["operator"] == "Exists":
            labels.setdefault(e["key"], "x")
    return labels


class _RawDocs:
    """The scenario's raw documents, to find an object's manifest by kind and name."""

    def __init__(self, documents: Iterable[Any]) -> None:
        self.docs = list(expand_documents(documents))

    def find(self, kind: str, ns: str | None, name: str) -> dict[str, Any]:
        for d in self.docs:
            if d.get("kind") != kind:
                continue
            m = d.get("metadata") or {}
            if m.get("name") == name and (ns is None or (m.get("namespace") or "default")
                                          == ns):
                return d
        return {"metadata": {"name": name}}


def refuse_storage(cluster: Cluster, name: str) -> None:
    """The backends' real control planes run no PV controller nor external provisioner
    (docs/storage.md, docs/backends.md): a scenario with storage objects or pods that use
    PersistentVolumeClaims would wait forever in VolumeBinding's PreBind, so it is refused
    up front with a stated reason (:class:`ScenarioUnsupported`: the diff and golden engines
    skip the scenario and say why)."""
    users = [f"{p.namespace}/{p.name}" for p in cluster.pods if p.pvc_names]
    if cluster.storage or users:
        what = f"pods using PersistentVolumeClaims ({', '.join(users[:3])})" if users \
            else "storage objects"
        raise ScenarioUnsupported(
            f"scenario {name}: the backends run no PV controller or provisioner; "
            f"storage scenarios ({what}) are not supported by this subject")
