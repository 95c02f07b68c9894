"""Read Kubernetes manifests (YAML or JSON) into the internal model (``objects.py``).

Inputs: files holding one or more YAML documents (``---``) or JSON; each document is an object,
a ``kind: List`` (what ``kubectl get nodes,pods -A -o yaml`` prints) or a typed list
(``NodeList``, ``PodList``, ...). Understood kinds: Node, Pod (core/v1), Namespace (core/v1),
PriorityClass (scheduling.k8s.io), PodDisruptionBudget (policy). A KubeSchedulerConfiguration
document is kept raw in ``Cluster.config``; a document with ``apiVersion: kschedconf/v1`` (the
Scenario) raw in ``LoadResult.scenario``. Every other kind is ignored with a warning.

The model is what the API server would store, so the loader applies the API server's
create-time defaulting and mutations that matter for scheduling:

* ``SetDefaults_ResourceList`` (pkg/apis/core/v1/defaults.go): every resource quantity is
  rounded up to milli precision;
* ``SetDefaults_NodeStatus``: allocatable defaults to capacity;
* ``SetDefaults_Pod``: container (and init container) requests default to their limits;
  with hostNetwork, a port's hostPort defaults to its containerPort;
* ``SetDefaults_PodSpec``: schedulerName "default-scheduler";
* ``SetDefaults_Namespace``: label ``kubernetes.io/metadata.name=<name>`` (also on the
  namespaces created implicitly for pods);
* ``podutil.DefaultPodLevelResources`` (pkg/api/pod/util.go; PodLevelResourcesFixDefaulting on):
  pod-level hugepage limits and pod-level requests defaulted when spec.resources is given;
* ``mutatePodAffinity`` / ``mutateTopologySpreadConstraints``
  (pkg/registry/core/pod/strategy.go): matchLabelKeys / mismatchLabelKeys merged into the
  label selector as ``key In (v)`` / ``key NotIn (v)`` (a requirement already present, as in a
  dump of stored pods, is not added twice);
* the Priority admission plugin (plugin/pkg/admission/priority/admission.go): priority from
  the PriorityClass, or the global default class, else 0.

Pods in phase Succeeded or Failed are dropped (with a warning): the scheduler's informers never
see them (``status.phase!=Succeeded,status.phase!=Failed``, pkg/scheduler/scheduler.go).

Bad input raises one ``InputError`` naming file, document, object and field; nothing is half
loaded.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import sys
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import yaml

from reference_impl.model.errors import InputError
from reference_impl.model.objects import (
    DEFAULT_SCHEDULER_NAME,
    DO_NOT_SCHEDULE,
    POLICY_HONOR,
    POLICY_IGNORE,
    SCHEDULE_ANYWAY,
    TAINT_NO_EXECUTE,
    TAINT_NO_SCHEDULE,
    TAINT_PREFER_NO_SCHEDULE,
    TOLERATION_OP_EQUAL,
    TOLERATION_OP_EXISTS,
    Affinity,
    Cluster,
    Container,
    ContainerImage,
    ContainerPort,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodDisruptionBudget,
    PreferredSchedulingTerm,
    PriorityClass,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from reference_impl.model.quantity import QuantityError, parse_quantity
from reference_impl.model.requests import (
    aggregate_container_limits,
    aggregate_container_requests,
    compute_pod_resources,
    host_ports,
    is_hugepage_resource_name,
    is_native_resource,
    is_supported_pod_level_resource,
    to_resource,
)

__all__ = [
    "LoadResult",
    "load_paths",
    "load_documents",
    "load_pod_file",
    "read_documents",
    "SCENARIO_API_VERSION",
    "SYSTEM_PRIORITY_CLASSES",
]

SCENARIO_API_VERSION = "kschedconf/v1"
KUBE_SCHEDULER_CONFIG_GROUP = "kubescheduler.config.k8s.io"

PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPT_NEVER = "Never"

# pkg/apis/scheduling/types.go: SystemCriticalPriority = 2 * HighestUserDefinablePriority;
# the two built-in classes exist in every cluster (registry/scheduling/rest/storage_scheduling.go).
SYSTEM_CRITICAL_PRIORITY = 2 * 1_000_000_000
SYSTEM_PRIORITY_CLASSES: dict[str, PriorityClass] = {
    "system-node-critical": PriorityClass("system-node-critical", SYSTEM_CRITICAL_PRIORITY + 1000),
    "system-cluster-critical": PriorityClass("system-cluster-critical", SYSTEM_CRITICAL_PRIORITY),
}

LABEL_METADATA_NAME = "kubernetes.io/metadata.name"

_LABEL_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist")
_NODE_SELECTOR_OPS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_TAINT_EFFECTS = (TAINT_NO_SCHEDULE, TAINT_PREFER_NO_SCHEDULE, TAINT_NO_EXECUTE)
_PROTOCOLS = ("TCP", "UDP", "SCTP")
_TERMINAL_PHASES = ("Succeeded", "Failed")
_UID_NAMESPACE = uuid.UUID("6f1c2b8e-1d7a-4c55-9a61-3a0f6d3e6b10")

_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)


@dataclass(slots=True)
class LoadResult:
    """The cluster read from the inputs, the warnings about ignored objects, and the raw
    Scenario document (``apiVersion: kschedconf/v1``) if one was found."""

    cluster: Cluster
    warnings: list[str] = field(default_factory=list)
    scenario: dict | None = None


# --- reading files ---------------------------------------------------------------------------

class _JsonFloat(float):
    """A JSON number with a fraction/exponent that remembers its text, so a quantity written
    as a JSON number is parsed exactly as upstream's Quantity.UnmarshalJSON does."""

    text: str

    def __new__(cls, text: str) -> _JsonFloat:
        obj = super().__new__(cls, text)
        obj.text = text
        return obj


def _plain(v: Any) -> Any:
    """A copy of a document with ``_JsonFloat`` turned back into ``float`` (for documents kept
    raw, which others may serialise)."""
    if isinstance(v, _JsonFloat):
        return float(v)
    if isinstance(v, Mapping):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _yaml_loader_class() -> type:
    """A safe loader that keeps timestamps as strings (sigs.k8s.io/yaml hands metav1.Time the
    text), using libyaml when available."""
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    resolvers = {
        ch: [(tag, rx) for tag, rx in entries if tag != "tag:yaml.org,2002:timestamp"]
        for ch, entries in base.yaml_implicit_resolvers.items()
    }
    return type("_KschedLoader", (base,), {"yaml_implicit_resolvers": resolvers})


_YamlLoader = _yaml_loader_class()


