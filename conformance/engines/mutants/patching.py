"""Planting a bug: :class:`Patch` replaces one attribute of the reference scheduler and
:func:`patched` applies a list of them for the duration of a ``with`` block, restoring every
replaced binding afterwards (also on errors). How a target is resolved: docs/mutants.md."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from reference_impl.model.loader.memo import forget_conversions
from reference_impl.plugins.registry import in_tree_registry


class MutantError(Exception):
    """A mutant cannot be applied (its target no longer exists) or is unknown."""


@dataclass(frozen=True, slots=True)
class Patch:
    """Replace one attribute for the duration of a mutant.

    ``target`` is ``"package.module:name"`` or ``"package.module:Class.attribute"``; the
    attribute must be *defined* there (a class attribute in the class's own ``__dict__``).
    ``make(original)`` returns the replacement. With ``everywhere``, every module of
    ``reference_impl`` bound to the same object under any name is patched too.
    """

    target: str
    make: Callable[[Any], Any]
    everywhere: bool = False


#: Modules that import every part of the reference a scenario run uses (plugins, framework,
#: queue, simulation), so that ``everywhere`` patches find every binding.
REFERENCE_ENTRY_MODULES = (
    "reference_impl.plugins.registry",
    "reference_impl.scheduler.scheduler",
    "reference_impl.scheduler.simulation",
    "reference_impl.model.loader",
    "reference_impl.model.scenario",
)

_loaded: list[bool] = []


def load_reference() -> None:
    """Import every module of the reference a run uses (once per process)."""
    if _loaded:
        return
    for name in REFERENCE_ENTRY_MODULES:
        importlib.import_module(name)
    in_tree_registry()  # imports every in-tree plugin module
    _loaded.append(True)


def resolve_target(target: str) -> tuple[Any, str, Any, Any]:
    """(owner, attribute name, raw value in the owner's ``__dict__``, value as looked up)."""
    mod_name, sep, path = target.partition(":")
    if not sep or not path:
        raise MutantError(f"patch target {target!r}: expected 'module:name'")
    try:
        owner: Any = importlib.import_module(mod_name)
    except ImportError as e:
        raise MutantError(f"patch target {target!r}: {e}") from e
    *parents, attr = path.split(".")
    for p in parents:
        try:
            owner = getattr(owner, p)
        except AttributeError:
            raise MutantError(f"patch target {target!r}: no {p!r}") from None
    d = vars(owner)
    if attr not in d:
        raise MutantError(f"patch target {target!r}: {attr!r} is not defined there")
    return owner, attr, d[attr], getattr(owner, attr)


_SITES: dict[tuple[int, str, int], list[tuple[Any, str]]] = {}


def binding_sites(owner: Any, attr: str, original: Any) -> list[tuple[Any, str]]:
    """Every (module, name) of ``reference_impl`` bound to ``original``, besides the owner's
    (computed once: the reference's modules do not rebind their imports)."""
    key = (id(owner), attr, id(original))
    found = _SITES.get(key)
    if found is None:
        found = _SITES[key] = _scan_sites(owner, original)
    return found


def _scan_sites(owner: Any, original: Any) -> list[tuple[Any, str]]:
    sites = []
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or mod is owner or not mod_name.startswith("reference_impl"):
            continue
        for name, value in list(vars(mod).items()):
            if value is original:
                sites.append((mod, name))
    return sites


@contextmanager
def patched(patches: Sequence[Patch]) -> Iterator[None]:
    """Apply the patches, yield, then restore every replaced attribute (also on errors).
    Conversions the loaders' memos kept are forgotten both times (``forget_conversions``):
    they were made by the code as it was."""
    load_reference()
    undo: list[tuple[Any, str, Any]] = []
    forget_conversions()
    try:
        for p in patches:
            owner, attr, raw, original = resolve_target(p.target)
            new = p.make(original)
            if isinstance(raw, staticmethod):
                new = staticmethod(new)
            sites = [(owner, attr)]
            if p.everywhere:
                sites += binding_sites(owner, attr, original)
            for obj, name in sites:
                undo.append((obj, name, vars(obj)[name]))
                setattr(obj, name, new)
        yield
    finally:
        for obj, name, old in reversed(undo):
            setattr(obj, name, old)
        forget_conversions()
