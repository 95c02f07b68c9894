"""Asking a subject for a run or an explanation. A refusal (:class:`ScenarioRejected`) is an
answer, not an error (:class:`ScenarioUnsupported`: the scenario is skipped); a crash of the
in-process reference is one too (reported as a divergence); any other subject's
:class:`SubjectError` or exception propagates."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from conformance.core.dropped import dropped_counts, not_judged
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioRejected, ScenarioUnsupported, Subject, SubjectError

REJECTED = "rejected: "
#: how a refusal as :class:`ScenarioUnsupported` starts (a rejection too)
UNSUPPORTED = REJECTED + "unsupported: "


@dataclass(slots=True)
class Ran:
    """A subject's run of a scenario: the SimulationResult, or ``error`` saying why not."""

    doc: dict[str, Any] | None
    error: str = ""  # "rejected: ..." or "raised ValueError: ..."
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def run_subject(subject: Subject, scenario: ScenarioInput, reference: bool = False) -> Ran:
    """``subject.run(scenario)``; ``reference``: catch the subject's crashes too."""
    try:
        res = subject.run(scenario)
    except ScenarioRejected as e:
        return Ran(None, error_text(e))
    except SubjectError:
        raise
    except Exception as e:  # noqa: BLE001 - a crash of the in-process reference
        if not reference:
            raise
        return Ran(None, f"raised {type(e).__name__}: {e}")
    return Ran(dict(res.result), "", list(res.notes), list(res.warnings))


def note_inputs(dropped: dict[str, dict[str, int]], ref: Subject, r: Ran, up: Subject,
                u: Ran) -> str:
    """Record in ``dropped`` what each side's warnings say it dropped; return why the
    comparison judges nothing (both sides ended every pod in Error), else ``""``."""
    for subject, ran in ((ref, r), (up, u)):
        counts = dropped_counts(ran.warnings)
        if counts:
            dropped[subject.name] = counts
    if r.doc is None or u.doc is None:
        return ""
    why_r, why_u = not_judged(r.doc, r.warnings), not_judged(u.doc, u.warnings)
    return f"{ref.name}: {why_r}; {up.name}: {why_u}" if why_r and why_u else ""


def explain_pod(subject: Subject, scenario: ScenarioInput, pod: str,
            reference: bool = False) -> dict[str, Any] | Exception:
    """``subject.explain(scenario, pod)``, or the refusal (or the reference's crash)."""
    try:
        return subject.explain(scenario, pod)
    except ScenarioRejected as e:
        return e
    except SubjectError:
        raise
    except Exception as e:  # noqa: BLE001 - a crash of the in-process reference
        if not reference:
            raise
        return e


def explain_pods(subject: Subject, scenario: ScenarioInput, pods: Sequence[str],
                 reference: bool = False) -> list[dict[str, Any] | Exception]:
    """``subject.explain_many(scenario, pods)``: :func:`explain_pod` of each pod (a refusal
    is that pod's answer), asked together (the upstream subject explains them in one world,
    the reference loads the cluster once). ``reference``: after a crash, each pod is asked
    alone, so that the crash is the answer of its pod only, as :func:`explain_pod` gives."""
    try:
        return list(subject.explain_many(scenario, pods))
    except SubjectError:
        raise
    except Exception:  # noqa: BLE001 - a crash of the in-process reference
        if not reference:
            raise
        return [explain_pod(subject, scenario, pod, reference=True) for pod in pods]


def is_rejection(text: str) -> bool:
    return text.startswith(REJECTED)


def unsupported(r: Ran, u: Ran, ref: Subject, up: Subject) -> str:
    """Why the scenario is skipped: a side refused it as :class:`ScenarioUnsupported` (valid
    input it cannot run, such as storage on the backends); ``""`` otherwise."""
    for subject, ran in ((ref, r), (up, u)):
        if ran.error.startswith(UNSUPPORTED):
            return f"{subject.name}: {ran.error[len(UNSUPPORTED):]}"
    return ""


def error_text(e: BaseException) -> str:
    if isinstance(e, ScenarioUnsupported):
        return f"{UNSUPPORTED}{e}"
    if isinstance(e, ScenarioRejected):
        return f"{REJECTED}{e}"
    return f"raised {type(e).__name__}: {e}"
