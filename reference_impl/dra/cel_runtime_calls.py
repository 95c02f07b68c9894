"""The call costs of cel-go's runtime cost tracker (``dra/cel_runtime_cost.py``): cel-go
v0.29.2 ``interpreter/runtimecost.go`` ``costCall`` (its defaults by overload id), the
overload trackers of ``ext/lists.go`` (version 3) and ``ext/sets.go``, and apiserver v0.37.2
``pkg/cel/library/cost.go`` ``CallCost`` by function, over celpy's values and the reference's
functions; a list tracker given no list panics as cel-go's does (:class:`Panicked`)."""

from __future__ import annotations

import math
from typing import Any

from reference_impl.dra import cel
from reference_impl.dra.cel_errors import GoPanic
from reference_impl.dra.cel_format import NamedFormat
from reference_impl.dra.cel_netip import Addr, Prefix
from reference_impl.dra.cel_optional import OptionalValue
from reference_impl.dra.cel_url import URL
from reference_impl.dra.cel_values import not_a_list

_STRING_FACTOR = 0.1  # common.StringTraversalCostFactor
_REGEX_FACTOR = 0.25  # common.RegexStringLengthCostFactor
#: apiserver library/cost.go CallCost: functions of a nominal cost (1)
_NOMINAL = frozenset(
    "masked prefixLength family isUnspecified isLoopback isLinkLocalMulticast isLinkLocalUnicast "
    "isGlobalUnicast sign asInteger isInteger asApproximateFloat isGreaterThan isLessThan "
    "compareTo add sub major minor patch getScheme getHostname getHost getPort getEscapedPath "
    "getQuery".split()
)
_TRAVERSE = frozenset("isSorted sum max min indexOf lastIndexOf includes".split())
_STRING_PASS = frozenset("url lowerAscii upperAscii substring trim cidr isIP isCIDR".split())
_PARSE = frozenset("quantity isQuantity semver isSemver".split())
#: apiserver pkg/cel/library/format.go: each named format's ``MaxRegexSize`` (the URI's
#: urlLength, byte's base64Length, len(strfmt.UUIDPattern), len(strfmt.DateTimePattern))
_MAX_REGEX_SIZE = {"DNS1123Label": 30, "DNS1123Subdomain": 60, "DNS1035Label": 30}
_MAX_REGEX_SIZE |= {"QualifiedName": 60, "DNS1123LabelPrefix": 30, "DNS1123SubdomainPrefix": 60}
_MAX_REGEX_SIZE |= {"DNS1035LabelPrefix": 30, "LabelValue": 40, "URI": 1103, "uuid": 70}
_MAX_REGEX_SIZE |= {"byte": 84, "date": 71, "datetime": 71}
SELF_COMPARED = ("distinct", "sort", "@sortByAssociatedKeys")
_SETS = {"sets.contains": 1, "sets.intersects": 1, "sets.equivalent": 2}


#: cel-go's evaluation panicked (a list tracker's argument that is no list, a lookup of an
#: unhashable key): ``cel_errors.GoPanic``; the actual cost is the cost before the call
Panicked = GoPanic


def _size(v: Any) -> int:
    """``actualSize``: strings in runes, bytes, lists and maps by length, an optional's value's
    size, else 1."""
    if isinstance(v, str | bytes | list | dict | tuple):
        return len(v)
    if isinstance(v, OptionalValue) and v.present:
        return _size(v.value)
    return 1


def _ceil(x: float) -> int:
    return math.ceil(x)


def _traversal(v: Any) -> int:
    """apiserver ``traversalCost``."""
    if isinstance(v, str):
        return int(len(v.encode()) * _STRING_FACTOR)
    if isinstance(v, bytes):
        return int(len(v) * _STRING_FACTOR)
    if isinstance(v, list | tuple):
        return sum(_traversal(x) for x in v)
    if isinstance(v, dict):
        return sum(_traversal(k) + _traversal(x) for k, x in v.items())
    return 1


def _regex_cost(s: Any, r: Any) -> int:
    return _ceil((1.0 + _size(s)) * _STRING_FACTOR) * _ceil(_size(r) * _REGEX_FACTOR)


def _self_compare(v: Any) -> int:
    """ext/lists.go ``trackListSelfCompare``: 2 (2.1 for strings or bytes) per pair, 11; an
    error argument panics (``args[0].(traits.Lister)``)."""
    if not isinstance(v, list | tuple):
        raise Panicked(not_a_list(v))
    factor = 2.1 if v and isinstance(v[0], str | bytes) else 2.0
    return int(len(v) * len(v) * factor) + 11


def _tracked_cost(fn: str, args: list[Any], result: Any) -> int | None:
    """The ext libraries' overload trackers (``OverloadCostTracker``, found by the call's
    overload id): ext/lists.go version 3 (``@sortByAssociatedKeys`` of ``sortBy`` sized by
    its keys), ext/sets.go ``trackSetsCost``."""
    a0 = args[0] if args else None
    if fn in ("slice", "lists.range", "reverse"):
        return _size(result) + 11  # trackListOutputSize
    if fn == "flatten":  # trackListFlatten
        return int(_size(a0) * (float(args[1]) if len(args) == 2 else 1.0)) + 11
    if fn in ("distinct", "sort"):
        return _self_compare(a0)
    if fn == "@sortByAssociatedKeys":  # trackListSortBy
        return _self_compare(args[1])
    if fn in _SETS:
        return 1 + int(_size(a0) * _size(args[1]) * _SETS[fn])
    return None


