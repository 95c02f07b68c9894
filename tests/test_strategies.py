"""The Hypothesis strategies (``strategies/``): what they generate is valid, loads, fits, stays
within its size bounds, and shrinks to small examples; the reference scheduler runs on it.

Validity rules checked here restate the API server's: apimachinery
``pkg/api/validate/content`` (names, label keys and values) and
``pkg/apis/core/validation/validation.go`` (selectors, tolerations, spread constraints).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from random import Random
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import StopTest
from hypothesis.internal.conjecture.data import ConjectureData

from conformance.core.scenario import ScenarioInput
from reference_impl.api.node_selectors import get_required_node_affinity
from reference_impl.api.tolerations import do_not_schedule_taint, find_matching_untolerated_taint
from reference_impl.config import load_config
from reference_impl.model import validation
from reference_impl.model.loader import load_documents
from reference_impl.model.quantity import parse_quantity
from reference_impl.model.scenario import parse_scenario
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.scheduler.scheduler import Scheduler
from strategies import (
    ALL_FEATURES,
    LARGE,
    RESOURCES_ONLY,
    SMALL,
    PodContext,
    Sizes,
    clusters,
    namespaces,
    nodes,
    pdbs,
    pending_pods,
    pod_requests,
    pods,
    priority_class_lists,
    quantity_values,
    scenarios,
    scheduler_configs,
    scheduler_names_of,
    timelines,
)
from strategies.objects import resolve_priority


def is_dns1123_label(s: str) -> bool:
    return not validation.is_dns1123_label(s)


def is_dns1123_subdomain(s: str) -> bool:
    return not validation.is_dns1123_subdomain(s)


def is_qualified_name(s: str) -> bool:
    return not validation.is_qualified_name(s)


def is_label_value(s: str) -> bool:
    return not validation.is_valid_label_value(s)


FAST = settings(max_examples=30, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
REGISTRY = in_tree_registry()


def _roundtrip(obj: Any) -> None:
    assert yaml.safe_load(yaml.safe_dump(obj, sort_keys=False)) == obj


def _kind(docs: list[dict], kind: str) -> list[dict]:
    return [d for d in docs if d.get("kind") == kind]


def _pod_docs(s: ScenarioInput) -> list[dict]:
    return _kind(s.documents, "Pod")


# ------------------------------------------------------------------ API validity walker

def _selector_errors(sel: Mapping[str, Any] | None, where: str) -> Iterator[str]:
    if sel is None:
        return
    for k, val in (sel.get("matchLabels") or {}).items():
        if not is_qualified_name(k) or not is_label_value(val):
            yield f"{where}: bad matchLabels {k}={val}"
    for e in sel.get("matchExpressions") or []:
        if not is_qualified_name(e["key"]):
            yield f"{where}: bad key {e['key']}"
        if e["operator"] not in ("In", "NotIn", "Exists", "DoesNotExist"):
            yield f"{where}: bad operator {e['operator']}"
        values = e.get("values") or []
        if (e["operator"] in ("In", "NotIn")) != bool(values):
            yield f"{where}: values do not fit operator {e['operator']}"
        if not all(is_label_value(x) for x in values):
            yield f"{where}: bad values {values}"


def _label_key_lists(obj: Mapping[str, Any], sel_keys: set[str], where: str) -> Iterator[str]:
    match = obj.get("matchLabelKeys") or []
    mismatch = obj.get("mismatchLabelKeys") or []
    for k in [*match, *mismatch]:
        if not is_qualified_name(k):
            yield f"{where}: bad label key {k}"
        if k in sel_keys:
            yield f"{where}: {k} both in matchLabelKeys/mismatchLabelKeys and labelSelector"
    if set(match) & set(mismatch):
        yield f"{where}: key in both matchLabelKeys and mismatchLabelKeys"
    if (match or mismatch) and obj.get("labelSelector") is None:
        yield f"{where}: matchLabelKeys without labelSelector"


def _keys_of(sel: Mapping[str, Any] | None) -> set[str]:
    if not sel:
        return set()
    return set(sel.get("matchLabels") or {}) | {e["key"] for e in sel.get("matchExpressions") or []}


def _node_term_errors(term: Mapping[str, Any], where: str) -> Iterator[str]:
    # ValidateNodeSelectorTerm (pkg/apis/core/validation/validation.go) accepts an empty term
    # (it matches no node); only each requirement is checked
    for r in term.get("matchExpressions") or []:
        if not is_qualified_name(r["key"]):
            yield f"{where}: bad key {r['key']}"
        values = r.get("values") or []
        if r["operator"] in ("In", "NotIn") and not values:
            yield f"{where}: In/NotIn without values"
        if r["operator"] in ("Gt", "Lt") and (len(values) != 1 or not values[0].isdigit()):
            yield f"{where}: Gt/Lt needs one integer"
        if r["operator"] in ("In", "NotIn") and not all(is_label_value(x) for x in values):
            yield f"{where}: bad values {values}"
    for r in term.get("matchFields") or []:
        if r["key"] != "metadata.name" or len(r.get("values") or []) != 1:
            yield f"{where}: bad matchFields {r}"


def _pod_affinity_errors(aff: Mapping[str, Any] | None, where: str) -> Iterator[str]:
    for i, t in enumerate((aff or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
                          or []):
        yield from _pod_term_errors(t, f"{where}.required[{i}]")
    for i, w in enumerate((aff or {}).get("preferredDuringSchedulingIgnoredDuringExecution")
                          or []):
        if not 1 <= w["weight"] <= 100:
            yield f"{where}: weight {w['weight']}"
        yield from _pod_term_errors(w["podAffinityTerm"], f"{where}.preferred[{i}]")


def _pod_term_errors(t: Mapping[str, Any], where: str) -> Iterator[str]:
    if not is_qualified_name(t.get("topologyKey", "")):
        yield f"{where}: bad topologyKey"
    yield from _selector_errors(t.get("labelSelector"), where)
    yield from _selector_errors(t.get("namespaceSelector"), where)
    for ns in t.get("namespaces") or []:
        if not is_dns1123_label(ns):
            yield f"{where}: bad namespace {ns}"
    yield from _label_key_lists(t, _keys_of(t.get("labelSelector")), where)


def _api_errors(doc: Mapping[str, Any]) -> Iterator[str]:
    """Violations of the API's validation rules the generators must respect."""
    kind = doc["kind"]
    meta = doc["metadata"]
    name = meta["name"]
    where = f"{kind} {name}"
    if kind == "Namespace":
        if not is_dns1123_label(name):
            yield f"{where}: name"
    elif not is_dns1123_subdomain(name):
        yield f"{where}: name"
    if "namespace" in meta and not is_dns1123_label(meta["namespace"]):
        yield f"{where}: namespace"
    for k, val in (meta.get("labels") or {}).items():
        if not is_qualified_name(k) or not is_label_value(val):
            yield f"{where}: label {k}={val}"
    if kind == "PriorityClass":
        if name.startswith("system-") or not -(10**9) <= doc["value"] <= 10**9:
            yield f"{where}: reserved name or value"
    if kind == "PodDisruptionBudget":
        spec = doc["spec"]
        if ("minAvailable" in spec) == ("maxUnavailable" in spec):
            yield f"{where}: exactly one of minAvailable / maxUnavailable"
        yield from _selector_errors(spec.get("selector"), where)
    if kind == "Node":
        seen = set()
        for t in (doc.get("spec") or {}).get("taints") or []:
            if not is_qualified_name(t["key"]) or not is_label_value(t.get("value", "")):
                yield f"{where}: taint {t}"
            if (t["key"], t["effect"]) in seen:
                yield f"{where}: duplicate taint {t}"
            seen.add((t["key"], t["effect"]))
    if kind == "Pod":
        yield from _pod_errors(doc["spec"], where)


