"""Oracle ``dra_allocations``: every device a subject allocated to a bound pod's ResourceClaim
is one the structured allocator may give it.

Upstream rules: k8s.io/dynamic-resource-allocation/structured/internal/incubating
(allocator_incubating.go: ``isSelectable``/``selectorsMatch``, ``allocateDevice``'s in-use
check, ``taintPreventsAllocation``; constraint.go: ``matchAttributeConstraint``,
``distinctAttributeConstraint``; pools.go ``GatherPools``: the newest generation of a pool, node
matching). The invariant and its exceptions: docs/oracles.md#dra_allocations."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from oracles.base import OracleContext, Violation
from oracles.replay import Replay
from reference_impl.api.node_selectors import new_node_selector
from reference_impl.dra.cel import (
    CELCompileError,
    CELMatchError,
    DeviceView,
    compile_selector,
)
from reference_impl.model.claim_cleanup import pod_claim_names
from reference_impl.model.dra import (
    ALLOCATION_MODE_EXACT_COUNT,
    DEVICE_TAINT_NO_EXECUTE,
    DEVICE_TAINT_NO_SCHEDULE,
    Device,
    DeviceRequest,
    DeviceSelector,
    DeviceTaint,
    DeviceToleration,
    DRAObjects,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceClaimSpec,
    ResourceSlice,
)
from reference_impl.model.objects import Container, Node, Pod
from reference_impl.model.scenario import parse_scenario

NAME = "dra_allocations"
#: the result's name of the claim made for a pod's DRA-backed extended resources
#: (``specialClaimInMemName``, extendeddynamicresources.go)
EXTENDED_CLAIM = "<extended-resources>"
#: ``deviceclass.resource.kubernetes.io/<class>``: the extended resource every class maps
DEVICE_CLASS_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"
#: upstream deviation (oracles/upstream_deviations.yaml): allocatedDevices is a set, so a
#: claim update that drops an allocation frees its devices although another claim holds them
DROPPED_SHARED_DEVICE = "upstream-dra-allocated-devices-drops-a-shared-device"

DeviceID = tuple[str, str, str]  # driver, pool, device


@dataclass(frozen=True, slots=True)
class _Located:
    device: Device
    slice: ResourceSlice


def _with_rule_taints(dra: DRAObjects, d: Device, s: ResourceSlice) -> Device:
    """The device with the taints of the DeviceTaintRules that select it appended
    (k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker.go ``applyPatches``:
    no selector selects nothing; a set driver/pool/device must equal the slice's or device's).
    Restated here rather than imported, so that a mutant of the reference's
    ``dra/taintrules.py`` does not reach the oracle."""
    extra = tuple(r.taint for r in dra.taint_rules if r.device_selector is not None
                  and r.device_selector.driver in (None, s.driver)
                  and r.device_selector.pool in (None, s.pool)
                  and r.device_selector.device in (None, d.name))
    return dataclasses.replace(d, taints=(*d.taints, *extra)) if extra else d


def _newest_devices(dra: DRAObjects, rules: bool = False) -> dict[DeviceID, _Located]:
    """The devices of each pool's newest generation (pools.go ``addSlice``), with the taints
    of the DeviceTaintRules when ``rules`` (the DRADeviceTaintRules gate)."""
    newest: dict[tuple[str, str], int] = {}
    for s in dra.slices:
        key = (s.driver, s.pool)
        newest[key] = max(newest.get(key, s.generation), s.generation)
    out: dict[DeviceID, _Located] = {}
    for s in dra.slices:
        if s.generation == newest[(s.driver, s.pool)]:
            for d in s.devices:
                out.setdefault((s.driver, s.pool, d.name),
                               _Located(_with_rule_taints(dra, d, s) if rules else d, s))
    return out


def _reaches(loc: _Located, node: Node) -> bool:
    """``NodeMatches`` of the slice, or of the device under ``perDeviceNodeSelection``."""
    s, d = loc.slice, loc.device
    if s.per_device_node_selection:
        name, every, sel = d.node_name, d.all_nodes, d.node_selector
    else:
        name, every, sel = s.node_name, s.all_nodes, s.node_selector
    if name:
        return node.name == name
    if every:
        return True
    return sel is not None and new_node_selector(sel).match(node)


def _tolerated(tol: DeviceToleration, taint: DeviceTaint) -> bool:
    """``resourceclaim.ToleratesTaint``. Restated rather than imported from the reference's
    allocator: a mutant patching the allocator must not blind the oracle judging it."""
    if tol.effect and tol.effect != taint.effect:
        return False
    if tol.key and tol.key != taint.key:
        return False
    if tol.operator in ("", "Equal"):
        return tol.value == taint.value
    return tol.operator == "Exists"


def _attribute(device: Device, driver: str, qualified: str) -> object | None:
    """The attribute ``domain/name`` of a device; a name without a domain in the slice
    belongs to the driver's domain (``lookupAttribute``)."""
    domain, _, ident = qualified.rpartition("/")
    for key, value in device.attributes:
        d, _, i = key.rpartition("/")
        if (d or driver) == domain and i == ident:
            return value
    return None


