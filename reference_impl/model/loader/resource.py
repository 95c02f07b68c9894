"""DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice and DeviceTaintRule
manifests (resource.k8s.io/v1) -> the model (``model/dra.py``), with the checks of
``pkg/apis/resource/validation/validation.go`` (v1.37.2) that the allocator relies on and the
defaults of ``k8s.io/api`` (pkg/apis/resource/v1/defaults.go); docs/dra.md#objects lists
them."""

from __future__ import annotations

import json
from fractions import Fraction

from reference_impl.dra.cel import CELCompileError
from reference_impl.dra.cel_cost import (
    CEL_SELECTOR_EXPRESSION_MAX_COST,
    CEL_SELECTOR_EXPRESSION_MAX_LENGTH,
)
from reference_impl.dra.cel_netip import go_quote
from reference_impl.dra.cel_runtime_cost import compile_cost
from reference_impl.model.decoding import (
    INT64,
    InputLocation,
    read_bool,
    read_enum,
    read_int,
    read_list,
    read_map,
    read_quantity,
    read_required_str,
    read_str,
    read_str_list,
    read_str_map,
    read_time,
    show,
)
from reference_impl.model.dra import (
    ALLOCATION_CONFIG_SOURCE_CLAIM,
    ALLOCATION_CONFIG_SOURCE_CLASS,
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    DEVICE_TAINT_NO_EXECUTE,
    DEVICE_TAINT_NO_SCHEDULE,
    DEVICE_TAINT_NONE,
    AllocatedDeviceStatus,
    AllocationResult,
    AttributeValue,
    CapacityRequirements,
    CounterSet,
    Device,
    DeviceAllocationConfiguration,
    DeviceCapacity,
    DeviceClaimConfiguration,
    DeviceClass,
    DeviceCondition,
    DeviceConstraint,
    DeviceCounterConsumption,
    DeviceRequest,
    DeviceRequestAllocationResult,
    DeviceSelector,
    DeviceSubRequest,
    DeviceTaint,
    DeviceTaintRule,
    DeviceTaintSelector,
    DeviceToleration,
    ExactDeviceRequest,
    OpaqueDeviceConfiguration,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimSpec,
    ResourceClaimTemplate,
    ResourceSlice,
    Version,
)
from reference_impl.model.loader.fields import _Raw
from reference_impl.model.loader.selectors import _node_selector_term
from reference_impl.model.objects import NodeSelector

RESOURCE_GROUP = "resource.k8s.io"
#: the kinds of resource.k8s.io/v1 the loader reads
RESOURCE_KINDS = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice",
                  "DeviceTaintRule")
#: of those, the namespaced ones
NAMESPACED_RESOURCE_KINDS = ("ResourceClaim", "ResourceClaimTemplate")
_ATTRIBUTE_TYPES = ("int", "bool", "string", "version")


def _node_selector(ctx: InputLocation, v: object, path: str) -> NodeSelector | None:
    if v is None:
        return None
    m = read_map(ctx, v, path)
    terms = read_list(ctx, m.get("nodeSelectorTerms"), f"{path}.nodeSelectorTerms")
    if not terms:
        raise ctx.error(f"{path}.nodeSelectorTerms", "required: must have at least one term")
    return NodeSelector(tuple(_node_selector_term(ctx, t, f"{path}.nodeSelectorTerms[{i}]")
                              for i, t in enumerate(terms)))


def _quantities(ctx: InputLocation, v: object, path: str, *, inner: str | None = None
                ) -> tuple[tuple[str, Fraction], ...]:
    """A map of names to quantities (``inner``: each value is a mapping holding the quantity
    under that key, as ``Counter.value``)."""
    out = []
    for name, raw in read_map(ctx, v, path).items():
        fpath = f"{path}[{name}]"
        if inner is not None:
            raw = read_map(ctx, raw, fpath).get(inner)
            fpath = f"{fpath}.{inner}"
            if raw is None:
                raise ctx.error(fpath, "required: expected a quantity")
        out.append((str(name), read_quantity(ctx, raw, fpath)))
    return tuple(out)


