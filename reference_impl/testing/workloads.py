"""Manifests of the objects that own or select pods: Service, ReplicationController,
ReplicaSet, StatefulSet, Deployment, DaemonSet, Job (upstream ``st.MakeService()``,
``st.MakeReplicaSet()``... are spread over pkg/scheduler/testing and the controllers' tests of
k8s.io/kubernetes v1.37.2; here one wrapper serves every workload kind)::

    make_replica_set("web").selector({"app": "web"}).replicas(3)
        .template(make_pod("").label("app", "web").req(cpu="100m"))
    make_service("web").selector({"app": "web"})
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from reference_impl.model.loader import load_documents
from reference_impl.model.objects import ReplicaSet, ReplicationController, Service, StatefulSet
from reference_impl.testing._base import Doc, ObjectWrapper, label_selector, plain

#: kind -> apiVersion of the workloads ``make_workload`` builds.
WORKLOAD_API_VERSIONS = {
    "ReplicationController": "v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1",
    "Deployment": "apps/v1", "DaemonSet": "apps/v1", "Job": "batch/v1",
}


class ServiceWrapper(ObjectWrapper):
    """A v1 Service (``spec.selector`` is a plain label map, as upstream's Service has)."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__("v1", "Service", name)

    def selector(self, labels: Mapping[str, str] | None) -> Self:
        """``spec.selector``; ``None`` writes a Service without selector (one that selects
        nothing: endpoints managed elsewhere)."""
        spec = self._at("spec")
        if labels is None:
            spec.pop("selector", None)
        else:
            spec["selector"] = dict(labels)
        return self

    def port(self, port: int, target_port: int | str | None = None,
             protocol: str = "TCP") -> Self:
        p: Doc = {"port": port, "protocol": protocol}
        if target_port is not None:
            p["targetPort"] = target_port
        self._append(("spec",), "ports", p)
        return self

    def obj(self) -> Service:
        """The Service the loader makes of this manifest."""
        return load_documents([self.manifest()], source="<builder>").cluster.services[0]


def make_service(name: str) -> ServiceWrapper:
    return ServiceWrapper(name)


class WorkloadWrapper(ObjectWrapper):
    """A workload with a pod template: ReplicationController (``spec.selector`` a plain label
    map), ReplicaSet, StatefulSet, Deployment, DaemonSet, Job (``spec.selector`` a
    LabelSelector)."""

    __slots__ = ()

    def __init__(self, kind: str, name: str) -> None:
        super().__init__(WORKLOAD_API_VERSIONS[kind], kind, name)

    @property
    def kind(self) -> str:
        return str(self._doc["kind"])

    def replicas(self, n: int) -> Self:
        """``spec.replicas`` (Job: ``spec.parallelism``; DaemonSet has none)."""
        if self.kind == "DaemonSet":
            raise ValueError("a DaemonSet has no replicas")
        self._at("spec")["parallelism" if self.kind == "Job" else "replicas"] = n
        return self

    def selector(self, match_labels: Mapping[str, str] | None = None,
                 *expressions: Any) -> Self:
        """``spec.selector``: a label map for a ReplicationController, a LabelSelector
        (``label_selector(match_labels, *expressions)``) for the others."""
        if self.kind == "ReplicationController":
            if expressions:
                raise ValueError("a ReplicationController's selector is a plain label map")
            self._at("spec")["selector"] = dict(match_labels or {})
        else:
            self._at("spec")["selector"] = label_selector(match_labels, *expressions)
        return self

    def template(self, pod: object) -> Self:
        """``spec.template`` from a pod (a ``make_pod(...)`` wrapper or a dict): its metadata
        labels/annotations and its spec (name and namespace are the controller's to set)."""
        doc = plain(pod)
        meta = {k: v for k, v in (doc.get("metadata") or {}).items()
                if k in ("labels", "annotations")}
        tmpl: Doc = {}
        if meta:
            tmpl["metadata"] = meta
        tmpl["spec"] = doc.get("spec") or {}
        self._at("spec")["template"] = tmpl
        return self

    def service_name(self, name: str) -> Self:
        """StatefulSet ``spec.serviceName``."""
        self._at("spec")["serviceName"] = name
        return self

    def obj(self) -> ReplicationController | ReplicaSet | StatefulSet:
        """The model object the loader makes of a ReplicationController, ReplicaSet or
        StatefulSet manifest (the kinds ``helper.DefaultSelector`` reads)."""
        if self.kind not in ("ReplicationController", "ReplicaSet", "StatefulSet"):
            raise ValueError(f"a {self.kind} is not a model object (workload expansion turns it "
                             "into pods)")
        cluster = load_documents([self.manifest()], source="<builder>").cluster
        found: list[ReplicationController | ReplicaSet | StatefulSet] = [
            *cluster.replication_controllers, *cluster.replica_sets, *cluster.stateful_sets]
        return found[0]


def make_workload(kind: str, name: str) -> WorkloadWrapper:
    return WorkloadWrapper(kind, name)


def make_replication_controller(name: str) -> WorkloadWrapper:
    return WorkloadWrapper("ReplicationController", name)


def make_replica_set(name: str) -> WorkloadWrapper:
    return WorkloadWrapper("ReplicaSet", name)


def make_stateful_set(name: str) -> WorkloadWrapper:
    return WorkloadWrapper("StatefulSet", name)


def make_deployment(name: str) -> WorkloadWrapper:
    return WorkloadWrapper("Deployment", name)


def make_daemon_set(name: str) -> WorkloadWrapper:
    return WorkloadWrapper("DaemonSet", name)


def make_job(name: str) -> WorkloadWrapper:
    return WorkloadWrapper("Job", name)
