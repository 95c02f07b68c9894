"""The docker backend (conformance/backends/docker_launcher.py) against the Docker SDK's
interface: a fake client object records the calls (images, networks, containers, port
bindings, labels, archives, removals); health checks are answered by a stub. No Docker engine
is needed. Every call the launcher makes on the fake is first bound to the signature of the
real SDK method it stands for (docker-py's ``ImageCollection``, ``ContainerCollection``,
``Container``, ...), and container options go through the SDK's own argument check, so a
call the SDK would refuse fails here too; the fake engine also refuses what the real one does
(``put_archive`` into a directory the image does not have). ``tests/test_docker_engine.py``
runs the launcher against a real engine where there is one.
"""

from __future__ import annotations

import functools
import inspect
import io
import os
import tarfile
from collections.abc import Callable
from typing import Any

import docker.models.containers as sdk_containers
import docker.models.images as sdk_images
import docker.models.networks as sdk_networks
import pytest
import yaml
from kubernetes_source import kubernetes_source

from conformance.backends import docker_launcher as dl
from conformance.backends.plan import RUN_LABEL
from conformance.core.subject import SubjectError
from reference_impl.releases import supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE


class ImageNotFound(Exception):
    pass


class APIError(Exception):
    pass


class FakeErrors:
    ImageNotFound = ImageNotFound
    APIError = APIError


