"""cel-go's type checker over a DRA selector's expression tree (``dra/cel_parse.py``), which
``dra/cel_cost.py`` estimates the cost of.

:func:`parse` checks the tree as cel-go@v0.29.2 ``checker/checker.go`` does (type parameters
unified as ``checker/types.go``; the overloads of the NewExpressions environment of
k8s.io/apiserver@v0.37.2, ``dra/cel_overloads.py``) and reports its errors with their messages
(``checker/errors.go``) at the node cel-go locates them, then the AST validators of
``pkg/cel/environment/base.go`` (``cel/validator.go``: aggregate literals, regex, duration and
timestamp literals) and compile.go's output type check. Each node keeps its type and candidate
overloads for the cost.
"""

from __future__ import annotations

import datetime
import re

from reference_impl.dra.cel import CELCompileError, display_error, parse_tree
from reference_impl.dra.cel_format import validate as validate_format
from reference_impl.dra.cel_overloads import (
    ANY,
    BOOL,
    CIDR,
    DEVICE,
    DEVICE_FIELDS,
    DYN,
    ERROR,
    INT,
    IP,
    NULL,
    SIGS,
    STRING,
    CelType,
    Mapping,
    Sig,
    assignable_list,
    format_type,
    is_assignable,
    is_dyn,
    is_dyn_or_error,
    list_of,
    map_of,
    most_general,
    optional_of,
    substitute,
    type_string,
    unwrap_optional,
)
from reference_impl.dra.cel_parse import ACCU, Expr, convert
from reference_impl.dra.cel_regex import GoRegexError, compile_go

ACCUMULATORS = ("__result__", ACCU)


# --- the checker (cel-go checker/checker.go) ---

#: the type identifiers of the standard library (``stdTypes``) and the optional library
_TYPE_IDENTS = {
    n: CelType("type", (t,))
    for n, t in (
        ("bool", BOOL),
        ("bytes", CelType("bytes")),
        ("double", CelType("double")),
        ("int", INT),
        ("uint", CelType("uint")),
        ("string", CelType("string")),
        ("dyn", DYN),
        ("list", list_of(DYN)),
        ("map", map_of(DYN, DYN)),
        ("null_type", NULL),
        ("type", CelType("type")),
        ("google.protobuf.Any", ANY),
        ("google.protobuf.Duration", CelType("duration")),
        ("google.protobuf.Timestamp", CelType("timestamp")),
        ("optional_type", optional_of(CelType("param", name="T"))),
        ("net.IP", IP),  # library/ip.go and cidr.go declare their types (cel.Types)
        ("net.CIDR", CIDR),
    )
}


#: compile.go: ``library.IncludesOption()`` with DRAListTypeAttributes (lists.go)
_INCLUDES = Sig("list_includes_dyn_dyn", (DYN, DYN), BOOL, True)


