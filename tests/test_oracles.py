"""The invariant oracles (``oracles/``): each is proved by planted wrong decisions it catches
and by correct decisions (hand-written, and the reference's own) it accepts."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject, SubjectResult
from conformance.subjects.reference import ReferenceSubject
from oracles import (
    ALL_ORACLES,
    filters_honoured,
    no_false_unschedulable,
    no_overcommit,
    preemption,
    queue_fairness,
    run_oracles,
    score_optimality,
)
from oracles import consistency as consistency_oracle
from oracles.base import OracleContext, Violation
from oracles.determinism import (
    NotApplicable,
    compare_up_to_ties,
    determinism,
    permute_relation,
    rename_relation,
    unfit_node_relation,
)
from oracles.replay import Replay
from oracles.tie_uniformity import (
    TieChoices,
    check_choices,
    chi2_critical,
    chi2_sf,
    power_of,
    required_runs,
    tie_uniformity,
)
from oracles.transforms import add_unfit_node, permute_nodes, rename_nodes
from reference_impl.testing.wrappers import make_container, make_node, make_pod

# ----------------------------------------------------------------------------- builders


def node(name: str, cpu: str = "4", memory: str = "8Gi", pods: str = "110",
         labels: dict[str, str] | None = None, taints: list[dict] | None = None,
         unschedulable: bool = False, extra: dict[str, str] | None = None) -> dict:
    """A node with the hostname label and allocatable cpu / memory / pods (and ``extra``)."""
    n = make_node(name).hostname().labels(labels or {}).allocatable(
        {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})})
    if taints:
        n.taints(taints)
    if unschedulable:
        n.unschedulable()
    return n.manifest()


def pod(name: str, cpu: str | None = "1", node: str | None = None,
        labels: dict[str, str] | None = None, priority: int | None = None,
        requests: dict[str, str] | None = None, ns: str = "default",
        **spec: Any) -> dict:
    """A pod with one container "c" requesting ``cpu`` (and ``requests``, and ``ports``);
    ``spec`` fields as given."""
    req = dict(requests or {})
    if cpu is not None:
        req.setdefault("cpu", cpu)
    c = make_container("c").requests(req)
    if "ports" in spec:
        c.ports(spec.pop("ports"))
    p = make_pod(name).namespace(ns).labels(labels or {}).container(c).spec(**spec)
    if node:
        p.node(node)
    if priority is not None:
        p.priority(priority)
    return p.manifest()


def bound(p: str, n: str, candidates: list[str] | None = None, **more: Any) -> dict:
    a = {"pod": f"default/{p}", "outcome": "Bound", "node": n, "reasons": {}, "message": "",
         "nominatedNode": None, "candidates": candidates if candidates is not None else [n],
         "victims": []}
    a.update(more)
    return a


def unschedulable(p: str, nominated: str | None = None, victims: Sequence[str] = (),
                  **more: Any) -> dict:
    a = {"pod": f"default/{p}", "outcome": "Unschedulable", "node": None, "reasons": {},
         "message": "0/n nodes are available", "nominatedNode": nominated, "candidates": [],
         "victims": [f"default/{v}" for v in victims]}
    a.update(more)
    return a


def gated(p: str) -> dict:
    return {"pod": f"default/{p}", "outcome": "Gated", "node": None, "reasons": {},
            "message": "waiting for scheduling gates"}


def judge(docs: list[dict], attempts: list[dict], config: dict | None = None,
          trace: list[dict] | None = None, explanations: dict | None = None,
          **extra: Any) -> OracleContext:
    """A context whose result document is the given attempts, with bindings, pending and
    deleted derived from them (so ``consistency`` holds unless the attempts are impossible)."""
    sc = ScenarioInput(docs, config, 0, "test")
    ctx = OracleContext.build(sc, {"attempts": attempts})
    final = Replay.of(ctx).run()
    ctx.result = {"apiVersion": "kschedconf/v1", "kind": "SimulationResult", "seed": 0,
                  "attempts": attempts, "bindings": final.bindings(),
                  "pending": sorted(final.pending),
                  "deleted": sorted({v for vs in final.victims_of.values() for v in vs}),
                  **extra}
    ctx.trace = trace
    ctx.explanations = dict(explanations or {})
    return ctx


def reference(docs: list[dict], config: dict | None = None, seed: int = 0) -> OracleContext:
    sc = ScenarioInput(docs, config, seed, "reference")
    return OracleContext.build(sc, ReferenceSubject().run(sc))


def one(vs: list[Violation]) -> Violation:
    assert len(vs) == 1, [str(v) for v in vs]
    return vs[0]


def config(*profiles: dict, **top: Any) -> dict:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": list(profiles) or [{"schedulerName": "default-scheduler"}], **top}


TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
ZONE = "topology.kubernetes.io/zone"


# ----------------------------------------------------------------------------- no_overcommit

def test_no_overcommit_accepts_a_bind_that_fits() -> None:
    docs = [node("n1", cpu="4"), pod("run", cpu="2", node="n1"), pod("p", cpu="2")]
    assert no_overcommit.check(judge(docs, [bound("p", "n1")])) == []


def test_no_overcommit_catches_cpu_overcommit_with_numbers() -> None:
    docs = [node("n1", cpu="4"), pod("run", cpu="2", node="n1"), pod("p", cpu="3")]
    v = one(no_overcommit.check(judge(docs, [bound("p", "n1")])))
    assert (v.oracle, v.pod, v.node) == ("no_overcommit", "default/p", "n1")
    for number in ("2000m", "3000m", "5000m", "4000m"):
        assert number in v.message


def test_no_overcommit_catches_too_many_pods() -> None:
    docs = [node("n1", pods="1"), pod("run", cpu="0", node="n1"), pod("p", cpu="0")]
    v = one(no_overcommit.check(judge(docs, [bound("p", "n1")])))
    assert "2 pods" in v.message and "allocatable pods is 1" in v.message


def test_no_overcommit_uses_effective_requests_init_containers_and_overhead() -> None:
    # Effective cpu: max(init 3, containers 1) + overhead 500m = 3500m; 2000m free.
    p = pod("p", cpu="1", initContainers=[{"name": "i", "resources": {"requests": {"cpu": "3"}}}],
            overhead={"cpu": "500m"})
    docs = [node("n1", cpu="4"), pod("run", cpu="2", node="n1"), p]
    v = one(no_overcommit.check(judge(docs, [bound("p", "n1")])))
    assert "3500m" in v.message and "5500m" in v.message


def test_no_overcommit_uses_pod_level_requests() -> None:
    p = pod("p", cpu="1", resources={"requests": {"cpu": "3"}})
    docs = [node("n1", cpu="4"), pod("run", cpu="2", node="n1"), p]
    v = one(no_overcommit.check(judge(docs, [bound("p", "n1")])))
    assert "3000m" in v.message


def test_no_overcommit_checks_extended_resources_unless_ignored() -> None:
    docs = [node("n1", extra={"example.com/gpu": "1"}),
            pod("run", node="n1", requests={"example.com/gpu": "1"}),
            pod("p", requests={"example.com/gpu": "1"})]
    v = one(no_overcommit.check(judge(docs, [bound("p", "n1")])))
    assert "example.com/gpu" in v.message and "allocatable 1" in v.message
    cfg = config({"schedulerName": "default-scheduler", "pluginConfig": [
        {"name": "NodeResourcesFit", "args": {"ignoredResources": ["example.com/gpu"]}}]})
    assert no_overcommit.check(judge(docs, [bound("p", "n1")], cfg)) == []


def test_no_overcommit_does_not_judge_profiles_without_noderesourcesfit() -> None:
    docs = [node("n1", cpu="1"), pod("p", cpu="3")]
    cfg = config({"schedulerName": "default-scheduler",
                  "plugins": {"multiPoint": {"disabled": [{"name": "NodeResourcesFit"}]}}})
    assert no_overcommit.check(judge(docs, [bound("p", "n1")], cfg)) == []
    assert no_overcommit.check(judge(docs, [bound("p", "n1")])) != []


def test_no_overcommit_ignores_resources_the_pod_does_not_request() -> None:
    # The input already over-commits memory; a cpu-only pod may still go there (fitsRequest
    # only checks what the pod requests).
    docs = [node("n1", cpu="4", memory="1Gi"),
            pod("run", cpu="1", node="n1", requests={"memory": "2Gi"}), pod("p", cpu="1")]
    assert no_overcommit.check(judge(docs, [bound("p", "n1")])) == []


# ----------------------------------------------------------------------------- filters_honoured

def fh(docs: list[dict], attempts: list[dict], cfg: dict | None = None) -> list[Violation]:
    return filters_honoured.check(judge(docs, attempts, cfg))


def test_filters_honoured_unschedulable_node() -> None:
    docs = [node("n1", unschedulable=True), pod("p")]
    assert "unschedulable" in one(fh(docs, [bound("p", "n1")])).message
    tolerant = [node("n1", unschedulable=True), pod("p", tolerations=[
        {"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
         "effect": "NoSchedule"}])]
    assert fh(tolerant, [bound("p", "n1")]) == []


def test_filters_honoured_taints() -> None:
    docs = [node("n1", taints=[TAINT]), pod("p")]
    assert "dedicated=gpu:NoSchedule" in one(fh(docs, [bound("p", "n1")])).message
    tolerated = [node("n1", taints=[TAINT]), pod("p", tolerations=[
        {"key": "dedicated", "operator": "Equal", "value": "gpu"}])]
    assert fh(tolerated, [bound("p", "n1")]) == []
    wrong_value = [node("n1", taints=[TAINT]), pod("p", tolerations=[
        {"key": "dedicated", "operator": "Equal", "value": "cpu"}])]
    assert fh(wrong_value, [bound("p", "n1")]) != []
    prefer = [node("n1", taints=[{**TAINT, "effect": "PreferNoSchedule"}]), pod("p")]
    assert fh(prefer, [bound("p", "n1")]) == []


def test_filters_honoured_node_selector_and_required_affinity() -> None:
    docs = [node("n1", labels={"disk": "hdd"}), pod("p", nodeSelector={"disk": "ssd"})]
    v = one(fh(docs, [bound("p", "n1")]))
    assert "disk=ssd" in v.message and "disk=hdd" in v.message

    def aff(*exprs: dict, fields: list[dict] | None = None) -> dict:
        term: dict[str, Any] = {"matchExpressions": list(exprs)}
        if fields:
            term["matchFields"] = fields
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [term]}}}

    n = node("n1", labels={"cores": "8"})
    gt = {"key": "cores", "operator": "Gt", "values": ["4"]}
    lt = {"key": "cores", "operator": "Lt", "values": ["4"]}
    assert fh([n, pod("p", affinity=aff(gt))], [bound("p", "n1")]) == []
    assert fh([n, pod("p", affinity=aff(lt))], [bound("p", "n1")]) != []
    notin = {"key": "cores", "operator": "NotIn", "values": ["8"]}
    assert fh([n, pod("p", affinity=aff(notin))], [bound("p", "n1")]) != []
    by_name = [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]
    assert fh([n, node("n2"), pod("p", affinity=aff(fields=by_name))],
              [bound("p", "n1")]) != []
    assert fh([n, node("n2"), pod("p", affinity=aff(fields=by_name))],
              [bound("p", "n2")]) == []


def test_filters_honoured_added_affinity_from_the_profile() -> None:
    cfg = config({"schedulerName": "default-scheduler", "pluginConfig": [
        {"name": "NodeAffinity", "args": {"addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "pool", "operator": "In",
                                       "values": ["batch"]}]}]}}}}]})
    docs = [node("n1", labels={"pool": "web"}), node("n2", labels={"pool": "batch"}), pod("p")]
    assert "addedAffinity" in one(fh(docs, [bound("p", "n1")], cfg)).message
    assert fh(docs, [bound("p", "n2")], cfg) == []


def test_filters_honoured_host_ports() -> None:
    def port(p: int, ip: str = "") -> list[dict]:
        d: dict[str, Any] = {"containerPort": 80, "hostPort": p}
        if ip:
            d["hostIP"] = ip
        return [d]

    docs = [node("n1"), pod("run", node="n1", ports=port(8080)), pod("p", ports=port(8080))]
    v = one(fh(docs, [bound("p", "n1")]))
    assert "8080" in v.message and "default/run" in v.message
    other_port = [node("n1"), pod("run", node="n1", ports=port(8080)), pod("p", ports=port(9090))]
    assert fh(other_port, [bound("p", "n1")]) == []
    two_ips = [node("n1"), pod("run", node="n1", ports=port(8080, "10.0.0.1")),
               pod("p", ports=port(8080, "10.0.0.2"))]
    assert fh(two_ips, [bound("p", "n1")]) == []
    any_ip = [node("n1"), pod("run", node="n1", ports=port(8080, "10.0.0.1")),
              pod("p", ports=port(8080))]
    assert fh(any_ip, [bound("p", "n1")]) != []


def test_filters_honoured_resources() -> None:
    docs = [node("n1", cpu="2"), pod("p", cpu="3")]
    v = one(fh(docs, [bound("p", "n1")]))
    assert "Insufficient cpu" in v.message and "3000m" in v.message


def spread(max_skew: int = 1, key: str = ZONE, **more: Any) -> list[dict]:
    return [{"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "web"}}, **more}]


def test_filters_honoured_topology_spread_skew() -> None:
    web = {"app": "web"}
    docs = [node("a1", labels={ZONE: "a"}), node("b1", labels={ZONE: "b"}),
            pod("w1", node="a1", labels=web), pod("w2", node="a1", labels=web),
            pod("p", labels=web, topologySpreadConstraints=spread())]
    v = one(fh(docs, [bound("p", "a1")]))
    assert "2 matching pod(s)" in v.message and "skew 3 > maxSkew 1" in v.message
    # b has 0 matching pods: 0 + 1 - 0 = 1 <= 1
    assert fh(docs, [bound("p", "b1")]) == []
    # A node without the topology key is refused outright.
    assert "no label" in one(fh(docs + [node("x")], [bound("p", "x")])).message


def test_filters_honoured_topology_spread_min_domains_and_policies() -> None:
    web = {"app": "web"}
    one_zone = [node("a1", labels={ZONE: "a"}), pod("w1", node="a1", labels=web)]
    # One domain: min is 1, skew 1 + 1 - 1 = 1.
    ok = one_zone + [pod("p", labels=web, topologySpreadConstraints=spread())]
    assert fh(ok, [bound("p", "a1")]) == []
    # minDomains 2 > 1 domain: the minimum counts as 0, skew 2 > 1.
    md = one_zone + [pod("p", labels=web, topologySpreadConstraints=spread(minDomains=2))]
    assert "minDomains 2" in one(fh(md, [bound("p", "a1")])).message
    # nodeAffinityPolicy Honor (default): zone b's node does not match the nodeSelector, so b
    # is no domain and the minimum is a's 1; Ignore makes b a domain with 0 pods.
    two = [node("a1", labels={ZONE: "a", "pool": "x"}), node("b1", labels={ZONE: "b"}),
           pod("w1", node="a1", labels=web)]
    honor = two + [pod("p", labels=web, nodeSelector={"pool": "x"},
                       topologySpreadConstraints=spread())]
    assert fh(honor, [bound("p", "a1")]) == []
    ignore = two + [pod("p", labels=web, nodeSelector={"pool": "x"},
                        topologySpreadConstraints=spread(nodeAffinityPolicy="Ignore"))]
    assert "skew 2 > maxSkew 1" in one(fh(ignore, [bound("p", "a1")])).message


def test_filters_honoured_topology_spread_match_label_keys() -> None:
    # Only pods of the same revision count: w1 (rev 1) does not, so zone a holds 0 matches.
    docs = [node("a1", labels={ZONE: "a"}), node("b1", labels={ZONE: "b"}),
            pod("w1", node="a1", labels={"app": "web", "rev": "1"}),
            pod("p", labels={"app": "web", "rev": "2"},
                topologySpreadConstraints=spread(0 + 1, matchLabelKeys=["rev"]))]
    assert fh(docs, [bound("p", "a1")]) == []
    no_keys = docs[:3] + [pod("p", labels={"app": "web", "rev": "2"},
                              topologySpreadConstraints=spread())]
    assert fh(no_keys, [bound("p", "a1")]) != []


def anti(labels: dict[str, str], key: str = "kubernetes.io/hostname") -> dict:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": labels}, "topologyKey": key}]}}


def test_filters_honoured_pod_affinity() -> None:
    aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": ZONE}]}}
    docs = [node("a1", labels={ZONE: "a"}), node("a2", labels={ZONE: "a"}),
            node("b1", labels={ZONE: "b"}), pod("db", node="a1", labels={"app": "db"}),
            pod("p", labels={"app": "web"}, affinity=aff)]
    assert fh(docs, [bound("p", "a2")]) == []
    assert f"{ZONE}=b" in one(fh(docs, [bound("p", "b1")])).message
    # No pod matches anywhere and the pod matches its own term: the first pod may go anywhere
    # that has the topology key.
    first = [node("a1", labels={ZONE: "a"}),
             pod("p", labels={"app": "db"}, affinity=aff)]
    assert fh(first, [bound("p", "a1")]) == []
    not_self = [node("a1", labels={ZONE: "a"}), pod("p", labels={"app": "web"}, affinity=aff)]
    assert fh(not_self, [bound("p", "a1")]) != []


def test_filters_honoured_anti_affinity_both_ways() -> None:
    docs = [node("n1"), node("n2"), pod("w1", node="n1", labels={"app": "web"}),
            pod("p", labels={"app": "web"}, affinity=anti({"app": "web"}))]
    assert "anti-affinity" in one(fh(docs, [bound("p", "n1")])).message
    assert fh(docs, [bound("p", "n2")]) == []
    # Symmetry: the running pod's anti-affinity refuses the incoming pod.
    sym = [node("n1"), pod("guard", node="n1", labels={"app": "db"},
                           affinity=anti({"app": "web"})),
           pod("p", labels={"app": "web"})]
    v = one(fh(sym, [bound("p", "n1")]))
    assert "default/guard" in v.message and "existing pod" in v.message


def test_filters_honoured_counts_nominated_pods_of_higher_priority() -> None:
    # big (priority 100) is nominated to n1 and needs 3 of its 4 cpu; p (priority 1, 2 cpu)
    # fits n1 alone but not with big's nomination.
    docs = [node("n1", cpu="4"), pod("big", cpu="3", priority=100), pod("p", cpu="2", priority=1)]
    attempts = [unschedulable("big", nominated="n1"), bound("p", "n1")]
    v = one(fh(docs, attempts))
    assert "nominated" in v.message and "default/big" in v.message
    # A nomination of lower priority does not reserve anything.
    low = [node("n1", cpu="4"), pod("big", cpu="3", priority=0), pod("p", cpu="2", priority=1)]
    assert fh(low, [unschedulable("big", nominated="n1"), bound("p", "n1")]) == []


def test_filters_honoured_gated_pod_and_unknown_node() -> None:
    docs = [node("n1"), pod("p", schedulingGates=[{"name": "wait"}])]
    assert "scheduling gates" in one(fh(docs, [bound("p", "n1")])).message
    assert "not a node" in one(fh([node("n1"), pod("p")], [bound("p", "nx")])).message


def test_filters_honoured_respects_disabled_filters() -> None:
    cfg = config({"schedulerName": "default-scheduler",
                  "plugins": {"filter": {"disabled": [{"name": "TaintToleration"}]}}})
    docs = [node("n1", taints=[TAINT]), pod("p")]
    assert fh(docs, [bound("p", "n1")], cfg) == []
    assert fh(docs, [bound("p", "n1")]) != []


def test_filters_honoured_judges_at_bind_time() -> None:
    # p1 and p2 both fit n1 alone; after p1 is bound p2 no longer does.
    docs = [node("n1", cpu="3"), pod("p1", cpu="2"), pod("p2", cpu="2")]
    v = one(fh(docs, [bound("p1", "n1"), bound("p2", "n1")]))
    assert v.pod == "default/p2" and "2000m is already requested" in v.message


# ----------------------------------------------------------------- no_false_unschedulable

def nfu(docs: list[dict], attempts: list[dict], cfg: dict | None = None) -> list[Violation]:
    return no_false_unschedulable.check(judge(docs, attempts, cfg))


def test_no_false_unschedulable_accepts_a_true_verdict() -> None:
    docs = [node("n1", cpu="2"), node("n2", taints=[TAINT]), pod("p", cpu="3")]
    assert nfu(docs, [unschedulable("p")]) == []


def test_no_false_unschedulable_catches_a_feasible_node() -> None:
    docs = [node("n1", cpu="2"), node("n2", cpu="8"), pod("p", cpu="3")]
    v = one(nfu(docs, [unschedulable("p")]))
    assert v.node == "n2" and "3000m requested of 8000m free" in v.message


def test_no_false_unschedulable_judges_at_that_time() -> None:
    docs = [node("n1", cpu="4"), pod("a", cpu="3"), pod("b", cpu="3")]
    assert nfu(docs, [bound("a", "n1"), unschedulable("b")]) == []
    assert nfu(docs, [unschedulable("b"), bound("a", "n1")]) != []


def test_no_false_unschedulable_requires_preemption_when_it_would_help() -> None:
    docs = [node("n1", cpu="4"), pod("low", cpu="3", node="n1", priority=1),
            pod("high", cpu="3", priority=100)]
    v = one(nfu(docs, [unschedulable("high")]))
    assert "priority 100" in v.message and "default/low (priority 1)" in v.message
    # Nominating (and preempting) satisfies it.
    assert nfu(docs, [unschedulable("high", nominated="n1", victims=["low"])]) == []
    # preemptionPolicy Never, or DefaultPreemption disabled: nothing to expect.
    never = docs[:2] + [pod("high", cpu="3", priority=100, preemptionPolicy="Never")]
    assert nfu(never, [unschedulable("high")]) == []
    cfg = config({"schedulerName": "default-scheduler",
                  "plugins": {"multiPoint": {"disabled": [{"name": "DefaultPreemption"}]}}})
    assert nfu(docs, [unschedulable("high")], cfg) == []
    # Equal priority: nothing can be preempted.
    equal = docs[:2] + [pod("high", cpu="3", priority=1)]
    assert nfu(equal, [unschedulable("high")]) == []


def test_no_false_unschedulable_allows_victims_still_terminating() -> None:
    """Upstream deletes a preemption's victims asynchronously: until the preemptor is tried
    again, another pod may still find them on the node, and so may the preemptor's own retry
    (upstream: "not eligible due to a terminating pod on the nominated node"; seen from the
    process backend). From the next attempt on, a verdict that ignores the freed room is a
    violation again."""
    docs = [node("n1", cpu="2"), pod("low", cpu="1", node="n1", priority=1),
            pod("boss", cpu="2", priority=100),
            pod("small", cpu="2", priority=200, preemptionPolicy="Never")]
    nominated = unschedulable("boss", nominated="n1", victims=["low"], outcome="Nominated")
    # small (not counting boss's lower-priority nomination) fits n1 only once low is gone,
    # which it may not be yet: not judged false
    assert nfu(docs, [nominated, unschedulable("small")]) == []
    # boss's own retry may still find its victim in the scheduler's cache
    retry = unschedulable("boss", nominated="n1")
    assert nfu(docs, [nominated, retry]) == []
    # the retry after that must see n1 free
    v = one(nfu(docs, [nominated, retry, unschedulable("boss", nominated="n1")]))
    assert v.node == "n1" and v.pod == "default/boss"


def test_no_false_unschedulable_counts_the_nomination_of_a_pod_being_deleted() -> None:
    """Found by .ci/run's soundness run on the upstream subject: a pending pod being deleted
    keeps its status nomination in upstream's nominator until the queue pops and skips it
    (skipPodSchedule), so a pod of equal priority tried before that does not fit beside it.
    The replay cannot know when the skip happened: either verdict is allowed, and a pod that
    fits beside the nomination too is still judged."""
    leaving = pod("leaving", cpu="1")
    leaving["metadata"].update(deletionTimestamp="2024-01-01T00:11:40Z",
                               deletionGracePeriodSeconds=30)
    leaving["status"] = {"nominatedNodeName": "n1"}
    docs = [node("n1", cpu="2"), leaving, pod("p", cpu="2")]
    assert nfu(docs, [unschedulable("p")]) == []
    fits_beside = [node("n1", cpu="2"), leaving, pod("p", cpu="1")]
    v = one(nfu(fits_beside, [unschedulable("p")]))
    assert v.node == "n1"


def test_no_false_unschedulable_preemption_also_sees_victims_still_terminating() -> None:
    """Found by the docker backend's differential run: a pod whose required anti-affinity
    matches another preemption's victims, still in the scheduler's cache, has no preemption
    candidate in their topology domain; upstream's dry run reports it Unschedulable. Once the
    victims' preemptor was retried (they are gone), the same verdict is a violation."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"tier": "backend"}},
        "topologyKey": "topology.kubernetes.io/zone"}]}}
    z = {"topology.kubernetes.io/zone": "z1"}
    docs = [node("n1", cpu="1", labels=z), node("n2", cpu="1", labels=z),
            pod("victim", cpu="1", node="n1", priority=1, labels={"tier": "backend"}),
            pod("filler", cpu="1", node="n2", priority=1),
            pod("boss", cpu="1", priority=100),
            pod("picky", cpu="1", priority=100, affinity=anti)]
    nominated = unschedulable("boss", nominated="n1", victims=["victim"], outcome="Nominated")
    # picky could preempt filler on n2 only once victim (same zone) is gone: it may not be yet
    assert nfu(docs, [nominated, unschedulable("picky")]) == []
    # after boss's retry its victim is gone: n2 is a preemption candidate for picky
    v = one(nfu(docs, [nominated, bound("boss", "n1"), unschedulable("picky")]))
    assert v.node == "n2" and "default/filler (priority 1)" in v.message


