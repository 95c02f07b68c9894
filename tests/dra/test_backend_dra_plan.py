"""Planning the DRA objects for the control-plane backends (``conformance/backends/dra.py``,
``plan.py``) and reading allocations back, without a control plane: names follow the run's
node and namespace names, a claim a pod owns waits for the pod's UID, ``reservedFor`` is
dropped with a warning, and the claim of a template entry is found through the pod's
``status.resourceClaimStatuses`` (resourceclaim.Name)."""

from __future__ import annotations

from typing import Any

from conformance.backends.dra import DRA_KINDS, read_allocations
from conformance.backends.plan import RUN_LABEL, Naming, Planner
from conformance.core.scenario import ScenarioInput
from dra.gpu_scenarios import (
    GPU,
    TEMPLATE_POD_UID,
    from_template,
    gpu_cluster,
    pod,
    template_only,
)
from reference_impl.testing.wrappers import make_network_slice, make_node, make_resource_claim


def plan(docs: list[dict[str, Any]], prefix: str = "",
         pods: dict[str, tuple[str, str]] | None = None) -> tuple[Any, list[str]]:
    warnings: list[str] = []
    naming = Naming(namespace_prefix=prefix, node_prefix=prefix)
    for key, api in (pods or {}).items():
        naming.set_pod(key, api)
    p = Planner(naming, "ks-test", owned=not prefix, rename_for_order=False,
                warnings=warnings).plan(ScenarioInput(docs, name="dra"))
    return p, warnings


def test_objects_follow_the_run_names_in_creation_order() -> None:
    net = make_network_slice("net", "net.example.com").node_selector([{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]).devices("nic-0")
    claim = (make_resource_claim("one-gpu").namespace("team-a").request_with_name("gpu", GPU)
             .allocation([("gpu", GPU, "node-1", "gpu-0")], node="node-1")
             .reserved_for_pod("p", "uid-p"))
    p, warnings = plan([*gpu_cluster(), claim.manifest(), net.manifest()], prefix="run-")
    assert [d.kind for d in p.dra] == ["DeviceClass", "ResourceSlice", "ResourceSlice",
                                       "ResourceClaim"]
    assert [d.kind for d in p.dra] == sorted((d.kind for d in p.dra), key=DRA_KINDS.index)
    gpus, nets, planned = p.dra[1], p.dra[2], p.dra[3]
    assert gpus.manifest["spec"]["nodeName"] == "run-node-1"
    assert gpus.manifest["spec"]["pool"]["name"] == "node-1"  # pools keep their names
    term = nets.manifest["spec"]["nodeSelector"]["nodeSelectorTerms"][0]
    assert term["matchFields"][0]["values"] == ["run-node-1"]
    assert planned.manifest["metadata"]["namespace"] == "run-team-a"
    assert planned.manifest["metadata"]["labels"] == {RUN_LABEL: "ks-test"}
    assert "status" not in planned.manifest
    allocation = planned.status["allocation"] if planned.status else {}
    assert allocation["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]["values"] == [
        "run-node-1"]
    assert "run-team-a" in [ns["metadata"]["name"] for ns in p.namespaces]
    # the reservation is written once pod p exists (with the UID the API server gives it)
    assert planned.reserved_for == ["team-a/p"]
    assert not any("status.reservedFor" in w for w in warnings)


def test_a_claim_owned_by_a_pod_waits_for_its_uid() -> None:
    """... and names the pod by its API name (pods may be renamed for the queue order)."""
    p, _ = plan(from_template(), pods={"default/p-tmpl": ("default", "q000-p-tmpl")})
    (claim,) = [d for d in p.dra if d.kind == "ResourceClaim"]
    assert claim.owner_pod == "default/p-tmpl"
    (ref,) = claim.manifest["metadata"]["ownerReferences"]
    assert ref["name"] == "q000-p-tmpl" and "uid" not in ref
    (planned_pod,) = p.pending
    assert planned_pod.status == {"resourceClaimStatuses": [
        {"name": "gpu", "resourceClaimName": "p-tmpl-gpu-x1"}]}
    assert planned_pod.manifest["metadata"].get("uid") != TEMPLATE_POD_UID


def test_a_template_entry_gets_its_claim_as_the_controller_would_make_it() -> None:
    """The plan adds the claim of a loaded pod's template entry (owned by the pod) and the
    pod's status entry naming it, as the upstream subject's pre-pass does, so that it has the
    reference's name (the resourceclaim controller, started after them, finds both)."""
    p, _ = plan(template_only())
    claims = [d for d in p.dra if d.kind == "ResourceClaim"]
    assert sorted(c.owner_pod or "" for c in claims) == ["default/p-tmpl-a", "default/p-tmpl-b"]
    statuses = {d.manifest["metadata"]["name"]: d.status for d in p.pending}
    names = {c.owner_pod: c.manifest["metadata"]["name"] for c in claims}
    assert statuses == {
        "p-tmpl-a": {"resourceClaimStatuses": [
            {"name": "gpu", "resourceClaimName": names["default/p-tmpl-a"]}]},
        "p-tmpl-b": {"resourceClaimStatuses": [
            {"name": "accel", "resourceClaimName": names["default/p-tmpl-b"]}]}}


def test_slices_name_the_nodes_renamed_for_their_order() -> None:
    """Nodes not in name order are created as ``n<index>-NAME``; a slice's ``nodeName``
    names the node as created (else no node has the slice's devices)."""
    docs = [make_node("zeta").manifest(), *gpu_cluster()]
    p = Planner(Naming(), "ks-test", owned=True, rename_for_order=True,
                warnings=[]).plan(ScenarioInput(docs, name="dra"))
    nodes = [manifest["metadata"]["name"] for manifest, _ in p.nodes]
    assert nodes == ["n000-zeta", "n001-node-1"]
    (gpus,) = [d for d in p.dra if d.kind == "ResourceSlice"]
    assert gpus.manifest["spec"]["nodeName"] == "n001-node-1"


class Claims:
    """The one call read_allocations makes: get a ResourceClaim."""

    def __init__(self, claims: dict[str, dict[str, Any]]) -> None:
        self.claims = claims

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        assert kind == "ResourceClaim"
        return self.claims.get(f"{namespace}/{name}")


def test_read_allocations_follows_resource_claim_statuses() -> None:
    alloc = make_resource_claim("c1").allocation([("gpu", GPU, "node-1", "gpu-3")]).manifest()
    with_status = pod("p1", "gpu", template="t")
    with_status["status"] = {"resourceClaimStatuses": [{"name": "gpu",
                                                        "resourceClaimName": "c1"}]}
    no_claim_yet = pod("p2", "gpu", template="t")
    unallocated = pod("p3", "gpu", claim="c3")
    got = read_allocations(Claims({"default/c1": alloc, "default/c3": {"status": {}}}),  # type: ignore[arg-type]
                           {"default/p1": with_status, "default/p2": no_claim_yet,
                            "default/p3": unallocated, "default/p4": pod("p4", "x", claim="c")
                            | {"spec": {}}})
    assert got == {
        "default/p1": [{"name": "gpu", "claim": "c1", "allocation": {"devices": [
            {"request": "gpu", "driver": GPU, "pool": "node-1", "device": "gpu-3"}]}}],
        "default/p2": [{"name": "gpu", "claim": None, "allocation": None}],
        "default/p3": [{"name": "gpu", "claim": "c3", "allocation": None}],
    }


def test_read_allocations_reports_shares_and_consumed_capacity() -> None:
    """A share of a device (``shareID``, ``consumedCapacity``) is read back as the reference
    and the upstream subject report it: ``shared`` and exact rationals."""
    alloc = {"status": {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": GPU, "pool": "node-1", "device": "gpu-0",
         "shareID": "8a0c7c1e-0000-4000-8000-000000000001",
         "consumedCapacity": {"memory": "10Gi", "cores": "300m"}},
        {"request": "gpu", "driver": GPU, "pool": "node-1", "device": "gpu-1"}]}}}}
    got = read_allocations(Claims({"default/c1": alloc}),  # type: ignore[arg-type]
                           {"default/p1": pod("p1", "gpu", claim="c1")})
    assert got["default/p1"][0]["allocation"] == {"devices": [
        {"request": "gpu", "driver": GPU, "pool": "node-1", "device": "gpu-0", "shared": True,
         "consumedCapacity": {"cores": "3/10", "memory": str(10 * 2**30)}},
        {"request": "gpu", "driver": GPU, "pool": "node-1", "device": "gpu-1"}]}


