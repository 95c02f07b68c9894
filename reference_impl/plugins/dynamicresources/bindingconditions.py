"""Device binding conditions (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus,
both on by default from v1.36): the checks of Filter and the wait of PreBind.

Upstream: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go of
k8s.io/kubernetes v1.37.2: ``isClaimReadyForBinding``, ``isClaimTimeout``,
``isPodReadyForBinding``, ``hasBindingConditions`` and the ``wait.PollUntilContextTimeout`` of
``PreBind`` (interval 5s, timeout ``bindingTimeout``, immediate), whose loop is
``loopConditionUntilContext`` of k8s.io/apimachinery/pkg/util/wait/loop.go.

Nothing in the simulation ever sets a device's conditions: a claim's ``status.devices`` is what
the input says, and a poll sees the same claims every time. So the wait is decided at once:
the first check settles it, or a later tick sees the claim time out, or the context deadline
ends it. ``BindingClock`` is the plugin's ``time.Now``: the wall clock (input
``allocationTimestamp`` values are compared with it, as upstream does) plus the time the
waits of PreBind took (the reference's binding cycle takes no time otherwise).
"""

from __future__ import annotations

import time
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


class BindingError(Exception):
    """An error of ``isClaimReadyForBinding`` / ``isPodReadyForBinding``; the message is
    upstream's ``err.Error()``."""


class BindingClock:
    """``time.Now`` of the plugin in seconds since the epoch: ``wall()`` plus the time spent
    waiting in PreBind."""

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        self.wall = wall
        self.waited = 0.0

    def now(self) -> float:
        return self.wall() + self.waited


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
    ``ErrDeviceBindingTimeout``. The clock moves on by the time waited."""
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
    clock.waited += binding_timeout
    return f"{ERR_DEVICE_BINDING_TIMEOUT}: context deadline exceeded"


def _go_quote(s: str) -> str:
    """Go's ``%q`` for the printable ASCII messages conditions carry."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
