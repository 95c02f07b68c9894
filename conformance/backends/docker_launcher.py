"""The ``docker`` backend: etcd, kube-apiserver, kube-scheduler (and kube-controller-manager for
DRA) as containers on a private network, through the Docker SDK; the run's files copied in
with ``put_archive``; containers and network labelled with the run and its owner and removed on
every exit path (:func:`sweep_stale` removes a dead runner's). Images, flags and commands:
``docs/backends.md``.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import ssl
import tarfile
import time
import urllib.error
import urllib.request
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
    kubeconfig_doc,
    read_metrics,
    read_scheduler_state,
    scheduler_config,
    write_kubeconfig,
)
from conformance.backends.plan import RUN_LABEL, new_run_id
from conformance.backends.subject import OwnedControlPlaneSubject
from conformance.core.subject import SubjectError
from reference_impl.releases.pinned import UPSTREAM_RELEASE

REGISTRY = "registry.k8s.io"
#: where the control-plane images come from, as kubeadm's ``imageRepository``: a mirror, or
#: ``kschedconf.local`` for the images ``backends/images.sh`` builds from the release's source
REPOSITORY_ENV = "KSCHEDCONF_IMAGE_REPOSITORY"
LOCAL_REPOSITORY = "kschedconf.local"
#: etcd image tag of each supported release: kubeadm's ``DefaultEtcdVersion``
#: (cmd/kubeadm/app/constants/constants.go of the release; build/dependencies.yaml's etcd).
#: For v1.37.2 and v1.36.3 the etcd server version k8s.io/kubernetes requires; v1.34.4 and
#: v1.35.4 require the patch before (3.6.4, 3.6.5), which backends/build.sh builds: the local
#: images of those releases hold that etcd under kubeadm's tag.
ETCD_TAGS = {"v1.34.4": "3.6.5-0", "v1.35.4": "3.6.6-0", "v1.36.3": "3.6.8-0",
             "v1.37.2": "3.7.0-0"}
ETCD_TAG = ETCD_TAGS[UPSTREAM_RELEASE]


def image_repository() -> str:
    return (os.environ.get(REPOSITORY_ENV) or REGISTRY).rstrip("/")


def default_images(repository: str | None = None,
                   release: str = UPSTREAM_RELEASE) -> dict[str, str]:
    """The images of ``release`` (default: the pinned one) in ``repository`` (default:
    ``$KSCHEDCONF_IMAGE_REPOSITORY``, else registry.k8s.io), named as kubeadm names them."""
    r = repository or image_repository()
    return {"etcd": f"{r}/etcd:{ETCD_TAGS[release]}",
            "kube-apiserver": f"{r}/kube-apiserver:{release}",
            "kube-scheduler": f"{r}/kube-scheduler:{release}",
            "kube-controller-manager": f"{r}/kube-controller-manager:{release}"}


def images_command(release: str = UPSTREAM_RELEASE) -> str:
    """The commands that build the local images of ``release``."""
    flag = "" if release == UPSTREAM_RELEASE else f" --release {release}"
    return f"bash backends/build.sh{flag} && bash backends/images.sh{flag}"


ETCD_IMAGE = default_images(REGISTRY)["etcd"]
APISERVER_IMAGE = default_images(REGISTRY)["kube-apiserver"]
SCHEDULER_IMAGE = default_images(REGISTRY)["kube-scheduler"]
OWNER_LABEL = "kschedconf.io/owner"
FILES = "/kschedconf"  # where the run's files are copied in each container
API_PORT = 6443
SCHEDULER_PORT = 10259
CONTROLLER_PORT = 10257
LOOPBACK = "127.0.0.1"
LOG_TAIL_LINES = 30
START_TIMEOUT = 90.0


def owner_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _tar(files: dict[str, bytes]) -> bytes:
    """A tar archive of ``{path inside FILES: content}`` to extract at ``/``: it holds the
    ``FILES`` directory itself (and its subdirectories), since ``put_archive`` needs its
    target directory to exist and the images do not have ``FILES``."""
    buf = io.BytesIO()
    top = FILES.strip("/")
    dirs = {top} | {f"{top}/{d}" for name in files
                    for d in ["/".join(name.split("/")[:i])
                              for i in range(1, name.count("/") + 1)]}
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for d in sorted(dirs):
            info = tarfile.TarInfo(d)
            info.type = tarfile.DIRTYPE
            info.mode = 0o755
            info.mtime = int(time.time())
            tar.addfile(info)
        for name, data in files.items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            info.mode = 0o644
            info.mtime = int(time.time())
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _kubeconfig(server: str) -> bytes:
    """The kubeconfig of the components inside the containers (the files copied there)."""
    doc = kubeconfig_doc(server, ca_cert=f"{FILES}/pki/ca.crt",
                         client_cert=f"{FILES}/pki/client.crt",
                         client_key=f"{FILES}/pki/client.key")
    return yaml.safe_dump(doc, sort_keys=False).encode()


def sweep_stale(client: Any) -> list[str]:
    """Remove kschedconf containers and networks whose owner (a runner on this host) is gone."""
    host = socket.gethostname()
    removed: list[str] = []

    def dead(labels: dict[str, str]) -> bool:
        owner = labels.get(OWNER_LABEL, "")
        h, _, pid = owner.rpartition(":")
        if h != host or not pid.isdigit():
            return False
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False

    for c in client.containers.list(all=True, filters={"label": OWNER_LABEL}):
        if dead(c.labels or {}):
            with contextlib.suppress(Exception):
                c.remove(force=True)
                removed.append(c.name)
    for n in client.networks.list(filters={"label": OWNER_LABEL}):
        if dead((n.attrs or {}).get("Labels") or {}):
            with contextlib.suppress(Exception):
                n.remove()
                removed.append(n.name)
    return removed


class DockerControlPlane:
    """The containers of one run (see the module docstring)."""

    def __init__(self, client: Any = None, *, scheduler_image: str | None = None,
                 etcd_image: str | None = None, apiserver_image: str | None = None,
                 run_id: str | None = None, start_timeout: float = START_TIMEOUT,
                 pull: bool = True, release: str = UPSTREAM_RELEASE) -> None:
        self._client = client
        self.release = release
        images = default_images(release=release)
        self.etcd_image = etcd_image or images["etcd"]
        self.apiserver_image = apiserver_image or images["kube-apiserver"]
        self.scheduler_image = scheduler_image or images["kube-scheduler"]
        self.controller_image = images["kube-controller-manager"]
        self.controller: Any = None
        self.controller_port = 0
        self.last_scheduler_tail = ""
        self.run_id = run_id or new_run_id()
        self.start_timeout = start_timeout
        self.pull = pull
        self.labels = {RUN_LABEL: self.run_id, OWNER_LABEL: owner_id()}
        self.cleanup: cleanup.Cleanup | None = None
        self.dir: Path | None = None
        self.certs: CertBundle | None = None
        self.network: Any = None
        self.containers: dict[str, Any] = {}
        self.api_port = 0
        self.scheduler_port = 0
        self.scheduler: Any = None
        self.scheduler_runs = 0
        self._api: KubeApi | None = None
        self._ssl: ssl.SSLContext | None = None

    @property
    def client(self) -> Any:
        if self._client is None:
            try:
                # optional dependency: docker (the Docker SDK of the backends extra)
                import docker
            except ImportError as e:
                raise SubjectError("docker backend: the Docker SDK is not installed "
                                   "(pip install 'kschedconf[backends]')") from e
            try:
                self._client = docker.from_env()
                self._client.ping()
            except Exception as e:  # DockerException, connection refused, no socket
                raise SubjectError(f"docker backend: no Docker engine reachable ({e}); "
                                   "start Docker or set DOCKER_HOST") from e
        return self._client

    def name(self, component: str) -> str:
        return f"kschedconf-{self.run_id}-{component}"

    # ----- helpers -----
    def _ensure_image(self, image: str) -> None:
        """Pull ``image`` unless the engine has it (a tag, or a ``@sha256:`` digest: the
        SDK's ``pull`` parses either)."""
        from_sdk = _docker_errors()
        try:
            self.client.images.get(image)
            return
        except from_sdk.ImageNotFound:
            if image.startswith(f"{LOCAL_REPOSITORY}/"):  # built here, never pulled
                raise SubjectError(f"docker backend: image {image} is not present; build the "
                                   f"images of {self.release} with "
                                   f"`{images_command(self.release)}`") from None
            if not self.pull:
                raise SubjectError(f"docker backend: image {image} is not present and pulling "
                                   "is off") from None
        except from_sdk.APIError as e:
            raise SubjectError(f"docker backend: cannot inspect image {image}: {e}") from e
        try:
            self.client.images.pull(image)
        except from_sdk.APIError as e:
            raise SubjectError(f"docker backend: cannot pull {image}: {e} (set "
                               f"{REPOSITORY_ENV} for a mirror of {REGISTRY})") from e

    def _logs(self, component: str) -> str:
        c = self.containers.get(component)
        if c is None:
            return ""
        try:
            data = c.logs(tail=LOG_TAIL_LINES)
        except Exception as e:
            return f"(no logs: {e})"
        return data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)

    def _fail(self, component: str, what: str) -> SubjectError:
        msg = f"docker backend: {component} {what}"
        tail = self._logs(component).rstrip()
        if tail:
            msg += f"\n--- {component} log (tail) ---\n{tail}"
        return SubjectError(msg)

    def _run(self, component: str, image: str, command: list[str], files: dict[str, bytes],
             ports: dict[str, tuple[str, int | None]] | None = None) -> Any:
        """Create the container, copy ``files`` in, start it; registered for removal.

        ``command[0]`` is the entrypoint and the rest its arguments, as kubeadm's static pod
        manifests give ``command`` (cmd/kubeadm/app/phases/controlplane/manifests.go): the
        image's own ENTRYPOINT (``/go-runner`` in the release images, anything in a user's
        build) is replaced, so only ``command[0]`` on the image's PATH matters."""
        assert self.cleanup is not None
        from_sdk = _docker_errors()
        self._ensure_image(image)
        try:
            c = self.client.containers.create(
                image, entrypoint=command[:1], command=command[1:], name=self.name(component),
                labels=dict(self.labels), network=self.network.name, ports=ports or {},
                detach=True)
        except from_sdk.APIError as e:
            raise SubjectError(f"docker backend: cannot create the {component} container: "
                               f"{e}") from e
        self.containers[component] = c
        self.cleanup.push(f"container {component}", lambda: c.remove(force=True))
        try:
            if files:
                c.put_archive("/", _tar(files))
            c.start()
        except from_sdk.APIError as e:
            raise self._fail(component, f"did not start: {e}") from e
        return c

    def _published(self, c: Any, port: int) -> int:
        c.reload()
        bindings = (c.attrs.get("NetworkSettings", {}).get("Ports") or {}).get(f"{port}/tcp")
        if not bindings:
            raise SubjectError(f"docker backend: port {port} of {c.name} is not published")
        return int(bindings[0]["HostPort"])

    def ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            assert self.certs is not None
            ctx = ssl.create_default_context(cafile=str(self.certs.ca_cert))
            ctx.load_cert_chain(str(self.certs.client_cert), str(self.certs.client_key))
            self._ssl = ctx
        return self._ssl

    def http_get(self, url: str, timeout: float = 2.0) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(url, timeout=timeout,  # noqa: S310
                                        context=self.ssl_context()) as r:
                return r.status, r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace")

    def _wait_ready(self, component: str, url: str) -> None:
        deadline = time.monotonic() + self.start_timeout
        last = ""
        c = self.containers[component]
        while True:
            with contextlib.suppress(Exception):
                c.reload()
            if getattr(c, "status", "running") in ("exited", "dead"):
                raise self._fail(component, "exited while starting")
            try:
                status, body = self.http_get(url)
                if status == 200 and "ok" in body:
                    return
                last = f"HTTP {status}: {body.strip()[-300:]}"
            except (OSError, ssl.SSLError) as e:
                last = str(e)
            if time.monotonic() > deadline:
                raise self._fail(component, f"not ready after {self.start_timeout:g} s "
                                            f"({url}: {last})")
            time.sleep(0.2)

    # ----- the control plane -----
    def start(self) -> None:
        self.cleanup = cleanup.Cleanup("docker backend")
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        assert self.cleanup is not None
        with contextlib.suppress(Exception):
            sweep_stale(self.client)
        cleanup.sweep_stale_dirs()
        self.dir = cleanup.make_temp_dir("docker")
        d = self.dir
        self.cleanup.push("temporary directory", lambda: cleanup.remove_dir(d))
        apiserver = self.name("apiserver")
        self.certs = c = make_certs(d / "pki", hosts=(LOOPBACK, "localhost", apiserver))
        pki = {f"pki/{p.name}": p.read_bytes() for p in (
            c.ca_cert, c.server_cert, c.server_key, c.client_cert, c.client_key, c.sa_key,
            c.sa_pub)}
        self.network = self.client.networks.create(f"kschedconf-{self.run_id}",
                                                   driver="bridge", labels=dict(self.labels))
        net = self.network
        self.cleanup.push("network", lambda: net.remove())
        etcd = self.name("etcd")
        self._run("etcd", self.etcd_image, [
            "etcd", "--name", "kschedconf", "--data-dir", "/var/lib/etcd",
            "--listen-client-urls", "http://0.0.0.0:2379",
            "--advertise-client-urls", f"http://{etcd}:2379",
            "--listen-peer-urls", "http://127.0.0.1:2380",
            "--initial-advertise-peer-urls", "http://127.0.0.1:2380",
            "--initial-cluster", "kschedconf=http://127.0.0.1:2380",
            "--unsafe-no-fsync", "--log-level", "warn"], {})
        self._run("apiserver", self.apiserver_image, [
            "kube-apiserver", f"--etcd-servers=http://{etcd}:2379",
            f"--secure-port={API_PORT}", f"--tls-cert-file={FILES}/pki/server.crt",
            f"--tls-private-key-file={FILES}/pki/server.key",
            f"--client-ca-file={FILES}/pki/ca.crt", "--anonymous-auth=false",
            f"--requestheader-client-ca-file={FILES}/pki/ca.crt",
            "--requestheader-allowed-names=kschedconf-no-front-proxy",
            "--authorization-mode=AlwaysAllow",
            "--service-account-issuer=https://kubernetes.default.svc",
            f"--service-account-key-file={FILES}/pki/sa.pub",
            f"--service-account-signing-key-file={FILES}/pki/sa.key",
            f"--service-cluster-ip-range={SERVICE_CIDR}", "--endpoint-reconciler-type=none",
            "--enable-admission-plugins=NamespaceLifecycle",
            f"--disable-admission-plugins={','.join(disabled_admission(self.release))}",
            "--enable-priority-and-fairness=false", "--profiling=false", "--v=1"],
            pki, ports={f"{API_PORT}/tcp": (LOOPBACK, None)})
        self.api_port = self._published(self.containers["apiserver"], API_PORT)
        self._pki = pki
        self._wait_ready("apiserver", f"https://{LOOPBACK}:{self.api_port}/readyz")
        self.kubeconfig = d / "kubeconfig.yaml"
        write_kubeconfig(self.kubeconfig, f"https://{LOOPBACK}:{self.api_port}", c)

    def api(self) -> KubeApi:
        if self._api is None:
            assert self.dir is not None
            self._api = KubeApi.from_kubeconfig(str(self.kubeconfig),
                                                discovery_cache=str(self.dir / "discovery.json"))
        return self._api

    def _files(self) -> dict[str, bytes]:
        """The certificates and a kubeconfig for the API server on the run's network."""
        files = dict(self._pki)
        files["kubeconfig"] = _kubeconfig(f"https://{self.name('apiserver')}:{API_PORT}")
        return files

    def start_controllers(self) -> None:
        """kube-controller-manager with the resourceclaim controller
        (``control_plane.controller_args``); returns once its informers are synced."""
        self.stop_controllers()
        component = f"controller-{self.scheduler_runs + 1}"
        self.controller = self._run(component, self.controller_image, [
            "kube-controller-manager", *controller_args(
                f"{FILES}/kubeconfig", port=CONTROLLER_PORT, bind="0.0.0.0",
                cert=f"{FILES}/pki/server.crt", key=f"{FILES}/pki/server.key")],
            self._files(), ports={f"{CONTROLLER_PORT}/tcp": (LOOPBACK, None)})
        self._controller_component = component
        self.controller_port = self._published(self.controller, CONTROLLER_PORT)
        self._wait_ready(component, f"https://{LOOPBACK}:{self.controller_port}/healthz")
        deadline = time.monotonic() + self.start_timeout
        while not controller_synced(self._whole_log(self.controller)):
            if time.monotonic() > deadline:
                raise self._fail(component, f"did not sync its caches in "
                                            f"{self.start_timeout:g} s")
            time.sleep(0.1)

    def stop_controllers(self) -> None:
        c, self.controller = self.controller, None
        if c is None:
            return
        component = self._controller_component
        self.containers.pop(component, None)
        if self.cleanup is not None:
            self.cleanup.pop_and_run(f"container {component}")

    @staticmethod
    def _whole_log(c: Any) -> str:
        try:
            data = c.logs()
        except Exception:  # noqa: BLE001 - read again
            return ""
        return data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)

    def start_scheduler(self, config: dict[str, Any] | None) -> None:
        self._stop_scheduler_only()
        self.scheduler_runs += 1
        cfg = scheduler_config(config, f"{FILES}/kubeconfig")
        files = self._files()
        files["scheduler.yaml"] = yaml.safe_dump(cfg, sort_keys=False).encode()
        component = f"scheduler-{self.scheduler_runs}"
        self.scheduler = self._run(component, self.scheduler_image, [
            "kube-scheduler", f"--config={FILES}/scheduler.yaml",
            f"--secure-port={SCHEDULER_PORT}", f"--tls-cert-file={FILES}/pki/server.crt",
            f"--tls-private-key-file={FILES}/pki/server.key",
            f"--authentication-kubeconfig={FILES}/kubeconfig",
            f"--authorization-kubeconfig={FILES}/kubeconfig",
            "--authentication-tolerate-lookup-failure",
            "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
            f"--feature-gates={SCHEDULER_FEATURE_GATES}", f"--v={SCHEDULER_VERBOSITY}"],
            files, ports={f"{SCHEDULER_PORT}/tcp": (LOOPBACK, None)})
        self._scheduler_component = component
        self.scheduler_port = self._published(self.scheduler, SCHEDULER_PORT)
        self._wait_ready(component, f"https://{LOOPBACK}:{self.scheduler_port}/readyz")

    def stop_scheduler(self) -> None:
        """Stop the scenario's kube-scheduler and kube-controller-manager."""
        self.stop_controllers()
        self._stop_scheduler_only()

    def _stop_scheduler_only(self) -> None:
        c, self.scheduler = self.scheduler, None
        if c is None:
            return
        component = self._scheduler_component
        self.last_scheduler_tail = self._logs(component)  # the container goes now
        self.containers.pop(component, None)
        if self.cleanup is not None:
            self.cleanup.pop_and_run(f"container {component}")

    def scheduler_state(self) -> SchedulerState | None:
        if self.scheduler is None:
            return None
        return read_scheduler_state(self.http_get,
                                    f"https://{LOOPBACK}:{self.scheduler_port}/metrics",
                                    self._controller_metrics_url())

    def _controller_metrics_url(self) -> str | None:
        if self.controller is None:
            return None
        return f"https://{LOOPBACK}:{self.controller_port}/metrics"

    def controller_work(self) -> float | None:
        """``control_plane.claim_queue_work`` of the running kube-controller-manager (0
        without one); None when its metrics cannot be read."""
        url = self._controller_metrics_url()
        if url is None:
            return 0.0
        return read_metrics(self.http_get, url, claim_queue_work)

    def check_alive(self) -> None:
        """A :class:`SubjectError` with its log tail when a container has stopped."""
        for component, c in list(self.containers.items()):
            try:
                c.reload()
            except Exception as e:  # noqa: BLE001 - a container gone from the engine
                raise SubjectError(f"docker backend: {component} container is gone: "
                                   f"{e}") from e
            if getattr(c, "status", "running") in ("exited", "dead"):
                code = (getattr(c, "attrs", None) or {}).get("State", {}).get("ExitCode")
                raise self._fail(component, "exited" + (f" with code {code}"
                                                        if code is not None else ""))

    def scheduler_log_tail(self) -> str:
        """The last lines of the current (or the last stopped) scheduler's log."""
        if self.scheduler is not None:
            return self._logs(self._scheduler_component)
        return self.last_scheduler_tail

    def scheduler_log(self) -> str | None:
        """The running scheduler container's whole log (``docker logs``)."""
        if self.scheduler is None:
            return None
        try:
            data = self.scheduler.logs()
        except Exception:  # noqa: BLE001 - a missing log only costs the ordering
            return None
        return data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)

    def stop(self) -> None:
        self.scheduler = None
        self.controller = None
        self._api = None
        self._ssl = None
        if self.cleanup is not None:
            self.cleanup.run()
            self.cleanup = None
        self.containers.clear()
        self.network = None


