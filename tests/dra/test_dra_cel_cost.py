"""The worst-case cost estimate of DRA selectors (reference_impl/dra/cel_cost.py) and the
loader's refusal of a selector that is too expensive (model/loader/resource.py), as the API
server refuses it.

The cases are those of k8s.io/dynamic-resource-allocation/cel/compile_test.go (v0.37.2,
``testcases``) with an ``expectCost`` (the ``MaxCost`` that ``CompileCELExpression`` must
return), each under its upstream name. Not restated (no cost: upstream's compilation fails):
``syntax-error``, ``type-error``, ``macro-compilation-error-new-expressions``,
``includes-function-compilation-error`` and ``allow_multiple_allocations_disabled``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reference_impl.dra.cel import CELCompileError
from reference_impl.dra.cel_cost import (
    CEL_SELECTOR_EXPRESSION_MAX_COST,
    Estimate,
    estimate_cost,
    too_expensive,
)
from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_documents
from reference_impl.testing.resources import (
    make_device_class,
    make_resource_claim,
    make_resource_claim_template,
    sub_request,
)
from tests.dra.test_dra_cel_tables_upstream import EXPRESSIONS as TABLES
from tests.dra.test_dra_cel_tables_upstream import REFUSED

#: compile_test.go's maxElementsListTypeEnabled: max(DeviceAttributeMaxValueLength,
#: ResourceSliceMaxAttributeValuesPerDevice)
MAX_ELEMENTS = max(64, 48)
A = 'device.attributes["dra.example.com"]'
C = 'device.capacity["dra.example.com"]'
TEN = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"

#: compile_test.go cases run with every feature combination (or DRAConsumableCapacity on),
#: so with v1.37.2's defaults as the reference has them
COSTS: dict[str, tuple[str, int]] = {
    "true": ("true", 0),
    "false": ("false", 0),
    "runtime-error-lookup-identifier": (
        'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
        6,
    ),
    "runtime-error-lookup-map": (
        'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))',
        6,
    ),
    "domain-check-negative": ('"no-such-domain" in device.attributes', 3),
    "domain-check-positive": ('"dra.example.com" in device.attributes', 3),
    "empty-driver-name": ('device.driver == ""', 2),
    "real-driver-name": ('device.driver == "dra.example.com"', 4),
    "driver-name-qualifier": (f"{A}.name", 4),
    "driver-name-qualifier-map-lookup": (f'{A}["name"]', 4),
    "bind": ('cel.bind(dra, device.attributes["dra.example.com"], dra.name)', 15),
    "qualified-attribute-name": ('device.attributes["other.example.com"].name', 4),
    "bool": (f"{A}.name", 4),
    "int": (f"{A}.name > 0", 5),
    "string": (f'{A}.name == "fish"', 5),
    "list-result-type-causes-match-error": (f"{A}.names", 4),
    "list-of-bool": (f"{A}.names.size() == 2", 6),
    "list-of-int": (f"{A}.names.size() == 2", 6),
    "list-of-string": (f"{A}.names.size() == 2", 6),
    "list-of-semver": (f"{A}.names.size() == 2", 6),
    "in-operator-on-list": (f"1 in {A}.names", 4 + 64),
    "version": (f'{A}.name.isGreaterThan(semver("0.0.1"))', 6),
    "version_v": (f'{A}.name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)', 7),
    "quantity": (f'{C}.name.isGreaterThan(quantity("1Ki"))', 6),
    "check-positive": (f'"name" in {C} && {C}.name.isGreaterThan(quantity("1Ki"))', 10),
    "check-negative": (f'!("name" in {C}) || {C}.name.isGreaterThan(quantity("1Ki"))', 11),
    "all": (
        "\n"
        + " &&\n".join(
            [
                f'{C}.quantity.isGreaterThan(quantity("1Ki"))',
                f"{A}.bool",
                f"{A}.int > 0",
                f'{A}.string == "fish"',
                f'{A}.version.isGreaterThan(semver("0.0.1"))',
                f'{C}["quantity"].isGreaterThan(quantity("1Ki"))',
                f'{A}["bool"]',
                f'{A}["int"] > 0',
                f'{A}["string"] == "fish"',
                f'{A}["version"].isGreaterThan(semver("0.0.1"))',
            ]
        )
        + "\n",
        52,
    ),
    "many": (f"{A}.a && {A}.b && {A}.c", 12),
    "check_attribute_domains": ('device.attributes.exists_one(x, x == "dra.example.com")', 164),
    "check_attribute_ids": (f'{A}.exists_one(x, x == "services")', 133),
    "split_attribute": (f'{A}.services.split("example").size() >= 2', 19),
    "regexp_attribute": (f'{A}.services.matches("[^a]?sym")', 18),
    "check_capacity_domains": ('device.capacity.exists_one(x, x == "dra.example.com")', 164),
    "check_capacity_ids": (f'{C}.exists_one(x, x == "memory")', 133),
    "expensive": (
        f"{TEN}.all(x, {TEN}.all(y, {TEN}.all(z, {TEN}.all(z2, {TEN}.all(z3, {TEN}.all(z4, "
        f"{TEN}.all(z5, int('1'.find('[0-9]*')) < 100)))))))",
        85555551,
    ),
    "allow_multiple_allocations": ("device.allowMultipleAllocations == true", 3),
    "allow_multiple_allocations_default": ("device.allowMultipleAllocations == false", 3),
    "allow_multiple_allocations_false": ("device.allowMultipleAllocations == false", 3),
    "allow_multiple_allocations_new": ("device.allowMultipleAllocations == false", 3),
    "allow_multiple_allocations_enabled": ("device.allowMultipleAllocations == false", 3),
}

_INCLUDES = 4 + 64  # "cost of includes on dynamic type"
#: compile_test.go cases that run only with DRAListTypeAttributes (alpha, off in v1.37.2, and
#: list-typed attributes are not in the model): the reference's environment has their sizes
#: (the attribute's maximum size is MAX_ELEMENTS either way), so the estimate's arithmetic is
#: checked on them too, though upstream's NewExpressions refuses macros on an attribute and
#: ``includes`` with the gate off.
LIST_TYPED: dict[str, tuple[str, int]] = {
    "macro-exists-on-int": (f"{A}.name.exists(x, x > 0)", 5 + (3 + 3) * MAX_ELEMENTS),
    "macro-exists-on-bool": (f"{A}.name.exists(x, x == true)", 5 + (3 + 3) * MAX_ELEMENTS),
    "macro-exists-on-string": (f'{A}.name.exists(x, x == "fish")', 5 + (3 + 3) * MAX_ELEMENTS),
    "includes-function-can-evaluate": (f'{A}.name.includes("fish")', _INCLUDES),
    "macro-on-list-of-int": (f"{A}.names.exists(x, x > 0)", 5 + (3 + 3) * MAX_ELEMENTS),
    "macro-on-list-of-string": (f'{A}.names.all(x, x != "")', 5 + (2 + 2) * MAX_ELEMENTS),
    "macro-on-list-of-semver": (
        f'{A}.names.all(x, x.isGreaterThan(semver("0.0.1")))',
        5 + (2 + 4) * MAX_ELEMENTS,
    ),
    "includes-function-compilation-and-eval-success": (f'{A}.attr.includes("fish")', _INCLUDES),
    "includes-function-on-bool-scalar-positive": (f"{A}.name.includes(true)", _INCLUDES),
    "includes-function-on-bool-scalar-negative": (f"{A}.name.includes(true)", _INCLUDES),
    "includes-function-on-bool-list-positive": (f"{A}.name.includes(true)", _INCLUDES),
    "includes-function-on-bool-list-negative": (f"{A}.name.includes(false)", _INCLUDES),
    "includes-function-on-int-scalar-positive": (f"{A}.name.includes(1)", _INCLUDES),
    "includes-function-on-int-scalar-negative": (f"{A}.name.includes(1)", _INCLUDES),
    "includes-function-on-int-list-positive": (f"{A}.name.includes(1)", _INCLUDES),
    "includes-function-on-int-list-negative": (f"{A}.name.includes(3)", _INCLUDES),
    "includes-function-on-string-scalar-positive": (f'{A}.name.includes("fish")', _INCLUDES),
    "includes-function-on-string-scalar-negative": (f'{A}.name.includes("bird")', _INCLUDES),
    "includes-function-on-string-list-positive": (f'{A}.name.includes("fish")', _INCLUDES),
    "includes-function-on-string-list-negative": (f'{A}.name.includes("cat")', _INCLUDES),
    "includes-function-on-semver-scalar-positive": (
        f'{A}.name.includes(semver("1.0.0"))',
        _INCLUDES + 1,
    ),
    "includes-function-on-semver-scalar-negative": (
        f'{A}.name.includes(semver("2.0.0"))',
        _INCLUDES + 1,
    ),
    "includes-function-on-semver-list-positive": (
        f'{A}.name.includes(semver("1.0.0"))',
        _INCLUDES + 1,
    ),
    "includes-function-on-semver-list-negative": (
        f'{A}.name.includes(semver("3.0.0"))',
        _INCLUDES + 1,
    ),
    # fmt.Sprintf(`...includes("value-%d")`, ResourceSliceMaxAttributeValuesPerDevice)
    "includes-function-on-very-long-list-positive": (f'{A}.name.includes("value-48")', _INCLUDES),
    "macro-exists-on-version": (
        f'{A}.name.exists(x, x.isGreaterThan(semver("0.0.1")))',
        5 + (3 + 4) * MAX_ELEMENTS,
    ),
}


def test_every_case_with_a_cost_is_accounted_for() -> None:
    """compile_test.go has 64 cases with ``expectCost`` plus ``true`` and ``false`` (0)."""
    assert len(COSTS) + len(LIST_TYPED) == 64 + 2
    assert not set(COSTS) & set(LIST_TYPED)


@pytest.mark.parametrize("name", sorted(COSTS))
def test_compile_test_cost(name: str) -> None:
    expression, expect = COSTS[name]
    assert estimate_cost(expression).max == expect


@pytest.mark.parametrize("name", sorted(LIST_TYPED))
def test_compile_test_cost_list_typed(name: str) -> None:
    expression, expect = LIST_TYPED[name]
    assert estimate_cost(expression, list_type_attributes=True).max == expect


@pytest.mark.parametrize(
    ("expression", "expect"),
    [
        # cel-go checker/cost.go, worked by hand: && costs its operands only, its minimum is the
        # left side's (short-circuit)
        ('device.driver == "a" && device.driver == "b"', Estimate(3, 6)),
        # ? : costs the condition plus the dearer branch
        ('true ? device.driver == "abcdefghijk" : false', Estimate(0, 4)),
        # a presence test costs nothing of its own (base.go: PresenceTestHasCost(false))
        ("has(device.attributes.x)", Estimate(2, 2)),
        # dyn(x) costs 1 plus x
        ("dyn(device.driver) == ''", Estimate(3, 3)),
        # string concatenation: the traversal of both sides (1 + 63 chars), 0.1 per char
        ('"a" + device.driver == "b"', Estimate(4, 10)),
        # lowerAscii: 64 chars of an attribute at 0.1 (library/cost.go)
        (f'{A}.s.lowerAscii() == "x"', Estimate(5, 12)),
        # a map literal costs 30, its iteration 1 element
        ('{"a": 1}.exists(k, k == "a")', Estimate(35, 37)),
        # map(): the list 10, the accumulator's [] 10, the result 1, per element (2) the step
        # accu + [x * 2] = 1 + 1 + 10 + 2; then size() 1 and == 1 (upstream's MaxCost: 51)
        ("[1, 2].map(x, x * 2).size() == 2", Estimate(51, 51)),
        # a two-variable comprehension over an attribute map (ext/comprehensions.go)
        (f"{A}.all(k, v, v == 1)", Estimate(4, 3 + 32 * (2 + 3) + 1)),
        # sets.contains: the product of the sizes plus 1 (ext/sets.go)
        ("sets.contains([1], [1])", Estimate(22, 22)),
        # functions without an estimator: cel-go's default call cost (1 plus the arguments)
        ("optional.none().hasValue()", Estimate(2, 2)),
    ],
)
def test_cost_rules(expression: str, expect: Estimate) -> None:
    assert estimate_cost(expression) == expect


#: ``MaxCost`` of the upstream estimator (``CompileCELExpression`` of
#: k8s.io/dynamic-resource-allocation/cel@v0.37.2, NewExpressions, DRAConsumableCapacity on),
#: measured by a Go program linking it
MEASURED: dict[str, int] = {
    # checker/cost.go's pushIterKey and pushIterValue append to one Go slice: with a spare
    # slot (a path of 3: device, attributes, @values) the key's path ends in @values, so
    # ``k`` is sized as an attribute (64: (64+1)*0.1 -> 7 per matches, not 4) ...
    f'{A}.all(k, v, k.matches("^a+$"))': 356,
    # ... and under a capacity map as a quantity (0: the comparison costs nothing)
    f"{C}.all(k, v, k == {A}.s)": 260,
    # a path of 2 has no spare slot: the key is a domain (63)
    'device.attributes.all(k, v, k.matches("^a+$"))': 355,
    # the one-variable form keeps the key's own size (an ID, 32)
    f'{A}.exists(k, k.matches("^a+$"))': 292,
    # library/cost.go ip.isCanonical: 0.2 per character of the argument
    "ip.isCanonical(device.driver)": 15,
    # ext/lists.go (version 3) estimators
    "lists.range(10).size() == 10": 23,
    'device.driver.split(",").slice(1, 2).size() == 1': 29,
    'device.driver.split(",").sort().size() > 1': 8363,
    'device.driver.split(",").distinct().size() == 2': 7966,
    "[[1], [2, 3]].flatten().size() == 3": 45,
    # ext/comprehensions.go transform macros
    'device.driver.split(",").transformList(i, e, e + "x").size() > 1': (1 << 64) - 1,
    f"{C}.transformMap(k, v, v).size() > 1": 164,
    '{"a": 1}.transformMapEntry(k, v, v > 0, {k: v}).size() > 1': 99,
}


@pytest.mark.parametrize("expression", sorted(MEASURED))
def test_upstream_measured_cost(expression: str) -> None:
    assert estimate_cost(expression).max == MEASURED[expression]


def _upstream_max_costs(expressions: list[str], list_type: bool = False) -> list[str]:
    """The upstream estimator's answers (upstream/celcost, which upstream/build.sh builds as
    upstream/bin/kschedconf-celcost; KSCHEDCONF_CELCOST names another build): a MaxCost, or
    ``ERR`` and the compilation error, per expression."""
    built = Path(__file__).parents[2] / "upstream" / "bin" / "kschedconf-celcost"
    binary = os.environ.get("KSCHEDCONF_CELCOST") or (str(built) if built.exists() else "")
    if not binary:
        pytest.skip("upstream/bin/kschedconf-celcost is not built (bash upstream/build.sh)")
    args = [binary] + (["-list-type-attributes"] if list_type else [])
    lines = "".join(json.dumps(e) + "\n" for e in expressions)
    run = subprocess.run(args, input=lines, capture_output=True, text=True, check=True)
    return run.stdout.splitlines()


def test_against_the_upstream_estimator() -> None:
    """Every expression of this file and of cel_cost_expressions.txt, on both estimators."""
    listed = Path(__file__).with_name("cel_cost_expressions.txt").read_text().splitlines()
    expressions = [e for e, _ in COSTS.values()] + sorted(MEASURED) + [AT_LIMIT, OVER_LIMIT]
    expressions += [e for e in listed if e and not e.startswith("#")]
    # the CEL libraries' own test tables, but what upstream's checker refuses: mixed types,
    # and `includes`, which the NewExpressions environment of validation lacks in 1.37
    expressions += [e for e in TABLES if e not in REFUSED and ".includes(" not in e]
    for list_type, batch in ((False, expressions), (True, [e for e, _ in LIST_TYPED.values()])):
        upstream = _upstream_max_costs(batch, list_type)
        ours = [str(estimate_cost(e, list_type).max) for e in batch]
        assert [(e, u) for e, u, o in zip(batch, upstream, ours, strict=True) if u != o] == []


def test_a_syntax_error_is_a_compile_error() -> None:
    with pytest.raises(CELCompileError, match="Syntax error"):
        estimate_cost("?!")
    assert too_expensive("?!") is None


# --- the limit: a selector at exactly CELSelectorExpressionMaxCost loads, one more does not


def _regex(cost: int) -> str:
    """``'1'.matches(R)`` costs ceil((1+1) * 0.1) * ceil(len(R) * 0.25) = len(R) / 4."""
    return "'1'.matches('" + "x" * (4 * cost) + "')"


def _nest(levels: int, inner: str) -> str:
    """``levels`` nested ``TEN.all``: each level costs 10 * (inner + 3) + 11 (the list 10,
    the result 1; per element the step's accumulator 1 and the condition 2), so 4 levels of
    an inner cost p cost 10000 * p + 45551."""
    for i in range(levels):
        inner = f"{TEN}.all(v{i}, {inner})"
    return inner


AT_LIMIT = f"{_nest(4, _regex(95))} && {_nest(1, _regex(440))} && {_regex(8)}"
OVER_LIMIT = f"{_nest(4, _regex(95))} && {_nest(1, _regex(440))} && {_regex(9)}"


def test_the_limit_selectors() -> None:
    assert estimate_cost(AT_LIMIT).max == 995551 + 4441 + 8 == CEL_SELECTOR_EXPRESSION_MAX_COST
    assert estimate_cost(OVER_LIMIT).max == CEL_SELECTOR_EXPRESSION_MAX_COST + 1
    assert too_expensive(AT_LIMIT) is None
    assert too_expensive(OVER_LIMIT) == CEL_SELECTOR_EXPRESSION_MAX_COST + 1


EXPENSIVE = COSTS["expensive"][0]
CLASS = "gpu.example.com"


def _class(expression: str) -> dict[str, Any]:
    return make_device_class(CLASS).selector("true").selector(expression).manifest()


def _claim(expression: str, first_available: bool = False) -> dict[str, Any]:
    claim = make_resource_claim("gpu").namespace("team")
    if first_available:
        claim.request_first_available("gpu", sub_request("one", CLASS, 1, expression))
    else:
        claim.request_with_name("gpu", CLASS, 1, expression)
    return claim.manifest()


def _template(expression: str) -> dict[str, Any]:
    template = make_resource_claim_template("gpu").namespace("team")
    return template.request_with_name("gpu", CLASS, 1, expression).manifest()


def _load(*docs: dict[str, Any]) -> Any:
    return load_documents(list(docs), "cluster.yaml", require_known_nodes=False)


_CLAIM = "cluster.yaml, document 2: ResourceClaim team/gpu: spec.devices.requests[0]."
_CLASS = "cluster.yaml, document 2: DeviceClass gpu.example.com: spec.selectors[1]"


@pytest.mark.parametrize(
    ("doc", "expression", "where"),
    [
        (_class(EXPENSIVE), EXPENSIVE, _CLASS),
        (_claim(EXPENSIVE), EXPENSIVE, f"{_CLAIM}exactly.selectors[0]"),
        (_claim(EXPENSIVE, True), EXPENSIVE, f"{_CLAIM}firstAvailable[0].selectors[0]"),
        (
            _template(EXPENSIVE),
            EXPENSIVE,
            "cluster.yaml, document 2: ResourceClaimTemplate team/gpu: "
            "spec.spec.devices.requests[0].exactly.selectors[0]",
        ),
        (_class(OVER_LIMIT), OVER_LIMIT, _CLASS),
    ],
)
def test_loader_refuses_a_too_expensive_selector(
    doc: dict[str, Any], expression: str, where: str
) -> None:
    """validation.go ``validateCELExpression``: "too complex, exceeds cost limit"."""
    fine = _class("true") if doc["kind"] != "DeviceClass" else _claim("true")
    with pytest.raises(InputError) as e:
        _load(fine, doc)
    cost = estimate_cost(expression).max
    assert str(e.value) == (
        f"{where}.cel.expression: too complex, exceeds cost limit (estimated worst-case "
        f"cost {cost} > 1000000)"
    )


def test_loader_takes_a_selector_at_the_limit() -> None:
    cluster = _load(_class(AT_LIMIT), _claim(AT_LIMIT), _template(AT_LIMIT))
    assert cluster is not None


def test_loader_refuses_a_too_long_selector() -> None:
    """validation.go: longer than CELSelectorExpressionMaxLength is refused unread."""
    long = "true || " * 1280 + "true"
    assert len(long) > 10 * 1024
    with pytest.raises(
        InputError,
        match=r"spec.selectors\[1\].cel.expression: Too long: may "
        r"not be more than 10240 bytes",
    ):
        _load(_class(long))


def test_loader_refuses_a_syntax_error() -> None:
    """env.Compile parses first: a syntax error is the API server's "compilation failed"."""
    with pytest.raises(InputError, match="Invalid value: .*Syntax error"):
        _load(_class("?!"))
