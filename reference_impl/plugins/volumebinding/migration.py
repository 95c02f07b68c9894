"""CSI migration of in-tree PVs as the volume binder sees it (``tryTranslatePVToCSI``).

Upstream: ``pkg/scheduler/framework/plugins/volumebinding/binder.go`` (``tryTranslatePVToCSI``,
``isCSIMigrationOnForPlugin``, ``isPluginMigratedToCSIOnNode``) over
``k8s.io/csi-translation-lib``. The translation rewrites the PV's node affinity to the CSI
driver's topology keys; it is not modelled, so a PV it would apply to is refused.
"""

from __future__ import annotations

from reference_impl.model.storage import CSINode, PersistentVolume

MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"

#: The in-tree plugin of each migratable PV source (csi-translation-lib plugins/*.go
#: ``CanSupport`` and ``*InTreePluginName``).
IN_TREE_PLUGIN_OF_SOURCE = {
    "gcePersistentDisk": "kubernetes.io/gce-pd",
    "awsElasticBlockStore": "kubernetes.io/aws-ebs",
    "cinder": "kubernetes.io/cinder",
    "azureDisk": "kubernetes.io/azure-disk",
    "azureFile": "kubernetes.io/azure-file",
    "vsphereVolume": "kubernetes.io/vsphere-volume",
    "portworxVolume": "kubernetes.io/portworx-volume",
}

#: ``isCSIMigrationOnForPlugin``: the plugins whose migration is on.
CSI_MIGRATION_ON = frozenset({"kubernetes.io/aws-ebs", "kubernetes.io/gce-pd",
                              "kubernetes.io/azure-disk", "kubernetes.io/cinder",
                              "kubernetes.io/portworx-volume"})


class NotModelled(Exception):
    """An input the model cannot decide: the plugin refuses it with an Error status."""


def is_plugin_migrated_to_csi_on_node(plugin: str, csi_node: CSINode | None) -> bool:
    """``isPluginMigratedToCSIOnNode``: the CSINode's migrated-plugins annotation (a comma
    separated list) names the plugin."""
    if csi_node is None:
        return False
    value = dict(csi_node.annotations).get(MIGRATED_PLUGINS_ANNOTATION, "")
    return bool(value) and plugin in value.split(",")


def try_translate_pv_to_csi(pv: PersistentVolume, csi_node: CSINode | None) -> PersistentVolume:
    """``tryTranslatePVToCSI``: the PV unchanged unless it is a migratable in-tree PV whose
    plugin is migrated on the node; that translation is refused (:class:`NotModelled`)."""
    plugin = IN_TREE_PLUGIN_OF_SOURCE.get(pv.source_kind)
    if plugin is None or plugin not in CSI_MIGRATION_ON:
        return pv
    if not is_plugin_migrated_to_csi_on_node(plugin, csi_node):
        return pv
    raise NotModelled(f"the CSI translation of in-tree PersistentVolume {pv.name!r} "
                      f"({plugin}, migrated on node {csi_node.name if csi_node else ''!r})")
