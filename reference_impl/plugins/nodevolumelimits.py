"""NodeVolumeLimits (CSILimits): the per-driver attachable volume limit of CSINode objects.

Upstream: ``pkg/scheduler/framework/plugins/nodevolumelimits/{csi.go, csi_manager.go, utils.go}``
of v1.37.2 (older releases: switches ``nodevolumelimits-*``, docs/release-differences.md); the
CSI migration of in-tree volumes is csi-translation-lib's (``plugins/helper/csi_translation.py``).

Filter counts, per CSI driver, the unique volumes (``DRIVER/HANDLE``) of the pod that the node
has not attached yet, and the volumes attached already: those of the node's pods and the node's
VolumeAttachments. A driver whose count would exceed its CSINode ``allocatable.count`` rejects
the node with "node(s) exceed max volume count". The CSINode, PVCs, PVs, StorageClasses,
CSIDrivers and VolumeAttachments come from ``handle.storage_objects()``.
docs/reference.md#nodevolumelimits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, PreFilterResult, Status
from reference_impl.model.objects import Pod
from reference_impl.model.storage import (
    CSINode,
    PersistentVolumeClaim,
    StorageObjects,
    VolumeAttachment,
)
from reference_impl.plugins import names
from reference_impl.plugins.helper.csi_translation import (
    CSI_MIGRATION_ON_PLUGINS,
    PORTWORX,
    TranslationError,
    inline_plugin,
    plugin_by_in_tree_name,
    pv_plugin,
    translate_inline_volume,
    translate_pv,
)
from reference_impl.plugins.helper.storage_listers import (
    get_pvc,
    persistent_volume_claim_class,
    storage_of,
    volume_is_for_pod,
)
from reference_impl.plugins.volumebinding.migration import is_plugin_migrated_to_csi_on_node
from reference_impl.plugins.volumerestrictions import (
    QUEUE,
    QUEUE_SKIP,
    VOLUMES_SIGNER_NAME,
    _source,
    as_type,
    is_inline_migratable,
    pod_volumes,
    volumes_signer,
)
from reference_impl.releases.current import RELEASE

if TYPE_CHECKING:
    from reference_impl.framework.cycle_state import CycleState
    from reference_impl.framework.types import NodeInfo

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"

#: ``randomVolumeIDPrefix``: upstream draws 32 random characters once per plugin instance; the
#: prefix only keeps the made-up handles of unbound claims (``PREFIX-NAMESPACE/NAME``) apart from
#: real ones, so a fixed string that no CSI volume handle of a scenario uses does the same,
#: deterministically.
RANDOM_VOLUME_ID_PREFIX = "kschedconf-unbound-claim-volume-id"

def is_csi_migration_on(csi_node: CSINode | None, plugin_name: str,
                        portworx_by_annotation: bool = False,
                        portworx_gate: bool = True) -> bool:
    """``isCSIMigrationOn`` (utils.go): a CSINode exists and the plugin is one of AWS EBS,
    Portworx, GCE PD, Azure Disk and Cinder.

    Switch ``nodevolumelimits-csi-migration``: v1.36.3 and v1.37.2 (``utils.go``) stop there.
    v1.34.4 and v1.35.4 (``utils.go``, ``portworx_by_annotation``) return true at once for the
    other four plugins, but Portworx needs the ``CSIMigrationPortworx`` gate
    (``portworx_gate``) and the CSINode's migrated-plugins annotation naming it."""
    if csi_node is None or plugin_name == "" or plugin_name not in CSI_MIGRATION_ON_PLUGINS:
        return False
    if plugin_name != PORTWORX.in_tree_name or not portworx_by_annotation:
        return True
    return portworx_gate and is_plugin_migrated_to_csi_on_node(plugin_name, csi_node)


def get_volume_limits(csi_node: CSINode | None) -> dict[str, int]:
    """``getVolumeLimits``: driver name -> ``allocatable.count`` for the drivers that set it."""
    if csi_node is None:
        return {}
    return {d.name: d.allocatable_count for d in csi_node.drivers
            if d.allocatable_count is not None}


