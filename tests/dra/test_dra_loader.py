"""Reading resource.k8s.io/v1 objects and pods' resource claims (model/loader/resource.py,
loader/pod.py): the shapes of the DRA example driver's demo specifications, and
path-precise errors for what upstream's validation refuses."""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

import pytest
import yaml

from conformance.cli.inputs import read_inputs
from dra.gpu_scenarios import template_only
from reference_impl.model.dra import ALLOCATION_MODE_ALL, Version
from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_documents
from reference_impl.model.objects import PodResourceClaim

V1 = "resource.k8s.io/v1"


def gpu_slice(node: str = "node-1", n: int = 2) -> dict[str, Any]:
    return {
        "apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": f"{node}-gpu"},
        "spec": {
            "driver": "gpu.example.com", "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [{
                "name": f"gpu-{i}",
                "attributes": {"index": {"int": i}, "model": {"string": "LATEST-GPU-MODEL"},
                               "driverVersion": {"version": "1.0.0"},
                               "gpu.example.com/healthy": {"bool": True}},
                "capacity": {"memory": {"value": "80Gi"}},
            } for i in range(n)],
        },
    }


def claim(spec: dict[str, Any], name: str = "gpu") -> dict[str, Any]:
    return {"apiVersion": V1, "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "team"}, "spec": spec}


def one_gpu(**exactly: Any) -> dict[str, Any]:
    return {"devices": {"requests": [{"name": "gpu", "exactly": {
        "deviceClassName": "gpu.example.com", **exactly}}]}}


def load(*docs: dict[str, Any]) -> Any:
    return load_documents(list(docs), require_known_nodes=False)


def error(*docs: dict[str, Any]) -> str:
    with pytest.raises(InputError) as e:
        load(*docs)
    return str(e.value)


def test_slice_devices_attributes_and_capacity() -> None:
    r = load(gpu_slice(n=8))
    (s,) = r.dra.slices
    assert (s.driver, s.pool, s.generation, s.resource_slice_count, s.node_name) == (
        "gpu.example.com", "node-1", 1, 1, "node-1")
    assert [d.name for d in s.devices] == [f"gpu-{i}" for i in range(8)]
    d = dict(s.devices[3].attributes)
    assert d == {"index": 3, "model": "LATEST-GPU-MODEL", "driverVersion": Version("1.0.0"),
                 "gpu.example.com/healthy": True}
    assert dict(s.devices[0].capacity)["memory"].value == 80 * 2**30
    # the objects are used now: no "read but not used" warning, and they are cluster state
    assert not any("does not use them yet" in w for w in r.warnings)
    assert r.cluster.dra is r.dra


def test_device_class_claim_and_template() -> None:
    r = load(
        {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
         "spec": {"selectors": [{"cel": {"expression":
                                         "device.driver == 'gpu.example.com'"}}],
                  "extendedResourceName": "example.com/gpu"}},
        claim(one_gpu(allocationMode="All")),
        {"apiVersion": V1, "kind": "ResourceClaimTemplate",
         "metadata": {"name": "single-gpu", "namespace": "team"},
         "spec": {"spec": {"devices": {
             "requests": [{"name": "gpu", "firstAvailable": [
                 {"name": "big", "deviceClassName": "gpu.example.com", "count": 2},
                 {"name": "small", "deviceClassName": "gpu.example.com"}]}],
             "constraints": [{"requests": ["gpu"], "matchAttribute":
                              "gpu.example.com/model"}]}}}},
    )
    cls = r.dra.device_classes["gpu.example.com"]
    assert cls.selectors[0].cel == "device.driver == 'gpu.example.com'"
    assert cls.extended_resource_name == "example.com/gpu"
    c = r.dra.claims["team/gpu"]
    assert c.spec.requests[0].exactly is not None
    assert c.spec.requests[0].exactly.allocation_mode == ALLOCATION_MODE_ALL
    assert c.allocation is None and c.uid
    t = r.dra.claim_templates["team/single-gpu"]
    (req,) = t.spec.requests
    assert [(s.name, s.exactly.count) for s in req.first_available] == [("big", 2),
                                                                         ("small", 1)]
    assert t.spec.constraints[0].match_attribute == "gpu.example.com/model"


def test_allocated_claim_status() -> None:
    c = claim(one_gpu())
    c["status"] = {
        "allocation": {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com",
                                                "pool": "node-1", "device": "gpu-0"}]},
                       "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                           {"key": "metadata.name", "operator": "In",
                            "values": ["node-1"]}]}]}},
        "reservedFor": [{"resource": "pods", "name": "p", "uid": "u-1"}],
    }
    got = load(c).dra.claims["team/gpu"]
    assert got.allocation is not None
    assert [(x.pool, x.device) for x in got.allocation.results] == [("node-1", "gpu-0")]
    assert got.reserved_for[0].uid == "u-1"


