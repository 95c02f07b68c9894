"""The generated Services and owner objects (strategies/services.py): valid for the loader,
consistent with the pods that name them, and present often enough that the default profile's
PodTopologySpread system default constraints are exercised."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, find, given, settings

from conformance.core.scenario import ScenarioInput
from reference_impl.api.labels import compile_selector, selector_from_set
from reference_impl.model.controllers import controllers_of
from reference_impl.model.loader import load_documents
from reference_impl.plugins.helper.spread import default_selector
from strategies.families import scenario_strategy
from strategies.scenarios import scenarios
from strategies.services import OWNER_OBJECT_KINDS

SETTINGS = settings(max_examples=25, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


def _owner_ref(pod: dict[str, Any]) -> dict[str, Any] | None:
    return next((o for o in pod["metadata"].get("ownerReferences") or ()
                 if o.get("controller")), None)


@SETTINGS
@given(scenario_strategy("small"))
def test_owner_objects_match_the_pods_that_name_them(s: ScenarioInput) -> None:
    cluster = load_documents(s.documents).cluster  # the loader accepts every object
    pods = [d for d in s.documents if d.get("kind") == "Pod"]
    owners = [*cluster.replication_controllers, *cluster.replica_sets, *cluster.stateful_sets]
    for o in owners:
        owned = [p for p in pods if (ref := _owner_ref(p)) is not None
                 and ref["name"] == o.name and ref["uid"] == o.uid
                 and (p["metadata"].get("namespace") or "default") == o.namespace]
        assert owned, f"{o} owns no generated pod"
        sel = (selector_from_set(o.selector) if isinstance(o.selector, dict)
               else compile_selector(o.selector))  # type: ignore[arg-type]
        assert not sel.empty()
        assert all(sel.matches(p["metadata"].get("labels") or {}) for p in owned)
        assert (owned[0]["metadata"]["ownerReferences"][0]["apiVersion"],
                type(o).__name__) in OWNER_OBJECT_KINDS
    pod_namespaces = {p["metadata"].get("namespace") or "default" for p in pods}
    assert {svc.namespace for svc in cluster.services} <= pod_namespaces


def _exercises_default_constraints(s: ScenarioInput) -> bool:
    cluster = load_documents(s.documents).cluster
    listers = controllers_of(cluster)
    return any(not p.topology_spread_constraints and not default_selector(p, listers).empty()
               for p in cluster.pending_pods)


def test_generated_scenarios_exercise_the_default_selector() -> None:
    """Some scenario has a pending pod without constraints of its own that a Service or its
    owner object gives a non-empty default selector, and some has a Service without selector."""
    find(scenario_strategy("small"), _exercises_default_constraints,
         settings=settings(database=None, max_examples=200))
    find(scenario_strategy("small"),
         lambda s: any(d.get("kind") == "Service" and "selector" not in d["spec"]
                       for d in s.documents),
         settings=settings(database=None, max_examples=200))


@SETTINGS
@given(scenarios(features={"owner_references", "namespaces"}))
def test_without_the_feature_no_service_or_owner_object(s: ScenarioInput) -> None:
    kinds = {d.get("kind") for d in s.documents}
    assert not kinds & {"Service", "ReplicationController", "ReplicaSet", "StatefulSet"}
