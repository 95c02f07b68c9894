"""Consumable capacity (DRAConsumableCapacity, FractionalCapacityRange): how much of a device's
capacity a request consumes and whether it still fits. Upstream:
k8s.io/dynamic-resource-allocation/structured/internal/incubating/consumable_capacity.go and
structured/schedulerapi (``ConsumedCapacity``, ``ConsumedCapacityCollection``) of v0.37.2.

Quantities are exact ``Fraction``s. ``Quantity.Value()`` rounds up, ``MilliValue()`` too
(reference_impl/model/quantity.py). A device's ``requestPolicy`` is read here from the raw map
the loader keeps (``default``, ``validRange`` {min, max, step}, ``validValues``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from reference_impl.model.dra import (
    CapacityRequirements,
    Consumed,
    DeviceCapacity,
)
from reference_impl.model.quantity import (
    DECIMAL_SI,
    MAX_INT64,
    QuantityError,
    format_value,
    milli_value,
    parse_quantity,
    value,
)

#: ``errCapacityRequestNotRepresentable``
NOT_REPRESENTABLE = ("capacity request cannot be represented in the device's range "
                     "arithmetic")
#: ``errNegativeCapacity``
NEGATIVE = "capacity value is negative"

class CapacityError(Exception):
    """A fatal capacity error (upstream aborts the allocation instead of skipping the
    device): ``capacity "<name>": <err>``."""


@dataclass(slots=True, frozen=True)
class ValidRange:
    min: Fraction | None
    max: Fraction | None
    step: Fraction | None


@dataclass(slots=True, frozen=True)
class RequestPolicy:
    """``resourceapi.CapacityRequestPolicy``."""

    default: Fraction | None
    valid_values: tuple[Fraction, ...] | None
    valid_range: ValidRange | None


def _q(raw: object) -> Fraction | None:
    return None if raw is None else parse_quantity(raw)


def request_policy(cap: DeviceCapacity) -> RequestPolicy | None:
    """The device capacity's ``requestPolicy``, parsed from the raw map."""
    raw = cap.request_policy
    if raw is None:
        return None
    rng = raw.get("validRange")
    values = raw.get("validValues")
    return RequestPolicy(
        _q(raw.get("default")),
        None if values is None else tuple(parse_quantity(v) for v in values),
        None if rng is None else ValidRange(_q(rng.get("min")), _q(rng.get("max")),
                                            _q(rng.get("step"))))


def _safe_milli(q: Fraction) -> int | None:
    """``safeMilliValue``: the milli value when lossless, else None."""
    try:
        milli = milli_value(q)
    except QuantityError:
        return None
    return milli if Fraction(milli, 1000) == q else None


def _use_milli(r: ValidRange, fractional: bool) -> bool:
    """``useMilli``: FractionalCapacityRange on, min/max/step exact in milli units, step at
    least 1m."""
    if not fractional:
        return False
    for i, q in enumerate((r.min, r.max, r.step)):
        if q is None:
            continue
        milli = _safe_milli(q)
        if milli is None or (i == 2 and milli < 1):
            return False
    return True


