"""The expansion entry point: ``expand_workloads(documents, mode)``, a pre-pass over the raw
input documents (before admission and the loader) that adds the objects the controllers would
create: pods, the ReplicaSets of Deployments, the claims of StatefulSets. The workload
documents stay in the inputs (completed with the uid and, for a Job, the selector the API
server would give them). docs/expansion.md.

Modes: ``auto`` (the default) expands the workloads that have no pods of their own in the
inputs (a manifest) and leaves a dump's workloads as they are; ``on`` also tops up a workload
that has fewer pods than it wants; ``off`` expands nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from reference_impl.model.loader.controllers import REMOVED_API_VERSIONS
from reference_impl.model.workloads.context import Expansion
from reference_impl.model.workloads.daemonset import expand_daemon_set
from reference_impl.model.workloads.deployment import expand_deployment, owned_replica_sets
from reference_impl.model.workloads.inputs import Document, Inputs
from reference_impl.model.workloads.job import expand_job
from reference_impl.model.workloads.replicaset import expand_replica_set
from reference_impl.model.workloads.statefulset import expand_stateful_set
from reference_impl.model.workloads.templates import (
    SERVED_API_VERSIONS,
    Workload,
    read_workload,
)

MODES = ("auto", "on", "off")
WORKLOAD_KINDS = tuple(SERVED_API_VERSIONS)

_EXPANDERS: dict[str, Callable[[Expansion, Workload], int]] = {
    "Deployment": expand_deployment,
    "ReplicaSet": expand_replica_set,
    "ReplicationController": expand_replica_set,
    "StatefulSet": expand_stateful_set,
    "DaemonSet": expand_daemon_set,
    "Job": expand_job,
}


def is_workload(kind: str, api_version: str) -> bool:
    return kind in SERVED_API_VERSIONS and (
        api_version == SERVED_API_VERSIONS[kind]
        or api_version in REMOVED_API_VERSIONS.get(kind, ()))


def _has_own(x: Expansion, w: Workload) -> bool:
    if w.kind == "Deployment":
        return bool(owned_replica_sets(x, w))
    return bool(x.owned(w, active_only=False))


def expand_workloads(documents: Iterable[Document], mode: str = "auto") -> Expansion:
    """Expand the workloads of ``documents`` (``(source, number, value)`` as
    ``loader.read_documents`` gives them); the result's ``documents`` are the inputs to load."""
    if mode not in MODES:
        raise ValueError(f"unknown expansion mode {mode!r}: expected one of {', '.join(MODES)}")
    x = Expansion(Inputs.read(list(documents)), force=mode == "on")
    entries = [e for e in x.inputs.entries if is_workload(e.kind, e.api_version)]
    workloads = []
    for e in entries:
        w = read_workload(e.kind, e.api_version, e.obj, e.ctx)
        x.warnings += w.warnings
        if w.doc != e.obj:
            x.inputs.replace(e, w.doc)
        workloads.append(w)
        x.workloads.append(w.key)
    _missing_controllers(x)
    if mode == "off":
        return x
    for w in workloads:
        if mode == "auto" and _has_own(x, w):
            x.notes.append(f"{w.key}: has pods in the inputs; not expanded "
                           "(--expand-workloads tops it up)")
            continue
        _EXPANDERS[w.kind](x, w)
    x.finish_timeline()
    return x


def _missing_controllers(x: Expansion) -> None:
    """Pods whose controller is a workload kind absent from the inputs: taken as they are
    (the scheduler never reads owners; no pods are created for the missing controller)."""
    present = {(e.kind, e.namespace, e.name) for e in x.inputs.entries}
    missing = []
    for p in x.inputs.pods:
        if p.controller is None or p.controller[0] not in SERVED_API_VERSIONS:
            continue
        kind, name, _ = p.controller
        if (kind, p.entry.namespace, name) not in present:
            missing.append(f"{kind} {p.entry.namespace}/{name}")
    if missing:
        kinds = sorted(set(missing))
        shown = ", ".join(kinds[:3]) + (f" and {len(kinds) - 3} more" if len(kinds) > 3 else "")
        x.warnings.append(
            f"{len(missing)} pod(s) name a controller that is not among the inputs ({shown}): "
            "the pods are taken as they are and nothing is created for the controller "
            "(docs/expansion.md#owners-not-in-the-inputs)")