def _parse_text(text: str, source: str, *, is_json: bool) -> list[tuple[int, Any]]:
    """Documents of a file as (1-based number, value); empty YAML documents are skipped."""
    if is_json:
        try:
            value = json.loads(text, parse_float=_JsonFloat)
        except json.JSONDecodeError as e:
            raise InputError(f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}",
                             source=source) from None
        if isinstance(value, list):
            return list(enumerate(value, start=1))
        return [(1, value)]
    docs: list[tuple[int, Any]] = []
    try:
        for i, doc in enumerate(yaml.load_all(text, Loader=_YamlLoader), start=1):
            if doc is not None:
                docs.append((i, doc))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e)
        raise InputError(f"invalid YAML{where}: {problem}", source=source) from None
    return docs


def _expand_paths(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    out: list[str] = []
    for p in map(os.fspath, paths):
        if p != "-" and os.path.isdir(p):
            names = sorted(n for n in os.listdir(p)
                           if n.endswith((".yaml", ".yml", ".json")))
            out.extend(os.path.join(p, n) for n in names)
        else:
            out.append(p)
    return out


def read_documents(paths: Iterable[str | os.PathLike[str]]) -> list[tuple[str, int, Any]]:
    """All documents of the given files (a directory means its *.yaml/*.yml/*.json files,
    "-" means stdin) as (source, document number, value)."""
    out: list[tuple[str, int, Any]] = []
    for path in _expand_paths(paths):
        if path == "-":
            text, source = sys.stdin.read(), "<stdin>"
        else:
            source = path
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except OSError as e:
                raise InputError(f"cannot read file: {e.strerror or e}", source=path) from None
            except UnicodeDecodeError as e:
                raise InputError(f"file is not UTF-8 text: {e.reason}", source=path) from None
        if path.endswith(".json"):
            docs = _parse_text(text, source, is_json=True)
        elif text.lstrip().startswith(("{", "[")):
            # JSON content (exact number text) if it is one JSON value, else YAML
            try:
                docs = _parse_text(text, source, is_json=True)
            except InputError:
                docs = _parse_text(text, source, is_json=False)
        else:
            docs = _parse_text(text, source, is_json=False)
        out.extend((source, i, doc) for i, doc in docs)
    return out


# --- field access with error context ---------------------------------------------------------

def _type_name(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, Mapping):
        return "mapping"
    if isinstance(v, list):
        return "list"
    return type(v).__name__


def _show(v: object) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


class _Ctx:
    """Where an object came from, for error messages."""

    __slots__ = ("source", "document", "item", "obj")

    def __init__(self, source: str, document: int | None, item: str = "", obj: str = "") -> None:
        self.source = source
        self.document = document
        self.item = item  # "items[3]" inside a List
        self.obj = obj

    def error(self, path: str, message: str) -> InputError:
        full = path
        if self.item:
            full = self.item + ("." + path if path and not path.startswith("[") else path)
        return InputError(message, source=self.source, document=self.document, obj=self.obj,
                          field=full)


def _map(ctx: _Ctx, v: object, path: str) -> Mapping[str, Any]:
    if v is None:
        return {}
    if not isinstance(v, Mapping):
        raise ctx.error(path, f"expected a mapping, got {_type_name(v)} {_show(v)}")
    return v


def _list(ctx: _Ctx, v: object, path: str) -> list[Any]:
    if v is None:
        return []
    if not isinstance(v, list):
        raise ctx.error(path, f"expected a list, got {_type_name(v)} {_show(v)}")
    return v


def _str(ctx: _Ctx, v: object, path: str, default: str = "") -> str:
    if v is None:
        return default
    if not isinstance(v, str):
        raise ctx.error(path, f"expected a string, got {_type_name(v)} {_show(v)}")
    return v


def _req_str(ctx: _Ctx, v: object, path: str) -> str:
    s = _str(ctx, v, path)
    if not s:
        raise ctx.error(path, "required: expected a non-empty string")
    return s


def _int(ctx: _Ctx, v: object, path: str, *, bounds: tuple[int, int] = _INT32) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.error(path, f"expected an integer, got {_type_name(v)} {_show(v)}")
    if not bounds[0] <= v <= bounds[1]:
        raise ctx.error(path, f"integer {v} out of range [{bounds[0]}, {bounds[1]}]")
    return v


def _bool(ctx: _Ctx, v: object, path: str, default: bool = False) -> bool:
    if v is None:
        return default
    if not isinstance(v, bool):
        raise ctx.error(path, f"expected a boolean, got {_type_name(v)} {_show(v)}")
    return v


def _str_map(ctx: _Ctx, v: object, path: str) -> dict[str, str]:
    m = _map(ctx, v, path)
    out: dict[str, str] = {}
    for k, val in m.items():
        if not isinstance(k, str):
            raise ctx.error(path, f"expected a map of strings, got key {_show(k)} "
                                  f"({_type_name(k)})")
        if not isinstance(val, str):
            raise ctx.error(f"{path}[{k}]" if path else k,
                            f"expected a string value, got {_type_name(val)} {_show(val)} "
                            "(quote it in YAML)")
        out[k] = val
    return out


def _str_list(ctx: _Ctx, v: object, path: str) -> tuple[str, ...]:
    items = _list(ctx, v, path)
    for i, s in enumerate(items):
        if not isinstance(s, str):
            raise ctx.error(f"{path}[{i}]", f"expected a string, got {_type_name(s)} {_show(s)}")
    return tuple(items)


def _one_of(ctx: _Ctx, v: object, path: str, allowed: tuple[str, ...],
            default: str | None = None) -> str | None:
    if v is None or v == "":
        if default is None:
            return None
        return default
    if not isinstance(v, str) or v not in allowed:
        raise ctx.error(path, f"unsupported value {_show(v)}: expected one of "
                              + ", ".join(f'"{a}"' for a in allowed))
    return v


def _time(ctx: _Ctx, v: object, path: str) -> float | None:
    """metav1.Time: an RFC 3339 timestamp -> seconds since the epoch."""
    if v is None or v == "":
        return None
    if isinstance(v, _dt.datetime):
        dt = v
    elif isinstance(v, str):
        text = v.strip()
        if not re.match(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$",
                        text):
            raise ctx.error(path, f"expected an RFC 3339 timestamp (e.g. "
                                  f"2024-01-02T15:04:05Z), got {_show(v)}")
        text = text[:-1] + "+00:00" if text[-1] in "Zz" else text
        frac = re.search(r"\.(\d+)", text)
        if frac and len(frac.group(1)) > 6:  # fromisoformat takes at most microseconds
            text = text.replace(frac.group(0), "." + frac.group(1)[:6])
        try:
            dt = _dt.datetime.fromisoformat(text.replace("t", "T"))
        except ValueError as e:
            raise ctx.error(path, f"invalid timestamp {_show(v)}: {e}") from None
    else:
        raise ctx.error(path, f"expected an RFC 3339 timestamp string, got {_type_name(v)}")
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=_dt.UTC)
    return dt.timestamp()


