"""The DRA scheduler's runtime CEL cost limit in drawn scenarios (docs/dra.md "The runtime cost
limit"): about one ``dra`` scenario in ten gets a selector with a two-variable comprehension over
``device.capacity`` that the API server accepts (estimated ``MaxCost`` 262372) but whose actual
cost on a GPU with many long-named capacities passes 1000000 (cel-go stops it: "operation
cancelled: actual cost limit exceeded", an allocation error), and on a GPU with few stays under
it (the selector is then true). ``widen`` gives each GPU slice many or few such capacities."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from strategies._cache import integers

__all__ = ["COSTLY_SELECTOR", "costly_scenario", "costly_selectors", "widen"]

Doc = dict[str, Any]

GPU_DRIVER = "gpu.example.com"  # strategies.dra's (not imported: dra imports this module)
_ON_GPU = f'device.driver == "{GPU_DRIVER}"'
_CAP = f'device.capacity["{GPU_DRIVER}"]'
#: true unless stopped: no key pair of at most 64 characters matches 1000 ``a``; the pair's
#: key is sized 0 by the estimate (compile.go's ``GoPath`` quirk), the regex's cost is not
COSTLY_SELECTOR = f'{_CAP}.all(k, v, {_CAP}.all(k2, v2, !(k + k2).matches("{"a" * 1000}")))'
#: ResourceSliceMaxAttributesAndCapacitiesPerDevice (pkg/apis/resource/types.go)
MAX_PER_DEVICE = 32
#: at most this many added capacities keeps the actual cost under the limit (20 and the
#: GPU's ``memory``: 746259; 24: over)
FEW = 4


def costly_scenario() -> st.SearchStrategy[bool]:
    """Whether a scenario gets ``costly_selectors``: drawn first in ``dra_documents``, as the
    values drawn at the end of a long scenario are mostly the simplest, and from a wide range,
    as Hypothesis draws the bounds of a narrow one often (``x == 11`` of 0-11: 3% of the dra
    family's draws, ``x % 12 == 11`` of 0-239: 9.5%, 35 of 369 over six seeds)."""
    return integers(0, 239).map(lambda x: x % 12 == 11)


def _capacity_name(i: int) -> str:
    return f"c{i:031d}"  # DeviceMaxIDLength: 32


@st.composite
def widen(draw: st.DrawFn, docs: Sequence[Doc]) -> None:
    """Give the GPUs of the GPU slices (but shared ones, whose capacities are consumed)
    capacities named by 32 characters: every other slice of devices, from a drawn one, as many
    as the device may hold (over the limit), the others 0-``FEW`` (under it)."""
    slices = [
        d["spec"]
        for d in docs
        if d.get("kind") == "ResourceSlice"
        and d["spec"].get("driver") == GPU_DRIVER
        and d["spec"].get("devices")
    ]
    offset = draw(integers(0, 1))
    for i, spec in enumerate(slices):
        few = draw(integers(0, FEW)) if (i + offset) % 2 else None
        for device in spec["devices"]:
            if device.get("allowMultipleAllocations"):
                continue
            capacity = device.setdefault("capacity", {})
            room = MAX_PER_DEVICE - len(device.get("attributes", {})) - len(capacity)
            n = room if few is None else min(few, room)
            capacity.update({_capacity_name(j): {"value": str(j + 1)} for j in range(n)})


def _gpu_requests(docs: Sequence[Doc], claims: Sequence[Doc]) -> list[Doc]:
    """The exact requests (and subrequests) of ``claims`` (claims and templates) for a GPU
    class of ``docs`` (one whose first selector is on the GPU driver)."""
    gpu_classes = {
        d["metadata"]["name"]
        for d in docs
        if d["kind"] == "DeviceClass"
        and d["spec"]["selectors"][0]["cel"]["expression"].startswith(_ON_GPU)
    }
    out = []
    for claim in claims:
        spec = claim["spec"]["spec"] if claim["kind"] == "ResourceClaimTemplate" else claim["spec"]
        for request in spec["devices"]["requests"]:
            for r in [request["exactly"]] if "exactly" in request else request["firstAvailable"]:
                if r["deviceClassName"] in gpu_classes:
                    out.append(r)
    return out


@st.composite
def costly_selectors(draw: st.DrawFn, docs: Sequence[Doc], claims: Sequence[Doc]) -> None:
    """``widen`` the GPUs and add ``COSTLY_SELECTOR`` to one GPU request of ``claims`` or (one
    in three, or when there is none) to the GPU class of ``docs``."""
    draw(widen(docs))
    requests = _gpu_requests(docs, claims)
    if requests and draw(integers(0, 2)) < 2:
        r = requests[draw(integers(0, len(requests) - 1))]
    else:
        r = next(
            d for d in docs if d["kind"] == "DeviceClass" and d["metadata"]["name"] == GPU_DRIVER
        )["spec"]
    r.setdefault("selectors", []).append({"cel": {"expression": COSTLY_SELECTOR}})
