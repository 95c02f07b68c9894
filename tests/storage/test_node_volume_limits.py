"""NodeVolumeLimits (reference_impl/plugins/nodevolumelimits.py) against upstream's tests.

Restated from ``pkg/scheduler/framework/plugins/nodevolumelimits/csi_test.go`` of v1.37.2, with
upstream's case names: TestCSILimits (every case), TestCSILimitsQHint,
TestCSILimitsAddedPVCQHint, TestCSILimitsDeletedVolumeAttachmentQHint,
TestCSILimitsAfterCSINodeUpdatedQHint, TestVolumeLimitScalingGate. The fixtures are upstream's:
``getFakeCSIPVLister`` / ``getFakeCSIPVCLister`` (claims ``csi-DRIVER-0..3`` bound to volumes
of the same name, ``csi-4`` unbound of class ``csi-sc``, ``csi-5`` without class, ``csi-6``
bound to a missing volume), ``getNodeWithPodAndVolumeLimits`` (a CSINode listing the drivers,
with or without ``allocatable.count``) and ``buildFakeClientWithVALister`` (VolumeAttachments of
``csi-DRIVER-j`` on the node). Upstream's pods have no namespace; here they are in ``default``
(the builders' namespace), and so are the claims.

Restated with another expectation, and why:
- TestCSILimits/"ephemeral volume missing" and /"don't skip Filter when the pod has ephemeral
  volumes": upstream's fake PVC lister words its NotFound ``persistentvolumeclaims "abc-xyz"``;
  the scheduler's informer lister (what a running scheduler and this reference answer) says
  ``persistentvolumeclaim "abc-xyz" not found``.

Not restated: TestCSILimits_DeferredResizeSkipped (pod status conditions, hence deferred
resizes, are not modelled: docs/reference.md).
"""

from __future__ import annotations

import pytest

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Pod
from reference_impl.model.storage import (
    CSIDriver,
    CSINode,
    CSINodeDriver,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
    VolumeAttachment,
)
from reference_impl.plugins import nodevolumelimits as nvl
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod

QUEUE, QUEUE_SKIP = "Queue", "QueueSkip"
EBS_CSI_DRIVER_NAME = "ebs.csi.aws.com"
GCE_CSI_DRIVER_NAME = "pd.csi.storage.gke.io"
AWS_EBS_IN_TREE_PLUGIN_NAME = "kubernetes.io/aws-ebs"
HOSTPATH_IN_TREE_PLUGIN_NAME = "kubernetes.io/hostpath"
SC_NAME = "csi-sc"
NODE_NAME = "node-for-max-pd-test-1"
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"
EXCEEDED = Status(Code.UNSCHEDULABLE, nvl.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)


def pod(*claims: str, volumes: tuple[dict, ...] = (), name: str = "p", ns: str = "default"
        ) -> Pod:
    """``st.MakePod().PVC(...)...``: claims first, then raw volumes."""
    w = make_pod(name).namespace(ns)
    for c in claims:
        w = w.pvc(c)
    for v in volumes:
        w = w.volume(v)
    return w.obj()


CM_AND_SECRET = ({"name": "cm", "configMap": {"name": "c"}},
                 {"name": "s", "secret": {"secretName": "s"}})
AWS_INLINE = {"name": "aws", "awsElasticBlockStore": {"volumeID": "aws-inline1"}}

RUNNING_POD = pod("csi-ebs.csi.aws.com-3")
PENDING_VOLUME_POD = pod("csi-4")
UNBOUND_PVC_POD2 = pod("csi-4", name="p2")
MISSING_PV_POD = pod("csi-6")
NO_SC_PVC_POD = pod("csi-5")
GCE_TWO_VOL_POD = pod("csi-pd.csi.storage.gke.io-1", "csi-pd.csi.storage.gke.io-2")
IN_TREE_ONE_VOL_POD = pod("csi-kubernetes.io/aws-ebs-0")
IN_TREE_TWO_VOL_POD = pod("csi-kubernetes.io/aws-ebs-1", "csi-kubernetes.io/aws-ebs-2")
CSI_EBS_ONE_VOL_POD = pod("csi-ebs.csi.aws.com-0")
CSI_EBS_TWO_VOL_POD = pod("csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2")
IN_TREE_NON_MIGRATABLE_ONE_VOL_POD = pod("csi-kubernetes.io/hostpath-0")
EPHEMERAL_VOLUME_POD = pod(name="abc", ns="test",
                           volumes=({"name": "xyz", "ephemeral": {}},))
EPHEMERAL_TWO_VOLUME_POD = pod(name="abc", ns="test", volumes=(
    {"name": "x", "ephemeral": {}}, {"name": "y", "ephemeral": {}}))
