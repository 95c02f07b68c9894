"""The CEL environment of DRA device selectors, on cel-python (``celpy``).

Upstream: ``k8s.io/dynamic-resource-allocation/cel/compile.go`` (v0.37.2): the ``device``
variable (``driver``, ``allowMultipleAllocations`` with DRAConsumableCapacity,
``attributes[domain][id]`` and ``capacity[domain][id]``, a name without a domain in the
driver's domain, ``parseQualifiedName``; a missing domain reads as an empty map,
``newStringInterfaceMapWithDefault``), ``DeviceMatches`` (a non-bool result is an error) and
the Kubernetes library functions of ``k8s.io/apiserver/pkg/cel/library`` the selectors use:
``semverlib.go``, ``quantity.go``; the other libraries are in ``cel_library.py``,
``cel_netip.py``, ``cel_url.py``, ``cel_optional.py``, ``cel_format.py``, ``cel_regex.py`` and
``cel_macros.py``, the API server's cost limit in ``cel_cost.py``. What celpy cannot do like
cel-go: docs/dra.md.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import celpy
import celpy.celtypes as ct
import lark
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError, base_functions

from reference_impl.dra import (
    cel_conversions,
    cel_format,
    cel_generations,
    cel_library,
    cel_netip,
    cel_operators,
    cel_optional,
    cel_url,
    cel_values,
)
from reference_impl.dra.cel_errors import GoPanic, err, no_overload
from reference_impl.dra.cel_macros import (
    NAMESPACES,
    OPERATORS,
    QUALIFIED_TYPES,
    LibraryRunner,
    dotted_name,
    macro_variables,
)
from reference_impl.dra.cel_netip import go_quote
from reference_impl.dra.cel_syntax import MAX_ERRORS_TO_REPORT, syntax_errors
from reference_impl.model.dra import AttributeValue, DeviceCapacity, Version
from reference_impl.model.quantity import QuantityError, int64_amount, parse_quantity_string

# --- semver (k8s.io/apiserver/pkg/cel/library/semverlib.go; github.com/blang/semver/v4) ---

_IDENT = re.compile(r"[0-9A-Za-z-]+")


class SemverError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Semver:
    """A blang/semver ``Version``: compared by major, minor, patch, then pre-release."""

    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...] = ()
    build: tuple[str, ...] = ()

    def compare(self, other: Semver) -> int:
        """``Version.Compare``: -1, 0 or 1; build metadata is ignored."""
        for a, b in (
            (self.major, other.major),
            (self.minor, other.minor),
            (self.patch, other.patch),
        ):
            if a != b:
                return -1 if a < b else 1
        if not self.pre or not other.pre:
            return (not self.pre) - (not other.pre) if self.pre or other.pre else 0
        for x, y in zip(self.pre, other.pre, strict=False):
            if x == y:
                continue
            if isinstance(x, int) and isinstance(y, int):
                return -1 if x < y else 1
            if isinstance(x, int) or isinstance(y, int):
                return -1 if isinstance(x, int) else 1
            return -1 if str(x) < str(y) else 1
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.compare(other) == 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))


def _semver_number(what: str, text: str) -> int:
    """A number of ``semver.Parse``: only digits (none is no error), no leading zero, then
    ``strconv.ParseUint``'s error ("strconv.ParseUint: parsing \"\": invalid syntax")."""
    if any(c not in "0123456789" for c in text):
        raise SemverError(f"Invalid character(s) found in {what} number {go_quote(text)}")
    if len(text) > 1 and text[0] == "0":
        raise SemverError(
            f"{what.capitalize()} number must not contain leading zeroes {go_quote(text)}"
        )
    if not text:
        raise SemverError(f"strconv.ParseUint: parsing {go_quote(text)}: invalid syntax")
    if int(text) >= 1 << 64:
        raise SemverError(f"strconv.ParseUint: parsing {go_quote(text)}: value out of range")
    return int(text)


