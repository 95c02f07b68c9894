"""The loader's own field decoding (the generic readers are ``model/decoding.py``):
``_resource_list`` applies ``SetDefaults_ResourceList`` (pkg/apis/core/v1/defaults.go),
quantities rounded up to milli; ``_Raw`` is an object found in the inputs, not yet converted.
The helpers keep their leading underscore: they are internal to the loader package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from reference_impl.model.decoding import (
    InputLocation,
    read_map,
    read_quantity,
    read_str_map,
    show,
)


def _round_up_milli(q: Fraction) -> Fraction:
    """``Quantity.RoundUp(-3)`` as used by SetDefaults_ResourceList (away from zero), on the
    integers of q (n / d): a whole number of milli when d divides n * 1000."""
    n, d = q.numerator, q.denominator
    scaled = n * 1000
    if scaled % d == 0:
        return q
    mag = -(-abs(scaled) // d)
    return Fraction(mag if n > 0 else -mag, 1000)


def _resource_list(ctx: InputLocation, v: object, path: str) -> dict[str, Fraction]:
    """A v1.ResourceList: non-negative quantities rounded up to milli
    (SetDefaults_ResourceList)."""
    m = read_map(ctx, v, path)
    out: dict[str, Fraction] = {}
    for name, raw in m.items():
        if not isinstance(name, str) or not name:
            raise ctx.error(path, f"expected resource names (strings), got {show(name)}")
        fpath = f"{path}.{name}" if "/" not in name and "." not in name else f"{path}[{name}]"
        q = read_quantity(ctx, raw, fpath)
        if q.numerator < 0:  # q < 0 (a Fraction's denominator is positive)
            raise ctx.error(fpath, f"must be greater than or equal to 0, got {show(raw)}")
        out[name] = _round_up_milli(q)
    return out


@dataclass(slots=True)
class _Raw:
    """One object found in the inputs, not yet converted."""

    kind: str
    api_version: str
    doc: Mapping[str, Any]
    ctx: InputLocation
    namespace: str
    name: str


def _metadata_common(r: _Raw) -> tuple[Mapping[str, Any], dict[str, str], dict[str, str]]:
    meta = read_map(r.ctx, r.doc.get("metadata"), "metadata")
    labels = read_str_map(r.ctx, meta.get("labels"), "metadata.labels")
    annotations = read_str_map(r.ctx, meta.get("annotations"), "metadata.annotations")
    return meta, labels, annotations
