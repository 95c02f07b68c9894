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
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    PV_AVAILABLE,
    PV_BOUND,
    PVC_BOUND,
    PVC_PENDING,
    READ_WRITE_ONCE,
    VOLUME_MODE_BLOCK,
    CSINode,
    CSINodeDriver,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    StorageObjects,
)
from reference_impl.storage.pv_controller import (
    claim_class,
    complete_pod_volumes,
    is_volume_bound_to_claim,
)
from reference_impl.testing.nodes import make_node

DRIVER = "csi.example.com"
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
GIB = 1 << 30


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


def wffc_class(name: str = "fast", provisioner: str = DRIVER) -> StorageClass:
    return StorageClass(name, provisioner, volume_binding_mode=BINDING_WAIT_FOR_FIRST_CONSUMER)


def claim(name: str = "data", *, uid: str = "", cls: str | None = "fast",
          **kw: Any) -> PersistentVolumeClaim:
    return PersistentVolumeClaim("default", name, uid=uid or f"uid-{name}", storage_class_name=cls,
                                 access_modes=(READ_WRITE_ONCE,), request=GIB, **kw)


def storage_of(*objs: Any) -> StorageObjects:
    s = StorageObjects()
    for o in objs:
        if isinstance(o, PersistentVolume):
            s.volumes[o.name] = o
        elif isinstance(o, PersistentVolumeClaim):
            s.claims[o.key] = o
        elif isinstance(o, StorageClass):
            s.classes[o.name] = o
        elif isinstance(o, CSINode):
            s.csi_nodes[o.name] = o
    return s


NODE = make_node("n1").hostname().zone("z1").obj()


# --- the PV controller completing a binding the scheduler chose -----------------------------

def test_prebound_volume_and_claim_are_bound() -> None:
    c = claim()
    pv = PersistentVolume("pv1", capacity=2 * GIB, access_modes=(READ_WRITE_ONCE,),
                          storage_class_name="fast", phase=PV_AVAILABLE, resource_version=3,
                          claim_ref=ObjectReference("default", "data", "uid-data"),
                          annotations={ANN_BOUND_BY_CONTROLLER: "yes"})
    s = storage_of(wffc_class(), c, pv)
    rec = Recorder()
    complete_pod_volumes(s, NODE, [c], rec)
    got_pv, got_c = s.volumes["pv1"], s.claims["default/data"]
    assert got_pv.phase == PV_BOUND and got_pv.resource_version == 4
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
    c = claim()
    pv = PersistentVolume("pv1", claim_ref=ObjectReference("default", "data"))
    s = storage_of(c, pv)
    rec = Recorder()
    complete_pod_volumes(s, NODE, [c], rec)
    got = s.volumes["pv1"]
    assert got.claim_ref == ObjectReference("default", "data", "uid-data")
    # GetBindVolumeToClaim: the volume was bound to the claim already (UID unset matches)
    assert ANN_BOUND_BY_CONTROLLER not in got.annotations
    assert [w[0] for w in rec.writes] == ["PersistentVolume", "PersistentVolume",
                                          "PersistentVolumeClaim", "PersistentVolumeClaim"]


def test_claim_naming_a_volume_is_bound_without_bound_by_controller_on_the_claim() -> None:
    c = claim(volume_name="pv1")
    pv = PersistentVolume("pv1", claim_ref=ObjectReference("default", "data", "uid-data"))
    s = storage_of(c, pv)
    complete_pod_volumes(s, NODE, [c], Recorder())
    got = s.claims["default/data"]
    assert got.phase == PVC_BOUND
    assert got.annotations == {ANN_BIND_COMPLETED: "yes"}


def test_volume_of_another_claim_is_not_taken() -> None:
    c = claim()
    pv = PersistentVolume("pv1", claim_ref=ObjectReference("default", "other", "uid-other"))
    named = claim("named", volume_name="pv1")
    s = storage_of(c, named, pv)
    rec = Recorder()
    complete_pod_volumes(s, NODE, [c, named], rec)
    assert rec.writes == []
    assert s.claims["default/data"].phase == PVC_PENDING


def test_claimref_with_another_uid_is_not_this_claim() -> None:
    c = claim()
    pv = PersistentVolume("pv1", claim_ref=ObjectReference("default", "data", "old-uid"))
    assert not is_volume_bound_to_claim(pv, c)
    rec = Recorder()
    complete_pod_volumes(storage_of(c, pv), NODE, [c], rec)
    assert rec.writes == []


def test_nothing_started_nothing_done() -> None:
    """An unbound claim of an Immediate class, a free PV: the controllers leave them."""
    c = claim(cls="slow")
    pv = PersistentVolume("pv1", capacity=GIB, access_modes=(READ_WRITE_ONCE,),
                          storage_class_name="slow", phase=PV_AVAILABLE)
    s = storage_of(StorageClass("slow", DRIVER), c, pv)
    rec = Recorder()
    complete_pod_volumes(s, NODE, [c], rec)
    assert rec.writes == []
    assert s.volumes["pv1"] is pv and s.claims["default/data"] is c