def _selector_failure(selectors: tuple[DeviceSelector, ...], driver: str, device: Device
                      ) -> str | None:
    """The first selector the device does not satisfy; None when all do or one cannot be
    evaluated (upstream then fails the allocation, which other oracles see)."""
    for sel in selectors:
        try:
            ok = compile_selector(sel.cel).device_matches(DeviceView(
                driver, device.attributes, device.capacity, device.allow_multiple_allocations))
        except (CELCompileError, CELMatchError):
            return None
        if not ok:
            return sel.cel
    return None


def _requests(claim: ResourceClaim) -> Iterator[tuple[str, ExactDeviceRequest]]:
    """Every request and subrequest of a claim by its result name (``req`` or ``req/sub``)."""
    for r in claim.spec.requests:
        if r.exactly is not None:
            yield r.name, r.exactly
        for sub in r.first_available:
            yield f"{r.name}/{sub.name}", sub.exactly


def _timeline_templates(ctx: OracleContext) -> dict[tuple[str, str], str]:
    """(pod key, entry name) -> ResourceClaimTemplate name of the pods the timeline creates:
    their claims are made when the event is applied (docs/dra.md, "Claims from templates"),
    so they are not in the initial cluster."""
    out: dict[tuple[str, str], str] = {}
    events = ((ctx.timeline or {}).get("spec") or {}).get("events") or []
    for e in events if isinstance(events, list) else ():
        pod = e.get("pod") if isinstance(e, dict) and e.get("action") == "createPod" else None
        if not isinstance(pod, dict):
            continue
        meta = pod.get("metadata") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
        for pc in (pod.get("spec") or {}).get("resourceClaims") or ():
            if isinstance(pc, dict) and pc.get("resourceClaimTemplateName"):
                out[(key, str(pc.get("name")))] = str(pc["resourceClaimTemplateName"])
    return out


def _allocated(ctx: OracleContext) -> Iterator[tuple[str, str, ResourceClaim, list[Any]]]:
    """(pod key, node, claim, result devices) of every bound pod's allocated claim that the
    input had not allocated; a claim made for a pod the timeline creates is judged by its
    template's spec."""
    bindings = ctx.result.get("bindings") or {}
    dra = ctx.cluster.dra
    templates = _timeline_templates(ctx) if ctx.timeline else {}
    extended = ctx.result.get("extendedResourceClaimStatus") or {}
    for pod_key, entries in sorted((ctx.result.get("resourceClaims") or {}).items()):
        node = bindings.get(pod_key)
        ns = pod_key.partition("/")[0]
        for e in entries or ():
            claim = dra.claims.get(f"{ns}/{e.get('claim')}")
            if claim is None and e.get("name") == EXTENDED_CLAIM and e.get("claim"):
                claim = _extended_claim(ctx, pod_key, str(e["claim"]), extended.get(pod_key))
            tname = templates.get((pod_key, str(e.get("name"))))
            template = dra.claim_templates.get(f"{ns}/{tname}") if tname else None
            if claim is None and template is not None and e.get("claim"):
                claim = ResourceClaim(namespace=ns, name=str(e["claim"]), uid="",
                                      spec=template.spec)
            alloc = e.get("allocation")
            if node is None or claim is None or not alloc or claim.allocation is not None:
                continue
            yield pod_key, node, claim, list(alloc.get("devices") or ())


