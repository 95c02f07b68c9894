"""Workload expansion: Deployments, ReplicaSets, ReplicationControllers, StatefulSets,
DaemonSets and Jobs become the pods (and ReplicaSets, PersistentVolumeClaims) their
controllers would create, as a pre-pass over the raw input documents. Modules: ``names``
(hashes and generated names), ``templates`` (reading a workload, pods from its template),
``inputs`` (the documents and their pods), ``context`` (the shared state and checks), one module
per controller (``replicaset``, ``deployment``, ``statefulset``, ``daemonset``, ``job``), and
``expand`` (the entry point). docs/expansion.md.
"""

from reference_impl.model.workloads.context import EXPANDED_SOURCE, Created, Expansion
from reference_impl.model.workloads.expand import (
    MODES,
    WORKLOAD_KINDS,
    expand_workloads,
    is_workload,
)
from reference_impl.model.workloads.inputs import Document

__all__ = ["EXPANDED_SOURCE", "MODES", "WORKLOAD_KINDS", "Created", "Document", "Expansion",
           "expand_workloads", "is_workload"]
