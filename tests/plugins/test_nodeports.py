"""NodePorts, restating pkg/scheduler/framework/plugins/nodeports/node_ports_test.go of v1.37.2
(TestNodePorts, TestPreFilterDisabled, Test_isSchedulableAfterAssignedPodDeleted, TestFits)."""

from __future__ import annotations

import pytest

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, Status
from reference_impl.framework.types import NodeInfo
from reference_impl.model.objects import Container, ContainerPort, Node, Pod, PodResources, Resource
from reference_impl.plugins.nodeports import (
    ERR_REASON,
    NodePorts,
    fits,
    get_host_ports,
    host_ports_signer,
)

CONFLICT = Status(Code.UNSCHEDULABLE, ERR_REASON)
_uid = 0


def _finish(p: Pod) -> Pod:
    p.host_ports = get_host_ports(p)
    p.resources = PodResources(Resource(), 0, 0)
    return p


def make_pod(*containers: Container, init: tuple[Container, ...] = (), node_name: str = "",
             nominated: str = "") -> Pod:
    global _uid
    _uid += 1
    return _finish(Pod(namespace="", name=f"p{_uid}", uid=f"u{_uid}", node_name=node_name,
                       nominated_node_name=nominated, containers=containers,
                       init_containers=init))


def new_pod(host: str, *infos: str) -> Pod:
    """``newPod``: "PROTO/IP/PORT" strings become one container's host ports."""
    ports = []
    for info in infos:
        proto, ip, port = info.split("/")
        ports.append(ContainerPort(container_port=0, host_port=int(port), protocol=proto,
                                   host_ip=ip))
    return make_pod(Container(name="container", ports=tuple(ports)), node_name=host)


def node_info(*pods: Pod) -> NodeInfo:
    ni = NodeInfo(Node("n"))
    for p in pods:
        ni.add_pod(p)
    return ni


def sidecar_pod(sidecar: bool) -> Pod:
    c = Container(name="init-container", ports=(ContainerPort(8001, 8001, "TCP"),),
                  restart_policy="Always" if sidecar else None)
    return make_pod(init=(c,))


