"""What the admission plugins share: the record of a default applied (listed by ``simulate
--trace`` and ``explain``), the pod being admitted, and upstream's rejection text
(``admission.NewForbidden``, staging/src/k8s.io/apiserver/pkg/admission/errors.go, as
``apierrors.NewForbidden``: ``pods "NAME" is forbidden: ...``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from reference_impl.model.decoding import InputLocation, plain, read_map, read_quantity
from reference_impl.model.errors import InputError


@dataclass(frozen=True, slots=True)
class AppliedDefault:
    """One default an admission plugin set on a pod: ``plugin`` (LimitRanger, RuntimeClass,
    DefaultTolerationSeconds), the ``field`` it set (a path in the pod), the ``value`` and the
    object it came ``source`` (``LimitRange default/limits``, ``RuntimeClass kata``, or the
    API server's default)."""

    pod: str
    plugin: str
    field: str
    value: Any
    source: str

    def to_doc(self) -> dict[str, Any]:
        return {"pod": self.pod, "plugin": self.plugin, "field": self.field,
                "value": plain(self.value), "from": self.source}


@dataclass(slots=True)
class AdmittedPod:
    """A pod document being admitted (a copy the plugins change in place), where it was read
    and the defaults applied so far."""

    doc: dict[str, Any]
    ctx: InputLocation
    namespace: str
    name: str
    applied: list[AppliedDefault]

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def spec(self) -> dict[str, Any]:
        spec = self.doc.get("spec")
        if not isinstance(spec, dict):
            spec = {}
            self.doc["spec"] = spec
        return spec

    def record(self, plugin: str, field: str, value: Any, source: str) -> None:
        self.applied.append(AppliedDefault(self.key, plugin, field, value, source))

    def forbidden(self, message: str, plugin: str, source: str) -> InputError:
        """Upstream's rejection of the pod at admission, with its text, and where it came
        from."""
        return self.ctx.error("", f'pods "{self.name}" is forbidden: {message} (admission '
                                  f"plugin {plugin}, {source}; --admission never takes the "
                                  "pod as it is)")


def resource_list(ctx: InputLocation, v: object, path: str) -> dict[str, tuple[Any, Fraction]]:
    """A ResourceList as (raw value, exact quantity) by name: the raw value is what admission
    copies into the pod, the quantity what it compares."""
    out: dict[str, tuple[Any, Fraction]] = {}
    for name, raw in read_map(ctx, v, path).items():
        fpath = f"{path}[{name}]" if "/" in str(name) or "." in str(name) else f"{path}.{name}"
        out[str(name)] = (raw, read_quantity(ctx, raw, fpath))
    return out


def containers(pod: AdmittedPod, init: bool) -> list[tuple[str, dict[str, Any]]]:
    """The pod's containers (or init containers) as (field path, mapping); entries that are not
    mappings are left for the loader to report."""
    field = "initContainers" if init else "containers"
    items = pod.spec.get(field)
    if not isinstance(items, list):
        return []
    return [(f"spec.{field}[{i}]", c) for i, c in enumerate(items) if isinstance(c, dict)]


def sub_map(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]`` as a mapping the caller may change, created when absent or null."""
    v = parent.get(key)
    if not isinstance(v, dict):
        v = {}
        parent[key] = v
    return v


def as_mapping(v: object) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}
