"""Optional values of the DRA selector environment (``cel.OptionalTypes``, base.go from 1.28).

Upstream: github.com/google/cel-go v0.29.2 ``cel/library.go`` (``optionalLib``: ``optional.of``,
``optional.ofNonZeroValue``, ``optional.none``, ``value``, ``hasValue``, ``or`` and ``orValue``
short-circuiting, ``optMap``/``optFlatMap``, the ``.?`` select and ``[?`` index) and
``interpreter/attributes.go`` (``applyQualifiers``: after an optional, every select and index
of the chain tests presence and the result stays optional), optional entries of list and map
literals (``interpreter/interpretable.go`` ``evalList``, ``evalMap``). celpy's grammar has no
``.?``, ``[?`` nor ``?`` entries: :func:`install_grammar` adds them to its parser;
``cel_macros.py`` evaluates them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import celpy
import celpy.celtypes as ct
import lark
from celpy.celparser import CELParser
from celpy.evaluation import CELEvalError

from reference_impl.dra.cel_errors import err, no_overload

_FLOAT = '/-?/ DIGIT+ "." DIGIT* EXPONENT? | /-?/ DIGIT* "." DIGIT+ EXPONENT?'
_MEMBER = "member         : member_dot | member_dot_arg | member_index | member_object | primary"
_EXPRLIST = 'exprlist       : expr ("," expr)*'
_MAPINITS = 'mapinits       : expr ":" expr ("," expr ":" expr)*'
#: optional entries of list and map literals, ``[?e]`` and ``{?k: v}`` (also allowed in calls
#: here: cel-go's grammar, dra/cel_syntax.py, refuses ``f(?x)`` before celpy parses)
_OPT_ENTRIES = """
exprlist : listelem ("," listelem)*
?listelem : expr | opt_entry
mapinits : mapkey ":" expr ("," mapkey ":" expr)*
?mapkey : expr | opt_entry
opt_entry : "?" expr
"""


def _ambiguous_literals(t: lark.Token) -> lark.Token:
    """``CELParser.ambiguous_literals`` keeping the token's position (the type checker's
    errors are located)."""
    if t.value in ("true", "false"):
        return lark.Token.new_borrow_pos("BOOL_LIT", t.value, t)
    return t


def install_grammar() -> None:
    """celpy's parser (a class attribute every ``CELParser`` shares; celpy is used by the DRA
    selectors alone) with ``member.?IDENT``, ``member[?expr]``, ``[?e]`` and ``{?k: v}``
    (``opt_entry``), and cel-go's ``NUM_FLOAT``
    (CEL.g4: digits after the dot, ``1.size()`` is a call on an int, not on ``1.``)."""
    if CELParser.CEL_PARSER is not None and "member_dot_opt" in str(CELParser.CEL_PARSER.rules):
        return
    grammar = (Path(celpy.__file__).parent / "cel.lark").read_text()
    if _MEMBER not in grammar:
        raise RuntimeError("celpy's grammar changed: cannot add optional select and index")
    if _EXPRLIST not in grammar or _MAPINITS not in grammar:
        raise RuntimeError("celpy's grammar changed: cannot add optional entries")
    grammar = grammar.replace(_EXPRLIST, "").replace(_MAPINITS, "") + _OPT_ENTRIES
    if _FLOAT not in grammar:
        raise RuntimeError("celpy's grammar changed: cannot fix its float literals")
    grammar = grammar.replace(_FLOAT, '/-?/ DIGIT* "." DIGIT+ EXPONENT?')
    grammar = grammar.replace(
        _MEMBER,
        _MEMBER.replace("| primary", "| member_dot_opt | member_index_opt | primary")
        + '\nmember_dot_opt : member ".?" IDENT\nmember_index_opt : member "[?" expr "]"',
    )
    CELParser.CEL_PARSER = lark.Lark(
        grammar,
        parser="lalr",
        start="expr",
        debug=True,
        g_regex_flags=re.M,
        lexer_callbacks={"IDENT": _ambiguous_literals},
        propagate_positions=True,
        maybe_placeholders=False,
        priority="invert",
        tree_class=lark.Tree,
    )


@dataclass(frozen=True, slots=True)
class OptionalValue:
    """``types.Optional``: a value, or none."""

    value: Any = None
    present: bool = False

    def get(self) -> Any:
        """``GetValue``: the value, or the error of a none's dereference."""
        return self.value if self.present else err("optional.none() dereference")