def sdk(real: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Check each call of the decorated fake method against the real SDK method's signature
    (a TypeError, as the SDK would raise, for an argument it does not take)."""
    sig = inspect.signature(real)

    def wrap(fake: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fake)
        def checked(self: Any, *args: Any, **kwargs: Any) -> Any:
            sig.bind(self, *args, **kwargs)
            return fake(self, *args, **kwargs)
        return checked
    return wrap


#: directories of an image's filesystem (a distroless image with the binary in /usr/local/bin)
IMAGE_DIRS = {"/", "/usr", "/usr/local", "/usr/local/bin", "/etc", "/tmp"}


class FakeContainer:
    def __init__(self, client: FakeClient, image: str, command: list[str], name: str,
                 labels: dict[str, str], network: str, ports: dict[str, Any],
                 entrypoint: list[str] | None = None) -> None:
        self.client = client
        self.image = image
        self.entrypoint = entrypoint
        self.args = command
        self.command = (entrypoint or []) + list(command)  # what runs in the container
        self.name = name
        self.labels = labels
        self.network = network
        self.ports_requested = ports
        self.status = "created"
        self.archives: list[tuple[str, dict[str, bytes]]] = []
        self.dirs = set(IMAGE_DIRS)
        self.files: dict[str, bytes] = {}
        self.removed = False
        self.attrs: dict[str, Any] = {"NetworkSettings": {"Ports": {}}, "State": {}}

    @sdk(sdk_containers.Container.put_archive)
    def put_archive(self, path: str, data: bytes) -> bool:
        # the engine extracts into an existing directory only ("Could not find the file ...
        # in container": 404), as docker-py's docstring says: "path: Path inside the
        # container where the file(s) will be extracted. Must exist."
        if (path.rstrip("/") or "/") not in self.dirs:
            raise APIError(f"404 Client Error: Could not find the file {path} in container "
                           f"{self.name}")
        files = {}
        base = path.rstrip("/")
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            for m in tar.getmembers():
                full = f"{base}/{m.name}"
                if m.isdir():
                    self.dirs.add(full)
                    continue
                parent = full.rsplit("/", 1)[0] or "/"
                if parent not in self.dirs:
                    raise APIError(f"extracting {full}: no directory {parent}")
                f = tar.extractfile(m)
                files[full] = self.files[full] = f.read() if f else b""
        self.archives.append((path, {k.removeprefix(f"{dl.FILES}/"): v
                                     for k, v in files.items()}))
        return True

    @sdk(sdk_containers.Container.start)
    def start(self) -> None:
        self.client.log.append(("start", self.name))
        if self.name in self.client.fail_start:
            raise APIError(f"cannot start {self.name}")
        self.status = "running"
        ports = {}
        for spec, (host_ip, host_port) in self.ports_requested.items():
            self.client.next_port += 1
            ports[spec] = [{"HostIp": host_ip, "HostPort": str(host_port or
                                                               self.client.next_port)}]
        self.attrs["NetworkSettings"]["Ports"] = ports

    @sdk(sdk_containers.Container.reload)
    def reload(self) -> None:
        if self.name in self.client.exit_after_start and self.status == "running":
            self.status = "exited"
            self.attrs["State"] = {"Status": "exited", "ExitCode": 1}

    @sdk(sdk_containers.Container.logs)
    def logs(self, tail: int | str = "all") -> bytes:
        return f"log of {self.name}\nlast line of {self.name}\n".encode()

    @sdk(sdk_containers.Container.remove)
    def remove(self, force: bool = False) -> None:
        assert force
        self.removed = True
        self.client.log.append(("remove", self.name))


class FakeNetwork:
    def __init__(self, client: FakeClient, name: str, driver: str,
                 labels: dict[str, str]) -> None:
        self.client = client
        self.name = name
        self.driver = driver
        self.attrs = {"Labels": labels}
        self.removed = False

    @sdk(sdk_networks.Network.remove)
    def remove(self) -> None:
        self.removed = True
        self.client.log.append(("remove-network", self.name))


class FakeClient:
    def __init__(self, present: tuple[str, ...] = ()) -> None:
        self.present = set(present)
        self.pulled: list[tuple[str, str]] = []
        self.created: list[FakeContainer] = []
        self.networks_created: list[FakeNetwork] = []
        self.log: list[tuple[str, str]] = []
        self.fail_start: set[str] = set()
        self.exit_after_start: set[str] = set()
        self.next_port = 40000
        client = self

        class Images:
            @sdk(sdk_images.ImageCollection.get)
            def get(self, name: str) -> object:
                if name not in client.present:
                    raise ImageNotFound(name)
                return object()

            @sdk(sdk_images.ImageCollection.pull)
            def pull(self, repository: str, tag: str | None = None, **kw: Any) -> object:
                from docker.utils import parse_repository_tag

                repo, parsed = parse_repository_tag(repository)  # as the SDK does
                tag = tag or parsed or "latest"
                client.pulled.append((repo, tag))
                client.present.add(f"{repo}{'@' if ':' in tag else ':'}{tag}")
                return object()

        class Networks:
            @sdk(sdk_networks.NetworkCollection.create)
            def create(self, name: str, driver: str = "", labels: Any = None,
                       **kw: Any) -> FakeNetwork:
                n = FakeNetwork(client, name, driver, dict(labels or {}))
                client.networks_created.append(n)
                return n

            @sdk(sdk_networks.NetworkCollection.list)
            def list(self, filters: Any = None) -> list[FakeNetwork]:
                return [n for n in client.networks_created if not n.removed]

        class Containers:
            @sdk(sdk_containers.ContainerCollection.create)
            def create(self, image: str, command: list[str] | None = None,
                       **kwargs: Any) -> FakeContainer:
                # the SDK's own check of the options (TypeError for one it does not know)
                sdk_containers._create_container_args(
                    {"image": image, "command": command, "version": "1.41", **kwargs})
                assert kwargs.get("detach", True)
                c = FakeContainer(client, image, list(command or []), kwargs["name"],
                                  kwargs.get("labels") or {}, kwargs["network"],
                                  kwargs.get("ports") or {}, kwargs.get("entrypoint"))
                client.created.append(c)
                return c

            @sdk(sdk_containers.ContainerCollection.list)
            def list(self, all: bool = False, filters: Any = None) -> list[FakeContainer]:
                return [c for c in client.created if not c.removed]

        self.images = Images()
        self.networks = Networks()
        self.containers = Containers()

    def ping(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def sdk_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dl, "_docker_errors", lambda: FakeErrors)
    monkeypatch.delenv(dl.REPOSITORY_ENV, raising=False)  # the defaults are tested here


def test_image_repository_replaces_the_registry_of_every_default_image(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(dl.REPOSITORY_ENV, "mirror.example.com/k8s/")
    cp = dl.DockerControlPlane(FakeClient(), run_id="x")
    assert (cp.etcd_image, cp.apiserver_image, cp.scheduler_image) == (
        f"mirror.example.com/k8s/etcd:{dl.ETCD_TAG}",
        f"mirror.example.com/k8s/kube-apiserver:{UPSTREAM_RELEASE}",
        f"mirror.example.com/k8s/kube-scheduler:{UPSTREAM_RELEASE}")
    # the user's own scheduler image stays as given
    assert dl.DockerControlPlane(FakeClient(), scheduler_image="me/s:1").scheduler_image == \
        "me/s:1"


def test_digest_references_are_pulled_by_digest() -> None:
    digest = "sha256:" + "a" * 64
    client = FakeClient(present=(dl.ETCD_IMAGE, dl.APISERVER_IMAGE))
    cp = plane(client, scheduler_image=f"me/sched@{digest}")
    cp.start()
    try:
        cp.start_scheduler(None)
        assert client.pulled == [("me/sched", digest)]
    finally:
        cp.stop()


def plane(client: FakeClient, ready: Any = None, **kw: Any) -> dl.DockerControlPlane:
    cp = dl.DockerControlPlane(client, run_id="kstest", start_timeout=0.5, **kw)
    cp.http_get = ready or (lambda url, timeout=2.0: (200, "ok"))  # type: ignore[method-assign]
    return cp


def by_suffix(client: FakeClient, suffix: str) -> FakeContainer:
    (c,) = [c for c in client.created if c.name.endswith(suffix)]
    return c


def test_start_creates_network_and_containers_with_labels_images_and_loopback_ports() -> None:
    client = FakeClient(present=(dl.ETCD_IMAGE,))
    cp = plane(client)
    cp.start()
    try:
        (net,) = client.networks_created
        assert net.name == "kschedconf-kstest" and net.driver == "bridge"
        assert net.attrs["Labels"][RUN_LABEL] == "kstest"
        assert net.attrs["Labels"][dl.OWNER_LABEL].endswith(f":{os.getpid()}")
        # images of the pinned release; only missing ones are pulled
        assert dl.APISERVER_IMAGE == f"registry.k8s.io/kube-apiserver:{UPSTREAM_RELEASE}"
        assert client.pulled == [("registry.k8s.io/kube-apiserver", UPSTREAM_RELEASE)]
        etcd, api = by_suffix(client, "-etcd"), by_suffix(client, "-apiserver")
        # kubeadm's way: the first word of the command replaces the image's ENTRYPOINT
        assert api.entrypoint == ["kube-apiserver"] and etcd.entrypoint == ["etcd"]
        assert etcd.image == dl.ETCD_IMAGE and api.image == dl.APISERVER_IMAGE
        for c in (etcd, api):
            assert c.network == "kschedconf-kstest"
            assert c.labels[RUN_LABEL] == "kstest"
        assert etcd.ports_requested == {}  # etcd is reachable on the private network only
        assert api.ports_requested == {"6443/tcp": ("127.0.0.1", None)}
        assert cp.api_port == 40001
        assert "--etcd-servers=http://kschedconf-kstest-etcd:2379" in api.command
        assert "--authorization-mode=AlwaysAllow" in api.command
        assert "--anonymous-auth=false" in api.command
        # certificates copied in (no bind mounts), serving cert valid for the container name
        (path, files), = api.archives
        assert path == "/" and "pki/server.crt" in files and "pki/sa.key" in files
        assert f"{dl.FILES}/pki" in api.dirs  # the archive brought its directories
        from cryptography import x509

        cert = x509.load_pem_x509_certificate(files["pki/server.crt"])
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert "kschedconf-kstest-apiserver" in sans.get_values_for_type(x509.DNSName)
        assert cp.dir is not None and cp.dir.exists()
        kubeconfig = yaml.safe_load(cp.kubeconfig.read_text())
        assert kubeconfig["clusters"][0]["cluster"]["server"] == "https://127.0.0.1:40001"
    finally:
        d = cp.dir
        cp.stop()
    assert etcd.removed and api.removed and net.removed
    assert client.log[-3:] == [("remove", api.name), ("remove", etcd.name),
                               ("remove-network", net.name)]
    assert d is not None and not d.exists()


def test_scheduler_per_scenario_with_user_image_and_config() -> None:
    client = FakeClient(present=(dl.ETCD_IMAGE, dl.APISERVER_IMAGE, "me/sched:dev"))
    cp = plane(client, scheduler_image="me/sched:dev")
    cp.start()
    try:
        cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1",
               "kind": "KubeSchedulerConfiguration", "profiles": [{"schedulerName": "mine"}]}
        cp.start_scheduler(cfg)
        s1 = by_suffix(client, "-scheduler-1")
        assert s1.image == "me/sched:dev" and s1.ports_requested == {
            "10259/tcp": ("127.0.0.1", None)}
        (path, files), = s1.archives
        sched_cfg = yaml.safe_load(files["scheduler.yaml"])
        assert sched_cfg["profiles"] == [{"schedulerName": "mine"}]
        assert sched_cfg["parallelism"] == 1
        assert sched_cfg["leaderElection"] == {"leaderElect": False}
        assert sched_cfg["clientConnection"]["kubeconfig"] == "/kschedconf/kubeconfig"
        kc = yaml.safe_load(files["kubeconfig"])
        assert kc["clusters"][0]["cluster"]["server"] == "https://kschedconf-kstest-apiserver:6443"
        assert f"--config={dl.FILES}/scheduler.yaml" in s1.command
        # verbosity 3 logs every scheduling cycle; its whole log orders the attempts
        assert "--v=3" in s1.command
        assert cp.scheduler_log() == f"log of {s1.name}\nlast line of {s1.name}\n"
        cp.start_scheduler(None)  # next scenario: the old scheduler goes first
        assert s1.removed
        s2 = by_suffix(client, "-scheduler-2")
        assert not s2.removed
        assert cp.scheduler_port == int(
            s2.attrs["NetworkSettings"]["Ports"]["10259/tcp"][0]["HostPort"])
        cp.stop_scheduler()
        assert s2.removed and cp.scheduler_log() is None
    finally:
        cp.stop()
    assert all(c.removed for c in client.created)


@pytest.mark.parametrize("release", supported_releases())
def test_etcd_image_is_kubeadms_for_each_release(release: str) -> None:
    """The etcd image tag of each release is the one kubeadm of that release deploys."""
    import re

    src = kubernetes_source(release)
    if src is None:
        pytest.skip(f"k8s.io/kubernetes {release} is not in the Go module cache "
                    f"(bash backends/build.sh --release {release} downloads it)")
    text = (src / "cmd/kubeadm/app/constants/constants.go").read_text()
    m = re.search(r'DefaultEtcdVersion = "([^"]+)"', text)
    assert m is not None
    assert dl.default_images(dl.REGISTRY, release)["etcd"] == f"registry.k8s.io/etcd:{m.group(1)}"
    if release == UPSTREAM_RELEASE:
        assert dl.ETCD_IMAGE == f"registry.k8s.io/etcd:{m.group(1)}"


def test_every_supported_release_has_an_etcd_image() -> None:
    assert sorted(dl.ETCD_TAGS) == sorted(supported_releases())


def test_a_release_runs_its_images_and_the_admission_plugins_it_has() -> None:
    """The control plane of v1.34.4: its images, and no admission plugin it does not register
    in --disable-admission-plugins (kube-apiserver refuses an unknown one)."""
    images = dl.default_images(dl.REGISTRY, "v1.34.4")
    client = FakeClient(present=(images["etcd"], images["kube-apiserver"],
                                 images["kube-scheduler"]))
    cp = plane(client, release="v1.34.4")
    cp.start()
    try:
        etcd, api = by_suffix(client, "-etcd"), by_suffix(client, "-apiserver")
        assert etcd.image == "registry.k8s.io/etcd:3.6.5-0"
        assert api.image == "registry.k8s.io/kube-apiserver:v1.34.4"
        (flag,) = [a for a in api.command if a.startswith("--disable-admission-plugins=")]
        disabled = flag.split("=", 1)[1].split(",")
        assert "Priority" in disabled and "ServiceAccount" in disabled
        assert not {"PodResizeValidator", "PodGroupProtection",
                    "NodeDeclaredFeatureValidator"} & set(disabled)
        cp.start_scheduler(None)
        assert by_suffix(client, "-scheduler-1").image == "registry.k8s.io/kube-scheduler:v1.34.4"
        assert client.pulled == []
    finally:
        cp.stop()


def test_a_missing_local_image_names_the_commands_that_build_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Images of kschedconf.local are built here (backends/images.sh), never pulled."""
    monkeypatch.setenv(dl.REPOSITORY_ENV, dl.LOCAL_REPOSITORY)
    client = FakeClient()
    cp = plane(client, release="v1.35.4")
    with pytest.raises(SubjectError) as e:
        cp.start()
    assert "kschedconf.local/etcd:3.6.6-0 is not present" in str(e.value)
    assert ("`bash backends/build.sh --release v1.35.4 && bash backends/images.sh --release "
            "v1.35.4`") in str(e.value)
    assert client.pulled == []


def test_default_scheduler_image_is_the_pinned_release() -> None:
    cp = plane(FakeClient())
    assert cp.scheduler_image == f"registry.k8s.io/kube-scheduler:{UPSTREAM_RELEASE}"


def test_apiserver_never_ready_is_an_error_with_its_log_and_everything_is_removed() -> None:
    client = FakeClient(present=(dl.ETCD_IMAGE, dl.APISERVER_IMAGE))
    cp = plane(client, ready=lambda url, timeout=2.0: (500, "[-]etcd failed"))
    with pytest.raises(SubjectError) as e:
        cp.start()
    assert "apiserver not ready" in str(e.value)
    assert "last line of kschedconf-kstest-apiserver" in str(e.value)
    assert "[-]etcd failed" in str(e.value)
    assert client.created and all(c.removed for c in client.created)
    assert all(n.removed for n in client.networks_created)


def test_container_that_exits_is_reported_and_removed() -> None:
    client = FakeClient(present=(dl.ETCD_IMAGE, dl.APISERVER_IMAGE))
    client.exit_after_start.add("kschedconf-kstest-apiserver")
    cp = plane(client, ready=lambda url, timeout=2.0: (_ for _ in ()).throw(OSError("refused")))
    with pytest.raises(SubjectError, match="exited while starting"):
        cp.start()
    assert all(c.removed for c in client.created)


def test_start_failure_of_a_container_removes_the_others() -> None:
    client = FakeClient(present=(dl.ETCD_IMAGE, dl.APISERVER_IMAGE))
    client.fail_start.add("kschedconf-kstest-apiserver")
    cp = plane(client)
    with pytest.raises(SubjectError, match="did not start"):
        cp.start()
    assert [c.removed for c in client.created] == [True, True]
    assert client.networks_created[0].removed


def test_keyboard_interrupt_while_waiting_removes_everything() -> None:
    client = FakeClient(present=(dl.ETCD_IMAGE, dl.APISERVER_IMAGE))

    def interrupted(url: str, timeout: float = 2.0) -> tuple[int, str]:
        raise KeyboardInterrupt

    cp = plane(client, ready=interrupted)
    with pytest.raises(KeyboardInterrupt):
        cp.start()
    assert len(client.created) == 2 and all(c.removed for c in client.created)
    assert client.networks_created[0].removed
    assert cp.dir is not None and not cp.dir.exists()


def test_keyboard_interrupt_during_a_scenario_removes_everything_on_close() -> None:
    client = FakeClient(present=(dl.ETCD_IMAGE, dl.APISERVER_IMAGE, dl.SCHEDULER_IMAGE))
    subject = dl.DockerSubject(client=client, start_timeout=0.5)
    subject.cp.http_get = lambda url, timeout=2.0: (200, "ok")  # type: ignore[method-assign]

    def boom(*a: Any, **k: Any) -> Any:
        raise KeyboardInterrupt

    subject.api = boom  # type: ignore[method-assign]
    from conformance.core.scenario import ScenarioInput

    with pytest.raises(KeyboardInterrupt), subject:
        subject.run(ScenarioInput([], None, 0, "s"))
    assert client.created and all(c.removed for c in client.created)
    assert all(n.removed for n in client.networks_created)


def test_pull_failure_is_a_subject_error() -> None:
    client = FakeClient()

    def fail(repository: str, tag: str | None = None, **kw: Any) -> None:
        raise APIError("denied")

    client.images.pull = fail  # type: ignore[method-assign]
    cp = plane(client)
    with pytest.raises(SubjectError, match="cannot pull registry.k8s.io/etcd"):
        cp.start()
    assert all(n.removed for n in client.networks_created)


def test_no_engine_is_a_clear_subject_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import docker

    def no_engine() -> None:
        raise docker.errors.DockerException("Error while fetching server API version")

    monkeypatch.setattr(docker, "from_env", no_engine)
    cp = dl.DockerControlPlane(None, run_id="x")
    with pytest.raises(SubjectError, match="no Docker engine reachable"):
        _ = cp.client


def test_sweep_removes_only_containers_of_dead_owners_on_this_host() -> None:
    import socket

    client = FakeClient()
    host = socket.gethostname()
    mine = FakeContainer(client, "i", [], "alive", {dl.OWNER_LABEL: f"{host}:{os.getpid()}"},
                         "n", {})
    dead = FakeContainer(client, "i", [], "dead", {dl.OWNER_LABEL: f"{host}:999999999"}, "n",
                         {})
    other = FakeContainer(client, "i", [], "remote", {dl.OWNER_LABEL: "elsewhere:1"}, "n", {})
    client.created += [mine, dead, other]
    net = FakeNetwork(client, "old", "bridge", {dl.OWNER_LABEL: f"{host}:999999999"})
    client.networks_created.append(net)
    assert sorted(dl.sweep_stale(client)) == ["dead", "old"]
    assert dead.removed and net.removed and not mine.removed and not other.removed


def test_make_subject_docker_specs(tmp_path: Any) -> None:
    from conformance.subjects.factory import make_subject

    s = make_subject("docker")
    assert isinstance(s, dl.DockerSubject) and s.cp.scheduler_image == dl.SCHEDULER_IMAGE
    assert s.cp._client is None  # nothing connects before the first scenario
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1",
                                   "kind": "KubeSchedulerConfiguration"}))
    s = make_subject("docker:me/kube-scheduler:dev", config=str(cfg), timeout=33)
    assert s.cp.scheduler_image == "me/kube-scheduler:dev"
    assert s.config_doc is not None and s.timeout == 33
    assert s.describe()["schedulerImage"] == "me/kube-scheduler:dev"
