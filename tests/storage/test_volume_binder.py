"""VolumeBinding's binder and scorer: upstream's matching-rule tables of binder_test.go and
scorer_test.go (pkg/scheduler/framework/plugins/volumebinding of k8s.io/kubernetes v1.37.2),
each case under upstream's name: TestFindPodVolumesWithoutProvisioning and
TestFindPodVolumesWithProvisioning (each under the three CSIDriver variants),
TestFindPodVolumesWithCSIMigration, TestAssumePodVolumes, TestRevertAssumedPodVolumes,
TestFindAssumeVolumes, TestCapacity (both opt-ins), TestScore.

Not restated: TestBindAPIUpdate, TestCheckBindings, TestCheckBindingsWithCSIMigration and
TestBindPodVolumes, which drive API errors injected in a fake clientset, informer delays and
the bind timeout (the simulation's writes are immediate and cannot fail; PreBind is tested end
to end in test_volume_binding_e2e.py). In TestFindPodVolumesWithCSIMigration, the cases where
the PV is translated ("pvc-bound", "pvc-bound,node-different-zone") are refused (the CSI
translation is not modelled).
"""

from __future__ import annotations

import dataclasses

import pytest

from reference_impl.framework.testing import FakeHandle
from reference_impl.model.objects import Node, Pod
from reference_impl.model.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    PV_AVAILABLE,
    VOLUME_MODE_FILESYSTEM,
    CSIStorageCapacity,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageObjects,
)
from reference_impl.plugins.helper.shape_score import FunctionShapePoint
from reference_impl.plugins.volumebinding.assume_cache import BinderError
from reference_impl.plugins.volumebinding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    BindingInfo,
    DynamicProvision,
    PodVolumes,
    StorageResource,
    VolumeBinder,
)
from reference_impl.plugins.volumebinding.scorer import build_scorer_function
from reference_impl.storage.pv_helpers import NOT_SUPPORTED_PROVISIONER
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod
from reference_impl.testing.storage import (
    load_storage,
    make_csi_driver,
    make_csi_node,
    make_csi_storage_capacity,
    make_pv,
    make_pvc,
    make_storage_class,
)

PROVISIONER = "test-provisioner"
NODE_LABEL_KEY, NODE_LABEL_VALUE = "nodeKey", "node1"
WAIT, IMMEDIATE = "waitClass", "immediateClass"
WAIT_PROV, TOPO_MISMATCH = "waitClassWithProvisioner", "topoMismatchClass"
NS, PVC_UID, POD_UID = "testns", "pvc-uid", "pod-uid"
UNBOUND, PREBOUND, BOUND, SELECTED_NODE = "unbound", "prebound", "bound", "selected-node"


def make_test_pvc(name: str, size: str, state: str, pv_name: str = "", version: int = 1,
                  cls: str = WAIT, node: str = "") -> PersistentVolumeClaim:
    """``makeTestPVC``."""
    w = make_pvc(name, NS).uid(PVC_UID).request(size).storage_class(cls).volume_mode(
        VOLUME_MODE_FILESYSTEM)
    if state == SELECTED_NODE:
        w.annotation(ANN_SELECTED_NODE, node)
    if state == BOUND:
        w.annotation(ANN_BIND_COMPLETED, "yes")
    if state in (BOUND, PREBOUND):
        w.volume_name(pv_name)
    return dataclasses.replace(w.obj(), resource_version=version)


def make_test_pv(name: str, node: str, size: str, version: int,
                 bound_to: PersistentVolumeClaim | None, cls: str) -> PersistentVolume:
    """``makeTestPV``."""
    w = make_pv(name).capacity(size).storage_class(cls).volume_mode(
        VOLUME_MODE_FILESYSTEM).phase(PV_AVAILABLE)
    if node:
        w.node_affinity_in(NODE_LABEL_KEY, node)
    if bound_to is not None:
        w.claim_ref(bound_to.namespace, bound_to.name, bound_to.uid)
        w.annotation(ANN_BOUND_BY_CONTROLLER, "yes")
    return dataclasses.replace(w.obj(), resource_version=version)


