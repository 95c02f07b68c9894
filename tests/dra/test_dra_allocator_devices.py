"""More cases of upstream's allocator test table (k8s.io/dynamic-resource-allocation v0.37.2,
structured/internal/allocatortesting/allocator_testing.go, ``TestAllocator``), each under its
upstream name: "all" devices, admin access, constraints that do not match, requests and
constraints the allocator does not know, the claim limit, device taints, multi-host pools,
invalid and incomplete pools, and how many combinations a search tries
(``expectNumAllocateOneInvocations``, upstream's value for the incubating variant).

Each case runs with exactly the features its ``features`` field sets (every other one off,
:func:`tests.dra.allocator_table.upstream_features`), against the classes its ``classes``
field lists. A result compares, per device, the request, driver, pool, device, admin access,
tolerations and binding conditions, as upstream's ``deviceAllocationResult``.

Not restated:

- "unknown-selector": a request selector without a CEL expression (``CEL: nil``, "unknown
  future selector type"). The reference's ``DeviceSelector`` is a CEL expression, the only kind
  in v1, and its loader requires one, so such a selector cannot be expressed."""

from __future__ import annotations

import pytest

from reference_impl.dra.allocator import ALLOCATION_RESULTS_MAX_SIZE
from reference_impl.model.dra import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    AttributeValue,
    Device,
    DeviceClass,
    DeviceConstraint,
    DeviceTaint,
    DeviceToleration,
    ResourceClaim,
    ResourceSlice,
    Version,
)
from reference_impl.testing.dra import (
    claim,
    device,
    device_class,
    local_node_selector,
    request,
    request_with_prioritized_list,
    slice_with_devices,
    sub_request,
    sub_request_tolerating,
)
from tests.dra.allocator_table import (
    BOOL_ATTR,
    CLASS_A,
    CLASS_B,
    CLASSES,
    DRIVER_A,
    DRIVER_B,
    INT_ATTR,
    NODE_1,
    NODE_2,
    STRING_ATTR,
    VERSION_ATTR,
    Case,
    check_case,
    one,
    result,
    upstream_features,
)

ALL = ALLOCATION_MODE_ALL
MAX = ALLOCATION_RESULTS_MAX_SIZE
BIG = (1 << 62)  # math.MaxInt/2+1 on 64 bits
ONLY_A = {CLASS_A: device_class(CLASS_A, DRIVER_A)}
AT_1 = local_node_selector(NODE_1)

# TestAllocator's taints and tolerations
TAINT_NONE = DeviceTaint("taint-key", "taint-value", "None")
TAINT_NO_SCHEDULE = DeviceTaint("taint-key", "taint-value", "NoSchedule")
TAINT_NO_EXECUTE = DeviceTaint("taint-key", "taint-value-2", "NoExecute")
TOLERATE_NO_SCHEDULE = DeviceToleration("taint-key", "Exists", effect="NoSchedule")
TOLERATE_NO_EXECUTE = DeviceToleration("taint-key", "Equal", "taint-value-2", "NoExecute")


def _tainted(*taints: tuple[DeviceTaint, ...]) -> list[ResourceSlice]:
    """slice-1 of pool-1 on node-1 with device-1, device-2, ... tainted with ``taints``."""
    return [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, *[
        device(f"device-{i}", taints=t) for i, t in enumerate(taints, 1)])]


TWO_TAINTED = _tainted((TAINT_NO_SCHEDULE,), (TAINT_NO_EXECUTE,))
TAINTED_TWICE = _tainted((TAINT_NO_SCHEDULE, TAINT_NO_EXECUTE))
NO_SCHEDULE = _tainted((TAINT_NO_SCHEDULE,))


def _admin(name: str, count: int = 1, mode: str = ALLOCATION_MODE_EXACT_COUNT
           ) -> ResourceClaim:
    """``claimWithRequest(name, req0, classA)`` with ``AdminAccess`` (and the mode) set."""
    return claim(name, request("req-0", CLASS_A, count, mode=mode, admin_access=True))


def _devices(*names: str) -> list[Device]:
    return [device(n) for n in names]


def _many(n: int) -> list[Device]:
    """``sliceWithMultipleDevices``: device-0 ... device-(n-1)."""
    return [device(f"device-{i}") for i in range(n)]


def _at(name: str, node_name: str, dev: str, count: int = 2, generation: int = 1
        ) -> ResourceSlice:
    """A slice of pool-1 with one device, in a pool of ``count`` slices."""
    return slice_with_devices(name, node_name, "pool-1", DRIVER_A, device(dev),
                              slice_count=count, generation=generation)


