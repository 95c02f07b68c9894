"""Plugin args: defaulting, validation and conversion to the typed args of ``config/args.py``.

Per args kind (``<Plugin>Args``), on the decoded v1 dict (``schema.decode``: a field that is not
set is absent, like a nil pointer):

* ``set_defaults`` follows the ``SetDefaults_*Args`` functions of
  ``pkg/scheduler/apis/config/v1/defaults.go``, with the values from the pinned release's data;
* ``validate`` follows ``pkg/scheduler/apis/config/validation/validation_pluginargs.go``
  (a field that is not set counts as its Go zero value, as in the internal types);
* ``to_typed`` is the conversion to the internal type (``zz_generated.conversion.go``).

Validation takes the release (default: the pinned one) for its gates and behaviour switches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reference_impl.config.args as a
import reference_impl.config.core_v1 as core_v1
from reference_impl.config.content import (
    node_selector_errors,
    preferred_terms_errors,
    validate_label_name,
)
from reference_impl.config.errors import (
    FieldError,
    child,
    duplicate,
    forbidden,
    index,
    invalid,
    not_supported,
    required,
)
from reference_impl.config.schema import PLUGIN_ARGS as PLUGIN_ARGS_SCHEMAS
from reference_impl.config.schema import copy_value, format_go_duration, parse_go_duration
from reference_impl.model.objects import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY
from reference_impl.releases import ReleaseData
from reference_impl.releases.current import RELEASE

Args = dict[str, Any]

_SUPPORTED_SCORING_STRATEGY_TYPES = sorted(
    (a.LEAST_ALLOCATED, a.MOST_ALLOCATED, a.REQUESTED_TO_CAPACITY_RATIO))


def _defaults(release: ReleaseData, kind: str) -> Args:
    return copy_value(release.plugin_args_defaults[kind])


# ---------------------------------------------------------------- defaulting (defaults.go)

def _set_defaults_default_preemption(obj: Args, release: ReleaseData) -> None:
    """``SetDefaults_DefaultPreemptionArgs``."""
    for key, value in _defaults(release, "DefaultPreemptionArgs").items():
        obj.setdefault(key, value)


def _set_defaults_inter_pod_affinity(obj: Args, release: ReleaseData) -> None:
    """``SetDefaults_InterPodAffinityArgs`` (an explicit 0 stays 0)."""
    obj.setdefault("hardPodAffinityWeight",
                   _defaults(release, "InterPodAffinityArgs")["hardPodAffinityWeight"])


def _weight_zero_becomes_one(resources: list[Args]) -> None:
    """"If the weight is not set or it is explicitly set to 0, then apply the default weight(1)"."""
    for r in resources:
        if not r.get("weight"):
            r["weight"] = 1


def _set_defaults_fit(obj: Args, release: ReleaseData) -> None:
    """``SetDefaults_NodeResourcesFitArgs``: no strategy → LeastAllocated on the default
    resources; empty resources → the default resources; weight 0 → 1."""
    default = _defaults(release, "NodeResourcesFitArgs")["scoringStrategy"]
    strategy = obj.get("scoringStrategy")
    if strategy is None:
        strategy = obj["scoringStrategy"] = default
    if not strategy.get("resources"):
        strategy["resources"] = default["resources"]
    _weight_zero_becomes_one(strategy["resources"])


def _set_defaults_balanced_allocation(obj: Args, release: ReleaseData) -> None:
    """``SetDefaults_NodeResourcesBalancedAllocationArgs``."""
    if not obj.get("resources"):
        obj["resources"] = _defaults(release, "NodeResourcesBalancedAllocationArgs")["resources"]
        return
    _weight_zero_becomes_one(obj["resources"])


def _set_defaults_pod_topology_spread(obj: Args, release: ReleaseData) -> None:
    """``SetDefaults_PodTopologySpreadArgs``."""
    if not obj.get("defaultingType"):
        obj["defaultingType"] = _defaults(release, "PodTopologySpreadArgs")["defaultingType"]


def _set_defaults_volume_binding(obj: Args, release: ReleaseData) -> None:
    """``SetDefaults_VolumeBindingArgs``: the shape only with StorageCapacityScoring."""
    default = _defaults(release, "VolumeBindingArgs")
    obj.setdefault("bindTimeoutSeconds", default["bindTimeoutSeconds"])
    if not obj.get("shape") and release.feature_enabled("StorageCapacityScoring"):
        obj["shape"] = default["shape"]


def _set_defaults_dynamic_resources(obj: Args, release: ReleaseData) -> None:
    """``SetDefaults_DynamicResourcesArgs`` (durations in nanoseconds)."""
    default = _defaults(release, "DynamicResourcesArgs")
    fe = release.feature_enabled
    if "filterTimeout" not in obj and fe("DRASchedulerFilterTimeout"):
        obj["filterTimeout"] = parse_go_duration(default["filterTimeout"])
    if ("bindingTimeout" not in obj and fe("DRADeviceBindingConditions")
            and fe("DRAResourceClaimDeviceStatus")):
        obj["bindingTimeout"] = parse_go_duration(default["bindingTimeout"])


def _no_defaults(obj: Args, release: ReleaseData) -> None:
    """NodeAffinityArgs has no defaulting function."""


# ------------------------------------------------------ validation (validation_pluginargs.go)

def validate_default_preemption(args: Args, path: str = "",
                                release: ReleaseData = RELEASE) -> list[FieldError]:
    """``ValidateDefaultPreemptionArgs``."""
    errs = []
    pct_path = child(path, "minCandidateNodesPercentage")
    abs_path = child(path, "minCandidateNodesAbsolute")
    pct = args.get("minCandidateNodesPercentage", 0)
    absolute = args.get("minCandidateNodesAbsolute", 0)
    if pct < 0 or pct > 100:
        errs.append(invalid(pct_path, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(abs_path, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(invalid(pct_path, pct,
                            "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errs.append(invalid(abs_path, absolute,
                            "cannot be zero at the same time as minCandidateNodesPercentage"))
    return errs


def validate_inter_pod_affinity(args: Args, path: str = "",
                                release: ReleaseData = RELEASE) -> list[FieldError]:
    """``ValidateInterPodAffinityArgs``: hardPodAffinityWeight in [0, 100]."""
    w = args.get("hardPodAffinityWeight", 0)
    if w < 0 or w > 100:
        return [invalid(child(path, "hardPodAffinityWeight"), w, "not in valid range [0, 100]")]
    return []


def validate_pod_topology_spread(args: Args, path: str = "",
                                 release: ReleaseData = RELEASE) -> list[FieldError]:
    """``ValidatePodTopologySpreadArgs``: defaultingType System|List (System only without
    constraints); per constraint maxSkew > 0, a valid topologyKey, whenUnsatisfiable
    DoNotSchedule|ScheduleAnyway, no labelSelector, no repeated {topologyKey, whenUnsatisfiable}."""
    errs: list[FieldError] = []
    defaulting = args.get("defaultingType", "")
    constraints = args.get("defaultConstraints", [])
    type_path = child(path, "defaultingType")
    if defaulting not in (a.SYSTEM_DEFAULTING, a.LIST_DEFAULTING):
        errs.append(not_supported(type_path, defaulting, (a.SYSTEM_DEFAULTING, a.LIST_DEFAULTING)))
    elif defaulting == a.SYSTEM_DEFAULTING and constraints:
        errs.append(invalid(type_path, defaulting, "when .defaultConstraints are not empty"))
    constraints_path = child(path, "defaultConstraints")
    for i, c in enumerate(constraints):
        p = index(constraints_path, i)
        max_skew = c.get("maxSkew", 0)
        if max_skew <= 0:
            errs.append(invalid(child(p, "maxSkew"), max_skew, "not in valid range (0, inf)"))
        key = c.get("topologyKey", "")
        if not key:
            errs.append(required(child(p, "topologyKey"), "can not be empty"))
        else:
            errs.extend(validate_label_name(key, child(p, "topologyKey")))
        when = c.get("whenUnsatisfiable", "")
        if not when:
            errs.append(required(child(p, "whenUnsatisfiable"), "can not be empty"))
        elif when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errs.append(not_supported(child(p, "whenUnsatisfiable"), when,
                                      sorted((DO_NOT_SCHEDULE, SCHEDULE_ANYWAY))))
        if c.get("labelSelector") is not None:
            errs.append(forbidden(child(p, "labelSelector"),
                                  "constraint must not define a selector, as they deduced for "
                                  "each pod"))
        for other in constraints[:i]:  # validateConstraintNotRepeat
            if (key == other.get("topologyKey", "")
                    and when == other.get("whenUnsatisfiable", "")):
                errs.append(duplicate(p, f"{{{key}, {when}}}"))
                break
    return errs


def validate_function_shape(shape: list[Args], path: str) -> list[FieldError]:
    """``validateFunctionShape``: at least one point, strictly increasing utilization (first
    violation only), utilization in [0, 100], score in [0, MaxCustomPriorityScore]."""
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs = []
    for i in range(1, len(shape)):
        if shape[i - 1].get("utilization", 0) >= shape[i].get("utilization", 0):
            errs.append(invalid(child(index(path, i), "utilization"),
                                shape[i].get("utilization", 0),
                                "values must be sorted in increasing order"))
            break
    max_score = RELEASE.max_custom_priority_score
    for i, point in enumerate(shape):
        utilization = point.get("utilization", 0)
        score = point.get("score", 0)
        if utilization < 0 or utilization > 100:
            errs.append(invalid(child(index(path, i), "utilization"), utilization,
                                "not in valid range [0, 100]"))
        if score < 0 or score > max_score:
            errs.append(invalid(child(index(path, i), "score"), score,
                                f"not in valid range [0, {max_score}]"))
    return errs


def _validate_resources(resources: list[Args], path: str) -> list[FieldError]:
    """``validateResources``: weights in (0, 100]."""
    errs = []
    for i, r in enumerate(resources):
        w = r.get("weight", 0)
        if w <= 0 or w > 100:
            errs.append(invalid(child(index(path, i), "weight"), w,
                                f"resource weight of {r.get('name', '')} not in valid range "
                                "(0, 100]"))
    return errs


def validate_balanced_allocation(args: Args, path: str = "",
                                 release: ReleaseData = RELEASE) -> list[FieldError]:
    """``ValidateNodeResourcesBalancedAllocationArgs``: unique names, every weight exactly 1."""
    errs = []
    seen: set[str] = set()
    resources_path = child(path, "resources")
    for i, r in enumerate(args.get("resources", [])):
        name = r.get("name", "")
        if name in seen:
            errs.append(duplicate(child(index(resources_path, i), "name"), name))
        else:
            seen.add(name)
        w = r.get("weight", 0)
        if w != 1:
            errs.append(invalid(child(index(resources_path, i), "weight"), w, "must be 1"))
    return errs


def validate_node_affinity(args: Args, path: str = "",
                           release: ReleaseData = RELEASE) -> list[FieldError]:
    """``ValidateNodeAffinityArgs``: addedAffinity's selector terms must parse."""
    affinity = args.get("addedAffinity")
    if affinity is None:
        return []
    errs = []
    req = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        errs.extend(node_selector_errors(
            req, child(path, "addedAffinity", "requiredDuringSchedulingIgnoredDuringExecution")))
    preferred = affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
    if preferred:
        errs.extend(preferred_terms_errors(
            preferred,
            child(path, "addedAffinity", "preferredDuringSchedulingIgnoredDuringExecution")))
    return errs