_MIN_SIZE = frozenset(
    f"{op}_{t}"
    for op in ("less", "greater", "less_equals", "greater_equals")
    for t in ("string", "bytes")
) | {"equals", "not_equals"}
_FIRST_SIZE = frozenset(("string_to_bytes", "bytes_to_string", "strings_quote", "string_format"))


def _infer_overload(fn: str, args: list[Any]) -> str:
    """The overload id of a call the checker did not resolve, from its arguments' runtime
    types (only those interpreter/runtimecost.go's switch names)."""
    a0, a1 = (args + [None, None])[:2]
    same = isinstance(a0, str | bytes) and type(a0) is type(a1)
    kind = "string" if isinstance(a0, str) else "bytes"
    by_function = {"strings.quote": "strings_quote", "format": "string_format"}
    by_function |= {"matches": "matches", "_==_": "equals", "_!=_": "not_equals"}
    if fn in by_function:
        return by_function[fn]
    if fn in ("startsWith", "endsWith", "contains") and isinstance(a0, str):
        return "starts_with_string" if fn != "contains" else "contains_string"
    if (fn == "bytes" and isinstance(a0, str)) or (fn == "string" and isinstance(a0, bytes)):
        return "string_to_bytes"
    if fn == "@in" and isinstance(a1, list | tuple):
        return "in_list"
    if fn in ("_<_", "_<=_", "_>_", "_>=_") and same:
        return f"less_{kind}"
    return f"add_{kind}" if fn == "_+_" and same else ""


def call_cost(fn: str, args: list[Any], result: Any, overload: str | None = None) -> int:
    """``CostTracker.costCall``: the overload trackers, apiserver ``CallCost`` by function,
    then interpreter/runtimecost.go's defaults by overload id. ``overload``: the checker's
    (``""`` where it left several: planner.go ``resolveFunction`` gives the call no id, so no
    tracker nor overload rule applies), None to tell it from the arguments' runtime types."""
    a0 = args[0] if args else None
    tracked = _tracked_cost(fn, args, result) if overload != "" else None
    if tracked is not None:
        return tracked
    if overload is None:
        overload = _infer_overload(fn, args)
    if fn in _TRAVERSE:
        return _traversal(a0) if args else 0
    if fn in _STRING_PASS or fn in _PARSE:
        return _ceil(_size(a0) * _STRING_FACTOR)
    if fn == "ip":
        return 1 if isinstance(a0, Prefix) else _ceil(_size(a0) * _STRING_FACTOR)
    if fn in ("replace", "split", "ip.isCanonical"):
        return _ceil(_size(a0) * 2 * _STRING_FACTOR)
    if fn == "join":
        return _ceil(_size(result) * 2 * _STRING_FACTOR)
    if fn in ("find", "findAll") and len(args) >= 2:
        return _regex_cost(a0, args[1])
    if fn in _NOMINAL or fn == "format.named":
        return 1
    if fn == "validate" and len(args) >= 2 and isinstance(a0, NamedFormat):
        regex = _ceil(_MAX_REGEX_SIZE.get(a0.name, 0) * _REGEX_FACTOR)
        return _ceil((1.0 + _size(args[1])) * _STRING_FACTOR) * regex
    if fn in ("containsIP", "containsCIDR"):
        c, o = _size(a0), _size(args[1])
        cost = _ceil((c + c) * _STRING_FACTOR)
        if fn == "containsCIDR":
            cost += _ceil(c * _STRING_FACTOR) + 1
        string = overload.endswith("_string") or (not overload and isinstance(args[1], str))
        return cost + (_ceil(o * _STRING_FACTOR) if string else 0)
    if fn == "_==_" and isinstance(a0, cel.Quantity | cel.Semver | Addr | Prefix | URL):
        return 1
    # interpreter/runtimecost.go's switch on the overload id (an error argument sized 1)
    if overload in ("starts_with_string", "ends_with_string"):
        return _ceil(_size(args[1]) * _STRING_FACTOR)
    if overload in _FIRST_SIZE:
        return _ceil(_size(a0) * _STRING_FACTOR)
    if overload == "in_list":
        return _size(args[1])
    if overload in _MIN_SIZE:
        return _ceil(min(_size(a0), _size(args[1])) * _STRING_FACTOR)
    if overload in ("add_string", "add_bytes"):
        return _ceil((_size(a0) + _size(args[1])) * _STRING_FACTOR)
    if overload in ("matches", "matches_string"):
        return _regex_cost(a0, args[1])
    if overload == "contains_string":
        return _ceil(_size(a0) * _STRING_FACTOR) * _ceil(_size(args[1]) * _STRING_FACTOR)
    return 1
