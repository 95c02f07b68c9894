"""The golden scenarios of area ``storage`` (``golden/storage/``): the volume plugins of the
default profile (VolumeBinding, VolumeZone, NodeVolumeLimits, VolumeRestrictions) and the
simulated PV controller and external provisioner around the scheduler (docs/storage.md)."""

from __future__ import annotations

from reference_impl.testing.storage import (
    PersistentVolumeClaimWrapper,
    PersistentVolumeWrapper,
    make_csi_driver,
    make_csi_node,
    make_pv,
    make_pvc,
    make_storage_class,
)
from reference_impl.testing.wrappers import PodWrapper

from .common import Area, Docs, node, pod

AREA = Area("storage")
golden = AREA.golden

DRIVER = "csi.example.com"
RACK = "topology.csi.example.com/rack"


def bound_claim(name: str, volume: str, *modes: str) -> PersistentVolumeClaimWrapper:
    """A claim the PV controller bound to ``volume`` (volumeName, bind-completed, Bound)."""
    return (make_pvc(name).storage_class("").access_modes(*modes).request("1Gi")
            .annotation("pv.kubernetes.io/bind-completed", "yes").bound_to(volume))


def with_claims(p: PodWrapper, *claims: str) -> PodWrapper:
    for c in claims:
        p.pvc(c)
    return p


@golden("volume-binding-provisioning",
        "VolumeBinding: WaitForFirstConsumer claims provisioned for the chosen node, the PV's "
        "node affinity from the CSINode's topology keys binds the claim's later pods there")
def _() -> Docs:
    return [node("n1", labels={RACK: "r1"}), node("n2", labels={RACK: "r2"}),
            make_storage_class("topo", DRIVER).wait_for_first_consumer(),
            make_csi_node("n1").driver(DRIVER, topology_keys=[RACK]),
            make_csi_node("n2").driver(DRIVER, topology_keys=[RACK]),
            make_pvc("shared").storage_class("topo").access_modes("ReadWriteMany")
            .request("1Gi"),
            with_claims(pod("writer", created="2024-01-01T00:00:00Z", nodeSelector={RACK: "r2"}),
                        "shared"),
            with_claims(pod("reader", "200m", created="2024-01-01T00:00:01Z"), "shared"),
            with_claims(pod("free", "300m", created="2024-01-01T00:00:02Z"))]


@golden("volume-binding-static",
        "VolumeBinding: each claim gets the smallest free PV that fits (a 10Gi claim after a "
        "3Gi one still finds the 20Gi PV), a local PV only where its node affinity allows; an "
        "unbound Immediate claim leaves its pod pending")
def _() -> Docs:
    def free(name: str, size: str, cls: str = "manual") -> PersistentVolumeWrapper:
        return (make_pv(name).capacity(size).access_modes("ReadWriteOnce").storage_class(cls)
                .csi(DRIVER, f"vol-{name}").phase("Available"))

    return [node("n1"), node("n2"), node("n3"),
            make_storage_class("manual", "kubernetes.io/no-provisioner")
            .wait_for_first_consumer(),
            make_storage_class("local", "kubernetes.io/no-provisioner")
            .wait_for_first_consumer(),
            make_storage_class("now", DRIVER),
            free("pv-20g", "20Gi"), free("pv-2g", "2Gi"), free("pv-5g", "5Gi"),
            free("local-n3", "10Gi", "local").node_affinity_in("kubernetes.io/hostname", "n3"),
            make_pvc("logs").storage_class("manual").access_modes("ReadWriteOnce")
            .request("3Gi"),
            make_pvc("archive").storage_class("manual").access_modes("ReadWriteOnce")
            .request("10Gi"),
            make_pvc("cache").storage_class("local").access_modes("ReadWriteOnce")
            .request("1Gi"),
            make_pvc("later").storage_class("now").access_modes("ReadWriteOnce")
            .request("1Gi"),
            with_claims(pod("logger", created="2024-01-01T00:00:00Z"), "logs"),
            with_claims(pod("archiver", created="2024-01-01T00:00:01Z"), "archive"),
            with_claims(pod("cacher", created="2024-01-01T00:00:02Z"), "cache"),
            with_claims(pod("waiter", created="2024-01-01T00:00:03Z"), "later")]


