"""The scenario file's metadata: the ``kschedconf/v1`` ``ScenarioInfo`` document (name, seed,
covers, notes) that ``ScenarioInput.to_yaml`` writes first and ``from_yaml`` reads; files in the
old form (``# kschedconf scenario:`` / ``# seed:`` / ``# key: value`` comment lines) still read
and replay; the external subject's file keeps the comment form of protocol 1."""

from __future__ import annotations

import dataclasses
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli.main import main
from conformance.core.scenario import INFO_KIND, ScenarioInfo, ScenarioInput, note_values
from conformance.engines.golden import GoldenDecisions, read_scenario_file, write_scenario_file
from conformance.subjects.external import ExternalSubject
from reference_impl.releases.pinned import UPSTREAM_RELEASE
from reference_impl.testing.wrappers import make_config, make_container, make_node, make_pod


def _scenario(**kw: Any) -> ScenarioInput:
    node = make_node("n1").allocatable(cpu="2", memory="4Gi", pods=110).manifest()
    pod = make_pod("p").container(make_container("c").image("x").requests(cpu="1")).manifest()
    config = make_config().set(podInitialBackoffSeconds=2).manifest()
    return ScenarioInput([node, pod], config, **kw)


NOTES = ["oracle: filters_honoured", "subject: reference",
         "violation: pod default/p: bound to n1", "  a continuation line", "free text",
         "a note: with a colon after words", "oracle: a second value is kept as a note"]


def test_round_trip_keeps_every_field() -> None:
    s = _scenario(seed=42, name="fit/cpu-memory", notes=NOTES, covers="NodeResourcesFit: cpu")
    text = s.to_yaml()
    assert not text.startswith("#") and "\n#" not in text  # no comments: fields only
    docs = list(yaml.safe_load_all(text))
    assert docs[0] == {"apiVersion": "kschedconf/v1", "kind": INFO_KIND,
                       "name": "fit/cpu-memory", "seed": 42, "release": UPSTREAM_RELEASE,
                       "covers": "NodeResourcesFit: cpu", "notes": NOTES}
    assert docs[1]["kind"] == "KubeSchedulerConfiguration"  # the configuration comes next
    back = ScenarioInput.from_yaml(text, name="ignored-file-stem")
    assert back == s  # documents, config, seed, name, notes, covers
    assert back.info == ScenarioInfo("fit/cpu-memory", 42, "NodeResourcesFit: cpu", NOTES)
    # empty covers and notes are left out
    bare = _scenario(seed=3, name="x")
    assert list(yaml.safe_load_all(bare.to_yaml()))[0] == {
        "apiVersion": "kschedconf/v1", "kind": INFO_KIND, "name": "x", "seed": 3,
        "release": UPSTREAM_RELEASE}
    assert ScenarioInput.from_yaml(bare.to_yaml()) == bare


def test_notes_are_key_value_pairs_first_value_wins() -> None:
    assert note_values(NOTES) == {"oracle": "filters_honoured", "subject": "reference",
                                  "violation": "pod default/p: bound to n1"}


def test_a_golden_file_round_trips_with_its_decisions(tmp_path: Path) -> None:
    decisions = GoldenDecisions({"default/p": "n1"}, [], ["default/v"], "v1.37.2",
                                "kschedconf-upstream serve: ...", "2026-12-02",
                                "kschedconf golden record --yes")
    s = _scenario(seed=0, name="fit/x", covers="what it covers")
    path = write_scenario_file(tmp_path / "fit" / "x.yaml", s, decisions)
    docs = list(yaml.safe_load_all(path.read_text()))
    assert [d["kind"] for d in docs] == [INFO_KIND, "KubeSchedulerConfiguration", "Node", "Pod",
                                         "GoldenDecisions"]
    assert list(docs[-1])[2:6] == ["upstreamRelease", "source", "recordedAt", "recordedWith"]
    back, got, notes = read_scenario_file(path)
    assert back == s and got == decisions and notes == {}


OLD_COUNTEREXAMPLE = textwrap.dedent("""\
    # kschedconf scenario: filters_honoured-small
    # seed: 7
    # property: small/filters_honoured
    # oracle: filters_honoured
    # subject: reference (upstreamRelease=v1.37.2)
    # violation: [filters_honoured] pod default/p
    #   it does not fit
    ---
    apiVersion: v1
    kind: Node
    metadata: {name: n1}
    status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: p, namespace: default}
    spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}
    """)


