"""The constraints of a claim's requests: ``matchAttribute`` and ``distinctAttribute``.

Upstream: k8s.io/dynamic-resource-allocation v0.37.2
``structured/internal/incubating/constraint.go`` (``matchAttributeConstraint``,
``distinctAttributeConstraint``) and ``lookupAttribute`` of ``allocator_incubating.go``.
"""

from __future__ import annotations

from collections.abc import Sequence

from reference_impl.model.dra import AttributeValue, Device, Version

DeviceID = tuple[str, str, str]  # (driver, pool, device)


def _typed(v: AttributeValue) -> tuple[str, object]:
    """An attribute value with its kind: values of different kinds never compare equal."""
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int):
        return ("int", v)
    if isinstance(v, Version):
        return ("version", v.text)
    return ("string", v)


def lookup_attribute(device: Device, device_id: DeviceID, name: str) -> tuple[str, object] | None:
    """``lookupAttribute``: by the fully qualified name, or without the driver's domain."""
    attrs = dict(device.attributes)
    if name in attrs:
        return _typed(attrs[name])
    domain, sep, ident = name.partition("/")
    if not sep or domain != device_id[0]:
        return None
    if ident in attrs:
        return _typed(attrs[ident])
    return None


class Constraint:
    """``matchAttributeConstraint`` / ``distinctAttributeConstraint`` (constraint.go)."""

    def __init__(self, request_names: Sequence[str], attribute: str, distinct: bool) -> None:
        self.request_names = set(request_names)
        self.attribute = attribute
        self.distinct = distinct
        self.first: tuple[str, object] | None = None
        self.num_devices = 0
        self.values: list[tuple[str, object]] = []

    def _applies(self, request: str, sub: str) -> bool:
        if not self.request_names:
            return True
        if not sub:
            return request in self.request_names
        return request in self.request_names or f"{request}/{sub}" in self.request_names

    def add(self, request: str, sub: str, device: Device, device_id: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        value = lookup_attribute(device, device_id, self.attribute)
        if value is None:
            return False
        if self.distinct:
            if value in self.values:
                return False
            self.values.append(value)
            return True
        if self.num_devices == 0:
            self.first = value
            self.num_devices = 1
            return True
        if value != self.first:
            return False
        self.num_devices += 1
        return True

    def remove(self, request: str, sub: str) -> None:
        if not self._applies(request, sub):
            return
        if self.distinct:
            self.values.pop()
        else:
            self.num_devices -= 1
