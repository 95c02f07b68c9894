"""The ``kubeconfig`` backend: the scheduler of an existing throwaway cluster (kind, KWOK),
only with ``--i-own-this-cluster CONTEXT`` and on a cluster whose own nodes are cordoned; the
run's objects get the run id as a name prefix and pending pods are released one by one from a
hold gate. What it creates and how it differs from the others: ``docs/backends.md``.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from pathlib import Path
from typing import Any

import conformance.backends.cleanup as cleanup
from conformance.backends.api import ApiError, ClusterApi, KubeApi
from conformance.backends.control_plane import SCHED_CONFIG_API
from conformance.backends.dra import DRA_KINDS
from conformance.backends.driver import Driver, DriverOptions
from conformance.backends.plan import RUN_LABEL, new_run_id
from conformance.core.errors import UsageError
from conformance.core.scenario import ScenarioInput, read_config_doc
from conformance.core.subject import Subject, SubjectError, SubjectResult
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: What the cluster's scheduler is assumed to run without ``--config``: the release's defaults
#: (kubeadm, and so kind, starts kube-scheduler without a configuration file; KWOK's clusters
#: too). A scenario's own configuration cannot apply: the running scheduler keeps its own.
CLUSTER_DEFAULT_CONFIG: dict[str, Any] = {"apiVersion": SCHED_CONFIG_API,
                                          "kind": "KubeSchedulerConfiguration"}


def check_ownership(context: str, i_own_this_cluster: str | None) -> None:
    """Refuse unless the user named the same context with ``--i-own-this-cluster``."""
    if not i_own_this_cluster:
        raise SubjectError(
            f"kubeconfig backend: refusing to touch context {context!r} without "
            f"--i-own-this-cluster {context} (it creates nodes and pods there and deletes them "
            f"afterwards; use a throwaway kind or KWOK cluster)")
    if i_own_this_cluster != context:
        raise SubjectError(
            f"kubeconfig backend: --i-own-this-cluster names {i_own_this_cluster!r} but the "
            f"subject is context {context!r}; they must be the same")


def foreign_schedulable_nodes(api: ClusterApi) -> list[str]:
    """Nodes this tool did not create that the scheduler could use."""
    nodes, _ = api.list("Node")
    out = []
    for n in nodes:
        meta = n.get("metadata") or {}
        if RUN_LABEL in (meta.get("labels") or {}):
            continue
        if not (n.get("spec") or {}).get("unschedulable"):
            out.append(str(meta.get("name")))
    return out


def foreign_dra_conflicts(api: ClusterApi, scenario: ScenarioInput) -> list[str]:
    """What of the cluster's own DRA objects would change the run: a DeviceClass named like one
    of the scenario's (the names are kept, docs/dra.md), a ResourceSlice that can offer devices
    to the run's nodes (``allNodes``, a ``nodeSelector`` or per-device node selection; a slice
    of one foreign node cannot)."""
    if not any(str(d.get("kind")) in DRA_KINDS for d in scenario.documents):
        return []
    wanted = {str((d.get("metadata") or {}).get("name")) for d in scenario.documents
              if d.get("kind") == "DeviceClass"}
    out: list[str] = []
    classes, _ = api.list("DeviceClass")
    for c in classes:
        meta = c.get("metadata") or {}
        if RUN_LABEL not in (meta.get("labels") or {}) and meta.get("name") in wanted:
            out.append(f"DeviceClass {meta.get('name')} (the scenario has one of that name)")
    slices, _ = api.list("ResourceSlice")
    for sl in slices:
        meta, spec = sl.get("metadata") or {}, sl.get("spec") or {}
        if RUN_LABEL in (meta.get("labels") or {}) or spec.get("nodeName"):
            continue
        out.append(f"ResourceSlice {meta.get('name')} (driver {spec.get('driver')}: its devices "
                   f"can reach any node)")
    return out


class KubeconfigSubject(Subject):
    """``--subject kubeconfig:CONTEXT`` with ``--i-own-this-cluster CONTEXT``."""

    name = "kubeconfig"
    real_control_plane = True

    def __init__(self, context: str, *, i_own_this_cluster: str | None = None,
                 kubeconfig: str | None = None, config_path: str | None = None,
                 api: ClusterApi | None = None, time_scale: float = 1.0, settle: float = 1.0,
                 timeout: float = 180.0) -> None:
        check_ownership(context, i_own_this_cluster)
        self.context = context
        self.kubeconfig = kubeconfig
        self.config_path = config_path
        self.config_doc: dict[str, Any] = dict(CLUSTER_DEFAULT_CONFIG)
        if config_path is not None:
            try:
                self.config_doc = read_config_doc(config_path)
            except UsageError as e:
                raise SubjectError(str(e)) from e
        self._api = api
        self.time_scale = time_scale
        self.settle = settle
        self.timeout = timeout
        self.prefix = new_run_id()
        self._counter = itertools.count(1)
        self._cleanup: cleanup.Cleanup | None = None
        self._tmp: Path | None = None


    @property
    def fixed_config(self) -> dict[str, Any]:
        """The configuration the cluster's scheduler is assumed to run: the one given with
        ``--config``, else :data:`CLUSTER_DEFAULT_CONFIG`."""
        return self.config_doc

    def api(self) -> ClusterApi:
        if self._api is None:
            try:
                # optional dependency: kubernetes (the backends extra), said clearly if missing
                import kubernetes  # noqa: F401
            except ImportError as e:
                raise SubjectError("kubeconfig backend: the kubernetes client is not installed "
                                   "(pip install 'kschedconf[backends]')") from e
            self._cleanup = cleanup.Cleanup("kubeconfig backend")
            tmp = self._tmp = cleanup.make_temp_dir("kubeconfig")
            self._cleanup.push("temporary directory", lambda: cleanup.remove_dir(tmp))
            path = self.kubeconfig or os.environ.get("KUBECONFIG", "").split(os.pathsep)[0] \
                or os.path.expanduser("~/.kube/config")
            try:
                self._api = KubeApi.from_kubeconfig(path, self.context,
                                                    discovery_cache=str(tmp / "discovery.json"))
            except Exception as e:
                raise SubjectError(f"kubeconfig backend: cannot use context {self.context!r} "
                                   f"of {path}: {e}") from e
        return self._api

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        api = self.api()
        try:
            foreign = foreign_schedulable_nodes(api)
        except ApiError as e:
            raise SubjectError(f"kubeconfig backend: cannot list nodes of context "
                               f"{self.context!r}: {e.message}") from e
        if foreign:
            raise SubjectError(
                f"kubeconfig backend: context {self.context!r} has schedulable nodes this tool "
                f"did not create ({', '.join(foreign[:10])}); the scheduler could place the "
                f"scenario's pods there. Cordon them (kubectl cordon NODE) or use a KWOK "
                f"cluster without nodes")
        try:
            conflicts = foreign_dra_conflicts(api, scenario)
        except ApiError as e:
            raise SubjectError(f"kubeconfig backend: cannot list the DRA objects of context "
                               f"{self.context!r}: {e.message}") from e
        if conflicts:
            raise SubjectError(
                f"kubeconfig backend: context {self.context!r} has DRA objects this tool did not "
                f"create that the scenario's pods would see: {'; '.join(conflicts[:10])}. Use a "
                f"cluster without a DRA driver, or delete them")
        scenario = scenario.derived(config=self.config_doc, covers="")
        run_id = f"{self.prefix}-{next(self._counter)}"
        driver = Driver(api, DriverOptions(run_id=run_id, mode="shared",
                                           time_scale=self.time_scale, settle=self.settle,
                                           timeout=self.timeout,
                                           namespace_prefix=f"{run_id}-",
                                           node_prefix=f"{run_id}-", rename_for_order=False))
        cl = self._cleanup or cleanup.Cleanup("kubeconfig backend")
        self._cleanup = cl
        left: list[str] = []

        def delete_owned() -> None:
            left.extend(driver.delete_owned())

        cl.push(f"objects of {run_id}", delete_owned)
        try:
            doc = driver.run(scenario, hooks=None)
        finally:
            cl.pop_and_run(f"objects of {run_id}")
        if left:
            raise SubjectError(f"kubeconfig backend: could not delete everything of run "
                               f"{run_id} (label {driver.selector}): {'; '.join(left)}")
        return SubjectResult(doc, warnings=list(driver.warnings))

    def close(self) -> None:
        if self._cleanup is not None:
            with contextlib.suppress(Exception):
                self._cleanup.run()
            self._cleanup = None

    def describe(self) -> dict[str, str]:
        return {"subject": self.name, "context": self.context,
                "upstreamRelease": UPSTREAM_RELEASE,
                "implementation": "the scheduler of an existing throwaway cluster"}