def _quantity(ctx: _Ctx, v: object, path: str) -> Fraction:
    raw = v.text if isinstance(v, _JsonFloat) else v
    try:
        return parse_quantity(raw)
    except QuantityError as e:
        raise ctx.error(path, str(e)) from None


def _round_up_milli(q: Fraction) -> Fraction:
    """``Quantity.RoundUp(-3)`` as used by SetDefaults_ResourceList (away from zero)."""
    scaled = q * 1000
    if scaled.denominator == 1:
        return q
    mag = -(-abs(scaled.numerator) // scaled.denominator)
    return Fraction(mag if q > 0 else -mag, 1000)


def _resource_list(ctx: _Ctx, v: object, path: str) -> dict[str, Fraction]:
    """A v1.ResourceList: non-negative quantities rounded up to milli
    (SetDefaults_ResourceList)."""
    m = _map(ctx, v, path)
    out: dict[str, Fraction] = {}
    for name, raw in m.items():
        if not isinstance(name, str) or not name:
            raise ctx.error(path, f"expected resource names (strings), got {_show(name)}")
        fpath = f"{path}.{name}" if "/" not in name and "." not in name else f"{path}[{name}]"
        q = _quantity(ctx, raw, fpath)
        if q < 0:
            raise ctx.error(fpath, f"must be greater than or equal to 0, got {_show(raw)}")
        out[name] = _round_up_milli(q)
    return out


# --- selectors, affinity, tolerations, ... ---------------------------------------------------

def _label_selector(ctx: _Ctx, v: object, path: str) -> LabelSelector | None:
    """metav1.LabelSelector; absent/null -> None (selects nothing), {} -> selects everything."""
    if v is None:
        return None
    m = _map(ctx, v, path)
    match_labels = _str_map(ctx, m.get("matchLabels"), f"{path}.matchLabels")
    exprs = []
    for i, e in enumerate(_list(ctx, m.get("matchExpressions"), f"{path}.matchExpressions")):
        epath = f"{path}.matchExpressions[{i}]"
        e = _map(ctx, e, epath)
        key = _req_str(ctx, e.get("key"), f"{epath}.key")
        op = e.get("operator")
        if op not in _LABEL_SELECTOR_OPS:
            raise ctx.error(f"{epath}.operator",
                            f"{_show(op)} is not a valid label selector operator: expected one of "
                            + ", ".join(f'"{o}"' for o in _LABEL_SELECTOR_OPS))
        values = _str_list(ctx, e.get("values"), f"{epath}.values")
        if op in ("In", "NotIn") and not values:
            raise ctx.error(f"{epath}.values",
                            f"must be specified when `operator` is '{op}'")
        if op in ("Exists", "DoesNotExist") and values:
            raise ctx.error(f"{epath}.values",
                            f"may not be specified when `operator` is '{op}'")
        exprs.append(LabelSelectorRequirement(key, op, values))
    return LabelSelector(tuple(match_labels.items()), tuple(exprs))


def _node_selector_requirements(ctx: _Ctx, v: object, path: str,
                                fields: bool) -> tuple[NodeSelectorRequirement, ...]:
    out = []
    for i, r in enumerate(_list(ctx, v, path)):
        rpath = f"{path}[{i}]"
        r = _map(ctx, r, rpath)
        key = _req_str(ctx, r.get("key"), f"{rpath}.key")
        op = r.get("operator")
        allowed = ("In", "NotIn") if fields else _NODE_SELECTOR_OPS
        if op not in allowed:
            raise ctx.error(f"{rpath}.operator",
                            f"{_show(op)} is not a valid node selector operator: expected one of "
                            + ", ".join(f'"{o}"' for o in allowed))
        values = _str_list(ctx, r.get("values"), f"{rpath}.values")
        if fields:
            # validateNodeFieldSelectorRequirement (pkg/apis/core/validation/validation.go)
            if key != "metadata.name":
                raise ctx.error(f"{rpath}.key", f"unsupported field {_show(key)}: "
                                                'expected "metadata.name"')
            if len(values) != 1:
                raise ctx.error(f"{rpath}.values", "must be only one value when `operator` is "
                                                   f"'{op}' for node field selector")
        elif op in ("In", "NotIn") and not values:
            raise ctx.error(f"{rpath}.values", f"must be specified when `operator` is '{op}'")
        elif op in ("Exists", "DoesNotExist") and values:
            raise ctx.error(f"{rpath}.values", f"may not be specified when `operator` is '{op}'")
        elif op in ("Gt", "Lt") and len(values) != 1:
            raise ctx.error(f"{rpath}.values", f"must be specified single value when `operator` "
                                               f"is '{op}'")
        out.append(NodeSelectorRequirement(key, op, values))
    return tuple(out)


def _node_selector_term(ctx: _Ctx, v: object, path: str) -> NodeSelectorTerm:
    m = _map(ctx, v, path)
    return NodeSelectorTerm(
        _node_selector_requirements(ctx, m.get("matchExpressions"),
                                    f"{path}.matchExpressions", False),
        _node_selector_requirements(ctx, m.get("matchFields"), f"{path}.matchFields", True),
    )


def _weight(ctx: _Ctx, v: object, path: str) -> int:
    w = _int(ctx, v, path)
    if w is None or not 1 <= w <= 100:
        raise ctx.error(path, f"must be in the range 1-100, got {_show(v)}")
    return w


def _node_affinity(ctx: _Ctx, v: object, path: str) -> NodeAffinity | None:
    if v is None:
        return None
    m = _map(ctx, v, path)
    required = None
    rpath = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    if m.get("requiredDuringSchedulingIgnoredDuringExecution") is not None:
        r = _map(ctx, m["requiredDuringSchedulingIgnoredDuringExecution"], rpath)
        terms_raw = _list(ctx, r.get("nodeSelectorTerms"), f"{rpath}.nodeSelectorTerms")
        if not terms_raw:
            raise ctx.error(f"{rpath}.nodeSelectorTerms",
                            "required: must have at least one node selector term")
        required = NodeSelector(tuple(
            _node_selector_term(ctx, t, f"{rpath}.nodeSelectorTerms[{i}]")
            for i, t in enumerate(terms_raw)))
    preferred = []
    ppath = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, p in enumerate(_list(ctx, m.get("preferredDuringSchedulingIgnoredDuringExecution"),
                                ppath)):
        p = _map(ctx, p, f"{ppath}[{i}]")
        preferred.append(PreferredSchedulingTerm(
            _weight(ctx, p.get("weight"), f"{ppath}[{i}].weight"),
            _node_selector_term(ctx, p.get("preference"), f"{ppath}[{i}].preference")))
    return NodeAffinity(required, tuple(preferred))


def _merge_label_keys(selector: LabelSelector | None, keys: tuple[str, ...], op: str,
                      labels: Mapping[str, str]) -> LabelSelector | None:
    """``applyLabelKeysToLabelSelector`` (pkg/registry/core/pod/strategy.go): for each key the
    pod has a label for, add ``key op (value)``; skipped for a nil selector. A requirement
    already present (a stored pod was mutated on creation) is not added again."""
    if selector is None or not keys:
        return selector
    exprs = list(selector.match_expressions)
    for key in keys:
        if key in labels:
            req = LabelSelectorRequirement(key, op, (labels[key],))
            if req not in exprs:
                exprs.append(req)
    return LabelSelector(selector.match_labels, tuple(exprs))


def _pod_affinity_term(ctx: _Ctx, v: object, path: str,
                       pod_labels: Mapping[str, str]) -> PodAffinityTerm:
    m = _map(ctx, v, path)
    selector = _label_selector(ctx, m.get("labelSelector"), f"{path}.labelSelector")
    match_keys = _str_list(ctx, m.get("matchLabelKeys"), f"{path}.matchLabelKeys")
    mismatch_keys = _str_list(ctx, m.get("mismatchLabelKeys"), f"{path}.mismatchLabelKeys")
    # mutatePodAffinity (MatchLabelKeysInPodAffinity, GA)
    selector = _merge_label_keys(selector, match_keys, "In", pod_labels)
    selector = _merge_label_keys(selector, mismatch_keys, "NotIn", pod_labels)
    return PodAffinityTerm(
        label_selector=selector,
        topology_key=_req_str(ctx, m.get("topologyKey"), f"{path}.topologyKey"),
        namespaces=_str_list(ctx, m.get("namespaces"), f"{path}.namespaces"),
        namespace_selector=_label_selector(ctx, m.get("namespaceSelector"),
                                           f"{path}.namespaceSelector"),
        match_label_keys=match_keys,
        mismatch_label_keys=mismatch_keys,
    )


def _pod_affinity(ctx: _Ctx, v: object, path: str,
                  pod_labels: Mapping[str, str]) -> PodAffinity | None:
    if v is None:
        return None
    m = _map(ctx, v, path)
    rpath = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    required = tuple(
        _pod_affinity_term(ctx, t, f"{rpath}[{i}]", pod_labels)
        for i, t in enumerate(_list(ctx, m.get("requiredDuringSchedulingIgnoredDuringExecution"),
                                    rpath)))
    ppath = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    preferred = []
    for i, w in enumerate(_list(ctx, m.get("preferredDuringSchedulingIgnoredDuringExecution"),
                                ppath)):
        w = _map(ctx, w, f"{ppath}[{i}]")
        preferred.append(WeightedPodAffinityTerm(
            _weight(ctx, w.get("weight"), f"{ppath}[{i}].weight"),
            _pod_affinity_term(ctx, w.get("podAffinityTerm"), f"{ppath}[{i}].podAffinityTerm",
                               pod_labels)))
    return PodAffinity(required, tuple(preferred))


def _affinity(ctx: _Ctx, v: object, path: str, pod_labels: Mapping[str, str]) -> Affinity | None:
    if v is None:
        return None
    m = _map(ctx, v, path)
    return Affinity(
        node_affinity=_node_affinity(ctx, m.get("nodeAffinity"), f"{path}.nodeAffinity"),
        pod_affinity=_pod_affinity(ctx, m.get("podAffinity"), f"{path}.podAffinity", pod_labels),
        pod_anti_affinity=_pod_affinity(ctx, m.get("podAntiAffinity"), f"{path}.podAntiAffinity",
                                        pod_labels),
    )


def _tolerations(ctx: _Ctx, v: object, path: str) -> tuple[Toleration, ...]:
    """Tolerations, validated as ValidateTolerations (pkg/apis/core/validation/validation.go)
    with TaintTolerationComparisonOperators off; an empty operator becomes Equal."""
    out = []
    for i, t in enumerate(_list(ctx, v, path)):
        tpath = f"{path}[{i}]"
        t = _map(ctx, t, tpath)
        key = _str(ctx, t.get("key"), f"{tpath}.key")
        op = _one_of(ctx, t.get("operator"), f"{tpath}.operator",
                     (TOLERATION_OP_EQUAL, TOLERATION_OP_EXISTS), default=TOLERATION_OP_EQUAL)
        value_ = _str(ctx, t.get("value"), f"{tpath}.value")
        effect = _one_of(ctx, t.get("effect"), f"{tpath}.effect", _TAINT_EFFECTS, default="")
        seconds = _int(ctx, t.get("tolerationSeconds"), f"{tpath}.tolerationSeconds",
                       bounds=_INT64)
        if not key and op != TOLERATION_OP_EXISTS:
            raise ctx.error(f"{tpath}.operator", "operator must be Exists when `key` is empty, "
                                                 'which means "match all values and all keys"')
        if op == TOLERATION_OP_EXISTS and value_:
            raise ctx.error(f"{tpath}.operator",
                            "value must be empty when `operator` is 'Exists'")
        if seconds is not None and effect != TAINT_NO_EXECUTE:
            raise ctx.error(f"{tpath}.effect",
                            "effect must be 'NoExecute' when `tolerationSeconds` is set")
        out.append(Toleration(key, op or TOLERATION_OP_EQUAL, value_, effect or "", seconds))
    return tuple(out)


def _taints(ctx: _Ctx, v: object, path: str) -> tuple[Taint, ...]:
    out = []
    for i, t in enumerate(_list(ctx, v, path)):
        tpath = f"{path}[{i}]"
        t = _map(ctx, t, tpath)
        key = _req_str(ctx, t.get("key"), f"{tpath}.key")
        if t.get("effect") in (None, ""):
            raise ctx.error(f"{tpath}.effect", "required: expected one of "
                            + ", ".join(f'"{e}"' for e in _TAINT_EFFECTS))
        effect = _one_of(ctx, t.get("effect"), f"{tpath}.effect", _TAINT_EFFECTS)
        assert effect is not None
        out.append(Taint(key, _str(ctx, t.get("value"), f"{tpath}.value"), effect))
    return tuple(out)


def _topology_spread(ctx: _Ctx, v: object, path: str,
                     pod_labels: Mapping[str, str]) -> tuple[TopologySpreadConstraint, ...]:
    out = []
    for i, c in enumerate(_list(ctx, v, path)):
        cpath = f"{path}[{i}]"
        c = _map(ctx, c, cpath)
        max_skew = _int(ctx, c.get("maxSkew"), f"{cpath}.maxSkew")
        if max_skew is None or max_skew <= 0:
            raise ctx.error(f"{cpath}.maxSkew", f"must be greater than zero, got "
                                                f"{_show(c.get('maxSkew'))}")
        when = c.get("whenUnsatisfiable")
        if when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            raise ctx.error(f"{cpath}.whenUnsatisfiable",
                            f"unsupported value {_show(when)}: expected "
                            f'"{DO_NOT_SCHEDULE}" or "{SCHEDULE_ANYWAY}"')
        min_domains = _int(ctx, c.get("minDomains"), f"{cpath}.minDomains")
        if min_domains is not None:
            if min_domains <= 0:
                raise ctx.error(f"{cpath}.minDomains", "must be greater than 0")
            if when != DO_NOT_SCHEDULE:
                raise ctx.error(f"{cpath}.minDomains", "can only use minDomains if "
                                f'whenUnsatisfiable="{DO_NOT_SCHEDULE}"')
        selector = _label_selector(ctx, c.get("labelSelector"), f"{cpath}.labelSelector")
        match_keys = _str_list(ctx, c.get("matchLabelKeys"), f"{cpath}.matchLabelKeys")
        # mutateTopologySpreadConstraints (MatchLabelKeysInPodTopologySpreadSelectorMerge, on)
        selector = _merge_label_keys(selector, match_keys, "In", pod_labels)
        out.append(TopologySpreadConstraint(
            max_skew=max_skew,
            topology_key=_req_str(ctx, c.get("topologyKey"), f"{cpath}.topologyKey"),
            when_unsatisfiable=when,
            label_selector=selector,
            min_domains=min_domains,
            node_affinity_policy=_one_of(ctx, c.get("nodeAffinityPolicy"),
                                         f"{cpath}.nodeAffinityPolicy",
                                         (POLICY_HONOR, POLICY_IGNORE)),
            node_taints_policy=_one_of(ctx, c.get("nodeTaintsPolicy"),
                                       f"{cpath}.nodeTaintsPolicy",
                                       (POLICY_HONOR, POLICY_IGNORE)),
            match_label_keys=match_keys,
        ))
    return tuple(out)


def _containers(ctx: _Ctx, v: object, path: str, host_network: bool,
                init: bool) -> tuple[Container, ...]:
    out = []
    for i, c in enumerate(_list(ctx, v, path)):
        cpath = f"{path}[{i}]"
        c = _map(ctx, c, cpath)
        name = _req_str(ctx, c.get("name"), f"{cpath}.name")
        res = _map(ctx, c.get("resources"), f"{cpath}.resources")
        requests = _resource_list(ctx, res.get("requests"), f"{cpath}.resources.requests")
        limits = _resource_list(ctx, res.get("limits"), f"{cpath}.resources.limits")
        # SetDefaults_Pod: requests default to limits
        for rname, q in limits.items():
            requests.setdefault(rname, q)
        ports = []
        for j, p in enumerate(_list(ctx, c.get("ports"), f"{cpath}.ports")):
            ppath = f"{cpath}.ports[{j}]"
            p = _map(ctx, p, ppath)
            container_port = _int(ctx, p.get("containerPort"), f"{ppath}.containerPort")
            if container_port is None or not 1 <= container_port <= 65535:
                raise ctx.error(f"{ppath}.containerPort", "must be between 1 and 65535, got "
                                                          f"{_show(p.get('containerPort'))}")
            host_port = _int(ctx, p.get("hostPort"), f"{ppath}.hostPort") or 0
            if not 0 <= host_port <= 65535:
                raise ctx.error(f"{ppath}.hostPort", f"must be between 1 and 65535, got "
                                                     f"{host_port}")
            if host_network and host_port == 0:
                host_port = container_port  # SetDefaults_Pod: defaultHostNetworkPorts
            ports.append(ContainerPort(
                container_port=container_port,
                host_port=host_port,
                protocol=_one_of(ctx, p.get("protocol"), f"{ppath}.protocol", _PROTOCOLS,
                                 default="TCP") or "TCP",
                host_ip=_str(ctx, p.get("hostIP"), f"{ppath}.hostIP"),
            ))
        restart_policy = c.get("restartPolicy")
        if restart_policy is not None:
            allowed = ("Always",) if init else ("Always", "Never", "OnFailure")
            restart_policy = _one_of(ctx, restart_policy, f"{cpath}.restartPolicy", allowed)
        rules = tuple(_map(ctx, x, f"{cpath}.restartPolicyRules[{k}]") for k, x in
                      enumerate(_list(ctx, c.get("restartPolicyRules"),
                                      f"{cpath}.restartPolicyRules")))
        mounts = tuple(_map(ctx, x, f"{cpath}.volumeMounts[{k}]") for k, x in
                       enumerate(_list(ctx, c.get("volumeMounts"), f"{cpath}.volumeMounts")))
        out.append(Container(
            name=name,
            image=_str(ctx, c.get("image"), f"{cpath}.image"),
            requests=tuple(requests.items()),
            limits=tuple(limits.items()),
            ports=tuple(ports),
            restart_policy=restart_policy,
            restart_policy_rules=rules,
            volume_mounts=mounts,
        ))
    return tuple(out)


def _default_pod_level_resources(containers: tuple[Container, ...],
                                 init_containers: tuple[Container, ...],
                                 requests: dict[str, Fraction],
                                 limits: dict[str, Fraction]) -> None:
    """``DefaultPodLevelResources`` (pkg/api/pod/util.go), hugepage limits and requests parts,
    applied when spec.resources has requests or limits."""
    if not requests and not limits:
        return
    shell = Pod(namespace="", name="", uid="", containers=containers,
                init_containers=init_containers)
    # defaultHugePagePodLevelLimits
    for name, q in aggregate_container_limits(shell).items():
        if not (is_supported_pod_level_resource(name) and is_hugepage_resource_name(name)):
            continue
        if name in requests:
            continue
        limits.setdefault(name, q)
    # defaultPodLevelRequests: overcommittable supported resources from the containers, then
    # the pod-level limits
    for name, q in aggregate_container_requests(shell).items():
        if (name not in requests and is_supported_pod_level_resource(name)
                and is_native_resource(name) and not is_hugepage_resource_name(name)):
            requests[name] = q
    for name, q in limits.items():
        if name not in requests and is_supported_pod_level_resource(name):
            requests[name] = q


def _deterministic_uid(kind: str, namespace: str, name: str) -> str:
    return str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{namespace}/{name}"))


# --- objects ---------------------------------------------------------------------------------

@dataclass(slots=True)
class _Raw:
    """One object found in the inputs, not yet converted."""

    kind: str
    api_version: str
    doc: Mapping[str, Any]
    ctx: _Ctx
    namespace: str
    name: str


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0] if "/" in api_version else ""


