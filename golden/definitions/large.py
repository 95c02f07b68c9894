"""The golden scenarios of area ``large`` (``golden/large/``): more than 100 nodes:
numFeasibleNodesToFind, percentageOfNodesToScore and the rotation of the start node."""

from __future__ import annotations

from typing import Any

from reference_impl.testing.wrappers import HOSTNAME, ZONE, NodeWrapper, make_config, make_profile

from .common import Area, Docs, affinity_term, node, pod, replicas, spread

AREA = Area("large")
golden = AREA.golden


def _pool(n: int, prefix: str = "n", cpu: str = "4", zones: int = 3,
          **kw: Any) -> list[NodeWrapper]:
    return [node(f"{prefix}{i:03d}", cpu, zone=f"zone-{i % zones}", **kw) for i in range(n)]


@golden("150-nodes-rotation",
        "more than 100 nodes: numFeasibleNodesToFind (100 of 150) and nextStartNodeIndex "
        "rotation decide which nodes are scored")
def _() -> Docs:
    nodes = _pool(150)
    # running pods make some nodes busier, so scores differ by node
    running = [pod(f"r{i}", "1", node=f"n{i:03d}") for i in range(0, 150, 7)]
    return [*nodes, *running, *replicas("p", 40, cpu="300m")]


@golden("300-nodes-adaptive-percentage",
        "300 nodes: the adaptive percentageOfNodesToScore (50 - 300/125 = 48%: 144 nodes)")
def _() -> Docs:
    nodes = _pool(300, cpu="8")
    running = [pod(f"r{i}", f"{(i % 5) + 1}", node=f"n{i:03d}") for i in range(0, 300, 3)]
    return [*nodes, *running, *replicas("p", 30, cpu="1")]


@golden("200-nodes-filtered",
        "200 nodes where most fail a filter: the search continues past the rotation start",
        notes=["only nodes n*0 and n*5 have the label the pods select"])
def _() -> Docs:
    nodes = [node(f"n{i:03d}", "4", zone=f"zone-{i % 4}",
                  labels={"pool": "gold"} if i % 5 == 0 else {"pool": "std"})
             for i in range(200)]
    return [*nodes, *replicas("g", 25, cpu="1500m", nodeSelector={"pool": "gold"}),
            *replicas("s", 20, cpu="1")]


@golden("200-nodes-percentage-config",
        "200 nodes with percentageOfNodesToScore 10 (the 100-node minimum applies)",
        config=make_config().profile(make_profile()).percentage_of_nodes_to_score(10))
def _() -> Docs:
    nodes = _pool(200, cpu="4")
    running = [pod(f"r{i}", "2", node=f"n{i:03d}") for i in range(1, 200, 2)]
    return [*nodes, *running, *replicas("p", 30, cpu="500m")]


@golden("120-nodes-profile-percentage",
        "120 nodes with a profile's percentageOfNodesToScore 100 (every node scored)",
        config=make_config().profile(make_profile().percentage_of_nodes_to_score(100)))
def _() -> Docs:
    nodes = _pool(120, cpu="4")
    running = [pod(f"r{i}", "3", node=f"n{i:03d}") for i in range(0, 120, 2)]
    return [*nodes, *running, *replicas("p", 20, cpu="500m")]


@golden("150-nodes-spread-and-affinity",
        "150 nodes in 5 zones: topology spread and anti-affinity beyond 100 nodes")
def _() -> Docs:
    nodes = _pool(150, zones=5)
    c = [spread(1, ZONE, {"app": "web"})]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, HOSTNAME)]}}
    return [*nodes, *replicas("web", 12, labels={"app": "web"}, topologySpreadConstraints=c),
            *replicas("db", 6, labels={"app": "db"}, affinity=anti)]
