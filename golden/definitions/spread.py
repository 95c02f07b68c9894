"""The golden scenarios of area ``spread`` (``golden/spread/``): PodTopologySpread: DoNotSchedule
and ScheduleAnyway, minDomains, matchLabelKeys, nodeAffinityPolicy and nodeTaintsPolicy, and the
system default constraints with the selector of the pods' Services and controllers."""

from __future__ import annotations

from reference_impl.model.workloads import expand_workloads
from reference_impl.testing._base import manifests
from reference_impl.testing.wrappers import (
    HOSTNAME,
    ZONE,
    PodWrapper,
    make_deployment,
    make_pod,
    make_replica_set,
    make_replication_controller,
    make_service,
    make_stateful_set,
    taint,
)

from .common import Area, Docs, bare_node, bare_pod, node, pod, replicas, spread, zone_nodes

AREA = Area("spread")
golden = AREA.golden


@golden("hard-zones", "PodTopologySpread DoNotSchedule over zones, maxSkew 1")
def _() -> Docs:
    c = [spread(1, ZONE, {"app": "web"})]
    return [*zone_nodes(), pod("w-old", node="a0", labels={"app": "web"}),
            pod("w-old2", node="a1", labels={"app": "web"}),
            *replicas("web", 5, labels={"app": "web"}, topologySpreadConstraints=c)]


@golden("soft-scoring", "PodTopologySpread ScheduleAnyway scoring over zones and hosts")
def _() -> Docs:
    c = [spread(1, ZONE, {"app": "api"}, hard=False),
         spread(2, HOSTNAME, {"app": "api"}, hard=False)]
    return [*zone_nodes(2, "ab"), node("c0", "4", zone="zone-c"),
            pod("api-old", node="c0", labels={"app": "api"}),
            *replicas("api", 6, labels={"app": "api"}, topologySpreadConstraints=c)]


@golden("min-domains", "PodTopologySpread minDomains with DoNotSchedule")
def _() -> Docs:
    c = [spread(1, ZONE, {"app": "db"}, min_domains=3)]
    return [*zone_nodes(1, "ab"), node("c0", "1", "256Mi", zone="zone-c"),
            *replicas("db", 4, cpu="500m", labels={"app": "db"},
                      topologySpreadConstraints=c)]


@golden("node-affinity-and-taints-policies",
        "PodTopologySpread nodeAffinityPolicy / nodeTaintsPolicy Honor and Ignore")
def _() -> Docs:
    honor = [spread(1, ZONE, {"app": "h"}, node_affinity_policy="Honor",
                    node_taints_policy="Honor")]
    ignore = [spread(1, ZONE, {"app": "i"}, node_affinity_policy="Ignore",
                     node_taints_policy="Ignore")]
    sel = {"tier": "front"}
    return [node("a0", zone="zone-a", labels=sel), node("b0", zone="zone-b", labels=sel),
            node("c0", zone="zone-c", taints=[taint("maintenance")]),
            node("d0", zone="zone-d"),
            *replicas("h", 3, labels={"app": "h"}, nodeSelector=sel,
                      topologySpreadConstraints=honor),
            *replicas("i", 3, labels={"app": "i"}, nodeSelector=sel,
                      topologySpreadConstraints=ignore)]


@golden("match-label-keys", "PodTopologySpread matchLabelKeys (pod-template-hash)")
def _() -> Docs:
    c = [spread(1, ZONE, {"app": "web"}, match_label_keys=["pod-template-hash"])]
    old = {"app": "web", "pod-template-hash": "v1"}
    new = {"app": "web", "pod-template-hash": "v2"}
    return [*zone_nodes(1, "ab"), pod("v1-a", node="a0", labels=old),
            pod("v1-b", node="a0", labels=old),
            *replicas("v2", 3, labels=new, topologySpreadConstraints=c)]


@golden("hard-unsatisfiable",
        "PodTopologySpread: missing topology label and skew violations leave pods pending")
def _() -> Docs:
    c = [spread(1, ZONE, {"app": "x"})]
    return [node("a0", "1", zone="zone-a"), node("b0", "8", zone="zone-b"),
            node("nolabel", "8"),
            *replicas("x", 4, cpu="400m", labels={"app": "x"}, topologySpreadConstraints=c)]


@golden("node-taints-policy-honor",
        "PodTopologySpread nodeTaintsPolicy Honor: a node with an untolerated taint is not a "
        "domain")