def _object_kind(api_version: str, kind: str) -> str | None:
    """The model kind of a (apiVersion, kind), or None if not one we read."""
    group = _group(api_version)
    if kind in ("Node", "Pod", "Namespace") and (not api_version or api_version == "v1"):
        return kind
    if kind == "PriorityClass" and (not api_version or group == "scheduling.k8s.io"):
        return kind
    if kind == "PodDisruptionBudget" and (not api_version or group == "policy"):
        return kind
    if kind == "KubeSchedulerConfiguration" and (not api_version
                                                 or group == KUBE_SCHEDULER_CONFIG_GROUP):
        return kind
    return None


class _Builder:
    """Collects raw objects from documents, then converts all of them at once."""

    def __init__(self) -> None:
        self.raw: list[_Raw] = []
        self.seen: dict[tuple[str, str, str], _Ctx] = {}
        self.ignored: dict[tuple[str, str, str], int] = {}
        self.config: tuple[dict, _Ctx] | None = None
        self.scenario: tuple[dict, _Ctx] | None = None

    # collection

    def add_document(self, doc: object, source: str, document: int | None) -> None:
        ctx = _Ctx(source, document)
        if not isinstance(doc, Mapping):
            raise ctx.error("", f"expected a mapping (a Kubernetes object), got {_type_name(doc)}")
        kind = doc.get("kind")
        api_version = doc.get("apiVersion")
        if api_version == SCENARIO_API_VERSION:
            self._add_object(doc, ctx, "")
            return
        if isinstance(kind, str) and (kind == "List" or (kind.endswith("List") and "items" in doc)):
            item_kind = kind[:-4] if kind != "List" else ""
            for i, item in enumerate(_list(ctx, doc.get("items"), "items")):
                ictx = _Ctx(source, document, f"items[{i}]")
                if not isinstance(item, Mapping):
                    raise ictx.error("", f"expected a mapping (a Kubernetes object), got "
                                         f"{_type_name(item)}")
                self._add_object(item, ictx, item_kind)
            return
        self._add_object(doc, ctx, "")

    def _add_object(self, doc: Mapping[str, Any], ctx: _Ctx, default_kind: str) -> None:
        kind = doc.get("kind") or default_kind
        api_version = doc.get("apiVersion")
        if api_version is not None and not isinstance(api_version, str):
            raise ctx.error("apiVersion", f"expected a string, got {_type_name(api_version)}")
        api_version = api_version or ""
        if api_version == SCENARIO_API_VERSION:
            if self.scenario is not None:
                raise ctx.error("", f"a second {SCENARIO_API_VERSION} document (the first is in "
                                    f"{_where(self.scenario[1])}); expected at most one")
            self.scenario = (_plain(doc), ctx)
            return
        if not kind:
            raise ctx.error("kind", "required: every object needs a kind")
        if not isinstance(kind, str):
            raise ctx.error("kind", f"expected a string, got {_type_name(kind)}")
        model_kind = _object_kind(api_version, kind)
        if model_kind is None:
            key = (kind, api_version, ctx.source)
            self.ignored[key] = self.ignored.get(key, 0) + 1
            return
        if model_kind == "KubeSchedulerConfiguration":
            if self.config is not None:
                raise ctx.error("", "a second KubeSchedulerConfiguration (the first is in "
                                    f"{_where(self.config[1])}); expected at most one")
            self.config = (_plain(doc), ctx)
            return
        meta = _map(ctx, doc.get("metadata"), "metadata")
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            raise ctx.error("metadata.name", f"required: every {kind} needs a name"
                            + ("" if name is None else f", got {_show(name)}"))
        namespace = ""
        if model_kind in ("Pod", "PodDisruptionBudget"):
            namespace = _str(ctx, meta.get("namespace"), "metadata.namespace") or "default"
        ctx.obj = f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"
        dup_key = (model_kind, namespace, name)
        if dup_key in self.seen:
            raise ctx.error("", f"duplicate object: {ctx.obj} was already defined in "
                                f"{_where(self.seen[dup_key])}")
        self.seen[dup_key] = ctx
        self.raw.append(_Raw(model_kind, api_version, doc, ctx, namespace, name))

    # conversion

    def build(self, *, require_known_nodes: bool = True,
              base: Cluster | None = None) -> LoadResult:
        cluster = Cluster()
        warnings: list[str] = []
        by_kind: dict[str, list[_Raw]] = {}
        for r in self.raw:
            by_kind.setdefault(r.kind, []).append(r)

        if base is not None:
            cluster.priority_classes.update(base.priority_classes)
        for r in by_kind.get("PriorityClass", ()):
            pc = _priority_class(r)
            cluster.priority_classes[pc.name] = pc
        for r in by_kind.get("Namespace", ()):
            ns = _namespace(r)
            cluster.namespaces[ns.name] = ns
        for i, r in enumerate(by_kind.get("Node", ())):
            cluster.nodes.append(_node(r, i))
        known_nodes = {n.name for n in cluster.nodes}
        if base is not None:
            known_nodes.update(n.name for n in base.nodes)

        default_pc = _global_default_class(cluster.priority_classes)
        terminal = 0
        order = 0
        uids: dict[str, _Ctx] = {}
        for r in by_kind.get("Pod", ()):
            status = _map(r.ctx, r.doc.get("status"), "status")
            phase = _str(r.ctx, status.get("phase"), "status.phase")
            if phase in _TERMINAL_PHASES:
                terminal += 1
                continue
            pod = _pod(r, order, cluster.priority_classes, default_pc)
            order += 1
            if require_known_nodes and pod.node_name and pod.node_name not in known_nodes:
                raise r.ctx.error("spec.nodeName", f"pod is bound to node {pod.node_name!r}, "
                                                   "which is not among the input nodes")
            if pod.uid in uids:
                raise r.ctx.error("metadata.uid", f"duplicate uid {pod.uid!r} (also used in "
                                                  f"{_where(uids[pod.uid])})")
            uids[pod.uid] = r.ctx
            cluster.pods.append(pod)
            if pod.priority_class_name in SYSTEM_PRIORITY_CLASSES:
                cluster.priority_classes.setdefault(
                    pod.priority_class_name, SYSTEM_PRIORITY_CLASSES[pod.priority_class_name])
            if pod.namespace not in cluster.namespaces:
                cluster.namespaces[pod.namespace] = Namespace(
                    pod.namespace, {LABEL_METADATA_NAME: pod.namespace})
        for r in by_kind.get("PodDisruptionBudget", ()):
            cluster.pdbs.append(_pdb(r))
        if self.config is not None:
            cluster.config = self.config[0]

        if terminal:
            warnings.append(f"ignored {terminal} pod(s) in phase Succeeded/Failed "
                            "(the scheduler does not see terminal pods)")
        for (kind, api_version, source), n in self.ignored.items():
            av = f" ({api_version})" if api_version else ""
            warnings.append(f"{source}: ignored {n} object(s) of kind {kind}{av}")
        return LoadResult(cluster, warnings, self.scenario[0] if self.scenario else None)


