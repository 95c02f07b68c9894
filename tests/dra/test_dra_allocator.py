"""The structured allocator (reference_impl/dra/allocator.py, pools.py): the cases of
upstream's allocator test table (k8s.io/dynamic-resource-allocation v0.37.2,
structured/internal/allocatortesting/allocator_testing.go, ``TestAllocator``), each under its
upstream name, with the default features of v1.37.2 (the "incubating" variant). Results are
compared as upstream does: per claim, the devices as a set (``ConsistOf``) and the node
selector."""

from __future__ import annotations

import pytest

from reference_impl.dra.allocator import Allocator, AllocatorError
from reference_impl.model.dra import (
    ALLOCATION_MODE_ALL,
    DeviceClass,
    DeviceConstraint,
    DeviceSelector,
    DeviceTaint,
    DeviceToleration,
    Version,
)
from reference_impl.model.objects import (
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from reference_impl.testing.dra import (
    NODE_SELECTION_ALL,
    PLANET_KEY,
    PLANET_VALUE_EARTH,
    REGION_KEY,
    claim,
    device,
    local_node_selector,
    node,
    node_label_selector,
    request,
    request_with_prioritized_list,
    slice_with_devices,
    sub_request,
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
    REGION_1,
    REGION_2,
    STRING_ATTR,
    VERSION_ATTR,
    Case,
    check_case,
    memory_at_least,
    one,
    result,
    run_case,
)

ALL = ALLOCATION_MODE_ALL
CASES: dict[str, Case] = {
    "simple": Case([claim("claim-0", request("req-0", CLASS_A))],
                   [one("slice-1", NODE_1, "pool-1", DRIVER_A)],
                   expect=[result(local_node_selector(NODE_1),
                                  ("req-0", DRIVER_A, "pool-1", "device-1"))]),
    "other-node": Case([claim("claim-0", request("req-0", CLASS_A))],
                       [one("slice-1", NODE_1, "pool-1", DRIVER_B),
                        one("slice-2", NODE_2, "pool-2", DRIVER_A)],
                       node=node(NODE_2, REGION_2),
                       expect=[result(local_node_selector(NODE_2),
                                      ("req-0", DRIVER_A, "pool-2", "device-1"))]),
    "small-and-large": Case(
        [claim("claim-0", request("req-0", CLASS_A, 1, memory_at_least("1Gi")),
               request("req-1", CLASS_A, 1, memory_at_least("2Gi")))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            device("device-1", {"memory": "1Gi"}),
                            device("device-2", {"memory": "2Gi"}))],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-1", DRIVER_A, "pool-1", "device-2"))]),
    "small-and-large-backtrack-requests": Case(
        [claim("claim-0", request("req-0", CLASS_A, 1, memory_at_least("1Gi")),
               request("req-1", CLASS_A, 1, memory_at_least("2Gi")))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            device("device-2", {"memory": "2Gi"}),
                            device("device-1", {"memory": "1Gi"}))],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-1", DRIVER_A, "pool-1", "device-2"))]),
    "small-and-large-backtrack-claims": Case(
        [claim("claim-0", request("req-0", CLASS_A, 1, memory_at_least("1Gi"))),
         claim("claim-1", request("req-1", CLASS_A, 1, memory_at_least("2Gi")))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            device("device-2", {"memory": "2Gi"}),
                            device("device-1", {"memory": "1Gi"}))],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1")),
                result(local_node_selector(NODE_1), ("req-1", DRIVER_A, "pool-1", "device-2"))]),
    "devices-split-across-different-slices": Case(
        [claim("claim-0", request("req-0", CLASS_A, 2))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A), one("slice-2", NODE_1, "pool-2", DRIVER_A)],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-0", DRIVER_A, "pool-2", "device-1"))]),
    "obsolete-slice": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [slice_with_devices("slice-1-obsolete", NODE_1, "pool-1", DRIVER_A, device("device-1"),
                            slice_count=2),
         slice_with_devices("slice-1-obsolete", NODE_1, "pool-1", DRIVER_A, device("device-2"),
                            slice_count=2, generation=2)],
        expect=None),
    "duplicate-slice": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A, slice_count=2),
         one("slice-1-2", NODE_1, "pool-1", DRIVER_A, slice_count=2)],
        error="invalid resource pools were encountered"),
    "no-slices": Case([claim("claim-0", request("req-0", CLASS_A))], [], expect=None),
    "not-enough-suitable-devices": Case(
        [claim("claim-0", request("req-0", CLASS_A)), claim("claim-0", request("req-1", CLASS_A))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)], expect=None),
    "unknown-class": Case([claim("claim-0", request("req-0", "unknown-class"))],
                          [one("slice-1", NODE_1, "pool-1", DRIVER_A)],
                          error="could not retrieve device class unknown-class"),
    "no-claims-to-allocate": Case([], [one("slice-1", NODE_1, "pool-1", DRIVER_A)], expect=[]),
    "all-devices-single": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1"))]),
    "all-devices-with-consumed-counters": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            device("device-1", consumes={"counter-set-1": {"memory": "4Gi"}}),
                            slice_count=2),
         slice_with_devices("slice-2", NODE_1, "pool-1", DRIVER_A, slice_count=2,
                            counter_sets={"counter-set-1": {"memory": "8Gi"}})],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1"))]),
    "all-devices-of-the-incomplete-pool": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A, slice_count=2)],
        error="claim claim-0, request req-0: asks for all devices, but resource pool "
              "driver-a/pool-1 is currently being updated"),
    "all-devices-plus-another": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL)),
         claim("claim-1", request("req-0", CLASS_B))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A), one("slice-1", NODE_1, "pool-1", DRIVER_B)],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1")),
                result(local_node_selector(NODE_1), ("req-0", DRIVER_B, "pool-1", "device-1"))]),
    "all-devices-no-solution": Case(
        [claim("claim-1", request("req-0", CLASS_A)),
         claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)], expect=None),
    "all-devices-no-solution-reversed": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL)),
         claim("claim-1", request("req-0", CLASS_A))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)], expect=None),
    "all-devices-some-allocated": Case(
        [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, device("device-1"),
                            device("device-2"))],
        allocated={(DRIVER_A, "pool-1", "device-1")}, expect=None),
    "network-attached-device": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [one("slice-1", node_label_selector(REGION_KEY, REGION_1), "pool-1", DRIVER_A)],
        expect=[result(node_label_selector(REGION_KEY, REGION_1),
                       ("req-0", DRIVER_A, "pool-1", "device-1"))]),
    "unsuccessful-allocation-network-attached-device": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [one("slice-1", node_label_selector(REGION_KEY, REGION_1), "pool-1", DRIVER_A)],
        node=node(NODE_2, REGION_2), expect=None),
    "many-network-attached-devices": Case(
        [claim("claim-0", request("req-0", CLASS_A, 4))],
        [one("slice-1", node_label_selector(REGION_KEY, REGION_1), "pool-1", DRIVER_A),
         one("slice-1", NODE_SELECTION_ALL, "pool-2", DRIVER_A),
         one("slice-1", node_label_selector(PLANET_KEY, PLANET_VALUE_EARTH), "pool-3",
             DRIVER_A),
         one("slice-1", local_node_selector(NODE_1), "pool-4", DRIVER_A)],
        expect=[result(NodeSelector((NodeSelectorTerm(
            match_expressions=(NodeSelectorRequirement(REGION_KEY, "In", (REGION_1,)),
                               NodeSelectorRequirement(PLANET_KEY, "In",
                                                       (PLANET_VALUE_EARTH,))),
            match_fields=(NodeSelectorRequirement("metadata.name", "In", (NODE_1,)),)),)),
            *[("req-0", DRIVER_A, f"pool-{i}", "device-1") for i in range(1, 5)])]),
    "local-and-network-attached-devices": Case(
        [claim("claim-0", request("req-0", CLASS_A, 2))],
        [one("slice-1", node_label_selector(REGION_KEY, REGION_1), "pool-1", DRIVER_A),
         one("slice-1", NODE_1, "pool-2", DRIVER_A)],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-0", DRIVER_A, "pool-2", "device-1"))]),
    "several-different-drivers": Case(
        [claim("claim-0", request("req-0", CLASS_A)), claim("claim-0", request("req-0", CLASS_B))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, device("device-1"),
                            device("device-2")),
         one("slice-1", NODE_1, "pool-1", DRIVER_B)],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1")),
                result(local_node_selector(NODE_1), ("req-0", DRIVER_B, "pool-1", "device-1"))]),
    "already-allocated-devices": Case(
        [claim("claim-0", request("req-0", CLASS_A))], [one("slice-1", NODE_1, "pool-1", DRIVER_A)],
        allocated={(DRIVER_A, "pool-1", "device-1"), (DRIVER_A, "pool-1", "device-2")},
        expect=None),
    "admin-access-disabled": Case(
        [claim("claim-0", request("req-0", CLASS_A, admin_access=True))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)], features={"admin_access": False},
        error="claim claim-0, request req-0: admin access is requested, but the feature is "
              "disabled"),
    "admin-access-enabled": Case(
        [claim("claim-0", request("req-0", CLASS_A, admin_access=True))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)],
        allocated={(DRIVER_A, "pool-1", "device-1"), (DRIVER_A, "pool-1", "device-2")},
        expect=[result(local_node_selector(NODE_1),
                       ("req-0", DRIVER_A, "pool-1", "device-1", True))]),
    "with-constraint": Case(
        [claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A),
               constraints=tuple(DeviceConstraint(match_attribute=a) for a in
                                 (INT_ATTR, VERSION_ATTR, STRING_ATTR, BOOL_ATTR)))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, *[
            device(f"device-{i}", None, {"driverVersion": Version("1.0.0"), "numa": 1,
                                         "stringAttribute": "stringAttributeValue",
                                         "boolAttribute": True}) for i in (1, 2)])],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-1", DRIVER_A, "pool-1", "device-2"))]),
    "with-constraint-non-existent-attribute": Case(
        [claim("claim-0", request("req-0", CLASS_A), constraints=(DeviceConstraint(
            match_attribute=f"{DRIVER_A}/NonExistentAttribute"),))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)], expect=None),
    "with-constraint-for-request": Case(
        [claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A),
               constraints=(DeviceConstraint(("req-0",), match_attribute=VERSION_ATTR),))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            device("device-1", None, {"driverVersion": Version("1.0.0")}),
                            device("device-2", None, {"driverVersion": Version("2.0.0")}))],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-1", DRIVER_A, "pool-1", "device-2"))]),
    "with-constraint-for-request-retry": Case(
        [claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A),
               constraints=(DeviceConstraint(("req-0",), match_attribute=VERSION_ATTR),
                            DeviceConstraint(match_attribute=STRING_ATTR)))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, *[
            device(f"device-{i}", None, {"driverVersion": Version(f"{i}.0.0"),
                                         "stringAttribute": s})
            for i, s in ((1, "a"), (2, "b"), (3, "b"))])],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-2"),
                       ("req-1", DRIVER_A, "pool-1", "device-3"))]),
    "invalid-CEL-one-device": Case(
        [claim("claim-0", request("req-0", CLASS_A, 1, "noSuchVar"))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)], error="undeclared reference"),
    "invalid-CEL-all-devices": Case(
        [claim("claim-0", request("req-0", CLASS_A, 1, "noSuchVar", mode=ALL))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)], error="undeclared reference"),
    "too-many-devices-single-request": Case(
        [claim("claim-0", request("req-0", CLASS_A, 500))], [], error="exceeds the claim limit"),
    "prioritized-list-first-unavailable": Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_B), sub_request("subReq-1", CLASS_A)))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)],
        expect=[result(local_node_selector(NODE_1),
                       ("req-0/subReq-1", DRIVER_A, "pool-1", "device-1"))]),
    "prioritized-list-non-available": Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_B, 2), sub_request("subReq-1", CLASS_A, 2)))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A), one("slice-2", NODE_1, "pool-2", DRIVER_B)],
        expect=None),
    "prioritized-list-subrequests-with-allocation-mode-all": Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_A, mode=ALL),
            sub_request("subReq-1", CLASS_A)))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, device("device-1"),
                            device("device-2"))],
        allocated={(DRIVER_A, "pool-1", "device-1")},
        expect=[result(local_node_selector(NODE_1),
                       ("req-0/subReq-1", DRIVER_A, "pool-1", "device-2"))]),
    "prioritized-list-too-many-in-first-subrequest": Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_B, 500), sub_request("subReq-1", CLASS_A)))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)],
        expect=[result(local_node_selector(NODE_1),
                       ("req-0/subReq-1", DRIVER_A, "pool-1", "device-1"))]),
    "prioritized-list-minimum-sum-exceeds-claim-limit": Case(
        [claim("claim-0", request("req-0", CLASS_A, 20), request_with_prioritized_list(
            "req-1", sub_request("subReq-0", CLASS_A, 20), sub_request("subReq-1", CLASS_A, 24)))],
        [], error="claim claim-0, request req-1: adding 20 devices exceeds the claim limit"),
    "prioritized-list-overflowing-first-subrequest-is-pruned": Case(
        [claim("claim-0", request("req-0", CLASS_A), request_with_prioritized_list(
            "req-1", sub_request("subReq-0", CLASS_A, (1 << 63) - 1),
            sub_request("subReq-1", CLASS_A)))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, device("device-1"),
                            device("device-2"))],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1"),
                       ("req-1/subReq-1", DRIVER_A, "pool-1", "device-2"))],
        invocations=8),
    "partitionable-devices-single-device": Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            device("device-1", consumes={"counter-set-1": {"memory": "4Gi"}}),
                            slice_count=2),
         slice_with_devices("slice-2", NODE_1, "pool-1", DRIVER_A, slice_count=2,
                            counter_sets={"counter-set-1": {"memory": "8Gi"}})],
        expect=[result(local_node_selector(NODE_1), ("req-0", DRIVER_A, "pool-1", "device-1"))]),
    "prioritized-list-disabled": Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_A)))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)], features={"prioritized_list": False},
        error="claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList "
              "feature is disabled"),
    "prioritized-list-with-backtracking": Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_A, 1, memory_at_least("8Gi")),
            sub_request("subReq-1", CLASS_A, 1, memory_at_least("4Gi"))),
            request("req-1", CLASS_A, 1, memory_at_least("8Gi")))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                            device("device-1", {"memory": "8Gi"})),
         slice_with_devices("slice-2", NODE_1, "pool-2", DRIVER_A,
                            device("device-2", {"memory": "4Gi"}))],
        expect=[result(local_node_selector(NODE_1),
                       ("req-0/subReq-1", DRIVER_A, "pool-2", "device-2"),
                       ("req-1", DRIVER_A, "pool-1", "device-1"))]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_allocator_testing_go_case(name: str) -> None:
    check_case(CASES[name])


