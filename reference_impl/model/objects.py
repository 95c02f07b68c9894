"""The compact internal object model the reference scheduler works on.

Kubernetes manifests are converted once, at load time (see ``loader/``), into these slotted
dataclasses. Field names follow the v1 API (snake_cased); quantities are already integers in the
units upstream's scheduler uses (``framework.Resource``: milli-CPU, bytes, counts), so the hot
path never parses anything.

Upstream: ``k8s.io/api/core/v1/types.go`` (the API types) and
``pkg/scheduler/framework/types.go`` (``Resource``, ``PodInfo``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from reference_impl.model.dra import DRAObjects
from reference_impl.model.node_selector import NodeSelector as NodeSelector
from reference_impl.model.node_selector import NodeSelectorRequirement as NodeSelectorRequirement
from reference_impl.model.node_selector import NodeSelectorTerm as NodeSelectorTerm
from reference_impl.model.storage import StorageObjects

# Well-known resource names (k8s.io/api/core/v1/types.go).
CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

# Well-known labels (k8s.io/api/core/v1/well_known_labels.go).
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"

# Taint effects and toleration operators.
TAINT_NO_SCHEDULE = "NoSchedule"
TAINT_PREFER_NO_SCHEDULE = "PreferNoSchedule"
TAINT_NO_EXECUTE = "NoExecute"
TOLERATION_OP_EXISTS = "Exists"
TOLERATION_OP_EQUAL = "Equal"

# Taint put on cordoned nodes (k8s.io/api/core/v1/well_known_taints.go).
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"

# Topology spread constraint values.
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
POLICY_HONOR = "Honor"
POLICY_IGNORE = "Ignore"

DEFAULT_SCHEDULER_NAME = "default-scheduler"


@dataclass(slots=True)
class Resource:
    """Integer resource amounts, as upstream's ``framework.Resource``.

    ``scalar`` holds every other resource (extended resources, hugepages-*, attachable volumes)
    by name, in ``Quantity.Value()`` units.
    """

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar: dict[str, int] = field(default_factory=dict)

    def copy(self) -> Resource:
        return Resource(self.milli_cpu, self.memory, self.ephemeral_storage,
                        self.allowed_pod_number, dict(self.scalar))

    def get(self, name: str) -> int:
        """Amount of the named resource in scheduler units (milli for cpu)."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar.get(name, 0)

    def is_zero(self) -> bool:
        return (self.milli_cpu == 0 and self.memory == 0 and self.ephemeral_storage == 0
                and not any(self.scalar.values()))


@dataclass(slots=True, frozen=True)
class Taint:
    key: str
    value: str
    effect: str


@dataclass(slots=True, frozen=True)
class Toleration:
    key: str = ""
    operator: str = ""  # "" means Equal (v1 defaulting)
    value: str = ""
    effect: str = ""  # "" matches every effect
    toleration_seconds: int | None = None


