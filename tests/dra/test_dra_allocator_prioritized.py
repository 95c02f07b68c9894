"""``firstAvailable`` (DRAPrioritizedList): the cases of upstream's allocator test table
(k8s.io/dynamic-resource-allocation v0.37.2,
structured/internal/allocatortesting/allocator_testing.go, ``TestAllocator``) about
subrequests with allocation mode All, selectors, constraints naming a request or a
subrequest, the claim's result limit and the number of ``allocateOne`` calls, each under its
upstream name and with exactly the features it sets (``PrioritizedList``)."""

from __future__ import annotations

import pytest

from reference_impl.model.dra import (
    ALLOCATION_MODE_ALL,
    Device,
    DeviceClass,
    DeviceConstraint,
    DeviceSelector,
    ResourceSlice,
    Version,
)
from reference_impl.testing.dra import (
    claim,
    device,
    local_node_selector,
    node,
    request,
    request_with_prioritized_list,
    slice_with_devices,
    slice_with_multiple_devices,
    sub_request,
)
from tests.dra.allocator_table import (
    CLASS_A,
    CLASS_B,
    CLASSES,
    DRIVER_A,
    DRIVER_B,
    NODE_1,
    NODE_2,
    REGION_1,
    VERSION_ATTR,
    Case,
    check_case,
    memory_at_least,
    one,
    result,
    upstream_features,
)

ALL = ALLOCATION_MODE_ALL
MAX = 32  # resourceapi.AllocationResultsMaxSize
PRIORITIZED = upstream_features("PrioritizedList")
SELECTOR = local_node_selector(NODE_1)


def generation(value: str) -> str:
    return f'device.attributes["{DRIVER_A}"].generation == "{value}"'


def typed(value: str) -> str:
    return f'device.attributes["{DRIVER_A}"].type == "{value}"'


def all_or_b() -> Case:
    """The three ``all-devices-*-prioritized-list`` claims: subReq-0 asks for all devices of
    class-a, subReq-1 for one of class-b."""
    return Case([claim("claim-0", request_with_prioritized_list(
        "req-0", sub_request("subReq-0", CLASS_A, mode=ALL), sub_request("subReq-1", CLASS_B)))],
        [], features=PRIORITIZED,
        expect=[result(SELECTOR, ("req-0/subReq-1", DRIVER_B, "pool-2", "device-1"))])


def memory_version(name: str, memory: str, version: str) -> Device:
    return device(name, {"memory": memory}, {"driverVersion": Version(version)})


def all_generations(*slices: ResourceSlice) -> Case:
    """The ``prioritized-list-allocation-mode-all-with-selectors*`` claim: all devices of
    generation v6, else all of v5."""
    return Case([claim("claim-0", request_with_prioritized_list(
        "req-0", sub_request("subReq-0", CLASS_A, 0, generation("v6"), mode=ALL),
        sub_request("subReq-1", CLASS_A, 0, generation("v5"), mode=ALL)))],
        list(slices), features=PRIORITIZED)


def with_constraint(requests: tuple[str, ...], *slices: ResourceSlice) -> Case:
    """The ``prioritized-list-subrequests-with-constraints-*`` claim."""
    return Case([claim("claim-0", request("req-0", CLASS_A, 1, memory_at_least("8Gi")),
                       request_with_prioritized_list(
                           "req-1", sub_request("subReq-0", CLASS_A, 1, memory_at_least("2Gi")),
                           sub_request("subReq-1", CLASS_A, 1, memory_at_least("1Gi"))),
                       constraints=(DeviceConstraint(requests, match_attribute=VERSION_ATTR),))],
                list(slices), features=PRIORITIZED)


