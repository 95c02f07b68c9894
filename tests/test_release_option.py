"""``--release``: every command schedules as the release asked for, shows it, and a scenario
file's release is kept (issue 16)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import yaml

from conformance.cli.main import main
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import ScenarioRejected
from conformance.subjects.reference import ReferenceSubject
from reference_impl.config import load_config
from reference_impl.config.errors import ConfigError
from reference_impl.plugins.registry import in_tree_registry
from reference_impl.releases import load
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from reference_impl.testing.wrappers import (
    make_config,
    make_container,
    make_node,
    make_pod,
    make_profile,
)

#: VolumeBinding args with a shape: valid where StorageCapacityScoring is on (v1.37), refused
#: where it is off (v1.34-v1.36: ValidateVolumeBindingArgs)
SHAPED = make_config().profile(make_profile().plugin_args("VolumeBinding", {
    "bindTimeoutSeconds": 600, "shape": [{"utilization": 0, "score": 0},
                                         {"utilization": 100, "score": 10}]})).manifest()


def _scenario(release: str = UPSTREAM_RELEASE, config: dict | None = None) -> ScenarioInput:
    node = make_node("n1").allocatable(cpu="2", memory="4Gi", pods=110).manifest()
    pod = make_pod("p").container(make_container("c").image("x").requests(cpu="1")).manifest()
    return ScenarioInput([node, pod], config, 3, "case", release=release)


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_configuration_is_validated_as_the_release_validates_it() -> None:
    load_config(SHAPED, in_tree_registry(), load("v1.37.2"))
    with pytest.raises(ConfigError, match="turn on the feature gate StorageCapacityScoring"):
        load_config(SHAPED, in_tree_registry(), load("v1.34.4"))


def test_the_reference_subject_schedules_each_scenario_as_its_release() -> None:
    with ReferenceSubject() as subject:
        assert subject.run(_scenario(config=SHAPED)).result["bindings"] == {"default/p": "n1"}
        doc = subject.run(_scenario("v1.35.4")).result
        assert doc["upstreamRelease"] == "v1.35.4"
        with pytest.raises(ScenarioRejected, match="StorageCapacityScoring"):
            subject.run(_scenario("v1.34.4", SHAPED))


def test_reference_cfg_follows_the_scenario_release(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(make_config().set(podInitialBackoffSeconds=3).manifest()))
    with ReferenceSubject(cfg, release="v1.34.4") as subject:
        assert subject.release == "v1.34.4"
        assert subject.describe()["upstreamRelease"] == "v1.34.4"
        doc = subject.run(_scenario("v1.34.4")).result
        assert doc["upstreamRelease"] == "v1.34.4" and doc["bindings"] == {"default/p": "n1"}


def test_simulate_and_explain_take_the_release(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    code, out, _ = _cli(capsys, "simulate", "--example", "--release", "v1.34", "-o", "json")
    assert json.loads(out)["upstreamRelease"] == "v1.34.4"
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all([SHAPED, *_scenario().documents]))
    code, out, _ = _cli(capsys, "simulate", str(path), "-o", "json")
    assert code == 0 and json.loads(out)["upstreamRelease"] == UPSTREAM_RELEASE
    code, _, err = _cli(capsys, "simulate", str(path), "--release", "v1.36")
    assert code == 2 and "StorageCapacityScoring" in err
    code, out, _ = _cli(capsys, "explain", str(path), "--pod-name", "default/p", "--release",
                        "v1.37", "-o", "json")
    assert code == 0 and json.loads(out)["upstreamRelease"] == "v1.37.2"


def test_an_unsupported_release_is_a_usage_error_naming_the_supported(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--example", "--release", "v1.30"])
    assert e.value.code == 2
    assert "supported: v1.34.4, v1.35.4, v1.36.3, v1.37.2" in capsys.readouterr().err


def test_reproduce_follows_the_file_release_and_release_overrides_it(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _scenario("v1.34.4", SHAPED).write(tmp_path / "old.yaml")
    code, out, err = _cli(capsys, "reproduce", str(path))
    assert code == 2 and "StorageCapacityScoring" in err  # refused as v1.34.4 refuses it
    code, out, _ = _cli(capsys, "reproduce", str(path), "--release", "v1.37")
    assert code == 0 and "upstream v1.37.2" in out and "default/p -> n1" in out


def test_run_generates_scenarios_of_the_release(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    code, out, _ = _cli(capsys, "run", "--release", "v1.35", "--max-examples", "2", "--seed",
                        "4", "--no-database", "--oracle", "no_overcommit", "--out",
                        str(tmp_path), "-o", "json")
    doc = json.loads(out)
    assert code == 0
    assert doc["properties"]["upstream.release"] == "v1.35.4"
    assert "--release v1.35.4" in doc["properties"]["rerun"]


def test_the_golden_suite_of_a_release_uses_its_decisions_and_skips_its_random_ones(
        capsys: pytest.CaptureFixture[str]) -> None:
    """v1.34.4 has decisions of its own for some scenarios; the scenarios whose top score ties
    are random there (reservoir sampling) and are skipped, saying how to record them."""
    code, out, _ = _cli(capsys, "run", "--suite", "golden", "--release", "v1.34", "-o", "json")
    cases = [c for c in json.loads(out)["cases"] if c["suite"] == "golden"]
    assert code == 0 and cases
    statuses = {c["status"] for c in cases}
    assert statuses == {"passed", "skipped"}
    skipped = [c for c in cases if c["status"] == "skipped"]
    assert all("not v1.34.4" in c["message"] and "golden record --release v1.34.4" in
               c["message"] for c in skipped)


def test_subjects_of_one_release_refuse_another(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(capsys, "diff", "--release", "v1.34", "--upstream", "kubeconfig:ctx",
                        "--i-own-this-cluster", "ctx", "--scenarios", "1")
    assert code == 2 and "the kubeconfig subject runs the kube-scheduler of its cluster" in err
    code, _, err = _cli(capsys, "diff", "--release", "v1.34", "--upstream", "upstream@v1.35.4",
                        "--scenarios", "1")
    assert code == 2 and "give the release once" in err


def test_scenario_files_written_by_a_run_name_the_release() -> None:
    s = dataclasses.replace(_scenario(), release="v1.36.3")
    assert yaml.safe_load_all(s.to_yaml()).__next__()["release"] == "v1.36.3"