def _where(ctx: _Ctx) -> str:
    parts = [ctx.source]
    if ctx.document is not None:
        parts.append(f"document {ctx.document}")
    if ctx.item:
        parts.append(ctx.item)
    return ", ".join(parts)


def _metadata_common(r: _Raw) -> tuple[Mapping[str, Any], dict[str, str], dict[str, str]]:
    meta = _map(r.ctx, r.doc.get("metadata"), "metadata")
    labels = _str_map(r.ctx, meta.get("labels"), "metadata.labels")
    annotations = _str_map(r.ctx, meta.get("annotations"), "metadata.annotations")
    return meta, labels, annotations


def _priority_class(r: _Raw) -> PriorityClass:
    ctx, doc = r.ctx, r.doc
    value_ = _int(ctx, doc.get("value"), "value")
    if value_ is None:
        raise ctx.error("value", "required: a PriorityClass needs an integer value")
    return PriorityClass(
        name=r.name,
        value=value_,
        global_default=_bool(ctx, doc.get("globalDefault"), "globalDefault"),
        preemption_policy=_one_of(ctx, doc.get("preemptionPolicy"), "preemptionPolicy",
                                  (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER),
                                  default=PREEMPT_LOWER_PRIORITY) or PREEMPT_LOWER_PRIORITY,
    )