def validate_volume_binding(args: Args, path: str = "",
                            release: ReleaseData = RELEASE) -> list[FieldError]:
    """``ValidateVolumeBindingArgs`` (``AllowStorageCapacityScoring`` = the gate)."""
    errs = []
    timeout = args.get("bindTimeoutSeconds", 0)
    if timeout < 0:
        errs.append(invalid(child(path, "bindTimeoutSeconds"), timeout,
                            "invalid BindTimeoutSeconds, should not be a negative value"))
    shape = args.get("shape")
    if release.feature_enabled("StorageCapacityScoring"):
        errs.extend(validate_function_shape(shape or [], child(path, "shape")))
    elif shape is not None:
        errs.append(invalid(child(path, "shape"), shape,
                            "unexpected field `shape`, remove it or turn on the feature gate "
                            "StorageCapacityScoring"))
    return errs


def validate_fit(args: Args, path: str = "",
                 release: ReleaseData = RELEASE) -> list[FieldError]:
    """``ValidateNodeResourcesFitArgs``. Upstream runs it when the NodeResourcesFit plugin is
    constructed, not in config validation (see ``CONFIG_VALIDATED``).

    Switch ``fit-args-validation``: v1.36.3 and v1.37.2 ("strict") require ``scoringStrategy``,
    require ``requestedToCapacityRatio`` with RequestedToCapacityRatio and forbid it with any
    other type. v1.34.4 and v1.35.4 ("lenient", ``validation_pluginargs.go``) only check the
    shape of a ``requestedToCapacityRatio`` that is set, whatever the type, under the path
    ``scoringStrategy.shape``."""
    errs: list[FieldError] = []
    for i, res in enumerate(args.get("ignoredResources", [])):
        errs.extend(validate_label_name(res, index(child(path, "ignoredResources"), i)))
    for i, group in enumerate(args.get("ignoredResourceGroups", [])):
        p = index(child(path, "ignoredResourceGroups"), i)
        if "/" in group:
            errs.append(invalid(p, group, "resource group name can't contain '/'"))
        errs.extend(validate_label_name(group, p))
    strict = release.behaviour("fit-args-validation") == "strict"
    strategy_path = child(path, "scoringStrategy")
    strategy = args.get("scoringStrategy")
    if strategy is None:
        if strict:
            errs.append(required(strategy_path, "ScoringStrategy field is required"))
        return errs
    kind = strategy.get("type", "")
    if kind not in _SUPPORTED_SCORING_STRATEGY_TYPES:
        errs.append(not_supported(child(strategy_path, "type"), kind,
                                  _SUPPORTED_SCORING_STRATEGY_TYPES))
    errs.extend(_validate_resources(strategy.get("resources", []),
                                    child(strategy_path, "resources")))
    ratio = strategy.get("requestedToCapacityRatio")
    ratio_path = child(strategy_path, "requestedToCapacityRatio")
    if not strict:
        if ratio is not None:
            errs.extend(validate_function_shape(ratio.get("shape", []),
                                                child(strategy_path, "shape")))
    elif kind == a.REQUESTED_TO_CAPACITY_RATIO:
        if ratio is None:
            errs.append(required(ratio_path, "must be specified when type is "
                                             "RequestedToCapacityRatio"))
        else:
            errs.extend(validate_function_shape(ratio.get("shape", []), child(ratio_path, "shape")))
    elif ratio is not None:
        errs.append(forbidden(ratio_path, "must be nil when type is not RequestedToCapacityRatio"))
    return errs


