"""The oracle interface: a context to judge and the violations an oracle reports.

An oracle is a function ``check(ctx: OracleContext) -> list[Violation]``. The context holds the
scenario (manifests, configuration, seed), the initial cluster loaded by the trusted model layer,
and what the subject produced: its ``SimulationResult`` document, its queue trace (or ``None``)
and its per-pod explanations. Oracles never call the reference scheduler's plugins, framework or
scheduler code: they restate the invariants themselves (``oracles/rules.py``), so a bug planted in
the reference cannot hide from them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from conformance.core.replacements import (
    FIT_RESOURCE_RULES,
    Replacement,
    as_replaced,
    rule_id,
)
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectResult
from oracles.profiles import RESTATED_FILTERS, ProfileView, SchedulerView, read_scheduler_config
from oracles.rules import FilterConfig
from oracles.upstream_deviations import followed
from reference_impl.dra.extendedresourcecache import (
    RESOURCE_DEVICE_CLASS_PREFIX as DEVICE_CLASS_RESOURCE_PREFIX,
)
from reference_impl.model.controllers import controllers_of
from reference_impl.model.loader import load_documents
from reference_impl.model.objects import Cluster, Pod
from reference_impl.model.requests import recounted
from reference_impl.releases import ReleaseData, load
from reference_impl.releases.current import RELEASE


@dataclass(slots=True, frozen=True)
class Violation:
    """A broken invariant: which oracle, which pod and node (when one is concerned), and one
    readable paragraph saying what rule broke with which numbers."""

    oracle: str
    pod: str | None
    node: str | None
    message: str
    #: the upstream deviation (oracles/upstream_deviations.yaml) the subject shares when only
    #: upstream's intent forbids what it did; None for a plain violation
    deviation: str | None = None

    def __str__(self) -> str:
        where = " ".join(x for x in (self.pod and f"pod {self.pod}",
                                     self.node and f"node {self.node}") if x)
        return f"[{self.oracle}] {where + ': ' if where else ''}{self.message}"

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"oracle": self.oracle, "pod": self.pod, "node": self.node,
                               "message": self.message}
        if self.deviation:
            doc["deviation"] = self.deviation
        return doc


def counted_for(cluster: Cluster, release: ReleaseData) -> Cluster:
    """``cluster`` with its pods' resources as ``release`` counts them (its
    InPlacePodLevelResourcesVerticalScaling gate and its variant of the switch
    resize-requests-aggregation), as the reference's scheduler re-counts them."""
    pod_level_status = release.feature_enabled("InPlacePodLevelResourcesVerticalScaling")
    resize_rule = release.behaviour("resize-requests-aggregation")
    pods = [recounted(p, pod_level_status=pod_level_status, resize_rule=resize_rule)
            for p in cluster.pods]
    if all(a is p for a, p in zip(pods, cluster.pods, strict=True)):
        return cluster
    return dataclasses.replace(cluster, pods=pods)


