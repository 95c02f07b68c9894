"""The golden scenarios of area ``node`` (``golden/node/``): the node rules: NodePorts, NodeName
(hostname targeting), NodeUnschedulable; the pods a DaemonSet's controller creates on each node
(the workload expansion, reference_impl/model/workloads)."""

from __future__ import annotations

from reference_impl.model.workloads import expand_workloads
from reference_impl.testing.wrappers import (
    HOSTNAME,
    Doc,
    container_port,
    make_daemon_set,
    make_pod,
    manifests,
    taint,
    toleration,
)

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


@golden("daemonset-pods",
        "a DaemonSet's pods as its controller creates them (kschedconf expand): pinned with "
        "matchFields metadata.name, the daemon tolerations (unschedulable), a full node, a "
        "tainted node that gets no pod")
def _() -> Docs:
    nodes = [node("control-plane", labels={"node-role.kubernetes.io/control-plane": ""},
                  taints=[taint("node-role.kubernetes.io/control-plane")]),
             node("worker-1"), node("worker-2", "1", "2Gi"),
             node("gpu", taints=[taint("dedicated", "NoExecute", "gpu")]),
             node("cordoned", unschedulable=True,
                  taints=[taint("node.kubernetes.io/unschedulable")])]
    running = [pod("busy", "900m", node="worker-2")]
    agent = make_daemon_set("agent").namespace("kube-system").selector({"app": "agent"}) \
        .template(make_pod("").label("app", "agent")
                  .toleration("node-role.kubernetes.io/control-plane", "NoSchedule",
                              operator="Exists")
                  .req(cpu="200m", memory="128Mi"))
    docs = manifests(nodes, running, agent)
    x = expand_workloads([("node/daemonset-pods", i, d) for i, d in enumerate(docs, start=1)])
    return [*nodes, *running, *(c.doc for c in x.pods)]
