"""The fixtures and the driver of upstream's DynamicResources ``TestPlugin`` table
(pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go, v1.37.2), shared by
tests/dra/test_dra_plugin.py and tests/dra/test_dra_plugin_table.py.

:func:`run_case` is ``testPlugin``'s loop: PreEnqueue, PreFilter, Filter per node, Score and
NormalizeScore with more than one feasible node, Reserve, then Unreserve (Reserve failed),
Unreserve before PreBind, or PreBindPreFlight and PreBind (and Unreserve as if Bind had failed),
or PostFilter when no node is feasible; the ``prepare`` changes go into the claims before the
phase. After each phase it checks what ``testContext.verify`` checks, as far as the reference
exposes it: the status, the claims (the cluster's store stands for the API server and the
assume cache alike: the reference has one store), and the in-flight allocations."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reference_impl.framework.cycle_state import CycleState
from reference_impl.framework.status import Code, PluginError, Status
from reference_impl.framework.testing import FakeHandle
from reference_impl.framework.types import NodeInfo
from reference_impl.model.dra import (
    AllocationResult,
    DeviceClass,
    DeviceRequestAllocationResult,
    DRAObjects,
    ResourceClaim,
    ResourceSlice,
)
from reference_impl.model.objects import Node, Pod
from reference_impl.plugins.dynamicresources import DynamicResources
from reference_impl.plugins.dynamicresources.extendeddynamicresources import generate_name_base
from reference_impl.releases import load
from reference_impl.testing.dra import (
    claim,
    device,
    device_class,
    local_node_selector,
    request,
    slice_with_devices,
)
from reference_impl.testing.nodes import make_node
from reference_impl.testing.pods import make_pod

DRIVER = "some-driver"
CLASS = "my-resource-class"
WORKER = "worker"
POD_UID = "1234"


# --- the fixtures of dynamicresources_test.go -----------------------------------------------

def pod_with_claim_name() -> Pod:
    """``podWithClaimName``: claim ``my-pod-my-resource`` by name."""
    return (make_pod("my-pod").namespace("default").uid(POD_UID)
            .resource_claim("my-resource", claim="my-pod-my-resource").obj())


def pod_with_claim_template(in_status: bool) -> Pod:
    """``podWithClaimTemplate`` / ``podWithClaimTemplateInStatus``."""
    w = (make_pod("my-pod").namespace("default").uid(POD_UID)
         .resource_claim("my-resource", template="my-resource-template"))
    if in_status:
        w = w.resource_claim_status("my-resource", "my-pod-my-resource")
    return w.obj()


def pending_claim(class_name: str = CLASS) -> ResourceClaim:
    """``pendingClaim``: owned by the pod, one request ``req-1`` for one device."""
    c = claim("my-pod-my-resource", request("req-1", class_name))
    return dataclasses.replace(c, namespace="default", uid="claim-uid", owner_pod_uid=POD_UID)


def allocation(node_selector: Any = None, dev: str = "instance-1",
               req: str = "req-1") -> AllocationResult:
    return AllocationResult((DeviceRequestAllocationResult(req, DRIVER, WORKER, dev),),
                            node_selector)


def allocated_claim(node: str = WORKER) -> ResourceClaim:
    """``allocatedClaim`` (``allocatedClaimWithGoodTopology`` / ``...WrongTopology`` by
    node)."""
    return dataclasses.replace(pending_claim(), allocation=allocation(local_node_selector(node)))


def other_allocated_claim() -> ResourceClaim:
    """``otherAllocatedClaim``: another pod's claim on the same device."""
    return dataclasses.replace(allocated_claim(), name="not-my-claim", uid="other-uid",
                               owner_pod_uid="other")


def worker_node_slice() -> Any:
    """``workerNodeSlice``: one device ``instance-1`` on the worker."""
    return slice_with_devices("worker-slice", WORKER, WORKER, DRIVER, device("instance-1"))


def plugin(*claims: ResourceClaim, classes: bool = True, slices: tuple = (),
           prioritized_list: bool = True) -> DynamicResources:
    objs = DRAObjects(
        device_classes={CLASS: device_class(CLASS, DRIVER)} if classes else {},
        claims={f"{c.namespace}/{c.name}": c for c in claims}, slices=list(slices))
    handle = FakeHandle(nodes=[make_node(WORKER).obj()], dra=objs,
                        features={"DRAPrioritizedList": prioritized_list})
    return DynamicResources(None, handle)


def admin_access(c: ResourceClaim) -> ResourceClaim:
    """``adminAccess``: every request, and every result of the allocation, with admin
    access."""
    (req,) = c.spec.requests
    assert req.exactly is not None
    admin_req = dataclasses.replace(req, exactly=dataclasses.replace(req.exactly,
                                                                     admin_access=True))
    out = dataclasses.replace(c, spec=dataclasses.replace(c.spec, requests=(admin_req,)))
    if c.allocation is not None:
        out = dataclasses.replace(out, allocation=dataclasses.replace(c.allocation, results=tuple(
            dataclasses.replace(r, admin_access=True) for r in c.allocation.results)))
    return out


