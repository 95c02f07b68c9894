"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) documents that pass upstream's
validation (``pkg/scheduler/apis/config/validation/validation.go`` and
``validation_pluginargs.go``): :func:`scheduler_configs`, :func:`profiles`, the plugin args.
What varies and the rules followed: docs/strategies.md#what-is-generated (Configurations)."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from hypothesis import strategies as st

import strategies.vocabulary as v
from strategies._cache import booleans, cached, composite, integers, sampled
from strategies.dra import DRA_FEATURE, EXTENDED_RESOURCE, GPU_DRIVER, IMPLICIT_PREFIX
from strategies.objects import node_affinities
from strategies.sizes import SMALL, Sizes, resolve_features

__all__ = [
    "API_VERSION",
    "SCORE_PLUGINS",
    "scheduler_configs",
    "profiles",
    "plugin_configs",
    "fit_args",
    "dra_fit_args",
    "balanced_allocation_args",
    "pod_topology_spread_args",
    "inter_pod_affinity_args",
    "default_preemption_args",
    "node_affinity_args",
    "scheduler_names_of",
]

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"

# The default profile's Score plugins that act on what the generators produce.
SCORE_PLUGINS = ("TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread",
                 "InterPodAffinity", "NodeResourcesBalancedAllocation", "ImageLocality")

_RESOURCE_NAMES = ("cpu", "memory", "ephemeral-storage", v.EXTENDED_RESOURCE)
#: the extended resources backed by DRA that the dra family's pods request (strategies/dra.py):
#: the GPU class's extendedResourceName and its implicit name
_DRA_RESOURCE_NAMES = (EXTENDED_RESOURCE, IMPLICIT_PREFIX + GPU_DRIVER)

Doc = dict[str, Any]


def _with_type_meta(draw: st.DrawFn, kind: str, args: Doc) -> Doc:
    """Args sometimes carry their own apiVersion and kind, as users often write them."""
    if draw(integers(0, 3)) == 3:
        return {"apiVersion": API_VERSION, "kind": kind, **args}
    return args


@functools.cache
@composite
def _shapes(draw: st.DrawFn) -> list[Doc]:
    """A RequestedToCapacityRatio shape: 1-4 points, utilization strictly increasing in
    [0, 100], score in [0, 10] (validateFunctionShape)."""
    utilizations = sorted(draw(st.lists(sampled((0, 20, 50, 80, 100)), min_size=1,
                                        max_size=4, unique=True)))
    return [{"utilization": u, "score": draw(integers(0, 10))} for u in utilizations]


@functools.cache
@composite
def fit_args(draw: st.DrawFn) -> Doc:
    """NodeResourcesFitArgs: a scoring strategy type, maybe resources with weights in [1, 100]
    (or weight absent: defaulted to 1), a shape for RequestedToCapacityRatio."""
    kind = draw(sampled(("LeastAllocated", "MostAllocated",
                                 "RequestedToCapacityRatio")))
    strategy: Doc = {"type": kind}
    names = draw(st.lists(sampled(_RESOURCE_NAMES), unique=True, max_size=3))
    if names:
        strategy["resources"] = []
        for n in names:
            r: Doc = {"name": n}
            w = draw(sampled((1, 2, 5, 0, 100)))
            if w:
                r["weight"] = w
            strategy["resources"].append(r)
    if kind == "RequestedToCapacityRatio":
        strategy["requestedToCapacityRatio"] = {"shape": draw(_shapes())}
    args: Doc = {"scoringStrategy": strategy}
    if draw(integers(0, 5)) == 5:
        args["ignoredResources"] = [v.EXTENDED_RESOURCE]
    return _with_type_meta(draw, "NodeResourcesFitArgs", args)


@functools.cache
@composite
def dra_fit_args(draw: st.DrawFn) -> Doc:
    """NodeResourcesFitArgs whose scoring strategy lists an extended resource backed by DRA
    (feature ``dra``): the scorers then count the devices matching the DeviceClass on the nodes
    that do not advertise it (noderesources/resource_allocation.go). MostAllocated first (it
    shrinks there): with LeastAllocated the node with the most free devices wins."""
    kind = draw(sampled(("MostAllocated", "LeastAllocated", "RequestedToCapacityRatio")))
    names = draw(st.lists(sampled(_DRA_RESOURCE_NAMES), min_size=1, unique=True))
    names += draw(st.lists(sampled(("cpu", "memory")), unique=True))
    strategy: Doc = {"type": kind, "resources": [
        {"name": n, "weight": draw(sampled((1, 5, 100)))} for n in names]}
    if kind == "RequestedToCapacityRatio":
        strategy["requestedToCapacityRatio"] = {"shape": draw(_shapes())}
    return _with_type_meta(draw, "NodeResourcesFitArgs", {"scoringStrategy": strategy})


