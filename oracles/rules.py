"""Independent, plain restatements of upstream's Filter rules (:class:`World`, :class:`PodFit`,
:func:`fit_reasons`), written without any code of the reference's plugins, framework or
scheduler. See docs/oracles.md#the-restated-filter-rules.

Upstream files: ``staging/src/k8s.io/api/core/v1/toleration.go``,
``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go``,
``staging/src/k8s.io/apimachinery/pkg/labels/selector.go``, under
``pkg/scheduler/framework/plugins/``: ``nodename``, ``nodeunschedulable``, ``tainttoleration``,
``nodeaffinity``, ``nodeports``, ``noderesources/fit.go``, ``podtopologyspread/{common,
filtering}.go``, ``interpodaffinity/filtering.go``; ``pkg/scheduler/framework/runtime/
framework.go`` (RunFilterPluginsWithNominatedPods, addGENominatedPods)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from reference_impl.api.labels import IN, Selector, compile_selector
from reference_impl.model.controllers import NO_CONTROLLERS, Controllers
from reference_impl.model.objects import (
    DO_NOT_SCHEDULE,
    POLICY_HONOR,
    POLICY_IGNORE,
    TAINT_NO_EXECUTE,
    TAINT_NO_SCHEDULE,
    TAINT_NODE_UNSCHEDULABLE,
    TOLERATION_OP_EQUAL,
    TOLERATION_OP_EXISTS,
    ContainerPort,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodAffinityTerm,
    Resource,
    Taint,
    Toleration,
    TopologySpreadConstraint,
)
from reference_impl.model.requests import compute_pod_resources, is_extended_resource_name
from reference_impl.plugins.helper.spread import default_selector

# Selectors are frozen (hashable) model objects: compile each once.
selector_of = functools.lru_cache(maxsize=8192)(compile_selector)

# ----------------------------------------------------------------------------- taints

def tolerates(tol: Toleration, taint: Taint) -> bool:
    """``Toleration.ToleratesTaint`` (TaintTolerationComparisonOperators off): the effect and
    key match when set on the toleration; Exists matches any value, Equal ("" too) the same
    value; any other operator matches nothing."""
    if tol.effect and tol.effect != taint.effect:
        return False
    if tol.key and tol.key != taint.key:
        return False
    op = tol.operator or TOLERATION_OP_EQUAL
    if op == TOLERATION_OP_EQUAL:
        return tol.value == taint.value
    return op == TOLERATION_OP_EXISTS


def first_untolerated(taints: Iterable[Taint], tolerations: Sequence[Toleration],
                      effects: tuple[str, ...] = (TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE)
                      ) -> Taint | None:
    """``FindMatchingUntoleratedTaint`` with ``DoNotScheduleTaintsFilterFunc``: the first taint
    with one of ``effects`` that no toleration tolerates."""
    for taint in taints:
        if taint.effect in effects and not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


def tolerates_unschedulable(pod: Pod) -> bool:
    """NodeUnschedulable: the pod tolerates the taint {node.kubernetes.io/unschedulable,
    NoSchedule}."""
    taint = Taint(TAINT_NODE_UNSCHEDULABLE, "", TAINT_NO_SCHEDULE)
    return any(tolerates(t, taint) for t in pod.tolerations)


# ----------------------------------------------------------------------------- node selectors

_GO_INT = re.compile(r"[+-]?[0-9]+")


def _go_int64(s: str) -> int | None:
    """``strconv.ParseInt(s, 10, 64)``; None on error."""
    if not _GO_INT.fullmatch(s):
        return None
    v = int(s)
    return v if -(1 << 63) <= v < (1 << 63) else None


def label_requirement_matches(req: NodeSelectorRequirement, labels: Mapping[str, str]
                              ) -> bool | None:
    """A node selector label requirement (``labels.Requirement.Matches``); None when the
    requirement is invalid (``labels.NewRequirement`` rejects it: In/NotIn without values,
    Exists/DoesNotExist with values, Gt/Lt without exactly one integer, unknown operator)."""
    op, vals = req.operator, req.values
    if op in ("In", "NotIn"):
        if not vals:
            return None
        has = req.key in labels
        if op == "In":
            return has and labels[req.key] in vals
        return not has or labels[req.key] not in vals
    if op in ("Exists", "DoesNotExist"):
        if vals:
            return None
        return (req.key in labels) == (op == "Exists")
    if op in ("Gt", "Lt"):
        if len(vals) != 1:
            return None
        bound = _go_int64(vals[0])
        if bound is None:
            return None
        if req.key not in labels:
            return False
        have = _go_int64(labels[req.key])
        if have is None:
            return False
        return have > bound if op == "Gt" else have < bound
    return None


def field_requirement_matches(req: NodeSelectorRequirement, node_name: str) -> bool | None:
    """A node selector field requirement: only In/NotIn with exactly one value, against the
    node's fields ``{metadata.name: name}`` (an unknown field reads as "")."""
    if req.operator not in ("In", "NotIn") or len(req.values) != 1:
        return None
    have = node_name if req.key == "metadata.name" else ""
    return (have == req.values[0]) == (req.operator == "In")