def _pod_errors(spec: Mapping[str, Any], where: str) -> Iterator[str]:
    containers = [*spec.get("containers", []), *spec.get("initContainers", [])]
    names = [c["name"] for c in containers]
    if len(set(names)) != len(names) or not all(is_dns1123_label(n) for n in names):
        yield f"{where}: container names {names}"
    ports = Counter((p["hostPort"], p.get("protocol", "TCP")) for c in containers
                    for p in c.get("ports") or [] if p.get("hostPort"))
    if any(n > 1 for n in ports.values()):
        yield f"{where}: duplicate host ports"
    for c in containers:
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        for r, q in req.items():
            if r in lim and parse_quantity(q) > parse_quantity(lim[r]):
                yield f"{where}: {c['name']} request {r} above limit"
            if "/" in r and (r not in lim or parse_quantity(lim[r]) != parse_quantity(q)):
                yield f"{where}: extended resource request must equal its limit"
    for t in spec.get("tolerations") or []:
        if not t.get("key") and t.get("operator") != "Exists":
            yield f"{where}: toleration without key must be Exists"
        if t.get("operator") == "Exists" and t.get("value"):
            yield f"{where}: Exists with a value"
        if "tolerationSeconds" in t and t.get("effect") != "NoExecute":
            yield f"{where}: tolerationSeconds without NoExecute"
    for k, val in (spec.get("nodeSelector") or {}).items():
        if not is_qualified_name(k) or not is_label_value(val):
            yield f"{where}: nodeSelector {k}={val}"
    aff = spec.get("affinity") or {}
    na = aff.get("nodeAffinity") or {}
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        if not req["nodeSelectorTerms"]:
            yield f"{where}: no node selector terms"
        for t in req["nodeSelectorTerms"]:
            yield from _node_term_errors(t, where)
    for p in na.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
        if not 1 <= p["weight"] <= 100:
            yield f"{where}: weight"
        yield from _node_term_errors(p["preference"], where)
    yield from _pod_affinity_errors(aff.get("podAffinity"), f"{where} podAffinity")
    yield from _pod_affinity_errors(aff.get("podAntiAffinity"), f"{where} podAntiAffinity")
    pairs = set()
    for c in spec.get("topologySpreadConstraints") or []:
        if c["maxSkew"] < 1 or not is_qualified_name(c["topologyKey"]):
            yield f"{where}: spread constraint {c}"
        if "minDomains" in c and (c["minDomains"] < 1 or c["whenUnsatisfiable"] != "DoNotSchedule"):
            yield f"{where}: minDomains {c}"
        if (c["topologyKey"], c["whenUnsatisfiable"]) in pairs:
            yield f"{where}: repeated {{topologyKey, whenUnsatisfiable}}"
        pairs.add((c["topologyKey"], c["whenUnsatisfiable"]))
        yield from _selector_errors(c.get("labelSelector"), where)
        yield from _label_key_lists(c, _keys_of(c.get("labelSelector")), where)
    for g in spec.get("schedulingGates") or []:
        if not is_qualified_name(g["name"]):
            yield f"{where}: gate {g}"
    if spec.get("nodeName") and spec.get("schedulingGates"):
        yield f"{where}: a bound pod with scheduling gates"


