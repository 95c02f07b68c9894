"""Catalogue: the per-node filters TaintToleration (and the toleration rules), NodeAffinity,
NodeUnschedulable and NodePorts."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import conformance.engines.mutants.witnesses as w
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.patching import Patch
from reference_impl.api.node_selectors import RequiredNodeAffinity

# ----- TaintToleration and tolerations ------------------------------------------------------

_TOL = "reference_impl.api.tolerations"


def _no_schedule_only(orig: Callable[..., Any]) -> Callable[..., Any]:
    def do_not_schedule_taint(taint: Any) -> bool:
        return taint.effect == "NoSchedule"
    return do_not_schedule_taint


def _empty_effect_matches_nothing(orig: Callable[..., Any]) -> Callable[..., Any]:
    def toleration_tolerates_taint(toleration: Any, taint: Any,
                                   enable_comparison_operators: bool = False) -> bool:
        if not toleration.effect:
            return False
        return orig(toleration, taint, enable_comparison_operators)
    return toleration_tolerates_taint


def _equal_ignores_value(orig: Callable[..., Any]) -> Callable[..., Any]:
    def toleration_tolerates_taint(toleration: Any, taint: Any,
                                   enable_comparison_operators: bool = False) -> bool:
        if toleration.operator in ("", "Equal"):
            toleration = dataclasses.replace(toleration, operator="Exists", value="")
        return orig(toleration, taint, enable_comparison_operators)
    return toleration_tolerates_taint


TAINT_TOLERATION = (
    Mutant(
        name="taints-ignore-noexecute", area="TaintToleration",
        summary="Filter only rejects untolerated NoSchedule taints, not NoExecute ones",
        upstream="DoNotScheduleTaintsFilterFunc keeps NoSchedule and NoExecute "
                 "(pkg/scheduler/framework/plugins/helper/taint.go, "
                 "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go)",
        patches=(Patch("reference_impl.plugins.tainttoleration:do_not_schedule_taint",
                       _no_schedule_only),),
        witness=lambda: w.scenario(
            "noexecute", w.node("n1", taints=[w.taint("dedicated", "NoExecute", "db")]),
            w.pod("p")),
        shows="genuine: untolerated NoExecute taint, p pending; mutant: bound",
        oracles=("filters_honoured",)),
    Mutant(
        name="tolerations-empty-effect-match-nothing", area="TaintToleration",
        summary="a toleration with an empty effect tolerates nothing (instead of every effect)",
        upstream="Toleration.ToleratesTaint: an empty effect matches all effects "
                 "(staging/src/k8s.io/api/core/v1/toleration.go)",
        patches=(Patch(f"{_TOL}:toleration_tolerates_taint", _empty_effect_matches_nothing),),
        witness=lambda: w.scenario(
            "empty-effect", w.node("n1", taints=[w.taint("dedicated", "NoSchedule", "db")]),
            w.pod("p", tolerations=[{"key": "dedicated", "operator": "Exists"}])),
        shows="genuine: the toleration (no effect) tolerates the taint, bound; mutant: pending",
        oracles=("no_false_unschedulable",)),
    Mutant(
        name="tolerations-equal-ignores-value", area="TaintToleration",
        summary="an Equal toleration matches any value of the taint key (treated like Exists)",
        upstream="Toleration.ToleratesTaint: Equal (or no operator) needs equal values "
                 "(staging/src/k8s.io/api/core/v1/toleration.go)",
        patches=(Patch(f"{_TOL}:toleration_tolerates_taint", _equal_ignores_value),),
        witness=lambda: w.scenario(
            "equal-value", w.node("n1", taints=[w.taint("dedicated", "NoSchedule", "db")]),
            w.pod("p", tolerations=[{"key": "dedicated", "operator": "Equal", "value": "web",
                                    "effect": "NoSchedule"}])),
        shows="genuine: value web does not tolerate dedicated=db, pending; mutant: bound",
        oracles=("filters_honoured",)),
)


# ----- NodeAffinity -------------------------------------------------------------------------

_NSEL = "reference_impl.api.node_selectors"


def _required_without_node_selector(orig: Callable[..., Any]) -> Callable[..., Any]:
    def get_required_node_affinity(pod: Any) -> Any:
        return RequiredNodeAffinity(None, pod.affinity)
    return get_required_node_affinity


def _terms_anded(orig: Callable[..., Any]) -> Callable[..., Any]:
    def match(self: Any, node: Any) -> bool:
        if node is None or not self.terms:
            return False
        return all(term.match(node) for term in self.terms)
    return match


def _fields_ignored(orig: Callable[..., Any]) -> Callable[..., Any]:
    def __init__(self: Any, term: Any, path: str) -> None:
        orig(self, term, path)
        self.fields = None
    return __init__


def _selector_dropped_with_affinity(orig: Callable[..., Any]) -> Callable[..., Any]:
    def get_required_node_affinity(pod: Any) -> Any:
        na = pod.affinity.node_affinity if pod.affinity is not None else None
        if na is not None and na.required is not None:
            return RequiredNodeAffinity(None, pod.affinity)
        return orig(pod)
    return get_required_node_affinity


def _required(*terms: w.Doc) -> w.Doc:
    """A pod affinity holding these required node selector terms."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": list(terms)}}}


