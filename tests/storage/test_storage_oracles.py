"""The storage oracles (``attach_limits``, ``volume_node_affinity``, ``volume_zone``,
``read_write_once_pod``, ``provisioning``): each catches a planted wrong decision in a
hand-made result and accepts the right one (docs/oracles.md). The storage objects are written
out here until the shared builders (reference_impl/testing/storage.py) land."""

from __future__ import annotations

from typing import Any

from conformance.core.scenario import ScenarioInput
from oracles import ALL_ORACLES, attach_limits, provisioning, read_write_once_pod, volume_zone
from oracles import volume_node_affinity as node_affinity
from oracles.base import OracleContext, Violation
from oracles.replay import Replay
from reference_impl.testing.wrappers import make_node, make_pod

Doc = dict[str, Any]
DISK = "disk.csi.example.com"
GCE = "pd.csi.storage.gke.io"
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
STORAGE = "storage.k8s.io/v1"


def node(name: str, zone: str = "z1") -> Doc:
    return make_node(name).hostname().zone(zone).allocatable(
        {"cpu": "4", "memory": "8Gi", "pods": "110"}).manifest()


def pod(name: str, *claims: str, node: str | None = None, **volumes: Doc) -> Doc:
    """A pod using ``claims`` (persistentVolumeClaim volumes) and the ``volumes`` given by
    name (inline sources)."""
    p = make_pod(name).req(cpu="100m")
    for c in claims:
        p.pvc(c)
    for vol, source in volumes.items():
        p.volume({"name": vol, **source})
    if node:
        p.node(node)
    return p.manifest()


def csi_node(name: str, driver: str = DISK, count: int | None = 1,
             keys: tuple[str, ...] = ()) -> Doc:
    entry: Doc = {"name": driver, "nodeID": name, "topologyKeys": list(keys)}
    if count is not None:
        entry["allocatable"] = {"count": count}
    return {"apiVersion": STORAGE, "kind": "CSINode", "metadata": {"name": name},
            "spec": {"drivers": [entry]}}


def pv(name: str, claim: str | None = None, affinity: tuple[str, str] | None = None,
       driver: str = DISK, size: str = "1Gi", labels: dict[str, str] | None = None,
       **source: Doc) -> Doc:
    spec: Doc = {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                 **(source or {"csi": {"driver": driver, "volumeHandle": name}})}
    if claim:
        spec["claimRef"] = {"namespace": "default", "name": claim}
    if affinity:
        key, value = affinity
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}}
    meta: Doc = {"name": name, **({"labels": labels} if labels else {})}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta,
            "spec": spec, "status": {"phase": "Bound" if claim else "Available"}}


def pvc(name: str, volume: str | None = None, cls: str | None = None, size: str = "1Gi",
        modes: tuple[str, ...] = ("ReadWriteOnce",), **annotations: str) -> Doc:
    spec: Doc = {"accessModes": list(modes), "resources": {"requests": {"storage": size}}}
    if volume:
        spec["volumeName"] = volume
    if cls is not None:
        spec["storageClassName"] = cls
    meta: Doc = {"name": name, "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec,
            "status": {"phase": "Bound" if volume else "Pending"}}


def storage_class(name: str, provisioner: str = DISK, mode: str = "WaitForFirstConsumer",
                  zones: tuple[str, ...] = ()) -> Doc:
    doc: Doc = {"apiVersion": STORAGE, "kind": "StorageClass", "metadata": {"name": name},
                "provisioner": provisioner, "volumeBindingMode": mode}
    if zones:
        doc["allowedTopologies"] = [{"matchLabelExpressions": [
            {"key": ZONE, "values": list(zones)}]}]
    return doc


def csi_driver(name: str = DISK, capacity: bool = False) -> Doc:
    return {"apiVersion": STORAGE, "kind": "CSIDriver", "metadata": {"name": name},
            "spec": {"attachRequired": True, "storageCapacity": capacity}}


