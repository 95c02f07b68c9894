"""The types and overloads of the CEL environment of DRA selectors, as far as the cost
estimate reads them (``dra/cel_checker.py``): cel-go's kinds (``common/types``), the Kubernetes
types of k8s.io/apiserver/pkg/cel, and the overload IDs and result types of the standard
library, the ext and Kubernetes libraries and the optional library (``cel/library.go``) of the
NewExpressions environment of k8s.io/apiserver@v0.37.2 (``pkg/cel/environment/base.go``), with
the overload matching of ``checker/checker.go`` (``isAssignable``, type substitution).
"""

from __future__ import annotations

from dataclasses import dataclass

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
TIMESTAMP, DURATION = CelType("timestamp"), CelType("duration")
QUANTITY = CelType("struct", name="kubernetes.Quantity")
SEMVER = CelType("struct", name="kubernetes.Semver")
URL = CelType("struct", name="kubernetes.URL")
IP = CelType("opaque", name="net.IP")
CIDR = CelType("opaque", name="net.CIDR")
DEVICE = CelType("struct", name="kubernetes.DRADevice")
_A, _B = CelType("param", name="A"), CelType("param", name="B")


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

# --- overloads (cel-go checker/decls of the standard library, the ext and Kubernetes
# libraries of the base environment); only what the cost reads: the overload IDs and the
# result types ---


@dataclass(frozen=True, slots=True)
class Sig:
    id: str
    params: tuple[CelType, ...]  # a member function's target first
    result: CelType
    member: bool = False