def get_volume_unique_name(driver_name: str, volume_handle: str) -> str:
    """``getVolumeUniqueName``."""
    return f"{driver_name}/{volume_handle}"


class _FilterError(Exception):
    """An error ``filterAttachableVolumes`` returns; ``not_found`` for ``apierrors.IsNotFound``
    (Filter then answers UnschedulableAndUnresolvable, else Error)."""

    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


class NodeVolumeLimits(PreFilterPlugin, FilterPlugin, EnqueueExtensions, SignPlugin):
    """``CSILimits`` (csi.go)."""

    name = names.NodeVolumeLimits

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        # fts.EnableVolumeLimitScaling: the VolumeLimitScaling gate (Beta, on in v1.37.2).
        source = handle if handle is not None else RELEASE
        self.enable_volume_limit_scaling = bool(source.feature_enabled("VolumeLimitScaling"))
        #: switch nodevolumelimits-driver-missing: "opt-in" reads the CSIDriver's
        #: preventPodSchedulingIfMissing, "any-csidriver" does not.
        self.driver_missing_rule = source.behaviour("nodevolumelimits-driver-missing")
        #: switch nodevolumelimits-csi-migration ("portworx-annotation" or "always"), and
        #: fts.EnableCSIMigrationPortworx, which only the former reads.
        self.portworx_by_annotation = (
            source.behaviour("nodevolumelimits-csi-migration") == "portworx-annotation")
        self.enable_csi_migration_portworx = (
            self.portworx_by_annotation and bool(source.feature_enabled("CSIMigrationPortworx")))

    def _migration_on(self, csi_node: CSINode | None, plugin_name: str) -> bool:
        """``isCSIMigrationOn`` with this release's rule."""
        return is_csi_migration_on(csi_node, plugin_name, self.portworx_by_annotation,
                                   self.enable_csi_migration_portworx)

    def _storage(self) -> StorageObjects:
        """The listers of the informer factory and the CSI manager (nothing without a handle)."""
        return storage_of(self.handle)

    # ----- PreFilter, Filter -----

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: Success when the pod has a PVC, generic ephemeral or inline-migratable
        volume (Filter counts them), else Skip."""
        for vol in pod_volumes(pod):
            if (_source(vol, "persistentVolumeClaim") is not None
                    or _source(vol, "ephemeral") is not None or is_inline_migratable(vol)):
                return None, None
        return None, Status(Code.SKIP)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``.

        1. the pod's attachable volumes (``filterAttachableVolumes``, new pod): an error is
           UnschedulableAndUnresolvable when it is a NotFound (a missing claim), else Error;
        2. none: the pod fits;
        3. with VolumeLimitScaling, a driver whose CSIDriver exists (and, from v1.36, sets
           ``preventPodSchedulingIfMissing``) and that the node's CSINode lacks: Unschedulable
           "DRIVER CSI driver is not installed on the node";
        4. no limits in the CSINode (or no CSINode): the pod fits;
        5. the volumes of the node's pods (existing pods: a missing claim is skipped) and of its
           VolumeAttachments are attached; a driver whose attached plus new volumes exceed its
           limit: Unschedulable "node(s) exceed max volume count".
        """
        vols = pod_volumes(pod)
        if not vols:
            return None
        storage = self._storage()
        node_name = node_info.node.name
        csi_node = storage.csi_nodes.get(node_name)

        new_volumes: dict[str, str] = {}
        try:
            self._filter_attachable_volumes(pod, csi_node, True, new_volumes)
        except _FilterError as e:
            if e.not_found:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(e))
            return Status.as_error(str(e))
        if not new_volumes:
            return None

        if self.enable_volume_limit_scaling:
            for driver_name in new_volumes.values():
                if not self._check_csi_driver_on_node(driver_name, csi_node):
                    return Status(Code.UNSCHEDULABLE,
                                  f"{driver_name} CSI driver is not installed on the node")

        node_volume_limits = get_volume_limits(csi_node)
        if not node_volume_limits:
            return None

        attached_volumes: dict[str, str] = {}
        for pi in node_info.pods:
            try:
                self._filter_attachable_volumes(pi.pod, csi_node, False, attached_volumes)
            except _FilterError as e:
                return Status.as_error(str(e))

        attached_volume_count: dict[str, int] = {}
        for unique_name, driver_name in attached_volumes.items():
            new_volumes.pop(unique_name, None)
            attached_volume_count[driver_name] = attached_volume_count.get(driver_name, 0) + 1

        for unique_name, driver_name in self._node_volume_attachment_info(node_name).items():
            if unique_name not in attached_volumes:
                attached_volume_count[driver_name] = attached_volume_count.get(driver_name, 0) + 1

        new_volume_count: dict[str, int] = {}
        for driver_name in new_volumes.values():
            new_volume_count[driver_name] = new_volume_count.get(driver_name, 0) + 1

        for driver_name, count in new_volume_count.items():
            limit = node_volume_limits.get(driver_name)
            if limit is not None and attached_volume_count.get(driver_name, 0) + count > limit:
                return Status(Code.UNSCHEDULABLE, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None

    def _check_csi_driver_on_node(self, driver_name: str, csi_node: CSINode | None) -> bool:
        """``checkCSIDriverOnNode``: installed unless the driver's CSIDriver exists and the
        CSINode (if any) lists no such driver.

        Switch ``nodevolumelimits-driver-missing``: v1.36.3 and v1.37.2 (``csi.go``, "opt-in")
        also need the CSIDriver to set ``preventPodSchedulingIfMissing``; v1.35.4 (``csi.go``,
        "any-csidriver") rejects for any CSIDriver. v1.34.4 has neither the check nor its
        VolumeLimitScaling gate."""
        driver = self._storage().csi_drivers.get(driver_name)
        if driver is None:
            return True
        if self.driver_missing_rule == "opt-in" and not driver.prevent_pod_scheduling_if_missing:
            return True
        if csi_node is None:
            return False
        return csi_node.driver(driver_name) is not None

    def _filter_attachable_volumes(self, pod: Pod, csi_node: CSINode | None, new_pod: bool,
                                   result: dict[str, str]) -> None:
        """``filterAttachableVolumes``: add ``DRIVER/HANDLE -> DRIVER`` to ``result`` for each
        attachable volume of the pod: PVC and generic ephemeral volumes through their claim
        (``getCSIDriverInfo``), inline volumes through CSI migration
        (``checkAttachableInlineVolume``). Raises _FilterError as upstream returns an error."""
        storage = self._storage()
        for vol in pod_volumes(pod):
            is_ephemeral = False
            pvc_src = _source(vol, "persistentVolumeClaim")
            if pvc_src is not None:
                pvc_name = str(pvc_src.get("claimName", ""))
            elif _source(vol, "ephemeral") is not None:
                pvc_name = f"{pod.name}-{vol.get('name', '')}"  # ephemeral.VolumeClaimName
                is_ephemeral = True
            else:
                self._check_attachable_inline_volume(vol, csi_node, result)
                continue
            if pvc_name == "":
                raise _FilterError("PersistentVolumeClaim had no name")
            pvc, err = get_pvc(storage, pod.namespace, pvc_name)
            if pvc is None:
                if new_pod:
                    raise _FilterError(f"looking up PVC {pod.namespace}/{pvc_name}: {err}",
                                       not_found=True)
                continue
            if is_ephemeral:
                not_for_pod = volume_is_for_pod(pod, pvc)
                if not_for_pod is not None:
                    raise _FilterError(not_for_pod)
            driver_name, volume_handle = self._get_csi_driver_info(csi_node, pvc)
            if driver_name == "" or volume_handle == "":
                continue
            result[get_volume_unique_name(driver_name, volume_handle)] = driver_name

    def _check_attachable_inline_volume(self, vol: dict, csi_node: CSINode | None,
                                        result: dict[str, str]) -> None:
        """``checkAttachableInlineVolume``: an inline-migratable volume whose plugin has
        migration on counts under its CSI driver and translated handle."""
        plugin = inline_plugin(vol)
        if plugin is None or not self._migration_on(csi_node, plugin.in_tree_name):
            return
        try:
            _, volume_handle = translate_inline_volume(vol)
        except TranslationError as e:
            raise _FilterError(
                f"converting volume({vol.get('name', '')}) from inline to csi: {e}") from e
        result[get_volume_unique_name(plugin.csi_driver, volume_handle)] = plugin.csi_driver

    def _get_csi_driver_info(self, csi_node: CSINode | None, pvc: PersistentVolumeClaim
                             ) -> tuple[str, str]:
        """``getCSIDriverInfo``: the bound PV's CSI driver and volume handle (an in-tree PV
        through CSI migration, when on); an unbound claim, or one whose PV is missing, through
        its StorageClass (``getCSIDriverInfoFromSC``). ("", "") when not attachable."""
        if pvc.volume_name == "":
            return self._get_csi_driver_info_from_sc(csi_node, pvc)
        pv = self._storage().volumes.get(pvc.volume_name)
        if pv is None:
            return self._get_csi_driver_info_from_sc(csi_node, pvc)
        if pv.source_kind == "csi":
            return str(pv.source.get("driver", "")), str(pv.source.get("volumeHandle", ""))
        plugin = pv_plugin(pv)
        if plugin is None or not self._migration_on(csi_node, plugin.in_tree_name):
            return "", ""
        try:
            return translate_pv(pv)
        except TranslationError:
            return "", ""

    def _get_csi_driver_info_from_sc(self, csi_node: CSINode | None, pvc: PersistentVolumeClaim
                                     ) -> tuple[str, str]:
        """``getCSIDriverInfoFromSC``: the class's provisioner (its CSI driver when it names a
        migratable in-tree plugin whose migration is on) and the made-up handle
        ``PREFIX-NAMESPACE/NAME``; ("", "") without a class or for a missing one."""
        sc_name = persistent_volume_claim_class(pvc)
        if sc_name == "":
            return "", ""
        sc = self._storage().classes.get(sc_name)
        if sc is None:
            return "", ""
        volume_handle = f"{RANDOM_VOLUME_ID_PREFIX}-{pvc.namespace}/{pvc.name}"
        plugin = plugin_by_in_tree_name(sc.provisioner)
        if plugin is not None:
            if not self._migration_on(csi_node, sc.provisioner):
                return "", ""
            return plugin.csi_driver, volume_handle
        return sc.provisioner, volume_handle

    def _node_volume_attachment_info(self, node_name: str) -> dict[str, str]:
        """``getNodeVolumeAttachmentInfo``: ``DRIVER/HANDLE -> attacher`` of the node's
        VolumeAttachments that name an attacher and a PV that exists and is a CSI volume (the
        PV's handle under the attachment's attacher)."""
        storage = self._storage()
        out: dict[str, str] = {}
        for va in storage.attachments.values():
            if va.node_name != node_name or va.attacher == "" or va.persistent_volume_name == "":
                continue
            pv = storage.volumes.get(va.persistent_volume_name)
            if pv is None or pv.source_kind != "csi":
                continue
            out[get_volume_unique_name(va.attacher, str(pv.source.get("volumeHandle", "")))] = \
                va.attacher
        return out

    # ----- SignPod, EventsToRegister, queueing hints -----

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: the non-synthetic volume sources."""
        return [(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, queueing hint method or None)."""
        return [
            ("storage.k8s.io/CSINode", ("Add",), None),
            ("storage.k8s.io/CSINode", ("Update",), "is_schedulable_after_csi_node_updated"),
            ("AssignedPod", ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
            ("PersistentVolumeClaim", ("Add",), "is_schedulable_after_pvc_added"),
            ("storage.k8s.io/VolumeAttachment", ("Delete",),
             "is_schedulable_after_volume_attachment_deleted"),
        ]

    def is_schedulable_after_assigned_pod_deleted(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> tuple[str, str | None]:
        """``isSchedulableAfterAssignedPodDeleted``: the deleted pod was placed (bound or
        nominated) and had a PVC, ephemeral or inline-migratable volume."""
        err = as_type(old_obj, new_obj, Pod, "*v1.Pod")
        if err is not None:
            return QUEUE, f"unexpected objects in isSchedulableAfterAssignedPodDeleted: {err}"
        deleted = old_obj
        vols = pod_volumes(deleted)
        if not vols:
            return QUEUE_SKIP, None
        if deleted.node_name == "" and deleted.nominated_node_name == "":
            return QUEUE_SKIP, None
        for vol in vols:
            if (_source(vol, "persistentVolumeClaim") is not None
                    or _source(vol, "ephemeral") is not None or is_inline_migratable(vol)):
                return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_pvc_added(self, pod: Pod, old_obj: Any, new_obj: Any
                                       ) -> tuple[str, str | None]:
        """``isSchedulableAfterPVCAdded``: the added PVC is a claim of the pod, directly or as a
        generic ephemeral volume's claim."""
        err = as_type(old_obj, new_obj, PersistentVolumeClaim, "*v1.PersistentVolumeClaim")
        if err is not None:
            return QUEUE, f"unexpected objects in isSchedulableAfterPVCAdded: {err}"
        if new_obj.namespace != pod.namespace:
            return QUEUE_SKIP, None
        for vol in pod_volumes(pod):
            src = _source(vol, "persistentVolumeClaim")
            if src is not None:
                claim = str(src.get("claimName", ""))
            elif _source(vol, "ephemeral") is not None:
                claim = f"{pod.name}-{vol.get('name', '')}"
            else:
                continue
            if claim == new_obj.name:
                return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_volume_attachment_deleted(
            self, pod: Pod, old_obj: Any, new_obj: Any) -> tuple[str, str | None]:
        """``isSchedulableAfterVolumeAttachmentDeleted``: Queue at the first PVC volume of the
        pod, or at an inline-migratable volume whose CSI driver is the attachment's attacher
        (a volume that does not translate: Queue with the error)."""
        err = as_type(old_obj, new_obj, VolumeAttachment, "*v1.VolumeAttachment")
        if err is not None:
            return QUEUE, ("unexpected objects in isSchedulableAfterVolumeAttachmentDeleted: "
                           f"{err}")
        deleted: VolumeAttachment = old_obj
        for vol in pod_volumes(pod):
            if _source(vol, "persistentVolumeClaim") is not None:
                return QUEUE, None
            if not is_inline_migratable(vol):
                continue
            try:
                driver, _ = translate_inline_volume(vol)
            except TranslationError as e:
                return QUEUE, f"converting volume({vol.get('name', '')}) from inline to csi: {e}"
            if deleted.attacher == driver:
                return QUEUE, None
        return QUEUE_SKIP, None

    def is_schedulable_after_csi_node_updated(self, pod: Pod, old_obj: Any, new_obj: Any
                                              ) -> tuple[str, str | None]:
        """``isSchedulableAfterCSINodeUpdated``: Queue when a driver's ``allocatable.count``
        (0 when unset) grew."""
        err = as_type(old_obj, new_obj, CSINode, "*v1.CSINode")
        if err is not None:
            return QUEUE, f"unexpected objects in isSchedulableAfterCSINodeUpdated: {err}"
        old_limits = {d.name: d.allocatable_count or 0 for d in old_obj.drivers}
        for d in new_obj.drivers:
            if (d.allocatable_count or 0) > old_limits.get(d.name, 0):
                return QUEUE, None
        return QUEUE_SKIP, None
