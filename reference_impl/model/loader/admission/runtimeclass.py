"""The RuntimeClass admission plugin (plugin/pkg/admission/runtimeclass/admission.go) for pods
created from manifests: a pod naming a ``spec.runtimeClassName`` gets the class's
``overhead.podFixed`` as ``spec.overhead`` and its ``scheduling.nodeSelector`` merged into
``spec.nodeSelector`` and its ``scheduling.tolerations`` merged into ``spec.tolerations``
(``tolerations.MergeTolerations``, pkg/util/tolerations/tolerations.go). Rejections, with
upstream's text: a class that does not exist, a pod overhead that differs from the class's, a
nodeSelector conflict, an overhead without a class that defines one (``validateOverhead``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from reference_impl.model.decoding import (
    InputLocation,
    plain,
    read_list,
    read_map,
    read_str,
    read_str_map,
)
from reference_impl.model.loader.admission.common import AdmittedPod, resource_list

PLUGIN = "RuntimeClass"
API_GROUP = "node.k8s.io"


@dataclass(slots=True)
class RuntimeClass:
    name: str
    overhead: dict[str, tuple[Any, Fraction]] | None
    node_selector: dict[str, str]
    tolerations: list[dict[str, Any]]
    has_scheduling: bool

    @property
    def source(self) -> str:
        return f"RuntimeClass {self.name}"


def read_runtime_class(doc: Mapping[str, Any], ctx: InputLocation, name: str) -> RuntimeClass:
    """A node.k8s.io/v1 RuntimeClass document (``overhead``, ``scheduling``)."""
    overhead = None
    if doc.get("overhead") is not None:
        ov = read_map(ctx, doc.get("overhead"), "overhead")
        overhead = resource_list(ctx, ov.get("podFixed"), "overhead.podFixed")
    scheduling = doc.get("scheduling")
    sched = read_map(ctx, scheduling, "scheduling")
    tolerations = []
    for i, t in enumerate(read_list(ctx, sched.get("tolerations"), "scheduling.tolerations")):
        tolerations.append(dict(read_map(ctx, t, f"scheduling.tolerations[{i}]",
                                         nullable=False)))
    return RuntimeClass(name, overhead,
                        read_str_map(ctx, sched.get("nodeSelector"), "scheduling.nodeSelector"),
                        tolerations, scheduling is not None)


def _quantities(pod: AdmittedPod, v: object) -> dict[str, Fraction]:
    return {k: q for k, (_, q) in resource_list(pod.ctx, v, "spec.overhead").items()}


def _class_of(pod: AdmittedPod, classes: Mapping[str, RuntimeClass]) -> RuntimeClass | None:
    """``prepareObjects``: the pod's class, None without ``runtimeClassName``."""
    name = read_str(pod.ctx, pod.spec.get("runtimeClassName"), "spec.runtimeClassName")
    if not name:
        return None
    rc = classes.get(name)
    if rc is None:
        raise pod.forbidden(f'pod rejected: RuntimeClass "{name}" not found', PLUGIN,
                            "no RuntimeClass of that name among the inputs")
    return rc


def mutate(pod: AdmittedPod, classes: Mapping[str, RuntimeClass]) -> None:
    """``Admit``: ``setOverhead`` then ``setScheduling``."""
    rc = _class_of(pod, classes)
    if rc is None:
        return
    if rc.overhead is not None:
        fixed = {k: q for k, (_, q) in rc.overhead.items()}
        have = pod.spec.get("overhead")
        if have and _quantities(pod, have) != fixed:
            raise pod.forbidden("pod rejected: Pod's Overhead doesn't match RuntimeClass's "
                                "defined Overhead", PLUGIN, rc.source)
        pod.spec["overhead"] = {k: raw for k, (raw, _) in rc.overhead.items()}
        pod.record(PLUGIN, "spec.overhead", pod.spec["overhead"], rc.source)
    if not rc.has_scheduling:
        return
    selector = pod.spec.get("nodeSelector")
    before = dict(selector) if isinstance(selector, dict) else {}
    if not isinstance(selector, dict):
        selector = dict(rc.node_selector) if rc.node_selector else None
    else:
        for key, value in rc.node_selector.items():
            if key in selector and selector[key] != value:
                raise pod.forbidden(f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = "
                                    f"{value}; pod.spec.nodeSelector[{key}] = {selector[key]}",
                                    PLUGIN, rc.source)
            selector[key] = value
    for key, value in rc.node_selector.items():
        if key not in before:
            pod.record(PLUGIN, f"spec.nodeSelector[{key}]", value, rc.source)
    if selector is not None:
        pod.spec["nodeSelector"] = selector
    current = pod.spec.get("tolerations")
    first = [t for t in current if isinstance(t, dict)] if isinstance(current, list) else []
    merged = merge_tolerations(first, [dict(t) for t in rc.tolerations])
    for t in merged:
        if not any(t is f for f in first):
            pod.record(PLUGIN, f"spec.tolerations[{merged.index(t)}]", plain(t), rc.source)
    if merged or current is not None:
        pod.spec["tolerations"] = merged


def validate(pod: AdmittedPod, classes: Mapping[str, RuntimeClass]) -> None:
    """``validateOverhead``: the pod's overhead is the class's, or absent without one."""
    rc = _class_of(pod, classes)
    have = pod.spec.get("overhead")
    if rc is not None and rc.overhead is not None:
        fixed = {k: q for k, (_, q) in rc.overhead.items()}
        if _quantities(pod, have) != fixed:
            raise pod.forbidden("pod rejected: Pod's Overhead doesn't match RuntimeClass's "
                                "defined Overhead", PLUGIN, rc.source)
    elif have is not None:
        raise pod.forbidden("pod rejected: Pod Overhead set without corresponding "
                            "RuntimeClass defined Overhead", PLUGIN,
                            rc.source if rc else "the pod names no runtimeClassName")


# tolerations.MergeTolerations


def _norm(t: Mapping[str, Any]) -> tuple[str, str, str, str, object]:
    return (str(t.get("key") or ""), str(t.get("operator") or ""), str(t.get("value") or ""),
            str(t.get("effect") or ""), t.get("tolerationSeconds"))


def is_superset(ss: Mapping[str, Any], t: Mapping[str, Any]) -> bool:
    """``isSuperset``: every taint ``t`` tolerates, ``ss`` tolerates too."""
    s_key, s_op, s_value, s_effect, s_seconds = _norm(ss)
    t_key, t_op, t_value, t_effect, t_seconds = _norm(t)
    if _norm(ss) == _norm(t):
        return True
    if t_key != s_key and (s_key != "" or s_op != "Exists"):
        return False
    if t_effect != s_effect and s_effect != "":
        return False
    if s_effect == "NoExecute" and s_seconds is not None:
        if t_seconds is None or _seconds(t_seconds) > _seconds(s_seconds):
            return False
    if s_op in ("Equal", ""):
        return t_op == "Equal" and t_value == s_value
    return s_op == "Exists"


def _seconds(v: object) -> int:
    return int(v) if isinstance(v, int | float | str) else 0


def merge_tolerations(first: list[dict[str, Any]],
                      second: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``MergeTolerations``: both lists, without the tolerations another one covers (kept in
    order, the first of equal ones)."""
    every = first + second
    merged: list[dict[str, Any]] = []
    for i, t in enumerate(every):
        if any(is_superset(m, t) for m in merged):
            continue
        if any(_norm(t) != _norm(t2) and is_superset(t2, t) for t2 in every[i + 1:]):
            continue
        merged.append(t)
    return merged
