"""Preemption units (victims), candidates and the bounded candidate lists.

Upstream: ``pkg/scheduler/framework/preemption/types.go`` (Victim, victim, NewPodVictim,
NewVictim, DomainVictim, newDomainVictim, createDomainVictims, Candidate, candidate,
candidateList, ViolatingVictim) and ``staging/src/k8s.io/kube-scheduler/extender/v1/types.go``
(``Victims``). Why every victim is a single pod (no PodGroups):
docs/reference.md#preemption."""

from __future__ import annotations

from dataclasses import dataclass, field

from reference_impl.framework.preemption.schedutil import StartTime, get_pod_start_time, time_before
from reference_impl.framework.snapshot import Snapshot
from reference_impl.framework.types import NodeInfo, PodInfo
from reference_impl.model.objects import Pod

# fwk.EntityKeyType values (staging/src/k8s.io/kube-scheduler/framework/types.go).
POD_KEY_TYPE = "Pod"
POD_GROUP_KEY_TYPE = "PodGroup"
COMPOSITE_POD_GROUP_KEY_TYPE = "CompositePodGroup"


class Victim:
    """``victim``: an atomic preemption unit, its priority and earliest start time."""

    __slots__ = ("pods", "priority", "earliest_start_time", "key_type")

    def __init__(self, pods: list[PodInfo], priority: int, earliest_start_time: StartTime | None,
                 key_type: str = POD_KEY_TYPE) -> None:
        self.pods = pods
        self.priority = priority
        self.earliest_start_time = earliest_start_time
        self.key_type = key_type

    def is_group(self) -> bool:
        """``IsGroup``: a PodGroup or CompositePodGroup unit."""
        return self.key_type in (POD_GROUP_KEY_TYPE, COMPOSITE_POD_GROUP_KEY_TYPE)

    def __repr__(self) -> str:
        return f"Victim({[pi.pod.key for pi in self.pods]}, prio={self.priority})"


class DomainVictim(Victim):
    """``DomainVictim``: a victim plus the nodes hosting its pods (its blast radius)."""

    __slots__ = ("affected_nodes",)

    def __init__(self, pods: list[PodInfo], priority: int, earliest_start_time: StartTime | None,
                 key_type: str, affected_nodes: dict[str, NodeInfo]) -> None:
        super().__init__(pods, priority, earliest_start_time, key_type)
        self.affected_nodes = affected_nodes


def new_victim(pods: list[PodInfo], priority: int, key_type: str) -> Victim:
    """``NewVictim``: the earliest start time of the pods (``GetPodStartTime`` of each, the
    first one or any strictly earlier one)."""
    if not pods:
        raise ValueError("no pods provided")
    if not key_type:
        raise ValueError("keyType cannot be empty")
    earliest: StartTime | None = None
    for pi in pods:
        t = get_pod_start_time(pi.pod)
        if earliest is None or time_before(t, earliest):
            earliest = t
    return Victim(pods, priority, earliest, key_type)


def new_pod_victim(pi: PodInfo) -> Victim:
    """``NewPodVictim(podInfo, nil, nil)``: one pod, its own priority, key type Pod."""
    return new_victim([pi], pi.pod.priority, POD_KEY_TYPE)


def new_domain_victim(snapshot: Snapshot, pods: list[PodInfo], priority: int,
                      key_type: str) -> DomainVictim:
    """``newDomainVictim``: the victim with the snapshot NodeInfo of every node hosting one
    of its pods."""
    nodes: dict[str, NodeInfo] = {}
    for pi in pods:
        name = pi.pod.node_name
        if name in nodes:
            continue
        ni = snapshot.get(name)
        if ni is None:
            raise LookupError(f'failed to get node info for node "{name}" from snapshot: '
                              f'nodeinfo not found for node name "{name}"')
        nodes[name] = ni
    v = new_victim(pods, priority, key_type)
    return DomainVictim(v.pods, v.priority, v.earliest_start_time, v.key_type, nodes)


def create_domain_victims(snapshot: Snapshot, victims: list[Victim]) -> list[DomainVictim]:
    """``createDomainVictims``."""
    return [new_domain_victim(snapshot, v.pods, v.priority, v.key_type) for v in victims]


@dataclass(slots=True)
class Victims:
    """``extenderv1.Victims``: the pods to preempt on a node and the PDBs that would violate."""

    pods: list[Pod] = field(default_factory=list)
    num_pdb_violations: int = 0


class Candidate:
    """``candidate``: a node the preemptor can be nominated to, with its victims."""

    __slots__ = ("victims", "name", "num_pod_group_disruptions")

    def __init__(self, victims: Victims, name: str, num_pod_group_disruptions: int = 0) -> None:
        self.victims = victims
        self.name = name
        self.num_pod_group_disruptions = num_pod_group_disruptions

    def __repr__(self) -> str:
        return (f"Candidate({self.name}, {[p.key for p in self.victims.pods]}, "
                f"pdb={self.victims.num_pdb_violations})")


class CandidateList:
    """``candidateList``: a fixed-capacity list; ``add`` beyond capacity is dropped."""

    __slots__ = ("idx", "items")

    def __init__(self, capacity: int) -> None:
        self.idx = -1
        self.items: list[Candidate | None] = [None] * capacity

    def add(self, c: Candidate) -> None:
        self.idx += 1
        if self.idx < len(self.items):
            self.items[self.idx] = c

    def size(self) -> int:
        return min(self.idx + 1, len(self.items))

    def get(self) -> list[Candidate]:
        return [c for c in self.items[:self.size()] if c is not None]  # all set up to size()


@dataclass(slots=True)
class ViolatingVictim:
    """``ViolatingVictim``: a victim whose eviction violates PDBs, and how many of its pods do."""

    victim: Victim
    violate_count: int
