"""DeviceTaintRules (reference_impl/dra/taintrules.py, loader/resource.py): the cases of
``TestListPatchedResourceSlices`` in
k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker_test.go (v0.37.2) restated on
``apply_patches``; the loader's checks; and the golden ``dra/device-taints`` scenario with its
taints moved from the slice into a DeviceTaintRule, which must keep the intolerant pod pending
on v1.37.2 (DRADeviceTaintRules on) and not on v1.36.3 (off)."""

from __future__ import annotations

import contextlib
import copy
from pathlib import Path
from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.engines.golden import read_scenario_file
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available
from reference_impl.dra.taintrules import apply_patches, list_patched_slices
from reference_impl.model.dra import (
    DEVICE_TAINT_NO_EXECUTE,
    Device,
    DeviceTaint,
    DeviceTaintRule,
    DeviceTaintSelector,
    ResourceSlice,
)
from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_documents

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "dra" / "device-taints.yaml"

# tracker_test.go's fixtures
DRIVER1, DRIVER2 = "driver1.example.com", "driver2.example.com"
POOL1, POOL2 = "pool-1", "pool-2"
TAINT1 = DeviceTaint("example.com/taint", "tainted", DEVICE_TAINT_NO_EXECUTE)
TAINT2 = DeviceTaint("example.com/taint2", "tainted2", DEVICE_TAINT_NO_EXECUTE)


def _slice(name: str, driver: str, pool: str, *devices: Device) -> ResourceSlice:
    return ResourceSlice(name, driver, pool, 0, 1, devices=devices)


SLICE1 = _slice("s1", DRIVER1, POOL1, Device("device-1"))
SLICE1_TAINTED = _slice("s1", DRIVER1, POOL1, Device("device-1", taints=(TAINT1,)))
SLICE2 = _slice("s2", DRIVER2, POOL2, Device("device-2"))


def _rule(sel: DeviceTaintSelector | None) -> DeviceTaintRule:
    return DeviceTaintRule("rule", sel, TAINT1)


@pytest.mark.parametrize("rule,expected", [
    # patch-all-slices
    (_rule(DeviceTaintSelector()), [SLICE1_TAINTED, _slice("s2", DRIVER2, POOL2, Device(
        "device-2", taints=(TAINT1,)))]),
    # add-taint-for-driver
    (_rule(DeviceTaintSelector(driver=DRIVER1)), [SLICE1_TAINTED, SLICE2]),
    # add-taint-for-pool
    (_rule(DeviceTaintSelector(pool=POOL1)), [SLICE1_TAINTED, SLICE2]),
    # add-taint-for-device
    (_rule(DeviceTaintSelector(device="device-1")), [SLICE1_TAINTED, SLICE2]),
    # filter-all-criteria (each helper there replaces the selector: the driver is left)
    (_rule(DeviceTaintSelector(driver=DRIVER1)), [SLICE1_TAINTED, SLICE2]),
    # nil-selector-matches-none
    (_rule(None), [SLICE1, SLICE2]),
], ids=["patch-all-slices", "add-taint-for-driver", "add-taint-for-pool",
        "add-taint-for-device", "filter-all-criteria", "nil-selector-matches-none"])
def test_tracker_cases(rule: DeviceTaintRule, expected: list[ResourceSlice]) -> None:
    assert list_patched_slices([SLICE1, SLICE2], [rule], True) == expected


def test_merge_taints_appends_after_the_devices_own() -> None:
    """merge-taints: the device's own taint first, the rule's after it."""
    already = _slice("s1", DRIVER1, POOL1, Device("device-1", taints=(TAINT2,)))
    got = apply_patches(already, [_rule(DeviceTaintSelector())])
    assert got.devices[0].taints == (TAINT2, TAINT1)


def test_one_patched_device_among_many() -> None:
    """update-patched-slice: of three devices only the named one is tainted; no dedup."""
    three = _slice("s1", DRIVER1, POOL1, Device("device-0"), Device("device-1"),
                   Device("device-2"))
    rule = _rule(DeviceTaintSelector(device="device-1"))
    got = apply_patches(three, [rule, rule])
    assert [d.taints for d in got.devices] == [(), (TAINT1, TAINT1), ()]


