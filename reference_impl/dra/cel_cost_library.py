"""The sizes and the library call costs of the DRA selector cost estimate (``dra/cel_cost.py``).

- ``k8s.io/dynamic-resource-allocation/cel/compile.go`` (v0.37.2) ``sizeEstimator``: the
  maximum sizes declared for the ``device`` variable's fields (k8s.io/api resource/v1
  ``types.go``); with DRAListTypeAttributes off as in v1.37.2 (an attribute's maximum size,
  64, is the same with it on);
- ``k8s.io/apiserver@v0.37.2/pkg/cel/library/cost.go`` ``EstimateCallCost`` (per function
  name);
- ``github.com/google/cel-go@v0.29.2/ext/sets.go`` and ``ext/lists.go`` (version 3): the
  estimators of the ext overloads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from reference_impl.dra.cel_estimate import (
    LIST_CREATE_BASE_COST,
    ONE,
    REGEX_STRING_LENGTH,
    STRING_TRAVERSAL,
    STRUCT_CREATE_BASE_COST,
    U64,
    UNKNOWN,
    ZERO,
    Estimate,
    fixed,
)
from reference_impl.dra.cel_overloads import CIDR, INT, IP, QUANTITY, SEMVER, URL, CelType
from reference_impl.dra.cel_parse import Expr

# k8s.io/api resource/v1 types.go: the sizes compile.go declares the device type with
DRIVER_NAME_MAX_LENGTH = 63
DEVICE_MAX_DOMAIN_LENGTH = 63
DEVICE_MAX_ID_LENGTH = 32
DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH = 64
RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE = 48
RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32


# --- the declared device type and compile.go's sizeEstimator ---


@dataclass(eq=False)
class _Decl:
    """An ``apiservercel.DeclType``: what the size estimator reads (MaxElements, the fields
    of an object, the key and element of a map)."""

    max_elements: int
    fields: dict[str, _Decl] | None = None
    key: _Decl | None = None
    elem: _Decl | None = None


_ATTRIBUTE_DECL = _Decl(
    max(DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH, RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE)
)
_DOMAIN_DECL = _Decl(DEVICE_MAX_DOMAIN_LENGTH)
_ID_DECL = _Decl(DEVICE_MAX_ID_LENGTH)
_N = RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE
_DEVICE_DECL = _Decl(
    0,
    fields={
        "driver": _Decl(DRIVER_NAME_MAX_LENGTH),
        "allowMultipleAllocations": _Decl(1),  # multiAllocType
        "attributes": _Decl(
            _N, key=_DOMAIN_DECL, elem=_Decl(_N, key=_ID_DECL, elem=_ATTRIBUTE_DECL)
        ),
        # QuantityDeclType declares no MaxElements
        "capacity": _Decl(_N, key=_DOMAIN_DECL, elem=_Decl(_N, key=_ID_DECL, elem=_Decl(0))),
    },
)


def estimate_size(path: list[str] | None) -> Estimate | None:
    """compile.go ``sizeEstimator.EstimateSize``: the declared maximum size along a field
    path from ``device`` (``@items``/``@values`` for elements, ``@keys`` for keys); any
    name below an attribute map is an attribute."""
    if not path or path[0] != "device":
        return None
    node = _DEVICE_DECL
    for name in path[1:]:
        if name in ("@items", "@values"):
            if node.elem is None:
                return None
            node = node.elem
        elif name == "@keys":
            if node.key is None:
                return None
            node = node.key
        else:
            found = (node.fields or {}).get(name)
            if found is None:
                if node.elem is _ATTRIBUTE_DECL:
                    node = _ATTRIBUTE_DECL
                    continue
                return None
            node = found
    return Estimate(0, node.max_elements)


@dataclass(frozen=True, slots=True)
class Node:
    """An ``AstNode`` as the estimators see it."""

    path: list[str] | None
    type: CelType
    expr: Expr | None
    computed: Estimate | None


def library_size(n: Node) -> Estimate:
    """library/cost.go ``sizeEstimate``: the computed size, else the declared one."""
    if n.computed is not None:
        return n.computed
    return estimate_size(n.path) or UNKNOWN


def element_node(n: Node) -> Node | None:
    """``listElementNode``: the element of a list (the key of a map) as a node."""
    if not n.type.params:
        return None
    path = None if n.path is None else n.path + ["@items"]
    return Node(path, n.type.params[0], None, None)


def _literal_uint(n: Node, default: int) -> int:
    """ext/costs.go ``nodeAsUintValue``: an int literal (a negative one is 0), else
    ``default``."""
    e = n.expr
    if e is None or e.kind != "lit" or e.lit_type != INT or e.lit_int is None:
        return default
    return max(e.lit_int, 0)


def _allocating_list_call(factor: float, size: Estimate) -> tuple[Estimate, Estimate]:
    """ext/lists.go ``estimateAllocatingListCall``: the size times the factor, plus the call
    and the list's creation; the result has that size."""
    return size.factor(factor).add(ONE).add(fixed(LIST_CREATE_BASE_COST)), size


