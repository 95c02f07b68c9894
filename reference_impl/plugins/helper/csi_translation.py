"""CSI migration: the in-tree volume plugins csi-translation-lib translates to CSI, their driver
names, and the volume handles of the translated volumes, as NodeVolumeLimits reads them.

Upstream: ``staging/src/k8s.io/csi-translation-lib/translate.go`` and ``plugins/*.go`` of
k8s.io/csi-translation-lib v0.37.2 (the release kube-scheduler v1.37.2 pins). Only what the
scheduler reads of a translation is computed: the CSI driver, the volume handle and the
translation's errors. A volume source is a raw v1 dict (camelCase), as in ``Pod.volumes`` and
``PersistentVolume.source``; API defaulting is applied where it changes the translation
(an ``azureDisk`` without ``kind`` is ``Shared``, pkg/apis/core/v1/zz_generated.defaults.go).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from reference_impl.model.objects import LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE
from reference_impl.model.storage import PersistentVolume
from reference_impl.plugins.helper.csi_topology import (
    LABEL_MULTI_ZONE_DELIMITER,
    translate_topology_from_in_tree_to_csi,
)

# plugins/gce_pd.go
UNSPECIFIED_VALUE = "UNSPECIFIED"


@dataclass(frozen=True, slots=True)
class InTreePlugin:
    """One entry of ``inTreePlugins``: the in-tree plugin name, its CSI driver and the volume
    source field it translates (``CanSupport`` / ``CanSupportInline``)."""

    in_tree_name: str
    csi_driver: str
    source_key: str
    #: the zonal topology key ``TranslateInTreePVToCSI`` moves the PV's zone to
    #: (``translateTopologyFromInTreeToCSI``); "" when it keeps the node affinity as it is
    topology_key: str = ""


GCE_PD = InTreePlugin("kubernetes.io/gce-pd", "pd.csi.storage.gke.io", "gcePersistentDisk",
                      "topology.gke.io/zone")
AWS_EBS = InTreePlugin("kubernetes.io/aws-ebs", "ebs.csi.aws.com", "awsElasticBlockStore",
                       "topology.ebs.csi.aws.com/zone")
CINDER = InTreePlugin("kubernetes.io/cinder", "cinder.csi.openstack.org", "cinder",
                      "topology.cinder.csi.openstack.org/zone")
AZURE_DISK = InTreePlugin("kubernetes.io/azure-disk", "disk.csi.azure.com", "azureDisk")
AZURE_FILE = InTreePlugin("kubernetes.io/azure-file", "file.csi.azure.com", "azureFile")
VSPHERE = InTreePlugin("kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", "vsphereVolume")
PORTWORX = InTreePlugin("kubernetes.io/portworx-volume", "pxd.portworx.com", "portworxVolume")

#: ``inTreePlugins`` (translate.go). Upstream iterates a Go map; a valid volume has one source,
#: so the order does not matter.
IN_TREE_PLUGINS = (GCE_PD, AWS_EBS, CINDER, AZURE_DISK, AZURE_FILE, VSPHERE, PORTWORX)


#: The plugins whose CSI migration is on in v1.37.2: NodeVolumeLimits' ``isCSIMigrationOn``
#: (nodevolumelimits/utils.go) and the volume binder's ``isCSIMigrationOnForPlugin``
#: (volumebinding/binder.go) list the same five.
CSI_MIGRATION_ON_PLUGINS = frozenset(
    p.in_tree_name for p in (AWS_EBS, PORTWORX, GCE_PD, AZURE_DISK, CINDER))


#: The volume handle of a translated Azure File volume (``rg#account#share#name#namespace``) is
#: not computed: the scheduler reads only its driver name (``isCSIMigrationOn`` is false for
#: Azure File, so NodeVolumeLimits never counts one).
AZURE_FILE_HANDLE_NOT_READ = ""


class TranslationError(Exception):
    """An error of a translation, worded as upstream's."""


def _source(obj: dict, key: str) -> dict | None:
    src = obj.get(key)
    return src if isinstance(src, dict) else None


def inline_plugin(vol: dict) -> InTreePlugin | None:
    """The plugin whose ``CanSupportInline`` accepts the volume (``IsInlineMigratable`` when not
    None; ``GetInTreePluginNameFromSpec(nil, vol)``)."""
    return next((p for p in IN_TREE_PLUGINS if _source(vol, p.source_key) is not None), None)


def pv_plugin(pv: PersistentVolume) -> InTreePlugin | None:
    """The plugin whose ``CanSupport`` accepts the PV (``IsPVMigratable`` when not None;
    ``GetInTreePluginNameFromSpec(pv, nil)``)."""
    return next((p for p in IN_TREE_PLUGINS if pv.source_kind == p.source_key), None)


def plugin_by_in_tree_name(name: str) -> InTreePlugin | None:
    """``IsMigratableIntreePluginByName`` when not None; its driver is
    ``GetCSINameFromInTreeName``."""
    return next((p for p in IN_TREE_PLUGINS if p.in_tree_name == name), None)


_AWS_VOLUME_REG_MATCH = re.compile(r"^vol-[^/]*$")


