"""Issue 18: for every default Filter and Score plugin, an unmodified copy declared as a
replacement (``CopyOf<Plugin>``: ``copies.copy_class``) passes ``kschedconf run --suite all``
(the property oracles, the golden scenarios of its area and the differential suite) with no
violation and no divergence, under ``--subject reference:CFG --plugins MODULE``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conformance.engines.mutants.copies import (
    COPIES,
    COPY_PREFIX,
    copied_plugins,
    copy_class,
    copy_config,
    copy_of,
)
from reference_impl.config.loader import load_config
from reference_impl.framework.interfaces import FilterPlugin, ScorePlugin
from reference_impl.plugins.registry import build_registry, in_tree_registry, load_plugin_module
from reference_impl.releases.current import default_plugins
from tests.replacements.helpers import COPIES as MODULE
from tests.replacements.helpers import family, golden_dir, kschedconf

PLUGINS = [p for p, _ in copied_plugins()]


def test_every_default_filter_and_score_plugin_has_a_copy() -> None:
    registry = in_tree_registry()
    expected = [p for p, _ in default_plugins()
                if issubclass(registry[p], FilterPlugin | ScorePlugin)]
    assert PLUGINS == expected and len(PLUGINS) == 16
    assert "DefaultPreemption" not in PLUGINS and "NodeResourcesFit" in PLUGINS
    found = load_plugin_module(MODULE)  # the module is a plugin module, as --plugins loads it
    assert sorted(found) == sorted(COPY_PREFIX + p for p in PLUGINS)
    for plugin in PLUGINS:
        cls = COPIES[plugin]
        assert cls.name == f"CopyOf{plugin}" and cls.replaces == plugin
        assert issubclass(cls, registry[plugin]) and cls.changes == frozenset()


def test_the_copy_configuration_swaps_the_plugin_at_the_same_points_with_its_weight() -> None:
    registry = build_registry([MODULE])
    weights = dict(default_plugins())
    for plugin in PLUGINS:
        doc = copy_config(plugin, COPY_PREFIX + plugin)
        profile = load_config(doc, registry).profiles[0]
        original = load_config({"apiVersion": doc["apiVersion"], "kind": doc["kind"]},
                               registry).profiles[0]
        for point in ("preEnqueue", "preFilter", "filter", "postFilter", "preScore", "score",
                      "reserve", "preBind"):
            mine = {e.name: e.weight for e in profile.plugins.get(point, [])}
            theirs = {e.name: e.weight for e in original.plugins.get(point, [])}
            # the copy where the in-tree plugin was, with its weight; the in-tree one gone
            assert theirs.get(plugin) == mine.get(COPY_PREFIX + plugin), (plugin, point)
            assert plugin not in mine
        if weights[plugin]:
            assert {e.name: e.weight for e in profile.plugins["score"]}[
                COPY_PREFIX + plugin] == weights[plugin]


def test_a_copy_decodes_plain_args_as_the_in_tree_plugin_gets_them() -> None:
    cls = copy_class("NodeResourcesFit", "MyFit", module=__name__)
    strategy = {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 2}]}
    fit = cls({"scoringStrategy": strategy})
    assert fit.args.scoring_strategy.type == "MostAllocated"
    assert [(r.name, r.weight) for r in fit.args.scoring_strategy.resources] == [("cpu", 2)]
    assert cls(None).args == in_tree_registry()["NodeResourcesFit"]().args


@pytest.mark.parametrize("plugin", PLUGINS)
def test_an_unmodified_copy_passes_run_suite_all(
        plugin: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = copy_of(plugin).write_config(tmp_path)
    assert yaml.safe_load(cfg.read_text())["profiles"][0]["plugins"]["multiPoint"][
        "disabled"] == [{"name": plugin}]
    code = kschedconf("run", "--suite", "all", "--profile", "dev", "--subject",
                      f"reference:{cfg}", "--plugins", MODULE, "--sizes", family(plugin),
                      "--max-examples", "3", "--seed", "1", "--no-shrink",
                      "--golden-dir", str(golden_dir(plugin, tmp_path)),
                      "--out", str(tmp_path / "out"))
    out = capsys.readouterr().out
    assert code == 0, out
    assert re.search(r"\d+ properties \(\d+ examples\); \d+ golden scenarios; "
                     r"3 differential scenarios: \d+ passed", out), out
    found = re.search(r"differential: 3 scenarios compared \(3 whole runs, (\d+) lockstep "
                      r"steps\).*; 0 unexplained divergence\(s\)", out)
    assert found and int(found.group(1)) > 0, out
    assert "FAIL" not in out and "violation" not in out.lower(), out
