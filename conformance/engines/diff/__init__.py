"""``kschedconf diff``: the reference scheduler against another subject (the real upstream
kube-scheduler in process, or a real control plane), scenario by scenario; with ``--subject``,
any subject against the reference under the configuration it runs (docs/diff.md)."""

from conformance.engines.diff.compare import diff_scenario, fill_pdb_status
from conformance.engines.diff.known import KnownDivergence, classify, load_known
from conformance.engines.diff.lockstep import compare_explanations, lockstep_states
from conformance.engines.diff.minimal import Minimal
from conformance.engines.diff.model import (
    DECISIONS,
    LOCKSTEP,
    WHOLE,
    Divergence,
    ScenarioDiff,
    TieBreak,
)
from conformance.engines.diff.plan import (
    MODE_CHOICES,
    DiffOptions,
    DiffPlan,
    family_counts,
    parse_sizes,
    resolve_modes,
    resolve_plan,
)
from conformance.engines.diff.replay import replay
from conformance.engines.diff.run import DiffReport, DiffRun, run_diff
from conformance.engines.diff.ties import random_preemption_choice
from conformance.engines.diff.whole import compare_whole

__all__ = [
    "DECISIONS", "LOCKSTEP", "MODE_CHOICES", "WHOLE", "DiffOptions", "DiffPlan", "DiffReport",
    "DiffRun", "Divergence", "KnownDivergence", "Minimal", "ScenarioDiff", "TieBreak",
    "classify", "compare_explanations", "compare_whole", "diff_scenario", "family_counts",
    "fill_pdb_status", "load_known", "lockstep_states", "parse_sizes", "random_preemption_choice",
    "replay", "resolve_modes", "resolve_plan", "run_diff",
]
