"""The Hypothesis search of generated scenarios, and the shrinking of a diverging one: the same
search replayed with a property that fails on the same kinds of divergence (docs/diff.md)."""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hseed

from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectError
from conformance.engines.diff.minimal import Minimal, minimal_path, save
from conformance.engines.diff.model import ALL_MODES, ScenarioDiff, Sig
from conformance.engines.diff.plan import DiffPlan
from strategies.draws import stable_draws
from strategies.families import scenario_strategy

#: Compare one scenario of a family, in the given modes (None: the plan's).
Compare = Callable[[ScenarioInput, str, Sequence[str] | None], ScenarioDiff]


class OutOfBudget(BaseException):
    """Time is up (a BaseException, so Hypothesis lets it through)."""


class SubjectAbort(BaseException):
    """A subject error in the middle of the search: stop at once, without Hypothesis replaying
    the scenario (it would ask the broken subject again)."""

    def __init__(self, error: SubjectError) -> None:
        super().__init__(str(error))
        self.error = error


class _Diverged(AssertionError):
    """The shrink property's failure."""


def fingerprint(scenario: ScenarioInput) -> str:
    blob = json.dumps([scenario.documents, scenario.config, scenario.seed], sort_keys=True,
                      default=str)
    return hashlib.sha1(blob.encode()).hexdigest()


def family_seed(seed: int, family: str) -> int:
    return (seed * 1_000_003 + zlib.crc32(f"diff/{family}".encode())) % (1 << 63)


def hypothesis_test(family: str, n: int, seed: int, body: Callable[[ScenarioInput], None],
                    shrink: bool) -> Callable[[], None]:
    """The Hypothesis test that draws ``n`` scenarios of a family; the same arguments give the
    same scenarios in the same order (the shrink pass depends on it)."""
    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]
    s = settings(max_examples=max(n, 1), deadline=None, database=None, derandomize=False,
                 suppress_health_check=list(HealthCheck), phases=phases,
                 report_multiple_bugs=False, print_blob=False, verbosity=Verbosity.quiet)

    def test(scenario: ScenarioInput) -> None:
        body(scenario)

    test._hypothesis_internal_add_digest = f"kschedconf-diff/{family}".encode()  # type: ignore
    t: Any = given(scenario_strategy(family))(test)
    t = s(t)
    return stable_draws(hseed(family_seed(seed, family))(t))


@dataclass(slots=True)
class ShrinkJob:
    """The first scenario that showed some kinds of divergence (``sigs``)."""

    family: str
    result: ScenarioDiff
    scenario: ScenarioInput
    sigs: list[Sig]


def shrink(job: ShrinkJob, plan: DiffPlan, compare: Compare, seen: dict[str, list[Sig]],
           subject: str) -> Minimal:
    """Shrink the job's scenario: replay the Hypothesis search of its family with a property
    that fails when one of its kinds shows up (scenarios the first pass saw, ``seen`` by
    fingerprint, pass at once), let Hypothesis minimize it, and write the smallest found
    (``subject``: the other subject's name, for the file's header)."""
    res, scenario, sigs = job.result, job.scenario, job.sigs
    path = minimal_path(plan.out, sigs)
    reproduce = plan.reproduce(path)
    roots = [d for d in res.unexplained if d.signature in sigs]
    if not plan.options.shrink:
        save(path, scenario, res, subject=subject, seed=plan.seed, reproduce=reproduce,
             shrunk=False, kinds=sigs)
        return Minimal(sigs, str(path), False, res.name, roots, reproduce,
                       note="not shrunk (--no-shrink)")
    target = fingerprint(scenario)
    wanted = set(sigs)
    modes = [m for m in ALL_MODES if any(sig[0] == m for sig in sigs)]
    best: list[tuple[tuple[int, int], ScenarioInput, ScenarioDiff]] = []
    steps = [0]
    reached = [False]
    deadline = time.monotonic() + plan.options.shrink_time
    local: dict[str, bool] = {}

    def body(sc: ScenarioInput) -> None:
        fp = fingerprint(sc)
        if fp == target:  # the scenario of the first pass
            reached[0] = True
            raise _Diverged(res.name)
        if not reached[0] and fp in seen:  # replaying the first pass: it passed
            return
        if fp in local:
            if local[fp]:
                raise _Diverged(res.name)
            return
        if time.monotonic() >= deadline:
            raise OutOfBudget
        steps[0] += 1
        sc = sc.derived(name=f"{res.name}-shrunk", notes=[], covers="")
        try:
            r = compare(sc, job.family, modes)
        except SubjectError:
            local[fp] = False
            return
        local[fp] = bool(wanted & set(r.signatures()))
        if local[fp]:
            size = (len(sc.all_documents()), len(repr(sc.all_documents())))
            if not best or size <= best[0][0]:
                best[:] = [(size, sc, r)]
            raise _Diverged(res.name)

    test = hypothesis_test(job.family, plan.counts.get(job.family, 0), plan.seed or 0, body,
                           shrink=True)
    note = ""
    try:
        test()
        note = "not shrunk: the replayed search did not reach the scenario"
    except OutOfBudget:
        note = f"shrinking stopped after {plan.options.shrink_time:g}s (the smallest so far)"
    except _Diverged:
        pass
    except Exception as e:  # noqa: BLE001 - Hypothesis' Flaky and friends
        if not best:
            note = f"not shrunk: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
    if best:
        _, sc, r = best[0]
        sc = sc.derived(name=path.stem, notes=[], covers="")
        save(path, sc, r, subject=subject, seed=plan.seed, reproduce=reproduce, shrunk=True,
             kinds=sigs, found_in=res.name)
        return Minimal(sigs, str(path), True, res.name,
                       [d for d in r.unexplained if d.signature in wanted], reproduce,
                       steps[0], note)
    save(path, scenario, res, subject=subject, seed=plan.seed, reproduce=reproduce,
         shrunk=False, kinds=sigs)
    return Minimal(sigs, str(path), False, res.name, roots, reproduce, steps[0],
                   note or "not shrunk: no smaller scenario diverges")