@golden("volume-zone", "VolumeZone: a PV's zone label keeps its claim's pods in that zone")
def _() -> Docs:
    return [node("a1", zone="zone-a"), node("b1", zone="zone-b"), node("b2", zone="zone-b"),
            make_pv("zonal").capacity("1Gi").access_modes("ReadWriteMany").storage_class("")
            .csi(DRIVER, "vol-zonal").label("topology.kubernetes.io/zone", "zone-b")
            .claim_ref("default", "data").phase("Bound"),
            bound_claim("data", "zonal", "ReadWriteMany"),
            with_claims(pod("follows", created="2024-01-01T00:00:00Z"), "data"),
            with_claims(pod("held-in-a", created="2024-01-01T00:00:01Z",
                            nodeSelector={"topology.kubernetes.io/zone": "zone-a"}), "data"),
            pod("no-volume", created="2024-01-01T00:00:02Z",
                nodeSelector={"topology.kubernetes.io/zone": "zone-a"})]


@golden("node-volume-limits",
        "NodeVolumeLimits: the CSINode's allocatable count of a driver, counted by volume "
        "handle (a shared volume counts once, provisioned ones each their own)")
def _() -> Docs:
    return [node("n1"), node("n2", "1"),
            make_storage_class("csi", DRIVER).wait_for_first_consumer(),
            make_csi_driver(DRIVER).attach_required(),
            make_csi_node("n1").driver(DRIVER, count=2),
            make_csi_node("n2").driver(DRIVER, count=1),
            make_pv("shared").capacity("1Gi").access_modes("ReadWriteMany").storage_class("")
            .csi(DRIVER, "vol-shared").claim_ref("default", "shared").phase("Bound"),
            bound_claim("shared", "shared", "ReadWriteMany"),
            with_claims(pod("running", node="n1"), "shared"),
            pod("hog", "1", node="n2"),
            *(make_pvc(f"data-{i}").storage_class("csi").access_modes("ReadWriteOnce")
              .request("1Gi") for i in range(3)),
            with_claims(pod("also-shared", created="2024-01-01T00:00:00Z"), "shared"),
            with_claims(pod("db-0", created="2024-01-01T00:00:01Z"), "data-0"),
            with_claims(pod("db-1", created="2024-01-01T00:00:02Z"), "data-1"),
            with_claims(pod("db-2", created="2024-01-01T00:00:03Z"), "data-2")]


@golden("volume-restrictions",
        "VolumeRestrictions: a ReadWriteOncePod claim in use keeps every other pod of it "
        "pending; a ReadWriteOnce claim does not")
def _() -> Docs:
    return [node("n1"), node("n2"),
            make_pv("single").capacity("1Gi").access_modes("ReadWriteOncePod")
            .storage_class("").csi(DRIVER, "vol-single").claim_ref("default", "single")
            .phase("Bound"),
            bound_claim("single", "single", "ReadWriteOncePod"),
            make_pv("rwo").capacity("1Gi").access_modes("ReadWriteOnce").storage_class("")
            .csi(DRIVER, "vol-rwo").claim_ref("default", "rwo").phase("Bound"),
            bound_claim("rwo", "rwo", "ReadWriteOnce"),
            with_claims(pod("owner", node="n1"), "single"),
            with_claims(pod("rwo-user", node="n1"), "rwo"),
            with_claims(pod("intruder", created="2024-01-01T00:00:00Z"), "single"),
            with_claims(pod("rwo-second", created="2024-01-01T00:00:01Z"), "rwo")]