def _one_of(ctx: InputLocation, m: dict, path: str, fields: tuple[str, ...], *,
            false_is_unset: bool = True) -> str:
    """The one field of ``fields`` that is set in ``m`` (not null; nor ``false``, an empty
    list or "" with ``false_is_unset``, as for the node selection booleans)."""
    set_ = [f for f in fields if m.get(f) is not None
            and not (false_is_unset and (m[f] is False or m[f] in ("", [])))]
    if len(set_) != 1:
        listed = ", ".join(f"`{f}`" for f in fields)
        got = "none" if not set_ else ", ".join(f"`{f}`" for f in set_)
        raise ctx.error(path, f"exactly one of {listed} is required, got {got}")
    return set_[0]


def _attributes(ctx: InputLocation, v: object, path: str
                ) -> tuple[tuple[str, AttributeValue], ...]:
    out: list[tuple[str, AttributeValue]] = []
    for name, raw in read_map(ctx, v, path).items():
        apath = f"{path}[{name}]"
        m = dict(read_map(ctx, raw, apath))
        kind = _one_of(ctx, m, apath, _ATTRIBUTE_TYPES, false_is_unset=False)
        value: AttributeValue
        if kind == "int":
            value = read_int(ctx, m["int"], f"{apath}.int", bounds=INT64) or 0
        elif kind == "bool":
            value = read_bool(ctx, m["bool"], f"{apath}.bool")
        elif kind == "string":
            value = read_str(ctx, m["string"], f"{apath}.string")
        else:
            value = Version(read_required_str(ctx, m["version"], f"{apath}.version"))
        out.append((str(name), value))
    return tuple(out)


def _capacity(ctx: InputLocation, v: object, path: str) -> tuple[tuple[str, DeviceCapacity], ...]:
    out = []
    for name, raw in read_map(ctx, v, path).items():
        cpath = f"{path}[{name}]"
        m = read_map(ctx, raw, cpath)
        if m.get("value") is None:
            raise ctx.error(f"{cpath}.value", "required: expected a quantity")
        policy = m.get("requestPolicy")
        out.append((str(name), DeviceCapacity(
            read_quantity(ctx, m["value"], f"{cpath}.value"),
            dict(read_map(ctx, policy, f"{cpath}.requestPolicy")) if policy is not None
            else None)))
    return tuple(out)


def _taint(ctx: InputLocation, v: object, tpath: str) -> DeviceTaint:
    """One resourceapi.DeviceTaint (``timeAdded`` is read as a time and not kept: the
    allocator does not look at it)."""
    t = read_map(ctx, v, tpath, nullable=False)
    effect = read_enum(ctx, t.get("effect"), f"{tpath}.effect",
                       (DEVICE_TAINT_NO_SCHEDULE, DEVICE_TAINT_NO_EXECUTE, DEVICE_TAINT_NONE))
    if effect is None:
        raise ctx.error(f"{tpath}.effect", "required: expected NoSchedule, NoExecute or None")
    read_time(ctx, t.get("timeAdded"), f"{tpath}.timeAdded")
    return DeviceTaint(read_required_str(ctx, t.get("key"), f"{tpath}.key"),
                       read_str(ctx, t.get("value"), f"{tpath}.value"), effect)


def _taints(ctx: InputLocation, v: object, path: str) -> tuple[DeviceTaint, ...]:
    return tuple(_taint(ctx, t, f"{path}[{i}]") for i, t in enumerate(read_list(ctx, v, path)))


