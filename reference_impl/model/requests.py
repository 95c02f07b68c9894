"""A pod's effective resource requests, host ports, and their scheduler-unit form.

Upstream: ``staging/src/k8s.io/component-helpers/resource/helpers.go`` (PodRequests,
AggregateContainerRequests (aggregateContainerResourcesByFn), applyNonMissing,
IsPodLevelRequestsSet, IsSupportedPodLevelResource, the in-place resize accounting:
containerAllocatedRequests, containerActuatedRequests, findContainerStatus, IsPodResizeInfeasible,
effectivePodLevelResources; v1.34.4-v1.36.3: ``SUM_OF_MAXES``); ``pkg/scheduler/framework/types.go``
(PodInfo.CalculateResource, getNonMissingContainerRequests, Resource.Add,
Resource.SetMaxResource); ``pkg/scheduler/util/pod_resources.go`` (DefaultMilliCPURequest,
DefaultMemoryRequest), ``pkg/scheduler/util/utils.go`` (IsScalarResourceName, GetHostPorts);
``pkg/apis/core/v1/helper/helpers.go`` (IsExtendedResourceName & co).
Exactness and what is not modelled: docs/reference.md#pod-requests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from fractions import Fraction

from reference_impl.model.objects import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    Container,
    ContainerPort,
    ContainerStatus,
    Pod,
    PodResources,
    Resource,
)
from reference_impl.model.quantity import milli_value, value
from reference_impl.model.validation import is_qualified_name

# pkg/scheduler/util/pod_resources.go
DEFAULT_MILLI_CPU_REQUEST = 100  # 0.1 core
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # 200 MB

# The NonMissingContainerRequests the scheduler uses (e.g. resource_allocation.go when not
# useRequested): cpu 100m, memory 200Mi.
DEFAULT_NON_MISSING: dict[str, Fraction] = {
    CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
    MEMORY: Fraction(DEFAULT_MEMORY_REQUEST),
}

# k8s.io/api/core/v1/types.go
RESOURCE_HUGEPAGES_PREFIX = "hugepages-"
RESOURCE_ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"
RESOURCE_DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
DEFAULT_RESOURCE_REQUESTS_PREFIX = "requests."
CONTAINER_RESTART_POLICY_ALWAYS = "Always"
POD_REASON_INFEASIBLE = "Infeasible"  # the PodResizePending condition's reasons
POD_REASON_DEFERRED = "Deferred"

ResourceList = dict[str, Fraction]

# The variants of the behaviour switch resize-requests-aggregation
# (reference_impl/releases/behaviours.py, kubernetes/kubernetes#140047): how a pod with status
# resources (an in-place resize) counts. v1.37.2 (MAX_OF_SUMS): the containers' spec, allocated
# and actuated requests are each aggregated (sidecar formula, every container's status read,
# the pod-level status used when set), then the per-resource max is taken; a container
# without status counts nothing when the resize is Infeasible. v1.34.4-v1.36.3
# (SUM_OF_MAXES): each regular and sidecar container whose status has ``resources`` counts at
# max(spec, actuated, allocated) (Infeasible: max(actuated, allocated)), any other container
# at its spec, and those are aggregated; the pod-level status is read by PodRequests only.
MAX_OF_SUMS = "max-of-sums"
SUM_OF_MAXES = "sum-of-maxes"

__all__ = [
    "DEFAULT_MILLI_CPU_REQUEST",
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_NON_MISSING",
    "pod_requests",
    "aggregate_container_requests",
    "aggregate_container_limits",
    "pod_limits",
    "is_supported_pod_level_resource",
    "is_pod_level_requests_set",
    "is_pod_level_resources_set",
    "is_restartable_init_container",
    "is_pod_resize_infeasible",
    "non_missing_container_requests",
    "compute_pod_resources",
    "recounted",
    "MAX_OF_SUMS",
    "SUM_OF_MAXES",
    "to_resource",
    "max_resource",
    "is_scalar_resource_name",
    "is_extended_resource_name",
    "host_ports",
]


# --- resource names (pkg/apis/core/v1/helper/helpers.go) ----------------------------------


def is_prefixed_native_resource(name: str) -> bool:
    """``IsPrefixedNativeResource``: the name is in the *kubernetes.io/ namespace."""
    return RESOURCE_DEFAULT_NAMESPACE_PREFIX in name


def is_native_resource(name: str) -> bool:
    """``IsNativeResource``: unprefixed, or in the *kubernetes.io/ namespace."""
    return "/" not in name or is_prefixed_native_resource(name)


def is_extended_resource_name(name: str) -> bool:
    """``IsExtendedResourceName``: not native, not ``requests.*``, and ``requests.<name>`` is a
    qualified name."""
    if is_native_resource(name) or name.startswith(DEFAULT_RESOURCE_REQUESTS_PREFIX):
        return False
    return len(is_qualified_name(DEFAULT_RESOURCE_REQUESTS_PREFIX + name)) == 0


def is_hugepage_resource_name(name: str) -> bool:
    """``IsHugePageResourceName``."""
    return name.startswith(RESOURCE_HUGEPAGES_PREFIX)


def is_attachable_volume_resource_name(name: str) -> bool:
    """``IsAttachableVolumeResourceName``."""
    return name.startswith(RESOURCE_ATTACHABLE_VOLUMES_PREFIX)


_SCALAR_CACHE: dict[str, bool] = {}


def is_scalar_resource_name(name: str) -> bool:
    """``schedutil.IsScalarResourceName`` (pkg/scheduler/util/utils.go): extended, hugepages,
    prefixed native (``*kubernetes.io/*``) or attachable-volumes resources."""
    found = _SCALAR_CACHE.get(name)
    if found is None:
        found = (is_extended_resource_name(name) or is_hugepage_resource_name(name)
                 or is_prefixed_native_resource(name) or is_attachable_volume_resource_name(name))
        _SCALAR_CACHE[name] = found
    return found


# --- PodRequests (component-helpers/resource/helpers.go) -------------------------------------

def is_supported_pod_level_resource(name: str) -> bool:
    """``IsSupportedPodLevelResource``: cpu, memory and hugepages-*."""
    return name == CPU or name == MEMORY or name.startswith(RESOURCE_HUGEPAGES_PREFIX)


def is_pod_level_requests_set(pod: Pod) -> bool:
    """``IsPodLevelRequestsSet``: spec.resources.requests names a supported resource."""
    return any(is_supported_pod_level_resource(n) for n, _ in pod.pod_level_requests)


def is_pod_level_resources_set(pod: Pod) -> bool:
    """``IsPodLevelResourcesSet``: spec.resources requests or limits name a supported
    resource."""
    return (is_pod_level_requests_set(pod)
            or any(is_supported_pod_level_resource(n) for n, _ in pod.pod_level_limits))


def is_restartable_init_container(container: Container) -> bool:
    """``isRestartableInitContainer``: an init container with restartPolicy Always (sidecar)."""
    return container.restart_policy == CONTAINER_RESTART_POLICY_ALWAYS


def _add(into: ResourceList, items: Iterable[tuple[str, Fraction]]) -> None:
    """``addResourceList``."""
    for name, q in items:
        cur = into.get(name)
        into[name] = q if cur is None else cur + q  # q alone: 0 + q is q, without the sum


def _max_into(into: ResourceList, items: Iterable[tuple[str, Fraction]]) -> None:
    """``maxResourceList``: set each resource of ``items`` to the greater value."""
    for name, q in items:
        cur = into.get(name)
        if cur is None or q > cur:
            into[name] = q


def _apply_non_missing(reqs: tuple[tuple[str, Fraction], ...],
                       non_missing: Mapping[str, Fraction]) -> ResourceList:
    """``applyNonMissing``: a copy of ``reqs`` plus the ``non_missing`` value of every resource
    the container does not name (a request explicitly set, even to zero, is kept)."""
    out = dict(reqs)
    for name, q in non_missing.items():
        if name not in out:
            out[name] = q
    return out


def is_pod_resize_infeasible(pod: Pod) -> bool:
    """``IsPodResizeInfeasible``: the (first) PodResizePending condition says Infeasible."""
    return pod.resize_pending_reason == POD_REASON_INFEASIBLE


def _find_container_status(pod: Pod, name: str) -> ContainerStatus | None:
    """``findContainerStatus``: status.containerStatuses first, then
    status.initContainerStatuses, by container name."""
    for cs in pod.container_statuses:
        if cs.name == name:
            return cs
    for cs in pod.init_container_statuses:
        if cs.name == name:
            return cs
    return None


# What a container counts for (the getResourceList functions of aggregateContainerResourcesByFn).
SPEC, ALLOCATED, ACTUATED, LIMITS = "spec", "allocated", "actuated", "limits"
#: v1.34.4-v1.36.3 (SUM_OF_MAXES): the effective requests of each container
EFFECTIVE = "effective"


def _effective_requests(c: Container, cs: ContainerStatus | None, init: bool,
                        infeasible: bool) -> tuple[tuple[str, Fraction], ...]:
    """v1.34.4-v1.36.3 AggregateContainerRequests with UseStatusResources
    (component-helpers v0.34.4 determineContainerReqs, v0.35.4/v0.36.3
    determineEffectiveRequests): a regular or restartable init container whose status has
    ``resources`` counts at max(spec, actuated, allocated), or max(actuated, allocated) when
    the resize is Infeasible; any other container (a plain init container always) at its
    spec."""
    if cs is None or not cs.has_resources or (init and not is_restartable_init_container(c)):
        return c.requests
    if infeasible:
        return tuple(_max_of(cs.requests, cs.allocated_resources).items())
    return tuple(_max_of(c.requests, cs.requests, cs.allocated_resources).items())


def _container_resources(c: Container, cs: ContainerStatus | None, source: str,
                         infeasible: bool, init: bool) -> tuple[tuple[str, Fraction], ...]:
    """containerSpecRequests / containerAllocatedRequests / containerActuatedRequests (and the
    spec limits, and v1.34.4-v1.36.3's per-container effective requests)."""
    if source == LIMITS:
        return c.limits
    if source == EFFECTIVE:
        return _effective_requests(c, cs, init, infeasible)
    if source == ACTUATED and cs is not None and cs.requests is not None:
        return cs.requests
    if source in (ALLOCATED, ACTUATED):
        if cs is not None and cs.allocated_resources is not None:
            return cs.allocated_resources
        if infeasible:
            return ()
    return c.requests


def _aggregate(pod: Pod, non_missing: Mapping[str, Fraction] | None, source: str,
               use_status: bool = False) -> ResourceList:
    """``aggregateContainerResourcesByFn`` with spec requests (or limits, or what the
    container status says was allocated or actuated; ``use_status`` is
    ``UseStatusResources``, which looks the container statuses up).

    Regular containers are summed; restartable init containers (sidecars) are added to that
    sum too. Each init container i needs (its own resources + the sidecars started before it)
    while it runs, and a sidecar needs the sum of all sidecars up to it; the pod needs the
    per-resource max of the running sum and those init-phase peaks.
    """
    infeasible = use_status and is_pod_resize_infeasible(pod)

    def resources_of(c: Container, init: bool) -> Iterable[tuple[str, Fraction]]:
        cs = _find_container_status(pod, c.name) if use_status else None
        items = _container_resources(c, cs, source, infeasible, init)
        if non_missing:
            return _apply_non_missing(items, non_missing).items()
        return items

    result: ResourceList = {}
    for c in pod.containers:
        _add(result, resources_of(c, False))

    restartable: ResourceList = {}
    init_peak: ResourceList = {}
    for c in pod.init_containers:
        res = resources_of(c, True)
        if is_restartable_init_container(c):
            _add(result, res)
            _add(restartable, res)
            current: Iterable[tuple[str, Fraction]] = restartable.items()
        else:
            combined: ResourceList = {}
            _add(combined, res)
            _add(combined, restartable.items())
            current = combined.items()
        _max_into(init_peak, current)
    _max_into(result, init_peak.items())
    return result


def _max_of(*lists: Iterable[tuple[str, Fraction]] | None) -> ResourceList:
    """``max(a, b...)``: per resource the greatest value any list gives (a nil list gives
    nothing)."""
    out: ResourceList = {}
    for items in lists:
        if items is not None:
            _max_into(out, items)
    return out


def aggregate_container_requests(pod: Pod, *,
                                 non_missing: Mapping[str, Fraction] | None = None,
                                 use_status_resources: bool = True,
                                 pod_level_status: bool = True,
                                 resize_rule: str = MAX_OF_SUMS) -> ResourceList:
    """``AggregateContainerRequests``: containers, sidecars and init containers per the
    sidecar KEP formula, ``non_missing`` applied per container.

    With ``use_status_resources`` (``UseStatusResources``: the InPlacePodVerticalScaling gate,
    GA and locked on in v1.37.2) a resized pod counts at the per-resource max of its spec,
    allocated and actuated requests; the latter two are the pod-level status.allocatedResources
    and status.resources.requests when both are set and ``pod_level_status``
    (InPlacePodLevelResourcesVerticalScaling) is on, else the containers' statuses
    aggregated. When the resize is Infeasible the spec is left out of the max. That is
    ``resize_rule`` MAX_OF_SUMS; SUM_OF_MAXES (v1.34.4-v1.36.3) aggregates each container's
    own max instead and never reads the pod-level status (see ``SUM_OF_MAXES``).
    """
    if use_status_resources and resize_rule == SUM_OF_MAXES:
        return _aggregate(pod, non_missing, EFFECTIVE, use_status=True)
    spec = _aggregate(pod, non_missing, SPEC)
    if not use_status_resources:
        return spec
    if (pod_level_status and pod.status_allocated_resources is not None
            and pod.status_requests is not None):
        allocated: ResourceList = dict(pod.status_allocated_resources)
        actuated: ResourceList = dict(pod.status_requests)
    elif (not pod.container_statuses and not pod.init_container_statuses
          and not is_pod_resize_infeasible(pod)):
        # no container status to read: the allocated and actuated aggregates are the spec's
        # (_container_resources falls back to the spec), and the max of three equal lists is
        # the spec
        return spec
    else:
        allocated = _aggregate(pod, non_missing, ALLOCATED, use_status=True)
        actuated = _aggregate(pod, non_missing, ACTUATED, use_status=True)
    if is_pod_resize_infeasible(pod):
        return _max_of(actuated.items(), allocated.items())
    return _max_of(spec.items(), actuated.items(), allocated.items())


def aggregate_container_limits(pod: Pod) -> ResourceList:
    """``AggregateContainerLimits`` (without status resources): container limits aggregated
    like requests."""
    return _aggregate(pod, None, LIMITS)


def pod_requests(pod: Pod, *, non_missing: Mapping[str, Fraction] | None = None,
                 pod_level_resources: bool = True,
                 exclude_overhead: bool = False,
                 use_status_resources: bool = True,
                 pod_level_status: bool = True,
                 resize_rule: str = MAX_OF_SUMS) -> ResourceList:
    """``PodRequests`` (component-helpers/resource/helpers.go).

    The aggregate of the containers (``aggregate_container_requests``: with
    ``use_status_resources``, a resized pod counts at the larger of its spec and status);
    then, if the PodLevelResources gate is on (``pod_level_resources``) and
    spec.resources.requests names a supported resource, each supported pod-level request
    replaces the aggregate value of that resource (``effectivePodLevelResources``: with both
    status options and status.resources set, the max of spec.resources.requests, left out
    when the resize is Infeasible, status.resources.requests and status.allocatedResources);
    then the pod overhead is added (unless ``exclude_overhead``). With ``resize_rule``
    SUM_OF_MAXES (v1.35.4/v1.36.3 PodRequests) each supported resource of
    spec.resources.requests takes its value in max(spec, status.resources.requests,
    status.allocatedResources) (Infeasible: without the spec), zero when that lacks it, and
    no other resource is replaced.

    The scheduler passes ``use_status_resources`` everywhere but in NodeResourcesFit's
    PreFilter (``computePodResourceRequest``: the pod is not scheduled yet) and its
    DeviceClass hints (empty options).
    """
    reqs = aggregate_container_requests(pod, non_missing=non_missing,
                                        use_status_resources=use_status_resources,
                                        pod_level_status=pod_level_status,
                                        resize_rule=resize_rule)
    if pod_level_resources and is_pod_level_requests_set(pod):
        effective: Iterable[tuple[str, Fraction]] = pod.pod_level_requests
        if pod_level_status and use_status_resources and pod.status_resources:
            spec = None if is_pod_resize_infeasible(pod) else pod.pod_level_requests
            status_max = _max_of(spec, pod.status_requests, pod.status_allocated_resources)
            effective = (status_max.items() if resize_rule == MAX_OF_SUMS else
                         [(name, status_max.get(name, Fraction(0)))
                          for name, _ in pod.pod_level_requests])
        for name, q in effective:
            if is_supported_pod_level_resource(name):
                reqs[name] = q
    if not exclude_overhead and pod.overhead:
        _add(reqs, pod.overhead)
    return reqs


def pod_limits(pod: Pod, *, pod_level_resources: bool = True,
               exclude_overhead: bool = False) -> ResourceList:
    """``PodLimits`` (without status resources): aggregated container limits, supported
    pod-level limits replacing them when pod-level resources are set, overhead added to the
    non-zero limits only."""
    limits = aggregate_container_limits(pod)
    if pod_level_resources and is_pod_level_resources_set(pod):
        for name, q in pod.pod_level_limits:
            if is_supported_pod_level_resource(name):
                limits[name] = q
    if not exclude_overhead:
        for name, q in pod.overhead:
            cur = limits.get(name)
            if cur is not None and cur != 0:
                limits[name] = cur + q
    return limits


# --- scheduler units (pkg/scheduler/framework/types.go) --------------------------------------

def to_resource(reqs: Mapping[str, Fraction]) -> Resource:
    """``NewResource`` / ``Resource.Add``: cpu in MilliValue, memory, ephemeral-storage and
    pods in Value, scalar resources (see ``is_scalar_resource_name``) in Value; other names
    are dropped. A scalar resource is recorded even when its value is zero."""
    r = Resource()
    for name, q in reqs.items():
        if name == CPU:
            r.milli_cpu += milli_value(q)
        elif name == MEMORY:
            r.memory += value(q)
        elif name == PODS:
            r.allowed_pod_number += value(q)
        elif name == EPHEMERAL_STORAGE:
            r.ephemeral_storage += value(q)
        elif is_scalar_resource_name(name):
            r.scalar[name] = r.scalar.get(name, 0) + value(q)
    return r


def max_resource(reqs: Mapping[str, Fraction], into: Resource | None = None) -> Resource:
    """``Resource.SetMaxResource`` (on a new Resource unless ``into`` is given): per resource
    the max of the current and the new value. Unlike ``Resource.Add`` it ignores ``pods``."""
    r = Resource() if into is None else into
    for name, q in reqs.items():
        if name == MEMORY:
            r.memory = max(r.memory, value(q))
        elif name == CPU:
            r.milli_cpu = max(r.milli_cpu, milli_value(q))
        elif name == EPHEMERAL_STORAGE:
            r.ephemeral_storage = max(r.ephemeral_storage, value(q))
        elif is_scalar_resource_name(name):
            r.scalar[name] = max(r.scalar.get(name, 0), value(q))
    return r


def non_missing_container_requests(requests: Mapping[str, Fraction],
                                   pod_level_requests_set: bool) -> ResourceList:
    """``getNonMissingContainerRequests`` (framework/types.go).

    Without pod-level requests: cpu 100m and memory 200Mi. With them: the default for cpu
    (memory) only if the computed pod requests have no cpu (memory) entry at all.
    """
    if not pod_level_requests_set:
        return dict(DEFAULT_NON_MISSING)
    out: ResourceList = {}
    if CPU not in requests:
        out[CPU] = DEFAULT_NON_MISSING[CPU]
    if MEMORY not in requests:
        out[MEMORY] = DEFAULT_NON_MISSING[MEMORY]
    return out


def compute_pod_resources(pod: Pod, *, pod_level_resources: bool = True,
                          pod_level_status: bool = True,
                          resize_rule: str = MAX_OF_SUMS) -> PodResources:
    """``PodInfo.CalculateResource`` (framework/types.go).

    ``requests``: PodRequests in scheduler units. ``non0_cpu``/``non0_mem``: cpu/memory of
    PodRequests recomputed with the default requests for containers that set none (see
    ``non_missing_container_requests``), used by the scoring plugins and NodeInfo's
    NonZeroRequested. ``pod_level_status``: the InPlacePodLevelResourcesVerticalScaling gate
    (v1.35.4 on; v1.34.4's CalculateResource has no such option, as off). ``resize_rule``:
    the release's variant of the switch resize-requests-aggregation (``MAX_OF_SUMS``).
    """
    requests = pod_requests(pod, pod_level_resources=pod_level_resources,
                            pod_level_status=pod_level_status, resize_rule=resize_rule)
    plr_set = pod_level_resources and is_pod_level_requests_set(pod)
    non_missing = non_missing_container_requests(requests, plr_set)
    non0 = requests
    if non_missing:
        non0 = pod_requests(pod, non_missing=non_missing, pod_level_resources=pod_level_resources,
                            pod_level_status=pod_level_status, resize_rule=resize_rule)
    cpu, mem = non0.get(CPU), non0.get(MEMORY)  # an absent resource counts 0
    return PodResources(
        requests=to_resource(requests),
        non0_cpu=0 if cpu is None else milli_value(cpu),
        non0_mem=0 if mem is None else value(mem),
    )


def recounted(pod: Pod, *, pod_level_status: bool, resize_rule: str) -> Pod:
    """``pod`` with its resources as a release's ``PodInfo.CalculateResource`` counts them
    (``pod_level_status``: its InPlacePodLevelResourcesVerticalScaling gate; ``resize_rule``:
    its variant of the switch resize-requests-aggregation); the loader counted them as the
    pinned release does (both on, MAX_OF_SUMS). The same object when nothing changes."""
    if pod_level_status and resize_rule == MAX_OF_SUMS:
        return pod
    resources = compute_pod_resources(pod, pod_level_status=pod_level_status,
                                      resize_rule=resize_rule)
    return pod if resources == pod.resources else replace(pod, resources=resources)


# --- host ports (pkg/scheduler/util/utils.go) ------------------------------------------------

def host_ports(pod: Pod) -> tuple[ContainerPort, ...]:
    """``GetHostPorts``: the ports with hostPort > 0 of the restartable init containers
    (sidecars, which run for the pod's whole life), then of the regular containers. Plain init
    containers are not counted."""
    ports: list[ContainerPort] = []
    for c in pod.init_containers:
        if not is_restartable_init_container(c):
            continue
        ports.extend(p for p in c.ports if p.host_port > 0)
    for c in pod.containers:
        ports.extend(p for p in c.ports if p.host_port > 0)
    return tuple(ports)