def _extended_claim(ctx: OracleContext, pod_key: str, name: str,
                    status: dict[str, Any] | None) -> ResourceClaim | None:
    """The claim PreBind made for a pod's DRA-backed extended resources, rebuilt: for each
    resource the pod's ``extendedResourceClaimStatus`` maps, the requests
    ``createRequestsAndMappings`` makes (:func:`_extended_requests`), of the class that maps
    the resource (``deviceclass.resource.kubernetes.io/<class>``, else the one class whose
    ``extendedResourceName`` it is; no class when several are, so only the class's selectors
    go unchecked). None when the pod or its status is unknown."""
    pod = ctx.pods_by_key.get(pod_key)
    mappings = (status or {}).get("requestMappings") or []
    if pod is None or not mappings:
        return None
    classes = ctx.cluster.dra.device_classes
    requests = []
    for resource in sorted({str(m.get("resourceName")) for m in mappings}):
        if resource.startswith(DEVICE_CLASS_RESOURCE_PREFIX):
            cls = resource[len(DEVICE_CLASS_RESOURCE_PREFIX):]
        else:
            named = [c.name for c in classes.values() if c.extended_resource_name == resource]
            cls = named[0] if len(named) == 1 else ""
        requests += [DeviceRequest(name=rname, exactly=ExactDeviceRequest(
            device_class_name=cls, count=count))
            for rname, count in _extended_requests(pod, resource)]
    requests.sort(key=lambda r: r.name)
    return ResourceClaim(namespace=pod.namespace, name=name, uid="",
                         spec=ResourceClaimSpec(requests=tuple(requests)))


def _extended_requests(pod: Pod, resource: str) -> list[tuple[str, int]]:
    """(request name, device count) of ``createRequestsAndMappings`` for one resource
    (pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go): a request
    per long-lived container (a regular container or a sidecar), and of the short-lived init
    containers, which first reuse the long-lived requests of the containers from their own
    index on, only the largest extra request."""
    containers = (*pod.init_containers, *pod.containers)
    short = [i for i, c in enumerate(containers)
             if i < len(pod.init_containers) and c.restart_policy != "Always"]
    own: list[tuple[str, int] | None] = [
        None if i in short else _container_request(i, c, resource, ())
        for i, c in enumerate(containers)]
    largest: tuple[str, int] | None = None
    for i in short:
        r = _container_request(i, containers[i], resource, own[i:])
        if r is not None and (largest is None or largest[1] < r[1]):
            largest = r
    return [r for r in (largest, *own) if r is not None]


def _container_request(index: int, container: Container, resource: str,
                       reusable: Sequence[tuple[str, int] | None]) -> tuple[str, int] | None:
    """``createResourceRequestAndMappings``: none for a request that is absent, zero or not
    an integer, or that the ``reusable`` requests cover; else ``container-<index>-request-<i>``
    (``i``: the resource's place among the container's sorted request names) for what they
    leave."""
    requests = dict(container.requests)
    quantity = requests.get(resource)
    if quantity is None or quantity == 0 or quantity.denominator != 1:
        return None
    need, have = int(quantity), 0
    for r in reusable:
        if r is not None:
            have += r[1]
            if have >= need:
                return None
    return f"container-{index}-request-{sorted(requests).index(resource)}", need - have


def _writes_objects(timeline: dict[str, Any] | None) -> bool:
    """Whether a Scenario's timeline writes objects (applyObject, deleteObject)."""
    events = ((timeline or {}).get("spec") or {}).get("events") or ()
    return any(isinstance(e, dict) and e.get("action") in ("applyObject", "deleteObject")
               for e in events)


def _releases_claims(ctx: OracleContext) -> bool:
    """Whether a pod holding an input claim may go during the run (a timeline deletePod,
    finishPod or deleteNode, or a preemption's victim), so that the resourceclaim controller
    may release an allocation of the input before a later pod is bound."""
    if not any(c.allocation is not None for c in ctx.cluster.dra.claims.values()):
        return False
    events = ((ctx.timeline or {}).get("spec") or {}).get("events") or ()
    return any(isinstance(e, dict) and e.get("action") in ("deletePod", "finishPod",
                                                           "deleteNode") for e in events
               ) or any(a.get("victims") for a in ctx.attempts)