IN_TREE_INLINE_VOL_POD = pod(volumes=(AWS_INLINE,))
IN_TREE_INLINE_VOL_POD_WITH_SAME_CSI_VOLUME_ID = pod(volumes=(
    {"name": "aws", "awsElasticBlockStore": {"volumeID": "csi-ebs.csi.aws.com-1"}},))
ONLY_CONFIGMAP_AND_SECRET_VOL_POD = pod(volumes=CM_AND_SECRET)
PVC_POD_WITH_CONFIGMAP_AND_SECRET = pod(volumes=(
    *CM_AND_SECRET, {"name": "c", "persistentVolumeClaim": {"claimName": "csi-ebs.csi.aws.com-0"}}))
EPHEMERAL_POD_WITH_CONFIGMAP_AND_SECRET = pod(name="abc", ns="test", volumes=(
    *CM_AND_SECRET, {"name": "xyz", "ephemeral": {}}))
INLINE_MIGRATABLE_POD_WITH_CONFIGMAP_AND_SECRET = pod(volumes=(*CM_AND_SECRET, AWS_INLINE))


def ephemeral_claim(p: Pod, volume: str, owned: bool = True) -> PersistentVolumeClaim:
    """The claim of a generic ephemeral volume: ``POD-VOLUME``, of class ``csi-sc``, owned
    (controlled) by the pod unless ``owned`` is false (``conflictingClaim``)."""
    return PersistentVolumeClaim(namespace=p.namespace, name=f"{p.name}-{volume}",
                                 storage_class_name=SC_NAME,
                                 owner_pod_uid=p.uid if owned else "")


EPHEMERAL_CLAIM = ephemeral_claim(EPHEMERAL_VOLUME_POD, "xyz")
CONFLICTING_CLAIM = ephemeral_claim(EPHEMERAL_VOLUME_POD, "xyz", owned=False)
EPHEMERAL_CLAIM_X = ephemeral_claim(EPHEMERAL_TWO_VOLUME_POD, "x")
EPHEMERAL_CLAIM_Y = ephemeral_claim(EPHEMERAL_TWO_VOLUME_POD, "y")


def fake_csi_pvs(volume_name: str, *drivers: str) -> list[PersistentVolume]:
    """``getFakeCSIPVLister``: four volumes per driver, in-tree AWS EBS and host path ones for
    those plugin names, CSI ones otherwise."""
    out = []
    for driver in drivers:
        for j in range(4):
            handle = f"{volume_name}-{driver}-{j}"
            if driver == AWS_EBS_IN_TREE_PLUGIN_NAME:
                kind, src = "awsElasticBlockStore", {"volumeID": handle}
            elif driver == HOSTPATH_IN_TREE_PLUGIN_NAME:
                kind, src = "hostPath", {"path": "/tmp"}
            else:
                kind, src = "csi", {"driver": driver, "volumeHandle": handle}
            out.append(PersistentVolume(name=handle, source_kind=kind, source=src))
    return out


def fake_csi_pvcs(volume_name: str, sc_name: str, *drivers: str,
                  ns: str = "default") -> list[PersistentVolumeClaim]:
    """``getFakeCSIPVCLister``."""
    out = [PersistentVolumeClaim(namespace=ns, name=f"{volume_name}-{d}-{j}",
                                 volume_name=f"{volume_name}-{d}-{j}")
           for d in drivers for j in range(4)]
    out.append(PersistentVolumeClaim(namespace=ns, name=f"{volume_name}-4",
                                     storage_class_name=sc_name))
    out.append(PersistentVolumeClaim(namespace=ns, name=f"{volume_name}-5"))
    out.append(PersistentVolumeClaim(namespace=ns, name=f"{volume_name}-6",
                                     storage_class_name=sc_name,
                                     volume_name="missing-in-action"))
    return out


def fake_vas(count: int, *drivers: str) -> list[VolumeAttachment]:
    """``buildFakeClientWithVALister``."""
    return [VolumeAttachment(name=f"va-{d}-{j}", attacher=d, node_name=NODE_NAME,
                             persistent_volume_name=f"csi-{d}-{j}")
            for d in drivers for j in range(count)]


def csi_node_for(limit_source: str, limit: int, *drivers: str) -> CSINode | None:
    """``getNodeWithPodAndVolumeLimits``'s CSINode, with ``enableMigrationOnNode`` for AWS EBS
    (an annotation v1.37.2 no longer reads)."""
    annotations = ((MIGRATED_PLUGINS_ANNOTATION, AWS_EBS_IN_TREE_PLUGIN_NAME),)
    if limit_source == "csinode":
        return CSINode(NODE_NAME, tuple(CSINodeDriver(d, NODE_NAME, limit) for d in drivers),
                       annotations)
    if limit_source == "csinode-with-no-limit":
        return CSINode(NODE_NAME, tuple(CSINodeDriver(d, NODE_NAME) for d in drivers),
                       annotations)
    if limit_source == "no-csi-driver":
        return CSINode(NODE_NAME, (), annotations)
    return None