def test_shared_counters_and_per_device_nodes() -> None:
    s = gpu_slice()
    spec = s["spec"]
    del spec["nodeName"]
    spec["perDeviceNodeSelection"] = True
    spec["pool"]["resourceSliceCount"] = 2
    counters = {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": "counters"},
                "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                         "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 2},
                         "sharedCounters": [{"name": "gpu-0-counters",
                                             "counters": {"memory": {"value": "80Gi"}}}]}}
    spec["devices"][0]["nodeName"] = "node-1"
    spec["devices"][0]["consumesCounters"] = [{"counterSet": "gpu-0-counters",
                                               "counters": {"memory": {"value": "40Gi"}}}]
    spec["devices"][1]["allNodes"] = True
    got, shared = load(s, counters).dra.slices
    assert got.per_device_node_selection is True
    assert shared.shared_counters[0].counters == (("memory", Fraction(80 * 2**30)),)
    assert got.devices[0].node_name == "node-1" and got.devices[1].all_nodes is True
    assert got.devices[0].consumes_counters[0].counter_set == "gpu-0-counters"


def test_pod_resource_claims_and_statuses() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "team"},
           "spec": {"containers": [{"name": "c", "image": "i",
                                    "resources": {"claims": [{"name": "gpu"}]}}],
                    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "single"},
                                       {"name": "shared", "resourceClaimName": "s"}]},
           "status": {"resourceClaimStatuses": [{"name": "gpu",
                                                 "resourceClaimName": "p-gpu-x7k2q"}]}}
    (p,) = load(pod).cluster.pods
    assert p.resource_claims == ("gpu", "shared")
    assert p.resource_claim_sources == (PodResourceClaim("gpu", None, "single"),
                                        PodResourceClaim("shared", "s", None))
    assert p.resource_claim_statuses == (("gpu", "p-gpu-x7k2q"),)


@pytest.mark.parametrize(("mutate", "field", "message"), [
    (lambda s: s["spec"].pop("nodeName"), "spec",
     "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is "
     "required, got none"),
    (lambda s: s["spec"].update(allNodes=True), "spec", "got `nodeName`, `allNodes`"),
    (lambda s: s["spec"].update(sharedCounters=[]), "spec",
     "only one of `sharedCounters` or `devices` is allowed"),
    (lambda s: s["spec"]["pool"].pop("resourceSliceCount"), "spec.pool.resourceSliceCount",
     "must be greater than 0"),
    (lambda s: s["spec"]["devices"][1]["attributes"].update(bad={"int": 1, "string": "x"}),
     "spec.devices[1].attributes[bad]", "exactly one of `int`, `bool`, `string`, `version`"),
    (lambda s: s["spec"]["devices"][0]["capacity"].update(memory={"value": "lots"}),
     "spec.devices[0].capacity[memory].value", "lots"),
    (lambda s: s["spec"]["devices"][1].update(name="gpu-0"), "spec.devices[1].name",
     "duplicate device name 'gpu-0'"),
    (lambda s: s["spec"]["devices"][0].update(nodeName="node-2"), "spec.devices[0].nodeName",
     "perDeviceNodeSelection"),
])
def test_slice_errors_name_the_field(mutate: Any, field: str, message: str) -> None:
    s = gpu_slice()
    mutate(s)
    text = error(s)
    assert f"ResourceSlice node-1-gpu: {field}: " in text and message in text, text


@pytest.mark.parametrize(("spec", "field", "message"), [
    (one_gpu(allocationMode="All", count=2), "spec.devices.requests[0].exactly.count",
     "must not be set when `allocationMode` is 'All'"),
    (one_gpu(count=0), "spec.devices.requests[0].exactly.count", "greater than zero"),
    (one_gpu(allocationMode="Some"), "spec.devices.requests[0].exactly.allocationMode",
     'expected one of "ExactCount", "All"'),
    (one_gpu(selectors=[{"cel": {}}]),
     "spec.devices.requests[0].exactly.selectors[0].cel.expression", "required"),
    ({"devices": {"requests": [{"name": "gpu"}]}}, "spec.devices.requests[0]",
     "exactly one of `exactly`, `firstAvailable` is required, got none"),
    ({"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "c"}}],
                  "constraints": [{"requests": ["cpu"], "matchAttribute": "a/b"}]}},
     "spec.devices.constraints[0].requests[0]", "'cpu' is not the name of a request"),
])
def test_claim_errors_name_the_field(spec: dict[str, Any], field: str, message: str) -> None:
    text = error(claim(spec))
    assert f"ResourceClaim team/gpu: {field}: " in text and message in text, text


