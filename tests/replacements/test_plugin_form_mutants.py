"""Issue 18: the plugin-form mutants (``catalogue/plugin_form.py``: a copy of a default plugin
with one planted bug, run as the user's plugin in the in-tree plugin's place) are caught, and
the divergence names the in-tree plugin, the user's plugin and the extension point. The
unmodified copy of the same plugin is not flagged on the same input."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from conformance.engines.diff.replacement import DIFFERENTIAL, differential_check
from conformance.engines.mutants import check_witness, run_mutant
from conformance.engines.mutants.catalogue import plugin_form
from conformance.engines.mutants.copies import copy_of
from conformance.engines.mutants.outcomes import CAUGHT
from conformance.engines.mutants.plan import MutantsOptions
from conformance.engines.mutants.subject import PluginFormSubject
from conformance.subjects.reference import ReferenceSubject
from oracles.judge import check_result, failures, select_oracles
from tests.replacements.helpers import BUGGY, COPIES, kschedconf

MUTANTS = {mu.name: mu for mu in plugin_form.MUTANTS}
#: the plugins whose rule the oracles restate: once the oracles judge a declared replacement
#: as the in-tree plugin (issue 18 part A), they catch the mutant on its witness too
BY_ORACLES = [name for name, mu in MUTANTS.items() if mu.oracles]


def test_one_plugin_form_mutant_per_reachable_default_plugin() -> None:
    plugins = [mu.plugin.plugin for mu in MUTANTS.values() if mu.plugin is not None]
    assert len(plugins) == len(set(plugins)) == 15
    # NodeName's Filter is unreachable: the scheduler never schedules a pod with nodeName
    assert "NodeName" not in plugins
    for mu in MUTANTS.values():
        assert mu.plugin is not None and mu.plugin.module == BUGGY and not mu.patches
        assert mu.plugin.cls == f"Buggy{mu.plugin.plugin}"


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_differential_catches_it_on_its_witness(name: str) -> None:
    """The buggy copy decides differently from the unmodified copy on the witness; the
    unmodified copy passes every oracle and the differential there; the differential
    rejects the buggy one."""
    mu = MUTANTS[name]
    w = check_witness(mu)
    assert w.differs
    assert w.genuine_violations == []
    assert DIFFERENTIAL in w.caught_by
    # the oracles judge the declared replacement as the in-tree plugin (the mutants engine's
    # subject passes the declaration on)
    assert set(mu.oracles) <= set(w.caught_by), w.caught_by


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_diff_subject_spelling_names_both_plugins_and_the_point(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``kschedconf diff --replay WITNESS --subject reference:CFG --plugins MODULE``."""
    mu = MUTANTS[name]
    assert mu.plugin is not None
    witness = mu.witness().write(tmp_path / "witness.yaml")
    cfg = mu.plugin.write_config(tmp_path)
    code = kschedconf("diff", "--replay", str(witness), "--subject", f"reference:{cfg}",
                      "--plugins", BUGGY, "--out", str(tmp_path / "out"))
    out = capsys.readouterr().out
    assert code == 1, out
    # the lockstep divergences of the plugin name the user's plugin and the extension point
    lockstep = [line for line in out.splitlines() if line.lstrip().startswith("[lockstep")
                and f"plugin {mu.plugin.plugin})" in line]
    assert lockstep, out
    assert all(f"[the subject's {mu.plugin.cls} replacing {mu.plugin.plugin}, at " in line
               for line in lockstep), lockstep
    # the unmodified copy: no divergence on the same input
    copy_cfg = copy_of(mu.plugin.plugin).write_config(tmp_path)
    assert kschedconf("diff", "--replay", str(witness), "--subject", f"reference:{copy_cfg}",
                      "--plugins", COPIES, "--out", str(tmp_path / "out2")) == 0, \
        capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_config_spelling_the_differential_catches_it_too(name: str) -> None:
    """``--config CFG --plugins MODULE``: the reference subject runs each scenario with the
    configuration, the differential compares it with the reference running the in-tree
    plugin there."""
    mu = MUTANTS[name]
    assert mu.plugin is not None
    cfg = mu.plugin.config()
    subject = ReferenceSubject(None, [BUGGY])
    scenario = mu.witness().with_config(cfg)
    assert differential_check(subject, cfg)(SimpleNamespace(scenario=scenario))
    copy = ReferenceSubject(None, [COPIES])
    copy_cfg = copy_of(mu.plugin.plugin).config()
    assert differential_check(copy, copy_cfg)(
        SimpleNamespace(scenario=mu.witness().with_config(copy_cfg))) == []


@pytest.mark.parametrize("name", BY_ORACLES)
def test_the_oracles_catch_it_on_its_witness_under_both_spellings(name: str) -> None:
    mu = MUTANTS[name]
    assert mu.plugin is not None
    checks = select_oracles(mu.oracles)
    # --subject reference:CFG --plugins MODULE
    subject = PluginFormSubject(mu.plugin)
    try:
        found = failures(check_result(mu.witness(), subject.run(mu.witness()), subject,
                                      checks))
    finally:
        subject.close()
    # --config CFG --plugins MODULE
    plain = ReferenceSubject(None, [BUGGY])
    scenario = mu.witness().with_config(mu.plugin.config())
    found_config = failures(check_result(scenario, plain.run(scenario), plain, checks))
    assert {f.oracle for f in found} & set(mu.oracles)
    assert {f.oracle for f in found_config} == {f.oracle for f in found}


def test_a_plugin_form_mutant_is_caught_on_generated_scenarios() -> None:
    """The mutants engine runs the buggy copy on generated scenarios (its family) and the
    differential catches it."""
    out = run_mutant(MUTANTS["plugin-dra-filter-never-rejects"],
                     MutantsOptions(max_examples=60, seed=0, golden=False, budget=None))
    assert out.status == CAUGHT, out.message
    assert DIFFERENTIAL in out.caught_by
    assert 0 < out.examples <= 60


def test_per_property_runs_the_differential_as_a_property_of_its_own() -> None:
    out = run_mutant(MUTANTS["plugin-balanced-allocation-range-not-std"],
                     MutantsOptions(max_examples=40, seed=0, golden=False, budget=None,
                                    per_property=True))
    assert out.status == CAUGHT and out.caught_by == [DIFFERENTIAL]
    by_oracle = {p.oracle: p for p in out.properties}
    assert by_oracle[DIFFERENTIAL].failed and "score_optimality" in by_oracle
    assert "NodeResourcesBalancedAllocation" in out.message


def test_mutants_cli_lists_the_plugin_form(capsys: pytest.CaptureFixture[str]) -> None:
    assert kschedconf("mutants", "--list") == 0
    listing = capsys.readouterr().out
    assert "plugin-fit-ignores-ephemeral-storage  (NodeResourcesFit (plugin form)) [plugin " \
           "form: BuggyNodeResourcesFit replacing NodeResourcesFit]" in listing
    json.dumps(sorted(MUTANTS))  # names are plain strings
