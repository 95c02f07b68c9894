"""The run's objects on the API server: creating a :class:`~conformance.backends.plan.Plan`'s
objects (refusals become :class:`SubjectError` naming the object) and, after the scenario,
deleting everything labelled with the run id.
"""

from __future__ import annotations

import contextlib
import copy
import time
from typing import Any

from conformance.backends import dra
from conformance.backends.api import ApiError, ClusterApi
from conformance.backends.plan import (
    HOLD_GATE,
    NS_NAME_LABEL,
    TERMINATING_FINALIZER,
    Plan,
    PlannedPod,
)
from conformance.core.subject import SubjectError

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


class RunObjects:
    """Creates and deletes the objects of one run (``selector``: its label selector)."""

    def __init__(self, api: ClusterApi, selector: str) -> None:
        self.api = api
        self.selector = selector
        self.created_pcs: list[str] = []
        self.created_namespaces: list[str] = []
        self.touched_namespaces: dict[str, dict[str, str]] = {}  # existing ns -> labels before
        #: the UIDs of the pods the run created (also those gone since: their claims stay)
        self.pod_uids: set[str] = set()

    # ----- creating -----
    def create(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        try:
            return self.api.create(kind, obj)
        except ApiError as e:
            name = obj["metadata"].get("name")
            ns = obj["metadata"].get("namespace")
            where = f"{ns}/{name}" if ns else name
            raise SubjectError(f"the API server refused {kind} {where}: {e.message}") from e

    def ensure_namespace(self, obj: dict[str, Any]) -> None:
        """Create the namespace, or label an existing one (its labels restored after)."""
        name = obj["metadata"]["name"]
        existing = self.api.get("Namespace", name)
        if existing is None:
            self.create("Namespace", obj)
            self.created_namespaces.append(name)
            return
        if (existing.get("metadata", {}).get("deletionTimestamp")):
            raise SubjectError(f"namespace {name} is being deleted; wait for it to go or use "
                               "another name")
        old = dict(existing.get("metadata", {}).get("labels") or {})
        self.touched_namespaces.setdefault(name, old)
        want = dict(obj["metadata"]["labels"])
        patch = {k: None for k in old if k not in want and k != NS_NAME_LABEL}
        patch.update(want)
        self.api.patch("Namespace", name, {"metadata": {"labels": patch}})

    def create_pod(self, pp: PlannedPod, hold: bool = False) -> str:
        """Create a pod (``hold``: behind the hold gate), then patch its status. Returns the
        UID the API server gave it."""
        obj = pp.manifest
        if hold:
            obj = copy.deepcopy(obj)
            gates = list(obj["spec"].get("schedulingGates") or [])
            obj["spec"]["schedulingGates"] = [{"name": HOLD_GATE}, *gates]
        uid = str((self.create("Pod", obj).get("metadata") or {}).get("uid") or "")
        self.pod_uids.add(uid)
        if pp.status:
            ns, name = obj["metadata"]["namespace"], obj["metadata"]["name"]
            try:
                self.api.patch("Pod", name, {"status": pp.status}, ns, status=True)
            except ApiError as e:
                raise SubjectError(f"the API server refused the status of pod {ns}/{name}: "
                                   f"{e.message}") from e
        if pp.terminating:
            # the finalizer keeps it, with its deletionTimestamp, as a dump shows it
            ns, name = obj["metadata"]["namespace"], obj["metadata"]["name"]
            try:
                self.api.delete("Pod", name, ns, grace_period_seconds=0)
            except ApiError as e:
                raise SubjectError(f"could not start the deletion of pod {ns}/{name}: "
                                   f"{e.message}") from e
        return uid

    def create_dra(self, planned: dra.PlannedDRA, owner_uid: str | None = None) -> None:
        meta = planned.manifest["metadata"]
        where = f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]
        try:
            dra.create(self.api, planned, owner_uid)
        except ApiError as e:
            raise SubjectError(f"the API server refused {planned.kind} {where}: "
                               f"{e.message}") from e

    def create_node(self, obj: dict[str, Any], status: dict[str, Any] | None) -> None:
        """Create a node; patch its status when the server dropped it."""
        created = self.create("Node", obj)
        if status and (created.get("status") or {}).get("allocatable") is None:
            self.api.patch("Node", obj["metadata"]["name"], {"status": status}, status=True)

    def create_cluster(self, plan: Plan, *, hold_pending: bool) -> None:
        for ns in plan.namespaces:
            self.ensure_namespace(ns)
        for pc in plan.priority_classes:
            try:
                self.api.create("PriorityClass", pc)
                self.created_pcs.append(pc["metadata"]["name"])
            except ApiError as e:
                raise SubjectError(f"the API server refused PriorityClass "
                                   f"{pc['metadata']['name']}: {e.message}") from e
        for obj, status in plan.pdbs:
            self.create("PodDisruptionBudget", obj)
            if status:
                self.api.patch("PodDisruptionBudget", obj["metadata"]["name"],
                               {"status": status}, obj["metadata"]["namespace"], status=True)
        for kind, obj in plan.selecting:  # Services, controllers: before the pods
            self.create(kind, obj)
        for planned in plan.dra:  # DRA objects: before the pods (claims a pod owns: after it)
            if planned.owner_pod is None:
                self.create_dra(planned)
        for obj, status in plan.nodes:
            self.create_node(obj, status)
        uids: dict[str, str] = {}
        for pp in plan.running:
            uids[pp.key] = self.create_pod(pp)
        for pp in plan.pending:
            uids[pp.key] = self.create_pod(pp, hold=hold_pending)
        for planned in plan.dra:
            if planned.owner_pod is not None:
                self.create_dra(planned, uids.get(planned.owner_pod))
        # reservations of the live pods (the resourceclaim controller would drop those of a
        # finished pod at its start): written once the pods have their UIDs
        live = {pp.key: (pp.manifest["metadata"]["name"], uids[pp.key])
                for pp in (*plan.running, *plan.pending)
                if (pp.status or {}).get("phase") not in ("Succeeded", "Failed")}
        for planned in plan.dra:
            if planned.reserved_for:
                try:
                    dra.reserve(self.api, planned, live)
                except ApiError as e:
                    raise SubjectError(f"the API server refused status.reservedFor of "
                                       f"ResourceClaim {planned.manifest['metadata']['name']}: "
                                       f"{e.message}") from e

    # ----- deleting -----
    def _delete_pod_owned_claims(self) -> list[str]:
        """The claims others created for the run's pods, those gone included (PreBind's for
        extended resources backed by DRA, the resourceclaim controller's from templates: not
        labelled with the run, ``dra.pod_owned_claims_of``), finalizer dropped, before their
        pods go (no garbage collector runs on the owned control planes)."""
        problems: list[str] = []
        try:
            pods, _ = self.api.list("Pod", label_selector=self.selector)
            uids = {str((p.get("metadata") or {}).get("uid")) for p in pods} | self.pod_uids
            uids.discard("")
            claims = dra.pod_owned_claims_of(self.api, uids) if uids else []
        except ApiError as e:
            return [f"list the claims the run's pods own: {e.message}"]
        for c in claims:
            m = c.get("metadata") or {}
            try:
                dra.drop_claim_finalizers(self.api, c)
                self.api.delete("ResourceClaim", m.get("name", ""), m.get("namespace"))
            except ApiError as e:
                problems.append(f"delete ResourceClaim {m.get('name')}: {e.message}")
        return problems

    def delete_owned(self, timeout: float = 30.0) -> list[str]:
        """Delete every object labelled with this run (pods at once, namespaces finalized when
        no namespace controller would), restore the labels of namespaces that existed before.
        Returns what could not be deleted."""
        problems: list[str] = []
        refused: set[str] = set()  # kinds whose deletion was refused: not waited for
        sel = self.selector
        problems += self._delete_pod_owned_claims()
        for kind in ("Pod", "PodDisruptionBudget", "Service", "ReplicationController",
                     "ReplicaSet", "StatefulSet", *reversed(dra.DRA_KINDS), "Node",
                     "PriorityClass"):
            try:
                items, _ = self.api.list(kind, label_selector=sel)
            except ApiError as e:
                problems.append(f"list {kind}: {e.message}")
                continue
            for o in items:
                m = o.get("metadata") or {}
                if kind == "Pod" and TERMINATING_FINALIZER in (m.get("finalizers") or []):
                    try:
                        self.api.patch("Pod", m.get("name", ""),
                                       {"metadata": {"finalizers": None}}, m.get("namespace"))
                    except ApiError as e:
                        problems.append(f"drop the finalizer of Pod {m.get('name')}: "
                                        f"{e.message}")
                if kind == "ResourceClaim":
                    try:
                        dra.drop_claim_finalizers(self.api, o)
                    except ApiError as e:
                        problems.append(f"drop the finalizers of ResourceClaim "
                                        f"{m.get('name')}: {e.message}")
                try:
                    self.api.delete(kind, m.get("name", ""), m.get("namespace"),
                                    grace_period_seconds=0 if kind == "Pod" else None)
                except ApiError as e:
                    problems.append(f"delete {kind} {m.get('name')}: {e.message}")
                    refused.add(kind)
        self._restore_namespace_labels()
        try:
            namespaces, _ = self.api.list("Namespace", label_selector=sel)
        except ApiError as e:
            problems.append(f"list Namespace: {e.message}")
            namespaces = []
        for ns in namespaces:
            name = ns.get("metadata", {}).get("name", "")
            if name in SYSTEM_NAMESPACES:
                continue
            try:
                self.api.delete("Namespace", name, grace_period_seconds=None)
            except ApiError as e:
                problems.append(f"delete Namespace {name}: {e.message}")
        deadline = time.monotonic() + timeout
        for kind in ("Pod", "ResourceClaim", "Node"):
            if kind in refused:
                continue
            while time.monotonic() < deadline:
                items, _ = self.api.list(kind, label_selector=sel)
                if not items:
                    break
                time.sleep(0.1)
            else:
                problems.append(f"{kind}s labelled {sel} still present after {timeout:g}s")
        self.created_namespaces.clear()
        self.created_pcs.clear()
        return problems

    def _restore_namespace_labels(self) -> None:
        for name, labels in self.touched_namespaces.items():
            cur = self.api.get("Namespace", name)
            if cur is None:
                continue
            now = dict(cur.get("metadata", {}).get("labels") or {})
            patch: dict[str, Any] = {k: None for k in now if k not in labels}
            patch.update(labels)
            with contextlib.suppress(ApiError):
                self.api.patch("Namespace", name, {"metadata": {"labels": patch}})
        self.touched_namespaces.clear()

    def finalize_namespaces(self) -> None:
        """Finish deleting this run's namespaces where no namespace controller runs (the
        process and docker backends): their content is gone, drop the finalizer."""
        items, _ = self.api.list("Namespace", label_selector=self.selector)
        for ns in items:
            name = ns.get("metadata", {}).get("name", "")
            if name in SYSTEM_NAMESPACES:
                continue
            if ns.get("metadata", {}).get("deletionTimestamp"):
                with contextlib.suppress(ApiError):
                    self.api.finalize_namespace(name)
