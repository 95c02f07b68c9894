"""The docker backend against a real Docker engine: etcd, kube-apiserver and kube-scheduler of
the pinned release as containers on a private network, driven through the hand-written
scenarios of the process backend's tests and compared with the reference; a scheduler
container that dies midway is a subject error with its log; a user's scheduler image with its
own ENTRYPOINT runs; Ctrl-C and SIGTERM midway leave no container, network or temporary
directory; two runs in parallel do not collide.

Skipped without a reachable engine, or without the control-plane images: ``backends/images.sh``
builds them from the binaries of ``backends/build.sh`` as ``kschedconf.local/...``
(``$KSCHEDCONF_IMAGE_REPOSITORY`` names another repository that has them, e.g. a mirror of
registry.k8s.io). ``.ci/run`` installs an engine, builds the images and runs these tests.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from backend_scenarios import SCENARIOS, decisions, docker_engine, node, pod

from conformance.backends import docker_launcher as dl
from conformance.backends.plan import RUN_LABEL
from conformance.core.documents import schema
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectError
from conformance.subjects.reference import ReferenceSubject

ROOT = Path(__file__).resolve().parent.parent
REPOSITORY = os.environ.get(dl.REPOSITORY_ENV) or "kschedconf.local"
IMAGES = dl.default_images(REPOSITORY)


CLIENT, MISSING = docker_engine(IMAGES)
pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)


def docker_subject(**kw: Any) -> dl.DockerSubject:
    kw.setdefault("scheduler_image", IMAGES["kube-scheduler"])
    s = dl.DockerSubject(client=CLIENT, timeout=kw.pop("timeout", 90), **kw)
    s.cp.etcd_image = IMAGES["etcd"]
    s.cp.apiserver_image = IMAGES["kube-apiserver"]
    s.cp.controller_image = IMAGES["kube-controller-manager"]
    s.cp.pull = False
    return s


def owned_by(pid: int) -> tuple[list[str], list[str]]:
    """Names of the containers and networks a kschedconf process ``pid`` owns."""
    import socket

    owner = f"{dl.OWNER_LABEL}={socket.gethostname()}:{pid}"
    assert CLIENT is not None
    containers = [c.name for c in CLIENT.containers.list(all=True, filters={"label": owner})]
    networks = [n.name for n in CLIENT.networks.list(filters={"label": owner})]
    return containers, networks


def left_by(s: dl.DockerSubject) -> tuple[list[str], list[str]]:
    """Names of the containers and networks of one subject's run that still exist."""
    run = f"{RUN_LABEL}={s.cp.run_id}"
    assert CLIENT is not None
    return ([c.name for c in CLIENT.containers.list(all=True, filters={"label": run})],
            [n.name for n in CLIENT.networks.list(filters={"label": run})])


@pytest.fixture(scope="module")
def subject() -> Any:
    s = docker_subject()
    yield s
    s.close()
    assert owned_by(os.getpid()) == ([], [])
    assert s.cp.dir is None or not s.cp.dir.exists()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_small_scenarios_match_the_reference(subject: dl.DockerSubject, name: str) -> None:
    sc = ScenarioInput(SCENARIOS[name], None, 0, name)
    real = subject.run(sc).result
    ref = ReferenceSubject().run(sc).result
    jsonschema.validate(real, schema("SimulationResult"))
    assert decisions(real) == decisions(ref)
    first_real: dict[str, Any] = {}
    for a in real["attempts"]:
        first_real.setdefault(a["pod"], (a["outcome"], a["node"], a["nominatedNode"]))
    first_ref: dict[str, Any] = {}
    for a in ref["attempts"]:
        first_ref.setdefault(a["pod"], (a["outcome"], a["node"], a["nominatedNode"]))
    assert first_real == first_ref
    # the containers are on a private network; only the API server and the scheduler's
    # secure port are published, on loopback
    containers = subject.cp.containers
    assert {"etcd", "apiserver"} <= set(containers)
    for c in containers.values():
        c.reload()
        for bindings in (c.attrs["NetworkSettings"]["Ports"] or {}).values():
            assert all(b["HostIp"] == "127.0.0.1" for b in bindings or [])
        assert list(c.attrs["NetworkSettings"]["Networks"]) == [subject.cp.network.name]


def test_dra_scenarios_with_the_claim_controller_match_the_reference(
        subject: dl.DockerSubject) -> None:
    """kube-controller-manager's resourceclaim controller in a container: a timeline pod's
    template claim created, a deleted pod's claim released to the waiting pod (the scenarios
    of tests/dra/test_process_backend_claim_controller.py); no container left of it."""
    from dra.test_dra_claim_cleanup import template_docs
    from dra.test_dra_timeline_claims import check, timeline_docs

    for docs, name in ((timeline_docs(), "dra-timeline"), (template_docs(), "dra-cleanup")):
        sc = ScenarioInput(docs, None, 0, name)
        real = subject.run(sc).result
        ref = ReferenceSubject().run(sc).result
        for field in ("bindings", "pending", "removed", "resourceClaims"):
            assert real.get(field) == ref.get(field), (name, field)
        if name == "dra-timeline":
            check(real, docs)
        assert subject.timings["last_controller_start"] > 0
        assert not [c for c in subject.cp.containers if c.startswith("controller-")]


