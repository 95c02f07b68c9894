"""The type conversions of DRA selectors (``int``, ``uint``, ``double``, ``bool``, ``bytes``,
``string``) as cel-go v0.29.2 makes them: ``common/stdlib/standard.go`` declares one overload
per argument type (another type: "no such overload: int(kubernetes.Semver)",
``decls.MaybeNoSuchOverload``), each ``convertToType``, the value's ``ConvertToType``
(``common/types`` int.go, uint.go, double.go, string.go): Go's ``strconv.ParseInt``,
``ParseUint``, ``ParseFloat``, ``ParseBool`` of a string ("type conversion error from
'string' to 'int'"), checked number conversions ("integer overflow", "unsigned integer
overflow"), a double's string ``%g`` (``strconv.FormatFloat`` 'g'); the rest as celpy
converts."""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable
from typing import Any

import celpy.celtypes as ct
from celpy.evaluation import CELEvalError, base_functions

from reference_impl.dra.cel_errors import err, no_overload
from reference_impl.dra.cel_format import go_float
from reference_impl.dra.cel_values import type_name

_DUR, _TS = "google.protobuf.Duration", "google.protobuf.Timestamp"
#: the argument types of each conversion's overloads (library/ip.go and cidr.go add
#: ``string`` of an IP and a CIDR, ``dra/cel_netip.py``)
_OVERLOADS = {
    "int": ("int", "uint", "double", "string", _TS, _DUR),
    "uint": ("uint", "int", "double", "string"),
    "double": ("double", "int", "uint", "string"),
    "bool": ("bool", "string"),
    "bytes": ("bytes", "string"),
    "string": ("string", "bool", "bytes", "double", _DUR, "int", _TS, "uint", "net.IP", "net.CIDR"),
    "duration": (_DUR, "string"),
    "timestamp": (_TS, "string", "int"),
}
_INT64 = 1 << 63
_NAMES = {"duration": _DUR, "timestamp": _TS}
_MIN_UNIX, _MAX_UNIX = -62135596800, 253402300799  # common/types/timestamp.go
_GO_INT = re.compile(r"[+-]?[0-9]+")
#: strconv.ParseFloat's decimal syntax (an underscore only between digits: underscoreOK)
_DIGITS = r"[0-9]+(?:_[0-9]+)*"
_GO_FLOAT = re.compile(
    rf"[+-]?(({_DIGITS}\.?(?:{_DIGITS})?|\.{_DIGITS})([eE][+-]?{_DIGITS})?|inf|infinity|nan)",
    re.IGNORECASE,
)
_GO_BOOL = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True}
_GO_BOOL |= {"0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def _from_string(target: str, s: str) -> Any:
    """``String.ConvertToType``: None where Go's parser fails."""
    if target in ("int", "uint") and _GO_INT.fullmatch(s):
        n = int(s)
        if target == "int" and -_INT64 <= n < _INT64:
            return ct.IntType(n)
        if target == "uint" and s[0] not in "+-" and 0 <= n < 2 * _INT64:
            return ct.UintType(n)
    if target == "double" and _GO_FLOAT.fullmatch(s):
        x = float(s)
        if not math.isinf(x) or "inf" in s.lower():  # ParseFloat: out of range is an error
            return ct.DoubleType(x)
    if target == "bool" and s in _GO_BOOL:
        return ct.BoolType(_GO_BOOL[s])
    return None


_UNIT_NS = {"ns": 1, "us": 10**3, "\u00b5s": 10**3, "\u03bcs": 10**3, "ms": 10**6, "s": 10**9}
_UNIT_NS |= {"m": 60 * 10**9, "h": 3600 * 10**9}
_DURATION_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")


def go_parse_duration(s: str) -> int | None:
    """Go's ``time.ParseDuration`` (time/format.go): the nanoseconds, None where it fails
    ("1\u00b5s", ".5s", "1.s" and "0" parse; a number needs digits before or after its point;
    each fraction adds ``int64(float64(f) * (float64(unit) / scale))``; at most 1<<63-1,
    1<<63 when negative)."""
    body = s[1:] if s[:1] in "+-" else s
    if body == "0":
        return 0
    if not body:
        return None
    total, pos = 0, 0
    while pos < len(body):
        m = _DURATION_PART.match(body, pos)
        if m is None or not (m.group(1) or m.group(2)):
            return None
        unit = _UNIT_NS[m.group(3)]
        total += int(m.group(1) or "0") * unit
        if m.group(2):
            total += int(float(int(m.group(2))) * (float(unit) / 10 ** len(m.group(2))))
        if total > _INT64:
            return None
        pos = m.end()
    if s[:1] == "-":
        return -total
    return total if total < _INT64 else None


def _number(target: str, v: Any) -> Any:
    """int.go, uint.go and double.go ``ConvertToType`` between numbers (checked)."""
    if target == "double":
        return ct.DoubleType(float(v))
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return err("integer overflow" if target == "int" else "unsigned integer overflow")
    if target == "int":
        if isinstance(v, float) and not -float(_INT64) < v < float(_INT64):
            return err("integer overflow")
        if not -_INT64 <= int(v) < _INT64:
            return err("integer overflow")
        return ct.IntType(int(v))
    if v < 0 or (isinstance(v, float) and v >= 2.0 * _INT64) or int(v) >= 2 * _INT64:
        return err("unsigned integer overflow")
    return ct.UintType(int(v))


def conversion(target: str, impl: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """The conversion function ``target`` (over ``impl``, celpy's or the library's, for the
    types not restated here)."""
    fallback = impl or base_functions[target]

    def f(v: Any, *rest: Any) -> Any:
        if isinstance(v, CELEvalError):
            return v
        kind = type_name(v)
        if rest or kind not in _OVERLOADS[target]:
            return no_overload(target, v, *rest)
        if kind == target:
            return v
        if kind == "string" and target in ("int", "uint", "double", "bool"):
            out = _from_string(target, str(v))
            if out is None:
                return err(f"type conversion error from 'string' to '{target}'")
            return out
        if kind == "string" and target == "duration":
            ns = go_parse_duration(str(v))
            if ns is None:
                return err(f"type conversion error from 'string' to '{_DUR}'")
            seconds, nanos = divmod(abs(ns), 10**9)  # (celpy keeps microseconds)
            sign = -1 if ns < 0 else 1
            return ct.DurationType(sign * seconds, sign * nanos)
        if kind == "string" and target == "timestamp":
            try:
                return fallback(v)
            except ValueError:  # time.Parse(time.RFC3339)
                return err(f"type conversion error from 'string' to '{_NAMES[target]}'")
        if kind == "int" and target == "timestamp":  # Unix seconds, years 1 to 9999
            if not _MIN_UNIX <= v <= _MAX_UNIX:
                return err("timestamp overflow")
            return ct.TimestampType(datetime.datetime.fromtimestamp(int(v), datetime.UTC))
        if kind in ("int", "uint", "double") and target in ("int", "uint", "double"):
            return _number(target, v)
        if kind == _DUR and target == "int":  # nanoseconds (celpy keeps microseconds)
            return ct.IntType(v // datetime.timedelta(microseconds=1) * 1000)
        if kind == _TS and target == "int":  # Unix seconds
            return ct.IntType(math.floor(v.timestamp()))
        if kind == "bool" and target == "string":
            return ct.StringType("true" if v else "false")
        if kind == "double" and target == "string":
            return ct.StringType(go_float(float(v)))
        return fallback(v)

    return f