def term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    """A node selector term: an empty term matches nothing; an invalid requirement makes the
    term fail; otherwise every label and every field requirement must hold."""
    if not term.match_expressions and not term.match_fields:
        return False
    for r in term.match_expressions:
        if label_requirement_matches(r, node.labels) is not True:
            return False
    for r in term.match_fields:
        if field_requirement_matches(r, node.name) is not True:
            return False
    return True


def node_selector_matches(sel: NodeSelector, node: Node) -> bool:
    """Node selector terms are ORed."""
    return any(term_matches(t, node) for t in sel.node_selector_terms)


def required_node_affinity_mismatch(pod: Pod, node: Node) -> str | None:
    """``RequiredNodeAffinity.Match``: spec.nodeSelector (every key=value) and the required
    node affinity terms; the failing part as a sentence, or None."""
    for k, v in pod.node_selector.items():
        if node.labels.get(k) != v:
            have = node.labels.get(k)
            return (f"nodeSelector {k}={v} does not match the node's label "
                    f"{k}={have}" if have is not None else
                    f"nodeSelector {k}={v} does not match: the node has no label {k}")
    aff = pod.affinity.node_affinity if pod.affinity else None
    if aff is not None and aff.required is not None and not node_selector_matches(aff.required,
                                                                                  node):
        return (f"none of the {len(aff.required.node_selector_terms)} required node affinity "
                f"term(s) matches the node's labels {dict(sorted(node.labels.items()))}")
    return None


# ----------------------------------------------------------------------------- resources

def requests_of(pod: Pod) -> Resource:
    """The pod's effective requests (upstream PodRequests in scheduler units)."""
    if pod.resources is None:
        pod.resources = compute_pod_resources(pod)
    return pod.resources.requests


def sum_requests(pods: Iterable[Pod]) -> Resource:
    """NodeInfo.Requested: the sum of the pods' requests."""
    total = Resource()
    for p in pods:
        r = requests_of(p)
        total.milli_cpu += r.milli_cpu
        total.memory += r.memory
        total.ephemeral_storage += r.ephemeral_storage
        for k, v in r.scalar.items():
            total.scalar[k] = total.scalar.get(k, 0) + v
    return total


def fmt_amount(name: str, v: int) -> str:
    return f"{v}m" if name == "cpu" else str(v)


def is_ignored_resource(name: str, ignored: frozenset[str], ignored_groups: frozenset[str]
                        ) -> bool:
    """NodeResourcesFitArgs: an *extended* resource listed in ``ignoredResources`` or whose
    prefix (before "/") is in ``ignoredResourceGroups`` is not checked."""
    return is_extended_resource_name(name) and (
        name in ignored or (bool(ignored_groups) and name.split("/")[0] in ignored_groups))