# ------------------------------------------------------------------------------- tests

@pytest.mark.parametrize("kind", ["cpu", "memory", "count"])
def test_quantities_are_exact(kind: str) -> None:
    @FAST
    @given(quantity_values(kind))
    def check(q: Any) -> None:
        assert parse_quantity(q.raw) == q.value
        _roundtrip({"q": q.raw})
        assert q.amount >= 0

    check()


@FAST
@given(quantity_values("memory", 2**20, 2**30))
def test_quantity_bounds_hold(q: Any) -> None:
    assert 2**20 <= q.value <= 2**30


def test_byte_quantities_never_fail_a_filter() -> None:
    """Every draw of a byte quantity gives one (issue 17): the "1.5Gi" form drew integers
    and filtered them for oddness, and gave up on the whole example after three even ones."""
    s = quantity_values("memory", 2**30, 64 * 2**30)
    halves = given_up = 0
    for i in range(1500):
        data = ConjectureData(random=Random(i))
        try:
            q = data.draw(s)
        except StopTest:
            given_up += 1
            continue
        halves += ".5" in str(q.raw)
    assert halves > 0 and given_up == 0


def test_quantity_forms_cover_the_canonical_suffixes() -> None:
    """Every suffix family shows up: m, plain, decimals, Ki/Mi/Gi, k/M/G."""
    seen: set[str] = set()

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(quantity_values("cpu"), quantity_values("memory")))
    def collect(q: Any) -> None:
        raw = str(q.raw)
        for suffix in ("Ki", "Mi", "Gi", "k", "M", "G", "m"):
            if raw.endswith(suffix):
                seen.add(suffix)
        if isinstance(q.raw, int):
            seen.add("int")
        if "." in raw:
            seen.add("decimal")

    collect()
    assert {"Ki", "Mi", "Gi", "k", "M", "G", "m", "int", "decimal"} <= seen


