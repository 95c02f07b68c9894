"""Services, ReplicationControllers, ReplicaSets and StatefulSets read by the loader
(reference_impl/model/loader/controllers.py), and what they do to scheduling: the default
profile's PodTopologySpread system default constraints (hostname maxSkew 3, zone maxSkew 5,
ScheduleAnyway) take their selector from them (``helper.DefaultSelector``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.main import main
from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_documents
from reference_impl.model.objects import LabelSelector, LabelSelectorRequirement
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.testing.wrappers import (
    make_node,
    make_pod,
    make_replica_set,
    make_replication_controller,
    make_service,
    make_stateful_set,
    make_workload,
)


def error_of(*docs: Any) -> InputError:
    with pytest.raises(InputError) as e:
        load_documents([d if isinstance(d, dict) else d.manifest() for d in docs], "in.yaml")
    return e.value


def test_reads_the_four_kinds_from_a_list_dump() -> None:
    """A ``kubectl get -o yaml`` List: namespaces default to ``default``, uids are kept (or made
    deterministic), selectors are read as the API types hold them."""
    items = [
        make_service("web").namespace("prod").uid("u-svc").selector({"app": "web"}).port(80),
        make_replication_controller("legacy").selector({"app": "legacy"}),
        make_replica_set("web-6d4cf56db6").namespace("prod").selector(
            {"app": "web"}, ("pod-template-hash", "In", ["6d4cf56db6"])),
        make_stateful_set("db").selector({"app": "db"}).service_name("db"),
    ]
    c = load_documents([{"apiVersion": "v1", "kind": "List",
                         "items": [i.manifest() for i in items]}]).cluster
    assert [(s.namespace, s.name, s.uid, dict(s.selector or {})) for s in c.services] == [
        ("prod", "web", "u-svc", {"app": "web"})]
    rc, = c.replication_controllers
    assert (rc.namespace, rc.name, dict(rc.selector)) == ("default", "legacy", {"app": "legacy"})
    assert len(rc.uid) == 36  # a deterministic uuid5, as the upstream subject makes it
    rs, = c.replica_sets
    assert rs.selector == LabelSelector(
        (("app", "web"),),
        (LabelSelectorRequirement("pod-template-hash", "In", ("6d4cf56db6",)),))
    assert [(s.namespace, s.name) for s in c.stateful_sets] == [("default", "db")]


def test_service_without_selector_is_kept_as_selecting_nothing() -> None:
    svc = make_service("external").selector(None).obj()
    assert svc.selector is None
    assert make_service("all").selector({}).obj().selector == {}


def test_rc_selector_defaults_to_the_template_labels() -> None:
    """SetDefaults_ReplicationController (pkg/apis/core/v1/defaults.go)."""
    rc = (make_replication_controller("rc")
          .template(make_pod("").label("app", "x").label("tier", "y")).obj())
    assert dict(rc.selector) == {"app": "x", "tier": "y"}


@pytest.mark.parametrize("doc, field, message", [
    (make_replica_set("rs"), "spec.selector", "required"),
    (make_stateful_set("ss").selector({}), "spec.selector", "empty selector is invalid"),
    (make_replica_set("rs").selector(None, ("app", "Equals", ["x"])),
     "spec.selector.matchExpressions[0].operator", "not a valid label selector operator"),
    (make_replica_set("rs").selector({"app": "web"}).template(make_pod("").label("app", "db")),
     "spec.template.metadata.labels", "does not match template"),
    (make_replication_controller("rc"), "spec.selector", "required"),
    (make_replication_controller("rc").selector({"app": "web"})
     .template(make_pod("").label("app", "db")),
     "spec.template.metadata.labels", "does not match template"),
    (make_service("s").spec(selector=["app"]), "spec.selector", "expected"),
], ids=["rs-no-selector", "ss-empty-selector", "rs-bad-operator", "rs-template-mismatch",
        "rc-no-selector", "rc-template-mismatch", "service-selector-not-a-map"])
def test_bad_selectors_name_the_field(doc: Any, field: str, message: str) -> None:
    """The API server's validation of these selectors (pkg/apis/apps/validation,
    pkg/apis/core/validation), reported with the object and the field."""
    e = error_of(doc)
    assert e.field == field, str(e)
    assert message in e.message
    assert e.source == "in.yaml" and e.obj.endswith(doc.manifest()["metadata"]["name"])


def test_removed_api_versions_are_read_as_apps_v1_with_a_warning() -> None:
    """A ReplicaSet of extensions/v1beta1 (removed in 1.16) is read as apps/v1 with a warning,
    as the workload expansion reads it (docs/expansion.md#removed-api-versions), so both see the
    same owner; an apiVersion that never served ReplicaSets is ignored. (A pod whose controller
    reference says extensions/v1beta1 is still not an owner DefaultSelector reads: it matches
    the reference's apps/v1 only, as upstream does.)"""
    doc = make_replica_set("rs").selector({"app": "x"}).manifest()
    doc["apiVersion"] = "extensions/v1beta1"
    r = load_documents([doc], "in.yaml")
    assert [rs.name for rs in r.cluster.replica_sets] == ["rs"]
    assert r.warnings == ["in.yaml, document 1: ReplicaSet default/rs: apiVersion "
                          "extensions/v1beta1 is not served since Kubernetes 1.16; read as "
                          "apps/v1 (write apiVersion: apps/v1; "
                          "docs/expansion.md#removed-api-versions)"]
    doc["apiVersion"] = "apps/v2"
    r = load_documents([doc], "in.yaml")
    assert r.cluster.replica_sets == []
    assert r.warnings == ["in.yaml: ignored 1 object(s) of kind ReplicaSet (apps/v2)"]


# ---- the system default constraints in the default profile --------------------------------------

def _spread_cluster(*owners: Any, owner_ref: tuple[str, str, str] | None) -> list[dict]:
    """Two equal nodes in two zones; n1 runs two pods labelled app=web, n2 two pods labelled
    app=other, all with the same requests; one pending app=web pod. Every score but
    PodTopologySpread's ties; the system defaults (when a Service or controller gives the pod
    a selector) prefer n2, where fewer app=web pods run."""
    nodes = [make_node(n).hostname().zone(z).capacity(cpu="4", memory="8Gi")
             for n, z in (("n1", "za"), ("n2", "zb"))]
    running = [make_pod(f"{app}-{i}").label("app", app).req(cpu="100m").node(node)
               for app, node in (("web", "n1"), ("other", "n2")) for i in range(2)]
    pending = make_pod("web-new").label("app", "web").req(cpu="100m")
    if owner_ref is not None:
        pending = pending.owner_reference(*owner_ref)
    return [o.manifest() for o in (*nodes, *running, *owners, pending)]


def _chosen(docs: list[dict]) -> str:
    return Scheduler(load_documents(docs).cluster).run().bindings["default/web-new"]


def test_without_services_or_controllers_the_nodes_tie() -> None:
    """The control: no Service, no controller, so no default constraint; the nodes tie and
    upstream's tie-break (the heap of sorted scored nodes, select_host.py) takes n1."""
    assert _chosen(_spread_cluster(owner_ref=None)) == "n1"


@pytest.mark.parametrize("owners, owner_ref", [
    ([make_service("web").selector({"app": "web"})], None),
    ([make_replica_set("web-rs").selector({"app": "web"})], ("web-rs", "ReplicaSet", "apps/v1")),
    ([make_replication_controller("web-rc").selector({"app": "web"})],
     ("web-rc", "ReplicationController", "v1")),
    ([make_stateful_set("web-ss").selector({"app": "web"})],
     ("web-ss", "StatefulSet", "apps/v1")),
], ids=["service", "replicaset", "replicationcontroller", "statefulset"])
def test_system_defaults_spread_pods_of_a_service_or_controller(
        owners: list[Any], owner_ref: tuple[str, str, str] | None) -> None:
    """pkg/scheduler/framework/plugins/podtopologyspread/common.go buildDefaultConstraints: the
    selector of the Services / the controller makes the default constraints apply."""
    assert _chosen(_spread_cluster(*owners, owner_ref=owner_ref)) == "n2"


def test_a_deployment_is_not_an_owner_default_selector_reads() -> None:
    """A pod whose controller is a Deployment (not a kind DefaultSelector reads) and no Service:
    no default constraint, the tie (and its tie-break) stays."""
    dep = make_workload("Deployment", "web").selector({"app": "web"})
    docs = _spread_cluster(owner_ref=("web", "Deployment", "apps/v1"))
    docs.insert(0, dep.manifest())
    assert _chosen(docs) == "n1"


def test_explain_shows_the_default_constraint_scores(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """``kschedconf explain`` reports PodTopologySpread's scores from the system default
    constraints (the upstream subject's explain gives the same numbers: raw 12 / 6,
    normalized 50 / 100, weighted 100 / 200)."""
    docs = _spread_cluster(make_service("web").selector({"app": "web"}), owner_ref=None)
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    code = main(["explain", str(path), "--pod-name", "default/web-new", "-o", "json"])
    out = capsys.readouterr().out
    assert code == 0
    doc = json.loads(out)
    scores = {n["name"]: {s["plugin"]: s for s in n["scores"]}["PodTopologySpread"]
              for n in doc["nodes"]}
    assert [(scores[n]["raw"], scores[n]["normalized"], scores[n]["weighted"])
            for n in ("n1", "n2")] == [(12, 50, 100), (6, 100, 200)]
    assert doc["selected"] == "n2"
