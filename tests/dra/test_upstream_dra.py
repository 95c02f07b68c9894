"""The upstream subject with DRA objects: the real DynamicResources plugin allocates devices
from ResourceSlices for pods' ResourceClaims, and the SimulationResult reports the allocations
(``resourceClaims``, docs/dra.md#results).

The expected devices follow the structured allocator's order (k8s.io/dynamic-resource-allocation
v0.37.2, structured/internal/incubating/allocator_incubating.go): the devices of a pool in slice
order, the first free one that matches. Skipped when the upstream binary is not built."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conformance.core.documents import schema
from conformance.core.dropped import dropped_counts
from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available
from dra.gpu_scenarios import (
    ALLOCATED_CLAIMS,
    FROM_TEMPLATE_CLAIMS,
    UNSATISFIABLE_MESSAGE,
    allocated,
    from_template,
    template_only,
    unsatisfiable,
)
from reference_impl.model.loader import load_documents
from reference_impl.model.loader.resourceclaims import add_template_claims

pytestmark = pytest.mark.skipif(
    not binary_available(),
    reason="upstream subject not built: run upstream/build.sh (needs Go and the module proxy)")


@pytest.fixture(scope="module")
def upstream() -> Iterator[UpstreamSubject]:
    subject = UpstreamSubject()
    yield subject
    subject.close()


def run(upstream: UpstreamSubject, docs: list[dict[str, Any]]) -> dict[str, Any]:
    result = upstream.run(ScenarioInput(docs, name="dra"))
    jsonschema.validate(result.result, schema("SimulationResult"))
    assert not any("resource.k8s.io" in w for w in result.warnings), result.warnings
    return result.result


def test_claims_are_allocated_and_reported(upstream: UpstreamSubject) -> None:
    res = run(upstream, allocated())
    assert res["bindings"] == {f"default/{p}": "node-1"
                               for p in ("p-one", "p-share-a", "p-share-b", "p-h100")}
    assert res["resourceClaims"] == ALLOCATED_CLAIMS


def test_unsatisfiable_claim_leaves_the_pod_unschedulable(upstream: UpstreamSubject) -> None:
    res = run(upstream, unsatisfiable())
    assert res["bindings"] == {}
    assert res["pending"] == ["default/p-b200", "default/p-nine"]
    assert "resourceClaims" not in res
    last = {a["pod"]: a for a in res["attempts"]}
    for p in ("default/p-nine", "default/p-b200"):
        assert last[p]["outcome"] == "Unschedulable"
        assert last[p]["reasons"] == {"node-1": ["cannot allocate all claims"]}
        assert last[p]["message"] == UNSATISFIABLE_MESSAGE


def test_claim_written_for_a_template(upstream: UpstreamSubject) -> None:
    res = run(upstream, from_template())
    assert res["bindings"] == {"default/p-tmpl": "node-1"}
    assert res["resourceClaims"] == FROM_TEMPLATE_CLAIMS


def test_template_claims_of_the_pre_pass_are_the_same_for_both(upstream: UpstreamSubject) -> None:
    """The pre-pass makes the template claims documents: the upstream subject and the
    reference, run on the same pre-passed documents, bind both pods with the same claim
    names (those the loader gives when it creates the claims itself) and the same devices."""
    raw = template_only()
    docs = [d for _, _, d in add_template_claims([("t", i, d) for i, d in enumerate(raw)])]
    assert [d["kind"] for d in docs].count("ResourceClaim") == 2
    up = run(upstream, docs)
    ref = ReferenceSubject().run(ScenarioInput(docs, name="dra")).result
    assert up["bindings"] == ref["bindings"] == {"default/p-tmpl-a": "node-1",
                                                 "default/p-tmpl-b": "node-1"}
    assert up["resourceClaims"] == ref["resourceClaims"]
    loaded = load_documents(raw).cluster  # the loader's own pass, on the raw documents
    names = {p.name: dict(p.resource_claim_statuses) for p in loaded.pods}
    got = {k.split("/")[1]: {c["name"]: c["claim"] for c in v}
           for k, v in up["resourceClaims"].items()}
    assert got == names == {"p-tmpl-a": {"gpu": names["p-tmpl-a"]["gpu"]},
                            "p-tmpl-b": {"accel": names["p-tmpl-b"]["accel"]}}
    devices = sorted(c["allocation"]["devices"][0]["device"]
                     for v in up["resourceClaims"].values() for c in v)
    assert devices == ["gpu-0", "gpu-1"]


def test_other_versions_of_the_group_are_still_ignored(upstream: UpstreamSubject) -> None:
    """Only resource.k8s.io/v1 is read (as by the Python loader); other versions are dropped
    with the loader's warning, which the ``dropped`` report counts."""
    beta = {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceClass",
            "metadata": {"name": "old"}, "spec": {}}
    result = upstream.run(ScenarioInput([*allocated(), beta], name="dra-beta"))
    assert dropped_counts(result.warnings) == {"DeviceClass": 1}
    assert result.result["resourceClaims"] == ALLOCATED_CLAIMS