def _sigs() -> dict[str, list[Sig]]:
    s: dict[str, list[Sig]] = {}

    def add(
        fn: str, oid: str, params: tuple[CelType, ...], result: CelType, member: bool = False
    ) -> None:
        s.setdefault(fn, []).append(Sig(oid, params, result, member))

    names = {
        "bool": BOOL,
        "int64": INT,
        "uint64": UINT,
        "double": DOUBLE,
        "string": STRING,
        "bytes": BYTES,
        "timestamp": TIMESTAMP,
        "duration": DURATION,
    }
    add("_==_", "equals", (_A, _A), BOOL)
    add("_!=_", "not_equals", (_A, _A), BOOL)
    for op, base in (
        ("_<_", "less"),
        ("_<=_", "less_equals"),
        ("_>_", "greater"),
        ("_>=_", "greater_equals"),
    ):
        for n, t in names.items():
            add(op, f"{base}_{n}", (t, t), BOOL)
        for a, b in (
            ("int64", "double"),
            ("int64", "uint64"),
            ("uint64", "double"),
            ("uint64", "int64"),
            ("double", "int64"),
            ("double", "uint64"),
        ):
            add(op, f"{base}_{a}_{b}", (names[a], names[b]), BOOL)
    add("@in", "in_list", (_A, list_of(_A)), BOOL)
    add("@in", "in_map", (_A, map_of(_A, _B)), BOOL)
    add("_[_]", "index_list", (list_of(_A), INT), _A)
    add("_[_]", "index_map", (map_of(_A, _B), _A), _B)
    # cel/library.go, the optional library (OptionalTypes); _?._ is checked as a select
    opt_a, opt_b = optional_of(_A), optional_of(_B)
    add("_[_]", "optional_list_index_int", (optional_of(list_of(_A)), INT), opt_a)
    add("_[_]", "optional_map_index_value", (optional_of(map_of(_A, _B)), _A), opt_b)
    add("_[?_]", "list_optindex_optional_int", (list_of(_A), INT), opt_a)
    add("_[?_]", "optional_list_optindex_optional_int", (optional_of(list_of(_A)), INT), opt_a)
    add("_[?_]", "map_optindex_optional_value", (map_of(_A, _B), _A), opt_b)
    add("_[?_]", "optional_map_optindex_optional_value", (optional_of(map_of(_A, _B)), _A), opt_b)
    add("optional.of", "optional_of", (_A,), opt_a)
    add("optional.ofNonZeroValue", "optional_ofNonZeroValue", (_A,), opt_a)
    add("optional.none", "optional_none", (), opt_a)
    add("value", "optional_value", (opt_a,), _A, member=True)
    add("hasValue", "optional_hasValue", (opt_a,), BOOL, member=True)
    add("or", "optional_or_optional", (opt_a, opt_a), opt_a, member=True)
    add("orValue", "optional_orValue_value", (opt_a, _A), _A, member=True)
    for n in ("int64", "uint64", "double", "string", "bytes"):
        add("_+_", f"add_{n}", (names[n], names[n]), names[n])
    add("_+_", "add_list", (list_of(_A), list_of(_A)), list_of(_A))
    add("_+_", "add_timestamp_duration", (TIMESTAMP, DURATION), TIMESTAMP)
    add("_+_", "add_duration_timestamp", (DURATION, TIMESTAMP), TIMESTAMP)
    add("_+_", "add_duration_duration", (DURATION, DURATION), DURATION)
    for n in ("int64", "uint64", "double"):
        for op, base in (("_-_", "subtract"), ("_*_", "multiply"), ("_/_", "divide")):
            add(op, f"{base}_{n}", (names[n], names[n]), names[n])
    add("_-_", "subtract_timestamp_timestamp", (TIMESTAMP, TIMESTAMP), DURATION)
    add("_-_", "subtract_timestamp_duration", (TIMESTAMP, DURATION), TIMESTAMP)
    add("_-_", "subtract_duration_duration", (DURATION, DURATION), DURATION)
    add("_%_", "modulo_int64", (INT, INT), INT)
    add("_%_", "modulo_uint64", (UINT, UINT), UINT)
    add("-_", "negate_int64", (INT,), INT)
    add("-_", "negate_double", (DOUBLE,), DOUBLE)
    add("!_", "logical_not", (BOOL,), BOOL)
    add("_&&_", "logical_and", (BOOL, BOOL), BOOL)
    add("_||_", "logical_or", (BOOL, BOOL), BOOL)
    add("_?_:_", "conditional", (BOOL, _A, _A), _A)
    add("@not_strictly_false", "not_strictly_false", (BOOL,), BOOL)
    for n, t in (
        ("string", STRING),
        ("bytes", BYTES),
        ("list", list_of(_A)),
        ("map", map_of(_A, _B)),
    ):
        add("size", f"size_{n}", (t,), INT)
        add("size", f"{n}_size", (t,), INT, member=True)
    add("contains", "contains_string", (STRING, STRING), BOOL, member=True)
    add("startsWith", "starts_with_string", (STRING, STRING), BOOL, member=True)
    add("endsWith", "ends_with_string", (STRING, STRING), BOOL, member=True)
    add("matches", "matches", (STRING, STRING), BOOL)
    add("matches", "matches_string", (STRING, STRING), BOOL, member=True)
    for fn, to, sources in (
        ("int", INT, ("int64", "uint64", "double", "string", "timestamp", "duration")),
        ("uint", UINT, ("uint64", "int64", "double", "string")),
        ("double", DOUBLE, ("double", "int64", "uint64", "string")),
        ("string", STRING, tuple(names)),
        ("bytes", BYTES, ("bytes", "string")),
        ("bool", BOOL, ("bool", "string")),
        ("timestamp", TIMESTAMP, ("timestamp", "string", "int64")),
        ("duration", DURATION, ("duration", "string")),
    ):
        target = {"int": "int64", "uint": "uint64"}.get(fn, fn)
        for src in sources:
            add(fn, f"{src}_to_{target}", (names[src],), to)
    add("dyn", "to_dyn", (_A,), DYN)
    add("type", "type", (_A,), TYPE)
    # ext.Strings (version 2) and the Kubernetes libraries
    add("charAt", "string_char_at_int", (STRING, INT), STRING, member=True)
    for fn in ("indexOf", "lastIndexOf"):
        add(fn, f"string_{fn}_string", (STRING, STRING), INT, member=True)
        add(fn, f"string_{fn}_string_int", (STRING, STRING, INT), INT, member=True)
        add(fn, f"list_{fn}", (list_of(_A), _A), INT, member=True)
    for fn in ("lowerAscii", "upperAscii", "trim"):
        add(fn, f"string_{fn}", (STRING,), STRING, member=True)
    add("replace", "string_replace_string_string", (STRING, STRING, STRING), STRING, True)
    add("replace", "string_replace_string_string_int", (STRING, STRING, STRING, INT), STRING, True)
    add("split", "string_split_string", (STRING, STRING), list_of(STRING), True)
    add("split", "string_split_string_int", (STRING, STRING, INT), list_of(STRING), True)
    add("substring", "string_substring_int", (STRING, INT), STRING, True)
    add("substring", "string_substring_int_int", (STRING, INT, INT), STRING, True)
    add("join", "list_join", (list_of(STRING),), STRING, True)
    add("join", "list_join_string", (list_of(STRING), STRING), STRING, True)
    add("format", "string_format", (STRING, list_of(DYN)), STRING, True)
    add("strings.quote", "strings_quote", (STRING,), STRING)
    add("quantity", "string_to_quantity", (STRING,), QUANTITY)
    add("isQuantity", "is_quantity_string", (STRING,), BOOL)
    add("semver", "string_to_semver", (STRING,), SEMVER)
    add("semver", "string_bool_to_semver", (STRING, BOOL), SEMVER)
    add("isSemver", "is_semver_string", (STRING,), BOOL)
    add("isSemver", "is_semver_string_bool", (STRING, BOOL), BOOL)
    for fn in ("major", "minor", "patch"):
        add(fn, f"semver_{fn}", (SEMVER,), INT, member=True)
    for t, n in ((QUANTITY, "quantity"), (SEMVER, "semver")):
        add("compareTo", f"{n}_compareTo", (t, t), INT, member=True)
        add("isGreaterThan", f"{n}_isGreaterThan", (t, t), BOOL, member=True)
        add("isLessThan", f"{n}_isLessThan", (t, t), BOOL, member=True)
    for fn in ("add", "sub"):
        add(fn, f"quantity_{fn}", (QUANTITY, QUANTITY), QUANTITY, member=True)
        add(fn, f"quantity_{fn}_int", (QUANTITY, INT), QUANTITY, member=True)
    add("sign", "quantity_sign", (QUANTITY,), INT, member=True)
    add("isInteger", "quantity_is_integer", (QUANTITY,), BOOL, member=True)
    add("asInteger", "quantity_get_int", (QUANTITY,), INT, member=True)
    add("asApproximateFloat", "quantity_get_float", (QUANTITY,), DOUBLE, member=True)
    add("find", "find", (STRING, STRING), STRING, member=True)
    add("findAll", "find_all", (STRING, STRING), list_of(STRING), member=True)
    add("findAll", "find_all_with_limit", (STRING, STRING, INT), list_of(STRING), True)
    add("isSorted", "list_is_sorted", (list_of(_A),), BOOL, member=True)
    for fn in ("sum", "min", "max"):
        add(fn, f"list_{fn}", (list_of(_A),), _A, member=True)
    add("includes", "dyn_includes", (DYN, DYN), BOOL, member=True)
    for fn in ("contains", "equivalent", "intersects"):
        add(f"sets.{fn}", f"list_sets_{fn}_list", (list_of(_A), list_of(_A)), BOOL)
    # ext.Lists (version 3); sortBy is a macro over @sortByAssociatedKeys (cel_checker.py)
    add("slice", "list_slice", (list_of(_A), INT, INT), list_of(_A), True)
    add("flatten", "list_flatten", (list_of(list_of(_A)),), list_of(_A), True)
    add("flatten", "list_flatten_int", (list_of(DYN), INT), list_of(DYN), True)
    add("lists.range", "lists_range", (INT,), list_of(INT))
    add("reverse", "list_reverse", (list_of(_A),), list_of(_A), True)
    add("distinct", "list_distinct", (list_of(_A),), list_of(_A), True)
    for n in ("bool", "int64", "uint64", "double", "string", "bytes", "timestamp", "duration"):
        add("sort", f"list_{n}_sort", (list_of(names[n]),), list_of(names[n]), True)
        keys = (list_of(_A), list_of(names[n]))
        add("@sortByAssociatedKeys", f"list_{n}_sortByAssociatedKeys", keys, list_of(_A), True)
    add("url", "string_to_url", (STRING,), URL)
    add("isURL", "is_url_string", (STRING,), BOOL)
    for fn in ("getScheme", "getHostname", "getHost", "getPort", "getEscapedPath"):
        add(fn, f"url_{fn}", (URL,), STRING, member=True)
    add("getQuery", "url_get_query", (URL,), map_of(STRING, list_of(STRING)), member=True)
    add("ip", "string_to_ip", (STRING,), IP)
    # ext/comprehensions.go (no estimator: the default call cost)
    add("cel.@mapInsert", "@mapInsert_map_key_value", (map_of(_A, _B), _A, _B), map_of(_A, _B))
    add("cel.@mapInsert", "@mapInsert_map_map", (map_of(_A, _B), map_of(_A, _B)), map_of(_A, _B))
    add("ip.isCanonical", "ip_is_canonical", (STRING,), BOOL)
    add("ip", "cidr_ip", (CIDR,), IP, member=True)
    add("cidr", "string_to_cidr", (STRING,), CIDR)
    add("isIP", "is_ip", (STRING,), BOOL)
    add("isCIDR", "is_cidr", (STRING,), BOOL)
    add("containsIP", "cidr_contains_ip_string", (CIDR, STRING), BOOL, member=True)
    add("containsIP", "cidr_contains_ip_ip", (CIDR, IP), BOOL, member=True)
    add("containsCIDR", "cidr_contains_cidr_string", (CIDR, STRING), BOOL, member=True)
    add("containsCIDR", "cidr_contains_cidr", (CIDR, CIDR), BOOL, member=True)
    return s