@FAST
@given(nodes())
def test_nodes_roundtrip_load_and_validate(node: dict) -> None:
    _roundtrip(node)
    loaded = load_documents([node]).cluster.nodes[0]
    assert loaded.labels["kubernetes.io/hostname"] == node["metadata"]["name"]
    assert loaded.allocatable.allowed_pod_number > 0
    assert not list(_api_errors(node))


@FAST
@given(st.data())
def test_pods_roundtrip_load_and_validate(data: st.DataObject) -> None:
    classes = data.draw(priority_class_lists())
    ctx = PodContext(("default", "team-a"), tuple(classes), ("node-0", "node-1"))
    pod = data.draw(pods(ctx=ctx))
    ns = data.draw(namespaces("team-a"))
    _roundtrip(pod)
    assert not list(_api_errors(pod))
    loaded = load_documents([*classes, ns, pod]).cluster.pods[0]
    assert loaded.name == pod["metadata"]["name"]


@FAST
@given(priority_class_lists(), st.lists(pdbs(namespaces_=("default", "team-b")), max_size=1),
       namespaces())
def test_priority_classes_pdbs_namespaces_load(classes: list, budgets: list, ns: dict) -> None:
    docs = [*classes, *budgets, ns]
    _roundtrip(docs)
    for d in docs:
        assert not list(_api_errors(d))
    assert sum(1 for c in classes if c.get("globalDefault")) <= 1
    cluster = load_documents(docs).cluster
    assert len(cluster.priority_classes) == len(classes)
    assert len(cluster.pdbs) == len(budgets)


@FAST
@given(scheduler_configs())
def test_generated_configs_load(cfg: dict) -> None:
    _roundtrip(cfg)
    loaded = load_config(cfg, REGISTRY)
    assert [p.scheduler_name for p in loaded.profiles] == list(scheduler_names_of(cfg))


@FAST
@given(scenarios())
def test_scenarios_roundtrip_load_and_validate(s: ScenarioInput) -> None:
    text = s.to_yaml()
    assert "&id" not in text  # no YAML anchors: every object is written out
    back = ScenarioInput.from_yaml(text)
    assert back.documents == s.documents and back.config == s.config and back.seed == s.seed
    result = load_documents(s.documents)
    errors = [e for d in s.documents if d.get("kind") != "Scenario" for e in _api_errors(d)]
    assert not errors
    docs_pods = _pod_docs(s)
    assert len(result.cluster.pods) == len(docs_pods)
    assert len({(p.namespace, p.name) for p in result.cluster.pods}) == len(docs_pods)
    if s.config is not None:
        load_config(s.config, REGISTRY)


@FAST
@given(scenarios(features=ALL_FEATURES - {"timeline", "config"}))
def test_explicit_priorities_are_what_admission_computes(s: ScenarioInput) -> None:
    """plugin/pkg/admission/priority/admission.go: a pod's spec.priority and
    spec.preemptionPolicy, when given, equal what its class (or the global default) says."""
    classes = _kind(s.documents, "PriorityClass")
    loaded = {p.name: p for p in load_documents(s.documents).cluster.pods}
    for doc in _pod_docs(s):
        priority, policy = resolve_priority(doc["spec"].get("priorityClassName", ""), classes)
        assert doc["spec"].get("priority", priority) == priority
        assert doc["spec"].get("preemptionPolicy", policy) == policy
        assert loaded[doc["metadata"]["name"]].priority == priority
        assert loaded[doc["metadata"]["name"]].preemption_policy == policy


@FAST
@given(scenarios())
def test_pod_requests_agree_with_the_loader(s: ScenarioInput) -> None:
    """``strategies.pod_requests`` (what the generators place by) equals the loaded model's
    ``pod.resources.requests`` (``reference_impl/model/requests.py``). Pods with in-place resize
    status (busy clusters) count their status too: tests/test_busy_strategies.py."""
    loaded = {p.name: p for p in load_documents(s.documents).cluster.pods}
    for doc in _pod_docs(s):
        if (doc.get("status") or {}).get("containerStatuses"):
            continue
        want = pod_requests(doc)
        got = loaded[doc["metadata"]["name"]].resources.requests
        assert got.milli_cpu == want.get("cpu", 0)
        assert got.memory == want.get("memory", 0)
        assert got.ephemeral_storage == want.get("ephemeral-storage", 0)
        assert got.scalar.get("example.com/gpu", 0) == want.get("example.com/gpu", 0)


