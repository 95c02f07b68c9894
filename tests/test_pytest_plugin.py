"""The pytest plugin (``conformance/pytest_plugin.py``, entry point ``pytest11``): fixtures,
command-line options, the check helper and pytest's own JUnit report, run with ``pytester``."""

from __future__ import annotations

import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent

USER_TESTS = '''
from hypothesis import HealthCheck, given, settings

from conformance.core.scenario import ScenarioInput
from strategies import SMALL, scenarios

SCENARIO = ScenarioInput([
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
     "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", "namespace": "default"},
     "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}},
], seed=1, name="too-big")


def strict(ctx):
    return [f"pod {p} is pending" for p in ctx.result["pending"]]


def test_subject(kschedconf_subject):
    assert kschedconf_subject.name == EXPECTED_SUBJECT


@settings(max_examples=3, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(scenario=scenarios(SMALL))
def test_generated(kschedconf_check, scenario):
    result = kschedconf_check(scenario, {"never": lambda ctx: []})
    assert result.result["kind"] == "SimulationResult"


def test_violation_fails(kschedconf_check):
    kschedconf_check(SCENARIO, {"strict": strict})


def test_oracles_fixture(kschedconf_oracles):
    import oracles

    known = getattr(oracles, "ALL_ORACLES", None)
    if known is not None:
        assert set(kschedconf_oracles) <= set(known)
    assert all(callable(c) for c in kschedconf_oracles.values())
'''


@pytest.fixture()
def isolated(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # Load the plugin explicitly, whether or not the package's entry points are installed.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester


def oracles_available() -> bool:
    try:
        from oracles import ALL_ORACLES  # noqa: F401
    except ImportError:
        return False
    return True


def test_fixtures_checks_and_junit(isolated: pytest.Pytester) -> None:
    isolated.makepyfile(test_user=USER_TESTS.replace("EXPECTED_SUBJECT", "'reference'"))
    args = ["-p", "conformance.pytest_plugin", "--junitxml=report.xml", "-p", "no:cacheprovider"]
    if not oracles_available():
        args += ["-k", "not oracles_fixture"]
    result = isolated.runpytest(*args)
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1
    assert outcomes.get("passed") == (3 if oracles_available() else 2)
    result.stdout.fnmatch_lines(["*ConformanceFailure: 1 violation(s) on scenario too-big "
                                 "(seed 1):*", "*[[]strict[]] pod default/big is pending*"])
    root = ET.parse(isolated.path / "report.xml").getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert cases["test_violation_fails"].find("failure") is not None
    assert cases["test_generated"].find("failure") is None


def test_subject_option(isolated: pytest.Pytester, tmp_path: Path) -> None:
    script = tmp_path / "sched.py"
    script.write_text("raise SystemExit(0)\n")
    isolated.makepyfile(test_user=USER_TESTS.replace("EXPECTED_SUBJECT", "'external'"))
    result = isolated.runpytest("-p", "conformance.pytest_plugin", "-p", "no:cacheprovider",
                                f"--kschedconf-subject=external:{sys.executable} {script}",
                                "-k", "test_subject")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["kschedconf subject: external:*"])


def test_unavailable_subject_is_reported(isolated: pytest.Pytester) -> None:
    isolated.makepyfile(test_user=USER_TESTS.replace("EXPECTED_SUBJECT", "'reference'"))
    result = isolated.runpytest("-p", "conformance.pytest_plugin", "-p", "no:cacheprovider",
                                "--kschedconf-subject=no-such-subject", "-k", "test_subject")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*kschedconf subject: unknown subject 'no-such-subject'*"])


SEED_TESTS = '''
from hypothesis import given, seed, settings
from hypothesis.internal.conjecture import providers

from strategies import SMALL, scenarios
from strategies.draws import _no_local_constants


@settings(max_examples=2, deadline=None, database=None)
@seed(3)
@given(scenario=scenarios(SMALL))
def test_with_a_fixture(kschedconf_check, scenario):
    assert providers._get_local_constants is _no_local_constants


def test_without_one():
    assert providers._get_local_constants is not _no_local_constants
'''


def test_tests_with_kschedconf_fixtures_draw_by_the_seed_alone(
        isolated: pytest.Pytester) -> None:
    """The plugin draws the examples of a test that uses a kschedconf fixture without
    Hypothesis' local constants (strategies.draws), and leaves other tests alone."""
    isolated.makepyfile(test_seeds=SEED_TESTS)
    result = isolated.runpytest("-p", "conformance.pytest_plugin", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_hypothesis_profiles_are_registered() -> None:
    from hypothesis import settings

    import conformance.engines.properties  # noqa: F401  (what the plugin imports)

    assert settings.get_profile("kschedconf-ci").derandomize is True
    assert settings.get_profile("kschedconf-ci").max_examples == 100
    assert settings.get_profile("kschedconf-dev").max_examples == 25
    assert settings.get_profile("kschedconf-thorough").max_examples == 1000


def test_entry_point_is_declared() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["entry-points"]["pytest11"] == {
        "kschedconf": "conformance.pytest_plugin"}
    test_extra = meta["project"]["optional-dependencies"]["test"]
    assert any(d.startswith("pytest-xdist") for d in test_extra)
