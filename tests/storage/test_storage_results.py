"""The ``persistentVolumeClaims`` result and the claims of ``explain`` (docs/storage.md#results,
docs/outputs.md): reference_impl/storage/results.py, the SimulationResult and Explanation
documents and schemas, their tables, and the whole-run diff's end field."""

from __future__ import annotations

import jsonschema

from conformance.core.documents import explanation_doc, schema, simulation_doc
from conformance.engines.diff.normalize import claims_by_key, field_pattern, norm_end
from conformance.engines.diff.whole import compare_whole
from conformance.reporters.tables import explanation_table, simulation_table
from reference_impl.model.objects import Cluster
from reference_impl.model.storage import ANN_SELECTED_NODE, PVC_BOUND, StorageObjects
from reference_impl.scheduler.explain import explain
from reference_impl.scheduler.simulation import merge_simulation_doc, run_simulation
from reference_impl.storage.results import (
    explain_pod_claims,
    persistent_volume_claim_results,
    pod_claim_keys,
)
from reference_impl.testing.storage import load_storage, make_pvc
from reference_impl.testing.wrappers import make_node, make_pod
from tests.storage.ctl_helpers import CLAIM, NODE, cluster, scheduler


def test_results_sorted_with_selected_node_only_when_set() -> None:
    s = load_storage(make_pvc("z", "b").bound_to("pv1"),
                     make_pvc("y", "a").annotation(ANN_SELECTED_NODE, "n1"),
                     make_pvc("x", "a"))
    assert persistent_volume_claim_results(s) == [
        {"namespace": "a", "name": "x", "phase": "Pending", "volumeName": ""},
        {"namespace": "a", "name": "y", "phase": "Pending", "volumeName": "",
         "selectedNode": "n1"},
        {"namespace": "b", "name": "z", "phase": "Bound", "volumeName": "pv1"},
    ]
    assert persistent_volume_claim_results(StorageObjects()) == []


def test_pod_claim_keys_in_volume_order_once_each() -> None:
    pod = (make_pod("web-0").namespace("shop").pvc("www").volume(
        {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}})
        .volume({"name": "cfg", "configMap": {"name": "c"}}).pvc("www").obj())
    assert pod_claim_keys(pod) == ["shop/www", "shop/web-0-scratch"]


def test_explained_claims_outcomes() -> None:
    s = load_storage(make_pvc("static").bound_to("pv1"),
                     make_pvc("dyn").bound_to("pvc-1").annotation(ANN_SELECTED_NODE, "n2"),
                     make_pvc("wait"))
    pod = make_pod("p").pvc("static").pvc("dyn").pvc("wait").pvc("gone").obj()
    feasible = explain_pod_claims(s, pod, "n1", [])
    assert [(c.claim, c.phase, c.volume_name, c.selected_node, c.outcome) for c in feasible] == [
        ("default/static", "Bound", "pv1", "", "bound to PV pv1"),
        ("default/dyn", "Bound", "pvc-1", "n2", "provisioned on node n2, bound to PV pvc-1"),
        ("default/wait", "Pending", "", "",
         "unbound: VolumeBinding binds or provisions it for node n1 when the pod is bound"),
        ("default/gone", "", "", "", "not found"),
    ]
    why = ["VolumeBinding: pod has unbound immediate PersistentVolumeClaims",
           "VolumeBinding: pod has unbound immediate PersistentVolumeClaims"]
    unschedulable = explain_pod_claims(s, pod, None, why)
    assert unschedulable[2].outcome == (
        "unbound; the pod is unschedulable: VolumeBinding: pod has unbound immediate "
        "PersistentVolumeClaims")
    assert explain_pod_claims(s, pod, None, [])[2].outcome == "unbound"


def _run_with_claims():
    c = cluster(make_pod("consumer").label("wants", "1").priority(10).obj(),
                make_pod("provider").label("provides", "1").obj())
    res = run_simulation(scheduler(c))
    return res, merge_simulation_doc(simulation_doc(res), res)


def test_simulation_reports_the_claims_at_the_end() -> None:
    res, doc = _run_with_claims()
    expected = [{"namespace": "default", "name": "data", "phase": "Bound",
                 "volumeName": "pvc-u1", "selectedNode": "n1"}]
    assert res.persistent_volume_claims == expected
    assert doc["persistentVolumeClaims"] == expected
    keys = list(doc)
    assert keys.index("persistentVolumeClaims") == keys.index("deleted") + 1
    jsonschema.validate(doc, schema("SimulationResult"))
    table = simulation_table(doc)
    assert "PersistentVolumeClaims" in table
    assert [line.split() for line in table.splitlines() if line.startswith("default/data")] == [
        ["default/data", "Bound", "pvc-u1", "n1"]]


def test_no_claims_no_field() -> None:
    c = Cluster(nodes=[make_node("n1").capacity(NODE).obj()], pods=[make_pod("p").obj()])
    res = run_simulation(scheduler(c))
    doc = simulation_doc(res)
    assert res.persistent_volume_claims == [] and "persistentVolumeClaims" not in doc
    assert "PersistentVolumeClaims" not in simulation_table(merge_simulation_doc(doc, res))


def test_whole_diff_compares_the_claims_by_key() -> None:
    _, ref = _run_with_claims()
    up = dict(ref, persistentVolumeClaims=[
        {"namespace": "default", "name": "data", "phase": "Pending", "volumeName": "",
         "selectedNode": "n1"}])
    assert norm_end(ref)["persistentVolumeClaims"] == claims_by_key(
        ref["persistentVolumeClaims"])
    divergences = compare_whole(ref, up).divergences
    assert sorted((d.path, d.field) for d in divergences) == [
        ("persistentVolumeClaims.default/data.phase", "persistentVolumeClaims.*.phase"),
        ("persistentVolumeClaims.default/data.volumeName",
         "persistentVolumeClaims.*.volumeName")]
    assert compare_whole(ref, dict(ref)).divergences == []
    assert field_pattern(["persistentVolumeClaims", "a/b", "phase"]) == \
        "persistentVolumeClaims.*.phase"


def test_explain_shows_the_pods_claims() -> None:
    c = cluster(make_pod("p").pvc("data").pvc("missing").obj())
    c.storage.claims[CLAIM].annotations[ANN_SELECTED_NODE] = "n1"
    c.storage.claims[CLAIM].phase = PVC_BOUND
    c.storage.claims[CLAIM].volume_name = "pvc-u1"
    s = scheduler(c, without_volume_plugins=True)
    e = explain(s, c.pods[0])
    doc = explanation_doc(e)
    assert doc["claims"] == [
        {"claim": "default/data", "phase": "Bound", "volumeName": "pvc-u1",
         "selectedNode": "n1", "outcome": "provisioned on node n1, bound to PV pvc-u1"},
        {"claim": "default/missing", "phase": "", "volumeName": "", "outcome": "not found"}]
    jsonschema.validate(doc, schema("Explanation"))
    table = explanation_table(doc)
    assert "PersistentVolumeClaims" in table and "default/missing" in table
    assert table.index("PersistentVolumeClaims") < table.index("Nodes (upstream order")


def test_explain_without_claims_has_no_field() -> None:
    c = cluster(make_pod("p").obj())
    doc = explanation_doc(explain(scheduler(c), c.pods[0]))
    assert "claims" not in doc