def parse_semver(s: str) -> Semver:
    """``semver.Parse`` (strict: MAJOR.MINOR.PATCH[-pre][+build], no leading zeros; the
    messages and their order of github.com/blang/semver/v4 semver.go, Go's ``%q``: major,
    minor, patch, then each pre-release and build identifier)."""
    if not s:
        raise SemverError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    major = _semver_number("major", parts[0])
    minor = _semver_number("minor", parts[1])
    rest, build, pres = parts[2], [], []
    if "+" in rest:
        rest, b = rest.split("+", 1)
        build = b.split(".")
    if "-" in rest:
        rest, p = rest.split("-", 1)
        pres = p.split(".")
    patch = _semver_number("patch", rest)
    pre: list[int | str] = []
    for x in pres:  # NewPRVersion
        if not x:
            raise SemverError("Prerelease is empty")
        if all(c in "0123456789" for c in x):
            if len(x) > 1 and x[0] == "0":
                raise SemverError(
                    f"Numeric PreRelease version must not contain leading zeroes {go_quote(x)}"
                )
            pre.append(int(x))
        elif _IDENT.fullmatch(x):
            pre.append(x)
        else:
            raise SemverError(f"Invalid character(s) found in prerelease {go_quote(x)}")
    for x in build:
        if not x:
            raise SemverError("Build meta data is empty")
        if not _IDENT.fullmatch(x):
            raise SemverError(f"Invalid character(s) found in build meta data {go_quote(x)}")
    return Semver(major, minor, patch, tuple(pre), tuple(build))


def normalize_and_parse(s: str) -> Semver:
    """``normalizeAndParse``: a ``v`` prefix, leading zeros and a short version allowed."""
    s = s.removeprefix("v")
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or not p[0].isdigit():
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse_semver(".".join(parts))


# --- quantity (k8s.io/apiserver/pkg/cel/library/quantity.go) ---


@dataclass(frozen=True, slots=True)
class Quantity:
    """A resource.Quantity in CEL: exact, compared by value (``Quantity.Cmp``); ``amount``:
    its ``int64Amount`` (value, scale), None for an ``inf.Dec`` (apimachinery
    pkg/api/resource quantity.go ``ParseQuantity``, ``Add``, ``Sub``; amount.go)."""

    value: Fraction
    amount: tuple[int, int] | None
    #: a result of ``add``/``sub`` (library/quantity.go returns a ``*Quantity``, which
    #: ``Quantity.Equal``'s type assertion refuses: "no such overload" as ``==``'s right side)
    pointer: bool = False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)


#: cel-go's generations the releases link (k8s.io/kubernetes go.mod: v0.26.0 up to v1.36.3,
#: v0.29.2 in v1.37.2); switch dra-cel-go (releases/behaviours.py)
CEL_GO_V0_26 = "v0.26.0"
CEL_GO_V0_29 = "v0.29.2"


@dataclass(frozen=True, slots=True)
class CELOptions:
    """What of the selectors' CEL a release decides: ``includes`` (switch dra-cel-includes,
    the list library's ``includes``) and ``cel_go`` (switch dra-cel-go, the cel-go generation:
    its rules that differ are in ``cel_generations.py``)."""

    includes: bool = True
    cel_go: str = CEL_GO_V0_29

    def __post_init__(self) -> None:
        if self.cel_go not in (CEL_GO_V0_26, CEL_GO_V0_29):
            raise ValueError(f"unknown cel-go generation {self.cel_go!r}")

    @property
    def v0_26(self) -> bool:
        return self.cel_go == CEL_GO_V0_26


DEFAULT_OPTIONS = CELOptions()


def release_options(switch: Callable[[str], str]) -> CELOptions:
    """The options of a release: ``switch(name)`` gives its variant of a switch
    (releases/behaviours.py: dra-cel-includes, dra-cel-go)."""
    return CELOptions(switch("dra-cel-includes") == "lists-v1", switch("dra-cel-go"))


class AttributeMap(cel_optional.DefaultMap, cel_values.NativeMap):
    """``newStringInterfaceMapWithDefault``: a lookup of a missing key gives an empty map
    (its ``Find`` finds every key: an optional select of a missing domain is present, the empty
    map). ``v0_26``: cel-go v0.26.0 unwraps an optional operand of a select with
    ``GetValue().Value()`` (interpreter/attributes.go ``applyQualifiers``; v0.29.2:
    ``GetValue()``), the native map without the default: there a missing domain is absent."""

    def __getitem__(self, key: Any) -> Any:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        return cel_values.NativeMap({})


