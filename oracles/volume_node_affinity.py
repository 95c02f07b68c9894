"""Oracle ``volume_node_affinity``: a pod is bound only to a node that the node affinity of
each PersistentVolume its claims are bound to allows.

Upstream rule: ``pkg/scheduler/framework/plugins/volumebinding/binder.go``
(``FindPodVolumes``: ``checkBoundClaims`` for claims bound before, ``findMatchingVolumes`` for
the volumes it binds), both through ``CheckNodeAffinity``
(k8s.io/component-helpers/storage/volume/helpers.go). The invariant and its exceptions:
docs/oracles.md#volume_node_affinity."""

from __future__ import annotations

from oracles.base import OracleContext, Violation
from oracles.storage import StorageView, plugin_binds, pod_claims, volume_node_affinity_matches

NAME = "volume_node_affinity"


def check(ctx: OracleContext) -> list[Violation]:
    """Every bind of a pod went to a node whose labels, at that time, satisfy
    ``spec.nodeAffinity.required`` of the PVs its claims are bound to (as given, or as the
    result reports), when the pod's profile runs VolumeBinding's Filter
    (docs/oracles.md#volume_node_affinity)."""
    view = StorageView.of(ctx)
    if not view.volumes:
        return []
    out: list[Violation] = []
    for step, pod in plugin_binds(ctx, "VolumeBinding", "preFilter", "filter"):
        if step.node not in step.state.nodes:
            continue
        node = step.state.nodes[step.node]
        for v in pod_claims(pod):
            name = view.final_volume(v.claim)
            pv = view.volumes.get(name)
            if pv is None or v.claim not in view.claims:
                continue
            if not volume_node_affinity_matches(pv, node.labels):
                out.append(Violation(NAME, pod.key, node.name, (
                    f"attempt {step.index} bound {pod.key} to {node.name}, but volume "
                    f"{v.volume} uses claim {v.claim}, bound to PersistentVolume {name}, "
                    f"whose node affinity {pv['spec']['nodeAffinity']['required']} the node's "
                    f"labels {dict(sorted(node.labels.items()))} do not satisfy")))
    return out
