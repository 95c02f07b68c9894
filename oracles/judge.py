"""Judging a subject's result: choosing oracles by name, running them on a result (an oracle
that raises is itself a finding; what only upstream's intent forbids is a finding tagged with
the upstream deviation the subject shares; what only a rule a declared replacement changes on
purpose forbids is a finding tagged as an intended change) and on a subject run (a crash is a
``subject-crash`` finding)."""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conformance.core.errors import UsageError
from conformance.core.replacements import changed_rules
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject, SubjectError, SubjectResult
from oracles import ALL_ORACLES, Oracle
from oracles.base import OracleContext

#: the pseudo-oracle a subject crash (an exception other than SubjectError) is reported under
CRASH = "subject-crash"


def all_oracles() -> dict[str, Oracle]:
    """``oracles.ALL_ORACLES``: name → ``check(ctx) -> list[Violation]``."""
    return dict(ALL_ORACLES)


def select_oracles(names: Sequence[str] | None) -> dict[str, Oracle]:
    """The named oracles (all when ``names`` is empty); ``ValueError`` for an unknown name."""
    known = all_oracles()
    if not names:
        return known
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"unknown oracle(s) {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(known))})")
    return {n: known[n] for n in dict.fromkeys(names)}


@dataclass(slots=True)
class Finding:
    """One violation of one oracle on one scenario, as text. ``deviation``: the upstream
    deviations (comma-separated ids of oracles/upstream_deviations.yaml) the subject shares
    when only upstream's intent forbids what it did: it matches upstream, and fails only
    under ``--strict-intent``."""

    oracle: str
    text: str
    deviation: str | None = None
    #: the rules a declared replacement changes on purpose (comma-separated rule ids,
    #: ``NodeResourcesFit/ephemeral-storage``) when only they forbid what the subject did:
    #: an intended change, never a failure (docs/plugins.md)
    intended: str | None = None

    def __str__(self) -> str:
        tag = f"[{self.oracle}]"
        text = self.text if self.text.startswith(tag) else f"{tag} {self.text}"
        if self.intended:
            return f"{text} (intended change: {self.intended})"
        return f"{text} (matches upstream: {self.deviation})" if self.deviation else text


def failures(findings: Sequence[Finding], strict_intent: bool = False) -> list[Finding]:
    """The findings that fail a case: all but intended changes under ``strict_intent``,
    else those that neither match upstream nor are intended changes."""
    return [f for f in findings if not f.intended and (strict_intent or not f.deviation)]


def matching_upstream(findings: Sequence[Finding]) -> list[str]:
    """The upstream deviations the findings match, sorted, each once."""
    return _labels(f.deviation for f in findings)


def intended_changes(findings: Sequence[Finding]) -> list[str]:
    """The changed rules the intended-change findings break, sorted, each once."""
    return _labels(f.intended for f in findings)


def _labels(tags: Iterable[str | None]) -> list[str]:
    return sorted({t for tag in tags if tag for t in tag.split(",")})


def judged_scenario(scenario: ScenarioInput, subject: Subject) -> ScenarioInput:
    """The scenario as ``subject`` runs it: with the subject's fixed configuration
    (``reference:CFG``, a backend's scheduler configuration) in place of the scenario's own,
    so that the oracles judge with the configuration the subject ran (docs/oracles.md)."""
    fixed = subject.fixed_config
    return scenario if fixed is None else scenario.with_config(fixed)


def oracle_context(scenario: ScenarioInput, result: SubjectResult,
                   subject: Subject) -> OracleContext:
    """The context the oracles judge: the scenario (with the configuration the subject ran,
    each declared replacement read as the in-tree plugin it replaces), the initial cluster and
    what the subject produced (result, trace, explanations)."""
    ctx = OracleContext.build(judged_scenario(scenario, subject), result)
    return ctx.replaced_by(subject.replacements)


def violation_text(v: Any) -> str:
    """A violation as text: its own ``__str__`` if it has one, else its ``message``."""
    if type(v).__str__ is object.__str__:
        for attr in ("message", "text", "detail"):
            m = getattr(v, attr, None)
            if isinstance(m, str) and m:
                return m
    return str(v)


def check_result(scenario: ScenarioInput, result: SubjectResult, subject: Subject,
                 checks: Mapping[str, Oracle]) -> list[Finding]:
    """Apply the oracles to one result; an oracle that raises is reported as a finding. With
    rules a declared replacement changes on purpose, the oracles judge without them, and
    what they find only with them is an intended change."""
    full = oracle_context(scenario, result, subject)
    changed = changed_rules(subject.replacements)
    ctx = full.relaxing(frozenset(changed)) if changed else full
    out: list[Finding] = []
    met: set[str] = getattr(ctx, "met", set())  # the followed deviations that changed a verdict
    for name, check in checks.items():
        met.clear()
        try:
            violations = list(check(ctx) or ())
            out.extend(Finding(name, violation_text(v), getattr(v, "deviation", None))
                       for v in violations)
            if met:
                out += _intent_only(name, check, ctx, violations)
            if changed:
                out += _intended_only(name, check, full, violations, ",".join(sorted(changed)))
        except Exception as e:  # an oracle bug must not pass silently
            out.append(Finding(name, f"the oracle raised {type(e).__name__}: {e}\n"
                                     + _tb_tail(e)))
    return out


def _intent_only(name: str, check: Oracle, ctx: OracleContext,
                 violations: Sequence[Any]) -> list[Finding]:
    """The oracle again, with the rules stating the intent where a followed upstream
    deviation changed a verdict: what it finds only then matches upstream."""
    met = frozenset(ctx.met)
    seen = {_where(v) for v in violations}
    label = ",".join(sorted(met))
    return [Finding(name, violation_text(v), label)
            for v in check(ctx.following(ctx.follow - met)) or ()
            if _where(v) not in seen]


def _intended_only(name: str, check: Oracle, full: OracleContext,
                   violations: Sequence[Any], label: str) -> list[Finding]:
    """The oracle again, with every rule: what it finds only then breaks a rule the
    replacement changes on purpose (``label``: those rules)."""
    seen = {_where(v) for v in violations}
    return [Finding(name, violation_text(v), intended=label)
            for v in check(full.relaxing(frozenset())) or () if _where(v) not in seen]


def _where(v: Any) -> tuple[Any, ...]:
    """What a violation is about: its pod and node, else its text."""
    pod, node = getattr(v, "pod", None), getattr(v, "node", None)
    return (pod, node) if pod or node else (violation_text(v),)


def _tb_tail(e: BaseException, lines: int = 12) -> str:
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__)).rstrip()
    return "\n".join(tb.splitlines()[-lines:])


def evaluate(subject: Subject, scenario: ScenarioInput,
             checks: Mapping[str, Oracle]) -> tuple[SubjectResult | None,
                                                                          list[Finding]]:
    """Run the subject on the scenario (:func:`judged_scenario`) and apply the oracles. A
    :class:`SubjectError` propagates; any other exception of the subject is a
    ``subject-crash`` finding."""
    scenario = judged_scenario(scenario, subject)
    try:
        result = subject.run(scenario)
    except SubjectError:
        raise
    except Exception as e:
        return None, [Finding(CRASH, f"{subject.name} raised {type(e).__name__}: {e}\n"
                                     + _tb_tail(e))]
    return result, check_result(scenario, result, subject, checks)
