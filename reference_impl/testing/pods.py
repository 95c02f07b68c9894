"""Pod manifests: ``make_pod`` and ``make_container`` (upstream ``st.MakePod()`` and
``st.MakeContainer()``, pkg/scheduler/testing/wrappers.go of k8s.io/kubernetes v1.37.2), and
the v1 pieces pods are made of: tolerations, ports, affinity terms, spread constraints."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Self

from reference_impl.model.loader import load_documents
from reference_impl.model.objects import Pod
from reference_impl.testing._base import (
    PAUSE,
    Doc,
    ObjectWrapper,
    Quantity,
    Wrapper,
    plain,
    resource_list,
    timestamp,
)

REQUIRED, PREFERRED, REQUIRED_AND_PREFERRED = "required", "preferred", "required+preferred"
_REQ = "requiredDuringSchedulingIgnoredDuringExecution"
_PREF = "preferredDuringSchedulingIgnoredDuringExecution"

NodeRequirement = tuple[str, str] | tuple[str, str, Iterable[str] | None]


# --- pieces --------------------------------------------------------------------------------------

def toleration(key: str | None = None, effect: str | None = None, *, value: str | None = None,
               operator: str | None = None, seconds: int | None = None) -> Doc:
    """A v1.Toleration; the operator defaults to Equal with a value, Exists without one
    (upstream ``Toleration(key)``)."""
    t: Doc = {}
    if key is not None:
        t["key"] = key
    t["operator"] = operator or ("Equal" if value is not None else "Exists")
    if value is not None:
        t["value"] = value
    if effect is not None:
        t["effect"] = effect
    if seconds is not None:
        t["tolerationSeconds"] = seconds
    return t


def container_port(port: int, *, host_port: int | None = None, protocol: str | None = None,
                   host_ip: str | None = None) -> Doc:
    """A v1.ContainerPort."""
    p: Doc = {"containerPort": port}
    if host_port is not None:
        p["hostPort"] = host_port
    if protocol is not None:
        p["protocol"] = protocol
    if host_ip is not None:
        p["hostIP"] = host_ip
    return p


def node_selector_term(*match_expressions: NodeRequirement,
                       match_fields: Iterable[NodeRequirement] = ()) -> Doc:
    """A v1.NodeSelectorTerm; requirements as (key, operator[, values]) (values None: none)."""
    def reqs(items: Iterable[NodeRequirement]) -> list[Doc]:
        out = []
        for r in items:
            d: Doc = {"key": r[0], "operator": r[1]}
            values = r[2] if len(r) > 2 else None
            if values is not None:
                d["values"] = list(values)
            out.append(d)
        return out
    term: Doc = {}
    if match_expressions:
        term["matchExpressions"] = reqs(match_expressions)
    fields = list(match_fields)
    if fields:
        term["matchFields"] = reqs(fields)
    return term


def pod_affinity_term(topology_key: str, selector: Mapping[str, Any] | None = None, *,
                      namespaces: Iterable[str] | None = None,
                      namespace_selector: Mapping[str, Any] | None = None,
                      match_label_keys: Iterable[str] | None = None,
                      mismatch_label_keys: Iterable[str] | None = None) -> Doc:
    """A v1.PodAffinityTerm (``selector``: a label selector, e.g. from ``label_selector``)."""
    t: Doc = {}
    if selector is not None:
        t["labelSelector"] = plain(selector)
    t["topologyKey"] = topology_key
    if namespaces is not None:
        t["namespaces"] = list(namespaces)
    if namespace_selector is not None:
        t["namespaceSelector"] = plain(namespace_selector)
    if match_label_keys is not None:
        t["matchLabelKeys"] = list(match_label_keys)
    if mismatch_label_keys is not None:
        t["mismatchLabelKeys"] = list(mismatch_label_keys)
    return t


def weighted_term(weight: int, term: Mapping[str, Any]) -> Doc:
    """A v1.WeightedPodAffinityTerm."""
    return {"weight": weight, "podAffinityTerm": plain(term)}


def spread_constraint(max_skew: int, topology_key: str, when: str = "DoNotSchedule",
                      selector: Mapping[str, Any] | None = None, *,
                      min_domains: int | None = None, node_affinity_policy: str | None = None,
                      node_taints_policy: str | None = None,
                      match_label_keys: Iterable[str] | None = None) -> Doc:
    """A v1.TopologySpreadConstraint (the arguments of upstream ``SpreadConstraint``)."""
    c: Doc = {"maxSkew": max_skew, "topologyKey": topology_key, "whenUnsatisfiable": when}
    if selector is not None:
        c["labelSelector"] = plain(selector)
    for key, v in (("minDomains", min_domains), ("nodeAffinityPolicy", node_affinity_policy),
                   ("nodeTaintsPolicy", node_taints_policy)):
        if v is not None:
            c[key] = v
    if match_label_keys is not None:
        c["matchLabelKeys"] = list(match_label_keys)
    return c


# --- containers ----------------------------------------------------------------------------------

class ContainerWrapper(Wrapper):
    """A v1.Container (``ContainerWrapper`` of wrappers.go)."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__({"name": name})

    def name(self, name: str) -> Self:
        self._doc["name"] = name
        return self

    def image(self, image: str) -> Self:
        self._doc["image"] = image
        return self

    def requests(self, resources: Mapping[str, Quantity] | None = None, /,
                 **kw: Quantity) -> Self:
        """resources.requests (``ResourceRequests``; keyword names: ``_`` for ``-``); nothing
        is written for no resources."""
        res = resource_list(resources, kw)
        if res:
            self._at("resources")["requests"] = res
        return self

    def limits(self, resources: Mapping[str, Quantity] | None = None, /,
               **kw: Quantity) -> Self:
        """resources.limits (``ResourceLimits``); nothing is written for no resources."""
        res = resource_list(resources, kw)
        if res:
            self._at("resources")["limits"] = res
        return self

    def resources(self, resources: Mapping[str, Quantity] | None = None, /,
                  **kw: Quantity) -> Self:
        """``Resources``: requests and limits both these resources."""
        return self.requests(resources, **kw).limits(resources, **kw)

    def ports(self, ports: Iterable[Mapping[str, Any]]) -> Self:
        """``ContainerPort``: the ports (v1 dicts, e.g. from ``container_port``)."""
        self._doc["ports"] = plain(list(ports))
        return self

    def host_port(self, port: int) -> Self:
        """``HostPort``: one port with this hostPort (and containerPort)."""
        return self.ports([container_port(port, host_port=port)])

    def restart_policy(self, policy: str) -> Self:
        """``RestartPolicy``; ``"Always"`` makes an init container a sidecar."""
        self._doc["restartPolicy"] = policy
        return self

    def claims(self, *names: str) -> Self:
        """resources.claims: the pod's ``spec.resourceClaims`` entries this container uses."""
        self._at("resources")["claims"] = [{"name": n} for n in names]
        return self


