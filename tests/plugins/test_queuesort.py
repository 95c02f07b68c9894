"""PrioritySort, restating pkg/scheduler/framework/plugins/queuesort/priority_sort_test.go of
v1.37.2 (TestLess); and DefaultBinder (pkg/scheduler/framework/plugins/defaultbinder/
default_binder_test.go TestDefaultBinder: success, and a binding error surfaced as an Error)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from reference_impl.framework.status import Code, Status
from reference_impl.model.objects import Pod
from reference_impl.plugins.defaultbinder import DefaultBinder
from reference_impl.plugins.queuesort import PrioritySort


@dataclass
class Entity:
    pod: Pod
    timestamp: float = 0.0


def entity(priority: int, timestamp: float = 0.0) -> Entity:
    return Entity(Pod(namespace="", name="p", uid="p", priority=priority), timestamp)


LOW, HIGH = 10, 100
T1 = 1_000.0
T2 = T1 + 1.0


@pytest.mark.parametrize("name,p1,p2,want", [
    ("p1.priority less than p2.priority", entity(LOW), entity(HIGH), False),
    ("p1.priority greater than p2.priority", entity(HIGH), entity(LOW), True),
    ("equal priority, p1 added earlier", entity(HIGH, T1), entity(HIGH, T2), True),
    ("equal priority, p2 added earlier", entity(HIGH, T2), entity(HIGH, T1), False),
    ("equal priority and timestamp", entity(HIGH, T1), entity(HIGH, T1), False),
])
def test_less(name, p1, p2, want):
    assert PrioritySort(None, None).less(p1, p2) is want


class _Handle:
    def __init__(self, result: Status | None) -> None:
        self.result = result
        self.calls: list[tuple[str, str]] = []

    def bind_pod(self, pod: Pod, node_name: str) -> Status | None:
        self.calls.append((pod.key, node_name))
        return self.result


def test_default_binder_success():
    h = _Handle(None)
    p = Pod(namespace="ns", name="foo", uid="u")
    assert DefaultBinder(None, h).bind(None, p, "foohost.kubernetes.mydomain.com") is None
    assert h.calls == [("ns/foo", "foohost.kubernetes.mydomain.com")]


def test_default_binder_error():
    h = _Handle(Status.as_error("binding error"))
    status = DefaultBinder(None, h).bind(None, Pod(namespace="ns", name="foo", uid="u"), "n")
    assert status is not None and status.code == Code.ERROR and status.message() == "binding error"
