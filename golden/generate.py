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

Doc = dict[str, Any]

# --- building blocks ---------------------------------------------------------------------------

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
PAUSE = "registry.k8s.io/pause:3.10"


def node(name: str, cpu: str = "4", memory: str = "8Gi", pods: int = 110, *,
         labels: dict[str, str] | None = None, zone: str | None = None,
         taints: Iterable[Doc] = (), unschedulable: bool = False,
         images: Iterable[tuple[str, int]] = (), extra: dict[str, str] | None = None) -> Doc:
    """A Node with allocatable cpu / memory / pods (and ``extra`` resources), the
    ``kubernetes.io/hostname`` label, a zone label when given, taints and images
    (name, size in bytes)."""
    lab = {HOSTNAME: name, **(labels or {})}
    if zone:
        lab[ZONE] = zone
    alloc = {"cpu": cpu, "memory": memory, "pods": str(pods), **(extra or {})}
    n: Doc = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": lab},
              "status": {"allocatable": alloc, "capacity": dict(alloc)}}
    spec: Doc = {}
    if taints:
        spec["taints"] = list(taints)
    if unschedulable:
        spec["unschedulable"] = True
    if spec:
        n["spec"] = spec
    if images:
        n["status"]["images"] = [{"names": [img], "sizeBytes": size} for img, size in images]
    return n


def taint(key: str, effect: str = "NoSchedule", value: str | None = None) -> Doc:
    t = {"key": key, "effect": effect}
    if value is not None:
        t["value"] = value
    return t


def toleration(key: str | None = None, effect: str | None = None, value: str | None = None,
               operator: str | None = None) -> Doc:
    t: Doc = {}
    if key is not None:
        t["key"] = key
    t["operator"] = operator or ("Equal" if value is not None else "Exists")
    if value is not None:
        t["value"] = value
    if effect is not None:
        t["effect"] = effect
    return t


def pod(name: str, cpu: str | None = "100m", memory: str | None = "128Mi", *,
        node: str | None = None, namespace: str = "default",
        labels: dict[str, str] | None = None, priority_class: str | None = None,
        start: str | None = None, created: str | None = None, image: str = PAUSE,
        extra: dict[str, str] | None = None, ports: Iterable[Doc] = (),
        owner: str | None = None, status: Doc | None = None, **spec: Any) -> Doc:
    """A Pod with one container requesting ``cpu``/``memory`` (and ``extra`` resources);
    ``node`` makes it a running pod there (``start``: its status.startTime); ``created``: its
    creationTimestamp; ``spec`` keys are added to the pod spec as they are."""
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    requests.update(extra or {})
    container: Doc = {"name": "app", "image": image}
    if requests:
        res: Doc = {"requests": requests}
        ext = {k: v for k, v in (extra or {}).items()}
        if ext:  # extended resources: requests must equal limits
            res["limits"] = ext
        container["resources"] = res
    if ports:
        container["ports"] = list(ports)
    meta: Doc = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = dict(labels)
    if created:
        meta["creationTimestamp"] = created
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                    "name": owner, "uid": f"uid-{owner}", "controller": True}]
    p: Doc = {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
              "spec": {"containers": [container]}}
    if node:
        p["spec"]["nodeName"] = node
    if priority_class:
        p["spec"]["priorityClassName"] = priority_class
    p["spec"].update(spec)
    st = dict(status or {})
    if start:
        st["startTime"] = start
    if st:
        p["status"] = st
    return p


def replicas(prefix: str, n: int, **kw: Any) -> list[Doc]:
    """``n`` pods ``prefix-0``... built alike."""
    return [pod(f"{prefix}-{i}", **kw) for i in range(n)]


def priority_class(name: str, value: int, *, global_default: bool = False,
                   preemption_policy: str | None = None) -> Doc:
    pc: Doc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
               "metadata": {"name": name}, "value": value}
    if global_default:
        pc["globalDefault"] = True
    if preemption_policy:
        pc["preemptionPolicy"] = preemption_policy
    return pc


def namespace(name: str, labels: dict[str, str] | None = None) -> Doc:
    meta: Doc = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


def pdb(name: str, match: dict[str, str], *, disruptions_allowed: int,
        min_available: int | str | None = None, namespace: str = "default") -> Doc:
    """A PodDisruptionBudget with an explicit ``status.disruptionsAllowed`` (what the
    disruption controller would have written: the scheduler reads only the status)."""
    spec: Doc = {"selector": {"matchLabels": match}}
    if min_available is not None:
        spec["minAvailable"] = min_available
    else:
        spec["maxUnavailable"] = 0
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec,
            "status": {"disruptionsAllowed": disruptions_allowed, "currentHealthy": 0,
                       "desiredHealthy": 0, "expectedPods": 0}}