def resource_shortfalls(req: Resource, node: Node, pods_on_node: Sequence[Pod],
                        ignored: frozenset[str] = frozenset(),
                        ignored_groups: frozenset[str] = frozenset(),
                        dra_extended: frozenset[str] = frozenset(),
                        skipped: frozenset[str] = frozenset()) -> list[str]:
    """``fitsRequest`` (noderesources/fit.go): pod count first; then, unless the pod requests
    nothing, each of cpu/memory/ephemeral-storage/scalar resources the pod requests (> 0) must
    fit in allocatable minus what the node's pods already request. Extended resources in
    ``ignoredResources`` or whose prefix is in ``ignoredResourceGroups`` are not checked.
    An extended resource a DeviceClass maps (``dra_extended``) that the node does not
    advertise is DynamicResources' to count (``shouldDelegateResourceToDRA``), not checked.
    ``skipped``: checks left out (``pods``, ``cpu``, ``memory``, ``ephemeral-storage``,
    ``extended``: :attr:`FilterConfig.fit_skipped`)."""
    out: list[str] = []
    alloc = node.allocatable
    if "pods" not in skipped and len(pods_on_node) + 1 > alloc.allowed_pod_number:
        out.append(f"Too many pods: {len(pods_on_node)} pod(s) already on the node, "
                   f"allocatable pods {alloc.allowed_pod_number}")
    if (req.milli_cpu == 0 and req.memory == 0 and req.ephemeral_storage == 0
            and not req.scalar):
        return out
    used = sum_requests(pods_on_node)
    for name, want, have, cap in (
            ("cpu", req.milli_cpu, used.milli_cpu, alloc.milli_cpu),
            ("memory", req.memory, used.memory, alloc.memory),
            ("ephemeral-storage", req.ephemeral_storage, used.ephemeral_storage,
             alloc.ephemeral_storage)):
        if want > 0 and want > cap - have and name not in skipped:
            out.append(f"Insufficient {name}: the pod requests {fmt_amount(name, want)}, the "
                       f"node has {fmt_amount(name, cap)} allocatable of which "
                       f"{fmt_amount(name, have)} is already requested "
                       f"({fmt_amount(name, cap - have)} free)")
    for name, want in req.scalar.items():
        if want == 0 or is_ignored_resource(name, ignored, ignored_groups) or (
                "extended" in skipped):
            continue
        if name in dra_extended and alloc.scalar.get(name, 0) <= 0:
            continue
        cap = alloc.scalar.get(name, 0)
        have = used.scalar.get(name, 0)
        if want > cap - have:
            out.append(f"Insufficient {name}: the pod requests {want}, the node has {cap} "
                       f"allocatable of which {have} is already requested ({cap - have} free)")
    return out


# ----------------------------------------------------------------------------- host ports

def _sanitize(p: ContainerPort) -> tuple[str, str, int]:
    return (p.host_ip or "0.0.0.0", p.protocol or "TCP", p.host_port)


def port_conflict(want: Sequence[ContainerPort], pods_on_node: Iterable[Pod]
                  ) -> tuple[ContainerPort, Pod] | None:
    """``HostPortInfo.CheckConflict``: a wanted (ip, protocol, port) conflicts with a used one of
    the same protocol and port when either ip is 0.0.0.0 (an empty ip means 0.0.0.0) or the ips
    are equal. Returns the first conflicting wanted port and the pod using it."""
    used = [(_sanitize(p), pod) for pod in pods_on_node for p in pod.host_ports]
    for w in want:
        if w.host_port <= 0:
            continue
        wip, wproto, wport = _sanitize(w)
        for (uip, uproto, uport), pod in used:
            if uproto == wproto and uport == wport and (
                    wip == "0.0.0.0" or uip == "0.0.0.0" or uip == wip):
                return w, pod
    return None


# ----------------------------------------------------------------------------- pod (anti)affinity

def term_selects(term: PodAffinityTerm, owner_ns: str, target: Pod,
                 ns_labels: Mapping[str, Mapping[str, str]]) -> bool:
    """``AffinityTerm.Matches``: the target pod's namespace is one of the term's namespaces (the
    owner's namespace when neither namespaces nor namespaceSelector is set) or the term's
    namespaceSelector selects the target's namespace labels (an empty selector selects every
    namespace, a nil one none); and the labelSelector selects the target's labels."""
    if target.namespace in term.namespaces or (
            not term.namespaces and term.namespace_selector is None
            and target.namespace == owner_ns):
        ns_ok = True
    elif term.namespace_selector is not None:
        ns_ok = selector_of(term.namespace_selector).matches(
            ns_labels.get(target.namespace, {}))
    else:
        ns_ok = False
    return ns_ok and selector_of(term.label_selector).matches(target.labels)


