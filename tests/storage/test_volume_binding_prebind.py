"""VolumeBinding's Reserve, Unreserve and PreBind through the plugin (volume_binding.go,
binder.go AssumePodVolumes / RevertAssumedPodVolumes / BindPodVolumes): what the caches serve
after Reserve, what PreBind writes and reports through ``handle.storage_changed``, the
simulated PV controller completing it (reference_impl/storage/pv_controller.py), and
BindPodVolumes' errors (an API conflict, a claim the controllers cannot complete)."""

from __future__ import annotations

import dataclasses

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Node, Pod
from reference_impl.model.storage import (
    ANN_BIND_COMPLETED,
    ANN_SELECTED_NODE,
    PV_AVAILABLE,
    PV_BOUND,
    PVC_BOUND,
    StorageObjects,
)
from reference_impl.plugins.volumebinding import VolumeBinding
from reference_impl.storage.pv_helpers import NOT_SUPPORTED_PROVISIONER
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod
from reference_impl.testing.storage import (
    load_storage,
    make_pv,
    make_pvc,
    make_storage_class,
)

N1 = "n1"


def setup(*objects: object) -> tuple[VolumeBinding, FakeHandle, StorageObjects, Node]:
    storage = load_storage(
        make_storage_class("local", NOT_SUPPORTED_PROVISIONER).wait_for_first_consumer(),
        make_storage_class("fast", "csi.example.com").wait_for_first_consumer(), *objects)
    n1 = make_node(N1).hostname().obj()
    handle = FakeHandle(nodes=[n1], storage=storage)
    return VolumeBinding(None, handle), handle, storage, n1


def local_pv(name: str = "pv-1") -> object:
    return make_pv(name).capacity("10Gi").storage_class("local").access_modes(
        "ReadWriteOnce").phase(PV_AVAILABLE).host_path("/mnt").node_affinity_in(
        "kubernetes.io/hostname", N1)


def claim(name: str, sc: str) -> object:
    return make_pvc(name).uid(f"uid-{name}").storage_class(sc).access_modes(
        "ReadWriteOnce").request("1Gi")


def pod(*claims: str) -> Pod:
    w = make_pod("p")
    for c in claims:
        w.pvc(c)
    return w.obj()


def cycle(pl: VolumeBinding, p: Pod, n: Node) -> CycleState:
    """PreFilter, Filter on the node and Reserve, all successful."""
    state = CycleState()
    assert pl.pre_filter(state, p, [])[1] is None
    assert pl.filter(state, p, NodeInfo(n)) is None
    assert pl.reserve(state, p, n.name) is None
    return state


def test_reserve_assumes_and_unreserve_reverts() -> None:
    pl, handle, storage, n1 = setup(local_pv(), claim("a", "local"))
    p = pod("a")
    state = cycle(pl, p, n1)
    assumed = pl.binder.pv_cache.get("pv-1")
    assert assumed.claim_ref is not None and assumed.claim_ref.name == "a"
    assert storage.volumes["pv-1"].claim_ref is None  # nothing written yet
    assert pl.pre_bind_pre_flight(state, p, N1) is None
    # a second pod's cycle sees the PV taken (pre-bound to claim a)
    other = pod("b")
    storage.claims["default/b"] = load_storage(claim("b", "local")).claims["default/b"]
    s2 = CycleState()
    assert pl.pre_filter(s2, other, [])[1] is None
    status = pl.filter(s2, other, NodeInfo(n1))
    assert status is not None and "didn't find available persistent volumes" in status.message()
    pl.unreserve(state, p, N1)
    assert pl.binder.pv_cache.get("pv-1") is storage.volumes["pv-1"]
    assert not handle.storage_changes