def node_with_pods(*pods: Pod) -> NodeInfo:
    ni = NodeInfo(make_node(NODE_NAME).obj())
    for p in pods:
        ni.add_pod(p)
    return ni


def plugin(limit_source: str, limit: int, drivers: tuple[str, ...], va_count: int = 0,
           extra_claims: tuple[PersistentVolumeClaim, ...] = (),
           csi_drivers: tuple[CSIDriver, ...] = (), scaling: bool = True,
           ) -> nvl.NodeVolumeLimits:
    csi_node = csi_node_for(limit_source, limit, *drivers)
    claims = [*fake_csi_pvcs("csi", SC_NAME, *drivers), *extra_claims]
    storage = StorageObjects(
        volumes={v.name: v for v in fake_csi_pvs("csi", *drivers)},
        claims={c.key: c for c in claims},
        classes={SC_NAME: StorageClass(SC_NAME, drivers[0])},
        csi_nodes={csi_node.name: csi_node} if csi_node is not None else {},
        csi_drivers={d.name: d for d in csi_drivers},
        attachments={va.name: va for va in fake_vas(va_count, *drivers)},
    )
    return nvl.NodeVolumeLimits(None, FakeHandle(storage=storage,
                                                 features={"VolumeLimitScaling": scaling}))


def not_found_claim(ns: str, name: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                  f'looking up PVC {ns}/{name}: persistentvolumeclaim "{name}" not found')


MIGRATION = (AWS_EBS_IN_TREE_PLUGIN_NAME, EBS_CSI_DRIVER_NAME)

