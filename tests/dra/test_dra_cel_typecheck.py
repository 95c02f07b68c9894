"""The type checker of DRA selectors (dra/cel_checker.py) against upstream's compiler: for each
expression our verdict, the MaxCost or the exact compile error (message, line:column, the
display with its caret), must be upstream's (``CompileCELExpression`` of
k8s.io/dynamic-resource-allocation/cel@v0.37.2 in the NewExpressions environment, built as
upstream/bin/kschedconf-celcost; skipped when absent), on cel_type_errors.txt,
cel_syntax_errors.txt (cel-go's parser errors, dra/cel_syntax.py), the cost corpora,
the CEL libraries' tables and seeded mutations of well-typed selectors; and the loader refuses
such a selector as validateCELExpression does (an invalid value, the compiler's error as
detail)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from reference_impl.dra.cel import CELCompileError
from reference_impl.dra.cel_runtime_cost import compile_cost
from reference_impl.model.errors import InputError
from reference_impl.testing.resources import (
    make_device_class,
    make_resource_claim_template,
)
from tests.dra.test_dra_cel_cost import (
    CLASS,
    COSTS,
    LIST_TYPED,
    MEASURED,
    _claim,
    _load,
    _upstream_max_costs,
)
from tests.dra.test_dra_cel_tables_upstream import EXPRESSIONS as TABLES

HERE = Path(__file__).parent
REFUSED = [
    e
    for e in (HERE / "cel_type_errors.txt").read_text().splitlines()
    if e and not e.startswith("#")
]
SYNTAX = [
    json.loads(e)
    for e in (HERE / "cel_syntax_errors.txt").read_text().splitlines()
    if e and not e.startswith("#")
]
LISTED = [
    e for e in (HERE / "cel_cost_expressions.txt").read_text().splitlines() if e and not e[0] == "#"
]
#: well-typed neighbours of the refused ones (cross-type numeric ordering, dyn, comments...)
WELL_TYPED = [
    "true < false",
    "size(device.driver) > 1u",
    "size(device.driver) > 1.0",
    "device.driver in device.attributes",
    "has(device.attributes.x.y)",
    'device.attributes["x"].model.isSorted()',
    "optional.none().value() == 1",
    'dyn(1) == "a"',
    "optional.of(1).optMap(x, x) == optional.none()",
    'device.driver == "a" // comment',
    '--"a" == "a"',
    'kubernetes.DRADevice{driver: "a"} == device',
    'duration("1.5h2m") > duration("-3ms")',
    'duration("1µs") > duration(".5s")',
    'device.attributes["x"].model',
    "[].all(x, x)",
    "{}.all(k, v, v == k)",
    "[[], [1]].size() == 2",
]
#: errors on other lines and columns than the first (the display's line, wide runes' marker)
MULTILINE = [
    "device.driver ==\n  1",
    'device.driver == "a" &&\n  device.nosuch == 1',
    'device.driver == "a" // comment\n  && 1',
    "// leading comment\ndevice.driver == 1",
    "x == 1 &&\n\ty == 2 &&\r\n z",
    'device.attributes["é"].x == 1 && "é" == 1',
    '"日本語" + 1 == ""',
    '[1,\n 2,\n "a"].size() == 3',
]
#: where the reference cannot say what upstream says (docs/dra.md, CEL limits): none now that
#: the regex literal validator compiles with Go's regexp (dra/cel_regex.py)
KNOWN: dict[str, str] = {}


def ours(expression: str, list_type: bool = False) -> str:
    """Our verdict in the upstream program's output format."""
    try:
        return str(compile_cost(expression, list_type).max)
    except CELCompileError as e:
        return f"ERR {e}"


def _go_unquote(line: str) -> str:
    if not line.startswith("ERR "):
        return line
    quoted = re.sub(r"\\x([0-9a-f]{2})", r"\\u00\1", line[4:])
    return "ERR " + json.loads(quoted.replace("\\a", "\\u0007").replace("\\v", "\\u000b"))


