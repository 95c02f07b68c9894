"""``BuildBrokenLinearFunction`` (``pkg/scheduler/framework/plugins/helper/shape_score.go``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple


class FunctionShapePoint(NamedTuple):
    """``helper.FunctionShapePoint``: a score at a utilization."""

    utilization: int
    score: int


def _go_div(a: int, b: int) -> int:
    """Go int64 division: truncates toward zero (the slope may be negative)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def build_broken_linear_function(shape: Sequence[FunctionShapePoint]) -> Callable[[int], int]:
    """A piecewise-linear function through the shape's points, in int64 arithmetic.

    ``f(p)`` is ``shape[0].score`` for ``p <= shape[0].utilization``,
    ``shape[-1].score`` for ``p > shape[-1].utilization``, and for the first ``i`` with
    ``p <= shape[i].utilization``:
    ``s[i-1] + (s[i] - s[i-1]) * (p - u[i-1]) / (u[i] - u[i-1])`` (division truncated).
    """
    points = tuple((int(pt[0]), int(pt[1])) for pt in shape)

    def f(p: int) -> int:
        for i, (u, s) in enumerate(points):
            if p <= u:
                if i == 0:
                    return points[0][1]
                pu, ps = points[i - 1]
                return ps + _go_div((s - ps) * (p - pu), u - pu)
        return points[-1][1]

    return f
