"""The ``persistentVolumeClaims`` result: every claim of the cluster at the end of a run and
what became of it (docs/storage.md#results), and an explained pod's claims."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from reference_impl.model.objects import Pod
from reference_impl.model.storage import (
    ANN_SELECTED_NODE,
    PVC_BOUND,
    PVC_PENDING,
    PersistentVolumeClaim,
    StorageObjects,
)


def claim_result(claim: PersistentVolumeClaim) -> dict[str, Any]:
    """One claim: ``namespace``, ``name``, ``phase`` (the API's status.phase, ``Pending``
    when unset), ``volumeName`` ("" when unbound) and, when the scheduler selected a node for
    provisioning (``volume.kubernetes.io/selected-node``), ``selectedNode``."""
    out: dict[str, Any] = {"namespace": claim.namespace, "name": claim.name,
                           "phase": claim.phase or PVC_PENDING,
                           "volumeName": claim.volume_name}
    selected = claim.annotations.get(ANN_SELECTED_NODE)
    if selected:
        out["selectedNode"] = selected
    return out


def persistent_volume_claim_results(storage: StorageObjects) -> list[dict[str, Any]]:
    """Every claim, sorted by ``namespace/name`` (empty when the cluster has none)."""
    return [claim_result(storage.claims[k]) for k in sorted(storage.claims)]


def pod_claim_keys(pod: Pod) -> list[str]:
    """The claims of a pod's volumes as ``namespace/name``, in volume order, once each: a
    ``persistentVolumeClaim`` volume's ``claimName``, an ``ephemeral`` volume's generated
    claim ``<pod>-<volume>`` (``ephemeral.VolumeClaimName``,
    k8s.io/component-helpers/storage/ephemeral/ephemeral.go)."""
    names: list[str] = []
    for v in pod.volumes:
        src = v.get("persistentVolumeClaim")
        if isinstance(src, dict) and src.get("claimName"):
            names.append(str(src["claimName"]))
        elif v.get("ephemeral") is not None and v.get("name"):
            names.append(f"{pod.name}-{v['name']}")
    names.extend(pod.pvc_names)
    keys: list[str] = []
    for name in names:
        key = f"{pod.namespace}/{name}"
        if key not in keys:
            keys.append(key)
    return keys


#: The volume plugins of the default profile, whose verdicts say why a pod's claims cannot be
#: used on a node.
VOLUME_PLUGINS = ("VolumeRestrictions", "NodeVolumeLimits", "VolumeZone", "VolumeBinding")


@dataclass(slots=True)
class ClaimExplanation:
    """One claim of an explained pod: its key, its phase ("" when the claim does not exist),
    the PV it is bound to, the node selected for its provisioning, and what became of it."""

    claim: str
    phase: str
    volume_name: str
    selected_node: str
    outcome: str


def explain_pod_claims(storage: StorageObjects, pod: Pod, selected: str | None,
                       why_not: Iterable[str]) -> list[ClaimExplanation]:
    """The pod's claims as they are (explaining binds nothing) and what became of each:
    ``bound to PV X`` (``provisioned on node Y, bound to PV X`` for a provisioned one),
    ``not found``, or unbound: VolumeBinding binds or provisions it when the pod is bound on
    the ``selected`` node, or the pod is unschedulable and ``why_not`` (the volume plugins'
    reasons) says why."""
    reasons = list(dict.fromkeys(why_not))
    out: list[ClaimExplanation] = []
    for key in pod_claim_keys(pod):
        claim = storage.claims.get(key)
        if claim is None:
            out.append(ClaimExplanation(key, "", "", "", "not found"))
            continue
        node = claim.annotations.get(ANN_SELECTED_NODE, "")
        out.append(ClaimExplanation(key, claim.phase or PVC_PENDING, claim.volume_name, node,
                                    _outcome(claim, node, selected, reasons)))
    return out


def _outcome(claim: PersistentVolumeClaim, node: str, selected: str | None,
             reasons: list[str]) -> str:
    if claim.phase == PVC_BOUND and claim.volume_name:
        if node:
            return f"provisioned on node {node}, bound to PV {claim.volume_name}"
        return f"bound to PV {claim.volume_name}"
    if selected:
        return (f"unbound: VolumeBinding binds or provisions it for node {selected} when the "
                "pod is bound")
    if reasons:
        return "unbound; the pod is unschedulable: " + "; ".join(reasons)
    return "unbound"
