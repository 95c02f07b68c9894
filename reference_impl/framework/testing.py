"""A minimal framework handle for unit-testing plugins in isolation."""

from __future__ import annotations

from collections.abc import Iterable

from reference_impl.framework.snapshot import Snapshot
from reference_impl.model.controllers import NO_CONTROLLERS, Controllers
from reference_impl.model.dra import DRAObjects
from reference_impl.model.objects import Namespace, Node, Pod
from reference_impl.model.storage import StorageObjects
from reference_impl.releases import ReleaseData, current


class FakeHandle:
    """Serves a snapshot built from nodes and bound pods, a set of feature gates, and the
    Service / controller listers."""

    def __init__(self, nodes: Iterable[Node] = (), pods: Iterable[Pod] = (),
                 namespaces: dict[str, Namespace] | None = None,
                 features: dict[str, bool] | None = None, parallelism: int = 1,
                 controllers: Controllers = NO_CONTROLLERS,
                 dra: DRAObjects | None = None,
                 storage: StorageObjects | None = None,
                 release: ReleaseData = current.RELEASE) -> None:
        self._snapshot = Snapshot(list(nodes), list(pods), namespaces)
        self.release = release
        self._dra = dra if dra is not None else DRAObjects()
        self._storage = storage if storage is not None else StorageObjects()
        #: (resource, old, new) of every storage change a plugin reported
        self.storage_changes: list[tuple[str, object, object]] = []
        self._controllers = controllers
        self._features = dict(features or {})
        self._parallelism = parallelism

    def snapshot(self) -> Snapshot:
        return self._snapshot

    def controllers(self) -> Controllers:
        return self._controllers

    def dra_objects(self) -> DRAObjects:
        return self._dra

    def storage_objects(self) -> StorageObjects:
        return self._storage

    def storage_changed(self, resource: str, old_obj: object, new_obj: object) -> None:
        self.storage_changes.append((resource, old_obj, new_obj))

    def feature_enabled(self, gate: str) -> bool:
        if gate in self._features:
            return self._features[gate]
        return self.release.feature_enabled(gate)

    def behaviour(self, name: str) -> str:
        return self.release.behaviour(name)

    @property
    def parallelism(self) -> int:
        return self._parallelism
