"""The ``dra`` strategies draw the runtime CEL cost limit (``strategies/dra_costly.py``,
docs/dra.md "The runtime cost limit"): a selector the loader accepts whose evaluation stops at
the limit on some drawn GPUs and not on others."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, Phase, find, settings

from conformance.core.scenario import ScenarioInput
from reference_impl.dra import cel
from reference_impl.dra.cel_cost import CEL_SELECTOR_EXPRESSION_MAX_COST, estimate_cost
from reference_impl.dra.cel_runtime_cost import counted_tree, exceeds_limit
from reference_impl.model.loader import load_documents
from strategies import SMALL, scenarios, stable_draws
from strategies.dra_costly import COSTLY_SELECTOR, GPU_DRIVER

Doc = dict[str, Any]
SEARCH = settings(
    max_examples=400,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def _selectors(docs: list[Doc]) -> list[str]:
    out = []
    for d in docs:
        spec = d.get("spec") or {}
        if d.get("kind") == "DeviceClass":
            out += [s["cel"]["expression"] for s in spec.get("selectors", [])]
        elif d.get("kind") in ("ResourceClaim", "ResourceClaimTemplate"):
            spec = spec.get("spec", spec)
            for r in spec["devices"]["requests"]:
                for e in [r["exactly"]] if "exactly" in r else r["firstAvailable"]:
                    out += [s["cel"]["expression"] for s in e.get("selectors", [])]
    return out


def _gpu_slices(docs: list[Doc]) -> int:
    return sum(
        1
        for d in docs
        if d.get("kind") == "ResourceSlice"
        and d["spec"]["driver"] == GPU_DRIVER
        and d["spec"].get("devices")
    )


def test_the_costly_selector_is_drawn_accepted_and_stops_on_some_gpus() -> None:
    """Fails if the generator stops drawing the case: a scenario with the costly selector and
    two GPU slices is found, loads (the API server's estimate: 262372, under the limit), and
    the selector's evaluation passes the limit on some of its GPUs and not on others."""
    assert estimate_cost(COSTLY_SELECTOR).max <= CEL_SELECTOR_EXPRESSION_MAX_COST

    @stable_draws
    def search() -> ScenarioInput:
        return find(
            scenarios(SMALL, features={"dra"}),
            lambda s: COSTLY_SELECTOR in _selectors(s.documents) and _gpu_slices(s.documents) >= 2,
            settings=SEARCH,
        )

    scenario = search()
    loaded = load_documents(scenario.documents)
    root = counted_tree(COSTLY_SELECTOR)
    assert root is not None
    stops = {
        exceeds_limit(
            root, cel.device_value(cel.DeviceView(GPU_DRIVER, d.attributes, d.capacity, None))
        )
        for s in loaded.dra.slices
        if s.driver == GPU_DRIVER
        for d in s.devices
    }
    assert stops == {True, False}
