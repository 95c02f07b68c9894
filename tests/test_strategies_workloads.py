"""The generated workloads (strategies/workloads.py): workload documents whose pods are in the
scenario as their controllers would create them, so that every subject and every replay of a
counterexample sees the same pods; the feature switches them off; they shrink to one workload
with one replica and a bare template."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, Phase, find, given, settings

from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from reference_impl.model.loader import load_documents
from reference_impl.model.workloads import expand_workloads
from strategies.families import scenario_strategy
from strategies.scenarios import scenarios
from strategies.sizes import ALL_FEATURES
from strategies.workloads import WORKLOAD_LABEL

SETTINGS = settings(max_examples=25, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))
# derandomized: the same examples on every run, so a find cannot miss under a loaded machine
FIND = settings(database=None, max_examples=300, derandomize=True)
KINDS = {"ReplicaSet", "Deployment", "StatefulSet", "Job", "DaemonSet"}  # not derived: a kind
# dropped from GENERATED_WORKLOAD_KINDS must fail test_every_kind_is_generated


def _workloads(s: ScenarioInput) -> list[dict[str, Any]]:
    return [d for d in s.documents if d.get("kind") in KINDS
            and WORKLOAD_LABEL in ((d["spec"].get("template") or {}).get("metadata") or {})
            .get("labels", {})]


def _has_workloads(s: ScenarioInput) -> bool:
    return bool(_workloads(s))


def _pods_of(s: ScenarioInput, workload: dict[str, Any]) -> list[dict[str, Any]]:
    """The pods whose controller is the workload (or, for a Deployment, its ReplicaSet)."""
    name = workload["metadata"]["name"]
    owners = {workload["metadata"]["uid"]}
    if workload["kind"] == "Deployment":
        owners |= {d["metadata"]["uid"] for d in s.documents if d.get("kind") == "ReplicaSet"
                   and any(o.get("uid") in owners
                           for o in d["metadata"].get("ownerReferences") or ())}
    # an OrderedReady StatefulSet's later replicas are created by timeline events
    triggered = [e["pod"] for d in s.documents if d.get("kind") == "Scenario"
                 for e in d["spec"]["events"] if "when" in e]
    return [d for d in [*s.documents, *triggered] if d.get("kind") == "Pod"
            and any(o.get("controller") and o.get("uid") in owners and name in o.get("name", "")
                    for o in d["metadata"].get("ownerReferences") or ())]


def _expanded_documents(s: ScenarioInput, mode: str) -> list[Any]:
    docs = [("<test>", i, d) for i, d in enumerate(s.all_documents(), start=1)
            if d.get("kind") != "Scenario"]
    return [d for _, _, d in expand_workloads(docs, mode).documents]


@SETTINGS
@given(scenario_strategy("small").filter(_has_workloads))
def test_workloads_come_with_their_pods_and_expanding_again_adds_nothing(
        s: ScenarioInput) -> None:
    """The scenario holds the workloads completed as the API server stores them (a uid) and
    their pods; `kschedconf simulate` on the file (expansion `auto`) creates no other pod, so
    a counterexample replays with the pods the subjects saw."""
    cluster = load_documents(s.documents).cluster  # every object is valid for the loader
    for w in _workloads(s):
        assert w["metadata"].get("uid"), w["metadata"]["name"]
        pods = _pods_of(s, w)
        if w["kind"] == "DaemonSet":  # a pod per accepted node, pinned to it
            for p in pods:
                terms = p["spec"]["affinity"]["nodeAffinity"][
                    "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
                assert any(f["key"] == "metadata.name" for t in terms
                           for f in t.get("matchFields") or ())
            continue
        want = w["spec"].get("replicas", w["spec"].get("parallelism"))
        if w["kind"] == "Job" and "completions" in w["spec"]:
            want = min(want, w["spec"]["completions"])
        adopted = [p for p in pods if WORKLOAD_LABEL not in p["metadata"].get("labels", {})]
        assert len(pods) - len(adopted) <= want <= len(pods) + len(adopted), (w, len(pods))
        assert all(not p["spec"].get("nodeName") for p in pods if p not in adopted)
    assert len(cluster.pods) == sum(1 for d in s.documents if d.get("kind") == "Pod"
                                    and d.get("status", {}).get("phase") not in
                                    ("Succeeded", "Failed"))
    again = _expanded_documents(s, "auto")
    assert [d for d in again if d.get("kind") == "Pod"] == \
        [d for d in s.all_documents() if d.get("kind") == "Pod"]


@SETTINGS
@given(scenario_strategy("small").filter(_has_workloads))
def test_a_counterexample_file_replays_the_same_pods(s: ScenarioInput) -> None:
    """Written and read back (what `reproduce` and `diff --replay` read), the scenario keeps
    its workload documents and the reference decides the same."""
    back = ScenarioInput.from_yaml(s.to_yaml())
    assert _workloads(back) == _workloads(s)
    subject = ReferenceSubject()
    assert subject.run(back).result == subject.run(s).result


@SETTINGS
@given(scenarios(features=ALL_FEATURES - {"workloads"}))
def test_without_the_feature_no_workload(s: ScenarioInput) -> None:
    assert not _workloads(s)
    assert not any(d.get("kind") in ("Deployment", "DaemonSet", "Job") for d in s.documents)


def test_every_kind_is_generated() -> None:
    # one pass of generation until every kind was seen with its pods (no shrinking: the
    # predicate is true only once all are seen); a DaemonSet needs room for a pod per node
    # among the pending pods, so it is the rarest
    seen: set[str] = set()

    def all_seen(s: ScenarioInput) -> bool:
        for w in _workloads(s):
            pods = _pods_of(s, w)
            if pods:
                seen.add(w["kind"])
            if w["spec"].get("podManagementPolicy") == "OrderedReady" and len(pods) > 1:
                seen.add("OrderedReady")  # later replicas created by binding-triggered events
        return seen >= KINDS | {"OrderedReady"}

    find(scenarios(features={"workloads", "timeline"}), all_seen,
         settings=settings(database=None, max_examples=3000, phases=[Phase.generate],
                           derandomize=True))
    assert seen >= KINDS | {"OrderedReady"}


def test_a_workload_shrinks_to_one_replica_of_a_bare_template() -> None:
    # a Deployment is in about one scenario in twenty: 300 examples were not always enough
    # (Hypothesis' generation also depends on how long draws take: its health-check phase)
    s = find(scenarios(features={"workloads"}),
             lambda s: any(w["kind"] == "Deployment" for w in _workloads(s)),
             settings=settings(FIND, max_examples=1000))
    assert len(_workloads(s)) <= 2
    w = next(w for w in _workloads(s) if w["kind"] == "Deployment")
    assert w["spec"]["replicas"] == 1
    assert w["spec"]["selector"] == {"matchLabels": {WORKLOAD_LABEL: w["metadata"]["name"]}}
    assert len(w["spec"]["template"]["spec"]["containers"]) == 1
    assert set(w["spec"]["template"]["spec"]) == {"containers"}
    assert len(_pods_of(s, w)) == 1
