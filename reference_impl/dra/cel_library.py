"""The string, list, set and regex functions of the DRA selector environment.

Upstream: the StoredExpressions environment of k8s.io/apiserver/pkg/cel/environment/base.go
v0.37.2 (cel-go v0.29.2): ``ext.Strings(StringsVersion(2))`` (ext/strings.go: ``charAt``,
``indexOf``, ``lastIndexOf``, ``lowerAscii``, ``upperAscii``, ``replace``, ``split``,
``substring``, ``trim``, ``join``, ``strings.quote``); the Kubernetes list library
(pkg/cel/library/lists.go: ``isSorted``, ``sum``, ``min``, ``max``, ``indexOf``,
``lastIndexOf``, ``includes`` from ListsVersion(1), 1.37); ``ext.Lists(ListsVersion(3))``
(ext/lists.go: ``slice``, ``flatten``, ``sort``, ``lists.range``, ``reverse``, ``distinct``;
``sortBy`` in cel_macros.py); ``ext.Sets`` (``sets.contains``/``equivalent``/``intersects``);
regex.go ``find``/``findAll`` and the standard ``matches`` on Go's regexp (``cel_regex.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import celpy.celtypes as ct
from celpy.evaluation import CELEvalError, base_functions

from reference_impl.dra import cel_regex
from reference_impl.dra.cel_errors import err, no_overload
from reference_impl.dra.cel_operators import equal, unbound
from reference_impl.dra.cel_values import equals, is_true, type_name

# --- ext.Strings v2 (cel-go ext/strings.go) ---

#: unicode.IsSpace, which strings.TrimSpace trims (Python's str.strip also trims \x1c-\x1f)
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool | ct.BoolType)


def _char_at(s: str, i: int) -> Any:
    """``charAt``: the rune at ``i``, "" at the end, an error beyond."""
    if i < 0 or i > len(s):
        return err(f"index out of range: {i}")
    return ct.StringType(s[i] if i < len(s) else "")


def _index_of(s: str, sub: str, off: int = 0) -> Any:
    """``indexOfOffset``: the first rune index of ``sub`` from ``off``."""
    if off < 0:
        return err(f"index out of range: {off}")
    if sub == "":
        return ct.IntType(min(off, len(s)))
    if off >= len(s):
        return ct.IntType(-1)
    for i in range(off, len(s) - (len(sub) - 1)):
        if s[i : i + len(sub)] == sub:
            return ct.IntType(i)
    return ct.IntType(-1)


def _last_index_of(s: str, sub: str, *offset: int) -> Any:
    """``lastIndexOf``/``lastIndexOfOffset``: the last rune index of ``sub`` at or before the
    offset (the whole string without one; byte lengths compared first, as upstream)."""
    if not offset:
        if sub == "":
            return ct.IntType(len(s))
        if len(s.encode(errors="surrogatepass")) < len(sub.encode(errors="surrogatepass")):
            return ct.IntType(-1)
        offset = (len(s) - 1,)
    off = offset[0]
    if off < 0:
        return err(f"index out of range: {off}")
    if sub == "":
        return ct.IntType(min(off, len(s)))
    if off >= len(s):
        return ct.IntType(-1)
    off = min(off, len(s) - len(sub))
    for i in range(off, -1, -1):
        if s[i : i + len(sub)] == sub:
            return ct.IntType(i)
    return ct.IntType(-1)


def _split(s: str, sep: str, n: int = -1) -> Any:
    """``strings.SplitN`` (an empty separator splits into runes; ``n == 0``: no parts)."""
    if n == 0:
        return ct.ListType([])
    if sep == "":
        parts = list(s)
        if 0 < n < len(parts):
            parts = [*parts[: n - 1], "".join(parts[n - 1 :])]
    else:
        parts = s.split(sep) if n < 0 else s.split(sep, n - 1)
    return ct.ListType([ct.StringType(p) for p in parts])


def _substring(s: str, start: int, *end: int) -> Any:
    """``substr``/``substrRange``."""
    if not end:
        if start < 0 or start > len(s):
            return err(f"index out of range: {start}")
        return ct.StringType(s[start:])
    stop = end[0]
    if start > stop:
        return err(f"invalid substring range. start: {start}, end: {stop}")
    if start < 0 or start > len(s):
        return err(f"index out of range: {start}")
    if stop < 0 or stop > len(s):
        return err(f"index out of range: {stop}")
    return ct.StringType(s[start:stop])


_QUOTED = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def _quote(s: str) -> Any:
    """``strings.quote``: CEL escapes, invalid runes (surrogates) as U+FFFD."""
    body = "".join(_QUOTED.get(c, "\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c) for c in s)
    return ct.StringType(f'"{body}"')


def _ascii_case(upper: bool) -> Callable[[str], Any]:
    def f(s: str) -> Any:
        return ct.StringType(
            "".join((c.upper() if upper else c.lower()) if c.isascii() else c for c in s)
        )

    return f


def _typed(name: str, impl: Callable[..., Any], kinds: Sequence[str]) -> Callable[..., Any]:
    """``impl`` for the arguments of the kinds (``s``: string, ``i``: int) of one overload;
    other arguments: no such overload."""

    def f(*args: Any) -> Any:
        ok = len(args) == len(kinds) and all(
            isinstance(a, str) if k == "s" else _is_int(a) for a, k in zip(args, kinds, strict=True)
        )
        if not ok:
            return no_overload(name, *args)
        return impl(*(str(a) if k == "s" else int(a) for a, k in zip(args, kinds, strict=True)))

    return f


def _overloads(name: str, *overloads: tuple[Callable[..., Any], str]) -> Callable[..., Any]:
    """The overload whose argument kinds match (``_typed``), else no such overload."""
    typed = [(_typed(name, impl, kinds), kinds) for impl, kinds in overloads]

    def f(*args: Any) -> Any:
        for fn, kinds in typed:
            if len(kinds) == len(args):
                result = fn(*args)
                if not (
                    isinstance(result, CELEvalError)
                    and str(result.args[0]).startswith(f"no such overload: {name}(")
                ):
                    return result
        return no_overload(name, *args)

    return f


def _join(items: Any, *sep: Any) -> Any:
    """``joinValSeparator``: every element must be a string."""
    if not isinstance(items, list) or any(not isinstance(s, str) for s in sep) or len(sep) > 1:
        return no_overload("join", items, *sep)
    separator = sep[0] if sep else ""
    if any(not isinstance(x, str) for x in items):  # the list(string) overload's type guard
        return no_overload("join", items, *sep)
    return ct.StringType(str(separator).join(str(x) for x in items))


def _go_value(x: Any) -> str:
    """``%v`` of a CEL value (the scalars a selector may put in a list)."""
    if isinstance(x, bool | ct.BoolType):
        return "true" if x else "false"
    return str(x)


# --- the Kubernetes list library (k8s.io/apiserver/pkg/cel/library/lists.go) ---


def _comparable(xs: Any, name: str) -> Any:
    """The list, or the error ``xs`` gives (not a list: no such overload)."""
    if not isinstance(xs, list):
        return no_overload(name, xs)
    return xs


def _compare(a: Any, b: Any) -> int:
    """``traits.Comparer.Compare``; incomparable values raise TypeError."""
    if _number(a) and _number(b):
        x, y = float(a), float(b)
        if isinstance(a, int) and isinstance(b, int):
            x, y = int(a), int(b)
        return (x > y) - (x < y)
    if type(a) is not type(b):
        raise TypeError("no such overload")
    return (a > b) - (a < b)


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool | ct.BoolType)


def _is_sorted(xs: Any) -> Any:
    """``isSorted``: no element greater than its successor."""
    xs = _comparable(xs, "isSorted")
    if isinstance(xs, CELEvalError):
        return xs
    try:
        return ct.BoolType(all(_compare(a, b) != 1 for a, b in zip(xs, xs[1:], strict=False)))
    except TypeError:
        return err("no such overload")


def _sum(xs: Any) -> Any:
    """``sum``: from the element type's zero (int for an empty list)."""
    xs = _comparable(xs, "sum")
    if isinstance(xs, CELEvalError):
        return xs
    if not xs:
        return ct.IntType(0)
    acc = xs[0]
    try:
        for x in xs[1:]:
            acc = acc + x
    except (TypeError, ValueError) as e:
        return err("integer overflow" if isinstance(e, ValueError) else "no such overload")
    return acc


