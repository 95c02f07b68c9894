"""The node affinity of in-tree PVs translated to CSI (``reference_impl/plugins/helper/
csi_topology.py``, ``translate_pv_to_csi``).

Restated from ``plugins/in_tree_volume_test.go`` of k8s.io/csi-translation-lib v0.37.2
(TestTranslateTopologyFromInTreeToCSI, TestAddTopology); the other cases are our own, each
stating what ``TranslateInTreePVToCSI`` (plugins/{gce_pd,aws_ebs,openstack_cinder,azure_disk,
portworx}.go) does to the PV's node affinity.
"""

from __future__ import annotations

import pytest

from reference_impl.model.node_selector import (
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from reference_impl.plugins.helper.csi_topology import (
    add_topology,
    translate_topology_from_in_tree_to_csi,
)
from reference_impl.plugins.helper.csi_translation import TranslationError, translate_pv_to_csi
from reference_impl.testing.storage import make_pv

GCE_KEY = "topology.gke.io/zone"
AWS_KEY = "topology.ebs.csi.aws.com/zone"
CINDER_KEY = "topology.cinder.csi.openstack.org/zone"
ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"


def req(key: str, *values: str, op: str = "In") -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, op, values)


def one_term(*reqs: NodeSelectorRequirement) -> NodeSelector:
    return NodeSelector((NodeSelectorTerm(reqs),))


def gce_pv(labels: dict[str, str], *terms: list[tuple[str, str]]):
    w = make_pv("gcepd").source("gcePersistentDisk", {"pdName": "disk"})
    for k, val in labels.items():
        w.label(k, val)
    for term in terms:
        w.node_affinity({"matchExpressions": [
            {"key": k, "operator": "In", "values": [val]} for k, val in term]})
    return w.obj()


# --- TestTranslateTopologyFromInTreeToCSI ------------------------------------------------------

@pytest.mark.parametrize("name,labels,term,want", [
    ("Replace GA Kubernetes Zone Topology to GCE CSI Topology",
     {ZONE: "us-east1-a", REGION: "us-east1"}, [(ZONE, "us-east1-a"), (REGION, "us-east1")],
     one_term(req(GCE_KEY, "us-east1-a"), req(REGION, "us-east1"))),
    ("Replace Beta Kubernetes Topology to GCE CSI Topology and upgrade region label",
     {ZONE: "us-east1-a", REGION: "us-east1"},
     [(BETA_ZONE, "us-west2-b"), (BETA_REGION, "us-west2")],
     one_term(req(GCE_KEY, "us-west2-b"), req(REGION, "us-west2"))),
])
def test_translate_topology_from_in_tree_to_csi(name, labels, term, want) -> None:
    """TestTranslateTopologyFromInTreeToCSI: the node affinity's zone key becomes the CSI
    key, a beta region key the GA one."""
    assert translate_topology_from_in_tree_to_csi(gce_pv(labels, term), GCE_KEY) == want


# --- TestAddTopology -------------------------------------------------------------------------

@pytest.mark.parametrize("name,zones,want", [
    ("empty zones", [], None),
    ("only whitespace-named zones", [" ", "\n", "\t", "  "], None),
    ("including whitespace-named zones", [" ", "us-central1-a"],
     one_term(req(GCE_KEY, "us-central1-a"))),
    ("unsorted zones", ["us-central1-f", "us-central1-a", "us-central1-c", "us-central1-b"],
     one_term(req(GCE_KEY, "us-central1-a", "us-central1-b", "us-central1-c",
                  "us-central1-f"))),
])
def test_add_topology(name, zones, want) -> None:
    """TestAddTopology on a PV without node affinity: no zone left is upstream's error (the
    affinity stays unset), else one term ``KEY In`` the sorted zones."""
    assert add_topology(None, GCE_KEY, zones) == want


def test_add_topology_appends_to_every_term() -> None:
    """``addTopology``: the requirement is added to each existing term (ANDed with it)."""
    affinity = NodeSelector((NodeSelectorTerm((req("a", "1"),)),
                             NodeSelectorTerm((req("b", "2"),))))
    assert add_topology(affinity, AWS_KEY, ["z1"]) == NodeSelector((
        NodeSelectorTerm((req("a", "1"), req(AWS_KEY, "z1"))),
        NodeSelectorTerm((req("b", "2"), req(AWS_KEY, "z1")))))


