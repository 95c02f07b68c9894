"""``kschedconf diff``: the differential engine (conformance/engines/diff/), the upstream subject
(conformance/subjects/upstream.py) and the command (conformance/cli/diff.py).

The comparison logic and a planted divergence (a fake "upstream" that binds one pod elsewhere)
need no Go; the runs against the real upstream scheduler are skipped when
``upstream/bin/kschedconf-upstream`` is not built.
"""

from __future__ import annotations

import copy
import io
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.cli.main import main as diff_main
from conformance.core.errors import UsageError
from conformance.core.events import EventBus, Reporter
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import (
    ScenarioRejected,
    ScenarioTimedOut,
    Subject,
    SubjectError,
    SubjectResult,
)
from conformance.engines import diff
from conformance.engines.diff import calls, lockstep
from conformance.engines.diff.normalize import pod_key
from conformance.engines.golden import golden_files, read_scenario_file
from conformance.reporters.console import ConsoleReporter
from conformance.reporters.junit import JUnitReporter
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available, default_binary

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
needs_upstream = pytest.mark.skipif(
    not binary_available(),
    reason="the upstream subject is not built: run `bash upstream/build.sh` (needs Go and the "
           "Go module proxy)")


# --- helpers -----------------------------------------------------------------------------------

def run_diff(opts: diff.DiffOptions, upstream: Subject, junit: Path | None = None
             ) -> tuple[diff.DiffReport, str]:
    """A diff run reported as the command reports it: its report and its console text."""
    out = io.StringIO()
    reporters: list[Reporter] = [JUnitReporter(junit)] if junit else []
    reporters.append(ConsoleReporter(out, tty=False))
    return diff.run_diff(opts, EventBus(reporters), upstream), out.getvalue()


def replay(opts: diff.DiffOptions, upstream: Subject) -> tuple[diff.DiffReport, str]:
    out = io.StringIO()
    report = diff.replay(opts, EventBus([ConsoleReporter(out, tty=False)]), upstream)
    return report, out.getvalue()


def node(name: str, cpu: str = "4") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def pod(name: str, cpu: str = "1", **spec: Any) -> dict[str, Any]:
    status = spec.pop("status", None)
    p: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": name, "namespace": "default"},
                         "spec": {"containers": [{"name": "c", "image": "x", "resources": {
                             "requests": {"cpu": cpu}}}], **spec}}
    if status:
        p["status"] = status
    return p


def attempt(pod: str, outcome: str = "Bound", node: str | None = "n1", **kw: Any) -> dict:
    a = {"pod": pod, "outcome": outcome, "node": node, "reasons": {}, "message": "",
         "nominatedNode": None, "candidates": [node] if node else [], "victims": [],
         "evaluatedNodes": 2, "feasibleNodes": 2, "time": 0, "attempt": 1,
         "queue": "activeQ"}
    a.update(kw)
    return a


def result(*attempts: dict, **kw: Any) -> dict[str, Any]:
    bindings = {a["pod"]: a["node"] for a in attempts if a["outcome"] == "Bound"}
    doc = {"attempts": list(attempts), "bindings": bindings, "pending": [], "deleted": [],
           "removed": [], "finished": [], "timeline": [], "endTime": 0,
           "stoppedBy": "quiescence"}
    doc.update(kw)
    return doc


class MovesOneBinding(Subject):
    """A planted divergence: the reference, except that the first pod bound goes to a node
    that was not among the highest-scored ones (a different binding, not a tie)."""

    name = "fake-upstream"

    def __init__(self) -> None:
        self.ref = ReferenceSubject()
        self.calls = 0

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        self.calls += 1
        doc = copy.deepcopy(self.ref.run(scenario).result)
        for a in doc["attempts"]:
            if a["outcome"] == "Bound":
                a["node"] = "elsewhere"
                a["candidates"] = ["elsewhere"]
                doc["bindings"][a["pod"]] = "elsewhere"
                break
        return SubjectResult(doc)


