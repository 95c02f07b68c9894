"""Oracle ``consistency``: the result document agrees with its own attempts.

Invariants: every attempt concerns a pod that is pending at that time (a pod is never bound
twice; an attempt never names an unknown or deleted pod); a Bound attempt names an existing
node; every victim was a pod of the cluster when it was preempted; and replaying the attempts
(and the timeline) over the initial cluster gives exactly the document's final ``bindings``,
``pending`` pods and ``deleted`` victims.

Upstream basis: a pod is bound once (``schedule_one.go``: ``skipPodSchedule`` drops pods that
are assumed or bound; the binding cycle binds the assumed pod), victims are deleted through the
API (``preemption/executor.go``), and the result is the API server's final view.
"""

from __future__ import annotations

from oracles.base import OracleContext, Violation
from oracles.replay import Replay

NAME = "consistency"
MAX_LISTED = 5


def _diff(label: str, expected: dict[str, str], got: dict[str, str]) -> str | None:
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    changed = sorted(k for k in set(expected) & set(got) if expected[k] != got[k])
    if not (missing or extra or changed):
        return None
    parts = []
    if missing:
        parts.append(f"missing {', '.join(f'{k}->{expected[k]}' for k in missing[:MAX_LISTED])}")
    if extra:
        parts.append(f"unexpected {', '.join(f'{k}->{got[k]}' for k in extra[:MAX_LISTED])}")
    if changed:
        parts.append("different " + ", ".join(f"{k}: {got[k]} instead of {expected[k]}"
                                              for k in changed[:MAX_LISTED]))
    return f"the document's {label} do not match its attempts: " + "; ".join(parts)


def check(ctx: OracleContext) -> list[Violation]:
    """Every attempt names a pending pod and existing nodes, and the document's bindings, pending
    pods and deleted victims are what its attempts produce (see the module docstring)."""
    replay = Replay.of(ctx)
    final = replay.run()
    out = [Violation(NAME, pod, None, f"attempt {i}: {what}") for i, pod, what in final.anomalies]
    doc = ctx.result
    if "bindings" in doc:
        msg = _diff("bindings", final.bindings(), dict(doc["bindings"] or {}))
        if msg:
            out.append(Violation(NAME, None, None, msg))
    if "pending" in doc:
        want = sorted(final.pending)
        got = sorted(doc["pending"] or [])
        if want != got:
            out.append(Violation(NAME, None, None, (
                f"the document lists {len(got)} pending pod(s), the replay ends with "
                f"{len(want)}: only in the document {sorted(set(got) - set(want))[:MAX_LISTED]}, "
                f"only in the replay {sorted(set(want) - set(got))[:MAX_LISTED]}")))
    if "deleted" in doc:
        victims = sorted({v for vs in final.victims_of.values() for v in vs})
        got = sorted(doc["deleted"] or [])
        if victims != got:
            out.append(Violation(NAME, None, None, (
                f"the document's deleted pods {got[:MAX_LISTED]} are not the victims its "
                f"attempts report {victims[:MAX_LISTED]}")))
    return out
