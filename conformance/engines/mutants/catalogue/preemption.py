"""Catalogue: DefaultPreemption (victim selection, reprieve order, PDBs, preemption policy,
priorities)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import conformance.engines.mutants.witnesses as w
from conformance.core.scenario import ScenarioInput
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.patching import Patch

# ----- preemption ---------------------------------------------------------------------------

_DP = "reference_impl.plugins.defaultpreemption.default_preemption"


def _no_reprieve(orig: Callable[..., Any]) -> Callable[..., Any]:
    def select_victims_on_node(self: Any, state: Any, preemptor: Any, node_info: Any,
                               all_possible_victims: list, pdbs: Any) -> Any:
        pods, num_violating, status = orig(self, state, preemptor, node_info,
                                           all_possible_victims, pdbs)
        if status is not None and not status.is_success():
            return pods, num_violating, status
        every = [pi.pod for v in all_possible_victims
                 if self.is_preemption_allowed_across_all_victim_nodes(v, preemptor)
                 for pi in v.pods]
        return every, num_violating, status
    return select_victims_on_node


def _reversed_importance(orig: Callable[..., Any]) -> Callable[..., Any]:
    def sort_slice(items: list, less: Callable[[Any, Any], bool]) -> None:
        orig(items, lambda a, b: less(b, a))
    return sort_slice


def _ignore_never(orig: Callable[..., Any]) -> Callable[..., Any]:
    def pod_eligible_to_preempt_others(self: Any, pod: Any, status: Any) -> tuple[bool, str]:
        if pod.preemption_policy == "Never":
            pod = dataclasses.replace(pod, preemption_policy="PreemptLowerPriority")
        return orig(self, pod, status)
    return pod_eligible_to_preempt_others


def _victims_at_or_below(orig: Callable[..., Any]) -> Callable[..., Any]:
    def get_victims_on_node(self: Any, node_info: Any, priority_below: int | None = None) -> Any:
        return orig(self, node_info, None if priority_below is None else priority_below + 1)
    return get_victims_on_node


def _allowed_at_or_below(orig: Callable[..., Any]) -> Callable[..., Any]:
    def is_preemption_allowed_across_all_victim_nodes(self: Any, victim: Any,
                                                      preemptor: Any) -> bool:
        if victim.priority > preemptor.priority:
            return False
        return all(self.is_eligible_pod(ni, victim, preemptor)
                   for ni in victim.affected_nodes.values())
    return is_preemption_allowed_across_all_victim_nodes


def _fewest_victims_first(orig: Callable[..., Any]) -> Callable[..., Any]:
    def pick_one_node_for_preemption(nodes_to_victims: dict, score_funcs: Any) -> str:
        if score_funcs is None and nodes_to_victims:
            fewest = min(len(v.pods) for v in nodes_to_victims.values())
            nodes_to_victims = {n: v for n, v in nodes_to_victims.items()
                                if len(v.pods) == fewest}
        return orig(nodes_to_victims, score_funcs)
    return pick_one_node_for_preemption


def _never_protects(orig: Callable[..., Any]) -> Callable[..., Any]:
    def is_preemption_allowed_across_all_victim_nodes(self: Any, victim: Any,
                                                      preemptor: Any) -> bool:
        if any(pi.pod.preemption_policy == "Never" for pi in victim.pods):
            return False
        return orig(self, victim, preemptor)
    return is_preemption_allowed_across_all_victim_nodes


_NODE_CHOICE_ORACLE = (
    "a preemption node-choice oracle: the preemption oracle checks the victims on the chosen "
    "node (lower priority, minimal, PDBs) but not that pickOneNodeForPreemption's order (fewest "
    "PDB violations, lowest highest victim priority, smallest priority sum, fewest victims, "
    "latest start) picks that node among the candidates; the golden suite or a differential "
    "run against the reference or upstream sees it")


def _two_low_pods(name: str, p1: int, p2: int) -> ScenarioInput:
    return w.scenario(
        name, w.priority_class("p1", p1), w.priority_class("p2", p2),
        w.priority_class("critical", 1000), w.node("n1", cpu="2"),
        w.pod("a", {"cpu": "1"}, node="n1", priority_class="p1"),
        w.pod("b", {"cpu": "1"}, node="n1", priority_class="p2"),
        w.pod("p", {"cpu": "1"}, priority_class="critical"))



MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        name="preemption-no-reprieve", area="DefaultPreemption",
        summary="every lower-priority pod of the chosen node is evicted (no reprieve step)",
        upstream="SelectVictimsOnNode re-adds victims one by one and keeps those the preemptor "
                 "still fits with "
                 "(pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)",
        patches=(Patch(f"{_DP}:DefaultPreemption.select_victims_on_node", _no_reprieve),),
        witness=lambda: _two_low_pods("no-reprieve", 10, 20),
        shows="genuine: only a (the less important) is evicted; mutant: a and b",
        oracles=("preemption",)),
    Mutant(
        name="preemption-least-important-reprieved-first", area="DefaultPreemption",
        summary="victims are reprieved least important first, so the most important pods are the "
                "ones evicted",
        upstream="SelectVictimsOnNode sorts the potential victims by MoreImportantVictim and "
                 "reprieves the most important first "
                 "(pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go, "
                 "pkg/scheduler/framework/preemption/util.go)",
        patches=(Patch(f"{_DP}:sort_slice", _reversed_importance),),
        witness=lambda: _two_low_pods("reprieve-order", 10, 20),
        shows="genuine: b (priority 20) is reprieved, a (10) evicted; mutant: b evicted",
        oracles=("preemption",),
        missing_oracle="a victim-choice oracle: the preemption oracle checks that the victims are "
                       "minimal (re-adding any one breaks the fit), which holds for either order; "
                       "replaying upstream's reprieve in MoreImportantVictim order (PDB-violating "
                       "first) and requiring exactly its victims would catch it"),
    Mutant(
        name="preemption-ignores-pdbs", area="DefaultPreemption",
        summary="PodDisruptionBudgets are ignored when choosing victims and the node",
        upstream="FilterVictimsWithPDBViolation; pickOneNodeForPreemption prefers the fewest PDB "
                 "violations (pkg/scheduler/framework/preemption/util.go, "
                 "pkg/scheduler/framework/preemption/preemption.go)",
        patches=(Patch(f"{_DP}:filter_victims_with_pdb_violation",
                       lambda orig: lambda victims, pdbs: ([], list(victims))),),
        witness=lambda: w.scenario(
            "pdbs", w.priority_class("low", 0), w.priority_class("mid", 5),
            w.priority_class("critical", 1000),
            w.node("n1", cpu="1"), w.node("n2", cpu="1"),
            w.pod("db", {"cpu": "1"}, node="n1", labels={"app": "db"}, priority_class="low"),
            w.pod("web", {"cpu": "1"}, node="n2", labels=w.WEB, priority_class="mid"),
            {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
             "metadata": {"name": "db"},
             "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}},
             "status": {"disruptionsAllowed": 0}},
            w.pod("p", {"cpu": "1"}, priority_class="critical")),
        shows="genuine: evicting db breaks its PDB, so web on n2 is preempted; mutant: db (lower "
              "priority) is",
        oracles=("preemption",),
        missing_oracle="the preemption oracle only counts PDBs that carry "
                       "status.disruptionsAllowed and the strategies never write it (the reference "
                       "computes it from minAvailable/maxUnavailable like the disruption "
                       "controller); generating status.disruptionsAllowed, or computing it in the "
                       "oracle, would let the oracle's PDB rule catch it"),
    Mutant(
        name="preemption-ignores-policy-never", area="DefaultPreemption",
        summary="pods with preemptionPolicy: Never preempt like any other",
        upstream="PodEligibleToPreemptOthers: preemptionPolicy Never does not preempt "
                 "(pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go)",
        patches=(Patch(f"{_DP}:DefaultPreemption.pod_eligible_to_preempt_others",
                       _ignore_never),),
        witness=lambda: w.scenario(
            "never", {**w.priority_class("polite", 1000), "preemptionPolicy": "Never"},
            w.node("n1", cpu="1"), w.pod("a", {"cpu": "1"}, node="n1"),
            w.pod("p", {"cpu": "1"}, priority_class="polite")),
        shows="genuine: p never preempts, pending; mutant: a is evicted",
        oracles=("preemption",)),
    Mutant(
        name="preemption-equal-priority-victims", area="DefaultPreemption",
        summary="pods of the same priority as the preemptor may be evicted (<= instead of <)",
        upstream="only pods of strictly lower priority are victims (isPreemptionAllowed in "
                 "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go, "
                 "GetVictimsOnNode in pkg/scheduler/framework/preemption/preemption.go)",
        patches=(Patch("reference_impl.framework.preemption.preemption:Evaluator."
                       "get_victims_on_node", _victims_at_or_below),
                 Patch(f"{_DP}:DefaultPreemption.is_preemption_allowed_across_all_victim_nodes",
                       _allowed_at_or_below)),
        witness=lambda: w.scenario(
            "equal-priority", w.priority_class("same", 100), w.node("n1", cpu="1"),
            w.pod("a", {"cpu": "1"}, node="n1", priority_class="same"),
            w.pod("p", {"cpu": "1"}, priority_class="same")),
        shows="genuine: a has the same priority, no preemption; mutant: a is evicted",
        oracles=("preemption",)),
    Mutant(
        name="preemption-node-fewest-victims-first", area="DefaultPreemption",
        summary="the node to preempt on is the one with the fewest victims, before comparing "
                "the victims' priorities",
        upstream="pickOneNodeForPreemption: fewest PDB violations, then the lowest highest "
                 "victim priority, then the smallest priority sum, only then the fewest victims "
                 "(pkg/scheduler/framework/preemption/preemption.go)",
        patches=(Patch("reference_impl.framework.preemption.preemption:"
                       "pick_one_node_for_preemption", _fewest_victims_first),),
        witness=lambda: w.scenario(
            "node-choice", w.priority_class("low", 10), w.priority_class("mid", 50),
            w.priority_class("critical", 1000),
            w.node("n1", cpu="2"), w.node("n2", cpu="2"),
            w.pod("m", {"cpu": "2"}, node="n1", priority_class="mid"),
            w.pod("a", {"cpu": "1"}, node="n2", priority_class="low"),
            w.pod("b", {"cpu": "1"}, node="n2", priority_class="low"),
            w.pod("p", {"cpu": "2"}, priority_class="critical")),
        shows="genuine: n2's victims (a, b: priority 10) are less important than n1's (m: 50), "
              "a and b are evicted; mutant: one victim beats two, m is evicted",
        missing_oracle=_NODE_CHOICE_ORACLE),
    Mutant(
        name="preemption-never-pods-not-victims", area="DefaultPreemption",
        summary="pods with preemptionPolicy: Never are never evicted (the policy read as a "
                "protection from preemption)",
        upstream="preemptionPolicy only says whether the pod may preempt others "
                 "(PodEligibleToPreemptOthers); victims are any lower-priority pods "
                 "(pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go "
                 "isPreemptionAllowed)",
        patches=(Patch(f"{_DP}:DefaultPreemption.is_preemption_allowed_across_all_victim_nodes",
                       _never_protects),),
        witness=lambda: w.scenario(
            "never-victim", {**w.priority_class("batch", 10), "preemptionPolicy": "Never"},
            w.priority_class("critical", 1000), w.node("n1", cpu="1"),
            w.pod("a", {"cpu": "1"}, node="n1", priority_class="batch"),
            w.pod("p", {"cpu": "1"}, priority_class="critical")),
        shows="genuine: a (priority 10, preemptionPolicy Never) is evicted for p; mutant: p stays "
              "pending",
        oracles=("no_false_unschedulable",)),
)
