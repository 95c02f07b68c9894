"""The upstream subject of every supported release (``upstream/build.sh --release vX.Y.Z``,
docs/releases.md#building-the-upstream-subject-of-another-release): each built binary links its
release, reports that release's feature gates, and schedules and explains through
``--subject upstream@vX.Y.Z``. A release whose binary is not built is skipped with the build
command.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from conformance.core.errors import UsageError
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectError
from conformance.subjects.factory import make_subject
from conformance.subjects.upstream import (
    BINARY_DIR_ENV,
    BINARY_ENV,
    UpstreamSubject,
    binary_available,
    build_hint,
    default_binary,
)
from reference_impl.releases import load, supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from reference_impl.testing.storage import make_pv, make_pvc
from reference_impl.testing.wrappers import make_container, make_node, make_pod

RELEASES = supported_releases()


def _binary(release: str) -> Path:
    binary = default_binary(release)
    if not binary_available(binary):
        pytest.skip(f"no upstream subject binary of {release} ({binary}): {build_hint(release)}")
    return binary


def _node(name: str, cpu: str) -> dict[str, Any]:
    return make_node(name).allocatable(cpu=cpu, memory="8Gi", pods="110").manifest()


def _pod(name: str, cpu: str) -> dict[str, Any]:
    p = make_pod(name).namespace("default")
    p.container(make_container("c").image("registry.k8s.io/pause").requests(cpu=cpu))
    return p.manifest()


@pytest.mark.parametrize("release", RELEASES)
def test_each_binary_links_its_release_and_reports_its_gates(release: str) -> None:
    binary = _binary(release)
    version = subprocess.run([str(binary), "version"], capture_output=True, text=True,
                             check=True).stdout.strip()
    assert version == release
    out = subprocess.run([str(binary), "features"], capture_output=True, text=True,
                         check=True).stdout
    reported = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    gates = load(release).feature_gates
    assert set(gates) <= set(reported)
    assert {g: reported[g] == "true" for g in gates} == dict(gates)


@pytest.mark.parametrize("release", RELEASES)
def test_each_release_schedules_and_explains_a_small_scenario(release: str) -> None:
    _binary(release)
    # n2 has the most free cpu for both pods (LeastAllocated, every release's default).
    docs = [_node("n1", "2"), _node("n2", "4"), _pod("p1", "1"), _pod("p2", "3")]
    with make_subject(f"upstream@{release}") as up:
        assert isinstance(up, UpstreamSubject) and up.release == release
        assert up.describe()["upstreamRelease"] == release
        res = up.run(ScenarioInput(docs, release=release)).result
        assert res["bindings"] == {"default/p1": "n2", "default/p2": "n2"}
        e = up.explain(ScenarioInput(docs, release=release), "default/p1")
    assert e["upstreamRelease"] == release and e["selected"] == "n2"
    fit = {n["name"]: s for n in e["nodes"] for s in n["scores"]
           if s["plugin"] == "NodeResourcesFit"}
    assert set(fit) == {"n1", "n2"}
    for s in fit.values():
        # NodeResourcesFit has no NormalizeScore: its raw score is its normalized one (before
        # v1.37 the subject asks the plugin for the raw score itself).
        assert s["raw"] == s["normalized"] > 0
    assert fit["n2"]["raw"] > fit["n1"]["raw"]


@pytest.mark.parametrize("release", RELEASES)
def test_each_release_explains_a_pod_with_a_bound_claim(release: str) -> None:
    """Explain's own framework gets the claims and volumes: before v1.35 VolumeBinding's assume
    caches are fed by informer event handlers that its New adds (the subject waits for them),
    so PreFilter finds the claim and every Filter plugin is asked on every node."""
    _binary(release)
    pod = make_pod("p").namespace("default").pvc("data")
    pod.container(make_container("c").image("registry.k8s.io/pause").requests(cpu="1"))
    docs = [_node("n1", "2"), _node("n2", "4"),
            make_pv("pv-data").capacity("1Gi").access_modes("ReadWriteOnce")
            .host_path("/data").claim_ref("default", "data").phase("Bound").manifest(),
            make_pvc("data").request("1Gi").access_modes("ReadWriteOnce").no_class()
            .bound_to("pv-data").annotation("pv.kubernetes.io/bind-completed", "yes").manifest(),
            pod.manifest()]
    with make_subject(f"upstream@{release}") as up:
        e = up.explain(ScenarioInput(docs, release=release), "default/p")
    binding = {v["plugin"]: v for v in e["preFilter"]}["VolumeBinding"]
    assert binding["code"] == "Success", binding
    assert e["selected"] == "n2"
    assert {n["name"] for n in e["nodes"]} == {"n1", "n2"}
    for n in e["nodes"]:
        filters = {v["plugin"]: v["code"] for v in n["filters"]}
        assert filters.get("VolumeBinding") == "Success", (n["name"], filters)


def test_the_binary_of_a_release_and_the_overrides(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    other = next(r for r in RELEASES if r != UPSTREAM_RELEASE)
    monkeypatch.delenv(BINARY_ENV, raising=False)
    monkeypatch.setenv(BINARY_DIR_ENV, str(tmp_path))
    assert default_binary() == tmp_path / "kschedconf-upstream"
    assert default_binary(UPSTREAM_RELEASE) == tmp_path / "kschedconf-upstream"
    assert default_binary(other) == tmp_path / other / "kschedconf-upstream"
    # KSCHEDCONF_UPSTREAM_BINARY names the pinned release's binary only.
    monkeypatch.setenv(BINARY_ENV, str(tmp_path / "mine"))
    assert default_binary() == tmp_path / "mine"
    assert default_binary(other) == tmp_path / other / "kschedconf-upstream"
    with pytest.raises(SubjectError, match=f"upstream/build.sh --release {other}`"):
        UpstreamSubject(release=other)
    with pytest.raises(SubjectError, match=f"upstream/build.sh --release {other}`"):
        make_subject(f"upstream@{other}")


def test_a_binary_of_another_release_is_refused(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    other = next(r for r in RELEASES if r != UPSTREAM_RELEASE)
    fake = tmp_path / other / "kschedconf-upstream"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\necho {UPSTREAM_RELEASE}\n")
    fake.chmod(0o755)
    monkeypatch.setenv(BINARY_DIR_ENV, str(tmp_path))
    with pytest.raises(SubjectError, match=f"links k8s.io/kubernetes {UPSTREAM_RELEASE}, "
                                           f"not {other}"):
        UpstreamSubject(release=other)


def test_an_unsupported_release_in_the_spec_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="supported: " + ", ".join(RELEASES)):
        make_subject("upstream@v1.30.0")


# NodeResourcesBalancedAllocation (switch balanced-allocation-delta, kubernetes#135573): node
# ``a`` 4 cpu, 4Gi, empty; ``b`` 2 cpu, 4Gi, 2Gi of memory requested; the pod 1 cpu, 1Gi.
# balancedResourceScore = int64((1 - |cpu fraction - memory fraction| / 2) * 100):
#   v1.34.4/v1.35.4 score the balance with the pod (noderesources/balanced_allocation.go
#   balancedResourceScorer(requested, allocable)): a (.25, .25) 100, b (.5, .75) 87;
#   v1.36.3/v1.37.2 score 50 + (50 + with pod - without pod) / 2: a 50 + 50/2 = 75,
#   b 50 + (50 + 87 - 75)/2 = 81.
BALANCE_SCORES = {"v1.34.4": {"a": 100, "b": 87}, "v1.35.4": {"a": 100, "b": 87},
                  "v1.36.3": {"a": 75, "b": 81}, "v1.37.2": {"a": 75, "b": 81}}


def _balance_docs() -> list[dict[str, Any]]:
    nodes = [make_node("a").allocatable(cpu="4", memory="4Gi", pods="10").manifest(),
             make_node("b").allocatable(cpu="2", memory="4Gi", pods="10").manifest()]
    busy = make_pod("busy").namespace("default").node("b")
    busy.container(make_container("c").image("registry.k8s.io/pause").requests(memory="2Gi"))
    p = make_pod("p").namespace("default")
    p.container(make_container("c").image("registry.k8s.io/pause")
                .requests(cpu="1", memory="1Gi"))
    return [*nodes, busy.manifest(), p.manifest()]


def _balanced_scores(explanation: dict[str, Any]) -> dict[str, int]:
    return {n["name"]: s["raw"] for n in explanation["nodes"] for s in n["scores"]
            if s["plugin"] == "NodeResourcesBalancedAllocation"}


def test_balanced_allocation_scores_are_each_releases_upstream_numbers() -> None:
    """The Done-when of issue 16: a scenario whose BalancedAllocation scores differ between
    1.35 and 1.36 gives each release's upstream numbers in ``explain``, from the subject of
    that release and from the reference following it."""
    built = [r for r in RELEASES if binary_available(default_binary(r))]
    if not {"v1.35.4", "v1.36.3"} <= set(built):
        pytest.skip("needs the upstream subjects of v1.35.4 and v1.36.3: "
                    + build_hint("v1.35.4") + "; " + build_hint("v1.36.3"))
    assert BALANCE_SCORES["v1.35.4"] != BALANCE_SCORES["v1.36.3"]
    for release in built:
        scenario = ScenarioInput(_balance_docs(), release=release)
        with make_subject(f"upstream@{release}") as up:
            upstream = _balanced_scores(up.explain(scenario, "default/p"))
        with make_subject("reference", release=release) as ref:
            reference = _balanced_scores(ref.explain(scenario, "default/p"))
        assert upstream == reference == BALANCE_SCORES[release], release


# OpportunisticBatching's maxBatchAge (500 ms, pkg/scheduler/framework/runtime/batch.go, v1.35+)
# on the virtual clock (upstream/batchage.go). PodTopologySpread `defaultingType: List` without
# default constraints makes the pods signable; each node holds one pod (1 cpu), and memory
# orders them: ``a`` takes n3 and stores [n2, n1] as the batch; ``b``, signed like ``a``, is
# created later. Exactly 500 ms later the batch is still fresh (`time.Now().After(creationTime
# + maxBatchAge)` is false): the hint n2 is taken without filtering the others (1 node
# evaluated, 1 feasible); the reference once judged 59 ms -> 559 ms expired (0.059 + 0.5 >
# 0.559 in floats). After a longer virtual jump, as after that wall time in a real cluster, it
# has expired and ``b``'s cycle filters all 3 nodes (2 feasible); the subject's batch once
# stayed fresh (no wall time passes in a jump). v1.34.4 has no batching.
BATCHING_PROFILE = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}],
        }
    ],
}


def _batching_docs(first: str, later: str) -> list[dict[str, Any]]:
    nodes = [
        make_node(name).allocatable(cpu="1", memory=memory, pods="110").manifest()
        for name, memory in (("n1", "4Gi"), ("n2", "8Gi"), ("n3", "16Gi"))
    ]
    a, b = _pod("a", "1"), _pod("b", "1")
    for p in (a, b):
        del p["apiVersion"], p["kind"]
    events = [
        {"at": first, "action": "createPod", "pod": a},
        {"at": later, "action": "createPod", "pod": b},
    ]
    return [*nodes, {"apiVersion": "kschedconf/v1", "kind": "Scenario", "spec": {"events": events}}]


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize(
    ("first", "later", "hinted"),
    [("0s", "500ms", True), ("0s", "1s", False), ("59ms", "559ms", True)],
)
def test_the_batch_ages_on_the_virtual_clock(
    release: str, first: str, later: str, hinted: bool
) -> None:
    _binary(release)
    docs = _batching_docs(first, later)
    scenario = ScenarioInput(docs, config=BATCHING_PROFILE, release=release)

    def attempts(subject: str) -> list[tuple[Any, ...]]:
        with make_subject(subject, release=release) as s:
            res = s.run(scenario).result
        return [
            (a["pod"], a["outcome"], a["node"], a["evaluatedNodes"], a["feasibleNodes"])
            for a in res["attempts"]
        ]

    upstream = attempts(f"upstream@{release}")
    assert upstream == attempts("reference")
    hint = hinted and release != "v1.34.4"
    assert upstream == [
        ("default/a", "Bound", "n3", 3, 3),
        ("default/b", "Bound", "n2", *((1, 1) if hint else (3, 2))),
    ]


@pytest.mark.parametrize("release", RELEASES)
def test_a_terminating_victim_is_deleted_before_v1_35_only(release: str) -> None:
    """The only pod in the preemptor's way is terminating. v1.34 deletes it as a victim
    (preemption.go of v1.34 has no DeletionTimestamp check); since v1.35 it gets no API call.
    The subject waits for v1.34's delete, so every run lists it as the attempt's victim; it
    did not (a race) and the soundness campaign of v1.34.4 failed its consistency oracle."""
    _binary(release)
    node = make_node("n").allocatable(cpu="1", memory="1Gi", pods="110").manifest()
    holder = make_pod("old").namespace("default").node("n").terminating()
    holder.container(make_container("c").image("registry.k8s.io/pause").requests(memory="1Gi"))
    preemptor = make_pod("new").namespace("default").priority(1000)
    preemptor.container(make_container("c").image("registry.k8s.io/pause")
                        .requests(memory="1Gi"))
    # pods that wait behind the preemptor: their cycles start while its goroutine deletes
    others = [make_pod(f"small-{i}").namespace("default")
              .container(make_container("c").image("registry.k8s.io/pause").requests(cpu="10m"))
              .manifest() for i in range(4)]
    scenario = ScenarioInput([node, holder.manifest(), preemptor.manifest(), *others],
                             release=release)
    victims = [] if release != "v1.34.4" else ["default/old"]

    def nominations(subject: str) -> list[list[str]]:
        with make_subject(subject, release=release) as s:
            res = s.run(scenario).result
        return [a["victims"] for a in res["attempts"] if a["outcome"] == "Nominated"][:1]

    assert nominations("reference") == [victims]
    for _ in range(8):
        assert nominations(f"upstream@{release}") == [victims]
