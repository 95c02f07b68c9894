"""Cached strategy constructors: building a Hypothesis strategy (and validating it) costs more
than drawing from it, and the generators draw from the same few vocabularies thousands of
times per scenario."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from hypothesis import strategies as st


@functools.lru_cache(maxsize=4096)
def _sampled(options: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    return st.sampled_from(options)


def sampled(options: Iterable[Any]) -> st.SearchStrategy[Any]:
    """``st.sampled_from`` over hashable options, built once per distinct tuple."""
    return _sampled(tuple(options))
