"""Draws that depend on the seed alone: while ``seed_only_draws()`` lasts (or around a test
decorated with ``stable_draws``), Hypothesis uses none of the constants it mines from the
modules loaded at the time (docs/strategies.md, "Reproducible draws")."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

# Why: Hypothesis' default provider, when a draw picks a "constant" (a few percent of draws),
# also picks among the literals of every *local* module loaded so far (providers.py
# ``_get_local_constants``: not site-packages, not the standard library, not a test file), and
# re-reads them whenever sys.modules grows. Which modules count as local depends on how
# kschedconf was installed (an editable install is local, a wheel is not), on the working
# directory and on what was imported before and during the run, so the same seed drew
# different scenarios on different machines. The provider API (AVAILABLE_PROVIDERS) cannot
# fix it alone: the data tree draws the prefixes of new examples with the default provider
# whatever the backend (data.py ``draw_choice``). So, while drawing, the local constants are
# the empty set and the cache of allowed constants is one of our own (restored after, so the
# user's other Hypothesis tests keep theirs). These are private names of Hypothesis: a release
# that moves them fails tests/test_reproducible.py.
from hypothesis.internal.cache import LRUCache
from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants

F = TypeVar("F", bound=Callable[..., Any])

_NO_CONSTANTS = Constants()
_cache: Any = LRUCache(1024)  # allowed constants per (choice type, constraints)
_lock = threading.Lock()
_depth = 0
_saved: tuple[Any, Any] | None = None


def _no_local_constants() -> Constants:
    return _NO_CONSTANTS


@contextmanager
def seed_only_draws() -> Iterator[None]:
    """While it lasts, Hypothesis draws use its global constants only (see above). Nests;
    other threads see the same while it lasts."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = (providers._get_local_constants, providers.CONSTANTS_CACHE)
            providers._get_local_constants = _no_local_constants
            providers.CONSTANTS_CACHE = _cache
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved is not None:
                providers._get_local_constants, providers.CONSTANTS_CACHE = _saved
                _saved = None


def stable_draws(test: F) -> F:
    """Decorate a ``@given`` test (above ``@given``) so that its draws depend on its seed
    alone: ``@stable_draws @given(scenarios(SMALL)) def test_x(scenario): ...``."""
    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with seed_only_draws():
            return test(*args, **kwargs)
    return wrapper  # type: ignore[return-value]
