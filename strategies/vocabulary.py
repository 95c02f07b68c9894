"""The small vocabularies generated objects draw from, and the API's name/label rules.

Vocabularies are deliberately tiny (three apps, three zones, two teams) so that selectors,
affinity terms and spread constraints actually match the pods and nodes of a generated cluster.

The regular expressions are upstream's (apimachinery ``pkg/api/validate/content/dns.go`` and
``kube.go``): a generated name, label key or label value always satisfies them; the tests check it.
"""

from __future__ import annotations

import re

__all__ = [
    "DNS1123_LABEL",
    "DNS1123_SUBDOMAIN",
    "LABEL_KEY_NAME",
    "LABEL_VALUE",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_label_value",
]

# --- API validation (apimachinery pkg/api/validate/content) ---------------------------------

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"

DNS1123_LABEL = re.compile("^" + _DNS1123_LABEL_FMT + "$")
DNS1123_SUBDOMAIN = re.compile("^" + _DNS1123_SUBDOMAIN_FMT + "$")
LABEL_KEY_NAME = re.compile("^" + _LABEL_KEY_FMT + "$")
LABEL_VALUE = re.compile("^" + _LABEL_VALUE_FMT + "$")


def is_dns1123_label(s: str) -> bool:
    """``IsDNS1123Label``: at most 63 characters of ``[a-z0-9-]``, alphanumeric at both ends
    (namespace and container names)."""
    return len(s) <= 63 and DNS1123_LABEL.match(s) is not None


def is_dns1123_subdomain(s: str) -> bool:
    """``IsDNS1123Subdomain``: at most 253 characters, dot-separated DNS-1123 labels (names of
    pods, nodes, priority classes, PDBs)."""
    return len(s) <= 253 and DNS1123_SUBDOMAIN.match(s) is not None


def is_qualified_name(s: str) -> bool:
    """``IsQualifiedName`` (label keys, topology keys, scheduling gate names): an optional
    DNS-1123 subdomain prefix and "/", then a name of at most 63 characters."""
    prefix, sep, name = s.rpartition("/")
    if sep and not (prefix and is_dns1123_subdomain(prefix)):
        return False
    return 0 < len(name) <= 63 and LABEL_KEY_NAME.match(name) is not None


def is_label_value(s: str) -> bool:
    """``IsValidLabelValue``: empty, or at most 63 characters as a label key's name part."""
    return len(s) <= 63 and LABEL_VALUE.match(s) is not None


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

# Container images with their sizes in bytes (node status.images; ImageLocality).
IMAGES: dict[str, int] = {
    "nginx:1.25": 70_000_000,
    "redis:7": 40_000_000,
    "postgres:16": 400_000_000,
    "busybox:1.36": 4_000_000,
}
IMAGE_NAMES = tuple(IMAGES)

HOST_PORTS = (8080, 8443, 9090)
PROTOCOLS = ("TCP", "UDP")

SCHEDULING_GATES = ("example.com/gate", "example.com/quota")

OWNER_KINDS = (("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet"), ("batch/v1", "Job"))

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

# A fixed day, so creation timestamps are readable: "2024-01-01T00:00:07Z".
TIMESTAMP_FORMAT = "2024-01-01T00:{minute:02d}:{second:02d}Z"
