"""Admission for pods from manifests (reference_impl/model/loader/admission/): LimitRanger,
DefaultTolerationSeconds and RuntimeClass as the API server of v1.37.2 applies them, restating
the cases of upstream's unit tests (plugin/pkg/admission/*/admission_test.go), the dump pods
taken as they are, the --admission modes and what simulate --trace and explain list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conformance.cli.main import main
from conformance.core.documents import schema
from reference_impl.model.errors import InputError
from reference_impl.model.loader import load_documents, load_paths
from reference_impl.model.loader.admission import Admission, admit_documents, is_dump_pod
from reference_impl.model.loader.admission.runtimeclass import merge_tolerations
from reference_impl.model.quantity import format_quantity
from reference_impl.model.requests import pod_requests
from reference_impl.scheduler.explain import explain
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.testing.wrappers import (
    make_container,
    make_limit_range,
    make_node,
    make_pod,
    make_runtime_class,
    manifests,
    toleration,
)

NOT_READY = {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
             "effect": "NoExecute", "tolerationSeconds": 300}
UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
               "effect": "NoExecute", "tolerationSeconds": 300}


def admit(*objects: object, mode: str = "auto") -> Admission:
    docs = [("<test>", i, d) for i, d in enumerate(manifests(*objects), start=1)]
    return admit_documents(docs, mode)


def pods_of(adm: Admission) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for _, _, d in adm.documents if d.get("kind") == "Pod"}


def container(name: str = "c", requests: dict[str, str] | None = None,
              limits: dict[str, str] | None = None) -> dict[str, Any]:
    c = make_container(name)
    if requests:
        c.requests(requests)
    if limits:
        c.limits(limits)
    return c.manifest()


def resources(pod: dict[str, Any], i: int = 0, init: bool = False) -> dict[str, Any]:
    field = "initContainers" if init else "containers"
    res: dict[str, Any] = pod["spec"][field][i].get("resources", {})
    return res


# --- LimitRanger: defaults (TestMergePodResourceRequirements, TestPodLimitFuncApplyDefault) ---

LIMITS = make_limit_range("abc").item(
    "Container", default={"cpu": "100m", "memory": "1Gi"},
    default_request={"cpu": "50m", "memory": "500Mi"})


def test_limitranger_defaults_every_resource_of_an_empty_container() -> None:
    pod = pods_of(admit(LIMITS, make_pod("empty").container(container("foo-0"))))["empty"]
    assert resources(pod) == {"limits": {"cpu": "100m", "memory": "1Gi"},
                              "requests": {"cpu": "50m", "memory": "500Mi"}}
    assert pod["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu, memory request for container foo-0; "
        "cpu, memory limit for container foo-0")


def test_limitranger_merges_only_what_the_container_leaves_empty() -> None:
    pod = make_pod("limit-memory").container(container("foo-0", requests={"memory": "512Mi"}))
    pod.init_container(container("init-0", requests={"memory": "512Mi"}))
    got = pods_of(admit(LIMITS, pod))["limit-memory"]
    want = {"limits": {"cpu": "100m", "memory": "1Gi"},
            "requests": {"memory": "512Mi", "cpu": "50m"}}
    assert resources(got) == want and resources(got, init=True) == want
    assert got["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu request for container foo-0; cpu, memory limit for "
        "container foo-0; cpu request for init container init-0; cpu, memory limit for init "
        "container init-0")


def test_limitranger_leaves_a_fully_specified_pod_alone() -> None:
    pod = make_pod("full").container(container("c", {"cpu": "100m", "memory": "512Mi"},
                                               {"cpu": "200m", "memory": "1G"}))
    adm = admit(LIMITS, pod)
    assert "annotations" not in pods_of(adm)["full"]["metadata"]
    assert [a.plugin for a in adm.applied] == ["DefaultTolerationSeconds"] * 2


def test_the_request_defaults_to_the_limit_before_limitranger_runs() -> None:
    """SetDefaults_Pod runs when the API server decodes the pod: a container with a cpu limit
    and no request gets request = limit, not the LimitRange's defaultRequest."""
    pod = make_pod("lim").container(container("c", limits={"cpu": "1"}))
    got = resources(pods_of(admit(LIMITS, pod))["lim"])
    assert got["requests"] == {"cpu": "1", "memory": "500Mi"}
    assert got["limits"] == {"cpu": "1", "memory": "1Gi"}