def _device(ctx: InputLocation, v: object, path: str, per_device: bool) -> Device:
    m = dict(read_map(ctx, v, path))
    node_name = node_selector = all_nodes = None
    if per_device:
        where = _one_of(ctx, m, path, ("nodeName", "nodeSelector", "allNodes"))
        if where == "nodeName":
            node_name = read_required_str(ctx, m["nodeName"], f"{path}.nodeName")
        elif where == "nodeSelector":
            node_selector = _node_selector(ctx, m["nodeSelector"], f"{path}.nodeSelector")
        else:
            all_nodes = read_bool(ctx, m["allNodes"], f"{path}.allNodes")
    else:
        for f in ("nodeName", "nodeSelector", "allNodes"):
            if m.get(f) not in (None, False, ""):
                raise ctx.error(f"{path}.{f}", "may only be set when the slice's "
                                               "`perDeviceNodeSelection` is true")
    consumes = []
    for i, c in enumerate(read_list(ctx, m.get("consumesCounters"), f"{path}.consumesCounters")):
        cpath = f"{path}.consumesCounters[{i}]"
        c = read_map(ctx, c, cpath)
        consumes.append(DeviceCounterConsumption(
            read_required_str(ctx, c.get("counterSet"), f"{cpath}.counterSet"),
            _quantities(ctx, c.get("counters"), f"{cpath}.counters", inner="value")))
    binds = m.get("bindsToNode")
    allow = m.get("allowMultipleAllocations")
    return Device(
        name=read_required_str(ctx, m.get("name"), f"{path}.name"),
        attributes=_attributes(ctx, m.get("attributes"), f"{path}.attributes"),
        capacity=_capacity(ctx, m.get("capacity"), f"{path}.capacity"),
        consumes_counters=tuple(consumes),
        node_name=node_name, node_selector=node_selector, all_nodes=all_nodes,
        taints=_taints(ctx, m.get("taints"), f"{path}.taints"),
        binds_to_node=None if binds is None else read_bool(ctx, binds, f"{path}.bindsToNode"),
        binding_conditions=read_str_list(ctx, m.get("bindingConditions"),
                                         f"{path}.bindingConditions"),
        binding_failure_conditions=read_str_list(ctx, m.get("bindingFailureConditions"),
                                                 f"{path}.bindingFailureConditions"),
        allow_multiple_allocations=None if allow is None else read_bool(
            ctx, allow, f"{path}.allowMultipleAllocations"),
    )


def _resource_slice(r: _Raw, order: int) -> ResourceSlice:
    ctx = r.ctx
    spec = dict(read_map(ctx, r.doc.get("spec"), "spec", nullable=False))
    pool = read_map(ctx, spec.get("pool"), "spec.pool", nullable=False)
    generation = read_int(ctx, pool.get("generation"), "spec.pool.generation", bounds=INT64)
    count = read_int(ctx, pool.get("resourceSliceCount"), "spec.pool.resourceSliceCount",
                     bounds=INT64)
    if count is None or count <= 0:
        raise ctx.error("spec.pool.resourceSliceCount", "required: must be greater than 0")
    where = _one_of(ctx, spec, "spec", ("nodeName", "nodeSelector", "allNodes",
                                        "perDeviceNodeSelection"))
    node_name = node_selector = all_nodes = per_device = None
    if where == "nodeName":
        node_name = read_required_str(ctx, spec["nodeName"], "spec.nodeName")
    elif where == "nodeSelector":
        node_selector = _node_selector(ctx, spec["nodeSelector"], "spec.nodeSelector")
    elif where == "allNodes":
        all_nodes = read_bool(ctx, spec["allNodes"], "spec.allNodes")
    else:
        per_device = read_bool(ctx, spec["perDeviceNodeSelection"],
                               "spec.perDeviceNodeSelection")
    if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
        raise ctx.error("spec", "only one of `sharedCounters` or `devices` is allowed")
    devices = tuple(_device(ctx, d, f"spec.devices[{i}]", bool(per_device))
                    for i, d in enumerate(read_list(ctx, spec.get("devices"), "spec.devices")))
    seen: dict[str, int] = {}
    for i, d in enumerate(devices):
        if d.name in seen:
            raise ctx.error(f"spec.devices[{i}].name", f"duplicate device name {d.name!r} "
                                                       f"(also spec.devices[{seen[d.name]}])")
        seen[d.name] = i
    shared = []
    for i, s in enumerate(read_list(ctx, spec.get("sharedCounters"), "spec.sharedCounters")):
        spath = f"spec.sharedCounters[{i}]"
        s = read_map(ctx, s, spath)
        shared.append(CounterSet(read_required_str(ctx, s.get("name"), f"{spath}.name"),
                                 _quantities(ctx, s.get("counters"), f"{spath}.counters",
                                             inner="value")))
    return ResourceSlice(
        name=r.name,
        driver=read_required_str(ctx, spec.get("driver"), "spec.driver"),
        pool=read_required_str(ctx, pool.get("name"), "spec.pool.name"),
        generation=generation or 0,
        resource_slice_count=count,
        node_name=node_name, node_selector=node_selector, all_nodes=all_nodes,
        per_device_node_selection=per_device,
        devices=devices,
        shared_counters=tuple(shared),
        order=order,
    )


