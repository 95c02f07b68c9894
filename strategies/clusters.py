"""Whole clusters: nodes, running pods placed only where they fit, pending pod sets, priority
classes, namespaces and PDBs (:func:`clusters`, :func:`pending_pods`, :class:`GeneratedCluster`).

Nodes come from node pools and pods from workloads; what "fits" means for a running pod:
docs/strategies.md#what-is-generated."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

import strategies.vocabulary as v
from reference_impl.model.quantity import parse_quantity
from strategies._cache import booleans, cached, composite, integers, sampled
from strategies.objects import (
    PodContext,
    namespaces,
    node_from_template,
    node_templates,
    pdbs,
    pod_from_template,
    pod_requests,
    pod_templates,
    priority_class_lists,
    stable_uid,
)
from strategies.sizes import SMALL, Sizes, resolve_features

__all__ = [
    "GeneratedCluster",
    "clusters",
    "pending_pods",
    "node_allocatable",
    "label_selector_matches",
    "node_selector_term_matches",
    "tolerates",
]

Doc = dict[str, Any]


# ------------------------------------------------------------------------ matching helpers

def label_selector_matches(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """``metav1.LabelSelector`` semantics: None matches nothing, {} matches everything."""
    if selector is None:
        return False
    for k, val in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != val:
            return False
    for e in selector.get("matchExpressions") or []:
        key, op, vals = e["key"], e["operator"], e.get("values") or []
        if op == "In" and labels.get(key) not in vals:
            return False
        if op == "NotIn" and key in labels and labels[key] in vals:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def _requirement_matches(req: Mapping[str, Any], value: str | None) -> bool:
    op, vals = req["operator"], req.get("values") or []
    if op == "In":
        return value is not None and value in vals
    if op == "NotIn":
        return value is None or value not in vals
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if value is None:
        return False
    try:
        n, bound = int(value), int(vals[0])
    except ValueError:
        return False
    return n > bound if op == "Gt" else n < bound


def node_selector_term_matches(term: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """A ``v1.NodeSelectorTerm`` (expressions and fields ANDed) against a Node manifest."""
    labels = node["metadata"].get("labels") or {}
    exprs = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not exprs and not fields:
        return False
    return (all(_requirement_matches(r, labels.get(r["key"])) for r in exprs)
            and all(_requirement_matches(r, node["metadata"]["name"]) for r in fields))


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """``Toleration.ToleratesTaint`` (k8s.io/api/core/v1/toleration.go)."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint["effect"]:
        return False
    key = toleration.get("key") or ""
    if key and key != taint["key"]:
        return False
    if (toleration.get("operator") or "Equal") == "Exists":
        return True
    return (toleration.get("value") or "") == (taint.get("value") or "")


