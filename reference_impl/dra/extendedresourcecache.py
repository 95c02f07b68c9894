"""The extended resource names DeviceClasses map: ``ExtendedResourceCache`` of
k8s.io/dynamic-resource-allocation v0.37.2 (``deviceclass/extendedresourcecache/
extendedresourcecache.go``), which the DRA manager keeps from the DeviceClass informer and
which NodeResourcesFit and DynamicResources ask (``DeviceClassResolver.GetDeviceClass``).

Every class maps its implicit name ``deviceclass.resource.kubernetes.io/<class>``; a class
with ``spec.extendedResourceName`` also maps that name. When two classes name the same
extended resource, the newer one (``creationTimestamp``) wins and, at equal timestamps, the
smaller name; a class that loses is not added at all, not even its implicit name
(``updateResourceName2class`` returns early). Our DeviceClasses have no creation timestamp
(all equal): the classes are added in name order, so the first class of each extended name
wins and the later ones with that name map nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from reference_impl.model.dra import DeviceClass

# resourceapi.ResourceDeviceClassPrefix (staging/src/k8s.io/api/resource/v1/types.go).
RESOURCE_DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"


class ExtendedResourceCache:
    """``ExtendedResourceCache``: extended resource name -> DeviceClass."""

    __slots__ = ("resource_name_to_class",)

    def __init__(self, classes: Iterable[DeviceClass] = ()) -> None:
        self.resource_name_to_class: dict[str, DeviceClass] = {}
        for cls in sorted(classes, key=lambda c: c.name):
            self.on_add(cls)

    def on_add(self, cls: DeviceClass) -> None:
        """``OnAdd`` (``updateResourceName2class`` without an old class)."""
        explicit = cls.extended_resource_name
        if explicit is not None:
            other = self.resource_name_to_class.get(explicit)
            if other is not None and cls.name >= other.name:
                return  # equal creation timestamps: the smaller name stays
            self.resource_name_to_class[explicit] = cls
        self.resource_name_to_class[RESOURCE_DEVICE_CLASS_PREFIX + cls.name] = cls

    def get_device_class(self, resource_name: str) -> DeviceClass | None:
        """``GetDeviceClass``."""
        return self.resource_name_to_class.get(resource_name)

    def __bool__(self) -> bool:
        return bool(self.resource_name_to_class)
