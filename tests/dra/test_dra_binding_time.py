"""Binding conditions over virtual time and across releases.

The wait of PreBind and the timeout checks run on the simulation's virtual clock
(``BindingClock``, reference_impl/plugins/dynamicresources/bindingconditions.py): the
allocation timestamps are ``VIRTUAL_EPOCH`` plus virtual time plus the waits, the same on every
run. The scenario is the one the upstream subject (v1.37.2, ``bindingTimeout: 1s``) was seen
to give the same attempts for: a GPU with a binding condition nobody sets, so every attempt
ends in the PreBind timeout, and the next one's Filter finds the claim timed out and PostFilter
deallocates it (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go of
k8s.io/kubernetes v1.37.2: PreBind 1714-1779, isClaimTimeout, PostFilter).

The pool order of the allocator variants (switch ``dra-binding-pools-last``,
reference_impl/dra/variants.py): pools with binding conditions last in "experimental" (v1.34.4
by default) and "incubating" from v0.36.3, by ID in v1.35.4's default "incubating".
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available
from reference_impl.config import load_config
from reference_impl.dra.allocator import Allocator
from reference_impl.dra.variants import binding_pools_last
from reference_impl.model.loader import load_documents
from reference_impl.plugins.dynamicresources.bindingconditions import (
    PAST_DEADLINE_SECONDS,
    VIRTUAL_EPOCH,
)
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases import load
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import run_simulation
from reference_impl.testing.dra import (
    claim,
    device,
    device_class,
    node,
    request,
    slice_with_devices,
)
from reference_impl.testing.wrappers import make_timeline

GPU = "gpu.example.com"
TIMEOUT_MSG = ('running PreBind plugin "DynamicResources": device binding timeout: context '
               'deadline exceeded')
DEALLOCATED = ("0/1 nodes are available: 1 resourceclaim not available on the node. "
               "deallocation of ResourceClaim completed, preemption: 0/1 nodes are available: "
               "1 Preemption is not helpful for scheduling.")


def _documents(binding: bool = True) -> list[dict[str, Any]]:
    gpu: dict[str, Any] = {"name": "gpu-0"}
    if binding:
        gpu |= {"bindingConditions": ["attached"], "bindingFailureConditions": ["failed"]}
    return [
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": "node-0", "labels": {"kubernetes.io/hostname": "node-0"}},
         "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": GPU},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{GPU}"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
         "metadata": {"name": "node-0-gpu"},
         "spec": {"driver": GPU, "pool": {"name": "node-0", "generation": 1,
                                          "resourceSliceCount": 1},
                  "nodeName": "node-0", "devices": [gpu]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
         "metadata": {"name": "claim-0", "namespace": "default"},
         "spec": {"devices": {"requests": [{"name": "req-0",
                                            "exactly": {"deviceClassName": GPU}}]}}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p-0", "namespace": "default"},
         "spec": {"containers": [{"name": "c0", "image": "redis:7"}],
                  "resourceClaims": [{"name": "dev-0", "resourceClaimName": "claim-0"}]}},
    ]


#: ``bindingTimeout: 1s``, the least validation allows
CONFIG: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [
        {"name": "DynamicResources", "args": {"bindingTimeout": "1s"}}]}]}


def _simulate(docs: list[dict[str, Any]], until: str = "30s") -> tuple[Any, Scheduler]:
    loaded = load_documents(docs)
    config = load_config(CONFIG, in_tree_registry())
    s = Scheduler(loaded.cluster, config, seed=0)
    return run_simulation(s, make_timeline().until(until).obj(loaded.cluster)), s


def test_a_binding_condition_nobody_sets_times_out_on_virtual_time() -> None:
    """Attempts at 0, 2, 4 ... 30 s of virtual time, as the upstream subject gives them: an
    Error at 0 s (the wait of 1 s ends at its deadline), then at each retry PostFilter's
    deallocation and at once (the claim's update event) a new allocation and timeout."""
    res, _ = _simulate(_documents())
    got = [(i.time, a.outcome, a.message) for a, i in zip(res.attempts, res.attempt_info,
                                                           strict=True)]
    assert got[0] == (0.0, "Error", TIMEOUT_MSG)
    assert got[1:3] == [(2.0, "Unschedulable", DEALLOCATED), (2.0, "Error", TIMEOUT_MSG)]
    assert len(got) == 31 and got[-1] == (30.0, "Error", TIMEOUT_MSG)
    assert not res.bindings


def test_the_allocation_timestamp_is_virtual_time_plus_the_waits() -> None:
    """bindClaim stamps the allocation with the plugin's clock: the last allocation (at virtual
    30 s) is stamped epoch + 30 s + the 15 waits before it (each ends just past its 1 s
    deadline)."""
    _, s = _simulate(_documents())
    (c,) = s.cluster.dra.claims.values()
    assert c.allocation is not None
    assert c.allocation.allocation_timestamp == pytest.approx(
        VIRTUAL_EPOCH + 30.0 + 15 * (1.0 + PAST_DEADLINE_SECONDS), abs=1e-7)
    assert c.reserved_for == ()


def test_same_inputs_same_outputs() -> None:
    """No wall clock: two runs give the same attempts, times and claim state."""
    def dump() -> str:
        res, s = _simulate(_documents(), until="12s")
        return json.dumps([[dataclasses.asdict(a) for a in res.attempts],
                           [dataclasses.asdict(i) for i in res.attempt_info],
                           repr(sorted(s.cluster.dra.claims.items()))], sort_keys=True,
                          default=repr)
    assert dump() == dump()


def test_without_binding_conditions_the_pod_binds_at_once() -> None:
    res, _ = _simulate(_documents(binding=False))
    assert [a.outcome for a in res.attempts] == ["Bound"]


def _two_pods() -> list[dict[str, Any]]:
    """``_documents()`` with a second pod, ``p-1``, naming the same claim."""
    docs = _documents()
    second = json.loads(json.dumps(docs[-1]))
    second["metadata"]["name"] = "p-1"
    return [*docs, second]


@pytest.mark.skipif(not binary_available(), reason="upstream subject not built: run "
                    "upstream/build.sh (needs Go and the module proxy)")
@pytest.mark.parametrize(("pods", "until", "attempts"), [(1, "6s", 7), (2, "4s", 9)])
def test_the_upstream_subject_gives_the_same_attempts(pods: int, until: str,
                                                      attempts: int) -> None:
    """The upstream subject (real PreBind wait: one second of wall-clock time per timeout)
    against the reference on the same scenarios: attempt by attempt."""
    timeline = {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"until": until}}
    docs = _documents() if pods == 1 else _two_pods()
    scenario = ScenarioInput([*docs, timeline], CONFIG, 0, "binding-conditions")
    ref = ReferenceSubject().run(scenario).result

    def seen(r: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [(a["pod"], a["time"], a["outcome"], a["message"], a["reasons"])
                for a in r["attempts"]]

    # Upstream's PreBind waits in wall-clock time: on a loaded machine (the whole suite under
    # -n 2) its run has once ended after a strict prefix of the attempts. One more run then;
    # any other difference, or a second short run, fails.
    for _ in range(2):
        subject = UpstreamSubject()
        try:
            up = subject.run(scenario).result
        finally:
            subject.close()
        short = len(seen(up)) < len(seen(ref)) and seen(up) == seen(ref)[:len(seen(up))]
        if not short:
            break
    assert seen(up) == seen(ref)
    assert len(seen(ref)) == attempts and ref["stoppedBy"] == up["stoppedBy"] == "until"
    for key in ("bindings", "pending", "resourceClaims"):
        assert up.get(key) == ref.get(key), key


def test_a_claim_shared_by_two_pods_times_out_for_the_second_at_once() -> None:
    """Two pods share the claim: the first's wait ends past its deadline, so the second finds
    the claim timed out at once (PostFilter deallocates it), allocates it again and times out
    in turn; as on the upstream subject, whose wall clock has moved on."""
    res, _ = _simulate(_two_pods(), until="4s")
    got = [(i.time, a.pod, a.outcome) for a, i in zip(res.attempts, res.attempt_info,
                                                      strict=True)]
    assert got == [
        (0.0, "default/p-0", "Error"), (0.0, "default/p-1", "Unschedulable"),
        (0.0, "default/p-1", "Error"), (2.0, "default/p-0", "Unschedulable"),
        (2.0, "default/p-1", "Error"), (2.0, "default/p-0", "Unschedulable"),
        (2.0, "default/p-0", "Error"), (4.0, "default/p-0", "Unschedulable"),
        (4.0, "default/p-0", "Error")]


# --- the pool order of the allocator variants -----------------------------------------------

@pytest.mark.parametrize(("release", "gates", "last"), [
    ("v1.34.4", {}, True),  # DRAResourceClaimDeviceStatus on: "experimental"
    ("v1.34.4", {"DRAResourceClaimDeviceStatus": False}, False),
    ("v1.35.4", {}, False),  # DRADeviceBindingConditions off: "incubating"
    ("v1.35.4", {"DRADeviceBindingConditions": True}, True),
    ("v1.35.4", {"DRAConsumableCapacity": True}, True),
    ("v1.36.3", {}, True),
    ("v1.36.3", {"DRADeviceBindingConditions": False, "DRAConsumableCapacity": False}, False),
    ("v1.37.2", {}, True),
])
def test_which_variant_tries_binding_condition_pools_last(release: str, gates: dict[str, bool],
                                                          last: bool) -> None:
    data = load(release).with_gates(gates)
    assert binding_pools_last(data.behaviour("dra-binding-pools-last"),
                              data.feature_enabled) is last


def test_pool_order_with_a_mixed_pool() -> None:
    """Pool a (a device with binding conditions and a plain one) and pool b (a plain one), the
    gates off: the plain device of a in ID order, b's when pools with binding conditions go
    last (GatherPools, pools_incubating.go v0.37.2 vs v0.35.4)."""
    mixed = slice_with_devices("s-a", "node-1", "pool-a", "driver-a", dataclasses.replace(
        device("bc"), binding_conditions=("ready",)), device("plain-a"))
    other = slice_with_devices("s-b", "node-1", "pool-b", "driver-a", device("plain-b"))

    def pick(last: bool) -> str:
        a = Allocator(set(), {"class-a": device_class("class-a", "driver-a")}, [mixed, other],
                      device_binding_and_status=False, binding_pools_last=last)
        got = a.allocate(node("node-1", "region-1"), [claim("c", request("r", "class-a"))])
        assert got is not None
        return got[0].results[0].device
    assert pick(False) == "plain-a"
    assert pick(True) == "plain-b"
