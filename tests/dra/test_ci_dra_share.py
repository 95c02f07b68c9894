"""Issue 15: the differential campaign of ``.ci/run`` generates DRA scenarios, at least a fifth
of the generated ones. As for storage (tests/storage/test_ci_storage_share.py), the
``--sizes`` are read from ``.ci/run`` itself and the share is counted over scenarios drawn as
the campaign draws them (the same families and seed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conformance.engines.diff.plan import family_counts, parse_sizes
from tests.storage.test_ci_storage_share import _commands, _option, family_share

SAMPLE = 20


IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"


def _dra_extended_names(documents: Sequence[Mapping[str, Any]]) -> set[str]:
    """The extended resources DeviceClasses serve: ``spec.extendedResourceName`` and the
    implicit ``deviceclass.resource.kubernetes.io/<class>`` of every class."""
    names: set[str] = set()
    for d in documents:
        if d.get("kind") == "DeviceClass":
            names.add(IMPLICIT_PREFIX + str((d.get("metadata") or {}).get("name")))
            if (d.get("spec") or {}).get("extendedResourceName"):
                names.add(str(d["spec"]["extendedResourceName"]))
    return names


def _requests(pod: Mapping[str, Any]) -> set[str]:
    spec = pod.get("spec") or {}
    return {name for c in (spec.get("containers") or []) + (spec.get("initContainers") or [])
            for name in ((c.get("resources") or {}).get("requests") or {})}


def _claims_devices(documents: Sequence[Mapping[str, Any]]) -> bool:
    """A DRA scenario: a pod that references a ResourceClaim, or requests an extended resource
    a DeviceClass serves (both are what DynamicResources allocates devices for)."""
    served = _dra_extended_names(documents)
    return any(d.get("kind") == "Pod" and ((d.get("spec") or {}).get("resourceClaims")
                                           or _requests(d) & served)
               for d in documents)


def _dra_share(family: str, seed: int) -> float:
    return family_share(family, seed, _claims_devices, SAMPLE)


def test_the_ci_differential_is_at_least_a_fifth_dra() -> None:
    (diff,) = [c for c in _commands("diff") if _option(c, "--upstream") is None]
    sizes = _option(diff, "--sizes")
    assert sizes is not None, diff
    counts = family_counts(0, parse_sizes(sizes))
    seed = int(_option(diff, "--seed") or 0)
    shares = {family: _dra_share(family, seed) for family in counts}
    assert shares["dra"] >= 0.75, shares  # most of the family's scenarios claim devices
    # the binding-condition GPUs (strategies/dra.py, feature dra_binding) are compared too
    assert counts.get("dra-binding", 0) > 0 and shares["dra-binding"] >= 0.75, shares
    dra = sum(counts[f] * shares[f] for f in counts)
    assert dra / sum(counts.values()) >= 1 / 5, (counts, shares)