def test_pre_bind_writes_the_binding_and_the_controller_completes_it() -> None:
    pl, handle, storage, n1 = setup(local_pv(), claim("a", "local"))
    p = pod("a")
    state = cycle(pl, p, n1)
    assert pl.pre_bind(state, p, N1) is None
    pv, pvc = storage.volumes["pv-1"], storage.claims["default/a"]
    assert pv.claim_ref is not None and pv.claim_ref.uid == "uid-a" and pv.phase == PV_BOUND
    assert pvc.volume_name == "pv-1" and pvc.phase == PVC_BOUND
    assert ANN_BIND_COMPLETED in pvc.annotations
    changes = [(kind, old is None) for kind, old, _ in handle.storage_changes]
    # the scheduler's PV write first, then the PV controller's (PV phase, claim, claim phase)
    assert changes[0] == ("PersistentVolume", False)
    first_new = handle.storage_changes[0][2]
    assert first_new.claim_ref.name == "a" and first_new.phase == PV_AVAILABLE
    assert {k for k, _ in changes} == {"PersistentVolume", "PersistentVolumeClaim"}
    # the next cycle of the same pod finds everything bound
    s2 = CycleState()
    assert pl.pre_filter(s2, p, [])[1] is None
    assert pl.filter(s2, p, NodeInfo(n1)) is None
    assert pl.reserve(s2, p, N1) is None
    assert pl.pre_bind_pre_flight(s2, p, N1) is not None  # Skip: all bound


def test_pre_bind_provisions_a_wait_for_first_consumer_claim() -> None:
    pl, handle, storage, n1 = setup(claim("data", "fast"))
    p = pod("data")
    state = cycle(pl, p, n1)
    assert pl.binder.pvc_cache.get("default/data").annotations[ANN_SELECTED_NODE] == N1
    assert ANN_SELECTED_NODE not in storage.claims["default/data"].annotations
    assert pl.pre_bind(state, p, N1) is None
    pvc = storage.claims["default/data"]
    assert pvc.annotations[ANN_SELECTED_NODE] == N1
    assert pvc.phase == PVC_BOUND and pvc.volume_name == "pvc-uid-data"
    kind, old, new = handle.storage_changes[0]
    assert kind == "PersistentVolumeClaim" and old.annotations == {}
    assert new.annotations == {ANN_SELECTED_NODE: N1}
    assert any(k == "PersistentVolume" and o is None for k, o, _ in handle.storage_changes)


def test_pre_bind_conflict_is_an_error_and_restores_the_cache() -> None:
    """bindAPIUpdate: the PV changed in the API since it was assumed: the update conflicts
    (upstream's API error), and the assumed PV is restored."""
    pl, handle, storage, n1 = setup(local_pv(), claim("a", "local"))
    p = pod("a")
    state = cycle(pl, p, n1)
    old = storage.volumes["pv-1"]
    storage.volumes["pv-1"] = dataclasses.replace(old, resource_version=old.resource_version + 1)
    status = pl.pre_bind(state, p, N1)
    assert status is not None and status.error == (
        'Operation cannot be fulfilled on persistentvolumes "pv-1": the object has been '
        "modified; please apply your changes to the latest version and try again")
    assert pl.binder.pv_cache.get("pv-1") is storage.volumes["pv-1"]
    assert not handle.storage_changes


def test_pre_bind_times_out_when_nobody_completes_the_claim() -> None:
    """The class disappeared after Filter: nobody provisions for the claim, so checkBindings
    never sees it bound (upstream polls until bindTimeoutSeconds)."""
    pl, handle, storage, n1 = setup(claim("data", "fast"))
    p = pod("data")
    state = cycle(pl, p, n1)
    del storage.classes["fast"]
    status = pl.pre_bind(state, p, N1)
    assert status is not None and status.error == "binding volumes: context deadline exceeded"
    assert storage.claims["default/data"].annotations[ANN_SELECTED_NODE] == N1


def test_pre_bind_without_pod_volumes_for_the_node() -> None:
    pl, _, _, n1 = setup(claim("data", "fast"))
    p = pod("data")
    state = cycle(pl, p, n1)
    status = pl.pre_bind(state, p, "n2")
    assert status is not None and status.error == 'no pod volume found for node "n2"'


def test_pre_bind_of_a_volume_already_pre_bound_writes_nothing_new() -> None:
    """A PV pre-bound to the claim (claimRef with its UID, bound-by-controller) needs no
    update: the API treats the identical update as a no-op (no new version, no event); the PV
    controller then completes the binding."""
    pv = local_pv().claim_ref("default", "a", "uid-a").annotation(
        "pv.kubernetes.io/bound-by-controller", "yes")
    pl, handle, storage, n1 = setup(pv, claim("a", "local"))
    p = pod("a")
    state = cycle(pl, p, n1)
    before = storage.volumes["pv-1"]
    assert pl.pre_bind(state, p, N1) is None
    first_kind, first_old, first_new = handle.storage_changes[0]
    assert first_old is before and first_new.phase == PV_BOUND  # the controller's phase write
    assert storage.claims["default/a"].phase == PVC_BOUND