def validate_dynamic_resources(args: Args, path: str = "",
                               release: ReleaseData = RELEASE) -> list[FieldError]:
    """``ValidateDynamicResourcesArgs``: setting a timeout whose gate is off is an error (the
    same in v1.35.4 to v1.37.2; v1.34.4 has no ``bindingTimeout`` and its gates are off)."""
    fe = release.feature_enabled
    errs = []
    filter_timeout = args.get("filterTimeout")
    if fe("DRASchedulerFilterTimeout"):
        if filter_timeout is not None and filter_timeout < 0:
            errs.append(invalid(child(path, "filterTimeout"), format_go_duration(filter_timeout),
                                "must be zero or positive"))
    elif filter_timeout is not None:
        errs.append(forbidden(child(path, "filterTimeout"),
                              "DRASchedulingFilterTimeout feature gate is disabled"))
    binding_timeout = args.get("bindingTimeout")
    if fe("DRADeviceBindingConditions") and fe("DRAResourceClaimDeviceStatus"):
        if binding_timeout is not None and binding_timeout < 1_000_000_000:
            errs.append(invalid(child(path, "bindingTimeout"),
                                format_go_duration(binding_timeout), "must be at least 1 second"))
    elif binding_timeout is not None:
        errs.append(forbidden(child(path, "bindingTimeout"),
                              "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus "
                              "feature gate is disabled"))
    return errs