unbound_pvc = make_test_pvc("unbound-pvc", "1G", UNBOUND)
unbound_pvc2 = make_test_pvc("unbound-pvc2", "5G", UNBOUND)
prebound_pvc = make_test_pvc("prebound-pvc", "1G", PREBOUND, "pv-node1a")
bound_pvc = make_test_pvc("bound-pvc", "1G", BOUND, "pv-bound")
immediate_unbound_pvc = make_test_pvc("immediate-unbound-pvc", "1G", UNBOUND, cls=IMMEDIATE)
immediate_bound_pvc = make_test_pvc("immediate-bound-pvc", "1G", BOUND, "pv-bound-immediate",
                                    cls=IMMEDIATE)
provisioned_pvc = make_test_pvc("provisioned-pvc", "1Gi", UNBOUND, cls=WAIT_PROV)
provisioned_pvc2 = make_test_pvc("provisioned-pvc2", "1Gi", UNBOUND, cls=WAIT_PROV)
provisioned_pvc_higher_version = make_test_pvc("provisioned-pvc2", "1Gi", UNBOUND, version=2,
                                               cls=WAIT_PROV)
no_provisioner_pvc = make_test_pvc("no-provisioner-pvc", "1Gi", UNBOUND)
topo_mismatch_pvc = make_test_pvc("topo-mismatch-pvc", "1Gi", UNBOUND, cls=TOPO_MISMATCH)
selected_node_pvc = make_test_pvc("provisioned-pvc", "1Gi", SELECTED_NODE, cls=WAIT_PROV,
                                  node=NODE_LABEL_VALUE)
bound_migration_pvc = make_test_pvc("pvc-migration-bound", "1G", BOUND, "pv-migration-bound")


def generic_pvc(owned: bool) -> PersistentVolumeClaim:
    """``makeGenericEphemeralPVC("test-volume", owned)``."""
    w = make_pvc("test-pod-test-volume", NS).uid(PVC_UID).request("1G").storage_class(
        IMMEDIATE).annotation(ANN_BIND_COMPLETED, "yes").volume_name("pv-bound")
    if owned:
        w.owner_pod("test-pod", POD_UID)
    return dataclasses.replace(w.obj(), resource_version=1)


conflicting_generic_pvc, correct_generic_pvc = generic_pvc(False), generic_pvc(True)
pv_bound_generic = make_test_pv("pv-bound", "node1", "1G", 1, correct_generic_pvc, WAIT)
pv_node1a = make_test_pv("pv-node1a", "node1", "5G", 1, None, WAIT)
pv_node1b = make_test_pv("pv-node1b", "node1", "10G", 1, None, WAIT)
pv_node1c = make_test_pv("pv-node1b", "node1", "5G", 1, None, WAIT)
pv_node2 = make_test_pv("pv-node2", "node2", "1G", 1, None, WAIT)
pv_bound = make_test_pv("pv-bound", "node1", "1G", 1, bound_pvc, WAIT)
pv_node1a_bound = make_test_pv("pv-node1a", "node1", "5G", 1, unbound_pvc, WAIT)
pv_node1b_bound = make_test_pv("pv-node1b", "node1", "10G", 1, unbound_pvc2, WAIT)
pv_bound_immediate = make_test_pv("pv-bound-immediate", "node1", "1G", 1, immediate_bound_pvc,
                                  IMMEDIATE)
pv_bound_immediate_node2 = make_test_pv("pv-bound-immediate", "node2", "1G", 1,
                                        immediate_bound_pvc, IMMEDIATE)


def migration_pv(pvc: PersistentVolumeClaim, migration: bool) -> PersistentVolume:
    """``makeTestPVForCSIMigration(zone1Labels, pvc, migration)``: no node affinity, a GCE PD
    (migratable) or an RBD source."""
    w = make_pv("pv-migration-bound").capacity("1G").storage_class(WAIT).phase(
        PV_AVAILABLE).claim_ref(pvc.namespace, pvc.name, pvc.uid).annotation(
        ANN_BOUND_BY_CONTROLLER, "yes").label(
        "failure-domain.beta.kubernetes.io/zone", "us-east-1").label(
        "failure-domain.beta.kubernetes.io/region", "us-east-1a")
    if migration:
        w.source("gcePersistentDisk", {"pdName": "test-disk", "fsType": "ext4"})
    else:
        w.source("rbd", {"image": "test-disk", "monitors": ["m"]})
    return dataclasses.replace(w.obj(), resource_version=1)