def test_no_false_unschedulable_gated() -> None:
    assert "no scheduling gates" in one(nfu([node("n1"), pod("p")], [gated("p")])).message
    docs = [node("n1"), pod("p", schedulingGates=[{"name": "wait"}])]
    assert nfu(docs, [gated("p")]) == []


def test_no_false_unschedulable_skips_what_it_cannot_restate() -> None:
    docs = [node("n1", cpu="8"), pod("p", cpu="3", volumes=[
        {"name": "data", "persistentVolumeClaim": {"claimName": "data"}}])]
    assert nfu(docs, [unschedulable("p")]) == []


def test_no_false_unschedulable_skips_profiles_with_unknown_filters() -> None:
    cfg = config({"schedulerName": "default-scheduler",
                  "plugins": {"filter": {"enabled": [{"name": "MyFilter"}]}}})
    docs = [node("n1", cpu="8"), pod("p", cpu="3")]
    assert nfu(docs, [unschedulable("p")], cfg) == []
    assert nfu(docs, [unschedulable("p")]) != []


def test_profiles_read_from_the_configuration() -> None:
    from oracles.profiles import read_scheduler_config

    view = read_scheduler_config(config(
        {"schedulerName": "a", "plugins": {
            "multiPoint": {"disabled": [{"name": "DefaultPreemption"}]},
            "filter": {"disabled": [{"name": "NodePorts"}]}}},
        {"schedulerName": "b", "plugins": {"filter": {"disabled": [{"name": "*"}],
                                                      "enabled": [{"name": "NodeName"}]}}},
        podInitialBackoffSeconds=2))
    a, b = view.profiles["a"], view.profiles["b"]
    assert not a.preemption and b.preemption
    assert not a.enabled("NodePorts") and a.enabled("NodeResourcesFit")
    assert b.points["filter"] == ["NodeName"]
    assert a.queue_sort == "PrioritySort" and view.pod_initial_backoff_seconds == 2
    assert a.unrestated_rejecters() == []