def _docker_errors() -> Any:
    """``docker.errors`` (ImageNotFound, APIError), or stand-ins when the SDK is missing."""
    try:
        # optional dependency: docker (the Docker SDK of the backends extra)
        from docker import errors

        return errors
    except ImportError:  # pragma: no cover - the client property reports the missing SDK
        class _E:
            class ImageNotFound(Exception):
                pass

            class APIError(Exception):
                pass
        return _E


class DockerSubject(OwnedControlPlaneSubject):
    """``--subject docker`` / ``docker:SCHEDULER_IMAGE``: the control plane of the pinned
    release, or of ``release`` (``--release``, ``docker@vX.Y.Z``), in containers."""

    name = "docker"

    def __init__(self, scheduler_image: str | None = None, config_path: str | None = None, *,
                 client: Any = None, time_scale: float = 1.0, settle: float = 0.5,
                 timeout: float = 120.0, start_timeout: float = START_TIMEOUT,
                 release: str | None = None) -> None:
        super().__init__(config_path=config_path, time_scale=time_scale, settle=settle,
                         timeout=timeout, release=release)
        self.cp = DockerControlPlane(client, scheduler_image=scheduler_image,
                                     start_timeout=start_timeout, release=self.release)

    def start_control_plane(self) -> None:
        self.cp.start()

    def api(self) -> KubeApi:
        return self.cp.api()

    def start_scheduler(self, config: dict[str, Any] | None) -> None:
        self.cp.start_scheduler(config)

    def stop_scheduler(self) -> None:
        self.cp.stop_scheduler()

    def start_controllers(self) -> None:
        self.cp.check_alive()
        self.cp.start_controllers()

    def scheduler_state(self) -> SchedulerState | None:
        return self.cp.scheduler_state()

    def scheduler_log(self) -> str | None:
        return self.cp.scheduler_log()

    def check_alive(self) -> None:
        self.cp.check_alive()

    def scheduler_log_tail(self) -> str:
        return self.cp.scheduler_log_tail()

    def stop_control_plane(self) -> None:
        self.cp.stop()

    def control_plane_running(self) -> bool:
        return self._started and self.cp.cleanup is not None

    def describe(self) -> dict[str, str]:
        d = {"subject": self.name, "upstreamRelease": self.release,
             "implementation": "kube-scheduler, kube-apiserver, etcd in Docker containers",
             "schedulerImage": self.cp.scheduler_image}
        if self.config_path:
            d["config"] = self.config_path
        return d
