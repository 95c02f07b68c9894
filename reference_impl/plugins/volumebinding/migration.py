"""CSI migration of in-tree PVs as the volume binder sees it (``tryTranslatePVToCSI``).

Upstream: ``pkg/scheduler/framework/plugins/volumebinding/binder.go`` (``tryTranslatePVToCSI``,
``isCSIMigrationOnForPlugin``, ``isPluginMigratedToCSIOnNode``) over
``k8s.io/csi-translation-lib`` (``reference_impl/plugins/helper/csi_translation.py``): the
translated PV carries the CSI driver's zonal topology key in its node affinity.
"""

from __future__ import annotations

from reference_impl.model.storage import CSINode, PersistentVolume
from reference_impl.plugins.helper.csi_translation import (
    CSI_MIGRATION_ON_PLUGINS,
    TranslationError,
    pv_plugin,
    translate_pv_to_csi,
)
from reference_impl.plugins.volumebinding.assume_cache import BinderError

MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"



def is_plugin_migrated_to_csi_on_node(plugin: str, csi_node: CSINode | None) -> bool:
    """``isPluginMigratedToCSIOnNode``: the CSINode's migrated-plugins annotation (a comma
    separated list) names the plugin."""
    if csi_node is None:
        return False
    value = dict(csi_node.annotations).get(MIGRATED_PLUGINS_ANNOTATION, "")
    return bool(value) and plugin in value.split(",")


def try_translate_pv_to_csi(pv: PersistentVolume, csi_node: CSINode | None) -> PersistentVolume:
    """``tryTranslatePVToCSI``: the PV unchanged unless it is a migratable in-tree PV whose
    plugin's migration is on and that the node's CSINode lists as migrated; then its CSI
    translation. A translation error is a :class:`BinderError` ("could not translate pv: ...")."""
    plugin = pv_plugin(pv)
    if plugin is None or plugin.in_tree_name not in CSI_MIGRATION_ON_PLUGINS:
        return pv
    if not is_plugin_migrated_to_csi_on_node(plugin.in_tree_name, csi_node):
        return pv
    try:
        return translate_pv_to_csi(pv)
    except TranslationError as e:
        raise BinderError(f"could not translate pv: {e}") from None