# (test, newPod, existingPods, extraClaims, maxVols, vaCount, driverNames, limitSource,
#  wantStatus, wantPreFilterStatus)
CSI_LIMITS_CASES = [
    ("should count VolumeAttachments towards volume limit when no pods exist",
     CSI_EBS_ONE_VOL_POD, (), (), 2, 2, (EBS_CSI_DRIVER_NAME,), "csinode", EXCEEDED, None),
    ("should schedule pod when VolumeAttachments count does not exceed limit",
     CSI_EBS_ONE_VOL_POD, (), (), 2, 1, (EBS_CSI_DRIVER_NAME,), "csinode", None, None),
    ("fits when node volume limit >= new pods CSI volume", CSI_EBS_ONE_VOL_POD,
     (RUNNING_POD, CSI_EBS_TWO_VOL_POD), (), 4, 0, (EBS_CSI_DRIVER_NAME,), "csinode", None, None),
    ("doesn't when node volume limit <= pods CSI volume", CSI_EBS_ONE_VOL_POD,
     (RUNNING_POD, CSI_EBS_TWO_VOL_POD), (), 2, 0, (EBS_CSI_DRIVER_NAME,), "csinode", EXCEEDED,
     None),
    ("should when driver does not support volume limits", CSI_EBS_ONE_VOL_POD,
     (RUNNING_POD, CSI_EBS_TWO_VOL_POD), (), 2, 0, (EBS_CSI_DRIVER_NAME,),
     "csinode-with-no-limit", None, None),
    ("count pending PVCs towards volume limit <= pods CSI volume", CSI_EBS_ONE_VOL_POD,
     (PENDING_VOLUME_POD, CSI_EBS_TWO_VOL_POD), (), 2, 0, (EBS_CSI_DRIVER_NAME,), "csinode",
     EXCEEDED, None),
    ("count multiple pending pvcs towards volume limit >= pods CSI volume", CSI_EBS_ONE_VOL_POD,
     (PENDING_VOLUME_POD, UNBOUND_PVC_POD2, CSI_EBS_TWO_VOL_POD), (), 4, 0,
     (EBS_CSI_DRIVER_NAME,), "csinode", None, None),
    ("should count PVCs with invalid PV name but valid SC", CSI_EBS_ONE_VOL_POD,
     (MISSING_PV_POD, CSI_EBS_TWO_VOL_POD), (), 2, 0, (EBS_CSI_DRIVER_NAME,), "csinode",
     EXCEEDED, None),
    ("don't count pvcs with missing SC towards volume limit", CSI_EBS_ONE_VOL_POD,
     (RUNNING_POD, NO_SC_PVC_POD), (), 2, 0, (EBS_CSI_DRIVER_NAME,), "csinode", None, None),
    ("count pvcs with the same type towards volume limit", CSI_EBS_ONE_VOL_POD,
     (GCE_TWO_VOL_POD, CSI_EBS_TWO_VOL_POD), (), 2, 0,
     (EBS_CSI_DRIVER_NAME, GCE_CSI_DRIVER_NAME), "csinode", EXCEEDED, None),
    ("don't count pvcs with different type towards volume limit", GCE_TWO_VOL_POD,
     (CSI_EBS_TWO_VOL_POD, RUNNING_POD), (), 2, 0, (EBS_CSI_DRIVER_NAME, GCE_CSI_DRIVER_NAME),
     "csinode", None, None),
    ("should count in-tree volumes if migration is enabled", IN_TREE_ONE_VOL_POD,
     (IN_TREE_TWO_VOL_POD,), (), 2, 0, MIGRATION, "csinode", EXCEEDED, None),
    ("nil csi node", IN_TREE_INLINE_VOL_POD, (IN_TREE_TWO_VOL_POD,), (), 0, 0, MIGRATION, "",
     None, None),
    ("should count unbound in-tree volumes if migration is enabled", PENDING_VOLUME_POD,
     (IN_TREE_TWO_VOL_POD,), (), 2, 0, MIGRATION, "csinode", EXCEEDED, None),
    ("should not limit pod if volume used does not report limits", IN_TREE_ONE_VOL_POD,
     (IN_TREE_TWO_VOL_POD,), (), 2, 0, MIGRATION, "csinode-with-no-limit", None, None),
    ("should not count non-migratable in-tree volumes", IN_TREE_NON_MIGRATABLE_ONE_VOL_POD,
     (CSI_EBS_TWO_VOL_POD,), (), 2, 0, (HOSTPATH_IN_TREE_PLUGIN_NAME, EBS_CSI_DRIVER_NAME),
     "csinode", None, None),
    ("should count in-tree inline volumes if migration is enabled", IN_TREE_INLINE_VOL_POD,
     (IN_TREE_TWO_VOL_POD,), (), 2, 0, MIGRATION, "csinode", EXCEEDED, None),
    ("should count in-tree and csi volumes if migration is enabled (when scheduling in-tree "
     "volumes)", IN_TREE_ONE_VOL_POD, (CSI_EBS_TWO_VOL_POD,), (), 2, 0, MIGRATION, "csinode",
     EXCEEDED, None),
    ("should count in-tree, inline and csi volumes if migration is enabled (when scheduling "
     "in-tree volumes)", IN_TREE_INLINE_VOL_POD, (CSI_EBS_TWO_VOL_POD, IN_TREE_ONE_VOL_POD), (),
     3, 0, MIGRATION, "csinode", EXCEEDED, None),
    ("should not count in-tree, inline and csi volumes if migration is enabled (when scheduling "
     "in-tree volumes)", IN_TREE_INLINE_VOL_POD_WITH_SAME_CSI_VOLUME_ID,
     (CSI_EBS_TWO_VOL_POD, IN_TREE_ONE_VOL_POD), (), 3, 0, MIGRATION, "csinode", None, None),
    ("should count in-tree and csi volumes if migration is enabled (when scheduling csi "
     "volumes)", CSI_EBS_ONE_VOL_POD, (IN_TREE_TWO_VOL_POD,), (), 2, 0, MIGRATION, "csinode",
     EXCEEDED, None),
    ("ephemeral volume missing", EPHEMERAL_VOLUME_POD, (), (), 0, 0, (EBS_CSI_DRIVER_NAME,),
     "csinode-with-no-limit", not_found_claim("test", "abc-xyz"), None),
    ("ephemeral volume not owned", EPHEMERAL_VOLUME_POD, (), (CONFLICTING_CLAIM,), 0, 0,
     (EBS_CSI_DRIVER_NAME,), "csinode-with-no-limit",
     Status.as_error("PVC test/abc-xyz was not created for pod test/abc (pod is not owner)"),
     None),
    ("ephemeral volume unbound", EPHEMERAL_VOLUME_POD, (), (EPHEMERAL_CLAIM,), 0, 0,
     (EBS_CSI_DRIVER_NAME,), "csinode-with-no-limit", None, None),
    ("ephemeral doesn't when node volume limit <= pods CSI volume", EPHEMERAL_VOLUME_POD,
     (RUNNING_POD, CSI_EBS_TWO_VOL_POD), (EPHEMERAL_CLAIM,), 2, 0, (EBS_CSI_DRIVER_NAME,),
     "csinode", EXCEEDED, None),
    ("ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
     CSI_EBS_ONE_VOL_POD, (RUNNING_POD, EPHEMERAL_TWO_VOLUME_POD),
     (EPHEMERAL_CLAIM_X, EPHEMERAL_CLAIM_Y), 2, 0, (EBS_CSI_DRIVER_NAME,), "csinode", EXCEEDED,
     None),
    ("persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent "
     "volume, ephemeral disabled", CSI_EBS_ONE_VOL_POD,
     (RUNNING_POD, EPHEMERAL_VOLUME_POD, CSI_EBS_TWO_VOL_POD), (EPHEMERAL_CLAIM,), 3, 0,
     (EBS_CSI_DRIVER_NAME,), "csinode", EXCEEDED, None),
    ("persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent "
     "volume", CSI_EBS_ONE_VOL_POD, (RUNNING_POD, EPHEMERAL_VOLUME_POD, CSI_EBS_TWO_VOL_POD),
     (EPHEMERAL_CLAIM,), 3, 0, (EBS_CSI_DRIVER_NAME,), "csinode", EXCEEDED, None),
    ("persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume",
     CSI_EBS_ONE_VOL_POD, (RUNNING_POD, EPHEMERAL_VOLUME_POD, CSI_EBS_TWO_VOL_POD),
     (EPHEMERAL_CLAIM,), 5, 0, (EBS_CSI_DRIVER_NAME,), "csinode", None, None),
    ("skip Filter when the pod only uses secrets and configmaps",
     ONLY_CONFIGMAP_AND_SECRET_VOL_POD, (), (), 2, 0, (EBS_CSI_DRIVER_NAME,), "csinode", None,
     Status(Code.SKIP)),
    ("don't skip Filter when the pod has pvcs", PVC_POD_WITH_CONFIGMAP_AND_SECRET, (), (), 2, 0,
     (EBS_CSI_DRIVER_NAME,), "csinode", None, None),
    ("don't skip Filter when the pod has ephemeral volumes",
     EPHEMERAL_POD_WITH_CONFIGMAP_AND_SECRET, (), (), 0, 0, (EBS_CSI_DRIVER_NAME,),
     "csinode-with-no-limit", not_found_claim("test", "abc-xyz"), None),
    ("don't skip Filter when the pod has inline migratable volumes",
     INLINE_MIGRATABLE_POD_WITH_CONFIGMAP_AND_SECRET, (IN_TREE_TWO_VOL_POD,), (), 2, 0,
     MIGRATION, "csinode", EXCEEDED, None),
]


