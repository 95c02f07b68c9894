"""Device configuration in allocation results: the cases of upstream's allocator test table
(k8s.io/dynamic-resource-allocation v0.37.2,
structured/internal/allocatortesting/allocator_testing.go, ``TestAllocator``) whose results
carry ``Devices.Config`` (``allocationResultWithConfig(s)``), each under its upstream name and
with exactly the features it sets. The reference builds the configs in
reference_impl/dra/allocator.py (``_config``, after allocator_incubating.go's "Populate
configs"); they are compared in order, as upstream's ``Equal`` does."""

from __future__ import annotations

import json

import pytest

from conformance.backends.dra import allocation_of
from reference_impl.dra.allocator import Allocator
from reference_impl.model.dra import (
    ALLOCATION_CONFIG_SOURCE_CLAIM,
    ALLOCATION_CONFIG_SOURCE_CLASS,
    DeviceAllocationConfiguration,
    DeviceClaimConfiguration,
)
from reference_impl.plugins.dynamicresources.claims import allocation_doc
from reference_impl.releases import load, supported_releases
from reference_impl.testing.dra import (
    claim,
    class_with_config,
    device,
    device_class,
    device_configuration,
    local_node_selector,
    request,
    request_with_prioritized_list,
    slice_with_devices,
    slice_with_multiple_devices,
    sub_request,
    with_configs,
)
from tests.dra.allocator_table import (
    CLASS_A,
    CLASS_B,
    CLASSES,
    DRIVER_A,
    DRIVER_B,
    NODE_1,
    Case,
    allocate_case,
    check_case,
    one,
    result,
    upstream_features,
)

CLASS = ALLOCATION_CONFIG_SOURCE_CLASS
CLAIM = ALLOCATION_CONFIG_SOURCE_CLAIM
PRIORITIZED = upstream_features("PrioritizedList")
NONE = upstream_features()


def allocated(source: str, driver: str, attribute: str, *requests: str
              ) -> DeviceAllocationConfiguration:
    """A ``resourceapi.DeviceAllocationConfiguration`` with ``deviceConfiguration(driver,
    attribute)``; no ``requests`` is upstream's ``Requests: nil``."""
    return DeviceAllocationConfiguration(source, device_configuration(driver, attribute),
                                         requests)


def claim_config(driver: str, attribute: str, *requests: str) -> DeviceClaimConfiguration:
    """``deviceClaimConfig(requests, deviceConfiguration(driver, attribute))``."""
    return DeviceClaimConfiguration(device_configuration(driver, attribute), requests)