def _() -> Docs:
    c = {"labelSelector": {"matchLabels": {"app": "web"}}, "maxSkew": 1,
         "nodeTaintsPolicy": "Honor", "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}
    return [bare_node("n1", "z1"),
            bare_node("n2", "z2", [{"effect": "NoSchedule", "key": "dedicated"}]),
            bare_pod("w1", "n1", {"app": "web"}),
            bare_pod("p", labels={"app": "web"}, topologySpreadConstraints=[c])]


@golden("min-domains-global-minimum",
        "PodTopologySpread minDomains: fewer domains than minDomains make the global minimum 0")
def _() -> Docs:
    c = {"labelSelector": {"matchLabels": {"app": "web"}}, "maxSkew": 1, "minDomains": 3,
         "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}
    return [bare_node("n1", "z1"), bare_node("n2", "z2"),
            bare_pod("w1", "n1", {"app": "web"}), bare_pod("w2", "n2", {"app": "web"}),
            bare_pod("p", labels={"app": "web"}, topologySpreadConstraints=[c])]


@golden("system-defaults-replicaset-service",
        "System default constraints (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) spread "
        "the pods of a Deployment-like ReplicaSet selected by a Service, against the resource "
        "scores")
def _() -> Docs:
    web = {"app": "web", "pod-template-hash": "7d9f"}
    rs = make_replica_set("web-7d9f").selector(web).replicas(10)
    batch = [pod(f"batch-{n}", "1500m", node=n, labels={"app": "batch"})
             for n in ("b0", "b1", "c0", "c1")]
    return [*zone_nodes(), make_service("web").selector({"app": "web"}).port(80, 8080),
            make_service("web-canary").selector({"app": "web", "track": "canary"}).port(80),
            rs, *batch,
            *(pod(f"web-old-{i}", "50m", node="a0", labels=web, owner="web-7d9f")
              for i in range(4)),
            *(pod(f"web-{i}", "50m", labels=web, owner="web-7d9f") for i in range(6))]


@golden("system-defaults-rc-statefulset-owners",
        "System default constraints with ReplicationController and StatefulSet owners; a missing "
        "owner, a Deployment owner (a kind DefaultSelector does not read) and a Service "
        "without selector give no default selector")
def _() -> Docs:
    def owned(p: PodWrapper, name: str, kind: str) -> PodWrapper:
        return p.owner_reference(name, kind, "v1" if kind == "ReplicationController"
                                 else "apps/v1")
    legacy, db = {"app": "legacy"}, {"app": "db"}
    return [*zone_nodes(),
            make_replication_controller("legacy").selector(legacy).replicas(5),
            make_stateful_set("db").selector(db).service_name("db").replicas(3),
            make_service("headless").selector(None).port(80),
            pod("busy-a0", "2", node="a0"), pod("busy-c1", "2", node="c1"),
            *(owned(pod(f"legacy-old-{i}", node="b0", labels=legacy), "legacy",
                    "ReplicationController") for i in range(2)),
            owned(pod("db-0", node="c0", labels=db), "db", "StatefulSet"),
            *(owned(pod(f"legacy-{i}", labels=legacy), "legacy", "ReplicationController")
              for i in range(3)),
            *(owned(pod(f"db-{i}", labels=db), "db", "StatefulSet") for i in (1, 2)),
            *(owned(pod(f"orphan-{i}", labels={"app": "orphan"}), "gone", "ReplicaSet")
              for i in range(2)),
            *(owned(pod(f"front-{i}", labels={"app": "front"}), "front", "Deployment")
              for i in range(2))]


@golden("system-defaults-deployment-service",
        "A user's Deployment (4 replicas) and the Service selecting it on 3 nodes in 2 zones, as "
        "`kschedconf simulate` expands them (tests/data/public/deployment-service.yaml): the "
        "ReplicaSet and pods the Deployment controller creates; the system default constraints "
        "put the fourth pod in the zone with fewer pods")
def _() -> Docs:
    nodes = [node("node-a1", zone="zone-a"), node("node-a2", zone="zone-a"),
             node("node-b1", zone="zone-b")]
    nginx = make_deployment("nginx").replicas(4).selector({"app": "nginx"}).template(
        make_pod("").label("app", "nginx").req(cpu="250m", memory="128Mi"))
    svc = make_service("nginx").selector({"app": "nginx"}).port(80, 80)
    docs = manifests(nodes, nginx, svc)
    x = expand_workloads([("spread/system-defaults-deployment-service", i, d)
                          for i, d in enumerate(docs, start=1)])
    created = [c.doc for c in x.created]
    assert [d["kind"] for d in created] == ["ReplicaSet"] + ["Pod"] * 4, created
    return [*nodes, svc, *created]