def timeline(*events: Doc, until: str | None = None) -> Doc:
    spec: Doc = {"events": list(events)}
    if until:
        spec["until"] = until
    return {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": spec}


def config(*profiles: Doc, percentage: int | None = None) -> Doc:
    """A KubeSchedulerConfiguration with these profiles (default: one default profile)."""
    cfg: Doc = {"apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": list(profiles) or [{"schedulerName": "default-scheduler"}]}
    if percentage is not None:
        cfg["percentageOfNodesToScore"] = percentage
    return cfg


def profile(name: str = "default-scheduler", *, args: dict[str, Doc] | None = None,
            score: dict[str, int] | None = None, disabled: dict[str, list[str]] | None = None,
            percentage: int | None = None) -> Doc:
    """A profile: plugin ``args`` by plugin name, Score plugin weights (``score``), plugins
    disabled per extension point (``disabled``)."""
    p: Doc = {"schedulerName": name}
    plugins: Doc = {}
    if score:
        plugins["score"] = {"enabled": [{"name": k, "weight": w} for k, w in score.items()]}
    for point, names in (disabled or {}).items():
        plugins.setdefault(point, {})["disabled"] = [{"name": n} for n in names]
    if plugins:
        p["plugins"] = plugins
    if args:
        p["pluginConfig"] = [{"name": k, "args": v} for k, v in args.items()]
    if percentage is not None:
        p["percentageOfNodesToScore"] = percentage
    return p


def affinity_term(match: dict[str, str], topology: str, *,
                  namespaces: list[str] | None = None,
                  namespace_selector: Doc | None = None) -> Doc:
    t: Doc = {"labelSelector": {"matchLabels": match}, "topologyKey": topology}
    if namespaces is not None:
        t["namespaces"] = namespaces
    if namespace_selector is not None:
        t["namespaceSelector"] = namespace_selector
    return t


def node_term(*exprs: tuple[str, str, list[str] | None]) -> Doc:
    """A NodeSelectorTerm of match expressions (key, operator, values)."""
    out = []
    for key, op, values in exprs:
        e: Doc = {"key": key, "operator": op}
        if values is not None:
            e["values"] = values
        out.append(e)
    return {"matchExpressions": out}


def spread(max_skew: int, key: str, match: dict[str, str], *, hard: bool = True,
           **extra: Any) -> Doc:
    c: Doc = {"maxSkew": max_skew, "topologyKey": key,
              "whenUnsatisfiable": "DoNotSchedule" if hard else "ScheduleAnyway",
              "labelSelector": {"matchLabels": match}}
    c.update(extra)
    return c


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
    build: Callable[[], list[Doc]]
    config: Doc | None = None
    seed: int = 0
    notes: list[str] = field(default_factory=list)

    def scenario(self) -> ScenarioInput:
        return ScenarioInput(self.build(), self.config, self.seed, self.name,
                             [f"covers: {self.covers}", *self.notes])


DEFINITIONS: list[Golden] = []


def golden(name: str, covers: str, *, config: Doc | None = None, seed: int = 0,
           notes: Iterable[str] = ()) -> Callable[[Callable[[], list[Doc]]],
                                                  Callable[[], list[Doc]]]:
    def register(build: Callable[[], list[Doc]]) -> Callable[[], list[Doc]]:
        DEFINITIONS.append(Golden(name, covers, build, config, seed, list(notes)))
        return build
    return register


# ----- NodeResourcesFit -----

@golden("fit-cpu-memory", "NodeResourcesFit filter: cpu and memory; Insufficient reasons")
def _() -> list[Doc]:
    return [node("small", "1", "1Gi"), node("medium", "2", "4Gi"), node("big", "4", "2Gi"),
            pod("a", "1500m", "1Gi"), pod("b", "1", "3Gi"), pod("c", "3", "1Gi"),
            pod("too-much-memory", "100m", "16Gi"), pod("too-much-cpu", "8", "1Mi")]


@golden("fit-extended-resources", "NodeResourcesFit: extended resources (example.com/gpu)")
def _() -> list[Doc]:
    gpu = {"example.com/gpu": "2"}
    return [node("cpu-only", "8", "16Gi"), node("gpu-a", "4", "8Gi", extra=gpu),
            node("gpu-b", "4", "8Gi", extra={"example.com/gpu": "1"}),
            pod("train-1", "1", "1Gi", extra={"example.com/gpu": "2"}),
            pod("train-2", "1", "1Gi", extra={"example.com/gpu": "1"}),
            pod("train-3", "1", "1Gi", extra={"example.com/gpu": "1"}),
            pod("web", "1", "1Gi")]


@golden("fit-pod-count", "NodeResourcesFit: the pods allocatable (Too many pods)")
def _() -> list[Doc]:
    return [node("tiny", "8", "8Gi", pods=2), node("roomy", "2", "2Gi", pods=3),
            pod("old-0", node="tiny"), *replicas("p", 4, cpu="10m", memory="10Mi")]


@golden("fit-init-containers-and-sidecars",
        "pod requests: init containers (max) and restartable sidecars (sum)")
def _() -> list[Doc]:
    def init(name: str, cpu: str, sidecar: bool = False) -> Doc:
        c: Doc = {"name": name, "image": PAUSE, "resources": {"requests": {"cpu": cpu}}}
        if sidecar:
            c["restartPolicy"] = "Always"
        return c
    return [node("n2", "2", "4Gi"), node("n3", "3", "4Gi"),
            pod("big-init", "500m", initContainers=[init("setup", "2500m")]),
            pod("sidecar", "1", initContainers=[init("proxy", "1500m", sidecar=True)]),
            pod("plain", "1500m")]


@golden("fit-overhead-and-pod-level-resources",
        "pod requests: spec.overhead and pod-level spec.resources (PodLevelResources)")
def _() -> list[Doc]:
    return [node("a", "2", "2Gi"), node("b", "3", "2Gi"),
            pod("with-overhead", "1500m", overhead={"cpu": "1"}),
            pod("pod-level", "100m", resources={"requests": {"cpu": "1800m",
                                                             "memory": "512Mi"}}),
            pod("small", "400m")]


@golden("fit-ephemeral-storage", "NodeResourcesFit: ephemeral-storage")
def _() -> list[Doc]:
    return [node("disk-small", extra={"ephemeral-storage": "10Gi"}),
            node("disk-big", extra={"ephemeral-storage": "100Gi"}),
            pod("logs", extra={"ephemeral-storage": "20Gi"}),
            pod("scratch", extra={"ephemeral-storage": "90Gi"}),
            pod("tmp", extra={"ephemeral-storage": "5Gi"})]


@golden("score-least-allocated-spreads", "NodeResourcesFit score LeastAllocated (default)")
def _() -> list[Doc]:
    return [node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), node("n3", "8", "16Gi"),
            pod("running", "2", "4Gi", node="n1"),
            *replicas("web", 6, cpu="500m", memory="1Gi")]


