"""VolumeBinding's queueing hints: upstream's tables of volume_binding_test.go
(pkg/scheduler/framework/plugins/volumebinding, k8s.io/kubernetes v1.37.2), each case under
upstream's name: TestIsSchedulableAfterCSINodeChange, TestIsSchedulableAfterStorageClassChange,
TestIsSchedulableAfterCSIStorageCapacityChange, TestIsSchedulableAfterCSIDriverChange
(TestIsSchedulableAfterPersistentVolumeClaimChange is in
tests/plugins/test_unmodelled_plugins.py). The API defaults a CSIDriver's nil
``storageCapacity`` to false, as the model holds it."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.model.objects import Pod
from reference_impl.model.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    StorageClass,
    TopologySelectorTerm,
)
from reference_impl.plugins.volumebinding import VolumeBinding
from reference_impl.plugins.volumebinding.migration import MIGRATED_PLUGINS_ANNOTATION
from reference_impl.testing.pods import make_pod

QUEUE, QUEUE_SKIP = "Queue", "QueueSkip"


class Unexpected:
    """``new(struct{})``: an object of no API type."""


def pod_a(csi_driver: str | None = None) -> Pod:
    """``makePod("pod-a")``, with ``withCSI(driver)`` when given."""
    w = make_pod("pod-a")
    if csi_driver is not None:
        w.inline_volume("csi", "csi", {"driver": csi_driver})
    return w.obj()


def csi_node(migrated: str | None) -> CSINode:
    annotations = () if migrated is None else ((MIGRATED_PLUGINS_ANNOTATION, migrated),)
    return CSINode("csinode-a", annotations=annotations)


@pytest.mark.parametrize("name,old,new,err,want", [
    ("unexpected objects are passed", Unexpected(), Unexpected(), True, QUEUE),
    ("CSINode is newly created", None, csi_node(None), False, QUEUE),
    ("CSINode's migrated-plugins annotations is added", csi_node("test1"),
     csi_node("test1, test2"), False, QUEUE),
    ("CSINode's migrated-plugins annotation is updated", csi_node("test1"), csi_node("test2"),
     False, QUEUE),
    ("CSINode is updated but migrated-plugins annotation gets unchanged", csi_node("test1"),
     csi_node("test1"), False, QUEUE_SKIP),
])
def test_is_schedulable_after_csi_node_change(name: str, old: Any, new: Any, err: bool,
                                              want: str) -> None:
    """TestIsSchedulableAfterCSINodeChange."""
    hint, error = VolumeBinding(None, None).is_schedulable_after_csi_node_change(
        pod_a(), old, new)
    assert hint == want and (error is not None) is err


SC = StorageClass("sc-a", "p")
SC_TOPOLOGY = StorageClass("sc-a", "p", allowed_topologies=(
    TopologySelectorTerm((("kubernetes.io/hostname", ("node-a",)),)),))


@pytest.mark.parametrize("name,old,new,err,want", [
    ("When a new StorageClass is created, it returns Queue", None, SC, False, QUEUE),
    ("When the AllowedTopologies are changed, it returns Queue", SC, SC_TOPOLOGY, False,
     QUEUE),
    ("When there are no changes to the StorageClass, it returns QueueSkip", SC, SC, False,
     QUEUE_SKIP),
    ("type conversion error", Unexpected(), Unexpected(), True, QUEUE),
])
def test_is_schedulable_after_storage_class_change(name: str, old: Any, new: Any, err: bool,
                                                   want: str) -> None:
    """TestIsSchedulableAfterStorageClassChange."""
    hint, error = VolumeBinding(None, None).is_schedulable_after_storage_class_change(
        pod_a(), old, new)
    assert hint == want and (error is not None) is err


def cap(capacity: int | None = None, maximum: int | None = None) -> CSIStorageCapacity:
    return CSIStorageCapacity("", "cap-a", "", capacity=capacity, maximum_volume_size=maximum)


@pytest.mark.parametrize("name,old,new,err,want", [
    ("When a new CSIStorageCapacity is created, it returns Queue", None, cap(), False, QUEUE),
    ("When the volume limit is increase(Capacity set), it returns Queue", cap(), cap(100),
     False, QUEUE),
    ("When the volume limit is increase(MaximumVolumeSize set), it returns Queue", cap(),
     cap(maximum=100), False, QUEUE),
    ("When the volume limit is increase(Capacity increase), it returns Queue", cap(50),
     cap(100), False, QUEUE),
    ("When the volume limit is increase(MaximumVolumeSize unset), it returns Queue",
     cap(100, 50), cap(100), False, QUEUE),
    ("When the volume limit is increase(MaximumVolumeSize increase), it returns Queue",
     cap(100, 50), cap(100, 60), False, QUEUE),
    ("When there are no changes to the CSIStorageCapacity, it returns QueueSkip",
     cap(100, 50), cap(100, 50), False, QUEUE_SKIP),
    ("When the volume limit is equal(Capacity), it returns QueueSkip", cap(100), cap(100),
     False, QUEUE_SKIP),
    ("When the volume limit is equal(MaximumVolumeSize unset), it returns QueueSkip",
     cap(100, 50), cap(50), False, QUEUE_SKIP),
    ("When the volume limit is decrease(Capacity), it returns QueueSkip", cap(100), cap(90),
     False, QUEUE_SKIP),
    ("When the volume limit is decrease(MaximumVolumeSize), it returns QueueSkip",
     cap(maximum=100), cap(maximum=90), False, QUEUE_SKIP),
    ("type conversion error", Unexpected(), Unexpected(), True, QUEUE),
])
def test_is_schedulable_after_csi_storage_capacity_change(name: str, old: Any, new: Any,
                                                          err: bool, want: str) -> None:
    """TestIsSchedulableAfterCSIStorageCapacityChange."""
    hint, error = VolumeBinding(None, None).is_schedulable_after_csi_storage_capacity_change(
        pod_a(), old, new)
    assert hint == want and (error is not None) is err


def driver(name: str, capacity: bool) -> CSIDriver:
    return CSIDriver(name, storage_capacity=capacity)


@pytest.mark.parametrize("name,pod_driver,old,new,err,want", [
    ("pod has no CSIDriver", None, driver("test1", False), driver("test1", True), False,
     QUEUE_SKIP),
    ("unexpected objects are passed", None, Unexpected(), Unexpected(), True, QUEUE),
    ("driver name in pod and csidriver name are different", "test1", driver("test2", True),
     driver("test2", False), False, QUEUE_SKIP),
    ("original StorageCapacity is nil", "test1", driver("test1", False),
     driver("test1", False), False, QUEUE_SKIP),
    ("original StorageCapacity is false", "test1", driver("test1", False),
     driver("test1", False), False, QUEUE_SKIP),
    ("modified StorageCapacity is nil", "test1", driver("test1", True), driver("test1", False),
     False, QUEUE),
    ("modified StorageCapacity is true", "test1", driver("test1", True), driver("test1", True),
     False, QUEUE_SKIP),
    ("modified StorageCapacity is false", "test1", driver("test1", True),
     driver("test1", False), False, QUEUE),
])
def test_is_schedulable_after_csi_driver_change(name: str, pod_driver: str | None, old: Any,
                                                new: Any, err: bool, want: str) -> None:
    """TestIsSchedulableAfterCSIDriverChange."""
    hint, error = VolumeBinding(None, None).is_schedulable_after_csi_driver_change(
        pod_a(pod_driver), old, new)
    assert hint == want and (error is not None) is err