def worker() -> NodeInfo:
    return NodeInfo(make_node(WORKER).obj())


def unresolvable(msg: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg)


# --- the driver of testPlugin ------------------------------------------------------------------

#: ``feature.Features`` as testPlugin builds it with every ``disable*``/``enable*`` field unset:
#: the fields it does not set are false (e.g. DRAPartitionableDevices); the tracker's
#: ``EnableDeviceTaintRules`` is true (setup).
UPSTREAM_FEATURES: dict[str, bool] = {
    "DynamicResourceAllocation": True, "DRAAdminAccess": True,
    "DRADeviceBindingConditions": True, "DRAResourceClaimDeviceStatus": True,
    "DRASchedulerFilterTimeout": True, "DRADeviceTaints": False, "DRAPrioritizedList": False,
    "DRAExtendedResource": False, "DRAConsumableCapacity": False,
    "DRAPartitionableDevices": False, "DRAFractionalCapacityRange": False,
    "DRADeviceTaintRules": True,
}

ClaimChange = Callable[[ResourceClaim], ResourceClaim]


@dataclass
class Result:
    """``result``: the status, ``changes`` applied to every claim as it was before the phase,
    the claims ``added`` and ``removed`` (by namespace/name as :func:`normalized` names them),
    and the in-flight claims."""

    status: Status | None = None
    changes: ClaimChange | None = None
    added: tuple[ResourceClaim, ...] = ()
    removed: tuple[str, ...] = ()
    in_flight: tuple[ResourceClaim, ...] = ()


@dataclass
class Case:
    """``testPluginCase``: ``want`` by phase: ``preenqueue``, ``prefilter``, ``filter/<node>``,
    ``score/<node>``, ``reserve``, ``unreserve``, ``prebind``, ``postfilter``,
    ``unreserve_after_bind_failure``, ``unreserve_before_prebind`` (the last two also say
    that the phase runs); ``prebind_pre_flight`` is a status only; ``prepare`` by phase
    (``filter``, ``reserve``, ``prebind``, ``postfilter``)."""

    pod: Pod
    claims: tuple[ResourceClaim, ...] = ()
    classes: tuple[DeviceClass, ...] = ()
    slices: tuple[ResourceSlice, ...] = ()
    nodes: tuple[Node, ...] = ()
    features: dict[str, bool] = field(default_factory=dict)
    args: Any = None
    prepare: dict[str, ClaimChange] = field(default_factory=dict)
    want: dict[str, Result] = field(default_factory=dict)
    prebind_pre_flight: Status | None = None
    score: dict[str, int] = field(default_factory=dict)
    normalized: list[list] | None = None
    #: the release whose behaviour switches the plugin runs (None: the pinned one)
    release: str | None = None


#: the allocation timestamp PreBind sets, as ``addAllocationTimestamp``: only non-nil counts
STAMPED = 1.0


def stamped(c: ResourceClaim) -> ResourceClaim:
    """``addAllocationTimestamp``."""
    assert c.allocation is not None
    return dataclasses.replace(c, allocation=dataclasses.replace(
        c.allocation, allocation_timestamp=STAMPED))


def normalized(c: ResourceClaim, pod: Pod) -> ResourceClaim:
    """verify's ``ignoreFieldsInResourceClaims``: no uid, any allocation timestamp the same,
    no device name nor share id in the results. The name the API server generates for the
    pod's extended resource claim is ``<generateName>0`` as upstream's fake client names it
    (the reference generates the apiserver's random suffix). No finalizers: the cases here
    state claims without them (upstream's ``allocatedClaim`` has
    ``resource.kubernetes.io/delete-protection``, which PreBind adds; checked by
    test_dra_claim_finalizer.py)."""
    base = generate_name_base(pod)
    name = base + "0" if c.name.startswith(base) else c.name
    a = c.allocation
    if a is not None:
        a = dataclasses.replace(
            a, allocation_timestamp=None if a.allocation_timestamp is None else STAMPED,
            results=tuple(dataclasses.replace(r, device="", share_id=None) for r in a.results))
    return dataclasses.replace(c, uid="", name=name, allocation=a, finalizers=())


