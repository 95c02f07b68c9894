"""VolumeZone (reference_impl/plugins/volumezone.py) against upstream's tests.

Restated from ``pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go`` of v1.37.2, with
upstream's case names: TestSingleZone, TestMultiZone, TestWithBinding,
TestIsSchedulableAfterPersistentVolumeClaimAdded, TestIsSchedulableAfterStorageClassAdded,
TestIsSchedulableAfterPersistentVolumeChange. As upstream's tests do, Filter runs after
PreFilter whatever PreFilter returned.

Restated with another expectation, and why:
- TestWithBinding/"unbound volume no storage class": upstream's fake lister words its NotFound
  ``storageclasses.storage.k8s.io "Class_0" not found``; the scheduler's informer lister (what a
  running scheduler and this reference answer) says ``storageclass.storage.k8s.io``.
- TestWithBinding/"unbound volume immediate binding mode": upstream's StorageClass has no
  ``volumeBindingMode`` ("VolumeBindingMode not set for StorageClass"); the API server defaults
  it to Immediate, which the model holds, so the claim is unbound under an Immediate class:
  "PersistentVolume had no name".
- TestIsSchedulableAfterStorageClassAdded/"sc-doesn't-have-volume-binding-mode": the class is
  Immediate (the API default) here; the hint is the same QueueSkip.

Not restated: BenchmarkVolumeZone (a benchmark), TestVolumeZone_DeferredResizeSkipped (pod
status conditions, hence deferred resizes, are not modelled: docs/reference.md).
"""

from __future__ import annotations

import dataclasses

import pytest

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    Pod,
)
from reference_impl.model.storage import (
    BINDING_IMMEDIATE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
)
from reference_impl.plugins import volumezone as vz
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod

QUEUE, QUEUE_SKIP = "Queue", "QueueSkip"
BETA_ZONE, BETA_REGION = LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION
ZONE, REGION = LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_REGION
CONFLICT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, vz.ERR_REASON_CONFLICT)


def create_pod_with_volume(pod: str, pvc: str) -> Pod:
    """``createPodWithVolume``."""
    return make_pod(pod).namespace("default").pvc(pvc).obj()


POD_WITHOUT_VOLUME = make_pod("pod_1").namespace("default").obj()


def pv(name: str, **labels: str) -> PersistentVolume:
    return PersistentVolume(name=name, labels=dict(labels))


def bound(name: str, volume: str) -> PersistentVolumeClaim:
    return PersistentVolumeClaim(namespace="default", name=name, volume_name=volume)


def plugin(pvs: list[PersistentVolume], pvcs: list[PersistentVolumeClaim],
           classes: list[StorageClass] = ()) -> vz.VolumeZone:
    storage = StorageObjects(volumes={v.name: v for v in pvs},
                             claims={c.key: c for c in pvcs},
                             classes={c.name: c for c in classes})
    return vz.VolumeZone(None, FakeHandle(storage=storage))


def node(**labels: str) -> NodeInfo:
    w = make_node("host1")
    for k, v in labels.items():
        w = w.label(k, v)
    return NodeInfo(w.obj())


def run(pl: vz.VolumeZone, p: Pod, ni: NodeInfo) -> tuple[Status | None, Status | None]:
    state = CycleState()
    _, pre = pl.pre_filter(state, p, [])
    return pre, pl.filter(state, p, ni)


def labels(**kw: str) -> dict[str, str]:
    return kw


# ----- TestSingleZone -----------------------------------------------------------------------

SINGLE_PVS = [
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", **{BETA_REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_3", **{BETA_REGION: "us-west1"}),
    pv("Vol_Stable_1", **{ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", **{REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_Stable_3", **{ZONE: "us-west1-a", REGION: "us-west1-a"}),
]
SINGLE_PVCS = [bound("PVC_1", "Vol_1"), bound("PVC_2", "Vol_2"), bound("PVC_3", "Vol_3"),
               bound("PVC_4", "Vol_not_exist"), bound("PVC_Stable_1", "Vol_Stable_1"),
               bound("PVC_Stable_2", "Vol_Stable_2"), bound("PVC_Stable_3", "Vol_Stable_3")]


