"""Per-pod and per-node scheduling state: ``PodInfo``, ``NodeInfo``, ``HostPortInfo``.

Upstream: ``pkg/scheduler/framework/types.go`` (NodeInfo, PodInfo, HostPortInfo). NodeInfo keeps
the per-node aggregates (requested, non-zero requested, used ports, pods with affinity) up to date
incrementally as pods are added and removed, so plugins never re-sum a node's pods.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from reference_impl.framework.affinity_terms import build_pod_info_terms
from reference_impl.model.objects import Node, Pod, Resource

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"

_generation = itertools.count(1)


def next_generation() -> int:
    """``nextGeneration``: one increasing counter for every NodeInfo change, so a
    (node, generation) pair never repeats."""
    return next(_generation)


@dataclass(slots=True, eq=False)
class PodInfo:
    """A pod plus its pre-parsed affinity terms (``framework.PodInfo``).

    The term lists hold ``AffinityTerm`` / ``WeightedAffinityTerm`` objects built by
    ``affinity_terms.build_pod_info_terms``; they are computed on first use.
    """

    pod: Pod
    _terms: tuple | None = None

    def _ensure_terms(self) -> tuple:
        if self._terms is None:
            self._terms = build_pod_info_terms(self.pod)
        return self._terms

    @property
    def terms(self) -> tuple:
        """The four term lists at once (required affinity, required anti-affinity, preferred
        affinity, preferred anti-affinity), for loops over many pods."""
        return self._ensure_terms()

    @property
    def required_affinity_terms(self) -> list:
        return self._ensure_terms()[0]

    @property
    def required_anti_affinity_terms(self) -> list:
        return self._ensure_terms()[1]

    @property
    def preferred_affinity_terms(self) -> list:
        return self._ensure_terms()[2]

    @property
    def preferred_anti_affinity_terms(self) -> list:
        return self._ensure_terms()[3]


def pod_with_affinity(pod: Pod) -> bool:
    a = pod.affinity
    return a is not None and (a.pod_affinity is not None or a.pod_anti_affinity is not None)


def pod_with_required_anti_affinity(pod: Pod) -> bool:
    a = pod.affinity
    return (a is not None and a.pod_anti_affinity is not None
            and len(a.pod_anti_affinity.required) != 0)


class HostPortInfo:
    """Used host ports of a node: ``{ip: {(protocol, port)}}`` (``framework.HostPortInfo``)."""

    __slots__ = ("ports",)

    def __init__(self) -> None:
        self.ports: dict[str, set[tuple[str, int]]] = {}

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return (ip or DEFAULT_BIND_ALL_HOST_IP), (protocol or "TCP")

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        self.ports.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        entries = self.ports.get(ip)
        if entries is not None:
            entries.discard((protocol, port))
            if not entries:
                del self.ports[ip]

    def __len__(self) -> int:
        return sum(len(v) for v in self.ports.values())

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """True if (ip, protocol, port) conflicts: same protocol and port, and equal IPs or
        either side bound to 0.0.0.0."""
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(pp in entries for entries in self.ports.values())
        for key in (DEFAULT_BIND_ALL_HOST_IP, ip):
            entries = self.ports.get(key)
            if entries is not None and pp in entries:
                return True
        return False

    def copy(self) -> HostPortInfo:
        c = HostPortInfo()
        c.ports = {k: set(v) for k, v in self.ports.items()}
        return c


class ImageStateSummary:
    """``fwk.ImageStateSummary``: an image's size (from the first node seen with it) and the
    nodes that have it. The cache's summary is live (``nodes``); the snapshot's copy
    (``snapshot()``, staging/src/k8s.io/kube-scheduler/framework/types.go) has no node set and a
    ``num_nodes`` frozen at the time it was taken."""

    __slots__ = ("size", "nodes", "_frozen_num_nodes")

    def __init__(self, size: int, frozen_num_nodes: int | None = None) -> None:
        self.size = size
        self.nodes: set[str] = set()
        self._frozen_num_nodes = frozen_num_nodes

    @property
    def num_nodes(self) -> int:
        if self._frozen_num_nodes is not None:
            return self._frozen_num_nodes
        return len(self.nodes)

    def snapshot(self) -> ImageStateSummary:
        """``ImageStateSummary.Snapshot``: ``NumNodes: iss.Nodes.Len()``, without the nodes."""
        return ImageStateSummary(self.size, len(self.nodes))


def add_requests(r: Resource, req: Resource, sign: int) -> None:
    """``r += sign * req`` (cpu, memory, ephemeral storage, scalar resources): how a node's
    requested resources follow a pod added (1) or removed (-1)."""
    r.milli_cpu += sign * req.milli_cpu
    r.memory += sign * req.memory
    r.ephemeral_storage += sign * req.ephemeral_storage
    if req.scalar:
        sc = r.scalar
        for name, q in req.scalar.items():
            sc[name] = sc.get(name, 0) + sign * q


@dataclass(slots=True, eq=False)
class NodeInfo:
    """A node and the pods on it, with incrementally kept aggregates."""

    node: Node
    pods: list[PodInfo] = field(default_factory=list)
    pods_with_affinity: list[PodInfo] = field(default_factory=list)
    pods_with_required_anti_affinity: list[PodInfo] = field(default_factory=list)
    requested: Resource = field(default_factory=Resource)
    non_zero_requested: Resource = field(default_factory=Resource)
    used_ports: HostPortInfo = field(default_factory=HostPortInfo)
    pvc_ref_counts: dict[str, int] = field(default_factory=dict)
    # image name -> the cluster-wide summary of that image; set by the Snapshot.
    image_states: dict[str, ImageStateSummary] = field(default_factory=dict)
    generation: int = 0

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def allocatable(self) -> Resource:
        return self.node.allocatable

    def add_pod_info(self, pi: PodInfo) -> None:
        """``NodeInfo.AddPodInfo``."""
        self.pods.append(pi)
        pod = pi.pod
        if pod_with_affinity(pod):
            self.pods_with_affinity.append(pi)
        if pod_with_required_anti_affinity(pod):
            self.pods_with_required_anti_affinity.append(pi)
        self._update(pod, 1)

    def add_pod(self, pod: Pod) -> None:
        self.add_pod_info(PodInfo(pod))

    def remove_pod(self, pod: Pod) -> bool:
        """``NodeInfo.RemovePod``: remove by UID; False if the pod is not here."""
        uid = pod.uid
        for lst in (self.pods_with_affinity, self.pods_with_required_anti_affinity):
            for i, pi in enumerate(lst):
                if pi.pod.uid == uid:
                    lst[i] = lst[-1]
                    lst.pop()
                    break
        for i, pi in enumerate(self.pods):
            if pi.pod.uid == uid:
                # upstream swaps the last element into place (removeFromSlice)
                self.pods[i] = self.pods[-1]
                self.pods.pop()
                self._update(pi.pod, -1)
                return True
        return False

    def _update(self, pod: Pod, sign: int) -> None:
        res = pod.resources
        assert res is not None, "pod resources are computed at load time"
        add_requests(self.requested, res.requests, sign)
        self.non_zero_requested.milli_cpu += sign * res.non0_cpu
        self.non_zero_requested.memory += sign * res.non0_mem
        if pod.host_ports:
            for p in pod.host_ports:
                if sign > 0:
                    self.used_ports.add(p.host_ip, p.protocol, p.host_port)
                else:
                    self.used_ports.remove(p.host_ip, p.protocol, p.host_port)
        if pod.pvc_names:
            for claim in pod.pvc_names:
                key = f"{pod.namespace}/{claim}"
                n = self.pvc_ref_counts.get(key, 0) + sign
                if n <= 0:
                    self.pvc_ref_counts.pop(key, None)
                else:
                    self.pvc_ref_counts[key] = n
        self.generation = next_generation()

    def snapshot_copy(self) -> NodeInfo:
        """``NodeInfo.SnapshotConcrete``: a copy whose pod lists and aggregates can be changed
        (used by preemption dry runs and by filtering with nominated pods)."""
        return NodeInfo(
            node=self.node,
            pods=list(self.pods),
            pods_with_affinity=list(self.pods_with_affinity),
            pods_with_required_anti_affinity=list(self.pods_with_required_anti_affinity),
            requested=self.requested.copy(),
            non_zero_requested=self.non_zero_requested.copy(),
            used_ports=self.used_ports.copy(),
            pvc_ref_counts=dict(self.pvc_ref_counts),
            image_states=self.image_states,
            generation=self.generation,
        )

    def __repr__(self) -> str:
        return f"NodeInfo({self.node.name}, {len(self.pods)} pods)"