class _Checker:
    """``checker``: the type substitutions, the free type variables and the errors (offset,
    message) of one expression."""

    def __init__(self, list_type_attributes: bool = False, includes: bool = False) -> None:
        self.list_type = list_type_attributes
        self.includes = includes or list_type_attributes
        self.m: Mapping = {}
        self.free = 0
        self.errors: list[tuple[int, str]] = []
        self.scopes: list[dict[str, CelType]] = []

    def error(self, at: int, message: str) -> None:
        self.errors.append((at, message))

    def new_var(self) -> CelType:
        self.free += 1
        return CelType("param", name=f"_var{self.free - 1}")

    def assignable(self, t1: CelType, t2: CelType) -> bool:
        m = is_assignable(self.m, t1, t2)
        if m is None:
            return False
        self.m = m
        return True

    def check(self, e: Expr) -> None:
        if e.kind == "lit":
            assert e.lit_type is not None
            e.type = e.lit_type
        elif e.kind == "ident":
            self._ident(e)
        elif e.kind == "select":
            self._select(e)
        elif e.kind == "call":
            self._call(e)
        elif e.kind == "list":
            elems: CelType | None = None
            for i, a in enumerate(e.args):
                self.check(a)
                elems = self._join(elems, self._entry(a, i in e.opt_indices))
            e.type = list_of(elems or self.new_var())
        elif e.kind == "map":
            key: CelType | None = None
            val: CelType | None = None
            for i, (k, v) in enumerate(e.entries):
                self.check(k)
                key = self._join(key, k.type)
                self.check(v)
                val = self._join(val, self._entry(v, i in e.opt_indices))
            if key is None or val is None:
                key, val = self.new_var(), self.new_var()
            e.type = map_of(key, val)
        elif e.kind == "struct":
            self._struct(e)
        else:
            self._comprehension(e)

    def _struct(self, e: Expr) -> None:
        """``checkCreateStruct``: the one declared object type is the device's."""
        if e.name != DEVICE.name:
            self.error(e.offset, f"undeclared reference to '{e.name}' (in container '')")
            e.type = ERROR
            return
        e.type = DEVICE
        for (name, at), value in zip(e.fields, e.args, strict=True):
            self.check(value)
            expected = DEVICE_FIELDS.get(name)
            if expected is None:
                self.error(at, f"undefined field '{name}'")
                expected = ERROR
            if not self.assignable(expected, value.type):
                self.error(
                    at,
                    f"expected type of field '{name}' is '{format_type(expected)}' but "
                    f"provided type is '{format_type(value.type)}'",
                )

    def _join(self, previous: CelType | None, current: CelType) -> CelType:
        """``joinTypes`` (the aggregate literals are checked by the validator: dyn here)."""
        if previous is None:
            return current
        if self.assignable(previous, current):
            return most_general(previous, current)
        return DYN

    def _lookup(self, name: str) -> CelType | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name == "device":
            return DEVICE
        return _TYPE_IDENTS.get(name)

    def _ident(self, e: Expr) -> None:
        t = self._lookup(e.name)
        if t is None:
            self.error(e.offset, f"undeclared reference to '{e.name}' (in container '')")
            t = ERROR
        e.type = t

    def _select(self, e: Expr) -> None:
        assert e.target is not None
        qualified = _qualified_name(e) if not e.test_only else None
        if qualified is not None and qualified in _TYPE_IDENTS:
            e.type = _TYPE_IDENTS[qualified]
            return
        result = self._select_field(e, e.target, e.name, False)
        e.type = BOOL if e.test_only else substitute(self.m, result, False)

    def _select_field(self, e: Expr, operand: Expr, name: str, optional: bool) -> CelType:
        """``checkSelectField``."""
        self.check(operand)
        t, was_optional = unwrap_optional(substitute(self.m, operand.type, False))
        if t.kind == "map":
            result = t.params[1]
        elif t.kind == "struct":
            result = ERROR
            if t != DEVICE:  # lookupFieldType: no other object type is a declared message
                self.error(e.offset, f"unexpected failed resolution of '{t.name}'")
            elif self.list_type and name == "attributes":
                result = map_of(STRING, map_of(STRING, DYN))
            elif name in DEVICE_FIELDS:
                result = DEVICE_FIELDS[name]
            else:
                self.error(e.offset, f"undefined field '{name}'")
        elif t.kind == "param":
            self.assignable(DYN, t)
            result = DYN
        else:
            if not is_dyn_or_error(t):
                self.error(e.offset, f"type '{format_type(t)}' does not support field selection")
            result = DYN
        return optional_of(result) if was_optional or optional else result

    def _call(self, e: Expr) -> None:
        if e.name == "_?._" and e.opt_field and e.target is None:  # checkOptSelect
            e.args[1].type = e.args[1].lit_type or DYN
            e.type = substitute(self.m, self._select_field(e, e.args[0], e.opt_field, True), False)
            e.overloads = [("select_optional_field", e.type)]
            return
        for a in e.args:
            self.check(a)
        if e.target is not None:
            self.check(e.target)
        sigs = SIGS.get(e.name)
        if self.includes and e.name == "includes":
            sigs = [_INCLUDES]
        if sigs is None:
            self.error(e.offset, f"undeclared reference to '{e.name}' (in container '')")
            e.type = ERROR
            return
        self._resolve(e, sigs)

    def _resolve(self, e: Expr, sigs: list[Sig]) -> None:
        """``resolveOverload``: every matching overload is a candidate; the first one's result
        type is the call's, ``dyn`` when another's differs."""
        member = e.target is not None
        arg_types = ([e.target.type] if e.target is not None else []) + [a.type for a in e.args]
        result: CelType | None = None
        refs: list[tuple[str, CelType]] = []
        for sig in sigs:
            if sig.member != member:
                continue
            if e.name in ("_&&_", "_||_"):
                ok = True
                for a, t in zip(e.args, arg_types, strict=True):
                    if not self.assignable(t, BOOL):
                        self.error(a.offset, f"expected type 'bool' but found '{format_type(t)}'")
                        ok = False
                e.type = BOOL if ok else ERROR
                e.overloads = [(sig.id, BOOL)] if ok else []
                return
            params, res = sig.params, sig.result
            if sig.type_params:
                fresh = {p: self.new_var() for p in sig.type_params}
                params = tuple(substitute(fresh, p, False) for p in params)
                res = substitute(fresh, res, False)
            m = dict(self.m)
            if assignable_list(m, tuple(arg_types), params):
                self.m = m
                t = substitute(self.m, res, False)
                refs.append((sig.id, t))
                if result is None:
                    result = t
                elif not is_dyn(result) and t != result:
                    result = DYN
        if result is None:
            shown = [format_type(substitute(self.m, t, True)) for t in arg_types]
            signature = f"({', '.join(shown)})"
            if member:
                signature = f"{shown[0]}.({', '.join(shown[1:])})"
            self.error(
                e.offset, f"found no matching overload for '{e.name}' applied to '{signature}'"
            )
            e.type = ERROR
            return
        e.type = result
        e.overloads = refs

    def _comprehension(self, e: Expr) -> None:
        """``checkComprehension``."""
        assert e.iter_range and e.accu_init and e.cond and e.step and e.result
        self.check(e.iter_range)
        self.check(e.accu_init)
        rt = substitute(self.m, e.iter_range.type, False)
        accu = e.accu_init.type
        self.scopes.append({e.accu_var: accu})
        if rt.kind == "list":
            first, second = (INT, rt.params[0]) if e.iter_var2 else (rt.params[0], DYN)
        elif rt.kind == "map":
            first, second = rt.params
        elif rt.kind in ("dyn", "error", "param"):
            self.assignable(DYN, rt)
            first = second = DYN
        else:
            self.error(
                e.iter_range.offset,
                f"expression of type '{format_type(rt)}' cannot be range of a comprehension "
                "(must be list, map, or dynamic)",
            )
            first = second = ERROR
        loop = {e.iter_var: first}
        if e.iter_var2:
            loop[e.iter_var2] = second
        self.scopes.append(loop)
        self.check(e.cond)
        self._assert(e.cond, BOOL)
        self.check(e.step)
        self._assert(e.step, accu)
        self.scopes.pop()
        self.check(e.result)
        self.scopes.pop()
        e.type = substitute(self.m, e.result.type, False)

    def _entry(self, e: Expr, optional: bool) -> CelType:
        """checkCreateList/checkCreateMap: an optional entry's type unwrapped (else a type
        mismatch, unless dyn)."""
        if not optional:
            return e.type
        t, is_optional = unwrap_optional(e.type)
        if not is_optional and not is_dyn(t):
            self.error(
                e.offset,
                f"expected type '{format_type(optional_of(t))}' but found '{format_type(t)}'",
            )
        return t

    def _assert(self, e: Expr, t: CelType) -> None:
        if not self.assignable(t, e.type):
            found = format_type(e.type)
            self.error(e.offset, f"expected type '{format_type(t)}' but found '{found}'")