def _selectors(ctx: InputLocation, v: object, path: str) -> tuple[DeviceSelector, ...]:
    out = []
    for i, s in enumerate(read_list(ctx, v, path)):
        spath = f"{path}[{i}]"
        s = read_map(ctx, s, spath)
        cel = read_map(ctx, s.get("cel"), f"{spath}.cel", nullable=False)
        expression = read_required_str(ctx, cel.get("expression"), f"{spath}.cel.expression")
        _check_cel_cost(ctx, expression, f"{spath}.cel.expression")
        out.append(DeviceSelector(expression))
    return tuple(out)


def _check_cel_cost(ctx: InputLocation, expression: str, path: str) -> None:
    """``validateCELExpression`` (pkg/apis/resource/validation/validation.go of v1.37.2): an
    expression longer than ``CELSelectorExpressionMaxLength`` is refused unread; one that does
    not compile in the NewExpressions environment (a syntax or type error, a result that is
    not a bool: ``CompileCELExpression`` of k8s.io/dynamic-resource-allocation/cel, the type
    checker of ``dra/cel_checker.py``, ``env.Program``'s folding of constant conversions:
    ``dra/cel_runtime_cost.py`` ``compile_cost``) is an invalid value with the compiler's
    error as detail (``convertCELErrorToValidationError``); one whose estimated worst-case
    cost exceeds ``CELSelectorExpressionMaxCost`` is "too complex" (``dra/cel_cost.py``)."""
    if len(expression.encode()) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        raise ctx.error(path, f"Too long: may not be more than "
                              f"{CEL_SELECTOR_EXPRESSION_MAX_LENGTH} bytes")
    try:
        cost = compile_cost(expression).max
    except CELCompileError as e:
        raise ctx.error(path, f"Invalid value: {go_quote(expression)}: {e}") from None
    if cost > CEL_SELECTOR_EXPRESSION_MAX_COST:
        raise ctx.error(path, f"too complex, exceeds cost limit (estimated worst-case cost "
                              f"{cost} > {CEL_SELECTOR_EXPRESSION_MAX_COST})")


def _tolerations(ctx: InputLocation, v: object, path: str) -> tuple[DeviceToleration, ...]:
    out = []
    for i, t in enumerate(read_list(ctx, v, path)):
        tpath = f"{path}[{i}]"
        t = read_map(ctx, t, tpath)
        op = read_enum(ctx, t.get("operator"), f"{tpath}.operator", ("Equal", "Exists"),
                       default="Equal") or "Equal"
        effect = read_enum(ctx, t.get("effect"), f"{tpath}.effect",
                           (DEVICE_TAINT_NO_SCHEDULE, DEVICE_TAINT_NO_EXECUTE,
                            DEVICE_TAINT_NONE), default="") or ""
        out.append(DeviceToleration(
            key=read_str(ctx, t.get("key"), f"{tpath}.key"), operator=op,
            value=read_str(ctx, t.get("value"), f"{tpath}.value"), effect=effect,
            toleration_seconds=read_int(ctx, t.get("tolerationSeconds"),
                                        f"{tpath}.tolerationSeconds", bounds=INT64)))
    return tuple(out)


