"""Minimal scenarios: the scenario file written for a kind of divergence (shrunk or as found),
with a header naming where it was found, its divergences and the command that replays it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from conformance.core.scenario import ScenarioInput
from conformance.engines.diff.model import Divergence, ScenarioDiff, Sig
from reference_impl.releases.pinned import UPSTREAM_RELEASE

#: Divergences listed in a scenario file's header at most.
HEADER_DIVERGENCES = 30


@dataclass(slots=True)
class Minimal:
    """The minimal scenario of some kinds of divergence (``signatures``: the kinds the first
    diverging scenario showed first)."""

    signatures: list[Sig]
    path: str
    shrunk: bool
    first_scenario: str
    divergences: list[Divergence]
    reproduce: str
    shrink_steps: int = 0
    note: str = ""

    def kinds(self) -> str:
        """``whole attempts[*].node; lockstep nodes.*.filters.*.reasons NodeResourcesFit``."""
        return "; ".join(f"{mode} {fld}{' ' + plugin if plugin else ''}"
                         for mode, fld, plugin in self.signatures)

    def lines(self) -> list[str]:
        """What the summary says of it: the file, why (not) shrunk, the replay command."""
        return [f"  {self.kinds()}: {self.path}{'' if self.shrunk else ' (not shrunk)'}"
                f"{' - ' + self.note if self.note else ''}",
                *[f"      {d}" for d in self.divergences[:5]],
                f"      reproduce: {self.reproduce}"]


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:80] or "divergence"


def minimal_path(out: Path, sigs: Sequence[Sig]) -> Path:
    """``OUT/diff-<kind>.yaml`` for the first kind."""
    return out / f"diff-{slug('-'.join(x for x in sigs[0] if x))}.yaml"


def save(path: Path, scenario: ScenarioInput, res: ScenarioDiff, *, subject: str,
         seed: int | None, reproduce: str, shrunk: bool, kinds: Sequence[Sig] = (),
         found_in: str = "") -> None:
    """Write the scenario file with its header (``subject``: the sides compared,
    ``reference vs upstream``)."""
    notes = [f"kschedconf diff: {subject} ({UPSTREAM_RELEASE})",
             f"found-in: {found_in or res.name}" + (" (shrunk by Hypothesis)" if shrunk else ""),
             f"seed-of-run: {seed}",
             f"reproduce: {reproduce}"]
    for k in kinds:
        notes.append(f"divergence-kind: mode={k[0]} field={k[1]}"
                     + (f" plugin={k[2]}" if k[2] else ""))
    for d in res.unexplained[:HEADER_DIVERGENCES]:
        notes.append(f"divergence: {d}")
    if len(res.unexplained) > HEADER_DIVERGENCES:
        notes.append(f"... {len(res.unexplained) - HEADER_DIVERGENCES} more")
    s = scenario.derived(name=path.stem, notes=notes, covers="")
    s.write(path)
