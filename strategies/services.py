"""Services selecting generated pods and the ReplicationControllers / ReplicaSets /
StatefulSets their ownerReferences name: what ``helper.DefaultSelector`` reads, so that the
default profile's PodTopologySpread system default constraints apply to generated pods
(docs/strategies.md#services-and-controllers).

Each owner named by a controlling ownerReference of a kind DefaultSelector reads gets its object
(same namespace, name and uid) three times in four, with a ``matchLabels`` selector over labels
its pods share and the pod template validation requires (those labels, the first pod's
containers); an owner whose pods have no labels, or left out, is a missing owner. Each
namespace holding pods gets up to two Services selecting a subset of one pod's labels; one in
five has no selector (it selects nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hypothesis import strategies as st

from strategies._cache import composite, integers, sampled

__all__ = ["OWNER_OBJECT_KINDS", "selecting_objects"]

Doc = dict[str, Any]

#: (apiVersion, kind) of the owners DefaultSelector reads, as ownerReferences name them
OWNER_OBJECT_KINDS = (("v1", "ReplicationController"), ("apps/v1", "ReplicaSet"),
                      ("apps/v1", "StatefulSet"))


def _namespace(pod: Mapping[str, Any]) -> str:
    return str(pod["metadata"].get("namespace") or "default")


@composite
def _selector_labels(draw: st.DrawFn, labels: Mapping[str, str]) -> dict[str, str]:
    """A non-empty subset of ``labels`` (keys in sorted order, so a draw shrinks to the first)."""
    keys = sorted(labels)
    chosen = draw(st.lists(sampled(keys), min_size=1, max_size=len(keys), unique=True))
    return {k: labels[k] for k in sorted(chosen)}


@composite
def _owner_object(draw: st.DrawFn, ref: Mapping[str, Any], namespace: str,
                  pods: list[Mapping[str, Any]]) -> Doc | None:
    common = dict(pods[0]["metadata"].get("labels") or {})
    for p in pods[1:]:
        labels = p["metadata"].get("labels") or {}
        common = {k: val for k, val in common.items() if labels.get(k) == val}
    if not common or draw(integers(0, 3)) == 3:
        return None  # a missing owner: DefaultSelector keeps the Services' selector
    selector = draw(_selector_labels(common))
    kind = ref["kind"]
    meta: Doc = {"name": ref["name"], "namespace": namespace, "uid": ref["uid"]}
    spec: Doc = ({"selector": selector} if kind == "ReplicationController"
                 else {"selector": {"matchLabels": selector}})
    spec["replicas"] = len(pods)
    # the API server requires a template whose labels the selector selects (validation of
    # the RC/RS/StatefulSet spec), and so does the workload expansion reading the file
    containers = [{"name": c["name"], "image": c["image"]} for c in pods[0]["spec"]["containers"]]
    spec["template"] = {"metadata": {"labels": dict(common)}, "spec": {"containers": containers}}
    return {"apiVersion": ref["apiVersion"], "kind": kind, "metadata": meta, "spec": spec}


@composite
def _services(draw: st.DrawFn, namespace: str, pods: list[Mapping[str, Any]]) -> list[Doc]:
    out: list[Doc] = []
    for i in range(draw(integers(0, 2))):
        meta: Doc = {"name": f"svc-{i}", "namespace": namespace}
        spec: Doc = {"ports": [{"port": 80, "protocol": "TCP"}]}
        labelled = [p for p in pods if p["metadata"].get("labels")]
        if labelled and draw(integers(0, 4)) != 4:
            pod = draw(sampled(range(len(labelled))))
            spec["selector"] = draw(_selector_labels(labelled[pod]["metadata"]["labels"]))
        out.append({"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": spec})
    return out


@composite
def selecting_objects(draw: st.DrawFn, pods: Iterable[Mapping[str, Any]],
                      present: Iterable[Mapping[str, Any]] = ()) -> list[Doc]:
    """The Services and owner objects for ``pods`` (pod manifests), in a fixed order: owners
    in the order their pods first name them, then each namespace's Services. An owner among
    the ``present`` objects (a generated workload, strategies/workloads.py) is not drawn
    again."""
    have = {(_namespace(d), d.get("kind"), d["metadata"].get("name")) for d in present}
    by_owner: dict[tuple[str, str, str, str], tuple[Mapping[str, Any], list]] = {}
    by_namespace: dict[str, list[Mapping[str, Any]]] = {}
    for pod in pods:
        ns = _namespace(pod)
        by_namespace.setdefault(ns, []).append(pod)
        ref = next((o for o in pod["metadata"].get("ownerReferences") or ()
                    if o.get("controller")), None)
        if ref is None or (ref["apiVersion"], ref["kind"]) not in OWNER_OBJECT_KINDS:
            continue
        if (ns, ref["kind"], ref["name"]) in have:
            continue
        key = (ns, ref["apiVersion"], ref["kind"], ref["name"])
        by_owner.setdefault(key, (ref, []))[1].append(pod)
    out: list[Doc] = []
    for (ns, *_), (ref, owned) in by_owner.items():
        obj = draw(_owner_object(ref, ns, owned))
        if obj is not None:
            out.append(obj)
    for ns, ns_pods in by_namespace.items():
        out += draw(_services(ns, ns_pods))
    return out
