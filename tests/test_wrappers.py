"""The test-object builders (``reference_impl/testing/wrappers.py``): the manifests they write,
in call order, and what the loader makes of them (``obj()``)."""

from __future__ import annotations

import pytest
import yaml

from reference_impl.model.objects import (
    ContainerImage,
    LabelSelector,
    LabelSelectorRequirement,
    OwnerReference,
    Resource,
    Taint,
    Toleration,
)
from reference_impl.testing.wrappers import (
    HOSTNAME,
    PAUSE,
    PREFERRED,
    REQUIRED_AND_PREFERRED,
    ZONE,
    container_port,
    label_selector,
    make_config,
    make_container,
    make_daemon_set,
    make_job,
    make_namespace,
    make_node,
    make_pdb,
    make_pod,
    make_priority_class,
    make_profile,
    make_replica_set,
    make_replication_controller,
    make_service,
    make_timeline,
    manifests,
    node_selector_term,
    pod_affinity_term,
    spread_constraint,
    taint,
    toleration,
)


def test_node_manifest_in_call_order() -> None:
    n = make_node("n1").hostname().zone("a").capacity(cpu="4", memory="8Gi") \
        .taint("gpu", value="yes").unschedulable().image("img:1", 100)
    assert n.manifest() == {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "labels": {HOSTNAME: "n1", ZONE: "a"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "32"},
                   "capacity": {"cpu": "4", "memory": "8Gi", "pods": "32"},
                   "images": [{"names": ["img:1"], "sizeBytes": 100}]},
        "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule", "value": "yes"}],
                 "unschedulable": True}}
    assert list(n.manifest()) == ["apiVersion", "kind", "metadata", "status", "spec"]
    # spec first when set first; allocatable alone, exactly as given
    m = make_node("n2").spec().allocatable(cpu="2", pods=110).manifest()
    assert list(m) == ["apiVersion", "kind", "metadata", "spec", "status"]
    assert m["spec"] == {} and m["status"] == {"allocatable": {"cpu": "2", "pods": 110}}
    assert make_node("n3").manifest() == {"apiVersion": "v1", "kind": "Node",
                                          "metadata": {"name": "n3"}}


def test_node_obj_through_the_loader() -> None:
    n = make_node("n1").capacity({"cpu": "8", "memory": "16Gi", "x.io/y": "3"}, pods=20) \
        .labels({"a": "b"}).taints([taint("k", "NoExecute", "v"), taint("x")]) \
        .unschedulable().images({"nginx:1": 100}).image(["a:1", "a:latest"], 5).obj()
    assert n.allocatable == Resource(milli_cpu=8000, memory=16 << 30, allowed_pod_number=20,
                                     scalar={"x.io/y": 3})
    assert n.labels == {"a": "b"}
    assert n.taints == (Taint("k", "v", "NoExecute"), Taint("x", "", "NoSchedule"))
    assert n.unschedulable
    assert n.images == (ContainerImage(("nginx:1",), 100), ContainerImage(("a:1", "a:latest"), 5))


