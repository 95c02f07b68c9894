"""The virtual clock of the simulation: integer nanoseconds, moved only by the simulation.

Upstream measures queue time with ``k8s.io/utils/clock`` (``time.Time`` with nanosecond
resolution; tests use ``testingclock.FakeClock``). The reference never sleeps: time is an integer
number of nanoseconds since the start of the simulation (time 0, which is aligned to a whole
second), and the simulation jumps straight to the next moment something is due.

Durations are written like Go's ``time.ParseDuration`` ("300ms", "1m30s", "2h") or as a plain
number of seconds.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

NANOSECOND = 1
MICROSECOND = 1_000
MILLISECOND = 1_000_000
SECOND = 1_000_000_000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE

_UNITS = {"ns": NANOSECOND, "us": MICROSECOND, "µs": MICROSECOND, "μs": MICROSECOND,
          "ms": MILLISECOND, "s": SECOND, "m": MINUTE, "h": HOUR}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


class VirtualClock:
    """A fake clock (``testingclock.FakeClock``): ``now()`` in nanoseconds, moved by
    ``step`` / ``set``."""

    __slots__ = ("_now",)

    def __init__(self, now_ns: int = 0) -> None:
        self._now = int(now_ns)

    def now(self) -> int:
        return self._now

    def since(self, t_ns: int) -> int:
        return self._now - t_ns

    def step(self, d_ns: int) -> None:
        """``FakeClock.Step``: move forward by ``d_ns``."""
        self._now += int(d_ns)

    def set(self, t_ns: int) -> None:
        """``FakeClock.SetTime``: jump to ``t_ns`` (never backwards)."""
        if t_ns < self._now:
            raise ValueError(f"the virtual clock cannot go back from {self._now} to {t_ns}")
        self._now = int(t_ns)

    def seconds(self) -> float:
        return to_seconds(self._now)


def to_seconds(t_ns: int) -> float:
    """Nanoseconds as float seconds (for output)."""
    return t_ns / SECOND


def from_seconds(seconds: int | float | Decimal | str) -> int:
    """Seconds (a number) as integer nanoseconds, rounded to the nearest nanosecond."""
    return int((Decimal(str(seconds)) * SECOND).to_integral_value())


def parse_duration(value: object) -> int:
    """A duration as integer nanoseconds: a number of seconds (int or float), or a Go duration
    string ("1h2m3.5s", "250ms", "0"). Raises ValueError with a readable message."""
    if isinstance(value, bool):
        raise ValueError(f"expected a duration, got a boolean {value!r}")
    if isinstance(value, (int, float)):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"expected a finite duration, got {value!r}")
        return from_seconds(value)
    if not isinstance(value, str):
        raise ValueError(f"expected a duration like \"30s\" or a number of seconds, "
                         f"got {type(value).__name__}")
    text = value.strip()
    if not text:
        raise ValueError("expected a duration, got an empty string")
    sign = 1
    if text[0] in "+-":
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    try:
        return sign * from_seconds(Decimal(text))
    except InvalidOperation:
        pass
    if text == "0":
        return 0
    pos = 0
    total = Decimal(0)
    while pos < len(text):
        m = _PART.match(text, pos)
        if m is None:
            raise ValueError(f"invalid duration {value!r}: expected a number of seconds or "
                             "a Go duration such as \"90s\", \"1m30s\", \"250ms\", \"2h\"")
        total += Decimal(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    return sign * int(total.to_integral_value())


def format_duration(t_ns: int) -> str:
    """``time.Duration.String`` for whole nanoseconds ("1m30s", "250ms", "0s")."""
    if t_ns == 0:
        return "0s"
    neg = t_ns < 0
    u = -t_ns if neg else t_ns
    if u < SECOND:
        for unit, size in (("ms", MILLISECOND), ("µs", MICROSECOND), ("ns", NANOSECOND)):
            if u >= size:
                text = _frac(u, size) + unit
                break
    else:
        h, rem = divmod(u, HOUR)
        m, rem = divmod(rem, MINUTE)
        text = _frac(rem, SECOND) + "s"
        if h:
            text = f"{h}h{m}m" + text
        elif m:
            text = f"{m}m" + text
    return ("-" if neg else "") + text


def _frac(v: int, size: int) -> str:
    whole, rest = divmod(v, size)
    if not rest:
        return str(whole)
    digits = str(rest).rjust(len(str(size)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"
