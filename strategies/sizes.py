"""How big generated clusters get, and which Kubernetes features the generators may use.

``Sizes`` bounds every list the strategies draw; the three presets are

* ``SMALL``  — fast CI: at most 6 nodes, 8 running and 8 pending pods;
* ``MEDIUM`` — up to 30 nodes and a few dozen pods;
* ``LARGE``  — 100–150 nodes and hundreds of pods, to reach the scheduler's >100-node code paths
  (``numFeasibleNodesToFind``, ``percentageOfNodesToScore``). Nodes and pods are generated from a
  few templates ("node pools", "workloads" with replicas), so large clusters stay cheap to draw.

``features`` is a set of names from ``ALL_FEATURES``; a strategy never emits a field whose
feature is missing. ``None`` means every feature.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "Sizes",
    "SMALL",
    "MEDIUM",
    "LARGE",
    "ALL_FEATURES",
    "OPT_IN_FEATURES",
    "RESOURCES_ONLY",
    "resolve_features",
]


@dataclass(frozen=True, slots=True)
class Sizes:
    """Bounds of generated scenarios (every lower bound of a list is 0 unless named)."""

    min_nodes: int = 1
    max_nodes: int = 6
    max_node_pools: int = 6  # distinct node templates; nodes are split among them
    max_running_pods: int = 8
    max_pending_pods: int = 8
    max_workloads: int = 6  # distinct pod templates, per running / pending set
    max_replicas: int = 3  # pods per workload
    max_containers: int = 2
    max_init_containers: int = 2
    max_priority_classes: int = 3
    max_pdbs: int = 2
    max_taints: int = 2
    max_terms: int = 2  # tolerations, affinity terms, spread constraints, expressions per pod
    max_profiles: int = 2  # KubeSchedulerConfiguration profiles
    max_events: int = 6  # timeline events (kschedconf/v1 Scenario)
    max_devices: int = 4  # devices per generated ResourceSlice (feature "dra")
    max_pod_claims: int = 4  # pending pods with spec.resourceClaims (feature "dra")
    max_volumes: int = 4  # static PersistentVolumes besides running pods' (feature "storage")
    max_pod_volumes: int = 4  # running, and pending, pods with volumes (feature "storage")

    def __post_init__(self) -> None:
        if not 1 <= self.min_nodes <= self.max_nodes:
            raise ValueError("need 1 <= min_nodes <= max_nodes")
        if self.max_node_pools < 1 or self.max_containers < 1 or self.max_replicas < 1:
            raise ValueError("max_node_pools, max_containers and max_replicas must be >= 1")
        if self.max_profiles < 1:
            raise ValueError("max_profiles must be >= 1")


SMALL = Sizes()
MEDIUM = Sizes(max_nodes=30, max_node_pools=6, max_running_pods=60, max_pending_pods=30,
               max_workloads=8, max_replicas=8, max_priority_classes=4, max_pdbs=3,
               max_events=15)
LARGE = Sizes(min_nodes=100, max_nodes=150, max_node_pools=5, max_running_pods=400,
              max_pending_pods=200, max_workloads=8, max_replicas=60, max_priority_classes=4,
              max_pdbs=3, max_events=30)

ALL_FEATURES: frozenset[str] = frozenset({
    # resources
    "ephemeral_storage",  # ephemeral-storage allocatable / requests
    "extended_resources",  # example.com/gpu allocatable / requests (= limits, integers)
    "limits",  # container limits (requests default to limits when absent)
    "init_containers",
    "sidecars",  # init containers with restartPolicy: Always
    "overhead",  # spec.overhead
    "pod_level_resources",  # spec.resources.requests (PodLevelResources)
    # nodes
    "taints",
    "unschedulable",
    "images",  # node status.images with sizes (ImageLocality)
    "capacity",  # node status.capacity besides (or instead of) allocatable
    # placement rules of pods
    "tolerations",
    "node_selector",
    "node_affinity",
    "pod_affinity",
    "pod_anti_affinity",
    "topology_spread",
    "host_ports",
    "scheduling_gates",
    # priorities and disruption
    "priority_classes",  # PriorityClass objects, priorityClassName, a globalDefault sometimes
    "explicit_priority",  # spec.priority / spec.preemptionPolicy as admission set them
    "pdbs",
    # metadata
    "namespaces",  # pods in several namespaces, Namespace objects with labels
    "owner_references",
    "workloads",  # Deployment/ReplicaSet/StatefulSet/DaemonSet/Job documents and their pods
    "services",  # Services selecting pods, the RC/RS/StatefulSet objects owners name
    "creation_timestamps",
    # scheduler configuration
    "config",  # a KubeSchedulerConfiguration in the scenario
    "multiple_profiles",  # configs with a second profile that some pods use
    # what a dump of a busy cluster holds (strategies/busy.py)
    "busy",  # start times, terminating pods, resize status, nominations, foreign schedulers
    # time
    "timeline",  # a kschedconf/v1 Scenario document with cluster events over time
})

#: features that are known but off unless named: ``features=None`` (every feature) leaves them
#: out. ``dra``: DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates and
#: pods that use them (strategies/dra.py), while the reference's DynamicResources plugin is
#: not finished (docs/dra.md). ``storage``: StorageClasses, CSIDrivers, CSINodes,
#: CSIStorageCapacities, PersistentVolumes, PersistentVolumeClaims, pods with volumes and
#: StatefulSets' volumeClaimTemplates (strategies/storage.py), while the four volume plugins
#: are being written (docs/storage.md). ``dra_binding`` (with ``dra``): GPUs with binding
#: conditions, DynamicResources' ``bindingTimeout: 1500ms`` in every profile and a timeline
#: that ends at 6s (strategies/dra.py, ``binding_conditions``), for releases with
#: DRADeviceBindingConditions on (v1.36 on; docs/dra.md#binding-conditions).
OPT_IN_FEATURES: frozenset[str] = frozenset({"dra", "dra_binding", "storage"})

RESOURCES_ONLY: frozenset[str] = frozenset()
"""Plain clusters: cpu, memory and pod count only."""


def resolve_features(features: Iterable[str] | None) -> frozenset[str]:
    """``None`` → every feature of ``ALL_FEATURES``; otherwise the given names, which must be
    known (``ALL_FEATURES`` or ``OPT_IN_FEATURES``)."""
    if features is None:
        return ALL_FEATURES
    out = frozenset(features)
    known = ALL_FEATURES | OPT_IN_FEATURES
    unknown = out - known
    if unknown:
        raise ValueError(f"unknown features: {sorted(unknown)} (known: {sorted(known)})")
    return out