def _global_default_class(classes: Mapping[str, PriorityClass]) -> PriorityClass | None:
    """``getDefaultPriorityClass`` (admission/priority): among globalDefault classes the one
    with the lowest value."""
    best = None
    for pc in classes.values():
        if pc.global_default and (best is None or best.value > pc.value):
            best = pc
    return best


def _namespace(r: _Raw) -> Namespace:
    _meta, labels, _ann = _metadata_common(r)
    labels[LABEL_METADATA_NAME] = r.name  # SetDefaults_Namespace
    return Namespace(r.name, labels)


def _node(r: _Raw, order: int) -> Node:
    ctx, doc = r.ctx, r.doc
    meta, labels, annotations = _metadata_common(r)
    spec = _map(ctx, doc.get("spec"), "spec")
    status = _map(ctx, doc.get("status"), "status")
    if status.get("allocatable") is not None:
        alloc = _resource_list(ctx, status.get("allocatable"), "status.allocatable")
    else:  # SetDefaults_NodeStatus
        alloc = _resource_list(ctx, status.get("capacity"), "status.capacity")
    try:
        allocatable = to_resource(alloc)
    except QuantityError as e:
        raise ctx.error("status.allocatable", str(e)) from None
    images = []
    for i, im in enumerate(_list(ctx, status.get("images"), "status.images")):
        ipath = f"status.images[{i}]"
        im = _map(ctx, im, ipath)
        images.append(ContainerImage(
            names=_str_list(ctx, im.get("names"), f"{ipath}.names"),
            size_bytes=_int(ctx, im.get("sizeBytes"), f"{ipath}.sizeBytes", bounds=_INT64) or 0,
        ))
    return Node(
        name=r.name,
        uid=_str(ctx, meta.get("uid"), "metadata.uid") or _deterministic_uid("Node", "", r.name),
        labels=labels,
        annotations=annotations,
        taints=_taints(ctx, spec.get("taints"), "spec.taints"),
        unschedulable=_bool(ctx, spec.get("unschedulable"), "spec.unschedulable"),
        allocatable=allocatable,
        images=tuple(images),
        declared_features=_str_list(ctx, status.get("declaredFeatures"),
                                    "status.declaredFeatures"),
        order=order,
    )


