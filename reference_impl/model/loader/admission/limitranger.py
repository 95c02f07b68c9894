"""The LimitRanger admission plugin (plugin/pkg/admission/limitranger/admission.go) for pods
created from manifests, with the LimitRange defaulting it relies on
(``SetDefaults_LimitRangeItem``, pkg/apis/core/v1/defaults.go).

Mutation (``PodMutateLimitFunc``): every container and init container gets the default limits
and default requests of the namespace's ``Container`` limits for the resources it does not set,
and the pod the ``kubernetes.io/limit-ranger`` annotation. Validation (``PodValidateLimitFunc``):
the min, max and maxLimitRequestRatio of ``Container`` and ``Pod`` limits; a violation rejects
the pod with upstream's text. Several LimitRanges of a namespace apply in name order (upstream
takes the informer's order); the errors of one LimitRange are sorted by resource name (upstream
iterates a Go map)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from reference_impl.model.decoding import InputLocation, read_list, read_map, read_str
from reference_impl.model.loader.admission.common import (
    AdmittedPod,
    containers,
    resource_list,
    sub_map,
)
from reference_impl.model.quantity import (
    MAX_INT64,
    format_quantity,
    format_value,
    milli_value,
    quantity_format,
    value,
)

PLUGIN = "LimitRanger"
ANNOTATION = "kubernetes.io/limit-ranger"
LIMIT_TYPES = ("Container", "Pod", "PersistentVolumeClaim")
_MAX_MILLI_VALUE = MAX_INT64 // 1000  # resource.MaxMilliValue

Resources = dict[str, tuple[Any, Fraction]]


@dataclass(slots=True)
class LimitRangeItem:
    """One ``spec.limits[i]``, after ``SetDefaults_LimitRangeItem``."""

    type: str
    max: Resources = field(default_factory=dict)
    min: Resources = field(default_factory=dict)
    default: Resources = field(default_factory=dict)
    default_request: Resources = field(default_factory=dict)
    max_limit_request_ratio: Resources = field(default_factory=dict)


@dataclass(slots=True)
class LimitRange:
    namespace: str
    name: str
    limits: list[LimitRangeItem]

    @property
    def source(self) -> str:
        return f"LimitRange {self.namespace}/{self.name}"


def read_limit_range(doc: Mapping[str, Any], ctx: InputLocation, namespace: str,
                     name: str) -> LimitRange:
    """A v1 LimitRange document, defaulted as the API server stores it: a Container item's
    default limit defaults to its max, its default request to the default limit, then to its
    min (``SetDefaults_LimitRangeItem``)."""
    spec = read_map(ctx, doc.get("spec"), "spec")
    items = []
    for i, raw in enumerate(read_list(ctx, spec.get("limits"), "spec.limits")):
        path = f"spec.limits[{i}]"
        raw = read_map(ctx, raw, path, nullable=False)
        kind = read_str(ctx, raw.get("type"), f"{path}.type")
        if kind not in LIMIT_TYPES:
            raise ctx.error(f"{path}.type", f"unsupported value {kind!r}: expected one of "
                                            + ", ".join(f'"{t}"' for t in LIMIT_TYPES))
        item = LimitRangeItem(
            kind,
            max=resource_list(ctx, raw.get("max"), f"{path}.max"),
            min=resource_list(ctx, raw.get("min"), f"{path}.min"),
            default=resource_list(ctx, raw.get("default"), f"{path}.default"),
            default_request=resource_list(ctx, raw.get("defaultRequest"),
                                          f"{path}.defaultRequest"),
            max_limit_request_ratio=resource_list(ctx, raw.get("maxLimitRequestRatio"),
                                                  f"{path}.maxLimitRequestRatio"))
        if kind == "Container":
            for k, v in item.max.items():
                item.default.setdefault(k, v)
            for k, v in item.default.items():
                item.default_request.setdefault(k, v)
            for k, v in item.min.items():
                item.default_request.setdefault(k, v)
        items.append(item)
    return LimitRange(namespace, name, items)


# mutation


def _merge_container(pod: AdmittedPod, path: str, c: dict[str, Any], limits: Resources,
                     requests: Resources, prefix: str, source: str,
                     annotations: list[str]) -> None:
    """``mergeContainerResources``: defaults for the resources the container does not set."""
    res = sub_map(c, "resources")
    set_parts: list[tuple[str, list[str]]] = []
    for part, defaults in (("limits", limits), ("requests", requests)):
        have = sub_map(res, part)
        names = []
        for k, (raw, _q) in defaults.items():
            if k not in have:
                have[k] = raw
                names.append(k)
                pod.record(PLUGIN, f"{path}.resources.{part}.{k}", raw, source)
        set_parts.append((part, names))
    cname = c.get("name", "")
    for part, names in reversed(set_parts):  # upstream: the requests first, then the limits
        if names:
            kind = "request" if part == "requests" else "limit"
            annotations.append(", ".join(sorted(names)) + f" {kind} for {prefix} {cname}")


def mutate(pod: AdmittedPod, lr: LimitRange) -> None:
    """``PodMutateLimitFunc``: ``defaultContainerResourceRequirements`` (the Container items'
    default and defaultRequest, later items winning) merged into every container."""
    limits: Resources = {}
    requests: Resources = {}
    for item in lr.limits:
        if item.type == "Container":
            requests.update(item.default_request)
            limits.update(item.default)
    annotations: list[str] = []
    for init, prefix in ((False, "container"), (True, "init container")):
        for path, c in containers(pod, init):
            _merge_container(pod, path, c, limits, requests, prefix, lr.source, annotations)
    if annotations:
        meta = sub_map(pod.doc, "metadata")
        text = "LimitRanger plugin set: " + "; ".join(annotations)
        sub_map(meta, "annotations")[ANNOTATION] = text
        pod.record(PLUGIN, f"metadata.annotations[{ANNOTATION}]", text, lr.source)


# validation


def _values(req: Fraction | None, lim: Fraction | None,
            enforced: Fraction) -> tuple[int, int, int]:
    """``requestLimitEnforcedValues``: milli values when all three fit, else values."""
    r, li = req or Fraction(0), lim or Fraction(0)
    vals = (value(r), value(li), value(enforced))
    if all(v <= _MAX_MILLI_VALUE for v in vals):
        return milli_value(r), milli_value(li), milli_value(enforced)
    return vals


def _min(kind: str, name: str, enforced: tuple[Any, Fraction], requests: Resources,
         limits: Resources) -> str | None:
    e = format_quantity(enforced[0])
    if name not in requests:
        return f"minimum {name} usage per {kind} is {e}.  No request is specified"
    req, lim = requests[name], limits.get(name)
    r, li, v = _values(req[1], lim[1] if lim else None, enforced[1])
    if r < v:
        return f"minimum {name} usage per {kind} is {e}, but request is {format_quantity(req[0])}"
    if lim is not None and li < v:
        return f"minimum {name} usage per {kind} is {e}, but limit is {format_quantity(lim[0])}"
    return None


def _max(kind: str, name: str, enforced: tuple[Any, Fraction], requests: Resources,
         limits: Resources) -> str | None:
    e = format_quantity(enforced[0])
    if name not in limits:
        return f"maximum {name} usage per {kind} is {e}.  No limit is specified"
    req, lim = requests.get(name), limits[name]
    r, li, v = _values(req[1] if req else None, lim[1], enforced[1])
    if li > v:
        return f"maximum {name} usage per {kind} is {e}, but limit is {format_quantity(lim[0])}"
    if req is not None and r > v:
        return f"maximum {name} usage per {kind} is {e}, but request is {format_quantity(req[0])}"
    return None


def _ratio(kind: str, name: str, enforced: tuple[Any, Fraction], requests: Resources,
           limits: Resources) -> str | None:
    e = format_quantity(enforced[0])
    req, lim = requests.get(name), limits.get(name)
    r, li, _ = _values(req[1] if req else None, lim[1] if lim else None, enforced[1])
    if req is None or r == 0:
        return (f"{name} max limit to request ratio per {kind} is {e}, but no request is "
                "specified or request is 0")
    if lim is None or li == 0:
        return (f"{name} max limit to request ratio per {kind} is {e}, but no limit is "
                "specified or limit is 0")
    observed = li / r
    shown = observed
    max_ratio = float(value(enforced[1]))
    if value(enforced[1]) <= _MAX_MILLI_VALUE:
        observed *= 1000
        max_ratio = float(milli_value(enforced[1]))
    if observed > max_ratio:
        return (f"{name} max limit to request ratio per {kind} is {e}, but provided ratio is "
                f"{shown:f}")
    return None


def _check(item: LimitRangeItem, requests: Resources, limits: Resources) -> list[str]:
    errs: list[str] = []
    for check, bounds in ((_min, item.min), (_max, item.max),
                          (_ratio, item.max_limit_request_ratio)):
        for name in sorted(bounds):
            err = check(item.type, name, bounds[name], requests, limits)
            if err:
                errs.append(err)
    return errs


def _container_resources(pod: AdmittedPod, path: str,
                         c: Mapping[str, Any]) -> tuple[Resources, Resources]:
    res = c.get("resources") if isinstance(c.get("resources"), Mapping) else {}
    assert isinstance(res, Mapping)
    return (resource_list(pod.ctx, res.get("requests"), f"{path}.resources.requests"),
            resource_list(pod.ctx, res.get("limits"), f"{path}.resources.limits"))


Totals = dict[str, tuple[Fraction, str]]  # value, format (Quantity.Format)


def _add(total: Totals, more: Resources) -> None:
    """``addResourceList``: a sum keeps its first term's format (``Quantity.Add``)."""
    for k, (raw, q) in more.items():
        if k in total:
            total[k] = (total[k][0] + q, total[k][1])
        else:
            total[k] = (q, quantity_format(raw))