def capacity(name: str, cls: str, zone: str, size: str, maximum: str | None = None) -> Doc:
    doc: Doc = {"apiVersion": STORAGE, "kind": "CSIStorageCapacity",
                "metadata": {"name": name, "namespace": "default"}, "storageClassName": cls,
                "nodeTopology": {"matchLabels": {ZONE: zone}}, "capacity": size}
    if maximum:
        doc["maximumVolumeSize"] = maximum
    return doc


def bound(p: str, n: str) -> Doc:
    return {"pod": f"default/{p}", "outcome": "Bound", "node": n, "reasons": {}, "message": "",
            "nominatedNode": None, "candidates": [n], "victims": []}


def judge(docs: list[Doc], attempts: list[Doc], claims: list[Doc] | None = None,
          config: Doc | None = None) -> OracleContext:
    """A context whose result holds the attempts, the bindings they make and ``claims`` as
    ``persistentVolumeClaims``; ``config``: the KubeSchedulerConfiguration the subject ran."""
    ctx = OracleContext.build(ScenarioInput(docs, config, 0, "test"), {"attempts": attempts})
    final = Replay.of(ctx).run()
    ctx.result = {"apiVersion": "kschedconf/v1", "kind": "SimulationResult", "seed": 0,
                  "attempts": attempts, "bindings": final.bindings(),
                  "pending": sorted(final.pending), "deleted": []}
    if claims is not None:
        ctx.result["persistentVolumeClaims"] = claims
    return ctx


def claim_result(name: str, volume: str = "", selected: str | None = None) -> Doc:
    entry: Doc = {"namespace": "default", "name": name,
                  "phase": "Bound" if volume else "Pending", "volumeName": volume}
    if selected:
        entry["selectedNode"] = selected
    return entry


def one(vs: list[Violation]) -> Violation:
    assert len(vs) == 1, [str(v) for v in vs]
    return vs[0]


def test_the_storage_oracles_are_registered() -> None:
    for name in ("attach_limits", "volume_node_affinity", "volume_zone", "read_write_once_pod",
                 "provisioning"):
        assert name in ALL_ORACLES


# ----------------------------------------------------------------------------- attach_limits

ATTACH = [node("n1"), node("n2"), csi_node("n1", count=1),
          pv("pv-a", "a"), pvc("a", "pv-a"), pv("pv-b", "b"), pvc("b", "pv-b"),
          pod("run", "a", node="n1")]


def test_attach_limits_catches_a_bind_over_the_csinode_count() -> None:
    v = one(attach_limits.check(judge([*ATTACH, pod("p", "b")], [bound("p", "n1")])))
    assert (v.pod, v.node) == ("default/p", "n1")
    assert f"1 volume(s) of CSI driver {DISK}" in v.message and "allocatable count 1" in v.message


def test_attach_limits_accepts_nodes_without_a_limit_and_shared_volumes() -> None:
    # n2 has no CSINode: no limit (getVolumeLimits of a nil CSINode)
    assert attach_limits.check(judge([*ATTACH, pod("p", "b")], [bound("p", "n2")])) == []
    # the same volume as the running pod's: counted once
    assert attach_limits.check(judge([*ATTACH, pod("p", "a")], [bound("p", "n1")])) == []
    # a count of 2 leaves room for a second volume
    docs = [csi_node("n1", count=2) if d.get("kind") == "CSINode" else d for d in ATTACH]
    assert attach_limits.check(judge([*docs, pod("p", "b")], [bound("p", "n1")])) == []


def test_attach_limits_counts_unbound_claims_by_their_class_provisioner() -> None:
    docs = [*ATTACH, storage_class("wffc"), pvc("new", cls="wffc"), pod("p", "new")]
    claims = [claim_result("a", "pv-a"), claim_result("b", "pv-b"),
              claim_result("new", "pvc-1", selected="n1")]
    v = one(attach_limits.check(judge(docs, [bound("p", "n1")], claims)))
    assert "claim:default/new" in v.message
    # a class without a CSI provisioner the node limits: not counted
    docs[-3] = storage_class("wffc", provisioner="kubernetes.io/no-provisioner")
    claims[-1] = claim_result("new", "pv-static")
    assert attach_limits.check(judge(docs, [bound("p", "n1")], claims)) == []