class ExplainsDifferently(MovesOneBinding):
    """A planted lockstep divergence: explanations whose first node's NodeResourcesFit
    verdict has another reason (whole runs are the reference's own)."""

    name = "fake-explaining-upstream"
    can_explain = True

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        return self.ref.run(scenario)

    def explain(self, scenario: ScenarioInput, pod: str) -> dict[str, Any]:
        doc = self.ref.explain(scenario, pod)
        for f in doc["nodes"][0]["filters"] if doc["nodes"] else []:
            if f["plugin"] == "NodeResourcesFit":
                f["reasons"] = [*f["reasons"], "planted reason"]
        return doc


# --- comparison logic (no Go) ------------------------------------------------------------------

def test_whole_identical_runs_have_no_divergence() -> None:
    r = result(attempt("default/a"), attempt("default/b", node="n2", candidates=["n2"]))
    cmp = diff.compare_whole(r, copy.deepcopy(r))
    assert cmp.divergences == [] and cmp.tie_breaks == []


def test_whole_binding_difference_is_located() -> None:
    r = result(attempt("default/a"), attempt("default/b", node="n2", candidates=["n2"]))
    u = result(attempt("default/a"), attempt("default/b", node="n3", candidates=["n3"]))
    cmp = diff.compare_whole(r, u)
    roots = [d for d in cmp.divergences if not d.consequence]
    assert [(d.path, d.field, d.pod, d.reference, d.upstream) for d in roots] == [
        ("attempts[1].candidates", "attempts[*].candidates", "default/b", ["n2"], ["n3"])]
    later = {d.path for d in cmp.divergences if d.consequence}
    assert {"attempts[1].node", "bindings.default/b"} <= later
    assert str(roots[0]).startswith("[whole] attempts[1].candidates (attempt 1, pod default/b)")


def test_whole_tie_break_is_not_a_divergence() -> None:
    r = result(attempt("default/a", node="n1", candidates=["n1", "n2"]),
               attempt("default/b", node="n2", candidates=["n2"]))
    u = result(attempt("default/a", node="n2", candidates=["n1", "n2"]),
               attempt("default/b", node="n1", candidates=["n1"]))
    cmp = diff.compare_whole(r, u)
    assert cmp.divergences == []
    assert [(t.pod, t.reference, t.upstream, t.ties) for t in cmp.tie_breaks] == [
        ("default/a", "n1", "n2", ["n1", "n2"])]
    assert cmp.stopped_at == 0


def test_whole_numbers_compare_as_numbers_and_gated_records_apart() -> None:
    gated = attempt("default/g", "Gated", None, message="waiting", queue=None, attempt=0)
    r = result(gated, attempt("default/a", time=0.0), endTime=0.0)
    u = result(attempt("default/a", time=0), gated, dict(gated, message="again"), endTime=0)
    cmp = diff.compare_whole(r, u)
    assert [(d.path, d.reference, d.upstream) for d in cmp.divergences] == [
        ("gated.default/g", ["waiting"], ["waiting", "again"])]


def test_preemption_tie_upstream_breaks_at_random() -> None:
    class P:
        def __init__(self, priority: int, start: float | None) -> None:
            self.priority, self.start_time = priority, start

    pods = {"v1": P(10, None), "v2": P(10, None), "v3": P(10, 5.0), "v4": P(20, None)}
    # victims without start time read time.Now(): a tie broken by Go map order
    assert diff.random_preemption_choice({"a": ["v1"], "b": ["v2"]}, {}, pods) == {"a", "b"}
    # a real start time is earlier than "now": b wins for sure
    assert diff.random_preemption_choice({"a": ["v3"], "b": ["v2"]}, {}, pods) == set()
    # an earlier criterion decides: lower victim priority, fewer PDB violations
    assert diff.random_preemption_choice({"a": ["v4"], "b": ["v2"]}, {}, pods) == set()
    assert diff.random_preemption_choice({"a": ["v1"], "b": ["v2"]}, {"a": 1}, pods) == set()


