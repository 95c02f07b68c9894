"""ext.Strings' ``<string>.format(<list>)`` at StringsVersion(2): cel-go v0.29.2
``ext/formatting.go`` (``parseFormatString``, the clauses ``%s %d %f %e %b %x %X %o`` and
``%%``, precision, the en_US locale of golang.org/x/text for ``%f`` and ``%e``) and its
compile-time validator ``stringFormatValidator`` (a literal format string with a list literal:
each clause against the checked type of its argument, "too many arguments"); and the
Kubernetes Format library (k8s.io/apiserver v0.37.2 ``pkg/cel/library/format.go``:
``format.named``, ``format.dns1123Label()``..., ``validate``). Notes: docs/dra.md.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import celpy.celtypes as ct

from reference_impl.dra.cel_errors import err, no_overload
from reference_impl.dra.cel_netip import go_quote
from reference_impl.dra.cel_optional import NONE, OptionalValue
from reference_impl.dra.cel_overloads import CelType, type_name
from reference_impl.dra.cel_regex import compile_go
from reference_impl.dra.cel_url import URLError, parse_request_uri
from reference_impl.model.validation import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    max_len_characters_error,
)

_STRING_ERROR = (
    "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
    "types, durations, and timestamps, was given {}"
)
_ERRORS = {
    "s": _STRING_ERROR,
    "d": "decimal clause can only be used on integers, was given {}",
    "f": "fixed-point clause can only be used on doubles, was given {}",
    "e": "scientific clause can only be used on doubles, was given {}",
    "b": "only integers and bools can be formatted as binary, was given {}",
    "x": "only integers, byte buffers, and strings can be formatted as hex, was given {}",
    "o": "octal clause can only be used on integers, was given {}",
}
_ERRORS["X"] = _ERRORS["x"]
#: the kinds each clause takes (the validator's ``verifyTypeOneOf``)
_KINDS = {
    "s": ("list", "map", "int", "uint", "double", "bool", "string", "timestamp", "bytes")
    + ("duration", "type", "null"),
    "d": ("int", "uint"),
    "f": ("double", "string"),
    "e": ("double", "string"),
    "b": ("int", "uint", "bool"),
    "x": ("int", "uint", "string", "bytes"),
    "X": ("int", "uint", "string", "bytes"),
    "o": ("int", "uint"),
}
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


class FormatError(ValueError):
    """A format error: ``str()`` is cel-go's; ``at`` the argument it is about, or None."""

    def __init__(self, message: str, at: int | None = None) -> None:
        super().__init__(message)
        self.at = at


# --- values: kinds, Go's renderings


def kind(v: Any) -> str:
    """The cel-go kind of a celpy value (``ref.Val.Type``)."""
    for cls, name in (
        (ct.BoolType, "bool"),
        (ct.UintType, "uint"),
        (ct.IntType, "int"),
        (ct.DoubleType, "double"),
        (ct.StringType, "string"),
        (ct.BytesType, "bytes"),
        (ct.ListType, "list"),
        (ct.MapType, "map"),
        (ct.TimestampType, "timestamp"),
        (ct.DurationType, "duration"),
    ):
        if isinstance(v, cls):
            return name
    if v is None:
        return "null"
    if isinstance(v, type):
        return "type"
    return "other"


def value_type_name(v: Any) -> str:
    """``ref.Val.Type().TypeName()``."""
    k = kind(v)
    if k != "other":
        return type_name(CelType(k))
    if isinstance(v, OptionalValue):
        return "optional_type"
    names = {"Quantity": "kubernetes.Quantity", "Semver": "kubernetes.Semver"}
    names |= {"URL": "kubernetes.URL", "IPAddr": "net.IP", "CIDRPrefix": "net.CIDR"}
    return names.get(type(v).__name__, type(v).__name__)


def _type_value_name(t: type) -> str:
    names = {
        ct.BoolType: "bool",
        ct.IntType: "int",
        ct.UintType: "uint",
        ct.DoubleType: "double",
        ct.StringType: "string",
        ct.BytesType: "bytes",
        ct.ListType: "list",
        ct.MapType: "map",
        type(None): "null_type",
        ct.TypeType: "type",
        ct.TimestampType: "google.protobuf.Timestamp",
        ct.DurationType: "google.protobuf.Duration",
    }
    return names.get(t, t.__name__)


