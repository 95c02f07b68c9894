"""The small vocabularies generated objects draw from: deliberately tiny (three apps, three
zones, two teams) so that selectors, affinity terms and spread constraints actually match the
pods and nodes of a generated cluster. Every generated name, label key and value satisfies
apimachinery's name checks (``reference_impl/model/validation.py``); the tests check it."""

from __future__ import annotations

# --- well-known keys (k8s.io/api/core/v1/well_known_labels.go) ------------------------------

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
TOPOLOGY_KEYS = (HOSTNAME, ZONE, REGION)

ZONES = ("z1", "z2", "z3")
REGION_OF_ZONE = {"z1": "r1", "z2": "r1", "z3": "r2"}

# --- pods ----------------------------------------------------------------------------------

POD_LABELS: dict[str, tuple[str, ...]] = {
    "app": ("web", "db", "cache"),
    "tier": ("frontend", "backend"),
    "team": ("a", "b"),
    "example.com/release": ("stable", "canary"),
}
POD_LABEL_KEYS = tuple(POD_LABELS)

NAMESPACES = ("default", "team-a", "team-b")
NAMESPACE_LABELS: dict[str, tuple[str, ...]] = {
    "team": ("a", "b"),
    "env": ("prod", "dev"),
}

# Container images with their sizes in bytes (node status.images; ImageLocality). One is
# named without a tag (nodes list it as NAME:latest); the big ones weigh above ImageLocality's
# 23 MB floor even when few nodes hold them.
IMAGES: dict[str, int] = {
    "nginx:1.25": 70_000_000,
    "redis:7": 40_000_000,
    "postgres:16": 400_000_000,
    "busybox:1.36": 4_000_000,
    "registry.example.com/ml/model": 900_000_000,
}
IMAGE_NAMES = tuple(IMAGES)

HOST_PORTS = (8080, 8443, 9090)
PROTOCOLS = ("TCP", "UDP")

SCHEDULING_GATES = ("example.com/gate", "example.com/quota")

OWNER_KINDS = (("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet"), ("batch/v1", "Job"),
               ("v1", "ReplicationController"))

# --- nodes ---------------------------------------------------------------------------------

NODE_LABELS: dict[str, tuple[str, ...]] = {
    "disktype": ("ssd", "hdd"),
    "example.com/pool": ("general", "gpu"),
    "example.com/generation": ("1", "2", "3"),  # numeric, for Gt / Lt
}
NUMERIC_NODE_LABEL = "example.com/generation"

TAINT_KEYS = ("dedicated", "example.com/maintenance")
TAINT_VALUES = ("gpu", "infra")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

EXTENDED_RESOURCE = "example.com/gpu"

# --- priorities ----------------------------------------------------------------------------

PRIORITY_CLASS_NAMES = ("low", "medium", "high", "critical")
PRIORITY_VALUES = (-10, 0, 10, 100, 1000, 1_000_000)
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
SYSTEM_PRIORITY_CLASSES = {"system-cluster-critical": 2_000_000_000,
                           "system-node-critical": 2_000_001_000}

DEFAULT_SCHEDULER = "default-scheduler"
SECOND_SCHEDULER = "second-scheduler"
FOREIGN_SCHEDULER = "other-scheduler"  # no generated profile serves it (busy clusters)

# A fixed day, so creation timestamps are readable: "2024-01-01T00:00:07Z".
TIMESTAMP_FORMAT = "2024-01-01T00:{minute:02d}:{second:02d}Z"