def test_pod_req_adds_containers_as_upstream() -> None:
    """``Req``/``Lim``/``Res`` add ``con<N>``, ``InitReq`` ``init-con<N>``, ``SidecarReq``
    ``sidecar-con<N>`` (a restartable init container); an empty map adds nothing."""
    m = make_pod("p").req(cpu="1").req({"example.com/gpu": "2"}).req().lim(memory="1Gi") \
        .res(cpu="2").init_req(cpu="3").sidecar_req(memory="1Gi").manifest()
    assert m["metadata"] == {"name": "p"}
    assert m["spec"]["containers"] == [
        {"name": "con0", "image": PAUSE, "resources": {"requests": {"cpu": "1"}}},
        {"name": "con1", "image": PAUSE, "resources": {"requests": {"example.com/gpu": "2"}}},
        {"name": "con2", "image": PAUSE, "resources": {"limits": {"memory": "1Gi"}}},
        {"name": "con3", "image": PAUSE,
         "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "2"}}}]
    assert list(m["spec"]["initContainers"][1]) == ["name", "image", "restartPolicy", "resources"]
    assert m["spec"]["initContainers"] == [
        {"name": "init-con0", "image": PAUSE,
         "resources": {"requests": {"cpu": "3"}, "limits": {"cpu": "3"}}},
        {"name": "sidecar-con1", "image": PAUSE, "restartPolicy": "Always",
         "resources": {"requests": {"memory": "1Gi"}, "limits": {"memory": "1Gi"}}}]


def test_pod_manifest_fields() -> None:
    m = make_pod("p").namespace("ns").uid("u1").label("app", "web").annotation("a", "b") \
        .creation_timestamp(1.5).owner_reference("rs") \
        .container(make_container("c").image("busybox").requests(cpu="100m")
                   .ports([container_port(80, host_port=8080, protocol="TCP")])) \
        .node("n1").priority(10).priority_class("high").preemption_policy("Never") \
        .scheduler_name("other").scheduling_gates("g1", "g2").node_selector({"disk": "ssd"}) \
        .toleration("dedicated", value="gpu").toleration(operator="Exists") \
        .overhead(cpu="10m").pod_level_req(memory="1Gi").start_time("2024-01-01T00:00:00Z") \
        .nominated_node_name("n2").manifest()
    assert m["metadata"] == {
        "name": "p", "namespace": "ns", "uid": "u1", "labels": {"app": "web"},
        "annotations": {"a": "b"}, "creationTimestamp": "1970-01-01T00:00:01.500000Z",
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
                             "uid": "uid-rs", "controller": True}]}
    assert m["spec"] == {
        "containers": [{"name": "c", "image": "busybox",
                        "resources": {"requests": {"cpu": "100m"}},
                        "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}]}],
        "nodeName": "n1", "priority": 10, "priorityClassName": "high",
        "preemptionPolicy": "Never", "schedulerName": "other",
        "schedulingGates": [{"name": "g1"}, {"name": "g2"}], "nodeSelector": {"disk": "ssd"},
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "gpu"},
                        {"operator": "Exists"}],
        "overhead": {"cpu": "10m"}, "resources": {"requests": {"memory": "1Gi"}}}
    assert m["status"] == {"startTime": "2024-01-01T00:00:00Z", "nominatedNodeName": "n2"}
    # the manifest is a copy: later calls do not change it
    w = make_pod("q")
    first = w.manifest()
    w.label("x", "y")
    assert "labels" not in first["metadata"]


def test_pod_affinity_and_spread() -> None:
    sel = label_selector({"app": "db"}, ("tier", "In", ["a", "b"]), ("x", "Exists"))
    assert sel == {"matchLabels": {"app": "db"}, "matchExpressions": [
        {"key": "tier", "operator": "In", "values": ["a", "b"]},
        {"key": "x", "operator": "Exists"}]}
    m = make_pod("p").node_affinity_in("zone", ["a"]).node_affinity_in("metadata.name", ["n1"],
                                                                       field=True) \
        .node_affinity_not_in("disk", ["hdd"]) \
        .node_affinity_term(node_selector_term(("gen", "Gt", ["4"])), weight=5) \
        .pod_affinity(ZONE, label_selector({"app": "db"}), REQUIRED_AND_PREFERRED) \
        .pod_anti_affinity(HOSTNAME, label_selector({"app": "web"}), PREFERRED) \
        .spread_constraint(1, ZONE, "DoNotSchedule", label_selector({"app": "web"}),
                           min_domains=2, match_label_keys=["rev"]).manifest()
    aff = m["spec"]["affinity"]
    assert aff["nodeAffinity"] == {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]},
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]},
            {"matchExpressions": [{"key": "disk", "operator": "NotIn", "values": ["hdd"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "preference": {"matchExpressions": [
                {"key": "gen", "operator": "Gt", "values": ["4"]}]}}]}
    term = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": ZONE}
    assert aff["podAffinity"] == {
        "requiredDuringSchedulingIgnoredDuringExecution": [term],
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "podAffinityTerm": term}]}
    assert list(aff["podAntiAffinity"]) == ["preferredDuringSchedulingIgnoredDuringExecution"]
    assert m["spec"]["topologySpreadConstraints"] == [
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}}, "minDomains": 2,
         "matchLabelKeys": ["rev"]}]
    assert pod_affinity_term(ZONE, None, namespaces=["a"], namespace_selector={}) == {
        "topologyKey": ZONE, "namespaces": ["a"], "namespaceSelector": {}}
    assert spread_constraint(2, HOSTNAME, "ScheduleAnyway") == {
        "maxSkew": 2, "topologyKey": HOSTNAME, "whenUnsatisfiable": "ScheduleAnyway"}


