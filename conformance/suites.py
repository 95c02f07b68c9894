"""The test suites of ``kschedconf run``: ``properties``, ``golden`` and ``all``.

``properties`` — Hypothesis-driven. A *property* is a scenario family (the ``Sizes`` preset the
strategies draw from: ``small``, ``medium``, ``large``) paired with one oracle of
``oracles.ALL_ORACLES``: generate scenarios, run the subject on each, apply the oracle; a
violation fails the property and Hypothesis shrinks the scenario to a minimal counterexample.
Each property stops at ``max_examples`` or at its share of the time budget, whichever comes first.

``golden`` — every ``golden/*.yaml`` file is a scenario followed by a final
``kind: GoldenDecisions`` document holding the decisions upstream made (bindings, pending pods,
preemption victims); the subject must make the same ones (format: ``docs/subjects.md``).

The Hypothesis settings profiles ``kschedconf-dev``, ``kschedconf-ci`` and
``kschedconf-thorough`` are registered on import (``--profile dev|ci|thorough``; with pytest,
``--hypothesis-profile kschedconf-ci``).
"""

from __future__ import annotations

import copy
import time
import traceback
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject, SubjectError, SubjectResult

SUITES = ("properties", "golden", "all")
FAMILIES = ("small", "medium", "large")
GOLDEN_KIND = "GoldenDecisions"
GOLDEN_API_VERSION = "kschedconf/v1"
#: the pseudo-oracle a subject crash (an exception other than SubjectError) is reported under
CRASH = "subject-crash"

# --- Hypothesis settings profiles --------------------------------------------------------------

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
        raise ValueError(f"unknown profile {profile!r} (known: {', '.join(PROFILES)})")
    return settings.get_profile(f"kschedconf-{profile}")


def family_sizes(family: str) -> Any:
    """The ``strategies.sizes`` preset of a family (``small`` → ``SMALL``...)."""
    from strategies import sizes

    if family not in FAMILIES:
        raise ValueError(f"unknown scenario family {family!r} (known: {', '.join(FAMILIES)})")
    return getattr(sizes, family.upper())


def scenario_strategy(family: str) -> Any:
    """The Hypothesis strategy generating the scenarios of a family."""
    import strategies

    return strategies.scenarios(sizes=family_sizes(family))


# --- oracles -----------------------------------------------------------------------------------

def all_oracles() -> dict[str, Callable[[Any], list[Any]]]:
    """``oracles.ALL_ORACLES``: name → ``check(ctx) -> list[Violation]``."""
    from oracles import ALL_ORACLES

    return dict(ALL_ORACLES)


def select_oracles(names: Sequence[str] | None) -> dict[str, Callable[[Any], list[Any]]]:
    """The named oracles (all when ``names`` is empty); ``ValueError`` for an unknown name."""
    known = all_oracles()
    if not names:
        return known
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown oracle(s) {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(known))})")
    return {n: known[n] for n in dict.fromkeys(names)}


@dataclass(slots=True)
class Finding:
    """One violation of one oracle on one scenario, as text."""

    oracle: str
    text: str

    def __str__(self) -> str:
        tag = f"[{self.oracle}]"
        return self.text if self.text.startswith(tag) else f"{tag} {self.text}"


def oracle_context(scenario: ScenarioInput, result: SubjectResult, subject: Subject) -> Any:
    """The context the oracles judge (``oracles.base.OracleContext``): the scenario, the
    initial cluster and what the subject produced (result, trace, explanations)."""
    from oracles.base import OracleContext

    return OracleContext.build(scenario, result)


def violation_text(v: Any) -> str:
    """A violation as text: its own ``__str__`` if it has one, else its ``message``."""
    if type(v).__str__ is object.__str__:
        for attr in ("message", "text", "detail"):
            m = getattr(v, attr, None)
            if isinstance(m, str) and m:
                return m
    return str(v)


