"""Pod manifests -> :class:`~reference_impl.model.objects.Pod`: containers, tolerations,
topology spread constraints, owner references, volumes, with ``SetDefaults_Pod`` /
``SetDefaults_PodSpec`` applied where their fields are decoded and the admission steps of
``defaults.py``; the pod's resources and host ports are computed once here.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from reference_impl.model.decoding import (
    INT64,
    InputLocation,
    plain,
    read_bool,
    read_enum,
    read_int,
    read_list,
    read_map,
    read_required_str,
    read_str,
    read_str_list,
    read_str_map,
    read_time,
    show,
)
from reference_impl.model.loader.defaults import (
    _admit_priority,
    _default_pod_level_resources,
    _deterministic_uid,
    _merge_label_keys,
)
from reference_impl.model.loader.fields import (
    _metadata_common,
    _Raw,
    _resource_list,
)
from reference_impl.model.loader.node import _TAINT_EFFECTS
from reference_impl.model.loader.selectors import _affinity, _label_selector
from reference_impl.model.objects import (
    DEFAULT_SCHEDULER_NAME,
    DO_NOT_SCHEDULE,
    POLICY_HONOR,
    POLICY_IGNORE,
    SCHEDULE_ANYWAY,
    TAINT_NO_EXECUTE,
    TOLERATION_OP_EQUAL,
    TOLERATION_OP_EXISTS,
    Container,
    ContainerPort,
    ContainerStatus,
    OwnerReference,
    Pod,
    PodResourceClaim,
    PriorityClass,
    Toleration,
    TopologySpreadConstraint,
)
from reference_impl.model.quantity import QuantityError
from reference_impl.model.requests import (
    compute_pod_resources,
    host_ports,
    is_supported_pod_level_resource,
)

_PROTOCOLS = ("TCP", "UDP", "SCTP")


def _tolerations(ctx: InputLocation, v: object, path: str) -> tuple[Toleration, ...]:
    """Tolerations, validated as ValidateTolerations (pkg/apis/core/validation/validation.go)
    with TaintTolerationComparisonOperators off; an empty operator becomes Equal."""
    out = []
    for i, t in enumerate(read_list(ctx, v, path)):
        tpath = f"{path}[{i}]"
        t = read_map(ctx, t, tpath)
        key = read_str(ctx, t.get("key"), f"{tpath}.key")
        op = read_enum(ctx, t.get("operator"), f"{tpath}.operator",
                       (TOLERATION_OP_EQUAL, TOLERATION_OP_EXISTS), default=TOLERATION_OP_EQUAL)
        value_ = read_str(ctx, t.get("value"), f"{tpath}.value")
        effect = read_enum(ctx, t.get("effect"), f"{tpath}.effect", _TAINT_EFFECTS, default="")
        seconds = read_int(ctx, t.get("tolerationSeconds"), f"{tpath}.tolerationSeconds",
                           bounds=INT64)
        if not key and op != TOLERATION_OP_EXISTS:
            raise ctx.error(f"{tpath}.operator", "operator must be Exists when `key` is empty, "
                                                 'which means "match all values and all keys"')
        if op == TOLERATION_OP_EXISTS and value_:
            raise ctx.error(f"{tpath}.operator",
                            "value must be empty when `operator` is 'Exists'")
        if seconds is not None and effect != TAINT_NO_EXECUTE:
            raise ctx.error(f"{tpath}.effect",
                            "effect must be 'NoExecute' when `tolerationSeconds` is set")
        out.append(Toleration(key, op or TOLERATION_OP_EQUAL, value_, effect or "", seconds))
    return tuple(out)


def _topology_spread(ctx: InputLocation, v: object, path: str,
                     pod_labels: Mapping[str, str]) -> tuple[TopologySpreadConstraint, ...]:
    out = []
    for i, c in enumerate(read_list(ctx, v, path)):
        cpath = f"{path}[{i}]"
        c = read_map(ctx, c, cpath)
        max_skew = read_int(ctx, c.get("maxSkew"), f"{cpath}.maxSkew")
        if max_skew is None or max_skew <= 0:
            raise ctx.error(f"{cpath}.maxSkew", f"must be greater than zero, got "
                                                f"{show(c.get('maxSkew'))}")
        when = c.get("whenUnsatisfiable")
        if when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            raise ctx.error(f"{cpath}.whenUnsatisfiable",
                            f"unsupported value {show(when)}: expected "
                            f'"{DO_NOT_SCHEDULE}" or "{SCHEDULE_ANYWAY}"')
        min_domains = read_int(ctx, c.get("minDomains"), f"{cpath}.minDomains")
        if min_domains is not None:
            if min_domains <= 0:
                raise ctx.error(f"{cpath}.minDomains", "must be greater than 0")
            if when != DO_NOT_SCHEDULE:
                raise ctx.error(f"{cpath}.minDomains", "can only use minDomains if "
                                f'whenUnsatisfiable="{DO_NOT_SCHEDULE}"')
        selector = _label_selector(ctx, c.get("labelSelector"), f"{cpath}.labelSelector")
        match_keys = read_str_list(ctx, c.get("matchLabelKeys"), f"{cpath}.matchLabelKeys")
        # mutateTopologySpreadConstraints (MatchLabelKeysInPodTopologySpreadSelectorMerge, on)
        selector = _merge_label_keys(selector, match_keys, "In", pod_labels)
        out.append(TopologySpreadConstraint(
            max_skew=max_skew,
            topology_key=read_required_str(ctx, c.get("topologyKey"), f"{cpath}.topologyKey"),
            when_unsatisfiable=when,
            label_selector=selector,
            min_domains=min_domains,
            node_affinity_policy=read_enum(ctx, c.get("nodeAffinityPolicy"),
                                           f"{cpath}.nodeAffinityPolicy",
                                           (POLICY_HONOR, POLICY_IGNORE)),
            node_taints_policy=read_enum(ctx, c.get("nodeTaintsPolicy"),
                                         f"{cpath}.nodeTaintsPolicy",
                                         (POLICY_HONOR, POLICY_IGNORE)),
            match_label_keys=match_keys,
        ))
    return tuple(out)


def _containers(ctx: InputLocation, v: object, path: str, host_network: bool,
                init: bool) -> tuple[Container, ...]:
    out = []
    for i, c in enumerate(read_list(ctx, v, path)):
        cpath = f"{path}[{i}]"
        c = read_map(ctx, c, cpath)
        name = read_required_str(ctx, c.get("name"), f"{cpath}.name")
        res = read_map(ctx, c.get("resources"), f"{cpath}.resources")
        requests = _resource_list(ctx, res.get("requests"), f"{cpath}.resources.requests")
        limits = _resource_list(ctx, res.get("limits"), f"{cpath}.resources.limits")
        # SetDefaults_Pod: requests default to limits
        for rname, q in limits.items():
            requests.setdefault(rname, q)
        ports = []
        for j, p in enumerate(read_list(ctx, c.get("ports"), f"{cpath}.ports")):
            ppath = f"{cpath}.ports[{j}]"
            p = read_map(ctx, p, ppath)
            container_port = read_int(ctx, p.get("containerPort"), f"{ppath}.containerPort")
            if container_port is None or not 1 <= container_port <= 65535:
                raise ctx.error(f"{ppath}.containerPort", "must be between 1 and 65535, got "
                                                          f"{show(p.get('containerPort'))}")
            host_port = read_int(ctx, p.get("hostPort"), f"{ppath}.hostPort") or 0
            if not 0 <= host_port <= 65535:
                raise ctx.error(f"{ppath}.hostPort", f"must be between 1 and 65535, got "
                                                     f"{host_port}")
            if host_network and host_port == 0:
                host_port = container_port  # SetDefaults_Pod: defaultHostNetworkPorts
            ports.append(ContainerPort(
                container_port=container_port,
                host_port=host_port,
                protocol=read_enum(ctx, p.get("protocol"), f"{ppath}.protocol", _PROTOCOLS,
                                   default="TCP") or "TCP",
                host_ip=read_str(ctx, p.get("hostIP"), f"{ppath}.hostIP"),
            ))
        restart_policy = c.get("restartPolicy")
        if restart_policy is not None:
            allowed = ("Always",) if init else ("Always", "Never", "OnFailure")
            restart_policy = read_enum(ctx, restart_policy, f"{cpath}.restartPolicy", allowed)
        rules = tuple(read_map(ctx, x, f"{cpath}.restartPolicyRules[{k}]") for k, x in
                      enumerate(read_list(ctx, c.get("restartPolicyRules"),
                                          f"{cpath}.restartPolicyRules")))
        mounts = tuple(read_map(ctx, x, f"{cpath}.volumeMounts[{k}]") for k, x in
                       enumerate(read_list(ctx, c.get("volumeMounts"), f"{cpath}.volumeMounts")))
        out.append(Container(
            name=name,
            image=read_str(ctx, c.get("image"), f"{cpath}.image"),
            requests=tuple(requests.items()),
            limits=tuple(limits.items()),
            ports=tuple(ports),
            restart_policy=restart_policy,
            restart_policy_rules=rules,
            volume_mounts=mounts,
        ))
    return tuple(out)


def _owner_references(ctx: InputLocation, v: object, path: str) -> tuple[OwnerReference, ...]:
    out = []
    for i, o in enumerate(read_list(ctx, v, path)):
        opath = f"{path}[{i}]"
        o = read_map(ctx, o, opath)
        out.append(OwnerReference(
            api_version=read_required_str(ctx, o.get("apiVersion"), f"{opath}.apiVersion"),
            kind=read_required_str(ctx, o.get("kind"), f"{opath}.kind"),
            name=read_required_str(ctx, o.get("name"), f"{opath}.name"),
            uid=read_required_str(ctx, o.get("uid"), f"{opath}.uid"),
            controller=read_bool(ctx, o.get("controller"), f"{opath}.controller"),
        ))
    return tuple(out)


POD_RESIZE_PENDING = "PodResizePending"
DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"


def _optional_resource_list(ctx: InputLocation, v: object,
                            path: str) -> tuple[tuple[str, Fraction], ...] | None:
    """A ResourceList that may be absent (nil upstream: not the same as empty)."""
    if v is None:
        return None
    return tuple(_resource_list(ctx, v, path).items())


def _container_statuses(ctx: InputLocation, v: object,
                        path: str) -> tuple[ContainerStatus, ...]:
    """status.containerStatuses / initContainerStatuses: the fields the in-place resize
    accounting reads (name, allocatedResources, resources.requests)."""
    out = []
    for i, cs in enumerate(read_list(ctx, v, path)):
        cpath = f"{path}[{i}]"
        cs = read_map(ctx, cs, cpath)
        res = cs.get("resources")
        requests = None
        if res is not None:
            res = read_map(ctx, res, f"{cpath}.resources")
            requests = _optional_resource_list(ctx, res.get("requests"),
                                               f"{cpath}.resources.requests")
        out.append(ContainerStatus(
            name=read_required_str(ctx, cs.get("name"), f"{cpath}.name"),
            allocated_resources=_optional_resource_list(ctx, cs.get("allocatedResources"),
                                                        f"{cpath}.allocatedResources"),
            requests=requests, has_resources=res is not None))
    return tuple(out)


def _conditions(ctx: InputLocation, status: Mapping[str, object]) -> tuple[str | None, bool]:
    """What the scheduler reads of status.conditions: the reason of the first
    PodResizePending condition (``IsPodResizeInfeasible``; None without one), and whether the
    first DisruptionTarget condition is True with reason PreemptionByScheduler
    (``PodTerminatingByPreemption``, pkg/scheduler/framework/preemption/util.go)."""
    resize: str | None = None
    seen_resize = seen_disruption = preempted = False
    for i, c in enumerate(read_list(ctx, status.get("conditions"), "status.conditions")):
        cpath = f"status.conditions[{i}]"
        c = read_map(ctx, c, cpath)
        ctype = read_str(ctx, c.get("type"), f"{cpath}.type")
        if ctype == POD_RESIZE_PENDING and not seen_resize:
            seen_resize = True
            resize = read_str(ctx, c.get("reason"), f"{cpath}.reason")
        elif ctype == DISRUPTION_TARGET and not seen_disruption:
            seen_disruption = True
            preempted = (read_str(ctx, c.get("status"), f"{cpath}.status") == "True"
                         and read_str(ctx, c.get("reason"), f"{cpath}.reason")
                         == REASON_PREEMPTION_BY_SCHEDULER)
    return resize, preempted


def _pod(r: _Raw, order: int, classes: Mapping[str, PriorityClass],
         default_pc: PriorityClass | None) -> Pod:
    ctx, doc = r.ctx, r.doc
    meta, labels, annotations = _metadata_common(r)
    spec = read_map(ctx, doc.get("spec"), "spec")
    status = read_map(ctx, doc.get("status"), "status")
    host_network = read_bool(ctx, spec.get("hostNetwork"), "spec.hostNetwork")
    containers = _containers(ctx, spec.get("containers"), "spec.containers", host_network, False)
    init_containers = _containers(ctx, spec.get("initContainers"), "spec.initContainers",
                                  host_network, True)
    # Ephemeral containers request no resources and open no host ports; they matter for
    # NodeDeclaredFeatures' inference only.
    ephemeral = _containers(ctx, spec.get("ephemeralContainers"), "spec.ephemeralContainers",
                            False, False)
    host_users = read_bool(ctx, spec.get("hostUsers"), "spec.hostUsers") \
        if spec.get("hostUsers") is not None else None

    # pod-level resources
    plr = read_map(ctx, spec.get("resources"), "spec.resources")
    plr_requests = _resource_list(ctx, plr.get("requests"), "spec.resources.requests")
    plr_limits = _resource_list(ctx, plr.get("limits"), "spec.resources.limits")
    for part, rl in (("requests", plr_requests), ("limits", plr_limits)):
        for name in rl:
            if not is_supported_pod_level_resource(name):
                raise ctx.error(f"spec.resources.{part}[{name}]",
                                "unsupported pod-level resource: expected cpu, memory or "
                                "hugepages-<size>")
    _default_pod_level_resources(containers, init_containers, plr_requests, plr_limits)

    pc_name, priority, preemption_policy = _admit_priority(ctx, spec, classes, default_pc)

    volumes = tuple(read_map(ctx, v, f"spec.volumes[{i}]")
                    for i, v in enumerate(read_list(ctx, spec.get("volumes"), "spec.volumes")))
    pvc_names = []
    for i, v in enumerate(volumes):
        if v.get("persistentVolumeClaim") is not None:
            src = read_map(ctx, v["persistentVolumeClaim"],
                           f"spec.volumes[{i}].persistentVolumeClaim")
            pvc_names.append(read_required_str(ctx, src.get("claimName"),
                                               f"spec.volumes[{i}].persistentVolumeClaim.claimName"))
    claim_sources = _pod_resource_claims(ctx, spec.get("resourceClaims"), "spec.resourceClaims")
    claims = [c.name for c in claim_sources]
    gates = []
    for i, g in enumerate(read_list(ctx, spec.get("schedulingGates"), "spec.schedulingGates")):
        g = read_map(ctx, g, f"spec.schedulingGates[{i}]")
        gates.append(read_required_str(ctx, g.get("name"), f"spec.schedulingGates[{i}].name"))

    resize_pending_reason, preempted_by_scheduler = _conditions(ctx, status)
    status_resources = status.get("resources")
    status_requests = None
    if status_resources is not None:
        status_requests = _optional_resource_list(
            ctx, read_map(ctx, status_resources, "status.resources").get("requests"),
            "status.resources.requests")

    pod = Pod(
        namespace=r.namespace,
        name=r.name,
        uid=(read_str(ctx, meta.get("uid"), "metadata.uid")
             or _deterministic_uid("Pod", r.namespace, r.name)),
        labels=labels,
        annotations=annotations,
        creation_timestamp=read_time(ctx, meta.get("creationTimestamp"),
                                     "metadata.creationTimestamp") or 0.0,
        order=order,
        ephemeral_containers=ephemeral,
        host_network=host_network,
        host_users=host_users,
        node_name=read_str(ctx, spec.get("nodeName"), "spec.nodeName"),
        scheduler_name=read_str(ctx, spec.get("schedulerName"), "spec.schedulerName")
        or DEFAULT_SCHEDULER_NAME,
        priority=priority,
        priority_class_name=pc_name,
        preemption_policy=preemption_policy,
        node_selector=read_str_map(ctx, spec.get("nodeSelector"), "spec.nodeSelector"),
        affinity=_affinity(ctx, spec.get("affinity"), "spec.affinity", labels),
        tolerations=_tolerations(ctx, spec.get("tolerations"), "spec.tolerations"),
        containers=containers,
        init_containers=init_containers,
        overhead=tuple(_resource_list(ctx, spec.get("overhead"), "spec.overhead").items()),
        pod_level_requests=tuple(plr_requests.items()),
        pod_level_limits=tuple(plr_limits.items()),
        topology_spread_constraints=_topology_spread(
            ctx, spec.get("topologySpreadConstraints"), "spec.topologySpreadConstraints", labels),
        scheduling_gates=tuple(gates),
        owner_references=_owner_references(ctx, meta.get("ownerReferences"),
                                           "metadata.ownerReferences"),
        nominated_node_name=read_str(ctx, status.get("nominatedNodeName"),
                                     "status.nominatedNodeName"),
        deletion_timestamp=read_time(ctx, meta.get("deletionTimestamp"),
                                     "metadata.deletionTimestamp"),
        start_time=read_time(ctx, status.get("startTime"), "status.startTime"),
        container_statuses=_container_statuses(ctx, status.get("containerStatuses"),
                                               "status.containerStatuses"),
        init_container_statuses=_container_statuses(ctx, status.get("initContainerStatuses"),
                                                     "status.initContainerStatuses"),
        status_allocated_resources=_optional_resource_list(
            ctx, status.get("allocatedResources"), "status.allocatedResources"),
        status_resources=status_resources is not None,
        status_requests=status_requests,
        resize_pending_reason=resize_pending_reason,
        preempted_by_scheduler=preempted_by_scheduler,
        pvc_names=tuple(pvc_names),
        volumes=tuple(plain(v) for v in volumes),
        resource_claims=tuple(claims),
        resource_claim_sources=claim_sources,
        resource_claim_statuses=_resource_claim_statuses(
            ctx, status.get("resourceClaimStatuses"), "status.resourceClaimStatuses"),
        extended_resource_claim_status=_extended_resource_claim_status(
            ctx, status.get("extendedResourceClaimStatus"), "status.extendedResourceClaimStatus"),
    )
    try:
        pod.resources = compute_pod_resources(pod)
    except QuantityError as e:
        raise ctx.error("spec", f"resource requests out of range: {e}") from None
    pod.host_ports = host_ports(pod)
    return pod


def _pod_resource_claims(ctx: InputLocation, v: object, path: str
                         ) -> tuple[PodResourceClaim, ...]:
    """``spec.resourceClaims`` as validatePodResourceClaim (pkg/apis/core/validation/
    validation.go) admits them: unique names, one of the claim and the template."""
    out: list[PodResourceClaim] = []
    for i, c in enumerate(read_list(ctx, v, path)):
        cpath = f"{path}[{i}]"
        c = read_map(ctx, c, cpath)
        name = read_required_str(ctx, c.get("name"), f"{cpath}.name")
        if any(o.name == name for o in out):
            raise ctx.error(f"{cpath}.name", f"Duplicate value: {name!r}")
        claim = c.get("resourceClaimName")
        template = c.get("resourceClaimTemplateName")
        if claim is not None and template is not None:
            raise ctx.error(cpath, "at most one of `resourceClaimName` or "
                                   "`resourceClaimTemplateName` may be specified")
        if claim is None and template is None:
            raise ctx.error(cpath, "must specify one of: `resourceClaimName`, "
                                   "`resourceClaimTemplateName`")
        out.append(PodResourceClaim(
            name,
            None if claim is None else read_required_str(ctx, claim,
                                                          f"{cpath}.resourceClaimName"),
            None if template is None else read_required_str(
                ctx, template, f"{cpath}.resourceClaimTemplateName")))
    return tuple(out)


def _resource_claim_statuses(ctx: InputLocation, v: object, path: str
                             ) -> tuple[tuple[str, str | None], ...]:
    """``status.resourceClaimStatuses``: (name, resourceClaimName; None when the controller
    decided no claim is needed)."""
    out: list[tuple[str, str | None]] = []
    for i, c in enumerate(read_list(ctx, v, path)):
        cpath = f"{path}[{i}]"
        c = read_map(ctx, c, cpath)
        claim = c.get("resourceClaimName")
        out.append((read_required_str(ctx, c.get("name"), f"{cpath}.name"),
                    None if claim is None else read_required_str(
                        ctx, claim, f"{cpath}.resourceClaimName")))
    return tuple(out)


def _extended_resource_claim_status(ctx: InputLocation, v: object, path: str
                                    ) -> dict[str, object] | None:
    """``status.extendedResourceClaimStatus`` (core/v1 PodExtendedResourceClaimStatus, which
    DynamicResources' PreBind patches: extendeddynamicresources.go
    ``patchPodExtendedResourceClaimStatus``): the special claim's ``resourceClaimName`` and the
    ``requestMappings`` (containerName, resourceName, requestName), in the shape PreBind writes
    it; None when absent."""
    if v is None:
        return None
    status = read_map(ctx, v, path)
    mappings: list[dict[str, str]] = []
    for i, m in enumerate(read_list(ctx, status.get("requestMappings"),
                                    f"{path}.requestMappings")):
        mpath = f"{path}.requestMappings[{i}]"
        m = read_map(ctx, m, mpath)
        mappings.append({key: read_required_str(ctx, m.get(key), f"{mpath}.{key}")
                         for key in ("containerName", "resourceName", "requestName")})
    return {"resourceClaimName": read_required_str(ctx, status.get("resourceClaimName"),
                                                   f"{path}.resourceClaimName"),
            "requestMappings": mappings}