def _bound_at(ctx: OracleContext) -> dict[str, float]:
    """Each bound pod's binding time (its first Bound attempt)."""
    out: dict[str, float] = {}
    for a in ctx.attempts:
        if a.get("outcome") == "Bound":
            out.setdefault(str(a.get("pod")), float(a.get("time") or 0))
    return out


def _untracked(ctx: OracleContext, bound_at: dict[str, float]) -> dict[DeviceID, float]:
    """Device -> when a claim holding it first lost its allocation, which drops it from the
    scheduler's ``allocatedDevices``: a claim the timeline allocated, then replaced without the
    allocation or deleted, or a claim the resourceclaim controller released
    (:func:`_released`). The tracker is a set fed by the claims' events (allocateddevices.go
    ``removeDevices``): when another claim held the device too, upstream takes it for free
    from then on (docs/dra.md#dra-objects-on-the-timeline)."""
    out = _released(ctx)
    if ctx.timeline is None or not _writes_objects(ctx.timeline):
        return out
    held: dict[str, set[DeviceID]] = {}
    parsed = parse_scenario(ctx.timeline, ctx.cluster)
    for te in [*parsed.events, *parsed.triggered]:
        if te.action not in ("applyObject", "deleteObject") or te.kind != "ResourceClaim":
            continue
        claim = te.obj if isinstance(te.obj, ResourceClaim) else None
        new = ({(r.driver, r.pool, r.device) for r in claim.allocation.results}
               if claim is not None and claim.allocation is not None else None)
        old = held.pop(te.name, None)
        at = bound_at.get(te.after, 0.0) if te.after else te.at / 1e9
        for did in old if old is not None and new is None else ():
            out[did] = min(out.get(did, at), at)
        if new is not None:  # removeDevices takes the devices of the newest object
            held[te.name] = new
    return out


def _released(ctx: OracleContext) -> dict[DeviceID, float]:
    """Device -> when the resourceclaim controller first deallocated a claim that may have held
    it, as a pod went (a preemption's victim, a timeline deletePod, finishPod or deleteNode;
    the replay's ``ClusterState.released``; ``syncClaim`` deallocates a claim left without
    consumers, pkg/controller/resourceclaim/controller.go). A claim of the input or the
    timeline: its devices. A claim the scheduler allocated (the result does not say which
    devices a pod that went had): every device another claim then held that the pod's node
    reaches."""
    out: dict[DeviceID, float] = {}
    if not ctx.cluster.dra.claims and not (ctx.timeline and _writes_objects(ctx.timeline)):
        return out
    nodes = {n.name: n for n in ctx.cluster.nodes}

    def drop(did: DeviceID, at: float) -> None:
        out[did] = min(out.get(did, at), at)

    rules = ctx.release.feature_enabled("DRADeviceTaintRules")
    for t, pod, before, after in Replay.of(ctx).run().released:
        at = t or 0.0
        for key, c in before.claims.items():
            now = after.claims.get(key)
            if c.allocation is not None and (now is None or now.allocation is None):
                for r in c.allocation.results:
                    drop((r.driver, r.pool, r.device), at)
        names = pod_claim_names(pod, before)
        ns = pod.namespace
        node = nodes.get(pod.node_name or "")
        if node is None or all((held := before.claims.get(f"{ns}/{n}")) is not None
                               and held.allocation is not None for n in names):
            continue
        located = _newest_devices(after, rules)
        for c in after.claims.values():
            for r in c.allocation.results if c.allocation is not None else ():
                did = (r.driver, r.pool, r.device)
                if (loc := located.get(did)) is not None and _reaches(loc, node):
                    drop(did, at)
    return out


def _dra_at_binding(ctx: OracleContext
                    ) -> tuple[dict[str, list[DRAObjects]] | None, DRAObjects]:
    """The DRA objects each pod's allocations may have been made with and those at the end:
    the replay's states at the pod's attempts that may have run PreBind, its Error attempts
    (PreBind may write a claim's allocation and then fail on the next claim) and its Bound
    one, in order (the timeline may publish, replace or delete slices, classes and taint
    rules, and the claims of the pods that went are released). Without such events, None:
    the cluster's for every pod."""
    if not _writes_objects(ctx.timeline) and not _releases_claims(ctx):
        return None, ctx.cluster.dra
    at: dict[str, list[DRAObjects]] = {}
    replay = Replay.of(ctx)
    for step in replay:
        if step.outcome in ("Bound", "Error"):
            states = at.setdefault(step.key, [])
            if not states or states[-1] is not step.state.dra:
                states.append(step.state.dra)
    final = replay.final.dra if replay.final is not None else ctx.cluster.dra
    return at, final


