"""The subject shared by the launchers that own their control plane (process, docker): the
control plane starts on the first scenario and serves every scenario of the subject's life;
each scenario gets a fresh run id and a fresh kube-scheduler started after its objects exist,
and everything labelled with the run id is deleted after it (``docs/backends.md``).
"""

from __future__ import annotations

import contextlib
import itertools
import time
from abc import abstractmethod
from typing import Any

from conformance.backends.api import ClusterApi
from conformance.backends.control_plane import SchedulerState
from conformance.backends.driver import Driver, DriverOptions
from conformance.backends.plan import new_run_id
from conformance.core.errors import UsageError
from conformance.core.scenario import ScenarioInput, read_config_doc
from conformance.core.subject import (
    ScenarioRejected,
    ScenarioTimedOut,
    Subject,
    SubjectError,
    SubjectResult,
)
from reference_impl.releases import supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE


class OwnedControlPlaneSubject(Subject):
    """Base of ``process`` and ``docker``: subclasses start/stop the components of
    ``release`` (the pinned one unless given; a supported release) and refuse a scenario of
    another release, as the upstream subject does."""

    reports_scores = False
    real_control_plane = True

    def __init__(self, *, config_path: str | None = None, time_scale: float = 1.0,
                 settle: float = 0.5, timeout: float = 120.0,
                 release: str | None = None) -> None:
        self._release = release or UPSTREAM_RELEASE
        if self._release not in supported_releases():
            raise SubjectError(f"{self.name}: no release {self._release!r} (supported: "
                               f"{', '.join(supported_releases())})")
        self.config_path = config_path
        self.config_doc: dict[str, Any] | None = None
        if config_path is not None:

            try:
                self.config_doc = read_config_doc(config_path)
            except UsageError as e:
                raise SubjectError(str(e)) from e
        self.time_scale = time_scale
        self.settle = settle
        self.timeout = timeout
        self.run_prefix = new_run_id()
        self._counter = itertools.count(1)
        self._started = False
        self.timings: dict[str, float] = {}
        self.scenarios_run = 0

    @property
    def release(self) -> str:
        """The release whose kube-scheduler, kube-apiserver and etcd run."""
        return self._release

    @property
    def fixed_config(self) -> dict[str, Any] | None:
        """The scheduler configuration given to the backend; None for each scenario's own."""
        return self.config_doc

    # ----- what a launcher provides -----
    @abstractmethod
    def start_control_plane(self) -> None:
        """Start etcd and kube-apiserver and wait until they are ready."""

    @abstractmethod
    def api(self) -> ClusterApi:
        """A client of the running API server."""

    @abstractmethod
    def start_scheduler(self, config: dict[str, Any] | None) -> None:
        """Start kube-scheduler with the scenario's configuration; return when ready."""

    @abstractmethod
    def stop_scheduler(self) -> None: ...

    @abstractmethod
    def scheduler_state(self) -> SchedulerState | None:
        """What the running scheduler's metrics say of its work; None when unreadable."""

    @abstractmethod
    def stop_control_plane(self) -> None: ...

    def scheduler_log(self) -> str | None:
        """The running scheduler's log (``--v=3``: it orders the attempts); None if none."""
        return None

    def check_alive(self) -> None:
        """Raise :class:`SubjectError` (with the component's log tail) when a component of
        the control plane has died; the driver asks during every scenario."""

    def scheduler_log_tail(self) -> str:
        """The last lines of the running scheduler's log ("" if none)."""
        return ""

    def control_plane_running(self) -> bool:
        """False once the control plane is gone (closed, or stopped by a signal handler)."""
        return self._started

    # ----- the subject -----
    def _ensure_started(self) -> None:
        if self._started:
            return
        t = time.monotonic()
        try:
            self.start_control_plane()
        except BaseException:
            self.stop_control_plane()
            raise
        self._started = True
        self.timings["control_plane_start"] = time.monotonic() - t

    def check_release(self, scenario: ScenarioInput) -> None:
        """A :class:`SubjectError` for a scenario of another release than the one running."""
        if scenario.release != self.release:
            raise SubjectError(f"{self.name} subject: it runs kube-scheduler {self.release}; "
                               f"scenario {scenario.name} is of {scenario.release} (run it "
                               f"with --release {scenario.release}, the subject "
                               f"{self.name}@{scenario.release})")

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        self.check_release(scenario)
        self._ensure_started()
        if self.config_doc is not None:
            scenario = scenario.derived(config=self.config_doc, covers="")
        run_id = f"{self.run_prefix}-{next(self._counter)}"
        driver = Driver(self.api(), DriverOptions(run_id=run_id, mode="owned",
                                                  time_scale=self.time_scale,
                                                  settle=self.settle, timeout=self.timeout,
                                                  release=self.release))
        try:
            doc = driver.run(scenario, hooks=self)
        except ScenarioRejected:
            self._after(driver)  # a refusal (ScenarioUnsupported: storage) stays one
            raise
        except SubjectError as e:
            tail = "" if "log (tail) ---" in str(e) else self._log_tail()
            problems = self._after(driver)
            if isinstance(e, ScenarioTimedOut) and problems:  # the next would not start clean
                raise SubjectError(f"{e}; could not clean up after scenario {scenario.name}: "
                                   f"{'; '.join(problems)}") from e
            if tail:  # the same class: a ScenarioTimedOut stays one (the run goes on)
                raise type(e)(f"{e}\n--- kube-scheduler log (tail) ---\n{tail}") from e
            raise
        except BaseException:
            self._after(driver)  # best effort: never hides what stopped the run
            raise
        problems = self._after(driver)
        if problems:
            raise SubjectError(f"{self.name}: could not clean up after scenario "
                               f"{scenario.name}: {'; '.join(problems)}")
        self.scenarios_run += 1
        return SubjectResult(doc, warnings=list(driver.warnings))

    def _log_tail(self) -> str:
        try:
            return self.scheduler_log_tail().rstrip()
        except Exception:  # noqa: BLE001 - the error being reported matters more
            return ""

    def _after(self, driver: Driver) -> list[str]:
        """Stop the scenario's scheduler and delete everything labelled with its run id.
        Never raises (a control plane already stopped by a signal handler is not an error
        here); returns the problems."""
        with contextlib.suppress(Exception):
            self.stop_scheduler()
        self.timings.update({f"last_{k}": v for k, v in driver.seconds.items()})
        if not self.control_plane_running():
            return []
        t = time.monotonic()
        try:
            problems = driver.delete_owned()
            driver.finalize_namespaces()
        except Exception as e:
            problems = [f"{type(e).__name__}: {e}"]
        self.timings["last_cleanup"] = time.monotonic() - t
        return problems

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.stop_scheduler()
        self.stop_control_plane()
        self._started = False
