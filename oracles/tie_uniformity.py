"""Statistical oracle ``tie_uniformity``: how a subject breaks ties between equally scored nodes,
over many runs of one *tie scenario* varying the seed or the node names: ``expect="uniform"``
(a chi-square test, runs sized by :func:`required_runs`) or ``expect="deterministic"`` (the
same node in every run). Which one a release owes is :func:`expected_mode`, read from its
``select-host`` switch: v1.34.4's ``selectHost`` (``pkg/scheduler/schedule_one.go``) samples
the tied nodes uniformly; from v1.35 the max-heap (v1.35/v1.36 ``schedule_one.go``
``newSortedNodeScores``, v1.37 ``pkg/scheduler/framework/sorted_nodes.go``) breaks them by its
layout. In both modes a choice outside the tie set is a violation. See
docs/oracles.md#tie_uniformity."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject
from oracles.base import Violation
from oracles.transforms import rename_nodes, scenario_node_names
from reference_impl.releases import ReleaseData, load
from reference_impl.scheduler.select_host import HEAP, RESERVOIR

NAME = "tie_uniformity"
UNIFORM = "uniform"
DETERMINISTIC = "deterministic"

# ----------------------------------------------------------------------------- statistics


def _gamma_p_series(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its power series (x < a + 1)."""
    term = total = 1.0 / a
    ap = a
    for _ in range(10_000):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_q_fraction(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) by Lentz's continued fraction (x >= a+1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def gamma_q(a: float, x: float) -> float:
    """Q(a, x) = 1 - P(a, x)."""
    if x <= 0:
        return 1.0
    if x < a + 1.0:
        return 1.0 - _gamma_p_series(a, x)
    return _gamma_q_fraction(a, x)


def chi2_sf(x: float, df: int) -> float:
    """P(X > x) for a chi-square variable with ``df`` degrees of freedom."""
    return gamma_q(df / 2.0, x / 2.0)


def chi2_critical(alpha: float, df: int) -> float:
    """The value c with P(X > c) = alpha (bisection)."""
    lo, hi = 0.0, max(10.0, 10.0 * df)
    while chi2_sf(hi, df) > alpha:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if chi2_sf(mid, df) > alpha:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def noncentral_chi2_sf(x: float, df: int, lam: float) -> float:
    """P(X > x) for a noncentral chi-square (Poisson mixture of central ones)."""
    if lam <= 0:
        return chi2_sf(x, df)
    half = lam / 2.0
    j0 = int(half)
    total = 0.0
    # sum outwards from the Poisson mode until the weights vanish
    for direction in (1, -1):
        j = j0 if direction == 1 else j0 - 1
        while j >= 0:
            w = math.exp(-half + j * math.log(half) - math.lgamma(j + 1)) if half > 0 else (
                1.0 if j == 0 else 0.0)
            total += w * chi2_sf(x, df + 2 * j)
            if w < 1e-14 and abs(j - j0) > 10:
                break
            j += direction
    return min(1.0, total)


def effect_size(k: int, bias: float) -> float:
    """Cohen's w of a bias δ on one of k categories: δ / sqrt(k - 1)."""
    return bias / math.sqrt(k - 1)


def power_of(n: int, k: int, alpha: float, bias: float) -> float:
    """The probability that the chi-square test at level ``alpha`` flags the bias with n runs."""
    crit = chi2_critical(alpha, k - 1)
    return noncentral_chi2_sf(crit, k - 1, n * effect_size(k, bias) ** 2)


def required_runs(k: int, alpha: float = 0.001, bias: float = 0.10, power: float = 0.95) -> int:
    """The fewest runs for which the test detects ``bias`` with probability ``power``."""
    if k < 2:
        return 1
    lo, hi = 1, 1
    while power_of(hi, k, alpha, bias) < power:
        lo, hi = hi, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if power_of(mid, k, alpha, bias) >= power:
            hi = mid
        else:
            lo = mid + 1
    return lo


def chi_square_uniform(counts: Sequence[int]) -> tuple[float, float]:
    """The chi-square statistic of ``counts`` against the uniform distribution and its
    p-value."""
    n, k = sum(counts), len(counts)
    expected = n / k
    stat = sum((c - expected) ** 2 / expected for c in counts)
    return stat, chi2_sf(stat, k - 1)


# ----------------------------------------------------------------------------- the oracle

def expected_mode(release: ReleaseData) -> str:
    """The tie-breaking ``release`` owes, from its ``select-host`` switch: ``uniform`` for the
    reservoir sampling of v1.34.4 ``selectHost``, ``deterministic`` for the heap of v1.35+."""
    variant = release.behaviour("select-host")
    modes = {RESERVOIR: UNIFORM, HEAP: DETERMINISTIC}
    if variant not in modes:
        raise ValueError(f"select-host variant {variant!r} of {release.release} has no mode")
    return modes[variant]


@dataclass(slots=True)
class TieChoices:
    """The choices of one pod over many runs, and the tie set (original node names)."""

    pod: str
    candidates: list[str]
    choices: list[str]