def test_upstream_tie_note_in_the_preemption_message_is_not_a_divergence() -> None:
    def expl(selected: str, message: str) -> dict[str, Any]:
        return {"pod": "default/p", "preFilter": [], "nodes": [], "candidates": [],
                "selected": None, "shortcut": False, "evaluatedNodes": 2, "feasibleNodes": 0,
                "message": "", "preemption": {
                    "candidates": [{"node": "n1", "victims": ["default/v1"], "pdbViolations": 0},
                                   {"node": "n2", "victims": ["default/v2"], "pdbViolations": 0}],
                    "notCandidates": {}, "selected": selected,
                    "victims": [f"default/v{selected[-1]}"], "message": message}}

    note = " (nodes n1, n2 tie on every criterion: upstream picks one at random)"
    ref = expl("n1", "would nominate n1, preempting 1 pod(s)")
    # the same choice: upstream's note alone is no divergence
    divs, ties = diff.compare_explanations(
        ref, expl("n1", "would nominate n1, preempting 1 pod(s)" + note), "default/p", 2)
    assert divs == [] and ties == []
    # the other tied node: a tie-break, not a divergence
    divs, ties = diff.compare_explanations(
        ref, expl("n2", "would nominate n2, preempting 1 pod(s)" + note), "default/p", 2)
    assert divs == [] and [(t.reference, t.upstream) for t in ties] == [("n1", "n2")]
    # without the note a different choice is a divergence, and so is another message
    divs, _ = diff.compare_explanations(
        ref, expl("n2", "would nominate n2, preempting 1 pod(s)"), "default/p", 2)
    assert {d.field for d in divs} >= {"preemption.selected", "preemption.message"}
    divs, _ = diff.compare_explanations(
        ref, expl("n1", "would nominate n1, preempting 2 pod(s)" + note), "default/p", 2)
    assert [d.field for d in divs] == ["preemption.message"]


def test_upstream_tie_note_is_not_copied_with_uncompared_candidates() -> None:
    """More potential nodes than the dry run examines: the candidates, the choice and the
    message are upstream's on both sides, but upstream's tie note stays out of both."""
    def expl(selected: str, message: str, examined: str) -> dict[str, Any]:
        return {"pod": "default/p", "preFilter": [], "nodes": [], "candidates": [],
                "selected": None, "shortcut": False, "evaluatedNodes": 3, "feasibleNodes": 0,
                "message": "", "preemption": {
                    "candidates": [{"node": examined, "victims": ["default/v1"],
                                    "pdbViolations": 0}],
                    "notCandidates": {"n3": ["not examined: enough candidates were found first"]},
                    "selected": selected, "victims": ["default/v1"], "message": message}}

    note = " (nodes n1, n2 tie on every criterion: upstream picks one at random)"
    ref = expl("n1", "would nominate n1, preempting 1 pod(s)", "n1")
    up = expl("n2", "would nominate n2, preempting 1 pod(s)" + note, "n2")
    divs, ties = diff.compare_explanations(ref, up, "default/p", 3)
    assert divs == [] and ties == []


def test_upstream_tie_note_is_not_copied_when_the_candidates_are_not_compared() -> None:
    """A dry run that left nodes unexamined copies upstream's preemption fields to the
    reference's; upstream's tie note must not come along into the reference's message."""
    def expl(message: str) -> dict[str, Any]:
        return {"pod": "default/p", "preFilter": [], "nodes": [], "candidates": [],
                "selected": None, "shortcut": False, "evaluatedNodes": 3, "feasibleNodes": 0,
                "message": "", "preemption": {
                    "candidates": [{"node": "n1", "victims": ["default/v1"], "pdbViolations": 0},
                                   {"node": "n2", "victims": ["default/v2"], "pdbViolations": 0}],
                    "notCandidates": {"n3": [lockstep.NOT_EXAMINED]}, "selected": "n2",
                    "victims": ["default/v2"], "message": message}}

    note = " (nodes n1, n2 tie on every criterion: upstream picks one at random)"
    divs, ties = diff.compare_explanations(
        expl("would nominate n2, preempting 1 pod(s)"),
        expl("would nominate n2, preempting 1 pod(s)" + note), "default/p", 2)
    assert divs == [] and ties == []


