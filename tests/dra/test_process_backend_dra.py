"""The process backend with DRA objects: etcd, kube-apiserver and kube-scheduler of the pinned
release (binaries from ``backends/build.sh``) get the scenario's DeviceClasses, ResourceSlices
and ResourceClaims before the pods (a claim a pod owns right after its pod), the allocations
are read back from the claims, and everything is deleted after the scenario (claims keep
DynamicResources' finalizer, which the cleanup removes). Same expectations as the upstream
subject's (tests/dra/gpu_scenarios.py). Skipped when the binaries are not built."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from conformance.backends import plan as backend_plan
from conformance.backends.dra import DRA_KINDS
from conformance.backends.process import ProcessSubject, binaries_missing
from conformance.core.documents import schema
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioTimedOut, ScenarioUnsupported
from conformance.engines.golden import read_scenario_file
from conformance.subjects.reference import ReferenceSubject
from dra.gpu_scenarios import (
    ALLOCATED_CLAIMS,
    FROM_TEMPLATE_CLAIMS,
    GPU,
    UNSATISFIABLE_MESSAGE,
    allocated,
    device,
    from_template,
    gpu_cluster,
    pod,
    unsatisfiable,
)
from reference_impl.testing.wrappers import (
    make_container,
    make_device_class,
    make_gpu_slice,
    make_node,
    make_pod,
    make_resource_claim,
)

EXT = "example.com/gpu"


def ext_cluster() -> list[dict[str, object]]:
    """node-1 with a slice of 4 GPUs whose class serves the extended resource ``EXT``."""
    return [make_node("node-1").allocatable(cpu="8", memory="32Gi", pods="110").manifest(),
            make_device_class("gpu").driver(GPU).extended_resource_name(EXT).manifest(),
            make_gpu_slice("node-1", GPU, ["a100"] * 4).manifest()]

MISSING = binaries_missing()
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason="process backend binaries not built: run backends/build.sh (needs Go "
                          "and the Go module proxy)")


@pytest.fixture(scope="module")
def subject() -> Iterator[ProcessSubject]:
    s = ProcessSubject(timeout=90)
    yield s
    s.close()


def _left(subject: ProcessSubject) -> dict[str, list[str]]:
    api = subject.api()
    out = {}
    for kind in DRA_KINDS:
        items, _ = api.list(kind)
        if items:
            out[kind] = [i["metadata"]["name"] for i in items]
    return out


def test_claims_are_allocated_read_back_and_cleaned_up(subject: ProcessSubject) -> None:
    for _ in range(2):  # the same names again: the first run's objects are gone
        res = subject.run(ScenarioInput(allocated(), name="dra-allocated")).result
        jsonschema.validate(res, schema("SimulationResult"))
        assert res["bindings"] == {f"default/{p}": "node-1"
                                   for p in ("p-one", "p-share-a", "p-share-b", "p-h100")}
        assert res["resourceClaims"] == ALLOCATED_CLAIMS
        assert _left(subject) == {}


def test_unsatisfiable_claims(subject: ProcessSubject) -> None:
    res = subject.run(ScenarioInput(unsatisfiable(), name="dra-unsatisfiable")).result
    assert res["bindings"] == {}
    assert res["pending"] == ["default/p-b200", "default/p-nine"]
    assert "resourceClaims" not in res
    last = {a["pod"]: a for a in res["attempts"]}
    for p in ("default/p-nine", "default/p-b200"):
        assert last[p]["outcome"] == "Unschedulable"
        assert last[p]["message"] == UNSATISFIABLE_MESSAGE
    assert _left(subject) == {}


def test_claim_owned_by_its_pod(subject: ProcessSubject) -> None:
    res = subject.run(ScenarioInput(from_template(), name="dra-template")).result
    assert res["bindings"] == {"default/p-tmpl": "node-1"}
    assert res["resourceClaims"] == FROM_TEMPLATE_CLAIMS
    assert _left(subject) == {}


def test_device_taint_rule_keeps_its_device_out(subject: ProcessSubject) -> None:
    """A DeviceTaintRule with a NoSchedule taint on gpu-0 (DRADeviceTaintRules, on in the
    pinned release): the API server stores it, kube-scheduler's slice tracker applies it, and
    the claim gets gpu-1, as in the reference (tests/dra/test_dra_taint_rules.py); the rule is
    deleted with the run."""
    rule = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
            "metadata": {"name": "gpu-0-maintenance"},
            "spec": {"deviceSelector": {"driver": GPU, "pool": "node-1", "device": "gpu-0"},
                     "taint": {"key": "example.com/maintenance", "effect": "NoSchedule"}}}
    docs = [*gpu_cluster(), rule,
            make_resource_claim("one-gpu").request_with_name("gpu", GPU).manifest(),
            pod("p-one", claim="one-gpu")]
    res = subject.run(ScenarioInput(docs, name="dra-taint-rule")).result
    assert res["bindings"] == {"default/p-one": "node-1"}
    assert res["resourceClaims"] == {"default/p-one": [
        {"name": "gpu", "claim": "one-gpu", "allocation": {"devices": [device("gpu", "gpu-1")]}}]}
    assert _left(subject) == {}


def test_extended_resource_claims_are_read_back_and_cleaned_up(
        subject: ProcessSubject) -> None:
    """Extended resources backed by DRA (DRAExtendedResource): PreBind creates the pods' claims
    with ``generateName`` and patches their ``status.extendedResourceClaimStatus``. Both are
    read back like the reference reports them (the API server's random suffix reported as the
    reference names the pod's first such claim: ``extended_claim_name``), and the claims,
    which carry no label of the run, are deleted with their pods."""
    def gpus(name: str, containers: int) -> dict[str, object]:
        """Containers each with one ``EXT`` (limits too: the API server refuses an extended
        resource requested without its limit)."""
        p = make_pod(name).namespace("default")
        for i in range(containers):
            p = p.container(make_container(f"con{i}").image("registry.k8s.io/pause")
                            .resources({EXT: 1}))
        return p.manifest()

    docs = [*ext_cluster(), gpus("p-two", 2), gpus("p-one", 1)]
    res = subject.run(ScenarioInput(docs, name="dra-extended")).result
    ref = ReferenceSubject().run(ScenarioInput(docs, name="dra-extended")).result
    assert res["bindings"] == ref["bindings"] == {"default/p-two": "node-1",
                                                  "default/p-one": "node-1"}
    assert res["resourceClaims"] == ref["resourceClaims"]
    assert res["extendedResourceClaimStatus"] == ref["extendedResourceClaimStatus"]
    assert set(res["extendedResourceClaimStatus"]) == {"default/p-two", "default/p-one"}
    assert _left(subject) == {}
    claims, _ = subject.api().list("ResourceClaim")
    assert claims == []


DEVIATIONS = Path(__file__).resolve().parents[2] / "oracles" / "deviations"


def test_claim_listed_twice_is_refused_and_a_scenario_never_settling_is_given_up(
        subject: ProcessSubject, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pod that names one ResourceClaim in two entries: on the real API server every PreBind
    of it fails with ``status.reservedFor[1]: Duplicate value``
    (docs/upstream-deviations.md#upstream-dra-claim-listed-twice), so the planner refuses the
    scenario up front. Without that refusal the driver gives it up at its bound
    (``--subject-timeout``) as a ScenarioTimedOut naming the pod retried and its last error,
    cleans up, and the subject runs the next scenario."""
    scenario = read_scenario_file(DEVIATIONS / "dra-claim-listed-twice.yaml")[0]
    with pytest.raises(ScenarioUnsupported, match=r"default/twice.*Duplicate value"):
        subject.run(scenario)
    monkeypatch.setattr(backend_plan, "refuse_claim_listed_twice", lambda *a: None)
    monkeypatch.setattr(subject, "timeout", 12.0)
    with pytest.raises(ScenarioTimedOut,
                       match=r"did not settle within 12 s.*most attempted: default/twice "
                             r"\(\d+ attempts, the last Error: [^\n]*reservedFor\[1\]: "
                             r"Duplicate value"):
        subject.run(scenario)
    assert _left(subject) == {}
    monkeypatch.undo()
    res = subject.run(ScenarioInput(allocated(), name="dra-allocated")).result
    assert res["resourceClaims"] == ALLOCATED_CLAIMS