def go_float(x: float) -> str:
    """``strconv.FormatFloat(x, 'g', -1, 64)`` (a double's string conversion)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    sign, digits, exp = Decimal(repr(x)).as_tuple()
    assert isinstance(exp, int)
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    exp += len(digits) - len(ds)
    dp = len(ds) + exp if ds != "0" else 1  # the decimal point's place
    neg = "-" if sign else ""
    if dp - 1 < -4 or dp - 1 >= 6:  # shortest: %e past 6 digits
        e = dp - 1
        mantissa = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return f"{neg}{mantissa}e{'-' if e < 0 else '+'}{abs(e):02d}"
    if dp <= 0:
        return f"{neg}0.{'0' * -dp}{ds}"
    if dp >= len(ds):
        return neg + ds + "0" * (dp - len(ds))
    return f"{neg}{ds[:dp]}.{ds[dp:]}"


def _fixed(x: float, precision: int, en_us: bool = False) -> str:
    """Go's ``%.Nf`` (``fmt``); ``en_us``: x/text ``message.NewPrinter(en-US)``'s (grouped
    digits, no sign on a zero, ∞)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return ("" if x > 0 else "-") + "∞" if en_us else ("+Inf" if x > 0 else "-Inf")
    if en_us:
        return f"{0.0 if x == 0 else x:,.{precision}f}"
    return f"{x:.{precision}f}"


