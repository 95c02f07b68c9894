"""A re-implementation of an in-tree plugin: NodeResourcesFit for nodes whose local disks are
managed outside the scheduler, so it does not check ephemeral storage.

It declares the in-tree plugin it stands for (``replaces``) and the rule it changes on purpose
(``changes``, a rule name of docs/plugins.md): the oracles judge it as NodeResourcesFit, and
a bind that only over-commits ephemeral storage is reported as an intended change. Run it with
``kschedconf run --config examples/plugins/local-disk-fit-config.yaml --plugins
examples/plugins/local_disk_fit.py`` (docs/plugins.md walks through it).
"""

from __future__ import annotations

from typing import Any

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import EPHEMERAL_STORAGE, Pod
from reference_impl.plugins.noderesources.fit import PRE_FILTER_STATE_KEY, Fit, fits_request


class LocalDiskFit(Fit):
    """NodeResourcesFit without the ephemeral-storage check (default args: the plugin's
    ``pluginConfig`` args, a plain dict, are not read)."""

    name = "LocalDiskFit"
    replaces = "NodeResourcesFit"
    changes = frozenset({"ephemeral-storage"})

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(None, handle)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.as_error(
                f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        insufficient = [ir for ir in fits_request(s, node_info, pod)
                        if ir.resource_name != EPHEMERAL_STORAGE]
        if not insufficient:
            return None
        code = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE if any(ir.unresolvable for ir in insufficient)
                else Code.UNSCHEDULABLE)
        return Status(code, *(ir.reason for ir in insufficient))
