"""What a dump of a busy cluster holds (feature ``busy``): start times, terminating pods (some
the victims of an earlier preemption), in-place resize status, nominations, pods of a scheduler
no profile serves. A pass over a drawn cluster and its pending pods, in about one scenario in
four (docs/strategies.md#busy-clusters).

Every change keeps the generator's promise that running pods fit where they run, counted as
upstream counts them (the max of spec and status requests, component-helpers/resource): a
resized pod's status holds the requests it was placed with; its spec either asks for less (a
downsize not yet actuated), for the same (a resize done), or for twice as much cpu with a
PodResizePending=Infeasible condition (an upsize the node refused, which counts what runs).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

import strategies.vocabulary as v
from reference_impl.model.quantity import milli_value, parse_quantity
from strategies._cache import booleans, composite, integers, sampled
from strategies.clusters import GeneratedCluster
from strategies.objects import format_cpu, sometimes

Doc = dict[str, Any]

__all__ = ["busy_cluster", "RESIZE_MODES"]

#: what a resized pod's spec asks compared with the cpu it was placed (and runs) with
RESIZE_MODES = ("downsize-pending", "done", "infeasible")


def _timestamp(second: int) -> str:
    return v.TIMESTAMP_FORMAT.format(minute=second // 60 % 60, second=second % 60)


def _resizable(pod: Mapping[str, Any]) -> bool:
    """A pod without pod-level resources (whose status would be pod-level too) with a regular
    container that asks for cpu."""
    spec = pod["spec"]
    return not spec.get("resources") and any(
        "cpu" in ((c.get("resources") or {}).get("requests") or {}) for c in spec["containers"])


def _resize(pod: Doc, mode: str) -> None:
    """Write the kubelet's view of the regular containers (allocated = actuated = the requests
    the pod was placed with, a request defaulting to its limit) and move the spec's explicit
    cpu requests as ``mode`` says (a cpu limit moves along when the request would pass it)."""
    statuses = []
    for c in pod["spec"]["containers"]:
        res = c.setdefault("resources", {})
        placed = {**copy.deepcopy(res.get("limits") or {}),
                  **copy.deepcopy(res.get("requests") or {})}
        statuses.append({"name": c["name"], "allocatedResources": copy.deepcopy(placed),
                         "resources": {"requests": placed}})
        requests = res.get("requests") or {}
        if "cpu" not in requests or mode == "done":
            continue
        milli = milli_value(parse_quantity(requests["cpu"]))
        new = max(1, milli // 2) if mode == "downsize-pending" else milli * 2
        requests["cpu"] = format_cpu(new)
        limits = res.get("limits") or {}
        if "cpu" in limits and milli_value(parse_quantity(limits["cpu"])) < new:
            limits["cpu"] = format_cpu(new)
    status = pod.setdefault("status", {})
    status["containerStatuses"] = statuses
    if mode == "infeasible":
        status.setdefault("conditions", []).append({
            "type": "PodResizePending", "status": "True", "reason": "Infeasible",
            "message": "Node didn't have enough capacity: cpu"})


def _terminate(pod: Doc, second: int, by_preemption: bool) -> None:
    pod["metadata"]["deletionTimestamp"] = _timestamp(second)
    pod["metadata"]["deletionGracePeriodSeconds"] = 30
    if by_preemption:
        pod.setdefault("status", {}).setdefault("conditions", []).append({
            "type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
            "message": "default-scheduler: preempting to accommodate a higher priority pod"})


@composite
def busy_cluster(draw: st.DrawFn, cluster: GeneratedCluster, pending: list[Doc],
                 features: frozenset[str]) -> bool:
    """Make ``cluster`` and ``pending`` (in place) look like a dump of a busy cluster, about
    one time in four when ``busy`` is among ``features``; says whether it did."""
    if "busy" not in features or not sometimes(draw, 4):
        return False
    running = cluster.running_pods
    # start times: distinct seconds (equal ones would leave preemption's last criterion to
    # chance), in a drawn order
    if running and draw(booleans()):
        order = draw(st.permutations(range(len(running))))
        base = draw(integers(0, 600))
        for pod, i in zip(running, order, strict=True):
            pod.setdefault("status", {})["startTime"] = _timestamp(base + i)
    for pod in running:
        if _resizable(pod) and sometimes(draw, 2):
            _resize(pod, draw(sampled(RESIZE_MODES)))
        if sometimes(draw, 6):
            _terminate(pod, draw(integers(700, 900)), draw(booleans()))
        elif sometimes(draw, 8):
            pod["spec"]["schedulerName"] = v.FOREIGN_SCHEDULER
    names = cluster.node_names
    for pod in pending:
        if sometimes(draw, 8):
            _terminate(pod, draw(integers(700, 900)), False)
        if sometimes(draw, 8):
            pod["spec"]["schedulerName"] = v.FOREIGN_SCHEDULER
        if names and sometimes(draw, 6):
            pod.setdefault("status", {})["nominatedNodeName"] = draw(sampled(names))
    return True
