"""Issue 14's "Done when" examples, run through the CLI as a user runs them:

* the Kubernetes documentation's StatefulSet + Service example (``web``, claims ``www``) with
  its StorageClass as the cluster's default WaitForFirstConsumer class
  (tests/data/public/storage/statefulset-web.yaml) on a kind cluster's nodes: expanded, every
  pod binds and every claim is provisioned on its pod's node;
* a CSINode attach limit of 2 volumes (tests/data/public/storage/attach-limit.yaml): a third
  volume-using pod stays pending with upstream's message, and goes to a second node when
  there is one (attach-limit-node-2.yaml).

The input files are the examples docs/storage.md points users to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.main import main
from reference_impl.model.loader import load_documents

PUBLIC = Path(__file__).resolve().parents[1] / "data" / "public"
STORAGE = PUBLIC / "storage"
KIND_NODES = PUBLIC / "kind-nodes.yaml"
STATEFULSET = STORAGE / "statefulset-web.yaml"
ATTACH_LIMIT = STORAGE / "attach-limit.yaml"
NODE_2 = STORAGE / "attach-limit-node-2.yaml"

#: ErrReasonMaxVolumeCountExceeded (pkg/scheduler/framework/plugins/nodevolumelimits/csi.go
#: of k8s.io/kubernetes v1.37.2)
MAX_VOLUME_COUNT = "node(s) exceed max volume count"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    """The command's exit code, its JSON document and its stderr."""
    capsys.readouterr()
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, json.loads(cap.out), cap.err


def claim_uids(capsys: pytest.CaptureFixture[str], *paths: Path) -> dict[str, str]:
    """The uid of each claim of the expanded inputs (``kschedconf expand``), as the loader
    gives it: ``namespace/name`` -> uid."""
    capsys.readouterr()
    assert main(["expand", *map(str, paths)]) == 0
    docs = [d for d in yaml.safe_load_all(capsys.readouterr().out) if d]
    claims = load_documents(docs, source="<expand>").cluster.storage.claims
    return {key: claim.uid for key, claim in claims.items()}


# --- the StatefulSet + Service example ---------------------------------------------------

