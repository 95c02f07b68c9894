"""What of DRA selectors differs between the cel-go generations the releases link (switch
dra-cel-go): github.com/google/cel-go v0.26.0 (k8s.io/kubernetes v1.34.4 to v1.36.3) against
v0.29.2 (v1.37.2), the reference's default. Outcomes: ext/lists.go ``genRange``, ext/strings.go
``indexOfOffset``/``lastIndexOfOffset``, interpreter/attributes.go ``applyQualifiers``
(``cel.AttributeMapV026``); costs: interpreter/runtimecost.go ``costCall``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import celpy.celtypes as ct
from celpy.evaluation import base_functions

_STRING_FACTOR = 0.1  # common.StringTraversalCostFactor


def _range_v0_26(base: Callable[..., Any]) -> Callable[..., Any]:
    """``lists.range`` of v0.26.0 ``genRange``: a negative count gives ``[]`` (v0.29.2: the
    error "lists.range: size must be non-negative, got N"), and no size is too large
    (v0.29.2: over defaultMaxRangeSize, an error)."""

    def f(n: Any = None, *more: Any) -> Any:
        if isinstance(n, int) and not isinstance(n, bool) and not more:
            if n < 0:
                return ct.ListType([])
            return ct.ListType([ct.IntType(i) for i in range(n)])
        return base(n, *more)

    return f


def _index_of_v0_26(base: Callable[..., Any]) -> Callable[..., Any]:
    """``indexOf``/``lastIndexOf`` with an offset, of v0.26.0 ``indexOfOffset`` and
    ``lastIndexOfOffset``: an empty substring gives the offset itself, unchecked (v0.29.2:
    "index out of range" for a negative one, clamped to the string's length)."""

    def f(target: Any = None, *args: Any) -> Any:
        if (
            isinstance(target, str)
            and len(args) == 2
            and isinstance(args[0], str)
            and args[0] == ""
            and isinstance(args[1], int)
            and not isinstance(args[1], bool)
        ):
            return ct.IntType(args[1])
        return base(target, *args)

    return f


#: a function name CEL cannot spell: present in v0.26.0's functions (see :func:`functions`)
OPTIONAL_OR_KEEPS_RECEIVER = "@v0.26 optional or"


def functions(base: Mapping[str, Callable[..., Any]], v0_26: bool) -> dict[str, Any]:
    """The environment's functions (``base``: v0.29.2's) for the generation."""
    out = dict(base)
    if v0_26:
        # cel/library.go evalOptionalOr(Value): v0.26.0 gives a non-optional receiver back as
        # it is (v0.29.2: "no such overload"); dra/cel_macros.py asks for this marker
        out[OPTIONAL_OR_KEEPS_RECEIVER] = lambda v: v
        out["lists.range"] = _range_v0_26(base["lists.range"])
        out["indexOf"] = _index_of_v0_26(base["indexOf"])
        out["lastIndexOf"] = _index_of_v0_26(base["lastIndexOf"])
    return out


def tracker_functions(library: Mapping[str, Any], v0_26: bool) -> dict[str, Any]:
    """The functions ``dra/cel_runtime_cost.py``'s evaluation calls: celpy's, the
    environment's (``library``: ``cel.FUNCTIONS``) for the generation."""
    return {**base_functions, **functions(library, v0_26)}


def call_cost_v0_26(fn: str, args: list[Any], overload: str | None, target: Any) -> int | None:
    """v0.26.0 ``costCall`` where it differs from v0.29.2 (None elsewhere): ``startsWith`` and
    ``endsWith`` cost by the receiver's size (v0.29.2: the argument's); the global
    ``matches(s, re)`` (overload id ``matches``) costs 1, only ``matches_string`` (the member
    form) by the regex cost. ``overload``: the checker's id, "" for none, None if unchecked;
    ``target``: the call's receiver, None for a global call."""
    if overload == "" or not args:
        return None
    a0 = args[0]
    if fn in ("startsWith", "endsWith") and overload in (
        None,
        "starts_with_string",
        "ends_with_string",
    ):
        if overload is None and not isinstance(a0, str):
            return None
        size = len(a0) if isinstance(a0, str | bytes) else 1
        return math.ceil(size * _STRING_FACTOR)
    if fn == "matches" and (overload == "matches" or (overload is None and target is None)):
        return 1
    return None