class AttributeMapV026(AttributeMap):
    """:class:`AttributeMap` under cel-go v0.26.0."""

    v0_26 = True


def _semver(s: Any, *normalize: Any, name: str = "semver") -> Any:
    if (
        not isinstance(s, str)
        or len(normalize) > 1
        or any(not isinstance(n, bool | ct.BoolType) for n in normalize)
    ):
        return no_overload(name, s, *normalize)
    try:
        return normalize_and_parse(s) if normalize and normalize[0] else parse_semver(s)
    except SemverError as e:
        return err(str(e))


def _is_semver(s: Any, *normalize: Any) -> Any:
    result = _semver(s, *normalize, name="isSemver")
    if isinstance(result, CELEvalError) and not isinstance(s, str):
        return result
    return ct.BoolType(isinstance(result, Semver))


def _quantity(s: Any) -> Any:
    if not isinstance(s, str):
        return no_overload("quantity", s)
    try:
        return Quantity(parse_quantity_string(s), int64_amount(s))
    except QuantityError as e:
        return err(str(e))


def _is_quantity(s: Any) -> Any:
    if not isinstance(s, str):
        return no_overload("isQuantity", s)
    return ct.BoolType(isinstance(_quantity(s), Quantity))


def _compare(name: str) -> Callable[[Any, Any], Any]:
    """``compareTo``/``isGreaterThan``/``isLessThan`` of semvers and of quantities."""

    def f(a: Any, b: Any) -> Any:
        if isinstance(a, Semver) and isinstance(b, Semver):
            c = a.compare(b)
        elif isinstance(a, Quantity) and isinstance(b, Quantity):
            c = (a.value > b.value) - (a.value < b.value)
        else:
            return no_overload(name, a, b)
        if name == "compareTo":
            return ct.IntType(c)
        return ct.BoolType(c == (1 if name == "isGreaterThan" else -1))

    return f


def _semver_part(name: str) -> Callable[[Any], Any]:
    def f(v: Any) -> Any:
        if not isinstance(v, Semver):
            return no_overload(name, v)
        return ct.IntType(getattr(v, name))

    return f


def _quantity_arith(name: str) -> Callable[[Any, Any], Any]:
    def f(a: Any, b: Any) -> Any:
        if (
            not isinstance(a, Quantity)
            or isinstance(b, bool | ct.BoolType)
            or not isinstance(b, Quantity | int)
        ):
            return no_overload(name, a, b)
        other = b if isinstance(b, Quantity) else Quantity(Fraction(int(b)), (int(b), 0))
        if name == "add":
            total, amount = a.value + other.value, _amount_add(a.amount, other.amount)
        else:
            negated = other.amount and (_wrap64(-other.amount[0]), other.amount[1])
            total, amount = a.value - other.value, _amount_add(a.amount, negated)
        if amount is not None:  # (Go's int64 sum: -math.MinInt64 wraps)
            total = Fraction(amount[0]) * Fraction(10) ** amount[1]
        return Quantity(total, amount, pointer=True)

    return f


def _int64(n: int) -> int | None:
    return n if -(1 << 63) <= n < 1 << 63 else None


def _wrap64(n: int) -> int:
    """Go's int64 arithmetic wraps (``-math.MinInt64`` is itself)."""
    return (n + (1 << 63)) % (1 << 64) - (1 << 63)


def _scaled(value: int, scale: int) -> int | None:
    """math.go ``positiveScaleInt64``: value * 10**scale, None on overflow."""
    return _int64(value * 10**scale)


def _as_int64(amount: tuple[int, int] | None) -> int | None:
    """``Quantity.AsInt64``: none of an inf.Dec, nor of a negative scale (amount.go)."""
    if amount is None or amount[1] < 0:
        return None
    return _scaled(*amount)


def _amount_add(a: tuple[int, int] | None, b: tuple[int, int] | None) -> tuple[int, int] | None:
    """``int64Amount.Add`` (amount.go) at the smaller scale; None (the sum an inf.Dec, as
    ``Quantity.Add`` promotes it) for an inf.Dec operand or on overflow."""
    if a is None or b is None:
        return None
    if b[0] == 0:
        return a
    if a[0] == 0:
        return b
    low = min(a[1], b[1])
    x, y = _scaled(a[0], a[1] - low), _scaled(b[0], b[1] - low)
    total = None if x is None or y is None else _int64(x + y)
    return None if total is None else (total, low)