@FAST
@given(clusters())
def test_running_pods_fit_where_they_run(c: Any) -> None:
    """Checked on the loaded model: sum of requests <= allocatable for every resource and the
    pod count, taints tolerated, node selector and required node affinity hold, host ports do
    not clash."""
    cluster = load_documents(c.documents()).cluster
    by_node = {n.name: n for n in cluster.nodes}
    on: dict[str, list] = {n.name: [] for n in cluster.nodes}
    for p in cluster.running_pods:
        on[p.node_name].append(p)
        node = by_node[p.node_name]
        assert find_matching_untolerated_taint(node.taints, p.tolerations,
                                               do_not_schedule_taint) is None
        assert get_required_node_affinity(p).match(node)
    for name, placed in on.items():
        alloc = by_node[name].allocatable
        assert len(placed) <= alloc.allowed_pod_number
        assert sum(p.resources.requests.milli_cpu for p in placed) <= alloc.milli_cpu
        assert sum(p.resources.requests.memory for p in placed) <= alloc.memory
        assert (sum(p.resources.requests.ephemeral_storage for p in placed)
                <= alloc.ephemeral_storage or all(p.resources.requests.ephemeral_storage == 0
                                                  for p in placed))
        for r in {r for p in placed for r in p.resources.requests.scalar}:
            assert sum(p.resources.requests.scalar.get(r, 0) for p in placed) \
                <= alloc.scalar.get(r, 0)
        ports = [(hp.host_port, hp.protocol) for p in placed for hp in p.host_ports
                 if hp.host_port]
        assert len(ports) == len(set(ports))


@FAST
@given(clusters())
def test_running_pods_respect_required_anti_affinity(c: Any) -> None:
    """No running pod shares a topology domain with a pod its required anti-affinity selects
    (namespaces ignored: the generator is stricter than the API)."""
    from reference_impl.api.labels import compile_selector

    cluster = load_documents(c.documents()).cluster
    nodes_ = {n.name: n for n in cluster.nodes}
    running = cluster.running_pods
    for p in running:
        aa = p.affinity.pod_anti_affinity if p.affinity else None
        for term in aa.required if aa else ():
            here = nodes_[p.node_name].labels.get(term.topology_key)
            if here is None:
                continue
            sel = compile_selector(term.label_selector)
            for q in running:
                if q is p or nodes_[q.node_name].labels.get(term.topology_key) != here:
                    continue
                assert not sel.matches(q.labels), (p.name, q.name)


@FAST
@given(scenarios(SMALL))
def test_small_bounds_hold(s: ScenarioInput) -> None:
    docs = s.documents
    assert 1 <= len(_kind(docs, "Node")) <= SMALL.max_nodes
    running = [p for p in _pod_docs(s) if p["spec"].get("nodeName")]
    pending = [p for p in _pod_docs(s) if not p["spec"].get("nodeName")]
    assert len(running) <= SMALL.max_running_pods
    assert len(pending) <= SMALL.max_pending_pods
    assert len(_kind(docs, "PriorityClass")) <= SMALL.max_priority_classes
    assert len(_kind(docs, "PodDisruptionBudget")) <= SMALL.max_pdbs
    for scen in _kind(docs, "Scenario"):
        assert len(scen["spec"]["events"]) <= SMALL.max_events
    if s.config and s.config.get("profiles"):
        assert len(s.config["profiles"]) <= SMALL.max_profiles


@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios(LARGE, features=RESOURCES_ONLY))
def test_large_scenarios_have_over_100_nodes(s: ScenarioInput) -> None:
    assert 100 <= len(_kind(s.documents, "Node")) <= 150
    cluster = load_documents(s.documents).cluster
    Scheduler(cluster, seed=s.seed).run()


