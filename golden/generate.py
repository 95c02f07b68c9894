"""The golden scenarios: readable definitions of small clusters, each aimed at one rule.

Each definition builds a scenario (Kubernetes manifests, maybe a KubeSchedulerConfiguration and a
``kschedconf/v1`` Scenario timeline). ``kschedconf golden record`` schedules them on the real
upstream kube-scheduler (the upstream subject) and writes ``golden/<name>.yaml``: the scenario
followed by the decisions upstream made (a ``GoldenDecisions`` document with its provenance);
``kschedconf golden verify`` (and ``kschedconf run --suite golden``, and
``tests/test_golden.py``) check a subject against them.

The scenarios avoid upstream's random choices: host selection in v1.37.2 is deterministic (the
highest score, ties broken by the scored-node heap), but DefaultPreemption breaks a complete tie
between candidate nodes by Go map order (and reads ``time.Now()`` for victims without
``status.startTime``), so every preemption victim here has a start time and candidates differ.
``record`` refuses a scenario whose upstream run noted a random choice.

Run ``python golden/generate.py`` to list the definitions, ``python golden/generate.py NAME`` to
print one scenario's YAML.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from conformance.core.scenario import ScenarioInput
from reference_impl.testing.wrappers import (
    HOSTNAME,
    PAUSE,
    ZONE,
    ConfigWrapper,
    ContainerWrapper,
    Doc,
    NodeWrapper,
    PodDisruptionBudgetWrapper,
    PodWrapper,
    TimelineWrapper,
    Wrapper,
    container_port,
    label_selector,
    make_config,
    make_container,
    make_namespace,
    make_node,
    make_pdb,
    make_pod,
    make_priority_class,
    make_profile,
    make_timeline,
    manifests,
    node_selector_term,
    plain,
    pod_affinity_term,
    spread_constraint,
    taint,
    toleration,
)

# A scenario's documents: wrappers of reference_impl.testing.wrappers, or v1 dicts.
Docs = list[Wrapper | Doc]

# --- building blocks: the generator's defaults on the shared builders --------------------------


def node(name: str, cpu: str = "4", memory: str = "8Gi", pods: int = 110, *,
         labels: dict[str, str] | None = None, zone: str | None = None,
         taints: Iterable[Doc] = (), unschedulable: bool = False,
         images: Iterable[tuple[str, int]] = (), extra: dict[str, str] | None = None
         ) -> NodeWrapper:
    """A Node with allocatable (and capacity) cpu / memory / pods (and ``extra`` resources),
    the ``kubernetes.io/hostname`` label, a zone label when given, taints and images
    (name, size in bytes)."""
    n = make_node(name).hostname().labels(labels or {})
    if zone:
        n.zone(zone)
    n.capacity({"cpu": cpu, "memory": memory, "pods": str(pods), **(extra or {})})
    if taints:
        n.taints(taints)
    if unschedulable:
        n.unschedulable()
    for img, size in images:
        n.image(img, size)
    return n


def pod(name: str, cpu: str | None = "100m", memory: str | None = "128Mi", *,
        node: str | None = None, namespace: str = "default",
        labels: dict[str, str] | None = None, priority_class: str | None = None,
        start: str | None = None, created: str | None = None, image: str = PAUSE,
        extra: dict[str, str] | None = None, ports: Iterable[Doc] = (),
        owner: str | None = None, status: Doc | None = None, **spec: Any) -> PodWrapper:
    """A Pod with one container "app" requesting ``cpu``/``memory`` (and ``extra`` resources,
    also as limits: extended resources need requests equal to limits); ``node`` makes it a
    running pod there (``start``: its status.startTime); ``created``: its creationTimestamp;
    ``owner``: a ReplicaSet owning it; ``spec`` keys are added to the pod spec as they are."""
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    requests.update(extra or {})
    app = make_container("app").image(image).requests(requests).limits(extra or {})
    if ports:
        app.ports(ports)
    p = make_pod(name).namespace(namespace).labels(labels or {})
    if created:
        p.creation_timestamp(created)
    if owner:
        p.owner_reference(owner)
    p.container(app)
    if node:
        p.node(node)
    if priority_class:
        p.priority_class(priority_class)
    p.spec(**spec)
    if status:
        p.status(**status)
    if start:
        p.start_time(start)
    return p


def replicas(prefix: str, n: int, **kw: Any) -> list[PodWrapper]:
    """``n`` pods ``prefix-0``... built alike."""
    return [pod(f"{prefix}-{i}", **kw) for i in range(n)]


def affinity_term(match: dict[str, str], topology: str, **kw: Any) -> Doc:
    """A PodAffinityTerm selecting the pods with the ``match`` labels."""
    return pod_affinity_term(topology, label_selector(match), **kw)


def spread(max_skew: int, key: str, match: dict[str, str], *, hard: bool = True,
           **kw: Any) -> Doc:
    """A TopologySpreadConstraint over the pods with the ``match`` labels (DoNotSchedule, or
    ScheduleAnyway when not ``hard``)."""
    return spread_constraint(max_skew, key, "DoNotSchedule" if hard else "ScheduleAnyway",
                             label_selector(match), **kw)


def t(seconds: int) -> str:
    """A timestamp ``seconds`` after 2024-01-01T00:00:00Z."""
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"2024-01-01T{h:02d}:{m:02d}:{s:02d}Z"


# --- the definitions ---------------------------------------------------------------------------

@dataclass(slots=True)
class Golden:
    name: str
    covers: str
    build: Callable[[], Docs]
    config: ConfigWrapper | Doc | None = None
    seed: int = 0
    notes: list[str] = field(default_factory=list)

    def scenario(self) -> ScenarioInput:
        config = None if self.config is None else plain(self.config)
        return ScenarioInput(manifests(self.build()), config, self.seed, self.name,
                             [f"covers: {self.covers}", *self.notes])


DEFINITIONS: list[Golden] = []


def golden(name: str, covers: str, *, config: ConfigWrapper | Doc | None = None, seed: int = 0,
           notes: Iterable[str] = ()) -> Callable[[Callable[[], Docs]], Callable[[], Docs]]:
    def register(build: Callable[[], Docs]) -> Callable[[], Docs]:
        DEFINITIONS.append(Golden(name, covers, build, config, seed, list(notes)))
        return build
    return register


# ----- NodeResourcesFit -----

@golden("fit-cpu-memory", "NodeResourcesFit filter: cpu and memory; Insufficient reasons")
def _() -> Docs:
    return [node("small", "1", "1Gi"), node("medium", "2", "4Gi"), node("big", "4", "2Gi"),
            pod("a", "1500m", "1Gi"), pod("b", "1", "3Gi"), pod("c", "3", "1Gi"),
            pod("too-much-memory", "100m", "16Gi"), pod("too-much-cpu", "8", "1Mi")]


@golden("fit-extended-resources", "NodeResourcesFit: extended resources (example.com/gpu)")
def _() -> Docs:
    gpu = {"example.com/gpu": "2"}
    return [node("cpu-only", "8", "16Gi"), node("gpu-a", "4", "8Gi", extra=gpu),
            node("gpu-b", "4", "8Gi", extra={"example.com/gpu": "1"}),
            pod("train-1", "1", "1Gi", extra={"example.com/gpu": "2"}),
            pod("train-2", "1", "1Gi", extra={"example.com/gpu": "1"}),
            pod("train-3", "1", "1Gi", extra={"example.com/gpu": "1"}),
            pod("web", "1", "1Gi")]


@golden("fit-pod-count", "NodeResourcesFit: the pods allocatable (Too many pods)")
def _() -> Docs:
    return [node("tiny", "8", "8Gi", pods=2), node("roomy", "2", "2Gi", pods=3),
            pod("old-0", node="tiny"), *replicas("p", 4, cpu="10m", memory="10Mi")]


@golden("fit-init-containers-and-sidecars",
        "pod requests: init containers (max) and restartable sidecars (sum)")
def _() -> Docs:
    def init(name: str, cpu: str, sidecar: bool = False) -> ContainerWrapper:
        c = make_container(name).image(PAUSE).requests(cpu=cpu)
        return c.restart_policy("Always") if sidecar else c
    return [node("n2", "2", "4Gi"), node("n3", "3", "4Gi"),
            pod("big-init", "500m", initContainers=[init("setup", "2500m")]),
            pod("sidecar", "1", initContainers=[init("proxy", "1500m", sidecar=True)]),
            pod("plain", "1500m")]


@golden("fit-overhead-and-pod-level-resources",
        "pod requests: spec.overhead and pod-level spec.resources (PodLevelResources)")
def _() -> Docs:
    return [node("a", "2", "2Gi"), node("b", "3", "2Gi"),
            pod("with-overhead", "1500m", overhead={"cpu": "1"}),
            pod("pod-level", "100m", resources={"requests": {"cpu": "1800m",
                                                             "memory": "512Mi"}}),
            pod("small", "400m")]


@golden("fit-ephemeral-storage", "NodeResourcesFit: ephemeral-storage")
def _() -> Docs:
    return [node("disk-small", extra={"ephemeral-storage": "10Gi"}),
            node("disk-big", extra={"ephemeral-storage": "100Gi"}),
            pod("logs", extra={"ephemeral-storage": "20Gi"}),
            pod("scratch", extra={"ephemeral-storage": "90Gi"}),
            pod("tmp", extra={"ephemeral-storage": "5Gi"})]


@golden("score-least-allocated-spreads", "NodeResourcesFit score LeastAllocated (default)")
def _() -> Docs:
    return [node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), node("n3", "8", "16Gi"),
            pod("running", "2", "4Gi", node="n1"),
            *replicas("web", 6, cpu="500m", memory="1Gi")]


@golden("score-balanced-allocation", "NodeResourcesBalancedAllocation: cpu/memory balance")
def _() -> Docs:
    return [node("cpu-heavy", "8", "8Gi"), node("mem-heavy", "8", "8Gi"),
            pod("hog-cpu", "6", "1Gi", node="cpu-heavy"),
            pod("hog-mem", "1", "6Gi", node="mem-heavy"),
            pod("wants-cpu", "1500m", "128Mi"), pod("wants-mem", "100m", "1500Mi")]


@golden("score-image-locality", "ImageLocality: image sizes and spread over nodes")
def _() -> Docs:
    big = "example.com/ml/trainer:1.0"
    small = "example.com/tools/sh:1.0"
    return [node("n1", images=[(big, 900 * 1024 * 1024)]),
            node("n2", images=[(small, 30 * 1024 * 1024), (big, 900 * 1024 * 1024)]),
            node("n3"), node("n4", images=[(small, 30 * 1024 * 1024)]),
            pod("trainer", image=big), pod("shell", image=small),
            pod("both", image=big, initContainers=[{"name": "i", "image": small}]),
            pod("none", image="example.com/new:1")]


@golden("score-pod-level-resources-and-overhead",
        "BalancedAllocation and LeastAllocated with pod-level requests (defaulted from the "
        "containers) plus spec.overhead",
        notes=["quantities are integers on purpose: with a fraction and a binary suffix "
               "(2.5Gi) upstream v1.37.2 adds the overhead into the pod object on every "
               "PodRequests call (known divergence upstream-pod-level-requests-aliasing)"])
def _() -> Docs:
    def plr(name: str, cpu: str, memory: str, overhead: Doc, **kw: Any) -> PodWrapper:
        return pod(name, None, memory, resources={"requests": {"cpu": cpu}},
                   overhead=overhead, **kw)
    return [node("cpu-rich", "8", "4Gi"), node("mem-rich", "2", "16Gi"),
            node("even", "4", "8Gi"),
            plr("mem-heavy", "100m", "2560Mi", {"cpu": "250m", "memory": "120Mi"}),
            plr("cpu-heavy", "1500m", "256Mi", {"cpu": "250m", "memory": "64Mi"}),
            plr("balanced", "1", "2Gi", {"memory": "128Mi"}),
            plr("mem-heavy-2", "100m", "3Gi", {"cpu": "100m", "memory": "256Mi"})]


# ----- TaintToleration -----

@golden("taints-noschedule-and-tolerations", "TaintToleration filter: NoSchedule, tolerations")
def _() -> Docs:
    return [node("gpu", taints=[taint("dedicated", value="gpu")]),
            node("infra", taints=[taint("dedicated", value="infra")]),
            node("plain", "1", "1Gi"),
            pod("gpu-job", tolerations=[toleration("dedicated", value="gpu")]),
            pod("any-dedicated", "800m", tolerations=[toleration("dedicated")]),
            pod("wrong-value", "2", tolerations=[toleration("dedicated", value="db")]),
            pod("plain-pod", "500m")]


@golden("taints-noexecute", "TaintToleration: NoExecute taints need a toleration too")
def _() -> Docs:
    return [node("draining", taints=[taint("node.kubernetes.io/not-ready", "NoExecute")]),
            node("ok", "1", "1Gi"),
            pod("tolerant", tolerations=[toleration("node.kubernetes.io/not-ready",
                                                    "NoExecute")]),
            pod("normal", "2")]


@golden("taints-prefer-noschedule-scoring",
        "TaintToleration score: count of intolerable PreferNoSchedule taints")
def _() -> Docs:
    soft = [taint("a", "PreferNoSchedule"), taint("b", "PreferNoSchedule")]
    return [node("two-soft", taints=soft), node("one-soft", taints=soft[:1]),
            node("one-soft-b", taints=soft[1:]),
            pod("tolerates-a", tolerations=[toleration("a", "PreferNoSchedule")]),
            pod("tolerates-b", tolerations=[toleration("b")]),
            pod("tolerates-none"),
            pod("tolerates-all", tolerations=[toleration(operator="Exists")])]


@golden("taints-toleration-operators",
        "tolerations: Exists without key, Equal with empty effect, value mismatch")
def _() -> Docs:
    return [node("x", taints=[taint("k1", value="v1"), taint("k2", "NoExecute", "v2")]),
            node("y", "1", "1Gi", taints=[taint("k1", value="other")]),
            pod("all", tolerations=[{"operator": "Exists"}]),
            pod("k1-v1-only", tolerations=[toleration("k1", value="v1")]),
            pod("both-keys", tolerations=[toleration("k1", value="v1"),
                                          toleration("k2", value="v2")]),
            pod("k1-any-value", "600m", tolerations=[toleration("k1")])]


# ----- NodeAffinity -----

@golden("node-selector", "NodeAffinity filter: spec.nodeSelector")
def _() -> Docs:
    return [node("ssd-1", labels={"disk": "ssd"}), node("hdd-1", labels={"disk": "hdd"}),
            node("ssd-2", "1", "1Gi", labels={"disk": "ssd", "gen": "2"}),
            pod("wants-ssd", "2", nodeSelector={"disk": "ssd"}),
            pod("wants-ssd-gen2", nodeSelector={"disk": "ssd", "gen": "2"}),
            pod("wants-nvme", nodeSelector={"disk": "nvme"}),
            pod("by-hostname", nodeSelector={HOSTNAME: "hdd-1"})]


@golden("node-affinity-required-operators",
        "NodeAffinity required: terms ORed; In, NotIn, Exists, DoesNotExist, Gt, Lt; "
        "matchFields metadata.name")
def _() -> Docs:
    def req(*terms: Doc) -> Doc:
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": list(terms)}}}
    return [node("gen3", labels={"gen": "3", "pool": "a"}),
            node("gen5", labels={"gen": "5", "pool": "b"}),
            node("gen7", labels={"gen": "7"}),
            pod("gt4", affinity=req(node_selector_term(("gen", "Gt", ["4"])))),
            pod("lt4-or-pool-b", affinity=req(node_selector_term(("gen", "Lt", ["4"]),
                                                        ("pool", "In", ["b"])),
                                              node_selector_term(("pool", "In", ["b"])))),
            pod("no-pool", affinity=req(node_selector_term(("pool", "DoesNotExist", None)))),
            pod("pool-not-a", affinity=req(node_selector_term(("pool", "Exists", None),
                                                     ("pool", "NotIn", ["a"])))),
            pod("by-field", affinity=req({"matchFields": [{"key": "metadata.name",
                                                           "operator": "In",
                                                           "values": ["gen3"]}]})),
            pod("impossible", affinity=req(node_selector_term(("gen", "Gt", ["9"]))))]


@golden("node-affinity-preferred", "NodeAffinity score: preferred terms and weights")
def _() -> Docs:
    pref = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "preference": node_selector_term(("zone", "In", ["a"]))},
        {"weight": 50, "preference": node_selector_term(("disk", "In", ["ssd"]))},
        {"weight": 5, "preference": node_selector_term(("zone", "In", ["b"]), ("disk", "In",
                                                                      ["ssd"]))}]}}
    return [node("a-hdd", labels={"zone": "a", "disk": "hdd"}),
            node("a-ssd", "1", "1Gi", labels={"zone": "a", "disk": "ssd"}),
            node("b-ssd", labels={"zone": "b", "disk": "ssd"}),
            node("c", labels={"zone": "c"}),
            pod("p1", affinity=pref), pod("p2", "900m", affinity=pref),
            pod("p3", affinity=pref)]


# ----- NodePorts, NodeName, NodeUnschedulable -----

@golden("node-ports", "NodePorts: hostPort conflicts by port, protocol and hostIP")
def _() -> Docs:
    def port(p: int, proto: str = "TCP", ip: str | None = None) -> Doc:
        return container_port(p, host_port=p, protocol=proto, host_ip=ip)
    return [node("n1"), node("n2", "1", "1Gi"),
            pod("web-on-n1", node="n1", ports=[port(80)]),
            pod("dns-on-n2", node="n2", ports=[port(53, "UDP", "10.0.0.1")]),
            pod("web", ports=[port(80)]), pod("web-again", ports=[port(80)]),
            pod("dns-tcp", ports=[port(53, "TCP")]),
            pod("dns-other-ip", ports=[port(53, "UDP", "10.0.0.2")]),
            pod("dns-any-ip", ports=[port(53, "UDP")])]


@golden("node-name-hostname-targeting",
        "pods targeting one node by hostname; running pods given with spec.nodeName")
def _() -> Docs:
    return [node("n1", "2", "2Gi"), node("n2", "2", "2Gi"),
            pod("bound-1", "1", node="n1"), pod("bound-2", "1", node="n1"),
            pod("to-n1", "100m", nodeSelector={HOSTNAME: "n1"}),
            pod("to-n2", "1", nodeSelector={HOSTNAME: "n2"}),
            pod("free", "1")]


@golden("node-unschedulable", "NodeUnschedulable: cordoned nodes and the unschedulable taint "
                              "toleration")
def _() -> Docs:
    return [node("cordoned", "8", "16Gi", unschedulable=True), node("open", "1", "1Gi"),
            pod("tolerant", "2", tolerations=[toleration("node.kubernetes.io/unschedulable",
                                                         "NoSchedule")]),
            pod("normal", "500m"), pod("normal-too-big", "2")]


# ----- PodTopologySpread -----

def _zones(n_per_zone: int = 2, zones: str = "abc", cpu: str = "4") -> list[NodeWrapper]:
    return [node(f"{z}{i}", cpu, zone=f"zone-{z}") for z in zones for i in range(n_per_zone)]


@golden("spread-hard-zones", "PodTopologySpread DoNotSchedule over zones, maxSkew 1")
def _() -> Docs:
    c = [spread(1, ZONE, {"app": "web"})]
    return [*_zones(), pod("w-old", node="a0", labels={"app": "web"}),
            pod("w-old2", node="a1", labels={"app": "web"}),
            *replicas("web", 5, labels={"app": "web"}, topologySpreadConstraints=c)]


@golden("spread-soft-scoring", "PodTopologySpread ScheduleAnyway scoring over zones and hosts")
def _() -> Docs:
    c = [spread(1, ZONE, {"app": "api"}, hard=False),
         spread(2, HOSTNAME, {"app": "api"}, hard=False)]
    return [*_zones(2, "ab"), node("c0", "4", zone="zone-c"),
            pod("api-old", node="c0", labels={"app": "api"}),
            *replicas("api", 6, labels={"app": "api"}, topologySpreadConstraints=c)]


@golden("spread-min-domains", "PodTopologySpread minDomains with DoNotSchedule")
def _() -> Docs:
    c = [spread(1, ZONE, {"app": "db"}, min_domains=3)]
    return [*_zones(1, "ab"), node("c0", "1", "256Mi", zone="zone-c"),
            *replicas("db", 4, cpu="500m", labels={"app": "db"},
                      topologySpreadConstraints=c)]


@golden("spread-node-affinity-and-taints-policies",
        "PodTopologySpread nodeAffinityPolicy / nodeTaintsPolicy Honor and Ignore")
def _() -> Docs:
    honor = [spread(1, ZONE, {"app": "h"}, node_affinity_policy="Honor",
                    node_taints_policy="Honor")]
    ignore = [spread(1, ZONE, {"app": "i"}, node_affinity_policy="Ignore",
                     node_taints_policy="Ignore")]
    sel = {"tier": "front"}
    return [node("a0", zone="zone-a", labels=sel), node("b0", zone="zone-b", labels=sel),
            node("c0", zone="zone-c", taints=[taint("maintenance")]),
            node("d0", zone="zone-d"),
            *replicas("h", 3, labels={"app": "h"}, nodeSelector=sel,
                      topologySpreadConstraints=honor),
            *replicas("i", 3, labels={"app": "i"}, nodeSelector=sel,
                      topologySpreadConstraints=ignore)]


@golden("spread-match-label-keys", "PodTopologySpread matchLabelKeys (pod-template-hash)")
def _() -> Docs:
    c = [spread(1, ZONE, {"app": "web"}, match_label_keys=["pod-template-hash"])]
    old = {"app": "web", "pod-template-hash": "v1"}
    new = {"app": "web", "pod-template-hash": "v2"}
    return [*_zones(1, "ab"), pod("v1-a", node="a0", labels=old),
            pod("v1-b", node="a0", labels=old),
            *replicas("v2", 3, labels=new, topologySpreadConstraints=c)]


@golden("spread-hard-unsatisfiable", "PodTopologySpread: missing topology label and skew "
                                     "violations leave pods pending")
def _() -> Docs:
    c = [spread(1, ZONE, {"app": "x"})]
    return [node("a0", "1", zone="zone-a"), node("b0", "8", zone="zone-b"),
            node("nolabel", "8"),
            *replicas("x", 4, cpu="400m", labels={"app": "x"}, topologySpreadConstraints=c)]


# ----- InterPodAffinity -----

@golden("pod-affinity-required-zone", "InterPodAffinity required affinity by zone")
def _() -> Docs:
    aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "cache"}, ZONE)]}}
    return [*_zones(2, "ab"), pod("cache", node="b1", labels={"app": "cache"}),
            *replicas("web", 3, labels={"app": "web"}, affinity=aff),
            pod("lonely", affinity={"podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    affinity_term({"app": "nothing"}, ZONE)]}})]


@golden("pod-anti-affinity-required-hostname",
        "InterPodAffinity required anti-affinity per host (one replica per node)")
def _() -> Docs:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "etcd"}, HOSTNAME)]}}
    return [node("n1"), node("n2"), node("n3"),
            *replicas("etcd", 4, labels={"app": "etcd"}, affinity=anti)]


@golden("pod-affinity-preferred-weights",
        "InterPodAffinity score: preferred affinity and anti-affinity weights")
def _() -> Docs:
    pref = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 80, "podAffinityTerm": affinity_term({"app": "db"}, ZONE)}]},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 30, "podAffinityTerm": affinity_term({"app": "web"}, HOSTNAME)}]}}
    return [*_zones(2, "abc"), pod("db", node="c0", labels={"app": "db"}),
            pod("batch", node="a0", labels={"app": "batch"}),
            *replicas("web", 4, labels={"app": "web"}, affinity=pref)]


@golden("pod-affinity-namespace-selector",
        "InterPodAffinity: namespaces and namespaceSelector of the terms")
def _() -> Docs:
    sel = {"matchLabels": {"team": "data"}}
    aff_sel = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE, namespace_selector=sel)]}}
    aff_own = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE)]}}
    aff_list = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE, namespaces=["analytics"])]}}
    anti_all = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE, namespace_selector={})]}}
    return [make_namespace("warehouse").label("team", "data"),
            make_namespace("analytics").label("team", "bi"), make_namespace("web"),
            *_zones(1, "abc"),
            pod("db-wh", node="a0", namespace="warehouse", labels={"app": "db"}),
            pod("db-an", node="b0", namespace="analytics", labels={"app": "db"}),
            pod("by-selector", namespace="web", affinity=aff_sel),
            pod("own-namespace", namespace="web", affinity=aff_own),
            pod("by-list", namespace="web", affinity=aff_list),
            pod("away-from-all-dbs", namespace="web", affinity=anti_all)]


@golden("existing-pods-anti-affinity",
        "InterPodAffinity: a running pod's required anti-affinity rejects incoming pods")
def _() -> Docs:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"security": "low"}, ZONE)]}}
    return [*_zones(1, "ab"), node("a1", "1", zone="zone-a"),
            pod("guard", node="a0", labels={"app": "guard"}, affinity=anti),
            pod("untrusted", labels={"security": "low"}),
            pod("untrusted-2", labels={"security": "low"}),
            pod("trusted", "2", labels={"security": "high"})]


@golden("existing-pods-affinity-scoring",
        "InterPodAffinity score: running pods' required affinity (hardPodAffinityWeight) and "
        "preferred terms count for incoming pods")
def _() -> Docs:
    want_web = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "web"}, ZONE)]}}
    dislike_web = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": affinity_term({"app": "web"}, ZONE)}]}}
    return [*_zones(1, "abc"),
            pod("sidecar-a", node="a0", labels={"app": "side"}, affinity=want_web),
            pod("loner-b", node="b0", labels={"app": "loner"}, affinity=dislike_web),
            *replicas("web", 3, labels={"app": "web"})]


@golden("pod-affinity-first-pod-self-match",
        "InterPodAffinity: the first pod of a group matching its own affinity term")
def _() -> Docs:
    aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"group": "g1"}, ZONE)]}}
    other = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"group": "g2"}, ZONE)]}}
    return [*_zones(1, "ab"),
            *replicas("g1", 3, labels={"group": "g1"}, affinity=aff),
            pod("g2-0", labels={"group": "x"}, affinity=other)]


# ----- SchedulingGates -----

@golden("scheduling-gates-removed-later",
        "SchedulingGates: gated pods wait; a timeline removes the gates")
def _() -> Docs:
    return [node("n1", "2", "2Gi"),
            pod("gated", "1", schedulingGates=[{"name": "example.com/quota"}]),
            pod("two-gates", "1", schedulingGates=[{"name": "example.com/a"},
                                                   {"name": "example.com/b"}]),
            pod("free", "500m"),
            make_timeline({"at": "30s", "action": "removeSchedulingGates", "pod": "gated"},
                     {"at": "40s", "action": "removeSchedulingGates", "pod": "two-gates",
                      "gates": ["example.com/a"]},
                     {"at": "50s", "action": "removeSchedulingGates", "pod": "two-gates"})]


# ----- preemption -----

def _pdb(name: str, app: str, disruptions_allowed: int) -> PodDisruptionBudgetWrapper:
    """A PodDisruptionBudget over the pods labelled ``app``, with an explicit
    ``status.disruptionsAllowed`` (what the disruption controller would have written: the
    scheduler reads only the status)."""
    return make_pdb(name).namespace("default").match_label("app", app).max_unavailable(0) \
        .disruptions_allowed(disruptions_allowed)


def _prio() -> Docs:
    return [make_priority_class("low", 100), make_priority_class("mid", 500),
            make_priority_class("high", 1000)]


@golden("preemption-lowest-priority-victims",
        "DefaultPreemption: the node whose victims have the lowest priority")
def _() -> Docs:
    return [*_prio(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("mid-1", "2", node="n1", priority_class="mid", start=t(10)),
            pod("low-2", "2", node="n2", priority_class="low", start=t(20)),
            pod("boss", "2", priority_class="high")]


@golden("preemption-pdb", "DefaultPreemption: PodDisruptionBudgets (status.disruptionsAllowed)")
def _() -> Docs:
    return [*_prio(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("protected", "2", node="n1", priority_class="low", labels={"app": "db"},
                start=t(30)),
            pod("unprotected", "2", node="n2", priority_class="low", labels={"app": "web"},
                start=t(10)),
            _pdb("db-pdb", "db", 0),
            _pdb("web-pdb", "web", 1),
            pod("boss", "2", priority_class="high")]


@golden("preemption-pdb-violation-unavoidable",
        "DefaultPreemption: every candidate violates a PDB; fewest violations win")
def _() -> Docs:
    return [*_prio(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("a1", "1", node="n1", priority_class="low", labels={"app": "a"}, start=t(5)),
            pod("a2", "1", node="n1", priority_class="low", labels={"app": "a"}, start=t(6)),
            pod("b1", "2", node="n2", priority_class="low", labels={"app": "b"}, start=t(7)),
            _pdb("a-pdb", "a", 0),
            _pdb("b-pdb", "b", 0),
            pod("boss", "2", priority_class="high")]


@golden("preemption-policy-never", "preemptionPolicy Never: the pod waits, nothing is evicted")
def _() -> Docs:
    return [*_prio(), make_priority_class("high-never", 1000).preemption_policy("Never"),
            node("n1", "2", "4Gi"),
            pod("low", "2", node="n1", priority_class="low", start=t(0)),
            pod("polite", "2", priority_class="high-never"),
            pod("polite-explicit", "2", priority_class="high",
                preemptionPolicy="Never")]


@golden("preemption-candidate-criteria",
        "DefaultPreemption pickOneNode: fewest victims, lowest priority sum, latest start")
def _() -> Docs:
    return [*_prio(), node("two-victims", "2", "4Gi"), node("one-mid", "2", "4Gi"),
            node("one-low-old", "2", "4Gi"), node("one-low-new", "2", "4Gi"),
            pod("v1", "1", node="two-victims", priority_class="low", start=t(100)),
            pod("v2", "1", node="two-victims", priority_class="low", start=t(101)),
            pod("m", "2", node="one-mid", priority_class="mid", start=t(50)),
            pod("lo", "2", node="one-low-old", priority_class="low", start=t(10)),
            pod("ln", "2", node="one-low-new", priority_class="low", start=t(90)),
            pod("boss", "2", priority_class="high")]


@golden("preemption-reprieve",
        "DefaultPreemption selectVictimsOnNode: victims reprieved when the pod still fits")
def _() -> Docs:
    return [*_prio(), node("n1", "4", "8Gi"),
            pod("l1", "1", node="n1", priority_class="low", start=t(1)),
            pod("l2", "1", node="n1", priority_class="low", start=t(2)),
            pod("l3", "1", node="n1", priority_class="low", start=t(3)),
            pod("m1", "1", node="n1", priority_class="mid", start=t(4)),
            pod("boss", "2", priority_class="high")]


@golden("preemption-cannot-help",
        "DefaultPreemption: nodes rejected as unresolvable are not candidates")
def _() -> Docs:
    return [*_prio(), node("n1", "2", "4Gi", labels={"disk": "hdd"}),
            node("n2", "2", "4Gi", labels={"disk": "ssd"}, taints=[taint("special")]),
            pod("low-1", "2", node="n1", priority_class="low", start=t(1)),
            pod("boss", "1", priority_class="high", nodeSelector={"disk": "ssd"})]


@golden("preemption-nominated-node-reserved",
        "nominated pods: a preemptor's nomination keeps lower-priority pods off the node")
def _() -> Docs:
    return [*_prio(), node("n1", "2", "4Gi"),
            pod("low", "2", node="n1", priority_class="low", start=t(1)),
            pod("boss", "2", priority_class="high", created=t(100)),
            pod("mid-waits", "1", priority_class="mid", created=t(200))]


@golden("preemption-by-priority-order",
        "the queue's priority order: the highest-priority pod preempts first")
def _() -> Docs:
    return [*_prio(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("low-a", "2", node="n1", priority_class="low", start=t(1)),
            pod("low-b", "2", node="n2", priority_class="low", start=t(2)),
            pod("mid", "2", priority_class="mid", created=t(5)),
            pod("high", "2", priority_class="high", created=t(10))]


# ----- the scheduling queue -----

@golden("queue-priority-and-creation-order",
        "PrioritySort: priority, then creation time, decides who gets the last space")
def _() -> Docs:
    return [*_prio(), node("n1", "2", "4Gi"),
            pod("late-high", "1", priority_class="high", created=t(300)),
            pod("early-low", "1", priority_class="low", created=t(1)),
            pod("mid-second", "1", priority_class="mid", created=t(20)),
            pod("mid-first", "1", priority_class="mid", created=t(10))]


@golden("queue-node-added-later", "the queue: a node created at 45s (NodeAdd moves the pods)")
def _() -> Docs:
    return [node("n1", "1", "1Gi"), pod("fits", "500m"), pod("waits-1", "2"),
            pod("waits-2", "3"),
            make_timeline({"at": "45s", "action": "createNode",
                      "node": node("n2", "4", "8Gi")})]


@golden("queue-pod-deleted-frees-space",
        "the queue: deleting a running pod (AssignedPodDelete) lets a pending pod in")
def _() -> Docs:
    return [node("n1", "2", "2Gi"), pod("old", "2", node="n1"), pod("new", "1500m"),
            make_timeline({"at": "2m", "action": "deletePod", "pod": "old"})]


@golden("queue-unschedulable-flush",
        "the queue: an unschedulable pod retried by the 5-minute flush of unschedulable pods")
def _() -> Docs:
    return [node("n1", "2"), node("n2", "4"), node("n3", "8", taints=[taint("gpu")]),
            pod("p1", "1500m"), pod("p2", "2"), pod("p3", "3"), pod("p4", "1")]


@golden("queue-backoff-after-taint-removed",
        "the queue: a taint removed by the timeline; the pod retried after its backoff")
def _() -> Docs:
    return [node("n1", "2", taints=[taint("maintenance")]), pod("waits", "1"),
            make_timeline({"at": "3s", "action": "untaintNode", "node": "n1",
                      "taints": [{"key": "maintenance"}]})]


@golden("queue-cordon-and-uncordon", "the queue: cordon / uncordon and label changes over time")
def _() -> Docs:
    return [node("n1", "2", labels={"ready": "no"}), node("n2", "1", "1Gi"),
            pod("needs-ready", "1", nodeSelector={"ready": "yes"}),
            pod("a", "800m"), pod("b", "800m"),
            make_timeline({"at": "1s", "action": "cordon", "node": "n2"},
                     {"at": "20s", "action": "labelNode", "node": "n1",
                      "labels": {"ready": "yes"}},
                     {"at": "40s", "action": "uncordon", "node": "n2"},
                     {"at": "41s", "action": "createPod", "pod": pod("late", "500m")})]


@golden("queue-node-deleted", "the queue: a node deleted, its pods deleted with it; a pod "
                              "finishing frees space")
def _() -> Docs:
    return [node("n1", "2"), node("n2", "2"), pod("r1", "2", node="n1"),
            pod("r2", "1500m", node="n2"), pod("waits", "1"),
            make_timeline({"at": "10s", "action": "deleteNode", "node": "n2"},
                     {"at": "20s", "action": "finishPod", "pod": "r1"})]


# ----- configurations -----

_MOST = {"scoringStrategy": {"type": "MostAllocated",
                             "resources": [{"name": "cpu", "weight": 1},
                                           {"name": "memory", "weight": 1}]}}


@golden("config-most-allocated", "NodeResourcesFit MostAllocated packs pods",
        config=make_config().profile(make_profile().plugin_args("NodeResourcesFit", _MOST)))
def _() -> Docs:
    return [node("n1", "4", "8Gi"), node("n2", "8", "8Gi"), node("n3", "4", "8Gi"),
            pod("r", "1", node="n3"), *replicas("pack", 5, cpu="700m", memory="1Gi")]


@golden("config-requested-to-capacity-ratio",
        "NodeResourcesFit RequestedToCapacityRatio with a shape and resource weights",
        config=make_config().profile(make_profile().plugin_args("NodeResourcesFit", {
            "scoringStrategy": {
                "type": "RequestedToCapacityRatio",
                "resources": [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}],
                "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                                       {"utilization": 60, "score": 10},
                                                       {"utilization": 100, "score": 2}]}}})))
def _() -> Docs:
    return [node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), node("n3", "10", "8Gi"),
            pod("r", "2", "1Gi", node="n1"), *replicas("p", 5, cpu="600m", memory="512Mi")]


@golden("config-score-weights",
        "plugin weights: ImageLocality weight 20 outweighs resource scoring",
        config=make_config().profile(make_profile().score_weight("ImageLocality", 20)
                                     .score_weight("NodeResourcesFit", 1)))
def _() -> Docs:
    img = "example.com/big:1"
    return [node("busy-with-image", "4", images=[(img, 500 * 1024 * 1024)]),
            node("empty", "16", "32Gi"),
            pod("busy", "3", node="busy-with-image"), pod("p1", "200m", image=img),
            pod("p2", "200m", image=img)]


@golden("config-disabled-plugins",
        "plugins disabled: TaintToleration filter and score, NodeResourcesBalancedAllocation",
        config=make_config().profile(make_profile().disable("filter", "TaintToleration").disable(
            "score", "TaintToleration", "NodeResourcesBalancedAllocation")))
def _() -> Docs:
    return [node("tainted", "8", "8Gi", taints=[taint("nobody")]), node("plain", "2", "8Gi"),
            pod("a", "1"), pod("b", "1"), pod("c", "1", "6Gi")]


@golden("config-multiple-profiles",
        "two profiles: pods choose one by schedulerName; unknown schedulerName stays pending",
        config=make_config().profile(make_profile()).profile(
            make_profile("packing-scheduler").plugin_args("NodeResourcesFit", _MOST)))
def _() -> Docs:
    return [node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), pod("r", "1", node="n2"),
            *replicas("spread", 2, cpu="500m"),
            *replicas("packed", 2, cpu="500m", schedulerName="packing-scheduler"),
            pod("orphan", schedulerName="no-such-scheduler")]


@golden("config-pod-topology-spread-defaults",
        "PodTopologySpread defaultConstraints (List) apply to pods with owners",
        config=make_config().profile(make_profile().plugin_args("PodTopologySpread", {
            "defaultingType": "List",
            "defaultConstraints": [spread_constraint(1, ZONE, "ScheduleAnyway")]})))
def _() -> Docs:
    return [*_zones(1, "abc"), pod("x-old", node="a0", labels={"app": "x"}, owner="x-rs"),
            *replicas("x", 4, labels={"app": "x"}, owner="x-rs")]


@golden("config-balanced-allocation-resources",
        "NodeResourcesBalancedAllocation with cpu, memory and an extended resource",
        config=make_config().profile(make_profile().plugin_args(
            "NodeResourcesBalancedAllocation", {"resources": [
                {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                {"name": "example.com/gpu", "weight": 1}]})))
def _() -> Docs:
    gpu = {"example.com/gpu": "4"}
    return [node("g1", "8", "16Gi", extra=gpu), node("g2", "8", "16Gi", extra=gpu),
            pod("r", "4", "2Gi", node="g1"),
            pod("gpu-job", "1", "1Gi", extra={"example.com/gpu": "2"}),
            pod("cpu-job", "2", "1Gi")]


@golden("config-inter-pod-affinity-hard-weight",
        "InterPodAffinity hardPodAffinityWeight 0 and an ignored preferred term weight",
        config=make_config().profile(make_profile().plugin_args(
            "InterPodAffinity", {"hardPodAffinityWeight": 0})))
def _() -> Docs:
    want = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "web"}, ZONE)]}}
    return [*_zones(1, "ab"), pod("follower", node="a0", labels={"app": "f"}, affinity=want),
            pod("web-0", labels={"app": "web"}), pod("web-1", labels={"app": "web"})]


# ----- more than 100 nodes -----

def _pool(n: int, prefix: str = "n", cpu: str = "4", zones: int = 3,
          **kw: Any) -> list[NodeWrapper]:
    return [node(f"{prefix}{i:03d}", cpu, zone=f"zone-{i % zones}", **kw) for i in range(n)]


@golden("large-150-nodes-rotation",
        "more than 100 nodes: numFeasibleNodesToFind (100 of 150) and nextStartNodeIndex "
        "rotation decide which nodes are scored")
def _() -> Docs:
    nodes = _pool(150)
    # running pods make some nodes busier, so scores differ by node
    running = [pod(f"r{i}", "1", node=f"n{i:03d}") for i in range(0, 150, 7)]
    return [*nodes, *running, *replicas("p", 40, cpu="300m")]


@golden("large-300-nodes-adaptive-percentage",
        "300 nodes: the adaptive percentageOfNodesToScore (50 - 300/125 = 48%: 144 nodes)")
def _() -> Docs:
    nodes = _pool(300, cpu="8")
    running = [pod(f"r{i}", f"{(i % 5) + 1}", node=f"n{i:03d}") for i in range(0, 300, 3)]
    return [*nodes, *running, *replicas("p", 30, cpu="1")]


@golden("large-200-nodes-filtered",
        "200 nodes where most fail a filter: the search continues past the rotation start",
        notes=["only nodes n*0 and n*5 have the label the pods select"])
def _() -> Docs:
    nodes = [node(f"n{i:03d}", "4", zone=f"zone-{i % 4}",
                  labels={"pool": "gold"} if i % 5 == 0 else {"pool": "std"})
             for i in range(200)]
    return [*nodes, *replicas("g", 25, cpu="1500m", nodeSelector={"pool": "gold"}),
            *replicas("s", 20, cpu="1")]


@golden("large-200-nodes-percentage-config",
        "200 nodes with percentageOfNodesToScore 10 (the 100-node minimum applies)",
        config=make_config().profile(make_profile()).percentage_of_nodes_to_score(10))
def _() -> Docs:
    nodes = _pool(200, cpu="4")
    running = [pod(f"r{i}", "2", node=f"n{i:03d}") for i in range(1, 200, 2)]
    return [*nodes, *running, *replicas("p", 30, cpu="500m")]


@golden("large-120-nodes-profile-percentage",
        "120 nodes with a profile's percentageOfNodesToScore 100 (every node scored)",
        config=make_config().profile(make_profile().percentage_of_nodes_to_score(100)))
def _() -> Docs:
    nodes = _pool(120, cpu="4")
    running = [pod(f"r{i}", "3", node=f"n{i:03d}") for i in range(0, 120, 2)]
    return [*nodes, *running, *replicas("p", 20, cpu="500m")]


@golden("large-150-nodes-spread-and-affinity",
        "150 nodes in 5 zones: topology spread and anti-affinity beyond 100 nodes")
def _() -> Docs:
    nodes = _pool(150, zones=5)
    c = [spread(1, ZONE, {"app": "web"})]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, HOSTNAME)]}}
    return [*nodes, *replicas("web", 12, labels={"app": "web"}, topologySpreadConstraints=c),
            *replicas("db", 6, labels={"app": "db"}, affinity=anti)]


# ----- combinations -----

@golden("mixed-small-cluster",
        "several plugins at once: taints, affinity, spread, ports and resources")
def _() -> Docs:
    port = {"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"}
    c = [spread(1, ZONE, {"app": "api"}, hard=False)]
    return [node("a0", "4", zone="zone-a", labels={"disk": "ssd"}),
            node("a1", "2", zone="zone-a"),
            node("b0", "4", zone="zone-b", taints=[taint("spot", "PreferNoSchedule")]),
            node("b1", "8", zone="zone-b", labels={"disk": "ssd"},
                 taints=[taint("gpu", value="yes")]),
            pod("db", "2", nodeSelector={"disk": "ssd"}, labels={"app": "db"}),
            *replicas("api", 3, labels={"app": "api"}, ports=[port],
                      topologySpreadConstraints=c),
            pod("gpu-job", "4", tolerations=[toleration("gpu", value="yes")]),
            pod("batch", "1500m", tolerations=[toleration("spot")])]


@golden("namespaces-and-priority-default",
        "a globalDefault PriorityClass, pods in several namespaces")
def _() -> Docs:
    return [make_priority_class("default-prio", 50).global_default(),
            make_priority_class("urgent", 5000), make_namespace("team-a"),
            make_namespace("team-b"),
            node("n1", "2", "4Gi"),
            pod("a", "1", namespace="team-a", created=t(1)),
            pod("b", "1", namespace="team-b", created=t(2)),
            pod("u", "1", namespace="team-b", priority_class="urgent", created=t(3))]


# ----- regression scenarios (minimal cases of divergences found and fixed) -----

def _bare_node(name: str, zone: str | None = None, taints: Iterable[Doc] = ()) -> NodeWrapper:
    n = make_node(name).hostname()
    if zone:
        n.zone(zone)
    n.spec()
    if taints:
        n.taints(taints)
    return n.allocatable(cpu="4", memory="8Gi", pods=110)


def _bare_pod(name: str, node: str | None = None, labels: dict[str, str] | None = None,
              **spec: Any) -> PodWrapper:
    p = make_pod(name).labels(labels or {}).container(make_container("c").image("busybox"))
    p.spec(**spec)
    return p.node(node) if node else p


def _node_later(at: str, until: str) -> TimelineWrapper:
    n = _bare_node("n1")
    return make_timeline({"at": at, "action": "createNode", "node": n}).until(until)


@golden("queue-error-backoff-initial",
        "scheduling queue: podInitialBackoffSeconds 2 delays the retries of a pod with no node",
        config=make_config().set(podInitialBackoffSeconds=2))
def _() -> Docs:
    return [_bare_pod("p"), _node_later("6.5", "7500ms")]


@golden("queue-error-backoff-capped",
        "scheduling queue: a pod with no node at all waits in the error backoff queue; backoff "
        "capped at podMaxBackoffSeconds (1s)",
        config=make_config().set(podInitialBackoffSeconds=1, podMaxBackoffSeconds=1))
def _() -> Docs:
    return [_bare_pod("p"), _node_later("6.5", "9s")]


@golden("spread-node-taints-policy-honor",
        "PodTopologySpread nodeTaintsPolicy Honor: a node with an untolerated taint is not a "
        "domain")
def _() -> Docs:
    c = {"labelSelector": {"matchLabels": {"app": "web"}}, "maxSkew": 1,
         "nodeTaintsPolicy": "Honor", "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}
    return [_bare_node("n1", "z1"),
            _bare_node("n2", "z2", [{"effect": "NoSchedule", "key": "dedicated"}]),
            _bare_pod("w1", "n1", {"app": "web"}),
            _bare_pod("p", labels={"app": "web"}, topologySpreadConstraints=[c])]


@golden("spread-min-domains-global-minimum",
        "PodTopologySpread minDomains: fewer domains than minDomains make the global minimum 0")
def _() -> Docs:
    c = {"labelSelector": {"matchLabels": {"app": "web"}}, "maxSkew": 1, "minDomains": 3,
         "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}
    return [_bare_node("n1", "z1"), _bare_node("n2", "z2"),
            _bare_pod("w1", "n1", {"app": "web"}), _bare_pod("w2", "n2", {"app": "web"}),
            _bare_pod("p", labels={"app": "web"}, topologySpreadConstraints=[c])]


def definitions() -> dict[str, Golden]:
    """Every golden scenario definition by name (``kschedconf golden record`` reads this)."""
    out: dict[str, Golden] = {}
    for g in DEFINITIONS:
        if g.name in out:
            raise ValueError(f"two golden definitions named {g.name!r}")
        out[g.name] = g
    return out


def main(argv: list[str]) -> int:
    defs = definitions()
    if not argv:
        for g in defs.values():
            print(f"{g.name:<45} {g.covers}")
        print(f"{len(defs)} definitions; `kschedconf golden record` records them from "
              f"upstream")
        return 0
    for name in argv:
        if name not in defs:
            print(f"no definition named {name!r}", file=sys.stderr)
            return 2
        sys.stdout.write(defs[name].scenario().to_yaml())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