def check(ctx: OracleContext) -> list[Violation]:
    """docs/oracles.md#dra_allocations. Each allocation is judged against the DRA objects of
    the times it may have been made (``_dra_at_binding``): a device rule is broken when it is
    broken at each of them."""
    dra_at, final = _dra_at_binding(ctx)
    dra = ctx.cluster.dra
    if not dra and not dra_at:
        return []
    rules = ctx.release.feature_enabled("DRADeviceTaintRules")
    devices = _newest_devices(final, rules)
    # each device as the last binding that used it saw it (a timeline may delete or replace
    # its slice later), else as it is at the end: what sharing and capacity are judged by
    located = dict(devices)
    devices_of: dict[int, dict[DeviceID, _Located]] = {id(final): devices}
    nodes = {n.name: n for n in ctx.cluster.nodes}
    out: list[Violation] = []
    # device -> (claim key, admin access) of every allocation, the input's included
    users: dict[DeviceID, list[tuple[str, bool]]] = {}
    # device -> capacity name -> what the shares of the device consume, the input's included
    consumed: dict[DeviceID, dict[str, Fraction]] = {}
    # the allocations the scheduler did not make: the input's; with timeline writes, those of
    # the claims allocated when a pod using one of their devices was bound
    external: set[tuple[str, DeviceID]] = set()
    if dra_at is None:
        _external_users(dra.claims.values(), None, users, consumed, external)
    judged: set[str] = set()
    bound_at = _bound_at(ctx)
    claim_bound_at: dict[str, float] = {}
    taints_honoured = ctx.release.feature_enabled("DRADeviceTaints")
    for pod_key, node_name, claim, results in _allocated(ctx):
        ckey = f"{claim.namespace}/{claim.name}"
        if ckey in judged:  # a claim two pods share: judged with the first
            continue
        judged.add(ckey)
        claim_bound_at[ckey] = bound_at.get(pod_key, 0.0)
        node = nodes.get(node_name)
        thens = (dra_at.get(pod_key) or [final]) if dra_at is not None else [dra]
        for t in thens:
            if id(t) not in devices_of:
                devices_of[id(t)] = _newest_devices(t, rules)
        then = thens[-1]
        requests = dict(_requests(claim))
        per_request: dict[str, list[tuple[DeviceID, Device | None]]] = {}
        if dra_at is not None:
            mine = {(str(r.get("driver")), str(r.get("pool")), str(r.get("device")))
                    for r in results}
            _external_users((c for k, c in then.claims.items() if k != ckey), mine, users,
                            consumed, external)
        for r in results:
            did: DeviceID = (str(r.get("driver")), str(r.get("pool")), str(r.get("device")))
            rname = str(r.get("request"))
            where = f"claim {ckey} request {rname}: device {'/'.join(did)}"
            found = [(t, loc) for t in thens
                     if (loc := devices_of[id(t)].get(did)) is not None]
            req = requests.get(rname)
            per_request.setdefault(rname, []).append(
                (did, found[-1][1].device if found else None))
            if not found:
                out.append(Violation(NAME, pod_key, node_name,
                                     f"{where} is in no ResourceSlice of its pool's newest "
                                     "generation"))
                continue
            located[did] = found[-1][1]
            users.setdefault(did, []).append((ckey, bool(req and req.admin_access)))
            if not (req and req.admin_access):
                _consume(consumed, did, ((n, Fraction(str(q))) for n, q in
                                         (r.get("consumedCapacity") or {}).items()))
            if node is not None and not any(_reaches(loc, node) for _, loc in found):
                out.append(Violation(NAME, pod_key, node_name,
                                     f"{where} is not reachable from node {node_name} (its "
                                     "slice's node selection does not match the node)"))
            if req is None:
                out.append(Violation(NAME, pod_key, node_name,
                                     f"{where}: the claim has no request {rname}"))
                continue
            broken = [_device_rules_broken(where, t, loc, req, taints_honoured)
                      for t, loc in found]
            if all(broken):
                out += [Violation(NAME, pod_key, node_name, m) for m in broken[-1]]
        out += _counts(pod_key, node_name, claim, requests, per_request)
        out += _constraints(pod_key, node_name, claim, per_request)
    follow = DROPPED_SHARED_DEVICE in ctx.follow
    out += _shared(located, users, lambda: _untracked(ctx, bound_at) if follow else {},
                   claim_bound_at, ctx.met)
    out += _over_capacity(located, consumed)
    return out


