"""Ties upstream breaks at random in DefaultPreemption: from its notes, and from the candidates
of an explanation (``random_preemption_choice``). Tie-break differences are not divergences."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from conformance.core.scenario import ScenarioInput
from reference_impl.model.loader import load_documents

_PREEMPTION_RANDOM = re.compile(r"^preemption for (?P<pod>\S+): .*(random)")


def random_preemptions(notes: Iterable[str]) -> set[str]:
    """The pods whose preemption choice upstream made at random (from its notes)."""
    out = set()
    for n in notes:
        m = _PREEMPTION_RANDOM.match(n)
        if m:
            out.add(m.group("pod"))
    return out


def random_preemption_choice(candidates: Mapping[str, Sequence[str]],
                             pdb_violations: Mapping[str, int],
                             pods: Mapping[str, Any]) -> set[str]:
    """The candidate nodes among which upstream's ``pickOneNodeForPreemption``
    (``pkg/scheduler/framework/preemption/preemption.go``) picks at random: the nodes still
    tied after fewest PDB violations, lowest highest victim priority, lowest priority sum and
    fewest victims, when the last criterion (the latest earliest start time of the highest
    priority victims, ``util.GetEarliestPodStartTime``) cannot tell them apart for sure.
    ``GetPodStartTime`` reads ``time.Now()`` for a victim without ``status.startTime``, so two
    nodes whose earliest start is "now" are ordered by when the clock was read, i.e. by the
    iteration order of a Go map; a remaining exact tie goes to the first node of that map
    order. ``pods``: victim key -> a pod of the model (``priority``, ``start_time``); victims
    in order of decreasing importance, as candidates list them."""
    nodes = sorted(candidates)
    if len(nodes) < 2 or any(not candidates[n] or any(v not in pods for v in candidates[n])
                             for n in nodes):
        return set()
    max32 = 2**31

    def prio(v: str) -> int:
        return int(pods[v].priority)

    def by_criteria(n: str) -> tuple[int, int, int, int]:
        vs = candidates[n]
        return (-pdb_violations.get(n, 0), -max(prio(v) for v in vs),
                -sum(prio(v) + max32 for v in vs), -len(vs))

    best = max(by_criteria(n) for n in nodes)
    tied = [n for n in nodes if by_criteria(n) == best]
    if len(tied) < 2:
        return set()

    def earliest(n: str) -> float:  # inf: "now"
        vs = candidates[n]
        top = max(prio(v) for v in vs)
        times = [pods[v].start_time for v in vs if prio(v) == top]
        return min(float("inf") if t is None else float(t) for t in times)

    latest = max(earliest(n) for n in tied)
    last = [n for n in tied if earliest(n) == latest]
    return set(last) if len(last) > 1 else set()


def explained_preemption_ties(explanation: Mapping[str, Any],
                              pods: Mapping[str, Any]) -> set[str]:
    """:func:`random_preemption_choice` on the preemption candidates of an Explanation."""
    cands = (explanation.get("preemption") or {}).get("candidates") or []
    return random_preemption_choice({c["node"]: list(c.get("victims") or []) for c in cands},
                                    {c["node"]: int(c.get("pdbViolations") or 0)
                                     for c in cands}, pods)


def model_pods(scenario: ScenarioInput) -> dict[str, Any]:
    """The scenario's pods as the reference's loader reads them (admission applied), by
    key."""
    try:
        loaded = load_documents(scenario.documents, source=scenario.name)
    except Exception:  # noqa: BLE001 - a scenario the reference refuses: nothing to tell
        return {}
    return {p.key: p for p in loaded.cluster.pods}
