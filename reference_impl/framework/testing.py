"""A minimal framework handle for unit-testing plugins in isolation."""

from __future__ import annotations

from collections.abc import Iterable

from reference_impl.framework.snapshot import Snapshot
from reference_impl.model.objects import Namespace, Node, Pod
from reference_impl.releases import current


class FakeHandle:
    """Serves a snapshot built from nodes and bound pods, and a set of feature gates."""

    def __init__(self, nodes: Iterable[Node] = (), pods: Iterable[Pod] = (),
                 namespaces: dict[str, Namespace] | None = None,
                 features: dict[str, bool] | None = None, parallelism: int = 1) -> None:
        self._snapshot = Snapshot(list(nodes), list(pods), namespaces)
        self._features = dict(features or {})
        self._parallelism = parallelism

    def snapshot(self) -> Snapshot:
        return self._snapshot

    def feature_enabled(self, gate: str) -> bool:
        if gate in self._features:
            return self._features[gate]
        return current.feature_enabled(gate)

    @property
    def parallelism(self) -> int:
        return self._parallelism