# --- TranslateInTreePVToCSI, own cases --------------------------------------------------------

@pytest.mark.parametrize("name,kind,src,labels,want_driver,want_handle,want_affinity", [
    ("GCE PD, beta zone label: zonal handle, CSI zone term", "gcePersistentDisk",
     {"pdName": "d"}, {BETA_ZONE: "us-east1-a"}, "pd.csi.storage.gke.io",
     "projects/UNSPECIFIED/zones/us-east1-a/disks/d", one_term(req(GCE_KEY, "us-east1-a"))),
    ("GCE PD, two zones: regional handle, both zones", "gcePersistentDisk",
     {"pdName": "d"}, {ZONE: "us-east1-b__us-east1-a"}, "pd.csi.storage.gke.io",
     "projects/UNSPECIFIED/regions/us-east1/disks/d",
     one_term(req(GCE_KEY, "us-east1-a", "us-east1-b"))),
    ("GCE PD, no labels: unspecified zone, no affinity", "gcePersistentDisk",
     {"pdName": "d"}, {}, "pd.csi.storage.gke.io",
     "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d", None),
    ("AWS EBS, aws:// id, GA zone label", "awsElasticBlockStore",
     {"volumeID": "aws://us-east-1a/vol-1"}, {ZONE: "us-east-1a"}, "ebs.csi.aws.com",
     "vol-1", one_term(req(AWS_KEY, "us-east-1a"))),
    ("Cinder, zone label", "cinder", {"volumeID": "c1"}, {ZONE: "nova"},
     "cinder.csi.openstack.org", "c1", one_term(req(CINDER_KEY, "nova"))),
    ("Azure Disk (Managed): the affinity is not translated", "azureDisk",
     {"diskName": "d", "diskURI": "/sub/d", "kind": "Managed"}, {ZONE: "westus-1"},
     "disk.csi.azure.com", "/sub/d", None),
    ("Portworx: the affinity is not translated", "portworxVolume", {"volumeID": "p1"},
     {ZONE: "z1"}, "pxd.portworx.com", "p1", None),
])
def test_translate_pv_to_csi(name, kind, src, labels, want_driver, want_handle,
                             want_affinity) -> None:
    """The translated PV: CSI source, handle, node affinity; the input PV is unchanged
    (``TranslateInTreePVToCSI`` works on a deep copy)."""
    w = make_pv("pv").source(kind, src)
    for k, val in labels.items():
        w.label(k, val)
    pv = w.obj()
    out = translate_pv_to_csi(pv)
    assert (out.source_kind, out.csi_driver, out.source["volumeHandle"]) == (
        "csi", want_driver, want_handle)
    assert out.node_affinity == want_affinity
    assert pv.source_kind == kind and pv.node_affinity is None


def test_translate_pv_to_csi_keeps_other_terms_and_replaces_zone_key() -> None:
    """A zone in the node affinity wins over the zone label (``getTopologyLabel``): its key is
    replaced, the label is not added."""
    pv = gce_pv({BETA_ZONE: "us-west1-a"}, [(ZONE, "us-east1-a"), ("rack", "r1")])
    assert translate_pv_to_csi(pv).node_affinity == one_term(
        req(GCE_KEY, "us-east1-a"), req("rack", "r1"))


@pytest.mark.parametrize("kind,src,labels,error", [
    ("gcePersistentDisk", {"pdName": "d"}, {ZONE: "us-east1-a__us-west1-b"},
     "failed to get region from zones: multiple or no regions gotten from zones, got: "
     "map[us-east1:{} us-west1:{}]"),
    ("awsElasticBlockStore", {"volumeID": "aws://z/x/y"}, {},
     "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume "
     "(aws://z/x/y)"),
    ("azureDisk", {"diskName": "d", "diskURI": "/d"}, {},
     "kind(Shared) is not supported in csi migration"),
])
def test_translate_pv_to_csi_errors(kind, src, labels, error) -> None:
    """Translation errors, worded as upstream's."""
    w = make_pv("pv").source(kind, src)
    for k, val in labels.items():
        w.label(k, val)
    with pytest.raises(TranslationError) as e:
        translate_pv_to_csi(w.obj())
    assert str(e.value) == error