# ----------------------------------------------------------------------------- score_optimality

def explanation(totals: dict[str, int | None], selected: str,
                candidates: list[str] | None = None) -> dict:
    nodes = []
    for name, total in totals.items():
        scores = [] if total is None else [
            {"plugin": "NodeResourcesFit", "raw": total, "normalized": total, "weight": 1,
             "weighted": total}]
        nodes.append({"name": name, "feasible": True, "examined": True, "filters": [],
                      "scores": scores, "total": total})
    best = max(t for t in totals.values() if t is not None)
    return {"pod": "default/p", "nodes": nodes, "selected": selected, "shortcut": False,
            "candidates": candidates if candidates is not None else
            [n for n, t in totals.items() if t == best], "evaluatedNodes": len(totals)}


def test_score_optimality_candidates_and_explanations() -> None:
    docs = [node("n1"), node("n2"), pod("p")]
    assert score_optimality.check(judge(docs, [bound("p", "n1", ["n1", "n2"])])) == []
    v = one(score_optimality.check(judge(docs, [bound("p", "n1", ["n2"])])))
    assert "n2" in v.message
    good = explanation({"n1": 80, "n2": 70}, "n1")
    assert score_optimality.check(judge(docs, [bound("p", "n1")],
                                        explanations={"default/p": good})) == []
    v = one(score_optimality.check(judge(docs, [bound("p", "n2", ["n2"])],
                                         explanations={"default/p": good})))
    assert "total score 70" in v.message and "maximum" in v.message and "80" in v.message