# ------------------------------------------------------------- conversion to the typed args

def _resources(items: list[Args]) -> tuple[a.ResourceSpec, ...]:
    return tuple(a.ResourceSpec(r.get("name", ""), r.get("weight", 0)) for r in items)


def _shape(items: list[Args]) -> tuple[a.UtilizationShapePoint, ...]:
    return tuple(a.UtilizationShapePoint(p.get("utilization", 0), p.get("score", 0))
                 for p in items)


def _typed_fit(args: Args) -> a.NodeResourcesFitArgs:
    s = args["scoringStrategy"]
    ratio = s.get("requestedToCapacityRatio")
    return a.NodeResourcesFitArgs(
        ignored_resources=tuple(args.get("ignoredResources", ())),
        ignored_resource_groups=tuple(args.get("ignoredResourceGroups", ())),
        scoring_strategy=a.ScoringStrategy(
            type=s.get("type", ""),
            resources=_resources(s.get("resources", [])),
            requested_to_capacity_ratio=(None if ratio is None else
                                         a.RequestedToCapacityRatioParam(
                                             _shape(ratio.get("shape", []))))))


def _typed_dynamic_resources(args: Args) -> a.DynamicResourcesArgs:
    """A filterTimeout that is not set means no timeout (the plugin's ``ptr.Deref`` to 0); a
    bindingTimeout that is not set means the default (``DynamicResourcesBindingTimeoutDefault``)."""
    binding = args.get("bindingTimeout")
    if binding is None:
        binding = parse_go_duration(RELEASE.plugin_args_defaults["DynamicResourcesArgs"]
                                    ["bindingTimeout"])
    return a.DynamicResourcesArgs(filter_timeout_seconds=args.get("filterTimeout", 0) / 1e9,
                                  binding_timeout_seconds=binding / 1e9)


