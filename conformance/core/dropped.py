"""What a subject left out of a run: the input it does not model (the ``ignored N object(s) of
kind K`` warnings of its loader, in ``SubjectResult.warnings``), counted by kind, and runs no
oracle can judge (every pod ended in Error, or every object was dropped). Case properties
``dropped`` and ``not_judged`` carry them to every report (docs/outputs.md)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from conformance.core.results import CaseResult

#: case property: the kinds the subject dropped and their counts, ``Service=2,Deployment=1``
DROPPED = "dropped"
#: case property: why (part of) the case was not judged
NOT_JUDGED = "not_judged"

_OBJECTS = re.compile(r"ignored (\d+) object\(s\) of kind (\S+)")


def dropped_counts(warnings: Iterable[str]) -> dict[str, int]:
    """The kinds a subject's load warnings say it ignored, with their counts (the
    reference's loader and the upstream subject word them alike). Pods in phase
    Succeeded/Failed are not counted: kube-scheduler does not see them either."""
    out: dict[str, int] = {}
    for w in warnings:
        for n, kind in _OBJECTS.findall(w):
            out[kind] = out.get(kind, 0) + int(n)
    return out


def add_counts(into: dict[str, int], more: Mapping[str, int]) -> dict[str, int]:
    for kind, n in more.items():
        into[kind] = into.get(kind, 0) + n
    return into


def format_counts(counts: Mapping[str, int]) -> str:
    """``Deployment=1,Service=2`` (sorted by kind): the ``dropped`` case property."""
    return ",".join(f"{k}={counts[k]}" for k in sorted(counts))


def parse_counts(text: str) -> dict[str, int]:
    """The inverse of :func:`format_counts`."""
    out: dict[str, int] = {}
    for part in filter(None, text.split(",")):
        kind, _, n = part.rpartition("=")
        if kind and n.isdigit():
            out[kind] = out.get(kind, 0) + int(n)
    return out


def describe_counts(counts: Mapping[str, int]) -> str:
    """``2 Service, 1 Deployment`` for a sentence."""
    return ", ".join(f"{counts[k]} {k}" for k in sorted(counts))


def not_judged(result: Mapping[str, Any], warnings: Iterable[str] = ()) -> str:
    """Why no oracle can judge this SimulationResult, or ``""``: every attempted pod's last
    attempt ended in Error (the subject scheduled nothing it could be judged on), or nothing
    was attempted nor bound while the subject dropped input."""
    last: dict[str, Mapping[str, Any]] = {}
    for a in result.get("attempts") or []:
        last[str(a.get("pod"))] = a
    if last:
        if all(a.get("outcome") == "Error" for a in last.values()):
            pod, first = next(iter(last.items()))
            return (f"every pod ended in Error ({len(last)} pod(s)); {pod}: "
                    f"{first.get('message') or 'no message'}")
        return ""
    dropped = dropped_counts(warnings)
    if dropped and not result.get("bindings") and not result.get("pending"):
        return f"nothing to schedule: the subject dropped {describe_counts(dropped)}"
    return ""


def note_dropped(case: CaseResult, dropped: Mapping[str, int], not_judged: str = "") -> None:
    """Put what the subject dropped and what was not judged in the case's properties and
    details (a failed or errored case keeps its message)."""
    lines: list[str] = []
    if dropped:
        case.properties[DROPPED] = format_counts(dropped)
        lines.append(f"the subject dropped input it does not model: {describe_counts(dropped)}")
    if not_judged:
        case.properties[NOT_JUDGED] = not_judged
        if not case.details.startswith("not judged"):
            lines.append(f"not judged: {not_judged}")
    if lines:
        case.details = "\n".join([*filter(None, [case.details]), *lines])