def test_attach_limits_counts_a_claim_bound_in_the_run_to_a_static_pv_as_that_volume() -> None:
    """A claim of an Immediate class, unbound in the input, that the PV controller binds to a
    static PV with the running pod's handle before the pod is scheduled: upstream counts one
    volume (the PV's driver and handle), so the bind fits a count of 1."""
    docs = [*ATTACH, storage_class("imm", mode="Immediate"), pvc("late", cls="imm"),
            pv("pv-dup", csi={"driver": DISK, "volumeHandle": "pv-a"}), pod("p", "late")]
    claims = [claim_result("a", "pv-a"), claim_result("b", "pv-b"),
              claim_result("late", "pv-dup")]
    assert attach_limits.check(judge(docs, [bound("p", "n1")], claims)) == []
    # another handle: two volumes of the driver on n1
    docs[-2] = pv("pv-dup", csi={"driver": DISK, "volumeHandle": "other"})
    v = one(attach_limits.check(judge(docs, [bound("p", "n1")], claims)))
    assert f"{DISK}/other" in v.message


def test_attach_limits_counts_migrated_inline_gce_disks() -> None:
    disk = {"gcePersistentDisk": {"pdName": "disk-a"}}
    other = {"gcePersistentDisk": {"pdName": "disk-b"}}
    base = [node("n1"), csi_node("n1", driver=GCE, count=1), pod("run", node="n1", d=disk)]
    v = one(attach_limits.check(judge([*base, pod("p", d=other)], [bound("p", "n1")])))
    assert f"{GCE}/disk-b" in v.message
    assert attach_limits.check(judge([*base, pod("p", d=disk)], [bound("p", "n1")])) == []


# ----------------------------------------------------------------------- volume_node_affinity

AFFINITY = [node("n1", "z1"), node("n2", "z2"), pv("pv-a", "a", affinity=(ZONE, "z1")),
            pvc("a", "pv-a"), pod("p", "a")]


def test_volume_node_affinity_catches_a_bind_outside_the_pv_affinity() -> None:
    v = one(node_affinity.check(judge(AFFINITY, [bound("p", "n2")])))
    assert (v.pod, v.node) == ("default/p", "n2") and "pv-a" in v.message


def test_volume_node_affinity_accepts_a_node_the_pv_allows() -> None:
    assert node_affinity.check(judge(AFFINITY, [bound("p", "n1")])) == []


def test_volume_node_affinity_judges_the_pv_a_claim_was_bound_to_in_the_run() -> None:
    docs = [node("n1", "z1"), node("n2", "z2"),
            pv("pv-h", affinity=(HOSTNAME, "n1")), pvc("c", cls=""), pod("p", "c")]
    claims = [claim_result("c", "pv-h")]
    one(node_affinity.check(judge(docs, [bound("p", "n2")], claims)))
    assert node_affinity.check(judge(docs, [bound("p", "n1")], claims)) == []


# -------------------------------------------------------------------------------- volume_zone

REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"


def zoned_node(name: str, labels: dict[str, str]) -> Doc:
    """A node with a hostname label and ``labels`` (no zone or region unless given)."""
    doc = node(name)
    doc["metadata"]["labels"] = {HOSTNAME: name, **labels}
    return doc


def zone_case(pv_labels: dict[str, str], node_labels: dict[str, str], *extra: Doc,
              claim: str = "a", config: Doc | None = None) -> list[Violation]:
    """``volume_zone`` on pod p, whose claim ``a`` is bound to a PV with ``pv_labels``, bound
    to a node with ``node_labels``."""
    docs = [zoned_node("n1", node_labels), pv("pv-a", "a", labels=pv_labels),
            pvc("a", "pv-a"), *extra, pod("p", claim)]
    return volume_zone.check(judge(docs, [bound("p", "n1")], config=config))


