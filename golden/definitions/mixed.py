"""The golden scenarios of area ``mixed`` (``golden/mixed/``): several plugins at once; namespaces
and a globalDefault PriorityClass."""

from __future__ import annotations

from reference_impl.testing.wrappers import (
    ZONE,
    make_namespace,
    make_priority_class,
    taint,
    toleration,
)

from .common import Area, Docs, node, pod, replicas, spread, t

AREA = Area("mixed")
golden = AREA.golden


@golden("small-cluster",
        "several plugins at once: taints, affinity, spread, ports and resources")
def _() -> Docs:
    port = {"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"}
    c = [spread(1, ZONE, {"app": "api"}, hard=False)]
    return [node("a0", "4", zone="zone-a", labels={"disk": "ssd"}),
            node("a1", "2", zone="zone-a"),
            node("b0", "4", zone="zone-b", taints=[taint("spot", "PreferNoSchedule")]),
            node("b1", "8", zone="zone-b", labels={"disk": "ssd"},
                 taints=[taint("gpu", value="yes")]),
            pod("db", "2", nodeSelector={"disk": "ssd"}, labels={"app": "db"}),
            *replicas("api", 3, labels={"app": "api"}, ports=[port],
                      topologySpreadConstraints=c),
            pod("gpu-job", "4", tolerations=[toleration("gpu", value="yes")]),
            pod("batch", "1500m", tolerations=[toleration("spot")])]


@golden("namespaces-and-priority-default",
        "a globalDefault PriorityClass, pods in several namespaces")
def _() -> Docs:
    return [make_priority_class("default-prio", 50).global_default(),
            make_priority_class("urgent", 5000), make_namespace("team-a"),
            make_namespace("team-b"),
            node("n1", "2", "4Gi"),
            pod("a", "1", namespace="team-a", created=t(1)),
            pod("b", "1", namespace="team-b", created=t(2)),
            pod("u", "1", namespace="team-b", priority_class="urgent", created=t(3))]