def _quantity_unary(name: str) -> Callable[[Any], Any]:
    def f(q: Any) -> Any:
        if not isinstance(q, Quantity):
            return no_overload(name, q)
        v = q.value
        if name == "sign":
            return ct.IntType((v > 0) - (v < 0))
        if name == "isInteger":
            return ct.BoolType(_as_int64(q.amount) is not None)
        if name == "asInteger":
            n = _as_int64(q.amount)
            if n is None:
                return err("cannot convert value to integer")
            return ct.IntType(n)
        return ct.DoubleType(float(v))

    return f


_STRING_PREDICATES = ("contains", "startsWith", "endsWith")
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "semver": _semver,
    "isSemver": _is_semver,
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "compareTo": _compare("compareTo"),
    "isGreaterThan": _compare("isGreaterThan"),
    "isLessThan": _compare("isLessThan"),
    "major": _semver_part("major"),
    "minor": _semver_part("minor"),
    "patch": _semver_part("patch"),
    "add": _quantity_arith("add"),
    "sub": _quantity_arith("sub"),
    "sign": _quantity_unary("sign"),
    "isInteger": _quantity_unary("isInteger"),
    "asInteger": _quantity_unary("asInteger"),
    "asApproximateFloat": _quantity_unary("asApproximateFloat"),
    **cel_library.FUNCTIONS,
    **cel_netip.FUNCTIONS,
    **cel_url.FUNCTIONS,
    **cel_optional.FUNCTIONS,
    **cel_format.FUNCTIONS,
    **OPERATORS,
    "type": cel_values.type_of,
    "-_": cel_operators.negate(base_functions["-_"]),
    "!_": cel_operators.logical_not,
    "_in_": cel_operators.contains,
    "size": cel_operators.size,
    **{n: cel_operators.string_predicate(base_functions[n]) for n in _STRING_PREDICATES},
    **{n: cel_operators.accessor(n, base_functions[n]) for n in cel_operators.ACCESSORS},
}
for _name in ("int", "uint", "double", "bool", "bytes", "string", "duration", "timestamp"):
    FUNCTIONS[_name] = cel_conversions.conversion(_name, FUNCTIONS.get(_name))
for _op in ("_+_", "_-_", "_*_", "_/_", "_%_", "_<_", "_<=_", "_>_", "_>=_"):
    FUNCTIONS[_op] = cel_operators.binary(_op, FUNCTIONS.get(_op, base_functions[_op]))


class CELCompileError(ValueError):
    """An expression that does not compile: ``str()`` is upstream's ``Error.Detail``."""


class CELMatchError(ValueError):
    """An evaluation error of ``DeviceMatches``."""


@dataclass(slots=True)
class DeviceView:
    """The ``cel.Device`` input of DeviceMatches."""

    driver: str
    attributes: tuple[tuple[str, AttributeValue], ...] = ()
    capacity: tuple[tuple[str, DeviceCapacity], ...] = ()
    allow_multiple_allocations: bool | None = None


