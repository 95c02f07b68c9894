"""The default plugins whose inputs (PVCs, PVs, StorageClasses, CSINodes, ResourceClaims,
DeviceClasses) are not modelled: VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone,
DynamicResources, NodeDeclaredFeatures.

For each plugin: the path of pods that do not use those objects returns upstream's codes, a pod
that uses them gets the "not supported yet" Error, and upstream's own v1.37.2 test cases that do
not need unmodelled objects are restated, each citing its source file and test function:

- ``pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions_test.go``
- ``pkg/scheduler/framework/plugins/nodevolumelimits/csi_test.go``
- ``pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go``
- ``pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go``
- ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go``
- ``pkg/scheduler/framework/plugins/nodedeclaredfeatures/nodedeclaredfeatures_test.go``
- ``staging/src/k8s.io/component-helpers/nodedeclaredfeatures/`` (``framework_test.go``,
  ``featureset_test.go``, ``features/*/..._test.go``)
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from types import SimpleNamespace

import pytest

from reference_impl.framework import interfaces as itf
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, PluginError, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo, PodInfo
from reference_impl.model.dra import DeviceClass, DRAObjects
from reference_impl.model.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Container,
    Node,
    Pod,
)
from reference_impl.model.requests import compute_pod_resources
from reference_impl.model.storage import PersistentVolumeClaim
from reference_impl.plugins import dynamicresources as dra
from reference_impl.plugins import nodedeclaredfeatures as ndf
from reference_impl.plugins import volumebinding as vb
from reference_impl.plugins import volumerestrictions as vr
from reference_impl.plugins import volumezone as vz
from reference_impl.plugins.nodevolumelimits import NodeVolumeLimits

QUEUE, QUEUE_SKIP = "Queue", "QueueSkip"
VR_TEST = "volumerestrictions/volume_restrictions_test.go"
CSI_TEST = "nodevolumelimits/csi_test.go"
VB_TEST = "volumebinding/volume_binding_test.go"
VZ_TEST = "volumezone/volume_zone_test.go"
DRA_TEST = "dynamicresources/dynamicresources_test.go"
NDF_TEST = "nodedeclaredfeatures/nodedeclaredfeatures_test.go"

# ---------------------------------------------------------------------------------------------
# Builders
# ---------------------------------------------------------------------------------------------

_uids = itertools.count()


def mk_pod(name: str = "p", ns: str = "", *volumes: dict, claims: tuple[str, ...] = (),
           node_name: str = "", nominated: str = "",
           containers: tuple[Container, ...] = ()) -> Pod:
    """A pod with raw v1 volumes; ``pvc_names`` derived as the loader does."""
    pvcs = tuple(v["persistentVolumeClaim"]["claimName"] for v in volumes
                 if v.get("persistentVolumeClaim") is not None)
    p = Pod(namespace=ns, name=name, uid=f"uid-{next(_uids)}", volumes=tuple(volumes),
            pvc_names=pvcs, resource_claims=claims, node_name=node_name,
            nominated_node_name=nominated, containers=containers)
    p.resources = compute_pod_resources(p)
    return p


def vol(name: str = "", **source: dict) -> dict:
    """``v1.Volume{Name, VolumeSource{<key>: <source>}}`` as a raw dict."""
    return {"name": name, **source}


def pvc_vol(claim: str) -> dict:
    """``st.MakePod().PVC(name)``: a volume named after its claim."""
    return vol(claim, persistentVolumeClaim={"claimName": claim})


def node_info(*pods: Pod, name: str = "n", labels: dict | None = None,
              declared: tuple[str, ...] = ()) -> NodeInfo:
    ni = NodeInfo(Node(name, labels=dict(labels or {}), declared_features=declared))
    for p in pods:
        ni.add_pod(p)
    return ni


class PVC(SimpleNamespace):
    """A stand-in PersistentVolumeClaim (namespace and name) for the queueing hints."""


def skip() -> Status:
    return Status(Code.SKIP)


def assert_not_supported(status: Status | None, plugin: str) -> None:
    assert status is not None and status.code == Code.ERROR, status
    assert status.message().startswith(f"{plugin}: not supported yet: "), status.message()


# ---------------------------------------------------------------------------------------------
# Extension points: the interfaces upstream's `var _ fwk.X = &Plugin{}` declare (MultiPoint
# expansion depends on them).
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls,points", [
    (vr.VolumeRestrictions, {"preFilter", "filter"}),
    (NodeVolumeLimits, {"preFilter", "filter"}),
    (vb.VolumeBinding, {"preFilter", "filter", "reserve", "preBind", "preScore", "score"}),
    (vz.VolumeZone, {"preFilter", "filter"}),
    (dra.DynamicResources, {"preEnqueue", "preFilter", "filter", "postFilter", "score",
                            "reserve", "preBind"}),
    (ndf.NodeDeclaredFeatures, {"preFilter", "filter"}),
])
def test_extension_points(cls, points):
    got = {name for name, base in itf.EXTENSION_POINTS if issubclass(cls, base)}
    assert got == points
    assert issubclass(cls, itf.SignPlugin) and issubclass(cls, itf.EnqueueExtensions)


# ---------------------------------------------------------------------------------------------
# VolumeRestrictions
# ---------------------------------------------------------------------------------------------

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
DISK_CONFLICT = Status(Code.UNSCHEDULABLE, vr.ERR_REASON_DISK_CONFLICT)


def _disk_cases(test: str, v1: dict, v2: dict) -> list:
    """The table shared by TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts and
    TestISCSIDiskConflicts: (source, pod volumes, node pods' volumes, PreFilter, Filter)."""
    return [
        (f"{test}/nothing", (), None, skip(), None),
        (f"{test}/one state", (), (v1,), skip(), None),
        (f"{test}/same state", (v1,), (v1,), None, DISK_CONFLICT),
        (f"{test}/different state", (v2,), (v1,), None, None),
    ]


@pytest.mark.parametrize("source,pod_vols,node_vols,want_pre,want_filter", [
    *_disk_cases(f"{VR_TEST} TestGCEDiskConflicts", GCE, GCE2),
    (f"{VR_TEST} TestGCEDiskConflicts/pod with a volume that doesn't have restrictions",
     (vol("volume with no restriction"),), None, skip(), None),
    *_disk_cases(f"{VR_TEST} TestAWSDiskConflicts", AWS, AWS2),
    *_disk_cases(f"{VR_TEST} TestRBDDiskConflicts", RBD, RBD2),
    *_disk_cases(f"{VR_TEST} TestISCSIDiskConflicts", ISCSI, ISCSI2),
    (f"{VR_TEST} TestAccessModeConflicts/nothing", (), None, skip(), None),
])
def test_volume_restrictions_disk_conflicts(source, pod_vols, node_vols, want_pre, want_filter):
    pl = vr.VolumeRestrictions(None, None)
    state = CycleState()
    p = mk_pod("p", "", *pod_vols)
    _, status = pl.pre_filter(state, p, [])
    assert status == want_pre
    if status is None:  # "If PreFilter fails, then Filter will not run."
        ni = node_info(mk_pod("e", "", *node_vols)) if node_vols is not None else node_info()
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
    """isVolumeConflict's rules (volume_restrictions.go), one per branch."""
    assert vr.is_volume_conflict(vol("a", **v1), mk_pod("e", "", vol("b", **v2))) is conflict


def test_volume_restrictions_pvc_usage_is_refused():
    """TestAccessModeConflicts needs PVC objects (access modes): refused with a clear Error."""
    pl = vr.VolumeRestrictions(None, None)
    state = CycleState()
    _, status = pl.pre_filter(state, mk_pod("p", "default", pvc_vol("claim-with-rwop-1")), [])
    assert_not_supported(status, "VolumeRestrictions")
    assert "claim-with-rwop-1" in status.message()
    # A pod known only by its pvc_names is refused as well.
    p = Pod(namespace="default", name="p", uid="u", pvc_names=("c",))
    assert_not_supported(pl.pre_filter(CycleState(), p, [])[1], "VolumeRestrictions")


def test_volume_restrictions_state_and_extensions():
    """Filter without PreFilter state, AddPod/RemovePod bookkeeping (volume_restrictions.go)."""
    pl = vr.VolumeRestrictions(None, None)
    p = mk_pod("p", "", GCE)
    empty = CycleState()
    assert pl.filter(empty, p, node_info()) == Status.as_error(
        'cannot read "PreFilterVolumeRestrictions" from cycleState')
    assert pl.pre_filter_extensions() is pl
    assert pl.add_pod(empty, p, PodInfo(p), node_info()) == Status.as_error(
        'cannot read "PreFilterVolumeRestrictions" from cycleState')
    state = CycleState()
    assert pl.pre_filter(state, p, []) == (None, None)
    other = mk_pod("o", "", GCE)
    assert pl.add_pod(state, p, PodInfo(other), node_info()) is None
    assert pl.remove_pod(state, p, PodInfo(other), node_info()) is None
    assert state.read(vr.PRE_FILTER_STATE_KEY).conflicting_pvc_ref_count == 0
    # The state's RWOP count (never set by the model) makes Filter reject; clone keeps it.
    s = state.read(vr.PRE_FILTER_STATE_KEY)
    s.read_write_once_pod_pvcs = frozenset({"c"})
    s.update_with_pod(mk_pod("x", "", pvc_vol("c")), 1)
    assert state.clone().read(vr.PRE_FILTER_STATE_KEY).conflicting_pvc_ref_count == 1
    assert pl.filter(state, p, node_info()) == Status(
        Code.UNSCHEDULABLE, vr.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)


_QHINT_PODS = {
    "gcedisk": (GCE, GCE2), "awsdisk": (AWS, AWS2), "rbddisk": (RBD, RBD2),
    "iscsidisk": (ISCSI, ISCSI2),
}


@pytest.mark.parametrize("source,pod,deleted,want", [
    *[(f"{VR_TEST} Test_isSchedulableAfterAssignedPodDeleted/queue-new-object-{k}-conflict",
       mk_pod("", "", v1), mk_pod("", "", v1), QUEUE) for k, (v1, _) in _QHINT_PODS.items()],
    *[(f"{VR_TEST} Test_isSchedulableAfterAssignedPodDeleted/skip-new-object-{k}-no-conflict",
       mk_pod("", "", v1), mk_pod("", "", v2), QUEUE_SKIP) for k, (v1, v2) in _QHINT_PODS.items()],
    (f"{VR_TEST} Test_isSchedulableAfterAssignedPodDeleted/queue-has-same-claim",
     mk_pod("pod1", "", pvc_vol("claim-rwop")), mk_pod("pod2", "", pvc_vol("claim-rwop")), QUEUE),
    (f"{VR_TEST} Test_isSchedulableAfterAssignedPodDeleted/skip-no-same-claim",
     mk_pod("pod1", "", pvc_vol("claim-1-rwop")), mk_pod("pod2", "", pvc_vol("claim-2-rwop")),
     QUEUE_SKIP),
    ("own: other namespace", mk_pod("a", "ns1", GCE), mk_pod("b", "ns2", GCE), QUEUE_SKIP),
])
def test_volume_restrictions_assigned_pod_deleted_hint(source, pod, deleted, want):
    pl = vr.VolumeRestrictions(None, None)
    assert pl.is_schedulable_after_assigned_pod_deleted(pod, deleted, None) == (want, None)


_POD_ONE_PVC = mk_pod("pod-with-one-pvc", "default", pvc_vol("claim-with-rwx-1"))
_POD_TWO_PVCS = mk_pod("pod-with-two-pvcs", "default", pvc_vol("claim-with-rwx-1"),
                       pvc_vol("claim-with-rwx-2"))
_POD_OTHER_NS = mk_pod("pod-with-one-pvc", "kube-system", pvc_vol("claim-with-rwx-1"))
_PVC1 = PVC(namespace="default", name="claim-with-rwx-1")
_PVC2 = PVC(namespace="default", name="claim-with-rwx-2")


@pytest.mark.parametrize("source,pod,new,want", [
    ("queue-new-object-pvc-belong-pod", _POD_TWO_PVCS, _PVC1, QUEUE),
    ("skip-new-object-unused", _POD_ONE_PVC, _PVC2, QUEUE_SKIP),
    ("skip-nil-old-object", _POD_ONE_PVC, _PVC2, QUEUE_SKIP),
    ("skip-new-object-not-belong-pod", _POD_ONE_PVC, _PVC2, QUEUE_SKIP),
    ("skip-new-object-namespace-not-equal-pod", _POD_OTHER_NS, _PVC1, QUEUE_SKIP),
])
def test_volume_restrictions_pvc_added_hint(source, pod, new, want):
    """volume_restrictions_test.go Test_isSchedulableAfterPersistentVolumeClaimChange."""
    pl = vr.VolumeRestrictions(None, None)
    assert pl.is_schedulable_after_persistent_volume_claim_added(pod, None, new) == (want, None)


def test_volume_restrictions_sign_and_events():
    pl = vr.VolumeRestrictions(None, None)
    p = mk_pod("p", "", vol("cm", configMap={"name": "c"}), vol("s", secret={"secretName": "s"}),
               vol("b", emptyDir={}), vol("a", gcePersistentDisk={"pdName": "x"}))
    frags, status = pl.sign_pod(p)
    assert status is None
    assert frags == [(vr.VOLUMES_SIGNER_NAME,
                      ('{"emptyDir":{}}', '{"gcePersistentDisk":{"pdName":"x"}}'))]
    # Volume names do not matter, configMap/secret volumes are ignored.
    q = mk_pod("q", "", vol("zz", gcePersistentDisk={"pdName": "x"}), vol("yy", emptyDir={}))
    assert pl.sign_pod(q) == pl.sign_pod(p)
    assert pl.sign_pod(mk_pod("r", "")) == ([(vr.VOLUMES_SIGNER_NAME, ())], None)
    json.dumps(frags)  # the value is JSON-marshallable, like upstream's
    assert pl.events_to_register() == [
        ("AssignedPod", ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
        ("Node", ("Add",), None),
        ("PersistentVolumeClaim", ("Add",), "is_schedulable_after_persistent_volume_claim_added"),
    ]
    for _, _, hint in pl.events_to_register():
        assert hint is None or callable(getattr(pl, hint))


# ---------------------------------------------------------------------------------------------
# NodeVolumeLimits
# ---------------------------------------------------------------------------------------------

_CM_AND_SECRET = (vol("cm", configMap={"name": "c"}), vol("s", secret={"secretName": "s"}))


def test_node_volume_limits_skip_for_configmaps_and_secrets():
    """csi_test.go TestCSILimits/"skip Filter when the pod only uses secrets and configmaps"."""
    pl = NodeVolumeLimits(None, None)
    p = mk_pod("p", "", *_CM_AND_SECRET)
    assert pl.pre_filter(CycleState(), p, []) == (None, skip())
    assert pl.pre_filter(CycleState(), mk_pod(), []) == (None, skip())
    # Filter on a pod without counted volumes: newVolumes is empty, the pod fits.
    assert pl.filter(CycleState(), p, node_info()) is None
    assert pl.filter(CycleState(), mk_pod(), node_info()) is None


@pytest.mark.parametrize("source,extra,what", [
    ("TestCSILimits/don't skip Filter when the pod has pvcs", pvc_vol("csi-ebs.csi.aws.com-0"),
     "PersistentVolumeClaim"),
    ("TestCSILimits/don't skip Filter when the pod has ephemeral volumes",
     vol("xyz", ephemeral={"volumeClaimTemplate": {}}), "generic ephemeral volume"),
    ("TestCSILimits/don't skip Filter when the pod has inline migratable volumes",
     vol("aws-inline1", awsElasticBlockStore={"volumeID": "aws-inline1"}),
     "CSI-migratable inline volume"),
    ("own: every CSI-migratable inline source",
     vol("c", cinder={"volumeID": "v"}), "CSI-migratable inline volume"),
])
def test_node_volume_limits_usage_is_refused(source, extra, what):
    """Upstream's PreFilter returns Success for these pods and Filter counts their volumes
    (csi_test.go); counting needs PVCs/PVs/CSINodes, so PreFilter refuses them."""
    pl = NodeVolumeLimits(None, None)
    p = mk_pod("abc", "test", *_CM_AND_SECRET, extra)
    _, status = pl.pre_filter(CycleState(), p, [])
    assert_not_supported(status, "NodeVolumeLimits")
    assert what in status.message()
    assert_not_supported(pl.filter(CycleState(), p, node_info()), "NodeVolumeLimits")


@pytest.mark.parametrize("source,deleted,scheduled,want", [
    ("return a Queue when a deleted pod has a PVC", mk_pod("", "", pvc_vol("placeholder")),
     True, QUEUE),
    ("return a Queue when a deleted pod has a inline migratable volume",
     mk_pod("", "", vol(awsElasticBlockStore={})), True, QUEUE),
    ("return a QueueSkip when a deleted pod doesn't have any volume", mk_pod(), True, QUEUE_SKIP),
    ("return a QueueSkip when a deleted pod is not scheduled.",
     mk_pod("", "", pvc_vol("csi-ebs.csi.aws.com-0")), False, QUEUE_SKIP),
])
def test_node_volume_limits_assigned_pod_deleted_hint(source, deleted, scheduled, want):
    """csi_test.go TestCSILimitsQHint."""
    deleted.node_name = "csiNode" if scheduled else ""
    pl = NodeVolumeLimits(None, None)
    pod = mk_pod("", "", pvc_vol("csi-ebs.csi.aws.com-2"))
    assert pl.is_schedulable_after_assigned_pod_deleted(pod, deleted, None) == (want, None)


@pytest.mark.parametrize("source,pod,added,want", [
    ("a pod isn't in the same namespace as an added PVC", mk_pod("", "ns1"),
     PVC(namespace="ns2", name=""), QUEUE_SKIP),
    ("a pod is in the same namespace as an added PVC",
     mk_pod("", "ns1", vol(persistentVolumeClaim={"claimName": "pvc1"})),
     PVC(namespace="ns1", name="pvc1"), QUEUE),
    ("a pod has an ephemeral volume related to an added PVC",
     mk_pod("pod1", "ns1", vol("ephemeral", ephemeral={})),
     PVC(namespace="ns1", name="pod1-ephemeral"), QUEUE),
    ("a pod doesn't have the same PVC as an added PVC",
     mk_pod("", "ns1", vol(persistentVolumeClaim={"claimName": "pvc1"})),
     PVC(namespace="ns1", name="pvc2"), QUEUE_SKIP),
    ("a pod doesn't have any PVC attached", mk_pod("", "ns1"), PVC(namespace="ns1", name="pvc2"),
     QUEUE_SKIP),
])
def test_node_volume_limits_pvc_added_hint(source, pod, added, want):
    """csi_test.go TestCSILimitsAddedPVCQHint."""
    assert NodeVolumeLimits(None, None).is_schedulable_after_pvc_added(pod, None, added) == (
        want, None)


def test_node_volume_limits_sign_and_events():
    pl = NodeVolumeLimits(None, None)
    p = mk_pod("p", "", vol("a", hostPath={"path": "/x"}))
    assert pl.sign_pod(p) == ([(vr.VOLUMES_SIGNER_NAME, ('{"hostPath":{"path":"/x"}}',))], None)
    assert pl.events_to_register() == [
        ("storage.k8s.io/CSINode", ("Add",), None),
        ("storage.k8s.io/CSINode", ("Update",), "is_schedulable_after_csi_node_updated"),
        ("AssignedPod", ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
        ("PersistentVolumeClaim", ("Add",), "is_schedulable_after_pvc_added"),
        ("storage.k8s.io/VolumeAttachment", ("Delete",),
         "is_schedulable_after_volume_attachment_deleted"),
    ]
    hint, err = pl.is_schedulable_after_csi_node_updated(p, None, None)
    assert hint == QUEUE and "not supported yet" in err


# ---------------------------------------------------------------------------------------------
# VolumeBinding
# ---------------------------------------------------------------------------------------------

def _vb(scoring: bool = True) -> vb.VolumeBinding:
    return vb.VolumeBinding(None, FakeHandle(features={"StorageCapacityScoring": scoring}))


def test_volume_binding_pod_without_pvcs():
    """volume_binding_test.go TestVolumeBinding/"pod has not pvcs": PreFilter Skip (and an
    empty state written); then the rest of the cycle as volume_binding.go runs it."""
    pl = _vb()
    state = CycleState()
    p = mk_pod("pod-a", "default", vol("e", emptyDir={}))
    assert pl.pre_filter(state, p, []) == (None, skip())
    s = state.read(vb.STATE_KEY)
    assert s.pod_volumes_by_node is None and not s.all_bound
    ni = node_info(name="node-a")
    # StorageCapacityScoring on (v1.37.2 default): PreScore Success, Score 0.
    assert pl.pre_score(state, p, [ni]) is None
    assert pl.score(state, p, ni) == 0
    assert pl.reserve(state, p, "node-a") is None and s.all_bound
    assert pl.pre_bind_pre_flight(state, p, "node-a") == skip()
    assert pl.pre_bind(state, p, "node-a") is None
    assert pl.unreserve(state, p, "node-a") is None
    assert state.clone().read(vb.STATE_KEY) is s  # Clone shares the pointer


def test_volume_binding_prescore_without_capacity_scoring():
    """TestVolumeBinding/"pod has not pvcs" wants PreScore Skip with zero Features (no scorer)."""
    pl = _vb(scoring=False)
    state = CycleState()
    p = mk_pod("pod-a", "default")
    assert pl.pre_filter(state, p, []) == (None, skip())
    assert pl.pre_score(state, p, []) == skip()
    assert pl.score(state, p, node_info()) == 0


@pytest.mark.parametrize("state_value,node,want", [
    ("all bound", "node-a", skip()),
    ("volume to be bound", "node-a", None),
    ("error: state is nil", "node-a", Status.as_error("not found")),
    ("error: node is not found in podVolumesByNode", "node-a",
     Status.as_error('no pod volume found for node "node-a"')),
])
def test_volume_binding_pre_bind_pre_flight(state_value, node, want):
    """volume_binding_test.go Test_PreBindPreFlight."""
    state = CycleState()
    if state_value != "error: state is nil":
        s = vb._StateData()
        if state_value == "all bound":
            s.all_bound = True
        elif state_value == "volume to be bound":
            s.pod_volumes_by_node = {"node-a": {}}
        else:
            s.pod_volumes_by_node = {"node-b": {}}
        state.write(vb.STATE_KEY, s)
    assert vb.VolumeBinding(None, None).pre_bind_pre_flight(state, Pod("", "", ""), node) == want


def test_volume_binding_missing_state():
    pl = _vb()
    p = mk_pod()
    assert pl.pre_score(CycleState(), p, []) == Status.as_error("not found")
    with pytest.raises(PluginError):
        pl.score(CycleState(), p, node_info())
    assert pl.reserve(CycleState(), p, "n") == Status.as_error("not found")
    assert pl.pre_bind(CycleState(), p, "n") == Status.as_error("not found")


def VPVC(namespace: str, name: str) -> PersistentVolumeClaim:  # noqa: N802
    return PersistentVolumeClaim(namespace=namespace, name=name)


def _vbpod(ns: str = "default", *vols: dict) -> Pod:
    return mk_pod("pod-a", ns, *vols)


def _eph(name: str) -> dict:
    return vol(name, ephemeral={"volumeClaimTemplate": {}})


@pytest.mark.parametrize("source,pod,old,new,want,err", [
    ("pod has no pvc or ephemeral volumes", _vbpod("default", vol("e", emptyDir={})),
     VPVC(namespace="default", name="pvc-b"), VPVC(namespace="default", name="pvc-b"),
     QUEUE_SKIP, False),
    ("pvc with the same name as the one used by the pod in a different namespace is modified",
     _vbpod("ns-a", pvc_vol("pvc-a"), pvc_vol("pvc-b")), None,
     VPVC(namespace="default", name="pvc-b"), QUEUE_SKIP, False),
    ("pod has no pvc that is being modified", _vbpod("default", pvc_vol("pvc-a"),
                                                     pvc_vol("pvc-c")),
     VPVC(namespace="default", name="pvc-b"), VPVC(namespace="default", name="pvc-b"),
     QUEUE_SKIP, False),
    ("pod has no generic ephemeral volume that is being modified",
     _vbpod("default", _eph("ephemeral-a"), _eph("ephemeral-c")),
     VPVC(namespace="default", name="pod-a-ephemeral-b"),
     VPVC(namespace="default", name="pod-a-ephemeral-b"), QUEUE_SKIP, False),
    ("pod has the pvc that is being modified", _vbpod("default", pvc_vol("pvc-a"),
                                                      pvc_vol("pvc-b")),
     VPVC(namespace="default", name="pvc-b"), VPVC(namespace="default", name="pvc-b"),
     QUEUE, False),
    ("pod has the generic ephemeral volume that is being modified",
     _vbpod("default", _eph("ephemeral-a"), _eph("ephemeral-b")),
     VPVC(namespace="default", name="pod-a-ephemeral-b"),
     VPVC(namespace="default", name="pod-a-ephemeral-b"), QUEUE, False),
    ("type conversion error", _vbpod(), object(), object(), QUEUE, True),
])
def test_volume_binding_pvc_change_hint(source, pod, old, new, want, err):
    """volume_binding_test.go TestIsSchedulableAfterPersistentVolumeClaimChange."""
    hint, error = vb.VolumeBinding(None, None).is_schedulable_after_persistent_volume_claim_change(
        pod, old, new)
    assert hint == want and (error is not None) is err


def test_volume_binding_sign_and_events():
    pl = _vb()
    assert pl.sign_pod(mk_pod()) == ([(vr.VOLUMES_SIGNER_NAME, ())], None)
    assert pl.events_to_register() == [
        ("storage.k8s.io/StorageClass", ("Add", "Update"),
         "is_schedulable_after_storage_class_change"),
        ("PersistentVolumeClaim", ("Add", "Update"),
         "is_schedulable_after_persistent_volume_claim_change"),
        ("PersistentVolume", ("Add", "Update"), None),
        ("Node", ("Add", "UpdateNodeLabel"), None),
        ("storage.k8s.io/CSINode", ("Add", "Update"), "is_schedulable_after_csi_node_change"),
        ("storage.k8s.io/CSIDriver", ("Update",), "is_schedulable_after_csi_driver_change"),
        ("storage.k8s.io/CSIStorageCapacity", ("Add", "Update"),
         "is_schedulable_after_csi_storage_capacity_change"),
    ]
    for _, _, hint in pl.events_to_register():
        assert hint is None or callable(getattr(pl, hint))


# ---------------------------------------------------------------------------------------------
# VolumeZone
# ---------------------------------------------------------------------------------------------

def test_volume_zone_pod_without_volume():
    """volume_zone_test.go TestSingleZone/"pod without volume": PreFilter Skip, Filter nil."""
    pl = vz.VolumeZone(None, None)
    state = CycleState()
    p = mk_pod("pod_1", "default")
    assert pl.pre_filter(state, p, []) == (None, skip())
    ni = node_info(name="host1", labels={LABEL_FAILURE_DOMAIN_BETA_ZONE: "us-west1-a"})
    assert pl.filter(state, p, ni) is None
    # Ephemeral and inline volumes are not looked at by VolumeZone.
    q = mk_pod("pod_1", "default", _eph("e"), GCE)
    assert pl.pre_filter(CycleState(), q, []) == (None, skip())
    assert pl.filter(CycleState(), q, ni) is None


def test_volume_zone_pvc_usage_is_refused():
    pl = vz.VolumeZone(None, None)
    p = mk_pod("pod_1", "default", pvc_vol("PVC_1"))
    assert_not_supported(pl.pre_filter(CycleState(), p, [])[1], "VolumeZone")
    # Filter without PreFilter state falls back to getPVbyPod: refused too.
    assert_not_supported(pl.filter(CycleState(), p, node_info()), "VolumeZone")
    # An empty claim name needs no lister: UnschedulableAndUnresolvable, as upstream.
    q = mk_pod("pod_1", "default", vol("v", persistentVolumeClaim={"claimName": ""}))
    assert pl.pre_filter(CycleState(), q, [])[1] == Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "PersistentVolumeClaim had no name")


_CONFLICT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, vz.ERR_REASON_CONFLICT)


@pytest.mark.parametrize("source,pv_labels,node_labels,want", [
    ("TestSingleZone/node without labels", {LABEL_FAILURE_DOMAIN_BETA_ZONE: "us-west1-a"}, {},
     None),
    ("TestSingleZone/beta zone label matched", {LABEL_FAILURE_DOMAIN_BETA_ZONE: "us-west1-a"},
     {LABEL_FAILURE_DOMAIN_BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, None),
    ("TestSingleZone/beta region label matched", {LABEL_FAILURE_DOMAIN_BETA_REGION: "us-west1"},
     {LABEL_FAILURE_DOMAIN_BETA_REGION: "us-west1", "uselessLabel": "none"}, None),
    ("TestSingleZone/beta region label doesn't match",
     {LABEL_FAILURE_DOMAIN_BETA_REGION: "us-west1"},
     {LABEL_FAILURE_DOMAIN_BETA_REGION: "no_us-west1", "uselessLabel": "none"}, _CONFLICT),
    ("TestSingleZone/beta zone label doesn't match",
     {LABEL_FAILURE_DOMAIN_BETA_ZONE: "us-west1-a"},
     {LABEL_FAILURE_DOMAIN_BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"}, _CONFLICT),
    ("TestSingleZone/zone label matched", {LABEL_TOPOLOGY_ZONE: "us-west1-a"},
     {LABEL_TOPOLOGY_ZONE: "us-west1-a", "uselessLabel": "none"}, None),
    ("TestSingleZone/region label doesn't match", {LABEL_TOPOLOGY_REGION: "us-west1"},
     {LABEL_TOPOLOGY_REGION: "no_us-west1", "uselessLabel": "none"}, _CONFLICT),
    ("TestSingleZone/pv with zone and region, node with only zone",
     {LABEL_TOPOLOGY_ZONE: "us-west1-a", LABEL_TOPOLOGY_REGION: "us-west1-a"},
     {LABEL_TOPOLOGY_ZONE: "us-west1-a"}, _CONFLICT),
    ("TestSingleZone/pv with beta label,node with ga label, matched",
     {LABEL_FAILURE_DOMAIN_BETA_ZONE: "us-west1-a"}, {LABEL_TOPOLOGY_ZONE: "us-west1-a"}, None),
    ("TestSingleZone/pv with beta label,node with ga label, don't match",
     {LABEL_FAILURE_DOMAIN_BETA_ZONE: "us-west1-a"}, {LABEL_TOPOLOGY_ZONE: "us-west1-b"},
     _CONFLICT),
    ("TestMultiZone/beta zone label matched (us-west1-c__us-west1-a)",
     {LABEL_FAILURE_DOMAIN_BETA_ZONE: "us-west1-c__us-west1-a"},
     {LABEL_FAILURE_DOMAIN_BETA_ZONE: "us-west1-a"}, None),
])
def test_volume_zone_filter_node_labels(source, pv_labels, node_labels, want):
    """volume_zone_test.go: the Filter half of the cases, given the PV topologies the PreFilter
    computes from the bound PV's labels (``getPVTopologies``, multi-zone values split on
    "__" by ``LabelZonesToSet``). The PV/PVC lookup itself is not modelled."""
    topologies = [vz.PVTopology("Vol", key, frozenset(pv_labels[key].split("__")))
                  for key in vz.TOPOLOGY_LABELS if key in pv_labels]
    state = CycleState()
    state.write(vz.PRE_FILTER_STATE_KEY, vz._StateData(topologies))
    p = mk_pod("pod_1", "default", pvc_vol("PVC_1"))
    assert vz.VolumeZone(None, None).filter(state, p, node_info(name="host1",
                                                                labels=node_labels)) == want


def _vzpod(claim: str | None) -> Pod:
    return mk_pod("pod_1", "default", *([pvc_vol(claim)] if claim else []))


@pytest.mark.parametrize("source,pod,old,new,want,err", [
    ("error-wrong-new-object", _vzpod("PVC_1"), None, "not-a-pvc", QUEUE, True),
    ("pvc-was-added-but-pod-refers-no-pvc", _vzpod(None), None,
     PVC(namespace="default", name="PVC_1"), QUEUE_SKIP, False),
    ("pvc-was-added-and-pod-was-bound-to-different-pvc", _vzpod("PVC_2"), None,
     PVC(namespace="default", name="PVC_1"), QUEUE_SKIP, False),
    ("pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns", _vzpod("PVC_1"), None,
     PVC(namespace="ns1", name="PVC_1"), QUEUE_SKIP, False),
    ("pvc-was-added-and-pod-was-bound-to-the-pvc", _vzpod("PVC_1"), None,
     PVC(namespace="default", name="PVC_1"), QUEUE, False),
    ("pvc-was-updated-and-pod-was-bound-to-the-pvc", _vzpod("PVC_1"),
     PVC(namespace="default", name="PVC_1"), PVC(namespace="default", name="PVC_1"), QUEUE,
     False),
    ("pvc-was-updated-but-pod-refers-no-pvc", _vzpod(None),
     PVC(namespace="default", name="PVC_1"), PVC(namespace="default", name="PVC_1"),
     QUEUE_SKIP, False),
])
def test_volume_zone_pvc_change_hint(source, pod, old, new, want, err):
    """volume_zone_test.go TestIsSchedulableAfterPersistentVolumeClaimAdded."""
    hint, error = vz.VolumeZone(None, None).is_schedulable_after_persistent_volume_claim_change(
        pod, old, new)
    assert hint == want and (error is not None) is err


def test_volume_zone_sign_and_events():
    pl = vz.VolumeZone(None, None)
    assert pl.sign_pod(mk_pod()) == ([(vr.VOLUMES_SIGNER_NAME, ())], None)
    assert pl.events_to_register() == [
        ("storage.k8s.io/StorageClass", ("Add",), "is_schedulable_after_storage_class_added"),
        ("Node", ("Add", "UpdateNodeLabel"), None),
        ("PersistentVolumeClaim", ("Add", "Update"),
         "is_schedulable_after_persistent_volume_claim_change"),
        ("PersistentVolume", ("Add", "Update"), "is_schedulable_after_persistent_volume_change"),
    ]


# ---------------------------------------------------------------------------------------------
# DynamicResources
# ---------------------------------------------------------------------------------------------

_DRA_ON = {"DynamicResourceAllocation": True, "DRAPrioritizedList": True,
           "DRAExtendedResource": True}


def _dra(enabled: bool = True) -> dra.DynamicResources:
    feats = dict(_DRA_ON) if enabled else {k: False for k in _DRA_ON}
    return dra.DynamicResources(None, FakeHandle(features=feats))


def test_dynamic_resources_empty():
    """dynamicresources_test.go testPlugin/"empty" and "empty-with-extended-resources-enabled":
    PreEnqueue Success, PreFilter Skip, Filter Success, Reserve Success, PreBindPreFlight Skip,
    PreBind Success; plus Score 0 (no PreScore, so Score runs for every node)."""
    pl = _dra()
    p = mk_pod("foo", "default")
    assert pl.pre_enqueue(p) is None
    state = CycleState()
    assert pl.pre_filter(state, p, []) == (None, skip())
    assert state.read(dra.STATE_KEY).claims.empty()
    ni = node_info(name="worker")
    assert pl.filter(state, p, ni) is None
    assert pl.score(state, p, ni) == 0
    assert pl.reserve(state, p, "worker") is None
    assert pl.pre_bind_pre_flight(state, p, "worker") == skip()
    assert pl.pre_bind(state, p, "worker") is None
    assert pl.unreserve(state, p, "worker") is None


def test_dynamic_resources_post_filter_no_op():
    """dynamicresources_test.go TestPostFilterNoOpStatusHasNoUserVisibleReason."""
    p = mk_pod("pod", "default")
    # "plugin disabled"
    result, status = _dra(enabled=False).post_filter(CycleState(), p, None)
    assert result is None and status.code == Code.UNSCHEDULABLE and status.all_reasons() == []
    # "no claims"
    state = CycleState()
    state.write(dra.STATE_KEY, dra._StateData())
    result, status = _dra().post_filter(state, p, None)
    assert result is None and status.code == Code.UNSCHEDULABLE and status.all_reasons() == []


MAX_INT32 = 2**31 - 1


@pytest.mark.parametrize("name,scores,want", [
    ("empty", [], []),
    ("single-score", [42], [100]),
    ("all-same", [8, 8], [100, 100]),
    ("all-same-very-large", [MAX_INT32, MAX_INT32], [100, 100]),
    ("max-and-min-values", [MAX_INT32, 0], [100, 0]),
    ("mid-value", [99, 98, 97], [100, 98, 97]),
    ("large-spread-lost-precision", [MAX_INT32, MAX_INT32 - 1, 1, 0], [100, 99, 0, 0]),
])
def test_dynamic_resources_normalize_score(name, scores, want):
    """dynamicresources_test.go TestNormalizeScore."""
    lst = [[f"node-{i + 1}", s] for i, s in enumerate(scores)]
    assert _dra().normalize_score(CycleState(), None, lst) is None
    assert [s for _, s in lst] == want


def test_dynamic_resources_disabled():
    """New without the DynamicResourceAllocation gate: "Disabled, won't do anything"."""
    pl = _dra(enabled=False)
    p = mk_pod("foo", "default", claims=("my-resource",))
    state = CycleState()
    assert pl.pre_enqueue(p) is None
    assert pl.pre_filter(state, p, []) == (None, skip())
    assert pl.filter(state, p, node_info()) is None
    assert pl.score(state, p, node_info()) == 0
    lst = [["a", 5], ["b", 10]]
    assert pl.normalize_score(state, p, lst) is None and lst == [["a", 5], ["b", 10]]
    assert pl.reserve(state, p, "n") is None
    assert pl.pre_bind_pre_flight(state, p, "n") == skip()
    assert pl.pre_bind(state, p, "n") is None
    assert pl.events_to_register() == []


def test_dynamic_resources_device_class_extended_resource_is_refused():
    """Extended resources a DeviceClass maps (``deviceclass.resource.kubernetes.io/<class>``
    or its ``extendedResourceName``; hasDeviceClassMappedExtendedResource) are backed by DRA
    (extendeddynamicresources.go), which is not modelled yet: an Error at PreFilter."""
    classes = {"my-resource-class": DeviceClass("my-resource-class"),
               "gpus": DeviceClass("gpus", extended_resource_name="example.com/gpu")}
    feats = dict(_DRA_ON)
    pl = dra.DynamicResources(None, FakeHandle(features=feats, dra=DRAObjects(
        device_classes=classes)))
    for name in ("deviceclass.resource.kubernetes.io/my-resource-class", "example.com/gpu"):
        p = mk_pod("foo", "default", containers=(Container("c", requests=((name,
                                                                           Fraction(1)),)),))
        assert pl.pre_enqueue(p) is None
        assert_not_supported(pl.pre_filter(CycleState(), p, [])[1], "DynamicResources")
    # Without a DeviceClass mapping it, a resource is not backed by DRA.
    for name in ("deviceclass.resource.kubernetes.io/other", "example.com/fpga"):
        q = mk_pod("foo", "default", containers=(Container("c", requests=((name,
                                                                           Fraction(1)),)),))
        assert pl.pre_filter(CycleState(), q, []) == (None, skip())


def test_dynamic_resources_missing_state():
    pl = _dra()
    p = mk_pod()
    st = CycleState()
    assert pl.filter(st, p, node_info()) == Status.as_error("not found")
    assert pl.post_filter(st, p, None) == (None, Status.as_error("not found"))
    assert pl.reserve(st, p, "n") == Status.as_error("not found")
    assert pl.pre_bind_pre_flight(st, p, "n") == Status.as_error("not found")
    assert pl.pre_bind(st, p, "n") == Status.as_error("not found")
    with pytest.raises(PluginError):
        pl.score(st, p, node_info())


def test_dynamic_resources_sign_and_events():
    pl = _dra()
    assert pl.sign_pod(mk_pod()) == (None, None)
    frags, status = pl.sign_pod(mk_pod(claims=("c",)))
    assert frags is None and status == Status(
        Code.UNSCHEDULABLE, "pods with dra resource claims are not signable")
    assert pl.events_to_register() == [
        ("Node", ("Add", "UpdateNodeLabel", "UpdateNodeAllocatable"), None),
        ("resource.k8s.io/ResourceClaim", ("Add", "Update", "Delete"),
         "is_schedulable_after_claim_change"),
        ("TargetPod", ("UpdatePodGeneratedResourceClaim",),
         "is_schedulable_after_target_pod_update"),
        ("resource.k8s.io/DeviceClass", ("Add", "Update"), None),
        ("resource.k8s.io/ResourceSlice", ("Add", "Update"), None),
    ]
    assert pl.is_schedulable_after_target_pod_update(mk_pod(), None, mk_pod()) == (QUEUE, None)


# ---------------------------------------------------------------------------------------------
# NodeDeclaredFeatures
# ---------------------------------------------------------------------------------------------

def _ndf(enabled: bool = True) -> ndf.NodeDeclaredFeatures:
    return ndf.NodeDeclaredFeatures(None, FakeHandle(features={"NodeDeclaredFeatures": enabled}))


def _mock_framework(*features: tuple) -> ndf.NdfFramework:
    """``ndftesting.NewMockFeature`` stand-ins: (name, infer result, max version or None)."""
    return ndf.NdfFramework(ndf.DeclaredFeature(n, (lambda _p, r=r: r), mv)
                            for n, r, mv in features)


@pytest.mark.parametrize("name,enabled,features,version,want_status,want_reqs", [
    ("plugin disabled", False, [("TestFeature1", True, None), ("TestFeature2", False, None)],
     (1, 35, 0), skip(), None),
    ("Pod with feature requirements", True,
     [("TestFeature1", True, None), ("TestFeature2", False, None)], (1, 35, 0), None,
     ["TestFeature1"]),
    ("Pod with multiple feature requirements", True,
     [("TestFeature1", True, (1, 38, 0)), ("TestFeature2", True, (1, 38, 0))], (1, 35, 0), None,
     ["TestFeature1", "TestFeature2"]),
    ("Pod with no requirements", True,
     [("TestFeature1", False, None), ("TestFeature2", False, None)], (1, 35, 0), skip(), None),
    ("Feature not required, version > MaxVersion", True,
     [("TestFeature1", True, (1, 33, 0)), ("TestFeature2", False, None)], (1, 34, 0), skip(),
     None),
])
def test_ndf_pre_filter(name, enabled, features, version, want_status, want_reqs):
    """nodedeclaredfeatures_test.go TestPreFilter."""
    pl = _ndf(enabled)
    pl.ndf_framework = _mock_framework(*features)
    pl.version = version
    state = CycleState()
    result, status = pl.pre_filter(state, mk_pod("test-pod"), [])
    assert result is None and status == want_status
    s = state.get(ndf.PRE_FILTER_STATE_KEY)
    if want_reqs is None:
        assert s is None
    else:
        assert s.reqs.equal(pl.ndf_framework.map_sorted(want_reqs))


_NDF_UNSATISFIED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          ndf.ERR_REASON_UNSATISFIED_REQUIREMENTS)


@pytest.mark.parametrize("name,enabled,declared,reqs,want", [
    ("plugin disabled", False, ("FeatureA", "FeatureB"), None, None),
    ("Node matches requirements", True, ("FeatureA", "FeatureB"), ["FeatureA"], None),
    ("Node does not match requirements", True, ("FeatureB",), ["FeatureA"], _NDF_UNSATISFIED),
    ("Node with multiple features, pod requires subset", False,
     ("FeatureA", "FeatureB", "FeatureC"), ["FeatureA", "FeatureC"], None),
    ("Node has no declared features", True, (), ["FeatureA"], _NDF_UNSATISFIED),
    ("Node with some but not all required features", True, ("FeatureA",),
     ["FeatureA", "FeatureB"], _NDF_UNSATISFIED),
    ("Error getting pre-filter state", True, (), None, Status.as_error(
        'error reading "PreFilterNodeDeclaredFeatures" from cycle-state: not found')),
])
def test_ndf_filter(name, enabled, declared, reqs, want):
    """nodedeclaredfeatures_test.go TestFilter (mock framework of FeatureA/B/C)."""
    pl = _ndf(enabled)
    pl.ndf_framework = _mock_framework(("FeatureA", False, None), ("FeatureB", False, None),
                                       ("FeatureC", False, None))
    state = CycleState()
    if reqs is not None:
        reqs_set = pl.ndf_framework.map_sorted(reqs)
        state.write(ndf.PRE_FILTER_STATE_KEY, ndf._PreFilterState(reqs_set))
    assert pl.filter(state, mk_pod("test-pod"), node_info(name="node-1", declared=declared)) == want


@pytest.mark.parametrize("name,old,new,want", [
    ("Node Add with feature", None, ("FeatureA",), QUEUE),
    ("Node Update (Features Added)", (), ("FeatureA",), QUEUE),
    ("Node Update (Features Unchanged)", ("FeatureA",), ("FeatureA",), QUEUE_SKIP),
])
def test_ndf_node_change_hint(name, old, new, want):
    """nodedeclaredfeatures_test.go TestEnqueueExtensionsNodeUpdate."""
    old_node = None if old is None else Node("node-1", declared_features=old)
    new_node = Node("node-1", declared_features=new)
    assert _ndf().is_schedulable_after_node_change(mk_pod(), old_node, new_node) == (want, None)


@pytest.mark.parametrize("name,results,want", [
    ("Pod Update adds requirement", [False, True], QUEUE),
    ("Pod Update removes requirement", [True, False], QUEUE),
    ("Pod Update with no change in requirements", [False, False], QUEUE_SKIP),
])
def test_ndf_target_pod_update_hint(name, results, want):
    """nodedeclaredfeatures_test.go TestIsSchedulableAfterTargetPodUpdate (the mock's
    InferForScheduling answers per call: old pod first, then new pod)."""
    answers = iter(results)
    pl = _ndf()
    pl.ndf_framework = ndf.NdfFramework([ndf.DeclaredFeature("TestFeature",
                                                             lambda _p: next(answers))])
    assert pl.is_schedulable_after_target_pod_update(mk_pod(), mk_pod(), mk_pod()) == (want, None)


@pytest.mark.parametrize("enabled,length", [(False, 0), (True, 2)])
def test_ndf_events_to_register(enabled, length):
    """nodedeclaredfeatures_test.go TestEventsToRegister."""
    events = _ndf(enabled).events_to_register()
    assert len(events) == length
    if enabled:
        assert events == [
            ("Node", ("Add", "UpdateNodeDeclaredFeature"), "is_schedulable_after_node_change"),
            ("TargetPod", ("Update",), "is_schedulable_after_target_pod_update"),
        ]


def test_ndf_default_registry_and_plain_pods():
    """features/registry.go AllFeatures: nine features, bits in name order; a plain pod
    requires none (PreFilter Skip, signature all zeros)."""
    fw = ndf.DEFAULT_FRAMEWORK
    assert fw.registered_features == sorted(fw.registered_features) == [
        "DRANodeAllocatableResources", "DRAOptionalNodeOperations", "ExtendWebSocketsToKubelet",
        "InPlacePodLevelResourcesVerticalScaling", "InPlacePodVerticalScalingInitContainers",
        "InPlacePodVerticalScalingMemoryBackedVolumes", "RestartAllContainersOnContainerExits",
        "UserNamespacesHostNetworkSupport", "VolumeBindMountOptions"]
    pl = _ndf()
    p = mk_pod("p", "default", containers=(Container("c"),))
    assert pl.pre_filter(CycleState(), p, []) == (None, skip())
    assert pl.sign_pod(p) == ([(ndf.FEATURES_SIGNER_NAME, "000000000")], None)


def _spec(**kw) -> SimpleNamespace:
    """A pod spec stand-in carrying fields the Pod model does not have yet."""
    base = {"containers": (), "init_containers": (), "ephemeral_containers": (),
            "host_network": False, "host_users": None}
    base.update(kw)
    return SimpleNamespace(**base)


def _ctr(**kw) -> SimpleNamespace:
    return SimpleNamespace(**{"restart_policy_rules": (), "volume_mounts": (), **kw})


_RESTART_ALL = _ctr(restart_policy_rules=({"action": "RestartAllContainers",
                                           "exitCodes": {"operator": "In", "values": [42]}},))


@pytest.mark.parametrize("source,fn,spec,want", [
    ("usernamespaceshostnetwork TestInferForScheduling/HostNetwork true, HostUsers false",
     ndf.infer_user_namespaces_host_network, _spec(host_network=True, host_users=False), True),
    ("usernamespaceshostnetwork TestInferForScheduling/HostNetwork true, HostUsers nil",
     ndf.infer_user_namespaces_host_network, _spec(host_network=True), False),
    ("usernamespaceshostnetwork TestInferForScheduling/HostNetwork true, HostUsers true",
     ndf.infer_user_namespaces_host_network, _spec(host_network=True, host_users=True), False),
    ("usernamespaceshostnetwork TestInferForScheduling/HostNetwork false, HostUsers false",
     ndf.infer_user_namespaces_host_network, _spec(host_users=False), False),
    ("restartallcontainers TestInferForScheduling/init container with rules",
     ndf.infer_restart_all_containers, _spec(init_containers=(_RESTART_ALL,),
                                             containers=(_ctr(),)), True),
    ("restartallcontainers TestInferForScheduling/regular container with rules",
     ndf.infer_restart_all_containers, _spec(init_containers=(_ctr(),),
                                             containers=(_RESTART_ALL,)), True),
    ("restartallcontainers TestInferForScheduling/no rules",
     ndf.infer_restart_all_containers, _spec(init_containers=(_ctr(),),
                                             containers=(_ctr(),)), False),
    ("own: volumebindmountoptions, ephemeral container mount",
     ndf.infer_volume_bind_mount_options,
     _spec(ephemeral_containers=(_ctr(volume_mounts=({"name": "v", "mountPath": "/v",
                                                      "bindMountOptions": ["noexec"]},)),)),
     True),
    ("own: volumebindmountoptions, no options", ndf.infer_volume_bind_mount_options,
     _spec(containers=(_ctr(volume_mounts=({"name": "v", "mountPath": "/v"},)),)), False),
])
def test_ndf_feature_inference(source, fn, spec, want):
    """component-helpers nodedeclaredfeatures/features/*: InferForScheduling."""
    assert fn(spec) is want


def test_ndf_required_feature_filters_nodes():
    """End to end with the default registry: a pod needing UserNamespacesHostNetworkSupport."""
    pl = _ndf()
    spec = _spec(host_network=True, host_users=False)
    state = CycleState()
    assert pl.pre_filter(state, spec, []) == (None, None)
    assert pl.sign_pod(spec) == ([(ndf.FEATURES_SIGNER_NAME, "000000010")], None)
    assert pl.filter(state, spec, node_info(declared=("UserNamespacesHostNetworkSupport",))) is None
    assert pl.filter(state, spec, node_info(declared=("VolumeBindMountOptions",))) == \
        _NDF_UNSATISFIED
    # Unknown declared features are ignored (TryMap).
    assert pl.filter(state, spec, node_info(
        declared=("Other", "UserNamespacesHostNetworkSupport"))) is None


@pytest.mark.parametrize("name,registry,version,want", [
    ("pod with feature, inferred during scheduling", [("PodLevelResources", True, None)],
     (1, 30, 0), ["PodLevelResources"]),
    ("pod without feature", [("PodLevelResources", False, None)], (1, 30, 0), []),
    ("feature universally available, not inferred during create",
     [("PodLevelResources", True, (1, 30, 0))], (1, 31, 0), []),
    ("pre-release target version", [("PodLevelResources", True, (1, 30, 0))], (0, 0, 0),
     ["PodLevelResources"]),
    ("exceeds max version", [("PodLevelResources", True, (1, 30, 0))], (1, 40, 0), []),
])
def test_ndf_infer_for_pod_scheduling(name, registry, version, want):
    """component-helpers nodedeclaredfeatures/framework_test.go TestInferForPodScheduling (the
    mock's inference stands for "pod has pod-level resources")."""
    fw = _mock_framework(*registry)
    assert fw.unmap(fw.infer_for_pod_scheduling(mk_pod(), version)) == want


@pytest.mark.parametrize("name,inp,error,expected", [
    ("Empty input", [], False, set()),
    ("Single valid feature", ["a"], False, {0}),
    ("Multiple valid features", ["a", "c"], False, {0, 2}),
    ("All features", ["a", "b", "c", "d"], False, {0, 1, 2, 3}),
    ("Unknown feature (start)", ["0", "a"], True, {0}),
    ("Unknown feature (middle)", ["a", "ab", "b"], True, {0, 1}),
    ("Unknown feature (end)", ["d", "e"], True, {3}),
])
def test_ndf_feature_mapper(name, inp, error, expected):
    """component-helpers nodedeclaredfeatures/featureset_test.go TestFeatureMapper."""
    fw = _mock_framework(*[(n, False, None) for n in "abcd"])
    fs = fw.try_map(inp)
    assert {i for i in range(4) if fs.get(i)} == expected
    if error:
        with pytest.raises(ValueError):
            fw.map_sorted(inp)
    else:
        assert fw.map_sorted(inp).equal(fs)
