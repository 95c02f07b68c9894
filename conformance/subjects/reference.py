"""The reference scheduler as a subject.

``ReferenceSubject()`` is the reference with the pinned release's default profile;
``ReferenceSubject(config_path, plugin_modules)`` is the reference with a user's
KubeSchedulerConfiguration and out-of-tree Python plugins (the same as
``kschedconf simulate --config CFG --plugins MOD``).

Which configuration applies to a scenario: the subject's own ``config_path`` if given, else the
scenario's ``KubeSchedulerConfiguration`` document, else the release's default profile.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from conformance.core.documents import explanation_doc, simulation_doc
from conformance.core.errors import UsageError
from conformance.core.replacements import Replacement, declared_replacements
from conformance.core.scenario import ScenarioInput, read_config_doc
from conformance.core.subject import (
    Document,
    ScenarioRejected,
    Subject,
    SubjectError,
    SubjectResult,
)
from reference_impl.config import default_config, load_config
from reference_impl.config.errors import ConfigError
from reference_impl.config.types import SchedulerConfiguration
from reference_impl.model.errors import InputError
from reference_impl.model.loader import LoadResult, load_documents
from reference_impl.model.loader.memo import LoadMemo
from reference_impl.model.scenario import parse_scenario
from reference_impl.plugins.registry import build_registry
from reference_impl.releases import ReleaseData, load
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from reference_impl.scheduler.explain import explain
from reference_impl.scheduler.scheduler import Scheduler
from reference_impl.scheduler.simulation import merge_simulation_doc, run_simulation


class ReferenceSubject(Subject):
    """The in-process reference scheduler (``reference_impl``)."""

    name = "reference"
    reports_scores = True
    can_explain = True

    def __init__(self, config_path: str | os.PathLike[str] | None = None,
                 plugin_modules: Sequence[str] = (), release: str = UPSTREAM_RELEASE,
                 replaces: Sequence[str] = ()) -> None:
        """``replaces``: ``--replaces PLUGIN=IN_TREE[:rule,...]`` declarations, beside the
        plugin classes' own (:mod:`conformance.core.replacements`); an invalid one is a
        :class:`UsageError`."""
        self._release = release
        self.config_path = os.fspath(config_path) if config_path is not None else None
        self.plugin_modules = tuple(plugin_modules)
        #: the in-tree plugins are safe to run from several threads; a user's may not be
        self.concurrent_runs = not self.plugin_modules
        try:
            self.registry = build_registry(list(self.plugin_modules))
        except (ImportError, ValueError, SyntaxError, OSError) as e:
            raise SubjectError(f"plugins {', '.join(self.plugin_modules)}: {e}") from e
        self._replacements = declared_replacements(self.registry, replaces)
        self.config: SchedulerConfiguration | None = None
        #: reference:CFG loaded as each other release a scenario names
        self._config_for: dict[str, SchedulerConfiguration] = {}
        #: the scenarios' own configurations (or the default), loaded once per document and
        #: release: a loaded configuration is shared by the runs that use it, as
        #: reference:CFG's always was (the scheduler does not change it)
        self._loaded: dict[tuple[str, str], SchedulerConfiguration] = {}
        self.config_doc: Document | None = None
        #: pods and nodes converted by earlier loads: the differential's lockstep loads a
        #: cluster state per attempt, states a pod or two apart (model/loader/memo.py)
        self._memo = LoadMemo()
        if self.config_path is not None:
            if not os.path.exists(self.config_path):
                raise SubjectError(f"{self.config_path}: no such file")
            try:
                self.config = load_config(self.config_path, self.registry, load(release))
                self.config_doc = read_config_doc(self.config_path)
            except ConfigError as e:
                raise SubjectError(str(e)) from e
            except UsageError as e:
                raise SubjectError(str(e)) from e

    @property
    def fixed_config(self) -> Document | None:
        """The ``reference:CFG.yaml`` configuration document; None for the scenario's own."""
        return self.config_doc

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        """Load the scenario's manifests, build the scheduler with the scenario's seed and run
        it as ``kschedconf simulate`` does: the scheduling queue over virtual time
        (``run_simulation``), with the scenario's timeline (a ``kschedconf/v1`` Scenario
        document) if it has one, until quiescence. The result carries the timing fields;
        ``trace`` holds the queue operations, ``warnings`` the loader's. An invalid
        scenario or configuration is a
        :class:`SubjectError`; any other exception is a crash of the reference and
        propagates."""
        loaded, config = self._load(scenario)
        timeline = None
        if loaded.scenario is not None:
            try:
                timeline = parse_scenario(loaded.scenario, loaded.cluster, source=scenario.name)
            except InputError as e:
                raise ScenarioRejected(f"the reference rejected scenario {scenario.name}: "
                                       f"{e}") from e
        scheduler = Scheduler(loaded.cluster, config, self.registry, seed=scenario.seed,
                              release=load(scenario.release))
        result = run_simulation(scheduler, timeline, trace=True)
        doc = merge_simulation_doc(simulation_doc(result, scenario.release), result)
        trace = doc.pop("trace", None)
        # what the loader left out (kinds it does not model, terminal pods): every command
        # reports it (conformance/core/dropped.py)
        return SubjectResult(doc, trace=trace, warnings=list(loaded.warnings))

    def _load(self, scenario: ScenarioInput) -> tuple[LoadResult, SchedulerConfiguration | None]:
        """The scenario's cluster and the configuration that applies (the module docstring);
        invalid input is :class:`ScenarioRejected`."""
        release = load(scenario.release)
        try:
            loaded = load_documents(scenario.documents, source=scenario.name, memo=self._memo)
            config = self.config
            if config is not None and config.release is not release:
                # reference:CFG follows the scenario's release like a scenario's own config
                config = self._config_for.get(release.release)
                if config is None:
                    config = self._config_for[release.release] = load_config(
                        self.config_doc or {}, self.registry, release)
            if config is None:
                raw = scenario.config if scenario.config is not None else loaded.cluster.config
                config = self._scenario_config(raw, release)
        except (InputError, ConfigError) as e:
            raise ScenarioRejected(f"the reference rejected scenario {scenario.name}: "
                                   f"{e}") from e
        return loaded, config

    def _scenario_config(self, raw: Document | None,
                         release: ReleaseData) -> SchedulerConfiguration:
        """``load_config(raw)`` as ``release``, or its default configuration (``raw`` None),
        loaded once per document (by ``repr``: the same keys in the same order, the same
        types) and release; an invalid one raises each time."""
        key = (repr(raw), release.release)
        config = self._loaded.get(key)
        if config is None:
            if len(self._loaded) >= 256:
                self._loaded.clear()
            config = (default_config(self.registry, release) if raw is None
                      else load_config(raw, self.registry, release))
            self._loaded[key] = config
        return config

    def explain(self, scenario: ScenarioInput, pod: str) -> Document:
        """Every plugin's verdict and score for pending pod ``pod`` (``ns/name``)."""
        loaded, config = self._load(scenario)
        return self._explain(scenario, loaded, config, pod)

    def explain_many(self, scenario: ScenarioInput, pods: Sequence[str]
                     ) -> list[Document | ScenarioRejected]:
        """:meth:`explain` of each pod, the scenario loaded once for all (:meth:`explain_loaded`);
        pod by pod when a subclass has an :meth:`explain` of its own (it may change the scenario
        or the answer first, and then gives its ``explain_many`` too, as ``BaselineReference``)."""
        if type(self).explain is not ReferenceSubject.explain:
            return super().explain_many(scenario, pods)
        return self.explain_loaded(scenario, pods)

    def explain_loaded(self, scenario: ScenarioInput, pods: Sequence[str]
                       ) -> list[Document | ScenarioRejected]:
        """The explanation of each pod on one load of the scenario: an explanation builds its
        own scheduler and leaves the loaded cluster as it was (``explain``'s docstring), so each
        is the one a load of its own gives; a refusal is that pod's answer."""
        try:
            loaded, config = self._load(scenario)
        except ScenarioRejected as e:
            return [e for _ in pods]
        out: list[Document | ScenarioRejected] = []
        for pod in pods:
            try:
                out.append(self._explain(scenario, loaded, config, pod))
            except ScenarioRejected as e:
                out.append(e)
        return out

    def _explain(self, scenario: ScenarioInput, loaded: LoadResult,
                 config: SchedulerConfiguration | None, pod: str) -> Document:
        matches = [p for p in loaded.cluster.pods if p.key == pod]
        if not matches:
            raise ScenarioRejected(f"no pod {pod!r} in the cluster")
        if matches[0].node_name:
            raise ScenarioRejected(f"{pod} is already bound to {matches[0].node_name}")
        scheduler = Scheduler(loaded.cluster, config, self.registry, seed=scenario.seed,
                              release=load(scenario.release))
        try:
            return explanation_doc(explain(scheduler, matches[0]), scenario.release)
        except ValueError as e:  # no profile for the pod's schedulerName
            raise ScenarioRejected(str(e)) from e

    @property
    def replacements(self) -> Mapping[str, Replacement]:
        return self._replacements

    @property
    def release(self) -> str:
        """The release the run asked for (``--release``); each scenario is scheduled as the
        release it names, which the engines set to this one."""
        return self._release

    def describe(self) -> dict[str, str]:
        d = {"subject": self.name, "upstreamRelease": self._release,
             "implementation": "kschedconf reference_impl (Python)"}
        if self.config_path:
            d["config"] = self.config_path
        if self.plugin_modules:
            d["plugins"] = ", ".join(self.plugin_modules)
        if self._replacements:
            d["replacements"] = "; ".join(r.describe() for r in self._replacements.values())
        return d
