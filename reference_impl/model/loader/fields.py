"""Field decoding for the manifest loader, with path-precise errors.

Every helper takes a :class:`_Ctx` (file, document, List item, object) and the field's path, and
raises ``InputError`` naming them and what was expected. ``_resource_list`` applies
``SetDefaults_ResourceList`` (pkg/apis/core/v1/defaults.go): quantities rounded up to milli.
The helpers keep their leading underscore: they are internal to the loader package.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from reference_impl.model.errors import InputError
from reference_impl.model.quantity import QuantityError, parse_quantity

_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)


class _JsonFloat(float):
    """A JSON number with a fraction/exponent that remembers its text, so a quantity written
    as a JSON number is parsed exactly as upstream's Quantity.UnmarshalJSON does."""

    text: str

    def __new__(cls, text: str) -> _JsonFloat:
        obj = super().__new__(cls, text)
        obj.text = text
        return obj


def _plain(v: Any) -> Any:
    """A copy of a document with ``_JsonFloat`` turned back into ``float`` (for documents kept
    raw, which others may serialise)."""
    if isinstance(v, _JsonFloat):
        return float(v)
    if isinstance(v, Mapping):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _type_name(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, Mapping):
        return "mapping"
    if isinstance(v, list):
        return "list"
    return type(v).__name__


def _show(v: object) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


class _Ctx:
    """Where an object came from, for error messages."""

    __slots__ = ("source", "document", "item", "obj")

    def __init__(self, source: str, document: int | None, item: str = "", obj: str = "") -> None:
        self.source = source
        self.document = document
        self.item = item  # "items[3]" inside a List
        self.obj = obj

    def error(self, path: str, message: str) -> InputError:
        full = path
        if self.item:
            full = self.item + ("." + path if path and not path.startswith("[") else path)
        return InputError(message, source=self.source, document=self.document, obj=self.obj,
                          field=full)


def _map(ctx: _Ctx, v: object, path: str) -> Mapping[str, Any]:
    if v is None:
        return {}
    if not isinstance(v, Mapping):
        raise ctx.error(path, f"expected a mapping, got {_type_name(v)} {_show(v)}")
    return v


def _list(ctx: _Ctx, v: object, path: str) -> list[Any]:
    if v is None:
        return []
    if not isinstance(v, list):
        raise ctx.error(path, f"expected a list, got {_type_name(v)} {_show(v)}")
    return v


def _str(ctx: _Ctx, v: object, path: str, default: str = "") -> str:
    if v is None:
        return default
    if not isinstance(v, str):
        raise ctx.error(path, f"expected a string, got {_type_name(v)} {_show(v)}")
    return v


def _req_str(ctx: _Ctx, v: object, path: str) -> str:
    s = _str(ctx, v, path)
    if not s:
        raise ctx.error(path, "required: expected a non-empty string")
    return s


def _int(ctx: _Ctx, v: object, path: str, *, bounds: tuple[int, int] = _INT32) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.error(path, f"expected an integer, got {_type_name(v)} {_show(v)}")
    if not bounds[0] <= v <= bounds[1]:
        raise ctx.error(path, f"integer {v} out of range [{bounds[0]}, {bounds[1]}]")
    return v


def _bool(ctx: _Ctx, v: object, path: str, default: bool = False) -> bool:
    if v is None:
        return default
    if not isinstance(v, bool):
        raise ctx.error(path, f"expected a boolean, got {_type_name(v)} {_show(v)}")
    return v


def _str_map(ctx: _Ctx, v: object, path: str) -> dict[str, str]:
    m = _map(ctx, v, path)
    out: dict[str, str] = {}
    for k, val in m.items():
        if not isinstance(k, str):
            raise ctx.error(path, f"expected a map of strings, got key {_show(k)} "
                                  f"({_type_name(k)})")
        if not isinstance(val, str):
            raise ctx.error(f"{path}[{k}]" if path else k,
                            f"expected a string value, got {_type_name(val)} {_show(val)} "
                            "(quote it in YAML)")
        out[k] = val
    return out