def required_affinity_terms(pod: Pod) -> tuple[PodAffinityTerm, ...]:
    a = pod.affinity
    return a.pod_affinity.required if a and a.pod_affinity else ()


def required_anti_affinity_terms(pod: Pod) -> tuple[PodAffinityTerm, ...]:
    a = pod.affinity
    return a.pod_anti_affinity.required if a and a.pod_anti_affinity else ()


# ----------------------------------------------------------------------------- pods we restate

SIMPLE_VOLUME_KINDS = frozenset({"name", "emptyDir", "configMap", "secret", "downwardAPI",
                                 "projected", "hostPath", "image"})


def unmodelled_pod_features(pod: Pod, dra_extended: frozenset[str] = frozenset()) -> list[str]:
    """Features of a pod whose Filter rules the oracles do not restate (volume plugins,
    DynamicResources, extended resources backed by DRA (``dra_extended``),
    NodeDeclaredFeatures); a pod with none is a "plain" pod."""
    out: list[str] = []
    if dra_extended and any(q and name in dra_extended
                            for name, q in requests_of(pod).scalar.items()):
        out.append("extended resources backed by DRA")
    if pod.pvc_names:
        out.append("persistentVolumeClaim volumes")
    if pod.resource_claims:
        out.append("resource claims")
    for v in pod.volumes:
        kinds = set(v) - SIMPLE_VOLUME_KINDS
        if kinds:
            out.append(f"volume source {sorted(kinds)[0]}")
            break
    containers = list(pod.containers) + list(pod.init_containers)
    if any(r.get("action") == "RestartAllContainers"
           for c in containers for r in c.restart_policy_rules):
        out.append("restartPolicyRules RestartAllContainers (a node-declared feature)")
    if pod.host_network and pod.host_users is False:
        out.append("hostNetwork with hostUsers=false (a node-declared feature)")
    if any(m.get("bindMountOptions") for c in containers + list(pod.ephemeral_containers)
           for m in c.volume_mounts):
        out.append("bindMountOptions (a node-declared feature)")
    return out


# ----------------------------------------------------------------------------- the world

#: upstream deviation: InterPodAffinity's PreFilter returns Skip when no assigned pod's
#: required anti-affinity matches the pod and the pod has no required terms, so the required
#: anti-affinity of nominated pods (added by AddPod, which a skipped plugin never runs) is
#: never checked (oracles/upstream_deviations.yaml)
IPA_SKIP = "interpodaffinity-prefilter-skip-ignores-nominated-anti-affinity"
#: upstream deviation of v1.34.4 to v1.36.3 (switch interpodaffinity-namespace-merge
#: "selector-kept"): the incoming pod's terms keep their namespace selector and are matched
#: against no namespace labels, so a selector that selects the empty label set selects pods of
#: every namespace (oracles/upstream_deviations.yaml)
IPA_NS_KEPT = "interpodaffinity-namespace-selector-kept"


@dataclass(slots=True)
class World:
    """The cluster as one filter pass sees it.

    ``pods_on`` are the pods bound (or assumed) to each node; ``extra_on`` are pods added for
    this pass only, as upstream's ``addGENominatedPods`` adds nominated pods to the node being
    filtered (they count like bound pods, except for topology spread which adds them with
    ``Selector.Matches`` and without the terminating check, as PodTopologySpread.AddPod does).
    """

    nodes: Mapping[str, Node]
    pods_on: Mapping[str, Sequence[Pod]]
    ns_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    extra_on: Mapping[str, Sequence[Pod]] = field(default_factory=dict)

    def on(self, node: str) -> list[Pod]:
        """Every pod this pass sees on ``node``."""
        return list(self.pods_on.get(node, ())) + list(self.extra_on.get(node, ()))

    def with_extra(self, node: str, pods: Sequence[Pod]) -> World:
        extra = dict(self.extra_on)
        extra[node] = list(extra.get(node, ())) + list(pods)
        return World(self.nodes, self.pods_on, self.ns_labels, extra)

    def without(self, node: str, keys: Iterable[str]) -> World:
        """The world with the pods ``keys`` removed from ``node``."""
        drop = set(keys)
        pods_on = dict(self.pods_on)
        pods_on[node] = [p for p in self.pods_on.get(node, ()) if p.key not in drop]
        return World(self.nodes, pods_on, self.ns_labels, self.extra_on)

    def with_bound(self, node: str, pods: Sequence[Pod]) -> World:
        pods_on = dict(self.pods_on)
        pods_on[node] = list(self.pods_on.get(node, ())) + list(pods)
        return World(self.nodes, pods_on, self.ns_labels, self.extra_on)


