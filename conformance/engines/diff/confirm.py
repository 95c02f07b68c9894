"""``diff --subject``'s third side: each minimal scenario replayed on the upstream subject, when
it is built and the configuration names in-tree plugins only, to tell whose decisions upstream
makes (docs/diff.md, "Which side upstream takes")."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from conformance.core.errors import ScenarioRejected, SubjectError
from conformance.core.subject import Subject
from conformance.engines.baseline import BaselineReference, resolved
from conformance.engines.diff.minimal import Minimal
from conformance.engines.golden import read_scenario_file

AS_REFERENCE = "upstream decides as the reference"
AS_SUBJECT = ("upstream decides as the subject: the reference departs from upstream here "
              "(a kschedconf bug; please report it)")
AS_BOTH = "upstream decides as both (the divergence is below the decisions: reasons, scores...)"
AS_NEITHER = "upstream decides as neither side"


def decisions(result: Mapping[str, Any]) -> tuple[Any, ...]:
    """What a run decided: bindings, pending and deleted pods."""
    return (dict(result.get("bindings") or {}), sorted(result.get("pending") or []),
            sorted(result.get("deleted") or []))


def side_taken(ref: Mapping[str, Any], subject: Mapping[str, Any],
               upstream: Mapping[str, Any]) -> str:
    """Whose decisions upstream's run makes."""
    r, s, u = decisions(ref), decisions(subject), decisions(upstream)
    if r == s == u:
        return AS_BOTH
    if u == r:
        return AS_REFERENCE
    if u == s:
        return AS_SUBJECT
    return AS_NEITHER


def confirm(minimal: Sequence[Minimal], ref: BaselineReference, subject: Subject,
            upstream: Callable[[], Subject], prepare: Callable[[Any], Any]) -> list[str]:
    """Replay every minimal scenario on the reference, the subject and upstream (under the
    reference's configuration), note on each whose decisions upstream makes, and return the
    lines for the summary; nothing when the configuration names plugins upstream lacks."""
    if not minimal or resolved(ref.baseline.config) is None:
        return []
    try:
        up = upstream()
    except SubjectError as e:
        return [f"upstream check: not run ({str(e).splitlines()[0]})"]
    out: list[str] = []
    try:
        for m in minimal:
            scenario, _, _ = read_scenario_file(m.path)
            scenario = prepare(scenario)
            try:
                r = ref.run(scenario).result
                s = subject.run(scenario).result
                u = up.run(scenario.with_config(ref.baseline.config)).result
            except (ScenarioRejected, SubjectError) as e:
                verdict = f"upstream check: not run ({str(e).splitlines()[0]})"
            else:
                verdict = side_taken(r, s, u)
            m.note = f"{m.note}; {verdict}" if m.note else verdict
            out.append(f"  {m.path}: {verdict}")
    finally:
        up.close()
    return ["upstream check (each minimal scenario on the upstream subject):", *out]