def _extreme(name: str) -> Callable[[Any], Any]:
    """``min``/``max`` (``cmp``): the first of equal extremes; an empty list is an error."""
    prefer = 1 if name == "min" else -1

    def f(xs: Any) -> Any:
        xs = _comparable(xs, name)
        if isinstance(xs, CELEvalError):
            return xs
        if not xs:
            return err(f"{name} called on empty list")
        result = xs[0]
        try:
            for x in xs[1:]:
                if _compare(result, x) == prefer:
                    result = x
        except TypeError:
            return err("no such overload")
        return result

    return f


def _list_index_of(last: bool) -> Callable[..., Any]:
    """``indexOf``/``lastIndexOf`` of a list element (CEL equality), or of a substring."""
    name = "lastIndexOf" if last else "indexOf"
    strings = _overloads(
        name,
        (_last_index_of if last else _index_of, "ss"),
        (_last_index_of if last else _index_of, "ssi"),
    )

    def f(target: Any, *args: Any) -> Any:
        if isinstance(target, str):
            return strings(target, *args)
        if not isinstance(target, list) or len(args) != 1:
            return no_overload(name, target, *args)
        order = range(len(target) - 1, -1, -1) if last else range(len(target))
        for i in order:
            if _equal(target[i], args[0]):
                return ct.IntType(i)
        return ct.IntType(-1)

    return f


