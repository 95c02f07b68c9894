"""PodDisruptionBudget status as preemption reads it (``pdb.Status.DisruptionsAllowed``): as the
input gives it, else computed like the disruption controller's sync.

Upstream: ``pkg/scheduler/framework/preemption/preemption.go`` (getPodDisruptionBudgets),
``util.go`` (FilterVictimsWithPDBViolation), ``pkg/controller/disruption/disruption.go``
(trySync, getPodsForPdb, getExpectedPodCount, getExpectedScale, countHealthyPods,
updatePdbStatus, failSafe) and ``staging/src/k8s.io/apimachinery/pkg/util/intstr/intstr.go``
(GetScaledValueFromIntOrPercent). Modelling choices: docs/reference.md#preemption."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from reference_impl.api.labels import Selector, compile_selector
from reference_impl.model.objects import Pod, PodDisruptionBudget

_ATOI = re.compile(r"[+-]?[0-9]+")


@dataclass(slots=True, frozen=True)
class PDBStatus:
    """A PDB as preemption sees it: namespace, compiled selector (``None`` when invalid),
    ``status.disruptionsAllowed`` and ``status.disruptedPods`` (pod names)."""

    namespace: str
    name: str
    selector: Selector | None
    disruptions_allowed: int
    disrupted_pods: frozenset[str] = frozenset()


class _SyncError(Exception):
    """trySync failed; the controller's failSafe sets disruptionsAllowed to 0."""


def get_scaled_value_from_int_or_percent(value: int | str | None, total: int,
                                         round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``: an int as is; ``"N%"`` scaled by total with
    float arithmetic, rounded up or down; any other string is an error."""
    if value is None:
        raise _SyncError("nil value for IntOrString")
    if isinstance(value, int):
        return value
    if not value.endswith("%"):
        raise _SyncError("invalid value for IntOrString: invalid type: string is not a percentage")
    digits = value[:-1]
    if not _ATOI.fullmatch(digits):
        raise _SyncError(f"invalid value for IntOrString: invalid value {value!r}")
    v = int(digits)
    scaled = float(v) * float(total) / 100
    return int(math.ceil(scaled) if round_up else math.floor(scaled))


def _controller_uid(pod: Pod) -> str | None:
    """``metav1.GetControllerOf``: the first owner reference with controller=true."""
    for ref in pod.owner_references:
        if ref.controller:
            return ref.uid
    return None


def _expected_scale(pods: list[Pod], controller_scale: dict[str, int]) -> int:
    """``getExpectedScale``: the sum of the scales of the controllers of the pods; pods
    without a controller are unmanaged and skipped."""
    seen: set[str] = set()
    expected = 0
    for pod in pods:
        uid = _controller_uid(pod)
        if uid is None or uid in seen:
            continue
        seen.add(uid)
        expected += controller_scale.get(uid, 0)
    return expected


def _expected_pod_count(pdb: PodDisruptionBudget, pods: list[Pod],
                        controller_scale: dict[str, int]) -> tuple[int, int]:
    """``getExpectedPodCount``: (expectedCount, desiredHealthy)."""
    if pdb.max_unavailable is not None:
        expected = _expected_scale(pods, controller_scale)
        max_unavailable = get_scaled_value_from_int_or_percent(pdb.max_unavailable, expected, True)
        return expected, max(expected - max_unavailable, 0)
    if pdb.min_available is not None:
        if isinstance(pdb.min_available, int):
            return len(pods), pdb.min_available
        expected = _expected_scale(pods, controller_scale)
        return expected, get_scaled_value_from_int_or_percent(pdb.min_available, expected, True)
    return 0, 0


def compute_disruptions_allowed(pdb: PodDisruptionBudget, namespace_pods: list[Pod],
                                controller_scale: dict[str, int]) -> int:
    """``trySync`` + ``updatePdbStatus``: healthy - desired, 0 when that is not positive or no
    pod is expected; 0 (failSafe) when the sync fails."""
    try:
        sel = compile_selector(pdb.selector)
    except ValueError:
        return 0
    pods = [p for p in namespace_pods if sel.matches(p.labels)]
    try:
        expected, desired = _expected_pod_count(pdb, pods, controller_scale)
    except _SyncError:
        return 0
    healthy = sum(1 for p in pods if p.deletion_timestamp is None and p.node_name)
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        return 0
    return allowed


def resolve_pdbs(pdbs: Iterable[PodDisruptionBudget], pods: Iterable[Pod]) -> list[PDBStatus]:
    """The PDBs with their status: ``disruptions_allowed`` as given, else computed from
    ``pods`` (the cluster's pods) like the disruption controller."""
    pdbs = list(pdbs)
    need = {p.namespace for p in pdbs if p.disruptions_allowed is None}
    by_ns: dict[str, list[Pod]] = {}
    scale: dict[str, int] = {}
    if need:
        for pod in pods:
            if pod.namespace not in need:
                continue
            by_ns.setdefault(pod.namespace, []).append(pod)
            uid = _controller_uid(pod)
            if uid is not None:
                scale[uid] = scale.get(uid, 0) + 1
    out: list[PDBStatus] = []
    for p in pdbs:
        try:
            sel: Selector | None = compile_selector(p.selector)
        except ValueError:
            sel = None
        allowed = p.disruptions_allowed
        if allowed is None:
            allowed = compute_disruptions_allowed(p, by_ns.get(p.namespace, []), scale)
        out.append(PDBStatus(p.namespace, p.name, sel, allowed))
    return out