def _exact(ctx: InputLocation, v: object, path: str, *, sub: bool) -> ExactDeviceRequest:
    m = read_map(ctx, v, path, nullable=False)
    mode = read_enum(ctx, m.get("allocationMode"), f"{path}.allocationMode",
                     (ALLOCATION_MODE_EXACT_COUNT, ALLOCATION_MODE_ALL),
                     default=ALLOCATION_MODE_EXACT_COUNT) or ALLOCATION_MODE_EXACT_COUNT
    count = read_int(ctx, m.get("count"), f"{path}.count", bounds=INT64)
    if mode == ALLOCATION_MODE_ALL and count not in (None, 0):
        raise ctx.error(f"{path}.count", "must not be set when `allocationMode` is 'All'")
    if mode == ALLOCATION_MODE_EXACT_COUNT:
        count = 1 if count is None else count
        if count <= 0:
            raise ctx.error(f"{path}.count", f"must be greater than zero, got {count}")
    admin = m.get("adminAccess")
    if sub and admin is not None:
        raise ctx.error(f"{path}.adminAccess", "not supported in a subrequest")
    capacity = None
    if m.get("capacity") is not None:
        cm = read_map(ctx, m["capacity"], f"{path}.capacity")
        capacity = CapacityRequirements(_quantities(ctx, cm.get("requests"),
                                                    f"{path}.capacity.requests"))
    return ExactDeviceRequest(
        device_class_name=read_required_str(ctx, m.get("deviceClassName"),
                                            f"{path}.deviceClassName"),
        selectors=_selectors(ctx, m.get("selectors"), f"{path}.selectors"),
        allocation_mode=mode,
        count=count or 0,
        admin_access=None if admin is None else read_bool(ctx, admin, f"{path}.adminAccess"),
        tolerations=_tolerations(ctx, m.get("tolerations"), f"{path}.tolerations"),
        capacity=capacity,
    )


def _opaque(ctx: InputLocation, v: object, path: str) -> OpaqueDeviceConfiguration:
    """A DeviceConfiguration (``validateDeviceConfiguration``, ``validateOpaqueConfiguration``
    and ``validateRawExtension``, pkg/apis/resource/validation/validation.go of v1.37.2):
    ``opaque`` is required, its ``parameters`` must be a JSON object (kept as its compact
    JSON text, keys in the given order)."""
    m = read_map(ctx, v, path, nullable=False)
    opaque = read_map(ctx, m.get("opaque"), f"{path}.opaque", nullable=False)
    params = opaque.get("parameters")
    if not isinstance(params, dict):
        raise ctx.error(f"{path}.opaque.parameters",
                        ctx.expected("a JSON object", params, container=True))
    return OpaqueDeviceConfiguration(
        read_required_str(ctx, opaque.get("driver"), f"{path}.opaque.driver"),
        json.dumps(params, separators=(",", ":"), ensure_ascii=False))


def _claim_config(ctx: InputLocation, v: object, path: str, requests: list[DeviceRequest]
                  ) -> tuple[DeviceClaimConfiguration, ...]:
    """``spec.devices.config`` (``validateDeviceClaimConfiguration``): each name in
    ``requests`` is a request of the claim or ``request/subrequest``."""
    names = {r.name for r in requests} | {f"{r.name}/{s.name}" for r in requests
                                          for s in r.first_available}
    out = []
    for i, c in enumerate(read_list(ctx, v, path)):
        cpath = f"{path}[{i}]"
        reqs = read_str_list(ctx, read_map(ctx, c, cpath, nullable=False).get("requests"),
                             f"{cpath}.requests")
        for j, ref in enumerate(reqs):
            if ref not in names:
                raise ctx.error(f"{cpath}.requests[{j}]", f"{ref!r}: must be the name of a "
                                "request in the claim or the name of a request and a "
                                "subrequest separated by '/'")
        out.append(DeviceClaimConfiguration(_opaque(ctx, c, cpath), reqs))
    return tuple(out)