def _equal(a: Any, b: Any) -> bool:
    """Whether ``Equal`` of the values is true (cel_values.py: heterogeneous equality, an
    error not)."""
    return is_true(equals(a, b))


def _includes(target: Any, arg: Any) -> Any:
    """``includes``: a list's element, or (any other value) equality."""
    if isinstance(target, list):
        return ct.BoolType(any(_equal(x, arg) for x in target))
    return ct.BoolType(_equal(target, arg))


# --- the base environment's comparisons (cel.CrossTypeNumericComparisons, base.go 1.28) ---


def _relation(name: str, test: Callable[[int], bool]) -> Callable[[Any, Any], Any]:
    """``<``, ``<=``, ``>``, ``>=``: numbers of any two of int, uint and double compare by
    value (CrossTypeNumericComparisons); other operands as celpy compares them."""
    fallback = base_functions[name]

    def f(a: Any, b: Any) -> Any:
        if isinstance(a, CELEvalError):
            return a
        if isinstance(b, CELEvalError):
            return b
        if _number(a) and _number(b) and type(a) is not type(b):
            return ct.BoolType(test(_compare(a, b)))
        return fallback(a, b)

    return f


# --- ext.Lists v3 (cel-go ext/lists.go) ---


def _slice(xs: Any, start: Any, end: Any) -> Any:
    if not isinstance(xs, list) or not _is_int(start) or not _is_int(end):
        return no_overload("slice", xs, start, end)
    if start < 0 or end < 0:
        return err(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        return err(
            f"cannot slice({start}, {end}), start index must be less than or equal to end index"
        )
    if len(xs) < end:
        return err(f"cannot slice({start}, {end}), list is length {len(xs)}")
    return ct.ListType(xs[start:end])


def _flat(xs: list[Any], depth: int) -> list[Any]:
    out: list[Any] = []
    for x in xs:
        if isinstance(x, list) and depth > 0:
            out.extend(_flat(x, depth - 1))
        else:
            out.append(x)
    return out


def _flatten(xs: Any, *depth: Any) -> Any:
    """``flatten``: ext/lists.go's "no such overload: string.flatten()" for another value."""
    if not isinstance(xs, list) or (depth and (len(depth) > 1 or not _is_int(depth[0]))):
        for a in (xs, *depth):
            if isinstance(a, CELEvalError):
                return a
        types = [type_name(a) for a in (xs, *depth)]
        return err(f"no such overload: {types[0]}.flatten({', '.join(types[1:])})")
    level = int(depth[0]) if depth else 1
    if level < 0:
        return err("level must be non-negative")
    return ct.ListType(_flat(xs, level))


def _sort(xs: Any) -> Any:
    """``sortList``: elements of one comparable type."""
    if not isinstance(xs, list):
        return unbound("sort", xs)
    if not xs:
        return xs
    if isinstance(xs[0], list | dict):
        return err("list elements must be comparable")
    if any(type(x) is not type(xs[0]) for x in xs):
        return err("list elements must have the same type")
    return ct.ListType(sorted(xs))


#: ext/lists.go ``defaultMaxRangeSize`` (v0.29.2; v0.26.0's genRange has no cap)
MAX_RANGE_SIZE = 1_000_000


def _range(n: Any) -> Any:
    """``genRange`` (ext/lists.go): a negative or too large size is an error."""
    if not _is_int(n):
        return no_overload("lists.range", n)
    if n < 0:
        return err(f"lists.range: size must be non-negative, got {n}")
    if n > MAX_RANGE_SIZE:
        return err(f"lists.range: size {n} exceeds maximum allowed ({MAX_RANGE_SIZE})")
    return ct.ListType([ct.IntType(i) for i in range(n)])


def _reverse(xs: Any) -> Any:
    if not isinstance(xs, list):
        return no_overload("reverse", xs)
    return ct.ListType(xs[::-1])


def _distinct(xs: Any) -> Any:
    """``distinctList``: the first of equal elements, in order."""
    if not isinstance(xs, list):
        return no_overload("distinct", xs)
    out: list[Any] = []
    for x in xs:
        if not any(_equal(x, y) for y in out):
            out.append(x)
    return ct.ListType(out)


# --- ext.Sets (cel-go ext/sets.go) ---


def _sets(name: str) -> Callable[[Any, Any], Any]:
    def f(a: Any, b: Any) -> Any:
        if not isinstance(a, list) or not isinstance(b, list):
            return no_overload(f"sets.{name}", a, b)

        def contains(xs: list[Any], ys: list[Any]) -> bool:
            return all(any(_equal(y, x) for x in xs) for y in ys)

        if name == "contains":
            return ct.BoolType(contains(a, b))
        if name == "equivalent":
            return ct.BoolType(contains(a, b) and contains(b, a))
        return ct.BoolType(any(any(_equal(x, y) for y in b) for x in a))

    return f


# --- regex (k8s.io/apiserver/pkg/cel/library/regex.go; cel-go's matches) on Go's regexp ---


def _compile(pattern: str, illegal: str = "Illegal regex: ") -> Any:
    try:
        return cel_regex.compile_go(pattern)
    except cel_regex.GoRegexError as e:
        return err(f"{illegal}{e}")


def _matches(s: Any, pattern: Any) -> Any:
    """cel-go's ``matches`` (common/types/string.go ``Match``: ``regexp.MatchString``, its
    error unwrapped; standard.go binds it to the ``Matcher`` trait: another pattern is "no such
    overload", another receiver ``cel_operators.unbound``'s)."""
    if isinstance(s, CELEvalError) or isinstance(pattern, CELEvalError):
        return s if isinstance(s, CELEvalError) else pattern
    if not isinstance(s, str):
        return unbound("matches", s)
    if not isinstance(pattern, str):
        return err("no such overload")
    rx = _compile(pattern, "")
    if isinstance(rx, CELEvalError):
        return rx
    return ct.BoolType(rx.search(s) is not None)


def _find(s: Any, pattern: Any) -> Any:
    """``find``: the leftmost match, or ""."""
    if not isinstance(s, str) or not isinstance(pattern, str):
        return no_overload("find", s, pattern)
    rx = _compile(pattern)
    if isinstance(rx, CELEvalError):
        return rx
    m = rx.search(s)
    return ct.StringType(m.group(0) if m else "")


def _find_all(s: Any, pattern: Any, *limit: Any) -> Any:
    """``findAll``: ``Regexp.FindAllString`` (``n < 0``: all)."""
    if (
        not isinstance(s, str)
        or not isinstance(pattern, str)
        or (limit and (len(limit) > 1 or not _is_int(limit[0])))
    ):
        return no_overload("findAll", s, pattern, *limit)
    rx = _compile(pattern)
    if isinstance(rx, CELEvalError):
        return rx
    n = int(limit[0]) if limit else -1
    return ct.ListType([ct.StringType(m) for m in cel_regex.find_all(rx, s, n)])


def _add(a: Any, b: Any) -> Any:
    """``_+_``: celpy's (``operator.add``) gives a plain ``str``, ``bytes`` or ``list`` for two
    strings, bytes or lists, which no member function takes (``("a" + x).contains("b")`` failed
    with "no such overload"); the result is a CEL value again."""
    out = base_functions["_+_"](a, b)
    if type(out) is str:
        return ct.StringType(out)
    if type(out) is bytes:
        return ct.BytesType(out)
    if type(out) is list:
        return ct.ListType(out)
    return out


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "_+_": _add,
    "charAt": _typed("charAt", _char_at, "si"),
    "indexOf": _list_index_of(False),
    "lastIndexOf": _list_index_of(True),
    "lowerAscii": _typed("lowerAscii", _ascii_case(False), "s"),
    "upperAscii": _typed("upperAscii", _ascii_case(True), "s"),
    "replace": _overloads(
        "replace",
        (lambda s, a, b: ct.StringType(s.replace(a, b)), "sss"),
        (lambda s, a, b, n: ct.StringType(s.replace(a, b, n)), "sssi"),
    ),
    "split": _overloads("split", (_split, "ss"), (_split, "ssi")),
    "substring": _overloads("substring", (_substring, "si"), (_substring, "sii")),
    "trim": _typed("trim", lambda s: ct.StringType(s.strip(_GO_SPACE)), "s"),
    "join": _join,
    "strings.quote": _typed("strings.quote", _quote, "s"),
    "isSorted": _is_sorted,
    "sum": _sum,
    "min": _extreme("min"),
    "max": _extreme("max"),
    "includes": _includes,
    "slice": _slice,
    "flatten": _flatten,
    "sort": _sort,
    "lists.range": _range,
    "reverse": _reverse,
    "distinct": _distinct,
    "sets.contains": _sets("contains"),
    "sets.equivalent": _sets("equivalent"),
    "sets.intersects": _sets("intersects"),
    "matches": _matches,
    "find": _find,
    "findAll": _find_all,
    "_<_": _relation("_<_", lambda c: c < 0),
    "_<=_": _relation("_<=_", lambda c: c <= 0),
    "_>_": _relation("_>_", lambda c: c > 0),
    "_>=_": _relation("_>=_", lambda c: c >= 0),
    "_==_": equal(False),
    "_!=_": equal(True),
}