def _qualified_name(e: Expr) -> str | None:
    """``computeQualifiers``: the dotted name a select chain of an identifier is."""
    if e.kind == "ident":
        return e.name
    if e.kind == "select" and not e.test_only and e.target is not None:
        prefix = _qualified_name(e.target)
        return None if prefix is None else f"{prefix}.{e.name}"
    return None


def _nodes(e: Expr | None) -> list[Expr]:
    """The tree in pre-order."""
    if e is None:
        return []
    out = [e]
    for child in (e.target, *e.args, e.iter_range, e.accu_init, e.cond, e.step, e.result):
        out.extend(_nodes(child))
    for k, v in e.entries:
        out.extend(_nodes(k) + _nodes(v))
    return out


_DURATION = re.compile(r"[-+]?(0|((\d+\.?\d*|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+)")
_RFC3339 = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-](\d\d):(\d\d))")


def _literal_converts(fn: str, arg: Expr) -> bool:
    """``ValidateDurationLiterals`` / ``ValidateTimestampLiterals``: whether ``fn(literal)``
    evaluates (Go's ``time.ParseDuration``, ``time.Parse(time.RFC3339)`` and cel-go's range of
    timestamps, years 1 to 9999; ``null`` never converts)."""
    if arg.lit_type == INT:
        return arg.lit_int is not None and -62135596800 <= arg.lit_int <= 253402300799
    if arg.lit_str is None:
        return False
    if fn == "duration":
        return _DURATION.fullmatch(arg.lit_str) is not None
    m = _RFC3339.fullmatch(arg.lit_str)
    if m is None:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    try:
        datetime.datetime(year, month, day, hour, minute, second)
    except ValueError:
        return False
    return m.group(9) is None or (int(m.group(9)) < 24 and int(m.group(10)) < 60)