def _claim_spec(ctx: InputLocation, v: object, path: str) -> ResourceClaimSpec:
    spec = read_map(ctx, v, path)
    dpath = f"{path}.devices"
    devices = read_map(ctx, spec.get("devices"), dpath)
    requests = []
    names: set[str] = set()
    for i, q in enumerate(read_list(ctx, devices.get("requests"), f"{dpath}.requests")):
        qpath = f"{dpath}.requests[{i}]"
        q = dict(read_map(ctx, q, qpath))
        name = read_required_str(ctx, q.get("name"), f"{qpath}.name")
        if name in names:
            raise ctx.error(f"{qpath}.name", f"duplicate request name {name!r}")
        names.add(name)
        which = _one_of(ctx, q, qpath, ("exactly", "firstAvailable"))
        if which == "exactly":
            requests.append(DeviceRequest(name, exactly=_exact(ctx, q["exactly"],
                                                               f"{qpath}.exactly", sub=False)))
            continue
        subs = []
        for j, s in enumerate(read_list(ctx, q["firstAvailable"], f"{qpath}.firstAvailable")):
            spath = f"{qpath}.firstAvailable[{j}]"
            s = read_map(ctx, s, spath)
            subs.append(DeviceSubRequest(read_required_str(ctx, s.get("name"), f"{spath}.name"),
                                         _exact(ctx, s, spath, sub=True)))
        requests.append(DeviceRequest(name, first_available=tuple(subs)))
    constraints = []
    for i, c in enumerate(read_list(ctx, devices.get("constraints"), f"{dpath}.constraints")):
        cpath = f"{dpath}.constraints[{i}]"
        c = dict(read_map(ctx, c, cpath))
        which = _one_of(ctx, c, cpath, ("matchAttribute", "distinctAttribute"))
        reqs = read_str_list(ctx, c.get("requests"), f"{cpath}.requests")
        for j, ref in enumerate(reqs):
            if ref.split("/", 1)[0] not in names:
                raise ctx.error(f"{cpath}.requests[{j}]", f"{ref!r} is not the name of a "
                                                          "request of this claim")
        attr = read_required_str(ctx, c[which], f"{cpath}.{which}")
        constraints.append(DeviceConstraint(
            reqs, attr if which == "matchAttribute" else None,
            attr if which == "distinctAttribute" else None))
    return ResourceClaimSpec(tuple(requests), tuple(constraints),
                             _claim_config(ctx, devices.get("config"), f"{dpath}.config",
                                           requests))


