"""``helper.DefaultSelector`` / ``helper.GetPodServices`` (reference_impl/plugins/helper/spread.py).

The first two tests restate the pinned release's
``pkg/scheduler/framework/plugins/helper/spread_test.go`` (TestGetPodServices, TestDefaultSelector)
with the same objects and expectations; upstream's TestDefaultSelector adds its fake objects to one
informer store case after case, so each case here holds the objects of the cases before it. The
others pin the branches of spread.go those tests leave out, each citing the line of upstream
code it follows.
"""

from __future__ import annotations

import pytest

from reference_impl.api.labels import IN, NOT_IN, Selector, selector_from_set
from reference_impl.model.controllers import Controllers
from reference_impl.model.objects import LabelSelector, LabelSelectorRequirement, ReplicaSet
from reference_impl.plugins.helper.spread import default_selector, get_pod_services
from reference_impl.testing.wrappers import (
    make_pod,
    make_replica_set,
    make_replication_controller,
    make_service,
    make_stateful_set,
)


def reqs(sel: Selector) -> list[tuple[str, str, frozenset[str]]]:
    assert not sel.nothing
    return sorted(sel.requirements)


def as_set(labels: dict[str, str]) -> list[tuple[str, str, frozenset[str]]]:
    """What upstream's ``labels.Set{...}.String()`` compares: every key equal to its value."""
    return reqs(selector_from_set(labels))


# ---- spread_test.go TestGetPodServices ----------------------------------------------------------

@pytest.mark.parametrize("i, want", [(0, [0]), (1, [1]), (2, [2]), (3, []), (4, [])],
                         ids=[f"pod-{i}" for i in range(5)])
def test_get_pod_services(i: int, want: list[int]) -> None:
    """spread_test.go TestGetPodServices "GetPodServices for pod-N": three Services of
    namespace test selecting app=test-0..2; pod N has app=test-N."""
    services = [make_service(f"service-{j}").namespace("test").selector({"app": f"test-{j}"})
                .obj() for j in range(3)]
    pod = (make_pod(f"test-pod-{i}").namespace("test").label("app", f"test-{i}")
           .label("label", f"label-{i}").obj())
    got = get_pod_services(Controllers(services=services), pod)
    assert [s.name for s in got] == [f"service-{j}" for j in want]


# ---- spread_test.go TestDefaultSelector ---------------------------------------------------------

NS = "test"
SVC = make_service("test-service").namespace(NS).selector({"podLabelKey": "podLabelVal"})
RS = make_replica_set("test-replicaset").namespace(NS).selector(
    {"replicaSetLabelKey": "replicaSetLabelVal"})
RC = make_replication_controller("test-replicationcontroller").namespace(NS).selector(
    {"replicationLabelKey": "replicationLabelVal"})
SS = make_stateful_set("test-statefulset").namespace(NS).selector(
    {"statefulSetLabelKey": "statefulSetLabelVal"})

DEFAULT_SELECTOR_CASES = [
    ("DefaultSelector for default case", None, [], {}),
    ("DefaultSelector for no OwnerReference pod case", None, ["svc"],
     {"podLabelKey": "podLabelVal"}),
    ("DefaultSelector for ReplicaSet OwnerReference pod case",
     ("test-replicaset", "ReplicaSet", "apps/v1"), ["svc", "rs"],
     {"podLabelKey": "podLabelVal", "replicaSetLabelKey": "replicaSetLabelVal"}),
    ("DefaultSelector for ReplicationController OwnerReference pod case",
     ("test-replicationcontroller", "ReplicationController", "v1"), ["svc", "rs", "rc"],
     {"podLabelKey": "podLabelVal", "replicationLabelKey": "replicationLabelVal"}),
    ("DefaultSelector for StatefulSet OwnerReference pod case",
     ("test-statefulset", "StatefulSet", "apps/v1"), ["svc", "rs", "rc", "ss"],
     {"podLabelKey": "podLabelVal", "statefulSetLabelKey": "statefulSetLabelVal"}),
]


def _listers(names: list[str]) -> Controllers:
    return Controllers(
        services=[SVC.obj()] if "svc" in names else [],
        replication_controllers=[RC.obj()] if "rc" in names else [],
        replica_sets=[RS.obj()] if "rs" in names else [],
        stateful_sets=[SS.obj()] if "ss" in names else [],
    )


@pytest.mark.parametrize("name, owner, objects, want", DEFAULT_SELECTOR_CASES,
                         ids=[c[0] for c in DEFAULT_SELECTOR_CASES])
def test_default_selector(name: str, owner: tuple[str, str, str] | None, objects: list[str],
                          want: dict[str, str]) -> None:
    """spread_test.go TestDefaultSelector (the case named by the test id)."""
    pod = make_pod("test-pod").namespace(NS).label("podLabelKey", "podLabelVal")
    if owner is not None:
        pod = pod.owner_reference(owner[0], owner[1], owner[2])
    sel = default_selector(pod.obj(), _listers(objects))
    assert reqs(sel) == as_set(want)
    assert sel.empty() == (not want)