class Run:
    """One run of a :class:`Case` with the plugin over a FakeHandle."""

    def __init__(self, case: Case) -> None:
        self.case = case
        nodes = case.nodes or (make_node(WORKER).obj(),)
        self.objs = DRAObjects(device_classes={c.name: c for c in case.classes},
                               claims={f"{c.namespace}/{c.name}": c for c in case.claims},
                               slices=list(case.slices))
        handle = FakeHandle(nodes=list(nodes), dra=self.objs,
                            features={**UPSTREAM_FEATURES, **case.features},
                            **({"release": load(case.release)} if case.release else {}))
        self.pl = DynamicResources(case.args, handle)
        self.node_infos = [NodeInfo(n) for n in nodes]
        self.state = CycleState()
        #: the phases run, in order, with their statuses
        self.phases: list[str] = []
        self.statuses: dict[str, Status | None] = {}

    def store(self) -> dict[str, ResourceClaim]:
        return dict(self.objs.claims)

    def prepare(self, phase: str) -> None:
        change = self.case.prepare.get(phase)
        if change is not None:
            for k, c in list(self.objs.claims.items()):
                self.objs.claims[k] = change(c)

    def verify(self, phase: str, before: dict[str, ResourceClaim],
               status: Status | None) -> None:
        """``testContext.verify``."""
        self.phases.append(phase)
        self.statuses[phase] = status
        want = self.case.want.get(phase, Result())
        if want.status is not None and want.status.code == Code.ERROR and status is not None:
            # assert.ErrorContains: an Error's message need only contain the wanted one
            assert status.code == Code.ERROR and want.status.message() in status.message(), (
                phase, status, want.status)
        else:
            assert status == want.status, (phase, status, want.status)
        pod = self.case.pod
        expect = {k: (want.changes(c) if want.changes else c) for k, c in before.items()}
        for c in want.added:
            expect[f"{c.namespace}/{c.name}"] = c
        for r in want.removed:  # by namespace/name as normalized
            (k,) = [k for k, c in expect.items()
                    if f"{c.namespace}/{normalized(c, pod).name}" == r]
            expect.pop(k)
        got = sorted((normalized(c, pod) for c in self.objs.claims.values()),
                     key=lambda c: (c.namespace, c.name))
        assert got == sorted((normalized(c, pod) for c in expect.values()),
                             key=lambda c: (c.namespace, c.name)), phase
        in_flight = sorted((normalized(c, pod) for c in self.pl.dra_manager.in_flight.values()),
                           key=lambda c: (c.namespace, c.name))
        assert in_flight == sorted((normalized(c, pod) for c in want.in_flight),
                                   key=lambda c: (c.namespace, c.name)), phase

    def run(self) -> Run:
        """``testPlugin``'s steps for the case."""
        case, pl, pod, state = self.case, self.pl, self.case.pod, self.state
        before = self.store()
        status = pl.pre_enqueue(pod)
        self.verify("preenqueue", before, status)
        if status is not None:
            return self
        before = self.store()
        result, status = pl.pre_filter(state, pod, [])
        assert result is None
        self.verify("prefilter", before, status)
        unschedulable = status is not None and status.code in (
            Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        self.prepare("filter")
        potential: list[NodeInfo] = []
        if not unschedulable:
            for ni in self.node_infos:
                before = self.store()
                status = pl.filter(state, pod, ni)
                self.verify(f"filter/{ni.node.name}", before, status)
                if status is None:
                    potential.append(ni)
                elif status.code == Code.ERROR:
                    return self  # an error aborts scheduling
            unschedulable = not potential
        scores: list[list] = []
        if not unschedulable and len(potential) > 1:
            for ni in potential:
                before = self.store()
                try:
                    score, status = pl.score(state, pod, ni), None
                except PluginError as e:
                    score, status = 0, Status.as_error(str(e))
                self.verify(f"score/{ni.node.name}", before, status)
                assert score == case.score.get(ni.node.name, 0), ni.node.name
                scores.append([ni.node.name, score])
            before = self.store()
            status = pl.normalize_score(state, pod, scores)
            self.verify("normalize_score", before, status)
            assert scores == (case.normalized or [])
        if not unschedulable and potential:
            selected = potential[0].node.name
            if scores:
                selected = max(scores, key=lambda s: s[1])[0]  # the first of the highest
            self.prepare("reserve")
            before = self.store()
            status = pl.reserve(state, pod, selected)
            self.verify("reserve", before, status)
            if status is not None:
                self.prepare("unreserve")
                before = self.store()
                pl.unreserve(state, pod, selected)
                self.verify("unreserve", before, None)
                return self
            if "unreserve_before_prebind" in case.want:
                before = self.store()
                pl.unreserve(state, pod, selected)
                self.verify("unreserve_before_prebind", before, None)
                return self
            self.prepare("prebind")
            before = self.store()
            assert pl.pre_bind_pre_flight(state, pod, selected) == case.prebind_pre_flight
            status = pl.pre_bind(state, pod, selected)
            self.verify("prebind", before, status)
            if "unreserve_after_bind_failure" in case.want:
                before = self.store()
                pl.unreserve(state, pod, selected)
                self.verify("unreserve_after_bind_failure", before, None)
        elif not potential:
            self.prepare("postfilter")
            before = self.store()
            result, status = pl.post_filter(state, pod, None)
            assert result is None
            self.verify("postfilter", before, status)
        return self


def run_case(case: Case) -> list[str]:
    """Run the case, checking each phase; the phases run."""
    return Run(case).run().phases
