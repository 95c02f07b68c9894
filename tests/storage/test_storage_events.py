"""Storage changes as cluster events (reference_impl/scheduler/queue/events.py
``storage_object_event``, the simulation's storage handlers; pkg/scheduler/eventhandlers.go
``buildEvtResHandler``): a write reported through ``handle.storage_changed`` (a PreBind's, the
PV controller's) moves the unschedulable pods a volume plugin's hint lets through, and is
recorded for the pods in flight."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from reference_impl.config import load_config
from reference_impl.framework import interfaces as itf
from reference_impl.framework.status import Code, Status
from reference_impl.model.objects import Cluster, Pod
from reference_impl.model.storage import (
    ANN_SELECTED_NODE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    PVC_BOUND,
    READ_WRITE_ONCE,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
)
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.scheduler.queue import events as ev
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import Simulation, TimelineResult, run_simulation
from reference_impl.storage.pv_controller import complete_pod_volumes
from reference_impl.testing.wrappers import make_node, make_pod

CLAIM = "default/data"
NODE = {"cpu": "4", "memory": "32Gi", "pods": 110}


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
        claim = self._storage().claims[CLAIM]
        if "wants" in pod.labels and claim.phase != PVC_BOUND:
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
    storage = StorageObjects()
    storage.classes["fast"] = StorageClass("fast", "csi.example.com",
                                           volume_binding_mode=BINDING_WAIT_FOR_FIRST_CONSUMER)
    storage.claims[CLAIM] = PersistentVolumeClaim(
        "default", "data", uid="u1", storage_class_name="fast",
        access_modes=(READ_WRITE_ONCE,), request=1 << 30)
    return Cluster(nodes=[make_node("n1").hostname().capacity(NODE).obj()], pods=list(pods),
                   storage=storage)


def scheduler(c: Cluster) -> Scheduler:
    ClaimGate.failed = set()
    registry = in_tree_registry()
    registry[ClaimGate.name] = ClaimGate
    config = load_config({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler",
                      "plugins": {"multiPoint": {"enabled": [{"name": ClaimGate.name}]}}}],
    }, registry)
    return Scheduler(c, config, registry)


def rows(res: TimelineResult) -> list[tuple[str, float, str, str, str | None]]:
    return [(a.pod, i.time, i.event, a.outcome, a.node)
            for a, i in zip(res.attempts, res.attempt_info, strict=True)]


@pytest.mark.parametrize(("resource", "old", "new", "label"), [
    ("PersistentVolume", None, 1, "PersistentVolumeAdd"),
    ("PersistentVolumeClaim", 1, 2, "PersistentVolumeClaimUpdate"),
    ("StorageClass", 1, None, "storage.k8s.io/StorageClassDelete"),
    ("CSINode", 1, 2, "storage.k8s.io/CSINodeUpdate"),
    ("storage.k8s.io/CSIStorageCapacity", None, 1, "storage.k8s.io/CSIStorageCapacityAdd"),
    ("CSIDriver", 1, 2, "storage.k8s.io/CSIDriverUpdate"),
    ("VolumeAttachment", 1, None, "storage.k8s.io/VolumeAttachmentDelete"),
])
def test_storage_object_event(resource: str, old: Any, new: Any, label: str) -> None:
    assert ev.storage_object_event(resource, old, new).label() == label


def test_storage_object_event_rejects_other_resources() -> None:
    with pytest.raises(ValueError, match="not a storage resource"):
        ev.storage_object_event("Pod", None, 1)


def test_claim_bound_by_a_prebind_moves_the_waiting_pod() -> None:
    """The consumer (higher priority) is tried first and waits for the claim; the provider's
    PreBind binds it: the PV controller's claim update moves the consumer to backoffQ, from
    which it is popped at once (SchedulerPopFromBackoffQ: activeQ is empty) and binds."""
    c = cluster(make_pod("consumer").label("wants", "1").priority(10).obj(),
                make_pod("provider").label("provides", "1").obj())
    res = run_simulation(scheduler(c))
    assert rows(res) == [
        ("default/consumer", 0.0, "UnscheduledPodAdd", "Unschedulable", None),
        ("default/provider", 0.0, "UnscheduledPodAdd", "Bound", "n1"),
        ("default/consumer", 0.0, "PersistentVolumeClaimUpdate", "Bound", "n1"),
    ]
    claim = c.storage.claims[CLAIM]
    assert claim.phase == PVC_BOUND and claim.volume_name == "pvc-u1"
    assert c.storage.volumes["pvc-u1"].claim_ref is not None


def test_without_the_listener_the_waiting_pod_waits_for_the_flush() -> None:
    """The same cluster with nobody hearing of storage changes: the consumer stays in the
    unschedulable pool until the leftover flush after 5 minutes (what the wiring is for)."""
    c = cluster(make_pod("consumer").label("wants", "1").priority(10).obj(),
                make_pod("provider").label("provides", "1").obj())
    s = scheduler(c)
    sim = Simulation(s)
    s.storage_listener = None
    assert rows(sim.run())[-1] == ("default/consumer", 330.0, "UnschedulableTimeout", "Bound",
                                   "n1")


def test_event_during_the_pods_own_prebind_is_in_flight() -> None:
    """The provider's PreBind binds the claim and then rejects the pod: the claim update
    happened while the pod was in flight, so its hint says Queue and the pod goes to backoffQ
    (popped again at once) instead of the unschedulable pool."""
    c = cluster(make_pod("provider").label("provides-then-fails", "1").obj())
    res = run_simulation(scheduler(c))
    assert rows(res) == [
        ("default/provider", 0.0, "UnscheduledPodAdd", "Unschedulable", None),
        ("default/provider", 0.0, "PersistentVolumeClaimUpdate", "Bound", "n1"),
    ]
    assert "rejected once at PreBind" in res.attempts[0].message


def test_the_trace_shows_the_storage_moves() -> None:
    c = cluster(make_pod("consumer").label("wants", "1").priority(10).obj(),
                make_pod("provider").label("provides", "1").obj())
    res = run_simulation(scheduler(c), trace=True)
    assert res.trace is not None
    moves = [t for t in res.trace if t.get("pod") == "default/consumer"
             and t.get("event") == "PersistentVolumeClaimUpdate"]
    assert moves, res.trace