@dataclass(slots=True, frozen=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int


@dataclass(slots=True, frozen=True)
class LabelSelectorRequirement:
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist
    values: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class LabelSelector:
    """metav1.LabelSelector. ``None`` in a field that holds one means a nil selector."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()


@dataclass(slots=True, frozen=True)
class PreferredSchedulingTerm:
    weight: int
    preference: NodeSelectorTerm


@dataclass(slots=True, frozen=True)
class NodeAffinity:
    required: NodeSelector | None = None
    preferred: tuple[PreferredSchedulingTerm, ...] = ()


@dataclass(slots=True, frozen=True)
class PodAffinityTerm:
    label_selector: LabelSelector | None
    topology_key: str
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(slots=True, frozen=True)
class PodAffinity:
    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()


@dataclass(slots=True, frozen=True)
class Affinity:
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None


@dataclass(slots=True, frozen=True)
class TopologySpreadConstraint:
    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class ContainerPort:
    container_port: int
    host_port: int = 0
    protocol: str = "TCP"
    host_ip: str = ""


@dataclass(slots=True, frozen=True)
class Container:
    """A container; quantities are kept exact (``Fraction`` of the base unit) until aggregated."""

    name: str
    image: str = ""
    requests: tuple[tuple[str, Fraction], ...] = ()
    limits: tuple[tuple[str, Fraction], ...] = ()
    ports: tuple[ContainerPort, ...] = ()
    restart_policy: str | None = None  # "Always" on an init container makes it a sidecar
    restart_policy_rules: tuple[Mapping[str, Any], ...] = ()  # raw v1 ContainerRestartRule
    volume_mounts: tuple[Mapping[str, Any], ...] = ()  # raw v1 VolumeMount


@dataclass(slots=True, frozen=True)
class ContainerStatus:
    """What the kubelet reports of a container's resources (v1.ContainerStatus), as read by
    upstream's in-place resize accounting (component-helpers/resource/helpers.go).
    ``None`` means the field is absent (nil upstream), which differs from an empty list."""

    name: str
    allocated_resources: tuple[tuple[str, Fraction], ...] | None = None  # allocatedResources
    requests: tuple[tuple[str, Fraction], ...] | None = None  # resources.requests
    #: ``resources`` is set (even without requests): what v1.34.4-v1.36.3 test before reading
    #: the status (switch resize-requests-aggregation)
    has_resources: bool = False


@dataclass(slots=True, frozen=True)
class OwnerReference:
    api_version: str
    kind: str
    name: str
    uid: str
    controller: bool = False


@dataclass(slots=True, frozen=True)
class PodResourceClaim:
    """v1.PodResourceClaim: a claim by name, or a template the resourceclaim controller makes a
    claim from (its name then in ``status.resourceClaimStatuses``)."""

    name: str
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


@dataclass(slots=True)
class PodResources:
    """``fwk.PodResource``: the pod's requests and the non-zero cpu/memory used for scoring."""

    requests: Resource
    non0_cpu: int
    non0_mem: int


@dataclass(slots=True, eq=False)
class Pod:
    """A pod. ``node_name`` set means the pod is bound (running); empty means pending."""

    namespace: str
    name: str
    uid: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    creation_timestamp: float = 0.0  # seconds since the epoch
    order: int = 0  # position in the input, the tie-break after creationTimestamp
    node_name: str = ""
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    priority: int = 0
    priority_class_name: str = ""
    preemption_policy: str = "PreemptLowerPriority"
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: Affinity | None = None
    tolerations: tuple[Toleration, ...] = ()
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    ephemeral_containers: tuple[Container, ...] = ()
    host_network: bool = False
    host_users: bool | None = None
    overhead: tuple[tuple[str, Fraction], ...] = ()
    pod_level_requests: tuple[tuple[str, Fraction], ...] = ()
    pod_level_limits: tuple[tuple[str, Fraction], ...] = ()
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    scheduling_gates: tuple[str, ...] = ()
    owner_references: tuple[OwnerReference, ...] = ()
    nominated_node_name: str = ""
    deletion_timestamp: float | None = None
    start_time: float | None = None
    # In-place resize status (status.containerStatuses, status.initContainerStatuses,
    # status.allocatedResources, status.resources, the PodResizePending condition's reason);
    # see requests.py.
    container_statuses: tuple[ContainerStatus, ...] = ()
    init_container_statuses: tuple[ContainerStatus, ...] = ()
    status_allocated_resources: tuple[tuple[str, Fraction], ...] | None = None
    status_resources: bool = False  # status.resources is present (non-nil)
    status_requests: tuple[tuple[str, Fraction], ...] | None = None  # status.resources.requests
    resize_pending_reason: str | None = None  # None: no PodResizePending condition
    # The first DisruptionTarget condition is True with reason PreemptionByScheduler: an
    # earlier preemption marked the pod as its victim (PodTerminatingByPreemption).
    preempted_by_scheduler: bool = False
    # Inputs handled by plugins that are not modelled yet; kept so they can be refused clearly.
    pvc_names: tuple[str, ...] = ()
    volumes: tuple[dict, ...] = ()
    resource_claims: tuple[str, ...] = ()  # the names of spec.resourceClaims
    resource_claim_sources: tuple[PodResourceClaim, ...] = ()  # spec.resourceClaims
    # status.resourceClaimStatuses: (name, resourceClaimName or None)
    resource_claim_statuses: tuple[tuple[str, str | None], ...] = ()
    # status.extendedResourceClaimStatus as the input gives it (resourceClaimName,
    # requestMappings), for the resourceclaim controller's cleanup (claim_cleanup.py)
    extended_resource_claim_status: dict[str, object] | None = None
    # Computed once at load time (see requests.py).
    resources: PodResources | None = None
    host_ports: tuple[ContainerPort, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def is_terminating(self) -> bool:
        return self.deletion_timestamp is not None

    def __repr__(self) -> str:
        return f"Pod({self.key}{' on ' + self.node_name if self.node_name else ''})"


@dataclass(slots=True, eq=False)
class Node:
    name: str
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: Resource = field(default_factory=Resource)
    images: tuple[ContainerImage, ...] = ()
    declared_features: tuple[str, ...] = ()
    order: int = 0

    def __repr__(self) -> str:
        return f"Node({self.name})"


@dataclass(slots=True, frozen=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"


@dataclass(slots=True, frozen=True)
class PodDisruptionBudget:
    namespace: str
    name: str
    selector: LabelSelector | None
    min_available: int | str | None = None
    max_unavailable: int | str | None = None
    disruptions_allowed: int | None = None  # status.disruptionsAllowed, when given


@dataclass(slots=True, frozen=True)
class Namespace:
    name: str
    labels: dict[str, str] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash(self.name)


# Objects that select or own pods: what the scheduler's informers list for
# ``helper.DefaultSelector`` (PodTopologySpread's system default constraints). Only what the
# scheduler reads is kept: namespace, name, uid and the selector.


@dataclass(slots=True, frozen=True)
class Service:
    """A v1 Service (k8s.io/api/core/v1/types.go ServiceSpec.Selector)."""

    namespace: str
    name: str
    uid: str = ""
    selector: Mapping[str, str] | None = None


@dataclass(slots=True, frozen=True)
class ReplicationController:
    """A v1 ReplicationController (ReplicationControllerSpec.Selector, a label map)."""

    namespace: str
    name: str
    uid: str = ""
    selector: Mapping[str, str] = field(default_factory=dict)


@dataclass(slots=True, frozen=True)
class ReplicaSet:
    """An apps/v1 ReplicaSet (ReplicaSetSpec.Selector, a LabelSelector)."""

    namespace: str
    name: str
    uid: str = ""
    selector: LabelSelector | None = None


@dataclass(slots=True, frozen=True)
class StatefulSet:
    """An apps/v1 StatefulSet (StatefulSetSpec.Selector, a LabelSelector)."""

    namespace: str
    name: str
    uid: str = ""
    selector: LabelSelector | None = None


@dataclass(slots=True)
class Cluster:
    """Everything read from the input manifests."""

    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    config: dict | None = None  # a KubeSchedulerConfiguration document found among the inputs
    services: list[Service] = field(default_factory=list)
    replication_controllers: list[ReplicationController] = field(default_factory=list)
    replica_sets: list[ReplicaSet] = field(default_factory=list)
    stateful_sets: list[StatefulSet] = field(default_factory=list)
    #: the resource.k8s.io/v1 objects: claims change as the scheduler allocates and reserves
    #: them (docs/dra.md)
    dra: DRAObjects = field(default_factory=DRAObjects)
    #: PersistentVolumes, claims, StorageClasses and the CSI objects: claims and volumes change
    #: as the scheduler binds them (docs/storage.md)
    storage: StorageObjects = field(default_factory=StorageObjects)

    @property
    def running_pods(self) -> list[Pod]:
        return [p for p in self.pods if p.node_name]

    @property
    def pending_pods(self) -> list[Pod]:
        return [p for p in self.pods if not p.node_name]