def test_score_optimality_explanation_arithmetic() -> None:
    docs = [node("n1"), node("n2"), pod("p")]
    bad = explanation({"n1": 80, "n2": 70}, "n1")
    bad["nodes"][0]["scores"][0]["weight"] = 2  # weighted 80 != 80 * 2
    v = one(score_optimality.check(judge(docs, [bound("p", "n1")],
                                         explanations={"default/p": bad})))
    assert "80 != normalized 80 * weight 2" in v.message
    out_of_range = explanation({"n1": 180, "n2": 70}, "n1")
    assert any("outside [0, 100]" in v.message for v in score_optimality.check(
        judge(docs, [bound("p", "n1")], explanations={"default/p": out_of_range})))
    wrong_cands = explanation({"n1": 80, "n2": 80}, "n1", candidates=["n1"])
    assert "differ" in one(score_optimality.check(
        judge(docs, [bound("p", "n1")], explanations={"default/p": wrong_cands}))).message


# ----------------------------------------------------------------------------- preemption

def preemption_cluster() -> list[dict]:
    """n1 (4 cpu) runs a (1), b (1) and c (2), all priority 10; hp needs 2 cpu at 100."""
    return [node("n1", cpu="4"),
            pod("a", cpu="1", node="n1", priority=10),
            pod("b", cpu="1", node="n1", priority=10),
            pod("c", cpu="2", node="n1", priority=10),
            pod("hp", cpu="2", priority=100)]