# TestNodePorts: (name, pod, node info, want prefilter status, want filter status)
CASES = [
    ("skip filter", make_pod(), node_info(), Status(Code.SKIP), None),
    ("other port", new_pod("m1", "UDP/127.0.0.1/8080"),
     node_info(new_pod("m1", "UDP/127.0.0.1/9090")), None, None),
    ("same udp port", new_pod("m1", "UDP/127.0.0.1/8080"),
     node_info(new_pod("m1", "UDP/127.0.0.1/8080")), None, CONFLICT),
    ("same tcp port", new_pod("m1", "TCP/127.0.0.1/8080"),
     node_info(new_pod("m1", "TCP/127.0.0.1/8080")), None, CONFLICT),
    ("different host ip", new_pod("m1", "TCP/127.0.0.1/8080"),
     node_info(new_pod("m1", "TCP/127.0.0.2/8080")), None, None),
    ("different protocol", new_pod("m1", "UDP/127.0.0.1/8080"),
     node_info(new_pod("m1", "TCP/127.0.0.1/8080")), None, None),
    ("second udp port conflict", new_pod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
     node_info(new_pod("m1", "UDP/127.0.0.1/8080")), None, CONFLICT),
    ("first tcp port conflict", new_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
     node_info(new_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081")), None, CONFLICT),
    ("first tcp port conflict due to 0.0.0.0 hostIP", new_pod("m1", "TCP/0.0.0.0/8001"),
     node_info(new_pod("m1", "TCP/127.0.0.1/8001")), None, CONFLICT),
    ("TCP hostPort conflict due to 0.0.0.0 hostIP",
     new_pod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
     node_info(new_pod("m1", "TCP/127.0.0.1/8001")), None, CONFLICT),
    ("second tcp port conflict to 0.0.0.0 hostIP", new_pod("m1", "TCP/127.0.0.1/8001"),
     node_info(new_pod("m1", "TCP/0.0.0.0/8001")), None, CONFLICT),
    ("second different protocol", new_pod("m1", "UDP/127.0.0.1/8001"),
     node_info(new_pod("m1", "TCP/0.0.0.0/8001")), None, None),
    ("UDP hostPort conflict due to 0.0.0.0 hostIP", new_pod("m1", "UDP/127.0.0.1/8001"),
     node_info(new_pod("m1", "TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001")), None, CONFLICT),
    ("non-sidecar initContainer using hostPort", sidecar_pod(False),
     node_info(new_pod("m1", "TCP/0.0.0.0/8001")), Status(Code.SKIP), None),
    ("TCP hostPort conflict from sidecar initContainer", sidecar_pod(True),
     node_info(new_pod("m1", "TCP/0.0.0.0/8001")), None, CONFLICT),
]


@pytest.mark.parametrize("name,pod,ni,pf_status,status", CASES, ids=[c[0] for c in CASES])
def test_node_ports(name, pod, ni, pf_status, status):
    pl = NodePorts(None, None)
    state = CycleState()
    result, got_pf = pl.pre_filter(state, pod, [])
    assert result is None
    assert got_pf == pf_status
    if got_pf is not None:
        return
    assert pl.filter(state, pod, ni) == status


def test_pre_filter_disabled():
    status = NodePorts(None, None).filter(CycleState(), make_pod(), NodeInfo(Node("")))
    assert status is not None and status.code == Code.ERROR
    assert status.message() == 'reading "PreFilterNodePorts" from cycleState: not found'


def test_empty_protocol_and_ip_default_to_tcp_and_all_addresses():
    pod = new_pod("m1", "/127.0.0.1/8080")  # protocol "" sanitizes to TCP
    state = CycleState()
    pl = NodePorts(None, None)
    pl.pre_filter(state, pod, [])
    assert pl.filter(state, pod, node_info(new_pod("m1", "TCP//8080"))) == CONFLICT


def host_port_pod(port: int, node_name: str = "") -> Pod:
    return make_pod(Container(name="container", ports=(ContainerPort(0, port),)),
                    node_name=node_name)


# Test_isSchedulableAfterAssignedPodDeleted: (name, deleted pod, hint, err)
HINT_CASES = [
    ("backoff-wrong-old-object", "not-a-pod", "Queue", True),
    ("skip-queue-on-unscheduled", make_pod(), "QueueSkip", False),
    ("skip-queue-on-non-hostport", make_pod(node_name="fake-node"), "QueueSkip", False),
    ("skip-queue-on-unrelated-hostport", host_port_pod(8081, "fake-node"), "QueueSkip", False),
    ("queue-on-released-hostport", host_port_pod(8080, "fake-node"), "Queue", False),
]


@pytest.mark.parametrize("name,old,hint,want_err", HINT_CASES, ids=[c[0] for c in HINT_CASES])
def test_is_schedulable_after_assigned_pod_deleted(name, old, hint, want_err):
    got, err = NodePorts(None, None).is_schedulable_after_assigned_pod_deleted(
        host_port_pod(8080), old, None)
    assert got == hint
    assert (err is not None) is want_err


# TestFits: (desc, pod, existing, expect)
FITS_CASES = [
    ("non-conflicting ports", new_pod("p", "TCP/127.0.0.1/80"),
     node_info(new_pod("p", "TCP/127.0.0.1/9090")), True),
    ("multiple non-conflicting ports",
     new_pod("p", "TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
     node_info(new_pod("p", "TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080")),
     True),
    ("same ports on different protocols", new_pod("m1", "TCP/127.0.0.1/80"),
     node_info(new_pod("p", "UDP/127.0.0.1/80")), True),
    ("conflicting ports", new_pod("m1", "TCP/127.0.0.1/80"),
     node_info(new_pod("p", "TCP/127.0.0.1/80")), False),
    ("multiple ports, some conflicting",
     new_pod("p", "TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
     node_info(new_pod("p", "TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080")),
     False),
]


@pytest.mark.parametrize("desc,pod,existing,expect", FITS_CASES, ids=[c[0] for c in FITS_CASES])
def test_fits(desc, pod, existing, expect):
    assert fits(pod, existing) is expect


def test_get_host_ports_order_and_signer():
    c1 = Container(name="c", ports=(ContainerPort(80, 8080), ContainerPort(81, 0)))
    side = Container(name="s", ports=(ContainerPort(90, 9090),), restart_policy="Always")
    plain_init = Container(name="i", ports=(ContainerPort(70, 7070),))
    p = make_pod(c1, init=(plain_init, side))
    assert [cp.host_port for cp in p.host_ports] == [9090, 8080]
    # the signer takes every container's non-zero host port, sidecar or not, sorted and unique
    assert host_ports_signer(p) == [7070, 8080, 9090]
    assert NodePorts(None, None).sign_pod(p) == ([("v1.Pod.Spec.HostPorts()",
                                                   [7070, 8080, 9090])], None)
    assert NodePorts(None, None).events_to_register() == [
        ("AssignedPod", ("Delete",), "is_schedulable_after_assigned_pod_deleted"),
        ("Node", ("Add",), None)]
