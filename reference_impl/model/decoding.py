"""The decoding toolkit of the three inputs: Kubernetes manifests (``model/loader``), the
kschedconf/v1 Scenario timeline (``model/scenario.py``) and the KubeSchedulerConfiguration
(``config/schema.py``): locations that make a field's error, typed readers with path-precise
messages, and each input's phrasing. See docs/reference.md#decoding."""
from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from reference_impl.model.errors import InputError
from reference_impl.model.quantity import QuantityError, parse_quantity

INT32 = (-(1 << 31), (1 << 31) - 1)
INT64 = (-(1 << 63), (1 << 63) - 1)


class JsonFloat(float):
    """A JSON number with a fraction/exponent that remembers its text, so a quantity written
    as a JSON number is parsed exactly as upstream's Quantity.UnmarshalJSON does."""

    text: str

    def __new__(cls, text: str) -> JsonFloat:
        obj = super().__new__(cls, text)
        obj.text = text
        return obj


def plain(v: Any) -> Any:
    """A copy of a document with ``JsonFloat`` turned back into ``float`` (for documents kept
    raw, which others may serialise)."""
    if isinstance(v, JsonFloat):
        return float(v)
    if isinstance(v, Mapping):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def show(v: object) -> str:
    """A value in a message: its ``repr``, cut at 60 characters."""
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True, slots=True)
class Phrasing:
    """How one input words a type error: the names of the value types (``tuples_are_lists``:
    a tuple is a list too, for the readers as well), how a bad value is shown (``show``) and
    whether it is shown after its type name, for mappings/lists (``show_containers``) and for
    the other values (``show_scalars``)."""

    null: str = "null"
    boolean: str = "boolean"
    integer: str = "integer"
    number: str = "number"
    string: str = "string"
    mapping: str = "mapping"
    sequence: str = "list"
    tuples_are_lists: bool = False
    show: Callable[[object], str] = show
    show_containers: bool = True
    show_scalars: bool = True

    def type_name(self, v: object) -> str:
        if v is None:
            return self.null
        if isinstance(v, bool):
            return self.boolean
        if isinstance(v, int):
            return self.integer
        if isinstance(v, float):
            return self.number
        if isinstance(v, str):
            return self.string
        if isinstance(v, Mapping):
            return self.mapping
        if isinstance(v, list) or (self.tuples_are_lists and isinstance(v, tuple)):
            return self.sequence
        return type(v).__name__

    def expected(self, what: str, v: object, *, container: bool = False,
                 shown: bool | None = None) -> str:
        """``expected <what>, got <type>[ <value>]``; ``shown`` overrides whether the value is
        shown (by default: ``show_containers`` or ``show_scalars``)."""
        if shown is None:
            shown = self.show_containers if container else self.show_scalars
        got = self.type_name(v)
        if shown:
            got += " " + self.show(v)
        return f"expected {what}, got {got}"


MANIFEST = Phrasing()
"""The manifest loader: ``integer``/``number``, the value shown (``repr`` cut at 60)."""
TIMELINE = Phrasing(integer="number", show=repr, show_containers=False, show_scalars=False)
"""The Scenario timeline: ints and floats are ``number``, the value not shown unless asked."""
CONFIG = Phrasing(null="NoneType", boolean="bool", integer="number", mapping="object",
                  sequence="array", tuples_are_lists=True, show=repr, show_containers=False)
"""The configuration (JSON's vocabulary): ``bool``, ``number``, ``object``, ``array``; a bad
scalar is shown with ``repr``, a bad object or array is not."""


class Location:
    """Where decoded values come from: the :class:`Phrasing` of its input and the error of a
    field (``error(path, message)``), which the readers raise."""

    __slots__ = ("phrasing",)

    def __init__(self, phrasing: Phrasing) -> None:
        self.phrasing = phrasing

    def error(self, path: str, message: str) -> Exception:
        raise NotImplementedError

    def expected(self, what: str, v: object, *, container: bool = False,
                 shown: bool | None = None) -> str:
        return self.phrasing.expected(what, v, container=container, shown=shown)


class InputLocation(Location):
    """An object of the input files: ``source`` (file name), ``document`` (1-based number),
    ``item`` (``items[3]`` inside a List: prefixes every field path), ``obj`` (``Pod
    default/web-1``); its errors are ``InputError``."""

    __slots__ = ("source", "document", "item", "obj")

    def __init__(self, source: str, document: int | None, item: str = "", obj: str = "",
                 phrasing: Phrasing = MANIFEST) -> None:
        super().__init__(phrasing)
        self.source = source
        self.document = document
        self.item = item
        self.obj = obj

    def error(self, path: str, message: str) -> InputError:
        full = path
        if self.item:
            full = self.item + ("." + path if path and not path.startswith("[") else path)
        return InputError(message, source=self.source, document=self.document, obj=self.obj,
                          field=full)

    def where(self) -> str:
        """``file, document N[, items[i]]``."""
        parts = [self.source]
        if self.document is not None:
            parts.append(f"document {self.document}")
        if self.item:
            parts.append(self.item)
        return ", ".join(parts)


