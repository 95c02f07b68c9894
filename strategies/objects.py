"""Strategies for single Kubernetes objects, as the plain v1 dicts a user's YAML holds: nodes,
pods, PriorityClasses, PodDisruptionBudgets and Namespaces, each satisfying the API server's
validation and the Priority admission plugin, with every feature an independent optional part.

Upstream rules followed: ``pkg/apis/core/validation/validation.go``,
``plugin/pkg/admission/priority/admission.go`` and ``pkg/apis/scheduling/validation``; the
details, and how shrinking works: docs/strategies.md."""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

import strategies.vocabulary as v
from reference_impl.model.quantity import parse_quantity
from strategies._cache import booleans, cached, composite, integers, sampled, sampled_dicts
from strategies.quantities import COUNT, CPU, MEMORY, quantity_values
from strategies.sizes import SMALL, Sizes, resolve_features

__all__ = [
    "PodContext",
    "NodeTemplate",
    "node_templates",
    "node_from_template",
    "nodes",
    "pod_templates",
    "pod_from_template",
    "pods",
    "pod_labels",
    "label_selectors",
    "tolerations",
    "taints",
    "node_affinities",
    "pod_affinity_terms",
    "topology_spread_constraints",
    "priority_classes",
    "priority_class_lists",
    "pdbs",
    "namespaces",
    "pod_requests",
    "resolve_priority",
    "format_cpu",
    "format_bytes",
    "aggregate_container_requests",
    "stable_uid",
    "sometimes",
]

Doc = dict[str, Any]

_UID_NAMESPACE = uuid.UUID("0b4f3e2a-5a0c-4a55-8d7e-7f2c1b9e4d11")


def stable_uid(*parts: str) -> str:
    """A deterministic UID, so generated scenarios are reproducible byte for byte."""
    return str(uuid.uuid5(_UID_NAMESPACE, "/".join(parts)))


def format_cpu(milli: int) -> str | int:
    """A computed cpu amount: whole cores as an integer, else millicores."""
    return milli // 1000 if milli % 1000 == 0 else f"{milli}m"


def format_bytes(n: int) -> str | int:
    """A computed byte amount: Gi or Mi when exact, else plain bytes."""
    for suffix, factor in (("Gi", 2**30), ("Mi", 2**20)):
        if n and n % factor == 0:
            return f"{n // factor}{suffix}"
    return n


def sometimes(draw: st.DrawFn, one_in: int) -> bool:
    """True about once in ``one_in`` draws; shrinks to False (the part is left out).
    (``st.integers`` would favour its bounds, so this samples from a list.)"""
    s = _SOMETIMES.get(one_in)
    if s is None:  # the same strategy every time: no tuple and cache key built per draw
        s = _SOMETIMES[one_in] = sampled((False,) * (one_in - 1) + (True,))
    return draw(s)


_SOMETIMES: dict[int, st.SearchStrategy[bool]] = {}


