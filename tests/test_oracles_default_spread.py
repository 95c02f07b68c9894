"""The restated Filter rules (oracles/rules.py) apply PodTopologySpread's DoNotSchedule default
constraints (``defaultingType: List``) with the selector ``helper.DefaultSelector`` deduces from
the pod's Services and controller, as the plugin does (podtopologyspread/common.go
buildDefaultConstraints): ``filters_honoured`` catches a bind that breaks them,
``no_false_unschedulable`` accepts the Unschedulable verdict they cause, and neither applies them
to a pod no Service selects."""

from __future__ import annotations

from typing import Any

from conformance.core.scenario import ScenarioInput
from oracles import filters_honoured, no_false_unschedulable
from oracles.base import OracleContext
from oracles.replay import Replay
from reference_impl.testing.wrappers import make_node, make_pod, make_service

HOST = "kubernetes.io/hostname"
CONFIG = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [{
        "name": "PodTopologySpread", "args": {
            "defaultingType": "List",
            "defaultConstraints": [{"maxSkew": 1, "topologyKey": HOST,
                                    "whenUnsatisfiable": "DoNotSchedule"}]}}]}]}


def _docs(with_service: bool, n2_cpu: str = "4") -> list[dict[str, Any]]:
    """n1 runs two app=web pods, n2 none: a third app=web pod on n1 breaks maxSkew 1."""
    objs: list[Any] = [make_node(n).hostname().capacity(cpu=cpu, memory="8Gi")
                       for n, cpu in (("n1", "4"), ("n2", n2_cpu))]
    objs += [make_pod(f"web-{i}").label("app", "web").node("n1") for i in range(2)]
    objs.append(make_pod("p").label("app", "web").req(cpu="1"))
    if with_service:
        objs.append(make_service("web").selector({"app": "web"}))
    return [o.manifest() for o in objs]


def _judge(docs: list[dict[str, Any]], attempt: dict[str, Any]) -> OracleContext:
    ctx = OracleContext.build(ScenarioInput(docs, CONFIG, 0, "test"), {"attempts": [attempt]})
    final = Replay.of(ctx).run()
    ctx.result = {"apiVersion": "kschedconf/v1", "kind": "SimulationResult", "seed": 0,
                  "attempts": [attempt], "bindings": final.bindings(),
                  "pending": sorted(final.pending), "deleted": []}
    return ctx


BIND_N1 = {"pod": "default/p", "outcome": "Bound", "node": "n1", "reasons": {}, "message": "",
           "nominatedNode": None, "candidates": ["n1"], "victims": []}


def test_filters_honoured_applies_the_default_constraint_of_a_selected_pod() -> None:
    violations = filters_honoured.check(_judge(_docs(with_service=True), BIND_N1))
    assert len(violations) == 1 and "n1" in violations[0].message


def test_without_a_service_the_default_constraint_does_not_apply() -> None:
    assert filters_honoured.check(_judge(_docs(with_service=False), BIND_N1)) == []


def test_no_false_unschedulable_accepts_a_verdict_of_the_default_constraint() -> None:
    """n2 too small for p, and n1 breaking maxSkew 1 of the default constraint: p fits
    nowhere, so Unschedulable is true; without the Service n1 fits, and the verdict is
    false."""
    docs = _docs(with_service=True, n2_cpu="500m")
    attempt = {"pod": "default/p", "outcome": "Unschedulable", "node": None, "reasons": {},
               "message": "0/2 nodes are available", "nominatedNode": None, "candidates": [],
               "victims": []}
    assert no_false_unschedulable.check(_judge(docs, attempt)) == []
    without = [d for d in docs if d["kind"] != "Service"]
    assert len(no_false_unschedulable.check(_judge(without, attempt))) == 1
