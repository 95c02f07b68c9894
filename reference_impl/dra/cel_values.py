"""cel-go's view of the DRA selector environment's values (celpy's, and the classes of
``cel.py``, ``cel_netip.py``, ``cel_url.py``, ``cel_optional.py``, named here by class so that
every CEL module may import this one): a value's type name (``ref.Type.TypeName``), its Go
dynamic type (``%T`` in cel-go's messages and runtime panics), the type value ``type()`` gives
(a class; one class per CEL type), and heterogeneous equality (github.com/google/cel-go
v0.29.2 ``common/types/util.go`` ``Equal`` and each type's ``Equal``; k8s.io/apiserver v0.37.2
``pkg/cel`` semver.go, quantity.go, ip.go, cidr.go, url.go)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import celpy.celtypes as ct
from celpy.evaluation import CELEvalError

#: the value classes of the other CEL modules, by class name: (TypeName, Go type)
_NAMED = {
    "Semver": ("kubernetes.Semver", "cel.Semver"),
    "Quantity": ("kubernetes.Quantity", "cel.Quantity"),
    "URL": ("kubernetes.URL", "cel.URL"),
    "Addr": ("net.IP", "cel.IP"),
    "Prefix": ("net.CIDR", "cel.CIDR"),
    "OptionalValue": ("optional_type", "*types.Optional"),
    "NamedFormat": ("kubernetes.NamedFormat", "library.NamedFormat"),
    "_Err": ("*types.Err", "*types.Err"),  # dra/cel_runtime_cost.py's error values
}
#: celpy's classes (the first match: bool before int, uint before int): TypeName, Go type
_BUILTIN: tuple[tuple[type, str, str], ...] = (
    (ct.BoolType, "bool", "types.Bool"),
    (bool, "bool", "types.Bool"),
    (ct.UintType, "uint", "types.Uint"),
    (int, "int", "types.Int"),
    (float, "double", "types.Double"),
    (str, "string", "types.String"),
    (bytes, "bytes", "types.Bytes"),
    (list, "list", "*types.baseList"),
    (tuple, "list", "*types.baseList"),
    (ct.TimestampType, "google.protobuf.Timestamp", "types.Timestamp"),
    (ct.DurationType, "google.protobuf.Duration", "types.Duration"),
    (dict, "map", "*types.baseMap"),
)
#: the class ``type()`` gives of a celpy value's CEL type (subclasses, ``AttributeMap``, map
#: to their CEL type's class)
_CANONICAL: dict[str, type] = {
    "bool": ct.BoolType,
    "uint": ct.UintType,
    "int": ct.IntType,
    "double": ct.DoubleType,
    "string": ct.StringType,
    "bytes": ct.BytesType,
    "list": ct.ListType,
    "map": ct.MapType,
    "google.protobuf.Timestamp": ct.TimestampType,
    "google.protobuf.Duration": ct.DurationType,
    "null_type": type(None),
    "type": ct.TypeType,
}
#: Go types with an ``Add`` method (the first method of ``traits.Lister`` a panic names)
_ADDERS: tuple[str, ...] = (
    "types.Bytes",
    "types.Double",
    "types.Duration",
    "types.Int",
    "types.String",
)
_ADDERS += ("types.Timestamp", "types.Uint")


def _names(v: Any) -> tuple[str, str]:
    if isinstance(v, CELEvalError):
        return "*types.Err", "*types.Err"
    if v is None:
        return "null_type", "types.Null"
    if isinstance(v, type):
        return "type", "*types.Type"
    for cls, name, go in _BUILTIN:
        if isinstance(v, cls):
            return name, go
    for cls in type(v).__mro__:
        if cls.__name__ in _NAMED:
            return _NAMED[cls.__name__]
    return type(v).__name__, type(v).__name__


def type_name(v: Any) -> str:
    """``v.Type().TypeName()`` (``string``, ``kubernetes.Semver``, ``net.IP``...)."""
    return _names(v)[0]


def go_type(v: Any) -> str:
    """Go's ``%T`` of the cel-go value (``types.String``, ``cel.Semver``, ``*types.Err``)."""
    return _names(v)[1]


def not_a_list(v: Any) -> str:
    """The runtime panic of a type assertion ``v.(traits.Lister)`` as cel-go reports it
    (cel/program.go: "internal error: %v" of the recovered ``*runtime.TypeAssertionError``,
    which names the first method of the interface the value lacks)."""
    go = go_type(v)
    missing = "Contains" if go in _ADDERS else "Add"
    return (
        f"internal error: interface conversion: {go} is not traits.Lister: missing method {missing}"
    )


def type_of(v: Any) -> type:
    """``type(v)``: the class standing for the value's CEL type."""
    name = type_name(v)
    if name in _CANONICAL:
        return _CANONICAL[name]
    return type(v)


