"""The default plugins whose inputs (PVCs, PVs, StorageClasses, CSINodes, ResourceClaims,
DeviceClasses) are not modelled: VolumeBinding, DynamicResources, NodeDeclaredFeatures
(VolumeRestrictions, NodeVolumeLimits and VolumeZone read the storage objects now: their tests
are in tests/storage/).

For each plugin: the path of pods that do not use those objects returns upstream's codes, a pod
that uses them gets the "not supported yet" Error, and upstream's own v1.37.2 test cases that do
not need unmodelled objects are restated, each citing its source file and test function:

- ``pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go``
- ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go``
- ``pkg/scheduler/framework/plugins/nodedeclaredfeatures/nodedeclaredfeatures_test.go``
- ``staging/src/k8s.io/component-helpers/nodedeclaredfeatures/`` (``framework_test.go``,
  ``featureset_test.go``, ``features/*/..._test.go``)
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest

from reference_impl.framework import interfaces as itf
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, PluginError, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import (
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
VB_TEST = "volumebinding/volume_binding_test.go"
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