def node(name: str, **labels: str) -> Node:
    w = make_node(name).hostname()
    for k, v in labels.items():
        w.label(k, v)
    return w.obj()


node1 = node("node1", nodeKey="node1")
node2 = node("node2", nodeKey="node2")


def storage_env(*objects: object) -> StorageObjects:
    """``newTestBinder``'s classes, and ``objects`` (manifests)."""
    return load_storage(
        make_storage_class(WAIT_PROV, PROVISIONER).wait_for_first_consumer().allowed_topology(
            NODE_LABEL_KEY, NODE_LABEL_VALUE, "reference-value"),
        make_storage_class(IMMEDIATE, NOT_SUPPORTED_PROVISIONER),
        make_storage_class(WAIT, NOT_SUPPORTED_PROVISIONER).wait_for_first_consumer(),
        make_storage_class(TOPO_MISMATCH, PROVISIONER).wait_for_first_consumer()
        .allowed_topology(NODE_LABEL_KEY, "reference-value"),
        *objects)


def binder(storage: StorageObjects, pvs: list[PersistentVolume],
           pvcs: list[PersistentVolumeClaim], nodes: list[Node] = ()) -> VolumeBinder:
    """``initVolumes`` and ``initClaims``: the informers' objects."""
    for v in pvs:
        storage.volumes[v.name] = v
    for c in pvcs:
        storage.claims[c.key] = c
    return VolumeBinder(FakeHandle(nodes=list(nodes) or [node1], storage=storage))


def pod_with(pvcs: list[PersistentVolumeClaim]) -> Pod:
    """``makePod("test-pod").withNamespace("testns").withNodeName("node1")
    .withPVCSVolume(pvcs)``."""
    w = make_pod("test-pod").namespace(NS).uid(POD_UID).node("node1")
    for i, c in enumerate(pvcs):
        w.pvc(c.name, f"vol{i}")
    return w.obj()


def find_pod_volumes(b: VolumeBinder, pod: Pod, n: Node) -> tuple[PodVolumes, list[str]]:
    """The test's ``findPodVolumes``: GetPodVolumeClaims, unbound immediate claims as an
    error, FindPodVolumes."""
    claims = b.get_pod_volume_claims(pod)
    if claims.unbound_claims_immediate:
        raise BinderError("pod has unbound immediate PersistentVolumeClaims")
    return b.find_pod_volumes(pod, claims, n)


def bindings_of(pv: PodVolumes) -> list[tuple[str, str]]:
    return [(b.pvc.name, b.pv.name) for b in pv.static_bindings or []]


def provisions_of(pv: PodVolumes) -> list[tuple[str, str | None]]:
    return [(p.pvc.name, p.node_capacity.name if p.node_capacity else None)
            for p in pv.dynamic_provisions or []]


# --- TestFindPodVolumesWithoutProvisioning -------------------------------------------------