@pytest.mark.parametrize(
    "test,new_pod,existing,extra,max_vols,va_count,drivers,limit_source,want,want_pre",
    CSI_LIMITS_CASES, ids=[c[0] for c in CSI_LIMITS_CASES])
def test_csi_limits(test, new_pod, existing, extra, max_vols, va_count, drivers, limit_source,
                    want, want_pre):
    pl = plugin(limit_source, max_vols, drivers, va_count, extra)
    _, pre = pl.pre_filter(CycleState(), new_pod, [])
    assert pre == want_pre
    if pre is None:
        assert pl.filter(CycleState(), new_pod, node_with_pods(*existing)) == want


# ----- TestVolumeLimitScalingGate -----------------------------------------------------------

@pytest.mark.parametrize("name,scaling,limit_source,limit,driver_present,prevent,want", [
    ("gate enabled - allow scheduling when CSIDriver exists but PreventPodSchedulingIfMissing is "
     "not set", True, "no-csi-driver", 0, True, False, None),
    ("gate enabled - fail when driver not installed and PreventPodSchedulingIfMissing is true",
     True, "no-csi-driver", 0, True, True,
     Status(Code.UNSCHEDULABLE, f"{EBS_CSI_DRIVER_NAME} CSI driver is not installed on the node")),
    ("gate disabled - skip driver presence check (regardless of CSIDriver presence)", False,
     "no-csi-driver", 0, True, True, None),
    ("gate enabled - driver installed within limit", True, "csinode", 2, True, True, None),
    ("gate enabled - allow scheduling when CSIDriver object missing", True, "no-csi-driver", 0,
     False, False, None),
    ("own: gate enabled - no CSINode at all and PreventPodSchedulingIfMissing is true", True, "",
     0, True, True,
     Status(Code.UNSCHEDULABLE, f"{EBS_CSI_DRIVER_NAME} CSI driver is not installed on the node")),
])
def test_volume_limit_scaling_gate(name, scaling, limit_source, limit, driver_present, prevent,
                                   want):
    drivers = (CSIDriver(EBS_CSI_DRIVER_NAME, prevent_pod_scheduling_if_missing=prevent),) \
        if driver_present else ()
    pl = plugin(limit_source, limit, (EBS_CSI_DRIVER_NAME,), csi_drivers=drivers,
                scaling=scaling)
    new_pod = pod("csi-ebs.csi.aws.com-0")
    assert pl.pre_filter(CycleState(), new_pod, []) == (None, None)
    assert pl.filter(CycleState(), new_pod, node_with_pods()) == want


# ----- CSI migration and VolumeAttachments (own cases) ----------------------------------------

