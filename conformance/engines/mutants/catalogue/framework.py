"""Catalogue: the framework around the plugins (nominated pods in Filter) and the
SchedulingGates PreEnqueue plugin."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import conformance.engines.mutants.witnesses as w
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.patching import Patch
from reference_impl.framework.status import PluginError

# ----- framework: nominated pods, scheduling gates ------------------------------------------

_FW = "reference_impl.framework.runtime:Framework"


def _nominated_any_priority(orig: Callable[..., Any]) -> Callable[..., Any]:
    def add_ge_nominated_pods(self: Any, state: Any, pod: Any, node_info: Any) -> Any:
        # every nominated pod is added, whatever its priority (upstream: >= the pod's)
        nominated = self.handle.nominated_pods_for_node(node_info.node.name)
        if not nominated:
            return False, state, node_info
        node_out = node_info.snapshot_copy()
        state_out = state.clone()
        added = False
        for pi in nominated:
            if pi.pod.uid != pod.uid:
                node_out.add_pod_info(pi)
                s = self.run_pre_filter_extension_add_pod(state_out, pod, pi, node_out)
                if s is not None and not s.is_success():
                    raise PluginError(s.message())
                added = True
        return added, state_out, node_out
    return add_ge_nominated_pods


def _single_pass(orig: Callable[..., Any]) -> Callable[..., Any]:
    def run_filter_plugins_with_nominated_pods(self: Any, state: Any, pod: Any,
                                               node_info: Any) -> Any:
        try:
            _, state1, node1 = self.add_ge_nominated_pods(state, pod, node_info)
        except PluginError as e:
            return e.status
        return self.run_filter_plugins(state1, pod, node1)
    return run_filter_plugins_with_nominated_pods



MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        name="nominated-pods-ignored", area="framework",
        summary="Filter ignores pods nominated to the node (RunFilterPluginsWithNominatedPods runs "
                "the filters once, without them)",
        upstream="RunFilterPluginsWithNominatedPods adds nominated pods of equal or higher "
                 "priority first (pkg/scheduler/framework/runtime/framework.go)",
        patches=(Patch("reference_impl.framework.runtime:Framework."
                       "run_filter_plugins_with_nominated_pods",
                       lambda orig: lambda self, state, pod, node_info: self.run_filter_plugins(
                           state, pod, node_info)),),
        witness=lambda: w.scenario(
            "nominated", w.priority_class("high", 1000), w.node("n1", cpu="2"),
            w.pod("reserved", {"cpu": "2"}, priority_class="high",
                 schedulingGates=[{"name": "example.com/wait"}],
                 status={"nominatedNodeName": "n1"}),
            w.pod("p", {"cpu": "1"})),
        shows="genuine: n1 is held for the nominated high-priority pod, p pending; mutant: bound",
        oracles=("filters_honoured",)),
    Mutant(
        name="nominated-pods-any-priority", area="framework",
        summary="pods nominated to a node hold room against every pod, also against pods of a "
                "higher priority than theirs",
        upstream="addGENominatedPods adds only nominated pods of equal or higher priority "
                 "(pkg/scheduler/framework/runtime/framework.go)",
        patches=(Patch(f"{_FW}.add_ge_nominated_pods", _nominated_any_priority),),
        witness=lambda: w.scenario(
            "nominated-lower", w.priority_class("low", 10), w.priority_class("high", 1000),
            w.node("n1", cpu="2"),
            w.pod("reserved", {"cpu": "2"}, priority_class="low",
                  schedulingGates=[{"name": "example.com/wait"}],
                  status={"nominatedNodeName": "n1"}),
            w.pod("p", {"cpu": "1"}, priority_class="high")),
        shows="genuine: the nominated pod has a lower priority than p and holds nothing for it, "
              "p bound; mutant: pending",
        oracles=("no_false_unschedulable",)),
    Mutant(
        name="nominated-pods-single-pass", area="framework",
        summary="Filter runs once, with the nominated pods added, and not again without them",
        upstream="RunFilterPluginsWithNominatedPods runs the filters with the nominated pods "
                 "and, when some were added, once more without them: a pod must not rely on a "
                 "nominated pod that may never arrive (pkg/scheduler/framework/runtime/"
                 "framework.go)",
        patches=(Patch(f"{_FW}.run_filter_plugins_with_nominated_pods", _single_pass),),
        witness=lambda: w.scenario(
            "nominated-twice", w.priority_class("high", 1000), w.node("n1"),
            w.pod("web", labels=w.WEB, priority_class="high",
                  schedulingGates=[{"name": "example.com/wait"}],
                  status={"nominatedNodeName": "n1"}),
            w.pod("p", affinity={"podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": w.WEB}, "topologyKey": w.HOSTNAME}]}})),
        shows="genuine: p's required affinity holds only with the nominated web pod counted, "
              "the second pass without it fails, pending; mutant: bound",
        oracles=("filters_honoured",)),
    Mutant(
        name="scheduling-gates-ignored", area="SchedulingGates",
        summary="pods with spec.schedulingGates are scheduled",
        upstream="SchedulingGates.PreEnqueue keeps gated pods out of activeQ "
                 "(pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go)",
        patches=(Patch("reference_impl.plugins.schedulinggates:SchedulingGates.pre_enqueue",
                       lambda orig: lambda self, pod: None),),
        witness=lambda: w.scenario(
            "gates", w.node("n1"), w.pod("p", schedulingGates=[{"name": "example.com/wait"}])),
        shows="genuine: p stays gated; mutant: bound",
        oracles=("filters_honoured",)),
)