def pre(docs: list[dict], attempts: list[dict]) -> list[Violation]:
    return preemption.check(judge(docs, attempts))


def test_preemption_accepts_minimal_victims() -> None:
    docs = preemption_cluster()
    assert pre(docs, [unschedulable("hp", "n1", ["c"])]) == []
    # {a, b} is also what upstream's reprieve can leave (c reprieved first).
    assert pre(docs, [unschedulable("hp", "n1", ["a", "b"])]) == []


def test_preemption_catches_an_unneeded_victim() -> None:
    # Evicting everything: any single victim could have been kept.
    vs = pre(preemption_cluster(), [unschedulable("hp", "n1", ["a", "b", "c"])])
    assert len(vs) == 3
    assert "victim default/a (priority 10) was not needed" in vs[0].message
    assert "fits n1 with default/a kept and the other 2 victim(s) evicted" in vs[0].message
    # {a, c}: a could stay (2 cpu free with b and a), c could not (1 cpu free).
    vs = pre(preemption_cluster(), [unschedulable("hp", "n1", ["a", "c"])])
    assert [x.message.split(":")[1].split(" was")[0].strip() for x in vs] == [
        "victim default/a (priority 10)"]


def test_preemption_catches_too_few_victims() -> None:
    v = one(pre(preemption_cluster(), [unschedulable("hp", "n1", ["a"])]))
    assert "still does not fit" in v.message and "Insufficient cpu" in v.message


def test_preemption_priority_place_and_policy() -> None:
    docs = preemption_cluster() + [node("n2"), pod("d", cpu="1", node="n2", priority=10),
                                   pod("vip", cpu="1", node="n1", priority=500)]
    vs = pre(docs, [unschedulable("hp", "n1", ["vip"])])
    assert any("priority 500, not lower than the preemptor's 100" in v.message for v in vs)
    vs = pre(docs, [unschedulable("hp", "n1", ["d"])])
    assert any("ran on n2, not on n1" in v.message for v in vs)
    never = preemption_cluster()[:-1] + [pod("hp", cpu="2", priority=100,
                                             preemptionPolicy="Never")]
    vs = pre(never, [unschedulable("hp", "n1", ["c"])])
    assert any("preemptionPolicy Never" in v.message for v in vs)
    vs = pre(preemption_cluster(), [unschedulable("hp", None, ["c"])])
    assert any("neither nominated" in v.message for v in vs)


def test_preemption_respects_pdbs_when_a_clean_choice_existed() -> None:
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": "keep-db", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "db"}}, "minAvailable": 1},
           "status": {"disruptionsAllowed": 0}}
    docs = [node("n1", cpu="2"), node("n2", cpu="2"),
            pod("db", cpu="2", node="n1", priority=1, labels={"app": "db"}),
            pod("cache", cpu="2", node="n2", priority=1, labels={"app": "cache"}),
            pod("hp", cpu="2", priority=100), pdb]
    v = one(pre(docs, [unschedulable("hp", "n1", ["db"])]))
    assert "default/keep-db" in v.message and "allows 0" in v.message and "n2" in v.message
    assert pre(docs, [unschedulable("hp", "n2", ["cache"])]) == []
    # When every choice violates a PDB, any may be taken.
    both = docs[:3] + [pod("cache", cpu="2", node="n2", priority=1, labels={"app": "db"}),
                       docs[4], pdb]
    assert pre(both, [unschedulable("hp", "n1", ["db"])]) == []


def test_preemption_reference_run_is_accepted() -> None:
    ctx = reference(preemption_cluster())
    hp = next(a for a in ctx.attempts if a["pod"] == "default/hp")
    assert hp["victims"] == ["default/c"] and hp["nominatedNode"] == "n1"
    assert run_oracles(ctx) == []


