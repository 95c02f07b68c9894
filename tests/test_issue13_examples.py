"""Issue 13's "Done when" items that need its parts together: a user's Deployment + Service
expanded and spread by the system default constraints as upstream scores it, the ReplicaSet the
expansion creates (or a removed apiVersion's) read by the loader as the owner DefaultSelector
finds, and bad or partial inputs getting one clear message each."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.main import main
from reference_impl.model.controllers import controllers_of
from reference_impl.model.loader import load_paths, load_read_documents, read_documents
from reference_impl.model.workloads import expand_workloads
from reference_impl.plugins.helper.spread import default_selector

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "tests" / "data" / "public"
EXAMPLE = PUBLIC / "deployment-service.yaml"
UPSTREAM = ROOT / "upstream" / "bin" / "kschedconf-upstream"


def _expanded(*paths: Path) -> list[dict[str, Any]]:
    x = expand_workloads(read_documents(list(paths)))
    return [d for _, _, d in x.documents]


def _objects(docs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    out = []
    for d in docs:
        items = d.get("items") if d.get("kind") == "List" else [d]
        out += [o for o in items or () if o.get("kind") == kind]
    return out


# --- the Deployment + Service example -----------------------------------------------------


def test_the_deployments_replicaset_is_the_owner_default_selector_finds() -> None:
    """The expansion emits the Deployment's ReplicaSet with the uid its 4 pods' controller
    references name; the loader reads it as a ReplicaSet, so DefaultSelector merges the
    Service's selector and the ReplicaSet's (pod-template-hash included)."""
    docs = _expanded(EXAMPLE)
    (rs,) = _objects(docs, "ReplicaSet")
    pods = _objects(docs, "Pod")
    assert len(pods) == 4
    refs = [p["metadata"]["ownerReferences"] for p in pods]
    assert all(r == [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                      "name": rs["metadata"]["name"], "uid": rs["metadata"]["uid"],
                      "controller": True, "blockOwnerDeletion": True}] for r in refs)
    cluster = load_read_documents([("in.yaml", i, d) for i, d in enumerate(docs, 1)]).cluster
    (model_rs,) = cluster.replica_sets
    assert (model_rs.name, model_rs.uid) == (rs["metadata"]["name"], rs["metadata"]["uid"])
    assert [s.name for s in cluster.services] == ["nginx"]
    pod = cluster.pods[0]
    sel = default_selector(pod, controllers_of(cluster))
    hash_ = rs["metadata"]["labels"]["pod-template-hash"]
    assert sel.matches({"app": "nginx", "pod-template-hash": hash_})
    assert not sel.matches({"app": "nginx", "pod-template-hash": "other"})  # the RS's part
    assert not sel.matches({"pod-template-hash": hash_})  # the Service's part


def _pts(doc: dict[str, Any]) -> dict[str, tuple[int, int, int]]:
    out = {}
    for n in doc["nodes"]:
        s = {s["plugin"]: s for s in n["scores"]}["PodTopologySpread"]
        out[n["name"]] = (s["raw"], s["normalized"], s["weighted"])
    return out


def _half_deployed(tmp_path: Path) -> tuple[Path, str]:
    """The example expanded, its first two pods bound where `simulate` puts them (node-a1,
    node-b1); the file and the third pod's key."""
    docs = _expanded(EXAMPLE)
    pods = _objects(docs, "Pod")
    pods[0]["spec"]["nodeName"], pods[1]["spec"]["nodeName"] = "node-a1", "node-b1"
    path = tmp_path / "half.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return path, f"default/{pods[2]['metadata']['name']}"