def test_a_scheduler_container_that_dies_midway_is_a_subject_error_with_its_log() -> None:
    s = docker_subject(settle=3600)  # never quiet: only the dead scheduler can end it
    orig = s.cp.start_scheduler

    def start_then_kill(cfg: Any) -> None:
        orig(cfg)
        s.cp.scheduler.kill()

    s.cp.start_scheduler = start_then_kill  # type: ignore[method-assign]
    sc = ScenarioInput([node("n1", "1"), pod("p", "2")], None, 0, "dies")
    try:
        t0 = time.monotonic()
        with pytest.raises(SubjectError) as e:
            s.run(sc)
        assert time.monotonic() - t0 < 60
        msg = str(e.value)
        assert "scheduler-1 exited with code 137" in msg, msg
        assert "log (tail) ---" in msg  # what the scheduler said before it died
        # the control plane is still good for the next scenario
        s.cp.start_scheduler = orig  # type: ignore[method-assign]
        s.settle = 0.5
        assert s.run(ScenarioInput([node("n1", "1"), pod("p", "1")], None, 0, "next")
                     ).result["bindings"] == {"default/p": "n1"}
    finally:
        s.close()
    assert left_by(s) == ([], [])


def test_a_users_scheduler_image_with_its_own_entrypoint_runs(tmp_path: Path) -> None:
    """`--scheduler-image`: an image whose ENTRYPOINT is something else (a wrapper, a shell)
    still runs kube-scheduler with the backend's flags (kubeadm's way: command replaces the
    ENTRYPOINT)."""
    assert CLIENT is not None
    dockerfile = (f"FROM {IMAGES['kube-scheduler']}\n"
                  'ENTRYPOINT ["/usr/local/bin/kube-scheduler", "--this-flag-does-not-exist"]\n'
                  'LABEL io.kschedconf.test="user-image"\n')
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        data = dockerfile.encode()
        info = tarfile.TarInfo("Dockerfile")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    buf.seek(0)
    tag = "kschedconf.local/test-user-scheduler:dev"
    CLIENT.images.build(fileobj=buf, custom_context=True, tag=tag, rm=True)
    s = docker_subject(scheduler_image=tag)
    try:
        sc = ScenarioInput(SCENARIOS["resources"], None, 0, "user-image")
        real = s.run(sc).result
        assert decisions(real) == decisions(ReferenceSubject().run(sc).result)
        assert s.describe()["schedulerImage"] == tag
    finally:
        s.close()
        CLIENT.images.remove(tag, force=True)


def test_parallel_runs_do_not_collide() -> None:
    sc = ScenarioInput(SCENARIOS["resources"], None, 0, "parallel")
    subjects = [docker_subject(), docker_subject()]
    results: list[Any] = [None, None]

    def go(i: int) -> None:
        try:
            results[i] = subjects[i].run(sc).result
        except Exception as e:  # reported below
            results[i] = e

    threads = [threading.Thread(target=go, args=(i,)) for i in range(2)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=240)
        a, b = subjects[0].cp, subjects[1].cp
        assert a.run_id != b.run_id and a.network.name != b.network.name
        assert a.api_port != b.api_port and a.dir != b.dir
    finally:
        for s in subjects:
            s.close()
    for r in results:
        assert isinstance(r, dict), r
    assert decisions(results[0]) == decisions(results[1])
    assert [left_by(s) for s in subjects] == [([], []), ([], [])]


def test_keyboard_interrupt_in_the_middle_of_a_scenario_removes_everything() -> None:
    s = docker_subject(settle=3600)
    calls = {"n": 0}
    orig = s.cp.check_alive

    def interrupted() -> None:  # the driver asks every 0.25 s while the scenario runs
        calls["n"] += 1
        if calls["n"] > 3:  # the scheduler runs, the scenario is under way
            raise KeyboardInterrupt
        orig()

    s.cp.check_alive = interrupted  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt), s:
        s.run(ScenarioInput([node("n1", "1"), pod("p", "1"), pod("q", "1")], None, 0, "ctrl-c"))
    assert calls["n"] > 3
    assert left_by(s) == ([], [])
    assert s.cp.dir is None or not s.cp.dir.exists()


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_stopping_kschedconf_run_midway_leaves_nothing_behind(
        tmp_path: Path, sig: signal.Signals, code: int) -> None:
    """Ctrl-C or SIGTERM in the middle of `kschedconf run --subject docker` (containers
    running, a scenario under way): exit 128 + the signal, no container, network or temporary
    directory left."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    child = subprocess.Popen(
        [sys.executable, "-m", "conformance.cli", "run", "--subject", "docker",
         "--scheduler-image", IMAGES["kube-scheduler"], "--max-examples", "30",
         "--no-database", "--out", str(tmp_path / "out")],
        cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT),
                       dl.REPOSITORY_ENV: REPOSITORY},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            containers, _ = owned_by(child.pid)
            if any("scheduler" in c for c in containers):
                break
            time.sleep(0.2)
        containers, networks = owned_by(child.pid)
        assert len(containers) == 3 and len(networks) == 1, (containers, networks)
        time.sleep(1.0)  # into the scenario
        child.send_signal(sig)
        got = child.wait(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    err = child.stderr.read() if child.stderr else ""
    assert got == code, err
    assert "Traceback" not in err, err
    assert owned_by(child.pid) == ([], [])
    assert CLIENT is not None
    assert not [c.name for c in CLIENT.containers.list(all=True, filters={
        "label": f"{RUN_LABEL}"}) if c.labels.get(dl.OWNER_LABEL, "").endswith(f":{child.pid}")]
    left = [p for p in tmp.rglob("*") if p.is_file() or p.name.startswith("kschedconf-cp")]
    assert left == []