@pytest.mark.parametrize("name,volume,limit,want", [
    ("GCE PD inline, same disk as the node's PD", {"gcePersistentDisk": {"pdName": "d1"}}, 1,
     None),
    ("GCE PD inline, another disk", {"gcePersistentDisk": {"pdName": "d2"}}, 1, EXCEEDED),
    ("Azure Disk inline without kind: Shared (the API default) does not migrate",
     {"azureDisk": {"diskName": "a", "diskURI": "u"}}, 1,
     Status.as_error("converting volume(v) from inline to csi: kind(Shared) is not supported "
                     "in csi migration")),
    ("Azure Disk inline, kind Managed", {"azureDisk": {"diskName": "a", "diskURI": "u",
                                                       "kind": "Managed"}}, 1, None),
    ("Azure File inline: migration is off for it", {"azureFile": {"secretName": "s",
                                                                  "shareName": "x"}}, 0, None),
    ("AWS EBS inline, aws:// volume ID", {"awsElasticBlockStore": {
        "volumeID": "aws://us-east-1a/vol-1"}}, 0, EXCEEDED),
    ("AWS EBS inline, aws:// volume ID, within the limit", {"awsElasticBlockStore": {
        "volumeID": "aws://us-east-1a/vol-1"}}, 1, None),
    ("AWS EBS inline, malformed aws:// volume ID", {"awsElasticBlockStore": {
        "volumeID": "aws://us-east-1a/x/y"}}, 1,
     Status.as_error("converting volume(v) from inline to csi: failed to translate Kubernetes "
                     "ID to EBS Volume ID Invalid format for AWS volume "
                     "(aws://us-east-1a/x/y)")),
])
def test_inline_migration(name, volume, limit, want):
    """Inline volumes of the plugins csi-translation-lib migrates: the translated handle is the
    unique name (a GCE PD inline and a bound GCE PD PV of the same disk in an unknown zone are
    one volume), Azure Disk needs kind Managed, Azure File is not counted (isCSIMigrationOn)."""
    node_pv = PersistentVolume(name="gce-pv", source_kind="gcePersistentDisk",
                               source={"pdName": "d1"})
    running = pod("gce-claim", name="running")
    csi_node = CSINode(NODE_NAME, tuple(CSINodeDriver(d, NODE_NAME, limit) for d in (
        "pd.csi.storage.gke.io", "disk.csi.azure.com", "file.csi.azure.com", EBS_CSI_DRIVER_NAME)))
    storage = StorageObjects(
        volumes={"gce-pv": node_pv},
        claims={"default/gce-claim": PersistentVolumeClaim("default", "gce-claim",
                                                           volume_name="gce-pv")},
        csi_nodes={NODE_NAME: csi_node})
    pl = nvl.NodeVolumeLimits(None, FakeHandle(storage=storage))
    new_pod = pod(volumes=({"name": "v", **volume},))
    assert pl.pre_filter(CycleState(), new_pod, []) == (None, None)
    assert pl.filter(CycleState(), new_pod, node_with_pods(running)) == want


def test_volume_attachments_of_the_node_count_once():
    """getNodeVolumeAttachmentInfo: attachments of other nodes, without attacher, of a missing or
    non-CSI volume are not counted; an attachment of a volume a pod of the node uses counts once
    (own case)."""
    pvs = fake_csi_pvs("csi", EBS_CSI_DRIVER_NAME)
    in_tree = PersistentVolume(name="in-tree", source_kind="awsElasticBlockStore",
                               source={"volumeID": "vol-1"})
    vas = [
        VolumeAttachment("va-used", EBS_CSI_DRIVER_NAME, NODE_NAME, "csi-ebs.csi.aws.com-1"),
        VolumeAttachment("va-other-node", EBS_CSI_DRIVER_NAME, "other", "csi-ebs.csi.aws.com-2"),
        VolumeAttachment("va-no-attacher", "", NODE_NAME, "csi-ebs.csi.aws.com-2"),
        VolumeAttachment("va-missing-pv", EBS_CSI_DRIVER_NAME, NODE_NAME, "missing"),
        VolumeAttachment("va-in-tree", EBS_CSI_DRIVER_NAME, NODE_NAME, "in-tree"),
        VolumeAttachment("va-inline", EBS_CSI_DRIVER_NAME, NODE_NAME, ""),
    ]
    storage = StorageObjects(
        volumes={v.name: v for v in [*pvs, in_tree]},
        claims={c.key: c for c in fake_csi_pvcs("csi", SC_NAME, EBS_CSI_DRIVER_NAME)},
        csi_nodes={NODE_NAME: CSINode(NODE_NAME, (CSINodeDriver(EBS_CSI_DRIVER_NAME, NODE_NAME,
                                                                2),))},
        attachments={va.name: va for va in vas})
    pl = nvl.NodeVolumeLimits(None, FakeHandle(storage=storage))
    assert pl._node_volume_attachment_info(NODE_NAME) == {
        "ebs.csi.aws.com/csi-ebs.csi.aws.com-1": EBS_CSI_DRIVER_NAME}
    used = pod("csi-ebs.csi.aws.com-1", name="used")
    # attached: csi-...-1 (pod and attachment, once); new: csi-...-0: 2 <= 2.
    assert pl.filter(CycleState(), CSI_EBS_ONE_VOL_POD, node_with_pods(used)) is None
    # A third volume does not fit.
    assert pl.filter(CycleState(), pod("csi-ebs.csi.aws.com-0", "csi-ebs.csi.aws.com-3"),
                     node_with_pods(used)) == EXCEEDED


