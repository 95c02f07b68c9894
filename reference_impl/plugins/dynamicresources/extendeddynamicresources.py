"""Extended resources backed by DRA: a container request for an extended resource that a
DeviceClass maps (its ``spec.extendedResourceName`` or ``deviceclass.resource.kubernetes.io/
<class>``) and that a node does not advertise in ``status.allocatable`` is satisfied with
devices, through a special ResourceClaim the scheduler creates itself.

Upstream: ``pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go`` of
v1.37.2. PreFilter finds the pod's claim from an earlier cycle or makes one in memory
(``<extended-resources>``, no requests); Filter gives it, per node, one request per container
and extended resource served by DRA there; PreBind creates it with
``generateName: <pod>-extended-resources-`` and records it in the pod's
``status.extendedResourceClaimStatus``. The plugin's part is in ``dynamicresources.py``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from reference_impl.dra.extendedresourcecache import (
    RESOURCE_DEVICE_CLASS_PREFIX,
    ExtendedResourceCache,
)
from reference_impl.framework.types import NodeInfo
from reference_impl.model.dra import (
    ALLOCATION_MODE_EXACT_COUNT,
    DeviceRequest,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceClaimSpec,
)
from reference_impl.model.objects import Container, Pod
from reference_impl.model.requests import is_extended_resource_name, pod_requests

#: ``specialClaimInMemName``: not a valid object name, so it cannot clash with a real claim.
SPECIAL_CLAIM_IN_MEM_NAME = "<extended-resources>"
#: resourceapi.ExtendedResourceClaimAnnotation (staging/src/k8s.io/api/resource/v1/types.go)
EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"

__all__ = ["EXTENDED_RESOURCE_CLAIM_ANNOTATION", "RESOURCE_DEVICE_CLASS_PREFIX",
           "SPECIAL_CLAIM_IN_MEM_NAME", "ContainerExtendedResourceRequest",
           "ExtendedResourceCache", "create_requests_and_mappings",
           "find_extended_resource_claim", "generate_name_base",
           "has_device_class_mapped_extended_resource", "is_dra_extended_resource_name",
           "is_special_claim_name", "pod_scalar_resources"]


@dataclass(slots=True, frozen=True)
class ContainerExtendedResourceRequest:
    """``v1.ContainerExtendedResourceRequest``: which device request serves a container's
    extended resource."""

    container_name: str
    resource_name: str
    request_name: str


def is_dra_extended_resource_name(name: str) -> bool:
    """``IsDRAExtendedResourceName`` (pkg/scheduler/util/utils.go)."""
    return is_extended_resource_name(name) or name.startswith(RESOURCE_DEVICE_CLASS_PREFIX)


def is_special_claim_name(name: str) -> bool:
    """``isSpecialClaimName``."""
    return name == SPECIAL_CLAIM_IN_MEM_NAME


def generate_name_base(pod: Pod) -> str:
    """The ``generateName`` of the pod's extended resource claim."""
    return pod.name + "-extended-resources-"


def pod_scalar_resources(pod: Pod) -> dict[str, int]:
    """``framework.NewResource(resourcehelper.PodRequests(pod, {})).ScalarResources``: the
    pod's requests without status resources, scalar ones as integers (``Value``: rounded
    up)."""
    return {name: math.ceil(q) for name, q in pod_requests(pod, use_status_resources=False).items()
            if name not in ("cpu", "memory", "ephemeral-storage", "pods")}


def has_device_class_mapped_extended_resource(requests: Mapping[str, int],
                                              cache: ExtendedResourceCache) -> bool:
    """``hasDeviceClassMappedExtendedResource``: a non-zero request of a DRA extended
    resource name some DeviceClass maps."""
    return any(q and is_dra_extended_resource_name(name)
               and cache.get_device_class(name) is not None
               for name, q in requests.items())


def find_extended_resource_claim(pod: Pod, claims: Iterable[ResourceClaim]
                                 ) -> ResourceClaim | None:
    """``findExtendedResourceClaim``: a claim with the extended-resource annotation
    ``"true"`` whose controller is the pod."""
    for c in claims:
        if dict(c.annotations).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) == "true" \
                and c.owner_pod_uid == pod.uid:
            return c
    return None


def in_memory_claim(pod: Pod) -> ResourceClaim:
    """The claim ``preFilterExtendedResources`` makes when none exists: no requests, a
    temporary uid (upstream a random one; here derived from the pod's)."""
    return ResourceClaim(
        namespace=pod.namespace, name=SPECIAL_CLAIM_IN_MEM_NAME,
        uid=f"{pod.uid}{SPECIAL_CLAIM_IN_MEM_NAME}",
        annotations=((EXTENDED_RESOURCE_CLAIM_ANNOTATION, "true"),), owner_pod_uid=pod.uid)


