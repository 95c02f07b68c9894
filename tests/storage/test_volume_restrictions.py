"""VolumeRestrictions (reference_impl/plugins/volumerestrictions.py) against upstream's tests.

Restated from ``pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions_test.go``
of v1.37.2, with upstream's case names: TestGCEDiskConflicts, TestAWSDiskConflicts,
TestRBDDiskConflicts, TestISCSIDiskConflicts, TestAccessModeConflicts,
Test_isSchedulableAfterAssignedPodDeleted, Test_isSchedulableAfterPersistentVolumeClaimChange.

Not restated:
- TestVolumeRestrictions_DeferredResizeSkipped: needs a pod whose status carries a deferred
  resize with InPlacePodVerticalScalingSchedulerPreemption (alpha) on; the plugin's skip of
  such pods is not modelled (docs/reference.md).
- Test_isSchedulableAfterPersistentVolumeClaimChange/"error-wrong-new-object": upstream passes a
  ``*v1.Pod`` as the new object and expects an error; restated below as a type error of ours
  ("own: error-wrong-new-object").
"""

from __future__ import annotations

import pytest

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo, PodInfo
from reference_impl.model.objects import Pod
from reference_impl.model.storage import (
    READ_WRITE_MANY,
    READ_WRITE_ONCE_POD,
    PersistentVolumeClaim,
    StorageObjects,
)
from reference_impl.plugins import volumerestrictions as vr
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod

QUEUE, QUEUE_SKIP = "Queue", "QueueSkip"
DISK_CONFLICT = Status(Code.UNSCHEDULABLE, vr.ERR_REASON_DISK_CONFLICT)
RWOP_CONFLICT = Status(Code.UNSCHEDULABLE, vr.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)


def vol(name: str = "", **source: dict) -> dict:
    """``v1.Volume{Name, VolumeSource{<key>: <source>}}`` as a raw dict."""
    return {"name": name, **source}


def pod(name: str, *volumes: dict, ns: str = "default", node: str = "",
        claims: tuple[str, ...] = ()) -> Pod:
    w = make_pod(name).namespace(ns)
    for v in volumes:
        w = w.volume(v)
    for c in claims:
        w = w.pvc(c)
    if node:
        w = w.node(node)
    return w.obj()


def pvc(name: str, *modes: str, ns: str = "default") -> PersistentVolumeClaim:
    return PersistentVolumeClaim(namespace=ns, name=name, access_modes=modes)


def storage(*claims: PersistentVolumeClaim) -> StorageObjects:
    return StorageObjects(claims={c.key: c for c in claims})


def node_info(*pods: Pod, name: str = "node-1") -> NodeInfo:
    ni = NodeInfo(make_node(name).obj())
    for p in pods:
        ni.add_pod(p)
    return ni


def plugin(pods: tuple[Pod, ...] = (), nodes: tuple[str, ...] = (),
           claims: tuple[PersistentVolumeClaim, ...] = ()) -> vr.VolumeRestrictions:
    """``newPluginWithListers``: the snapshot of the nodes and pods, the PVC lister."""
    handle = FakeHandle([make_node(n).obj() for n in nodes], pods, storage=storage(*claims))
    return vr.VolumeRestrictions(None, handle)


# ----- the inline disk conflicts --------------------------------------------------------------

GCE = vol(gcePersistentDisk={"pdName": "foo"})
GCE2 = vol(gcePersistentDisk={"pdName": "bar"})
AWS = vol(awsElasticBlockStore={"volumeID": "foo"})
AWS2 = vol(awsElasticBlockStore={"volumeID": "bar"})
RBD = vol(rbd={"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"})
RBD2 = vol(rbd={"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"})
ISCSI = vol(iscsi={"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01",
                   "fsType": "ext4", "lun": 0})
ISCSI2 = vol(iscsi={"targetPortal": "127.0.0.1:3260",
                    "iqn": "iqn.2017-12.server:storage.target01", "fsType": "ext4", "lun": 0})


def _disk_cases(test: str, v1: dict, v2: dict) -> list:
    """The table shared by TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts and
    TestISCSIDiskConflicts: (name, pod volumes, node pods' volumes, PreFilter, Filter)."""
    return [
        (f"{test}/nothing", (), None, Status(Code.SKIP), None),
        (f"{test}/one state", (), (v1,), Status(Code.SKIP), None),
        (f"{test}/same state", (v1,), (v1,), None, DISK_CONFLICT),
        (f"{test}/different state", (v2,), (v1,), None, None),
    ]