def test_pod_claim_needs_one_source() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "image": "i"}],
                    "resourceClaims": [{"name": "gpu", "resourceClaimName": "a",
                                        "resourceClaimTemplateName": "b"}]}}
    text = error(pod)
    assert "spec.resourceClaims[0]: at most one of `resourceClaimName`" in text, text


def test_other_api_versions_are_still_ignored() -> None:
    r = load({"apiVersion": "resource.k8s.io/v1beta1", "kind": "DeviceClass",
              "metadata": {"name": "x"}})
    assert not r.dra
    assert any("ignored 1 object(s) of kind DeviceClass" in w for w in r.warnings)


def test_read_inputs_adds_template_claims_after_admission(tmp_path: Any) -> None:
    """``read_inputs`` runs the template-claims pre-pass after the admission: the pods are
    still admitted (a pod with a uid or a status would be taken as a dump by ``auto``), and
    the documents handed to the loader hold the ResourceClaims."""
    path = tmp_path / "in.yaml"
    lr = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr"},
          "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "100m"}}]}}
    path.write_text(yaml.safe_dump_all([*template_only(), lr]))
    loaded, _ = read_inputs([str(path)], argparse.Namespace(admission="auto"))
    assert loaded.admission is not None and loaded.admission.admitted == 2
    claims = [d for _, _, d in loaded.admission.documents if d.get("kind") == "ResourceClaim"]
    assert sorted(c["metadata"]["ownerReferences"][0]["name"] for c in claims) == [
        "p-tmpl-a", "p-tmpl-b"]
    assert {p.key: dict(p.resource_claim_statuses) for p in loaded.cluster.pods} == {
        f"default/{c['metadata']['ownerReferences'][0]['name']}":
            {c["metadata"]["annotations"]["resource.kubernetes.io/pod-claim-name"]:
             c["metadata"]["name"]} for c in claims}
    assert all(p.containers[0].requests for p in loaded.cluster.pods)


def _with_config(spec: dict[str, Any], *configs: dict[str, Any]) -> dict[str, Any]:
    spec["devices"]["config"] = list(configs)
    return spec


OPAQUE = {"opaque": {"driver": "gpu.example.com", "parameters": {"z": 1, "a": [True]}}}


def test_device_configuration() -> None:
    """A class's ``spec.config``, a claim's ``spec.devices.config`` (requests by name or
    ``request/subrequest``) and an allocation's ``devices.config``; parameters kept as the
    compact JSON text of the given object, keys in the given order."""
    c = claim(_with_config({"devices": {"requests": [{"name": "gpu", "firstAvailable": [
        {"name": "big", "deviceClassName": "gpu.example.com"}]}]}},
        OPAQUE, {"requests": ["gpu/big"], **OPAQUE}))
    c["status"] = {"allocation": {"devices": {
        "results": [{"request": "gpu/big", "driver": "gpu.example.com", "pool": "node-1",
                     "device": "gpu-0"}],
        "config": [{"source": "FromClass", "requests": ["gpu/big"], **OPAQUE}]}}}
    r = load({"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
              "spec": {"config": [OPAQUE]}}, c)
    (opaque,) = r.dra.device_classes["gpu.example.com"].config
    assert (opaque.driver, opaque.parameters) == ("gpu.example.com", '{"z":1,"a":[true]}')
    got = r.dra.claims["team/gpu"]
    assert [(x.requests, x.opaque) for x in got.spec.config] == [((), opaque),
                                                                 (("gpu/big",), opaque)]
    assert got.allocation is not None
    assert [(x.source, x.requests) for x in got.allocation.config] == [("FromClass",
                                                                        ("gpu/big",))]


@pytest.mark.parametrize(("config", "field", "message"), [
    ({}, "spec.devices.config[0].opaque", "expected a mapping, got null"),
    ({"opaque": {"parameters": {}}}, "spec.devices.config[0].opaque.driver", "required"),
    ({"opaque": {"driver": "d", "parameters": [1]}}, "spec.devices.config[0].opaque.parameters",
     "expected a JSON object"),
    ({"opaque": {"driver": "d"}}, "spec.devices.config[0].opaque.parameters",
     "expected a JSON object"),
    ({"requests": ["cpu"], **OPAQUE}, "spec.devices.config[0].requests[0]",
     "must be the name of a request in the claim"),
    ({"requests": ["gpu/big"], **OPAQUE}, "spec.devices.config[0].requests[0]",
     "must be the name of a request in the claim"),
])
def test_config_errors_name_the_field(config: dict[str, Any], field: str, message: str
                                      ) -> None:
    """``validateDeviceClaimConfiguration`` (pkg/apis/resource/validation/validation.go)."""
    text = error(claim(_with_config(one_gpu(), config)))
    assert f"ResourceClaim team/gpu: {field}: " in text and message in text, text
