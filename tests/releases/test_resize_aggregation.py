"""How each release counts a pod being resized in place (switch resize-requests-aggregation,
kubernetes/kubernetes#140047): v1.34.4 to v1.36.3 take each container's max of spec, actuated
and allocated requests and sum those (component-helpers v0.34.4 determineContainerReqs,
v0.35.4/v0.36.3 determineEffectiveRequests); v1.37.2 sums each of the three apart and takes
their max (aggregateContainerResourcesByFn).

The expected values are worked out by hand from each release's helpers.go, per release, not
read from the switch. The last test runs the scenario that found the difference through
upstream v1.34.4 (when its build exists) and the reference.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from conformance.core.scenario import ScenarioInput
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available, default_binary
from oracles.base import OracleContext
from reference_impl.model.loader import load_documents
from reference_impl.model.objects import Pod
from reference_impl.model.quantity import parse_quantity_string as q
from reference_impl.model.requests import compute_pod_resources, pod_requests, recounted
from reference_impl.releases import load, supported_releases
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.testing.pods import PodWrapper, make_container, make_pod

DATA = Path(__file__).resolve().parent.parent / "data" / "releases"
SCENARIO = DATA / "v1.34-init-container-memory.yaml"
#: the releases whose AggregateContainerRequests sums per-container maxima (read in each
#: release's k8s.io/component-helpers resource/helpers.go)
SUM_OF_MAXES = frozenset({"v1.34.4", "v1.35.4", "v1.36.3"})
GI = 1 << 30


def _requests(pod: Pod, release: str) -> dict[str, Fraction]:
    """PodRequests with status resources and the pod-level status, as ``release`` counts."""
    return pod_requests(pod, resize_rule=load(release).behaviour("resize-requests-aggregation"))


def _per_release(pod: Pod, old: dict[str, Fraction], new: dict[str, Fraction]) -> None:
    for release in supported_releases():
        want = old if release in SUM_OF_MAXES else new
        assert _requests(pod, release) == want, release


def test_every_release_has_a_known_variant() -> None:
    for release in supported_releases():
        variant = load(release).behaviour("resize-requests-aggregation")
        assert variant == ("sum-of-maxes" if release in SUM_OF_MAXES else "max-of-sums")


def test_issue_140046_sum_of_maxes_overestimates() -> None:
    """Desired c1 1 + c2 2 cpu, allocated and running c1 2 + c2 1: the older releases count
    max(1, 2) + max(2, 1) = 4 cpu, v1.37.2 max(3, 3) = 3."""
    pod = (make_pod("p").container(make_container("c1").requests(cpu="1"))
           .container(make_container("c2").requests(cpu="2"))
           .container_status("c1", allocated={"cpu": "2"}, requests={"cpu": "2"})
           .container_status("c2", allocated={"cpu": "1"}, requests={"cpu": "1"}).obj())
    _per_release(pod, {"cpu": q("4")}, {"cpu": q("3")})


def test_an_infeasible_resize_counts_a_sidecar_without_status_only_on_older_releases() -> None:
    """The scenario's shape: the older releases count a container without status at its spec
    (here the 2 cpu sidecar, plus the 1 cpu the kubelet reports of c1); v1.37.2 counts
    nothing for it under an Infeasible resize (containerAllocatedRequests returns nil)."""
    pod = (make_pod("p").container(make_container("c1").requests(cpu="3"))
           .init_container(make_container("s").restart_policy("Always").requests(cpu="2"))
           .container_status("c1", allocated={"cpu": "1"}, requests={"cpu": "1"})
           .resize_pending("Infeasible").obj())
    _per_release(pod, {"cpu": q("3")}, {"cpu": q("1")})


def test_a_plain_init_containers_status_is_read_from_v1_37() -> None:
    """The older releases read the status of regular and sidecar containers only; v1.37.2
    reads a plain init container's too (5 cpu allocated against its 3 cpu spec)."""
    pod = (make_pod("p").container(make_container("c").requests(cpu="1"))
           .init_container(make_container("i").requests(cpu="3"))
           .init_container_status("i", allocated={"cpu": "5"}, requests={"cpu": "5"}).obj())
    _per_release(pod, {"cpu": q("3")}, {"cpu": q("5")})


def _without_requests(pod: PodWrapper, resources: bool) -> Pod:
    """``pod`` whose one container status says allocatedResources only, with an empty
    ``resources`` or none."""
    doc = pod.manifest()
    cs = doc["status"]["containerStatuses"][0]
    if resources:
        cs["resources"] = {}
    return load_documents([doc], source="<test>", require_known_nodes=False).cluster.pods[0]


def test_the_older_releases_read_a_status_only_when_it_has_resources() -> None:
    """The older releases test ``cs.Resources != nil`` before reading the status: without it
    the spec's 1 cpu counts; v1.37.2 reads allocatedResources (2 cpu) either way."""
    base = (make_pod("p").container(make_container("c").requests(cpu="1"))
            .container_status("c", allocated={"cpu": "2"}))
    _per_release(_without_requests(base, resources=False), {"cpu": q("1")}, {"cpu": q("2")})
    _per_release(_without_requests(base, resources=True), {"cpu": q("2")}, {"cpu": q("2")})


