"""The properties engine: a property is a scenario family paired with one oracle; Hypothesis
generates scenarios, the subject runs each, the oracle judges, and a violation is shrunk to a
minimal counterexample. Each property stops at ``max_examples`` or at its share of the budget.

The Hypothesis settings profiles ``kschedconf-dev``, ``kschedconf-ci`` and
``kschedconf-thorough`` are registered on import (``--profile``; with pytest,
``--hypothesis-profile kschedconf-ci``)."""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky

from conformance.core.dropped import add_counts, dropped_counts, not_judged
from conformance.core.errors import SubjectError, Terminated, UsageError, raise_requested_stop
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject
from oracles import ORACLE_FEATURES, Oracle
from oracles.judge import Finding, evaluate, failures, intended_changes, matching_upstream
from strategies.draws import seed_only_draws
from strategies.families import FEATURE_FAMILIES, scenario_strategy

T = TypeVar("T")

#: The clock of budgets: property deadlines, shrink deadlines and the shares of a budget
#: (``time.monotonic``; tests put in one that does not depend on the machine's speed).
clock: Callable[[], float] = time.monotonic

_COMMON: dict[str, Any] = {
    "deadline": None,  # scheduling a scenario has no fixed time bound
    # no "explain" phase: it re-runs the failing scenario many times to annotate a printout
    # kschedconf does not show
    "phases": [Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    "suppress_health_check": list(HealthCheck),  # large generated inputs are the point
    "report_multiple_bugs": False,
    "print_blob": False,
}
PROFILES: dict[str, dict[str, Any]] = {
    # local iterations: few examples, remembered failures replayed first (.hypothesis/)
    "dev": {"max_examples": 25, "derandomize": False, **_COMMON},
    # CI: reproducible (derandomized; with --seed the seed decides), no example database
    "ci": {"max_examples": 100, "derandomize": True, "database": None, **_COMMON},
    # nightly / before a release: many examples, bigger clusters
    "thorough": {"max_examples": 1000, "derandomize": False, **_COMMON},
}
PROFILE_FAMILIES: dict[str, tuple[str, ...]] = {
    "dev": ("small",),
    "ci": ("small", "medium"),
    "thorough": ("small", "medium", "large"),
}
for _name, _values in PROFILES.items():
    settings.register_profile(f"kschedconf-{_name}", **_values)


def profile_settings(profile: str) -> settings:
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r} (known: {', '.join(PROFILES)})")
    return settings.get_profile(f"kschedconf-{profile}")




@dataclass(frozen=True, slots=True)
class Property:
    family: str
    oracle: str

    @property
    def id(self) -> str:
        return f"{self.family}/{self.oracle}"

    @property
    def file_stem(self) -> str:
        return f"{self.oracle}-{self.family}".replace("/", "_")


def family_features(family: str) -> frozenset[str]:
    """The opt-in features (``dra``, ``storage``) the scenarios of ``family`` may hold."""
    return FEATURE_FAMILIES[family][1] if family in FEATURE_FAMILIES else frozenset()


def judges(oracle: str, family: str) -> bool:
    """Whether ``oracle`` has anything to judge in ``family``'s scenarios: an oracle of an
    opt-in feature (``oracles.ORACLE_FEATURES``) only where the family generates it."""
    needs = ORACLE_FEATURES.get(oracle)
    return not needs or bool(needs & family_features(family))


def property_list(families: Sequence[str], oracle_names: Sequence[str]) -> list[Property]:
    """Every family × oracle that :func:`judges` it, in a stable order (family order given,
    oracles by name)."""
    return [Property(f, o) for f in families for o in sorted(oracle_names) if judges(o, f)]


def unplanned_oracles(families: Sequence[str], oracle_names: Sequence[str]) -> list[str]:
    """The oracles no family of ``families`` gives anything to judge."""
    return [o for o in oracle_names if not any(judges(o, f) for f in families)]


class PropertyViolation(AssertionError):
    """Raised inside the Hypothesis test when the oracle finds a violation."""


class _OutOfBudget(BaseException):
    """The property's time share is used up (a BaseException: Hypothesis lets it through
    instead of treating it as a failure)."""


class _SubjectAbort(BaseException):
    """The subject failed (SubjectError): stop the property, do not shrink."""

    def __init__(self, error: SubjectError) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(slots=True)