def test_the_dra_example_driver_demo_matches_upstream(upstream: UpstreamSubject) -> None:
    """The demo specs of the DRA example driver (tests/data/public/dra/, restated), with the
    template claims of the pre-pass: the upstream subject binds and allocates exactly as the
    reference does (the devices tests/dra/test_dra_demo.py reasons out)."""
    demo = Path(__file__).resolve().parent.parent / "data" / "public" / "dra"
    raw = [(f.name, i, d) for f in sorted(demo.glob("*.yaml"))
           for i, d in enumerate(yaml.safe_load_all(f.read_text(encoding="utf-8"))) if d]
    docs = [d for _, _, d in add_template_claims(raw)]
    up = run(upstream, docs)
    ref = ReferenceSubject().run(ScenarioInput(docs, name="dra")).result
    assert up["bindings"] == ref["bindings"]
    assert len(up["bindings"]) == 6
    assert up["resourceClaims"] == ref["resourceClaims"]
    got = {pod: sorted(d["device"] for c in v for d in c["allocation"]["devices"])
           for pod, v in up["resourceClaims"].items()}
    assert got == {"gpu-selector/pod0": ["gpu-6", "gpu-7"], "gpu-test1/pod0": ["gpu-0"],
                   "gpu-test1/pod1": ["gpu-1"], "gpu-test2/pod0": ["gpu-2"],
                   "gpu-test3/pod0": ["gpu-3"], "gpu-test3/pod1": ["gpu-3"]}


def test_device_configuration_is_reported_alike(upstream: UpstreamSubject) -> None:
    """An opaque config on the class and one on a claim naming its only request: both sides
    report them in ``allocation.config`` (upstream/dra.go ``allocationOf``, claims.py
    ``allocation_doc``); v1.37.2 clears the requests of a config that covers every request
    (allocator_incubating.go, "Populate configs")."""
    docs = allocated()
    opaque = {"driver": "gpu.example.com", "parameters": {"b": {"c": [1, "x"]}, "a": True}}
    for d in docs:
        if d["kind"] == "DeviceClass":
            d["spec"]["config"] = [{"opaque": opaque}]
        if d["kind"] == "ResourceClaim" and d["metadata"]["name"] == "one-gpu":
            d["spec"]["devices"]["config"] = [{"requests": ["gpu"], "opaque": opaque}]
    res = run(upstream, docs)
    ref = ReferenceSubject().run(ScenarioInput(docs, name="dra")).result
    assert res["resourceClaims"] == ref["resourceClaims"]
    (entry,) = res["resourceClaims"]["default/p-one"]
    assert entry["allocation"]["config"] == [{"source": "FromClass", **opaque},
                                             {"source": "FromClaim", **opaque}]
    (entry,) = res["resourceClaims"]["default/p-h100"]
    assert entry["allocation"]["config"] == [{"source": "FromClass", **opaque}]
