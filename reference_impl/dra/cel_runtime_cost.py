"""cel-go's actual (runtime) cost of a DRA selector evaluated on a device, and the limit the
scheduler's program enforces (``cel.CostLimit(CELSelectorExpressionMaxCost)`` in
k8s.io/dynamic-resource-allocation/cel@v0.37.2 compile.go): cel-go v0.29.2
``interpreter/runtimecost.go`` observing the plan of ``interpreter/planner.go`` (attributes,
qualifiers, constant folding of ``cel.OptOptimize``, ``evalFold``), with apiserver v0.37.2
``pkg/cel/library/cost.go`` ``CallCost`` as the call estimator. It walks ``dra/cel_parse.py``'s
tree with celpy's values and the reference's functions; what it does not restate raises
:class:`Unsupported`. docs/dra.md ("The cost limit") gives the gate ``needs_runtime_cost``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import celpy.celtypes as ct
from celpy.evaluation import CELEvalError

from reference_impl.dra import cel, cel_generations
from reference_impl.dra.cel_checker import parse
from reference_impl.dra.cel_cost import CEL_SELECTOR_EXPRESSION_MAX_COST, estimate_tree
from reference_impl.dra.cel_estimate import Estimate
from reference_impl.dra.cel_optional import NONE, DefaultMap, OptionalValue
from reference_impl.dra.cel_overloads import BOOL, BYTES, DOUBLE, INT, NULL, STRING, UINT
from reference_impl.dra.cel_parse import Expr
from reference_impl.dra.cel_runtime_calls import SELF_COMPARED, Panicked, call_cost
from reference_impl.dra.cel_values import bad_qualifier, find_key

#: interpreter/runtimecost.go: the error of an evaluation whose actual cost passes the limit
COST_LIMIT_MESSAGE = "operation cancelled: actual cost limit exceeded"
_LIST_CREATE, _MAP_CREATE, _STRUCT_CREATE = 10, 30, 40  # common.ListCreateBaseCost...
_CONVERSIONS = frozenset(
    ("bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type", "uint")
)
_OPT_QUALIFIERS = ("_?._", "_[?_]")  # optional select and index (cel/library.go)
#: the type names an identifier or a qualified name may be (checker/standard.go), as values
_TYPE_VALUES: dict[str, Any] = cel.TYPE_IDENTS
_OR = {"or": "optional_or_optional", "orValue": "optional_orValue_value"}


class Unsupported(Exception):
    """A node or function whose runtime cost is not restated."""


class CostLimitExceeded(Exception):
    """``EvalCancelledError{CostLimitExceeded}``: the cost when the limit was passed."""

    def __init__(self, cost: int) -> None:
        super().__init__(COST_LIMIT_MESSAGE)
        self.cost = cost


@dataclass(slots=True)
class _Err:
    """An error value (cel-go's ``types.Err``: evaluation goes on, ``&&``/``||`` absorb it)."""

    message: str


@dataclass
class _Frame:
    """A comprehension's activation (``folder``): the accumulator is initialised at its first
    read (``ResolveName``)."""

    names: dict[str, Any]
    parent: _Frame | None
    accu_var: str = ""
    accu_init: Expr | None = None
    accu: Any = None
    initialized: bool = False


def _is_const(e: Expr) -> bool:
    """What ``cel.OptOptimize`` folds to an ``InterpretableConst`` (observed at no cost)."""
    if e.kind == "lit" or _is_type_name(e):
        return True
    if e.kind == "list":
        return all(_is_const(x) for x in e.args)
    if e.kind == "map":
        return all(_is_const(k) and _is_const(v) for k, v in e.entries)
    if e.kind == "call" and e.target is None and len(e.args) == 1:
        if e.name in _CONVERSIONS:
            return _is_const(e.args[0])
    return _is_empty_membership(e)


def _type_name(e: Expr) -> str:
    """The name an identifier or a select chain of one spells (``google.protobuf.Duration``)."""
    if e.kind == "select" and e.target is not None and not e.test_only:
        return f"{_type_name(e.target)}.{e.name}"
    return e.name if e.kind == "ident" else ""


def _is_type_name(e: Expr) -> bool:
    """A type name as a value (``int``, ``net.IP``): planner.go ``planCheckedIdent``'s
    constant."""
    return e.kind in ("ident", "select") and e.type.kind == "type" and _type_name(e) in _TYPE_VALUES


def _is_empty_membership(e: Expr) -> bool:
    """``maybeOptimizeSetMembership`` of an empty constant list: the constant false."""
    return e.kind == "call" and e.name == "@in" and e.args[1].kind == "list" and not e.args[1].args


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool | ct.BoolType)


