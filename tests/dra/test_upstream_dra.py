"""The upstream subject with DRA objects: the real DynamicResources plugin allocates devices
from ResourceSlices for pods' ResourceClaims, and the SimulationResult reports the allocations
(``resourceClaims``, docs/dra.md#results).

The expected devices follow the structured allocator's order (k8s.io/dynamic-resource-allocation
v0.37.2, structured/internal/incubating/allocator_incubating.go): the devices of a pool in slice
order, the first free one that matches. Skipped when the upstream binary is not built."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from conformance.core.documents import schema
from conformance.core.dropped import dropped_counts
from conformance.core.scenario import ScenarioInput
from conformance.subjects.upstream import UpstreamSubject, binary_available
from dra.gpu_scenarios import (
    ALLOCATED_CLAIMS,
    FROM_TEMPLATE_CLAIMS,
    UNSATISFIABLE_MESSAGE,
    allocated,
    from_template,
    unsatisfiable,
)

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


def test_other_versions_of_the_group_are_still_ignored(upstream: UpstreamSubject) -> None:
    """Only resource.k8s.io/v1 is read (as by the Python loader); other versions are dropped
    with the loader's warning, which the ``dropped`` report counts."""
    beta = {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceClass",
            "metadata": {"name": "old"}, "spec": {}}
    result = upstream.run(ScenarioInput([*allocated(), beta], name="dra-beta"))
    assert dropped_counts(result.warnings) == {"DeviceClass": 1}
    assert result.result["resourceClaims"] == ALLOCATED_CLAIMS