def test_simulate_spreads_the_deployment_over_nodes_and_zones(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", str(EXAMPLE)]) == 0
    cap = capsys.readouterr()
    assert "expanded 1 workload(s) into 4 pod(s): ReplicaSet default/nginx-" in cap.err
    bound = sorted(json.loads(cap.out)["bindings"].values())
    # every node gets one; the fourth goes to the zone with one node (zone-b has 1, zone-a 2)
    assert bound == ["node-a1", "node-a2", "node-b1", "node-b1"]


def test_explain_shows_the_default_constraint_scores(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """With pods on node-a1 and node-b1, the third pod's PodTopologySpread scores come from the
    system default constraints (hostname maxSkew 3, zone maxSkew 5, weight 2 each, selector of
    the Service and the ReplicaSet): raw = sum over constraints of count * log(size + 2)
    weights (scoring.go), node-a2 (no pod on it, one in its zone) scores best."""
    path, pod = _half_deployed(tmp_path)
    assert main(["explain", str(path), "--pod-name", pod, "-o", "json"]) == 0
    scores = _pts(json.loads(capsys.readouterr().out))
    assert set(scores) == {"node-a1", "node-a2", "node-b1"}
    # node-a2 has no matching pod on it: lowest raw, highest normalized score
    assert scores["node-a2"][0] < scores["node-a1"][0]
    assert scores["node-a2"][1:] == (100, 200)
    assert all(w == 2 * n for _, n, w in scores.values())
    # without the Service and the controllers the default selector is empty: no constraint,
    # PodTopologySpread's PreScore skips and it scores no node
    docs = [d for d in yaml.safe_load_all(path.read_text())
            if d.get("kind") not in ("Service", "ReplicaSet", "Deployment")]
    bare = tmp_path / "bare.yaml"
    bare.write_text(yaml.safe_dump_all(docs))
    assert main(["explain", str(bare), "--pod-name", pod, "-o", "json"]) == 0
    bare_doc = json.loads(capsys.readouterr().out)
    assert not any(s["plugin"] == "PodTopologySpread" for n in bare_doc["nodes"]
                   for s in n["scores"])


@pytest.mark.skipif(not os.access(UPSTREAM, os.X_OK), reason="upstream subject not built")
def test_explain_scores_are_upstreams(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The real kube-scheduler's explain, given the same objects (the expanded pods, the
    ReplicaSet and the Service), gives the same score for every plugin on every node."""

    path, pod = _half_deployed(tmp_path)
    r = subprocess.run([str(UPSTREAM), "explain", str(path), "--pod-name", pod],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    theirs = json.loads(r.stdout)
    assert main(["explain", str(path), "--pod-name", pod, "-o", "json",
                 "--admission", "never"]) == 0
    ours = json.loads(capsys.readouterr().out)

    def scores(doc: dict[str, Any]) -> dict[str, Any]:
        return {n["name"]: sorted((s["plugin"], s["raw"], s["normalized"], s["weighted"])
                                  for s in n["scores"]) for n in doc["nodes"]}
    assert scores(ours) == scores(theirs)
    assert ours["selected"] == theirs["selected"] == "node-a2"


# --- cluster-capacity's RC + extensions/v1beta1 ReplicaSet ---------------------------------

CC = PUBLIC / "cluster-capacity-rc-pod-and-replicaset.yaml"


def test_a_removed_api_version_replicaset_is_read_by_the_loader_too() -> None:
    """Without the expansion, the loader reads the extensions/v1beta1 ReplicaSet as apps/v1
    with the expansion's warning, so the bare pod it would adopt and the expanded pods find the
    same owner."""
    loaded = load_paths([CC])
    (rs,) = loaded.cluster.replica_sets
    assert rs.name == "frontend" and loaded.ignored == {}
    (w,) = [w for w in loaded.warnings if "extensions/v1beta1" in w]
    assert "ReplicaSet default/frontend" in w and "read as apps/v1" in w


def test_expansion_and_loader_agree_on_the_removed_api_version_owner() -> None:
    x = expand_workloads(read_documents([PUBLIC / "kind-nodes.yaml", CC]))
    assert sum("extensions/v1beta1" in w for w in x.warnings) == 1
    loaded = load_read_documents(x.documents)
    assert not any("extensions/v1beta1" in w for w in loaded.warnings)  # said once
    (rs,) = loaded.cluster.replica_sets
    controllers = controllers_of(loaded.cluster)
    frontend = [p for p in loaded.cluster.pods if p.labels.get("tier") == "frontend"]
    assert len(frontend) == 5  # small-pod, adopted, and 4 created
    for p in frontend:
        assert [(o.kind, o.uid) for o in p.owner_references] == [("ReplicaSet", rs.uid)]
        assert not default_selector(p, controllers).matches({"app": "guestbook"})
        assert default_selector(p, controllers).matches({"tier": "frontend"})


def test_an_extensions_replicaset_without_selector_gets_its_template_labels() -> None:
    doc = yaml.safe_load(
        "apiVersion: extensions/v1beta1\nkind: ReplicaSet\nmetadata: {name: web}\n"
        "spec:\n  template:\n    metadata: {labels: {app: web}}\n"
        "    spec: {containers: [{name: c, image: x}]}\n")
    (rs,) = load_read_documents([("rs.yaml", 1, doc)]).cluster.replica_sets
    assert rs.selector.match_labels == (("app", "web"),)


def test_the_golden_scenario_recorded_from_upstream_places_the_example_alike(
        capsys: pytest.CaptureFixture[str]) -> None:
    """golden/spread/system-defaults-deployment-service (the example's objects as the
    expansion creates them, recorded from the real kube-scheduler) binds its 4 pods to the same
    nodes as `simulate` binds the example's."""
    path = ROOT / "golden" / "spread" / "system-defaults-deployment-service.yaml"
    recorded = [d for d in yaml.safe_load_all(path.read_text()) if d and "bindings" in d]
    assert len(recorded) == 1
    assert main(["simulate", str(EXAMPLE)]) == 0
    ours = json.loads(capsys.readouterr().out)["bindings"]
    assert sorted(recorded[0]["bindings"].values()) == sorted(ours.values())


# --- a StatefulSet with volumeClaimTemplates ----------------------------------------------

STATEFULSET_WITH_CLAIMS = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: nginx
  replicas: 2
  podManagementPolicy: Parallel  # both pods at once (OrderedReady: web-1 after web-0 binds)
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        volumeMounts: [{name: www, mountPath: /usr/share/nginx/html}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: plain}
spec:
  containers: [{name: c, image: nginx}]
"""


def test_claims_nothing_binds_get_one_clear_message(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The claims a StatefulSet's volumeClaimTemplates create are scheduled by the volume
    plugins (issue 14), but without a StorageClass in the inputs nothing binds or provisions
    them: one warning line names the pods and claims before the run, the pods stay pending
    with VolumeBinding's message, the claims are listed Pending, and the other pods are
    scheduled."""
    path = tmp_path / "sts.yaml"
    path.write_text(STATEFULSET_WITH_CLAIMS)
    assert main(["simulate", str(PUBLIC / "kind-nodes.yaml"), str(path)]) == 1
    cap = capsys.readouterr()
    lines = [ln for ln in cap.err.splitlines() if "PersistentVolumeClaim" in ln]
    assert lines == [
        "warning: 2 pending pod(s) use PersistentVolumeClaims that nothing will bind: "
        "default/web-0 (www-web-0: no StorageClass), default/web-1 (www-web-1: no "
        "StorageClass). The simulated PV controller binds and provisions only the claims "
        "VolumeBinding chose a volume or a node for, so an unbound claim needs a "
        "WaitForFirstConsumer StorageClass in the inputs (named by the claim, or the default "
        "class); these pods stay pending (docs/storage.md)"]
    doc = json.loads(cap.out)
    assert list(doc["bindings"]) == ["default/plain"]
    others = [a for a in doc["attempts"] if a["pod"] != "default/plain"]
    assert {a["pod"]: a["outcome"] for a in others} \
        == {"default/web-0": "Unschedulable", "default/web-1": "Unschedulable"}
    assert all(a["message"].startswith(
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.")
        for a in others)
    assert [(c["name"], c["phase"], c["volumeName"]) for c in doc["persistentVolumeClaims"]] \
        == [("www-web-0", "Pending", ""), ("www-web-1", "Pending", "")]


def test_claims_of_a_wait_for_first_consumer_class_get_no_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With a default WaitForFirstConsumer StorageClass in the inputs the same claims are
    provisioned on the pods' nodes: no warning, every pod bound."""
    path = tmp_path / "sts.yaml"
    path.write_text(STATEFULSET_WITH_CLAIMS + DEFAULT_CLASS)
    assert main(["simulate", str(PUBLIC / "kind-nodes.yaml"), str(path)]) == 0
    cap = capsys.readouterr()
    assert "warning" not in cap.err
    doc = json.loads(cap.out)
    assert sorted(doc["bindings"]) == ["default/plain", "default/web-0", "default/web-1"]
    assert {c["name"]: (c["phase"], c["selectedNode"]) for c in doc["persistentVolumeClaims"]} \
        == {"www-web-0": ("Bound", doc["bindings"]["default/web-0"]),
            "www-web-1": ("Bound", doc["bindings"]["default/web-1"])}


DEFAULT_CLASS = """\
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: disk.csi.example.com
volumeBindingMode: WaitForFirstConsumer
"""


# --- bad or partial inputs, through the command a user runs --------------------------------

_WEB_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {memory: 512Mi}}}]
"""

BAD_TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: lots}}}]
"""

