"""Workload expansion (reference_impl/model/workloads): the pods, ReplicaSets and claims the
controllers would create, as upstream's controllers name, label, own and place them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_read_documents, read_documents
from reference_impl.model.workloads import Expansion, expand_workloads
from reference_impl.model.workloads.names import (
    ALPHANUMS,
    compute_hash,
    fnv32,
    fnv32a,
    revision_hash,
    safe_encode_string,
)
from reference_impl.testing._base import manifests
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod
from reference_impl.testing.workloads import (
    make_daemon_set,
    make_deployment,
    make_job,
    make_replica_set,
    make_replication_controller,
    make_stateful_set,
)

PUBLIC = Path(__file__).resolve().parent / "data" / "public"


def expand(*objects: object, mode: str = "auto") -> Expansion:
    docs = [("in.yaml", i, d) for i, d in enumerate(manifests(*objects), start=1)]
    return expand_workloads(docs, mode)


def pods_of(x: Expansion) -> list[dict[str, Any]]:
    return [c.doc for c in x.pods]


def web_template(**labels: str) -> Any:
    return make_pod("").labels(labels or {"app": "web"}).req(cpu="100m")


def controller(doc: dict[str, Any]) -> dict[str, Any]:
    [ref] = [r for r in doc["metadata"]["ownerReferences"] if r.get("controller")]
    return ref


# --- hashes and names -------------------------------------------------------------------


def test_fnv_is_go_hash_fnv() -> None:
    # the offset basis and the published test vectors of FNV-1 / FNV-1a 32
    assert fnv32a(b"") == fnv32(b"") == 0x811C9DC5
    assert fnv32a(b"a") == 0xE40C292C
    assert fnv32(b"a") == 0x050C5D7E
    assert fnv32a(b"foobar") == 0xBF9CF968
    assert fnv32(b"foobar") == 0x31F0B262


def test_safe_encode_string_maps_each_character_into_the_alphabet() -> None:
    assert safe_encode_string("0123") == "".join(ALPHANUMS[ord(c) % 27] for c in "0123")
    assert set(compute_hash({"spec": {}})) <= set(ALPHANUMS)


def test_hashes_change_with_the_template_only() -> None:
    a = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c"}]}}
    b = {"spec": {"containers": [{"name": "c"}]}, "metadata": {"labels": {"app": "web"}}}
    c = {"metadata": {"labels": {"app": "web2"}}, "spec": {"containers": [{"name": "c"}]}}
    assert compute_hash(a) == compute_hash(b) != compute_hash(c)
    assert compute_hash(a) != compute_hash(a, collision_count=1)
    assert revision_hash(a) == revision_hash(b) != revision_hash(c)


# --- ReplicaSet, ReplicationController ------------------------------------------------


def test_replica_set_pods_are_named_labelled_and_owned_as_the_controller_makes_them() -> None:
    rs = make_replica_set("web").selector({"app": "web"}).replicas(3).template(web_template())
    x = expand(rs)
    pods = pods_of(x)
    assert len(pods) == 3
    names = [p["metadata"]["name"] for p in pods]
    assert len(set(names)) == 3
    for name in names:
        assert name.startswith("web-") and len(name) == len("web-") + 5
        assert set(name[4:]) <= set(ALPHANUMS)
    rs_doc = x.documents[0][2]
    uid = rs_doc["metadata"]["uid"]
    for p in pods:
        assert p["metadata"]["labels"] == {"app": "web"}
        assert controller(p) == {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                 "uid": uid, "controller": True, "blockOwnerDeletion": True}
        assert p["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "100m"}
    # the same inputs give the same names
    assert [p["metadata"]["name"] for p in pods_of(expand(rs))] == names


def test_replication_controller_selector_defaults_to_the_template_labels() -> None:
    rc = make_replication_controller("db").replicas(2).template(web_template(app="db"))
    x = expand(rc)
    assert len(x.pods) == 2
    assert controller(pods_of(x)[0])["kind"] == "ReplicationController"
    assert controller(pods_of(x)[0])["apiVersion"] == "v1"
    assert any("defaulted to the template's labels" in w for w in x.warnings)


def test_a_workload_with_its_pods_in_the_inputs_is_not_expanded_again() -> None:
    rs = make_replica_set("web").uid("rs-uid").selector({"app": "web"}).replicas(3) \
        .template(web_template())
    owned = make_pod("web-abcde").label("app", "web").req(cpu="100m") \
        .owner_reference("web", uid="rs-uid")
    assert expand(rs, owned).pods == []
    # --expand-workloads tops it up to its replicas
    assert len(expand(rs, owned, mode="on").pods) == 2
    assert expand(rs, mode="off").pods == []


def test_an_orphan_the_selector_selects_is_adopted_and_counts() -> None:
    rs = make_replica_set("web").selector({"app": "web"}).replicas(3).template(web_template())
    orphan = make_pod("stray").label("app", "web").req(cpu="1")
    other = make_pod("other").label("app", "db")
    x = expand(rs, orphan, other)
    assert len(x.pods) == 2
    docs = {d["metadata"]["name"]: d for _, _, d in x.documents if d["kind"] == "Pod"}
    assert controller(docs["stray"])["name"] == "web"
    assert "ownerReferences" not in docs["other"]["metadata"]


# --- Deployment -----------------------------------------------------------------------


def test_deployment_creates_a_replica_set_document_and_its_pods() -> None:
    d = make_deployment("web").selector({"app": "web"}).replicas(2).template(web_template())
    x = expand(d)
    [rs] = [c for c in x.created if c.kind == "ReplicaSet"]
    hash_ = rs.doc["metadata"]["labels"]["pod-template-hash"]
    assert rs.name == f"web-{hash_}"
    assert rs.doc["spec"]["replicas"] == 2
    assert rs.doc["spec"]["selector"]["matchLabels"] == {"app": "web",
                                                         "pod-template-hash": hash_}
    dep_uid = x.documents[0][2]["metadata"]["uid"]
    assert controller(rs.doc)["uid"] == dep_uid and controller(rs.doc)["kind"] == "Deployment"
    pods = pods_of(x)
    assert len(pods) == 2
    for p in pods:
        assert p["metadata"]["name"].startswith(f"{rs.name}-")
        assert p["metadata"]["labels"] == {"app": "web", "pod-template-hash": hash_}
        assert controller(p)["uid"] == rs.doc["metadata"]["uid"]
    # another template, another hash
    d2 = make_deployment("web").selector({"app": "web"}).replicas(2) \
        .template(web_template().req(cpu="200m"))
    [rs2] = [c for c in expand(d2).created if c.kind == "ReplicaSet"]
    assert rs2.name != rs.name


def test_a_deployment_that_owns_a_replica_set_or_is_paused_makes_nothing() -> None:
    d = make_deployment("web").uid("d-uid").selector({"app": "web"}).template(web_template())
    rs = make_replica_set("web-5d8f").selector({"app": "web"}).replicas(0) \
        .template(web_template()).meta(ownerReferences=[{
            "apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d-uid",
            "controller": True}])
    assert [c.kind for c in expand(d, rs, mode="on").created] == []
    paused = make_deployment("web").selector({"app": "web"}).template(web_template()) \
        .spec(paused=True)
    assert expand(paused).created == []


# --- StatefulSet ----------------------------------------------------------------------


def stateful(policy: str | None = None) -> Any:
    s = make_stateful_set("db").selector({"app": "db"}).replicas(3).service_name("db") \
        .template(web_template(app="db")).spec(volumeClaimTemplates=[{
            "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"],
                     "resources": {"requests": {"storage": "1Gi"}}}}])
    if policy:
        s = s.spec(podManagementPolicy=policy)
    return s


def test_stateful_set_pods_have_ordinal_names_identity_labels_and_claims() -> None:
    x = expand(stateful("Parallel"))
    pods = pods_of(x)
    assert [p["metadata"]["name"] for p in pods] == ["db-0", "db-1", "db-2"]
    revision = pods[0]["metadata"]["labels"]["controller-revision-hash"]
    assert revision.startswith("db-")
    for i, p in enumerate(pods):
        labels = p["metadata"]["labels"]
        assert labels["statefulset.kubernetes.io/pod-name"] == f"db-{i}"
        assert labels["apps.kubernetes.io/pod-index"] == str(i)
        assert labels["controller-revision-hash"] == revision
        assert p["spec"]["hostname"] == f"db-{i}" and p["spec"]["subdomain"] == "db"
        assert p["spec"]["volumes"] == [
            {"name": "data", "persistentVolumeClaim": {"claimName": f"data-db-{i}"}}]
    claims = [c for c in x.created if c.kind == "PersistentVolumeClaim"]
    assert [c.name for c in claims] == ["data-db-0", "data-db-1", "data-db-2"]
    assert claims[0].doc["metadata"]["labels"] == {"app": "db"}
    assert claims[0].doc["spec"]["resources"] == {"requests": {"storage": "1Gi"}}
    assert x.warnings == []


def test_ordered_ready_creates_the_first_pod_and_triggers_the_next_ones() -> None:
    x = expand(stateful())
    assert [c.name for c in x.pods] == ["db-0"]
    assert [(e["when"]["podBound"], e["pod"]["metadata"]["name"]) for e in x.triggered] == [
        ("default/db-0", "db-1"), ("default/db-1", "db-2")]
    assert x.scenario is not None and x.scenario["spec"]["events"] == x.triggered
    assert x.warnings == []
    # claims are created for every ordinal at once (the pods refer to them)
    assert [c.name for c in x.created if c.kind == "PersistentVolumeClaim"] == [
        "data-db-0", "data-db-1", "data-db-2"]


def test_ordered_ready_top_up_waits_for_a_pending_pod_of_the_inputs() -> None:
    pending = make_pod("db-0").label("app", "db").owner_reference("db", "StatefulSet")
    x = expand(stateful(), pending, mode="on")
    assert x.pods == []
    assert [e["when"]["podBound"] for e in x.triggered] == ["default/db-0", "default/db-1"]
    running = make_pod("db-0").label("app", "db").owner_reference("db", "StatefulSet") \
        .node("n1")
    x = expand(stateful(), running, mode="on")
    assert [c.name for c in x.pods] == ["db-1"]
    assert [e["when"]["podBound"] for e in x.triggered] == ["default/db-1"]


def test_stateful_set_ordinals_start_and_pods_already_there() -> None:
    s = stateful("Parallel").spec(ordinals={"start": 5})
    existing = make_pod("db-6").label("app", "db").owner_reference("db", "StatefulSet")
    x = expand(s, existing, mode="on")
    assert [p["metadata"]["name"] for p in pods_of(x)] == ["db-5", "db-7"]


# --- DaemonSet ------------------------------------------------------------------------


def nodes() -> list[Any]:
    return [make_node("cp").label("node-role.kubernetes.io/control-plane", "")
            .taint("node-role.kubernetes.io/control-plane"),
            make_node("w1").label("disk", "ssd"),
            make_node("w2").taint("dedicated", "NoExecute", "gpu")]


def test_daemon_set_pods_only_where_the_controller_check_accepts_the_node() -> None:
    ds = make_daemon_set("agent").namespace("kube-system").selector({"app": "agent"}) \
        .template(web_template(app="agent"))
    x = expand(nodes(), ds)
    pods = pods_of(x)
    assert len(pods) == 1  # cp: NoSchedule taint; w2: NoExecute taint
    [p] = pods
    assert p["spec"]["affinity"] == {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["w1"]}]}]}}}
    assert p["metadata"]["labels"]["pod-template-generation"] == "1"
    assert p["metadata"]["labels"]["controller-revision-hash"]
    keys = {(t.get("key"), t.get("effect")) for t in p["spec"]["tolerations"]}
    assert keys == {("node.kubernetes.io/not-ready", "NoExecute"),
                    ("node.kubernetes.io/unreachable", "NoExecute"),
                    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
                    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
                    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
                    ("node.kubernetes.io/unschedulable", "NoSchedule")}
    assert any("cp (untolerated taint node-role.kubernetes.io/control-plane:NoSchedule)" in n
               for n in x.notes)


def test_daemon_set_tolerations_node_selector_and_host_network() -> None:
    tmpl = web_template(app="agent").toleration(effect="NoSchedule", operator="Exists") \
        .toleration("dedicated", "NoExecute", operator="Exists").spec(hostNetwork=True)
    ds = make_daemon_set("agent").selector({"app": "agent"}).template(tmpl)
    x = expand(nodes(), ds)
    assert len(x.pods) == 3
    assert all(("node.kubernetes.io/network-unavailable", "NoSchedule")
               in {(t.get("key"), t.get("effect")) for t in p["spec"]["tolerations"]}
               for p in pods_of(x))
    only_ssd = make_daemon_set("agent").selector({"app": "agent"}) \
        .template(tmpl.node_selector({"disk": "ssd"}))
    assert [p["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0][
        "matchFields"][0]["values"] for p in pods_of(expand(nodes(), only_ssd))] == [["w1"]]


def test_daemon_set_pin_replaces_required_terms_and_keeps_preferred() -> None:
    tmpl = web_template(app="agent").node_affinity_in("disk", ["ssd"]) \
        .node_affinity_term({"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["a"]}]}, weight=5)
    ds = make_daemon_set("agent").selector({"app": "agent"}).template(tmpl)
    [p] = pods_of(expand(nodes(), ds))
    na = p["spec"]["affinity"]["nodeAffinity"]
    assert na["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] == [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["w1"]}]}]
    assert na["preferredDuringSchedulingIgnoredDuringExecution"][0]["weight"] == 5


def test_a_node_with_a_daemon_pod_gets_no_second_one() -> None:
    tmpl = web_template(app="agent").toleration(operator="Exists")
    ds = make_daemon_set("agent").uid("ds-uid").selector({"app": "agent"}).template(tmpl)
    there = make_pod("agent-xyz12").label("app", "agent").node("w1") \
        .owner_reference("agent", "DaemonSet", uid="ds-uid")
    x = expand(nodes(), ds, there, mode="on")
    pinned = sorted(p["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0][
        "matchFields"][0]["values"][0] for p in pods_of(x))
    assert pinned == ["cp", "w2"]


# --- Job --------------------------------------------------------------------------------


def job_template() -> Any:
    return web_template(app="batch").spec(restartPolicy="Never")


@pytest.mark.parametrize(("spec", "want"), [
    ({}, 1), ({"parallelism": 3}, 3), ({"parallelism": 3, "completions": 2}, 2),
    ({"parallelism": 2, "completions": 5}, 2), ({"parallelism": 3, "suspend": True}, 0),
    ({"parallelism": 0}, 0),
])
def test_job_creates_its_active_pods(spec: dict[str, Any], want: int) -> None:
    assert len(expand(make_job("calc").template(job_template()).spec(**spec)).pods) == want


def test_job_selector_and_labels_are_generated_and_written_into_the_job() -> None:
    x = expand(make_job("calc").template(job_template()).spec(parallelism=2))
    job = x.documents[0][2]
    uid = job["metadata"]["uid"]
    assert job["spec"]["selector"] == {
        "matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    for p in pods_of(x):
        labels = p["metadata"]["labels"]
        assert labels["batch.kubernetes.io/job-name"] == labels["job-name"] == "calc"
        assert labels["batch.kubernetes.io/controller-uid"] == labels["controller-uid"] == uid
        assert controller(p)["kind"] == "Job" and controller(p)["apiVersion"] == "batch/v1"


def test_indexed_job_pods_carry_their_index() -> None:
    x = expand(make_job("calc").template(job_template())
               .spec(parallelism=2, completions=4, completionMode="Indexed"))
    pods = pods_of(x)
    assert [p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"]
            for p in pods] == ["0", "1"]
    assert [p["spec"]["hostname"] for p in pods] == ["calc-0", "calc-1"]
    assert pods[1]["metadata"]["name"].startswith("calc-1-")


def test_job_pods_must_not_restart_always() -> None:
    with pytest.raises(InputError, match=r"spec\.template\.spec\.restartPolicy"):
        expand(make_job("calc").template(web_template()))


# --- bad or partial inputs --------------------------------------------------------------


def test_an_invalid_template_is_reported_at_the_workload() -> None:
    rs = make_replica_set("web").selector({"app": "web"}) \
        .template(make_pod("").label("app", "web").req(cpu="lots"))
    with pytest.raises(InputError) as e:
        expand(rs)
    assert e.value.source == "in.yaml" and e.value.document == 1
    assert e.value.obj == "ReplicaSet default/web"
    assert e.value.field == "spec.template.spec.containers[0].resources.requests.cpu"


@pytest.mark.parametrize(("workload", "message"), [
    (make_replica_set("web").selector({"app": "other"}).template(web_template()),
     "`selector` does not match template `labels`"),
    (make_replica_set("web").template(web_template()), "non-empty selector"),
    (make_deployment("web").selector({"app": "web"}), "spec.template: required"),
    (make_replica_set("web").selector({"app": "web"}).template({"metadata": {
        "labels": {"app": "web"}}, "spec": {}}), "at least one container"),
    (make_replica_set("web").selector({"app": "web"}).template(web_template()).replicas(-1),
     "greater than or equal to 0"),
])
def test_bad_workloads_get_clear_errors(workload: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        expand(workload)


def test_a_pod_whose_controller_is_missing_is_taken_as_it_is() -> None:
    pod = make_pod("web-abcde").label("app", "web").owner_reference("web-5d8f")
    x = expand(pod)
    assert x.created == []
    assert len(x.warnings) == 1 and "ReplicaSet default/web-5d8f" in x.warnings[0]
    assert [p.name for p in load_read_documents(x.documents).cluster.pods] == ["web-abcde"]


# --- the public examples ----------------------------------------------------------------


def test_docs_daemonset_example_on_a_kind_cluster_runs_on_every_node() -> None:
    x = expand_workloads(read_documents([PUBLIC / "kind-nodes.yaml",
                                         PUBLIC / "k8s-docs-daemonset.yaml"]))
    pins = [p["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0][
        "matchFields"][0]["values"][0] for p in pods_of(x)]
    # its tolerations include the control plane's NoSchedule taint
    assert pins == ["kind-control-plane", "kind-worker", "kind-worker2"]
    assert all(p["metadata"]["namespace"] == "kube-system" for p in pods_of(x))
    loaded = load_read_documents(x.documents)
    assert len(loaded.cluster.pods) == 3


def test_docs_daemonset_without_its_control_plane_toleration_skips_the_control_plane(
        tmp_path: Path) -> None:
    text = (PUBLIC / "k8s-docs-daemonset.yaml").read_text()
    older = text.replace("node-role.kubernetes.io/control-plane\n", "example.com/other\n")
    (tmp_path / "ds.yaml").write_text(older)
    x = expand_workloads(read_documents([PUBLIC / "kind-nodes.yaml", tmp_path / "ds.yaml"]))
    assert len(x.pods) == 2


def test_cluster_capacity_example_gives_its_replicas() -> None:
    x = expand_workloads(read_documents([PUBLIC / "cluster-capacity-rc-pod-and-replicaset.yaml"]))
    owners = [c.owner for c in x.pods]
    assert owners.count("ReplicationController default/nginx") == 3
    # 5 replicas: small-pod (an orphan its selector selects) is adopted, 4 are created
    assert owners.count("ReplicaSet default/frontend") == 4
    assert any("extensions/v1beta1 is not served" in w and "apps/v1" in w for w in x.warnings)
    rs = [d for _, _, d in x.documents if d.get("kind") == "ReplicaSet"][0]
    assert rs["apiVersion"] == "apps/v1"


def test_a_job_with_generate_name_is_named_and_expanded() -> None:
    job = make_job("").template(job_template()).meta(generateName="calc-")
    job_doc = manifests(job)[0]
    del job_doc["metadata"]["name"]
    x = expand(job_doc)
    name = x.documents[0][2]["metadata"]["name"]
    assert name.startswith("calc-") and len(name) == len("calc-") + 5
    [pod] = pods_of(x)
    assert controller(pod)["name"] == name
    assert expand(job_doc).documents[0][2]["metadata"]["name"] == name
