"""Device binding conditions (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus):
the checks of Filter and the wait of PreBind, on virtual time (``BindingClock``).

Upstream: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go (v1.37.2):
``isClaimReadyForBinding``, ``isClaimTimeout``, ``isPodReadyForBinding``,
``hasBindingConditions`` and PreBind's ``wait.PollUntilContextTimeout`` (interval 5s, timeout
``bindingTimeout``). The clock and what is not modelled: docs/dra.md#module-notes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from reference_impl.model.dra import (
    AllocatedDeviceStatus,
    DeviceRequestAllocationResult,
    ResourceClaim,
)

#: ``ErrDeviceBindingTimeout`` / ``ErrDeviceBindingFailed``
ERR_DEVICE_BINDING_TIMEOUT = "device binding timeout"
ERR_DEVICE_BINDING_FAILED = "device binding failed"
#: the poll interval of PreBind's wait
POLL_INTERVAL_SECONDS = 5.0
#: how far past its deadline the plugin's clock is when a wait ends there: the wall clock has
#: moved on (the deadline's timer fires after it, and the poll began after ``bindClaim`` stamped
#: the allocation), so the next check finds the claim timed out (``isClaimTimeout`` compares
#: with ``Before``, strictly). One microsecond, well above a float's resolution at these times.
PAST_DEADLINE_SECONDS = 1e-6


class BindingError(Exception):
    """An error of ``isClaimReadyForBinding`` / ``isPodReadyForBinding``; the message is
    upstream's ``err.Error()``."""


#: the wall time (seconds since the Unix epoch) of virtual time 0: 2000-01-01T00:00:00Z
VIRTUAL_EPOCH = 946_684_800.0


def _time_zero() -> float:
    return 0.0


class BindingClock:
    """``time.Now`` of the plugin in seconds since the Unix epoch: ``epoch`` plus the virtual
    time (``virtual()``, seconds; 0 outside a simulation) plus the time spent waiting in
    PreBind (``waited``)."""

    def __init__(self, virtual: Callable[[], float] = _time_zero,
                 epoch: float = VIRTUAL_EPOCH) -> None:
        self.virtual = virtual
        self.epoch = epoch
        self.waited = 0.0

    def now(self) -> float:
        return self.epoch + self.virtual() + self.waited


def _device_status(claim: ResourceClaim, r: DeviceRequestAllocationResult
                   ) -> AllocatedDeviceStatus | None:
    """``getAllocatedDeviceStatus``."""
    for d in claim.devices:
        if d.device == r.device and d.driver == r.driver and d.pool == r.pool:
            return d
    return None


def is_claim_ready_for_binding(claim: ResourceClaim) -> bool:
    """``isClaimReadyForBinding``: every binding condition of every result True and no
    binding failure condition True (BindingError); a result without binding conditions is
    ready, one without a device status is not."""
    if claim.allocation is None:
        return False
    for r in claim.allocation.results:
        if not r.binding_conditions:
            continue
        status = _device_status(claim, r)
        if status is None:
            return False
        for cond in r.binding_failure_conditions:
            found = next((c for c in status.conditions if c.type == cond), None)
            if found is not None and found.status == "True":
                raise BindingError(
                    f"{ERR_DEVICE_BINDING_FAILED}: claim={claim.name}, reason={found.reason}, "
                    f"message={_go_quote(found.message)}")
        for cond in r.binding_conditions:
            if not any(c.type == cond and c.status == "True" for c in status.conditions):
                return False
    return True


def is_claim_timeout(claim: ResourceClaim, binding_timeout: float, now: float) -> bool:
    """``isClaimTimeout`` (the gates are checked by the caller): a result with binding
    conditions and ``allocationTimestamp + bindingTimeout`` before now."""
    a = claim.allocation
    if a is None or a.allocation_timestamp is None:
        return False
    return any(r.binding_conditions for r in a.results) and \
        a.allocation_timestamp + binding_timeout < now


def has_binding_conditions(claims: Sequence[ResourceClaim]) -> bool:
    """``hasBindingConditions``: some allocated result has binding conditions."""
    return any(r.binding_conditions for c in claims if c.allocation is not None
               for r in c.allocation.results)


def is_pod_ready_for_binding(claims: Sequence[ResourceClaim], binding_timeout: float,
                             now: float) -> bool:
    """``isPodReadyForBinding``: the claims in order; the first one not ready ends the check,
    with a timeout error if it timed out."""
    for claim in claims:
        if not is_claim_ready_for_binding(claim):
            if is_claim_timeout(claim, binding_timeout, now):
                raise BindingError(f"{ERR_DEVICE_BINDING_TIMEOUT}: claim={claim.name}")
            return False
    return True


def wait_for_binding(claims: Sequence[ResourceClaim], binding_timeout: float,
                     clock: BindingClock) -> str | None:
    """The wait of PreBind, ``wait.PollUntilContextTimeout(ctx, 5s, bindingTimeout, true,
    isPodReadyForBinding)`` over claims that never change: None when ready, else the error's
    message. The condition runs at once, then at each tick strictly before the deadline (a
    tick at the deadline finds the context done: ``loopConditionUntilContext`` checks
    ``ctx.Err()`` after each tick); at the deadline ``context.DeadlineExceeded`` is wrapped as
    ``ErrDeviceBindingTimeout``. The clock moves on by the time waited (past the deadline by
    ``PAST_DEADLINE_SECONDS`` when the wait ends there)."""
    start = clock.now()
    t = 0.0
    while t == 0.0 or t < binding_timeout:
        try:
            ready = is_pod_ready_for_binding(claims, binding_timeout, start + t)
        except BindingError as e:
            clock.waited += t
            return str(e)
        if ready:
            clock.waited += t
            return None
        t += POLL_INTERVAL_SECONDS
    clock.waited += binding_timeout + PAST_DEADLINE_SECONDS
    return f"{ERR_DEVICE_BINDING_TIMEOUT}: context deadline exceeded"


def _go_quote(s: str) -> str:
    """Go's ``%q`` for the printable ASCII messages conditions carry."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
