"""The ``process`` backend: etcd, kube-apiserver, kube-scheduler (and, for the scenarios that need
its resourceclaim controller, kube-controller-manager) of the pinned release (or of another
supported one) as local processes (binaries from ``backends/build.sh [--release]``:
:func:`find_binaries`), on reserved loopback ports (``ports.py``), in a private temporary
directory with fresh certificates (``certs.py``), released on every exit path
(``cleanup.py``). Flags and search order: ``docs/backends.md``.
"""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

import conformance.backends.cleanup as cleanup
from conformance.backends.api import KubeApi
from conformance.backends.certs import CertBundle, make_certs
from conformance.backends.control_plane import (
    SCHEDULER_FEATURE_GATES,
    SCHEDULER_VERBOSITY,
    SERVICE_CIDR,
    SchedulerState,
    claim_queue_work,
    controller_args,
    controller_synced,
    disabled_admission,
    read_metrics,
    read_scheduler_state,
    scheduler_config,
    write_kubeconfig,
)
from conformance.backends.ports import LOOPBACK, PortReservation, sweep_stale_locks
from conformance.backends.subject import OwnedControlPlaneSubject
from conformance.core.subject import SubjectError
from reference_impl.releases.pinned import UPSTREAM_RELEASE

BINARIES = ("etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager")
#: the binaries that print the release (``--version``)
VERSIONED = ("kube-apiserver", "kube-scheduler", "kube-controller-manager")
REPO_BIN = Path(__file__).resolve().parents[2] / "backends" / "bin"
LOG_TAIL_LINES = 30
START_TIMEOUT = 60.0
PORT_RETRIES = 3


def build_command(release: str = UPSTREAM_RELEASE) -> str:
    """The command that builds the binaries of ``release``."""
    return ("bash backends/build.sh" if release == UPSTREAM_RELEASE else
            f"bash backends/build.sh --release {release}")


def binary_dirs(bin_dir: str | os.PathLike[str] | None = None,
                release: str = UPSTREAM_RELEASE) -> list[Path]:
    """Where the binaries of ``release`` are looked for: ``bin_dir`` itself when given; else
    ``vX.Y.Z/`` of ``$KSCHEDCONF_BACKENDS_BIN`` or ``backends/bin`` (``backends/build.sh
    --release``), and for the pinned release that directory itself first (its layout before
    per-release builds, which build.sh keeps)."""
    if bin_dir:
        return [Path(bin_dir)]
    base = Path(os.environ.get("KSCHEDCONF_BACKENDS_BIN") or REPO_BIN)
    return [base, base / release] if release == UPSTREAM_RELEASE else [base / release]


def binary_release(path: Path) -> str:
    """The release ``kube-apiserver --version`` / ``kube-scheduler --version`` prints
    ("Kubernetes v1.34.4"), or "" when it prints nothing of the kind."""
    try:
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True,
                             timeout=30, check=False).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return ""
    return out[1] if len(out) >= 2 and out[0] == "Kubernetes" else ""


def find_binaries(bin_dir: str | os.PathLike[str] | None = None,
                  release: str = UPSTREAM_RELEASE) -> dict[str, Path]:
    """The binaries of ``release`` (:data:`BINARIES`), or a :class:`SubjectError` saying how to
    build them. The pinned release's may also come from ``$PATH``; the Kubernetes components
    must say they are of ``release`` (``--version``)."""
    dirs = binary_dirs(bin_dir, release)
    use_path = not bin_dir and release == UPSTREAM_RELEASE
    out: dict[str, Path] = {}
    for name in BINARIES:
        for d in dirs:
            p = d / name
            if os.access(p, os.X_OK):
                out[name] = p
                break
        else:
            found = shutil.which(name) if use_path else None
            if found is None:
                raise SubjectError(
                    f"process backend: {name} not found in {', '.join(map(str, dirs))}"
                    f"{' or on PATH' if use_path else ''}; build the binaries of "
                    f"{'the pinned release ' if release == UPSTREAM_RELEASE else ''}{release} "
                    f"with `{build_command(release)}` (needs Go)")
            out[name] = Path(found)
    for name in VERSIONED:
        got = binary_release(out[name])
        if got != release:
            raise SubjectError(
                f"process backend: {out[name]} is {got or 'of an unknown release'}, not "
                f"{release}; build the binaries of {release} with `{build_command(release)}`")
    return out