def test_explanations_keyed_by_node_and_plugin() -> None:
    def expl(reason: str, total: int) -> dict[str, Any]:
        return {"pod": "default/p", "preFilter": [{"plugin": "NodeResourcesFit",
                                                   "code": "Success", "reasons": []}],
                "nodes": [{"name": "n1", "feasible": True, "examined": True,
                           "filters": [{"plugin": "NodeResourcesFit", "code": "Success",
                                        "reasons": []},
                                       {"plugin": "TaintToleration", "code": "Success",
                                        "reasons": [reason] if reason else []}],
                           "scores": [{"plugin": "ImageLocality", "raw": 1, "normalized": 2,
                                       "weight": 1, "weighted": total}], "total": total}],
                "candidates": ["n1"], "selected": "n1", "shortcut": True,
                "evaluatedNodes": 1, "feasibleNodes": 1, "message": "", "preemption": None}
    divs, ties = diff.compare_explanations(expl("", 2), expl("x", 3), "default/p", 4)
    got = {(d.field, d.node, d.plugin, d.consequence) for d in divs}
    assert got == {("nodes.*.filters.*.reasons", "n1", "TaintToleration", False),
                   ("nodes.*.scores.*.weighted", "n1", "ImageLocality", True),
                   ("nodes.*.total", "n1", None, True)}
    assert all(d.step == 4 and d.pod == "default/p" for d in divs) and ties == []


def test_lockstep_states_apply_upstream_outcomes() -> None:
    sc = ScenarioInput([node("n1"), pod("low", nodeName="n1"), pod("a"), pod("b")])
    run = result(attempt("default/a", "Nominated", None, nominatedNode="n1",
                         victims=["default/low"]),
                 attempt("default/b", node="n1"), attempt("default/a", node="n1"))
    steps, notes = diff.lockstep_states(sc, run)
    assert [(s.index, s.pod) for s in steps] == [(0, "default/a"), (1, "default/b"),
                                                 (2, "default/a")]
    last = {pod_key(d): d for d in steps[2].scenario.documents if d["kind"] == "Pod"}
    assert "default/low" not in last
    assert last["default/b"]["spec"]["nodeName"] == "n1"
    assert last["default/a"]["status"]["nominatedNodeName"] == "n1"
    first = {pod_key(d) for d in steps[0].scenario.documents if d["kind"] == "Pod"}
    assert "default/low" in first  # earlier states are untouched (copy on write)
    assert notes == []


class ExplainsTogether(Subject):
    """The reference, recording the pods it is asked to explain together (``explain_many``)."""

    name = "fake-upstream"
    can_explain = True

    def __init__(self) -> None:
        self.ref = ReferenceSubject()
        self.together: list[list[str]] = []

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        return self.ref.run(scenario)

    def explain(self, scenario: ScenarioInput, pod: str) -> dict[str, Any]:
        return self.ref.explain(scenario, pod)

    def explain_many(self, scenario: ScenarioInput, pods: Sequence[str]
                     ) -> list[dict[str, Any] | ScenarioRejected]:
        self.together.append(list(pods))
        return super().explain_many(scenario, pods)


def test_lockstep_asks_the_pods_of_one_state_together() -> None:
    # a binds, then b and c do not fit on the same cluster: one request for b and c
    sc = ScenarioInput([node("n1", "1"), pod("a"), pod("b", "2"), pod("c", "2")])
    up = ExplainsTogether()
    cmp = lockstep.lockstep(sc, ReferenceSubject(), up)
    assert up.together == [["default/a"], ["default/b", "default/c"]]
    assert cmp.steps == 3 and cmp.divergences == []


def _answers(answers: Sequence[Any]) -> list[Any]:
    return [f"{type(a).__name__}: {a}" if isinstance(a, Exception) else a for a in answers]


