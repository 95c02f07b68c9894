"""Hypothesis strategies for Kubernetes scheduling scenarios.

Everything generated is a plain v1 manifest dict (what a user's YAML holds) that the API server
would accept, and that ``reference_impl.model.loader.load_documents`` loads; configurations pass
``reference_impl.config.load_config``. See ``docs/strategies.md``.

    from hypothesis import given
    from strategies import SMALL, scenarios, stable_draws

    @stable_draws  # the seed alone decides the draws (docs/strategies.md)
    @given(scenarios(SMALL))
    def test_something(scenario): ...
"""

from strategies.clusters import GeneratedCluster, clusters, pending_pods
from strategies.configs import profiles, scheduler_configs, scheduler_names_of
from strategies.dra import dra_documents
from strategies.draws import seed_only_draws, stable_draws
from strategies.objects import (
    PodContext,
    label_selectors,
    namespaces,
    node_affinities,
    nodes,
    pdbs,
    pod_affinity_terms,
    pod_labels,
    pod_requests,
    pods,
    priority_class_lists,
    priority_classes,
    taints,
    tolerations,
    topology_spread_constraints,
)
from strategies.quantities import Quantity, quantities, quantity_values, resource_lists
from strategies.scenarios import scenarios
from strategies.sizes import (
    ALL_FEATURES,
    LARGE,
    MEDIUM,
    OPT_IN_FEATURES,
    RESOURCES_ONLY,
    SMALL,
    Sizes,
)
from strategies.timelines import timelines

__all__ = [
    "ALL_FEATURES",
    "GeneratedCluster",
    "LARGE",
    "MEDIUM",
    "OPT_IN_FEATURES",
    "PodContext",
    "Quantity",
    "RESOURCES_ONLY",
    "SMALL",
    "Sizes",
    "clusters",
    "dra_documents",
    "label_selectors",
    "namespaces",
    "node_affinities",
    "nodes",
    "pdbs",
    "pending_pods",
    "pod_affinity_terms",
    "pod_labels",
    "pod_requests",
    "pods",
    "priority_class_lists",
    "priority_classes",
    "profiles",
    "quantities",
    "seed_only_draws",
    "stable_draws",
    "quantity_values",
    "resource_lists",
    "scenarios",
    "scheduler_configs",
    "scheduler_names_of",
    "taints",
    "timelines",
    "tolerations",
    "topology_spread_constraints",
]