@FAST
@given(scenarios(features=RESOURCES_ONLY))
def test_features_limit_what_is_generated(s: ScenarioInput) -> None:
    text = yaml.safe_dump_all(s.documents)
    for field in ("taints", "tolerations", "affinity", "topologySpreadConstraints", "hostPort",
                  "schedulingGates", "priorityClassName", "initContainers", "overhead",
                  "ownerReferences", "creationTimestamp", "example.com/gpu", "unschedulable",
                  "images", "PodDisruptionBudget", "Scenario"):
        assert field not in text
    assert s.config is None


def test_unknown_feature_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown features"):
        scenarios(features={"taint"}).example()
    with pytest.raises(ValueError):
        Sizes(min_nodes=0)


# -------------------------------------------------------------------------- shrinking

SHRINK = settings(max_examples=500, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))


def test_minimal_scenario_with_a_pod_is_one_pod_on_one_node() -> None:
    s = find(scenarios(), lambda s: len(_pod_docs(s)) >= 1, settings=SHRINK)
    assert len(_pod_docs(s)) == 1
    assert len(_kind(s.documents, "Node")) == 1
    assert len(s.documents) == 2 and s.config is None and s.seed == 0
    pod = _pod_docs(s)[0]
    assert pod["spec"]["containers"] == [{"name": "c0", "image": "nginx:1.25"}]


def test_minimal_spread_constraint_scenario_is_small() -> None:
    s = find(scenarios(features={"topology_spread"}),
             lambda s: any(p["spec"].get("topologySpreadConstraints") for p in _pod_docs(s)),
             settings=SHRINK)
    assert len(_pod_docs(s)) == 1 and len(_kind(s.documents, "Node")) == 1
    (c,) = _pod_docs(s)[0]["spec"]["topologySpreadConstraints"]
    assert c["maxSkew"] == 1 and "minDomains" not in c and "matchLabelKeys" not in c


def test_minimal_running_pod_cluster() -> None:
    c = find(clusters(features=RESOURCES_ONLY), lambda c: len(c.running_pods) >= 1,
             settings=SHRINK)
    assert len(c.nodes) == 1 and len(c.running_pods) == 1
    assert c.running_pods[0]["spec"]["nodeName"] == "node-0"


def test_minimal_configs_are_tiny() -> None:
    cfg = find(scheduler_configs(), lambda c: True, settings=SHRINK)
    assert cfg == {"apiVersion": "kubescheduler.config.k8s.io/v1",
                   "kind": "KubeSchedulerConfiguration"}
    cfg = find(scheduler_configs(), lambda c: any(p.get("pluginConfig")
                                                  for p in c.get("profiles", [])),
               settings=SHRINK)
    (profile,) = cfg["profiles"]
    assert list(profile) == ["pluginConfig"] and len(profile["pluginConfig"]) == 1
    args = profile["pluginConfig"][0]["args"]
    assert "apiVersion" not in args and len(yaml.safe_dump(args).splitlines()) <= 3


# --------------------------------------------------------------- the reference runs

@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_reference_scheduler_runs_on_generated_scenarios(s: ScenarioInput) -> None:
    cluster = load_documents(s.documents).cluster
    result = Scheduler(cluster).run()
    keys = {p.key for p in cluster.pods}
    assert set(result.bindings) | set(result.pending) | set(result.deleted) == keys
    if s.config is not None:
        cluster = load_documents(s.documents).cluster
        Scheduler(cluster, load_config(s.config, REGISTRY), seed=s.seed).run()


@settings(max_examples=50, deadline=None)
@given(scenarios(SMALL, features={"taints", "tolerations", "priority_classes"}))
def test_docs_example_bound_pods_tolerate_their_node(scenario: ScenarioInput) -> None:
    """The example property of docs/strategies.md."""
    cluster = load_documents(scenario.documents).cluster
    result = Scheduler(cluster, seed=scenario.seed).run()
    nodes_ = {n.name: n for n in cluster.nodes}
    for pod in cluster.pods:
        if pod.key in result.bindings and not pod.node_name:  # bound by the scheduler
            node = nodes_[result.bindings[pod.key]]
            assert find_matching_untolerated_taint(node.taints, pod.tolerations,
                                                   do_not_schedule_taint) is None


