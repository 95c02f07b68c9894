"""A DRA selector's expression tree as cel-go's parser gives it: celpy's parse tree converted
to cel-go's AST (``parser/parser.go``: each node at the offset cel-go records for it, an
operator's token, a call's open parenthesis, a select's dot), macros expanded as
``parser/macro.go``, ``ext/comprehensions.go``, ``ext/bindings.go``, ``ext/lists.go`` and
``cel/library.go`` (``optMap``) do, every node of an expansion at the macro call's offset.
``dra/cel_checker.py`` type-checks it.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import lark
from celpy.evaluation import celbytes, celstr

from reference_impl.dra.cel import CELCompileError
from reference_impl.dra.cel_estimate import EntrySize, Estimate, GoPath
from reference_impl.dra.cel_overloads import (
    BOOL,
    BYTES,
    DOUBLE,
    DYN,
    INT,
    NAMESPACED,
    NULL,
    STRING,
    UINT,
    CelType,
)

ACCU = "@result"  # parser.HiddenAccumulatorName
_SOURCE: ContextVar[str] = ContextVar("_SOURCE", default="")
_MACRO_ERRORS: ContextVar[list[tuple[int, str]] | None] = ContextVar("_MACRO_ERRORS", default=None)


@dataclass(eq=False)
class Expr:
    """One node: ``lit``, ``ident``, ``select``, ``call``, ``list``, ``map``, ``struct`` or
    ``comp`` (a comprehension; ``macro`` names what it expands)."""

    kind: str
    name: str = ""  # ident, selected field, function
    lit_type: CelType | None = None
    lit_size: int | None = None
    lit_int: int | None = None  # an int's or uint's value; a bool's, 1 or 0
    lit_float: float | None = None
    lit_str: str | None = None
    lit_bytes: bytes | None = None  # a bytes literal's value (dra/cel_runtime_cost.py)
    target: Expr | None = None  # select operand, member call target
    test_only: bool = False
    opt_field: str = ""  # the field of an optional select, _?._
    args: list[Expr] = field(default_factory=list)  # call args, list elements
    entries: list[tuple[Expr, Expr]] = field(default_factory=list)  # map literal
    opt_indices: list[int] = field(default_factory=list)  # ``[?e]``, ``{?k: v}``: the entries
    fields: list[tuple[str, int]] = field(default_factory=list)  # a struct's: name, offset
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
    #: where cel-go locates the node (a character offset); -1 until a macro's expansion is
    #: stamped with its call's
    offset: int = -1
    # the checker's
    type: CelType = DYN
    overloads: list[tuple[str, CelType]] = field(default_factory=list)
    # the coster's
    path: GoPath | None = None
    size: Estimate | None = None
    entry: EntrySize | None = None


def _lit(t: CelType, size: int | None, value: int | None = None, at: int = -1) -> Expr:
    return Expr("lit", lit_type=t, lit_size=size, lit_int=value, offset=at)


def _call(
    fn: str, *args: Expr, target: Expr | None = None, opt_field: str = "", at: int = -1
) -> Expr:
    return Expr("call", name=fn, target=target, args=list(args), opt_field=opt_field, offset=at)


def _ident(name: str, at: int = -1) -> Expr:
    return Expr("ident", name=name, offset=at)


def _after(pos: int) -> int:
    """The offset of the first token at or after ``pos`` (whitespace and comments skipped)."""
    s = _SOURCE.get()
    while pos < len(s):
        if s[pos] in " \t\n\r\f":
            pos += 1
        elif s.startswith("//", pos):
            newline = s.find("\n", pos)
            pos = len(s) if newline < 0 else newline
        else:
            break
    return pos


def _end(node: lark.Tree | lark.Token) -> int:
    return (node.end_pos if isinstance(node, lark.Token) else node.meta.end_pos) or 0


def _start(token: lark.Token) -> int:
    return token.start_pos or 0


def _stamp(e: Expr | None, at: int) -> Expr | None:
    """A macro's expansion: every node it made (offset -1) at the macro call's offset."""
    if e is None or e.offset >= 0:
        return e
    e.offset = at
    for child in (e.target, e.iter_range, e.accu_init, e.cond, e.step, e.result, e.map_fn):
        _stamp(child, at)
    for a in e.args:
        _stamp(a, at)
    for k, v in e.entries:
        _stamp(k, at)
        _stamp(v, at)
    return e


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
            at = _after(_end(kids[0]))
            return _call("_?_:_", *(_convert(k) for k in kids), at=at)
        return _convert(kids[0])
    if rule in ("conditionalor", "conditionaland"):
        if len(kids) == 2:
            fn = "_||_" if rule == "conditionalor" else "_&&_"
            return _call(fn, _convert(kids[0]), _convert(kids[1]), at=_after(_end(kids[0])))
        return _convert(kids[0])
    if rule in ("relation", "addition", "multiplication"):
        if len(kids) == 2:
            op, left = kids[0], _kids(kids[0])[0]
            at = _after(_end(left))
            return _call(_BINARY[op.data], _convert(left), _convert(kids[1]), at=at)
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
        signed = _signed_number(node) if op == "unary_neg" else None
        if signed is not None:  # ANTLR's greedy ('-')+ takes the literal's sign too
            count += 1
            unsigned = lark.Token(signed.type, signed[1:], start_pos=_start(signed) + 1)
            inner = _literal(unsigned)
        else:
            inner = _convert(node)
        if count % 2 == 0:
            return inner
        return _call("!_" if op == "unary_not" else "-_", inner, at=tree.meta.start_pos)
    if rule in ("member", "primary"):
        return _convert(kids[0])
    if rule == "paren_expr":
        return _convert(kids[0])
    if rule == "member_dot":
        at = _after(_end(kids[0]))
        return Expr("select", name=str(kids[1]), target=_convert(kids[0]), offset=at)
    if rule == "member_dot_arg":
        arg_trees = _exprlist(kids[2] if len(kids) > 2 else None)
        return _member_call(kids[0], str(kids[1]), arg_trees, _after(_end(kids[1])))
    if rule == "member_index":
        at = _after(_end(kids[0]))
        return _call("_[_]", _convert(kids[0]), _convert(kids[1]), at=at)
    if rule == "member_dot_opt":  # parser.go: a.?b is the call _?._(a, "b")
        at, name = _after(_end(kids[0])), str(kids[1])
        size = len(name)
        return _call("_?._", _convert(kids[0]), _lit(STRING, size, at=at), opt_field=name, at=at)
    if rule == "member_index_opt":
        at = _after(_end(kids[0]))
        return _call("_[?_]", _convert(kids[0]), _convert(kids[1]), at=at)
    if rule == "member_object":
        fields = _kids(kids[1]) if len(kids) > 1 else []
        values = [_convert(v) for v in fields[1::2]]
        name = _qualified(kids[0]) or ""
        struct = Expr("struct", name=name, args=values, offset=_after(_end(kids[0])))
        struct.fields = [(str(f), _after(_end(f))) for f in fields[0::2]]  # at the colon
        return struct
    if rule in ("ident_arg", "dot_ident_arg"):
        name = str(kids[0])
        at = _after(_end(kids[0]))
        args = [_convert(a) for a in (_kids(kids[1]) if len(kids) > 1 else [])]
        if name == "has" and rule == "ident_arg" and len(args) == 1:
            sel = args[0]
            if sel.kind != "select":  # MakeHas
                errors = _MACRO_ERRORS.get()
                if errors is not None:
                    errors.append((sel.offset, "invalid argument to has() macro"))
                return sel
            return Expr("select", name=sel.name, target=sel.target, test_only=True, offset=at)
        return _call(name, *args, at=at)
    if rule in ("ident", "dot_ident"):
        return _ident(str(kids[0]), at=_start(kids[0]))
    if rule == "list_lit":
        trees = _kids(kids[0]) if kids else []
        elements = [_convert(_unopt(a)) for a in trees]
        opt = [i for i, a in enumerate(trees) if _unopt(a) is not a]
        return Expr("list", args=elements, opt_indices=opt, offset=tree.meta.start_pos)
    if rule == "map_lit":
        trees = _kids(kids[0]) if kids else []
        items = [_convert(_unopt(a)) for a in trees]
        entries = list(zip(items[0::2], items[1::2], strict=True))
        opt = [i // 2 for i, a in enumerate(trees) if _unopt(a) is not a]
        return Expr("map", entries=entries, opt_indices=opt, offset=tree.meta.start_pos)
    if rule == "literal":
        return _literal(kids[0])
    raise CELCompileError(f"unsupported syntax {rule!r}")


def _unopt(tree: Any) -> Any:
    """The entry of an optional list element or map key (``opt_entry``, cel_optional.py)."""
    if isinstance(tree, lark.Tree) and tree.data == "opt_entry":
        return tree.children[0]
    return tree


def _exprlist(node: lark.Tree | None) -> list[lark.Tree]:
    return [] if node is None else _kids(node)


def _go_int(text: str) -> int:
    """``VisitInt``/``VisitUint``: base 16 after ``0x``, else base 10 (``01`` is 1)."""
    return int(text, 16 if "0x" in text else 10)


def _signed_number(tree: lark.Tree | lark.Token) -> lark.Token | None:
    """The number literal with a minus sign ``tree`` is (celpy's token keeps the sign), if
    any."""
    node = tree
    while isinstance(node, lark.Tree) and node.data in ("unary", "member", "primary", "literal"):
        if len(_kids(node)) != 1:
            return None
        node = _kids(node)[0]
    numbers = ("INT_LIT", "UINT_LIT", "FLOAT_LIT")
    if isinstance(node, lark.Token) and node.type in numbers and node.startswith("-"):
        return node
    return None


def _int_literal(text: str, at: int, unsigned: bool) -> int:
    """``VisitInt``/``VisitUint``: a literal out of int64 (uint64) range is the parser's
    error "invalid int literal" ("invalid uint literal")."""
    value = _go_int(text)
    low, high = (0, 1 << 64) if unsigned else (-(1 << 63), 1 << 63)
    if not low <= value < high:
        errors = _MACRO_ERRORS.get()
        if errors is not None:
            errors.append((at, f"invalid {'uint' if unsigned else 'int'} literal"))
    return value


def _literal(token: lark.Token) -> Expr:
    kind, at = token.type, _start(token)
    if kind in ("STRING_LIT", "MLSTRING_LIT"):
        text = str(celstr(token))
        e = _lit(STRING, len(text), at=at)
        e.lit_str = text
        return e
    if kind == "BYTES_LIT":
        value = bytes(celbytes(token))
        e = _lit(BYTES, len(value), at=at)
        e.lit_bytes = value
        return e
    if kind == "INT_LIT":
        return _lit(INT, 1, _int_literal(str(token), at, False), at=at)
    if kind == "UINT_LIT":
        text = str(token)
        if text.startswith("-"):  # cel-go's literals of uint have no sign: -(1u)
            n = _int_literal(text[1:-1], at + 1, True)
            return _call("-_", _lit(UINT, 1, n, at=at + 1), at=at)
        return _lit(UINT, 1, _int_literal(text[:-1], at, True), at=at)
    if kind == "FLOAT_LIT":
        e = _lit(DOUBLE, 1, at=at)
        e.lit_float = float(str(token))
        return e
    if kind == "BOOL_LIT":
        return _lit(BOOL, 1, int(str(token) == "true"), at=at)
    return _lit(NULL, 1, at=at)


def _qualified(tree: lark.Tree | lark.Token) -> str | None:
    """The dotted name a member expression is (``containers.ToQualifiedName``), if any."""
    node = tree
    while isinstance(node, lark.Tree) and node.data in ("member", "primary"):
        node = _kids(node)[0]
    if isinstance(node, lark.Tree) and node.data == "ident":
        return str(_kids(node)[0])
    if isinstance(node, lark.Tree) and node.data == "member_dot":
        prefix = _qualified(_kids(node)[0])
        return None if prefix is None else f"{prefix}.{_kids(node)[1]}"
    return None


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
    step = _call("_+_", _ident(ACCU), Expr("list", args=[fn]))
    if pred is not None:
        step = _call("_?_:_", pred, step, _ident(ACCU))
    return Expr(
        "comp",
        iter_range=range_,
        iter_var=var,
        accu_var=ACCU,
        accu_init=Expr("list"),
        cond=_lit(BOOL, 1, 1),
        step=step,
        result=_ident(ACCU),
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
        cond=_lit(BOOL, 1, 0),
        step=_ident(var),
        result=result,
        macro="bind",
    )


def _member_call(target_tree: lark.Tree, name: str, arg_trees: list[lark.Tree], at: int) -> Expr:
    """A member call (at its open parenthesis), or the macro it is (parser/macro.go,
    ext/comprehensions.go, ext/bindings.go), every node the expansion makes there."""
    stamped = _stamp(_member_call_or_macro(target_tree, name, arg_trees), at)
    assert stamped is not None
    return stamped


def _macro_error(target_name: str | None, name: str, arg_trees: list[lark.Tree]) -> Expr | None:
    """A macro whose variable is not an identifier: cel-go's parser reports the macro's error
    at the argument (parser/macro.go, ext/comprehensions.go ``extractIterVars``,
    ext/bindings.go, cel/library.go) and the expression is not checked."""
    n = len(arg_trees)
    names = [_simple_name(a) for a in arg_trees]
    bad: tuple[int, str] | None = None
    if target_name == "cel" and name == "bind" and n == 3 and names[0] is None:
        bad = (0, "cel.bind() variable names must be simple identifiers")
    elif name in ("optMap", "optFlatMap") and n == 2 and names[0] is None:
        bad = (0, f"{name}() variable name must be a simple identifier")
    elif name in ("all", "exists", "exists_one") and n == 2 and names[0] is None:
        bad = (0, "argument must be a simple name")
    elif name in ("map", "filter") and n in ((2, 3) if name == "map" else (2,)) and not names[0]:
        bad = (0, "argument is not an identifier")
    elif (name in ("all", "exists", "existsOne") and n == 3) or (
        name in _TRANSFORMS and n in (3, 4)
    ):
        if names[0] is None or names[1] is None:
            bad = (0 if names[0] is None else 1, "argument must be a simple name")
        elif names[0] == names[1]:
            bad = (1, f"duplicate variable name: {names[0]}")
    if bad is None:
        return None
    at = _convert(arg_trees[bad[0]]).offset
    errors = _MACRO_ERRORS.get()
    if errors is not None:
        errors.append((at, bad[1]))
    return _lit(BOOL, 1, at=at)


def _member_call_or_macro(target_tree: lark.Tree, name: str, arg_trees: list[lark.Tree]) -> Expr:
    first = _simple_name(arg_trees[0]) if arg_trees else None
    target_name = _simple_name(target_tree)
    failed = _macro_error(target_name, name, arg_trees)
    if failed is not None:
        return failed
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
    if target_name is not None and f"{target_name}.{name}" in NAMESPACED:
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
        step = _call("_+_", _ident(ACCU), Expr("list", args=[fn]))
    elif name == "transformMap":
        step = _call("cel.@mapInsert", _ident(ACCU), _ident(var), fn)
    else:
        step = _call("cel.@mapInsert", _ident(ACCU), fn)
    if len(rest) == 2:
        step = _call("_?_:_", rest[0], step, _ident(ACCU))
    return _comprehension(
        target,
        var,
        var2,
        Expr("list" if name == "transformList" else "map"),
        _lit(BOOL, 1, 1),
        step,
        _ident(ACCU),
        name,
        map_fn=fn,
    )


def _quantifier(name: str, target: Expr, var: str, var2: str, pred: Expr) -> Expr:
    """``makeQuantifier`` (and ext/comprehensions.go's two-variable forms)."""
    accu = _ident(ACCU)
    if name == "all":
        init, cond, step = (
            _lit(BOOL, 1, 1),
            _call("@not_strictly_false", accu),
            _call("_&&_", _ident(ACCU), pred),
        )
        result = _ident(ACCU)
    elif name == "exists":
        init = _lit(BOOL, 1, 0)
        cond = _call("@not_strictly_false", _call("!_", accu))
        step = _call("_||_", _ident(ACCU), pred)
        result = _ident(ACCU)
    else:
        init, cond = _lit(INT, 1, 0), _lit(BOOL, 1, 1)
        step = _call("_?_:_", pred, _call("_+_", _ident(ACCU), _lit(INT, 1, 1)), _ident(ACCU))
        result = _call("_==_", _ident(ACCU), _lit(INT, 1, 1))
    return _comprehension(target, var, var2, init, cond, step, result, name)


def _comprehension(
    target: Expr,
    var: str,
    var2: str,
    init: Expr,
    cond: Expr,
    step: Expr,
    result: Expr,
    macro: str,
    map_fn: Expr | None = None,
) -> Expr:
    """A comprehension over ``target`` with the accumulator ``@result``, as the macros build
    it."""
    return Expr(
        "comp",
        iter_range=target,
        iter_var=var,
        iter_var2=var2,
        accu_var=ACCU,
        accu_init=init,
        cond=cond,
        step=step,
        result=result,
        macro=macro,
        map_fn=map_fn,
    )


def convert(expression: str, tree: lark.Tree) -> tuple[Expr, list[tuple[int, str]]]:
    """celpy's parse tree of ``expression`` as cel-go's parser gives it, and the macros' errors
    (offset, message)."""
    source, errors = _SOURCE.set(expression), _MACRO_ERRORS.set([])
    try:
        return _convert(tree), _MACRO_ERRORS.get() or []
    finally:
        _SOURCE.reset(source)
        _MACRO_ERRORS.reset(errors)
