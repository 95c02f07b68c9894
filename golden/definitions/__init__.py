"""The golden scenario definitions: readable builders of small clusters, each aimed at one
rule, one module per area as the files are one folder per area (``golden/AREA/NAME.yaml``).

``definitions()`` is what ``kschedconf golden record`` reads (docs/golden.md: the contract, the
format, and why the scenarios avoid upstream's random choices). ``python -m golden.definitions``
lists them, ``python -m golden.definitions AREA/NAME`` prints one scenario (objects).
"""

from __future__ import annotations

from . import (
    admission,
    affinity,
    busy,
    config,
    dra,
    fit,
    large,
    mixed,
    node,
    preemption,
    queue,
    scoring,
    spread,
    storage,
    taints,
)
from .common import Area, Golden

#: every area, in the order ``golden list`` and ``golden record`` show them
AREAS: list[Area] = [m.AREA for m in (fit, scoring, taints, affinity, node, spread, preemption,
                                      queue, config, large, mixed, admission, busy,
                                      storage, dra)]


def definitions() -> dict[str, Golden]:
    """Every golden scenario definition by name ``AREA/NAME`` (``kschedconf golden record``
    reads this)."""
    out: dict[str, Golden] = {}
    for area in AREAS:
        for g in area.definitions:
            if g.name in out:
                raise ValueError(f"two golden definitions named {g.name!r}")
            out[g.name] = g
    return out