def _typed(name: str, t: str) -> Device:
    return device(name, None, {"type": t})


X_SELECTOR = f'device.attributes["{DRIVER_A}"].type == "X"'
BACKTRACK_CLAIM = claim("claim-0", request("req-1", CLASS_A, 2),
                        request("req-2", CLASS_A, 1, X_SELECTOR))
BACKTRACK_RESULT = [result(AT_1, ("req-1", DRIVER_A, "pool-1", "device-2"),
                           ("req-1", DRIVER_A, "pool-1", "device-3"),
                           ("req-2", DRIVER_A, "pool-1", "device-1"))]
UPDATES = {  # the slices of the multi-host-resource-pool-*-update-* cases: (node, generation)
    "complete-update-from-node-1-to-node-2": ((NODE_1, 1), (NODE_1, 1), (NODE_2, 2), (NODE_2, 2)),
    "complete-update-from-node-2-to-node-1": ((NODE_2, 1), (NODE_2, 1), (NODE_1, 2), (NODE_1, 2)),
    "incomplete-update-from-node-1-to-node-2": ((NODE_1, 1), (NODE_1, 1), (NODE_2, 2)),
    "incomplete-update-from-node-2-to-node-1": ((NODE_2, 1), (NODE_2, 1), (NODE_1, 2)),
}


def _constraint_not_matching(attr: str, name: str, a: AttributeValue, b: AttributeValue
                             ) -> Case:
    """with-constraint-not-matching-*-attribute."""
    return Case([claim("claim-0", request("req-0", CLASS_A, 2),
                       constraints=(DeviceConstraint(match_attribute=attr),))],
                [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                                    device("device-1", None, {name: a}),
                                    device("device-2", None, {name: b}))],
                features=upstream_features())


def _unknown(c: ResourceClaim, error: str) -> Case:
    return Case([c], [one("slice-1", NODE_1, "pool-1", DRIVER_A)], error=error,
                features=upstream_features())


NO_FEATURES = upstream_features()
ADMIN = upstream_features("AdminAccess")
TAINTS = upstream_features("DeviceTaints")
TAINTS_LIST = upstream_features("DeviceTaints", "PrioritizedList")
TAINTS_ADMIN = upstream_features("DeviceTaints", "AdminAccess")

