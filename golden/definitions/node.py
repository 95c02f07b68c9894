"""The golden scenarios of area ``node`` (``golden/node/``): the node rules: NodePorts, NodeName
(hostname targeting), NodeUnschedulable."""

from __future__ import annotations

from reference_impl.testing.wrappers import HOSTNAME, Doc, container_port, toleration

from .common import Area, Docs, node, pod

AREA = Area("node")
golden = AREA.golden


@golden("ports", "NodePorts: hostPort conflicts by port, protocol and hostIP")
def _() -> Docs:
    def port(p: int, proto: str = "TCP", ip: str | None = None) -> Doc:
        return container_port(p, host_port=p, protocol=proto, host_ip=ip)
    return [node("n1"), node("n2", "1", "1Gi"),
            pod("web-on-n1", node="n1", ports=[port(80)]),
            pod("dns-on-n2", node="n2", ports=[port(53, "UDP", "10.0.0.1")]),
            pod("web", ports=[port(80)]), pod("web-again", ports=[port(80)]),
            pod("dns-tcp", ports=[port(53, "TCP")]),
            pod("dns-other-ip", ports=[port(53, "UDP", "10.0.0.2")]),
            pod("dns-any-ip", ports=[port(53, "UDP")])]


@golden("name-hostname-targeting",
        "pods targeting one node by hostname; running pods given with spec.nodeName")
def _() -> Docs:
    return [node("n1", "2", "2Gi"), node("n2", "2", "2Gi"),
            pod("bound-1", "1", node="n1"), pod("bound-2", "1", node="n1"),
            pod("to-n1", "100m", nodeSelector={HOSTNAME: "n1"}),
            pod("to-n2", "1", nodeSelector={HOSTNAME: "n2"}),
            pod("free", "1")]


@golden("unschedulable",
        "NodeUnschedulable: cordoned nodes and the unschedulable taint toleration")
def _() -> Docs:
    return [node("cordoned", "8", "16Gi", unschedulable=True), node("open", "1", "1Gi"),
            pod("tolerant", "2", tolerations=[toleration("node.kubernetes.io/unschedulable",
                                                         "NoSchedule")]),
            pod("normal", "500m"), pod("normal-too-big", "2")]