def test_gate_off_lists_the_slices_as_they_are() -> None:
    assert list_patched_slices([SLICE1], [_rule(DeviceTaintSelector())], False) == [SLICE1]


# ----- loader -----

def _dtr(spec: Any, name: str = "maintenance") -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
            "metadata": {"name": name}, "spec": spec}


def test_loader_reads_a_rule() -> None:
    dra = load_documents([_dtr({
        "deviceSelector": {"driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"},
        "taint": {"key": "k", "value": "v", "effect": "NoExecute",
                  "timeAdded": "2026-01-01T00:00:00Z"}})]).dra
    assert dra is not None and dra.taint_rules == [DeviceTaintRule(
        "maintenance", DeviceTaintSelector("gpu.example.com", "n1", "gpu-0"),
        DeviceTaint("k", "v", DEVICE_TAINT_NO_EXECUTE))]


@pytest.mark.parametrize("spec,path", [
    ({"deviceSelector": {}}, "spec.taint"),
    ({"taint": {"key": "k"}}, "spec.taint.effect"),
    ({"taint": {"key": "k", "effect": "PreferNoSchedule"}}, "spec.taint.effect"),
    ({"taint": {"effect": "NoSchedule"}}, "spec.taint.key"),
    ({"deviceSelector": {"deviceClassName": "gpu"}, "taint": {"key": "k", "effect": "None"}},
     "spec.deviceSelector.deviceClassName"),
    ({"deviceSelector": {"driver": 3}, "taint": {"key": "k", "effect": "None"}},
     "spec.deviceSelector.driver"),
])
def test_loader_errors(spec: Any, path: str) -> None:
    with pytest.raises(InputError, match=path.replace(".", r"\.")):
        load_documents([_dtr(spec)])


# ----- a whole scenario -----

def rule_scenario(release: str) -> ScenarioInput:
    """dra/device-taints with the slice's taints moved into one DeviceTaintRule per device
    (selected by driver, pool and device)."""
    scenario, _, _ = read_scenario_file(GOLDEN)
    docs: list[dict[str, Any]] = []
    for d in copy.deepcopy(scenario.documents):
        if d["kind"] == "ResourceSlice":
            for dev in d["spec"]["devices"]:
                taint = dev.pop("taints")[0]
                docs.append(_dtr({"deviceSelector": {
                    "driver": d["spec"]["driver"], "pool": d["spec"]["pool"]["name"],
                    "device": dev["name"]}, "taint": taint}, name=f"taint-{dev['name']}"))
        docs.append(d)
    return ScenarioInput(docs, scenario.config, 0, "reference", release=release)


def test_rules_keep_the_intolerant_pod_pending_with_the_gate() -> None:
    res = ReferenceSubject().run(rule_scenario("v1.37.2")).result
    assert res["bindings"] == {"default/tolerates": "n1"}
    assert res["pending"] == ["default/intolerant"]


def test_rules_are_not_applied_without_the_gate() -> None:
    res = ReferenceSubject().run(rule_scenario("v1.36.3")).result
    assert res["bindings"] == {"default/intolerant": "n1", "default/tolerates": "n1"}


def test_upstream_applies_the_rules() -> None:
    """The upstream subject loads DeviceTaintRules (upstream/release_since_1_37.go): the
    scheduler's slice tracker taints the devices, the intolerant pod stays pending."""
    if not binary_available():
        pytest.skip("upstream subject not built: run upstream/build.sh")
    scenario = rule_scenario("v1.37.2")
    ref = ReferenceSubject().run(scenario).result
    with contextlib.closing(UpstreamSubject()) as subject:
        up = subject.run(scenario).result
    assert up["bindings"] == ref["bindings"] == {"default/tolerates": "n1"}
    assert up["pending"] == ref["pending"] == ["default/intolerant"]
