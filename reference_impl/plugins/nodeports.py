"""NodePorts: a pod's host ports must be free on the node.

Upstream: ``pkg/scheduler/framework/plugins/nodeports/node_ports.go``, ``util.GetHostPorts``
(``pkg/scheduler/util/utils.go``) and ``fwk.HostPortsSigner``
(``staging/src/k8s.io/kube-scheduler/framework/signers.go``). Conflicts are decided by
``HostPortInfo.check_conflict`` (``framework/types.py``, upstream ``HostPortInfo.CheckConflict``).
The InPlacePodVerticalScalingSchedulerPreemption gate (alpha, off) is not modelled.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.interfaces import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterPlugin,
    SignPlugin,
)
from reference_impl.framework.status import Code, PreFilterResult, Status
from reference_impl.framework.types import HostPortInfo, NodeInfo
from reference_impl.model.objects import ContainerPort, Pod
from reference_impl.model.requests import host_ports as requests_host_ports
from reference_impl.plugins import names

PRE_FILTER_STATE_KEY = "PreFilter" + names.NodePorts
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"

QUEUE = "Queue"
QUEUE_SKIP = "QueueSkip"


def get_host_ports(pod: Pod) -> tuple[ContainerPort, ...]:
    """``util.GetHostPorts``: ports with hostPort > 0 of restartable (sidecar) init containers,
    then of the regular containers. ``Pod.host_ports`` holds this (computed at load time by
    ``reference_impl.model.requests.host_ports``, which this delegates to)."""
    return requests_host_ports(pod)


def host_ports_signer(pod: Pod) -> list[int]:
    """``fwk.HostPortsSigner``: the sorted set of non-zero host ports of all containers and
    all init containers (sidecar or not)."""
    ports: set[int] = set()
    for c in (*pod.containers, *pod.init_containers):
        for p in c.ports:
            if p.host_port != 0:
                ports.add(p.host_port)
    return sorted(ports)


def fits_ports(want_ports: Iterable[ContainerPort], ports_in_use: HostPortInfo) -> bool:
    """``fitsPorts``: no wanted (ip, protocol, port) conflicts with a used one."""
    for cp in want_ports:
        if ports_in_use.check_conflict(cp.host_ip, cp.protocol, cp.host_port):
            return False
    return True


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """``Fits``."""
    return fits_ports(pod.host_ports, node_info.used_ports)


class NodePorts(PreFilterPlugin, FilterPlugin, SignPlugin, EnqueueExtensions):
    name = names.NodePorts

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]] | None, Status | None]:
        """``SignPod``: the verdict depends on the pod's host ports."""
        return [("v1.Pod.Spec.HostPorts()", host_ports_signer(pod))], None

    def events_to_register(self) -> list:
        """``EventsToRegister``: (resource, action types, hint method name or None)."""
        return [
            ("AssignedPod", ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
            ("Node", ("Add",), None),
        ]

    def is_schedulable_after_assigned_pod_deleted(self, pod: Pod, old_obj: Any, new_obj: Any
                                                  ) -> tuple[str, str | None]:
        """``isSchedulableAfterAssignedPodDeleted``: Queue only if the deleted pod was bound or
        nominated and held a host port that conflicts with one the pod wants."""
        if old_obj is not None and not isinstance(old_obj, Pod):
            return QUEUE, f"expected *v1.Pod, but got {type(old_obj).__name__}"
        assert old_obj is not None  # AssignedPod Delete events carry the deleted pod
        deleted: Pod = old_obj
        if not deleted.node_name and not deleted.nominated_node_name:
            return QUEUE_SKIP, None
        ports = deleted.host_ports
        if not ports:
            return QUEUE_SKIP, None
        in_use = HostPortInfo()
        for p in ports:
            in_use.add(p.host_ip, p.protocol, p.host_port)
        if fits_ports(pod.host_ports, in_use):
            return QUEUE_SKIP, None
        return QUEUE, None

    def pre_filter(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilter``: Skip a pod without host ports; else store them."""
        ports = pod.host_ports
        if not ports:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, ports)
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Filter``: Unschedulable (resolvable by preemption) on a port conflict; an Error
        when PreFilter did not run."""
        want = state.get(PRE_FILTER_STATE_KEY) if state is not None else None
        if want is None:
            return Status.as_error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        used = node_info.used_ports
        if not used.ports:
            return None
        for cp in want:
            if used.check_conflict(cp.host_ip, cp.protocol, cp.host_port):
                return Status(Code.UNSCHEDULABLE, ERR_REASON)
        return None