def _validate(root: Expr) -> list[tuple[int, str]]:
    """The AST validators of base.go (cel/validator.go): ``ValidateHomogeneousAggregateLiterals``
    (but inside ``format``, ext/formatting.go) and ``ValidateRegexLiterals`` (Go's regexp,
    dra/cel_regex.py); then ext.Strings' ``stringFormatValidator`` (dra/cel_format.py)."""
    errors: list[tuple[int, str]] = []
    format_errors: list[tuple[int, str]] = []

    def mismatch(at: int, expected: CelType, actual: CelType) -> None:
        errors.append(
            (at, f"expected type '{format_type(expected)}' but found '{format_type(actual)}'")
        )

    def walk(e: Expr, exempt: bool) -> None:
        if e.kind == "call" and e.name == "format":
            exempt = True
            if (found := _format_call(e)) is not None:
                format_errors.append(found)
        if e.kind == "list" and not exempt and e.args:
            types = [_entry_type(a, i in e.opt_indices) for i, a in enumerate(e.args)]
            for a, t in zip(e.args[1:], types[1:], strict=True):
                if t != types[0]:
                    mismatch(a.offset, types[0], t)
                    break
        if e.kind == "map" and not exempt and e.entries:
            values = [_entry_type(v, i in e.opt_indices) for i, (_, v) in enumerate(e.entries)]
            k0 = e.entries[0][0]
            for (k, v), t in zip(e.entries[1:], values[1:], strict=True):
                if k.type != k0.type:
                    mismatch(k.offset, k0.type, k.type)
                if t != values[0]:
                    mismatch(v.offset, values[0], t)
        if e.kind == "call" and e.name in ("duration", "timestamp") and e.args:
            arg = e.args[0]
            if arg.kind == "lit" and not _literal_converts(e.name, arg):
                errors.append((arg.offset, f"invalid {e.name} argument"))
        if e.kind == "call" and e.name == "matches" and e.args:
            pattern = e.args[0]
            if pattern.kind == "lit" and pattern.lit_str is not None:
                try:  # cel/validator.go compileRegex: Go's regexp.Compile
                    compile_go(pattern.lit_str)
                except GoRegexError:
                    errors.append((pattern.offset, "invalid matches argument"))
        for child in (e.target, *e.args, e.iter_range, e.accu_init, e.cond, e.step, e.result):
            if child is not None:
                walk(child, exempt)
        for k, v in e.entries:
            walk(k, exempt)
            walk(v, exempt)

    walk(root, False)
    return errors + format_errors


