"""The arithmetic of cel-go@v0.29.2's cost estimate (``checker/cost.go``: ``CostEstimate`` and
``SizeEstimate``, saturating at the largest uint64; the field paths it keeps as Go slices), with
the constants of ``common/cost.go``; ``dra/cel_cost.py`` estimates with them over the tree of
``dra/cel_parse.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

U64 = (1 << 64) - 1
# cel-go common/cost.go
SELECT_AND_IDENT_COST = 1
LIST_CREATE_BASE_COST = 10
MAP_CREATE_BASE_COST = 30
STRUCT_CREATE_BASE_COST = 40
STRING_TRAVERSAL = 0.1
REGEX_STRING_LENGTH = 0.25


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
