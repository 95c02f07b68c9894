"""Scenarios the real control planes (process, docker) can never bring to an end, refused up
front with a stated reason (:class:`ScenarioUnsupported`: the diff and golden engines skip such
a scenario and say why), as ``plan.refuse_storage`` refuses storage: a pod that names one
ResourceClaim in two entries of ``spec.resourceClaims``, which kube-scheduler never binds on a
real API server (docs/upstream-deviations.md#upstream-dra-claim-listed-twice; the Go lines in
:func:`refuse_claim_listed_twice`); and a pod a timeline event creates whose claim comes from
a ResourceClaimTemplate, whose claim no resourceclaim controller would create
(:func:`refuse_timeline_template_claims`); and a timeline event that takes a pod using DRA,
whose claims no resourceclaim controller would release (:func:`refuse_timeline_claim_release`),
or a pod using DRA that a higher-priority pod may preempt (:func:`refuse_victim_claim_release`);
and a timeline event that writes an object (``applyObject``, ``deleteObject``:
:func:`refuse_timeline_object_writes`)."""

from __future__ import annotations

from collections.abc import Iterable, Set

from conformance.core.subject import ScenarioUnsupported
from reference_impl.model.objects import Cluster, Pod
from reference_impl.model.scenario import DELETE_NODE, DELETE_POD, FINISH_POD, Scenario
from reference_impl.model.timeline_objects import APPLY_OBJECT, DELETE_OBJECT
from reference_impl.plugins.dynamicresources.extendeddynamicresources import (
    is_dra_extended_resource_name,
    pod_scalar_resources,
)

#: the upstream deviation a claim named twice meets (oracles/upstream_deviations.yaml)
CLAIM_LISTED_TWICE = "upstream-dra-claim-listed-twice"


def claims_listed_twice(pod: Pod) -> list[str]:
    """The ResourceClaims ``pod`` names in more than one entry of ``spec.resourceClaims``
    (by ``resourceClaimName``, or a template's claim as ``status.resourceClaimStatuses``
    names it), in the order of their second listing."""
    statuses = dict(pod.resource_claim_statuses)
    seen: set[str] = set()
    twice: list[str] = []
    for src in pod.resource_claim_sources:
        name = src.resource_claim_name or statuses.get(src.name)
        if name is None:
            continue
        if name in seen and name not in twice:
            twice.append(name)
        seen.add(name)
    return twice


def _scheduled_pods(cluster: Cluster, timeline: Scenario | None) -> Iterable[Pod]:
    """The pods kube-scheduler may schedule: pending ones and those the timeline creates
    without a node."""
    yield from (p for p in cluster.pods if not p.node_name)
    if timeline is not None:
        for ev in (*timeline.events, *timeline.triggered):
            if ev.action == "createPod" and ev.pod is not None and not ev.pod.node_name:
                yield ev.pod


def refuse_claim_listed_twice(cluster: Cluster, timeline: Scenario | None, name: str,
                              scheduler_names: Set[str]) -> None:
    """Raise :class:`ScenarioUnsupported` when a pod the scenario's scheduler serves
    (``scheduler_names``) names one ResourceClaim in two entries. API validation asks only for
    distinct entry names (``pkg/apis/core/validation/validation.go`` 3334-3340 at v1.37.2).
    DynamicResources keeps one entry per listing (``dynamicresources.go`` 500-512) and PreBind
    reserves each entry whose own stale copy does not show the pod (1683-1697): the second
    entry's update conflicts, is retried on the claim just reserved (1896-1904) and appends the
    pod again (1935), which the API server refuses (``status.reservedFor[1]: Duplicate value``:
    ``pkg/apis/resource/validation/validation.go`` 568-572). Unreserve removes the reservation
    (1629-1645) and every retry fails alike, so the scenario never settles. The reference and
    the upstream subject, whose fake API server does not validate ``reservedFor``, bind the
    pod on its retry."""
    for p in _scheduled_pods(cluster, timeline):
        twice = claims_listed_twice(p) if p.scheduler_name in scheduler_names else []
        if twice:
            raise ScenarioUnsupported(
                f"scenario {name}: pod {p.namespace}/{p.name} names ResourceClaim "
                f"{p.namespace}/{twice[0]} in two entries of spec.resourceClaims; on a real "
                f"API server kube-scheduler never binds it (every PreBind fails with "
                f"\"status.reservedFor: Duplicate value\", {CLAIM_LISTED_TWICE}) and the "
                "scenario would never settle")


def timeline_template_claims(cluster: Cluster, timeline: Scenario | None) -> list[tuple[Pod, str]]:
    """The (pod, template) pairs of the pods ``timeline``'s ``createPod`` events create that
    name an existing ResourceClaimTemplate of their namespace in an entry without a
    ``status.resourceClaimStatuses`` entry: those whose claim the reference and the upstream
    subject create when the event is applied (docs/dra.md, "Claims from templates")."""
    out: list[tuple[Pod, str]] = []
    for ev in (*timeline.events, *timeline.triggered) if timeline is not None else ():
        if ev.action != "createPod" or ev.pod is None:
            continue
        known = {name for name, _ in ev.pod.resource_claim_statuses}
        for src in ev.pod.resource_claim_sources:
            t = src.resource_claim_template_name
            if (t is not None and src.name not in known
                    and f"{ev.pod.namespace}/{t}" in cluster.dra.claim_templates):
                out.append((ev.pod, t))
    return out


