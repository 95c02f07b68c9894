"""The control-plane backends of another release than the pinned one (``--release``,
``process@vX.Y.Z``; docs/backends.md#releases): where the binaries of each release are and the
refusals when they are missing or of another release, the subject specs, the admission
plugins each release registers, the build scripts' checks, and, when ``backends/build.sh
--release v1.34.4`` has run, the v1.34.4 control plane scheduling the hand-written scenarios
as the reference of v1.34.4 does (and, with a Docker engine and ``backends/images.sh
--release v1.34.4``, its containers).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from backend_scenarios import SCENARIOS, decisions, docker_engine
from kubernetes_source import kubernetes_source

from conformance.backends.control_plane import (
    ADMISSION_SINCE_MINOR,
    DISABLED_ADMISSION,
    disabled_admission,
)
from conformance.backends.docker_launcher import (
    LOCAL_REPOSITORY,
    REPOSITORY_ENV,
    DockerSubject,
    default_images,
)
from conformance.backends.process import (
    BINARIES,
    ProcessSubject,
    binaries_missing,
    find_binaries,
)
from conformance.core.errors import UsageError
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectError
from conformance.subjects.factory import make_subject
from conformance.subjects.reference import ReferenceSubject
from reference_impl.releases import supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE

ROOT = Path(__file__).resolve().parent.parent
OLD = "v1.34.4"


def fake_binaries(d: Path, release: str) -> Path:
    """Executables named like the real ones that print ``release`` as they do."""
    d.mkdir(parents=True, exist_ok=True)
    for name in BINARIES:
        p = d / name
        p.write_text(f"#!/bin/sh\necho 'Kubernetes {release}'\n")
        p.chmod(0o755)
    return d


@pytest.fixture
def bin_top(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``$KSCHEDCONF_BACKENDS_BIN`` and a ``$PATH`` holding pinned-release fakes."""
    top = tmp_path / "bin"
    top.mkdir()
    monkeypatch.setenv("KSCHEDCONF_BACKENDS_BIN", str(top))
    on_path = fake_binaries(tmp_path / "path", UPSTREAM_RELEASE)
    monkeypatch.setenv("PATH", f"{on_path}{os.pathsep}{os.environ.get('PATH', '')}")
    return top


def test_binaries_of_another_release_are_in_its_directory_and_never_on_path(
        bin_top: Path) -> None:
    # the pinned release may come from PATH; another never does, and the message says how
    # to build it
    assert find_binaries()["kube-scheduler"].parent == bin_top.parent / "path"
    with pytest.raises(SubjectError) as e:
        find_binaries(release=OLD)
    assert f"not found in {bin_top / OLD};" in str(e.value)
    assert f"`bash backends/build.sh --release {OLD}`" in str(e.value)
    assert "PATH" not in str(e.value)
    assert binaries_missing(OLD) == str(e.value)
    fake_binaries(bin_top / OLD, OLD)
    assert find_binaries(release=OLD) == {n: bin_top / OLD / n for n in BINARIES}


def test_binaries_that_say_another_release_are_refused(bin_top: Path) -> None:
    fake_binaries(bin_top / OLD, UPSTREAM_RELEASE)  # the pinned release's, in v1.34.4/
    with pytest.raises(SubjectError) as e:
        find_binaries(release=OLD)
    assert f"kube-apiserver is {UPSTREAM_RELEASE}, not {OLD}" in str(e.value)
    assert f"backends/build.sh --release {OLD}" in str(e.value)
    fake_binaries(bin_top, "v1.36.3")  # the pinned release's place, another release
    with pytest.raises(SubjectError, match=f"is v1.36.3, not {UPSTREAM_RELEASE}; build the "
                                           "binaries of .* with `bash backends/build.sh`"):
        find_binaries()


def test_a_subject_of_a_release_refuses_a_scenario_of_another(bin_top: Path) -> None:
    fake_binaries(bin_top / OLD, OLD)
    s = ProcessSubject(release=OLD)
    assert (s.release, s.describe()["upstreamRelease"]) == (OLD, OLD)
    sc = ScenarioInput(SCENARIOS["resources"], None, 0, "resources")  # of the pinned release
    with pytest.raises(SubjectError) as e:
        s.run(sc)  # refused before anything starts
    assert (f"runs kube-scheduler {OLD}; scenario resources is of {UPSTREAM_RELEASE} (run it "
            f"with --release {UPSTREAM_RELEASE}, the subject process@{UPSTREAM_RELEASE})"
            ) in str(e.value)
    assert s.cp.cleanup is None and s.cp.dir is None
    s.close()


def test_subject_specs_name_the_release(bin_top: Path) -> None:
    fake_binaries(bin_top / OLD, OLD)
    for spec, release in (("process@v1.34.4", UPSTREAM_RELEASE), ("process", OLD),
                          ("process@v1.34.4", OLD)):
        s = make_subject(spec, release=release)
        assert isinstance(s, ProcessSubject) and s.release == OLD
        assert s.cp.bins["kube-scheduler"] == bin_top / OLD / "kube-scheduler"
    d = make_subject("docker@v1.35.4:me/sched:dev")
    assert isinstance(d, DockerSubject) and d.release == "v1.35.4"
    assert d.cp.apiserver_image.endswith("/kube-apiserver:v1.35.4")
    assert d.cp.scheduler_image == "me/sched:dev"
    assert make_subject("docker", release="v1.36.3").cp.scheduler_image.endswith(  # type: ignore[attr-defined]
        "/kube-scheduler:v1.36.3")
    with pytest.raises(UsageError, match="give the release once"):
        make_subject("process@v1.34.4", release="v1.35.4")
    with pytest.raises(UsageError, match="no release 'v1.33.0'"):
        make_subject("docker@v1.33.0")
    with pytest.raises(UsageError, match="kubeconfig subject runs the kube-scheduler of its "
                                         "cluster"):
        make_subject("kubeconfig:ctx", release=OLD, i_own_this_cluster="ctx")
    with pytest.raises(SubjectError, match="backends/build.sh --release v1.36.3"):
        make_subject("process@v1.36.3")