class PropertyState:
    """What one property run did; ``failure`` is the smallest failing scenario seen."""

    examples: int = 0
    shrinks: int = 0
    started: float = field(default_factory=time.monotonic)
    failure: tuple[ScenarioInput, list[Finding]] | None = None
    failure_size: tuple[int, int] = (0, 0)
    failure_calls: int = 0
    subject_error: SubjectError | None = None
    #: why it stopped: "max_examples" (the example cap), "exhausted" (Hypothesis found no
    #: further distinct scenario), "budget", "failure", "error", "interrupted"
    stopped_by: str = "max_examples"
    interrupt: BaseException | None = None  # the Ctrl-C or signal that stopped it
    shrink_cut: bool = False  # shrinking stopped at the shrink deadline
    flaky: bool = False  # the failure did not happen again when replayed
    error: str = ""
    #: kinds of input the subject dropped, over every example (conformance/core/dropped.py)
    dropped: dict[str, int] = field(default_factory=dict)
    not_judged: int = 0  # examples no oracle could judge
    judged: int = 0  # examples with attempts the oracles could judge
    not_judged_reason: str = ""  # the first one's
    #: upstream deviation id -> examples whose only findings match upstream through it
    matches_upstream: dict[str, int] = field(default_factory=dict)
    #: changed rule id -> examples whose only findings break rules a declared replacement
    #: changes on purpose
    intended_changes: dict[str, int] = field(default_factory=dict)

    ended: float | None = None  # when it stopped (its seconds no longer grow)

    @property
    def seconds(self) -> float:
        return (self.ended if self.ended is not None else time.monotonic()) - self.started

    def record(self, scenario: ScenarioInput, findings: list[Finding]) -> None:
        self.failure_calls += 1
        size = (len(scenario.all_documents()), len(repr(scenario.all_documents())))
        if self.failure is None or size <= self.failure_size:
            self.failure = (scenario, findings)
            self.failure_size = size


def property_seed(seed: int, prop: Property) -> int:
    """The Hypothesis seed of one property: the run's seed mixed with the property id, so
    properties explore differently but a run is reproducible."""
    return (seed * 1_000_003 + zlib.crc32(prop.id.encode())) % (1 << 63)


def run_property(prop: Property, subject: Subject, check: Oracle, *,
                 also: Mapping[str, Oracle] | None = None, base: settings,
                 max_examples: int, seed: int | None,
                 deadline: float | None, shrink_time: float | None = None,
                 prepare: Callable[[ScenarioInput], ScenarioInput] | None = None,
                 strategy: st.SearchStrategy[ScenarioInput] | None = None,
                 on_example: Callable[[PropertyState], None] | None = None,
                 strict_intent: bool = False) -> PropertyState:
    """Run one property with Hypothesis; never raises for a failure (see ``state``). A Ctrl-C
    or :class:`Terminated` is returned in ``state.interrupt`` for the caller to report what
    was done and raise it.

    ``deadline``: the :data:`clock` value after which no new example is generated.
    ``shrink_time``: seconds shrinking may take after the first failure (it may always go on
    until ``deadline``); then it stops and the smallest failure seen so far is kept.
    ``also``: more oracles every example is judged with. ``strict_intent``: findings that
    match upstream (a known upstream deviation) fail too.
    """
    state = PropertyState()
    shrink_deadline: list[float] = []
    checks = {prop.oracle: check, **(also or {})}

    def body(scenario: ScenarioInput) -> None:
        raise_requested_stop()  # a Ctrl-C Python swallowed
        now = clock()
        if state.failure is None:
            if deadline is not None and state.examples > 0 and now >= deadline:
                state.stopped_by = "budget"
                raise _OutOfBudget
            state.examples += 1
        else:
            if shrink_deadline and now >= shrink_deadline[0]:
                state.shrink_cut = True
                raise _OutOfBudget
            state.shrinks += 1
        if on_example is not None:
            on_example(state)
        if prepare is not None:
            scenario = prepare(scenario)
        try:
            result, findings = evaluate(subject, scenario, checks)
        except SubjectError as e:
            raise _SubjectAbort(e) from e
        if result is not None and state.failure is None:  # generated examples, not shrinks
            add_counts(state.dropped, dropped_counts(result.warnings))
            why = not_judged(result.result, result.warnings)
            if why:
                state.not_judged += 1
                state.not_judged_reason = state.not_judged_reason or why
            elif result.result.get("attempts"):
                state.judged += 1
        if findings and not failures(findings, strict_intent) and state.failure is None:
            for dev in matching_upstream(findings):
                state.matches_upstream[dev] = state.matches_upstream.get(dev, 0) + 1
            for rule in intended_changes(findings):
                state.intended_changes[rule] = state.intended_changes.get(rule, 0) + 1
        findings = failures(findings, strict_intent)
        if findings:
            if state.failure is None and shrink_time is not None:
                t = clock() + shrink_time
                shrink_deadline.append(max(t, deadline) if deadline is not None else t)
            state.record(scenario, findings)
            raise PropertyViolation(str(findings[0]))

    try:
        with seed_only_draws():
            _hypothesis_test(prop, body, base, max_examples, seed, strategy)()
    except _OutOfBudget:
        if state.failure is not None:
            state.stopped_by = "failure"
    except _SubjectAbort as e:
        state.subject_error = e.error
        state.stopped_by = "error"
    except (KeyboardInterrupt, Terminated) as e:
        state.interrupt = e
        state.stopped_by = "interrupted"
    except Exception as e:  # PropertyViolation, or Hypothesis' Flaky/Unsatisfiable...
        if (stop := _interrupt_in(e)) is not None:
            # a Ctrl-C in Hypothesis' own setup can surface as another error raised while
            # handling it (an AssertionError of hypothesis.core's wrapped_test)
            state.interrupt = stop
            state.stopped_by = "interrupted"
        elif state.failure is not None:
            state.stopped_by = "failure"
            state.flaky = _is_flaky(e)
        else:
            state.stopped_by = "error"
            state.error = f"{type(e).__name__}: {e}"
    else:
        if state.failure is None and state.examples < max_examples:
            state.stopped_by = "exhausted"
    state.ended = time.monotonic()
    return state


