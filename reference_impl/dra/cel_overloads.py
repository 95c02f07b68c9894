"""The types and overloads of the CEL environment of DRA selectors (``dra/cel_checker.py``):
cel-go's kinds (``common/types``), the Kubernetes types of k8s.io/apiserver/pkg/cel, every
function of the NewExpressions environment of k8s.io/apiserver@v0.37.2 with its overloads
(``cel_decls.json``: IDs, type parameters, argument and result types, in declaration order, as
``upstream/celdecls`` prints them from the pinned release), and cel-go@v0.29.2's type
unification (``checker/types.go``: ``isAssignable``, substitution, the occurs check) and type
formatting (``checker/format.go`` ``FormatCELType``, ``Type.String``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

# --- types (cel-go common/types; the Kubernetes types of k8s.io/apiserver/pkg/cel) ---


@dataclass(frozen=True, slots=True)
class CelType:
    """A checked type: ``kind`` is a cel-go kind (``bool`` ... ``list``, ``map``, ``dyn``,
    ``any``, ``struct``, ``opaque``, ``type``) or ``param`` (a type parameter of an
    overload)."""

    kind: str
    params: tuple[CelType, ...] = ()
    name: str = ""


BOOL, INT, UINT, DOUBLE = CelType("bool"), CelType("int"), CelType("uint"), CelType("double")
STRING, BYTES, NULL = CelType("string"), CelType("bytes"), CelType("null")
DYN, ANY, TYPE = CelType("dyn"), CelType("any"), CelType("type")
ERROR = CelType("error")
TIMESTAMP, DURATION = CelType("timestamp"), CelType("duration")
QUANTITY = CelType("struct", name="kubernetes.Quantity")
SEMVER = CelType("struct", name="kubernetes.Semver")
URL = CelType("struct", name="kubernetes.URL")
IP = CelType("opaque", name="net.IP")
CIDR = CelType("opaque", name="net.CIDR")
DEVICE = CelType("struct", name="kubernetes.DRADevice")


def list_of(t: CelType) -> CelType:
    return CelType("list", (t,))


def map_of(k: CelType, v: CelType) -> CelType:
    return CelType("map", (k, v))


def optional_of(t: CelType) -> CelType:
    return CelType("opaque", (t,), "optional_type")


def unwrap_optional(t: CelType) -> tuple[CelType, bool]:
    """``maybeUnwrapOptional``."""
    return (t.params[0], True) if t.name == "optional_type" and t.params else (t, False)


def is_dyn(t: CelType) -> bool:
    return t.kind in ("dyn", "any")


def is_scalar(t: CelType) -> bool:
    """``isScalar``: types of a constant size (strings are not), an optional of one too."""
    if t.name == "optional_type" and t.params:
        return is_scalar(t.params[0])
    return t.kind in ("bool", "double", "duration", "int", "timestamp", "uint")


ATTRIBUTE_TYPE = ANY  # compile.go: withMaxElements(apiservercel.AnyType, ...)
DEVICE_FIELDS = {
    "driver": STRING,
    "allowMultipleAllocations": BOOL,
    "attributes": map_of(STRING, map_of(STRING, ATTRIBUTE_TYPE)),
    "capacity": map_of(STRING, map_of(STRING, QUANTITY)),
}

# --- overloads: the functions of the environment as cel-go's checker reads them
# (``decls.OverloadDecl``), generated from upstream by ``upstream/celdecls`` ---


@dataclass(frozen=True, slots=True)
class Sig:
    id: str
    params: tuple[CelType, ...]  # a member function's target first
    result: CelType
    member: bool = False
    type_params: tuple[str, ...] = ()


def _decl_type(j: list) -> CelType:
    kind, name, params = j
    ps = tuple(_decl_type(p) for p in params)
    return CelType(kind, ps, name if kind in ("struct", "opaque", "param") else "")


def _sigs() -> dict[str, list[Sig]]:
    """``cel_decls.json``: every function of the NewExpressions environment with its
    overloads in declaration order (the order ``resolveOverload`` tries them)."""
    data = json.loads((Path(__file__).parent / "cel_decls.json").read_text())
    return {
        name: [
            Sig(oid, tuple(_decl_type(a) for a in args), _decl_type(res), member, tuple(tps))
            for oid, member, tps, args, res in overloads
        ]
        for name, overloads in data
    }


SIGS = _sigs()
#: functions in a namespace (``sets.contains``): ``ns.f(x)`` is a call of ``ns.f``
#: (``checkCall``: the target as a qualified name prefix first)
NAMESPACED = frozenset(n for n in SIGS if "." in n and "@" not in n)

# --- type unification (cel-go checker/types.go, mapping.go) ---

Mapping = dict[str, CelType]


def _find(m: Mapping, t: CelType) -> CelType | None:
    return m.get(t.name) if t.kind == "param" else None


def is_dyn_or_error(t: CelType) -> bool:
    return is_dyn(t) or t.kind == "error"


def _less_specific(t1: CelType, t2: CelType) -> bool:
    """``isEqualOrLessSpecific``."""
    if is_dyn(t1) or t1.kind == "param":
        return True
    if is_dyn(t2) or t2.kind == "param" or t1.kind != t2.kind:
        return False
    if t1.kind == "opaque":
        return (t1.name, len(t1.params)) == (t2.name, len(t2.params)) and all(
            _less_specific(p, q) for p, q in zip(t1.params, t2.params, strict=True)
        )
    if t1.kind in ("list", "map"):
        return all(_less_specific(p, q) for p, q in zip(t1.params, t2.params, strict=True))
    if t1.kind == "type":
        return True
    return t1 == t2


def most_general(t1: CelType, t2: CelType) -> CelType:
    return t1 if _less_specific(t1, t2) else t2


def _type_assignable(to: CelType, frm: CelType) -> bool:
    """``Type.IsAssignableType`` (``defaultIsAssignableType``)."""
    if to == frm or to.kind in ("dyn", "any", "param"):
        return True
    if (to.kind, to.name, len(to.params)) != (frm.kind, frm.name, len(frm.params)):
        return False
    return all(_type_assignable(p, q) for p, q in zip(to.params, frm.params, strict=True))


def _nullable(t: CelType) -> bool:
    """``internalIsAssignableNull``."""
    return t.kind in ("opaque", "struct", "any", "duration", "timestamp") or _type_assignable(
        t, NULL
    )


def _assignable(m: Mapping, t1: CelType, t2: CelType) -> bool:
    """``internalIsAssignable``: ``t1`` assignable to ``t2``, binding type parameters in
    ``m``."""
    if t2.kind == "param":
        valid, has_sub = _valid_substitution(m, t1, t2)
        if valid:
            return True
        if has_sub:
            return False
    if t1.kind == "param":
        return _valid_substitution(m, t2, t1)[0]
    if is_dyn_or_error(t1) or is_dyn_or_error(t2):
        return True
    if t1.kind == "null":
        return _nullable(t2)
    if t2.kind == "null":
        return _nullable(t1)
    if t1.kind == "type":
        return t2.kind == "type"
    if t1.kind in ("opaque", "list", "map"):
        return (t1.kind, t1.name) == (t2.kind, t2.name) and assignable_list(m, t1.params, t2.params)
    return _type_assignable(t2, t1)


def _valid_substitution(m: Mapping, t1: CelType, t2: CelType) -> tuple[bool, bool]:
    """``isValidTypeSubstitution``: (valid, whether ``t2`` has a substitution)."""
    if t1 == t2:
        return True, True
    sub = _find(m, t2)
    if sub is not None:
        if t1 == sub:
            return True, True
        if _assignable(m, t1, sub):
            new = most_general(t1, sub)
            if _not_referenced_in(m, t2, new):
                m[t2.name] = new
            return True, True
        return False, True
    if _not_referenced_in(m, t2, t1):
        m[t2.name] = t1
        return True, False
    return False, False


def assignable_list(m: Mapping, l1: tuple[CelType, ...], l2: tuple[CelType, ...]) -> bool:
    return len(l1) == len(l2) and all(_assignable(m, a, b) for a, b in zip(l1, l2, strict=True))


def _not_referenced_in(m: Mapping, t: CelType, within: CelType) -> bool:
    """The occurs check."""
    if t == within:
        return False
    if within.kind == "param":
        sub = _find(m, within)
        return True if sub is None else _not_referenced_in(m, t, sub)
    return all(_not_referenced_in(m, t, p) for p in within.params)


def is_assignable(m: Mapping, t1: CelType, t2: CelType) -> Mapping | None:
    """``isAssignable``: the updated mapping, or None."""
    copy = dict(m)
    return copy if _assignable(copy, t1, t2) else None


def substitute(m: Mapping, t: CelType, to_dyn: bool) -> CelType:
    """``substitute``: bound type parameters replaced, unbound ones by ``dyn`` if ``to_dyn``."""
    sub = _find(m, t)
    if sub is not None:
        return substitute(m, sub, to_dyn)
    if to_dyn and t.kind == "param":
        return DYN
    if t.params:
        return CelType(t.kind, tuple(substitute(m, p, to_dyn) for p in t.params), t.name)
    return t


_TYPE_NAMES = {
    "any": "google.protobuf.Any",
    "null": "null_type",
    "duration": "google.protobuf.Duration",
    "timestamp": "google.protobuf.Timestamp",
    "error": "*error*",
}


def type_name(t: CelType) -> str:
    """``Type.TypeName``."""
    return t.name or _TYPE_NAMES.get(t.kind, t.kind)


def format_type(t: CelType) -> str:
    """checker/format.go ``FormatCELType``."""
    short = {"any": "any", "duration": "duration", "error": "!error!", "null": "null"}
    if t.kind in short or t.kind == "timestamp":
        return short.get(t.kind, "timestamp")
    if t.kind == "param" or not t.params:
        return type_name(t)
    return f"{type_name(t)}({', '.join(format_type(p) for p in t.params)})"


def type_string(t: CelType) -> str:
    """``Type.String`` (what compile.go's output type check prints)."""
    if t.kind == "param":
        return f"<{t.name}>"
    if not t.params:
        return type_name(t)
    return f"{type_name(t)}({', '.join(type_string(p) for p in t.params)})"
