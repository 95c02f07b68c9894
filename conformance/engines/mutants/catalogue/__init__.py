"""The catalogue of ``kschedconf mutants``: every planted bug with its witness, by area, in the
order of the report (the table of docs/mutants.md)."""

from __future__ import annotations

from collections.abc import Sequence

from conformance.engines.mutants.catalogue import (
    dra,
    framework,
    node_filters,
    plugin_form,
    preemption,
    queue,
    resources,
    scoring,
    storage,
    topology,
)
from conformance.engines.mutants.mutant import Catalogue, Mutant

CATALOGUE = Catalogue((*resources.MUTANTS, *node_filters.MUTANTS, *topology.MUTANTS,
                       *scoring.MUTANTS, *queue.MUTANTS, *preemption.MUTANTS,
                       *framework.MUTANTS, *dra.MUTANTS, *storage.MUTANTS,
                       *plugin_form.MUTANTS))


def get(name: str) -> Mutant:
    """The catalogue's mutant ``name``; ``MutantError`` for an unknown name."""
    return CATALOGUE.get(name)


def select(names: Sequence[str]) -> list[Mutant]:
    """The named mutants in catalogue order (all when empty); ``MutantError`` for an unknown
    name."""
    return CATALOGUE.select(names)