def test_limit_range_defaulting_fills_default_from_max_and_request_from_default() -> None:
    """SetDefaults_LimitRangeItem: default <- max, defaultRequest <- default, then <- min."""
    lr = make_limit_range("lr").item("Container", max={"cpu": "2"}, min={"memory": "64Mi"})
    got = resources(pods_of(admit(lr, make_pod("p").container(container())))["p"])
    assert got == {"limits": {"cpu": "2"}, "requests": {"cpu": "2", "memory": "64Mi"}}


def test_limit_ranges_apply_only_in_their_namespace() -> None:
    lr = make_limit_range("lr").namespace("team").item("Container", default={"cpu": "1"})
    adm = admit(lr, make_pod("here").namespace("team").container(container()),
                make_pod("there").container(container()))
    assert resources(pods_of(adm)["here"])["limits"] == {"cpu": "1"}
    assert "limits" not in resources(pods_of(adm)["there"])


def test_the_scheduler_sees_the_defaulted_requests() -> None:
    docs = admit(LIMITS, make_pod("p").container(container())).documents
    pod = load_documents([d for _, _, d in docs]).cluster.pods[0]
    assert pod_requests(pod)["cpu"] * 1000 == 50
    assert pod_requests(pod)["memory"] == 500 * 2**20


# --- LimitRanger: validation (TestPodLimitFunc), upstream's error text ---

@pytest.mark.parametrize(("item", "ctr", "message"), [
    (dict(max={"cpu": "1"}), container("c", limits={"cpu": "2"}),
     "maximum cpu usage per Container is 1, but limit is 2"),
    # the max is the default limit too (SetDefaults_LimitRangeItem): the request is over it
    (dict(max={"cpu": "1"}), container("c", requests={"cpu": "1500m"}),
     "maximum cpu usage per Container is 1, but request is 1500m"),
    (dict(min={"memory": "1Gi"}), container("c", requests={"memory": "512Mi"}),
     "minimum memory usage per Container is 1Gi, but request is 512Mi"),
    (dict(ratio={"cpu": "2"}), container("c", {"cpu": "100m"}, {"cpu": "500m"}),
     "cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000"),
])
def test_limitranger_rejects_a_pod_outside_the_limits(item: dict[str, Any], ctr: dict[str, Any],
                                                      message: str) -> None:
    lr = make_limit_range("bounds").item("Container", **item)
    with pytest.raises(InputError) as e:
        admit(lr, make_pod("web").container(ctr))
    assert f'pods "web" is forbidden: {message} (admission plugin LimitRanger, ' \
           "LimitRange default/bounds" in str(e.value)
    assert "Pod default/web" in str(e.value) and "--admission never" in str(e.value)


def test_limitranger_accepts_a_pod_within_the_limits() -> None:
    lr = make_limit_range("ok").item("Container", min={"cpu": "50m"}, max={"cpu": "1"},
                                     ratio={"cpu": "4"})
    admit(lr, make_pod("fits").container(container("c", {"cpu": "100m"}, {"cpu": "400m"})))


def test_limitranger_pod_limits_add_up_the_containers() -> None:
    lr = make_limit_range("pod-max").item("Pod", max={"cpu": "1"})
    pod = make_pod("two").container(container("a", limits={"cpu": "600m"}))
    pod.container(container("b", limits={"cpu": "600m"}))
    with pytest.raises(InputError, match="maximum cpu usage per Pod is 1, but limit is 1200m"):
        admit(lr, pod)


def test_pod_sums_are_written_as_upstream_writes_them() -> None:
    """A sum keeps its first term's format: 768Mi + 768Mi is 1536Mi, 1Gi + 512Mi is 1536Mi."""
    lr = make_limit_range("pod-max").item("Pod", max={"memory": "1Gi"})
    pod = make_pod("two").container(container("a", limits={"memory": "768Mi"}))
    pod.container(container("b", limits={"memory": "768Mi"}))
    with pytest.raises(InputError, match="maximum memory usage per Pod is 1Gi, but limit is "
                                         "1536Mi"):
        admit(lr, pod)