# ----------------------------------------------------------------------------- queue_fairness

def test_queue_fairness_attempt_order_without_trace() -> None:
    docs = [node("n1"), pod("lo", priority=1), pod("hi", priority=10)]
    assert queue_fairness.check(judge(docs, [bound("hi", "n1"), bound("lo", "n1")])) == []
    v = one(queue_fairness.check(judge(docs, [bound("lo", "n1"), bound("hi", "n1")])))
    assert "priority 10" in v.message and "priority 1" in v.message
    v = one(queue_fairness.check(judge(docs, [bound("hi", "n1")])))
    assert "never got an attempt" in v.message and "default/lo" in v.message


def rec(t: float, op: str, p: str, **more: Any) -> dict:
    return {"time": t, "op": op, "pod": f"default/{p}", **more}


def fairness_with(trace: list[dict], docs: list[dict] | None = None,
                  cfg: dict | None = None, **extra: Any) -> list[Violation]:
    docs = docs or [node("n1"), pod("a", priority=1), pod("b", priority=10),
                    pod("c", priority=1)]
    return queue_fairness.check(judge(docs, [], cfg, trace=trace, **extra))


def test_queue_fairness_trace_priority_and_fifo() -> None:
    adds = [rec(0, "add", "a", to="activeQ"), rec(0, "add", "b", to="activeQ")]
    assert fairness_with(adds + [rec(0, "pop", "b", **{"from": "activeQ"}),
                                 rec(0, "pop", "a", **{"from": "activeQ"})]) == []
    v = one(fairness_with(adds + [rec(0, "pop", "a", **{"from": "activeQ"}),
                                  rec(0, "pop", "b", **{"from": "activeQ"})]))
    assert "priority 1" in v.message and "priority 10" in v.message
    fifo = [rec(0, "add", "a", to="activeQ"), rec(2, "add", "c", to="activeQ"),
            rec(3, "pop", "c", **{"from": "activeQ"}), rec(3, "pop", "a", **{"from": "activeQ"})]
    v = one(fairness_with(fifo))
    assert "queued at 2s" in v.message and "queued at 0s" in v.message


def test_queue_fairness_trace_backoff_bounds() -> None:
    base = [rec(0, "add", "a", to="activeQ"), rec(0, "pop", "a", **{"from": "activeQ"}),
            rec(5, "requeue", "a", to="backoffQ", event="ScheduleAttemptFailure")]
    ok = base + [rec(6, "flush", "a", to="activeQ", event="BackoffComplete"),
                 rec(6, "pop", "a", **{"from": "activeQ"})]
    assert fairness_with(ok) == []
    early = base + [rec(5.5, "flush", "a", to="activeQ", event="BackoffComplete"),
                    rec(5.5, "pop", "a", **{"from": "activeQ"})]
    v = one(fairness_with(early))
    assert "5.5s" in v.message and "not before 6s" in v.message
    stuck = base + [rec(17, "add", "b", to="activeQ"), rec(17, "pop", "b", **{"from": "activeQ"})]
    v = one(fairness_with(stuck, stoppedBy="until"))
    assert "still in backoffQ" in v.message and "10" in v.message
    # A configured maximum of 20s makes the same trace fine.
    assert fairness_with(stuck, cfg=config(podMaxBackoffSeconds=20), stoppedBy="until") == []


def test_queue_fairness_trace_backoffq_pop_and_starvation() -> None:
    trace = [rec(0, "add", "a", to="activeQ"), rec(0, "add", "b", to="activeQ"),
             rec(0, "pop", "b", **{"from": "activeQ"}),
             rec(0, "requeue", "b", to="backoffQ", event="ScheduleAttemptFailure"),
             rec(0, "pop", "b", **{"from": "backoffQ"})]
    vs = fairness_with(trace, stoppedBy="quiescence")
    assert any("pops default/b from backoffQ while activeQ holds default/a" in v.message
               for v in vs)
    assert any("still in activeQ" in v.message for v in vs)
    assert fairness_with(trace[:3] + [rec(0, "pop", "a", **{"from": "activeQ"})],
                         stoppedBy="quiescence") == []


def test_queue_fairness_rotation() -> None:
    n = 200
    docs = [node(f"n{i:03d}") for i in range(n)] + [pod("p1"), pod("p2")]

    def expl(examined: range) -> dict:
        names = {f"n{i % n:03d}" for i in examined}
        return {"evaluatedNodes": 100, "nodes": [
            {"name": f"n{i:03d}", "examined": f"n{i:03d}" in names, "feasible": True,
             "filters": []} for i in range(n)]}

    attempts = [bound("p1", "n000"), bound("p2", "n100")]
    good = {"default/p1": expl(range(0, 100)), "default/p2": expl(range(100, 200))}
    assert queue_fairness.check(judge(docs, attempts, explanations=good)) == []
    bad = {"default/p1": expl(range(0, 100)), "default/p2": expl(range(0, 100))}
    v = one(queue_fairness.check(judge(docs, attempts, explanations=bad)))
    assert "outside the window of 100 node(s) starting at position 100" in v.message


def test_node_tree_order_interleaves_zones() -> None:
    from oracles.queue_fairness import node_tree_order
    from reference_impl.model.loader import load_documents

    docs = [node("a1", labels={ZONE: "a"}), node("a2", labels={ZONE: "a"}),
            node("b1", labels={ZONE: "b"}), node("a3", labels={ZONE: "a"}),
            node("c1", labels={ZONE: "c"})]
    nodes = load_documents(docs).cluster.nodes
    assert node_tree_order(nodes) == ["a1", "b1", "c1", "a2", "a3"]


# ----------------------------------------------------------------------------- consistency / replay

def test_consistency_catches_double_binds_and_wrong_documents() -> None:
    docs = [node("n1"), node("n2"), pod("p")]
    v = one(consistency_oracle.check(judge(docs, [bound("p", "n1"), bound("p", "n2")])))
    assert "already bound to n1" in v.message
    ctx = judge(docs, [bound("p", "n1")])
    ctx.result["bindings"] = {"default/p": "n2"}
    assert "n2 instead of n1" in one(consistency_oracle.check(ctx)).message


def test_replay_interleaves_timeline_events() -> None:
    timeline = {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": [
        {"at": "5s", "action": "createNode",
         "node": {"metadata": {"name": "n2", "labels": {"kubernetes.io/hostname": "n2"}},
                  "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}},
        {"at": "8s", "action": "taintNode", "node": "n2", "taints": [TAINT]}]}}
    docs = [node("n1", cpu="1"), pod("p", cpu="2"), timeline]
    ok = [unschedulable("p", time=0.0), bound("p", "n2", time=5.0)]
    assert run_oracles(judge(docs, ok)) == []
    too_early = [bound("p", "n2", time=1.0)]
    assert "not a node" in one(filters_honoured.check(judge(docs, too_early))).message
    too_late = [bound("p", "n2", time=9.0)]
    assert "dedicated=gpu:NoSchedule" in one(filters_honoured.check(judge(docs, too_late))).message
    missed = [unschedulable("p", time=6.0)]
    assert one(no_false_unschedulable.check(judge(docs, missed))).node == "n2"


