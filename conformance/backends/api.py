"""The API server as the driver sees it: the :class:`ClusterApi` interface (create, get,
patch, delete, list, watch of plain dict manifests), :class:`ApiError` for a refusal, and
:class:`KubeApi`, its implementation over the official ``kubernetes`` client
(``DynamicClient``; the tests implement the interface in memory).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from typing import Any, Protocol

#: seconds one API request may take (the client's ``_request_timeout``)
REQUEST_TIMEOUT = 30.0
#: seconds the API server keeps one watch open before the driver resumes it
WATCH_SECONDS = 60


class ApiError(Exception):
    """A request the API server refused (``status`` is the HTTP status)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


WatchSink = Callable[[str, dict[str, Any]], None]


class ClusterApi(Protocol):
    """What the driver needs from an API server. Kinds: Namespace, Node, Pod, PriorityClass,
    PodDisruptionBudget, Event, Service, the controllers, and the resource.k8s.io/v1 kinds.
    Every method raises :class:`ApiError` for a refusal."""

    def create(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]: ...

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        ...

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, *,
              status: bool = False, patch_type: str = "merge") -> dict[str, Any]: ...

    def delete(self, kind: str, name: str, namespace: str | None = None,
               grace_period_seconds: int | None = 0) -> bool: ...

    def list(self, kind: str, *, label_selector: str | None = None,
             field_selector: str | None = None) -> tuple[list[dict[str, Any]], str]: ...

    def watch(self, kind: str, sink: WatchSink, stop: threading.Event, *,
              resource_version: str, label_selector: str | None = None,
              field_selector: str | None = None) -> None:
        """Call ``sink(type, object)`` for every change after ``resource_version`` until
        ``stop`` is set (blocking: the driver runs it in a thread)."""
        ...

    def finalize_namespace(self, name: str) -> None: ...


# --- the kubernetes client -----------------------------------------------------------------------

_KINDS: dict[str, tuple[str, str, bool]] = {  # kind -> (api prefix, resource, namespaced)
    "Namespace": ("/api/v1", "namespaces", False),
    "Node": ("/api/v1", "nodes", False),
    "Pod": ("/api/v1", "pods", True),
    "Event": ("/api/v1", "events", True),
    "PriorityClass": ("/apis/scheduling.k8s.io/v1", "priorityclasses", False),
    "PodDisruptionBudget": ("/apis/policy/v1", "poddisruptionbudgets", True),
    "Service": ("/api/v1", "services", True),
    "ReplicationController": ("/api/v1", "replicationcontrollers", True),
    "ReplicaSet": ("/apis/apps/v1", "replicasets", True),
    "StatefulSet": ("/apis/apps/v1", "statefulsets", True),
    "DeviceClass": ("/apis/resource.k8s.io/v1", "deviceclasses", False),
    "ResourceSlice": ("/apis/resource.k8s.io/v1", "resourceslices", False),
    "ResourceClaim": ("/apis/resource.k8s.io/v1", "resourceclaims", True),
    "ResourceClaimTemplate": ("/apis/resource.k8s.io/v1", "resourceclaimtemplates", True),
    "DeviceTaintRule": ("/apis/resource.k8s.io/v1", "devicetaintrules", False),
}
_API_VERSIONS = {"Namespace": "v1", "Node": "v1", "Pod": "v1", "Event": "v1",
                 "PriorityClass": "scheduling.k8s.io/v1", "PodDisruptionBudget": "policy/v1",
                 "Service": "v1", "ReplicationController": "v1", "ReplicaSet": "apps/v1",
                 "StatefulSet": "apps/v1", "DeviceClass": "resource.k8s.io/v1",
                 "ResourceSlice": "resource.k8s.io/v1", "ResourceClaim": "resource.k8s.io/v1",
                 "ResourceClaimTemplate": "resource.k8s.io/v1",
                 "DeviceTaintRule": "resource.k8s.io/v1"}
