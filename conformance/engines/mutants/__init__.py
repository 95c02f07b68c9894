"""Mutation testing of the oracles (``kschedconf mutants``): planted bugs in the reference
scheduler (:mod:`.patching`, :mod:`.mutant`, the catalogue by area in :mod:`.catalogue`, witness
scenarios built with :mod:`.witnesses`), the mutated subject and witness check
(:mod:`.subject`), one mutant's run (:mod:`.runner`), the time sharing (:mod:`.rounds`), the
options and plan (:mod:`.plan`), the outcomes and report (:mod:`.outcomes`) and the engine
that reports through a session (:mod:`.engine`). See docs/mutants.md."""

from __future__ import annotations

from conformance.engines.mutants.catalogue import CATALOGUE, get, select
from conformance.engines.mutants.engine import new_session, run_mutants
from conformance.engines.mutants.mutant import Catalogue, Mutant
from conformance.engines.mutants.outcomes import (
    ALL_ORACLES_PROPERTY,
    CAUGHT,
    EQUIVALENT,
    ERROR,
    GOLDEN_PROPERTY,
    INEFFECTIVE,
    NOT_APPLICABLE,
    NOT_REACHED,
    SURVIVED,
    MutantOutcome,
    MutantsReport,
    PropertyOutcome,
    table,
    to_json,
)
from conformance.engines.mutants.patching import MutantError, Patch, patched
from conformance.engines.mutants.plan import (
    DEFAULT_BUDGET,
    DEFAULT_MAX_EXAMPLES,
    DEFAULT_SEED,
    THRESHOLD,
    MutantsOptions,
    MutantsPlan,
    resolve_plan,
)
from conformance.engines.mutants.runner import run_mutant
from conformance.engines.mutants.subject import (
    MutantSubject,
    WitnessCheck,
    check_witness,
    witness_differs,
    witness_results,
)

__all__ = [
    "ALL_ORACLES_PROPERTY", "CATALOGUE", "CAUGHT", "DEFAULT_BUDGET", "DEFAULT_MAX_EXAMPLES",
    "DEFAULT_SEED", "EQUIVALENT", "ERROR", "GOLDEN_PROPERTY", "INEFFECTIVE", "NOT_APPLICABLE",
    "NOT_REACHED",
    "SURVIVED",
    "THRESHOLD", "Catalogue", "Mutant", "MutantError", "MutantOutcome", "MutantSubject",
    "MutantsOptions", "MutantsPlan", "MutantsReport", "Patch", "PropertyOutcome",
    "WitnessCheck", "check_witness", "get", "new_session", "patched", "resolve_plan",
    "run_mutant", "run_mutants", "select", "table", "to_json", "witness_differs",
    "witness_results",
]