def test_claim_errors():
    """A new pod's claim with no name is an Error; an existing pod's missing claim is skipped
    (own cases)."""
    pl = plugin("csinode", 1, (EBS_CSI_DRIVER_NAME,))
    missing = pod("nope", name="existing")
    assert pl.filter(CycleState(), CSI_EBS_ONE_VOL_POD, node_with_pods(missing)) is None
    assert pl.filter(CycleState(), pod("nope"), node_with_pods()) == not_found_claim(
        "default", "nope")


def test_two_attachable_volumes_place_the_third_pod_elsewhere():
    """The scenario of the brief at plugin level: CSINodes allow 2 volumes of the driver; node-a
    runs two pods with one volume each, so a third volume-using pod does not fit there and fits
    on node-b; with node-b full too, it fits nowhere with upstream's reason."""
    driver = "csi.example.com"
    pvs = [PersistentVolume(name=f"pv-{i}", source_kind="csi",
                            source={"driver": driver, "volumeHandle": f"h-{i}"})
           for i in range(5)]
    claims = [PersistentVolumeClaim("default", f"c-{i}", volume_name=f"pv-{i}") for i in range(5)]
    csi_nodes = {n: CSINode(n, (CSINodeDriver(driver, n, 2),)) for n in ("node-a", "node-b")}
    storage = StorageObjects(volumes={v.name: v for v in pvs}, claims={c.key: c for c in claims},
                             csi_nodes=csi_nodes)
    pl = nvl.NodeVolumeLimits(None, FakeHandle(storage=storage))

    def on(node: str, *pods: Pod) -> NodeInfo:
        ni = NodeInfo(make_node(node).obj())
        for p in pods:
            ni.add_pod(p)
        return ni

    third = pod("c-2", name="third")
    node_a = on("node-a", pod("c-0", name="first"), pod("c-1", name="second"))
    state = CycleState()
    assert pl.pre_filter(state, third, []) == (None, None)
    assert pl.filter(state, third, node_a) == EXCEEDED
    assert pl.filter(state, third, on("node-b")) is None
    node_b = on("node-b", pod("c-3", name="fourth"), pod("c-4", name="fifth"))
    assert [pl.filter(state, third, ni) for ni in (node_a, node_b)] == [EXCEEDED, EXCEEDED]
    assert EXCEEDED.message() == "node(s) exceed max volume count"


# ----- queueing hints -----------------------------------------------------------------------

@pytest.mark.parametrize("test,deleted,scheduled,want", [
    ("return a Queue when a deleted pod has a PVC", pod("placeholder", name="d"), True, QUEUE),
    ("return a Queue when a deleted pod has a inline migratable volume",
     pod(name="d", volumes=({"name": "v", "awsElasticBlockStore": {}},)), True, QUEUE),
    ("return a QueueSkip when a deleted pod doesn't have any volume", pod(name="d"), True,
     QUEUE_SKIP),
    ("return a QueueSkip when a deleted pod is not scheduled.",
     pod("csi-ebs.csi.aws.com-0", name="d"), False, QUEUE_SKIP),
])
def test_csi_limits_qhint(test, deleted, scheduled, want):
    """TestCSILimitsQHint."""
    deleted.node_name = NODE_NAME if scheduled else ""
    pl = plugin("csiNode", 1, ("",))
    new_pod = pod("csi-ebs.csi.aws.com-2")
    assert pl.is_schedulable_after_assigned_pod_deleted(new_pod, deleted, None) == (want, None)


def _claim(name: str = "", ns: str = "") -> PersistentVolumeClaim:
    return PersistentVolumeClaim(namespace=ns, name=name)


@pytest.mark.parametrize("test,new_pod,added,want", [
    ("a pod isn't in the same namespace as an added PVC", pod(ns="ns1"), _claim(ns="ns2"),
     QUEUE_SKIP),
    ("a pod is in the same namespace as an added PVC", pod("pvc1", ns="ns1"),
     _claim("pvc1", "ns1"), QUEUE),
    ("a pod has an ephemeral volume related to an added PVC",
     pod(name="pod1", ns="ns1", volumes=({"name": "ephemeral", "ephemeral": {}},)),
     _claim("pod1-ephemeral", "ns1"), QUEUE),
    ("a pod doesn't have the same PVC as an added PVC", pod("pvc1", ns="ns1"),
     _claim("pvc2", "ns1"), QUEUE_SKIP),
    ("a pod doesn't have any PVC attached", pod(ns="ns1"), _claim("pvc2", "ns1"), QUEUE_SKIP),
])
def test_csi_limits_added_pvc_qhint(test, new_pod, added, want):
    """TestCSILimitsAddedPVCQHint."""
    assert plugin("", 0, ("",)).is_schedulable_after_pvc_added(new_pod, None, added) == (
        want, None)


