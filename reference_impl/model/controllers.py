"""``Controllers``: the listers over the Services, ReplicationControllers, ReplicaSets and
StatefulSets of a cluster (``objects.py``), as the scheduler's informer factory serves them to
``helper.DefaultSelector`` (pkg/scheduler/framework/plugins/helper/spread.go of
k8s.io/kubernetes v1.37.2).
"""

from __future__ import annotations

from collections.abc import Iterable

from reference_impl.model.objects import (
    Cluster,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
)


class Controllers:
    """The Service / ReplicationController / ReplicaSet / StatefulSet listers the scheduler's
    informer factory serves: Services listed by namespace (in input order), the controllers got
    by namespace and name."""

    __slots__ = ("_services", "_rcs", "_rss", "_sss")

    def __init__(self, services: Iterable[Service] = (),
                 replication_controllers: Iterable[ReplicationController] = (),
                 replica_sets: Iterable[ReplicaSet] = (),
                 stateful_sets: Iterable[StatefulSet] = ()) -> None:
        self._services: dict[str, list[Service]] = {}
        for s in services:
            self._services.setdefault(s.namespace, []).append(s)
        self._rcs = {(c.namespace, c.name): c for c in replication_controllers}
        self._rss = {(c.namespace, c.name): c for c in replica_sets}
        self._sss = {(c.namespace, c.name): c for c in stateful_sets}

    def services(self, namespace: str) -> list[Service]:
        """``Services(namespace).List(labels.Everything())``."""
        return self._services.get(namespace, [])

    def replication_controller(self, namespace: str, name: str) -> ReplicationController | None:
        return self._rcs.get((namespace, name))

    def replica_set(self, namespace: str, name: str) -> ReplicaSet | None:
        return self._rss.get((namespace, name))

    def stateful_set(self, namespace: str, name: str) -> StatefulSet | None:
        return self._sss.get((namespace, name))

    def __bool__(self) -> bool:
        return bool(self._services or self._rcs or self._rss or self._sss)


#: listers with no objects (a cluster without Services or controllers)
NO_CONTROLLERS = Controllers()


def controllers_of(cluster: Cluster) -> Controllers:
    """The listers over a cluster's Services and controllers."""
    if not (cluster.services or cluster.replication_controllers or cluster.replica_sets
            or cluster.stateful_sets):
        return NO_CONTROLLERS
    return Controllers(cluster.services, cluster.replication_controllers,
                       cluster.replica_sets, cluster.stateful_sets)
