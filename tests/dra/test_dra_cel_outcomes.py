"""cel-go's outcomes of DRA selectors where celpy's own differ (dra/cel_values.py,
dra/cel_operators.py, dra/cel_conversions.py, dra/cel_macros.py, the checker at the scheduler's
compile in dra/cel_runtime_cost.py): each case's expected outcome is what
``upstream/bin/kschedconf-celcost -actual`` printed on test_dra_cel_runtime_cost.py's device 0
(the recorded corpora prove them on every device, with their costs)."""

from __future__ import annotations

import pytest

from reference_impl.dra import cel
from reference_impl.dra.cel_runtime_cost import compile_selector
from tests.dra.test_dra_cel_runtime_cost import DEVICES, device_view

V = 'device.attributes["a.com"].v'  # a version attribute: a semver
X = 'device.attributes["a.com"].x'  # a string attribute


def _outcome(expression: str, device: int = 0) -> str:
    try:
        selector = compile_selector(expression)
    except cel.CELCompileError as e:
        return f"compile: {e}"
    try:
        return str(selector.device_matches(device_view(DEVICES[device]))).lower()
    except cel.CELMatchError as e:
        return f"ERR {e}"


@pytest.mark.parametrize(
    ("expression", "outcome"),
    [
        # genRange's cap (ext/lists.go defaultMaxRangeSize, v0.29.2): no list is built, so
        # a huge size does not hang the evaluation, and && / || absorb the error
        ("lists.range(1000001).size() > 0",
         "ERR lists.range: size 1000001 exceeds maximum allowed (1000000)"),
        ("false && lists.range(9223372036854775807).size() > 0", "false"),
        ("lists.range(9223372036854775807).size() > 0 || true", "true"),
        # evalBinary/evalUnary: the operand's trait, else a receiver's or the function's error
        (f"{X} + 1 > 2", "ERR no such overload"),
        ("dyn(true) + 1 == 1", "ERR no such overload: _+_"),
        ("dyn(true) < 1", "ERR no such overload"),
        (f"{V} > 1", "ERR no such overload: _>_"),
        ("-dyn(1u) == 1", "ERR no such overload: -_"),
        ("dyn(-9223372036854775808) % -1 == 0", "ERR integer overflow"),
        ("dyn(1) / 0 == 1", "ERR division by zero"),
        # MaybeNoSuchOverload: cel-go's type names; blang/semver's %q
        (
            'device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))',
            "ERR no such overload: isGreaterThan(string, kubernetes.Semver)",
        ),
        (
            "semver(device.driver).minor() == 1",
            'ERR Invalid character(s) found in major number "dra"',
        ),
        (f"size(dyn({V})) == 1", "ERR no such overload: size"),
        # types.Equal: a semver equals only a semver; lists and maps stop only at false
        (f"{V} == 1", "ERR no such overload"),
        (f"{V} != 1", "true"),
        (f"[{V}] == [1]", "true"),
        (f'{{"a": {V}}} == {{"a": 1}}', "true"),
        (
            'cel.bind(x, device.attributes["a.com"], x.exists(i, x[i] == 1))',
            "ERR no such overload",
        ),
        # Go's panics, recovered as "internal error"
        (f"{V} in [1]", "ERR internal error: runtime error: hash of unhashable type cel.Semver"),
        (
            f'{V} in {{"a": 1}}',
            "ERR internal error: runtime error: hash of unhashable type cel.Semver",
        ),
        (
            'device.attributes["a.com"].zz.split(",").sort().size() > 0',
            "ERR internal error: interface conversion: *types.Err is not traits.Lister: "
            "missing method Add",
        ),
        (
            "dyn(1.0).distinct().size() > 0",
            "ERR internal error: interface conversion: "
            "types.Double is not traits.Lister: missing method Contains",
        ),
        # type values and identifiers
        ("type(device.attributes) == map && type(device.driver) == string", "true"),
        ('type(duration("1s")) == google.protobuf.Duration', "true"),
        ('type(ip("1.2.3.4")) == net.IP', "true"),
        # conversions: Go's parsers; constants folded when the program is planned
        (f"int({X}) > 1", "ERR type conversion error from 'string' to 'int'"),
        (f"int({V}) == 1", "ERR no such overload: int(kubernetes.Semver)"),
        ("int(1e30) == 1", "compile: program instantiation failed: integer overflow"),
        (
            '{"a": 1}[dyn(null)] == 1',
            "compile: program instantiation failed: invalid qualifier type: types.Null",
        ),
        (f'{{"a": 1}}[{V}] == 1', "ERR invalid qualifier type: cel.Semver"),
        # evalAnd, evalConditional and the macros' folds: an operand that is no bool
        ("true && dyn(1)", "ERR no such overload"),
        ("dyn(1) || true", "true"),
        ('dyn("a") ? true : false', "ERR no such overload"),
        ("[1, 2, 3].filter(x, dyn(x)).size() == 0", "ERR no such overload"),
        # macros: the three-argument map; a range that is no list or map
        ("[1, 2].map(x, x > 1, x * 2) == [4]", "true"),
        (f"{X}.exists(i, true)", "ERR got 'types.String', expected iterable type"),
        (f"{X}.exists(k, v, true)", "ERR unsupported comprehension range type: types.String"),
        # the checker at the scheduler's compile (StoredExpressions: dyn attributes from 1.36)
        (
            'device.capacity["dra.example.com"].name == 1',
            "compile: compilation failed: ERROR: <input>:1:41: found no matching overload for "
            "'_==_' applied to '(kubernetes.Quantity, int)'\n"
            ' | device.capacity["dra.example.com"].name == 1\n'
            " | ........................................^",
        ),
        ("dyn(true)", "true"),
        # a list's index (common/types/list.go Get, IndexOrError)
        ("[1, 2][-1] == 1", "ERR index out of bounds: -1"),
        ('"a,b".split(",")[16] == "a"', "ERR index out of bounds: 16"),
        ("[1, 2][dyn(1.5)] == 2", "ERR unsupported index value 1.5 in list"),
        ("[1, 2][dyn(true)] == 2", "ERR unsupported index type 'bool' in list"),
        ("[1, 2][dyn(1.0)] == 2", "true"),
        # all/exists fold with the first error kept (evalAnd/evalOr; celpy: "no such overload")
        (
            '[1, 2].exists(x, semver("x").isGreaterThan(semver("1.0.0")))',
            "ERR No Major.Minor.Patch elements found",
        ),
        ("[1, 2].all(x, 1 / 0 == 1)", "ERR division by zero"),
        (f"[{X}].existsOne(i, x, x)", "ERR no such overload"),
        ("1 / 0 == 1 || [1].map(x, [][x]).size() == 1", "ERR division by zero"),
        # maybeOptimizeSetMembership: "in" an empty constant list is the constant false
        ("!(1 / 0 in [])", "true"),
        # add/sub return a *Quantity, which Quantity.Equal's type assertion refuses
        ('quantity("1") == quantity("40Gi").add(-1)', "ERR no such overload"),
        ('quantity("40Gi").add(-1) == quantity("1")', "false"),
        ('quantity("40Gi").sub(-9223372036854775808).isLessThan(quantity("1"))', "true"),
        # blang/semver Parse: major, minor and patch first, then strconv.ParseUint's error
        ('semver("", true).major() == 0', 'ERR strconv.ParseUint: parsing "": invalid syntax'),
        ('semver("1.2.3-a$+b$").major() == 1', 'ERR Invalid character(s) found in prerelease "a$"'),
        ('semver("1.2.x+b$").major() == 1', 'ERR Invalid character(s) found in patch number "x"'),
        # Go's time.ParseDuration (units µs and μs, ".5s", "0")
        ('duration("1\u00b5s") < duration(".5s") && duration("0") == duration("0s")', "true"),
        # a resource.Quantity backed by an inf.Dec (ParseQuantity: no int64 fast path) or an
        # int64Amount of a negative scale is no integer; a sum at the smaller scale
        ('quantity("1Ei").isInteger() || quantity("1.5Gi").isInteger()', "false"),
        ('quantity("1Pi").asInteger() > 0', "ERR cannot convert value to integer"),
        (
            'quantity("1000m").isInteger() || quantity("1").add(quantity("1000m")).isInteger()',
            "false",
        ),
        ('quantity("9223372036854775807").add(1).isInteger()', "false"),
        ('quantity("1E").isInteger() && quantity("1Ti").sub(1).asInteger() > 0', "true"),
    ],
)
def test_cel_go_outcomes(expression: str, outcome: str) -> None:
    assert _outcome(expression) == outcome


def test_the_cost_of_an_error_operand_of_a_dispatched_call() -> None:
    """An error receiver of a function the checker leaves several overloads of stops the call
    (evalVarArgs) before its argument: celcost -actual's 5 (the attribute and ``==``), not
    the argument's cost and the call's."""
    from reference_impl.dra.cel_checker import parse
    from reference_impl.dra.cel_runtime_cost import actual_cost

    root = parse('device.attributes["a.com"].zz.indexOf(device.driver) == 0', True)
    device = cel.device_value(device_view(DEVICES[1]))
    assert actual_cost(root, device) == 5