NODE_AFFINITY = (
    Mutant(
        name="nodeaffinity-ignores-nodeselector", area="NodeAffinity",
        summary="Filter checks the required node affinity but not spec.nodeSelector",
        upstream="RequiredNodeAffinity.Match: nodeSelector AND required node affinity "
                 "(staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/"
                 "nodeaffinity.go, pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go)",
        patches=(Patch("reference_impl.plugins.nodeaffinity:get_required_node_affinity",
                       _required_without_node_selector),),
        witness=lambda: w.scenario(
            "nodeselector", w.node("n1", labels={"disktype": "hdd"}),
            w.pod("p", nodeSelector={"disktype": "ssd"})),
        shows="genuine: nodeSelector disktype=ssd matches no node, pending; mutant: bound",
        oracles=("filters_honoured",)),
    Mutant(
        name="nodeaffinity-terms-anded", area="NodeAffinity",
        summary="required node selector terms are ANDed instead of ORed",
        upstream="nodeSelectorTerms are ORed (LazyErrorNodeSelector.Match, "
                 "staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/"
                 "nodeaffinity.go)",
        patches=(Patch(f"{_NSEL}:LazyErrorNodeSelector.match", _terms_anded),),
        witness=lambda: w.scenario(
            "terms-or", w.node("n1", labels={w.ZONE: "z1"}),
            w.pod("p", affinity={"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": w.ZONE, "operator": "In", "values": ["z1"]}]},
                    {"matchExpressions": [{"key": w.ZONE, "operator": "In",
                                           "values": ["z2"]}]}]}}})),
        shows="genuine: the first term matches, bound; mutant: the second fails too, pending",
        oracles=("no_false_unschedulable",)),
    Mutant(
        name="nodeaffinity-matchfields-ignored", area="NodeAffinity",
        summary="matchFields requirements (metadata.name) of a node selector term are ignored: "
                "a term holding only matchFields matches every node",
        upstream="nodeSelectorTerm.match checks matchExpressions against the labels and "
                 "matchFields against the node's fields {metadata.name} "
                 "(staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/"
                 "nodeaffinity.go newNodeSelectorTerm, extractNodeFields)",
        patches=(Patch(f"{_NSEL}:CompiledTerm.__init__", _fields_ignored),),
        witness=lambda: w.scenario(
            "match-fields", w.node("n1"),
            w.pod("p", affinity=_required({"matchFields": [
                {"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]}))),
        shows="genuine: metadata.name NotIn [n1] rules out the only node, pending; mutant: "
              "bound on n1",
        oracles=("filters_honoured",)),
    Mutant(
        name="nodeaffinity-nodeselector-dropped-with-affinity", area="NodeAffinity",
        summary="a pod with a required node affinity has its spec.nodeSelector ignored (the "
                "affinity taken as replacing the selector instead of both applying)",
        upstream="RequiredNodeAffinity.Match: the nodeSelector AND the required node affinity "
                 "(staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/"
                 "nodeaffinity.go GetRequiredNodeAffinity)",
        patches=(Patch("reference_impl.plugins.nodeaffinity:get_required_node_affinity",
                       _selector_dropped_with_affinity),),
        witness=lambda: w.scenario(
            "selector-and-affinity", w.node("n1", labels={w.ZONE: "z1", "disktype": "hdd"}),
            w.pod("p", nodeSelector={"disktype": "ssd"}, affinity=_required({
                "matchExpressions": [{"key": w.ZONE, "operator": "In", "values": ["z1"]}]}))),
        shows="genuine: the affinity matches n1 but the nodeSelector disktype=ssd does not, "
              "pending; mutant: bound",
        oracles=("filters_honoured",)),
    Mutant(
        name="nodeaffinity-empty-term-matches-all", area="NodeAffinity",
        summary="an empty node selector term ({} or empty matchExpressions) matches every node "
                "instead of none",
        upstream="NewLazyErrorNodeSelector skips terms with neither matchExpressions nor "
                 "matchFields, so they match nothing; NewPreferredSchedulingTerms skips them "
                 "too (staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/"
                 "nodeaffinity.go)",
        patches=(Patch(f"{_NSEL}:_is_empty_term", lambda orig: lambda term: False),),
        witness=lambda: w.scenario(
            "empty-term", w.node("n1"),
            w.pod("p", affinity=_required({"matchExpressions": []}))),
        shows="genuine: the only term is empty and matches no node, pending; mutant: bound",
        oracles=("filters_honoured",)),
)


# ----- NodeUnschedulable --------------------------------------------------------------------

NODE_UNSCHEDULABLE = (
    Mutant(
        name="nodeunschedulable-ignored", area="NodeUnschedulable",
        summary="cordoned nodes (spec.unschedulable) are not filtered out",
        upstream="NodeUnschedulable.Filter rejects unschedulable nodes unless the pod tolerates "
                 "node.kubernetes.io/unschedulable:NoSchedule "
                 "(pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go)",
        patches=(Patch("reference_impl.plugins.nodeunschedulable:NodeUnschedulable.filter",
                       lambda orig: lambda self, state, pod, node_info: None),),
        witness=lambda: w.scenario("cordoned", w.node("n1", unschedulable=True), w.pod("p")),
        shows="genuine: the only node is cordoned, pending; mutant: bound",
        oracles=("filters_honoured",)),
)


# ----- NodePorts ----------------------------------------------------------------------------

def _conflict_any_protocol(orig: Callable[..., Any]) -> Callable[..., Any]:
    def check_conflict(self: Any, ip: str, protocol: str, port: int) -> bool:
        return any(orig(self, ip, proto, port) for proto in ("TCP", "UDP", "SCTP"))
    return check_conflict


def _conflict_any_ip(orig: Callable[..., Any]) -> Callable[..., Any]:
    def check_conflict(self: Any, ip: str, protocol: str, port: int) -> bool:
        return orig(self, "", protocol, port)
    return check_conflict


def _ports_without_sidecars(orig: Callable[..., Any]) -> Callable[..., Any]:
    def host_ports(pod: Any) -> tuple:
        return tuple(p for c in pod.containers for p in c.ports if p.host_port > 0)
    return host_ports


_REQ = "reference_impl.model.requests"
_HOSTPORTS = "reference_impl.framework.types:HostPortInfo.check_conflict"


NODE_PORTS = (
    Mutant(
        name="nodeports-ignore-protocol", area="NodePorts",
        summary="a host port conflicts with the same port number whatever the protocol",
        upstream="HostPortInfo.CheckConflict compares (protocol, port) "
                 "(staging/src/k8s.io/kube-scheduler/framework/types.go, "
                 "pkg/scheduler/framework/plugins/nodeports/node_ports.go)",
        patches=(Patch(_HOSTPORTS, _conflict_any_protocol),),
        witness=lambda: w.scenario(
            "protocol", w.node("n1"),
            w.pod("dns", node="n1",
                  ports=[{"containerPort": 53, "hostPort": 53, "protocol": "UDP"}]),
            w.pod("p", ports=[{"containerPort": 53, "hostPort": 53, "protocol": "TCP"}])),
        shows="genuine: TCP/53 is free next to UDP/53, bound; mutant: conflict, pending",
        oracles=("no_false_unschedulable",)),
    Mutant(
        name="nodeports-ignore-host-ip", area="NodePorts",
        summary="a host port conflicts with the same port on any host IP (hostIP ignored)",
        upstream="HostPortInfo.CheckConflict: different specific host IPs do not conflict "
                 "(staging/src/k8s.io/kube-scheduler/framework/types.go)",
        patches=(Patch(_HOSTPORTS, _conflict_any_ip),),
        witness=lambda: w.scenario(
            "host-ip", w.node("n1"),
            w.pod("a", node="n1",
                  ports=[{"containerPort": 80, "hostPort": 80, "hostIP": "10.0.0.1"}]),
            w.pod("p", ports=[{"containerPort": 80, "hostPort": 80, "hostIP": "10.0.0.2"}])),
        shows="genuine: 10.0.0.2:80 is free next to 10.0.0.1:80, bound; mutant: pending",
        oracles=("no_false_unschedulable",),
        equivalent="the strategies never set hostIP (every generated host port binds 0.0.0.0, "
                   "which conflicts with every IP), so no generated scenario tells the mutant "
                   "apart; generating hostIP in strategies/objects.py would let "
                   "no_false_unschedulable catch it"),
    Mutant(
        name="nodeports-ignore-sidecar-ports", area="NodePorts",
        summary="host ports of sidecars (restartable init containers) are not counted",
        upstream="GetHostPorts includes restartable init containers (pkg/scheduler/util/utils.go)",
        patches=(Patch(f"{_REQ}:host_ports", _ports_without_sidecars, everywhere=True),),
        witness=lambda: w.scenario(
            "sidecar-port", w.node("n1"),
            {**w.pod("proxy", node="n1"),
             "spec": {"nodeName": "n1", "containers": [w.container()],
                      "initContainers": [w.container("envoy", restart_policy="Always",
                                                     ports=[{"containerPort": 8080,
                                                             "hostPort": 8080}])]}},
            w.pod("p", ports=[{"containerPort": 8080, "hostPort": 8080}])),
        shows="genuine: the sidecar holds host port 8080, p pending; mutant: bound",
        oracles=("filters_honoured",),
        equivalent="the strategies give host ports to the first regular container only, never to a "
                   "sidecar (strategies/objects.py pod_templates), so no generated scenario tells "
                   "the mutant apart; filters_honoured rejects it on its witness"),
)


MUTANTS: tuple[Mutant, ...] = (*TAINT_TOLERATION, *NODE_AFFINITY, *NODE_UNSCHEDULABLE, *NODE_PORTS)
