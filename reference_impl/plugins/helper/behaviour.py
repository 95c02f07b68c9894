"""The behaviour switch variant a plugin runs (``reference_impl/releases/behaviours.py``)."""

from __future__ import annotations

from reference_impl.framework.interfaces import Handle
from reference_impl.releases.current import RELEASE


def behaviour(handle: Handle | None, name: str) -> str:
    """The variant of switch ``name`` for the release the plugin's framework runs; the pinned
    release's for a plugin built without a handle (unit tests)."""
    return handle.behaviour(name) if handle is not None else RELEASE.behaviour(name)
