"""The PV matching helpers (reference_impl/storage/pv_helpers.py): upstream's tables of
k8s.io/component-helpers v0.37.2 storage/volume, each case under upstream's name:
pv_helpers_test.go TestFindMatchVolumeWithNode and TestDelayBindingMode, helpers_test.go
TestCheckVolumeNodeAffinity and TestPersistentVolumeClaimHasClass; and
MatchTopologySelectorTerms (pkg/apis/core/v1/helper).

Not restated: the VolumeAttributesClass cases of TestFindMatchVolumeWithNode
("success-match-with-vac", "fail-vac", "fail-prebound-vac", "fail-on-error",
"fail-volumes-vac"; the model has no volumeAttributesClassName), and TestDelayBindingMode's
"no-mode-class" (the API server defaults volumeBindingMode, so a class without one cannot be
loaded). Objects the loader would refuse (an empty node selector) are built directly.
"""

from __future__ import annotations

import dataclasses

import pytest

from reference_impl.model.node_selector import (
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from reference_impl.model.objects import Node
from reference_impl.model.storage import (
    ANN_BETA_STORAGE_CLASS,
    PV_AVAILABLE,
    READ_ONLY_MANY,
    READ_WRITE_MANY,
    READ_WRITE_ONCE,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    TopologySelectorTerm,
)
from reference_impl.storage.pv_helpers import (
    check_node_affinity,
    find_matching_volume,
    get_bind_volume_to_claim,
    is_delay_binding_mode,
    match_topology_selector_terms,
    persistent_volume_claim_has_class,
)
from reference_impl.testing.storage import load_storage, make_pv, make_pvc, make_storage_class


def make_test_volume(uid: str, name: str, capacity: str, available: bool, sc: str = "",
                affinity: tuple[str, str] | None = None) -> PersistentVolume:
    """``makeTestVolume``: a local volume, ReadWriteOnce and ReadOnlyMany."""
    w = make_pv(name).uid(uid).capacity(capacity).access_modes(
        READ_WRITE_ONCE, READ_ONLY_MANY).source("local", {"path": "/l"})
    if sc:
        w.storage_class(sc)
    if available:
        w.phase(PV_AVAILABLE)
    if affinity is not None:
        w.node_affinity_in(*affinity)
    return w.obj()


VOLUMES = [
    make_test_volume("local-small", "local001", "5G", True),
    # upstream's 200E overflows int64 bytes, which the loader refuses; 8E is as "very large"
    make_test_volume("local-pd-very-large", "local002", "8E", True, "large"),
    make_test_volume("affinity-pv", "affinity001", "100G", True, "wait", ("key1", "value1")),
    make_test_volume("affinity-pv2", "affinity002", "150G", True, "wait", ("key1", "value1")),
    dataclasses.replace(make_test_volume("affinity-prebound", "affinity003", "100G", True, "wait",
                                         ("key1", "value1")),
                        claim_ref=ObjectReference("myns", "claim02")),
    make_test_volume("affinity-pv3", "affinity003", "200G", True, "wait", ("key1", "value3")),
    make_test_volume("affinity-pv4", "affinity004", "200G", False, "wait", ("key1", "value4")),
]


def claim(name: str, size: str, *modes: str) -> PersistentVolumeClaim:
    """``makeTestPersistentVolumeClaim``: class ``wait`` in namespace ``myns``."""
    return make_pvc(name, "myns").request(size).access_modes(*modes).storage_class(
        "wait").obj()


def node(value: str) -> Node:
    return Node("", labels={"key1": value})


@pytest.mark.parametrize("name,want,c,n,excluded", [
    ("success-match", "affinity-pv", claim("claim01", "100G", READ_WRITE_ONCE), node("value1"),
     ()),
    ("success-prebound", "affinity-prebound", claim("claim02", "100G", READ_WRITE_ONCE),
     node("value1"), ()),
    ("success-exclusion", "affinity-pv2", claim("claim01", "100G", READ_WRITE_ONCE),
     node("value1"), ("affinity001",)),
    ("fail-exclusion", None, claim("claim01", "100G", READ_WRITE_ONCE), node("value1"),
     ("affinity001", "affinity002", "affinity002-vac")),
    ("fail-accessmode", None, claim("claim01", "100G", READ_WRITE_MANY), node("value1"), ()),
    ("fail-nodeaffinity", None, claim("claim01", "100G", READ_WRITE_ONCE), node("value2"), ()),
    ("fail-prebound-node-affinity", None, claim("claim02", "100G", READ_WRITE_ONCE),
     node("value3"), ()),
    ("fail-nonavaliable", None, claim("claim04", "100G", READ_WRITE_ONCE), node("value4"), ()),
    ("success-bad-and-good-node-affinity", "affinity-pv3",
     claim("claim03", "100G", READ_WRITE_ONCE), node("value3"), ()),
])
def test_find_match_volume_with_node(name: str, want: str | None, c: PersistentVolumeClaim,
                                     n: Node, excluded: tuple[str, ...]) -> None:
    """TestFindMatchVolumeWithNode (delay binding, as upstream calls it)."""
    got = find_matching_volume(c, VOLUMES, n, set(excluded), True)
    assert (got.uid if got is not None else None) == want


def test_find_matching_volume_without_node() -> None:
    """``FindMatchingVolume`` with no node: only a volume bound to the claim when delay
    binding; otherwise the smallest match (access modes are not checked without a node)."""
    c = claim("claim01", "100G", READ_WRITE_MANY)
    assert find_matching_volume(c, VOLUMES, None, set(), True) is None
    got = find_matching_volume(c, VOLUMES, None, set(), False)
    assert got is not None and got.uid == "affinity-pv"
    prebound = claim("claim02", "100G", READ_WRITE_ONCE)
    got = find_matching_volume(prebound, VOLUMES, None, set(), True)
    assert got is not None and got.uid == "affinity-prebound"


NODE_LABELS = {"test-key1": "test-value1", "test-key2": "test-value2"}


def term(*reqs: tuple[str, tuple[str, ...]]) -> NodeSelectorTerm:
    return NodeSelectorTerm(tuple(NodeSelectorRequirement(k, "In", v) for k, v in reqs))


@pytest.mark.parametrize("name,affinity,ok", [
    ("valid-nil", None, True),
    ("select-nothing", NodeSelector(()), False),
    ("select-nothing-empty-terms", NodeSelector((NodeSelectorTerm(),)), False),
    ("valid-multiple-terms", NodeSelector((
        term(("test-key3", ("test-value1", "test-value3"))),
        term(("test-key2", ("test-value0", "test-value2"))))), True),
    ("valid-multiple-match-expressions", NodeSelector((
        term(("test-key1", ("test-value1", "test-value3")),
             ("test-key2", ("test-value0", "test-value2"))),)), True),
    ("invalid-multiple-match-expressions-key", NodeSelector((
        term(("test-key1", ("test-value1", "test-value3")),
             ("test-key3", ("test-value0", "test-value2"))),)), False),
    ("invalid-multiple-match-expressions-values", NodeSelector((
        term(("test-key1", ("test-value3", "test-value4")),
             ("test-key2", ("test-value0", "test-value2"))),)), False),
    ("invalid-multiple-terms", NodeSelector((
        term(("test-key3", ("test-value1", "test-value3"))),
        term(("test-key2", ("test-value0", "test-value1"))))), False),
])
def test_check_volume_node_affinity(name: str, affinity: NodeSelector | None, ok: bool) -> None:
    """TestCheckVolumeNodeAffinity ("valid-no-constraints", a nodeAffinity without
    ``required``, is the model's None as "valid-nil")."""
    pv = PersistentVolume("pv", node_affinity=affinity)
    assert (check_node_affinity(pv, NODE_LABELS) is None) is ok


def test_check_node_affinity_sees_only_labels() -> None:
    """Upstream matches against a node of labels only (no name): ``nodeSelectorTerm.match``
    ignores field terms for a node without fields, so a ``metadata.name`` term matches every
    node, even another one."""
    by_name = NodeSelector((NodeSelectorTerm(match_fields=(
        NodeSelectorRequirement("metadata.name", "In", ("n1",)),)),))
    pv = PersistentVolume("pv", node_affinity=by_name)
    assert check_node_affinity(pv, {"kubernetes.io/hostname": "n2"}) is None


@pytest.mark.parametrize("name,c,want", [
    ("no storage class", PersistentVolumeClaim("ns", "c"), False),
    ("storage class set on annotation",
     PersistentVolumeClaim("ns", "c", annotations={ANN_BETA_STORAGE_CLASS: ""}), True),
    ("storage class set on spec", PersistentVolumeClaim("ns", "c", storage_class_name=""), True),
])
def test_persistent_volume_claim_has_class(name: str, c: PersistentVolumeClaim,
                                           want: bool) -> None:
    """TestPersistentVolumeClaimHasClass."""
    assert persistent_volume_claim_has_class(c) is want


CLASSES = load_storage(
    make_storage_class("immediate-mode", "p"),
    make_storage_class("wait-mode", "p").wait_for_first_consumer()).classes


@pytest.mark.parametrize("name,sc,want", [
    ("nil-class", None, False),
    ("class-not-found", "not-here", False),
    ("immediate-mode-class", "immediate-mode", False),
    ("wait-mode-class", "wait-mode", True),
])
def test_delay_binding_mode(name: str, sc: str | None, want: bool) -> None:
    """TestDelayBindingMode."""
    assert is_delay_binding_mode(PersistentVolumeClaim("", "", storage_class_name=sc),
                                 CLASSES) is want


def test_get_bind_volume_to_claim() -> None:
    """``GetBindVolumeToClaim``: a copy pre-bound to the claim, marked bound-by-controller,
    dirty; a volume already bound to it (UID included) is not dirty."""
    c = PersistentVolumeClaim("ns", "c", uid="u")
    pv = PersistentVolume("pv", resource_version=3)
    new, dirty = get_bind_volume_to_claim(pv, c)
    assert dirty and new.claim_ref == ObjectReference("ns", "c", "u")
    assert new.annotations == {"pv.kubernetes.io/bound-by-controller": "yes"}
    assert new.resource_version == 3 and pv.claim_ref is None
    again, dirty = get_bind_volume_to_claim(new, c)
    assert not dirty and again == new


@pytest.mark.parametrize("terms,labels,want", [
    ((), {}, True),
    ((TopologySelectorTerm(),), {"k": "v"}, False),
    ((TopologySelectorTerm((("k", ("v", "w")),)),), {"k": "w"}, True),
    ((TopologySelectorTerm((("k", ("v",)), ("z", ("a",)))),), {"k": "v"}, False),
    ((TopologySelectorTerm((("k", ("x",)),)), TopologySelectorTerm((("k", ("v",)),))),
     {"k": "v"}, True),
    ((TopologySelectorTerm((("k", ()),)),), {"k": "v"}, False),
])
def test_match_topology_selector_terms(terms: tuple[TopologySelectorTerm, ...],
                                       labels: dict[str, str], want: bool) -> None:
    """``MatchTopologySelectorTerms``: no terms match everything; an empty term, or an
    expression without values, matches nothing; terms are ORed, expressions ANDed."""
    assert match_topology_selector_terms(terms, labels) is want