def _allocation(ctx: InputLocation, v: object, path: str) -> AllocationResult | None:
    if v is None:
        return None
    m = read_map(ctx, v, path)
    devices = read_map(ctx, m.get("devices"), f"{path}.devices")
    results = []
    for i, x in enumerate(read_list(ctx, devices.get("results"), f"{path}.devices.results")):
        xpath = f"{path}.devices.results[{i}]"
        x = read_map(ctx, x, xpath)
        admin = x.get("adminAccess")
        share = x.get("shareID")
        results.append(DeviceRequestAllocationResult(
            request=read_required_str(ctx, x.get("request"), f"{xpath}.request"),
            driver=read_required_str(ctx, x.get("driver"), f"{xpath}.driver"),
            pool=read_required_str(ctx, x.get("pool"), f"{xpath}.pool"),
            device=read_required_str(ctx, x.get("device"), f"{xpath}.device"),
            admin_access=None if admin is None else read_bool(ctx, admin,
                                                              f"{xpath}.adminAccess"),
            share_id=None if share is None else read_str(ctx, share, f"{xpath}.shareID"),
            consumed_capacity=_quantities(ctx, x.get("consumedCapacity"),
                                          f"{xpath}.consumedCapacity"),
            binding_conditions=read_str_list(ctx, x.get("bindingConditions"),
                                             f"{xpath}.bindingConditions"),
            binding_failure_conditions=read_str_list(ctx, x.get("bindingFailureConditions"),
                                                     f"{xpath}.bindingFailureConditions"),
        ))
    configs = []
    for i, c in enumerate(read_list(ctx, devices.get("config"), f"{path}.devices.config")):
        cpath = f"{path}.devices.config[{i}]"
        c = read_map(ctx, c, cpath, nullable=False)
        source = read_enum(ctx, c.get("source"), f"{cpath}.source",
                           (ALLOCATION_CONFIG_SOURCE_CLASS, ALLOCATION_CONFIG_SOURCE_CLAIM))
        if source is None:
            raise ctx.error(f"{cpath}.source", "required")
        configs.append(DeviceAllocationConfiguration(
            source, _opaque(ctx, c, cpath),
            read_str_list(ctx, c.get("requests"), f"{cpath}.requests")))
    return AllocationResult(tuple(results),
                            _node_selector(ctx, m.get("nodeSelector"), f"{path}.nodeSelector"),
                            read_time(ctx, m.get("allocationTimestamp"),
                                      f"{path}.allocationTimestamp"), tuple(configs))


def _device_statuses(ctx: InputLocation, v: object, path: str
                     ) -> tuple[AllocatedDeviceStatus, ...]:
    """``status.devices``: driver, pool, device and the conditions (type, status, reason,
    message) of each entry; the other fields are not read."""
    out = []
    for i, d in enumerate(read_list(ctx, v, path)):
        dpath = f"{path}[{i}]"
        d = read_map(ctx, d, dpath)
        conditions = []
        for j, c in enumerate(read_list(ctx, d.get("conditions"), f"{dpath}.conditions")):
            cpath = f"{dpath}.conditions[{j}]"
            c = read_map(ctx, c, cpath)
            conditions.append(DeviceCondition(
                type=read_required_str(ctx, c.get("type"), f"{cpath}.type"),
                status=read_required_str(ctx, c.get("status"), f"{cpath}.status"),
                reason=read_str(ctx, c.get("reason"), f"{cpath}.reason"),
                message=read_str(ctx, c.get("message"), f"{cpath}.message")))
        out.append(AllocatedDeviceStatus(
            driver=read_required_str(ctx, d.get("driver"), f"{dpath}.driver"),
            pool=read_required_str(ctx, d.get("pool"), f"{dpath}.pool"),
            device=read_required_str(ctx, d.get("device"), f"{dpath}.device"),
            conditions=tuple(conditions)))
    return tuple(out)