@dataclass(slots=True)
class FilterConfig:
    """Which restated rules apply and with which args (from the pod's profile)."""

    enabled: frozenset[str] = frozenset({
        "NodeName", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodePorts",
        "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity"})
    ignored_resources: frozenset[str] = frozenset()
    ignored_groups: frozenset[str] = frozenset()
    #: NodeResourcesFit checks left out (``pods``, ``cpu``, ``memory``, ``ephemeral-storage``,
    #: ``extended``): a declared replacement changes them on purpose (docs/plugins.md)
    fit_skipped: frozenset[str] = frozenset()
    added_affinity: NodeSelector | None = None
    #: PodTopologySpread's DoNotSchedule default constraints (``defaultingType: List``; the
    #: system defaults are all ScheduleAnyway) and the Services / controllers their selector
    #: comes from (``helper.DefaultSelector``)
    spread_defaults: tuple[TopologySpreadConstraint, ...] = ()
    controllers: Controllers = NO_CONTROLLERS
    #: the upstream deviations (oracles/upstream_deviations.yaml) whose upstream behaviour the
    #: rules follow; without one, the rules state upstream's intent instead
    follow: frozenset[str] = frozenset({IPA_SKIP, IPA_NS_KEPT})
    #: the judged release runs the "selector-kept" variant of the switch
    #: interpodaffinity-namespace-merge (v1.34.4 to v1.36.3): :data:`IPA_NS_KEPT` applies
    namespace_selector_kept: bool = False
    #: extended resources backed by DRA (DeviceClasses, DRAExtendedResource on): Fit does not
    #: count them on a node that does not advertise them (``shouldDelegateResourceToDRA``)
    dra_extended: frozenset[str] = frozenset()
    #: the followed deviations that changed a verdict of these rules (filled as they run)
    met: set[str] = field(default_factory=set)


ALL_FILTERS = FilterConfig()


@dataclass(slots=True)
class _Spread:
    max_skew: int
    key: str
    selector: Selector
    min_domains: int
    affinity_policy: str
    taints_policy: str
    counts: dict[str, int] = field(default_factory=dict)


def spread_constraints(pod: Pod, cfg: FilterConfig = ALL_FILTERS) -> list[_Spread]:
    """The pod's DoNotSchedule constraints (``filterTopologySpreadConstraints``): the selector
    with ``matchLabelKeys`` merged in (key In (pod's value), for keys the pod has), minDomains
    defaulting to 1, nodeAffinityPolicy to Honor and nodeTaintsPolicy to Ignore. A pod without
    constraints of its own gets the profile's DoNotSchedule default constraints
    (``buildDefaultConstraints``), all with the selector ``helper.DefaultSelector`` deduces
    from its Services and controller; none when that selector is empty."""
    own = bool(pod.topology_spread_constraints)
    default_sel: Selector | None = None
    if not own and cfg.spread_defaults:
        default_sel = default_selector(pod, cfg.controllers)
        if default_sel.empty():
            return []
    out = []
    for c in pod.topology_spread_constraints if own else cfg.spread_defaults:
        if c.when_unsatisfiable != DO_NOT_SCHEDULE:
            continue
        sel = default_sel if default_sel is not None else selector_of(c.label_selector)
        if c.match_label_keys and not sel.nothing:
            for k in c.match_label_keys:
                if k in pod.labels:
                    sel = sel.with_requirement(k, IN, frozenset((pod.labels[k],)))
        out.append(_Spread(c.max_skew, c.topology_key, sel, c.min_domains or 1,
                           c.node_affinity_policy or POLICY_HONOR,
                           c.node_taints_policy or POLICY_IGNORE))
    return out


