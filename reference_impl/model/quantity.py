"""Kubernetes ``resource.Quantity`` parsing, kept exact as ``fractions.Fraction``.

Upstream: ``staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go`` (ParseQuantity,
parseQuantityString, UnmarshalJSON, ScaledValue) and ``suffix.go`` (the suffix table).
What carries over exactly and the deviations: docs/reference.md#quantities."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

__all__ = [
    "QuantityError",
    "format_quantity",
    "format_value",
    "quantity_format",
    "parse_quantity",
    "parse_quantity_string",
    "milli_value",
    "value",
    "MAX_INT64",
]

MAX_INT64 = (1 << 63) - 1
MIN_INT64 = -(1 << 63)

# Largest |decimal exponent| computed exactly; beyond it see docs/reference.md#quantities.
MAX_DECIMAL_EXPONENT = 400

_NANO = Fraction(1, 10**9)

# quantity.go: splitREString, quoted in ErrFormatWrong.
_SPLIT_RE_STRING = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = f"quantities must match the regular expression '{_SPLIT_RE_STRING}'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

_DIGITS = frozenset("0123456789")
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")

# suffix.go: newSuffixer / fastLookup. suffix -> (base, exponent, format)
DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"
_SUFFIXES: dict[str, tuple[int, int, str]] = {
    "n": (10, -9, DECIMAL_SI),
    "u": (10, -6, DECIMAL_SI),
    "m": (10, -3, DECIMAL_SI),
    "": (10, 0, DECIMAL_SI),
    "k": (10, 3, DECIMAL_SI),
    "M": (10, 6, DECIMAL_SI),
    "G": (10, 9, DECIMAL_SI),
    "T": (10, 12, DECIMAL_SI),
    "P": (10, 15, DECIMAL_SI),
    "E": (10, 18, DECIMAL_SI),
    "Ki": (2, 10, BINARY_SI),
    "Mi": (2, 20, BINARY_SI),
    "Gi": (2, 30, BINARY_SI),
    "Ti": (2, 40, BINARY_SI),
    "Pi": (2, 50, BINARY_SI),
    "Ei": (2, 60, BINARY_SI),
}


class QuantityError(ValueError):
    """A value that is not a valid Kubernetes quantity (message says why)."""


def _split(s: str) -> tuple[bool, str, str, str, str]:
    """``parseQuantityString`` (quantity.go): split into sign, value, num, denom, suffix.

    ``value`` is the numeric prefix as written (sign included); ``num`` has its leading zeros
    stripped ("0" if none are left); ``denom`` is the digits after the decimal point.
    """
    positive = True
    pos = 0
    end = len(s)
    if pos < end and s[0] in "+-":
        positive = s[0] == "+"
        pos += 1
    # strip leading zeros; a string of only zeros is 0
    while True:
        if pos >= end:
            return positive, "0", "0", "", ""
        if s[pos] != "0":
            break
        pos += 1
    # the numerator
    i = pos
    while i < end and s[i] in _DIGITS:
        i += 1
    if i >= end:
        return positive, s, s[pos:end], "", ""
    num = s[pos:i] or "0"
    pos = i
    denom = ""
    if s[pos] == ".":
        pos += 1
        i = pos
        while i < end and s[i] in _DIGITS:
            i += 1
        denom = s[pos:i]
        if i >= end:
            return positive, s, num, denom, ""
        pos = i
    value = s[:pos]
    # the suffix: letters, an optional sign, digits
    suffix_start = pos
    i = pos
    while i < end and s[i] in _SUFFIX_CHARS:
        i += 1
    if i >= end:
        return positive, value, num, denom, s[suffix_start:]
    pos = i
    if s[pos] in "+-":
        pos += 1
    i = pos
    while i < end and s[i] in _DIGITS:
        i += 1
    if i >= end:
        return positive, value, num, denom, s[suffix_start:]
    raise QuantityError(ERR_FORMAT_WRONG)


def _go_parse_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: optional sign, ASCII digits, int64 range."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or any(c not in _DIGITS for c in body):
        return None
    n = int(text)
    if n < MIN_INT64 or n > MAX_INT64:
        return None
    return n


def _interpret_suffix(suffix: str) -> tuple[int, int, str]:
    """``suffixHandler.interpret`` (suffix.go): (base, exponent, format) of a suffix."""
    found = _SUFFIXES.get(suffix)
    if found is not None:
        return found
    if len(suffix) > 1 and suffix[0] in "eE":
        parsed = _go_parse_int64(suffix[1:])
        if parsed is not None:
            # int32(parsed): Go truncates to 32 bits.
            exp = parsed & 0xFFFFFFFF
            if exp >= 1 << 31:
                exp -= 1 << 32
            return 10, exp, DECIMAL_EXPONENT
    raise QuantityError(ERR_SUFFIX)


def _takes_fast_path(fmt: str, exponent: int, num: str, denom: str) -> bool:
    """Whether ParseQuantity (quantity.go) takes its int64 fast path: enough precision left and
    a scale of at least 10^-9 (the int64 multiplication cannot overflow for an all-zero value)."""
    if fmt == BINARY_SI:
        if exponent < 0 or denom:
            return False
        precision = 15 - len(num) - (exponent * 3) // 10 - 1
        scale = 0
    else:
        precision = 18 - (len(num) + len(denom))
        scale = exponent
    return precision >= 0 and scale - len(denom) >= -9


def _dec_value(value: str) -> Fraction:
    """``inf.Dec.SetString`` of the numeric prefix: sign, digits, at most one '.'; at least
    one digit."""
    body = value[1:] if value[:1] in ("+", "-") else value
    int_part, _, frac_part = body.partition(".")
    if not (int_part + frac_part):
        raise QuantityError(ERR_NUMERIC)
    mag = Fraction(int(int_part + frac_part), 10 ** len(frac_part))
    return -mag if value[:1] == "-" else mag


@lru_cache(maxsize=8192)
def parse_quantity_string(s: str) -> Fraction:
    """``resource.ParseQuantity`` (quantity.go): the exact value of a quantity string.

    Raises ``QuantityError`` with upstream's error text (ErrFormatWrong, ErrNumeric, ErrSuffix).
    No whitespace is allowed (see ``parse_quantity`` for manifest values). Results are cached
    (a dump repeats the same few quantity strings).
    """
    if not s:
        raise QuantityError(ERR_FORMAT_WRONG)
    if s == "0":
        return Fraction(0)
    _positive, value_str, num, denom, suf = _split(s)
    base, exponent, fmt = _interpret_suffix(suf)

    # Upstream has an int64 fast path and an inf.Dec path. Both give the exact value of
    # value_str * base**exponent; the Dec path then rounds away from zero to 1n and caps binary
    # SI at 2^63-1 (the fast path is only taken when the value is exact at nano scale and within
    # int64, so applying both steps always is equivalent). They differ for a numeric part with
    # no digits at all ("Ki", ".", "-.e-10"): the fast path reads it as 0, the Dec path fails.
    if not any(c in _DIGITS for c in value_str):
        if _takes_fast_path(fmt, exponent, num, denom):
            return Fraction(0)
        raise QuantityError(ERR_NUMERIC)
    if base == 2:
        amount = _dec_value(value_str) * (1 << exponent)
    else:
        if exponent > MAX_DECIMAL_EXPONENT:
            amount = _dec_value(value_str)
            if amount != 0:
                raise QuantityError(f"quantity exponent {exponent} is too large")
        elif exponent < -MAX_DECIMAL_EXPONENT:
            amount = _dec_value(value_str)
            if amount != 0:
                amount = _NANO if amount > 0 else -_NANO
            return amount
        else:
            amount = _dec_value(value_str) * Fraction(10) ** exponent

    magnitude = abs(amount)
    if magnitude != 0:
        # round up (away from zero) to a multiple of 10^-9
        scaled = magnitude * 10**9
        if scaled.denominator != 1:
            magnitude = Fraction(-(-scaled.numerator // scaled.denominator), 10**9)
    if fmt == BINARY_SI and magnitude > MAX_INT64:
        magnitude = Fraction(MAX_INT64)
    return -magnitude if amount < 0 else magnitude


def int64_amount(s: str) -> tuple[int, int] | None:
    """The ``int64Amount`` (value, scale: value * 10**scale) ``resource.ParseQuantity`` keeps
    for a valid quantity string when it takes its int64 fast path (quantity.go), else None: an
    ``inf.Dec`` ("1Pi", "1.5Gi", a value of more than 18 digits; ``AsInt64`` fails)."""
    if s == "0":
        return (0, 0)
    positive, _value, num, denom, suf = _split(s)
    _base, exponent, fmt = _interpret_suffix(suf)
    if not _takes_fast_path(fmt, exponent, num, denom):
        return None
    result = int(num + denom) * (1 << exponent if fmt == BINARY_SI else 1)
    if result > MAX_INT64:  # int64Multiply overflows
        return None
    scale = (0 if fmt == BINARY_SI else exponent) - len(denom)
    return (result if positive else -result, scale)


def parse_quantity(raw: object) -> Fraction:
    """A quantity as it appears in a manifest: ``Quantity.UnmarshalJSON`` (quantity.go).

    Strings are trimmed of surrounding whitespace and parsed; YAML/JSON numbers (int, float)
    are parsed from their decimal text, as the JSON decoder hands upstream the number's text
    (a float goes through its shortest round-trip repr, e.g. ``0.1`` -> ``"0.1"``, exactly
    1/10). Booleans, NaN/infinity and other types are refused.
    """
    if isinstance(raw, bool):
        raise QuantityError(f"expected a quantity (string or number), got boolean {raw!r}")
    if isinstance(raw, int):
        return Fraction(raw) if raw == 0 else parse_quantity_string(str(raw))
    if isinstance(raw, float):
        if raw != raw or raw in (float("inf"), float("-inf")):
            raise QuantityError(f"expected a finite number, got {raw!r}")
        return parse_quantity_string(repr(raw))
    if isinstance(raw, str):
        try:
            return parse_quantity_string(raw.strip())
        except QuantityError as e:
            raise QuantityError(f"invalid quantity {raw!r}: {e}") from None
    raise QuantityError(f"expected a quantity (string or number), got {type(raw).__name__}")


def _ceil_scaled(q: Fraction, factor: int) -> int:
    """``ScaledValue``: ceil(q * factor), refusing results outside int64 (on the integers
    of q: ceil(n * factor / d) is the ceiling of the reduced product too)."""
    result = -(-(q.numerator * factor) // q.denominator)
    if result > MAX_INT64 or result < MIN_INT64:
        raise QuantityError(f"quantity {float(q):g} is out of range (int64 overflow)")
    return result


def value(q: Fraction) -> int:
    """``Quantity.Value()``: ceil(q) (quantity.go ScaledValue(0) rounds up)."""
    if q.denominator == 1:
        n = q.numerator
        if n > MAX_INT64 or n < MIN_INT64:
            raise QuantityError(f"quantity {n} is out of range (int64 overflow)")
        return n
    return _ceil_scaled(q, 1)


def milli_value(q: Fraction) -> int:
    """``Quantity.MilliValue()``: ceil(q * 1000) (quantity.go ScaledValue(Milli))."""
    return _ceil_scaled(q, 1000)


_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P",
                   18: "E"}
_BINARY_SUFFIX = ((60, "Ei"), (50, "Pi"), (40, "Ti"), (30, "Gi"), (20, "Mi"), (10, "Ki"))


def quantity_format(raw: object) -> str:
    """The format a manifest quantity keeps (``Quantity.Format``): BinarySI for the ``Ki``..
    ``Ei`` suffixes, DecimalExponent for ``e``/``E`` exponents, else DecimalSI."""
    if not isinstance(raw, str):
        return DECIMAL_SI
    try:
        suffix = _split(raw.strip())[4]
    except QuantityError:
        return DECIMAL_SI
    return _interpret_suffix(suffix)[2] if suffix else DECIMAL_SI


def format_quantity(raw: object) -> str:
    """``Quantity.String()`` of a manifest quantity (quantity.go ``CanonicalizeBytes``): the
    value in its format with the largest exact suffix: ``1000m`` -> ``1``, ``2048Mi`` ->
    ``2Gi``, ``1500m`` -> ``1500m``; a binary value below 1024 or not whole is written in
    DecimalSI, as upstream does."""
    return format_value(parse_quantity(raw), quantity_format(raw))


def format_value(q: Fraction, fmt: str) -> str:
    """``Quantity.String()`` of the value ``q`` in the format ``fmt`` (DecimalSI, BinarySI or
    DecimalExponent): a sum keeps the format of its first term, as ``Quantity.Add`` does."""
    if q == 0:
        return "0"
    sign = "-" if q < 0 else ""
    mag = abs(q)
    if fmt == BINARY_SI:
        if mag < 1024 or mag.denominator != 1:
            fmt = DECIMAL_SI
        else:
            n = mag.numerator
            for exp, suffix in _BINARY_SUFFIX:
                if n % (1 << exp) == 0:
                    return f"{sign}{n >> exp}{suffix}"
            return f"{sign}{n}"
    # decimal: mantissa * 10^exp with exp a multiple of 3 in [-9, 18], as large as exact
    exp = -9
    mantissa = mag * 10**9  # exact: parse_quantity rounds to nano
    while exp < 18 and mantissa.numerator % 1000 == 0 and mantissa.denominator == 1:
        mantissa /= 1000
        exp += 3
    m = mantissa.numerator
    if fmt == DECIMAL_EXPONENT:
        return f"{sign}{m}" + (f"e{exp}" if exp else "")
    return f"{sign}{m}{_DECIMAL_SUFFIX[exp]}"
