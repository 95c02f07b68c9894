"""What a user gets from `pip install kschedconf` (a wheel, not this checkout): the golden
scenarios, the schemas and the known divergences are installed, and the golden suite finds
them from any directory; the CI templates of ci/ are valid and run what the README says.

The wheel is built once for the module (a few seconds), from a copy of the source files, so
that a stale build/ of the checkout cannot add files to it and the build writes nothing into
the checkout."""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from conformance.engines.golden import default_golden_dir, golden_files

ROOT = Path(__file__).resolve().parent.parent
GOLDEN_YAML = sorted(p.relative_to(ROOT / "golden").as_posix()
                     for p in (ROOT / "golden").rglob("*.yaml"))


def _source_copy(dest: Path) -> Path:
    """The files a git checkout of the project has (tracked, and new ones not ignored)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"],
                                cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
        names = [n for n in listed.decode().split("\0") if n]
    except (OSError, subprocess.SubprocessError):
        names = []
    if not names:  # not a git checkout: everything but build products and binaries
        shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(
            ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
            "bin", "kschedconf-out"))
        return dest
    for name in names:
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def _can_build_without_isolation() -> bool:
    """The installed setuptools meets pyproject's requirement and has bdist_wheel, so no
    download is needed."""
    try:
        version = tuple(int(x) for x in
                        re.findall(r"\d+", importlib.metadata.version("setuptools"))[:2])
    except importlib.metadata.PackageNotFoundError:
        return False
    if version < (68, 0):
        return False
    if version >= (70, 1):
        return True
    try:
        importlib.metadata.version("wheel")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = _source_copy(tmp_path_factory.mktemp("src"))
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)]
    if _can_build_without_isolation():
        cmd.insert(4, "--no-build-isolation")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (whl,) = out.glob("kschedconf-*.whl")
    return whl


def test_the_wheel_holds_the_golden_scenarios_schemas_and_known_divergences(
        wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert len(GOLDEN_YAML) > 50 and all(n.count("/") == 1 for n in GOLDEN_YAML)  # AREA/NAME
    in_wheel = sorted(n.removeprefix("golden/") for n in names
                      if re.fullmatch(r"golden/.+\.yaml", n))
    assert in_wheel == GOLDEN_YAML
    definitions = sorted(f"golden/definitions/{p.name}"
                         for p in (ROOT / "golden" / "definitions").glob("*.py"))
    assert len(definitions) > 10 and set(definitions) <= names
    schemas = sorted(f"conformance/core/schemas/{p.name}"
                     for p in (ROOT / "conformance" / "core" / "schemas").glob("*.json"))
    assert schemas and set(schemas) <= names
    assert {"golden/__init__.py", "golden/definitions/__init__.py",
            "conformance/known_divergences.yaml",
            "conformance/core/schemas/SimulationResult.schema.json",
            "conformance/core/schemas/Explanation.schema.json"} <= names


def test_an_installed_kschedconf_finds_its_golden_scenarios_from_any_directory(
        wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "project"
    # a user's own golden/, even a package, on sys.path first (`python -c` puts the current
    # directory there), is not picked up
    (elsewhere / "golden").mkdir(parents=True)
    (elsewhere / "golden" / "__init__.py").write_text(
        "from pathlib import Path\nGOLDEN_DIR = Path(__file__).parent\n")
    (elsewhere / "golden" / "mine.yaml").write_text("kind: List\nitems: []\n")
    code = ("import conformance; "
            "from conformance.engines.golden import default_golden_dir, golden_files; "
            "from conformance.engines.golden_record import load_definitions; "
            "d = default_golden_dir(); "
            "print(conformance.__file__); print(d); print(len(golden_files(d))); "
            "print(len(load_definitions(d)))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, capture_output=True,
                          text=True, timeout=60, env={"PYTHONPATH": str(site),
                                                      "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    module, where, count, defined = proc.stdout.split()
    assert Path(module).parent == site / "conformance"
    assert Path(where) == site / "golden"
    assert int(count) == int(defined) == len(GOLDEN_YAML)


def test_the_default_golden_dir_is_the_golden_package() -> None:
    from golden import GOLDEN_DIR

    assert default_golden_dir() == GOLDEN_DIR == ROOT / "golden"
    assert len(golden_files(default_golden_dir())) == len(GOLDEN_YAML)


def test_an_empty_golden_directory_is_an_error_not_a_pass(tmp_path: Path) -> None:

    with pytest.raises(ValueError, match="no golden scenarios"):
        golden_files(tmp_path)
    with pytest.raises(ValueError, match="no golden scenarios"):
        golden_files(tmp_path / "missing")
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "run", "--suite", "golden",
                           "--golden-dir", str(tmp_path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and "no golden scenarios" in proc.stderr


# --- the CI templates -------------------------------------------------------------------


def _commands(script: str) -> list[str]:
    """Shell commands of a script, continuation lines joined, whitespace collapsed."""
    joined = re.sub(r"\\\n", " ", script)
    return [" ".join(line.split()) for line in joined.splitlines() if line.strip()
            and not line.strip().startswith("#")]


def _readme_run_lines() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## CI templates"):]
    m = re.search(r"The lines they run.*?\n```sh\n(.*?)```", section, re.S)
    assert m, "README's CI templates section shows the lines they run"
    return _commands(m.group(1))


def _github() -> dict:
    return yaml.safe_load((ROOT / "ci" / "github-actions.yml").read_text())


def _gitlab() -> dict:
    return yaml.safe_load((ROOT / "ci" / "gitlab-ci.yml").read_text())


def _github_commands() -> list[str]:
    steps = _github()["jobs"]["conformance"]["steps"]
    return [c for s in steps for c in _commands(s.get("run", ""))]


def _gitlab_commands() -> list[str]:
    doc = _gitlab()
    out = _commands("\n".join(doc[".kschedconf"]["before_script"]))
    for job in ("kschedconf:reference", "kschedconf:docker"):
        out += _commands("\n".join(doc[job]["script"]))
    return out


def _runs(commands: list[str]) -> list[str]:
    return [c for c in commands if c.startswith("kschedconf run ")]


def test_github_actions_template() -> None:
    doc = _github()
    # PyYAML reads the `on:` key as True
    assert {"push", "pull_request"} <= set(doc.get("on", doc.get(True)))
    assert set(doc["env"]) == {"KSCHEDCONF_PIP", "KSCHEDCONF_SCHEDULER_IMAGE",
                               "KSCHEDCONF_SCHEDULER_CONFIG", "KSCHEDCONF_BUDGET"}
    steps = doc["jobs"]["conformance"]["steps"]
    install = next(s for s in steps if "pip install" in s.get("run", ""))
    assert '[ -z "$KSCHEDCONF_PIP" ]' in install["run"] and "exit 1" in install["run"]
    runs = _runs(_github_commands())
    assert len(runs) == 2
    assert "--junit kschedconf-reference.xml" in runs[0] and "--subject" not in runs[0]
    assert "--subject docker" in runs[1] and "--junit kschedconf-docker.xml" in runs[1]
    assert '--scheduler-image "$KSCHEDCONF_SCHEDULER_IMAGE"' in runs[1]
    assert '--scheduler-config "$KSCHEDCONF_SCHEDULER_CONFIG"' in runs[1]
    (report,) = [s for s in steps if "action-junit-report" in str(s.get("uses", ""))]
    assert report["with"]["report_paths"] == "kschedconf-*.xml"
    # a fork's pull request has a read-only token: the report step is skipped for it
    assert "always()" in report["if"]
    assert "github.event.pull_request.head.repo.full_name == github.repository" in report["if"]
    (upload,) = [s for s in steps if "upload-artifact" in str(s.get("uses", ""))]
    assert upload["if"] == "always()" and "kschedconf-*.xml" in upload["with"]["path"]
    assert doc["permissions"]["checks"] == "write"


def test_gitlab_template_can_be_included() -> None:
    doc = _gitlab()
    # an include must not replace the user's stages or global variables
    assert "stages" not in doc and "variables" not in doc and "default" not in doc
    jobs = [j for j in doc if j.startswith("kschedconf:")]
    assert sorted(jobs) == ["kschedconf:docker", "kschedconf:reference"]
    base = doc[".kschedconf"]
    assert base["stage"] == "test"
    assert base["artifacts"]["reports"]["junit"] == "kschedconf-*.xml"
    assert base["artifacts"]["when"] == "always"
    assert base["before_script"][0].startswith('test -n "$KSCHEDCONF_PIP" ||')
    for j in jobs + [".kschedconf"]:
        assert "variables" not in doc[j], j  # job variables would win over the user's
    assert all(doc[j]["extends"] == ".kschedconf" for j in jobs)
    runs = _runs(_gitlab_commands())
    assert len(runs) == 2
    assert "--junit kschedconf-reference.xml" in runs[0]
    assert "--subject docker" in runs[1] and "--junit kschedconf-docker.xml" in runs[1]
    assert '--scheduler-image "$KSCHEDCONF_SCHEDULER_IMAGE"' in runs[1]


def test_the_templates_use_only_kschedconf_variables() -> None:
    for commands in (_github_commands(), _gitlab_commands()):
        used = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", "\n".join(commands)))
        assert used and all(v.startswith("KSCHEDCONF_") for v in used), used


def test_the_readme_shows_the_lines_the_templates_run() -> None:
    readme = _readme_run_lines()
    for commands in (_github_commands(), _gitlab_commands()):
        assert _runs(readme) == _runs(commands)
        assert set(readme) <= set(commands), set(readme) - set(commands)


def test_templates_name_no_release_of_their_own() -> None:
    """The pinned release is named in one place; the templates leave the default image to
    kschedconf."""
    for f in ("github-actions.yml", "gitlab-ci.yml"):
        assert not re.search(r"v1\.\d+\.\d+", (ROOT / "ci" / f).read_text()), f
