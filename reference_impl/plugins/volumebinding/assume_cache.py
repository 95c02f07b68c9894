"""The PV and PVC assume caches of the volume binder: the version the scheduler assumed for an
object is what later cycles see until the API object changes.

Upstream: ``pkg/scheduler/framework/plugins/volumebinding/passive_assume_cache.go`` and
``assume_cache.go``. The informer's store is the cluster's ``StorageObjects`` dict, which API
writes replace objects in (with a new resourceVersion); an assumed object is served only while
its resourceVersion is the stored one's, which is what ``mayExpire`` on each informer event
keeps true upstream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from reference_impl.model.storage import PersistentVolume, PersistentVolumeClaim
from reference_impl.storage.pv_helpers import get_persistent_volume_class


class BinderError(Exception):
    """An error the binder returns (``err``): the plugin turns it into ``AsStatus(err)``."""


class NotFoundError(BinderError):
    """``apierrors.NewNotFound(gr, key)``."""

    def __init__(self, resource: str, key: str) -> None:
        super().__init__(f'{resource} "{key}" not found')


class _Versioned(Protocol):
    @property
    def resource_version(self) -> int: ...


T = TypeVar("T", bound=_Versioned)


class PassiveAssumeCache(Generic[T]):
    """``passiveAssumeCache[T]``: ``store`` gives the informer's objects by key, ``key_of`` an
    object's key (``cache.MetaObjectToName``), ``resource`` the group resource for NotFound."""

    def __init__(self, store: Callable[[], dict[str, T]], key_of: Callable[[T], str],
                 resource: str) -> None:
        self._store = store
        self._key_of = key_of
        self._resource = resource
        self.assumed: dict[str, T] = {}

    def get_api_obj(self, key: str) -> T:
        """``GetAPIObj``: the informer's version; NotFound when absent."""
        obj = self._store().get(key)
        if obj is None:
            raise NotFoundError(self._resource, key)
        return obj

    def get(self, key: str) -> T:
        """``Get``: the assumed object while its version is the informer's, else the
        informer's."""
        obj = self.get_api_obj(key)
        assumed = self.assumed.get(key)
        if assumed is None or assumed.resource_version != obj.resource_version:
            return obj
        return assumed

    def replace_assumed(self, objs: list[T]) -> list[T]:
        """``replaceAssumed``: each informer object, or its assumed version."""
        out = []
        for obj in objs:
            assumed = self.assumed.get(self._key_of(obj))
            out.append(assumed if assumed is not None
                       and assumed.resource_version == obj.resource_version else obj)
        return out

    def assume(self, obj: T) -> None:
        """``Assume``: only an object of the stored version can be assumed."""
        key = self._key_of(obj)
        stored = self.get_api_obj(key)
        if stored.resource_version != obj.resource_version:
            raise BinderError(f'"{key}" is out of sync (stored: {stored.resource_version}, '
                              f"assume: {obj.resource_version})")
        self.assumed[key] = obj

    def restore(self, obj: T) -> None:
        """``Restore``: drop the assumed version when it is ``obj``'s version."""
        key = self._key_of(obj)
        assumed = self.assumed.get(key)
        if assumed is not None and assumed.resource_version == obj.resource_version:
            del self.assumed[key]


class PVAssumeCache(PassiveAssumeCache[PersistentVolume]):
    """``PVAssumeCache`` (assume_cache.go), keyed by PV name."""

    def __init__(self, store: Callable[[], dict[str, PersistentVolume]]) -> None:
        super().__init__(store, lambda pv: pv.name, "persistentvolumes")

    def list_pvs(self, storage_class_name: str) -> list[PersistentVolume]:
        """``ListPVs``: the PVs whose informer version is of the class (the ``storageclass``
        index), each as assumed. Upstream's index gives them in map order (unspecified);
        here in the store's (input) order."""
        return self.replace_assumed([pv for pv in self._store().values()
                                     if get_persistent_volume_class(pv) == storage_class_name])


class PVCAssumeCache(PassiveAssumeCache[PersistentVolumeClaim]):
    """``PVCAssumeCache`` (assume_cache.go), keyed by ``namespace/name``."""

    def __init__(self, store: Callable[[], dict[str, PersistentVolumeClaim]]) -> None:
        super().__init__(store, lambda pvc: pvc.key, "persistentvolumeclaims")