def upstream(expressions: list[str], list_type: bool = False) -> list[str]:
    return [_go_unquote(u) for u in _upstream_max_costs(expressions, list_type)]


def _mismatches(expressions: list[str], list_type: bool = False) -> dict[str, tuple[str, str]]:
    up = upstream(expressions, list_type)
    pairs = zip(expressions, up, strict=True)
    return {e: (u, o) for e, u in pairs if (o := ours(e, list_type)) != u}


# --- without upstream: the checker's own verdicts


@pytest.mark.parametrize(
    ("expression", "detail"),
    [
        (
            "device.driver == 1",
            "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' "
            "applied to '(string, int)'\n | device.driver == 1\n | ..............^",
        ),
        (
            'device.attributes["x"].model.foo()',
            "compilation failed: ERROR: <input>:1:33: undeclared reference to 'foo' (in "
            "container '')\n | device.attributes[\"x\"].model.foo()\n"
            " | ................................^",
        ),
        (
            "device.nosuch",
            "compilation failed: ERROR: <input>:1:7: undefined field 'nosuch'\n"
            " | device.nosuch\n | ......^",
        ),
        (
            '[1, "a"][0] == 1',
            "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'\n"
            ' | [1, "a"][0] == 1\n | ....^',
        ),
        (
            "[1,2].includes(1)",
            "compilation failed: ERROR: <input>:1:15: undeclared reference to 'includes' (in "
            "container '')\n | [1,2].includes(1)\n | ..............^",
        ),
        (
            "[1].all(x, x) && 1.0",
            "compilation failed: ERROR: <input>:1:12: expected type 'bool' but found 'int'\n"
            " | [1].all(x, x) && 1.0\n | ...........^\n"
            "ERROR: <input>:1:18: expected type 'bool' but found 'double'\n"
            " | [1].all(x, x) && 1.0\n | .................^",
        ),
        (
            "device.driver.all(c, true)",
            "compilation failed: ERROR: <input>:1:7: expression of type 'string' cannot be range "
            "of a comprehension (must be list, map, or dynamic)\n"
            " | device.driver.all(c, true)\n | ......^",
        ),
        (
            'device.attributes["x"]',
            "must evaluate to bool or the unknown type, not map(string, google.protobuf.Any)",
        ),
        (
            "has(x)",
            "compilation failed: ERROR: <input>:1:5: invalid argument to has() macro\n"
            " | has(x)\n | ....^",
        ),
        (
            '"日本" == 1',
            "compilation failed: ERROR: <input>:1:6: found no matching overload for '_==_' "
            "applied to '(string, int)'\n | \"日本\" == 1\n | .．．..^",
        ),
        # env.Program folds a conversion of a constant (interpreter/decorators.go
        # maybeOptimizeConstUnary): the API server's compile fails on its error (celcost)
        (
            'bool("a100") || true',
            "program instantiation failed: type conversion error from 'string' to 'bool'",
        ),
        (
            'int(dyn("x")) == 1',
            "program instantiation failed: type conversion error from 'string' to 'int'",
        ),
        ("int(18446744073709551615u) > 0", "program instantiation failed: integer overflow"),
        # parser.go VisitNegate: ANTLR's ('-')+ takes a literal's sign, an even count is none
        (
            "--9223372036854775808 > 0",
            "compilation failed: ERROR: <input>:1:3: invalid int literal\n"
            " | --9223372036854775808 > 0\n | ..^",
        ),
    ],
)
def test_the_checker_reports_upstreams_error(expression: str, detail: str) -> None:
    with pytest.raises(CELCompileError) as e:
        compile_cost(expression)
    assert str(e.value) == detail


@pytest.mark.parametrize("expression", WELL_TYPED)
def test_well_typed_neighbours_compile(expression: str) -> None:
    assert compile_cost(expression).max >= 0