def binaries_missing(release: str = UPSTREAM_RELEASE) -> str:
    """Why the binaries of ``release`` cannot be found (how to build them), or ``""``."""
    try:
        find_binaries(release=release)
    except SubjectError as e:
        return str(e)
    return ""


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


class _Component:
    def __init__(self, name: str, proc: subprocess.Popen[bytes], log: Path) -> None:
        self.name = name
        self.proc = proc
        self.log = log


class PortInUse(SubjectError):
    """A component could not bind its port (another program took it): retry."""


class ProcessControlPlane:
    """etcd + kube-apiserver (+ one kube-scheduler at a time) in a temporary directory."""

    def __init__(self, bin_dir: str | None = None, *, start_timeout: float = START_TIMEOUT,
                 keep_dir: bool = False, release: str = UPSTREAM_RELEASE,
                 admission_on: Sequence[str] = ()) -> None:
        self.release = release
        #: admission plugins of DISABLED_ADMISSION left on (control_plane.disabled_admission)
        self.admission_on = tuple(admission_on)
        self.bins = find_binaries(bin_dir, release)
        self.start_timeout = start_timeout
        self.keep_dir = keep_dir
        self.cleanup: cleanup.Cleanup | None = None
        self.dir: Path | None = None
        self.certs: CertBundle | None = None
        self.ports = PortReservation()
        self.etcd_port = self.api_port = self.peer_port = 0
        self.scheduler: _Component | None = None
        self.last_scheduler: _Component | None = None
        self.scheduler_port = 0
        self.controller: _Component | None = None
        self.controller_port = 0
        self.components: list[_Component] = []
        self._api: KubeApi | None = None
        self._ssl: ssl.SSLContext | None = None
        self.scheduler_runs = 0

    # ----- helpers -----
    def _fail(self, comp: _Component, what: str) -> SubjectError:
        tail = log_tail(comp.log)
        cls = PortInUse if "address already in use" in tail else SubjectError
        msg = f"process backend: {comp.name} {what}"
        if tail:
            msg += f"\n--- {comp.name} log (tail) ---\n{tail}"
        return cls(msg)

    def _spawn(self, name: str, argv: list[str], log_name: str | None = None) -> _Component:
        assert self.dir is not None and self.cleanup is not None
        log = self.dir / f"{log_name or name}.log"
        try:
            proc = cleanup.spawn(argv, log=log, cwd=str(self.dir))
        except OSError as e:
            raise SubjectError(f"process backend: cannot start {name}: {e}") from e
        comp = _Component(name, proc, log)
        self.cleanup.push(f"process {name}", lambda: cleanup.stop_process(proc))
        self.components.append(comp)
        return comp

    def ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            assert self.certs is not None
            ctx = ssl.create_default_context(cafile=str(self.certs.ca_cert))
            ctx.load_cert_chain(str(self.certs.client_cert), str(self.certs.client_key))
            self._ssl = ctx
        return self._ssl

    def _get(self, url: str, timeout: float = 2.0) -> tuple[int, str]:
        ctx = self.ssl_context() if url.startswith("https") else None
        try:
            with urllib.request.urlopen(url, timeout=timeout, context=ctx) as r:  # noqa: S310
                return r.status, r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace")

    def _wait(self, comp: _Component, url: str, ok: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        while True:
            if comp.proc.poll() is not None:
                raise self._fail(comp, f"exited with code {comp.proc.returncode} while "
                                       "starting")
            try:
                status, body = self._get(url)
                if status == 200 and ok in body:
                    return
                last = f"HTTP {status}: {body.strip()[-300:]}"
            except (OSError, ssl.SSLError) as e:
                last = str(e)
            if time.monotonic() > deadline:
                raise self._fail(comp, f"not ready after {timeout:g} s ({url}: {last})")
            time.sleep(0.1)

    # ----- the control plane -----
    def start(self) -> None:
        cleanup.sweep_stale_dirs()
        sweep_stale_locks()
        for attempt in range(PORT_RETRIES):
            try:
                self._start_once()
                return
            except PortInUse:
                self.stop()
                if attempt == PORT_RETRIES - 1:
                    raise

    def _start_once(self) -> None:
        self.cleanup = cleanup.Cleanup("process backend")
        self.dir = cleanup.make_temp_dir("process")
        d = self.dir
        if not self.keep_dir:
            self.cleanup.push("temporary directory", lambda: cleanup.remove_dir(d))
        self.cleanup.push("port reservations", self.ports.release)
        self.certs = make_certs(d / "pki")
        self.etcd_port, self.peer_port, self.api_port = self.ports.take_many(3)
        etcd_url = f"http://{LOOPBACK}:{self.etcd_port}"
        peer_url = f"http://{LOOPBACK}:{self.peer_port}"
        etcd = self._spawn("etcd", [
            str(self.bins["etcd"]), "--name", "kschedconf", "--data-dir", str(d / "etcd"),
            "--listen-client-urls", etcd_url, "--advertise-client-urls", etcd_url,
            "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
            "--initial-cluster", f"kschedconf={peer_url}", "--unsafe-no-fsync",
            "--log-level", "warn"])
        self._wait(etcd, f"{etcd_url}/health", '"health":"true"', self.start_timeout)
        c = self.certs
        api = self._spawn("kube-apiserver", [
            str(self.bins["kube-apiserver"]),
            f"--etcd-servers={etcd_url}",
            f"--bind-address={LOOPBACK}", f"--advertise-address={LOOPBACK}",
            f"--secure-port={self.api_port}", f"--cert-dir={d / 'apiserver-certs'}",
            f"--tls-cert-file={c.server_cert}", f"--tls-private-key-file={c.server_key}",
            f"--client-ca-file={c.ca_cert}", "--anonymous-auth=false",
            f"--requestheader-client-ca-file={c.ca_cert}",
            "--requestheader-allowed-names=kschedconf-no-front-proxy",
            "--authorization-mode=AlwaysAllow",
            "--service-account-issuer=https://kubernetes.default.svc",
            f"--service-account-key-file={c.sa_pub}",
            f"--service-account-signing-key-file={c.sa_key}",
            f"--service-cluster-ip-range={SERVICE_CIDR}",
            "--endpoint-reconciler-type=none",
            "--enable-admission-plugins=NamespaceLifecycle",
            f"--disable-admission-plugins="
            f"{','.join(disabled_admission(self.release, self.admission_on))}",
            "--enable-priority-and-fairness=false", "--profiling=false",
            "--watch-cache=true", "--v=1"])
        self._wait(api, f"https://{LOOPBACK}:{self.api_port}/readyz", "ok", self.start_timeout)
        self.kubeconfig = d / "kubeconfig.yaml"
        write_kubeconfig(self.kubeconfig, f"https://{LOOPBACK}:{self.api_port}", c)

    def api(self) -> KubeApi:
        if self._api is None:
            assert self.dir is not None
            self._api = KubeApi.from_kubeconfig(str(self.kubeconfig),
                                                discovery_cache=str(self.dir / "discovery.json"))
        return self._api

    def start_scheduler(self, config: dict[str, Any] | None) -> None:
        assert self.dir is not None and self.certs is not None and self.cleanup is not None
        self._stop_scheduler_only()
        self.scheduler_runs += 1
        cfg_path = self.dir / f"scheduler-{self.scheduler_runs}.yaml"
        cfg = scheduler_config(config, str(self.kubeconfig))
        cfg_path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        c = self.certs

        def spawn(port: int, attempt: int) -> _Component:
            self.scheduler_port = port
            self.scheduler = self._spawn("kube-scheduler", [
                str(self.bins["kube-scheduler"]), f"--config={cfg_path}",
                f"--bind-address={LOOPBACK}", f"--secure-port={port}",
                f"--tls-cert-file={c.server_cert}", f"--tls-private-key-file={c.server_key}",
                f"--authentication-kubeconfig={self.kubeconfig}",
                f"--authorization-kubeconfig={self.kubeconfig}",
                "--authentication-tolerate-lookup-failure",
                "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
                f"--feature-gates={SCHEDULER_FEATURE_GATES}", f"--v={SCHEDULER_VERBOSITY}"],
                # a log per scheduler: its cycles order this scenario's attempts
                log_name=f"kube-scheduler-{self.scheduler_runs}-{attempt}")
            return self.scheduler

        self._start_on_a_port(spawn, "/readyz", self._stop_scheduler_only)

    def start_controllers(self) -> None:
        """Start kube-controller-manager with the resourceclaim controller
        (``control_plane.controller_args``) and return once its informers are synced."""
        assert self.dir is not None and self.certs is not None and self.cleanup is not None
        self.stop_controllers()
        c = self.certs

        def spawn(port: int, attempt: int) -> _Component:
            self.controller_port = port
            self.controller = self._spawn("kube-controller-manager", [
                str(self.bins["kube-controller-manager"]), *controller_args(
                    str(self.kubeconfig), port=port, bind=LOOPBACK,
                    cert=str(c.server_cert), key=str(c.server_key))],
                log_name=f"kube-controller-manager-{self.scheduler_runs + 1}-{attempt}")
            return self.controller

        self._start_on_a_port(spawn, "/healthz", self.stop_controllers, self._wait_synced)

    def _start_on_a_port(self, spawn: Callable[[int, int], _Component], ready: str,
                         stop: Callable[[], None],
                         then: Callable[[_Component], None] | None = None) -> None:
        """Start a component on a reserved port (``spawn(port, attempt)``) and wait for
        ``ready`` (then ``then``); another port when a program took the one reserved."""
        for attempt in range(PORT_RETRIES):
            port = self.ports.take()
            comp = spawn(port, attempt)
            try:
                self._wait(comp, f"https://{LOOPBACK}:{port}{ready}", "ok", self.start_timeout)
                if then is not None:
                    then(comp)
                return
            except PortInUse:
                stop()
                if attempt == PORT_RETRIES - 1:
                    raise
            except SubjectError:
                stop()
                raise

    def _wait_synced(self, comp: _Component) -> None:
        deadline = time.monotonic() + self.start_timeout
        while not controller_synced(log_tail(comp.log, 10_000)):
            if comp.proc.poll() is not None:
                raise self._fail(comp, f"exited with code {comp.proc.returncode} while "
                                       "starting")
            if time.monotonic() > deadline:
                raise self._fail(comp, f"did not sync its caches in {self.start_timeout:g} s")
            time.sleep(0.05)

    def stop_controllers(self) -> None:
        comp, self.controller = self.controller, None
        if comp is None:
            return
        cleanup.stop_process(comp.proc)
        if comp in self.components:
            self.components.remove(comp)
        if self.cleanup is not None:
            self.cleanup.pop_and_run("process kube-controller-manager")
        self.ports.release(self.controller_port)

    def _controller_metrics_url(self) -> str | None:
        if self.controller is None:
            return None
        return f"https://{LOOPBACK}:{self.controller_port}/metrics"

    def controller_work(self) -> float | None:
        """:func:`control_plane.claim_queue_work` of the running kube-controller-manager (0
        without one); None when its metrics cannot be read."""
        url = self._controller_metrics_url()
        if url is None:
            return 0.0
        return read_metrics(lambda u: self._get(u, 2.0), url, claim_queue_work)

    def stop_scheduler(self) -> None:
        """Stop the scenario's kube-scheduler and kube-controller-manager."""
        self.stop_controllers()
        self._stop_scheduler_only()

    def _stop_scheduler_only(self) -> None:
        comp, self.scheduler = self.scheduler, None
        if comp is None:
            return
        self.last_scheduler = comp  # its log stays in the directory until the end
        cleanup.stop_process(comp.proc)
        if comp in self.components:
            self.components.remove(comp)
        if self.cleanup is not None:
            self.cleanup.pop_and_run("process kube-scheduler")
        self.ports.release(self.scheduler_port)  # one per scenario: do not let them pile up

    def scheduler_state(self) -> SchedulerState | None:
        if self.scheduler is None or self.scheduler.proc.poll() is not None:
            return None
        return read_scheduler_state(lambda url: self._get(url, 2.0),
                                    f"https://{LOOPBACK}:{self.scheduler_port}/metrics",
                                    self._controller_metrics_url())

    def scheduler_log(self) -> str | None:
        """The running scheduler's log so far."""
        if self.scheduler is None:
            return None
        try:
            return self.scheduler.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def check_alive(self) -> None:
        """A :class:`SubjectError` with its log tail when a component has exited."""
        for comp in self.components:
            if comp.proc.poll() is not None:
                raise self._fail(comp, f"exited with code {comp.proc.returncode}")

    def scheduler_log_tail(self) -> str:
        """The last lines of the current (or the last stopped) scheduler's log."""
        comp = self.scheduler or self.last_scheduler
        return log_tail(comp.log) if comp is not None else ""

    def stop(self) -> None:
        self.scheduler = None
        self.controller = None
        self._api = None
        self._ssl = None
        self.components.clear()
        if self.cleanup is not None:
            self.cleanup.run()
            self.cleanup = None


class ProcessSubject(OwnedControlPlaneSubject):
    """``--subject process`` / ``process:CFG.yaml``: kube-scheduler, kube-apiserver and etcd of
    the pinned release, or of ``release`` (``--release``, ``process@vX.Y.Z``), as local
    processes."""

    name = "process"

    def __init__(self, config_path: str | None = None, *, bin_dir: str | None = None,
                 time_scale: float = 1.0, settle: float = 0.5, timeout: float = 120.0,
                 start_timeout: float = START_TIMEOUT, release: str | None = None) -> None:
        super().__init__(config_path=config_path, time_scale=time_scale, settle=settle,
                         timeout=timeout, release=release)
        self.cp = ProcessControlPlane(bin_dir, start_timeout=start_timeout,
                                      release=self.release)

    def start_control_plane(self) -> None:
        self.cp.start()

    def api(self) -> KubeApi:
        return self.cp.api()

    def start_scheduler(self, config: dict[str, Any] | None) -> None:
        self.cp.check_alive()
        self.cp.start_scheduler(config)

    def start_controllers(self) -> None:
        self.cp.check_alive()
        self.cp.start_controllers()

    def stop_scheduler(self) -> None:
        self.cp.stop_scheduler()

    def check_alive(self) -> None:
        self.cp.check_alive()

    def scheduler_log_tail(self) -> str:
        return self.cp.scheduler_log_tail()

    def scheduler_state(self) -> SchedulerState | None:
        return self.cp.scheduler_state()

    def scheduler_log(self) -> str | None:
        return self.cp.scheduler_log()

    def stop_control_plane(self) -> None:
        self.cp.stop()

    def control_plane_running(self) -> bool:
        return self._started and self.cp.cleanup is not None

    def describe(self) -> dict[str, str]:
        d = {"subject": self.name, "upstreamRelease": self.release,
             "implementation": "kube-scheduler, kube-apiserver, etcd (kube-controller-manager "
                               "for DRA) as local processes",
             "binaries": str(self.cp.bins["kube-scheduler"].parent)}
        if self.config_path:
            d["config"] = self.config_path
        return d