def type_value_name(t: type) -> str:
    """The name of a type value (a class :func:`type_of` gives, or a type identifier's)."""
    for name, cls in _CANONICAL.items():
        if t is cls:
            return name
    for cls in t.__mro__:
        if cls.__name__ in _NAMED:
            return _NAMED[cls.__name__][0]
    return t.__name__


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool | ct.BoolType)


def _numbers_equal(a: Any, b: Any) -> bool:
    """Int, uint and double compare by value (``compareIntDouble``...); NaN equals nothing."""
    if any(isinstance(x, float) and math.isnan(x) for x in (a, b)):
        return False
    if any(isinstance(x, float) and math.isinf(x) for x in (a, b)):
        return float(a) == float(b)
    return Fraction(a) == Fraction(b)


def _is_false(v: Any) -> bool:
    return isinstance(v, bool | ct.BoolType) and not v


_NO_OVERLOAD_TYPES: tuple[str, ...] = ("kubernetes.Semver", "kubernetes.Quantity", "kubernetes.URL")
_NO_OVERLOAD_TYPES += ("net.IP", "net.CIDR")


def equals(a: Any, b: Any) -> Any:
    """``types.Equal(a, b)``: a bool, or an error (semver, quantity, URL, IP and CIDR values
    are equal only to their own type: another is "no such overload", ``MaybeNoSuchOverloadErr``
    or ``ValOrErr``; an error operand is the result). A list or map equals another of the same
    size whose elements or values are not unequal: an error between them does not count
    (``baseList.Equal``, ``baseMap.Equal`` stop only at ``False``)."""
    if isinstance(a, CELEvalError):
        return a
    if a is None or b is None:
        return ct.BoolType(a is None and b is None)
    name = type_name(a)
    if name in _NO_OVERLOAD_TYPES:
        if isinstance(b, CELEvalError):
            return b
        if type_name(b) != name or getattr(b, "pointer", False):  # (dra/cel.py Quantity)
            return CELEvalError("no such overload", TypeError, None)
        return ct.BoolType(a == b)
    if isinstance(a, list | tuple):
        if not isinstance(b, list | tuple) or len(a) != len(b):
            return ct.BoolType(False)
        return ct.BoolType(all(not _is_false(equals(x, y)) for x, y in zip(a, b, strict=True)))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return ct.BoolType(False)
        for k, v in a.items():
            found, other = find_key(b, k)
            if not found or _is_false(equals(v, other)):
                return ct.BoolType(False)
        return ct.BoolType(True)
    if name == "optional_type":
        if type_name(b) != name:
            return ct.BoolType(False)
        if not a.present or not b.present:
            return ct.BoolType(a.present == b.present)
        return equals(a.value, b.value)
    if name == "type":
        return ct.BoolType(isinstance(b, type) and type_value_name(a) == type_value_name(b))
    if _number(a):
        return ct.BoolType(_number(b) and _numbers_equal(a, b))
    return ct.BoolType(type_name(b) == name and bool(a == b))


def is_true(v: Any) -> bool:
    """Whether a result of :func:`equals` is ``True`` (an error is not)."""
    return isinstance(v, bool | ct.BoolType) and bool(v)


def find_key(m: dict[Any, Any], key: Any) -> tuple[bool, Any]:
    """``baseMap.Find``: the key, or a number of the same value of another numeric type."""
    name = type_name(key)
    for k, v in m.items():
        if _number(key) and _number(k) and _numbers_equal(k, key):
            return True, v
        if type_name(k) == name and k == key:
            return True, v
    return False, None


#: the runtime types a dynamic index may have (interpreter/attributes.go ``newQualifier``)
_QUALIFIER_TYPES = ("string", "int", "uint", "bool", "double")


def bad_qualifier(key: Any) -> str | None:
    """The error of indexing with ``key`` when no qualifier takes its type ("invalid qualifier
    type: cel.Semver"), else None."""
    if isinstance(key, CELEvalError) or type_name(key) in _QUALIFIER_TYPES:
        return None
    return f"invalid qualifier type: {go_type(key)}"


class NativeMap(ct.MapType):
    """A map of the device (a Go ``map[string]any``: a lookup of another key type hashes
    nothing), unlike a map CEL builds, whose Go map of ``ref.Val`` keys cannot hash a semver
    or bytes key (``hashable`` false)."""


def unhashable_lookup(container: Any, key: Any) -> bool:
    """Whether looking ``key`` up in ``container`` panics in cel-go (a map CEL built, a key of
    a Go type with slices: "runtime error: hash of unhashable type cel.Semver")."""
    return (
        isinstance(container, dict)
        and not isinstance(container, NativeMap)
        and type_name(key) in ("kubernetes.Semver", "bytes")
    )