EPHEMERAL_POD = make_pod("test-pod").namespace(NS).uid(POD_UID).node("node1")
WITHOUT_PROVISIONING = {
    # name: (pvs, pod PVCs, cache PVCs or None, pod or None, bindings, reasons, should fail)
    "no-volumes": ([], [], None, make_pod("test-pod").namespace(NS).node("node1").obj(),
                   [], [], False),
    "no-pvcs": ([], [], None, make_pod("test-pod").namespace(NS).node("node1").volume(
        {"name": "e", "emptyDir": {}}).obj(), [], [], False),
    "pvc-not-found": ([], [bound_pvc], [], None, [], [], True),
    "bound-pvc": ([pv_bound], [bound_pvc], None, None, [], [], False),
    "bound-pvc,pv-not-exists": ([], [bound_pvc], None, None, [], [ERR_REASON_PV_NOT_EXIST],
                                False),
    "prebound-pvc": ([pv_node1a_bound], [prebound_pvc], None, None, [], [], True),
    "unbound-pvc,pv-same-node": ([pv_node2, pv_node1a, pv_node1b], [unbound_pvc], None, None,
                                 [("unbound-pvc", "pv-node1a")], [], False),
    "unbound-pvc,pv-different-node": ([pv_node2], [unbound_pvc], None, None, [],
                                      [ERR_REASON_BIND_CONFLICT], False),
    "two-unbound-pvcs": ([pv_node1a, pv_node1b], [unbound_pvc, unbound_pvc2], None, None,
                         [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")], [],
                         False),
    "two-unbound-pvcs,order-by-size": (
        [pv_node1a, pv_node1b], [unbound_pvc2, unbound_pvc], None, None,
        [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")], [], False),
    "two-unbound-pvcs,partial-match": ([pv_node1a], [unbound_pvc, unbound_pvc2], None, None,
                                       [("unbound-pvc", "pv-node1a")],
                                       [ERR_REASON_BIND_CONFLICT], False),
    "one-bound,one-unbound": ([pv_bound, pv_node1a], [unbound_pvc, bound_pvc], None, None,
                              [("unbound-pvc", "pv-node1a")], [], False),
    "one-bound,one-unbound,no-match": ([pv_bound, pv_node2], [unbound_pvc, bound_pvc], None,
                                       None, [], [ERR_REASON_BIND_CONFLICT], False),
    "one-prebound,one-unbound": ([pv_node1a, pv_node1b], [unbound_pvc, prebound_pvc], None,
                                 None, [], [], True),
    "immediate-bound-pvc": ([pv_bound_immediate], [immediate_bound_pvc], None, None, [], [],
                            False),
    "immediate-bound-pvc-wrong-node": ([pv_bound_immediate_node2], [immediate_bound_pvc],
                                       None, None, [], [ERR_REASON_NODE_CONFLICT], False),
    "immediate-unbound-pvc": ([], [immediate_unbound_pvc], None, None, [], [], True),
    "immediate-unbound-pvc,delayed-mode-bound": ([pv_bound], [immediate_unbound_pvc, bound_pvc],
                                                 None, None, [], [], True),
    "immediate-unbound-pvc,delayed-mode-unbound": ([], [immediate_unbound_pvc, unbound_pvc],
                                                   None, None, [], [], True),
    "generic-ephemeral,no-pvc": (
        [], [], None, make_pod("test-pod").namespace(NS).uid(POD_UID).node("node1")
        .ephemeral_volume("no-such-pvc").obj(), [], [], True),
    "generic-ephemeral,with-pvc": (
        [pv_bound_generic], [], [correct_generic_pvc],
        make_pod("test-pod").namespace(NS).uid(POD_UID).node("node1")
        .ephemeral_volume("test-volume").obj(), [], [], False),
    "generic-ephemeral,wrong-pvc": (
        [pv_bound_generic], [], [conflicting_generic_pvc],
        make_pod("test-pod").namespace(NS).uid(POD_UID).node("node1")
        .ephemeral_volume("test-volume").obj(), [], [], True),
}
CSI_DRIVERS = {"no CSIDriver": None, "CSIDriver with capacity tracking": True,
               "CSIDriver without capacity tracking": False}


def _driver_env(capacity: bool | None) -> StorageObjects:
    if capacity is None:
        return storage_env()
    return storage_env(make_csi_driver(PROVISIONER).storage_capacity(capacity))


@pytest.mark.parametrize("driver", CSI_DRIVERS)
@pytest.mark.parametrize("name", WITHOUT_PROVISIONING)
def test_find_pod_volumes_without_provisioning(driver: str, name: str) -> None:
    """TestFindPodVolumesWithoutProvisioning."""
    pvs, pod_pvcs, cache_pvcs, pod, want_bindings, want_reasons, should_fail = (
        WITHOUT_PROVISIONING[name])
    b = binder(_driver_env(CSI_DRIVERS[driver]), pvs,
               pod_pvcs if cache_pvcs is None else cache_pvcs)
    pod = pod if pod is not None else pod_with(pod_pvcs)
    if should_fail:
        with pytest.raises(BinderError):
            find_pod_volumes(b, pod, node1)
        return
    pv, reasons = find_pod_volumes(b, pod, node1)
    assert sorted(reasons) == sorted(want_reasons)
    assert bindings_of(pv) == want_bindings


# --- TestFindPodVolumesWithProvisioning ----------------------------------------------------

WITH_PROVISIONING = {
    # name: (pvs, pod PVCs, bindings, provisions, reasons, should fail, needs capacity)
    "one-provisioned": ([], [provisioned_pvc], [], ["provisioned-pvc"], [], False, True),
    "two-unbound-pvcs,one-matched,one-provisioned": (
        [pv_node1a], [unbound_pvc, provisioned_pvc], [("unbound-pvc", "pv-node1a")],
        ["provisioned-pvc"], [], False, True),
    "one-bound,one-provisioned": ([pv_bound], [bound_pvc, provisioned_pvc], [],
                                  ["provisioned-pvc"], [], False, True),
    "one-binding,one-selected-node": ([pv_bound], [bound_pvc, selected_node_pvc], [],
                                      ["provisioned-pvc"], [], False, True),
    "immediate-unbound-pvc": ([], [immediate_unbound_pvc], [], [], [], True, False),
    "one-immediate-bound,one-provisioned": ([pv_bound_immediate],
                                            [immediate_bound_pvc, provisioned_pvc], [],
                                            ["provisioned-pvc"], [], False, True),
    "invalid-provisioner": ([], [no_provisioner_pvc], [], [], [ERR_REASON_BIND_CONFLICT],
                            False, False),
    "volume-topology-unsatisfied": ([], [topo_mismatch_pvc], [], [],
                                    [ERR_REASON_BIND_CONFLICT], False, False),
}


@pytest.mark.parametrize("driver", CSI_DRIVERS)
@pytest.mark.parametrize("name", WITH_PROVISIONING)
def test_find_pod_volumes_with_provisioning(driver: str, name: str) -> None:
    """TestFindPodVolumesWithProvisioning: with a capacity-tracking CSIDriver and no
    CSIStorageCapacity, the claims to provision add ErrReasonNotEnoughSpace instead."""
    pvs, pod_pvcs, want_bindings, want_provisions, want_reasons, should_fail, needs_capacity = (
        WITH_PROVISIONING[name])
    b = binder(_driver_env(CSI_DRIVERS[driver]), pvs, pod_pvcs)
    pod = pod_with(pod_pvcs)
    if should_fail:
        with pytest.raises(BinderError):
            find_pod_volumes(b, pod, node1)
        return
    pv, reasons = find_pod_volumes(b, pod, node1)
    want_reasons = list(want_reasons)
    if needs_capacity and CSI_DRIVERS[driver]:
        want_reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        want_provisions = []
    assert sorted(reasons) == sorted(want_reasons)
    assert bindings_of(pv) == want_bindings
    assert [p for p, _ in provisions_of(pv)] == want_provisions


# --- TestFindPodVolumesWithCSIMigration ----------------------------------------------------

@pytest.mark.parametrize("name,n,csi_migrated,want", [
    ("pvc-bound", node("node1", **{"topology.gke.io/zone": "us-east-1"}), True, []),
    ("pvc-bound,csinode-not-migrated", node("node1", **{"topology.gke.io/zone": "us-east-1"}),
     False, []),
    ("pvc-bound,missing-csinode", node("node1", **{"topology.gke.io/zone": "us-east-1"}),
     None, []),
    ("pvc-bound,node-different-zone", node("node1", **{"topology.gke.io/zone": "us-east-2"}),
     True, [ERR_REASON_NODE_CONFLICT]),
])
def test_find_pod_volumes_with_csi_migration(name: str, n: Node, csi_migrated: bool | None,
                                             want: list[str]) -> None:
    """TestFindPodVolumesWithCSIMigration: a GCE PD PV whose plugin the node's CSINode lists
    as migrated is checked as its CSI translation (its beta zone label becomes a
    ``topology.gke.io/zone`` term); otherwise it is read as it is (no node affinity)."""
    objects = []
    if csi_migrated is not None:
        objects.append(make_csi_node("node1").migrated_plugins(
            *(["kubernetes.io/gce-pd"] if csi_migrated else [])))
    b = binder(storage_env(*objects), [migration_pv(bound_migration_pvc, True)],
               [bound_migration_pvc], [n])
    pod = pod_with([bound_migration_pvc])
    _, reasons = find_pod_volumes(b, pod, n)
    assert reasons == want


def test_find_pod_volumes_untranslatable_migrated_pv_is_an_error() -> None:
    """``checkBoundClaims``: a migrated PV whose translation fails (zones of two regions) is
    the binder's error "could not translate pv: ..."."""
    pv = migration_pv(bound_migration_pvc, True)
    pv.labels["failure-domain.beta.kubernetes.io/zone"] = "us-east1-a__us-west1-b"
    n = node("node1", **{"topology.gke.io/zone": "us-east1-a"})
    b = binder(storage_env(make_csi_node("node1").migrated_plugins("kubernetes.io/gce-pd")),
               [pv], [bound_migration_pvc], [n])
    with pytest.raises(BinderError, match=r"^could not translate pv: failed to get region "
                                          r"from zones: multiple or no regions"):
        find_pod_volumes(b, pod_with([bound_migration_pvc]), n)


def test_find_pod_volumes_non_migratable_pv_is_read_as_is() -> None:
    """``nonmigrationPVBoundToUnbound``: an RBD PV is never translated, even on a node whose
    CSINode lists migrated plugins."""
    pvc = make_test_pvc("pvc-migration-bound", "1G", BOUND, "pv-migration-bound")
    b = binder(storage_env(make_csi_node("node1").migrated_plugins("kubernetes.io/gce-pd")),
               [migration_pv(pvc, False)], [pvc])
    assert find_pod_volumes(b, pod_with([pvc]), node1)[1] == []


# --- TestAssumePodVolumes, TestRevertAssumedPodVolumes, TestFindAssumeVolumes ---------------

ASSUME = {
    # name: (pod PVCs, pvs, bindings, provisions, should fail, all bound,
    #        expected bindings (pvc, pv) or None, expected provisions or None)
    "all-bound": ([bound_pvc], [pv_bound], [], [], False, True, None, None),
    "one-binding": ([unbound_pvc], [pv_node1a], [(unbound_pvc, pv_node1a)], [], False, False,
                    [(unbound_pvc, pv_node1a_bound)], []),
    "two-bindings": ([unbound_pvc, unbound_pvc2], [pv_node1a, pv_node1b],
                     [(unbound_pvc, pv_node1a), (unbound_pvc2, pv_node1b)], [], False, False,
                     [(unbound_pvc, pv_node1a_bound), (unbound_pvc2, pv_node1b_bound)], []),
    "pv-already-bound": ([unbound_pvc], [pv_node1a_bound], [(unbound_pvc, pv_node1a_bound)], [],
                         False, False, [(unbound_pvc, pv_node1a_bound)], []),
    "tmpupdate-failed": ([unbound_pvc], [pv_node1a],
                         [(unbound_pvc, pv_node1a), (unbound_pvc2, pv_node1b)], [], True, False,
                         None, None),
    "one-binding, one-pvc-provisioned": ([unbound_pvc, provisioned_pvc], [pv_node1a],
                                         [(unbound_pvc, pv_node1a)], [provisioned_pvc], False,
                                         False, [(unbound_pvc, pv_node1a_bound)],
                                         [selected_node_pvc]),
    "one-binding, one-provision-tmpupdate-failed": (
        [unbound_pvc, provisioned_pvc_higher_version], [pv_node1a], [(unbound_pvc, pv_node1a)],
        [provisioned_pvc2], True, False, None, None),
}


def same_pv(a: PersistentVolume, b: PersistentVolume) -> bool:
    """The fields a binding sets and upstream's validation compares."""
    return (a.name, a.claim_ref, a.annotations) == (b.name, b.claim_ref, b.annotations)


@pytest.mark.parametrize("name", ASSUME)
def test_assume_pod_volumes(name: str) -> None:
    """TestAssumePodVolumes: the assumed PVs and PVCs are what the caches serve; on failure
    the caches are restored."""
    pvcs, pvs, bindings, provisions, should_fail, all_bound, want_b, want_p = ASSUME[name]
    b = binder(storage_env(), pvs, pvcs)
    pod = pod_with(pvcs)
    pod_volumes = PodVolumes([BindingInfo(c, v) for c, v in bindings],
                             [DynamicProvision(c) for c in provisions])
    if should_fail:
        with pytest.raises(BinderError):
            b.assume_pod_volumes(pod, "node1", pod_volumes)
        for _c, v in bindings:  # validateCacheRestored
            if v.name in b.storage.volumes:
                assert b.pv_cache.get(v.name) is b.storage.volumes[v.name]
        for c in provisions:
            if c.key in b.storage.claims:
                assert b.pvc_cache.get(c.key) is b.storage.claims[c.key]
        return
    assert b.assume_pod_volumes(pod, "node1", pod_volumes) is all_bound
    want_b = [(c, v) for c, v in bindings] if want_b is None else want_b
    want_p = provisions if want_p is None else want_p
    for (c, v), got in zip(want_b, pod_volumes.static_bindings or [], strict=True):
        assert got.pvc.name == c.name and same_pv(got.pv, v)
        assert same_pv(b.pv_cache.get(v.name), v)  # validateAssume
    for c, got in zip(want_p, pod_volumes.dynamic_provisions or [], strict=True):
        assert got.pvc.annotations == c.annotations
        assert b.pvc_cache.get(c.key).annotations.get(ANN_SELECTED_NODE) == NODE_LABEL_VALUE


def test_revert_assumed_pod_volumes() -> None:
    """TestRevertAssumedPodVolumes."""
    pvcs = [unbound_pvc, provisioned_pvc]
    b = binder(storage_env(), [pv_node1a], pvcs)
    pod = pod_with(pvcs)
    pod_volumes = PodVolumes([BindingInfo(unbound_pvc, pv_node1a)],
                             [DynamicProvision(provisioned_pvc)])
    assert b.assume_pod_volumes(pod, "node1", pod_volumes) is False
    assert same_pv(b.pv_cache.get("pv-node1a"), pv_node1a_bound)
    assert b.pvc_cache.get(provisioned_pvc.key).annotations == selected_node_pvc.annotations
    b.revert_assumed_pod_volumes(pod_volumes)
    assert b.pv_cache.get("pv-node1a") == pv_node1a
    assert b.pvc_cache.get(provisioned_pvc.key) == provisioned_pvc


def test_find_assume_volumes() -> None:
    """TestFindAssumeVolumes: once assumed, later FindPodVolumes calls choose the same PV
    (the assumed one is pre-bound to the claim) however often they run."""
    b = binder(storage_env(), [pv_node2, pv_node1a, pv_node1c], [unbound_pvc])
    pod = pod_with([unbound_pvc])
    pod_volumes, reasons = find_pod_volumes(b, pod, node1)
    assert reasons == []
    assert b.assume_pod_volumes(pod, "node1", pod_volumes) is False
    expected = bindings_of(pod_volumes)
    assert same_pv(b.pv_cache.get(expected[0][1]),
                   dataclasses.replace(pv_node1a_bound, name=expected[0][1]))
    for _ in range(50):
        again, reasons = find_pod_volumes(b, pod, node1)
        assert reasons == [] and bindings_of(again) == expected


# --- TestCapacity ---------------------------------------------------------------------------

def cap(node_: Node | None, size: str = "1Gi", max_size: str = "",
        cls: str = WAIT_PROV) -> CSIStorageCapacity:
    """``makeCapacity("net", class, node, size, maximumVolumeSize)``: an empty nodeTopology
    (every node) without a node."""
    w = make_csi_storage_capacity("net", NS, cls)
    if size:
        w.capacity(size)
    if max_size:
        w.maximum_volume_size(max_size)
    w.node_topology({NODE_LABEL_KEY: node_.labels[NODE_LABEL_KEY]} if node_ else {})
    c = load_storage(w).capacities[f"{NS}/net"]
    return dataclasses.replace(c, name=("net" if node_ is None else f"net-{node_.name}"))


CAPACITY = {
    # name: (capacities in informer order, the one chosen or None, reasons with opt-in)
    "network-attached": ([cap(None)], "net", []),
    "local-storage": ([cap(node1)], "net-node1", []),
    # all three are named "net": the informer keeps the last one added
    "multiple": ([cap(None), cap(node2), cap(node1)], "net-node1", []),
    "no-storage": ([], None, [ERR_REASON_NOT_ENOUGH_SPACE]),
    "wrong-node": ([cap(node2)], None, [ERR_REASON_NOT_ENOUGH_SPACE]),
    "wrong-storage-class": ([cap(node1, cls=WAIT)], None, [ERR_REASON_NOT_ENOUGH_SPACE]),
    "insufficient-storage": ([cap(node1, "1Mi")], None, [ERR_REASON_NOT_ENOUGH_SPACE]),
    "insufficient-volume-size": ([cap(node1, "1Gi", "1Mi")], None,
                                 [ERR_REASON_NOT_ENOUGH_SPACE]),
    "zero-storage": ([cap(node1, "0Mi")], None, [ERR_REASON_NOT_ENOUGH_SPACE]),
    "zero-volume-size": ([cap(node1, "", "0Mi")], None, [ERR_REASON_NOT_ENOUGH_SPACE]),
    "nil-storage": ([cap(node1, "")], None, [ERR_REASON_NOT_ENOUGH_SPACE]),
}


@pytest.mark.parametrize("opt_in", [True, False], ids=["CSIDriver.StorageCapacity=true",
                                                       "CSIDriver.StorageCapacity=false"])
@pytest.mark.parametrize("name", CAPACITY)
def test_capacity(name: str, opt_in: bool) -> None:
    """TestCapacity."""
    capacities, chosen, reasons_opt_in = CAPACITY[name]
    storage = storage_env(make_csi_driver(PROVISIONER).storage_capacity(opt_in))
    for c in capacities:
        storage.capacities[f"{c.namespace}/net"] = c  # the informer's Add, keyed by name
    b = binder(storage, [], [provisioned_pvc])
    pv, reasons = find_pod_volumes(b, pod_with([provisioned_pvc]), node1)
    if not opt_in:
        assert reasons == []
        assert provisions_of(pv) == [("provisioned-pvc", None)]
        return
    assert reasons == reasons_opt_in
    if not reasons:
        assert provisions_of(pv) == [("provisioned-pvc", chosen)]


# --- scorer_test.go TestScore ---------------------------------------------------------------

DEFAULT_SHAPE = [FunctionShapePoint(0, 100), FunctionShapePoint(100, 0)]
CUSTOM_SHAPE = [FunctionShapePoint(50, 0), FunctionShapePoint(80, 30),
                FunctionShapePoint(100, 50)]


@pytest.mark.parametrize("name,shape,cases", [
    ("default shape, single class", DEFAULT_SHAPE,
     [({"hdd": (0, 100)}, 100), ({"hdd": (30, 100)}, 70), ({"hdd": (50, 100)}, 50),
      ({"hdd": (100, 100)}, 0)]),
    ("default shape, multiple classes", DEFAULT_SHAPE,
     [({"hdd": (0, 100), "ssd": (0, 100)}, 100), ({"hdd": (0, 100), "ssd": (30, 100)}, 85),
      ({"hdd": (30, 100), "ssd": (30, 100)}, 70), ({"hdd": (30, 100), "ssd": (60, 100)}, 55),
      ({"hdd": (50, 100), "ssd": (50, 100)}, 50), ({"hdd": (50, 100), "ssd": (100, 100)}, 25),
      ({"hdd": (100, 100), "ssd": (100, 100)}, 0)]),
    ("custom shape, multiple classes", CUSTOM_SHAPE,
     [({"hdd": (0, 100), "ssd": (0, 100)}, 0), ({"hdd": (0, 100), "ssd": (30, 100)}, 0),
      ({"hdd": (30, 100), "ssd": (30, 100)}, 0), ({"hdd": (30, 100), "ssd": (60, 100)}, 5),
      ({"hdd": (50, 100), "ssd": (100, 100)}, 25), ({"hdd": (90, 100), "ssd": (90, 100)}, 40),
      ({"hdd": (100, 100), "ssd": (100, 100)}, 50)]),
])
def test_score(name: str, shape: list[FunctionShapePoint],
               cases: list[tuple[dict[str, tuple[int, int]], int]]) -> None:
    """scorer_test.go TestScore."""
    f = build_scorer_function(shape)
    for resources, want in cases:
        assert f({k: StorageResource(*v) for k, v in resources.items()}) == want, resources


def test_pv_claim_ref_is_the_claims() -> None:
    """``GetBindVolumeToClaim`` as AssumePodVolumes uses it: the claimRef with the claim's
    UID and the bound-by-controller annotation."""
    assert pv_node1a_bound.claim_ref == ObjectReference(NS, "unbound-pvc", PVC_UID)
    assert pv_node1a_bound.annotations == {ANN_BOUND_BY_CONTROLLER: "yes"}