def _ceil(q: Fraction) -> int:
    return -(-q.numerator // q.denominator)


def _format(name: str, amount: Fraction) -> str | int:
    """A computed amount of resource ``name`` (in base units), rounded up to what the
    scheduler counts (milli-CPU, bytes)."""
    if name == "cpu":
        return format_cpu(_ceil(amount * 1000))
    return format_bytes(_ceil(amount))


# ------------------------------------------------------------------------------ labels

def _vocab_dict(vocab: Mapping[str, tuple[str, ...]], min_size: int = 0
                ) -> st.SearchStrategy[dict[str, str]]:
    """Dicts over ``vocab``'s keys, each key optional, each value from its short list."""
    return _vocab_dict_of(tuple(vocab.items()), min_size)


@functools.cache
def _vocab_dict_of(items: tuple[tuple[str, tuple[str, ...]], ...], min_size: int
                   ) -> st.SearchStrategy[dict[str, str]]:
    """One choice among every such dict with at least ``min_size`` keys, fewest keys first
    (shrinking leaves labels out), keys in the vocabulary's order (issue 17: a dict of four
    optional keys was up to eight choices and twelve spans)."""
    combos: list[tuple[tuple[str, str], ...]] = [()]
    for key, values in items:
        combos = [c + opt for c in combos for opt in [(), *(((key, x),) for x in values)]]
    return sampled_dicts(tuple(sorted((c for c in combos if len(c) >= min_size), key=len)))


def pod_labels(min_size: int = 0) -> st.SearchStrategy[dict[str, str]]:
    """Pod labels from the small vocabulary (app, tier, team, example.com/release)."""
    return _vocab_dict(v.POD_LABELS, min_size)


VocabItems = tuple[tuple[str, tuple[str, ...]], ...]  # a vocabulary, hashable


@functools.cache
@composite
def _selector_requirement(draw: st.DrawFn, items: VocabItems) -> Doc:
    vocab = dict(items)
    key = draw(sampled(vocab))
    op = draw(sampled(("In", "NotIn", "Exists", "DoesNotExist")))
    req: Doc = {"key": key, "operator": op}
    if op in ("In", "NotIn"):
        req["values"] = draw(st.lists(sampled(vocab[key]), min_size=1, unique=True,
                                      max_size=len(vocab[key])))
    return req


Labels = tuple[tuple[str, str], ...]  # labels, hashable


def _items(labels: Mapping[str, str] | None) -> Labels:
    return tuple(sorted(labels.items())) if labels else ()


def label_selectors(own_labels: Mapping[str, str] | None = None,
                    vocab: Mapping[str, tuple[str, ...]] = v.POD_LABELS,
                    max_expressions: int = 2) -> st.SearchStrategy[Doc]:
    """A ``metav1.LabelSelector`` over ``vocab``. Given ``own_labels`` (a pod's labels), it is
    usually built from them, so that it matches the pod's siblings."""
    return _label_selectors(_items(own_labels), tuple(vocab.items()), max_expressions)


@functools.cache
@composite
def _label_selectors(draw: st.DrawFn, own: Labels, items: VocabItems,
                     max_expressions: int) -> Doc:
    own_labels = dict(own)
    vocab = dict(items)
    if own_labels and not draw(booleans()):
        keys = draw(st.lists(sampled(sorted(own_labels)), min_size=1, unique=True,
                             max_size=len(own_labels)))
        return {"matchLabels": {k: own_labels[k] for k in sorted(keys)}}
    sel: Doc = {}
    match_labels = draw(_vocab_dict(vocab))
    if match_labels:
        sel["matchLabels"] = match_labels
    exprs = draw(st.lists(_selector_requirement(items), max_size=max_expressions))
    if exprs:
        sel["matchExpressions"] = exprs
    return sel


def _selector_keys(sel: Mapping[str, Any] | None) -> set[str]:
    if not sel:
        return set()
    return set(sel.get("matchLabels", {})) | {e["key"] for e in sel.get("matchExpressions", [])}


# ------------------------------------------------------------------------ taints, tolerations

@functools.cache
@composite
def taints(draw: st.DrawFn) -> Doc:
    """A node taint (key from a short list, optional value, any of the three effects)."""
    t: Doc = {"key": draw(sampled(v.TAINT_KEYS))}
    value = draw(sampled(("",) + v.TAINT_VALUES))
    if value:
        t["value"] = value
    t["effect"] = draw(sampled(v.TAINT_EFFECTS))
    return t


@functools.cache
@composite
def tolerations(draw: st.DrawFn) -> Doc:
    """A toleration: Equal (key and value) or Exists (a key, or none: tolerate everything),
    any effect or all of them, tolerationSeconds only with NoExecute (ValidateTolerations)."""
    op = draw(sampled(("Equal", "Exists")))
    t: Doc = {}
    if op == "Exists":
        key = draw(sampled(v.TAINT_KEYS + ("",)))
        if key:
            t["key"] = key
        t["operator"] = "Exists"
    else:
        t["key"] = draw(sampled(v.TAINT_KEYS))
        if draw(booleans()):
            t["operator"] = "Equal"  # the default when absent
        value = draw(sampled(v.TAINT_VALUES + ("",)))
        if value:
            t["value"] = value
    effect = draw(sampled(("",) + v.TAINT_EFFECTS))
    if effect:
        t["effect"] = effect
    if effect == "NoExecute" and draw(booleans()):
        t["tolerationSeconds"] = draw(integers(0, 3600))
    return t


# --------------------------------------------------------------------------- node affinity

def _node_label_vocab(node_names: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    vocab = {v.ZONE: v.ZONES, v.REGION: tuple(sorted(set(v.REGION_OF_ZONE.values())))}
    vocab.update(v.NODE_LABELS)
    if node_names:
        vocab[v.HOSTNAME] = node_names
    return vocab


@functools.cache
@composite
def _node_selector_requirement(draw: st.DrawFn, items: VocabItems) -> Doc:
    vocab = dict(items)
    key = draw(sampled(vocab))
    ops = ("In", "NotIn", "Exists", "DoesNotExist")
    if key == v.NUMERIC_NODE_LABEL:
        ops += ("Gt", "Lt")
    op = draw(sampled(ops))
    req: Doc = {"key": key, "operator": op}
    if op in ("In", "NotIn"):
        req["values"] = draw(st.lists(sampled(vocab[key]), min_size=1, unique=True,
                                      max_size=min(3, len(vocab[key]))))
    elif op in ("Gt", "Lt"):
        req["values"] = [draw(sampled(("0", "1", "2", "3")))]
    return req


@functools.cache
@composite
def _node_selector_term(draw: st.DrawFn, node_names: tuple[str, ...], max_terms: int) -> Doc:
    """A node selector term: label expressions, ``metadata.name`` fields or both; about one
    in eight is empty (``{}`` or ``matchExpressions: []``), which matches no node (a required
    term) or is skipped (a preferred one)."""
    if sometimes(draw, 8):
        return {} if draw(booleans()) else {"matchExpressions": []}
    vocab = tuple(_node_label_vocab(node_names).items())
    kind = draw(sampled(("expressions", "fields", "both"))) if node_names else "expressions"
    term: Doc = {}
    if kind != "fields":
        term["matchExpressions"] = draw(st.lists(_node_selector_requirement(vocab), min_size=1,
                                                 max_size=max(1, max_terms)))
    if kind != "expressions":
        term["matchFields"] = [{"key": "metadata.name",
                                "operator": draw(sampled(("In", "NotIn"))),
                                "values": [draw(sampled(node_names))]}]
    return term


@functools.cache
@composite
def node_affinities(draw: st.DrawFn, node_names: tuple[str, ...] = (),
                    max_terms: int = 2) -> Doc:
    """A ``v1.NodeAffinity``: required node selector terms (ORed) and/or weighted preferred
    terms, over zones, regions, node labels, hostnames and ``metadata.name`` fields."""
    aff: Doc = {}
    if draw(booleans()):
        aff["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": draw(
            st.lists(_node_selector_term(node_names, max_terms), min_size=1, max_size=max_terms))}
    preferred = draw(_preferred_node_terms(node_names, max_terms, 0 if aff else 1))
    if preferred:
        aff["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    return aff


@functools.lru_cache(maxsize=1024)
def _preferred_node_terms(node_names: tuple[str, ...], max_terms: int,
                          min_size: int) -> st.SearchStrategy[list[Doc]]:
    """Weighted preferred node selector terms (built once per arguments)."""
    return st.lists(st.fixed_dictionaries({
        "weight": integers(1, 100),
        "preference": _node_selector_term(node_names, max_terms)}),
        min_size=min_size, max_size=max_terms)


# --------------------------------------------------------------------- pod (anti-)affinity

def pod_affinity_terms(own_labels: Mapping[str, str] | None = None,
                       namespaces: bool = True) -> st.SearchStrategy[Doc]:
    """A ``v1.PodAffinityTerm``: a selector (usually from the pod's own labels), a topology key
    (hostname, zone or region), optionally namespaces / a namespaceSelector, and
    matchLabelKeys / mismatchLabelKeys disjoint from each other and from the selector's keys."""
    return _pod_affinity_terms(_items(own_labels), namespaces)


@functools.cache
@composite
def _pod_affinity_terms(draw: st.DrawFn, own: Labels, namespaces: bool) -> Doc:
    sel = draw(_label_selectors(own, tuple(v.POD_LABELS.items()), 2))
    term: Doc = {"labelSelector": sel, "topologyKey": draw(sampled(v.TOPOLOGY_KEYS))}
    if namespaces:
        ns = draw(st.lists(sampled(v.NAMESPACES), unique=True, max_size=2))
        if ns:
            term["namespaces"] = ns
        ns_sel = draw(_namespace_selectors())
        if ns_sel is not None:
            # a fresh dict for the empty selector (st.just gives the same object every time:
            # YAML would write an anchor)
            term["namespaceSelector"] = ns_sel or {}
    free = sorted(set(v.POD_LABEL_KEYS) - _selector_keys(sel))
    if free:
        keys = draw(st.lists(sampled(free), unique=True, max_size=2))
        split = draw(integers(0, len(keys)))
        if keys[:split]:
            term["matchLabelKeys"] = keys[:split]
        if keys[split:]:
            term["mismatchLabelKeys"] = keys[split:]
    return term


@functools.cache
def _namespace_selectors() -> st.SearchStrategy[Doc | None]:
    """A term's namespaceSelector: none, empty (every namespace) or over namespace labels."""
    return st.one_of(st.none(), st.just({}), label_selectors(vocab=v.NAMESPACE_LABELS,
                                                             max_expressions=1))


@functools.cache
def _weighted_pod_affinity_terms(own: Labels, namespaces: bool,
                                 max_terms: int) -> st.SearchStrategy[list[Doc]]:
    """Weighted pod affinity terms (built once per arguments)."""
    return st.lists(st.fixed_dictionaries({
        "weight": integers(1, 100),
        "podAffinityTerm": _pod_affinity_terms(own, namespaces)}), max_size=max_terms)


@functools.cache
@composite
def _pod_affinity(draw: st.DrawFn, own: Labels, max_terms: int,
                  required: bool, namespaces: bool) -> Doc | None:
    aff: Doc = {}
    if required:
        req = draw(st.lists(_pod_affinity_terms(own, namespaces), max_size=max_terms))
        if req:
            aff["requiredDuringSchedulingIgnoredDuringExecution"] = req
    pref = draw(_weighted_pod_affinity_terms(own, namespaces, max_terms))
    if pref:
        aff["preferredDuringSchedulingIgnoredDuringExecution"] = pref
    return aff or None


# ---------------------------------------------------------------- topology spread constraints

def topology_spread_constraints(own_labels: Mapping[str, str] | None = None
                                ) -> st.SearchStrategy[Doc]:
    """A ``v1.TopologySpreadConstraint`` (maxSkew 1-3; minDomains only with DoNotSchedule;
    optional node inclusion policies; matchLabelKeys not among the selector's keys)."""
    return _topology_spread_constraints(_items(own_labels))


@functools.cache
@composite
def _topology_spread_constraints(draw: st.DrawFn, own: Labels) -> Doc:
    when = draw(sampled(("DoNotSchedule", "ScheduleAnyway")))
    sel = draw(_label_selectors(own, tuple(v.POD_LABELS.items()), 2))
    c: Doc = {"maxSkew": draw(integers(1, 3)),
              "topologyKey": draw(sampled(v.TOPOLOGY_KEYS)),
              "whenUnsatisfiable": when,
              "labelSelector": sel}
    if when == "DoNotSchedule" and draw(booleans()):
        c["minDomains"] = draw(integers(1, 4))
    for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
        value = draw(sampled(("", "Honor", "Ignore")))
        if value:
            c[policy] = value
    free = sorted(set(v.POD_LABEL_KEYS) - _selector_keys(sel))
    keys = draw(st.lists(sampled(free), unique=True, max_size=2)) if free else []
    if keys:
        c["matchLabelKeys"] = keys
    return c


# ----------------------------------------------------------------------------------- nodes

@dataclass(frozen=True, slots=True)
class NodeTemplate:
    """What the nodes of one pool share; ``zoned`` nodes get zone and region labels."""

    labels: dict[str, str]
    allocatable: dict[str, Any]
    capacity: dict[str, Any] | None
    write_allocatable: bool
    taints: tuple[Doc, ...]
    unschedulable: bool
    images: tuple[Doc, ...]
    zoned: bool


def _taint_key(t: Doc) -> tuple[str, str]:
    return t["key"], t["effect"]


@functools.lru_cache(maxsize=64)
def _taint_lists(max_taints: int) -> st.SearchStrategy[list[Doc]]:
    """A node's taints, at most one per key and effect (built once per bound)."""
    return st.lists(taints(), min_size=1, max_size=max_taints, unique_by=_taint_key)


@cached
@composite
def node_templates(draw: st.DrawFn, sizes: Sizes = SMALL,
                   features: Iterable[str] | None = None) -> NodeTemplate:
    """The shared part of a pool of nodes (see :func:`node_from_template`)."""
    f = resolve_features(features)
    alloc: dict[str, Any] = {
        "cpu": draw(quantity_values(CPU, 1000, 16000)),
        "memory": draw(quantity_values(MEMORY, 2**30, 64 * 2**30)),
        "pods": draw(sampled((110, 8, 3, 32))),
    }
    if "ephemeral_storage" in f and not sometimes(draw, 4):
        alloc["ephemeral-storage"] = draw(quantity_values(MEMORY, 10 * 2**30, 200 * 2**30))
    if "extended_resources" in f and draw(booleans()):
        alloc[v.EXTENDED_RESOURCE] = draw(quantity_values(COUNT, 0, 4))
    raw_alloc = {k: (q if isinstance(q, int) else q.raw) for k, q in alloc.items()}
    capacity = None
    write_allocatable = True
    if "capacity" in f and draw(booleans()):
        # capacity >= allocatable (system reserved), or capacity alone (allocatable defaults
        # to it: SetDefaults_NodeStatus)
        write_allocatable = draw(booleans())
        capacity = {}
        for k, q in alloc.items():
            if isinstance(q, int):
                capacity[k] = q + (draw(integers(0, 10)) if write_allocatable else 0)
            elif write_allocatable and k in ("cpu", "memory") and draw(booleans()):
                extra = Fraction(1, 10) if k == "cpu" else Fraction(2**28)
                capacity[k] = _format(k, q.value + extra)
            else:
                capacity[k] = q.raw
    labels = draw(_vocab_dict(v.NODE_LABELS))
    node_taints: list[Doc] = []
    if "taints" in f and sometimes(draw, 4):
        node_taints = draw(_taint_lists(sizes.max_taints))
    unschedulable = "unschedulable" in f and sometimes(draw, 10)
    images: list[Doc] = []
    if "images" in f:
        names = draw(st.lists(sampled(v.IMAGE_NAMES), unique=True, max_size=3))
        for name in names:
            # the kubelet reports an untagged image as NAME:latest (normalizedImageName)
            tagged = name if name.rfind(":") > name.rfind("/") else name + ":latest"
            listed = [tagged]
            if "/" not in name and draw(booleans()):
                listed = ["docker.io/library/" + tagged, tagged]
            images.append({"names": listed, "sizeBytes": v.IMAGES[name]})
    return NodeTemplate(labels, raw_alloc, capacity, write_allocatable, tuple(node_taints),
                        unschedulable, tuple(images), zoned=not sometimes(draw, 8))


def node_from_template(t: NodeTemplate, name: str, zone: str) -> Doc:
    """A Node manifest from a pool template: hostname label = name; zone and region labels if
    the template is zoned."""
    labels = {v.HOSTNAME: name}
    if t.zoned:
        labels[v.ZONE] = zone
        labels[v.REGION] = v.REGION_OF_ZONE[zone]
    labels.update(t.labels)
    node: Doc = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}
    spec: Doc = {}
    if t.taints:
        spec["taints"] = [dict(x) for x in t.taints]
    if t.unschedulable:
        spec["unschedulable"] = True
    if spec:
        node["spec"] = spec
    status: Doc = {}
    if t.capacity is not None:
        status["capacity"] = dict(t.capacity)
    if t.write_allocatable:
        status["allocatable"] = dict(t.allocatable)
    if t.images:
        status["images"] = [{"names": list(im["names"]), "sizeBytes": im["sizeBytes"]}
                            for im in t.images]
    node["status"] = status
    return node


@composite
def nodes(draw: st.DrawFn, sizes: Sizes = SMALL, features: Iterable[str] | None = None,
          name: str | None = None) -> Doc:
    """One Node manifest (allocatable cpu/memory/pods, maybe ephemeral-storage and an extended
    resource, hostname/zone/region labels, taints, unschedulable, images)."""
    t = draw(node_templates(sizes, features))
    if name is None:
        name = f"node-{draw(integers(0, 9))}"
    return node_from_template(t, name, draw(sampled(v.ZONES)))


# ------------------------------------------------------------------------------------ pods

@dataclass(frozen=True, slots=True)
class PodContext:
    """What a pod may refer to: the cluster's namespaces, PriorityClass documents, node names
    (for ``matchFields``) and scheduler profile names."""

    namespaces: tuple[str, ...] = ("default",)
    priority_classes: tuple[Doc, ...] = ()
    node_names: tuple[str, ...] = ()
    scheduler_names: tuple[str, ...] = (v.DEFAULT_SCHEDULER,)

    def __hash__(self) -> int:
        # by value, the PriorityClass documents as their JSON (strategies built for a context
        # are cached: strategies/_cache.py)
        return hash((self.namespaces, json.dumps(self.priority_classes, sort_keys=True),
                     self.node_names, self.scheduler_names))


def _default_class(classes: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """``getDefaultPriorityClass``: the globalDefault class with the lowest value."""
    best = None
    for pc in classes:
        if pc.get("globalDefault") and (best is None or pc["value"] < best["value"]):
            best = pc
    return best


def resolve_priority(pc_name: str, classes: Iterable[Mapping[str, Any]]) -> tuple[int, str]:
    """(priority, preemptionPolicy) the Priority admission plugin gives a pod naming
    ``pc_name`` ("" = none) in a cluster with ``classes``."""
    classes = list(classes)
    if pc_name in v.SYSTEM_PRIORITY_CLASSES:
        return v.SYSTEM_PRIORITY_CLASSES[pc_name], "PreemptLowerPriority"
    pc = next((c for c in classes if c["metadata"]["name"] == pc_name), None) if pc_name \
        else _default_class(classes)
    if pc is None:
        return 0, "PreemptLowerPriority"
    return pc["value"], pc.get("preemptionPolicy", "PreemptLowerPriority")


def _amounts(rl: Mapping[str, Any] | None) -> dict[str, Fraction]:
    return {k: parse_quantity(q) for k, q in (rl or {}).items()}


def _add(into: dict[str, Fraction], rl: Mapping[str, Fraction]) -> None:
    for k, q in rl.items():
        into[k] = into.get(k, Fraction(0)) + q


def _container_requests(c: Mapping[str, Any]) -> dict[str, Fraction]:
    """Requests after SetDefaults_Pod: a request defaults to the limit."""
    res = c.get("resources") or {}
    out = _amounts(res.get("limits"))
    out.update(_amounts(res.get("requests")))
    return out


def aggregate_container_requests(spec: Mapping[str, Any]) -> dict[str, Fraction]:
    """``AggregateContainerRequests`` (component-helpers/resource/helpers.go): the sum over
    containers and sidecars, or the largest init container (plus the sidecars started before
    it), whichever is larger per resource."""
    reqs: dict[str, Fraction] = {}
    for c in spec.get("containers", []):
        _add(reqs, _container_requests(c))
    sidecars: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for c in spec.get("initContainers", []):
        creq = _container_requests(c)
        if c.get("restartPolicy") == "Always":
            _add(reqs, creq)
            _add(sidecars, creq)
            creq = dict(sidecars)
        else:
            tmp = dict(creq)
            _add(tmp, sidecars)
            creq = tmp
        for k, q in creq.items():
            init_max[k] = max(init_max.get(k, Fraction(0)), q)
    for k, q in init_max.items():
        reqs[k] = max(reqs.get(k, Fraction(0)), q)
    return reqs


def pod_requests(pod: Mapping[str, Any]) -> dict[str, int]:
    """What the scheduler counts for a pod manifest (``PodRequests``: containers, init
    containers and sidecars, pod-level cpu/memory requests, overhead), in scheduler units:
    milli-CPU for cpu, ``Value()`` (rounded up) for everything else."""
    spec = pod.get("spec") or {}
    reqs = aggregate_container_requests(spec)
    for k, q in _amounts((spec.get("resources") or {}).get("requests")).items():
        if k in ("cpu", "memory"):
            reqs[k] = q
    _add(reqs, _amounts(spec.get("overhead")))
    return {k: _ceil(q * 1000 if k == "cpu" else q) for k, q in reqs.items()}


#: a container's cpu and memory amounts, each optional
_CONTAINER_AMOUNTS = st.fixed_dictionaries({}, optional={
    "cpu": quantity_values(CPU, 10, 2000),
    "memory": quantity_values(MEMORY, 2**20, 4 * 2**30),
})


@functools.cache
@composite
def _resources(draw: st.DrawFn, f: frozenset[str], ephemeral: bool, gpu: bool) -> Doc | None:
    """A container's resources: requests, and with "limits" either limits >= requests or
    limits only (requests then default to them). Extended resources: request = limit, whole."""
    q: dict[str, Any] = draw(_CONTAINER_AMOUNTS)
    if ephemeral and draw(booleans()):
        q["ephemeral-storage"] = draw(quantity_values(MEMORY, 2**20, 8 * 2**30))
    mode = draw(sampled(("requests", "higher", "equal", "limits"))) \
        if "limits" in f and q else "requests"
    res: Doc = {}
    if mode != "limits" and q:
        res["requests"] = {k: x.raw for k, x in q.items()}
    if mode == "equal" or mode == "limits":
        res["limits"] = {k: x.raw for k, x in q.items()}
    elif mode == "higher":
        res["limits"] = {k: _format(k, x.value * 2) for k, x in q.items()}
    if gpu and draw(booleans()):
        n = draw(integers(1, 2))
        res.setdefault("requests", {})[v.EXTENDED_RESOURCE] = n
        res.setdefault("limits", {})[v.EXTENDED_RESOURCE] = n
    return res or None


@functools.cache
@composite
def _container(draw: st.DrawFn, name: str, f: frozenset[str],
               ports: tuple[tuple[int, str], ...], ephemeral: bool = False,
               gpu: bool = False) -> Doc:
    c: Doc = {"name": name, "image": draw(sampled(v.IMAGE_NAMES))}
    res = draw(_resources(f, ephemeral, gpu))
    if res:
        c["resources"] = res
    if ports:
        c["ports"] = []
        for port, proto in ports:
            p: Doc = {"containerPort": port, "hostPort": port}
            if proto != "TCP" or draw(booleans()):
                p["protocol"] = proto
            c["ports"].append(p)
    return c


#: a pod's spec.overhead
_OVERHEADS = st.fixed_dictionaries({"cpu": sampled(("100m", "250m"))},
                                   optional={"memory": sampled(("64Mi", "120Mi"))})


def _spread_key(c: Doc) -> tuple[str, str]:
    return c["topologyKey"], c["whenUnsatisfiable"]


@functools.lru_cache(maxsize=1024)
def _spread_constraint_lists(own: Labels, max_terms: int) -> st.SearchStrategy[list[Doc]]:
    """A pod's topology spread constraints, at most one per topology key and
    whenUnsatisfiable (built once per arguments)."""
    return st.lists(_topology_spread_constraints(own), max_size=max_terms,
                    unique_by=_spread_key)


@cached
@composite
def pod_templates(draw: st.DrawFn, sizes: Sizes = SMALL, features: Iterable[str] | None = None,
                  ctx: PodContext = PodContext(), running: bool = False) -> Doc:
    """A Pod manifest without ``metadata.name`` (see :func:`pod_from_template`). Running pods
    (``running=True``) get no scheduling gates and no required pod affinity (the generator of
    clusters checks everything else they must satisfy)."""
    f = resolve_features(features)
    labels = draw(pod_labels())
    namespace = draw(sampled(ctx.namespaces)) if "namespaces" in f else "default"
    meta: Doc = {}
    if namespace != "default" or sometimes(draw, 4):
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = labels
    spec: Doc = {}

    ports: tuple[tuple[int, str], ...] = ()
    if "host_ports" in f and sometimes(draw, 4):
        ports = tuple(draw(st.lists(st.tuples(sampled(v.HOST_PORTS), sampled(v.PROTOCOLS)),
                                    unique=True, max_size=2)))
    # Which optional resources this pod asks for, decided once per pod (each container may).
    ephemeral = "ephemeral_storage" in f and sometimes(draw, 4)
    gpu = "extended_resources" in f and sometimes(draw, 6)
    n = draw(integers(1, sizes.max_containers))
    spec["containers"] = [draw(_container(f"c{i}", f, ports if i == 0 else (), ephemeral, gpu))
                          for i in range(n)]
    if "init_containers" in f or "sidecars" in f:
        k = draw(integers(0, sizes.max_init_containers))
        inits = []
        for i in range(k):
            c = draw(_container(f"init-{i}", f, (), ephemeral, gpu))
            sidecar = "sidecars" in f and ("init_containers" not in f or draw(booleans()))
            if sidecar:
                c["restartPolicy"] = "Always"
            inits.append(c)
        if inits:
            spec["initContainers"] = inits
    if "overhead" in f and sometimes(draw, 4):
        spec["overhead"] = draw(_OVERHEADS)
    if "pod_level_resources" in f and sometimes(draw, 4):
        # validatePodResourceConsistency: pod-level requests >= aggregate container requests
        agg = aggregate_container_requests(spec)
        names = draw(st.lists(sampled(("cpu", "memory")), min_size=1, unique=True))
        extra = {"cpu": Fraction(draw(sampled((0, 100, 500))), 1000),
                 "memory": Fraction(draw(sampled((0, 64, 512))) * 2**20)}
        requests = {}
        for k in sorted(names):
            amount = agg.get(k, Fraction(0)) + extra[k]
            if amount == 0:
                amount = Fraction(1, 10) if k == "cpu" else Fraction(2**26)
            requests[k] = _format(k, amount)
        spec["resources"] = {"requests": requests}

    if "tolerations" in f and sometimes(draw, 2):
        spec["tolerations"] = draw(st.lists(tolerations(), min_size=1,
                                            max_size=max(1, sizes.max_terms)))
    if "node_selector" in f and sometimes(draw, 4):
        vocab = {v.ZONE: v.ZONES, **v.NODE_LABELS}
        keys = draw(st.lists(sampled(tuple(vocab)), min_size=1, max_size=2,
                             unique=True))
        spec["nodeSelector"] = {k: draw(sampled(vocab[k])) for k in keys}
    affinity: Doc = {}
    # a nodeSelector and a node affinity must both hold: pods with both are made common
    if "node_affinity" in f and sometimes(draw, 2 if "nodeSelector" in spec else 4):
        affinity["nodeAffinity"] = draw(node_affinities(ctx.node_names, sizes.max_terms))
    ns_terms = "namespaces" in f
    if "pod_affinity" in f and sometimes(draw, 4):
        pa = draw(_pod_affinity(_items(labels), sizes.max_terms, not running, ns_terms))
        if pa:
            affinity["podAffinity"] = pa
    if "pod_anti_affinity" in f and sometimes(draw, 4):
        paa = draw(_pod_affinity(_items(labels), sizes.max_terms, True, ns_terms))
        if paa:
            affinity["podAntiAffinity"] = paa
    if affinity:
        spec["affinity"] = affinity
    if "topology_spread" in f and sometimes(draw, 3):
        tsc = draw(_spread_constraint_lists(_items(labels), sizes.max_terms))
        if tsc:
            spec["topologySpreadConstraints"] = tsc
    if "scheduling_gates" in f and not running and sometimes(draw, 8):
        gates = draw(st.lists(sampled(v.SCHEDULING_GATES), min_size=1, unique=True))
        spec["schedulingGates"] = [{"name": g} for g in gates]

    if "priority_classes" in f:
        names = ("",) + tuple(pc["metadata"]["name"] for pc in ctx.priority_classes) \
            + ("system-cluster-critical",)
        pc_name = draw(sampled(names))
        if pc_name:
            spec["priorityClassName"] = pc_name
        if "explicit_priority" in f:
            priority, policy = resolve_priority(pc_name, ctx.priority_classes)
            if draw(booleans()):
                spec["priority"] = priority
            if draw(booleans()):
                spec["preemptionPolicy"] = policy
    elif "explicit_priority" in f and draw(booleans()):
        spec["preemptionPolicy"] = "PreemptLowerPriority"
    scheduler = draw(sampled(ctx.scheduler_names))
    if scheduler != v.DEFAULT_SCHEDULER or sometimes(draw, 4):
        spec["schedulerName"] = scheduler
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def pod_from_template(template: Mapping[str, Any], name: str, *, node_name: str | None = None,
                      owner: Doc | None = None, creation_timestamp: str | None = None) -> Doc:
    """A copy of ``template`` named ``name``, bound to ``node_name`` if given (a running pod),
    with an owner reference and a creation timestamp if given."""
    meta = _deep_copy(template["metadata"])  # no sharing: YAML would write anchors
    out: Doc = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **meta}}
    if creation_timestamp:
        out["metadata"]["creationTimestamp"] = creation_timestamp
    if owner:
        out["metadata"]["ownerReferences"] = [dict(owner)]
    spec = _deep_copy(template["spec"])
    if node_name:
        spec["nodeName"] = node_name
    out["spec"] = spec
    return out


def _deep_copy(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _deep_copy(y) for k, y in x.items()}
    if isinstance(x, list):
        return [_deep_copy(y) for y in x]
    return x


@composite
def pods(draw: st.DrawFn, sizes: Sizes = SMALL, features: Iterable[str] | None = None,
         ctx: PodContext = PodContext(), name: str | None = None) -> Doc:
    """One pending Pod manifest (see :func:`pod_templates` for what it may hold)."""
    t = draw(pod_templates(sizes, features, ctx))
    if name is None:
        name = f"{t['metadata'].get('labels', {}).get('app', 'pod')}-{draw(integers(0, 9))}"
    return pod_from_template(t, name)


# ------------------------------------------------------------------ priority classes, PDBs

@functools.cache
@composite
def priority_classes(draw: st.DrawFn, name: str | None = None,
                     global_default: bool | None = None) -> Doc:
    """A PriorityClass (scheduling.k8s.io/v1): a user value (at most 1e9), maybe
    preemptionPolicy Never, maybe globalDefault."""
    pc: Doc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
               "metadata": {"name": name or draw(sampled(v.PRIORITY_CLASS_NAMES))},
               "value": draw(sampled(v.PRIORITY_VALUES))}
    gd = sometimes(draw, 4) if global_default is None else global_default
    if gd:
        pc["globalDefault"] = True
    policy = draw(sampled(("",) + v.PREEMPTION_POLICIES))
    if policy:
        pc["preemptionPolicy"] = policy
    if sometimes(draw, 4):
        pc["description"] = "generated"
    return pc