def test_a_pod_max_needs_limits() -> None:
    lr = make_limit_range("pod-max").item("Pod", max={"memory": "1Gi"})
    with pytest.raises(InputError, match="maximum memory usage per Pod is 1Gi.  No limit is "
                                         "specified"):
        admit(lr, make_pod("p").container(container("c", requests={"memory": "1Mi"})))


def test_several_violations_are_aggregated_in_brackets() -> None:
    lr = make_limit_range("lr").item("Container", max={"cpu": "1", "memory": "1Gi"})
    pod = make_pod("big").container(container("c", limits={"cpu": "2", "memory": "2Gi"}))
    with pytest.raises(InputError, match=r"forbidden: \[maximum cpu usage per Container is 1, "
                                         r"but limit is 2, maximum memory usage per Container "
                                         r"is 1Gi, but limit is 2Gi\]"):
        admit(lr, pod)


# --- DefaultTolerationSeconds (defaulttolerationseconds/admission_test.go) ---

@pytest.mark.parametrize(("given", "added"), [
    ([], [NOT_READY, UNREACHABLE]),
    ([toleration("foo", "NoSchedule", value="bar")], [NOT_READY, UNREACHABLE]),
    ([toleration("node.kubernetes.io/not-ready", "NoExecute", operator="Exists",
                 seconds=700)], [UNREACHABLE]),
    ([toleration("node.kubernetes.io/unreachable", "NoExecute", operator="Exists",
                 seconds=700)], [NOT_READY]),
    ([toleration("node.kubernetes.io/not-ready", "NoExecute", operator="Exists"),
      toleration("node.kubernetes.io/unreachable", "NoExecute", operator="Exists")], []),
    ([toleration("node.kubernetes.io/unreachable", operator="Exists")], [NOT_READY]),
    ([{"operator": "Exists"}], []),
])
def test_default_toleration_seconds(given: list[dict[str, Any]],
                                    added: list[dict[str, Any]]) -> None:
    pod = make_pod("p").container(container()).tolerations(given)
    got = pods_of(admit(pod))["p"]["spec"].get("tolerations", [])
    assert got == [*given, *added]


def test_default_tolerations_let_a_pod_onto_a_not_ready_node() -> None:
    node = make_node("n").capacity(cpu="1").taint("node.kubernetes.io/not-ready", "NoExecute")
    docs = [d for _, _, d in admit(node, make_pod("p").container(container())).documents]
    cluster = load_documents(docs).cluster
    assert explain(Scheduler(cluster), cluster.pods[0]).selected == "n"
    raw = load_documents([node.manifest(), make_pod("p").container(container()).manifest()])
    assert explain(Scheduler(raw.cluster), raw.cluster.pods[0]).selected is None


# --- RuntimeClass (runtimeclass/admission_test.go) ---

KATA = make_runtime_class("kata").overhead({"cpu": "100m", "memory": "10Mi"})


def test_runtime_class_sets_the_overhead() -> None:
    adm = admit(KATA, make_pod("p").container(container()).runtime_class("kata"))
    assert pods_of(adm)["p"]["spec"]["overhead"] == {"cpu": "100m", "memory": "10Mi"}
    assert ("RuntimeClass", "spec.overhead") in {(a.plugin, a.field) for a in adm.applied}


def test_runtime_class_accepts_the_same_overhead_and_rejects_another() -> None:
    same = make_pod("same").container(container()).runtime_class("kata")
    admit(KATA, same.overhead(cpu="100m", memory="10Mi"))
    other = make_pod("other").container(container()).runtime_class("kata")
    with pytest.raises(InputError, match="pod rejected: Pod's Overhead doesn't match "
                                         "RuntimeClass's defined Overhead"):
        admit(KATA, other.overhead(cpu="1"))


def test_an_overhead_without_a_runtime_class_is_rejected() -> None:
    with pytest.raises(InputError, match='pods "p" is forbidden: pod rejected: Pod Overhead '
                                         "set without corresponding RuntimeClass defined "
                                         "Overhead"):
        admit(make_pod("p").container(container()).overhead(cpu="1"))


