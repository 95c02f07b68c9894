"""The ResourceClaim events of DynamicResources' own writes (PreBind, Unreserve, PostFilter,
the special claim's create and delete): upstream's claim informer delivers them to the
scheduling queue (eventhandlers.go), and the queueing hint ``isSchedulableAfterClaimChange``
(dynamicresources.go) decides which pods they move. tests/regressions/
dra_shared_claim_prebind_event.yaml (found by ``kschedconf diff --sizes dra=40 --seed 3``):
pod-3's PreBind allocates and reserves the claim pod-2 shares, so pod-2 is tried again after
its backoff, not at the 5-minute flush."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject

SCENARIO = (Path(__file__).parent.parent / "regressions"
            / "dra_shared_claim_prebind_event.yaml")


def scenario() -> ScenarioInput:
    docs = [d for d in yaml.safe_load_all(SCENARIO.read_text()) if d]
    return ScenarioInput(docs, name="dra-shared-claim-prebind-event")


def attempts(result: dict[str, Any]) -> list[tuple[str, str, float, str]]:
    return [(a["pod"], a["outcome"], float(a["time"]), a["queue"])
            for a in result["attempts"]]


def test_a_prebind_claim_write_moves_the_pod_sharing_the_claim() -> None:
    res = ReferenceSubject().run(scenario()).result
    got = attempts(res)
    assert got[:2] == [("default/pod-2", "Unschedulable", 0.0, "activeQ"),
                       ("default/pod-3", "Bound", 0.0, "activeQ")]
    pod2 = [a for a in got if a[0] == "default/pod-2"]
    # tried again from the backoff queue, moved by the claim's update; not at the flush
    assert pod2[1][3] == "backoffQ" and pod2[1][2] < 300


def test_the_reference_tries_the_pods_as_upstream(upstream: UpstreamSubject) -> None:
    ref = ReferenceSubject().run(scenario()).result
    up = upstream.run(scenario()).result
    assert attempts(ref) == attempts(up)
    assert ref["bindings"] == up["bindings"]