def ext_call_cost(
    oid: str, target: Node | None, args: list[Node]
) -> tuple[Estimate, Estimate | None] | None:
    """The estimators cel-go's ext libraries bind to overload IDs (``checker.
    OverloadCostEstimate``), which come before the Kubernetes library's: ``ext/sets.go``
    (the product of the sizes, twice for ``equivalent``, plus the call) and ``ext/lists.go``
    (version 3: ``estimateListSlice``, ``estimateListsRange``, ``estimateListReverse``,
    ``estimateListFlatten``, ``estimateListDistinct``, ``estimateListSort``,
    ``estimateListSortBy``)."""
    if oid.startswith("list_sets_") and len(args) == 2:
        factor = 2.0 if oid == "list_sets_equivalent_list" else 1.0
        return library_size(args[0]).multiply(library_size(args[1])).factor(factor).add(ONE), None
    if oid == "lists_range" and target is None and len(args) == 1:
        return _allocating_list_call(1, fixed(_literal_uint(args[0], U64)))
    if target is None:
        return None
    size = library_size(target)
    if oid == "list_slice" and len(args) == 2:
        start = _literal_uint(args[0], 0)
        end = _literal_uint(args[1], size.max)
        return _allocating_list_call(1, fixed((end - start) % (U64 + 1)))
    if oid == "list_reverse" and not args:
        return _allocating_list_call(1, size)
    if oid in ("list_flatten", "list_flatten_int") and len(args) <= 1:
        depth = _literal_uint(args[0], U64) if args else 1
        return _allocating_list_call(float(depth), size)
    if oid == "list_distinct" and not args:
        return _allocating_list_call(2.0, size.multiply(size))
    if oid.endswith("_sort") and oid.startswith("list_") and not args:
        factor = 2.0 + (STRING_TRAVERSAL if oid in ("list_string_sort", "list_bytes_sort") else 0)
        return _allocating_list_call(factor, size.multiply(size))
    if oid.endswith("_sortByAssociatedKeys") and len(args) == 1:  # estimateListSortBy
        keys = library_size(args[0])
        string_keys = oid.startswith(("list_string_", "list_bytes_"))
        return _allocating_list_call(
            2.0 + (STRING_TRAVERSAL if string_keys else 0), keys.multiply(keys)
        )
    return None


_NOMINAL = frozenset(
    [
        "serviceAccount",
        "path",
        "group",
        "resource",
        "subresource",
        "namespace",
        "name",
        "allowed",
        "reason",
        "error",
        "errored",
        "masked",
        "prefixLength",
        "family",
        "isUnspecified",
        "isLoopback",
        "isLinkLocalMulticast",
        "isLinkLocalUnicast",
        "isGlobalUnicast",
        "format.named",
        "sign",
        "asInteger",
        "isInteger",
        "asApproximateFloat",
        "isGreaterThan",
        "isLessThan",
        "compareTo",
        "add",
        "sub",
        "major",
        "minor",
        "patch",
        "getScheme",
        "getHostname",
        "getHost",
        "getPort",
        "getEscapedPath",
        "getQuery",
    ]
)