NONE = OptionalValue()
OPTIONAL_NODES = ("member_dot_opt", "member_index_opt")


def has_optional(tree: Any) -> bool:
    """Whether ``tree`` holds an optional select or index (so a select or index on it may
    meet an optional value)."""
    return isinstance(tree, lark.Tree) and any(
        t.data in OPTIONAL_NODES for t in tree.iter_subtrees()
    )


class DefaultMap(ct.MapType):
    """A map whose ``Find`` finds every key (``cel.AttributeMap``): an optional select of a
    missing key is present; ``v0_26``: cel-go v0.26.0 drops the default where the map is the
    value of an optional operand (``plain``)."""

    v0_26 = False

    def plain(self) -> ct.MapType:
        """The map without its default (v0.26.0's ``GetValue().Value()``: the native map)."""
        return ct.MapType(dict(self))


def select(target: Any, key: Any, optional: bool, relative: bool = False) -> Any:
    """A select or index of ``key`` on ``target`` (``applyQualifiers``): on an optional, or
    as ``.?``/``[?``, a presence test whose result is optional (on a value that is no
    container: none, attributes.go ``refQualify`` without ``errorOnBadPresenceTest``); else a
    plain lookup. ``relative``: ``target`` is the value of an operand that is no attribute (a
    call: ``optional.of(device.attributes).?foo``), which v0.26.0 unwraps natively."""
    if isinstance(target, CELEvalError) or isinstance(key, CELEvalError):
        return target if isinstance(target, CELEvalError) else key
    if isinstance(target, OptionalValue):
        if not target.present:
            return target
        target, optional = target.value, True
        if relative and isinstance(target, DefaultMap) and target.v0_26:
            target = target.plain()
    if optional and isinstance(target, DefaultMap) and isinstance(key, str):
        return OptionalValue(target[key], True)
    if isinstance(target, ct.MapType | dict):
        found = next((k for k in target if _same_key(k, key)), None)
        if found is None:
            return NONE if optional else err(f"no such key: {key}")
        return OptionalValue(target[found], True) if optional else target[found]
    if (
        isinstance(target, ct.ListType | list)
        and isinstance(key, int)
        and not isinstance(key, bool)
    ):
        if 0 <= key < len(target):
            return OptionalValue(target[key], True) if optional else target[key]
        return NONE if optional else err(f"index out of bounds: {key}")
    if optional and not isinstance(target, ct.ListType | list):
        return NONE
    return no_overload("_[_]", target, key)


def _same_key(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return str(a) == str(b)
    if isinstance(a, bool | ct.BoolType) != isinstance(b, bool | ct.BoolType):
        return False
    return bool(type(a) is type(b) or (isinstance(a, int) and isinstance(b, int))) and a == b


def _of(value: Any) -> Any:
    return value if isinstance(value, CELEvalError) else OptionalValue(value, True)


def _of_non_zero(value: Any) -> Any:
    """``optional.ofNonZeroValue``: none for null, false, 0, "", an empty list or map."""
    if isinstance(value, CELEvalError):
        return value
    zero = value is None or (not isinstance(value, OptionalValue) and not value)
    return NONE if zero else OptionalValue(value, True)


def _end(xs: Any, i: int) -> Any:
    """ext/lists.go ``first``/``last``: the element as an optional, none for an empty list."""
    if not isinstance(xs, ct.ListType | list):
        return no_overload("first" if i == 0 else "last", xs)
    return OptionalValue(xs[i], True) if xs else NONE


def _unwrap(xs: Any) -> Any:
    """cel/library.go ``optUnwrap`` (``optional.unwrap(l)``, ``l.unwrapOpt()``): the values
    of a list of optionals, the nones left out."""
    if not isinstance(xs, ct.ListType | list):
        return no_overload("unwrapOpt", xs)
    values: list[OptionalValue] = [x for x in xs if isinstance(x, OptionalValue)]
    if len(values) != len(xs):
        return err("value is not optional")
    return ct.ListType([x.value for x in values if x.present])


FUNCTIONS: dict[str, Any] = {
    "optional.of": _of,
    "optional.ofNonZeroValue": _of_non_zero,
    "optional.none": lambda: NONE,
    "optional.unwrap": _unwrap,
    "unwrapOpt": _unwrap,
    "first": lambda xs: _end(xs, 0),
    "last": lambda xs: _end(xs, -1),
}