def _duration(d: datetime.timedelta) -> str:
    """A duration's string conversion: seconds, up to 9 fractional digits."""
    micros = (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds
    sign, micros = ("-" if micros < 0 else ""), abs(micros)
    seconds, frac = divmod(micros, 1_000_000)
    fraction = f".{frac:06d}".rstrip("0") if frac else ""
    return f"{sign}{seconds}{fraction}s"


def _timestamp(t: datetime.datetime) -> str:
    """A timestamp's string conversion: ``time.RFC3339Nano``."""
    text = t.strftime("%Y-%m-%dT%H:%M:%S")
    if t.microsecond:
        text += f".{t.microsecond:06d}".rstrip("0")
    offset = t.utcoffset()
    if not offset:
        return text + "Z"
    minutes = int(offset.total_seconds()) // 60
    sign, minutes = ("-" if minutes < 0 else "+"), abs(minutes)
    return f"{text}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _string(v: Any) -> str:
    """``FormatString``: ``%s`` of a value."""
    k = kind(v)
    if k == "list":
        return _list(v)
    if k == "map":
        return _map(v)
    if k == "null":
        return "null"
    if k == "bytes":
        try:
            return bytes(v).decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(
                'could not convert argument "invalid UTF-8 in bytes, cannot convert to string"'
                " to string"
            ) from None
    if k == "bool":
        return "true" if v else "false"
    if k in ("int", "uint"):
        return str(int(v))
    if k == "double":
        return go_float(float(v))
    if k == "string":
        return str(v)
    if k == "timestamp":
        return _timestamp(v)
    if k == "duration":
        return _duration(v)
    if k == "type":
        return _type_value_name(v)
    raise FormatError(_STRING_ERROR.format(value_type_name(v)))


def _member(v: Any) -> str:
    """``clauseForType`` then ``quoteForCEL``: a list's element, a map's value."""
    k = kind(v)
    if k in ("string", "bytes"):
        quoted = go_quote(_string(v))
        return "b" + quoted if k == "bytes" else quoted
    if k == "double":
        text = _fixed(float(v), 6)
        return f'"{text}"' if math.isnan(v) or math.isinf(v) else text
    if k == "timestamp":
        return f"timestamp({go_quote(_timestamp(v))})"
    if k == "duration":
        return f"duration({go_quote(_duration(v))})"
    if k in ("int", "uint", "bool", "null", "type", "list", "map"):
        return _string(v)
    raise FormatError(f"no formatting function for {value_type_name(v)}")


def _list(v: Any) -> str:
    return "[" + ", ".join(_member(x) for x in v) + "]"


def _map(v: Any) -> str:
    pairs = []
    for key, value in v.items():
        k = kind(key)
        if k not in ("string", "bool", "int", "uint"):
            raise FormatError(f"no formatting function for map key of type {value_type_name(key)}")
        pairs.append((_member(key), _member(value)))
    pairs.sort(key=lambda p: p[0].encode())
    return "{" + ", ".join(f"{k}:{x}" for k, x in pairs) + "}"


def _en_us_scientific(x: float, width: int) -> str:
    """x/text ``Sprintf("%<width>e")`` (cel-go passes the precision as the width): six
    decimals, ``×10`` and a superscript exponent of two digits at least, padded to width."""
    if math.isnan(x):
        text = "NaN"
    elif math.isinf(x):
        text = "∞" if x > 0 else "-∞"
    else:
        mantissa, _, exp = f"{0.0 if x == 0 else x:.6e}".partition("e")
        e = int(exp)
        text = mantissa + "×10" + f"{'-' if e < 0 else ''}{abs(e):02d}".translate(_SUPERSCRIPT)
    return text.rjust(width)


def _clause(c: str, precision: int | None, v: Any) -> str:
    """One clause's rendering of ``v`` (the ``stringFormatter`` callbacks)."""
    k = kind(v)
    bad = FormatError(_ERRORS[c].format(value_type_name(v)))
    if c == "s":
        return _string(v)
    if c in "fe":
        if k == "string" and str(v) in ("NaN", "Infinity", "-Infinity"):
            v, k = float(str(v).replace("Infinity", "inf")), "double"
        if k != "double":
            raise bad
        if c == "f":
            return _fixed(float(v), 6 if precision is None else precision, True)
        return _en_us_scientific(float(v), 6 if precision is None else precision)
    if k not in _KINDS[c]:
        raise bad
    if c == "d":
        return str(int(v))
    if c == "b":
        return format(int(v), "b")
    if c == "o":
        return format(int(v), "o")
    if k in ("string", "bytes"):
        data = str(v).encode() if k == "string" else bytes(v)
        return data.hex().upper() if c == "X" else data.hex()
    return format(int(v), c)


# --- parseFormatString


def parse_format(
    fmt: str,
    size: int,
    arg: Callable[[int], Any],
    clause: Callable[[str, int | None, Any], str],
) -> str:
    """``parseFormatString`` over the format string's UTF-8 bytes: ``arg(i)`` is the i-th
    argument (``Arg``, which may raise), ``clause`` renders it; raises FormatError."""
    data = fmt.encode()
    out = bytearray()
    i = index = 0
    while i < len(data):
        if data[i] != ord("%"):
            out.append(data[i])
            i += 1
            continue
        if i + 1 < len(data) and data[i + 1] == ord("%"):
            out.append(ord("%"))
            i += 2
            continue
        value = arg(index)
        if i + 1 >= len(data):
            raise FormatError("unexpected end of string")
        if index >= size:
            raise FormatError(f"index {index} out of range")
        i, precision = _precision(data, i + 1)
        c = chr(data[i])
        i += 1
        if c not in _ERRORS:
            raise FormatError(
                f'could not parse formatting clause: unrecognized formatting clause "{c}"'
            )
        try:
            out += clause(c, precision, value).encode()
        except FormatError as e:
            raise FormatError(f"error during formatting: {e}", e.at) from None
        index += 1
    return out.decode("utf-8", "replace")


def _precision(data: bytes, i: int) -> tuple[int, int | None]:
    """``parsePrecision``: the index after it, and the precision (None without one)."""
    if data[i] != ord("."):
        return i, None
    start = i = i + 1
    while True:
        if i >= len(data):
            raise FormatError(
                "could not parse formatting clause: error while parsing precision: could not "
                "find end of precision specifier"
            )
        if not (ord("0") <= data[i] <= ord("9")):
            break
        i += 1
    digits = data[start:i].decode()
    problem = "invalid syntax" if not digits else "value out of range"
    if not digits or int(digits) >= 1 << 63:
        raise FormatError(
            "could not parse formatting clause: error while parsing precision: error while "
            f'converting precision to integer: strconv.Atoi: parsing "{digits}": {problem}'
        )
    return i, int(digits)


def string_format(s: Any, args: Any) -> Any:
    """``<string>.format(<list>)`` at run time."""
    if not isinstance(s, str) or not isinstance(args, ct.ListType):
        return no_overload("format", s, args)

    def arg(index: int) -> Any:
        if index >= len(args):
            raise FormatError(f"index {index} out of range")
        return args[index]

    try:
        return ct.StringType(parse_format(str(s), len(args), arg, _clause))
    except FormatError as e:
        return err(str(e))


# --- the validator


def validate(fmt: str, elements: list[Any], call_at: int) -> tuple[int, str] | None:
    """``stringFormatValidator.Validate`` of ``fmt.format([elements])``: the error's offset
    (the argument's for a clause of the wrong type, else the call's) and message."""
    requested = [0]

    def arg(index: int) -> Any:
        requested[0] += 1
        return elements[index] if index < len(elements) else None

    def clause(c: str, _precision: int | None, e: Any) -> str:
        bad = _bad_argument(e, c)
        if bad is not None:
            raise FormatError(_ERRORS[c].format(type_name(bad.type)), bad.offset)
        return ""

    try:
        parse_format(fmt, len(elements), arg, clause)
    except FormatError as e:
        return (call_at if e.at is None else e.at, str(e))
    if len(elements) > requested[0]:
        return (
            call_at,
            f"too many arguments supplied to string.format (expected {requested[0]}, got "
            f"{len(elements)})",
        )
    return None


def _bad_argument(e: Any, c: str) -> Any:
    """``verifyTypeOneOf`` (and ``verifyString``'s walk of list and map literals): the
    expression of a type the clause does not take, or None."""
    if e.type.kind == "dyn" or e.type.kind in _KINDS[c]:
        if c == "s" and e.kind == "list":
            return next((b for x in e.args if (b := _bad_argument(x, c)) is not None), None)
        if c == "s" and e.kind == "map":
            for k, v in e.entries:
                if (b := _bad_argument(k, c) or _bad_argument(v, c)) is not None:
                    return b
        return None
    return e


# --- the Kubernetes Format library (k8s.io/apiserver/pkg/cel/library/format.go, 1.31)


@dataclass(frozen=True, slots=True)
class NamedFormat:
    """``apiservercel.Format`` (``kubernetes.NamedFormat``): equal by name."""

    name: str
    check: Callable[[str], list[str]] = field(compare=False)


def _mask_trailing_dash(name: str) -> str:
    """apimachinery api/validation/generic.go ``maskTrailingDash`` (the last two bytes become
    "a")."""
    data = name.encode()
    return (
        (data[:-2] + b"a").decode("utf-8", "replace") if len(data) > 1 and name[-1] == "-" else name
    )


def _uri(s: str) -> list[str]:
    try:
        parse_request_uri(s)
    except URLError as e:
        return [str(e)]
    return []


def _is_date(s: str) -> bool:
    """``time.Parse("2006-01-02", s)``: four, two and two digits, a day of that month."""
    if len(s) != 10 or s[4] != "-" or s[7] != "-" or not (s[:4] + s[5:7] + s[8:]).isascii():
        return False
    y, m, d = s[:4], s[5:7], s[8:]
    if not (y.isdigit() and m.isdigit() and d.isdigit()) or not 1 <= int(m) <= 12:
        return False
    year, month = int(y), int(m)
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (
        29 if month == 2 and leap else [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    )
    return 1 <= int(d) <= days


_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
_DATE_TIME = "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"
_UUID = "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"
_BASE64 = "^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$"


def _is_date_time(s: str) -> bool:
    """kube-openapi strfmt ``IsDateTime``: the date before the first "t" (lower-cased), the
    time after it matching ``DateTimePattern`` with hours, minutes and seconds compared as
    strings."""
    parts = s.lower().split("t")
    if len(s) < 4 or len(parts) < 2 or not _is_date(parts[0]):
        return False
    m = compile_go(_DATE_TIME).search(parts[1])
    return m is not None and m.group(1) <= "23" and m.group(2) <= "59" and m.group(3) <= "59"


def _matching(pattern: str, message: str) -> Callable[[str], list[str]]:
    return lambda s: [] if compile_go(pattern).search(s) else [message]


def _by(check: Callable[[str], bool], message: str) -> Callable[[str], list[str]]:
    return lambda s: [] if check(s) else [message]


_CHARS = max_len_characters_error
FORMATS: dict[str, NamedFormat] = {
    key: NamedFormat(name, check)
    for key, name, check in (
        ("dns1123Label", "DNS1123Label", lambda s: is_dns1123_label(s, _CHARS)),
        ("dns1123Subdomain", "DNS1123Subdomain", lambda s: is_dns1123_subdomain(s, _CHARS)),
        ("dns1035Label", "DNS1035Label", is_dns1035_label),
        ("qualifiedName", "QualifiedName", is_qualified_name),
        (
            "dns1123LabelPrefix",
            "DNS1123LabelPrefix",
            lambda s: is_dns1123_label(_mask_trailing_dash(s), _CHARS),
        ),
        (
            "dns1123SubdomainPrefix",
            "DNS1123SubdomainPrefix",
            lambda s: is_dns1123_subdomain(_mask_trailing_dash(s), _CHARS),
        ),
        (
            "dns1035LabelPrefix",
            "DNS1035LabelPrefix",
            lambda s: is_dns1035_label(_mask_trailing_dash(s)),
        ),
        ("labelValue", "LabelValue", is_valid_label_value),
        ("uri", "URI", _uri),
        ("uuid", "uuid", _matching(_UUID, "does not match the UUID format")),
        ("byte", "byte", _matching(_BASE64, "invalid base64")),
        ("date", "date", _by(_is_date, "invalid date")),
        ("datetime", "datetime", _by(_is_date_time, "invalid datetime")),
    )
}


def _named(name: Any) -> Any:
    """``format.named``: the format of that name (one of ``ConstantFormats``' keys), or none."""
    if not isinstance(name, str):
        return no_overload("format.named", name)
    found = FORMATS.get(str(name))
    return NONE if found is None else OptionalValue(found, True)


def _validate(f: Any, s: Any) -> Any:
    """``<Format>.validate(string)``: none when valid, else the list of errors."""
    if not isinstance(f, NamedFormat) or not isinstance(s, str):
        return no_overload("validate", f, s)
    errors = f.check(str(s))
    return OptionalValue(ct.ListType([ct.StringType(e) for e in errors]), True) if errors else NONE


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "format": string_format,
    "format.named": _named,
    "validate": _validate,
    **{f"format.{key}": (lambda f=f: f) for key, f in FORMATS.items()},
}
