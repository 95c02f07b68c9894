"""The upstream subject with storage objects (docs/storage.md): the real volume plugins see the
PVs, claims, classes and CSI objects of tests/data/public/storage/, the simulated PV controller
and external provisioner of upstream/storage.go complete what VolumeBinding's PreBind starts,
and the SimulationResult reports the claims (``persistentVolumeClaims``). Each scenario runs on
both subjects: the decisions, the messages and the claims must be the same, and are checked
against what upstream's Go source says. Skipped when the upstream binary is not built."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conformance.core.documents import schema
from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available, with_controller_claims
from reference_impl.model.loader.defaults import _deterministic_uid

pytestmark = pytest.mark.skipif(
    not binary_available(),
    reason="upstream subject not built: run upstream/build.sh (needs Go and the module proxy)")

DATA = Path(__file__).resolve().parent.parent / "data" / "public" / "storage"


@pytest.fixture(scope="module")
def upstream() -> Iterator[UpstreamSubject]:
    subject = UpstreamSubject()
    yield subject
    subject.close()


def scenario(name: str) -> ScenarioInput:
    docs = [d for f in ("nodes.yaml", f"{name}.yaml")
            for d in yaml.safe_load_all((DATA / f).read_text(encoding="utf-8")) if d]
    return ScenarioInput(docs, name=name)


def attempts(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(a["pod"], a["outcome"], a["node"], a["reasons"], a["message"])
            for a in doc["attempts"]]


def both(upstream: UpstreamSubject, name: str) -> dict[str, Any]:
    """Run ``name`` on both subjects; they must agree on every attempt (pod, outcome, node,
    per-node reasons, message), the bindings, the pending pods and the claims. Returns the
    upstream subject's result."""
    sc = scenario(name)
    up = upstream.run(sc)
    jsonschema.validate(up.result, schema("SimulationResult"))
    assert not any("ignored" in w for w in up.warnings), up.warnings
    ref = ReferenceSubject().run(sc).result
    u = up.result
    assert attempts(u) == attempts(ref)
    assert u["bindings"] == ref["bindings"]
    assert u["pending"] == ref["pending"]
    assert u.get("persistentVolumeClaims") == ref.get("persistentVolumeClaims")
    return u


def claim(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in doc["persistentVolumeClaims"] if c["name"] == name)


def provisioned(name: str) -> str:
    """``pvc-<claim uid>``: the claims of the scenarios have the loader's deterministic uid."""
    return f"pvc-{_deterministic_uid('PersistentVolumeClaim', 'default', name)}"


def test_wait_for_first_consumer_claim_is_provisioned_on_the_chosen_node(
        upstream: UpstreamSubject) -> None:
    """The claim is provisioned for node-b, the writer's node; the reader, which may go
    anywhere, follows the PV's node affinity (rack In [rack-b], from the CSINode's topology
    key) to node-b: without the volume the reference sends it to the emptier node-a."""
    doc = both(upstream, "wffc-provision")
    assert doc["bindings"] == {"default/writer": "node-b", "default/reader": "node-b"}
    assert claim(doc, "data") == {"namespace": "default", "name": "data", "phase": "Bound",
                                  "volumeName": provisioned("data"), "selectedNode": "node-b"}


def test_static_pv_with_node_affinity_binds_only_there(upstream: UpstreamSubject) -> None:
    doc = both(upstream, "static-pv-affinity")
    assert doc["bindings"] == {"default/app": "node-a"}
    assert claim(doc, "cache") == {"namespace": "default", "name": "cache", "phase": "Bound",
                                   "volumeName": "local-a"}


def test_smallest_fitting_static_pv_is_chosen(upstream: UpstreamSubject) -> None:
    doc = both(upstream, "smallest-pv")
    assert doc["bindings"] == {"default/app": "node-a"}
    assert claim(doc, "logs")["volumeName"] == "pv-4g"


def test_immediate_unbound_claim_stays_pending(upstream: UpstreamSubject) -> None:
    """VolumeBinding's PreFilter (volume_binding.go): ErrReasonBindConflict-free
    UnschedulableAndUnresolvable "pod has unbound immediate PersistentVolumeClaims"."""
    doc = both(upstream, "immediate-unbound")
    assert doc["pending"] == ["default/app"]
    last = doc["attempts"][-1]
    assert last["outcome"] == "Unschedulable"
    assert last["message"].startswith(
        "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.")
    assert claim(doc, "unbound") == {"namespace": "default", "name": "unbound",
                                     "phase": "Pending", "volumeName": ""}


def test_csinode_allocatable_count_limits_the_volumes(upstream: UpstreamSubject) -> None:
    """Two provisioned volumes fill node-a's allocatable count of 2 (NodeVolumeLimits, each PV
    with its own volumeHandle); node-b is full: the third pod stays pending. The ephemeral
    claims come from the pre-pass the upstream subject applies."""
    doc = both(upstream, "csinode-limit")
    assert doc["bindings"] == {"default/hog": "node-b", "default/db-0": "node-a",
                               "default/db-1": "node-a"}
    assert doc["pending"] == ["default/db-2"]
    reasons = doc["attempts"][-1]["reasons"]
    assert reasons["node-a"] == ["node(s) exceed max volume count"]
    assert claim(doc, "db-0-data")["volumeName"] == provisioned("db-0-data")
    assert claim(doc, "db-2-data") == {"namespace": "default", "name": "db-2-data",
                                       "phase": "Pending", "volumeName": ""}