def test_the_old_comment_form_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "filters_honoured-small.yaml"
    path.write_text(OLD_COUNTEREXAMPLE)
    scenario, decisions, notes = read_scenario_file(path)
    assert decisions is None and scenario.seed == 7
    assert scenario.name == "filters_honoured-small"  # the file's stem, as before
    assert [d["kind"] for d in scenario.documents] == ["Node", "Pod"]
    assert scenario.notes == ["property: small/filters_honoured", "oracle: filters_honoured",
                              "subject: reference (upstreamRelease=v1.37.2)",
                              "violation: [filters_honoured] pod default/p",
                              "  it does not fit"]
    assert notes["oracle"] == "filters_honoured" and notes["property"] == "small/filters_honoured"
    # an old golden file: the `# covers:` line is the covers field
    old_golden = ("# kschedconf scenario: fit-cpu-memory\n# seed: 0\n# covers: cpu and memory\n"
                  + OLD_COUNTEREXAMPLE.split("\n---\n", 1)[1].join(["---\n", ""])
                  + "---\napiVersion: kschedconf/v1\nkind: GoldenDecisions\n"
                    "bindings: {default/p: n1}\npending: []\n")
    (tmp_path / "g.yaml").write_text(old_golden)
    scenario, decisions, notes = read_scenario_file(tmp_path / "g.yaml")
    assert (scenario.covers, scenario.notes, notes) == ("cpu and memory", [], {})
    assert decisions == GoldenDecisions({"default/p": "n1"}, [], None)
    # written again, it is in the new form, with the same content
    again = ScenarioInput.from_yaml(scenario.to_yaml())
    assert again == scenario


def test_an_old_counterexample_still_replays_with_its_oracle(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "filters_honoured-small.yaml"
    path.write_text(OLD_COUNTEREXAMPLE)
    assert main(["reproduce", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"scenario {path} (seed 7, upstream {UPSTREAM_RELEASE})" in out
    assert "oracles: filters_honoured" in out  # taken from the `# oracle:` comment
    assert "found with: reference (upstreamRelease=v1.37.2)" in out
    new = tmp_path / "new.yaml"
    ScenarioInput.read(path).write(new)
    assert main(["reproduce", str(new)]) == 0
    assert "oracles: filters_honoured" in capsys.readouterr().out


@pytest.mark.parametrize("doc, message", [
    ({"seed": "7"}, "seed must be an integer"),
    ({"seed": True}, "seed must be an integer"),
    ({"name": ""}, "name must be a non-empty string"),
    ({"notes": "one"}, "notes must be a list of strings"),
    ({"covers": ["a"]}, "covers must be a string"),
    ({"seeds": 1}, "unknown field 'seeds'"),
])
def test_a_bad_scenario_info_names_the_file_and_field(tmp_path: Path, doc: dict[str, Any],
                                                     message: str) -> None:
    path = tmp_path / "bad.yaml"
    info = {"apiVersion": "kschedconf/v1", "kind": INFO_KIND, "name": "bad", **doc}
    path.write_text(yaml.safe_dump_all([info, {"apiVersion": "v1", "kind": "Node"}]))
    with pytest.raises(ValueError, match=f"{path}: ScenarioInfo.*{message}"):
        read_scenario_file(path)
    path.write_text(yaml.safe_dump_all([{**info, "seed": 1}, {**info, "seed": 2}]))
    with pytest.raises(ValueError, match="more than one ScenarioInfo"):
        read_scenario_file(path)


SPY = """\
import json, shutil, sys
shutil.copy(sys.argv[1], sys.argv[1] + ".seen")
shutil.copy(sys.argv[1], {copy!r})
json.dump({{"apiVersion": "kschedconf/v1", "kind": "SimulationResult", "seed": 0,
           "attempts": [], "bindings": {{}}, "pending": ["default/p"]}},
          open(sys.argv[sys.argv.index("--output") + 1], "w"))
"""


def test_the_external_subject_gets_objects_and_comments_as_in_protocol_1(
        tmp_path: Path) -> None:
    copy = tmp_path / "seen.yaml"
    script = tmp_path / "spy.py"
    script.write_text(SPY.format(copy=str(copy)))
    s = _scenario(seed=5, name="case", notes=["oracle: x"], covers="c")
    with ExternalSubject([sys.executable, str(script)]) as subject:
        subject.run(s)
    text = copy.read_text()
    assert text.startswith(f"# kschedconf scenario: case\n# seed: 5\n"
                           f"# release: {UPSTREAM_RELEASE}\n# covers: c\n# oracle: x\n")
    docs = list(yaml.safe_load_all(text))
    assert [d["kind"] for d in docs] == ["KubeSchedulerConfiguration", "Node", "Pod"]
    assert ScenarioInput.from_yaml(text) == s  # the comment form carries the same metadata


def test_a_scenario_names_its_release_and_derived_scenarios_keep_it() -> None:
    s = dataclasses.replace(_scenario(seed=1, name="old"), release="v1.34.4")
    text = s.to_yaml()
    assert "release: v1.34.4" in text
    back = ScenarioInput.from_yaml(text)
    assert back.release == "v1.34.4" and back == s
    assert back.derived(name="renamed", seed=9).release == "v1.34.4"
    assert back.with_config({"kind": "KubeSchedulerConfiguration"}).release == "v1.34.4"
    assert ScenarioInput.from_yaml(s.to_yaml(info=False)).release == "v1.34.4"


def test_an_unsupported_release_is_refused_with_the_supported_ones() -> None:
    text = _scenario(seed=1, name="x").to_yaml().replace(
        f"release: {UPSTREAM_RELEASE}", "release: v1.30.0")
    with pytest.raises(ValueError, match=r"release: 'v1.30.0' is not a supported release "
                                         r"\(supported: v1.34.4"):
        ScenarioInput.from_yaml(text)