def _owner_references(ctx: _Ctx, v: object, path: str) -> tuple[OwnerReference, ...]:
    out = []
    for i, o in enumerate(_list(ctx, v, path)):
        opath = f"{path}[{i}]"
        o = _map(ctx, o, opath)
        out.append(OwnerReference(
            api_version=_req_str(ctx, o.get("apiVersion"), f"{opath}.apiVersion"),
            kind=_req_str(ctx, o.get("kind"), f"{opath}.kind"),
            name=_req_str(ctx, o.get("name"), f"{opath}.name"),
            uid=_req_str(ctx, o.get("uid"), f"{opath}.uid"),
            controller=_bool(ctx, o.get("controller"), f"{opath}.controller"),
        ))
    return tuple(out)


def _pod(r: _Raw, order: int, classes: Mapping[str, PriorityClass],
         default_pc: PriorityClass | None) -> Pod:
    ctx, doc = r.ctx, r.doc
    meta, labels, annotations = _metadata_common(r)
    spec = _map(ctx, doc.get("spec"), "spec")
    status = _map(ctx, doc.get("status"), "status")
    host_network = _bool(ctx, spec.get("hostNetwork"), "spec.hostNetwork")
    containers = _containers(ctx, spec.get("containers"), "spec.containers", host_network, False)
    init_containers = _containers(ctx, spec.get("initContainers"), "spec.initContainers",
                                  host_network, True)
    # Ephemeral containers request no resources and open no host ports; they matter for
    # NodeDeclaredFeatures' inference only.
    ephemeral = _containers(ctx, spec.get("ephemeralContainers"), "spec.ephemeralContainers",
                            False, False)
    host_users = _bool(ctx, spec.get("hostUsers"), "spec.hostUsers") \
        if spec.get("hostUsers") is not None else None

    # pod-level resources
    plr = _map(ctx, spec.get("resources"), "spec.resources")
    plr_requests = _resource_list(ctx, plr.get("requests"), "spec.resources.requests")
    plr_limits = _resource_list(ctx, plr.get("limits"), "spec.resources.limits")
    for part, rl in (("requests", plr_requests), ("limits", plr_limits)):
        for name in rl:
            if not is_supported_pod_level_resource(name):
                raise ctx.error(f"spec.resources.{part}[{name}]",
                                "unsupported pod-level resource: expected cpu, memory or "
                                "hugepages-<size>")
    _default_pod_level_resources(containers, init_containers, plr_requests, plr_limits)

    # priority (admission/priority establishPriority)
    pc_name = _str(ctx, spec.get("priorityClassName"), "spec.priorityClassName")
    spec_priority = _int(ctx, spec.get("priority"), "spec.priority")
    preemption_policy = _one_of(ctx, spec.get("preemptionPolicy"), "spec.preemptionPolicy",
                                (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER))
    # The class that applies (admission/priority): the named one, or without a name the global
    # default, also when the pod gives spec.priority (admission only checks that they agree); an
    # explicit spec.priority (as in a dump of admitted pods) is kept as is.
    pc: PriorityClass | None = None
    if pc_name:
        pc = classes.get(pc_name) or SYSTEM_PRIORITY_CLASSES.get(pc_name)
        if pc is None and spec_priority is None:
            raise ctx.error("spec.priorityClassName",
                            f"no PriorityClass with name {pc_name!r} was found (known: "
                            + (", ".join(sorted(classes)) or "none") + ")")
    elif default_pc is not None:
        pc = default_pc
        pc_name = pc.name
    if spec_priority is not None:
        priority = spec_priority
    elif pc is not None:
        priority = pc.value
    else:
        priority = 0  # scheduling.DefaultPriorityWhenNoDefaultClassExists
    if preemption_policy is None:
        preemption_policy = pc.preemption_policy if pc is not None else PREEMPT_LOWER_PRIORITY

    volumes = tuple(_map(ctx, v, f"spec.volumes[{i}]")
                    for i, v in enumerate(_list(ctx, spec.get("volumes"), "spec.volumes")))
    pvc_names = []
    for i, v in enumerate(volumes):
        if v.get("persistentVolumeClaim") is not None:
            src = _map(ctx, v["persistentVolumeClaim"], f"spec.volumes[{i}].persistentVolumeClaim")
            pvc_names.append(_req_str(ctx, src.get("claimName"),
                                      f"spec.volumes[{i}].persistentVolumeClaim.claimName"))
    claims = []
    for i, c in enumerate(_list(ctx, spec.get("resourceClaims"), "spec.resourceClaims")):
        c = _map(ctx, c, f"spec.resourceClaims[{i}]")
        claims.append(_req_str(ctx, c.get("name"), f"spec.resourceClaims[{i}].name"))
    gates = []
    for i, g in enumerate(_list(ctx, spec.get("schedulingGates"), "spec.schedulingGates")):
        g = _map(ctx, g, f"spec.schedulingGates[{i}]")
        gates.append(_req_str(ctx, g.get("name"), f"spec.schedulingGates[{i}].name"))

    pod = Pod(
        namespace=r.namespace,
        name=r.name,
        uid=(_str(ctx, meta.get("uid"), "metadata.uid")
             or _deterministic_uid("Pod", r.namespace, r.name)),
        labels=labels,
        annotations=annotations,
        creation_timestamp=_time(ctx, meta.get("creationTimestamp"),
                                 "metadata.creationTimestamp") or 0.0,
        order=order,
        ephemeral_containers=ephemeral,
        host_network=host_network,
        host_users=host_users,
        node_name=_str(ctx, spec.get("nodeName"), "spec.nodeName"),
        scheduler_name=_str(ctx, spec.get("schedulerName"), "spec.schedulerName")
        or DEFAULT_SCHEDULER_NAME,
        priority=priority,
        priority_class_name=pc_name,
        preemption_policy=preemption_policy,
        node_selector=_str_map(ctx, spec.get("nodeSelector"), "spec.nodeSelector"),
        affinity=_affinity(ctx, spec.get("affinity"), "spec.affinity", labels),
        tolerations=_tolerations(ctx, spec.get("tolerations"), "spec.tolerations"),
        containers=containers,
        init_containers=init_containers,
        overhead=tuple(_resource_list(ctx, spec.get("overhead"), "spec.overhead").items()),
        pod_level_requests=tuple(plr_requests.items()),
        pod_level_limits=tuple(plr_limits.items()),
        topology_spread_constraints=_topology_spread(
            ctx, spec.get("topologySpreadConstraints"), "spec.topologySpreadConstraints", labels),
        scheduling_gates=tuple(gates),
        owner_references=_owner_references(ctx, meta.get("ownerReferences"),
                                           "metadata.ownerReferences"),
        nominated_node_name=_str(ctx, status.get("nominatedNodeName"),
                                 "status.nominatedNodeName"),
        deletion_timestamp=_time(ctx, meta.get("deletionTimestamp"),
                                 "metadata.deletionTimestamp"),
        start_time=_time(ctx, status.get("startTime"), "status.startTime"),
        pvc_names=tuple(pvc_names),
        volumes=tuple(_plain(v) for v in volumes),
        resource_claims=tuple(claims),
    )
    try:
        pod.resources = compute_pod_resources(pod)
    except QuantityError as e:
        raise ctx.error("spec", f"resource requests out of range: {e}") from None
    pod.host_ports = host_ports(pod)
    return pod