def test_an_even_count_of_minus_signs_is_no_call() -> None:
    """``--1`` is the literal 1 (celcost: MaxCost 1), ``---1`` one negation of it (2)."""
    assert (compile_cost("--1 > 0").max, compile_cost("---1 < 0").max) == (1, 2)


def test_the_corpus_is_refused() -> None:
    """At least 150 refused selectors, each an error of ours too."""
    assert len(REFUSED) >= 150
    assert [e for e in REFUSED if not ours(e).startswith("ERR ") and e not in KNOWN] == []


def test_includes_with_list_type_attributes() -> None:
    """compile.go adds ``library.IncludesOption()`` with DRAListTypeAttributes only."""
    expression = 'device.attributes["a"].x.includes(1)'
    assert ours(expression).startswith("ERR ")
    assert ours(expression, list_type=True) == "68"


# --- against upstream


@pytest.mark.parametrize("list_type", [False, True])
def test_the_refused_corpus_matches_upstream(list_type: bool) -> None:
    """Also with DRAListTypeAttributes (attributes of type dyn, ``includes`` declared)."""
    corpus = REFUSED + WELL_TYPED + MULTILINE
    mismatches = _mismatches(corpus, list_type)
    assert {e: m for e, m in mismatches.items() if e not in KNOWN} == {}
    assert set(mismatches) == set(KNOWN) & set(corpus)


def test_the_syntax_errors_match_upstream() -> None:
    """cel_syntax_errors.txt: cel-go's parser errors, each message, location and display,
    their order and limits (recovery attempts, recursion, 100 errors), exactly."""
    assert _mismatches(SYNTAX + ["1" + " " * 100_000, "a.b" + " " * 99_997]) == {}


_EDITS = ["(", ")", "[", "]", "{", "}", ".", ".?", "?", ":", ",", "!", "-", "==", "=", "&", "|"]
_EDITS += ['"', "'", "\\", "`", "1", "a", "true", "in", " ", "\n", "#", "\u00e9", "[?", "{?"]


def _edit(rng: random.Random, e: str) -> str:
    """``e`` with one to three characters' edits: a token inserted, replaced or deleted."""
    for _ in range(rng.randint(1, 3)):
        i, k = rng.randrange(len(e) + 1), rng.random()
        cut = i + (rng.randint(1, 3) if 0.4 <= k < 0.8 else 0 if k < 0.4 else 1)
        e = e[:i] + ("" if 0.4 <= k < 0.8 else rng.choice(_EDITS)) + e[cut:]
    return e


def _errors(detail: str) -> list[str]:
    return re.split(r"\n(?=ERROR: )", detail.removeprefix("ERR compilation failed: "))


def test_edited_selectors_match_upstream() -> None:
    """Seeded edits of the listed selectors, mostly syntax errors: the same verdict and errors
    but where cel-go's visitor adds its own to those of a recovered tree (a macro's argument
    errors) or celpy does not parse what the grammar accepts (docs/dra.md, CEL limits)."""
    rng = random.Random(7)
    edited = sorted({_edit(rng, rng.choice(LISTED)) for _ in range(400)})
    mismatches = _mismatches(edited)
    unexplained = {
        e: (up, our)
        for e, (up, our) in mismatches.items()
        if "cel-python cannot parse" not in our
        and not (
            set(_errors(our)) < set(_errors(up))
            and not any("Syntax error" in x for x in set(_errors(up)) - set(_errors(our)))
        )
    }
    assert unexplained == {}
    assert len(mismatches) < len(edited) // 40


def test_the_accepted_corpora_match_upstream() -> None:
    """The cost corpora and the libraries' tables: upstream's verdict, cost or error."""
    corpus = [e for e, _ in COSTS.values()] + sorted(MEASURED) + LISTED + TABLES
    assert _mismatches(corpus) == {}
    assert _mismatches([e for e, _ in LIST_TYPED.values()], list_type=True) == {}