def _attr_like(e: Expr) -> bool:
    """An ``InterpretableAttribute``: an identifier, a select, an index (optional ones too) or
    a conditional."""
    return (
        (e.kind == "ident" and not _is_type_name(e))
        or (e.kind == "select" and not e.test_only and not _is_type_name(e))
        or (e.kind == "call" and e.name in ("_[_]", "_?_:_", *_OPT_QUALIFIERS))
    )


def _map_insert(args: list[Any]) -> Any:
    """ext/comprehensions.go ``cel.@mapInsert``: a key and value, or a map, into the map."""
    out = ct.MapType(dict(args[0]))
    entries = args[1].items() if len(args) == 2 else [(args[1], args[2])]
    for k, v in entries:
        if k in out:
            return _Err(f"insert failed: key {k} already exists")
        out[k] = v
    return out


def _value(v: Any) -> Any:
    if not isinstance(v, OptionalValue):
        return _Err("no such overload")
    return v.value if v.present else _Err("optional.none() dereference")


def _sort_by_keys(xs: Any, keys: Any) -> Any:
    """ext/lists.go ``sortListByAssociatedKeys``: ``xs`` ordered by ``keys``, comparable
    values of one type (a stable sort)."""
    if not isinstance(xs, list) or not isinstance(keys, list):
        return _Err("no such overload")
    if len(xs) != len(keys):
        return _Err("@sortByAssociatedKeys() expected a list of the same size")
    if not keys:
        return xs
    if keys[0] is None or isinstance(keys[0], list | dict | OptionalValue):
        return _Err("list elements must be comparable")
    if any(type(k) is not type(keys[0]) for k in keys):
        return _Err("list elements must have the same type")
    return ct.ListType([xs[i] for i in sorted(range(len(keys)), key=lambda i: keys[i])])


#: functions the reference's CEL evaluates in its evaluator (cel_macros.py), as functions here
#: (their cost is the default, 1)
_FUNCTIONS: dict[str, Callable[..., Any]] = {"value": _value}
_FUNCTIONS["@sortByAssociatedKeys"] = _sort_by_keys
_FUNCTIONS["hasValue"] = lambda v: (
    ct.BoolType(v.present) if isinstance(v, OptionalValue) else _Err("no such overload")
)


