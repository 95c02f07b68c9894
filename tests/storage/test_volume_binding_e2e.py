"""VolumeBinding through the Scheduler and the simulated PV controller (docs/storage.md): a
WaitForFirstConsumer claim is provisioned on the node its first pod is bound to, a later pod
of the same claim follows the provisioned volume's node affinity, and later pods see the
static volumes earlier pods took (Reserve's assume, PreBind's writes).

VolumeRestrictions, NodeVolumeLimits and VolumeZone still refuse claims on this branch
(wt-stlimits models them), so the profile here disables them.
"""

from __future__ import annotations

from reference_impl.config import load_config
from reference_impl.model.objects import Cluster, Pod
from reference_impl.model.storage import ANN_SELECTED_NODE, PV_AVAILABLE, PVC_BOUND, PVC_PENDING
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.plugins.volumebinding.binder import ERR_REASON_BIND_CONFLICT
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import TimelineResult, run_simulation
from reference_impl.storage.pv_helpers import NOT_SUPPORTED_PROVISIONER, check_node_affinity
from reference_impl.testing.nodes import make_node
from reference_impl.testing.storage import (
    load_storage,
    make_csi_node,
    make_pv,
    make_pvc,
    make_storage_class,
)
from reference_impl.testing.wrappers import make_pod

DRIVER = "csi.example.com"
ZONE = "topology.kubernetes.io/zone"
NODE = {"cpu": "4", "memory": "32Gi", "pods": 110}
OTHER_VOLUME_PLUGINS = ("VolumeRestrictions", "NodeVolumeLimits", "VolumeZone")


def scheduler(c: Cluster) -> Scheduler:
    registry = in_tree_registry()
    config = load_config({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {
            "disabled": [{"name": n} for n in OTHER_VOLUME_PLUGINS]}}}],
    }, registry)
    return Scheduler(c, config, registry)


def outcomes(res: TimelineResult) -> list[tuple[str, str, str | None]]:
    return [(a.pod, a.outcome, a.node) for a in res.attempts]


def pod(name: str, *claims: str) -> Pod:
    w = make_pod(name)
    for claim in claims:
        w.pvc(claim)
    return w.obj()


def zonal_cluster(*pods: Pod) -> Cluster:
    """Nodes n1 (zone a) and n2 (zone b), each with the driver's CSINode (topology key
    zone); the WaitForFirstConsumer class ``fast`` of the driver and its claim ``data``."""
    storage = load_storage(
        make_storage_class("fast", DRIVER).wait_for_first_consumer(),
        make_pvc("data").uid("u1").storage_class("fast").access_modes("ReadWriteOnce")
        .request("1Gi"),
        make_csi_node("n1").driver(DRIVER, topology_keys=[ZONE]),
        make_csi_node("n2").driver(DRIVER, topology_keys=[ZONE]))
    nodes = [make_node(n).hostname().zone(z).capacity(NODE).obj()
             for n, z in (("n1", "a"), ("n2", "b"))]
    return Cluster(nodes=nodes, pods=list(pods), storage=storage)


def test_wait_for_first_consumer_claim_is_provisioned_on_the_chosen_node() -> None:
    c = zonal_cluster(pod("first", "data"), pod("second", "data"))
    res = run_simulation(scheduler(c))
    (p1, out1, node1), (p2, out2, node2) = outcomes(res)
    assert (p1, out1, p2, out2) == ("default/first", "Bound", "default/second", "Bound")
    claim = c.storage.claims["default/data"]
    assert claim.phase == PVC_BOUND and claim.volume_name == "pvc-u1"
    assert claim.annotations[ANN_SELECTED_NODE] == node1
    volume = c.storage.volumes["pvc-u1"]
    assert volume.claim_ref is not None and volume.claim_ref.uid == "u1"
    # the provisioned volume is in the first node's zone: the second pod follows it
    node_of = {n.name: n for n in c.nodes}
    assert check_node_affinity(volume, node_of[node1].labels) is None
    assert node2 == node1


def static_cluster(*pods: Pod) -> Cluster:
    """One local volume on n1 (10Gi, class ``local`` of no provisioner) and two claims of it;
    nodes n1 and n2."""
    storage = load_storage(
        make_storage_class("local", NOT_SUPPORTED_PROVISIONER).wait_for_first_consumer(),
        make_pv("local-1").capacity("10Gi").access_modes("ReadWriteOnce").storage_class(
            "local").phase(PV_AVAILABLE).host_path("/mnt/1").node_affinity_in(
            "kubernetes.io/hostname", "n1"),
        *(make_pvc(name).uid(f"uid-{name}").storage_class("local").access_modes(
            "ReadWriteOnce").request("5Gi") for name in ("a", "b")))
    nodes = [make_node(n).hostname().capacity(NODE).obj() for n in ("n1", "n2")]
    return Cluster(nodes=nodes, pods=list(pods), storage=storage)


def test_later_pods_see_the_volumes_earlier_pods_took() -> None:
    c = static_cluster(pod("pa", "a"), pod("pb", "b"))
    res = run_simulation(scheduler(c))
    got = outcomes(res)
    assert got[0] == ("default/pa", "Bound", "n1")
    assert all(o[:2] == ("default/pb", "Unschedulable") for o in got[1:]), got
    assert ERR_REASON_BIND_CONFLICT in res.attempts[1].message
    a, b = c.storage.claims["default/a"], c.storage.claims["default/b"]
    assert a.phase == PVC_BOUND and a.volume_name == "local-1"
    assert b.phase == PVC_PENDING and not b.volume_name
    pv = c.storage.volumes["local-1"]
    assert pv.claim_ref is not None and (pv.claim_ref.name, pv.claim_ref.uid) == ("a", "uid-a")


def test_immediate_unbound_claim_is_unschedulable() -> None:
    """docs/storage.md: an unbound claim of an Immediate class stays unbound; its pod gets
    upstream's PreFilter message."""
    storage = load_storage(make_storage_class("now", DRIVER),
                           make_pvc("c").storage_class("now").request("1Gi"))
    c = Cluster(nodes=[make_node("n1").hostname().capacity(NODE).obj()],
                pods=[pod("p", "c")], storage=storage)
    res = run_simulation(scheduler(c))
    assert res.attempts[0].outcome == "Unschedulable"
    assert "pod has unbound immediate PersistentVolumeClaims" in res.attempts[0].message
    assert not c.storage.volumes


def test_same_inputs_same_results() -> None:
    """Determinism: two runs of the same cluster bind the same volumes."""
    def run() -> list[tuple[str, str, str | None]]:
        return outcomes(run_simulation(scheduler(zonal_cluster(pod("first", "data")))))
    assert run() == run()