def parse_qualified_name(name: str, default_domain: str) -> tuple[str, str]:
    """``parseQualifiedName``: (domain, id); no ``/`` means the driver's domain."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (default_domain, name)


@functools.cache
def _env() -> celpy.Environment:
    """celpy's environment, built on first use (its parser takes about 0.15 s to build, which
    every command would otherwise pay at import)."""
    cel_optional.install_grammar()
    return celpy.Environment(runner_class=LibraryRunner)


#: celpy keeps what it works on in attributes of shared objects and reads it back:
#: ``CELParser.parse`` (``self.text = text``, then parses ``self.text``) and
#: ``Environment.program`` (``self.runnable = ...``, then returns ``self.runnable``). Two
#: threads compiling at once (the differential runs two reference subjects side by side) could
#: each get the other's selector. Compiling and building the program hold this lock.
_COMPILE_LOCK = threading.Lock()
_LITERAL_TYPES = {
    "INT_LIT": "int",
    "UINT_LIT": "uint",
    "FLOAT_LIT": "double",
    "STRING_LIT": "string",
    "BYTES_LIT": "bytes",
    "NULL_LIT": "null_type",
}


def _literal_type(tree: Any) -> str | None:
    """The type of an expression that is a single literal (the one output type celpy lets us
    know before evaluation), else None."""
    node = tree
    while hasattr(node, "children") and len(node.children) == 1:
        node = node.children[0]
    kind = getattr(node, "type", None)
    return _LITERAL_TYPES.get(kind) if isinstance(kind, str) else None


#: the message type the environment declares (compile.go's ``device`` variable's type); a
#: literal of it compiles, and fails at runtime (no type provider makes it)
DEVICE_TYPE = "kubernetes.DRADevice"
#: the type identifiers as values (checker/standard.go's, cel/library.go's ``optional_type``,
#: the well-known types and library/ip.go's and cidr.go's ``net.IP`` and ``net.CIDR``; the
#: types ``kubernetes.Semver``, ``kubernetes.Quantity``, ``kubernetes.URL`` have no name)
TYPE_IDENTS: dict[str, type] = {
    "bool": ct.BoolType,
    "bytes": ct.BytesType,
    "double": ct.DoubleType,
    "int": ct.IntType,
    "uint": ct.UintType,
    "string": ct.StringType,
    "list": ct.ListType,
    "map": ct.MapType,
    "null_type": type(None),
    "type": ct.TypeType,
    "optional_type": cel_optional.OptionalValue,
    **QUALIFIED_TYPES,
}
#: the variable, and the type names
_DECLARED: tuple[str, ...] = ("device", *TYPE_IDENTS)


def _undeclared(tree: Any) -> Any | None:
    """The first identifier that is neither a declared variable, nor a function namespace
    before a call (``cel.bind``, ``sets.contains``...), nor bound by a macro (cel-go's
    checker: "undeclared reference"), as its token, or None."""
    bound: set[str] = set()
    namespaces: set[int] = set()
    for node in tree.iter_subtrees():
        if node.data == "member_object":  # a message type's name: the device's type only
            name = dotted_name(node.children[0]).lstrip(".")
            if name != DEVICE_TYPE:
                at = node.children[0].meta
                return lark.Token("IDENT", name, line=at.end_line, column=at.end_column)
            namespaces.update(id(n) for n in node.children[0].iter_subtrees())
        if node.data == "member_dot" and dotted_name(node) in TYPE_IDENTS:
            namespaces.update(id(n) for n in node.iter_subtrees())
        if node.data == "member_dot_arg":
            bound.update(macro_variables(node))
            receiver = node.children[0]
            while (
                hasattr(receiver, "children")
                and len(receiver.children) == 1
                and receiver.data != "ident"
            ):
                receiver = receiver.children[0]
            name = (
                f"{receiver.children[0]}.{node.children[1]}"
                if getattr(receiver, "data", None) == "ident"
                else ""
            )
            if name.split(".")[0] in NAMESPACES and (name in FUNCTIONS or name == "cel.bind"):
                namespaces.add(id(receiver))
    for node in tree.iter_subtrees_topdown():
        if node.data == "ident" and node.children:
            token = node.children[0]
            if (
                str(token) not in _DECLARED
                and str(token) not in bound
                and id(node) not in namespaces
            ):
                return token
    return None


def display_error(expression: str, line: int, column: int, message: str) -> str:
    """cel-go's ``Error.ToDisplayString`` (common/error.go): the location (``column`` counts
    runes from 1), then the source line and a marker under the column (a wide dot or caret
    for a rune of more than one byte; no snippet for a line over 16384 bytes)."""
    result = f"ERROR: <input>:{line}:{column}: {message}"
    lines = expression.split("\n")
    if not expression or not 1 <= line <= len(lines) or len(lines[line - 1].encode()) > 16384:
        return result
    snippet = lines[line - 1].replace("\t", " ")
    marker = "".join("\uff0e" if len(c.encode()) > 1 else "." for c in snippet[: column - 1])
    at = snippet[column - 1 : column]
    marker += "\uff3e" if at and len(at.encode()) > 1 else "^"
    return f"{result}\n | {snippet}\n | {marker}"


def _call_of(tree: Any, name: str) -> Any | None:
    """A member call of ``name`` (a function the environment lacks: the checker's undeclared
    reference, located at the call's open parenthesis), as a token there, or None."""
    for node in tree.iter_subtrees_topdown():
        if node.data == "member_dot_arg" and str(node.children[1]) == name:
            token = node.children[1]
            return lark.Token(token.type, name, line=token.line, column=token.column + len(name))
    return None


def parse_tree(expression: str) -> Any:
    """celpy's parse tree of ``expression``. cel-go's grammar decides syntax errors and words
    them (``dra/cel_syntax.py``): its errors sorted by location as ``common/errors.go``
    ``ToDisplayString`` does, the first MAX_ERRORS_TO_REPORT and a count of the others."""
    with _COMPILE_LOCK:  # the ANTLR runtime's DFA caches are shared, unlocked
        errors = syntax_errors(expression)
    if errors:
        shown = sorted(errors[:MAX_ERRORS_TO_REPORT], key=lambda e: (e[0], e[1]))
        lines = [display_error(expression, ln, col + 1, msg) for ln, col, msg in shown]
        if len(errors) > MAX_ERRORS_TO_REPORT:
            lines.append(f"{len(errors) - MAX_ERRORS_TO_REPORT} more errors were truncated")
        raise CELCompileError("compilation failed: " + "\n".join(lines))
    try:
        with _COMPILE_LOCK:
            return _env().compile(expression)
    except CELParseError as e:  # cel-go's grammar accepts it (docs/dra.md, CEL limits)
        raise CELCompileError(
            f"compilation failed: cel-python cannot parse what cel-go's grammar accepts: "
            f"{str(e).strip()}"
        ) from None


class CompiledSelector:
    """A compiled selector (``CompilationResult``): ``device_matches`` evaluates it."""

    def __init__(
        self,
        expression: str,
        consumable_capacity: bool = True,
        options: CELOptions = DEFAULT_OPTIONS,
    ) -> None:
        self.expression = expression
        self.consumable_capacity = consumable_capacity
        self.options = options
        ast = parse_tree(expression)
        token = _undeclared(ast) or (None if options.includes else _call_of(ast, "includes"))
        if token is not None:
            raise CELCompileError(
                "compilation failed: "
                + display_error(
                    expression,
                    token.line,
                    token.column,
                    f"undeclared reference to '{token}' (in container '')",
                )
            )
        out = _literal_type(ast)
        if out is not None:
            raise CELCompileError(f"must evaluate to bool or the unknown type, not {out}")
        functions = cel_generations.functions(FUNCTIONS, options.v0_26)
        with _COMPILE_LOCK:
            self._program = _env().program(ast, functions=functions)

    def device_matches(self, device: DeviceView) -> bool:
        return self.value_matches(device_value(device, self.consumable_capacity, self.options))

    def value_matches(self, dev: Any) -> bool:
        """``device_matches`` of the ``device`` variable's value (:func:`device_value`)."""
        try:
            names: Any = {"device": dev, **TYPE_IDENTS}
            result = self._program.evaluate(names)
        except CELEvalError as e:
            raise CELMatchError(_eval_message(e)) from None
        except GoPanic as e:
            raise CELMatchError(str(e)) from None
        if isinstance(result, CELEvalError):
            raise CELMatchError(_eval_message(result))
        if isinstance(result, cel_optional.OptionalValue) and result.present:
            if isinstance(result.value, ct.BoolType | bool):
                return bool(result.value)  # Optional.ConvertToNative: the value's
        if not isinstance(result, ct.BoolType | bool):
            raise CELMatchError(not_bool_message(result))
        return bool(result)


def device_value(
    device: DeviceView, consumable_capacity: bool = True, options: CELOptions = DEFAULT_OPTIONS
) -> Any:
    """The ``device`` variable DeviceMatches builds (an attribute or capacity domain that is
    not there reads as an empty map; ``options``: the cel-go generation's map)."""
    mapping = AttributeMapV026 if options.v0_26 else AttributeMap
    attributes: dict[str, dict[str, Any]] = {}
    for name, value in device.attributes:
        domain, ident = parse_qualified_name(name, device.driver)
        attributes.setdefault(domain, {})[ident] = _attribute(value)
    capacity: dict[str, dict[str, Any]] = {}
    for name, cap in device.capacity:
        domain, ident = parse_qualified_name(name, device.driver)
        # (the model keeps the value only: an integer as int64-backed, the rest an inf.Dec)
        whole = cap.value.denominator == 1 and _int64(int(cap.value)) is not None
        capacity.setdefault(domain, {})[ident] = Quantity(
            cap.value, (int(cap.value), 0) if whole else None
        )
    dev: dict[Any, Any] = {
        ct.StringType("driver"): ct.StringType(device.driver),
        ct.StringType("attributes"): mapping(
            {
                ct.StringType(d): cel_values.NativeMap({ct.StringType(k): v for k, v in m.items()})
                for d, m in attributes.items()
            }
        ),
        ct.StringType("capacity"): mapping(
            {
                ct.StringType(d): cel_values.NativeMap({ct.StringType(k): v for k, v in m.items()})
                for d, m in capacity.items()
            }
        ),
    }
    if consumable_capacity:
        dev[ct.StringType("allowMultipleAllocations")] = ct.BoolType(
            bool(device.allow_multiple_allocations)
        )
    return ct.MapType(dev)


def _attribute(value: AttributeValue) -> Any:
    """``getAttributeValue``: a version attribute is a semver (parse errors as upstream)."""
    if isinstance(value, bool):
        return ct.BoolType(value)
    if isinstance(value, int):
        return ct.IntType(value)
    if isinstance(value, Version):
        try:
            return parse_semver(value.text)
        except SemverError as e:
            raise CELMatchError(f"parse semantic version: {e}") from None
    return ct.StringType(value)


def _conversion(v: Any) -> tuple[str, str]:
    """The CEL type name of a result and its ``ConvertToNative(bool)`` error."""
    if isinstance(v, cel_optional.OptionalValue):
        if not v.present:
            return "optional_type", "optional.none() dereference"
        return "optional_type", _conversion(v.value)[1]
    if isinstance(v, str):
        return "string", "unsupported native conversion from string to 'bool'"
    if isinstance(v, ct.UintType):
        return "uint", "unsupported type conversion from 'uint' to bool"
    if isinstance(v, int) and not isinstance(v, bool):
        return "int", "unsupported type conversion from 'int' to bool"
    if isinstance(v, ct.DoubleType | float):
        return "double", "type conversion error from Double to 'bool'"
    if isinstance(v, Semver):
        return "kubernetes.Semver", "type conversion error from 'Semver' to 'bool'"
    if isinstance(v, Quantity):
        return "kubernetes.Quantity", "type conversion error from 'Quantity' to 'bool'"
    if isinstance(v, dict):
        return "map", "type conversion error from map to 'bool'"
    if isinstance(v, list | tuple):
        return "list", "type conversion error from list to 'bool'"
    return type(v).__name__, ""


def not_bool_message(result: Any) -> str:
    """``DeviceMatches``' error for a result that is not a bool (compile.go): "CEL result of
    type T could not be converted to bool: E", E the value's ``ConvertToNative`` error
    (common/types of cel-go; an optional's value's, or ``optional.none() dereference``)."""
    kind, why = _conversion(result)
    message = f"CEL result of type {kind} could not be converted to bool"
    return f"{message}: {why}" if why else message


_NO_MEMBER = re.compile(r"no such member in mapping: '(.*)'")


def _eval_message(e: CELEvalError) -> str:
    """cel-go's wording of celpy's errors where they mean the same (``no such key: x``)."""
    args = e.args
    message = str(args[0]) if args else str(e)
    m = _NO_MEMBER.match(message)
    if m:
        return f"no such key: {m.group(1)}"
    if message == "no such key" and len(args) > 2 and args[2]:
        return f"no such key: {args[2][0]}"
    return message


def compile_selector(
    expression: str, consumable_capacity: bool = True, options: CELOptions = DEFAULT_OPTIONS
) -> CompiledSelector:
    """``CompileCELExpression`` (the StoredExpressions environment; ``options``: what the
    release decides, :class:`CELOptions`); raises :class:`CELCompileError`."""
    return CompiledSelector(expression, consumable_capacity, options)
