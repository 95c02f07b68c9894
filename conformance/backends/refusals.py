"""Scenarios the real control planes (process, docker) cannot run as the reference does, refused
up front with a stated reason (:class:`ScenarioUnsupported`: the diff and golden engines skip
such a scenario and say why), as ``plan.refuse_storage`` refuses storage: a pod that names one
ResourceClaim in two entries of ``spec.resourceClaims``, which kube-scheduler never binds on a
real API server (docs/upstream-deviations.md#upstream-dra-claim-listed-twice; the Go lines in
:func:`refuse_claim_listed_twice`); and a timeline ``deleteObject`` of a ResourceClaim that
may carry the delete-protection finalizer (:func:`refuse_timeline_claim_deletes`); a cluster
left without a node while pods wait (:func:`refuse_nodeless_end`). Claims
from templates and their release when a pod goes are the resourceclaim controller's, which
the backends run (docs/backends.md)."""

from __future__ import annotations

from collections.abc import Iterable, Set

from conformance.core.subject import ScenarioUnsupported
from reference_impl.model.dra import CLAIM_FINALIZER, ResourceClaim
from reference_impl.model.objects import Cluster, Pod
from reference_impl.model.scenario import Scenario
from reference_impl.model.timeline_objects import APPLY_OBJECT, DELETE_OBJECT

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


def _protected_claims(cluster: Cluster, timeline: Scenario | None) -> set[str]:
    """The claims (``NAMESPACE/NAME``) that may carry the delete-protection finalizer: those
    the input or an ``applyObject`` gives it, and those a pod names (PreBind adds it with the
    allocation)."""
    out = {k for k, c in cluster.dra.claims.items() if CLAIM_FINALIZER in c.finalizers}
    pods = list(cluster.pods)
    for ev in (*timeline.events, *timeline.triggered) if timeline is not None else ():
        if ev.action == "createPod" and ev.pod is not None:
            pods.append(ev.pod)
        if ev.action == APPLY_OBJECT and isinstance(ev.obj, ResourceClaim) \
                and CLAIM_FINALIZER in ev.obj.finalizers:
            out.add(ev.name)
    for p in pods:
        statuses = dict(p.resource_claim_statuses)
        for src in p.resource_claim_sources:
            name = src.resource_claim_name or statuses.get(src.name)
            if name:
                out.add(f"{p.namespace}/{name}")
    return out


def refuse_timeline_claim_deletes(cluster: Cluster, timeline: Scenario | None,
                                  name: str) -> None:
    """Raise :class:`ScenarioUnsupported` for a timeline ``deleteObject`` of a ResourceClaim
    that may carry the delete-protection finalizer (:func:`_protected_claims`). The reference
    and the upstream subject remove the claim at once (reference_impl/scheduler/
    object_writes.py, upstream/timeline_objects.go); the API server only marks a claim with
    finalizers deleted (k8s.io/apiserver store.go ``Delete``), and the resourceclaim
    controller removes ``resource.kubernetes.io/delete-protection`` only once no pod is
    reserved for it (``syncClaim``, pkg/controller/resourceclaim/controller.go 1627-1648 at
    v1.37.2): a claim in use would stay allocated. A claim without it is removed at once on
    both; the other object writes are API calls of the backends' timeline
    (conformance/backends/timeline.py)."""
    if timeline is None:
        return
    protected: set[str] | None = None
    for ev in (*timeline.events, *timeline.triggered):
        if ev.action != DELETE_OBJECT or ev.kind != "ResourceClaim":
            continue
        if protected is None:
            protected = _protected_claims(cluster, timeline)
        if ev.name in protected:
            raise ScenarioUnsupported(
                f"scenario {name}: timeline event {ev.index} ({ev.action} {ev.target}): on "
                "the API server a claim with the delete-protection finalizer stays until no "
                "pod uses it (the reference and the upstream subject remove it at once): not "
                "supported by this subject")


def refuse_nodeless_end(cluster: Cluster, timeline: Scenario | None, name: str,
                        scheduler_names: Set[str]) -> None:
    """Raise :class:`ScenarioUnsupported` when the cluster ends without a node (none in the
    input, or the timeline deletes the last one and creates none after) while the scenario has
    pods for kube-scheduler to place. A pod attempted with no node fails with
    ``ErrNoNodesAvailable`` (``pkg/scheduler/schedule_one.go`` ``schedulePod``), a status no
    plugin rejected, so the queue retries it after every backoff
    (``determineSchedulingHintForInFlightPod``, ``backend/queue/scheduling_queue.go``: no
    failed plugins, ``queueAfterBackoff``) and the run never settles; the reference's
    quiescence rule stops it (docs/backends.md, "Not solved"). Conservative: a pod bound
    before the last node goes would not be retried."""
    pods = [p for p in _scheduled_pods(cluster, timeline) if p.scheduler_name in scheduler_names]
    if not pods:
        return
    nodes = {n.name for n in cluster.nodes}
    until = timeline.until if timeline is not None else None
    for ev in timeline.events if timeline is not None else ():
        if until is not None and ev.at > until:
            break
        if ev.action == "createNode":
            nodes.add(ev.target)
        elif ev.action == "deleteNode":
            nodes.discard(ev.target)
    if not nodes:
        raise ScenarioUnsupported(
            f"scenario {name}: the cluster ends without a node while pod "
            f"{pods[0].namespace}/{pods[0].name} is to be scheduled; kube-scheduler retries a "
            "pod attempted with no node after every backoff (\"no nodes available to schedule "
            "pods\") and the scenario would never settle")
