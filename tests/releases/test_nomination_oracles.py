"""The replay's nominations follow each release's nominator (switch ``nominate-gated-pod``;
oracles/replay.py ``held_back_at_add``, docs/oracles.md): v1.34.4-v1.36.3 record a pending
pod's ``status.nominatedNodeName`` only when the pod enters activeQ (``moveToActiveQ``), or
when an update of the pod reaches the queue (``UpdateNominatedPod``); v1.37.2 at every ``Add``
(``addPod``, #139057).

The scenario (issue 16, the minimal form of a ``queue_fairness`` counterexample that
``filters_honoured`` flagged on the upstream subjects of v1.35.4 and v1.36.3): ``gated``
(priority 100, 2 of n1's 2 cpu, two scheduling gates) is nominated to n1; ``q`` (priority 1, 1
cpu) is pending. Up to v1.36.3 q is bound to n1; v1.37.2 keeps it off n1. With one gate
removed at 1s (an update: the pod stays gated) and q created at 2s, every release keeps q off
n1.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.subjects.factory import make_subject
from conformance.subjects.upstream import binary_available, build_hint, default_binary
from oracles import ALL_ORACLES
from oracles.base import OracleContext
from oracles.profiles import read_scheduler_config
from oracles.replay import Replay, held_back_at_add
from reference_impl.releases import load, supported_releases
from reference_impl.testing.wrappers import make_container, make_node, make_pod

RELEASES = supported_releases()
GATES = ("example.com/a", "example.com/b")
NOMINATED = "counting pod(s) nominated to the node: default/gated"


def _records_gated(release: str) -> bool:
    """Whether ``release``'s Add records a held-back pod's nomination."""
    return load(release).behaviour("nominate-gated-pod") == "always"


def _pod(name: str, cpu: str, priority: int, gates: tuple[str, ...] = (),
         nominated: str = "") -> dict[str, Any]:
    p = make_pod(name).container(make_container("c").requests({"cpu": cpu})).priority(priority)
    if gates:
        p.scheduling_gates(*gates)
    if nominated:
        p.nominated_node_name(nominated)
    return p.manifest()


def _scenario(release: str, update: bool = False) -> ScenarioInput:
    n1 = make_node("n1").hostname().allocatable({"cpu": "2", "memory": "8Gi", "pods": "110"})
    docs = [n1.manifest(), _pod("gated", "2", 100, GATES, "n1")]
    if update:
        docs.append({"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": [
            {"at": "1s", "action": "removeSchedulingGates", "pod": "gated",
             "gates": [GATES[0]]},
            {"at": "2s", "action": "createPod", "pod": _pod("q", "1", 1)}]}})
    else:
        docs.append(_pod("q", "1", 1))
    return ScenarioInput(docs, seed=0, name="nominated-gated-pod", release=release)


def _recorded(q_outcome: str, q_time: float) -> dict[str, Any]:
    """A SimulationResult: gated is Gated at its add; q is Bound to n1 or Unschedulable."""
    bound = q_outcome == "Bound"
    return {"apiVersion": "kschedconf/v1", "kind": "SimulationResult", "seed": 0,
            "bindings": {"default/q": "n1"} if bound else {},
            "pending": ["default/gated"] if bound else ["default/gated", "default/q"],
            "attempts": [
                {"pod": "default/gated", "outcome": "Gated", "node": None, "reasons": {},
                 "message": "waiting for scheduling gates", "time": 0.0},
                {"pod": "default/q", "outcome": q_outcome, "node": "n1" if bound else None,
                 "reasons": {} if bound else {"n1": ["Insufficient cpu"]},
                 "message": "" if bound else "0/1 nodes are available: 1 Insufficient cpu.",
                 "nominatedNode": None, "candidates": ["n1"] if bound else [], "victims": [],
                 "time": q_time}]}


def _violations(ctx: OracleContext) -> list[str]:
    return [str(v) for oracle in ALL_ORACLES.values() for v in oracle(ctx)]


@pytest.mark.parametrize("release", RELEASES)
def test_a_gated_pods_nomination_counts_from_v1_37(release: str) -> None:
    """q bound to n1 is a filters_honoured violation only where Add records the gated pod's
    nomination; q left Unschedulable is a no_false_unschedulable one only where it does not."""
    scenario = _scenario(release)
    bound = OracleContext.build(scenario, _recorded("Bound", 0.0), release=load(release))
    left = OracleContext.build(scenario, _recorded("Unschedulable", 0.0),
                               release=load(release))
    held = _records_gated(release)
    assert Replay.of(bound).run().withheld == ({} if held else {"default/gated": "n1"})
    flagged = [v for v in ALL_ORACLES["filters_honoured"](bound) if NOMINATED in v.message]
    assert len(flagged) == (1 if held else 0)
    missed = ALL_ORACLES["no_false_unschedulable"](left)
    assert [v.node for v in missed] == ([] if held else ["n1"])


@pytest.mark.parametrize("release", RELEASES)
def test_judged_by_another_releases_rule(release: str) -> None:
    """The planted bug: the run of ``release`` judged with the rule of a release whose
    nominator differs raises a false alarm."""
    other = next(r for r in RELEASES if _records_gated(r) != _records_gated(release))
    q_outcome = "Unschedulable" if _records_gated(release) else "Bound"
    ctx = OracleContext.build(_scenario(release), _recorded(q_outcome, 0.0), release=load(other))
    assert len(_violations(ctx)) == 1


@pytest.mark.parametrize("release", RELEASES)
def test_an_update_of_the_gated_pod_teaches_the_nominator(release: str) -> None:
    """``Update`` of a pool pod calls ``UpdateNominatedPod``: after one gate's removal at 1s
    the still-gated pod's nomination counts in every release, so q created at 2s and bound to
    n1 is a violation, and q left Unschedulable is not."""
    scenario = _scenario(release, update=True)
    bound = OracleContext.build(scenario, _recorded("Bound", 2.0), release=load(release))
    left = OracleContext.build(scenario, _recorded("Unschedulable", 2.0),
                               release=load(release))
    assert [v for v in _violations(bound) if NOMINATED in v] != []
    assert _violations(left) == []


def test_who_preenqueue_may_hold_back() -> None:
    """held_back_at_add: none in v1.37.2; before, a pod with scheduling gates (under
    SchedulingGates) or resource claims (under DynamicResources: a claim may be missing), and
    any pod under a PreEnqueue plugin the oracles do not restate."""
    assert held_back_at_add(load("v1.37.2"), read_scheduler_config(None).profile_of) is None
    view = read_scheduler_config(None, "v1.35.4")
    held = held_back_at_add(load("v1.35.4"), view.profile_of)
    assert held is not None
    plain = make_pod("p").obj()
    assert not held(plain)
    assert held(make_pod("p").scheduling_gates("g").obj())
    assert held(make_pod("p").resource_claim("gpu", claim="gpu-claim").obj())
    assert not held(make_pod("p").scheduler_name("nobody").obj())
    view.profiles["default-scheduler"].points["preEnqueue"] = ["DefaultPreemption"]
    assert not held(make_pod("p").scheduling_gates("g").obj())
    view.profiles["default-scheduler"].points["preEnqueue"].append("example.com/Quota")
    assert held(plain)


@pytest.mark.parametrize("update", [False, True], ids=["add", "update"])
@pytest.mark.parametrize("release", RELEASES)
def test_the_upstream_subject_is_judged_clean(release: str, update: bool) -> None:
    """The upstream subject of each release binds q to n1 exactly where its Add does not
    record the gated pod's nomination (and never after the update), and the oracles told that
    release find nothing."""
    binary = default_binary(release)
    if not binary_available(binary):
        pytest.skip(f"no upstream subject binary of {release} ({binary}): "
                    f"{build_hint(release)}")
    scenario = _scenario(release, update)
    with make_subject(f"upstream@{release}") as up:
        run = up.run(scenario)
    q_bound = not update and not _records_gated(release)
    assert run.result["bindings"] == ({"default/q": "n1"} if q_bound else {})
    assert _violations(OracleContext.build(scenario, run, release=load(release))) == []
