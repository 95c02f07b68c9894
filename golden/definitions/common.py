"""The building blocks of the golden scenario definitions: the generator's defaults on the
shared builders of ``reference_impl.testing.wrappers`` (``node``, ``pod``, ``replicas``...),
and :class:`Area`, whose ``golden`` decorator registers one definition of an area's module
(docs/golden.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from conformance.core.scenario import ScenarioInput
from reference_impl.testing.wrappers import (
    PAUSE,
    ConfigWrapper,
    Doc,
    NodeWrapper,
    PodWrapper,
    Wrapper,
    label_selector,
    make_container,
    make_node,
    make_pod,
    make_priority_class,
    manifests,
    plain,
    pod_affinity_term,
    spread_constraint,
)

# A scenario's documents: wrappers of reference_impl.testing.wrappers, or v1 dicts.
Docs = list[Wrapper | Doc]
# A definition: the function that builds a scenario's documents.
Build = Callable[[], Docs]

# --- building blocks: the generator's defaults on the shared builders --------------------------


def node(name: str, cpu: str = "4", memory: str = "8Gi", pods: int = 110, *,
         labels: dict[str, str] | None = None, zone: str | None = None,
         taints: Iterable[Doc] = (), unschedulable: bool = False,
         images: Iterable[tuple[str, int]] = (), extra: dict[str, str] | None = None
         ) -> NodeWrapper:
    """A Node with allocatable (and capacity) cpu / memory / pods (and ``extra`` resources),
    the ``kubernetes.io/hostname`` label, a zone label when given, taints and images
    (name, size in bytes)."""
    n = make_node(name).hostname().labels(labels or {})
    if zone:
        n.zone(zone)
    n.capacity({"cpu": cpu, "memory": memory, "pods": str(pods), **(extra or {})})
    if taints:
        n.taints(taints)
    if unschedulable:
        n.unschedulable()
    for img, size in images:
        n.image(img, size)
    return n


def pod(name: str, cpu: str | None = "100m", memory: str | None = "128Mi", *,
        node: str | None = None, namespace: str = "default",
        labels: dict[str, str] | None = None, priority_class: str | None = None,
        start: str | None = None, created: str | None = None, image: str = PAUSE,
        extra: dict[str, str] | None = None, ports: Iterable[Doc] = (),
        owner: str | None = None, status: Doc | None = None, **spec: Any) -> PodWrapper:
    """A Pod with one container "app" requesting ``cpu``/``memory`` (and ``extra`` resources,
    also as limits: extended resources need requests equal to limits); ``node`` makes it a
    running pod there (``start``: its status.startTime); ``created``: its creationTimestamp;
    ``owner``: a ReplicaSet owning it; ``spec`` keys are added to the pod spec as they are."""
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    requests.update(extra or {})
    app = make_container("app").image(image).requests(requests).limits(extra or {})
    if ports:
        app.ports(ports)
    p = make_pod(name).namespace(namespace).labels(labels or {})
    if created:
        p.creation_timestamp(created)
    if owner:
        p.owner_reference(owner)
    p.container(app)
    if node:
        p.node(node)
    if priority_class:
        p.priority_class(priority_class)
    p.spec(**spec)
    if status:
        p.status(**status)
    if start:
        p.start_time(start)
    return p


def replicas(prefix: str, n: int, **kw: Any) -> list[PodWrapper]:
    """``n`` pods ``prefix-0``... built alike."""
    return [pod(f"{prefix}-{i}", **kw) for i in range(n)]


def affinity_term(match: dict[str, str], topology: str, **kw: Any) -> Doc:
    """A PodAffinityTerm selecting the pods with the ``match`` labels."""
    return pod_affinity_term(topology, label_selector(match), **kw)


def spread(max_skew: int, key: str, match: dict[str, str], *, hard: bool = True,
           **kw: Any) -> Doc:
    """A TopologySpreadConstraint over the pods with the ``match`` labels (DoNotSchedule, or
    ScheduleAnyway when not ``hard``)."""
    return spread_constraint(max_skew, key, "DoNotSchedule" if hard else "ScheduleAnyway",
                             label_selector(match), **kw)


def t(seconds: int) -> str:
    """A timestamp ``seconds`` after 2024-01-01T00:00:00Z."""
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"2024-01-01T{h:02d}:{m:02d}:{s:02d}Z"


# --- helpers of several areas -----------------------------------------------------------------

def zone_nodes(n_per_zone: int = 2, zones: str = "abc", cpu: str = "4") -> list[NodeWrapper]:
    """``n_per_zone`` nodes in each zone ``zone-X`` of ``zones``, named ``X0``, ``X1``..."""
    return [node(f"{z}{i}", cpu, zone=f"zone-{z}") for z in zones for i in range(n_per_zone)]


def priority_classes() -> Docs:
    """The PriorityClasses ``low`` (100), ``mid`` (500) and ``high`` (1000)."""
    return [make_priority_class("low", 100), make_priority_class("mid", 500),
            make_priority_class("high", 1000)]


def bare_node(name: str, zone: str | None = None, taints: Iterable[Doc] = ()) -> NodeWrapper:
    """A node with allocatable only (cpu 4, memory 8Gi, 110 pods) and an empty spec: the form of
    the regression scenarios (minimal cases of divergences found and fixed)."""
    n = make_node(name).hostname()
    if zone:
        n.zone(zone)
    n.spec()
    if taints:
        n.taints(taints)
    return n.allocatable(cpu="4", memory="8Gi", pods=110)


def bare_pod(name: str, node: str | None = None, labels: dict[str, str] | None = None,
             **spec: Any) -> PodWrapper:
    """A pod with one busybox container "c" requesting nothing (regression scenarios)."""
    p = make_pod(name).labels(labels or {}).container(make_container("c").image("busybox"))
    p.spec(**spec)
    return p.node(node) if node else p


# --- the definitions ---------------------------------------------------------------------------

@dataclass(slots=True)
class Golden:
    """One golden scenario: its name ``AREA/NAME`` (the file ``golden/AREA/NAME.yaml``), what it
    covers, and how its documents are built."""

    name: str
    covers: str
    build: Callable[[], Docs]
    config: ConfigWrapper | Doc | None = None
    seed: int = 0
    notes: list[str] = field(default_factory=list)

    def scenario(self) -> ScenarioInput:
        config = None if self.config is None else plain(self.config)
        return ScenarioInput(manifests(self.build()), config, self.seed, self.name,
                             list(self.notes), self.covers)


class Area:
    """The definitions of one area: one module here, one folder of golden files."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.definitions: list[Golden] = []

    def golden(self, name: str, covers: str, *, config: ConfigWrapper | Doc | None = None,
               seed: int = 0, notes: Iterable[str] = ()) -> Callable[[Build], Build]:
        """Register the decorated function's documents as scenario ``AREA/name``."""
        def register(build: Build) -> Build:
            self.definitions.append(Golden(f"{self.name}/{name}", covers, build, config, seed,
                                           list(notes)))
            return build
        return register