def _resource_claim(r: _Raw, uid: str) -> ResourceClaim:
    ctx = r.ctx
    meta = read_map(ctx, r.doc.get("metadata"), "metadata")
    status = read_map(ctx, r.doc.get("status"), "status")
    reserved = []
    for i, c in enumerate(read_list(ctx, status.get("reservedFor"), "status.reservedFor")):
        cpath = f"status.reservedFor[{i}]"
        c = read_map(ctx, c, cpath)
        reserved.append(ResourceClaimConsumerReference(
            resource=read_required_str(ctx, c.get("resource"), f"{cpath}.resource"),
            name=read_required_str(ctx, c.get("name"), f"{cpath}.name"),
            uid=read_required_str(ctx, c.get("uid"), f"{cpath}.uid"),
            api_group=read_str(ctx, c.get("apiGroup"), f"{cpath}.apiGroup")))
    owner = None
    for i, o in enumerate(read_list(ctx, meta.get("ownerReferences"),
                                    "metadata.ownerReferences")):
        opath = f"metadata.ownerReferences[{i}]"
        o = read_map(ctx, o, opath)
        if read_bool(ctx, o.get("controller"), f"{opath}.controller") and \
                read_str(ctx, o.get("kind"), f"{opath}.kind") == "Pod":
            owner = read_required_str(ctx, o.get("uid"), f"{opath}.uid")
    return ResourceClaim(
        namespace=r.namespace, name=r.name,
        uid=read_str(ctx, meta.get("uid"), "metadata.uid") or uid,
        spec=_claim_spec(ctx, r.doc.get("spec"), "spec"),
        allocation=_allocation(ctx, status.get("allocation"), "status.allocation"),
        reserved_for=tuple(reserved),
        annotations=tuple(read_str_map(ctx, meta.get("annotations"),
                                       "metadata.annotations").items()),
        owner_pod_uid=owner,
        labels=tuple(read_str_map(ctx, meta.get("labels"), "metadata.labels").items()),
        deleting=meta.get("deletionTimestamp") is not None,
        devices=_device_statuses(ctx, status.get("devices"), "status.devices"),
        finalizers=tuple(read_required_str(ctx, f, f"metadata.finalizers[{i}]") for i, f in
                         enumerate(read_list(ctx, meta.get("finalizers"),
                                             "metadata.finalizers"))),
    )


def _resource_claim_template(r: _Raw) -> ResourceClaimTemplate:
    ctx = r.ctx
    spec = read_map(ctx, r.doc.get("spec"), "spec", nullable=False)
    meta = read_map(ctx, spec.get("metadata"), "spec.metadata")
    return ResourceClaimTemplate(
        namespace=r.namespace, name=r.name,
        spec=_claim_spec(ctx, spec.get("spec"), "spec.spec"),
        labels=tuple(read_str_map(ctx, meta.get("labels"), "spec.metadata.labels").items()),
        annotations=tuple(read_str_map(ctx, meta.get("annotations"),
                                       "spec.metadata.annotations").items()),
    )


def _device_class(r: _Raw) -> DeviceClass:
    ctx = r.ctx
    spec = read_map(ctx, r.doc.get("spec"), "spec")
    ext = spec.get("extendedResourceName")
    if ext is not None and (not isinstance(ext, str) or not ext):
        raise ctx.error("spec.extendedResourceName",
                        f"expected a non-empty resource name, got {show(ext)}")
    return DeviceClass(r.name, _selectors(ctx, spec.get("selectors"), "spec.selectors"),
                       ext, tuple(_opaque(ctx, c, f"spec.config[{i}]") for i, c in
                                  enumerate(read_list(ctx, spec.get("config"), "spec.config"))))


def _device_taint_rule(r: _Raw, order: int) -> DeviceTaintRule:
    """A DeviceTaintRule (``validateDeviceTaintRuleSpec``, pkg/apis/resource/validation/
    validation.go of v1.37.2): ``spec.taint`` is required; ``spec.deviceSelector`` may be
    absent (then the rule selects no device, tracker.go ``applyPatches``)."""
    ctx = r.ctx
    spec = read_map(ctx, r.doc.get("spec"), "spec", nullable=False)
    sel = spec.get("deviceSelector")
    selector = None
    if sel is not None:
        m = read_map(ctx, sel, "spec.deviceSelector")
        for gone in ("deviceClassName", "selectors"):
            if m.get(gone) is not None:
                raise ctx.error(f"spec.deviceSelector.{gone}",
                                "not a field of resource.k8s.io/v1 DeviceTaintSelector "
                                "(tombstoned since 1.35)")
        names = []
        for f in ("driver", "pool", "device"):
            names.append(None if m.get(f) is None
                         else read_required_str(ctx, m[f], f"spec.deviceSelector.{f}"))
        selector = DeviceTaintSelector(*names)
    if spec.get("taint") is None:
        raise ctx.error("spec.taint", "required: expected a taint with a key and an effect")
    return DeviceTaintRule(r.name, selector, _taint(ctx, spec["taint"], "spec.taint"), order)