_TO_TYPED: dict[str, Callable[[Args], Any]] = {
    "DefaultPreemptionArgs": lambda d: a.DefaultPreemptionArgs(
        d.get("minCandidateNodesPercentage", 0), d.get("minCandidateNodesAbsolute", 0)),
    "DynamicResourcesArgs": _typed_dynamic_resources,
    "InterPodAffinityArgs": lambda d: a.InterPodAffinityArgs(
        d.get("hardPodAffinityWeight", 0), d.get("ignorePreferredTermsOfExistingPods", False)),
    "NodeAffinityArgs": lambda d: a.NodeAffinityArgs(core_v1.node_affinity(d.get("addedAffinity"))),
    "NodeResourcesBalancedAllocationArgs": lambda d: a.NodeResourcesBalancedAllocationArgs(
        _resources(d.get("resources", []))),
    "NodeResourcesFitArgs": _typed_fit,
    "PodTopologySpreadArgs": lambda d: a.PodTopologySpreadArgs(
        tuple(core_v1.topology_spread_constraint(c) for c in d.get("defaultConstraints", [])),
        d.get("defaultingType", "")),
    "VolumeBindingArgs": lambda d: a.VolumeBindingArgs(
        d.get("bindTimeoutSeconds", 0), _shape(d.get("shape", []))),
}