@FAST
@given(st.data())
def test_timelines_parse_against_their_cluster(data: st.DataObject) -> None:
    c = data.draw(clusters())
    pending = data.draw(pending_pods(c))
    timeline = data.draw(timelines(c, pending))
    _roundtrip(timeline)
    result = load_documents([*c.documents(pending), timeline])
    assert result.scenario == timeline
    parsed = parse_scenario(result.scenario, result.cluster)
    assert len(parsed.events) + len(parsed.triggered) == len(timeline["spec"]["events"])
    times = [e.at for e in parsed.events]
    assert times == sorted(times)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios(features=ALL_FEATURES - {"config"}))
def test_simulation_runs_generated_timelines(s: ScenarioInput) -> None:
    from reference_impl.scheduler.simulation import run_simulation

    result = load_documents(s.documents)
    scenario = parse_scenario(result.scenario, result.cluster) if result.scenario else None
    run_simulation(Scheduler(result.cluster, seed=s.seed), scenario, until="1h")


# ----------------------------------------------------------------- shapes the mutants need

def _required_terms(pod: Mapping[str, Any]) -> list[dict]:
    na = (pod["spec"].get("affinity") or {}).get("nodeAffinity") or {}
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    return list(req.get("nodeSelectorTerms") or [])


def _ns_terms(pod: Mapping[str, Any]) -> list[dict]:
    aff = pod["spec"].get("affinity") or {}
    key = "requiredDuringSchedulingIgnoredDuringExecution"
    return [t for kind in ("podAffinity", "podAntiAffinity")
            for t in (aff.get(kind) or {}).get(key, [])]


def _sidecar_before_init(pod: Mapping[str, Any]) -> bool:
    kinds = [c.get("restartPolicy") == "Always" for c in pod["spec"].get("initContainers", [])]
    return any(kinds[i] and not later for i in range(len(kinds)) for later in kinds[i + 1:])


SHAPES = {
    # the rule each shape exposes: docs/mutants.md (the catalogue)
    "empty required node selector term": lambda p: any(
        not t.get("matchExpressions") and not t.get("matchFields") for t in _required_terms(p)),
    "required term of matchFields only": lambda p: any(
        t.get("matchFields") and not t.get("matchExpressions") for t in _required_terms(p)),
    "nodeSelector and required node affinity": lambda p: bool(
        p["spec"].get("nodeSelector") and _required_terms(p)),
    "namespaceSelector {}": lambda p: any(t.get("namespaceSelector") == {} for t in _ns_terms(p)),
    "namespaces and a namespaceSelector": lambda p: any(
        t.get("namespaces") and t.get("namespaceSelector") for t in _ns_terms(p)),
    "sidecar declared before a plain init container": _sidecar_before_init,
    "untagged image": lambda p: any(":" not in c["image"] for c in p["spec"]["containers"]),
}


FIND = settings(max_examples=400, deadline=None, database=None, phases=[Phase.generate],
                suppress_health_check=list(HealthCheck))


def test_generation_reaches_the_shapes_that_expose_planted_bugs() -> None:
    """Each input shape a catalogued mutant needs (kschedconf mutants) comes up among a few
    hundred generated pods (derandomized: the same pods every run)."""
    ctx = PodContext(("default", "team-a"), (), ("node-0", "node-1"))
    seen: set[str] = set()

    @settings(FIND, max_examples=500, derandomize=True)
    @given(pods(ctx=ctx))
    def collect(pod: dict) -> None:
        seen.update(name for name, wanted in SHAPES.items() if wanted(pod))

    collect()
    assert seen == set(SHAPES)


def _node_image_names(s: ScenarioInput) -> list[str]:
    return [n for d in _kind(s.documents, "Node")
            for im in (d.get("status") or {}).get("images", []) for n in im["names"]]


def test_untagged_images_are_listed_with_latest_on_nodes() -> None:
    """Nodes list an image a pod names without a tag as NAME:latest, as the kubelet reports it
    (ImageLocality's normalizedImageName then finds it)."""
    s = find(scenarios(features={"images"}),
             lambda s: any("ml/model" in n for n in _node_image_names(s)),
             settings=FIND)
    names = _node_image_names(s)
    assert "registry.example.com/ml/model:latest" in names
    assert all(n.rfind(":") > n.rfind("/") for n in names), names