@golden("score-balanced-allocation", "NodeResourcesBalancedAllocation: cpu/memory balance")
def _() -> list[Doc]:
    return [node("cpu-heavy", "8", "8Gi"), node("mem-heavy", "8", "8Gi"),
            pod("hog-cpu", "6", "1Gi", node="cpu-heavy"),
            pod("hog-mem", "1", "6Gi", node="mem-heavy"),
            pod("wants-cpu", "1500m", "128Mi"), pod("wants-mem", "100m", "1500Mi")]


@golden("score-image-locality", "ImageLocality: image sizes and spread over nodes")
def _() -> list[Doc]:
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
def _() -> list[Doc]:
    def plr(name: str, cpu: str, memory: str, overhead: Doc, **kw: Any) -> Doc:
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
def _() -> list[Doc]:
    return [node("gpu", taints=[taint("dedicated", value="gpu")]),
            node("infra", taints=[taint("dedicated", value="infra")]),
            node("plain", "1", "1Gi"),
            pod("gpu-job", tolerations=[toleration("dedicated", value="gpu")]),
            pod("any-dedicated", "800m", tolerations=[toleration("dedicated")]),
            pod("wrong-value", "2", tolerations=[toleration("dedicated", value="db")]),
            pod("plain-pod", "500m")]


@golden("taints-noexecute", "TaintToleration: NoExecute taints need a toleration too")
def _() -> list[Doc]:
    return [node("draining", taints=[taint("node.kubernetes.io/not-ready", "NoExecute")]),
            node("ok", "1", "1Gi"),
            pod("tolerant", tolerations=[toleration("node.kubernetes.io/not-ready",
                                                    "NoExecute")]),
            pod("normal", "2")]


@golden("taints-prefer-noschedule-scoring",
        "TaintToleration score: count of intolerable PreferNoSchedule taints")
def _() -> list[Doc]:
    soft = [taint("a", "PreferNoSchedule"), taint("b", "PreferNoSchedule")]
    return [node("two-soft", taints=soft), node("one-soft", taints=soft[:1]),
            node("one-soft-b", taints=soft[1:]),
            pod("tolerates-a", tolerations=[toleration("a", "PreferNoSchedule")]),
            pod("tolerates-b", tolerations=[toleration("b")]),
            pod("tolerates-none"),
            pod("tolerates-all", tolerations=[toleration(operator="Exists")])]


@golden("taints-toleration-operators",
        "tolerations: Exists without key, Equal with empty effect, value mismatch")
def _() -> list[Doc]:
    return [node("x", taints=[taint("k1", value="v1"), taint("k2", "NoExecute", "v2")]),
            node("y", "1", "1Gi", taints=[taint("k1", value="other")]),
            pod("all", tolerations=[{"operator": "Exists"}]),
            pod("k1-v1-only", tolerations=[toleration("k1", value="v1")]),
            pod("both-keys", tolerations=[toleration("k1", value="v1"),
                                          toleration("k2", value="v2")]),
            pod("k1-any-value", "600m", tolerations=[toleration("k1")])]


# ----- NodeAffinity -----

@golden("node-selector", "NodeAffinity filter: spec.nodeSelector")
def _() -> list[Doc]:
    return [node("ssd-1", labels={"disk": "ssd"}), node("hdd-1", labels={"disk": "hdd"}),
            node("ssd-2", "1", "1Gi", labels={"disk": "ssd", "gen": "2"}),
            pod("wants-ssd", "2", nodeSelector={"disk": "ssd"}),
            pod("wants-ssd-gen2", nodeSelector={"disk": "ssd", "gen": "2"}),
            pod("wants-nvme", nodeSelector={"disk": "nvme"}),
            pod("by-hostname", nodeSelector={HOSTNAME: "hdd-1"})]


@golden("node-affinity-required-operators",
        "NodeAffinity required: terms ORed; In, NotIn, Exists, DoesNotExist, Gt, Lt; "
        "matchFields metadata.name")
def _() -> list[Doc]:
    def req(*terms: Doc) -> Doc:
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": list(terms)}}}
    return [node("gen3", labels={"gen": "3", "pool": "a"}),
            node("gen5", labels={"gen": "5", "pool": "b"}),
            node("gen7", labels={"gen": "7"}),
            pod("gt4", affinity=req(node_term(("gen", "Gt", ["4"])))),
            pod("lt4-or-pool-b", affinity=req(node_term(("gen", "Lt", ["4"]),
                                                        ("pool", "In", ["b"])),
                                              node_term(("pool", "In", ["b"])))),
            pod("no-pool", affinity=req(node_term(("pool", "DoesNotExist", None)))),
            pod("pool-not-a", affinity=req(node_term(("pool", "Exists", None),
                                                     ("pool", "NotIn", ["a"])))),
            pod("by-field", affinity=req({"matchFields": [{"key": "metadata.name",
                                                           "operator": "In",
                                                           "values": ["gen3"]}]})),
            pod("impossible", affinity=req(node_term(("gen", "Gt", ["9"]))))]