def _go_div(a: int, b: int) -> int:
    """Go's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _round_up_range(requested: Fraction, r: ValidRange, fractional: bool) -> Fraction:
    """``roundUpRange``: below min gives min; with a step, rounded up to min + n*step."""
    assert r.min is not None
    if requested < r.min:
        return r.min
    if r.step is None:
        return requested
    shown = format_value(requested, DECIMAL_SI)
    if _use_milli(r, fractional):
        req = _safe_milli(requested)
        if req is None:
            raise ValueError(f"{NOT_REPRESENTABLE}: request {shown} is not a representable "
                             "milli value")
        step, lo = milli_value(r.step), milli_value(r.min)
        added = req - lo
        n = _go_div(added, step) + (1 if added % step else 0)
        if n > _go_div(MAX_INT64 - lo, step):
            raise ValueError(f"{NOT_REPRESENTABLE}: rounding request {shown} up to the next "
                             "step passes the milli-value range")
        return Fraction(lo + step * n, 1000)
    if requested > MAX_INT64:
        raise ValueError(f"{NOT_REPRESENTABLE}: request {shown} exceeds MaxInt64")
    req, step, lo = value(requested), value(r.step), value(r.min)
    added = req - lo
    n = _go_div(added, step) + (1 if added % step else 0)
    if lo >= 0 and n > _go_div(MAX_INT64 - lo, step):
        raise ValueError(f"{NOT_REPRESENTABLE}: rounding request {shown} up to the next step "
                         "passes MaxInt64")
    return Fraction(lo + step * n)


def _round_up_valid_values(requested: Fraction, values: Sequence[Fraction]) -> Fraction:
    """``roundUpValidValues``: the first valid value not below the request, else the
    request."""
    for v in values:
        if requested <= v:
            return v
    return requested


def calculate_consumed(requested: Fraction | None, cap: DeviceCapacity,
                       fractional: bool) -> Fraction:
    """``calculateConsumedCapacity``: no request takes the policy's default or else the whole
    value (``fillEmptyRequest``); a request is rounded up by the policy's valid range (when it
    has a min) or valid values. Raises ValueError when not representable."""
    policy = request_policy(cap)
    if requested is None:
        if policy is not None and policy.default is not None:
            return policy.default
        return cap.value
    if policy is None:
        return requested
    if policy.valid_range is not None and policy.valid_range.min is not None:
        return _round_up_range(requested, policy.valid_range, fractional)
    if policy.valid_values is not None:
        return _round_up_valid_values(requested, policy.valid_values)
    return requested


def _violates_range(requested: Fraction, r: ValidRange, fractional: bool) -> bool:
    """``violateValidRange``: above max, or not min plus a multiple of step."""
    if r.max is not None and requested > r.max:
        return True
    if r.step is not None:
        assert r.min is not None
        if _use_milli(r, fractional):
            req = _safe_milli(requested)
            if req is None:
                return True
            step, lo = milli_value(r.step), milli_value(r.min)
        else:
            req, step, lo = value(requested), value(r.step), value(r.min)
        if abs(req - lo) % abs(step) != 0:
            return True
    return False


def violates_policy(requested: Fraction, policy: RequestPolicy | None, fractional: bool
                    ) -> bool:
    """``violatesPolicy``: the default always complies (upstream compares the Quantity
    structs; equal values are taken as equal here)."""
    if policy is None:
        return False
    if policy.default is not None and requested == policy.default:
        return False
    if policy.valid_range is not None:
        return _violates_range(requested, policy.valid_range, fractional)
    if policy.valid_values:
        return requested not in policy.valid_values
    return False


def _requested(requests: CapacityRequirements | None) -> dict[str, Fraction]:
    return dict(requests.requests) if requests is not None else {}


def consumed_from_request(requests: CapacityRequirements | None,
                          capacity: Sequence[tuple[str, DeviceCapacity]],
                          fractional: bool) -> Consumed:
    """``GetConsumedCapacityFromRequest``: what the request consumes of every capacity of the
    device."""
    wanted = _requested(requests)
    out: Consumed = {}
    for name, cap in capacity:
        try:
            out[name] = calculate_consumed(wanted.get(name), cap, fractional)
        except ValueError as e:
            raise CapacityError(f'capacity "{name}": {e}') from None
    return out


def request_fits(current: Mapping[str, Fraction], requests: CapacityRequirements | None,
                 capacity: Sequence[tuple[str, DeviceCapacity]],
                 allocating: Mapping[str, Fraction] | None, fractional: bool) -> bool:
    """``CmpRequestOverCapacity``: False (skip the device) when the request names a capacity
    the device lacks, breaks a policy, or would take the consumed plus the allocating
    capacity over the value; raises :class:`CapacityError` (abort) when a request cannot be
    represented or a consumed value is negative. Every capacity is resolved before any soft
    check, so the outcome does not depend on the order of the capacities."""
    wanted = _requested(requests)
    names = {name for name, _ in capacity}
    if any(name not in names for name in wanted):
        return False
    consumed = consumed_from_request(requests, capacity, fractional)
    for name, q in consumed.items():
        if q < 0:
            raise CapacityError(f'capacity "{name}": {NEGATIVE}')
    for name, cap in capacity:
        q = consumed[name]
        if violates_policy(q, request_policy(cap), fractional):
            return False
        total = current.get(name, Fraction(0)) + q + (allocating or {}).get(name, Fraction(0))
        if total > cap.value:
            return False
    return True
