"""Volume sources and what nodes hold of them, for ``storage.py``: the in-tree disks pods mount
inline (VolumeRestrictions' ``isVolumeConflict``: GCE PD, AWS EBS, iSCSI, RBD; NodeVolumeLimits
counts the disks of the plugins CSI migration translates, GCE PD, AWS EBS and also Cinder,
Azure Disk and Portworx, under their CSI driver and translated handle, an ``aws://ZONE/vol-ID``
volume ID under the same handle as ``vol-ID``), the zone and region labels of
PersistentVolumes (VolumeZone, GA and beta keys, ``z1__z2`` values) and VolumeAttachments
(NodeVolumeLimits' ``getNodeVolumeAttachmentInfo``). Valid for the API server
(pkg/apis/core/validation validateISCSIVolumeSource, validateRBDVolumeSource,
validateCinderVolumeSource, validateAzureDisk, validatePortworxVolumeSource, ...;
pkg/apis/storage/validation ValidateVolumeAttachment of k8s.io/kubernetes v1.37.2); shrinks to
a GCE disk, no labels, no attachments. Few names, so that pods share disks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

import strategies.vocabulary as v
from strategies._cache import booleans, composite, sampled
from strategies.objects import sometimes

__all__ = [
    "AWS_EBS_DRIVER",
    "GCE_PD_DRIVER",
    "inline_disk",
    "nodes_in",
    "pv_topology_labels",
    "required_affinity",
    "volume_attachment",
    "zonal_affinity",
]

Doc = dict[str, Any]

#: the CSI drivers CSI migration translates gcePersistentDisk / awsElasticBlockStore volumes to
#: (k8s.io/csi-translation-lib/plugins/gce_pd.go GCEPDDriverName, aws_ebs.go AWSEBSDriverName)
GCE_PD_DRIVER = "pd.csi.storage.gke.io"
AWS_EBS_DRIVER = "ebs.csi.aws.com"
#: the in-tree sources VolumeRestrictions inspects (``needsRestrictionsCheck``), in shrinking
#: order
INLINE_KINDS = ("gcePersistentDisk", "awsElasticBlockStore", "iscsi", "rbd")
#: the other in-tree sources whose CSI migration is on for NodeVolumeLimits
#: (nodevolumelimits/utils.go isCSIMigrationOn): counted, never conflicting
MIGRATABLE_INLINE_KINDS = ("cinder", "azureDisk", "portworxVolume")
PD_NAMES = ("disk-a", "disk-b")
#: the third is the first in the ``aws://ZONE/ID`` form (csi-translation-lib aws_ebs.go
#: KubernetesVolumeIDToEBSVolumeID: the same EBS volume, a different string for
#: VolumeRestrictions)
AWS_VOLUMES = ("vol-0a", "vol-0b", "aws://us-east-1a/vol-0a")
#: Cinder and Portworx volume IDs
VOLUME_IDS = ("id-a", "id-b")
#: Managed Azure disks (validateAzureDisk: a managed disk's URI starts with /subscriptions/;
#: only ``kind: Managed`` translates, the API's default Shared fails the translation)
AZURE_DISKS = ("disk-a", "disk-b")
AZURE_DISK_URI = "/subscriptions/sub/resourcegroups/rg/providers/microsoft.compute/disks/"
#: iSCSI qualified names (validateISCSIVolumeSource: the ``iqn.YYYY-MM.reverse.domain:name``
#: form of iscsiInitiatorIqnRegex)
ISCSI_IQNS = ("iqn.2001-04.com.example:disk-a", "iqn.2001-04.com.example:disk-b")
ISCSI_PORTAL = "10.0.0.10:3260"
RBD_MONITORS = ("10.0.1.1:6789", "10.0.1.2:6789", "10.0.1.3:6789")
#: ``pool`` absent: the API server defaults it to "rbd" (SetDefaults_RBDVolumeSource)
RBD_POOLS = ("rbd", "ssd")
RBD_IMAGES = ("image-a", "image-b")
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
STORAGE_V1 = "storage.k8s.io/v1"
#: the node label a PV's zone or region label names (``translateToGALabel``: generated nodes
#: carry the GA keys)
GA_KEY = {BETA_ZONE: v.ZONE, BETA_REGION: v.REGION, v.ZONE: v.ZONE, v.REGION: v.REGION}
#: ``LabelMultiZoneDelimiter`` (k8s.io/cloud-provider/volume/helpers/zones.go)
MULTI_ZONE_DELIMITER = "__"


@composite
def inline_disk(draw: st.DrawFn, read_only_one_in: int = 3) -> Doc:
    """One in-tree disk as a pod's volume source, ``{kind: source}``: a GCE PD, an AWS EBS
    volume, an iSCSI LUN or an RBD image, or (about once in five) a Cinder volume, a managed
    Azure disk or a Portworx volume; read-only about once in ``read_only_one_in``."""
    kinds = MIGRATABLE_INLINE_KINDS if sometimes(draw, 5) else INLINE_KINDS
    kind = draw(sampled((kinds[0], *kinds)))  # the first twice (GCE: more conflicts)
    src: Doc
    if kind in ("cinder", "portworxVolume"):
        src = {"volumeID": draw(sampled(VOLUME_IDS))}
    elif kind == "azureDisk":
        disk = draw(sampled(AZURE_DISKS))
        src = {"diskName": disk, "diskURI": AZURE_DISK_URI + disk, "kind": "Managed"}
    elif kind == "gcePersistentDisk":
        src = {"pdName": draw(sampled(PD_NAMES))}
    elif kind == "awsElasticBlockStore":
        src = {"volumeID": draw(sampled(AWS_VOLUMES))}
    elif kind == "iscsi":
        src = {"targetPortal": ISCSI_PORTAL, "iqn": draw(sampled(ISCSI_IQNS)), "lun": 0}
    else:
        monitors = draw(st.lists(sampled(RBD_MONITORS), min_size=1, max_size=2, unique=True))
        src = {"monitors": monitors, "image": draw(sampled(RBD_IMAGES))}
        if sometimes(draw, 2):
            src["pool"] = draw(sampled(RBD_POOLS))
    if sometimes(draw, read_only_one_in):
        src["readOnly"] = True
    return {kind: src}


@composite
def pv_topology_labels(draw: st.DrawFn, node: Doc | None = None, share: tuple[int, int] = (1, 3),
                       nodes: Sequence[Doc] = ()) -> dict[str, str]:
    """The zone / region labels of a PV, ``share`` = (k, n): about k times in n (shrinking to
    none); GA or beta keys, a zone, two
    zones joined by ``__``, or a region. With ``node`` (the PV of a pod running there): the
    node's own zone or region, so that the running pod stays where VolumeZone allows it. Else
    three times in four among the zones and regions of ``nodes`` (the cluster's: VolumeZone
    then lets a pod onto some nodes and not others), else among all the vocabulary's (maybe
    one no node is in)."""
    labelled, draws = share
    if not draw(sampled((False,) * (draws - labelled) + (True,) * labelled)):
        return {}
    zone_key, region_key = draw(sampled(((v.ZONE, v.REGION), (BETA_ZONE, BETA_REGION))))
    if node is not None:
        labels = node["metadata"].get("labels", {})
        if v.ZONE in labels and draw(booleans()):
            return {zone_key: labels[v.ZONE]}
        if v.REGION in labels:
            return {region_key: labels[v.REGION]}
        return {}
    zones: Sequence[str] = sorted({n["metadata"].get("labels", {}).get(v.ZONE, "")
                                   for n in nodes} - {""})
    if not zones or sometimes(draw, 4):
        zones = v.ZONES
    if sometimes(draw, 3):
        return {region_key: draw(sampled(sorted({v.REGION_OF_ZONE[z] for z in zones})))}
    chosen = draw(st.lists(sampled(zones), min_size=1, max_size=2, unique=True))
    return {zone_key: MULTI_ZONE_DELIMITER.join(sorted(chosen))}


def required_affinity(*expressions: tuple[str, Sequence[str]]) -> Doc:
    """A PV's ``nodeAffinity``: ``required``, one term of ``key In values`` expressions."""
    return {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": key, "operator": "In", "values": list(values)} for key, values in expressions]}]}}


def zonal_affinity(topology: dict[str, str], hostname: str | None = None) -> Doc:
    """The ``nodeAffinity`` a provisioner of a zonal disk gives a PV with these zone / region
    labels (the CSI external-provisioner from the volume's accessible topology; for an in-tree
    PV, k8s.io/csi-translation-lib v0.37.2 plugins/in_tree_volume.go
    ``translateTopologyFromInTreeToCSI`` derives the same from the zone label): per label the
    node label it names (GA key) In its ``__``-separated zones; with ``hostname``, that
    node's hostname too (a local volume)."""
    expressions = [(v.HOSTNAME, [hostname])] if hostname is not None else []
    expressions += [(GA_KEY[key], sorted(value.split(MULTI_ZONE_DELIMITER)))
                    for key, value in sorted(topology.items())]
    return required_affinity(*expressions)


def nodes_in(topology: dict[str, str], nodes: Sequence[Doc]) -> list[str]:
    """The names of the nodes whose labels match every zone / region label of a PV."""
    def fits(node: Doc) -> bool:
        labels = node["metadata"].get("labels", {})
        return all(labels.get(GA_KEY[key]) in value.split(MULTI_ZONE_DELIMITER)
                   for key, value in topology.items())
    return [n["metadata"]["name"] for n in nodes if fits(n)]


@composite
def volume_attachment(draw: st.DrawFn, volume: Doc, node: str) -> Doc:
    """The VolumeAttachment of a CSI PV to a node, as the attach/detach controller creates it:
    the driver as attacher, the PV as source; attached, or still attaching (or detaching)."""
    pv = volume["metadata"]["name"]
    return {"apiVersion": STORAGE_V1, "kind": "VolumeAttachment",
            "metadata": {"name": f"va-{pv}-{node}"},
            "spec": {"attacher": volume["spec"]["csi"]["driver"], "nodeName": node,
                     "source": {"persistentVolumeName": pv}},
            "status": {"attached": not sometimes(draw, 4)}}