# ---- the branches of spread.go the upstream tests leave out -------------------------------------

def test_service_without_selector_selects_nothing() -> None:
    """GetPodServices: ``service.Spec.Selector == nil`` is skipped ("services with nil selectors
    match nothing, not everything"), so the selector stays empty and the default constraints
    do not apply."""
    svc = make_service("headless").selector(None).obj()
    assert svc.selector is None
    pod = make_pod("p").label("app", "web").obj()
    assert default_selector(pod, Controllers(services=[svc])).empty()


def test_services_of_other_namespaces_are_not_listed() -> None:
    """GetPodServices lists ``sl.Services(pod.Namespace)`` only."""
    svc = make_service("web").namespace("other").selector({"app": "web"}).obj()
    pod = make_pod("p").label("app", "web").obj()
    assert default_selector(pod, Controllers(services=[svc])).empty()


def test_services_merge_and_rc_selector_wins() -> None:
    """DefaultSelector merges every matching Service's selector (labels.Merge), then a
    ReplicationController's selector is merged into the same set, its values winning
    (the controller is looked up by name: its selector need not match the pod)."""
    svcs = [make_service("a").selector({"app": "web"}).obj(),
            make_service("b").selector({"tier": "front"}).obj(),
            make_service("c").selector({"app": "db"}).obj()]
    rc = make_replication_controller("rc").selector({"app": "other", "rc": "x"}).obj()
    pod = (make_pod("p").label("app", "web").label("tier", "front")
           .owner_reference("rc", "ReplicationController", "v1").obj())
    sel = default_selector(pod, Controllers(services=svcs, replication_controllers=[rc]))
    assert reqs(sel) == as_set({"app": "other", "tier": "front", "rc": "x"})


def test_replica_set_expressions_are_added() -> None:
    """``selector.Add(r...)``: a ReplicaSet's match expressions join the Services' labels."""
    rs = make_replica_set("rs").selector({"app": "web"}, ("track", "NotIn", ["canary"])).obj()
    pod = make_pod("p").label("app", "web").owner_reference("rs").obj()
    sel = default_selector(pod, Controllers(replica_sets=[rs]))
    assert reqs(sel) == sorted([("app", IN, frozenset({"web"})),
                                ("track", NOT_IN, frozenset({"canary"}))])
    assert sel.matches({"app": "web"}) and not sel.matches({"app": "web", "track": "canary"})


@pytest.mark.parametrize("case, owner", [
    ("missing owner", ("gone", "ReplicaSet", "apps/v1")),
    ("owner of a removed apiVersion", ("rs", "ReplicaSet", "extensions/v1beta1")),
    ("owner of an unsupported kind", ("rs", "Deployment", "apps/v1")),
])
def test_unsupported_or_missing_owner_keeps_the_services_selector(
        case: str, owner: tuple[str, str, str]) -> None:
    """``switch gvk``: a controller that is missing (``Get`` fails), or whose group/version/kind
    is not exactly v1 ReplicationController / apps/v1 ReplicaSet / apps/v1 StatefulSet, adds
    nothing; the Services' selector is returned as it is."""
    rs = make_replica_set("rs").selector({"rs": "yes"}).obj()
    svc = make_service("s").selector({"app": "web"}).obj()
    pod = make_pod("p").label("app", "web").owner_reference(*owner).obj()
    sel = default_selector(pod, Controllers(services=[svc], replica_sets=[rs]))
    assert reqs(sel) == as_set({"app": "web"})


def test_only_the_controller_reference_counts() -> None:
    """``GetControllerOfNoCopy``: owner references without ``controller: true`` are not
    followed."""
    rs = make_replica_set("rs").selector({"rs": "yes"}).obj()
    pod = make_pod("p").owner_reference("rs", controller=False).obj()
    assert default_selector(pod, Controllers(replica_sets=[rs])).empty()


def test_nil_replica_set_selector_adds_nothing() -> None:
    """``LabelSelectorAsSelector(nil)`` is ``labels.Nothing()``, whose ``Requirements()`` is
    ``(nil, false)``: nothing is added (a lister can hold such an object; the loader refuses
    it, as API validation does)."""
    rs = ReplicaSet("default", "rs", "uid-rs", None)
    pod = make_pod("p").owner_reference("rs").obj()
    assert default_selector(pod, Controllers(replica_sets=[rs])).empty()


def test_invalid_replica_set_selector_adds_nothing() -> None:
    """``LabelSelectorAsSelector`` returning an error: nothing is added."""
    bad = LabelSelector(match_expressions=(LabelSelectorRequirement("k", "Bogus", ("v",)),))
    rs = ReplicaSet("default", "rs", "uid-rs", bad)
    pod = make_pod("p").owner_reference("rs").obj()
    assert default_selector(pod, Controllers(replica_sets=[rs])).empty()
