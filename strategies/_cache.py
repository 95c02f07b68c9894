"""Cached strategy constructors: building a Hypothesis strategy (and validating it) costs more
than drawing from it, and the generators draw from the same few vocabularies thousands of
times per scenario. :func:`composite` is ``st.composite`` for generators given new arguments
(a cluster, pods) at every draw: the same draws, without the lazy wrapper and checks.

A cached strategy is the very object an uncached call would have built again with equal
arguments: Hypothesis draws from it the same way (a strategy keeps no state between draws, and
its span label comes from its class and definition, ``SearchStrategy.calc_label``), so the same
seed still gives the same scenarios byte for byte. Inside :func:`composite`, a draw from
:func:`sampled`, :func:`booleans` or :func:`integers` (a narrow range) is one choice without a
span of its own (about half of Hypothesis' cost per choice, issue 17)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, Concatenate, ParamSpec, TypeVar

from hypothesis import strategies as st
from hypothesis.strategies._internal.core import CompositeStrategy

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
T = TypeVar("T")


def _leaf(strategy: st.SearchStrategy[Any], fast: Callable[[Any], Any]) -> st.SearchStrategy[Any]:
    """``strategy``, which :func:`composite`'s draws take as ``fast(data)``: the same choice
    (what ``strategy.do_draw`` draws), without ``ConjectureData.draw``'s span and checks."""
    strategy._kschedconf_fast = fast  # type: ignore[attr-defined]
    return strategy


@functools.lru_cache(maxsize=4096)
def _sampled(key: tuple[tuple[type, Any], ...]) -> st.SearchStrategy[Any]:
    options = tuple(option for _, option in key)
    s = st.sampled_from(options)
    if len(options) < 2:
        return s  # just() or nothing(): no choice
    last = len(options) - 1
    # SampledFromStrategy.do_draw without a filter or map: one index, shrinking to 0
    return _leaf(s, lambda data: options[data.draw_integer(0, last)])


def sampled(options: Iterable[Any]) -> st.SearchStrategy[Any]:
    """``st.sampled_from`` over hashable options, built once per distinct tuple. The key holds
    each option's type: ``(0, 1)`` equals ``(False, True)`` as a tuple, and the one built first
    would be handed to the other."""
    return _sampled(tuple((type(o), o) for o in options))


@functools.lru_cache(maxsize=256)
def sampled_dicts(options: tuple[tuple[tuple[Any, Any], ...], ...]) -> st.SearchStrategy[dict]:
    """A new dict of one of ``options`` (each a tuple of items) at every draw: one choice,
    shrinking towards the first option."""
    s = st.sampled_from(options).map(dict)
    if len(options) < 2:
        return s
    last = len(options) - 1
    return _leaf(s, lambda data: dict(options[data.draw_integer(0, last)]))


_BOOLEANS = _leaf(st.booleans(), lambda data: data.draw_boolean())


def booleans() -> st.SearchStrategy[bool]:
    """``st.booleans()``, built once (Hypothesis' own cache of strategies costs a key and a
    lookup in its LRU cache at every call)."""
    return _BOOLEANS


@functools.lru_cache(maxsize=4096)
def integers(min_value: int | None = None, max_value: int | None = None
             ) -> st.SearchStrategy[int]:
    """``st.integers``, built once per distinct bounds."""
    s = st.integers(min_value, max_value)
    if min_value is None or max_value is None or max_value - min_value > 127:
        return s  # IntegersStrategy.do_draw weights the bounds of wider ranges
    return _leaf(s, lambda data: data.draw_integer(min_value, max_value))


#: the caches of every :func:`cached` constructor (:func:`clear_caches`)
_MEMOS: list[Any] = []


def cached(fn: F) -> F:
    """``fn`` (a strategy constructor) built once per distinct arguments when they are all
    hashable; called as it is otherwise (a caller's list of features, a context holding
    manifests)."""
    memo = functools.lru_cache(maxsize=4096, typed=True)(fn)  # typed: 1 and True differ
    _MEMOS.append(memo)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            hash((args, tuple(kwargs.items())))
        except TypeError:
            return fn(*args, **kwargs)
        return memo(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def clear_caches() -> None:
    """Forget every strategy :func:`cached` built (tests: a cached strategy draws what a new
    one would)."""
    for memo in _MEMOS:
        memo.cache_clear()
    _sampled.cache_clear()
    integers.cache_clear()


class _Drawn(st.SearchStrategy[Any]):
    """What ``st.composite`` builds for one call, with its label, so that the draws and their
    spans are the same; without the ``LazyStrategy`` wrapper, its validation and the
    emptiness check, which cost about 0.15 ms per strategy built (issue 17)."""

    is_empty = False  # a composite draws or fails when drawn

    def __init__(
        self, fn: Callable[..., Any], label: int, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        super().__init__()
        self._fn, self._label, self._args, self._kwargs = fn, label, args, kwargs

    @property
    def label(self) -> int:
        return self._label

    def calc_label(self) -> int:
        return self._label

    def validate(self) -> None:
        pass  # what it draws from validates itself when drawn

    def do_draw(self, data: Any) -> Any:
        return self._fn(_fast_draw(data), *self._args, **self._kwargs)

    def __repr__(self) -> str:
        return f"{self._fn.__name__}(...)"


def _fast_draw(data: Any) -> st.DrawFn:
    """``data.draw``, with the strategies of :func:`_leaf` drawn as their one choice."""
    slow = data.draw

    def draw(strategy: st.SearchStrategy[Any], label: Any = None) -> Any:
        fast = getattr(strategy, "_kschedconf_fast", None)
        if fast is not None and label is None:
            return fast(data)
        return slow(strategy, label)

    return draw  # type: ignore[return-value]


def composite(fn: Callable[Concatenate[st.DrawFn, P], T]) -> Callable[P, st.SearchStrategy[T]]:
    """``@st.composite`` for a generator called with new arguments at every draw: the same
    label (``CompositeStrategy``'s: its class and the function), so a seed draws the same
    values and Hypothesis sees the same spans."""
    label = CompositeStrategy(fn, (), {}).label

    @functools.wraps(fn)
    def build(*args: P.args, **kwargs: P.kwargs) -> st.SearchStrategy[T]:
        return _Drawn(fn, label, args, kwargs)

    return build