def test_an_unknown_runtime_class_is_rejected() -> None:
    with pytest.raises(InputError, match='pod rejected: RuntimeClass "gvisor" not found'):
        admit(make_pod("p").container(container()).runtime_class("gvisor"))


@pytest.mark.parametrize(("class_selector", "pod_selector", "want"), [
    ({"foo": "bar"}, None, {"foo": "bar"}),
    ({"foo": "bar"}, {"foo": "bar"}, {"foo": "bar"}),
    ({"foo": "bar", "fizz": "buzz"}, {"foo": "bar"}, {"foo": "bar", "fizz": "buzz"}),
])
def test_runtime_class_merges_its_node_selector(class_selector: dict[str, str],
                                                pod_selector: dict[str, str] | None,
                                                want: dict[str, str]) -> None:
    pod = make_pod("p").container(container()).runtime_class("rc")
    if pod_selector:
        pod.node_selector(pod_selector)
    got = pods_of(admit(make_runtime_class("rc").node_selector(class_selector), pod))["p"]
    assert got["spec"]["nodeSelector"] == want


def test_a_node_selector_conflict_is_rejected() -> None:
    pod = make_pod("p").container(container()).runtime_class("rc").node_selector({"foo": "bar"})
    with pytest.raises(InputError, match=r"conflict: runtimeClass.scheduling.nodeSelector\[foo\]"
                                         r" = conflict; pod.spec.nodeSelector\[foo\] = bar"):
        admit(make_runtime_class("rc").node_selector({"foo": "conflict"}), pod)


def test_runtime_class_merges_its_tolerations_after_the_default_ones() -> None:
    foo = {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}
    fizz = {"key": "fizz", "operator": "Equal", "value": "buzz", "effect": "NoSchedule"}
    rc = make_runtime_class("rc").toleration(foo).toleration(fizz)
    pod = make_pod("p").container(container()).runtime_class("rc").tolerations([foo])
    got = pods_of(admit(rc, pod))["p"]["spec"]["tolerations"]
    assert got == [foo, NOT_READY, UNREACHABLE, fizz]


def test_merge_tolerations_drops_the_covered_ones() -> None:
    """pkg/util/tolerations/tolerations_test.go: a toleration another one covers goes."""
    exists_all = {"operator": "Exists"}
    specific = {"key": "a", "operator": "Equal", "value": "x", "effect": "NoSchedule"}
    assert merge_tolerations([specific], [exists_all]) == [exists_all]
    short = {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}
    long = {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 100}
    assert merge_tolerations([short], [long]) == [long]


# --- dumps, modes ---

def test_dump_pods_are_taken_as_they_are() -> None:
    dumped = make_pod("old").uid("u-1").container(container())
    with_status = make_pod("running").container(container()).phase("Running")
    fresh = make_pod("new").container(container())
    adm = admit(LIMITS, dumped, with_status, fresh)
    assert adm.admitted == 1 and adm.taken_as_they_are == 2
    assert {a.pod for a in adm.applied} == {"default/new"}
    assert is_dump_pod(dumped.manifest()) and not is_dump_pod(fresh.manifest())
    always = admit(LIMITS, dumped, with_status, fresh, mode="always")
    assert {a.pod for a in always.applied} == {"default/old", "default/running", "default/new"}
    never = admit(LIMITS, fresh, mode="never")
    assert never.applied == [] and pods_of(never)["new"] == fresh.manifest()


def test_pods_inside_a_list_are_admitted_in_place() -> None:
    lst = {"apiVersion": "v1", "kind": "List",
           "items": [LIMITS.manifest(), make_pod("p").container(container()).manifest()]}
    adm = admit_documents([("<test>", 1, lst)], "auto")
    item = adm.documents[0][2]["items"][1]
    assert resources(item)["limits"] == {"cpu": "100m", "memory": "1Gi"}
    assert "limits" not in lst["items"][1]["spec"]["containers"][0].get("resources", {})


def test_a_bad_limit_range_is_a_clear_error() -> None:
    bad = make_limit_range("bad").item("Container", max={"cpu": "lots"})
    with pytest.raises(InputError, match=r"LimitRange default/bad.*spec.limits\[0\].max.cpu"):
        admit(bad)


