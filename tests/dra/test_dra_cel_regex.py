"""Go's regexp in DRA selectors (dra/cel_regex.py): the verdict and exact error of
``regexp.Compile`` on cel_regex_upstream.jsonl (1733 patterns: each error kind, Go 1.26's
Unicode class names, RE2's and Go's differences, seeded random patterns), and ``find``,
``findAll`` and ``matches`` on cel_regex_eval_upstream.jsonl (results and runtime errors),
both recorded from Go by ``cd upstream && go run ./celeval``; the regex literal validator
against the compiler (upstream/celcost, skipped when absent)."""

from __future__ import annotations

import json

import pytest

from reference_impl.dra.cel_cost import estimate_cost
from reference_impl.dra.cel_regex import GoRegexError, compile_go
from tests.dra.celeval_corpus import load, mismatches
from tests.dra.test_dra_cel_typecheck import _mismatches

PATTERNS = load("cel_regex_upstream.jsonl")
EVALS = load("cel_regex_eval_upstream.jsonl")


def _verdict(pattern: str) -> str:
    try:
        compile_go(pattern)
    except GoRegexError as e:
        return str(e)
    return "ok"


def test_compile_matches_go() -> None:
    assert len(PATTERNS) > 1500
    assert [
        (r["regexp"], r["go"], v) for r in PATTERNS if (v := _verdict(r["regexp"])) != r["go"]
    ] == []


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("(", "missing closing ): `(`"),
        ("a++", "invalid nested repetition operator: `++`"),
        ("\\C", "invalid escape sequence: `\\C`"),
        ("a{99999999999}", "invalid repeat count: `{99999999999}`"),
        ("\\p{Old_Italic}", "invalid character class range: `\\p{Old_Italic}`"),
        ("(?<=a)b", "invalid named capture: `(?<=a)b`"),
        ("a\\", "trailing backslash at end of expression: ``"),
    ],
)
def test_go_messages(pattern: str, message: str) -> None:
    assert _verdict(pattern) == "error parsing regexp: " + message


@pytest.mark.parametrize("pattern", ["\\p{Letter}", "\\p{greek}", "\\p{Lc}", "(?P<n>a)"])
def test_go_accepts(pattern: str) -> None:
    assert _verdict(pattern) == "ok"


def test_evaluation_matches_go() -> None:
    """find, findAll (with a limit) and matches: Go's leftmost-first matches, empty matches
    (``allMatches``), ``$`` at the end of the text only, Unicode classes and case folding,
    and the runtime errors of patterns that are not literals ("Illegal regex: ..." from
    regex.go, the bare message from ``matches``)."""
    assert len(EVALS) > 250
    assert mismatches(EVALS) == []


def test_regex_literals_match_upstream() -> None:
    """cel/validator.go ``ValidateRegexLiterals``: the literals Go refuses, ours alike
    (upstream's compiler, ``invalid matches argument``)."""
    refused = [r["regexp"] for r in PATTERNS[:233] if r["go"] != "ok"]
    accepted = [r["regexp"] for r in PATTERNS[:233] if r["go"] == "ok"]
    corpus = [f"device.driver.matches({json.dumps(p)})" for p in refused + accepted]
    assert _mismatches(corpus) == {}


#: regex.go's ProgramOptions (``cel.OptimizeRegex`` of find and findAll) and cel-go's
#: ``matches`` compile a constant pattern when the program is planned
PROGRAM = [
    '"a".find(dyn("(")) == ""',
    '"a".matches(dyn("("))',
    '"a".find("(" + "") == ""',
    '"a".find("(") == "" && "a".find("[") == ""',
    '"a".find("(") == 1',
    '["a".find("(")]',
    '"a".findAll("a++", 2).size() == 0',
    'device.driver.find("[").find("(") == ""',
    '["a"].all(x, x.find("\\\\C") == "")',
    'device.driver.find("\\\\p{Letter}") == ""',
]


def test_program_instantiation_matches_upstream() -> None:
    assert _mismatches(PROGRAM) == {}


def test_a_constant_pattern_fails_the_program() -> None:
    with pytest.raises(ValueError) as e:
        estimate_cost('device.driver.find("(") == ""')
    assert str(e.value) == (
        "program instantiation failed: error parsing regexp: missing closing ): `(`"
    )


def test_a_literal_go_refuses_is_a_compile_error() -> None:
    with pytest.raises(ValueError, match="invalid matches argument"):
        estimate_cost('device.driver.matches("\\\\p{Old_Italic}")')
    assert estimate_cost('device.driver.matches("\\\\p{Letter}")').max > 0