def check_result(scenario: ScenarioInput, result: SubjectResult, subject: Subject,
                 checks: Mapping[str, Callable[[Any], list[Any]]]) -> list[Finding]:
    """Apply the oracles to one result; an oracle that raises is reported as a finding."""
    ctx = oracle_context(scenario, result, subject)
    out: list[Finding] = []
    for name, check in checks.items():
        try:
            violations = check(ctx)
        except Exception as e:  # an oracle bug must not pass silently
            out.append(Finding(name, f"the oracle raised {type(e).__name__}: {e}\n"
                                     + _tb_tail(e)))
            continue
        out.extend(Finding(name, violation_text(v)) for v in violations or ())
    return out


def _tb_tail(e: BaseException, lines: int = 12) -> str:
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__)).rstrip()
    return "\n".join(tb.splitlines()[-lines:])


def evaluate(subject: Subject, scenario: ScenarioInput,
             checks: Mapping[str, Callable[[Any], list[Any]]]) -> tuple[SubjectResult | None,
                                                                          list[Finding]]:
    """Run the subject on the scenario and apply the oracles. A :class:`SubjectError`
    propagates; any other exception of the subject is a ``subject-crash`` finding."""
    try:
        result = subject.run(scenario)
    except SubjectError:
        raise
    except Exception as e:
        return None, [Finding(CRASH, f"{subject.name} raised {type(e).__name__}: {e}\n"
                                     + _tb_tail(e))]
    return result, check_result(scenario, result, subject, checks)


# --- properties --------------------------------------------------------------------------------

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


