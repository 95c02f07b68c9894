"""Optional entries of list and map literals (``[?e]``, ``{?k: v}``; cel.OptionalTypes, in
DRA selectors since 1.28): celpy's grammar extended (dra/cel_optional.py), evaluated as
cel-go's ``evalList``/``evalMap`` (dra/cel_macros.py), type checked as ``checkCreateList`` and
``checkCreateMap`` (dra/cel_checker.py), against the 32 expressions of
cel_optional_entries_upstream.jsonl recorded by ``cd upstream && go run ./celeval``: values,
type errors, and the entries cel-go v0.29.2 panics on (a dyn or attribute-typed entry: the
homogeneous literal validator takes its type parameter unchecked), refused here."""

from __future__ import annotations

import pytest

from reference_impl.dra.cel import CELCompileError, DeviceView, compile_selector
from reference_impl.dra.cel_cost import estimate_cost
from tests.dra.celeval_corpus import load, mismatches

ROWS = load("cel_optional_entries_upstream.jsonl")


def test_the_corpus_matches_upstream() -> None:
    assert len(ROWS) >= 30
    assert mismatches(ROWS) == []


def test_an_attribute_entry_is_refused_as_upstream_panics() -> None:
    """A selector the API server cannot compile (its handler panics): the loader refuses it."""
    with pytest.raises(CELCompileError, match="panics: runtime error: index out of range"):
        estimate_cost('[?device.attributes["a"].x] == []')


def test_entries_on_a_device() -> None:
    expression = '[?device.attributes["d"].?x, ?optional.none()].size() == 0'
    assert estimate_cost(expression).max > 0
    assert compile_selector(expression).device_matches(DeviceView("d"))
