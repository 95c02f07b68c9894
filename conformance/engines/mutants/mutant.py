"""The :class:`Mutant` type (one planted bug with its witness scenario) and the
:class:`Catalogue` that holds the mutants in order and looks them up by name."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import overload

from conformance.core.scenario import ScenarioInput
from conformance.engines.mutants.copies import PluginForm
from conformance.engines.mutants.patching import MutantError, Patch, patched


@dataclass(frozen=True, slots=True)
class Mutant:
    """One planted bug.

    ``summary``: what the mutated reference does. ``upstream``: the rule it breaks, with the
    upstream file. ``witness()``: a small scenario on which the mutant changes the reference's
    SimulationResult; ``shows``: how (genuine vs mutated). ``oracles``: the oracles expected to
    catch it. ``plugin``: a plugin-form mutant: no patch of the reference, but a user plugin
    (a copy of an in-tree plugin with the bug) that the reference runs in the in-tree plugin's
    place, as ``--subject reference:CFG --plugins MODULE`` would. ``family``: the family the
    mutant runs on instead of the run's families (the only generated scenarios that reach the
    code it patches, e.g. ``dra``). ``equivalent``:
    why no generated scenario can tell it apart (then it is not counted). ``missing_oracle``:
    for a known survivor, the oracle that would catch it.
    """

    name: str
    area: str
    summary: str
    upstream: str
    patches: tuple[Patch, ...]
    witness: Callable[[], ScenarioInput]
    shows: str
    oracles: tuple[str, ...] = ()
    equivalent: str = ""
    missing_oracle: str = ""
    #: the scenario family (strategies/families.py) whose scenarios exercise the code it
    #: patches, when the run's families do not (``dra``: only DRA scenarios have claims;
    #: ``storage``: only storage scenarios have volumes); it replaces them for this mutant
    family: str = ""
    plugin: PluginForm | None = None

    @contextmanager
    def applied(self) -> Iterator[None]:
        """The reference with this bug planted, restored on exit."""
        with patched(self.patches):
            yield


class Catalogue(Sequence[Mutant]):
    """The mutants in catalogue order (the order of the report), unique by name."""

    def __init__(self, mutants: Iterable[Mutant]) -> None:
        self._mutants = tuple(mutants)
        self.by_name = {m.name: m for m in self._mutants}
        if len(self.by_name) != len(self._mutants):
            raise ValueError("duplicate mutant names in the catalogue")

    @overload
    def __getitem__(self, index: int) -> Mutant: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Mutant]: ...

    def __getitem__(self, index: int | slice) -> Mutant | Sequence[Mutant]:
        return self._mutants[index]

    def __len__(self) -> int:
        return len(self._mutants)

    def get(self, name: str) -> Mutant:
        """The mutant named ``name``; ``MutantError`` for an unknown name."""
        try:
            return self.by_name[name]
        except KeyError:
            raise MutantError(f"unknown mutant {name!r} "
                              f"(known: {', '.join(self.by_name)})") from None

    def select(self, names: Sequence[str]) -> list[Mutant]:
        """The named mutants in catalogue order (all when ``names`` is empty); a name may be a
        comma list. ``MutantError`` for an unknown name."""
        wanted = [n.strip() for x in names for n in x.split(",") if n.strip()]
        for n in wanted:
            self.get(n)
        if not wanted:
            return list(self._mutants)
        return [m for m in self._mutants if m.name in set(wanted)]

    def table(self) -> str:
        """``kschedconf mutants --list``: name, area, what it breaks, the upstream rule."""
        lines = []
        for m in self._mutants:
            tag = " [equivalent on generated scenarios]" if m.equivalent else (
                " [known survivor]" if m.missing_oracle else "")
            if m.plugin is not None:
                tag += f" [plugin form: {m.plugin.cls} replacing {m.plugin.plugin}]"
            lines.append(f"{m.name}  ({m.area}){tag}\n    {m.summary}\n"
                         f"    upstream: {m.upstream}")
        return "\n".join(lines) + "\n"
