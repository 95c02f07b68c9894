"""reference_impl/model/loader/memo.py: loads with a LoadMemo give the clusters loads without
one give, and what the loader does to a pod after converting it stays in that load."""

from __future__ import annotations

import copy
from typing import Any

from conformance.engines.mutants.patching import patched
from reference_impl.model.loader import load_documents
from reference_impl.model.loader.memo import LoadMemo

V1 = "resource.k8s.io/v1"


def pod(name: str, *, node: str = "", pc: str = "", template: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i", "resources": {
        "requests": {"cpu": "500m", "memory": "1Gi"}}}]}
    if node:
        spec["nodeName"] = node
    if pc:
        spec["priorityClassName"] = pc
    if template:
        spec["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": template}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "team"},
            "spec": spec}


def node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def priority_class(value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "high"}, "value": value}


TEMPLATE = {"apiVersion": V1, "kind": "ResourceClaimTemplate",
            "metadata": {"name": "single", "namespace": "team"},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}}


def summary(docs: list[dict[str, Any]], memo: LoadMemo | None) -> list[Any]:
    c = load_documents(docs, memo=memo).cluster
    return ([(p.key, p.uid, p.order, p.node_name, p.priority, p.resources,
              p.resource_claim_statuses) for p in c.pods]
            + [(n.name, n.uid, n.order, n.allocatable) for n in c.nodes]
            + sorted(c.dra.claims))


def test_states_of_a_cluster_load_as_without_memo() -> None:
    memo = LoadMemo()
    base = [priority_class(10), node("n1"), node("n2"), pod("a", pc="high"), pod("b"),
            pod("c")]
    bound = list(base)
    bound[3] = pod("a", pc="high", node="n1")  # a state after a binding
    victims = [d for d in bound if d["metadata"]["name"] != "b"]  # b preempted
    other_class = [priority_class(20), *base[1:]]
    for docs in (base, bound, victims, other_class, base):
        assert summary(docs, memo) == summary(docs, None)
    assert memo.hits > 0


def test_a_hit_is_a_copy() -> None:
    """The claims of ResourceClaimTemplates are added to the loaded pod: the second load of
    the same pod gets its claim too, and the two loads do not share pod objects."""
    memo = LoadMemo()
    docs = [node("n1"), TEMPLATE, pod("p", template="single")]
    first = load_documents(docs, memo=memo).cluster
    second = load_documents(copy.deepcopy(docs), memo=memo).cluster
    assert memo.hits == 2  # the pod and the node
    assert first.pods[0] is not second.pods[0]
    assert second.pods[0].resource_claim_statuses == first.pods[0].resource_claim_statuses
    assert len(second.pods[0].resource_claim_statuses) == 1
    assert sorted(second.dra.claims) == sorted(first.dra.claims) != []


def test_a_changed_document_is_converted_again() -> None:
    memo = LoadMemo()
    docs = [node("n1"), pod("p")]
    load_documents(docs, memo=memo)
    docs[1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"  # changed in place
    got = load_documents(docs, memo=memo).cluster.pods[0]
    assert got.resources == load_documents(docs).cluster.pods[0].resources
    assert memo.hits == 1  # the node only


def test_a_planted_bug_is_not_hidden_by_earlier_conversions() -> None:
    """A mutant patches functions the loader calls (a pod's host ports, its requests): the
    conversions a memo kept from before are forgotten when the patches are applied and when
    they are restored (``patched`` calls ``forget_conversions``), else a mutant run after the
    genuine reference saw the genuine pods (tests/test_mutants.py failed in suite order)."""
    memo = LoadMemo()
    docs = [node("n1"), pod("p", node="n1")]
    load_documents(docs, memo=memo)
    load_documents(docs, memo=memo)
    assert memo.hits == 2
    with patched([]):
        load_documents(docs, memo=memo)
        assert memo.hits == 2  # converted again
        load_documents(docs, memo=memo)
        assert memo.hits == 4
    load_documents(docs, memo=memo)
    assert memo.hits == 4  # and again after the restore
