"""A seed replays the same scenarios: whatever was imported before generation, from another
working directory, and from a copy of kschedconf installed as a wheel (in site-packages) or
from a source checkout (editable). Hypothesis' default provider draws constants from the
modules it considers local (strategies/draws.py says why), so without ``seed_only_draws``
each of these drew different scenarios for the same seed."""

from __future__ import annotations

import contextlib
import importlib
import shutil
import subprocess
import sys
import textwrap
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.core.events import EventBus
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectResult
from conformance.engines import run as run_engine
from conformance.engines.properties import Property, draw_scenarios
from conformance.engines.run import RunOptions
from conformance.subjects.reference import ReferenceSubject
from tests.test_packaging import _source_copy

PROP = Property("small", "consistency")
SEED, N = 150, 12

#: writes the scenarios of PROP for SEED into argv[1], after importing the modules of argv[2:]
#: (a module full of literals that Hypothesis' default provider would mine, when local)
SCRIPT = textwrap.dedent(f"""\
    import importlib, sys
    from pathlib import Path
    for name in sys.argv[2:]:
        importlib.import_module(name)
    import conformance
    from conformance.engines.properties import Property, draw_scenarios
    print(conformance.__file__)
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for i, s in enumerate(draw_scenarios(Property("small", "consistency"), {SEED}, {N})):
        s.write(out / f"{{i:02d}}.yaml")
    """)

LITERALS = "VALUES = [7, 13, 99, 1234, 55555, 'zone-a', 'app', 3.5, 17, 31, 64, 1000, 2048]\n"


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.glob("*.yaml"))}


def _generate(python: str, out: Path, cwd: Path, *modules: str,
              env: dict[str, str] | None = None) -> str:
    proc = subprocess.run([python, "-c", SCRIPT, str(out), *modules], cwd=cwd,
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-1]


def test_draw_scenarios_are_what_run_gives_the_subject(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    seen: list[str] = []

    class Recording(ReferenceSubject):
        def run(self, scenario: ScenarioInput) -> SubjectResult:
            seen.append(scenario.to_yaml(info=False))
            return super().run(scenario)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run_engine, "make_subject", lambda *a, **k: Recording())
    summary = run_engine.run(RunOptions(oracles=["consistency"], max_examples=5, seed=SEED,
                                        database=False), EventBus([]))
    assert summary.exit_code == 0
    assert seen == [s.to_yaml(info=False) for s in draw_scenarios(PROP, SEED, 5)]


def test_the_seed_alone_decides_whatever_was_imported(tmp_path: Path) -> None:
    (tmp_path / "lots_of_literals.py").write_text(LITERALS)
    env = {"PYTHONPATH": f"{Path(__file__).resolve().parent.parent}:{tmp_path}",
           "PATH": "/usr/bin:/bin"}
    _generate(sys.executable, tmp_path / "plain", tmp_path, env=env)
    _generate(sys.executable, tmp_path / "imported", tmp_path, "lots_of_literals", env=env)
    plain = _files(tmp_path / "plain")
    assert len(plain) == N and plain == _files(tmp_path / "imported")


def test_seed_only_draws_is_what_makes_it_so(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    """Without seed_only_draws, the same seed draws other scenarios once a local module full
    of literals is loaded (the failure the tests above guard against)."""
    before = [s.to_yaml(info=False) for s in draw_scenarios(PROP, SEED, N)]
    (tmp_path / "more_literals.py").write_text(LITERALS.replace("VALUES", "MORE"))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("more_literals")
    assert [s.to_yaml(info=False) for s in draw_scenarios(PROP, SEED, N)] == before

    @contextlib.contextmanager
    def default_provider() -> Iterator[None]:
        yield

    monkeypatch.setattr("conformance.engines.properties.seed_only_draws", default_provider)
    assert [s.to_yaml(info=False) for s in draw_scenarios(PROP, SEED, N)] != before


def _venv(path: Path) -> Path:
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(path)
    return path / "bin" / "python"


def _site_packages(python: Path) -> Path:
    out = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                          "['purelib'])"], capture_output=True, text=True, check=True,
                         timeout=60).stdout.strip()
    return Path(out)


PACKAGES = ("reference_impl", "strategies", "oracles", "conformance", "golden")


def test_an_editable_and_a_site_packages_install_draw_the_same_scenarios(
        tmp_path: Path) -> None:
    """Two virtualenvs over the same source copy, in another directory: one with the
    packages in its site-packages (the layout a wheel installs), one with the source copy on
    its path (the layout of an editable install; Hypothesis counts its modules as local). Laid
    out by hand, as building needs setuptools >= 77 (pyproject.toml), which an offline
    machine may not have."""
    src = _source_copy(tmp_path / "src")
    wheel_python = _venv(tmp_path / "wheel-venv")
    site = _site_packages(wheel_python)
    for name in PACKAGES:
        shutil.copytree(src / name, site / name,
                        ignore=shutil.ignore_patterns("__pycache__", "tests"))
    editable_python = _venv(tmp_path / "editable-venv")
    (_site_packages(editable_python) / "kschedconf-src.pth").write_text(f"{src}\n")
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {"PATH": "/usr/bin:/bin"}
    from_wheel = _generate(str(wheel_python), tmp_path / "out-wheel", work, env=env)
    from_source = _generate(str(editable_python), tmp_path / "out-editable", src, env=env)
    assert "/site-packages/" in from_wheel and Path(from_wheel).is_relative_to(site)
    assert Path(from_source).is_relative_to(src)
    wheel_files = _files(tmp_path / "out-wheel")
    assert len(wheel_files) == N and wheel_files == _files(tmp_path / "out-editable")
    # and the same as this checkout draws in this process
    here = tmp_path / "here"
    for i, s in enumerate(draw_scenarios(PROP, SEED, N)):
        s.write(here / f"{i:02d}.yaml")
    assert _files(here) == wheel_files
