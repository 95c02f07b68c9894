"""Catalogue: scoring and host selection (score totals, weights, LeastAllocated, the tie-break
among the highest-scored nodes). No invariant oracle sees these; the golden suite does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import conformance.engines.mutants.witnesses as w
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.patching import Patch

# ----- scoring and host selection -----------------------------------------------------------

def _first_of_tied(orig: type) -> type:
    class FirstTiedScoredNodes(orig):  # type: ignore[misc, valid-type]
        """Pops the first highest-scored node in feasible-node order (no Go heap layout)."""

        def __init__(self, scored: list) -> None:
            super().__init__(scored)
            self.order = list(scored)

        def pop(self):  # noqa: ANN202
            best = max(s.total for s in self.order)
            chosen = next(s for s in self.order if s.total == best)
            self.order.remove(chosen)
            super().__init__([s for s in self.heap if s is not chosen])  # re-heapify the rest
            return chosen

    return FirstTiedScoredNodes


def _score_totals(use: str) -> Callable[[Any], Any]:
    """``run_score_plugins`` whose totals sum the raw scores with weights (``use="raw"``) or the
    normalized scores without weights (``use="unweighted"``)."""
    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        def run_score_plugins(self: Any, state: Any, pod: Any, nodes: list,
                              detail: bool = True) -> Any:
            results, status = orig(self, state, pod, nodes, True)
            if results is None:
                return results, status
            for r in results:
                if use == "raw":
                    r.total = sum(v * self.score_weights[name] for name, v in r.raw)
                else:
                    r.total = sum(v for _, v in r.normalized)
            return results, status
        return run_score_plugins
    return make


def _used_share(orig: Callable[..., Any]) -> Callable[..., Any]:
    def least_requested_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return 0
        return requested * 100 // capacity
    return least_requested_score


_IL = "reference_impl.plugins.imagelocality"
_MB = 2**20


def _imaged_pod(name: str, *images: str) -> w.Doc:
    """A pod with one container per image (no requests)."""
    return {**w.pod(name), "spec": {"containers": [
        w.container(f"c{i}", image=image) for i, image in enumerate(images)]}}


_NO_SCORE_ORACLE = (
    "a score oracle: the existing ones check only that the bound node is among the subject's "
    "own reported highest-scored candidates, and the reference subject reports no "
    "Explanation; an oracle restating the default Score plugins (NodeResourcesFit "
    "LeastAllocated, BalancedAllocation, TaintToleration, NodeAffinity, ImageLocality, "
    "PodTopologySpread, InterPodAffinity: raw score, NormalizeScore, weights), or a "
    "differential run against recorded upstream decisions (golden suite), would catch it")



MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        name="select-first-tied-node", area="host selection",
        summary="among the highest-scored nodes, the first in feasible-node order wins instead of "
                "the top of Go's container/heap",
        upstream="schedulePod pops the max-heap NewSortedScoredNodes "
                 "(pkg/scheduler/schedule_one.go, "
                 "pkg/scheduler/framework/sorted_nodes.go): ties follow the heap layout",
        patches=(Patch("reference_impl.scheduler.schedule_one:SortedScoredNodes", _first_of_tied),),
        witness=lambda: w.scenario(
            "ties", w.node("n1"), w.node("n2"), w.node("n3", labels={"tier": "gold"}),
            w.node("n4", labels={"tier": "gold"}),
            w.pod("p", affinity={"nodeAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 50, "preference": {"matchExpressions": [
                        {"key": "tier", "operator": "In", "values": ["gold"]}]}}]}})),
        shows="genuine: n3 and n4 tie, the heap pops n4; mutant: n3",
        missing_oracle="a tie-break oracle: restate Go's container/heap (Init, Pop) over the "
                       "feasible nodes in examination order and require that node; "
                       "score_optimality only checks membership in the tie set"),
    Mutant(
        name="score-raw-not-normalized", area="scoring",
        summary="node totals add the plugins' raw scores instead of the normalized ones",
        upstream="RunScorePlugins: NormalizeScore, then weight × normalized score "
                 "(pkg/scheduler/framework/runtime/framework.go)",
        patches=(Patch("reference_impl.framework.runtime:Framework.run_score_plugins",
                       _score_totals("raw")),),
        witness=lambda: w.scenario(
            "raw-scores", w.node("n1", taints=[w.taint("maintenance", "PreferNoSchedule")]),
            w.node("n2"), w.pod("p")),
        shows="genuine: TaintToleration normalizes (reversed) so n2 wins; mutant: the raw count of "
              "intolerable taints favours n1",
        missing_oracle=_NO_SCORE_ORACLE),
    Mutant(
        name="score-weights-dropped", area="scoring",
        summary="plugin weights are ignored: every normalized score counts once",
        upstream="RunScorePlugins multiplies each normalized score by the plugin's weight "
                 "(pkg/scheduler/framework/runtime/framework.go; default weights "
                 "pkg/scheduler/apis/config/v1/default_plugins.go)",
        patches=(Patch("reference_impl.framework.runtime:Framework.run_score_plugins",
                       _score_totals("unweighted")),),
        witness=lambda: w.scenario(
            "weights", w.node("n1", labels={"tier": "gold"},
                             taints=[w.taint("maintenance", "PreferNoSchedule")]),
            w.node("n2"),
            w.pod("p", affinity={"nodeAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "preference": {"matchExpressions": [
                        {"key": "tier", "operator": "In", "values": ["gold"]}]}}]}})),
        shows="genuine: TaintToleration (weight 3) outweighs NodeAffinity (weight 2), n2 wins; "
              "mutant: 100 each, tie, n1",
        missing_oracle=_NO_SCORE_ORACLE),
    Mutant(
        name="least-allocated-inverted", area="NodeResourcesFit scoring",
        summary="LeastAllocated scores the used share (requested/capacity) instead of the free "
                "share",
        upstream="leastRequestedScore = (capacity - requested) * 100 / capacity "
                 "(pkg/scheduler/framework/plugins/noderesources/least_allocated.go)",
        patches=(Patch("reference_impl.plugins.noderesources.least_allocated:"
                       "least_requested_score", _used_share),),
        witness=lambda: w.scenario(
            "least-allocated", w.node("n1"), w.node("n2"),
            w.pod("busy", {"cpu": "2", "memory": "4Gi"}, node="n1"),
            w.pod("p", {"cpu": "100m", "memory": "128Mi"})),
        shows="genuine: the empty n2 scores higher; mutant: the busy n1",
        missing_oracle=_NO_SCORE_ORACLE),
    Mutant(
        name="imagelocality-no-spread-scaling", area="ImageLocality scoring",
        summary="an image's size counts in full on every node holding it, not scaled by the "
                "share of nodes that hold it",
        upstream="scaledImageScore: size × numNodes / totalNumNodes "
                 "(pkg/scheduler/framework/plugins/imagelocality/image_locality.go)",
        patches=(Patch(f"{_IL}:scaled_image_score",
                       lambda orig: lambda state, total_num_nodes: state.size),),
        witness=lambda: w.scenario(
            "image-spread", w.node("n1", images={"example.com/big:1": 600 * _MB}),
            *(w.node(n, images={"example.com/common:1": 400 * _MB}) for n in ("n2", "n3", "n4")),
            _imaged_pod("p", "example.com/big:1", "example.com/common:1")),
        shows="genuine: the common image (3 of 4 nodes) scores 300 MB on n2-n4, the rare one "
              "150 MB on n1, p goes to n2-n4; mutant: 600 MB beats 400 MB, n1",
        missing_oracle=_NO_SCORE_ORACLE),
    Mutant(
        name="imagelocality-untagged-not-normalized", area="ImageLocality scoring",
        summary="an image named without a tag is looked up as is, not as NAME:latest, so it "
                "never matches the node's image list",
        upstream="normalizedImageName appends \":latest\" to an untagged image "
                 "(pkg/scheduler/framework/plugins/imagelocality/image_locality.go)",
        patches=(Patch(f"{_IL}:normalized_image_name", lambda orig: lambda name: name),),
        witness=lambda: w.scenario(
            "image-tag", w.node("n1"), w.node("n2", images={"example.com/big:latest": 800 * _MB}),
            _imaged_pod("p", "example.com/big")),
        shows="genuine: example.com/big is example.com/big:latest, present on n2, p goes to n2; "
              "mutant: no node holds it, the tie goes to n1",
        missing_oracle=_NO_SCORE_ORACLE),
)
