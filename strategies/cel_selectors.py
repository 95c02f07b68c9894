"""DRA device selectors as users and adversaries write them, and devices to run them on
(docs/strategies.md#generated-cel-selectors): CEL over the environment of
k8s.io/dynamic-resource-allocation/cel@v0.37.2 compile.go (``device`` and the Kubernetes
libraries), drawn as small typed trees that shrink towards a literal. Most selectors are well
typed and of a realistic shape (a driver guard, then attribute and capacity tests); some nodes
have another type than their place wants (a compile error, or on an attribute a runtime "no
such overload"), names are drawn that devices lack (missing keys), literals include invalid
semvers, quantities and regexes, a few are costly (nested comprehensions, long regexes on wide
devices) or break the syntax. tests/dra/test_dra_cel_generated.py compares the reference's
compile verdict, actual cost and outcome with cel-go's on them."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from strategies._cache import booleans, composite, integers, sampled

__all__ = ["DRIVER", "OTHER", "cel_devices", "cel_expressions", "cel_selectors"]

Doc = dict[str, Any]
DRIVER = "gpu.example.com"
OTHER = "other.example.com"
#: attribute domains a selector reads: the driver's (most), another one, one no device has
DOMAINS = (DRIVER, DRIVER, DRIVER, OTHER, "missing.example.com")
#: the devices' attributes: name, resource.k8s.io/v1 value field, the CEL type a selector
#: reads it as, values (the first is the shrunk one); a device has each one three times in four
ATTRIBUTES: tuple[tuple[str, str, str, tuple[Any, ...]], ...] = (
    ("model", "string", "string", ("a100", "h100", "A100-SXM4", "", "h100 nvl")),
    ("names", "string", "string", ("a,b", "a,b,c", "", "x")),
    ("memory", "int", "int", (40, 80, 0, -1, 9223372036854775807)),
    ("index", "int", "int", (0, 1, 2, 3)),
    ("partition", "bool", "bool", (True, False)),
    ("driverVersion", "version", "semver", ("1.2.3", "2.0.0-rc.1", "1.10.0+build.5", "0.0.1")),
)
#: names selectors read that no device has, by the type they are read as
MISSING = {"string": "serial", "int": "numa", "bool": "healthy", "semver": "firmware"}
CAPACITIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("memory", ("40Gi", "80Gi", "0", "1500m", "1Ei")),
    ("cores", ("8", "1k", "100m")),
)
#: ResourceSliceMaxAttributesAndCapacitiesPerDevice (pkg/apis/resource/types.go)
MAX_PER_DEVICE = 32

SCALARS = ("bool", "int", "uint", "double", "string", "semver", "quantity")
LISTS = ("list_int", "list_string")
OPTIONALS = ("opt_int", "opt_string")
#: what an ill-typed node is drawn as instead
ANY_TYPE = SCALARS + LISTS + OPTIONALS
ELEMENT = {"list_int": "int", "list_string": "string", "opt_int": "int", "opt_string": "string"}
#: names users give comprehension and cel.bind variables
VARIABLES = ("x", "e", "s", "gpu", "i")

# --- rendering: precedence of a rendered expression, parentheses where needed ---

#: cel-go's precedence (parser/gen/CEL.g4): ternary, ||, &&, relations, +, *, unary, primary
_BINARY = {
    "||": 2,
    "&&": 3,
    "==": 4,
    "!=": 4,
    "<": 4,
    "<=": 4,
    ">": 4,
    ">=": 4,
    "in": 4,
    "+": 5,
    "-": 5,
    "*": 6,
    "/": 6,
    "%": 6,
}
PRIMARY = 8


def precedence(text: str) -> int:
    """The precedence of ``text`` as rendered here (binary operators always between spaces):
    its loosest operator outside brackets and quotes, PRIMARY for an atom."""
    lowest, depth, quote, i = PRIMARY, 0, "", 0
    if text[:1] in ("-", "!"):
        lowest = 7
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch == " ":
            word = text[i + 1 :].split(" ", 1)[0]
            if word == "?":
                return 1
            lowest = min(lowest, _BINARY.get(word, PRIMARY))
        i += 1
    return lowest


def wrap(text: str, at_least: int) -> str:
    return text if precedence(text) >= at_least else f"({text})"


def binary(op: str, left: str, right: str) -> str:
    p = _BINARY[op]
    return f"{wrap(left, p)} {op} {wrap(right, p + 1)}"


def member(target: str, name: str, *args: str) -> str:
    return f"{wrap(target, PRIMARY)}.{name}({', '.join(args)})"


def quote(s: str) -> str:
    """A CEL string literal (JSON's escapes are CEL's)."""
    return json.dumps(s, ensure_ascii=False)


# --- literals ---

_STRINGS = (
    "a100",
    "h100",
    "",
    "a",
    "gpu.example.com",
    "a,b",
    "A100",
    "1.2.3",
    "40Gi",
    "%s-%d",
    "h100 nvl",
    "ünï",
)
_INTS = (
    "0",
    "1",
    "2",
    "40",
    "80",
    "-1",
    "3",
    "1024",
    "0x10",
    "9223372036854775807",
    "-9223372036854775808",
)
_SEMVERS = ("1.2.3", "1.0.0", "2.0.0-rc.1", "v1.2", "1.2", "01.2.3", "1.2.3+build", "x")
_QUANTITIES = (
    "40Gi",
    "80Gi",
    "1",
    "0",
    "1500m",
    "1Ki",
    "1e3",
    "-1",
    "1.5Gi",
    "Gi",
    "1Ei",
    "9223372036854775807",
)
_REGEXES = (
    "^a",
    "[0-9]+",
    "a|h",
    "^h100$",
    "(",
    "[[:alpha:]]+",
    r"\d",
    ".*",
    "(?i)A100",
    "a{2,}",
    "[",
)
_LITERALS: dict[str, tuple[str, ...]] = {
    "bool": ("true", "false"),
    "int": _INTS,
    "uint": ("0u", "1u", "40u", "18446744073709551615u"),
    "double": ("1.5", "0.0", "-2.5", "1e3", "40.0"),
    "string": tuple(quote(s) for s in _STRINGS) + ("'a100'", 'r"\\d"', '"""h100"""'),
    "semver": tuple(f"semver({quote(s)})" for s in _SEMVERS),
    "quantity": tuple(f"quantity({quote(s)})" for s in _QUANTITIES),
    "list_int": ("[]", "[1, 2, 3]", "[40, 80]", "[3, 1, 2, 1]"),
    "list_string": ('["a100", "h100"]', "[]", '["b", "a", "b"]', '["a,b", "c"]'),
    "opt_int": ("optional.none()", "optional.of(1)"),
    "opt_string": ("optional.none()", 'optional.of("a100")'),
}
TYPE_NAMES = (
    "int",
    "uint",
    "double",
    "string",
    "bool",
    "list",
    "map",
    "null_type",
    "type",
    "optional_type",
    "kubernetes.Semver",
    "kubernetes.Quantity",
)


@dataclass(frozen=True)
class Ctx:
    """One node's draw: ``sub`` draws a child of a type, ``depth`` of them below, with the
    variables of ``scope`` (name, type) in reach."""

    draw: st.DrawFn
    depth: int
    scope: tuple[tuple[str, str], ...]

    def sub(self, t: str, *bound: tuple[str, str]) -> str:
        return self.draw(cel_expressions(t, self.depth, self.scope + bound))

    def pick(self, options: tuple[Any, ...]) -> Any:
        return self.draw(sampled(options))

    def lit(self, t: str) -> str:
        return self.pick(_LITERALS[t])

    def fresh(self) -> str:
        """A variable name not in scope (shadowing is legal, but reads badly)."""
        taken = {n for n, _ in self.scope}
        name = self.pick(VARIABLES)
        return name if name not in taken else f"{name}{len(self.scope)}"

    def attrs(self) -> str:
        """An attribute map: ``device.attributes[domain]`` or a variable bound to one."""
        bound = tuple(n for n, t in self.scope if t == "attrs")
        if bound and self.pick((False, True)):
            return str(self.pick(bound))
        return f"device.attributes[{quote(self.pick(DOMAINS))}]"

    def caps(self) -> str:
        """A capacity map of a domain."""
        return f"device.capacity[{quote(self.pick(DOMAINS))}]"

    def attribute(self, t: str) -> str:
        """An attribute read as ``t``: one of that type (mostly), missing, or (ill-typed at
        runtime only: attributes are ``dyn``) of another type; selected as users do."""
        names = [n for n, _, kind, _ in ATTRIBUTES if kind == t]
        how = self.draw(integers(0, 9))
        if how == 8 or not names:
            name = MISSING.get(t, "serial")
        elif how == 9:
            name = self.pick(tuple(n for n, _, _, _ in ATTRIBUTES))
        else:
            name = self.pick(tuple(names))
        m = self.attrs()
        return f"{m}[{quote(name)}]" if self.draw(integers(0, 4)) == 4 else f"{m}.{name}"

    def var(self, t: str) -> str | None:
        names = [n for n, vt in self.scope if vt == t or vt == "dyn"]
        return self.pick(tuple(names)) if names else None


Rule = Callable[[Ctx], str]


def _leaf(t: str) -> Rule:
    def rule(c: Ctx) -> str:
        v = c.var(t)
        return v if v is not None and c.draw(booleans()) else c.lit(t)

    return rule


def _compare(t: str, ops: tuple[str, ...]) -> Rule:
    return lambda c: binary(c.pick(ops), c.sub(t), c.sub(t))


def _ternary(t: str) -> Rule:
    return lambda c: f"{wrap(c.sub('bool'), 2)} ? {wrap(c.sub(t), 2)} : {c.sub(t)}"


def _macro(c: Ctx, name: str, list_type: str, result: str) -> str:
    """``list.name(x, body)`` (a comprehension macro over a list or, for list_string one in
    three, the keys of an attribute or capacity map)."""
    x = c.fresh()
    elem = ELEMENT[list_type]
    if list_type == "list_string" and c.draw(integers(0, 2)) == 2:
        target = c.attrs() if c.draw(booleans()) else c.caps()
    else:
        target = c.sub(list_type)
    return member(target, name, x, c.sub(result, (x, elem)))


def _two_variable(c: Ctx) -> str:
    """A two-variable comprehension (cel-go ext.TwoVarComprehensions): over a list (index,
    element) or an attribute or capacity map (key, value)."""
    name = c.pick(("all", "exists", "existsOne"))
    which = c.draw(integers(0, 2))
    taken = {n for n, _ in c.scope}
    k, v = (
        n if n not in taken else f"{n}{len(taken)}"
        for n in (("i", "x") if which == 0 else ("k", "v"))
    )
    if which == 0:
        lt = c.pick(LISTS)
        return member(c.sub(lt), name, k, v, c.sub("bool", (k, "int"), (v, ELEMENT[lt])))
    target, vt = (c.attrs(), "dyn") if which == 1 else (c.caps(), "quantity")
    return member(target, name, k, v, c.sub("bool", (k, "string"), (v, vt)))


def _bind(t: str) -> Rule:
    """``cel.bind(v, init, body)``: an attribute map (as the upstream docs show), or a value."""

    def rule(c: Ctx) -> str:
        v = c.fresh()
        if c.draw(booleans()):
            return f"cel.bind({v}, {c.attrs()}, {c.sub(t, (v, 'attrs'))})"
        vt = c.pick(SCALARS + LISTS)
        return f"cel.bind({v}, {c.sub(vt)}, {c.sub(t, (v, vt))})"

    return rule


def _costly(c: Ctx) -> str:
    """Selectors whose actual cost is high, over the limit on a wide device."""
    which = c.draw(integers(0, 3))
    if which == 0:
        k, k2 = c.fresh(), "k2"
        cap = c.caps()
        pattern = "a" * c.pick((10, 400, 1000))
        return f"{cap}.all({k}, v, {cap}.all({k2}, v2, !({k} + {k2}).matches({quote(pattern)})))"
    if which == 1:
        n = c.pick((10, 1000, 3000))
        return f'lists.range({n}).map(i, string(i)).join(",").size() > {c.sub("int")}'
    if which == 2:
        n, m = c.pick((5, 10, 20)), c.pick((5, 10, 20))
        return f"lists.range({n}).all(i, lists.range({m}).exists(j, i + j >= 0 || {c.sub('bool')}))"
    return f"{c.attrs()}.all(k, {c.attrs()}.exists(k2, (k + k2).size() > {c.sub('int')}))"


_REL = ("==", "!=", "<", "<=", ">", ">=")
_EQ = ("==", "!=")

#: rules per type; the first LEAVES[t] draw no child (all a node at depth 0 may draw)
RULES: dict[str, tuple[Rule, ...]] = {
    "bool": (
        _leaf("bool"),
        lambda c: f"device.driver == {quote(c.pick((DRIVER, OTHER, 'x.io')))}",
        lambda c: "device.allowMultipleAllocations",
        lambda c: c.attribute("bool"),
        lambda c: f"has({c.attrs()}.{c.pick(('partition', 'model', 'healthy'))})",
        lambda c: f"{quote(c.pick(('model', 'memory', 'numa')))} in {c.attrs()}",
        lambda c: f"{c.attrs()}.?{c.pick(('partition', 'healthy'))}.orValue(false)",
        # with children
        _compare("int", _REL),
        _compare("string", _REL),
        _compare("double", _REL),
        _compare("uint", _EQ + ("<",)),
        lambda c: binary(c.pick(("&&", "||")), c.sub("bool"), c.sub("bool")),
        lambda c: binary(c.pick(("&&", "||")), c.sub("bool"), c.sub("bool")),
        lambda c: "!" + wrap(c.sub("bool"), 7),
        lambda c: member(
            c.sub("string"), c.pick(("startsWith", "endsWith", "contains")), c.sub("string")
        ),
        lambda c: member(c.sub("string"), "matches", quote(c.pick(_REGEXES))),
        lambda c: f"{member(c.sub('semver'), 'compareTo', c.sub('semver'))} {c.pick(_REL)} 0",
        lambda c: member(c.sub("semver"), c.pick(("isGreaterThan", "isLessThan")), c.sub("semver")),
        lambda c: f"isSemver({c.sub('string')}{c.pick(('', ', true'))})",
        lambda c: f"{member(c.sub('quantity'), 'compareTo', c.sub('quantity'))} {c.pick(_REL)} 0",
        lambda c: member(
            c.sub("quantity"), c.pick(("isGreaterThan", "isLessThan")), c.sub("quantity")
        ),
        lambda c: member(c.sub("quantity"), "isInteger"),
        lambda c: f"isQuantity({c.sub('string')})",
        _compare("semver", _EQ),
        _compare("quantity", _EQ),
        lambda c: binary("in", c.sub("int"), c.sub("list_int")),
        lambda c: binary("in", c.sub("string"), c.sub("list_string")),
        lambda c: _macro(c, c.pick(("all", "exists", "exists_one")), c.pick(LISTS), "bool"),
        _two_variable,
        _ternary("bool"),
        _bind("bool"),
        lambda c: f"type({c.sub(c.pick(ANY_TYPE))}) == {c.pick(TYPE_NAMES)}",
        lambda c: member(c.sub(c.pick(OPTIONALS)), "hasValue"),
        lambda c: (
            f"sets.{c.pick(('contains', 'intersects', 'equivalent'))}"
            f"({c.sub('list_int')}, {c.sub('list_int')})"
        ),
        lambda c: member(c.sub(c.pick(LISTS)), "isSorted"),
        lambda c: binary(c.pick(_EQ), c.sub(c.pick(LISTS)), c.sub(c.pick(LISTS))),
        lambda c: f"bool({c.sub('string')})",
        lambda c: f"{c.attrs()}.exists(k, v, k == {c.lit('string')} && v == {c.lit('string')})",
        lambda c: f"matches({c.sub('string')}, {c.sub('string')})",
        _costly,
    ),
    "int": (
        _leaf("int"),
        lambda c: c.attribute("int"),
        lambda c: binary(c.pick(("+", "-", "*", "/", "%")), c.sub("int"), c.sub("int")),
        lambda c: "-" + wrap(c.sub("int"), 7),
        lambda c: member(c.sub(c.pick(("string",) + LISTS)), "size"),
        lambda c: f"size({c.attrs() if c.draw(booleans()) else c.sub('string')})",
        lambda c: member(c.sub("semver"), c.pick(("major", "minor", "patch"))),
        lambda c: member(c.sub("quantity"), c.pick(("asInteger", "sign"))),
        lambda c: member(c.sub("quantity"), "compareTo", c.sub("quantity")),
        lambda c: f"int({c.sub(c.pick(('string', 'double', 'uint', 'int')))})",
        lambda c: member(c.sub("string"), c.pick(("indexOf", "lastIndexOf")), c.sub("string")),
        lambda c: f"{wrap(c.sub('list_int'), PRIMARY)}[{c.sub('int')}]",
        _ternary("int"),
        lambda c: member(c.sub("list_int"), c.pick(("sum", "max", "min"))),
        lambda c: member(
            c.sub("opt_int"),
            c.pick(("orValue", "value")),
            *([c.sub("int")] if c.draw(booleans()) else []),
        ),
        lambda c: member(c.sub("list_int"), "indexOf", c.sub("int")),
        lambda c: (
            f"{{{quote(c.pick(('a', 'b')))}: {c.sub('int')}, "
            f"{quote(c.pick(('a', 'b')))}: {c.sub('int')}}}[{c.sub('string')}]"
        ),
        _bind("int"),
    ),
    "uint": (
        _leaf("uint"),
        lambda c: f"uint({c.sub(c.pick(('int', 'double', 'string')))})",
        lambda c: binary(c.pick(("+", "-", "*", "/", "%")), c.sub("uint"), c.sub("uint")),
    ),
    "double": (
        _leaf("double"),
        lambda c: f"double({c.sub(c.pick(('int', 'uint', 'string')))})",
        lambda c: member(c.sub("quantity"), "asApproximateFloat"),
        lambda c: binary(c.pick(("+", "-", "*", "/")), c.sub("double"), c.sub("double")),
        _ternary("double"),
    ),
    "string": (
        _leaf("string"),
        lambda c: c.attribute("string"),
        lambda c: "device.driver",
        lambda c: binary("+", c.sub("string"), c.sub("string")),
        lambda c: member(c.sub("string"), c.pick(("lowerAscii", "upperAscii", "trim"))),
        lambda c: member(
            c.sub("string"),
            "replace",
            c.sub("string"),
            c.sub("string"),
            *([c.sub("int")] if c.draw(booleans()) else []),
        ),
        lambda c: member(
            c.sub("string"),
            "substring",
            *([c.sub("int")] + ([c.sub("int")] if c.draw(booleans()) else [])),
        ),
        lambda c: member(c.sub("string"), "charAt", c.sub("int")),
        lambda c: f"string({c.sub(c.pick(('int', 'uint', 'double', 'bool', 'string')))})",
        lambda c: member(
            c.sub("list_string"), "join", *([c.sub("string")] if c.draw(booleans()) else [])
        ),
        lambda c: f"{wrap(c.sub('list_string'), PRIMARY)}[{c.sub('int')}]",
        lambda c: member(
            quote(c.pick(("%s-%d", "%s", "%d GiB", "%.2f", "%x", "%v"))),
            "format",
            f"[{c.sub(c.pick(SCALARS))}, {c.sub('int')}]",
        ),
        lambda c: member(c.sub("string"), "find", quote(c.pick(_REGEXES))),
        _ternary("string"),
        lambda c: member(
            c.sub("opt_string"),
            c.pick(("orValue", "value")),
            *([c.sub("string")] if c.draw(booleans()) else []),
        ),
        lambda c: f"strings.quote({c.sub('string')})",
        _bind("string"),
    ),
    "semver": (
        _leaf("semver"),
        lambda c: c.attribute("semver"),
        lambda c: f"semver({c.sub('string')}{c.pick(('', ', true'))})",
        _ternary("semver"),
    ),
    "quantity": (
        _leaf("quantity"),
        lambda c: f"{c.caps()}.{c.pick(('memory', 'memory', 'cores', 'bandwidth'))}",
        lambda c: f"quantity({c.sub('string')})",
        lambda c: member(
            c.sub("quantity"), c.pick(("add", "sub")), c.sub(c.pick(("quantity", "int")))
        ),
        _ternary("quantity"),
    ),
    "list_int": (
        _leaf("list_int"),
        lambda c: f"lists.range({c.pick(('0', '3', '-1', '10'))})",
        lambda c: f"[{', '.join(c.sub('int') for _ in range(c.draw(integers(0, 3))))}]",
        # not of any int: the reference builds lists.range(n) whole, n up to 2^63 - 1
        lambda c: f"lists.range({c.attrs()}.index)",
        lambda c: member(c.sub("list_int"), c.pick(("sort", "distinct", "reverse"))),
        lambda c: member(c.sub("list_int"), "slice", c.sub("int"), c.sub("int")),
        lambda c: _macro(c, "map", c.pick(LISTS), "int"),
        lambda c: _macro(c, "filter", "list_int", "bool"),
        lambda c: member(f"[{c.sub('list_int')}, {c.sub('list_int')}]", "flatten"),
        lambda c: binary("+", c.sub("list_int"), c.sub("list_int")),
        lambda c: member(c.sub("list_int"), "sortBy", "x", "-x"),
        _ternary("list_int"),
    ),
    "list_string": (
        _leaf("list_string"),
        lambda c: member(c.attribute("string"), "split", quote(",")),
        lambda c: f"[{', '.join(c.sub('string') for _ in range(c.draw(integers(0, 3))))}]",
        lambda c: member(
            c.sub("string"),
            "split",
            c.sub("string"),
            *([c.sub("int")] if c.draw(booleans()) else []),
        ),
        lambda c: member(
            c.sub("string"),
            "findAll",
            quote(c.pick(_REGEXES)),
            *([c.sub("int")] if c.draw(booleans()) else []),
        ),
        lambda c: member(c.sub("list_string"), c.pick(("sort", "distinct", "reverse"))),
        lambda c: _macro(c, "map", "list_string", "string"),
        lambda c: _macro(c, "filter", "list_string", "bool"),
        lambda c: member(c.sub("list_string"), "sortBy", "s", "s.size()"),
        lambda c: member(c.caps(), "transformList", "k", "v", "k"),
        lambda c: member(c.sub("list_string"), "slice", c.sub("int"), c.sub("int")),
    ),
    "opt_int": (
        _leaf("opt_int"),
        lambda c: f"{c.attrs()}.?{c.pick(('memory', 'index', 'numa'))}",
        lambda c: f"optional.of({c.sub('int')})",
        lambda c: member(c.sub("list_int"), c.pick(("first", "last"))),
        lambda c: f"{wrap(c.sub('list_int'), PRIMARY)}[?{c.sub('int')}]",
        lambda c: member(c.sub("opt_int"), "optMap", "x", c.sub("int", ("x", "int"))),
        lambda c: member(c.sub("opt_int"), "or", c.sub("opt_int")),
        lambda c: f"optional.ofNonZeroValue({c.sub('int')})",
    ),
    "opt_string": (
        _leaf("opt_string"),
        lambda c: f"{c.attrs()}.?{c.pick(('model', 'names', 'serial'))}",
        lambda c: f"device.attributes[?{quote(c.pick(DOMAINS))}].?model",
        lambda c: f"{c.attrs()}[?{c.sub('string')}]",
        lambda c: f"optional.of({c.sub('string')})",
        lambda c: member(c.sub("list_string"), c.pick(("first", "last"))),
        lambda c: member(c.sub("opt_string"), "optMap", "s", c.sub("string", ("s", "string"))),
        lambda c: member(c.sub("opt_string"), "or", c.sub("opt_string")),
    ),
}
LEAVES = {
    "bool": 7,
    "int": 2,
    "uint": 1,
    "double": 1,
    "string": 3,
    "semver": 2,
    "quantity": 2,
    "list_int": 2,
    "list_string": 2,
    "opt_int": 2,
    "opt_string": 3,
}


@composite
def cel_expressions(
    draw: st.DrawFn, t: str = "bool", depth: int = 3, scope: tuple[tuple[str, str], ...] = ()
) -> str:
    """An expression of CEL type ``t`` (a key of RULES) with at most ``depth`` levels of
    children, reading the variables of ``scope``; one node in fifty is of another type."""
    if draw(integers(0, 1000)) % 50 == 7:  # not a bound: those are drawn often
        t = draw(sampled(ANY_TYPE))
    rules = RULES[t]
    last = LEAVES[t] - 1 if depth <= 0 else len(rules) - 1
    return rules[draw(integers(0, last))](Ctx(draw, depth - 1, scope))


#: how a selector's text is broken, one in fifty (cel-go's syntax errors)
_BREAKS: tuple[Callable[[str], str], ...] = (
    lambda e: e[:-1],
    lambda e: e + " &&",
    lambda e: "(" + e,
    lambda e: e.replace(".", "..", 1),
    lambda e: e + "\n  )",
    lambda e: e.replace("==", "=", 1),
)


@composite
def cel_selectors(draw: st.DrawFn) -> str:
    """A device selector: one to three clauses joined by ``&&`` (sometimes ``||``), the first
    one in two a driver guard, as users write them; each clause of depth up to 3."""
    clauses = []
    if draw(booleans()):
        clauses.append(f"device.driver == {quote(draw(sampled((DRIVER, DRIVER, OTHER))))}")
    for _ in range(draw(integers(1, 3))):
        clauses.append(draw(cel_expressions("bool", draw(integers(1, 3)))))
    op = " || " if draw(integers(0, 4)) == 4 else " && "
    text = op.join(wrap(c, 3 if op == " && " else 2) for c in clauses)
    if draw(integers(0, 1000)) % 50 == 13:
        text = draw(sampled(_BREAKS))(text)
    return text


@composite
def cel_devices(draw: st.DrawFn, driver: str | None = None, wide: bool | None = None) -> Doc:
    """A device as resource.k8s.io/v1 writes it (``driver``, ``attributes``, ``capacity``,
    ``allowMultipleAllocations``; celcost -actual's input): the driver's attributes three in
    four each, one of another domain (one in two), capacities; ``wide`` (else one in five): up to
    MAX_PER_DEVICE capacities, long-named, on which costly comprehensions pass the limit."""
    if driver is None:
        driver = draw(sampled((DRIVER, DRIVER, DRIVER, OTHER)))
    attributes: Doc = {}
    for name, field, _, values in ATTRIBUTES:
        if draw(integers(0, 3)) > 0:
            attributes[name] = {field: draw(sampled(values))}
    if draw(booleans()):  # not of the driver's domain: one name twice, Go's map order decides
        other = OTHER if driver != OTHER else DRIVER
        attributes[f"{other}/model"] = {"string": draw(sampled(("a100", "x")))}
    capacity: Doc = {}
    for name, values in CAPACITIES:
        if draw(integers(0, 3)) > 0:
            capacity[name] = {"value": draw(sampled(values))}
    if wide is None:
        wide = draw(integers(0, 4)) == 4
    if wide:
        room = MAX_PER_DEVICE - len(attributes) - len(capacity)
        for i in range(draw(integers(room // 2, room))):
            capacity[f"c{i:031d}"] = {"value": str(i)}  # DeviceMaxIDLength: 32
    device: Doc = {"driver": driver, "attributes": attributes, "capacity": capacity}
    allow = draw(sampled((None, True, False)))
    if allow is not None:
        device["allowMultipleAllocations"] = allow
    return device
