"""Oracle ``provisioning``: a claim is provisioned (the scheduler sets its
``volume.kubernetes.io/selected-node``) only when its class waits for the first consumer, has a
provisioner, allows the node in its ``allowedTopologies`` and, when the provisioner's CSIDriver
has ``storageCapacity``, a CSIStorageCapacity of the class covering the node holds the size.

Upstream rule: ``pkg/scheduler/framework/plugins/volumebinding/binder.go``
(``FindPodVolumes``: only unbound claims of a WaitForFirstConsumer class are provisioned;
``checkVolumeProvisions``, ``hasEnoughCapacity``, ``capacitySufficient``, ``volumeLimit``,
``nodeHasAccess``) with ``MatchTopologySelectorTerms`` (pkg/apis/core/v1/helper/helpers.go).
The invariant and its exceptions: docs/oracles.md#provisioning."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from oracles.base import OracleContext, Violation
from oracles.replay import BOUND, Replay
from oracles.storage import (
    ANN_SELECTED_NODE,
    NO_PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    StorageView,
    pod_claims,
    selector_matches,
    storage_bytes,
    topology_terms_match,
)

NAME = "provisioning"


Binds = list[tuple[frozenset[str], str, dict[str, str]]]  # (claims, node, node labels)


def _binds(ctx: OracleContext) -> Binds:
    """Each bind: the claims of the pod, the node, the node's labels at that time."""
    out = []
    for step in Replay.of(ctx):
        if step.outcome == BOUND and step.pod is not None and step.node in step.state.nodes:
            out.append((frozenset(v.claim for v in pod_claims(step.pod)), step.node,
                        dict(step.state.nodes[step.node].labels)))
    return out


def _label_sets(ctx: OracleContext, binds: Binds, key: str, node: str) -> list[dict[str, str]]:
    """The labels ``node`` had when the scheduler may have chosen it for claim ``key``: in
    the initial cluster, and at each bind to it of a pod using the claim."""
    out = [dict(n.labels) for n in ctx.cluster.nodes if n.name == node]
    out += [labels for claims, where, labels in binds if where == node and key in claims]
    return out


def _capacity_covers(view: StorageView, class_name: str, size: int,
                     labels: Mapping[str, str]) -> bool:
    """``hasEnoughCapacity``: a CSIStorageCapacity of the class, whose ``nodeTopology``
    selects the node, with ``maximumVolumeSize`` (else ``capacity``) >= the size."""
    for cap in view.capacities:
        limit_raw: Any = cap.get("maximumVolumeSize")
        if limit_raw is None:
            limit_raw = cap.get("capacity")
        limit = storage_bytes(limit_raw)
        if (cap.get("storageClassName") == class_name and limit is not None and limit >= size
                and selector_matches(cap.get("nodeTopology"), labels)):
            return True
    return False


def _broken(view: StorageView, claim: Mapping[str, Any], class_name: str,
            labels: Mapping[str, str]) -> str | None:
    """Why upstream would not provision the claim on a node with ``labels`` (None: it
    may)."""
    sc = view.classes.get(class_name)
    if sc is None:
        return f"its class {class_name!r} does not exist"
    mode = sc.get("volumeBindingMode") or "Immediate"
    if mode != WAIT_FOR_FIRST_CONSUMER:
        return f"its class {class_name} binds {mode}, not {WAIT_FOR_FIRST_CONSUMER}"
    provisioner = str(sc.get("provisioner") or "")
    if provisioner in ("", NO_PROVISIONER):
        return f"its class {class_name} has no dynamic provisioner ({provisioner!r})"
    if not topology_terms_match(sc.get("allowedTopologies"), labels):
        return (f"the node's labels do not satisfy the allowedTopologies "
                f"{sc.get('allowedTopologies')} of class {class_name}")
    size = view.request(claim)
    driver = view.csi_drivers.get(provisioner)
    if size is not None and driver is not None and (driver.get("spec") or {}).get(
            "storageCapacity") is True and not _capacity_covers(view, class_name, size, labels):
        return (f"CSIDriver {provisioner} has storageCapacity, and no CSIStorageCapacity of "
                f"class {class_name} selecting the node has {size} bytes")
    return None


def check(ctx: OracleContext) -> list[Violation]:
    """Every claim the result reports with a ``selectedNode`` it did not have in the input was
    unbound in the input, and upstream's ``checkVolumeProvisions`` allows its class to
    provision it on that node (docs/oracles.md#provisioning)."""
    view = StorageView.of(ctx)
    out: list[Violation] = []
    binds: Binds | None = None
    for key, entry in sorted(view.results.items()):
        node = str(entry.get("selectedNode") or "")
        claim = view.claims.get(key)
        if not node or claim is None:
            continue
        given = ((claim.get("metadata") or {}).get("annotations") or {}).get(ANN_SELECTED_NODE)
        if given == node:
            continue
        if view.input_volume(key):
            why: str | None = f"it was bound to {view.input_volume(key)} already"
        else:
            class_name = view.class_of(claim)
            if class_name is None:
                continue  # several default classes: not judged
            if binds is None:
                binds = _binds(ctx)
            label_sets = _label_sets(ctx, binds, key, node)
            if not class_name:
                why = "it has no class (checkVolumeProvisions: no class for claim)"
            elif not label_sets:
                continue  # a node of the timeline only: not judged
            else:
                reasons = [_broken(view, claim, class_name, labels) for labels in label_sets]
                why = None if any(r is None for r in reasons) else reasons[0]
        if why is not None:
            out.append(Violation(NAME, None, node, (
                f"claim {key} was provisioned on {node} (selectedNode), but {why}")))
    return out
