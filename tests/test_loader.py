"""The manifest loader: inputs it accepts, the model it builds, and the errors it reports.

Defaulting/admission cases cite the upstream code they follow (k8s v1.37.2):
pkg/apis/core/v1/defaults.go, pkg/api/pod/util.go (DefaultPodLevelResources),
pkg/registry/core/pod/strategy.go (mutatePodAffinity, mutateTopologySpreadConstraints),
plugin/pkg/admission/priority/admission.go.
"""

from __future__ import annotations

import json
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from reference_impl.model.errors import InputError
from reference_impl.model.loader import (
    LABEL_METADATA_NAME,
    load_documents,
    load_paths,
    load_pod_file,
)
from reference_impl.model.objects import (
    ContainerPort,
    LabelSelector,
    LabelSelectorRequirement,
    Resource,
    Taint,
    Toleration,
)
from reference_impl.testing.wrappers import (
    container_port,
    make_container,
    make_node,
    make_pod,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "reference_impl" / "examples" / "cluster.yaml"

# What `kubectl get nodes,pods -A -o yaml` prints (trimmed), including fields the loader ignores.
KUBECTL_DUMP = """\
apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      node.alpha.kubernetes.io/ttl: "0"
    creationTimestamp: "2025-03-01T10:00:00Z"
    labels:
      kubernetes.io/hostname: kind-worker
      topology.kubernetes.io/zone: z1
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata:
          f:labels: {}
      manager: kubelet
      operation: Update
      time: "2025-03-01T10:00:00Z"
    name: kind-worker
    resourceVersion: "1234"
    uid: 0b7c6a8e-0000-4000-8000-000000000001
  spec:
    podCIDR: 10.244.1.0/24
    taints:
    - effect: NoSchedule
      key: dedicated
      value: infra
  status:
    addresses:
    - address: 172.18.0.3
      type: InternalIP
    allocatable:
      cpu: "8"
      ephemeral-storage: 100Gi
      hugepages-2Mi: "0"
      memory: 16318340Ki
      pods: "110"
    capacity:
      cpu: "8"
      memory: 16420740Ki
      pods: "110"
    conditions:
    - lastHeartbeatTime: "2025-03-01T10:05:00Z"
      status: "True"
      type: Ready
    declaredFeatures:
    - FeatureA
    images:
    - names:
      - registry.k8s.io/etcd@sha256:abcd
      - registry.k8s.io/etcd:3.5.15-0
      sizeBytes: 56909194
    nodeInfo:
      kubeletVersion: v1.37.2
- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: "2025-03-01T10:01:02.5Z"
    generateName: coredns-5d78c9869d-
    labels:
      k8s-app: kube-dns
      pod-template-hash: 5d78c9869d
    name: coredns-5d78c9869d-abcde
    namespace: kube-system
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: ReplicaSet
      name: coredns-5d78c9869d
      uid: 11111111-2222-3333-4444-555555555555
    uid: 6a0b0f0e-0000-4000-8000-000000000002
  spec:
    containers:
    - image: registry.k8s.io/coredns/coredns:v1.11.1
      name: coredns
      ports:
      - containerPort: 53
        name: dns
        protocol: UDP
      resources:
        limits:
          memory: 170Mi
        requests:
          cpu: 100m
          memory: 70Mi
    nodeName: kind-worker
    preemptionPolicy: PreemptLowerPriority
    priority: 2000000000
    priorityClassName: system-cluster-critical
    schedulerName: default-scheduler
    tolerations:
    - key: CriticalAddonsOnly
      operator: Exists
    - effect: NoExecute
      key: node.kubernetes.io/not-ready
      operator: Exists
      tolerationSeconds: 300
  status:
    conditions:
    - lastProbeTime: null
      lastTransitionTime: "2025-03-01T10:01:03Z"
      status: "True"
      type: PodScheduled
    phase: Running
    startTime: "2025-03-01T10:01:03Z"
- apiVersion: v1
  kind: Pod
  metadata:
    name: job-done
    namespace: default
  spec:
    nodeName: gone-node
    containers:
    - name: c
      image: busybox
  status:
    phase: Succeeded
kind: List
metadata:
  resourceVersion: ""
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text) if not text.startswith("apiVersion: v1\nitems") else text)
    return str(p)


def load_yaml(tmp_path: Path, text: str, name: str = "in.yaml"):
    return load_paths([write(tmp_path, name, text)])


def error_of(tmp_path: Path, text: str, name: str = "in.yaml") -> InputError:
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as e:
        load_paths([path])
    return e.value


# --- good inputs ------------------------------------------------------------------------------

def test_kubectl_list_dump(tmp_path: Path) -> None:
    r = load_yaml(tmp_path, KUBECTL_DUMP)
    c = r.cluster
    assert [n.name for n in c.nodes] == ["kind-worker"]
    node = c.nodes[0]
    assert node.uid == "0b7c6a8e-0000-4000-8000-000000000001"
    assert node.labels["topology.kubernetes.io/zone"] == "z1"
    assert node.taints == (Taint("dedicated", "infra", "NoSchedule"),)
    assert node.allocatable == Resource(milli_cpu=8000, memory=16318340 * 1024,
                                        ephemeral_storage=100 << 30, allowed_pod_number=110,
                                        scalar={"hugepages-2Mi": 0})
    assert node.images[0].names == ("registry.k8s.io/etcd@sha256:abcd",
                                    "registry.k8s.io/etcd:3.5.15-0")
    assert node.images[0].size_bytes == 56909194
    assert node.declared_features == ("FeatureA",)

    # the Succeeded pod is dropped (even though its node is unknown), with a warning
    assert [p.key for p in c.pods] == ["kube-system/coredns-5d78c9869d-abcde"]
    assert any("Succeeded/Failed" in w for w in r.warnings)
    p = c.pods[0]
    assert p.node_name == "kind-worker"
    assert p.priority == 2_000_000_000
    assert p.priority_class_name == "system-cluster-critical"
    assert p.creation_timestamp == pytest.approx(1740823262.5)
    assert p.start_time == pytest.approx(1740823263.0)
    assert p.owner_references[0].kind == "ReplicaSet" and p.owner_references[0].controller
    assert p.tolerations == (
        Toleration("CriticalAddonsOnly", "Exists", "", "", None),
        Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300),
    )
    assert p.containers[0].ports == (ContainerPort(53, 0, "UDP", ""),)
    assert p.resources.requests == Resource(milli_cpu=100, memory=70 << 20)
    # system classes exist in every cluster; a referenced one is added
    assert c.priority_classes["system-cluster-critical"].value == 2_000_000_000
    assert c.namespaces["kube-system"].labels == {LABEL_METADATA_NAME: "kube-system"}


def test_multi_document_yaml_and_order(tmp_path: Path) -> None:
    r = load_yaml(tmp_path, """\
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        status: {capacity: {cpu: "2", memory: 4Gi, pods: "10"}}
        ---
        # an empty document is fine
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: b}
        spec: {containers: [{name: c}]}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: a, namespace: other}
        spec: {containers: [{name: c}], nodeName: n1}
        """)
    c = r.cluster
    # allocatable falls back to capacity (SetDefaults_NodeStatus)
    assert c.nodes[0].allocatable == Resource(milli_cpu=2000, memory=4 << 30,
                                              allowed_pod_number=10)
    assert [(p.key, p.order) for p in c.pods] == [("default/b", 0), ("other/a", 1)]
    assert c.pending_pods[0].name == "b" and c.running_pods[0].name == "a"
    assert r.warnings == []


def test_typed_lists_items_without_kind(tmp_path: Path) -> None:
    r = load_yaml(tmp_path, """\
        apiVersion: v1
        kind: NodeList
        items:
        - metadata: {name: n1}
        - metadata: {name: n2}
        ---
        apiVersion: v1
        kind: PodList
        items:
        - metadata: {name: p}
          spec: {containers: [{name: c}]}
        """)
    assert [n.name for n in r.cluster.nodes] == ["n1", "n2"]
    assert [n.order for n in r.cluster.nodes] == [0, 1]
    assert [p.name for p in r.cluster.pods] == ["p"]


def test_json_input_and_exact_json_numbers(tmp_path: Path) -> None:
    doc = {"apiVersion": "v1", "kind": "List", "items": [
        make_node("n1").capacity(cpu="4", memory="32Gi", pods=110).manifest(),
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
         "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": 0.5}}}]}},
    ]}
    text = json.dumps(doc).replace('"cpu": 0.5', '"cpu": 0.30000000000000001')
    path = write(tmp_path, "dump.json", text)
    r = load_paths([path])
    # The JSON text is parsed exactly (as Quantity.UnmarshalJSON does) and then rounded up to
    # milli by SetDefaults_ResourceList: 0.30000000000000001 -> 301m.
    assert r.cluster.pods[0].containers[0].requests == (("cpu", Fraction(301, 1000)),)
    assert r.cluster.pods[0].resources.requests.milli_cpu == 301


def test_yaml_numbers_as_quantities(tmp_path: Path) -> None:
    r = load_yaml(tmp_path, """\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
          - name: c
            resources: {requests: {cpu: 0.25, memory: 1073741824}}
        """)
    assert r.cluster.pods[0].resources.requests == Resource(milli_cpu=250, memory=1 << 30)


def test_directory_input(tmp_path: Path) -> None:
    d = tmp_path / "dir"
    d.mkdir()
    (d / "b.yaml").write_text(json.dumps(make_pod("p2").manifest()))
    (d / "a.json").write_text(json.dumps(make_pod("p1").manifest()))
    (d / "notes.txt").write_text("not a manifest")
    r = load_paths([str(d)])
    assert [p.name for p in r.cluster.pods] == ["p1", "p2"]


def test_example_cluster_loads_cleanly() -> None:
    r = load_paths([str(EXAMPLE)])
    c = r.cluster
    assert r.warnings == []
    assert len(c.nodes) == 6
    assert {n.labels["topology.kubernetes.io/zone"] for n in c.nodes} == {
        "zone-a", "zone-b", "zone-c"}
    assert len(c.running_pods) == 4 and len(c.pending_pods) == 10
    pods = {p.name: p for p in c.pods}
    assert pods["web-1"].priority == 1000
    assert pods["batch-1"].priority == -10 and pods["batch-1"].preemption_policy == "Never"
    assert pods["trainer"].tolerations[0].key == "dedicated"
    assert pods["trainer"].resources.requests.scalar == {"example.com/gpu": 1}
    assert pods["web-1"].topology_spread_constraints[0].max_skew == 1
    assert pods["web-1"].affinity.pod_anti_affinity.required[0].topology_key == \
        "kubernetes.io/hostname"
    assert pods["report"].affinity.node_affinity.preferred[0].weight == 50
    # sidecar + init container aggregation: max(2 (init), 1 + 0.25 (app + sidecar)) cpu
    assert pods["api-2"].resources.requests.milli_cpu == 2000
    assert pods["analytics"].resources.requests.milli_cpu == 2000
    assert pods["db-proxy"].host_ports == (ContainerPort(5432, 5432, "TCP", ""),)
    assert c.nodes[4].allocatable.milli_cpu == 4000  # node-c1: capacity only
    assert c.namespaces["shop"].labels == {"team": "web", LABEL_METADATA_NAME: "shop"}


# --- defaulting and admission -----------------------------------------------------------------

def test_requests_default_to_limits_and_round_up_to_milli() -> None:
    """defaults.go SetDefaults_Pod (requests from limits), SetDefaults_ResourceList (RoundUp
    to milli)."""
    p = make_pod("p").container(
        make_container("a").limits(cpu="1", memory="1Gi").requests(cpu="250m")).container(
        make_container("b").requests(cpu="0.5m", memory="100.5m")).obj()
    assert dict(p.containers[0].requests) == {"cpu": Fraction(1, 4), "memory": Fraction(1 << 30)}
    # 0.5m -> 1m per container, so the pod asks 250m + 1m
    assert dict(p.containers[1].requests) == {"cpu": Fraction(1, 1000),
                                              "memory": Fraction(101, 1000)}
    assert p.resources.requests.milli_cpu == 251
    assert p.resources.requests.memory == (1 << 30) + 1


def test_host_network_defaults_host_ports() -> None:
    """defaults.go defaultHostNetworkPorts."""
    p = make_pod("p").spec(hostNetwork=True).container(make_container().ports(
        [container_port(9100), container_port(53, protocol="UDP")])).obj()
    assert p.host_ports == (ContainerPort(9100, 9100, "TCP", ""), ContainerPort(53, 53, "UDP", ""))


def test_pod_level_requests_defaulting() -> None:
    """pod/util.go defaultPodLevelRequests: with only pod-level limits, pod-level requests are
    the container requests for cpu/memory, else the pod-level limits."""
    p = make_pod("p").spec(resources={"limits": {"cpu": "2", "memory": "4Gi"}}).container(
        make_container().requests(memory="1Gi")).obj()
    assert dict(p.pod_level_requests) == {"memory": Fraction(1 << 30), "cpu": Fraction(2)}
    assert p.resources.requests == Resource(milli_cpu=2000, memory=1 << 30)


def test_pod_level_hugepage_limits_defaulting() -> None:
    """pod/util.go defaultHugePagePodLevelLimits then defaultPodLevelRequests."""
    p = make_pod("p").pod_level_req(cpu="1").container(
        make_container().limits(hugepages_2Mi="4Mi")).obj()
    assert dict(p.pod_level_limits) == {"hugepages-2Mi": Fraction(4 << 20)}
    assert dict(p.pod_level_requests) == {"cpu": Fraction(1), "hugepages-2Mi": Fraction(4 << 20)}


def test_match_label_keys_merged_into_selectors() -> None:
    """strategy.go mutatePodAffinity / mutateTopologySpreadConstraints."""
    term = {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "web"}},
            "matchLabelKeys": ["rev"], "mismatchLabelKeys": ["team", "absent"]}
    tsc = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
           "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["rev"]}
    p = make_pod("p").labels({"app": "web", "rev": "7", "team": "a"}).pod_affinity_term(
        term).topology_spread_constraints([tsc]).obj()
    sel = p.affinity.pod_affinity.required[0].label_selector
    assert sel == LabelSelector((("app", "web"),), (
        LabelSelectorRequirement("rev", "In", ("7",)),
        LabelSelectorRequirement("team", "NotIn", ("a",))))
    assert p.affinity.pod_affinity.required[0].match_label_keys == ("rev",)
    assert p.topology_spread_constraints[0].label_selector == LabelSelector(
        (("app", "web"),), (LabelSelectorRequirement("rev", "In", ("7",)),))
    # a stored (already mutated) pod is not mutated twice
    term2 = dict(term, labelSelector={"matchLabels": {"app": "web"}, "matchExpressions": [
        {"key": "rev", "operator": "In", "values": ["7"]}]})
    p2 = make_pod("p").labels({"app": "web", "rev": "7"}).affinity({
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term2]}}).obj()
    assert len(p2.affinity.pod_affinity.required[0].label_selector.match_expressions) == 1


def test_priority_resolution() -> None:
    """admission/priority: spec.priority, else the class, else the lowest global default."""
    docs = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high"}, "value": 100, "preemptionPolicy": "Never"},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "def-b"}, "value": 7, "globalDefault": True},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "def-a"}, "value": 5, "globalDefault": True},
        make_pod("explicit").priority(42).manifest(),
        make_pod("by-class").priority_class("high").manifest(),
        make_pod("by-class-own-policy").priority_class("def-b").manifest(),
        make_pod("default").manifest(),
        make_pod("system").priority_class("system-node-critical").manifest(),
        make_pod("admitted").priority(100).priority_class("high").manifest(),
        make_pod("unknown-class-admitted").priority(3).priority_class("gone").manifest(),
    ]
    pods = {p.name: p for p in load_documents(docs).cluster.pods}
    assert pods["explicit"].priority == 42
    assert (pods["by-class"].priority, pods["by-class"].preemption_policy) == (100, "Never")
    assert pods["by-class-own-policy"].preemption_policy == "PreemptLowerPriority"
    assert (pods["default"].priority, pods["default"].priority_class_name) == (5, "def-a")
    assert pods["system"].priority == 2_000_001_000
    # a dump of admitted pods: spec.priority kept, the named class still gives the policy
    assert (pods["admitted"].priority, pods["admitted"].preemption_policy) == (100, "Never")
    assert pods["unknown-class-admitted"].priority == 3


def test_no_default_class_means_zero() -> None:
    p = make_pod("p").obj()
    assert (p.priority, p.priority_class_name, p.preemption_policy) == (
        0, "", "PreemptLowerPriority")


def test_namespaces_explicit_and_implicit() -> None:
    docs = [{"apiVersion": "v1", "kind": "Namespace",
             "metadata": {"name": "team-a", "labels": {"env": "prod"}}},
            make_pod("p1").namespace("team-a").manifest(),
            make_pod("p2").namespace("team-b").manifest()]
    ns = load_documents(docs).cluster.namespaces
    assert ns["team-a"].labels == {"env": "prod", LABEL_METADATA_NAME: "team-a"}
    assert ns["team-b"].labels == {LABEL_METADATA_NAME: "team-b"}


def test_config_scenario_pdb_and_ignored_kinds() -> None:
    cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": [{"schedulerName": "default-scheduler"}]}
    scenario = {"apiVersion": "kschedconf/v1", "kind": "Scenario", "steps": []}
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": "pdb", "namespace": "ns"},
           "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "x"}}},
           "status": {"disruptionsAllowed": 1}}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}
    r = load_documents([cfg, scenario, pdb, cm, cm | {"metadata": {"name": "cm2"}}, dep],
                       source="x.yaml")
    assert r.cluster.config == cfg
    assert r.scenario == scenario
    assert r.cluster.pdbs[0].min_available == "50%"
    assert r.cluster.pdbs[0].selector == LabelSelector((("app", "x"),), ())
    assert r.cluster.pdbs[0].disruptions_allowed == 1
    assert r.warnings == ["x.yaml: ignored 2 object(s) of kind ConfigMap (v1)",
                          "x.yaml: ignored 1 object(s) of kind Deployment (apps/v1)"]


def test_uids_are_kept_or_deterministic() -> None:
    a = make_pod("p").namespace("x").obj()
    b = make_pod("p").namespace("x").obj()
    c = make_pod("p").namespace("y").obj()
    assert a.uid == b.uid != c.uid
    assert make_pod("p").uid("abc").obj().uid == "abc"


def test_affinity_and_tolerations_conversion() -> None:
    affinity = {"nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "cpu", "operator": "Gt",
                                               "values": ["4"]}],
                         "matchFields": [{"key": "metadata.name", "operator": "In",
                                          "values": ["n1"]}]}]}},
                "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 10, "podAffinityTerm": {
                        "topologyKey": "zone", "namespaces": ["a"],
                        "namespaceSelector": {}, "labelSelector": None}}]}}
    p = make_pod("p").tolerations([{"key": "k", "value": "v", "effect": "NoSchedule"}]) \
        .node_selector({"disk": "ssd"}).affinity(affinity).obj()
    assert p.tolerations == (Toleration("k", "Equal", "v", "NoSchedule", None),)
    assert p.node_selector == {"disk": "ssd"}
    term = p.affinity.node_affinity.required.node_selector_terms[0]
    assert term.match_expressions[0].operator == "Gt"
    assert term.match_fields[0].values == ("n1",)
    assert p.affinity.pod_affinity is None
    w = p.affinity.pod_anti_affinity.preferred[0]
    assert w.weight == 10 and w.term.namespaces == ("a",)
    assert w.term.namespace_selector == LabelSelector() and w.term.label_selector is None


def test_other_pod_fields() -> None:
    p = make_pod("p").deletion_timestamp("2025-01-01T00:00:00Z").scheduling_gates("g1") \
        .scheduler_name("other").nominated_node_name("n9").overhead(cpu="10m").pvc("data") \
        .volume({"name": "e", "emptyDir": {}}) \
        .spec(resourceClaims=[{"name": "gpu", "resourceClaimName": "gpu-claim"}]) \
        .init_container(make_container("side").restart_policy("Always")).obj()
    assert p.scheduling_gates == ("g1",)
    assert p.scheduler_name == "other" and p.nominated_node_name == "n9"
    assert p.is_terminating and p.deletion_timestamp == 1735689600.0
    assert p.overhead == (("cpu", Fraction(1, 100)),)
    assert p.pvc_names == ("data",) and len(p.volumes) == 2
    assert p.resource_claims == ("gpu",)
    assert p.init_containers[0].restart_policy == "Always"
    assert make_pod("q").obj().scheduler_name == "default-scheduler"


def test_load_pod_file(tmp_path: Path) -> None:
    path = write(tmp_path, "pod.yaml", """\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}], priorityClassName: hi}
        """)
    base = load_documents([{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                            "metadata": {"name": "hi"}, "value": 10}]).cluster
    p = load_pod_file(path, base)
    assert (p.name, p.priority, p.resources.requests.milli_cpu) == ("p", 10, 1000)
    with pytest.raises(InputError, match="no PriorityClass with name 'hi'"):
        load_pod_file(path)
    two = write(tmp_path, "two.yaml", json.dumps(make_pod("a").manifest()) + "\n---\n"
                + json.dumps(make_pod("b").manifest()))
    with pytest.raises(InputError, match="expected exactly one Pod, found Pod a, Pod b"):
        load_pod_file(two)
    bound = write(tmp_path, "bound.yaml", json.dumps(make_pod("a").node("nx").manifest()))
    assert load_pod_file(bound).node_name == "nx"
    with pytest.raises(InputError, match="not among the input nodes"):
        load_pod_file(bound, base)


# --- errors -----------------------------------------------------------------------------------

def test_error_invalid_yaml(tmp_path: Path) -> None:
    e = error_of(tmp_path, "apiVersion: v1\nkind: Pod\nmetadata: {name: [}\n")
    assert e.source.endswith("in.yaml")
    assert "invalid YAML at line 3" in str(e)


def test_error_invalid_json(tmp_path: Path) -> None:
    e = error_of(tmp_path, '{"kind": "Pod",}', name="x.json")
    assert "invalid JSON at line 1" in str(e)


def test_error_not_a_mapping(tmp_path: Path) -> None:
    e = error_of(tmp_path, "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\n- a\n- b\n")
    assert e.document == 2
    assert "expected a mapping (a Kubernetes object), got list" in str(e)


def test_error_missing_kind_and_name(tmp_path: Path) -> None:
    e = error_of(tmp_path, "apiVersion: v1\nmetadata: {name: n}\n")
    assert e.field == "kind" and "required" in e.message
    e = error_of(tmp_path, "apiVersion: v1\nkind: List\nitems:\n- kind: Pod\n  metadata: {}\n")
    assert e.field == "items[0].metadata.name"
    assert "every Pod needs a name" in e.message


def test_error_invalid_quantity_names_everything(tmp_path: Path) -> None:
    e = error_of(tmp_path, """\
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: web, namespace: shop}
        spec:
          containers:
          - name: a
          - name: b
            resources: {requests: {cpu: 2 cores}}
        """)
    assert e.document == 2
    assert e.obj == "Pod shop/web"
    assert e.field == "spec.containers[1].resources.requests.cpu"
    text = str(e)
    assert text.startswith(f"{tmp_path / 'in.yaml'}, document 2: Pod shop/web: "
                           "spec.containers[1].resources.requests.cpu: invalid quantity")
    assert "'2 cores'" in text


def test_error_negative_quantity() -> None:
    with pytest.raises(InputError, match="must be greater than or equal to 0") as e:
        load_documents([make_node("n").capacity(cpu="-1").manifest()])
    assert e.value.field == "status.allocatable.cpu"


@pytest.mark.parametrize(("labels", "field", "text"), [
    ({"a": 1}, "metadata.labels[a]", "expected a string value, got integer 1"),
    ({"a": True}, "metadata.labels[a]", "got boolean True"),
    (["a"], "metadata.labels", "expected a mapping, got list"),
])
def test_error_labels_not_map_of_strings(labels: object, field: str, text: str) -> None:
    with pytest.raises(InputError) as e:
        load_documents([{"kind": "Node", "metadata": {"name": "n", "labels": labels}}])
    assert e.value.field == field and text in e.value.message
    assert e.value.obj == "Node n"


def test_error_wrong_types() -> None:
    with pytest.raises(InputError, match="expected an integer, got string '3'") as e:
        load_documents([make_pod("p").priority("3").manifest()])
    assert e.value.field == "spec.priority"
    with pytest.raises(InputError, match="expected a boolean") as e:
        load_documents([make_node("n").spec(unschedulable="yes").manifest()])
    assert e.value.field == "spec.unschedulable"
    with pytest.raises(InputError, match="expected a list, got mapping") as e:
        load_documents([make_pod("p").spec(tolerations=[], containers={"name": "c"}).manifest()])
    assert e.value.field == "spec.containers"
    with pytest.raises(InputError, match="expected an RFC 3339 timestamp"):
        load_documents([make_pod("p").creation_timestamp("yesterday").manifest()])


def test_error_taint_effect() -> None:
    with pytest.raises(InputError) as e:
        load_documents([make_node("n").taint("k", "NoRun").manifest()])
    assert e.value.field == "spec.taints[0].effect"
    assert 'expected one of "NoSchedule", "PreferNoSchedule", "NoExecute"' in e.value.message
    with pytest.raises(InputError, match="required"):
        load_documents([make_node("n").taints([{"key": "k"}]).manifest()])


@pytest.mark.parametrize(("tol", "field", "text"), [
    ({"key": "k", "operator": "Gt", "value": "1"}, "spec.tolerations[0].operator",
     'expected one of "Equal", "Exists"'),
    ({"operator": "Equal", "value": "v"}, "spec.tolerations[0].operator",
     "operator must be Exists when `key` is empty"),
    ({"key": "k", "operator": "Exists", "value": "v"}, "spec.tolerations[0].operator",
     "value must be empty when `operator` is 'Exists'"),
    ({"key": "k", "effect": "NoSchedule", "tolerationSeconds": 5}, "spec.tolerations[0].effect",
     "effect must be 'NoExecute' when `tolerationSeconds` is set"),
])
def test_error_tolerations(tol: dict, field: str, text: str) -> None:
    """Validation as pkg/apis/core/validation ValidateTolerations (comparison operators off)."""
    with pytest.raises(InputError) as e:
        load_documents([make_pod("p").tolerations([tol]).manifest()])
    assert e.value.field == field and text in e.value.message


def test_error_duplicate_object(tmp_path: Path) -> None:
    e = error_of(tmp_path, """\
        kind: Pod
        metadata: {name: p}
        spec: {containers: [{name: c}]}
        ---
        kind: Pod
        metadata: {name: p, namespace: default}
        spec: {containers: [{name: c}]}
        """)
    assert e.document == 2
    assert "duplicate object: Pod default/p was already defined in" in e.message
    assert "document 1" in e.message
    # same name in another namespace is fine
    load_documents([make_pod("p").manifest(), make_pod("p").namespace("x").manifest()])


def test_error_pod_bound_to_unknown_node() -> None:
    with pytest.raises(InputError) as e:
        load_documents([make_node("n1").manifest(), make_pod("p").node("n2").manifest()])
    assert e.value.field == "spec.nodeName"
    assert "bound to node 'n2', which is not among the input nodes" in e.value.message


def test_error_unknown_priority_class() -> None:
    with pytest.raises(InputError) as e:
        load_documents([make_pod("p").priority_class("gold").manifest()])
    assert e.value.field == "spec.priorityClassName"
    assert "no PriorityClass with name 'gold' was found" in e.value.message


def test_error_invalid_selector_operators() -> None:
    tsc = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Equals",
                                                   "values": ["x"]}]}}
    with pytest.raises(InputError) as e:
        load_documents([make_pod("p").topology_spread_constraints([tsc]).manifest()])
    assert e.value.field == "spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0]" \
                            ".operator"
    assert "'Equals' is not a valid label selector operator" in e.value.message
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Has"}]}]}}}
    with pytest.raises(InputError, match="'Has' is not a valid node selector operator"):
        load_documents([make_pod("p").affinity(aff).manifest()])
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": []}}}
    with pytest.raises(InputError, match="at least one node selector term"):
        load_documents([make_pod("p").affinity(aff).manifest()])


def test_error_topology_spread_fields() -> None:
    tsc = {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
    with pytest.raises(InputError, match="must be greater than zero"):
        load_documents([make_pod("p").topology_spread_constraints([tsc]).manifest()])
    tsc = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Maybe"}
    with pytest.raises(InputError, match='expected "DoNotSchedule" or "ScheduleAnyway"'):
        load_documents([make_pod("p").topology_spread_constraints([tsc]).manifest()])


def test_error_second_config_and_scenario() -> None:
    cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
    with pytest.raises(InputError, match="a second KubeSchedulerConfiguration"):
        load_documents([cfg, cfg])
    sc = {"apiVersion": "kschedconf/v1", "kind": "Scenario"}
    with pytest.raises(InputError, match="a second kschedconf/v1 document"):
        load_documents([sc, sc])


def test_a_scenario_file_loads_with_its_metadata_and_decisions_passed_over() -> None:
    """A counterexample or golden file (docs/golden.md) loads as a cluster: its ScenarioInfo
    and GoldenDecisions documents are not cluster objects, and a warning says so."""
    info = {"apiVersion": "kschedconf/v1", "kind": "ScenarioInfo", "name": "fit/x", "seed": 3}
    decisions = {"apiVersion": "kschedconf/v1", "kind": "GoldenDecisions",
                 "bindings": {}, "pending": ["default/p"]}
    timeline = {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": []}}
    loaded = load_documents([info, make_node("n1").manifest(), make_pod("p").manifest(),
                             timeline, decisions], source="f.yaml")
    assert [p.key for p in loaded.cluster.pods] == ["default/p"]
    assert loaded.scenario == timeline
    assert loaded.warnings == [
        "f.yaml, document 1: ignored the ScenarioInfo document (the scenario's name, seed and "
        "notes)",
        "f.yaml, document 5: ignored the GoldenDecisions document (the decisions recorded from "
        "upstream; kschedconf reproduce compares them)"]


def test_error_unsupported_pod_level_resource() -> None:
    with pytest.raises(InputError, match="unsupported pod-level resource") as e:
        load_documents([make_pod("p").pod_level_req(ephemeral_storage="1Gi").manifest()])
    assert e.value.field == "spec.resources.requests[ephemeral-storage]"


def test_all_or_nothing(tmp_path: Path) -> None:
    good = write(tmp_path, "good.yaml", json.dumps(make_node("n1").manifest()))
    bad = write(tmp_path, "bad.yaml", "kind: Node\nmetadata: {name: n2, labels: {a: 1}}\n")
    with pytest.raises(InputError) as e:
        load_paths([good, bad])
    assert e.value.source == bad and e.value.exit_code == 2


def test_error_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read file"):
        load_paths([str(tmp_path / "missing.yaml")])


def test_raw_documents_are_plain_data(tmp_path: Path) -> None:
    """Documents kept raw (config, scenario, volumes) hold plain JSON/YAML types, so they can
    be serialised again."""
    cfg = ('{"apiVersion": "kubescheduler.config.k8s.io/v1", '
           '"kind": "KubeSchedulerConfiguration", "x": 0.5}')
    r = load_paths([write(tmp_path, "cfg.json", cfg)])
    assert type(r.cluster.config["x"]) is float
    assert "x: 0.5" in yaml.safe_dump(r.cluster.config)


def test_global_default_class_applies_to_a_pod_with_explicit_priority() -> None:
    """plugin/pkg/admission/priority/admission.go: a pod without priorityClassName gets the
    global default class (name and preemptionPolicy) even when it states spec.priority.
    (Found by tests/test_strategies.py on generated scenarios.)"""
    from reference_impl.model.loader import load_documents

    docs = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": "low"}, "value": -10, "globalDefault": True,
             "preemptionPolicy": "Never"},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
             "spec": {"priority": -10, "containers": [{"name": "c"}]}}]
    (pod,) = load_documents(docs, require_known_nodes=False).cluster.pods
    assert (pod.priority, pod.priority_class_name, pod.preemption_policy) == (
        -10, "low", "Never")
