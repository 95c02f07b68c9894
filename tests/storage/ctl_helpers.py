"""A plugin and a cluster for the storage wiring and results tests: ``ClaimGate`` stands in
for VolumeBinding (its PreBind selects the node for a claim and has the simulated PV controller
complete it, reporting every write through ``handle.storage_changed``)."""

from __future__ import annotations

import dataclasses
from typing import Any

from reference_impl.config import load_config
from reference_impl.framework import interfaces as itf
from reference_impl.framework.status import Code, Status
from reference_impl.model.objects import Cluster, Pod
from reference_impl.model.storage import (
    ANN_SELECTED_NODE,
    PVC_BOUND,
    READ_WRITE_ONCE,
    PersistentVolumeClaim,
    StorageObjects,
)
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.scheduler.queue import events as ev
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.storage.pv_controller import complete_pod_volumes
from reference_impl.testing.storage import load_storage, make_pvc, make_storage_class
from reference_impl.testing.wrappers import make_node

CLAIM = "default/data"
NODE = {"cpu": "4", "memory": "32Gi", "pods": 110}
#: the default profile's volume plugins, which do not model claims yet on this branch
VOLUME_PLUGINS = ("VolumeRestrictions", "NodeVolumeLimits", "VolumeZone", "VolumeBinding")


class ClaimGate(itf.PreFilterPlugin, itf.FilterPlugin, itf.PreBindPlugin,
                itf.EnqueueExtensions):
    """A pod labelled ``wants`` fits only once the claim is Bound. A pod labelled ``provides``
    selects its node for the claim at PreBind and has the PV controller complete it (as
    VolumeBinding's BindPodVolumes does); labelled ``provides-then-fails`` too, but the first
    time its PreBind then rejects it. The hint: Queue for an update that bound the claim."""

    name = "ClaimGate"
    failed: set[str] = set()

    def pre_filter(self, state: Any, pod: Pod, nodes: Any) -> tuple[None, None]:
        return None, None

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        claim = self._storage().claims.get(CLAIM)
        if "wants" in pod.labels and (claim is None or claim.phase != PVC_BOUND):
            return Status(Code.UNSCHEDULABLE, "claim not bound")
        return None

    def pre_bind(self, state: Any, pod: Pod, node_name: str) -> Status | None:
        if "provides" not in pod.labels and "provides-then-fails" not in pod.labels:
            return None
        assert self.handle is not None
        storage = self._storage()
        old = storage.claims[CLAIM]
        if old.phase != PVC_BOUND:
            new = dataclasses.replace(old, annotations={**old.annotations,
                                                        ANN_SELECTED_NODE: node_name})
            storage.claims[CLAIM] = new
            self.handle.storage_changed("PersistentVolumeClaim", old, new)
            node = self.handle.snapshot().get(node_name)
            assert node is not None
            complete_pod_volumes(storage, node.node, [new], self.handle.storage_changed)
        if "provides-then-fails" in pod.labels and pod.uid not in self.failed:
            self.failed.add(pod.uid)
            return Status(Code.UNSCHEDULABLE, "rejected once at PreBind")
        return None

    def events_to_register(self) -> list:
        return [("PersistentVolumeClaim", ("Update",), "claim_bound")]

    def claim_bound(self, pod: Pod, old: Any, new: Any) -> tuple[str, None]:
        bound = (isinstance(new, PersistentVolumeClaim) and new.key == CLAIM
                 and new.phase == PVC_BOUND and getattr(old, "phase", None) != PVC_BOUND)
        return (ev.QUEUE if bound else ev.QUEUE_SKIP), None

    def _storage(self) -> StorageObjects:
        assert self.handle is not None
        return self.handle.storage_objects()


def cluster(*pods: Pod) -> Cluster:
    """One node ``n1``; the WaitForFirstConsumer class ``fast`` and the unbound claim
    ``default/data`` (UID ``u1``) of it."""
    storage = load_storage(
        make_storage_class("fast", "csi.example.com").wait_for_first_consumer(),
        make_pvc("data").uid("u1").storage_class("fast").access_modes(READ_WRITE_ONCE)
        .request("1Gi"))
    return Cluster(nodes=[make_node("n1").hostname().capacity(NODE).obj()], pods=list(pods),
                   storage=storage)


def scheduler(c: Cluster, *, without_volume_plugins: bool = False) -> Scheduler:
    """The default profile plus ClaimGate (and without the volume plugins when asked)."""
    ClaimGate.failed = set()
    registry = in_tree_registry()
    registry[ClaimGate.name] = ClaimGate
    disabled = [{"name": n} for n in VOLUME_PLUGINS] if without_volume_plugins else []
    config = load_config({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler",
                      "plugins": {"multiPoint": {"enabled": [{"name": ClaimGate.name}],
                                                 "disabled": disabled}}}],
    }, registry)
    return Scheduler(c, config, registry)