class Tracker:
    """One evaluation's ``CostTracker`` (``limit``: ``CostTrackerLimit``)."""

    def __init__(
        self,
        limit: int | None = CEL_SELECTOR_EXPRESSION_MAX_COST,
        order: int = 0,
        v0_26: bool = False,
    ) -> None:
        self.cost = 0
        self.limit = limit
        #: a map's iteration order (Go's is random): 0 as built, 1 reversed, 2 rotated by one
        self.order = order
        self.v0_26 = v0_26  # cel-go v0.26.0's rules (dra/cel_generations.py)
        library = cel_generations.tracker_functions(cel.FUNCTIONS, v0_26)
        self.functions: dict[str, Callable[..., Any]] = {**library, **_FUNCTIONS}
        #: per node (by identity, the tree outlives the tracker): literal values, constness
        self._literals: dict[int, Any] = {}
        self._consts: dict[int, bool] = {}

    def const(self, e: Expr) -> bool:
        known = self._consts.get(id(e))
        if known is None:
            known = self._consts[id(e)] = _is_const(e)
        return known

    def add(self, n: int) -> None:
        self.cost += n
        if self.limit is not None and self.cost > self.limit:
            raise CostLimitExceeded(self.cost)

    # -- values --

    def lookup(self, name: str, frame: _Frame | None, root: dict[str, Any]) -> Any:
        f = frame
        while f is not None:
            if name == f.accu_var:
                if not f.initialized:
                    f.initialized = True
                    assert f.accu_init is not None
                    f.accu = self.eval(f.accu_init, f.parent, root)
                return f.accu
            if name in f.names:
                return f.names[name]
            f = f.parent
        if name in root:
            return root[name]
        raise Unsupported(f"identifier {name}")  # pragma: no cover (the checker declares it)

    def literal(self, e: Expr) -> Any:
        """A literal's value, once per node."""
        return self.folded(e)

    def _literal(self, e: Expr) -> Any:
        t = e.lit_type
        if t == STRING:
            return ct.StringType(e.lit_str or "")
        if t == INT and e.lit_int is not None:
            return ct.IntType(e.lit_int)
        if t == UINT and e.lit_int is not None:
            return ct.UintType(e.lit_int)
        if t == BOOL and e.lit_int is not None:
            return ct.BoolType(bool(e.lit_int))
        if t == DOUBLE and e.lit_float is not None:
            return ct.DoubleType(e.lit_float)
        if t == NULL:
            return None
        if t == BYTES and e.lit_bytes is not None:
            return ct.BytesType(e.lit_bytes)
        raise Unsupported(f"literal of {t}")

    def apply(self, fn: str, args: list[Any]) -> Any:
        if fn == "dyn":
            return args[0]
        if fn == "cel.@mapInsert":
            return _map_insert(args)
        impl = self.functions.get("_in_" if fn == "@in" else fn)
        if impl is None:
            raise Unsupported(f"function {fn}")
        try:
            out = impl(*args)
        except (
            CELEvalError,
            TypeError,
            ValueError,
            ZeroDivisionError,
            KeyError,
            AttributeError,
        ) as exc:
            return _Err(str(exc))
        return _Err(str(out.args[0])) if isinstance(out, CELEvalError) else out

    # -- evaluation: each node's value, its cost observed as runtimecost.go's Observe --

    def eval(self, e: Expr, frame: _Frame | None, root: dict[str, Any]) -> Any:
        if e.kind == "lit":
            return self.literal(e)
        if _is_type_name(e):
            return _TYPE_VALUES[_type_name(e)]
        if _attr_like(e):
            return self.attribute(e, frame, root, watched=True)
        if e.kind == "select":  # has(): evalTestOnly
            return self.presence(e, frame, root)
        if e.kind in ("list", "map") and self.const(e):
            return self.folded(e)
        if e.kind == "list":
            made = self.make_list(e, frame, root)
            self.add(_LIST_CREATE)
            return made
        if e.kind == "map":
            made = self.make_map(e, frame, root)
            self.add(_MAP_CREATE)
            return made
        if e.kind == "struct":  # evalObj: the provider makes no DRA object (unknown type)
            v: Any = None
            for x in e.args:
                v = self.eval(x, frame, root)
                if isinstance(v, _Err):
                    break
            self.add(_STRUCT_CREATE)
            return v if isinstance(v, _Err) else _Err(f"unknown type '{e.name}'")
        if e.kind == "comp":
            return self.fold(e, frame, root)
        if e.kind == "call":
            return self.call(e, frame, root)
        raise Unsupported(e.kind)

    def make_list(self, e: Expr, frame: _Frame | None, root: dict[str, Any]) -> Any:
        """interpretable.go ``evalList``: the first error stops; an optional entry's none is
        left out."""
        vals = []
        for i, x in enumerate(e.args):
            v = self.eval(x, frame, root)
            if isinstance(v, _Err):
                return v
            if i in e.opt_indices:
                if not isinstance(v, OptionalValue):
                    return _Err("cannot initialize optional list element from non-optional value")
                if not v.present:
                    continue
                v = v.value
            vals.append(v)
        return ct.ListType(vals)

    def make_map(self, e: Expr, frame: _Frame | None, root: dict[str, Any]) -> Any:
        """interpretable.go ``evalMap``: the first error stops; an optional entry's none
        removes its key."""
        out: dict[Any, Any] = {}
        for i, (k, x) in enumerate(e.entries):
            kv = self.eval(k, frame, root)
            if isinstance(kv, _Err):
                return kv
            vv = self.eval(x, frame, root)
            if isinstance(vv, _Err):
                return vv
            if i in e.opt_indices:
                if not isinstance(vv, OptionalValue):
                    return _Err("cannot initialize optional entry from non-optional value")
                if not vv.present:
                    out.pop(kv, None)
                    continue
                vv = vv.value
            out[kv] = vv
        return ct.MapType(out)

    def optional_or(self, e: Expr, frame: _Frame | None, root: dict[str, Any]) -> Any:
        """cel/library.go ``evalOptionalOr``, ``evalOptionalOrValue`` (``decorateOptionalOr``):
        no call cost; the alternative evaluated only for a none."""
        assert e.target is not None
        lhs = self.eval(e.target, frame, root)
        if isinstance(lhs, _Err):
            return lhs
        if not isinstance(lhs, OptionalValue):
            return _Err("no such overload")
        if lhs.present:
            return lhs if e.name == "or" else lhs.value
        return self.eval(e.args[0], frame, root)

    def call(self, e: Expr, frame: _Frame | None, root: dict[str, Any]) -> Any:
        if e.name in ("_&&_", "_||_"):
            stop = e.name == "_||_"
            err: Any = None
            for t in e.args:
                v = self.eval(t, frame, root)
                if _is_bool(v) and bool(v) == stop:
                    return ct.BoolType(stop)
                if not _is_bool(v) and err is None:
                    err = v if isinstance(v, _Err) else _Err("no such overload")
            return err if err is not None else ct.BoolType(not stop)
        if e.name == "@not_strictly_false":
            v = self.eval(e.args[0], frame, root)
            self.add(1)
            return ct.BoolType(bool(v)) if _is_bool(v) else ct.BoolType(True)
        if self.const(e):
            return self.folded(e)
        # the checker's overload id, "" where several remain (none: unchecked, told at runtime)
        overload = (e.overloads[0][0] if len(e.overloads) == 1 else "") if e.overloads else None
        single = overload != ""
        if e.name in _OR and e.target is not None and len(e.args) == 1:
            if [o for o, _ in e.overloads] in ([], [_OR[e.name]]):
                return self.optional_or(e, frame, root)
        if single and e.name == "@in" and e.args[1].kind == "list" and self.const(e.args[1]):
            values = [self.literal_tree(a) for a in e.args[1].args]
            if all(isinstance(x, bool | int | float | str) for x in values):
                v = self.eval(e.args[0], frame, root)  # evalSetMembership: no call cost
                return v if isinstance(v, _Err) else self.apply("@in", [v, ct.ListType(values)])
        operands = ([e.target] if e.target is not None else []) + e.args
        # evalVarArgs (three operands; two of a library function the checker leaves several
        # overloads of, whose dispatcher has only a FunctionOp: common/decls ``Bindings``,
        # planner.go ``planCall``, or of ext/formatting.go's ``format``; a regex function of a
        # constant pattern, which CompileRegexConstants makes a NewCall) stops at an error
        # before the last operand: its arguments are not all on the stack, the call costs
        # nothing (measured on celcost -actual)
        varargs = (
            len(operands) > 2
            or (len(operands) == 2 and (not single or e.name == "format") and e.name[0] not in "_@")
            or (
                e.name in ("matches", "find", "findAll")
                and len(operands) == 2
                and self.const(operands[1])
                and operands[1].lit_type == STRING
            )
        )
        vals = []
        for a in operands:
            v = self.eval(a, frame, root)
            vals.append(v)
            if varargs and isinstance(v, _Err) and len(vals) < len(operands):
                return v
        errs = [v for v in vals if isinstance(v, _Err)]
        out = errs[0] if errs else self.apply(e.name, vals)
        v026 = self.v0_26 and cel_generations.call_cost_v0_26(e.name, vals, overload, e.target)
        self.add(call_cost(e.name, vals, out, overload) if v026 is None or v026 is False else v026)
        return out

    def folded(self, e: Expr) -> Any:
        """A folded constant's value (a literal's included), once per node."""
        try:
            return self._literals[id(e)]
        except KeyError:
            value = self._literals[id(e)] = (
                self._literal(e) if e.kind == "lit" else self.literal_tree(e)
            )
            return value

    def literal_tree(self, e: Expr) -> Any:
        """A folded constant's value (no cost)."""
        if e.kind == "lit":
            return self.literal(e)
        if e.kind == "list":
            return ct.ListType([self.literal_tree(x) for x in e.args])
        if e.kind == "map":
            return ct.MapType({self.literal_tree(k): self.literal_tree(v) for k, v in e.entries})
        if _is_empty_membership(e):
            return ct.BoolType(False)
        if _is_type_name(e):
            return _TYPE_VALUES[_type_name(e)]
        return self.apply(e.name, [self.literal_tree(a) for a in e.args])

    def chain(self, e: Expr) -> tuple[Expr, list[Expr]]:
        """An attribute's operand and its qualifiers (selects and indexes), outermost last."""
        quals: list[Expr] = []
        while True:
            if e.kind == "select" and not e.test_only:
                quals.append(e)
                assert e.target is not None
                e = e.target
            elif e.kind == "call" and e.name in ("_[_]", *_OPT_QUALIFIERS):
                quals.append(e)
                e = e.args[0]
            else:
                break
        quals.reverse()
        return e, quals

    def attribute(self, e: Expr, frame: _Frame | None, root: dict[str, Any], watched: bool) -> Any:
        """An attribute's resolution: its operand (a variable, or a relative attribute's
        expression), each qualifier observed (``evalWatchConstQual``/``evalWatchAttrQual``, 1
        each), the attribute itself (``evalWatchAttr``, 1) unless it is a conditional (its own
        qualifiers' or not: runtimecost.go drops it), a conditional's branch or an index
        qualifier (``conditionalAttribute`` takes ``Attr()``, the unwatched one). From
        an optional qualifier or operand on (attributes.go ``applyQualifiers``), a qualifier is
        ``QualifyIfPresent``, observed only where present: an absent one ends the chain with
        none; the value is then optional."""
        base, quals = self.chain(e)
        obj = self.resolve(base, quals, frame, root)
        if watched and not (base.kind == "call" and base.name == "_?_:_"):
            self.add(1)
        return obj

    def resolve(
        self, base: Expr, quals: list[Expr], frame: _Frame | None, root: dict[str, Any]
    ) -> Any:
        """``Resolve``: the operand, then the qualifiers. A conditional
        (``conditionalAttribute``, of no cost itself) resolves the branch its condition picks
        with the qualifiers added to it (``AddQualifier`` adds them to both branches)."""
        if base.kind == "call" and base.name == "_?_:_":
            cond = self.eval(base.args[0], frame, root)
            if isinstance(cond, _Err):
                return cond
            if not _is_bool(cond):
                return _Err("no such overload")
            branch = base.args[1] if cond else base.args[2]
            if _attr_like(branch):
                inner, more = self.chain(branch)
                return self.resolve(inner, more + quals, frame, root)
            if branch.kind == "select":  # has(): the branch is its attribute, unobserved
                obj = self.presence(branch, frame, root, observed=False)
            else:
                obj = self.eval(branch, frame, root)
        elif base.kind == "ident":
            obj = self.lookup(base.name, frame, root)
        else:
            obj = self.eval(base, frame, root)
        return self.qualified(obj, quals, frame, root)

    def qualified(
        self, obj: Any, quals: list[Expr], frame: _Frame | None, root: dict[str, Any]
    ) -> Any:
        """attributes.go ``applyQualifiers``: each qualifier observed (1); from an optional
        qualifier or operand on, ``QualifyIfPresent``, observed only where present."""
        opt = isinstance(obj, OptionalValue)
        if opt and not obj.present:
            quals = []
        elif opt:
            obj = obj.value
            obj = obj.plain() if isinstance(obj, DefaultMap) and obj.v0_26 else obj
        for q in quals:
            if isinstance(obj, _Err):
                break
            if q.kind == "select":
                key: Any = ct.StringType(q.name)
            elif q.name == "_?._":
                key = ct.StringType(q.opt_field)
            else:
                arg = q.args[1]
                if self.const(arg):
                    key = self.literal_tree(arg)
                elif _attr_like(arg):
                    key = self.attribute(arg, frame, root, watched=False)
                else:
                    key = self.eval(arg, frame, root)
            if opt or q.name in _OPT_QUALIFIERS:
                opt = True
                obj = key if isinstance(key, _Err) else self.qualify_if_present(obj, key)
                if obj is NONE or isinstance(obj, _Err):
                    break
                self.add(1)
                continue
            obj = key if isinstance(key, _Err) else self.qualify(obj, key)
            self.add(1)
        if opt and not isinstance(obj, _Err | OptionalValue):
            obj = OptionalValue(obj, True)
        return obj

    def qualify_if_present(self, obj: Any, key: Any) -> Any:
        """``QualifyIfPresent`` (attributes.go ``refQualify`` as a presence test): the value,
        NONE where absent or not a container (a device's attribute or capacity domain is always
        there: an empty map), or an error (a list's index that is not a number)."""
        if (bad := bad_qualifier(key)) is not None:
            return _Err(bad)
        if isinstance(obj, cel.AttributeMap) and isinstance(key, str):
            return obj[key]
        if isinstance(obj, dict):
            return obj[key] if key in obj else NONE
        if not isinstance(obj, list | tuple):
            return NONE
        value = self.qualify(obj, key)
        if isinstance(value, _Err) and value.message.startswith("index out of bounds"):
            return NONE
        return value

    def qualify(self, obj: Any, key: Any) -> Any:
        if (bad := bad_qualifier(key)) is not None:
            return _Err(bad)
        if isinstance(obj, dict) and isinstance(key, float):
            found, value = find_key(obj, key)
            return value if found else _Err(f"no such key: {key}")
        if isinstance(obj, dict):
            try:
                return obj[key]
            except KeyError:
                return _Err(f"no such key: {key}")
        if isinstance(obj, list | tuple):
            if isinstance(key, int | float) and not _is_bool(key) and float(key).is_integer():
                i = int(key)
                if 0 <= i < len(obj):
                    return obj[i]
                return _Err(f"index out of bounds: {i}")
            return _Err("unsupported index type")  # (its wording: dra/cel_macros.py _index)
        return _Err("no such overload")

    def presence(
        self, e: Expr, frame: _Frame | None, root: dict[str, Any], observed: bool = True
    ) -> Any:
        """``has(x.f)``: the operand's qualifiers, then the presence qualifier (1); the
        attribute's own 1 is taken back (``PresenceTestHasCost(false)``), also from a
        conditional's, which has none (runtimecost.go: 1 less). After an optional
        (``evalTestOnly`` of an optional chain) the qualifier is observed only where present,
        and an absent one is false."""
        assert e.target is not None
        conditional = False
        if _attr_like(e.target):
            base, _ = self.chain(e.target)
            conditional = base.kind == "call" and base.name == "_?_:_"
            obj = self.attribute(e.target, frame, root, watched=False)
        else:
            obj = self.eval(e.target, frame, root)
        out = self.test(obj, ct.StringType(e.name))
        if conditional and observed:
            self.cost -= 1
        return out

    def test(self, obj: Any, name: Any) -> Any:
        """The presence qualifier on the operand's value (its cost, the result)."""
        if isinstance(obj, _Err):
            return obj
        if isinstance(obj, OptionalValue):
            found = obj.present and self.qualify_if_present(obj.value, name)
            if isinstance(found, _Err):
                return found
            if found is False or found is NONE:
                return ct.BoolType(False)
            self.add(1)
            return ct.BoolType(True)
        self.add(1)
        if isinstance(obj, dict):
            return ct.BoolType(name in obj)
        return _Err("no such overload")

    def fold(self, e: Expr, frame: _Frame | None, root: dict[str, Any]) -> Any:
        """``evalFold``: the range, then per element the condition (a bool that is not true
        stops) and the step; the result."""
        assert e.iter_range is not None and e.cond is not None and e.step is not None
        assert e.result is not None
        r = self.eval(e.iter_range, frame, root)
        if isinstance(r, _Err):
            return r
        f = _Frame({}, frame, e.accu_var, e.accu_init)
        items: Iterator[tuple[Any, ...]]
        if e.iter_var2:
            if isinstance(r, dict):
                items = iter(list(r.items()))
            elif isinstance(r, list | tuple):
                items = ((ct.IntType(i), x) for i, x in enumerate(r))
            else:
                return _Err("unsupported comprehension range type")
        elif isinstance(r, dict):
            items = ((k,) for k in list(r))
        elif isinstance(r, list | tuple):
            items = ((x,) for x in r)
        else:
            return _Err("expected iterable type")
        if isinstance(r, dict) and self.order:
            entries = list(items)
            items = iter(entries[::-1] if self.order == 1 else entries[1:] + entries[:1])
        names = (e.iter_var, e.iter_var2) if e.iter_var2 else (e.iter_var,)
        for item in items:
            f.names = dict(zip(names, item, strict=True))
            cond = self.eval(e.cond, f, root)
            if _is_bool(cond) and not cond:
                break
            f.accu = self.eval(e.step, f, root)
            f.initialized = True
        f.names = {}
        return self.eval(e.result, f, root)


