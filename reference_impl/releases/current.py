"""The data of the pinned upstream release (``pinned.UPSTREAM_RELEASE``).

``RELEASE`` is the :class:`~reference_impl.releases.ReleaseData` of that release;
``feature_enabled`` answers gate queries with the release's defaults and ``default_plugins``
returns the default profile's MultiPoint list.
"""

from __future__ import annotations

from reference_impl.releases import ReleaseData, load
from reference_impl.releases.pinned import UPSTREAM_RELEASE

RELEASE: ReleaseData = load(UPSTREAM_RELEASE)


def feature_enabled(gate: str) -> bool:
    """The pinned release's default for ``gate``; an unknown gate is a ``KeyError`` (as
    ``featuregate.Enabled`` of an unregistered gate fails upstream)."""
    try:
        return RELEASE.feature_gates[gate]
    except KeyError:
        raise KeyError(f"feature gate {gate!r} is not known for {RELEASE.release}") from None


def default_plugins() -> list[tuple[str, int]]:
    """The default MultiPoint plugins ``(name, weight)`` in order (weight 0 = not set)."""
    return list(RELEASE.default_plugins)