@pytest.mark.parametrize("name,pod_vols,node_vols,want_pre,want_filter", [
    *_disk_cases("TestGCEDiskConflicts", GCE, GCE2),
    ("TestGCEDiskConflicts/pod with a volume that doesn't have restrictions",
     (vol("volume with no restriction", emptyDir={}),), None, Status(Code.SKIP), None),
    *_disk_cases("TestAWSDiskConflicts", AWS, AWS2),
    *_disk_cases("TestRBDDiskConflicts", RBD, RBD2),
    *_disk_cases("TestISCSIDiskConflicts", ISCSI, ISCSI2),
])
def test_disk_conflicts(name, pod_vols, node_vols, want_pre, want_filter):
    pl = plugin()
    state = CycleState()
    p = pod("p", *pod_vols)
    _, status = pl.pre_filter(state, p, [])
    assert status == want_pre
    if status is None:  # "If PreFilter fails, then Filter will not run."
        ni = node_info(pod("e", *node_vols, node="node-1")) if node_vols is not None \
            else node_info()
        assert pl.filter(state, p, ni) == want_filter


@pytest.mark.parametrize("name,v1,v2,conflict", [
    ("GCE PD, both read-only", {"gcePersistentDisk": {"pdName": "x", "readOnly": True}},
     {"gcePersistentDisk": {"pdName": "x", "readOnly": True}}, False),
    ("GCE PD, one read-only", {"gcePersistentDisk": {"pdName": "x", "readOnly": True}},
     {"gcePersistentDisk": {"pdName": "x"}}, True),
    ("AWS EBS, read-only does not matter", {"awsElasticBlockStore": {"volumeID": "x",
                                                                     "readOnly": True}},
     {"awsElasticBlockStore": {"volumeID": "x", "readOnly": True}}, True),
    ("iSCSI, both read-only", {"iscsi": {"iqn": "q", "readOnly": True}},
     {"iscsi": {"iqn": "q", "readOnly": True}}, False),
    ("RBD, one shared monitor", {"rbd": {"monitors": ["a", "b"], "image": "i"}},
     {"rbd": {"monitors": ["b", "c"], "image": "i"}}, True),
    ("RBD, empty pool defaults to rbd", {"rbd": {"monitors": ["a"], "image": "i"}},
     {"rbd": {"monitors": ["a"], "image": "i", "pool": "rbd"}}, True),
    ("RBD, other pool", {"rbd": {"monitors": ["a"], "image": "i", "pool": "p1"}},
     {"rbd": {"monitors": ["a"], "image": "i", "pool": "p2"}}, False),
    ("RBD, both read-only", {"rbd": {"monitors": ["a"], "image": "i", "readOnly": True}},
     {"rbd": {"monitors": ["a"], "image": "i", "readOnly": True}}, False),
    ("different source types", {"gcePersistentDisk": {"pdName": "x"}},
     {"awsElasticBlockStore": {"volumeID": "x"}}, False),
])
def test_is_volume_conflict_rules(name, v1, v2, conflict):
    """isVolumeConflict's rules (volume_restrictions.go), one per branch (own cases)."""
    assert vr.is_volume_conflict(vol("a", **v1), pod("e", vol("b", **v2))) is conflict


# ----- TestAccessModeConflicts ------------------------------------------------------------------

POD_WITH_ONE_PVC = pod("pod-with-one-pvc", claims=("claim-with-rwop-1",), node="node-1")
POD_WITH_TWO_PVCS = pod("pod-with-two-pvcs", claims=("claim-with-rwop-1", "claim-with-rwop-2"),
                        node="node-1")
POD_WITH_ONE_CONFLICT = pod("pod-with-one-conflict", claims=("claim-with-rwop-1",),
                            node="node-1")
POD_WITH_TWO_CONFLICTS = pod("pod-with-two-conflicts",
                             claims=("claim-with-rwop-1", "claim-with-rwop-2"), node="node-1")
POD_WITH_RWX = pod("pod-with-rwx", claims=("claim-with-rwx",), node="node-1")
RWOP_PVC1 = pvc("claim-with-rwop-1", READ_WRITE_ONCE_POD)
RWOP_PVC2 = pvc("claim-with-rwop-2", READ_WRITE_ONCE_POD)
RWX_PVC = pvc("claim-with-rwx", READ_WRITE_MANY)