def actual_cost(
    root: Expr,
    device: Any,
    limit: int | None = CEL_SELECTOR_EXPRESSION_MAX_COST,
    order: int = 0,
    options: Any = None,
) -> int:
    """The actual cost of evaluating ``root`` (``dra/cel_checker.py``'s tree) with ``device``
    (``cel.device_value`` with ``options``, a ``cel.CELOptions``); raises :class:`CostLimitExceeded`
    once it passes ``limit``, :class:`Unsupported` for what is not restated; ``order``: see
    :class:`Tracker`. Where cel-go panics (:class:`Panicked`), the cost it reached."""
    tracker = Tracker(limit, order, (options or cel.DEFAULT_OPTIONS).v0_26)
    try:
        tracker.eval(root, None, {"device": device})
    except Panicked:
        pass
    return tracker.cost


def _nodes(e: Expr | None) -> Iterator[Expr]:
    if e is None:
        return
    yield e
    for k in (e.target, e.iter_range, e.accu_init, e.cond, e.step, e.result):
        yield from _nodes(k)
    for a in e.args:
        yield from _nodes(a)
    for k, v in e.entries:
        yield from _nodes(k)
        yield from _nodes(v)


#: the estimate above which the gate counts: cel-go's estimate bounds the actual cost of the
#: other forms but for ``lists.range`` of a negative count (an error, sized 1 where the
#: estimate has 0: 12 for 11), so an actual cost is at most 12/11 of the estimate
GATE_ESTIMATE = CEL_SELECTOR_EXPRESSION_MAX_COST * 9 // 10
#: with a relative attribute (a select or index of a call: ``f(x)[0]``,
#: ``optional.of(m).?k``), which costs its qualifiers and 1 more where the estimate has the
#: call's cost and 1 per qualifier, an operand costing at least 1: at most 3/2 of it
RELATIVE_GATE_ESTIMATE = CEL_SELECTOR_EXPRESSION_MAX_COST * 2 // 3


