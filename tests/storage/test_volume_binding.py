"""VolumeBinding, the plugin: upstream's ``TestVolumeBinding`` table
(pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go of k8s.io/kubernetes
v1.37.2), each case under upstream's name: PreFilter status, the state after PreFilter, Filter
statuses per node, PreScore status and scores.

Upstream's classes have no provisioner (""); the API (and the loader) require one, so they use
``kubernetes.io/no-provisioner``, which ``checkVolumeProvisions`` treats the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from reference_impl.config.args import UtilizationShapePoint, VolumeBindingArgs
from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Node, Pod
from reference_impl.model.storage import (
    ANN_BIND_COMPLETED,
    PV_AVAILABLE,
    PVC_LOST,
    StorageObjects,
)
from reference_impl.plugins.volumebinding import STATE_KEY, VolumeBinding
from reference_impl.plugins.volumebinding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_PV_NOT_EXIST,
)
from reference_impl.storage.pv_helpers import NOT_SUPPORTED_PROVISIONER
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod
from reference_impl.testing.storage import (
    PersistentVolumeClaimWrapper,
    PersistentVolumeWrapper,
    load_storage,
    make_csi_driver,
    make_csi_storage_capacity,
    make_pv,
    make_pvc,
    make_storage_class,
)

HOSTNAME = "kubernetes.io/hostname"
REGION = "topology.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
NODE_LABEL_KEY = "nodeKey"  # binder_test.go nodeLabelKey
WAIT_SC = "wait-sc"
WAIT_HDD_SC = "wait-hdd-sc"
IMMEDIATE_SC = "immediate-sc"
WAIT_SC_CAPACITY = "wait-sc-with-storage-capacity"
DRIVER_CAPACITY = "driver-with-storage-capacity"
UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def fixtures() -> list[object]:
    """The classes and the CSIDriver every case of TestVolumeBinding creates."""
    return [
        make_storage_class(IMMEDIATE_SC, NOT_SUPPORTED_PROVISIONER),
        make_storage_class(WAIT_SC, NOT_SUPPORTED_PROVISIONER).wait_for_first_consumer(),
        make_storage_class(WAIT_HDD_SC, NOT_SUPPORTED_PROVISIONER).wait_for_first_consumer(),
        make_storage_class(WAIT_SC_CAPACITY, DRIVER_CAPACITY).wait_for_first_consumer(),
        make_csi_driver(DRIVER_CAPACITY).storage_capacity(),
    ]


def node(name: str, **labels: str) -> Node:
    """``makeNode(name)``: the hostname label, plus ``labels``."""
    w = make_node(name).hostname()
    for k, v in labels.items():
        w.label(k, v)
    return w.obj()


def zonal(name: str, zone: str) -> Node:
    return make_node(name).hostname().label(REGION, f"region-{zone}").label(
        ZONE, f"zone-{zone}").obj()


def pvc(name: str, sc: str, size: str = "") -> PersistentVolumeClaimWrapper:
    """``makePVC(name, class)`` with ``withRequestStorage`` when a size is given."""
    w = make_pvc(name).storage_class(sc)
    return w.request(size) if size else w


def bound_pvc(name: str, sc: str, pv: str) -> PersistentVolumeClaimWrapper:
    """``withBoundPV``: volumeName and ``pv.kubernetes.io/bind-completed``."""
    return pvc(name, sc).volume_name(pv).annotation(ANN_BIND_COMPLETED, "true")


def pv(name: str, sc: str, size: str = "", **affinity: list[str]) -> PersistentVolumeWrapper:
    """``makePV(name, class).withPhase(Available)``, a capacity, one node affinity term."""
    w = make_pv(name).storage_class(sc).phase(PV_AVAILABLE)
    if size:
        w.capacity(size)
    if affinity:
        from_kw = {HOSTNAME if k == "hostname" else k: v
                   for k, v in affinity.items()}
        w.node_affinity({"matchExpressions": [
            {"key": k, "operator": "In", "values": list(v)} for k, v in from_kw.items()]})
    return w


def zonal_pv(name: str, zone: str, size: str) -> PersistentVolumeWrapper:
    return make_pv(name).storage_class(WAIT_SC).phase(PV_AVAILABLE).capacity(size).node_affinity(
        {"matchExpressions": [
            {"key": REGION, "operator": "In", "values": [f"region-{zone}"]},
            {"key": ZONE, "operator": "In", "values": [f"zone-{zone}"]}]})


def capacity(name: str, size: str) -> object:
    """``makeCapacity(name, waitSCWithStorageCapacity, node, size, "")``."""
    return make_csi_storage_capacity(name, "default", WAIT_SC_CAPACITY).capacity(
        size).node_topology({NODE_LABEL_KEY: name})


def pod(*claims: str) -> Pod:
    w = make_pod("pod-a")
    for c in claims:
        w.pvc(c, "")
    return w.obj()


def cap_node(name: str) -> Node:
    return node(name, **{NODE_LABEL_KEY: name})


@dataclass
class Case:
    name: str
    pod: Pod
    nodes: list[Node]
    objects: list[object] = field(default_factory=list)
    scoring: bool = False
    shape: tuple[tuple[int, int], ...] | None = None
    want_pre_filter: Status | None = None
    #: (bound, unbound delay-binding claim names, {class: PV names}) after PreFilter
    want_state: tuple[list[str], list[str], dict[str, list[str]]] | None = None
    want_filter: list[Status | None] = field(default_factory=list)
    want_pre_score: Status | None = None
    want_scores: list[int] = field(default_factory=list)


SKIP = Status(Code.SKIP)
BIND = Status(UNRESOLVABLE, ERR_REASON_BIND_CONFLICT)
LOCAL_PVS = [pv("pv-a-0", WAIT_SC, "200Gi", hostname=["node-a"]),
             pv("pv-a-1", WAIT_SC, "200Gi", hostname=["node-a"]),
             pv("pv-b-0", WAIT_SC, "100Gi", hostname=["node-b"]),
             pv("pv-b-1", WAIT_SC, "100Gi", hostname=["node-b"])]
ZONAL_NODES = [zonal("zone-a-node-a", "a"), zonal("zone-a-node-b", "a"),
               zonal("zone-b-node-a", "b"), zonal("zone-b-node-b", "b"),
               zonal("zone-c-node-a", "c"), zonal("zone-c-node-b", "c")]
ZONAL_PVS = [zonal_pv("pv-a-0", "a", "200Gi"), zonal_pv("pv-a-1", "a", "200Gi"),
             zonal_pv("pv-b-0", "b", "100Gi"), zonal_pv("pv-b-1", "b", "100Gi")]
ZONAL_STATE = ([], ["pvc-a"], {WAIT_SC: ["pv-a-0", "pv-a-1", "pv-b-0", "pv-b-1"]})
CAP_NODES = [cap_node("node-a"), cap_node("node-b"), cap_node("node-c")]
ABC = [node("node-a"), node("node-b"), node("node-c")]

CASES = [
    Case("pod has not pvcs", pod(), [node("node-a")], want_pre_filter=SKIP,
         want_filter=[None], want_pre_score=SKIP),
    Case("all bound", pod("pvc-a"), [node("node-a")],
         [bound_pvc("pvc-a", WAIT_SC, "pv-a"), pv("pv-a", WAIT_SC)],
         want_state=(["pvc-a"], [], {}), want_filter=[None], want_pre_score=SKIP),
    Case("PVC does not exist", pod("pvc-a"), [node("node-a")],
         want_pre_filter=Status(UNRESOLVABLE, 'persistentvolumeclaim "pvc-a" not found')),
    Case("Part of PVCs do not exist", pod("pvc-a", "pvc-b"), [node("node-a")],
         [bound_pvc("pvc-a", WAIT_SC, "pv-a")],
         want_pre_filter=Status(UNRESOLVABLE, 'persistentvolumeclaim "pvc-b" not found')),
    Case("immediate claims not bound", pod("pvc-a"), [node("node-a")],
         [pvc("pvc-a", IMMEDIATE_SC)],
         want_pre_filter=Status(UNRESOLVABLE, "pod has unbound immediate PersistentVolumeClaims")),
    Case("unbound claims no matches", pod("pvc-a"), [node("node-a")], [pvc("pvc-a", WAIT_SC)],
         want_state=([], ["pvc-a"], {WAIT_SC: []}), want_filter=[BIND], want_pre_score=SKIP),
    Case("bound and unbound unsatisfied", pod("pvc-a", "pvc-b"),
         [node("node-a", foo="barbar")],
         [bound_pvc("pvc-a", WAIT_SC, "pv-a"), pvc("pvc-b", WAIT_SC),
          pv("pv-a", WAIT_SC, foo=["bar"])],
         want_state=(["pvc-a"], ["pvc-b"], {WAIT_SC: ["pv-a"]}),
         want_filter=[Status(UNRESOLVABLE, ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT)],
         want_pre_score=SKIP),
    Case("pv not found", pod("pvc-a"), [node("node-a")], [bound_pvc("pvc-a", WAIT_SC, "pv-a")],
         want_state=(["pvc-a"], [], {}),
         want_filter=[Status(UNRESOLVABLE, ERR_REASON_PV_NOT_EXIST)], want_pre_score=SKIP),
    Case("pv not found claim lost", pod("pvc-a"), [node("node-a")],
         [bound_pvc("pvc-a", WAIT_SC, "pv-a").phase(PVC_LOST)],
         want_pre_filter=Status(UNRESOLVABLE, 'persistentvolumeclaim "pvc-a" bound to '
                                'non-existent persistentvolume "pv-a"')),
    Case("local volumes with close capacity are preferred", pod("pvc-a"), ABC,
         [pvc("pvc-a", WAIT_SC, "50Gi"), *LOCAL_PVS], scoring=True,
         want_state=([], ["pvc-a"], {WAIT_SC: ["pv-a-0", "pv-a-1", "pv-b-0", "pv-b-1"]}),
         want_filter=[None, None, BIND], want_scores=[75, 50, 0]),
    Case("local volumes with close capacity are preferred (StorageCapacityScoring disabled)",
         pod("pvc-a"), ABC, [pvc("pvc-a", WAIT_SC, "50Gi"), *LOCAL_PVS],
         want_state=([], ["pvc-a"], {WAIT_SC: ["pv-a-0", "pv-a-1", "pv-b-0", "pv-b-1"]}),
         want_filter=[None, None, BIND], want_pre_score=SKIP),
    Case("local volumes with close capacity are preferred (multiple pvcs)",
         pod("pvc-0", "pvc-1"), ABC,
         [pvc("pvc-0", WAIT_SC, "50Gi"), pvc("pvc-1", WAIT_HDD_SC, "100Gi"),
          pv("pv-a-0", WAIT_SC, "200Gi", hostname=["node-a"]),
          pv("pv-a-1", WAIT_SC, "200Gi", hostname=["node-a"]),
          pv("pv-a-2", WAIT_HDD_SC, "200Gi", hostname=["node-a"]),
          pv("pv-a-3", WAIT_HDD_SC, "200Gi", hostname=["node-a"]),
          pv("pv-b-0", WAIT_SC, "100Gi", hostname=["node-b"]),
          pv("pv-b-1", WAIT_SC, "100Gi", hostname=["node-b"]),
          pv("pv-b-2", WAIT_HDD_SC, "100Gi", hostname=["node-b"]),
          pv("pv-b-3", WAIT_HDD_SC, "100Gi", hostname=["node-b"])], scoring=True,
         want_state=([], ["pvc-0", "pvc-1"], {
             WAIT_SC: ["pv-a-0", "pv-a-1", "pv-b-0", "pv-b-1"],
             WAIT_HDD_SC: ["pv-a-2", "pv-a-3", "pv-b-2", "pv-b-3"]}),
         want_filter=[None, None, BIND], want_scores=[63, 25, 0]),
    Case("zonal volumes with close capacity are preferred", pod("pvc-a"), ZONAL_NODES,
         [pvc("pvc-a", WAIT_SC, "50Gi"), *ZONAL_PVS], scoring=True, want_state=ZONAL_STATE,
         want_filter=[None, None, None, None, BIND, BIND], want_scores=[75, 75, 50, 50, 0, 0]),
    Case("zonal volumes with close capacity are preferred (StorageCapacityScoring disabled)",
         pod("pvc-a"), ZONAL_NODES, [pvc("pvc-a", WAIT_SC, "50Gi"), *ZONAL_PVS],
         want_state=ZONAL_STATE, want_filter=[None, None, None, None, BIND, BIND],
         want_pre_score=SKIP),
    Case("zonal volumes with close capacity are preferred (custom shape)", pod("pvc-a"),
         ZONAL_NODES, [pvc("pvc-a", WAIT_SC, "50Gi"), *ZONAL_PVS], scoring=True,
         shape=((0, 0), (50, 3), (100, 5)), want_state=ZONAL_STATE,
         want_filter=[None, None, None, None, BIND, BIND], want_scores=[15, 15, 30, 30, 0, 0]),
    Case("storage capacity score", pod("pvc-dynamic"), CAP_NODES,
         [pvc("pvc-dynamic", WAIT_SC_CAPACITY, "10Gi"), capacity("node-a", "100Gi"),
          capacity("node-b", "50Gi"), capacity("node-c", "10Gi")], scoring=True,
         want_state=([], ["pvc-dynamic"], {WAIT_SC_CAPACITY: []}),
         want_filter=[None, None, None], want_scores=[90, 80, 0]),
    Case("storage capacity score with static binds", pod("pvc-dynamic", "pvc-static"),
         CAP_NODES,
         [pvc("pvc-dynamic", WAIT_SC_CAPACITY, "10Gi"), pvc("pvc-static", WAIT_SC, "50Gi"),
          pv("pv-static-a", WAIT_SC, "100Gi", hostname=["node-a"]),
          pv("pv-static-b", WAIT_SC, "100Gi", hostname=["node-b"]),
          pv("pv-static-c", WAIT_SC, "100Gi", hostname=["node-c"]),
          capacity("node-a", "100Gi"), capacity("node-b", "50Gi"), capacity("node-c", "10Gi")],
         scoring=True,
         want_state=([], ["pvc-dynamic", "pvc-static"], {
             WAIT_SC: ["pv-static-a", "pv-static-b", "pv-static-c"], WAIT_SC_CAPACITY: []}),
         want_filter=[None, None, None], want_scores=[50, 50, 50]),
    Case("dynamic provisioning with multiple PVCs of the same StorageClass",
         pod("pvc-dynamic-0", "pvc-dynamic-1"), [cap_node("node-a")],
         [pvc("pvc-dynamic-0", WAIT_SC_CAPACITY, "50Gi"),
          pvc("pvc-dynamic-1", WAIT_SC_CAPACITY, "50Gi"), capacity("node-a", "100Gi")],
         scoring=True, want_state=([], ["pvc-dynamic-0", "pvc-dynamic-1"],
                                   {WAIT_SC_CAPACITY: []}),
         want_filter=[None], want_scores=[0]),
    Case("prefer node with least allocatable", pod("pvc-dynamic"), CAP_NODES,
         [pvc("pvc-dynamic", WAIT_SC_CAPACITY, "10Gi"), capacity("node-a", "100Gi"),
          capacity("node-b", "20Gi"), capacity("node-c", "10Gi")], scoring=True,
         shape=((0, 0), (100, 10)), want_state=([], ["pvc-dynamic"], {WAIT_SC_CAPACITY: []}),
         want_filter=[None, None, None], want_scores=[10, 50, 100]),
    Case("prefer node with maximum allocatable", pod("pvc-dynamic"), CAP_NODES,
         [pvc("pvc-dynamic", WAIT_SC_CAPACITY, "10Gi"), capacity("node-a", "100Gi"),
          capacity("node-b", "20Gi"), capacity("node-c", "10Gi")], scoring=True,
         shape=((0, 10), (100, 0)), want_state=([], ["pvc-dynamic"], {WAIT_SC_CAPACITY: []}),
         want_filter=[None, None, None], want_scores=[90, 50, 0]),
]


def plugin(case: Case, storage: StorageObjects, nodes: list[Node]) -> VolumeBinding:
    """``New`` with the case's features and args (the test's default: the default shape
    with capacity scoring)."""
    args = VolumeBindingArgs(bind_timeout_seconds=300)
    if case.shape is not None:
        args = VolumeBindingArgs(300, tuple(UtilizationShapePoint(u, s) for u, s in case.shape))
    handle = FakeHandle(nodes=nodes, storage=storage,
                        features={"StorageCapacityScoring": case.scoring})
    return VolumeBinding(args, handle)


def state_summary(state: CycleState) -> tuple[list[str], list[str], dict[str, list[str]]]:
    s = state.read(STATE_KEY)
    assert s.pod_volumes_by_node == {} and not s.all_bound
    c = s.pod_volume_claims
    assert c.unbound_claims_immediate == []
    return ([p.name for p in c.bound_claims], [p.name for p in c.unbound_claims_delay_binding],
            {k: sorted(v.name for v in pvs)
             for k, pvs in c.unbound_volumes_delay_binding.items()})


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_volume_binding(case: Case) -> None:
    """TestVolumeBinding."""
    storage = load_storage(*fixtures(), *case.objects)
    pl = plugin(case, storage, case.nodes)
    state = CycleState()
    result, status = pl.pre_filter(state, case.pod, [])
    assert result is None
    assert status == case.want_pre_filter
    if status is not None:
        return
    assert state_summary(state) == case.want_state
    infos = [NodeInfo(n) for n in case.nodes]
    assert [pl.filter(state, case.pod, ni) for ni in infos] == case.want_filter
    status = pl.pre_score(state, case.pod, infos)
    assert status == case.want_pre_score
    if status is not None:
        return
    assert [pl.score(state, case.pod, ni) for ni in infos] == case.want_scores
