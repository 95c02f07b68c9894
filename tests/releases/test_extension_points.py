"""The extension points each release's in-tree plugins extend (behaviour switches
nodename-prefilter, nodeunschedulable-prefilter, tainttoleration-prefilter and
dynamicresources-score's "none"): the reference's expansion of every release's default profile
equals that release's data (``Framework.ListPlugins``, read from the release itself), a point
a release lacks is upstream's framework error, and NodeName's PreFilter shows in the diagnosis
only where the release has it."""

from __future__ import annotations

import pytest

from reference_impl.config import ConfigError, default_config, load_config
from reference_impl.model.objects import Cluster
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases import load, supported_releases
from reference_impl.scheduler.scheduler import QueuedPodInfo, Scheduler
from reference_impl.testing.wrappers import make_node, make_pod

#: points of the release data the reference does not model (pod groups and placements)
UNMODELLED = {"placementGenerate", "placementScore", "podGroupPostFilter"}


@pytest.mark.parametrize("tag", supported_releases())
def test_every_modelled_point_of_the_default_profile_is_the_release_data(tag: str) -> None:
    release = load(tag)
    lists = default_config(in_tree_registry(), release).profiles[0].plugins
    assert set(release.extension_points) - set(lists) <= UNMODELLED
    assert set(lists) <= set(release.extension_points)
    for point, entries in lists.items():
        assert [tuple(e) for e in entries] == list(release.extension_points[point]), point


def _config(point: str, plugin: str, weight: int = 0) -> dict:
    entry = {"name": plugin, **({"weight": weight} if weight else {})}
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler",
                          "plugins": {point: {"enabled": [entry]}}}]}


@pytest.mark.parametrize("point,plugin,weight,first", [
    ("preFilter", "NodeName", 0, "v1.37.2"),
    ("preFilter", "NodeUnschedulable", 0, "v1.37.2"),
    ("preFilter", "TaintToleration", 0, "v1.37.2"),
    ("score", "DynamicResources", 2, "v1.35.4"),
])
def test_a_point_the_release_lacks_is_the_framework_error(point: str, plugin: str, weight: int,
                                                          first: str) -> None:
    """``updatePluginList`` (framework/runtime/framework.go of each release): a plugin enabled
    at a point its type does not implement fails; from the release that added it, it loads."""
    iface = {"preFilter": "PreFilterPlugin", "score": "ScorePlugin"}[point]
    releases = supported_releases()
    for tag in releases:
        release = load(tag)
        if releases.index(tag) < releases.index(first):
            with pytest.raises(ConfigError,
                               match=f'plugin "{plugin}" does not extend {iface} plugin'):
                load_config(_config(point, plugin, weight), in_tree_registry(), release)
        else:
            cfg = load_config(_config(point, plugin, weight), in_tree_registry(), release)
            assert plugin in [e.name for e in cfg.profiles[0].plugins[point]]


def _attempt_for_pod_naming(tag: str, node: str):
    """One scheduling cycle of a pod with ``spec.nodeName: n2`` among three nodes, n2
    cordoned."""
    nodes = [make_node("n1").capacity(cpu="2", pods="10").obj(),
             make_node("n2").capacity(cpu="2", pods="10").unschedulable().obj(),
             make_node("n3").capacity(cpu="2", pods="10").obj()]
    sched = Scheduler(Cluster(nodes=nodes), default_config(in_tree_registry(), load(tag)), seed=1)
    return sched.schedule_one(QueuedPodInfo(make_pod("p").node(node).obj(), 0.0))


@pytest.mark.parametrize("tag", ["v1.34.4", "v1.35.4", "v1.36.3"])
def test_without_nodename_prefilter_every_node_runs_the_filters(tag: str) -> None:
    """v1.34-v1.36: NodeName is a Filter only (UnschedulableAndUnresolvable "node(s) didn't
    match the requested node name"); NodeUnschedulable, before it, rejects the named node."""
    attempt = _attempt_for_pod_naming(tag, "n2")
    assert attempt.evaluated_nodes == 3
    assert attempt.reasons == {"n1": ["node(s) didn't match the requested node name"],
                               "n2": ["node(s) were unschedulable"],
                               "n3": ["node(s) didn't match the requested node name"]}
    assert attempt.message == (
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match the "
        "requested node name. no new claims to deallocate, preemption: 0/3 nodes are "
        "available: 3 Preemption is not helpful for scheduling.")  # DynamicResources'
    # PostFilter message of v1.34-v1.36 (switch dra-postfilter-messages) comes first


def test_nodename_prefilter_restricts_the_cycle_to_the_named_node() -> None:
    """v1.37 (node_name.go PreFilter): only n2 is evaluated; the others are the absent nodes
    of findNodesThatFitPod ("didn't satisfy plugin(s) [NodeName]", UnschedulableAndUnresolvable,
    so not preemption candidates either)."""
    attempt = _attempt_for_pod_naming("v1.37.2", "n2")
    assert attempt.evaluated_nodes == 1
    assert attempt.message == (
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't satisfy "
        "plugin(s) [NodeName]. preemption: 0/3 nodes are available: 3 Preemption is not "
        "helpful for scheduling.")


@pytest.mark.parametrize("tag", supported_releases())
def test_nodes_rejected_for_the_node_name_are_no_preemption_candidates(tag: str) -> None:
    """Filter (v1.34-v1.36) and PreFilter (v1.37) both turn the other nodes away as
    UnschedulableAndUnresolvable: preemption looks at the named node only, in every release,
    and evicts the pod there."""
    nodes = [make_node(n).capacity(cpu="2", pods="10").obj() for n in ("n1", "n2", "n3")]
    victim = make_pod("v").node("n2").priority(0).req(cpu="2").obj()
    sched = Scheduler(Cluster(nodes=nodes, pods=[victim]),
                      default_config(in_tree_registry(), load(tag)), seed=1)
    attempt = sched.schedule_one(QueuedPodInfo(
        make_pod("p").node("n2").priority(100).req(cpu="1").obj(), 0.0))
    other = ("didn't satisfy plugin(s) [NodeName]" if load(tag).behaviour("nodename-prefilter")
             == "prefilter" else "didn't match the requested node name")
    diagnosis = f"0/3 nodes are available: 1 Insufficient cpu, 2 node(s) {other}."
    if tag == "v1.37.2":  # a successful preemption's message (preempt-success-message)
        assert attempt.message.startswith(diagnosis + " preemption: ")
    else:
        assert attempt.message == diagnosis
    assert attempt.victims == ["default/v"]
