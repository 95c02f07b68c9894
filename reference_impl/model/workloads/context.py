"""What every controller module works with (``Expansion``): the inputs, the objects created so
far, the notes and warnings, and the checks shared by all controllers: which pods a workload
already has (``owned``), the orphans it adopts (``adopt_orphans``, ``ClaimPods`` of
pkg/controller/controller_ref_manager.go), a template checked by the loader itself
(``check_pod``), unique generated names."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reference_impl.model.decoding import InputLocation
from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_objects
from reference_impl.model.objects import Node, Pod
from reference_impl.model.scenario import SCENARIO_API_VERSION, SCENARIO_KIND
from reference_impl.model.workloads.inputs import Document, Inputs, PodEntry
from reference_impl.model.workloads.names import generate_name
from reference_impl.model.workloads.templates import Workload, controller_ref

#: the source name of the documents the expansion creates
EXPANDED_SOURCE = "<expanded>"


@dataclass(slots=True)
class Created:
    """An object the expansion created, and the workload it was created for."""

    kind: str
    namespace: str
    name: str
    owner: str
    doc: dict[str, Any]


@dataclass(slots=True)
class Expansion:
    """The state of one expansion and, at the end, its result: ``documents`` (the inputs,
    completed, then the created objects), ``created``, ``notes`` (what each workload gave),
    ``warnings``."""

    inputs: Inputs
    force: bool = False
    created: list[Created] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    workloads: list[str] = field(default_factory=list)
    #: timeline events a binding triggers (``when: {podBound: ...}``), in creation order
    triggered: list[dict[str, Any]] = field(default_factory=list)
    #: the Scenario document holding ``triggered``: the inputs' own (completed in place) or a
    #: created one; None when nothing is triggered
    scenario: dict[str, Any] | None = None
    triggered_owners: list[str] = field(default_factory=list)  # the workload of each
    _taken: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    _nodes: list[Node] | None = None

    @property
    def documents(self) -> list[Document]:
        return [*self.inputs.documents,
                *((EXPANDED_SOURCE, i, c.doc) for i, c in enumerate(self.created, start=1))]

    @property
    def pods(self) -> list[Created]:
        return [c for c in self.created if c.kind == "Pod"]

    # names

    def taken(self, kind: str, namespace: str) -> set[str]:
        key = (kind, namespace)
        if key not in self._taken:
            self._taken[key] = self.inputs.names(kind, namespace)
        return self._taken[key]

    def unique_name(self, kind: str, namespace: str, base: str, key: str) -> str:
        """A ``generateName`` name (``base`` + 5 characters derived from ``key``) not yet used
        by an object of ``kind`` in ``namespace``."""
        taken = self.taken(kind, namespace)
        attempt = 0
        name = generate_name(base, key)
        while name in taken:
            attempt += 1
            name = generate_name(base, f"{key}#{attempt}")
        taken.add(name)
        return name

    def add(self, kind: str, namespace: str, name: str, owner: str,
            doc: dict[str, Any]) -> None:
        self.taken(kind, namespace).add(name)
        self.created.append(Created(kind, namespace, name, owner, doc))

    def trigger(self, after: str, namespace: str, name: str, owner: str,
                doc: dict[str, Any]) -> None:
        """Create pod ``doc`` (for workload ``owner``) when pod ``after`` (NAMESPACE/NAME) is
        bound: a ``createPod`` timeline event with ``when: {podBound: after}`` (StatefulSet
        OrderedReady)."""
        self.taken("Pod", namespace).add(name)
        self.triggered.append({"when": {"podBound": after}, "action": "createPod",
                               "pod": doc})
        self.triggered_owners.append(owner)

    def finish_timeline(self) -> None:
        """Put the triggered events into a Scenario document: appended to the events of the
        inputs' Scenario (a copy replaces it), or in a new one among the created objects."""
        if not self.triggered:
            return
        entries = [e for e in self.inputs.entries
                   if e.kind == SCENARIO_KIND and e.api_version == SCENARIO_API_VERSION]
        if entries:
            entry = entries[0]
            doc = copy.deepcopy(dict(entry.obj))
            spec = doc.get("spec")
            spec = dict(spec) if isinstance(spec, Mapping) else {}
            events = spec.get("events")
            spec["events"] = [*(events if isinstance(events, list) else []), *self.triggered]
            doc["spec"] = spec
            self.inputs.replace(entry, doc)
        else:
            doc = {"apiVersion": SCENARIO_API_VERSION, "kind": SCENARIO_KIND,
                   "metadata": {"name": "workloads"}, "spec": {"events": self.triggered}}
            self.created.append(Created(SCENARIO_KIND, "", "workloads", "", doc))
        self.scenario = doc

    # pods of a workload

    def owned(self, w: Workload, *, active_only: bool = True) -> list[PodEntry]:
        """The input pods whose controller reference is ``w`` (by uid, or by kind and name
        when the reference has no matching uid)."""
        out = []
        for p in self.inputs.pods:
            if p.entry.namespace != w.namespace or p.controller is None:
                continue
            kind, name, uid = p.controller
            if kind == w.kind and (uid == w.uid or name == w.name):
                if p.active or not active_only:
                    out.append(p)
        return out

    def adopt_orphans(self, w: Workload, limit: int | None = None) -> list[PodEntry]:
        """``ClaimPods``: active pods of the namespace with no controller whose labels the
        selector selects become the workload's (the controller writes its reference into
        them)."""
        adopted: list[PodEntry] = []
        for p in self.inputs.pods:
            if limit is not None and len(adopted) >= limit:
                break
            if (p.controller is None and p.active and p.entry.namespace == w.namespace
                    and w.selector.matches(p.labels)):
                self.inputs.adopt(p, controller_ref(w.api_version, w.kind, w.name, w.uid))
                adopted.append(p)
        if adopted:
            self.notes.append(f"{w.key}: adopted {len(adopted)} pod(s) without a controller "
                              "that its selector selects: "
                              + ", ".join(p.entry.name for p in adopted))
        return adopted

    # checks through the loader

    def check_pod(self, w: Workload, pod_doc: Mapping[str, Any]) -> Pod:
        """The pod as the loader reads it; an error in it is reported at the workload's
        template (``spec.template.<field>``)."""
        classes = [(e.obj, e.ctx) for e in self.inputs.of_kind("PriorityClass")]
        try:
            loaded = load_objects([*classes, (pod_doc, InputLocation(w.ctx.source,
                                                                     w.ctx.document))])
        except InputError as e:
            if e.source != w.ctx.source or e.obj.split(" ", 1)[0] != "Pod":
                raise
            where = e.field
            if where.startswith(("spec", "metadata.labels", "metadata.annotations")):
                where = "spec.template." + where
            raise w.ctx.error(where, e.message) from None
        return loaded.cluster.pods[0]

    def nodes(self) -> list[Node]:
        """The input nodes as the loader reads them (the DaemonSet controller's node list)."""
        if self._nodes is None:
            entries = [(e.obj, e.ctx) for e in self.inputs.of_kind("Node")
                       if e.api_version in ("", "v1")]
            self._nodes = load_objects(entries).cluster.nodes
        return self._nodes
