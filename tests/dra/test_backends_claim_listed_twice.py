"""The backends refuse a scenario whose pod names one ResourceClaim in two entries of
``spec.resourceClaims`` (conformance/backends/refusals.py): on a real API server kube-scheduler
never binds such a pod (every PreBind fails with ``status.reservedFor: Duplicate value``,
docs/upstream-deviations.md#upstream-dra-claim-listed-twice), so the scenario would never settle.
The refusal is a ScenarioUnsupported from the planner, before anything is created. Pods the
scheduler does not schedule (bound ones, another scheduler's) are not refused."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from conformance.core.subject import ScenarioUnsupported
from conformance.engines.golden import read_scenario_file
from tests.backend_scenarios import plan_on_backends

SCENARIO = Path(__file__).resolve().parents[2] / "oracles" / "deviations" / \
    "dra-claim-listed-twice.yaml"


def _docs() -> list[dict[str, Any]]:
    return copy.deepcopy(read_scenario_file(SCENARIO)[0].documents)


def _pod(docs: list[dict[str, Any]]) -> dict[str, Any]:
    return next(d for d in docs if d.get("kind") == "Pod")


def test_pending_pod_naming_a_claim_twice_is_refused_with_the_reason() -> None:
    with pytest.raises(ScenarioUnsupported,
                       match=r"pod default/twice names ResourceClaim default/shared in two "
                             r"entries.*Duplicate value.*upstream-dra-claim-listed-twice"):
        plan_on_backends(_docs(), "twice")


def test_two_claims_or_a_pod_not_scheduled_here_are_planned() -> None:
    docs = _docs()
    claim = copy.deepcopy(next(d for d in docs if d.get("kind") == "ResourceClaim"))
    claim["metadata"]["name"] = "other"
    docs.append(claim)
    _pod(docs)["spec"]["resourceClaims"][1]["resourceClaimName"] = "other"
    plan_on_backends(docs, "twice")  # two distinct claims: scheduled as usual
    for change in ({"nodeName": "node-0"}, {"schedulerName": "someone-else"}):
        docs = _docs()
        _pod(docs)["spec"].update(change)
        plan_on_backends(docs, "twice")
