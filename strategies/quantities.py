"""Resource quantities in every form a user writes them (``resource.ParseQuantity``, apimachinery
``pkg/api/resource/quantity.go``), with their exact value: :func:`quantities`,
:func:`quantity_values`, :func:`resource_lists`. The forms per resource kind:
docs/strategies.md#what-is-generated."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

from hypothesis import strategies as st

from strategies._cache import booleans, composite, integers, sampled

__all__ = [
    "Quantity",
    "quantity_values",
    "quantities",
    "resource_lists",
    "CPU",
    "MEMORY",
    "COUNT",
]

CPU = "cpu"
MEMORY = "memory"  # also ephemeral-storage and any byte amount
COUNT = "count"  # pods, extended resources

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
_DECIMAL = {"k": 10**3, "M": 10**6, "G": 10**9}


@dataclass(frozen=True, slots=True)
class Quantity:
    """A quantity as written in a manifest (``raw``) and its exact value in base units
    (cores, bytes or a count). ``amount`` is the value in scheduler units (milli-CPU for cpu)."""

    raw: str | int | float
    value: Fraction
    kind: str

    @property
    def amount(self) -> int:
        scaled = self.value * 1000 if self.kind == CPU else self.value
        return -(-scaled.numerator // scaled.denominator)


def _cpu_forms(milli: int) -> list[str | int | float]:
    """The ways to write ``milli`` millicores, simplest first."""
    whole, frac = divmod(milli, 1000)
    forms: list[str | int | float] = [f"{milli}m"]
    if frac == 0:
        forms += [whole, str(whole)]
    else:
        forms += [f"{whole}.{frac:03d}".rstrip("0"), milli / 1000]
    forms.append(f"{milli}e-3")
    return forms


@functools.cache
@composite
def _cpu(draw: st.DrawFn, lo: int, hi: int) -> Quantity:
    # Mostly round amounts (multiples of 100m), so counterexamples read well.
    if lo <= (hi // 100) * 100 and draw(booleans()) is False:
        milli = draw(integers(-(-lo // 100), hi // 100)) * 100
    else:
        milli = draw(integers(lo, hi))
    raw = draw(sampled(_cpu_forms(milli)))
    return Quantity(raw, Fraction(milli, 1000), CPU)


@functools.cache
@composite
def _bytes(draw: st.DrawFn, lo: int, hi: int) -> Quantity:
    form = draw(sampled(("Mi", "Gi", "Ki", "M", "G", "k", "half", "plain", "milli")))
    if form in _BINARY or form in _DECIMAL:
        factor = _BINARY.get(form) or _DECIMAL[form]
        n_lo, n_hi = -(-lo // factor), hi // factor
        if n_lo <= n_hi:
            n = draw(integers(n_lo, n_hi))
            return Quantity(f"{n}{form}", Fraction(n * factor), MEMORY)
    if form == "half":  # "1.5Gi", "2.5G", "0.5Mi"
        unit = draw(sampled(("Gi", "G", "Mi")))
        factor = (_BINARY.get(unit) or _DECIMAL[unit]) // 2
        n_lo, n_hi = -(-lo // factor), hi // factor
        if n_lo <= n_hi:
            # an odd count of halves, drawn as such (a filter for oddness marked the whole
            # example invalid whenever three draws in a row were even, as the simplest draw
            # always is when n_lo is even: issue 17)
            n = 2 * draw(integers(n_lo // 2, (n_hi - 1) // 2)) + 1 if n_lo < n_hi else n_lo
            text = f"{n // 2}.5" if n % 2 else str(n // 2)
            return Quantity(f"{text}{unit}", Fraction(n * factor), MEMORY)
    n = draw(integers(lo, hi))
    if form == "milli":
        return Quantity(f"{n * 1000}m", Fraction(n), MEMORY)
    return Quantity(n, Fraction(n), MEMORY)


@functools.cache
@composite
def _count(draw: st.DrawFn, lo: int, hi: int) -> Quantity:
    n = draw(integers(lo, hi))
    raw = draw(sampled((n, str(n))))
    return Quantity(raw, Fraction(n), COUNT)


_DEFAULT_BOUNDS = {CPU: (0, 8000), MEMORY: (0, 16 * 2**30), COUNT: (0, 8)}


def quantity_values(kind: str = CPU, min_value: int | None = None,
                    max_value: int | None = None) -> st.SearchStrategy[Quantity]:
    """:class:`Quantity` values of ``kind`` ("cpu", "memory" or "count") between ``min_value``
    and ``max_value`` in scheduler units (milli-CPU, bytes, count); both bounds inclusive."""
    if kind not in _DEFAULT_BOUNDS:
        raise ValueError(f"kind must be one of {sorted(_DEFAULT_BOUNDS)}, got {kind!r}")
    d_lo, d_hi = _DEFAULT_BOUNDS[kind]
    lo = d_lo if min_value is None else min_value
    hi = d_hi if max_value is None else max_value
    if not 0 <= lo <= hi:
        raise ValueError(f"need 0 <= min_value <= max_value, got {lo}, {hi}")
    if kind == CPU:
        return _cpu(lo, hi)
    if kind == MEMORY:
        return _bytes(lo, hi)
    return _count(lo, hi)


def quantities(kind: str = CPU, min_value: int | None = None,
               max_value: int | None = None) -> st.SearchStrategy[str | int | float]:
    """Raw manifest values (what goes under ``resources.requests``) of ``kind``; see
    :func:`quantity_values` for the bounds."""
    return quantity_values(kind, min_value, max_value).map(lambda q: q.raw)


def resource_lists(names: tuple[str, ...] = ("cpu", "memory"),
                   min_size: int = 0) -> st.SearchStrategy[dict[str, str | int | float]]:
    """``v1.ResourceList`` dicts over a subset of ``names`` (cpu → cpu forms, pods and names
    with a "/" → counts, everything else → byte forms)."""
    def kind_of(name: str) -> str:
        if name == "cpu":
            return CPU
        if name == "pods" or "/" in name:
            return COUNT
        return MEMORY

    return st.dictionaries(sampled(names), st.just(None), min_size=min_size,
                           max_size=len(names)).flatmap(
        lambda keys: st.fixed_dictionaries({k: quantities(kind_of(k)) for k in sorted(keys)}))
