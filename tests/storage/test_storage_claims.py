"""The claims made around the loader: generic ephemeral volumes' claims
(loader/ephemeral.py, the ephemeral volume controller), the DefaultStorageClass admission
plugin (loader/admission/storageclass.py) and a StatefulSet's volumeClaimTemplates
(model/workloads/statefulset.py) read into ``Cluster.storage``."""

from __future__ import annotations

from typing import Any

import yaml

from reference_impl.model.loader import load_documents, load_read_documents
from reference_impl.model.loader.defaults import _deterministic_uid
from reference_impl.model.loader.ephemeral import add_ephemeral_claims
from reference_impl.model.workloads import expand_workloads
from reference_impl.testing._base import manifests
from reference_impl.testing.pods import make_pod
from reference_impl.testing.storage import make_pvc, make_storage_class

GI = 1 << 30


def docs(*objects: object) -> list[tuple[str, int, Any]]:
    return [("in.yaml", i, d) for i, d in enumerate(manifests(*objects), start=1)]


def load(*objects: object, admission: str = "auto") -> Any:
    return load_read_documents(docs(*objects), admission=admission, template_claims=True)


# --- ephemeral volumes ----------------------------------------------------------------------

def test_ephemeral_volume_claim_is_created_owned_by_the_pod() -> None:
    pod = make_pod("app").namespace("ns").ephemeral_volume("scratch", "fast", "2Gi")
    loaded = load(pod)
    (p,) = loaded.cluster.pods
    claim = loaded.cluster.storage.claims["ns/app-scratch"]
    assert (claim.storage_class_name, claim.request, claim.access_modes) == (
        "fast", 2 * GI, ("ReadWriteOnce",))
    assert claim.owner_pod_uid == p.uid == _deterministic_uid("Pod", "ns", "app")
    # the pod's volume stays as it is; pvc_names holds persistentVolumeClaim volumes only
    assert p.volumes[0]["name"] == "scratch" and p.pvc_names == ()


def test_the_pre_pass_adds_the_claim_document_after_the_pod() -> None:
    out = add_ephemeral_claims(docs(make_pod("app").uid("u-1").ephemeral_volume("v", "c")))
    assert [d["kind"] for _, _, d in out] == ["Pod", "PersistentVolumeClaim"]
    claim = out[1][2]
    assert claim["metadata"] == {
        "name": "app-v", "namespace": "default",
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "app", "uid": "u-1",
                             "controller": True, "blockOwnerDeletion": True}]}
    assert claim["spec"]["storageClassName"] == "c"
    # a pod without a uid gets the loader's, made explicit for every subject
    out = add_ephemeral_claims(docs(make_pod("app").ephemeral_volume("v", "c")))
    assert out[0][2]["metadata"]["uid"] == _deterministic_uid("Pod", "default", "app")


def test_template_labels_and_annotations_are_copied() -> None:
    pod = make_pod("app").volume({"name": "v", "ephemeral": {"volumeClaimTemplate": {
        "metadata": {"labels": {"a": "1"}, "annotations": {"b": "2"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {
            "storage": "1Gi"}}}}}})
    claim = load_documents([pod.manifest()]).cluster.storage.claims["default/app-v"]
    assert (claim.labels, claim.annotations) == ({"a": "1"}, {"b": "2"})


def test_existing_claim_is_kept_and_a_foreign_one_stops_the_pod() -> None:
    pod = make_pod("app").uid("u-1").ephemeral_volume("a", "x").ephemeral_volume("b", "x")
    mine = make_pvc("app-a").owner_pod("app", "u-1").storage_class("mine")
    s = load_documents(manifests(mine, pod)).cluster.storage
    assert s.claims["default/app-a"].storage_class_name == "mine"
    assert "default/app-b" in s.claims
    # handleVolume: a claim of that name not owned by the pod is an error that ends the sync
    foreign = make_pvc("app-a").storage_class("other")
    for loaded in (load_documents(manifests(foreign, pod)).cluster.storage,
                   load(foreign, pod).cluster.storage):
        assert list(loaded.claims) == ["default/app-a"]
    # a pod being deleted gets nothing
    gone = make_pod("gone").terminating().ephemeral_volume("v", "x")
    assert not load_documents([gone.manifest()]).cluster.storage


# --- DefaultStorageClass admission ---------------------------------------------------------

def test_claim_without_class_gets_the_default_class() -> None:
    loaded = load(make_storage_class("standard", "d").default(), make_pvc("data"),
                  make_pvc("none").no_class(), make_pvc("mine").storage_class("fast"),
                  make_pvc("beta").annotation("volume.beta.kubernetes.io/storage-class", "b"))
    claims = loaded.cluster.storage.claims
    assert claims["default/data"].storage_class_name == "standard"
    assert claims["default/none"].storage_class_name == ""  # explicitly no class
    assert claims["default/mine"].storage_class_name == "fast"
    assert claims["default/beta"].storage_class_name is None  # the beta annotation is a class
    assert [(a.pod, a.plugin, a.field, a.value) for a in loaded.admission.claim_defaults] == [
        ("default/data", "DefaultStorageClass", "spec.storageClassName", "standard")]
    assert "1 PersistentVolumeClaim(s) given the default StorageClass standard" in (
        loaded.admission.summary())