def test_gated_verdicts_may_precede_the_events_of_the_same_instant() -> None:
    # The simulation adds pending pods to the queue (PreEnqueue: Gated) before applying the
    # events due at the same time, here the removal of the gates.
    timeline = {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": [
        {"at": 0, "action": "removeSchedulingGates", "pod": "p"}]}}
    docs = [node("n1"), pod("p", schedulingGates=[{"name": "wait"}]), timeline]
    ok = [dict(gated("p"), time=0.0), bound("p", "n1", time=0.0)]
    assert run_oracles(judge(docs, ok)) == []
    late = [dict(gated("p"), time=3.0)]
    assert "no scheduling gates" in one(no_false_unschedulable.check(judge(docs, late))).message


def test_replay_clears_lower_priority_nominations_after_preemption() -> None:
    docs = [node("n1", cpu="4"), pod("low", cpu="4", node="n1", priority=1),
            pod("mid", cpu="3", priority=50), pod("hp", cpu="3", priority=100)]
    attempts = [unschedulable("mid", nominated="n1"), unschedulable("hp", "n1", ["low"])]
    final = Replay.of(judge(docs, attempts)).run()
    assert final.nominated == {"default/hp": "n1"}


# ----------------------------------------------------------------------------- the reference

REFERENCE_SCENARIOS: dict[str, list[dict]] = {
    "resources": [node("n1", cpu="2"), node("n2", cpu="4"), pod("run", cpu="1", node="n2"),
                  pod("p1", cpu="1"), pod("p2", cpu="2"), pod("p3", cpu="3"),
                  pod("p4", cpu="1", initContainers=[{"name": "i", "resources": {
                      "requests": {"cpu": "2"}}}])],
    "taints-and-affinity": [
        node("n1", taints=[TAINT], labels={"disk": "ssd"}), node("n2", labels={"disk": "hdd"}),
        node("n3", unschedulable=True, labels={"disk": "ssd"}),
        pod("p1", nodeSelector={"disk": "ssd"}),
        pod("p2", nodeSelector={"disk": "ssd"}, tolerations=[{"key": "dedicated",
                                                              "operator": "Exists"}]),
        pod("p3", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "disk", "operator": "NotIn", "values": ["ssd"]}]}]}}})],
    "spread-and-pod-affinity": [
        node("a1", labels={ZONE: "a"}), node("a2", labels={ZONE: "a"}),
        node("b1", labels={ZONE: "b"}),
        pod("db", node="a1", labels={"app": "db"}),
        *[pod(f"w{i}", cpu="100m", labels={"app": "web"}, topologySpreadConstraints=spread(),
              affinity=anti({"app": "web"})) for i in range(4)],
        pod("near-db", cpu="100m", affinity={"podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": ZONE}]}})],
    "ports": [node("n1"), node("n2"),
              *[pod(f"p{i}", cpu="100m", ports=[{"containerPort": 80, "hostPort": 8080}])
                for i in range(3)]],
    "preemption": [node("n1", cpu="2"), node("n2", cpu="2"),
                   pod("l1", cpu="2", node="n1", priority=1),
                   pod("l2", cpu="1", node="n2", priority=5),
                   pod("l3", cpu="1", node="n2", priority=5),
                   pod("h1", cpu="2", priority=100), pod("h2", cpu="2", priority=100)],
}


@pytest.mark.parametrize("name", sorted(REFERENCE_SCENARIOS))
def test_reference_results_have_no_violations(name: str) -> None:
    ctx = reference(REFERENCE_SCENARIOS[name])
    assert any(a["outcome"] == "Bound" or a["victims"] for a in ctx.attempts)
    for oracle, check in ALL_ORACLES.items():
        assert check(ctx) == [], oracle


def test_reference_timeline_run_with_trace_has_no_violations() -> None:
    timeline = {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": [
        {"at": "3s", "action": "createNode",
         "node": {"metadata": {"name": "n2"},
                  "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}},
        {"at": "20s", "action": "deletePod", "pod": "run"}]}}
    docs = [node("n1", cpu="2"), pod("run", cpu="2", node="n1"),
            pod("a", cpu="2", priority=1), pod("b", cpu="2", priority=5),
            pod("c", cpu="3"), pod("vip", cpu="4", priority=1000), timeline]
    ctx = reference(docs)
    assert ctx.trace and any(r["op"] == "pop" for r in ctx.trace)
    assert any(a.get("time", 0) > 0 for a in ctx.attempts)
    assert any(a["victims"] for a in ctx.attempts)
    assert run_oracles(ctx) == []


def test_reference_with_explanations_satisfies_score_optimality() -> None:
    from conformance.core.documents import explanation_doc
    from reference_impl.model.loader import load_documents
    from reference_impl.scheduler.explain import explain
    from reference_impl.scheduler.scheduler import Scheduler

    docs = [node("n1", cpu="2"), node("n2", cpu="4"), node("n3", cpu="8"),
            pod("run", cpu="1", node="n2"), pod("p", cpu="1")]
    cluster = load_documents(docs).cluster
    expl = explanation_doc(explain(Scheduler(cluster), cluster.pods[-1]))
    ctx = reference(docs)
    ctx.explanations = {"default/p": expl}
    assert expl["selected"] == ctx.result["bindings"]["default/p"]
    assert score_optimality.check(ctx) == []


# ----------------------------------------------------------------------------- tie_uniformity

def test_chi_square_numbers() -> None:
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, abs=1e-9)
    assert chi2_critical(0.001, 1) == pytest.approx(10.827566, abs=1e-5)
    assert chi2_critical(0.05, 3) == pytest.approx(7.814728, abs=1e-5)
    assert chi2_sf(20.0, 10) == pytest.approx(0.029252688, abs=1e-8)


def test_required_runs_reaches_the_power() -> None:
    for k in (2, 3, 5):
        n = required_runs(k, alpha=0.001, bias=0.10, power=0.95)
        assert power_of(n, k, 0.001, 0.10) >= 0.95 > power_of(n - 1, k, 0.001, 0.10)
    # k=2: noncentrality n*0.01 must reach about (3.29 + 1.645)^2 = 24.4
    assert 2300 < required_runs(2) < 2600


def test_tie_uniformity_detects_bias_and_accepts_uniform() -> None:
    cands = ["n1", "n2", "n3"]
    need = required_runs(3)
    rng = random.Random(7)
    fair = TieChoices("default/p", cands, [rng.choice(cands) for _ in range(need)])
    assert check_choices(fair) == []
    weights = [1.1 / 3, (1 - 1.1 / 3) / 2, (1 - 1.1 / 3) / 2]
    skew = TieChoices("default/p", cands, rng.choices(cands, weights, k=2 * need))
    v = one(check_choices(skew))
    assert "chi-square" in v.message and "p = " in v.message
    with pytest.raises(ValueError, match="need"):
        check_choices(TieChoices("default/p", cands, cands * 10))
    outside = TieChoices("default/p", cands, ["n1", "n9"] * 5)
    assert "outside the tie set" in check_choices(outside, "deterministic")[0].message