@dataclass
class OracleContext:
    """Everything an oracle may look at.

    ``cluster`` is the *initial* cluster (pending pods have no node); oracles that judge a
    decision "at that time" walk the attempts with :class:`oracles.replay.Replay`.
    ``explanations`` maps a pod key to an ``Explanation`` document describing the attempt that
    bound (or last tried) that pod.
    """

    scenario: ScenarioInput
    cluster: Cluster
    result: dict[str, Any]
    trace: list[dict[str, Any]] | None = None
    explanations: dict[str, dict[str, Any]] = field(default_factory=dict)
    timeline: dict[str, Any] | None = None  # the raw kschedconf/v1 Scenario document
    #: the upstream deviations whose upstream behaviour the restated rules follow
    follow: frozenset[str] = field(default_factory=followed)
    #: the followed deviations that changed a verdict of the rules (filled as oracles run)
    met: set[str] = field(default_factory=set)
    #: the release the judged subject runs: the restated rules follow its behaviour switches
    #: where upstream's own rule differs by release (docs/release-differences.md)
    release: ReleaseData = RELEASE
    #: the rules (``NodeResourcesFit/ephemeral-storage``, conformance/core/replacements.py)
    #: left unchecked: those a declared replacement changes on purpose
    relaxed: frozenset[str] = frozenset()
    _filter_cache: dict[str, FilterConfig] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, scenario: ScenarioInput, run: SubjectResult | dict[str, Any],
              trace: list[dict[str, Any]] | None = None,
              release: ReleaseData | None = None) -> OracleContext:
        """The context for ``scenario`` judged against a subject's run (a ``SubjectResult``
        or a bare SimulationResult document) of ``release`` (default: the release the
        scenario names, which every subject schedules it as)."""
        loaded = load_documents(scenario.documents)
        if isinstance(run, SubjectResult):
            result, trace, expl = run.result, run.trace, dict(run.explanations)
        else:
            result, expl = run, {}
        release = release if release is not None else load(scenario.release)
        return cls(scenario, counted_for(loaded.cluster, release), result, trace, expl,
                   loaded.scenario, release=release)

    def following(self, follow: frozenset[str]) -> OracleContext:
        """The same run judged with the rules following only ``follow`` (the intent for every
        other deviation)."""
        return dataclasses.replace(self, follow=follow, met=set(), _filter_cache={})

    def replaced_by(self, replacements: Mapping[str, Replacement]) -> OracleContext:
        """The same run judged with each declared replacement's name read as the in-tree
        plugin's it replaces (docs/plugins.md)."""
        if not replacements or self.config is None:
            return self
        return dataclasses.replace(
            self, scenario=self.scenario.with_config(as_replaced(self.config, replacements)),
            met=set(), _filter_cache={})

    def relaxing(self, rules: frozenset[str]) -> OracleContext:
        """The same run judged without the rules ``rules`` (rule ids)."""
        return dataclasses.replace(self, relaxed=rules, met=set(), _filter_cache={})

    @property
    def config(self) -> dict[str, Any] | None:
        return self.scenario.config or self.cluster.config

    @cached_property
    def scheduler(self) -> SchedulerView:
        return read_scheduler_config(self.config, self.scenario.release)

    @cached_property
    def pods_by_key(self) -> dict[str, Pod]:
        return {p.key: p for p in self.cluster.pods}

    @property
    def attempts(self) -> list[dict[str, Any]]:
        return list(self.result.get("attempts") or [])


    def profile_for(self, pod: Pod) -> ProfileView | None:
        """The profile that schedules ``pod`` (by schedulerName), None if no profile does."""
        return self.scheduler.profile_of(pod.scheduler_name)

    def _dra_extended_names(self) -> frozenset[str]:
        """The extended resources the DeviceClasses map (their ``extendedResourceName`` and
        ``deviceclass.resource.kubernetes.io/<class>``), at the start or created by the
        timeline, where the release's DRAExtendedResource is on; NodeResourcesFit leaves them to
        DynamicResources on a node that does not advertise them (``shouldDelegateResourceToDRA``,
        fit.go)."""
        if not self.release.feature_enabled("DRAExtendedResource"):
            return frozenset()
        names: set[str] = set()
        for cls in self.cluster.dra.device_classes.values():
            names.add(DEVICE_CLASS_RESOURCE_PREFIX + cls.name)
            if cls.extended_resource_name:
                names.add(cls.extended_resource_name)
        # and those of the classes timeline events create (applyObject): from then on upstream
        # delegates them too; counted for the whole run, the lenient side for an oracle
        for ev in ((self.timeline or {}).get("spec") or {}).get("events") or []:
            obj = ev.get("object") if isinstance(ev, dict) else None
            if ev.get("action") != "applyObject" or not isinstance(obj, dict) or \
                    obj.get("kind") != "DeviceClass":
                continue
            names.add(DEVICE_CLASS_RESOURCE_PREFIX + str((obj.get("metadata") or {}).get("name")))
            if (ext := (obj.get("spec") or {}).get("extendedResourceName")):
                names.add(str(ext))
        return frozenset(names)

    def filters_for(self, pod: Pod) -> FilterConfig | None:
        """The restated Filter rules that apply to ``pod`` (its profile's enabled filters and
        their args); None when no profile schedules the pod."""
        prof = self.profile_for(pod)
        if prof is None:
            return None
        cached = self._filter_cache.get(prof.scheduler_name)
        if cached is None:
            relaxed = self.relaxed
            cached = FilterConfig(
                enabled=frozenset(n for n in RESTATED_FILTERS if prof.enabled(n, "filter")
                                  and rule_id(n, "filter") not in relaxed),
                ignored_resources=prof.fit_ignored_resources,
                ignored_groups=prof.fit_ignored_groups,
                added_affinity=(None if rule_id("NodeAffinity", "added-affinity") in relaxed
                                else prof.added_affinity),
                fit_skipped=frozenset(r for r in FIT_RESOURCE_RULES
                                      if rule_id("NodeResourcesFit", r) in relaxed),
                spread_defaults=prof.spread_default_constraints,
                controllers=controllers_of(self.cluster), follow=self.follow, met=self.met,
                namespace_selector_kept=self.release.behaviour(
                    "interpodaffinity-namespace-merge") == "selector-kept",
                dra_extended=self._dra_extended_names())
            self._filter_cache[prof.scheduler_name] = cached
        return cached
