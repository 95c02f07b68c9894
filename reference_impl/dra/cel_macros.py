"""What the DRA selector environment adds to celpy's evaluator: ``cel.bind``, the
two-variable comprehensions, namespaced functions (``sets.contains``, ``lists.range``,
``strings.quote``, ``ip.isCanonical``) and the list library's ``min``/``max`` (which celpy
would take for its own ``min`` macro).

Upstream: ``ext.Bindings`` (github.com/google/cel-go ext/bindings.go: ``cel.bind(var, init,
expr)``, a comprehension whose accumulator is ``var``; compile.go adds it from 1.31),
``ext.TwoVarComprehensions`` (ext/comprehensions.go, base environment from 1.32:
``all``/``exists``/``existsOne``/``exists_one`` with an index or key and a value,
``transformList``, ``transformMap``). celpy evaluates macros in ``Evaluator.member_dot_arg``
(celpy/evaluation.py), which this subclass extends; its ``sub_evaluator`` builds a plain
``Evaluator``, so it is overridden for nested macros to keep these additions.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import reduce
from typing import Any, cast

import celpy
import celpy.celtypes as ct
import lark
from celpy.evaluation import CELEvalError, Evaluator

from reference_impl.dra.cel_errors import err, no_overload
from reference_impl.dra.cel_generations import OPTIONAL_OR_KEEPS_RECEIVER
from reference_impl.dra.cel_netip import Addr, Prefix
from reference_impl.dra.cel_operators import hash_panic, set_membership, unbound
from reference_impl.dra.cel_optional import OptionalValue, has_optional, select
from reference_impl.dra.cel_values import (
    bad_qualifier,
    find_key,
    go_type,
    type_name,
    unhashable_lookup,
)


def _primitive_list(tree: Any) -> bool:
    """Whether ``tree`` is a non-empty list literal of literals other than bytes and null
    (``maybeOptimizeSetMembership``'s constant list of primitive values)."""
    node = _single(tree)
    if not (isinstance(node, lark.Tree) and node.data == "list_lit" and node.children):
        return False
    items = node.children[0].children if isinstance(node.children[0], lark.Tree) else []
    for item in items:
        leaf = _single(item)
        if not isinstance(leaf, lark.Tree) or leaf.data != "literal":
            return False
        token = leaf.children[0]
        if getattr(token, "type", "") in ("BYTES_LIT", "NULL_LIT"):
            return False
    return bool(items)


def _single(tree: Any) -> Any:
    node = tree
    while isinstance(node, lark.Tree) and len(node.children) == 1 and node.data != "literal":
        if node.data == "list_lit":
            return node
        node = node.children[0]
    return node


def constant_string(tree: Any) -> bool:
    """A string literal, or one in ``dyn()`` (which the planner drops): the constant pattern
    of the regex optimizations (interpreter ``MatchesRegexOptimization``, apiserver
    library/regex.go ``FindRegexOptimization``)."""
    node = _single(tree)
    while (
        isinstance(node, lark.Tree)
        and node.data == "ident_arg"
        and str(node.children[0]) == "dyn"
        and len(node.children) == 2
        and len(node.children[1].children) == 1
    ):
        node = _single(node.children[1].children[0])
    if not (isinstance(node, lark.Tree) and node.data == "literal"):
        return False
    return getattr(node.children[0], "type", "") in ("STRING_LIT", "MLSTRING_LIT")


def _is_opt_entry(tree: Any) -> bool:
    return isinstance(tree, lark.Tree) and tree.data == "opt_entry"


def go_value(v: Any) -> str:
    """Go's ``%v`` of a simple value (cel-go's error messages)."""
    if isinstance(v, ct.BoolType):
        return "true" if v else "false"
    if isinstance(v, ct.DoubleType):
        return repr(float(v))
    return str(v)


#: the qualified type names as values (the well-known types of checker/standard.go,
#: k8s.io/apiserver pkg/cel/library ip.go's and cidr.go's)
QUALIFIED_TYPES: dict[str, type] = {
    "google.protobuf.Duration": ct.DurationType,
    "google.protobuf.Timestamp": ct.TimestampType,
    "net.IP": Addr,
    "net.CIDR": Prefix,
}
#: receivers that name a function namespace, not a variable
NAMESPACES = ("cel", "sets", "lists", "strings", "ip", "optional", "format")
#: the two-variable comprehension macros (ext/comprehensions.go) by their argument count
TWO_VAR_MACROS = {
    "all": (3,),
    "exists": (3,),
    "existsOne": (3,),
    "exists_one": (3,),
    "transformList": (3, 4),
    "transformMap": (3, 4),
    "transformMapEntry": (3, 4),
}


def _logical(stop: bool) -> Callable[[Any, Any], Any]:
    """CEL's ``&&`` (``stop`` false) and ``||`` (true), for ``reduce`` too: a decisive bool
    wins; else the first operand that is no bool, an error as it is, another value "no such
    overload" (interpretable.go ``evalAnd``/``evalOr``)."""

    def f(x: Any, y: Any) -> Any:
        for v in (x, y):
            if isinstance(v, bool | ct.BoolType) and bool(v) == stop:
                return ct.BoolType(stop)
        for v in (x, y):
            if not isinstance(v, bool | ct.BoolType):
                return v if isinstance(v, CELEvalError) else err("no such overload")
        return ct.BoolType(not stop)

    return f


_AND = _logical(False)
_OR = _logical(True)


def _condition(cond: Any, left: Any, right: Any) -> Any:
    """``_?_:_``: an error condition is the result (interpretable.go ``evalConditional``)."""
    if isinstance(cond, CELEvalError):
        return cond
    if not isinstance(cond, bool | ct.BoolType):
        return err("no such overload")
    return left if cond else right


def _index(target: Any, key: Any) -> Any:
    """``_[_]``: an error operand is the result, the target's first. A list's index is a
    number of an integral value (common/types/list.go ``Get``, ``IndexOrError``: "index out
    of bounds: -1", "unsupported index value 1.5 in list")."""
    if isinstance(target, CELEvalError) or isinstance(key, CELEvalError):
        return target if isinstance(target, CELEvalError) else key
    if (bad := bad_qualifier(key)) is not None:
        return err(bad)
    if isinstance(target, dict) and isinstance(key, float):  # a double qualifier's lookup
        found, value = find_key(target, key)
        return value if found else err(f"no such key: {go_value(key)}")
    if (
        isinstance(target, list)
        and isinstance(key, int | float)
        and not isinstance(key, bool | ct.BoolType)
    ):
        if isinstance(key, float) and not key.is_integer():
            return err(f"unsupported index value {go_value(key)} in list")
        if not 0 <= int(key) < len(target):
            return err(f"index out of bounds: {int(key)}")
        return target[int(key)]
    if isinstance(target, list):
        return err(f"unsupported index type '{type_name(key)}' in list")
    return operator.getitem(target, key)


#: celpy's operators where it would raise on an error operand ("found no matching overload
#: for _&&_ ..."): cel-go's results
OPERATORS: dict[str, Callable[..., Any]] = {
    "_&&_": _AND,
    "_||_": _OR,
    "_?_:_": _condition,
    "_[_]": _index,
}
_REGEX_FUNCTIONS = ("matches", "find", "findAll")
#: celpy's one-variable comprehension macros (parser/macro.go: a fold over the target)
_RANGE_MACROS = ("all", "exists", "exists_one", "existsOne", "map", "filter")


def not_iterable(target: Any) -> CELEvalError:
    """``evalFold``'s error for a range that is neither a list nor a map."""
    return err(f"got '{go_type(target)}', expected iterable type")


#: the methods of an optional value
_OPTIONAL_METHODS = ("hasValue", "value", "or", "orValue", "optMap", "optFlatMap")
#: methods that celpy's evaluator would treat as its own macros
_NOT_MACROS = ("min", "reduce")


def simple_ident(tree: Any) -> str | None:
    """The name if ``tree`` is just an identifier, else None."""
    node = tree
    while isinstance(node, lark.Tree) and len(node.children) == 1 and node.data != "ident":
        node = node.children[0]
    if isinstance(node, lark.Tree) and node.data == "ident" and node.children:
        return str(node.children[0])
    return None


_CHAIN = ("member_dot", "member_dot_opt", "member_index", "member_index_opt")


def relative(tree: Any) -> bool:
    """Whether a select's operand is no attribute (cel-go's planner: a relative attribute of
    a call's value, ``optional.of(m).?k``), not a chain of selects and indexes down to a
    variable (parentheses make no node)."""
    node = tree
    while isinstance(node, lark.Tree):
        if node.data in _CHAIN:
            node = node.children[0]
        elif node.data == "ident":
            return False
        elif len(node.children) == 1:
            node = node.children[0]
        else:
            return True
    return True


def may_be_optional(tree: Any) -> bool:
    """Whether ``tree``'s value may be optional: it holds an optional select or index, or
    (a relative attribute) a call of the optional library."""
    if has_optional(tree):
        return True
    if not relative(tree) or not isinstance(tree, lark.Tree):
        return False
    return any(
        (t.data in ("ident", "dot_ident") and str(t.children[0]) == "optional")
        or (t.data == "member_dot_arg" and str(t.children[1]) in _OPTIONAL_METHODS)
        for t in tree.iter_subtrees()
    )


def dotted_name(tree: Any) -> str:
    """The name a message literal's type is written as (``kubernetes.DRADevice``)."""
    node = tree
    while isinstance(node, lark.Tree) and len(node.children) == 1 and node.data != "ident":
        node = node.children[0]
    if isinstance(node, lark.Tree) and node.data == "member_dot":
        return f"{dotted_name(node.children[0])}.{node.children[1]}"
    if isinstance(node, lark.Tree) and node.children:
        return str(node.children[0])
    return str(node)


def _optional_has(tree: Any) -> Any | None:
    """The operand of ``tree`` if it is ``has(x.f)`` of an optional chain, else None."""
    node = tree
    while isinstance(node, lark.Tree) and len(node.children) == 1:
        node = node.children[0]
    if not (isinstance(node, lark.Tree) and node.data == "ident_arg"):
        return None
    if str(node.children[0]) != "has" or len(node.children) < 2:
        return None
    args = node.children[1]
    if isinstance(args, lark.Tree) and len(args.children) == 1 and has_optional(args):
        return args.children[0]
    return None


def macro_variables(tree: lark.Tree) -> tuple[str, ...]:
    """The variables a ``member_dot_arg`` node binds for its arguments: ``cel.bind``'s, the two
    of a two-variable comprehension, the one of a celpy macro (``all``/``exists``/...)."""
    if len(tree.children) < 3 or not isinstance(tree.children[2], lark.Tree):
        return ()
    name = str(tree.children[1])
    args = tree.children[2].children
    if name == "bind" and simple_ident(tree.children[0]) == "cel" and len(args) == 3:
        return tuple(v for v in (simple_ident(args[0]),) if v)
    if name in TWO_VAR_MACROS and len(args) in TWO_VAR_MACROS[name]:
        return tuple(v for v in (simple_ident(args[0]), simple_ident(args[1])) if v)
    if (
        name in ("all", "exists", "exists_one", "map", "filter", "sortBy", "optMap", "optFlatMap")
        and len(args) == 2
    ) or (name == "map" and len(args) == 3):
        return tuple(v for v in (simple_ident(args[0]),) if v)
    return ()


class LibraryEvaluator(Evaluator):
    """celpy's ``Evaluator`` with the macros and namespaced calls of the environment."""

    def sub_evaluator(self, ast: lark.Tree) -> Evaluator:
        return LibraryEvaluator(ast, activation=self.activation)

    def _with(self, tree: lark.Tree, values: dict[str, Any]) -> Any:
        """``tree`` evaluated with ``values`` bound (an error is returned, not raised)."""
        try:
            return self.sub_evaluator(tree).evaluate(values)
        except CELEvalError as e:
            return e

    def member_dot_opt(self, tree: lark.Tree) -> Any:
        """``a.?b`` (cel_optional.py)."""
        target = self.visit(tree.children[0])
        key = ct.StringType(str(tree.children[1]))
        return select(target, key, True, relative(tree.children[0]))

    def member_index_opt(self, tree: lark.Tree) -> Any:
        """``a[?b]``."""
        target = self.visit(tree.children[0])
        key = self.visit(tree.children[1])
        if not isinstance(target, CELEvalError) and (bad := bad_qualifier(key)) is not None:
            return err(bad)
        return select(target, key, True, relative(tree.children[0]))

    def macro_has_eval(self, exprlist: lark.Tree) -> Any:
        """``has(x.f)`` (``evalTestOnly``): an error of ``x`` is the result; after an optional
        (an optional chain) whether the chain's value is present."""
        node = exprlist.children[0]
        while isinstance(node, lark.Tree) and len(node.children) == 1:
            node = node.children[0]
        if isinstance(node, lark.Tree) and node.data == "member_dot":
            operand = self.visit(node.children[0])
            if isinstance(operand, CELEvalError):
                return operand
        value = self.visit(exprlist.children[0])
        if isinstance(value, OptionalValue):
            return ct.BoolType(value.present)
        return ct.BoolType(not isinstance(value, CELEvalError))

    def expr(self, tree: lark.Tree) -> Any:
        """A conditional: a branch that is ``has(x.f)`` after an optional is the optional
        chain's value, not a bool (cel-go v0.26.0 and v0.29.2 planner.go: the conditional of
        attributes, ``conditionalAttribute``, resolves the branch's attribute, whose presence
        test qualifier of an optional chain gives the optional; DeviceMatches then fails:
        "CEL result of type optional_type could not be converted to bool: ...")."""
        if len(tree.children) == 3 and any(_optional_has(b) for b in tree.children[1:]):
            cond = self.visit(tree.children[0])
            if isinstance(cond, ct.BoolType):
                branch = tree.children[1] if cond else tree.children[2]
                chain = _optional_has(branch)
                return self.visit(branch if chain is None else chain)
        return super().expr(tree)

    def member_object(self, tree: lark.Tree) -> Any:
        """A message literal (``kubernetes.DRADevice{...}``, the type the checker knows):
        ``evalObj`` evaluates the fields (the first error ends it), then the type provider
        makes no such object: "unknown type 'T'"."""
        if len(tree.children) > 1 and isinstance(tree.children[1], lark.Tree):
            for value_tree in tree.children[1].children[1::2]:
                value = self.visit(value_tree)
                if isinstance(value, CELEvalError):
                    return value
        return err(f"unknown type '{dotted_name(tree.children[0]).lstrip('.')}'")

    def exprlist(self, tree: lark.Tree) -> Any:
        """A list literal with optional elements (``evalList``): a none is left out."""
        if not any(_is_opt_entry(c) for c in tree.children):
            return super().exprlist(tree)
        values = []
        for child in tree.children:
            value = self.visit(child.children[0] if _is_opt_entry(child) else child)
            if isinstance(value, CELEvalError):
                return value
            if _is_opt_entry(child):
                if not isinstance(value, OptionalValue):
                    return err(
                        "cannot initialize optional list element from non-optional value "
                        + go_value(value)
                    )
                if not value.present:
                    continue
                value = value.value
            values.append(value)
        return ct.ListType(values)

    def mapinits(self, tree: lark.Tree) -> Any:
        """A map literal (``evalMap``): the first error, key or value, is the result; a later
        entry of a key replaces the earlier (a Go map); an optional entry's none removes it."""
        result = ct.MapType()
        for key_tree, value_tree in zip(tree.children[0::2], tree.children[1::2], strict=True):
            optional = _is_opt_entry(key_tree)
            key = self.visit(key_tree.children[0] if optional else key_tree)
            if isinstance(key, CELEvalError):
                return key
            value = self.visit(value_tree)
            if isinstance(value, CELEvalError):
                return value
            if optional:
                if not isinstance(value, OptionalValue):
                    return err(
                        f"cannot initialize optional entry '{go_value(key)}' from non-optional "
                        f"value {go_value(value)}"
                    )
                if not value.present:
                    result.pop(key, None)
                    continue
                value = value.value
            if unhashable_lookup(result, key):
                raise hash_panic(key)
            result[key] = value
        return result

    def relation(self, tree: lark.Tree) -> Any:
        """``x in [constants]``: the set lookup of ``cel_operators.set_membership``; ``x in []``
        the constant false, ``x`` unread (decorators.go ``maybeOptimizeSetMembership``)."""
        if len(tree.children) == 2 and tree.children[0].data == "relation_in":
            empty = _single(tree.children[1])
            if isinstance(empty, lark.Tree) and empty.data == "list_lit" and not empty.children:
                return ct.BoolType(False)
            if _primitive_list(tree.children[1]):
                item = self.visit(tree.children[0].children[0])
                return set_membership(item, self.visit(tree.children[1]))
        return super().relation(tree)

    def member_dot(self, tree: lark.Tree) -> Any:
        """A select after an optional one stays optional (``applyQualifiers``); a qualified
        type name (``google.protobuf.Duration``, ``net.IP``) is the type."""
        qualified = QUALIFIED_TYPES.get(dotted_name(tree))
        if qualified is not None:
            return qualified
        if may_be_optional(tree.children[0]):
            target = self.visit(tree.children[0])
            if isinstance(target, OptionalValue):
                key = ct.StringType(str(tree.children[1]))
                return select(target, key, True, relative(tree.children[0]))
        return super().member_dot(tree)

    def member_index(self, tree: lark.Tree) -> Any:
        """An index after an optional select stays optional."""
        if may_be_optional(tree.children[0]):
            target = self.visit(tree.children[0])
            if isinstance(target, OptionalValue):
                key = self.visit(tree.children[1])
                if (bad := bad_qualifier(key)) is not None:
                    return err(bad)
                return select(target, key, True, relative(tree.children[0]))
        return super().member_index(tree)

    def _optional_method(self, target: OptionalValue, name: str, args: list[Any]) -> Any:
        """``hasValue``, ``value``, ``or`` and ``orValue`` (the argument evaluated only for a
        none, as cel-go's ``evalOptionalOr``), ``optMap``, ``optFlatMap``."""
        if name == "hasValue" and not args:
            return ct.BoolType(target.present)
        if name == "value" and not args:
            return target.get()
        if name in ("or", "orValue") and len(args) == 1:
            if target.present:
                return target if name == "or" else target.value
            return self.visit(args[0])  # evalOptionalOr: the alternative as it is
        if name in ("optMap", "optFlatMap") and len(args) == 2:
            var = simple_ident(args[0])
            if var is None:
                return err(f"{name}() variable name must be a simple identifier")
            if not target.present:
                return target
            result = self._with(args[1], {var: target.value})
            if name == "optMap" or isinstance(result, CELEvalError):
                return (
                    OptionalValue(result, True)
                    if name == "optMap" and not isinstance(result, CELEvalError)
                    else result
                )
            return result if isinstance(result, OptionalValue) else err("no such overload")
        return err(f"no such overload: {name}")

    def member_dot_arg(self, tree: lark.Tree) -> Any:
        member_tree, name_token = tree.children[0], tree.children[1]
        name = str(name_token)
        args: list[Any] = (
            list(tree.children[2].children)
            if len(tree.children) > 2 and isinstance(tree.children[2], lark.Tree)
            else []
        )
        receiver = simple_ident(member_tree)
        if name in _OPTIONAL_METHODS and receiver not in NAMESPACES:
            target = self.visit(member_tree)
            if isinstance(target, OptionalValue):
                return self._optional_method(target, name, args)
            if isinstance(target, CELEvalError):
                return target
            if name in ("hasValue", "value") and not args:  # one overload, type-guarded
                return no_overload(name, target)
            if name in ("optMap", "optFlatMap") and len(args) == 2:  # x.hasValue() ? ...
                return no_overload("hasValue", target)
            if name in ("or", "orValue") and len(args) == 1:  # evalOptionalOr's non-optional
                try:  # cel-go v0.26.0 (dra/cel_generations.py)
                    return self.activation.resolve_function(OPTIONAL_OR_KEEPS_RECEIVER)(target)
                except KeyError:
                    return err("no such overload")
        if receiver == "cel" and name == "bind" and len(args) == 3:
            return self._bind(args)
        function = self._namespaced(receiver, name)
        if function is not None:
            values = [self.visit(a) for a in args]
            for v in values:
                if isinstance(v, CELEvalError):
                    return v
            return function(*values)
        if name in _RANGE_MACROS and len(args) == 2 and receiver not in NAMESPACES:
            target = self.visit(member_tree)
            if not isinstance(target, CELEvalError | list | dict):
                return not_iterable(target)
            if name in ("filter", "exists_one", "existsOne"):
                return self._counted_macro(name, target, args)
            if name in ("all", "exists", "map"):
                return self._quantifier(name, target, args)
        if name in TWO_VAR_MACROS and len(args) in TWO_VAR_MACROS[name]:
            return self._two_var(name, member_tree, args)
        if name in _REGEX_FUNCTIONS and len(args) == 1 and receiver not in NAMESPACES:
            found = self._regex(name, self.visit(member_tree), args[0])
            if found is not None:
                return found
        if name == "sortBy" and len(args) == 2:
            return self._sort_by(member_tree, args)
        if name == "map" and len(args) == 3:
            return self._map_filter(member_tree, args)
        if name in _NOT_MACROS:
            target = self.visit(member_tree)
            values = [self.visit(a) for a in args]
            return self.method_eval(target, cast(lark.Token, name_token), values)
        return super().member_dot_arg(tree)

    def _quantifier(self, name: str, target: Any, args: list[Any]) -> Any:
        """``all``/``exists``/``map`` (parser/macro.go): a fold of ``@result && p`` / ``@result
        || p`` / ``@result + [f]`` whose accumulator keeps the first error (interpretable.go
        ``evalAnd``/``evalOr``, ``evalBinary``; celpy's own fold reports "no such overload" for
        two errors, and its map raises an error of ``f``)."""
        var = simple_ident(args[0])
        if var is None:
            return err(f"{name}() variable name must be a simple identifier")
        if isinstance(target, CELEvalError):
            return target
        results = [self._with(args[1], {var: x}) for x in target]
        if name == "map":
            failed = next((r for r in results if isinstance(r, CELEvalError)), None)
            return failed if failed is not None else ct.ListType(results)
        if name == "all":
            return reduce(_AND, results, ct.BoolType(True))
        return reduce(_OR, results, ct.BoolType(False))

    def _namespaced(self, receiver: str | None, name: str) -> Callable[..., Any] | None:
        """The function ``receiver.name`` when ``receiver`` is a namespace (``sets``...)."""
        if receiver not in NAMESPACES:
            return None
        try:
            return self.activation.resolve_function(f"{receiver}.{name}")
        except KeyError:
            return None

    def _bind(self, args: list[Any]) -> Any:
        """``cel.bind(var, init, expr)``: ``expr`` with ``var`` bound to ``init`` (an error of
        ``init`` surfaces only where ``expr`` reads ``var``, as in the comprehension)."""
        var = simple_ident(args[0])
        if var is None:
            return err("cel.bind() variable names must be simple identifiers")
        return self._with(args[2], {var: self.visit(args[1])})

    def _sort_by(self, member_tree: Any, args: list[Any]) -> Any:
        """``sortBy(e, key)`` (ext/lists.go ``sortByMacro``, ``sortListByAssociatedKeys``):
        the list ordered by the keys, which must be comparable and of one type (a stable sort;
        Go's ``sort.Slice`` is one up to 12 elements)."""
        var = simple_ident(args[0])
        if var is None:
            return err("sortBy(var, ...) variable name must be a simple identifier")
        target = self.visit(member_tree)
        if isinstance(target, CELEvalError):
            return target
        if not isinstance(target, list | dict):
            return not_iterable(target)
        if not isinstance(target, ct.ListType):
            return err("no such overload")
        keys = [self._with(args[1], {var: x}) for x in target]
        for k in keys:
            if isinstance(k, CELEvalError):
                return k
        if not keys:
            return target
        if isinstance(keys[0], list | dict):
            return err("list elements must be comparable")
        if any(type(k) is not type(keys[0]) for k in keys):
            return err("list elements must have the same type")
        order = sorted(range(len(keys)), key=lambda i: keys[i])
        return ct.ListType([target[i] for i in order])

    def primary(self, tree: lark.Tree) -> Any:
        """The global ``matches(s, re)`` (:meth:`_regex`)."""
        call = tree.children[0] if len(tree.children) == 1 else None
        if isinstance(call, lark.Tree) and call.data == "ident_arg" and len(call.children) == 2:
            args = call.children[1].children
            if str(call.children[0]) == "matches" and len(args) == 2:
                found = self._regex("matches", self.visit(args[0]), args[1])
                if found is not None:
                    return found
        return super().primary(tree)

    def _regex(self, name: str, target: Any, pattern_tree: Any) -> Any | None:
        """A regex function on no string: with a constant pattern, the optimized call's "no
        such overload"; else ``matches`` is the ``Matcher`` trait's operator
        (``cel_operators.unbound``); None where the function decides."""
        if isinstance(target, CELEvalError | str):
            return target if isinstance(target, CELEvalError) else None
        pattern = self.visit(pattern_tree)
        if isinstance(pattern, CELEvalError):
            return pattern
        if constant_string(pattern_tree):
            return err("no such overload")
        return unbound(name, target) if name == "matches" else None

    def _counted_macro(self, name: str, target: Any, args: list[Any]) -> Any:
        """``filter`` and ``exists_one`` (parser/macro.go: a fold whose step is the
        conditional ``p ? ... : accu``, so a predicate that is no bool is "no such overload",
        and an error ends it)."""
        if isinstance(target, CELEvalError):
            return target
        var = simple_ident(args[0])
        if var is None:
            return err("argument is not an identifier")
        kept: list[Any] = []
        for x in target:
            keep = _condition(self._with(args[1], {var: x}), True, False)
            if isinstance(keep, CELEvalError):
                return keep
            if keep:
                kept.append(x)
        if name == "filter":
            return ct.ListType(kept)
        return ct.BoolType(len(kept) == 1)

    def _map_filter(self, member_tree: Any, args: list[Any]) -> Any:
        """``map(x, filter, transform)`` (cel-go parser/macro.go ``MakeMap``): a comprehension
        whose step is ``filter ? accu + [transform] : accu`` (an error of either ends it)."""
        var = simple_ident(args[0])
        if var is None:
            return err("argument is not an identifier")
        target = self.visit(member_tree)
        if isinstance(target, CELEvalError):
            return target
        if not isinstance(target, list | dict):
            return not_iterable(target)
        out: list[Any] = []
        for x in target:
            keep = self._with(args[1], {var: x})
            if isinstance(keep, CELEvalError):
                return keep
            if not isinstance(keep, ct.BoolType):
                return err("no such overload")
            if keep:
                value = self._with(args[2], {var: x})
                if isinstance(value, CELEvalError):
                    return value
                out.append(value)
        return ct.ListType(out)

    def _two_var(self, name: str, member_tree: Any, args: list[Any]) -> Any:
        """The two-variable comprehensions over a list (index, value) or a map (key, value)."""
        first, second = simple_ident(args[0]), simple_ident(args[1])
        if first is None or second is None:
            return err("argument must be a simple name")
        if first == second:
            return err(f"duplicate variable name: {first}")
        target = self.visit(member_tree)
        if isinstance(target, CELEvalError):
            return target
        if isinstance(target, ct.MapType):
            pairs = list(target.items())
        elif isinstance(target, ct.ListType):
            pairs = [(ct.IntType(i), v) for i, v in enumerate(target)]
        else:
            return err(f"unsupported comprehension range type: {go_type(target)}")

        def each(tree: Any) -> list[Any]:
            return [self._with(tree, {first: a, second: b}) for a, b in pairs]

        if name == "all":
            return reduce(_AND, each(args[2]), ct.BoolType(True))
        if name == "exists":
            return reduce(_OR, each(args[2]), ct.BoolType(False))
        if name in ("existsOne", "exists_one"):  # a step of p ? @result + 1 : @result
            results = [_condition(r, True, False) for r in each(args[2])]
            for r in results:
                if isinstance(r, CELEvalError):
                    return r
            return ct.BoolType(sum(1 for r in results if bool(r)) == 1)
        keep = each(args[2]) if len(args) == 4 else [ct.BoolType(True)] * len(pairs)
        values = each(args[-1])
        if name == "transformList":
            out: list[Any] = []
            for k, v in zip(keep, values, strict=True):
                if isinstance(k, CELEvalError):
                    return k
                if bool(k):
                    if isinstance(v, CELEvalError):
                        return v
                    out.append(v)
            return ct.ListType(out)
        result: dict[Any, Any] = {}
        for (key, _), k, v in zip(pairs, keep, values, strict=True):
            if isinstance(k, CELEvalError):
                return k
            if not bool(k):
                continue
            if isinstance(v, CELEvalError):
                return v
            if name == "transformMap":
                result[key] = v
                continue
            if not isinstance(v, ct.MapType):
                return err("no such overload")
            for ek, ev in v.items():  # cel.@mapInsert (types.InsertMapKeyValue)
                if ek in result:
                    return err(f"insert failed: key {str(ek)} already exists")
                result[ek] = ev
        return ct.MapType(result)


class LibraryRunner(celpy.InterpretedRunner):
    """A celpy runner evaluating with :class:`LibraryEvaluator`."""

    def evaluate(self, context: Any) -> Any:
        return LibraryEvaluator(ast=self.ast, activation=self.new_activation()).evaluate(context)
