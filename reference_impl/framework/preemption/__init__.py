"""Preemption: the evaluator, the executor, victims and candidates.

Upstream: ``pkg/scheduler/framework/preemption/`` (preemption.go, executor.go, types.go,
util.go) at v1.37.2. Pod-group (workload-aware) preemption, ``podgrouppreemption.go``, needs
PodGroups, which the model does not have (GenericWorkload is off by default); it is left out.
"""

from reference_impl.framework.preemption.disruption import PDBStatus, resolve_pdbs
from reference_impl.framework.preemption.executor import (
    Executor,
    get_lower_priority_nominated_pods,
)
from reference_impl.framework.preemption.preemption import (
    Evaluator,
    Interface,
    nodes_for_status_code,
    pick_one_node_for_preemption,
)
from reference_impl.framework.preemption.types import (
    Candidate,
    CandidateList,
    DomainVictim,
    Victim,
    Victims,
    ViolatingVictim,
    new_pod_victim,
    new_victim,
)
from reference_impl.framework.preemption.util import (
    filter_victims_with_pdb_violation,
    more_important_victim,
    pod_terminating_by_preemption,
)

__all__ = [
    "Candidate", "CandidateList", "DomainVictim", "Evaluator", "Executor", "Interface",
    "PDBStatus", "Victim", "Victims", "ViolatingVictim", "filter_victims_with_pdb_violation",
    "get_lower_priority_nominated_pods", "more_important_victim", "new_pod_victim", "new_victim",
    "nodes_for_status_code", "pick_one_node_for_preemption", "pod_terminating_by_preemption",
    "resolve_pdbs",
]
