"""``DefaultNormalizeScore`` (``pkg/scheduler/framework/plugins/helper/normalize_score.go``)."""

from __future__ import annotations


def default_normalize_score(max_priority: int, reverse: bool, scores: list[list]) -> None:
    """Scale ``[name, score]`` pairs to [0, max_priority] by the highest score (integer
    division); with ``reverse``, subtract from max_priority. All zero: 0, or max when reversed."""
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
        s = max_priority * entry[1] // max_count
        entry[1] = max_priority - s if reverse else s
