"""Storage changes as cluster events (reference_impl/scheduler/queue/events.py
``storage_object_event``, the simulation's storage handlers; pkg/scheduler/eventhandlers.go
``buildEvtResHandler``): a write reported through ``handle.storage_changed`` (a PreBind's, the
PV controller's) moves the unschedulable pods a volume plugin's hint lets through, and is
recorded for the pods in flight."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.model.storage import PVC_BOUND
from reference_impl.scheduler.queue import events as ev
from reference_impl.scheduler.simulation import Simulation, TimelineResult, run_simulation
from reference_impl.testing.wrappers import make_pod
from tests.storage.ctl_helpers import CLAIM, cluster, scheduler


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