def _add_totals(total: Totals, more: Totals) -> None:
    for k, (q, fmt) in more.items():
        total[k] = (total[k][0] + q, total[k][1]) if k in total else (q, fmt)


def _max_into(total: Totals, more: Totals) -> None:
    """``maxResourceList``: the larger one, with its format."""
    for k, v in more.items():
        if k not in total or v[0] > total[k][0]:
            total[k] = v


def _pod_totals(pod: AdmittedPod, part: int) -> Resources:
    """``podRequests`` (part 0) / ``podLimits`` (part 1) of limitranger/admission.go: the spec
    only; restartable init containers (sidecars) add up; pod-level cpu/memory override (the
    PodLevelResources gate is on in v1.37)."""
    total: Totals = {}
    sidecars: Totals = {}
    init_max: Totals = {}
    for path, c in containers(pod, False):
        _add(total, _container_resources(pod, path, c)[part])
    for path, c in containers(pod, True):
        own: Totals = {}
        _add(own, _container_resources(pod, path, c)[part])
        if c.get("restartPolicy") == "Always":
            _add_totals(total, own)
            _add_totals(sidecars, own)
            current = dict(sidecars)
        else:
            current = dict(own)
            _add_totals(current, sidecars)
        _max_into(init_max, current)
    _max_into(total, init_max)
    out: Resources = {k: (format_value(q, fmt), q) for k, (q, fmt) in total.items()}
    pod_level = pod.spec.get("resources")
    if isinstance(pod_level, Mapping):
        key = ("requests", "limits")[part]
        for k, v in resource_list(pod.ctx, pod_level.get(key), f"spec.resources.{key}").items():
            if k in ("cpu", "memory"):
                out[k] = v
    return out


def validate(pod: AdmittedPod, lr: LimitRange) -> list[str]:
    """``PodValidateLimitFunc``: the violations of one LimitRange, in upstream's order (the
    items; for a Container item, the containers then the init containers)."""
    errs: list[str] = []
    for item in lr.limits:
        if item.type == "Container":
            for init in (False, True):
                for path, c in containers(pod, init):
                    requests, limits = _container_resources(pod, path, c)
                    errs += _check(item, requests, limits)
        elif item.type == "Pod":
            errs += _check(item, _pod_totals(pod, 0), _pod_totals(pod, 1))
    return errs


def aggregate(errs: list[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: the distinct messages, one alone, several
    as ``[a, b]`` (staging/src/k8s.io/apimachinery/pkg/util/errors/errors.go)."""
    distinct = list(dict.fromkeys(errs))
    return distinct[0] if len(distinct) == 1 else "[" + ", ".join(distinct) + "]"