def test_pod_level_status_replaces_only_the_spec_pod_level_resources_before_v1_37() -> None:
    """Pod-level and container requests name cpu only; the pod-level status says 2 cpu and
    1Gi. v1.35.4 and v1.36.3 replace the spec's cpu (PodRequests) and count no memory; v1.37.2
    aggregates the pod-level status and applies every supported resource of it. (v1.34.4 has
    no pod-level status; here the gate is taken as on for every release.)"""
    pod = (make_pod("p").container(make_container("c").requests(cpu="500m"))
           .pod_level_req(cpu="1")
           .status_resources(allocated={"cpu": "2", "memory": "1Gi"},
                             requests={"cpu": "2", "memory": "1Gi"}).obj())
    _per_release(pod, {"cpu": q("2")}, {"cpu": q("2"), "memory": q("1Gi")})


def test_an_empty_pod_level_status_zeroes_the_pod_level_requests_before_v1_37() -> None:
    """Infeasible, status.resources without requests and no allocatedResources: the older
    releases take each pod-level resource from an empty max (zero); v1.37.2 applies nothing
    and keeps what the containers' statuses say."""
    pod = (make_pod("p").container(make_container("c").requests(cpu="500m", memory="100Mi"))
           .pod_level_req(cpu="1", memory="1Gi")
           .container_status("c", allocated={"cpu": "500m", "memory": "100Mi"},
                             requests={"cpu": "500m", "memory": "100Mi"})
           .status(resources={}).resize_pending("Infeasible").obj())
    _per_release(pod, {"cpu": q("0"), "memory": q("0")},
                 {"cpu": q("500m"), "memory": q("100Mi")})


@pytest.mark.parametrize("release", supported_releases())
def test_the_scoring_plugins_count_a_resized_pod_as_the_release_does(release: str) -> None:
    """calculatePodResourceRequest (resource_allocation.go) passes UseStatusResources too:
    Fit's and BalancedAllocation's request of a resized pod (issue 140046's pod) is 4 cpu on
    the older releases, 3 on v1.37.2."""
    pod = (make_pod("p").container(make_container("c1").requests(cpu="1", memory="1Gi"))
           .container(make_container("c2").requests(cpu="2", memory="1Gi"))
           .container_status("c1", allocated={"cpu": "2"}, requests={"cpu": "2"})
           .container_status("c2", allocated={"cpu": "1"}, requests={"cpu": "1"}))
    cluster = load_documents([pod.manifest()], source="<test>",
                             require_known_nodes=False).cluster
    framework = Scheduler(cluster, release=load(release)).profiles["default-scheduler"]
    want = 4000 if release in SUM_OF_MAXES else 3000
    for plugin in ("NodeResourcesFit", "NodeResourcesBalancedAllocation"):
        scorer = framework.instances[plugin].scorer  # type: ignore[attr-defined]
        assert scorer.pod_request_list(cluster.pods[0])[0] == want, plugin


def _pod_2(cluster_pods: list[Pod]) -> Pod:
    [pod] = [p for p in cluster_pods if p.key == "team-a/pod-2"]
    return pod


@pytest.mark.parametrize("release", supported_releases())
def test_the_scenario_on_each_release(release: str) -> None:
    """team-a/pod-2 on node-16 (Infeasible resize, c1 3Gi with status, a 3Gi sidecar without):
    the older releases count 6Gi and leave 3204Mi, too little for pod-19's 3205Mi init
    container; v1.37.2 counts 3Gi and binds pod-19. The scheduler and the oracles count the
    same."""
    scenario = ScenarioInput.read(SCENARIO)
    cluster = load_documents(scenario.documents).cluster
    scheduler = Scheduler(cluster, release=load(release))
    want = 6 * GI if release in SUM_OF_MAXES else 3 * GI
    assert _pod_2(scheduler.cluster.pods).resources.requests.memory == want  # type: ignore[union-attr]
    ctx = OracleContext.build(scenario, {"bindings": {}}, release=load(release))
    assert _pod_2(ctx.cluster.pods).resources.requests.memory == want  # type: ignore[union-attr]
    bound = "default/pod-19" in scheduler.run().bindings
    assert bound == (release not in SUM_OF_MAXES)


def test_recounting_keeps_a_pod_that_counts_the_same() -> None:
    pod = make_pod("p").container(make_container("c").requests(cpu="1")).obj()
    assert recounted(pod, pod_level_status=True, resize_rule="sum-of-maxes") is pod
    assert compute_pod_resources(pod, resize_rule="sum-of-maxes") == pod.resources


@pytest.mark.skipif(not binary_available(default_binary("v1.34.4")),
                    reason="no upstream subject of v1.34.4: bash upstream/build.sh --release "
                           "v1.34.4")
def test_v1_34_init_container_memory() -> None:
    """Upstream v1.34.4 and the reference told v1.34.4 agree on pod-19 (the other pods' ties
    are broken at random on v1.34.4): it is left unschedulable."""
    scenario = ScenarioInput.read(SCENARIO)
    assert scenario.release == "v1.34.4"
    with UpstreamSubject(release="v1.34.4") as upstream, ReferenceSubject() as reference:
        up = upstream.run(scenario).result
        ref = reference.run(scenario).result
    pod = "default/pod-19"
    assert pod not in ref["bindings"]
    assert (pod in up["bindings"]) == (pod in ref["bindings"])