_PATCH_TYPES = {"merge": "application/merge-patch+json",
                "strategic": "application/strategic-merge-patch+json",
                "json": "application/json-patch+json"}


def api_path(kind: str, namespace: str | None = None, name: str | None = None,
             sub: str | None = None) -> str:
    prefix, resource, namespaced = _KINDS[kind]
    p = prefix
    if namespaced and namespace:
        p += f"/namespaces/{namespace}"
    p += f"/{resource}"
    if name:
        p += f"/{name}"
    if sub:
        p += f"/{sub}"
    return p


class _CompactJson:
    """The ``json`` module as ``kubernetes.client.rest`` uses it, but ``dumps`` writes compact
    JSON. The API server keeps a DRA opaque config's ``parameters`` (a RawExtension) as the
    bytes of the request, and judges a claim's spec unchanged by comparing those bytes
    (``ValidateResourceClaimUpdate``, pkg/apis/resource/validation/validation.go, with
    ``apiequality.Semantic``); a JSON patch re-encodes them compactly (encoding/json compacts
    a ``MarshalJSON``'s output), so a claim created with spaces after ``:`` and ``,`` could
    never be patched or deleted while it has finalizers ("spec: Invalid value: null: field
    is immutable")."""

    def __getattr__(self, name: str) -> Any:
        return getattr(json, name)

    @staticmethod
    def dumps(obj: Any, **kw: Any) -> str:
        kw.setdefault("separators", (",", ":"))
        return json.dumps(obj, **kw)


