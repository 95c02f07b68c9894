"""Oracle ``read_write_once_pod``: a ReadWriteOncePod claim is used by at most one bound pod.

Upstream rule: ``pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go``
(``readWriteOncePodPVCsForPod``, ``calPreFilterState``: the claims of the pod's
``persistentVolumeClaim`` volumes whose ``spec.accessModes`` hold ReadWriteOncePod, against
the snapshot's ``IsPVCUsedByPods``). The invariant and its exceptions:
docs/oracles.md#read_write_once_pod."""

from __future__ import annotations

from oracles.base import OracleContext, Violation
from oracles.storage import READ_WRITE_ONCE_POD, StorageView, plugin_binds, pod_claims

NAME = "read_write_once_pod"


def check(ctx: OracleContext) -> list[Violation]:
    """No bind gives a ReadWriteOncePod claim a second user: when a pod that names such a
    claim in a ``persistentVolumeClaim`` volume is bound, no other pod bound at that time
    names it (docs/oracles.md#read_write_once_pod)."""
    view = StorageView.of(ctx)
    rwop = {k for k, c in view.claims.items() if READ_WRITE_ONCE_POD in view.access_modes(c)}
    if not rwop:
        return []
    out: list[Violation] = []
    for step, pod in plugin_binds(ctx, "VolumeRestrictions", "preFilter", "filter"):
        mine = {v.claim for v in pod_claims(pod) if not v.ephemeral} & rwop
        if not mine:
            continue
        for node, pods in sorted(step.state.pods_on.items()):
            for other in pods:
                if other.key == pod.key:
                    continue
                shared = mine & {v.claim for v in pod_claims(other) if not v.ephemeral}
                for claim in sorted(shared):
                    out.append(Violation(NAME, pod.key, step.node, (
                        f"attempt {step.index} bound {pod.key} to {step.node}, but its "
                        f"ReadWriteOncePod claim {claim} is already used by {other.key} "
                        f"on {node}")))
    return out