@golden("node-affinity-preferred", "NodeAffinity score: preferred terms and weights")
def _() -> list[Doc]:
    pref = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "preference": node_term(("zone", "In", ["a"]))},
        {"weight": 50, "preference": node_term(("disk", "In", ["ssd"]))},
        {"weight": 5, "preference": node_term(("zone", "In", ["b"]), ("disk", "In",
                                                                      ["ssd"]))}]}}
    return [node("a-hdd", labels={"zone": "a", "disk": "hdd"}),
            node("a-ssd", "1", "1Gi", labels={"zone": "a", "disk": "ssd"}),
            node("b-ssd", labels={"zone": "b", "disk": "ssd"}),
            node("c", labels={"zone": "c"}),
            pod("p1", affinity=pref), pod("p2", "900m", affinity=pref),
            pod("p3", affinity=pref)]


# ----- NodePorts, NodeName, NodeUnschedulable -----

@golden("node-ports", "NodePorts: hostPort conflicts by port, protocol and hostIP")
def _() -> list[Doc]:
    def port(p: int, proto: str = "TCP", ip: str | None = None) -> Doc:
        d: Doc = {"containerPort": p, "hostPort": p, "protocol": proto}
        if ip:
            d["hostIP"] = ip
        return d
    return [node("n1"), node("n2", "1", "1Gi"),
            pod("web-on-n1", node="n1", ports=[port(80)]),
            pod("dns-on-n2", node="n2", ports=[port(53, "UDP", "10.0.0.1")]),
            pod("web", ports=[port(80)]), pod("web-again", ports=[port(80)]),
            pod("dns-tcp", ports=[port(53, "TCP")]),
            pod("dns-other-ip", ports=[port(53, "UDP", "10.0.0.2")]),
            pod("dns-any-ip", ports=[port(53, "UDP")])]


@golden("node-name-hostname-targeting",
        "pods targeting one node by hostname; running pods given with spec.nodeName")
def _() -> list[Doc]:
    return [node("n1", "2", "2Gi"), node("n2", "2", "2Gi"),
            pod("bound-1", "1", node="n1"), pod("bound-2", "1", node="n1"),
            pod("to-n1", "100m", nodeSelector={HOSTNAME: "n1"}),
            pod("to-n2", "1", nodeSelector={HOSTNAME: "n2"}),
            pod("free", "1")]


@golden("node-unschedulable", "NodeUnschedulable: cordoned nodes and the unschedulable taint "
                              "toleration")
def _() -> list[Doc]:
    return [node("cordoned", "8", "16Gi", unschedulable=True), node("open", "1", "1Gi"),
            pod("tolerant", "2", tolerations=[toleration("node.kubernetes.io/unschedulable",
                                                         "NoSchedule")]),
            pod("normal", "500m"), pod("normal-too-big", "2")]


# ----- PodTopologySpread -----

def _zones(n_per_zone: int = 2, zones: str = "abc", cpu: str = "4") -> list[Doc]:
    return [node(f"{z}{i}", cpu, zone=f"zone-{z}") for z in zones for i in range(n_per_zone)]


@golden("spread-hard-zones", "PodTopologySpread DoNotSchedule over zones, maxSkew 1")
def _() -> list[Doc]:
    c = [spread(1, ZONE, {"app": "web"})]
    return [*_zones(), pod("w-old", node="a0", labels={"app": "web"}),
            pod("w-old2", node="a1", labels={"app": "web"}),
            *replicas("web", 5, labels={"app": "web"}, topologySpreadConstraints=c)]


@golden("spread-soft-scoring", "PodTopologySpread ScheduleAnyway scoring over zones and hosts")
def _() -> list[Doc]:
    c = [spread(1, ZONE, {"app": "api"}, hard=False),
         spread(2, HOSTNAME, {"app": "api"}, hard=False)]
    return [*_zones(2, "ab"), node("c0", "4", zone="zone-c"),
            pod("api-old", node="c0", labels={"app": "api"}),
            *replicas("api", 6, labels={"app": "api"}, topologySpreadConstraints=c)]


@golden("spread-min-domains", "PodTopologySpread minDomains with DoNotSchedule")
def _() -> list[Doc]:
    c = [spread(1, ZONE, {"app": "db"}, minDomains=3)]
    return [*_zones(1, "ab"), node("c0", "1", "256Mi", zone="zone-c"),
            *replicas("db", 4, cpu="500m", labels={"app": "db"},
                      topologySpreadConstraints=c)]


@golden("spread-node-affinity-and-taints-policies",
        "PodTopologySpread nodeAffinityPolicy / nodeTaintsPolicy Honor and Ignore")
def _() -> list[Doc]:
    honor = [spread(1, ZONE, {"app": "h"}, nodeAffinityPolicy="Honor",
                    nodeTaintsPolicy="Honor")]
    ignore = [spread(1, ZONE, {"app": "i"}, nodeAffinityPolicy="Ignore",
                     nodeTaintsPolicy="Ignore")]
    sel = {"tier": "front"}
    return [node("a0", zone="zone-a", labels=sel), node("b0", zone="zone-b", labels=sel),
            node("c0", zone="zone-c", taints=[taint("maintenance")]),
            node("d0", zone="zone-d"),
            *replicas("h", 3, labels={"app": "h"}, nodeSelector=sel,
                      topologySpreadConstraints=honor),
            *replicas("i", 3, labels={"app": "i"}, nodeSelector=sel,
                      topologySpreadConstraints=ignore)]


@golden("spread-match-label-keys", "PodTopologySpread matchLabelKeys (pod-template-hash)")
def _() -> list[Doc]:
    c = [spread(1, ZONE, {"app": "web"}, matchLabelKeys=["pod-template-hash"])]
    old = {"app": "web", "pod-template-hash": "v1"}
    new = {"app": "web", "pod-template-hash": "v2"}
    return [*_zones(1, "ab"), pod("v1-a", node="a0", labels=old),
            pod("v1-b", node="a0", labels=old),
            *replicas("v2", 3, labels=new, topologySpreadConstraints=c)]