def library_call_cost(
    fn: str, oid: str, target: Node | None, args: list[Node]
) -> tuple[Estimate, Estimate | None] | None:
    """k8s.io/apiserver/pkg/cel/library/cost.go ``EstimateCallCost`` (by function name):
    the call's own cost and result size, or None where it has no estimate."""
    t = STRING_TRAVERSAL
    if fn == "check":
        return fixed(350000), None
    if fn in _NOMINAL:
        return (ONE, None) if fn != "ip" else None
    if fn in ("fieldSelector", "labelSelector") and len(args) == 1:
        length = library_size(args[0])
        requirements = length.factor(0.5).factor(LIST_CREATE_BASE_COST + STRUCT_CREATE_BASE_COST)
        return (fixed(LIST_CREATE_BASE_COST).add(length.factor(t)).add(requirements), None)
    if (
        fn in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes")
        and target is not None
    ):
        element = element_node(target)
        el_cost = ONE
        if element is not None:
            if element.type.kind in ("string", "bytes"):
                el_cost = el_cost.add(library_size(element).factor(t))
            return library_size(target).multiply(el_cost), None
        if fn == "includes":
            return library_size(target).multiply(el_cost), None
        return library_size(target).factor(t), None
    if fn in ("url", "jsonpatch.escapeKey") and len(args) == 1:
        sz = library_size(args[0])
        return sz.factor(t), sz
    if fn in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
        sz = library_size(target)
        return sz.factor(t), sz
    if fn == "replace" and target is not None and len(args) >= 2:
        return _replace_cost(target, args)
    if fn == "split" and target is not None:
        sz = library_size(target)
        most = sz.max
        if len(args) > 1 and args[1].expr is not None and args[1].expr.lit_int is not None:
            most = args[1].expr.lit_int % (1 << 64)
        return sz.factor(2 * t), Estimate(0, most)
    if fn == "join" and target is not None:
        return _join_cost(target, args)
    if fn in ("find", "findAll") and target is not None and len(args) >= 1:
        sz = library_size(target)
        str_cost = sz.add(ONE).factor(t)
        regex_cost = library_size(args[0]).factor(REGEX_STRING_LENGTH)
        return str_cost.multiply(regex_cost), Estimate(0, sz.max)
    if fn in ("cidr", "isIP", "isCIDR") and len(args) >= 1:
        return library_size(args[0]).factor(t), None
    if fn == "ip":
        if oid == "cidr_ip":
            return ONE, None
        if len(args) >= 1:
            return library_size(args[0]).factor(t), None
    if fn == "ip.isCanonical" and len(args) >= 1:
        return library_size(args[0]).factor(2 * t), None
    if fn in ("containsIP", "containsCIDR") and len(args) >= 1:
        ip = Estimate(4, 16)
        cost = ip.add(ip).factor(t)
        if fn == "containsCIDR":
            cost = cost.add(ip.factor(t)).add(ONE)
        if oid in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
            cost = cost.add(library_size(args[0]).factor(t))
        return cost, None
    if fn in ("quantity", "isQuantity", "semver", "isSemver") and len(args) >= 1:
        return library_size(args[0]).factor(t), None
    if fn == "validate" and len(args) >= 1:
        # cel.MaxNameFormatRegexSize (k8s.io/apiserver/pkg/cel/format.go)
        return library_size(args[0]).factor(t).factor(128 * REGEX_STRING_LENGTH), None
    if fn == "_==_" and len(args) == 2 and args[0].type == args[1].type:
        lhs = args[0].type
        if lhs in (IP, CIDR, QUANTITY, SEMVER):
            return ONE, None
        if lhs == URL:
            size = ONE
            rhs = args[1].computed
            if rhs is not None:
                size = rhs.union(rhs)  # upstream reads rhs twice
            return Estimate(1, size.max).factor(t), None
    return None


def _replace_cost(target: Node, args: list[Node]) -> tuple[Estimate, Estimate]:
    """library/cost.go ``replace``: the traversal plus the result's construction."""
    sz = library_size(target)
    old = library_size(args[0])
    new = library_size(args[1])
    count_max = retained_max = count_min = retained_min = 0
    if old.min == 0:
        count_max = sz.max + 1 if sz.max < U64 else sz.max
        retained_max = sz.max
    elif new.max <= old.min:
        retained_max = sz.max
    else:
        count_max = int(math.ceil(float(sz.max) / float(old.min)))
    if old.max == 0:
        count_min = sz.min + 1 if sz.min < U64 else sz.min
        retained_min = sz.min
    elif old.max <= new.min:
        retained_min = sz.min
    else:
        count_min = int(math.ceil(float(sz.min) / float(old.max)))
    result = Estimate(count_min, count_max).multiply(new).add(Estimate(retained_min, retained_max))
    return sz.factor(2 * STRING_TRAVERSAL), result


def _join_cost(target: Node, args: list[Node]) -> tuple[Estimate, Estimate]:
    size = ZERO
    count = library_size(target)
    element = element_node(target)
    if element is not None:
        size = count.multiply(library_size(element))
    if args:
        separators = Estimate(max(count.min - 1, 0), max(count.max - 1, 0))
        size = size.add(library_size(args[0]).multiply(separators))
    return size.factor(STRING_TRAVERSAL), size
