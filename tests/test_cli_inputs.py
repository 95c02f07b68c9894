"""Input conveniences of the command line: workloads expanded (--expand-workloads,
kschedconf expand), stdin `-`, generateName, the summary of ignored kinds, exit 1 when there
is nothing to schedule."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from conformance.cli.main import main
from reference_impl.model.loader import load_documents
from reference_impl.testing._base import manifests
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod
from reference_impl.testing.workloads import make_deployment, make_replica_set

PUBLIC = Path(__file__).resolve().parent / "data" / "public"
KIND_NODES = str(PUBLIC / "kind-nodes.yaml")
DAEMONSET = str(PUBLIC / "k8s-docs-daemonset.yaml")
CLUSTER_CAPACITY = str(PUBLIC / "cluster-capacity-rc-pod-and-replicaset.yaml")


def write(tmp_path: Path, name: str, *objects: object) -> str:
    p = tmp_path / name
    p.write_text(yaml.safe_dump_all(manifests(*objects)))
    return str(p)


def simulate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    code = main(["simulate", *args, "-o", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else {}), err


def bindings(doc: dict) -> dict[str, str]:
    return {f"{b['namespace']}/{b['pod']}" if "namespace" in b else b["pod"]: b["node"]
            for b in doc.get("bindings", [])}


def test_docs_daemonset_on_kind_binds_one_pod_to_each_node(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, err = simulate(capsys, KIND_NODES, DAEMONSET)
    assert code == 0
    assert "expanded 1 workload(s) into 3 pod(s)" in err
    attempts = [a for a in doc["attempts"] if a["outcome"] == "Bound"]
    nodes = sorted(a["node"] for a in attempts)
    assert nodes == ["kind-control-plane", "kind-worker", "kind-worker2"]


def test_no_expand_workloads_leaves_nothing_to_schedule(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = simulate(capsys, KIND_NODES, DAEMONSET, "--no-expand-workloads")
    assert code == 1
    assert "no pod to schedule after expansion" in err


def test_cluster_capacity_example_schedules_its_replicas(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, err = simulate(capsys, KIND_NODES, CLUSTER_CAPACITY)
    assert code == 0
    bound = [a for a in doc["attempts"] if a["outcome"] == "Bound"]
    assert len(bound) == 8  # 3 nginx, small-pod and the 4 frontend pods created beside it
    # the control plane's NoSchedule taint keeps them on the workers
    assert {a["node"] for a in bound} == {"kind-worker", "kind-worker2"}
    assert "extensions/v1beta1 is not served" in err


def test_stdin_is_a_file(capsys: pytest.CaptureFixture[str],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(Path(DAEMONSET).read_text()))
    code, doc, _ = simulate(capsys, KIND_NODES, "-")
    assert code == 0
    assert len([a for a in doc["attempts"] if a["outcome"] == "Bound"]) == 3


def test_no_nodes_exits_1_with_a_message(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    pods = write(tmp_path, "pods.yaml", make_pod("p").req(cpu="1"))
    code, _, err = simulate(capsys, pods)
    assert code == 1
    assert "no nodes" in err


def test_expand_prints_pods_that_load_back(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    assert main(["expand", KIND_NODES, DAEMONSET]) == 0
    out, err = capsys.readouterr()
    docs = list(yaml.safe_load_all(out))
    assert [d["kind"] for d in docs] == ["Pod"] * 3
    assert all(d["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet" for d in docs)
    # the same inputs print the same pods
    assert main(["expand", KIND_NODES, DAEMONSET]) == 0
    assert capsys.readouterr()[0] == out
    # kept pods and the workload together: nothing is created again
    kept = tmp_path / "pods.yaml"
    kept.write_text(out)
    assert main(["expand", KIND_NODES, DAEMONSET, str(kept)]) == 1
    assert "already has its pods" in capsys.readouterr()[1]


def test_expand_deployment_prints_its_replica_set_then_pods(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    d = write(tmp_path, "d.yaml", make_deployment("web").selector({"app": "web"}).replicas(2)
              .template(make_pod("").label("app", "web").req(cpu="1")))
    assert main(["expand", d, "-v"]) == 0
    out, err = capsys.readouterr()
    kinds = [x["kind"] for x in yaml.safe_load_all(out)]
    assert kinds == ["ReplicaSet", "Pod", "Pod"]
    assert "expand: Deployment default/web: ReplicaSet default/web-" in err


def test_expand_without_workloads_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expand", KIND_NODES]) == 1
    assert "no workloads" in capsys.readouterr()[1]


def test_ignored_kinds_one_line_quiet_kinds_only_with_verbose(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cluster = write(tmp_path, "c.yaml", make_node("n").capacity(cpu="2"),
                    make_pod("p").req(cpu="1"),
                    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}},
                    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}},
                    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}},
                    {"apiVersion": "example.com/v1", "kind": "Widget",
                     "metadata": {"name": "w"}})
    code, _, err = simulate(capsys, cluster)
    assert code == 0
    lines = [line for line in err.splitlines() if "ignored" in line]
    assert lines == ["ignored: 1 Widget (kinds the reference does not read; -v lists every "
                     "ignored kind)"]
    code, _, err = simulate(capsys, cluster, "-v")
    lines = [line for line in err.splitlines() if "ignored" in line]
    assert lines == ["ignored: 2 ConfigMap, 1 Secret, 1 Widget"]


def test_generate_name_gives_deterministic_distinct_names() -> None:
    docs = manifests(make_node("n"), *[make_pod("").meta(generateName="job-") for _ in range(3)])
    for d in docs[1:]:
        del d["metadata"]["name"]
    names = [p.name for p in load_documents(docs).cluster.pods]
    assert len(set(names)) == 3 and all(n.startswith("job-") and len(n) == 9 for n in names)
    assert [p.name for p in load_documents(docs).cluster.pods] == names


def test_missing_name_and_generate_name_is_an_error(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    p = tmp_path / "p.yaml"
    p.write_text("apiVersion: v1\nkind: Pod\nmetadata: {}\nspec: {containers: [{name: c}]}\n")
    assert main(["simulate", str(p)]) == 2
    assert "metadata.name: required: every Pod needs a name (or a metadata.generateName)" \
        in capsys.readouterr()[1]


def test_expand_json_is_a_list_the_loader_reads(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expand", KIND_NODES, CLUSTER_CAPACITY, "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr()[0])
    assert doc["kind"] == "List" and len(doc["items"]) == 7
    assert len(load_documents([doc], require_known_nodes=False).cluster.pods) == 7


def test_a_dump_whose_workloads_have_their_pods_is_taken_as_it_is(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tmpl = make_pod("").label("app", "web").req(cpu="100m")
    d = make_deployment("web").uid("d-uid").selector({"app": "web"}).replicas(2).template(tmpl)
    rs = make_replica_set("web-7f9c").uid("rs-uid").selector({"app": "web"}).replicas(2) \
        .template(tmpl).meta(ownerReferences=[{"apiVersion": "apps/v1", "kind": "Deployment",
                                               "name": "web", "uid": "d-uid",
                                               "controller": True}])
    pods = [make_pod(f"web-7f9c-{s}").label("app", "web").req(cpu="100m").node("n1")
            .owner_reference("web-7f9c", uid="rs-uid") for s in ("abcde", "fghjk")]
    dump = {"apiVersion": "v1", "kind": "List", "items": manifests(
        make_node("n1").capacity(cpu="4"), d, rs, pods,
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kube-root-ca.crt"}},
        {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1"}},
        {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"}})}
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump(dump))
    code, _, err = simulate(capsys, str(path))
    assert code == 1
    assert "no pod to schedule after expansion" in err
    assert "expanded" not in err and "ignored:" not in err
    code, _, err = simulate(capsys, str(path), "-v")
    assert "1 ConfigMap, 1 ControllerRevision, 1 Event" in err
    assert "expand: Deployment default/web: has pods in the inputs; not expanded" in err
