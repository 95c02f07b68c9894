"""Builders shared by the NodeResources scoring tests: restatements of upstream's
``st.MakePod`` / ``st.MakeNode`` (``pkg/scheduler/testing/wrappers.go``)."""

from __future__ import annotations

import itertools
from fractions import Fraction

from reference_impl.model.objects import Container, Node, Pod
from reference_impl.model.quantity import parse_quantity_string
from reference_impl.model.requests import compute_pod_resources, to_resource

_uids = itertools.count()


def qty(s: str) -> Fraction:
    return parse_quantity_string(s)


class PodW:
    """st.MakePod(): ``req`` adds a container with those requests (none if empty),
    ``container`` a container without requests."""

    def __init__(self) -> None:
        self.containers: list[Container] = []
        self.node_name = ""

    def req(self, m: dict[str, str]) -> PodW:
        if m:
            self.containers.append(Container(
                f"con{len(self.containers)}", requests=tuple((k, qty(v)) for k, v in m.items())))
        return self

    def container(self) -> PodW:
        self.containers.append(Container(f"con{len(self.containers)}"))
        return self

    def node(self, name: str) -> PodW:
        self.node_name = name
        return self

    def obj(self) -> Pod:
        n = next(_uids)
        pod = Pod("default", f"pod-{n}", f"uid-{n}", node_name=self.node_name,
                  containers=tuple(self.containers))
        pod.resources = compute_pod_resources(pod)
        return pod


def make_node(name: str, capacity: dict[str, str] | None = None) -> Node:
    """st.MakeNode().Name(name).Capacity(capacity): allocatable = capacity + 32 pods."""
    res = {"pods": qty("32")}
    res.update((k, qty(v)) for k, v in (capacity or {}).items())
    return Node(name=name, allocatable=to_resource(res))


def cap(cpu: str, mem: str, **extra: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": mem, **extra}


FEATURES = {"PodLevelResources": True, "DRAExtendedResource": True,
            "InPlacePodVerticalScalingSchedulerPreemption": False}

