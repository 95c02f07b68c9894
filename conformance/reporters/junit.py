"""JUnit XML reports of ``kschedconf run`` (written with the ``junit-xml`` package).

One ``<testsuite>`` per suite that ran (``properties``, ``golden``); one ``<testcase>`` per
property (scenario family × oracle) or golden scenario. The suite's ``<properties>`` carry the
seed, the versions (upstream release of ``reference_impl/releases/pinned.py``, kschedconf), the
subject's description and the command that reruns the run; every test case carries its own
``<properties>`` (oracle, examples run, stop reason, counterexample file, reproduce command),
which CI systems (GitLab, Jenkins, GitHub test reporters) show next to the case, and a
failed case's ``file`` attribute names its counterexample; every ``<testsuite>`` has the
``timestamp`` the run started and the ``hostname``. A failure's message is the violated
invariant; its text holds every violation and the reproduce command.
"""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from junit_xml import TestCase, TestSuite, to_xml_report_string

from conformance.core.events import Event, RunFinished, RunStarted
from conformance.core.results import ERROR, FAILED, SKIPPED, CaseResult


def _case(r: CaseResult) -> TestCase:

    out = []
    if r.suite == "properties":
        out.append(f"{r.examples} examples, {r.shrinks} shrink steps, {r.seconds:.2f} s, "
                   f"stopped by {r.stopped_by or 'max_examples'}")
    if r.counterexample:
        out.append(f"counterexample: {r.counterexample}")
    if r.reproduce:
        out.append(f"reproduce: {r.reproduce}")
    # ``file``: where GitLab and the GitHub report actions link the case to
    tc = TestCase(r.name, classname=r.classname, elapsed_sec=round(r.seconds, 3),
                  stdout="\n".join(out) or None, file=r.counterexample or None)
    if r.status == FAILED:
        tc.add_failure_info(message=r.message, output=r.details or r.message,
                            failure_type="InvariantViolation")
    elif r.status == ERROR:
        tc.add_error_info(message=r.message, output=r.details or r.message,
                          error_type="SubjectError")
    elif r.status == SKIPPED:
        tc.add_skipped_info(message=r.message or "not run")
    return tc


def _case_properties(r: CaseResult) -> dict[str, str]:
    props = dict(r.properties)
    if r.suite == "properties":
        props["examples"] = str(r.examples)
        props["shrinks"] = str(r.shrinks)
        props["stopped_by"] = r.stopped_by or "max_examples"
    if r.counterexample:
        props["counterexample"] = r.counterexample
    if r.reproduce:
        props["reproduce"] = r.reproduce
    if r.matches_upstream:
        props["matches_upstream"] = ", ".join(
            f"{d} ({n})" for d, n in r.matches_upstream.items())
    if r.intended_changes:
        props["intended_changes"] = ", ".join(
            f"{d} ({n})" for d, n in r.intended_changes.items())
    return props


def junit_string(cases: Sequence[CaseResult], properties: Mapping[str, str],
                 name: str = "kschedconf", *, timestamp: str | None = None,
                 hostname: str | None = None) -> str:
    """The JUnit XML document of a run (see the module docstring); ``timestamp`` (ISO 8601,
    when the run started) and ``hostname`` go on every ``<testsuite>``."""
    suites = []
    by_suite: dict[str, list[CaseResult]] = {}
    for c in cases:
        by_suite.setdefault(c.suite, []).append(c)
    for suite_name, rs in by_suite.items():
        suites.append(TestSuite(f"{name}.{suite_name}", [_case(r) for r in rs],
                                properties={k: str(v) for k, v in properties.items()},
                                timestamp=timestamp, hostname=hostname))
    if not suites:
        suites.append(TestSuite(name, [], properties=dict(properties), timestamp=timestamp,
                                hostname=hostname))
    text = to_xml_report_string(suites, prettyprint=False, encoding="utf-8")
    # junit-xml has no per-testcase properties; add them (the layout pytest's record_property
    # writes: <testcase><properties><property name= value=/></properties>...).
    root = ET.fromstring(text)
    by_key = {(c.classname, c.name): c for c in cases}
    for el in root.iter("testcase"):
        c = by_key.get((el.get("classname", ""), el.get("name", "")))
        if c is None:
            continue
        props = ET.Element("properties")
        for k, v in _case_properties(c).items():
            ET.SubElement(props, "property", name=k, value=v)
        el.insert(0, props)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(path: str | Path, cases: Sequence[CaseResult],
                properties: Mapping[str, str], name: str = "kschedconf", *,
                timestamp: str | None = None) -> Path:
    """Write the report; ``timestamp`` defaults to now, the hostname is this machine's."""
    p = Path(path)
    if p.parent and not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(junit_string(cases, properties, name, timestamp=timestamp or now_iso(),
                              hostname=socket.gethostname()), encoding="utf-8")
    return p


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class JUnitReporter:
    """Writes the JUnit XML report of a run when it finishes (interrupted runs included),
    stamped with the time the run started."""
    def __init__(self, path: str | Path, name: str = "kschedconf") -> None:
        self.path = Path(path)
        self.name = name
        self.started: str | None = None

    def handle(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self.started = now_iso()
        elif isinstance(event, RunFinished):
            write_junit(self.path, event.summary.cases, event.summary.properties, self.name,
                        timestamp=self.started)