@functools.cache
@composite
def balanced_allocation_args(draw: st.DrawFn) -> Doc:
    """NodeResourcesBalancedAllocationArgs: distinct resources, each weight exactly 1 (or
    absent)."""
    names = draw(st.lists(sampled(_RESOURCE_NAMES), min_size=1, unique=True,
                          max_size=3))
    resources = []
    for n in names:
        r: Doc = {"name": n}
        if draw(booleans()):
            r["weight"] = 1
        resources.append(r)
    return _with_type_meta(draw, "NodeResourcesBalancedAllocationArgs", {"resources": resources})


@functools.cache
@composite
def pod_topology_spread_args(draw: st.DrawFn) -> Doc:
    """PodTopologySpreadArgs: System (no constraints) or List with default constraints (no
    selector, no repeated {topologyKey, whenUnsatisfiable}; an empty List turns system
    defaulting off)."""
    defaulting = draw(sampled(("List", "System")))
    args: Doc = {"defaultingType": defaulting}
    if defaulting == "List":
        constraints = draw(st.lists(st.fixed_dictionaries({
            "maxSkew": integers(1, 3),
            "topologyKey": sampled(v.TOPOLOGY_KEYS),
            "whenUnsatisfiable": sampled(("ScheduleAnyway", "DoNotSchedule")),
        }), max_size=2, unique_by=lambda c: (c["topologyKey"], c["whenUnsatisfiable"])))
        args["defaultConstraints"] = constraints
    return _with_type_meta(draw, "PodTopologySpreadArgs", args)


@functools.cache
@composite
def inter_pod_affinity_args(draw: st.DrawFn) -> Doc:
    """InterPodAffinityArgs: hardPodAffinityWeight in [0, 100], maybe
    ignorePreferredTermsOfExistingPods."""
    args: Doc = {"hardPodAffinityWeight": draw(sampled((1, 0, 5, 100)))}
    if draw(booleans()):
        args["ignorePreferredTermsOfExistingPods"] = draw(booleans())
    return _with_type_meta(draw, "InterPodAffinityArgs", args)


@functools.cache
@composite
def default_preemption_args(draw: st.DrawFn) -> Doc:
    """DefaultPreemptionArgs: percentage in [0, 100], absolute >= 0, not both zero."""
    pct = draw(sampled((10, 0, 50, 100)))
    absolute = draw(sampled((100, 1, 0, 3)))
    if pct == 0 and absolute == 0:
        absolute = 1
    return _with_type_meta(draw, "DefaultPreemptionArgs", {
        "minCandidateNodesPercentage": pct, "minCandidateNodesAbsolute": absolute})


@functools.cache
@composite
def node_affinity_args(draw: st.DrawFn) -> Doc:
    """NodeAffinityArgs: an addedAffinity every pod of the profile must also satisfy."""
    return _with_type_meta(draw, "NodeAffinityArgs",
                           {"addedAffinity": draw(node_affinities(max_terms=1))})


_ARGS = {
    "NodeResourcesFit": fit_args,
    "NodeResourcesBalancedAllocation": balanced_allocation_args,
    "PodTopologySpread": pod_topology_spread_args,
    "InterPodAffinity": inter_pod_affinity_args,
    "DefaultPreemption": default_preemption_args,
    "NodeAffinity": node_affinity_args,
}


@functools.cache
@composite
def plugin_configs(draw: st.DrawFn) -> list[Doc]:
    """A profile's ``pluginConfig``: args for some of the configurable plugins, each once."""
    names = draw(st.lists(sampled(tuple(_ARGS)), unique=True, max_size=len(_ARGS)))
    return [{"name": n, "args": draw(_ARGS[n]())} for n in names]


