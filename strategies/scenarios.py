"""Whole scenarios (``conformance.core.scenario.ScenarioInput``): a cluster with running pods that
fit, pending pods, maybe a KubeSchedulerConfiguration, maybe a timeline, and a seed.

About one scenario in four holds workloads, expanded into their pods here
(``strategies/workloads.py``), and about one in four looks like a dump of a busy cluster
(``strategies/busy.py``). The documents are ordered PriorityClasses, Namespaces, Nodes, running
pods, pending pods (the workloads' pods last), PDBs, the workloads with their Services and a
Deployment's ReplicaSet, DRA objects (feature ``dra``, opt-in: ``dra.py``), storage objects
(feature ``storage``, opt-in: ``storage.py``; classes and CSIDrivers are drawn before the
workloads, whose StatefulSets' claim templates name them), Services and the
pods' owner objects (``services.py``), then the timeline (``kschedconf/v1`` Scenario) if any;
the configuration is ``config``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable

from hypothesis import strategies as st

from conformance.core.scenario import ScenarioInput
from strategies._cache import composite, integers
from strategies.busy import busy_cluster
from strategies.clusters import clusters, pending_pods
from strategies.configs import scheduler_configs, scheduler_names_of
from strategies.dra import (
    DRA_BINDING_FEATURE,
    DRA_FEATURE,
    binding_conditions,
    binding_witness,
    claim_releases,
    dra_documents,
    timeline_claims,
    with_template_claims,
)
from strategies.dra_holders import extended_resource_holders
from strategies.dra_timeline import dra_object_writes
from strategies.services import selecting_objects
from strategies.sizes import SMALL, Sizes, resolve_features
from strategies.storage import STORAGE_FEATURE, storage_classes, storage_documents
from strategies.timelines import timelines
from strategies.workloads import add_workloads

__all__ = ["scenarios"]


@functools.lru_cache(maxsize=64)
def _optional_configs(sizes: Sizes, f: frozenset[str]) -> st.SearchStrategy[dict | None]:
    """No configuration, or one (built once per arguments)."""
    return st.none() | scheduler_configs(sizes, f)


@composite
def scenarios(draw: st.DrawFn, sizes: Sizes = SMALL, features: Iterable[str] | None = None,
              name: str = "generated") -> ScenarioInput:
    """A whole scenario. ``features`` (default: all of ``ALL_FEATURES``) limits what may appear;
    without "config" there is never a configuration, without "timeline" never a timeline."""
    f = resolve_features(features)
    config = None
    if "config" in f:
        config = draw(_optional_configs(sizes, f))
    names = scheduler_names_of(config)
    cluster = draw(clusters(sizes, f, names))
    # a DRA scenario has a pending pod to claim devices (strategies/dra.py gives one claims)
    pending = draw(pending_pods(cluster, sizes, f, names, int(DRA_FEATURE in f)))
    classes = draw(storage_classes(cluster)) if STORAGE_FEATURE in f else None
    workloads, triggered = draw(add_workloads(cluster, pending, sizes, f, names, classes))
    draw(busy_cluster(cluster, pending, f))
    binding = DRA_BINDING_FEATURE in f
    dra = draw(dra_documents(cluster, pending, sizes, binding)) if DRA_FEATURE in f else []
    storage = [] if classes is None else [
        *classes.documents, *draw(storage_documents(cluster, pending, classes, sizes))]
    documents = cluster.documents(pending) + workloads + dra + storage
    if "services" in f:
        documents += draw(selecting_objects([*cluster.running_pods, *pending], workloads))
    if dra:
        documents = with_template_claims(documents)
    timeline = None
    if "timeline" in f:
        room = dataclasses.replace(sizes, max_events=max(0, sizes.max_events - len(triggered)))
        timeline = draw(st.none() | timelines(cluster, pending, room, f, names))
    if triggered:  # an OrderedReady StatefulSet's later replicas
        if timeline is None:
            timeline = {"apiVersion": "kschedconf/v1", "kind": "Scenario",
                        "metadata": {"name": "workloads"}, "spec": {"events": []}}
        timeline["spec"]["events"] = [*timeline["spec"]["events"], *triggered]
    if binding and dra:
        config, timeline = binding_conditions(config, timeline)
        documents.append(binding_witness())
    seed = draw(integers(0, 2**16))
    if dra:  # drawn last: the rest of the scenario is what it was without it
        documents += draw(timeline_claims(documents, timeline))
        if "timeline" in f and not binding:
            # not with binding conditions: upstream's PreBind then waits in wall-clock time
            # in its own goroutine, and the claim events of the release come in during that
            # wait in an order no deterministic subject reproduces
            documents, timeline = draw(claim_releases(documents, timeline))
        # a bound holder of DRA-backed extended resources, released for a waiter
        documents, timeline = draw(extended_resource_holders(
            documents, timeline, "timeline" in f and not binding))
        if "timeline" in f and not binding:
            # slices published, updated or deleted, a class created, a taint rule added
            documents, timeline = draw(dra_object_writes(documents, timeline))
    if timeline is not None:
        documents.append(timeline)
    return ScenarioInput(documents, config, seed, name)