def test_pod_obj_through_the_loader() -> None:
    p = make_pod("p").labels({"a": "b"}).creation_timestamp(100.25).req(cpu="1", memory="1Gi") \
        .node("n1").priority(5).toleration("k").owner_reference("rs").terminating() \
        .pod_affinity(ZONE, label_selector({"app": "db"})).obj()
    assert (p.namespace, p.node_name, p.priority, p.creation_timestamp) == (
        "default", "n1", 5, 100.25)
    assert p.resources.requests == Resource(milli_cpu=1000, memory=1 << 30)
    assert p.tolerations == (Toleration("k", "Exists", "", "", None),)
    assert p.owner_references == (OwnerReference("apps/v1", "ReplicaSet", "rs", "uid-rs", True),)
    assert p.is_terminating and p.scheduler_name == "default-scheduler"
    term = p.affinity.pod_affinity.required[0]
    assert term.label_selector == LabelSelector((("app", "db"),), ())
    # init containers count by their maximum, sidecars add up (the loader's pod requests)
    q = make_pod("q").req(cpu="1").init_req(cpu="3").sidecar_req(cpu="500m").obj()
    assert q.resources.requests.milli_cpu == 3000
    assert q.host_ports == ()
    assert make_pod("h").host_port(8080).obj().host_ports[0].host_port == 8080


def test_pod_obj_with_its_priority_class() -> None:
    pc = make_priority_class("high", 1000).preemption_policy("Never")
    p = make_pod("p").priority_class("high").obj(pc, make_namespace("ns"))
    assert (p.priority, p.preemption_policy, p.priority_class_name) == (1000, "Never", "high")
    with pytest.raises(Exception, match="no PriorityClass with name 'high'"):
        make_pod("p").priority_class("high").obj()
    with pytest.raises(ValueError, match="terminal pod"):
        make_pod("p").phase("Succeeded").obj()


def test_policy_objects() -> None:
    pc = make_priority_class("low", 10).global_default()
    assert pc.manifest() == {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                             "metadata": {"name": "low"}, "value": 10, "globalDefault": True}
    assert pc.obj().global_default and pc.obj().value == 10
    ns = make_namespace("team").label("env", "prod")
    assert ns.manifest() == {"apiVersion": "v1", "kind": "Namespace",
                             "metadata": {"name": "team", "labels": {"env": "prod"}}}
    assert ns.obj().labels["env"] == "prod"
    pdb = make_pdb("db").namespace("ns").match_label("app", "db").min_available("50%") \
        .disruptions_allowed(1)
    assert pdb.manifest() == {
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "db", "namespace": "ns"},
        "spec": {"selector": {"matchLabels": {"app": "db"}}, "minAvailable": "50%"},
        "status": {"disruptionsAllowed": 1, "currentHealthy": 0, "desiredHealthy": 0,
                   "expectedPods": 0}}
    o = pdb.obj()
    assert (o.namespace, o.min_available, o.disruptions_allowed) == ("ns", "50%", 1)
    assert o.selector == LabelSelector((("app", "db"),), ())
    assert make_pdb("x").selector(label_selector(None, ("app", "Exists"))).obj().selector == \
        LabelSelector((), (LabelSelectorRequirement("app", "Exists", ()),))