def _device_rules_broken(where: str, then: DRAObjects, loc: _Located,
                         req: ExactDeviceRequest, taints_honoured: bool) -> list[str]:
    """What a device breaks of its request's rules in the DRA objects ``then``: the selectors
    of the request's device class and of the request, and the taints it does not tolerate.
    Taints are honoured only where the release's DRADeviceTaints is on (alpha and off in
    v1.34: the API server drops the taints, dropDisabledDRADeviceTaintsFields in
    pkg/registry/resource/resourceslice/strategy.go, and DynamicResources' enableDeviceTaints
    is off, pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go)."""
    out: list[str] = []
    cls = then.device_classes.get(req.device_class_name)
    for owner, sels in ((f"device class {req.device_class_name}",
                         cls.selectors if cls else ()), ("the request", req.selectors)):
        failed = _selector_failure(sels, loc.slice.driver, loc.device)
        if failed is not None:
            out.append(f"{where} does not satisfy the selector of {owner}: {failed}")
    for t in loc.device.taints if taints_honoured else ():
        if t.effect in (DEVICE_TAINT_NO_SCHEDULE, DEVICE_TAINT_NO_EXECUTE) and not any(
                _tolerated(tol, t) for tol in req.tolerations):
            out.append(f"{where} has the taint {t.key}={t.value}:{t.effect}, which the "
                       "request does not tolerate")
    return out


def _external_users(claims: Iterable[ResourceClaim], only: set[DeviceID] | None,
                    users: dict[DeviceID, list[tuple[str, bool]]],
                    consumed: dict[DeviceID, dict[str, Fraction]],
                    seen: set[tuple[str, DeviceID]]) -> None:
    """Add the allocated devices of ``claims`` (those in ``only``, when given) to ``users``
    and ``consumed``, each (claim, device) once (``seen``)."""
    for claim in claims:
        if claim.allocation is None:
            continue
        key = f"{claim.namespace}/{claim.name}"
        for r in claim.allocation.results:
            did = (r.driver, r.pool, r.device)
            if (only is not None and did not in only) or (key, did) in seen:
                continue
            seen.add((key, did))
            users.setdefault(did, []).append((key, bool(r.admin_access)))
            if not r.admin_access:
                _consume(consumed, did, r.consumed_capacity)


def _consume(consumed: dict[DeviceID, dict[str, Fraction]], did: DeviceID,
             amounts: Iterable[tuple[str, Fraction]]) -> None:
    for name, q in amounts:
        per = consumed.setdefault(did, {})
        per[name] = per.get(name, Fraction(0)) + q


def _over_capacity(devices: dict[DeviceID, _Located],
                   consumed: dict[DeviceID, dict[str, Fraction]]) -> list[Violation]:
    """The shares of a device (``allowMultipleAllocations``) together consume no more of a
    capacity than the device has, and only capacities it has (``CmpRequestOverCapacity``,
    consumable_capacity.go)."""
    out: list[Violation] = []
    for did, per in sorted(consumed.items()):
        loc = devices.get(did)
        if loc is None:
            continue
        capacity = dict(loc.device.capacity)
        for name, total in sorted(per.items()):
            cap = capacity.get(name)
            if cap is None:
                out.append(Violation(NAME, None, None,
                                     f"device {'/'.join(did)}: its allocations consume "
                                     f"capacity {name}, which the device does not have"))
            elif total > cap.value:
                out.append(Violation(NAME, None, None,
                                     f"device {'/'.join(did)}: its allocations consume {total} "
                                     f"of capacity {name}, more than the device's "
                                     f"{cap.value}"))
    return out