@pytest.mark.parametrize("name,p,node_pods,pods,nodes,claims,want_pre,want_filter", [
    ("nothing", pod("nothing"), (), (), (), (), Status(Code.SKIP), None),
    ("failed to get PVC", POD_WITH_ONE_PVC, (), (), (), (),
     Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            'persistentvolumeclaim "claim-with-rwop-1" not found'), None),
    ("no access mode conflict", POD_WITH_ONE_PVC, (POD_WITH_RWX,), (POD_WITH_RWX,), ("node-1",),
     (RWOP_PVC1, RWX_PVC), Status(Code.SKIP), None),
    ("access mode conflict, unschedulable", POD_WITH_ONE_CONFLICT,
     (POD_WITH_ONE_PVC, POD_WITH_RWX), (POD_WITH_ONE_PVC, POD_WITH_RWX), ("node-1",),
     (RWOP_PVC1, RWX_PVC), None, RWOP_CONFLICT),
    ("two conflicts, unschedulable", POD_WITH_TWO_CONFLICTS,
     (POD_WITH_TWO_PVCS, POD_WITH_RWX), (POD_WITH_TWO_PVCS, POD_WITH_RWX), ("node-1",),
     (RWOP_PVC1, RWOP_PVC2, RWX_PVC), None, RWOP_CONFLICT),
])
def test_access_mode_conflicts(name, p, node_pods, pods, nodes, claims, want_pre, want_filter):
    pl = plugin(pods, nodes, claims)
    state = CycleState()
    _, status = pl.pre_filter(state, p, [])
    assert status == want_pre
    if status is None:
        assert pl.filter(state, p, node_info(*node_pods)) == want_filter


def test_access_mode_conflict_count_and_nominated_pods():
    """The PreFilter state counts the pod's ReadWriteOncePod claims in use (two here); AddPod
    and RemovePod (nominated pods, preemption victims) move the count as upstream's
    ``updateWithPod``; Filter rejects while it is positive. A claim a pod of another namespace
    uses does not count (own case)."""
    pl = plugin((POD_WITH_TWO_PVCS,), ("node-1",), (RWOP_PVC1, RWOP_PVC2))
    state = CycleState()
    assert pl.pre_filter(state, POD_WITH_TWO_CONFLICTS, []) == (None, None)
    s = state.read(vr.PRE_FILTER_STATE_KEY)
    assert (s.read_write_once_pod_pvcs, s.conflicting_pvc_ref_count) == (
        frozenset({"claim-with-rwop-1", "claim-with-rwop-2"}), 2)
    ni = node_info(POD_WITH_TWO_PVCS)
    assert pl.remove_pod(state, POD_WITH_TWO_CONFLICTS, PodInfo(POD_WITH_TWO_PVCS), ni) is None
    assert s.conflicting_pvc_ref_count == 0
    assert pl.filter(state, POD_WITH_TWO_CONFLICTS, ni) is None
    # A nominated pod using one of the claims: AddPod counts it, the clone keeps the count.
    nominated = pod("nominated", claims=("claim-with-rwop-1",))
    assert pl.add_pod(state, POD_WITH_TWO_CONFLICTS, PodInfo(nominated), ni) is None
    assert state.clone().read(vr.PRE_FILTER_STATE_KEY).conflicting_pvc_ref_count == 1
    assert pl.filter(state, POD_WITH_TWO_CONFLICTS, ni) == RWOP_CONFLICT
    # The same claim names in another namespace are other claims.
    other_ns = pod("p", ns="other", claims=("claim-with-rwop-1",), node="node-1")
    pl2 = plugin((other_ns,), ("node-1",), (RWOP_PVC1,))
    assert pl2.pre_filter(CycleState(), POD_WITH_ONE_CONFLICT, []) == (None, Status(Code.SKIP))


def test_state_errors_and_extensions():
    """Filter and AddPod without PreFilter state: upstream's error (volume_restrictions.go)."""
    pl = plugin()
    p = pod("p", GCE)
    empty = CycleState()
    want = Status.as_error('cannot read "PreFilterVolumeRestrictions" from cycleState')
    assert pl.filter(empty, p, node_info()) == want
    assert pl.pre_filter_extensions() is pl
    assert pl.add_pod(empty, p, PodInfo(p), node_info()) == want
    assert pl.remove_pod(empty, p, PodInfo(p), node_info()) == want