def kubernetes_volume_id_to_ebs_volume_id(kubernetes_id: str) -> str:
    """``KubernetesVolumeIDToEBSVolumeID`` (plugins/aws_ebs.go): ``aws://ZONE/vol-...`` or a
    bare id."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    try:
        url = urlsplit(kubernetes_id)
    except ValueError as e:
        raise TranslationError(f"Invalid disk name ({kubernetes_id}): {e}") from e
    aws_id = url.path.strip("/")
    if not _AWS_VOLUME_REG_MATCH.match(aws_id):
        raise TranslationError(f"Invalid format for AWS volume ({kubernetes_id})")
    return aws_id


def _gce_region_from_zones(zones: list[str]) -> str:
    """``gceGetRegionFromZones`` (plugins/gce_pd.go)."""
    regions = set()
    for zone in zones:
        split = zone.split("-")
        if len(split) != 3:
            raise TranslationError("zone in unexpected format, expected: {locale}-{region}-{zone}, "
                                   f"got: {zone}")
        regions.add("-".join(split[:2]))
    if len(regions) != 1:
        raise TranslationError("multiple or no regions gotten from zones, got: "
                               f"map[{' '.join(f'{r}:{{}}' for r in sorted(regions))}]")
    return next(iter(regions))


def _azure_disk_kind_check(src: dict) -> None:
    """Azure Disk: only ``kind: Managed`` migrates; the API defaults ``kind`` to Shared."""
    kind = src.get("kind") or "Shared"
    if kind.lower() != "managed":
        raise TranslationError(f"kind({kind}) is not supported in csi migration")


def translate_inline_volume(vol: dict) -> tuple[str, str]:
    """``TranslateInTreeInlineVolumeToCSI``: the translated PV's (CSI driver, volume handle).
    Raises TranslationError as upstream returns an error."""
    plugin = inline_plugin(vol)
    if plugin is None:
        raise TranslationError(
            f"could not find in-tree plugin translation logic for \"{vol.get('name', '')}\"")
    src = _source(vol, plugin.source_key) or {}
    if plugin is GCE_PD:
        pd_name = src.get("pdName", "")
        handle = f"projects/{UNSPECIFIED_VALUE}/zones/{UNSPECIFIED_VALUE}/disks/{pd_name}"
    elif plugin is AWS_EBS:
        try:
            handle = kubernetes_volume_id_to_ebs_volume_id(str(src.get("volumeID", "")))
        except TranslationError as e:
            raise TranslationError(f"failed to translate Kubernetes ID to EBS Volume ID {e}") from e
    elif plugin is AZURE_DISK:
        _azure_disk_kind_check(src)
        handle = str(src.get("diskURI", ""))
    elif plugin is VSPHERE:
        handle = str(src.get("volumePath", ""))
    elif plugin is AZURE_FILE:
        handle = AZURE_FILE_HANDLE_NOT_READ
    else:  # CINDER, PORTWORX
        handle = str(src.get("volumeID", ""))
    return plugin.csi_driver, handle


def translate_pv(pv: PersistentVolume) -> tuple[str, str]:
    """``TranslateInTreePVToCSI``: the translated PV's (CSI driver, volume handle). Raises
    TranslationError as upstream returns an error."""
    plugin = pv_plugin(pv)
    if plugin is None:
        raise TranslationError(
            f"could not find in-tree plugin translation logic for \"{pv.name}\"")
    src = pv.source
    if plugin is GCE_PD:
        zones_label = pv.labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE, "")
        if zones_label == "":
            zones_label = pv.labels.get(LABEL_TOPOLOGY_ZONE, "")
        zones = zones_label.split(LABEL_MULTI_ZONE_DELIMITER)
        pd_name = src.get("pdName", "")
        if len(zones) == 1 and zones[0] != "":
            handle = f"projects/{UNSPECIFIED_VALUE}/zones/{zones[0]}/disks/{pd_name}"
        elif len(zones) > 1:
            try:
                region = _gce_region_from_zones(zones)
            except TranslationError as e:
                raise TranslationError(f"failed to get region from zones: {e}") from e
            handle = f"projects/{UNSPECIFIED_VALUE}/regions/{region}/disks/{pd_name}"
        else:
            handle = f"projects/{UNSPECIFIED_VALUE}/zones/{UNSPECIFIED_VALUE}/disks/{pd_name}"
    elif plugin is AWS_EBS:
        try:
            handle = kubernetes_volume_id_to_ebs_volume_id(str(src.get("volumeID", "")))
        except TranslationError as e:
            raise TranslationError(f"failed to translate Kubernetes ID to EBS Volume ID {e}") from e
    elif plugin is AZURE_DISK:
        _azure_disk_kind_check(src)
        handle = str(src.get("diskURI", ""))
    elif plugin is VSPHERE:
        handle = str(src.get("volumePath", ""))
    elif plugin is AZURE_FILE:
        handle = AZURE_FILE_HANDLE_NOT_READ
    else:  # CINDER, PORTWORX
        handle = str(src.get("volumeID", ""))
    return plugin.csi_driver, handle


def translate_pv_to_csi(pv: PersistentVolume) -> PersistentVolume:
    """``TranslateInTreePVToCSI`` as a PV: a copy with the CSI source (driver, volume handle)
    and, for GCE PD, AWS EBS and Cinder, the node affinity of
    ``translateTopologyFromInTreeToCSI`` (Azure Disk and Portworx keep theirs). Raises
    TranslationError as upstream returns an error."""
    driver, handle = translate_pv(pv)
    plugin = pv_plugin(pv)
    affinity = pv.node_affinity
    if plugin is not None and plugin.topology_key:
        affinity = translate_topology_from_in_tree_to_csi(pv, plugin.topology_key)
    return dataclasses.replace(pv, source_kind="csi",
                               source={"driver": driver, "volumeHandle": handle},
                               node_affinity=affinity, labels=dict(pv.labels),
                               annotations=dict(pv.annotations))