@cached
@composite
def priority_class_lists(draw: st.DrawFn, max_size: int = 3) -> list[Doc]:
    """Distinct PriorityClasses, at most one of them globalDefault (the API allows one)."""
    names = draw(st.lists(sampled(v.PRIORITY_CLASS_NAMES), unique=True,
                          max_size=min(max_size, len(v.PRIORITY_CLASS_NAMES))))
    default_at = draw(integers(-1, len(names) - 1)) if names and \
        draw(integers(0, 2)) == 2 else -1
    return [draw(priority_classes(n, global_default=(i == default_at)))
            for i, n in enumerate(names)]


#: a PodDisruptionBudget's minAvailable or maxUnavailable
_PDB_AMOUNTS = st.one_of(integers(0, 3), sampled(("50%", "0%", "100%", "25%")))


@cached
@composite
def pdbs(draw: st.DrawFn, name: str = "pdb-0", namespaces_: tuple[str, ...] = ("default",)
         ) -> Doc:
    """A PodDisruptionBudget (policy/v1): a selector over pod labels, minAvailable or
    maxUnavailable as an integer or a percentage."""
    ns = draw(sampled(namespaces_))
    spec: Doc = {"selector": draw(label_selectors(
        {"app": draw(sampled(v.POD_LABELS["app"]))}))}
    which = draw(sampled(("minAvailable", "maxUnavailable")))
    spec[which] = draw(_PDB_AMOUNTS)
    meta: Doc = {"name": name}
    if ns != "default" or draw(booleans()):
        meta["namespace"] = ns
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta,
            "spec": spec}


@functools.cache
@composite
def namespaces(draw: st.DrawFn, name: str | None = None) -> Doc:
    """A Namespace with labels from a small vocabulary (team, env)."""
    meta: Doc = {"name": name or draw(sampled(v.NAMESPACES))}
    labels = draw(_vocab_dict(v.NAMESPACE_LABELS))
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}
