"""``DefaultNormalizeScore`` (``pkg/scheduler/framework/plugins/helper/normalize_score.go``)."""

from __future__ import annotations


def go_div(a: int, b: int) -> int:
    """Go's integer ``a / b`` (``b > 0``): the quotient truncated toward zero, where Python's
    ``//`` floors (``-7 // 2`` is -4, Go's ``-7 / 2`` is -3)."""
    q = abs(a) // b
    return q if a >= 0 else -q


def default_normalize_score(max_priority: int, reverse: bool, scores: list[list]) -> None:
    """Scale ``[name, score]`` pairs to [0, max_priority] by the highest score (Go's integer
    division, truncating toward zero: upstream assumes non-negative scores, but a plugin may
    return a negative one); with ``reverse``, subtract from max_priority. No positive score:
    unchanged, or max when reversed."""
    max_count = 0
    for entry in scores:
        if entry[1] > max_count:
            max_count = entry[1]
    if max_count == 0:
        if reverse:
            for entry in scores:
                entry[1] = max_priority
        return
    for entry in scores:
        s = go_div(max_priority * entry[1], max_count)
        entry[1] = max_priority - s if reverse else s