def has_relative_attribute(root: Expr) -> bool:
    """Whether a select or index (optional ones too) applies to a call or comprehension."""
    for n in _nodes(root):
        if _attr_like(n) and n.kind != "ident" and not (n.kind == "call" and n.name == "_?_:_"):
            operand = n.target if n.kind == "select" else n.args[0]
            if operand is not None and operand.kind in ("call", "comp"):
                if not _attr_like(operand) and not _is_const(operand):
                    return True
    return False


def needs_runtime_cost(root: Expr) -> bool:
    """The gate: count the actual cost only where the estimate may not bound it under the
    limit: a two-variable comprehension (its key is not sized: docs/dra.md "The cost limit"),
    or an estimated worst case over :data:`GATE_ESTIMATE` (:data:`RELATIVE_GATE_ESTIMATE`
    with a relative attribute; a selector the API server did not validate, or one near the
    limit)."""
    if any(n.kind == "comp" and n.iter_var2 for n in _nodes(root)):
        return True
    gate = RELATIVE_GATE_ESTIMATE if has_relative_attribute(root) else GATE_ESTIMATE
    return estimate_tree(root).max > gate


@lru_cache(maxsize=1024)
def counted_tree(expression: str) -> Expr | None:
    """The checked tree of a selector the gate counts, else None (also for one the checker
    refuses: the API server refuses it, upstream's scheduler does not compile it). Cached: the
    evaluation does not change the tree."""
    try:
        root = parse(expression)
    except cel.CELCompileError:
        return None
    return root if needs_runtime_cost(root) else None