def _entry_type(e: Expr, optional: bool) -> CelType:
    """The homogeneous validator's type of an entry: an optional one's parameter. cel-go takes
    ``Parameters()[0]`` without a check and panics on dyn (index out of range): refused here."""
    if not optional:
        return e.type
    if not e.type.params:
        raise CELCompileError(
            "cel-go v0.29.2 panics: runtime error: index out of range [0] with length 0 "
            "(cel/validator.go homogeneousAggregateLiteralValidator, an optional entry of type "
            f"{format_type(e.type)})"
        )
    return e.type.params[0]


def _format_call(e: Expr) -> tuple[int, str] | None:
    """``matchConstantFormatStringWithListLiteralArgs`` then the check of the clauses."""
    target = e.target
    if (
        target is None
        or target.kind != "lit"
        or target.lit_type != STRING
        or len(e.args) != 1
        or e.args[0].kind != "list"
        or (e.overloads and all(oid != "string_format" for oid, _ in e.overloads))
    ):
        return None
    return validate_format(target.lit_str or "", e.args[0].args, e.offset)


def _issues(expression: str, errors: list[tuple[int, str]]) -> str:
    """``Issues.String``: the errors sorted by line and column, each displayed."""
    shown = []
    for at, message in errors:
        line = expression.count("\n", 0, at) + 1
        column = at - (expression.rfind("\n", 0, at) + 1) + 1
        shown.append((line, column, message))
    shown.sort(key=lambda x: (x[0], x[1]))
    return "\n".join(display_error(expression, ln, col, msg) for ln, col, msg in shown)


# --- the entry point ---


def parse(expression: str, list_type_attributes: bool = False, includes: bool = False) -> Expr:
    """The checked expression (``env.Compile`` and compile.go's output type check); raises
    :class:`CELCompileError` with upstream's ``Error.Detail``. ``list_type_attributes``:
    DRAListTypeAttributes (attributes of type ``dyn``, ``includes`` declared); ``includes``:
    the StoredExpressions environment of a release whose list library has ``includes``
    (the scheduler's)."""
    root, macro_errors = convert(expression, parse_tree(expression))
    if macro_errors:
        raise CELCompileError("compilation failed: " + _issues(expression, macro_errors))
    checker = _Checker(list_type_attributes, includes)
    checker.check(root)
    nodes = _nodes(root)
    for n in nodes:
        n.type = substitute(checker.m, n.type, True)
        n.overloads = [(oid, substitute(checker.m, t, True)) for oid, t in n.overloads]
    errors = checker.errors or _validate(root)
    if errors:
        raise CELCompileError("compilation failed: " + _issues(expression, errors))
    if root.type not in (BOOL, DYN if list_type_attributes else ANY):  # validateOutputType
        raise CELCompileError(
            f"must evaluate to bool or the unknown type, not {type_string(root.type)}"
        )
    _program(root)
    return root


def _program(e: Expr) -> None:
    """``env.Program``'s regex optimizations (apiserver library/regex.go ``ProgramOptions``:
    ``find``, ``findAll``; cel-go's ``matches``): a constant pattern (a literal, or one in
    ``dyn()``, which the planner drops) is compiled when the program is planned, its
    arguments first, and an invalid one fails it: "program instantiation failed: error
    parsing regexp: ..."."""
    for child in (e.target, *e.args, e.iter_range, e.accu_init, e.cond, e.step, e.result):
        if child is not None:
            _program(child)
    for k, v in e.entries:
        _program(k)
        _program(v)
    if e.kind != "call" or e.name not in ("find", "findAll", "matches"):
        return
    args = ([e.target] if e.target is not None else []) + e.args
    pattern = args[1] if len(args) > 1 else None
    while pattern is not None and pattern.kind == "call" and pattern.name == "dyn":
        pattern = pattern.args[0] if len(pattern.args) == 1 and pattern.target is None else None
    if pattern is not None and pattern.kind == "lit" and pattern.lit_type == STRING:
        try:
            compile_go(pattern.lit_str or "")
        except GoRegexError as err:
            raise CELCompileError(f"program instantiation failed: {err}") from None