def test_disabled_admission_plugins_are_those_each_release_registers() -> None:
    """kube-apiserver refuses an unknown plugin in --disable-admission-plugins: each name
    passed is one the release registers (``PluginName`` constants of its admission plugins,
    in plugin/pkg/admission and in k8s.io/apiserver's), and only the plugins a release lacks
    are left out."""
    assert disabled_admission() == DISABLED_ADMISSION
    assert set(ADMISSION_SINCE_MINOR) <= set(DISABLED_ADMISSION)
    checked = 0
    for release in supported_releases():
        src, apiserver = kubernetes_source(release), kubernetes_source(release, "apiserver")
        if src is None or apiserver is None:
            continue
        names: set[str] = set()
        for root in (src / "plugin/pkg/admission", apiserver / "pkg/admission/plugin"):
            for f in root.rglob("*.go"):
                if not f.name.endswith("_test.go"):
                    names |= set(re.findall(r'PluginName\s*=\s*"([A-Za-z]+)"',
                                            f.read_text(errors="replace")))
        passed = disabled_admission(release)
        assert set(passed) <= names, (release, sorted(set(passed) - names))
        assert set(DISABLED_ADMISSION) - set(passed) == set(DISABLED_ADMISSION) - names
        checked += 1
    if not checked:
        pytest.skip("no release's k8s.io/kubernetes in the Go module cache")
    assert disabled_admission(OLD) == tuple(
        p for p in DISABLED_ADMISSION if p not in ADMISSION_SINCE_MINOR)


def _script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "GOFLAGS": "-mod=mod"})


@pytest.mark.skipif(shutil.which("go") is None, reason="needs Go")
@pytest.mark.parametrize("release", supported_releases())
def test_each_release_has_a_module_file_that_links_it(release: str) -> None:
    r = _script("backends/build.sh", "--check", "--release", release)
    assert r.returncode == 0, r.stderr
    modfile = "go.mod" if release == UPSTREAM_RELEASE else f"releases/{release}/go.mod"
    assert r.stdout.startswith(f"backends/build.sh: {modfile} matches {release} (etcd v3.")


def test_the_scripts_refuse_a_release_they_have_no_data_for() -> None:
    if shutil.which("go") is not None:
        r = _script("backends/build.sh", "--check", "--release", "v1.33.0")
        assert r.returncode == 1 and "v1.33.0 is not a supported release" in r.stderr
    r = _script("backends/images.sh", "--print", "--release", "v1.33.0")
    assert r.returncode == 1 and "v1.33.0 is not a supported release" in r.stderr
    r = _script("backends/images.sh", "--print", "--release", OLD)
    assert r.returncode == 0
    assert r.stdout.split() == ["kschedconf.local/etcd:3.6.5-0",
                                f"kschedconf.local/kube-apiserver:{OLD}",
                                f"kschedconf.local/kube-scheduler:{OLD}",
                                f"kschedconf.local/kube-controller-manager:{OLD}"]


MISSING_OLD = binaries_missing(OLD)


@pytest.fixture(scope="module")
def old_subject() -> Any:
    if MISSING_OLD:
        pytest.skip(MISSING_OLD)
    s = ProcessSubject(timeout=90, release=OLD)
    yield s
    s.close()
    assert s.cp.dir is None or not s.cp.dir.exists()


@pytest.mark.skipif(bool(MISSING_OLD), reason=f"process backend binaries of {OLD} not built: "
                                                f"run backends/build.sh --release {OLD}")
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_old_release_schedules_as_its_reference(old_subject: ProcessSubject,
                                                    name: str) -> None:
    sc = ScenarioInput(SCENARIOS[name], None, 0, name, release=OLD)
    real = old_subject.run(sc).result
    assert real["upstreamRelease"] == OLD
    ref = ReferenceSubject(release=OLD).run(sc).result
    assert decisions(real) == decisions(ref)


REPOSITORY = os.environ.get(REPOSITORY_ENV) or LOCAL_REPOSITORY
OLD_IMAGES = default_images(REPOSITORY, OLD)
DOCKER, NO_DOCKER = docker_engine(OLD_IMAGES)


@pytest.mark.skipif(bool(NO_DOCKER), reason=NO_DOCKER)
def test_the_old_release_in_containers_schedules_as_its_reference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REPOSITORY_ENV, REPOSITORY)
    s = DockerSubject(client=DOCKER, timeout=90, release=OLD)
    assert (s.cp.etcd_image, s.cp.apiserver_image, s.cp.scheduler_image) == (
        OLD_IMAGES["etcd"], OLD_IMAGES["kube-apiserver"], OLD_IMAGES["kube-scheduler"])
    s.cp.pull = False
    with s:
        for name in ("resources", "preemption"):
            sc = ScenarioInput(SCENARIOS[name], None, 0, name, release=OLD)
            real = s.run(sc).result
            assert real["upstreamRelease"] == OLD
            assert decisions(real) == decisions(ReferenceSubject(release=OLD).run(sc).result)
