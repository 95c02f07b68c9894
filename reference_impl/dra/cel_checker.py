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
from celpy.evaluation import celbytes, celstr

from reference_impl.dra.cel import CELCompileError, parse_tree
from reference_impl.dra.cel_overloads import (
    BOOL,
    BYTES,
    DEVICE,
    DEVICE_FIELDS,
    DOUBLE,
    DYN,
    INT,
    NULL,
    SIGS,
    STRING,
    TYPE,
    UINT,
    CelType,
    is_dyn,
    list_of,
    map_of,
    match,
    optional_of,
    subst,
    unwrap_optional,
)

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
    opt_field: str = ""  # the field of an optional select, _?._
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


def _call(fn: str, *args: Expr, target: Expr | None = None, opt_field: str = "") -> Expr:
    return Expr("call", name=fn, target=target, args=list(args), opt_field=opt_field)


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
    "optional.of",
    "optional.ofNonZeroValue",
    "optional.none",
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
    if rule == "member_dot_opt":  # parser.go: a.?b is the call _?._(a, "b")
        return _call(
            "_?._", _convert(kids[0]), _lit(STRING, len(str(kids[1]))), opt_field=str(kids[1])
        )
    if rule == "member_index_opt":
        return _call("_[?_]", _convert(kids[0]), _convert(kids[1]))
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


def _map_comp(range_: Expr, var: str, fn: Expr, pred: Expr | None, macro: str = "map") -> Expr:
    """parser/macro.go ``MakeMap`` (``MakeFilter``: ``fn`` the element): ``@result + [fn]``
    per element (where ``pred``)."""
    step = _call("_+_", _ident(_ACCU), Expr("list", args=[fn]))
    if pred is not None:
        step = _call("_?_:_", pred, step, _ident(_ACCU))
    return Expr(
        "comp",
        iter_range=range_,
        iter_var=var,
        accu_var=_ACCU,
        accu_init=Expr("list"),
        cond=_lit(BOOL, 1),
        step=step,
        result=_ident(_ACCU),
        macro=macro,
        map_fn=fn if macro == "map" else None,
    )


def _bind_comp(var: str, init: Expr, result: Expr) -> Expr:
    """ext/bindings.go: an empty range, a false condition, ``var`` the accumulator."""
    return Expr(
        "comp",
        iter_range=Expr("list"),
        iter_var="#unused",
        accu_var=var,
        accu_init=init,
        cond=_lit(BOOL, 1),
        step=_ident(var),
        result=result,
        macro="bind",
    )


def _member_call(target_tree: lark.Tree, name: str, arg_trees: list[lark.Tree]) -> Expr:
    """A member call, or the macro it is (parser/macro.go, ext/comprehensions.go,
    ext/bindings.go)."""
    first = _simple_name(arg_trees[0]) if arg_trees else None
    target_name = _simple_name(target_tree)
    if target_name == "cel" and name == "bind" and len(arg_trees) == 3 and first:
        return _bind_comp(first, _convert(arg_trees[1]), _convert(arg_trees[2]))
    if name in ("optMap", "optFlatMap") and len(arg_trees) == 2 and first:
        # cel/library.go optMap, optFlatMap: t.hasValue() ? [optional.of](bind x = t.value()
        # in expr) : optional.none()
        target = _convert(target_tree)
        value = _call("value", target=_convert(target_tree))
        bound = _bind_comp(first, value, _convert(arg_trees[1]))
        if name == "optMap":
            bound = _call("optional.of", bound)
        has = _call("hasValue", target=target)
        return _call("_?_:_", has, bound, _call("optional.none"))
    if name == "sortBy" and len(arg_trees) == 2 and first:
        # ext/lists.go sortByMacro: cel.bind(@__sortBy_input__, target,
        # @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(x, key)))
        var = "@__sortBy_input__"
        keys = _map_comp(_ident(var), first, _convert(arg_trees[1]), None)
        result = _call("@sortByAssociatedKeys", keys, target=_ident(var))
        return _bind_comp(var, _convert(target_tree), result)
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
            pred = _convert(arg_trees[1]) if len(arg_trees) == 3 else None
            return _map_comp(target, first, _convert(arg_trees[-1]), pred)
        if name == "filter" and len(arg_trees) == 2:
            pred = _convert(arg_trees[1])
            return _map_comp(target, first, _ident(first), pred, "filter")
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


def _resolve(e: Expr) -> None:
    """``resolveOverload``: the candidate overloads of a call and its result type (the
    candidates' common result, else ``dyn``)."""
    arg_types = ([e.target.type] if e.target is not None else []) + [a.type for a in e.args]
    out: list[tuple[str, CelType]] = []
    for sig in SIGS.get(e.name, ()):
        if sig.member != (e.target is not None) or len(sig.params) != len(arg_types):
            continue
        binds: dict[str, CelType] = {}
        if all(match(p, a, binds) for p, a in zip(sig.params, arg_types, strict=True)):
            out.append((sig.id, subst(sig.result, binds)))
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
        e.type = BOOL if e.test_only else _select_field(e.target.type, e.name, False)
    elif e.kind == "call" and e.name == "_?._" and e.opt_field:  # checkOptSelect
        _check(e.args[0], scope)
        e.args[1].type = STRING
        e.type = _select_field(e.args[0].type, e.opt_field, True)
        e.overloads = [("select_optional_field", e.type)]
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


def _select_field(operand: CelType, field: str, optional: bool) -> CelType:
    """``checkSelectField``: an optional operand is unwrapped, and the result is optional."""
    t, was_optional = unwrap_optional(operand)
    if t == DEVICE:
        result = DEVICE_FIELDS.get(field, DYN)
    elif t.kind == "map":
        result = t.params[1]
    else:
        result = DYN
    return optional_of(result) if was_optional or optional else result


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
    root = _convert(parse_tree(expression))
    _check(root, {})
    return root
