"""The worst-case cost estimate of a DRA device selector, as the API server computes it.

Upstream: ``k8s.io/dynamic-resource-allocation/cel/compile.go`` (v0.37.2):
``CompileCELExpression`` estimates ``MaxCost`` with ``env.EstimateCost(ast, estimator)``
(``library.CostEstimator`` over compile.go's ``sizeEstimator``: ``dra/cel_cost_library.py``);
``pkg/apis/resource/validation/validation.go`` (k8s.io/kubernetes v1.37.2,
``validateCELExpression``) refuses a selector whose ``MaxCost`` exceeds
``CELSelectorExpressionMaxCost``. :class:`_Coster` restates cel-go@v0.29.2
``checker/cost.go`` over the tree of ``dra/cel_checker.py``; a presence test costs nothing
(apiserver ``pkg/cel/environment/base.go``: ``PresenceTestHasCost(false)``). A function the
estimator does not know gets cel-go's default call cost (1 plus its arguments).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from reference_impl.dra.cel import CELCompileError
from reference_impl.dra.cel_checker import ACCUMULATORS, parse
from reference_impl.dra.cel_cost_library import (
    Node,
    estimate_size,
    ext_call_cost,
    library_call_cost,
)
from reference_impl.dra.cel_estimate import (
    LIST_CREATE_BASE_COST,
    MAP_CREATE_BASE_COST,
    ONE,
    REGEX_STRING_LENGTH,
    SELECT_AND_IDENT_COST,
    STRING_TRAVERSAL,
    STRUCT_CREATE_BASE_COST,
    U64,
    UNKNOWN,
    ZERO,
    EntrySize,
    Estimate,
    GoPath,
    fixed,
    go_append,
    sat_add,
    sat_mul,
)
from reference_impl.dra.cel_overloads import is_scalar
from reference_impl.dra.cel_parse import Expr

#: ``resourceapi.CELSelectorExpressionMaxCost`` (k8s.io/api resource/v1 types.go)
CEL_SELECTOR_EXPRESSION_MAX_COST = 1_000_000
#: ``resourceapi.CELSelectorExpressionMaxLength``
CEL_SELECTOR_EXPRESSION_MAX_LENGTH = 10 * 1024


# --- the coster (cel-go checker/cost.go) ---


@dataclass(frozen=True, slots=True)
class _Var:
    """A ``localVar`` of the coster: its path, size and entry size."""

    path: GoPath | None
    size: Estimate | None
    entry: EntrySize | None


class _Coster:
    """``coster``: the cost of each node, with the field paths and sizes it tracks."""

    def __init__(self) -> None:
        self.locals: dict[str, list[_Var]] = {}
        self.presence_test_cost = ZERO  # base.go: PresenceTestHasCost(false)

    # scopes
    def _push(self, name: str, var: _Var) -> None:
        self.locals.setdefault(name, []).append(var)

    def _pop(self, name: str) -> None:
        self.locals[name].pop()

    def _peek(self, name: str) -> _Var | None:
        stack = self.locals.get(name)
        return stack[-1] if stack else None

    def _path(self, e: Expr) -> GoPath | None:
        """``getPath``: the path itself (a Go slice sharing its array), not a copy."""
        if e.kind == "ident":
            v = self._peek(e.name)
            if v is not None:
                return v.path
        return e.path

    def _node(self, e: Expr) -> Node:
        go_path = self._path(e)
        path = None if go_path is None else go_path.items()
        if path and path[0] in ACCUMULATORS:
            path = None
        return Node(path, e.type, e, self.compute_size(e))

    def size_or_unknown(self, e: Expr) -> Estimate:
        return self.compute_size(e) or UNKNOWN

    def compute_size(self, e: Expr) -> Estimate | None:
        if e.size is not None:
            return e.size
        fixed = _expr_size(e)
        if fixed is not None:
            return fixed
        path = self._path(e)
        size = estimate_size(None if path is None else path.items())
        if size is not None:
            e.size = size
            return size
        if is_scalar(e.type):
            return ONE
        if e.kind == "ident":
            v = self._peek(e.name)
            if v is not None and v.size is not None:
                return v.size
        return None

    def entry_size(self, e: Expr) -> EntrySize | None:
        if e.entry is not None:
            return e.entry
        if e.kind == "ident":
            v = self._peek(e.name)
            if v is not None:
                return v.entry
        return None

    def _extend(self, e: Expr, name: str) -> GoPath:
        return go_append(self._path(e), name)

    # costs
    def cost(self, e: Expr) -> Estimate:
        if e.kind == "lit":
            return ZERO
        if e.kind == "ident":
            v = self._peek(e.name)
            e.path = v.path if v is not None else GoPath([e.name], 1)
            return fixed(SELECT_AND_IDENT_COST)
        if e.kind == "select":
            return self._select(e)
        if e.kind == "call":
            return self._call(e)
        if e.kind == "list":
            return self._list(e)
        if e.kind == "map":
            return self._map(e)
        if e.kind == "struct":
            total = ZERO
            for a in e.args:
                total = total.add(self.cost(a))
            return total.add(fixed(STRUCT_CREATE_BASE_COST))
        if _is_bind(e):
            return self._bind(e)
        return self._comprehension(e)

    def _select(self, e: Expr) -> Estimate:
        assert e.target is not None
        if e.test_only:
            return self.presence_test_cost.add(self.cost(e.target))
        total = self.cost(e.target)
        if e.target.type.kind in ("map", "struct", "param"):
            total = total.add(fixed(SELECT_AND_IDENT_COST))
        e.path = self._extend(e.target, e.name)
        return total

    def _call(self, e: Expr) -> Estimate:
        if e.name == "dyn" and e.target is None and len(e.args) == 1:
            arg_cost = self.cost(e.args[0])
            self._set_size(e, self.compute_size(e.args[0]))
            self._set_entry(e, self.entry_size(e.args[0]))
            return ONE.add(arg_cost)
        arg_costs: list[Estimate] = []
        nodes: list[Node] = []
        for a in e.args:
            arg_costs.append(self.cost(a))
            nodes.append(self._node(a))
        total = ZERO
        target: Node | None = None
        if e.target is not None:
            total = total.add(self.cost(e.target))
            target = self._node(e.target)
        # A function without a matching overload does not compile upstream; a function the
        # estimator does not know at all gets the default call cost.
        overloads = [oid for oid, _ in e.overloads] or [""]
        fn_cost = Estimate(U64, 0)
        result_size: Estimate | None = None
        for oid in overloads:
            cost, size = self._function_cost(e, oid, target, nodes, arg_costs)
            fn_cost = fn_cost.union(cost)
            if size is not None:
                result_size = size if result_size is None else result_size.union(size)
            if oid in ("index_list", "index_map") and e.args:
                entry = self.entry_size(e.args[0])
                result_size = entry.val if entry is not None else None
                e.path = self._extend(e.args[0], "@items" if oid == "index_list" else "@values")
            if result_size is None:
                result_size = self.compute_size(e)
        self._set_size(e, result_size)
        return total.add(fn_cost)

    def _set_size(self, e: Expr, size: Estimate | None) -> None:
        if size is not None:
            e.size = size

    def _set_entry(self, e: Expr, entry: EntrySize | None) -> None:
        if entry is not None:
            e.entry = entry

    def _list(self, e: Expr) -> Estimate:
        total = ZERO
        item = Estimate(0 if not e.args else U64, 0)
        for a in e.args:
            total = total.add(self.cost(a))
            item = item.union(self.size_or_unknown(a))
        e.entry = EntrySize("list", ONE, item)
        return total.add(fixed(LIST_CREATE_BASE_COST))

    def _map(self, e: Expr) -> Estimate:
        total = ZERO
        empty = not e.entries
        key = Estimate(0 if empty else U64, 0)
        val = Estimate(0 if empty else U64, 0)
        for k, v in e.entries:
            total = total.add(self.cost(k)).add(self.cost(v))
            key = key.union(self.size_or_unknown(k))
            val = val.union(self.size_or_unknown(v))
        e.entry = EntrySize("map", key, val)
        return total.add(fixed(MAP_CREATE_BASE_COST))

    def _push_local(self, name: str, init: Expr) -> None:
        self._push(name, _Var(self._path(init), self.compute_size(init), self.entry_size(init)))

    def _push_iter(self, name: str, rng: Expr, which: str) -> None:
        """``pushIterSingle`` (``single``), ``pushIterKey`` and ``pushIterValue``."""
        entry = self.entry_size(rng)
        container = entry.container if entry is not None else rng.type.kind
        size = entry.key if entry is not None else None
        if which == "single":
            sub = "@keys"
            if container == "list":
                size, sub = (entry.val if entry is not None else None), "@items"
        elif which == "key":
            sub = "@indices" if container == "list" else "@keys"
        else:
            size = entry.val if entry is not None else None
            sub = "@items" if container == "list" else "@values"
        self._push(name, _Var(go_append(self._path(rng), sub), size, None))

    def _comprehension(self, e: Expr) -> Estimate:
        assert e.iter_range and e.accu_init and e.cond and e.step and e.result
        total = self.cost(e.iter_range).add(self.cost(e.accu_init))
        self._push_local(e.accu_var, e.accu_init)
        if e.iter_var2:
            self._push_iter(e.iter_var, e.iter_range, "key")
            self._push_iter(e.iter_var2, e.iter_range, "value")
        else:
            self._push_iter(e.iter_var, e.iter_range, "single")
        loop = self.cost(e.cond)
        step = self.cost(e.step)
        self._pop(e.iter_var)
        if e.iter_var2:
            self._pop(e.iter_var2)
        total = total.add(self.cost(e.result))
        self._pop(e.accu_var)
        count = self.size_or_unknown(e.iter_range)
        total = total.add(count.multiply(step.add(loop)))
        if e.accu_init.kind == "lit":
            self._set_size(e, self.compute_size(e.accu_init))
        elif e.accu_init.kind in ("list", "map"):
            e.size = count
            self._set_entry(e, self.entry_size(e.step))
        return total

    def _bind(self, e: Expr) -> Estimate:
        """``costBind``: the empty range, the bound value, then the result."""
        assert e.iter_range and e.accu_init and e.result
        total = self.cost(e.iter_range).add(self.cost(e.accu_init))
        self._push_local(e.accu_var, e.accu_init)
        total = total.add(self.cost(e.result))
        self._pop(e.accu_var)
        self._set_size(e, self.compute_size(e.result))
        self._set_entry(e, self.entry_size(e.result))
        return total

    def _function_cost(
        self, e: Expr, oid: str, target: Node | None, args: list[Node], arg_costs: list[Estimate]
    ) -> tuple[Estimate, Estimate | None]:
        """``functionCost``: the ext libraries' overload estimators, then the Kubernetes
        library's ``EstimateCallCost``, then cel-go's own overload costs, else 1."""
        arg_sum = ZERO
        for c in arg_costs:
            arg_sum = arg_sum.add(c)
        ext = ext_call_cost(oid, target, args)
        if ext is not None:
            return ext[0].add(arg_sum), ext[1]
        library = library_call_cost(e.name, oid, target, args)
        if library is not None:
            return library[0].add(arg_sum), library[1]
        return self._builtin_cost(e, oid, target, args, arg_costs, arg_sum)

    def _builtin_cost(
        self,
        e: Expr,
        oid: str,
        target: Node | None,
        args: list[Node],
        arg_costs: list[Estimate],
        arg_sum: Estimate,
    ) -> tuple[Estimate, Estimate | None]:
        def size(n: Node) -> Estimate:
            return n.computed or UNKNOWN

        if oid == "string_format" and target is not None:
            return size(target).factor(STRING_TRAVERSAL).add(arg_sum), None
        if oid in ("string_to_bytes", "bytes_to_string", "strings_quote") and len(args) == 1:
            sz = size(args[0])
            results = {
                "string_to_bytes": Estimate(sz.min, sat_mul(sz.max, 4)),
                "bytes_to_string": Estimate(sz.min // 4, sz.max),
                "strings_quote": Estimate(sat_add(sz.min, 2), sat_add(sat_mul(sz.max, 2), 2)),
            }
            return sz.factor(STRING_TRAVERSAL).add(arg_sum), results[oid]
        if oid in ("starts_with_string", "ends_with_string") and len(args) == 1:
            return size(args[0]).factor(STRING_TRAVERSAL).add(arg_sum), None
        if oid == "in_list" and len(args) == 2:
            return size(args[1]).factor(1).add(arg_sum), None
        if oid in ("matches", "matches_string"):
            pair = (
                (target, args[0])
                if oid == "matches_string" and target is not None and len(args) == 1
                else (args[0], args[1])
                if oid == "matches" and target is None and len(args) == 2
                else None
            )
            if pair is not None:
                s, r = pair
                str_cost = size(s).add(ONE).factor(STRING_TRAVERSAL)
                regex_cost = size(r).factor(REGEX_STRING_LENGTH)
                return str_cost.multiply(regex_cost).add(arg_sum), None
        if oid == "contains_string" and target is not None and len(args) == 1:
            str_cost = size(target).factor(STRING_TRAVERSAL)
            sub_cost = size(args[0]).factor(STRING_TRAVERSAL)
            return str_cost.multiply(sub_cost).add(arg_sum), None
        if oid in ("logical_or", "logical_and"):
            lhs, rhs = arg_costs
            return Estimate(lhs.min, lhs.add(rhs).max), None
        if oid == "conditional":
            assert len(e.args) == 3
            result = size(args[1]).union(size(args[2]))
            left = self.entry_size(e.args[1])
            right = self.entry_size(e.args[2])
            self._set_entry(e, left.union(right) if left is not None else None)
            return arg_costs[0].add(arg_costs[1].union(arg_costs[2])), result
        if oid in ("add_string", "add_bytes", "add_list") and len(args) == 2:
            result = size(args[0]).add(size(args[1]))
            left = self.entry_size(e.args[0])
            right = self.entry_size(e.args[1])
            self._set_entry(e, left.union(right) if left is not None else None)
            if oid == "add_list":
                return ONE.add(arg_sum), result
            return result.factor(STRING_TRAVERSAL).add(arg_sum), result
        if oid in _SIZED_COMPARISONS:
            lhs, rhs = size(args[0]), size(args[1])
            smallest = min(lhs.max, rhs.max)
            low = 1 if smallest > 0 else 0
            return Estimate(low, smallest).factor(STRING_TRAVERSAL).add(arg_sum), None
        return ONE.add(arg_sum), None


_SIZED_COMPARISONS = frozenset(
    [
        f"{op}_{t}"
        for op in ("less", "greater", "less_equals", "greater_equals")
        for t in ("string", "bytes")
    ]
    + ["equals", "not_equals"]
)


def _expr_size(e: Expr) -> Estimate | None:
    """``computeExprSize``: the sizes CEL knows from the expression itself."""
    if e.kind == "lit":
        return None if e.lit_size is None else fixed(e.lit_size)
    if e.kind == "list":
        return fixed(len(e.args))
    if e.kind == "map":
        return fixed(len(e.entries))
    return None


def _is_bind(e: Expr) -> bool:
    """``isBind``: an empty list range, a literal false condition, a named accumulator."""
    return (
        e.iter_range is not None
        and e.iter_range.kind == "list"
        and not e.iter_range.args
        and e.macro == "bind"
    )


# --- the entry points ---


@functools.lru_cache(maxsize=4096)
def estimate_tree(root: Expr) -> Estimate:
    """``env.EstimateCost`` of a checked tree (``dra/cel_checker.py`` ``parse``)."""
    return _Coster().cost(root)


def estimate_cost(expression: str, list_type_attributes: bool = False) -> Estimate:
    """``env.EstimateCost`` of a selector (``CompilationResult.MaxCost`` is ``.max``); raises
    :class:`CELCompileError` for one that does not compile (``dra/cel_checker.py``)."""
    return _Coster().cost(parse(expression, list_type_attributes))


def too_expensive(expression: str) -> int | None:
    """The estimated worst-case cost when it exceeds ``CELSelectorExpressionMaxCost`` (the
    API server refuses such a selector: "too complex, exceeds cost limit"), else None (also
    for one that does not compile, which the API server refuses for that first)."""
    try:
        cost = estimate_cost(expression).max
    except CELCompileError:
        return None
    return cost if cost > CEL_SELECTOR_EXPRESSION_MAX_COST else None