def _str_list(ctx: _Ctx, v: object, path: str) -> tuple[str, ...]:
    items = _list(ctx, v, path)
    for i, s in enumerate(items):
        if not isinstance(s, str):
            raise ctx.error(f"{path}[{i}]", f"expected a string, got {_type_name(s)} {_show(s)}")
    return tuple(items)


def _one_of(ctx: _Ctx, v: object, path: str, allowed: tuple[str, ...],
            default: str | None = None) -> str | None:
    if v is None or v == "":
        if default is None:
            return None
        return default
    if not isinstance(v, str) or v not in allowed:
        raise ctx.error(path, f"unsupported value {_show(v)}: expected one of "
                              + ", ".join(f'"{a}"' for a in allowed))
    return v


def _time(ctx: _Ctx, v: object, path: str) -> float | None:
    """metav1.Time: an RFC 3339 timestamp -> seconds since the epoch."""
    if v is None or v == "":
        return None
    if isinstance(v, _dt.datetime):
        dt = v
    elif isinstance(v, str):
        text = v.strip()
        if not re.match(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$",
                        text):
            raise ctx.error(path, f"expected an RFC 3339 timestamp (e.g. "
                                  f"2024-01-02T15:04:05Z), got {_show(v)}")
        text = text[:-1] + "+00:00" if text[-1] in "Zz" else text
        frac = re.search(r"\.(\d+)", text)
        if frac and len(frac.group(1)) > 6:  # fromisoformat takes at most microseconds
            text = text.replace(frac.group(0), "." + frac.group(1)[:6])
        try:
            dt = _dt.datetime.fromisoformat(text.replace("t", "T"))
        except ValueError as e:
            raise ctx.error(path, f"invalid timestamp {_show(v)}: {e}") from None
    else:
        raise ctx.error(path, f"expected an RFC 3339 timestamp string, got {_type_name(v)}")
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=_dt.UTC)
    return dt.timestamp()


def _quantity(ctx: _Ctx, v: object, path: str) -> Fraction:
    raw = v.text if isinstance(v, _JsonFloat) else v
    try:
        return parse_quantity(raw)
    except QuantityError as e:
        raise ctx.error(path, str(e)) from None


def _round_up_milli(q: Fraction) -> Fraction:
    """``Quantity.RoundUp(-3)`` as used by SetDefaults_ResourceList (away from zero)."""
    scaled = q * 1000
    if scaled.denominator == 1:
        return q
    mag = -(-abs(scaled.numerator) // scaled.denominator)
    return Fraction(mag if q > 0 else -mag, 1000)


def _resource_list(ctx: _Ctx, v: object, path: str) -> dict[str, Fraction]:
    """A v1.ResourceList: non-negative quantities rounded up to milli
    (SetDefaults_ResourceList)."""
    m = _map(ctx, v, path)
    out: dict[str, Fraction] = {}
    for name, raw in m.items():
        if not isinstance(name, str) or not name:
            raise ctx.error(path, f"expected resource names (strings), got {_show(name)}")
        fpath = f"{path}.{name}" if "/" not in name and "." not in name else f"{path}[{name}]"
        q = _quantity(ctx, raw, fpath)
        if q < 0:
            raise ctx.error(fpath, f"must be greater than or equal to 0, got {_show(raw)}")
        out[name] = _round_up_milli(q)
    return out


@dataclass(slots=True)
class _Raw:
    """One object found in the inputs, not yet converted."""

    kind: str
    api_version: str
    doc: Mapping[str, Any]
    ctx: _Ctx
    namespace: str
    name: str


def _metadata_common(r: _Raw) -> tuple[Mapping[str, Any], dict[str, str], dict[str, str]]:
    meta = _map(r.ctx, r.doc.get("metadata"), "metadata")
    labels = _str_map(r.ctx, meta.get("labels"), "metadata.labels")
    annotations = _str_map(r.ctx, meta.get("annotations"), "metadata.annotations")
    return meta, labels, annotations