def served_by_dra(scalars: Mapping[str, int], node_info: NodeInfo,
                  cache: ExtendedResourceCache) -> tuple[dict[str, int], str | None]:
    """The loop of ``filterExtendedResources``: the extended resources the node must give
    through DRA (a class maps them and the node's allocatable has none: a node that
    advertises the resource serves it with its device plugin), or the first resource neither
    the node advertises (even as 0) nor a class maps (upstream's map order; here by name)."""
    allocatable = node_info.node.allocatable.scalar
    out: dict[str, int] = {}
    for name, q in sorted(scalars.items()):
        if not is_dra_extended_resource_name(name) or q == 0:
            continue
        if cache.get_device_class(name) is not None and allocatable.get(name, 0) == 0:
            out[name] = q
        elif name not in allocatable:
            return {}, name
    return out, None


def node_claim(claim: ResourceClaim, requests: Sequence[DeviceRequest]) -> ResourceClaim:
    """The node's variant of the special claim (``filterExtendedResources``)."""
    return dataclasses.replace(claim, spec=ResourceClaimSpec(requests=tuple(requests)))


def _partition_container_indices(containers: Sequence[Container], num_init: int
                                 ) -> tuple[list[int], list[int]]:
    """``partitionContainerIndices``: long-lived (sidecars, regular containers) and
    short-lived (other init containers) indices into init containers + containers."""
    long_lived: list[int] = []
    short_lived: list[int] = []
    for i, c in enumerate(containers):
        if i < num_init and c.restart_policy != "Always":
            short_lived.append(i)
        else:
            long_lived.append(i)
    return long_lived, short_lived


def _create_resource_request_and_mappings(
        index: int, container: Container, resource: str, class_name: str,
        reusable: Sequence[DeviceRequest | None]
) -> tuple[DeviceRequest | None, list[ContainerExtendedResourceRequest]]:
    """``createResourceRequestAndMappings``: the container's request for ``resource``
    (``container-<index>-request-<i>``, i the resource's index among the container's sorted
    request names), after using the reusable requests; None when they suffice."""
    requests = dict(container.requests)
    if resource not in requests:
        return None, []
    q = requests[resource]
    if q.denominator != 1 or q == 0:
        return None, []
    want = int(q)
    mappings: list[ContainerExtendedResourceRequest] = []
    total = 0
    for r in reusable:
        if r is not None and r.exactly is not None:
            total += r.exactly.count
            mappings.append(ContainerExtendedResourceRequest(container.name, resource, r.name))
            if total >= want:
                return None, mappings
    ridx = sorted(requests).index(resource)
    name = f"container-{index}-request-{ridx}"
    request = DeviceRequest(name=name, exactly=ExactDeviceRequest(
        device_class_name=class_name, allocation_mode=ALLOCATION_MODE_EXACT_COUNT,
        count=want - total))
    mappings.append(ContainerExtendedResourceRequest(container.name, resource, name))
    return request, mappings


def create_requests_and_mappings(pod: Pod, extended: Mapping[str, int],
                                 cache: ExtendedResourceCache
                                 ) -> tuple[list[DeviceRequest],
                                            list[ContainerExtendedResourceRequest]]:
    """``createRequestsAndMappings``: per resource (sorted), one request per long-lived
    container; short-lived init containers reuse the long-lived requests of later containers
    and need only the largest of their own extra requests. The requests sorted by name."""
    containers = (*pod.init_containers, *pod.containers)
    long_idx, short_idx = _partition_container_indices(containers, len(pod.init_containers))
    requests: list[DeviceRequest] = []
    mappings: list[ContainerExtendedResourceRequest] = []
    for resource in sorted(extended):
        cls = cache.get_device_class(resource)
        if cls is None:
            continue
        long_mappings: list[ContainerExtendedResourceRequest] = []
        short_mappings: list[ContainerExtendedResourceRequest] = []
        long_requests: list[DeviceRequest | None] = [None] * len(containers)
        for i in long_idx:
            req, m = _create_resource_request_and_mappings(i, containers[i], resource,
                                                           cls.name, [])
            long_requests[i] = req
            long_mappings.extend(m)
        max_short: DeviceRequest | None = None
        short_names: set[str] = set()
        for i in short_idx:
            req, m = _create_resource_request_and_mappings(i, containers[i], resource,
                                                           cls.name, long_requests[i:])
            if req is not None and req.exactly is not None:
                short_names.add(req.name)
                if max_short is None or (max_short.exactly is not None
                                         and max_short.exactly.count < req.exactly.count):
                    max_short = req
            short_mappings.extend(m)
        if max_short is not None and len(short_names) > 1:
            short_names.discard(max_short.name)
            short_mappings = [dataclasses.replace(m, request_name=max_short.name)
                              if m.request_name in short_names else m for m in short_mappings]
        if max_short is not None:
            requests.append(max_short)
        requests.extend(r for r in long_requests if r is not None)
        mappings.extend(long_mappings)
        mappings.extend(short_mappings)
    requests.sort(key=lambda r: r.name)
    return requests, mappings
