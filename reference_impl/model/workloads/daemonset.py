"""DaemonSet → one pod per node the DaemonSet controller's own check accepts
(pkg/controller/daemon/daemon_controller.go ``NodeShouldRunDaemonPod``, ``predicates``;
pkg/controller/daemon/util/daemonset_util.go): the template's nodeName (if set) is the node, its
nodeSelector and required node affinity match the node, and no NoSchedule/NoExecute taint is
left untolerated by its tolerations plus ``AddOrUpdateDaemonPodTolerations``'. Each pod
(``CreatePodTemplate``: those tolerations, the controller-revision-hash and
pod-template-generation labels) is pinned by ``ReplaceDaemonSetPodNodeNameNodeAffinity``
(``matchFields metadata.name In [node]``) and left to the scheduler. A node that already has an
active pod of the DaemonSet gets none. docs/expansion.md#daemonset.
"""

from __future__ import annotations

import copy
from typing import Any

from reference_impl.api.node_selectors import RequiredNodeAffinity
from reference_impl.api.tolerations import do_not_schedule_taint, find_matching_untolerated_taint
from reference_impl.model.workloads.context import Expansion
from reference_impl.model.workloads.names import revision_hash
from reference_impl.model.workloads.replicaset import pods_prefix
from reference_impl.model.workloads.templates import Workload, pod_from_template

REVISION_LABEL = "controller-revision-hash"  # extensions.DefaultDaemonSetUniqueLabelKey
GENERATION_LABEL = "pod-template-generation"  # extensions.DaemonSetTemplateGenerationKey
GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"

_ALWAYS = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
_HOST_NETWORK = (("node.kubernetes.io/network-unavailable", "NoSchedule"),)


def daemon_pod_tolerations(spec: dict[str, Any]) -> list[Any]:
    """``AddOrUpdateDaemonPodTolerations``: each toleration added unless an identical one is
    there (``AddOrUpdateTolerationInPodSpec`` replaces a matching one by itself)."""
    tolerations = list(spec.get("tolerations") or [])
    adds = _ALWAYS + (_HOST_NETWORK if spec.get("hostNetwork") is True else ())
    for key, effect in adds:
        t = {"key": key, "operator": "Exists", "effect": effect}
        same = [i for i, old in enumerate(tolerations) if isinstance(old, dict)
                and old.get("key") == key and old.get("effect") == effect
                and old.get("operator") == "Exists" and not old.get("value")]
        if same:
            tolerations[same[0]] = t
        else:
            tolerations.append(t)
    return tolerations


def pin_to_node(affinity: Any, node: str) -> dict[str, Any]:
    """``ReplaceDaemonSetPodNodeNameNodeAffinity``."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
    out = copy.deepcopy(affinity) if isinstance(affinity, dict) else {}
    na = out.get("nodeAffinity")
    na = dict(na) if isinstance(na, dict) else {}
    required = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    required = dict(required) if isinstance(required, dict) else {}
    required["nodeSelectorTerms"] = [term]
    na["requiredDuringSchedulingIgnoredDuringExecution"] = required
    out["nodeAffinity"] = na
    return out


def expand_daemon_set(x: Expansion, w: Workload) -> int:
    """Create the DaemonSet's pods; returns how many."""
    annotations = (w.doc.get("metadata") or {}).get("annotations") or {}
    generation = str(annotations.get(GENERATION_ANNOTATION, "1"))
    template = copy.deepcopy(w.template)
    tspec = dict(template.get("spec") or {})
    tspec["tolerations"] = daemon_pod_tolerations(tspec)
    template["spec"] = tspec
    # the model pod of the template: its tolerations, nodeSelector and affinity, checked
    probe = x.check_pod(w, pod_from_template(w, f"{w.name}-template", template=template))
    required = RequiredNodeAffinity(probe.node_selector, probe.affinity)
    labels = {REVISION_LABEL: revision_hash(w.template), GENERATION_LABEL: generation}
    have = {p.node for p in x.owned(w) if p.node}
    template_node = tspec.get("nodeName") or ""
    prefix = pods_prefix(w.name)
    created, skipped = 0, []
    for node in x.nodes():
        if template_node and template_node != node.name:
            skipped.append(f"{node.name} (template nodeName)")
            continue
        if not required.match(node):
            skipped.append(f"{node.name} (node selector/affinity)")
            continue
        taint = find_matching_untolerated_taint(node.taints, probe.tolerations,
                                                do_not_schedule_taint)
        if taint is not None:
            skipped.append(f"{node.name} (untolerated taint {taint.key}:{taint.effect})")
            continue
        if node.name in have:
            continue
        name = x.unique_name("Pod", w.namespace, prefix,
                             f"{w.namespace}/{w.name}/{node.name}")
        pod = pod_from_template(w, name, template=template, extra_labels=labels)
        pod["spec"]["affinity"] = pin_to_node(pod["spec"].get("affinity"), node.name)
        x.add("Pod", w.namespace, name, w.key, pod)
        created += 1
    note = f"{w.key}: {created} pod(s) created, {len(have)} already in the inputs"
    if skipped:
        note += "; no pod for " + ", ".join(skipped)
    x.notes.append(note)
    return created