def property_list(families: Sequence[str], oracle_names: Sequence[str]) -> list[Property]:
    """Every family × oracle, in a stable order (family order given, oracles by name)."""
    return [Property(f, o) for f in families for o in sorted(oracle_names)]


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` → ``(K, N)`` with 1 <= K <= N."""
    try:
        k_s, n_s = text.split("/")
        k, n = int(k_s), int(n_s)
    except ValueError:
        raise ValueError(f"--shard {text!r}: expected K/N, e.g. 2/4") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text!r}: need 1 <= K <= N")
    return k, n


def select_shard(items: Sequence[Any], k: int, n: int) -> list[Any]:
    """The K-th of N shards: every N-th item starting at the K-th (round robin, so each
    shard gets a mix of families)."""
    return [x for i, x in enumerate(items) if i % n == k - 1]


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
    stopped_by: str = "max_examples"
    shrink_cut: bool = False  # shrinking stopped at the shrink deadline
    flaky: bool = False  # the failure did not happen again when replayed
    error: str = ""

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

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


def run_property(prop: Property, subject: Subject, check: Callable[[Any], list[Any]], *,
                 base: settings, max_examples: int, seed: int | None,
                 deadline: float | None, shrink_time: float | None = None,
                 prepare: Callable[[ScenarioInput], ScenarioInput] | None = None,
                 strategy: Any = None,
                 on_example: Callable[[PropertyState], None] | None = None) -> PropertyState:
    """Run one property with Hypothesis; never raises for a failure (see ``state``).

    ``deadline``: the ``time.monotonic()`` value after which no new example is generated.
    ``shrink_time``: seconds shrinking may take after the first failure (it may always go on
    until ``deadline``); then it stops and the smallest failure seen so far is kept.
    """
    state = PropertyState()
    shrink_deadline: list[float] = []
    checks = {prop.oracle: check}

    def body(scenario: ScenarioInput) -> None:
        now = time.monotonic()
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
            _, findings = evaluate(subject, scenario, checks)
        except SubjectError as e:
            raise _SubjectAbort(e) from e
        if findings:
            if state.failure is None and shrink_time is not None:
                t = time.monotonic() + shrink_time
                shrink_deadline.append(max(t, deadline) if deadline is not None else t)
            state.record(scenario, findings)
            raise PropertyViolation(str(findings[0]))

    # Distinct example-database keys (and derandomization) per property.
    body._hypothesis_internal_add_digest = prop.id.encode()  # type: ignore[attr-defined]
    s = settings(base, max_examples=max_examples, verbosity=Verbosity.quiet)
    if seed is not None:
        # the seed decides: same seed, same examples (Hypothesis then uses no database)
        s = settings(s, derandomize=False, database=None)
    test = given(strategy if strategy is not None else scenario_strategy(prop.family))(body)
    test = s(test)
    if seed is not None:
        test = hypothesis_seed(property_seed(seed, prop))(test)
    try:
        test()
    except _OutOfBudget:
        if state.failure is not None:
            state.stopped_by = "failure"
    except _SubjectAbort as e:
        state.subject_error = e.error
        state.stopped_by = "error"
    except Exception as e:  # PropertyViolation, or Hypothesis' Flaky/Unsatisfiable...
        if state.failure is not None:
            state.stopped_by = "failure"
            state.flaky = _is_flaky(e)
        else:
            state.stopped_by = "error"
            state.error = f"{type(e).__name__}: {e}"
    return state


def _is_flaky(e: BaseException) -> bool:
    from hypothesis.errors import Flaky

    if isinstance(e, Flaky):
        return True
    return isinstance(e, BaseExceptionGroup) and any(_is_flaky(x) for x in e.exceptions)


def no_shrink(base: settings) -> settings:
    """``base`` without the shrink phase (for quick looks)."""
    return settings(base, phases=[p for p in base.phases if p != Phase.shrink])


# --- golden scenarios --------------------------------------------------------------------------

@dataclass(slots=True)
class GoldenDecisions:
    """The decisions recorded from upstream for a golden scenario (``docs/subjects.md``)."""

    bindings: dict[str, str]
    pending: list[str]
    deleted: list[str] | None = None  # preemption victims; None = not compared
    upstream_release: str = ""
    source: str = ""

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any], where: str = "") -> GoldenDecisions:
        bindings = doc.get("bindings") or {}
        pending = doc.get("pending") or []
        deleted = doc.get("deleted")
        if not isinstance(bindings, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in bindings.items()):
            raise ValueError(f"{where}: GoldenDecisions.bindings must map NS/POD to a node name")
        if not isinstance(pending, list) or not all(isinstance(p, str) for p in pending):
            raise ValueError(f"{where}: GoldenDecisions.pending must be a list of NS/POD")
        if deleted is not None and (not isinstance(deleted, list)
                                    or not all(isinstance(p, str) for p in deleted)):
            raise ValueError(f"{where}: GoldenDecisions.deleted must be a list of NS/POD")
        return cls(dict(bindings), list(pending), None if deleted is None else list(deleted),
                   str(doc.get("upstreamRelease", "")), str(doc.get("source", "")))

    def to_doc(self) -> dict[str, Any]:
        d: dict[str, Any] = {"apiVersion": GOLDEN_API_VERSION, "kind": GOLDEN_KIND}
        if self.upstream_release:
            d["upstreamRelease"] = self.upstream_release
        if self.source:
            d["source"] = self.source
        d["bindings"] = dict(sorted(self.bindings.items()))
        d["pending"] = sorted(self.pending)
        if self.deleted is not None:
            d["deleted"] = sorted(self.deleted)
        return d

    @classmethod
    def from_result(cls, result: Mapping[str, Any], source: str = "") -> GoldenDecisions:
        """Record a SimulationResult's decisions (how golden files are made)."""
        return cls(dict(result.get("bindings", {})), list(result.get("pending", [])),
                   list(result.get("deleted", [])), str(result.get("upstreamRelease", "")),
                   source)


def split_golden(scenario: ScenarioInput) -> tuple[ScenarioInput, GoldenDecisions | None]:
    """Remove the ``GoldenDecisions`` document from a scenario read from a file."""
    golden = [d for d in scenario.documents
              if isinstance(d, dict) and d.get("kind") == GOLDEN_KIND]
    if len(golden) > 1:
        raise ValueError(f"{scenario.name}: more than one {GOLDEN_KIND} document")
    if not golden:
        return scenario, None
    rest = [d for d in scenario.documents if d is not golden[0]]
    s = ScenarioInput(rest, scenario.config, scenario.seed, scenario.name, list(scenario.notes))
    return s, GoldenDecisions.from_doc(golden[0], scenario.name)


def read_scenario_file(path: str | Path) -> tuple[ScenarioInput, GoldenDecisions | None,
                                                  dict[str, str]]:
    """A scenario file (counterexample or golden): the scenario, its decisions if any, and the
    ``# key: value`` notes of its header (``oracle``, ``subject``...)."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    try:
        scenario = ScenarioInput.from_yaml(text, name=p.stem)
    except yaml.YAMLError as e:
        raise ValueError(f"{p}: invalid YAML: {e}") from e
    if not all(isinstance(d, dict) for d in scenario.documents):
        raise ValueError(f"{p}: every YAML document must be a mapping")
    scenario, decisions = split_golden(scenario)
    return scenario, decisions, header_notes(text)


def header_notes(text: str) -> dict[str, str]:
    """The ``# key: value`` comment lines before the first document."""
    notes: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("---"):
            break
        if line.startswith("# ") and ":" in line:
            k, v = line[2:].split(":", 1)
            k = k.strip()
            if k and " " not in k and k not in notes:
                notes[k] = v.strip()
    return notes


def write_scenario_file(path: str | Path, scenario: ScenarioInput,
                        decisions: GoldenDecisions | None = None) -> Path:
    """``ScenarioInput.write``, plus the ``GoldenDecisions`` document when given."""
    p = scenario.write(path)
    if decisions is not None:
        with p.open("a", encoding="utf-8") as f:
            yaml.safe_dump(decisions.to_doc(), f, sort_keys=False, explicit_start=True)
    return p


def compare_golden(expected: GoldenDecisions, result: Mapping[str, Any]) -> list[str]:
    """Every difference between the recorded decisions and a SimulationResult."""
    out: list[str] = []
    got_b: dict[str, str] = dict(result.get("bindings", {}))
    got_pending = set(result.get("pending", []))
    for pod in sorted(set(expected.bindings) | set(got_b)):
        want, got = expected.bindings.get(pod), got_b.get(pod)
        if want == got:
            continue
        want_s = f"bound to {want}" if want else (
            "pending" if pod in expected.pending else "not bound")
        got_s = f"bound to {got}" if got else ("pending" if pod in got_pending else "not bound")
        out.append(f"pod {pod}: upstream {want_s}, subject {got_s}")
    for pod in sorted(set(expected.pending) ^ got_pending):
        if pod in expected.bindings or pod in got_b:
            continue  # reported above
        if pod in got_pending:
            out.append(f"pod {pod}: upstream did not leave it pending, subject did")
        else:
            out.append(f"pod {pod}: upstream left it pending, subject did not")
    if expected.deleted is not None:
        got_d = set(result.get("deleted", []))
        for pod in sorted(set(expected.deleted) - got_d):
            out.append(f"pod {pod}: upstream preempted (deleted) it, the subject did not")
        for pod in sorted(got_d - set(expected.deleted)):
            out.append(f"pod {pod}: the subject preempted (deleted) it, upstream did not")
    return out


def golden_files(directory: str | Path) -> list[Path]:
    """The golden scenario files of ``directory``; a ``ValueError`` when it has none (a
    golden suite that checks nothing must not pass)."""
    d = Path(directory)
    files = sorted(p for p in d.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file()) \
        if d.is_dir() else []
    if not files:
        raise ValueError(f"no golden scenarios in {d}: expected *.yaml files (recorded by "
                         "`kschedconf golden record`); --golden-dir names another directory")
    return files


def default_golden_dir() -> Path:
    """The golden scenarios installed with kschedconf: the ``golden`` package, which the
    distribution installs beside ``conformance`` (the checkout's ``golden/`` in an editable
    install). It is found by that path, not by ``import golden``, so that neither a
    ``golden/`` of the current directory nor another ``golden`` package on ``sys.path`` can
    stand in for it. Another directory is named with ``--golden-dir``."""
    return Path(__file__).resolve().parent.parent / "golden"


def with_config(scenario: ScenarioInput, config: Mapping[str, Any] | None) -> ScenarioInput:
    """The scenario with the KubeSchedulerConfiguration replaced (``--config``)."""
    if config is None:
        return scenario
    return ScenarioInput(list(scenario.documents), copy.deepcopy(dict(config)), scenario.seed,
                         scenario.name, list(scenario.notes))