def _check_statefulset_provisioned(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    code, doc, err = run(capsys, "simulate", str(KIND_NODES), str(path), "-o", "json")
    assert code == 0, err
    assert "warning" not in err
    assert "expanded 1 workload(s) into 3 pod(s)" in err
    bindings = doc["bindings"]
    assert sorted(bindings) == ["default/web-0", "default/web-1", "default/web-2"]
    # the control-plane node is tainted NoSchedule: the workers take the pods
    assert set(bindings.values()) <= {"kind-worker", "kind-worker2"}
    assert doc["pending"] == []
    uids = claim_uids(capsys, KIND_NODES, path)
    claims = {f"{c['namespace']}/{c['name']}": c for c in doc["persistentVolumeClaims"]}
    assert sorted(claims) == ["default/www-web-0", "default/www-web-1", "default/www-web-2"]
    for i in range(3):
        key = f"default/www-web-{i}"
        assert claims[key]["phase"] == "Bound"
        assert claims[key]["volumeName"] == f"pvc-{uids[key]}"
        assert claims[key]["selectedNode"] == bindings[f"default/web-{i}"]


def test_the_statefulset_example_binds_every_pod_with_its_claim_provisioned(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The documentation's example as published (claims of ``my-storage-class``) with that
    class in the inputs."""
    _check_statefulset_provisioned(capsys, STATEFULSET)


def test_claims_without_a_class_get_the_default_class(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same example with no ``storageClassName`` in the claim template: the
    DefaultStorageClass admission gives the claims the default class, provisioned alike."""
    text = STATEFULSET.read_text()
    assert '      storageClassName: "my-storage-class"\n' in text
    path = tmp_path / "web-default-class.yaml"
    path.write_text(text.replace('      storageClassName: "my-storage-class"\n', ""))
    _check_statefulset_provisioned(capsys, path)


def test_without_the_storage_class_the_claims_stay_unbound(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The example without its StorageClass (as on a cluster whose classes are left out of the
    inputs): the warning names web-0 and its claim, which stays Pending, and web-0 stays
    pending with VolumeBinding's message (OrderedReady: web-1 is never created)."""
    docs = [d for d in yaml.safe_load_all(STATEFULSET.read_text())
            if d and d["kind"] != "StorageClass"]
    path = tmp_path / "web-no-class.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    code, doc, err = run(capsys, "simulate", str(KIND_NODES), str(path), "-o", "json")
    assert code == 1
    assert ("warning: 1 pending pod(s) use PersistentVolumeClaims that nothing will bind: "
            "default/web-0 (www-web-0: StorageClass my-storage-class not in the inputs).") in err
    assert doc["bindings"] == {} and doc["pending"] == ["default/web-0"]
    assert doc["attempts"][0]["message"].startswith(
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.")
    assert [(c["name"], c["phase"]) for c in doc["persistentVolumeClaims"]] == [
        ("www-web-0", "Pending"), ("www-web-1", "Pending"), ("www-web-2", "Pending")]


# --- a CSINode attach limit of 2 ---------------------------------------------------------

def test_a_third_volume_stays_pending_with_upstreams_message(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, _ = run(capsys, "simulate", str(ATTACH_LIMIT), "-o", "json")
    assert code == 1
    assert doc["pending"] == ["default/db-2"]
    [attempt] = doc["attempts"]
    assert attempt["pod"] == "default/db-2" and attempt["outcome"] == "Unschedulable"
    assert attempt["reasons"] == {"node-1": [MAX_VOLUME_COUNT]}
    assert attempt["message"] == (
        f"0/1 nodes are available: 1 {MAX_VOLUME_COUNT}. preemption: 0/1 nodes are "
        "available: 1 No preemption victims found for incoming pod.")
    claims = {c["name"]: c for c in doc["persistentVolumeClaims"]}
    assert claims["data-2"]["phase"] == "Pending" and claims["data-2"]["volumeName"] == ""
    assert "selectedNode" not in claims["data-2"]


def test_explain_names_the_attach_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, _ = run(capsys, "explain", str(ATTACH_LIMIT), "--pod-name", "default/db-2",
                       "-o", "json")
    assert code == 1
    [node] = doc["nodes"]
    assert node["name"] == "node-1" and not node["feasible"]
    failed = [f for f in node["filters"] if f["code"] not in ("Success", "Skip")]
    assert failed == [{"plugin": "NodeVolumeLimits", "code": "Unschedulable",
                       "reasons": [MAX_VOLUME_COUNT]}]
    assert doc["message"].startswith(f"0/1 nodes are available: 1 {MAX_VOLUME_COUNT}.")
    assert doc["claims"] == [{
        "claim": "default/data-2", "phase": "Pending", "volumeName": "",
        "outcome": f"unbound; the pod is unschedulable: NodeVolumeLimits: {MAX_VOLUME_COUNT}"}]


def test_with_a_second_node_the_third_volume_goes_there(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, _ = run(capsys, "simulate", str(ATTACH_LIMIT), str(NODE_2), "-o", "json")
    assert code == 0
    assert doc["bindings"]["default/db-2"] == "node-2"
    claims = {c["name"]: c for c in doc["persistentVolumeClaims"]}
    assert claims["data-2"] == {
        "namespace": "default", "name": "data-2", "phase": "Bound",
        "volumeName": "pvc-7c1d2e3f-0000-4000-8000-000000000002", "selectedNode": "node-2"}
    code, doc, _ = run(capsys, "explain", str(ATTACH_LIMIT), str(NODE_2), "--pod-name",
                       "default/db-2", "-o", "json")
    assert code == 0
    assert doc["selected"] == "node-2"
    verdicts = {n["name"]: (n["feasible"], [f["plugin"] for f in n["filters"]
                                            if f["code"] not in ("Success", "Skip")])
                for n in doc["nodes"]}
    assert verdicts == {"node-1": (False, ["NodeVolumeLimits"]), "node-2": (True, [])}


def test_the_limit_decides_node_2_not_the_scores(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With room for a third volume on node-1 (allocatable.count 3) db-2 goes to node-1, the
    emptier node: in the test above it is the attach limit that sends it to node-2."""
    text = ATTACH_LIMIT.read_text()
    assert text.count("        count: 2\n") == 1
    path = tmp_path / "attach-limit-3.yaml"
    path.write_text(text.replace("        count: 2\n", "        count: 3\n"))
    code, doc, _ = run(capsys, "simulate", str(path), str(NODE_2), "-o", "json")
    assert code == 0
    assert doc["bindings"]["default/db-2"] == "node-1"