@golden("spread-hard-unsatisfiable", "PodTopologySpread: missing topology label and skew "
                                     "violations leave pods pending")
def _() -> list[Doc]:
    c = [spread(1, ZONE, {"app": "x"})]
    return [node("a0", "1", zone="zone-a"), node("b0", "8", zone="zone-b"),
            node("nolabel", "8"),
            *replicas("x", 4, cpu="400m", labels={"app": "x"}, topologySpreadConstraints=c)]


# ----- InterPodAffinity -----

@golden("pod-affinity-required-zone", "InterPodAffinity required affinity by zone")
def _() -> list[Doc]:
    aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "cache"}, ZONE)]}}
    return [*_zones(2, "ab"), pod("cache", node="b1", labels={"app": "cache"}),
            *replicas("web", 3, labels={"app": "web"}, affinity=aff),
            pod("lonely", affinity={"podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    affinity_term({"app": "nothing"}, ZONE)]}})]


@golden("pod-anti-affinity-required-hostname",
        "InterPodAffinity required anti-affinity per host (one replica per node)")
def _() -> list[Doc]:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "etcd"}, HOSTNAME)]}}
    return [node("n1"), node("n2"), node("n3"),
            *replicas("etcd", 4, labels={"app": "etcd"}, affinity=anti)]


@golden("pod-affinity-preferred-weights",
        "InterPodAffinity score: preferred affinity and anti-affinity weights")
def _() -> list[Doc]:
    pref = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 80, "podAffinityTerm": affinity_term({"app": "db"}, ZONE)}]},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 30, "podAffinityTerm": affinity_term({"app": "web"}, HOSTNAME)}]}}
    return [*_zones(2, "abc"), pod("db", node="c0", labels={"app": "db"}),
            pod("batch", node="a0", labels={"app": "batch"}),
            *replicas("web", 4, labels={"app": "web"}, affinity=pref)]


@golden("pod-affinity-namespace-selector",
        "InterPodAffinity: namespaces and namespaceSelector of the terms")
def _() -> list[Doc]:
    sel = {"matchLabels": {"team": "data"}}
    aff_sel = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE, namespace_selector=sel)]}}
    aff_own = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE)]}}
    aff_list = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE, namespaces=["analytics"])]}}
    anti_all = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, ZONE, namespace_selector={})]}}
    return [namespace("warehouse", {"team": "data"}), namespace("analytics", {"team": "bi"}),
            namespace("web"), *_zones(1, "abc"),
            pod("db-wh", node="a0", namespace="warehouse", labels={"app": "db"}),
            pod("db-an", node="b0", namespace="analytics", labels={"app": "db"}),
            pod("by-selector", namespace="web", affinity=aff_sel),
            pod("own-namespace", namespace="web", affinity=aff_own),
            pod("by-list", namespace="web", affinity=aff_list),
            pod("away-from-all-dbs", namespace="web", affinity=anti_all)]


@golden("existing-pods-anti-affinity",
        "InterPodAffinity: a running pod's required anti-affinity rejects incoming pods")
def _() -> list[Doc]:
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
def _() -> list[Doc]:
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
def _() -> list[Doc]:
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
def _() -> list[Doc]:
    return [node("n1", "2", "2Gi"),
            pod("gated", "1", schedulingGates=[{"name": "example.com/quota"}]),
            pod("two-gates", "1", schedulingGates=[{"name": "example.com/a"},
                                                   {"name": "example.com/b"}]),
            pod("free", "500m"),
            timeline({"at": "30s", "action": "removeSchedulingGates", "pod": "gated"},
                     {"at": "40s", "action": "removeSchedulingGates", "pod": "two-gates",
                      "gates": ["example.com/a"]},
                     {"at": "50s", "action": "removeSchedulingGates", "pod": "two-gates"})]


# ----- preemption -----

def _prio() -> list[Doc]:
    return [priority_class("low", 100), priority_class("mid", 500),
            priority_class("high", 1000)]


@golden("preemption-lowest-priority-victims",
        "DefaultPreemption: the node whose victims have the lowest priority")
