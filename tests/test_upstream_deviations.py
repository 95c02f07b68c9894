"""The catalogue of upstream deviations (oracles/upstream_deviations.yaml) and the oracles'
knowledge of it: upstream's behaviour is judged by default, a subject that breaks only the
intent the way upstream does "matches upstream" (never fails) unless --strict-intent, and each
entry's scenario shows the deviation on the reference and, when built, on upstream."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from conformance.core.documents import schema
from conformance.core.results import FAILED, PASSED, CaseResult, RunSummary
from conformance.core.scenario import ScenarioInput
from conformance.core.subject import SubjectResult
from conformance.engines import diff, properties
from conformance.engines.diff.known import load_known
from conformance.engines.golden import read_scenario_file, verify_case
from conformance.engines.run import RunOptions, reproduce, reproduce_command, rerun_command
from conformance.reporters.junit import junit_string
from conformance.subjects.reference import ReferenceSubject
from conformance.subjects.upstream import UpstreamSubject, binary_available
from oracles import (
    ALL_ORACLES,
    Oracle,
    dra_allocations,
    filters_honoured,
    no_false_unschedulable,
    preemption,
)
from oracles.base import OracleContext, Violation
from oracles.dra_allocations import DROPPED_SHARED_DEVICE
from oracles.judge import check_result, failures, matching_upstream
from oracles.rules import IPA_SKIP
from oracles.upstream_deviations import catalogue, followed
from tests.test_diff import replay
from tests.test_diff_decisions import FakeControlPlane, compare
from tests.test_oracles import anti, bound, judge, node, one, pod, unschedulable

GO = Path("/root/go/pkg/mod/k8s.io")
IPA_FILE = str(catalogue()[IPA_SKIP].scenario)
needs_upstream = pytest.mark.skipif(not binary_available(),
                                    reason="the upstream subject is not built")
ZONE = "topology.kubernetes.io/zone"


def _module_root(source: str) -> tuple[Path, str, int, int]:
    where, lines = source.rsplit(":", 1)
    lo, hi = (int(x) for x in lines.split("-"))
    if where.startswith("k8s.io/"):
        module, file = where.split("/", 2)[1].split("/", 1)[0], where.split("/", 2)[2]
        return GO / module, file, lo, hi
    return GO / "kubernetes@v1.37.2", where, lo, hi


def test_every_entry_is_complete_and_its_links_resolve() -> None:
    known = {k.id for k in load_known()}
    assert IPA_SKIP in followed()
    for d in catalogue().values():
        assert d.scenario.is_file(), d.id
        assert d.source and d.releases and d.summary, d.id
        assert set(d.oracles) <= set(ALL_ORACLES), d.id
        assert not d.divergence or d.divergence in known, d.id
        for src in d.source:
            root, file, lo, hi = _module_root(src)
            if root.is_dir():  # the pinned Go source, when this machine has it
                lines = (root / file).read_text(encoding="utf-8").splitlines()
                assert 1 <= lo <= hi <= len(lines), src


def test_the_go_lines_of_the_interpodaffinity_skip_say_what_the_entry_says() -> None:
    root = GO / "kubernetes@v1.37.2"
    if not root.is_dir():
        pytest.skip("the pinned upstream source is not on this machine")
    text = {}
    for src in catalogue()[IPA_SKIP].source:
        r, file, lo, hi = _module_root(src)
        text[src] = "\n".join((r / file).read_text().splitlines()[lo - 1:hi])
    joined = "\n".join(text.values())
    assert "incomingPodHasNoTerms" in joined and "fwk.Skip" in joined
    assert "GetSkipFilterPlugins().Has(pl.Name())" in joined
    assert "func (pl *InterPodAffinity) AddPod" in joined


def _reproduce(subject: str, strict: bool = False) -> tuple[int, str]:
    out = io.StringIO()
    o = reproduce(IPA_FILE, subject, stream=out, strict_intent=strict)
    return o.exit_code, out.getvalue()


@pytest.mark.parametrize("subject", ["reference",
                                     pytest.param("upstream", marks=needs_upstream)])
def test_the_interpodaffinity_scenario_matches_upstream_and_fails_only_the_intent(
        subject: str) -> None:
    code, text = _reproduce(subject)
    assert code == 0, text
    assert "no violations" in text and "1 finding(s) match upstream" in text
    assert f"(matches upstream: {IPA_SKIP})" in text and "default/low" in text
    code, text = _reproduce(subject, strict=True)
    assert code == 1 and "1 violation(s)" in text, text


def test_an_oracle_stricter_than_upstream_fails_the_upstream_behaviour(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A planted oracle bug: the rules state the intent (follow no deviation).
    scenario, _, _ = read_scenario_file(IPA_FILE)
    subject = ReferenceSubject()
    result = subject.run(scenario)
    checks = {filters_honoured.NAME: filters_honoured.check}
    assert failures(check_result(scenario, result, subject, checks)) == []
    monkeypatch.setattr(OracleContext, "__init__", _intent_init(OracleContext.__init__))
    bad = failures(check_result(scenario, result, subject, checks))
    assert len(bad) == 1 and "default/low" in str(bad[0]) and bad[0].deviation is None


def _intent_init(init):  # type: ignore[no-untyped-def]
    def patched(self, *a, **kw):  # type: ignore[no-untyped-def]
        kw["follow"] = frozenset()
        init(self, *a, **kw)
    return patched


# --- the restated rules follow upstream's InterPodAffinity Skip --------------------------------

def _nominated_high() -> list[dict]:
    """n1 in zone z1; high (priority 100) is nominated to n1 and has required anti-affinity
    against every pod of its zone; low (priority 0) has no affinity terms."""
    return [node("n1", labels={ZONE: "z1"}), pod("high", cpu="1", priority=100,
                                                affinity=anti({}, ZONE)),
            pod("low", cpu="1", priority=0)]


def test_filters_honoured_follows_the_skip_and_tags_the_intent() -> None:
    ctx = judge(_nominated_high(), [unschedulable("high", nominated="n1"), bound("low", "n1")])
    assert filters_honoured.check(ctx) == []
    assert ctx.met == {IPA_SKIP}
    intent = one(filters_honoured.check(ctx.following(frozenset())))
    assert "default/high" in intent.message and "anti-affinity" in intent.message


def test_filters_honoured_still_counts_nominated_anti_affinity_when_the_plugin_runs() -> None:
    # an assigned pod's anti-affinity matches low: PreFilter does not skip, AddPod brings
    # high's anti-affinity in
    docs = _nominated_high() + [
        node("n2", labels={ZONE: "z2"}),
        pod("guard", cpu="0", node="n2", affinity=anti({}, ZONE))]
    ctx = judge(docs, [unschedulable("high", nominated="n1"), bound("low", "n1")])
    v = one(filters_honoured.check(ctx))
    assert "default/high" in v.message and not ctx.met


def test_no_false_unschedulable_sees_the_node_upstream_would_take() -> None:
    # low reported Unschedulable: upstream would have bound it to n1 (the Skip), a real bug the
    # oracle stating the intent missed
    ctx = judge(_nominated_high(), [unschedulable("high", nominated="n1"),
                                    unschedulable("low")])
    def about_low(c: OracleContext) -> list[Violation]:
        return [v for v in no_false_unschedulable.check(c) if v.pod == "default/low"]
    assert one(about_low(ctx)).node == "n1"
    assert about_low(ctx.following(frozenset())) == []


def test_preemption_minimality_follows_the_skip() -> None:
    # mid (priority 50) preempts v1 and v2 on n1 (2 cpu, full); it needs 1 cpu. high's nomination
    # to n1 (1 cpu) makes both victims necessary, whatever InterPodAffinity does; mid has no
    # terms and no assigned pod's anti-affinity matches it, so high's anti-affinity is skipped
    # (upstream) and the preemption is minimal; the intent would forbid n1 altogether.
    docs = [node("n1", cpu="2", labels={ZONE: "z1"}),
            pod("high", cpu="1", priority=100, affinity=anti({}, ZONE)),
            pod("v1", cpu="1", node="n1", priority=0), pod("v2", cpu="1", node="n1", priority=0),
            pod("mid", cpu="1", priority=50)]
    attempts = [unschedulable("high", nominated="n1"),
                unschedulable("mid", nominated="n1", victims=["v1", "v2"])]
    ctx = judge(docs, attempts)
    assert preemption.check(ctx) == [] and ctx.met == {IPA_SKIP}
    assert "still does not fit" in one(preemption.check(ctx.following(frozenset()))).message


def test_check_result_reports_the_intent_apart() -> None:
    ctx = judge(_nominated_high(), [unschedulable("high", nominated="n1"), bound("low", "n1")])
    scenario = ScenarioInput(ctx.scenario.documents, None, 0, "t")
    findings = check_result(scenario, SubjectResult(ctx.result), ReferenceSubject(),
                            {filters_honoured.NAME: filters_honoured.check})
    assert failures(findings) == [] and matching_upstream(findings) == [IPA_SKIP]
    assert len(failures(findings, strict_intent=True)) == 1


def test_a_device_the_tracker_dropped_matches_upstream_and_fails_only_the_intent() -> None:
    """The deviation's scenario: pod-b gets gpu-0 while claim-a still holds it, as upstream's
    allocatedDevices decides; dra_allocations says so as "matches upstream", and only
    --strict-intent fails it."""
    path = catalogue()[DROPPED_SHARED_DEVICE].scenario
    scenario = ScenarioInput.read(path)
    run = ReferenceSubject().run(scenario)
    assert run.result["bindings"]["default/pod-b"] == "node-0"
    findings = check_result(scenario, run, ReferenceSubject(),
                            {dra_allocations.NAME: dra_allocations.check})
    assert failures(findings) == []
    assert matching_upstream(findings) == [DROPPED_SHARED_DEVICE]
    [strict] = failures(findings, strict_intent=True)
    assert "gpu-0 is allocated to 2 claims at once" in strict.text


@needs_upstream
def test_the_aliasing_scenario_diverges_only_as_the_known_divergence() -> None:
    entry = catalogue()["upstream-pod-level-requests-aliasing"]
    with UpstreamSubject() as up:
        rep, text = replay(diff.DiffOptions(replay=str(entry.scenario)), up)
    assert rep.exit_code == 0, text
    assert f"known: {entry.divergence}" in text and "0 unexplained" in text


# --- the run engine: --judge-all, --strict-intent, matches upstream ----------------------------

def _always(deviation: str | None) -> Oracle:
    """A planted oracle: one violation on every scenario, tagged as upstream's when
    ``deviation`` is given (as the judge tags what only the intent forbids)."""
    def check(ctx: OracleContext) -> list[Violation]:
        return [Violation("planted", None, None, "always", deviation)]
    return check


def _run_one(also: dict[str, Oracle], strict: bool = False) -> properties.PropertyState:
    prop = properties.Property("small", "consistency")
    return properties.run_property(prop, ReferenceSubject(), ALL_ORACLES["consistency"],
                                   also=also, base=properties.profile_settings("dev"),
                                   max_examples=3, seed=5, deadline=None,
                                   strict_intent=strict)


def test_judge_all_judges_every_example_with_the_other_oracles_too() -> None:
    assert _run_one({}).failure is None
    st = _run_one({"planted": _always(None)})
    assert st.failure is not None and st.failure[1][0].oracle == "planted"


def test_a_run_counts_what_matches_upstream_apart_and_strict_intent_fails_it() -> None:
    # a Violation an oracle tags with a deviation is a tagged Finding
    st = _run_one({"planted": _always(IPA_SKIP)})
    assert st.failure is None and st.matches_upstream == {IPA_SKIP: 3}
    assert _run_one({"planted": _always(IPA_SKIP)}, strict=True).failure is not None


def test_the_rerun_and_reproduce_commands_keep_the_judging_options() -> None:
    opts = RunOptions(seed=3, judge_all=True, strict_intent=True)
    assert rerun_command(opts, ["small"], 3).endswith("--judge-all --strict-intent")
    cmd = reproduce_command("x.yaml", opts, "consistency")
    assert "--strict-intent" in cmd and all(o in cmd for o in ALL_ORACLES)


def test_golden_verify_judges_with_the_oracles_when_asked(tmp_path: Path) -> None:
    path = sorted((Path(__file__).resolve().parent.parent / "golden" / "fit").glob("*.yaml"))[0]
    subject = ReferenceSubject()
    assert verify_case(subject, path).status == PASSED
    case = verify_case(subject, path, checks={"planted": _always(None)})
    assert case.status == FAILED and "[planted] always" in case.details


def test_reports_show_what_matches_upstream_apart() -> None:
    case = CaseResult("properties", "kschedconf.properties.small", "filters_honoured",
                      examples=5, matches_upstream={IPA_SKIP: 2})
    summary = RunSummary("run", cases=[case, CaseResult("golden", "kschedconf.golden", "g")])
    assert summary.exit_code == 0
    assert summary.verdict() == "2 passed, 1 matching upstream"
    doc = summary.to_doc()
    jsonschema.validate(doc, schema("RunReport"))
    assert doc["cases"][0]["matchesUpstream"] == {IPA_SKIP: 2}
    root = ET.fromstring(junit_string(summary.cases, {}))
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["matches_upstream"] == f"{IPA_SKIP} (2)"


def test_the_differential_knows_an_oracle_finding_that_matches_upstream() -> None:
    # decisions mode judges a control plane's own result with the oracles: the deviation's
    # scenario run the way upstream runs it is known under the deviation, not unexplained
    scenario, _, _ = read_scenario_file(IPA_FILE)
    res = compare(scenario, FakeControlPlane())
    oracle = [d for d in res.divergences if d.field.startswith("oracle.")]
    assert oracle and all(d.known == IPA_SKIP for d in oracle), [str(d) for d in oracle]
    assert not [d for d in res.unexplained if d.field.startswith("oracle.")]