def exceeds_limit(root: Expr, device: Any, options: Any = None) -> bool:
    """Whether cel-go's evaluation of ``root`` on ``device`` stops at the cost limit (False for
    what is not restated, :class:`Unsupported`: then it is evaluated uncounted)."""
    return stop(root, device, options) == COST_LIMIT_MESSAGE


def stop(root: Expr, device: Any, options: Any = None) -> str | None:
    """The error of a counted evaluation that stops: at the cost limit, or where a list
    tracker panics (``Panicked``); None if it does not, or for what is not restated."""
    tracker = Tracker(CEL_SELECTOR_EXPRESSION_MAX_COST, 0, (options or cel.DEFAULT_OPTIONS).v0_26)
    try:
        tracker.eval(root, None, {"device": device})
    except (CostLimitExceeded, Panicked) as e:
        return str(e)
    except Unsupported:
        return None
    return None


def instantiation_error(root: Expr) -> str | None:
    """interpreter/decorators.go ``maybeOptimizeConstUnary``: a type conversion of a constant
    is evaluated as the program is planned (children first); its error fails ``env.Program``
    ("program instantiation failed: integer overflow"), as does an index by a constant of a
    type no qualifier takes (planner.go ``planCallIndex``, attributes.go ``newQualifier``)."""
    tracker = Tracker(None)
    for n in reversed(list(_nodes(root))):
        if n.kind == "call" and n.name in _CONVERSIONS and n.target is None and len(n.args) == 1:
            if _is_const(n.args[0]):
                value = tracker.folded(n)
                if isinstance(value, _Err):
                    return f"program instantiation failed: {value.message}"
        if n.kind == "call" and n.name in ("_[_]", "_[?_]") and _is_const(n.args[1]):
            bad = bad_qualifier(tracker.folded(n.args[1]))  # planner.go NewQualifier
            if bad is not None:
                return f"program instantiation failed: {bad}"
    return None