def _int_or_percent(ctx: _Ctx, v: object, path: str) -> int | str | None:
    if v is None:
        return None
    if isinstance(v, str):
        if not re.fullmatch(r"\d+%", v):
            raise ctx.error(path, f"expected an integer or a percentage like '50%', got {v!r}")
        return v
    n = _int(ctx, v, path)
    if n is not None and n < 0:
        raise ctx.error(path, "must be greater than or equal to 0")
    return n


def _pdb(r: _Raw) -> PodDisruptionBudget:
    ctx, doc = r.ctx, r.doc
    spec = _map(ctx, doc.get("spec"), "spec")
    status = _map(ctx, doc.get("status"), "status")
    min_available = _int_or_percent(ctx, spec.get("minAvailable"), "spec.minAvailable")
    max_unavailable = _int_or_percent(ctx, spec.get("maxUnavailable"), "spec.maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        raise ctx.error("spec", "minAvailable and maxUnavailable cannot be both set")
    return PodDisruptionBudget(
        namespace=r.namespace,
        name=r.name,
        selector=_label_selector(ctx, spec.get("selector"), "spec.selector"),
        min_available=min_available,
        max_unavailable=max_unavailable,
        disruptions_allowed=_int(ctx, status.get("disruptionsAllowed"),
                                 "status.disruptionsAllowed"),
    )


# --- public API ------------------------------------------------------------------------------

def load_documents(docs: Iterable[object], source: str = "<memory>", *,
                   require_known_nodes: bool = True) -> LoadResult:
    """Load already-parsed documents (dicts); document numbers in errors are 1-based
    positions in ``docs``."""
    b = _Builder()
    for i, doc in enumerate(docs, start=1):
        b.add_document(doc, source, i)
    return b.build(require_known_nodes=require_known_nodes)


def load_paths(paths: Iterable[str | os.PathLike[str]]) -> LoadResult:
    """Load every object of the given files (or directories, or "-" for stdin)."""
    b = _Builder()
    for source, i, doc in read_documents(paths):
        b.add_document(doc, source, i)
    return b.build()


def load_pod_file(path: str | os.PathLike[str], cluster: Cluster | None = None) -> Pod:
    """The single Pod defined in ``path``. Its priorityClassName is resolved against
    ``cluster``'s classes (if given); its nodeName is checked against ``cluster``'s nodes only
    when a cluster is given."""
    b = _Builder()
    for source, i, doc in read_documents([path]):
        b.add_document(doc, source, i)
    pods = [r for r in b.raw if r.kind == "Pod"]
    if len(pods) != 1 or len(b.raw) != 1:
        kinds = ", ".join(f"{r.kind} {r.name}" for r in b.raw) or "no objects"
        raise InputError(f"expected exactly one Pod, found {kinds}", source=os.fspath(path))
    result = b.build(require_known_nodes=cluster is not None, base=cluster)
    if not result.cluster.pods:
        raise InputError("expected exactly one Pod, found a pod in phase Succeeded/Failed",
                         source=os.fspath(path))
    return result.cluster.pods[0]
