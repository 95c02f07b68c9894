"""What a user gets from `pip install kschedconf` (a wheel, not this checkout): the golden
scenarios, the schemas and the known divergences are installed, and the golden suite finds
them from any directory; the CI templates of ci/ are valid and run what the README says."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                           str(out), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (whl,) = out.glob("kschedconf-*.whl")
    return whl


def test_the_wheel_holds_the_golden_scenarios_schemas_and_known_divergences(
        wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    golden = sorted(p.name for p in (ROOT / "golden").glob("*.yaml"))
    assert golden and {f"golden/{n}" for n in golden} <= names
    assert {"golden/__init__.py", "golden/generate.py",
            "conformance/known_divergences.yaml",
            "conformance/schemas/SimulationResult.schema.json",
            "conformance/schemas/Explanation.schema.json"} <= names


def test_an_installed_kschedconf_finds_its_golden_scenarios_from_any_directory(
        wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "project"
    (elsewhere / "golden").mkdir(parents=True)  # a user's own golden/ is not picked up
    code = ("from conformance import suites; d = suites.default_golden_dir(); "
            "print(d); print(len(suites.golden_files(d)))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(site),
                                                      "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    where, count = proc.stdout.split()
    assert Path(where) == site / "golden"
    assert int(count) == len(list((ROOT / "golden").glob("*.yaml")))


def test_an_empty_golden_directory_is_an_error_not_a_pass(tmp_path: Path) -> None:
    from conformance import suites

    with pytest.raises(ValueError, match="no golden scenarios"):
        suites.golden_files(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--suite", "golden",
                           "--golden-dir", str(tmp_path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and "no golden scenarios" in proc.stderr


def _run_lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if "kschedconf run" in line]


def test_github_actions_template() -> None:
    doc = yaml.safe_load((ROOT / "ci" / "github-actions.yml").read_text())
    steps = doc["jobs"]["conformance"]["steps"]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "--subject docker" in runs and "--scheduler-image" in runs
    assert "--junit kschedconf-reference.xml" in " ".join(runs.split())
    assert "--junit kschedconf-docker.xml" in " ".join(runs.split())
    report = [s for s in steps if "action-junit-report" in str(s.get("uses", ""))]
    assert report and report[0]["with"]["report_paths"] == "kschedconf-*.xml"
    assert doc["permissions"]["checks"] == "write"


def test_gitlab_template_can_be_included() -> None:
    doc = yaml.safe_load((ROOT / "ci" / "gitlab-ci.yml").read_text())
    assert "stages" not in doc  # an include must not replace the user's stages
    base = doc[".kschedconf"]
    assert base["artifacts"]["reports"]["junit"] == "kschedconf-*.xml"
    assert base["artifacts"]["when"] == "always"
    scripts = "\n".join(" ".join(doc[j]["script"]) for j in doc if j.startswith("kschedconf:"))
    assert "--subject docker" in scripts and "--scheduler-image" in scripts
    assert all(doc[j]["extends"] == ".kschedconf" for j in doc if j.startswith("kschedconf:"))


def test_templates_name_no_release_of_their_own() -> None:
    """The pinned release is named in one place; the templates leave the default image to
    kschedconf."""
    import re

    for f in ("github-actions.yml", "gitlab-ci.yml"):
        assert not re.search(r"v1\.\d+\.\d+", (ROOT / "ci" / f).read_text()), f
