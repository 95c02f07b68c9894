"""pytest plugin (entry point ``pytest11``: ``kschedconf``): write your own scheduler
properties with kschedconf's strategies and oracles, run them with pytest. Fixtures:
``kschedconf_subject``, ``kschedconf_oracles``, ``kschedconf_check``; options
``--kschedconf-subject``, ``-config``, ``-plugins``, ``-oracle``, ``-subject-timeout``.
See docs/subjects.md#pytest-plugin."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from typing import Any

import pytest

# importing the properties engine registers the kschedconf-dev/-ci/-thorough Hypothesis
# profiles before Hypothesis' own plugin reads --hypothesis-profile
import conformance.engines.properties  # noqa: F401
from conformance.core.errors import SubjectError
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import Subject, SubjectResult
from conformance.subjects.factory import make_subject
from oracles import Oracle
from oracles.judge import evaluate, failures, select_oracles
from strategies.draws import seed_only_draws


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kschedconf", "kschedconf scheduler conformance")
    group.addoption("--kschedconf-subject", metavar="SPEC", default="reference",
                    help="subject of the kschedconf fixtures: reference (default), "
                         "reference:CONFIG.yaml, external:COMMAND...")
    group.addoption("--kschedconf-config", metavar="CFG.yaml", default=None,
                    help="KubeSchedulerConfiguration of the reference subject")
    group.addoption("--kschedconf-plugins", metavar="MODULE", action="append", default=[],
                    help="Python plugin module for the reference subject (repeatable)")
    group.addoption("--kschedconf-oracle", metavar="NAME", action="append", default=[],
                    help="only these oracles in kschedconf_oracles / kschedconf_check "
                         "(repeatable; default all)")
    group.addoption("--kschedconf-subject-timeout", metavar="SECONDS", type=float,
                    default=None, help="time limit of an external subject per scenario")


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Generator[None, Any, Any]:
    """A test that uses a kschedconf fixture draws its Hypothesis examples with the seed
    alone deciding them (``strategies.draws``: the same ``--hypothesis-seed`` draws the same
    scenarios whatever was imported and however kschedconf was installed)."""
    if not any(name.startswith("kschedconf_") for name in pyfuncitem.fixturenames):
        return (yield)
    with seed_only_draws():
        return (yield)


def pytest_report_header(config: pytest.Config) -> str | None:
    spec = config.getoption("--kschedconf-subject", default="reference")
    if spec == "reference" and not config.getoption("--kschedconf-config", default=None):
        return None
    return f"kschedconf subject: {spec}"


class ConformanceFailure(AssertionError):
    """Raised by ``kschedconf_check`` when an oracle finds violations."""


def format_findings(findings: Iterable[object], scenario: ScenarioInput) -> str:
    items = [str(f) for f in findings]
    head = f"{len(items)} violation(s) on scenario {scenario.name} (seed {scenario.seed}):"
    return "\n".join([head, *(f"  {line}" for item in items for line in item.splitlines())])


def check_scenario(subject: Subject, scenario: ScenarioInput,
                   oracles: Mapping[str, Oracle]) -> SubjectResult | None:
    """Run ``subject`` on ``scenario`` and raise :class:`ConformanceFailure` listing every
    violation of ``oracles``; returns the SubjectResult. A SubjectError propagates."""
    result, findings = evaluate(subject, scenario, oracles)
    findings = failures(findings)  # what matches a known upstream deviation does not fail
    if findings:
        raise ConformanceFailure(format_findings(findings, scenario))
    return result


@pytest.fixture(scope="session")
def kschedconf_subject(request: pytest.FixtureRequest) -> Iterator[Subject]:
    """The subject under test, chosen with ``--kschedconf-subject SPEC`` (``reference`` by
    default; ``reference:CONFIG.yaml``, ``external:COMMAND...``), with ``--kschedconf-config``
    and ``--kschedconf-plugins`` for the reference."""
    opt = request.config.getoption
    try:
        subject = make_subject(opt("--kschedconf-subject"), config=opt("--kschedconf-config"),
                               plugins=opt("--kschedconf-plugins"),
                               timeout=opt("--kschedconf-subject-timeout"))
    except (SubjectError, ValueError) as e:
        pytest.fail(f"kschedconf subject: {e}", pytrace=False)
    with subject:
        yield subject


@pytest.fixture(scope="session")
def kschedconf_oracles(request: pytest.FixtureRequest) -> dict[str, Oracle]:
    """``{name: check}`` of ``oracles.ALL_ORACLES`` (only those named by
    ``--kschedconf-oracle``, when given)."""
    try:
        return select_oracles(request.config.getoption("--kschedconf-oracle"))
    except ValueError as e:
        pytest.fail(f"--kschedconf-oracle: {e}", pytrace=False)


@pytest.fixture(scope="session")
def kschedconf_check(kschedconf_subject: Subject,
                     kschedconf_oracles: dict[str, Oracle]
                     ) -> Callable[..., SubjectResult | None]:
    """``check(scenario, oracles=None)``: runs the subject on the scenario, applies the oracles
    (all selected ones, or the given names / mapping) and fails the test with every violation;
    returns the :class:`~conformance.core.subject.SubjectResult`."""
    def check(scenario: ScenarioInput,
              oracles: Iterable[str] | Mapping[str, Oracle] | None = None
              ) -> SubjectResult | None:
        if oracles is None:
            chosen: Mapping[str, Oracle] = kschedconf_oracles
        elif isinstance(oracles, Mapping):
            chosen = oracles
        else:
                    chosen = select_oracles(list(oracles))
        return check_scenario(kschedconf_subject, scenario, chosen)

    return check
