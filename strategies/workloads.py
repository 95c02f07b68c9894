"""Workload documents (feature ``workloads``): Deployments, ReplicaSets, StatefulSets,
DaemonSets and Jobs with small replica counts, pod templates from ``objects.pod_templates``,
sometimes a Service selecting them; in about one scenario in four. They are expanded here, once,
by ``expand_workloads`` (mode ``auto``): the scenario holds the workloads and the pods their
controllers create, so every subject and every replay sees the same pods; their pods count
against ``Sizes.max_pending_pods`` (docs/strategies.md#workloads)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from reference_impl.model.workloads import expand_workloads
from strategies._cache import booleans, composite, integers, sampled
from strategies.clusters import GeneratedCluster
from strategies.objects import pod_templates, sometimes
from strategies.sizes import Sizes
from strategies.storage import StorageClasses, claim_template_spec

__all__ = ["WORKLOAD_LABEL", "GENERATED_WORKLOAD_KINDS", "add_workloads", "workload_documents"]

Doc = dict[str, Any]

#: the label every generated workload's template carries (its name), so its selector always
#: has a key its pods alone hold
WORKLOAD_LABEL = "example.com/workload"
#: (apiVersion, kind) of the workloads generated, in shrinking order (a ReplicaSet is simplest)
GENERATED_WORKLOAD_KINDS = (("apps/v1", "ReplicaSet"), ("apps/v1", "Deployment"),
                            ("apps/v1", "StatefulSet"), ("batch/v1", "Job"),
                            ("apps/v1", "DaemonSet"))
#: the largest replica count (or Job parallelism) drawn, whatever the sizes allow
MAX_WORKLOAD_REPLICAS = 4
_SOURCE = "<generated>"


@composite
def _selector(draw: st.DrawFn, labels: Mapping[str, str]) -> dict[str, str]:
    """``matchLabels``: the workload label, sometimes with template labels (sorted keys, so a
    draw shrinks to the workload label alone). A selector over shared labels only may adopt
    the generated pods without a controller it selects (``ClaimPods``)."""
    others = sorted(k for k in labels if k != WORKLOAD_LABEL)
    chosen = draw(st.lists(sampled(others), max_size=len(others), unique=True)) \
        if others else []
    keep_own = not chosen or draw(integers(0, 3)) != 3
    keys = sorted(chosen) + ([WORKLOAD_LABEL] if keep_own else [])
    return {k: labels[k] for k in keys}


@composite
def _workload(draw: st.DrawFn, index: int, cluster: GeneratedCluster, sizes: Sizes,
              features: frozenset[str], scheduler_names: tuple[str, ...],
              budget: int, classes: StorageClasses | None = None) -> list[Doc]:
    """One workload document creating at most ``budget`` pods (a DaemonSet only when the
    budget covers every node), and a Service selecting its pods one time in three (with
    ``services``); a StatefulSet has 1-2 ``volumeClaimTemplates`` one time in two when
    ``classes`` are given (feature ``storage``)."""
    kinds = [k for k in GENERATED_WORKLOAD_KINDS
             if k[1] != "DaemonSet" or budget >= len(cluster.nodes)]
    api_version, kind = draw(sampled(kinds))
    name = f"wl{index}-{kind.lower()}"
    pod = draw(pod_templates(sizes, features, cluster.pod_context(scheduler_names)))
    namespace = pod["metadata"].get("namespace", "default")
    labels = {**(pod["metadata"].get("labels") or {}), WORKLOAD_LABEL: name}
    template: Doc = {"metadata": {"labels": labels}, "spec": pod["spec"]}
    replicas = draw(integers(1, min(sizes.max_replicas, MAX_WORKLOAD_REPLICAS, budget)))
    spec: Doc = {}
    if kind == "Job":
        # ValidateJobSpec: Never or OnFailure; the API server generates the selector
        template["spec"]["restartPolicy"] = draw(sampled(("Never", "OnFailure")))
        spec["parallelism"] = replicas
        if draw(booleans()):
            spec["completions"] = draw(integers(1, replicas + 1))
    else:
        spec["selector"] = {"matchLabels": draw(_selector(labels))}
        if kind != "DaemonSet":  # a DaemonSet has a pod per node it accepts
            spec["replicas"] = replicas
    if kind == "StatefulSet":
        # OrderedReady (the default) creates each replica when the previous one is bound: a
        # timeline event triggered by a binding (docs/expansion.md#statefulset), so only in
        # scenarios that may hold a timeline
        policies = ("Parallel", "OrderedReady") if "timeline" in features else ("Parallel",)
        spec["podManagementPolicy"] = draw(sampled(policies))
        spec["serviceName"] = name
        if classes is not None and sometimes(draw, 2):
            spec["volumeClaimTemplates"] = [
                {"metadata": {"name": f"data-{i}"}, "spec": claim_template_spec(draw, classes)}
                for i in range(draw(integers(1, 2)))]
    spec["template"] = template
    out = [{"apiVersion": api_version, "kind": kind,
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}]
    if "services" in features and sometimes(draw, 3) and kind != "Job":
        out.append({"apiVersion": "v1", "kind": "Service",
                    "metadata": {"name": f"{name}-svc", "namespace": namespace},
                    "spec": {"selector": dict(spec["selector"]["matchLabels"]),
                             "ports": [{"port": 80, "protocol": "TCP"}]}})
    return out


@composite
def workload_documents(draw: st.DrawFn, cluster: GeneratedCluster, sizes: Sizes,
                       features: frozenset[str], scheduler_names: tuple[str, ...],
                       budget: int, classes: StorageClasses | None = None) -> list[Doc]:
    """Up to two workloads (and their Services) creating at most ``budget`` pods, about one
    time in four when ``workloads`` is among ``features``; nothing otherwise."""
    if "workloads" not in features or budget < 1 or not sometimes(draw, 4):
        return []
    out: list[Doc] = []
    for i in range(draw(integers(1, 2))):
        if budget < 1:
            break
        docs = draw(_workload(i, cluster, sizes, features, scheduler_names, budget, classes))
        spec = docs[0]["spec"]
        budget -= (len(cluster.nodes) if docs[0]["kind"] == "DaemonSet"
                   else spec.get("replicas", spec.get("parallelism", 0)))
        out += docs
    return out


@composite
def add_workloads(draw: st.DrawFn, cluster: GeneratedCluster, pending: list[Doc],
                  sizes: Sizes, features: frozenset[str], scheduler_names: tuple[str, ...],
                  classes: StorageClasses | None = None) -> tuple[list[Doc], list[Doc]]:
    """Draw workloads for ``cluster`` and expand them: the pods created are appended to
    ``pending``, a pod a workload adopted is updated in place; returns the documents to add
    to the scenario after the pods (the workloads completed as the API server stores them,
    their Services, a Deployment's ReplicaSet) and the timeline events creating an
    OrderedReady StatefulSet's later replicas (``when: {podBound: ...}``). ``classes``: the
    StorageClasses a StatefulSet's claim templates may name (feature ``storage``)."""
    budget = sizes.max_pending_pods - len(pending)
    drawn = draw(workload_documents(cluster, sizes, features, scheduler_names, budget,
                                    classes))
    if not drawn:
        return [], []
    existing = cluster.documents(pending)
    inputs = [*existing, *drawn]
    x = expand_workloads([(_SOURCE, i, d) for i, d in enumerate(inputs, start=1)], "auto")
    docs = [d for _, _, d in x.documents]  # the inputs (one each), then what was created
    for before, after in zip(inputs, docs, strict=False):
        if after is not before and before["kind"] == "Pod":  # adopted: ownerReferences
            before.clear()
            before.update(after)
    out = list(docs[len(existing):len(inputs)])
    for c in x.created:
        if c.kind == "Pod":
            pending.append(c.doc)
        elif c.doc is not x.scenario:  # the triggered events go into the scenario's timeline
            out.append(c.doc)
    return out, list(x.triggered)
