"""Victim ordering, PDB classification and the "terminating by preemption" test.

Upstream: ``pkg/scheduler/framework/preemption/util.go`` (PodTerminatingByPreemption,
MoreImportantVictim, victimRank, GetPodPriority, FilterVictimsWithPDBViolation).
``TraverseHierarchyUp`` and the PodGroup branches of ``GetPodPriority`` need PodGroups, which the
model does not have (GenericWorkload is off by default): a pod's preemption priority is its own.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from reference_impl.framework.preemption.disruption import PDBStatus
from reference_impl.framework.preemption.schedutil import time_before
from reference_impl.framework.preemption.types import (
    COMPOSITE_POD_GROUP_KEY_TYPE,
    POD_GROUP_KEY_TYPE,
    Victim,
    ViolatingVictim,
)
from reference_impl.model.objects import Pod


def pod_terminating_by_preemption(pod: Pod, disruption_targets: Container[str]) -> bool:
    """``PodTerminatingByPreemption``: the pod is being deleted *and* its first
    ``DisruptionTarget`` condition is True with reason ``PreemptionByScheduler``.

    The condition is read from the input (a dump holds the victims of an earlier preemption,
    ``Pod.preempted_by_scheduler``) or added by the scheduler's own preemption
    (``Executor.preempt_pod`` patches it before the DELETE: ``disruption_targets`` holds the
    UIDs of the pods it was added to). A pod that is merely terminating has none, exactly as
    upstream's "non-victim Pods terminating" case.
    """
    if pod.deletion_timestamp is None:
        return False
    return pod.preempted_by_scheduler or pod.uid in disruption_targets


def victim_rank(v: Victim) -> int:
    """``victimRank``: CompositePodGroup 3, PodGroup 2, Pod 1."""
    if v.key_type == COMPOSITE_POD_GROUP_KEY_TYPE:
        return 3
    if v.key_type == POD_GROUP_KEY_TYPE:
        return 2
    return 1


def more_important_victim(vi1: Victim, vi2: Victim) -> bool:
    """``MoreImportantVictim``: higher priority; then the group type rank; then more pods;
    then the earlier start time (``Time.Before``, false with a nil time)."""
    if vi1.priority != vi2.priority:
        return vi1.priority > vi2.priority
    rank1 = victim_rank(vi1)
    rank2 = victim_rank(vi2)
    if rank1 != rank2:
        return rank1 > rank2
    if len(vi1.pods) != len(vi2.pods):
        return len(vi1.pods) > len(vi2.pods)
    return time_before(vi1.earliest_start_time, vi2.earliest_start_time)


def get_pod_priority(pod: Pod) -> int:
    """``GetPodPriority`` without PodGroup listers: the pod's own priority
    (``corev1helpers.PodPriority``)."""
    return pod.priority


def filter_victims_with_pdb_violation(
        victims: Sequence[Victim], pdbs: Sequence[PDBStatus]
) -> tuple[list[ViolatingVictim], list[Victim]]:
    """``FilterVictimsWithPDBViolation``: split victims, in order, into those whose eviction
    violates a PDB and the others.

    Each PDB starts with ``status.disruptionsAllowed``; each matching pod (same namespace,
    non-empty selector that matches, not in ``status.disruptedPods``) takes one from every
    matching PDB in turn, and is violating as soon as one of them drops below zero (the later
    PDBs are then not decremented for that pod). A pod without labels matches nothing. A victim
    is violating if any of its pods is; its count is the number of violating pods.
    """
    allowed = [p.disruptions_allowed for p in pdbs]

    def pod_is_violating(pod: Pod) -> bool:
        labels = pod.labels
        if not labels:
            return False
        for i, pdb in enumerate(pdbs):
            if pdb.namespace != pod.namespace:
                continue
            sel = pdb.selector
            # An invalid selector matches nothing; a nil or empty selector matches nothing.
            if sel is None or sel.empty() or not sel.matches(labels):
                continue
            if pod.name in pdb.disrupted_pods:
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                return True
        return False

    violating: list[ViolatingVictim] = []
    non_violating: list[Victim] = []
    for v in victims:
        n = 0
        for pi in v.pods:
            if pod_is_violating(pi.pod):
                n += 1
        if n > 0:
            violating.append(ViolatingVictim(v, n))
        else:
            non_violating.append(v)
    return violating, non_violating