def _() -> list[Doc]:
    return [*_prio(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("mid-1", "2", node="n1", priority_class="mid", start=t(10)),
            pod("low-2", "2", node="n2", priority_class="low", start=t(20)),
            pod("boss", "2", priority_class="high")]


@golden("preemption-pdb", "DefaultPreemption: PodDisruptionBudgets (status.disruptionsAllowed)")
def _() -> list[Doc]:
    return [*_prio(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("protected", "2", node="n1", priority_class="low", labels={"app": "db"},
                start=t(30)),
            pod("unprotected", "2", node="n2", priority_class="low", labels={"app": "web"},
                start=t(10)),
            pdb("db-pdb", {"app": "db"}, disruptions_allowed=0),
            pdb("web-pdb", {"app": "web"}, disruptions_allowed=1),
            pod("boss", "2", priority_class="high")]


@golden("preemption-pdb-violation-unavoidable",
        "DefaultPreemption: every candidate violates a PDB; fewest violations win")
def _() -> list[Doc]:
    return [*_prio(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("a1", "1", node="n1", priority_class="low", labels={"app": "a"}, start=t(5)),
            pod("a2", "1", node="n1", priority_class="low", labels={"app": "a"}, start=t(6)),
            pod("b1", "2", node="n2", priority_class="low", labels={"app": "b"}, start=t(7)),
            pdb("a-pdb", {"app": "a"}, disruptions_allowed=0),
            pdb("b-pdb", {"app": "b"}, disruptions_allowed=0),
            pod("boss", "2", priority_class="high")]


@golden("preemption-policy-never", "preemptionPolicy Never: the pod waits, nothing is evicted")
def _() -> list[Doc]:
    return [*_prio(), priority_class("high-never", 1000, preemption_policy="Never"),
            node("n1", "2", "4Gi"),
            pod("low", "2", node="n1", priority_class="low", start=t(0)),
            pod("polite", "2", priority_class="high-never"),
            pod("polite-explicit", "2", priority_class="high",
                preemptionPolicy="Never")]


@golden("preemption-candidate-criteria",
        "DefaultPreemption pickOneNode: fewest victims, lowest priority sum, latest start")
def _() -> list[Doc]:
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
def _() -> list[Doc]:
    return [*_prio(), node("n1", "4", "8Gi"),
            pod("l1", "1", node="n1", priority_class="low", start=t(1)),
            pod("l2", "1", node="n1", priority_class="low", start=t(2)),
            pod("l3", "1", node="n1", priority_class="low", start=t(3)),
            pod("m1", "1", node="n1", priority_class="mid", start=t(4)),
            pod("boss", "2", priority_class="high")]


@golden("preemption-cannot-help",
        "DefaultPreemption: nodes rejected as unresolvable are not candidates")
def _() -> list[Doc]:
    return [*_prio(), node("n1", "2", "4Gi", labels={"disk": "hdd"}),
            node("n2", "2", "4Gi", labels={"disk": "ssd"}, taints=[taint("special")]),
            pod("low-1", "2", node="n1", priority_class="low", start=t(1)),
            pod("boss", "1", priority_class="high", nodeSelector={"disk": "ssd"})]


@golden("preemption-nominated-node-reserved",
        "nominated pods: a preemptor's nomination keeps lower-priority pods off the node")
def _() -> list[Doc]:
    return [*_prio(), node("n1", "2", "4Gi"),
            pod("low", "2", node="n1", priority_class="low", start=t(1)),
            pod("boss", "2", priority_class="high", created=t(100)),
            pod("mid-waits", "1", priority_class="mid", created=t(200))]


@golden("preemption-by-priority-order",
        "the queue's priority order: the highest-priority pod preempts first")
def _() -> list[Doc]:
    return [*_prio(), node("n1", "2", "4Gi"), node("n2", "2", "4Gi"),
            pod("low-a", "2", node="n1", priority_class="low", start=t(1)),
            pod("low-b", "2", node="n2", priority_class="low", start=t(2)),
            pod("mid", "2", priority_class="mid", created=t(5)),
            pod("high", "2", priority_class="high", created=t(10))]


# ----- the scheduling queue -----

@golden("queue-priority-and-creation-order",
        "PrioritySort: priority, then creation time, decides who gets the last space")
def _() -> list[Doc]:
    return [*_prio(), node("n1", "2", "4Gi"),
            pod("late-high", "1", priority_class="high", created=t(300)),
            pod("early-low", "1", priority_class="low", created=t(1)),
            pod("mid-second", "1", priority_class="mid", created=t(20)),
            pod("mid-first", "1", priority_class="mid", created=t(10))]


@golden("queue-node-added-later", "the queue: a node created at 45s (NodeAdd moves the pods)")
def _() -> list[Doc]:
    return [node("n1", "1", "1Gi"), pod("fits", "500m"), pod("waits-1", "2"),
            pod("waits-2", "3"),
            timeline({"at": "45s", "action": "createNode",
                      "node": node("n2", "4", "8Gi")})]


@golden("queue-pod-deleted-frees-space",
        "the queue: deleting a running pod (AssignedPodDelete) lets a pending pod in")
def _() -> list[Doc]:
    return [node("n1", "2", "2Gi"), pod("old", "2", node="n1"), pod("new", "1500m"),
            timeline({"at": "2m", "action": "deletePod", "pod": "old"})]


@golden("queue-unschedulable-flush",
        "the queue: an unschedulable pod retried by the 5-minute flush of unschedulable pods")
def _() -> list[Doc]:
    return [node("n1", "2"), node("n2", "4"), node("n3", "8", taints=[taint("gpu")]),
            pod("p1", "1500m"), pod("p2", "2"), pod("p3", "3"), pod("p4", "1")]


@golden("queue-backoff-after-taint-removed",
        "the queue: a taint removed by the timeline; the pod retried after its backoff")
def _() -> list[Doc]:
    return [node("n1", "2", taints=[taint("maintenance")]), pod("waits", "1"),
            timeline({"at": "3s", "action": "untaintNode", "node": "n1",
                      "taints": [{"key": "maintenance"}]})]


@golden("queue-cordon-and-uncordon", "the queue: cordon / uncordon and label changes over time")
def _() -> list[Doc]:
    return [node("n1", "2", labels={"ready": "no"}), node("n2", "1", "1Gi"),
            pod("needs-ready", "1", nodeSelector={"ready": "yes"}),
            pod("a", "800m"), pod("b", "800m"),
            timeline({"at": "1s", "action": "cordon", "node": "n2"},
                     {"at": "20s", "action": "labelNode", "node": "n1",
                      "labels": {"ready": "yes"}},
                     {"at": "40s", "action": "uncordon", "node": "n2"},
                     {"at": "41s", "action": "createPod", "pod": pod("late", "500m")})]


@golden("queue-node-deleted", "the queue: a node deleted, its pods deleted with it; a pod "
                              "finishing frees space")
def _() -> list[Doc]:
    return [node("n1", "2"), node("n2", "2"), pod("r1", "2", node="n1"),
            pod("r2", "1500m", node="n2"), pod("waits", "1"),
            timeline({"at": "10s", "action": "deleteNode", "node": "n2"},
                     {"at": "20s", "action": "finishPod", "pod": "r1"})]


# ----- configurations -----

_MOST = {"scoringStrategy": {"type": "MostAllocated",
                             "resources": [{"name": "cpu", "weight": 1},
                                           {"name": "memory", "weight": 1}]}}


@golden("config-most-allocated", "NodeResourcesFit MostAllocated packs pods",
        config=config(profile(args={"NodeResourcesFit": _MOST})))
def _() -> list[Doc]:
    return [node("n1", "4", "8Gi"), node("n2", "8", "8Gi"), node("n3", "4", "8Gi"),
            pod("r", "1", node="n3"), *replicas("pack", 5, cpu="700m", memory="1Gi")]


@golden("config-requested-to-capacity-ratio",
        "NodeResourcesFit RequestedToCapacityRatio with a shape and resource weights",
        config=config(profile(args={"NodeResourcesFit": {"scoringStrategy": {
            "type": "RequestedToCapacityRatio",
            "resources": [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}],
            "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                                   {"utilization": 60, "score": 10},
                                                   {"utilization": 100, "score": 2}]}}}})))
