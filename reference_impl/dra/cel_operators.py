"""cel-go's dispatch of the operators of DRA selectors over celpy's implementations (celpy
would raise "found no matching overload for Token('RULE', 'relation_gt') ..." or compare a
bool with an int). cel-go v0.29.2 ``interpreter/interpretable.go`` ``evalBinary`` and
``evalUnary``: an error operand is the result (the left one first); the standard library's
singleton bindings (``common/stdlib/standard.go``) call the operand's trait (``Adder``,
``Comparer``...), whose method gives "no such overload" for an operand of another type; an
operand without the trait is a ``Receiver`` (string, duration, timestamp: "no such overload")
or not ("no such overload: _+_"). ``==``/``!=`` are ``evalEq``/``evalNe`` over
``types.Equal`` (``cel_values.py``); ``in`` of a constant list is planned as a set lookup
(``interpreter/decorators.go`` ``maybeOptimizeSetMembership``), whose Go map panics on a key
of an unhashable type."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import celpy.celtypes as ct
from celpy.evaluation import CELEvalError

from reference_impl.dra.cel_errors import GoPanic, err, no_overload
from reference_impl.dra.cel_values import (
    equals,
    find_key,
    go_type,
    is_true,
    type_name,
    unhashable_lookup,
)

_DUR, _TS = "google.protobuf.Duration", "google.protobuf.Timestamp"
_NUMBERS = ("int", "uint", "double")
#: the operand types with each operator's trait (standard.go's ``OperandTrait``)
_TRAITS: dict[str, tuple[str, ...]] = {
    "_+_": ("bytes", "double", _DUR, "int", "string", _TS, "uint", "list"),
    "_-_": ("double", _DUR, "int", _TS, "uint"),
    "_*_": _NUMBERS,
    "_/_": _NUMBERS,
    "_%_": ("int", "uint"),
    "-_": ("bool", "double", _DUR, "int"),
}
for _op in ("_<_", "_<=_", "_>_", "_>=_"):
    _TRAITS[_op] = ("bool", "bytes", "double", _DUR, "int", "string", _TS, "uint")
_RECEIVERS = ("string", _DUR, _TS)
#: the operand type pairs each trait's method takes
_PAIRS: dict[str, set[tuple[str, str]]] = {
    "_+_": {(t, t) for t in _TRAITS["_+_"] if t != _TS} | {(_TS, _DUR), (_DUR, _TS)},
    "_-_": {(t, t) for t in _TRAITS["_-_"]} | {(_TS, _DUR)},
    "_*_": {(t, t) for t in _NUMBERS},
    "_/_": {(t, t) for t in _NUMBERS},
    "_%_": {("int", "int"), ("uint", "uint")},
}
_COMPARABLE = {(t, t) for t in _TRAITS["_<_"]} | {(a, b) for a in _NUMBERS for b in _NUMBERS}
for _op in ("_<_", "_<=_", "_>_", "_>=_"):
    _PAIRS[_op] = _COMPARABLE
_BY_ZERO = {"_/_": "division by zero", "_%_": "modulus by zero"}
_OVERFLOW = {"int": "integer overflow", "uint": "unsigned integer overflow"}  # types/err.go
_INT64 = 1 << 63


def _missing_trait(fn: str, operand: Any) -> CELEvalError:
    if type_name(operand) in _RECEIVERS:
        return err("no such overload")
    return err(f"no such overload: {fn}")


def binary(fn: str, impl: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """The operator ``fn`` (``_+_``, ``_<_``...) over ``impl``, celpy's or the library's."""

    def f(a: Any, b: Any) -> Any:
        if isinstance(a, CELEvalError):
            return a
        if isinstance(b, CELEvalError):
            return b
        ta, tb = type_name(a), type_name(b)
        if ta not in _TRAITS[fn]:
            return _missing_trait(fn, a)
        if (ta, tb) not in _PAIRS[fn]:
            return err("no such overload")
        if fn == "_%_" and ta == "int" and b == -1 and a == -_INT64:
            return err("integer overflow")  # int.go Modulo
        try:
            return _time_value(impl(a, b))
        except ZeroDivisionError:
            return err(_BY_ZERO.get(fn, "division by zero"))
        except (ValueError, OverflowError):  # celpy's range checks of int64 and uint64
            return err(_OVERFLOW.get(ta, "return error for overflow"))

    return f


def _time_value(v: Any) -> Any:
    """celpy's arithmetic of durations gives a plain ``timedelta``: a duration again."""
    if isinstance(v, datetime.timedelta) and not isinstance(v, ct.DurationType):
        return ct.DurationType(v)
    return v


