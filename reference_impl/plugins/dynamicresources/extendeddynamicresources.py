"""Extended resources backed by DRA: a container request for ``deviceclass.resource.
kubernetes.io/<class>`` (or a DeviceClass's ``extendedResourceName``) that the scheduler
satisfies with a special ResourceClaim it creates itself.

Upstream: ``pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go`` of
v1.37.2. Not modelled yet: a pod that requests a resource some DeviceClass maps gets an Error
status at PreFilter (docs/dra.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from reference_impl.model.dra import DeviceClass
from reference_impl.model.objects import Pod

# resourceapi.ResourceDeviceClassPrefix (k8s.io/api/resource/v1/types.go).
RESOURCE_DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"


def _requested(pod: Pod) -> list[str]:
    """The resources the pod requests with a non-zero quantity (containers, init containers,
    overhead; limits count too, as they default the requests of extended resources)."""
    names = [name for group in (pod.containers, pod.init_containers) for c in group
             for name, q in (*c.requests, *c.limits) if q]
    return names + [name for name, q in pod.overhead if q]


def device_class_extended_resource(pod: Pod) -> str | None:
    """The first ``deviceclass.resource.kubernetes.io/<class>`` resource the pod requests,
    or None."""
    return next((n for n in _requested(pod) if n.startswith(RESOURCE_DEVICE_CLASS_PREFIX)),
                None)


def device_class_for(name: str, classes: Mapping[str, DeviceClass]) -> DeviceClass | None:
    """``DeviceClassResolver.GetDeviceClass``: the class whose ``extendedResourceName`` is
    ``name``, or for ``deviceclass.resource.kubernetes.io/<class>`` that class (the
    extended resource cache maps both; the explicit name first)."""
    for cls in classes.values():
        if cls.extended_resource_name == name:
            return cls
    if name.startswith(RESOURCE_DEVICE_CLASS_PREFIX):
        return classes.get(name[len(RESOURCE_DEVICE_CLASS_PREFIX):])
    return None


def dra_backed_extended_resource(pod: Pod, classes: Mapping[str, DeviceClass]) -> str | None:
    """``hasDeviceClassMappedExtendedResource``: the first requested resource a DeviceClass
    maps, or None."""
    return next((n for n in _requested(pod) if device_class_for(n, classes) is not None), None)