def test_tie_uniformity_deterministic_expectation() -> None:
    same = TieChoices("default/p", ["n1", "n2"], ["n1"] * 10)
    assert check_choices(same, "deterministic") == []
    mixed = TieChoices("default/p", ["n1", "n2"], ["n1"] * 6 + ["n2"] * 4)
    assert "n1 6x" in one(check_choices(mixed, "deterministic")).message


TIE_DOCS = [node("n1"), node("n2"), node("n3"), pod("p")]


def test_reference_breaks_ties_deterministically() -> None:
    sc = ScenarioInput(TIE_DOCS, None, 0, "tie")
    subject = ReferenceSubject()
    assert tie_uniformity(subject, sc, "default/p", "deterministic", runs=8) == []
    assert tie_uniformity(subject, sc, "default/p", "deterministic", runs=8,
                          vary="names") == []


class RandomTieSubject(Subject):
    """Binds the one pod to a random node (weighted), claiming all nodes tie."""

    name = "random-tie"

    def __init__(self, weights: Sequence[float] = (1, 1, 1)) -> None:
        self.weights = list(weights)

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        names = [d["metadata"]["name"] for d in scenario.documents if d["kind"] == "Node"]
        chosen = random.Random(scenario.seed).choices(names, self.weights)[0]
        doc = {"attempts": [bound("p", chosen, names)], "bindings": {"default/p": chosen},
               "pending": []}
        return SubjectResult(doc)


def test_tie_uniformity_with_random_subjects() -> None:
    sc = ScenarioInput(TIE_DOCS, None, 0, "tie")
    assert tie_uniformity(RandomTieSubject(), sc, "default/p", "uniform") == []
    assert tie_uniformity(RandomTieSubject(), sc, "default/p", "deterministic", runs=30) != []
    biased = RandomTieSubject([1.6, 1, 1])
    assert "not uniform" in one(tie_uniformity(biased, sc, "default/p", "uniform")).message


# ----------------------------------------------------------------------------- determinism

class FlakySubject(Subject):
    """The reference, except that every other run binds differently."""

    name = "flaky"

    def __init__(self) -> None:
        self.calls = 0
        self.inner = ReferenceSubject()

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        self.calls += 1
        res = self.inner.run(scenario)
        if self.calls % 2 == 0:
            for a in res.result["attempts"]:
                if a["outcome"] == "Bound":
                    a["node"] = a["candidates"][-1] = "n3"
        return res


class LexSubject(Subject):
    """Binds every pending pod to the alphabetically first node, as its only candidate."""

    name = "lex"

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        nodes = sorted(d["metadata"]["name"] for d in scenario.documents if d["kind"] == "Node")
        pods = [f"default/{d['metadata']['name']}" for d in scenario.documents
                if d["kind"] == "Pod" and not d["spec"].get("nodeName")]
        attempts = [{"pod": p, "outcome": "Bound", "node": nodes[0], "reasons": {},
                     "candidates": [nodes[0]], "victims": []} for p in pods]
        return SubjectResult({"attempts": attempts, "bindings": {p: nodes[0] for p in pods},
                              "pending": []})


META_DOCS = [node("n1", cpu="2"), node("n2", cpu="8"), node("n3", cpu="4"),
             pod("run", cpu="1", node="n3"), pod("p1", cpu="1"), pod("p2", cpu="2"),
             pod("p3", cpu="1")]


def test_determinism() -> None:
    sc = ScenarioInput(META_DOCS, None, 3, "meta")
    assert determinism(ReferenceSubject(), sc) == []
    v = one(determinism(FlakySubject(), sc))
    assert "seed 3 differ at .attempts[0].candidates" in v.message or "differ" in v.message


def test_metamorphic_relations_hold_for_the_reference() -> None:
    sc = ScenarioInput(META_DOCS, None, 0, "meta")
    subject = ReferenceSubject()
    assert rename_relation(subject, sc) == []
    for seed in range(3):
        assert permute_relation(subject, sc, seed) == []
    assert unfit_node_relation(subject, sc) == []


def test_rename_relation_catches_a_name_dependent_subject() -> None:
    sc = ScenarioInput(META_DOCS, None, 0, "meta")
    vs = [v for seed in range(5) for v in rename_relation(LexSubject(), sc, seed)]
    assert vs and "not a tie-break" in vs[0].message


def test_relations_refuse_scenarios_they_do_not_apply_to() -> None:
    big = ScenarioInput([node(f"n{i}") for i in range(100)] + [pod("p")], None, 0, "big")
    with pytest.raises(NotApplicable, match="100 nodes"):
        permute_relation(ReferenceSubject(), big)
    images = [dict(node("n1"), status={"allocatable": {"cpu": "1", "memory": "1Gi",
                                                        "pods": "10"},
                                       "images": [{"names": ["x"], "sizeBytes": 1000}]}),
              pod("p")]
    with pytest.raises(NotApplicable, match="ImageLocality"):
        unfit_node_relation(ReferenceSubject(), ScenarioInput(images, None, 0, "img"))


def test_compare_up_to_ties() -> None:
    a = {"attempts": [bound("p1", "n1", ["n1", "n2"]), bound("p2", "n2")],
         "bindings": {"default/p1": "n1", "default/p2": "n2"}, "pending": []}
    assert compare_up_to_ties(a, a) == []
    tie = {"attempts": [bound("p1", "n2", ["n1", "n2"]), bound("p2", "n1")],
           "bindings": {}, "pending": []}
    assert compare_up_to_ties(a, tie) == []
    not_tie = {"attempts": [bound("p1", "n3", ["n3"])], "bindings": {}, "pending": []}
    assert "not a tie-break" in one(compare_up_to_ties(a, not_tie)).message
    other = {"attempts": [unschedulable("p1")], "bindings": {}, "pending": []}
    assert "Unschedulable" in one(compare_up_to_ties(a, other)).message


def test_transforms() -> None:
    sc = ScenarioInput([node("n1"), node("n2"), pod("p", node="n1", affinity={
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]}}})],
        None, 0, "t")
    r = rename_nodes(sc, {"n1": "x1", "n2": "x2"})
    assert [d["metadata"]["name"] for d in r.documents[:2]] == ["x1", "x2"]
    p = r.documents[2]["spec"]
    assert p["nodeName"] == "x1"
    assert p["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"][0]["matchFields"][0]["values"] == ["x2"]
    assert sc.documents[0]["metadata"]["name"] == "n1"  # the original is untouched
    perm = permute_nodes(sc, seed=1)
    assert sorted(d["metadata"]["name"] for d in perm.documents[:2]) == ["n1", "n2"]
    plus = add_unfit_node(sc)
    assert [d["kind"] for d in plus.documents] == ["Node", "Node", "Node", "Pod"]
