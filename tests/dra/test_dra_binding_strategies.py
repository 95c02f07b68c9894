"""The ``dra_binding`` feature of the DRA strategies (family ``dra-binding`` of the
differential, docs/dra.md#binding-conditions): GPUs with binding conditions, a short
``bindingTimeout`` in every profile and a timeline that ends, so that scenarios settle and the
upstream subject's wall-clock waits stay short; the ``dra`` family never draws them."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, Phase, given, settings

from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.plan import family_counts
from conformance.subjects.reference import ReferenceSubject
from reference_impl.config import load_config
from reference_impl.plugins.registry import in_tree_registry
from strategies import OPT_IN_FEATURES, stable_draws
from strategies.dra import BINDING_TIMEOUT, BINDING_UNTIL
from strategies.families import scenario_strategy
from strategies.sizes import resolve_features

Doc = dict[str, Any]
COLLECT = settings(max_examples=30, deadline=None, database=None, phases=[Phase.generate],
                   derandomize=True, suppress_health_check=list(HealthCheck))


def _devices(scenario: ScenarioInput) -> list[Doc]:
    return [d for s in scenario.documents if s.get("kind") == "ResourceSlice"
            for d in s["spec"].get("devices", [])]


def _collect(family: str) -> list[ScenarioInput]:
    out: list[ScenarioInput] = []

    @stable_draws
    @COLLECT
    @given(scenario_strategy(family))
    def collect(scenario: ScenarioInput) -> None:
        out.append(scenario)

    collect()
    return out


def test_dra_binding_is_opt_in_and_has_a_family() -> None:
    assert "dra_binding" in OPT_IN_FEATURES and "dra_binding" not in resolve_features(None)
    assert family_counts(0, {"dra-binding": 20}) == {"dra-binding": 20}


def test_the_family_draws_binding_conditions_with_a_short_timeout_and_an_end() -> None:
    got = _collect("dra-binding")
    with_binding = [s for s in got if any("bindingConditions" in d for d in _devices(s))]
    assert len(with_binding) >= len(got) // 4, len(with_binding)
    for s in got:
        for d in _devices(s):
            if "bindingConditions" in d or "bindingFailureConditions" in d:
                # validateDeviceBindingParameters: both or neither, no overlap
                assert d["bindingConditions"] and d["bindingFailureConditions"]
                assert not set(d["bindingConditions"]) & set(d["bindingFailureConditions"])
        if not _devices(s):
            continue
        assert s.config is not None
        for p in s.config["profiles"]:
            (args,) = [c["args"] for c in p["pluginConfig"] if c["name"] == "DynamicResources"]
            assert args == {"bindingTimeout": BINDING_TIMEOUT}
        load_config(s.config, in_tree_registry())  # valid where the gates are on (v1.37.2)
        (timeline,) = [d for d in s.documents if d.get("kind") == "Scenario"]
        assert timeline["spec"]["until"] == BINDING_UNTIL


def test_the_reference_runs_them_to_the_end_of_the_timeline() -> None:
    for s in _collect("dra-binding")[:8]:
        res = ReferenceSubject().run(s).result
        assert res["stoppedBy"] in ("until", "quiescence"), res["stoppedBy"]


def test_the_dra_family_draws_none() -> None:
    assert not any("bindingConditions" in d for s in _collect("dra") for d in _devices(s))
