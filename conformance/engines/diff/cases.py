"""A compared scenario as a case of the run (``CaseResult``: failed when it has unexplained
divergences), and the totals and artifact lines of the run's summary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from conformance.core.dropped import describe_counts, note_dropped
from conformance.core.results import ERROR, FAILED, SKIPPED, CaseResult
from conformance.engines.diff.minimal import Minimal
from conformance.engines.diff.model import DECISIONS, WHOLE, Divergence, ScenarioDiff, Sig

SUITE = "diff"
#: Root divergences, tie-breaks and notes listed in a case's details at most.
LISTED = 12


def classname(family: str) -> str:
    return f"kschedconf.diff.{family or 'replay'}"


def _roots(divs: Sequence[Divergence]) -> list[Divergence]:
    return [d for d in divs if not d.consequence] or list(divs)


def _known_ids(res: ScenarioDiff) -> str:
    by_id: dict[str, int] = {}
    for d in res.known:
        by_id[d.known or ""] = by_id.get(d.known or "", 0) + 1
    return ", ".join(f"{k} ({v})" for k, v in sorted(by_id.items()))


def _listed(prefix: str, items: Sequence[object], what: str) -> list[str]:
    out = [f"{prefix}{x}" for x in items[:LISTED]]
    if len(items) > LISTED:
        out.append(f"... and {len(items) - LISTED} more {what}")
    return out


def case_result(res: ScenarioDiff) -> CaseResult:
    """The case of a compared scenario: its counts as properties; when it failed, the message
    is its first unexplained root divergence and the details list the roots, tie-breaks and
    notes (:func:`attach_minimal` adds the minimal scenario); a passing case's details list
    its known divergences, tie-breaks and timing hazards."""
    props = {"modes": ",".join(res.modes), "attempts": str(res.attempts)}
    if DECISIONS in res.modes:
        props["decisions_compared"] = str(res.decisions_compared).lower()
        props["timing_hazards"] = " | ".join(res.hazards)
    props.update(lockstep_steps=str(res.steps), divergences=str(len(res.unexplained)),
                 known_divergences=str(len(res.known)), tie_breaks=str(len(res.tie_breaks)))
    if res.known:
        props["known"] = _known_ids(res)
    case = CaseResult(SUITE, classname(res.family), res.name, seconds=res.seconds,
                      properties=props)
    if res.unsupported:
        case.status, case.message = SKIPPED, f"not supported: {res.unsupported}"[:500]
        case.details = res.unsupported
        return case
    lines: list[str] = []
    if res.unexplained:
        roots = _roots(res.unexplained)
        case.status = FAILED
        case.message = str(roots[0])[:500]
        lines += _listed("", roots, "unexplained root divergence(s)")
        rest = len(res.unexplained) - len(roots)
        if rest:
            lines.append(f"... and {rest} consequence(s) of these")
    lines += _listed("known: ", _roots(res.known), "known divergence(s)")
    lines += _listed("tie-break: ", res.tie_breaks, "tie-break difference(s)")
    lines += [f"timing hazard: {h}" for h in res.hazards]
    if res.unexplained:
        lines += _listed("note: ", res.notes, "note(s)")
    if not res.unexplained and res.not_judged:
        case.status = ERROR
        case.message = f"not judged: {res.not_judged}"
    case.details = "\n".join(lines)
    dropped: dict[str, int] = {}
    for counts in res.dropped.values():  # what either side dropped
        for kind, n in counts.items():
            dropped[kind] = max(dropped.get(kind, 0), n)
    note_dropped(case, dropped, res.not_judged)
    for side, counts in res.dropped.items():
        case.details += f"\n{side} dropped: {describe_counts(counts)}"
    return case


def detail(res: ScenarioDiff) -> str:
    """The rest of the console line of a finished case."""
    out = f"{res.seconds:.2f}s"
    if res.unsupported:
        return f"{out}  skipped: {res.unsupported[:300]}"
    if res.unexplained:
        return f"{out}  {str(_roots(res.unexplained)[0])[:300]}"
    if res.known:
        out += f"  known: {_known_ids(res)}"
    if res.tie_breaks:
        out += f"  {len(res.tie_breaks)} tie-break(s)"
    if res.hazards:
        out += "  timing hazards: " + ", ".join(sorted({h.split(":", 1)[0]
                                                        for h in res.hazards}))
    return out


def attach_minimal(case: CaseResult, res: ScenarioDiff, by_sig: Mapping[Sig, Minimal],
                   own: Minimal | None = None) -> None:
    """Name the failed case's own scenario file when it has one (``own``: a golden scenario,
    or the scenario first showing its kinds), else the minimal scenario of its first kind of
    divergence that has one."""
    if case.status != FAILED or case.counterexample:
        return
    for sig in res.signatures():
        m = own if own is not None and sig in own.signatures else by_sig.get(sig)
        if m is not None:
            case.counterexample, case.reproduce = m.path, m.reproduce
            case.details += (f"\nminimal scenario: {m.path}{'' if m.shrunk else ' (not shrunk)'}"
                             f"\nreproduce: {m.reproduce}")
            return


def totals(results: Sequence[ScenarioDiff], compare_seconds: float) -> list[str]:
    """What was compared and found, for the summary line."""
    n = len(results)
    whole = sum(1 for r in results if WHOLE in r.modes)
    steps = sum(r.steps for r in results)
    rate = n / compare_seconds if compare_seconds > 0 else 0.0
    unexplained = sum(len(r.unexplained) for r in results)
    bad = sum(1 for r in results if r.unexplained)
    skipped = sum(1 for r in results if r.unsupported)
    return [f"{n} scenarios compared ({whole} whole runs, {steps} lockstep steps) in "
            f"{compare_seconds:.1f}s: {rate:.2f} scenarios/s",
            f"{unexplained} unexplained divergence(s) in {bad} scenario(s)",
            f"{sum(len(r.known) for r in results)} known",
            f"{sum(len(r.tie_breaks) for r in results)} tie-break difference(s)"] + \
        ([f"{skipped} scenario(s) skipped (a subject cannot run them)"] if skipped else [])


def artifacts(results: Sequence[ScenarioDiff], minimal: Sequence[Minimal],
              seed: int | None) -> list[str]:
    """The lines after the summary line: known divergences by id, tie-breaks, decisions
    mode's exact comparisons and timing hazards, the minimal scenarios, the seed."""
    out: list[str] = []
    by_id: dict[str, int] = {}
    for d in (d for r in results for d in r.known):
        by_id[d.known or ""] = by_id.get(d.known or "", 0) + 1
    if by_id:
        out.append("known divergences: " + ", ".join(f"{k} ({v})"
                                                     for k, v in sorted(by_id.items())))
    ties = [t for r in results for t in r.tie_breaks]
    if ties:
        out.append(f"tie-break differences: {len(ties)}")
        out += [f"    {t}" for t in ties[:10]]
    dec = [r for r in results if DECISIONS in r.modes]
    if dec:
        exact = sum(1 for r in dec if r.decisions_compared)
        kinds: dict[str, int] = {}
        for r in dec:
            for h in r.hazards:
                kinds[h.split(":", 1)[0]] = kinds.get(h.split(":", 1)[0], 0) + 1
        out.append(f"decisions: {exact} of {len(dec)} scenarios compared exactly with the "
                   f"reference; all {len(dec)} judged by the oracles; not compared exactly "
                   f"(timing hazards): {len(dec) - exact}"
                   + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) + ")"
                      if kinds else ""))
    if minimal:
        out.append("minimal scenarios (one per kind of divergence):")
        for m in minimal:
            out += m.lines()
    if seed is not None:
        out.append(f"seed {seed} (the same --seed generates the same scenarios)")
    return out
