"""Quantity parsing and Value/MilliValue, restating upstream's tests.

Source: staging/src/k8s.io/apimachinery/pkg/api/resource/quantity_test.go (v0.37.2 / k8s v1.37.2).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from reference_impl.model.quantity import (
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    MAX_INT64,
    QuantityError,
    milli_value,
    parse_quantity,
    parse_quantity_string,
    value,
)


def dec(i: int, exponent: int) -> Fraction:
    """quantity_test.go decQuantity(i, exponent, _): i * 10^exponent."""
    return Fraction(i) * Fraction(10) ** exponent


KI, MI, GI, TI, PI, EI = (1 << 10), (1 << 20), (1 << 30), (1 << 40), (1 << 50), (1 << 60)

# quantity_test.go TestQuantityParse: the `table`.
PARSE_TABLE: list[tuple[str, Fraction]] = [
    ("0", dec(0, 0)), ("0n", dec(0, 0)), ("0u", dec(0, 0)), ("0m", dec(0, 0)),
    ("0Ki", dec(0, 0)), ("0k", dec(0, 0)), ("0Mi", dec(0, 0)), ("0M", dec(0, 0)),
    ("0Gi", dec(0, 0)), ("0G", dec(0, 0)), ("0Ti", dec(0, 0)), ("0T", dec(0, 0)),
    # Quantity less numbers are allowed
    ("1", dec(1, 0)),
    # Binary suffixes
    ("1Ki", dec(1024, 0)), ("8Ki", dec(8 * KI, 0)), ("7Mi", dec(7 * MI, 0)),
    ("6Gi", dec(6 * GI, 0)), ("5Ti", dec(5 * TI, 0)), ("4Pi", dec(4 * PI, 0)),
    ("3Ei", dec(3 * EI, 0)), ("10Ti", dec(10 * TI, 0)), ("100Ti", dec(100 * TI, 0)),
    # Decimal suffixes
    ("5n", dec(5, -9)), ("4u", dec(4, -6)), ("3m", dec(3, -3)), ("9", dec(9, 0)),
    ("8k", dec(8, 3)), ("50k", dec(5, 4)), ("7M", dec(7, 6)), ("6G", dec(6, 9)),
    ("5T", dec(5, 12)), ("40T", dec(4, 13)), ("300T", dec(3, 14)), ("2P", dec(2, 15)),
    ("1E", dec(1, 18)),
    # Decimal exponents
    ("1E-3", dec(1, -3)), ("1e3", dec(1, 3)), ("1E6", dec(1, 6)), ("1e9", dec(1, 9)),
    ("1E12", dec(1, 12)), ("1e15", dec(1, 15)), ("1E18", dec(1, 18)),
    # Nonstandard but still parsable
    ("1e14", dec(1, 14)), ("1e13", dec(1, 13)), ("1e3", dec(1, 3)),
    ("100.035k", dec(100035, 0)),
    # Things that look like floating point
    ("0.001", dec(1, -3)), ("0.0005k", dec(5, -1)), ("0.005", dec(5, -3)),
    ("0.05", dec(5, -2)), ("0.5", dec(5, -1)), ("0.00050k", dec(5, -1)),
    ("0.00500", dec(5, -3)), ("0.05000", dec(5, -2)), ("0.50000", dec(5, -1)),
    ("0.5e0", dec(5, -1)), ("0.5e-1", dec(5, -2)), ("0.5e-2", dec(5, -3)),
    ("0.5e0", dec(5, -1)), ("10.035M", dec(10035, 3)),
    ("1.2e3", dec(12, 2)), ("1.3E+6", dec(13, 5)), ("1.40e9", dec(14, 8)),
    ("1.53E12", dec(153, 10)), ("1.6e15", dec(16, 14)), ("1.7E18", dec(17, 17)),
    ("9.01", dec(901, -2)), ("8.1k", dec(81, 2)), ("7.123456M", dec(7123456, 0)),
    ("6.987654321G", dec(6987654321, 0)), ("5.444T", dec(5444, 9)), ("40.1T", dec(401, 11)),
    ("300.2T", dec(3002, 11)), ("2.5P", dec(25, 14)), ("1.01E", dec(101, 16)),
    # Things that saturate/round
    ("3.001n", dec(4, -9)), ("1.1E-9", dec(2, -9)), ("0.0000000001", dec(1, -9)),
    ("0.0000000005", dec(1, -9)), ("0.00000000050", dec(1, -9)), ("0.5e-9", dec(1, -9)),
    ("0.9n", dec(1, -9)), ("0.00000012345", dec(124, -9)), ("0.00000012354", dec(124, -9)),
    ("9Ei", Fraction(MAX_INT64)), ("9223372036854775807Ki", Fraction(MAX_INT64)),
    ("12E", dec(12, 18)),
    # We'll accept fractional binary stuff, too.
    ("100.035Ki", dec(10243584, -2)), ("0.5Mi", dec(MI // 2, 0)),
    ("0.05Gi", dec(536870912, -1)), ("0.025Ti", dec(274877906944, -1)),
    # Things written by trolls
    ("0.000000000001Ki", dec(2, -9)), (".001", dec(1, -3)), (".0001k", dec(100, -3)),
    ("1.", dec(1, 0)), ("1.G", dec(1, 9)),
]


@pytest.mark.parametrize(("text", "expected"), PARSE_TABLE)
def test_quantity_parse(text: str, expected: Fraction) -> None:
    """quantity_test.go TestQuantityParse: the table, as written."""
    assert parse_quantity_string(text) == expected


@pytest.mark.parametrize(("text", "expected"), PARSE_TABLE)
def test_quantity_parse_negative_and_plus(text: str, expected: Fraction) -> None:
    """quantity_test.go TestQuantityParse: "Try the negative version of everything" and
    "Try everything with an explicit +"."""
    assert parse_quantity_string("-" + text) == -expected
    assert parse_quantity_string("+" + text) == expected


INVALID = ["1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-",
           # trailing whitespace is forbidden
           " 1", "1 "]


@pytest.mark.parametrize("text", INVALID)
def test_quantity_parse_invalid(text: str) -> None:
    """quantity_test.go TestQuantityParse: the `invalid` list."""
    with pytest.raises(QuantityError):
        parse_quantity_string(text)


def test_quantity_parse_empty_is_error() -> None:
    """quantity_test.go TestQuantityParse: "expected empty string to return error"."""
    with pytest.raises(QuantityError, match="regular expression"):
        parse_quantity_string("")


def test_quantity_parse_non_numeric() -> None:
    """quantity_test.go TestQuantityParseNonNumericPanic: MustParse("Non-Numeric") fails."""
    with pytest.raises(QuantityError):
        parse_quantity_string("Non-Numeric")


@pytest.mark.parametrize(("text", "expected"), [
    # quantity_test.go TestParseQuantityString: parseQuantityString splits, as whole values
    ("0.025Ti", Fraction(25, 1000) * TI), ("1.025Ti", Fraction(1025, 1000) * TI),
    ("-1.025Ti", -Fraction(1025, 1000) * TI), (".", Fraction(0)), ("-.", Fraction(0)),
    ("1E-3", Fraction(1, 1000)),
])
def test_parse_quantity_string_split_cases(text: str, expected: Fraction) -> None:
    assert parse_quantity_string(text) == expected


# quantity_test.go TestParseQuantity: (input, exact decimal value). No capping for decimal
# formats: values beyond int64 parse exactly.
BIG = [
    ("-999999999999999999", "-999999999999999999"),
    ("999999999999999999", "999999999999999999"),
    ("-999999999999999999.0", "-999999999999999999"),
    ("999999999999999999.1", "999999999999999999.1"),
    ("-9999999999999999999", "-9999999999999999999"),
    ("9999999999999999999", "9999999999999999999"),
    ("-1E", "-1000000000000000000"), ("1E", "1000000000000000000"),
    ("1.0E", "1000000000000000000"),
    ("9999999999999999999000m", "9999999999999999999"),
    ("9999999999999999999.1", "9999999999999999999.1"),
    ("-1.0000000000000000001E", "-1000000000000000000.1"),
    ("1.000000000000000001E", "1000000000000000001"),
    ("-10E", "-10000000000000000000"), ("10.0E", "10000000000000000000"),
    ("10000000000000000000000m", "10000000000000000000"),
    ("10.0000000000000000001E", "10000000000000000000.1"),
    ("10.000000000000000001E", "10000000000000000001"),
    ("-9223372036854775809", "-9223372036854775809"),
    ("9223372036854775806.1", "9223372036854775806.1"),
    ("-9223372036854775808000m", "-9223372036854775808"),
    ("9223372036854775807.1", "9223372036854775807.1"),
    ("9223372036854775808", "9223372036854775808"),
    ("-9223372036854775807.1", "-9223372036854775807.1"),
]


@pytest.mark.parametrize(("text", "exact"), BIG)
def test_parse_quantity_big(text: str, exact: str) -> None:
    """quantity_test.go TestParseQuantity: wantAsDec values."""
    assert parse_quantity_string(text) == Fraction(exact)


@pytest.mark.parametrize(("raw", "expected"), [
    # quantity_test.go TestJSONWhitespace: JSON strings are trimmed; numbers are accepted.
    (" 1", 1), ("1 ", 1), (1, 1), (10, 10), (-1, -1),
    # YAML/JSON numbers as manifests give them
    (0.5, Fraction(1, 2)), (0.1, Fraction(1, 10)), (1.5e-07, Fraction(150, 10**9)), (0, 0),
    (1e16, 10**16),
])
def test_parse_quantity_json_forms(raw: object, expected: object) -> None:
    assert parse_quantity(raw) == expected


@pytest.mark.parametrize("raw", [True, None, [1], {"a": 1}, float("nan"), float("inf")])
def test_parse_quantity_rejects_non_quantities(raw: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(raw)


def test_parse_quantity_message_names_value() -> None:
    with pytest.raises(QuantityError, match=r"invalid quantity '2 cores'"):
        parse_quantity("2 cores")


def test_upstream_error_texts() -> None:
    """ErrFormatWrong / ErrSuffix / ErrNumeric texts (quantity.go)."""
    with pytest.raises(QuantityError) as e:
        parse_quantity_string("aoeu")
    assert str(e.value) == ERR_FORMAT_WRONG
    with pytest.raises(QuantityError) as e:
        parse_quantity_string("1i")
    assert str(e.value) == ERR_SUFFIX
    # No digits and the Dec path (precision/scale too small): ErrNumeric
    with pytest.raises(QuantityError) as e:
        parse_quantity_string("Pi")
    assert str(e.value) == ERR_NUMERIC
    with pytest.raises(QuantityError) as e:
        parse_quantity_string(".e-10")
    assert str(e.value) == ERR_NUMERIC


@pytest.mark.parametrize(("text", "expected"), [
    # No digits but the int64 fast path: upstream reads 0 (quantity.go ParseQuantity).
    ("Ki", 0), ("-", 0), ("e5", 0), ("-.", 0), ("+", 0), ("00", 0), ("-000", 0),
])
def test_digitless_fast_path_is_zero(text: str, expected: int) -> None:
    assert parse_quantity_string(text) == expected


@pytest.mark.parametrize(("from_scale", "to_scale", "expected"), [
    # quantity_test.go TestScaledValue (NewScaledQuantity(1, from).ScaledValue(to)),
    # for the two scales the scheduler uses: Value() (0) and MilliValue() (-3).
    (-9, -3, 1), (-9, 0, 1), (-6, -3, 1), (-6, 0, 1), (-3, -3, 1), (-3, 0, 1),
    (0, -3, 1000), (0, 0, 1),
])
def test_scaled_value(from_scale: int, to_scale: int, expected: int) -> None:
    q = Fraction(10) ** from_scale
    got = milli_value(q) if to_scale == -3 else value(q)
    assert got == expected


@pytest.mark.parametrize(("text", "milli", "val"), [
    ("1m", 1, 1), ("1", 1000, 1), ("1234", 1234000, 1234),  # TestMilliNewSet round trips
    ("1.5", 1500, 2), ("0.1m", 1, 1), ("500Mi", 524288000000, 524288000),
    ("100.035Ki", 102435840, 102436), ("0", 0, 0), ("1n", 1, 1),
    # Negative: the mathematical ceiling (upstream's int64 path would give -2, see
    # docs/reference.md#quantities; negative requests never reach it, the loader refuses them).
    ("-1.5", -1500, -1),
])
def test_milli_value_and_value_round_up(text: str, milli: int, val: int) -> None:
    q = parse_quantity_string(text)
    assert milli_value(q) == milli
    assert value(q) == val


def test_value_overflow_is_an_error() -> None:
    with pytest.raises(QuantityError, match="out of range"):
        value(parse_quantity_string("10E"))
    with pytest.raises(QuantityError, match="out of range"):
        milli_value(parse_quantity_string("9Ei"))
    assert value(parse_quantity_string("9Ei")) == MAX_INT64


def test_huge_exponent() -> None:
    with pytest.raises(QuantityError, match="too large"):
        parse_quantity_string("1e999999")
    assert parse_quantity_string("1e-999999") == Fraction(1, 10**9)
    assert parse_quantity_string("-1e-999999") == -Fraction(1, 10**9)
    assert parse_quantity_string("0e999999") == 0