def test_the_reference_explains_the_pods_of_one_state_on_one_load(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the lockstep asks the reference the pods of a state together: one load for all, each
    # explanation (or refusal: a bound pod, an unknown one) the one explain gives alone
    sc = ScenarioInput([node("n1", "2"), node("n2", "1"), pod("a", nodeName="n1"), pod("b"),
                        pod("c", "2"), pod("d", "3")])
    pods = ["default/b", "default/a", "default/c", "default/nope", "default/d"]
    ref = ReferenceSubject()
    loads: list[str] = []
    load = ref._load
    monkeypatch.setattr(ref, "_load", lambda s: loads.append(s.name) or load(s))
    many = ref.explain_many(sc, pods)
    assert len(loads) == 1
    alone = [calls.explain_pod(ReferenceSubject(), sc, p) for p in pods]
    assert _answers(many) == _answers(alone)
    assert isinstance(many[1], ScenarioRejected) and isinstance(many[3], ScenarioRejected)


class CrashesOnOnePod(ReferenceSubject):
    """The reference, crashing on pod ``default/b`` (a bug of the reference); its own
    ``explain``, which ``explain_many`` asks pod by pod."""

    def explain(self, scenario: ScenarioInput, pod: str) -> dict[str, Any]:
        if pod == "default/b":
            raise ZeroDivisionError("planted crash")
        return super().explain(scenario, pod)


def test_a_crash_of_the_reference_is_the_answer_of_its_pod_only() -> None:
    sc = ScenarioInput([node("n1", "1"), pod("a", "2"), pod("b", "2"), pod("c", "2")])
    answers = calls.explain_pods(CrashesOnOnePod(), sc, ["default/a", "default/b",
                                                          "default/c"], reference=True)
    assert _answers(answers) == _answers(
        [ReferenceSubject().explain(sc, "default/a"), ZeroDivisionError("planted crash"),
         ReferenceSubject().explain(sc, "default/c")])
    with pytest.raises(ZeroDivisionError):
        calls.explain_pods(CrashesOnOnePod(), sc, ["default/a", "default/b"])


def test_known_divergences_file_and_matchers(tmp_path: Path) -> None:
    known = diff.load_known()  # the shipped file parses
    assert {k.id for k in known} >= {"pdb-status-not-computed-upstream"}
    d = diff.Divergence("lockstep", "explain[default/p].nodes.n1.filters.X.reasons",
                        "nodes.*.filters.*.reasons", [], ["r"], pod="default/p", node="n1",
                        plugin="X", step=0)
    f = tmp_path / "known.yaml"
    f.write_text("divergences:\n- id: k1\n  reason: because\n  match:\n"
                 "    field: nodes.*.filters.*.reasons\n    plugin: X\n    upstream: '\"r\"'\n")
    (k1,) = diff.load_known(f)
    assert k1.matches(d)
    d.plugin = "Y"
    assert not k1.matches(d)
    f.write_text("divergences:\n- id: k2\n  reason: r\n  match: {colour: red}\n")
    with pytest.raises(UsageError, match="unknown match keys"):
        diff.load_known(f)


def test_upstream_subject_missing_binary_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SubjectError, match=r"build it with `bash upstream/build.sh`"):
        UpstreamSubject(tmp_path / "no-such-binary")
    assert default_binary().name == "kschedconf-upstream"


# --- a planted divergence (no Go) --------------------------------------------------------------

def test_planted_divergence_is_found_shrunk_saved_and_replayable(tmp_path: Path) -> None:
    fake = MovesOneBinding()
    junit = tmp_path / "diff.xml"
    opts = diff.DiffOptions(scenarios=6, sizes=["small"], seed=3, mode="whole",
                            out=str(tmp_path / "out"), shrink_time=30)
    report, text = run_diff(opts, fake, junit)
    assert report.exit_code == 1, text
    assert report.unexplained > 0 and "scenarios/s" in text
    (minimal,) = report.minimal
    # the console: a line per scenario, the failures with their minimal scenario and replay
    # command, the totals
    assert text.count("  FAIL  small-") == report.summary.count("failed") > 0
    assert f"reproduce: kschedconf diff --replay {minimal.path} --mode whole" in text
    assert "minimal scenarios (one per kind of divergence):" in text
    assert "6 scenarios compared (6 whole runs, 0 lockstep steps)" in text
    assert "seed 3" in text
    assert minimal.shrunk, minimal.note
    assert ("whole", "attempts[*].candidates", "") in minimal.signatures
    scenario, _, notes = read_scenario_file(minimal.path)
    kinds = [d["kind"] for d in scenario.documents]
    assert kinds.count("Node") == 1 and kinds.count("Pod") == 1, kinds  # minimal
    assert notes["reproduce"] == f"kschedconf diff --replay {minimal.path} --mode whole"
    # the JUnit report parses and names the failure and its minimal scenario
    root = ET.parse(junit).getroot()
    cases = list(root.iter("testcase"))
    assert len(cases) == 6
    failed = [c for c in cases if c.find("failure") is not None]
    assert failed and all(c.get("classname") == "kschedconf.diff.small" for c in cases)
    props = {p.get("name"): p.get("value") for p in failed[0].iter("property")}
    assert props["counterexample"] == minimal.path
    assert props["reproduce"] == notes["reproduce"] and props["modes"] == "whole"
    failure = failed[0].find("failure")
    assert failure is not None and failure.get("message", "").startswith("[whole] attempts[")
    assert f"minimal scenario: {minimal.path}" in (failure.text or "")
    suite_props = {p.get("name"): p.get("value") for p in root.find("testsuite")
                   .find("properties")}  # type: ignore[union-attr]
    assert suite_props["seed"] == "3" and suite_props["upstream.subject"] == "fake-upstream"
    # replaying the file finds it again; against the reference itself there is nothing
    rep, text = replay(diff.DiffOptions(replay=minimal.path, mode="whole"), MovesOneBinding())
    assert rep.exit_code == 1 and rep.results[0].unexplained[0].upstream == ["elsewhere"]
    assert text.startswith(f"replaying {minimal.path}") and "[whole] attempts[" in text
    same, _ = replay(diff.DiffOptions(replay=minimal.path), ReferenceSubject())
    assert same.exit_code == 0