class PodFit:
    """Every restated Filter rule for one pod in one world; ``reasons(node)`` lists the broken
    ones (an empty list means the pod passes every restated rule on that node)."""

    def __init__(self, pod: Pod, world: World, cfg: FilterConfig = ALL_FILTERS,
                 prefilter: World | None = None) -> None:
        """``prefilter``: the world InterPodAffinity's PreFilter saw, when it is not ``world``
        without its nominated pods (a preemption's dry run removes victims from the world
        PreFilter saw, and keeps PreFilter's Skip)."""
        self.pod = pod
        self.world = world
        self.cfg = cfg
        self.prefilter = prefilter
        self.req = requests_of(pod)
        self.spread = (spread_constraints(pod, cfg) if "PodTopologySpread" in cfg.enabled
                       else [])
        if self.spread:
            self._count_spread()
        self.aff_terms = required_affinity_terms(pod)
        self.anti_terms = required_anti_affinity_terms(pod)
        self.aff_counts: dict[tuple[str, str], int] = {}
        self.anti_counts: dict[tuple[str, str], int] = {}
        self.existing_anti: dict[tuple[str, str], list[str]] = {}
        if "InterPodAffinity" in cfg.enabled:
            self._count_affinity()

    # --- precomputation ---
    def _count_spread(self) -> None:
        """``calPreFilterState``: for each constraint, the number of matching pods per domain
        over the nodes that have every constraint's topology key and pass the constraint's
        node inclusion policies. Bound pods count when not terminating, in the pod's namespace,
        and matched by a non-empty selector (``countPodsMatchSelector``); pods added for this
        pass count when in the pod's namespace and matched (``updateWithPod``)."""
        pod = self.pod
        keys = [c.key for c in self.spread]
        for name, node in self.world.nodes.items():
            if any(k not in node.labels for k in keys):
                continue
            for c in self.spread:
                if not self._included(c, node):
                    continue
                v = node.labels[c.key]
                n = 0
                if not c.selector.empty():
                    n += sum(1 for p in self.world.pods_on.get(name, ())
                             if p.deletion_timestamp is None and p.namespace == pod.namespace
                             and c.selector.matches(p.labels))
                n += sum(1 for p in self.world.extra_on.get(name, ())
                         if p.namespace == pod.namespace and c.selector.matches(p.labels))
                c.counts[v] = c.counts.get(v, 0) + n

    def _included(self, c: _Spread, node: Node) -> bool:
        """``matchNodeInclusionPolicies``."""
        if c.affinity_policy == POLICY_HONOR and required_node_affinity_mismatch(
                self.pod, node) is not None:
            return False
        return not (c.taints_policy == POLICY_HONOR
                    and first_untolerated(node.taints, self.pod.tolerations) is not None)

    def _count_affinity(self) -> None:
        """The three InterPodAffinity PreFilter counts (hostname fast path off): for the pod's
        required affinity, per (topologyKey, value) the pods matching *all* its terms; for its
        required anti-affinity, per (key, value) the pods matching a term; for the existing
        pods' required anti-affinity, per (key, value) the terms that match the pod.
        Following :data:`IPA_SKIP`, the plugin is skipped (no counts, no rule) when the pod has
        no required terms and no assigned pod's required anti-affinity matches it."""
        pod, ns = self.pod, self.world.ns_labels
        if IPA_SKIP in self.cfg.follow and not self.aff_terms and not self.anti_terms:
            seen = self.prefilter or World(self.world.nodes, self.world.pods_on, ns)
            if not _existing_anti_matches(pod, seen):
                if _existing_anti_matches(pod, self.world):
                    self.cfg.met.add(IPA_SKIP)
                return
        for name, node in self.world.nodes.items():
            for other in self.world.on(name):
                if self.aff_terms and all(self._own_term_selects(t, other)
                                          for t in self.aff_terms):
                    for t in self.aff_terms:
                        if t.topology_key in node.labels:
                            k = (t.topology_key, node.labels[t.topology_key])
                            self.aff_counts[k] = self.aff_counts.get(k, 0) + 1
                for t in self.anti_terms:
                    if t.topology_key in node.labels and self._own_term_selects(t, other):
                        k = (t.topology_key, node.labels[t.topology_key])
                        self.anti_counts[k] = self.anti_counts.get(k, 0) + 1
                for t in required_anti_affinity_terms(other):
                    if t.topology_key in node.labels and term_selects(t, other.namespace, pod,
                                                                      ns):
                        k = (t.topology_key, node.labels[t.topology_key])
                        self.existing_anti.setdefault(k, []).append(other.key)

    def _own_term_selects(self, term: PodAffinityTerm, target: Pod) -> bool:
        """One of the pod's own required terms against ``target``: ``term_selects``, or,
        following :data:`IPA_NS_KEPT` in a release that keeps the selector, a namespace
        selector that selects the empty label set (``NotIn``, ``DoesNotExist``) with the label
        selector selecting the target (``t.Matches(pod, nil)`` of filtering.go, v1.36.3)."""
        if term_selects(term, self.pod.namespace, target, self.world.ns_labels):
            return True
        if (self.cfg.namespace_selector_kept and IPA_NS_KEPT in self.cfg.follow
                and term.namespace_selector is not None
                and selector_of(term.namespace_selector).matches({})
                and selector_of(term.label_selector).matches(target.labels)):
            self.cfg.met.add(IPA_NS_KEPT)
            return True
        return False

    # --- the rules ---
    def static_reasons(self, node_name: str) -> list[str]:
        """The rules that do not depend on the node's pods: NodeName, NodeUnschedulable,
        TaintToleration, NodeAffinity."""
        node = self.world.nodes.get(node_name)
        if node is None:
            return [f"node {node_name} does not exist"]
        pod, cfg, out = self.pod, self.cfg, []
        en = cfg.enabled
        if "NodeName" in en and pod.node_name and pod.node_name != node_name:
            out.append(f"NodeName: spec.nodeName is {pod.node_name}")
        if "NodeUnschedulable" in en and node.unschedulable and not tolerates_unschedulable(pod):
            out.append("NodeUnschedulable: the node is unschedulable (spec.unschedulable) and "
                       "the pod does not tolerate node.kubernetes.io/unschedulable:NoSchedule")
        if "TaintToleration" in en:
            t = first_untolerated(node.taints, pod.tolerations)
            if t is not None:
                out.append(f"TaintToleration: the taint {t.key}={t.value}:{t.effect} is not "
                           "tolerated")
        if "NodeAffinity" in en:
            if cfg.added_affinity is not None and not node_selector_matches(
                    cfg.added_affinity, node):
                out.append("NodeAffinity: the node does not match the profile's addedAffinity")
            why = required_node_affinity_mismatch(pod, node)
            if why is not None:
                out.append(f"NodeAffinity: {why}")
        return out

    def reasons(self, node_name: str) -> list[str]:
        """Every restated rule the pod breaks on ``node_name`` (empty: it fits)."""
        out = self.static_reasons(node_name)
        node = self.world.nodes.get(node_name)
        if node is None:
            return out
        pod, cfg, en = self.pod, self.cfg, self.cfg.enabled
        on_node = self.world.on(node_name)
        if "NodePorts" in en and pod.host_ports:
            c = port_conflict(pod.host_ports, on_node)
            if c is not None:
                w, user = c
                out.append(f"NodePorts: host port {w.protocol or 'TCP'}/{w.host_port} "
                           f"(hostIP {w.host_ip or '0.0.0.0'}) is already used by {user.key}")
        if "NodeResourcesFit" in en:
            out += [f"NodeResourcesFit: {r}" for r in resource_shortfalls(
                self.req, node, on_node, cfg.ignored_resources, cfg.ignored_groups,
                cfg.dra_extended, cfg.fit_skipped)]
        if self.spread:
            out += self._spread_reasons(node)
        if "InterPodAffinity" in en:
            out += self._affinity_reasons(node)
        return out

    def _spread_reasons(self, node: Node) -> list[str]:
        """PodTopologySpread Filter: the node must have every constraint's key; per constraint,
        matchNum(domain of the node) + selfMatch - globalMin must not exceed maxSkew, where the
        global minimum is 0 when fewer than minDomains domains exist."""
        out = []
        for c in self.spread:
            if c.key not in node.labels:
                return [f"PodTopologySpread: the node has no label {c.key} (topologyKey of a "
                        "DoNotSchedule constraint)"]
        for c in self.spread:
            v = node.labels[c.key]
            domains = len(c.counts)
            gmin = min(c.counts.values()) if domains >= c.min_domains and domains else 0
            match = c.counts.get(v, 0)
            self_match = 1 if c.selector.matches(self.pod.labels) else 0
            skew = match + self_match - gmin
            if skew > c.max_skew:
                md = (f", only {domains} domain(s) < minDomains {c.min_domains} so the minimum "
                      "is 0" if domains < c.min_domains else "")
                out.append(f"PodTopologySpread: {c.key}={v} has {match} matching pod(s), "
                           f"+{self_match} for the pod, global minimum {gmin}{md}: skew "
                           f"{skew} > maxSkew {c.max_skew}")
        return out

    def _affinity_reasons(self, node: Node) -> list[str]:
        """InterPodAffinity Filter (filtering.go): required affinity, then the pod's required
        anti-affinity, then the existing pods' required anti-affinity (symmetry)."""
        out = []
        labels = node.labels
        if self.aff_terms:
            missing = [t.topology_key for t in self.aff_terms if t.topology_key not in labels]
            if missing:
                out.append(f"InterPodAffinity: the node has no label {missing[0]} (topologyKey "
                           "of a required affinity term)")
            else:
                empty = [t for t in self.aff_terms
                         if self.aff_counts.get((t.topology_key, labels[t.topology_key]), 0)
                         <= 0]
                if empty:
                    self_ok = all(self._own_term_selects(t, self.pod) for t in self.aff_terms)
                    if self.aff_counts or not self_ok:
                        t = empty[0]
                        why = ("pods matching all terms exist elsewhere"
                               if self.aff_counts else "the pod does not match its own terms")
                        out.append(f"InterPodAffinity: no pod matching every required affinity "
                                   f"term runs in {t.topology_key}="
                                   f"{labels[t.topology_key]} ({why})")
        for t in self.anti_terms:
            if t.topology_key in labels:
                n = self.anti_counts.get((t.topology_key, labels[t.topology_key]), 0)
                if n > 0:
                    out.append(f"InterPodAffinity: {n} pod(s) matching a required anti-affinity "
                               f"term run in {t.topology_key}={labels[t.topology_key]}")
                    break
        for k, v in labels.items():
            owners = self.existing_anti.get((k, v))
            if owners:
                out.append(f"InterPodAffinity: existing pod(s) {', '.join(sorted(owners))} in "
                           f"{k}={v} have required anti-affinity against this pod")
                break
        return out