def _hypothesis_test(prop: Property, body: Callable[[ScenarioInput], None], base: settings,
                     max_examples: int, seed: int | None,
                     strategy: st.SearchStrategy[ScenarioInput] | None) -> Callable[[], None]:
    """The Hypothesis test of a property: ``body`` on each scenario drawn."""
    # Distinct example-database keys (and derandomization) per property.
    body._hypothesis_internal_add_digest = prop.id.encode()  # type: ignore[attr-defined]
    s = settings(base, max_examples=max_examples, verbosity=Verbosity.quiet)
    test: Any = given(strategy if strategy is not None else scenario_strategy(prop.family))(body)
    if seed is not None:
        # the seed decides the generated examples. @seed turns the database off; the settings
        # applied after it keep ``base``'s, so a run with a drawn seed still replays the
        # failures the dev profile remembers first (callers replaying a seed pass a base
        # without a database)
        test = hypothesis_seed(property_seed(seed, prop))(test)
        s = settings(s, derandomize=False)
    return s(test)  # type: ignore[no-any-return]


def draw_scenarios(prop: Property, seed: int, n: int) -> list[ScenarioInput]:
    """The scenarios ``kschedconf run --seed SEED --no-database --max-examples N`` gives the
    subject for ``prop`` (before ``--config``) when none fails, in order."""
    drawn: list[ScenarioInput] = []

    def body(scenario: ScenarioInput) -> None:
        drawn.append(scenario)

    base = settings(no_shrink(profile_settings("dev")), database=None)
    with seed_only_draws():
        _hypothesis_test(prop, body, base, n, seed, None)()
    return drawn


def _interrupt_in(e: BaseException) -> BaseException | None:
    """The Ctrl-C or Terminated an exception was raised while handling, if any."""
    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, KeyboardInterrupt | Terminated):
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None


def _is_flaky(e: BaseException) -> bool:
    if isinstance(e, Flaky):
        return True
    return isinstance(e, BaseExceptionGroup) and any(_is_flaky(x) for x in e.exceptions)


def no_shrink(base: settings) -> settings:
    """``base`` without the shrink phase (for quick looks)."""
    return settings(base, phases=[p for p in base.phases if p != Phase.shrink])


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` → ``(K, N)`` with 1 <= K <= N."""
    try:
        k_s, n_s = text.split("/")
        k, n = int(k_s), int(n_s)
    except ValueError:
        raise UsageError(f"--shard {text!r}: expected K/N, e.g. 2/4") from None
    if not 1 <= k <= n:
        raise UsageError(f"--shard {text!r}: need 1 <= K <= N")
    return k, n


def select_shard(items: Sequence[T], k: int, n: int) -> list[T]:
    """The K-th of N shards: every N-th item starting at the K-th (round robin, so each
    shard gets a mix of families)."""
    return [x for i, x in enumerate(items) if i % n == k - 1]