def test_known_divergence_is_reported_as_known(tmp_path: Path) -> None:
    known = tmp_path / "known.yaml"
    known.write_text("divergences:\n- id: planted\n  reason: the fake moves one pod\n"
                     "  match:\n    mode: whole\n    field: attempts[*].candidates\n")
    junit = tmp_path / "diff.xml"
    report, text = run_diff(diff.DiffOptions(scenarios=4, seed=3, mode="whole",
                                             known=str(known), out=str(tmp_path)),
                            MovesOneBinding(), junit)
    assert report.exit_code == 0, text
    known_divs = [d for r in report.results for d in r.known]
    assert known_divs and {d.known for d in known_divs} == {"planted"}
    assert "known divergences: planted" in text
    assert report.minimal == []
    # a passing case records its known divergences
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    assert cases and not [c for c in cases if c.find("failure") is not None]
    props = [{p.get("name"): p.get("value") for p in c.iter("property")} for c in cases]
    assert any(p.get("known", "").startswith("planted (") for p in props), props


def test_planted_lockstep_divergence(tmp_path: Path) -> None:
    report, text = run_diff(diff.DiffOptions(scenarios=3, seed=5, mode="lockstep",
                                             shrink=False, out=str(tmp_path)),
                            ExplainsDifferently())
    assert report.exit_code == 1, text
    d = next(d for r in report.results for d in r.unexplained)
    assert (d.mode, d.field, d.plugin) == ("lockstep", "nodes.*.filters.*.reasons",
                                           "NodeResourcesFit")
    assert d.upstream[-1] == "planted reason" and d.node


class StopsMidway(MovesOneBinding):
    """Raises ``stop`` on its third scenario (a Ctrl-C, or a crash of the subject)."""

    def __init__(self, stop: BaseException) -> None:
        super().__init__()
        self.stop = stop

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        if self.calls == 2:
            raise self.stop
        return super().run(scenario)


def test_ctrl_c_midway_ends_with_the_summary_so_far(tmp_path: Path) -> None:
    junit = tmp_path / "diff.xml"
    report, text = run_diff(diff.DiffOptions(scenarios=6, seed=3, mode="whole", shrink=False,
                                             out=str(tmp_path)),
                            StopsMidway(KeyboardInterrupt()), junit)
    assert report.exit_code == 130 and report.summary.interrupted == "Ctrl-C"
    assert "interrupted by Ctrl-C after 2 of 6 case(s); summary so far:" in text, text
    assert "2 scenarios compared (2 whole runs" in text
    assert len(list(ET.parse(junit).getroot().iter("testcase"))) == 2


