"""The expression tree of a DRA selector as cel-go's parser and checker give it, for the cost
estimate (``dra/cel_cost.py``).

cel-python has no type checker: :func:`parse` converts celpy's parse tree to cel-go's AST
(``parser/parser.go``; macros expanded as ``parser/macro.go``, ``ext/comprehensions.go`` and
``ext/bindings.go`` do) and infers what the cost needs: each node's type and each call's
candidate overloads (``checker/checker.go``: with a ``dyn`` argument every overload it may
reach is a candidate). The overloads are those of the standard library and of the ext and
Kubernetes libraries of the NewExpressions environment of k8s.io/apiserver@v0.37.2
(``pkg/cel/environment/base.go``). ``Estimate`` is cel-go's ``CostEstimate``/``SizeEstimate``
(``checker/cost.go``), the constants are ``common/cost.go``'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import lark
from celpy.celparser import CELParseError
from celpy.evaluation import celbytes, celstr

from reference_impl.dra.cel import _COMPILE_LOCK, _ENV, CELCompileError

U64 = (1 << 64) - 1
# cel-go common/cost.go
SELECT_AND_IDENT_COST = 1
LIST_CREATE_BASE_COST = 10
MAP_CREATE_BASE_COST = 30
STRUCT_CREATE_BASE_COST = 40
STRING_TRAVERSAL = 0.1
REGEX_STRING_LENGTH = 0.25
_ACCU = "@result"  # parser.HiddenAccumulatorName
ACCUMULATORS = ("__result__", _ACCU)


def sat_add(x: int, y: int) -> int:
    """``addUint64NoOverflow``."""
    return min(x + y, U64)


def sat_mul(x: int, y: int) -> int:
    """``multiplyUint64NoOverflow``."""
    return min(x * y, U64)


def _by_factor(x: int, y: float) -> int:
    """``multiplyByCostFactor``: the float product rounded up, capped."""
    xf = float(x)
    if xf > 0 and y > 0 and xf > float(U64) / y:
        return U64
    c = math.ceil(xf * y)
    return U64 if c >= 1 << 64 else int(c)


@dataclass(frozen=True, slots=True)
class Estimate:
    """cel-go's ``CostEstimate`` and ``SizeEstimate`` (the same arithmetic): a min/max range
    whose sums and products saturate at the largest uint64."""

    min: int
    max: int

    def add(self, o: Estimate) -> Estimate:
        return Estimate(sat_add(self.min, o.min), sat_add(self.max, o.max))

    def multiply(self, o: Estimate) -> Estimate:
        return Estimate(sat_mul(self.min, o.min), sat_mul(self.max, o.max))

    def factor(self, f: float) -> Estimate:
        """``MultiplyByCostFactor``."""
        return Estimate(_by_factor(self.min, f), _by_factor(self.max, f))

    def union(self, o: Estimate) -> Estimate:
        return Estimate(min(self.min, o.min), max(self.max, o.max))


def fixed(n: int) -> Estimate:
    return Estimate(n, n)


UNKNOWN = Estimate(0, U64)
ZERO = fixed(0)
ONE = fixed(1)


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


def is_dyn(t: CelType) -> bool:
    return t.kind in ("dyn", "any")


def is_scalar(t: CelType) -> bool:
    """``isScalar``: types of a constant size (strings are not)."""
    return t.kind in ("bool", "double", "duration", "int", "timestamp", "uint")


_ATTRIBUTE_TYPE = ANY  # compile.go: withMaxElements(apiservercel.AnyType, ...)
_DEVICE_FIELDS = {
    "driver": STRING,
    "allowMultipleAllocations": BOOL,
    "attributes": map_of(STRING, map_of(STRING, _ATTRIBUTE_TYPE)),
    "capacity": map_of(STRING, map_of(STRING, QUANTITY)),
}


@dataclass(frozen=True, slots=True)
class EntrySize:
    """``entrySizeEstimate``: the container kind and the sizes of its keys and values."""

    container: str
    key: Estimate
    val: Estimate

    def union(self, other: EntrySize | None) -> EntrySize | None:
        if other is None:
            return None
        return EntrySize(self.container, self.key.union(other.key), self.val.union(other.val))


@dataclass(eq=False)
class GoPath:
    """A field path as cel-go's coster keeps it: a Go ``[]string``. ``checker/cost.go``
    appends to the paths ``getPath`` hands out, and Go's ``append`` writes into the shared
    backing array while it has room: ``pushIterKey`` and ``pushIterValue`` extend the same
    range path, so with a spare slot the key's path ends in the value's ``@values``
    (``device.attributes["d"].all(k, v, ...)``: ``k`` sized as an attribute, 64, not an ID,
    32; under ``device.capacity["d"]`` as a quantity, 0). Measured on the upstream
    estimator; ``append`` grows the array as ``growslice`` does below 256 elements."""

    backing: list[str]
    length: int

    def items(self) -> list[str]:
        return self.backing[: self.length]

    def append(self, name: str) -> GoPath:
        if self.length < len(self.backing):
            self.backing[self.length] = name
            return GoPath(self.backing, self.length + 1)
        cap = max(self.length + 1, 2 * len(self.backing))
        grown = self.backing[: self.length] + [name] + [""] * (cap - self.length - 1)
        return GoPath(grown, self.length + 1)


def go_append(path: GoPath | None, name: str) -> GoPath:
    """``append(path, name)``; a nil path gets a new array of one."""
    return GoPath([name], 1) if path is None else path.append(name)


# --- the expression tree (cel-go's ast after macro expansion) ---


@dataclass(eq=False)
class Expr:
    """One node: ``lit``, ``ident``, ``select``, ``call``, ``list``, ``map``, ``struct`` or
    ``comp`` (a comprehension; ``macro`` names what it expands)."""

    kind: str
    name: str = ""  # ident, selected field, function
    lit_type: CelType | None = None
    lit_size: int | None = None
    lit_int: int | None = None
    target: Expr | None = None  # select operand, member call target
    test_only: bool = False
    args: list[Expr] = field(default_factory=list)  # call args, list elements
    entries: list[tuple[Expr, Expr]] = field(default_factory=list)  # map literal
    iter_range: Expr | None = None
    iter_var: str = ""
    iter_var2: str = ""
    accu_var: str = ""
    accu_init: Expr | None = None
    cond: Expr | None = None
    step: Expr | None = None
    result: Expr | None = None
    macro: str = ""
    map_fn: Expr | None = None
    # the checker's
    type: CelType = DYN
    overloads: list[tuple[str, CelType]] = field(default_factory=list)
    # the coster's
    path: GoPath | None = None
    size: Estimate | None = None
    entry: EntrySize | None = None


def _lit(t: CelType, size: int | None, value: int | None = None) -> Expr:
    return Expr("lit", lit_type=t, lit_size=size, lit_int=value)


def _call(fn: str, *args: Expr, target: Expr | None = None) -> Expr:
    return Expr("call", name=fn, target=target, args=list(args))


def _ident(name: str) -> Expr:
    return Expr("ident", name=name)


_BINARY = {
    "relation_lt": "_<_",
    "relation_le": "_<=_",
    "relation_gt": "_>_",
    "relation_ge": "_>=_",
    "relation_eq": "_==_",
    "relation_ne": "_!=_",
    "relation_in": "@in",
    "addition_add": "_+_",
    "addition_sub": "_-_",
    "multiplication_mul": "_*_",
    "multiplication_div": "_/_",
    "multiplication_mod": "_%_",
}
#: functions in a namespace, which celpy parses as a member call on an identifier
_NAMESPACED = {
    "sets.contains",
    "sets.equivalent",
    "sets.intersects",
    "strings.quote",
    "lists.range",
    "math.greatest",
    "math.least",
    "ip.isCanonical",
}


def _kids(tree: lark.Tree) -> list:
    return [c for c in tree.children if c is not None]


def _convert(tree: lark.Tree | lark.Token) -> Expr:
    """celpy's parse tree -> :class:`Expr`, expanding macros as cel-go's parser does."""
    if isinstance(tree, lark.Token):
        raise CELCompileError(f"unexpected token {tree!r}")
    kids = _kids(tree)
    rule = tree.data
    if rule == "expr":
        if len(kids) == 3:
            return _call("_?_:_", *(_convert(k) for k in kids))
        return _convert(kids[0])
    if rule in ("conditionalor", "conditionaland"):
        if len(kids) == 2:
            fn = "_||_" if rule == "conditionalor" else "_&&_"
            return _call(fn, _convert(kids[0]), _convert(kids[1]))
        return _convert(kids[0])
    if rule in ("relation", "addition", "multiplication"):
        if len(kids) == 2:
            op = kids[0]
            return _call(_BINARY[op.data], _convert(_kids(op)[0]), _convert(kids[1]))
        return _convert(kids[0])
    if rule == "unary":
        if len(kids) == 1:
            return _convert(kids[0])
        # parser.go VisitLogicalNot / VisitNegate: an even count of the same operator is
        # no call, an odd count is one
        op = kids[0].data
        count, node = 0, tree
        while (
            isinstance(node, lark.Tree)
            and node.data == "unary"
            and len(_kids(node)) == 2
            and _kids(node)[0].data == op
        ):
            count += 1
            node = _kids(node)[1]
        inner = _convert(node)
        if count % 2 == 0:
            return inner
        return _call("!_" if op == "unary_not" else "-_", inner)
    if rule in ("member", "primary"):
        return _convert(kids[0])
    if rule == "paren_expr":
        return _convert(kids[0])
    if rule == "member_dot":
        return Expr("select", name=str(kids[1]), target=_convert(kids[0]))
    if rule == "member_dot_arg":
        arg_trees = _exprlist(kids[2] if len(kids) > 2 else None)
        return _member_call(kids[0], str(kids[1]), arg_trees)
    if rule == "member_index":
        return _call("_[_]", _convert(kids[0]), _convert(kids[1]))
    if rule == "member_object":
        fields = _kids(kids[1]) if len(kids) > 1 else []
        values = [_convert(v) for v in fields[1::2]]
        return Expr("struct", name="", args=values)
    if rule in ("ident_arg", "dot_ident_arg"):
        name = str(kids[0])
        args = [_convert(a) for a in (_kids(kids[1]) if len(kids) > 1 else [])]
        if name == "has" and rule == "ident_arg" and len(args) == 1 and args[0].kind == "select":
            sel = args[0]
            return Expr("select", name=sel.name, target=sel.target, test_only=True)
        return _call(name, *args)
    if rule in ("ident", "dot_ident"):
        return _ident(str(kids[0]))
    if rule == "list_lit":
        return Expr("list", args=[_convert(a) for a in (_kids(kids[0]) if kids else [])])
    if rule == "map_lit":
        items = [_convert(a) for a in (_kids(kids[0]) if kids else [])]
        return Expr("map", entries=list(zip(items[0::2], items[1::2], strict=True)))
    if rule == "literal":
        return _literal(kids[0])
    raise CELCompileError(f"unsupported syntax {rule!r}")


def _exprlist(node: lark.Tree | None) -> list[lark.Tree]:
    return [] if node is None else _kids(node)


def _literal(token: lark.Token) -> Expr:
    kind = token.type
    if kind in ("STRING_LIT", "MLSTRING_LIT"):
        return _lit(STRING, len(str(celstr(token))))
    if kind == "BYTES_LIT":
        return _lit(BYTES, len(bytes(celbytes(token))))
    if kind == "INT_LIT":
        return _lit(INT, 1, int(str(token), 0))
    if kind == "UINT_LIT":
        return _lit(UINT, 1, int(str(token)[:-1], 0))
    if kind == "FLOAT_LIT":
        return _lit(DOUBLE, 1)
    if kind == "BOOL_LIT":
        return _lit(BOOL, 1)
    return _lit(NULL, 1)


def _simple_name(tree: lark.Tree) -> str | None:
    """The identifier an argument is, if it is one (``extractIdent``)."""
    node: lark.Tree | lark.Token = tree
    while isinstance(node, lark.Tree) and len(_kids(node)) == 1:
        node = _kids(node)[0]
    if isinstance(node, lark.Tree) and node.data == "ident":
        node = _kids(node)[0]
    return str(node) if isinstance(node, lark.Token) and node.type == "IDENT" else None


_QUANTIFIERS = ("all", "exists", "exists_one", "existsOne")


def _member_call(target_tree: lark.Tree, name: str, arg_trees: list[lark.Tree]) -> Expr:
    """A member call, or the macro it is (parser/macro.go, ext/comprehensions.go,
    ext/bindings.go)."""
    first = _simple_name(arg_trees[0]) if arg_trees else None
    target_name = _simple_name(target_tree)
    if target_name == "cel" and name == "bind" and len(arg_trees) == 3 and first:
        init = _convert(arg_trees[1])
        return Expr(
            "comp",
            iter_range=Expr("list"),
            iter_var="#unused",
            accu_var=first,
            accu_init=init,
            cond=_lit(BOOL, 1),
            step=_ident(first),
            result=_convert(arg_trees[2]),
            macro="bind",
        )
    if target_name is not None and f"{target_name}.{name}" in _NAMESPACED:
        return _call(f"{target_name}.{name}", *(_convert(a) for a in arg_trees))
    target = _convert(target_tree)
    if first is not None:
        second = _simple_name(arg_trees[1]) if len(arg_trees) > 1 else None
        if name in _QUANTIFIERS and len(arg_trees) == 2 and name != "existsOne":
            return _quantifier(name, target, first, "", _convert(arg_trees[1]))
        if name in _QUANTIFIERS and len(arg_trees) == 3 and second is not None:
            return _quantifier(name, target, first, second, _convert(arg_trees[2]))
        if name == "map" and len(arg_trees) in (2, 3):
            fn = _convert(arg_trees[-1])
            step = _call("_+_", _ident(_ACCU), Expr("list", args=[fn]))
            if len(arg_trees) == 3:
                step = _call("_?_:_", _convert(arg_trees[1]), step, _ident(_ACCU))
            return Expr(
                "comp",
                iter_range=target,
                iter_var=first,
                accu_var=_ACCU,
                accu_init=Expr("list"),
                cond=_lit(BOOL, 1),
                step=step,
                result=_ident(_ACCU),
                macro="map",
                map_fn=fn,
            )
        if name == "filter" and len(arg_trees) == 2:
            step = _call(
                "_?_:_",
                _convert(arg_trees[1]),
                _call("_+_", _ident(_ACCU), Expr("list", args=[_ident(first)])),
                _ident(_ACCU),
            )
            return Expr(
                "comp",
                iter_range=target,
                iter_var=first,
                accu_var=_ACCU,
                accu_init=Expr("list"),
                cond=_lit(BOOL, 1),
                step=step,
                result=_ident(_ACCU),
                macro="filter",
            )
        if name in _TRANSFORMS and len(arg_trees) in (3, 4) and second is not None:
            return _transform(name, target, first, second, [_convert(a) for a in arg_trees[2:]])
    return _call(name, *(_convert(a) for a in arg_trees), target=target)


_TRANSFORMS = ("transformList", "transformMap", "transformMapEntry")


def _transform(name: str, target: Expr, var: str, var2: str, rest: list[Expr]) -> Expr:
    """ext/comprehensions.go ``transformList``, ``transformMap``, ``transformMapEntry``: the
    accumulator plus ``[transform]``, or ``cel.@mapInsert`` of it, under the filter if any."""
    fn = rest[-1]
    if name == "transformList":
        step = _call("_+_", _ident(_ACCU), Expr("list", args=[fn]))
    elif name == "transformMap":
        step = _call("cel.@mapInsert", _ident(_ACCU), _ident(var), fn)
    else:
        step = _call("cel.@mapInsert", _ident(_ACCU), fn)
    if len(rest) == 2:
        step = _call("_?_:_", rest[0], step, _ident(_ACCU))
    return Expr(
        "comp",
        iter_range=target,
        iter_var=var,
        iter_var2=var2,
        accu_var=_ACCU,
        accu_init=Expr("list" if name == "transformList" else "map"),
        cond=_lit(BOOL, 1),
        step=step,
        result=_ident(_ACCU),
        macro=name,
        map_fn=fn,
    )


def _quantifier(name: str, target: Expr, var: str, var2: str, pred: Expr) -> Expr:
    """``makeQuantifier`` (and ext/comprehensions.go's two-variable forms)."""
    accu = _ident(_ACCU)
    if name == "all":
        init, cond, step = (
            _lit(BOOL, 1),
            _call("@not_strictly_false", accu),
            _call("_&&_", _ident(_ACCU), pred),
        )
        result = _ident(_ACCU)
    elif name == "exists":
        init = _lit(BOOL, 1)
        cond = _call("@not_strictly_false", _call("!_", accu))
        step = _call("_||_", _ident(_ACCU), pred)
        result = _ident(_ACCU)
    else:
        init, cond = _lit(INT, 1, 0), _lit(BOOL, 1)
        step = _call("_?_:_", pred, _call("_+_", _ident(_ACCU), _lit(INT, 1, 1)), _ident(_ACCU))
        result = _call("_==_", _ident(_ACCU), _lit(INT, 1, 1))
    return Expr(
        "comp",
        iter_range=target,
        iter_var=var,
        iter_var2=var2,
        accu_var=_ACCU,
        accu_init=init,
        cond=cond,
        step=step,
        result=result,
        macro=name,
    )


# --- overloads (cel-go checker/decls of the standard library, the ext and Kubernetes
# libraries of the base environment); only what the cost reads: the overload IDs and the
# result types ---


@dataclass(frozen=True, slots=True)
class _Sig:
    id: str
    params: tuple[CelType, ...]  # a member function's target first
    result: CelType
    member: bool = False


def _sigs() -> dict[str, list[_Sig]]:
    s: dict[str, list[_Sig]] = {}

    def add(
        fn: str, oid: str, params: tuple[CelType, ...], result: CelType, member: bool = False
    ) -> None:
        s.setdefault(fn, []).append(_Sig(oid, params, result, member))

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
    # ext.Lists (version 3); sortBy, a macro, is not restated
    add("slice", "list_slice", (list_of(_A), INT, INT), list_of(_A), True)
    add("flatten", "list_flatten", (list_of(list_of(_A)),), list_of(_A), True)
    add("flatten", "list_flatten_int", (list_of(DYN), INT), list_of(DYN), True)
    add("lists.range", "lists_range", (INT,), list_of(INT))
    add("reverse", "list_reverse", (list_of(_A),), list_of(_A), True)
    add("distinct", "list_distinct", (list_of(_A),), list_of(_A), True)
    for n in ("bool", "int64", "uint64", "double", "string", "bytes", "timestamp", "duration"):
        add("sort", f"list_{n}_sort", (list_of(names[n]),), list_of(names[n]), True)
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


_SIGS = _sigs()


def _match(param: CelType, arg: CelType, binds: dict[str, CelType]) -> bool:
    """Whether ``arg`` may be passed as ``param`` (cel-go's assignability, with ``dyn`` and
    ``google.protobuf.Any`` matching anything); type parameters are bound in ``binds``."""
    if param.kind == "param":
        bound = binds.get(param.name)
        if bound is None or is_dyn(bound):
            binds[param.name] = arg
            return True
        return is_dyn(arg) or bound == arg
    if param.kind == "dyn" or is_dyn(arg):
        return True
    if param.kind != arg.kind or param.name != arg.name:
        return False
    return all(_match(p, a, binds) for p, a in zip(param.params, arg.params, strict=True))


def _subst(t: CelType, binds: dict[str, CelType]) -> CelType:
    if t.kind == "param":
        return binds.get(t.name, DYN)
    if t.params:
        return CelType(t.kind, tuple(_subst(p, binds) for p in t.params), t.name)
    return t


def _resolve(e: Expr) -> None:
    """``resolveOverload``: the candidate overloads of a call and its result type (the
    candidates' common result, else ``dyn``)."""
    arg_types = ([e.target.type] if e.target is not None else []) + [a.type for a in e.args]
    out: list[tuple[str, CelType]] = []
    for sig in _SIGS.get(e.name, ()):
        if sig.member != (e.target is not None) or len(sig.params) != len(arg_types):
            continue
        binds: dict[str, CelType] = {}
        if all(_match(p, a, binds) for p, a in zip(sig.params, arg_types, strict=True)):
            out.append((sig.id, _subst(sig.result, binds)))
    e.overloads = out
    result: CelType | None = None
    for _, t in out:
        result = t if result is None else (result if result == t or is_dyn(result) else DYN)
    e.type = result or DYN


_TYPE_NAMES = (
    "bool",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "list",
    "map",
    "type",
    "null_type",
    "dyn",
)


def _check(e: Expr, scope: dict[str, CelType]) -> None:
    """The types the cost needs (cel-go checker/checker.go, as far as the cost reads them:
    node types and candidate overloads; no type errors)."""
    if e.kind == "lit":
        assert e.lit_type is not None
        e.type = e.lit_type
    elif e.kind == "ident":
        if e.name in scope:
            e.type = scope[e.name]
        elif e.name == "device":
            e.type = DEVICE
        else:
            e.type = TYPE if e.name in _TYPE_NAMES else DYN
    elif e.kind == "select":
        assert e.target is not None
        _check(e.target, scope)
        t = e.target.type
        if e.test_only:
            e.type = BOOL
        elif t == DEVICE:
            e.type = _DEVICE_FIELDS.get(e.name, DYN)
        elif t.kind == "map":
            e.type = t.params[1]
        else:
            e.type = DYN
    elif e.kind == "call":
        if e.target is not None:
            _check(e.target, scope)
        for a in e.args:
            _check(a, scope)
        _resolve(e)
    elif e.kind == "list":
        for a in e.args:
            _check(a, scope)
        e.type = list_of(_join([a.type for a in e.args]))
    elif e.kind == "map":
        for k, v in e.entries:
            _check(k, scope)
            _check(v, scope)
        e.type = map_of(
            _join([k.type for k, _ in e.entries]), _join([v.type for _, v in e.entries])
        )
    elif e.kind == "struct":
        for a in e.args:
            _check(a, scope)
        e.type = CelType("struct", name="message")
    else:
        _check_comprehension(e, scope)


def _join(types: list[CelType]) -> CelType:
    if types and all(t == types[0] for t in types):
        return types[0]
    return DYN


def _check_comprehension(e: Expr, scope: dict[str, CelType]) -> None:
    assert e.iter_range and e.accu_init and e.cond and e.step and e.result
    _check(e.iter_range, scope)
    _check(e.accu_init, scope)
    rt = e.iter_range.type
    inner = dict(scope)
    if rt.kind == "list":
        first, second = (INT, rt.params[0]) if e.iter_var2 else (rt.params[0], DYN)
    elif rt.kind == "map":
        first, second = rt.params
    else:
        first = second = DYN
    inner[e.iter_var] = first
    if e.iter_var2:
        inner[e.iter_var2] = second
    accu = e.accu_init.type
    if e.macro == "map" and e.map_fn is not None:
        _check(e.map_fn, inner)
        accu = list_of(e.map_fn.type)
    elif e.macro == "filter":
        accu = list_of(first)
    elif e.macro in _TRANSFORMS and e.map_fn is not None:
        _check(e.map_fn, inner)
        t = e.map_fn.type
        accu = {"transformList": list_of(t), "transformMap": map_of(first, t)}.get(
            e.macro, t if t.kind == "map" else map_of(DYN, DYN)
        )
    inner[e.accu_var] = accu
    _check(e.cond, inner)
    _check(e.step, inner)
    result_scope = dict(scope)
    result_scope[e.accu_var] = accu
    _check(e.result, result_scope)
    e.type = e.result.type


# --- the entry point ---


def parse(expression: str) -> Expr:
    """The expression as cel-go's parser gives it (macros expanded), type-checked as far as
    the cost needs; raises :class:`CELCompileError` on a syntax error."""
    try:
        with _COMPILE_LOCK:
            tree = _ENV.compile(expression)
    except CELParseError as e:
        raise CELCompileError(
            f"compilation failed: ERROR: <input>: Syntax error: {str(e).strip()}"
        ) from None
    root = _convert(tree)
    _check(root, {})
    return root