def make_container(name: str = "c") -> ContainerWrapper:
    """``st.MakeContainer().Name(name)``."""
    return ContainerWrapper(name)


def container_status(name: str, *, allocated: Mapping[str, Quantity] | None = None,
                     requests: Mapping[str, Quantity] | None = None) -> Doc:
    """A v1.ContainerStatus with what the kubelet reports of an in-place resize:
    ``allocatedResources`` and ``resources.requests`` (each only when given, so absent and
    empty stay distinct)."""
    cs: Doc = {"name": name}
    if allocated is not None:
        cs["allocatedResources"] = dict(allocated)
    if requests is not None:
        cs["resources"] = {"requests": dict(requests)}
    return cs


# --- pods ----------------------------------------------------------------------------------------

class PodWrapper(ObjectWrapper):
    """A v1 Pod (``PodWrapper`` of wrappers.go). Methods write in call order."""

    __slots__ = ()

    def __init__(self, name: str) -> None:
        super().__init__("v1", "Pod", name)

    # metadata
    def creation_timestamp(self, t: str | float) -> Self:
        """metadata.creationTimestamp (RFC 3339, or seconds since the epoch)."""
        return self.meta(creationTimestamp=timestamp(t))

    def deletion_timestamp(self, t: str | float) -> Self:
        return self.meta(deletionTimestamp=timestamp(t))

    def terminating(self) -> Self:
        """``Terminating``: a deletionTimestamp (one second after the epoch)."""
        return self.deletion_timestamp(1)

    def owner_reference(self, name: str, kind: str = "ReplicaSet", api_version: str = "apps/v1",
                        *, uid: str | None = None, controller: bool = True) -> Self:
        """``OwnerReference``: one more owner (uid ``uid-<name>`` unless given)."""
        ref: Doc = {"apiVersion": api_version, "kind": kind, "name": name,
                    "uid": uid if uid is not None else f"uid-{name}"}
        if controller:
            ref["controller"] = True
        self._append(("metadata",), "ownerReferences", ref)
        return self

    # containers and resources
    def container(self, container: ContainerWrapper | Mapping[str, Any] | str) -> Self:
        """One more container: ``make_container(...)``, a v1 dict, or an image (upstream
        ``Container(image)``: a container ``con<N>`` without requests)."""
        if isinstance(container, str):
            container = make_container(
                f"con{len(self._at('spec').get('containers', ()))}").image(container)
        self._append(("spec",), "containers", container)
        return self

    def init_container(self, container: ContainerWrapper | Mapping[str, Any]) -> Self:
        self._append(("spec",), "initContainers", container)
        return self

    def _next(self, field: str, prefix: str) -> ContainerWrapper:
        """A new container named as upstream's wrappers name it (``con<N>``...)."""
        return make_container(f"{prefix}{len(self._at('spec').get(field, ()))}").image(PAUSE)

    def req(self, resources: Mapping[str, Quantity] | None = None, /, **kw: Quantity) -> Self:
        """``Req``: one more container ``con<N>`` requesting these resources (none for no
        resources). Keyword names: ``_`` for ``-``."""
        if not resource_list(resources, kw):
            return self
        return self.container(self._next("containers", "con").requests(resources, **kw))

    def lim(self, resources: Mapping[str, Quantity] | None = None, /, **kw: Quantity) -> Self:
        """``Lim``: one more container with these limits."""
        if not resource_list(resources, kw):
            return self
        return self.container(self._next("containers", "con").limits(resources, **kw))

    def res(self, resources: Mapping[str, Quantity] | None = None, /, **kw: Quantity) -> Self:
        """``Res``: one more container with these requests and limits."""
        if not resource_list(resources, kw):
            return self
        return self.container(self._next("containers", "con").resources(resources, **kw))

    def init_req(self, resources: Mapping[str, Quantity] | None = None, /,
                 **kw: Quantity) -> Self:
        """``InitReq``: one more init container ``init-con<N>`` (requests and limits)."""
        if not resource_list(resources, kw):
            return self
        return self.init_container(
            self._next("initContainers", "init-con").resources(resources, **kw))

    def sidecar_req(self, resources: Mapping[str, Quantity] | None = None, /,
                    **kw: Quantity) -> Self:
        """``SidecarReq``: one more restartable init container ``sidecar-con<N>``."""
        if not resource_list(resources, kw):
            return self
        return self.init_container(self._next("initContainers", "sidecar-con")
                                   .restart_policy("Always").resources(resources, **kw))

    def pod_level_req(self, resources: Mapping[str, Quantity] | None = None, /,
                      **kw: Quantity) -> Self:
        """``PodLevelResourceRequests``: spec.resources.requests."""
        res = resource_list(resources, kw)
        if res:
            self._at("spec")["resources"] = {"requests": res}
        return self

    def overhead(self, resources: Mapping[str, Quantity] | None = None, /,
                 **kw: Quantity) -> Self:
        self._at("spec")["overhead"] = resource_list(resources, kw)
        return self

    def host_port(self, port: int) -> Self:
        """``HostPort``: one more container "container" with this host port."""
        return self.container(make_container("container").image("pause").host_port(port))

    def container_port(self, ports: Iterable[Mapping[str, Any]]) -> Self:
        """``ContainerPort``: one more container "container" with these ports."""
        return self.container(make_container("container").image("pause").ports(ports))

    def init_container_port(self, sidecar: bool, ports: Iterable[Mapping[str, Any]]) -> Self:
        """``InitContainerPort``: one more init container with these ports."""
        c = make_container("init-container").image("pause").ports(ports)
        if sidecar:
            c.restart_policy("Always")
        return self.init_container(c)

    # placement
    def node(self, name: str) -> Self:
        """``Node``: spec.nodeName (a pod bound there)."""
        return self.spec(nodeName=name)

    def node_selector(self, selector: Mapping[str, str]) -> Self:
        return self.spec(nodeSelector=dict(selector))

    def affinity(self, affinity: Mapping[str, Any]) -> Self:
        """spec.affinity set as given (a v1 dict)."""
        return self.spec(affinity=affinity)

    def node_affinity_term(self, term: Mapping[str, Any], weight: int | None = None) -> Self:
        """One more required NodeSelectorTerm (ORed with the others), or with ``weight`` a
        preferred one (e.g. from ``node_selector_term``)."""
        na = self._at("spec", "affinity", "nodeAffinity")
        if weight is None:
            na.setdefault(_REQ, {}).setdefault("nodeSelectorTerms", []).append(plain(term))
        else:
            na.setdefault(_PREF, []).append({"weight": weight, "preference": plain(term)})
        return self

    def node_affinity_in(self, key: str, values: Iterable[str], field: bool = False) -> Self:
        """``NodeAffinityIn``: a required term ``key In values`` (a matchFields one with
        ``field``)."""
        req = (key, "In", list(values))
        term = node_selector_term(match_fields=[req]) if field else node_selector_term(req)
        return self.node_affinity_term(term)

    def node_affinity_not_in(self, key: str, values: Iterable[str]) -> Self:
        return self.node_affinity_term(node_selector_term((key, "NotIn", list(values))))

    def pod_affinity_term(self, term: Mapping[str, Any], *, anti: bool = False,
                          weight: int | None = None) -> Self:
        """One more (anti-)affinity term: required, or with ``weight`` preferred."""
        side = self._at("spec", "affinity", "podAntiAffinity" if anti else "podAffinity")
        if weight is None:
            side.setdefault(_REQ, []).append(plain(term))
        else:
            side.setdefault(_PREF, []).append(weighted_term(weight, term))
        return self

    def pod_affinity(self, topology_key: str, selector: Mapping[str, Any] | None,
                     kind: str = REQUIRED, *, anti: bool = False) -> Self:
        """``PodAffinity(topologyKey, labelSelector, kind)``: kind ``REQUIRED``,
        ``PREFERRED`` (weight 1) or ``REQUIRED_AND_PREFERRED``."""
        term = pod_affinity_term(topology_key, selector)
        if kind in (REQUIRED, REQUIRED_AND_PREFERRED):
            self.pod_affinity_term(term, anti=anti)
        if kind in (PREFERRED, REQUIRED_AND_PREFERRED):
            self.pod_affinity_term(term, anti=anti, weight=1)
        return self

    def pod_anti_affinity(self, topology_key: str, selector: Mapping[str, Any] | None,
                          kind: str = REQUIRED) -> Self:
        """``PodAntiAffinity(topologyKey, labelSelector, kind)``."""
        return self.pod_affinity(topology_key, selector, kind, anti=True)

    def spread_constraint(self, max_skew: int, topology_key: str, when: str = "DoNotSchedule",
                          selector: Mapping[str, Any] | None = None, **kw: Any) -> Self:
        """``SpreadConstraint``: one more constraint (see ``spread_constraint``)."""
        self._append(("spec",), "topologySpreadConstraints",
                     spread_constraint(max_skew, topology_key, when, selector, **kw))
        return self

    def topology_spread_constraints(self, constraints: Iterable[Mapping[str, Any]]) -> Self:
        """spec.topologySpreadConstraints set as given."""
        return self.spec(topologySpreadConstraints=list(constraints))

    def toleration(self, key: str | None = None, effect: str | None = None, **kw: Any) -> Self:
        """``Toleration``: one more toleration (see ``toleration``; Exists without a value)."""
        return self.tolerations([toleration(key, effect, **kw)])

    def tolerations(self, tolerations: Iterable[Mapping[str, Any]]) -> Self:
        """More tolerations (v1 dicts)."""
        self._append(("spec",), "tolerations", *tolerations)
        return self

    # priority and queueing
    def priority(self, value: int) -> Self:
        return self.spec(priority=value)

    def priority_class(self, name: str) -> Self:
        """spec.priorityClassName."""
        return self.spec(priorityClassName=name)

    def preemption_policy(self, policy: str) -> Self:
        return self.spec(preemptionPolicy=policy)

    def scheduling_gates(self, *gates: str) -> Self:
        """``SchedulingGates``: more gates, by name."""
        self._append(("spec",), "schedulingGates", *({"name": g} for g in gates))
        return self

    def runtime_class(self, name: str) -> Self:
        """``spec.runtimeClassName`` (admission sets the class's overhead and scheduling)."""
        self._at("spec")["runtimeClassName"] = name
        return self

    def scheduler_name(self, name: str) -> Self:
        return self.spec(schedulerName=name)

    def volume(self, volume: Mapping[str, Any]) -> Self:
        self._append(("spec",), "volumes", volume)
        return self

    def pvc(self, claim: str, vol_name: str | None = None) -> Self:
        """``PVC``: one more volume (named ``vol_name``, else as the claim) from this
        PersistentVolumeClaim."""
        return self.volume({"name": vol_name or claim,
                            "persistentVolumeClaim": {"claimName": claim}})

    def ephemeral_volume(self, name: str, storage_class: str | None = None,
                         size: Quantity = "1Gi", *,
                         access_modes: Iterable[str] = ("ReadWriteOnce",)) -> Self:
        """One more generic ephemeral volume: its ``volumeClaimTemplate`` asks for ``size``
        of ``storage_class`` (no ``storageClassName`` when None). The ephemeral volume
        controller creates its claim ``<pod>-<name>`` (``loader/ephemeral.py``)."""
        spec: Doc = {"accessModes": list(access_modes),
                     "resources": {"requests": {"storage": size}}}
        if storage_class is not None:
            spec["storageClassName"] = storage_class
        return self.volume({"name": name,
                            "ephemeral": {"volumeClaimTemplate": {"spec": spec}}})

    def inline_volume(self, name: str, kind: str, source: Mapping[str, Any]) -> Self:
        """One more inline volume of source ``kind`` (``gcePersistentDisk``,
        ``awsElasticBlockStore``, ``rbd``, ``iscsi``, ``csi``, ``hostPath``...)."""
        return self.volume({"name": name, kind: dict(source)})

    def resource_claim(self, name: str, *, claim: str | None = None,
                       template: str | None = None) -> Self:
        """One more spec.resourceClaims entry: ``claim`` names a ResourceClaim, ``template`` a
        ResourceClaimTemplate (``PodResourceClaims``)."""
        entry: Doc = {"name": name}
        if claim is not None:
            entry["resourceClaimName"] = claim
        if template is not None:
            entry["resourceClaimTemplateName"] = template
        self._append(("spec",), "resourceClaims", entry)
        return self

    # status
    def resource_claim_status(self, name: str, claim: str | None) -> Self:
        """One more status.resourceClaimStatuses entry (``PodResourceClaimStatuses``)."""
        entry: Doc = {"name": name}
        if claim is not None:
            entry["resourceClaimName"] = claim
        self._append(("status",), "resourceClaimStatuses", entry)
        return self

    def extended_resource_claim_status(self, claim: str,
                                       *mappings: tuple[str, str, str]) -> Self:
        """``status.extendedResourceClaimStatus`` as DynamicResources' PreBind patches it:
        the special claim's name and ``(containerName, resourceName, requestName)``
        mappings."""
        return self.status(extendedResourceClaimStatus={
            "resourceClaimName": claim,
            "requestMappings": [{"containerName": c, "resourceName": r, "requestName": q}
                                for c, r, q in mappings]})

    def start_time(self, t: str | float) -> Self:
        return self.status(startTime=timestamp(t))

    def nominated_node_name(self, name: str) -> Self:
        return self.status(nominatedNodeName=name)

    def phase(self, phase: str) -> Self:
        return self.status(phase=phase)

    def container_status(self, name: str, *, allocated: Mapping[str, Quantity] | None = None,
                         requests: Mapping[str, Quantity] | None = None) -> Self:
        """One more status.containerStatuses entry (see ``container_status``)."""
        self._append(("status",), "containerStatuses",
                     container_status(name, allocated=allocated, requests=requests))
        return self

    def init_container_status(self, name: str, *,
                              allocated: Mapping[str, Quantity] | None = None,
                              requests: Mapping[str, Quantity] | None = None) -> Self:
        """One more status.initContainerStatuses entry."""
        self._append(("status",), "initContainerStatuses",
                     container_status(name, allocated=allocated, requests=requests))
        return self

    def status_resources(self, *, allocated: Mapping[str, Quantity] | None = None,
                         requests: Mapping[str, Quantity] | None = None) -> Self:
        """Pod-level status.allocatedResources and status.resources.requests."""
        if allocated is not None:
            self.status(allocatedResources=dict(allocated))
        if requests is not None:
            self.status(resources={"requests": dict(requests)})
        return self

    def condition(self, type_: str, status: str = "True", reason: str = "",
                  message: str = "") -> Self:
        """One more status.conditions entry."""
        cond: Doc = {"type": type_, "status": status}
        if reason:
            cond["reason"] = reason
        if message:
            cond["message"] = message
        self._append(("status",), "conditions", cond)
        return self

    def resize_pending(self, reason: str = "Infeasible", message: str = "") -> Self:
        """A PodResizePending condition (reason ``Infeasible`` or ``Deferred``)."""
        return self.condition("PodResizePending", "True", reason, message)

    def preempted_by_scheduler(self) -> Self:
        """What the scheduler's preemption leaves on a victim being deleted: the condition
        DisruptionTarget=True (reason PreemptionByScheduler); add ``terminating()`` for the
        deletionTimestamp."""
        return self.condition("DisruptionTarget", "True", "PreemptionByScheduler",
                              "default-scheduler: preempting to accommodate a higher priority pod")

    def obj(self, *related: object) -> Pod:
        """The Pod the loader makes of this manifest, loaded with the ``related`` manifests
        (PriorityClasses its priorityClassName names, Namespaces); its node need not exist."""
        docs = [*(plain(r) for r in related), self.manifest()]
        pods = load_documents(docs, source="<builder>", require_known_nodes=False).cluster.pods
        if not pods:
            raise ValueError("make_pod(...).obj(): a terminal pod (phase Succeeded/Failed)")
        return pods[-1]


def make_pod(name: str) -> PodWrapper:
    """``st.MakePod().Name(name)``: a Pod with only its name (the loader's defaults: namespace
    default, priority 0, the default scheduler); add what a test needs::

        make_pod("p").namespace("ns").req(cpu="1").node_selector({"disk": "ssd"}).obj()
    """
    return PodWrapper(name)