def test_a_subject_error_is_the_case_error_and_ends_the_run(tmp_path: Path) -> None:
    junit = tmp_path / "diff.xml"
    report, text = run_diff(diff.DiffOptions(scenarios=6, seed=3, mode="whole", shrink=False,
                                             out=str(tmp_path)),
                            StopsMidway(SubjectError("upstream died")), junit)
    assert report.exit_code == 2 and report.error == "upstream died"
    assert "ERROR: diff/small-0003" in text and "upstream died" in text
    errors = [c for c in ET.parse(junit).getroot().iter("testcase")
              if c.find("error") is not None]
    assert [c.get("name") for c in errors] == ["small-0003"]

    def cannot_start() -> Subject:
        raise SubjectError("no executable upstream/bin/kschedconf-upstream")

    report, text = run_diff(diff.DiffOptions(scenarios=6, seed=3), cannot_start, junit)
    assert report.exit_code == 2 and "no executable" in text
    errors = [c for c in ET.parse(junit).getroot().iter("testcase")
              if c.find("error") is not None]
    assert [c.get("name") for c in errors] == ["subject"]


class GivesUpTheThird(MovesOneBinding):
    """The reference (no binding moved), except that it gives up its third scenario as a real
    control plane gives up one that never settles (:class:`ScenarioTimedOut`)."""

    name = "fake-control-plane"

    def run(self, scenario: ScenarioInput) -> SubjectResult:
        self.calls += 1
        if self.calls == 3:
            raise ScenarioTimedOut("the scheduler did not settle within 120 s")
        return self.ref.run(scenario)


def test_a_scenario_given_up_is_its_case_error_and_the_run_goes_on(tmp_path: Path) -> None:
    junit = tmp_path / "diff.xml"
    report, text = run_diff(diff.DiffOptions(scenarios=5, seed=3, mode="whole", shrink=False,
                                             out=str(tmp_path)), GivesUpTheThird(), junit)
    assert report.exit_code == 2 and report.error == "", text
    assert "ERROR: diff/small-0003" in text and "did not settle within 120 s" in text
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    assert [c.get("name") for c in cases if c.find("error") is not None] == ["small-0003"]
    assert len(cases) == 5 and report.unexplained == 0
    assert "4 scenarios compared (4 whole runs" in text, text


