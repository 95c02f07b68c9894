"""Catalogue: pod requests (``reference_impl/model/requests.py``, which the loader and
NodeResourcesFit use) and the NodeResourcesFit filter."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import conformance.engines.mutants.witnesses as w
from conformance.engines.mutants.mutant import Mutant
from conformance.engines.mutants.patching import Patch
from reference_impl.plugins.noderesources.fit import InsufficientResource

# ----- pod requests (reference_impl/model/requests.py; loader and NodeResourcesFit) ---------

_REQ = "reference_impl.model.requests"


def _with_init(pod: Any, init_containers: tuple) -> Any:
    return dataclasses.replace(pod, init_containers=init_containers)


def _aggregate_without_plain_init(orig: Callable[..., Any]) -> Callable[..., Any]:
    def _aggregate(pod: Any, non_missing: Any, source: str, use_status: bool = False) -> Any:
        sidecars = tuple(c for c in pod.init_containers if c.restart_policy == "Always")
        return orig(_with_init(pod, sidecars), non_missing, source, use_status)
    return _aggregate


def _aggregate_sidecars_as_init(orig: Callable[..., Any]) -> Callable[..., Any]:
    def _aggregate(pod: Any, non_missing: Any, source: str, use_status: bool = False) -> Any:
        plain = tuple(dataclasses.replace(c, restart_policy=None) for c in pod.init_containers)
        return orig(_with_init(pod, plain), non_missing, source, use_status)
    return _aggregate


def _sidecars_moved(first: bool) -> Callable[[Any], Any]:
    """``_aggregate`` with the sidecars moved before (``first``) or after every plain init
    container: the init-phase peaks then count every sidecar, or none."""
    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        def _aggregate(pod: Any, non_missing: Any, source: str,
                       use_status: bool = False) -> Any:
            sidecars = tuple(c for c in pod.init_containers if c.restart_policy == "Always")
            plain = tuple(c for c in pod.init_containers if c.restart_policy != "Always")
            return orig(_with_init(pod, sidecars + plain if first else plain + sidecars),
                        non_missing, source, use_status)
        return _aggregate
    return make


def _pod_requests_without_overhead(orig: Callable[..., Any]) -> Callable[..., Any]:
    def pod_requests(pod: Any, *, non_missing: Any = None, pod_level_resources: bool = True,
                     exclude_overhead: bool = False, **status: bool) -> Any:
        return orig(pod, non_missing=non_missing, pod_level_resources=pod_level_resources,
                    exclude_overhead=True, **status)
    return pod_requests


POD_REQUESTS = (
    Mutant(
        name="requests-ignore-init-containers", area="pod requests",
        summary="a pod's requests ignore its (non-sidecar) init containers",
        upstream="PodRequests takes the max of the containers' sum and each init container's peak "
                 "(staging/src/k8s.io/component-helpers/resource/helpers.go "
                 "AggregateContainerRequests)",
        patches=(Patch(f"{_REQ}:_aggregate", _aggregate_without_plain_init),),
        witness=lambda: w.scenario(
            "init", w.node("n1", cpu="1"),
            w.pod("p", {"cpu": "100m"}, initContainers=[w.container("init", {"cpu": "2"})])),
        shows="genuine: p (init container 2 cpu) is unschedulable on a 1-cpu node; mutant: bound",
        oracles=("no_overcommit", "filters_honoured")),
    Mutant(
        name="requests-sidecars-as-init", area="pod requests",
        summary="sidecars (init containers with restartPolicy Always) are treated as plain init "
                "containers: not added to the running sum",
        upstream="restartable init containers run alongside the containers and are summed "
                 "(staging/src/k8s.io/component-helpers/resource/helpers.go "
                 "AggregateContainerRequests, KEP-753)",
        patches=(Patch(f"{_REQ}:_aggregate", _aggregate_sidecars_as_init),),
        witness=lambda: w.scenario(
            "sidecar", w.node("n1", cpu="1"),
            w.pod("p", {"cpu": "600m"},
                 initContainers=[w.container("side", {"cpu": "600m"}, restart_policy="Always")])),
        shows="genuine: p needs 1200m and stays pending on a 1-cpu node; mutant: 600m, bound",
        oracles=("no_overcommit", "filters_honoured")),
    Mutant(
        name="requests-init-peak-without-earlier-sidecars", area="pod requests",
        summary="an init container's peak leaves out the sidecars started before it (they keep "
                "running while it runs)",
        upstream="AggregateContainerRequests: an init container needs its own requests plus "
                 "the restartable init containers declared before it "
                 "(staging/src/k8s.io/component-helpers/resource/helpers.go, KEP-753)",
        patches=(Patch(f"{_REQ}:_aggregate", _sidecars_moved(first=False)),),
        witness=lambda: w.scenario(
            "sidecar-then-init", w.node("n1", cpu="2"),
            w.pod("p", {"cpu": "100m"}, initContainers=[
                w.container("side", {"cpu": "1"}, restart_policy="Always"),
                w.container("init", {"cpu": "1500m"})])),
        shows="genuine: the init container runs next to the sidecar, 2500m, pending on a 2-cpu "
              "node; mutant: 1500m, bound",
        oracles=("no_overcommit", "filters_honoured")),
    Mutant(
        name="requests-init-peak-with-later-sidecars", area="pod requests",
        summary="an init container's peak counts every sidecar, also those declared (started) "
                "after it",
        upstream="AggregateContainerRequests: only the restartable init containers declared "
                 "before an init container run next to it "
                 "(staging/src/k8s.io/component-helpers/resource/helpers.go, KEP-753)",
        patches=(Patch(f"{_REQ}:_aggregate", _sidecars_moved(first=True)),),
        witness=lambda: w.scenario(
            "init-then-sidecar", w.node("n1", cpu="2"),
            w.pod("p", {"cpu": "100m"}, initContainers=[
                w.container("init", {"cpu": "1500m"}),
                w.container("side", {"cpu": "1"}, restart_policy="Always")])),
        shows="genuine: the sidecar starts after the init container, peak 1500m, bound on a "
              "2-cpu node; mutant: 2500m, pending",
        oracles=("no_false_unschedulable",)),
    Mutant(
        name="requests-ignore-overhead", area="pod requests",
        summary="pod overhead (spec.overhead) is not added to the pod's requests",
        upstream="PodRequests adds spec.overhead "
                 "(staging/src/k8s.io/component-helpers/resource/helpers.go)",
        patches=(Patch(f"{_REQ}:pod_requests", _pod_requests_without_overhead, everywhere=True),),
        witness=lambda: w.scenario(
            "overhead", w.node("n1", cpu="1"),
            w.pod("p", {"cpu": "900m"}, overhead={"cpu": "250m"})),
        shows="genuine: 900m + 250m overhead does not fit 1 cpu; mutant: bound",
        oracles=("no_overcommit", "filters_honoured")),
    Mutant(
        name="requests-ignore-pod-level-resources", area="pod requests",
        summary="pod-level requests (spec.resources.requests, PodLevelResources on by default) are "
                "ignored: the containers' aggregate is used",
        upstream="PodRequests: supported pod-level requests replace the aggregate "
                 "(staging/src/k8s.io/component-helpers/resource/helpers.go, gate "
                 "PodLevelResources)",
        patches=(Patch(f"{_REQ}:is_pod_level_requests_set", lambda orig: lambda pod: False),),
        witness=lambda: w.scenario(
            "pod-level", w.node("n1", cpu="1"),
            w.pod("p", {"cpu": "100m"}, resources={"requests": {"cpu": "2"}})),
        shows="genuine: pod-level request 2 cpu, unschedulable; mutant: 100m, bound",
        oracles=("no_overcommit", "filters_honoured")),
)


# ----- NodeResourcesFit (reference_impl/plugins/noderesources/fit.py) ------------------------

_FIT = "reference_impl.plugins.noderesources.fit"


def _fits_request_dropping(*names: str) -> Callable[[Any], Any]:
    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        def fits_request(s: Any, node_info: Any, pod: Any = None,
                         in_place_preemption: bool = False) -> list[Any]:
            return [ir for ir in orig(s, node_info, pod, in_place_preemption)
                    if ir.resource_name not in names]
        return fits_request
    return make


def _fits_request_exact_fit_fails(orig: Callable[..., Any]) -> Callable[..., Any]:
    def fits_request(s: Any, node_info: Any, pod: Any = None,
                     in_place_preemption: bool = False) -> list[Any]:
        out = orig(s, node_info, pod, in_place_preemption)
        have = {ir.resource_name for ir in out}
        r, alloc, used = s.request, node_info.node.allocatable, node_info.requested
        rows = [("cpu", r.milli_cpu, used.milli_cpu, alloc.milli_cpu),
                ("memory", r.memory, used.memory, alloc.memory),
                ("ephemeral-storage", r.ephemeral_storage, used.ephemeral_storage,
                 alloc.ephemeral_storage)]
        rows += [(name, r.scalar[name], used.scalar.get(name, 0), alloc.scalar.get(name, 0))
                 for name, _ in s.scalars]
        for name, want, in_use, cap in rows:
            # ">=" where upstream has ">": a request exactly equal to the free amount fails
            if want > 0 and name not in have and want >= cap - in_use:
                out.append(InsufficientResource(name, f"Insufficient {name}", want, in_use, cap,
                                                want > cap))
        return out
    return fits_request


def _no_scalars(orig: Callable[..., Any]) -> Callable[..., Any]:
    def new_pre_filter_state(request: Any, *args: Any, **kwargs: Any) -> Any:
        state = orig(request, *args, **kwargs)
        state.scalars = ()
        return state
    return new_pre_filter_state


NODE_RESOURCES_FIT = (
    Mutant(
        name="fit-ignores-pod-count", area="NodeResourcesFit",
        summary="Filter does not check the node's allocatable pod count",
        upstream="fitsRequest: len(pods)+1 > allowedPodNumber is 'Too many pods' "
                 "(pkg/scheduler/framework/plugins/noderesources/fit.go)",
        patches=(Patch(f"{_FIT}:fits_request", _fits_request_dropping("pods")),),
        witness=lambda: w.scenario(
            "pod-count", w.node("n1", pods=1), w.pod("running", node="n1"), w.pod("p")),
        shows="genuine: the node (allocatable pods 1) is full, p pending; mutant: bound",
        oracles=("no_overcommit", "filters_honoured")),
    Mutant(
        name="fit-exact-fit-fails", area="NodeResourcesFit",
        summary="off by one: a request equal to the free amount is insufficient (>= instead of >)",
        upstream="fitsRequest: insufficient only when request > allocatable - requested "
                 "(pkg/scheduler/framework/plugins/noderesources/fit.go)",
        patches=(Patch(f"{_FIT}:fits_request", _fits_request_exact_fit_fails),),
        witness=lambda: w.scenario("exact-fit", w.node("n1", cpu="1"), w.pod("p", {"cpu": "1"})),
        shows="genuine: 1 cpu fits a 1-cpu node; mutant: Insufficient cpu, pending",
        oracles=("no_false_unschedulable",)),
    Mutant(
        name="fit-ignores-extended-resources", area="NodeResourcesFit",
        summary="Filter checks cpu, memory and ephemeral-storage only: extended (scalar) resources "
                "such as example.com/gpu are not checked",
        upstream="fitsRequest checks every requested scalar resource "
                 "(pkg/scheduler/framework/plugins/noderesources/fit.go)",
        patches=(Patch(f"{_FIT}:new_pre_filter_state", _no_scalars),),
        witness=lambda: w.scenario(
            "gpu", w.node("n1"), w.pod("p", {"example.com/gpu": 1})),
        shows="genuine: the node has no example.com/gpu, p pending; mutant: bound",
        oracles=("no_overcommit", "filters_honoured")),
    Mutant(
        name="fit-ignores-ephemeral-storage", area="NodeResourcesFit",
        summary="Filter does not check ephemeral-storage",
        upstream="fitsRequest checks ephemeral-storage like cpu and memory "
                 "(pkg/scheduler/framework/plugins/noderesources/fit.go)",
        patches=(Patch(f"{_FIT}:fits_request", _fits_request_dropping("ephemeral-storage")),),
        witness=lambda: w.scenario(
            "ephemeral", w.node("n1", extra={"ephemeral-storage": "1Gi"}),
            w.pod("p", {"ephemeral-storage": "2Gi"})),
        shows="genuine: 2Gi of ephemeral-storage does not fit 1Gi, pending; mutant: bound",
        oracles=("no_overcommit", "filters_honoured")),
)


MUTANTS: tuple[Mutant, ...] = (*POD_REQUESTS, *NODE_RESOURCES_FIT)