def test_bound_claim_is_left_alone() -> None:
    c = claim(volume_name="pv1", phase=PVC_BOUND,
              annotations={ANN_BIND_COMPLETED: "yes"})
    pv = PersistentVolume("pv1", phase=PV_BOUND,
                          claim_ref=ObjectReference("default", "data", "uid-data"))
    rec = Recorder()
    complete_pod_volumes(storage_of(c, pv), NODE, [c], rec)
    assert rec.writes == []


def test_current_claim_is_used_not_the_one_given() -> None:
    stale = claim()
    current = claim(annotations={ANN_SELECTED_NODE: "n1"})
    s = storage_of(wffc_class(), current)
    complete_pod_volumes(s, NODE, [stale], Recorder())
    assert s.claims["default/data"].volume_name == "pvc-uid-data"


# --- the external provisioner ----------------------------------------------------------------

def test_provisioned_volume_and_binding() -> None:
    c = claim(annotations={ANN_SELECTED_NODE: "n1"}, volume_mode=VOLUME_MODE_BLOCK)
    csi = CSINode("n1", (CSINodeDriver(DRIVER, "n1", 4, (ZONE, HOST)),))
    s = storage_of(wffc_class(), c, csi)
    rec = Recorder()
    complete_pod_volumes(s, NODE, [c], rec)
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
    for extra in ((), (CSINode("n1", (CSINodeDriver(DRIVER, "n1"),)),),
                  (CSINode("n1", (CSINodeDriver("other", "n1", None, (ZONE,)),)),)):
        c = claim(annotations={ANN_SELECTED_NODE: "n1"})
        s = storage_of(wffc_class(), c, *extra)
        complete_pod_volumes(s, NODE, [c], Recorder())
        assert s.volumes["pvc-uid-data"].node_affinity is None, extra


def test_topology_key_the_node_lacks_is_left_out() -> None:
    c = claim(annotations={ANN_SELECTED_NODE: "n1"})
    csi = CSINode("n1", (CSINodeDriver(DRIVER, "n1", None, ("example.com/rack", ZONE)),))
    s = storage_of(wffc_class(), c, csi)
    complete_pod_volumes(s, NODE, [c], Recorder())
    assert s.volumes["pvc-uid-data"].node_affinity == NodeSelector((NodeSelectorTerm((
        NodeSelectorRequirement(ZONE, "In", ("z1",)),)),))


def test_selected_for_another_node_is_not_provisioned_here() -> None:
    c = claim(annotations={ANN_SELECTED_NODE: "n2"})
    rec = Recorder()
    complete_pod_volumes(storage_of(wffc_class(), c), NODE, [c], rec)
    assert rec.writes == []


def test_no_provisioning_without_a_class_or_provisioner() -> None:
    for cls, classes in (("missing", ()), ("local", (wffc_class("local",
                                                                 "kubernetes.io/no-provisioner"),)),
                         ("", (wffc_class(),))):
        c = claim(cls=cls, annotations={ANN_SELECTED_NODE: "n1"})
        rec = Recorder()
        s = storage_of(c, *classes)
        complete_pod_volumes(s, NODE, [c], rec)
        assert rec.writes == [] and not s.volumes, cls


def test_beta_class_annotation_wins() -> None:
    c = claim(cls="other", annotations={ANN_SELECTED_NODE: "n1", ANN_BETA_STORAGE_CLASS: "fast"})
    assert claim_class(c) == "fast"
    s = storage_of(wffc_class(), c)
    complete_pod_volumes(s, NODE, [c], Recorder())
    assert s.volumes["pvc-uid-data"].storage_class_name == "fast"


def test_two_claims_of_a_pod_in_order() -> None:
    a = claim("a", annotations={ANN_SELECTED_NODE: "n1"})
    b = claim("b", annotations={ANN_SELECTED_NODE: "n1"})
    s = storage_of(wffc_class(), a, b)
    rec = Recorder()
    complete_pod_volumes(s, NODE, [b, a], rec)
    assert list(s.volumes) == ["pvc-uid-b", "pvc-uid-a"]
    assert [n for k, o, n in rec.summary() if k == "PersistentVolume" and not o] == [
        "pvc-uid-b", "pvc-uid-a"]
    assert all(s.claims[k].phase == PVC_BOUND for k in ("default/a", "default/b"))


def test_complete_twice_writes_nothing_more() -> None:
    c = claim(annotations={ANN_SELECTED_NODE: "n1"})
    s = storage_of(wffc_class(), c)
    complete_pod_volumes(s, NODE, [c], Recorder())
    rec = Recorder()
    complete_pod_volumes(s, NODE, [c], rec)
    assert rec.writes == []