def test_diff_command_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        diff_main(["diff", "--sizes", "huge"])
    assert e.value.code == 2
    assert diff_main(["diff", "--replay", "/no/such/file.yaml"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert diff.parse_sizes("small=3,large=1") == {"small": 3, "large": 1}
    assert diff.family_counts(7, ["small", "medium"]) == {"small": 4, "medium": 3}


# --- against the real upstream scheduler -------------------------------------------------------

@needs_upstream
def test_upstream_subject_serves_simulate_and_explain() -> None:
    from conformance.subjects.factory import make_subject

    docs = [node("n1", "2"), node("n2", "4"), pod("p1", "1"), pod("p2", "3")]
    with make_subject("upstream") as up:
        assert isinstance(up, UpstreamSubject)
        res = up.run(ScenarioInput(docs)).result
        assert res["bindings"] == {"default/p1": "n2", "default/p2": "n2"}
        e = up.explain(ScenarioInput(docs), "default/p2")
        assert e["selected"] == "n2" and [n["name"] for n in e["nodes"]] == ["n1", "n2"]
        with pytest.raises(SubjectError, match="no pod"):
            up.explain(ScenarioInput(docs), "default/nope")
        assert up.run(ScenarioInput(docs)).result == res  # the process is reused
        assert up.describe()["upstreamRelease"] == "v1.37.2"


@needs_upstream
def test_diff_generated_and_golden_against_upstream(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    junit = tmp_path / "diff.xml"
    code = diff_main(["diff", "--scenarios", "20", "--seed", "7", "--golden",
                      "--golden-dir", str(GOLDEN), "--junit", str(junit), "--out",
                      str(tmp_path / "out"), "--shrink-time", "20"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "scenarios/s" in out and "0 unexplained divergence(s)" in out
    root = ET.parse(junit).getroot()
    cases = list(root.iter("testcase"))
    n_golden = len(golden_files(GOLDEN))
    assert len(cases) == 20 + n_golden
    assert sum(c.get("classname") == "kschedconf.diff.golden" for c in cases) == n_golden
    assert not [c for c in cases if c.find("failure") is not None or c.find("error")
                is not None]


def test_pdb_status_is_filled_for_both_sides() -> None:
    owner = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u1",
              "controller": True}]
    running = [pod(f"w{i}", nodeName="n1") for i in range(3)]
    for p in running:
        p["metadata"].update(labels={"app": "w"}, ownerReferences=owner)
    pdbs = [{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
             "metadata": {"name": "one"}, "spec": {"selector": {"matchLabels": {"app": "w"}},
                                                   "maxUnavailable": 1}},
            {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
             "metadata": {"name": "given"}, "spec": {"selector": {}, "minAvailable": 0},
             "status": {"disruptionsAllowed": 7}}]
    sc = ScenarioInput([node("n1"), *running, *pdbs])
    filled = diff.fill_pdb_status(sc)
    status = {d["metadata"]["name"]: d.get("status") for d in filled.documents
              if d["kind"] == "PodDisruptionBudget"}
    assert status == {"one": {"disruptionsAllowed": 1}, "given": {"disruptionsAllowed": 7}}
    assert "status" not in sc.documents[-2]  # the input is not changed


def test_upstream_subject_survives_a_dying_or_silent_process(tmp_path: Path) -> None:
    """Rejections, a process that exits and one that does not answer (a stand-in binary)."""
    from conformance.subjects.upstream import ScenarioRejected

    script = tmp_path / "kschedconf-upstream"
    script.write_text("#!/bin/sh\n"
                      "[ \"$1\" = serve ] || exit 2\n"
                      "read line; echo '{\"error\": \"bad input\"}'\n"
                      "read line; echo 'dying' >&2; exit 3\n")
    script.chmod(0o755)
    sc = ScenarioInput([node("n1")], name="s")
    with UpstreamSubject(script, timeout=5) as up:
        with pytest.raises(ScenarioRejected, match="bad input"):
            up.run(sc)
        with pytest.raises(SubjectError, match=r"exited with code 3(.|\n)*dying"):
            up.run(sc)
        with pytest.raises(ScenarioRejected):  # a new process
            up.run(sc)
    silent = tmp_path / "silent"
    silent.write_text("#!/bin/sh\nexec sleep 30\n")
    silent.chmod(0o755)
    with UpstreamSubject(silent, timeout=0.5) as up, \
            pytest.raises(SubjectError, match="no answer within 0.5 s"):
        up.run(sc)


def test_scalar_insufficient_reasons_compared_in_any_order() -> None:
    """Upstream's NodeResourcesFit lists the "Insufficient <scalar>" reasons in Go map order
    (fitsRequest, noderesources/fit.go): seen with `diff --sizes dra=40 --seed 2 --release
    v1.34.4` (two extended resources, DRAExtendedResource off). Both orders compare equal, in
    attempts and explanations; cpu and memory keep their place and other lists are untouched."""
    from conformance.engines.diff.normalize import (
        norm_attempt,
        normalize_explanation,
        scalar_reasons_sorted,
    )
    ref = ["Insufficient cpu", "Insufficient deviceclass.resource.kubernetes.io/gpu-large",
           "Insufficient example.com/gpu"]
    up = ["Insufficient cpu", "Insufficient example.com/gpu",
          "Insufficient deviceclass.resource.kubernetes.io/gpu-large"]
    assert scalar_reasons_sorted(up) == ref
    assert scalar_reasons_sorted(["Insufficient memory", "Insufficient cpu"]) == [
        "Insufficient memory", "Insufficient cpu"]
    assert norm_attempt({"reasons": {"n": up}}) == norm_attempt({"reasons": {"n": ref}})

    def explanation(reasons: list[str]) -> dict[str, Any]:
        return {"nodes": [{"name": "n", "filters": [
            {"plugin": "NodeResourcesFit", "code": "Unschedulable", "reasons": reasons}]}]}
    assert normalize_explanation(explanation(up)) == normalize_explanation(explanation(ref))
    assert normalize_explanation(explanation(up[:2])) != normalize_explanation(explanation(ref))

    # a preemption explanation's nodes where preemption cannot help (seen flaky with `diff
    # --sizes dra=40` on v1.34.4 and v1.35.4)
    def preemption(reasons: list[str]) -> dict[str, Any]:
        return {"preemption": {"notCandidates": {
            "n": ["preemption cannot help: " + r for r in reasons]}}}
    assert normalize_explanation(preemption(up)) == normalize_explanation(preemption(ref))
    assert normalize_explanation(preemption(up[:2])) != normalize_explanation(preemption(ref))
