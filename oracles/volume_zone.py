"""Oracle ``volume_zone``: a pod is bound only to a node whose zone and region labels match
those of each PersistentVolume its ``persistentVolumeClaim`` volumes are bound to.

Upstream rule: ``pkg/scheduler/framework/plugins/volumezone/volume_zone.go`` (``getPVbyPod``,
``getPVTopologies``, ``Filter``, ``translateToGALabel``) with ``LabelZonesToSet``
(k8s.io/cloud-provider/volume/helpers/zones.go). The invariant and its exceptions:
docs/oracles.md#volume_zone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracles.base import OracleContext, Violation
from oracles.storage import StorageView, plugin_binds, pod_claims
from reference_impl.model.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
)

NAME = "volume_zone"

#: ``topologyLabels``, and the GA key ``translateToGALabel`` tries for a beta one
GA_OF: dict[str, str] = {
    LABEL_FAILURE_DOMAIN_BETA_ZONE: LABEL_TOPOLOGY_ZONE,
    LABEL_FAILURE_DOMAIN_BETA_REGION: LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE: LABEL_TOPOLOGY_ZONE,
    LABEL_TOPOLOGY_REGION: LABEL_TOPOLOGY_REGION,
}
#: ``cloudvolume.LabelMultiZoneDelimiter``
MULTI_ZONE_DELIMITER = "__"

Topology = tuple[str, frozenset[str]]  # (label key, values)


def zone_set(value: str) -> frozenset[str] | None:
    """``LabelZonesToSet``: the ``__``-separated values, trimmed; None (an error, the label is
    ignored) when one is empty."""
    values = [part.strip() for part in value.split(MULTI_ZONE_DELIMITER)]
    return None if "" in values else frozenset(values)


def pv_topologies(pv: Mapping[str, Any]) -> list[Topology]:
    """``getPVTopologies``: the PV's topology labels whose value parses."""
    labels = (pv.get("metadata") or {}).get("labels") or {}
    out = []
    for key in GA_OF:
        if key in labels:
            values = zone_set(str(labels[key]))
            if values is not None:
                out.append((key, values))
    return out


def mismatch(topologies: list[Topology], labels: Mapping[str, str]) -> Topology | None:
    """``Filter``'s verdict: the first topology the node's labels do not match (None: the node
    fits). A node without any topology label fits every volume."""
    if not any(key in labels for key in GA_OF):
        return None
    for key, values in topologies:
        actual = labels.get(key, labels.get(GA_OF[key]))
        if actual is None or actual not in values:
            return key, values
    return None


def check(ctx: OracleContext) -> list[Violation]:
    """Every bind of a pod went to a node whose labels, at that time, match the zone and region
    labels of the PVs its ``persistentVolumeClaim`` volumes' claims name in the input, when
    the pod's profile runs VolumeZone's Filter (docs/oracles.md#volume_zone)."""
    view = StorageView.of(ctx)
    zoned = {name: t for name, pv in view.volumes.items() if (t := pv_topologies(pv))}
    if not zoned:
        return []
    out: list[Violation] = []
    for step, pod in plugin_binds(ctx, "VolumeZone"):
        node = step.state.nodes.get(step.node or "")
        if node is None:
            continue
        for v in pod_claims(pod):
            name = view.input_volume(v.claim)
            if v.ephemeral or name not in zoned:
                continue
            bad = mismatch(zoned[name], node.labels)
            if bad is not None:
                key, values = bad
                out.append(Violation(NAME, pod.key, node.name, (
                    f"attempt {step.index} bound {pod.key} to {node.name}, but volume "
                    f"{v.volume} uses claim {v.claim}, bound to PersistentVolume {name} "
                    f"labelled {key}={MULTI_ZONE_DELIMITER.join(sorted(values))}, and the "
                    f"node's labels {dict(sorted(node.labels.items()))} do not match it")))
                break
    return out
