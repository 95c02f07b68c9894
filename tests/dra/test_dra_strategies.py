"""The DRA strategies (``strategies/dra.py``, feature ``dra``): what they generate passes the
API server's rules for resource.k8s.io/v1 and pods' claims (pkg/apis/resource/validation and
validatePodResourceClaims of k8s.io/kubernetes v1.37.2, as far as restated here), loads with
the reference's loader, is off by default, shrinks small, and runs on the upstream subject."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, Phase, assume, find, given, settings

from conformance.core.documents import schema
from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.plan import family_counts
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available
from reference_impl.dra.cel import compile_selector
from reference_impl.model import validation
from reference_impl.model.loader import load_documents
from reference_impl.plugins.dynamicresources import SPECIAL_CLAIM_IN_MEM_NAME
from strategies import OPT_IN_FEATURES, SMALL, scenarios, stable_draws
from strategies.dra import SELECTORS
from strategies.families import scenario_strategy
from strategies.sizes import resolve_features

Doc = dict[str, Any]

DRA_KINDS = ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate")
FAST = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
SHRINK = settings(max_examples=500, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))


def _kind(docs: list[Doc], kind: str) -> list[Doc]:
    return [d for d in docs if d.get("kind") == kind]


def _key(d: Doc) -> str:
    return f"{d['metadata'].get('namespace', 'default')}/{d['metadata']['name']}"


def _label(s: str) -> bool:
    return not validation.is_dns1123_label(s)


def _check_claim_spec(spec: Doc, classes: set[str]) -> None:
    requests = spec["devices"]["requests"]
    names = [r["name"] for r in requests]
    assert len(set(names)) == len(names) and all(map(_label, names))
    for r in requests:
        assert ("exactly" in r) != ("firstAvailable" in r)
        exacts = [r["exactly"]] if "exactly" in r else r["firstAvailable"]
        if "firstAvailable" in r:
            subs = [s["name"] for s in exacts]
            assert subs and len(set(subs)) == len(subs) and all(map(_label, subs))
        for e in exacts:
            assert e["deviceClassName"] in classes
            assert ("count" in e) == (e["allocationMode"] == "ExactCount")
            assert e.get("count", 1) >= 1
    for c in spec["devices"].get("constraints", []):
        assert "/" in c["matchAttribute"]  # fully qualified
        assert set(c.get("requests", [])) <= set(names)


def _check_slices(slices: list[Doc]) -> None:
    names = [s["metadata"]["name"] for s in slices]
    assert len(set(names)) == len(names)
    pools: dict[tuple[str, str], list[Doc]] = {}
    for s in slices:
        spec = s["spec"]
        assert sum(k in spec for k in ("nodeName", "nodeSelector", "allNodes")) == 1
        assert not ("devices" in spec and "sharedCounters" in spec)
        pools.setdefault((spec["driver"], spec["pool"]["name"]), []).append(s)
    for pool in pools.values():
        assert {s["spec"]["pool"]["resourceSliceCount"] for s in pool} == {len(pool)}
        assert len({s["spec"]["pool"]["generation"] for s in pool}) == 1
        counters = {c["name"]: c["counters"] for s in pool
                    for c in s["spec"].get("sharedCounters", [])}
        devices = [d["name"] for s in pool for d in s["spec"].get("devices", [])]
        assert len(set(devices)) == len(devices) and all(map(_label, devices))
        for s in pool:
            for d in s["spec"].get("devices", []):
                for use in d.get("consumesCounters", []):
                    assert set(use["counters"]) <= set(counters[use["counterSet"]])


def check_dra_documents(docs: list[Doc]) -> None:
    """The API server's rules restated for the DRA documents and the pods' claims."""
    classes = {d["metadata"]["name"] for d in _kind(docs, "DeviceClass")}
    claims = {_key(d) for d in _kind(docs, "ResourceClaim")}
    templates = {_key(d) for d in _kind(docs, "ResourceClaimTemplate")}
    for d in _kind(docs, "ResourceClaim"):
        _check_claim_spec(d["spec"], classes)
    for d in _kind(docs, "ResourceClaimTemplate"):
        _check_claim_spec(d["spec"]["spec"], classes)
    _check_slices(_kind(docs, "ResourceSlice"))
    for p in _kind(docs, "Pod"):
        entries = p["spec"].get("resourceClaims", [])
        names = [e["name"] for e in entries]
        assert len(set(names)) == len(names) and all(map(_label, names))
        ns = p["metadata"].get("namespace", "default")
        for e in entries:
            assert ("resourceClaimName" in e) != ("resourceClaimTemplateName" in e)
            if "resourceClaimName" in e:
                assert f"{ns}/{e['resourceClaimName']}" in claims
            else:
                assert f"{ns}/{e['resourceClaimTemplateName']}" in templates
        if p["spec"].get("nodeName"):
            assert not entries  # running pods get no claims


def test_dra_is_known_but_off_by_default() -> None:
    assert "dra" in OPT_IN_FEATURES
    assert "dra" not in resolve_features(None)
    assert "dra" in resolve_features({"dra"})


@stable_draws
@FAST
@given(scenarios(SMALL))
def test_default_generation_has_no_dra(scenario: ScenarioInput) -> None:
    assert not [d for d in scenario.documents if d.get("kind") in DRA_KINDS]
    assert not any(p["spec"].get("resourceClaims") for p in _kind(scenario.documents, "Pod"))


@stable_draws
@FAST
@given(scenarios(SMALL, features={"dra", "namespaces", "node_selector", "taints"}))
def test_generated_dra_documents_are_valid_and_load(scenario: ScenarioInput) -> None:
    check_dra_documents(scenario.documents)
    loaded = load_documents(scenario.documents)
    docs = scenario.documents
    assert len(loaded.dra.device_classes) == len(_kind(docs, "DeviceClass")) >= 1
    assert len(loaded.dra.slices) == len(_kind(docs, "ResourceSlice"))
    # the generated documents already hold one claim per pod claim naming a template (the
    # pre-pass, loader/resourceclaims.py add_template_claims), named in the pod's status and
    # owned by the pod: the loader creates none of its own
    named = {f"{d['metadata'].get('namespace', 'default')}/{d['metadata']['name']}"
             for d in _kind(docs, "ResourceClaim")}
    assert named == set(loaded.dra.claims)
    pods = _kind(docs, "Pod")
    templated = {(p["metadata"]["uid"], s["resourceClaimName"]) for p in pods
                 for pc in p["spec"].get("resourceClaims", ()) if "resourceClaimTemplateName" in pc
                 for s in p["status"]["resourceClaimStatuses"] if s["name"] == pc["name"]}
    owned = {(d["metadata"]["ownerReferences"][0]["uid"], d["metadata"]["name"])
             for d in _kind(docs, "ResourceClaim") if d["metadata"].get("ownerReferences")}
    # and the special claims of bound holders of DRA-backed extended resources
    # (strategies/dra_holders.py), which their pods' status.extendedResourceClaimStatus names
    extended = {(p["metadata"]["uid"], p["status"]["extendedResourceClaimStatus"][
        "resourceClaimName"]) for p in pods
        if "extendedResourceClaimStatus" in (p.get("status") or {})}
    assert templated | extended == owned and not templated & extended
    assert len(loaded.dra.claim_templates) == len(_kind(docs, "ResourceClaimTemplate"))


def test_every_dra_shape_is_generated() -> None:
    """Each shape the strategy promises shows up in a few hundred draws."""
    seen: Counter[str] = Counter()

    @stable_draws
    @settings(max_examples=200, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(scenarios(SMALL, features={"dra"}))
    def collect(scenario: ScenarioInput) -> None:
        text = json.dumps(scenario.documents)
        for shape in ("sharedCounters", "consumesCounters", "allNodes", "nodeSelector",
                      "firstAvailable", '"All"', "matchAttribute", '"selectors"',
                      "resourceClaimName", "resourceClaimTemplateName"):
            if shape in text:
                seen[shape] += 1
        for p in _kind(scenario.documents, "Pod"):
            refs = [e.get("resourceClaimName") for e in p["spec"].get("resourceClaims", [])]
            seen.update(f"claim:{_key(p).split('/')[0]}/{r}" for r in refs if r)

    collect()
    shapes = {k for k in seen if not k.startswith("claim:")}
    assert shapes == {"sharedCounters", "consumesCounters", "allNodes", "nodeSelector",
                      "firstAvailable", '"All"', "matchAttribute", '"selectors"',
                      "resourceClaimName", "resourceClaimTemplateName"}


#: calls of the CEL libraries in strategies/dra.py's selectors
LIBRARY_CALLS = ("cel.bind(", "sets.contains(", "lists.range(", "findAll(", "charAt(",
                 "quantity(", "cidr(", ".exists(k, v,", "url(", ".?partition")


def test_drawn_selectors_use_the_cel_libraries() -> None:
    """Request selectors that use the libraries of the CEL environment (cel.bind, strings,
    lists, sets, regex, comprehensions, quantity, IP/CIDR, URL, optionals) are among those
    drawn, and all compile in the reference."""
    for selectors in SELECTORS.values():
        for e in selectors:
            compile_selector(e)
    seen: Counter[str] = Counter()

    @stable_draws
    @settings(max_examples=200, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(scenarios(SMALL, features={"dra"}))
    def collect(scenario: ScenarioInput) -> None:
        text = json.dumps(scenario.documents)
        seen.update(f for f in LIBRARY_CALLS if f in text)

    collect()
    text = json.dumps(SELECTORS)
    assert all(f in text for f in LIBRARY_CALLS)
    # drawn by sampled() like the others (which of them 200 draws show depends on Hypothesis'
    # seed, derived from the test function)
    assert len(seen) >= len(LIBRARY_CALLS) // 2, seen


def test_minimal_dra_scenario_is_one_pod_one_claim() -> None:
    s = find(scenarios(features={"dra"}),
             lambda s: any(p["spec"].get("resourceClaims") for p in _kind(s.documents, "Pod")),
             settings=SHRINK)
    assert len(_kind(s.documents, "Pod")) == 1 and len(_kind(s.documents, "Node")) == 1
    assert [d["metadata"]["name"] for d in _kind(s.documents, "DeviceClass")] == [
        "gpu.example.com"]
    (entry,) = _kind(s.documents, "Pod")[0]["spec"]["resourceClaims"]
    (claim,) = _kind(s.documents, "ResourceClaim")
    assert entry == {"name": "dev-0", "resourceClaimName": claim["metadata"]["name"]}
    assert claim["spec"] == {"devices": {"requests": [{"name": "req-0", "exactly": {
        "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}}]}}
    assert not _kind(s.documents, "ResourceClaimTemplate")


# ------------------------------------------------------------------ on the upstream subject

needs_upstream = pytest.mark.skipif(
    not binary_available(),
    reason="upstream subject not built: run upstream/build.sh (needs Go and the module proxy)")


@pytest.fixture(scope="module")
def upstream() -> Iterator[UpstreamSubject]:
    subject = UpstreamSubject()
    yield subject
    subject.close()


def _lists_a_claim_twice(pod: dict) -> bool:
    names = [e.get("resourceClaimName") for e in pod["spec"].get("resourceClaims", [])
             if e.get("resourceClaimName")]
    return len(names) != len(set(names))


@needs_upstream
@stable_draws
@settings(max_examples=15, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(scenarios(SMALL, features={"dra", "namespaces"}))
def test_upstream_runs_generated_dra_scenarios(upstream: UpstreamSubject,
                                               scenario: ScenarioInput) -> None:
    first = upstream.run(scenario)
    # the upstream deviation upstream-dra-extended-resource-empty-mappings: a pod that never
    # binds, retried until the subject's wall-clock limit, so two runs differ in length
    assume(not any("nil or empty request mappings" in (a["message"] or "")
                   for a in first.result["attempts"]))
    again = upstream.run(scenario)
    assert json.dumps(first.result, sort_keys=True) == json.dumps(again.result, sort_keys=True)
    res = first.result
    jsonschema.validate(res, schema("SimulationResult"))
    assert not any("resource.k8s.io" in w for w in first.warnings), first.warnings
    pods = {_key(p): p for p in _kind(scenario.documents, "Pod")}
    # an Error only where upstream's allocator itself errors (e.g. allocationMode All with a
    # device a constraint rejects: "cannot add device ... claim constraint would not be
    # satisfied"), or PreBind's for a pod listing one claim twice (the catalogued deviation
    # upstream-dra-claim-listed-twice), never one of the driver's
    assert all(a["outcome"] != "Error" or a["message"].startswith(
        'running "DynamicResources" filter plugin: ') or (
        _lists_a_claim_twice(pods[a["pod"]])
        and a["message"].endswith("got allocated elsewhere in the meantime"))
        for a in res["attempts"]), res["attempts"]
    with_claims = {k for k, p in pods.items() if p["spec"].get("resourceClaims")}
    extended = {k for k, v in res.get("resourceClaims", {}).items()
                if v and v[-1]["name"] == SPECIAL_CLAIM_IN_MEM_NAME}
    assert set(res.get("resourceClaims", {})) == (with_claims & set(res["bindings"])) | extended
    for key, entries in res.get("resourceClaims", {}).items():
        assert [e["name"] for e in entries if e["name"] != SPECIAL_CLAIM_IN_MEM_NAME] == [
            e["name"] for e in pods[key]["spec"].get("resourceClaims", [])]
        assert all(e["allocation"] is not None for e in entries)


def test_the_dra_family_of_the_differential_generates_dra_scenarios() -> None:
    """``kschedconf diff --sizes dra=N``: small scenarios with the opt-in ``dra`` feature; many
    hold ResourceSlices and pods with claims (.ci/run compares them with upstream)."""
    assert family_counts(0, {"small": 200, "dra": 50}) == {"small": 200, "dra": 50}
    with_dra = []

    @stable_draws
    @settings(max_examples=30, deadline=None, database=None, phases=[Phase.generate],
              derandomize=True, suppress_health_check=list(HealthCheck))
    @given(scenario_strategy("dra"))
    def collect(scenario: ScenarioInput) -> None:
        pods = _kind(scenario.documents, "Pod")
        with_dra.append(bool(_kind(scenario.documents, "ResourceSlice"))
                        and any(p["spec"].get("resourceClaims") for p in pods))

    collect()
    assert sum(with_dra) >= len(with_dra) // 3, with_dra


@FAST
@given(scenarios(features={"dra"}))
def test_a_drawn_taint_rule_selects_drawn_devices(s: ScenarioInput) -> None:
    """strategies/dra.py taint_rules: a DeviceTaintRule selects a drawn slice's driver, and
    its pool and device when set; the loader reads it."""
    rules = _kind(s.documents, "DeviceTaintRule")
    for rule in rules:
        sel = rule["spec"]["deviceSelector"]
        assert any(sl["spec"]["driver"] == sel["driver"]
                   and sel.get("pool", sl["spec"]["pool"]["name"]) == sl["spec"]["pool"]["name"]
                   and (sel.get("device") is None
                        or sel["device"] in [d["name"] for d in sl["spec"].get("devices", [])])
                   for sl in _kind(s.documents, "ResourceSlice"))
    dra = load_documents(s.documents).dra
    assert len(dra.taint_rules if dra is not None else []) == len(rules)


@stable_draws
@settings(FAST, max_examples=60, database=None, derandomize=True)
@given(scenario_strategy("dra") | scenarios(SMALL, features={"dra", "extended_resources"}))
def test_no_generated_pod_meets_the_empty_mappings_deviation(scenario: ScenarioInput) -> None:
    """A pod with a ResourceClaim requesting the DRA-mapped extended resource, with a node
    that advertises it, fails upstream's PreBind at every retry
    (upstream-dra-extended-resource-empty-mappings): such a scenario never settles, so the
    generator never makes one (the deviation has its own scenario with a horizon)."""
    docs = scenario.documents
    mapped = {c["spec"]["extendedResourceName"] for c in _kind(docs, "DeviceClass")
              if c["spec"].get("extendedResourceName")}
    advertised = {r for n in _kind(docs, "Node")
                  for r in n.get("status", {}).get("allocatable", {})} & mapped
    for p in _kind(docs, "Pod"):
        if not p["spec"].get("resourceClaims"):
            continue
        requested = {r for c in [*p["spec"].get("initContainers", []), *p["spec"]["containers"]]
                     for r in (c.get("resources") or {}).get("requests", {})}
        assert not requested & advertised, p["metadata"]["name"]


def test_generated_scenarios_carry_device_configuration() -> None:
    """strategies/dra.py device_configs: some classes and claims of the ``dra`` family get an
    opaque config, and the reference reports it in the allocations (``resourceClaims``), so
    the differential compares it with upstream's."""
    seen: Counter[str] = Counter()

    @stable_draws
    @settings(max_examples=80, deadline=None, database=None, phases=[Phase.generate],
              derandomize=True, suppress_health_check=list(HealthCheck))
    @given(scenario_strategy("dra"))
    def collect(scenario: ScenarioInput) -> None:
        docs = scenario.documents
        seen["class"] += any(c["spec"].get("config") for c in _kind(docs, "DeviceClass"))
        seen["claim"] += any(
            (c["spec"] if c["kind"] == "ResourceClaim" else c["spec"]["spec"])["devices"].get(
                "config") for c in _kind(docs, "ResourceClaim") + _kind(
                docs, "ResourceClaimTemplate"))
        claims = ReferenceSubject().run(scenario).result.get("resourceClaims", {})
        seen["reported"] += any((e["allocation"] or {}).get("config")
                                for entries in claims.values() for e in entries)

    collect()
    assert min(seen["class"], seen["claim"], seen["reported"]) > 0, seen
