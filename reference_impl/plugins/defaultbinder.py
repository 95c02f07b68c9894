"""DefaultBinder: bind the pod to the node through the scheduler's binder.

Upstream: ``pkg/scheduler/framework/plugins/defaultbinder/default_binder.go`` (which posts a
``v1.Binding``); here the framework handle's ``bind_pod`` callback performs the binding and its
status (``None`` on success, an Error status otherwise) is returned unchanged.
"""

from __future__ import annotations

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import BindPlugin
from reference_impl.framework.runtime import FrameworkHandle
from reference_impl.framework.status import Status
from reference_impl.model.objects import Pod
from reference_impl.plugins import names


class DefaultBinder(BindPlugin):
    name = names.DefaultBinder
    handle: FrameworkHandle  # required: binding goes through the scheduler's binder

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """``Bind``."""
        return self.handle.bind_pod(pod, node_name)
