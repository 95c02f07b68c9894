"""Oracle ``attach_limits``: binding a pod never takes a node over a CSI driver's attach limit.

Upstream rule: ``pkg/scheduler/framework/plugins/nodevolumelimits/csi.go`` (``Filter``,
``filterAttachableVolumes``, ``getCSIDriverInfo``, ``getCSIDriverInfoFromSC``,
``checkAttachableInlineVolume``, ``getVolumeLimits``) and ``utils.go`` (``isCSIMigrationOn``).
The invariant and its exceptions: docs/oracles.md#attach_limits."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from oracles.base import OracleContext, Violation
from oracles.storage import StorageView, plugin_binds, pod_claims
from reference_impl.model.objects import Pod

NAME = "attach_limits"

#: in-tree sources CSI migration translates, with their plugin name and CSI driver
#: (k8s.io/csi-translation-lib/plugins gce_pd.go, aws_ebs.go; isCSIMigrationOn: on for both
#: whenever the node has a CSINode). Other in-tree sources are not counted here.
MIGRATED: dict[str, tuple[str, str, str]] = {  # source -> (plugin, driver, id field)
    "gcePersistentDisk": ("kubernetes.io/gce-pd", "pd.csi.storage.gke.io", "pdName"),
    "awsElasticBlockStore": ("kubernetes.io/aws-ebs", "ebs.csi.aws.com", "volumeID"),
}
_DRIVER_OF_PLUGIN = {plugin: driver for plugin, driver, _ in MIGRATED.values()}

Volume = tuple[str, str]  # (identity, driver)


def _in_tree(source: Mapping[str, Any]) -> Volume | None:
    """A migrated in-tree source (a PV's or a pod's inline volume) as (identity, driver); the
    identity is the disk's name, the volume id without its ``aws://zone/`` prefix (the
    translated handles add a zone, so the oracle never counts more volumes than upstream)."""
    for kind, (_, driver, id_field) in MIGRATED.items():
        src = source.get(kind)
        if isinstance(src, Mapping) and src.get(id_field):
            return f"{driver}/{str(src[id_field]).rsplit('/', 1)[-1]}", driver
    return None


def _pv_volume(pv: Mapping[str, Any]) -> Volume | None:
    """``getCSIDriverInfo`` of a PV: its CSI driver and handle, or the translated in-tree
    source; None for a volume NodeVolumeLimits does not count."""
    spec = pv.get("spec") or {}
    csi = spec.get("csi")
    if isinstance(csi, Mapping):
        driver = str(csi.get("driver") or "")
        handle = str(csi.get("volumeHandle") or "")
        return (f"{driver}/{handle}", driver) if driver and handle else None
    return _in_tree(spec)


def _class_driver(view: StorageView, class_name: str | None) -> str | None:
    """``getCSIDriverInfoFromSC``: the class's provisioner (translated when it is a migrated
    in-tree plugin); None without a class."""
    sc = view.classes.get(class_name or "")
    if sc is None:
        return None
    provisioner = str(sc.get("provisioner") or "")
    return _DRIVER_OF_PLUGIN.get(provisioner, provisioner) or None


def _owned_by(claim: Mapping[str, Any], pod: Pod) -> bool:
    """``ephemeral.VolumeIsForPod``: the pod is the claim's controller owner."""
    refs = (claim.get("metadata") or {}).get("ownerReferences") or []
    return any(r.get("controller") and r.get("uid") == pod.uid for r in refs)


def claim_volume(view: StorageView, key: str) -> Volume | None:
    """The volume a claim stands for, as every view the scheduler may have of it agrees:

    * bound in the input: its PV's driver and handle (the class's provisioner when the PV
      does not exist, as upstream falls back);
    * unbound in the input: until its binding completes upstream counts it under the class's
      provisioner, after under its volume's driver (a static PV's, or the provisioner's for a
      provisioned one). The oracle counts it only when both agree: under its static PV's
      identity (the view that merges most, so it never counts more than upstream), else once
      per claim."""
    claim = view.claims.get(key)
    if claim is None:
        return None
    name = view.input_volume(key)
    if name:
        pv = view.volumes.get(name)
        if pv is not None:
            return _pv_volume(pv)
        driver = _class_driver(view, view.stored_class(claim))
        return (f"claim:{key}", driver) if driver else None
    before = _class_driver(view, view.stored_class(claim))
    final = view.final_volume(key)
    after = before
    if final:
        pv = view.volumes.get(final)
        if pv is not None:
            vol = _pv_volume(pv)
            if vol is not None and before and vol[1] == before:
                return vol
            after = vol[1] if vol else None
        else:  # provisioned: spec.csi.driver is the class's provisioner (docs/storage.md)
            after = _class_driver(view, view.class_of(claim))
    return (f"claim:{key}", before) if before and before == after else None


def pod_volumes(view: StorageView, pod: Pod) -> dict[str, str]:
    """``filterAttachableVolumes`` (on a node with a CSINode): identity -> driver of the
    pod's claims (an ephemeral volume's when the pod owns it) and migrated inline volumes."""
    out: dict[str, str] = {}
    for v in pod_claims(pod):
        claim = view.claims.get(v.claim)
        if claim is None or (v.ephemeral and not _owned_by(claim, pod)):
            continue
        vol = claim_volume(view, v.claim)
        if vol is not None:
            out[vol[0]] = vol[1]
    for raw in pod.volumes:
        vol = _in_tree(raw)
        if vol is not None:
            out[vol[0]] = vol[1]
    return out


def check(ctx: OracleContext) -> list[Violation]:
    """After every bind, for every CSI driver the pod adds volumes of, the node's CSINode
    ``allocatable.count`` is at least the unique volumes of that driver its pods use
    (nodevolumelimits/csi.go Filter; docs/oracles.md#attach_limits)."""
    view = StorageView.of(ctx)
    if not view.csi_nodes:
        return []
    out: list[Violation] = []
    for step, pod in plugin_binds(ctx, "NodeVolumeLimits"):
        node = step.node
        if node is None or node not in step.state.nodes:
            continue
        limits = view.limits(node)
        new = pod_volumes(view, pod) if limits else {}
        if not new:
            continue
        attached: dict[str, str] = {}
        for other in step.state.pods_on.get(node, []):
            if other.key != pod.key:
                attached.update(pod_volumes(view, other))
        for identity in attached:
            new.pop(identity, None)
        have = Counter(attached.values())
        for driver, count in sorted(Counter(new.values()).items()):
            limit = limits.get(driver)
            if limit is not None and have[driver] + count > limit:
                out.append(Violation(NAME, pod.key, node, (
                    f"attempt {step.index} bound {pod.key} to {node}: the node's pods use "
                    f"{have[driver]} volume(s) of CSI driver {driver}, the pod adds {count} "
                    f"({', '.join(sorted(k for k, d in new.items() if d == driver))}), total "
                    f"{have[driver] + count} > the CSINode's allocatable count {limit}")))
    return out
