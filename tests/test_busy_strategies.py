"""The busy-cluster pass of the strategies (``strategies/busy.py``): what it generates, that it
stays within its promises (running pods fit as upstream counts them, the foreign scheduler is
served by no profile), and that nothing of it appears without the ``busy`` feature."""

from __future__ import annotations

import copy
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strategies.vocabulary as v
from conformance.core.scenario import ScenarioInput
from reference_impl.model.loader import load_documents
from strategies import SMALL, clusters, pending_pods, scenarios, scheduler_names_of
from strategies.busy import RESIZE_MODES, busy_cluster
from strategies.objects import pod_requests
from strategies.sizes import ALL_FEATURES

FAST = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def busy_scenarios(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A cluster and pending pods the busy pass changed (drawn until it does)."""
    cluster = draw(clusters(SMALL, ALL_FEATURES))
    pending = draw(pending_pods(cluster, SMALL, ALL_FEATURES))
    st_ = busy_cluster(cluster, pending, ALL_FEATURES)
    draw(st_.filter(lambda changed: changed))
    return cluster.documents(pending), pending


def _placed(doc: dict[str, Any]) -> dict[str, int]:
    """What the pod was placed with: its containers' requests as the kubelet reports them."""
    d = copy.deepcopy(doc)
    by_name = {cs["name"]: cs for cs in d["status"]["containerStatuses"]}
    for c in d["spec"]["containers"]:
        c["resources"] = {"requests": by_name[c["name"]]["resources"]["requests"]}
    return pod_requests(d)


@FAST
@given(busy_scenarios())
def test_busy_clusters_load_and_keep_their_running_pods_fitting(
        drawn: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> None:
    docs, pending = drawn
    cluster = load_documents(docs).cluster
    by_name = {p.name: p for p in cluster.pods}
    nodes = {n.name: n for n in cluster.nodes}
    used: dict[str, int] = {}
    for doc in docs:
        if doc.get("kind") != "Pod":
            continue
        p = by_name[doc["metadata"]["name"]]
        if p.node_name:
            used[p.node_name] = used.get(p.node_name, 0) + p.resources.requests.milli_cpu
        statuses = (doc.get("status") or {}).get("containerStatuses")
        if not statuses:
            continue
        assert p.node_name, "only running pods have resize status"
        placed = _placed(doc)
        # upstream counts the max of spec and status: what it was placed with, or (an
        # Infeasible resize, init containers without status counting nothing) less
        assert p.resources.requests.milli_cpu <= placed.get("cpu", 0)
        if p.resize_pending_reason is None:
            assert p.resources.requests.milli_cpu == placed.get("cpu", 0)
    for name, milli in used.items():
        assert milli <= nodes[name].allocatable.milli_cpu
    for doc in pending:
        assert not (doc.get("status") or {}).get("containerStatuses")


@FAST
@given(scenarios(SMALL))
def test_the_foreign_scheduler_is_served_by_no_profile(s: ScenarioInput) -> None:
    assert v.FOREIGN_SCHEDULER not in scheduler_names_of(s.config)


def test_every_part_of_a_busy_cluster_is_generated() -> None:
    """Over a fixed batch of draws each part shows up (structure, not exact draws)."""
    seen: set[str] = set()

    @settings(max_examples=150, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(busy_scenarios())
    def collect(drawn: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> None:
        for p in load_documents(drawn[0]).cluster.pods:
            if p.start_time is not None:
                seen.add("start time")
            if p.deletion_timestamp is not None:
                seen.add("terminating running" if p.node_name else "terminating pending")
            if p.preempted_by_scheduler:
                seen.add("victim of a preemption")
            if p.container_statuses:
                seen.add("Infeasible resize" if p.resize_pending_reason else "resize")
            if p.scheduler_name == v.FOREIGN_SCHEDULER:
                seen.add("foreign running" if p.node_name else "foreign pending")
            if p.nominated_node_name:
                seen.add("nominated")
    collect()
    assert seen == {"start time", "terminating running", "terminating pending",
                    "victim of a preemption", "resize", "Infeasible resize", "foreign running",
                    "foreign pending", "nominated"}
    assert len(RESIZE_MODES) == 3


@FAST
@given(scenarios(SMALL, features=ALL_FEATURES - {"busy"}))
def test_nothing_busy_without_the_feature(s: ScenarioInput) -> None:
    text = yaml.safe_dump_all(s.documents)
    for field in ("deletionTimestamp", "containerStatuses", "startTime", "nominatedNodeName",
                  v.FOREIGN_SCHEDULER, "PodResizePending", "DisruptionTarget"):
        assert field not in text
