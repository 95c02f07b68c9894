"""Deployment → its new ReplicaSet → pods (pkg/controller/deployment/sync.go
``getNewReplicaSet``, util/deployment_util.go): the ReplicaSet ``<deployment>-<hash>`` where the
hash is ``ComputeHash(template, status.collisionCount)`` (``names.compute_hash``, which differs
from a live cluster's value), labelled and selected by ``pod-template-hash``, owned by the
Deployment, with ``spec.replicas`` of the Deployment (a new Deployment's first ReplicaSet is
scaled to all of them, RollingUpdate or Recreate alike), then expanded as any ReplicaSet. The
ReplicaSet is emitted as a document too. A paused Deployment creates no ReplicaSet
(``sync`` with createIfNotExisted false); a Deployment that already owns a ReplicaSet in the
inputs is left to it."""

from __future__ import annotations

import copy
import math
from typing import Any

from reference_impl.model.decoding import InputLocation, read_int
from reference_impl.model.loader.defaults import _deterministic_uid
from reference_impl.model.workloads.context import Expansion
from reference_impl.model.workloads.names import compute_hash
from reference_impl.model.workloads.replicaset import expand_replica_set, replicas
from reference_impl.model.workloads.templates import Workload, controller_ref, read_workload

POD_TEMPLATE_HASH = "pod-template-hash"  # apps.DefaultDeploymentUniqueLabelKey
REVISION = "deployment.kubernetes.io/revision"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"


def _max_surge(w: Workload, n: int) -> int:
    """``MaxSurge``: RollingUpdate's maxSurge (default 25%, rounded up) over ``n``;
    0 for Recreate."""
    strategy = w.spec.get("strategy") or {}
    if strategy.get("type") == "Recreate":
        return 0
    surge = (strategy.get("rollingUpdate") or {}).get("maxSurge", "25%")
    if isinstance(surge, str) and surge.endswith("%"):
        return math.ceil(n * int(surge[:-1]) / 100)
    return read_int(w.ctx, surge, "spec.strategy.rollingUpdate.maxSurge") or 0


def owned_replica_sets(x: Expansion, w: Workload) -> list[str]:
    out = []
    for e in x.inputs.of_kind("ReplicaSet"):
        if e.namespace != w.namespace:
            continue
        for ref in e.meta.get("ownerReferences") or ():
            if (isinstance(ref, dict) and ref.get("controller") is True
                    and ref.get("kind") == "Deployment"
                    and (ref.get("uid") == w.uid or ref.get("name") == w.name)):
                out.append(e.name)
    return out


def new_replica_set(w: Workload) -> dict[str, Any]:
    """The ReplicaSet ``getNewReplicaSet`` creates for a Deployment without one."""
    collision = (w.doc.get("status") or {}).get("collisionCount")
    template = copy.deepcopy(w.template)
    rs_hash = compute_hash(template, collision if isinstance(collision, int) else None)
    tmeta = dict(template.get("metadata") or {})
    tmeta["labels"] = {**(tmeta.get("labels") or {}), POD_TEMPLATE_HASH: rs_hash}
    template["metadata"] = tmeta
    selector = copy.deepcopy(dict(w.spec.get("selector") or {}))
    selector["matchLabels"] = {**(selector.get("matchLabels") or {}), POD_TEMPLATE_HASH: rs_hash}
    n = replicas(w)
    name = f"{w.name}-{rs_hash}"
    meta: dict[str, Any] = {
        "name": name, "namespace": w.namespace,
        "uid": _deterministic_uid("ReplicaSet", w.namespace, name),
        "labels": dict(tmeta["labels"]),
        "annotations": {REVISION: "1", DESIRED_REPLICAS: str(n),
                        MAX_REPLICAS: str(n + _max_surge(w, n))},
        "ownerReferences": [controller_ref("apps/v1", "Deployment", w.name, w.uid)],
    }
    spec: dict[str, Any] = {"replicas": n, "selector": selector, "template": template}
    if w.spec.get("minReadySeconds") is not None:
        spec["minReadySeconds"] = w.spec["minReadySeconds"]
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta, "spec": spec}


def expand_deployment(x: Expansion, w: Workload) -> int:
    """Create the Deployment's ReplicaSet and its pods; returns the number of pods."""
    existing = owned_replica_sets(x, w)
    if existing:
        x.notes.append(f"{w.key}: owns ReplicaSet(s) {', '.join(existing)} in the inputs; "
                       "they make its pods")
        return 0
    if w.spec.get("paused") is True:
        x.notes.append(f"{w.key}: paused: the controller creates no ReplicaSet")
        return 0
    rs_doc = new_replica_set(w)
    name = rs_doc["metadata"]["name"]
    x.add("ReplicaSet", w.namespace, name, w.key, rs_doc)
    rs = read_workload("ReplicaSet", "apps/v1", rs_doc,
                       InputLocation(w.ctx.source, w.ctx.document, w.ctx.item))
    rs.ctx.obj = w.key  # a bad template is the Deployment's
    x.notes.append(f"{w.key}: ReplicaSet {w.namespace}/{name} created")
    return expand_replica_set(x, rs)