SIGS = _sigs()


def match(param: CelType, arg: CelType, binds: dict[str, CelType]) -> bool:
    """Whether ``arg`` may be passed as ``param`` (cel-go's assignability, with ``dyn`` and
    ``google.protobuf.Any`` matching anything); type parameters are bound in ``binds``."""
    if param.kind == "param":
        bound = binds.get(param.name)
        if bound is None or is_dyn(bound):
            binds[param.name] = arg
            return True
        return _compatible(bound, arg)
    if param.kind == "dyn" or is_dyn(arg):
        return True
    if param.kind != arg.kind or param.name != arg.name:
        return False
    return all(match(p, a, binds) for p, a in zip(param.params, arg.params, strict=True))


def _compatible(a: CelType, b: CelType) -> bool:
    """The same type where neither is ``dyn`` (``optional(int)`` and ``optional(dyn)`` agree)."""
    if is_dyn(a) or is_dyn(b):
        return True
    return (a.kind, a.name, len(a.params)) == (b.kind, b.name, len(b.params)) and all(
        _compatible(p, q) for p, q in zip(a.params, b.params, strict=True)
    )


def subst(t: CelType, binds: dict[str, CelType]) -> CelType:
    if t.kind == "param":
        return binds.get(t.name, DYN)
    if t.params:
        return CelType(t.kind, tuple(subst(p, binds) for p in t.params), t.name)
    return t