def without_dra_resources(plugin_config: Doc) -> Doc | None:
    """A BalancedAllocation pluginConfig without the DRA-backed resources (None when none is
    left): upstream v1.36/v1.37 crash scoring them with a class that has selectors
    (upstream-balanced-allocation-dra-nil-cel-cache, docs/upstream-deviations.md)."""
    if plugin_config["name"] != "NodeResourcesBalancedAllocation":
        return plugin_config
    args = plugin_config["args"]
    kept = [r for r in args["resources"] if r["name"] not in _DRA_RESOURCE_NAMES]
    if not kept:
        return None
    return {**plugin_config, "args": {**args, "resources": kept}}


def _plugin_of(weight: tuple[str, int]) -> str:
    return weight[0]


#: Score plugins with a weight, each once
_WEIGHTS = st.lists(st.tuples(sampled(SCORE_PLUGINS), integers(0, 10)), max_size=3,
                    unique_by=_plugin_of)


@cached
@composite
def profiles(draw: st.DrawFn, scheduler_name: str | None = None, dra: bool = False) -> Doc:
    """One profile: maybe a schedulerName, percentageOfNodesToScore, Score weights (0 = the
    framework's 1), disabled Score plugins, plugin args. With ``dra`` (feature ``dra``), three
    profiles in four score DRA-backed extended resources with NodeResourcesFit
    (``dra_fit_args``), and BalancedAllocation never lists them (``without_dra_resources``).
    """
    p: Doc = {}
    if scheduler_name is not None:
        p["schedulerName"] = scheduler_name
    if draw(integers(0, 3)) == 3:
        p["percentageOfNodesToScore"] = draw(sampled((0, 50, 100, 10, 1)))
    weighted = draw(_WEIGHTS)
    disabled = draw(st.lists(sampled(SCORE_PLUGINS), max_size=2, unique=True))
    disabled = [n for n in disabled if n not in {w[0] for w in weighted}]
    score: Doc = {}
    if weighted:
        score["enabled"] = [{"name": n, "weight": w} for n, w in weighted]
    if disabled:
        score["disabled"] = [{"name": n} for n in disabled]
    if score:
        p["plugins"] = {"score": score}
    config = draw(plugin_configs())
    if dra:
        config = [without_dra_resources(c) for c in config]
        config = [c for c in config if c is not None]
        if draw(integers(0, 3)) > 0:
            config = [c for c in config if c["name"] != "NodeResourcesFit"]
            config.append({"name": "NodeResourcesFit", "args": draw(dra_fit_args())})
    if config:
        p["pluginConfig"] = config
    return p


@cached
@composite
def scheduler_configs(draw: st.DrawFn, sizes: Sizes = SMALL,
                      features: Iterable[str] | None = None) -> Doc:
    """A KubeSchedulerConfiguration dict that ``reference_impl.config.load_config`` accepts.
    With the "multiple_profiles" feature there may be a second profile, "second-scheduler"."""
    f = resolve_features(features)
    cfg: Doc = {"apiVersion": API_VERSION, "kind": KIND}
    if draw(integers(0, 3)) == 3:
        cfg["percentageOfNodesToScore"] = draw(sampled((0, 100, 50, 5)))
    if draw(integers(0, 5)) == 5:
        initial = draw(integers(1, 5))
        cfg["podInitialBackoffSeconds"] = initial
        cfg["podMaxBackoffSeconds"] = initial + draw(integers(0, 10))
    explicit = draw(booleans())  # write "profiles" even for one empty profile
    dra = DRA_FEATURE in f
    n = 1
    if "multiple_profiles" in f and sizes.max_profiles > 1:
        n = draw(integers(1, min(2, sizes.max_profiles)))
    if n == 1:
        name = draw(sampled((None, v.DEFAULT_SCHEDULER)))
        profs = [draw(profiles(name, dra))]
    else:
        profs = [draw(profiles(v.DEFAULT_SCHEDULER, dra)),
                 draw(profiles(v.SECOND_SCHEDULER, dra))]
    if len(profs) > 1 or profs[0] or explicit:
        cfg["profiles"] = profs
    return cfg


def scheduler_names_of(config: Doc | None) -> tuple[str, ...]:
    """The scheduler names a configuration serves (one profile without a name serves
    "default-scheduler")."""
    if not config or not config.get("profiles"):
        return (v.DEFAULT_SCHEDULER,)
    return tuple(p.get("schedulerName") or v.DEFAULT_SCHEDULER for p in config["profiles"])