def test_config_and_profiles() -> None:
    cfg = make_config().profile(
        make_profile().score_weight("ImageLocality", 20).disable("filter", "TaintToleration")
        .disable("score", "TaintToleration").plugin_args("NodeResourcesFit", {
            "scoringStrategy": {"type": "MostAllocated"}}).percentage_of_nodes_to_score(50)) \
        .profile(make_profile("other")).percentage_of_nodes_to_score(10) \
        .set(podInitialBackoffSeconds=2)
    assert cfg.manifest() == {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {"schedulerName": "default-scheduler",
             "plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 20}],
                                   "disabled": [{"name": "TaintToleration"}]},
                         "filter": {"disabled": [{"name": "TaintToleration"}]}},
             "pluginConfig": [{"name": "NodeResourcesFit",
                               "args": {"scoringStrategy": {"type": "MostAllocated"}}}],
             "percentageOfNodesToScore": 50},
            {"schedulerName": "other"}],
        "percentageOfNodesToScore": 10, "podInitialBackoffSeconds": 2}
    loaded = cfg.obj()
    assert [p.scheduler_name for p in loaded.profiles] == ["default-scheduler", "other"]
    assert loaded.pod_initial_backoff_seconds == 2


def test_timeline_with_wrapped_objects() -> None:
    t = make_timeline({"at": "1s", "action": "cordon", "node": "n1"}).name("s") \
        .event("2s", "createPod", pod=make_pod("late").req(cpu="1")) \
        .event(3, "createNode", node=make_node("n2")).until("10s")
    m = t.manifest()
    assert m["metadata"] == {"name": "s"} and m["spec"]["until"] == "10s"
    assert m["spec"]["events"][1] == {"at": "2s", "action": "createPod",
                                      "pod": make_pod("late").req(cpu="1").manifest()}
    assert make_timeline().manifest()["spec"] == {"events": []}
    s = t.obj()
    assert s.name == "s" and [e.action for e in s.events] == ["cordon", "createPod", "createNode"]
    assert s.events[1].pod.resources.requests.milli_cpu == 1000


def test_manifests_flattens_and_dumps_as_yaml() -> None:
    docs = manifests(make_node("n"), [make_pod("a"), {"kind": "X"}], (make_namespace("ns"),))
    assert [d["kind"] for d in docs] == ["Node", "Pod", "X", "Namespace"]
    tol = toleration("k", "NoExecute", value="v", seconds=30)
    assert tol == {"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute",
                   "tolerationSeconds": 30}
    # tuples become lists, so safe_dump can write every manifest
    text = yaml.safe_dump_all(manifests(make_pod("p").spec(tolerations=(tol,))))
    assert "tolerationSeconds: 30" in text


def test_workload_builders_write_the_manifests_controllers_read() -> None:
    tmpl = make_pod("ignored").namespace("ns").label("app", "web").req(cpu="100m")
    rs = make_replica_set("web").namespace("ns").selector({"app": "web"}).replicas(3) \
        .template(tmpl).manifest()
    assert rs["apiVersion"] == "apps/v1" and rs["kind"] == "ReplicaSet"
    assert rs["spec"]["selector"] == {"matchLabels": {"app": "web"}}
    assert rs["spec"]["replicas"] == 3
    # the template keeps labels and spec, never the pod's own name or namespace
    assert rs["spec"]["template"]["metadata"] == {"labels": {"app": "web"}}
    assert rs["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"] == {
        "cpu": "100m"}
    rc = make_replication_controller("old").selector({"app": "old"}).manifest()
    assert rc["apiVersion"] == "v1" and rc["spec"]["selector"] == {"app": "old"}
    with pytest.raises(ValueError):
        make_replication_controller("old").selector({"a": "b"}, ("k", "Exists"))
    assert make_job("j").replicas(2).manifest()["spec"] == {"parallelism": 2}
    with pytest.raises(ValueError):
        make_daemon_set("ds").replicas(1)
    svc = make_service("web").selector({"app": "web"}).port(80, 8080).manifest()
    assert svc["spec"] == {"selector": {"app": "web"},
                           "ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}]}
    assert "selector" not in make_service("x").selector({"a": "b"}).selector(None) \
        .manifest()["spec"]
