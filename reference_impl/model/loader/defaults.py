"""Defaulting and admission steps of the manifest loader that stand on their own: the built-in
PriorityClasses and the Priority admission plugin (plugin/pkg/admission/priority/admission.go),
matchLabelKeys merging (pkg/registry/core/pod/strategy.go), pod-level resources defaulting
(pkg/api/pod/util.go), the namespace name label and deterministic uids. The one-line defaults
(``SetDefaults_Pod``, ``SetDefaults_NodeStatus``, ...) are applied where their field is decoded.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from reference_impl.model.decoding import (
    InputLocation,
    read_enum,
    read_int,
    read_str,
)
from reference_impl.model.objects import (
    Container,
    LabelSelector,
    LabelSelectorRequirement,
    Pod,
    PriorityClass,
)
from reference_impl.model.requests import (
    aggregate_container_limits,
    aggregate_container_requests,
    is_hugepage_resource_name,
    is_native_resource,
    is_supported_pod_level_resource,
)

PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPT_NEVER = "Never"

# pkg/apis/scheduling/types.go: SystemCriticalPriority = 2 * HighestUserDefinablePriority;
# the two built-in classes exist in every cluster (registry/scheduling/rest/storage_scheduling.go).
SYSTEM_CRITICAL_PRIORITY = 2 * 1_000_000_000
SYSTEM_PRIORITY_CLASSES: dict[str, PriorityClass] = {
    "system-node-critical": PriorityClass("system-node-critical", SYSTEM_CRITICAL_PRIORITY + 1000),
    "system-cluster-critical": PriorityClass("system-cluster-critical", SYSTEM_CRITICAL_PRIORITY),
}

LABEL_METADATA_NAME = "kubernetes.io/metadata.name"

_UID_NAMESPACE = uuid.UUID("6f1c2b8e-1d7a-4c55-9a61-3a0f6d3e6b10")


def _merge_label_keys(selector: LabelSelector | None, keys: tuple[str, ...], op: str,
                      labels: Mapping[str, str]) -> LabelSelector | None:
    """``applyLabelKeysToLabelSelector`` (pkg/registry/core/pod/strategy.go): for each key the
    pod has a label for, add ``key op (value)``; skipped for a nil selector. A requirement
    already present (a stored pod was mutated on creation) is not added again."""
    if selector is None or not keys:
        return selector
    exprs = list(selector.match_expressions)
    for key in keys:
        if key in labels:
            req = LabelSelectorRequirement(key, op, (labels[key],))
            if req not in exprs:
                exprs.append(req)
    return LabelSelector(selector.match_labels, tuple(exprs))


def _default_pod_level_resources(containers: tuple[Container, ...],
                                 init_containers: tuple[Container, ...],
                                 requests: dict[str, Fraction],
                                 limits: dict[str, Fraction]) -> None:
    """``DefaultPodLevelResources`` (pkg/api/pod/util.go), hugepage limits and requests parts,
    applied when spec.resources has requests or limits."""
    if not requests and not limits:
        return
    shell = Pod(namespace="", name="", uid="", containers=containers,
                init_containers=init_containers)
    # defaultHugePagePodLevelLimits
    for name, q in aggregate_container_limits(shell).items():
        if not (is_supported_pod_level_resource(name) and is_hugepage_resource_name(name)):
            continue
        if name in requests:
            continue
        limits.setdefault(name, q)
    # defaultPodLevelRequests: overcommittable supported resources from the containers, then
    # the pod-level limits
    for name, q in aggregate_container_requests(shell).items():
        if (name not in requests and is_supported_pod_level_resource(name)
                and is_native_resource(name) and not is_hugepage_resource_name(name)):
            requests[name] = q
    for name, q in limits.items():
        if name not in requests and is_supported_pod_level_resource(name):
            requests[name] = q


def _deterministic_uid(kind: str, namespace: str, name: str) -> str:
    return str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{namespace}/{name}"))


def _global_default_class(classes: Mapping[str, PriorityClass]) -> PriorityClass | None:
    """``getDefaultPriorityClass`` (admission/priority): among globalDefault classes the one
    with the lowest value."""
    best = None
    for pc in classes.values():
        if pc.global_default and (best is None or best.value > pc.value):
            best = pc
    return best


def _admit_priority(ctx: InputLocation, spec: Mapping[str, Any],
                    classes: Mapping[str, PriorityClass],
                    default_pc: PriorityClass | None) -> tuple[str, int, str]:
    """A pod's (priorityClassName, priority, preemptionPolicy) as the Priority admission plugin
    sets them (``establishPriority``, plugin/pkg/admission/priority/admission.go)."""
    pc_name = read_str(ctx, spec.get("priorityClassName"), "spec.priorityClassName")
    spec_priority = read_int(ctx, spec.get("priority"), "spec.priority")
    preemption_policy = read_enum(ctx, spec.get("preemptionPolicy"), "spec.preemptionPolicy",
                                  (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER))
    # The class that applies (admission/priority): the named one, or without a name the global
    # default, also when the pod gives spec.priority (admission only checks that they agree); an
    # explicit spec.priority (as in a dump of admitted pods) is kept as is.
    pc: PriorityClass | None = None
    if pc_name:
        pc = classes.get(pc_name) or SYSTEM_PRIORITY_CLASSES.get(pc_name)
        if pc is None and spec_priority is None:
            raise ctx.error("spec.priorityClassName",
                            f"no PriorityClass with name {pc_name!r} was found (known: "
                            + (", ".join(sorted(classes)) or "none") + ")")
    elif default_pc is not None:
        pc = default_pc
        pc_name = pc.name
    if spec_priority is not None:
        priority = spec_priority
    elif pc is not None:
        priority = pc.value
    else:
        priority = 0  # scheduling.DefaultPriorityWhenNoDefaultClassExists
    if preemption_policy is None:
        preemption_policy = pc.preemption_policy if pc is not None else PREEMPT_LOWER_PRIORITY
    return pc_name, priority, preemption_policy