def refuse_timeline_template_claims(cluster: Cluster, timeline: Scenario | None,
                                    name: str) -> None:
    """Raise :class:`ScenarioUnsupported` when a pod the timeline creates has a claim to be
    made from a ResourceClaimTemplate. The backends run no kube-controller-manager, so no
    resourceclaim controller (``handleClaim``, pkg/controller/resourceclaim/controller.go)
    creates that claim: the pod would wait at PreEnqueue ("ResourceClaim not created yet")
    where the reference and the upstream subject, which create the claim when the event is
    applied, schedule it. The claims of the pods loaded at the start are created by the
    backends from the documents (``with_controller_claims``); those of timeline pods are not."""
    found = timeline_template_claims(cluster, timeline)
    if found:
        pod, template = found[0]
        raise ScenarioUnsupported(
            f"scenario {name}: pod {pod.namespace}/{pod.name}, created by the timeline, has a "
            f"claim from ResourceClaimTemplate {pod.namespace}/{template}; the backends run no "
            "resourceclaim controller, so nothing would create that claim when the event "
            "creates the pod (the reference and the upstream subject do): not supported by "
            "this subject")


def pod_uses_dra(pod: Pod, cluster: Cluster) -> bool:
    """The pod has ``spec.resourceClaims``, or requests an extended resource that a
    DeviceClass of the cluster may back (any DRA extended resource name when the cluster has
    DeviceClasses: whether one maps it is not checked, so this may say yes too often)."""
    return bool(pod.resource_claim_sources) or (bool(cluster.dra.device_classes) and any(
        q and is_dra_extended_resource_name(n) for n, q in pod_scalar_resources(pod).items()))


def refuse_timeline_claim_release(cluster: Cluster, timeline: Scenario | None,
                                  name: str) -> None:
    """Raise :class:`ScenarioUnsupported` when a timeline event takes a pod that uses DRA
    (:func:`pod_uses_dra`): a ``deletePod`` or ``finishPod`` of such a pod, or a
    ``deleteNode`` (the pod garbage collector deletes the node's pods) in a scenario with such
    a pod. The reference and the upstream subject then do the resourceclaim controller's
    cleanup (``syncClaim``, pkg/controller/resourceclaim/controller.go: the reservation
    dropped, the claim deallocated, the pod's own claims deleted, docs/dra.md); the backends
    run no kube-controller-manager, so its devices would stay allocated."""
    if timeline is None:
        return
    pods = {p.key: p for p in cluster.pods}
    events = (*timeline.events, *timeline.triggered)
    for ev in events:
        if ev.action == "createPod" and ev.pod is not None:
            pods.setdefault(ev.pod.key, ev.pod)
    users = {k for k, p in pods.items() if pod_uses_dra(p, cluster)}
    for ev in events:
        what = ""
        if ev.action in (DELETE_POD, FINISH_POD) and ev.target in users:
            what = f"{ev.action} of pod {ev.target}, which uses DRA"
        elif ev.action == DELETE_NODE and users:
            what = f"deleteNode {ev.target} in a scenario with pods using DRA"
        if what:
            raise ScenarioUnsupported(
                f"scenario {name}: timeline event {ev.index} ({what}); the backends run no "
                "resourceclaim controller, so nothing would release the pod's claims "
                "(the reference and the upstream subject do): not supported by this subject")


def refuse_victim_claim_release(cluster: Cluster, timeline: Scenario | None, name: str,
                                scheduler_names: Set[str]) -> None:
    """Raise :class:`ScenarioUnsupported` when a pod that uses DRA (:func:`pod_uses_dra`; at
    the start or created by the timeline) may be a preemption victim: a pod the scenario's
    scheduler serves (``scheduler_names``), pending or created by the timeline without a
    node, has a higher priority and may preempt (``preemptionPolicy`` not ``Never``). The
    reference and the upstream subject then release the victim's claims as the resourceclaim
    controller does (docs/dra.md, "The resourceclaim controller's cleanup"); the backends run
    no kube-controller-manager, so its devices would stay allocated. Whether the preemption
    happens is not known before the run, so this may refuse too often."""
    pods = {p.key: p for p in cluster.pods}
    for ev in (*timeline.events, *timeline.triggered) if timeline is not None else ():
        if ev.action == "createPod" and ev.pod is not None:
            pods.setdefault(ev.pod.key, ev.pod)
    users = [p for p in pods.values() if pod_uses_dra(p, cluster)]
    if not users:
        return
    low = min(users, key=lambda p: p.priority)
    for q in _scheduled_pods(cluster, timeline):
        if (q.scheduler_name in scheduler_names and q.preemption_policy != "Never"
                and q.priority > low.priority):
            raise ScenarioUnsupported(
                f"scenario {name}: pod {q.key} (priority {q.priority}) may preempt pod "
                f"{low.key} (priority {low.priority}), which uses DRA; the backends run no "
                "resourceclaim controller, so nothing would release a victim's claims (the "
                "reference and the upstream subject do): not supported by this subject")


def refuse_timeline_object_writes(timeline: Scenario | None, name: str) -> None:
    """Raise :class:`ScenarioUnsupported` for a timeline ``applyObject`` or ``deleteObject``
    event (a ResourceSlice, DeviceClass or DeviceTaintRule written while pods wait,
    reference_impl/model/timeline_objects.py). The backends would have to write the object
    with the run's names (nodes and pools renamed per run) through the API server; not done
    yet: the reference and the upstream subject apply them."""
    if timeline is None:
        return
    for ev in (*timeline.events, *timeline.triggered):
        if ev.action in (APPLY_OBJECT, DELETE_OBJECT):
            raise ScenarioUnsupported(
                f"scenario {name}: timeline event {ev.index} ({ev.action} {ev.target}): "
                "the backends do not write objects from a timeline yet (the reference and "
                "the upstream subject do): not supported by this subject")