def _() -> list[Doc]:
    return [node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), node("n3", "10", "8Gi"),
            pod("r", "2", "1Gi", node="n1"), *replicas("p", 5, cpu="600m", memory="512Mi")]


@golden("config-score-weights",
        "plugin weights: ImageLocality weight 20 outweighs resource scoring",
        config=config(profile(score={"ImageLocality": 20, "NodeResourcesFit": 1})))
def _() -> list[Doc]:
    img = "example.com/big:1"
    return [node("busy-with-image", "4", images=[(img, 500 * 1024 * 1024)]),
            node("empty", "16", "32Gi"),
            pod("busy", "3", node="busy-with-image"), pod("p1", "200m", image=img),
            pod("p2", "200m", image=img)]


@golden("config-disabled-plugins",
        "plugins disabled: TaintToleration filter and score, NodeResourcesBalancedAllocation",
        config=config(profile(disabled={"filter": ["TaintToleration"],
                                        "score": ["TaintToleration",
                                                  "NodeResourcesBalancedAllocation"]})))
def _() -> list[Doc]:
    return [node("tainted", "8", "8Gi", taints=[taint("nobody")]), node("plain", "2", "8Gi"),
            pod("a", "1"), pod("b", "1"), pod("c", "1", "6Gi")]


@golden("config-multiple-profiles",
        "two profiles: pods choose one by schedulerName; unknown schedulerName stays pending",
        config=config(profile(),
                      profile("packing-scheduler", args={"NodeResourcesFit": _MOST})))
def _() -> list[Doc]:
    return [node("n1", "4", "8Gi"), node("n2", "4", "8Gi"), pod("r", "1", node="n2"),
            *replicas("spread", 2, cpu="500m"),
            *replicas("packed", 2, cpu="500m", schedulerName="packing-scheduler"),
            pod("orphan", schedulerName="no-such-scheduler")]


@golden("config-pod-topology-spread-defaults",
        "PodTopologySpread defaultConstraints (List) apply to pods with owners",
        config=config(profile(args={"PodTopologySpread": {
            "defaultingType": "List",
            "defaultConstraints": [{"maxSkew": 1, "topologyKey": ZONE,
                                    "whenUnsatisfiable": "ScheduleAnyway"}]}})))
def _() -> list[Doc]:
    return [*_zones(1, "abc"), pod("x-old", node="a0", labels={"app": "x"}, owner="x-rs"),
            *replicas("x", 4, labels={"app": "x"}, owner="x-rs")]


@golden("config-balanced-allocation-resources",
        "NodeResourcesBalancedAllocation with cpu, memory and an extended resource",
        config=config(profile(args={"NodeResourcesBalancedAllocation": {"resources": [
            {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
            {"name": "example.com/gpu", "weight": 1}]}})))
def _() -> list[Doc]:
    gpu = {"example.com/gpu": "4"}
    return [node("g1", "8", "16Gi", extra=gpu), node("g2", "8", "16Gi", extra=gpu),
            pod("r", "4", "2Gi", node="g1"),
            pod("gpu-job", "1", "1Gi", extra={"example.com/gpu": "2"}),
            pod("cpu-job", "2", "1Gi")]


@golden("config-inter-pod-affinity-hard-weight",
        "InterPodAffinity hardPodAffinityWeight 0 and an ignored preferred term weight",
        config=config(profile(args={"InterPodAffinity": {"hardPodAffinityWeight": 0}})))
def _() -> list[Doc]:
    want = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "web"}, ZONE)]}}
    return [*_zones(1, "ab"), pod("follower", node="a0", labels={"app": "f"}, affinity=want),
            pod("web-0", labels={"app": "web"}), pod("web-1", labels={"app": "web"})]


# ----- more than 100 nodes -----

def _pool(n: int, prefix: str = "n", cpu: str = "4", zones: int = 3,
          **kw: Any) -> list[Doc]:
    return [node(f"{prefix}{i:03d}", cpu, zone=f"zone-{i % zones}", **kw) for i in range(n)]


@golden("large-150-nodes-rotation",
        "more than 100 nodes: numFeasibleNodesToFind (100 of 150) and nextStartNodeIndex "
        "rotation decide which nodes are scored")
def _() -> list[Doc]:
    nodes = _pool(150)
    # running pods make some nodes busier, so scores differ by node
    running = [pod(f"r{i}", "1", node=f"n{i:03d}") for i in range(0, 150, 7)]
    return [*nodes, *running, *replicas("p", 40, cpu="300m")]