_PVC1_VA = VolumeAttachment("volumeattachment1", "test.storage.gke.io", "fake-node", "pv1")
_EBS_INLINE_VA = VolumeAttachment("volumeattachment1", EBS_CSI_DRIVER_NAME, "fake-node")
_AWS_TEST = {"name": "a", "awsElasticBlockStore": {"volumeID": "test"}}
_GCE_TEST = {"name": "g", "gcePersistentDisk": {"pdName": "test"}}


@pytest.mark.parametrize("test,new_pod,deleted,want", [
    ("a pod has PVC when VolumeAttachment is deleting", pod("pvc1", ns="ns1"), _PVC1_VA, QUEUE),
    ("a pod has an Inline Migratable volume (AWSEBSDriver) when VolumeAttachment (AWSEBSDriver) "
     "is deleting (match)", pod(ns="ns1", volumes=(_AWS_TEST,)), _EBS_INLINE_VA, QUEUE),
    ("a pod has an Inline Migratable volume (GCEPDDriver) when VolumeAttachment (AWSEBSDriver) "
     "is deleting (no match)", pod(ns="ns1", volumes=(_GCE_TEST,)), _EBS_INLINE_VA, QUEUE_SKIP),
    ("a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when VolumeAttachment "
     "(AWSEBSDriver) is deleting", pod(ns="ns1", volumes=(
         _AWS_TEST, {"name": "c", "persistentVolumeClaim": {"claimName": "pvc1"}})),
     _EBS_INLINE_VA, QUEUE),
    ("a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when VolumeAttachment "
     "(AWSEBSDriver)  is deleting", pod(ns="ns1", volumes=(
         _AWS_TEST, {"name": "c", "persistentVolumeClaim": {"claimName": "pvc1"}})),
     _PVC1_VA, QUEUE),
    ("a pod has no PVC when VolumeAttachment is deleting", pod(ns="ns1"), _PVC1_VA, QUEUE_SKIP),
])
def test_csi_limits_deleted_volume_attachment_qhint(test, new_pod, deleted, want):
    """TestCSILimitsDeletedVolumeAttachmentQHint (the deleted attachment is the old object)."""
    pl = plugin("", 0, ("",))
    assert pl.is_schedulable_after_volume_attachment_deleted(new_pod, deleted, None) == (
        want, None)


def test_volume_attachment_qhint_translation_error():
    """An inline volume that does not translate: Queue with the error (own case)."""
    p = pod(volumes=({"name": "v", "azureDisk": {"diskName": "a", "diskURI": "u"}},))
    assert plugin("", 0, ("",)).is_schedulable_after_volume_attachment_deleted(
        p, _EBS_INLINE_VA, None) == (QUEUE, "converting volume(v) from inline to csi: "
                                            "kind(Shared) is not supported in csi migration")


def _csinode(count: int | None) -> CSINode:
    return CSINode("test-node", (CSINodeDriver(EBS_CSI_DRIVER_NAME, "test-node", count),))


@pytest.mark.parametrize("name,old,new,want", [
    ("limit raised, queue", _csinode(1), _csinode(2), QUEUE),
    ("limit decreased, skip queueing", _csinode(2), _csinode(1), QUEUE_SKIP),
    ("limit unchanged, skip queueing", _csinode(1), _csinode(1), QUEUE_SKIP),
    ("own: limit set where there was none", _csinode(None), _csinode(1), QUEUE),
    ("own: a new driver with a limit", CSINode("test-node"), _csinode(1), QUEUE),
])
def test_csi_limits_after_csi_node_updated_qhint(name, old, new, want):
    """TestCSILimitsAfterCSINodeUpdatedQHint."""
    test_pod = pod("csi-ebs.csi.aws.com-0", name="test-pod", ns="ns1")
    assert plugin("", 0, ("",)).is_schedulable_after_csi_node_updated(test_pod, old, new) == (
        want, None)


def test_sign_and_events():
    pl = plugin("", 0, ("",))
    p = pod(volumes=({"name": "a", "hostPath": {"path": "/x"}},))
    assert pl.sign_pod(p) == ([(nvl.VOLUMES_SIGNER_NAME, ('{"hostPath":{"path":"/x"}}',))], None)
    assert pl.events_to_register() == [
        ("storage.k8s.io/CSINode", ("Add",), None),
        ("storage.k8s.io/CSINode", ("Update",), "is_schedulable_after_csi_node_updated"),
        ("AssignedPod", ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
        ("PersistentVolumeClaim", ("Add",), "is_schedulable_after_pvc_added"),
        ("storage.k8s.io/VolumeAttachment", ("Delete",),
         "is_schedulable_after_volume_attachment_deleted"),
    ]
