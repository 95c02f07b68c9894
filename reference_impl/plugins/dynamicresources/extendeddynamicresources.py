"""Extended resources backed by DRA: a container request for ``deviceclass.resource.
kubernetes.io/<class>`` (or a DeviceClass's ``extendedResourceName``) that the scheduler
satisfies with a special ResourceClaim it creates itself.

Upstream: ``pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go`` of
v1.37.2. Not modelled yet: a pod with such a request gets an Error status (docs/dra.md).
"""

from __future__ import annotations

from reference_impl.model.objects import Pod

# resourceapi.ResourceDeviceClassPrefix (k8s.io/api/resource/v1/types.go).
RESOURCE_DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"


def device_class_extended_resource(pod: Pod) -> str | None:
    """The first ``deviceclass.resource.kubernetes.io/<class>`` resource the pod requests with
    a non-zero quantity (containers, init containers, overhead; limits count too, as they
    default the requests of extended resources), or None."""
    for group in (pod.containers, pod.init_containers):
        for c in group:
            for name, q in (*c.requests, *c.limits):
                if q and name.startswith(RESOURCE_DEVICE_CLASS_PREFIX):
                    return name
    for name, q in pod.overhead:
        if q and name.startswith(RESOURCE_DEVICE_CLASS_PREFIX):
            return name
    return None