_SWAPS = ["1", "1u", "1.0", '"a"', "true", "null", 'b"a"', "[1]", '{"a": 1}', "device", "x"]
_TOKEN = re.compile(r'"[^"]*"|\b\d+u?\b|\btrue\b|\bfalse\b|\bdevice\.driver\b')
_FN = re.compile(r"\.([a-zA-Z]+)\(")
_OP = re.compile(r" (==|!=|<|>|<=|>=|\+|-|\*|&&|\|\|) ")


def _mutate(rng: random.Random, e: str) -> str | None:
    """A literal, a function or an operator of ``e`` replaced by another."""
    k = rng.random()
    pattern, choices = (
        (_TOKEN, _SWAPS)
        if k < 0.6
        else (_FN, ["size", "contains", "foo", "all", "map", "sum", "value"])
        if k < 0.8
        else (_OP, ["==", "+", "&&", "<", "in", "-", "%"])
    )
    found = list(pattern.finditer(e))
    if not found:
        return None
    m = rng.choice(found)
    group = 1 if pattern is not _TOKEN else 0
    return e[: m.start(group)] + rng.choice(choices) + e[m.end(group) :]


def test_mutations_match_upstream() -> None:
    rng = random.Random(1)
    mutants = [m for _ in range(600) if (m := _mutate(rng, rng.choice(LISTED)))]
    assert _mismatches(mutants) == {}


# --- the loader: validateCELExpression


_WHERE = "cluster.yaml, document 2: ResourceClaim team/gpu: spec.devices.requests[0]."
_BAD = "device.driver == 1"
_DETAIL = (
    "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to "
    "'(string, int)'\n | device.driver == 1\n | ..............^"
)


@pytest.mark.parametrize(
    ("doc", "where"),
    [
        (
            make_device_class(CLASS).selector("true").selector(_BAD).manifest(),
            "cluster.yaml, document 2: DeviceClass gpu.example.com: spec.selectors[1]",
        ),
        (_claim(_BAD), f"{_WHERE}exactly.selectors[0]"),
        (_claim(_BAD, True), f"{_WHERE}firstAvailable[0].selectors[0]"),
        (
            make_resource_claim_template("gpu")
            .namespace("team")
            .request_with_name("gpu", CLASS, 1, _BAD)
            .manifest(),
            "cluster.yaml, document 2: ResourceClaimTemplate team/gpu: "
            "spec.spec.devices.requests[0].exactly.selectors[0]",
        ),
    ],
)
def test_loader_refuses_an_ill_typed_selector(doc: dict[str, Any], where: str) -> None:
    """``field.Invalid(path, expression, detail)``: the value quoted, the compiler's error."""
    fine = make_device_class(CLASS).manifest() if doc["kind"] != "DeviceClass" else _claim("true")
    with pytest.raises(InputError) as e:
        _load(fine, doc)
    assert str(e.value) == f'{where}.cel.expression: Invalid value: "{_BAD}": {_DETAIL}'


@pytest.mark.parametrize(
    ("expression", "detail"),
    [
        # a syntax error is a compile error of the API server too (env.Compile parses first)
        (
            "?!",
            "compilation failed: ERROR: <input>:1:1: Syntax error: extraneous input '?' expecting",
        ),
        # the list library's includes: not in the NewExpressions environment of any release
        ("[0, 1].includes(1)", "undeclared reference to 'includes'"),
        # the output type check (compile.go validateOutputType)
        ('device.driver + "x"', "must evaluate to bool or the unknown type, not string"),
        # env.Program's folding of a constant conversion (compile.go calls it next)
        ('uint("") == 1u', "program instantiation failed: type conversion error"),
    ],
)
def test_loader_refuses_what_does_not_compile(expression: str, detail: str) -> None:
    with pytest.raises(InputError, match="Invalid value: ") as e:
        _load(make_device_class(CLASS).selector(expression).manifest())
    assert detail in str(e.value)
