"""Pod requests, scheduler resource units and host ports, restating upstream's tests.

Sources (k8s v1.37.2):
- staging/src/k8s.io/component-helpers/resource/helpers_test.go
- pkg/scheduler/framework/types_test.go
- pkg/scheduler/util/utils_test.go
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from reference_impl.model.objects import Container, ContainerPort, Pod, Resource
from reference_impl.model.quantity import parse_quantity_string as q
from reference_impl.model.requests import (
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    DEFAULT_NON_MISSING,
    compute_pod_resources,
    host_ports,
    is_extended_resource_name,
    is_pod_level_requests_set,
    is_pod_level_resources_set,
    is_scalar_resource_name,
    is_supported_pod_level_resource,
    max_resource,
    pod_limits,
    pod_requests,
    to_resource,
)

ALWAYS = "Always"


def rl(**kw: str) -> tuple[tuple[str, Fraction], ...]:
    """A resource list; keyword names use '_' for '-' (ephemeral_storage, hugepages_2Mi)."""
    return tuple((k.replace("_", "-"), q(v)) for k, v in kw.items())


def ctr(name: str = "", requests: tuple = (), limits: tuple = (), restart: str | None = None,
        ports: tuple = ()) -> Container:
    return Container(name=name, requests=requests, limits=limits, restart_policy=restart,
                     ports=ports)


def pod(containers: tuple = (), init: tuple = (), overhead: tuple = (),
        plr_requests: tuple = (), plr_limits: tuple = ()) -> Pod:
    return Pod("ns", "p", "uid", containers=containers, init_containers=init, overhead=overhead,
               pod_level_requests=plr_requests, pod_level_limits=plr_limits)


def as_dict(t: tuple) -> dict[str, Fraction]:
    return dict(t)


# --- helpers_test.go TestPodResourceRequests (the cases without status resources) -----------

POD_RESOURCE_REQUESTS = [
    ("nil options, larger init container", {},
     pod((ctr(requests=rl(cpu="1")),), init=(ctr(requests=rl(cpu="4")),)),
     rl(cpu="4")),
    ("nil options, larger containers", {},
     pod((ctr(requests=rl(cpu="2")), ctr(requests=rl(cpu="3"))),
         init=(ctr(requests=rl(cpu="2")),)),
     rl(cpu="5")),
    ("pod overhead excluded", {"exclude_overhead": True},
     pod((ctr(requests=rl(cpu="2")), ctr(requests=rl(cpu="3"))),
         init=(ctr(requests=rl(cpu="2")),), overhead=rl(cpu="1")),
     rl(cpu="5")),
    ("pod overhead included", {},
     pod((ctr(requests=rl(cpu="2")), ctr(requests=rl(cpu="3"))),
         init=(ctr(requests=rl(cpu="2"), limits=rl(cpu="2")),),
         overhead=rl(cpu="1", memory="1Gi")),
     rl(cpu="6", memory="1Gi")),
    ("resized, infeasible, but don't use status", {},
     pod((ctr("container-1", requests=rl(cpu="4")),)),
     rl(cpu="4")),
    ("resized, restartable init container, infeasible, but don't use status", {},
     pod(init=(ctr("restartable-init-1", requests=rl(cpu="4"), restart=ALWAYS),)),
     rl(cpu="4")),
    ("restartable init container", {},
     pod((ctr("container-1", requests=rl(cpu="1")),),
         init=(ctr("restartable-init-1", requests=rl(cpu="1"), restart=ALWAYS),)),
     rl(cpu="2")),
    ("multiple restartable init containers", {},
     pod((ctr("container-1", requests=rl(cpu="1")),),
         init=(ctr("init-1", requests=rl(cpu="5")),
               ctr("restartable-init-1", requests=rl(cpu="1"), restart=ALWAYS),
               ctr("restartable-init-2", requests=rl(cpu="2"), restart=ALWAYS),
               ctr("restartable-init-3", requests=rl(cpu="3"), restart=ALWAYS))),
     rl(cpu="7")),
    ("multiple restartable and regular init containers", {},
     pod((ctr("container-1", requests=rl(cpu="1")),),
         init=(ctr("init-1", requests=rl(cpu="5")),
               ctr("restartable-init-1", requests=rl(cpu="1"), restart=ALWAYS),
               ctr("restartable-init-2", requests=rl(cpu="2"), restart=ALWAYS),
               ctr("init-2", requests=rl(cpu="5")),
               ctr("restartable-init-3", requests=rl(cpu="3"), restart=ALWAYS))),
     rl(cpu="8")),
    ("restartable-init, init and regular", {},
     pod((ctr("container-1", requests=rl(cpu="100")),),
         init=(ctr("restartable-init-1", requests=rl(cpu="10"), restart=ALWAYS),
               ctr("init-1", requests=rl(cpu="200")))),
     rl(cpu="210")),
    # "aggregate request resolves max of sums instead of sum of maxes" with no statuses:
    # the spec alone gives 1 + 2.
    ("aggregate request, spec only", {},
     pod((ctr("c1", requests=rl(cpu="1")), ctr("c2", requests=rl(cpu="2")))),
     rl(cpu="3")),
]


@pytest.mark.parametrize(("desc", "opts", "p", "expected"), POD_RESOURCE_REQUESTS,
                         ids=[c[0] for c in POD_RESOURCE_REQUESTS])
def test_pod_resource_requests(desc: str, opts: dict, p: Pod, expected: tuple) -> None:
    """helpers_test.go TestPodResourceRequests."""
    assert pod_requests(p, **opts) == as_dict(expected)


def test_pod_requests_and_limits_non_missing() -> None:
    """helpers_test.go TestPodRequestsAndLimits style: applyNonMissing adds the defaults only
    to containers that do not name the resource (an explicit zero stays zero)."""
    p = pod((ctr(requests=rl(cpu="0")), ctr(requests=rl(memory="1Gi"))))
    got = pod_requests(p, non_missing=DEFAULT_NON_MISSING)
    assert got == {"cpu": q("100m"), "memory": q("1Gi") + DEFAULT_MEMORY_REQUEST}


# --- helpers_test.go TestPodLevelResourceRequests --------------------------------------------

POD_LEVEL = [
    ("nil", True, pod(), ()),
    ("pod level memory resource with SkipPodLevelResources true", False,
     pod(plr_requests=rl(memory="2Mi")), ()),
    ("pod level memory resource with SkipPodLevelResources false", True,
     pod(plr_requests=rl(memory="2Mi")), rl(memory="2Mi")),
    ("pod level memory and container level cpu resources", True,
     pod((ctr(requests=rl(cpu="2m")),), plr_requests=rl(memory="2Mi")),
     rl(memory="2Mi", cpu="2m")),
    ("pod level unsupported resources set at both pod-level and container-level", True,
     pod((ctr(requests=rl(storage="3Mi")),), plr_requests=rl(storage="2Mi")),
     rl(storage="3Mi")),
    ("pod level unsupported resources set at pod-level", True,
     pod((ctr(requests=rl(memory="3Mi")),), plr_requests=rl(storage="2Mi")),
     rl(memory="3Mi")),
    ("only container level resources set", True,
     pod((ctr(requests=rl(memory="3Mi", cpu="2m")),)), rl(memory="3Mi", cpu="2m")),
    ("both container-level and pod-level resources set", True,
     pod((ctr(requests=rl(memory="3Mi", cpu="2m")),),
         plr_requests=rl(memory="6Mi", cpu="8m")),
     rl(memory="6Mi", cpu="8m")),
    ("container-level resources and init container set", True,
     pod((ctr(requests=rl(memory="3Mi", cpu="2m")),),
         init=(ctr(requests=rl(memory="5Mi", cpu="4m")),)),
     rl(memory="5Mi", cpu="4m")),
    ("container-level resources and init container set, SkipPodLevelResources true", False,
     pod((ctr(requests=rl(memory="3Mi", cpu="2m")),),
         init=(ctr(requests=rl(memory="5Mi", cpu="4m")),)),
     rl(memory="5Mi", cpu="4m")),
    ("container-level resources and sidecar container set", True,
     pod((ctr(requests=rl(memory="3Mi", cpu="2m")),),
         init=(ctr(requests=rl(memory="5Mi", cpu="4m"), restart=ALWAYS),)),
     rl(memory="8Mi", cpu="6m")),
    ("container-level resources, init and sidecar container set", True,
     pod((ctr(requests=rl(memory="3Mi", cpu="2m")),),
         init=(ctr(requests=rl(memory="5Mi", cpu="4m"), restart=ALWAYS),
               ctr(requests=rl(memory="6Mi", cpu="8m")))),
     rl(memory="11Mi", cpu="12m")),
    ("pod-level resources, container-level resources, init and sidecar container set", True,
     pod((ctr(requests=rl(memory="3Mi", cpu="2m")),),
         init=(ctr(requests=rl(memory="5Mi", cpu="4m"), restart=ALWAYS),
               ctr(requests=rl(memory="6Mi", cpu="8m"))),
         plr_requests=rl(memory="15Mi", cpu="18m")),
     rl(memory="15Mi", cpu="18m")),
    ("pod-level resources, hugepage request/limit single page size", True,
     pod(plr_limits=rl(hugepages_2Mi="2Mi"), plr_requests=rl(memory="10Mi", hugepages_2Mi="2Mi")),
     rl(memory="10Mi", hugepages_2Mi="2Mi")),
    ("pod-level resources, hugepage request/limit multiple page sizes", True,
     pod(plr_limits=rl(hugepages_2Mi="2Mi", hugepages_1Gi="1Gi"),
         plr_requests=rl(cpu="1", hugepages_2Mi="2Mi", hugepages_1Gi="1Gi")),
     rl(cpu="1", hugepages_2Mi="2Mi", hugepages_1Gi="1Gi")),
    ("pod-level resources, container-level resources, hugepage single page size", True,
     pod((ctr(requests=rl(hugepages_2Mi="6Mi"), limits=rl(hugepages_2Mi="6Mi")),),
         plr_limits=rl(hugepages_2Mi="10Mi"), plr_requests=rl(cpu="1", hugepages_2Mi="10Mi")),
     rl(cpu="1", hugepages_2Mi="10Mi")),
    ("pod-level resources, container-level resources, hugepage multiple page sizes", True,
     pod((ctr(requests=rl(cpu="1", hugepages_1Gi="2Gi"), limits=rl(hugepages_1Gi="2Gi")),),
         plr_limits=rl(hugepages_2Mi="10Mi", hugepages_1Gi="2Gi"),
         plr_requests=rl(cpu="1", hugepages_2Mi="10Mi", hugepages_1Gi="2Gi")),
     rl(cpu="1", hugepages_2Mi="10Mi", hugepages_1Gi="2Gi")),
    ("hugepage multiple page sizes between pod-level and container-level", True,
     pod((ctr(requests=rl(memory="4Mi", hugepages_1Gi="1Gi"), limits=rl(hugepages_1Gi="1Gi")),),
         plr_limits=rl(hugepages_2Mi="10Mi"), plr_requests=rl(cpu="1", hugepages_2Mi="10Mi")),
     rl(cpu="1", memory="4Mi", hugepages_2Mi="10Mi", hugepages_1Gi="1Gi")),
]


@pytest.mark.parametrize(("desc", "plr_on", "p", "expected"), POD_LEVEL,
                         ids=[c[0] for c in POD_LEVEL])
def test_pod_level_resource_requests(desc: str, plr_on: bool, p: Pod, expected: tuple) -> None:
    """helpers_test.go TestPodLevelResourceRequests (SkipPodLevelResources = not plr_on)."""
    assert pod_requests(p, pod_level_resources=plr_on) == as_dict(expected)


@pytest.mark.parametrize(("name", "expected"), [
    ("cpu", True), ("memory", True), ("ephemeral-storage", False),
    ("hugepages-2Mi", True), ("hugepages-1Gi", True),
])
def test_is_supported_pod_level_resource(name: str, expected: bool) -> None:
    """helpers_test.go TestIsSupportedPodLevelResource."""
    assert is_supported_pod_level_resource(name) is expected


@pytest.mark.parametrize(("desc", "requests", "limits", "expected"), [
    ("nil resources struct", (), (), False),
    ("only unsupported resource requests set", rl(ephemeral_storage="1Mi"), (), False),
    ("only unsupported resource limits set", (), rl(ephemeral_storage="1Mi"), False),
    ("unsupported and suported resources requests set",
     rl(ephemeral_storage="1Mi", cpu="1m"), (), True),
    ("unsupported and suported resources limits set",
     (), rl(ephemeral_storage="1Mi", cpu="1m"), True),
])
def test_is_pod_level_resources_set(desc: str, requests: tuple, limits: tuple,
                                    expected: bool) -> None:
    """helpers_test.go TestIsPodLevelResourcesSet."""
    assert is_pod_level_resources_set(pod(plr_requests=requests, plr_limits=limits)) is expected
    assert is_pod_level_requests_set(pod(plr_requests=requests, plr_limits=limits)) is (
        expected and bool(requests))


def test_pod_limits_overhead_only_on_nonzero() -> None:
    """helpers.go PodLimits: overhead is added to non-zero limits only."""
    p = pod((ctr(limits=rl(cpu="1", memory="0")),), overhead=rl(cpu="100m", memory="10Mi"))
    assert pod_limits(p) == {"cpu": q("1100m"), "memory": q("0")}


# --- framework types_test.go ------------------------------------------------------------------

CPU100M, MEM200M = q("100m"), q("200Mi")
CPU500M, MEM500M = q("500m"), q("500Mi")
CPU700M, MEM800M = q("700m"), q("800Mi")
CPU1200M, MEM1200M = q("1200m"), q("1200Mi")


CALCULATE = [
    ("requestless container", pod((ctr(),)),
     Resource(), DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST),
    ("1X container with requests",
     pod((ctr(requests=(("cpu", CPU500M), ("memory", MEM500M))),)),
     Resource(milli_cpu=500, memory=int(MEM500M)), 500, int(MEM500M)),
    ("2X container with requests",
     pod((ctr(requests=(("cpu", CPU500M), ("memory", MEM500M))),
          ctr(requests=(("cpu", CPU700M), ("memory", MEM800M))))),
     Resource(milli_cpu=1200, memory=int(MEM500M + MEM800M)), 1200, int(MEM500M + MEM800M)),
    ("1X container and 1X init container with pod-level requests",
     pod((ctr(requests=(("cpu", CPU500M), ("memory", MEM500M))),),
         init=(ctr(requests=(("cpu", CPU500M), ("memory", MEM500M))),),
         plr_requests=(("cpu", CPU1200M), ("memory", MEM1200M))),
     Resource(milli_cpu=1200, memory=int(MEM1200M)), 1200, int(MEM1200M)),
    ("1X container and 1X sidecar container with pod-level requests",
     pod((ctr(requests=(("cpu", CPU500M), ("memory", MEM500M))),),
         init=(ctr(requests=(("cpu", CPU500M), ("memory", MEM500M)), restart=ALWAYS),),
         plr_requests=(("cpu", CPU1200M), ("memory", MEM1200M))),
     Resource(milli_cpu=1200, memory=int(MEM1200M)), 1200, int(MEM1200M)),
    ("1X container with pod-level memory requests",
     pod((ctr(),), init=(ctr(),), plr_requests=(("memory", MEM1200M),)),
     Resource(memory=int(MEM1200M)), DEFAULT_MILLI_CPU_REQUEST, int(MEM1200M)),
    ("1X container with pod-level cpu requests",
     pod((ctr(),), init=(ctr(),), plr_requests=(("cpu", CPU500M),)),
     Resource(milli_cpu=500), 500, DEFAULT_MEMORY_REQUEST),
    ("1X container unsupported resources and pod-level supported resources",
     pod((ctr(requests=(("ephemeral-storage", MEM800M),)),),
         init=(ctr(requests=(("ephemeral-storage", MEM500M),)),),
         plr_requests=(("cpu", CPU500M),)),
     Resource(milli_cpu=500, ephemeral_storage=int(MEM800M)), 500, DEFAULT_MEMORY_REQUEST),
    ("DRA gate disabled, with node allocatable resource claim (no status modelled)",
     pod((ctr(requests=(("cpu", CPU500M), ("memory", MEM500M))),)),
     Resource(milli_cpu=500, memory=int(MEM500M)), 500, int(MEM500M)),
    # Not upstream: pod overhead counts in both requests and non-zero requests.
    ("overhead", pod((ctr(requests=(("cpu", CPU500M),)),), overhead=(("cpu", CPU100M),
                                                                       ("memory", MEM200M))),
     Resource(milli_cpu=600, memory=int(MEM200M)), 600, DEFAULT_MEMORY_REQUEST + int(MEM200M)),
]


@pytest.mark.parametrize(("desc", "p", "res", "non0_cpu", "non0_mem"), CALCULATE,
                         ids=[c[0] for c in CALCULATE])
def test_pod_info_calculate_resources(desc: str, p: Pod, res: Resource, non0_cpu: int,
                                      non0_mem: int) -> None:
    """types_test.go TestPodInfoCalculateResources (podLevelResourcesEnabled as in v1.37.2
    defaults; the DRA node-allocatable cases need pod status, which is not modelled)."""
    got = compute_pod_resources(p)
    assert got.requests == res
    assert (got.non0_cpu, got.non0_mem) == (non0_cpu, non0_mem)


def test_pod_level_resources_gate_off() -> None:
    """CalculateResource with PodLevelResources disabled: pod-level requests are ignored and
    the defaults apply to every container."""
    p = pod((ctr(),), plr_requests=(("memory", MEM1200M),))
    got = compute_pod_resources(p, pod_level_resources=False)
    assert got.requests == Resource()
    assert (got.non0_cpu, got.non0_mem) == (DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST)


def test_new_resource() -> None:
    """types_test.go TestNewResource (Resource.Add)."""
    assert to_resource({}) == Resource()
    got = to_resource({
        "cpu": Fraction(4, 1000),
        "memory": Fraction(2000),
        "pods": Fraction(80),
        "ephemeral-storage": Fraction(5000),
        "scalar.test/scalar1": Fraction(1),
        "hugepages-test": Fraction(2),
    })
    assert got == Resource(milli_cpu=4, memory=2000, ephemeral_storage=5000,
                           allowed_pod_number=80,
                           scalar={"scalar.test/scalar1": 1, "hugepages-test": 2})


def test_to_resource_rounds_up_and_drops_non_scalar_names() -> None:
    got = to_resource({"cpu": q("0.5m"), "memory": q("1.5"), "foo": q("3"),
                       "example.com/x": q("0"), "kubernetes.io/y": q("2"),
                       "attachable-volumes-aws-ebs": q("1")})
    assert got == Resource(milli_cpu=1, memory=2,
                           scalar={"example.com/x": 0, "kubernetes.io/y": 2,
                                   "attachable-volumes-aws-ebs": 1})


def test_set_max_resource() -> None:
    """types_test.go TestSetMaxResource."""
    got = max_resource({"cpu": Fraction(4, 1000), "memory": Fraction(2000),
                        "ephemeral-storage": Fraction(5000)})
    assert got == Resource(milli_cpu=4, memory=2000, ephemeral_storage=5000)
    base = Resource(milli_cpu=4, memory=4000, ephemeral_storage=5000,
                    scalar={"scalar.test/scalar1": 1, "hugepages-test": 2})
    got = max_resource({"cpu": Fraction(4, 1000), "memory": Fraction(2000),
                        "ephemeral-storage": Fraction(7000), "scalar.test/scalar1": Fraction(4),
                        "hugepages-test": Fraction(5)}, into=base)
    assert got == Resource(milli_cpu=4, memory=4000, ephemeral_storage=7000,
                           scalar={"scalar.test/scalar1": 4, "hugepages-test": 5})
    # SetMaxResource has no case for pods
    assert max_resource({"pods": Fraction(3)}) == Resource()


@pytest.mark.parametrize(("name", "scalar", "extended"), [
    ("cpu", False, False), ("memory", False, False), ("foo", False, False),
    ("example.com/gpu", True, True), ("hugepages-2Mi", True, False),
    ("kubernetes.io/foo", True, False), ("attachable-volumes-csi-x", True, False),
    ("requests.example.com/x", False, False), ("example.com/bad name", False, False),
    ("a/b/c", False, False),
])
def test_scalar_resource_names(name: str, scalar: bool, extended: bool) -> None:
    """pkg/scheduler/util/utils.go IsScalarResourceName and v1 helper IsExtendedResourceName."""
    assert is_scalar_resource_name(name) is scalar
    assert is_extended_resource_name(name) is extended


# --- util/utils_test.go TestGetHostPorts -------------------------------------------------------

def port(cp: int, hp: int = 0) -> ContainerPort:
    return ContainerPort(container_port=cp, host_port=hp, protocol="TCP")


HOST_PORTS = [
    (pod((ctr(ports=(port(8001),)),)), ()),
    (pod(init=(ctr(ports=(port(8001),), restart=ALWAYS),)), ()),
    (pod(init=(ctr(ports=(port(8001, 8001),)),)), ()),
    (pod((ctr(ports=(port(8001, 8001),)),)), (port(8001, 8001),)),
    (pod(init=(ctr(ports=(port(8001, 8001),), restart=ALWAYS),)), (port(8001, 8001),)),
    (pod((ctr(ports=(port(8001, 8001), port(8002, 8002))),
          ctr(ports=(port(8003, 8003), port(8004, 8004))),
          ctr(ports=(port(8005),)))),
     (port(8001, 8001), port(8002, 8002), port(8003, 8003), port(8004, 8004))),
    (pod((ctr(ports=(port(8007, 8007), port(8008))),),
         init=(ctr(ports=(port(8001, 8001), port(8002))),
               ctr(ports=(port(8003, 8003),)),
               ctr(ports=(port(8004, 8004), port(8005), port(8006, 8006)), restart=ALWAYS))),
     (port(8004, 8004), port(8006, 8006), port(8007, 8007))),
]


@pytest.mark.parametrize(("p", "expected"), HOST_PORTS)
def test_get_host_ports(p: Pod, expected: tuple) -> None:
    """utils_test.go TestGetHostPorts: sidecar ports first, plain init containers skipped."""
    assert host_ports(p) == expected