def test_invalid_cel_one_device_class() -> None:
    """allocator_testing.go "invalid-CEL-one-device-class"."""
    case = Case([claim("claim-0", request("req-0", CLASS_A))],
                [one("slice-1", NODE_1, "pool-1", DRIVER_A)])
    bad = DeviceClass(CLASS_A, (DeviceSelector("noSuchVar"),))
    with pytest.raises(AllocatorError, match="class class-a: selector #0: CEL compile error: "
                                             "compilation failed: .*undeclared reference"):
        run_case(case, {CLASS_A: bad})


def test_device_taints_need_a_toleration() -> None:
    """A NoSchedule taint keeps a device out unless the request tolerates it
    (taintPreventsAllocation, resourceclaim.ToleratesTaint)."""
    taint = DeviceTaint("example.com/broken", "true", "NoSchedule")
    slices = [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A,
                                 device("device-1", taints=(taint,)), device("device-2"))]
    got = Allocator(set(), CLASSES, slices).allocate(
        node(NODE_1, REGION_1), [claim("claim-0", request("req-0", CLASS_A))])
    assert got is not None and got[0].results[0].device == "device-2"
    tolerant = request("req-0", CLASS_A, 2, tolerations=(
        DeviceToleration("example.com/broken", "Exists"),))
    got = Allocator(set(), CLASSES, slices).allocate(node(NODE_1, REGION_1),
                                                    [claim("claim-0", tolerant)])
    assert got is not None and {d.device for d in got[0].results} == {"device-1", "device-2"}


def test_shared_counters_limit_partitions() -> None:
    """Partitions of one GPU share its memory counter: two 40Gi partitions of an 80Gi GPU
    fit, a third does not (checkAvailableCounters)."""
    parts = [device(f"gpu-0-part-{i}", consumes={"gpu-0": {"memory": "40Gi"}})
             for i in range(3)]
    slices = [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_A, *parts, slice_count=2),
              slice_with_devices("slice-2", NODE_1, "pool-1", DRIVER_A, slice_count=2,
                                 counter_sets={"gpu-0": {"memory": "80Gi"}})]
    a = Allocator(set(), CLASSES, slices)
    two = a.allocate(node(NODE_1, REGION_1), [claim("claim-0", request("req-0", CLASS_A, 2))])
    assert two is not None and len(two[0].results) == 2
    three = a.allocate(node(NODE_1, REGION_1), [claim("claim-0", request("req-0", CLASS_A, 3))])
    assert three is None
    used = Allocator({(DRIVER_A, "pool-1", "gpu-0-part-0")}, CLASSES, slices)
    assert used.allocate(node(NODE_1, REGION_1),
                         [claim("claim-0", request("req-0", CLASS_A, 2))]) is None
