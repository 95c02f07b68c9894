"""ext.Strings' ``format`` (dra/cel_format.py) against cel-go v0.29.2 at StringsVersion(2):
the 195 expressions of cel_format_upstream.jsonl (recorded by ``cd upstream && go run
./celeval``): every clause and its rendering (Go's %g of doubles, %q in lists, sorted map
keys, x/text's en-US grouping, ∞ and ×10ⁿ), the runtime errors, and the compile-time
validator's errors and their locations (``stringFormatValidator``); and the Format library
(apiserver format.go) on the 822 of cel_format_library_upstream.jsonl: each of the 13 formats
on 63 strings (their messages, the prefix formats' trailing dash), ``format.named``."""

from __future__ import annotations

import pytest

from reference_impl.dra.cel import CELCompileError
from reference_impl.dra.cel_cost import estimate_cost
from reference_impl.dra.cel_format import go_float
from tests.dra.celeval_corpus import load, mismatches

ROWS = load("cel_format_upstream.jsonl")
LIBRARY = load("cel_format_library_upstream.jsonl")


def test_the_corpus_matches_upstream() -> None:
    assert len(ROWS) > 190
    assert mismatches(ROWS) == []


def test_the_format_library_matches_upstream() -> None:
    assert len(LIBRARY) > 800
    assert mismatches(LIBRARY) == []


@pytest.mark.parametrize(
    ("x", "text"),
    [(1.0, "1"), (123456.0, "123456"), (1234567.0, "1.234567e+06"), (1e-05, "1e-05")]
    + [(0.0001, "0.0001"), (-0.0, "-0"), (1e100, "1e+100"), (float("nan"), "NaN")],
)
def test_go_float(x: float, text: str) -> None:
    assert go_float(x) == text


def test_the_validator_locates_the_argument() -> None:
    with pytest.raises(CELCompileError) as e:
        estimate_cost('"%s %d".format(["a", "b"]) == ""')
    assert str(e.value) == (
        "compilation failed: ERROR: <input>:1:22: error during formatting: decimal clause can "
        'only be used on integers, was given string\n | "%s %d".format(["a", "b"]) == ""\n'
        " | .....................^"
    )
