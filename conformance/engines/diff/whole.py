"""Whole-run comparison: two SimulationResults of the same scenario, attempt by attempt up to
the first that differs, the ``Gated`` records per pod, then the end state (docs/diff.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.engines.diff.model import (
    MISSING,
    WHOLE,
    Divergence,
    TieBreak,
    mark_consequences,
)
from conformance.engines.diff.normalize import (
    deep_differences,
    field_pattern,
    gated,
    join,
    norm_attempt,
    norm_end,
)
from conformance.engines.diff.ties import random_preemptions


@dataclass(slots=True)
class WholeComparison:
    divergences: list[Divergence] = field(default_factory=list)
    tie_breaks: list[TieBreak] = field(default_factory=list)
    attempts: int = 0
    later_attempts_differing: int = 0
    stopped_at: int | None = None  # the attempt where a tie-break ended the comparison


def compare_whole(ref: Mapping[str, Any], up: Mapping[str, Any],
                  notes: Iterable[str] = (),
                  preemption_ties: Callable[[int], set[str] | None] | None = None
                  ) -> WholeComparison:
    """Compare two SimulationResults. The scheduling attempts are compared in order; the
    ``Gated`` records (PreEnqueue verdicts, not attempts) per pod, as the list of their
    messages (``gated.<pod>``). ``notes``: upstream's. ``preemption_ties(i)``: the nodes among
    which upstream's preemption at its attempt ``i`` chose at random (None: not known), asked
    when the two sides nominate different nodes. Paths name upstream's attempt index."""
    out = WholeComparison()
    random_pods = random_preemptions(notes)
    ra = [(i, norm_attempt(a)) for i, a in enumerate(ref.get("attempts", []))
          if a.get("outcome") != "Gated"]
    ua = [(i, norm_attempt(a)) for i, a in enumerate(up.get("attempts", []))
          if a.get("outcome") != "Gated"]
    out.attempts = max(len(ra), len(ua))
    root_at: int | None = None
    for k in range(out.attempts):
        ri, r = ra[k] if k < len(ra) else (None, None)
        ui, u = ua[k] if k < len(ua) else (None, None)
        i = ui if ui is not None else ri
        if r is None or u is None or r["pod"] != u["pod"]:
            pod = (u or r or {}).get("pod")
            out.divergences.append(Divergence(
                WHOLE, f"attempts[{i}]", "attempts[*]",
                _attempt_summary(r), _attempt_summary(u), pod=pod, step=i,
                outcomes=((r or {}).get("outcome"), (u or {}).get("outcome"))))
            root_at = k
            break
        assert ui is not None
        pod = r["pod"]
        skip: set[str] = set()
        ties = None
        if (r["outcome"] == u["outcome"] == "Nominated" and pod not in random_pods
                and r["nominatedNode"] != u["nominatedNode"] and preemption_ties is not None):
            ties = preemption_ties(ui)
        tie = _whole_tie(r, u, pod, random_pods, ties)
        if tie is not None:
            tb, skip = tie
            tb.step = ui
            out.tie_breaks.append(tb)
        for path, rv, uv in deep_differences({k: v for k, v in r.items() if k not in skip},
                                             {k: v for k, v in u.items() if k not in skip}):
            node = path[1] if len(path) > 1 and path[0] == "reasons" else (
                u.get("node") or r.get("node") if path[0] == "node" else None)
            out.divergences.append(Divergence(
                WHOLE, f"attempts[{ui}]." + join(path), "attempts[*]." + field_pattern(path),
                rv, uv, pod=pod, node=node if isinstance(node, str) else None, step=ui,
                outcomes=(r.get("outcome"), u.get("outcome"))))
        mark_consequences(out.divergences, _attempt_layer)
        if tie is not None:
            out.stopped_at = ui
            return out
        if out.divergences:
            root_at = k
            break
    if root_at is not None:
        for j in range(root_at + 1, out.attempts):
            r = ra[j][1] if j < len(ra) else None
            u = ua[j][1] if j < len(ua) else None
            if r != u:
                out.later_attempts_differing += 1
    _end_state(ref, up, out)
    return out


def _end_state(ref: Mapping[str, Any], up: Mapping[str, Any], out: WholeComparison) -> None:
    """The Gated records and the end state; consequences when attempts differed."""
    consequence = bool(out.divergences)
    for path, rv, uv in deep_differences(gated(ref), gated(up)):
        out.divergences.append(Divergence(WHOLE, join(["gated", *path]),
                                          field_pattern(["gated", *path]), rv, uv,
                                          pod=str(path[0]) if path else None,
                                          outcomes=("Gated", "Gated")))
    for path, rv, uv in deep_differences(norm_end(ref), norm_end(up)):
        pod = path[1] if len(path) > 1 and path[0] == "bindings" else None
        if path and path[0] in ("pending", "deleted", "removed", "finished"):
            diff = sorted(set(rv if isinstance(rv, list) else []) ^
                          set(uv if isinstance(uv, list) else []))
            pod = diff[0] if len(diff) == 1 else None
        out.divergences.append(Divergence(
            WHOLE, join(path), field_pattern(path), rv, uv, pod=pod, consequence=consequence,
            node=uv if path[0] == "bindings" and isinstance(uv, str) else None))


def _attempt_summary(a: Mapping[str, Any] | None) -> Any:
    if a is None:
        return MISSING
    return {k: a[k] for k in ("pod", "outcome", "node", "nominatedNode") if a.get(k) is not None}


def _whole_tie(r: Mapping[str, Any], u: Mapping[str, Any], pod: str,
               random_pods: set[str], ties: set[str] | None = None
               ) -> tuple[TieBreak, set[str]] | None:
    if (r["outcome"] == u["outcome"] == "Bound" and r["node"] != u["node"]
            and u["node"] in r["candidates"] and r["node"] in u["candidates"]):
        return (TieBreak(WHOLE, pod, 0, r["node"], u["node"], sorted(u["candidates"])),
                {"node"})
    if r["outcome"] == u["outcome"] == "Nominated" and (
            r["nominatedNode"] != u["nominatedNode"] or r["victims"] != u["victims"]):
        if pod in random_pods:
            return (TieBreak(WHOLE, pod, 0, r["nominatedNode"], u["nominatedNode"],
                             sorted({r["nominatedNode"] or "", u["nominatedNode"] or ""}),
                             "preemption (upstream chose at random: its notes say so)"),
                    {"nominatedNode", "victims", "message"})
        if ties and r["nominatedNode"] in ties and u["nominatedNode"] in ties:
            return (TieBreak(WHOLE, pod, 0, r["nominatedNode"], u["nominatedNode"],
                             sorted(ties), "preemption (a tie upstream breaks at random)"),
                    {"nominatedNode", "victims", "message"})
    return None


def _attempt_layer(d: Divergence) -> int:
    """Where an attempt's field sits in the chain of causes (the message renders everything,
    so it comes last)."""
    last = d.field.rsplit(".", 1)[-1]
    return {"evaluatedNodes": 1, "feasibleNodes": 1, "candidates": 2, "outcome": 3, "node": 3,
            "nominatedNode": 4, "victims": 4, "message": 5}.get(last, 0)