def test_format_quantity_is_upstreams_canonical_form() -> None:
    assert [format_quantity(q) for q in ("1000m", "2048Mi", "1500m", "0.5", "1.5Gi", "1e3",
                                         "512", 2)] == ["1", "2Gi", "1500m", "500m", "1536Mi",
                                                        "1e3", "512", "2"]


# --- the command line ---

def write(tmp_path: Path, *objects: object) -> Path:
    p = tmp_path / "cluster.yaml"
    p.write_text(yaml.safe_dump_all(manifests(*objects)))
    return p


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def cluster_with_runtime_class(tmp_path: Path) -> Path:
    rc = make_runtime_class("kata").overhead({"cpu": "500m"}).node_selector({"sandbox": "yes"})
    return write(tmp_path,
                 make_node("plain").capacity(cpu="2", memory="4Gi"),
                 make_node("sandbox").capacity(cpu="2", memory="4Gi").label("sandbox", "yes"),
                 rc, LIMITS, make_pod("web").container(container()).runtime_class("kata"))


def test_simulate_trace_lists_the_defaults_and_the_pod_lands_on_the_class_nodes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = cluster_with_runtime_class(tmp_path)
    code, out, err = run(capsys, "simulate", str(path), "--trace", "-o", "json")
    assert code == 0
    doc = json.loads(out)
    jsonschema.validate(doc, schema("SimulationResult"))
    assert doc["bindings"] == {"default/web": "sandbox"}
    plugins = {a["plugin"] for a in doc["admission"]}
    assert plugins == {"LimitRanger", "DefaultTolerationSeconds", "RuntimeClass"}
    assert "admission (auto): 9 default(s) applied to 1 pod(s)" in err
    code, out, _ = run(capsys, "simulate", str(path), "-o", "json")
    assert "admission" not in json.loads(out)


def test_admission_never_takes_the_pod_as_it_is(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = cluster_with_runtime_class(tmp_path)
    code, out, err = run(capsys, "simulate", str(path), "--admission", "never", "--trace",
                         "-o", "json")
    doc = json.loads(out)
    assert doc["admission"] == []
    assert doc["bindings"]["default/web"] in ("plain", "sandbox")
    assert "1 LimitRange(s), 1 RuntimeClass(s) not applied" in err


def test_explain_has_an_admission_section(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = cluster_with_runtime_class(tmp_path)
    code, out, _ = run(capsys, "explain", str(path), "--pod-name", "default/web", "-o", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, schema("Explanation"))
    fields = [a["field"] for a in doc["admission"]]
    assert "spec.overhead" in fields and "spec.nodeSelector[sandbox]" in fields
    pod_file = tmp_path / "pod.yaml"
    pod_file.write_text(yaml.safe_dump(make_pod("solo").container(container()).manifest()))
    code, out, _ = run(capsys, "explain", str(path), "--pod", str(pod_file), "-o", "table")
    assert "Admission (defaults applied before scheduling)" in out
    assert "spec.containers[0].resources.requests.cpu" in out


def test_a_rejected_pod_is_an_input_error(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    lr = make_limit_range("small").item("Container", max={"cpu": "1"})
    path = write(tmp_path, make_node("n").capacity(cpu="4"), lr,
                 make_pod("big").container(container("c", limits={"cpu": "2"})))
    code, _, err = run(capsys, "simulate", str(path))
    assert code == 2
    assert 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2' in err
    assert run(capsys, "simulate", str(path), "--admission", "never", "-o", "json")[0] == 0


def test_load_paths_admits_only_when_asked(tmp_path: Path) -> None:
    path = write(tmp_path, LIMITS, make_pod("p").container(container()))
    assert load_paths([path]).admission is not None
    assert load_paths([path]).admission.applied == []  # type: ignore[union-attr]
    assert len(load_paths([path], admission="auto").admission.applied) == 7  # type: ignore[union-attr]


def test_pods_without_a_name_are_left_to_the_loader() -> None:
    nameless = {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "web-"},
                "spec": {"containers": [{"name": "c"}]}}
    adm = admit(LIMITS, nameless)
    assert {a.pod for a in adm.applied} == {"default/web-"}
    unnamed = {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": {}}
    assert admit(unnamed).applied == []
    with pytest.raises(InputError, match="metadata.name"):
        load_documents([unnamed])