# ----- queueing hints ------------------------------------------------------------------------

_QHINT = {"gcedisk": (GCE, GCE2), "awsdisk": (AWS, AWS2), "rbddisk": (RBD, RBD2),
          "iscsidisk": (ISCSI, ISCSI2)}


@pytest.mark.parametrize("name,p,deleted,want", [
    *[(f"queue-new-object-{k}-conflict", pod("a", v1), pod("b", v1), QUEUE)
      for k, (v1, _) in _QHINT.items()],
    *[(f"skip-new-object-{k}-no-conflict", pod("a", v1), pod("b", v2), QUEUE_SKIP)
      for k, (v1, v2) in _QHINT.items()],
    ("queue-has-same-claim", pod("pod1", claims=("claim-rwop",)),
     pod("pod2", claims=("claim-rwop",)), QUEUE),
    ("skip-no-same-claim", pod("pod1", claims=("claim-1-rwop",)),
     pod("pod2", claims=("claim-2-rwop",)), QUEUE_SKIP),
    ("own: other namespace", pod("a", GCE, ns="ns1"), pod("b", GCE, ns="ns2"), QUEUE_SKIP),
])
def test_is_schedulable_after_assigned_pod_deleted(name, p, deleted, want):
    """Test_isSchedulableAfterAssignedPodDeleted."""
    assert plugin().is_schedulable_after_assigned_pod_deleted(p, deleted, None) == (want, None)


_POD_ONE = pod("pod-with-one-pvc", claims=("claim-with-rwx-1",))
_POD_TWO = pod("pod-with-two-pvcs", claims=("claim-with-rwx-1", "claim-with-rwx-2"))
_POD_OTHER_NS = pod("pod-with-one-pvc", ns="kube-system", claims=("claim-with-rwx-1",))
_PVC1 = pvc("claim-with-rwx-1", READ_WRITE_MANY)
_PVC2 = pvc("claim-with-rwx-2", READ_WRITE_MANY)


@pytest.mark.parametrize("name,p,old,new,want", [
    ("queue-new-object-pvc-belong-pod", _POD_TWO, None, _PVC1, QUEUE),
    ("skip-new-object-unused", _POD_ONE, None, _PVC2, QUEUE_SKIP),
    ("skip-nil-old-object", _POD_ONE, None, _PVC2, QUEUE_SKIP),
    ("skip-new-object-not-belong-pod", _POD_ONE, None, _PVC2, QUEUE_SKIP),
    ("skip-new-object-namespace-not-equal-pod", _POD_OTHER_NS, None, _PVC1, QUEUE_SKIP),
])
def test_is_schedulable_after_persistent_volume_claim_change(name, p, old, new, want):
    """Test_isSchedulableAfterPersistentVolumeClaimChange."""
    assert plugin().is_schedulable_after_persistent_volume_claim_added(p, old, new) == (
        want, None)


def test_pvc_hint_wrong_object():
    """own: error-wrong-new-object (a pod where a PVC is expected): Queue with the error."""
    hint, err = plugin().is_schedulable_after_persistent_volume_claim_added(
        _POD_ONE, None, _POD_TWO)
    assert hint == QUEUE and err == (
        "unexpected objects in isSchedulableAfterPersistentVolumeClaimChange: "
        "expected *v1.PersistentVolumeClaim, but got Pod")


def test_sign_and_events():
    pl = plugin()
    p = pod("p", vol("cm", configMap={"name": "c"}), vol("s", secret={"secretName": "s"}),
            vol("b", emptyDir={}), vol("a", gcePersistentDisk={"pdName": "x"}))
    frags, status = pl.sign_pod(p)
    assert status is None
    assert frags == [(vr.VOLUMES_SIGNER_NAME,
                      ('{"emptyDir":{}}', '{"gcePersistentDisk":{"pdName":"x"}}'))]
    # Volume names do not matter, configMap/secret volumes are ignored.
    q = pod("q", vol("zz", gcePersistentDisk={"pdName": "x"}), vol("yy", emptyDir={}))
    assert pl.sign_pod(q) == pl.sign_pod(p)
    assert pl.events_to_register() == [
        ("AssignedPod", ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
        ("Node", ("Add",), None),
        ("PersistentVolumeClaim", ("Add",), "is_schedulable_after_persistent_volume_claim_added"),
    ]
    for _, _, hint in pl.events_to_register():
        assert hint is None or callable(getattr(pl, hint))
