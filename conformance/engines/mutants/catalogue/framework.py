"""Catalogue: the framework around the plugins (nominated pods in Filter) and the
SchedulingGates PreEnqueue plugin."""

from __future__ import annotations

import conformance.engines.mutants.witnesses as w
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.patching import Patch

# ----- framework: nominated pods, scheduling gates ------------------------------------------


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