def compile_cost(expression: str, list_type_attributes: bool = False) -> Estimate:
    """compile.go ``CompileCELExpression`` in the NewExpressions environment (the API server's
    verdict): the checker (``dra/cel_checker.py`` ``parse``), ``env.Program`` (a failing
    folded constant: :func:`instantiation_error`) and ``env.EstimateCost``; raises
    ``CELCompileError``."""
    root = parse(expression, list_type_attributes)
    if (failed := instantiation_error(root)) is not None:
        raise cel.CELCompileError(failed)
    return estimate_tree(root)


def may_panic(root: Expr) -> bool:
    """Whether a call has a list tracker that asserts its argument is a list (``distinct``,
    ``sort``, ``sortBy``'s ``@sortByAssociatedKeys``, of one overload), which then panics
    on an error or another value: counted wherever the gate is not."""
    return any(
        n.kind == "call" and n.name in SELF_COMPARED and len(n.overloads) == 1 for n in _nodes(root)
    )


class LimitedSelector(cel.CompiledSelector):
    """A selector as the scheduler's program runs it, ``cel.CostLimit``: where the gate counts,
    an evaluation whose actual cost passes the limit fails with cel-go's error."""

    def __init__(
        self, expression: str, consumable_capacity: bool = True, options: Any = None
    ) -> None:
        options = options or cel.DEFAULT_OPTIONS
        # the checker's errors; StoredExpressions ignores FeatureEnabled, so from 1.36 the last
        # device declaration, compile.go's list-type attributes (dyn), is the scheduler's
        self.root = parse(expression, not options.v0_26, options.includes)
        if (failed := instantiation_error(self.root)) is not None:
            raise cel.CELCompileError(failed)
        super().__init__(expression, consumable_capacity, options)
        self._counted: Expr | None | bool = None  # not decided yet; False: not counted

    def device_matches(self, device: cel.DeviceView) -> bool:
        dev = cel.device_value(device, self.consumable_capacity, self.options)
        if self._counted is None:  # the scheduler's tree (StoredExpressions)
            counted = needs_runtime_cost(self.root) or may_panic(self.root)
            self._counted = self.root if counted else False
        if isinstance(self._counted, Expr):
            message = stop(self._counted, dev, self.options)
            if message is not None:
                raise cel.CELMatchError(message)
        return self.value_matches(dev)


def compile_selector(
    expression: str, consumable_capacity: bool = True, options: Any = None
) -> LimitedSelector:
    """``CompileCELExpression`` with the runtime cost limit (``dra/cel.py``'s
    ``compile_selector`` evaluates without it; ``options``: ``cel.CELOptions``); raises
    ``CELCompileError``."""
    return LimitedSelector(expression, consumable_capacity, options)