#: the cases, each under its name in allocator_testing.go (v0.37.2)
CASES: dict[str, Case] = {
    "empty": Case([], [], expect=[], features=NO_FEATURES),
    "no-classes": Case([claim("claim-0", request("req-0", CLASS_A))],
                       [one("slice-1", NODE_1, "pool-1", DRIVER_A)],
                       error="could not retrieve device class class-a", features=NO_FEATURES),
    "empty-class": Case([claim("claim-0", request("req-0", ""))],
                        [one("slice-1", NODE_1, "pool-1", DRIVER_A)],
                        error="claim claim-0, request req-0: missing device class name "
                              "(unsupported request type?)", features=NO_FEATURES),
    "all-devices-many": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A), one("slice-1", NODE_1, "pool-2", DRIVER_A)],
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-0", DRIVER_A, "pool-2", "device-1"))], features=NO_FEATURES),
    "all-devices-plus-another-reversed": Case(
        [claim("claim-1", request("req-0", CLASS_B)),
         claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A), one("slice-1", NODE_1, "pool-1", DRIVER_B)],
        expect=[result(AT_1, ("req-0", DRIVER_B, "pool-1", "device-1")),
                result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1"))], features=NO_FEATURES),
    "all-devices-many-plus-another": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL)),
         claim("claim-1", request("req-0", CLASS_B))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            *_devices("device-1", "device-2")),
         one("slice-1", NODE_1, "pool-1", DRIVER_B)],
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-0", DRIVER_A, "pool-1", "device-2")),
                result(AT_1, ("req-0", DRIVER_B, "pool-1", "device-1"))], features=NO_FEATURES),
    "all-devices-many-plus-another-reversed": Case(
        [claim("claim-1", request("req-0", CLASS_B)),
         claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            *_devices("device-1", "device-2")),
         one("slice-1", NODE_1, "pool-1", DRIVER_B)],
        expect=[result(AT_1, ("req-0", DRIVER_B, "pool-1", "device-1")),
                result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-0", DRIVER_A, "pool-1", "device-2"))], features=NO_FEATURES),
    "all-devices-slice-without-devices": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A)], features=NO_FEATURES),
    "all-devices-no-slices": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL))], [], features=NO_FEATURES),
    "all-devices-some-allocated-admin-access": Case(
        [_admin("claim-0", mode=ALL)],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            *_devices("device-1", "device-2"))],
        allocated={(DRIVER_A, "pool-1", "device-1")},
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1", True),
                       ("req-0", DRIVER_A, "pool-1", "device-2", True))], features=ADMIN),
    # The second request, for All, cannot be fulfilled: the first one claims a device.
    "all-devices-some-allocating-admin-access": Case(
        [claim("claim-0", request("req-0", CLASS_A, admin_access=True),
               request("req-1", CLASS_A, mode=ALL, admin_access=True))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            *_devices("device-1", "device-2"))], features=ADMIN),
    "count-devices-some-allocated-admin-access": Case(
        [_admin("claim-0", 2)],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            *_devices("device-1", "device-2"))],
        allocated={(DRIVER_A, "pool-1", "device-1")},
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1", True),
                       ("req-0", DRIVER_A, "pool-1", "device-2", True))], features=ADMIN),
    "separate-claims-share-device-admin-access": Case(
        [_admin("claim-0"), _admin("claim-1")],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            *_devices("device-1", "device-2"))],
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1", True)),
                result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1", True))], features=ADMIN),
    "admin-access-claims-device-allocating-for-non-admin-access": Case(
        [claim("claim-0", request("req-0", CLASS_A)), _admin("claim-1")],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            *_devices("device-1", "device-2"))],
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1")),
                result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1", True))], features=ADMIN),
    "with-constraint-not-matching-int-attribute": _constraint_not_matching(
        INT_ATTR, "numa", 1, 2),
    "with-constraint-not-matching-int-attribute-all-devices": Case(
        [claim("claim-0", request("req-0", CLASS_A, 0, mode=ALL),
               constraints=(DeviceConstraint(match_attribute=INT_ATTR),))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            device("device-1", None, {"numa": 1}),
                            device("device-2", None, {"numa": 2}))],
        error="claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because "
              "a claim constraint would not be satisfied", features=NO_FEATURES),
    "with-constraint-not-matching-string-attribute": _constraint_not_matching(
        STRING_ATTR, "stringAttribute", "stringAttributeValue", "stringAttributeValue2"),
    "with-constraint-not-matching-bool-attribute": _constraint_not_matching(
        BOOL_ATTR, "boolAttribute", True, False),
    "with-constraint-not-matching-version-attribute": _constraint_not_matching(
        VERSION_ATTR, "driverVersion", Version("1.0.0"), Version("2.0.0")),
    "unknown-allocation-mode": _unknown(
        claim("claim-0", request("req-0", CLASS_A, mode="future-mode")),
        "unsupported count mode future-mode"),
    "unknown-constraint": _unknown(
        claim("claim-0", request("req-0", CLASS_A), constraints=(DeviceConstraint(),)),
        "empty constraint (unsupported constraint type?)"),
    "many-devices-okay": Case([claim("claim-0", request("req-0", CLASS_A, MAX))], [],
                              features=NO_FEATURES),
    "too-many-devices-total": Case(
        [claim("claim-0", request("req-0", CLASS_A, MAX), request("req-1", CLASS_A))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, *_many(MAX + 1))],
        error="exceeds the claim limit", features=NO_FEATURES),
    "exact-count-total-overflows-claim-limit": Case(
        [claim("claim-0", request("req-0", CLASS_A, BIG), request("req-1", CLASS_A, BIG))], [],
        error="exceeds the claim limit", features=NO_FEATURES),
    "exact-count-total-would-wrap-to-zero": Case(
        [claim("claim-0", *[request(f"req-{i}", CLASS_A, BIG) for i in range(4)])], [],
        error="exceeds the claim limit", features=NO_FEATURES),
    # gomega.And(ContainSubstring("request req-1"), ContainSubstring("exceeds the claim limit"))
    "exact-count-sum-exceeds-claim-limit": Case(
        [claim("claim-0", request("req-0", CLASS_A, 20), request("req-1", CLASS_A, 20))], [],
        error="request req-1: adding 20 devices exceeds the claim limit", features=NO_FEATURES),
    "exact-count-sum-exactly-fills-claim-limit": Case(
        [claim("claim-0", request("req-0", CLASS_A, MAX // 2),
               request("req-1", CLASS_A, MAX // 2))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, *_many(MAX))],
        expect=[result(AT_1, *[("req-0" if i < MAX // 2 else "req-1", DRIVER_A, "pool-1",
                                f"device-{i}") for i in range(MAX)])], features=NO_FEATURES),
    "all-devices-invalid-CEL": Case([claim("claim-0", request("req-0", CLASS_A, 500))], [],
                                    error="exceeds the claim limit", features=NO_FEATURES),
    "tainted-two-devices": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        TWO_TAINTED, features=TAINTS),
    "tainted-one-device-two-taints": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        TAINTED_TWICE, features=TAINTS),
    # Only the second device's taints are tolerated.
    "tainted-two-devices-tolerated": Case(
        [claim("claim-0", request("req-0", CLASS_A, tolerations=(TOLERATE_NO_EXECUTE,)))],
        TWO_TAINTED,
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-2", False,
                              (TOLERATE_NO_EXECUTE,)))], features=TAINTS),
    "tainted-two-devices-prioritized-list-tolerated": Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_A),
            sub_request_tolerating(sub_request("subReq-1", CLASS_A), TOLERATE_NO_EXECUTE)))],
        TWO_TAINTED,
        expect=[result(AT_1, ("req-0/subReq-1", DRIVER_A, "pool-1", "device-2", False,
                              (TOLERATE_NO_EXECUTE,)))], features=TAINTS_LIST),
    "tainted-no-effect": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        _tainted((TAINT_NONE,)),
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1"))], features=TAINTS),
    "tainted-one-device-two-taints-both-tolerated": Case(
        [claim("claim-0", request("req-0", CLASS_A, tolerations=(TOLERATE_NO_SCHEDULE,
                                                                 TOLERATE_NO_EXECUTE)))],
        TAINTED_TWICE,
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1", False,
                              (TOLERATE_NO_SCHEDULE, TOLERATE_NO_EXECUTE)))], features=TAINTS),
    "tainted-disabled": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        TAINTED_TWICE,
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1"))], features=NO_FEATURES),
    "tainted-prioritized-list": Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_B), sub_request("subReq-1", CLASS_A)))],
        NO_SCHEDULE,
        features=TAINTS_LIST),
    "tainted-prioritized-list-disabled": Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_B), sub_request("subReq-1", CLASS_A)))],
        NO_SCHEDULE,
        expect=[result(AT_1, ("req-0/subReq-1", DRIVER_A, "pool-1", "device-1"))],
        features=upstream_features("PrioritizedList")),
    "tainted-admin-access": Case(
        [_admin("claim-0")],
        NO_SCHEDULE,
        allocated={(DRIVER_A, "pool-1", "device-1"), (DRIVER_A, "pool-1", "device-2")},
        features=TAINTS_ADMIN),
    "tainted-admin-access-disabled": Case(
        [_admin("claim-0")],
        NO_SCHEDULE,
        allocated={(DRIVER_A, "pool-1", "device-1"), (DRIVER_A, "pool-1", "device-2")},
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1", True))], features=ADMIN),
    "tainted-all-devices-single": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        NO_SCHEDULE, features=TAINTS),
    "tainted-all-devices-single-disabled": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        NO_SCHEDULE,
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1"))], features=NO_FEATURES),
    "max-number-devices": Case(
        [claim("claim-0", request("req-0", CLASS_A, MAX))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, *_many(MAX))],
        expect=[result(AT_1, *[("req-0", DRIVER_A, "pool-1", f"device-{i}")
                               for i in range(MAX)])], features=NO_FEATURES),
    "allocation-mode-all-with-multi-host-resource-pool": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        [_at("slice-1", NODE_1, "device-1"), _at("slice-2", NODE_2, "device-2")],
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1"))], features=NO_FEATURES),
    "multi-host-resource-pool-with-stale-slice-for-current-node": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [_at("slice-1", NODE_1, "device-1"), _at("slice-2", NODE_2, "device-2", generation=2)],
        features=NO_FEATURES),
    **{f"multi-host-resource-pool-{name}": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [_at("slice-1" if gen == 1 else "slice-2", where, f"device-{1 + i % 2}",
             generation=gen) for i, (where, gen) in enumerate(slices)],
        # upstream would like no allocation after a complete update, but the allocator ignores
        # the updated slices; an incomplete update from node 2 to node 1 is not allocated
        expect=None if name == "incomplete-update-from-node-2-to-node-1" else [
            result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-1"))], features=NO_FEATURES)
       for name, slices in UPDATES.items()},
    "different-resourceslices-in-pool-can-target-different-nodes": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [_at("slice-1", NODE_2, "device-1"), _at("slice-2", NODE_1, "device-2")],
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-1", "device-2"))], features=NO_FEATURES),
    "invalid-pool-is-ok-if-devices-can-be-allocated-from-other": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [_at("slice-1", NODE_1, "device-1"), _at("slice-2", NODE_1, "device-1"),
         slice_with_devices("slice-3", NODE_1, "pool-2", DRIVER_A, device("device-2"))],
        expect=[result(AT_1, ("req-0", DRIVER_A, "pool-2", "device-2"))], features=NO_FEATURES),
    "invalid-pool-is-error-if-no-other-device-can-be-allocated": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [_at("slice-1", NODE_1, "device-1"), _at("slice-2", NODE_1, "device-1"),
         slice_with_devices("slice-3", NODE_1, "pool-2", DRIVER_A, device("device-2"))],
        allocated={(DRIVER_A, "pool-2", "device-2")},
        error="invalid resource pools were encountered", features=NO_FEATURES),
    "no-allocation-from-incomplete-pools": Case(
        [claim("claim-0", request("req-0", CLASS_A))], [_at("slice-1", NODE_1, "device-1")],
        features=NO_FEATURES),
    "check-combinations-within-single-request-single-pool-single-slice": Case(
        [claim("claim-0", request("req-0", CLASS_A, 5))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            *_devices("device-1", "device-2", "device-3", "device-4"))],
        invocations=16, features=NO_FEATURES),
    "check-combinations-within-single-request-single-pool-multiple-slices": Case(
        [claim("claim-0", request("req-0", CLASS_A, 5))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            *_devices("device-1", "device-2"), slice_count=2),
         slice_with_devices("slice-2", NODE_1, "pool-1", DRIVER_A,
                            *_devices("device-3", "device-4"), slice_count=2)],
        invocations=16, features=NO_FEATURES),
    "check-combinations-within-single-request-multiple-pools-multiple-slices": Case(
        [claim("claim-0", request("req-0", CLASS_A, 5))],
        [_at("slice-1", NODE_1, "device-1"), _at("slice-2", NODE_1, "device-2"),
         slice_with_devices("slice-3", NODE_1, "pool-2", DRIVER_A,
                            *_devices("device-3", "device-4"))],
        invocations=16, features=NO_FEATURES),
    "check-combinations-within-single-request-many-pools": Case(
        [claim("claim-0", request("req-0", CLASS_A, 5))],
        [slice_with_devices(f"slice-{i}", NODE_1, f"pool-{i}", DRIVER_A, device(f"device-{i}"))
         for i in range(1, 5)],
        invocations=16, features=NO_FEATURES),
    # The allocator first picks {device-1, device-2} for req-1, which fails because req-2
    # needs device-1; it backtracks without trying {device-2, device-1}.
    "check-combinations-with-backtracking": Case(
        [BACKTRACK_CLAIM],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, _typed("device-1", "X"),
                            _typed("device-2", "Y"), _typed("device-3", "Y"))],
        expect=BACKTRACK_RESULT, invocations=12, features=NO_FEATURES),
    # The binding condition makes pool-2 be searched after pool-1.
    "check-combinations-with-backtracking-across-slices-and-pools": Case(
        [BACKTRACK_CLAIM],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, _typed("device-1", "X"),
                            slice_count=2),
         slice_with_devices("slice-2", NODE_1, "pool-1", DRIVER_A, _typed("device-2", "Y"),
                            slice_count=2),
         slice_with_devices("slice-3", NODE_1, "pool-2", DRIVER_A, device(
             "device-3", None, {"type": "Y"}, binding_conditions=("IsPrepare",)))],
        expect=[result(AT_1, ("req-1", DRIVER_A, "pool-1", "device-2"),
                       ("req-1", DRIVER_A, "pool-2", "device-3", False, (), ("IsPrepare",)),
                       ("req-2", DRIVER_A, "pool-1", "device-1"))],
        invocations=12, features=upstream_features("DeviceBindingAndStatus")),
}

#: the ``classes`` of each case: class-a and class-b, only class-a (the default), or none
CASE_CLASSES: dict[str, dict[str, DeviceClass]] = {
    "empty": {}, "no-classes": {},
    **{n: CLASSES for n in CASES if n.startswith((
        "all-devices-plus", "all-devices-many-plus", "with-constraint-not-matching",
        "tainted-prioritized"))}}


@pytest.mark.parametrize("name", sorted(CASES))
def test_allocator_testing_go_case(name: str) -> None:
    check_case(CASES[name], CASE_CLASSES.get(name, ONLY_A))