@golden("large-300-nodes-adaptive-percentage",
        "300 nodes: the adaptive percentageOfNodesToScore (50 - 300/125 = 48%: 144 nodes)")
def _() -> list[Doc]:
    nodes = _pool(300, cpu="8")
    running = [pod(f"r{i}", f"{(i % 5) + 1}", node=f"n{i:03d}") for i in range(0, 300, 3)]
    return [*nodes, *running, *replicas("p", 30, cpu="1")]


@golden("large-200-nodes-filtered",
        "200 nodes where most fail a filter: the search continues past the rotation start",
        notes=["only nodes n*0 and n*5 have the label the pods select"])
def _() -> list[Doc]:
    nodes = [node(f"n{i:03d}", "4", zone=f"zone-{i % 4}",
                  labels={"pool": "gold"} if i % 5 == 0 else {"pool": "std"})
             for i in range(200)]
    return [*nodes, *replicas("g", 25, cpu="1500m", nodeSelector={"pool": "gold"}),
            *replicas("s", 20, cpu="1")]


@golden("large-200-nodes-percentage-config",
        "200 nodes with percentageOfNodesToScore 10 (the 100-node minimum applies)",
        config=config(percentage=10))
def _() -> list[Doc]:
    nodes = _pool(200, cpu="4")
    running = [pod(f"r{i}", "2", node=f"n{i:03d}") for i in range(1, 200, 2)]
    return [*nodes, *running, *replicas("p", 30, cpu="500m")]


@golden("large-120-nodes-profile-percentage",
        "120 nodes with a profile's percentageOfNodesToScore 100 (every node scored)",
        config=config(profile(percentage=100)))
def _() -> list[Doc]:
    nodes = _pool(120, cpu="4")
    running = [pod(f"r{i}", "3", node=f"n{i:03d}") for i in range(0, 120, 2)]
    return [*nodes, *running, *replicas("p", 20, cpu="500m")]


@golden("large-150-nodes-spread-and-affinity",
        "150 nodes in 5 zones: topology spread and anti-affinity beyond 100 nodes")
def _() -> list[Doc]:
    nodes = _pool(150, zones=5)
    c = [spread(1, ZONE, {"app": "web"})]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        affinity_term({"app": "db"}, HOSTNAME)]}}
    return [*nodes, *replicas("web", 12, labels={"app": "web"}, topologySpreadConstraints=c),
            *replicas("db", 6, labels={"app": "db"}, affinity=anti)]


# ----- combinations -----

@golden("mixed-small-cluster",
        "several plugins at once: taints, affinity, spread, ports and resources")
def _() -> list[Doc]:
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
def _() -> list[Doc]:
    return [priority_class("default-prio", 50, global_default=True),
            priority_class("urgent", 5000), namespace("team-a"), namespace("team-b"),
            node("n1", "2", "4Gi"),
            pod("a", "1", namespace="team-a", created=t(1)),
            pod("b", "1", namespace="team-b", created=t(2)),
            pod("u", "1", namespace="team-b", priority_class="urgent", created=t(3))]


# ----- regression scenarios (minimal cases of divergences found and fixed) -----

def _bare_node(name: str, zone: str | None = None, taints: Iterable[Doc] = ()) -> Doc:
    labels = {HOSTNAME: name}
    if zone:
        labels[ZONE] = zone
    spec: Doc = {"taints": list(taints)} if taints else {}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "spec": spec, "status": {"allocatable": {"cpu": "4", "memory": "8Gi",
                                                      "pods": 110}}}


def _bare_pod(name: str, node: str | None = None, labels: dict[str, str] | None = None,
              **spec: Any) -> Doc:
    meta: Doc = {"name": name}
    if labels:
        meta["labels"] = labels
    sp: Doc = {"containers": [{"name": "c", "image": "busybox"}], **spec}
    if node:
        sp["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": sp}


def _node_later(at: str, until: str) -> Doc:
    n = _bare_node("n1")
    return timeline({"at": at, "action": "createNode", "node": n}, until=until)


@golden("queue-error-backoff-initial",
        "scheduling queue: podInitialBackoffSeconds 2 delays the retries of a pod with no node",
        config={"apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration", "podInitialBackoffSeconds": 2})
def _() -> list[Doc]:
    return [_bare_pod("p"), _node_later("6.5", "7500ms")]


@golden("queue-error-backoff-capped",
        "scheduling queue: a pod with no node at all waits in the error backoff queue; backoff "
        "capped at podMaxBackoffSeconds (1s)",
        config={"apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration", "podInitialBackoffSeconds": 1,
                "podMaxBackoffSeconds": 1})
def _() -> list[Doc]:
    return [_bare_pod("p"), _node_later("6.5", "9s")]


@golden("spread-node-taints-policy-honor",
        "PodTopologySpread nodeTaintsPolicy Honor: a node with an untolerated taint is not a "
        "domain")
def _() -> list[Doc]:
    c = {"labelSelector": {"matchLabels": {"app": "web"}}, "maxSkew": 1,
         "nodeTaintsPolicy": "Honor", "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}
    return [_bare_node("n1", "z1"),
            _bare_node("n2", "z2", [{"effect": "NoSchedule", "key": "dedicated"}]),
            _bare_pod("w1", "n1", {"app": "web"}),
            _bare_pod("p", labels={"app": "web"}, topologySpreadConstraints=[c])]


@golden("spread-min-domains-global-minimum",
        "PodTopologySpread minDomains: fewer domains than minDomains make the global minimum 0")
def _() -> list[Doc]:
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