RULE = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
        "metadata": {"name": "maintenance"},
        "spec": {"deviceSelector": {"driver": GPU, "pool": "node-1", "device": "gpu-0"},
                 "taint": {"key": "k", "effect": "NoSchedule"}}}


def test_device_taint_rules_are_created_after_the_slices_as_given() -> None:
    """With DRADeviceTaintRules on (v1.37.2) a rule is created, spec unchanged (drivers, pools
    and devices keep their scenario names), labelled with the run, after the slices and before
    the claims, so that the scheduler's slice tracker has it before any pod."""
    p, warnings = plan([*gpu_cluster(), make_resource_claim("c").request_with_name(
        "gpu", GPU).manifest(), RULE], prefix="ks-")
    kinds = [d.kind for d in p.dra]
    assert kinds == ["DeviceClass", "ResourceSlice", "DeviceTaintRule", "ResourceClaim"]
    rule = p.dra[2].manifest
    assert rule["spec"] == RULE["spec"] and rule["metadata"]["name"] == "maintenance"
    assert rule["metadata"]["labels"][RUN_LABEL] == "ks-test"
    assert warnings == []


def test_device_taint_rules_are_not_created_where_the_gate_is_off() -> None:
    """v1.36.3: DRADeviceTaintRules is off, so its kube-scheduler ignores rules as the reference
    does, and its API server does not serve them: not created, and a warning says why."""
    warnings: list[str] = []
    p = Planner(Naming(), "ks-test", owned=True, rename_for_order=False, warnings=warnings,
                release="v1.36.3").plan(ScenarioInput([*gpu_cluster(), RULE], name="dra"))
    assert "DeviceTaintRule" not in [d.kind for d in p.dra]
    assert len(warnings) == 1 and "DeviceTaintRules (maintenance) not created: " \
        "DRADeviceTaintRules is off in v1.36.3" in warnings[0]