_SET_DEFAULTS: dict[str, Callable[[Args, ReleaseData], None]] = {
    "DefaultPreemptionArgs": _set_defaults_default_preemption,
    "DynamicResourcesArgs": _set_defaults_dynamic_resources,
    "InterPodAffinityArgs": _set_defaults_inter_pod_affinity,
    "NodeAffinityArgs": _no_defaults,
    "NodeResourcesBalancedAllocationArgs": _set_defaults_balanced_allocation,
    "NodeResourcesFitArgs": _set_defaults_fit,
    "PodTopologySpreadArgs": _set_defaults_pod_topology_spread,
    "VolumeBindingArgs": _set_defaults_volume_binding,
}

VALIDATORS: dict[str, Callable[..., list[FieldError]]] = {
    "DefaultPreemptionArgs": validate_default_preemption,
    "DynamicResourcesArgs": validate_dynamic_resources,
    "InterPodAffinityArgs": validate_inter_pod_affinity,
    "NodeAffinityArgs": validate_node_affinity,
    "NodeResourcesBalancedAllocationArgs": validate_balanced_allocation,
    "NodeResourcesFitArgs": validate_fit,
    "PodTopologySpreadArgs": validate_pod_topology_spread,
    "VolumeBindingArgs": validate_volume_binding,
}

CONFIG_VALIDATED: dict[str, str] = {
    "DefaultPreemption": "DefaultPreemptionArgs",
    "InterPodAffinity": "InterPodAffinityArgs",
    "NodeAffinity": "NodeAffinityArgs",
    "NodeResourcesBalancedAllocation": "NodeResourcesBalancedAllocationArgs",
    "NodeResourcesFitArgs": "NodeResourcesFitArgs",
    "PodTopologySpread": "PodTopologySpreadArgs",
    "VolumeBinding": "VolumeBindingArgs",
    "DynamicResources": "DynamicResourcesArgs",
}
"""``validatePluginConfig``'s map: plugin name → the args kind its validation expects. Upstream
keys NodeResourcesFit's entry as "NodeResourcesFitArgs", so NodeResourcesFit's args are checked
only when the plugin is constructed; kept as is."""


def set_defaults(kind: str, obj: Args, release: ReleaseData = RELEASE) -> Args:
    """Applies the kind's ``SetDefaults_*`` of ``release`` to ``obj`` in place and returns it."""
    _SET_DEFAULTS[kind](obj, release)
    return obj


def validate(kind: str, obj: Args, path: str = "",
             release: ReleaseData = RELEASE) -> list[FieldError]:
    """The kind's ``Validate*Args`` of ``release``."""
    return VALIDATORS[kind](obj, path, release)


def to_typed(kind: str, obj: Args) -> Any:
    """The typed args (``config/args.py``) of a defaulted args dict."""
    return _TO_TYPED[kind](obj)


def args_schemas(release: ReleaseData = RELEASE) -> dict[str, Any]:
    """The v1 schema of each args kind as ``release`` defines it (``types_pluginargs.go`` of
    its ``k8s.io/kube-scheduler`` module). Switch ``dra-binding-timeout-default``: v0.34.4 has
    no ``DynamicResourcesArgs.bindingTimeout`` ("no-field"), so strict decoding rejects it as
    an unknown field; v0.35.4 and later have it ("gated": defaulted and allowed by gates)."""
    schemas = dict(PLUGIN_ARGS_SCHEMAS)
    if release.behaviour("dra-binding-timeout-default") == "no-field":
        schemas["DynamicResourcesArgs"] = {
            k: v for k, v in schemas["DynamicResourcesArgs"].items() if k != "bindingTimeout"}
    return schemas


def known_kinds(release: ReleaseData = RELEASE) -> frozenset[str]:
    """The args kinds the config scheme of ``release`` registers (those it has defaults for)."""
    return frozenset(release.plugin_args_defaults)