def _counts(pod_key: str, node: str, claim: ResourceClaim,
            requests: dict[str, ExactDeviceRequest],
            per_request: dict[str, list[tuple[DeviceID, Device | None]]]) -> list[Violation]:
    """An ExactCount request gets exactly ``count`` devices; a prioritized list is served by
    one subrequest; every request gets a device."""
    out: list[Violation] = []
    ckey = f"{claim.namespace}/{claim.name}"
    for r in claim.spec.requests:
        names = [n for n in per_request if n == r.name or n.startswith(f"{r.name}/")]
        if not names:
            out.append(Violation(NAME, pod_key, node,
                                 f"claim {ckey} is allocated, but request {r.name} got no "
                                 "device"))
            continue
        if len(names) > 1:
            out.append(Violation(NAME, pod_key, node,
                                 f"claim {ckey} request {r.name} is served by more than one "
                                 f"subrequest: {', '.join(sorted(names))}"))
            continue
        req = requests.get(names[0])
        got = len(per_request[names[0]])
        if req is not None and req.allocation_mode == ALLOCATION_MODE_EXACT_COUNT \
                and got != req.count:
            out.append(Violation(NAME, pod_key, node,
                                 f"claim {ckey} request {names[0]} asks for exactly "
                                 f"{req.count} device(s) and got {got}"))
    return out


def _constraints(pod_key: str, node: str, claim: ResourceClaim,
                 per_request: dict[str, list[tuple[DeviceID, Device | None]]]
                 ) -> list[Violation]:
    """matchAttribute: the devices of the constraint's requests share the attribute's value;
    distinctAttribute: no two have the same value (constraint.go)."""
    out: list[Violation] = []
    ckey = f"{claim.namespace}/{claim.name}"
    for c in claim.spec.constraints:
        attr = c.match_attribute or c.distinct_attribute
        if not attr:
            continue
        chosen = [(did, dev) for name, devs in sorted(per_request.items())
                  if not c.requests or name in c.requests or name.split("/")[0] in c.requests
                  for did, dev in devs if dev is not None]
        values = [(did, _attribute(dev, did[0], attr)) for did, dev in chosen]
        missing = [did for did, v in values if v is None]
        if missing:
            out.append(Violation(NAME, pod_key, node,
                                 f"claim {ckey}: constraint on {attr}: device(s) "
                                 f"{', '.join('/'.join(d) for d in missing)} lack the "
                                 "attribute"))
            continue
        distinct = {repr(v) for _, v in values}
        if c.match_attribute and len(distinct) > 1:
            out.append(Violation(NAME, pod_key, node,
                                 f"claim {ckey}: matchAttribute {attr}: the devices have "
                                 f"different values {sorted(distinct)}"))
        if c.distinct_attribute and len(distinct) < len(values):
            out.append(Violation(NAME, pod_key, node,
                                 f"claim {ckey}: distinctAttribute {attr}: two devices share "
                                 "a value"))
    return out


def _shared(devices: dict[DeviceID, _Located], users: dict[DeviceID, list[tuple[str, bool]]],
            untracked_of: Callable[[], dict[DeviceID, float]], bound_at: dict[str, float],
            met: set[str]) -> list[Violation]:
    """A device is allocated to one claim at a time, unless every other use is admin access
    or the device allows multiple allocations (``allocateDevice``). Following the upstream
    deviation :data:`DROPPED_SHARED_DEVICE`: once a timeline write took it out of the
    scheduler's allocated devices (``_untracked``), one claim bound since may hold it besides
    the earlier ones (added to ``met`` when that changes the verdict). ``untracked_of`` is
    called only for a device two claims hold."""
    out: list[Violation] = []
    untracked: dict[DeviceID, float] | None = None
    for did, uses in sorted(users.items()):
        claims = sorted({c for c, admin in uses if not admin})
        if len(claims) > 1 and untracked is None:
            untracked = untracked_of()
        if untracked and did in untracked and len([c for c in claims
                                     if bound_at.get(c, -1.0) >= untracked[did]]) == 1:
            met.add(DROPPED_SHARED_DEVICE)
            continue
        loc = devices.get(did)
        if len(claims) > 1 and not (loc and loc.device.allow_multiple_allocations):
            out.append(Violation(NAME, None, None,
                                 f"device {'/'.join(did)} is allocated to "
                                 f"{len(claims)} claims at once: {', '.join(claims)}"))
    return out