def _cases() -> dict[str, tuple[Case, dict[str, DeviceClass] | None]]:
    cases: dict[str, tuple[Case, dict[str, DeviceClass] | None]] = {}
    c = all_or_b()
    c.slices = [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A),
                one("slice-2", NODE_1, "pool-2", DRIVER_B)]
    cases["all-devices-slice-without-devices-prioritized-list"] = (c, None)
    c = all_or_b()
    c.slices = [one("slice-2", NODE_1, "pool-2", DRIVER_B)]
    cases["all-devices-no-slices-prioritized-list"] = (c, None)
    c = all_or_b()
    c.slices = [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, device("device-1"),
                                   device("device-2")),
                one("slice-2", NODE_1, "pool-2", DRIVER_B)]
    c.allocated = {(DRIVER_A, "pool-1", "device-1")}
    cases["all-devices-some-allocated-prioritized-list"] = (c, None)

    cases["prioritized-list-subrequests-with-expressions"] = (Case(
        [claim("claim-0", request("req-0", CLASS_A, 1, memory_at_least("1Gi")),
               request_with_prioritized_list(
                   "req-1", sub_request("subReq-0", CLASS_A, 1, memory_at_least("4Gi")),
                   sub_request("subReq-1", CLASS_A, 2, memory_at_least("2Gi"))))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            device("device-1", {"memory": "2Gi"}),
                            device("device-2", {"memory": "2Gi"}),
                            device("device-3", {"memory": "1Gi"}))],
        features=PRIORITIZED,
        expect=[result(SELECTOR, ("req-0", DRIVER_A, "pool-1", "device-3"),
                       ("req-1/subReq-1", DRIVER_A, "pool-1", "device-1"),
                       ("req-1/subReq-1", DRIVER_A, "pool-1", "device-2"))]), None)

    c = with_constraint(("req-0", "req-1"),
                        slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                                           memory_version("device-1", "8Gi", "1.0.0")),
                        slice_with_devices("slice-2", NODE_1, "pool-2", DRIVER_A,
                                           memory_version("device-2", "2Gi", "2.0.0"),
                                           memory_version("device-3", "1Gi", "1.0.0")))
    c.expect = [result(SELECTOR, ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-1/subReq-1", DRIVER_A, "pool-2", "device-3"))]
    cases["prioritized-list-subrequests-with-constraints-ref-parent-request"] = (c, None)
    c = with_constraint(("req-0", "req-1/subReq-0"),
                        slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                                           memory_version("device-1", "8Gi", "1.0.0")),
                        slice_with_devices("slice-2", NODE_1, "pool-2", DRIVER_A,
                                           memory_version("device-2", "2Gi", "2.0.0")))
    c.expect = [result(SELECTOR, ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-1/subReq-1", DRIVER_A, "pool-2", "device-2"))]
    cases["prioritized-list-subrequests-with-constraints-ref-sub-request"] = (c, None)

    two = slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, device("device-1"),
                             device("device-2"))
    cases["prioritized-list-allocation-mode-all-multiple-requests"] = (Case(
        [claim("claim-0", request("req-0", CLASS_A), request_with_prioritized_list(
            "req-1", sub_request("subReq-0", CLASS_A, 0, mode=ALL),
            sub_request("subReq-1", CLASS_A)))],
        [two], features=PRIORITIZED,
        expect=[result(SELECTOR, ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-1/subReq-1", DRIVER_A, "pool-1", "device-2"))]), None)
    cases["prioritized-list-multi-request"] = (Case(
        [claim("claim-0", request("req-1", CLASS_A, 1, memory_at_least("8Gi")),
               request_with_prioritized_list(
                   "req-0", sub_request("subReq-0", CLASS_A, 1, memory_at_least("8Gi")),
                   sub_request("subReq-1", CLASS_A, 1, memory_at_least("4Gi"))))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            device("device-1", {"memory": "8Gi"})),
         slice_with_devices("slice-2", NODE_1, "pool-2", DRIVER_A,
                            device("device-2", {"memory": "4Gi"}))],
        features=PRIORITIZED,
        expect=[result(SELECTOR, ("req-1", DRIVER_A, "pool-1", "device-1"),
                       ("req-0/subReq-1", DRIVER_A, "pool-2", "device-2"))]), None)
    cases["prioritized-list-allocation-mode-all"] = (Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_A, 0, mode=ALL),
            sub_request("subReq-1", CLASS_A)))],
        [two], allocated={(DRIVER_A, "pool-1", "device-2")}, features=PRIORITIZED,
        expect=[result(SELECTOR, ("req-0/subReq-1", DRIVER_A, "pool-1", "device-1"))]), None)

    c = all_generations(slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, device(
        "device-1", None, {"generation": "v5"})))
    c.expect = [result(SELECTOR, ("req-0/subReq-1", DRIVER_A, "pool-1", "device-1"))]
    cases["prioritized-list-allocation-mode-all-with-selectors"] = (c, None)
    c = all_generations(
        slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                           device("device-1", None, {"generation": "v5"})),
        slice_with_devices("slice-2", NODE_1, "pool-2", DRIVER_A,
                           device("device-1", None, {"generation": "v5"})))
    c.expect = [result(SELECTOR, ("req-0/subReq-1", DRIVER_A, "pool-1", "device-1"),
                       ("req-0/subReq-1", DRIVER_A, "pool-2", "device-1"))]
    cases["prioritized-list-allocation-mode-all-with-selectors-multiple-pools"] = (c, None)
    c = all_generations(
        slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                           device("device-1", None, {"generation": "v5"})),
        slice_with_devices("slice-2", NODE_2, "pool-2", DRIVER_A,
                           device("device-1", None, {"generation": "v5"}),
                           device("device-2", None, {"generation": "v6"})))
    c.node = node(NODE_1, REGION_1)
    c.expect = [result(SELECTOR, ("req-0/subReq-1", DRIVER_A, "pool-1", "device-1"))]
    cases["prioritized-list-allocation-mode-all-with-selectors-multiple-pools-across-nodes"] = (
        c, None)
    c = all_generations(slice_with_devices(
        "slice-1", NODE_1, "pool-1", DRIVER_A,
        device("device-1", None, {"generation": "v6", "selected": False}),
        device("device-2", None, {"generation": "v5", "selected": False}),
        device("device-3", None, {"generation": "v5", "selected": True})))
    c.expect = [result(SELECTOR, ("req-0/subReq-1", DRIVER_A, "pool-1", "device-3"))]
    # only the devices the class selects count
    cases["prioritized-list-allocation-mode-all-with-selectors-deviceclass-subset"] = (c, {
        CLASS_A: DeviceClass(CLASS_A, (DeviceSelector(
            f'device.driver == "{DRIVER_A}" && device.attributes["{DRIVER_A}"].selected'),))})

    cases["prioritized-list-max-allocation-limit-request"] = (Case(
        [claim("claim-0", *(request_with_prioritized_list(
            r, sub_request("subReq-0", CLASS_A, MAX), sub_request("subReq-1", CLASS_A, MAX // 2))
            for r in ("req-0", "req-1")))],
        [slice_with_multiple_devices("slice-1", NODE_1, "pool-1", DRIVER_A, MAX * 2)],
        features=PRIORITIZED, invocations=75,
        expect=[result(SELECTOR, *(("req-0/subReq-1", DRIVER_A, "pool-1", f"device-{i}")
                                   for i in range(MAX // 2)),
                       *(("req-1/subReq-1", DRIVER_A, "pool-1", f"device-{i}")
                         for i in range(MAX // 2, MAX)))]), None)
    cases["prioritized-list-max-allocation-allocation-mode-all"] = (Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_A, 0, mode=ALL),
            sub_request("subReq-1", CLASS_A, 2)), request("req-1", CLASS_B, 2))],
        [slice_with_multiple_devices("slice-1", NODE_1, "pool-1", DRIVER_A, MAX - 1),
         slice_with_multiple_devices("slice-2", NODE_1, "pool-2", DRIVER_B, 2)],
        features=PRIORITIZED, invocations=42,
        expect=[result(SELECTOR, ("req-0/subReq-1", DRIVER_A, "pool-1", "device-0"),
                       ("req-0/subReq-1", DRIVER_A, "pool-1", "device-1"),
                       ("req-1", DRIVER_B, "pool-2", "device-0"),
                       ("req-1", DRIVER_B, "pool-2", "device-1"))]), None)
    # expectNumAllocateOneInvocations 26 (the stable variant's 32 is not the reference's)
    cases["check-combinations-with-prioritized-list"] = (Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-1", sub_request("subReq-0", CLASS_A, 3, typed("Y")),
            sub_request("subReq-1", CLASS_A, 2)), request_with_prioritized_list(
            "req-2", sub_request("subReq-0", CLASS_A, 2),
            sub_request("subReq-1", CLASS_A, 1, typed("X"))))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            device("device-1", None, {"type": "X"}),
                            device("device-2", None, {"type": "Y"}),
                            device("device-3", None, {"type": "Y"}))],
        features=PRIORITIZED, invocations=26,
        expect=[result(SELECTOR, ("req-1/subReq-1", DRIVER_A, "pool-1", "device-2"),
                       ("req-1/subReq-1", DRIVER_A, "pool-1", "device-3"),
                       ("req-2/subReq-1", DRIVER_A, "pool-1", "device-1"))]), None)
    return cases


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_allocator_testing_go_prioritized_case(name: str) -> None:
    """allocator_testing.go, the case ``name``."""
    case, classes = CASES[name]
    check_case(case, CLASSES if classes is None else classes)
