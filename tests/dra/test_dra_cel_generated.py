"""Generated DRA selectors (strategies/cel_selectors.py) against cel-go: COUNT selectors drawn
from SEED, each on DEVICES drawn devices. Compared with upstream/bin/kschedconf-celcost: the
compile verdict in the NewExpressions environment (MaxCost or the exact error:
dra/cel_checker.py, dra/cel_cost.py), and with ``-actual`` (StoredExpressions, the runtime
cost limit) the scheduler's compile verdict, the actual cost (dra/cel_runtime_cost.py) and the
outcome (true, false or the error's text). Evaluations whose cost depends on the order of a
map (upstream's differs over RUNS runs, or the reference's over three orders) are not compared.
cel_generated_divergences.txt pins what differs today; the test fails on a new divergence and
on a pinned one that no longer differs. Re-record it (after a change of the strategy, of the
reference or of Hypothesis' draws): ``python3 -m tests.dra.test_dra_cel_generated --record``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from random import Random
from typing import Any
from unittest import mock

import pytest
from hypothesis import find, settings
from hypothesis.internal.conjecture.data import ConjectureData

import tests.dra.test_dra_cel_runtime_cost as recorded
from reference_impl.dra import cel
from strategies.cel_selectors import DRIVER, OTHER, cel_devices, cel_selectors
from strategies.draws import seed_only_draws
from tests.dra.test_dra_cel_runtime_cost import _celcost
from tests.dra.test_dra_cel_typecheck import ours as ours_compiled
from tests.dra.test_dra_cel_typecheck import upstream as upstream_compiled

PINNED = Path(__file__).with_name("cel_generated_divergences.txt")
SEED, COUNT, DEVICES = 1, 300, 6
#: upstream runs whose answers must agree for an evaluation to be compared
RUNS = 3
OPTIONS = cel.DEFAULT_OPTIONS
#: the calls that iterate a map (the others' cost does not depend on its order)
COMPREHENSIONS = re.compile(r"\.(all|exists|exists_one|existsOne|map|filter|transformList)\(")

Doc = dict[str, Any]


def _draw(strategy: Any, seed: int) -> Any:
    with seed_only_draws():
        return ConjectureData(random=Random(seed)).draw(strategy)


@functools.cache
def cases() -> tuple[list[str], list[Doc]]:
    """The distinct selectors of COUNT draws from SEED and the DEVICES devices (a wide one of
    the selectors' driver, one of another driver, drawn ones)."""
    base = SEED * 1_000_000
    expressions = [_draw(cel_selectors(), base + i) for i in range(COUNT)]
    kinds = [cel_devices(DRIVER, wide=True), cel_devices(OTHER)] + [cel_devices()] * DEVICES
    devices = [_draw(s, base - 1 - i) for i, s in enumerate(kinds[:DEVICES])]
    return list(dict.fromkeys(expressions)), devices


@contextlib.contextmanager
def on_devices(devices: list[Doc]) -> Iterator[None]:
    """While it lasts, test_dra_cel_runtime_cost.py's helpers (``_ours``, ``_outcome``,
    ``_upstream``), which name a device by its index in that module's DEVICES, read
    ``devices``."""
    with mock.patch.object(recorded, "DEVICES", devices):
        yield


def _guarded(answer: Callable[..., str], *args: Any) -> str:
    """``answer(*args)``, or "CRASH" and the exception the reference should not raise."""
    try:
        return answer(*args)
    except Exception as e:  # a bug of the reference: pinned as such
        return f"CRASH {type(e).__name__}: {e}"


def ours_cost(expression: str, device: int, order: int = 0) -> str:
    return _guarded(recorded._ours, expression, device, order, OPTIONS)


def ours_outcome(expression: str, device: int) -> str:
    return _guarded(recorded._outcome, expression, device, OPTIONS)


def divergences(binary: str) -> tuple[list[str], dict[str, int]]:
    """The lines of what differs (kind, device, expression, upstream's answer, ours) and the
    counts of what was compared. An expression the checker refuses (as upstream's API server
    does, and the loader with it) is not evaluated: the scheduler never sees it."""
    expressions, devices = cases()
    out: list[str] = []
    stats = {
        "expressions": len(expressions),
        "compiled": 0,
        "true": 0,
        "false": 0,
        "error": 0,
        "order-dependent": 0,
    }
    checked = set()
    for e, u in zip(expressions, upstream_compiled(expressions), strict=True):
        o = ours_compiled(e)
        if not o.startswith("ERR "):
            checked.add(e)
        stats["compiled"] += not u.startswith("ERR ")
        if o != u:
            out.append(f"compile\t-\t{json.dumps(e)}\t{json.dumps(u)}\t{json.dumps(o)}")
    pairs = [(e, d) for e in expressions if e in checked for d in range(len(devices))]
    with on_devices(devices):
        runs = [recorded._upstream(pairs, binary) for _ in range(RUNS)]
        out += _evaluations(pairs, runs, stats)
    return out, stats


def _evaluations(
    pairs: list[tuple[str, int]], runs: list[list[str]], stats: dict[str, int]
) -> list[str]:
    """The evaluations that differ, on the devices of ``on_devices``."""
    out = []
    for (e, d), answer, *more in zip(pairs, *runs, strict=True):
        cost, outcome = answer.split(" ", 1)
        if outcome.startswith('ERR "compile: '):
            outcome = "COMPILE"
        ours = ours_cost(e, d)
        if any(m != answer for m in more) or (
            COMPREHENSIONS.search(e) and any(ours_cost(e, d, order) != ours for order in (1, 2))
        ):
            stats["order-dependent"] += 1
            continue
        stats[outcome if outcome in ("true", "false") else "error"] += 1
        mine = ours_outcome(e, d)
        if mine.startswith('ERR "compile: '):  # the scheduler's compile refused it, as above
            mine = "COMPILE"
        if mine != outcome:
            out.append(f"outcome\t{d}\t{json.dumps(e)}\t{json.dumps(outcome)}\t{json.dumps(mine)}")
        if ours != cost:
            out.append(f"cost\t{d}\t{json.dumps(e)}\t{cost}\t{ours}")
    return out


def _pinned() -> list[str]:
    return [ln for ln in PINNED.read_text().splitlines() if ln and not ln.startswith("#")]


def test_generated_selectors_against_celcost() -> None:
    """The reference differs from cel-go exactly where cel_generated_divergences.txt says."""
    binary = _celcost()
    if binary is None:
        pytest.skip("no upstream/bin/kschedconf-celcost with -actual (bash upstream/build.sh)")
    found, stats = divergences(binary)
    assert stats["expressions"] >= COUNT * 9 // 10
    assert sorted(set(found) - set(_pinned())) == [], "new divergences"
    assert sorted(set(_pinned()) - set(found)) == [], "pinned divergences that agree now"


def test_the_mix() -> None:
    """Without upstream: most selectors compile (the checker's verdict, upstream's above),
    some do not, some are costly (a nested comprehension or a lists.range of 1000 and more)
    and some are broken (a syntax error)."""
    expressions, _ = cases()
    verdicts = [ours_compiled(e) for e in expressions]
    compiled = sum(not v.startswith("ERR ") for v in verdicts)
    assert 0.6 * len(expressions) <= compiled <= 0.9 * len(expressions)
    assert sum("Syntax error" in v or "mismatched input" in v for v in verdicts) >= 2
    assert sum(bool(re.search(r"lists\.range\(\d{4}\)|\.all\(k, v, ", e)) for e in expressions) >= 5


def test_selectors_shrink() -> None:
    """A selector with a property shrinks to a small one of it."""
    s = settings(database=None, max_examples=500, derandomize=True)
    found = find(cel_selectors(), lambda e: "quantity(" in e and "compareTo" in e, settings=s)
    assert found == 'quantity("40Gi").compareTo(quantity("40Gi")) == 0'


def test_the_draws_are_the_seeds() -> None:
    """The same seed draws the same selectors and devices (the pinned file names them)."""
    expressions, devices = cases()
    cases.cache_clear()
    assert cases() == (expressions, devices)


if __name__ == "__main__" and sys.argv[1:2] == ["--record"]:
    binary = _celcost()
    assert binary, "build upstream/bin/kschedconf-celcost (bash upstream/build.sh)"
    found, stats = divergences(binary)
    head = (
        "# kind\tdevice\texpression\tupstream\treference: what differs today "
        "(python3 -m tests.dra.test_dra_cel_generated --record)\n"
    )
    PINNED.write_text(head + "".join(f"{ln}\n" for ln in sorted(set(found))))
    print(json.dumps(stats))