def test_volume_zone_catches_a_bind_outside_the_pv_zone() -> None:
    v = one(zone_case({ZONE: "z1"}, {ZONE: "z2", REGION: "r1"}))
    assert (v.pod, v.node) == ("default/p", "n1")
    assert "pv-a" in v.message and f"{ZONE}=z1" in v.message


def test_volume_zone_accepts_a_node_of_one_of_the_pv_zones() -> None:
    assert zone_case({ZONE: "z1"}, {ZONE: "z1"}) == []
    # LabelZonesToSet: a multi-zone value, __-separated
    assert zone_case({ZONE: "z1__z2"}, {ZONE: "z2"}) == []
    one(zone_case({ZONE: "z1__z2"}, {ZONE: "z3"}))


def test_volume_zone_reads_regions_and_the_deprecated_keys() -> None:
    one(zone_case({REGION: "r1"}, {ZONE: "z3", REGION: "r2"}))
    assert zone_case({REGION: "r1"}, {ZONE: "z3", REGION: "r1"}) == []
    # a beta PV label is matched by the node's GA label when the node has no beta one
    assert zone_case({BETA_ZONE: "z1"}, {ZONE: "z1"}) == []
    one(zone_case({BETA_REGION: "r1"}, {REGION: "r2"}))
    # ... but not when it has one (translateToGALabel is a fallback only)
    one(zone_case({BETA_ZONE: "z1"}, {ZONE: "z1", BETA_ZONE: "z2"}))
    # a GA PV label is never matched by a beta node label
    one(zone_case({ZONE: "z1"}, {BETA_ZONE: "z1"}))


def test_volume_zone_has_upstreams_exceptions() -> None:
    # a node without any topology label fits every volume (a single-zone cluster)
    assert zone_case({ZONE: "z1"}, {}) == []
    assert zone_case({ZONE: "z1"}, {"example.com/rack": "r7"}) == []
    # a node with a region only: the PV's zone label is not on it
    one(zone_case({ZONE: "z1"}, {REGION: "r1"}))
    # a value LabelZonesToSet rejects (an empty zone) is ignored
    assert zone_case({ZONE: "z1__"}, {ZONE: "z2"}) == []
    # the profile does not run VolumeZone's Filter
    cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": [{"schedulerName": "default-scheduler", "plugins": {
               "filter": {"disabled": [{"name": "VolumeZone"}]}}}]}
    assert zone_case({ZONE: "z1"}, {ZONE: "z2"}, config=cfg) == []


def test_volume_zone_judges_claims_bound_in_the_input_only() -> None:
    """VolumeZone reads a claim's ``spec.volumeName`` in the informer: an unbound
    WaitForFirstConsumer claim is skipped, and a claim bound during the run may not be
    bound yet when a later pod is scheduled; ephemeral volumes are not VolumeZone's."""
    docs = [zoned_node("n1", {ZONE: "z2"}), pv("pv-z", labels={ZONE: "z1"}),
            storage_class("wffc"), pvc("c", cls="wffc"), pod("p", "c")]
    assert volume_zone.check(judge(docs, [bound("p", "n1")], [claim_result("c", "pv-z")])) == []
    eph = make_pod("e").req(cpu="100m").volume(
        {"name": "v", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}).manifest()
    docs = [zoned_node("n1", {ZONE: "z2"}), pv("pv-z", "e-v", labels={ZONE: "z1"}),
            pvc("e-v", "pv-z"), eph]
    assert volume_zone.check(judge(docs, [bound("e", "n1")])) == []


# ------------------------------------------------------------------------ read_write_once_pod

RWOP = ("ReadWriteOncePod",)


