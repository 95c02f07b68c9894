"""The ``kubeconfig`` backend on a real cluster, with DRA: a process control plane stands for the
user's throwaway cluster (its own kube-scheduler and kube-controller-manager's resourceclaim
controller running throughout, and the Priority admission plugin on, as in kind), and
``kschedconf diff --upstream kubeconfig:CONTEXT`` compares the golden DRA scenarios and
generated ``dra`` ones with the reference: no unexplained divergence, and the decisions of
the scenarios without timing hazards (allocations included) equal. Without ``--config`` the
cluster's scheduler is taken to run the default configuration. Skipped when the binaries are
not built (``backends/build.sh``)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from conformance.backends.process import ProcessControlPlane, binaries_missing
from conformance.cli.main import main

MISSING = binaries_missing()
pytestmark = pytest.mark.skipif(
    bool(MISSING),
    reason="process backend binaries not built: run backends/build.sh (needs Go "
    "and the Go module proxy)",
)

GOLDEN_DRA = Path(__file__).resolve().parents[2] / "golden" / "dra"
CONTEXT = "kschedconf"  # the context of control_plane.kubeconfig_doc


@pytest.fixture(scope="module")
def cluster() -> Iterator[ProcessControlPlane]:
    cp = ProcessControlPlane(admission_on=("Priority",))
    try:
        cp.start()
        cp.start_scheduler(None)
        cp.start_controllers()
        yield cp
    finally:
        cp.stop()


def _diff(cluster: ProcessControlPlane, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
          *args: str) -> dict:
    monkeypatch.setenv("KUBECONFIG", str(cluster.kubeconfig))
    monkeypatch.chdir(tmp_path)
    report = tmp_path / "report.json"
    code = main(["diff", "--upstream", f"kubeconfig:{CONTEXT}", "--i-own-this-cluster",
                 CONTEXT, "--seed", "1", "--no-shrink", "--report", str(report), *args])
    doc = json.loads(report.read_text())
    assert code == 0, [(c["name"], c.get("message")) for c in doc["cases"]
                       if c["status"] != "passed"]
    return doc


def test_golden_dra_scenarios_decide_as_the_reference(
        cluster: ProcessControlPlane, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = tmp_path / "golden" / "dra"
    golden.mkdir(parents=True)
    for f in sorted(GOLDEN_DRA.glob("*.yaml")):
        shutil.copy(f, golden / f.name)
    doc = _diff(cluster, tmp_path, monkeypatch, "--golden", "--golden-dir",
                str(tmp_path / "golden"), "--scenarios", "0")
    cases = doc["cases"]
    assert len(cases) == len(list(GOLDEN_DRA.glob("*.yaml"))) >= 8
    assert all(c["status"] == "passed" for c in cases)
    exact = [c["name"] for c in cases if c["properties"].get("decisions_compared") == "true"]
    # example-driver-demo has the claim-in-flight hazard (docs/backends.md); the rest compare
    assert len(exact) >= len(cases) - 1, exact


def test_generated_dra_scenarios_without_a_config(
        cluster: ProcessControlPlane, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Generated scenarios carry their own configurations (profiles, plugin args); the
    cluster's scheduler runs its own, so without ``--config`` the reference schedules them
    with the default one, as the cluster's scheduler does."""
    doc = _diff(cluster, tmp_path, monkeypatch, "--sizes", "dra=4", "--scenarios", "4")
    statuses = [c["status"] for c in doc["cases"]]
    assert statuses.count("passed") >= 3, statuses
    assert doc["summary"]["failed"] == doc["summary"]["error"] == 0



#: a profile the cluster's scheduler does not run: every node excluded by addedAffinity
NO_NODE_PROFILE = {
    "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler", "pluginConfig": [{
        "name": "NodeAffinity", "args": {"addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{
                "matchExpressions": [{"key": "kschedconf.io/absent",
                                      "operator": "Exists"}]}]}}}}]}],
}


def test_a_scenarios_own_configuration_does_not_apply(
        cluster: ProcessControlPlane, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scenario whose configuration would keep every pod pending: the cluster's scheduler
    binds them under its own (default) configuration, and the reference is run with that one
    too, so the decisions compare."""
    docs = [d for d in yaml.safe_load_all((GOLDEN_DRA / "match-attribute.yaml").read_text())
            if d and d.get("kind") not in ("GoldenDecisions", "ScenarioInfo")]
    path = tmp_path / "own-config.yaml"
    path.write_text(yaml.safe_dump_all([*docs, NO_NODE_PROFILE], sort_keys=False))
    doc = _diff(cluster, tmp_path, monkeypatch, "--replay", str(path))
    [case] = doc["cases"]
    assert case["status"] == "passed" and case["properties"]["decisions_compared"] == "true"
