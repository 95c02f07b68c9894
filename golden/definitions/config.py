"""The golden scenarios of area ``config`` (``golden/config/``): KubeSchedulerConfiguration: scoring
strategies, plugin weights and arguments, disabled plugins, several profiles."""

from __future__ import annotations

from reference_impl.testing.wrappers import (
    ZONE,
    make_config,
    make_profile,
    spread_constraint,
    taint,
)

from .common import Area, Docs, affinity_term, node, pod, replicas, zone_nodes

AREA = Area("config")
golden = AREA.golden


_MOST = {"scoringStrategy": {"type": "MostAllocated",
                             "resources": [{"name": "cpu", "weight": 1},
                                           {"name": "memory", "weight": 1}]}}


@golden("most-allocated", "NodeResourcesFit MostAllocated packs pods",
        config=make_config().profile(make_profile().plugin_args("NodeResourcesFit", _MOST)))
def _() -> Docs:
    return [node("n1", "4", "8Gi"), node("n2", "8", "8Gi"), node("n3", "4", "8Gi"),
            pod("r", "1", node="n3"), *replicas("pack", 5, cpu="700m", memory="1Gi")]


@golden("requested-to-capacity-ratio",
        "NodeResourcesFit RequestedToCapacityRatio with a shape and resource weights",
        config=make_config().profile(make_profile().plugin_args("NodeResourcesFit", {
            "scoringStrategy": {
                "type": "RequestedToCapacityRatio",
                "resources": [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}],
                "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                                       {"utilization": 60, "score": 10},
                                                       {"utilization": 100, "score": 2}]}}})))
def _() -> Docs:
    return [node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), node("n3", "10", "8Gi"),
            pod("r", "2", "1Gi", node="n1"), *replicas("p", 5, cpu="600m", memory="512Mi")]


@golden("score-weights",
        "plugin weights: ImageLocality weight 20 outweighs resource scoring",
        config=make_config().profile(make_profile().score_weight("ImageLocality", 20)
                                     .score_weight("NodeResourcesFit", 1)))
def _() -> Docs:
    img = "example.com/big:1"
    return [node("busy-with-image", "4", images=[(img, 500 * 1024 * 1024)]),
            node("empty", "16", "32Gi"),
            pod("busy", "3", node="busy-with-image"), pod("p1", "200m", image=img),
            pod("p2", "200m", image=img)]


@golden("disabled-plugins",
        "plugins disabled: TaintToleration filter and score, NodeResourcesBalancedAllocation",
        config=make_config().profile(make_profile().disable("filter", "TaintToleration").disable(
            "score", "TaintToleration", "NodeResourcesBalancedAllocation")))
def _() -> Docs:
    return [node("tainted", "8", "8Gi", taints=[taint("nobody")]), node("plain", "2", "8Gi"),
            pod("a", "1"), pod("b", "1"), pod("c", "1", "6Gi")]


@golden("multiple-profiles",
        "two profiles: pods choose one by schedulerName; unknown schedulerName stays pending",
        config=make_config().profile(make_profile()).profile(
            make_profile("packing-scheduler").plugin_args("NodeResourcesFit", _MOST)))
def _() -> Docs:
    return [node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), pod("r", "1", node="n2"),
            *replicas("spread", 2, cpu="500m"),
            *replicas("packed", 2, cpu="500m", schedulerName="packing-scheduler"),
            pod("orphan", schedulerName="no-such-scheduler")]


@golden("pod-topology-spread-defaults",
        "PodTopologySpread defaultConstraints (List) apply to pods with owners",
        config=make_config().profile(make_profile().plugin_args("PodTopologySpread", {
            "defaultingType": "List",
            "defaultConstraints": [spread_constraint(1, ZONE, "ScheduleAnyway")]})))
def _() -> Docs:
    return [*zone_nodes(1, "abc"), pod("x-old", node="a0", labels={"app": "x"}, owner="x-rs"),
            *replicas("x", 4, labels={"app": "x"}, owner="x-rs")]


@golden("balanced-allocation-resources",
        "NodeResourcesBalancedAllocation with cpu, memory and an extended resource",
        config=make_config().profile(make_profile().plugin_args(
            "NodeResourcesBalancedAllocation", {"resources": [
                {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                {"name": "example.com/gpu", "weight": 1}]})))
def _() -> Docs:
    gpu = {"example.com/gpu": "4"}
    return [node("g1", "8", "16Gi", extra=gpu), node("g2", "8", "16Gi", extra=gpu),
            pod("r", "4", "2Gi", node="g1"),
            pod("gpu-job", "1", "1Gi", extra={"example.com/gpu": "2"}),
            pod("cpu-job", "2", "1Gi")]


@golden("inter-pod-affinity-hard-weight",
        "InterPodAffinity hardPodAffinityWeight 0 and an ignored preferred term weight",
        config=make_config().profile(make_profile().plugin_args(
            "InterPodAffinity", {"hardPodAffinityWeight": 0})))
def _() -> Docs:
    want = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "web"}, ZONE)]}}
    return [*zone_nodes(1, "ab"), pod("follower", node="a0", labels={"app": "f"}, affinity=want),
            pod("web-0", labels={"app": "web"}), pod("web-1", labels={"app": "web"})]