def _existing_anti_matches(pod: Pod, world: World) -> bool:
    """Whether a pod of ``world`` has a required anti-affinity term that selects ``pod`` on a
    node with the term's topology key (``getExistingAntiAffinityCounts`` is not empty)."""
    for name, node in world.nodes.items():
        for other in world.on(name):
            for t in required_anti_affinity_terms(other):
                if t.topology_key in node.labels and term_selects(t, other.namespace, pod,
                                                                  world.ns_labels):
                    return True
    return False


def nominated_for(pod: Pod, node: str, nominated: Mapping[str, str],
                  specs: Mapping[str, Pod]) -> list[Pod]:
    """``addGENominatedPods``: pods nominated to ``node`` with priority >= the pod's, other
    than the pod itself."""
    out = []
    for key, where in nominated.items():
        if where != node or key == pod.key:
            continue
        p = specs.get(key)
        if p is not None and p.priority >= pod.priority and p.uid != pod.uid:
            out.append(p)
    return out


def fit_reasons(pod: Pod, node: str, world: World, cfg: FilterConfig = ALL_FILTERS,
                nominated: Sequence[Pod] = (), base: PodFit | None = None,
                prefilter: World | None = None) -> list[str]:
    """``RunFilterPluginsWithNominatedPods``: with nominated pods (priority >= the pod's) added
    to the node the pod must pass, and without them too. ``base`` may carry a precomputed
    :class:`PodFit` for ``world``; ``prefilter`` is the world PreFilter saw when it is not
    ``world`` (a preemption's dry run)."""
    if nominated:
        seen = prefilter or world
        with_nom = PodFit(pod, world.with_extra(node, nominated), cfg, seen).reasons(node)
        if with_nom:
            names = ", ".join(p.key for p in nominated)
            return [f"{r} (counting pod(s) nominated to the node: {names})" for r in with_nom]
    fit = base if base is not None else PodFit(pod, world, cfg, prefilter)
    return fit.reasons(node)