class KubeApi:
    """:class:`ClusterApi` over the official ``kubernetes`` client (``DynamicClient``), with
    plain dict manifests in and out (request bodies as compact JSON: :class:`_CompactJson`)."""

    def __init__(self, api_client: Any, discovery_cache: str | None = None) -> None:
        # optional dependency: kubernetes (the backends extra)
        from kubernetes.client import rest
        from kubernetes.dynamic import DynamicClient

        rest.json = _CompactJson()  # type: ignore[assignment]
        self.api_client = api_client
        self.dyn = DynamicClient(api_client, cache_file=discovery_cache)

    @classmethod
    def from_kubeconfig(cls, path: str, context: str | None = None,
                        discovery_cache: str | None = None) -> KubeApi:
        # optional dependency: kubernetes (the backends extra)
        from kubernetes import config

        return cls(config.new_client_from_config(config_file=path, context=context),
                   discovery_cache)

    def _request(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        # optional dependency: kubernetes (the backends extra)
        from kubernetes.client.exceptions import ApiException
        from kubernetes.dynamic.exceptions import DynamicApiError

        try:
            resp = self.dyn.request(method, path, body=body, serialize=False,
                                    _request_timeout=REQUEST_TIMEOUT, **params)
        except DynamicApiError as e:
            raise ApiError(int(e.status or 0), _api_message(e.body, e.summary())) from None
        except ApiException as e:
            raise ApiError(int(e.status or 0), _api_message(e.body, str(e.reason))) from None
        data = resp.data if hasattr(resp, "data") else resp
        if isinstance(data, bytes):
            data = data.decode("utf-8")
        return json.loads(data) if data else {}

    def create(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        ns = obj.get("metadata", {}).get("namespace")
        return self._request("post", api_path(kind, ns), body=obj)

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        try:
            return self._request("get", api_path(kind, namespace, name))
        except ApiError as e:
            if e.status == 404:
                return None
            raise

    def patch(self, kind: str, name: str, patch: Any, namespace: str | None = None, *,
              status: bool = False, patch_type: str = "merge") -> dict[str, Any]:
        return self._request("patch", api_path(kind, namespace, name,
                                               "status" if status else None),
                             body=patch, content_type=_PATCH_TYPES[patch_type])

    def delete(self, kind: str, name: str, namespace: str | None = None,
               grace_period_seconds: int | None = 0) -> bool:
        # Background: no deletion finalizer. The default for a ReplicationController is
        # orphan, whose finalizer only the garbage collector (kube-controller-manager) removes:
        # on the process and docker backends the object would stay "being deleted" for ever
        # and the next scenario's RC of the same name would be refused.
        try:
            self._request("delete", api_path(kind, namespace, name),
                          grace_period_seconds=grace_period_seconds,
                          propagation_policy="Background")
        except ApiError as e:
            if e.status == 404:
                return False
            raise
        return True

    def list(self, kind: str, *, label_selector: str | None = None,
             field_selector: str | None = None) -> tuple[list[dict[str, Any]], str]:
        doc = self._request("get", api_path(kind), label_selector=label_selector,
                            field_selector=field_selector)
        return list(doc.get("items") or []), str(doc.get("metadata", {}).get("resourceVersion",
                                                                              ""))

    def watch(self, kind: str, sink: WatchSink, stop: threading.Event, *,
              resource_version: str, label_selector: str | None = None,
              field_selector: str | None = None) -> None:
        """Stream ``kind`` from ``resource_version`` into ``sink`` until ``stop`` is set.

        The server ends a watch after ``WATCH_SECONDS``; it is resumed from the last
        resource version seen, so nothing is missed. Setting ``stop`` shuts the open stream
        down at once (a waiter thread closes its socket). A broken stream is reported to the
        sink as ``ERROR`` and resumed; an expired resource version (HTTP 410: events were
        lost) is reported as ``ERROR`` with ``lost: True`` and ends the watch."""
        # optional dependency: kubernetes (the backends extra)
        from kubernetes import watch
        from kubernetes.client.exceptions import ApiException

        resource = self.dyn.resources.get(api_version=_API_VERSIONS[kind], kind=kind)
        rv = resource_version
        current: list[Any] = []

        def shut_down_on_stop() -> None:
            stop.wait()
            for w in list(current):
                resp = getattr(w, "_resp", None)  # the open stream (kubernetes.watch.Watch)
                with contextlib.suppress(Exception):
                    w.stop()
                    if resp is not None:
                        resp.shutdown()
        threading.Thread(target=shut_down_on_stop, name=f"kschedconf-watch-{kind}-stop",
                         daemon=True).start()
        while not stop.is_set():
            w = watch.Watch()
            current[:] = [w]
            try:
                for ev in self.dyn.watch(resource, label_selector=label_selector,
                                         field_selector=field_selector, resource_version=rv,
                                         timeout=WATCH_SECONDS, watcher=w,
                                         allow_watch_bookmarks=True):
                    raw = ev.get("raw_object") or {}
                    rv = raw.get("metadata", {}).get("resourceVersion", rv) or rv
                    if ev.get("type") in ("ADDED", "MODIFIED", "DELETED"):
                        sink(ev["type"], raw)
                    if stop.is_set():
                        break
            except ApiException as e:
                if stop.is_set():
                    return
                if e.status == 410:
                    sink("ERROR", {"message": f"the watch of {kind}s expired (resource "
                                              f"version {rv}): {e.reason}", "lost": True})
                    return
                sink("ERROR", {"message": f"the watch of {kind}s failed: HTTP {e.status} "
                                          f"{e.reason}", "lost": False})
                stop.wait(0.2)
            except Exception as e:  # a broken stream: report it, resume from rv
                if stop.is_set():
                    return
                sink("ERROR", {"message": f"the watch of {kind}s broke: "
                                          f"{type(e).__name__}: {e}", "lost": False})
                stop.wait(0.2)

    def finalize_namespace(self, name: str) -> None:
        obj = self.get("Namespace", name)
        if obj is None:
            return
        obj.setdefault("spec", {})["finalizers"] = []
        self._request("put", api_path("Namespace", None, name, "finalize"), body=obj)


def _api_message(body: Any, fallback: str) -> str:
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            return str(json.loads(body).get("message") or fallback)
        except (ValueError, AttributeError):
            return body or fallback
    return fallback