class DecodeError(ValueError):
    """A field of a :class:`PathLocation` that does not decode; ``str()`` is
    ``<path>: <message>``."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")


class PathLocation(Location):
    """Values known by their field path only; its errors are :class:`DecodeError`."""

    __slots__ = ()

    def error(self, path: str, message: str) -> DecodeError:
        return DecodeError(path, message)


# --- readers: ``None`` (absent or null) reads as the default unless said otherwise ---


def read_map(at: Location, v: object, path: str, *, what: str = "a mapping",
             nullable: bool = True, shown: bool | None = None) -> Mapping[str, Any]:
    if type(v) is dict:  # the common case, without the ABC check
        return v
    if v is None and nullable:
        return {}
    if not isinstance(v, Mapping):
        raise at.error(path, at.expected(what, v, container=True, shown=shown))
    return v


def read_list(at: Location, v: object, path: str, *, what: str = "a list",
              nullable: bool = True) -> list[Any]:
    """A list (or, where the phrasing says ``tuples_are_lists``, a tuple, as a list)."""
    if v is None and nullable:
        return []
    if isinstance(v, list):
        return v
    if isinstance(v, tuple) and at.phrasing.tuples_are_lists:
        return list(v)
    raise at.error(path, at.expected(what, v, container=True))


def read_str(at: Location, v: object, path: str, default: str = "", *,
             shown: bool | None = None) -> str:
    if v is None:
        return default
    if not isinstance(v, str):
        raise at.error(path, at.expected("a string", v, shown=shown))
    return v


def read_required_str(at: Location, v: object, path: str) -> str:
    s = read_str(at, v, path)
    if not s:
        raise at.error(path, "required: expected a non-empty string")
    return s


def read_int(at: Location, v: object, path: str, *, bounds: tuple[int, int] = INT32,
             what: str = "an integer",
             out_of_range: str = "integer {value} out of range [{lo}, {hi}]",
             integral_floats: bool = False) -> int | None:
    """An integer within ``bounds`` (``out_of_range`` formats the error with ``value``, ``lo``
    and ``hi``); with ``integral_floats`` a float such as ``2.0`` reads as ``2``."""
    if v is None:
        return None
    if integral_floats and isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise at.error(path, at.expected(what, v))
    lo, hi = bounds
    if not lo <= v <= hi:
        raise at.error(path, out_of_range.format(value=v, lo=lo, hi=hi))
    return v


def read_float(at: Location, v: object, path: str) -> float | None:
    """A number (an int or a float) as a float."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise at.error(path, at.expected("a number", v))
    return float(v)


def read_bool(at: Location, v: object, path: str, default: bool = False, *,
              what: str = "a boolean") -> bool:
    if v is None:
        return default
    if not isinstance(v, bool):
        raise at.error(path, at.expected(what, v))
    return v


def read_str_map(at: Location, v: object, path: str) -> dict[str, str]:
    """A map of strings to strings (labels, annotations, a node selector)."""
    m = read_map(at, v, path)
    out: dict[str, str] = {}
    p = at.phrasing
    for k, val in m.items():
        if not isinstance(k, str):
            raise at.error(path, f"expected a map of strings, got key {p.show(k)} "
                                 f"({p.type_name(k)})")
        if not isinstance(val, str):
            raise at.error(f"{path}[{k}]" if path else k,
                           at.expected("a string value", val) + " (quote it in YAML)")
        out[k] = val
    return out


def read_str_list(at: Location, v: object, path: str) -> tuple[str, ...]:
    items = read_list(at, v, path)
    for i, s in enumerate(items):
        if not isinstance(s, str):
            raise at.error(f"{path}[{i}]", at.expected("a string", s))
    return tuple(items)


def read_enum(at: Location, v: object, path: str, allowed: tuple[str, ...],
              default: str | None = None) -> str | None:
    """One of ``allowed``; absent, null or "" reads as ``default``."""
    if v is None or v == "":
        return default
    if not isinstance(v, str) or v not in allowed:
        raise at.error(path, f"unsupported value {at.phrasing.show(v)}: expected one of "
                             + ", ".join(f'"{a}"' for a in allowed))
    return v


_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def read_time(at: Location, v: object, path: str) -> float | None:
    """metav1.Time: an RFC 3339 timestamp -> seconds since the epoch."""
    if v is None or v == "":
        return None
    if isinstance(v, _dt.datetime):
        dt = v
    elif isinstance(v, str):
        text = v.strip()
        if not _RFC3339.match(text):
            raise at.error(path, f"expected an RFC 3339 timestamp (e.g. "
                                 f"2024-01-02T15:04:05Z), got {at.phrasing.show(v)}")
        text = text[:-1] + "+00:00" if text[-1] in "Zz" else text
        frac = re.search(r"\.(\d+)", text)
        if frac and len(frac.group(1)) > 6:  # fromisoformat takes at most microseconds
            text = text.replace(frac.group(0), "." + frac.group(1)[:6])
        try:
            dt = _dt.datetime.fromisoformat(text.replace("t", "T"))
        except ValueError as e:
            raise at.error(path, f"invalid timestamp {at.phrasing.show(v)}: {e}") from None
    else:
        raise at.error(path, at.expected("an RFC 3339 timestamp string", v, shown=False))
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=_dt.UTC)
    return dt.timestamp()


def read_quantity(at: Location, v: object, path: str) -> Fraction:
    """A resource.Quantity (a string or a number; a JSON number keeps its text)."""
    raw = v.text if isinstance(v, JsonFloat) else v
    try:
        return parse_quantity(raw)
    except QuantityError as e:
        raise at.error(path, str(e)) from None


def read_duration(at: Location, v: object, path: str, parse: Callable[[Any], int], *,
                  what: str | None = None, negative: bool = True) -> int:
    """A duration in nanoseconds, read by ``parse`` (whose ``ValueError`` is the message);
    with ``what`` only a string is accepted; without ``negative`` a negative one is refused."""
    if what is not None and not isinstance(v, str):
        raise at.error(path, at.expected(what, v))
    try:
        d = parse(v)
    except ValueError as e:
        raise at.error(path, str(e)) from None
    if not negative and d < 0:
        raise at.error(path, f"must not be negative, got {at.phrasing.show(v)}")
    return d