def node_allocatable(node: Mapping[str, Any]) -> dict[str, int]:
    """A Node manifest's allocatable (capacity when absent) in scheduler units."""
    status = node.get("status") or {}
    rl = status.get("allocatable")
    if rl is None:
        rl = status.get("capacity") or {}
    out = {}
    for k, q in rl.items():
        x = parse_quantity(q) * (1000 if k == "cpu" else 1)
        out[k] = -(-x.numerator // x.denominator)
    return out


# ---------------------------------------------------------------------------- placement

def _required_anti_affinity(pod: Mapping[str, Any]) -> list[Doc]:
    aff = (pod["spec"].get("affinity") or {}).get("podAntiAffinity") or {}
    return list(aff.get("requiredDuringSchedulingIgnoredDuringExecution") or [])


class _NodeState:
    """A node being filled with running pods."""

    def __init__(self, node: Doc) -> None:
        self.node = node
        self.name = node["metadata"]["name"]
        self.labels: dict[str, str] = node["metadata"].get("labels") or {}
        self.taints = [t for t in (node.get("spec") or {}).get("taints") or []
                       if t["effect"] in ("NoSchedule", "NoExecute")]
        self.allocatable = node_allocatable(node)
        self.used: dict[str, int] = {}
        self.pods: list[Doc] = []
        self.ports: set[tuple[int, str]] = set()


def _host_ports(pod: Mapping[str, Any]) -> set[tuple[int, str]]:
    out = set()
    for c in pod["spec"].get("containers") or []:
        for p in c.get("ports") or []:
            if p.get("hostPort"):
                out.add((p["hostPort"], p.get("protocol") or "TCP"))
    return out


class _Placement:
    """The nodes of a cluster and the running pods placed so far."""

    def __init__(self, nodes: list[Doc]) -> None:
        self.states = [_NodeState(n) for n in nodes]
        self.anti: list[tuple[_NodeState, Doc]] = []  # placed pods' required anti-affinity

    def admits(self, st_: _NodeState, pod: Doc, requests: Mapping[str, int]) -> bool:
        spec = pod["spec"]
        if len(st_.pods) + 1 > st_.allocatable.get("pods", 0):
            return False
        for k, q in requests.items():
            if q > 0 and st_.used.get(k, 0) + q > st_.allocatable.get(k, 0):
                return False
        tols = spec.get("tolerations") or []
        if not all(any(tolerates(t, taint) for t in tols) for taint in st_.taints):
            return False
        for k, val in (spec.get("nodeSelector") or {}).items():
            if st_.labels.get(k) != val:
                return False
        node_aff = (spec.get("affinity") or {}).get("nodeAffinity") or {}
        required = node_aff.get("requiredDuringSchedulingIgnoredDuringExecution")
        if required and not any(node_selector_term_matches(t, st_.node)
                                for t in required["nodeSelectorTerms"]):
            return False
        if _host_ports(pod) & st_.ports:
            return False
        labels = pod["metadata"].get("labels") or {}
        for term in _required_anti_affinity(pod):  # the pod's own anti-affinity
            key = term["topologyKey"]
            if key not in st_.labels:
                continue
            for other in self.states:
                if other.labels.get(key) != st_.labels[key]:
                    continue
                if any(label_selector_matches(term.get("labelSelector"),
                                              p["metadata"].get("labels") or {})
                       for p in other.pods):
                    return False
        for other, term in self.anti:  # existing pods' anti-affinity
            key = term["topologyKey"]
            if (key in other.labels and other.labels[key] == st_.labels.get(key)
                    and label_selector_matches(term.get("labelSelector"), labels)):
                return False
        return True

    def place(self, pod: Doc, start: int) -> str | None:
        """Put ``pod`` on the first node from ``start`` (wrapping) that admits it."""
        requests = pod_requests(pod)
        n = len(self.states)
        for i in range(n):
            st_ = self.states[(start + i) % n]
            if self.admits(st_, pod, requests):
                st_.pods.append(pod)
                for k, q in requests.items():
                    st_.used[k] = st_.used.get(k, 0) + q
                st_.ports |= _host_ports(pod)
                self.anti.extend((st_, t) for t in _required_anti_affinity(pod))
                return st_.name
        return None


# ----------------------------------------------------------------------------- clusters

@dataclass(slots=True)
class GeneratedCluster:
    """A generated cluster, as manifests. ``documents()`` lists them in loading order."""

    nodes: list[Doc]
    running_pods: list[Doc] = field(default_factory=list)
    priority_classes: list[Doc] = field(default_factory=list)
    namespaces: list[Doc] = field(default_factory=list)
    pdbs: list[Doc] = field(default_factory=list)
    namespace_names: tuple[str, ...] = ("default",)
    next_pod_index: int = 0  # pending pods are numbered from here (names stay unique)

    @property
    def node_names(self) -> tuple[str, ...]:
        return tuple(n["metadata"]["name"] for n in self.nodes)

    def pod_context(self, scheduler_names: tuple[str, ...] = (v.DEFAULT_SCHEDULER,)
                    ) -> PodContext:
        return PodContext(self.namespace_names, tuple(self.priority_classes), self.node_names,
                          scheduler_names)

    def documents(self, pending: Iterable[Doc] = ()) -> list[Doc]:
        return [*self.priority_classes, *self.namespaces, *self.nodes, *self.running_pods,
                *pending, *self.pdbs]


@cached
@composite
def _timestamps(draw: st.DrawFn, f: frozenset[str], count: int) -> list[str | None]:
    """Creation timestamps for a workload's pods: one start second, one second apart."""
    if "creation_timestamps" not in f or not draw(booleans()):
        return [None] * count
    start = draw(integers(0, 120))
    return [v.TIMESTAMP_FORMAT.format(minute=(start + i) // 60 % 60, second=(start + i) % 60)
            for i in range(count)]


@cached
@composite
def _owner(draw: st.DrawFn, f: frozenset[str], base: str, namespace: str,
           index: int) -> Doc | None:
    if "owner_references" not in f or not draw(booleans()):
        return None
    api_version, kind = draw(sampled(v.OWNER_KINDS))
    name = f"{base}-{kind.lower()}-{index}"
    owner: Doc = {"apiVersion": api_version, "kind": kind, "name": name,
                  "uid": stable_uid(kind, namespace, name)}
    if draw(integers(0, 3)) != 3:
        owner["controller"] = True
    return owner


@cached
@composite
def _workload_pods(draw: st.DrawFn, sizes: Sizes, f: frozenset[str], ctx: PodContext,
                   running: bool, max_total: int, first_index: int,
                   min_workloads: int = 0) -> list[Doc]:
    """The pods of ``min_workloads`` up to ``max_workloads`` workloads, at most ``max_total`` of
    them; pods are named ``<app>-<n>`` with ``n`` counting from ``first_index``."""
    out: list[Doc] = []
    most = min(sizes.max_workloads, max_total)
    count = draw(integers(min(min_workloads, most), most))
    for w in range(count):
        if len(out) >= max_total:
            break
        template = draw(pod_templates(sizes, f, ctx, running=running))
        replicas = min(draw(integers(1, sizes.max_replicas)), max_total - len(out))
        base = (template["metadata"].get("labels") or {}).get("app", "pod")
        namespace = template["metadata"].get("namespace", "default")
        owner = draw(_owner(f, base, namespace, first_index + w))
        stamps = draw(_timestamps(f, replicas))
        for r in range(replicas):
            name = f"{base}-{first_index + len(out)}"
            out.append(pod_from_template(template, name, owner=owner,
                                         creation_timestamp=stamps[r]))
    return out


@cached
@composite
def _namespaces(draw: st.DrawFn, f: frozenset[str]) -> tuple[tuple[str, ...], list[Doc]]:
    if "namespaces" not in f:
        return ("default",), []
    extra = draw(st.lists(sampled(v.NAMESPACES[1:]), unique=True,
                          max_size=len(v.NAMESPACES) - 1))
    names = ("default", *extra)
    docs = [draw(namespaces(n)) for n in extra]
    if draw(booleans()):
        docs.insert(0, draw(namespaces("default")))
    return names, docs


@cached
@composite
def clusters(draw: st.DrawFn, sizes: Sizes = SMALL, features: Iterable[str] | None = None,
             scheduler_names: tuple[str, ...] = (v.DEFAULT_SCHEDULER,)) -> GeneratedCluster:
    """A cluster whose running pods all fit where they run
    (docs/strategies.md#what-is-generated)."""
    f = resolve_features(features)
    classes = draw(priority_class_lists(sizes.max_priority_classes)) \
        if "priority_classes" in f else []
    ns_names, ns_docs = draw(_namespaces(f))

    n = draw(integers(sizes.min_nodes, sizes.max_nodes))
    k = draw(integers(1, min(sizes.max_node_pools, n)))
    templates = [draw(node_templates(sizes, f)) for _ in range(k)]
    zones = draw(integers(1, len(v.ZONES)))
    nodes = [node_from_template(templates[i * k // n], f"node-{i}", v.ZONES[i % zones])
             for i in range(n)]

    cluster = GeneratedCluster(nodes, [], classes, ns_docs, [], ns_names)
    ctx = cluster.pod_context(scheduler_names)
    placement = _Placement(nodes)
    candidates = draw(_workload_pods(sizes, f, ctx, True, sizes.max_running_pods, 0))
    cluster.next_pod_index = len(candidates)
    for pod in candidates:
        node_name = placement.place(pod, draw(integers(0, n - 1)))
        if node_name is not None:
            pod["spec"]["nodeName"] = node_name
            cluster.running_pods.append(pod)
    if "pdbs" in f:
        count = draw(integers(0, sizes.max_pdbs))
        cluster.pdbs = [draw(pdbs(f"pdb-{i}", ns_names)) for i in range(count)]
    return cluster


def pending_pods(cluster: GeneratedCluster, sizes: Sizes = SMALL,
                 features: Iterable[str] | None = None,
                 scheduler_names: tuple[str, ...] = (v.DEFAULT_SCHEDULER,),
                 min_workloads: int = 0) -> st.SearchStrategy[list[Doc]]:
    """Pending pods for ``cluster`` (at most ``sizes.max_pending_pods``), from
    ``min_workloads`` or more workloads whose templates may use every feature, named after the
    cluster's running pods."""
    f = resolve_features(features)
    first = cluster.next_pod_index
    return _workload_pods(sizes, f, cluster.pod_context(scheduler_names), False,
                          sizes.max_pending_pods, first, min_workloads)
