"""The simulated PV controller and external provisioner (reference_impl/storage/pv_controller.py,
docs/storage.md "The simulated cluster around the scheduler")."""

from __future__ import annotations

from typing import Any

from reference_impl.model.node_selector import (
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from reference_impl.model.storage import (
    ANN_BETA_STORAGE_CLASS,
    ANN_BETA_STORAGE_PROVISIONER,
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    PV_AVAILABLE,
    PV_BOUND,
    PVC_BOUND,
    PVC_PENDING,
    READ_WRITE_ONCE,
    VOLUME_MODE_BLOCK,
    ObjectReference,
    StorageObjects,
)
from reference_impl.storage.pv_controller import (
    claim_class,
    complete_pod_volumes,
    is_volume_bound_to_claim,
)
from reference_impl.testing.nodes import make_node
from reference_impl.testing.storage import (
    PersistentVolumeClaimWrapper,
    PersistentVolumeWrapper,
    load_storage,
    make_csi_node,
    make_pv,
    make_pvc,
    make_storage_class,
)

DRIVER = "csi.example.com"
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
GIB = 1 << 30
NODE = make_node("n1").hostname().zone("z1").obj()


class Recorder:
    """The ``changed`` callback: every write, in order."""

    def __init__(self) -> None:
        self.writes: list[tuple[str, Any, Any]] = []

    def __call__(self, kind: str, old: Any, new: Any) -> None:
        self.writes.append((kind, old, new))

    def summary(self) -> list[tuple[str, str, str]]:
        def name(o: Any) -> str:
            return "" if o is None else getattr(o, "key", None) or o.name
        return [(k, name(o), name(n)) for k, o, n in self.writes]


def wffc_class(name: str = "fast", provisioner: str = DRIVER) -> Any:
    return make_storage_class(name, provisioner).wait_for_first_consumer()


def claim(name: str = "data", cls: str | None = "fast") -> PersistentVolumeClaimWrapper:
    """A 1Gi ReadWriteOnce claim with the UID ``uid-<name>``."""
    w = make_pvc(name).uid(f"uid-{name}").access_modes(READ_WRITE_ONCE).request("1Gi")
    return w if cls is None else w.storage_class(cls)


def selected(name: str = "data", node: str = "n1", **kw: Any) -> PersistentVolumeClaimWrapper:
    return claim(name, **kw).annotation(ANN_SELECTED_NODE, node)


def prebound(name: str = "pv1", to: str = "data", uid: str = "uid-data") -> PersistentVolumeWrapper:
    """A volume the scheduler pre-bound (claimRef and bound-by-controller, as
    GetBindVolumeToClaim in AssumePodVolumes)."""
    return (make_pv(name).capacity("2Gi").access_modes(READ_WRITE_ONCE).storage_class("fast")
            .claim_ref("default", to, uid).annotation(ANN_BOUND_BY_CONTROLLER, "yes")
            .phase(PV_AVAILABLE))


def run(storage: StorageObjects, *claims: str) -> Recorder:
    rec = Recorder()
    complete_pod_volumes(storage, NODE, [storage.claims[f"default/{c}"] for c in claims], rec)
    return rec


# --- the PV controller completing a binding the scheduler chose -----------------------------

def test_prebound_volume_and_claim_are_bound() -> None:
    s = load_storage(wffc_class(), claim(), prebound())
    pv, c = s.volumes["pv1"], s.claims["default/data"]
    rec = run(s, "data")
    got_pv, got_c = s.volumes["pv1"], s.claims["default/data"]
    assert got_pv.phase == PV_BOUND and got_pv.resource_version == pv.resource_version + 1
    assert got_c.volume_name == "pv1" and got_c.phase == PVC_BOUND
    assert got_c.annotations == {ANN_BIND_COMPLETED: "yes", ANN_BOUND_BY_CONTROLLER: "yes"}
    # bindVolumeToClaim has nothing to write; the phase, the claim, the claim's status do
    assert rec.summary() == [("PersistentVolume", "pv1", "pv1"),
                             ("PersistentVolumeClaim", "default/data", "default/data"),
                             ("PersistentVolumeClaim", "default/data", "default/data")]
    # the old objects stay as they were
    assert rec.writes[0][1] is pv and pv.phase == PV_AVAILABLE
    assert rec.writes[1][1] is c and c.volume_name == "" and c.annotations == {}


def test_claimref_without_uid_gets_the_uid_and_no_bound_by_controller() -> None:
    s = load_storage(claim(), make_pv("pv1").claim_ref("default", "data"))
    rec = run(s, "data")
    got = s.volumes["pv1"]
    assert got.claim_ref == ObjectReference("default", "data", "uid-data")
    # GetBindVolumeToClaim: the volume was bound to the claim already (UID unset matches)
    assert ANN_BOUND_BY_CONTROLLER not in got.annotations
    assert [w[0] for w in rec.writes] == ["PersistentVolume", "PersistentVolume",
                                          "PersistentVolumeClaim", "PersistentVolumeClaim"]


def test_claim_naming_a_volume_is_bound_without_bound_by_controller_on_the_claim() -> None:
    s = load_storage(claim().volume_name("pv1"), prebound())
    run(s, "data")
    got = s.claims["default/data"]
    assert got.phase == PVC_BOUND
    assert got.annotations == {ANN_BIND_COMPLETED: "yes"}


def test_volume_of_another_claim_is_not_taken() -> None:
    s = load_storage(claim(), claim("named").volume_name("pv1"),
                     prebound(to="other", uid="uid-other"))
    rec = run(s, "data", "named")
    assert rec.writes == []
    assert s.claims["default/data"].phase == PVC_PENDING


def test_claimref_with_another_uid_is_not_this_claim() -> None:
    s = load_storage(claim(), prebound(uid="old-uid"))
    assert not is_volume_bound_to_claim(s.volumes["pv1"], s.claims["default/data"])
    assert run(s, "data").writes == []


def test_nothing_started_nothing_done() -> None:
    """An unbound claim of an Immediate class, a free PV: the controllers leave them."""
    s = load_storage(make_storage_class("slow", DRIVER), claim(cls="slow"),
                     make_pv("pv1").capacity("1Gi").access_modes(READ_WRITE_ONCE)
                     .storage_class("slow").phase(PV_AVAILABLE))
    pv, c = s.volumes["pv1"], s.claims["default/data"]
    assert run(s, "data").writes == []
    assert s.volumes["pv1"] is pv and s.claims["default/data"] is c


def test_bound_claim_is_left_alone() -> None:
    s = load_storage(claim().volume_name("pv1").phase(PVC_BOUND)
                     .annotation(ANN_BIND_COMPLETED, "yes"),
                     prebound().phase(PV_BOUND))
    assert run(s, "data").writes == []


def test_current_claim_is_used_not_the_one_given() -> None:
    stale = claim().obj()
    s = load_storage(wffc_class(), selected())
    complete_pod_volumes(s, NODE, [stale], Recorder())
    assert s.claims["default/data"].volume_name == "pvc-uid-data"


# --- the external provisioner ----------------------------------------------------------------

def test_provisioned_volume_and_binding() -> None:
    s = load_storage(wffc_class(), selected().volume_mode(VOLUME_MODE_BLOCK),
                     make_csi_node("n1").driver(DRIVER, 4, (ZONE, HOST)))
    rec = run(s, "data")
    pv = s.volumes["pvc-uid-data"]
    assert pv.capacity == GIB and pv.access_modes == (READ_WRITE_ONCE,)
    assert pv.storage_class_name == "fast" and pv.volume_mode == VOLUME_MODE_BLOCK
    assert pv.csi_driver == DRIVER and pv.source["volumeHandle"] == "pvc-uid-data"
    assert pv.claim_ref == ObjectReference("default", "data", "uid-data")
    assert pv.annotations == {ANN_DYNAMICALLY_PROVISIONED: DRIVER}
    assert pv.node_affinity == NodeSelector((NodeSelectorTerm((
        NodeSelectorRequirement(ZONE, "In", ("z1",)),
        NodeSelectorRequirement(HOST, "In", ("n1",)))),))
    assert pv.phase == PV_BOUND
    got = s.claims["default/data"]
    assert got.volume_name == "pvc-uid-data" and got.phase == PVC_BOUND
    assert got.annotations == {
        ANN_SELECTED_NODE: "n1", ANN_BETA_STORAGE_PROVISIONER: DRIVER,
        ANN_STORAGE_PROVISIONER: DRIVER, ANN_BIND_COMPLETED: "yes",
        ANN_BOUND_BY_CONTROLLER: "yes"}
    # the claim handed to the provisioner, the PV created (old None), its phase, the claim bound
    assert rec.summary() == [
        ("PersistentVolumeClaim", "default/data", "default/data"),
        ("PersistentVolume", "", "pvc-uid-data"),
        ("PersistentVolume", "pvc-uid-data", "pvc-uid-data"),
        ("PersistentVolumeClaim", "default/data", "default/data"),
        ("PersistentVolumeClaim", "default/data", "default/data")]
    assert rec.writes[1][1] is None


def test_no_topology_without_csinode_or_keys() -> None:
    for extra in ((), (make_csi_node("n1").driver(DRIVER),),
                  (make_csi_node("n1").driver("other", None, (ZONE,)),)):
        s = load_storage(wffc_class(), selected(), *extra)
        run(s, "data")
        assert s.volumes["pvc-uid-data"].node_affinity is None, extra


def test_topology_key_the_node_lacks_is_left_out() -> None:
    s = load_storage(wffc_class(), selected(),
                     make_csi_node("n1").driver(DRIVER, None, ("example.com/rack", ZONE)))
    run(s, "data")
    assert s.volumes["pvc-uid-data"].node_affinity == NodeSelector((NodeSelectorTerm((
        NodeSelectorRequirement(ZONE, "In", ("z1",)),)),))


def test_selected_for_another_node_is_not_provisioned_here() -> None:
    assert run(load_storage(wffc_class(), selected(node="n2")), "data").writes == []


def test_no_provisioning_without_a_class_or_provisioner() -> None:
    for cls, classes in (("missing", ()),
                         ("local", (wffc_class("local", "kubernetes.io/no-provisioner"),)),
                         ("", (wffc_class(),))):
        s = load_storage(selected(cls=cls), *classes)
        rec = run(s, "data")
        assert rec.writes == [] and not s.volumes, cls


def test_beta_class_annotation_wins() -> None:
    s = load_storage(wffc_class(), selected(cls="other").annotation(ANN_BETA_STORAGE_CLASS,
                                                                    "fast"))
    assert claim_class(s.claims["default/data"]) == "fast"
    run(s, "data")
    assert s.volumes["pvc-uid-data"].storage_class_name == "fast"


def test_two_claims_of_a_pod_in_order() -> None:
    s = load_storage(wffc_class(), selected("a"), selected("b"))
    rec = run(s, "b", "a")
    assert list(s.volumes) == ["pvc-uid-b", "pvc-uid-a"]
    assert [n for k, o, n in rec.summary() if k == "PersistentVolume" and not o] == [
        "pvc-uid-b", "pvc-uid-a"]
    assert all(s.claims[k].phase == PVC_BOUND for k in ("default/a", "default/b"))


def test_complete_twice_writes_nothing_more() -> None:
    s = load_storage(wffc_class(), selected())
    run(s, "data")
    assert run(s, "data").writes == []
