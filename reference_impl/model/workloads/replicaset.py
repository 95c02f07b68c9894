"""ReplicaSet and ReplicationController → pods: ``manageReplicas``
(pkg/controller/replicaset/replica_set.go; the ReplicationController controller is the same
code, pkg/controller/replication): ``spec.replicas`` (default 1) minus the active pods the
workload already has (its own, then the orphans it adopts), each made by ``GetPodFromTemplate``
with ``generateName: <name>-`` (``getPodsPrefix``)."""

from __future__ import annotations

from reference_impl.model.decoding import INT32, read_int
from reference_impl.model.validation import is_dns1123_subdomain
from reference_impl.model.workloads.context import Expansion
from reference_impl.model.workloads.templates import Workload, pod_from_template

#: replicas, parallelism, completions, ordinals: 0 … 2^31-1 (apps/batch validation)
NON_NEGATIVE = (0, INT32[1])
NEGATIVE = "must be greater than or equal to 0, got {value}"


def pods_prefix(name: str) -> str:
    """``getPodsPrefix``: ``<name>-`` when that is a valid generateName, else ``<name>``."""
    prefix = f"{name}-"
    # ValidatePodName(prefix, true) masks the trailing dash (maskTrailingDash)
    return prefix if not is_dns1123_subdomain(f"{name}a") else name


def replicas(w: Workload, field: str = "replicas") -> int:
    """``spec.replicas`` (default 1: SetDefaults_ReplicaSet / _ReplicationController /
    _Deployment / _StatefulSet)."""
    v = w.spec.get(field)
    if v is None:
        return 1
    n = read_int(w.ctx, v, f"spec.{field}", bounds=NON_NEGATIVE, out_of_range=NEGATIVE)
    return 1 if n is None else n


def expand_replica_set(x: Expansion, w: Workload) -> int:
    """Create the missing pods of a ReplicaSet or ReplicationController; returns how many."""
    want = replicas(w)
    have = len(x.owned(w))
    if have < want:
        have += len(x.adopt_orphans(w, want - have))
    missing = max(0, want - have)
    prefix = pods_prefix(w.name)
    first = True
    for i in range(missing):
        name = x.unique_name("Pod", w.namespace, prefix, f"{w.namespace}/{w.name}/{i}")
        pod = pod_from_template(w, name)
        if first:
            x.check_pod(w, pod)
            first = False
        x.add("Pod", w.namespace, name, w.key, pod)
    x.notes.append(f"{w.key}: {want} replica(s), {have} already in the inputs, "
                   f"{missing} pod(s) created")
    return missing