def negate(impl: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``-_`` (a bool has the trait, its overload refuses it)."""

    def f(a: Any) -> Any:
        if isinstance(a, CELEvalError):
            return a
        if type_name(a) not in _TRAITS["-_"]:
            return _missing_trait("-_", a)
        if type_name(a) == "bool":
            return err("no such overload")
        try:
            return _time_value(impl(a))
        except (ValueError, OverflowError):
            return err("integer overflow")

    return f


def logical_not(a: Any) -> Any:
    """``!_``: of a bool only."""
    if isinstance(a, CELEvalError):
        return a
    if type_name(a) != "bool":
        return err("no such overload")
    return ct.BoolType(not a)


def equal(negated: bool) -> Callable[[Any, Any], Any]:
    """``==`` (``types.Equal``, possibly an error) and ``!=`` (true unless ``Equal`` is true)."""

    def f(a: Any, b: Any) -> Any:
        if isinstance(a, CELEvalError):
            return a
        if isinstance(b, CELEvalError):
            return b
        result = equals(a, b)
        return ct.BoolType(not is_true(result)) if negated else result

    return f


def contains(item: Any, container: Any) -> Any:
    """``@in``: a list's ``Contains`` (an element ``Equal`` true to the item, errors aside), a
    map's key (``Find``)."""
    if isinstance(item, CELEvalError):
        return item
    if isinstance(container, CELEvalError):
        return container
    if isinstance(container, list | tuple):
        return ct.BoolType(any(is_true(equals(item, x)) for x in container))
    if isinstance(container, dict):
        if unhashable_lookup(container, item):
            raise hash_panic(item)
        return ct.BoolType(find_key(container, item)[0])
    return err("no such overload")  # standard.go inAggregate: ValOrErr(rhs, ...)


def hash_panic(key: Any) -> GoPanic:
    """Go's panic hashing a key of an unhashable type into a map of ``ref.Val``."""
    return GoPanic(f"internal error: runtime error: hash of unhashable type {go_type(key)}")


def set_membership(item: Any, container: Any) -> Any:
    """``@in`` of a constant list of primitive values (``evalSetMembership``): a Go map of
    the values; an item of an unhashable Go type (a semver's struct of slices, bytes) panics:
    "runtime error: hash of unhashable type cel.Semver"."""
    if not isinstance(item, CELEvalError) and type_name(item) in ("kubernetes.Semver", "bytes"):
        raise hash_panic(item)
    return contains(item, container)


def unbound(fn: str, operand: Any) -> Any:
    """A call of one or two arguments whose function has several overloads and so no bound
    implementation under a ``dyn`` argument (planner.go ``planCallUnary``/``planCallBinary``
    without ``impl``): a receiver's ``Receive`` (string, duration, timestamp: "no such
    overload"), else "no such overload: sort"."""
    if isinstance(operand, CELEvalError):
        return operand
    return _missing_trait(fn, operand)


def size(v: Any) -> Any:
    """``size``: of a string (in code points), bytes, a list or a map."""
    if type_name(v) in ("string", "bytes", "list", "map"):
        return ct.IntType(len(v))
    return unbound("size", v)


#: the timestamp and duration accessors: the types of their receiver (standard.go)
ACCESSORS = {
    **{n: (_TS,) for n in "getDate getDayOfMonth getDayOfWeek getDayOfYear".split()},
    **{n: (_TS,) for n in ("getFullYear", "getMonth")},
    **{n: (_TS, _DUR) for n in "getHours getMilliseconds getMinutes getSeconds".split()},
}


def accessor(name: str, impl: Callable[..., Any]) -> Callable[..., Any]:
    """A timestamp or duration accessor (celpy's), "no such overload: getHours(string)" for
    another receiver."""

    def f(v: Any, *args: Any) -> Any:
        if isinstance(v, CELEvalError) or type_name(v) not in ACCESSORS[name]:
            return no_overload(name, v, *args)
        return impl(v, *args)

    return f


def string_predicate(impl: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``contains``, ``startsWith``, ``endsWith`` of strings only (standard.go binds each to
    ``types.String``'s methods: "no such overload" for another operand)."""

    def f(a: Any, b: Any) -> Any:
        if isinstance(a, CELEvalError) or isinstance(b, CELEvalError):
            return a if isinstance(a, CELEvalError) else b
        if type_name(a) != "string" or type_name(b) != "string":
            return err("no such overload")
        return impl(a, b)

    return f
