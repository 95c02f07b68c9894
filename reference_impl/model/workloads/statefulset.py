"""StatefulSet → ordinal pods and their PersistentVolumeClaims
(pkg/controller/statefulset/stateful_set_utils.go ``newStatefulSetPod``, ``initIdentity``,
``updateStorage``, ``getPersistentVolumeClaims``): pods ``<set>-<ordinal>`` from
``spec.ordinals.start``, the pod-name, pod-index and controller-revision-hash labels, hostname
and subdomain; a claim ``<claim>-<set>-<ordinal>`` per ``volumeClaimTemplates`` entry. Pods and
claims already in the inputs are not created again. ``Parallel`` creates every pod at once.
``OrderedReady`` (the default; stateful_set_control.go, ``monotonic``) creates pod N+1 once pod
N is Running and Ready: without a kubelet, once it is bound. The first pod is created at once;
each next one becomes a Scenario timeline event triggered by the binding of the previous one
(``when: {podBound: ...}``, ``Expansion.trigger``), so a pod that cannot be scheduled stops the
ones after it (docs/expansion.md#statefulset).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from reference_impl.model.decoding import read_int, read_list, read_map
from reference_impl.model.workloads.context import Expansion
from reference_impl.model.workloads.names import revision_hash
from reference_impl.model.workloads.replicaset import NEGATIVE, NON_NEGATIVE, replicas
from reference_impl.model.workloads.templates import Workload, pod_from_template

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"  # apps.StatefulSetPodNameLabel
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"  # apps.PodIndexLabel
REVISION_LABEL = "controller-revision-hash"  # apps.ControllerRevisionHashLabelKey


def _claims(x: Expansion, w: Workload) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for i, c in enumerate(read_list(w.ctx, w.spec.get("volumeClaimTemplates"),
                                    "spec.volumeClaimTemplates")):
        path = f"spec.volumeClaimTemplates[{i}]"
        c = read_map(w.ctx, c, path)
        name = (c.get("metadata") or {}).get("name")
        if not isinstance(name, str) or not name:
            raise w.ctx.error(f"{path}.metadata.name", "required: every claim template "
                                                       "needs a name")
        out.append((name, dict(c)))
    return out


def expand_stateful_set(x: Expansion, w: Workload) -> int:
    """Create the StatefulSet's missing pods and claims; returns the number of pods."""
    n = replicas(w)
    start = 0
    ordinals = w.spec.get("ordinals")
    if ordinals is not None:
        start = read_int(w.ctx, read_map(w.ctx, ordinals, "spec.ordinals").get("start", 0),
                         "spec.ordinals.start", bounds=NON_NEGATIVE, out_of_range=NEGATIVE) or 0
    policy = w.spec.get("podManagementPolicy") or "OrderedReady"
    revision = f"{w.name}-{revision_hash(w.template)}"
    claims = _claims(x, w)
    existing = {p.entry.name: p for p in x.inputs.pods if p.entry.namespace == w.namespace}
    ordered = policy == "OrderedReady"
    match = dict((w.spec.get("selector") or {}).get("matchLabels") or {})
    created = triggered = 0
    previous = ""  # the pod before this ordinal when it may still be pending ("" if none)
    for ordinal in range(start, start + n):
        name = f"{w.name}-{ordinal}"
        if name in existing:
            entry = existing[name]
            spec = entry.entry.obj.get("spec")
            bound = isinstance(spec, Mapping) and bool(spec.get("nodeName"))
            previous = "" if bound or not entry.active else name
            continue
        pod = pod_from_template(w, name, extra_labels={
            REVISION_LABEL: revision, POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal)})
        spec = pod["spec"]
        spec["hostname"] = name
        if w.spec.get("serviceName"):
            spec["subdomain"] = w.spec["serviceName"]
        volumes: list[Any] = []
        for cname, c in claims:
            claim_name = f"{cname}-{w.name}-{ordinal}"
            volumes.append({"name": cname, "persistentVolumeClaim": {"claimName": claim_name}})
            if claim_name not in x.taken("PersistentVolumeClaim", w.namespace):
                x.add("PersistentVolumeClaim", w.namespace, claim_name, w.key,
                      _claim(c, claim_name, w.namespace, match))
        volumes += [v for v in spec.get("volumes") or ()
                    if not (isinstance(v, dict) and v.get("name") in dict(claims))]
        if volumes:
            spec["volumes"] = volumes
        if not created:
            x.check_pod(w, pod)
        if ordered and previous:
            x.trigger(f"{w.namespace}/{previous}", w.namespace, name, w.key, pod)
            triggered += 1
        else:
            x.add("Pod", w.namespace, name, w.key, pod)
        previous = name
        created += 1
    later = (f" ({triggered} of them each when the previous one is bound: OrderedReady)"
             if triggered else "")
    x.notes.append(f"{w.key}: {n} replica(s), {n - created} already in the inputs, "
                   f"{created} pod(s) created{later}")
    return created


def _claim(template: dict[str, Any], name: str, namespace: str,
           match_labels: dict[str, str]) -> dict[str, Any]:
    claim = copy.deepcopy(template)
    meta = dict(claim.get("metadata") or {})
    meta["name"] = name
    meta["namespace"] = namespace
    meta["labels"] = {**(meta.get("labels") or {}), **match_labels}
    claim["metadata"] = meta
    claim.setdefault("apiVersion", "v1")
    claim.setdefault("kind", "PersistentVolumeClaim")
    claim.pop("status", None)
    return {"apiVersion": claim.pop("apiVersion"), "kind": claim.pop("kind"), **claim}