@pytest.mark.parametrize("name,claim,node_labels,want_pre,want_filter", [
    ("pod without volume", None, {BETA_ZONE: "us-west1-a"}, Status(Code.SKIP), None),
    ("node without labels", "PVC_1", {}, None, None),
    ("beta zone label matched", "PVC_1", {BETA_ZONE: "us-west1-a", "uselessLabel": "none"},
     None, None),
    ("beta region label matched", "PVC_2", {BETA_REGION: "us-west1", "uselessLabel": "none"},
     None, None),
    ("beta region label doesn't match", "PVC_2",
     {BETA_REGION: "no_us-west1", "uselessLabel": "none"}, None, CONFLICT),
    ("beta zone label doesn't match", "PVC_1",
     {BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"}, None, CONFLICT),
    ("zone label matched", "PVC_Stable_1", {ZONE: "us-west1-a", "uselessLabel": "none"},
     None, None),
    ("region label matched", "PVC_Stable_2", {REGION: "us-west1", "uselessLabel": "none"},
     None, None),
    ("region label doesn't match", "PVC_Stable_2",
     {REGION: "no_us-west1", "uselessLabel": "none"}, None, CONFLICT),
    ("zone label doesn't match", "PVC_Stable_1",
     {ZONE: "no_us-west1-a", "uselessLabel": "none"}, None, CONFLICT),
    ("pv with zone and region, node with only zone", "PVC_Stable_3", {ZONE: "us-west1-a"},
     None, CONFLICT),
    ("pv with zone,node with beta zone", "PVC_Stable_1", {BETA_ZONE: "us-west1-a"},
     None, CONFLICT),
    ("pv with beta label,node with ga label, matched", "PVC_1", {ZONE: "us-west1-a"},
     None, None),
    ("pv with beta label,node with ga label, don't match", "PVC_1", {ZONE: "us-west1-b"},
     None, CONFLICT),
])
def test_single_zone(name, claim, node_labels, want_pre, want_filter):
    p = create_pod_with_volume("pod_1", claim) if claim else POD_WITHOUT_VOLUME
    assert run(plugin(SINGLE_PVS, SINGLE_PVCS), p, node(**node_labels)) == (want_pre,
                                                                           want_filter)


# ----- TestMultiZone ------------------------------------------------------------------------

MULTI_PVS = [
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", **{BETA_ZONE: "us-west1-b", "uselessLabel": "none"}),
    pv("Vol_3", **{BETA_ZONE: "us-west1-c__us-west1-a"}),
    pv("Vol_Stable_1", **{ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", **{ZONE: "us-west1-c__us-west1-a"}),
]
MULTI_PVCS = [bound("PVC_1", "Vol_1"), bound("PVC_2", "Vol_2"), bound("PVC_3", "Vol_3"),
              bound("PVC_4", "Vol_not_exist"), bound("PVC_Stable_1", "Vol_Stable_1"),
              bound("PVC_Stable_2", "Vol_Stable_2")]


@pytest.mark.parametrize("name,claim,node_labels,want_filter", [
    ("node without labels", "PVC_3", {}, None),
    ("beta zone label matched", "PVC_3", {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, None),
    ("beta zone label doesn't match", "PVC_1", {BETA_ZONE: "us-west1-b", "uselessLabel": "none"},
     CONFLICT),
    ("zone label matched", "PVC_Stable_2", {ZONE: "us-west1-a", "uselessLabel": "none"}, None),
    ("zone label doesn't match", "PVC_Stable_1", {ZONE: "us-west1-b", "uselessLabel": "none"},
     CONFLICT),
])
def test_multi_zone(name, claim, node_labels, want_filter):
    p = create_pod_with_volume("pod_1", claim)
    assert run(plugin(MULTI_PVS, MULTI_PVCS), p, node(**node_labels)) == (None, want_filter)


# ----- TestWithBinding ----------------------------------------------------------------------

BINDING_CLASSES = [StorageClass("Class_Immediate", "p", volume_binding_mode=BINDING_IMMEDIATE),
                   StorageClass("Class_Wait", "p",
                                volume_binding_mode=BINDING_WAIT_FOR_FIRST_CONSUMER)]
BINDING_PVCS = [
    bound("PVC_1", "Vol_1"),
    PersistentVolumeClaim(namespace="default", name="PVC_NoSC", storage_class_name="Class_0"),
    PersistentVolumeClaim(namespace="default", name="PVC_EmptySC"),
    PersistentVolumeClaim(namespace="default", name="PVC_WaitSC", storage_class_name="Class_Wait"),
    PersistentVolumeClaim(namespace="default", name="PVC_ImmediateSC",
                          storage_class_name="Class_Immediate"),
]


def _unresolvable(msg: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg)


@pytest.mark.parametrize("name,claim,want_pre,want_filter", [
    ("label zone failure domain matched", "PVC_1", None, None),
    ("unbound volume empty storage class", "PVC_EmptySC",
     _unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
     _unresolvable("PersistentVolumeClaim had no pv name and storageClass name")),
    ("unbound volume no storage class", "PVC_NoSC",
     _unresolvable('storageclass.storage.k8s.io "Class_0" not found'),
     _unresolvable('storageclass.storage.k8s.io "Class_0" not found')),
    ("unbound volume immediate binding mode", "PVC_ImmediateSC",
     _unresolvable("PersistentVolume had no name"), _unresolvable("PersistentVolume had no name")),
    ("unbound volume wait binding mode", "PVC_WaitSC", Status(Code.SKIP), None),
])
def test_with_binding(name, claim, want_pre, want_filter):
    pl = plugin([pv("Vol_1", **{BETA_ZONE: "us-west1-a"})], BINDING_PVCS, BINDING_CLASSES)
    p = create_pod_with_volume("pod_1", claim)
    ni = node(**{BETA_ZONE: "us-west1-a", "uselessLabel": "none"})
    assert run(pl, p, ni) == (want_pre, want_filter)


@pytest.mark.parametrize("name,claims,want", [
    ("own: missing claim", ("PVC_missing",),
     _unresolvable('persistentvolumeclaim "PVC_missing" not found')),
    ("own: missing PV", ("PVC_4",), _unresolvable('persistentvolume "Vol_not_exist" not found')),
    ("own: the first failing claim decides", ("PVC_1", "PVC_4", "PVC_missing"),
     _unresolvable('persistentvolume "Vol_not_exist" not found')),
])
def test_lookup_errors(name, claims, want):
    """getPVbyPod's errors, worded as the informer listers' NotFound (own cases)."""
    w = make_pod("pod_1").namespace("default")
    for i, c in enumerate(claims):
        w = w.volume({"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}})
    pl = plugin(SINGLE_PVS, SINGLE_PVCS)
    assert run(pl, w.obj(), node()) == (want, want)


def test_empty_claim_name():
    """An empty claim name (API validation rejects it, the loader too; a pod built past the
    loader) is "PersistentVolumeClaim had no name" (own case)."""
    p = dataclasses.replace(POD_WITHOUT_VOLUME, volumes=(
        {"name": "v", "persistentVolumeClaim": {"claimName": ""}},))
    want = _unresolvable("PersistentVolumeClaim had no name")
    assert run(plugin(SINGLE_PVS, SINGLE_PVCS), p, node()) == (want, want)


def test_state_holds_topologies_and_other_volumes_are_ignored():
    """The PreFilter state keeps each bound PV's topologies in topologyLabels order; generic
    ephemeral and inline volumes are not VolumeZone's (own case)."""
    pl = plugin(SINGLE_PVS, SINGLE_PVCS)
    state = CycleState()
    p = make_pod("pod_1").namespace("default").pvc("PVC_Stable_3").pvc("PVC_1").volume(
        {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}).volume(
        {"name": "g", "gcePersistentDisk": {"pdName": "x"}}).obj()
    assert pl.pre_filter(state, p, []) == (None, None)
    assert state.read(vz.PRE_FILTER_STATE_KEY).pod_pv_topologies == [
        vz.PVTopology("Vol_Stable_3", ZONE, frozenset({"us-west1-a"})),
        vz.PVTopology("Vol_Stable_3", REGION, frozenset({"us-west1-a"})),
        vz.PVTopology("Vol_1", BETA_ZONE, frozenset({"us-west1-a"})),
    ]
    q = make_pod("pod_1").namespace("default").volume(
        {"name": "g", "gcePersistentDisk": {"pdName": "x"}}).obj()
    assert pl.pre_filter(CycleState(), q, []) == (None, Status(Code.SKIP))


@pytest.mark.parametrize("value,want", [
    ("us-west1-a", frozenset({"us-west1-a"})),
    (" us-west1-c __us-west1-a", frozenset({"us-west1-a", "us-west1-c"})),
    ("us-west1-a__", None),
    ("", None),
])
def test_label_zones_to_set(value, want):
    """LabelZonesToSet (k8s.io/cloud-provider volume/helpers/zones.go); a PV label that does
    not parse is ignored by getPVTopologies (own cases)."""
    assert vz.label_zones_to_set(value) == want
    topologies = vz.get_pv_topologies(pv("v", **{ZONE: value}))
    assert topologies == ([] if want is None else [vz.PVTopology("v", ZONE, want)])


# ----- queueing hints -----------------------------------------------------------------------

def _pvc(name: str, ns: str = "default", volume: str = "Vol_1") -> PersistentVolumeClaim:
    return PersistentVolumeClaim(namespace=ns, name=name, volume_name=volume)


@pytest.mark.parametrize("name,p,old,new,want,err", [
    ("error-wrong-new-object", create_pod_with_volume("pod_1", "PVC_1"), None, "not-a-pvc",
     QUEUE, True),
    ("pvc-was-added-but-pod-refers-no-pvc", POD_WITHOUT_VOLUME, None, _pvc("PVC_1"),
     QUEUE_SKIP, False),
    ("pvc-was-added-and-pod-was-bound-to-different-pvc", create_pod_with_volume("pod_1", "PVC_2"),
     None, _pvc("PVC_1"), QUEUE_SKIP, False),
    ("pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns",
     create_pod_with_volume("pod_1", "PVC_1"), None, _pvc("PVC_1", ns="ns1"), QUEUE_SKIP, False),
    ("pvc-was-added-and-pod-was-bound-to-the-pvc", create_pod_with_volume("pod_1", "PVC_1"),
     None, _pvc("PVC_1"), QUEUE, False),
    ("pvc-was-updated-and-pod-was-bound-to-the-pvc", create_pod_with_volume("pod_1", "PVC_1"),
     _pvc("PVC_1", volume=""), _pvc("PVC_1"), QUEUE, False),
    ("pvc-was-updated-but-pod-refers-no-pvc", POD_WITHOUT_VOLUME, _pvc("PVC_1", volume=""),
     _pvc("PVC_1"), QUEUE_SKIP, False),
])
def test_is_schedulable_after_persistent_volume_claim_added(name, p, old, new, want, err):
    hint, error = plugin([], []).is_schedulable_after_persistent_volume_claim_change(p, old, new)
    assert hint == want and (error is not None) is err


@pytest.mark.parametrize("name,new,want,err", [
    ("error-wrong-new-object", "not-a-storageclass", QUEUE, True),
    ("sc-doesn't-have-volume-binding-mode", StorageClass("SC_1", "p"), QUEUE_SKIP, False),
    ("new-sc-is-wait-for-first-consumer-mode",
     StorageClass("SC_1", "p", volume_binding_mode=BINDING_WAIT_FOR_FIRST_CONSUMER), QUEUE, False),
])
def test_is_schedulable_after_storage_class_added(name, new, want, err):
    hint, error = plugin([], []).is_schedulable_after_storage_class_added(
        create_pod_with_volume("pod_1", "PVC_1"), None, new)
    assert hint == want and (error is not None) is err


@pytest.mark.parametrize("name,old,new,want,err", [
    ("error-wrong-new-object", None, "not-a-pv", QUEUE, True),
    ("error-wrong-old-object", "not-a-pv", pv("Vol_1"), QUEUE, True),
    ("new-pv-was-added", None, pv("Vol_1", **{BETA_ZONE: "us-west1-b"}), QUEUE, False),
    ("pv-was-updated-and-changed-topology", pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
     pv("Vol_1", **{BETA_ZONE: "us-west1-b"}), QUEUE, False),
    ("pv-was-updated-and-added-topology-label", pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
     pv("Vol_1", **{BETA_ZONE: "us-west1-a", ZONE: "zone"}), QUEUE, False),
    ("pv-was-updated-but-no-topology-is-changed",
     pv("Vol_1", **{BETA_ZONE: "us-west1-a", ZONE: "zone"}),
     pv("Vol_1", **{BETA_ZONE: "us-west1-a", ZONE: "zone"}), QUEUE_SKIP, False),
])
def test_is_schedulable_after_persistent_volume_change(name, old, new, want, err):
    hint, error = plugin([], []).is_schedulable_after_persistent_volume_change(
        create_pod_with_volume("pod_1", "PVC_1"), old, new)
    assert hint == want and (error is not None) is err


def test_sign_and_events():
    pl = plugin([], [])
    assert pl.sign_pod(POD_WITHOUT_VOLUME) == ([(vz.VOLUMES_SIGNER_NAME, ())], None)
    assert pl.events_to_register() == [
        ("storage.k8s.io/StorageClass", ("Add",), "is_schedulable_after_storage_class_added"),
        ("Node", ("Add", "UpdateNodeLabel"), None),
        ("PersistentVolumeClaim", ("Add", "Update"),
         "is_schedulable_after_persistent_volume_claim_change"),
        ("PersistentVolume", ("Add", "Update"), "is_schedulable_after_persistent_volume_change"),
    ]