MISSING_OWNER = """\
apiVersion: v1
kind: Pod
metadata:
  name: web-abcde
  labels: {app: web}
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f, uid: u-1, controller: true}
spec:
  containers: [{name: c, image: nginx}]
"""

LIMIT_RANGE_ABOVE_THE_REQUEST = """\
apiVersion: v1
kind: LimitRange
metadata: {name: bounds}
spec:
  limits:
  - {type: Container, min: {memory: 1Gi}}
---
""" + _WEB_POD


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
         *args: str) -> tuple[int, str, str]:
    path = tmp_path / "in.yaml"
    path.write_text(text)
    code = main([args[0], str(PUBLIC / "kind-nodes.yaml"), str(path), *args[1:]])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_a_workload_with_an_invalid_template_is_an_input_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(tmp_path, capsys, BAD_TEMPLATE, "simulate")
    assert code == 2
    assert f"{tmp_path / 'in.yaml'}, document 1: Deployment default/web: " \
           "spec.template.spec.containers[0].resources.requests.cpu: invalid quantity 'lots'" \
           in err


def test_an_owner_reference_to_a_missing_controller_warns_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The pod is scheduled as it is (the scheduler never reads owners; DefaultSelector finds
    no owner, as upstream's lister would not), with one warning naming the controller."""
    code, out, err = _run(tmp_path, capsys, MISSING_OWNER, "simulate")
    assert code == 0
    assert json.loads(out)["bindings"].keys() == {"default/web-abcde"}
    assert [ln for ln in err.splitlines() if "not among the inputs" in ln] == [
        "warning: 1 pod(s) name a controller that is not among the inputs (ReplicaSet "
        "default/web-5d8f): the pods are taken as they are and nothing is created for the "
        "controller (docs/expansion.md#owners-not-in-the-inputs)"]


@pytest.mark.parametrize("spec", ["{type: ExternalName, externalName: example.com}",
                                  "{selector: {}, ports: [{port: 80}]}"])
def test_a_service_without_selector_selects_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str) -> None:
    """GetPodServices skips a Service whose selector is nil (helper/spread.go); an empty one
    adds no label, and an empty default selector builds no constraint
    (podtopologyspread/common.go): PodTopologySpread scores no node, as upstream."""
    svc = f"apiVersion: v1\nkind: Service\nmetadata: {{name: external}}\nspec: {spec}\n---\n"
    code, out, err = _run(tmp_path, capsys, svc + _WEB_POD, "explain", "--pod-name",
                          "default/web", "-o", "json")
    assert code == 0 and "Service" not in err
    doc = json.loads(out)
    assert doc["selected"]
    assert not any(s["plugin"] == "PodTopologySpread" for n in doc["nodes"]
                   for s in n["scores"])


def test_a_limit_range_above_a_request_rejects_the_pod_as_the_api_server_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(tmp_path, capsys, LIMIT_RANGE_ABOVE_THE_REQUEST, "simulate")
    assert code == 2
    assert 'Pod default/web: pods "web" is forbidden: minimum memory usage per Container is ' \
           "1Gi, but request is 512Mi (admission plugin LimitRanger, LimitRange " \
           "default/bounds; --admission never takes the pod as it is)" in err
    code, out, _ = _run(tmp_path, capsys, LIMIT_RANGE_ABOVE_THE_REQUEST, "simulate",
                        "--admission", "never")
    assert code == 0 and json.loads(out)["bindings"].keys() == {"default/web"}