def check_choices(tc: TieChoices, expect: str = UNIFORM, alpha: float = 0.001,
                  bias: float = 0.10, power: float = 0.95,
                  allow_underpowered: bool = False) -> list[Violation]:
    """Judge a set of choices (docs/oracles.md#tie_uniformity)."""
    if expect not in (UNIFORM, DETERMINISTIC):
        raise ValueError(f"expect must be {UNIFORM!r} or {DETERMINISTIC!r}, got {expect!r}")
    out: list[Violation] = []
    outside = Counter(c for c in tc.choices if c not in tc.candidates)
    if outside:
        node, n = outside.most_common(1)[0]
        out.append(Violation(NAME, tc.pod, node, (
            f"{sum(outside.values())} of {len(tc.choices)} runs chose a node outside the tie "
            f"set {tc.candidates}, e.g. {node} ({n} times)")))
    counts = Counter(tc.choices)
    if expect == DETERMINISTIC:
        if len(counts) > 1:
            out.append(Violation(NAME, tc.pod, None, (
                f"expected the same tie-break in every run (from v1.35 upstream breaks "
                f"plugin-score ties deterministically), but {len(tc.choices)} runs chose "
                + ", ".join(f"{n} {c}x" for n, c in counts.most_common()))))
        return out
    k = len(tc.candidates)
    if k < 2:
        return out
    need = required_runs(k, alpha, bias, power)
    if len(tc.choices) < need and not allow_underpowered:
        raise ValueError(f"{len(tc.choices)} runs cannot detect a {bias:.0%} bias among {k} "
                         f"tied nodes with power {power} at alpha {alpha}: need {need}")
    observed = [counts.get(c, 0) for c in tc.candidates]
    stat, p = chi_square_uniform(observed)
    if p < alpha:
        out.append(Violation(NAME, tc.pod, None, (
            f"tie-breaking is not uniform over {k} tied nodes: counts "
            + ", ".join(f"{c}={n}" for c, n in zip(tc.candidates, observed, strict=True))
            + f" over {sum(observed)} runs, chi-square {stat:.2f} with {k - 1} degrees of "
            f"freedom, p = {p:.2e} < alpha {alpha}")))
    return out


def collect_choices(subject: Subject, scenario: ScenarioInput, pod: str, runs: int,
                    vary: str = "seed", rng_seed: int = 0) -> TieChoices:
    """Run ``subject`` ``runs`` times on ``scenario`` varying the seed (``"seed"``) or the node
    names (``"names"``), and collect where ``pod`` was bound (mapped back to the original node
    names) and the tie set (from the first run's ``candidates``)."""
    if vary not in ("seed", "names"):
        raise ValueError(f"vary must be 'seed' or 'names', got {vary!r}")
    rng = random.Random(rng_seed)
    names = scenario_node_names(scenario)
    choices: list[str] = []
    candidates: list[str] | None = None
    for i in range(runs):
        back: Callable[[str], str] = _identity
        if vary == "seed":
            sc = scenario.derived(seed=scenario.seed + i, notes=[], covers="")
        else:
            fresh = [f"n-{rng.getrandbits(48):012x}" for _ in names]
            mapping = dict(zip(names, fresh, strict=True))
            sc = rename_nodes(scenario, mapping)
            inverse = {v: k for k, v in mapping.items()}
            back = inverse.__getitem__
        res = subject.run(sc)
        attempt = _bound_attempt(res.result, pod)
        if attempt is None:
            raise ValueError(f"run {i}: {pod} was not bound; not a tie scenario for it")
        choices.append(back(attempt["node"]))
        if candidates is None:
            candidates = [back(c) for c in attempt.get("candidates") or [attempt["node"]]]
    return TieChoices(pod, candidates or [], choices)


def tie_uniformity(subject: Subject, scenario: ScenarioInput, pod: str,
                   expect: str | None = None, runs: int | None = None, vary: str = "seed",
                   alpha: float = 0.001, bias: float = 0.10, power: float = 0.95,
                   candidates: Sequence[str] | None = None,
                   release: ReleaseData | None = None) -> list[Violation]:
    """Run the subject enough times (:func:`required_runs` for the tie set, or ``runs``) and
    judge its tie-breaking for ``pod``. ``candidates`` overrides the tie set the subject
    reports. Without ``expect``, the mode is :func:`expected_mode` of ``release``, else of the
    release the subject reports (``Subject.release``)."""
    if expect is None:
        expect = expected_mode(release if release is not None else _subject_release(subject))
    if runs is None:
        k = len(candidates) if candidates else 0
        if not k:
            probe = _bound_attempt(subject.run(scenario).result, pod)
            k = len((probe or {}).get("candidates") or [1])
        runs = required_runs(k, alpha, bias, power) if expect == UNIFORM and k > 1 else 20
    tc = collect_choices(subject, scenario, pod, runs, vary)
    if candidates is not None:
        tc.candidates = list(candidates)
    return check_choices(tc, expect, alpha, bias, power)


def _subject_release(subject: Subject) -> ReleaseData:
    try:
        return load(subject.release)
    except KeyError as e:
        raise ValueError(f"subject {subject.name} reports release {subject.release!r}, which "
                         f"has no data; pass expect= or release=") from e


def _identity(x: str) -> str:
    return x


def _bound_attempt(doc: Mapping, pod: str) -> dict | None:
    for a in doc.get("attempts", []):
        if a.get("pod") == pod and a.get("outcome") == "Bound":
            return a
    return None