def test_read_write_once_pod_conflict(upstream: UpstreamSubject) -> None:
    doc = both(upstream, "rwop-conflict")
    assert doc["pending"] == ["default/intruder"]
    assert "ReadWriteOncePod access mode already in-use" in doc["attempts"][-1]["message"]


def test_volume_zone_conflict(upstream: UpstreamSubject) -> None:
    doc = both(upstream, "volume-zone")
    assert doc["bindings"] == {"default/anywhere": "node-a"}
    assert doc["attempts"][-1]["reasons"]["node-b"] == ["node(s) had no available volume zone"]


def test_migrated_in_tree_pv_and_inline_disks(upstream: UpstreamSubject) -> None:
    """CSI migration (migrated-pv.yaml): VolumeBinding checks the GCE PD PV as its CSI
    translation on nodes whose CSINode lists kubernetes.io/gce-pd (binder.go
    tryTranslatePVToCSI), NodeVolumeLimits counts in-tree disks under pd.csi.storage.gke.io
    (csi.go): app goes to node-c, extra then exceeds node-c's limit."""
    doc = both(upstream, "migrated-pv")
    assert doc["bindings"] == {"default/running": "node-c", "default/app": "node-c"}
    assert doc["pending"] == ["default/extra"]
    app, extra = doc["attempts"][0], doc["attempts"][-1]
    assert (app["pod"], app["outcome"], app["feasibleNodes"]) == ("default/app", "Bound", 1)
    assert extra["reasons"]["node-c"] == ["node(s) exceed max volume count"]


def test_the_go_side_receives_the_ephemeral_claims() -> None:
    """The pre-pass the upstream subject applies writes the ephemeral volumes' claims as
    documents, owned by their pods (the Go program creates none)."""
    docs = with_controller_claims(scenario("csinode-limit").documents)
    claims = {d["metadata"]["name"]: d for d in docs if d["kind"] == "PersistentVolumeClaim"}
    assert sorted(claims) == ["db-0-data", "db-1-data", "db-2-data"]
    owner = claims["db-1-data"]["metadata"]["ownerReferences"][0]
    assert owner["uid"] == _deterministic_uid("Pod", "default", "db-1")


def test_prebind_polling_takes_a_second_per_binding_pod(upstream: UpstreamSubject) -> None:
    """VolumeBinding's PreBind polls checkBindings every second of real time (binder.go
    BindPodVolumes: wait.PollUntilContextTimeout(ctx, time.Second, ...)): a pod whose claims
    need binding takes about a second; the result does not depend on it."""
    start = time.monotonic()
    first = upstream.run(scenario("smallest-pv")).result
    took = time.monotonic() - start
    assert 1.0 <= took < 10.0
    assert upstream.run(scenario("smallest-pv")).result == first


def test_explain_shows_the_volume_plugins_verdicts(upstream: UpstreamSubject) -> None:
    """``explain`` of a pod with claims (nothing bound first): every filter of both subjects on
    every node is the same; VolumeZone rejects node-b, VolumeBinding passes node-a."""
    sc = scenario("volume-zone")
    up = upstream.explain(sc, "default/in-zone-b")
    ref = ReferenceSubject().explain(sc, "default/in-zone-b")

    def filters(doc: dict[str, Any]) -> dict[str, list[tuple[str, str, list[str]]]]:
        return {n["name"]: [(f["plugin"], f["code"], f["reasons"]) for f in n["filters"]]
                for n in doc["nodes"]}

    assert filters(up) == filters(ref)
    verdicts = {n: {p: (c, r) for p, c, r in fs} for n, fs in filters(up).items()}
    assert verdicts["node-b"]["VolumeZone"] == ("UnschedulableAndUnresolvable",
                                                ["node(s) had no available volume zone"])
    assert verdicts["node-a"]["VolumeBinding"] == ("Success", [])


def test_claim_already_annotated_for_the_chosen_node(upstream: UpstreamSubject) -> None:
    """A claim that has ``volume.kubernetes.io/selected-node`` for the node the scheduler
    chooses: VolumeBinding's write changes nothing, which the API server (and both subjects)
    takes as a no-op update (no new resourceVersion, no event); the claim is provisioned."""
    sc = scenario("wffc-provision")
    for d in sc.documents:
        if d["kind"] == "PersistentVolumeClaim":
            d["metadata"]["annotations"] = {"volume.kubernetes.io/selected-node": "node-b"}
    up = upstream.run(sc).result
    ref = ReferenceSubject().run(sc).result
    assert attempts(up) == attempts(ref)
    assert up["persistentVolumeClaims"] == ref["persistentVolumeClaims"]
    assert claim(up, "data")["volumeName"] == provisioned("data")