def test_read_write_once_pod_catches_a_second_user() -> None:
    docs = [node("n1"), node("n2"), pv("pv-a", "a"), pvc("a", "pv-a", modes=RWOP),
            pod("run", "a", node="n1"), pod("p", "a")]
    v = one(read_write_once_pod.check(judge(docs, [bound("p", "n2")])))
    assert "default/a" in v.message and "default/run" in v.message


def test_read_write_once_pod_accepts_one_user_and_other_modes() -> None:
    docs = [node("n1"), pv("pv-a", "a"), pvc("a", "pv-a", modes=RWOP), pod("p", "a")]
    assert read_write_once_pod.check(judge(docs, [bound("p", "n1")])) == []
    docs = [node("n1"), pv("pv-a", "a"), pvc("a", "pv-a"), pod("run", "a", node="n1"),
            pod("p", "a")]
    assert read_write_once_pod.check(judge(docs, [bound("p", "n1")])) == []


# ------------------------------------------------------------------------------ provisioning

def _provisioning(cls: Doc, *more: Doc, size: str = "1Gi") -> list[Doc]:
    return [node("n1", "z1"), node("n2", "z2"), cls, *more,
            pvc("c", cls=cls["metadata"]["name"], size=size), pod("p", "c")]


def test_provisioning_catches_a_node_outside_allowed_topologies() -> None:
    docs = _provisioning(storage_class("zonal", zones=("z1",)))
    v = one(provisioning.check(judge(docs, [bound("p", "n2")],
                                     [claim_result("c", "pvc-x", selected="n2")])))
    assert v.node == "n2" and "allowedTopologies" in v.message
    assert provisioning.check(judge(docs, [bound("p", "n1")],
                                    [claim_result("c", "pvc-x", selected="n1")])) == []


def test_provisioning_catches_a_node_without_capacity() -> None:
    docs = _provisioning(storage_class("cap"), csi_driver(capacity=True),
                         capacity("cap-0", "cap", "z1", "10Gi", maximum="2Gi"), size="5Gi")
    v = one(provisioning.check(judge(docs, [bound("p", "n1")],
                                     [claim_result("c", "pvc-x", selected="n1")])))
    assert "no CSIStorageCapacity" in v.message
    small = _provisioning(storage_class("cap"), csi_driver(capacity=True),
                          capacity("cap-0", "cap", "z1", "10Gi", maximum="2Gi"), size="2Gi")
    assert provisioning.check(judge(small, [bound("p", "n1")],
                                    [claim_result("c", "pvc-x", selected="n1")])) == []
    # n2 (zone z2) has no capacity object at all
    one(provisioning.check(judge(small, [bound("p", "n2")],
                                 [claim_result("c", "pvc-x", selected="n2")])))
    # without storageCapacity on the driver, capacity is not checked
    unchecked = _provisioning(storage_class("cap"), csi_driver(capacity=False), size="5Gi")
    assert provisioning.check(judge(unchecked, [bound("p", "n2")],
                                    [claim_result("c", "pvc-x", selected="n2")])) == []


def test_provisioning_catches_immediate_classes_and_no_provisioner() -> None:
    docs = _provisioning(storage_class("now", mode="Immediate"))
    v = one(provisioning.check(judge(docs, [bound("p", "n1")],
                                     [claim_result("c", "pvc-x", selected="n1")])))
    assert "Immediate" in v.message
    docs = _provisioning(storage_class("static", provisioner="kubernetes.io/no-provisioner"))
    v = one(provisioning.check(judge(docs, [bound("p", "n1")],
                                     [claim_result("c", "pvc-x", selected="n1")])))
    assert "no dynamic provisioner" in v.message


def test_provisioning_ignores_a_selected_node_given_in_the_input() -> None:
    docs = _provisioning(storage_class("zonal", zones=("z1",)))
    docs[-2] = pvc("c", cls="zonal", **{"volume.kubernetes.io/selected-node": "n2"})
    assert provisioning.check(judge(docs, [], [claim_result("c", selected="n2")])) == []