def test_no_default_class_and_admission_off_leave_the_claim() -> None:
    assert load(make_storage_class("s", "d"), make_pvc("c")).cluster.storage.claims[
        "default/c"].storage_class_name is None
    sc = make_storage_class("s", "d").annotation(
        "storageclass.kubernetes.io/is-default-class", "True")  # not exactly "true"
    assert load(sc, make_pvc("c")).cluster.storage.claims["default/c"].storage_class_name \
        is None
    off = load(make_storage_class("s", "d").default(), make_pvc("c"), admission="never")
    assert off.cluster.storage.claims["default/c"].storage_class_name is None


def test_dump_claims_are_taken_as_they_are_unless_always() -> None:
    sc = make_storage_class("standard", "d").default()
    dumped = make_pvc("c").uid("u").phase("Pending")
    assert load(sc, dumped).cluster.storage.claims["default/c"].storage_class_name is None
    assert load(sc, dumped, admission="always").cluster.storage.claims[
        "default/c"].storage_class_name == "standard"


def test_newest_default_class_wins_ties_by_name() -> None:
    old = make_storage_class("old", "d").default().creation_timestamp("2024-01-01T00:00:00Z")
    new = make_storage_class("new", "d").annotation(
        "storageclass.beta.kubernetes.io/is-default-class", "true").creation_timestamp(
        "2024-06-01T00:00:00Z")
    tie = make_storage_class("a-tie", "d").default().creation_timestamp("2024-06-01T00:00:00Z")
    assert load(old, new, make_pvc("c")).cluster.storage.claims[
        "default/c"].storage_class_name == "new"
    assert load(old, new, tie, make_pvc("c")).cluster.storage.claims[
        "default/c"].storage_class_name == "a-tie"
    # a class of the manifests (no timestamp) is created by the run: the newest
    fresh = make_storage_class("z-fresh", "d").default()
    assert load(old, new, fresh, make_pvc("c")).cluster.storage.claims[
        "default/c"].storage_class_name == "z-fresh"


def test_ephemeral_claims_go_through_admission() -> None:
    loaded = load(make_storage_class("standard", "d").default(),
                  make_pod("app").ephemeral_volume("v"))
    assert loaded.cluster.storage.claims["default/app-v"].storage_class_name == "standard"


# --- StatefulSet volumeClaimTemplates -------------------------------------------------------

#: the example of the Kubernetes docs (concepts/workloads/controllers/statefulset)
DOCS_EXAMPLE = """
apiVersion: v1
kind: Service
metadata: {name: nginx, labels: {app: nginx}}
spec:
  ports: [{port: 80, name: web}]
  clusterIP: None
  selector: {app: nginx}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  selector: {matchLabels: {app: nginx}}
  serviceName: nginx
  replicas: 3
  minReadySeconds: 10
  template:
    metadata: {labels: {app: nginx}}
    spec:
      terminationGracePeriodSeconds: 10
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        ports: [{containerPort: 80, name: web}]
        volumeMounts: [{name: www, mountPath: /usr/share/nginx/html}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: my-storage-class
      resources: {requests: {storage: 1Gi}}
"""


def test_docs_statefulset_example_expands_to_claims() -> None:
    read = [("sts.yaml", i, d) for i, d in
            enumerate(yaml.safe_load_all(DOCS_EXAMPLE), start=1)]
    x = expand_workloads(read, "auto")
    claim_docs = [c.doc for c in x.created if c.doc["kind"] == "PersistentVolumeClaim"]
    assert [d["metadata"]["name"] for d in claim_docs] == ["www-web-0", "www-web-1",
                                                           "www-web-2"]
    loaded = load_read_documents(x.documents, admission="auto", template_claims=True)
    claims = loaded.cluster.storage.claims
    assert list(claims) == ["default/www-web-0", "default/www-web-1", "default/www-web-2"]
    c = claims["default/www-web-0"]
    assert (c.storage_class_name, c.request, c.access_modes, c.labels) == (
        "my-storage-class", GI, ("ReadWriteOnce",), {"app": "nginx"})
    assert loaded.ignored == {}
    # OrderedReady: web-0 now, the others as timeline events; web-0 mounts its claim
    (web0,) = loaded.cluster.pods
    assert web0.pvc_names == ("www-web-0",)


def test_statefulset_claim_without_class_gets_the_default() -> None:
    sts = yaml.safe_load_all(DOCS_EXAMPLE.replace("      storageClassName: my-storage-class\n", ""))
    read = [("sts.yaml", i, d) for i, d in enumerate(sts, start=1)]
    read.append(("sc.yaml", 1, make_storage_class("standard", "d").default().manifest()))
    x = expand_workloads(read, "auto")
    loaded = load_read_documents(x.documents, admission="auto", template_claims=True)
    assert {c.storage_class_name for c in loaded.cluster.storage.claims.values()} == {
        "standard"}
