"""In-place resize: a pod counts at the larger of its spec and status requests.

Restates upstream's table tests of component-helpers/resource/helpers_test.go (k8s.io
v0.37.2): TestPodResourceRequests (the "resized" cases), TestAggregateContainerRequestsAndLimits
(status requests, pod-level status) and TestPodRequestsAndLimitsVerticalScalingWrappers; then
what the scheduler makes of it (framework/types.go PodInfo.CalculateResource counts a bound
pod's status; NodeResourcesFit's PreFilter reads the incoming pod's spec only).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from reference_impl.model.loader import load_documents
from reference_impl.model.objects import Pod
from reference_impl.model.quantity import parse_quantity_string as q
from reference_impl.model.requests import (
    compute_pod_resources,
    is_pod_resize_infeasible,
    pod_requests,
)
from reference_impl.plugins.noderesources.fit import is_pod_resize_deferred
from reference_impl.releases import load, supported_releases
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_container, make_pod

ALWAYS = "Always"


def cpu(v: str) -> dict[str, Fraction]:
    return {"cpu": q(v)}


# (description, use_status, pod, expected requests)
RESIZED = [
    ("resized, infeasible", True,
     make_pod("p").container(make_container("container-1").requests(cpu="4"))
     .container_status("container-1", requests={"cpu": "2"}).resize_pending("Infeasible"),
     cpu("2")),
    ("resized, infeasible & in-progress", True,
     make_pod("p").container(make_container("container-1").requests(cpu="6"))
     .container_status("container-1", allocated={"cpu": "4"}, requests={"cpu": "2"})
     .resize_pending("Infeasible"),
     cpu("4")),
    ("resized, no resize status", True,
     make_pod("p").container(make_container("container-1").requests(cpu="4"))
     .container_status("container-1", requests={"cpu": "2"}),
     cpu("4")),
    ("resized: per-resource 3-way maximum", True,
     make_pod("p").container(make_container("container-1").requests(
         cpu="30m", memory="20M", ephemeral_storage="10G"))
     .container_status("container-1",
                       allocated={"cpu": "20m", "memory": "10M", "ephemeral-storage": "30G"},
                       requests={"cpu": "10m", "memory": "30M", "ephemeral-storage": "20G"}),
     {"cpu": q("30m"), "memory": q("30M"), "ephemeral-storage": q("30G")}),
    ("resized, infeasible, but don't use status", False,
     make_pod("p").container(make_container("container-1").requests(cpu="4"))
     .container_status("container-1", requests={"cpu": "2"}).resize_pending("Infeasible"),
     cpu("4")),
    ("resized, restartable init container, infeasible", True,
     make_pod("p").init_container(make_container("restartable-init-1").restart_policy(ALWAYS)
                                  .requests(cpu="4"))
     .init_container_status("restartable-init-1", requests={"cpu": "2"})
     .resize_pending("Infeasible"),
     cpu("2")),
    ("resized, restartable init container, no resize status", True,
     make_pod("p").init_container(make_container("restartable-init-1").restart_policy(ALWAYS)
                                  .requests(cpu="4"))
     .init_container_status("restartable-init-1", requests={"cpu": "2"}),
     cpu("4")),
    ("resized, restartable init container, infeasible, but don't use status", False,
     make_pod("p").init_container(make_container("restartable-init-1").restart_policy(ALWAYS)
                                  .requests(cpu="4"))
     .init_container_status("restartable-init-1", requests={"cpu": "2"})
     .resize_pending("Infeasible"),
     cpu("4")),
    # TestAggregateContainerRequestsAndLimits
    ("regularcontainers with empty requests, but status with non-empty requests", True,
     make_pod("p").container(make_container("container-1"))
     .container_status("container-1", requests={"cpu": "2"}),
     cpu("2")),
    ("always-restart init containers with empty requests, but status with non-empty requests",
     True,
     make_pod("p").init_container(make_container("container-1").restart_policy(ALWAYS))
     .init_container_status("container-1", requests={"cpu": "2"}),
     cpu("2")),
    ("aggregate container request resolves directly from pod status when PLR vertical "
     "scaling enabled", True,
     make_pod("p").container(make_container("c1").requests(cpu="1").limits(cpu="2"))
     .status_resources(allocated={"cpu": "4"}, requests={"cpu": "3"}),
     cpu("4")),
    ("falls back to container status aggregation when PLR vertical scaling enabled but "
     "podAllocatedResources is nil", True,
     make_pod("p").container(make_container("c1").requests(cpu="1").limits(cpu="2"))
     .container_status("c1", allocated={"cpu": "6"}, requests={"cpu": "5"})
     .status_resources(requests={"cpu": "3"}),
     cpu("6")),
    ("falls back to container status aggregation when PLR vertical scaling enabled but "
     "podResources is nil", True,
     make_pod("p").container(make_container("c1").requests(cpu="1").limits(cpu="2"))
     .container_status("c1", allocated={"cpu": "6"}, requests={"cpu": "5"})
     .status_resources(allocated={"cpu": "6"}),
     cpu("6")),
    # TestPodRequestsAndLimitsVerticalScalingWrappers
    ("pod level requests/limits with PLR vertical scaling enabled and status populated", True,
     make_pod("p").container(make_container("c1").requests(cpu="1").limits(cpu="2"))
     .spec(resources={"requests": {"cpu": "2"}, "limits": {"cpu": "4"}})
     .status_resources(allocated={"cpu": "3"}, requests={"cpu": "3.5"}),
     cpu("3.5")),
    ("pod level requests/limits with PLR vertical scaling enabled and infeasible resize", True,
     make_pod("p").container(make_container("c1").requests(cpu="1").limits(cpu="2"))
     .spec(resources={"requests": {"cpu": "10"}, "limits": {"cpu": "20"}})
     .status_resources(allocated={"cpu": "3"}, requests={"cpu": "4"})
     .resize_pending("Infeasible"),
     cpu("4")),
]


@pytest.mark.parametrize("desc,use_status,wrapper,expected", RESIZED, ids=[r[0] for r in RESIZED])
def test_pod_requests_with_status_resources(desc: str, use_status: bool, wrapper: object,
                                            expected: dict[str, Fraction]) -> None:
    p = wrapper.obj()  # type: ignore[attr-defined]
    assert pod_requests(p, use_status_resources=use_status) == expected


def test_a_deferred_resize_keeps_the_spec_in_the_max() -> None:
    p = (make_pod("p").container(make_container("c").requests(cpu="4"))
         .container_status("c", requests={"cpu": "2"}).resize_pending("Deferred").obj())
    assert not is_pod_resize_infeasible(p)
    assert pod_requests(p) == cpu("4")


def test_is_pod_resize_deferred_reads_the_first_resize_pending_condition() -> None:
    """component-helpers/resource/helpers.go IsPodResizeDeferred: the first PodResizePending
    condition decides (reason Deferred), no condition is not deferred."""
    def pod(*reasons: str) -> Pod:
        w = make_pod("p").container(make_container("c").requests(cpu="1"))
        for r in reasons:
            w = w.resize_pending(r)
        return w.obj()

    assert is_pod_resize_deferred(pod("Deferred"))
    assert is_pod_resize_deferred(pod("Deferred", "Infeasible"))
    assert not is_pod_resize_deferred(pod("Infeasible", "Deferred"))
    assert not is_pod_resize_deferred(pod())


def test_only_the_first_resize_pending_condition_counts() -> None:
    """IsPodResizeInfeasible returns on the first PodResizePending condition."""
    p = (make_pod("p").container(make_container("c").requests(cpu="4"))
         .container_status("c", requests={"cpu": "2"})
         .resize_pending("Deferred").resize_pending("Infeasible").obj())
    assert pod_requests(p) == cpu("4")


def test_a_status_for_another_container_is_not_read() -> None:
    p = (make_pod("p").container(make_container("c").requests(cpu="1"))
         .container_status("other", requests={"cpu": "3"}).obj())
    assert pod_requests(p) == cpu("1")


def test_infeasible_without_status_counts_nothing_for_that_container() -> None:
    """containerAllocatedRequests/containerActuatedRequests return nil for an Infeasible resize
    of a container without status: only what the kubelet reported counts."""
    p = (make_pod("p").container(make_container("a").requests(cpu="4"))
         .container(make_container("b").requests(cpu="1"))
         .container_status("b", requests={"cpu": "2"}).resize_pending("Infeasible").obj())
    assert pod_requests(p) == cpu("2")


def test_calculate_resource_counts_the_status() -> None:
    """PodInfo.CalculateResource (what NodeInfo adds for a pod on a node) reads the status:
    a pod scaled up in place to 3 cpu counts 3 cpu, its non-zero cpu too."""
    p = (make_pod("p").container(make_container("c").requests(cpu="1"))
         .container_status("c", allocated={"cpu": "3"}, requests={"cpu": "3"}).obj())
    res = compute_pod_resources(p)
    assert res.requests.milli_cpu == 3000 and res.non0_cpu == 3000


def test_status_lists_are_defaulted_like_spec_lists() -> None:
    """SetDefaults_ResourceList applies to every v1.ResourceList of the pod, status too."""
    p = (make_pod("p").container(make_container("c").requests(cpu="1"))
         .container_status("c", allocated={"cpu": "1.0001"}).obj())
    assert pod_requests(p) == cpu("1001m")


def test_a_bad_status_quantity_names_its_field() -> None:
    doc = (make_pod("p").container(make_container("c").requests(cpu="1"))
           .container_status("c", allocated={"cpu": "lots"}).manifest())
    with pytest.raises(Exception, match=r"status\.containerStatuses\[0\]\.allocatedResources"):
        load_documents([doc], source="<test>", require_known_nodes=False)


def _schedule(*pods: Pod | object) -> dict[str, str]:
    docs = [make_node("n1").capacity(cpu="4", pods="10").manifest()]
    docs += [p.manifest() for p in pods]  # type: ignore[union-attr]
    cluster = load_documents(docs, source="<test>").cluster
    return Scheduler(cluster).run().bindings


def test_a_pod_resized_up_in_place_holds_its_node() -> None:
    """Its spec asks 1 cpu, the kubelet allocated 3: a 2 cpu pod no longer fits the 4 cpu
    node."""
    running = (make_pod("running").node("n1").container(make_container("c").requests(cpu="1"))
               .container_status("c", allocated={"cpu": "3"}, requests={"cpu": "3"}))
    incoming = make_pod("incoming").req(cpu="2")
    assert _schedule(running, incoming) == {"default/running": "n1"}


def test_an_infeasible_resize_counts_what_runs() -> None:
    """Its spec asks 3 cpu but the resize is Infeasible and it still runs at 1: the 2 cpu pod
    fits."""
    running = (make_pod("running").node("n1").container(make_container("c").requests(cpu="3"))
               .container_status("c", allocated={"cpu": "1"}, requests={"cpu": "1"})
               .resize_pending("Infeasible"))
    incoming = make_pod("incoming").req(cpu="2")
    assert _schedule(running, incoming) == {"default/running": "n1", "default/incoming": "n1"}


def test_the_incoming_pods_status_is_not_read_by_fit() -> None:
    """computePodResourceRequest passes no UseStatusResources: a pending pod whose (stale)
    status says 8 cpu is fitted by its spec."""
    incoming = (make_pod("incoming").container(make_container("c").requests(cpu="2"))
                .container_status("c", allocated={"cpu": "8"}))
    assert _schedule(incoming) == {"default/incoming": "n1"}


# The releases whose PodInfo.CalculateResource reads a pod's pod-level status resources, as read
# in each release's pkg/scheduler/framework/types.go and component-helpers resource/helpers.go:
# v1.34.4's PodRequests has no pod-level status at all; v1.35.4 reads it only under
# InPlacePodLevelResourcesVerticalScaling (Alpha, off); v1.36.3 and v1.37.2 have it on (Beta).
POD_LEVEL_STATUS_READ = ("v1.36.3", "v1.37.2")


@pytest.mark.parametrize("release", supported_releases())
def test_a_pod_level_resize_holds_its_node_where_the_release_reads_it(release: str) -> None:
    """A running pod asks 1 cpu at pod level, its pod-level status says 3 are allocated: the
    releases that read the status leave no room for a 2 cpu pod on the 4 cpu node; the others
    count the spec's 1 cpu and the pod fits."""
    running = (make_pod("running").node("n1").container(make_container("c").requests(cpu="500m"))
               .pod_level_req(cpu="1").container_status("c", allocated={"cpu": "500m"},
                                                         requests={"cpu": "500m"})
               .status_resources(allocated={"cpu": "3"}, requests={"cpu": "3"}))
    incoming = make_pod("incoming").req(cpu="2")
    docs = [make_node("n1").capacity(cpu="4", pods="10").manifest(), running.manifest(),
            incoming.manifest()]
    cluster = load_documents(docs, source="<test>").cluster
    bindings = Scheduler(cluster, release=load(release)).run().bindings
    expected = {"default/running": "n1"}
    if release not in POD_LEVEL_STATUS_READ:
        expected["default/incoming"] = "n1"
    assert bindings == expected
