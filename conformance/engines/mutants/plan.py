"""The options of ``kschedconf mutants`` and the plan they resolve into once, before anything
runs: the selected mutants, the parallelism, the header and the run's properties for the
reports. A bad option is a ``UsageError``."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import hypothesis

from conformance.core.errors import UsageError
from conformance.engines.mutants.catalogue import select
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.patching import MutantError
from oracles.judge import select_oracles
from reference_impl.releases import supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from strategies.families import FAMILIES, FEATURE_FAMILIES

#: the caught percentage of the counted mutants below which the run fails
THRESHOLD = 90.0
DEFAULT_BUDGET = 300.0  # seconds, wall clock, for the whole catalogue
DEFAULT_MAX_EXAMPLES = 1000
DEFAULT_SEED = 0


@dataclass(slots=True)
class MutantsOptions:
    only: Sequence[str] = ()
    budget: float | None = DEFAULT_BUDGET
    max_examples: int = DEFAULT_MAX_EXAMPLES
    seed: int = DEFAULT_SEED
    jobs: int | None = None  # default: the number of CPUs
    families: Sequence[str] = ("small",)
    oracles: Sequence[str] = ()  # default: every oracle
    per_property: bool = False  # one Hypothesis run per oracle, as `kschedconf run`
    golden: bool = True  # then the golden suite: decisions recorded from upstream
    golden_dir: str = "golden"
    #: ``--release``: the upstream release the reference (genuine and mutated) follows, the
    #: generated and witness scenarios name and the golden decisions are recorded for
    release: str = UPSTREAM_RELEASE


@dataclass(frozen=True, slots=True)
class MutantsPlan:
    """What a run will do: ``mutants`` in catalogue order (the report's order), ``jobs``
    worker processes (never more than mutants)."""

    opts: MutantsOptions
    mutants: tuple[Mutant, ...]
    jobs: int

    @property
    def header(self) -> str:
        o = self.opts
        per = "property" if o.per_property else "mutant"
        budget = "no budget" if o.budget is None else f"budget {o.budget:g}s"
        return (f"kschedconf mutants: {len(self.mutants)} mutant(s), up to {o.max_examples} "
                f"scenarios per {per}, {budget}, seed {o.seed}; "
                f"upstream {o.release}")

    def rerun_command(self, names: Sequence[str] = ()) -> str:
        """The command that runs these options again, on ``names`` (default: the plan's
        selection)."""
        o = self.opts
        parts = ["kschedconf", "mutants", "--seed", str(o.seed), "--max-examples",
                 str(o.max_examples)]
        if o.budget is not None:
            parts += ["--budget", f"{o.budget:g}"]
        chosen = list(names) if names else [m.name for m in self.mutants] if o.only else []
        if chosen:
            parts += ["--only", ",".join(chosen)]
        if o.per_property:
            parts.append("--per-property")
        if not o.golden:
            parts.append("--no-golden")
        if o.release != UPSTREAM_RELEASE:
            parts += ["--release", o.release]
        return " ".join(shlex.quote(p) for p in parts)

    def properties(self) -> dict[str, str]:
        """The run's properties in the reports (JUnit ``<properties>``, RunReport)."""
        o = self.opts
        return {
            "upstream.release": o.release,
            "seed": str(o.seed),
            "max_examples": str(o.max_examples),
            "budget": "none" if o.budget is None else f"{o.budget:g}",
            "families": ",".join(o.families),
            "per_property": str(o.per_property).lower(),
            "golden": str(o.golden).lower(),
            "threshold": f"{THRESHOLD:g}",
            "hypothesis.version": hypothesis.__version__,
            "python.version": sys.version.split()[0],
            "rerun": self.rerun_command(),
        }


def resolve_plan(opts: MutantsOptions) -> MutantsPlan:
    """Check the options and resolve them into a plan; ``UsageError`` for an unknown mutant,
    oracle, scenario family or release, or a budget or example count out of range."""
    try:
        mutants = select(list(opts.only))
    except MutantError as e:
        raise UsageError(str(e)) from e
    for f in opts.families:
        if f not in FAMILIES and f not in FEATURE_FAMILIES:
            raise UsageError(f"unknown scenario family {f!r} "
                             f"(known: {', '.join((*FAMILIES, *FEATURE_FAMILIES))})")
    try:
        select_oracles(opts.oracles)
    except ValueError as e:
        raise UsageError(str(e)) from e
    if opts.max_examples < 1:
        raise UsageError("--max-examples must be at least 1")
    if opts.budget is not None and opts.budget <= 0:
        raise UsageError("--budget must be positive")
    if opts.release not in supported_releases():
        raise UsageError(f"unsupported release {opts.release!r} "
                         f"(supported: {', '.join(supported_releases())})")
    jobs = max(1, min(opts.jobs or os.cpu_count() or 1, len(mutants)))
    return MutantsPlan(opts, tuple(mutants), jobs)