SELECTOR = local_node_selector(NODE_1)
#: (case, classes): the case's ``classes`` where they are not class-a and class-b plain
CASES: dict[str, tuple[Case, dict | None]] = {
    "with-class-device-config": (Case(
        [claim("claim-0", request("req-0", CLASS_A))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)], features=NONE,
        expect=[result(SELECTOR, ("req-0", DRIVER_A, "pool-1", "device-1"))],
        configs=[(allocated(CLASS, DRIVER_A, "classAttribute"),)]),
        {CLASS_A: class_with_config(CLASS_A, DRIVER_A, "classAttribute")}),
    "with-class-device-config-with-multiple-request-and-configs": (Case(
        [claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A),
               request("req-2", CLASS_B))],
        [slice_with_multiple_devices("slice-1", NODE_1, "pool-1", DRIVER_A, 2),
         one("slice-2", NODE_1, "pool-1", DRIVER_B)], features=NONE,
        expect=[result(SELECTOR, ("req-0", DRIVER_A, "pool-1", "device-0"),
                       ("req-1", DRIVER_A, "pool-1", "device-1"),
                       ("req-2", DRIVER_B, "pool-1", "device-1"))],
        configs=[(allocated(CLASS, DRIVER_A, "classAttribute-A", "req-0", "req-1"),
                  allocated(CLASS, DRIVER_B, "classAttribute-B", "req-2"))]),
        {CLASS_A: class_with_config(CLASS_A, DRIVER_A, "classAttribute-A"),
         CLASS_B: class_with_config(CLASS_B, DRIVER_B, "classAttribute-B")}),
    "with-claim-config-for-two-requests": (Case(
        [with_configs(claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A),
                            request("req-2", CLASS_A)),
                      claim_config(DRIVER_A, "deviceAttribute", "req-0", "req-1"))],
        [slice_with_multiple_devices("slice-1", NODE_1, "pool-1", DRIVER_A, 3)], features=NONE,
        expect=[result(SELECTOR, ("req-0", DRIVER_A, "pool-1", "device-0"),
                       ("req-1", DRIVER_A, "pool-1", "device-1"),
                       ("req-2", DRIVER_A, "pool-1", "device-2"))],
        configs=[(allocated(CLAIM, DRIVER_A, "deviceAttribute", "req-0", "req-1"),)]),
        {CLASS_A: device_class(CLASS_A, DRIVER_A)}),
    # claimWithDeviceConfig: a config without requests
    "claim-with-device-config": (Case(
        [with_configs(claim("claim-0", request("req-0", CLASS_A)),
                      claim_config(DRIVER_A, "deviceAttribute"))],
        [one("slice-1", NODE_1, "pool-1", DRIVER_A)], features=NONE,
        expect=[result(SELECTOR, ("req-0", DRIVER_A, "pool-1", "device-1"))],
        configs=[(allocated(CLAIM, DRIVER_A, "deviceAttribute"),)]),
        {CLASS_A: device_class(CLASS_A, DRIVER_A)}),
    "prioritized-list-device-config": (Case(
        [with_configs(claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_A), sub_request("subReq-1", CLASS_B, 2))),
            claim_config(DRIVER_A, "foo", "req-0/subReq-0"),
            claim_config(DRIVER_B, "bar", "req-0/subReq-1"))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_B, device("device-1"),
                            device("device-2"))], features=PRIORITIZED,
        expect=[result(SELECTOR, ("req-0/subReq-1", DRIVER_B, "pool-1", "device-1"),
                       ("req-0/subReq-1", DRIVER_B, "pool-1", "device-2"))],
        configs=[(allocated(CLAIM, DRIVER_B, "bar"),)]), None),
    "prioritized-list-class-config": (Case(
        [claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_A, 2), sub_request("subReq-1", CLASS_B, 2)))],
        [slice_with_devices("slice-1", NODE_1, "pool-1", DRIVER_B, device("device-1"),
                            device("device-2")),
         slice_with_devices("slice-2", NODE_1, "pool-2", DRIVER_A, device("device-3"))],
        features=PRIORITIZED,
        expect=[result(SELECTOR, ("req-0/subReq-1", DRIVER_B, "pool-1", "device-1"),
                       ("req-0/subReq-1", DRIVER_B, "pool-1", "device-2"))],
        configs=[(allocated(CLASS, DRIVER_B, "bar"),)]),
        {CLASS_A: class_with_config(CLASS_A, DRIVER_A, "foo"),
         CLASS_B: class_with_config(CLASS_B, DRIVER_B, "bar")}),
    "claim-config-scoped-to-subrequests-of-one-request": (Case(
        [with_configs(claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_A), sub_request("subReq-1", CLASS_B)),
            request("req-1", CLASS_A)),
            claim_config(DRIVER_A, "scoped", "req-0/subReq-0", "req-0/subReq-1"))],
        [slice_with_multiple_devices("slice-1", NODE_1, "pool-1", DRIVER_A, 2)],
        features=PRIORITIZED,
        expect=[result(SELECTOR, ("req-0/subReq-0", DRIVER_A, "pool-1", "device-0"),
                       ("req-1", DRIVER_A, "pool-1", "device-1"))],
        configs=[(allocated(CLAIM, DRIVER_A, "scoped", "req-0/subReq-0", "req-0/subReq-1"),)]),
        None),
    # covers req-0 (by its selected subrequest) and req-1: Requests collapse to nil
    "claim-config-covering-all-requests-is-cleared": (Case(
        [with_configs(claim("claim-0", request_with_prioritized_list(
            "req-0", sub_request("subReq-0", CLASS_A), sub_request("subReq-1", CLASS_B)),
            request("req-1", CLASS_A)),
            claim_config(DRIVER_A, "all", "req-0/subReq-0", "req-1"))],
        [slice_with_multiple_devices("slice-1", NODE_1, "pool-1", DRIVER_A, 2)],
        features=PRIORITIZED,
        expect=[result(SELECTOR, ("req-0/subReq-0", DRIVER_A, "pool-1", "device-0"),
                       ("req-1", DRIVER_A, "pool-1", "device-1"))],
        configs=[(allocated(CLAIM, DRIVER_A, "all"),)]), None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_allocator_testing_go_config_case(name: str) -> None:
    """allocator_testing.go, the case ``name``."""
    case, classes = CASES[name]
    check_case(case, CLASSES if classes is None else classes)


def test_reported_config_matches_the_api_shape() -> None:
    """The ``config`` of a ``resourceClaims`` entry (claims.py ``allocation_doc``) is what
    the API-reading side makes of ``status.allocation`` (conformance/backends/dra.py
    ``allocation_of``) and the upstream subject reports (upstream/dra.go ``allocationOf``):
    source, requests unless empty, the opaque driver and its parameters as an object."""
    case, classes = CASES["with-class-device-config-with-multiple-request-and-configs"]
    got = allocate_case(case, classes)
    assert got is not None
    doc = allocation_doc(got[0])
    assert doc["config"] == [
        {"source": CLASS, "requests": ["req-0", "req-1"], "driver": DRIVER_A,
         "parameters": {"classAttribute-A": "classAttribute-AValue"}},
        {"source": CLASS, "requests": ["req-2"], "driver": DRIVER_B,
         "parameters": {"classAttribute-B": "classAttribute-BValue"}}]
    api = {"status": {"allocation": {"devices": {
        "results": [{"request": r.request, "driver": r.driver, "pool": r.pool,
                     "device": r.device} for r in got[0].results],
        "config": [{"source": c.source, "requests": list(c.requests) or None,
                    "opaque": {"driver": c.opaque.driver,
                               "parameters": json.loads(c.opaque.parameters)}}
                   for c in got[0].config]}}}}
    assert allocation_of(api) == doc
    case, classes = CASES["claim-with-device-config"]
    got = allocate_case(case, classes)
    assert got is not None and allocation_doc(got[0])["config"] == [
        {"source": CLAIM, "driver": DRIVER_A,
         "parameters": {"deviceAttribute": "deviceAttributeValue"}}]


def test_before_v1_37_a_claim_config_is_added_per_matching_request() -> None:
    """Switch dra-config-result "per-matching-request" (allocator_incubating.go v0.36.3,
    "Populate configs"): the claim config loop ``continue``s over the requests, so a config
    is added once per request (or selected subrequest) it names, and its requests are never
    cleared; v1.34.4 to v1.36.3 run it."""
    for name, copies in (("with-claim-config-for-two-requests", 2),
                         ("claim-config-covering-all-requests-is-cleared", 2),
                         ("claim-config-scoped-to-subrequests-of-one-request", 1)):
        case, classes = CASES[name]
        alloc = Allocator(set(), CLASSES if classes is None else classes, case.slices,
                          **case.features, config_result="per-matching-request")
        got = alloc.allocate(case.node, case.claims)
        assert got is not None and case.configs is not None
        (config,) = case.claims[0].spec.config
        assert got[0].config == (DeviceAllocationConfiguration(
            CLAIM, config.opaque, config.requests),) * copies, name
    assert {r: load(r).behaviour("dra-config-result") for r in supported_releases()} == {
        "v1.34.4": "per-matching-request", "v1.35.4": "per-matching-request",
        "v1.36.3": "per-matching-request", "v1.37.2": "once-cleared"}
