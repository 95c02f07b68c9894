"""Scenario families: the size presets (``small``, ``medium``, ``large``) every engine draws
scenarios from, and the strategy of each."""

from __future__ import annotations

from hypothesis import strategies as st

from conformance.core.scenario import ScenarioInput
from strategies import sizes
from strategies.scenarios import scenarios

FAMILIES = ("small", "medium", "large")
#: families beyond the size presets: a size preset with opt-in features added to the defaults
#: (``dra``: small scenarios with DeviceClasses, ResourceSlices and claims, docs/dra.md;
#: ``storage``: small scenarios with storage classes, CSI objects, volumes, claims and pods
#: using them, docs/storage.md; ``dra-binding``: ``dra`` with devices that have binding
#: conditions, only for releases with DRADeviceBindingConditions on, docs/dra.md)
FEATURE_FAMILIES: dict[str, tuple[str, frozenset[str]]] = {
    "dra": ("small", frozenset({"dra"})),
    "dra-binding": ("small", frozenset({"dra", "dra_binding"})),
    "storage": ("small", frozenset({"storage"})),
}


def family_sizes(family: str) -> sizes.Sizes:
    """The ``strategies.sizes`` preset of a family (``small`` → ``SMALL``...)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown scenario family {family!r} (known: {', '.join(FAMILIES)})")
    return getattr(sizes, family.upper())


def scenario_strategy(family: str) -> st.SearchStrategy[ScenarioInput]:
    """The Hypothesis strategy generating the scenarios of a family."""
    if family in FEATURE_FAMILIES:
        preset, extra = FEATURE_FAMILIES[family]
        return scenarios(sizes=family_sizes(preset), features=sizes.ALL_FEATURES | extra)
    return scenarios(sizes=family_sizes(family))
