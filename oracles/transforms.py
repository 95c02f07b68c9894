"""Scenario transformations for metamorphic relations (on the raw v1 manifests): rename every
node (:func:`rename_nodes`), permute the Node documents (:func:`permute_nodes`), add a node no
pod can use (:func:`add_unfit_node`).

``kind: List`` documents are looked into. Scenario (timeline) documents are not rewritten:
the rename and unfit-node relations refuse scenarios that have one.
See docs/oracles.md#determinism."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from conformance.core.scenario import ScenarioInput

UNFIT_NODE_NAME = "kschedconf-metamorphic-unfit"
UNFIT_TAINT_KEY = "kschedconf.io/metamorphic-unfit"


def _objects(docs: list[Any]) -> Iterator[dict[str, Any]]:
    for d in docs:
        if not isinstance(d, dict):
            continue
        if d.get("kind", "").endswith("List") and isinstance(d.get("items"), list):
            yield from (i for i in d["items"] if isinstance(i, dict))
        else:
            yield d


def scenario_node_names(scenario: ScenarioInput) -> list[str]:
    """The names of the scenario's Nodes, in input order."""
    return [o["metadata"]["name"] for o in _objects(scenario.documents)
            if o.get("kind") == "Node"]


def has_timeline(scenario: ScenarioInput) -> bool:
    return any(o.get("apiVersion") == "kschedconf/v1" for o in _objects(scenario.documents))


def _rename_terms(terms: Any, rename: Callable[[str], str]) -> None:
    for term in terms or ():
        if not isinstance(term, dict):
            continue
        for req in term.get("matchFields") or ():
            if req.get("key") == "metadata.name" and isinstance(req.get("values"), list):
                req["values"] = [rename(v) for v in req["values"]]


def rename_nodes(scenario: ScenarioInput, mapping: Mapping[str, str]) -> ScenarioInput:
    """A copy of ``scenario`` with node ``n`` called ``mapping[n]`` (others unchanged),
    everywhere a node is named: the Node's ``metadata.name``, pods' ``spec.nodeName`` and
    ``status.nominatedNodeName``, and ``matchFields`` ``metadata.name`` values in node affinity
    terms. Labels (also ``kubernetes.io/hostname``) are left as they are: they are not names."""
    docs = copy.deepcopy(scenario.documents)

    def rename(name: str) -> str:
        return mapping.get(name, name)

    for o in _objects(docs):
        kind = o.get("kind")
        if kind == "Node":
            o["metadata"]["name"] = rename(o["metadata"]["name"])
        elif kind == "Pod":
            spec = o.get("spec") or {}
            if spec.get("nodeName"):
                spec["nodeName"] = rename(spec["nodeName"])
            status = o.get("status") or {}
            if status.get("nominatedNodeName"):
                status["nominatedNodeName"] = rename(status["nominatedNodeName"])
            na = ((spec.get("affinity") or {}).get("nodeAffinity") or {})
            req = na.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
            _rename_terms(req.get("nodeSelectorTerms"), rename)
            _rename_terms([p.get("preference") for p in
                           na.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
                           if isinstance(p, dict)], rename)
    return scenario.derived(documents=docs, config=copy.deepcopy(scenario.config),
                            name=scenario.name + "-renamed", covers="")


def permute_nodes(scenario: ScenarioInput, seed: int = 0) -> ScenarioInput:
    """A copy of ``scenario`` with its top-level Node documents shuffled among their places
    (everything else stays put)."""
    docs = copy.deepcopy(scenario.documents)
    places = [i for i, d in enumerate(docs) if isinstance(d, dict) and d.get("kind") == "Node"]
    nodes = [docs[i] for i in places]
    random.Random(seed).shuffle(nodes)
    for i, n in zip(places, nodes, strict=True):
        docs[i] = n
    return scenario.derived(documents=docs, config=copy.deepcopy(scenario.config),
                            name=scenario.name + "-permuted", covers="")


def add_unfit_node(scenario: ScenarioInput, name: str = UNFIT_NODE_NAME) -> ScenarioInput:
    """A copy of ``scenario`` with one more Node that no pod can use: no labels (so it is no
    topology domain of any spread or affinity term), ``spec.unschedulable``, a NoSchedule taint
    no toleration names, and zero allocatable (pods, cpu, memory)."""
    docs = copy.deepcopy(scenario.documents)
    node = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name},
        "spec": {"unschedulable": True,
                 "taints": [{"key": UNFIT_TAINT_KEY, "value": "x", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "0", "memory": "0", "pods": "0"},
                   "capacity": {"cpu": "0", "memory": "0", "pods": "0"}},
    }
    last = max((i for i, d in enumerate(docs) if isinstance(d, dict) and d.get("kind") == "Node"),
               default=-1)
    docs.insert(last + 1, node)
    return scenario.derived(documents=docs, config=copy.deepcopy(scenario.config),
                            name=scenario.name + "-plus-unfit-node", covers="")
